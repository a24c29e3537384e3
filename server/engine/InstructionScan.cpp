// One scan of instruction files (InstructionScan.h).
//
// A reference found in an instruction file (instructions/References.h) is
// resolved against the workspace: a path must exist (and hold the line it
// names); a symbol must be defined. A symbol reference is also judged
// against its baseline, the definition as it was when the line was last
// verified, with the anchorer's own rules (intact, drifted, moved,
// orphaned). The baseline is, in this order:
//
// 1. a stamp, written by `engram reverify --file` into
//    `.engram/verified/<file>.stamps` (committed with the store, so every
//    clone reads the same), the anchor the reference had when stamped;
// 2. else the commit that last changed the line (git blame), and the
//    definition as that commit had it (git show). Every clone of the same
//    commit has the same history, so the same verdicts. A line not yet
//    committed was written against the code as it is: it is its own
//    baseline.
//
// Without git and without a stamp there is no baseline: only whether a
// reference resolves is checked. A shallow clone's oldest commit stands for
// everything before it, so lines from before it read as written against it.
#include "engine/InstructionScan.h"

#include "engine/LineHistory.h"
#include "model/NotJudged.h"
#include "store/ClaimFile.h"
#include "syntax/Languages.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Lines.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace engram {

namespace {

namespace fs = std::filesystem;
using instructions::Reference;
using instructions::RefForm;

constexpr size_t kMaxInstructionBytes = 1 << 20; // an instruction file longer is not read
constexpr size_t kMaxModuleFiles = 50;           // files of one module searched for a member
constexpr size_t kMaxTreeSearches = 3;           // `git grep`s of a whole tree per scan
constexpr size_t kMaxTreeSearchesNoIndex = 16;   // the same, with no code index to ask first
constexpr size_t kMaxWordFiles = 64;             // files parsed at one commit for backticked words
constexpr int kMaxNamed = 4096;                  // definitions or files of one name looked at

std::string dirOf(const std::string& rel) {
    auto slash = rel.find_last_of('/');
    return slash == std::string::npos ? "" : rel.substr(0, slash);
}

// `base/rel` normalised; nullopt when it leaves the root.
std::optional<std::string> joinInside(const std::string& base, const std::string& rel) {
    fs::path p = base.empty() ? fs::path(rel) : fs::path(base) / rel;
    std::string n = p.lexically_normal().generic_string();
    while (n.ends_with('/'))
        n.pop_back();
    if (n.empty() || n == "." || n == ".." || n.starts_with("../") || n.starts_with('/'))
        return std::nullopt;
    return n;
}

// The separators a name was written with, to write a new one alike.
std::string renamed(const Reference& r, const std::string& qualified) {
    std::string sep = r.written.find("::") != std::string::npos                             ? "::"
                      : r.written.find('#') != std::string::npos && r.form == RefForm::Name ? "#"
                                                                                            : ".";
    // The new name's parts, as many as were written.
    std::vector<std::string> parts;
    std::string cur;
    for (size_t i = 0; i < qualified.size(); ++i) {
        if (qualified.compare(i, 2, "::") == 0) {
            parts.push_back(cur), cur.clear(), ++i;
        } else if (qualified[i] == '.') {
            parts.push_back(cur), cur.clear();
        } else {
            cur += qualified[i];
        }
    }
    parts.push_back(cur);
    size_t want = size_t(std::count(r.symbol.begin(), r.symbol.end(), '.')) + 1;
    size_t from = parts.size() > want ? parts.size() - want : 0;
    std::string out;
    for (size_t i = from; i < parts.size(); ++i)
        out += (i == from ? "" : sep) + parts[i];
    if (r.written.ends_with("()")) out += "()";
    return out;
}

// Whether `word` is declared in `text` in a way the code index does not
// record: a field, property, constant or enum member (`BOOL = 1`,
// `mcpReq?: Request`, `provider_details: dict`, `Then bool` in a Go
// struct). Calls and comparisons do not count.
bool declaredIn(std::string_view text, std::string_view word) {
    auto ident = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '$';
    };
    for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
        size_t end = at + word.size();
        if ((at > 0 && ident(text[at - 1])) || (end < text.size() && ident(text[end]))) continue;
        size_t next = end;
        while (next < text.size() && (text[next] == ' ' || text[next] == '\t'))
            ++next;
        if (next >= text.size()) continue;
        char c = text[next];
        if (c == '=' && (next + 1 >= text.size() || text[next + 1] != '=')) return true;
        if (c == ':' || c == ',' || c == ';' || c == '?') return true;
        // A Go struct field: first on its line, a type after it.
        size_t lineStart = text.rfind('\n', at);
        lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
        bool first = text.substr(lineStart, at - lineStart).find_first_not_of(" \t") ==
                     std::string_view::npos;
        if (first && next > end && (ident(c) || c == '*' || c == '[')) return true;
    }
    return false;
}

std::vector<std::string> splitLines(const std::string& text) {
    std::vector<std::string> out;
    forEachLine(text, [&](std::string_view line, int) { out.emplace_back(line); });
    return out;
}

std::string lowered(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return out;
}

// Whether a reference is written as an example rather than as a fact: just
// after "e.g." or "for example" on its line, or a placeholder name
// (`foo_tools.go`, `test_EventNameHere.py`).
bool illustrative(std::string_view line, uint32_t column, std::string_view written) {
    std::string before = lowered(line.substr(0, std::min<size_t>(column, line.size())));
    if (before.size() > 40) before.erase(0, before.size() - 40);
    for (const char* cue : {"e.g.", "eg.", "for example", "for instance", "such as"})
        if (before.find(cue) != std::string::npos) return true;
    std::string w = lowered(written);
    for (const char* placeholder : {"foo", "placeholder", "here.", "xxx", "your_", "my_"})
        if (w.find(placeholder) != std::string::npos) return true;
    return false;
}

std::vector<std::string> splitDots(const std::string& s) {
    std::vector<std::string> out(1);
    for (char c : s) {
        if (c == '.')
            out.emplace_back();
        else
            out.back() += c;
    }
    return out;
}

std::string normaliseName(const std::string& q) {
    std::string out;
    for (size_t i = 0; i < q.size(); ++i) {
        if (q.compare(i, 2, "::") == 0) {
            out += '.';
            ++i;
        } else {
            out += q[i];
        }
    }
    return out;
}

// A name no definition has, now or when its line was written: what else
// it may be. Dropped when it is not clearly the repository's (someone
// else's API, a variable, a placeholder); dangling when a module or a
// definition of the repository's lacks the member named.
enum class Otherwise { Drop, Ok, Dangling };

// Definitions now: (path, qualified name).
using Definitions = std::vector<std::pair<std::string, std::string>>;

class Scanner {
public:
    explicit Scanner(const ScanSetup& s)
        : s_(s)
        , anchorer_(*s.anchorer)
        , git_(s.root)
        , asked_(git_, s.code, s.searchHistory, s.root)
        , names_(s.listed ? s.code : nullptr) {
        scan_.history = git_.available();
        scan_.listed = s.listed;
    }
    // The references of one instruction file, its text read already.
    void scanFile(const std::string& file, const std::string& text, bool blameable);
    // What only every file's references together settle: words looked up
    // in history, missing paths git ignores, examples, the order.
    InstructionScan finish();

private:
    struct FileScan {
        const std::string& file;
        std::string dir;
        std::map<std::string, Anchor> stamps;
        bool blameable; // its lines are the committed ones git blames
    };
    struct Pending {
        InstructionRef out;
        std::vector<std::string> missingPaths; // the places tried, for check-ignore
    };
    struct Word {
        InstructionRef out;
        std::string sha; // the commit that last changed its line
    };
    struct Baseline {
        std::optional<Anchor> base;
        bool cutOff = false;         // the baseline stands for history the clone lacks
        bool historyUnknown = false; // a hot path's scan lacks what git would say
        bool budgetSpent = false;    // a search for its past definition was not made
    };

    // The workspace's files and the code index's names, looked up one
    // name at a time in the code tier's index (indexed queries: what a
    // judgement reads grows with its references, not with the repository).
    // Without a listing, what only the whole list could tell is counted not
    // judged, as without a code index.
    std::vector<CodeSymbol> symbolsNamed(const std::string& last) const;
    std::vector<std::string> byBaseName(const std::string& name) const;
    std::vector<std::string> modulesNamed(const std::string& last) const;
    std::vector<std::string> moduleFiles(const std::string& module) const;
    const std::optional<std::string>& textOf(const std::string& rel);
    bool exists(const std::string& rel) const;
    std::string memberIn(const std::vector<std::string>& files, const std::string& name, bool call);
    Otherwise judgeUnindexed(const Reference& r, InstructionRef& ir);
    void judgeAgainst(InstructionRef& ir, const Anchor& base, bool cutOff);

    // One reference, by its form.
    void reference(const FileScan& f, const Reference& r);
    void path(Pending p, const FileScan& f, const std::vector<std::string>& places,
              std::string found);
    bool unmistakablePath(const Reference& r, const std::string& fileDir) const;
    Definitions definitionsNow(const std::string& symbol) const;
    void word(const FileScan& f, InstructionRef ir, const Definitions& now);
    Baseline baselineOf(const FileScan& f, InstructionRef& ir, const Definitions& now,
                        const std::string& found, bool judgedUnindexed);
    std::vector<std::string> pastPlaces(const Reference& r, const Definitions& now,
                                        const std::string& found, bool judgedUnindexed,
                                        const std::string& sha, bool& budgetSpent);
    void resolveNow(InstructionRef ir, const Definitions& now, const std::string& found,
                    std::optional<Otherwise> unindexed, bool budgetSpent);
    void keep(InstructionRef&& ir) { scan_.refs.push_back(std::move(ir)); }
    void judgeWords();
    void judgeMissingPaths();

    const ScanSetup& s_;
    Anchorer& anchorer_;
    History git_;
    Asked asked_; // records into the index when the scan ends
    Index* names_;
    InstructionScan scan_;
    std::map<std::string, std::optional<std::string>> texts_;
    std::vector<std::string> lookedIn_; // Dangling: the files that lack the member
    std::map<std::string, std::vector<std::string>> lineTexts_; // per file, for illustrative()
    size_t treeSearches_ = 0;
    std::vector<Pending> pending_;
    std::vector<Word> words_;
};

// Definitions are looked up wherever there is a code index, listed or not
// (a server's walk can end before its first listing).
std::vector<CodeSymbol> Scanner::symbolsNamed(const std::string& last) const {
    return s_.code ? s_.code->symbolsNamed(last, kMaxNamed) : std::vector<CodeSymbol>{};
}

std::vector<std::string> Scanner::byBaseName(const std::string& name) const {
    return names_ ? names_->filesNamed(name, kMaxNamed) : std::vector<std::string>{};
}

// Modules by their last part: each file's path without its extension, and
// each directory (`agents.testing` -> agents/testing.py).
std::vector<std::string> Scanner::modulesNamed(const std::string& last) const {
    std::vector<std::string> out;
    if (!names_) return out;
    for (auto& f : names_->filesWithStem(last, kMaxNamed)) {
        auto slash = f.find_last_of('/');
        out.push_back((slash == std::string::npos ? "" : f.substr(0, slash + 1)) + last);
    }
    for (auto& d : names_->dirsNamed(last, kMaxNamed))
        out.push_back(std::move(d));
    return out;
}

// The files a module is: a file stem's files, or a directory's own (one
// range of the listing).
std::vector<std::string> Scanner::moduleFiles(const std::string& module) const {
    if (!names_) return {};
    bool dir = names_->isListedDir(module);
    std::string prefix = module + (dir ? "/" : ".");
    return names_->filesUnder(
        prefix,
        [&](const std::string& f) {
            return !dir || f.find('/', prefix.size()) == std::string::npos;
        },
        kMaxModuleFiles);
}

const std::optional<std::string>& Scanner::textOf(const std::string& rel) {
    auto it = texts_.find(rel);
    if (it == texts_.end())
        it =
            texts_
                .emplace(rel, readFile(s_.root + "/" + rel, nullptr, {kMaxAnchoredFileBytes, true}))
                .first;
    return it->second;
}

bool Scanner::exists(const std::string& rel) const {
    return statFile(s_.root + "/" + rel).has_value() || anchorer_.hasDocument(rel);
}

// Where, among `files`, `name` is defined or (not for a call) declared as a
// field: "path#qualified", a file, or "".
std::string Scanner::memberIn(const std::vector<std::string>& files, const std::string& name,
                              bool call) {
    for (auto& sym : symbolsNamed(name))
        if (std::find(files.begin(), files.end(), sym.path) != files.end())
            return sym.path + "#" + sym.qualified;
    if (!call)
        for (auto& f : files)
            if (auto& t = textOf(f); t && declaredIn(*t, name)) return f;
    return std::string();
}

Otherwise Scanner::judgeUnindexed(const Reference& r, InstructionRef& ir) {
    lookedIn_.clear();
    const std::string& symbol = r.symbol;
    auto parts = splitDots(symbol);
    static const std::set<std::string> receivers = {"this", "self", "cls", "super"};
    if (receivers.count(parts[0])) return Otherwise::Drop;
    if (auto where = byBaseName(r.written); !where.empty()) { // `go.mod`
        ir.target = where.front();
        return Otherwise::Ok;
    }
    bool call = r.written.ends_with(")");
    for (size_t k = parts.size(); k >= 1; --k) {
        std::string path;
        for (size_t i = 0; i < k; ++i)
            path += (i ? "/" : "") + parts[i];
        std::string module;
        for (auto& m : modulesNamed(parts[k - 1]))
            if (m == path || m.ends_with("/" + path)) {
                module = m;
                break;
            }
        if (module.empty()) continue;
        if (k == parts.size()) {
            ir.target = module;
            return Otherwise::Ok;
        }
        auto files = moduleFiles(module);
        if (auto found = memberIn(files, parts.back(), call); !found.empty()) {
            ir.target = found;
            return Otherwise::Ok;
        }
        // One name (`test`, `github`, `utils`) is weak evidence that the
        // code is the module's: `test.fails()` is vitest's, `github.event`
        // a workflow expression.
        if (k == 1) return Otherwise::Drop;
        ir.why = "'" + module + "' has no '" + parts.back() + "'";
        lookedIn_ = std::move(files);
        return Otherwise::Dangling;
    }
    bool typeName = parts[0][0] >= 'A' && parts[0][0] <= 'Z';
    auto owners = parts.size() >= 2 ? symbolsNamed(parts[0]) : std::vector<CodeSymbol>{};
    if (owners.empty()) return Otherwise::Drop;
    // A type of the repository's without that member is dangling; a
    // lower-case first part (`env.X`, `request.json`) may as well be a
    // variable or someone else's object.
    std::vector<std::string> files;
    for (auto it = owners.begin(); it != owners.end() && files.size() < kMaxModuleFiles; ++it)
        if (std::find(files.begin(), files.end(), it->path) == files.end())
            files.push_back(it->path);
    if (auto found = memberIn(files, parts.back(), call); !found.empty()) {
        ir.target = found;
        return Otherwise::Ok;
    }
    if (!typeName) return Otherwise::Drop;
    ir.why = "'" + parts[0] + "' (" + files.front() + ") has no '" + parts.back() + "'";
    lookedIn_ = std::move(files);
    return Otherwise::Dangling;
}

// A reference judged against its baseline (what it named when its line was
// last verified or committed), with the anchorer's rules.
void Scanner::judgeAgainst(InstructionRef& ir, const Anchor& base, bool cutOff) {
    auto chk = anchorer_.check(base);
    ir.targetRange = chk.range;
    ir.current = chk.current;
    std::string since = ir.baseline == "stamp"
                            ? "since it was last verified (engram reverify --file)"
                            : "since commit " + ir.baseline.substr(4) + " last changed this line";
    ir.target = base.path + "#" + base.symbol;
    if (chk.state == "intact" && cutOff) {
        // Unchanged since the clone's oldest commit; what happened before
        // it is not in the clone.
        ir.state = "unjudged";
        ir.reason = std::string(not_judged::kShallowHistory);
    } else if (chk.state == "intact") {
        ir.state = "ok";
    } else if (chk.state == "unjudged") {
        ir.state = "unjudged";
        ir.reason = chk.reason;
    } else if (chk.state == "drifted") {
        ir.state = "drifted";
        // Whether its signature changed too says how much of the sentence
        // to re-read: most name an interface.
        bool sameHead = !base.head.empty() && chk.current && chk.current->head == base.head;
        ir.why = base.symbol + " in " + base.path + " changed " + since +
                 (sameHead ? " (its body; the signature is the same)" : " (its signature too)");
    } else if (chk.state == "moved") {
        ir.state = "moved";
        std::string to = chk.current ? chk.current->symbol : chk.movedTo;
        bool otherFile = chk.current && chk.current->path != base.path;
        ir.movedTo = chk.current ? chk.current->path + "#" + to : chk.movedTo;
        ir.why = base.symbol + " in " + base.path + " is now " + ir.movedTo;
        if (ir.ref.form == RefForm::PathSymbol)
            ir.replacement = (otherFile ? chk.current->path : ir.ref.path) + "#" + to;
        else
            ir.replacement = renamed(ir.ref, to);
    } else {
        ir.state = "dangling";
        ir.why = base.symbol + " was removed from " + base.path + " " + since;
        // Renamed and edited at once: where its code most likely went (a
        // hint for the reader, who must re-read the sentence; no fix is
        // offered, as writing the new name would hide that its code changed).
        if (auto next = anchorer_.successor(base))
            ir.why += "; " + next->symbol + " there looks like it renamed and edited";
    }
}

void Scanner::scanFile(const std::string& file, const std::string& text, bool blameable) {
    lineTexts_[file] = splitLines(text);
    auto refs = instructions::extractReferences(text);
    scan_.candidates += refs.size();
    FileScan f{file, dirOf(file), readStamps(stampPath(s_.storeDir, file)), blameable};
    for (auto& r : refs)
        reference(f, r);
}

void Scanner::reference(const FileScan& f, const Reference& r) {
    lookedIn_.clear();
    Pending p;
    InstructionRef& ir = p.out;
    ir.file = f.file;
    ir.ref = r;
    // The places the path may be: a link from the file's directory; a code
    // span from the root, else from the file's directory.
    std::vector<std::string> places;
    if (!r.path.empty()) {
        if (!r.link)
            if (auto j = joinInside("", r.path)) places.push_back(*j);
        if (r.link || !f.dir.empty())
            if (auto j = joinInside(f.dir, r.path)) places.push_back(*j);
        if (places.empty()) return; // leaves the root: not ours to judge
    }
    std::string found;
    for (auto& pl : places)
        if (exists(pl)) {
            found = pl;
            break;
        }
    if (r.form == RefForm::Path || r.form == RefForm::PathLine)
        return path(std::move(p), f, places, found);

    // A symbol: where it is now.
    Definitions now;
    if (r.form == RefForm::PathSymbol) {
        if (found.empty()) {
            ir.state = "dangling";
            ir.why = "no file '" + places.front() + "' in the workspace";
            p.missingPaths = places;
            pending_.push_back(std::move(p));
            return;
        }
        now.emplace_back(found, r.symbol);
    } else {
        now = definitionsNow(r.symbol);
    }
    if (r.form == RefForm::Word) return word(f, std::move(ir), now);

    // A name nothing defines now: a module, a field, a file, or not the
    // repository's at all, decided before history is searched (a `git grep`
    // of the whole tree at a commit, per name). Only a name that would be
    // dangling, or a lone call (`validate()`), is looked for in the line's
    // commit, where a rename shows. Without a code index every name is
    // looked for there.
    std::optional<Otherwise> unindexed;
    if (r.form == RefForm::Name && now.empty() && !f.stamps.count(r.written) && s_.indexed) {
        unindexed = judgeUnindexed(r, ir);
        if (*unindexed == Otherwise::Ok) {
            ir.state = "ok";
            return keep(std::move(ir));
        }
        bool loneCall = r.symbol.find('.') == std::string::npos && r.written.ends_with(")");
        if (*unindexed == Otherwise::Drop && !loneCall) return;
    }

    Baseline b = baselineOf(f, ir, now, found, unindexed.has_value());
    if (b.base) {
        judgeAgainst(ir, *b.base, b.cutOff);
        return keep(std::move(ir));
    }
    if (b.historyUnknown) {
        ir.state = "unjudged";
        ir.reason = std::string(not_judged::kGitNotAsked);
        return keep(std::move(ir));
    }
    resolveNow(std::move(ir), now, found, unindexed, b.budgetSpent);
}

void Scanner::path(Pending p, const FileScan& f, const std::vector<std::string>& places,
                   std::string found) {
    InstructionRef& ir = p.out;
    const Reference& r = ir.ref;
    if (found.empty() && r.form == RefForm::Path && !r.link &&
        r.path.find('/') == std::string::npos) {
        // A file name alone names the file wherever it is.
        auto where = byBaseName(r.path);
        if (!where.empty()) found = where.front();
    }
    if (!found.empty()) {
        ir.target = found;
        ir.state = "ok";
        if (r.form == RefForm::PathLine) {
            auto body = readFile(s_.root + "/" + found, nullptr, {kMaxAnchoredFileBytes, true});
            int64_t lines = 0;
            if (body) {
                lines = std::count(body->begin(), body->end(), '\n');
                if (!body->empty() && body->back() != '\n') ++lines;
            }
            ir.target += ":" + std::to_string(r.line);
            if (body && lines < r.lineEnd) {
                ir.state = "dangling";
                ir.why = found + " has " + std::to_string(lines) + " lines, not " +
                         std::to_string(r.lineEnd);
            }
        }
        return keep(std::move(ir));
    }
    if (!unmistakablePath(r, f.dir)) return;
    // `.test.ts`, `.lock.yml`: a suffix files share, not a file.
    if (auto base = r.path.substr(r.path.find_last_of('/') + 1);
        base.starts_with('.') && base.find('.', 1) != std::string::npos && names_ &&
        names_->namesShareSuffix(base))
        return;
    ir.state = "dangling";
    ir.why = "no file or directory '" + places.front() + "' in the workspace";
    // Where git says it went (a judging scan may ask it), else a file of
    // that name elsewhere is likely where it went.
    std::vector<std::string> where;
    for (auto& place : places)
        if (auto to = anchorer_.renamedTo(place); to && fs::exists(s_.root + "/" + *to)) {
            where = {*to};
            break;
        }
    const bool byGit = !where.empty();
    if (!byGit) where = byBaseName(r.path.substr(r.path.find_last_of('/') + 1));
    if (where.size() == 1 && !r.link) {
        ir.replacement = where.front() + r.written.substr(r.written.find(r.path) + r.path.size());
        ir.why += byGit ? "; git renamed it to " + where.front() : "; " + where.front() + " exists";
    }
    p.missingPaths = places;
    pending_.push_back(std::move(p));
}

// A missing path is dangling when unmistakable: a link, a line, or a plain
// path whose first directory is the repository's (`and/or`, `owner/repo`
// and a package's files are not paths here).
bool Scanner::unmistakablePath(const Reference& r, const std::string& fileDir) const {
    if (r.link || r.form == RefForm::PathLine) return true;
    std::string first = r.path.substr(0, r.path.find('/'));
    bool hasDir = r.path.find('/') != std::string::npos;
    // Without a listing (a hot path never makes one), whether that
    // directory is on disk.
    auto isDir = [&](const std::string& rel) {
        std::error_code ec;
        return fs::is_directory(s_.root + "/" + rel, ec);
    };
    if (hasDir && !s_.listed)
        return isDir(first) || (!fileDir.empty() && isDir(fileDir + "/" + first));
    if (hasDir)
        return isDir(first) || !byBaseName(first).empty() ||
               (!fileDir.empty() && isDir(fileDir + "/" + first));
    return instructions::knownExtension(r.path.substr(r.path.find_last_of('.') + 1));
}

Definitions Scanner::definitionsNow(const std::string& symbol) const {
    std::string last = symbol.substr(symbol.find_last_of('.') + 1);
    auto named = symbolsNamed(last);
    std::set<std::pair<std::string, std::string>> hits;
    for (auto& sym : named) {
        std::string n = normaliseName(sym.qualified);
        if (n == symbol || n.ends_with("." + symbol)) hits.emplace(sym.path, sym.qualified);
    }
    // A module prefix: `auth.TokenValidator` in auth.py.
    for (size_t dot = symbol.find('.'); hits.empty() && dot != std::string::npos;
         dot = symbol.find('.', dot + 1)) {
        std::string module = symbol.substr(0, dot), rest = symbol.substr(dot + 1);
        std::string modulePath = module;
        std::replace(modulePath.begin(), modulePath.end(), '.', '/');
        for (auto& sym : named) {
            std::string n = normaliseName(sym.qualified);
            std::string stem = sym.path.substr(0, sym.path.find_last_of('.'));
            if ((n == rest || n.ends_with("." + rest)) &&
                (stem == modulePath || stem.ends_with("/" + modulePath)))
                hits.emplace(sym.path, sym.qualified);
        }
    }
    return Definitions(hits.begin(), hits.end());
}

// A word is a reference only if its line was written when it named a
// definition that is gone now: looked for once per commit, after every file
// is read (judgeWords).
void Scanner::word(const FileScan& f, InstructionRef ir, const Definitions& now) {
    const Reference& r = ir.ref;
    if (!now.empty() || !s_.indexed || !s_.searchHistory || !git_.available() || !f.blameable ||
        f.stamps.count(r.written) || r.symbol.size() < 3)
        return;
    auto& blame = git_.blame(f.file);
    auto bl = blame.find(int(r.lineIndex) + 1);
    if (bl == blame.end() || bl->second.empty()) return; // not committed yet
    std::string sha = bl->second;
    words_.push_back({std::move(ir), std::move(sha)});
}

// The baseline: a stamp, else the definition when the line was last
// committed.
Scanner::Baseline Scanner::baselineOf(const FileScan& f, InstructionRef& ir, const Definitions& now,
                                      const std::string& found, bool judgedUnindexed) {
    const Reference& r = ir.ref;
    Baseline b;
    if (auto st = f.stamps.find(r.written); st != f.stamps.end()) {
        b.base = st->second;
        ir.baseline = "stamp";
        return b;
    }
    if (!git_.available() || !f.blameable) return b;
    const auto& lines = lineTexts_[f.file];
    auto sha = asked_.lineCommit(f.file, int(r.lineIndex) + 1,
                                 r.lineIndex < lines.size() ? lines[r.lineIndex] : std::string());
    if (!sha) b.historyUnknown = true;
    if (!sha || sha->empty()) return b;
    auto paths = pastPlaces(r, now, found, judgedUnindexed, *sha, b.budgetSpent);
    if (paths.empty()) return b;
    auto then = asked_.baseline(*sha, r.symbol, paths);
    if (!then) {
        b.historyUnknown = true;
    } else if (*then) {
        b.base = **then;
        ir.baseline = "git " + sha->substr(0, 12);
        b.cutOff = asked_.cutOff(*sha);
    }
    return b;
}

// The files its definition may have been in at `sha`: where it is now; for
// a name nothing defines, the files of the type or module that now lacks
// the member, or for a lone call the files that mentioned it (a search of
// the whole tree, so only a few per scan).
std::vector<std::string> Scanner::pastPlaces(const Reference& r, const Definitions& now,
                                             const std::string& found, bool judgedUnindexed,
                                             const std::string& sha, bool& budgetSpent) {
    std::vector<std::string> paths;
    for (auto& [path, q] : now)
        paths.push_back(path);
    if (r.form == RefForm::PathSymbol) {
        paths = {found};
    } else if (paths.empty() && (judgedUnindexed || !s_.indexed)) {
        if (!lookedIn_.empty())
            paths = lookedIn_;
        else if (s_.searchHistory &&
                 treeSearches_ < (s_.indexed ? kMaxTreeSearches : kMaxTreeSearchesNoIndex)) {
            ++treeSearches_;
            paths = git_.mentioning(sha, r.symbol.substr(r.symbol.find_last_of('.') + 1));
        } else if (s_.searchHistory) {
            budgetSpent = true;
        }
    }
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    return paths;
}

// No baseline: only whether it resolves now.
void Scanner::resolveNow(InstructionRef ir, const Definitions& now, const std::string& found,
                         std::optional<Otherwise> unindexed, bool budgetSpent) {
    const Reference& r = ir.ref;
    if (r.form == RefForm::PathSymbol) {
        try {
            Anchor a = anchorer_.resolve(AnchorSpec{found, r.symbol}, "reference");
            ir.state = "ok";
            ir.current = a;
            ir.target = a.path + "#" + a.symbol;
            if (auto chk = anchorer_.check(a); chk.range) ir.targetRange = chk.range;
        } catch (const EngramError& e) {
            bool ambiguous = std::string(e.what()).find("is ambiguous") != std::string::npos;
            ir.state = ambiguous ? "ambiguous" : "dangling";
            ir.why = ambiguous ? "'" + r.symbol + "' names several definitions in " + found
                               : "no definition '" + r.symbol + "' in " + found;
        }
        return keep(std::move(ir));
    }
    if (now.size() == 1) {
        try {
            Anchor a = anchorer_.resolve(AnchorSpec{now[0].first, now[0].second}, "reference");
            ir.current = a;
            if (auto chk = anchorer_.check(a); chk.range) ir.targetRange = chk.range;
        } catch (const EngramError&) {
            // Twins in one file: named, but not one definition.
        }
        ir.state = "ok";
        ir.target = now[0].first + "#" + now[0].second;
        return keep(std::move(ir));
    }
    if (now.size() > 1) {
        ir.state = "ambiguous";
        ir.reason = std::string(not_judged::kAmbiguousName);
        ir.target = std::to_string(now.size()) + " definitions";
        return keep(std::move(ir));
    }
    switch (unindexed ? *unindexed : judgeUnindexed(r, ir)) {
    case Otherwise::Drop:
        // Not the repository's as far as engram can tell; but without the
        // code index, or without the search, it cannot tell.
        if (s_.indexed && !budgetSpent) return;
        ir.state = "unjudged";
        ir.reason = std::string(!s_.indexed ? not_judged::kNoCodeIndex : not_judged::kSearchBudget);
        break;
    case Otherwise::Ok:
        ir.state = "ok";
        break;
    case Otherwise::Dangling:
        ir.state = "dangling";
        ir.why = "no definition '" + r.symbol + "' in the workspace's code: " + ir.why;
        break;
    }
    keep(std::move(ir));
}

// Words whose line was written when they named a definition: per commit,
// one search of its tree for all of them, among the source files that
// changed since (only there can a definition it had be gone).
void Scanner::judgeWords() {
    std::map<std::string, std::vector<Word*>> wordsAt;
    for (auto& w : words_)
        wordsAt[w.sha].push_back(&w);
    for (auto& [sha, ws] : wordsAt) {
        const auto& changed = git_.changedSince(sha);
        if (!changed || changed->empty()) continue;
        std::set<std::string> names;
        for (auto* w : ws)
            names.insert(w->out.ref.symbol);
        std::map<std::string, std::vector<Anchor>> defined; // name -> definitions then
        size_t parsedFiles = 0;
        bool cut = false;
        for (auto& path : git_.mentioningAny(sha, names, *changed)) {
            if (parsedFiles++ == kMaxWordFiles) {
                cut = true;
                break;
            }
            const auto* parsed = git_.at(sha, path);
            if (!parsed) continue;
            for (auto& name : names)
                for (size_t i : syntax::resolveSymbol(parsed->symbols, name))
                    defined[name].push_back(
                        symbolAnchor(path, parsed->language, parsed->symbols[i]));
        }
        for (auto* w : ws) {
            auto it = defined.find(w->out.ref.symbol);
            if (it == defined.end() && cut) {
                w->out.state = "unjudged";
                w->out.reason = std::string(not_judged::kSearchBudget);
                keep(std::move(w->out));
                continue;
            }
            // Nothing, or several definitions of that name: nothing says
            // the word was meant as one of them.
            if (it == defined.end() || it->second.size() != 1) continue;
            w->out.baseline = "git " + sha.substr(0, 12);
            judgeAgainst(w->out, it->second.front(), git_.cutOff(sha));
            if (w->out.state == "moved" || w->out.state == "dangling") keep(std::move(w->out));
        }
    }
}

// Missing paths git ignores are local files (`.env.local`, build output),
// not dangling references.
void Scanner::judgeMissingPaths() {
    std::vector<std::string> ask;
    for (auto& p : pending_)
        for (auto& m : p.missingPaths)
            ask.push_back(m);
    std::set<std::string> unknown;
    auto ignored = asked_.ignored(ask, unknown);
    for (auto& p : pending_) {
        auto any = [&](const std::set<std::string>& in) {
            return std::any_of(p.missingPaths.begin(), p.missingPaths.end(),
                               [&](const std::string& m) { return in.count(m) > 0; });
        };
        if (any(ignored)) continue;
        if (any(unknown)) {
            p.out.state = "unjudged";
            p.out.reason = std::string(not_judged::kGitNotAsked);
            p.out.why.clear();
            p.out.replacement.clear();
        }
        keep(std::move(p.out));
    }
}

InstructionScan Scanner::finish() {
    judgeWords();
    judgeMissingPaths();
    // A name that does not exist because it is an example of one (`e.g.
    // foo_tools.go`) is not a broken reference.
    std::erase_if(scan_.refs, [&](const InstructionRef& r) {
        if (r.state != "dangling") return false;
        auto& lines = lineTexts_[r.file];
        std::string_view line =
            r.ref.lineIndex < lines.size() ? std::string_view(lines[r.ref.lineIndex]) : "";
        return illustrative(line, r.ref.startColumn, r.ref.written);
    });
    std::stable_sort(scan_.refs.begin(), scan_.refs.end(),
                     [](const InstructionRef& a, const InstructionRef& b) {
                         return std::tie(a.file, a.ref.lineIndex, a.ref.startColumn) <
                                std::tie(b.file, b.ref.lineIndex, b.ref.startColumn);
                     });
    for (auto& r : scan_.refs)
        if (!r.reason.empty()) scan_.notJudged.add(r.reason);
    return std::move(scan_);
}

} // namespace

std::string stampPath(const std::string& storeDir, const std::string& file) {
    return storeDir + "/verified/" + file + ".stamps";
}

std::map<std::string, Anchor> readStamps(const std::string& path) {
    std::map<std::string, Anchor> out;
    auto text = readFile(path, nullptr, {kMaxInstructionBytes, false});
    if (!text) return out;
    forEachLine(*text, [&](std::string_view l, int) {
        auto tab = l.find('\t');
        if (l.empty() || l[0] == '#' || tab == std::string_view::npos) return;
        try {
            out[std::string(l.substr(0, tab))] = parseAnchor(l.substr(tab + 1));
        } catch (const ClaimFileError&) {
            // A line that does not parse is no stamp: the reference falls
            // back to git, as if never stamped.
        }
    });
    return out;
}

InstructionScan
scanInstructionFiles(const ScanSetup& setup, const std::vector<std::string>& files,
                     const std::function<const std::string*(const std::string&)>& unsaved) {
    Scanner scanner(setup);
    for (auto& file : files) {
        // The editor's unsaved text when it holds the file open. Its lines
        // no longer match the committed ones git blames, so such a buffer
        // is judged against its stamps only until it is saved.
        std::optional<std::string> content =
            readFile(setup.root + "/" + file, nullptr, {kMaxInstructionBytes, true});
        const std::string* buffer = unsaved(file);
        bool blameable = !buffer || (content && *buffer == *content);
        if (buffer) content = *buffer;
        if (!content) continue;
        scanner.scanFile(file, *content, blameable);
    }
    InstructionScan scan = scanner.finish();
    scan.files = files;
    return scan;
}

} // namespace engram
