// Delegation over the LSP wire: a parent composes a packet, a child verifies
// it and contributes findings back, the parent reviews them; each step is
// one engram/* request to the real server.
#include "Client.h"

#include <catch2/catch.hpp>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_DelegateLspTest {

using namespace engram::e2e;
using engram::test::TempDir;

TEST_CASE("delegate, verifyPacket, contribute and review over the LSP wire", "[e2e][delegate]") {
    TempDir root;
    copySampleWorkspace(root.path());
    Server server;
    server.initialize(root.path());
    server.call("engram/remember", {{"text", "the session cache must be flushed on logout"},
                                    {"agent", "codex:maker"},
                                    {"label", "cache-flush"}});
    server.call("engram/remember", {{"text", "tokens are validated with constant-time comparison"},
                                    {"agent", "codex:maker"}});

    json d = server.call("engram/delegate", {{"task", "change how the session cache is flushed"},
                                             {"agent", "claude:orchestrator"},
                                             {"max_items", 5},
                                             {"sign", true}});
    INFO(d.dump(2));
    json packet = d["packet"];
    REQUIRE(packet.contains("packet_id"));
    REQUIRE(packet["items"].size() >= 1);
    CHECK(packet["items"][0]["text"] == "the session cache must be flushed on logout");
    CHECK(packet.contains("signature"));
    CHECK(d["envelope"].contains("trust_mode"));

    json v = server.call("engram/verifyPacket", {{"packet", packet}});
    CHECK(v["valid"] == true);
    CHECK(v["reasons"].empty());
    json tampered = packet;
    tampered["items"][0]["text"] = "the session cache need not be flushed";
    json bad = server.call("engram/verifyPacket", {{"packet", tampered}});
    CHECK(bad["valid"] == false);
    CHECK_FALSE(bad["reasons"].empty());

    json c = server.call("engram/contribute",
                         {{"agent", "claude:child"},
                          {"packet_id", packet["packet_id"]},
                          {"items",
                           {{{"text", "logout also clears the CSRF token"}},
                            {{"text", "the session cache must not be flushed on logout"},
                             {"label", "cache-flush"}}}}});
    INFO(c.dump(2));
    REQUIRE(c["items"].size() == 2);
    CHECK(c["items"][0]["status"] == "stored");
    CHECK(c["items"][1]["conflict"] == true);
    std::string contribution = c["items"][0]["contribution_id"];

    // Frontier: not recalled until reviewed.
    auto recalled = [&](const std::string& text) {
        json found = server.call("engram/recall", {{"query", "CSRF token logout"}});
        for (auto& row : found["rows"])
            if (row["text"] == text) return true;
        return false;
    };
    CHECK_FALSE(recalled("logout also clears the CSRF token"));
    json r = server.call("engram/review", {{"contribution_id", contribution},
                                           {"decision", "accept"},
                                           {"agent", "claude:orchestrator"},
                                           {"reason", "checked in the logout handler"}});
    CHECK(r["claim"]["status"] == "committed");
    CHECK(recalled("logout also clears the CSRF token"));
    CHECK(r["claim"]["accepted_by"] == "claude:orchestrator");

    json missing = server.request("engram/review", {{"contribution_id", contribution}});
    REQUIRE(missing.contains("error"));
    CHECK(missing["error"]["code"] == -32602);
}

} // namespace e2e_DelegateLspTest
