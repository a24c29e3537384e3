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

bool blankByte(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

class Canonicaliser {
public:
    explicit Canonicaliser(std::string_view src)
        : src_(src) {
        out_.text.reserve(src.size());
        out_.origin.reserve(src.size() + 1);
    }

    Canonical run() {
        const size_t n = src_.size();
        bool lineStart = true;
        size_t i = 0;
        while (i < n) {
            char c = src_[i];
            if (c == '\n') {
                lineStart = true;
                pending_ = true;
                ++i;
                continue;
            }
            if (blankByte(c)) {
                pending_ = true;
                ++i;
                continue;
            }
            if (c == '\\' && i + 1 < n && (src_[i + 1] == '\n' || src_[i + 1] == '\r')) {
                pending_ = true;
                i += 2;
                continue;
            }
            if (c == '/' && i + 1 < n && (src_[i + 1] == '/' || src_[i + 1] == '*')) {
                i = skipComment(i);
                pending_ = true;
                continue;
            }
            if (lineStart && c == '#') {
                i = directive(i);
                continue;
            }
            lineStart = false;
            if (c == '"' || c == '\'') {
                i = literal(i);
                continue;
            }
            if (wordByte(c)) {
                size_t s = i;
                bool number = c >= '0' && c <= '9';
                while (i < n && (wordByte(src_[i]) ||
                                 (number && (src_[i] == '.' || src_[i] == '\'' ||
                                             ((src_[i] == '+' || src_[i] == '-') &&
                                              (src_[i - 1] == 'e' || src_[i - 1] == 'E' ||
                                               src_[i - 1] == 'p' || src_[i - 1] == 'P'))))))
                    ++i;
                // A raw string: R"delim( ... )delim" (also u8R, LR...).
                if (i < n && src_[i] == '"' && src_[i - 1] == 'R' && i - s <= 3) {
                    emit(s, i);
                    i = rawString(i);
                    continue;
                }
                emit(s, i);
                continue;
            }
            emit(i, i + 1);
            ++i;
        }
        out_.origin.push_back(uint32_t(n));
        return std::move(out_);
    }

private:
    std::string_view src_;
    Canonical out_;
    bool pending_ = false; // blanks or a comment since the last token

    // Appends src[b, e), after one blank if the blank seen before it kept
    // two tokens apart.
    void emit(size_t b, size_t e) {
        if (pending_ && !out_.text.empty() && b < e) {
            char p = out_.text.back(), c = src_[b];
            if ((wordByte(p) && (wordByte(c) || c == '"' || c == '\'')) ||
                (operatorByte(p) && operatorByte(c)))
                put(' ', b);
        }
        pending_ = false;
        for (size_t k = b; k < e; ++k)
            put(src_[k], k);
    }

    void put(char c, size_t from) {
        out_.text += c;
        out_.origin.push_back(uint32_t(from));
    }

    size_t skipComment(size_t i) const {
        if (src_[i + 1] == '/') {
            while (i < src_.size() && src_[i] != '\n')
                ++i;
            return i;
        }
        size_t e = src_.find("*/", i + 2);
        return e == std::string_view::npos ? src_.size() : e + 2;
    }

    size_t literal(size_t i) {
        char q = src_[i];
        size_t s = i;
        for (++i; i < src_.size() && src_[i] != q && src_[i] != '\n'; ++i)
            if (src_[i] == '\\') ++i;
        i = std::min(i + 1, src_.size());
        emit(s, i);
        return i;
    }

    size_t rawString(size_t i) {
        size_t open = src_.find('(', i);
        if (open == std::string_view::npos) return literal(i);
        std::string close = ")" + std::string(src_.substr(i + 1, open - i - 1)) + "\"";
        size_t e = src_.find(close, open);
        e = e == std::string_view::npos ? src_.size() : e + close.size();
        pending_ = false;
        for (size_t k = i; k < e; ++k)
            put(src_[k], k);
        return e;
    }

    // A directive on a line of its own, blanks collapsed (a directive's
    // blanks can matter: `#define F (x)` is no function-like macro).
    size_t directive(size_t i) {
        if (!out_.text.empty() && out_.text.back() != '\n') put('\n', i);
        pending_ = false;
        bool blank = false;
        const size_t n = src_.size();
        while (i < n && src_[i] != '\n') {
            char c = src_[i];
            if (c == '\\' && i + 1 < n && (src_[i + 1] == '\n' || src_[i + 1] == '\r')) {
                i += src_[i + 1] == '\r' && i + 2 < n && src_[i + 2] == '\n' ? 3 : 2;
                blank = true;
                continue;
            }
            if (c == '/' && i + 1 < n && (src_[i + 1] == '/' || src_[i + 1] == '*')) {
                i = skipComment(i);
                blank = true;
                continue;
            }
            if (blankByte(c)) {
                blank = true;
                ++i;
                continue;
            }
            if (blank && !out_.text.empty() && out_.text.back() != '\n') put(' ', i);
            blank = false;
            if (c == '"' || c == '\'') {
                size_t s = i;
                for (++i; i < n && src_[i] != c && src_[i] != '\n'; ++i)
                    if (src_[i] == '\\') ++i;
                i = std::min(i + 1, n);
                for (size_t k = s; k < i; ++k)
                    put(src_[k], k);
                continue;
            }
            put(c, i);
            ++i;
        }
        put('\n', i);
        pending_ = false;
        return i;
    }
};

} // namespace

Canonical canonicalC(std::string_view src) {
    return Canonicaliser(src).run();
}

} // namespace engram::syntax::detail
