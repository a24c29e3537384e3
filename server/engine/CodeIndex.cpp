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
#include <filesystem>
#include <thread>
#include <unordered_map>

namespace engram {

namespace {

constexpr int64_t kMaxSourceBytes = 2 << 20; // generated or vendored blobs are not anchors

// Directories no claim is anchored in and that can be huge.
bool skippedDir(const std::string& name) {
    return name.empty() || name[0] == '.' || name == "node_modules" || name == "target" ||
           name == "dist" || name == "out" || name == "vendor" || name == "__pycache__" ||
           name.rfind("build", 0) == 0;
}

} // namespace

CodeIndexReport Engine::indexCode(const std::function<void(size_t, size_t)>& progress) {
    CodeIndexReport r;
    Tier* t = tier("project");
    if (!t || !ready(*t)) return r;
    namespace fs = std::filesystem;

    // The source files of the workspace, by walking it.
    std::vector<std::pair<std::string, FileStat>> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(opts_.root, fs::directory_options::skip_permission_denied,
                                        ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const auto& entry = *it;
        std::string name = entry.path().filename().string();
        if (entry.is_directory(ec)) {
            if (skippedDir(name)) it.disable_recursion_pending();
            continue;
        }
        if (!entry.is_regular_file(ec) || !syntax::languageForPath(name)) continue;
        auto rel = relativeToRoot(opts_.root, entry.path().string());
        auto st = statFile(entry.path().string());
        if (!rel || !st || st->size > kMaxSourceBytes) continue;
        files.emplace_back(*rel, *st);
    }

    std::unordered_map<std::string, FileStat> known;
    for (auto& [path, st] : t->index->codeFiles())
        known[path] = st;
    std::vector<size_t> changed; // indices into files
    for (size_t i = 0; i < files.size(); ++i) {
        auto& [rel, st] = files[i];
        ++r.files;
        auto k = known.find(rel);
        bool same =
            k != known.end() && k->second.mtimeNs == st.mtimeNs && k->second.size == st.size;
        if (k != known.end()) known.erase(k);
        if (!same) changed.push_back(i);
    }

    // Parsing is the cost, and files are independent: they are parsed on up
    // to four threads (each with its own parser), while this thread reports
    // progress and writes the results in file order, in one transaction.
    struct Parsed {
        bool read = false;
        int64_t bytes = 0;
        std::vector<CodeSymbol> symbols;
    };
    std::vector<Parsed> parsed(changed.size());
    std::vector<std::atomic<bool>> ready(changed.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t j; (j = next.fetch_add(1)) < changed.size();) {
            const std::string& rel = files[changed[j]].first;
            if (auto text = readFile(opts_.root + "/" + rel)) {
                Parsed& p = parsed[j];
                p.read = true;
                p.bytes = int64_t(text->size());
                for (auto& s :
                     syntax::extractSymbols(syntax::languageFor(rel, *text).value_or(""), *text))
                    p.symbols.push_back({rel, s.qualified, s.kind, s.hash, s.shapeHash});
            }
            ready[j].store(true, std::memory_order_release);
            ready[j].notify_one();
        }
    };
    size_t workers =
        changed.size() < 16 ? 0 : std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
    std::vector<std::jthread> pool;
    for (size_t w = 0; w < workers; ++w)
        pool.emplace_back(work);
    if (workers == 0) work();

    auto tx = t->index->writeScope();
    for (size_t j = 0; j < changed.size(); ++j) {
        ready[j].wait(false, std::memory_order_acquire);
        if (progress && (j + 1) % 200 == 0) progress(j + 1, changed.size());
        Parsed& p = parsed[j];
        if (!p.read) continue;
        r.symbols += p.symbols.size();
        r.bytes += p.bytes;
        ++r.parsed;
        t->index->putCodeFile(files[changed[j]].first, files[changed[j]].second, p.symbols);
        p = Parsed{};
    }
    pool.clear();
    for (auto& [gone, st] : known) {
        t->index->dropCodeFile(gone);
        ++r.removed;
    }
    tx.commit();
    codeIndexed_ = true;
    lastCodeWalk_ = std::chrono::steady_clock::now();
    if (progress) progress(changed.size(), changed.size());
    return r;
}

std::vector<CodeSymbol> Engine::symbolsWithShape(const std::string& shape) {
    Tier* t = tier("project");
    if (!t || !ready(*t)) return {};
    if (!codeIndexed_) indexCode();
    auto found = t->index->symbolsWithShape(shape);
    // Nothing known: files may have appeared since the last walk. Walk again
    // (a stat per unchanged file), but not more than once a second, since
    // orphans are checked in bursts.
    if (found.empty() &&
        std::chrono::steady_clock::now() - lastCodeWalk_ > std::chrono::seconds(1)) {
        indexCode();
        found = t->index->symbolsWithShape(shape);
    }
    return found;
}

} // namespace engram
