// Normalisation for content hashes (see Content.h).
#include "text/Content.h"

#include "text/Tokenize.h"
#include "util/Hash.h"

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

TermSet termSet(std::string_view text) {
    auto terms = text::terms(text);
    return TermSet(terms.begin(), terms.end());
}

double wordOverlap(const TermSet& a, const TermSet& b) {
    if (a.empty() || b.empty()) return 0;
    size_t shared = 0;
    for (auto& t : a)
        shared += b.count(t);
    return 2.0 * double(shared) / double(a.size() + b.size());
}

bool sameNumbersAndPolarity(const TermSet& a, const TermSet& b) {
    // As tokenize() gives them (stemmed); the stop list keeps them all.
    static const TermSet kPolarity = {"not",    "no",      "never", "must",   "should", "can",
                                      "cannot", "may",     "might", "always", "only",   "without",
                                      "don't",  "doesn't", "isn't", "aren't", "won't",  "can't"};
    auto fixed = [](const std::string& t) {
        return t.find_first_of("0123456789") != std::string::npos || kPolarity.count(t) > 0;
    };
    auto within = [&](const TermSet& x, const TermSet& y) {
        for (auto& t : x)
            if (fixed(t) && !y.count(t)) return false;
        return true;
    };
    return within(a, b) && within(b, a);
}

double wordOverlap(std::string_view a, std::string_view b) {
    return wordOverlap(termSet(a), termSet(b));
}

} // namespace engram
