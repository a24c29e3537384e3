#include "util/Progress.h"

namespace engram::progress {

namespace {

thread_local Sink* tlSink = nullptr;

// 1234567 as "1,234,567".
std::string grouped(int64_t n) {
    std::string digits = std::to_string(n < 0 ? -n : n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

std::string seconds(double s) {
    char buf[32];
    if (s < 10)
        std::snprintf(buf, sizeof buf, "%.1f s", s);
    else if (s < 120)
        std::snprintf(buf, sizeof buf, "%.0f s", s);
    else
        std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
    return buf;
}

} // namespace

Scope::Scope(Sink sink)
    : outer_(tlSink)
    , sink_(std::move(sink)) {
    tlSink = &sink_;
}

Scope::~Scope() {
    tlSink = outer_;
}

bool active() {
    return tlSink != nullptr;
}

void report(const std::string& what, int64_t done, int64_t total, int64_t bytes) {
    if (tlSink) (*tlSink)(what, done, total, bytes);
}

TerminalMeter::TerminalMeter(std::string label, std::FILE* out)
    : label_(std::move(label))
    , out_(out)
    , started_(std::chrono::steady_clock::now()) {}

TerminalMeter::~TerminalMeter() {
    if (shown_) draw(true);
}

void TerminalMeter::operator()(const std::string& what, int64_t done, int64_t total,
                               int64_t bytes) {
    // A new kind of work (the claim files, then the source files) keeps
    // the finished one's line and starts its own.
    if (shown_ && what != what_) {
        draw(true);
        started_ = std::chrono::steady_clock::now();
        shown_ = false;
    }
    what_ = what;
    done_ = done;
    total_ = total;
    bytes_ = bytes;
    auto now = std::chrono::steady_clock::now();
    if (shown_ && now - drawn_ < std::chrono::milliseconds(100) && done != total) return;
    drawn_ = now;
    draw(false);
}

void TerminalMeter::draw(bool final) {
    shown_ = true;
    std::string line = label_ + ": " + what_ + " " + grouped(done_);
    if (total_ >= 0) {
        line += "/" + grouped(total_);
        if (total_ > 0) line += " (" + std::to_string(done_ * 100 / total_) + "%)";
    }
    if (bytes_ >= 0) {
        char mb[32];
        std::snprintf(mb, sizeof mb, "%.1f MB", double(bytes_) / 1e6);
        line += std::string(" · ") + mb;
    }
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (final)
        line += " · " + seconds(elapsed);
    else if (total_ > 0 && done_ > 0 && done_ < total_ && elapsed >= 0.5) // a rate to go by
        line += " · ETA " + seconds(elapsed / double(done_) * double(total_ - done_));
    // Back to the line's start and clear what a longer line left.
    std::fprintf(out_, "\r%s\x1b[K%s", line.c_str(), final ? "\n" : "");
    std::fflush(out_);
}

} // namespace engram::progress
