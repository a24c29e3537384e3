// UTF-8 validation.
//
// Claim texts are committed to git and shown in editors; a claim whose bytes
// are not valid UTF-8 would corrupt both, so every write path validates first.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace engram {

// The byte offset of the first invalid sequence, or nullopt when the text is
// well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
std::optional<size_t> firstInvalidUtf8(std::string_view s);

// Number of code points (for character budgets such as max_chars).
size_t utf8Length(std::string_view s);

// The longest prefix of s of at most maxBytes bytes that does not end inside
// a character (a cut for byte budgets).
inline std::string_view utf8Prefix(std::string_view s, size_t maxBytes) {
    if (s.size() <= maxBytes) return s;
    size_t n = maxBytes;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n;
    return s.substr(0, n);
}

// s on one line: runs of blanks and line breaks become one space, and a
// text longer than maxBytes is cut on a character boundary, `ellipsis`
// appended (a message or a list item quoting what someone wrote).
std::string singleLine(std::string_view s, size_t maxBytes, std::string_view ellipsis);

} // namespace engram
