// Related words (server/text/Related.h) and word overlap (text/Content.h):
// what recall adds to a query, and what makes two claims one.
#include "text/Related.h"
#include "text/Content.h"
#include "text/Tokenize.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_RelatedTest {

using namespace engram;

namespace {

std::vector<std::string> termsOf(const std::vector<text::Expansion>& related) {
    std::vector<std::string> out;
    for (auto& e : related)
        out.push_back(e.term);
    return out;
}

// As recall asks: with the query's terms as it worked them out.
std::vector<text::Expansion> relatedOf(const std::string& query, size_t max) {
    return text::relatedTerms(query, text::terms(query), max);
}

bool holds(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST_CASE("a word brings the other members of its groups, stemmed, each naming the word",
          "[text]") {
    auto related = relatedOf("undo the last deploy", 12);
    auto terms = termsOf(related);
    CHECK(holds(terms, "revert"));
    CHECK(holds(terms, "rollback"));
    CHECK(holds(terms, "ship")); // deploy
    for (auto& e : related) {
        REQUIRE(e.of.size() == 1);
        CHECK((e.of[0] == "undo" || e.of[0] == "deploy"));
        CHECK_FALSE(e.phrase);
    }
    // An abbreviation in an identifier is found by its part.
    CHECK(holds(termsOf(relatedOf("where is dbPool set", 12)), "databas"));
}

TEST_CASE("a phrase is found whatever its stop words, and its words alone are not added",
          "[text]") {
    auto related = relatedOf("brute force protection on sign in", 12);
    auto login = std::find_if(related.begin(), related.end(),
                              [](const text::Expansion& e) { return e.term == "login"; });
    REQUIRE(login != related.end());
    CHECK(login->phrase);
    CHECK(login->of == std::vector<std::string>{"sign"}); // "in" is a stop word
    // "log in" relates to login, never to its word "log" alone as a member.
    CHECK_FALSE(holds(termsOf(relatedOf("sign in", 12)), "log"));
}

TEST_CASE("related terms leave out the query's own words, repeat none, and stop at the cap",
          "[text]") {
    auto related = relatedOf("rollback or revert the deploy", 12);
    auto terms = termsOf(related);
    CHECK_FALSE(holds(terms, "rollback"));
    CHECK_FALSE(holds(terms, "revert"));
    CHECK(holds(terms, "undo"));
    auto sorted = terms;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    CHECK(relatedOf("db cfg repo auth env prod msg err", 3).size() == 3);
    CHECK(relatedOf("the colour of the sky", 12).empty());
}

TEST_CASE("word overlap counts shared stemmed terms, and numbers and negations tell claims apart",
          "[text]") {
    CHECK(wordOverlap("Access tokens live for 15 minutes", "access token lives 15 minutes") == 1.0);
    CHECK(wordOverlap("Access tokens live for 15 minutes", "The pool holds ten connections") ==
          0.0);
    double half = wordOverlap("retries use exponential backoff", "retries are capped at five");
    CHECK(half > 0.0);
    CHECK(half < 0.5);
    CHECK(wordOverlap("", "anything") == 0.0);
    CHECK(sameNumbersAndPolarity(termSet("tokens live 15 minutes"),
                                 termSet("15 minutes is their life")));
    CHECK_FALSE(sameNumbersAndPolarity(termSet("tokens live 15 minutes"),
                                       termSet("tokens live 60 minutes")));
    CHECK_FALSE(sameNumbersAndPolarity(termSet("uses sha256"), termSet("uses the hash")));
    CHECK_FALSE(
        sameNumbersAndPolarity(termSet("callers cache it"), termSet("callers must not cache it")));
    CHECK(sameNumbersAndPolarity(termSet("never cache it"), termSet("it is never cached")));
}

} // namespace unit_RelatedTest
