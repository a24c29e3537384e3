// Stores above the project kept in git repositories of their own: team
// stores (`$ENGRAM_HOME/teams/NAME`, a clone of the team's repository) and
// a medulla given a remote. See ARCHITECTURE.md, "Memory across machines".
//
// Everything that talks to a remote is here, and only `engram sync`, `team
// add` and `medulla remote` call it: an answer never waits on the network.
// What the answers say of a git-backed store (its remote, the age of its
// last sync, the branches waiting to be pushed) is read from a small file
// sync writes inside the clone's .git directory, never from a `git` process.
#pragma once
#include "model/Claim.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace engram {

// The directory of team store NAME under engram's home.
std::string teamStoreDir(const std::string& home, const std::string& name);
// The team stores added on this machine, by name.
std::vector<std::string> addedTeams(const std::string& home);

// A remote URL as engram may show it: a password or token in it (`https://
// user:TOKEN@host/...`) replaced by `***`.
std::string redactRemote(const std::string& url);

// What the last sync left in the clone (<clone>/.git/engram-sync), read
// from that file alone.
struct SyncRecord {
    bool git = false;                 // the store is a git clone
    std::string remote;               // origin's URL, redacted
    std::optional<int64_t> lastSync;  // the last fetch that reached the remote
    std::optional<int64_t> lastTry;   // the last sync run, reached or not
    std::string lastError;            // why the last sync failed, redacted
    std::vector<std::string> pending; // local branches and commits not on the remote
};
SyncRecord readSyncRecord(const std::string& storeDir);

// One store's sync: commit engram's own writes (a medulla's), fetch, merge
// origin's branch with engram's merge driver, push what is ours to push.
struct SyncOutcome {
    std::string store;                  // "team:NAME" or "medulla"
    bool reached = false;               // the remote answered
    std::string merge;                  // "up to date", "fast-forward", "merged", ""
    std::vector<std::string> arrived;   // claim files the merge changed
    std::vector<std::string> committed; // local acts committed (a medulla)
    std::vector<std::string> pushed;    // refs pushed
    std::vector<std::string> conflicts; // files git could not merge (the merge was undone)
    // Claims both sides changed: the merge driver kept both versions, to be
    // resolved as a project's are (engram resolve ID).
    std::vector<std::string> diverged;
    std::string error; // redacted
};
// `label`: how the store is named in messages. `pushMain`: whether the
// branch checked out is pushed (a medulla's); a team store pushes only its
// proposal branches (engram/*), since the team's branch changes by review.
SyncOutcome syncStore(const std::string& storeDir, const std::string& label, bool pushMain);

// `engram team add NAME URL`: clones the team's repository into
// teamStoreDir, lays out a new store there when the repository is empty
// (committed and pushed), and registers the merge driver in the clone.
// Refuses a URL holding a password (it would stay in the clone's config).
struct TeamAdded {
    std::string dir;
    std::string remote;   // redacted
    bool created = false; // the repository was empty: a new store was committed
    int64_t claims = 0;   // claim files in the clone
};
TeamAdded addTeam(const std::string& home, const std::string& name, const std::string& url);

// `engram medulla remote URL`: the medulla becomes a clone of URL. Its
// claims so far are committed first, then merged with what the remote
// holds (another machine's medulla) by engram's merge driver, and pushed.
SyncOutcome medullaRemote(const std::string& home, const std::string& url);

// A change to a team store, for review: `files` (paths in the store, and
// their bytes: a claim file, the history file of the version it replaces)
// committed on a new branch of the clone (engram/promote-<id>,
// engram/retract-<id>) from the branch checked out, with the working tree
// untouched: the change is the team's only once the branch is merged.
void proposeOnBranch(const std::string& storeDir, const std::string& branch,
                     const std::vector<std::pair<std::string, std::string>>& files,
                     const std::string& message);

} // namespace engram
