// What git says about the lines of instruction files (LineHistory.h).
#include "engine/LineHistory.h"

#include "engine/Anchoring.h"
#include "store/ClaimFile.h"
#include "syntax/Languages.h"
#include "util/Fs.h"
#include "util/Git.h"
#include "util/Lines.h"
#include "util/Log.h"

#include <algorithm>
#include <cstdlib>

namespace engram {

namespace {
constexpr size_t kMaxGrepFiles = 20; // files at a commit searched for a name
} // namespace

History::History(std::string root)
    : root_(std::move(root))
    , objects_(root_) {
    auto dirs = findGit(root_);
    available_ = dirs.has_value();
    // A shallow clone lists its cut-off commits here.
    shallow_ = dirs && statFile(dirs->commonDir + "/shallow").has_value();
}

const std::map<int, std::string>& History::blame(const std::string& file) {
    auto it = blames_.find(file);
    if (it != blames_.end()) return it->second;
    auto& out = blames_[file];
    if (!available_) return out;
    auto r = runProcess({"git", "-C", root_, "blame", "--porcelain", "--", file}, size_t(64) << 20);
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

const History::Parsed* History::at(const std::string& sha, const std::string& rel) {
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

const std::optional<std::set<std::string>>& History::changedSince(const std::string& sha) {
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

std::set<std::string> History::mentioningAny(const std::string& sha,
                                             const std::set<std::string>& words,
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

std::vector<std::string> History::mentioning(const std::string& sha, const std::string& word) {
    auto [it, fresh] = mentioning_.try_emplace(sha + "\n" + word);
    if (fresh) it->second = grep(sha, word);
    return it->second;
}

std::vector<std::string> History::grep(const std::string& sha, const std::string& word) {
    auto r =
        runProcess({"git", "-C", root_, "grep", "-l", "-w", "-F", "-I", "-e", word, sha, "--", "."},
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

std::set<std::string> History::ignored(const std::vector<std::string>& paths) {
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

Asked::Asked(History& git, Index* facts, bool live, const std::string& root)
    : git_(git)
    , facts_(facts)
    , live_(live) {
    for (const char* f : {"/.gitignore", "/.git/info/exclude"})
        if (auto st = statFile(root + f))
            ignoreStamp_ += std::to_string(st->mtimeNs) + ":" + std::to_string(st->size) + ";";
}

Asked::~Asked() {
    if (!facts_ || recorded_.empty()) return;
    try {
        facts_->putHistoryFacts(recorded_);
    } catch (const std::exception& e) {
        // A record is a shortcut for later, never the answer: a full
        // disk costs the next hot path a not-judged count, nothing more.
        logDropped("recording what git said in the index", e);
    }
}

std::optional<std::string> Asked::lineCommit(const std::string& file, int line,
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

bool Asked::cutOff(const std::string& sha) {
    if (live_) return git_.cutOff(sha);
    return fact("C\t" + sha).value_or("0") == "1";
}

std::optional<std::optional<Anchor>> Asked::baseline(const std::string& sha,
                                                     const std::string& symbol,
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

std::set<std::string> Asked::ignored(const std::vector<std::string>& paths,
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

std::optional<std::string> Asked::fact(const std::string& key) {
    if (auto it = pending_.find(key); it != pending_.end()) return it->second;
    if (!facts_) return std::nullopt;
    return facts_->historyFact(key);
}

void Asked::record(const std::string& key, const std::string& value) {
    if (!pending_.emplace(key, value).second) return;
    recorded_.emplace_back(key, value);
}

} // namespace engram
