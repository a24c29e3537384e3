// One tier of memory inside the engine: a store and its lazily opened index.
// Private to engine/.
#pragma once
#include "engine/Engine.h"

namespace engram {

struct Engine::Tier {
    std::string name; // project | medulla
    std::unique_ptr<Store> store;
    std::unique_ptr<Index> index; // null until the store exists and is first used
    uint64_t opens = 0;           // how many times the index was (re)opened
    std::string root;             // the workspace root of a project store; empty for the medulla
    // Another registered project's code, for its claims' anchor states (the
    // bound workspace's anchorer would check them against the wrong tree).
    std::unique_ptr<Anchorer> anchorer;
};

} // namespace engram
