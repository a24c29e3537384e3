// posix_spawn with pipes, drained with poll() so neither pipe can fill up.
#include "util/Process.h"

#include "util/Fs.h"

#include <cerrno>
#include <climits>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace engram {

namespace {

// posix_spawn's file actions, destroyed on every path out.
struct SpawnActions {
    posix_spawn_file_actions_t fa;
    SpawnActions() { posix_spawn_file_actions_init(&fa); }
    ~SpawnActions() { posix_spawn_file_actions_destroy(&fa); }
    SpawnActions(const SpawnActions&) = delete;
    SpawnActions& operator=(const SpawnActions&) = delete;
};

} // namespace

std::optional<ProcessResult> runProcess(const std::vector<std::string>& args, size_t maxOut) {
    if (args.empty()) return std::nullopt;
    int outFds[2], errFds[2];
    if (::pipe2(outFds, O_CLOEXEC) != 0) return std::nullopt;
    UniqueFd outRead(outFds[0]), outWrite(outFds[1]);
    if (::pipe2(errFds, O_CLOEXEC) != 0) return std::nullopt;
    UniqueFd errRead(errFds[0]), errWrite(errFds[1]);
    SpawnActions actions;
    posix_spawn_file_actions_adddup2(&actions.fa, outWrite.get(), 1);
    posix_spawn_file_actions_adddup2(&actions.fa, errWrite.get(), 2);
    posix_spawn_file_actions_addopen(&actions.fa, 0, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> copy = args;
    std::vector<char*> argv;
    for (auto& a : copy)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawnp(&pid, argv[0], &actions.fa, nullptr, argv.data(), environ) != 0)
        return std::nullopt;
    outWrite = UniqueFd();
    errWrite = UniqueFd();
    ProcessResult r;
    bool outOpen = true, errOpen = true;
    char buf[8192];
    while (outOpen || errOpen) {
        pollfd fds[2] = {{outOpen ? outRead.get() : -1, POLLIN, 0},
                         {errOpen ? errRead.get() : -1, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < 2; ++i) {
            if (!fds[i].revents) continue;
            ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                (i == 0 ? outOpen : errOpen) = false;
                continue;
            }
            std::string& into = i == 0 ? r.out : r.err;
            size_t cap = i == 0 ? maxOut : 4096;
            if (into.size() < cap) into.append(buf, std::min(size_t(n), cap - into.size()));
        }
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

std::string selfExecutable() {
    char buf[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "";
    return std::string(buf, size_t(n));
}

} // namespace engram
