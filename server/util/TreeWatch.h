// Which files under a root may have changed since they were last looked at,
// without a stat of each: inotify on the directories leading to them.
//
// A file counts as watched once every directory from the root down to it
// (or down to the deepest one that exists) is watched: then any change to
// the file, its creation or removal, or a rename or removal of a directory
// above it produces an event in one of those directories. inotify queues an
// event before the writing call returns, so draining after a change has
// completed always reports it. A watch that cannot be added (the system's
// limit, a permission) leaves the file unwatched and the caller checks it
// the old way. Linux only; elsewhere nothing is ever watched.
#pragma once
#include "util/Fs.h"

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace engram {

class TreeWatch {
public:
    explicit TreeWatch(std::string root);
    TreeWatch(const TreeWatch&) = delete;
    TreeWatch& operator=(const TreeWatch&) = delete;

    // Watches the directories leading to `relPath` (a normalised path
    // relative to the root). True when a change to it will be reported.
    bool watchPath(const std::string& relPath);

    struct Changes {
        // Events were lost (the kernel's queue overflowed): anything may
        // have changed.
        bool overflow = false;
        // Files (or directories) changed, created or removed.
        std::vector<std::string> paths;
        // Directories changed as a whole (renamed, removed, created): every
        // path under them may have changed. No trailing '/'; "" is the root.
        std::vector<std::string> trees;
    };
    // What was reported since the last drain. Never blocks.
    Changes drain();

    size_t watches() const { return dirs_.size(); }

private:
    bool watchDir(const std::string& rel);
    void forgetTree(const std::string& rel); // drops the watches on rel and under it

    std::string root_;
    UniqueFd fd_;
    std::map<std::string, int> dirs_;                       // relative dir -> watch
    std::unordered_map<int, std::vector<std::string>> wds_; // watch -> its dirs
};

} // namespace engram
