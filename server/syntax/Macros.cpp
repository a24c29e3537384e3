// What the C and C++ grammars are not shown: a macro that opens a
// declaration as an attribute would (`FMT_BEGIN_NAMESPACE namespace detail`,
// `FMT_FUNC void f()`, `Q_OBJECT public:`, `DEPRECATED(x) bool f()`), and
// comments inside preprocessor directives.
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

bool wordChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || (unsigned char)c >= 0x80;
}

// Words that start a declaration or a member: after a macro, they say the
// macro was an attribute of what follows.
bool declarationKeyword(std::string_view w) {
    static constexpr std::string_view words[] = {
        "namespace", "template",     "class",     "struct",    "union",         "enum",
        "typedef",   "using",        "extern",    "static",    "inline",        "virtual",
        "explicit",  "constexpr",    "consteval", "constinit", "const",         "volatile",
        "void",      "int",          "char",      "bool",      "auto",          "unsigned",
        "signed",    "long",         "short",     "float",     "double",        "public",
        "private",   "protected",    "friend",    "typename",  "operator",      "size_t",
        "wchar_t",   "char8_t",      "char16_t",  "char32_t",  "decltype",      "noexcept",
        "register",  "thread_local", "mutable",   "alignas",   "static_assert", "concept"};
    return std::find(std::begin(words), std::end(words), w) != std::end(words);
}

struct Token {
    uint32_t begin, end;
    char kind; // 'w' word, 'l' literal, else the punctuation character (':' for "::" is 'q')
};

// The tokens of C or C++ text, comments and directives left out.
std::vector<Token> tokens(std::string_view text) {
    std::vector<Token> out;
    const size_t n = text.size();
    bool lineStart = true;
    size_t i = 0;
    while (i < n) {
        char c = text[i];
        if (c == '\n') {
            lineStart = true;
            ++i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' ||
            (c == '\\' && i + 1 < n && text[i + 1] == '\n')) {
            i += c == '\\' ? 2 : 1;
            continue;
        }
        if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            while (i < n && text[i] != '\n')
                ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            size_t e = text.find("*/", i + 2);
            i = e == std::string_view::npos ? n : e + 2;
            continue;
        }
        if (lineStart && c == '#') {
            while (i < n && text[i] != '\n') {
                if (text[i] == '\\' && i + 1 < n && text[i + 1] == '\n') ++i;
                ++i;
            }
            continue;
        }
        lineStart = false;
        size_t s = i;
        if (c == '"' || c == '\'') {
            for (++i; i < n && text[i] != c && text[i] != '\n'; ++i)
                if (text[i] == '\\') ++i;
            ++i;
            out.push_back({uint32_t(s), uint32_t(std::min(i, n)), 'l'});
            continue;
        }
        if (wordChar(c)) {
            while (i < n && wordChar(text[i]))
                ++i;
            out.push_back({uint32_t(s), uint32_t(i), 'w'});
            continue;
        }
        if (c == ':' && i + 1 < n && text[i + 1] == ':') {
            out.push_back({uint32_t(s), uint32_t(i + 2), 'q'});
            i += 2;
            continue;
        }
        out.push_back({uint32_t(s), uint32_t(i + 1), c});
        ++i;
    }
    return out;
}

} // namespace

std::vector<std::pair<uint32_t, uint32_t>> declarationMacros(std::string_view text) {
    auto toks = tokens(text);
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

std::vector<std::pair<uint32_t, uint32_t>> directiveComments(std::string_view text) {
    // The grammars end a macro's body at a comment inside it, and where the
    // comment falls (which line of the continued #define) is layout.
    std::vector<std::pair<uint32_t, uint32_t>> out;
    const size_t n = text.size();
    bool lineStart = true;
    for (size_t i = 0; i < n;) {
        char c = text[i];
        if (c == '\n') {
            lineStart = true;
            ++i;
            continue;
        }
        if (c == ' ' || c == '\t') {
            ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && text[i + 1] == '*') { // outside directives
            size_t e = text.find("*/", i + 2);
            i = e == std::string_view::npos ? n : e + 2;
            lineStart = false;
            continue;
        }
        if (!(lineStart && c == '#')) {
            lineStart = false;
            if (c == '"' || c == '\'') {
                for (++i; i < n && text[i] != c && text[i] != '\n'; ++i)
                    if (text[i] == '\\') ++i;
            } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
                while (i < n && text[i] != '\n')
                    ++i;
                continue;
            }
            ++i;
            continue;
        }
        // A directive: to the end of its last continued line.
        while (i < n && text[i] != '\n') {
            if (text[i] == '\\' && i + 1 < n && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
                i += text[i + 1] == '\r' && i + 2 < n && text[i + 2] == '\n' ? 3 : 2;
                continue;
            }
            if (text[i] == '"' || text[i] == '\'') {
                char q = text[i];
                for (++i; i < n && text[i] != q && text[i] != '\n'; ++i)
                    if (text[i] == '\\') ++i;
                ++i;
                continue;
            }
            if (text[i] == '/' && i + 1 < n && text[i + 1] == '*') {
                size_t e = text.find("*/", i + 2);
                e = e == std::string_view::npos ? n : e + 2;
                out.push_back({uint32_t(i), uint32_t(e)});
                i = e;
                continue;
            }
            ++i;
        }
    }
    return out;
}

} // namespace engram::syntax::detail

namespace engram::syntax::detail {

namespace {

// After a closing brace: a word (or `*` words) then `;`, `,`, `=` or `[`
// names what the braces typed, so the declaration goes on.
bool declaratorFollows(std::string_view text, size_t i) {
    const size_t n = text.size();
    auto skipBlank = [&] {
        while (i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
            ++i;
    };
    skipBlank();
    while (i < n && text[i] == '*') {
        ++i;
        skipBlank();
    }
    size_t w = i;
    while (i < n && wordChar(text[i]))
        ++i;
    if (i == w) return false;
    skipBlank();
    return i < n && (text[i] == ';' || text[i] == ',' || text[i] == '=' || text[i] == '[');
}

} // namespace

std::vector<std::pair<uint32_t, uint32_t>> topLevelPieces(std::string_view text) {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    const size_t n = text.size();
    size_t begin = 0, i = 0;
    int depth = 0;
    bool lineStart = true;
    // After a `}` that closed a top-level block: cut there unless the
    // declaration goes on (`} name;`, `};`).
    bool closed = false;
    auto cut = [&](size_t at) {
        if (at > begin) out.push_back({uint32_t(begin), uint32_t(at)});
        begin = at;
    };
    while (i < n) {
        char c = text[i];
        if (c == '\n') {
            lineStart = true;
            ++i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            while (i < n && text[i] != '\n')
                ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            size_t e = text.find("*/", i + 2);
            i = e == std::string_view::npos ? n : e + 2;
            continue;
        }
        if (lineStart && c == '#') { // a directive, with its continuation lines
            while (i < n && text[i] != '\n') {
                if (text[i] == '\\' && i + 1 < n && text[i + 1] == '\n') ++i;
                ++i;
            }
            continue;
        }
        if (closed) {
            // The next declaration starts a piece, unless this one goes on
            // (`} name;`, `} a, b;`, `};`).
            closed = false;
            if (c != ';' && !declaratorFollows(text, i)) cut(i);
        }
        lineStart = false;
        if (c == '"' || c == '\'') {
            for (++i; i < n && text[i] != c && text[i] != '\n'; ++i)
                if (text[i] == '\\') ++i;
            ++i;
            continue;
        }
        ++i;
        if (c == '{') {
            ++depth;
        } else if (c == '}') {
            depth = depth > 0 ? depth - 1 : 0;
            if (depth == 0) closed = true;
        } else if (c == ';' && depth == 0) {
            cut(i);
        }
    }
    cut(n);
    return out;
}

} // namespace engram::syntax::detail
