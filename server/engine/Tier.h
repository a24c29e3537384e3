// One tier of memory inside the engine: a store and its lazily opened index.
// Private to engine/.
#pragma once
#include "engine/Anchoring.h"
#include "engine/GitStores.h"
#include "index/Index.h"
#include "index/Reconcile.h"
#include "model/NotJudged.h"
#include "store/Store.h"

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <unordered_map>

namespace engram {

struct Tier {
    std::string name; // project | medulla
    std::unique_ptr<Store> store;
    std::unique_ptr<Index> index; // null until the store exists and is first used
    uint64_t opens = 0;           // how many times the index was (re)opened
    std::string root;             // the workspace root of a project store; empty for the medulla
    // Another registered project's code, for its claims' anchor states (the
    // bound workspace's anchorer would check them against the wrong tree).
    std::unique_ptr<Anchorer> anchorer;

    // Reconciling the index with the claim files on a thread of its own
    // (engram serve and mcp on a large store; see ARCHITECTURE.md).
    struct Scan {
        std::shared_ptr<std::atomic<bool>> cancel;
        std::shared_ptr<std::atomic<int64_t>> checked;
        std::future<ClaimsScan> result;
        bool opening = false; // the start-up sweep (else a re-check after writes)
        int64_t files = 0;    // claims indexed when it started
    };
    std::optional<Scan> scan;
    // False from opening the index until a scan that stat'ed every claim
    // file has been applied: a file rewritten in place while engram was down
    // may not be indexed yet (rows served are still checked one by one).
    bool swept = true;
    std::chrono::steady_clock::time_point nextCheck{};
    std::chrono::steady_clock::time_point lastWrite{}; // engram's own, in this process

    // Anchor health per anchored file as engram/status last counted it: a
    // file is counted again only when its anchors changed (a claim written,
    // retracted or removed there), its text may have (an edit in the editor,
    // a save, a checkout), or, when something in it was not intact, the
    // code index changed (a symbol may have moved to another file). With a
    // TreeWatch, "its text may have" is an event; without one, a stat.
    // A server keeps one per anchored file for as long as it runs, so it is
    // kept small (a store of a million claims can anchor hundreds of
    // thousands of files): the key as a hash, the counts in 32 bits, the
    // reasons only where some anchor was not judged.
    struct FileHealth {
        int64_t changes = 0;      // Index::anchorPaths' counter when counted
        uint64_t codeChanges = 0; // the code index's changes when counted
        uint64_t key = 0;         // Anchorer::contentKey when counted, hashed (0: none)
        struct Counts {
            int32_t intact = 0, drifted = 0, moved = 0, orphaned = 0, unjudged = 0;
        } counts;
        bool allIntact = true;
        bool counted = false;  // counts hold for `changes`
        bool watched = false;  // a change to the file's text will be reported
        bool stale = true;     // reported changed (or new): look again
        bool document = false; // the key was an open document's: looked at every time
        std::unique_ptr<NotJudged> notJudged; // of counts.unjudged, by reason
    };
    // Ordered, so a directory's files are one range (a directory renamed).
    std::map<std::string, FileHealth> health;
    int64_t healthGeneration = -1; // the index's generation `health` lists
    uint64_t healthOpens = 0;      // the index `health` was counted against

    // A git-backed store's last sync (engine/GitStores.h), read again only
    // when the record's file changed: the envelope says its age on every
    // answer without a `git` process.
    std::optional<FileStat> syncSeen;
    SyncRecord sync;
    bool syncRead = false;
    // A server's background sync (store.conf `sync_minutes:`), on a thread
    // of its own: started no sooner than `nextSync`, collected by a poll.
    std::optional<std::future<SyncOutcome>> syncing;
    std::chrono::steady_clock::time_point nextSync{};

    // Cancels a running scan and waits for it (the future's destructor).
    void stopScan() {
        if (scan) scan->cancel->store(true);
        scan.reset();
    }
    ~Tier() { stopScan(); }
};

} // namespace engram
