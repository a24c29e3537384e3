// LSP positions (line, UTF-16 code unit) to and from byte offsets.
//
// The LSP counts characters in UTF-16 code units; engram's syntax layer
// counts bytes. Converting at the edge keeps every other layer in bytes.
#pragma once
#include <cstdint>
#include <string_view>

namespace engram {

// Byte offset of (line, character) in text; positions past a line's end
// clamp to it, lines past the end clamp to the text's end.
uint32_t byteOffset(std::string_view text, uint32_t line, uint32_t utf16Character);
// Byte column (within its line) of (line, character).
uint32_t byteColumn(std::string_view text, uint32_t line, uint32_t utf16Character);
// UTF-16 character of a byte column on a line.
uint32_t utf16Column(std::string_view text, uint32_t line, uint32_t byteColumn);

} // namespace engram
