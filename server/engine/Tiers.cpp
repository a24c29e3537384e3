// The tiers of memory, their reconcile, and claim writes (engine/Tiers.h).
#include "engine/Tiers.h"

#include "engine/GitStores.h"
#include "engine/Hold.h"
#include "engine/Tier.h"
#include "index/Reconcile.h"
#include "store/ClaimFile.h"
#include "store/Registry.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Hash.h"
#include "util/Log.h"
#include "util/Paths.h"
#include "util/Time.h"

#include <cstdlib>
#include <map>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace engram {

static EngramError teamWrite() {
    return invalidField("tier", "a team store changes through review: `promote --to "
                                "team:NAME` proposes a claim, `retract` a retraction, each on a "
                                "branch to merge as a pull request");
}

static std::string storeLabel(const std::string& root) {
    auto slash = root.find_last_of('/');
    std::string b = slash == std::string::npos ? root : root.substr(slash + 1);
    return b.empty() ? "root" : b;
}

Tiers::Tiers(Options opts, std::function<void()> projectWritten)
    : opts_(std::move(opts))
    , projectWritten_(std::move(projectWritten)) {
    auto project = std::make_unique<Tier>();
    project->name = "project";
    project->store =
        std::make_unique<Store>(opts_.root + "/.engram", "project", storeLabel(opts_.root));
    project->root = opts_.root;
    own_.push_back(std::move(project));
    if (!opts_.home.empty()) {
        auto medulla = std::make_unique<Tier>();
        medulla->name = "medulla";
        medulla->store = std::make_unique<Store>(opts_.home + "/medulla", "medulla", "medulla");
        own_.push_back(std::move(medulla));
        // The team stores the project's committed store.conf names: read
        // by default, beside the project and the medulla (pull-only: no
        // other team store is read unless a call asks for it).
        for (auto& name : own_[0]->store->teams())
            own_.push_back(teamTier(name));
    }
}

std::unique_ptr<Tier> Tiers::teamTier(const std::string& name) const {
    auto t = std::make_unique<Tier>();
    t->name = "team:" + name;
    t->store = std::make_unique<Store>(teamStoreDir(opts_.home, name), "team", name);
    return t;
}

bool isTeamTier(const std::string& name) {
    return name.starts_with("team:");
}

Tiers::~Tiers() = default;

Tier* Tiers::find(const std::string& name) const {
    for (auto& t : own_)
        if (t->name == name) return t.get();
    return nullptr;
}

// Where a store that cannot be written keeps its index and lock: under
// engram's home (for a project), else the temporary directory, one
// directory per store path.
static std::string readOnlyStateDir(const std::string& home, const Store& store) {
    std::string base = home;
    if (base.empty() || store.tier() == "medulla") {
        const char* tmp = std::getenv("TMPDIR");
        base = std::string(tmp && *tmp ? tmp : "/tmp") + "/engram-" + std::to_string(::getuid());
    }
    return base + "/read-only/" + sha256Hex(store.dir()).substr(0, 16);
}

bool Tiers::ready(Tier& t) {
    if (t.index && !t.index->replacedOnDisk()) return true;
    t.index.reset();
    if (!t.store->exists()) return false;
    // A store on a read-only file system (or another user's) is still read:
    // its index is built elsewhere from its files (ARCHITECTURE.md,
    // "Tested under faults, hostile input and sanitizers").
    if (!t.store->readOnly())
        if (int err = t.store->probeWritable())
            t.store->relocateState(readOnlyStateDir(opts_.home, *t.store), err);
    // Another engram on the same store may be creating (or recreating) the
    // index file right now; unserialised, one process could delete and
    // recreate the file the other one has open, and each would go on
    // indexing into its own file. The writers' lock makes one process create
    // it and every other one open that same file.
    auto lock = t.store->lock();
    t.stopScan(); // its connection reads the file about to be reopened
    t.index = std::make_unique<Index>(*t.store);
    ++t.opens;
    if (t.index->freshlyCreated()) {
        recordArrivals(t, t.index->sync()); // built from every file
        t.swept = true;
    } else {
        reconcileOnOpen(t);
    }
    return true;
}

SyncReport Tiers::reconcileOnOpen(Tier& t) {
    // See ARCHITECTURE.md, "Start-up without a scan". A small store, a
    // one-shot command, or a claims directory that changed since it was last
    // known completely (files added, removed, renamed or replaced: git
    // reuses a replaced file's inode, so only a stat of each file says which)
    // is reconciled completely before anything is answered.
    t.stopScan();
    auto known = t.index->settledDirMark();
    // Files, not claims: a clone can carry a million files that are not
    // claims (each a broken-file row), and comparing them all costs the same.
    const int64_t files = t.index->stats().total + t.index->brokenCount();
    if (!opts_.backgroundReconcile || files <= opts_.inlineReconcileMax || !known ||
        dirMark(t.store->claimsDir()) != known) {
        SyncReport r = t.index->sync();
        recordArrivals(t, r);
        t.swept = true;
        return r;
    }
    // The directory is as last known: the only change it can hide is a file
    // rewritten in place. Those are found by a stat of each on a thread;
    // meanwhile every claim served is checked against its file.
    if (opts_.sweepOnOpen) startScan(t, true);
    return {};
}

void Tiers::startScan(Tier& t, bool opening) {
    Tier::Scan s;
    s.cancel = std::make_shared<std::atomic<bool>>(false);
    s.checked = std::make_shared<std::atomic<int64_t>>(0);
    s.opening = opening;
    s.files = t.index->stats().total;
    std::string hold = opening ? opts_.reconcileHold : std::string();
    s.result =
        std::async(std::launch::async, [index = t.store->indexPath(), dir = t.store->claimsDir(),
                                        cancel = s.cancel, checked = s.checked, hold] {
            // Behind the requests: one thread, at a lower priority (a
            // thread's own nice value on Linux), so answers keep a core.
            ::setpriority(PRIO_PROCESS, id_t(::syscall(SYS_gettid)), 10);
            waitWhileHeld(hold, cancel.get());
            return scanClaims(index, dir, true, checked.get(), cancel.get(), false);
        });
    if (opening) t.swept = false;
    t.scan = std::move(s);
}

void Tiers::backgroundSync(std::chrono::steady_clock::time_point now) {
    auto minutes = project().store->syncMinutes();
    for (auto& t : own_) {
        if (t->name != "medulla" && !isTeamTier(t->name)) continue;
        if (t->syncing) {
            if (t->syncing->wait_for(std::chrono::seconds(0)) != std::future_status::ready)
                continue;
            SyncOutcome o = t->syncing->get();
            t->syncing.reset();
            if (!o.error.empty())
                logDropped("background sync of " + o.store, std::runtime_error(o.error));
            // What arrived is read at the tier's next check, as any change
            // to its claim files is.
            t->nextCheck = now;
            continue;
        }
        if (!minutes || now < t->nextSync) continue;
        t->nextSync = now + std::chrono::minutes(*minutes);
        if (!readSyncRecord(t->store->dir()).git) continue; // not a clone: nothing to sync
        t->syncing = std::async(std::launch::async, [dir = t->store->dir(), label = t->name,
                                                     pushMain = t->name == "medulla"] {
            // Behind the requests, as the reconcile's sweep is.
            ::setpriority(PRIO_PROCESS, id_t(::syscall(SYS_gettid)), 10);
            return syncStore(dir, label, pushMain);
        });
    }
}

std::vector<std::string> Tiers::poll() {
    std::vector<std::string> changed;
    if (!opts_.backgroundReconcile) return changed;
    auto now = std::chrono::steady_clock::now();
    backgroundSync(now);
    auto poll = [&](Tier& t) {
        if (!t.index) return;
        if (t.scan &&
            t.scan->result.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
            bool opening = t.scan->opening;
            ClaimsScan scan = t.scan->result.get();
            t.scan.reset();
            if (t.index->replacedOnDisk()) return; // ready() reopens and starts again
            try {
                auto lock = t.store->lock();
                recordArrivals(t, t.index->applyScan(scan));
                if (opening && !scan.cancelled) t.swept = true;
                if (t.name == "project")
                    changed.insert(changed.end(), scan.ids.begin(), scan.ids.end());
            } catch (const std::exception& e) {
                // Tried again on a later poll (the sweep stays pending).
                logDropped("applying the background sweep", e);
            }
            t.nextCheck = now + std::chrono::seconds(2);
        }
        if (t.scan || now < t.nextCheck) return;
        t.nextCheck = now + std::chrono::seconds(2);
        if (!t.swept) {
            startScan(t, true); // the start-up sweep failed: again
        } else if (now - t.lastWrite < std::chrono::seconds(2)) {
            // Writes are still coming: re-check once they pause, not under them.
        } else if (auto known = t.index->settledDirMark();
                   !known || dirMark(t.store->claimsDir()) != known) {
            // Changed since it was last known completely (engram's own
            // writes, or others' the watch has already brought in): a watch
            // that saw every entry change vouches for the new mark; without
            // one, every file is checked again, so the next start-up need not.
            if (settleByWatch(t) == Settle::Unknown) startScan(t, false);
        }
    };
    for (auto& t : own_)
        poll(*t);
    for (auto& t : others_)
        poll(*t);
    for (auto& t : teams_)
        poll(*t);
    return changed;
}

Tiers::Settle Tiers::settleByWatch(Tier& t) {
    // The project's directory only, watched since before its start-up check
    // (which left the index's listing equal to the directory's: compared
    // file by file, or the directory still as last known; a sweep for
    // in-place writes may still run, but those never move the mark): every
    // entry created, removed or renamed since is in the watch's queue the
    // moment it happens, and `quiet` has brought each one in. As a scan
    // records its mark (settledListing): the clock first, the directory's
    // mark, the watch drained, the mark again; recorded only when both agree
    // and the mark is a tick older than the clock, so a later change moves it.
    if (!claimsQuiet_ || &t != own_[0].get() || t.name != "project") return Settle::Unknown;
    const std::string dir = t.store->claimsDir();
    int64_t startedNs = realtimeNs();
    auto before = dirMark(dir);
    std::optional<bool> quiet;
    try {
        quiet = claimsQuiet_();
    } catch (const std::exception&) {
        return Settle::Unknown;
    }
    if (!quiet) return Settle::Unknown;
    if (!*quiet) return Settle::NotYet;
    auto after = dirMark(dir);
    if (!settledListing(before, after, startedNs))
        return before && after && *before == *after ? Settle::NotYet : Settle::Unknown;
    try {
        auto lock = t.store->lock();
        if (dirMark(dir) != before) return Settle::NotYet;
        t.index->recordDirMark(*before);
    } catch (const std::exception&) {
        return Settle::Unknown; // a read-only or full index: the next start-up compares
    }
    return Settle::Recorded;
}

void Tiers::settleBeforeExit() {
    if (!claimsQuiet_ || own_.empty() || !own_[0]->index) return;
    Tier& t = *own_[0];
    try {
        auto known = t.index->settledDirMark();
        auto now = dirMark(t.store->claimsDir());
        if (!now || now == known) return;
        // Written within the clock's last tick: wait it out when that is
        // short (a filesystem with whole-second mtimes would take seconds;
        // its next start-up compares every file instead).
        int64_t window = racyWindowNs(*now);
        int64_t wait = now->mtimeNs + window - realtimeNs();
        if (wait > 0 && window <= 50'000'000)
            std::this_thread::sleep_for(std::chrono::nanoseconds(wait + 1'000'000));
        settleByWatch(t);
    } catch (const std::exception& e) {
        // Exiting regardless: the next start-up compares every file.
        logDropped("recording the settled mark before exit", e);
    }
}

void Tiers::recheckClaims() {
    Tier& t = *own_[0];
    if (!t.index || t.scan) return;
    if (opts_.backgroundReconcile) {
        startScan(t, false);
    } else {
        auto lock = t.store->lock();
        recordArrivals(t, t.index->sync());
    }
}

bool Tiers::reconciling() const {
    for (auto& t : own_)
        if (t->index && !t->swept) return true;
    for (auto* list : {&others_, &teams_})
        for (auto& t : *list)
            if (t->index && !t->swept) return true;
    return false;
}

void Tiers::reread(const std::vector<std::pair<Tier*, std::string>>& claims) {
    std::map<Tier*, std::vector<std::string>> byTier;
    for (auto& [t, id] : claims)
        byTier[t].push_back(id);
    for (auto& [t, ids] : byTier) {
        if (!t->index) continue;
        auto lock = t->store->lock();
        recordArrivals(*t, t->index->sync(&ids));
    }
}

Tier& Tiers::writable(const std::string& name) {
    if (isTeamTier(name)) throw teamWrite();
    Tier* t = find(name);
    if (!t)
        throw invalidField("tier", name == "medulla" ? "no medulla: ENGRAM_HOME is not set"
                                                     : "must be 'project' or 'medulla'");
    // Opened first: a store found read-only then refuses in ensureLayout.
    if (t->store->exists()) ready(*t);
    t->store->ensureLayout();
    ready(*t);
    if (t->name == "project" && projectWritten_) projectWritten_();
    return *t;
}

std::vector<Tier*> Tiers::forRecall(const std::optional<std::string>& tier,
                                    std::vector<UnreachableStore>& unreachable) {
    std::vector<Tier*> out;
    auto notAdded = [&](const std::string& team) {
        unreachable.push_back(
            {"team:" + team, "team store '" + team +
                                 "' is not added on this machine: engram team add " + team +
                                 " URL (its claims were not read)"});
    };
    for (auto& t : own_) {
        if (tier && *tier != "all" && *tier != t->name) continue;
        // A team the project names but this machine has not cloned: said,
        // so that an empty answer is not taken for "the team knows nothing".
        if (isTeamTier(t->name) && !t->store->exists()) {
            notAdded(t->name.substr(5));
            continue;
        }
        out.push_back(t.get());
    }
    // A team store asked for by name (or by all) that the project does not
    // name: opened on demand, labelled as every team row is.
    std::vector<std::string> asked;
    if (tier && isTeamTier(*tier)) asked.push_back(tier->substr(5));
    if (tier && *tier == "all") asked = addedTeams(opts_.home);
    for (auto& team : asked) {
        if (find("team:" + team)) continue;
        Tier* t = nullptr;
        for (auto& o : teams_)
            if (o->name == "team:" + team) t = o.get();
        if (!t) {
            teams_.push_back(teamTier(team));
            t = teams_.back().get();
        }
        if (!t->store->exists()) {
            notAdded(team);
            continue;
        }
        out.push_back(t);
    }
    if (!tier || *tier != "all" || opts_.home.empty()) return out;
    for (auto& root : Registry(opts_.home).roots()) {
        if (root == opts_.root) continue;
        Tier* t = nullptr;
        for (auto& o : others_)
            if (o->root == root) t = o.get();
        if (!t) {
            auto o = std::make_unique<Tier>();
            o->name = "other";
            o->root = root;
            o->store = std::make_unique<Store>(root + "/.engram", "project", storeLabel(root));
            o->anchorer = std::make_unique<Anchorer>(root);
            others_.push_back(std::move(o));
            t = others_.back().get();
        }
        if (!t->store->exists()) {
            unreachable.push_back(
                {root, "no .engram store at " + root + " (moved or deleted since it was served)"});
            continue;
        }
        try {
            if (!ready(*t)) {
                unreachable.push_back({root, "the store at " + root + " could not be opened"});
                continue;
            }
        } catch (const std::exception& e) {
            unreachable.push_back({root, e.what()});
            continue;
        }
        out.push_back(t);
    }
    return out;
}

Tier& Tiers::locate(const std::string& id) {
    if (!Store::validId(id)) throw invalidField("id", "'" + id + "' is not a claim id");
    for (auto& t : own_) {
        if (!ready(*t)) continue;
        if (t->index->byId(id) || statFile(t->store->claimPath(id))) return *t;
    }
    throw EngramError(ErrorKind::UnknownClaim, "no claim with id '" + id + "' in any tier",
                      {{"id", id}});
}

std::vector<SyncReport> Tiers::refresh(const std::vector<std::string>* projectIds) {
    std::vector<SyncReport> out;
    for (auto& t : own_) {
        uint64_t opensBefore = t->opens;
        if (!ready(*t)) continue;
        // ready() has just synced a freshly opened index.
        if (t->opens != opensBefore) continue;
        auto lock = t->store->lock();
        if (t->name == "project" && projectIds) {
            out.push_back(t->index->sync(projectIds));
            recordArrivals(*t, out.back());
        } else {
            out.push_back(reconcileOnOpen(*t));
        }
    }
    return out;
}

void Tiers::recordArrivals(Tier& t, const SyncReport& r) {
    // Who made the change is not known (git does not say who pulled); what
    // changed is. The chain then still holds every change the store saw.
    std::vector<std::array<std::string, 4>> entries;
    for (auto& a : r.arrivals)
        entries.push_back({a.act, a.claim, "unknown", a.detail});
    try {
        t.store->audit().appendAll(entries);
    } catch (const std::exception& e) {
        // A read-only store cannot keep a log; serving it matters more.
        logDropped("recording arrivals in the audit log", e);
    }
}

std::vector<SyncReport> Tiers::reindex() {
    std::vector<SyncReport> out;
    for (auto& t : own_) {
        if (!t->store->exists()) continue;
        auto lock = t->store->lock();
        t->stopScan(); // its connection reads the file about to be replaced
        if (!t->index) t->index = std::make_unique<Index>(*t->store);
        out.push_back(t->index->rebuild("requested"));
        // A full rebuild lists the store anyway; the start-up path does not
        // (it must not grow with the store), so leftovers are swept here.
        out.back().temporariesRemoved = t->store->removeStaleTemporaries();
    }
    return out;
}

TierState Tiers::state(Tier& t) {
    TierState s;
    s.tier = t.name;
    s.path = t.store->dir();
    s.name = t.store->originLabel();
    try {
        s.exists = ready(t);
        if (s.exists) {
            auto st = t.index->stats();
            s.committed = st.committed;
            s.frontier = st.frontier;
            s.retracted = st.retracted;
            s.superseded = st.superseded;
            s.anchors = st.anchors;
            s.generation = st.generation;
            s.brokenFiles = t.index->brokenCount();
            s.indexReady = true;
            s.readOnly = t.store->readOnly();
            if (!t.swept) {
                s.reconciled = false;
                int64_t checked = t.scan && t.scan->opening ? t.scan->checked->load() : 0;
                int64_t files = t.scan ? t.scan->files : st.total;
                s.uncheckedFiles = std::max<int64_t>(0, files - checked);
            }
        }
    } catch (const std::exception& e) {
        s.error = e.what();
    }
    // A store found not to be a clone of its own is not looked at again: a
    // medulla turned into one (`engram medulla remote`) shows its sync state
    // from the next server's start, as a `teams:` line added to store.conf
    // does.
    if (t.name == "medulla" || isTeamTier(t.name)) {
        if (!t.syncRead || t.sync.git) {
            // One stat per answer; the record is read again only when it
            // changed.
            auto now = statFile(t.store->dir() + "/.git/engram-sync");
            bool changed =
                now ? !t.syncSeen || !sameFile(now, *t.syncSeen) : t.syncSeen.has_value();
            if (changed || !t.syncRead) {
                t.sync = readSyncRecord(t.store->dir());
                t.syncSeen = now;
                t.syncRead = true;
            }
        }
        if (t.sync.git || isTeamTier(t.name))
            s.sync =
                TierState::Sync{t.sync.remote, t.sync.lastSync, t.sync.lastError, t.sync.pending};
    }
    return s;
}

Claim Tiers::loadForUpdate(Tier& t, const std::string& id) {
    try {
        if (auto c = t.store->load(id)) return *c;
    } catch (const ClaimFileError& e) {
        std::string file = t.store->claimPath(id);
        throw EngramError(ErrorKind::InvalidClaimFile, file + ": " + e.what(),
                          {{"file", file}, {"line", int64_t(e.line)}});
    }
    throw EngramError(ErrorKind::UnknownClaim, "no claim with id '" + id + "'", {{"id", id}});
}

Tiers::WriteUndo Tiers::commit(Tier& t, const Claim& c, const std::string& act,
                               const std::string& agent, const std::string& detail) {
    // A team's claims change by review: a proposal branch, then a merge
    // (engine/GitStores.h); the clone's branch takes no direct write.
    if (t.store->tier() == "team") throw teamWrite();
    std::string path = t.store->claimPath(c.id);
    WriteUndo before{&t, c.id, readFile(path)};
    try {
        t.store->write(c);
        t.lastWrite = std::chrono::steady_clock::now();
        t.index->upsert(c, statFile(path).value_or(FileStat{}));
        // A failed append takes its partial line back (util/Fs appendDurable).
        t.store->audit().append(act, c.id + "@" + std::to_string(c.version), agent, detail);
    } catch (...) {
        undo(before);
        throw;
    }
    return before;
}

void Tiers::undo(const WriteUndo& u, const std::string& why) noexcept {
    Tier& t = *u.tier;
    std::string path = t.store->claimPath(u.id);
    try {
        // Unchanged when the failure came before the rename.
        bool changed = readFile(path) != u.before;
        if (changed && u.before)
            atomicWrite(path, *u.before);
        else if (changed && ::unlink(path.c_str()) == 0)
            fsyncDir(parentDir(path));
    } catch (...) {
        // The file could not be restored: the next sync compares it with the
        // index, and the audit entry (if any) still describes it.
        return;
    }
    try {
        // The row follows the restored file (or its absence).
        std::vector<std::string> ids{u.id};
        t.index->sync(&ids);
    } catch (...) {
        // The index is derived: the next start-up sync repairs the row.
    }
    if (!why.empty()) {
        try {
            t.store->audit().append("rollback", u.id, "engram", why);
        } catch (...) {
        }
    }
}

} // namespace engram
