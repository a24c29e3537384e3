#include "support/Git.h"

#include "util/Process.h"

#include <catch2/catch.hpp>

namespace engram::test {

void git(const std::string& dir, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"env",
                                     "-u",
                                     "GIT_DIR",
                                     "HOME=/nonexistent",
                                     "GIT_CONFIG_NOSYSTEM=1",
                                     "GIT_AUTHOR_NAME=t",
                                     "GIT_AUTHOR_EMAIL=t@example.invalid",
                                     "GIT_COMMITTER_NAME=t",
                                     "GIT_COMMITTER_EMAIL=t@example.invalid",
                                     "git",
                                     "-C",
                                     dir};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = runProcess(argv);
    INFO("git " << (args.empty() ? "" : args[0]) << ": " << (r ? r->err : "cannot run"));
    REQUIRE((r && r->exitCode == 0));
}

void gitInitCommitted(const std::string& dir) {
    git(dir, {"init", "-q"});
    gitCommitAll(dir, "initial");
}

void gitCommitAll(const std::string& dir, const std::string& message) {
    git(dir, {"add", "-A"});
    git(dir, {"commit", "-q", "-m", message});
}

} // namespace engram::test
