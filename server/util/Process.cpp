// posix_spawn with pipes, drained with poll() so neither pipe can fill up.
#include "util/Process.h"

#include "util/Fs.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

// Starts args[0] (looked up on PATH) with these file actions; nullopt when
// it cannot be started.
std::optional<pid_t> spawn(const std::vector<std::string>& args, const SpawnActions& actions) {
    std::vector<std::string> copy = args;
    std::vector<char*> argv;
    for (auto& a : copy)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawnp(&pid, argv[0], &actions.fa, nullptr, argv.data(), environ) != 0)
        return std::nullopt;
    return pid;
}

int waitChild(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

} // namespace

namespace {

// Runs args with stdout handed to `onOut` in chunks as it arrives and stderr
// kept (at most 4 KiB) in `err`; the exit code (-1: killed by a signal), or
// nullopt when the program cannot be started.
std::optional<int> runStreaming(const std::vector<std::string>& args,
                                const std::function<void(std::string_view)>& onOut,
                                std::string& err) {
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
    auto pid = spawn(args, actions);
    if (!pid) return std::nullopt;
    outWrite = UniqueFd();
    errWrite = UniqueFd();
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
            if (i == 0)
                onOut(std::string_view(buf, size_t(n)));
            else if (err.size() < 4096)
                err.append(buf, std::min(size_t(n), 4096 - err.size()));
        }
    }
    int status = waitChild(*pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

std::optional<ProcessResult> runProcess(const std::vector<std::string>& args, size_t maxOut) {
    ProcessResult r;
    auto code = runStreaming(
        args,
        [&](std::string_view chunk) {
            if (r.out.size() < maxOut)
                r.out.append(chunk.data(), std::min(chunk.size(), maxOut - r.out.size()));
        },
        r.err);
    if (!code) return std::nullopt;
    r.exitCode = *code;
    return r;
}

std::optional<int> runProcessLines(const std::vector<std::string>& args,
                                   const std::function<void(std::string_view)>& onLine) {
    std::string pending, err;
    auto code = runStreaming(
        args,
        [&](std::string_view chunk) {
            size_t from = 0;
            for (size_t nl = chunk.find('\n'); nl != std::string_view::npos;
                 nl = chunk.find('\n', from)) {
                if (pending.empty()) {
                    onLine(chunk.substr(from, nl - from));
                } else {
                    pending.append(chunk.substr(from, nl - from));
                    onLine(pending);
                    pending.clear();
                }
                from = nl + 1;
            }
            pending.append(chunk.substr(from));
        },
        err);
    if (code && !pending.empty()) onLine(pending);
    return code;
}

namespace {
constexpr int kObjectReadMs = 10000; // one object, not the whole session
}

GitObjectReader::~GitObjectReader() {
    stop();
}

bool GitObjectReader::start() {
    if (pid_ > 0) return true;
    if (failed_) return false;
    // A socket for git's stdin, so that a git that died makes a write fail
    // with EPIPE (MSG_NOSIGNAL) instead of killing engram with SIGPIPE.
    int sv[2], outFds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return failed_ = true, false;
    UniqueFd inMine(sv[0]), inChild(sv[1]);
    if (::pipe2(outFds, O_CLOEXEC) != 0) return failed_ = true, false;
    UniqueFd outRead(outFds[0]), outWrite(outFds[1]);
    SpawnActions actions;
    posix_spawn_file_actions_adddup2(&actions.fa, inChild.get(), 0);
    posix_spawn_file_actions_adddup2(&actions.fa, outWrite.get(), 1);
    posix_spawn_file_actions_addopen(&actions.fa, 2, "/dev/null", O_WRONLY, 0);
    auto pid = spawn({"git", "-C", root_, "cat-file", "--batch"}, actions);
    if (!pid) return failed_ = true, false;
    pid_ = *pid;
    in_ = inMine.release();
    out_ = outRead.release();
    return true;
}

void GitObjectReader::stop() {
    if (in_ >= 0) ::close(in_);
    if (out_ >= 0) ::close(out_);
    in_ = out_ = -1;
    if (pid_ > 0) {
        if (failed_) ::kill(pid_, SIGKILL);
        waitChild(pid_);
    }
    pid_ = -1;
    buf_.clear();
}

bool GitObjectReader::fill() {
    pollfd p{out_, POLLIN, 0};
    for (;;) {
        int r = ::poll(&p, 1, kObjectReadMs);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        char chunk[65536];
        ssize_t n = ::read(out_, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        buf_.append(chunk, size_t(n));
        return true;
    }
}

bool GitObjectReader::readLine(std::string& line) {
    size_t nl;
    while ((nl = buf_.find('\n')) == std::string::npos)
        if (!fill()) return false;
    line = buf_.substr(0, nl);
    buf_.erase(0, nl + 1);
    return true;
}

bool GitObjectReader::readExactly(size_t n, std::string& into) {
    while (buf_.size() < n)
        if (!fill()) return false;
    into.assign(buf_, 0, n);
    buf_.erase(0, n);
    return true;
}

std::optional<std::string> GitObjectReader::blob(const std::string& name, size_t maxBytes) {
    if (name.find('\n') != std::string::npos || !start()) return std::nullopt;
    auto broken = [&] {
        failed_ = true;
        stop();
        return std::nullopt;
    };
    std::string request = name + "\n";
    for (size_t at = 0; at < request.size();) {
        ssize_t n = ::send(in_, request.data() + at, request.size() - at, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return broken();
        at += size_t(n);
    }
    // "<oid> <type> <size>", or "<name> missing" / "<name> ambiguous".
    std::string header;
    if (!readLine(header)) return broken();
    auto sp2 = header.find_last_of(' ');
    auto sp1 = sp2 == std::string::npos ? std::string::npos : header.find_last_of(' ', sp2 - 1);
    if (sp1 == std::string::npos) return std::nullopt; // missing or ambiguous: nothing follows
    std::string type = header.substr(sp1 + 1, sp2 - sp1 - 1);
    std::string sizeText = header.substr(sp2 + 1);
    if (sizeText.empty() || sizeText.size() > 12 ||
        sizeText.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    size_t size = std::stoull(sizeText);
    std::string content;
    if (!readExactly(size + 1, content)) return broken(); // the content and its '\n'
    content.pop_back();
    if (type != "blob" || content.size() > maxBytes) return std::nullopt;
    return content;
}

std::optional<std::string> findOnPath(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (!path || name.empty() || name.find('/') != std::string::npos) return std::nullopt;
    std::string_view dirs(path);
    while (true) {
        auto colon = dirs.find(':');
        std::string dir(dirs.substr(0, colon));
        // An empty entry is the current directory, as for a shell.
        std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
        struct stat st;
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
            ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        if (colon == std::string_view::npos) return std::nullopt;
        dirs.remove_prefix(colon + 1);
    }
}

std::string selfExecutable() {
    char buf[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "";
    return std::string(buf, size_t(n));
}

} // namespace engram
