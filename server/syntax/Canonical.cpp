// C and C++ text without its layout, for the parser to read when the file
// as written has errors.
//
// Why: tree-sitter recovers from an error by the cheapest repair, and the
// cost counts the lines and bytes it skips, so one file laid out two ways
// recovers two ways: a formatter pass turns a method into a declaration, or
// lets an error swallow a class. Parsing the same tokens with one layout
// (comments dropped, blanks only where two tokens would merge, each
// preprocessor directive on its own line) makes the recovery, the names
// and the digests the same for every layout. Byte offsets are mapped back,
// so symbols keep the file's own positions.
#include "syntax/SyntaxInternal.h"

namespace engram::syntax::detail {

namespace {

bool wordByte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || (unsigned char)c >= 0x80;
}

bool operatorByte(char c) {
    return std::string_view("+-*/%&|^<>=!~.:#?").find(c) != std::string_view::npos;
}

} // namespace

Canonical canonicalC(std::string_view src, const std::vector<CToken>& tokens) {
    Canonical out;
    out.text.reserve(src.size());
    out.origin.reserve(src.size() + 1);
    auto put = [&](char c, uint32_t from) {
        out.text += c;
        out.origin.push_back(from);
    };
    uint32_t prevEnd = 0;
    bool inDirective = false;
    for (const CToken& t : tokens) {
        if (t.kind == 'c') continue; // a comment is a blank
        bool gap = t.begin > prevEnd;
        if (inDirective && (!t.directive || t.opens)) {
            put('\n', t.begin); // a directive ends its line
            inDirective = false;
            gap = false;
        }
        if (t.directive) {
            // A directive on a line of its own, its blanks kept as one: they
            // can matter (`#define F (x)` is no function-like macro).
            if (t.opens && !out.text.empty() && out.text.back() != '\n')
                put('\n', t.begin);
            else if (gap && !out.text.empty() && out.text.back() != '\n')
                put(' ', t.begin);
            inDirective = true;
        } else if (gap && !out.text.empty()) {
            // Elsewhere a blank only where two tokens would merge.
            char p = out.text.back(), c = src[t.begin];
            if ((wordByte(p) && (wordByte(c) || c == '"' || c == '\'')) ||
                (operatorByte(p) && operatorByte(c)))
                put(' ', t.begin);
        }
        for (uint32_t k = t.begin; k < t.end; ++k)
            put(src[k], k);
        prevEnd = t.end;
    }
    if (inDirective) put('\n', uint32_t(src.size()));
    out.origin.push_back(uint32_t(src.size()));
    return out;
}

} // namespace engram::syntax::detail
