// Which folder a call is about: what its parameters say (hintsOf), the
// rules that decide (lsp/Workspaces.h), and how a root the session does not
// serve is reported or refused.
#include "lsp/LspServer.h"
#include "protocol/Convert.h"
#include "util/Paths.h"

namespace engram {

using protocol::json;

namespace {

std::string localPath(const std::string& uri, const std::string& field) {
    auto path = uriToPath(uri);
    if (!path) throw invalidField(field, "must be a file:// URI");
    return *path;
}

} // namespace

lsp::RouteHints LspServer::hintsOf(const json& params) const {
    // Strict like the handlers' own parsing: a mistyped field is named
    // rather than silently routing the call somewhere else.
    lsp::RouteHints h;
    protocol::Params p(params);
    if (auto root = p.optString("root")) h.root = lsp::canonicalRootParam(*root, "root");
    if (const json* td = p.optObject("textDocument"))
        if (auto uri = protocol::Params(*td, "textDocument").optString("uri"))
            h.documents.push_back({localPath(*uri, "textDocument.uri"), "textDocument.uri"});
    if (auto uri = p.optString("uri")) h.documents.push_back({localPath(*uri, "uri"), "uri"});
    if (auto path = p.optString("path")) h.documents.push_back({*path, "path"});
    if (const json* anchors = p.optArray("anchors")) {
        for (size_t i = 0; i < anchors->size(); ++i) {
            std::string field = "anchors[" + std::to_string(i) + "]";
            protocol::Params a((*anchors)[i], field);
            if (auto uri = a.optString("uri"))
                h.documents.push_back({localPath(*uri, field + ".uri"), field + ".uri"});
            else if (auto path = a.optString("path"))
                h.documents.push_back({*path, field + ".path"});
        }
    }
    if (auto id = p.optString("id")) h.claimId = *id;
    h.medullaOnly = p.optString("tier") == "medulla";
    return h;
}

lsp::Route LspServer::route(const lsp::RouteHints& hints) {
    return folders_->route(hints);
}

lsp::Folder& LspServer::bound(const lsp::RouteHints& hints) {
    auto r = route(hints);
    if (!r.unboundRoot) return *r.folder;
    // Nothing but recall and status may answer for a root the session does
    // not serve: a write would land in another project's store, and a read
    // without an envelope could not say whose memory it is.
    const std::string& root = *r.unboundRoot;
    lsp::RoutingError e(ErrorKind::NotBound,
                        "root: " + root + " is not a workspace folder of this session (bound: " +
                            folders_->rootList() +
                            "); pass one of them as root, or add it to the workspace with "
                            "workspace/didChangeWorkspaceFolders",
                        "root", folders_->roots());
    e.details.emplace_back("root", root);
    throw e;
}

void LspServer::explainUnbound(json& envelope, const std::string& requested) {
    if (!envelope.is_object() || !envelope["recovery"].is_object()) return;
    json& recovery = envelope["recovery"];
    recovery["roots"] = folders_->roots();
    // The engine knows only its own root; the session knows all of them.
    if (folders_->size() > 1)
        recovery["reason"] = "this engram serves the workspace folders " + folders_->rootList() +
                             ", not " + requested +
                             ": pass one of them as root, add the folder with "
                             "workspace/didChangeWorkspaceFolders, or start engram for it";
}

} // namespace engram
