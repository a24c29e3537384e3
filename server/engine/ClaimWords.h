// The words of a claim as the contradiction rules read them (Modality.h).
//
// Claims mention code, numbers and units in ways a plain word splitter
// breaks: "`Session.request`", "1.5 s", "250ms", "thread-safe", "02:00",
// "PR #123", "Gson.java:412". Here a code span is one word, a dotted or
// hyphenated run stays whole, and punctuation is kept as its own token so
// each rule decides where its clauses end.
#pragma once
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace engram::claimwords {

struct Word {
    std::string text;  // lower-case; a code span without its backticks; empty for punctuation
    char punct = 0;    // . , ; : ! ? ( ) = < > ~ for a punctuation token
    bool code = false; // from a `code span`
};

std::vector<Word> split(std::string_view text);

// The comparable form of a word: stemmed ("retries" and "retry", "serialises"
// and "serialise" agree), each hyphen part on its own ("thread-safe" is
// "thread", "safe"), a code span whole without a trailing "()".
std::vector<std::string> keys(const Word& w);
void addKeys(std::set<std::string>& to, const Word& w);

// A fixed list of words, found by one hash rather than a scan: the rules
// test every word of a claim against lists of up to seventy words, several
// times over, and scanning them was most of the rules' time. The words are
// string literals (static storage).
class WordSet {
public:
    WordSet(std::initializer_list<std::string_view> words)
        : words_(words) {}
    bool contains(std::string_view w) const { return words_.count(w) != 0; }

private:
    std::unordered_set<std::string_view> words_;
};

// Articles, pronouns, auxiliaries and intensifiers: they name nothing a claim
// is about ("the", "it", "is", "does", "also").
bool functionWord(std::string_view w);

// Negation, as a word or a contraction ("not", "never", "isn't", "cannot").
bool negation(std::string_view w);

// A word that makes a statement a guess ("might", "probably", "seems",
// "whether"): a guess contradicts nothing.
bool hedge(std::string_view w);

// The claim's sentences, each a run of words and punctuation, without the
// questions ("is `get` thread-safe?" states nothing).
std::vector<std::vector<Word>> statements(std::string_view text);

// What Parse makes of a text, made once per thread for the last texts seen
// (up to 512 of them or 1 MiB of text): findings compare every claim on an
// anchor with every other, and would otherwise parse each text once per
// pair. Shared, so clearing the cache leaves what a caller holds intact.
template <auto Parse>
auto parsedOnce(std::string_view text) {
    using T = decltype(Parse(text));
    thread_local std::unordered_map<std::string, std::shared_ptr<const T>> cache;
    thread_local size_t bytes = 0;
    std::string key(text);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    if (cache.size() >= 512 || bytes + key.size() > (size_t(1) << 20)) {
        cache.clear();
        bytes = 0;
    }
    auto parsed = std::make_shared<const T>(Parse(text));
    bytes += key.size();
    cache.emplace(std::move(key), parsed);
    return parsed;
}

} // namespace engram::claimwords
