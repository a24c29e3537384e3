// Builds the benchmark's source tree by replicating and renaming the fixtures.
//
// Renaming is textual and whole-word. The renamed names are the definitions
// the symbol extractor reports in a fixture (functions, classes, methods...),
// its upper-case constants and, in JavaScript and TypeScript, its top-level
// `const`/`let`/`var` names; every occurrence of one in a copy gets the
// copy's suffix ("TokenValidator" -> "TokenValidator_g1234"). Appending
// "_g<n>" to an identifier keeps it an identifier in all nine languages, so a
// copy parses exactly as the fixture does; the benchmark verifies this by
// counting files whose tree has errors. Words that are keywords somewhere
// ("new", "get", "constructor") or name a library trait's method (Rust's
// `fmt`) are never renamed, even when a fixture defines them.
#include "Corpus.h"

#include "syntax/Languages.h"
#include "syntax/Symbols.h"
#include "util/Fs.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <stdexcept>
#include <unordered_set>

namespace fs = std::filesystem;

namespace engram::bench {

namespace {

struct Variant {
    std::string header; // kept by a file's first copy only
    std::string body;
};

struct LanguageSource {
    std::string language;
    std::string extension; // ".py"
    std::vector<Variant> variants;
    std::unordered_set<std::string> names; // renamed per copy
};

bool identStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool identChar(char c) {
    return identStart(c) || (c >= '0' && c <= '9');
}

bool isIdentifier(std::string_view s) {
    if (s.empty() || !identStart(s[0])) return false;
    return std::all_of(s.begin(), s.end(), identChar);
}

// Keywords or contextual keywords in at least one of the languages: renaming
// them would change how a copy parses.
bool neverRename(std::string_view name) {
    static const std::set<std::string_view> words = {
        "constructor", "new",    "get",  "set",   "delete", "default", "init",
        "main",        "static", "type", "async", "await",  "of",      "from",
        "as",          "self",   "this", "super", "string", "render",  "fmt"};
    return name.size() < 3 || name.starts_with("__") || words.count(name) > 0;
}

bool startsWith(std::string_view line, std::string_view p) {
    return line.substr(0, p.size()) == p;
}

// The header of a fixture: its leading package clause, imports, includes and
// file comment, up to the last such line (comments after it belong to the
// first definition and stay in the body).
Variant splitHeader(const std::string& language, const std::string& text) {
    size_t pos = 0, headerEnd = 0;
    bool inImportBlock = false;
    bool first = true;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        size_t next = nl == std::string::npos ? text.size() : nl + 1;
        std::string_view line(text.data() + pos, next - pos);
        std::string_view trimmed = line;
        while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t'))
            trimmed.remove_prefix(1);
        while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == '\r'))
            trimmed.remove_suffix(1);
        bool comment = startsWith(trimmed, "//") || startsWith(trimmed, "/*") ||
                       startsWith(trimmed, "*") ||
                       (language == "python" && startsWith(trimmed, "#"));
        bool real = false;
        if (inImportBlock) {
            real = true;
            if (trimmed == ")") inImportBlock = false;
        } else if (startsWith(trimmed, "package ") || startsWith(trimmed, "import ") ||
                   startsWith(trimmed, "from ") || startsWith(trimmed, "use ") ||
                   startsWith(trimmed, "#include") || startsWith(trimmed, "//!")) {
            real = true;
            if (trimmed == "import (") inImportBlock = true;
        } else if (language == "python" && first && startsWith(trimmed, "\"\"\"")) {
            real = true; // a one-line module docstring
        } else if (first && comment) {
            real = true; // the file's purpose comment
        } else if (!trimmed.empty() && !comment) {
            break;
        }
        if (real) headerEnd = next;
        first = false;
        pos = next;
    }
    return {text.substr(0, headerEnd), text.substr(headerEnd)};
}

// Every whole-word occurrence of a name in `names` gets `suffix` appended.
void appendRenamed(std::string& out, std::string_view text,
                   const std::unordered_set<std::string>& names, std::string_view suffix) {
    size_t i = 0;
    while (i < text.size()) {
        if (!identChar(text[i])) {
            size_t j = i;
            while (j < text.size() && !identChar(text[j]))
                ++j;
            out.append(text.substr(i, j - i));
            i = j;
            continue;
        }
        size_t j = i;
        while (j < text.size() && identChar(text[j]))
            ++j;
        std::string_view word = text.substr(i, j - i);
        out.append(word);
        if (identStart(word[0]) && names.count(std::string(word))) out.append(suffix);
        i = j;
    }
}

std::vector<LanguageSource> loadFixtures(const std::string& fixturesDir) {
    std::vector<LanguageSource> out;
    for (const auto& info : syntax::languages()) {
        LanguageSource src;
        src.language = info.name;
        fs::path dir = fs::path(fixturesDir) / "languages" / info.name;
        std::vector<fs::path> paths;
        if (fs::is_directory(dir))
            for (const auto& e : fs::directory_iterator(dir))
                if (e.is_regular_file()) paths.push_back(e.path());
        std::sort(paths.begin(), paths.end());
        for (const auto& p : paths) {
            auto lang = syntax::languageForPath(p.string());
            if (!lang || *lang != info.name) continue;
            auto text = readFile(p.string());
            if (!text || text->empty()) continue;
            if (text->back() != '\n') text->push_back('\n');
            if (src.extension.empty()) src.extension = p.extension().string();
            for (const auto& s : syntax::extractSymbols(info.name, *text))
                if (isIdentifier(s.name) && !neverRename(s.name)) src.names.insert(s.name);
            // Upper-case constants (MAX_AGE, RING_CAPACITY): a second copy
            // in the same file must not redeclare them.
            for (size_t i = 0; i < text->size();) {
                if (!identStart((*text)[i]) || (i > 0 && identChar((*text)[i - 1]))) {
                    ++i;
                    continue;
                }
                size_t j = i;
                while (j < text->size() && identChar((*text)[j]))
                    ++j;
                std::string word = text->substr(i, j - i);
                bool upper = word.size() >= 3 &&
                             std::none_of(word.begin(), word.end(),
                                          [](char c) { return c >= 'a' && c <= 'z'; }) &&
                             word.find('_') != std::string::npos;
                if (upper && !neverRename(word)) src.names.insert(word);
                i = j;
            }
            // Top-level `const x` / `let x` / `var x` (JavaScript's `handlers`):
            // a module may not declare them twice either.
            bool script =
                info.name == "javascript" || info.name == "typescript" || info.name == "tsx";
            for (size_t pos = 0; script && pos < text->size();) {
                size_t nl = text->find('\n', pos);
                std::string_view line(text->data() + pos,
                                      (nl == std::string::npos ? text->size() : nl) - pos);
                if (startsWith(line, "export ")) line.remove_prefix(7);
                for (std::string_view kw : {"const ", "let ", "var "}) {
                    if (!startsWith(line, kw)) continue;
                    std::string_view rest = line.substr(kw.size());
                    size_t n = 0;
                    while (n < rest.size() && identChar(rest[n]))
                        ++n;
                    std::string word(rest.substr(0, n));
                    if (isIdentifier(word) && !neverRename(word)) src.names.insert(word);
                }
                pos = nl == std::string::npos ? text->size() : nl + 1;
            }
            src.variants.push_back(splitHeader(info.name, *text));
        }
        if (src.variants.empty())
            throw std::runtime_error("no fixtures for " + info.name + " under " + dir.string());
        out.push_back(std::move(src));
    }
    return out;
}

} // namespace

Corpus generateCorpus(const std::string& fixturesDir, const std::string& dir, size_t targetBytes,
                      uint64_t seed) {
    auto t0 = std::chrono::steady_clock::now();
    auto sources = loadFixtures(fixturesDir);
    std::mt19937_64 rng(seed);
    Corpus c;
    size_t perLanguage = targetBytes / sources.size();
    size_t copyNo = 0;
    for (const auto& src : sources) {
        size_t bytes = 0, files = 0;
        while (bytes < perLanguage) {
            // 1..12 copies: files from one to about fifteen kilobytes.
            size_t copies = 1 + size_t(rng() % 12);
            std::string text;
            for (size_t k = 0; k < copies; ++k) {
                const Variant& v = src.variants[rng() % src.variants.size()];
                std::string suffix = "_g" + std::to_string(++copyNo);
                if (k == 0) appendRenamed(text, v.header, src.names, suffix);
                std::string body;
                appendRenamed(body, v.body, src.names, suffix);
                // One public top-level class per Java file.
                if (src.language == "java" && k > 0 && startsWith(body, "public "))
                    body.erase(0, 7);
                for (size_t p = body.find("\npublic class ");
                     src.language == "java" && k > 0 && p != std::string::npos;
                     p = body.find("\npublic class ", p))
                    body.erase(p + 1, 7);
                if (!text.empty() && text.back() != '\n') text += '\n';
                if (k > 0) text += '\n';
                text += body;
            }
            char name[64];
            std::snprintf(name, sizeof name, "d%02zu/%s_%05zu%s", files % 16, src.language.c_str(),
                          files, src.extension.c_str());
            SourceFile f;
            f.path = (fs::path(dir) / src.language / name).string();
            f.language = src.language;
            c.lines += size_t(std::count(text.begin(), text.end(), '\n'));
            c.copies += copies;
            bytes += text.size();
            f.text = std::move(text);
            c.files.push_back(std::move(f));
            ++files;
        }
        c.perLanguage.push_back({src.language, {files, bytes}});
        c.bytes += bytes;
    }
    for (const auto& f : c.files) {
        makeDirs(fs::path(f.path).parent_path().string());
        FILE* out = std::fopen(f.path.c_str(), "wb");
        if (!out) throw std::runtime_error("cannot create " + f.path);
        bool ok = std::fwrite(f.text.data(), 1, f.text.size(), out) == f.text.size();
        if (std::fclose(out) != 0 || !ok) throw std::runtime_error("cannot write " + f.path);
    }
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return c;
}

} // namespace engram::bench
