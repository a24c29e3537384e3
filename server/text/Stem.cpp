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
#include "text/Tokenize.h"

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

} // namespace

namespace detail {

std::size_t stemInPlace(char* word, std::size_t len) {
    if (len < 3) return len; // Porter2 leaves words of one or two letters as they are
    for (std::size_t i = 0; i < len; ++i) {
        char c = word[i];
        if (!((c >= 'a' && c <= 'z') || c == '\'')) return len;
    }
    sb_stemmer* s = english();
    if (!s) return len; // out of memory making it: the word unstemmed still matches itself
    const sb_symbol* out = sb_stemmer_stem(s, reinterpret_cast<const sb_symbol*>(word), int(len));
    int n = sb_stemmer_length(s);
    if (!out || n < 0 || std::size_t(n) > len) return len;
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
