// Which claim files changed under a store's `claims/` since we last looked.
//
// engram processes that share a store also share its SQLite index, so a
// claim another engram wrote is in the index the moment it is acknowledged.
// What the index cannot know about are files changed by anything else: a
// `git pull`, a checkout, a person editing a claim by hand. `engram serve`
// learns of those through a libuv watcher on its event loop; the MCP server
// has no event loop of its own beyond its input, so it keeps an inotify
// descriptor and drains it (one non-blocking read when nothing happened)
// before each tool call. Events queue in the kernel the moment a file
// changes, so a change made before the call is always seen by it.
#pragma once
#include "util/Fs.h"

#include <set>
#include <string>

namespace engram::mcp {

struct ClaimChanges {
    bool full = false;         // the queue overflowed or the directory was replaced
    std::set<std::string> ids; // claims whose files changed
    bool any() const { return full || !ids.empty(); }
};

class ClaimWatcher {
public:
    explicit ClaimWatcher(std::string claimsDir);

    // Starts watching once the directory exists. True when watching began
    // with this call: whatever happened before is unknown, so the caller
    // brings everything up to date.
    bool start();
    bool watching() const { return wd_ >= 0; }
    // A large directory is watched for entries first and for in-place
    // writes once start-up is over (util/TreeWatch.h, stagedWatchBytes).
    // True when this call added them: the caller checks the files again.
    bool completeWatch();
    // The changes queued since the last drain.
    ClaimChanges drain();

private:
    std::string dir_;
    UniqueFd fd_;
    int wd_ = -1;
    bool complete_ = false;
};

} // namespace engram::mcp
