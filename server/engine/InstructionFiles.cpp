// The instruction-files service (InstructionFiles.h): the workspace's
// files, known on the hot paths without listing them, and the paragraphs of
// the instruction files among them.
//
// Instruction files are read by recall, packets, the hook and every
// keystroke in one, and judging their references needs the workspace's
// files (`go.mod` is looked up by its name, `agents.testing` as a module).
// Listing a repository is a process (`git ls-files`: tracked files and new
// ones git does not ignore) whose cost grows with the repository (875 ms
// in one large clone), so no hot path lists. The listing is taken where a
// walk of the workspace happens anyway (the code index: a server's
// start-up, `engram check`, `engram init`) and kept in the code tier's
// index with the instruction files marked (Index::applyListing); a hot path
// reads the instruction files with one indexed query, and the whole list,
// for judging, once per listing generation. A server also lists again on a
// thread of its own when its copy is a few seconds old and something asked
// for it, and applies what changed when that ends: an instruction file
// created while it serves is seen within moments.
//
// A workspace never listed (a fresh clone before its first check, a store
// whose index was just rebuilt) has its instruction files looked for at
// their well-known places (a fixed number of stats), and a name that only
// the whole list could resolve is counted not judged (no_code_index).
#include "engine/InstructionFiles.h"

#include "engine/Hold.h"
#include "text/Tokenize.h"
#include "util/Fs.h"
#include "util/Git.h"
#include "util/Lines.h"
#include "util/Log.h"
#include "util/Paths.h"
#include "util/Process.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <set>
#include <thread>
#include <unordered_map>

namespace engram {

namespace {

namespace fs = std::filesystem;

constexpr auto kRelistAfter = std::chrono::seconds(2); // a server's copy, at most this old
constexpr size_t kMaxWalkEntries = 200000;             // the walk without git
constexpr size_t kMaxRuleFiles = 256;                  // files under a rules directory
constexpr size_t kMaxParagraphFileBytes = 1 << 20;
constexpr double kParagraphK1 = 1.2, kParagraphB = 0.75; // BM25, as recall

// Every file git would commit: tracked, and new ones not ignored. nullopt
// when git cannot say.
std::optional<std::vector<std::string>> gitFiles(const std::string& root) {
    // The store's own files are not the workspace's: a store of a million
    // claims must not make the listing a million lines longer.
    auto r = runProcess({"git", "-C", root, "ls-files", "-z", "--cached", "--others",
                         "--exclude-standard", "--", ".", ":(exclude).engram"},
                        size_t(64) << 20);
    if (!r || r->exitCode != 0) return std::nullopt;
    std::vector<std::string> out;
    std::replace(r->out.begin(), r->out.end(), '\0', '\n');
    forEachLine(r->out, [&](std::string_view l, int) {
        if (!l.empty()) out.emplace_back(l);
    });
    return out;
}

// The workspace's files without git: a bounded walk that skips what is
// never an instruction file's subject (dependencies, build output).
std::vector<std::string> walkFiles(const std::string& root) {
    std::vector<std::string> out;
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec),
        end;
    size_t seen = 0;
    for (; !ec && it != end && seen < kMaxWalkEntries; it.increment(ec), ++seen) {
        std::string name = it->path().filename().string();
        std::error_code e2;
        if (it->is_directory(e2) && !it->is_symlink(e2)) {
            if (name == ".git" || name == ".engram" || name == "node_modules" || name == "target" ||
                name == "dist" || name == "vendor" || name == "__pycache__" ||
                name.starts_with("build") || it.depth() > 24)
                it.disable_recursion_pending();
            continue;
        }
        if (!it->is_regular_file(e2)) continue;
        if (auto rel = relativeToRoot(root, it->path().string())) out.push_back(*rel);
    }
    return out;
}

std::vector<std::string> sortedUnique(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

// Instruction files at the places their tools read them from the root: a
// fixed number of stats, and the rules directories' own entries.
std::vector<std::string> wellKnownInstructionFiles(const std::string& root) {
    std::vector<std::string> out;
    for (const char* f :
         {"AGENTS.md", "CLAUDE.md", "GEMINI.md", ".cursorrules", ".github/copilot-instructions.md"})
        if (auto st = statFile(root + "/" + f); st) out.emplace_back(f);
    for (const char* d : {".github/instructions", ".cursor/rules"}) {
        std::error_code ec;
        fs::recursive_directory_iterator it(root + "/" + d,
                                            fs::directory_options::skip_permission_denied, ec),
            end;
        for (size_t n = 0; !ec && it != end && n < kMaxRuleFiles; it.increment(ec), ++n) {
            std::error_code e2;
            if (!it->is_regular_file(e2)) continue;
            if (auto rel = relativeToRoot(root, it->path().string());
                rel && instructions::isInstructionFile(*rel))
                out.push_back(*rel);
        }
    }
    return sortedUnique(std::move(out));
}

// How `now` differs from `before` (both sorted, `instructionsBefore` the
// ones marked among them): files added, files gone, and files whose mark
// changed (a store.conf glob added or removed), each new or re-marked one
// marked by whether it is an instruction file now.
ListingChange diff(const std::vector<std::string>& before,
                   const std::vector<std::string>& instructionsBefore,
                   const std::vector<std::string>& now,
                   const std::function<bool(const std::string&)>& instruction) {
    ListingChange c;
    size_t i = 0, j = 0, k = 0;
    while (i < before.size() || j < now.size()) {
        if (j == now.size() || (i < before.size() && before[i] < now[j])) {
            c.removed.push_back(before[i++]);
        } else if (i == before.size() || now[j] < before[i]) {
            c.added.emplace_back(now[j], instruction(now[j]));
            ++j;
        } else {
            while (k < instructionsBefore.size() && instructionsBefore[k] < now[j])
                ++k;
            bool was = k < instructionsBefore.size() && instructionsBefore[k] == now[j];
            if (bool is = instruction(now[j]); is != was) c.added.emplace_back(now[j], is);
            ++i, ++j;
        }
    }
    return c;
}

} // namespace

// A listing taken on a thread of its own (servers), and what it found.
class InstructionFiles::Lister {
public:
    // The listing it compares with is read on its thread too, through a
    // connection of its own (the whole table: a row per file).
    Lister(CodeIndex code, std::string root, std::function<bool(const std::string&)> instruction,
           std::string hold)
        : index(code.index)
        , thread_([this, store = code.index ? code.store : nullptr, root = std::move(root),
                   instruction = std::move(instruction), hold = std::move(hold)] {
            waitWhileHeld(hold, &cancel_);
            std::vector<std::string> before, instructionsBefore;
            try {
                // Opened here, not by the thread that asked: opening reads
                // the file's header and schema, work no request should count.
                if (store) own_ = std::make_unique<Index>(*store);
                if (own_) {
                    auto snapshot = own_->readScope();
                    generation_ = own_->generations().files;
                    before = own_->listedFiles();
                    instructionsBefore = own_->listedInstructionFiles();
                }
            } catch (const std::exception&) {
                generation_ = -1; // not adopted: the next listing tries again
            }
            auto now = listWorkspace(root);
            change_ = diff(before, instructionsBefore, now, instruction);
            done_.store(true, std::memory_order_release);
        }) {}
    ~Lister() { cancel_.store(true); }
    // The index it lists for: adopted only into that very one, if it is
    // still the code tier's.
    const Index* const index;
    bool done() const { return done_.load(std::memory_order_acquire); }
    // Only once done(): the change, and the listing generation it is a
    // change from.
    ListingChange& change() { return change_; }
    int64_t generation() const { return generation_; }

private:
    std::unique_ptr<Index> own_;
    std::atomic<bool> done_{false}, cancel_{false};
    int64_t generation_ = 0;
    ListingChange change_;
    std::jthread thread_; // last: joined before the members it writes go
};

void InstructionFiles::ListerEnd::operator()(Lister* l) const {
    delete l;
}

InstructionFiles::InstructionFiles(Options opts, Anchorer& anchorer, CodeIndexLookup code)
    : opts_(std::move(opts))
    , anchorer_(anchorer)
    , code_(std::move(code)) {}

InstructionFiles::~InstructionFiles() = default;

std::vector<std::string> InstructionFiles::listWorkspace(const std::string& root) {
    std::optional<std::vector<std::string>> files;
    if (findGit(root)) files = gitFiles(root);
    return sortedUnique(files ? std::move(*files) : walkFiles(root));
}

bool InstructionFiles::fileIn(const std::vector<std::string>& globs, const std::string& rel) {
    if (rel.starts_with(".engram/")) return false;
    // Vendored code's instruction files describe other projects, and a
    // template's (`templates/app/AGENTS.md`, `agent_templates/`) the project
    // it will generate.
    for (const char* dir : {"vendor/", "node_modules/", "third_party/", "third-party/"})
        if (rel.starts_with(dir) || rel.find(std::string("/") + dir) != std::string::npos)
            return false;
    auto slash = rel.find_last_of('/');
    if (slash != std::string::npos) {
        std::string dirs = rel.substr(0, slash);
        for (auto& c : dirs)
            if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
        if (dirs.find("template") != std::string::npos) return false;
    }
    if (instructions::isInstructionFile(rel)) return true;
    for (auto& g : globs)
        if (instructions::globMatches(g, rel)) return true;
    return false;
}

std::function<bool(const std::string&)> InstructionFiles::test() const {
    // The project store's configuration, read when the engine was made (no
    // look at its index: this is asked on hot paths).
    return [globs = globs_](const std::string& rel) { return fileIn(globs, rel); };
}

void InstructionFiles::relist() {
    CodeIndex code = code_(true);
    lister_.reset();
    auto now = listWorkspace(opts_.root);
    listedAt_ = std::chrono::steady_clock::now();
    if (!code.index) return;
    code.index->applyListing(
        diff(code.index->listedFiles(), code.index->listedInstructionFiles(), now, test()));
}

void InstructionFiles::adoptListing() {
    if (!lister_ || !lister_->done()) return;
    auto lister = std::move(lister_);
    Index* code = code_(false).index;
    if (!code || code != lister->index) return;
    // The listing was taken against the index as the thread read it:
    // applied only if no other listing was applied since (another process
    // may have listed meanwhile; the next listing settles it).
    if (code->generations().files != lister->generation()) return;
    code->applyListing(lister->change());
}

// Every hot path asks the same of the system whether or not a listing is
// due or just ended: the code tier is looked up once by the caller (a stat
// of its index) and handed down.
void InstructionFiles::maybeRelistInBackground(CodeIndex code, bool now) {
    if (!opts_.listInBackground || lister_) return;
    auto at = std::chrono::steady_clock::now();
    if (!now && at - listedAt_ < kRelistAfter) return;
    listedAt_ = at;
    try {
        lister_.reset(new Lister(code, opts_.root, test(), opts_.hold));
    } catch (const std::exception& e) {
        // No second connection: listed again when next due.
        logDropped("listing the workspace on a thread", e);
    }
}

const std::vector<std::string>& InstructionFiles::files() {
    adoptListing();
    CodeIndex code = code_(false);
    maybeRelistInBackground(code, false);
    int64_t key = code.index ? code.index->generations().files : 0;
    const Index* index = code.index;
    auto now = std::chrono::steady_clock::now();
    // Never listed: the well-known places, looked at again after a moment.
    bool fresh =
        index == keyIndex_ && (key != 0 ? key == key_ : key_ == 0 && now - looked_ < kRelistAfter);
    if (fresh && loaded_) return files_;
    std::vector<std::string> files =
        key ? code.index->listedInstructionFiles() : wellKnownInstructionFiles(opts_.root);
    // A link to another instruction file (CLAUDE.md -> AGENTS.md) is that
    // file: judged once, under its own name.
    std::set<std::string> listed(files.begin(), files.end());
    std::erase_if(files, [&](const std::string& f) {
        std::error_code ec;
        if (!fs::is_symlink(opts_.root + "/" + f, ec)) return false;
        auto target = fs::canonical(opts_.root + "/" + f, ec);
        if (ec) return false;
        auto rel = relativeToRoot(opts_.root, target.string());
        return rel && *rel != f && listed.count(*rel);
    });
    files_ = std::move(files);
    key_ = key;
    keyIndex_ = index;
    loaded_ = true;
    looked_ = now;
    return files_;
}

void InstructionFiles::refreshParagraphs() {
    std::map<std::string, ParagraphFile> kept;
    for (auto& f : files()) {
        auto it = paragraphs_.find(f);
        kept.emplace(f, it == paragraphs_.end() ? ParagraphFile{} : std::move(it->second));
    }
    paragraphs_ = std::move(kept);
    for (auto& [file, pf] : paragraphs_) {
        auto st = statFile(opts_.root + "/" + file);
        const std::string* unsaved = anchorer_.documentText(file);
        if (!unsaved && st && sameFile(st, pf.stat) && !pf.paragraphs.empty()) continue;
        auto body =
            unsaved ? std::optional<std::string>(*unsaved)
                    : readFile(opts_.root + "/" + file, nullptr, {kMaxParagraphFileBytes, true});
        pf = ParagraphFile{};
        if (!body || body->size() > kMaxParagraphFileBytes) continue;
        if (st && !unsaved) pf.stat = *st;
        pf.paragraphs = instructions::splitParagraphs(*body);
        for (auto& p : pf.paragraphs)
            pf.terms.push_back(text::terms(p.heading + "\n" + p.text));
    }
}

std::vector<InstructionHit> InstructionFiles::bestParagraphs(const std::string& query,
                                                             size_t limit) {
    std::vector<InstructionHit> out;
    std::vector<std::string> q = text::terms(query);
    std::sort(q.begin(), q.end());
    q.erase(std::unique(q.begin(), q.end()), q.end());
    if (q.empty() || limit == 0) return out;
    refreshParagraphs();

    // BM25 over every paragraph of every file.
    size_t n = 0;
    double totalLen = 0;
    std::unordered_map<std::string, int> df;
    for (auto& [file, pf] : paragraphs_)
        for (auto& t : pf.terms) {
            ++n;
            totalLen += double(t.size());
            std::set<std::string> seen(t.begin(), t.end());
            for (auto& term : q)
                df[term] += seen.count(term) ? 1 : 0;
        }
    if (n == 0) return out;
    double avg = std::max(1.0, totalLen / double(n));
    // A paragraph must share at least two of the query's terms (one when
    // the query has one): a single common word is not a match.
    size_t need = std::min<size_t>(2, q.size());
    for (auto& [file, pf] : paragraphs_)
        for (size_t i = 0; i < pf.paragraphs.size(); ++i) {
            const auto& terms = pf.terms[i];
            double score = 0;
            size_t matched = 0;
            for (auto& term : q) {
                double tf = double(std::count(terms.begin(), terms.end(), term));
                if (tf == 0) continue;
                ++matched;
                double idf = std::log(1 + (double(n) - df[term] + 0.5) / (df[term] + 0.5));
                score += idf * tf * (kParagraphK1 + 1) /
                         (tf + kParagraphK1 *
                                   (1 - kParagraphB + kParagraphB * double(terms.size()) / avg));
            }
            if (matched < need || score <= 0) continue;
            const auto& p = pf.paragraphs[i];
            InstructionHit h;
            h.file = file;
            h.line = p.line + 1;
            h.endLine = p.endLine + 1;
            h.heading = p.heading;
            h.text = p.text;
            h.score = std::round(score * 10000) / 10000;
            out.push_back(std::move(h));
        }
    std::sort(out.begin(), out.end(), [](const InstructionHit& a, const InstructionHit& b) {
        if (a.score != b.score) return a.score > b.score;
        if (a.file != b.file) return a.file < b.file;
        return a.line < b.line;
    });
    if (out.size() > limit) out.resize(limit);
    return out;
}

} // namespace engram
