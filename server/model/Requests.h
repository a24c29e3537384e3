// Requests and results of the engine's operations, as plain structs: the
// engine's interface, in model/ so that the wire (protocol/) and the front
// ends can name them without depending on the engine itself.
//
// protocol/ converts these from and to JSON; the CLI builds them from flags.
// Nothing here knows about either.
#pragma once
#include "model/Claim.h"
#include "model/Envelope.h"
#include "model/Report.h"

#include <optional>
#include <string>
#include <vector>

namespace engram {

// Where a claim should point, as a caller names it. Resolved against the
// root by engine/Anchoring into an Anchor with a content hash.
struct AnchorSpec {
    std::string path = {};
    std::optional<std::string> symbol = {};
    std::optional<int> line = {};   // innermost definition around it (1-based)
    std::optional<int> column = {}; // 0-based, in UTF-16 code units (an LSP position)
    std::optional<std::pair<int, int>> lines = {}; // a 1-based inclusive line range
};

// A 0-based range in a file (end exclusive; columns in bytes).
struct TextRange {
    uint32_t startLine = 0, startColumn = 0, endLine = 0, endColumn = 0;
};

// Where an anchor's code is now, so a client (an editor placing a recall
// row, a sub-agent reading a packet) needs no second request to find it.
struct AnchorPlace {
    std::string state;  // as AnchorCheck::state
    std::string reason; // unjudged: why (model/NotJudged.h)
    // The file holding the code now: the anchor's own, or the one a moved
    // symbol went to. Empty with no range (orphaned, or ambiguous).
    std::string path;
    // Columns in UTF-16 code units here (an LSP range), not bytes.
    std::optional<TextRange> range;
    std::string movedTo; // moved: the symbol's name now
};

struct RememberRequest {
    std::string text;
    std::optional<std::string> label;
    std::optional<std::string> kind;
    std::vector<std::string> tags;
    std::optional<double> confidence;
    std::string agent;
    std::vector<AnchorSpec> anchors;
    std::vector<Evidence> evidence;
    std::string tier = "project";
    std::string forceReason;
};

// A live claim a new one probably says again or says otherwise
// (Engine::probablyRelated): the writer supersedes or retracts it rather
// than keeping both.
struct RelatedClaim {
    std::string id;
    std::string label;
    std::string relation; // contradicts | restates
    std::string why;      // the clashing phrases, or how many words they share
    std::string text;
};

struct RememberResult {
    Claim claim;
    std::string tier;
    std::optional<Claim> superseded; // the version this write replaced
    std::vector<RelatedClaim> related;
};

// How many rows a recall may ask for.
inline constexpr int kMaxRecallLimit = 200;

struct RecallRequest {
    std::optional<std::string> query;
    std::optional<std::string> tier; // project | medulla | all; absent = project + medulla
    std::optional<std::string> path; // claims anchored in this file rank first
    // Claims anchored to this symbol (its qualified name or a last part of
    // it: `validate` for TokenValidator.validate) rank first; with path,
    // only a symbol of that file.
    std::optional<std::string> symbol;
    std::vector<std::string> kinds;
    std::vector<ClaimStatus> include; // statuses beyond committed
    int limit = 10;
    std::optional<int> maxChars;
    std::optional<std::string> root; // the root the caller believes it is bound to
    // The instruction files' matching paragraphs beside the rows (a packet
    // asks for them once itself, outside its retried recall).
    bool instructionParagraphs = true;
    // Counted among the recalls a report shows (not when engram asks
    // itself, as remember does for the claims a new one may restate).
    bool counted = true;
    // The query's related words (text/Related.h) count too.
    bool relatedWords = true;
    // A date phrase in the query ("last week", text/When.h) is read as a
    // window of time, not as words to match.
    bool readDates = true;
};

struct RecallRow {
    Claim claim;
    double score = 0;
    // project (the bound workspace's) | medulla | other (another registered
    // project's, only with tier all)
    std::string tier;
    std::string store;         // the root (or medulla directory) the row came from
    std::string provenance;    // the chain in words: learned where, by whom, when; promoted...
    std::optional<bool> stale; // unknown when the claim's age is unknown
    std::optional<int64_t> ageSeconds;
    std::string anchorState;         // intact | drifted | moved | orphaned | unjudged | unanchored
    std::vector<AnchorPlace> places; // per anchor: its state and where its code is now
    std::vector<std::string> why;
    // How the row matched the query's specific words (those not generic in
    // coding prompts, text/Generic.h). Not on the wire; the hook's and
    // packets' relevance floor reads it (engine/Delegate.cpp).
    struct Match {
        // Of the query's words (an identifier and its parts are one word).
        double coverage = 1.0; // share of the specific words matched
        int matched = 0;       // specific words matched
        int asked = 0;         // specific words in the query
        bool strong = false;   // one matched in the label, a tag, an anchor's symbol or
                               // the claim's kind ("what did we decide" for a decision)
        bool unique = false;   // one matched is a word no other claim of its store (of
                               // 100 claims or more) holds
        bool phrase = false;   // two words of the query side by side in its label or text
        // Listed for its date alone: the query asked what happened in a
        // window ("what changed since last week", "anything new since the
        // postgres upgrade") and held no other specific word.
        bool dated = false;
    } match;
    // Other live claims holding this row's label (two branches each wrote
    // it, ARCHITECTURE.md, "Team memory"): which of them holds is undecided.
    std::vector<std::string> labelSharedWith;
    // Live claims of the same tier saying nearly the same (most of their
    // words in common), ranked under this row and folded into it.
    std::vector<std::string> nearDuplicates;
    // With include superseded: the versions this claim replaced, oldest first.
    std::vector<Claim> superseded;
};

struct MemoryExists {
    std::string tier;
    std::string store; // as in RecallRow
    int64_t live = 0;
    // frontier + retracted claims; not the superseded versions, which are
    // the history of live claims, not other claims.
    int64_t other = 0;
};

// A registered project store recall could not read (tier all).
struct UnreachableStore {
    std::string root;
    std::string reason;
};

// A paragraph of an instruction file that matched a recall or a packet's
// task: never a claim (no id; remember did not write it and retract cannot
// remove it), labelled by its file and lines.
struct InstructionHit {
    std::string file;               // workspace-relative
    uint32_t line = 0, endLine = 0; // 1-based, inclusive
    std::string heading;
    std::string text;
    double score = 0;
    // The code references in it and their states (ok, dangling, drifted,
    // moved, ambiguous, unjudged), in order.
    std::vector<std::pair<std::string, std::string>> references;
    NotJudged notJudged; // of those, the ones not judged, by reason
};

struct RecallResult {
    std::vector<RecallRow> rows;
    // Instruction files' paragraphs that match the query (ARCHITECTURE.md, "Instruction files"):
    // beside the rows, never among them.
    std::vector<InstructionHit> instructions;
    std::vector<MemoryExists> memoryExists;
    std::vector<UnreachableStore> unreachable;
    std::string whyEmpty;   // set when rows is empty
    bool truncated = false; // limit or max_chars cut the list
    // What the call asked that matched nothing: a path naming no file, a
    // symbol no row is anchored to. Said, never ignored.
    std::vector<std::string> notices;
    Envelope envelope;
};

struct ClaimVersion {
    Claim claim;
};

struct GetResult {
    Claim claim;
    std::string tier;
    std::string file;
    std::string anchorState;
    std::vector<std::string> anchorStates; // per anchor
    std::vector<AnchorPlace> places;       // per anchor, where its code is now
    std::vector<Claim> history;            // earlier versions, oldest first
};

struct LearnResult {
    Claim claim;
    std::string tier;
};

// One anchor of a live claim in a given file, checked against the code as it
// is now (the editor's unsaved text when the file is open).
struct AnchoredClaim {
    Claim claim;
    std::string tier;
    size_t anchorIndex = 0;
    std::string state;   // intact | drifted | moved | orphaned
    std::string movedTo; // for moved: the current qualified name
    std::optional<uint32_t> startLine, startColumn, endLine,
        endColumn; // 0-based; absent when orphaned
    std::optional<int64_t> ageSeconds;
};

struct PromoteRequest {
    std::string id; // a live project claim
    std::string agent;
    std::string reason;
};

// The medulla is meant to stay a short doctrine: past this many live claims
// a promotion warns (and louder past half as many again).
inline constexpr int64_t kMedullaSoftCap = 200;

struct PromoteResult {
    Claim medullaCopy;
    Claim witness;                   // the project original, now stamped promoted_to
    std::optional<Claim> superseded; // the medulla version this promotion replaced
    int64_t medullaLive = 0;         // live medulla claims after the write
    // Empty below kMedullaSoftCap live claims; a warning past it, a
    // louder one past half as many again.
    std::string capWarning;
};

struct ProposeRequest {
    std::string id;   // a live project claim
    std::string team; // a team store added on this machine
    std::string agent;
    std::string reason;
};

struct ProposeResult {
    Claim proposal;                // the copy, as the branch holds it
    Claim witness;                 // the project original (unchanged)
    std::optional<Claim> replaces; // the team's live claim under the same label
    std::string team;              // "team:NAME"
    std::string branch;            // engram/promote-<id>
    std::string store;             // the clone's directory
    std::string remote;            // its origin, redacted
};

struct RegisteredStore {
    std::string root;
    bool reachable = false; // its .engram/ store is still there
};

// An instruction file's code references by state (status).
struct InstructionCounts {
    int64_t files = 0, references = 0, ok = 0, dangling = 0, drifted = 0, moved = 0, ambiguous = 0,
            unjudged = 0;
    bool listed = false; // the workspace's files were listed (engine/InstructionFiles.cpp)
};

struct StatusResult {
    Envelope envelope;
    std::vector<RegisteredStore> registered; // every project store served on this machine
    struct AnchorHealth {
        int64_t intact = 0, drifted = 0, moved = 0, orphaned = 0, unjudged = 0;
    } anchorHealth;
    std::vector<std::pair<std::string, std::string>> brokenFiles; // file, "line N: why"
    // The bound project's inbox, by state (reports arrive through git too).
    struct InboxCounts {
        int64_t open = 0, inProgress = 0, answered = 0, external = 0, answers = 0;
    } inbox;
    // The instruction files' references by state (ARCHITECTURE.md, "Instruction files"), when
    // asked: counting them reads git and every instruction file.
    std::optional<InstructionCounts> instructions;
};

// ---- Reports and the inbox (ARCHITECTURE.md "Reports and the inbox"; engine/Reports.cpp) ----

struct ReportRequest {
    // The report as the caller wrote it; its id, root and filing time are
    // the engine's to set.
    Report draft;
    std::optional<std::string> root; // absent: the bound root; "none": no project
};

struct ReportResult {
    Report report;          // as filed (an earlier identical report's time when already filed)
    bool duplicate = false; // already in its box (or, pending, in the spool)
    std::string box;        // the inbox it is in; empty while pending
    bool pending = false;   // its project is not on this machine: kept in the spool
    bool spooled = false;   // in the machine's spool (no $ENGRAM_HOME: no spool)
    // Why a spooled report is not in its box yet although its project is
    // here (the box could not be written); it is filed by a later call.
    std::string boxError;
};

struct InboxRequest {
    std::optional<InboxState> state;
    bool all = false;                // every known box, and the pending spool entries
    std::optional<std::string> root; // the root the caller believes it is bound to
};

struct InboxEntry {
    Report report;
    // Answers are listed under what they answer and never counted open.
    InboxState state = InboxState::Open;
    std::vector<std::string> answeredBy; // ids of the answers naming it, oldest first
};

struct InboxBox {
    std::string name;  // the project's root, "medulla", or "pending" (the spool's unfiled reports)
    std::string path;  // the box file (the spool for "pending")
    std::string error; // why it could not be read; then `reports` is empty
    std::vector<InboxEntry> reports;  // newest first, after the state filter
    StatusResult::InboxCounts counts; // over every report in the box, before the filter
    std::vector<std::pair<int, std::string>> badLines; // lines that are not reports
};

// One ISO week of the confusion rate (ARCHITECTURE.md, "Reports and the inbox"): confirmed
// misdelivery reports against the memory served that week.
struct ConfusionWeek {
    std::string week;       // "2026-W47"
    int64_t confirmed = 0;  // memory_misdelivery reports filed that week, answered as confirmed
    int64_t liveClaims = 0; // across the stores served that week (the last count seen in it)
    int64_t recalls = 0;    // recalls served, summed over stores
    std::optional<double> perThousand; // confirmed per 1,000 recalls; none without recalls
};

struct InboxResult {
    Envelope envelope;
    std::vector<InboxBox> boxes; // the bound project's first
};

// ---- Delegation packets (README "Delegation"; engine/Delegate.cpp, protocol/Packet.h) ----

// A packet's bounds: items, and characters of item text.
inline constexpr int kDefaultPacketItems = 20, kMaxPacketItems = 200;
inline constexpr int kDefaultPacketChars = 8000, kMaxPacketChars = 1000000;

struct DelegateRequest {
    std::string task;
    std::string agent;              // who delegates
    std::vector<std::string> paths; // files or directories the task is about
    std::vector<std::string> symbols;
    std::optional<int> maxItems;
    std::optional<int> maxChars; // characters of item text, summed
    bool sign = false;
    std::optional<std::string> root; // the root the caller believes it is bound to
    // Whether the binding asks `git status` if the work tree is dirty (not
    // part of the packet's request; `engram hook`, which prints no binding,
    // skips it: on a large work tree it is most of the time).
    bool dirtyFlag = true;
    // Whether anchors stamped by earlier digest rules may be re-derived from
    // git (Anchorer::HistoryScope); `engram hook` runs no process per prompt,
    // so there they are unjudged unless their hash is reproduced.
    bool readHistory = true;
    // The hook's stricter floor (engine/Delegate.cpp, relevanceFloor): a
    // claim matching one of several specific words of the prompt stays out
    // unless that word is in its label, a tag or an anchor's symbol. A
    // packet someone asked for keeps such claims; memory pushed into every
    // prompt does not.
    bool strictFloor = false;
    bool noFloor = false; // `engram hook --floor none`: rank alone decides
};

// Where the packet was composed: the workspace and, in a git work tree, its
// commit. HEAD is read from .git directly (no git binary needed); the dirty
// flag needs `git status` and is unknown when git cannot be run.
struct PacketBinding {
    std::string root;
    std::string fingerprint;
    bool git = false;          // the root is (inside) a git work tree
    std::string head;          // commit id; empty when unborn or unreadable
    std::string branch;        // "refs/heads/main"; empty when detached
    std::optional<bool> dirty; // tracked changes outside .engram/; unknown without git
};

struct PacketItem {
    std::string id;
    int version = 1;
    std::string label;
    std::string text;
    std::string kind;
    std::string tier; // project | medulla
    std::string origin;
    std::string sourceAgent;
    std::optional<int64_t> created;
    // Whole days from the claim's birth to the packet's as_of day: ages do
    // not change within a day, so neither does the packet.
    std::optional<int64_t> ageDays;
    std::optional<bool> stale;
    std::string anchorState;
    std::vector<std::string> anchors; // "path#symbol", "path:3-9", "path"
    std::vector<AnchorPlace> places;  // per anchor, where its code is now
    std::optional<double> confidence;
    double score = 0; // rounded to 4 decimals
    std::vector<std::string> why;
    std::string provenance;
    std::string contributionId, contributedBy, acceptedBy;
    // Its anchored code changed since it was written (drifted): included for
    // its text, to be checked against the code before it is relied on.
    bool unverified = false;
    // Live claims saying nearly the same, folded into this item (recall's
    // near duplicates).
    std::vector<std::string> nearDuplicates;
};

// Relevant claims left out because they cannot be vouched for.
struct HonestGap {
    std::string reason; // drifted | orphaned | frontier | retracted
    int64_t count = 0;
    std::vector<std::string> ids; // sorted, at most 20
};

struct PacketMetrics {
    int64_t candidates = 0; // rows the selection looked at
    int64_t eligible = 0;   // relevant and vouched for
    int64_t included = 0;
    int64_t belowFloor = 0; // matched the task's words too weakly to be included
    int64_t chars = 0;      // item text characters included
    bool budgetExhausted = false;
    std::vector<std::string> budgetWhy; // which limit bound, and what it left out
};

// A packet before the protocol layer adds packet_id (SHA-256 of its
// canonical JSON, protocol/Packet.h) and, when asked, the signature.
struct Packet {
    std::string schema = "engram.packet/1";
    DelegateRequest request; // as normalised (sign and root are not part of it)
    PacketBinding binding;
    std::string asOf; // the UTC day ages and staleness are judged on
    int staleDays = 30;
    std::vector<PacketItem> items;
    std::vector<HonestGap> honestGaps;
    int maxItems = 20, maxChars = 8000;
    PacketMetrics metrics;
    std::vector<std::string> nonClaims;
    std::vector<std::string> instructions;
    // Paragraphs of the instruction files that match the task, in what the
    // claims left of max_chars (ARCHITECTURE.md, "Instruction files"): never items, they are not
    // claims.
    std::vector<InstructionHit> instructionFiles;
    int64_t createdAt = 0; // outside the hash
};

struct DelegateResult {
    Packet packet;
    Envelope envelope; // beside the packet: it holds this session's pid and times
};

struct PacketSignature {
    std::string algorithm = "ed25519";
    std::string publicKey; // hex
    std::string value;     // hex
};

// ---- Contributions and review (README "Delegation"; engine/Contribute.cpp) ----

struct ContributionItem {
    std::string text;
    std::optional<std::string> label;
    std::optional<std::string> kind;
    std::vector<std::string> tags;
    std::optional<double> confidence;
    std::vector<AnchorSpec> anchors;
    std::vector<Evidence> evidence;
};

struct ContributeRequest {
    std::string agent;
    std::optional<std::string> packetId;
    std::vector<ContributionItem> items;
};

struct ContributionOutcome {
    size_t index = 0;
    // stored (a frontier claim now) | duplicate (not stored again) |
    // refused (a secret: nothing of it was stored)
    std::string status;
    std::string contentHash;
    std::string contributionId; // stored: the new one; duplicate: the earlier one, if any
    std::string claimId;
    std::string duplicateOf;                // the claim id holding the same content
    std::string duplicateStatus;            // that claim's status
    std::vector<std::string> conflictsWith; // committed claims it contradicts
    std::string conflict;                   // "must check ok" vs "must not check ok" (c-...)
    bool redacted = false;                  // secrets are refused, never redacted
    std::string refusal;                    // why, naming the rule and span, never the secret
    std::string refusalRule;
    std::string refusalField;
};

struct ContributeResult {
    std::vector<ContributionOutcome> items;
    int64_t stored = 0, duplicates = 0, refused = 0, conflicts = 0;
};

struct ReviewRequest {
    std::string contributionId;
    std::string decision; // accept | reject
    std::string agent;
    std::string reason;
};

struct ReviewResult {
    std::string decision;
    Claim claim; // committed (accepted) or retracted (rejected)
    std::string tier;
};

struct VerifyPacketResult {
    bool valid = false;
    std::vector<std::string> reasons; // one per failed check, naming the field
    std::string packetId;             // as recomputed
    std::optional<bool> signedByThisMachine;
    std::optional<int64_t> ageSeconds;
};

// The repository's readiness for team memory (Engine::teamSetup).
struct TeamSetup {
    bool git = false;               // the root is inside a git work tree
    bool attributes = false;        // .engram/.gitattributes names the driver
    bool driver = false;            // the local git config registers it
    std::string driverCommand;      // as registered (empty when not)
    std::string problem;            // what is missing, and the command that fixes it
    std::vector<std::string> wrote; // what this call wrote
};

// What re-stamping anchors of earlier digest rules did (Engine::restamp).
struct RestampResult {
    int64_t restamped = 0; // anchors re-derived as unchanged, now stamped by today's rules
    int64_t claims = 0;    // claims written (one audit entry `restamp` each)
    int64_t drifted = 0;   // re-derived, and changed since: left for reverify
    int64_t unjudged = 0;  // could not be re-derived (engram check says why)
};

} // namespace engram
