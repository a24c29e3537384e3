// Wall-clock time as engram stores it: UTC, whole seconds, ISO 8601.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace engram {

int64_t nowUnix();
// "2026-11-21T22:34:41Z"
std::string formatUtc(int64_t unixSeconds);
// Accepts "YYYY-MM-DDTHH:MM:SSZ" (and a date alone); nullopt otherwise.
std::optional<int64_t> parseUtc(std::string_view s);
// "2026-W47": the ISO 8601 week (Monday first; week 1 holds the year's
// first Thursday) of a UTC time.
std::string isoWeek(int64_t unixSeconds);
// "3 days", "5 hours", "just now": ages shown to people and agents.
std::string humanAge(int64_t seconds);
// How long ago a UTC time was, as people say it: "3 hours ago", "just
// now"; "never" when there is no time.
std::string agoText(std::optional<int64_t> unixSeconds);

} // namespace engram
