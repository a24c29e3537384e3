// Stdio transport on libuv: bytes in through the frame decoder, frames out.
//
// stdin and stdout may each be a pipe, a socket, a terminal or a plain file
// (tests redirect them); libuv streams cover the first three and a file falls
// back to thread-pool reads / blocking writes. Writes to a stream are queued
// by libuv, so a client that writes a burst before reading replies never
// deadlocks the server.
#pragma once
#include "protocol/Framing.h"

#include <functional>
#include <memory>
#include <string>
#include <uv.h>

namespace engram {

class StdioTransport {
public:
    using OnFrame = std::function<void(protocol::FrameEvent&&)>;
    using OnEof = std::function<void()>;

    StdioTransport(uv_loop_t* loop, OnFrame onFrame, OnEof onEof);
    ~StdioTransport();
    StdioTransport(const StdioTransport&) = delete;
    StdioTransport& operator=(const StdioTransport&) = delete;

    void start();
    void send(const std::string& body);
    // Stops reading and closes the handles (the loop then runs dry).
    void close();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace engram
