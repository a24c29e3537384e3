// The end-to-end harness: drives the real engram binary over pipes.
//
// A Server spawns `engram --home <dir> serve` with its stdin and stdout
// connected to pipes and its stderr going to a log file, and speaks the LSP
// base protocol to it: Content-Length framed JSON-RPC (or, with `mcp`,
// `engram mcp` and MCP's stdio transport: one JSON-RPC message per line). Every wait is bounded
// (poll() with a deadline), so a hung or crashed server fails the test with
// a message that includes the server's log instead of hanging CI. The
// destructor kills and reaps a child that is still running.
//
// runCli() runs one CLI command to completion and captures its output.
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <utility>
#include <vector>

#include "support/TempDir.h"

namespace engram::e2e {

using json = nlohmann::json;
using namespace std::chrono_literals;

// Default bound on any single wait for the server.
inline constexpr std::chrono::milliseconds kTimeout = 10s;

// The exit code waitExit() reports when the process did not exit in time
// (it is then killed).
inline constexpr int kTimedOut = -1000;

// An error raised by the harness itself (timeout, EOF, malformed frame).
struct HarnessError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ServerOptions {
    // $ENGRAM_HOME for the process; a private temporary directory when empty.
    std::string home;
    // Arguments after `serve` (e.g. `--root DIR`).
    std::vector<std::string> args;
    // Extra environment, "NAME=value" each (overrides the inherited one).
    std::vector<std::string> env;
    // Working directory of the child; the test's own when empty.
    std::string cwd;
    // Run `engram mcp` (arguments after `mcp`) and speak MCP's line
    // transport instead of the LSP's frames.
    bool mcp = false;
};

class Server {
public:
    explicit Server(ServerOptions opts = {});
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    pid_t pid() const { return pid_; }
    const std::string& home() const { return home_; }
    // Everything the server wrote to stderr so far.
    std::string log() const;

    // Writes one framed message / raw bytes to the server's stdin.
    void send(const json& msg);
    void sendRaw(std::string_view bytes);
    void closeStdin();

    // A fresh request id.
    int nextId() { return ++lastId_; }
    // Sends a request and waits for the reply with its id (the whole reply
    // object: check "result" or "error").
    json request(const std::string& method, const json& params = json::object(),
                 std::chrono::milliseconds timeout = kTimeout);
    // As request(), but fails the test (throws) unless the reply is a result;
    // returns the result.
    json call(const std::string& method, const json& params = json::object(),
              std::chrono::milliseconds timeout = kTimeout);
    void notify(const std::string& method, const json& params = json::object());

    // The reply with this id (messages read on the way are kept for later).
    json waitReply(const json& id, std::chrono::milliseconds timeout = kTimeout);
    // The next message from the server, in arrival order, or nullopt when the
    // server closed its stdout. Throws on timeout.
    std::optional<json> readMessage(std::chrono::milliseconds timeout = kTimeout);
    // The params of the next textDocument/publishDiagnostics for `uri` (with
    // this version, unless 0); other messages on the way are skipped.
    json waitDiagnostics(const std::string& uri, int version = 0);
    // Replies without an id (null), e.g. errors for unparseable frames.
    json waitReplyWithNullId(std::chrono::milliseconds timeout = kTimeout);

    // `initialize` bound to root (as a file:// rootUri) followed by
    // `initialized`; returns the initialize result.
    json initialize(const std::string& root);
    // `initialize` with these workspace folders (file:// URIs, named after
    // their last component) and the given capabilities, followed by
    // `initialized`; returns the initialize result.
    json initializeFolders(const std::vector<std::string>& roots,
                           const json& capabilities = json::object());
    // MCP's `initialize` (protocol 2025-06-18, no roots capability: the
    // server binds its --root) followed by `notifications/initialized`.
    json initializeMcp(const std::string& clientName = "e2e");

    // Waits for the process to exit: its exit code, 128+signal when killed
    // by a signal, kTimedOut (after killing it) when it did not exit in time.
    int waitExit(std::chrono::milliseconds timeout = kTimeout);
    bool running();
    void kill9();
    // Resident memory of the process in KiB (/proc/<pid>/status VmRSS).
    long rssKiB() const;

private:
    void pump(std::chrono::steady_clock::time_point deadline, bool wantMessage);
    bool parseFrames();
    bool parseLines();
    [[noreturn]] void fail(const std::string& what) const;

    std::unique_ptr<test::TempDir> ownHome_;
    std::string home_;
    std::string logPath_;
    pid_t pid_ = -1;
    int in_ = -1;  // the child's stdin (we write)
    int out_ = -1; // the child's stdout (we read)
    bool outEof_ = false;
    int exitStatus_ = -1;
    bool reaped_ = false;
    int lastId_ = 0;
    bool mcp_ = false;
    std::string buf_;
    std::deque<json> inbox_;
};

struct CliResult {
    int exitCode = kTimedOut;
    std::string out;
    std::string err;
    // stdout parsed as JSON (throws HarnessError when it is not JSON).
    json parsed() const;
};

// "exit N", stdout and stderr: what a failed CLI expectation shows.
std::string describe(const CliResult& r);
bool contains(const std::string& hay, const std::string& needle);
// The LSP position (line, UTF-16 column of ASCII text) `offset` bytes into
// the first occurrence of `snippet` in `text`; throws when it is not there.
json position(const std::string& text, const std::string& snippet, size_t offset = 0);

// Runs `engram <args...>` to completion (bounded by timeout), feeding it
// `stdinData` and capturing stdout and stderr. The caller passes --home.
CliResult runCli(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                 const std::string& stdinData = "",
                 std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));

// Runs any program the same way (argv[0] is looked up on PATH when it holds
// no '/'), with the inherited environment minus ENGRAM_* variables.
CliResult runProgram(std::vector<std::string> argv, const std::vector<std::string>& env = {},
                     const std::string& stdinData = "",
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));

// The environment git runs with in tests: a fixed author, no user or
// system config, no editor, so the machine's git settings cannot change
// what a test sees.
const std::vector<std::string>& fixedGitEnv();
// `git -C dir args...` with fixedGitEnv().
CliResult runGit(const std::string& dir, std::vector<std::string> args);
// runGit that must succeed: a HarnessError naming the command, the
// directory and git's output when it does not.
CliResult gitOk(const std::string& dir, std::vector<std::string> args);

// `file://` URI of an absolute path.
std::string fileUri(const std::string& path);
// Lower-case hex SHA-256 (libsodium, independent of engram's own wrapper).
std::string sha256Hex(std::string_view bytes);
// Copies fixtures/sample-workspace into dir (which must exist).
void copySampleWorkspace(const std::string& dir);
// Reads a whole file; nullopt when it cannot be read.
std::optional<std::string> slurp(const std::string& path);
// Writes a whole file (not atomically: like an editor or a person would).
void spew(const std::string& path, const std::string& contents);
// Names of regular files in dir ending with suffix (sorted).
std::vector<std::string> filesIn(const std::string& dir, const std::string& suffix = "");
// Claim ids of a recall result's rows, in order.
std::vector<std::string> rowIds(const json& recallResult);
// The envelope's store entry for a tier ("project" / "medulla"); null when absent.
json storeOf(const json& envelope, const std::string& tier = "project");
// `engram/remember` params with the given text and label (empty = none),
// agent "test:e2e", merged with extra.
json rememberParams(const std::string& text, const std::string& label = "",
                    const json& extra = json::object());
// The engram binary under test: the one built beside the tests, or the one
// `--engram-binary` named.
std::string engramBinary();
// <root>/.engram/claims
std::string claimsDir(const std::string& root);
// Framed bytes of one JSON message.
std::string frame(const json& msg);
std::string frameBody(std::string_view body);

} // namespace engram::e2e
