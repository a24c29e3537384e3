// Tiers end to end: the no-leak permutation over the CLI and the LSP surface
// (two projects and a medulla on one machine), promotion with its witness,
// and tier all naming a registered project that is gone.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_TiersTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string readFileOrEmpty(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Machine {
    TempDir home, dirs;
    std::string x = dirs.path() + "/xproj", y = dirs.path() + "/yproj";
    Machine() {
        fs::create_directories(x);
        fs::create_directories(y);
    }
    CliResult run(const std::string& root, std::vector<std::string> args) const {
        std::vector<std::string> full = {"--root", root, "--home", home.path()};
        full.insert(full.end(), args.begin(), args.end());
        return runCli(full, {"ENGRAM_AGENT=codex:maker"});
    }
    json ok(const std::string& root, std::vector<std::string> args) const {
        args.insert(args.begin(), "--json");
        CliResult r = run(root, args);
        INFO("stdout: " << r.out << "\nstderr: " << r.err);
        REQUIRE(r.exitCode == 0);
        return r.parsed();
    }
};

const std::string kX = "parser alpha lives in X", kY = "parser alpha lives in Y",
                  kM = "parser alpha doctrine";

void seed(const Machine& m) {
    m.ok(m.x, {"remember", kX});
    m.ok(m.y, {"remember", kY});
    m.ok(m.x, {"remember", "--tier", "medulla", kM});
}

// The expected texts for a scope seen from X (fromX) or Y.
std::set<std::string> expected(bool fromX, const std::string& tier) {
    const std::string& own = fromX ? kX : kY;
    if (tier == "project") return {own};
    if (tier == "medulla") return {kM};
    if (tier == "all") return {kX, kY, kM};
    return {own, kM};
}

// Checks one recall answer: exactly the expected rows, each with the right
// tier and origin.
void checkRows(const json& result, bool fromX, const std::string& tier, const Machine& m) {
    INFO((fromX ? "from X" : "from Y") << ", tier " << tier << "\n" << result.dump(2));
    std::set<std::string> texts;
    for (auto& row : result["rows"]) {
        std::string text = row["text"];
        texts.insert(text);
        REQUIRE(row.contains("tier"));
        REQUIRE(row.contains("origin"));
        if (text == kM) {
            CHECK(row["tier"] == "medulla");
            CHECK(row["origin"] == "medulla");
        } else {
            bool rowIsX = text == kX;
            CHECK(row["tier"] == (rowIsX == fromX ? "project" : "other"));
            CHECK(row["origin"] == (rowIsX ? "project:xproj" : "project:yproj"));
            CHECK(row["store"] == (rowIsX ? m.x : m.y));
        }
        CHECK_FALSE(row["provenance"].get<std::string>().empty());
    }
    CHECK(texts == expected(fromX, tier));
}

} // namespace

TEST_CASE("no leak through the CLI: default, project, medulla and all from X and from Y",
          "[e2e][tiers]") {
    Machine m;
    seed(m);
    for (bool fromX : {true, false}) {
        for (std::string tier : {"default", "project", "medulla", "all"}) {
            std::vector<std::string> args = {"recall", "parser", "alpha"};
            if (tier != "default") args.insert(args.end(), {"--tier", tier});
            checkRows(m.ok(fromX ? m.x : m.y, args), fromX, tier, m);
        }
    }
}

TEST_CASE("no leak through the LSP surface: default, project, medulla and all from X and from Y",
          "[e2e][tiers]") {
    Machine m;
    seed(m);
    for (bool fromX : {true, false}) {
        ServerOptions opts;
        opts.home = m.home.path();
        Server server(opts);
        server.initialize(fromX ? m.x : m.y);
        for (std::string tier : {"default", "project", "medulla", "all"}) {
            json params = {{"query", "parser alpha"}};
            if (tier != "default") params["tier"] = tier;
            checkRows(server.call("engram/recall", params), fromX, tier, m);
        }
    }
}

TEST_CASE("promotion end to end: Y sees the copy with its chain, retracting it spares X's "
          "witness, a weaker re-promotion is refused",
          "[e2e][tiers]") {
    Machine m;
    json learned = m.ok(m.x, {"remember", "--label", "flaky-socket", "--confidence", "0.8",
                              "retry the flaky socket test twice before failing"});
    std::string id = learned["claim"]["id"];
    m.ok(m.y, {"remember", "unrelated y note"});

    json p = m.ok(
        m.x, {"promote", id, "--agent", "claude:orchestrator", "--reason", "seen in two projects"});
    std::string copy = p["medulla_copy"]["id"];
    CHECK(p["witness"]["promoted_to"] == copy);
    CHECK(p["medulla_copy"]["origin_claim"] == "project:xproj:" + id);
    CHECK(p["medulla_live"] == 1);

    json r = m.ok(m.y, {"recall", "flaky", "socket"});
    REQUIRE(r["rows"].size() == 1);
    CHECK(r["rows"][0]["id"] == copy);
    CHECK(r["rows"][0]["tier"] == "medulla");
    CHECK(r["rows"][0]["origin"] == "project:xproj");
    std::string chain = r["rows"][0]["provenance"];
    INFO(chain);
    CHECK(chain.find("learned in xproj by codex:maker on ") == 0);
    CHECK(chain.find("; promoted by claude:orchestrator on ") != std::string::npos);
    CHECK(chain.find(": seen in two projects") != std::string::npos);
    // The human rendering says it in words too.
    CliResult text = m.run(m.y, {"recall", "flaky", "socket"});
    CHECK(text.out.find("learned in xproj by codex:maker") != std::string::npos);

    // Weaker: the project claim is superseded at a lower confidence first.
    m.ok(m.x, {"remember", "--label", "flaky-socket", "--confidence", "0.5", "--force-reason",
               "less sure", "retry the flaky socket test once"});
    CliResult weak = m.run(m.x, {"--json", "promote", id, "--reason", "again"});
    INFO(weak.out << weak.err);
    CHECK(weak.exitCode == 1);
    CHECK(weak.parsed()["data"]["kind"] == "WouldDowngrade");

    // Retracting the medulla copy (from Y) leaves X's witness file untouched.
    std::string witnessFile = m.x + "/.engram/claims/" + id + ".md";
    std::string before = readFileOrEmpty(witnessFile);
    m.ok(m.y, {"retract", copy, "--reason", "not true here"});
    CHECK(readFileOrEmpty(witnessFile) == before);
    json w = m.ok(m.x, {"get", id});
    CHECK(w["claim"]["status"] == "committed");
    CHECK(w["claim"]["promoted_to"] == copy);
}

TEST_CASE("tier all names a registered project deleted from disk as unreachable", "[e2e][tiers]") {
    Machine m;
    seed(m);
    fs::remove_all(m.y);
    json r = m.ok(m.x, {"recall", "parser", "alpha", "--tier", "all"});
    INFO(r.dump(2));
    std::set<std::string> texts;
    for (auto& row : r["rows"])
        texts.insert(row["text"].get<std::string>());
    CHECK(texts == std::set<std::string>{kX, kM});
    REQUIRE(r.contains("unreachable"));
    REQUIRE(r["unreachable"].size() == 1);
    CHECK(r["unreachable"][0]["root"] == m.y);
    CliResult text = m.run(m.x, {"recall", "parser", "alpha", "--tier", "all"});
    CHECK(text.out.find("unreachable: " + m.y) != std::string::npos);
    json st = m.ok(m.x, {"status"});
    bool named = false;
    for (auto& s : st["registered"])
        if (s["root"] == m.y) named = s["reachable"] == false;
    CHECK(named);
}

TEST_CASE("engram/promote over the LSP surface: the copy, the witness, and Y's default recall",
          "[e2e][tiers]") {
    Machine m;
    ServerOptions opts;
    opts.home = m.home.path();
    Server sx(opts);
    sx.initialize(m.x);
    json learned = sx.call("engram/remember", {{"text", "pin the parser's grammar version"},
                                               {"agent", "codex:maker"},
                                               {"label", "pin-grammar"}});
    std::string id = learned["claim"]["id"];
    json bad = sx.request("engram/promote", {{"id", id}, {"agent", "claude:orchestrator"}});
    REQUIRE(bad.contains("error"));
    CHECK(bad["error"]["message"].get<std::string>().find("reason") != std::string::npos);

    json p =
        sx.call("engram/promote",
                {{"id", id}, {"agent", "claude:orchestrator"}, {"reason", "holds everywhere"}});
    std::string copy = p["medulla_copy"]["id"];
    CHECK(p["witness"]["promoted_to"] == copy);
    CHECK(p["medulla_live"] == 1);
    CHECK(p["warning"].is_null());

    Server sy(opts);
    sy.initialize(m.y);
    json r = sy.call("engram/recall", {{"query", "parser grammar version"}});
    REQUIRE(r["rows"].size() == 1);
    CHECK(r["rows"][0]["id"] == copy);
    CHECK(r["rows"][0]["tier"] == "medulla");
    CHECK(r["rows"][0]["promoted_by"] == "claude:orchestrator");
}

} // namespace e2e_TiersTest
