// The contradiction rules (engine/Modality.h) measured on the labelled set
// fixtures/contradictions/pairs.tsv: every rule kept must reach precision
// 0.95 on the development and on the held-out part, firing often enough for
// that to mean something; recall is printed, not asserted.
#include "engine/ContradictionScore.h"
#include "engine/Modality.h"
#include "support/LanguageCases.h"

#include <catch2/catch.hpp>
#include <iostream>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_ContradictionTest {

using namespace engram;

namespace {

constexpr double kMinPrecision = 0.95;
// Below this many firings on a part a rule's precision says little.
constexpr size_t kMinFired = 10;

std::vector<LabelledPair> labelledSet() {
    return parseLabelledPairs(test::readFixture(test::fixturesDir() + "/contradictions/pairs.tsv"));
}

} // namespace

TEST_CASE("the labelled set is large, balanced enough and has a held-out part", "[contradiction]") {
    auto pairs = labelledSet();
    CHECK(pairs.size() >= 300);
    std::set<int> ids;
    size_t held = 0, contradict = 0;
    std::set<std::string> categories;
    for (auto& p : pairs) {
        CHECK(ids.insert(p.id).second);
        held += p.held;
        contradict += p.contradict;
        categories.insert(p.category);
    }
    CHECK(held * 4 >= pairs.size());       // a quarter or more held out
    CHECK(contradict * 4 >= pairs.size()); // both labels well represented
    CHECK((pairs.size() - contradict) * 4 >= pairs.size());
    for (auto c : {"number", "units", "line-numbers", "versions", "dates", "ids", "modality",
                   "returns-raises", "paraphrase", "different-subject", "negation-different"})
        CHECK(categories.count(c));
}

TEST_CASE("each contradiction rule keeps precision 0.95 on the labelled set", "[contradiction]") {
    auto scores = scoreRules(labelledSet());
    std::cout << "contradiction rules on fixtures/contradictions/pairs.tsv\n"
              << scoreTable(scores) << std::flush;
    std::vector<std::string> rules;
    for (auto& r : contradictionRules())
        rules.emplace_back(r.name);
    rules.emplace_back("all");
    for (auto& rule : rules)
        for (auto part : {"dev", "held"}) {
            const RuleScore* s = findScore(scores, rule, part);
            REQUIRE(s);
            INFO(rule << " on " << part << ": fired " << s->fired << ", wrong on pairs "
                      << ::Catch::Detail::stringify(s->wrong));
            CHECK(s->fired >= kMinFired);
            CHECK(s->precision() >= kMinPrecision);
        }
}

TEST_CASE("a malformed line of the set is refused with its line and field", "[contradiction]") {
    CHECK_THROWS_WITH(parseLabelledPairs("# c\n1\tdev\tcontradict\tnumber\ta\n"),
                      Catch::Contains("line 2") && Catch::Contains("6 tab-separated fields"));
    CHECK_THROWS_WITH(parseLabelledPairs("x\tdev\tcontradict\tnumber\ta\tb\n"),
                      Catch::Contains("line 1: id"));
    CHECK_THROWS_WITH(parseLabelledPairs("1\ttrain\tcontradict\tnumber\ta\tb\n"),
                      Catch::Contains("part"));
    CHECK_THROWS_WITH(parseLabelledPairs("1\tdev\tmaybe\tnumber\ta\tb\n"),
                      Catch::Contains("label"));
    CHECK(parseLabelledPairs("\n# only comments\n").empty());
}

TEST_CASE("numbers clash only as one quantity given two values", "[contradiction]") {
    auto m = numberClash("timeout defaults to 30 s", "the default timeout is 60 seconds");
    REQUIRE(m);
    CHECK(m->rule == "number");
    CHECK(m->positive == "timeout defaults to 30 s");
    CHECK(m->negative == "default timeout is 60 seconds");
    CHECK(numberClash("retries are 3", "retries are 5"));
    CHECK(numberClash("the key is 32 bytes", "the key is 128 bits"));
    // One value in two units; a count per call is another quantity.
    CHECK_FALSE(numberClash("the timeout is 30 s", "the timeout is 30000 ms"));
    CHECK_FALSE(numberClash("the upload limit is 10 MB", "the upload limit is 10240 KB"));
    CHECK_FALSE(numberClash("retries are 3", "retries are 5 per call"));
    CHECK_FALSE(numberClash("the timeout is 30 s in production", "the timeout is 5 s in tests"));
    // Ids, line numbers, versions, dates and ordinals are not quantities.
    CHECK_FALSE(contradicts("claim 13 about `Gson.toJson` in Gson.java",
                            "claim 14 about `Gson.toJson` in Gson.java"));
    CHECK_FALSE(contradicts("the loop at line 12 walks every header",
                            "the early return at line 31 skips empty bodies"));
    CHECK_FALSE(contradicts("since release 1.4", "deprecated in release 2.0"));
    CHECK_FALSE(contradicts("step 2 validates the token", "step 3 refreshes the session"));
    CHECK_FALSE(contradicts("fixed in PR #123", "regressed in PR #140"));
    CHECK_FALSE(contradicts("Gson.java:412 calls `toJson`", "Gson.java:455 calls `toJson`"));
    // Changes, estimates and guesses are not values.
    CHECK_FALSE(numberClash("the timeout went from 30 s to 60 s", "the timeout is 30 s"));
    CHECK_FALSE(numberClash("the timeout is about 30 s", "the timeout is 35 s"));
    CHECK_FALSE(numberClash("is the timeout 30 s?", "the timeout is 60 s"));
}

TEST_CASE("modality needs the same statement with opposite polarity", "[contradiction]") {
    auto m = contradiction("`Cache.get` is thread-safe", "`Cache.get` is not thread-safe");
    REQUIRE(m);
    CHECK(m->rule == "modality");
    CHECK(m->positive == "is thread-safe");
    CHECK(m->negative == "is not thread-safe");
    CHECK(contradiction("must hold the lock", "must not hold the lock"));
    CHECK(contradiction("`parse` blocks the event loop", "`parse` does not block the event loop"));
    CHECK(contradiction("the constructor can throw", "the constructor never throws"));
    CHECK(contradiction("the list may be modified", "the list must not be modified"));
    CHECK(contradiction("the stream must be closed", "the stream does not need to be closed"));
    // Different things denied and affirmed.
    CHECK_FALSE(contradiction("does not retry on 4xx", "retries on 5xx"));
    CHECK_FALSE(contradiction("`Cache.get` is thread-safe", "`Cache.put` is not thread-safe"));
    CHECK_FALSE(
        contradiction("in Python 2 the result is a list", "in Python 3, the result is not a list"));
    CHECK_FALSE(contradiction("the result is not cached when the key is empty",
                              "the result is cached when the key is set"));
    // Two prohibitions agree; a permission does not oppose a denied fact.
    CHECK_FALSE(contradiction("handlers must never block", "handlers must not block"));
    CHECK_FALSE(contradiction("the iterator can be reused", "the iterator is not reused"));
    // A question or a guess states nothing.
    CHECK_FALSE(contradiction("is `get` thread-safe?", "`get` is not thread-safe"));
    CHECK_FALSE(contradiction("`get` might not be thread-safe", "`get` is thread-safe"));
}

TEST_CASE("outcomes clash under the same condition only", "[contradiction]") {
    auto m = outcomeClash("returns None when the key is missing",
                          "raises KeyError when the key is missing");
    REQUIRE(m);
    CHECK(m->rule == "outcome");
    CHECK(m->positive == "returns none when the key is missing");
    CHECK(outcomeClash("returns None when missing", "returns an empty string when missing"));
    CHECK(outcomeClash("`Queue.get` returns at once when empty", "`Queue.get` blocks when empty"));
    CHECK_FALSE(outcomeClash("returns None when the key is missing",
                             "raises TypeError when the key is not a string"));
    CHECK_FALSE(outcomeClash("returns None when missing", "returns None if the key is missing"));
    CHECK_FALSE(outcomeClash("returns a copy", "raises if the input is frozen"));
}

TEST_CASE("contradicts tries every kept rule and names the one that fired", "[contradiction]") {
    CHECK(contradicts("must check ok", "must not check ok")->rule == "modality");
    CHECK(contradicts("retries are 3", "retries are 5")->rule == "number");
    CHECK(contradicts("returns 0 on error", "raises on error")->rule == "outcome");
    CHECK_FALSE(contradicts("", ""));
    std::set<std::string> names;
    for (auto& r : contradictionRules())
        names.insert(std::string(r.name));
    CHECK(names == std::set<std::string>{"modality", "number", "outcome"});
}

} // namespace unit_ContradictionTest
