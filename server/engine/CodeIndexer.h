// The code-index service (engine/CodeIndex.cpp): which index holds the
// workspace's code index, keeping it walked, and where a definition went.
// Private to engine/: the Engine owns one and forwards to it.
//
// It owns its state: the index of a workspace without a project store
// (under $ENGRAM_HOME/workspaces/<fingerprint>/, so that names are judged
// there too without engram writing into the repository), which index the
// last walk filled and when, and a server's walk on a thread of its own.
// It asks the engine two things, when needed: the project tier, if its
// store exists (then the code index lives in its index), and to list the
// workspace's files again after a walk (the instruction-files service).
#pragma once
#include "engine/CodeWalk.h"
#include "engine/Tier.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace engram {

class CodeIndexer {
public:
    struct Options {
        std::string root;
        std::string home;        // empty: no engram home, so no index of its own
        std::string fingerprint; // the root's (Engine::fingerprint)
        std::string hold;        // EngineOptions::reconcileHold
    };
    // `projectTier(open)`: the project tier, its index opened (`open`) when
    // its store exists, else null. `relist`: list the workspace's files.
    CodeIndexer(Options opts, std::function<Tier*(bool open)> projectTier,
                std::function<void()> relist);
    ~CodeIndexer();
    CodeIndexer(const CodeIndexer&) = delete;
    CodeIndexer& operator=(const CodeIndexer&) = delete;

    // The tier whose index holds the code index: the project's once its
    // store exists, else one of the workspace's own. With `create` false,
    // only an index that exists already (the hot paths never create one).
    Tier* tier(bool create = true);
    // Engine::indexCode, startCodeWalk, adoptCodeWalk, codeWalkProgress.
    CodeIndexReport index(const std::function<void(size_t, size_t)>& progress, bool listFiles);
    bool startWalk();
    std::optional<CodeIndexReport> adoptWalk(bool wait);
    std::pair<size_t, size_t> walkProgress() const;
    // Waits for a server's walk, keeping its report for adoptWalk.
    void awaitWalk();
    // Whether the last walk filled `index` (this process walked it).
    bool walked(const Index* index) const { return indexedIn_ == index; }
    // Whether a walk of this process listed the workspace's files into
    // `index` (a walk for a shape lookup lists none).
    bool listed(const Index* index) const { return listedIn_ == index; }
    // Definitions of one shape, on the walked index (Anchorer::setShapeLookup).
    std::vector<CodeSymbol> symbolsWithShape(const std::string& shape);
    // Stops a server's walk (its thread writes through the project's store).
    void stopWalk() { walk_.reset(); }

private:
    Options opts_;
    std::function<Tier*(bool)> projectTier_;
    std::function<void()> relist_;
    std::unique_ptr<Tier> own_;        // the workspace's own code index
    const Index* indexedIn_ = nullptr; // the index the last walk filled
    const Index* listedIn_ = nullptr;  // the index a walk's listing went to
    std::chrono::steady_clock::time_point lastWalk_{};
    class Walker;
    struct WalkerEnd { // cancels and joins its thread
        void operator()(Walker* w) const;
    };
    std::unique_ptr<Walker, WalkerEnd> walk_;  // after own_: stopped before it goes
    std::optional<CodeIndexReport> walkEnded_; // adopted by a wait, not yet reported
};

} // namespace engram
