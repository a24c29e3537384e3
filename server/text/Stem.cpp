// The English (Porter2) stemmer: Snowball's reference implementation,
// libstemmer, behind the tokenizer's in-place interface.
//
// Stemming runs on every term of every indexed claim and every query. A
// stemmer object is not thread-safe and costs an allocation to make, so each
// thread keeps one for its life. The word is checked first: only lower-case
// ASCII letters and apostrophes are stemmed (the tokenizer lower-cases ASCII;
// a word with digits, "sha256", or with bytes of another script is a name,
// not English), and a stem is never longer than its word, which is what
// makes the in-place form safe (checked, not assumed). libstemmer carries
// the other Snowball languages too; claims are stemmed as English, as the
// stop list and the related words are English (README, "Recall").
//
// Recall scores its candidates by reading their text again, so the same
// words are stemmed over and over, and libstemmer's run over a word costs
// several times a table lookup. Each thread keeps the stems it made last in
// a direct-mapped table (a word's slot is its hash; a new word takes the
// slot over): fixed in size whatever is read, and a word is either found
// exactly or stemmed again, so the table changes no term.
#include "text/Tokenize.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <libstemmer.h>
#include <memory>

namespace engram::text {

namespace {

struct StemmerDelete {
    void operator()(sb_stemmer* s) const { sb_stemmer_delete(s); }
};

sb_stemmer* english() {
    thread_local std::unique_ptr<sb_stemmer, StemmerDelete> s(sb_stemmer_new("english", "UTF_8"));
    return s.get();
}

// 16,384 slots of 32 bytes: 512 KiB a thread, made on its first stem (4,096
// slots left a third of a store's words missing on the generated stores of
// engram_bench: a reindex of 10k claims took 0.34 s against 0.30 s). Words
// of more than 15 letters (rare in prose) are always stemmed.
constexpr std::size_t kSlots = 16384, kSlotWord = 15;

struct Slot {
    uint8_t wordLen = 0; // 0: empty (words under 3 letters never get here)
    uint8_t stemLen = 0;
    char word[kSlotWord];
    char stem[kSlotWord];
};

Slot& slotOf(const char* word, std::size_t len) {
    thread_local std::unique_ptr<std::array<Slot, kSlots>> table(new std::array<Slot, kSlots>());
    uint32_t h = 2166136261u; // FNV-1a
    for (std::size_t i = 0; i < len; ++i)
        h = (h ^ uint8_t(word[i])) * 16777619u;
    return (*table)[h % kSlots];
}

} // namespace

namespace detail {

std::size_t stemInPlace(char* word, std::size_t len) {
    if (len < 3) return len; // Porter2 leaves words of one or two letters as they are
    for (std::size_t i = 0; i < len; ++i) {
        char c = word[i];
        if (!((c >= 'a' && c <= 'z') || c == '\'')) return len;
    }
    Slot* slot = nullptr;
    if (len <= kSlotWord) {
        slot = &slotOf(word, len);
        if (slot->wordLen == len && std::memcmp(slot->word, word, len) == 0) {
            std::memcpy(word, slot->stem, slot->stemLen);
            return slot->stemLen;
        }
    }
    sb_stemmer* s = english();
    if (!s) return len; // out of memory making it: the word unstemmed still matches itself
    const sb_symbol* out = sb_stemmer_stem(s, reinterpret_cast<const sb_symbol*>(word), int(len));
    int n = sb_stemmer_length(s);
    if (!out || n < 0 || std::size_t(n) > len) return len;
    if (slot) {
        slot->wordLen = uint8_t(len);
        slot->stemLen = uint8_t(n);
        std::memcpy(slot->word, word, len);
        std::memcpy(slot->stem, out, std::size_t(n));
    }
    std::memcpy(word, out, std::size_t(n));
    return std::size_t(n);
}

} // namespace detail

std::string stem(std::string_view word) {
    std::string out(word);
    out.resize(detail::stemInPlace(out.data(), out.size()));
    return out;
}

} // namespace engram::text
