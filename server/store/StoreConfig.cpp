#include "store/StoreConfig.h"

#include "util/Utf8.h"

#include <algorithm>

namespace engram {

namespace {

std::string_view trimBlank(std::string_view v) {
    size_t b = v.find_first_not_of(" \t");
    if (b == std::string_view::npos) return {};
    size_t e = v.find_last_not_of(" \t\r");
    return v.substr(b, e - b + 1);
}

// A whole number from 1 to `max` written in at most 5 digits.
std::optional<int> boundedNumber(std::string_view value, int max) {
    if (value.empty() || value.size() > 5 ||
        value.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
    int n = 0;
    for (char c : value)
        n = n * 10 + (c - '0');
    if (n < 1 || n > max) return std::nullopt;
    return n;
}

// Calls `each` with every word of `value` split at any of `separators`;
// false when there was none.
template <class Each>
bool forEachWord(std::string_view value, const char* separators, Each each) {
    bool any = false;
    size_t at = 0;
    while (at < value.size()) {
        size_t end = value.find_first_of(separators, at);
        if (end == std::string_view::npos) end = value.size();
        std::string_view word = value.substr(at, end - at);
        at = end + 1;
        if (word.empty()) continue;
        any = true;
        each(word);
    }
    return any;
}

} // namespace

bool validTeamName(std::string_view name) {
    if (name.empty() || name.size() > 40) return false;
    for (size_t i = 0; i < name.size(); ++i) {
        char c = name[i];
        bool ok =
            (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (i > 0 && (c == '-' || c == '_'));
        if (!ok) return false;
    }
    return true;
}

StoreConfig parseStoreConfig(std::string_view text) {
    StoreConfig conf;
    auto problem = [&](int line, const std::string& what) {
        conf.errors.push_back("store.conf line " + std::to_string(line) + ": " + what);
    };
    if (text.size() > kMaxStoreConfigBytes) {
        conf.errors.push_back("store.conf is larger than " +
                              std::to_string(kMaxStoreConfigBytes / 1024) +
                              " KiB; only its beginning is read");
        text = text.substr(0, kMaxStoreConfigBytes);
    }
    int line = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view l = trimBlank(text.substr(pos, nl - pos));
        pos = nl + 1;
        ++line;
        if (l.empty() || l[0] == '#') continue;
        if (firstInvalidUtf8(l)) {
            problem(line, "not valid UTF-8");
            continue;
        }
        auto colon = l.find(':');
        if (colon == std::string_view::npos) {
            problem(line, "expected 'key: value'");
            continue;
        }
        std::string_view key = trimBlank(l.substr(0, colon)),
                         value = trimBlank(l.substr(colon + 1));
        if (key == "name") {
            if (value.empty())
                problem(line, "the name is empty");
            else
                conf.name = std::string(value);
        } else if (key == "language") {
            auto sp = value.find_first_of(" \t");
            std::string_view ext = value.substr(0, sp);
            std::string_view lang = sp == std::string_view::npos ? "" : trimBlank(value.substr(sp));
            if (ext.size() < 2 || ext[0] != '.' || lang.empty())
                problem(line, "expected 'language: .ext NAME' (or NAME 'none')");
            else
                conf.languageMap.emplace_back(ext, lang == "none" ? "" : std::string(lang));
        } else if (key == "instructions") {
            // Globs of more instruction files, blank-separated.
            bool any = forEachWord(value, " \t", [&](std::string_view glob) {
                if (glob.starts_with('/') || glob.find("..") != std::string_view::npos)
                    problem(line, "instructions: '" + std::string(glob) +
                                      "' must be a glob relative to the workspace root");
                else
                    conf.instructionGlobs.emplace_back(glob);
            });
            if (!any) problem(line, "expected 'instructions: GLOB...'");
        } else if (key == "stale_days") {
            if (auto days = boundedNumber(value, kMaxStaleDays))
                conf.staleDays = *days;
            else
                problem(line, "stale_days: expected a whole number of days from 1 to " +
                                  std::to_string(kMaxStaleDays) + ", got '" +
                                  std::string(value.substr(0, 40)) + "'");
        } else if (key == "sync_minutes") {
            if (auto minutes = boundedNumber(value, kMaxSyncMinutes))
                conf.syncMinutes = *minutes;
            else
                problem(line, "sync_minutes: expected a whole number of minutes from 1 to " +
                                  std::to_string(kMaxSyncMinutes) + ", got '" +
                                  std::string(value.substr(0, 40)) + "'");
        } else if (key == "teams") {
            // Names separated by commas or blanks; each names a directory
            // under $ENGRAM_HOME/teams, so nothing else is taken.
            bool any = forEachWord(value, ", \t", [&](std::string_view team) {
                if (!validTeamName(team))
                    problem(line, "teams: '" + std::string(team.substr(0, 40)) +
                                      "' is not a team name (lower-case letters, digits, '-' "
                                      "and '_', at most 40)");
                else if (std::find(conf.teams.begin(), conf.teams.end(), team) == conf.teams.end())
                    conf.teams.emplace_back(team);
            });
            if (!any) problem(line, "expected 'teams: NAME, ...'");
        }
    }
    return conf;
}

} // namespace engram
