// What git says about the lines of instruction files, for their check
// (engine/InstructionScan.cpp). Private to engine/.
//
// History asks git itself, once per question and scan; Asked stands between
// a scan and History, recording every answer in the code tier's index so
// that a hot path's scan can read them back without starting a process.
#pragma once
#include "index/Index.h"
#include "model/Claim.h"
#include "syntax/Symbols.h"
#include "util/Process.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace engram {

// What git knows about the workspace, asked once per scan.
class History {
public:
    explicit History(std::string root);
    bool available() const { return available_; }
    // Whether a commit blame named stands for history this clone lacks: the
    // oldest commit of a shallow clone takes the blame for every line older
    // than itself.
    bool cutOff(const std::string& sha) const { return shallow_ && boundaries_.count(sha) > 0; }

    // The commit that last changed each line (1-based) of a committed
    // file; a line not committed yet maps to "".
    const std::map<int, std::string>& blame(const std::string& file);

    // A file as a commit had it, parsed; nullptr when it had none.
    struct Parsed {
        std::string language;
        std::vector<syntax::Symbol> symbols;
    };
    const Parsed* at(const std::string& sha, const std::string& rel);

    // Source files that differ between a commit and the work tree: only in
    // those can a definition the commit had be gone now. nullopt when git
    // cannot say.
    const std::optional<std::set<std::string>>& changedSince(const std::string& sha);

    // Of `files`, those that mention any of `words` (whole words) at a
    // commit: one search of the commit's tree for every word.
    std::set<std::string> mentioningAny(const std::string& sha, const std::set<std::string>& words,
                                        const std::set<std::string>& files);

    // Files a commit had that mention `word` (a whole word), at most a few.
    std::vector<std::string> mentioning(const std::string& sha, const std::string& word);

    // Of these workspace-relative paths, those git ignores.
    std::set<std::string> ignored(const std::vector<std::string>& paths);

private:
    std::vector<std::string> grep(const std::string& sha, const std::string& word);

    std::string root_;
    GitObjectReader objects_;
    bool available_ = false;
    bool shallow_ = false;
    std::unordered_set<std::string> boundaries_;
    std::unordered_map<std::string, std::map<int, std::string>> blames_;
    std::unordered_map<std::string, std::optional<Parsed>> parsed_;
    std::unordered_map<std::string, std::vector<std::string>> mentioning_;
    std::unordered_map<std::string, std::optional<std::set<std::string>>> changed_;
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
    Asked(History& git, Index* facts, bool live, const std::string& root);
    // Writes what was asked into the index; a failure is dropped.
    ~Asked();
    Asked(const Asked&) = delete;
    Asked& operator=(const Asked&) = delete;
    bool live() const { return live_; }

    // The commit that last changed line `line` (1-based) of `file`, whose
    // text is `text`: "" when it is not committed yet; nullopt: unknown.
    std::optional<std::string> lineCommit(const std::string& file, int line,
                                          const std::string& text);
    bool cutOff(const std::string& sha);
    // The one definition `symbol` named at `sha` in one of `paths`; none
    // when it named none or several; nullopt: unknown.
    std::optional<std::optional<Anchor>> baseline(const std::string& sha, const std::string& symbol,
                                                  const std::vector<std::string>& paths);
    // Of these paths, those git ignores; `unknown` gets those no judging
    // scan asked about under the ignore files as they are.
    std::set<std::string> ignored(const std::vector<std::string>& paths,
                                  std::set<std::string>& unknown);

private:
    std::optional<std::string> fact(const std::string& key);
    void record(const std::string& key, const std::string& value);

    History& git_;
    Index* facts_;
    bool live_;
    std::string ignoreStamp_;
    std::unordered_map<std::string, std::string> pending_;
    std::vector<std::pair<std::string, std::string>> recorded_;
};

} // namespace engram
