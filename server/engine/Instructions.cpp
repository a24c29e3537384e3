// Instruction files checked against the code (ARCHITECTURE.md, "Instruction files").
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
#include "engine/Checks.h"
#include "engine/Engine.h"
#include "engine/Tier.h"
#include "instructions/References.h"
#include "model/NotJudged.h"
#include "store/ClaimFile.h"
#include "syntax/Languages.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Git.h"
#include "util/Lines.h"
#include "util/Paths.h"
#include "util/Process.h"
#include "util/Time.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace engram {

namespace {

namespace fs = std::filesystem;
using instructions::Reference;
using instructions::RefForm;

constexpr size_t kMaxInstructionBytes = 1 << 20; // an instruction file longer is not read
constexpr size_t kMaxGrepFiles = 20;             // files at a commit searched for a name
constexpr size_t kMaxModuleFiles = 50;           // files of one module searched for a member
constexpr size_t kMaxTreeSearches = 3;           // `git grep`s of a whole tree per scan
constexpr size_t kMaxTreeSearchesNoIndex = 16;   // the same, with no code index to ask first
constexpr size_t kMaxWordFiles = 64;             // files parsed at one commit for backticked words

std::string stampPath(const std::string& storeDir, const std::string& file) {
    return storeDir + "/verified/" + file + ".stamps";
}

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

// What git knows about the workspace, asked once per scan.
class History {
public:
    explicit History(std::string root)
        : root_(std::move(root))
        , objects_(root_) {
        auto dirs = findGit(root_);
        available_ = dirs.has_value();
        // A shallow clone lists its cut-off commits here.
        shallow_ = dirs && statFile(dirs->commonDir + "/shallow").has_value();
    }
    bool available() const { return available_; }
    // Whether a commit blame named stands for history this clone lacks: the
    // oldest commit of a shallow clone takes the blame for every line older
    // than itself.
    bool cutOff(const std::string& sha) const { return shallow_ && boundaries_.count(sha) > 0; }

    // The commit that last changed each line (1-based) of a committed
    // file; a line not committed yet maps to "".
    const std::map<int, std::string>& blame(const std::string& file) {
        auto it = blames_.find(file);
        if (it != blames_.end()) return it->second;
        auto& out = blames_[file];
        if (!available_) return out;
        auto r =
            runProcess({"git", "-C", root_, "blame", "--porcelain", "--", file}, size_t(64) << 20);
        if (!r || r->exitCode != 0) return out;
        // Each line of the file has a header "<sha> <old line> <line>[ <n>]";
        // the first one of a commit is followed by its details, "boundary"
        // among them when history stops there.
        std::string current;
        forEachLine(r->out, [&](std::string_view l, int) {
            if (l == "boundary") boundaries_.insert(current);
            if (l.size() < 42 || l[40] != ' ') return;
            std::string sha(l.substr(0, 40));
            if (!isHexId(sha)) return;
            current = sha;
            auto fields = splitFields(l.substr(41), ' ');
            int line = fields.size() >= 2 ? std::atoi(fields[1].c_str()) : 0;
            if (line > 0) out[line] = sha.find_first_not_of('0') == std::string::npos ? "" : sha;
        });
        return out;
    }

    // A file as a commit had it, parsed; nullptr when it had none.
    struct Parsed {
        std::string language;
        std::vector<syntax::Symbol> symbols;
    };
    const Parsed* at(const std::string& sha, const std::string& rel) {
        std::string key = sha + ":" + rel;
        auto it = parsed_.find(key);
        if (it != parsed_.end()) return it->second ? &*it->second : nullptr;
        auto& slot = parsed_[key];
        // One cat-file process for every file a scan reads at a commit.
        auto text = objects_.blob(sha + ":./" + rel, kMaxAnchoredFileBytes);
        if (!text) return nullptr;
        auto lang = syntax::languageFor(rel, *text);
        if (!lang) return nullptr;
        Parsed p;
        p.language = *lang;
        try {
            p.symbols = syntax::extractSymbols(*lang, *text);
        } catch (const std::exception&) {
            return nullptr;
        }
        slot = std::move(p);
        return &*slot;
    }

    // Source files that differ between a commit and the work tree: only in
    // those can a definition the commit had be gone now. nullopt when git
    // cannot say.
    const std::optional<std::set<std::string>>& changedSince(const std::string& sha) {
        auto [it, fresh] = changed_.try_emplace(sha);
        if (!fresh || !available_) return it->second;
        auto r = runProcess(
            {"git", "-C", root_, "diff", "--name-only", "-z", "--no-renames", sha, "--", "."},
            size_t(64) << 20);
        if (!r || r->exitCode != 0) return it->second;
        std::set<std::string> out;
        std::replace(r->out.begin(), r->out.end(), '\0', '\n');
        forEachLine(r->out, [&](std::string_view l, int) {
            if (!l.empty() && syntax::languageForPath(l)) out.emplace(l);
        });
        it->second = std::move(out);
        return it->second;
    }

    // Of `files`, those that mention any of `words` (whole words) at a
    // commit: one search of the commit's tree for every word.
    std::set<std::string> mentioningAny(const std::string& sha, const std::set<std::string>& words,
                                        const std::set<std::string>& files) {
        std::set<std::string> out;
        if (!available_ || words.empty() || files.empty()) return out;
        std::vector<std::string> args{"git", "-C", root_, "grep", "-l", "-w", "-F", "-I"};
        for (auto& w : words) {
            args.push_back("-e");
            args.push_back(w);
        }
        args.push_back(sha);
        args.push_back("--");
        args.push_back(".");
        auto r = runProcess(args, size_t(16) << 20);
        if (!r || r->exitCode != 0) return out;
        std::string prefix = sha + ":";
        forEachLine(r->out, [&](std::string_view l, int) {
            if (l.starts_with(prefix)) l.remove_prefix(prefix.size());
            if (files.count(std::string(l))) out.emplace(l);
        });
        return out;
    }

    // Files a commit had that mention `word` (a whole word), at most a few.
    std::vector<std::string> mentioning(const std::string& sha, const std::string& word) {
        auto [it, fresh] = mentioning_.try_emplace(sha + "\n" + word);
        if (fresh) it->second = grep(sha, word);
        return it->second;
    }

private:
    std::vector<std::string> grep(const std::string& sha, const std::string& word) {
        auto r = runProcess(
            {"git", "-C", root_, "grep", "-l", "-w", "-F", "-I", "-e", word, sha, "--", "."},
            size_t(1) << 20);
        std::vector<std::string> out;
        if (!r || r->exitCode != 0) return out;
        std::string prefix = sha + ":";
        forEachLine(r->out, [&](std::string_view l, int) {
            if (l.starts_with(prefix)) l.remove_prefix(prefix.size());
            if (out.size() < kMaxGrepFiles && syntax::languageForPath(l)) out.emplace_back(l);
        });
        return out;
    }
    std::unordered_map<std::string, std::vector<std::string>> mentioning_;
    std::unordered_map<std::string, std::optional<std::set<std::string>>> changed_;

public:
    // Of these workspace-relative paths, those git ignores.
    std::set<std::string> ignored(const std::vector<std::string>& paths) {
        std::set<std::string> out;
        if (!available_ || paths.empty()) return out;
        for (size_t from = 0; from < paths.size(); from += 200) {
            std::vector<std::string> args{"git", "-C", root_, "check-ignore", "--no-index", "--"};
            for (size_t i = from; i < paths.size() && i < from + 200; ++i)
                args.push_back(paths[i]);
            auto r = runProcess(args, size_t(1) << 20);
            if (!r) return out;
            forEachLine(r->out, [&](std::string_view l, int) {
                if (!l.empty()) out.emplace(l);
            });
        }
        return out;
    }

private:
    std::string root_;
    GitObjectReader objects_;
    bool available_ = false;
    bool shallow_ = false;
    std::unordered_set<std::string> boundaries_;
    std::unordered_map<std::string, std::map<int, std::string>> blames_;
    std::unordered_map<std::string, std::optional<Parsed>> parsed_;
};

// What a scan asks of git about its lines, through the index. A judging
// scan (check, status, an open document; `live`) asks git and records each
// answer in the code tier's index (Index::historyFact); a hot path's scan
// (recall, packets, the hook) reads only those records and starts no
// process: what was never recorded is unknown, and a reference that needed
// it is counted not judged (git_not_asked) until a judging scan asks.
// The commit a line was last changed in is keyed by the line's text (a line
// rewritten gets a new key); whether git ignores a path, by the stat of the
// ignore files at the root.
class Asked {
public:
    Asked(History& git, Index* facts, bool live, const std::string& root)
        : git_(git)
        , facts_(facts)
        , live_(live) {
        for (const char* f : {"/.gitignore", "/.git/info/exclude"})
            if (auto st = statFile(root + f))
                ignoreStamp_ += std::to_string(st->mtimeNs) + ":" + std::to_string(st->size) + ";";
    }
    ~Asked() {
        if (!facts_ || recorded_.empty()) return;
        try {
            facts_->putHistoryFacts(recorded_);
        } catch (const std::exception&) {
            // A record is a shortcut for later, never the answer: a full
            // disk costs the next hot path a not-judged count, nothing more.
        }
    }
    bool live() const { return live_; }

    // The commit that last changed line `line` (1-based) of `file`, whose
    // text is `text`: "" when it is not committed yet; nullopt: unknown.
    std::optional<std::string> lineCommit(const std::string& file, int line,
                                          const std::string& text) {
        std::string key = "L\t" + file + "\t" + text;
        if (!live_) return fact(key);
        auto& blame = git_.blame(file);
        auto it = blame.find(line);
        std::string sha = it == blame.end() ? "" : it->second;
        record(key, sha);
        if (!sha.empty()) record("C\t" + sha, git_.cutOff(sha) ? "1" : "0");
        return sha;
    }
    bool cutOff(const std::string& sha) {
        if (live_) return git_.cutOff(sha);
        return fact("C\t" + sha).value_or("0") == "1";
    }
    // The one definition `symbol` named at `sha` in one of `paths`; none
    // when it named none or several; nullopt: unknown.
    std::optional<std::optional<Anchor>> baseline(const std::string& sha, const std::string& symbol,
                                                  const std::vector<std::string>& paths) {
        std::string key = "B\t" + sha + "\t" + symbol;
        for (auto& p : paths)
            key += "\t" + p;
        if (!live_) {
            auto v = fact(key);
            if (!v) return std::nullopt;
            if (v->empty()) return std::optional<Anchor>();
            try {
                return std::optional<Anchor>(parseAnchor(*v));
            } catch (const ClaimFileError&) {
                return std::nullopt;
            }
        }
        std::vector<Anchor> then;
        for (auto& path : paths) {
            const auto* parsed = git_.at(sha, path);
            if (!parsed) continue;
            for (size_t i : syntax::resolveSymbol(parsed->symbols, symbol))
                then.push_back(symbolAnchor(path, parsed->language, parsed->symbols[i]));
        }
        std::optional<Anchor> one;
        if (then.size() == 1) one = then.front();
        record(key, one ? formatAnchor(*one) : "");
        return one;
    }
    // Of these paths, those git ignores; `unknown` gets those no judging
    // scan asked about under the ignore files as they are.
    std::set<std::string> ignored(const std::vector<std::string>& paths,
                                  std::set<std::string>& unknown) {
        std::set<std::string> out;
        std::vector<std::string> ask;
        for (auto& p : paths) {
            auto v = fact("I\t" + ignoreStamp_ + "\t" + p);
            if (v) {
                if (*v == "1") out.insert(p);
            } else if (live_) {
                ask.push_back(p);
            } else {
                unknown.insert(p);
            }
        }
        auto found = git_.ignored(ask);
        for (auto& p : ask) {
            bool is = found.count(p) > 0;
            if (is) out.insert(p);
            record("I\t" + ignoreStamp_ + "\t" + p, is ? "1" : "0");
        }
        return out;
    }

private:
    std::optional<std::string> fact(const std::string& key) {
        if (auto it = pending_.find(key); it != pending_.end()) return it->second;
        if (!facts_) return std::nullopt;
        return facts_->historyFact(key);
    }
    void record(const std::string& key, const std::string& value) {
        if (!pending_.emplace(key, value).second) return;
        recorded_.emplace_back(key, value);
    }
    History& git_;
    Index* facts_;
    bool live_;
    std::string ignoreStamp_;
    std::unordered_map<std::string, std::string> pending_;
    std::vector<std::pair<std::string, std::string>> recorded_;
};

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

} // namespace

InstructionScan Engine::scanInstructions(const std::optional<std::string>& onlyFile,
                                         const std::string* text, bool searchHistory) {
    InstructionScan scan;
    History git(opts_.root);
    // Judging (check, status, findings) builds or refreshes the code index,
    // and with it the listing of the workspace's files; recall and the hook
    // read them as they are, never walking the workspace on their path.
    if (searchHistory) {
        awaitCodeWalk();
        if (Tier* code = codeTier(); code && codeIndexedIn_ != code->index.get()) indexCode();
    }
    std::vector<std::string> files = instructionFiles();
    if (onlyFile) {
        files.clear();
        files.push_back(*onlyFile);
    }
    scan.files = files;
    scan.history = git.available();
    Tier* project = tier("project");
    const std::string storeDir = project ? project->store->dir() : opts_.root + "/.engram";

    // The workspace's files and the code index's names, looked up one
    // name at a time in the code tier's index (indexed queries: what a
    // judgement reads grows with its references, not with the repository).
    // Without a listing, what only the whole list could tell is counted not
    // judged, as without a code index.
    Tier* code = codeTier(false);
    Asked asked(git, code ? code->index.get() : nullptr, searchHistory, opts_.root);
    const bool listed = code && code->index->generations().files != 0;
    Index* names = listed ? code->index.get() : nullptr;
    scan.listed = listed;
    // Nothing indexed, by this process or an earlier one, or no listing of
    // the files: no index to look names up in.
    const bool indexed =
        names && (codeIndexedIn_ == code->index.get() || code->index->anyCodeSymbols());
    constexpr int kMaxNamed = 4096; // definitions or files of one name looked at
    // Definitions are looked up wherever there is a code index, listed or
    // not (a server's walk can end before its first listing).
    auto symbolsNamed = [&](const std::string& last) {
        return code ? code->index->symbolsNamed(last, kMaxNamed) : std::vector<CodeSymbol>{};
    };
    auto byBaseName = [&](const std::string& name) {
        return names ? names->filesNamed(name, kMaxNamed) : std::vector<std::string>{};
    };
    auto isDir = [&](const std::string& path) { return names && names->isListedDir(path); };
    // Modules by their last part: each file's path without its extension,
    // and each directory (`agents.testing` -> agents/testing.py).
    auto modulesNamed = [&](const std::string& last) {
        std::vector<std::string> out;
        if (!names) return out;
        for (auto& f : names->filesWithStem(last, kMaxNamed)) {
            auto slash = f.find_last_of('/');
            out.push_back((slash == std::string::npos ? "" : f.substr(0, slash + 1)) + last);
        }
        for (auto& d : names->dirsNamed(last, kMaxNamed))
            out.push_back(std::move(d));
        return out;
    };
    // The files a module is: a file stem's files, or a directory's own (one
    // range of the listing).
    auto moduleFiles = [&](const std::string& module) {
        if (!names) return std::vector<std::string>{};
        bool dir = isDir(module);
        std::string prefix = module + (dir ? "/" : ".");
        return names->filesUnder(
            prefix,
            [&](const std::string& f) {
                return !dir || f.find('/', prefix.size()) == std::string::npos;
            },
            kMaxModuleFiles);
    };
    std::map<std::string, std::optional<std::string>> texts;
    auto textOf = [&](const std::string& rel) -> const std::optional<std::string>& {
        auto it = texts.find(rel);
        if (it == texts.end())
            it = texts
                     .emplace(rel, readFile(opts_.root + "/" + rel, nullptr,
                                            {kMaxAnchoredFileBytes, true}))
                     .first;
        return it->second;
    };
    // A name no definition has, now or when its line was written: what else
    // it may be. Dropped when it is not clearly the repository's (someone
    // else's API, a variable, a placeholder); dangling when a module or a
    // definition of the repository's lacks the member named.
    enum class Otherwise { Drop, Ok, Dangling };
    std::vector<std::string> lookedIn; // Dangling: the files that lack the member
    auto judgeUnindexed = [&](const Reference& r, InstructionRef& ir) {
        lookedIn.clear();
        const std::string& symbol = r.symbol;
        auto parts = splitDots(symbol);
        static const std::set<std::string> receivers = {"this", "self", "cls", "super"};
        if (receivers.count(parts[0])) return Otherwise::Drop;
        if (auto where = byBaseName(r.written); !where.empty()) { // `go.mod`
            ir.target = where.front();
            return Otherwise::Ok;
        }
        bool call = r.written.ends_with(")");
        auto member = [&](const std::vector<std::string>& files, const std::string& name) {
            for (auto& sym : symbolsNamed(name))
                if (std::find(files.begin(), files.end(), sym.path) != files.end())
                    return sym.path + "#" + sym.qualified;
            if (!call)
                for (auto& f : files)
                    if (auto& t = textOf(f); t && declaredIn(*t, name)) return f;
            return std::string();
        };
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
            if (auto found = member(files, parts.back()); !found.empty()) {
                ir.target = found;
                return Otherwise::Ok;
            }
            // One name (`test`, `github`, `utils`) is weak evidence that the
            // code is the module's: `test.fails()` is vitest's, `github.event`
            // a workflow expression.
            if (k == 1) return Otherwise::Drop;
            ir.why = "'" + module + "' has no '" + parts.back() + "'";
            lookedIn = std::move(files);
            return Otherwise::Dangling;
        }
        bool typeName = parts[0][0] >= 'A' && parts[0][0] <= 'Z';
        auto owners = parts.size() >= 2 ? symbolsNamed(parts[0]) : std::vector<CodeSymbol>{};
        if (!owners.empty()) {
            // A type of the repository's without that member is dangling; a
            // lower-case first part (`env.X`, `request.json`) may as well be
            // a variable or someone else's object.
            std::vector<std::string> files;
            for (auto it = owners.begin(); it != owners.end() && files.size() < kMaxModuleFiles;
                 ++it)
                if (std::find(files.begin(), files.end(), it->path) == files.end())
                    files.push_back(it->path);
            if (auto found = member(files, parts.back()); !found.empty()) {
                ir.target = found;
                return Otherwise::Ok;
            }
            if (!typeName) return Otherwise::Drop;
            ir.why = "'" + parts[0] + "' (" + files.front() + ") has no '" + parts.back() + "'";
            lookedIn = std::move(files);
            return Otherwise::Dangling;
        }
        return Otherwise::Drop;
    };
    auto exists = [&](const std::string& rel) {
        return statFile(opts_.root + "/" + rel).has_value() || anchorer_.hasDocument(rel);
    };

    // A reference judged against its baseline (what it named when its line
    // was last verified or committed), with the anchorer's rules.
    auto judgeAgainst = [&](InstructionRef& ir, const Anchor& base, bool cutOff) {
        auto chk = anchorer_.check(base);
        ir.targetRange = chk.range;
        ir.current = chk.current;
        std::string since =
            ir.baseline == "stamp"
                ? "since it was last verified (engram reverify --file)"
                : "since commit " + ir.baseline.substr(4) + " last changed this line";
        ir.target = base.path + "#" + base.symbol;
        if (chk.state == "intact" && cutOff) {
            // Unchanged since the clone's oldest commit; what
            // happened before it is not in the clone.
            ir.state = "unjudged";
            ir.reason = std::string(not_judged::kShallowHistory);
        } else if (chk.state == "intact") {
            ir.state = "ok";
        } else if (chk.state == "unjudged") {
            ir.state = "unjudged";
            ir.reason = chk.reason;
        } else if (chk.state == "drifted") {
            ir.state = "drifted";
            // Whether its signature changed too says how much of the
            // sentence to re-read: most name an interface.
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
        }
    };

    std::map<std::string, std::vector<std::string>> lineTexts; // per file, for illustrative()
    size_t treeSearches = 0;

    struct Pending {
        InstructionRef out;
        std::vector<std::string> missingPaths; // the places tried, for check-ignore
    };
    std::vector<Pending> pending;
    struct Word {
        InstructionRef out;
        std::string sha; // the commit that last changed its line
    };
    std::vector<Word> words;

    for (auto& file : files) {
        // The editor's unsaved text when it holds the file open. Its lines
        // no longer match the committed ones git blames, so such a buffer
        // is judged against its stamps only until it is saved.
        std::optional<std::string> content =
            readFile(opts_.root + "/" + file, nullptr, {kMaxInstructionBytes, true});
        const std::string* unsaved =
            text && onlyFile && file == *onlyFile ? text : anchorer_.documentText(file);
        bool blameable = !unsaved || (content && *unsaved == *content);
        if (unsaved) content = *unsaved;
        if (!content) continue;
        lineTexts[file] = splitLines(*content);
        auto refs = instructions::extractReferences(*content);
        scan.candidates += refs.size();
        auto stamps = readStamps(stampPath(storeDir, file));
        const std::string fileDir = dirOf(file);
        for (auto& r : refs) {
            Pending p;
            InstructionRef& ir = p.out;
            ir.file = file;
            ir.ref = r;
            // The places the path may be: a link from the file's directory;
            // a code span from the root, else from the file's directory.
            std::vector<std::string> places;
            if (!r.path.empty()) {
                if (!r.link)
                    if (auto j = joinInside("", r.path)) places.push_back(*j);
                if (r.link || !fileDir.empty())
                    if (auto j = joinInside(fileDir, r.path)) places.push_back(*j);
                if (places.empty()) continue; // leaves the root: not ours to judge
            }
            std::string found;
            for (auto& pl : places)
                if (exists(pl)) {
                    found = pl;
                    break;
                }

            if (r.form == RefForm::Path || r.form == RefForm::PathLine) {
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
                        auto body = readFile(opts_.root + "/" + found, nullptr,
                                             {kMaxAnchoredFileBytes, true});
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
                    scan.refs.push_back(std::move(ir));
                    continue;
                }
                // Missing. Unmistakable forms are dangling; a plain path only
                // where its first directory is the repository's (`and/or`,
                // `owner/repo` and a package's files are not paths here).
                bool unmistakable = r.link || r.form == RefForm::PathLine;
                if (!unmistakable) {
                    std::string first = r.path.substr(0, r.path.find('/'));
                    bool hasDir = r.path.find('/') != std::string::npos;
                    // Without a listing (a hot path never makes one),
                    // whether that directory is on disk.
                    auto isDir = [&](const std::string& rel) {
                        std::error_code ec;
                        return fs::is_directory(opts_.root + "/" + rel, ec);
                    };
                    if (hasDir && !listed)
                        unmistakable =
                            isDir(first) || (!fileDir.empty() && isDir(fileDir + "/" + first));
                    else if (hasDir)
                        unmistakable = isDir(first) || !byBaseName(first).empty() ||
                                       (!fileDir.empty() && isDir(fileDir + "/" + first));
                    else
                        unmistakable = instructions::knownExtension(
                            r.path.substr(r.path.find_last_of('.') + 1));
                }
                if (!unmistakable) continue;
                // `.test.ts`, `.lock.yml`: a suffix files share, not a file.
                if (auto base = r.path.substr(r.path.find_last_of('/') + 1);
                    base.starts_with('.') && base.find('.', 1) != std::string::npos && names &&
                    names->namesShareSuffix(base))
                    continue;
                ir.state = "dangling";
                ir.why = "no file or directory '" + places.front() + "' in the workspace";
                // A file of that name elsewhere is likely where it went.
                auto base = r.path.substr(r.path.find_last_of('/') + 1);
                auto where = byBaseName(base);
                if (where.size() == 1 && !r.link) {
                    ir.replacement =
                        where.front() + r.written.substr(r.written.find(r.path) + r.path.size());
                    ir.why += "; " + where.front() + " exists";
                }
                p.missingPaths = places;
                pending.push_back(std::move(p));
                continue;
            }

            // A symbol: where it is now.
            std::string symbol = r.symbol;
            std::vector<std::pair<std::string, std::string>> now; // (path, qualified)
            if (r.form == RefForm::PathSymbol) {
                if (found.empty()) {
                    ir.state = "dangling";
                    ir.why = "no file '" + places.front() + "' in the workspace";
                    p.missingPaths = places;
                    pending.push_back(std::move(p));
                    continue;
                }
                now.emplace_back(found, symbol);
            } else {
                std::string last = symbol.substr(symbol.find_last_of('.') + 1);
                auto named = symbolsNamed(last);
                std::set<std::pair<std::string, std::string>> hits;
                for (auto& sym : named) {
                    std::string n = normaliseName(sym.qualified);
                    if (n == symbol || n.ends_with("." + symbol))
                        hits.emplace(sym.path, sym.qualified);
                }
                if (hits.empty()) {
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
                }
                for (auto& h : hits)
                    now.push_back(h);
            }
            if (r.form == RefForm::Word) {
                // A word is a reference only if its line was written when
                // it named a definition that is gone now: looked for once
                // per commit, after every file is read (`words`).
                if (!now.empty() || !indexed || !searchHistory || !git.available() || !blameable ||
                    stamps.count(r.written) || symbol.size() < 3)
                    continue;
                auto& blame = git.blame(file);
                auto bl = blame.find(int(r.lineIndex) + 1);
                if (bl == blame.end() || bl->second.empty()) continue; // not committed yet
                words.push_back({std::move(ir), bl->second});
                continue;
            }

            // A name nothing defines now: a module, a field, a file, or not
            // the repository's at all, decided before history is searched
            // (a `git grep` of the whole tree at a commit, per name). Only a
            // name that would be dangling, or a lone call (`validate()`), is
            // looked for in the line's commit, where a rename shows. Without
            // a code index every name is looked for there.
            std::optional<Otherwise> unindexed;
            bool budgetSpent = false; // a search for its past definition was not made
            if (r.form == RefForm::Name && now.empty() && !stamps.count(r.written) && indexed) {
                unindexed = judgeUnindexed(r, ir);
                if (*unindexed == Otherwise::Ok) {
                    ir.state = "ok";
                    scan.refs.push_back(std::move(ir));
                    continue;
                }
                bool loneCall = symbol.find('.') == std::string::npos && r.written.ends_with(")");
                if (*unindexed == Otherwise::Drop && !loneCall) continue;
            }

            // The baseline: a stamp, else the definition when the line was
            // last committed.
            std::optional<Anchor> base;
            bool cutOff = false;         // the baseline stands for history the clone lacks
            bool historyUnknown = false; // a hot path's scan lacks what git would say
            if (auto st = stamps.find(r.written); st != stamps.end()) {
                base = st->second;
                ir.baseline = "stamp";
            } else if (git.available() && blameable) {
                const auto& lines = lineTexts[file];
                auto sha = asked.lineCommit(file, int(r.lineIndex) + 1,
                                            r.lineIndex < lines.size() ? lines[r.lineIndex]
                                                                       : std::string());
                if (!sha) historyUnknown = true;
                if (sha && !sha->empty()) {
                    std::vector<std::string> paths;
                    for (auto& [path, q] : now)
                        paths.push_back(path);
                    if (r.form == RefForm::PathSymbol) {
                        paths = {found};
                    } else if (paths.empty() && (unindexed || !indexed)) {
                        // Where it was, if anywhere: the files of the type or
                        // module that now lacks the member; for a lone call,
                        // the files that mentioned it (a search of the whole
                        // tree, so only a few per scan).
                        if (!lookedIn.empty())
                            paths = lookedIn;
                        else if (searchHistory &&
                                 treeSearches <
                                     (indexed ? kMaxTreeSearches : kMaxTreeSearchesNoIndex)) {
                            ++treeSearches;
                            paths =
                                git.mentioning(*sha, symbol.substr(symbol.find_last_of('.') + 1));
                        } else if (searchHistory) {
                            budgetSpent = true;
                        }
                    }
                    std::sort(paths.begin(), paths.end());
                    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
                    if (!paths.empty()) {
                        auto then = asked.baseline(*sha, symbol, paths);
                        if (!then) {
                            historyUnknown = true;
                        } else if (*then) {
                            base = **then;
                            ir.baseline = "git " + sha->substr(0, 12);
                            cutOff = asked.cutOff(*sha);
                        }
                    }
                }
            }

            if (base) {
                judgeAgainst(ir, *base, cutOff);
                scan.refs.push_back(std::move(ir));
                continue;
            }
            if (historyUnknown) {
                ir.state = "unjudged";
                ir.reason = std::string(not_judged::kGitNotAsked);
                scan.refs.push_back(std::move(ir));
                continue;
            }

            // No baseline: only whether it resolves now.
            if (r.form == RefForm::PathSymbol) {
                try {
                    Anchor a = anchorer_.resolve(AnchorSpec{found, symbol}, "reference");
                    ir.state = "ok";
                    ir.current = a;
                    ir.target = a.path + "#" + a.symbol;
                    if (auto chk = anchorer_.check(a); chk.range) ir.targetRange = chk.range;
                } catch (const EngramError& e) {
                    bool ambiguous =
                        std::string(e.what()).find("is ambiguous") != std::string::npos;
                    ir.state = ambiguous ? "ambiguous" : "dangling";
                    ir.why = ambiguous ? "'" + symbol + "' names several definitions in " + found
                                       : "no definition '" + symbol + "' in " + found;
                }
                scan.refs.push_back(std::move(ir));
                continue;
            }
            if (now.size() == 1) {
                try {
                    Anchor a =
                        anchorer_.resolve(AnchorSpec{now[0].first, now[0].second}, "reference");
                    ir.current = a;
                    if (auto chk = anchorer_.check(a); chk.range) ir.targetRange = chk.range;
                } catch (const EngramError&) {
                    // Twins in one file: named, but not one definition.
                }
                ir.state = "ok";
                ir.target = now[0].first + "#" + now[0].second;
                scan.refs.push_back(std::move(ir));
                continue;
            }
            if (now.size() > 1) {
                ir.state = "ambiguous";
                ir.reason = std::string(not_judged::kAmbiguousName);
                ir.target = std::to_string(now.size()) + " definitions";
                scan.refs.push_back(std::move(ir));
                continue;
            }
            switch (unindexed ? *unindexed : judgeUnindexed(r, ir)) {
            case Otherwise::Drop:
                // Not the repository's as far as engram can tell; but without
                // the code index, or without the search, it cannot tell.
                if (!indexed || budgetSpent) {
                    ir.state = "unjudged";
                    ir.reason = std::string(!indexed ? not_judged::kNoCodeIndex
                                                     : not_judged::kSearchBudget);
                    break;
                }
                continue;
            case Otherwise::Ok:
                ir.state = "ok";
                break;
            case Otherwise::Dangling:
                ir.state = "dangling";
                ir.why = "no definition '" + symbol + "' in the workspace's code: " + ir.why;
                break;
            }
            scan.refs.push_back(std::move(ir));
        }
    }

    // Words whose line was written when they named a definition: per
    // commit, one search of its tree for all of them, among the source files
    // that changed since (only there can a definition it had be gone).
    std::map<std::string, std::vector<Word*>> wordsAt;
    for (auto& w : words)
        wordsAt[w.sha].push_back(&w);
    for (auto& [sha, ws] : wordsAt) {
        const auto& changed = git.changedSince(sha);
        if (!changed || changed->empty()) continue;
        std::set<std::string> names;
        for (auto* w : ws)
            names.insert(w->out.ref.symbol);
        std::map<std::string, std::vector<Anchor>> defined; // name -> definitions then
        size_t parsedFiles = 0;
        bool cut = false;
        for (auto& path : git.mentioningAny(sha, names, *changed)) {
            if (parsedFiles++ == kMaxWordFiles) {
                cut = true;
                break;
            }
            const auto* parsed = git.at(sha, path);
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
                scan.refs.push_back(std::move(w->out));
                continue;
            }
            // Nothing, or several definitions of that name: nothing says
            // the word was meant as one of them.
            if (it == defined.end() || it->second.size() != 1) continue;
            w->out.baseline = "git " + sha.substr(0, 12);
            judgeAgainst(w->out, it->second.front(), git.cutOff(sha));
            if (w->out.state == "moved" || w->out.state == "dangling")
                scan.refs.push_back(std::move(w->out));
        }
    }

    // Missing paths git ignores are local files (`.env.local`, build output),
    // not dangling references.
    std::vector<std::string> ask;
    for (auto& p : pending)
        for (auto& m : p.missingPaths)
            ask.push_back(m);
    std::set<std::string> unknown;
    auto ignored = asked.ignored(ask, unknown);
    for (auto& p : pending) {
        bool skip = std::any_of(p.missingPaths.begin(), p.missingPaths.end(),
                                [&](const std::string& m) { return ignored.count(m) > 0; });
        if (skip) continue;
        if (std::any_of(p.missingPaths.begin(), p.missingPaths.end(),
                        [&](const std::string& m) { return unknown.count(m) > 0; })) {
            p.out.state = "unjudged";
            p.out.reason = std::string(not_judged::kGitNotAsked);
            p.out.why.clear();
            p.out.replacement.clear();
        }
        scan.refs.push_back(std::move(p.out));
    }
    // A name that does not exist because it is an example of one (`e.g.
    // foo_tools.go`) is not a broken reference.
    std::erase_if(scan.refs, [&](const InstructionRef& r) {
        if (r.state != "dangling") return false;
        auto& lines = lineTexts[r.file];
        std::string_view line =
            r.ref.lineIndex < lines.size() ? std::string_view(lines[r.ref.lineIndex]) : "";
        return illustrative(line, r.ref.startColumn, r.ref.written);
    });
    std::stable_sort(scan.refs.begin(), scan.refs.end(),
                     [](const InstructionRef& a, const InstructionRef& b) {
                         return std::tie(a.file, a.ref.lineIndex, a.ref.startColumn) <
                                std::tie(b.file, b.ref.lineIndex, b.ref.startColumn);
                     });
    for (auto& r : scan.refs)
        if (!r.reason.empty()) scan.notJudged.add(r.reason);
    return scan;
}

ReverifyFileResult Engine::reverifyInstructions(const std::string& file, std::optional<int> line,
                                                const std::string& agent) {
    const std::string rel = confinedPath(opts_.root, "file", file);
    checkAgent(agent);
    if (!statFile(opts_.root + "/" + rel))
        throw invalidField("file", "no file '" + rel + "' in the workspace");
    if (line && *line < 1) throw invalidField("line", "must be 1 or more");
    Tier& t = writableTier("project");
    ReverifyFileResult out;
    out.file = rel;
    InstructionScan scan = scanInstructions(rel);
    auto lock = t.store->lock();
    std::string path = stampPath(t.store->dir(), rel);
    auto stamps = readStamps(path);
    std::string detail;
    for (auto& r : scan.refs) {
        if (line && int(r.ref.lineIndex) + 1 != *line) continue;
        if (r.ref.form != RefForm::PathSymbol && r.ref.form != RefForm::Name) continue;
        std::string where =
            rel + ":" + std::to_string(r.ref.lineIndex + 1) + " `" + r.ref.written + "`";
        // Only what names one definition now can be stamped: a moved
        // reference is rewritten first (the code action), a dangling one fixed.
        if (r.state == "moved" || r.state == "dangling" || r.state == "ambiguous" || !r.current) {
            out.refused.push_back(where + ": " + r.state +
                                  (r.why.empty() ? "" : " (" + r.why + ")"));
            continue;
        }
        stamps[r.ref.written] = *r.current;
        ++out.stamped;
        if (r.state != "ok") detail += (detail.empty() ? "" : "; ") + where + " was " + r.state;
    }
    if (out.stamped == 0) return out;
    std::string body = "# engram: the code references of " + rel +
                       " as last verified (engram reverify --file); one per line.\n";
    for (auto& [written, a] : stamps)
        body += written + "\t" + formatAnchor(a) + "\n";
    // Refused, nothing of it stays: a failure after the rename (the
    // directory's sync, the audit append) puts the stamps back as they were.
    std::optional<std::string> before = readFile(path);
    try {
        makeDirs(parentDir(path));
        atomicWrite(path, body);
        t.store->audit().append("reverify-file", rel, agent,
                                std::to_string(out.stamped) + " references stamped" +
                                    (detail.empty() ? "" : "; " + detail));
    } catch (...) {
        try {
            if (readFile(path) != before) {
                if (before)
                    atomicWrite(path, *before);
                else if (::unlink(path.c_str()) == 0)
                    fsyncDir(parentDir(path));
            }
        } catch (...) {
        }
        throw;
    }
    return out;
}

} // namespace engram
