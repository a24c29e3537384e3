// The roots an MCP session serves, each an Engine.
//
// An MCP server is bound by `--root`, `ENGRAM_ROOT`, the client's `roots`
// (when the client offers them and neither of the former was given) or the
// directory it was started in, and a client may share several roots (a
// multi-root workspace): each is its own project store with its own Engine.
// Which root a call is about is decided by the rules both servers share
// (ops/Routing.h).
#pragma once
#include "engine/Engine.h"
#include "ops/Routing.h"
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

    // The roots as the routing rules see them (ops/Routing.h), and the
    // workspace of routing's answer.
    ops::Bound routing() const;
    Workspace& at(size_t index) { return *list_.at(index); }

    // Brings the workspace's index in line with claim files changed by
    // anything but engram (see ClaimWatcher) before a call reads it.
    void catchUp(Workspace& ws);

private:
    std::string home_, version_, source_;
    std::vector<std::unique_ptr<Workspace>> list_;
};

} // namespace engram::mcp
