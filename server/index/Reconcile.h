// Reconciling an index with its claim files without reading them all.
//
// What can change a claims directory while no engram is watching it, and
// what reveals each change (ARCHITECTURE.md, "Start-up without a scan"):
// - a file added, removed or renamed (git pull, git checkout, `mv`, an
//   editor that saves by renaming): the directory's own mtime moves, and a
//   listing (names and inodes, one getdents pass, no stat per file) says
//   which names;
// - a file replaced by a new one under the same name (git checkout): the
//   directory's mtime moves, but the new file often gets the freed inode
//   back (git on ext4 does), so only the file's own mtime says which;
// - a file rewritten in place (an editor that truncates and writes): only
//   the file's own stat moves, so only a stat of every file finds it.
// scanClaims does the listing and, when asked, the stat of every file. It
// reads the index through a read-only connection of its own, so it may run
// on a thread beside the one serving requests.
#pragma once
#include "util/Fs.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace engram {

// The claims directory as one stat sees it.
struct DirMark {
    uint64_t ino = 0;
    int64_t mtimeNs = 0;
    bool operator==(const DirMark&) const = default;
};

std::optional<DirMark> dirMark(const std::string& dir);

// How far a directory's mtime must lie behind the moment it was read for a
// later change to be sure to move it: a change in the same timestamp tick
// leaves the mtime where it was (git's "racy" entries). Nanosecond mtimes
// come from the kernel's coarse clock (one tick, at most 10 ms); a
// filesystem with whole-second mtimes can take 2 s.
int64_t racyWindowNs(const DirMark& m);
// CLOCK_REALTIME in nanoseconds: the clock file timestamps are taken from.
int64_t realtimeNs();
// Whether a directory read between `before` and `after`, with the clock
// read at `startedNs` before `before`, is completely known as `before`.
bool settledListing(const std::optional<DirMark>& before, const std::optional<DirMark>& after,
                    int64_t startedNs);

struct ClaimsScan {
    bool statEvery = false; // in-place rewrites were looked for too
    // Ids whose files must be read again or dropped: new names, names gone,
    // replaced files, and (statEvery) files whose stat moved.
    std::vector<std::string> ids;
    size_t files = 0; // claim files listed
    DirMark dir;      // the directory the listing is of
    // The listing is complete for `dir`: the directory did not change while
    // it was read, and its mtime is old enough that any later change moves
    // it. Only then may the index record `dir` as fully known.
    bool settled = false;
    bool cancelled = false;
    std::string error; // the index or the directory could not be read
};

// `checked` counts the files compared so far (progress for the envelope);
// `cancel` stops the scan early (the result is then marked cancelled).
// `parallel`: stat on up to four threads (a scan the caller waits for);
// false for a scan beside a server answering requests, which should not
// take both cores from it.
ClaimsScan scanClaims(const std::string& indexPath, const std::string& claimsDir, bool statEvery,
                      std::atomic<int64_t>* checked = nullptr,
                      const std::atomic<bool>* cancel = nullptr, bool parallel = true);

} // namespace engram
