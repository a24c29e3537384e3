// Requests and results of the engine's operations, as plain structs.
//
// protocol/ converts these from and to JSON; the CLI builds them from flags.
// Nothing here knows about either.
#pragma once
#include "model/Claim.h"
#include "model/Envelope.h"

#include <optional>
#include <string>
#include <vector>

namespace engram {

// Where a claim should point, as a caller names it. Resolved against the
// root by engine/Anchoring into an Anchor with a content hash.
struct AnchorSpec {
    std::string path = {};
    std::optional<std::string> symbol = {};
    std::optional<int> line = {};   // innermost definition around it (1-based)
    std::optional<int> column = {}; // 0-based, in UTF-16 code units (an LSP position)
    std::optional<std::pair<int, int>> lines = {}; // a 1-based inclusive line range
};

struct RememberRequest {
    std::string text;
    std::optional<std::string> label;
    std::optional<std::string> kind;
    std::vector<std::string> tags;
    std::optional<double> confidence;
    std::string agent;
    std::vector<AnchorSpec> anchors;
    std::vector<Evidence> evidence;
    std::string tier = "project";
    std::string forceReason;
};

struct RememberResult {
    Claim claim;
    std::string tier;
    std::optional<Claim> superseded; // the version this write replaced
};

struct RecallRequest {
    std::optional<std::string> query;
    std::optional<std::string> tier; // project | medulla; absent = both
    std::optional<std::string> path; // claims anchored in this file rank first
    std::vector<std::string> kinds;
    std::vector<ClaimStatus> include; // statuses beyond committed
    int limit = 10;
    std::optional<int> maxChars;
    std::optional<std::string> root; // the root the caller believes it is bound to
};

struct RecallRow {
    Claim claim;
    double score = 0;
    std::string tier;
    std::optional<bool> stale; // unknown when the claim's age is unknown
    std::optional<int64_t> ageSeconds;
    std::string anchorState; // intact | drifted | moved | orphaned | unanchored
    std::vector<std::string> why;
};

struct MemoryExists {
    std::string tier;
    int64_t live = 0;
    int64_t other = 0; // frontier + retracted + superseded
};

struct RecallResult {
    std::vector<RecallRow> rows;
    std::vector<MemoryExists> memoryExists;
    std::string whyEmpty;   // set when rows is empty
    bool truncated = false; // limit or max_chars cut the list
    Envelope envelope;
};

struct ClaimVersion {
    Claim claim;
};

struct GetResult {
    Claim claim;
    std::string tier;
    std::string file;
    std::string anchorState;
    std::vector<std::string> anchorStates; // per anchor
    std::vector<Claim> history;            // earlier versions, oldest first
};

struct LearnResult {
    Claim claim;
    std::string tier;
};

// One anchor of a live claim in a given file, checked against the code as it
// is now (the editor's unsaved text when the file is open).
struct AnchoredClaim {
    Claim claim;
    std::string tier;
    size_t anchorIndex = 0;
    std::string state;   // intact | drifted | moved | orphaned
    std::string movedTo; // for moved: the current qualified name
    std::optional<uint32_t> startLine, startColumn, endLine,
        endColumn; // 0-based; absent when orphaned
    std::optional<int64_t> ageSeconds;
};

struct StatusResult {
    Envelope envelope;
    struct AnchorHealth {
        int64_t intact = 0, drifted = 0, moved = 0, orphaned = 0;
    } anchorHealth;
    std::vector<std::pair<std::string, std::string>> brokenFiles; // file, "line N: why"
};

} // namespace engram
