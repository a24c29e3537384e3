// Chars: ASCII character classes and small bounded text helpers shared by the secret scanners.
//
// <cctype> is locale-dependent and undefined for negative chars, and claim text is UTF-8: every
// byte of a multi-byte sequence is simply "not ASCII" here, which is what the scanners want.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace engram::secrets::chars {

constexpr std::size_t npos = std::string_view::npos;

constexpr bool isLower(char c) {
    return c >= 'a' && c <= 'z';
}
constexpr bool isUpper(char c) {
    return c >= 'A' && c <= 'Z';
}
constexpr bool isDigit(char c) {
    return c >= '0' && c <= '9';
}
constexpr bool isAlpha(char c) {
    return isLower(c) || isUpper(c);
}
constexpr bool isAlnum(char c) {
    return isAlpha(c) || isDigit(c);
}
constexpr bool isWordChar(char c) {
    return isAlnum(c) || c == '_';
}
constexpr bool isB64Url(char c) {
    return isAlnum(c) || c == '_' || c == '-';
}
constexpr bool isB64(char c) {
    return isAlnum(c) || c == '+' || c == '/' || c == '=';
}
constexpr bool isTokenSymbol(char c) {
    return c == '+' || c == '/' || c == '=' || c == '_' || c == '-';
}
constexpr bool isTokenChar(char c) {
    return isAlnum(c) || isTokenSymbol(c);
}
constexpr bool isHex(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
constexpr bool isBlank(char c) {
    return c == ' ' || c == '\t';
}
constexpr bool isSpace(char c) {
    return isBlank(c) || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
constexpr bool isQuote(char c) {
    return c == '"' || c == '\'' || c == '`';
}
constexpr char toLower(char c) {
    return isUpper(c) ? static_cast<char>(c - 'A' + 'a') : c;
}

template <typename Pred>
std::size_t runEnd(std::string_view t, std::size_t i, Pred pred) {
    while (i < t.size() && pred(t[i]))
        ++i;
    return i;
}

// Prefixed tokens are often glued to punctuation ("key=ghp_...", "x-sk-..."), so only a letter
// or digit before the prefix disqualifies it; '_' and '-' count as boundaries.
inline bool boundaryBefore(std::string_view t, std::size_t i) {
    return i == 0 || !isAlnum(t[i - 1]);
}

inline bool equalsIgnoreCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (toLower(a[i]) != toLower(b[i])) return false;
    return true;
}

inline bool startsWithIgnoreCase(std::string_view t, std::size_t i, std::string_view key) {
    return i <= t.size() && t.size() - i >= key.size() &&
           equalsIgnoreCase(t.substr(i, key.size()), key);
}

inline bool containsIgnoreCase(std::string_view s, std::string_view word) {
    for (std::size_t i = 0; i + word.size() <= s.size(); ++i)
        if (equalsIgnoreCase(s.substr(i, word.size()), word)) return true;
    return false;
}

inline bool isAllHex(std::string_view s) {
    return std::all_of(s.begin(), s.end(), isHex);
}

// Position of c on the current line within max bytes of from, or npos: bounded so that many
// unterminated openers cannot make the scan quadratic.
inline std::size_t findOnLine(std::string_view t, std::size_t from, char c, std::size_t max) {
    const std::size_t limit = std::min(t.size(), from + max);
    for (std::size_t i = from; i < limit; ++i) {
        if (t[i] == c) return i;
        if (t[i] == '\n') return npos;
    }
    return npos;
}

} // namespace engram::secrets::chars
