// Filling an empty index from every claim file: `engram reindex`, a fresh
// clone, a damaged or older index.
//
// The load is split so both cores work. Reading threads list, read, parse and
// tokenize the claim files (everything that depends on one file alone); the
// thread that owns the connection only inserts, in listing order. What
// SQLite would otherwise do row by row is done once at the end: the lookups'
// indexes are built by sorting (on SQLite's helper threads), the counters
// by one aggregate. The index is derived, so the load runs without syncs and
// an interrupted load only means loading again.
#include "index/Index.h"
#include "index/Pretokenized.h"
#include "index/Reconcile.h"

#include "store/Store.h"
#include "util/Fs.h"
#include "util/Progress.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <pthread.h>
#include <thread>

namespace engram {
namespace {

struct LoadedFile {
    std::string name;
    Index::ClaimFileRead file;
    Index::Row row;
    std::array<sql::Pretokenized, 4> fts; // label, text, tags, code
};

// Everything about one claim file that needs no connection; nullopt when it
// is not a claim file or vanished since the listing.
std::optional<LoadedFile> loadFile(const std::string& dir, const std::string& name) {
    if (name.size() < 4 || name.compare(name.size() - 3, 3, ".md") != 0) return std::nullopt;
    auto read = Index::readClaimFile(dir, name.substr(0, name.size() - 3));
    if (!read) return std::nullopt;
    LoadedFile f{name, std::move(*read), {}, {}};
    if (const auto& c = f.file.claim) {
        f.row = Index::Row::of(*c);
        f.fts = {sql::Pretokenized::of(c->label), sql::Pretokenized::of(f.row.text),
                 sql::Pretokenized::of(f.row.tags), sql::Pretokenized::of(f.row.code)};
    }
    return f;
}

// How many reading threads: one per core, up to four. The inserting thread
// shares the cores with them: it is the lighter of the two sides (at 1M
// claims on 2 cores it was busy about two thirds of the load while one
// reader never rested), so a reader per core keeps both cores busy where
// one fewer left a third of one idle (1M claims: 22.5 s -> 18.4 s; 100k:
// 1.57 s -> 1.28 s). ENGRAM_LOAD_THREADS overrides it for measurement.
unsigned readingThreads() {
    if (const char* v = std::getenv("ENGRAM_LOAD_THREADS"); v && *v) {
        int n = std::atoi(v);
        if (n >= 1 && n <= 16) return unsigned(n);
    }
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp(cores, 1u, 4u);
}

// Loads the files of `dir` on reading threads and hands them to `consume` on
// the calling thread in listing order. Threads take chunks of the listing in
// turn and stay at most kAhead chunks ahead of the consumer, so memory is
// bounded whatever the store's size.
template <class Consume>
void loadClaimFiles(const std::string& dir, Consume&& consume) {
    // In inode order: a directory lists in hash order, which on a store
    // larger than the page cache turns the reads into random ones; inodes
    // are allocated roughly in creation order and place, so this order reads
    // the disk nearly sequentially (and numbers the rows about as the claims
    // were written).
    std::vector<std::string> names;
    {
        auto entries = listEntries(dir);
        std::sort(entries.begin(), entries.end(),
                  [](const DirEntry& a, const DirEntry& b) { return a.ino < b.ino; });
        names.reserve(entries.size());
        for (auto& e : entries)
            names.push_back(std::move(e.name));
    }
    constexpr size_t kChunk = 256, kAhead = 16;
    const size_t chunks = (names.size() + kChunk - 1) / kChunk;
    std::vector<std::vector<LoadedFile>> slots(chunks);
    std::vector<char> filled(chunks, 0);
    std::mutex mu;
    std::condition_variable cv;
    size_t next = 0, consumed = 0;
    bool stop = false;

    auto work = [&] {
        ::pthread_setname_np(::pthread_self(), "engram-load"); // named in profiles and top
        for (;;) {
            size_t c;
            {
                std::unique_lock lock(mu);
                cv.wait(lock, [&] { return stop || next >= chunks || next < consumed + kAhead; });
                if (stop || next >= chunks) return;
                c = next++;
            }
            std::vector<LoadedFile> batch;
            size_t end = std::min(names.size(), (c + 1) * kChunk);
            for (size_t i = c * kChunk; i < end; ++i)
                if (auto f = loadFile(dir, names[i])) batch.push_back(std::move(*f));
            std::lock_guard lock(mu);
            slots[c] = std::move(batch);
            filled[c] = 1;
            cv.notify_all();
        }
    };
    std::vector<std::thread> pool;
    // Joins the readers however the consumer leaves (an insert may throw).
    struct Joiner {
        std::vector<std::thread>& pool;
        std::mutex& mu;
        std::condition_variable& cv;
        bool& stop;
        ~Joiner() {
            {
                std::lock_guard lock(mu);
                stop = true;
            }
            cv.notify_all();
            for (auto& t : pool)
                t.join();
        }
    } joiner{pool, mu, cv, stop};
    for (unsigned i = 0, n = unsigned(std::min<size_t>(readingThreads(), chunks)); i < n; ++i)
        pool.emplace_back(work);

    for (size_t c = 0; c < chunks; ++c) {
        std::vector<LoadedFile> batch;
        {
            std::unique_lock lock(mu);
            cv.wait(lock, [&] { return filled[c] != 0; });
            batch = std::move(slots[c]);
            consumed = c + 1;
        }
        cv.notify_all();
        for (auto& f : batch)
            consume(std::move(f));
    }
}

} // namespace

SyncReport Index::bulkLoad() {
    SyncReport r;
    // A large page cache keeps the load from writing pages out and reading
    // them back; `threads` lets SQLite sort for CREATE INDEX on helpers.
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    db_.exec("PRAGMA cache_size=-262144; PRAGMA threads=" + std::to_string(std::min(cores, 4u)));
    int64_t startedNs = realtimeNs();
    auto before = dirMark(store_.claimsDir());
    // The counters the insert trigger keeps, counted here instead: SQLite's
    // length() of a text counts characters, so these do too.
    auto chars = [](const std::string& s) {
        return int64_t(std::count_if(s.begin(), s.end(), [](char c) {
            return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        }));
    };
    struct {
        int64_t total = 0, committed = 0, frontier = 0, retracted = 0, superseded = 0;
        int64_t anchors = 0, label = 0, text = 0, tags = 0, code = 0;
    } n;
    sql::Transaction tx(db_);
    db_.exec("DROP TRIGGER claims_ai; DROP TRIGGER anchors_ai; DROP TRIGGER anchors_ad");
    dropSecondaryIndexes();
    auto ftsInsert = db_.prepare("INSERT INTO claims_fts(rowid, label, text, tags, code) "
                                 "VALUES (?1, ?2, ?3, ?4, ?5)");
    auto opt = [](const std::string& s) {
        return s.empty() ? std::optional<std::string_view>() : std::optional<std::string_view>(s);
    };
    // Progress for a person watching (util/Progress.h): the total needs a
    // listing of its own, made only when someone listens.
    int64_t total = progress::active() ? int64_t(listFiles(store_.claimsDir()).size()) : -1;
    int64_t done = 0, bytes = 0;
    loadClaimFiles(store_.claimsDir(), [&](LoadedFile&& f) {
        if (total >= 0) {
            bytes += int64_t(f.file.stat.size);
            progress::report("claim files", ++done, total, bytes);
        }
        if (!f.file.claim) {
            setBroken("claims/" + f.name, f.file.line, f.file.error, f.file.stat);
            ++r.broken;
            return;
        }
        const Claim& c = *f.file.claim;
        int64_t rowid = insertRow(c, f.row, f.file.stat);
        // The same columns the insert trigger would index, with the terms
        // the reading thread already computed.
        const std::array<sql::ReplayColumn, 4> columns{{{c.label, &f.fts[0]},
                                                        {f.row.text, &f.fts[1]},
                                                        {f.row.tags, &f.fts[2]},
                                                        {f.row.code, &f.fts[3]}}};
        sql::ReplayScope replay(columns);
        ftsInsert.bind(1, rowid).bind(2, opt(c.label)).bind(3, f.row.text);
        ftsInsert.bind(4, opt(f.row.tags)).bind(5, opt(f.row.code)).exec();
        ++r.added;
        ++n.total;
        n.committed += c.status == ClaimStatus::Committed;
        n.frontier += c.status == ClaimStatus::Frontier;
        n.retracted += c.status == ClaimStatus::Retracted;
        n.superseded += std::max(c.version - 1, 0); // the versions it left behind
        n.anchors += int64_t(c.anchors.size());
        n.label += chars(c.label);
        n.text += chars(f.row.text);
        n.tags += chars(f.row.tags);
        n.code += chars(f.row.code);
    });
    createSecondaryIndexes();
    auto stats =
        db_.prepare("UPDATE stats SET total = ?1, committed = ?2, frontier = ?3, retracted = ?4, "
                    "superseded = ?5, anchors = ?6, generation = generation + 1, sum_label = ?7, "
                    "sum_text = ?8, sum_tags = ?9, sum_code = ?10");
    stats.bind(1, n.total).bind(2, n.committed).bind(3, n.frontier).bind(4, n.retracted);
    stats.bind(5, n.superseded).bind(6, n.anchors).bind(7, n.label).bind(8, n.text);
    stats.bind(9, n.tags).bind(10, n.code).exec();
    db_.exec("INSERT INTO anchor_paths(path, anchors, changes) "
             "SELECT path, count(*), 1 FROM anchors GROUP BY path");
    createInsertTrigger();
    createAnchorPathTriggers();
    if (settledListing(before, dirMark(store_.claimsDir()), startedNs)) recordDirMark(*before);
    tx.commit();
    return r;
}

} // namespace engram
