// Dates in a query, as people word them: "last week", "yesterday", "two
// weeks ago", "in March", "since 2026-11-01", "on Monday". Recall reads the
// first such phrase as a window of time (UTC) to rank claims written in it
// first, or, when nothing specific is left of the query, to list them
// (engine/Recall.cpp).
//
// Windows are rolling and generous, and never hang on the day of the week:
// "this week" is the last 7 days; "last week" the last 14 (it may mean the
// past seven days or the calendar week before this one, and on a Saturday
// the earliest day of that is 13 days back); "N weeks ago" a week either
// side of N weeks back. A month is 30 days. A month name is its most
// recent occurrence not in the future, and needs a preposition or a year
// beside it ("in May", "May 2026"): "may" alone is a modal verb.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace engram::text {

struct When {
    int64_t from = 0, to = 0; // unix seconds, [from, to)
    // A moment the phrase names ("two weeks ago"): claims closer to it rank
    // first. Without one (a span: "last week"), the newest rank first.
    std::optional<int64_t> point;
    // The phrase's bytes in the query (taken out of its words) and its
    // spelling there.
    size_t begin = 0, end = 0;
    std::string phrase;
};

// The first date phrase of `query`, read against `now` (unix seconds);
// nullopt when it names none.
std::optional<When> readWhen(std::string_view query, int64_t now);

// The query with the phrase's bytes blanked (its other words unchanged).
std::string withoutWhen(std::string_view query, const When& when);

// An event named where a date would be: "since the postgres upgrade",
// "before the webhook incident", "after we moved to Postmark". Only memory
// knows when that was: recall finds the claim naming the event and reads
// its date as the bound (engine/Recall.cpp), so the phrase is read here as
// words alone. A few words after "before", "after", "since" or "until"
// (and "the", "our", "we"...), up to punctuation or a word that starts
// another clause ("and", "when", "where"...); none when they name nothing
// ("since then", "after that").
struct EventBound {
    bool before = false;       // before the event ("until" too), else after it
    std::string event;         // its words as the query has them: "postgres upgrade"
    size_t begin = 0, end = 0; // the whole phrase's bytes in the query
    std::string phrase;        // "since the postgres upgrade"
};
std::optional<EventBound> readEventBound(std::string_view query);

} // namespace engram::text
