// Content-Length framing: partial, coalesced and hostile input.
#include "protocol/Framing.h"

#include <catch2/catch.hpp>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_FramingTest {

using namespace engram::protocol;

namespace {

std::vector<FrameEvent> feedAll(FrameDecoder& d, std::string_view bytes, size_t chunk) {
    std::vector<FrameEvent> out;
    for (size_t i = 0; i < bytes.size(); i += chunk)
        d.feed(bytes.substr(i, chunk), out);
    return out;
}

} // namespace

TEST_CASE("frames split at every possible byte boundary decode the same") {
    std::string stream = encodeFrame(R"({"a":1})") + encodeFrame(R"({"b":"two"})");
    for (size_t chunk = 1; chunk <= stream.size(); ++chunk) {
        FrameDecoder d;
        auto events = feedAll(d, stream, chunk);
        REQUIRE(events.size() == 2);
        CHECK(events[0].kind == FrameEvent::Message);
        CHECK(events[0].text == R"({"a":1})");
        CHECK(events[1].text == R"({"b":"two"})");
        CHECK(d.buffered() == 0);
    }
}

TEST_CASE("headers are case-insensitive and other headers are ignored") {
    FrameDecoder d;
    std::vector<FrameEvent> out;
    d.feed("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
           out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].text == "{}");
}

TEST_CASE("a missing Content-Length is one error and the next frame still decodes") {
    FrameDecoder d;
    std::vector<FrameEvent> out;
    d.feed("Content-Type: x\r\n\r\n{\"lost\":true}" + encodeFrame("{}"), out);
    REQUIRE(out.size() == 2);
    CHECK(out[0].kind == FrameEvent::Error);
    CHECK(out[0].text.find("missing Content-Length") != std::string::npos);
    CHECK(out[1].kind == FrameEvent::Message);
    CHECK(out[1].text == "{}");
}

TEST_CASE("a non-numeric Content-Length is reported by value") {
    FrameDecoder d;
    std::vector<FrameEvent> out;
    d.feed("Content-Length: ten\r\n\r\n" + encodeFrame("[]"), out);
    REQUIRE(out.size() == 2);
    CHECK(out[0].text.find("'ten' is not a number") != std::string::npos);
    CHECK(out[1].text == "[]");
}

TEST_CASE("an oversized Content-Length is refused and its body skipped without buffering it") {
    FrameDecoder d;
    std::vector<FrameEvent> out;
    size_t big = kMaxFrameBytes + 1000;
    d.feed("Content-Length: " + std::to_string(big) + "\r\n\r\n", out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].kind == FrameEvent::Error);
    CHECK(out[0].text.find("exceeds the limit") != std::string::npos);
    // Stream the body in 1 MiB pieces: nothing accumulates.
    std::string piece(1 << 20, 'x');
    size_t sent = 0;
    while (sent + piece.size() <= big) {
        d.feed(piece, out);
        sent += piece.size();
        CHECK(d.buffered() == 0);
    }
    d.feed(std::string(big - sent, 'x') + encodeFrame("{\"after\":1}"), out);
    REQUIRE(out.size() == 2);
    CHECK(out[1].text == "{\"after\":1}");
}

TEST_CASE("garbage without a header end is dropped with one error and resynchronised") {
    FrameDecoder d;
    std::vector<FrameEvent> out;
    std::string junk(3 * kMaxHeaderBytes, '\x7f');
    d.feed(junk, out);
    CHECK(out.size() == 1);
    CHECK(d.buffered() < 64);
    d.feed(encodeFrame("{\"ok\":1}"), out);
    REQUIRE(out.size() == 2);
    CHECK(out[1].text == "{\"ok\":1}");
}

TEST_CASE("random bytes never make the decoder hold more than the limits") {
    FrameDecoder d;
    std::vector<FrameEvent> out;
    uint32_t x = 12345;
    std::string chunk(4096, '\0');
    for (int round = 0; round < 256; ++round) {
        for (auto& c : chunk) {
            x = x * 1664525u + 1013904223u;
            c = char(x >> 24);
        }
        d.feed(chunk, out);
        CHECK(d.buffered() <= kMaxHeaderBytes + chunk.size());
    }
}

TEST_CASE("encodeFrame counts bytes, not characters") {
    std::string body = "{\"t\":\"caf\xc3\xa9\"}";
    CHECK(encodeFrame(body).rfind("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n",
                                  0) == 0);
}

TEST_CASE("stray bytes just before a frame cost one error, not the frame behind them") {
    FrameDecoder d;
    std::vector<FrameEvent> out;
    d.feed("junk" + encodeFrame("{}"), out);
    REQUIRE(out.size() == 2);
    CHECK(out[0].kind == FrameEvent::Error);
    CHECK(out[1].kind == FrameEvent::Message);
    CHECK(out[1].text == "{}");
}

} // namespace unit_FramingTest
