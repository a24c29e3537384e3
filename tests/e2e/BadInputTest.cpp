// Bad input gets a clear error and the server keeps serving (invariant 10):
// every case below is followed by a valid request that must be answered.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_BadInputTest {

using namespace engram::e2e;
using engram::test::TempDir;

namespace {

struct Bound {
    TempDir root;
    Server server;
    Bound() { server.initialize(root.path()); }

    // Proof of life: a valid request is answered with a result.
    void stillServes() {
        json reply = server.request("engram/status");
        INFO(reply.dump());
        CHECK(reply.contains("result"));
        CHECK(server.running());
    }
    json error(const std::string& method, const json& params) {
        json reply = server.request(method, params);
        INFO(reply.dump());
        REQUIRE(reply.contains("error"));
        return reply["error"];
    }
    // The next message must be an error reply with a null id.
    json nullIdError() {
        auto msg = server.readMessage();
        REQUIRE(msg);
        INFO(msg->dump());
        REQUIRE(msg->contains("error"));
        CHECK((*msg)["id"].is_null());
        return (*msg)["error"];
    }
};

std::string statusFrame(int id) {
    return frame(
        {{"jsonrpc", "2.0"}, {"id", id}, {"method", "engram/status"}, {"params", json::object()}});
}

} // namespace

TEST_CASE("64 KiB of random bytes do not stop the server, the next frame is answered",
          "[e2e][badinput]") {
    Bound b;
    std::mt19937 rng(0xE6A11);
    std::string noise(64 * 1024, '\0');
    for (auto& c : noise)
        c = char(rng() & 0xff);
    b.server.sendRaw(noise);
    int id = b.server.nextId();
    b.server.sendRaw(statusFrame(id));
    json reply = b.server.waitReply(id);
    CHECK(reply.contains("result"));
    b.stillServes();
}

TEST_CASE("a short stretch of garbage right before a frame costs one error, not the frame",
          "[e2e][badinput]") {
    Bound b;
    int id = b.server.nextId();
    b.server.sendRaw("this is not a header" + statusFrame(id));
    json reply = b.server.waitReply(id);
    CHECK(reply.contains("result"));
    b.stillServes();
}

TEST_CASE("a truncated body gets ParseError, answered to its id when the body shows one",
          "[e2e][badinput]") {
    Bound b;
    // A reply with id null matches no request: the client would wait on.
    b.server.sendRaw(frameBody(R"({"jsonrpc":"2.0","id":7,"method":"engram/sta)"));
    auto msg = b.server.readMessage();
    REQUIRE(msg);
    INFO(msg->dump());
    CHECK((*msg)["id"] == 7);
    CHECK((*msg)["error"]["code"] == -32700);
    CHECK((*msg)["error"]["data"]["kind"] == "ParseError");
    CHECK((*msg)["error"]["message"].get<std::string>().rfind(
              "the message body is not valid JSON: ", 0) == 0);
    // Invalid UTF-8 in a string, the id last.
    b.server.sendRaw(frameBody(
        "{\"jsonrpc\":\"2.0\",\"method\":\"engram/status\",\"params\":{\"root\":\"\xc3\x28\"},"
        "\"id\":8}"));
    msg = b.server.readMessage();
    REQUIRE(msg);
    CHECK((*msg)["id"] == 8);
    CHECK((*msg)["error"]["code"] == -32700);
    // No id before the cut: null is all there is to answer to.
    b.server.sendRaw(frameBody(R"({"jsonrpc":"2.0","method":"engram/sta)"));
    json err = b.nullIdError();
    CHECK(err["code"] == -32700);
    b.stillServes();
}

TEST_CASE("a frame truncated by the end of input ends the server cleanly", "[e2e][badinput]") {
    Bound b;
    REQUIRE(b.server.request("shutdown", nullptr).contains("result"));
    // The header promises 100 bytes, only 10 arrive, then the input ends.
    b.server.sendRaw("Content-Length: 100\r\n\r\n{\"jsonrpc\"");
    b.server.closeStdin();
    CHECK(b.server.waitExit() == 0);
}

TEST_CASE("a frame's declared length is honoured even when its body holds what looks like another "
          "frame",
          "[e2e][badinput]") {
    Bound b;
    // Content-Length counts the rest of this write exactly: a broken body
    // followed by what looks like a frame but is body bytes. The server must
    // not treat the inner frame as a request.
    int inner = b.server.nextId();
    std::string rest = "{\"x\":" + statusFrame(inner);
    b.server.sendRaw("Content-Length: " + std::to_string(rest.size()) + "\r\n\r\n" + rest);
    json err = b.nullIdError();
    CHECK(err["code"] == -32700);
    b.stillServes();
}

TEST_CASE("a 100 MB Content-Length is refused with ParseError naming the limit, skipped without "
          "allocating it",
          "[e2e][badinput][slow]") {
    Bound b;
    b.server.sendRaw("Content-Length: 104857600\r\n\r\n");
    json err = b.nullIdError();
    CHECK(err["code"] == -32700);
    CHECK(contains(err["message"], "limit"));
    CHECK(contains(err["message"], "104857600"));

    // Stream the 100 MB body past it; the server discards it as it goes.
    long peak = 0;
    std::string chunk(1 << 20, ' ');
    for (int i = 0; i < 100; ++i) {
        b.server.sendRaw(chunk);
        peak = std::max(peak, b.server.rssKiB());
    }
    INFO("peak VmRSS " << peak << " KiB");
    CHECK(peak > 0);
    CHECK(peak < 60 * 1024);
    b.stillServes();
    CHECK(b.server.rssKiB() < 60 * 1024);
}

TEST_CASE("a header without Content-Length gets ParseError", "[e2e][badinput]") {
    Bound b;
    b.server.sendRaw("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}");
    json err = b.nullIdError();
    CHECK(err["code"] == -32700);
    CHECK(contains(err["message"], "Content-Length"));
    b.stillServes();
}

TEST_CASE("a non-numeric, negative or absurd Content-Length gets ParseError", "[e2e][badinput]") {
    Bound b;
    for (std::string value : {"ten", "-5", "12abc", "99999999999999999999999999", ""}) {
        INFO("Content-Length: '" << value << "'");
        b.server.sendRaw("Content-Length: " + value + "\r\n\r\n{}");
        json err = b.nullIdError();
        CHECK(err["code"] == -32700);
        CHECK(err["data"]["kind"] == "ParseError");
        b.stillServes();
    }
}

TEST_CASE("a header block longer than 8 KiB gets ParseError", "[e2e][badinput]") {
    Bound b;
    b.server.sendRaw("X-Padding: " + std::string(10000, 'a') + "\r\nContent-Length: 2\r\n\r\n{}");
    json err = b.nullIdError();
    CHECK(err["code"] == -32700);
    b.stillServes();
}

TEST_CASE("a body that is not JSON gets ParseError", "[e2e][badinput]") {
    Bound b;
    for (std::string body : {"{not json", "", "\x01\x02\x03", "{\"a\":1}}"}) {
        INFO("body '" << body << "'");
        b.server.sendRaw(frameBody(body));
        json err = b.nullIdError();
        CHECK(err["code"] == -32700);
        b.stillServes();
    }
}

TEST_CASE("a body that is a JSON array, number, string or null gets InvalidRequest",
          "[e2e][badinput]") {
    Bound b;
    for (std::string body : {"[1,2,3]", "42", "\"engram/status\"", "null", "[]"}) {
        INFO("body " << body);
        b.server.sendRaw(frameBody(body));
        json err = b.nullIdError();
        CHECK(err["code"] == -32600);
        CHECK(err["data"]["kind"] == "InvalidRequest");
        b.stillServes();
    }
}

TEST_CASE("an unknown method gets MethodNotFound naming it", "[e2e][badinput]") {
    Bound b;
    json err = b.error("engram/frobnicate", json::object());
    CHECK(err["code"] == -32601);
    CHECK(err["data"]["kind"] == "MethodNotFound");
    CHECK(contains(err["message"], "engram/frobnicate"));
    // An unknown notification is ignored: no reply at all.
    b.server.notify("engram/unknownNotification", {{"x", 1}});
    int id = b.server.nextId();
    b.server.sendRaw(statusFrame(id));
    auto next = b.server.readMessage();
    REQUIRE(next);
    CHECK((*next)["id"] == id);
}

TEST_CASE("wrong parameter types get InvalidParams naming the field path", "[e2e][badinput]") {
    Bound b;
    json err = b.error("engram/recall", {{"query", "x"}, {"limit", "ten"}});
    CHECK(err["code"] == -32602);
    CHECK(err["data"]["kind"] == "InvalidParams");
    CHECK(contains(err["message"], "limit"));

    err =
        b.error("engram/remember", rememberParams("anchored", "", {{"anchors", {{{"path", 3}}}}}));
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "anchors[0].path"));

    err = b.error("engram/remember",
                  rememberParams("anchored", "", {{"anchors", {{{"path", "src/a.py"}}, 7}}}));
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "anchors[1]"));

    err = b.error("engram/remember", rememberParams("tagged", "", {{"tags", {"ok", 5}}}));
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "tags[1]"));

    err = b.error("engram/remember", rememberParams("sure", "", {{"confidence", "high"}}));
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "confidence"));

    err = b.error("engram/remember", rememberParams("too sure", "", {{"confidence", 1.5}}));
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "confidence"));

    err = b.error("engram/recall", {{"include", {"committed"}}});
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "include[0]"));

    err = b.error("engram/recall", {{"limit", 0}});
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "limit"));

    err = b.error("engram/get", {{"id", 12}});
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "id"));

    err = b.error("engram/recall", json::array({1, 2}));
    CHECK(err["code"] == -32602);

    CHECK_FALSE(std::filesystem::exists(claimsDir(b.root.path())));
    b.stillServes();
}

TEST_CASE("a missing required field gets InvalidParams naming it", "[e2e][badinput]") {
    Bound b;
    json err = b.error("engram/remember", {{"agent", "test:e2e"}});
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "text"));
    CHECK(err["data"]["field"] == "text");

    err = b.error("engram/remember", {{"text", "no agent given"}});
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "agent"));

    err = b.error("engram/remember", rememberParams("   "));
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "text"));

    err = b.error("engram/get", json::object());
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "id"));

    err = b.error("engram/retract", {{"id", "c-0000000000"}, {"agent", "test:e2e"}});
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "reason"));
    b.stillServes();
}

TEST_CASE("an id of the wrong type gets InvalidRequest with a null id", "[e2e][badinput]") {
    Bound b;
    for (json id : {json{{"a", 1}}, json::array({1}), json(1.5), json(true)}) {
        INFO("id " << id.dump());
        b.server.send({{"jsonrpc", "2.0"}, {"id", id}, {"method", "engram/status"}});
        json err = b.nullIdError();
        CHECK(err["code"] == -32600);
        CHECK(contains(err["message"], "id"));
        b.stillServes();
    }
    // String ids are valid and echoed back as strings.
    b.server.send({{"jsonrpc", "2.0"}, {"id", "req-1"}, {"method", "engram/status"}});
    json reply = b.server.waitReply("req-1");
    CHECK(reply.contains("result"));
}

TEST_CASE("a message without a method, or with a non-string method or params, gets InvalidRequest",
          "[e2e][badinput]") {
    Bound b;
    b.server.send({{"jsonrpc", "2.0"}, {"id", 900}, {"params", json::object()}});
    json reply = b.server.waitReply(900);
    REQUIRE(reply.contains("error"));
    CHECK(reply["error"]["code"] == -32600);

    b.server.send({{"jsonrpc", "2.0"}, {"id", 901}, {"method", 17}});
    reply = b.server.waitReply(901);
    REQUIRE(reply.contains("error"));
    CHECK(reply["error"]["code"] == -32600);

    b.server.send({{"jsonrpc", "2.0"}, {"id", 902}, {"method", "engram/status"}, {"params", "x"}});
    reply = b.server.waitReply(902);
    REQUIRE(reply.contains("error"));
    CHECK(reply["error"]["code"] == -32600);
    CHECK(reply["error"]["message"] == "params: must be an object or an array");
    CHECK(reply["error"]["data"]["field"] == "params");

    // The same checks, in the same words, as engram mcp's (protocol::checkMessage;
    // tests/mcp/raw.test.mjs): the version is required.
    b.server.send({{"id", 903}, {"method", "engram/status"}});
    reply = b.server.waitReply(903);
    REQUIRE(reply.contains("error"));
    CHECK(reply["error"]["code"] == -32600);
    CHECK(reply["error"]["message"] == "jsonrpc: must be \"2.0\"");
    CHECK(reply["error"]["data"]["field"] == "jsonrpc");
    b.stillServes();
}

TEST_CASE("many bad frames in one write each get exactly one error and good frames between them "
          "are answered",
          "[e2e][badinput]") {
    Bound b;
    int good1 = 1001, good2 = 1002;
    std::string batch = frameBody("{oops") + statusFrame(good1) + frameBody("[1]") +
                        "Content-Length: nine\r\n\r\n" + statusFrame(good2);
    b.server.sendRaw(batch);
    int nullErrors = 0;
    bool got1 = false, got2 = false;
    while (!(got1 && got2)) {
        auto msg = b.server.readMessage();
        REQUIRE(msg);
        if ((*msg)["id"].is_null()) {
            CHECK(msg->contains("error"));
            ++nullErrors;
        }
        if ((*msg)["id"] == good1) got1 = msg->contains("result");
        if ((*msg)["id"] == good2) got2 = msg->contains("result");
    }
    CHECK(nullErrors == 3);
    b.stillServes();
}

TEST_CASE("a 2 MiB frame arriving in many reads is decoded, and an over-long text is refused "
          "naming the field",
          "[e2e][badinput]") {
    Bound b;
    json err = b.error("engram/remember", rememberParams(std::string(2 << 20, 'a') + " b"));
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "text"));
    CHECK_FALSE(std::filesystem::exists(claimsDir(b.root.path())));
    b.stillServes();
}

TEST_CASE("an empty params array means no parameters, a non-empty one is refused naming params",
          "[e2e][badinput]") {
    Bound b;
    b.server.send(
        {{"jsonrpc", "2.0"}, {"id", 910}, {"method", "engram/status"}, {"params", json::array()}});
    json reply = b.server.waitReply(910);
    INFO(reply.dump());
    CHECK(reply.contains("result"));

    json err = b.error("engram/recall", json::array({"query"}));
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"].get<std::string>(), "params"));
    b.stillServes();
}

} // namespace e2e_BadInputTest
