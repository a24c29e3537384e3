// Which claim files changed under a store's `claims/` since we last looked.
//
// engram processes that share a store also share its SQLite index, so a
// claim another engram wrote is in the index the moment it is acknowledged.
// What the index cannot know about are files changed by anything else: a
// `git pull`, a checkout, a person editing a claim by hand. An inotify
// descriptor reports them: `engram serve` polls it from its event loop
// (lsp/ClaimsWatch), the MCP server drains it (one non-blocking read when
// nothing happened) before each tool call. Events queue in the kernel the
// moment a file changes, so a change made before a drain is always in it.
//
// A large directory is watched in two stages: watching for in-place writes
// to its files makes the kernel visit every cached entry of it while holding
// the directory's lock (about 0.1 s at a million claim files, during which
// any lookup in it waits). Past 1 MB (about 25,000 entries) it is first watched for
// entries created, removed and renamed (engram's atomic writes, git), and
// completeWatch() adds in-place writes once start-up is over; the caller
// then checks the files again, so a rewrite made in between is still seen.
#pragma once
#include "util/Fs.h"

#include <set>
#include <string>

namespace engram {

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
    // Adds in-place writes to a watch started in stages. True when this
    // call added them: the caller checks the files again.
    bool completeWatch();
    // The inotify descriptor (-1 before the first start), for polling.
    int fd() const { return fd_.get(); }
    // The changes queued since the last drain.
    ClaimChanges drain();

private:
    std::string dir_;
    UniqueFd fd_;
    int wd_ = -1;
    bool complete_ = false;
};

} // namespace engram
