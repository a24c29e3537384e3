#include "engine/Renames.h"

#include "engine/Rederive.h"
#include "util/Git.h"
#include "util/Process.h"

#include <string_view>
#include <utility>
#include <vector>

namespace engram {
namespace {

// `--name-status -z` with renames only: "R<score>\0old\0new\0" per rename,
// newest commit first. Nothing when git fails.
std::vector<std::pair<std::string, std::string>> renamesIn(const std::vector<std::string>& args) {
    std::vector<std::pair<std::string, std::string>> out;
    auto r = runProcess(args);
    if (!r || r->exitCode != 0) return out;
    std::vector<std::string_view> fields;
    std::string_view all = r->out;
    for (size_t at = 0; at < all.size();) {
        size_t end = all.find('\0', at);
        if (end == std::string_view::npos) end = all.size();
        std::string_view field = all.substr(at, end - at);
        // Between commits git may write a line break of its own.
        while (!field.empty() && field.front() == '\n')
            field.remove_prefix(1);
        if (!field.empty()) fields.push_back(field);
        at = end + 1;
    }
    for (size_t i = 0; i + 2 < fields.size();) {
        if (fields[i][0] != 'R') { // not asked for: skip to the next status
            ++i;
            continue;
        }
        out.emplace_back(std::string(fields[i + 1]), std::string(fields[i + 2]));
        i += 3;
    }
    return out;
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
                auto list = renamesIn({"git", "-C", root_, "log", "--no-color", "-M", "--relative",
                                       "--diff-filter=R", "--name-status", "-z",
                                       "--format=", "-n" + std::to_string(kCommits), "HEAD"});
                // Oldest first, so a later rename of the new path follows.
                for (auto it = list.rbegin(); it != list.rend(); ++it)
                    committed_[it->first] = it->second;
            }
            index_.reset(); // the staged renames are against HEAD
        }
        auto g = findGit(root_);
        auto index = g ? statFile(g->gitDir + "/index") : std::nullopt;
        if (!index || !index_ || !sameFile(index, *index_)) {
            staged_.clear();
            index_ = index;
            if (index && !head_.empty())
                for (auto& [from, to] :
                     renamesIn({"git", "-C", root_, "diff", "--no-color", "--cached", "-M",
                                "--relative", "--diff-filter=R", "--name-status", "-z", "HEAD"}))
                    staged_[from] = to;
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
