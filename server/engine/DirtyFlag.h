// A delegation packet's dirty flag: whether `git status` finds a change to
// the tracked files outside .engram/ (memory is what the packet carries;
// the binding is about the code).
//
// Asking git costs a process that reads the repository's whole index, the
// claim files' entries included: 24 ms a packet at 100k claims, 137 ms at
// 1M. So the answer is kept with what it depends on: the index file, the
// commit HEAD names, and the stat of every tracked file outside .engram/
// (taken before git is asked, so a change made meanwhile is seen next
// time). While all of them are as they were, git would answer the same,
// and is not asked again; a packet then costs a stat per tracked source
// file, as git's own status would, but no process and nothing per claim.
//
// A file changed within the last second is not vouched for by its stat (a
// write in the same clock tick as the stat can leave size and times as
// they were), and a repository holding submodules has changes no stat of
// its own shows: either way git is asked every time.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace engram {

class DirtyFlag {
public:
    explicit DirtyFlag(std::string root)
        : root_(std::move(root)) {}

    // What `git status` says (true: something is modified or staged), or
    // nullopt when git is missing or fails. `indexPath` is the repository's
    // index file, `head` the commit HEAD names (both read by the caller
    // from the files, without git).
    std::optional<bool> get(const std::string& indexPath, const std::string& head);
    // How many times git was asked (tests: a repeat costs no process).
    uint64_t asked() const { return asked_.load(); }

    // The stat of a file as the flag compares it (ctime too: a change that
    // puts mtime back still moves it).
    struct Stamp {
        int64_t mtimeNs = -1, ctimeNs = -1, size = -1;
        uint64_t ino = 0;
        uint32_t mode = 0;
        bool operator==(const Stamp&) const = default;
    };

private:
    struct Kept {
        Stamp index;
        std::string head;
        std::vector<std::string> files; // tracked, outside .engram/
        std::vector<Stamp> stamps;      // of `files`, before git was asked
        std::optional<bool> verdict;
    };

    std::string root_;
    std::mutex mu_;
    std::optional<Kept> kept_;
    std::atomic<uint64_t> asked_{0};

    bool stillHolds(const Kept& k, const Stamp& index, const std::string& head) const;
};

} // namespace engram
