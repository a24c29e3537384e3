// Delegation packets through the engine and protocol/Packet: determinism
// and content addressing (invariant 7), tamper and binding checks, the
// budget (a property test over random stores), honest gaps and no leak.
#include "engine/Engine.h"
#include "ops/op/Ops.h"
#include "protocol/Packet.h"
#include "support/TempDir.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Utf8.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <functional>
#include <random>
#include <set>
#include <sys/stat.h>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_DelegateTest {

using namespace engram;
using engram::protocol::json;
using engram::test::TempDir;

namespace {

struct Workspace {
    TempDir home;
    TempDir dir;
    std::string root = dir.path();
    std::unique_ptr<Engine> engine;
    Workspace() { open(); }
    void open() {
        engine = std::make_unique<Engine>(EngineOptions{root, "test", home.path(), 30, "test"});
    }
    Claim remember(const std::string& text, const std::string& label = "",
                   std::vector<AnchorSpec> anchors = {}, const std::string& tier = "project") {
        RememberRequest r;
        r.text = text;
        if (!label.empty()) r.label = label;
        r.agent = "claude:parent";
        r.anchors = std::move(anchors);
        r.tier = tier;
        return engine->remember(r).claim;
    }
    json packet(const std::string& task, std::vector<std::string> paths = {}, bool sign = false,
                std::optional<int> maxItems = std::nullopt,
                std::optional<int> maxChars = std::nullopt) {
        DelegateRequest d;
        d.task = task;
        d.agent = "claude:parent";
        d.paths = std::move(paths);
        d.sign = sign;
        d.maxItems = maxItems;
        d.maxChars = maxChars;
        return protocol::packetJson(ops::delegate::machine(*engine), engine->delegate(d).packet,
                                    d.sign);
    }
    VerifyPacketResult verify(const json& p, int64_t lifetime = protocol::kDefaultPacketLifetime) {
        return protocol::verifyPacket(ops::delegate::machine(*engine), {p, lifetime});
    }
};

std::set<std::string> itemIds(const json& p) {
    std::set<std::string> out;
    for (auto& it : p["items"])
        out.insert(it["id"].get<std::string>());
    return out;
}

bool hasReason(const VerifyPacketResult& r, const std::string& prefix) {
    for (auto& reason : r.reasons)
        if (reason.starts_with(prefix)) return true;
    return false;
}

std::string without(json p, std::initializer_list<const char*> keys) {
    for (auto k : keys)
        p.erase(k);
    return p.dump();
}

bool haveGit() {
    return std::system("git --version >/dev/null 2>&1") == 0;
}

int sh(const std::string& cmd) {
    return std::system(cmd.c_str());
}

} // namespace

TEST_CASE("the same store and request give a byte-identical packet and packet_id", "[delegate]") {
    Workspace w;
    w.dir.write("src/auth.py",
                "class TokenValidator:\n    def validate(self, t):\n        return t\n");
    w.remember("TokenValidator.validate rejects expired tokens silently; callers must check ok",
               "validate-silent", {{"src/auth.py", "TokenValidator.validate"}});
    w.remember("tokens expire after one hour", "token-ttl");
    w.remember("prefer small pull requests", "small-prs", {}, "medulla");

    json a = w.packet("fix token expiry handling", {"src/auth.py"});
    json b = w.packet("fix token expiry handling", {"src/auth.py"});
    CHECK(a["packet_id"] == b["packet_id"]);
    CHECK(without(a, {"created_at", "signature"}) == without(b, {"created_at", "signature"}));
    CHECK(a["packet_id"].get<std::string>().size() == 64);
    CHECK(a["packet_id"] == protocol::packetId(a));
    // A fresh engine on the same files composes the same packet.
    w.open();
    json c = w.packet("fix token expiry handling", {"src/auth.py"});
    CHECK(c["packet_id"] == a["packet_id"]);

    // Labelled items, ordered by score then id.
    REQUIRE(a["items"].size() >= 2);
    for (auto& it : a["items"])
        for (const char* k : {"id", "version", "text", "kind", "tier", "origin", "source_agent",
                              "age_days", "stale", "anchor_state", "confidence", "score", "why"})
            CHECK(it.contains(k));
    for (size_t i = 1; i < a["items"].size(); ++i) {
        double s0 = a["items"][i - 1]["score"], s1 = a["items"][i]["score"];
        CHECK((s0 > s1 || (s0 == s1 && a["items"][i - 1]["id"] < a["items"][i]["id"])));
    }
    // The anchored claim is judged; the unanchored one says so.
    for (auto& it : a["items"])
        CHECK(it["anchor_state"] == (it["text"].get<std::string>().starts_with("TokenValidator")
                                         ? "intact"
                                         : "unanchored"));
    CHECK(a["limits"]["max_items"] == 20);
    CHECK(a["limits"]["max_chars"] == 8000);
    CHECK(!a["non_claims"].empty());
    CHECK(!a["instructions"].empty());
    CHECK(a["binding"]["root"] == w.root);
    CHECK(a["binding"]["fingerprint"] == w.engine->fingerprint());
    CHECK(w.verify(a).valid);
}

TEST_CASE("changing any chosen claim changes packet_id", "[delegate]") {
    Workspace w;
    w.remember("the cache is flushed on every deploy", "cache-flush");
    w.remember("the cache key includes the tenant", "cache-key");
    json before = w.packet("cache invalidation");
    REQUIRE(before["items"].size() == 2);

    SECTION("a new version of a chosen claim") {
        RememberRequest r;
        r.text = "the cache is flushed on every deploy and on schema changes";
        r.label = "cache-flush";
        r.agent = "claude:parent";
        w.engine->remember(r);
    }
    SECTION("feedback does not change the text but changes the score") {
        auto id = before["items"][0]["id"].get<std::string>();
        w.engine->learn(id, Verdict::Wrong, "human:ana", "");
    }
    SECTION("retracting a chosen claim") {
        w.engine->retract(before["items"][1]["id"].get<std::string>(), "human:ana", "obsolete");
    }
    json after = w.packet("cache invalidation");
    CHECK(after["packet_id"] != before["packet_id"]);
}

TEST_CASE("tampering with any field makes verifyPacket fail with a reason", "[delegate]") {
    Workspace w;
    w.remember("uploads must be virus scanned before storage", "scan-uploads");
    w.remember("uploads are limited to 10 MB", "upload-limit");
    json p = w.packet("change the upload pipeline", {}, true);
    REQUIRE(w.verify(p).valid);
    REQUIRE(p["signature"]["public_key"].is_string());

    std::vector<std::pair<std::string, std::function<void(json&)>>> edits = {
        {"schema", [](json& j) { j["schema"] = "engram.packet/0"; }},
        {"request", [](json& j) { j["request"]["task"] = "something else"; }},
        {"binding", [](json& j) { j["binding"]["fingerprint"] = "0000000000000000"; }},
        {"as_of", [](json& j) { j["as_of"] = "1999-01-01"; }},
        {"stale_days", [](json& j) { j["stale_days"] = 3650; }},
        {"items", [](json& j) { j["items"].erase(0); }},
        {"items[0].text", [](json& j) { j["items"][0]["text"] = "uploads need no scan"; }},
        {"items[0].anchor_state", [](json& j) { j["items"][0]["anchor_state"] = "intact!"; }},
        {"items[0].score", [](json& j) { j["items"][0]["score"] = 99.0; }},
        {"honest_gaps", [](json& j) { j["honest_gaps"]["drifted"]["count"] = 7; }},
        {"limits", [](json& j) { j["limits"]["max_items"] = 1; }},
        {"metrics", [](json& j) { j["metrics"]["budget_exhausted"] = true; }},
        {"non_claims", [](json& j) { j["non_claims"].clear(); }},
        {"instructions", [](json& j) { j["instructions"].push_back("promote everything"); }},
        {"added field", [](json& j) { j["extra"] = 1; }},
        {"packet_id", [](json& j) { j["packet_id"] = std::string(64, 'a'); }},
        {"created_at", [](json& j) { j["created_at"] = "2099-01-01T00:00:00Z"; }},
        {"signature.value",
         [](json& j) {
             auto v = j["signature"]["value"].get<std::string>();
             v[0] = v[0] == 'a' ? 'b' : 'a';
             j["signature"]["value"] = v;
         }},
        {"signature.public_key",
         [](json& j) {
             auto v = j["signature"]["public_key"].get<std::string>();
             v[5] = v[5] == 'a' ? 'b' : 'a';
             j["signature"]["public_key"] = v;
         }},
    };
    for (auto& [name, edit] : edits) {
        json t = p;
        edit(t);
        auto r = w.verify(t);
        INFO("tampered: " << name);
        CHECK_FALSE(r.valid);
        CHECK_FALSE(r.reasons.empty());
    }
    // Each reason names what failed.
    json t = p;
    t["items"][0]["text"] = "uploads need no scan";
    CHECK(hasReason(w.verify(t), "packet_id:"));
    t = p;
    t["created_at"] = "2099-01-01T00:00:00Z";
    auto r = w.verify(t);
    CHECK(hasReason(r, "signature.value:"));
    CHECK(hasReason(r, "created_at:"));
    // Not an object at all: a reason, not a crash.
    CHECK(hasReason(w.verify(json::array()), "packet:"));
    CHECK(hasReason(w.verify(json("x")), "packet:"));
}

TEST_CASE("a signature by another key fails, the key is private to the owner", "[delegate]") {
    Workspace w;
    w.remember("deploys happen on tuesdays", "deploy-day");
    json p = w.packet("schedule the deploy", {}, true);
    REQUIRE(w.verify(p).valid);
    REQUIRE(w.verify(p).signedByThisMachine == true);

    struct stat st;
    REQUIRE(::stat((w.home.path() + "/keys/packet.key").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    // The key is made once and reused.
    json p2 = w.packet("schedule the deploy", {}, true);
    CHECK(p2["signature"]["public_key"] == p["signature"]["public_key"]);

    // Another machine's key: valid against its own public key, not ours.
    TempDir otherHome;
    Engine other(EngineOptions{w.root, "test", otherHome.path(), 30, "test"});
    DelegateRequest d;
    d.task = "schedule the deploy";
    d.agent = "claude:parent";
    d.sign = true;
    json foreign =
        protocol::packetJson(ops::delegate::machine(other), other.delegate(d).packet, d.sign);
    CHECK(foreign["packet_id"] == p["packet_id"]);
    auto r = w.verify(foreign);
    CHECK_FALSE(r.valid);
    CHECK(r.signedByThisMachine == false);
    CHECK(hasReason(r, "signature.public_key:"));

    // Our public key with another key's signature value.
    json mixed = p;
    mixed["signature"]["value"] = foreign["signature"]["value"];
    mixed["created_at"] = foreign["created_at"];
    r = w.verify(mixed);
    CHECK_FALSE(r.valid);
    CHECK(hasReason(r, "signature.value:"));
}

TEST_CASE("a packet whose root or HEAD no longer matches is reported", "[delegate]") {
    Workspace w;
    w.remember("the parser is recursive descent", "parser");

    SECTION("another root") {
        json p = w.packet("parser work");
        TempDir otherRoot;
        Engine other(EngineOptions{otherRoot.path(), "test", w.home.path(), 30, "test"});
        auto r = protocol::verifyPacket(ops::delegate::machine(other),
                                        {p, protocol::kDefaultPacketLifetime});
        CHECK_FALSE(r.valid);
        CHECK(hasReason(r, "binding.root:"));
        CHECK(hasReason(r, "binding.fingerprint:"));
    }
    SECTION("past its lifetime") {
        json p = w.packet("parser work");
        p["created_at"] = "2001-01-01T00:00:00Z"; // unsigned: the hash does not cover it
        auto r = w.verify(p);
        CHECK_FALSE(r.valid);
        CHECK(hasReason(r, "created_at:"));
        json fresh = w.packet("parser work");
        CHECK_FALSE(w.verify(fresh, 1).reasons.size() > 1);
    }
    SECTION("a new commit moves HEAD") {
        if (!haveGit()) {
            WARN("git is not installed: the HEAD check is not exercised");
            return;
        }
        std::string g = "git -C '" + w.root + "' -c user.name=t -c user.email=t@t ";
        w.dir.write("a.txt", "one\n");
        REQUIRE(sh(g + "init -q") == 0);
        REQUIRE(sh(g + "add a.txt") == 0);
        REQUIRE(sh(g + "commit -q -m one") == 0);
        json p = w.packet("parser work");
        REQUIRE(p["binding"]["git"].is_object());
        CHECK(p["binding"]["git"]["head"].get<std::string>().size() == 40);
        CHECK(p["binding"]["git"]["dirty"] == false);
        CHECK(w.verify(p).valid);

        w.dir.write("a.txt", "two\n");
        json dirty = w.packet("parser work");
        CHECK(dirty["binding"]["git"]["dirty"] == true);
        REQUIRE(sh(g + "commit -q -am two") == 0);
        auto r = w.verify(p);
        CHECK_FALSE(r.valid);
        CHECK(hasReason(r, "binding.git.head:"));
    }
}

TEST_CASE("property: limits are never exceeded and budget_exhausted says when they bind",
          "[delegate][property]") {
    Workspace w;
    std::mt19937 rng(20260705);
    const std::vector<std::string> words = {"cache", "token", "parser", "deploy", "queue",
                                            "retry", "index", "schema", "upload", "tenant"};
    auto pick = [&](size_t n) { return size_t(rng() % n); };
    int stored = 0;
    for (int iter = 0; iter < 60; ++iter) {
        // Grow the store by a few random claims of random length.
        int add = 1 + int(pick(4));
        for (int k = 0; k < add; ++k) {
            std::string text;
            size_t len = 3 + pick(40);
            for (size_t i = 0; i < len; ++i)
                text += words[pick(words.size())] + (i + 1 < len ? " " : "");
            text += " " + std::to_string(stored++);
            w.remember(text);
        }
        int maxItems = 1 + int(pick(8));
        int maxChars = 20 + int(pick(600));
        std::string task = words[pick(words.size())] + " " + words[pick(words.size())];
        json p = w.packet(task, {}, false, maxItems, maxChars);
        INFO("iteration " << iter << " max_items " << maxItems << " max_chars " << maxChars);
        REQUIRE(int(p["items"].size()) <= maxItems);
        int64_t chars = 0;
        for (auto& it : p["items"])
            chars += int64_t(utf8Length(it["text"].get<std::string>()));
        REQUIRE(chars <= maxChars);
        CHECK(chars == p["metrics"]["chars"].get<int64_t>());
        const auto& m = p["metrics"];
        bool bound = m["eligible"].get<int64_t>() > m["included"].get<int64_t>();
        CHECK(m["budget_exhausted"].get<bool>() == bound);
        CHECK(m["why"].empty() == !bound);
        CHECK(m["included"].get<int64_t>() == int64_t(p["items"].size()));
    }
}

TEST_CASE("drifted claims come marked unverified, while orphaned, frontier and retracted ones are "
          "left out and counted",
          "[delegate]") {
    Workspace w;
    w.dir.write("src/pay.py", "def charge(a):\n    return a\n\ndef refund(a):\n    return a\n");
    w.remember("charge rounds amounts to cents", "charge-cents", {{"src/pay.py", "charge"}});
    w.remember("refund amounts are never rounded", "refund-round", {{"src/pay.py", "refund"}});
    w.remember("charge and refund amounts are stored as integers", "int-amounts");
    // Each relevant to the task (rounding, charge, refund), not only
    // sharing `amounts` with every claim: a match that weak is under the
    // packet's relevance floor (below_floor counts it).
    Claim gone = w.remember("negative amounts are rounded to zero before a charge", "negative");
    w.engine->retract(gone.id, "human:ana", "wrong");
    ContributeRequest cr;
    cr.agent = "claude:child";
    cr.items.push_back({"refund amounts are logged before charging", {}, {}, {}, {}, {}, {}});
    REQUIRE(w.engine->contribute(cr).stored == 1);

    // charge drifts, refund disappears.
    w.dir.write("src/pay.py", "def charge(a):\n    return round(a, 2)\n");
    json p = w.packet("amounts rounding charge refund", {"src/pay.py"});
    auto ids = itemIds(p);
    int unverified = 0;
    for (auto& it : p["items"]) {
        CHECK(it["anchor_state"] != "orphaned");
        // With its text, so the child can check it, and marked.
        CHECK((it["anchor_state"] == "drifted") == it.value("unverified", false));
        if (it.value("unverified", false)) {
            ++unverified;
            CHECK(it["text"] == "charge rounds amounts to cents");
        }
    }
    CHECK(unverified == 1);
    CHECK(ids.size() == 2); // int-amounts and the drifted charge-cents
    CHECK_FALSE(p["honest_gaps"].contains("drifted"));
    CHECK(p["honest_gaps"]["orphaned"]["count"] == 1);
    CHECK(p["honest_gaps"]["frontier"]["count"] == 1);
    CHECK(p["honest_gaps"]["retracted"]["count"] == 1);
    CHECK(p["honest_gaps"]["retracted"]["ids"][0] == gone.id);
}

TEST_CASE("a claim of another registered project is never in a packet", "[delegate]") {
    TempDir home, xd, yd;
    Engine x(EngineOptions{xd.path(), "test", home.path(), 30, "test"});
    Engine y(EngineOptions{yd.path(), "test", home.path(), 30, "test"});
    RememberRequest r;
    r.agent = "codex:maker";
    r.text = "the billing service retries webhooks three times";
    y.remember(r);
    r.text = "the billing service is owned by the payments team";
    x.remember(r);
    r.text = "billing changes need a second reviewer";
    r.tier = "medulla";
    x.remember(r);
    // Y is registered: tier all from X sees it, a packet never does.
    RecallRequest all;
    all.query = "billing service";
    all.tier = "all";
    REQUIRE(x.recall(all).rows.size() == 3);

    DelegateRequest d;
    d.task = "billing service webhooks";
    d.agent = "claude:parent";
    json p = protocol::packetJson(ops::delegate::machine(x), x.delegate(d).packet, d.sign);
    REQUIRE(p["items"].size() == 2);
    for (auto& it : p["items"]) {
        CHECK(it["text"] != "the billing service retries webhooks three times");
        CHECK((it["tier"] == "project" || it["tier"] == "medulla"));
    }
}

TEST_CASE("delegate refuses bad requests naming the field", "[delegate]") {
    Workspace w;
    DelegateRequest d;
    d.agent = "claude:parent";
    d.task = "  ";
    CHECK_THROWS_WITH(w.engine->delegate(d), Catch::Contains("task"));
    d.task = "ok";
    d.maxItems = 0;
    CHECK_THROWS_WITH(w.engine->delegate(d), Catch::Contains("max_items"));
    d.maxItems = std::nullopt;
    d.maxChars = -5;
    CHECK_THROWS_WITH(w.engine->delegate(d), Catch::Contains("max_chars"));
    d.maxChars = std::nullopt;
    d.paths = {"../../etc/passwd"};
    CHECK_THROWS_WITH(w.engine->delegate(d), Catch::Contains("paths[0]"));
    d.paths = {};
    d.task = std::string("bad \xff utf8");
    CHECK_THROWS_WITH(w.engine->delegate(d), Catch::Contains("task"));
    CHECK_THROWS_WITH(ops::delegate::parse(json{{"task", 3}, {"agent", "a"}}),
                      Catch::Contains("task"));
}

} // namespace unit_DelegateTest
