// The folder table and the routing rules (see Workspaces.h).
#include "lsp/Workspaces.h"

#include "model/Error.h"
#include "store/Store.h"
#include "util/Fs.h"
#include "util/Paths.h"

namespace engram::lsp {

namespace {

std::string claimFile(const std::string& storeDir, const std::string& id) {
    return storeDir + "/claims/" + id + ".md";
}

} // namespace

Folder::Folder(EngineOptions opts, uv_loop_t* loop, ClaimsWatch::OnChange onChange)
    : engine(std::move(opts))
    , watch(loop, engine.projectDir() + "/claims", std::move(onChange)) {}

Workspaces::Workspaces(uv_loop_t* loop, std::string home, std::string version)
    : loop_(loop)
    , home_(std::move(home))
    , version_(std::move(version)) {}

std::string canonicalRootParam(const std::string& value, const std::string& field) {
    if (value.empty()) throw invalidField(field, "must not be empty");
    if (value.rfind("file://", 0) == 0) {
        auto local = uriToPath(value);
        if (!local) throw invalidField(field, "is not a valid file:// URI");
        return canonicalPath(*local);
    }
    if (value.find("://") != std::string::npos)
        throw invalidField(field, "must be a path or a file:// URI");
    return canonicalPath(value);
}

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

std::string Workspaces::rootList() const {
    std::string out;
    for (auto& f : folders_)
        out += (out.empty() ? "" : ", ") + f->root();
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

Folder* Workspaces::holderOf(const std::string& id) {
    // The files decide, not the indexes: a claim written by another process
    // a moment ago is already on disk.
    Folder* found = nullptr;
    for (auto& f : folders_) {
        if (!statFile(claimFile(f->engine.projectDir(), id))) continue;
        if (found)
            throw RoutingError(ErrorKind::AmbiguousRoot,
                               "id: claim '" + id + "' exists in the stores of both " +
                                   found->root() + " and " + f->root() +
                                   "; add root naming the one this call is about",
                               "root", {found->root(), f->root()});
        found = f.get();
    }
    if (found) return found;
    if (!home_.empty() && statFile(claimFile(home_ + "/medulla", id)))
        return folders_.front().get();
    return nullptr;
}

Route Workspaces::route(const RouteHints& hints) {
    if (folders_.empty())
        throw EngramError(ErrorKind::NotBound,
                          "no workspace folder is bound; add one with "
                          "workspace/didChangeWorkspaceFolders",
                          {{"field", std::string("root")}});
    if (hints.root) {
        if (auto held = deepestRootHolding(roots(), *hints.root))
            return {byRoot(*held), std::nullopt};
        // The answer (or refusal) comes from the document's folder when the
        // call has one, so paths in it still resolve.
        Folder* answering = nullptr;
        for (auto& d : hints.documents)
            if ((answering = ownerOf(d.path))) break;
        return {answering ? answering : folders_.front().get(), hints.root};
    }
    for (auto& d : hints.documents)
        if (Folder* f = ownerOf(d.path)) return {f, std::nullopt};
    if (folders_.size() == 1) return {folders_.front().get(), std::nullopt};
    for (auto& d : hints.documents) {
        if (d.path.empty() || d.path[0] != '/') continue;
        throw RoutingError(ErrorKind::OutsideRoot,
                           d.field + ": '" + d.path + "' is outside every workspace folder (" +
                               rootList() + ")",
                           d.field, roots());
    }
    if (hints.claimId) {
        if (!Store::validId(*hints.claimId))
            throw invalidField("id", "'" + *hints.claimId + "' is not a claim id");
        if (Folder* f = holderOf(*hints.claimId)) return {f, std::nullopt};
        throw EngramError(ErrorKind::UnknownClaim,
                          "no claim with id '" + *hints.claimId +
                              "' in the store of any workspace folder (" + rootList() +
                              ") or in the medulla",
                          {{"id", *hints.claimId}});
    }
    if (hints.medullaOnly) return {folders_.front().get(), std::nullopt};
    std::string relative;
    for (auto& d : hints.documents)
        if (!d.path.empty() && relative.empty())
            relative = " (" + d.field + " '" + d.path +
                       "' is relative, so it could be in any of them: root says which)";
    throw RoutingError(ErrorKind::AmbiguousRoot,
                       "root: this session serves several workspace folders (" + rootList() +
                           ") and nothing in the call says which one it is about" + relative +
                           "; add the parameter root naming one of them (or a document inside "
                           "one)",
                       "root", roots());
}

} // namespace engram::lsp
