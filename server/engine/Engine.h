// The product: engram's operations over a bound workspace, without JSON.
//
// An Engine is bound to one workspace root. It is a facade: the state lives
// in services it holds (Tiers: the project tier and the medulla with their
// reconcile and the write discipline; Anchorer; CodeIndexer;
// InstructionFiles; Reports; Team), and each operation, in the file of its
// feature, composes them. The LSP server, the MCP server and the CLI are
// thin layers over this class.
#pragma once
#include "engine/Anchoring.h"
#include "engine/CodeIndexer.h"
#include "engine/CodeWalk.h"
#include "engine/DirtyFlag.h"
#include "engine/Findings.h"
#include "engine/Hold.h"
#include "engine/InstructionFiles.h"
#include "engine/InstructionScan.h"
#include "engine/Reports.h"
#include "engine/Team.h"
#include "engine/Tiers.h"
#include "index/Index.h"
#include "instructions/References.h"
#include "model/Requests.h"
#include "store/Store.h"
#include "util/TreeWatch.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace engram {

namespace text {
struct Expansion;
struct When;
} // namespace text

struct EngineOptions {
    std::string root;       // canonical workspace root
    std::string rootSource; // how it was chosen (envelope binding.source)
    std::string home;       // $ENGRAM_HOME; empty = no medulla
    // A claim not re-verified for longer is stale; the project's store.conf
    // (`stale_days:`) replaces the default when it sets one.
    int staleDays = 30;
    std::string version; // engram's version, for the envelope
    // Long-lived servers (serve, mcp) answer before every claim file of a
    // large store has been stat'ed: the rest is checked on a thread, and
    // envelopes say so until it is done. One-shot commands reconcile first.
    bool backgroundReconcile = false;
    // With backgroundReconcile, whether that sweep runs at all: a process
    // that exits within a moment (engram hook) would only wait for it to
    // stop. Claims served are checked against their files either way.
    bool sweepOnOpen = true;
    // A long-lived server: its sweeps and listings run on threads of their
    // own. Anything else is a one-shot command, which does that work first.
    bool servesInBackground() const { return backgroundReconcile && sweepOnOpen; }
    // Stores up to this many claims are reconciled before the first answer
    // even in the background mode. None by default: a stat of each claim
    // file before the first answer grows with the store, which no hot path
    // may (ARCHITECTURE.md, "Hot paths"); a small store's sweep ends within
    // milliseconds, usually before the first request is read.
    // ENGRAM_INLINE_RECONCILE_MAX overrides it.
    int64_t inlineReconcileMax = 0;
    // A test seam (ENGRAM_TEST_HOLD_RECONCILE): while a file exists at this
    // path the start-up sweep, the listing of the workspace and the code
    // index's walk (each on a thread of its own) wait to begin, so a test
    // observes the answers served before they finish for as long as it
    // likes, then removes the file. Empty, and inert, unless the variable is
    // set (waitWhileHeld).
    std::string reconcileHold{};
    // Long-lived servers watch the directories of anchored files (inotify),
    // so engram/status looks again only at files reported changed instead
    // of a stat of every anchored file per call.
    bool watchFiles = false;
};

struct ReverifyFileResult {
    std::string file;
    int stamped = 0;
    std::vector<std::string> refused; // "FILE:LINE `ref`: state (why)"
};

class Engine {
public:
    explicit Engine(EngineOptions opts);
    ~Engine();
    // The anchorer calls back into the engine: an engine stays where it was built.
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    const std::string& root() const { return opts_.root; }
    const std::string& fingerprint() const { return fingerprint_; }

    RememberResult remember(const RememberRequest& req);
    RecallResult recall(const RecallRequest& req);
    GetResult get(const std::string& id);
    // A team store's claim is not retracted in place: with `proposedOn`,
    // its retraction is written on a branch of the team's clone (named
    // there) to merge; without it, refused as every direct team write is.
    Claim retract(const std::string& id, const std::string& agent, const std::string& reason,
                  std::string* proposedOn = nullptr);
    LearnResult learn(const std::string& id, Verdict verdict, const std::string& agent,
                      const std::string& note);
    // Copies a live project claim into the medulla (a new version of an
    // earlier copy, if any) and stamps the original with promoted_to.
    PromoteResult promote(const PromoteRequest& req);
    // Proposes a live project claim to a team store: the copy is written on
    // a branch of the team's clone (engine/GitStores.h) for review, and is
    // the team's only once that branch is merged; `engram sync` pushes it.
    ProposeResult propose(const ProposeRequest& req);
    // A delegation packet for a sub-agent (engine/Delegate.cpp): committed
    // project and medulla claims relevant to the task, never another
    // project's; packet_id and signature are added by protocol/Packet.h.
    DelegateResult delegate(const DelegateRequest& req);
    // The workspace's files a prompt names ("any gotchas in billing.py?",
    // "fix src/auth/session.py"): each written name with an extension,
    // looked up in the index's listing, a bare name kept when it names at
    // most three files, a path from the root also found on disk before any
    // listing (engine/PromptFiles.cpp). At most `most`, in the prompt's
    // order.
    std::vector<std::string> filesNamedIn(const std::string& prompt, size_t most);
    // The binding as it is now (root, fingerprint, git HEAD, dirty).
    PacketBinding currentBinding(bool dirtyFlag = true);
    // Ed25519 over `message` with this machine's packet key, created under
    // $ENGRAM_HOME/keys on first use (private key 0600). NotBound without a home.
    PacketSignature signPacket(const std::string& message);
    // This machine's packet public key (hex), when one exists.
    std::optional<std::string> packetPublicKey();
    // The packets composed here lately, kept under $ENGRAM_HOME/packets by
    // id (the newest kKeptPackets), so a sub-agent can have one checked by
    // its id instead of sending it back whole. Keeping is best effort: a
    // home that cannot be written loses nothing but that convenience.
    static constexpr size_t kKeptPackets = 256;
    void keepPacket(const std::string& packetId, const std::string& packetJson);
    std::optional<std::string> keptPacket(const std::string& packetId);
    // A sub-agent's findings, stored as frontier claims (engine/Contribute.cpp).
    ContributeResult contribute(const ContributeRequest& req);
    // Accepts (committed, with contribution provenance) or rejects (retracted
    // with the reason) a contribution; both are recorded acts.
    ReviewResult review(const ReviewRequest& req);
    // Re-stamps every anchor of the claim to the code as it is now (a moved
    // anchor follows the symbol to its new name): a recorded act after
    // someone checked the claim against the changed code.
    GetResult reverify(const std::string& id, const std::string& agent, const std::string& note);
    // Every anchor of a live project claim in `path` (workspace-relative or
    // absolute inside the root), in claim order. Throws OutsideRoot.
    std::vector<AnchoredClaim> anchorsIn(const std::string& path);
    // The innermost definition at a 0-based (line, byte column) of `path`.
    std::optional<syntax::Symbol> symbolAt(const std::string& path, uint32_t line, uint32_t column);
    // The editor's open documents (see Anchorer). Paths outside the root are
    // ignored: engram only answers for its workspace.
    void openDocument(const std::string& path, std::string text);
    void editDocument(const std::string& path, uint32_t startByte, uint32_t oldEndByte,
                      std::string_view newText);
    void replaceDocument(const std::string& path, std::string text);
    void closeDocument(const std::string& path);
    // The text engram sees for `path`: the open document, else the file.
    std::optional<std::string> documentText(const std::string& path);

    // Team memory through git (Team.cpp). The repository's state
    // for engram's merge driver; with `write`, `.engram/.gitattributes` and
    // the local git config entries are written where missing (idempotent).
    TeamSetup teamSetup(bool write) { return team_->setup(write); }
    // Re-stamps, with today's digest rules, the project's anchors stamped by
    // earlier ones that git re-derives as unchanged (engine/Restamp.cpp); a
    // recorded act per claim (`restamp`, agent engram). `engram init` runs it.
    RestampResult restamp();
    // Resolves a claim a merge left diverged or unmerged: `take` is empty
    // (the merge rule's live version), "ours" / "theirs" (a side of the
    // conflict markers), or a version ("3", "v3", or "3-<key prefix>").
    // Every other version goes to history; a recorded act.
    GetResult resolve(const std::string& id, const std::string& take, const std::string& agent);
    // Workspace-relative files git says changed since `ref` (from the merge
    // base of ref and HEAD to the working tree). Throws InvalidParams when
    // the root is not in a repository or the ref is unknown.
    std::set<std::string> changedSince(const std::string& ref) { return team_->changedSince(ref); }

    // The anchors of the project's live claims by the digest rules that
    // stamped them (0: before rules were recorded), for doctor: reads every
    // anchored claim, so not for a hot path.
    std::map<int, int64_t> anchorRules();
    StatusResult status(const std::optional<std::string>& requestedRoot = std::nullopt,
                        bool instructions = false);
    // One store's counts as the envelope gives them (claims by status,
    // anchors, broken files), without status()'s anchor-health walk;
    // nullopt for a tier this engine does not have.
    std::optional<TierState> storeState(const std::string& tier);
    // The anchor health status last counted (kept in the project's index),
    // for what cannot count it on its path (the session-start hook).
    std::optional<HealthSummary> lastAnchorHealth();
    // Files a report into the machine's spool and the inbox of the project
    // it names (the medulla's for none; pending when that project is not on
    // this machine). Idempotent: the id is the content's.
    ReportResult report(const ReportRequest& req) { return reports_.report(req); }
    // The bound project's inbox with derived states; with `all`, every box.
    InboxResult inbox(const InboxRequest& req) {
        return reports_.inbox(req, envelope("engram/inbox", req.root));
    }
    // Reports waiting in the spool whose project is not on this machine:
    // (root, count) (engram doctor).
    std::vector<std::pair<std::string, int64_t>> pendingReports() {
        return reports_.pendingReports();
    }
    // The confusion rate per ISO week, oldest first: confirmed misdelivery
    // reports (every box on this machine and the spool) against recalls
    // served and live claims (this machine's usage counter).
    std::vector<ConfusionWeek> confusionSeries() { return reports_.confusionSeries(); }
    // Writes the recalls counted since the last flush to the usage counter
    // (`$ENGRAM_HOME/usage/recalls.tsv`). Done at most once a minute while
    // serving, and when the engine goes away.
    void flushUsage() { reports_.flushUsage(); }
    // Memory diagnostics (engram check, the editor's Problems panel): every
    // live claim's anchors checked against the code, staleness, secrets in
    // claim files and claim files that do not parse; project tier only
    // unless asked. Sorted by path, range, code and claim id.
    // Sorted (findingLess). With opts.keep, only the first that many; `all`
    // then counts every finding by code, the unlisted ones included.
    std::vector<Finding> findings(const FindingsOptions& opts = {}, FindingsSummary* all = nullptr);

    // Brings every tier's index in line with its files (start-up, file
    // watching). With ids, only those claims of the project tier.
    std::vector<SyncReport> refresh(const std::vector<std::string>* projectIds = nullptr) {
        return tiers_.refresh(projectIds);
    }
    // Drops and rebuilds every index from the claim files.
    std::vector<SyncReport> reindex() { return tiers_.reindex(); }
    // Background reconciliation (EngineOptions::backgroundReconcile): applies
    // scans that finished and starts the ones due (a sweep that failed, a
    // claims directory changed since it was last settled). Returns the ids
    // of project claims it re-read or dropped. Cheap; servers call it before
    // each request and on a timer.
    std::vector<std::string> pollReconcile();
    // True while some tier's index is not yet checked against every file.
    bool reconciling() const { return tiers_.reconciling(); }
    // Checks every project claim file against the index again, in the
    // background (a watch that could not see some changes until now).
    void recheckClaims() { tiers_.recheckClaims(); }
    // A server whose watch of the project's claims directory started before
    // its start-up check vouches for the directory's entries through this.
    // `quiet` reads what the watch has queued and answers true when
    // everything it saw is in the index, false when some of it is still to
    // be brought in (asked again later), nullopt when it cannot vouch (it
    // lost events, or bringing them in failed). The settled mark is then
    // kept current after engram's own writes without a scan of every file
    // (ARCHITECTURE.md, "Start-up without a scan").
    using ClaimsQuiet = Tiers::ClaimsQuiet;
    void vouchForClaims(ClaimsQuiet quiet) { tiers_.vouchForClaims(std::move(quiet)); }
    // Before a server exits: its last writes' mark is recorded once the
    // clock's tick is past (at most a few tens of milliseconds), so the
    // next start-up need not compare every file.
    void settleBeforeExit() { tiers_.settleBeforeExit(); }

    // Brings the workspace's code index up to date (engine/CodeIndex.cpp);
    // progress(done, total) is called now and then. With listFiles, the
    // workspace's files are listed again too (relist()).
    CodeIndexReport indexCode(const std::function<void(size_t, size_t)>& progress = {},
                              bool listFiles = true) {
        return codeIndex_->index(progress, listFiles);
    }
    // Servers: the same walk on a thread of its own, with a connection of
    // its own, so a large repository delays no request; false when there is
    // no code index to walk. Whatever needs the walked index (where a
    // definition went, a judging scan, indexCode) waits for it; the rest
    // answers meanwhile. adoptCodeWalk() takes its report once it ended
    // (waiting for it with `wait`); codeWalkProgress() is (done, total)
    // while it writes.
    bool startCodeWalk() { return codeIndex_->startWalk(); }
    std::optional<CodeIndexReport> adoptCodeWalk(bool wait = false) {
        return codeIndex_->adoptWalk(wait);
    }
    std::pair<size_t, size_t> codeWalkProgress() const { return codeIndex_->walkProgress(); }

    // Instruction files (ARCHITECTURE.md, "Instruction files"): which there are, as the last
    // listing of the workspace found them (engine/InstructionFiles.cpp; no process, whoever asks),
    // and their references judged against the code. `text` replaces onlyFile's contents (an
    // editor's unsaved buffer).
    const std::vector<std::string>& instructionFiles() { return instructions_->files(); }
    // The workspace's files, as git lists them (tracked, and new files it
    // does not ignore) or a walk finds them without git, sorted: a process
    // whose cost grows with the repository, so never on a hot path.
    static std::vector<std::string> listWorkspace(const std::string& root) {
        return InstructionFiles::listWorkspace(root);
    }
    // Lists the workspace now and keeps the listing in the code tier's
    // index (the code index's walk does, and engram check through it).
    void relist() { instructions_->relist(); }
    // Servers: lists it on a thread of its own, now (start-up) or when the
    // last listing is a few seconds old; what changed is applied to the
    // index by a later pollReconcile() or instruction-file read.
    void maybeRelistInBackground(bool now = false) { instructions_->maybeRelistInBackground(now); }
    // Whether a workspace-relative path is one: by its name
    // (instructions::isInstructionFile) or a store.conf `instructions:` glob.
    bool isInstructionFile(const std::string& rel) const {
        return instructions_->isInstructionFile(rel);
    }
    // The instruction files' paragraphs that match a query best (at most
    // `limit`), with their references' states (engine/InstructionRecall.cpp).
    std::vector<InstructionHit> recallInstructions(const std::string& query, size_t limit);
    // searchHistory: look for a name nothing defines now in the commit that
    // last changed its line (a `git grep` of that tree), where a rename
    // shows, and build or refresh the code index first; recall, packets and
    // the hook skip both (a renamed name reads dangling; with no code index
    // yet, names are counted not judged).
    InstructionScan scanInstructions(const std::optional<std::string>& onlyFile = {},
                                     const std::string* text = nullptr, bool searchHistory = true);
    // Stamps the references of an instruction file (or of one of its lines)
    // that resolve now as verified: a recorded act (audit "reverify-file").
    ReverifyFileResult reverifyInstructions(const std::string& file, std::optional<int> line,
                                            const std::string& agent);

    // The findings of the instruction files (all of them, or `only`, when it
    // is one), handed to `emit` (engine/Findings.cpp).
    // Returns what could not be judged.
    NotJudged instructionFindings(const FindingsOptions& opts,
                                  const std::optional<std::string>& only,
                                  const std::function<void(Finding&&)>& emit);

    // Problems in the project's store.conf, by line (engram doctor shows them).
    const std::vector<std::string>& configErrors() const { return configErrors_; }

    // The project store directory (watched by the server).
    std::string projectDir() const;

private:
    // `alsoRead`: stores the call reads beyond the workspace's own (a team
    // store or another project asked for by name); their claims count
    // towards "nothing recorded yet".
    Envelope envelope(const std::string& method, const std::optional<std::string>& requestedRoot,
                      const std::vector<Tier*>& alsoRead = {});

public:
    // teamSetup(true) the first time it matters (a server opening a store, a
    // write) in a git clone that lacks part of it, judged from the files
    // alone: the config names the driver and .engram/.gitattributes names it
    // and the inbox's line merge. No process when they do: a server's
    // start-up runs no git for it. What it wrote; quiet on failure.
    std::vector<std::string> ensureTeamSetup() { return team_->ensureSetup(); }

private:
    // Another registered project's claims are judged against its own tree.
    Anchorer& anchorerFor(Tier& t);
    // Adds the tier's anchor health to `total`, recounting changed files only.
    // Adds the anchors not judged, by reason, to `notJudged` when given.
    void addAnchorHealth(Tier& t, StatusResult::AnchorHealth& total,
                         NotJudged* notJudged = nullptr);
    // Adds what the instruction paragraphs served could not judge to
    // e.notJudged, then says in non_claims what it counts, and why.
    static void explainNotJudged(Envelope& e, const std::vector<InstructionHit>& served = {});
    // Marks the files engram/status counted that the TreeWatch reported.
    void applyTreeChanges();
    RecallResult recallChecked(const RecallRequest& req, bool rowsReread);
    // The window an event in the query names, dated by the claim naming it
    // ("since the postgres upgrade"; engine/Recall.cpp).
    std::optional<text::When> eventWindow(const RecallRequest& req, int64_t now,
                                          std::string& queryText, std::string& notice,
                                          std::string& dating, bool rowsReread);
    // The live claims of `t` that a new claim probably restates or
    // contradicts (engine/Restatements.cpp).
    std::vector<RelatedClaim> probablyRelated(Tier& t, const Claim& c);
    // The claims of tier `t` on one of the definitions `anchors` name, as
    // anchoring tells definitions apart (engine/Restatements.cpp); each once.
    std::vector<Claim> claimsOnDefinitions(Tier& t, const std::vector<Anchor>& anchors);
    struct TierPass;
    // One findings pass (engine/Findings.cpp): its phases, and the state
    // they share (what is kept, what is counted).
    class FindingsRun;
    static void forEachPass(std::vector<TierPass>& passes,
                            const std::function<void(TierPass&)>& fn);
    // A query term's word: the index of the word of the query it came from,
    // and whether it is a part of that word (an identifier's: "key" of
    // "KeyError").
    struct QueryWord {
        uint32_t index = 0;
        bool part = false;
    };
    void candidatePass(TierPass& p, const std::vector<std::string>& queryTerms,
                       const std::vector<QueryWord>& termWords,
                       const std::vector<text::Expansion>& related,
                       const std::optional<std::string>& focusPath, bool committedOnly, size_t keep,
                       const text::When* when);
    static void shareBudget(std::vector<TierPass>& passes, size_t keep);

    EngineOptions opts_;
    std::string fingerprint_;
    int64_t started_;
    // The tiers, their reconcile and the claim writes (engine/Tiers.h).
    Tiers tiers_;
    // The registry and the clone's team setup (engine/Team.h), made in the
    // constructor once the project's store is.
    std::unique_ptr<Team> team_;
    Anchorer anchorer_;
    Reports reports_;                      // reports, the inbox and the usage counter
    DirtyFlag dirty_;                      // a packet's dirty flag, kept while it holds
    std::unique_ptr<TreeWatch> treeWatch_; // opts_.watchFiles
    std::vector<std::string> configErrors_;
    // The workspace's code index (engine/CodeIndexer.h): in the project
    // store's index, or in one of its own for a workspace without a store.
    // With `create` false, only an index that exists already (the hot
    // paths never create one).
    std::unique_ptr<CodeIndexer> codeIndex_;
    Tier* codeTier(bool create = true) { return codeIndex_->tier(create); }
    void awaitCodeWalk() { codeIndex_->awaitWalk(); }
    // The instruction files and the listing of the workspace. Both services
    // are made in the constructor (they read the project store's settings),
    // the instruction files last: their listing may use the code index.
    std::unique_ptr<InstructionFiles> instructions_;
};

} // namespace engram
