// The normalised form of a claim's text and its content hash.
//
// Two findings that differ only in case and white space are the same
// finding: contributions are deduplicated by this hash (README, "Delegation"), and the
// index keys every claim by it so a repeat of any live claim is found with
// one lookup rather than a scan.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

// Trimmed, runs of white space collapsed to one space, ASCII lower-cased.
// Bytes outside ASCII are kept as they are: case folding beyond ASCII needs
// tables engram does not carry, and a missed duplicate is only a duplicate.
std::string normalizeContent(std::string_view text);
// Lower-case hex SHA-256 of normalizeContent(text).
std::string contentHash(std::string_view text);

// How much two texts say in the same words: twice the terms they share
// over the terms of both (Dice, on tokenize()'s stemmed terms, stop words
// left out), in [0, 1]. Claims about one thing written apart share about
// half their terms whether they agree or not (fixtures/contradictions), so
// only a high share marks a restatement (Engine::probablyRelated) or a near
// duplicate (recall and packets).
double wordOverlap(std::string_view a, std::string_view b);
// The same over term sets made once (a list compared pairwise). Packets
// compare every row with each row served above it, so a set keeps its
// terms as sorted 64-bit hashes (two sets compared in one merge of
// integers; two terms of one claim's length sharing a hash is a chance
// under one in 10^15) and, spelled out, the terms that must match exactly
// (numbers, negations and modals: sameNumbersAndPolarity).
struct TermSet {
    std::vector<uint64_t> hashes;   // sorted, each once
    std::vector<std::string> fixed; // sorted, each once
    bool empty() const { return hashes.empty(); }
    size_t size() const { return hashes.size(); }
};
TermSet termSet(std::string_view text);
double wordOverlap(const TermSet& a, const TermSet& b);
// Whether two term sets hold the same numbers ("15", "v2", "sha256") and
// the same negations and modals ("not", "never", "must", "may"): claims
// that differ in one say different things however many words they share
// ("tokens live 15 minutes" / "tokens live 60 minutes", "callers cache it" /
// "callers must not cache it").
bool sameNumbersAndPolarity(const TermSet& a, const TermSet& b);

} // namespace engram
