// Root discovery, canonical paths and URI conversion.
#include "util/Paths.h"

#include "util/Error.h"
#include "util/Hash.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace engram {

static std::string lexicalNormalize(const std::string& abs) {
    std::vector<std::string> parts;
    size_t i = 0;
    while (i <= abs.size()) {
        size_t j = abs.find('/', i);
        if (j == std::string::npos) j = abs.size();
        std::string seg = abs.substr(i, j - i);
        if (seg == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!seg.empty() && seg != ".") {
            parts.push_back(seg);
        }
        i = j + 1;
    }
    std::string out;
    for (auto& p : parts)
        out += "/" + p;
    return out.empty() ? "/" : out;
}

std::string currentDir() {
    char buf[PATH_MAX];
    return ::getcwd(buf, sizeof buf) ? std::string(buf) : std::string(".");
}

std::string canonicalPath(const std::string& path) {
    std::string abs = !path.empty() && path[0] == '/' ? path : currentDir() + "/" + path;
    char buf[PATH_MAX];
    if (::realpath(abs.c_str(), buf)) return buf;
    return lexicalNormalize(abs);
}

std::string rootFingerprint(const std::string& canonicalRoot) {
    return sha256Hex(canonicalRoot).substr(0, 16);
}

bool isDirectory(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string discoverRoot(const std::string& start) {
    std::string dir = canonicalPath(start);
    for (std::string cur = dir;;) {
        if (isDirectory(cur + "/.engram") || isDirectory(cur + "/.git") ||
            ::access((cur + "/.git").c_str(), F_OK) == 0)
            return cur;
        if (cur == "/") break;
        auto slash = cur.find_last_of('/');
        cur = slash == 0 ? "/" : cur.substr(0, slash);
    }
    return dir;
}

static bool within(const std::string& root, const std::string& p) {
    if (root == "/") return true;
    return p == root || (p.size() > root.size() && p.compare(0, root.size(), root) == 0 &&
                         p[root.size()] == '/');
}

std::optional<std::string> relativeToRoot(const std::string& root, const std::string& path) {
    if (path.empty()) return std::nullopt;
    std::string abs = path[0] == '/' ? path : root + "/" + path;
    std::string lex = lexicalNormalize(abs);
    if (!within(root, lex)) return std::nullopt;
    // A symlink inside the root may lead out of it: judge the real target too.
    char buf[PATH_MAX];
    if (::realpath(lex.c_str(), buf) && !within(root, buf)) return std::nullopt;
    if (lex == root) return std::string(".");
    return lex.substr(root == "/" ? 1 : root.size() + 1);
}

std::string confinedPath(const std::string& root, const std::string& field,
                         const std::string& path) {
    if (path.empty()) throw invalidField(field, "must not be empty");
    auto rel = relativeToRoot(root, path);
    if (!rel)
        throw EngramError(ErrorKind::OutsideRoot,
                          field + ": '" + path + "' is outside the workspace root " + root,
                          {{"field", field}, {"root", root}});
    return *rel;
}

std::optional<std::string> uriToPath(const std::string& uri) {
    const std::string scheme = "file://";
    if (uri.compare(0, scheme.size(), scheme) != 0) return std::nullopt;
    std::string rest = uri.substr(scheme.size());
    // file://host/path: only the local host (empty or "localhost") is ours.
    if (!rest.empty() && rest[0] != '/') {
        auto slash = rest.find('/');
        if (rest.substr(0, slash) != "localhost") return std::nullopt;
        rest = slash == std::string::npos ? "/" : rest.substr(slash);
    }
    std::string out = percentDecoded(rest);
    return out.empty() ? std::nullopt : std::optional<std::string>(out);
}

std::string percentDecoded(std::string_view s) {
    auto hex = [](char c) {
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                      : -1;
    };
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out += char(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::string pathToUri(const std::string& path) {
    std::string out = "file://";
    for (unsigned char c : path) {
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '/' || c == '-' || c == '_' || c == '.' || c == '~';
        if (plain) {
            out += char(c);
        } else {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            out += buf;
        }
    }
    return out;
}

std::optional<std::string> deepestRootHolding(const std::vector<std::string>& roots,
                                              const std::string& path) {
    std::optional<std::string> best;
    for (auto& root : roots) {
        bool holds = path == root || (path.size() > root.size() && path.starts_with(root) &&
                                      (root == "/" || path[root.size()] == '/'));
        if (holds && (!best || root.size() > best->size())) best = root;
    }
    return best;
}

} // namespace engram
