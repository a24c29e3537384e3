// Instruction files' paragraphs in recall and packets (ARCHITECTURE.md, "Instruction files").
//
// The files are small (a few to a few dozen paragraphs each), so they are
// not put in the claims' full-text index: a paragraph is not a claim, and
// keeping it out of the index keeps it out of every claim path (counts,
// findings, retract). They are ranked here with BM25 over the same terms
// the claims' index uses (text::tokenize), among themselves.
//
// Cost: the list of files is the last listing's (engine/InstructionFiles.cpp: one
// indexed query, no process), a file is read and split again only when it
// changed, and the references' states (which may ask git blame) are judged
// only for the paragraphs returned, one scan per file they come from.
#include "engine/Engine.h"

#include <map>

namespace engram {

std::vector<InstructionHit> Engine::recallInstructions(const std::string& query, size_t limit) {
    std::vector<InstructionHit> out = instructions_->bestParagraphs(query, limit);

    // The references' states, one scan per file.
    std::map<std::string, InstructionScan> scans;
    for (auto& h : out) {
        auto it = scans.find(h.file);
        if (it == scans.end())
            it = scans.emplace(h.file, scanInstructions(h.file, nullptr, false)).first;
        for (auto& r : it->second.refs)
            if (r.ref.lineIndex + 1 >= h.line && r.ref.lineIndex + 1 <= h.endLine) {
                h.references.emplace_back(r.ref.written, r.state);
                if (!r.reason.empty()) h.notJudged.add(r.reason);
            }
    }
    return out;
}

} // namespace engram
