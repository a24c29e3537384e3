// The SQLite index of one store: derived, disposable, fast.
//
// Invariant 9: the index is derived from the claim files. It is rebuilt when
// it is missing, damaged or of an older schema, and brought up to date with
// the files (hand edits, `git pull`) by sync(), which compares each file's
// mtime and size with what was indexed. A newer schema written by a newer
// engram is refused rather than rebuilt under it.
//
// Full-text search is an external-content FTS5 table over the claims table,
// kept in step by triggers, using the "engram" tokenizer. Triggers also keep
// per-status counts and column length sums, so status and ranking never scan.
#pragma once
#include "index/Reconcile.h"
#include "index/Sqlite.h"
#include "model/Claim.h"
#include "util/Fs.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

class Store;

struct IndexedClaim {
    int64_t rowid = 0;
    Claim claim;
    std::string code; // anchor paths and symbols, as indexed for search
    FileStat file;    // the claim file as it was when indexed
};

struct IndexStats {
    int64_t total = 0;
    int64_t committed = 0;
    int64_t frontier = 0;
    int64_t retracted = 0;
    int64_t superseded = 0;
    int64_t anchors = 0;
    int64_t generation = 0;
    // Average byte length per searchable column (BM25 length normalisation).
    double avgLabel = 1, avgText = 1, avgTags = 1, avgCode = 1;
};

// A definition in the workspace's code, as the code index keeps it: enough
// to find where an anchored symbol went when it left its file.
struct CodeSymbol {
    std::string path; // workspace-relative
    std::string qualified;
    std::string kind;
    std::string hash;
    std::string shape;
};

// The last part of a qualified name, `.` and `::` alike
// (`TokenValidator::validate` -> `validate`): what instruction files' names
// are looked up by in the code index.
std::string lastNamePart(std::string_view qualified);

// Anchor states over live anchored claims as engram/status last counted
// them (every tier), and when (Unix seconds).
struct HealthSummary {
    int64_t intact = 0, drifted = 0, moved = 0, orphaned = 0, unjudged = 0;
    int64_t countedAt = 0;
    bool sameCounts(const HealthSummary& o) const {
        return intact == o.intact && drifted == o.drifted && moved == o.moved &&
               orphaned == o.orphaned && unjudged == o.unjudged;
    }
};

// How a listing of the workspace's files differs from the one before:
// files added (with whether each is an instruction file) and removed.
struct ListingChange {
    std::vector<std::pair<std::string, bool>> added;
    std::vector<std::string> removed;
    bool empty() const { return added.empty() && removed.empty(); }
};

// A file that claims are anchored to, and how many times the anchors in it
// changed (any claim written, retracted or removed there).
struct AnchorPath {
    std::string path;
    int64_t changes = 0;
};

// One anchored file's anchor states as engram/status last counted them,
// with what the count depended on: the file's anchors (AnchorPath::changes),
// its text (the anchorer's content key), the code index (its generation:
// where a missing definition went) and the rules that judged it (engram's
// build). A server's first status reuses the row while all four hold, so
// it costs a stat per anchored file, not a check per anchor.
struct FileHealthRow {
    std::string path;
    int64_t changes = 0;
    std::string contentKey;
    int64_t codeGeneration = 0;
    std::string rules;
    int64_t intact = 0, drifted = 0, moved = 0, orphaned = 0, unjudged = 0;
    std::string notJudged; // "reason=n,reason=n"
};

struct BrokenFile {
    std::string file; // path relative to the store directory
    int line = 0;
    std::string message;
};

// A claim file that changed under the index: not written by engram (whose
// writes update the index as they happen), so brought by git or a person.
struct Arrival {
    std::string act;    // arrive | change | depart
    std::string claim;  // "<id>@<version>" (the version before, for depart)
    std::string detail; // what changed
};

struct SyncReport {
    std::vector<Arrival> arrivals; // incremental syncs only (not a fresh or rebuilt index)
    int added = 0;
    int updated = 0;
    int removed = 0;
    int broken = 0;
    bool rebuilt = false;
    std::string rebuildReason;
    int temporariesRemoved = 0; // left by interrupted writes (engram reindex sweeps them)
};

class Index {
public:
    // A claim's derived columns: the text the full-text index reads and the
    // joined lists. Computed from the claim alone, so a bulk load builds
    // them on its reading threads.
    struct Row {
        std::string tags, code, anchors, evidence, text, heads, contentHash;
        static Row of(const Claim& c);
    };
    // One claim file read for the index: the stat of the file that was read
    // (not of the path a moment before) and the claim, or why it cannot be
    // indexed (line, message). nullopt when it cannot be read (gone).
    struct ClaimFileRead {
        FileStat stat;
        std::optional<Claim> claim;
        int line = 0;
        std::string error;
    };
    static std::optional<ClaimFileRead> readClaimFile(const std::string& claimsDir,
                                                      const std::string& id);

    // 3: promotion columns; symbol shapes mask every spelling of the symbol's
    // name (code_symbols written by version 2 carry the older digests).
    // 4: contribution columns and every claim's normalised content hash.
    // 5: the heads a git merge kept beside the live version (searchable with
    // it), and whether the file still holds conflict markers.
    // 6: each claim file's inode, and the claims directory as last fully
    // listed (start-up without a scan).
    // 7: the files anchors are in, with a change counter each (status keeps
    // anchor health per file); the full-text index keeps which claims hold
    // a term and nothing more (detail=none, no column sizes): recall reads
    // posting lists of single terms and document frequencies, and ranks
    // from the rows themselves.
    // 12: claims by when they were last written (recall's dates,
    // text/When.h), an index added in place.
    // 13: claims by kind (a kind a query names, "what did we decide"), an
    // index added in place.
    static constexpr int kSchemaVersion = 13;

    // Opens or creates the index beside the store's claims. A missing,
    // corrupt or older index is recreated empty (sync() then fills it).
    explicit Index(const Store& store);

    // Brings the index in line with the claim files. With `ids`, only those
    // claims are looked at (file-watch events); otherwise every file is
    // listed and stat'ed (scanClaims), and the directory recorded as known.
    SyncReport sync(const std::vector<std::string>* ids = nullptr);
    // Applies a scan made against this index (on any thread): re-reads or
    // drops its ids, then records the directory as fully known when the
    // scan was settled and the directory has not changed since.
    SyncReport applyScan(const ClaimsScan& scan);
    // The claims directory as last completely listed, when that listing was
    // settled: while the directory still has this inode and mtime, no claim
    // file was added, removed, renamed or replaced since.
    std::optional<DirMark> settledDirMark();
    // Records the directory as fully known, on the word of a watch that saw
    // every entry change since the index last matched it (Engine's
    // settleByWatch; a scan records its own).
    void recordDirMark(const DirMark& m);
    // Drops everything and re-reads every claim file.
    SyncReport rebuild(std::string reason);

    // Records a claim engram itself just wrote: its row, anchors and search
    // entry in one transaction (a process killed half-way must not leave a
    // row without its anchors, which no later stat would notice).
    void upsert(const Claim& c, const FileStat& st);

    std::optional<IndexedClaim> byId(const std::string& id);
    std::optional<IndexedClaim> byRowid(int64_t rowid);
    std::optional<IndexedClaim> liveByLabel(const std::string& label);
    // Every live claim holding the label, newest first: more than one only
    // when two branches each wrote it (ARCHITECTURE.md, "Team memory").
    std::vector<IndexedClaim> liveWithLabel(const std::string& label, int limit = 8);
    // The same, ids only (recall marks each row's collision: no row parsing).
    std::vector<std::string> liveIdsWithLabel(const std::string& label, int limit);
    // Claims (any status) whose normalised text hashes to `hash`, oldest first.
    std::vector<IndexedClaim> byContentHash(const std::string& hash, int limit);
    // The claim a contribution became (frontier, accepted or rejected).
    std::optional<IndexedClaim> byContribution(const std::string& contributionId);
    IndexStats stats();
    // In file order; the first `limit` (-1: all).
    std::vector<BrokenFile> brokenFiles(int64_t limit = -1);
    int64_t brokenCount();

    // Number of indexed claims containing the (already tokenized) term. It
    // walks the term's whole posting list: recall estimates instead.
    int64_t docFrequency(const std::string& term);
    // Rowids of claims containing the term, newest first, at most `limit`.
    std::vector<int64_t> match(const std::string& term, int limit);
    // Most recently written claims (no query), optionally one status only.
    std::vector<int64_t> recent(std::optional<ClaimStatus> status, int limit);
    // Live claims that have at least one anchor, newest first.
    std::vector<int64_t> anchoredLive(int limit);
    // Every file holding at least one anchor (of a claim in any status).
    std::vector<AnchorPath> anchorPaths();
    // Claims with an anchor in `path` (exact file), newest first.
    std::vector<int64_t> anchoredIn(const std::string& path, int limit);

    // True when the index file was replaced or deleted since it was opened
    // (another engram rebuilt it, or a person deleted it): reopen.
    bool replacedOnDisk() const;
    // A read transaction: every lookup inside sees one snapshot and the
    // file locks are taken once rather than per statement.
    sql::Transaction readScope() { return sql::Transaction(db_, false); }
    // Smallest and largest rowid (rowids grow with every write).
    std::pair<int64_t, int64_t> rowidSpan();
    // Claims last written (updated, or else created) in [from, to), newest
    // first.
    std::vector<int64_t> writtenBetween(int64_t from, int64_t to, int limit);
    // Committed claims of one kind, newest first.
    std::vector<int64_t> ofKind(const std::string& kind, int limit);

    // The code index: every parsed source file of the workspace (by mtime and
    // size, so an unchanged file is not parsed again) and its definitions.
    std::vector<std::pair<std::string, FileStat>> codeFiles();
    void putCodeFile(const std::string& path, const FileStat& st,
                     const std::vector<CodeSymbol>& symbols);
    void dropCodeFile(const std::string& path);
    // Code files this Index object put or dropped: anchor states that looked
    // for a moved symbol elsewhere are stale once it changes.
    uint64_t codeChanges() const { return codeChanges_; }
    // The code index was written through another connection (a server's
    // start-up walk on its own thread).
    void noteCodeChanged() { ++codeChanges_; }
    std::vector<CodeSymbol> symbolsWithShape(const std::string& shape);

    // The workspace's files as the last full listing found them (git's view,
    // or a walk without git; engine/InstructionFiles.cpp), the instruction files
    // among them marked, so a hot path knows them without a process.
    struct Generations {
        int64_t files = 0; // bumped by each listing that changed; 0: never listed
        int64_t code = 0;  // bumped by each walk that changed the code index
    };
    Generations generations(); // one row: cheap enough for every request
    void bumpCodeGeneration();
    std::vector<std::string> listedInstructionFiles(); // sorted
    std::vector<std::string> listedFiles();
    // Names looked up in the listing and the code index one at a time, each
    // an indexed query (instruction files' references are judged this way:
    // what a judgement reads grows with the references, not the repository).
    // Definitions whose name ends in `last` (lastNamePart); listed files by
    // base name, by base name without extension, and under a path prefix
    // (those `keep` accepts, up to `limit`); directories by their own name,
    // and whether one is listed; whether some listed file's base name ends
    // in `suffix` without being it.
    std::vector<CodeSymbol> symbolsNamed(const std::string& last, int limit);
    std::vector<std::string> filesNamed(const std::string& name, int limit);
    std::vector<std::string> filesWithStem(const std::string& stem, int limit);
    std::vector<std::string> dirsNamed(const std::string& name, int limit);
    bool isListedDir(const std::string& path);
    std::vector<std::string> filesUnder(const std::string& prefix,
                                        const std::function<bool(const std::string&)>& keep,
                                        size_t limit);
    bool namesShareSuffix(const std::string& suffix);
    bool anyCodeSymbols(); // sorted; every row
    // Writes a listing's change (and marks the workspace listed even when
    // it is empty). False when nothing was written.
    bool applyListing(const ListingChange& change);
    // What git said of an instruction file's line (the commit that last
    // changed it, the definition a name had there, whether git ignores a
    // path), as a judging scan asked it, so a hot path reads it instead of
    // starting git (engine/Instructions.cpp). Keys are the scan's own.
    std::optional<std::string> historyFact(const std::string& key);
    void putHistoryFacts(const std::vector<std::pair<std::string, std::string>>& facts);
    // The anchor health engram/status last counted, kept for what cannot
    // count it (engram hook's session start: a look at every anchored file).
    std::optional<HealthSummary> lastHealth();
    void putHealth(const HealthSummary& h);
    // Per anchored file (FileHealthRow): every row kept, and rows written
    // (replacing a file's row), with the rows of files that hold no anchor
    // any more dropped in the same transaction.
    std::vector<FileHealthRow> fileHealth();
    void putFileHealth(const std::vector<FileHealthRow>& rows);
    sql::Transaction writeScope() { return sql::Transaction(db_, true); }
    // The page cache for a large write (the code index's first fill), in
    // MiB; 0 restores the default. With the default 2 MB, SQLite spills the
    // transaction's pages to the log and reads them back.
    void setWriteCache(int mib);

    // How SQLite plans each keyed lookup (name, EXPLAIN QUERY PLAN details):
    // a lookup whose plan walks a whole table or a whole status costs time
    // in proportion to the store, which a test forbids.
    std::vector<std::pair<std::string, std::string>> lookupPlans();

    const std::string& path() const { return path_; }
    bool freshlyCreated() const { return fresh_; }

private:
    void open(bool allowRecreate);
    void createSchema();
    void prepare();
    void removeId(const std::string& id);
    // Both return the new row's rowid.
    int64_t insertRow(const Claim& c, const FileStat& st);
    // upsert's statements, inside the caller's transaction.
    void replaceRow(const Claim& c, const FileStat& st);
    int64_t insertRow(const Claim& c, const Row& row, const FileStat& st);
    // Builds a new index from every claim file beside this one and swaps it
    // in; bulkLoad fills the (empty) database open at that moment.
    SyncReport loadAside();
    SyncReport bulkLoad();
    void createSecondaryIndexes();
    void dropSecondaryIndexes();
    void createInsertTrigger();
    void createAnchorPathTriggers();
    void setBroken(const std::string& file, int line, const std::string& msg, const FileStat& st);
    IndexedClaim rowToClaim(sql::Stmt& s);
    SyncReport syncImpl(const std::vector<std::string>& ids);

    const Store& store_;
    std::string path_;
    sql::Db db_;
    bool fresh_ = false;
    uint64_t inode_ = 0;
    uint64_t codeChanges_ = 0;
    std::string recreateReason_;

    sql::Stmt insert_, deleteById_, deleteAnchors_, insertAnchor_, selectById_, selectByRowid_,
        selectLiveLabel_, selectLiveLabelIds_, selectStats_, selectDf_, selectMatch_, selectRecent_,
        selectRecentStatus_, selectAnchoredIn_, selectAnchoredLive_, selectSpan_, selectWritten_,
        selectKind_, upsertBroken_, deleteBroken_, putCodeFile_, dropCodeFile_, dropCodeSymbols_,
        putCodeSymbol_, selectShape_, selectContentHash_, selectContribution_, selectGenerations_,
        selectInstructionFiles_, selectFact_, selectSymbolsNamed_, selectFilesNamed_, selectStems_,
        selectDirsNamed_, selectDir_, selectUnder_, selectRnames_;
    static std::vector<std::string> column(sql::Stmt& s);
};

} // namespace engram
