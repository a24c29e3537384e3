// A spawned engram process: run-to-exit commands and an LSP client over pipes.
//
// The wire numbers must include everything a real editor or agent pays:
// process creation, the dynamic loader, framing, JSON both ways and the pipe
// round trip. So the benchmark spawns the real binary with posix_spawn and
// talks Content-Length framed JSON-RPC to it, timing with steady_clock from
// just before the request is written to the moment the reply's frame is
// complete (JSON parsing of the reply happens after the clock stops).
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <sys/types.h>
#include <vector>

namespace engram::bench {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double msBetween(Clock::time_point a, Clock::time_point b);

// Runs argv to completion with output discarded; returns the exit status.
int runToExit(const std::vector<std::string>& argv);

// Runs argv to completion with `input` on its stdin (written, then closed)
// and stderr discarded; returns the exit status and fills `out` with stdout.
int runWithInput(const std::vector<std::string>& argv, const std::string& input, std::string& out);

class LspChild {
public:
    // Spawns argv with stdin/stdout piped and stderr to /dev/null.
    explicit LspChild(const std::vector<std::string>& argv);
    ~LspChild(); // kills the process if it is still running
    LspChild(const LspChild&) = delete;
    LspChild& operator=(const LspChild&) = delete;

    pid_t pid() const { return pid_; }
    Clock::time_point spawnedAt() const { return spawned_; }

    void notify(const std::string& method, const json& params);
    // Sends a request and blocks until its reply; `ms` receives the time from
    // just before the write to the complete reply frame, `doneAt` the moment
    // that frame completed. Throws on an error reply or when nothing arrives
    // within the timeout.
    json request(const std::string& method, const json& params, double* ms = nullptr,
                 Clock::time_point* doneAt = nullptr);
    // shutdown + exit, then waits; returns the exit status.
    int stop();

private:
    void writeFrame(const std::string& body);
    // The next complete frame, and when it completed.
    std::string readFrame(Clock::time_point& at);

    pid_t pid_ = -1;
    int in_ = -1, out_ = -1;
    Clock::time_point spawned_;
    int64_t nextId_ = 1;
    std::vector<std::string> pending_;
    std::vector<Clock::time_point> pendingAt_;
    void* decoder_ = nullptr; // protocol::FrameDecoder, kept out of this header
};

// VmRSS and VmHWM of a live process, in KiB (0 when unreadable).
struct Memory {
    long rssKb = 0, hwmKb = 0;
};
Memory readMemory(pid_t pid);

} // namespace engram::bench
