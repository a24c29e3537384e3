// Content-Length frame decoding and encoding.
#include "protocol/Framing.h"

#include <algorithm>
#include <cctype>

namespace engram::protocol {

namespace {

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

size_t findContentLength(std::string_view s) {
    static constexpr std::string_view key = "content-length";
    for (size_t i = 0; i + key.size() <= s.size(); ++i)
        if (iequals(s.substr(i, key.size()), key)) return i;
    return std::string_view::npos;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

} // namespace

void FrameDecoder::feed(std::string_view bytes, std::vector<FrameEvent>& out) {
    // While skipping an oversized body, drop bytes before they are buffered.
    if (state_ == State::Skip) {
        size_t n = std::min(need_, bytes.size());
        need_ -= n;
        bytes.remove_prefix(n);
        if (need_ == 0) state_ = State::Header;
    }
    buf_.append(bytes);
    bool progress = true;
    while (progress) {
        progress = false;
        step(out, progress);
    }
}

void FrameDecoder::step(std::vector<FrameEvent>& out, bool& progress) {
    switch (state_) {
    case State::Skip: {
        size_t n = std::min(need_, buf_.size());
        buf_.erase(0, n);
        need_ -= n;
        if (need_ == 0) {
            state_ = State::Header;
            progress = true;
        }
        return;
    }
    case State::Resync: {
        size_t at = findContentLength(buf_);
        if (at == std::string::npos) {
            // Keep a tail that might be the start of a split "Content-Length".
            if (buf_.size() > 13) buf_.erase(0, buf_.size() - 13);
            return;
        }
        buf_.erase(0, at);
        state_ = State::Header;
        progress = true;
        return;
    }
    case State::Body:
        if (buf_.size() < need_) return;
        out.push_back({FrameEvent::Message, buf_.substr(0, need_)});
        buf_.erase(0, need_);
        state_ = State::Header;
        progress = true;
        return;
    case State::Header:
        break;
    }

    // Stray line breaks between frames are tolerated.
    size_t lead = 0;
    while (lead < buf_.size() && (buf_[lead] == '\r' || buf_[lead] == '\n'))
        ++lead;
    if (lead) buf_.erase(0, lead);
    if (buf_.empty()) return;

    size_t end = buf_.find("\r\n\r\n");
    if (end == std::string::npos) {
        if (buf_.size() > kMaxHeaderBytes) {
            out.push_back({FrameEvent::Error, "no complete header within " +
                                                  std::to_string(kMaxHeaderBytes) +
                                                  " bytes; skipping to the next Content-Length"});
            buf_.erase(0, buf_.size() - 13);
            state_ = State::Resync;
            progress = true;
        }
        return;
    }
    if (end > kMaxHeaderBytes) {
        out.push_back({FrameEvent::Error,
                       "header block longer than " + std::to_string(kMaxHeaderBytes) + " bytes"});
        buf_.erase(0, end + 4);
        state_ = State::Resync;
        progress = true;
        return;
    }

    std::string_view header(buf_.data(), end);
    std::string error;
    bool haveLength = false;
    size_t length = 0;
    while (!header.empty() && error.empty()) {
        size_t nl = header.find("\r\n");
        std::string_view line = header.substr(0, nl);
        header = nl == std::string_view::npos ? std::string_view{} : header.substr(nl + 2);
        size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            error = "malformed header line (no ':')";
            break;
        }
        std::string_view name = trim(line.substr(0, colon));
        std::string_view value = trim(line.substr(colon + 1));
        if (!iequals(name, "content-length")) continue; // Content-Type and others: ignored
        if (value.empty() || value.size() > 19 ||
            !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            error = "Content-Length '" + std::string(value.substr(0, 32)) + "' is not a number";
            break;
        }
        length = std::stoull(std::string(value));
        haveLength = true;
    }
    if (error.empty() && !haveLength) error = "missing Content-Length header";
    progress = true;
    if (!error.empty()) {
        out.push_back({FrameEvent::Error, error});
        // Stray bytes written just before a frame end up in its header block:
        // resume at a later Content-Length inside the block so that the frame
        // behind them is not lost too. Each retry drops at least one byte.
        size_t again = findContentLength(std::string_view(buf_).substr(1, end - 1));
        if (again != std::string_view::npos) {
            buf_.erase(0, again + 1);
            return;
        }
        buf_.erase(0, end + 4);
        state_ = State::Resync;
        return;
    }
    buf_.erase(0, end + 4);
    if (length > kMaxFrameBytes) {
        out.push_back({FrameEvent::Error,
                       "Content-Length " + std::to_string(length) + " exceeds the limit of " +
                           std::to_string(kMaxFrameBytes) + " bytes; the body is skipped"});
        need_ = length;
        state_ = State::Skip;
        return;
    }
    need_ = length;
    state_ = State::Body;
}

std::string encodeFrame(std::string_view body) {
    std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    out.append(body);
    return out;
}

} // namespace engram::protocol
