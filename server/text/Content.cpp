// Normalisation for content hashes (see Content.h).
#include "text/Content.h"

#include "text/Tokenize.h"
#include "util/Hash.h"

#include <algorithm>
#include <array>

namespace engram {

std::string normalizeContent(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    bool pendingSpace = false;
    for (char ch : text) {
        unsigned char c = static_cast<unsigned char>(ch);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            pendingSpace = !out.empty();
            continue;
        }
        if (pendingSpace) out += ' ';
        pendingSpace = false;
        out += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : ch;
    }
    return out;
}

std::string contentHash(std::string_view text) {
    return sha256Hex(normalizeContent(text));
}

namespace {

// Terms two claims must share to say the same thing: numbers ("15", "v2",
// "sha256") and negations and modals, as tokenize() gives them (stemmed;
// the stop list keeps them all).
bool fixedTerm(const std::string& t) {
    static constexpr std::array<std::string_view, 18> kPolarity = {
        "not",    "no",   "never",   "must",  "should",  "can",   "cannot", "may",   "might",
        "always", "only", "without", "don't", "doesn't", "isn't", "aren't", "won't", "can't"};
    return t.find_first_of("0123456789") != std::string::npos ||
           std::find(kPolarity.begin(), kPolarity.end(), t) != kPolarity.end();
}

template <class T>
void sortUnique(std::vector<T>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

} // namespace

TermSet termSet(std::string_view text) {
    TermSet out;
    text::tokenize(text, [&](const text::Token& t) {
        out.hashes.push_back(std::hash<std::string>{}(t.term));
        if (fixedTerm(t.term)) out.fixed.push_back(t.term);
    });
    sortUnique(out.hashes);
    sortUnique(out.fixed);
    return out;
}

double wordOverlap(const TermSet& a, const TermSet& b) {
    if (a.empty() || b.empty()) return 0;
    size_t shared = 0;
    for (auto x = a.hashes.begin(), y = b.hashes.begin();
         x != a.hashes.end() && y != b.hashes.end();) {
        shared += *x == *y;
        bool xFirst = *x <= *y, yFirst = *y <= *x;
        x += xFirst;
        y += yFirst;
    }
    return 2.0 * double(shared) / double(a.size() + b.size());
}

bool sameNumbersAndPolarity(const TermSet& a, const TermSet& b) {
    return a.fixed == b.fixed;
}

double wordOverlap(std::string_view a, std::string_view b) {
    return wordOverlap(termSet(a), termSet(b));
}

} // namespace engram
