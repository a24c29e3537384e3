// Text synchronisation and the editor features built on anchors: memory
// diagnostics, hover and code lens.
//
// Open documents are handed to the engine, whose anchorer re-parses them
// incrementally, so an unsaved edit that changes an anchored function drifts
// its claims at once. Positions cross this layer in UTF-16 (the LSP's unit)
// and are converted to bytes against the text the engine holds.
//
// With several workspace folders, each document belongs to the deepest
// folder holding it and is handed to that folder's engine only; a document
// outside every folder gets no memory features (its text is kept here, so a
// folder added later can take it over).
#include "lsp/LspServer.h"
#include "protocol/Convert.h"
#include "util/Log.h"
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
    return protocol::lspRange(text, TextRange{sl, sc, el, ec});
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

lsp::Folder* LspServer::ownerOf(const std::string& path) {
    return folders_->ownerOf(path);
}

void LspServer::publishDiagnostics(const std::string& path, std::optional<int64_t> version) {
    // The same findings `engram check` reports, restricted to this file: for
    // a source file its anchors' drift and moves (on the symbols' current
    // ranges); for an open claim file its own problems (orphaned, stale,
    // secret, invalid).
    lsp::Folder* f = ownerOf(path);
    auto text = f ? f->engine.documentText(path) : std::nullopt;
    auto rel = f ? relativeToRoot(f->root(), path) : std::nullopt;
    json diags = json::array();
    if (text && rel) {
        // LSP's DiagnosticSeverity counts from 1 in Severity's order.
        auto severity = [](const std::string& s) {
            return int(unspell<Severity>(s).value_or(Severity::Warning)) + 1;
        };
        for (auto& finding : f->engine.findings({"project", *rel})) {
            // A definition that left this file for another is reported
            // there, where its code is now; the editor finds claims by the
            // file they are anchored in, so it is shown here too, at the
            // top of the file, pointing at where the code went.
            bool leftFile = finding.path != *rel && finding.code == "engram.moved" &&
                            finding.subject.starts_with(*rel + "#");
            if (finding.path != *rel && !leftFile) continue;
            TextRange r = leftFile ? TextRange{} : finding.range;
            json d = {
                {"range", lspRange(*text, r.startLine, r.startColumn, r.endLine, r.endColumn)},
                {"severity", severity(finding.severity)},
                {"code", finding.code},
                {"source", "engram"},
                {"message", finding.message}};
            if (!finding.claimId.empty()) {
                d["data"] = {{"claim_id", finding.claimId}, {"subject", finding.subject}};
                if (!finding.successor.empty()) d["data"]["successor"] = finding.successor;
            } else if (finding.subject.starts_with("ref:"))
                // An instruction file's reference: what the code actions
                // need (the line to re-verify, the text to write).
                d["data"] = {{"reference", finding.subject.substr(4)},
                             {"file", *rel},
                             {"line", r.startLine + 1},
                             {"replacement", finding.replacement}};
            json related = json::array();
            if (leftFile) {
                std::string now = f->root() + "/" + finding.path;
                auto nowText = f->engine.documentText(now);
                const auto& to = finding.range;
                related.push_back(
                    {{"location",
                      {{"uri", pathToUri(now)},
                       {"range", lspRange(nowText.value_or(""), to.startLine, to.startColumn,
                                          to.endLine, to.endColumn)}}},
                     {"message", "where its code is now"}});
            }
            if (!finding.claimFile.empty() && finding.claimFile != path)
                related.push_back(
                    {{"location",
                      {{"uri", pathToUri(finding.claimFile)}, {"range", lspRange("", 0, 0, 0, 0)}}},
                     {"message", "the claim file"}});
            if (!related.empty()) d["relatedInformation"] = std::move(related);
            diags.push_back(std::move(d));
        }
    }
    if (auto it = openDocs_.find(path); it != openDocs_.end() && version)
        it->second.version = version;
    json params = {{"uri", pathToUri(path)}, {"diagnostics", diags}};
    if (version) params["version"] = *version;
    reply(protocol::notification("textDocument/publishDiagnostics", params));
}

void LspServer::clearDiagnostics(const std::string& path) {
    reply(protocol::notification("textDocument/publishDiagnostics",
                                 {{"uri", pathToUri(path)}, {"diagnostics", json::array()}}));
}

void LspServer::republishOpen(const std::string& onlyRoot) {
    bool any = false;
    for (auto& [path, doc] : openDocs_) {
        if (doc.owner.empty() || (!onlyRoot.empty() && doc.owner != onlyRoot)) continue;
        any = true;
        try {
            publishDiagnostics(path, doc.version);
        } catch (const std::exception& e) {
            logLine("diagnostics for " + path + " failed: " + e.what());
        }
    }
    // Memory changed without the text changing (a write, another process's
    // claim file): the lenses' counts are stale too, and a client asks for
    // lenses again only when its text changes, unless told to.
    if (any && codeLensRefresh_)
        reply({{"jsonrpc", "2.0"},
               {"id", "engram-lens-" + std::to_string(++serverRequests_)},
               {"method", "workspace/codeLens/refresh"}});
}

json LspServer::onDidOpen(const json& params) {
    protocol::Params p(params);
    std::string path = docPath(p);
    protocol::Params td(*p.optObject("textDocument"), "textDocument");
    std::string text = td.reqString("text");
    auto version = td.optInt("version");
    lsp::Folder* f = ownerOf(path);
    OpenDoc& doc = openDocs_[path];
    doc.version = version;
    doc.owner = f ? f->root() : std::string();
    doc.text.reset();
    if (!f) {
        doc.text = std::move(text);
        return nullptr;
    }
    f->engine.openDocument(path, std::move(text));
    publishDiagnostics(path, version);
    return nullptr;
}

json LspServer::onDidChange(const json& params) {
    protocol::Params p(params);
    std::string path = docPath(p);
    protocol::Params td(*p.optObject("textDocument"), "textDocument");
    const json* changes = p.optArray("contentChanges");
    if (!changes) throw invalidField("contentChanges", "is required");
    // The folder's engine holds the text of a document inside it; this
    // layer holds the text of one outside every folder.
    auto it = openDocs_.find(path);
    lsp::Folder* f = ownerOf(path);
    std::string* held = it != openDocs_.end() && it->second.text ? &*it->second.text : nullptr;
    for (size_t i = 0; i < changes->size(); ++i) {
        protocol::Params c((*changes)[i], "contentChanges[" + std::to_string(i) + "]");
        std::string text = c.reqString("text");
        const json* range = c.optObject("range");
        if (!range) {
            if (f)
                f->engine.replaceDocument(path, std::move(text));
            else if (held)
                *held = std::move(text);
            continue;
        }
        auto current = f ? f->engine.documentText(path)
                         : (held ? std::optional<std::string>(*held) : std::nullopt);
        if (!current) continue;
        auto pos = [&](const char* which) {
            const json& r = (*range)[which];
            return byteOffset(*current, r.at("line").get<uint32_t>(),
                              r.at("character").get<uint32_t>());
        };
        uint32_t start = pos("start"), end = std::max(start, pos("end"));
        if (f)
            f->engine.editDocument(path, start, end, text);
        else if (held)
            held->replace(start, std::min<size_t>(end, held->size()) - start, text);
    }
    if (f)
        publishDiagnostics(path, td.optInt("version"));
    else if (it != openDocs_.end() && td.optInt("version"))
        it->second.version = td.optInt("version");
    return nullptr;
}

json LspServer::onDidSave(const json& params) {
    std::string path = docPath(protocol::Params(params));
    if (ownerOf(path)) publishDiagnostics(path, std::nullopt);
    return nullptr;
}

json LspServer::onDidClose(const json& params) {
    std::string path = docPath(protocol::Params(params));
    if (lsp::Folder* f = ownerOf(path)) f->engine.closeDocument(path);
    openDocs_.erase(path);
    // Closed files show no diagnostics in the editor; `engram check` covers
    // the whole workspace.
    clearDiagnostics(path);
    return nullptr;
}

json LspServer::onHover(const json& params) {
    protocol::Params p(params);
    std::string path = docPath(p);
    const json* pos = p.optObject("position");
    if (!pos) throw invalidField("position", "is required");
    lsp::Folder* f = ownerOf(path);
    if (!f) return nullptr; // outside every folder: engram knows nothing of it
    auto text = f->engine.documentText(path);
    if (!text) return nullptr;
    uint32_t line = pos->at("line").get<uint32_t>();
    uint32_t col = byteColumn(*text, line, pos->at("character").get<uint32_t>());
    if (auto rel = relativeToRoot(f->root(), path); rel && f->engine.isInstructionFile(*rel))
        return instructionHover(f->engine, f->root(), *rel, *text, line, col);
    auto symbol = f->engine.symbolAt(path, line, col);
    if (!symbol) return nullptr;
    std::vector<AnchoredClaim> hits;
    for (auto& a : f->engine.anchorsIn(path))
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
    json lenses = json::array();
    lsp::Folder* f = ownerOf(path);
    if (!f) return lenses;
    auto text = f->engine.documentText(path);
    if (!text) return lenses;
    struct Group {
        int memories = 0, drifted = 0, moved = 0;
        std::vector<std::string> ids;
    };
    std::map<std::pair<uint32_t, uint32_t>, Group> groups;
    for (auto& a : f->engine.anchorsIn(path)) {
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
        if (!d.is_object() || d.value("source", "") != "engram" || !d.contains("data") ||
            !d["data"].is_object())
            continue;
        if (d["data"].contains("reference")) {
            instructionActions(docPath(p), d, actions);
            continue;
        }
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
        // An orphan whose code looks renamed and edited: re-verifying
        // follows it there, once the reader has checked the claim.
        if (code == "engram.orphaned" && d["data"].contains("successor") &&
            d["data"]["successor"].is_string()) {
            std::string to = d["data"]["successor"].get<std::string>();
            action("Re-verify this memory against " + to.substr(to.find('#') + 1) +
                       ", its likely successor",
                   "engram.reverify",
                   {{"id", id}, {"agent", who}, {"note", "followed to " + to + " from the editor"}},
                   true);
        }
        if (code == "engram.unmerged" ||
            (code == "engram.conflict" && d["data"].value("subject", "") == "diverged"))
            action("Resolve this memory with engram's merge rule", "engram.resolve",
                   {{"id", id}, {"agent", who}}, true);
        action("Retract this memory", "engram.retract",
               {{"id", id}, {"agent", who}, {"reason", "retracted from the editor (" + code + ")"}},
               false);
        action("Open the claim file", "engram.openClaim", {{"id", id}}, false);
    }
    return actions;
}

// An instruction file's reference under the cursor: its state, what it
// resolves to and what it was judged against (ARCHITECTURE.md, "Instruction files").
json LspServer::instructionHover(Engine& engine, const std::string& root, const std::string& rel,
                                 const std::string& text, uint32_t line, uint32_t column) {
    auto scan = engine.scanInstructions(rel);
    for (auto& r : scan.refs) {
        const auto& ref = r.ref;
        if (ref.lineIndex != line || column < ref.startColumn || column > ref.endColumn) continue;
        std::string md = "**engram** · `" + ref.written + "` · **" + r.state + "**\n\n";
        if (r.state == "dangling") {
            md += "Names nothing that exists: " + r.why + ".";
            if (!r.replacement.empty()) md += " Write `" + r.replacement + "`.";
        } else if (r.state == "ambiguous") {
            md += "Names " + r.target + (r.why.empty() ? "" : ": " + r.why) +
                  "; not judged. Qualify it (`path#Name`) to have it checked.";
        } else {
            std::string target = r.target;
            if (r.targetRange) {
                auto file = target.substr(0, target.find('#'));
                target = "[" + target + "](" + pathToUri(root + "/" + file) + "#L" +
                         std::to_string(r.targetRange->startLine + 1) + ")";
            } else {
                target = "`" + target + "`";
            }
            md += "Resolves to " + target + ".";
            if (r.state == "drifted")
                md += "\n\nDrifted: " + r.why +
                      ". Check that the text still holds, then "
                      "re-verify the line.";
            else if (r.state == "moved")
                md += "\n\nMoved: " + r.why + ". Write `" + r.replacement + "`.";
            if (r.baseline == "stamp")
                md += "\n\n_Judged against the stamp of its last re-verification._";
            else if (r.baseline.starts_with("git "))
                md += "\n\n_Judged against commit " + r.baseline.substr(4) +
                      ", the last to change this line._";
            else if (r.state == "ok" && ref.form != instructions::RefForm::Path &&
                     ref.form != instructions::RefForm::PathLine)
                md += "\n\n_Not judged for change: no stamp and no commit of this line._";
        }
        return {{"contents", {{"kind", "markdown"}, {"value", md}}},
                {"range", lspRange(text, line, ref.startColumn, line, ref.endColumn)}};
    }
    return nullptr;
}

// The quick fixes of an instruction file's reference: write the new name of
// a moved one (or the one place a missing file now is), re-verify a drifted
// line.
void LspServer::instructionActions(const std::string& path, const json& d, json& actions) {
    const json& data = d["data"];
    std::string replacement = data.value("replacement", "");
    std::string code = d.value("code", "");
    if (!replacement.empty() && d.contains("range")) {
        std::string title = "Write `" + replacement + "`";
        actions.push_back({{"title", title},
                           {"kind", "quickfix"},
                           {"diagnostics", json::array({d})},
                           {"isPreferred", true},
                           {"edit",
                            {{"changes",
                              {{pathToUri(path), json::array({{{"range", d["range"]},
                                                               {"newText", replacement}}})}}}}}});
    }
    if (code == "engram.drifted" && data.contains("file") && data.contains("line")) {
        lsp::Folder* f = ownerOf(path);
        if (!f) return;
        std::string title = "Re-verify this line's references against the current code";
        json args = {{"file", data.value("file", "") + ":" + std::to_string(data.value("line", 0))},
                     {"agent", editorAgent_},
                     {"root", f->root()}};
        actions.push_back({{"title", title},
                           {"kind", "quickfix"},
                           {"diagnostics", json::array({d})},
                           {"isPreferred", true},
                           {"command",
                            {{"title", title},
                             {"command", "engram.reverifyFile"},
                             {"arguments", json::array({args})}}}});
    }
}

} // namespace engram
