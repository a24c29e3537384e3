// Which workspace root a call is about: one rule set for both servers.
//
// An `engram serve` session is bound to its editor's workspace folders, an
// `engram mcp` session to its roots (--root, ENGRAM_ROOT, the client's
// roots or the directory it started in); either may hold several, each its
// own project store with its own Engine, all sharing the user's medulla.
// route() applies the rules, first match wins (ARCHITECTURE.md, "One
// JSON-RPC front end"):
//   1. an explicit `root` (a path or file:// URI) names the deepest bound
//      root that is it or holds it; a root outside every one comes back
//      marked unbound, answered by the root of the call's document (or the
//      first) for the operations that answer unbound roots (recall, status,
//      inbox: their envelope says so), refused NotBound by every other;
//   2. a document (an absolute path or URI) goes to the deepest root
//      holding it;
//   3. with a single root, that root (its engine judges paths outside it
//      and unknown ids);
//   4. a document outside every root is refused OutsideRoot;
//   5. a claim id goes to the root whose project store holds it; a claim
//      only the medulla holds is reachable from any root (the first);
//   6. a medulla-only call (tier: medulla) goes to the first root;
//   7. otherwise the call is ambiguous and refused, listing the roots.
#pragma once
#include "engine/Engine.h"
#include "ops/Operation.h"
#include "util/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace engram::ops {

// An EngramError whose reply also lists the bound roots as `data.options`
// (the flat details of EngramError cannot carry a list).
struct RoutingError : EngramError {
    RoutingError(ErrorKind k, std::string message, std::string field,
                 std::vector<std::string> options)
        : EngramError(k, std::move(message), {{"field", field}})
        , options(std::move(options)) {}
    std::vector<std::string> options;
};

// A path the call carries, with the parameter it came from (for errors).
struct DocumentHint {
    std::string path; // absolute; relative paths route nothing
    std::string field;
};

// What a call says about where it belongs.
struct RouteHints {
    std::optional<std::string> root; // canonical path of the `root` parameter
    std::vector<DocumentHint> documents;
    std::optional<std::string> claimId;
    bool medullaOnly = false; // tier: medulla (the same store from every root)
};

// The hints in a call's parameters: `root`, `textDocument.uri`, `uri`,
// `path`, `anchors[].uri|path`, the claim id (`idField`: the operation's
// id argument) and `tier`. Strict like the operations' own parsing: a
// mistyped field is named rather than routing the call somewhere else.
RouteHints routeHints(const json& params, const char* idField = "id");

// The session's bound roots, as routing sees them.
struct Bound {
    std::vector<Engine*> engines; // in binding order; engines[i]->root() is canonical
    std::string home;             // $ENGRAM_HOME: the medulla's claims route too
    // How this session adds a root, for messages: given the root asked for.
    std::string (*howToAdd)(const std::string& root) = nullptr;
};

struct Routed {
    size_t index = 0; // the engine that answers
    // Set when the call named a root that is not bound.
    std::optional<std::string> unboundRoot;
};

// The rules above. Throws NotBound when no root is bound, AmbiguousRoot,
// OutsideRoot or UnknownClaim as the rules say; never for an unbound root
// (see bindFor).
Routed route(const Bound& bound, const RouteHints& hints);

// route(), refusing an unbound root (NotBound).
Routed routeBound(const Bound& bound, const RouteHints& hints);
// route() for an operation: an unbound root is refused NotBound unless the
// operation answers for it.
Routed routeFor(const Bound& bound, const RouteHints& hints, const Operation& op);

// Adds to an envelope of an answer for an unbound root what the engine
// cannot know: the session's roots and how to reach the one asked for.
void explainUnbound(json& envelope, const Bound& bound, const std::string& requested);

// The `root` parameter (a path or a file:// URI) as a canonical path.
std::string canonicalRootParam(const std::string& value, const std::string& field);

// "A, B" for messages.
std::string rootList(const Bound& bound);

} // namespace engram::ops
