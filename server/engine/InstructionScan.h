// Instruction files checked against the code: one scan, reading the
// workspace, its code index and git (ARCHITECTURE.md, "Instruction files").
// The engine hands a scan what it owns (Engine::scanInstructions); the scan
// keeps nothing once it ends but the git answers it recorded in the index.
#pragma once
#include "engine/Anchoring.h"
#include "index/Index.h"
#include "instructions/References.h"
#include "model/NotJudged.h"
#include "model/Requests.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace engram {

// A code reference in an instruction file and what engram makes of it.
struct InstructionRef {
    std::string file; // the instruction file, workspace-relative
    instructions::Reference ref;
    // ok | dangling | drifted | moved | ambiguous (names several definitions:
    // resolved, but not judged) | unjudged (why in `reason`)
    std::string state;
    std::string reason;  // unjudged and ambiguous: why not judged (model/NotJudged.h)
    std::string target;  // what it resolved to: "path", "path:N", "path#Qualified"
    std::string why;     // dangling, drifted, moved: what happened, in words
    std::string movedTo; // moved: "path#Qualified" now
    // The text to write instead of ref.written (moved; a dangling path whose
    // file exists under one other directory); empty when there is none.
    std::string replacement;
    // What the symbol was judged against: "stamp", "git <sha12>", or empty
    // (nothing to judge against: only whether it resolves).
    std::string baseline;
    std::optional<Anchor> current;        // a symbol that resolves now: its anchor
    std::optional<TextRange> targetRange; // where that symbol is now
};

struct InstructionScan {
    std::vector<std::string> files;   // the instruction files read
    std::vector<InstructionRef> refs; // the references (candidates judged to be none dropped)
    size_t candidates = 0;            // candidates read, references or not
    bool history = false;             // git history was there to judge against
    bool listed = false;              // the workspace's files were listed (InstructionFiles.cpp)
    NotJudged notJudged;              // references not judged, by reason (also in refs)
};

// What a scan reads. `code` is the code tier's index (null without one);
// names are looked up in it wherever it exists, files only when `listed`.
struct ScanSetup {
    std::string root;
    std::string storeDir; // the project store's directory, where stamps live
    Anchorer* anchorer = nullptr;
    Index* code = nullptr;
    bool listed = false;  // the index holds a listing of the workspace's files
    bool indexed = false; // ... and the code's definitions
    // A judging scan (check, status, an open document): it may ask git, and
    // records what it asked in the index. A hot path's reads those records.
    bool searchHistory = true;
};

// Scans `files`, each read from disk or, when given by `unsaved`, from the
// editor's buffer (nullptr: none).
InstructionScan
scanInstructionFiles(const ScanSetup& setup, const std::vector<std::string>& files,
                     const std::function<const std::string*(const std::string&)>& unsaved);

// Where `engram reverify --file` keeps an instruction file's stamps, and
// what they say: the anchor each reference had when stamped, by its text.
std::string stampPath(const std::string& storeDir, const std::string& file);
std::map<std::string, Anchor> readStamps(const std::string& path);

} // namespace engram
