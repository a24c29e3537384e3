// What the C and C++ grammars are not shown: a macro that opens a
// declaration as an attribute would (`FMT_BEGIN_NAMESPACE namespace detail`,
// `FMT_FUNC void f()`, `Q_OBJECT public:`, `DEPRECATED(x) bool f()`), and
// comments inside preprocessor directives; and the top-level pieces of a
// file an error broke.
//
// Why: tree-sitter parses C without the preprocessor, so such a macro reads
// as the start of a declaration and the parser swallows what follows into
// it (a namespace becomes a function named `namespace`, a header one
// declaration), recovering differently for every layout. A compiler sees
// what the macro expands to; engram sees nothing there, which is closer.
// The decision is made on tokens, never on lines, so it is the same for
// every layout of the same code. The parser is given the rest of the text
// as its included ranges, so byte offsets stay the file's own.
#include "syntax/SyntaxInternal.h"

#include <algorithm>

namespace engram::syntax::detail {

namespace {

bool upperWord(std::string_view w) {
    if (w.size() < 3) return false;
    bool underscore = false;
    for (char c : w) {
        if (c == '_')
            underscore = true;
        else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return false;
    }
    return (underscore || w.size() >= 6) && !(w[0] >= '0' && w[0] <= '9');
}

// Words that start a declaration or a member: after a macro, they say the
// macro was an attribute of what follows.
bool declarationKeyword(std::string_view w) {
    static constexpr std::string_view words[] = {
        "namespace", "template",  "class",     "struct",       "union",         "enum",
        "typedef",   "using",     "extern",    "static",       "inline",        "virtual",
        "explicit",  "constexpr", "consteval", "constinit",    "const",         "volatile",
        "void",      "int",       "char",      "bool",         "auto",          "unsigned",
        "signed",    "long",      "short",     "float",        "double",        "public",
        "private",   "protected", "friend",    "typename",     "operator",      "size_t",
        "wchar_t",   "char8_t",   "char16_t",  "char32_t",     "decltype",      "noexcept",
        "register",  "mutable",   "alignas",   "thread_local", "static_assert", "concept"};
    return std::find(std::begin(words), std::end(words), w) != std::end(words);
}

// The tokens of the code itself: no comments, no directives.
std::vector<CToken> codeTokens(const std::vector<CToken>& all) {
    std::vector<CToken> out;
    out.reserve(all.size());
    for (const CToken& t : all)
        if (t.kind != 'c' && !t.directive) out.push_back(t);
    return out;
}

} // namespace

std::vector<std::pair<uint32_t, uint32_t>> declarationMacros(std::string_view text,
                                                             const std::vector<CToken>& all) {
    auto toks = codeTokens(all);
    std::vector<std::pair<uint32_t, uint32_t>> out;
    auto word = [&](size_t k) {
        return std::string_view(text.data() + toks[k].begin, toks[k].end - toks[k].begin);
    };
    // Where a macro may open a declaration: at the start, after a
    // statement, a brace, an access specifier's colon, a template header's
    // `>`, or another such macro.
    auto opensDeclaration = [&](size_t k) {
        if (k == 0) return true;
        char p = toks[k - 1].kind;
        return p == ';' || p == '{' || p == '}' || p == ':' || p == '>' ||
               (!out.empty() && out.back().second == toks[k - 1].end);
    };
    // One past the macro at k with its argument list, or k + 1.
    auto pastArgs = [&](size_t k) {
        size_t j = k + 1;
        if (j < toks.size() && toks[j].kind == '(') {
            int depth = 0;
            for (; j < toks.size(); ++j) {
                depth += toks[j].kind == '(' ? 1 : toks[j].kind == ')' ? -1 : 0;
                if (depth == 0) return j + 1;
            }
            return toks.size();
        }
        return j;
    };
    for (size_t k = 0; k < toks.size(); ++k) {
        if (toks[k].kind != 'w' || !upperWord(word(k)) || !opensDeclaration(k)) continue;
        // A chain of such macros ends in what tells: a declaration's
        // keyword, a destructor's `~`, an attribute, a closing brace, the end.
        size_t j = pastArgs(k);
        size_t chainEnd = j;
        while (j < toks.size() && toks[j].kind == 'w' && upperWord(word(j)))
            j = pastArgs(j);
        // Or a type and a declarator after it (`EXPORT Foo* make()`,
        // `FMT_FUNC ns::Class::Class(`): had the macro been the type, a
        // declarator would follow it at once (`UINT32 x;`, `BOOL f()`).
        auto typeThenDeclarator = [&] {
            if (j + 1 >= toks.size() || toks[j].kind != 'w') return false;
            char after = toks[j + 1].kind;
            return after == 'w' || after == '*' || after == '&' || after == 'q' || after == '<';
        };
        bool attribute = j == toks.size() || toks[j].kind == '}' || toks[j].kind == '~' ||
                         (toks[j].kind == '[' && j + 1 < toks.size() && toks[j + 1].kind == '[') ||
                         (toks[j].kind == 'w' && declarationKeyword(word(j))) ||
                         typeThenDeclarator();
        if (!attribute) continue;
        out.push_back({toks[k].begin, toks[chainEnd - 1].end});
    }
    return out;
}

std::vector<std::pair<uint32_t, uint32_t>> directiveComments(std::string_view text,
                                                             const std::vector<CToken>& all) {
    // The grammars end a macro's body at a comment inside it, and where the
    // comment falls (which line of the continued #define) is layout.
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (const CToken& t : all)
        if (t.kind == 'c' && t.directive && text.substr(t.begin, 2) == "/*")
            out.push_back({t.begin, t.end});
    return out;
}

std::vector<std::pair<uint32_t, uint32_t>> topLevelPieces(std::string_view text,
                                                          const std::vector<CToken>& all) {
    auto toks = codeTokens(all);
    std::vector<std::pair<uint32_t, uint32_t>> out;
    uint32_t begin = 0;
    auto cut = [&](uint32_t at) {
        if (at > begin) out.push_back({begin, at});
        begin = at;
    };
    // After a closing brace: a name (after `*`s), then `;`, `,`, `=` or `[`,
    // says what the braces typed (`} ct_data;`): the declaration goes on.
    auto declaratorFollows = [&](size_t k) {
        while (k < toks.size() && toks[k].kind == '*')
            ++k;
        if (k + 1 >= toks.size() || toks[k].kind != 'w') return false;
        char c = toks[k + 1].kind;
        return c == ';' || c == ',' || c == '=' || c == '[';
    };
    int depth = 0;
    bool closed = false; // a `}` closed a top-level block
    for (size_t k = 0; k < toks.size(); ++k) {
        char c = toks[k].kind;
        if (closed) {
            closed = false;
            if (c != ';' && !declaratorFollows(k)) cut(toks[k].begin);
        }
        if (c == '{') {
            ++depth;
        } else if (c == '}') {
            depth = depth > 0 ? depth - 1 : 0;
            closed = depth == 0;
        } else if (c == ';' && depth == 0) {
            cut(toks[k].end);
        }
    }
    cut(uint32_t(text.size()));
    return out;
}

} // namespace engram::syntax::detail
