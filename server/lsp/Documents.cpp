// Text synchronisation and the editor features built on anchors: memory
// diagnostics, hover, code lens, and engram/anchors.
//
// Open documents are handed to the engine, whose anchorer re-parses them
// incrementally, so an unsaved edit that changes an anchored function drifts
// its claims at once. Positions cross this layer in UTF-16 (the LSP's unit)
// and are converted to bytes against the text the engine holds.
#include "lsp/Log.h"
#include "lsp/LspServer.h"
#include "lsp/Position.h"
#include "protocol/Convert.h"
#include "util/Paths.h"
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
    return {{"start", {{"line", sl}, {"character", lsp::utf16Column(text, sl, sc)}}},
            {"end", {{"line", el}, {"character", lsp::utf16Column(text, el, ec)}}}};
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

std::string describe(const AnchoredClaim& a) {
    std::string label = a.claim.label.empty() ? a.claim.id : a.claim.label;
    return label + ": " + shortText(a.claim.text);
}

} // namespace

void LspServer::publishDiagnostics(const std::string& path, std::optional<int64_t> version) {
    auto text = engine().documentText(path);
    json diags = json::array();
    if (text) {
        int64_t staleAfter = 30 * 86400;
        int64_t now = nowUnix();
        for (auto& a : engine().anchorsIn(path)) {
            if (!a.startLine) continue; // orphaned: reported on the claim file by engram check
            std::string code;
            int severity = 0;
            std::string what;
            if (a.state == "drifted") {
                code = "engram.drifted", severity = 2;
                what = "the anchored code changed since this memory was recorded or re-verified";
            } else if (a.state == "moved") {
                code = "engram.moved", severity = 3;
                what = "the anchored code now lives at " + a.movedTo + " (re-verify to follow it)";
            } else {
                int64_t since = a.claim.verified.value_or(a.claim.created.value_or(now));
                if (now - since <= staleAfter) continue;
                code = "engram.stale", severity = 4;
                what = "not re-verified for " + humanAge(now - since);
            }
            std::string claimFile = engine().projectDir() + "/claims/" + a.claim.id + ".md";
            diags.push_back(
                {{"range", lspRange(*text, *a.startLine, *a.startColumn, *a.endLine, *a.endColumn)},
                 {"severity", severity},
                 {"code", code},
                 {"source", "engram"},
                 {"message", describe(a) + " — " + what},
                 {"data", {{"claim_id", a.claim.id}, {"anchor", a.anchorIndex}}},
                 {"relatedInformation", json::array({{{"location",
                                                       {{"uri", pathToUri(claimFile)},
                                                        {"range", lspRange("", 0, 0, 0, 0)}}},
                                                      {"message", "the claim file"}}})}});
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
            return lsp::byteOffset(*current, r.at("line").get<uint32_t>(),
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
    uint32_t col = lsp::byteColumn(*text, line, pos->at("character").get<uint32_t>());
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
