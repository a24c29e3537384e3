// The claim: engram's unit of memory, as plain data.
//
// These structs are what the core hands around; they know nothing of JSON,
// SQLite or files. Optional fields model "unknown": a claim file missing its
// created time or author is shown as unknown, never guessed (invariant 4).
#pragma once
#include "model/Spelling.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engram {

enum class ClaimStatus { Committed, Frontier, Retracted, Superseded };
template <>
struct Spelling<ClaimStatus> {
    static constexpr std::array values{std::pair{ClaimStatus::Committed, "committed"},
                                       std::pair{ClaimStatus::Frontier, "frontier"},
                                       std::pair{ClaimStatus::Retracted, "retracted"},
                                       std::pair{ClaimStatus::Superseded, "superseded"}};
};
inline std::string_view toString(ClaimStatus s) {
    return spell(s);
}
inline std::optional<ClaimStatus> parseStatus(std::string_view s) {
    return unspell<ClaimStatus>(s);
}

// The kinds a claim may have. A claim keeps its kind as text: files may
// carry others (shown as written), but remember and contribute accept only
// these.
enum class ClaimKind { Fact, Decision, Convention, Gotcha, Preference, Todo };
template <>
struct Spelling<ClaimKind> {
    static constexpr std::array values{std::pair{ClaimKind::Fact, "fact"},
                                       std::pair{ClaimKind::Decision, "decision"},
                                       std::pair{ClaimKind::Convention, "convention"},
                                       std::pair{ClaimKind::Gotcha, "gotcha"},
                                       std::pair{ClaimKind::Preference, "preference"},
                                       std::pair{ClaimKind::Todo, "todo"}};
};
inline bool isKnownKind(std::string_view kind) {
    return unspell<ClaimKind>(kind).has_value();
}

// A pointer from a claim into code. Symbol anchors arrive with tree-sitter;
// the fields are all here now so the file format does not change later.
struct Anchor {
    std::string path;     // workspace-relative, '/'-separated
    std::string symbol;   // qualified symbol path; empty for file and range anchors
    std::string language; // empty when unknown
    std::string nodeKind; // "function", "method", "class"..., or "file" / "range"
    int startLine = 0;    // 1-based inclusive range for range anchors (0 = none)
    int endLine = 0;
    std::string hash;  // digest of the anchored content when anchored / re-verified
    std::string shape; // symbol anchors: the digest without the symbol's own name (finds renames)
    // Symbol anchors: what tells the definition apart from same-named ones in
    // its file (syntax/Symbols.h): the digest of its head (all but its body),
    // and, when it had twins, its place among them ("nth=2/3"). Absent from
    // anchors written before engram recorded identity.
    std::string head;
    int ordinal = 0, twins = 0;
    int copies = 0; // how many of the twins were identical copies of it ("copies=2")
    // Symbol anchors: the digest of the definition's tokens alone, and
    // whether the parser had to recover from errors in it (syntax/Symbols.h,
    // Symbol::tokenHash): where either side had errors, equal tokens mean
    // unchanged.
    std::string tokens;
    bool errors = false;
    // The version of the digest rules that stamped it (syntax::kDigestRules
    // then); 0 for an anchor written before versions were recorded, whose
    // rules are unknown (engine/Rederive.h judges those).
    int rules = 0;
};

// What a check found of an anchor's code (engine/Anchoring.cpp): intact,
// drifted (changed), moved (the same code under another name or file),
// orphaned (gone), unjudged (not known, and why is said beside it). A
// claim's state is its anchors' worst; "unanchored" when it has none. The
// engine holds these as words; the wire declares them from this table.
enum class AnchorState { Intact, Drifted, Moved, Orphaned, Unjudged, Unanchored };
template <>
struct Spelling<AnchorState> {
    static constexpr std::array values{std::pair{AnchorState::Intact, "intact"},
                                       std::pair{AnchorState::Drifted, "drifted"},
                                       std::pair{AnchorState::Moved, "moved"},
                                       std::pair{AnchorState::Orphaned, "orphaned"},
                                       std::pair{AnchorState::Unjudged, "unjudged"},
                                       std::pair{AnchorState::Unanchored, "unanchored"}};
};

// Where a claim can be checked: a file, a page, a command to run, a note.
enum class EvidenceType { Path, Url, Command, Note };
template <>
struct Spelling<EvidenceType> {
    static constexpr std::array values{
        std::pair{EvidenceType::Path, "path"}, std::pair{EvidenceType::Url, "url"},
        std::pair{EvidenceType::Command, "command"}, std::pair{EvidenceType::Note, "note"}};
};

struct Evidence {
    std::string type; // an EvidenceType's spelling (files may hold others)
    std::string value;
};

// How a claim fared when someone relied on it (learn).
enum class Verdict { Correct, Wrong, Partial };
template <>
struct Spelling<Verdict> {
    static constexpr std::array values{std::pair{Verdict::Correct, "correct"},
                                       std::pair{Verdict::Wrong, "wrong"},
                                       std::pair{Verdict::Partial, "partial"}};
};

struct Feedback {
    int correct = 0;
    int wrong = 0;
    int partial = 0;
    bool contested() const { return wrong > correct; }
};

struct Claim {
    std::string id;
    int version = 1;
    std::string label;
    std::string text;
    std::string kind; // empty = unknown
    ClaimStatus status = ClaimStatus::Committed;
    std::optional<double> confidence;
    std::optional<int64_t> created;  // UTC seconds; immutable across versions
    std::optional<int64_t> verified; // last re-verification, when any
    std::optional<int64_t> updated;  // when this version was written
    std::string sourceAgent;         // empty = unknown
    std::string origin;              // the store it was born in; empty = unknown
    std::string supersedes;          // "<id>@<version>" of the version this replaced
    std::vector<std::string> tags;
    std::vector<Anchor> anchors;
    std::vector<Evidence> evidence;
    Feedback feedback;
    std::string retractedBy;
    std::string retractReason;
    std::string forceReason; // why a downgrade was forced, when it was
    // Promotion. On a medulla copy: where it came from and why.
    std::string originClaim;         // "<project name>:<claim id>" of the witness
    std::string promotedBy;          // the agent who promoted it
    std::string promotionReason;     // why it belongs in the medulla
    std::optional<int64_t> promoted; // when it was promoted
    // On the project original (the witness): the medulla copy's id.
    std::string promotedTo;
    // Contributions (README, "Delegation"): a sub-agent's finding, frontier until reviewed.
    std::string contributionId; // "k-..." given by engram/contribute
    std::string contributedBy;  // the sub-agent that submitted it
    std::string acceptedBy;     // the reviewer who accepted it, once accepted
    std::string packetId;       // the delegation packet it answers, when named
    std::string contentHash;    // SHA-256 hex of the normalised text (text/Content.h)
    // Fields this version of engram does not know, kept in file order so a
    // rewrite by an older engram does not drop a newer one's data.
    std::vector<std::pair<std::string, std::string>> extra;
    // Team memory (ARCHITECTURE.md, "Team memory"). When two branches changed this claim in ways
    // that cannot both be live (two supersessions, a supersession against a
    // retraction), the merge keeps one version live (store/Merge.h) and the
    // others here, in the same file, until someone resolves it: every
    // version stays reachable. Each is written as a `diverged:` header line.
    std::vector<Claim> diverged;
    // Read from a file that still holds git's conflict markers (a merge done
    // without engram's driver): both sides were read and merged in memory,
    // and the file is reported as `engram.unmerged` until resolved.
    bool unmerged = false;

    bool live() const { return status == ClaimStatus::Committed; }
};

// The claim's provenance in words (invariant 4), e.g. "learned in yproj by
// codex:maker on 2026-11-02; promoted by claude:orchestrator on 2026-11-05:
// seen in two projects". What is missing is said to be unknown.
std::string provenanceChain(const Claim& c);

} // namespace engram
