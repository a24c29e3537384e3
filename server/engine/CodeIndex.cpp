// The workspace's code index: every source file engram can parse, with its
// definitions' hashes, kept in the project index.
//
// It answers one question the per-file anchorer cannot: where did a symbol
// go when it left its file? (A move to another file is reported as `moved`,
// not `orphaned`.) Files are re-parsed only when their mtime or size changed,
// so reopening a workspace costs a directory walk. The walk is lazy for the
// CLI (the first check that needs it) and runs on a thread of its own from a
// server's start-up (Engine::CodeWalker).
#include "engine/Engine.h"
#include "engine/Tier.h"
#include "index/Sqlite.h"
#include "syntax/Languages.h"
#include "syntax/Symbols.h"
#include "util/Fs.h"
#include "util/Paths.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

namespace engram {

namespace {

constexpr int64_t kMaxSourceBytes = 2 << 20; // generated or vendored blobs are not anchors
constexpr size_t kThreadedFrom = 16;         // changed files worth starting threads for
// The walk holds one open directory per level: deeper directories (a
// hostile tree can nest thousands) and paths near PATH_MAX are not entered,
// so the walk neither runs out of descriptors nor fails part-way.
constexpr int kMaxWalkDepth = 48;
constexpr size_t kMaxWalkPath = PATH_MAX - 256;

// Directories no claim is anchored in and that can be huge.
bool skippedDir(const std::string& name) {
    return name.empty() || name[0] == '.' || name == "node_modules" || name == "target" ||
           name == "dist" || name == "out" || name == "vendor" || name == "__pycache__" ||
           name.rfind("build", 0) == 0;
}

} // namespace

Engine::Tier* Engine::codeTier(bool create) {
    Tier* project = tier("project");
    if (!project) return nullptr;
    if (ready(*project)) return project;
    if (opts_.home.empty()) return nullptr;
    const std::string dir = opts_.home + "/workspaces/" + fingerprint_;
    if (!codeOnly_ && !create && !statFile(dir + "/index.sqlite")) return nullptr;
    if (!codeOnly_) {
        auto t = std::make_unique<Tier>();
        t->name = "code";
        t->root = opts_.root;
        t->store = std::make_unique<Store>(project->store->dir(), "project", "code");
        t->store->relocateState(dir, 0);
        try {
            auto lock = t->store->lock(); // creates the directory; one creator at a time
            t->index = std::make_unique<Index>(*t->store);
        } catch (const std::exception&) {
            return nullptr; // no code index: names are reported not judged
        }
        codeOnly_ = std::move(t);
    }
    return codeOnly_.get();
}

namespace {

// The walk itself: what it reads is the root and the index it is handed, so
// it runs on the calling thread (the CLI) or on a thread of its own with a
// connection of its own (a server's start-up, Engine::CodeWalker). With
// `cancel` set part-way, what was written stays (each file's rows are
// whole) and nothing is dropped.
CodeIndexReport walkCode(const std::string& root, Index& index,
                         const std::function<void(size_t, size_t)>& progress,
                         const std::atomic<bool>* cancel) {
    CodeIndexReport r;
    namespace fs = std::filesystem;
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };

    std::unordered_map<std::string, FileStat> known;
    for (auto& [path, st] : index.codeFiles())
        known[path] = st;

    // Parsing is the cost, and files are independent: a pool of threads,
    // one per core (up to four, each with its own parser), reads and parses
    // the changed files while this thread is still walking the workspace,
    // then writes the results in walk order, in one transaction. A slot's
    // address is stable (a deque grows at the back without moving its
    // elements), so a worker fills it while the walk appends more.
    struct Slot {
        std::string rel;
        FileStat st;
        bool read = false;
        int64_t bytes = 0;
        std::vector<CodeSymbol> symbols;
        std::atomic<bool> done{false};
    };
    std::deque<Slot> slots; // the changed files, in walk order
    std::mutex mu;
    std::condition_variable queued;
    std::deque<Slot*> todo; // guarded by mu
    bool walked = false;    // guarded by mu: no more slots will come
    auto extract = [&](Slot& s) {
        if (auto text = !cancelled() ? readFile(root + "/" + s.rel) : std::nullopt) {
            s.read = true;
            s.bytes = int64_t(text->size());
            auto symbols =
                syntax::extractSymbols(syntax::languageFor(s.rel, *text).value_or(""), *text);
            s.symbols.reserve(symbols.size());
            for (auto& sym : symbols)
                s.symbols.push_back({s.rel, std::move(sym.qualified), std::move(sym.kind),
                                     std::move(sym.hash), std::move(sym.shapeHash)});
        }
        s.done.store(true, std::memory_order_release);
        s.done.notify_one();
    };
    auto work = [&] {
        for (;;) {
            Slot* s;
            {
                std::unique_lock lock(mu);
                queued.wait(lock, [&] { return walked || !todo.empty(); });
                if (todo.empty()) return;
                s = todo.front();
                todo.pop_front();
            }
            extract(*s);
        }
    };
    auto endWalk = [&] {
        {
            std::lock_guard lock(mu);
            walked = true;
        }
        queued.notify_all();
    };
    std::vector<std::jthread> pool;
    // However this function is left, the workers are told the walk is over
    // before they are joined.
    struct WalkEnd {
        decltype(endWalk)& end;
        ~WalkEnd() { end(); }
    } walkEnd{endWalk};
    auto enqueue = [&](Slot& s) {
        {
            std::lock_guard lock(mu);
            todo.push_back(&s);
        }
        queued.notify_one();
        // The threads start once there are enough changed files to share
        // (a reopened workspace usually has a handful, parsed here).
        if (pool.empty() && slots.size() >= kThreadedFrom)
            for (size_t w = std::clamp(std::thread::hardware_concurrency(), 1u, 4u); w > 0; --w)
                pool.emplace_back(work);
    };

    // The source files of the workspace, by walking it.
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator() && !cancelled(); it.increment(ec)) {
        const auto& entry = *it;
        std::string name = entry.path().filename().string();
        std::error_code entryEc; // an entry that vanished is skipped, not a failed walk
        if (entry.is_directory(entryEc)) {
            if (skippedDir(name) || it.depth() + 1 >= kMaxWalkDepth ||
                entry.path().native().size() > kMaxWalkPath) {
                if (!skippedDir(name)) ++r.skippedDirs;
                it.disable_recursion_pending();
            }
            continue;
        }
        if (!entry.is_regular_file(entryEc) || !syntax::languageForPath(name)) continue;
        // The walk enters no linked directory, so a path it reached is the
        // root's unless the file itself is a link (whose target is judged:
        // a realpath, a syscall per component, for links alone).
        std::error_code linkEc;
        const std::string& full = entry.path().native();
        auto rel = root == "/" || entry.is_symlink(linkEc) || full.size() <= root.size() + 1
                       ? relativeToRoot(root, full)
                       : std::optional<std::string>(full.substr(root.size() + 1));
        auto st = statFile(full);
        if (!rel || !st || st->size > kMaxSourceBytes) continue;
        ++r.files;
        auto k = known.find(*rel);
        bool same =
            k != known.end() && k->second.mtimeNs == st->mtimeNs && k->second.size == st->size;
        if (k != known.end()) known.erase(k);
        if (same) continue;
        Slot& s = slots.emplace_back();
        s.rel = std::move(*rel);
        s.st = *st;
        enqueue(s);
    }
    // A walk that failed part-way (the iterator ends at its first error: a
    // directory that vanished, EMFILE, EIO) has not seen every file: what it
    // did not reach is not gone, so nothing is dropped from the index.
    if (ec) r.error = ec.message();
    if (cancelled()) r.error = "cancelled";
    endWalk();
    if (pool.empty()) work(); // too few files for the threads

    // Many files to write: a cache that holds each transaction.
    struct Cache {
        Index& index;
        explicit Cache(Index& i, bool large)
            : index(i) {
            if (large) index.setWriteCache(64);
        }
        ~Cache() { index.setWriteCache(0); }
    } cache(index, slots.size() >= kThreadedFrom);
    // Written in transactions of a few hundred files, not one: another
    // writer of the index (a remember, another engram) waits for one batch,
    // not for the whole first walk of a large repository.
    constexpr size_t kFilesPerTransaction = 256;
    std::unique_ptr<sql::Transaction> tx;
    size_t inTx = 0;
    for (size_t j = 0; j < slots.size(); ++j) {
        Slot& s = slots[j];
        s.done.wait(false, std::memory_order_acquire);
        if (progress && (j + 1) % 200 == 0) progress(j + 1, slots.size());
        if (!s.read) continue;
        r.symbols += s.symbols.size();
        r.bytes += s.bytes;
        ++r.parsed;
        if (!tx) tx.reset(new sql::Transaction(index.writeScope()));
        index.putCodeFile(s.rel, s.st, s.symbols);
        s.symbols = {};
        if (++inTx == kFilesPerTransaction) {
            tx->commit();
            tx.reset();
            inTx = 0;
        }
    }
    pool.clear();
    if (!tx) tx.reset(new sql::Transaction(index.writeScope()));
    if (r.error.empty())
        for (auto& [gone, st] : known) {
            index.dropCodeFile(gone);
            ++r.removed;
        }
    // Caches of the code index's names are keyed by this (Listing.cpp), and
    // kept anchor health that was not all intact (Health.cpp).
    if (r.parsed || r.removed) index.bumpCodeGeneration();
    tx->commit();
    if (progress) progress(slots.size(), slots.size());
    return r;
}

} // namespace

CodeIndexReport Engine::indexCode(const std::function<void(size_t, size_t)>& progress,
                                  bool listFiles) {
    // One walk at a time: a server's start-up walk is waited for (and
    // adopted) first, and usually leaves nothing to parse.
    awaitCodeWalk();
    Tier* t = codeTier();
    if (!t) return {};
    CodeIndexReport r = walkCode(opts_.root, *t->index, progress, nullptr);
    codeIndexedIn_ = t->index.get();
    lastCodeWalk_ = std::chrono::steady_clock::now();
    // The walk's companion: the workspace's files as git sees them, which
    // the hot paths read instead of listing (engine/Listing.cpp).
    if (listFiles) relist();
    return r;
}

// A server's start-up walk: a stat per source file (a parse per changed
// one), which grows with the repository, so it runs beside the requests
// rather than before them, on a connection of its own.
class Engine::CodeWalker {
public:
    CodeWalker(Tier* tier, std::string root, std::string hold)
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
    ~CodeWalker() { cancel_.store(true); }
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

void Engine::CodeWalkerEnd::operator()(CodeWalker* w) const {
    delete w;
}

bool Engine::startCodeWalk() {
    if (codeWalk_) return true;
    Tier* t = codeTier();
    if (!t) return false;
    try {
        codeWalk_.reset(new CodeWalker(t, opts_.root, opts_.reconcileHold));
    } catch (const std::exception&) {
        return false; // no second connection: the walk runs when first needed
    }
    return true;
}

std::pair<size_t, size_t> Engine::codeWalkProgress() const {
    return codeWalk_ ? codeWalk_->progress() : std::pair<size_t, size_t>{0, 0};
}

std::optional<CodeIndexReport> Engine::adoptCodeWalk(bool wait) {
    if (walkEnded_) return std::exchange(walkEnded_, std::nullopt);
    if (!codeWalk_ || (!wait && !codeWalk_->finished())) return std::nullopt;
    auto walk = std::move(codeWalk_);
    CodeIndexReport r = walk->report();
    Tier* t = walk->tier;
    // Written through another connection: this one's count of code changes
    // moves too, so counts that depended on the code index are taken again.
    if (t->index.get() == walk->index && walk->opened() && r.error != "cancelled") {
        codeIndexedIn_ = t->index.get();
        lastCodeWalk_ = std::chrono::steady_clock::now();
        if (r.parsed || r.removed) t->index->noteCodeChanged();
    }
    return r;
}

void Engine::awaitCodeWalk() {
    // Kept for the server, which reports the walk's end (adoptCodeWalk).
    if (codeWalk_) walkEnded_ = adoptCodeWalk(true);
}

std::vector<CodeSymbol> Engine::symbolsWithShape(const std::string& shape) {
    awaitCodeWalk(); // where a definition went is judged on the walked index
    Tier* t = codeTier();
    if (!t) return {};
    if (codeIndexedIn_ != t->index.get()) indexCode({}, false);
    auto found = t->index->symbolsWithShape(shape);
    // Nothing known: files may have appeared since the last walk. Walk again
    // (a stat per unchanged file), but not more than once a second, since
    // orphans are checked in bursts.
    if (found.empty() &&
        std::chrono::steady_clock::now() - lastCodeWalk_ > std::chrono::seconds(1)) {
        indexCode({}, false);
        found = t->index->symbolsWithShape(shape);
    }
    return found;
}

} // namespace engram
