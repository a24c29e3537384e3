// Spawning engram and speaking LSP framing to it over pipes.
//
// Reading uses poll with a generous timeout so a hung server fails the
// benchmark loudly instead of hanging it; the framing itself is engram's own
// FrameDecoder, so the client and server agree on the wire format by
// construction.
#include "Child.h"

#include "protocol/Framing.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace engram::bench {

namespace {

constexpr int kTimeoutMs = 120000; // a 100k-claim start-up sync is seconds, not minutes

std::vector<char*> cArgv(const std::vector<std::string>& argv) {
    std::vector<char*> out;
    for (auto& a : argv)
        out.push_back(const_cast<char*>(a.c_str()));
    out.push_back(nullptr);
    return out;
}

protocol::FrameDecoder& dec(void* p) {
    return *static_cast<protocol::FrameDecoder*>(p);
}

} // namespace

double msBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

int runToExit(const std::vector<std::string>& argv) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    auto args = cArgv(argv);
    int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::runtime_error("cannot spawn " + argv[0] + ": " + std::strerror(rc));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int runWithInput(const std::vector<std::string>& argv, const std::string& input, std::string& out) {
    int toChild[2], fromChild[2];
    if (pipe2(toChild, O_CLOEXEC) != 0 || pipe2(fromChild, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, toChild[0], 0);
    posix_spawn_file_actions_adddup2(&fa, fromChild[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    auto args = cArgv(argv);
    int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(toChild[0]);
    ::close(fromChild[1]);
    if (rc != 0) throw std::runtime_error("cannot spawn " + argv[0] + ": " + std::strerror(rc));
    // The input is small (a hook's JSON): it fits in the pipe's buffer, so
    // writing it all before reading cannot deadlock.
    for (size_t at = 0; at < input.size();) {
        ssize_t n = ::write(toChild[1], input.data() + at, input.size() - at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        at += size_t(n);
    }
    ::close(toChild[1]);
    out.clear();
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fromChild[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(buf, size_t(n));
    }
    ::close(fromChild[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

LspChild::LspChild(const std::vector<std::string>& argv)
    : decoder_(new protocol::FrameDecoder) {
    int toChild[2], fromChild[2];
    if (pipe2(toChild, O_CLOEXEC) != 0 || pipe2(fromChild, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, toChild[0], 0);
    posix_spawn_file_actions_adddup2(&fa, fromChild[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    auto args = cArgv(argv);
    spawned_ = Clock::now();
    int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(toChild[0]);
    ::close(fromChild[1]);
    in_ = toChild[1];
    out_ = fromChild[0];
    if (rc != 0) {
        pid_ = -1;
        throw std::runtime_error("cannot spawn " + argv[0] + ": " + std::strerror(rc));
    }
}

LspChild::~LspChild() {
    if (in_ >= 0) ::close(in_);
    if (out_ >= 0) ::close(out_);
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        int status;
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
    }
    delete static_cast<protocol::FrameDecoder*>(decoder_);
}

void LspChild::writeFrame(const std::string& body) {
    std::string frame = protocol::encodeFrame(body);
    size_t off = 0;
    while (off < frame.size()) {
        ssize_t n = ::write(in_, frame.data() + off, frame.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw std::runtime_error("write to engram failed: " + std::string(strerror(errno)));
        off += size_t(n);
    }
}

std::string LspChild::readFrame(Clock::time_point& at) {
    while (pending_.empty()) {
        pollfd p{out_, POLLIN, 0};
        int r = ::poll(&p, 1, kTimeoutMs);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) throw std::runtime_error("engram did not answer within the timeout");
        char buf[65536];
        ssize_t n = ::read(out_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error("engram closed its output");
        auto now = Clock::now();
        std::vector<protocol::FrameEvent> events;
        dec(decoder_).feed(std::string_view(buf, size_t(n)), events);
        for (auto& e : events) {
            if (e.kind == protocol::FrameEvent::Error)
                throw std::runtime_error("bad frame from engram: " + e.text);
            pending_.push_back(std::move(e.text));
            pendingAt_.push_back(now);
        }
    }
    std::string body = std::move(pending_.front());
    at = pendingAt_.front();
    pending_.erase(pending_.begin());
    pendingAt_.erase(pendingAt_.begin());
    return body;
}

void LspChild::notify(const std::string& method, const json& params) {
    writeFrame(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump());
}

json LspChild::request(const std::string& method, const json& params, double* ms,
                       Clock::time_point* doneAt) {
    int64_t id = nextId_++;
    std::string body =
        json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
    auto t0 = Clock::now();
    writeFrame(body);
    while (true) {
        Clock::time_point at;
        std::string frame = readFrame(at);
        json msg = json::parse(frame, nullptr, false);
        // Anything else (a notification such as window/logMessage) is skipped.
        if (!msg.is_object() || !msg.contains("id") || msg["id"] != id) continue;
        if (ms) *ms = msBetween(t0, at);
        if (doneAt) *doneAt = at;
        if (msg.contains("error"))
            throw std::runtime_error(method + " failed: " + msg["error"].dump());
        return msg["result"];
    }
}

int LspChild::stop() {
    request("shutdown", nullptr);
    notify("exit", nullptr);
    ::close(in_);
    in_ = -1;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Memory readMemory(pid_t pid) {
    Memory m;
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmRSS:", 0) == 0) m.rssKb = std::stol(line.substr(6));
        if (line.rfind("VmHWM:", 0) == 0) m.hwmKb = std::stol(line.substr(6));
    }
    return m;
}

} // namespace engram::bench
