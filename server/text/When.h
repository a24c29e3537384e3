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

} // namespace engram::text
