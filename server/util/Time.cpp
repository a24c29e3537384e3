// UTC formatting and parsing without the C locale machinery, so results do not
// depend on the process's TZ or locale.
#include "util/Time.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace engram {

int64_t nowUnix() {
    using namespace std::chrono;
    return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

// Days from civil date, the proleptic Gregorian algorithm.
static int64_t daysFromCivil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

std::string formatUtc(int64_t t) {
    using namespace std::chrono;
    sys_seconds tp{seconds{t}};
    auto dp = floor<days>(tp);
    year_month_day ymd{dp};
    hh_mm_ss hms{tp - dp};
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", int(ymd.year()),
                  unsigned(ymd.month()), unsigned(ymd.day()), int(hms.hours().count()),
                  int(hms.minutes().count()), int(hms.seconds().count()));
    return buf;
}

static bool digits(std::string_view s, size_t at, size_t n, int& out) {
    if (at + n > s.size()) return false;
    out = 0;
    for (size_t i = at; i < at + n; ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        out = out * 10 + (s[i] - '0');
    }
    return true;
}

std::optional<int64_t> parseUtc(std::string_view s) {
    int y, mo, d, h = 0, mi = 0, se = 0;
    if (!digits(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !digits(s, 5, 2, mo) ||
        s[7] != '-' || !digits(s, 8, 2, d))
        return std::nullopt;
    if (s.size() != 10) {
        if (s.size() != 20 || s[10] != 'T' || !digits(s, 11, 2, h) || s[13] != ':' ||
            !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, se) || s[19] != 'Z')
            return std::nullopt;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
    return daysFromCivil(y, unsigned(mo), unsigned(d)) * 86400 + h * 3600 + mi * 60 + se;
}

std::string agoText(std::optional<int64_t> then) {
    if (!then) return "never";
    std::string age = humanAge(std::max<int64_t>(0, nowUnix() - *then));
    return age == "just now" ? age : age + " ago";
}

std::string humanAge(int64_t s) {
    if (s < 0) s = 0;
    auto unit = [](int64_t n, const char* one) {
        return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
    };
    if (s < 60) return "just now";
    if (s < 3600) return unit(s / 60, "minute");
    if (s < 86400) return unit(s / 3600, "hour");
    if (s < 86400 * 60) return unit(s / 86400, "day");
    if (s < 86400 * 730) return unit(s / (86400 * 30), "month");
    return unit(s / (86400 * 365), "year");
}

std::string isoWeek(int64_t unixSeconds) {
    std::time_t t = std::time_t(unixSeconds);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%G-W%V", &tm);
    return buf;
}

} // namespace engram
