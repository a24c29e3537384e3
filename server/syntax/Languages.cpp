// Grammar registry over the statically linked tree-sitter grammars.
#include "syntax/Languages.h"
#include "syntax/SyntaxInternal.h"

#include <map>
#include <memory>
#include <tree_sitter/api.h>

extern "C" {
const TSLanguage* tree_sitter_python();
const TSLanguage* tree_sitter_javascript();
const TSLanguage* tree_sitter_typescript();
const TSLanguage* tree_sitter_tsx();
const TSLanguage* tree_sitter_c();
const TSLanguage* tree_sitter_cpp();
const TSLanguage* tree_sitter_go();
const TSLanguage* tree_sitter_rust();
const TSLanguage* tree_sitter_java();
}

namespace engram::syntax {

namespace {

struct Entry {
    const char* name;
    const TSLanguage* (*fn)();
    std::vector<std::string> exts;
};

const std::vector<Entry>& entries() {
    static const std::vector<Entry> all = {
        {"python", tree_sitter_python, {".py", ".pyi"}},
        {"javascript", tree_sitter_javascript, {".js", ".mjs", ".cjs", ".jsx"}},
        {"typescript", tree_sitter_typescript, {".ts", ".mts", ".cts"}},
        {"tsx", tree_sitter_tsx, {".tsx"}},
        {"c", tree_sitter_c, {".c", ".h"}},
        {"cpp", tree_sitter_cpp, {".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"}},
        {"go", tree_sitter_go, {".go"}},
        {"rust", tree_sitter_rust, {".rs"}},
        {"java", tree_sitter_java, {".java"}},
    };
    return all;
}

struct ParserDeleter {
    void operator()(TSParser* p) const { ts_parser_delete(p); }
};
struct TreeDeleter {
    void operator()(TSTree* t) const { ts_tree_delete(t); }
};

} // namespace

const std::vector<LanguageInfo>& languages() {
    static const std::vector<LanguageInfo> infos = [] {
        std::vector<LanguageInfo> out;
        for (auto& e : entries())
            out.push_back({e.name, e.exts, ts_language_abi_version(e.fn())});
        return out;
    }();
    return infos;
}

namespace detail {

const TSLanguage* grammarFor(std::string_view language) {
    for (auto& e : entries())
        if (language == e.name) return e.fn();
    return nullptr;
}

} // namespace detail

// Extensions mapped by configuration (store.conf `language:` lines); they
// win over the built-in table. The empty string maps an extension to no
// language (e.g. to stop parsing generated `.h` files as C).
static std::map<std::string, std::string, std::less<>>& overrides() {
    static std::map<std::string, std::string, std::less<>> m;
    return m;
}

bool mapExtension(const std::string& ext, const std::string& language) {
    if (ext.size() < 2 || ext[0] != '.') return false;
    bool known = language.empty();
    for (auto& e : entries())
        known |= language == e.name;
    if (!known) return false;
    overrides()[ext] = language;
    return true;
}

std::optional<std::string> languageForPath(std::string_view path) {
    auto dot = path.find_last_of('.');
    if (dot == std::string_view::npos) return std::nullopt;
    auto slash = path.find_last_of('/');
    if (slash != std::string_view::npos && slash > dot) return std::nullopt;
    auto ext = path.substr(dot);
    if (auto o = overrides().find(ext); o != overrides().end())
        return o->second.empty() ? std::nullopt : std::optional<std::string>(o->second);
    for (auto& e : entries())
        for (auto& x : e.exts)
            if (x == ext) return std::string(e.name);
    return std::nullopt;
}

namespace {

// A `.h` header holds C or C++, and C++ projects name their headers `.h` as
// often as not (fmt, LLVM, leveldb). What only C++ writes says which; the
// test reads the text alone, so every clone decides alike.
bool looksLikeCpp(std::string_view text) {
    for (std::string_view mark : {"::", "namespace ", "template <", "template<",
                                  "public:", "private:", "protected:", "#include <string>",
                                  "#include <vector>", "#include <memory>", "extern \"C++\""})
        if (text.find(mark) != std::string_view::npos) return true;
    return false;
}

} // namespace

std::optional<std::string> languageFor(std::string_view path, std::string_view text) {
    auto lang = languageForPath(path);
    if (lang && *lang == "c" && path.ends_with(".h") && !overrides().count(".h") &&
        looksLikeCpp(text))
        return std::string("cpp");
    return lang;
}

std::optional<std::string> parseRootKind(std::string_view language, std::string_view source) {
    for (auto& e : entries()) {
        if (language != e.name) continue;
        std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
        if (!ts_parser_set_language(parser.get(), e.fn())) return std::nullopt;
        std::unique_ptr<TSTree, TreeDeleter> tree(
            ts_parser_parse_string(parser.get(), nullptr, source.data(), uint32_t(source.size())));
        if (!tree) return std::nullopt;
        TSNode root = ts_tree_root_node(tree.get());
        if (ts_node_has_error(root)) return std::nullopt;
        return std::string(ts_node_type(root));
    }
    return std::nullopt;
}

} // namespace engram::syntax
