// Deterministic synthetic claim stores and the fixed recall query mix.
//
// Performance numbers only mean something if the data looks like what engram
// will hold: short English notes that mention code. So the generator draws
// words from a Zipf-like vocabulary (common developer English at the head,
// code identifiers in every spelling the tokenizer must split, and a long tail
// of rare terms), and fills the header fields with the spread a real store
// has (labels, tags, kinds, confidence, statuses, anchors, a year of ages).
// Everything comes from one seeded generator of our own (not <random>'s
// distributions, whose output differs between standard libraries), and a
// store of N claims is a prefix of a store of M > N claims, so the query mix
// built from the smaller store is valid for the larger one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace engram::bench {

// splitmix64: tiny, fast, and identical on every platform.
class Rng {
public:
    explicit Rng(uint64_t seed)
        : s_(seed) {}
    uint64_t next();
    double unit();              // [0, 1)
    uint64_t below(uint64_t n); // [0, n)
    bool chance(double p) { return unit() < p; }

private:
    uint64_t s_;
};

// The vocabulary, in rank order (rank 0 is the most frequent word).
struct Vocabulary {
    std::vector<std::string> words;   // ~20k, mixed English, identifiers, rare terms
    std::vector<std::string> english; // the common English content words, by rank
    std::vector<std::string> identifiers;
    std::vector<double> cumulative; // Zipf-Mandelbrot CDF over `words`

    static Vocabulary make(uint64_t seed, size_t size = 20000);
    // A word drawn by its Zipf weight.
    const std::string& draw(Rng& rng) const;
};

struct GeneratedStore {
    size_t claims = 0;
    size_t labelled = 0;
    size_t bytes = 0;                // total size of the claim files
    std::vector<std::string> labels; // in claim order (first few hundred only)
    double seconds = 0;
};

// Writes `count` claim files under `<root>/.engram/claims/` (plus store.conf
// and .gitignore through Store::ensureLayout), plain writes without fsync: this
// is test data, not something engram acknowledged.
GeneratedStore generateStore(const std::string& root, const Vocabulary& vocab, uint64_t seed,
                             size_t count);

struct Query {
    std::string category; // rare | common | multi | identifier | label | nomatch
    std::string text;
};

// The fixed query mix (>= 200 queries), from the vocabulary and from labels
// that exist in every generated store.
std::vector<Query> makeQueries(const Vocabulary& vocab, const std::vector<std::string>& labels,
                               uint64_t seed);

} // namespace engram::bench
