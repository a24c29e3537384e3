// UTF-16 / byte position conversion.
#include "util/Position.h"

#include <algorithm>

namespace engram {

namespace {

size_t lineStart(std::string_view text, uint32_t line) {
    size_t pos = 0;
    for (uint32_t l = 0; l < line; ++l) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) return text.size();
        pos = nl + 1;
    }
    return pos;
}

// Bytes of the UTF-8 sequence starting with c, and the UTF-16 units it takes.
void sequence(unsigned char c, size_t& bytes, uint32_t& units) {
    if (c < 0x80)
        bytes = 1, units = 1;
    else if (c >= 0xF0)
        bytes = 4, units = 2;
    else if (c >= 0xE0)
        bytes = 3, units = 1;
    else
        bytes = 2, units = 1;
}

} // namespace

uint32_t byteOffset(std::string_view text, uint32_t line, uint32_t character) {
    size_t pos = lineStart(text, line);
    uint32_t seen = 0;
    while (pos < text.size() && text[pos] != '\n' && seen < character) {
        size_t bytes;
        uint32_t units;
        sequence(static_cast<unsigned char>(text[pos]), bytes, units);
        pos += bytes;
        seen += units;
    }
    return uint32_t(std::min(pos, text.size()));
}

uint32_t byteColumn(std::string_view text, uint32_t line, uint32_t character) {
    return byteOffset(text, line, character) - uint32_t(lineStart(text, line));
}

uint32_t utf16Column(std::string_view text, uint32_t line, uint32_t column) {
    size_t pos = lineStart(text, line), end = pos + column;
    uint32_t units = 0;
    while (pos < end && pos < text.size() && text[pos] != '\n') {
        size_t bytes;
        uint32_t u;
        sequence(static_cast<unsigned char>(text[pos]), bytes, u);
        pos += bytes;
        units += u;
    }
    return units;
}

} // namespace engram
