// A git repository as files: where its directories are, what a ref points
// at, and whether this clone registers engram's merge driver. Read from the
// files so that the common questions need no `git` process (packet binding,
// the first write of an engine); see util/Process.h for what does.
#pragma once
#include <optional>
#include <string>

namespace engram {

struct GitDirs {
    std::string gitDir;    // holds HEAD (a worktree's own directory)
    std::string commonDir; // holds refs, packed-refs and config
};

// The repository of `root`: the nearest ancestor holding .git (a directory,
// or a file "gitdir: ..." as in worktrees and submodules).
std::optional<GitDirs> findGit(const std::string& root);
// The commit a ref ("refs/heads/main") names, loose or packed; empty if none.
std::string resolveRef(const GitDirs& g, const std::string& ref);
// True for 40 or 64 lower-case hex digits (a SHA-1 or SHA-256 object id).
bool isHexId(const std::string& s);
// Without trailing line breaks and blanks.
std::string trimRight(std::string s);
// Whether the clone's local config has a `[merge "engram"]` section with a
// driver line (a cheap look at the file; teamSetup asks git itself).
bool configNamesEngramDriver(const GitDirs& g);

} // namespace engram
