// Memory diagnostics as plain data: what `engram check` reports in CI and
// what the editor will publish as diagnostics (README, "CI").
//
// A Finding is one problem with one claim (or one claim file): an anchor that
// drifted, moved or was orphaned, a claim older than stale_days, a claim file
// holding a secret, a claim file that does not parse. The engine computes them
// (Engine::findings); the CLI renders them as text, JSON or SARIF; nothing
// here knows any wire format.
#pragma once
#include "engine/Anchoring.h"
#include "model/NotJudged.h"
#include "model/Spelling.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

// A finding's severity, most severe first (as LSP numbers them, from 1).
enum class Severity { Error, Warning, Information, Hint };
template <>
struct Spelling<Severity> {
    static constexpr std::array values{
        std::pair{Severity::Error, "error"}, std::pair{Severity::Warning, "warning"},
        std::pair{Severity::Information, "information"}, std::pair{Severity::Hint, "hint"}};
};

struct Finding {
    // engram.drifted | engram.orphaned | engram.moved | engram.stale |
    // engram.secret | engram.invalid | engram.conflict | engram.unmerged |
    // engram.dangling (an instruction file's reference, on its line: no claim)
    std::string code;
    std::string severity; // error | warning | information | hint
    std::string claimId;  // empty for a broken file whose name is not a claim id
    std::string label;    // secrets redacted ("[REDACTED:<rule>]"), never echoed
    std::string tier;     // project | medulla
    // The file the finding is reported on, relative to the root: the anchored
    // source file for drifted and moved (on the symbol's current range) and
    // for orphaned with a likely successor (on the successor's), the claim
    // file (".engram/claims/<id>.md") for other orphaned, stale, secret and
    // invalid. Absolute when the file lies outside the root (medulla claims).
    std::string path;
    std::string symbol; // the anchored symbol, when the finding is about one
    // What within the claim the finding is about, so two findings of one
    // claim and code stay apart (and keep a stable identity across line
    // moves): the anchor ("src/a.py#A.f", "src/a.py:3-9", "src/a.py") for
    // anchor findings, "<field>:<rule>" for secrets, empty otherwise.
    std::string subject;
    // 0-based, end exclusive, columns in bytes. Claim-file findings: the line
    // of the problem (invalid, secret) or 0.
    TextRange range;
    // One line: what happened and what to do, then the claim's label and its
    // text (truncated, secrets redacted, never echoed).
    std::string message;
    std::string claimFile; // absolute path of the claim file
    // The text to write over `range` that fixes the finding (an instruction
    // file's moved reference: its new name); empty when there is none.
    std::string replacement;
    // Orphaned: the definition its code most likely lives on in, renamed and
    // edited ("path#Qualified", engine/Successor.h); re-verifying follows it.
    std::string successor;
};

struct FindingsOptions {
    // project (the default) | medulla | all. The medulla's claims are about
    // no particular workspace: their anchors are not checked against this
    // root (only staleness, secrets and broken files are reported for them),
    // and a workspace's check looks at its own project memory only unless
    // asked.
    std::string tier = "project";
    // Only claims with an anchor in this workspace-relative file (all of
    // their findings), or, when it names a claim file
    // (".engram/claims/<id>.md"), that claim and that file.
    std::optional<std::string> path = {};
    // Pull requests (README, "CI"): only findings about claims whose file is in
    // this set or that are anchored to a file in it (workspace-relative
    // paths, as Engine::changedSince gives them), and broken or unmerged
    // claim files in it.
    std::optional<std::set<std::string>> changed = {};
    // At most this many findings are kept, the first in findingLess order
    // (0: all); Engine::findings counts the rest.
    size_t keep = 0;
};

struct FindingsSummary {
    std::map<std::string, int64_t> byCode; // every computed code, zeros included
    // Of those, the instruction files' (no claim: a reference on its line).
    std::map<std::string, int64_t> instructionsByCode;
    // Anchors and references engram could not judge, by reason: no finding
    // says anything about them, so the summary does.
    NotJudged notJudged;
};

// One rule per diagnostic code (the table in README, "CI").
struct FindingRule {
    std::string_view code;
    std::string_view severity;
    std::string_view name; // PascalCase (SARIF reportingDescriptor.name)
    std::string_view shortDescription;
    std::string_view fullDescription;
    bool computed; // false for codes engram does not compute yet
};
const std::vector<FindingRule>& findingRules();
const FindingRule* findingRule(std::string_view code);

// error 3, warning 2, information 1, hint 0; -1 for anything else.
int severityRank(std::string_view severity);

FindingsSummary summarize(const std::vector<Finding>& findings);
void count(FindingsSummary& s, const Finding& f);

// The deterministic order: path, range, code, claim id, subject, message.
bool findingLess(const Finding& a, const Finding& b);

} // namespace engram
