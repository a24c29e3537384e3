// The workspace's code index: every source file engram can parse, with its
// definitions' hashes, kept in the project index.
//
// It answers one question the per-file anchorer cannot: where did a symbol
// go when it left its file? (A move to another file is reported as `moved`,
// not `orphaned`.) Files are re-parsed only when their mtime or size changed,
// so reopening a workspace costs a directory walk. The walk is lazy for the
// CLI (the first check that needs it) and runs on a thread of its own from a
// server's start-up (CodeIndexer::Walker).
#include "engine/CodeIndexer.h"

#include "engine/Hold.h"
#include "util/Fs.h"
#include "util/Log.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace engram {

CodeIndexer::CodeIndexer(Options opts, std::function<Tier*(bool)> projectTier,
                         std::function<void()> relist)
    : opts_(std::move(opts))
    , projectTier_(std::move(projectTier))
    , relist_(std::move(relist)) {}

CodeIndexer::~CodeIndexer() = default;

Tier* CodeIndexer::tier(bool create) {
    Tier* project = projectTier_(false);
    if (!project) return nullptr;
    if (projectTier_(true)) return project;
    if (opts_.home.empty()) return nullptr;
    const std::string dir = opts_.home + "/workspaces/" + opts_.fingerprint;
    if (!own_ && !create && !statFile(dir + "/index.sqlite")) return nullptr;
    if (!own_) {
        auto t = std::make_unique<Tier>();
        t->name = "code";
        t->root = opts_.root;
        t->store = std::make_unique<Store>(project->store->dir(), "project", "code");
        t->store->relocateState(dir, 0);
        try {
            auto lock = t->store->lock(); // creates the directory; one creator at a time
            t->index = std::make_unique<Index>(*t->store);
        } catch (const std::exception& e) {
            logDropped("opening the workspace's own code index", e);
            return nullptr; // no code index: names are reported not judged
        }
        own_ = std::move(t);
    }
    return own_.get();
}

CodeIndexReport CodeIndexer::index(const std::function<void(size_t, size_t)>& progress,
                                   bool listFiles) {
    // One walk at a time: a server's start-up walk is waited for (and
    // adopted) first, and usually leaves nothing to parse.
    awaitWalk();
    Tier* t = tier();
    if (!t) return {};
    CodeIndexReport r = walkCode(opts_.root, *t->index, progress, nullptr);
    indexedIn_ = t->index.get();
    lastWalk_ = std::chrono::steady_clock::now();
    // The walk's companion: the workspace's files as git sees them, which
    // the hot paths read instead of listing (engine/InstructionFiles.cpp).
    if (listFiles) {
        relist_();
        listedIn_ = t->index.get();
    }
    return r;
}

// A server's start-up walk: a stat per source file (a parse per changed
// one), which grows with the repository, so it runs beside the requests
// rather than before them, on a connection of its own.
class CodeIndexer::Walker {
public:
    Walker(Tier* tier, std::string root, std::string hold)
        : tier(tier)
        , index(tier->index.get())
        , thread_(
              [this, store = tier->store.get(), root = std::move(root), hold = std::move(hold)] {
                  waitWhileHeld(hold, &cancel_);
                  try {
                      // Opened on this thread: no request waits for it.
                      own_ = std::make_unique<Index>(*store);
                      opened_ = true;
                      report_ = walkCode(
                          root, *own_,
                          [this](size_t done, size_t total) {
                              done_.store(done, std::memory_order_relaxed);
                              total_.store(total, std::memory_order_relaxed);
                          },
                          &cancel_);
                  } catch (const std::exception& e) {
                      report_.error = e.what();
                  }
                  finished_.store(true, std::memory_order_release);
              }) {}
    ~Walker() { cancel_.store(true); }
    // The tier and index it walked for: adopted only into that very one.
    Tier* const tier;
    const Index* const index;
    bool finished() const { return finished_.load(std::memory_order_acquire); }
    // Once finished: whether it had a connection to walk into.
    bool opened() const { return opened_; }
    std::pair<size_t, size_t> progress() const {
        return {done_.load(std::memory_order_relaxed), total_.load(std::memory_order_relaxed)};
    }
    // Waits for the thread; the report once it ended.
    const CodeIndexReport& report() {
        if (thread_.joinable()) thread_.join();
        return report_;
    }

private:
    std::unique_ptr<Index> own_;
    bool opened_ = false; // read once the thread is joined
    std::atomic<bool> cancel_{false}, finished_{false};
    std::atomic<size_t> done_{0}, total_{0};
    CodeIndexReport report_;
    std::jthread thread_; // last: joined before the members it writes go
};

void CodeIndexer::WalkerEnd::operator()(Walker* w) const {
    delete w;
}

bool CodeIndexer::startWalk() {
    if (walk_) return true;
    Tier* t = tier();
    if (!t) return false;
    try {
        walk_.reset(new Walker(t, opts_.root, opts_.hold));
    } catch (const std::exception& e) {
        logDropped("starting the code walk on a thread", e);
        return false; // no second connection: the walk runs when first needed
    }
    return true;
}

std::pair<size_t, size_t> CodeIndexer::walkProgress() const {
    return walk_ ? walk_->progress() : std::pair<size_t, size_t>{0, 0};
}

std::optional<CodeIndexReport> CodeIndexer::adoptWalk(bool wait) {
    if (walkEnded_) return std::exchange(walkEnded_, std::nullopt);
    if (!walk_ || (!wait && !walk_->finished())) return std::nullopt;
    auto walk = std::move(walk_);
    CodeIndexReport r = walk->report();
    Tier* t = walk->tier;
    // Written through another connection: this one's count of code changes
    // moves too, so counts that depended on the code index are taken again.
    if (t->index.get() == walk->index && walk->opened() && r.error != "cancelled") {
        indexedIn_ = t->index.get();
        lastWalk_ = std::chrono::steady_clock::now();
        if (r.parsed || r.removed) t->index->noteCodeChanged();
    }
    return r;
}

void CodeIndexer::awaitWalk() {
    // Kept for the server, which reports the walk's end (adoptWalk).
    if (walk_) walkEnded_ = adoptWalk(true);
}

std::vector<CodeSymbol> CodeIndexer::symbolsWithShape(const std::string& shape) {
    awaitWalk(); // where a definition went is judged on the walked index
    Tier* t = tier();
    if (!t) return {};
    if (indexedIn_ != t->index.get()) index({}, false);
    auto found = t->index->symbolsWithShape(shape);
    // Nothing known: files may have appeared since the last walk. Walk again
    // (a stat per unchanged file), but not more than once a second, since
    // orphans are checked in bursts.
    if (found.empty() && std::chrono::steady_clock::now() - lastWalk_ > std::chrono::seconds(1)) {
        index({}, false);
        found = t->index->symbolsWithShape(shape);
    }
    return found;
}

} // namespace engram
