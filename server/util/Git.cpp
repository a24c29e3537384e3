// Reading a git repository's files.
#include "util/Git.h"

#include "util/Fs.h"

#include <algorithm>
#include <sys/stat.h>

namespace engram {

std::string trimRight(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
        s.pop_back();
    return s;
}

bool isHexId(const std::string& s) {
    if (s.size() != 40 && s.size() != 64) return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::optional<GitDirs> findGit(const std::string& root) {
    std::string dir = root;
    while (true) {
        std::string dotGit = dir + "/.git";
        struct stat st;
        if (::stat(dotGit.c_str(), &st) == 0) {
            GitDirs g;
            if (S_ISDIR(st.st_mode)) {
                g.gitDir = dotGit;
            } else {
                auto text = readFile(dotGit);
                if (!text || !text->starts_with("gitdir:")) return std::nullopt;
                std::string p = trimRight(text->substr(7));
                p.erase(0, p.find_first_not_of(' '));
                g.gitDir = p.starts_with("/") ? p : dir + "/" + p;
            }
            g.commonDir = g.gitDir;
            if (auto common = readFile(g.gitDir + "/commondir")) {
                std::string c = trimRight(*common);
                g.commonDir = c.starts_with("/") ? c : g.gitDir + "/" + c;
            }
            return g;
        }
        if (dir.size() <= 1) return std::nullopt;
        auto slash = dir.find_last_of('/');
        if (slash == std::string::npos) return std::nullopt;
        dir = slash == 0 ? "/" : dir.substr(0, slash);
    }
}

std::string resolveRef(const GitDirs& g, const std::string& ref) {
    for (auto* base : {&g.gitDir, &g.commonDir})
        if (auto v = readFile(*base + "/" + ref)) {
            std::string id = trimRight(*v);
            if (isHexId(id)) return id;
        }
    if (auto packed = readFile(g.commonDir + "/packed-refs")) {
        std::string_view rest = *packed;
        while (!rest.empty()) {
            auto nl = rest.find('\n');
            std::string_view line = rest.substr(0, nl);
            rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
            auto sp = line.find(' ');
            if (sp != std::string_view::npos && line.substr(sp + 1) == ref) {
                std::string id(line.substr(0, sp));
                if (isHexId(id)) return id;
            }
        }
    }
    return "";
}

bool configNamesEngramDriver(const GitDirs& g) {
    auto text = readFile(g.commonDir + "/config");
    if (!text) return false;
    auto section = text->find("[merge \"engram\"]");
    if (section == std::string::npos) return false;
    auto next = text->find("\n[", section + 1);
    auto driver = text->find("driver", section);
    return driver != std::string::npos && (next == std::string::npos || driver < next);
}

} // namespace engram
