// Workspace folders over a session's life: binding one (its start-up sync,
// code index and claims watch), folders added and removed by the client,
// and claim files changed on disk.
#include "lsp/LspServer.h"
#include "protocol/Convert.h"
#include "util/Fs.h"
#include "util/Log.h"
#include "util/Paths.h"

#include <algorithm>
#include <malloc.h>

namespace engram {

using protocol::json;

bool LspServer::bindFolder(const std::string& root, const std::string& source) {
    // The watch names its folder by root, not by pointer: a folder removed
    // while a change is pending must not be reached.
    auto* f =
        folders_->add(root, source, [this, root](const std::set<std::string>& ids, bool full) {
            onClaimsChanged(root, ids, full);
        });
    if (!f) return false;
    logLine("bound to " + root + " (" + source + ")");
    // Its index is opened and checked against the claim files on a later
    // loop turn, so a large store delays neither the reply nor other calls.
    // Start-up syncs run in the order the folders were bound, ahead of the
    // requests already waiting.
    auto at = std::find_if(queue_.begin(), queue_.end(), [](auto& q) { return !q.internal; });
    queue_.insert(at, Pending{nullptr, "startup", nullptr, true, root});
    scheduleDrain();
    return true;
}

void LspServer::startupSync(const std::string& root) {
    lsp::Folder* f = folders_->byRoot(root);
    if (!f) return; // removed before its turn came
    // Watch first, so no change falls between the index's start-up check
    // and the watch; then bring the indexes in line with the files (changes
    // made while engram was not running).
    try {
        f->watch.start();
    } catch (const std::exception& e) {
        logLine("watching " + f->watch.dir() + " failed: " + e.what());
    }
    // Watched from before the check below (or, started later, before the
    // check ensureWatching makes): it vouches for the directory's entries.
    f->engine.vouchForClaims([f] { return f->watch.quiet(); });
    for (auto& r : f->engine.refresh())
        if (r.added || r.updated || r.removed || r.broken || r.rebuilt)
            logLine("index sync of " + root + ": +" + std::to_string(r.added) + " ~" +
                    std::to_string(r.updated) + " -" + std::to_string(r.removed) + " broken " +
                    std::to_string(r.broken) +
                    (r.rebuilt ? " (rebuilt: " + r.rebuildReason + ")" : ""));
    // A served repository whose store exists gets engram's merge driver
    // registered (idempotent; a clone that never ran `engram init`), judged
    // from the files: no git process once it is.
    if (statFile(f->engine.projectDir() + "/claims"))
        for (auto& w : f->engine.ensureTeamSetup())
            logLine("team memory: wrote " + w + " for " + root);
    indexCodeWithProgress(*f);
    // The sync's file lists are gone; hand their pages back so an idle
    // server stays small.
    ::malloc_trim(0);
    f->watch.start();
}

void LspServer::indexCodeWithProgress(lsp::Folder& f) {
    // Only a workspace with memory needs its code indexed (for moves across
    // files); the first write to a new store indexes lazily.
    if (!statFile(f.engine.projectDir() + "/claims")) return;
    // The workspace's files are listed on a thread (a process whose cost
    // grows with the repository), and the code index is walked on another
    // (a stat per source file): nothing waits for either.
    f.engine.maybeRelistInBackground(true);
    if (!f.engine.startCodeWalk()) return;
    f.codeWalking = true;
    if (!workDoneProgress_) return;
    f.codeWalkToken = "engram-index-" + std::to_string(++serverRequests_);
    // Several folders each get their own progress, named after the folder.
    std::string title = "engram: indexing code";
    if (folders_->size() > 1) {
        auto slash = f.root().find_last_of('/');
        title += " in " + f.root().substr(slash == std::string::npos ? 0 : slash + 1);
    }
    reply({{"jsonrpc", "2.0"},
           {"id", f.codeWalkToken},
           {"method", "window/workDoneProgress/create"},
           {"params", {{"token", f.codeWalkToken}}}});
    reply(protocol::notification(
        "$/progress",
        {{"token", f.codeWalkToken},
         {"value",
          {{"kind", "begin"}, {"title", title}, {"percentage", 0}, {"cancellable", false}}}}));
}

void LspServer::pollCodeWalk(lsp::Folder& f) {
    if (!f.codeWalking) return;
    auto report = f.engine.adoptCodeWalk();
    if (!report) {
        auto [done, total] = f.engine.codeWalkProgress();
        if (!f.codeWalkToken.empty() && total > 0 && done != f.codeWalkReported) {
            f.codeWalkReported = done;
            reply(protocol::notification(
                "$/progress",
                {{"token", f.codeWalkToken},
                 {"value",
                  {{"kind", "report"},
                   {"message", std::to_string(done) + "/" + std::to_string(total) + " files"},
                   {"percentage", int(100 * done / total)}}}}));
        }
        return;
    }
    codeWalkEnded(f, *report);
}

void LspServer::codeWalkEnded(lsp::Folder& f, const CodeIndexReport& report) {
    f.codeWalking = false;
    if (!f.codeWalkToken.empty())
        reply(protocol::notification(
            "$/progress", {{"token", f.codeWalkToken},
                           {"value",
                            {{"kind", "end"},
                             {"message", std::to_string(report.files) + " files, " +
                                             std::to_string(report.parsed) + " parsed"}}}}));
    f.codeWalkToken.clear();
    logLine("code index of " + f.root() + ": " + std::to_string(report.files) + " files, " +
            std::to_string(report.parsed) + " parsed, " + std::to_string(report.symbols) +
            " symbols, " + std::to_string(report.removed) + " removed" +
            (report.skippedDirs
                 ? ", " + std::to_string(report.skippedDirs) + " directories too deep to enter"
                 : "") +
            (report.error.empty() ? "" : "; the walk stopped early (" + report.error + ")"));
    // Anchors judged before the walk ended may have been judged on the
    // code index as the last session left it.
    if (report.parsed || report.removed) republishOpen(f.root());
}

void LspServer::ensureWatching() {
    for (auto* f : folders_->all()) {
        if (f->watch.watching()) continue;
        try {
            // The store appeared after start-up (the CLI, another engram, a
            // git pull): files may have changed between the index opening
            // and now.
            if (f->watch.start()) f->engine.refresh();
        } catch (const std::exception& e) {
            logLine("watching " + f->watch.dir() + " failed: " + e.what());
        }
    }
}

void LspServer::onClaimsChanged(const std::string& root, const std::set<std::string>& ids,
                                bool full) {
    lsp::Folder* f = folders_->byRoot(root);
    if (!f) return;
    try {
        if (full) {
            f->engine.refresh();
        } else {
            std::vector<std::string> list(ids.begin(), ids.end());
            f->engine.refresh(&list);
        }
    } catch (const std::exception& e) {
        logLine("index sync of " + root + " after a file change failed: " + e.what());
        f->watch.lost(); // not all in: the watch no longer vouches for the directory
    }
    republishOpen(root);
}

json LspServer::onDidChangeWatchedFiles(const json& params) {
    protocol::Params p(params);
    std::map<std::string, std::vector<std::string>> idsByRoot;
    if (const json* changes = p.optArray("changes")) {
        for (auto& c : *changes) {
            if (!c.is_object() || !c.contains("uri") || !c["uri"].is_string()) continue;
            auto path = uriToPath(c["uri"].get<std::string>());
            if (!path) continue;
            for (auto* f : folders_->all()) {
                std::string claimsDir = f->engine.projectDir() + "/claims/";
                if (path->compare(0, claimsDir.size(), claimsDir) != 0) continue;
                std::string name = path->substr(claimsDir.size());
                if (name.size() > 3 && name.compare(name.size() - 3, 3, ".md") == 0)
                    idsByRoot[f->root()].push_back(name.substr(0, name.size() - 3));
            }
        }
    }
    for (auto& [root, ids] : idsByRoot)
        if (auto* f = folders_->byRoot(root)) f->engine.refresh(&ids);
    // Claim files or source files changed on disk: either can change what
    // the open documents' diagnostics say.
    republishOpen();
    return nullptr;
}

json LspServer::onDidChangeWorkspaceFolders(const json& params) {
    // Read the whole event before changing anything, so a malformed one
    // changes nothing (it is a notification: the refusal is only logged).
    protocol::Params p(params);
    const json* event = p.optObject("event");
    if (!event) throw invalidField("event", "is required");
    protocol::Params ev(*event, "event");
    auto rootsOf = [&](const char* key) {
        std::vector<std::string> out;
        if (const json* list = ev.optArray(key)) {
            for (size_t i = 0; i < list->size(); ++i) {
                std::string field = ev.field(key) + "[" + std::to_string(i) + "]";
                protocol::Params f((*list)[i], field);
                auto local = uriToPath(f.reqString("uri"));
                if (!local) throw invalidField(field + ".uri", "must be a file:// URI");
                out.push_back(canonicalPath(*local));
            }
        }
        return out;
    };
    auto removed = rootsOf("removed");
    auto added = rootsOf("added");

    // Removals first, so an event that replaces a folder by itself rebinds it.
    std::vector<std::unique_ptr<lsp::Folder>> detached;
    for (auto& root : removed) {
        if (auto f = folders_->remove(root)) {
            logLine("unbound " + root);
            detached.push_back(std::move(f));
        } else {
            logLine("didChangeWorkspaceFolders: " + root + " was not bound");
        }
    }
    for (auto& root : added)
        if (!bindFolder(root, "didChangeWorkspaceFolders")) logLine(root + " is already bound");
    rehomeDocuments(detached);
    return nullptr; // `detached` goes now: engines closed, watches stopped
}

void LspServer::rehomeDocuments(const std::vector<std::unique_ptr<lsp::Folder>>& detached) {
    auto anyFolder = [&](const std::string& root) -> lsp::Folder* {
        if (root.empty()) return nullptr;
        if (auto* f = folders_->byRoot(root)) return f;
        for (auto& d : detached)
            if (d->root() == root) return d.get();
        return nullptr;
    };
    for (auto& [path, doc] : openDocs_) {
        lsp::Folder* now = ownerOf(path);
        std::string nowRoot = now ? now->root() : std::string();
        if (nowRoot == doc.owner) continue;
        // The unsaved text travels with the document.
        std::optional<std::string> text = doc.text;
        if (lsp::Folder* was = anyFolder(doc.owner)) {
            text = was->engine.documentText(path);
            was->engine.closeDocument(path);
        }
        if (!text) text = readFile(path);
        doc.owner = nowRoot;
        if (now) {
            now->engine.openDocument(path, text.value_or(""));
            doc.text.reset();
            try {
                publishDiagnostics(path, doc.version);
            } catch (const std::exception& e) {
                logLine("diagnostics for " + path + " failed: " + e.what());
            }
        } else {
            // No folder holds it any more: its memory diagnostics go away.
            doc.text = std::move(text);
            clearDiagnostics(path);
        }
    }
}

} // namespace engram
