// Progress of long work, for a person watching a terminal: `engram
// reindex` over a million claim files, `engram init` indexing a large
// repository. The work reports where it is (report()); whether anyone sees
// it is the caller's choice: a Scope installs a sink on its thread for its
// lifetime, and without one report() costs a branch. The CLI installs a
// TerminalMeter only when standard error is a terminal and --json was not
// given, so pipes, CI logs and JSON readers get nothing. (The LSP reports
// its own work-done progress to the editor.)
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace engram::progress {

// what: the unit counted ("claim files"); total -1 when unknown; bytes -1
// when not counted.
using Sink =
    std::function<void(const std::string& what, int64_t done, int64_t total, int64_t bytes)>;

class Scope {
public:
    explicit Scope(Sink sink);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

private:
    Sink* outer_;
    Sink sink_;
};

// Whether a sink listens on this thread (work that must count first, a
// listing for a total, does so only then).
bool active();
void report(const std::string& what, int64_t done, int64_t total, int64_t bytes = -1);

// One line on a terminal, rewritten in place at most ten times a second:
// `reindex: claim files 12,345/100,000 (12%) · 40.2 MB · ETA 12 s`; the
// last state stays, with the time taken, when the meter goes.
class TerminalMeter {
public:
    TerminalMeter(std::string label, std::FILE* out);
    ~TerminalMeter();
    TerminalMeter(const TerminalMeter&) = delete;
    TerminalMeter& operator=(const TerminalMeter&) = delete;
    void operator()(const std::string& what, int64_t done, int64_t total, int64_t bytes);

private:
    void draw(bool final);
    std::string label_, what_;
    std::FILE* out_;
    int64_t done_ = 0, total_ = -1, bytes_ = -1;
    std::chrono::steady_clock::time_point started_, drawn_;
    bool shown_ = false;
};

} // namespace engram::progress
