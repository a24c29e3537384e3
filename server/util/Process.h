// Running a helper program (git) and reading what it prints.
//
// engram runs git for what only git knows (the local config, a diff against
// a ref, the dirty flag); never through a shell, so no argument is ever
// interpreted. The child's stdin is /dev/null and its stderr is kept short.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
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

// For output of any size (`git log -p` over a large history): stdout is
// handed to onLine a line at a time, without its line break, and not kept.
// The exit code (-1: killed by a signal), or nullopt when the program cannot
// be started.
std::optional<int> runProcessLines(const std::vector<std::string>& args,
                                   const std::function<void(std::string_view)>& onLine);

// One `git cat-file --batch` for many reads: object contents by name
// ("<commit>:./path") without a process per object. Started on the first
// read, ended with the object. Each read waits at most a few seconds; a
// git that fails or hangs ends the session and later reads answer nullopt.
class GitObjectReader {
public:
    explicit GitObjectReader(std::string root)
        : root_(std::move(root)) {}
    ~GitObjectReader();
    GitObjectReader(const GitObjectReader&) = delete;
    GitObjectReader& operator=(const GitObjectReader&) = delete;

    // A blob's content; nullopt when it is missing, not a blob, larger than
    // maxBytes, or git cannot answer.
    std::optional<std::string> blob(const std::string& name, size_t maxBytes);

private:
    bool start();
    void stop();
    bool readExactly(size_t n, std::string& into);
    bool readLine(std::string& line);
    bool fill();
    std::string root_;
    int pid_ = -1, in_ = -1, out_ = -1;
    bool failed_ = false;
    std::string buf_;
};

// The running binary's absolute path (what git is told to run as the merge
// driver); empty when it cannot be known.
std::string selfExecutable();

// The first executable file called `name` in the directories of $PATH, as
// a shell would find it; nullopt when there is none.
std::optional<std::string> findOnPath(const std::string& name);

} // namespace engram
