// JSON parameter parsing names the offending field; output says "unknown".
#include "protocol/Convert.h"
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include <catch2/catch.hpp>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_ConvertTest {

using namespace engram;
using namespace engram::protocol;

namespace {

std::string errorOf(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::InvalidParams);
        return e.what();
    }
    return "(accepted)";
}

} // namespace

TEST_CASE("remember parameters are parsed with their nested shapes") {
    auto r = ops::remember::parse(json::parse(R"({
        "text": "t", "agent": "a", "label": "l", "kind": "gotcha", "tags": ["x"],
        "confidence": 0.9,
        "anchors": [{"path": "src/a.py"}, {"path": "b.txt", "range": {"start_line": 2, "end_line": 4}},
                    {"uri": "file:///w/c.py", "position": {"line": 9, "character": 0}}],
        "evidence": [{"type": "path", "value": "src/a.py"}, {"type": "note", "value": "seen in review"}],
        "tier": "medulla", "unknown_field": true})"));
    CHECK(r.text == "t");
    CHECK(*r.confidence == Approx(0.9));
    REQUIRE(r.anchors.size() == 3);
    CHECK(r.anchors[1].lines == std::make_pair(2, 4));
    CHECK(r.anchors[2].path == "/w/c.py");
    CHECK(*r.anchors[2].line == 10); // LSP lines are 0-based
    REQUIRE(r.evidence.size() == 2);
    CHECK(r.evidence[0].type == "path");
    CHECK(r.evidence[1].value == "seen in review");
    CHECK(r.tier == "medulla");
}

TEST_CASE("wrong parameter types name the field path") {
    using ops::remember::parse;
    CHECK(errorOf([] { parse(json::parse(R"({"agent": "a"})")); }).rfind("text:", 0) == 0);
    CHECK(errorOf([] {
              parse(json::parse(R"({"text": 1, "agent": "a"})"));
          }).rfind("text: expected a string, got a number", 0) == 0);
    CHECK(errorOf([] {
              parse(json::parse(R"({"text": "t", "agent": "a", "anchors": [{"path": 3}]})"));
          }).rfind("anchors[0].path:", 0) == 0);
    CHECK(errorOf([] {
              ops::recall::parse(json::parse(R"({"limit": "ten"})"));
          }).rfind("limit:", 0) == 0);
    CHECK(errorOf([] {
              ops::recall::parse(json::parse(R"({"tags": 1, "include": ["committed"]})"));
          }).rfind("include[0]:", 0) == 0);
    CHECK(errorOf([] { ops::recall::parse(json::parse(R"([1, 2])")); }).rfind("params:", 0) == 0);
    CHECK(errorOf([] {
              ops::recall::parse(json::parse(R"({"kinds": ["rumour"]})"));
          }).rfind("kinds[0]:", 0) == 0);
}

TEST_CASE("unknown provenance is shown as unknown, never dropped") {
    Claim c;
    c.id = "c-x";
    c.text = "hand written";
    json j = toJson(c);
    CHECK(j["source_agent"] == "unknown");
    CHECK(j["origin"] == "unknown");
    CHECK(j["created"] == "unknown");
    CHECK(j["kind"] == "unknown");
    CHECK(j["confidence"] == "unknown");
    RecallRow row;
    row.claim = c;
    row.anchorState = "unanchored";
    json r = ops::recall::toJson(row);
    CHECK(r["age"] == "unknown");
    CHECK(r["stale"] == "unknown");
    CHECK(r["anchor_state"] == "unanchored");
}

TEST_CASE("engine errors become JSON-RPC errors with a stable code and kind") {
    EngramError e(ErrorKind::WouldDowngrade, "would downgrade", {{"id", std::string("c-1")}});
    json reply = errorReply(7, e);
    CHECK(reply["id"] == 7);
    CHECK(reply["error"]["code"] == code::WouldDowngrade);
    CHECK(reply["error"]["data"]["kind"] == "WouldDowngrade");
    CHECK(reply["error"]["data"]["id"] == "c-1");

    // An error quoting a secret the caller sent does not echo it.
    const std::string token = "gh" + std::string("p_") + "Zq8LmN3vB7xK2pR9tY4wC6hJ1fD5sG0aE3uQ";
    EngramError unknown(ErrorKind::UnknownClaim, "no claim with id '" + token + "'",
                        {{"id", token}});
    std::string text = errorReply(8, unknown).dump();
    CHECK(text.find(token.substr(4)) == std::string::npos);
    CHECK(text.find("[REDACTED:github-token]") != std::string::npos);
}

} // namespace unit_ConvertTest
