// The workspace folders an `engram serve` session is bound to.
//
// An editor may open several folders in one window (a multi-root
// workspace). Each folder is its own project store with its own Engine; all
// share the user's medulla. The table keeps the folders in the order the
// client gave them: the first one answers for the session when an answer
// must come from somewhere. Which folder a call is about is decided by the
// rules both servers share (ops/Routing.h).
#pragma once
#include "engine/Engine.h"
#include "lsp/ClaimsWatch.h"
#include "ops/Routing.h"
#include "util/Error.h"

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

    // The folders as the routing rules see them (ops/Routing.h).
    ops::Bound routing() const;

private:
    uv_loop_t* loop_;
    std::string home_, version_;
    std::vector<std::unique_ptr<Folder>> folders_;
};

} // namespace engram::lsp
