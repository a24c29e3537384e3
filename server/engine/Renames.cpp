#include "engine/Renames.h"

#include "engine/Rederive.h"
#include "util/Git.h"
#include "util/Process.h"

#include <string_view>
#include <utility>
#include <vector>

namespace engram {
namespace {

// One path's change in `--name-status -z` output: added, deleted, or
// renamed (`to`).
struct Change {
    char status = 0; // 'A', 'D' or 'R'
    std::string path, to;
};

// "A\0path\0", "D\0path\0", "R<score>\0old\0new\0", newest commit first; a
// line break of git's own may start a commit's first field. Nothing when
// git fails.
std::vector<Change> changesIn(const std::vector<std::string>& args) {
    std::vector<Change> out;
    auto r = runProcess(args);
    if (!r || r->exitCode != 0) return out;
    std::vector<std::string_view> fields;
    std::string_view all = r->out;
    for (size_t at = 0; at < all.size();) {
        size_t end = all.find('\0', at);
        if (end == std::string_view::npos) end = all.size();
        std::string_view field = all.substr(at, end - at);
        while (!field.empty() && field.front() == '\n')
            field.remove_prefix(1);
        if (!field.empty()) fields.push_back(field);
        at = end + 1;
    }
    for (size_t i = 0; i + 1 < fields.size();) {
        char status = fields[i][0];
        if (status == 'R' && i + 2 < fields.size()) {
            out.push_back({'R', std::string(fields[i + 1]), std::string(fields[i + 2])});
            i += 3;
        } else if (status == 'A' || status == 'D') {
            out.push_back({status, std::string(fields[i + 1]), {}});
            i += 2;
        } else {
            ++i; // not asked for
        }
    }
    return out;
}

// Each path's last fate, the changes applied oldest first: renamed keeps
// where it went; added again or deleted since, it was not renamed (a path
// used again after a rename is another file).
void applyChanges(std::unordered_map<std::string, std::string>& renamed,
                  const std::vector<Change>& newestFirst) {
    for (auto it = newestFirst.rbegin(); it != newestFirst.rend(); ++it) {
        renamed.erase(it->path);
        if (it->status == 'R') {
            renamed.erase(it->to);
            renamed[it->path] = it->to;
        }
    }
}

} // namespace

std::optional<std::string> GitRenames::of(const std::string& path) {
    if (!looked_) {
        looked_ = true;
        std::string head = headCommit(root_);
        if (head != head_) {
            head_ = head;
            committed_.clear();
            if (!head_.empty()) {
                applyChanges(committed_,
                             changesIn({"git", "-C", root_, "log", "--no-color", "-M", "--relative",
                                        "--diff-filter=ADR", "--name-status", "-z",
                                        "--format=", "-n" + std::to_string(kCommits), "HEAD"}));
            }
            index_.reset(); // the staged renames are against HEAD
        }
        auto g = findGit(root_);
        auto index = g ? statFile(g->gitDir + "/index") : std::nullopt;
        if (!index || !index_ || !sameFile(index, *index_)) {
            staged_.clear();
            index_ = index;
            if (index && !head_.empty())
                applyChanges(
                    staged_,
                    changesIn({"git", "-C", root_, "diff", "--no-color", "--cached", "-M",
                               "--relative", "--diff-filter=ADR", "--name-status", "-z", "HEAD"}));
        }
    }
    // Committed renames, then what the index renamed since; a chain of at
    // most as many steps as renames were read (a cycle ends there).
    std::string at = path;
    bool moved = false;
    for (auto* map : {&committed_, &staged_})
        for (size_t step = 0; step <= map->size(); ++step) {
            auto it = map->find(at);
            if (it == map->end()) break;
            at = it->second;
            moved = true;
        }
    if (!moved || at == path) return std::nullopt;
    return at;
}

} // namespace engram
