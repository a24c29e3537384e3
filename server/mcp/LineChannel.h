// MCP's stdio transport: one JSON-RPC message per line, in and out.
//
// The MCP server runs on one thread, so this channel multiplexes with poll():
// while it waits for input it also drains queued output, and a reader that
// is slow to read our replies never blocks us from reading its requests (a
// client that writes a burst before reading would otherwise deadlock both
// processes on full pipes). A line longer than the limit is never buffered:
// its head and tail are kept (enough to find the request id) and the rest is
// dropped as it streams past.
#pragma once
#include <chrono>
#include <cstddef>
#include <deque>
#include <string>

namespace engram::mcp {

struct LineEvent {
    enum Kind { Line, Oversized } kind = Line;
    std::string text; // the line (without "\n"); for Oversized, its first bytes
    std::string tail; // Oversized: its last bytes
    size_t bytes = 0; // the line's length
};

class LineChannel {
public:
    // Uses the descriptors as they are (they stay open); pipes and sockets
    // are switched to non-blocking mode for the channel's life.
    LineChannel(int in, int out, size_t maxLine);
    ~LineChannel();
    LineChannel(const LineChannel&) = delete;
    LineChannel& operator=(const LineChannel&) = delete;

    // Waits at most `timeout` (negative: without limit) for input, writing
    // queued output meanwhile, and appends every complete line read to
    // `events`. Returns as soon as at least one event arrived, at end of
    // input, or when the time is up.
    void pump(std::chrono::milliseconds timeout, std::deque<LineEvent>& events);
    // Queues one message (a newline is appended).
    void send(std::string line);
    // Writes everything queued, waiting as long as the reader is there.
    void flush();
    bool inputClosed() const { return inEof_; }
    size_t maxLine() const { return maxLine_; }

private:
    void readSome(std::deque<LineEvent>& events);
    void writeSome();
    void split(std::deque<LineEvent>& events);

    int in_, out_;
    int inFlags_ = -1, outFlags_ = -1; // original flags, restored on destruction
    size_t maxLine_;
    std::string inBuf_;
    std::string outBuf_;
    size_t outPos_ = 0;
    bool inEof_ = false;
    bool outClosed_ = false; // the reader went away: output is dropped
    // Inside an oversized line: its head, a rolling tail and its length.
    bool skipping_ = false;
    LineEvent oversized_;
};

} // namespace engram::mcp
