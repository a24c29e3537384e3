// The files a prompt names (Engine::filesNamedIn): the hook hands them to
// its packet as the paths it is about, so claims anchored in a file the
// prompt names come whatever their words (ARCHITECTURE.md, "Memory in the
// agent loop").
#include "engine/Engine.h"

#include "index/Index.h"
#include "util/Fs.h"
#include "util/Paths.h"

#include <algorithm>
#include <cctype>

namespace engram {

namespace {

// A word of the prompt as written, less the quotes and punctuation around
// it and a line number after it, when it looks like a file name: a name, a
// dot and an extension of 1 to 8 letters or digits, one of them a letter
// ("billing.py", "src/a.test.ts"; not "e.g.", "v1.2" or "3.14"); never a
// URL or an address.
std::optional<std::string> fileWord(std::string w) {
    auto edge = [](char c) {
        return std::string_view("`'\"()[]{}<>,;:!?*").find(c) != std::string_view::npos;
    };
    while (!w.empty() && edge(w.front()))
        w.erase(0, 1);
    while (!w.empty() && (edge(w.back()) || w.back() == '.'))
        w.pop_back();
    if (w.starts_with("./")) w.erase(0, 2);
    // A place in the file, as compilers and tracebacks write it:
    // "src/billing.py:42" or "main.c:42:7".
    for (int part = 0; part < 2; ++part) {
        size_t colon = w.rfind(':');
        if (colon == std::string::npos || colon + 1 == w.size() ||
            w.find_first_not_of("0123456789", colon + 1) != std::string::npos)
            break;
        w.erase(colon);
    }
    if (w.empty() || w.size() > 400 || w.find("://") != std::string::npos ||
        w.find('@') != std::string::npos || w.front() == '/')
        return std::nullopt;
    size_t dot = w.rfind('.'), slash = w.rfind('/');
    if (dot == std::string::npos || dot == 0 || (slash != std::string::npos && dot <= slash + 1))
        return std::nullopt;
    std::string_view ext = std::string_view(w).substr(dot + 1);
    if (ext.empty() || ext.size() > 8) return std::nullopt;
    bool letter = false;
    for (char c : ext) {
        if (!std::isalnum(static_cast<unsigned char>(c))) return std::nullopt;
        letter = letter || std::isalpha(static_cast<unsigned char>(c));
    }
    if (!letter) return std::nullopt;
    return w;
}

} // namespace

std::vector<std::string> Engine::filesNamedIn(const std::string& prompt, size_t most) {
    constexpr size_t kLooked = 8; // lookups a prompt may cost, one indexed query each
    constexpr int kAmbiguous = 3; // a bare name naming more files names none of them
    std::vector<std::string> out;
    Tier& proj = tiers_.project();
    if (most == 0 || !tiers_.ready(proj)) return out;
    // One read transaction for the lookups, opened at the first word that
    // looks like a file (most prompts name none).
    std::optional<decltype(proj.index->readScope())> snapshot;
    size_t looked = 0;
    size_t at = 0;
    while (at < prompt.size() && looked < kLooked && out.size() < most) {
        size_t end = prompt.find_first_of(" \t\r\n", at);
        if (end == std::string::npos) end = prompt.size();
        auto word = fileWord(prompt.substr(at, end - at));
        at = end + 1;
        if (!word) continue;
        if (!snapshot) snapshot.emplace(proj.index->readScope());
        ++looked;
        size_t slash = word->rfind('/');
        std::string base = slash == std::string::npos ? *word : word->substr(slash + 1);
        auto named = proj.index->filesNamed(base, slash == std::string::npos ? kAmbiguous + 1 : 64);
        if (slash == std::string::npos) {
            if (int(named.size()) > kAmbiguous) continue;
        } else {
            // A path written from the root or from any folder of it; from
            // the root, a file on disk is enough (a workspace no server has
            // listed yet: the hook alone).
            std::erase_if(named, [&](const std::string& p) {
                return p != *word && !p.ends_with("/" + *word);
            });
            if (named.empty() && word->find("..") == std::string::npos)
                if (statFile(joinPath(opts_.root, *word))) named.push_back(*word);
        }
        for (auto& p : named)
            if (out.size() < most && std::find(out.begin(), out.end(), p) == out.end())
                out.push_back(p);
    }
    return out;
}

} // namespace engram
