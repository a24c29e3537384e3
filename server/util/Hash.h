// SHA-256 digests and hex encoding.
//
// Everything content-addressed in engram (root fingerprints, the audit chain,
// packet ids) is SHA-256; libsodium provides it so no crypto is hand-written.
#pragma once
#include <string>
#include <string_view>

namespace engram {

// Lower-case hex SHA-256 of the bytes.
std::string sha256Hex(std::string_view bytes);
std::string toHex(const unsigned char* data, size_t n);

} // namespace engram
