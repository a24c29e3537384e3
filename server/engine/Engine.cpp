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

// The environment's overrides of a server's options (tests and operators).
static EngineOptions withEnvironment(EngineOptions opts) {
    auto envInt = [](const char* name, int64_t& into) {
        if (const char* v = std::getenv(name); v && *v) {
            char* end = nullptr;
            long long n = std::strtoll(v, &end, 10);
            if (end && *end == '\0' && n >= 0) into = n;
        }
    };
    envInt("ENGRAM_INLINE_RECONCILE_MAX", opts.inlineReconcileMax);
    if (const char* v = std::getenv("ENGRAM_TEST_HOLD_RECONCILE"); v && *v) opts.reconcileHold = v;
    return opts;
}

Engine::Engine(EngineOptions opts)
    : opts_(withEnvironment(std::move(opts)))
    , fingerprint_(rootFingerprint(opts_.root))
    , started_(nowUnix())
    , tiers_({opts_.root, opts_.home, opts_.backgroundReconcile, opts_.sweepOnOpen,
              opts_.inlineReconcileMax, opts_.reconcileHold},
             [this] {
                 team_->registerProject();
                 team_->ensureSetup();
             })
    , anchorer_(opts_.root)
    , reports_(opts_.root, opts_.home)
    , dirty_(opts_.root) {
    anchorer_.setShapeLookup(
        [this](const std::string& shape) { return codeIndex_->symbolsWithShape(shape); });
    if (opts_.watchFiles) treeWatch_ = std::make_unique<TreeWatch>(opts_.root);
    team_ = std::make_unique<Team>(opts_.root, opts_.home, *tiers_.project().store);
    team_->registerProject();
    // Extension-to-language mappings from the project's store.conf.
    for (auto& [ext, lang] : tiers_.project().store->languageMap())
        if (!syntax::mapExtension(ext, lang))
            configErrors_.push_back("store.conf: unknown language '" + lang + "' for " + ext);
    for (auto& e : tiers_.project().store->configErrors())
        configErrors_.push_back(e);
    // The project decides when its memory is stale, for every claim the
    // workspace shows (the medulla's too): one answer per workspace.
    if (auto days = tiers_.project().store->staleDays()) opts_.staleDays = *days;
    codeIndex_ = std::make_unique<CodeIndexer>(
        CodeIndexer::Options{opts_.root, opts_.home, fingerprint_, opts_.reconcileHold},
        [this](bool open) -> Tier* {
            Tier* project = tiers_.find("project");
            return project && (!open || tiers_.ready(*project)) ? project : nullptr;
        },
        [this] { instructions_->relist(); });
    instructions_ = std::make_unique<InstructionFiles>(
        InstructionFiles::Options{opts_.root, opts_.servesInBackground(), opts_.reconcileHold},
        anchorer_, [this](bool create) {
            Tier* t = codeTier(create);
            return t ? InstructionFiles::CodeIndex{t->index.get(), t->store.get()}
                     : InstructionFiles::CodeIndex{};
        });
    instructions_->setGlobs(tiers_.project().store->instructionGlobs());
}

void waitWhileHeld(const std::string& hold, const std::atomic<bool>* cancel) {
    while (!hold.empty() && !(cancel && cancel->load()) && ::access(hold.c_str(), F_OK) == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

Engine::~Engine() {
    codeIndex_->stopWalk(); // its thread writes through a store of tiers_
}

std::string Engine::projectDir() const {
    return tiers_.project().store->dir();
}

std::optional<HealthSummary> Engine::lastAnchorHealth() {
    Tier* t = tiers_.find("project");
    if (!t || !t->index) return std::nullopt;
    return t->index->lastHealth();
}

std::optional<TierState> Engine::storeState(const std::string& name) {
    Tier* t = tiers_.find(name);
    if (!t) return std::nullopt;
    return tiers_.state(*t);
}

std::vector<std::string> Engine::pollReconcile() {
    if (!opts_.backgroundReconcile) return {};
    // A listing of the workspace's files that ended on its thread is kept
    // (bounded by what changed, but for a workspace never listed before).
    instructions_->adoptListing();
    return tiers_.poll();
}

Anchorer& Engine::anchorerFor(Tier& t) {
    return t.anchorer ? *t.anchorer : anchorer_;
}

Envelope Engine::envelope(const std::string& method,
                          const std::optional<std::string>& requestedRoot,
                          const std::vector<Tier*>& alsoRead) {
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
    for (auto& t : tiers_.own()) {
        e.stores.push_back(tiers_.state(*t));
        live += e.stores.back().committed;
        if (!e.stores.back().error.empty()) {
            e.status = "blocked";
            e.observed.error = e.stores.back().tier + ": " + e.stores.back().error;
        }
    }
    // Only "nothing recorded yet" depends on them: looked at only then.
    for (Tier* t : alsoRead)
        if (live == 0 && std::none_of(tiers_.own().begin(), tiers_.own().end(),
                                      [&](auto& o) { return o.get() == t; }))
            live += tiers_.state(*t).committed;
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
    for (auto& t : tiers_.own()) {
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
    if (Tier* project = tiers_.find("project"); project && project->index) {
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
    Tier& t = tiers_.locate(id);
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
