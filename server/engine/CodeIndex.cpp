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

#include <filesystem>
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
    auto tx = t->index->writeScope();
    size_t done = 0;
    for (auto& [rel, st] : files) {
        ++r.files;
        if (progress && ++done % 200 == 0) progress(done, files.size());
        auto k = known.find(rel);
        bool same =
            k != known.end() && k->second.mtimeNs == st.mtimeNs && k->second.size == st.size;
        if (k != known.end()) known.erase(k);
        if (same) continue;
        auto text = readFile(opts_.root + "/" + rel);
        if (!text) continue;
        std::vector<CodeSymbol> symbols;
        for (auto& s : syntax::extractSymbols(*syntax::languageForPath(rel), *text))
            symbols.push_back({rel, s.qualified, s.kind, s.hash, s.shapeHash});
        r.symbols += symbols.size();
        r.bytes += int64_t(text->size());
        ++r.parsed;
        t->index->putCodeFile(rel, st, symbols);
    }
    for (auto& [gone, st] : known) {
        t->index->dropCodeFile(gone);
        ++r.removed;
    }
    tx.commit();
    codeIndexed_ = true;
    lastCodeWalk_ = std::chrono::steady_clock::now();
    if (progress) progress(files.size(), files.size());
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
