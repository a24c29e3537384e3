// The workspace folders an `engram serve` session is bound to, and which one
// a call is about.
//
// An editor may open several folders in one window (a multi-root
// workspace). Each folder is its own project store with its own Engine; all
// share the user's medulla. The table keeps the folders in the order the
// client gave them: the first one answers for the session when an answer
// must come from somewhere (the envelope of a call naming an unbound root,
// medulla-only calls).
//
// route() applies the routing rules (ARCHITECTURE.md, server/lsp), first
// match wins:
//   1. an explicit `root` names the deepest folder that is it or holds it
//      (after canonicalising: `/w/src` is folder `/w`'s, as for engram mcp,
//      util/Paths.h deepestRootHolding); a root outside every folder comes
//      back marked `unbound` for the caller to report (recall, status) or
//      refuse (everything else);
//   2. a document (an absolute path) goes to the deepest folder holding it;
//   3. with a single folder, that folder (today's single-root behaviour:
//      its engine judges paths outside it and unknown ids);
//   4. a document outside every folder is refused OutsideRoot;
//   5. a claim id goes to the folder whose project store holds it; a claim
//      only the medulla holds is reachable from any folder (the first);
//   6. a medulla-only call goes to the first folder;
//   7. otherwise the call is ambiguous and refused, listing the options.
#pragma once
#include "engine/Engine.h"
#include "lsp/ClaimsWatch.h"
#include "model/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace engram::lsp {

struct Folder {
    Folder(EngineOptions opts, uv_loop_t* loop, ClaimsWatch::OnChange onChange);
    const std::string& root() const { return engine.root(); }
    Engine engine;
    ClaimsWatch watch;
    // The start-up walk of the code index, running on the engine's thread
    // for it: its $/progress token (empty without workDoneProgress).
    bool codeWalking = false;
    std::string codeWalkToken;
    size_t codeWalkReported = 0; // files done when progress was last reported
};

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
    bool medullaOnly = false; // tier: medulla (the same store from every folder)
};

struct Route {
    Folder* folder = nullptr;
    // Set when the call named a root that is not bound (folder is then the
    // one that answers for the session).
    std::optional<std::string> unboundRoot;
};

class Workspaces {
public:
    Workspaces(uv_loop_t* loop, std::string home, std::string version);

    // Binds a folder (a canonical path); nullptr when it is already bound.
    Folder* add(const std::string& root, const std::string& source, ClaimsWatch::OnChange onChange);
    // Unbinds a folder and hands it back, so the caller can move its open
    // documents elsewhere before it is destroyed; nullptr when not bound.
    std::unique_ptr<Folder> remove(const std::string& root);
    // Stops every watch (the server is exiting).
    void stopWatching();
    // Drops every folder.
    void clear() { folders_.clear(); }

    bool empty() const { return folders_.empty(); }
    size_t size() const { return folders_.size(); }
    Folder& first() { return *folders_.front(); }
    std::vector<std::string> roots() const;
    std::vector<Folder*> all();

    Folder* byRoot(const std::string& root);
    // The deepest folder holding the absolute path, or nullptr.
    Folder* ownerOf(const std::string& path);

    // The folder a call is about (the rules above). Throws NotBound when no
    // folder is bound, AmbiguousRoot when the call could be about several,
    // OutsideRoot when its documents are outside every folder (with several
    // folders; a single folder's engine reports that itself), UnknownClaim
    // when no store holds its claim.
    Route route(const RouteHints& hints);

    // "A, B" for messages.
    std::string rootList() const;

private:
    // The folder whose project store holds the claim, the first folder for
    // a medulla claim, nullptr when none does. Throws AmbiguousRoot when
    // several project stores hold the same id (copies of one store).
    Folder* holderOf(const std::string& id);

    uv_loop_t* loop_;
    std::string home_, version_;
    std::vector<std::unique_ptr<Folder>> folders_;
};

// The `root` parameter (a path or a file:// URI) as a canonical path.
std::string canonicalRootParam(const std::string& value, const std::string& field);

} // namespace engram::lsp
