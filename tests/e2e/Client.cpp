// The end-to-end harness: process spawning, framing and bounded waits.
#include "Client.h"

#include "support/EngramBinary.h"
#include "support/TempDir.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sodium.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace engram::e2e {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// A server that dies while we write to it must fail the test, not kill the
// test process with SIGPIPE.
const bool kSigpipeIgnored = [] {
    std::signal(SIGPIPE, SIG_IGN);
    return true;
}();

int msLeft(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return int(std::max<long long>(0, left.count()));
}

void setNonBlocking(int fd) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// The inherited environment minus anything that would point engram at the
// developer's real stores, plus the overrides.
std::vector<std::string> childEnv(const std::vector<std::string>& extra) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        std::string_view v(*e);
        if (v.rfind("ENGRAM_", 0) == 0 || v.rfind("XDG_DATA_HOME=", 0) == 0) continue;
        env.emplace_back(v);
    }
    for (auto& x : extra) {
        auto name = x.substr(0, x.find('=') + 1);
        std::erase_if(env, [&](const std::string& e) { return e.rfind(name, 0) == 0; });
        env.push_back(x);
    }
    return env;
}

std::vector<char*> cstrings(std::vector<std::string>& v) {
    std::vector<char*> out;
    for (auto& s : v)
        out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// fork + exec with the given descriptors as 0, 1 and 2. Everything the child
// needs is prepared before fork(); the child only calls async-signal-safe
// functions.
pid_t spawn(std::vector<std::string> argv, std::vector<std::string> env, const std::string& cwd,
            int in, int out, int err) {
    auto av = cstrings(argv);
    auto ev = cstrings(env);
    pid_t pid = ::fork();
    if (pid < 0) throw HarnessError(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
        if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
        if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
        // A bare program name is looked up on PATH (the tools the corpus
        // tests run); engram itself is always given by its path.
        ::execvpe(av[0], av.data(), ev.data());
        ::_exit(127);
    }
    return pid;
}

void makePipe(int fds[2]) {
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw HarnessError(std::string("pipe2 failed: ") + std::strerror(errno));
}

int decodeStatus(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

std::string describeId(const json& id) {
    return id.dump();
}

} // namespace

// ---------------------------------------------------------------- helpers

std::string frameBody(std::string_view body) {
    std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    out.append(body);
    return out;
}

std::string frame(const json& msg) {
    return frameBody(msg.dump());
}

std::string fileUri(const std::string& path) {
    std::string out = "file://";
    for (unsigned char c : path) {
        bool plain = std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~';
        if (plain) {
            out += char(c);
        } else {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            out += buf;
        }
    }
    return out;
}

std::string sha256Hex(std::string_view bytes) {
    unsigned char digest[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned char b : digest) {
        out += hex[b >> 4];
        out += hex[b & 15];
    }
    return out;
}

void copySampleWorkspace(const std::string& dir) {
    fs::copy(fs::path(ENGRAM_FIXTURES) / "sample-workspace", dir,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

std::optional<std::string> slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void spew(const std::string& path, const std::string& contents) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw HarnessError("cannot write " + path);
    out << contents;
}

std::vector<std::string> filesIn(const std::string& dir, const std::string& suffix) {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto& e : fs::directory_iterator(dir, ec)) {
        if (!e.is_regular_file()) continue;
        std::string name = e.path().filename().string();
        if (name.size() >= suffix.size() &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
            out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> rowIds(const json& recallResult) {
    std::vector<std::string> out;
    for (auto& row : recallResult.at("rows"))
        out.push_back(row.at("id").get<std::string>());
    return out;
}

json storeOf(const json& envelope, const std::string& tier) {
    for (auto& s : envelope.at("store"))
        if (s.at("tier") == tier) return s;
    return nullptr;
}

json rememberParams(const std::string& text, const std::string& label, const json& extra) {
    json p = {{"text", text}, {"agent", "test:e2e"}};
    if (!label.empty()) p["label"] = label;
    for (auto& [k, v] : extra.items())
        p[k] = v;
    return p;
}

std::string engramBinary() {
    const std::string& other = test::engramBinaryOverride();
    return other.empty() ? ENGRAM_BINARY : other;
}

std::string claimsDir(const std::string& root) {
    return root + "/.engram/claims";
}

// ---------------------------------------------------------------- Server

Server::Server(ServerOptions opts) {
    (void)kSigpipeIgnored;
    if (opts.home.empty()) {
        ownHome_ = std::make_unique<test::TempDir>();
        home_ = ownHome_->path();
    } else {
        home_ = opts.home;
    }
    static std::atomic<int> counter{0};
    logPath_ = home_ + "/serve-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) +
               ".stderr.log";

    mcp_ = opts.mcp;
    std::vector<std::string> argv = {engramBinary(), "--home", home_, mcp_ ? "mcp" : "serve"};
    // These tests read results as a program does: with their JSON.
    if (mcp_) argv.push_back("--structured");
    argv.insert(argv.end(), opts.args.begin(), opts.args.end());
    auto env = childEnv(opts.env);

    int inPipe[2], outPipe[2];
    makePipe(inPipe);
    makePipe(outPipe);
    int logFd = ::open(logPath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (logFd < 0) throw HarnessError("cannot create " + logPath_);
    pid_ = spawn(std::move(argv), std::move(env), opts.cwd, inPipe[0], outPipe[1], logFd);
    ::close(inPipe[0]);
    ::close(outPipe[1]);
    ::close(logFd);
    in_ = inPipe[1];
    out_ = outPipe[0];
    setNonBlocking(in_);
    setNonBlocking(out_);
}

Server::~Server() {
    if (!reaped_ && pid_ > 0) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (in_ >= 0) ::close(in_);
    if (out_ >= 0) ::close(out_);
}

std::string Server::log() const {
    return slurp(logPath_).value_or("");
}

void Server::fail(const std::string& what) const {
    std::string l = log();
    if (l.size() > 3000) l = "..." + l.substr(l.size() - 3000);
    throw HarnessError(what + "\n--- server stderr ---\n" + l);
}

bool Server::parseFrames() {
    bool any = false;
    for (;;) {
        size_t end = buf_.find("\r\n\r\n");
        if (end == std::string::npos) return any;
        std::string header = buf_.substr(0, end);
        size_t length = std::string::npos;
        std::istringstream lines(header);
        std::string line;
        while (std::getline(lines, line)) {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            auto colon = line.find(':');
            if (colon == std::string::npos) fail("malformed header from the server: " + header);
            std::string name = line.substr(0, colon);
            std::transform(name.begin(), name.end(), name.begin(), ::tolower);
            if (name == "content-length") length = std::stoul(line.substr(colon + 1));
        }
        if (length == std::string::npos) fail("frame from the server without Content-Length");
        if (buf_.size() < end + 4 + length) return any;
        std::string body = buf_.substr(end + 4, length);
        buf_.erase(0, end + 4 + length);
        json msg = json::parse(body, nullptr, false);
        if (msg.is_discarded()) fail("the server sent a body that is not JSON: " + body);
        inbox_.push_back(std::move(msg));
        any = true;
    }
}

// MCP's stdio transport: one message per line.
bool Server::parseLines() {
    bool any = false;
    for (size_t end; (end = buf_.find('\n')) != std::string::npos;) {
        std::string line = buf_.substr(0, end);
        buf_.erase(0, end + 1);
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        json msg = json::parse(line, nullptr, false);
        if (msg.is_discarded()) fail("the server sent a line that is not JSON: " + line);
        inbox_.push_back(std::move(msg));
        any = true;
    }
    return any;
}

// Reads whatever the server has written until the deadline, or until at
// least one new message arrived when wantMessage.
void Server::pump(Clock::time_point deadline, bool wantMessage) {
    while (!outEof_) {
        pollfd p{out_, POLLIN, 0};
        int rc = ::poll(&p, 1, msLeft(deadline));
        if (rc < 0) {
            if (errno == EINTR) continue;
            fail(std::string("poll failed: ") + std::strerror(errno));
        }
        if (rc == 0) return; // deadline
        char chunk[65536];
        ssize_t n = ::read(out_, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            outEof_ = true;
            return;
        }
        if (n == 0) {
            outEof_ = true;
            return;
        }
        buf_.append(chunk, size_t(n));
        if ((mcp_ ? parseLines() : parseFrames()) && wantMessage) return;
        if (Clock::now() >= deadline) return;
    }
}

void Server::sendRaw(std::string_view bytes) {
    // Write while also reading, so that a server blocked on a full stdout
    // pipe can never deadlock with us.
    auto deadline = Clock::now() + 3 * kTimeout;
    while (!bytes.empty()) {
        pollfd p[2] = {{in_, POLLOUT, 0}, {outEof_ ? -1 : out_, POLLIN, 0}};
        int rc = ::poll(p, 2, msLeft(deadline));
        if (rc < 0) {
            if (errno == EINTR) continue;
            fail(std::string("poll failed: ") + std::strerror(errno));
        }
        if (rc == 0) fail("timed out writing to the server's stdin");
        if (p[1].revents & (POLLIN | POLLHUP)) pump(Clock::now(), false);
        if (p[0].revents & (POLLERR | POLLHUP)) fail("the server closed its stdin");
        if (p[0].revents & POLLOUT) {
            ssize_t n = ::write(in_, bytes.data(), bytes.size());
            if (n < 0) {
                if (errno == EINTR || errno == EAGAIN) continue;
                fail(std::string("write to the server failed: ") + std::strerror(errno));
            }
            bytes.remove_prefix(size_t(n));
        }
    }
}

void Server::send(const json& msg) {
    sendRaw(mcp_ ? msg.dump() + "\n" : frame(msg));
}

void Server::closeStdin() {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
}

void Server::notify(const std::string& method, const json& params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", params}});
}

std::optional<json> Server::readMessage(std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (inbox_.empty()) {
        if (outEof_) return std::nullopt;
        if (Clock::now() >= deadline) fail("timed out waiting for a message from the server");
        pump(deadline, true);
    }
    json msg = std::move(inbox_.front());
    inbox_.pop_front();
    return msg;
}

json Server::waitReply(const json& id, std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    for (;;) {
        for (auto it = inbox_.begin(); it != inbox_.end(); ++it) {
            if (it->contains("id") && (*it)["id"] == id && !it->contains("method")) {
                json msg = std::move(*it);
                inbox_.erase(it);
                return msg;
            }
        }
        if (outEof_) fail("the server closed its output before replying to id " + describeId(id));
        if (Clock::now() >= deadline)
            fail("timed out waiting for the reply to id " + describeId(id));
        pump(deadline, true);
    }
}

json Server::waitDiagnostics(const std::string& uri, int version) {
    for (int i = 0; i < 200; ++i) {
        auto msg = readMessage();
        if (!msg) fail("the server closed its output before diagnostics for " + uri);
        if (msg->value("method", "") != "textDocument/publishDiagnostics") continue;
        const json& p = (*msg)["params"];
        if (p["uri"] != uri || (version && p.value("version", -1) != version)) continue;
        return p;
    }
    fail("no diagnostics for " + uri + " in 200 messages");
}

json Server::waitReplyWithNullId(std::chrono::milliseconds timeout) {
    return waitReply(nullptr, timeout);
}

json Server::request(const std::string& method, const json& params,
                     std::chrono::milliseconds timeout) {
    int id = nextId();
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return waitReply(id, timeout);
}

json Server::call(const std::string& method, const json& params,
                  std::chrono::milliseconds timeout) {
    json reply = request(method, params, timeout);
    if (!reply.contains("result"))
        throw HarnessError(method + " failed: " + reply.dump() + "\nparams: " + params.dump());
    return reply["result"];
}

json Server::initialize(const std::string& root) {
    json result = call(
        "initialize",
        {{"processId", ::getpid()}, {"rootUri", fileUri(root)}, {"capabilities", json::object()}});
    notify("initialized", json::object());
    return result;
}

json Server::initializeFolders(const std::vector<std::string>& roots, const json& capabilities) {
    json folders = json::array();
    for (auto& r : roots)
        folders.push_back({{"uri", fileUri(r)}, {"name", fs::path(r).filename().string()}});
    json result = call(
        "initialize",
        {{"processId", ::getpid()}, {"workspaceFolders", folders}, {"capabilities", capabilities}});
    notify("initialized", json::object());
    return result;
}

json Server::initializeMcp(const std::string& clientName) {
    json result = call("initialize", {{"protocolVersion", "2025-06-18"},
                                      {"capabilities", json::object()},
                                      {"clientInfo", {{"name", clientName}, {"version", "1"}}}});
    notify("notifications/initialized", json::object());
    return result;
}

bool Server::running() {
    if (reaped_) return false;
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        reaped_ = true;
        exitStatus_ = decodeStatus(status);
        return false;
    }
    return true;
}

int Server::waitExit(std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (running()) {
        if (Clock::now() >= deadline) {
            kill9();
            return kTimedOut;
        }
        // Keep draining stdout so the server never blocks on a full pipe.
        pump(std::min(deadline, Clock::now() + 5ms), false);
        if (outEof_) std::this_thread::sleep_for(2ms);
    }
    return exitStatus_;
}

void Server::kill9() {
    if (reaped_) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    exitStatus_ = decodeStatus(status);
}

long Server::rssKiB() const {
    auto status = slurp("/proc/" + std::to_string(pid_) + "/status");
    if (!status) return -1;
    auto at = status->find("VmRSS:");
    if (at == std::string::npos) return -1;
    return std::strtol(status->c_str() + at + 6, nullptr, 10);
}

// ---------------------------------------------------------------- CLI

json CliResult::parsed() const {
    json j = json::parse(out, nullptr, false);
    if (j.is_discarded())
        throw HarnessError("CLI stdout is not JSON:\n" + out + "\n--- stderr ---\n" + err);
    return j;
}

std::string describe(const CliResult& r) {
    return "exit " + std::to_string(r.exitCode) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

json position(const std::string& text, const std::string& snippet, size_t offset) {
    auto at = text.find(snippet);
    if (at == std::string::npos) throw HarnessError("'" + snippet + "' is not in the text");
    at += offset;
    int line = 0;
    size_t start = 0;
    for (size_t i = 0; i < at; ++i)
        if (text[i] == '\n') ++line, start = i + 1;
    return {{"line", line}, {"character", int(at - start)}};
}

bool contains(const std::string& hay, const std::string& needle) {
    return hay.find(needle) != std::string::npos;
}

CliResult runCli(const std::vector<std::string>& args, const std::vector<std::string>& env,
                 const std::string& stdinData, std::chrono::milliseconds timeout) {
    std::vector<std::string> argv = {engramBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return runProgram(std::move(argv), env, stdinData, timeout);
}

const std::vector<std::string>& fixedGitEnv() {
    static const std::vector<std::string> env = {
        "GIT_AUTHOR_NAME=tester",      "GIT_AUTHOR_EMAIL=tester@example.invalid",
        "GIT_COMMITTER_NAME=tester",   "GIT_COMMITTER_EMAIL=tester@example.invalid",
        "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
        "GIT_MERGE_AUTOEDIT=no",       "GIT_EDITOR=true"};
    return env;
}

CliResult runGit(const std::string& dir, std::vector<std::string> args) {
    args.insert(args.begin(), {"git", "-C", dir});
    return runProgram(args, fixedGitEnv());
}

CliResult gitOk(const std::string& dir, std::vector<std::string> args) {
    std::string what = "git " + (args.empty() ? std::string() : args[0]);
    CliResult r = runGit(dir, std::move(args));
    if (r.exitCode != 0) throw HarnessError(what + " in " + dir + ": " + describe(r));
    return r;
}

CliResult runProgram(std::vector<std::string> argv, const std::vector<std::string>& env,
                     const std::string& stdinData, std::chrono::milliseconds timeout) {
    (void)kSigpipeIgnored;
    int inPipe[2], outPipe[2], errPipe[2];
    makePipe(inPipe);
    makePipe(outPipe);
    makePipe(errPipe);
    pid_t pid = spawn(std::move(argv), childEnv(env), "", inPipe[0], outPipe[1], errPipe[1]);
    ::close(inPipe[0]);
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    int in = inPipe[1], out = outPipe[0], err = errPipe[0];
    setNonBlocking(in);
    CliResult r;
    std::string_view pending = stdinData;
    if (pending.empty()) {
        ::close(in);
        in = -1;
    }
    auto deadline = Clock::now() + timeout;
    bool timedOut = false;
    while (out >= 0 || err >= 0) {
        pollfd p[3] = {{in, POLLOUT, 0}, {out, POLLIN, 0}, {err, POLLIN, 0}};
        int rc = ::poll(p, 3, msLeft(deadline));
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) {
            timedOut = true;
            break;
        }
        if (in >= 0 && (p[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = ::write(in, pending.data(), pending.size());
            if (n > 0) pending.remove_prefix(size_t(n));
            if (n < 0 && errno != EAGAIN && errno != EINTR) pending = {};
            if (pending.empty()) {
                ::close(in);
                in = -1;
            }
        }
        for (int i = 1; i < 3; ++i) {
            int& fd = i == 1 ? out : err;
            if (fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char chunk[65536];
            ssize_t n = ::read(fd, chunk, sizeof chunk);
            if (n > 0)
                (i == 1 ? r.out : r.err).append(chunk, size_t(n));
            else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                ::close(fd);
                fd = -1;
            }
        }
    }
    for (int fd : {in, out, err})
        if (fd >= 0) ::close(fd);
    // Output closed: the process is exiting; still bound the wait.
    int status = 0;
    while (!timedOut) {
        pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            r.exitCode = decodeStatus(status);
            return r;
        }
        if (w < 0 && errno != EINTR) throw HarnessError("waitpid failed");
        if (Clock::now() >= deadline)
            timedOut = true;
        else
            std::this_thread::sleep_for(1ms);
    }
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.exitCode = kTimedOut;
    return r;
}

} // namespace engram::e2e
