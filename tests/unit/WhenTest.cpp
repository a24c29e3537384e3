// Dates in a query (server/text/When.h), read against a fixed moment: a
// Saturday, 2026-11-28 10:00 UTC.
#include "text/When.h"
#include "util/Time.h"

#include <catch2/catch.hpp>

#include <string>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_WhenTest {

using namespace engram;

namespace {

constexpr int64_t kDay = 86400;

int64_t at(const char* utc) {
    auto t = parseUtc(utc);
    REQUIRE(t);
    return *t;
}

const int64_t kNow = parseUtc("2026-11-28T10:00:00Z").value();

text::When read(const std::string& q) {
    auto w = text::readWhen(q, kNow);
    INFO(q);
    REQUIRE(w);
    return *w;
}

} // namespace

TEST_CASE("spans that reach the present", "[when]") {
    auto today = read("what was added today");
    CHECK(today.from == at("2026-11-28T00:00:00Z"));
    CHECK(today.to == kNow + 1);
    CHECK(today.phrase == "today");
    CHECK_FALSE(today.point);
    CHECK(read("what broke this morning").from == at("2026-11-28T00:00:00Z"));
    CHECK(read("what did we decide this week").from == kNow - 7 * kDay);
    // "last week" may be the calendar week before this one: 14 days reach it
    // from any day of the week.
    CHECK(read("what happened last week").from == kNow - 14 * kDay);
    CHECK(read("over the past week").from == kNow - 7 * kDay);
    auto two = read("which decisions did we take in the last two months");
    CHECK(two.from == kNow - 60 * kDay);
    CHECK(two.phrase == "in the last two months");
    CHECK(read("changes in the past 3 days").from == kNow - 3 * kDay);
    CHECK(read("anything new in the last few days").from == kNow - 3 * kDay);
    CHECK(read("what did we agree on recently").from == kNow - 14 * kDay);
}

TEST_CASE("days and moments", "[when]") {
    auto y = read("what changed yesterday in CI");
    CHECK(y.from == at("2026-11-27T00:00:00Z"));
    CHECK(y.to == at("2026-11-28T00:00:00Z"));
    auto ago = read("what went wrong two weeks ago");
    REQUIRE(ago.point);
    CHECK(*ago.point == kNow - 14 * kDay);
    CHECK(ago.from == kNow - 21 * kDay);
    CHECK(ago.to == kNow - 7 * kDay);
    CHECK(ago.phrase == "two weeks ago");
    CHECK(*read("which endpoint did we deprecate a couple of months ago").point ==
          kNow - 60 * kDay);
    CHECK(*read("the fix from 3 days ago").point == kNow - 3 * kDay);
    // 2026-11-28 is a Saturday: the last Monday was the 23rd, and "last
    // Saturday" a week back.
    CHECK(read("what did we merge on Monday").from == at("2026-11-23T00:00:00Z"));
    CHECK(read("since last saturday").from == at("2026-11-21T00:00:00Z"));
    CHECK(read("the notes of 2026-11-20").from == at("2026-11-20T00:00:00Z"));
}

TEST_CASE("months, dates and prepositions", "[when]") {
    auto march = read("what did we decide in March");
    CHECK(march.from == at("2026-03-01T00:00:00Z"));
    CHECK(march.to == at("2026-04-01T00:00:00Z"));
    // A month still to come this year is last year's.
    auto dec = read("the freeze in december");
    CHECK(dec.from == at("2025-12-01T00:00:00Z"));
    CHECK(dec.to == at("2026-01-01T00:00:00Z"));
    CHECK(read("what changed in May 2024").from == at("2024-05-01T00:00:00Z"));
    auto since = read("everything since 2026-11-01");
    CHECK(since.from == at("2026-11-01T00:00:00Z"));
    CHECK(since.to == kNow + 1);
    auto before = read("what was true before March");
    CHECK(before.from == 0);
    CHECK(before.to == at("2026-03-01T00:00:00Z"));
    CHECK(read("anything after yesterday").from == at("2026-11-28T00:00:00Z"));
    // A moment bounds a span at itself, not at the edge of its window.
    CHECK(read("since two weeks ago").from == kNow - 14 * kDay);
    CHECK(read("what held before 3 days ago").to == kNow - 3 * kDay);
}

TEST_CASE("words that name no time are left alone", "[when]") {
    for (const char* q :
         {"the cache may expire early", "retry the last request", "march through the list",
          "this function is slow", "the week column of the report", "a few retries",
          "since the retry", "two weeks", "monday", "in 2026-13-45", "on the last day of the month",
          "keep logs for 3 days", "tokens expire after 30 days", "the may release"})
        CHECK_FALSE(text::readWhen(q, kNow));
}

TEST_CASE("the phrase is taken out of the query's words", "[when]") {
    std::string q = "what happened to the database last week?";
    auto w = read(q);
    CHECK(w.phrase == "last week");
    CHECK(text::withoutWhen(q, w) == "what happened to the database          ?");
}

TEST_CASE("an event named where a date would be is read as its words", "[when]") {
    auto event = [](const std::string& q) {
        auto e = text::readEventBound(q);
        INFO(q);
        REQUIRE(e);
        return *e;
    };
    auto since = event("what changed since the postgres upgrade");
    CHECK_FALSE(since.before);
    CHECK(since.event == "postgres upgrade");
    CHECK(since.phrase == "since the postgres upgrade");
    auto before = event("Before the webhook incident, what did we decide?");
    CHECK(before.before);
    CHECK(before.event == "webhook incident"); // punctuation ends it
    CHECK(event("anything new after we moved to Postmark and why").event == "moved to Postmark");
    CHECK(event("what was true until the beta ends").before);
    // A time or a version is one thing, not the end of the phrase.
    CHECK(event("what changed since the move to 02:00").event == "move to 02:00");
    CHECK(event("anything new since release 1.4?").event == "release 1.4");
    // At most five words.
    CHECK(event("since the move of the nightly export job to the slow queue").event ==
          "move of the nightly export");
    // Nothing named.
    for (const char* q : {"what changed since then", "and after that", "before it", "since",
                          "the cache is cleared before", "what did we decide"})
        CHECK_FALSE(text::readEventBound(q));
}

} // namespace unit_WhenTest
