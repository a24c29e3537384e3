// The team service (engine/Team.cpp): what makes a project's memory travel
// with its repository. The registry of projects this machine has served
// (what `tier: all` reads), the merge driver's registration in a clone, and
// the files a branch changed since a ref (pull-request checks). Private to
// engine/: the Engine owns one and forwards to it. Resolving a diverged
// claim is a claim write, so it stays with the engine's writes.
//
// It owns its state: whether this engine registered its project and
// checked the clone's setup already (each once per engine).
#pragma once
#include "model/Requests.h"
#include "store/Store.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace engram {

// The merge driver in a clone's git config: what is registered, whether
// it can run, and (with `write`) registered when it cannot.
struct MergeDriverConfig {
    std::optional<std::string> command;
    bool usable = false;
    bool wrote = false;
};
MergeDriverConfig registerMergeDriver(const std::string& gitRoot, bool write);
// The .gitattributes lines naming the driver for claim and history files.
const char* claimAttributes();

class Team {
public:
    // `project`: the bound workspace's store (it outlives the service).
    Team(std::string root, std::string home, const Store& project);

    // Engine::teamSetup, Engine::ensureTeamSetup, Engine::changedSince.
    TeamSetup setup(bool write);
    std::vector<std::string> ensureSetup();
    std::set<std::string> changedSince(const std::string& ref) const;
    // Adds the project to the registry once its store exists; quiet on
    // failure (a read-only home).
    void registerProject();

private:
    std::string root_, home_;
    const Store& project_;
    bool registered_ = false;
    bool checked_ = false;
};

} // namespace engram
