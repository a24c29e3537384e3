// The English (Porter2) Snowball stemmer, written for in-place use by the tokenizer.
//
// Stemming runs on every term of every indexed claim and every query, so it works
// on a caller-owned byte buffer and never allocates; no stemmed form is longer than
// its input, which is what makes rewriting in place safe. It follows the published
// Porter2 step structure (with its exceptional forms) so that terms agree with what
// users of other Snowball-based search tools would expect.
#include "text/Tokenize.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>

namespace engram::text {
namespace {

using std::size_t;
using std::string_view;

constexpr bool isVowel(char c) {
    // 'Y' (a consonant y, marked in the prelude) is deliberately not a vowel.
    return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y';
}

constexpr bool isValidLiEnding(char c) {
    return c == 'c' || c == 'd' || c == 'e' || c == 'g' || c == 'h' || c == 'k' || c == 'm' ||
           c == 'n' || c == 'r' || c == 't';
}

constexpr bool isDouble(char a, char b) {
    return a == b && (a == 'b' || a == 'd' || a == 'f' || a == 'g' || a == 'm' || a == 'n' ||
                      a == 'p' || a == 'r' || a == 't');
}

// Conditions beyond "the suffix lies in R1/R2" that a rule may carry.
enum class Cond : unsigned char { None, PrecededByL, ValidLi, InR2, Eed, PrecededBySOrT };

struct Rule {
    string_view suffix;
    string_view replacement;
    Cond cond = Cond::None;
};

// Compares from the last letter backwards, where nearly every miss is decided;
// a memcmp call costs more than these few-byte comparisons.
constexpr bool endsWith(const char* s, size_t n, string_view suffix) {
    size_t k = suffix.size();
    if (n < k) return false;
    for (size_t j = 1; j <= k; ++j)
        if (s[n - j] != suffix[k - j]) return false;
    return true;
}

// One step's suffix rules, bucketed by last letter so a lookup only tries the few
// suffixes that can match. Within a bucket the longest suffix comes first, so the
// first hit is Porter2's "longest matching suffix"; a hit whose condition fails
// ends the step without trying shorter suffixes, as the algorithm requires.
template <size_t N>
class SuffixTable {
public:
    constexpr explicit SuffixTable(const Rule (&rules)[N]) {
        for (size_t i = 0; i < N; ++i)
            rules_[i] = rules[i];
        std::sort(rules_.begin(), rules_.end(), [](const Rule& a, const Rule& b) {
            if (a.suffix.back() != b.suffix.back()) return a.suffix.back() < b.suffix.back();
            return a.suffix.size() > b.suffix.size();
        });
        size_t i = 0;
        for (int c = 0; c <= 26; ++c) {
            while (i < N && rules_[i].suffix.back() - 'a' < c)
                ++i;
            bucket_[c] = static_cast<unsigned char>(i);
        }
    }

    const Rule* match(const char* s, size_t n) const {
        if (n == 0 || s[n - 1] < 'a' || s[n - 1] > 'z') return nullptr;
        int c = s[n - 1] - 'a';
        for (size_t i = bucket_[c]; i < bucket_[c + 1]; ++i) {
            if (endsWith(s, n, rules_[i].suffix)) return &rules_[i];
        }
        return nullptr;
    }

private:
    std::array<Rule, N> rules_{};
    std::array<unsigned char, 27> bucket_{}; // rules ending in 'a'+c are [bucket_[c], bucket_[c+1])
};

constexpr Rule kStep1bRules[] = {{"eedly", "ee", Cond::Eed}, {"ingly", ""}, {"edly", ""},
                                 {"eed", "ee", Cond::Eed},   {"ing", ""},   {"ed", ""}};
constexpr SuffixTable kStep1b(kStep1bRules);

constexpr Rule kStep2Rules[] = {
    {"ational", "ate"},
    {"fulness", "ful"},
    {"iveness", "ive"},
    {"ization", "ize"},
    {"ousness", "ous"},
    {"tional", "tion"},
    {"biliti", "ble"},
    {"lessli", "less"},
    {"entli", "ent"},
    {"ation", "ate"},
    {"alism", "al"},
    {"aliti", "al"},
    {"ousli", "ous"},
    {"iviti", "ive"},
    {"fulli", "ful"},
    {"enci", "ence"},
    {"anci", "ance"},
    {"abli", "able"},
    {"izer", "ize"},
    {"ator", "ate"},
    {"alli", "al"},
    {"bli", "ble"},
    {"ogi", "og", Cond::PrecededByL},
    {"li", "", Cond::ValidLi},
};
constexpr SuffixTable kStep2(kStep2Rules);

constexpr Rule kStep3Rules[] = {
    {"ational", "ate"}, {"tional", "tion"}, {"alize", "al"},
    {"icate", "ic"},    {"iciti", "ic"},    {"ative", "", Cond::InR2},
    {"ical", "ic"},     {"ness", ""},       {"ful", ""},
};
constexpr SuffixTable kStep3(kStep3Rules);

constexpr Rule kStep4Rules[] = {
    {"ement", ""}, {"ance", ""}, {"ence", ""}, {"able", ""}, {"ible", ""},
    {"ment", ""},  {"ant", ""},  {"ent", ""},  {"ism", ""},  {"ate", ""},
    {"iti", ""},   {"ous", ""},  {"ive", ""},  {"ize", ""},  {"ion", "", Cond::PrecededBySOrT},
    {"al", ""},    {"er", ""},   {"ic", ""},
};
constexpr SuffixTable kStep4(kStep4Rules);

// Inline byte loop: the words are a few bytes long, shorter than a memcmp call.
bool sameWord(string_view a, string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}

class Stemmer {
public:
    Stemmer(char* s, size_t n)
        : s_(s)
        , n_(n) {}

    size_t run() {
        if (exception1()) return n_;
        if (n_ < 3) return n_;
        prelude();
        markRegions();
        step0();
        step1a();
        if (!exception2()) {
            step1b();
            step1c();
            step2();
            step3();
            step4();
            step5();
        }
        for (size_t i = 0; i < n_; ++i)
            if (s_[i] == 'Y') s_[i] = 'y';
        return n_;
    }

private:
    char* s_;
    size_t n_;
    size_t p1_ = 0; // start of R1
    size_t p2_ = 0; // start of R2

    string_view word() const { return {s_, n_}; }

    bool endsWith(string_view suffix) const { return text::endsWith(s_, n_, suffix); }

    // Replacements never grow the word, so the buffer always has room.
    void replaceTail(size_t suffixLen, string_view replacement) {
        n_ -= suffixLen;
        std::memcpy(s_ + n_, replacement.data(), replacement.size());
        n_ += replacement.size();
    }

    bool hasVowel(size_t from, size_t to) const {
        for (size_t i = from; i < to; ++i)
            if (isVowel(s_[i])) return true;
        return false;
    }

    // Does s_[0, end) end in a short syllable?
    bool endsInShortSyllable(size_t end) const {
        if (end >= 3) {
            char last = s_[end - 1];
            return !isVowel(s_[end - 3]) && isVowel(s_[end - 2]) && !isVowel(last) && last != 'w' &&
                   last != 'x' && last != 'Y';
        }
        return end == 2 && isVowel(s_[0]) && !isVowel(s_[1]);
    }

    // Position after the first non-vowel that follows a vowel, at or after `from`.
    size_t regionStart(size_t from) const {
        for (size_t i = from; i + 1 < n_; ++i)
            if (isVowel(s_[i]) && !isVowel(s_[i + 1])) return i + 2;
        return n_;
    }

    bool exception1() {
        if (n_ < 3 || n_ > 6) return false;
        static constexpr Rule kForms[] = {
            {"skis", "ski"},    {"skies", "sky"},   {"dying", "die"},    {"lying", "lie"},
            {"tying", "tie"},   {"idly", "idl"},    {"gently", "gentl"}, {"ugly", "ugli"},
            {"early", "earli"}, {"only", "onli"},   {"singly", "singl"}, {"sky", "sky"},
            {"news", "news"},   {"howe", "howe"},   {"atlas", "atlas"},  {"cosmos", "cosmos"},
            {"bias", "bias"},   {"andes", "andes"},
        };
        for (const Rule& r : kForms) {
            if (sameWord(word(), r.suffix)) {
                replaceTail(n_, r.replacement);
                return true;
            }
        }
        return false;
    }

    bool exception2() const {
        if (n_ < 6 || n_ > 7) return false;
        static constexpr string_view kInvariant[] = {"inning",  "outing",  "canning", "herring",
                                                     "earring", "proceed", "exceed",  "succeed"};
        for (string_view w : kInvariant)
            if (sameWord(word(), w)) return true;
        return false;
    }

    void prelude() {
        if (s_[0] == '\'') {
            std::memmove(s_, s_ + 1, n_ - 1);
            --n_;
        }
        for (size_t i = 0; i < n_; ++i)
            if (s_[i] == 'y' && (i == 0 || isVowel(s_[i - 1]))) s_[i] = 'Y';
    }

    void markRegions() {
        // These prefixes would otherwise get an R1 too short to strip real suffixes
        // without over-stemming (general/generous, communication/community).
        static constexpr string_view kPrefixes[] = {"gener", "commun", "arsen"};
        p1_ = n_ + 1; // sentinel: no special prefix
        for (string_view p : kPrefixes) {
            if (n_ >= p.size() && sameWord(word().substr(0, p.size()), p)) {
                p1_ = p.size();
                break;
            }
        }
        if (p1_ > n_) p1_ = regionStart(0);
        p2_ = regionStart(p1_);
    }

    void step0() {
        if (endsWith("'s'"))
            n_ -= 3;
        else if (endsWith("'s"))
            n_ -= 2;
        else if (endsWith("'"))
            n_ -= 1;
    }

    void step1a() {
        if (endsWith("sses")) {
            n_ -= 2;
        } else if (endsWith("ied") || endsWith("ies")) {
            // "cries" -> "cri" but "ties" -> "tie".
            n_ -= (n_ - 3 > 1) ? 2 : 1;
        } else if (endsWith("us") || endsWith("ss")) {
            // unchanged
        } else if (endsWith("s")) {
            // Needs a vowel before the letter preceding the s: "gaps" -> "gap", "gas" stays.
            if (n_ >= 3 && hasVowel(0, n_ - 2)) --n_;
        }
    }

    void step1b() {
        const Rule* r = kStep1b.match(s_, n_);
        if (!r) return;
        size_t start = n_ - r->suffix.size();
        if (r->cond == Cond::Eed) {
            if (start >= p1_) replaceTail(r->suffix.size(), r->replacement);
            return;
        }
        if (!hasVowel(0, start)) return;
        n_ = start;
        if (endsWith("at") || endsWith("bl") || endsWith("iz")) {
            s_[n_++] = 'e';
        } else if (n_ >= 2 && isDouble(s_[n_ - 2], s_[n_ - 1])) {
            --n_;
        } else if (p1_ >= n_ && endsInShortSyllable(n_)) {
            // A short word ("hop" from "hoping") gets its e back.
            s_[n_++] = 'e';
        }
    }

    void step1c() {
        if (n_ >= 3 && (s_[n_ - 1] == 'y' || s_[n_ - 1] == 'Y') && !isVowel(s_[n_ - 2]))
            s_[n_ - 1] = 'i';
    }

    void step2() {
        const Rule* r = kStep2.match(s_, n_);
        if (!r) return;
        size_t start = n_ - r->suffix.size();
        if (start < p1_) return;
        if (r->cond == Cond::PrecededByL && (start == 0 || s_[start - 1] != 'l')) return;
        if (r->cond == Cond::ValidLi && (start == 0 || !isValidLiEnding(s_[start - 1]))) return;
        replaceTail(r->suffix.size(), r->replacement);
    }

    void step3() {
        const Rule* r = kStep3.match(s_, n_);
        if (!r) return;
        size_t start = n_ - r->suffix.size();
        if (start < p1_) return;
        if (r->cond == Cond::InR2 && start < p2_) return;
        replaceTail(r->suffix.size(), r->replacement);
    }

    void step4() {
        const Rule* r = kStep4.match(s_, n_);
        if (!r) return;
        size_t start = n_ - r->suffix.size();
        if (start < p2_) return;
        if (r->cond == Cond::PrecededBySOrT &&
            (start == 0 || (s_[start - 1] != 's' && s_[start - 1] != 't')))
            return;
        n_ = start;
    }

    void step5() {
        if (n_ == 0) return;
        size_t start = n_ - 1;
        if (s_[start] == 'e') {
            if (start >= p2_ || (start >= p1_ && !endsInShortSyllable(start))) n_ = start;
        } else if (s_[start] == 'l') {
            if (start >= p2_ && start > 0 && s_[start - 1] == 'l') n_ = start;
        }
    }
};

} // namespace

namespace detail {

// In-place form used by the tokenizer; returns the stemmed length (never longer).
std::size_t stemInPlace(char* word, std::size_t len) {
    for (std::size_t i = 0; i < len; ++i) {
        char c = word[i];
        if (!((c >= 'a' && c <= 'z') || c == '\'')) return len;
    }
    return Stemmer(word, len).run();
}

} // namespace detail

std::string stem(std::string_view word) {
    std::string out(word);
    out.resize(detail::stemInPlace(out.data(), out.size()));
    return out;
}

} // namespace engram::text
