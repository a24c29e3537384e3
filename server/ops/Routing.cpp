// The routing rules (ops/Routing.h), shared by engram serve and engram mcp.
#include "ops/Routing.h"
#include "ops/op/wire/Calls.h"

#include "protocol/Convert.h"
#include "store/Store.h"
#include "util/Fs.h"
#include "util/Paths.h"

namespace engram::ops {

namespace {

std::string claimFile(const std::string& storeDir, const std::string& id) {
    return storeDir + "/claims/" + id + ".md";
}

std::string localPath(const std::string& uri, const std::string& field) {
    auto path = uriToPath(uri);
    if (!path) throw invalidField(field, "must be a file:// URI");
    return *path;
}

std::vector<std::string> rootsOf(const Bound& b) {
    std::vector<std::string> out;
    for (auto* e : b.engines)
        out.push_back(e->root());
    return out;
}

// The deepest bound root holding the absolute path.
std::optional<size_t> ownerOf(const Bound& b, const std::string& path) {
    if (path.empty() || path[0] != '/') return std::nullopt;
    std::optional<size_t> best;
    for (size_t i = 0; i < b.engines.size(); ++i)
        if (relativeToRoot(b.engines[i]->root(), path) &&
            (!best || b.engines[i]->root().size() > b.engines[*best]->root().size()))
            best = i;
    return best;
}

// The root whose project store holds the claim, the first for a medulla
// claim. The files decide, not the indexes: a claim another process wrote
// a moment ago is already on disk.
std::optional<size_t> holderOf(const Bound& b, const std::string& id) {
    std::optional<size_t> found;
    for (size_t i = 0; i < b.engines.size(); ++i) {
        if (!statFile(claimFile(b.engines[i]->projectDir(), id))) continue;
        if (found)
            throw RoutingError(ErrorKind::AmbiguousRoot,
                               "id: claim '" + id + "' exists in the stores of both " +
                                   b.engines[*found]->root() + " and " + b.engines[i]->root() +
                                   "; add root naming the one this call is about",
                               "root", {b.engines[*found]->root(), b.engines[i]->root()});
        found = i;
    }
    if (found) return found;
    if (!b.home.empty() && statFile(claimFile(b.home + "/medulla", id))) return 0;
    return std::nullopt;
}

} // namespace

std::string rootList(const Bound& b) {
    std::string out;
    for (auto* e : b.engines)
        out += (out.empty() ? "" : ", ") + e->root();
    return out;
}

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

RouteHints routeHints(const json& params, const char* idField) {
    RouteHints h;
    protocol::Params p(params);
    if (auto root = p.optString("root")) h.root = canonicalRootParam(*root, "root");
    if (const json* td = p.optObject("textDocument"))
        if (auto uri = protocol::Params(*td, "textDocument").optString("uri"))
            h.documents.push_back({localPath(*uri, "textDocument.uri"), "textDocument.uri"});
    if (auto uri = p.optString("uri")) h.documents.push_back({localPath(*uri, "uri"), "uri"});
    if (auto path = p.optString("path")) h.documents.push_back({*path, "path"});
    if (const json* anchors = p.optArray("anchors")) {
        for (size_t i = 0; i < anchors->size(); ++i) {
            std::string field = "anchors[" + std::to_string(i) + "]";
            if ((*anchors)[i].is_string()) { // path#symbol, path:LINE...
                h.documents.push_back(
                    {protocol::detail::anchorFromText((*anchors)[i].get<std::string>(), field).path,
                     field});
                continue;
            }
            protocol::Params a((*anchors)[i], field);
            if (auto uri = a.optString("uri"))
                h.documents.push_back({localPath(*uri, field + ".uri"), field + ".uri"});
            else if (auto path = a.optString("path"))
                h.documents.push_back({*path, field + ".path"});
        }
    }
    if (idField)
        if (auto id = p.optString(idField)) h.claimId = *id;
    h.medullaOnly = p.optString("tier") == "medulla";
    return h;
}

Routed route(const Bound& b, const RouteHints& hints) {
    if (b.engines.empty())
        throw EngramError(ErrorKind::NotBound, "no workspace root is bound",
                          {{"field", std::string("root")}});
    if (hints.root) {
        if (auto held = deepestRootHolding(rootsOf(b), *hints.root))
            for (size_t i = 0; i < b.engines.size(); ++i)
                if (b.engines[i]->root() == *held) return {i, std::nullopt};
        // The answer (or refusal) comes from the document's root when the
        // call has one, so paths in it still resolve.
        for (auto& d : hints.documents)
            if (auto i = ownerOf(b, d.path)) return {*i, hints.root};
        return {0, hints.root};
    }
    // With one root, rules 2 and 3 give the same answer: no document need
    // be resolved (a realpath each) on the way to it.
    if (b.engines.size() == 1) return {0, std::nullopt};
    for (auto& d : hints.documents)
        if (auto i = ownerOf(b, d.path)) return {*i, std::nullopt};
    for (auto& d : hints.documents) {
        if (d.path.empty() || d.path[0] != '/') continue;
        throw RoutingError(ErrorKind::OutsideRoot,
                           d.field + ": '" + d.path + "' is outside every workspace root (" +
                               rootList(b) + ")",
                           d.field, rootsOf(b));
    }
    if (hints.claimId) {
        if (!Store::validId(*hints.claimId))
            throw invalidField("id", "'" + *hints.claimId + "' is not a claim id");
        if (auto i = holderOf(b, *hints.claimId)) return {*i, std::nullopt};
        throw EngramError(ErrorKind::UnknownClaim,
                          "no claim with id '" + *hints.claimId +
                              "' in the store of any workspace root (" + rootList(b) +
                              ") or in the medulla",
                          {{"id", *hints.claimId}});
    }
    if (hints.medullaOnly) return {0, std::nullopt};
    std::string relative;
    for (auto& d : hints.documents)
        if (!d.path.empty() && relative.empty())
            relative = " (" + d.field + " '" + d.path +
                       "' is relative, so it could be in any of them: root says which)";
    throw RoutingError(ErrorKind::AmbiguousRoot,
                       "root: this session serves several workspace roots (" + rootList(b) +
                           ") and nothing in the call says which one it is about" + relative +
                           "; add the parameter root naming one of them (or a document inside "
                           "one)",
                       "root", rootsOf(b));
}

Routed routeFor(const Bound& b, const RouteHints& hints, const Operation& op) {
    return op.answersUnbound ? route(b, hints) : routeBound(b, hints);
}

Routed routeBound(const Bound& b, const RouteHints& hints) {
    Routed r = route(b, hints);
    if (!r.unboundRoot) return r;
    // Nothing but recall, status and inbox may answer for a root the
    // session does not serve: a write would land in another project's
    // store, and a read without an envelope could not say whose memory it is.
    const std::string& root = *r.unboundRoot;
    RoutingError e(ErrorKind::NotBound,
                   "root: this engram serves " + rootList(b) + ", not " + root +
                       "; pass one of them as root, or " +
                       (b.howToAdd ? b.howToAdd(root) : std::string("start engram for it")),
                   "root", rootsOf(b));
    e.details.emplace_back("root", root);
    throw e;
}

void explainUnbound(json& envelope, const Bound& b, const std::string& requested) {
    if (!envelope.is_object() || !envelope["recovery"].is_object()) return;
    json& recovery = envelope["recovery"];
    recovery["roots"] = rootsOf(b);
    // The engine knows only its own root; the session knows all of them.
    if (b.engines.size() > 1)
        recovery["reason"] =
            "this engram serves the workspace roots " + rootList(b) + ", not " + requested +
            ": pass one of them as root, or " +
            (b.howToAdd ? b.howToAdd(requested) : std::string("start engram for it"));
}

} // namespace engram::ops
