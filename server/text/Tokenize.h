// Tokenizer, English stemmer and stop list for claim and query text.
//
// Claims are short English sentences that mention code ("TokenValidator.validate
// rejects expired tokens"). Indexing and querying must agree on exactly one way
// of turning such text into terms, so the FTS5 tokenizer, BM25 ranking and query
// parsing all go through this module. Identifiers are split into their words so
// that "token validator" finds "TokenValidator", and the whole identifier is
// kept too so that an exact identifier query still ranks its claims first.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace engram::text {

struct Token {
    std::string term;   // lower-case, stemmed
    uint32_t begin = 0; // byte offsets into the input
    uint32_t end = 0;
    bool colocated = false; // true: same position as the previous token (an identifier part)
};

// Splits UTF-8 text into search terms. Words are lower-cased (ASCII; non-ASCII
// UTF-8 letters are kept as bytes of the word) and stemmed with stem().
//
// A word is a run of ASCII letters, digits, '_' and non-ASCII letters, with
// apostrophes (' or U+2019) allowed between letters ("don't"). Everything else
// separates words, including '.', "::", "->", '/', '-' and common Unicode
// punctuation, so "TokenValidator.validate" is two words.
//
// A word made of several identifier parts (camelCase, PascalCase, snake_case,
// "HTTPServer", "parseJSON2Value") is emitted first as a whole (its parts
// concatenated, so "max_tokens" and "maxTokens" give the same term), followed by
// each part with colocated = true. Digits stay inside parts ("sha256", "utf8").
// Stop words (isStopword) are dropped; so are terms shorter than 2 bytes unless
// they are a digit.
void tokenize(std::string_view text, const std::function<void(const Token&)>& emit);

// Convenience: the terms only, in order.
std::vector<std::string> terms(std::string_view text);

// English stemmer (Porter2 / "English" Snowball algorithm) for one lower-case
// ASCII word; words with non-ASCII bytes, digits or any other character outside
// [a-z'] are returned unchanged.
std::string stem(std::string_view word);
namespace detail {
// The same in place, as the tokenizer stems each term in its own buffer:
// returns the stemmed length (never longer than len).
std::size_t stemInPlace(char* word, std::size_t len);
} // namespace detail

// A small English stop list of the most common function words. Negations and
// modals (not, no, never, must, should, always, only, ...) are deliberately
// absent: in a claim they carry the meaning.
bool isStopword(std::string_view lowerWord);

} // namespace engram::text
