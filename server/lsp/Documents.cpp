// Text synchronisation and the editor features built on anchors: memory
// diagnostics, hover, code lens, and engram/anchors.
//
// Open documents are handed to the engine, whose anchorer re-parses them
// incrementally, so an unsaved edit that changes an anchored function drifts
// its claims at once. Positions cross this layer in UTF-16 (the LSP's unit)
// and are converted to bytes against the text the engine holds.
#include "lsp/Log.h"
#include "lsp/LspServer.h"
#include "protocol/Convert.h"
#include "util/Paths.h"
#include "util/Position.h"
#include "util/Time.h"

#include <map>

namespace engram {

using protocol::json;

namespace {

std::string docPath(const protocol::Params& p, const char* field = "textDocument") {
    const json* td = p.optObject(field);
    if (!td) throw invalidField(p.field(field), "is required");
    auto uri = protocol::Params(*td, p.field(field)).reqString("uri");
    auto path = uriToPath(uri);
    if (!path) throw invalidField(p.field(field) + ".uri", "must be a file:// URI");
    return *path;
}

json lspRange(const std::string& text, uint32_t sl, uint32_t sc, uint32_t el, uint32_t ec) {
    return {{"start", {{"line", sl}, {"character", utf16Column(text, sl, sc)}}},
            {"end", {{"line", el}, {"character", utf16Column(text, el, ec)}}}};
}

std::string shortText(const std::string& s, size_t max = 160) {
    std::string out = s.substr(0, max);
    for (auto& c : out)
        if (c == '\n') c = ' ';
    return s.size() > max ? out + "…" : out;
}

std::string orUnknown(const std::string& s) {
    return s.empty() ? "unknown" : s;
}

} // namespace

void LspServer::publishDiagnostics(const std::string& path, std::optional<int64_t> version) {
    // The same findings `engram check` reports, restricted to this file: for
    // a source file its anchors' drift and moves (on the symbols' current
    // ranges); for an open claim file its own problems (orphaned, stale,
    // secret, invalid).
    auto text = engine().documentText(path);
    auto rel = relativeToRoot(engine().root(), path);
    json diags = json::array();
    if (text && rel) {
        static const std::map<std::string, int> severity = {
            {"error", 1}, {"warning", 2}, {"information", 3}, {"hint", 4}};
        for (auto& f : engine().findings({"project", *rel})) {
            if (f.path != *rel) continue;
            auto& r = f.range;
            json d = {
                {"range", lspRange(*text, r.startLine, r.startColumn, r.endLine, r.endColumn)},
                {"severity", severity.count(f.severity) ? severity.at(f.severity) : 2},
                {"code", f.code},
                {"source", "engram"},
                {"message", f.message}};
            if (!f.claimId.empty()) d["data"] = {{"claim_id", f.claimId}};
            if (!f.claimFile.empty() && f.claimFile != path)
                d["relatedInformation"] = json::array(
                    {{{"location",
                       {{"uri", pathToUri(f.claimFile)}, {"range", lspRange("", 0, 0, 0, 0)}}},
                      {"message", "the claim file"}}});
            diags.push_back(std::move(d));
        }
    }
    if (auto it = openDocs_.find(path); it != openDocs_.end() && version) it->second = version;
    json params = {{"uri", pathToUri(path)}, {"diagnostics", diags}};
    if (version) params["version"] = *version;
    reply(protocol::notification("textDocument/publishDiagnostics", params));
}

void LspServer::republishOpen() {
    for (auto& [path, version] : openDocs_) {
        try {
            if (relativeToRoot(engine().root(), path)) publishDiagnostics(path, version);
        } catch (const std::exception& e) {
            logLine("diagnostics for " + path + " failed: " + e.what());
        }
    }
}

json LspServer::onDidOpen(const json& params) {
    protocol::Params p(params);
    std::string path = docPath(p);
    protocol::Params td(*p.optObject("textDocument"), "textDocument");
    engine().openDocument(path, td.reqString("text"));
    openDocs_[path] = td.optInt("version");
    if (relativeToRoot(engine().root(), path)) publishDiagnostics(path, td.optInt("version"));
    return nullptr;
}

json LspServer::onDidChange(const json& params) {
    protocol::Params p(params);
    std::string path = docPath(p);
    protocol::Params td(*p.optObject("textDocument"), "textDocument");
    const json* changes = p.optArray("contentChanges");
    if (!changes) throw invalidField("contentChanges", "is required");
    for (size_t i = 0; i < changes->size(); ++i) {
        protocol::Params c((*changes)[i], "contentChanges[" + std::to_string(i) + "]");
        std::string text = c.reqString("text");
        const json* range = c.optObject("range");
        if (!range) {
            engine().replaceDocument(path, std::move(text));
            continue;
        }
        auto current = engine().documentText(path);
        if (!current) continue;
        auto pos = [&](const char* which) {
            const json& r = (*range)[which];
            return byteOffset(*current, r.at("line").get<uint32_t>(),
                              r.at("character").get<uint32_t>());
        };
        uint32_t start = pos("start"), end = pos("end");
        engine().editDocument(path, start, std::max(start, end), text);
    }
    if (relativeToRoot(engine().root(), path)) publishDiagnostics(path, td.optInt("version"));
    return nullptr;
}

json LspServer::onDidSave(const json& params) {
    std::string path = docPath(protocol::Params(params));
    if (relativeToRoot(engine().root(), path)) publishDiagnostics(path, std::nullopt);
    return nullptr;
}

json LspServer::onDidClose(const json& params) {
    std::string path = docPath(protocol::Params(params));
    engine().closeDocument(path);
    openDocs_.erase(path);
    // Closed files show no diagnostics in the editor; `engram check` covers
    // the whole workspace.
    reply(protocol::notification("textDocument/publishDiagnostics",
                                 {{"uri", pathToUri(path)}, {"diagnostics", json::array()}}));
    return nullptr;
}

json LspServer::onHover(const json& params) {
    protocol::Params p(params);
    std::string path = docPath(p);
    const json* pos = p.optObject("position");
    if (!pos) throw invalidField("position", "is required");
    auto text = engine().documentText(path);
    if (!text || !relativeToRoot(engine().root(), path)) return nullptr;
    uint32_t line = pos->at("line").get<uint32_t>();
    uint32_t col = byteColumn(*text, line, pos->at("character").get<uint32_t>());
    auto symbol = engine().symbolAt(path, line, col);
    if (!symbol) return nullptr;
    std::vector<AnchoredClaim> hits;
    for (auto& a : engine().anchorsIn(path))
        if (a.startLine && *a.startLine == symbol->startLine &&
            *a.startColumn == symbol->startColumn)
            hits.push_back(a);
    if (hits.empty()) return nullptr;
    std::string md = "**engram** · " + std::to_string(hits.size()) + " memor" +
                     (hits.size() == 1 ? "y" : "ies") + " on `" + symbol->qualified + "`\n";
    for (auto& a : hits) {
        md += "\n- **" + orUnknown(a.claim.kind) + "** " +
              (a.claim.label.empty() ? "" : "`" + a.claim.label + "` ") +
              shortText(a.claim.text, 400) + "  \n  _" + a.state +
              (a.movedTo.empty() ? "" : " to " + a.movedTo) + " · " +
              (a.ageSeconds ? humanAge(*a.ageSeconds) : std::string("age unknown")) + " · by " +
              orUnknown(a.claim.sourceAgent) + " · " + a.claim.id + "_";
    }
    return {{"contents", {{"kind", "markdown"}, {"value", md}}},
            {"range", lspRange(*text, symbol->startLine, symbol->startColumn, symbol->endLine,
                               symbol->endColumn)}};
}

json LspServer::onCodeLens(const json& params) {
    std::string path = docPath(protocol::Params(params));
    auto text = engine().documentText(path);
    json lenses = json::array();
    if (!text || !relativeToRoot(engine().root(), path)) return lenses;
    struct Group {
        int memories = 0, drifted = 0, moved = 0;
        std::vector<std::string> ids;
    };
    std::map<std::pair<uint32_t, uint32_t>, Group> groups;
    for (auto& a : engine().anchorsIn(path)) {
        if (!a.startLine) continue;
        auto& g = groups[{*a.startLine, *a.startColumn}];
        ++g.memories;
        g.drifted += a.state == "drifted";
        g.moved += a.state == "moved";
        g.ids.push_back(a.claim.id);
    }
    for (auto& [at, g] : groups) {
        std::string title =
            std::to_string(g.memories) + (g.memories == 1 ? " memory" : " memories");
        if (g.drifted) title += " · " + std::to_string(g.drifted) + " drifted";
        if (g.moved) title += " · " + std::to_string(g.moved) + " moved";
        lenses.push_back({{"range", lspRange(*text, at.first, at.second, at.first, at.second)},
                          {"command",
                           {{"title", title},
                            {"command", "engram.showMemories"},
                            {"arguments", json::array({{{"ids", g.ids}}})}}}});
    }
    return lenses;
}

json LspServer::onCodeAction(const json& params) {
    protocol::Params p(params);
    json actions = json::array();
    const json* context = p.optObject("context");
    if (!context || !context->contains("diagnostics")) return actions;
    for (const json& d : (*context)["diagnostics"]) {
        if (!d.is_object() || d.value("source", "") != "engram" || !d.contains("data")) continue;
        std::string id = d["data"].value("claim_id", "");
        if (id.empty()) continue;
        std::string code = d.value("code", "");
        auto action = [&](const std::string& title, const std::string& command, json args,
                          bool preferred) {
            json a = {{"title", title},
                      {"kind", "quickfix"},
                      {"diagnostics", json::array({d})},
                      {"command", {{"title", title}, {"command", command}, {"arguments", {args}}}}};
            if (preferred) a["isPreferred"] = true;
            actions.push_back(std::move(a));
        };
        const std::string& who = editorAgent_;
        if (code == "engram.drifted" || code == "engram.moved" || code == "engram.stale")
            action("Re-verify this memory against the current code", "engram.reverify",
                   {{"id", id}, {"agent", who}, {"note", "re-verified from the editor"}}, true);
        action("Retract this memory", "engram.retract",
               {{"id", id}, {"agent", who}, {"reason", "retracted from the editor (" + code + ")"}},
               false);
        action("Open the claim file", "engram.openClaim", {{"id", id}}, false);
    }
    return actions;
}

json LspServer::onAnchors(const json& params) {
    protocol::Params p(params);
    std::string path;
    if (auto uri = p.optString("uri")) {
        auto local = uriToPath(*uri);
        if (!local) throw invalidField("uri", "must be a file:// URI");
        path = *local;
    } else {
        path = p.reqString("path");
    }
    auto anchors = engine().anchorsIn(path);
    auto text = engine().documentText(path).value_or("");
    json out = json::array();
    for (auto& a : anchors) {
        json j = {{"claim_id", a.claim.id},
                  {"label", a.claim.label.empty() ? json(nullptr) : json(a.claim.label)},
                  {"text", a.claim.text},
                  {"anchor", a.anchorIndex},
                  {"symbol", a.claim.anchors[a.anchorIndex].symbol},
                  {"anchor_state", a.state},
                  {"source_agent", orUnknown(a.claim.sourceAgent)},
                  {"age", a.ageSeconds ? json(humanAge(*a.ageSeconds)) : json("unknown")}};
        if (!a.movedTo.empty()) j["moved_to"] = a.movedTo;
        if (a.startLine)
            j["range"] = lspRange(text, *a.startLine, *a.startColumn, *a.endLine, *a.endColumn);
        out.push_back(std::move(j));
    }
    return {{"anchors", out}};
}

} // namespace engram
