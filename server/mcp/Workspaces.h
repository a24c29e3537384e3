// The roots an MCP session serves, each an Engine, and how a call finds its.
//
// `engram serve` is bound to one root by its editor's `initialize`. An MCP
// server is bound by `--root`, `ENGRAM_ROOT`, the client's `roots` (when the
// client offers them and neither of the former was given) or the directory
// it was started in, and a client may share several roots (a multi-root
// workspace): each is its own project store with its own Engine. A call is
// routed by its `root` argument, or by the only root there is; with several
// roots and none named the call is refused with the roots listed
// (AmbiguousRoot), except that a claim id found in exactly one project store
// routes itself.
#pragma once
#include "engine/Engine.h"
#include "store/ClaimWatcher.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace engram::mcp {

struct Workspace {
    Workspace(EngineOptions opts);
    Engine engine;
    ClaimWatcher watcher;
    // Changes the watch reported that are not yet in the index (read by
    // the engine's vouching, applied by the next catch-up).
    ClaimChanges pending;
    bool lost = false; // the watch missed events, or applying some failed

    // Applies what the watch reported since the last time.
    void applyChanges();
};

class Workspaces {
public:
    // Before exiting: what the watch reported is applied and the mark of
    // the session's writes kept (Engine::settleBeforeExit).
    void settleBeforeExit();
    Workspaces(std::string home, std::string version);

    // Replaces the bound roots (canonical paths); `source` is what the
    // envelope reports as binding.source.
    void bind(const std::vector<std::string>& roots, const std::string& source);
    bool bound() const { return !list_.empty(); }
    const std::string& source() const { return source_; }
    std::vector<std::string> roots() const;

    // The workspace a call is about. `root` is the caller's root argument (a
    // path or file:// URI, anywhere inside a served root); `claimId` the id
    // the call names, if any. Throws NotBound when `root` is outside every
    // served root, AmbiguousRoot when several roots fit.
    Workspace& route(const std::optional<std::string>& root,
                     const std::optional<std::string>& claimId);
    // The served root that holds `root`, if any.
    std::optional<std::string> servedRootOf(const std::string& root) const;

    // Brings the workspace's index in line with claim files changed by
    // anything but engram (see ClaimWatcher) before a call reads it.
    void catchUp(Workspace& ws);

private:
    std::string home_, version_, source_;
    std::vector<std::unique_ptr<Workspace>> list_;
};

// A root argument as a canonical path (file:// URIs are accepted).
std::string rootArgument(const std::string& root);

} // namespace engram::mcp
