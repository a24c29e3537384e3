// The walk that fills the code index (CodeWalk.h).
//
// Parsing is the cost, and files are independent: a pool of threads, one
// per core (up to four, each with its own parser), reads and parses the
// changed files while the walk is still going, then the results are written
// in walk order.
#include "engine/CodeWalk.h"

#include "index/Sqlite.h"
#include "syntax/Languages.h"
#include "syntax/Symbols.h"
#include "util/Fs.h"
#include "util/Paths.h"

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace engram {

namespace {

constexpr int64_t kMaxSourceBytes = 2 << 20; // generated or vendored blobs are not anchors
constexpr size_t kThreadedFrom = 16;         // changed files worth starting threads for
// The walk holds one open directory per level: deeper directories (a
// hostile tree can nest thousands) and paths near PATH_MAX are not entered,
// so the walk neither runs out of descriptors nor fails part-way.
constexpr int kMaxWalkDepth = 48;
constexpr size_t kMaxWalkPath = PATH_MAX - 256;
// Written in transactions of a few hundred files, not one: another writer
// of the index (a remember, another engram) waits for one batch, not for
// the whole first walk of a large repository.
constexpr size_t kFilesPerTransaction = 256;

// Directories no claim is anchored in and that can be huge.
bool skippedDir(const std::string& name) {
    return name.empty() || name[0] == '.' || name == "node_modules" || name == "target" ||
           name == "dist" || name == "out" || name == "vendor" || name == "__pycache__" ||
           name.rfind("build", 0) == 0;
}

// The changed files, parsed on threads once there are enough of them to
// share. A slot's address is stable (a deque grows at the back without
// moving its elements), so a worker fills it while the walk appends more.
class ParsePool {
public:
    struct Slot {
        std::string rel;
        FileStat st;
        bool read = false;
        int64_t bytes = 0;
        std::vector<CodeSymbol> symbols;
        std::atomic<bool> done{false};
    };

    ParsePool(const std::string& root, const std::atomic<bool>* cancel)
        : root_(root)
        , cancel_(cancel) {}
    // However the walk is left, the workers are told it is over before they
    // are joined (pool_, declared last, goes first).
    ~ParsePool() { endWalk(); }

    bool cancelled() const { return cancel_ && cancel_->load(std::memory_order_relaxed); }

    void add(std::string rel, const FileStat& st) {
        Slot& s = slots_.emplace_back();
        s.rel = std::move(rel);
        s.st = st;
        {
            std::lock_guard lock(mu_);
            todo_.push_back(&s);
        }
        queued_.notify_one();
        // The threads start once there are enough changed files to share (a
        // reopened workspace usually has a handful, parsed here).
        if (pool_.empty() && slots_.size() >= kThreadedFrom)
            for (size_t w = std::clamp(std::thread::hardware_concurrency(), 1u, 4u); w > 0; --w)
                pool_.emplace_back([this] { work(); });
    }
    // No more slots will come: too few for the threads are parsed here.
    void finishWalk() {
        endWalk();
        if (pool_.empty()) work();
    }
    std::deque<Slot>& slots() { return slots_; }
    bool threaded() const { return slots_.size() >= kThreadedFrom; }
    void join() { pool_.clear(); }

private:
    void endWalk() {
        {
            std::lock_guard lock(mu_);
            walked_ = true;
        }
        queued_.notify_all();
    }
    void work() {
        for (;;) {
            Slot* s;
            {
                std::unique_lock lock(mu_);
                queued_.wait(lock, [&] { return walked_ || !todo_.empty(); });
                if (todo_.empty()) return;
                s = todo_.front();
                todo_.pop_front();
            }
            extract(*s);
        }
    }
    void extract(Slot& s) {
        if (auto text = !cancelled() ? readFile(root_ + "/" + s.rel) : std::nullopt) {
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
    }

    const std::string& root_;
    const std::atomic<bool>* cancel_;
    std::deque<Slot> slots_; // the changed files, in walk order
    std::mutex mu_;
    std::condition_variable queued_;
    std::deque<Slot*> todo_; // guarded by mu_
    bool walked_ = false;    // guarded by mu_: no more slots will come
    std::vector<std::jthread> pool_;
};

// The source files of the workspace, by walking it: each one new or changed
// since `known` (what the index holds) is handed to the pool, and each one
// seen is taken out of `known`, which is left holding the files gone.
void walkSources(const std::string& root, std::unordered_map<std::string, FileStat>& known,
                 ParsePool& pool, CodeIndexReport& r) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator() && !pool.cancelled(); it.increment(ec)) {
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
        if (!same) pool.add(std::move(*rel), *st);
    }
    // A walk that failed part-way (the iterator ends at its first error: a
    // directory that vanished, EMFILE, EIO) has not seen every file: what it
    // did not reach is not gone, so nothing is dropped from the index.
    if (ec) r.error = ec.message();
    if (pool.cancelled()) r.error = "cancelled";
}

// Many files to write: a cache that holds each transaction.
struct WriteCache {
    Index& index;
    WriteCache(Index& i, bool large)
        : index(i) {
        if (large) index.setWriteCache(64);
    }
    ~WriteCache() { index.setWriteCache(0); }
};

// Writes the parsed files in walk order, as each is ready; returns the
// transaction still open (the last batch's), for what follows them.
std::unique_ptr<sql::Transaction> writeParsed(Index& index, ParsePool& pool, CodeIndexReport& r,
                                              const std::function<void(size_t, size_t)>& progress) {
    auto& slots = pool.slots();
    std::unique_ptr<sql::Transaction> tx;
    size_t inTx = 0;
    for (size_t j = 0; j < slots.size(); ++j) {
        auto& s = slots[j];
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
    if (!tx) tx.reset(new sql::Transaction(index.writeScope()));
    return tx;
}

} // namespace

CodeIndexReport walkCode(const std::string& root, Index& index,
                         const std::function<void(size_t, size_t)>& progress,
                         const std::atomic<bool>* cancel) {
    CodeIndexReport r;
    // The definitions indexed by other digest rules than these (an index an
    // earlier engram wrote, or one that never said) are parsed again, every
    // file as if it had changed: their shapes and names are what anchors
    // stamped now are looked up by. Gone files still drop. The version is
    // one of the index's key-value facts, written once the walk is whole.
    const std::string rules = std::to_string(syntax::kDigestRules);
    const bool sameRules = index.historyFact(kCodeRulesFact) == rules;
    std::unordered_map<std::string, FileStat> known;
    for (auto& [path, st] : index.codeFiles())
        known[path] = sameRules ? st : FileStat{-1, -1, 0};
    ParsePool pool(root, cancel);
    walkSources(root, known, pool, r);
    pool.finishWalk();
    WriteCache cache(index, pool.threaded());
    auto tx = writeParsed(index, pool, r, progress);
    pool.join();
    if (r.error.empty())
        for (auto& [gone, st] : known) {
            index.dropCodeFile(gone);
            ++r.removed;
        }
    // Caches of the code index's names are keyed by this (InstructionFiles.cpp), and
    // kept anchor health that was not all intact (Health.cpp).
    if (r.parsed || r.removed) index.bumpCodeGeneration();
    tx->commit();
    if (!sameRules && r.error.empty()) index.putHistoryFacts({{kCodeRulesFact, rules}});
    size_t n = pool.slots().size();
    if (progress) progress(n, n);
    return r;
}

} // namespace engram
