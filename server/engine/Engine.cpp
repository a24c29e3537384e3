// Engine set-up, tiers, the envelope, status and get.
#include "engine/Engine.h"

#include "engine/Anchoring.h"
#include "engine/Tier.h"
#include "index/Reconcile.h"
#include "store/ClaimFile.h"
#include "store/Registry.h"
#include "syntax/Languages.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Git.h"
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

constexpr int64_t kStatusBrokenListed = 100;

static std::string baseName(const std::string& path) {
    auto slash = path.find_last_of('/');
    std::string b = slash == std::string::npos ? path : path.substr(slash + 1);
    return b.empty() ? "root" : b;
}

Engine::Engine(EngineOptions opts)
    : opts_(std::move(opts))
    , fingerprint_(rootFingerprint(opts_.root))
    , started_(nowUnix())
    , anchorer_(opts_.root)
    , reports_(opts_.root, opts_.home) {
    anchorer_.setShapeLookup(
        [this](const std::string& shape) { return codeIndex_->symbolsWithShape(shape); });
    if (opts_.watchFiles) treeWatch_ = std::make_unique<TreeWatch>(opts_.root);
    auto project = std::make_unique<Tier>();
    project->name = "project";
    project->store =
        std::make_unique<Store>(opts_.root + "/.engram", "project", baseName(opts_.root));
    project->root = opts_.root;
    tiers_.push_back(std::move(project));
    if (!opts_.home.empty()) {
        auto medulla = std::make_unique<Tier>();
        medulla->name = "medulla";
        medulla->store = std::make_unique<Store>(opts_.home + "/medulla", "medulla", "medulla");
        tiers_.push_back(std::move(medulla));
    }
    team_ = std::make_unique<Team>(opts_.root, opts_.home, *tiers_[0]->store);
    registerProject();
    auto envInt = [](const char* name, int64_t& into) {
        if (const char* v = std::getenv(name); v && *v) {
            char* end = nullptr;
            long long n = std::strtoll(v, &end, 10);
            if (end && *end == '\0' && n >= 0) into = n;
        }
    };
    envInt("ENGRAM_INLINE_RECONCILE_MAX", opts_.inlineReconcileMax);
    if (const char* v = std::getenv("ENGRAM_TEST_HOLD_RECONCILE"); v && *v) opts_.reconcileHold = v;
    // Extension-to-language mappings from the project's store.conf.
    for (auto& [ext, lang] : tiers_[0]->store->languageMap())
        if (!syntax::mapExtension(ext, lang))
            configErrors_.push_back("store.conf: unknown language '" + lang + "' for " + ext);
    for (auto& e : tiers_[0]->store->configErrors())
        configErrors_.push_back(e);
    // The project decides when its memory is stale, for every claim the
    // workspace shows (the medulla's too): one answer per workspace.
    if (auto days = tiers_[0]->store->staleDays()) opts_.staleDays = *days;
    codeIndex_ = std::make_unique<CodeIndexer>(
        CodeIndexer::Options{opts_.root, opts_.home, fingerprint_, opts_.reconcileHold},
        [this](bool open) -> Tier* {
            Tier* project = tier("project");
            return project && (!open || ready(*project)) ? project : nullptr;
        },
        [this] { instructions_->relist(); });
    instructions_ = std::make_unique<InstructionFiles>(
        InstructionFiles::Options{opts_.root, opts_.backgroundReconcile && opts_.sweepOnOpen,
                                  opts_.reconcileHold},
        anchorer_, [this](bool create) {
            Tier* t = codeTier(create);
            return t ? InstructionFiles::CodeIndex{t->index.get(), t->store.get()}
                     : InstructionFiles::CodeIndex{};
        });
    instructions_->setGlobs(tiers_[0]->store->instructionGlobs());
}

void waitWhileHeld(const std::string& hold, const std::atomic<bool>* cancel) {
    while (!hold.empty() && !(cancel && cancel->load()) && ::access(hold.c_str(), F_OK) == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

Engine::~Engine() {
    codeIndex_->stopWalk(); // its thread writes through a store of tiers_
}

std::string Engine::projectDir() const {
    return tiers_[0]->store->dir();
}

Tier* Engine::tier(const std::string& name) {
    for (auto& t : tiers_)
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

bool Engine::ready(Tier& t) {
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

SyncReport Engine::reconcileOnOpen(Tier& t) {
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

void Engine::startScan(Tier& t, bool opening) {
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

std::vector<std::string> Engine::pollReconcile() {
    std::vector<std::string> changed;
    if (!opts_.backgroundReconcile) return changed;
    // A listing of the workspace's files that ended on its thread is kept
    // (bounded by what changed, but for a workspace never listed before).
    instructions_->adoptListing();
    auto now = std::chrono::steady_clock::now();
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
    for (auto& t : tiers_)
        poll(*t);
    for (auto& t : others_)
        poll(*t);
    return changed;
}

void Engine::vouchForClaims(ClaimsQuiet quiet) {
    claimsQuiet_ = std::move(quiet);
}

Engine::Settle Engine::settleByWatch(Tier& t) {
    // The project's directory only, watched since before its start-up check
    // (which left the index's listing equal to the directory's: compared
    // file by file, or the directory still as last known; a sweep for
    // in-place writes may still run, but those never move the mark): every
    // entry created, removed or renamed since is in the watch's queue the
    // moment it happens, and `quiet` has brought each one in. As a scan
    // records its mark (settledListing): the clock first, the directory's
    // mark, the watch drained, the mark again; recorded only when both agree
    // and the mark is a tick older than the clock, so a later change moves it.
    if (!claimsQuiet_ || &t != tiers_[0].get() || t.name != "project") return Settle::Unknown;
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

void Engine::settleBeforeExit() {
    if (!claimsQuiet_ || tiers_.empty() || !tiers_[0]->index) return;
    Tier& t = *tiers_[0];
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

void Engine::recheckClaims() {
    Tier& t = *tiers_[0];
    if (!t.index || t.scan) return;
    if (opts_.backgroundReconcile) {
        startScan(t, false);
    } else {
        auto lock = t.store->lock();
        recordArrivals(t, t.index->sync());
    }
}

bool Engine::reconciling() const {
    for (auto& t : tiers_)
        if (t->index && !t->swept) return true;
    for (auto& t : others_)
        if (t->index && !t->swept) return true;
    return false;
}

void Engine::reread(const std::vector<std::pair<Tier*, std::string>>& claims) {
    std::map<Tier*, std::vector<std::string>> byTier;
    for (auto& [t, id] : claims)
        byTier[t].push_back(id);
    for (auto& [t, ids] : byTier) {
        if (!t->index) continue;
        auto lock = t->store->lock();
        recordArrivals(*t, t->index->sync(&ids));
    }
}

Tier& Engine::writableTier(const std::string& name) {
    Tier* t = tier(name);
    if (!t)
        throw invalidField("tier", name == "medulla" ? "no medulla: ENGRAM_HOME is not set"
                                                     : "must be 'project' or 'medulla'");
    // Opened first: a store found read-only then refuses in ensureLayout.
    if (t->store->exists()) ready(*t);
    t->store->ensureLayout();
    ready(*t);
    if (t->name == "project") {
        registerProject();
        ensureTeamSetup();
    }
    return *t;
}

Anchorer& Engine::anchorerFor(Tier& t) {
    if (t.anchorer) return *t.anchorer;
    return anchorer_;
}

std::vector<Tier*> Engine::recallTiers(const std::optional<std::string>& tier,
                                       std::vector<UnreachableStore>& unreachable) {
    std::vector<Tier*> out;
    for (auto& t : tiers_)
        if (!tier || *tier == "all" || *tier == t->name) out.push_back(t.get());
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
            o->store = std::make_unique<Store>(root + "/.engram", "project", baseName(root));
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

Tier& Engine::locate(const std::string& id) {
    if (!Store::validId(id)) throw invalidField("id", "'" + id + "' is not a claim id");
    for (auto& t : tiers_) {
        if (!ready(*t)) continue;
        if (t->index->byId(id) || statFile(t->store->claimPath(id))) return *t;
    }
    throw EngramError(ErrorKind::UnknownClaim, "no claim with id '" + id + "' in any tier",
                      {{"id", id}});
}

std::vector<SyncReport> Engine::refresh(const std::vector<std::string>* projectIds) {
    std::vector<SyncReport> out;
    for (auto& t : tiers_) {
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

void Engine::recordArrivals(Tier& t, const SyncReport& r) {
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

std::vector<SyncReport> Engine::reindex() {
    std::vector<SyncReport> out;
    for (auto& t : tiers_) {
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

TierState Engine::tierState(Tier& t) {
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
    return s;
}

std::optional<HealthSummary> Engine::lastAnchorHealth() {
    Tier* t = tier("project");
    if (!t || !t->index) return std::nullopt;
    return t->index->lastHealth();
}

std::optional<TierState> Engine::storeState(const std::string& name) {
    Tier* t = tier(name);
    if (!t) return std::nullopt;
    return tierState(*t);
}

Envelope Engine::envelope(const std::string& method,
                          const std::optional<std::string>& requestedRoot) {
    Envelope e;
    e.observed.method = method;
    e.session = {int64_t(::getpid()), opts_.version, started_};
    e.binding.root = opts_.root;
    e.binding.fingerprint = fingerprint_;
    e.binding.source = opts_.rootSource;
    if (requestedRoot) {
        e.binding.requestedRoot = *requestedRoot;
        e.binding.mismatch = canonicalPath(*requestedRoot) != opts_.root;
    }
    int64_t live = 0;
    for (auto& t : tiers_) {
        e.stores.push_back(tierState(*t));
        live += e.stores.back().committed;
        if (!e.stores.back().error.empty()) {
            e.status = "blocked";
            e.observed.error = e.stores.back().tier + ": " + e.stores.back().error;
        }
    }
    e.nonClaims = {"Claims are what agents and people wrote down; they are not verified facts "
                   "about the code.",
                   "An intact anchor means the anchored code is unchanged since the claim was "
                   "anchored or re-verified, not that the claim is true."};
    int64_t unchecked = 0;
    bool unreconciled = false;
    for (auto& s : e.stores)
        if (!s.reconciled) {
            unreconciled = true;
            unchecked += s.uncheckedFiles;
        }
    if (unreconciled)
        e.nonClaims.push_back(
            "This answer was served while the index was still being checked against claim files "
            "changed while engram was not running (" +
            std::to_string(unchecked) +
            " files left): a claim file rewritten in place in that time may be missing from it "
            "until stores[].reconciled is true. Every claim returned was checked against its "
            "file; files added, removed or replaced were already seen.");
    if (e.binding.mismatch) {
        e.trustMode = "wrong_workspace_binding";
        e.status = "blocked";
        e.nextSuggested = "engram/status";
        e.recovery = {"engram serve",
                      {{"root", e.binding.requestedRoot}},
                      "this engram is bound to " + opts_.root +
                          ", not to the requested root; "
                          "start engram for that root (or pass --root)"};
    } else if (live == 0) {
        e.trustMode = "needs_index";
        e.nextSuggested = "engram/remember";
        e.recovery = {"engram/remember",
                      {},
                      "no live claims exist in any tier yet; an empty answer means nothing has "
                      "been recorded, not that nothing is true"};
    } else if (unreconciled) {
        e.trustMode = "needs_index";
        e.nextSuggested = "engram/status";
        e.recovery = {"engram/status",
                      {},
                      "the index is still being checked against claim files changed while engram "
                      "was not running; repeat the call when stores[].reconciled is true to be "
                      "sure nothing edited in that time is missing"};
    }
    return e;
}

void Engine::explainNotJudged(Envelope& e, const std::vector<InstructionHit>& served) {
    for (auto& h : served)
        e.notJudged.add(h.notJudged);
    for (auto& [reason, n] : e.notJudged.byReason)
        e.nonClaims.push_back(std::to_string(n) + " not judged (" + reason +
                              "): " + std::string(notJudgedExplanation(reason)) + ".");
}

StatusResult Engine::status(const std::optional<std::string>& requestedRoot, bool instructions) {
    Anchorer::ReadScope reads(anchorer_); // each anchored file read once for the answer
    StatusResult r;
    r.envelope = envelope("engram/status", requestedRoot);
    if (!opts_.home.empty())
        for (auto& root : Registry(opts_.home).roots())
            r.registered.push_back({root, bool(statFile(root + "/.engram/claims"))});
    // The inbox's counts, read again only when the box changed.
    try {
        r.inbox = reports_.inboxCounts();
    } catch (const FsError&) {
        // Status still answers; engram inbox names what cannot be read.
    }
    applyTreeChanges();
    // Anchors stamped by earlier digest rules are judged here against the
    // commit that stamped them (a process per status at most; none once
    // judged, and none on the recall paths).
    Anchorer::HistoryScope history(anchorer_);
    for (auto& t : tiers_) {
        if (!t->index) continue;
        // Listed up to a bound (a clone can carry a million broken files);
        // the store's count in the envelope covers them all.
        for (auto& b : t->index->brokenFiles(kStatusBrokenListed))
            r.brokenFiles.emplace_back(t->store->dir() + "/" + b.file,
                                       b.message.rfind("line ", 0) == 0
                                           ? b.message
                                           : "line " + std::to_string(b.line) + ": " + b.message);
        addAnchorHealth(*t, r.anchorHealth, &r.envelope.notJudged);
    }
    // Kept for the session-start hook, which cannot count it (a look at
    // every anchored file); written when the counts changed, or when the one
    // kept is an hour old (so the age the hook shows is right within an hour).
    if (Tier* project = tier("project"); project && project->index) {
        auto& h = r.anchorHealth;
        HealthSummary now{h.intact, h.drifted, h.moved, h.orphaned, h.unjudged, nowUnix()};
        try {
            auto before = project->index->lastHealth();
            if (!before || !before->sameCounts(now) || now.countedAt - before->countedAt > 3600)
                project->index->putHealth(now);
        } catch (const std::exception&) {
            // A read-only or full index: the hook says nothing of health.
        }
    }
    if (instructions) {
        auto scan = scanInstructions();
        auto& c = r.instructions.emplace();
        c.files = int64_t(scan.files.size());
        c.references = int64_t(scan.refs.size());
        c.listed = scan.listed;
        for (auto& ref : scan.refs) {
            int64_t* n = ref.state == "ok"         ? &c.ok
                         : ref.state == "dangling" ? &c.dangling
                         : ref.state == "drifted"  ? &c.drifted
                         : ref.state == "moved"    ? &c.moved
                         : ref.state == "unjudged" ? &c.unjudged
                                                   : &c.ambiguous;
            ++*n;
        }
        r.envelope.notJudged.add(scan.notJudged);
    }
    explainNotJudged(r.envelope);
    return r;
}

GetResult Engine::get(const std::string& id) {
    Tier& t = locate(id);
    GetResult r;
    r.tier = t.name;
    r.file = t.store->claimPath(id);
    std::optional<Claim> c;
    try {
        c = t.store->load(id);
    } catch (const ClaimFileError& e) {
        throw EngramError(ErrorKind::InvalidClaimFile, r.file + ": " + e.what(),
                          {{"file", r.file}, {"line", int64_t(e.line)}});
    }
    if (!c)
        throw EngramError(ErrorKind::UnknownClaim, "claim '" + id + "' has no file", {{"id", id}});
    r.claim = *c;
    // One claim asked for by name is judged fully: a stamp of earlier rules
    // against the commit that made it (not a hot path: recall and hover are).
    Anchorer::HistoryScope history(anchorer_);
    r.anchorState = anchorer_.claimState(*c, &r.places);
    for (auto& p : r.places)
        r.anchorStates.push_back(p.state);
    r.history = t.store->versions(id);
    if (!r.history.empty()) r.history.pop_back(); // the current version is r.claim
    return r;
}

} // namespace engram
