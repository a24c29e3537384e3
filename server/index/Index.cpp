// Index schema, synchronisation with the claim files, and lookups.
#include "index/Index.h"

#include "index/Reconcile.h"

#include "store/ClaimFile.h"
#include "store/Merge.h"
#include "store/Store.h"
#include "text/Content.h"
#include "util/Error.h"
#include "util/Fs.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <sys/stat.h>
#include <unordered_map>

namespace engram {

// 'engr' in ASCII: marks the file as ours so a stray database is not mistaken
// for an index.
static constexpr int64_t kApplicationId = 0x656e6772;

// The workspace's files as the last listing found them, the generations
// the hot paths key their caches on (Index::generations), and what git said
// about instruction files' lines (Index::historyFact), and the anchor health
// status last counted (Index::lastHealth). Version 8 added them, version 9
// the anchor health per anchored file (Index::fileHealth); an index of
// version 7 or 8 gets them in place (open()), not by a rebuild.
static const char* kListingSchema = R"SQL(
CREATE TABLE IF NOT EXISTS workspace_files(path TEXT PRIMARY KEY,
  instruction INTEGER NOT NULL DEFAULT 0, name TEXT NOT NULL, stem TEXT NOT NULL,
  rname TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS workspace_instructions ON workspace_files(instruction)
  WHERE instruction = 1;
CREATE INDEX IF NOT EXISTS workspace_names ON workspace_files(name);
CREATE INDEX IF NOT EXISTS workspace_stems ON workspace_files(stem);
CREATE INDEX IF NOT EXISTS workspace_rnames ON workspace_files(rname);
CREATE TABLE IF NOT EXISTS workspace_dirs(path TEXT PRIMARY KEY, name TEXT NOT NULL)
  WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS workspace_dir_names ON workspace_dirs(name);
CREATE TABLE IF NOT EXISTS code_meta(k INTEGER PRIMARY KEY CHECK (k = 0),
  files_generation INTEGER NOT NULL, code_generation INTEGER NOT NULL);
INSERT OR IGNORE INTO code_meta(k, files_generation, code_generation) VALUES (0, 0, 0);
CREATE TABLE IF NOT EXISTS history_facts(key TEXT PRIMARY KEY, value TEXT NOT NULL)
  WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS health_summary(k INTEGER PRIMARY KEY CHECK (k = 0),
  intact INTEGER NOT NULL, drifted INTEGER NOT NULL, moved INTEGER NOT NULL,
  orphaned INTEGER NOT NULL, unjudged INTEGER NOT NULL, counted_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS anchor_health(path TEXT PRIMARY KEY, changes INTEGER NOT NULL,
  content_key TEXT NOT NULL, code_generation INTEGER NOT NULL, rules TEXT NOT NULL,
  intact INTEGER NOT NULL, drifted INTEGER NOT NULL, moved INTEGER NOT NULL,
  orphaned INTEGER NOT NULL, unjudged INTEGER NOT NULL, not_judged TEXT NOT NULL)
  WITHOUT ROWID;
)SQL";

// The code index's definitions, by shape (where an anchor went), by file,
// and by the last part of the name (instruction files' names are looked up
// by it: `validate` -> TokenValidator.validate).
static const char* kCodeSymbolsSchema = R"SQL(
CREATE TABLE code_symbols(path TEXT NOT NULL, qualified TEXT NOT NULL, kind TEXT,
  hash TEXT, shape TEXT, last TEXT NOT NULL);
CREATE INDEX code_symbols_shape ON code_symbols(shape);
CREATE INDEX code_symbols_path ON code_symbols(path);
CREATE INDEX code_symbols_last ON code_symbols(last);
)SQL";

// From versions 7 to 9, what version 10 changed: the listing and the code
// index gain the columns names are looked up by. Both are derived from the
// workspace, so they start again empty (never listed; every file parsed
// again by the next walk) rather than being rebuilt row by row.
static const char* kNamesMigration = R"SQL(
DROP TABLE IF EXISTS workspace_files;
DROP TABLE IF EXISTS workspace_dirs;
DROP TABLE IF EXISTS code_symbols;
DELETE FROM code_files;
)SQL";

static const char* kSchema = R"SQL(
CREATE TABLE claims(
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  version INTEGER NOT NULL,
  label TEXT,
  kind TEXT,
  status TEXT NOT NULL,
  confidence REAL,
  created INTEGER,
  updated INTEGER,
  verified INTEGER,
  source_agent TEXT,
  origin TEXT,
  supersedes TEXT,
  tags TEXT,
  text TEXT NOT NULL,
  code TEXT,
  anchors TEXT,
  anchor_count INTEGER NOT NULL DEFAULT 0,
  evidence TEXT,
  fb_correct INTEGER NOT NULL DEFAULT 0,
  fb_wrong INTEGER NOT NULL DEFAULT 0,
  fb_partial INTEGER NOT NULL DEFAULT 0,
  retracted_by TEXT,
  retract_reason TEXT,
  origin_claim TEXT,
  promoted_by TEXT,
  promoted INTEGER,
  promotion_reason TEXT,
  promoted_to TEXT,
  contribution_id TEXT,
  contributed_by TEXT,
  accepted_by TEXT,
  packet_id TEXT,
  content_hash TEXT,
  heads TEXT,
  unmerged INTEGER NOT NULL DEFAULT 0,
  file_mtime INTEGER NOT NULL,
  file_size INTEGER NOT NULL,
  file_ino INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE anchors(claim_rowid INTEGER NOT NULL, path TEXT NOT NULL, symbol TEXT);
CREATE TABLE anchor_paths(path TEXT PRIMARY KEY, anchors INTEGER NOT NULL,
  changes INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE code_files(path TEXT PRIMARY KEY, file_mtime INTEGER, file_size INTEGER)
  WITHOUT ROWID;

CREATE TABLE broken(file TEXT PRIMARY KEY, line INTEGER, message TEXT,
                    file_mtime INTEGER, file_size INTEGER, file_ino INTEGER NOT NULL DEFAULT 0);
CREATE TABLE stats(k INTEGER PRIMARY KEY CHECK (k = 0),
  total INTEGER, committed INTEGER, frontier INTEGER, retracted INTEGER, superseded INTEGER,
  anchors INTEGER, generation INTEGER,
  sum_label INTEGER, sum_text INTEGER, sum_tags INTEGER, sum_code INTEGER,
  dir_ino INTEGER NOT NULL DEFAULT 0, dir_mtime INTEGER NOT NULL DEFAULT 0,
  dir_settled INTEGER NOT NULL DEFAULT 0);
INSERT INTO stats(k, total, committed, frontier, retracted, superseded, anchors, generation,
  sum_label, sum_text, sum_tags, sum_code) VALUES (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
CREATE VIRTUAL TABLE claims_fts USING fts5(label, text, tags, code,
  content='claims', content_rowid='rowid', tokenize='engram', detail=none, columnsize=0);
CREATE VIRTUAL TABLE claims_vocab USING fts5vocab(claims_fts, 'row');
)SQL";

// The lookups' indexes over claims and anchors. A bulk load builds them after
// the rows are in (one sort each, on helper threads) rather than row by row,
// which at a million claims means random writes across B-trees larger than
// the page cache.
static const std::pair<const char*, const char*> kSecondaryIndexes[] = {
    {"claims_label", "claims(label)"},
    {"claims_status", "claims(status)"},
    {"claims_anchored", "claims(status) WHERE anchor_count > 0"},
    {"claims_content", "claims(content_hash)"},
    {"claims_contribution", "claims(contribution_id) WHERE contribution_id IS NOT NULL"},
    {"claims_written", "claims(coalesce(updated, created))"},
    {"claims_kind", "claims(kind)"},
    {"anchors_path", "anchors(path, claim_rowid)"},
    {"anchors_claim", "anchors(claim_rowid)"},
};

// Which files hold anchors, and a counter per file bumped by every change to
// its anchors (a claim written, retracted or removed). A file's row stays at
// zero anchors rather than going, so its counter never restarts: a reader
// that saw a counter value knows nothing changed while it still reads it.
static const char* kAnchorPathTriggers = R"SQL(
CREATE TRIGGER anchors_ai AFTER INSERT ON anchors BEGIN
  INSERT INTO anchor_paths(path, anchors, changes) VALUES (new.path, 1, 1)
    ON CONFLICT(path) DO UPDATE SET anchors = anchors + 1, changes = changes + 1;
END;
CREATE TRIGGER anchors_ad AFTER DELETE ON anchors BEGIN
  UPDATE anchor_paths SET anchors = anchors - 1, changes = changes + 1 WHERE path = old.path;
END;
)SQL";

// stats.superseded counts the versions claims have left behind: each
// version number below a claim's current one was replaced (by a write under
// its label, a promotion's new medulla copy, a resolved merge) and is kept in
// the store's history. The index holds current versions only, so it counts
// them from the version numbers.
static const char* kDeleteTrigger = R"SQL(
CREATE TRIGGER claims_ad AFTER DELETE ON claims BEGIN
  INSERT INTO claims_fts(claims_fts, rowid, label, text, tags, code)
    VALUES ('delete', old.rowid, old.label, old.text, old.tags, old.code);
  DELETE FROM anchors WHERE claim_rowid = old.rowid;
  UPDATE stats SET total = total - 1,
    committed = committed - (old.status = 'committed'),
    frontier = frontier - (old.status = 'frontier'),
    retracted = retracted - (old.status = 'retracted'),
    superseded = superseded - max(old.version - 1, 0),
    anchors = anchors - old.anchor_count,
    generation = generation + 1,
    sum_label = sum_label - length(coalesce(old.label, '')),
    sum_text = sum_text - length(old.text),
    sum_tags = sum_tags - length(coalesce(old.tags, '')),
    sum_code = sum_code - length(coalesce(old.code, ''));
END;
)SQL";

// Version 11 counts superseded versions (above) where earlier versions
// counted current claims whose status was superseded, which supersession
// never leaves: recounted in place from the rows, no rebuild.
static const char* kSupersededMigration = R"SQL(
DROP TRIGGER IF EXISTS claims_ad;
DROP TRIGGER IF EXISTS claims_ai;
UPDATE stats SET superseded = (SELECT coalesce(sum(max(version - 1, 0)), 0) FROM claims);
)SQL";

static const char* kInsertTrigger = R"SQL(
CREATE TRIGGER claims_ai AFTER INSERT ON claims BEGIN
  INSERT INTO claims_fts(rowid, label, text, tags, code)
    VALUES (new.rowid, new.label, new.text, new.tags, new.code);
  UPDATE stats SET total = total + 1,
    committed = committed + (new.status = 'committed'),
    frontier = frontier + (new.status = 'frontier'),
    retracted = retracted + (new.status = 'retracted'),
    superseded = superseded + max(new.version - 1, 0),
    anchors = anchors + new.anchor_count,
    generation = generation + 1,
    sum_label = sum_label + length(coalesce(new.label, '')),
    sum_text = sum_text + length(new.text),
    sum_tags = sum_tags + length(coalesce(new.tags, '')),
    sum_code = sum_code + length(coalesce(new.code, ''));
END;
)SQL";

static const char* kColumns =
    "rowid, id, version, label, kind, status, confidence, created, updated, verified, "
    "source_agent, origin, supersedes, tags, text, code, anchors, evidence, fb_correct, "
    "fb_wrong, fb_partial, retracted_by, retract_reason, origin_claim, promoted_by, promoted, "
    "promotion_reason, promoted_to, contribution_id, contributed_by, accepted_by, packet_id, "
    "content_hash, heads, unmerged, file_mtime, file_size, file_ino";

Index::Index(const Store& store)
    : store_(store)
    , path_(store.indexPath()) {
    open(true);
}

static uint64_t fileInode(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? uint64_t(st.st_ino) : 0;
}

bool Index::replacedOnDisk() const {
    return fileInode(path_) != inode_;
}

static void removeIndexFiles(const std::string& path) {
    removeFile(path);
    removeFile(path + "-wal");
    removeFile(path + "-shm");
}

void Index::open(bool allowRecreate) {
    bool existed = statFile(path_).has_value();
    try {
        db_ = sql::Db(path_);
        sql::registerTokenizer(db_);
        int64_t app = db_.pragmaInt("application_id");
        int64_t ver = db_.pragmaInt("user_version");
        bool empty = false;
        {
            auto s = db_.prepare("SELECT count(*) FROM sqlite_master");
            s.step();
            empty = s.int64(0) == 0;
        }
        if (!existed || (empty && app == 0)) {
            createSchema();
            fresh_ = true;
            recreateReason_ = existed ? "the index was empty" : "the index did not exist";
        } else if (app != kApplicationId) {
            throw sql::Error(26 /* SQLITE_NOTADB */, "not an engram index");
        } else if (ver > kSchemaVersion) {
            throw EngramError(ErrorKind::IndexUnavailable,
                              "the index " + path_ + " has schema version " + std::to_string(ver) +
                                  ", newer than this engram understands (" +
                                  std::to_string(kSchemaVersion) +
                                  "); run a newer engram, or delete the file to rebuild it",
                              {{"path", path_}, {"schema_version", ver}});
        } else if (ver >= 7 && ver < kSchemaVersion) {
            // What versions 8 to 13 changed is derived from the workspace or
            // from the rows already indexed, not from claim files: changed in
            // place, so an upgrade costs no rebuild.
            sql::Transaction tx(db_);
            if (ver < 10) {
                db_.exec(kNamesMigration);
                db_.exec(kCodeSymbolsSchema);
                db_.exec(kListingSchema);
                db_.exec("UPDATE code_meta SET files_generation = 0, "
                         "code_generation = code_generation + 1");
            }
            db_.exec(kSupersededMigration);
            if (ver < 12)
                db_.exec("CREATE INDEX IF NOT EXISTS claims_written ON "
                         "claims(coalesce(updated, created))");
            if (ver < 13) db_.exec("CREATE INDEX IF NOT EXISTS claims_kind ON claims(kind)");
            db_.exec(kDeleteTrigger);
            db_.exec(kInsertTrigger);
            db_.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
            tx.commit();
        } else if (ver < kSchemaVersion) {
            throw sql::Error(26, "index schema version " + std::to_string(ver) + " is older");
        }
        db_.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;");
        prepare();
        stats(); // touches the data pages: a damaged file fails here, not mid-request
        inode_ = fileInode(path_);
    } catch (const sql::Error& e) {
        // A full or failing disk is not a damaged index: deleting it would
        // turn a passing fault into a rebuild of every claim.
        if (!allowRecreate || e.kind == ErrorKind::Storage) throw;
        db_ = sql::Db();
        removeIndexFiles(path_);
        recreateReason_ = std::string("the index was unusable (") + e.what() + ")";
        std::string reason = recreateReason_;
        open(false);
        fresh_ = true;
        recreateReason_ = reason;
    }
}

void Index::createSecondaryIndexes() {
    for (auto& [name, on] : kSecondaryIndexes)
        db_.exec(std::string("CREATE INDEX ") + name + " ON " + on);
}

void Index::dropSecondaryIndexes() {
    for (auto& [name, on] : kSecondaryIndexes)
        db_.exec(std::string("DROP INDEX ") + name);
}

void Index::createInsertTrigger() {
    db_.exec(kInsertTrigger);
}

void Index::createAnchorPathTriggers() {
    db_.exec(kAnchorPathTriggers);
}

void Index::createSchema() {
    sql::Transaction tx(db_);
    db_.exec(kSchema);
    db_.exec(kDeleteTrigger);
    db_.exec(kCodeSymbolsSchema);
    db_.exec(kListingSchema);
    createSecondaryIndexes();
    createInsertTrigger();
    createAnchorPathTriggers();
    db_.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    db_.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
    tx.commit();
}

void Index::prepare() {
    insert_ = db_.prepare(
        "INSERT INTO claims(id, version, label, kind, status, confidence, created, updated, "
        "verified, source_agent, origin, supersedes, tags, text, code, anchors, anchor_count, "
        "evidence, fb_correct, fb_wrong, fb_partial, retracted_by, retract_reason, file_mtime, "
        "file_size, origin_claim, promoted_by, promoted, promotion_reason, promoted_to, "
        "contribution_id, contributed_by, accepted_by, packet_id, content_hash, heads, unmerged, "
        "file_ino) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
        "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, "
        "?37, ?38)");
    selectContentHash_ =
        db_.prepare(std::string("SELECT ") + kColumns +
                    " FROM claims WHERE content_hash = ?1 ORDER BY rowid LIMIT ?2");
    selectContribution_ = db_.prepare(std::string("SELECT ") + kColumns +
                                      " FROM claims WHERE contribution_id = ?1 LIMIT 1");
    deleteById_ = db_.prepare("DELETE FROM claims WHERE id = ?1");
    insertAnchor_ =
        db_.prepare("INSERT INTO anchors(claim_rowid, path, symbol) VALUES (?1, ?2, ?3)");
    selectById_ = db_.prepare(std::string("SELECT ") + kColumns + " FROM claims WHERE id = ?1");
    selectByRowid_ =
        db_.prepare(std::string("SELECT ") + kColumns + " FROM claims WHERE rowid = ?1");
    selectLiveLabel_ = db_.prepare(std::string("SELECT ") + kColumns +
                                   " FROM claims WHERE label = ?1 AND +status = 'committed' "
                                   "ORDER BY rowid DESC LIMIT ?2");
    selectLiveLabelIds_ = db_.prepare("SELECT id FROM claims WHERE label = ?1 AND +status = "
                                      "'committed' ORDER BY rowid DESC LIMIT ?2");
    selectStats_ = db_.prepare("SELECT total, committed, frontier, retracted, superseded, anchors, "
                               "generation, sum_label, sum_text, sum_tags, sum_code FROM stats");
    selectDf_ = db_.prepare("SELECT doc FROM claims_vocab WHERE term = ?1");
    selectMatch_ = db_.prepare(
        "SELECT rowid FROM claims_fts WHERE claims_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2");
    selectRecent_ = db_.prepare("SELECT rowid FROM claims ORDER BY rowid DESC LIMIT ?1");
    selectRecentStatus_ =
        db_.prepare("SELECT rowid FROM claims WHERE status = ?1 ORDER BY rowid DESC LIMIT ?2");
    selectAnchoredIn_ = db_.prepare("SELECT DISTINCT claim_rowid FROM anchors WHERE path = ?1 "
                                    "ORDER BY claim_rowid DESC LIMIT ?2");
    selectAnchoredLive_ = db_.prepare("SELECT rowid FROM claims WHERE status = 'committed' AND "
                                      "anchor_count > 0 ORDER BY rowid DESC LIMIT ?1");
    selectWritten_ = db_.prepare("SELECT rowid FROM claims WHERE coalesce(updated, created) >= ?1 "
                                 "AND coalesce(updated, created) < ?2 ORDER BY "
                                 "coalesce(updated, created) DESC LIMIT ?3");
    selectKind_ = db_.prepare("SELECT rowid FROM claims WHERE kind = ?1 AND +status = 'committed' "
                              "ORDER BY rowid DESC LIMIT ?2");
    selectSpan_ = db_.prepare(
        // Two subqueries: SQLite answers a bare min()/max() of the rowid from
        // the B-tree's ends, but scans the table for min and max together.
        "SELECT coalesce((SELECT min(rowid) FROM claims), 0), "
        "coalesce((SELECT max(rowid) FROM claims), 0)");
    putCodeFile_ = db_.prepare(
        "INSERT OR REPLACE INTO code_files(path, file_mtime, file_size) VALUES (?1, ?2, ?3)");
    dropCodeFile_ = db_.prepare("DELETE FROM code_files WHERE path = ?1");
    dropCodeSymbols_ = db_.prepare("DELETE FROM code_symbols WHERE path = ?1");
    putCodeSymbol_ = db_.prepare("INSERT INTO code_symbols(path, qualified, kind, hash, "
                                 "shape, last) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    selectSymbolsNamed_ =
        db_.prepare("SELECT path, qualified FROM code_symbols WHERE last = ?1 LIMIT ?2");
    selectFilesNamed_ =
        db_.prepare("SELECT path FROM workspace_files WHERE name = ?1 ORDER BY path LIMIT ?2");
    selectStems_ =
        db_.prepare("SELECT path FROM workspace_files WHERE stem = ?1 ORDER BY path LIMIT ?2");
    selectDirsNamed_ =
        db_.prepare("SELECT path FROM workspace_dirs WHERE name = ?1 ORDER BY path LIMIT ?2");
    selectDir_ = db_.prepare("SELECT 1 FROM workspace_dirs WHERE path = ?1");
    selectUnder_ = db_.prepare(
        "SELECT path FROM workspace_files WHERE path >= ?1 AND path < ?2 ORDER BY path");
    selectRnames_ =
        db_.prepare("SELECT 1 FROM workspace_files WHERE rname > ?1 AND rname < ?2 LIMIT 1");
    selectShape_ = db_.prepare(
        "SELECT path, qualified, kind, hash, shape FROM code_symbols WHERE shape = ?1 LIMIT 50");
    selectFact_ = db_.prepare("SELECT value FROM history_facts WHERE key = ?1");
    selectGenerations_ = db_.prepare("SELECT files_generation, code_generation FROM code_meta");
    selectInstructionFiles_ =
        db_.prepare("SELECT path FROM workspace_files WHERE instruction = 1 ORDER BY path");
    upsertBroken_ = db_.prepare("INSERT OR REPLACE INTO broken(file, line, message, file_mtime, "
                                "file_size, file_ino) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    deleteBroken_ = db_.prepare("DELETE FROM broken WHERE file = ?1");
}

void Index::upsert(const Claim& c, const FileStat& st) {
    sql::Transaction tx(db_);
    replaceRow(c, st);
    tx.commit();
}

void Index::replaceRow(const Claim& c, const FileStat& st) {
    removeId(c.id);
    insertRow(c, st);
    deleteBroken_.bind(1, "claims/" + c.id + ".md").exec();
}

Index::Row Index::Row::of(const Claim& c) {
    Row r;
    for (auto& t : c.tags)
        r.tags += (r.tags.empty() ? "" : ", ") + t;
    for (auto& a : c.anchors) {
        r.anchors += (r.anchors.empty() ? "" : "\n") + formatAnchor(a);
        r.code += (r.code.empty() ? "" : " ") + a.path + (a.symbol.empty() ? "" : " " + a.symbol);
    }
    for (auto& e : c.evidence)
        r.evidence += (r.evidence.empty() ? "" : "\n") + e.type + " " + escapeValue(e.value);
    // The diverged versions a merge kept are searchable with the live one
    // (the `text` column, which the FTS index reads, holds their texts after
    // it), so a recall finds the claim by either branch's words.
    r.text = c.text;
    for (auto& d : c.diverged) {
        r.text += "\n" + d.text;
        r.heads += (r.heads.empty() ? "" : "\n") + escapeValue(serializeClaim(d));
    }
    // Every claim's normalised content is keyed (not only contributions'),
    // so a contribution repeating a hand-written claim is found as a duplicate.
    r.contentHash = engram::contentHash(c.text);
    return r;
}

int64_t Index::insertRow(const Claim& c, const FileStat& st) {
    return insertRow(c, Row::of(c), st);
}

int64_t Index::insertRow(const Claim& c, const Row& r, const FileStat& st) {
    auto opt = [](const std::string& s) {
        return s.empty() ? std::optional<std::string_view>() : std::optional<std::string_view>(s);
    };
    insert_.bind(1, c.id).bind(2, c.version).bind(3, opt(c.label)).bind(4, opt(c.kind));
    insert_.bind(5, toString(c.status)).bind(6, c.confidence).bind(7, c.created);
    insert_.bind(8, c.updated).bind(9, c.verified).bind(10, opt(c.sourceAgent));
    insert_.bind(11, opt(c.origin)).bind(12, opt(c.supersedes)).bind(13, opt(r.tags));
    insert_.bind(14, r.text).bind(15, opt(r.code)).bind(16, opt(r.anchors));
    insert_.bind(17, int64_t(c.anchors.size())).bind(18, opt(r.evidence));
    insert_.bind(19, c.feedback.correct).bind(20, c.feedback.wrong).bind(21, c.feedback.partial);
    insert_.bind(22, opt(c.retractedBy)).bind(23, opt(c.retractReason));
    insert_.bind(24, st.mtimeNs).bind(25, st.size);
    insert_.bind(26, opt(c.originClaim)).bind(27, opt(c.promotedBy)).bind(28, c.promoted);
    insert_.bind(29, opt(c.promotionReason)).bind(30, opt(c.promotedTo));
    insert_.bind(31, opt(c.contributionId)).bind(32, opt(c.contributedBy));
    insert_.bind(33, opt(c.acceptedBy)).bind(34, opt(c.packetId));
    insert_.bind(35, r.contentHash);
    insert_.bind(36, opt(r.heads)).bind(37, int64_t(c.unmerged)).bind(38, int64_t(st.ino));
    insert_.exec();
    int64_t rowid = db_.lastInsertRowid();
    for (auto& a : c.anchors) {
        insertAnchor_.bind(1, rowid).bind(2, a.path);
        if (a.symbol.empty())
            insertAnchor_.bindNull(3);
        else
            insertAnchor_.bind(3, a.symbol);
        insertAnchor_.exec();
    }
    return rowid;
}

void Index::removeId(const std::string& id) {
    deleteById_.bind(1, id).exec();
}

void Index::setBroken(const std::string& file, int line, const std::string& msg,
                      const FileStat& st) {
    upsertBroken_.bind(1, file).bind(2, line).bind(3, msg).bind(4, st.mtimeNs).bind(5, st.size);
    upsertBroken_.bind(6, int64_t(st.ino));
    upsertBroken_.exec();
}

SyncReport Index::sync(const std::vector<std::string>* ids) {
    if (fresh_ && !ids) {
        SyncReport r = loadAside();
        r.rebuilt = true;
        r.rebuildReason = recreateReason_;
        return r;
    }
    SyncReport r = ids ? syncImpl(*ids) : applyScan(scanClaims(path_, store_.claimsDir(), true));
    if (fresh_) {
        r.rebuilt = true;
        r.rebuildReason = recreateReason_;
        fresh_ = false;
    }
    return r;
}

SyncReport Index::applyScan(const ClaimsScan& scan) {
    if (!scan.error.empty()) throw EngramError(ErrorKind::IndexUnavailable, scan.error);
    if (scan.cancelled) return {};
    SyncReport r = syncImpl(scan.ids);
    // The directory is known as listed only if nothing changed it since:
    // engram's own writes in the meantime move its mtime too.
    if (scan.settled && dirMark(store_.claimsDir()) == scan.dir) recordDirMark(scan.dir);
    return r;
}

std::vector<std::pair<std::string, std::string>> Index::lookupPlans() {
    std::vector<std::pair<std::string, std::string>> out;
    std::pair<const char*, sql::Stmt*> lookups[] = {
        {"by id", &selectById_},
        {"live by label", &selectLiveLabel_},
        {"live ids by label", &selectLiveLabelIds_},
        {"by content hash", &selectContentHash_},
        {"by contribution", &selectContribution_},
        {"anchored in a file", &selectAnchoredIn_},
        {"shape", &selectShape_},
        {"instruction files", &selectInstructionFiles_},
        {"history fact", &selectFact_},
        {"symbols by last name", &selectSymbolsNamed_},
        {"files by name", &selectFilesNamed_},
        {"files by stem", &selectStems_},
        {"directories by name", &selectDirsNamed_},
        {"directory", &selectDir_},
        {"files under a prefix", &selectUnder_},
        {"file names by suffix", &selectRnames_},
    };
    for (auto& [name, stmt] : lookups) {
        auto plan = db_.prepare("EXPLAIN QUERY PLAN " + stmt->sql());
        std::string details;
        while (plan.step())
            details += (details.empty() ? "" : "; ") + plan.text(3);
        out.emplace_back(name, details);
    }
    return out;
}

std::optional<DirMark> Index::settledDirMark() {
    auto s = db_.prepare("SELECT dir_ino, dir_mtime, dir_settled FROM stats");
    if (!s.step() || s.int64(2) == 0) return std::nullopt;
    return DirMark{uint64_t(s.int64(0)), s.int64(1)};
}

void Index::recordDirMark(const DirMark& m) {
    auto s = db_.prepare("UPDATE stats SET dir_ino = ?1, dir_mtime = ?2, dir_settled = 1");
    s.bind(1, int64_t(m.ino)).bind(2, m.mtimeNs).exec();
}

SyncReport Index::rebuild(std::string reason) {
    SyncReport r = loadAside();
    r.rebuilt = true;
    r.rebuildReason = std::move(reason);
    return r;
}

SyncReport Index::loadAside() {
    // The index is built in a file of its own, without a journal or syncs,
    // and renamed over the old one when complete: nothing is written twice
    // (a write-ahead log would hold every page before the database does),
    // and until the rename every other engram process keeps answering from
    // the old file. They notice the new inode (replacedOnDisk) and reopen.
    // A load that is interrupted leaves only the aside file, which the next
    // load removes.
    const std::string aside = path_ + ".load";
    db_ = sql::Db();
    removeIndexFiles(aside);
    SyncReport r;
    try {
        db_ = sql::Db(aside);
        sql::registerTokenizer(db_);
        db_.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF");
        createSchema();
        prepare();
        r = bulkLoad();
        db_.exec("PRAGMA journal_mode=WAL");
        db_ = sql::Db();
        fsyncFile(aside);
    } catch (...) {
        db_ = sql::Db();
        removeIndexFiles(aside);
        throw;
    }
    // The old file's log and shared memory go first: a log left beside the
    // new file would be replayed into it.
    removeIndexFiles(path_);
    if (::rename(aside.c_str(), path_.c_str()) != 0) {
        // A disk that refuses the rename: a storage error, and the next
        // open builds the index again from the files.
        int err = errno;
        removeIndexFiles(aside);
        throw FsError("cannot rename " + aside + " to " + path_ + ": " + std::strerror(err), path_,
                      err);
    }
    fsyncDir(parentDir(path_));
    open(false);
    fresh_ = false;
    return r;
}

namespace {

std::string describe(const Claim& c) {
    std::string s = "v" + std::to_string(c.version) + ", " + std::string(toString(c.status));
    if (!c.diverged.empty()) s += ", diverged";
    if (c.unmerged) s += ", unmerged";
    return s;
}

// What differs between the indexed claim and the one now in the file, as
// the audit log says it: empty when nothing does (engram's own write, seen
// again through a file watch).
std::string changes(const Claim& was, const Claim& now) {
    std::vector<std::string> what;
    if (was.version != now.version)
        what.push_back("version " + std::to_string(was.version) + " -> " +
                       std::to_string(now.version));
    else {
        // The index does not keep force_reason; the rest of the key it does.
        Claim a = was, b = now;
        a.forceReason.clear();
        b.forceReason.clear();
        if (versionKey(a) != versionKey(b)) what.push_back("content");
    }
    if (was.status != now.status)
        what.push_back("status " + std::string(toString(was.status)) + " -> " +
                       std::string(toString(now.status)));
    auto fb = [](const Feedback& f) {
        return std::to_string(f.correct) + "/" + std::to_string(f.wrong) + "/" +
               std::to_string(f.partial);
    };
    if (fb(was.feedback) != fb(now.feedback)) what.push_back("feedback " + fb(now.feedback));
    std::string wa, na;
    for (auto& a : was.anchors)
        wa += formatAnchor(a);
    for (auto& a : now.anchors)
        na += formatAnchor(a);
    if (wa != na || was.verified != now.verified) what.push_back("anchors");
    std::set<std::string> wd, nd;
    for (auto& d : was.diverged)
        wd.insert(versionKey(d) + std::string(toString(d.status)));
    for (auto& d : now.diverged)
        nd.insert(versionKey(d) + std::string(toString(d.status)));
    if (wd != nd)
        what.push_back(now.diverged.empty()
                           ? std::string("divergence resolved")
                           : "diverged (" + std::to_string(now.diverged.size() + 1) +
                                 " versions kept)");
    if (was.unmerged != now.unmerged)
        what.push_back(now.unmerged ? "git conflict markers" : "conflict markers gone");
    std::string out;
    for (auto& w : what)
        out += (out.empty() ? "" : ", ") + w;
    return out;
}

} // namespace

std::optional<Index::ClaimFileRead> Index::readClaimFile(const std::string& claimsDir,
                                                         const std::string& id) {
    std::string full = claimsDir + "/" + id + ".md";
    ClaimFileRead f;
    if (!Store::validId(id)) {
        auto st = statEntry(full);
        if (!st) return std::nullopt;
        f.stat = *st;
        f.error = "the file name is not a valid claim id (a-z, 0-9, '-', '_')";
        return f;
    }
    try {
        auto text = readClaimText(full, &f.stat);
        if (!text) return std::nullopt;
        f.claim = parseClaim(*text, id);
    } catch (const ClaimFileError& e) {
        f.line = e.line;
        f.error = e.what();
        // Not opened (a link, a FIFO): the entry's own stat, so that the
        // next sync knows it unchanged.
        if (f.stat.ino == 0)
            if (auto st = statEntry(full)) f.stat = *st;
    }
    return f;
}

SyncReport Index::syncImpl(const std::vector<std::string>& ids) {
    // Each id is looked at afresh: the caller (a file watch, a scan, a
    // served row found changed) already knows these files need it.
    SyncReport r;
    std::unordered_map<std::string, FileStat> broken;
    {
        auto s = db_.prepare("SELECT file, file_mtime, file_size, file_ino FROM broken");
        while (s.step())
            broken[s.text(0)] = {s.int64(1), s.int64(2), uint64_t(s.int64(3))};
    }
    sql::Transaction tx(db_);
    std::set<std::string> seen;
    for (auto& id : ids) {
        if (!seen.insert(id).second) continue;
        std::string name = id + ".md";
        std::string rel = "claims/" + name;
        std::string full = store_.claimsDir() + "/" + name;
        auto st = statEntry(full);
        std::optional<IndexedClaim> before = byId(id);
        if (!st) {
            if (broken.count(rel)) deleteBroken_.bind(1, rel).exec();
            if (!before) continue;
            removeId(id);
            ++r.removed;
            r.arrivals.push_back(
                {"depart", id + "@" + std::to_string(before->claim.version), rel + " was removed"});
            continue;
        }
        if (auto it = broken.find(rel); it != broken.end() && it->second.mtimeNs == st->mtimeNs &&
                                        it->second.size == st->size && it->second.ino == st->ino)
            continue;
        auto f = readClaimFile(store_.claimsDir(), id);
        if (!f) continue;
        if (!f->claim) {
            if (before) removeId(id);
            setBroken(rel, f->line, f->error, f->stat);
            ++r.broken;
            if (Store::validId(id))
                r.arrivals.push_back({"change", id, rel + " no longer parses: " + f->error});
            continue;
        }
        const Claim& c = *f->claim;
        replaceRow(c, f->stat);
        ++(before ? r.updated : r.added);
        if (!before) {
            r.arrivals.push_back({"arrive", c.id + "@" + std::to_string(c.version),
                                  rel + " appeared (" + describe(c) + ")"});
        } else if (auto what = changes(before->claim, c); !what.empty()) {
            r.arrivals.push_back(
                {"change", c.id + "@" + std::to_string(c.version), rel + " changed: " + what});
        }
    }
    tx.commit();
    return r;
}

IndexedClaim Index::rowToClaim(sql::Stmt& s) {
    IndexedClaim ic;
    ic.rowid = s.int64(0);
    Claim& c = ic.claim;
    c.id = s.text(1);
    c.version = int(s.int64(2));
    c.label = s.text(3);
    c.kind = s.text(4);
    c.status = parseStatus(s.view(5)).value_or(ClaimStatus::Committed);
    if (!s.isNull(6)) c.confidence = s.real(6);
    if (!s.isNull(7)) c.created = s.int64(7);
    if (!s.isNull(8)) c.updated = s.int64(8);
    if (!s.isNull(9)) c.verified = s.int64(9);
    c.sourceAgent = s.text(10);
    c.origin = s.text(11);
    c.supersedes = s.text(12);
    std::string_view tags = s.view(13);
    while (!tags.empty()) {
        auto comma = tags.find(", ");
        c.tags.emplace_back(tags.substr(0, comma));
        tags = comma == std::string_view::npos ? std::string_view{} : tags.substr(comma + 2);
    }
    c.text = s.text(14);
    ic.code = s.text(15);
    auto lines = [](std::string_view v, auto&& fn) {
        while (!v.empty()) {
            auto nl = v.find('\n');
            fn(v.substr(0, nl));
            v = nl == std::string_view::npos ? std::string_view{} : v.substr(nl + 1);
        }
    };
    lines(s.view(16), [&](std::string_view l) {
        try {
            c.anchors.push_back(parseAnchor(l));
        } catch (const ClaimFileError&) {
        }
    });
    lines(s.view(17), [&](std::string_view l) {
        auto sp = l.find(' ');
        c.evidence.push_back({std::string(l.substr(0, sp)),
                              sp == std::string_view::npos ? "" : unescapeValue(l.substr(sp + 1))});
    });
    c.feedback = {int(s.int64(18)), int(s.int64(19)), int(s.int64(20))};
    c.retractedBy = s.text(21);
    c.retractReason = s.text(22);
    c.originClaim = s.text(23);
    c.promotedBy = s.text(24);
    if (!s.isNull(25)) c.promoted = s.int64(25);
    c.promotionReason = s.text(26);
    c.promotedTo = s.text(27);
    c.contributionId = s.text(28);
    c.contributedBy = s.text(29);
    c.acceptedBy = s.text(30);
    c.packetId = s.text(31);
    // The column keys every claim; the claim carries it as contributions do.
    if (!c.contributionId.empty()) c.contentHash = s.text(32);
    lines(s.view(33), [&](std::string_view l) {
        try {
            c.diverged.push_back(parseClaim(unescapeValue(l), c.id));
        } catch (const ClaimFileError&) {
        }
    });
    size_t extra = 0;
    for (auto& d : c.diverged)
        extra += d.text.size() + 1;
    if (extra <= c.text.size()) c.text.resize(c.text.size() - extra);
    c.unmerged = s.int64(34) != 0;
    ic.file = {s.int64(35), s.int64(36), uint64_t(s.int64(37))};
    return ic;
}

std::optional<IndexedClaim> Index::byId(const std::string& id) {
    selectById_.bind(1, id);
    std::optional<IndexedClaim> out;
    if (selectById_.step()) out = rowToClaim(selectById_);
    selectById_.reset();
    return out;
}

std::optional<IndexedClaim> Index::byRowid(int64_t rowid) {
    selectByRowid_.bind(1, rowid);
    std::optional<IndexedClaim> out;
    if (selectByRowid_.step()) out = rowToClaim(selectByRowid_);
    selectByRowid_.reset();
    return out;
}

std::vector<IndexedClaim> Index::byContentHash(const std::string& hash, int limit) {
    selectContentHash_.bind(1, hash).bind(2, limit);
    std::vector<IndexedClaim> out;
    while (selectContentHash_.step())
        out.push_back(rowToClaim(selectContentHash_));
    selectContentHash_.reset();
    return out;
}

std::optional<IndexedClaim> Index::byContribution(const std::string& contributionId) {
    selectContribution_.bind(1, contributionId);
    std::optional<IndexedClaim> out;
    if (selectContribution_.step()) out = rowToClaim(selectContribution_);
    selectContribution_.reset();
    return out;
}

std::optional<IndexedClaim> Index::liveByLabel(const std::string& label) {
    auto all = liveWithLabel(label, 1);
    if (all.empty()) return std::nullopt;
    return std::move(all.front());
}

std::vector<IndexedClaim> Index::liveWithLabel(const std::string& label, int limit) {
    selectLiveLabel_.bind(1, label).bind(2, limit);
    std::vector<IndexedClaim> out;
    while (selectLiveLabel_.step())
        out.push_back(rowToClaim(selectLiveLabel_));
    selectLiveLabel_.reset();
    return out;
}

std::vector<std::string> Index::liveIdsWithLabel(const std::string& label, int limit) {
    selectLiveLabelIds_.bind(1, label).bind(2, limit);
    std::vector<std::string> out;
    while (selectLiveLabelIds_.step())
        out.push_back(selectLiveLabelIds_.text(0));
    selectLiveLabelIds_.reset();
    return out;
}

IndexStats Index::stats() {
    IndexStats st;
    if (selectStats_.step()) {
        st.total = selectStats_.int64(0);
        st.committed = selectStats_.int64(1);
        st.frontier = selectStats_.int64(2);
        st.retracted = selectStats_.int64(3);
        st.superseded = selectStats_.int64(4);
        st.anchors = selectStats_.int64(5);
        st.generation = selectStats_.int64(6);
        double n = st.total > 0 ? double(st.total) : 1.0;
        auto avg = [&](int col) { return std::max(1.0, double(selectStats_.int64(col)) / n); };
        st.avgLabel = avg(7);
        st.avgText = avg(8);
        st.avgTags = avg(9);
        st.avgCode = avg(10);
    }
    selectStats_.reset();
    return st;
}

std::vector<BrokenFile> Index::brokenFiles(int64_t limit) {
    std::vector<BrokenFile> out;
    auto s = db_.prepare("SELECT file, line, message FROM broken ORDER BY file LIMIT ?");
    s.bind(1, limit);
    while (s.step())
        out.push_back({s.text(0), int(s.int64(1)), s.text(2)});
    return out;
}

int64_t Index::brokenCount() {
    auto s = db_.prepare("SELECT count(*) FROM broken");
    return s.step() ? s.int64(0) : 0;
}

int64_t Index::docFrequency(const std::string& term) {
    selectDf_.bind(1, term);
    int64_t n = selectDf_.step() ? selectDf_.int64(0) : 0;
    selectDf_.reset();
    return n;
}

static std::vector<int64_t> collect(sql::Stmt& s) {
    std::vector<int64_t> out;
    while (s.step())
        out.push_back(s.int64(0));
    s.reset();
    return out;
}

std::vector<int64_t> Index::match(const std::string& term, int limit) {
    // Terms come from text::tokenize; quoting makes FTS5 treat them as one
    // string whatever characters they hold.
    std::string q = "\"";
    for (char c : term)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    q += "\"";
    selectMatch_.bind(1, q).bind(2, limit);
    return collect(selectMatch_);
}

std::vector<int64_t> Index::recent(std::optional<ClaimStatus> status, int limit) {
    if (status) {
        selectRecentStatus_.bind(1, toString(*status)).bind(2, limit);
        return collect(selectRecentStatus_);
    }
    selectRecent_.bind(1, limit);
    return collect(selectRecent_);
}

std::vector<std::pair<std::string, FileStat>> Index::codeFiles() {
    std::vector<std::pair<std::string, FileStat>> out;
    auto s = db_.prepare("SELECT path, file_mtime, file_size FROM code_files");
    while (s.step())
        out.push_back({s.text(0), FileStat{s.int64(1), s.int64(2)}});
    return out;
}

void Index::putCodeFile(const std::string& path, const FileStat& st,
                        const std::vector<CodeSymbol>& symbols) {
    dropCodeSymbols_.bind(1, path).exec();
    for (auto& c : symbols) {
        putCodeSymbol_.bind(1, path).bind(2, c.qualified).bind(3, c.kind).bind(4, c.hash);
        putCodeSymbol_.bind(5, c.shape).bind(6, lastNamePart(c.qualified)).exec();
    }
    putCodeFile_.bind(1, path).bind(2, st.mtimeNs).bind(3, st.size).exec();
    ++codeChanges_;
}

void Index::setWriteCache(int mib) {
    db_.exec("PRAGMA cache_size=" + std::to_string(mib > 0 ? -1024 * mib : -2000));
}

void Index::dropCodeFile(const std::string& path) {
    dropCodeSymbols_.bind(1, path).exec();
    dropCodeFile_.bind(1, path).exec();
    ++codeChanges_;
}

Index::Generations Index::generations() {
    Generations g;
    selectGenerations_.step();
    g.files = selectGenerations_.int64(0);
    g.code = selectGenerations_.int64(1);
    selectGenerations_.reset();
    return g;
}

void Index::bumpCodeGeneration() {
    db_.exec("UPDATE code_meta SET code_generation = code_generation + 1");
}

std::vector<std::string> Index::listedInstructionFiles() {
    std::vector<std::string> out;
    while (selectInstructionFiles_.step())
        out.push_back(selectInstructionFiles_.text(0));
    selectInstructionFiles_.reset();
    return out;
}

std::vector<std::string> Index::listedFiles() {
    std::vector<std::string> out;
    auto s = db_.prepare("SELECT path FROM workspace_files ORDER BY path");
    while (s.step())
        out.push_back(s.text(0));
    return out;
}

namespace {

// The words a listed path is looked up by: its base name, the base name
// without its extension (a module's name: `db` for src/db.py; a name with
// no extension, or a leading dot only, is its own), and the base name
// reversed (files sharing a suffix: `.test.ts`).
struct PathNames {
    std::string name, stem, rname;
    explicit PathNames(const std::string& path) {
        auto slash = path.find_last_of('/');
        name = path.substr(slash == std::string::npos ? 0 : slash + 1);
        auto dot = name.find_last_of('.');
        stem = dot != std::string::npos && dot > 0 ? name.substr(0, dot) : name;
        rname.assign(name.rbegin(), name.rend());
    }
};

// The first string after every string that starts with `prefix`.
std::string pastPrefix(std::string prefix) {
    while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xFF)
        prefix.pop_back();
    if (!prefix.empty()) prefix.back() = char(static_cast<unsigned char>(prefix.back()) + 1);
    return prefix;
}

} // namespace

std::string lastNamePart(std::string_view qualified) {
    size_t from = 0;
    if (auto dot = qualified.rfind('.'); dot != std::string_view::npos) from = dot + 1;
    if (auto colons = qualified.rfind("::"); colons != std::string_view::npos)
        from = std::max(from, colons + 2);
    return std::string(qualified.substr(from));
}

bool Index::applyListing(const ListingChange& change) {
    bool never = generations().files == 0;
    if (change.empty() && !never) return false;
    sql::Transaction tx(db_);
    auto del = db_.prepare("DELETE FROM workspace_files WHERE path = ?1");
    std::set<std::string> emptied; // directories a removed file was in
    for (auto& p : change.removed) {
        del.bind(1, p).exec();
        for (auto s = p.find_last_of('/'); s != std::string::npos && s > 0;
             s = p.find_last_of('/', s - 1))
            emptied.insert(p.substr(0, s));
    }
    auto put = db_.prepare("INSERT OR REPLACE INTO workspace_files(path, instruction, name, "
                           "stem, rname) VALUES (?1, ?2, ?3, ?4, ?5)");
    auto putDir = db_.prepare("INSERT OR IGNORE INTO workspace_dirs(path, name) VALUES (?1, ?2)");
    for (auto& [p, instruction] : change.added) {
        PathNames n(p);
        put.bind(1, p).bind(2, int64_t(instruction ? 1 : 0)).bind(3, n.name).bind(4, n.stem);
        put.bind(5, n.rname).exec();
        for (auto s = p.find_last_of('/'); s != std::string::npos && s > 0;
             s = p.find_last_of('/', s - 1)) {
            std::string dir = p.substr(0, s);
            putDir.bind(1, dir).bind(2, PathNames(dir).name).exec();
        }
    }
    // A directory stays listed while a file under it is.
    auto dropDir = db_.prepare("DELETE FROM workspace_dirs WHERE path = ?1");
    for (auto& d : emptied) {
        selectUnder_.bind(1, d + "/").bind(2, pastPrefix(d + "/"));
        bool holds = selectUnder_.step();
        selectUnder_.reset();
        if (!holds) dropDir.bind(1, d).exec();
    }
    db_.exec("UPDATE code_meta SET files_generation = files_generation + 1");
    tx.commit();
    return true;
}

std::vector<std::string> Index::column(sql::Stmt& s) {
    std::vector<std::string> out;
    while (s.step())
        out.push_back(s.text(0));
    s.reset();
    return out;
}

std::vector<CodeSymbol> Index::symbolsNamed(const std::string& last, int limit) {
    std::vector<CodeSymbol> out;
    selectSymbolsNamed_.bind(1, last).bind(2, limit);
    while (selectSymbolsNamed_.step())
        out.push_back({selectSymbolsNamed_.text(0), selectSymbolsNamed_.text(1), "", "", ""});
    selectSymbolsNamed_.reset();
    return out;
}

std::vector<std::string> Index::filesNamed(const std::string& name, int limit) {
    selectFilesNamed_.bind(1, name).bind(2, limit);
    return column(selectFilesNamed_);
}

std::vector<std::string> Index::filesWithStem(const std::string& stem, int limit) {
    selectStems_.bind(1, stem).bind(2, limit);
    return column(selectStems_);
}

std::vector<std::string> Index::dirsNamed(const std::string& name, int limit) {
    selectDirsNamed_.bind(1, name).bind(2, limit);
    return column(selectDirsNamed_);
}

bool Index::isListedDir(const std::string& path) {
    selectDir_.bind(1, path);
    bool found = selectDir_.step();
    selectDir_.reset();
    return found;
}

std::vector<std::string> Index::filesUnder(const std::string& prefix,
                                           const std::function<bool(const std::string&)>& keep,
                                           size_t limit) {
    std::vector<std::string> out;
    selectUnder_.bind(1, prefix).bind(2, pastPrefix(prefix));
    while (out.size() < limit && selectUnder_.step()) {
        std::string p = selectUnder_.text(0);
        if (!keep || keep(p)) out.push_back(std::move(p));
    }
    selectUnder_.reset();
    return out;
}

bool Index::anyCodeSymbols() {
    auto s = db_.prepare("SELECT 1 FROM code_symbols LIMIT 1");
    return s.step();
}

bool Index::namesShareSuffix(const std::string& suffix) {
    std::string r(suffix.rbegin(), suffix.rend());
    selectRnames_.bind(1, r).bind(2, pastPrefix(r));
    bool found = selectRnames_.step();
    selectRnames_.reset();
    return found;
}

std::optional<std::string> Index::historyFact(const std::string& key) {
    selectFact_.bind(1, key);
    std::optional<std::string> out;
    if (selectFact_.step()) out = selectFact_.text(0);
    selectFact_.reset();
    return out;
}

void Index::putHistoryFacts(const std::vector<std::pair<std::string, std::string>>& facts) {
    if (facts.empty()) return;
    sql::Transaction tx(db_);
    auto put = db_.prepare("INSERT OR REPLACE INTO history_facts(key, value) VALUES (?1, ?2)");
    for (auto& [k, v] : facts)
        put.bind(1, k).bind(2, v).exec();
    tx.commit();
}

std::optional<HealthSummary> Index::lastHealth() {
    auto s = db_.prepare("SELECT intact, drifted, moved, orphaned, unjudged, counted_at FROM "
                         "health_summary");
    if (!s.step()) return std::nullopt;
    return HealthSummary{s.int64(0), s.int64(1), s.int64(2), s.int64(3), s.int64(4), s.int64(5)};
}

void Index::putHealth(const HealthSummary& h) {
    auto s = db_.prepare("INSERT OR REPLACE INTO health_summary(k, intact, drifted, moved, "
                         "orphaned, unjudged, counted_at) VALUES (0, ?1, ?2, ?3, ?4, ?5, ?6)");
    s.bind(1, h.intact).bind(2, h.drifted).bind(3, h.moved).bind(4, h.orphaned);
    s.bind(5, h.unjudged).bind(6, h.countedAt).exec();
}

std::vector<FileHealthRow> Index::fileHealth() {
    std::vector<FileHealthRow> out;
    auto s = db_.prepare("SELECT path, changes, content_key, code_generation, rules, intact, "
                         "drifted, moved, orphaned, unjudged, not_judged FROM anchor_health");
    while (s.step())
        out.push_back({s.text(0), s.int64(1), s.text(2), s.int64(3), s.text(4), s.int64(5),
                       s.int64(6), s.int64(7), s.int64(8), s.int64(9), s.text(10)});
    return out;
}

void Index::putFileHealth(const std::vector<FileHealthRow>& rows) {
    if (rows.empty()) return;
    sql::Transaction tx(db_);
    auto put = db_.prepare(
        "INSERT OR REPLACE INTO anchor_health(path, changes, content_key, code_generation, "
        "rules, intact, drifted, moved, orphaned, unjudged, not_judged) VALUES (?1, ?2, ?3, "
        "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    for (auto& r : rows) {
        put.bind(1, r.path).bind(2, r.changes).bind(3, r.contentKey).bind(4, r.codeGeneration);
        put.bind(5, r.rules).bind(6, r.intact).bind(7, r.drifted).bind(8, r.moved);
        put.bind(9, r.orphaned).bind(10, r.unjudged).bind(11, r.notJudged).exec();
    }
    db_.exec("DELETE FROM anchor_health WHERE path NOT IN "
             "(SELECT path FROM anchor_paths WHERE anchors > 0)");
    tx.commit();
}

std::vector<CodeSymbol> Index::symbolsWithShape(const std::string& shape) {
    std::vector<CodeSymbol> out;
    selectShape_.bind(1, shape);
    while (selectShape_.step())
        out.push_back({selectShape_.text(0), selectShape_.text(1), selectShape_.text(2),
                       selectShape_.text(3), selectShape_.text(4)});
    selectShape_.reset();
    return out;
}

std::pair<int64_t, int64_t> Index::rowidSpan() {
    std::pair<int64_t, int64_t> out{0, 0};
    if (selectSpan_.step()) out = {selectSpan_.int64(0), selectSpan_.int64(1)};
    selectSpan_.reset();
    return out;
}

std::vector<int64_t> Index::writtenBetween(int64_t from, int64_t to, int limit) {
    selectWritten_.bind(1, from).bind(2, to).bind(3, limit);
    return collect(selectWritten_);
}

std::vector<int64_t> Index::ofKind(const std::string& kind, int limit) {
    selectKind_.bind(1, kind).bind(2, limit);
    return collect(selectKind_);
}

std::vector<int64_t> Index::anchoredLive(int limit) {
    selectAnchoredLive_.bind(1, limit);
    return collect(selectAnchoredLive_);
}

std::vector<AnchorPath> Index::anchorPaths() {
    std::vector<AnchorPath> out;
    auto s = db_.prepare("SELECT path, changes FROM anchor_paths WHERE anchors > 0");
    while (s.step())
        out.push_back({s.text(0), s.int64(1)});
    return out;
}

std::vector<int64_t> Index::anchoredIn(const std::string& path, int limit) {
    selectAnchoredIn_.bind(1, path).bind(2, limit);
    return collect(selectAnchoredIn_);
}

} // namespace engram
