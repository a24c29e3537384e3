// The normalised form of a claim's text and its content hash.
//
// Two findings that differ only in case and white space are the same
// finding: contributions are deduplicated by this hash (README, "Delegation"), and the
// index keys every claim by it so a repeat of any live claim is found with
// one lookup rather than a scan.
#pragma once
#include <string>
#include <string_view>

namespace engram {

// Trimmed, runs of white space collapsed to one space, ASCII lower-cased.
// Bytes outside ASCII are kept as they are: case folding beyond ASCII needs
// tables engram does not carry, and a missed duplicate is only a duplicate.
std::string normalizeContent(std::string_view text);
// Lower-case hex SHA-256 of normalizeContent(text).
std::string contentHash(std::string_view text);

} // namespace engram
