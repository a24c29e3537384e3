// The workspace engine tests start from: a root and an engram home, each a
// fresh temporary directory, and an Engine bound to them. A test's own
// fixture derives from it and adds the helpers its cases speak in
// (remember with its agent, a packet, a call of an operation).
#pragma once
#include "engine/Engine.h"
#include "support/TempDir.h"

#include <functional>
#include <string>

namespace engram::test {

struct EngineWorkspace {
    TempDir root, home;
    Engine engine;

    // `adjust` changes the options before the engine is made (a file
    // watch, a background reconcile).
    explicit EngineWorkspace(const std::function<void(EngineOptions&)>& adjust = {});

    // The options every test engine starts from: bound to `root`, the
    // medulla under `home`, stale after 30 days.
    static EngineOptions options(const TempDir& root, const TempDir& home,
                                 const std::function<void(EngineOptions&)>& adjust = {});

    // Replaces the first `from` in the workspace file `rel` by `to` (the
    // test fails when `from` is not there).
    void edit(const std::string& rel, const std::string& from, const std::string& to) const;

    // Dates the project claim `id` `days` before now (its file's created and
    // updated, as a claim written then has them); the index learns it at
    // the next reindex.
    void backdate(const std::string& id, int days) const;
};

} // namespace engram::test
