// Resolving anchors against the workspace and judging their state.
//
// This build anchors whole files and line ranges by a whitespace-blind
// content digest. Symbol anchors (tree-sitter) plug in here: callers only see
// resolveAnchor and anchorState.
#pragma once
#include "engine/Requests.h"
#include "model/Claim.h"

#include <string>

namespace engram {

// Throws EngramError OutsideRoot / AnchorNotFound / InvalidParams.
Anchor resolveAnchor(const std::string& root, const AnchorSpec& spec, const std::string& field);
// intact | drifted | orphaned for one anchor.
std::string anchorState(const std::string& root, const Anchor& a);
// The worst state over a claim's anchors; "unanchored" when it has none.
std::string claimAnchorState(const std::string& root, const Claim& c);

} // namespace engram
