// Running a helper program (git) and reading what it prints.
//
// engram runs git for what only git knows (the local config, a diff against
// a ref, the dirty flag); never through a shell, so no argument is ever
// interpreted. The child's stdin is /dev/null and its stderr is kept short.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace engram {

struct ProcessResult {
    int exitCode = -1; // -1: killed by a signal
    std::string out;   // stdout, at most `maxOut` bytes
    std::string err;   // stderr, at most 4 KiB
};

// nullopt when the program cannot be started (not installed).
std::optional<ProcessResult> runProcess(const std::vector<std::string>& args,
                                        size_t maxOut = size_t(16) << 20);

// The running binary's absolute path (what git is told to run as the merge
// driver); empty when it cannot be known.
std::string selfExecutable();

} // namespace engram
