// The folder table (see Workspaces.h).
#include "lsp/Workspaces.h"

#include "util/Paths.h"

namespace engram::lsp {

Folder::Folder(EngineOptions opts, uv_loop_t* loop, ClaimsWatch::OnChange onChange)
    : engine(std::move(opts))
    , watch(loop, engine.projectDir() + "/claims", std::move(onChange)) {}

Workspaces::Workspaces(uv_loop_t* loop, std::string home, std::string version)
    : loop_(loop)
    , home_(std::move(home))
    , version_(std::move(version)) {}

Folder* Workspaces::add(const std::string& root, const std::string& source,
                        ClaimsWatch::OnChange onChange) {
    if (byRoot(root)) return nullptr;
    EngineOptions opts{root, source, home_, 30, version_};
    opts.backgroundReconcile = true; // a long-lived server: answer first, check the rest after
    opts.watchFiles = true;          // status looks only at anchored files reported changed
    folders_.push_back(std::make_unique<Folder>(std::move(opts), loop_, std::move(onChange)));
    return folders_.back().get();
}

std::unique_ptr<Folder> Workspaces::remove(const std::string& root) {
    for (auto it = folders_.begin(); it != folders_.end(); ++it) {
        if ((*it)->root() != root) continue;
        auto out = std::move(*it);
        folders_.erase(it);
        return out;
    }
    return nullptr;
}

void Workspaces::stopWatching() {
    for (auto& f : folders_) {
        // A burst still waiting for its callback is brought in, and the
        // mark of the last writes kept, so the next start-up need not
        // compare every claim file.
        try {
            f->watch.flush();
            f->engine.settleBeforeExit();
        } catch (const std::exception&) {
            // Stopping regardless: the next start-up compares every file.
        }
        f->watch.stop();
    }
}

std::vector<std::string> Workspaces::roots() const {
    std::vector<std::string> out;
    for (auto& f : folders_)
        out.push_back(f->root());
    return out;
}

std::vector<Folder*> Workspaces::all() {
    std::vector<Folder*> out;
    for (auto& f : folders_)
        out.push_back(f.get());
    return out;
}

Folder* Workspaces::byRoot(const std::string& root) {
    for (auto& f : folders_)
        if (f->root() == root) return f.get();
    return nullptr;
}

Folder* Workspaces::ownerOf(const std::string& path) {
    if (path.empty() || path[0] != '/') return nullptr;
    // Nested folders: the innermost one is the project the file belongs to.
    Folder* best = nullptr;
    for (auto& f : folders_)
        if (relativeToRoot(f->root(), path) && (!best || f->root().size() > best->root().size()))
            best = f.get();
    return best;
}

ops::Bound Workspaces::routing() const {
    ops::Bound b;
    for (auto& f : folders_)
        b.engines.push_back(&f->engine);
    b.home = home_;
    b.howToAdd = [](const std::string&) -> std::string {
        return "add it to the workspace with workspace/didChangeWorkspaceFolders";
    };
    return b;
}

} // namespace engram::lsp
