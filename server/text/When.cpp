#include "text/When.h"

#include "util/Time.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <vector>

namespace engram::text {

namespace {

constexpr int64_t kDay = 86400;

struct Word {
    std::string text; // lower-case
    size_t begin = 0, end = 0;
};

// Letters and digits; a '-' between digits stays in the word, so an ISO
// date is one word.
std::vector<Word> wordsOf(std::string_view q) {
    std::vector<Word> out;
    size_t i = 0;
    auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    while (i < q.size()) {
        if (!alnum(q[i])) {
            ++i;
            continue;
        }
        Word w;
        w.begin = i;
        while (i < q.size() &&
               (alnum(q[i]) || (q[i] == '-' && i > w.begin && i + 1 < q.size() &&
                                std::isdigit(static_cast<unsigned char>(q[i - 1])) &&
                                std::isdigit(static_cast<unsigned char>(q[i + 1])))))
            w.text += char(std::tolower(static_cast<unsigned char>(q[i++])));
        w.end = i;
        out.push_back(std::move(w));
    }
    return out;
}

// Whole days since 1970-01-01 (rounded down) of a unix time, and the first
// second of a civil date: the C++ calendar, as util/Time.cpp formats dates.
int64_t dayOf(int64_t t) {
    using namespace std::chrono;
    return floor<days>(sys_seconds{seconds{t}}).time_since_epoch().count();
}

int64_t startOf(int64_t y, int m) {
    using namespace std::chrono;
    sys_days d{year{int(y)} / month{unsigned(m)} / day{1}};
    return d.time_since_epoch().count() * kDay;
}

std::optional<int> numberOf(std::string_view w) {
    static constexpr std::array<std::string_view, 13> kWords = {
        "zero",  "one",   "two",  "three", "four",   "five",  "six",
        "seven", "eight", "nine", "ten",   "eleven", "twelve"};
    for (size_t i = 1; i < kWords.size(); ++i)
        if (w == kWords[i]) return int(i);
    if (w == "a" || w == "an") return 1;
    if (w == "couple") return 2;
    if (w == "few") return 3;
    if (w == "several") return 5;
    if (w.empty() || w.size() > 3 || !std::all_of(w.begin(), w.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) != 0;
        }))
        return std::nullopt;
    int n = std::stoi(std::string(w));
    return n > 0 ? std::optional<int>(n) : std::nullopt;
}

std::optional<int64_t> unitOf(std::string_view w) {
    if (w.size() > 1 && w.ends_with('s')) w.remove_suffix(1);
    if (w == "day") return kDay;
    if (w == "week") return 7 * kDay;
    if (w == "fortnight") return 14 * kDay;
    if (w == "month") return 30 * kDay;
    if (w == "year") return 365 * kDay;
    return std::nullopt;
}

std::optional<int> monthOf(std::string_view w) {
    static constexpr std::array<std::string_view, 12> kMonths = {
        "january", "february", "march",     "april",   "may",      "june",
        "july",    "august",   "september", "october", "november", "december"};
    for (size_t i = 0; i < kMonths.size(); ++i)
        if (w == kMonths[i]) return int(i + 1);
    return std::nullopt;
}

// 0 is Monday.
std::optional<int> weekdayOf(std::string_view w) {
    static constexpr std::array<std::string_view, 7> kDays = {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};
    for (size_t i = 0; i < kDays.size(); ++i)
        if (w == kDays[i] ||
            (w.size() == kDays[i].size() + 1 && w.starts_with(kDays[i]) && w.back() == 's'))
            return int(i);
    return std::nullopt;
}

std::optional<int> yearOf(std::string_view w) {
    if (w.size() != 4 || !std::all_of(w.begin(), w.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) != 0;
        }))
        return std::nullopt;
    int y = std::stoi(std::string(w));
    return y >= 1970 && y <= 2200 ? std::optional<int>(y) : std::nullopt;
}

// A span or a moment, before a preposition bends it.
struct Reading {
    int64_t from = 0, to = 0;
    std::optional<int64_t> point;
    size_t last = 0; // index of its last word
};

class Reader {
public:
    Reader(const std::vector<Word>& words, int64_t now)
        : w_(words)
        , now_(now)
        , today_(dayOf(now) * kDay) {}

    std::optional<When> at(size_t i) const {
        size_t j = i;
        std::string_view prep;
        static constexpr std::array<std::string_view, 11> kPreps = {
            "in",    "during", "over", "within", "since", "before",
            "after", "until",  "on",   "from",   "for"};
        if (std::find(kPreps.begin(), kPreps.end(), word(j)) != kPreps.end()) prep = word(j++);
        if (word(j) == "the") ++j;
        auto r = reading(j, !prep.empty());
        // "the last day of the month", "the last week of the sprint": a
        // part of something else, not a date.
        if (!r || word(r->last + 1) == "of") return std::nullopt;
        When out;
        out.from = r->from;
        out.to = r->to;
        out.point = r->point;
        // Bent by a preposition, a moment is its own bound ("since two
        // weeks ago"), a span its start, or its end after "after".
        if (prep == "since" || prep == "from" || prep == "after") {
            out.from = r->point ? *r->point : prep == "after" ? r->to : r->from;
            out.to = now_ + 1;
            out.point.reset();
        } else if (prep == "before" || prep == "until") {
            out.to = r->point ? *r->point : r->from;
            out.from = 0;
            out.point.reset();
        }
        if (out.to <= out.from) return std::nullopt;
        out.begin = w_[i].begin;
        out.end = w_[r->last].end;
        return out;
    }

private:
    std::string_view word(size_t i) const {
        return i < w_.size() ? std::string_view(w_[i].text) : std::string_view();
    }

    // Up to now: a span that reaches the present.
    Reading recent(int64_t length, size_t last) const {
        return {std::max<int64_t>(0, now_ - length), now_ + 1, std::nullopt, last};
    }

    Reading day(int64_t start, size_t last) const {
        return {start, start + kDay, std::nullopt, last};
    }

    // The most recent `weekday` on or before today (strictly before with
    // `strictly`: "last Monday" said on a Monday is a week back).
    int64_t lastWeekday(int weekday, bool strictly) const {
        const std::chrono::sys_days today{std::chrono::days{dayOf(today_)}};
        int64_t todayIs = int64_t(std::chrono::weekday{today}.iso_encoding()) - 1; // Monday 0
        int64_t back = (todayIs - weekday + 7) % 7;
        if (back == 0 && strictly) back = 7;
        return today_ - back * kDay;
    }

    std::optional<Reading> reading(size_t j, bool hasPrep) const {
        std::string_view w = word(j);
        if (w.empty()) return std::nullopt;
        if (w == "today" || w == "tonight") return recent(now_ - today_, j);
        if (w == "yesterday") return day(today_ - kDay, j);
        if (w == "recently" || w == "lately" || w == "recent") return recent(14 * kDay, j);
        if (w == "this") {
            std::string_view next = word(j + 1);
            if (next == "morning" || next == "afternoon" || next == "evening")
                return recent(now_ - today_, j + 1);
            if (next == "week") return recent(7 * kDay, j + 1);
            if (next == "month") return recent(31 * kDay, j + 1);
            if (next == "year") return recent(366 * kDay, j + 1);
            return std::nullopt;
        }
        if (w == "last" || w == "past" || w == "previous") {
            std::string_view next = word(j + 1);
            if (auto u = unitOf(next))
                // "the past week" is seven days; "last week" may be the
                // calendar week before this one, reaching 13 days back.
                return recent((w == "past" ? 1 : 2) * *u, j + 1);
            if (auto wd = weekdayOf(next); wd && w == "last")
                return day(lastWeekday(*wd, true), j + 1);
            if (auto n = count(j + 1))
                if (auto u = unitOf(word(n->second + 1)))
                    return recent(n->first * *u, n->second + 1);
            return std::nullopt;
        }
        // "two weeks ago", "a couple of months ago", "3 days ago".
        if (auto n = count(j)) {
            size_t k = n->second + 1;
            auto u = unitOf(word(k));
            if (u && word(k + 1) == "ago") {
                int64_t point = now_ - n->first * *u;
                return Reading{std::max<int64_t>(0, point - *u), std::min(now_ + 1, point + *u),
                               point, k + 1};
            }
        }
        if (auto d = w.size() == 10 ? parseUtc(w) : std::nullopt) return day(*d, j);
        if (auto m = monthOf(w)) {
            auto y = yearOf(word(j + 1));
            if (!hasPrep && !y) return std::nullopt; // "may" alone is a verb
            const std::chrono::year_month_day now{
                std::chrono::sys_days{std::chrono::days{dayOf(now_)}}};
            const int thisYear = int(now.year());
            const int64_t y0 =
                y ? *y : (unsigned(*m) <= unsigned(now.month()) ? thisYear : thisYear - 1);
            int64_t start = startOf(y0, *m);
            int64_t end = *m == 12 ? startOf(y0 + 1, 1) : startOf(y0, *m + 1);
            return Reading{start, end, std::nullopt, y ? j + 1 : j};
        }
        if (auto wd = weekdayOf(w); wd && hasPrep) return day(lastWeekday(*wd, false), j);
        return std::nullopt;
    }

    // A count and the index of its last word ("a couple of" is three).
    std::optional<std::pair<int64_t, size_t>> count(size_t j) const {
        std::string_view w = word(j);
        if ((w == "a" || w == "an") && (word(j + 1) == "couple" || word(j + 1) == "few")) ++j;
        auto n = numberOf(word(j));
        if (!n) return std::nullopt;
        if (word(j) == "couple" && word(j + 1) == "of") ++j;
        return std::pair<int64_t, size_t>{*n, j};
    }

    const std::vector<Word>& w_;
    int64_t now_, today_;
};

} // namespace

std::optional<When> readWhen(std::string_view query, int64_t now) {
    auto words = wordsOf(query);
    Reader reader(words, now);
    for (size_t i = 0; i < words.size(); ++i)
        if (auto when = reader.at(i)) {
            when->phrase = std::string(query.substr(when->begin, when->end - when->begin));
            return when;
        }
    return std::nullopt;
}

std::optional<EventBound> readEventBound(std::string_view query) {
    static constexpr std::array<std::string_view, 10> kLead = {"the",  "our", "a",    "an", "that",
                                                               "this", "we",  "they", "it", "its"};
    static constexpr std::array<std::string_view, 16> kStop = {
        "and", "or",      "but", "when", "where", "which", "who", "what",
        "so",  "because", "if",  "is",   "was",   "were",  "did", "do"};
    static constexpr std::array<std::string_view, 8> kNothing = {"then", "that",  "it",   "this",
                                                                 "now",  "today", "ever", "all"};
    auto in = [](auto& set, std::string_view w) {
        return std::find(set.begin(), set.end(), w) != set.end();
    };
    constexpr size_t kMostWords = 5;
    auto words = wordsOf(query);
    for (size_t i = 0; i + 1 < words.size(); ++i) {
        const std::string& w = words[i].text;
        if (w != "before" && w != "after" && w != "since" && w != "until" && w != "till") continue;
        size_t j = i + 1;
        while (j < words.size() && in(kLead, words[j].text))
            ++j;
        size_t k = j;
        while (k < words.size() && k - j < kMostWords && !in(kStop, words[k].text)) {
            // Punctuation between two words ends the phrase, but not the
            // ':' or '.' inside a time or a version ("02:00", "1.4").
            std::string_view gap =
                query.substr(words[k - 1].end, words[k].begin - words[k - 1].end);
            bool inNumber = gap.size() == 1 && (gap[0] == ':' || gap[0] == '.') &&
                            std::isdigit(static_cast<unsigned char>(query[words[k - 1].end - 1])) &&
                            std::isdigit(static_cast<unsigned char>(query[words[k].begin]));
            if (k > j && !inNumber && gap.find_first_of(",;:.?!()") != std::string_view::npos)
                break;
            ++k;
        }
        if (k == j) continue;
        bool names = false;
        for (size_t m = j; m < k; ++m)
            names = names || !in(kNothing, words[m].text);
        if (!names) continue;
        EventBound e;
        e.before = w == "before" || w == "until" || w == "till";
        e.begin = words[i].begin;
        e.end = words[k - 1].end;
        e.event = std::string(query.substr(words[j].begin, words[k - 1].end - words[j].begin));
        e.phrase = std::string(query.substr(e.begin, e.end - e.begin));
        return e;
    }
    return std::nullopt;
}

std::string withoutWhen(std::string_view query, const When& when) {
    std::string out(query);
    for (size_t i = when.begin; i < when.end && i < out.size(); ++i)
        out[i] = ' ';
    return out;
}

} // namespace engram::text
