// LSP base-protocol framing: `Content-Length` headers around JSON bodies.
//
// The decoder is a pure state machine fed whatever bytes arrive (partial
// frames, several frames at once, garbage). It never allocates more than the
// frame limit: a header announcing a larger body is reported and its body
// skipped as it streams past. After a malformed header it resynchronises on
// the next `Content-Length`, reporting one error per bad stretch, so a client
// bug costs one error reply rather than a dead server.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace engram::protocol {

// 16 MiB: far above any real request (claims are capped at 16 KiB of text),
// far below what would hurt a 2-core, shared machine.
inline constexpr size_t kMaxFrameBytes = 16u << 20;
inline constexpr size_t kMaxHeaderBytes = 8192;

struct FrameEvent {
    enum Kind { Message, Error } kind;
    std::string text; // the JSON body, or the error description
};

class FrameDecoder {
public:
    void feed(std::string_view bytes, std::vector<FrameEvent>& out);
    // Bytes held but not yet a complete frame (for tests and diagnostics).
    size_t buffered() const { return buf_.size(); }

private:
    enum class State { Header, Body, Skip, Resync };
    void step(std::vector<FrameEvent>& out, bool& progress);

    State state_ = State::Header;
    std::string buf_;
    size_t need_ = 0; // Body: body length; Skip: bytes left to discard
};

std::string encodeFrame(std::string_view body);

} // namespace engram::protocol
