// `engram check`: memory diagnostics headless, for CI (README, "CI").
//
// Prints the engine's findings as text (one `path:line:col: severity: code:
// message` line each, then a summary), as one JSON object, or as SARIF 2.1.0,
// and turns them into an exit code: 0 when no finding matches --fail-on, 1
// when one does, 2 for a usage or configuration error.
#pragma once
#include <set>
#include <string>

namespace engram {
class Engine;
}

namespace engram::cli {

struct CheckOptions {
    std::string format = "text"; // text | json | sarif
    // Comma-separated codes (engram.drifted...) and severities (error,
    // warning, information, hint: that severity and above), or "none".
    std::string failOn =
        "engram.drifted,engram.orphaned,engram.secret,engram.invalid,engram.unmerged";
    // Whether --fail-on was given. The default fails on claims' findings
    // only: an instruction file's reference (dangling, drifted, moved)
    // fails a run only when its code is named. A workspace that adopts
    // `engram check` must not fail because AGENTS.md names a function whose
    // body changed (on the instruction files of 38 public repositories,
    // none of the 11 drifts found had made its sentence wrong).
    bool failOnGiven = false;
    // A git ref: only findings about what changed since it (README, "CI").
    std::string changedSince;
    // At most this many findings are listed (0: all), like a compiler's
    // error limit: a clone with a million broken files must not print a
    // gigabyte of findings or build it in memory, and code-scanning uploads
    // are capped too. Counts, --fail-on and the exit code cover every
    // finding; the output says how many were not listed.
    int64_t maxFindings = 1000;
};

// The codes --fail-on selects. Throws UsageError naming an unknown entry.
std::set<std::string> parseFailOn(const std::string& spec);

// Computes the findings, prints them to stdout, returns the exit code.
// Throws UsageError for a bad format or --fail-on.
int runCheck(Engine& engine, const CheckOptions& opts);

} // namespace engram::cli
