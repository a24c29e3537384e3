// store.conf: the store's committed settings, `key: value` per line.
//
//   name: payments          the store's name (stable across clones)
//   language: .h cpp        an extension read with another grammar ("none": no grammar)
//   instructions: docs/agents/*.md   more instruction files (ARCHITECTURE.md, "Instruction files"),
//   globs stale_days: 90          a claim not re-verified for longer is stale (default 30)
//   teams: platform, billing      the team stores this repository reads (engram team add)
//   sync_minutes: 30              a server fetches its git-backed stores this often (off)
//
// `#` starts a comment line; unknown keys are ignored (a newer engram's
// settings must not break an older one). A cloned repository can carry any
// bytes here, so parsing is a pure function of the text: every problem is
// reported by line and the rest of the file still applies.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engram {

struct StoreConfig {
    std::optional<std::string> name;
    std::vector<std::pair<std::string, std::string>> languageMap; // ".h" -> "cpp"; "" = none
    std::vector<std::string> instructionGlobs; // instructions/References.h globMatches
    std::optional<int> staleDays;              // 1 to kMaxStaleDays
    std::vector<std::string> teams;            // validTeamName, each once, in order
    std::optional<int> syncMinutes;            // 1 to kMaxSyncMinutes
    std::vector<std::string> errors;           // "store.conf line 3: expected 'key: value'"
};

// More than this is not read (the rest is reported): the settings fit in a
// few lines, and a hostile clone must not make every start-up read a huge file.
inline constexpr size_t kMaxStoreConfigBytes = 64 * 1024;

// A century: beyond it "stale" means nothing, and the day count times a
// day's seconds stays far inside 64 bits.
inline constexpr int kMaxStaleDays = 36500;

// A day: a longer interval is no background sync at all.
inline constexpr int kMaxSyncMinutes = 1440;

// A team store's name: it is a directory under $ENGRAM_HOME/teams and the
// `team:NAME` of a tier, so lower-case letters, digits, '-' and '_', starting
// with a letter or digit, at most 40 bytes.
bool validTeamName(std::string_view name);

StoreConfig parseStoreConfig(std::string_view text);

} // namespace engram
