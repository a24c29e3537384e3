// Binding and catching up with changes on disk (routing: ops/Routing).
#include "mcp/Workspaces.h"

#include "util/Log.h"

namespace engram::mcp {

namespace {

std::string joined(const std::vector<std::string>& roots) {
    std::string out;
    for (auto& r : roots)
        out += (out.empty() ? "" : ", ") + r;
    return out;
}

} // namespace

Workspace::Workspace(EngineOptions opts)
    : engine(std::move(opts))
    , watcher(engine.projectDir() + "/claims") {
    // The watch starts at binding, before the engine first opens the index
    // and checks it against the files: it vouches for the entries since.
    engine.vouchForClaims([this]() -> std::optional<bool> {
        if (!watcher.watching() || lost) return std::nullopt;
        auto now = watcher.drain();
        pending.full |= now.full;
        pending.ids.insert(now.ids.begin(), now.ids.end());
        if (pending.full) return std::nullopt;
        return pending.ids.empty();
    });
}

void Workspace::applyChanges() {
    auto now = watcher.drain();
    ClaimChanges changes = std::move(pending);
    pending = {};
    changes.full |= now.full;
    changes.ids.insert(now.ids.begin(), now.ids.end());
    try {
        if (changes.full) {
            lost = true; // what it missed is found by the check below, not vouched for
            watcher.start();
            engine.refresh();
        } else if (!changes.ids.empty()) {
            std::vector<std::string> ids(changes.ids.begin(), changes.ids.end());
            engine.refresh(&ids);
        }
    } catch (...) {
        lost = true;
        throw;
    }
}

void Workspaces::settleBeforeExit() {
    for (auto& w : list_) {
        try {
            if (w->watcher.watching()) w->applyChanges();
            w->engine.settleBeforeExit();
        } catch (const std::exception& e) {
            logLine("keeping the claims directory's mark at exit failed: " + std::string(e.what()));
        }
    }
}

Workspaces::Workspaces(std::string home, std::string version)
    : home_(std::move(home))
    , version_(std::move(version)) {}

void Workspaces::bind(const std::vector<std::string>& roots, const std::string& source) {
    list_.clear();
    source_ = source;
    for (auto& r : roots) {
        EngineOptions opts{r, source, home_, 30, version_};
        opts.backgroundReconcile = true; // see lsp/Workspaces.cpp
        opts.watchFiles = true;
        list_.push_back(std::make_unique<Workspace>(std::move(opts)));
        // Watching starts before the first call reads anything, so no change
        // falls between the index's first sync and the watch.
        list_.back()->watcher.start();
    }
    logLine("bound to " + joined(this->roots()) + " (" + source + ")");
}

std::vector<std::string> Workspaces::roots() const {
    std::vector<std::string> out;
    for (auto& w : list_)
        out.push_back(w->engine.root());
    return out;
}

ops::Bound Workspaces::routing() const {
    ops::Bound b;
    for (auto& w : list_)
        b.engines.push_back(&w->engine);
    b.home = home_;
    b.howToAdd = [](const std::string& root) {
        return "start `engram mcp --root " + root + "` for that workspace";
    };
    return b;
}

void Workspaces::catchUp(Workspace& ws) {
    // A background check of the claim files that finished is applied first.
    ws.engine.pollReconcile();
    // A store created after binding (the first write, another engram, a git
    // pull): everything in it is new to us.
    if (!ws.watcher.watching()) {
        if (ws.watcher.start()) ws.engine.refresh();
        return;
    }
    ws.applyChanges();
    // Start-up is over: in-place writes are watched too, and the files
    // checked again for any made before (see store/ClaimWatcher.h).
    if (!ws.engine.reconciling() && ws.watcher.completeWatch()) ws.engine.recheckClaims();
}

} // namespace engram::mcp
