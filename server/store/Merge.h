// Merging a claim that two branches changed (ARCHITECTURE.md, "Team memory"): the rule behind
// `engram merge-driver`, the reading of files git left with conflict markers,
// and `engram resolve`.
//
// A claim file holds one or more *heads*: the live version and, after a
// merge that could not keep everything live, the diverged ones (Claim::
// diverged). A head is known across branches by its version key: its version
// number and its content (what a supersession writes anew). What changes in
// place (status, feedback, re-verified anchors, stamps) is merged field by
// field, three-way:
//   - a field only one side changed takes that side's value;
//   - feedback counts add up: base plus both sides' increments;
//   - `verified` and `updated` take the later time, anchors come with the
//     later re-verification;
//   - anything else both sides changed differently takes the value of the
//     side written later (`updated`), then the greater value;
//   - two different status changes to one version (one side accepted, the
//     other rejected) keep both as heads.
// A head that one side superseded is dropped from the heads (it is in that
// side's history), unless the other side changed its status (a retraction
// against a supersession is never decided silently: both stay heads).
// When more than one head remains, the live one is chosen by liveOrder():
// committed before frontier before retracted, then higher confidence, then
// later `updated`, then higher version, then the smaller version key. The
// others stay in the file, flagged, until `engram resolve` or a supersession.
//
// The merge is deterministic (its output depends on the three inputs alone)
// and symmetric (ours and theirs can be swapped).
#pragma once
#include "model/Claim.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

// "<version>-<16 hex digits>": the version number and a digest of the
// content fields. Equal keys on two branches mean one version.
std::string versionKey(const Claim& c);

// The live version first, then the diverged ones; none carries `diverged`.
std::vector<Claim> claimHeads(const Claim& c);
// The claim file content for these heads: the live one by liveOrder(), the
// others (sorted) as its `diverged` list.
Claim fromHeads(std::vector<Claim> heads);
// True when `a` should be live rather than `b`.
bool liveOrder(const Claim& a, const Claim& b);

// The three-way merge of one claim. `base` is null when both sides added
// the claim (or git did not give the ancestor).
Claim mergeClaims(const Claim* base, const Claim& ours, const Claim& theirs);

// A file git left with conflict markers, split into the two sides it
// reconstructs (and the ancestor, when written with merge.conflictStyle
// diff3 or zdiff3). nullopt when the text holds no conflict; throws
// ClaimFileError on markers that do not close.
struct ConflictSides {
    std::string ours, theirs;
    std::optional<std::string> base;
    int firstLine = 0; // 1-based line of the first '<<<<<<<'
};
std::optional<ConflictSides> splitConflict(std::string_view text);

// The merge driver on the three files' contents: the merged file's bytes.
// An empty `base` is no ancestor. Throws ClaimFileError (prefixed with the
// side) when a side does not parse.
std::string mergeClaimFiles(std::string_view base, std::string_view ours, std::string_view theirs,
                            std::string_view id);

} // namespace engram
