// The tiers of memory an engine serves (the project's store, the user's
// medulla, other registered projects opened on demand), each index kept in
// line with its claim files (reconcile), and the one discipline every claim
// write follows. Private to engine/.
//
// A write: take the store's lock, check against the current state, write the
// claim file durably, update the index, append to the audit log, release.
// Only then is the caller answered; a step that fails undoes the earlier ones.
#pragma once
#include "index/Index.h"
#include "model/Requests.h"
#include "store/Store.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace engram {

// One tier of memory (engine/Tier.h, private to engine/).
struct Tier;

// "team:NAME": a team store's tier.
bool isTeamTier(const std::string& name);

class Tiers {
public:
    struct Options {
        std::string root; // canonical workspace root
        std::string home; // $ENGRAM_HOME; empty = no medulla
        // EngineOptions' fields of the same names.
        bool backgroundReconcile = false;
        bool sweepOnOpen = true;
        int64_t inlineReconcileMax = 0;
        std::string reconcileHold;
    };
    // `projectWritten` runs each time the project's store is about to take a
    // write (the registry and the clone's team setup, engine/Team.h).
    Tiers(Options opts, std::function<void()> projectWritten);
    ~Tiers();
    Tiers(const Tiers&) = delete;
    Tiers& operator=(const Tiers&) = delete;

    // The bound workspace's own tiers: the project, then the medulla if any.
    const std::vector<std::unique_ptr<Tier>>& own() const { return own_; }
    Tier& project() const { return *own_[0]; }
    Tier* find(const std::string& name) const;
    // Opens the tier's index lazily; false when the store does not exist yet.
    bool ready(Tier& t);
    // A tier to write into, its store laid out and its index open.
    Tier& writable(const std::string& name);
    // The tier holding the claim, or UnknownClaim.
    Tier& locate(const std::string& id);
    // The tiers a recall reads: by default the project, the medulla and the
    // team stores the project's store.conf names; `team:NAME` one team
    // store; all every added team store and every other registered project
    // (those gone from disk, and named teams not added, in `unreachable`).
    std::vector<Tier*> forRecall(const std::optional<std::string>& tier,
                                 std::vector<UnreachableStore>& unreachable);
    // One store's counts as the envelope gives them.
    TierState state(Tier& t);

    // Reconcile (ARCHITECTURE.md, "Start-up without a scan"); the engine's
    // methods of the same names say what each does.
    std::vector<SyncReport> refresh(const std::vector<std::string>* projectIds);
    std::vector<SyncReport> reindex();
    std::vector<std::string> poll();
    bool reconciling() const;
    void recheckClaims();
    using ClaimsQuiet = std::function<std::optional<bool>()>;
    void vouchForClaims(ClaimsQuiet quiet) { claimsQuiet_ = std::move(quiet); }
    void settleBeforeExit();
    // Re-reads claims whose files were found changed while serving them.
    void reread(const std::vector<std::pair<Tier*, std::string>>& claims);

    // Claim writes. The current version of a claim, to write its next one.
    static Claim loadForUpdate(Tier& t, const std::string& id);
    // One act: the claim file, the index, the audit entry. When any step
    // fails the earlier ones are undone (the file's previous bytes, the
    // index row to match) and the error propagates: nothing of a refused
    // write stays live. The returned undo lets a caller whose next step
    // fails (promote's witness) take this one back too.
    struct WriteUndo {
        Tier* tier = nullptr;
        std::string id;
        std::optional<std::string> before; // the file's bytes before, or none (new claim)
    };
    static WriteUndo commit(Tier& t, const Claim& c, const std::string& act,
                            const std::string& agent, const std::string& detail);
    // Restores the file and index row; with `why`, records the rollback in
    // the audit log (the act it takes back was recorded). Never throws.
    static void undo(const WriteUndo& u, const std::string& why = "") noexcept;

private:
    // Opening an index that exists: reconcile it now, or list now and stat
    // on a thread (the caller holds the store's lock).
    SyncReport reconcileOnOpen(Tier& t);
    void startScan(Tier& t, bool opening);
    // A server's sync of its git-backed tiers every store.conf
    // `sync_minutes:` (off without it), each on a thread; never waited for.
    void backgroundSync(std::chrono::steady_clock::time_point now);
    // Team store NAME under engram's home, not opened.
    std::unique_ptr<Tier> teamTier(const std::string& name) const;
    // Audit entries for claim files a sync found added, changed or removed
    // by something other than engram (a pull, a checkout, a hand edit).
    // The caller holds the store's lock.
    static void recordArrivals(Tier& t, const SyncReport& r);
    // What keeping the project's settled mark by the watch concluded.
    enum class Settle { Recorded, NotYet, Unknown };
    Settle settleByWatch(Tier& t);

    Options opts_;
    std::function<void()> projectWritten_;
    std::vector<std::unique_ptr<Tier>> own_;
    std::vector<std::unique_ptr<Tier>> others_; // other registered projects, opened on demand
    std::vector<std::unique_ptr<Tier>> teams_;  // team stores the project does not name, asked for
    ClaimsQuiet claimsQuiet_;                   // vouchForClaims
};

} // namespace engram
