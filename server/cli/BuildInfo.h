// What this binary was built from, for `engram --version`: the commit
// (server/cli/buildinfo.cmake writes it at every build, replacing the file
// only when it changed, so a new commit relinks engram and nothing else).
#pragma once

namespace engram::cli {

// "3ea2190c1f2b", with "-dirty" when the tree had uncommitted changes, or
// "unknown" when it was not built from a git checkout.
const char* buildCommit();

} // namespace engram::cli
