// The tokens of C and C++ text, for what engram decides before the parser
// runs or instead of it (Macros.cpp, Canonical.cpp): one lexer, so macros,
// directives, comments and literals are told apart the same way everywhere.
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

bool wordByte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || (unsigned char)c >= 0x80;
}

bool continuation(std::string_view t, size_t i) {
    return t[i] == '\\' && i + 1 < t.size() && (t[i + 1] == '\n' || t[i + 1] == '\r');
}

} // namespace

std::vector<CToken> lexC(std::string_view t) {
    std::vector<CToken> out;
    const size_t n = t.size();
    bool lineStart = true, directive = false;
    size_t i = 0;
    bool opening = false; // the next token opens a directive
    auto push = [&](size_t b, size_t e, char kind) {
        out.push_back({uint32_t(b), uint32_t(std::min(e, n)), kind, directive, opening});
        opening = false;
    };
    while (i < n) {
        char c = t[i];
        if (c == '\n') {
            lineStart = true;
            directive = false;
            ++i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            ++i;
            continue;
        }
        if (continuation(t, i)) { // a directive goes on; elsewhere a blank
            i += t[i + 1] == '\r' && i + 2 < n && t[i + 2] == '\n' ? 3 : 2;
            continue;
        }
        size_t s = i;
        if (c == '/' && i + 1 < n && t[i + 1] == '/') {
            while (i < n && t[i] != '\n')
                ++i;
            push(s, i, 'c');
            continue;
        }
        if (c == '/' && i + 1 < n && t[i + 1] == '*') {
            size_t e = t.find("*/", i + 2);
            i = e == std::string_view::npos ? n : e + 2;
            push(s, i, 'c');
            continue;
        }
        if (lineStart && c == '#') directive = opening = true;
        lineStart = false;
        if (c == '"' || c == '\'') {
            for (++i; i < n && t[i] != c && t[i] != '\n'; ++i)
                if (t[i] == '\\') ++i;
            push(s, i + 1, 'l');
            i = std::min(i + 1, n);
            continue;
        }
        if (wordByte(c)) {
            bool number = c >= '0' && c <= '9';
            while (i < n &&
                   (wordByte(t[i]) || (number && (t[i] == '.' || t[i] == '\'' ||
                                                  ((t[i] == '+' || t[i] == '-') &&
                                                   (t[i - 1] == 'e' || t[i - 1] == 'E' ||
                                                    t[i - 1] == 'p' || t[i - 1] == 'P'))))))
                ++i;
            // R"delim( ... )delim", after R, LR, uR, UR, u8R.
            if (i < n && t[i] == '"' && t[i - 1] == 'R' && i - s <= 3) {
                size_t open = t.find('(', i);
                size_t e = std::string_view::npos;
                if (open != std::string_view::npos) {
                    std::string close = ")" + std::string(t.substr(i + 1, open - i - 1)) + "\"";
                    e = t.find(close, open);
                    if (e != std::string_view::npos) e += close.size();
                }
                i = e == std::string_view::npos ? n : e;
                push(s, i, 'l');
                continue;
            }
            push(s, i, 'w');
            continue;
        }
        if (c == ':' && i + 1 < n && t[i + 1] == ':') {
            push(s, i + 2, 'q');
            i += 2;
            continue;
        }
        push(s, i + 1, c);
        ++i;
    }
    return out;
}

} // namespace engram::syntax::detail
