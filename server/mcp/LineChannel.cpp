// Newline-delimited messages over stdio, multiplexed with poll().
#include "mcp/LineChannel.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace engram::mcp {

namespace {

constexpr size_t kHead = 4096; // of an oversized line: where a request id may sit
constexpr size_t kTail = 512;  // ... and where the SDKs put it (last member)
constexpr size_t kChunk = 64 * 1024;

// Pipes and sockets are switched to non-blocking mode; terminals and files
// are left alone (a terminal may be shared with the shell that started us,
// and a file never blocks). Returns the original flags, or -1 when untouched.
int makeNonBlocking(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return -1;
    int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || (flags & O_NONBLOCK)) return -1;
    if (::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) return -1;
    return flags;
}

void keepTail(std::string& tail, std::string_view more) {
    if (more.size() >= kTail) {
        tail.assign(more.substr(more.size() - kTail));
        return;
    }
    tail.append(more);
    if (tail.size() > kTail) tail.erase(0, tail.size() - kTail);
}

} // namespace

LineChannel::LineChannel(int in, int out, size_t maxLine)
    : in_(in)
    , out_(out)
    , maxLine_(maxLine) {
    inFlags_ = makeNonBlocking(in_);
    // stdin and stdout may be one socket: its flags are then already set.
    outFlags_ = makeNonBlocking(out_);
}

LineChannel::~LineChannel() {
    if (inFlags_ >= 0) ::fcntl(in_, F_SETFL, inFlags_);
    if (outFlags_ >= 0) ::fcntl(out_, F_SETFL, outFlags_);
}

void LineChannel::pump(std::chrono::milliseconds timeout, std::deque<LineEvent>& events) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + timeout;
    const size_t before = events.size();
    for (;;) {
        pollfd fds[2];
        int n = 0, inSlot = -1, outSlot = -1;
        if (!inEof_) {
            inSlot = n;
            fds[n++] = {in_, POLLIN, 0};
        }
        if (!outClosed_ && outPos_ < outBuf_.size()) {
            outSlot = n;
            fds[n++] = {out_, POLLOUT, 0};
        }
        if (n == 0) return;
        int wait = -1;
        if (timeout.count() >= 0) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            wait = int(std::max<int64_t>(0, left.count()));
        }
        int rc = ::poll(fds, nfds_t(n), wait);
        if (rc < 0) {
            if (errno == EINTR) continue;
            inEof_ = true; // nothing sensible left to wait for
            return;
        }
        if (outSlot >= 0 && fds[outSlot].revents) writeSome();
        if (inSlot >= 0 && fds[inSlot].revents) readSome(events);
        if (events.size() > before || inEof_ || rc == 0) return;
        if (timeout.count() >= 0 && Clock::now() >= deadline) return;
    }
}

void LineChannel::readSome(std::deque<LineEvent>& events) {
    char buf[kChunk];
    ssize_t n = ::read(in_, buf, sizeof buf);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
        n = 0; // a broken input is an ended one
    }
    if (n == 0) {
        inEof_ = true;
        // A last message without its newline still counts.
        if (skipping_) {
            keepTail(oversized_.tail, inBuf_);
            oversized_.bytes += inBuf_.size();
            events.push_back(std::move(oversized_));
            skipping_ = false;
        } else if (!inBuf_.empty()) {
            inBuf_.push_back('\n');
            split(events);
        }
        inBuf_.clear();
        return;
    }
    inBuf_.append(buf, size_t(n));
    split(events);
}

void LineChannel::split(std::deque<LineEvent>& events) {
    size_t start = 0;
    while (start < inBuf_.size()) {
        size_t nl = inBuf_.find('\n', start);
        std::string_view piece(inBuf_.data() + start,
                               (nl == std::string::npos ? inBuf_.size() : nl) - start);
        if (skipping_) {
            keepTail(oversized_.tail, piece);
            oversized_.bytes += piece.size();
            if (nl == std::string::npos) {
                start = inBuf_.size();
                break;
            }
            events.push_back(std::move(oversized_));
            oversized_ = {};
            skipping_ = false;
        } else if (piece.size() > maxLine_) {
            // Over the limit, with or without its end in sight: keep the head
            // and the tail, drop the rest.
            oversized_ = {LineEvent::Oversized, std::string(piece.substr(0, kHead)), {}, 0};
            keepTail(oversized_.tail, piece);
            oversized_.bytes = piece.size();
            if (nl == std::string::npos) {
                skipping_ = true;
                start = inBuf_.size();
                break;
            }
            events.push_back(std::move(oversized_));
            oversized_ = {};
        } else if (nl == std::string::npos) {
            break; // an incomplete line, still within the limit: wait for more
        } else {
            if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
            // Blank lines between messages are tolerated.
            if (piece.find_first_not_of(" \t") != std::string_view::npos)
                events.push_back({LineEvent::Line, std::string(piece), {}, piece.size()});
        }
        start = nl + 1;
    }
    inBuf_.erase(0, start);
}

void LineChannel::send(std::string line) {
    if (outClosed_) return;
    if (outPos_ == outBuf_.size()) {
        outBuf_.clear();
        outPos_ = 0;
    }
    outBuf_ += line;
    outBuf_ += '\n';
    writeSome(); // replies go out at once when the pipe has room
}

void LineChannel::writeSome() {
    while (!outClosed_ && outPos_ < outBuf_.size()) {
        ssize_t n = ::write(out_, outBuf_.data() + outPos_, outBuf_.size() - outPos_);
        if (n > 0) {
            outPos_ += size_t(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        // EPIPE and friends: nobody reads our replies any more.
        outClosed_ = true;
        outBuf_.clear();
        outPos_ = 0;
        return;
    }
    if (outPos_ == outBuf_.size()) {
        outBuf_.clear();
        outPos_ = 0;
    } else if (outPos_ > kChunk && outPos_ > outBuf_.size() / 2) {
        outBuf_.erase(0, outPos_);
        outPos_ = 0;
    }
}

void LineChannel::flush() {
    while (!outClosed_ && outPos_ < outBuf_.size()) {
        pollfd fd{out_, POLLOUT, 0};
        int rc = ::poll(&fd, 1, -1);
        if (rc < 0 && errno != EINTR) return;
        writeSome();
    }
}

} // namespace engram::mcp
