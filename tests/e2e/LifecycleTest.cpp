// LSP lifecycle of `engram serve`: initialize, binding, shutdown / exit,
// cancellation, driven over real pipes.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_LifecycleTest {

using namespace engram::e2e;
using engram::test::TempDir;

namespace {

json errorOf(const json& reply) {
    INFO(reply.dump());
    REQUIRE(reply.contains("error"));
    return reply["error"];
}

} // namespace

TEST_CASE("initialize binds rootUri and reports serverInfo, capabilities and the root fingerprint",
          "[e2e][lifecycle]") {
    TempDir root;
    Server s;
    json init = s.initialize(root.path());

    CHECK(init["serverInfo"]["name"] == "engram");
    CHECK(init["serverInfo"]["version"] == ENGRAM_VERSION);
    REQUIRE(init.contains("capabilities"));
    CHECK(init["capabilities"].contains("textDocumentSync"));
    auto& engram = init["capabilities"]["experimental"]["engram"];
    std::string expected = sha256Hex(root.path()).substr(0, 16);
    CHECK(engram["fingerprint"] == expected);
    auto methods = engram["methods"];
    CHECK(std::find(methods.begin(), methods.end(), "engram/recall") != methods.end());

    json status = s.call("engram/status");
    auto& binding = status["envelope"]["binding"];
    CHECK(binding["root"] == root.path());
    CHECK(binding["fingerprint"] == expected);
    CHECK(binding["source"] == "initialize");
    CHECK(binding["mismatch"] == false);
    CHECK(status["envelope"]["session"]["pid"] == s.pid());
}

TEST_CASE("the fingerprint is taken over the canonical root path, not the spelling in rootUri",
          "[e2e][lifecycle]") {
    TempDir root, other;
    std::filesystem::create_directory(root / "ws");
    std::filesystem::create_directory_symlink(root / "ws", other / "link");
    Server s;
    // Through a symlink and with a redundant "./" segment.
    json init = s.initialize(other.path() + "/./link");
    std::string canonical = root / "ws";
    CHECK(init["capabilities"]["experimental"]["engram"]["fingerprint"] ==
          sha256Hex(canonical).substr(0, 16));
    json status = s.call("engram/status");
    CHECK(status["envelope"]["binding"]["root"] == canonical);
}

TEST_CASE("a request before initialize is refused with ServerNotInitialized and the server still "
          "initializes afterwards",
          "[e2e][lifecycle]") {
    TempDir root;
    Server s;
    json err = errorOf(s.request("engram/status"));
    CHECK(err["code"] == -32002);
    CHECK(err["data"]["kind"] == "ServerNotInitialized");
    err = errorOf(s.request("engram/recall", {{"query", "anything"}}));
    CHECK(err["code"] == -32002);

    json init = s.initialize(root.path());
    CHECK(init["serverInfo"]["name"] == "engram");
    CHECK(s.call("engram/status")["envelope"]["binding"]["root"] == root.path());
}

TEST_CASE("a second initialize is refused and the first binding stays", "[e2e][lifecycle]") {
    TempDir first, second;
    Server s;
    s.initialize(first.path());
    json reply = s.request("initialize",
                           {{"rootUri", fileUri(second.path())}, {"capabilities", json::object()}});
    json err = errorOf(reply);
    CHECK(err["code"].get<int>() < 0);
    CHECK(err["message"].get<std::string>().find("initialize") != std::string::npos);
    CHECK(s.call("engram/status")["envelope"]["binding"]["root"] == first.path());
}

TEST_CASE("shutdown then exit ends the server with exit code 0", "[e2e][lifecycle]") {
    TempDir root;
    Server s;
    s.initialize(root.path());
    json reply = s.request("shutdown", nullptr);
    REQUIRE(reply.contains("result"));
    CHECK(reply["result"].is_null());
    s.notify("exit", nullptr);
    CHECK(s.waitExit() == 0);
}

TEST_CASE("exit without shutdown ends the server with exit code 1", "[e2e][lifecycle]") {
    TempDir root;
    Server s;
    s.initialize(root.path());
    s.notify("exit", nullptr);
    CHECK(s.waitExit() == 1);
}

TEST_CASE("end of input after shutdown exits 0, without shutdown exits 1", "[e2e][lifecycle]") {
    TempDir root;
    SECTION("after shutdown") {
        Server s;
        s.initialize(root.path());
        REQUIRE(s.request("shutdown", nullptr).contains("result"));
        s.closeStdin();
        CHECK(s.waitExit() == 0);
    }
    SECTION("without shutdown") {
        Server s;
        s.initialize(root.path());
        s.closeStdin();
        CHECK(s.waitExit() == 1);
    }
    SECTION("before initialize") {
        Server s;
        s.closeStdin();
        CHECK(s.waitExit() == 1);
    }
}

TEST_CASE("requests after shutdown are refused with InvalidRequest until exit",
          "[e2e][lifecycle]") {
    TempDir root;
    Server s;
    s.initialize(root.path());
    REQUIRE(s.request("shutdown", nullptr).contains("result"));
    json err = errorOf(s.request("engram/status"));
    CHECK(err["code"] == -32600);
    CHECK(err["data"]["kind"] == "InvalidRequest");
    err = errorOf(s.request("engram/remember", rememberParams("written after shutdown")));
    CHECK(err["code"] == -32600);
    CHECK_FALSE(std::filesystem::exists(claimsDir(root.path())));
    s.notify("exit", nullptr);
    CHECK(s.waitExit() == 0);
}

TEST_CASE("$/cancelRequest for a queued request answers it with RequestCancelled and every other "
          "request exactly once",
          "[e2e][lifecycle]") {
    TempDir root;
    Server s;
    s.initialize(root.path());
    s.call("engram/remember", rememberParams("Queued requests run one per loop turn", "queue"));

    // One write (well under PIPE_BUF, so the server reads it at once): six
    // requests, then a cancel for the last one, which is still queued when
    // the cancel is read because requests only run after the read returns.
    std::vector<int> ids;
    std::string batch;
    for (int i = 0; i < 6; ++i) {
        int id = s.nextId();
        ids.push_back(id);
        json params = i % 2 ? json{{"query", "queued requests"}} : json::object();
        batch += frame({{"jsonrpc", "2.0"},
                        {"id", id},
                        {"method", i % 2 ? "engram/recall" : "engram/status"},
                        {"params", params}});
    }
    int cancelled = ids.back();
    batch +=
        frame({{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", cancelled}}}});
    REQUIRE(batch.size() < 4096);
    s.sendRaw(batch);

    // A barrier: replies come in order of processing, so once the barrier's
    // reply is in, every earlier request has been answered.
    int barrier = s.nextId();
    s.send({{"jsonrpc", "2.0"},
            {"id", barrier},
            {"method", "engram/status"},
            {"params", json::object()}});
    std::map<int, std::vector<json>> replies;
    for (;;) {
        auto msg = s.readMessage();
        REQUIRE(msg);
        if (!msg->contains("id") || !(*msg)["id"].is_number_integer()) continue;
        int id = (*msg)["id"];
        if (id == barrier) break;
        replies[id].push_back(*msg);
    }
    REQUIRE(replies.size() == ids.size());
    for (int id : ids) {
        INFO("id " << id);
        REQUIRE(replies[id].size() == 1);
        const json& r = replies[id][0];
        if (id == cancelled) {
            REQUIRE(r.contains("error"));
            CHECK(r["error"]["code"] == -32800);
            CHECK(r["error"]["data"]["kind"] == "RequestCancelled");
        } else {
            CHECK(r.contains("result"));
        }
    }

    // Cancelling a request that was already answered changes nothing: no
    // second reply for it.
    s.notify("$/cancelRequest", {{"id", ids.front()}});
    int barrier2 = s.nextId();
    s.send({{"jsonrpc", "2.0"},
            {"id", barrier2},
            {"method", "engram/status"},
            {"params", json::object()}});
    auto next = s.readMessage();
    REQUIRE(next);
    CHECK((*next)["id"] == barrier2);
}

TEST_CASE("workspaceFolders binds the first folder and takes precedence over rootUri",
          "[e2e][lifecycle]") {
    TempDir folder, other;
    Server s;
    json init = s.call("initialize",
                       {{"rootUri", fileUri(other.path())},
                        {"workspaceFolders", {{{"uri", fileUri(folder.path())}, {"name", "ws"}}}},
                        {"capabilities", json::object()}});
    s.notify("initialized");
    CHECK(init["capabilities"]["experimental"]["engram"]["fingerprint"] ==
          sha256Hex(folder.path()).substr(0, 16));
    CHECK(s.call("engram/status")["envelope"]["binding"]["root"] == folder.path());

    json r =
        s.call("engram/remember", rememberParams("Folder claims live in the folder", "folder"));
    std::string id = r["claim"]["id"];
    CHECK(std::filesystem::exists(claimsDir(folder.path()) + "/" + id + ".md"));
    CHECK_FALSE(std::filesystem::exists(other / ".engram"));
}

TEST_CASE("initialize without a root binds the --root given on the command line",
          "[e2e][lifecycle]") {
    TempDir root;
    ServerOptions opts;
    opts.args = {"--root", root.path()};
    Server s(opts);
    json init = s.call("initialize", {{"rootUri", nullptr}, {"capabilities", json::object()}});
    CHECK(init["capabilities"]["experimental"]["engram"]["fingerprint"] ==
          sha256Hex(root.path()).substr(0, 16));
    json status = s.call("engram/status");
    CHECK(status["envelope"]["binding"]["root"] == root.path());
    CHECK(status["envelope"]["binding"]["source"] == "--root");
}

TEST_CASE("a rootUri that is not a file URI is refused with InvalidParams naming the field",
          "[e2e][lifecycle]") {
    Server s;
    json err = errorOf(s.request(
        "initialize", {{"rootUri", "https://example.com/repo"}, {"capabilities", json::object()}}));
    CHECK(err["code"] == -32602);
    CHECK(err["message"].get<std::string>().find("rootUri") != std::string::npos);
    // Still uninitialized: a valid initialize works afterwards.
    TempDir root;
    CHECK(s.initialize(root.path())["serverInfo"]["name"] == "engram");
}

} // namespace e2e_LifecycleTest
