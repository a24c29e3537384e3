// Splitting claim and query text into stemmed search terms, with identifier parts.
//
// Claims talk about code, so a plain word tokenizer would miss most of what users
// search for: "validator" must find "TokenValidator" and "max tokens" must find
// "MAX_TOKENS". This splitter understands identifier shapes and marks the parts
// as colocated so FTS5 phrase positions stay those of the original text. It runs
// on every index write and every query, so it scans bytes once, classifies ASCII
// with a table and reuses one term buffer instead of allocating per character.
#include "text/Tokenize.h"

#include <algorithm>
#include <array>
#include <cstddef>

namespace engram::text {
namespace {

using std::size_t;

enum class Kind : uint8_t { Sep, Lower, Upper, Digit, Under, Apos, Other };

struct Unit {
    Kind kind;
    uint32_t len; // bytes
};

constexpr std::array<Kind, 128> makeAsciiKinds() {
    std::array<Kind, 128> k{};
    for (auto& x : k)
        x = Kind::Sep;
    for (int c = 'a'; c <= 'z'; ++c)
        k[c] = Kind::Lower;
    for (int c = 'A'; c <= 'Z'; ++c)
        k[c] = Kind::Upper;
    for (int c = '0'; c <= '9'; ++c)
        k[c] = Kind::Digit;
    k['_'] = Kind::Under;
    k['\''] = Kind::Apos;
    return k;
}

constexpr std::array<Kind, 128> kAsciiKinds = makeAsciiKinds();

struct Range {
    uint32_t lo, hi;
};

// Non-ASCII code points that separate words. Without these, curly quotes, dashes,
// arrows and emoji written next to a word would become part of its term and the
// word would no longer match its plain spelling. Everything else non-ASCII is
// treated as a letter; a full Unicode category table is not worth its size here.
constexpr Range kSeparatorRanges[] = {
    {0x0080, 0x00A9},   {0x00AB, 0x00B4}, {0x00B6, 0x00B9}, // C1 controls, Latin-1 punctuation
    {0x00BB, 0x00BF},   {0x00D7, 0x00D7}, {0x00F7, 0x00F7}, // (keeping ª µ º as letters)
    {0x2000, 0x206F},                                       // spaces, dashes, quotes, bullets
    {0x20A0, 0x20CF},                                       // currency
    {0x2190, 0x2BFF},                                       // arrows, math, boxes, shapes
    {0x3000, 0x3004},   {0x3008, 0x3020},                   // CJK punctuation
    {0xFE00, 0xFE1F},   {0xFE30, 0xFE6F}, {0xFEFF, 0xFEFF}, // variation selectors, BOM
    {0xFF01, 0xFF0F},   {0xFF1A, 0xFF20}, {0xFF3B, 0xFF40}, // full-width punctuation
    {0xFF5B, 0xFF65},   {0xFFF9, 0xFFFD},                   // ..., replacement char
    {0x1F000, 0x1FAFF},                                     // emoji and pictographs
};

bool isSeparatorCodePoint(uint32_t cp) {
    for (const Range& r : kSeparatorRanges)
        if (cp >= r.lo && cp <= r.hi) return true;
    return false;
}

constexpr uint32_t kRightSingleQuote = 0x2019; // typographic apostrophe

// Kept out of line so the ASCII path of unitAt() stays small enough to inline.
[[gnu::noinline]] Unit decodeNonAscii(std::string_view t, size_t i) {
    auto c = static_cast<unsigned char>(t[i]);
    uint32_t len, cp;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return {Kind::Other, 1}; // stray byte: kept as part of the word, never dropped
    }
    if (i + len > t.size()) return {Kind::Other, 1};
    for (uint32_t k = 1; k < len; ++k) {
        auto b = static_cast<unsigned char>(t[i + k]);
        if ((b & 0xC0) != 0x80) return {Kind::Other, 1};
        cp = (cp << 6) | (b & 0x3F);
    }
    if (cp == kRightSingleQuote) return {Kind::Apos, len};
    return {isSeparatorCodePoint(cp) ? Kind::Sep : Kind::Other, len};
}

inline Unit unitAt(std::string_view t, size_t i) {
    auto c = static_cast<unsigned char>(t[i]);
    if (c < 0x80) return {kAsciiKinds[c], 1};
    return decodeNonAscii(t, i);
}

constexpr bool isLetter(Kind k) {
    return k == Kind::Lower || k == Kind::Upper || k == Kind::Other;
}
constexpr bool isLetterOrDigit(Kind k) {
    return isLetter(k) || k == Kind::Digit;
}

// Lower-cases t[begin, end) onto out, dropping '_' and spelling U+2019 as '\''
// so both apostrophes give the same term.
void appendTerm(std::string& out, std::string_view t, size_t begin, size_t end) {
    // Sized once up front (the term can only be shorter than the bytes it comes
    // from), then trimmed: a push_back per byte costs a capacity check each time.
    size_t start = out.size();
    out.resize(start + (end - begin));
    char* w = out.data() + start;
    for (size_t i = begin; i < end; ++i) {
        char c = t[i];
        if (c >= 'A' && c <= 'Z') {
            *w++ = static_cast<char>(c + ('a' - 'A'));
        } else if (c == '_') {
            continue;
        } else if (static_cast<unsigned char>(c) == 0xE2 && i + 2 < end &&
                   static_cast<unsigned char>(t[i + 1]) == 0x80 &&
                   static_cast<unsigned char>(t[i + 2]) == 0x99) {
            *w++ = '\'';
            i += 2;
        } else {
            *w++ = c;
        }
    }
    out.resize(static_cast<size_t>(w - out.data()));
}

struct Part {
    size_t begin, end;
};

// Identifiers with more parts than this keep the rest in their last part; the
// whole identifier is still emitted, so nothing becomes unsearchable.
constexpr size_t kMaxParts = 32;

class Tokenizer {
public:
    Tokenizer(std::string_view text, const std::function<void(const Token&)>& emit)
        : t_(text)
        , emit_(emit) {}

    void run() {
        size_t i = 0;
        while (i < t_.size()) {
            Unit u = unitAt(t_, i);
            // A word cannot start with an apostrophe or a separator.
            if (u.kind == Kind::Sep || u.kind == Kind::Apos)
                i += u.len;
            else
                i = word(i);
        }
    }

private:
    std::string_view t_;
    const std::function<void(const Token&)>& emit_;
    Token tok_;
    Part parts_[kMaxParts];
    size_t nParts_ = 0;
    bool partOpen_ = false;

    void openPart(size_t at) {
        if (partOpen_) return;
        if (nParts_ == kMaxParts) {
            partOpen_ = true; // keep extending the last part
            return;
        }
        parts_[nParts_++] = {at, at};
        partOpen_ = true;
    }

    void closePart() { partOpen_ = false; }

    // Scans one word starting at `start`; returns the offset just past it.
    size_t word(size_t start) {
        nParts_ = 0;
        partOpen_ = false;
        Kind prev = Kind::Sep;
        size_t i = start;
        while (i < t_.size()) {
            Unit u = unitAt(t_, i);
            if (u.kind == Kind::Sep) break;
            if (u.kind == Kind::Apos) {
                // Only between letters ("don't", "user's"); quotes around words separate.
                size_t next = i + u.len;
                if (!isLetterOrDigit(prev) || next >= t_.size() || !isLetter(unitAt(t_, next).kind))
                    break;
            } else if (u.kind == Kind::Under) {
                closePart();
                prev = u.kind;
                ++i;
                continue;
            } else if (u.kind == Kind::Upper && startsNewPart(prev, i)) {
                closePart();
            }
            openPart(i);
            i += u.len;
            parts_[nParts_ - 1].end = i;
            prev = u.kind;
        }
        emitWord();
        return i;
    }

    // camelCase ("tokenValidator"), acronym then word ("HTTPServer"), digits then
    // a capitalised word ("JSON2Value"); "SHA256" and "v2API" stay whole, and so
    // do plural acronyms ("JWTs", "URLsFor"), which would otherwise become "jw" "ts".
    bool startsNewPart(Kind prev, size_t i) const {
        if (prev == Kind::Lower || prev == Kind::Other) return true;
        if (prev != Kind::Upper && prev != Kind::Digit) return false;
        if (i + 1 >= t_.size() || unitAt(t_, i + 1).kind != Kind::Lower) return false;
        if (t_[i + 1] != 's' || prev != Kind::Upper) return true;
        if (i + 2 >= t_.size()) return false;
        Kind after = unitAt(t_, i + 2).kind;
        return after == Kind::Lower || after == Kind::Other;
    }

    void emitWord() {
        if (nParts_ == 0) return;
        bool emitted = false;
        if (nParts_ > 1) {
            tok_.term.clear();
            appendTerm(tok_.term, t_, parts_[0].begin, parts_[nParts_ - 1].end);
            emitted = emitTerm(parts_[0].begin, parts_[nParts_ - 1].end, false);
        }
        for (size_t p = 0; p < nParts_; ++p) {
            size_t begin = parts_[p].begin, end = parts_[p].end;
            tok_.term.clear();
            appendTerm(tok_.term, t_, begin, isPluralAcronym(begin, end) ? end - 1 : end);
            if (emitTerm(begin, end, emitted)) emitted = true;
        }
    }

    // "JWTs", "CPUs": Porter2 keeps the s of "jwts" (no vowel before it), so the
    // plural would never match the acronym itself; drop it here instead.
    bool isPluralAcronym(size_t begin, size_t end) const {
        if (end - begin < 3 || t_[end - 1] != 's') return false;
        for (size_t i = begin; i + 1 < end; ++i)
            if (t_[i] < 'A' || t_[i] > 'Z') return false;
        return true;
    }

    bool emitTerm(size_t begin, size_t end, bool colocated) {
        std::string& term = tok_.term;
        if (term.size() < 2 && !(term.size() == 1 && term[0] >= '0' && term[0] <= '9'))
            return false;
        if (isStopword(term)) return false;
        term.resize(detail::stemInPlace(term.data(), term.size()));
        tok_.begin = static_cast<uint32_t>(begin);
        tok_.end = static_cast<uint32_t>(end);
        tok_.colocated = colocated;
        emit_(tok_);
        return true;
    }
};

// Sorted so lookups are a binary search; checked at compile time below.
constexpr std::string_view kStopwords[] = {
    "a",     "about", "also",   "am",   "an",    "and",  "are",  "as",    "at",    "be",   "been",
    "being", "but",   "by",     "did",  "do",    "does", "for",  "from",  "had",   "has",  "have",
    "he",    "her",   "his",    "how",  "i",     "if",   "in",   "into",  "is",    "it",   "it's",
    "its",   "just",  "me",     "my",   "of",    "on",   "or",   "our",   "she",   "so",   "such",
    "than",  "that",  "that's", "the",  "their", "them", "then", "there", "these", "they", "this",
    "those", "to",    "us",     "very", "via",   "was",  "we",   "were",  "what",  "when", "where",
    "which", "who",   "whose",  "why",  "with",  "you",  "your",
};

static_assert(std::is_sorted(std::begin(kStopwords), std::end(kStopwords)));

constexpr size_t kMaxStopwordLen = 6;

// Stop words starting with 'a' + c are kStopwords[start[c], start[c + 1]): a lookup
// compares against a handful of words instead of binary-searching with memcmp.
constexpr std::array<unsigned char, 27> makeStopwordBuckets() {
    std::array<unsigned char, 27> start{};
    size_t i = 0;
    for (int c = 0; c <= 26; ++c) {
        while (i < std::size(kStopwords) && kStopwords[i][0] - 'a' < c)
            ++i;
        start[c] = static_cast<unsigned char>(i);
    }
    return start;
}

constexpr auto kStopwordBuckets = makeStopwordBuckets();

} // namespace

bool isStopword(std::string_view lowerWord) {
    if (lowerWord.empty() || lowerWord.size() > kMaxStopwordLen) return false;
    char first = lowerWord[0];
    if (first < 'a' || first > 'z') return false;
    int c = first - 'a';
    for (size_t i = kStopwordBuckets[c]; i < kStopwordBuckets[c + 1]; ++i) {
        std::string_view w = kStopwords[i];
        if (w.size() != lowerWord.size()) continue;
        size_t k = 1;
        while (k < w.size() && w[k] == lowerWord[k])
            ++k;
        if (k == w.size()) return true;
    }
    return false;
}

void tokenize(std::string_view text, const std::function<void(const Token&)>& emit) {
    Tokenizer(text, emit).run();
}

std::vector<std::string> terms(std::string_view text) {
    std::vector<std::string> out;
    tokenize(text, [&](const Token& t) { out.push_back(t.term); });
    return out;
}

} // namespace engram::text
