// Instruction files checked against the code (ARCHITECTURE.md, "Instruction
// files"): the engine's side. What a scan judges, and how, is in
// engine/InstructionScan.cpp; here the engine hands it the workspace's code
// index, the editor's buffers and the project store, and records stamps.
#include "engine/Checks.h"
#include "engine/Engine.h"
#include "engine/InstructionScan.h"
#include "engine/Tier.h"
#include "store/ClaimFile.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Paths.h"

#include <unistd.h>

namespace engram {

using instructions::RefForm;

InstructionScan Engine::scanInstructions(const std::optional<std::string>& onlyFile,
                                         const std::string* text, bool searchHistory) {
    // Judging (check, status, findings) builds or refreshes the code index,
    // and with it the listing of the workspace's files; recall and the hook
    // read them as they are, never walking the workspace on their path.
    if (searchHistory) {
        awaitCodeWalk();
        // A walk made for a shape lookup (an anchor's definition looked
        // for elsewhere) lists no files: a one-shot command walks again
        // with the listing, or an instruction file added since the last
        // listing would go unjudged in silence. Servers list on a thread of
        // their own.
        Tier* code = codeTier();
        if (code && (!codeIndex_->walked(code->index.get()) ||
                     (!opts_.servesInBackground() && !codeIndex_->listed(code->index.get()))))
            indexCode();
    }
    std::vector<std::string> files = instructionFiles();
    if (onlyFile) files = {*onlyFile};
    Tier* project = tiers_.find("project");
    Tier* code = codeTier(false);
    ScanSetup setup;
    setup.root = opts_.root;
    setup.storeDir = project ? project->store->dir() : opts_.root + "/.engram";
    setup.anchorer = &anchorer_;
    setup.code = code ? code->index.get() : nullptr;
    setup.listed = code && code->index->generations().files != 0;
    // Nothing indexed, by this process or an earlier one, or no listing of
    // the files: no index to look names up in.
    setup.indexed =
        setup.listed && (codeIndex_->walked(code->index.get()) || code->index->anyCodeSymbols());
    setup.searchHistory = searchHistory;
    return scanInstructionFiles(setup, files, [&](const std::string& file) {
        return text && onlyFile && file == *onlyFile ? text : anchorer_.documentText(file);
    });
}

ReverifyFileResult Engine::reverifyInstructions(const std::string& file, std::optional<int> line,
                                                const std::string& agent) {
    const std::string rel = confinedPath(opts_.root, "file", file);
    checkAgent(agent);
    if (!statFile(opts_.root + "/" + rel))
        throw invalidField("file", "no file '" + rel + "' in the workspace");
    if (line && *line < 1) throw invalidField("line", "must be 1 or more");
    Tier& t = tiers_.writable("project");
    ReverifyFileResult out;
    out.file = rel;
    InstructionScan scan = scanInstructions(rel);
    auto lock = t.store->lock();
    std::string path = stampPath(t.store->dir(), rel);
    auto stamps = readStamps(path);
    std::string detail;
    for (auto& r : scan.refs) {
        if (line && int(r.ref.lineIndex) + 1 != *line) continue;
        if (r.ref.form != RefForm::PathSymbol && r.ref.form != RefForm::Name) continue;
        std::string where =
            rel + ":" + std::to_string(r.ref.lineIndex + 1) + " `" + r.ref.written + "`";
        // Only what names one definition now can be stamped: a moved
        // reference is rewritten first (the code action), a dangling one fixed.
        if (r.state == "moved" || r.state == "dangling" || r.state == "ambiguous" || !r.current) {
            out.refused.push_back(where + ": " + r.state +
                                  (r.why.empty() ? "" : " (" + r.why + ")"));
            continue;
        }
        stamps[r.ref.written] = *r.current;
        ++out.stamped;
        if (r.state != "ok") detail += (detail.empty() ? "" : "; ") + where + " was " + r.state;
    }
    if (out.stamped == 0) return out;
    std::string body = "# engram: the code references of " + rel +
                       " as last verified (engram reverify --file); one per line.\n";
    for (auto& [written, a] : stamps)
        body += written + "\t" + formatAnchor(a) + "\n";
    // Refused, nothing of it stays: a failure after the rename (the
    // directory's sync, the audit append) puts the stamps back as they were.
    std::optional<std::string> before = readFile(path);
    try {
        makeDirs(parentDir(path));
        atomicWrite(path, body);
        t.store->audit().append("reverify-file", rel, agent,
                                std::to_string(out.stamped) + " references stamped" +
                                    (detail.empty() ? "" : "; " + detail));
    } catch (...) {
        try {
            if (readFile(path) != before) {
                if (before)
                    atomicWrite(path, *before);
                else if (::unlink(path.c_str()) == 0)
                    fsyncDir(parentDir(path));
            }
        } catch (...) {
        }
        throw;
    }
    return out;
}

} // namespace engram
