// The workspace's code index: every source file engram can parse, with its
// definitions' hashes, kept in the project index.
//
// It answers one question the per-file anchorer cannot: where did a symbol
// go when it left its file? (A move to another file is reported as `moved`,
// not `orphaned`.) Files are re-parsed only when their mtime or size changed,
// so reopening a workspace costs a directory walk. The walk is lazy for the
// CLI (the first check that needs it) and runs after start-up in the server.
#include "engine/Engine.h"
#include "engine/Tier.h"
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

CodeIndexReport Engine::indexCode(const std::function<void(size_t, size_t)>& progress,
                                  bool listFiles) {
    CodeIndexReport r;
    Tier* t = codeTier();
    if (!t) return r;
    namespace fs = std::filesystem;

    std::unordered_map<std::string, FileStat> known;
    for (auto& [path, st] : t->index->codeFiles())
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
        if (auto text = readFile(opts_.root + "/" + s.rel)) {
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
    fs::recursive_directory_iterator it(opts_.root, fs::directory_options::skip_permission_denied,
                                        ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
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
        auto rel = relativeToRoot(opts_.root, entry.path().string());
        auto st = statFile(entry.path().string());
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
    endWalk();
    if (pool.empty()) work(); // too few files for the threads

    // Many files to write: a cache that holds the transaction.
    struct Cache {
        Index& index;
        explicit Cache(Index& i, bool large)
            : index(i) {
            if (large) index.setWriteCache(64);
        }
        ~Cache() { index.setWriteCache(0); }
    } cache(*t->index, slots.size() >= kThreadedFrom);
    auto tx = t->index->writeScope();
    for (size_t j = 0; j < slots.size(); ++j) {
        Slot& s = slots[j];
        s.done.wait(false, std::memory_order_acquire);
        if (progress && (j + 1) % 200 == 0) progress(j + 1, slots.size());
        if (!s.read) continue;
        r.symbols += s.symbols.size();
        r.bytes += s.bytes;
        ++r.parsed;
        t->index->putCodeFile(s.rel, s.st, s.symbols);
        s.symbols = {};
    }
    pool.clear();
    if (r.error.empty())
        for (auto& [gone, st] : known) {
            t->index->dropCodeFile(gone);
            ++r.removed;
        }
    // Caches of the code index's names are keyed by this (Listing.cpp).
    if (r.parsed || r.removed) t->index->bumpCodeGeneration();
    tx.commit();
    codeIndexedIn_ = t->index.get();
    lastCodeWalk_ = std::chrono::steady_clock::now();
    // The walk's companion: the workspace's files as git sees them, which
    // the hot paths read instead of listing (engine/Listing.cpp).
    if (listFiles) relist();
    if (progress) progress(slots.size(), slots.size());
    return r;
}

std::vector<CodeSymbol> Engine::symbolsWithShape(const std::string& shape) {
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
