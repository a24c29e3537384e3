// The corpus, its inventories, the formatter passes and the token picker.
#include "Corpus.h"

#include "Client.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <glob.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace engram::corpus {

using json = nlohmann::json;
using e2e::runProgram;

std::string repoRoot() {
    return ENGRAM_SOURCE_DIR;
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void writeAll(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

namespace {

std::vector<std::string> globbed(const std::string& pattern) {
    glob_t g{};
    std::vector<std::string> out;
    if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; ++i)
            out.emplace_back(g.gl_pathv[i]);
    ::globfree(&g);
    return out;
}

std::string failure(const std::string& what, const e2e::CliResult& r) {
    if (r.exitCode == 0) return "";
    return what + " exited " + std::to_string(r.exitCode) + ": " + r.err.substr(0, 2000);
}

} // namespace

std::vector<std::string> sources(const std::string& lang) {
    std::ifstream in(repoRoot() + "/tests/corpus/corpus.conf");
    REQUIRE(in.good());
    std::vector<std::string> out;
    std::string line;
    while (std::getline(in, line)) {
        if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        std::istringstream words(line);
        std::string l, path;
        if (!(words >> l >> path) || l != lang) continue;
        std::string pattern = path.front() == '/' ? path : repoRoot() + "/" + path;
        auto hits = globbed(pattern);
        INFO("corpus.conf: " << path << " matches no file; run scripts/setup.sh --tests");
        REQUIRE(!hits.empty());
        out.push_back(hits.back()); // the newest version when several match
    }
    REQUIRE(!out.empty());
    return out;
}

namespace {

// C++ tools write "operator ==", engram "operator==".
std::string normaliseName(std::string name) {
    if (name.starts_with("operator ") && name.size() > 9 &&
        !std::isalpha(static_cast<unsigned char>(name[9])))
        name.erase(8, 1);
    return name;
}

std::vector<Definition> fromJsonLines(const std::string& out, const std::string& root) {
    std::vector<Definition> defs;
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.empty()) continue;
        json j = json::parse(line);
        if (j.value("_type", "tag") != "tag") continue;
        Definition d;
        std::string file =
            j.contains("path") ? j["path"].get<std::string>() : j["file"].get<std::string>();
        d.file = file.starts_with(root + "/") ? file.substr(root.size() + 1) : file;
        d.line = j["line"].get<int>();
        d.nameLine = j.value("nameLine", d.line);
        d.name = normaliseName(j["name"].get<std::string>());
        d.kind = j.value("kind", "");
        d.scope = j.value("scope", "");
        if (d.name.starts_with("__anon")) continue; // ctags' name for an unnamed struct
        defs.push_back(std::move(d));
    }
    return defs;
}

// The tools misread too (ctags takes a macro's argument for the name of the
// function below it): an entry whose name is not on the line it gives is
// the tool's mistake, left out.
std::vector<Definition> plausible(std::vector<Definition> defs, const std::string& root) {
    std::map<std::string, std::vector<std::string>> lines;
    std::vector<Definition> out;
    for (auto& d : defs) {
        auto& ls = lines[d.file];
        if (ls.empty()) {
            std::istringstream in(readAll(root + "/" + d.file));
            for (std::string l; std::getline(in, l);)
                ls.push_back(l);
        }
        std::string bare = d.name.substr(0, d.name.find('('));
        if (bare.starts_with("operator")) bare = "operator";
        if (d.nameLine < 1 || size_t(d.nameLine) > ls.size()) continue;
        // The name outside any parentheses: an argument is not a name.
        const std::string& l = ls[size_t(d.nameLine - 1)];
        bool found = false;
        for (size_t at = l.find(bare); at != std::string::npos && !found;
             at = l.find(bare, at + 1)) {
            int depth = 0;
            for (size_t k = 0; k < at; ++k)
                depth += l[k] == '(' ? 1 : l[k] == ')' ? -1 : 0;
            found = depth <= 0;
        }
        if (!found) continue;
        out.push_back(std::move(d));
    }
    return out;
}

} // namespace

std::vector<Definition> inventory(const std::string& lang, const std::string& root,
                                  const std::vector<std::string>& files) {
    std::vector<std::string> abs;
    for (auto& f : files)
        abs.push_back(root + "/" + f);
    std::vector<std::string> argv;
    const std::string tools = repoRoot() + "/tests/corpus/";
    if (lang == "python") {
        argv = {"python3", tools + "inventory.py"};
    } else if (lang == "javascript" || lang == "typescript" || lang == "tsx") {
        argv = {"node", tools + "inventory.mjs"};
    } else {
        // universal-ctags; the kinds that are definitions with a body or a
        // value (prototypes, fields, variables and enumerators are not).
        static const std::map<std::string, std::pair<std::string, std::string>> kinds = {
            {"c", {"C", "--kinds-C=fsgutd"}},         {"cpp", {"C++", "--kinds-C++=fsgutcnd"}},
            {"go", {"Go", "--kinds-Go=fsitn"}},       {"rust", {"Rust", "--kinds-Rust=fgisPnMc"}},
            {"java", {"Java", "--kinds-Java=cgima"}},
        };
        auto& [language, k] = kinds.at(lang);
        argv = {"ctags",
                "--output-format=json",
                "--fields=+nKeZ",
                "--language-force=" + language,
                k,
                "-f",
                "-"};
    }
    argv.insert(argv.end(), abs.begin(), abs.end());
    auto r = runProgram(argv, {}, "", std::chrono::seconds(120));
    INFO(argv[0] << ": " << r.err);
    REQUIRE(r.exitCode == 0);
    return plausible(fromJsonLines(r.out, root), root);
}

namespace {

// Runs one program over all files at once.
Pass whole(std::string name, std::vector<std::string> argv) {
    return {name, [name, argv](const std::vector<std::string>& files) {
                std::vector<std::string> a = argv;
                a.insert(a.end(), files.begin(), files.end());
                return failure(name, runProgram(a, {}, "", std::chrono::seconds(300)));
            }};
}

// Runs a filter (stdin to stdout) over each file: rustfmt, which given a
// path would also format the modules the file declares.
Pass filter(std::string name, std::vector<std::string> argv) {
    return {name, [name, argv](const std::vector<std::string>& files) {
                for (auto& f : files) {
                    auto r = runProgram(argv, {}, readAll(f), std::chrono::seconds(120));
                    if (auto err = failure(name + " on " + f, r); !err.empty()) return err;
                    writeAll(f, r.out);
                }
                return std::string();
            }};
}

Pass clangFormat(const std::string& style) {
    return whole("clang-format --style='" + style + "'",
                 {"clang-format", "-i", "--style=" + style});
}

} // namespace

std::vector<Pass> formatterPasses(const std::string& lang) {
    if (lang == "python")
        return {whole("black", {"black", "-q"}), whole("black -l 40", {"black", "-q", "-l", "40"})};
    if (lang == "javascript" || lang == "typescript" || lang == "tsx") {
        std::vector<std::string> prettier = {"node",
                                             repoRoot() + "/tests/corpus/node_modules/"
                                                          "prettier/bin/prettier.cjs",
                                             "--write",
                                             "--log-level=warn",
                                             "--no-config",
                                             "--no-editorconfig"};
        auto with = [&](std::vector<std::string> opts) {
            auto a = prettier;
            a.insert(a.end(), opts.begin(), opts.end());
            return a;
        };
        return {
            whole("prettier (no semicolons, single quotes, trailing commas, width 40, tabs)",
                  with({"--no-semi", "--single-quote", "--trailing-comma", "all", "--print-width",
                        "40", "--use-tabs", "--arrow-parens", "avoid", "--quote-props",
                        "consistent", "--no-bracket-spacing"})),
            whole("prettier (semicolons, double quotes, no trailing commas, width 120, "
                  "tab width 8)",
                  with({"--semi", "--trailing-comma", "none", "--print-width", "120", "--tab-width",
                        "8", "--arrow-parens", "always", "--bracket-same-line"}))};
    }
    if (lang == "c" || lang == "cpp") {
        // C++20 said, or clang-format 14 splits `<=>` into `<= >`: a change
        // to the code, which engram rightly reports.
        std::string std = lang == "cpp" ? ", Standard: c++20" : "";
        return {clangFormat("{BasedOnStyle: GNU" + std + "}"),
                clangFormat("{BasedOnStyle: WebKit, ColumnLimit: 40" + std + "}"),
                clangFormat("{BasedOnStyle: Google" + std + "}"),
                clangFormat("{BasedOnStyle: LLVM, UseTab: Always, IndentWidth: 8, "
                            "BreakBeforeBraces: Allman, ColumnLimit: 120" +
                            std + "}")};
    }
    if (lang == "java")
        return {clangFormat("Google"), clangFormat("{BasedOnStyle: Chromium, ColumnLimit: 40}"),
                clangFormat("{BasedOnStyle: WebKit, BreakBeforeBraces: Allman, ColumnLimit: 0}")};
    if (lang == "rust")
        return {
            filter("rustfmt (max_width 40)",
                   {"rustfmt", "--edition", "2021", "--config", "max_width=40"}),
            filter("rustfmt (hard tabs, max_width 160)",
                   {"rustfmt", "--edition", "2021", "--config", "hard_tabs=true,max_width=160"})};
    if (lang == "go")
        return {{"de-formatted",
                 [](const std::vector<std::string>& files) {
                     for (auto& f : files)
                         writeAll(f, deformatGo(readAll(f)));
                     return std::string();
                 }},
                {"gofmt over the de-formatted copy",
                 [](const std::vector<std::string>& files) {
                     std::vector<std::string> deformatted;
                     for (auto& f : files) {
                         deformatted.push_back(deformatGo(readAll(f)));
                         writeAll(f, deformatted.back());
                     }
                     std::vector<std::string> a = {"gofmt", "-w"};
                     a.insert(a.end(), files.begin(), files.end());
                     auto err = failure("gofmt", runProgram(a, {}, "", std::chrono::seconds(120)));
                     if (!err.empty()) return err;
                     // gofmt must have had something to undo, or the pass
                     // proves nothing.
                     for (size_t i = 0; i < files.size(); ++i)
                         if (readAll(files[i]) != deformatted[i]) return std::string();
                     return std::string("gofmt changed none of the de-formatted files");
                 },
                 true}};
    return {};
}

// ---------------------------------------------------------------------------
// Tokens.

namespace {

bool identStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool identChar(char c) {
    return identStart(c) || (c >= '0' && c <= '9');
}

const std::set<std::string>& keywords(const std::string& lang) {
    static const std::map<std::string, std::set<std::string>> all = {
        {"python",
         {"False",   "None",     "True",     "and",    "as",   "assert", "async",  "await",
          "break",   "class",    "continue", "def",    "del",  "elif",   "else",   "except",
          "finally", "for",      "from",     "global", "if",   "import", "in",     "is",
          "lambda",  "nonlocal", "not",      "or",     "pass", "raise",  "return", "try",
          "while",   "with",     "yield",    "match",  "case", "print",  "exec",   "self"}},
        {"js",
         {"break",     "case",      "catch",     "class",    "const",     "continue",   "debugger",
          "default",   "delete",    "do",        "else",     "export",    "extends",    "finally",
          "for",       "function",  "if",        "import",   "in",        "instanceof", "new",
          "return",    "super",     "switch",    "this",     "throw",     "try",        "typeof",
          "var",       "void",      "while",     "with",     "yield",     "let",        "static",
          "async",     "await",     "of",        "get",      "set",       "null",       "true",
          "false",     "undefined", "interface", "type",     "enum",      "implements", "private",
          "protected", "public",    "readonly",  "abstract", "declare",   "namespace",  "module",
          "keyof",     "infer",     "is",        "as",       "satisfies", "any",        "unknown",
          "never",     "string",    "number",    "boolean",  "bigint",    "symbol",     "object",
          "override",  "unique",    "asserts",   "accessor", "require",   "constructor"}},
        {"c", {"auto",       "break",         "case",        "char",
               "const",      "continue",      "default",     "do",
               "double",     "else",          "enum",        "extern",
               "float",      "for",           "goto",        "if",
               "inline",     "int",           "long",        "register",
               "restrict",   "return",        "short",       "signed",
               "sizeof",     "static",        "struct",      "switch",
               "typedef",    "union",         "unsigned",    "void",
               "volatile",   "while",         "bool",        "true",
               "false",      "NULL",          "define",      "include",
               "ifdef",      "ifndef",        "endif",       "elif",
               "undef",      "pragma",        "defined",     "size_t",
               "uint8_t",    "uint16_t",      "uint32_t",    "uint64_t",
               "int8_t",     "int16_t",       "int32_t",     "int64_t",
               "class",      "namespace",     "template",    "typename",
               "public",     "private",       "protected",   "virtual",
               "override",   "final",         "operator",    "new",
               "delete",     "this",          "using",       "constexpr",
               "noexcept",   "decltype",      "nullptr",     "friend",
               "explicit",   "mutable",       "static_cast", "reinterpret_cast",
               "const_cast", "dynamic_cast",  "try",         "catch",
               "throw",      "static_assert", "concept",     "requires",
               "co_await",   "co_return",     "co_yield",    "alignas",
               "alignof",    "thread_local",  "char8_t",     "char16_t",
               "char32_t",   "wchar_t"}},
        {"go", {"break",  "case",        "chan",      "const",      "continue", "default", "defer",
                "else",   "fallthrough", "for",       "func",       "go",       "goto",    "if",
                "import", "interface",   "map",       "package",    "range",    "return",  "select",
                "struct", "switch",      "type",      "var",        "string",   "int",     "bool",
                "byte",   "rune",        "error",     "any",        "float64",  "int64",   "uint64",
                "int32",  "uint32",      "uint8",     "uintptr",    "uint",     "float32", "int8",
                "int16",  "uint16",      "complex64", "complex128", "nil",      "true",    "false",
                "iota"}},
        {"rust",
         {"as",    "break",   "const",  "continue", "crate",    "else",  "enum",   "extern",
          "false", "fn",      "for",    "if",       "impl",     "in",    "let",    "loop",
          "match", "mod",     "move",   "mut",      "pub",      "ref",   "return", "self",
          "Self",  "static",  "struct", "super",    "trait",    "true",  "type",   "unsafe",
          "use",   "where",   "while",  "async",    "await",    "dyn",   "union",  "macro_rules",
          "u8",    "u16",     "u32",    "u64",      "u128",     "usize", "i8",     "i16",
          "i32",   "i64",     "i128",   "isize",    "f32",      "f64",   "bool",   "char",
          "str",   "default", "expr",   "ident",    "tt",       "ty",    "pat",    "block",
          "item",  "path",    "stmt",   "literal",  "lifetime", "vis",   "meta"}},
        {"java", {"abstract", "assert",     "boolean",  "break",     "byte",     "case",
                  "catch",    "char",       "class",    "const",     "continue", "default",
                  "do",       "double",     "else",     "enum",      "extends",  "final",
                  "finally",  "float",      "for",      "goto",      "if",       "implements",
                  "import",   "instanceof", "int",      "interface", "long",     "native",
                  "new",      "package",    "private",  "protected", "public",   "return",
                  "short",    "static",     "strictfp", "super",     "switch",   "synchronized",
                  "this",     "throw",      "throws",   "transient", "try",      "void",
                  "volatile", "while",      "true",     "false",     "null",     "var",
                  "record",   "yield",      "sealed",   "permits",   "non"}},
    };
    if (lang == "javascript" || lang == "typescript" || lang == "tsx") return all.at("js");
    if (lang == "cpp") return all.at("c");
    return all.at(lang);
}

// The identifiers of `text` outside comments and string literals, as spans.
std::vector<Span> identifiers(const std::string& lang, const std::string& text) {
    std::vector<Span> out;
    const size_t n = text.size();
    const bool python = lang == "python";
    const bool js = lang == "javascript" || lang == "typescript" || lang == "tsx";
    const bool rust = lang == "rust";
    size_t i = 0;
    auto skipQuoted = [&](char q) {
        for (++i; i < n && text[i] != q; ++i) {
            if (text[i] == '\\')
                ++i;
            else if (text[i] == '\n' && q != '`')
                break; // an unclosed literal ends its line
        }
        ++i;
    };
    while (i < n) {
        char c = text[i];
        if (python && c == '#') {
            while (i < n && text[i] != '\n')
                ++i;
            continue;
        }
        if (!python && c == '/' && i + 1 < n && text[i + 1] == '/') {
            while (i < n && text[i] != '\n')
                ++i;
            continue;
        }
        if (!python && c == '/' && i + 1 < n && text[i + 1] == '*') {
            size_t e = text.find("*/", i + 2);
            i = e == std::string::npos ? n : e + 2;
            continue;
        }
        if (identStart(c)) {
            size_t s = i;
            while (i < n && identChar(text[i]))
                ++i;
            std::string_view word(text.data() + s, i - s);
            // A string prefix: r"...", b'...', f"...", u'...', R"(...)".
            if (i < n && (text[i] == '"' || text[i] == '\'') && word.size() <= 2 &&
                word.find_first_not_of("rRbBuUfFL8") == std::string_view::npos) {
                if (rust && word == "r") {
                    continue; // handled below as a raw string start
                }
                if (python && i + 2 < n && text[i + 1] == text[i] && text[i + 2] == text[i]) {
                    std::string close(3, text[i]);
                    size_t e = text.find(close, i + 3);
                    i = e == std::string::npos ? n : e + 3;
                } else {
                    skipQuoted(text[i]);
                }
                continue;
            }
            out.push_back({s, i});
            continue;
        }
        if (c >= '0' && c <= '9') {
            while (i < n && (identChar(text[i]) || text[i] == '.'))
                ++i;
            continue;
        }
        if (rust && c == '#' && i + 1 < n && text[i + 1] == '"') { // r#"..."#
            size_t e = text.find("\"#", i + 2);
            i = e == std::string::npos ? n : e + 2;
            continue;
        }
        if (c == '"' || (c == '`' && (js || lang == "go"))) {
            if (python && i + 2 < n && text[i + 1] == c && text[i + 2] == c) {
                size_t e = text.find(std::string(3, c), i + 3);
                i = e == std::string::npos ? n : e + 3;
            } else {
                skipQuoted(c);
            }
            continue;
        }
        if (c == '\'') {
            if (python && i + 2 < n && text[i + 1] == c && text[i + 2] == c) {
                size_t e = text.find("'''", i + 3);
                i = e == std::string::npos ? n : e + 3;
                continue;
            }
            // A Rust lifetime ('a, 'static) is not a literal.
            if (rust && i + 2 < n && identStart(text[i + 1]) && text[i + 2] != '\'') {
                ++i;
                while (i < n && identChar(text[i]))
                    ++i;
                continue;
            }
            skipQuoted(c);
            continue;
        }
        ++i;
    }
    return out;
}

} // namespace

Span pickToken(const std::string& lang, const std::string& text, size_t begin, size_t end,
               const std::vector<std::string>& avoid, const std::vector<Span>& nested) {
    const auto& kw = keywords(lang);
    std::set<std::string, std::less<>> names(avoid.begin(), avoid.end());
    Span best, fallback;
    for (const Span& s : identifiers(lang, text)) {
        if (s.begin < begin || s.end > end) continue;
        std::string word = text.substr(s.begin, s.end - s.begin);
        if (kw.count(word) || names.count(word)) continue;
        bool inside = std::any_of(nested.begin(), nested.end(), [&](const Span& n) {
            return s.begin >= n.begin && s.end <= n.end;
        });
        (inside ? fallback : best) = s;
    }
    return best.end ? best : fallback;
}

std::string deformatGo(const std::string& text) {
    std::string out;
    out.reserve(text.size() * 2);
    const size_t n = text.size();
    size_t i = 0;
    bool lineStart = true;
    while (i < n) {
        char c = text[i];
        if (lineStart) {
            int tabs = 0;
            while (i < n && (text[i] == '\t' || text[i] == ' ')) {
                tabs += text[i] == '\t';
                ++i;
            }
            out.append(size_t(tabs) * 3, ' ');
            lineStart = false;
            continue;
        }
        if (c == '\n') {
            // Trailing blanks too: gofmt removes them.
            out += ' ';
            out += '\n';
            ++i;
            lineStart = true;
            continue;
        }
        if (c == '/' && i + 1 < n && (text[i + 1] == '/' || text[i + 1] == '*')) {
            size_t e = text[i + 1] == '/' ? text.find('\n', i) : text.find("*/", i);
            e = e == std::string::npos ? n : (text[i + 1] == '/' ? e : e + 2);
            out.append(text, i, e - i);
            i = e;
            continue;
        }
        if (c == '"' || c == '\'' || c == '`') {
            size_t s = i;
            for (++i; i < n && text[i] != c; ++i)
                if (text[i] == '\\' && c != '`') ++i;
            ++i;
            out.append(text, s, std::min(i, n) - s);
            continue;
        }
        if (c == ' ' || c == '\t') {
            // Runs of blanks (alignment) become one.
            while (i < n && (text[i] == ' ' || text[i] == '\t'))
                ++i;
            if (i < n && text[i] != '\n') out += ' ';
            continue;
        }
        out += c;
        if (c == '(' && i + 1 < n && text[i + 1] != ')' && text[i + 1] != '\n') out += ' ';
        ++i;
    }
    return out;
}

} // namespace engram::corpus
