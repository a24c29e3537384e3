// store.conf: the store's committed settings, `key: value` per line.
//
//   name: payments          the store's name (stable across clones)
//   language: .h cpp        an extension read with another grammar ("none": no grammar)
//   instructions: docs/agents/*.md   more instruction files (ARCHITECTURE.md, "Instruction files"),
//   globs stale_days: 90          a claim not re-verified for longer is stale (default 30)
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
    std::vector<std::string> errors;           // "store.conf line 3: expected 'key: value'"
};

// More than this is not read (the rest is reported): the settings fit in a
// few lines, and a hostile clone must not make every start-up read a huge file.
inline constexpr size_t kMaxStoreConfigBytes = 64 * 1024;

// A century: beyond it "stale" means nothing, and the day count times a
// day's seconds stays far inside 64 bits.
inline constexpr int kMaxStaleDays = 36500;

StoreConfig parseStoreConfig(std::string_view text);

} // namespace engram
