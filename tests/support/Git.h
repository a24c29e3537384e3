// Git for tests: a command run in a directory with a fixed identity and no
// user or system configuration, failing the test when git does.
#pragma once
#include <string>
#include <vector>

namespace engram::test {

// `git -C dir ARGS...`; REQUIREs exit code 0.
void git(const std::string& dir, const std::vector<std::string>& args);

// A repository in `dir` with everything in it committed as one commit.
void gitInitCommitted(const std::string& dir);

// Everything in `dir` added and committed.
void gitCommitAll(const std::string& dir, const std::string& message);

} // namespace engram::test
