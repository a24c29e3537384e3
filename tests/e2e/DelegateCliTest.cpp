// Delegation end to end with separate engram processes on one root: the
// parent delegates (signed), a child process verifies the packet, recalls
// and contributes, the parent reviews; exit codes and human output.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_DelegateCliTest {

using namespace engram::e2e;
using engram::test::TempDir;

namespace {

struct Shell {
    TempDir root;
    TempDir home;
    Shell() { copySampleWorkspace(root.path()); }
    CliResult run(std::vector<std::string> args, const std::string& agent = "claude:parent",
                  const std::string& stdinData = "") const {
        std::vector<std::string> full = {"--root", root.path(), "--home", home.path()};
        full.insert(full.end(), args.begin(), args.end());
        return runCli(full, {"ENGRAM_AGENT=" + agent}, stdinData);
    }
    json ok(std::vector<std::string> args, const std::string& agent = "claude:parent",
            const std::string& stdinData = "") const {
        args.insert(args.begin(), "--json");
        CliResult r = run(args, agent, stdinData);
        INFO("stdout: " << r.out << "\nstderr: " << r.err);
        REQUIRE(r.exitCode == 0);
        return r.parsed();
    }
};

} // namespace

TEST_CASE("delegate, verify, contribute and review across engram processes", "[e2e][delegate]") {
    Shell sh;
    sh.ok({"remember", "uploads must be virus scanned before storage", "--label", "scan-uploads"});
    sh.ok({"remember", "uploads are limited to 10 MB", "--label", "upload-limit"});

    // The parent composes a signed packet.
    json answer = sh.ok({"delegate", "--task", "change the upload pipeline", "--sign"});
    json packet = answer["packet"];
    REQUIRE(packet["items"].size() == 2);
    CHECK(packet["signature"]["algorithm"] == "ed25519");
    CHECK(answer["envelope"]["binding"]["root"] == sh.root.path());
    std::string packetId = packet["packet_id"];
    // Deterministic across processes.
    json again = sh.ok({"delegate", "--task", "change the upload pipeline"});
    CHECK(again["packet"]["packet_id"] == packetId);

    // The child (another process, same root and home) checks it.
    std::string file = sh.home / "packet.json";
    std::ofstream(file) << answer.dump(2);
    json v = sh.ok({"verify-packet", file}, "claude:child");
    CHECK(v["valid"] == true);
    CHECK(v["signed_by_this_machine"] == true);
    CliResult human = sh.run({"verify-packet", "-"}, "claude:child", packet.dump());
    CHECK(human.exitCode == 0);
    CHECK(contains(human.out, "valid"));

    // A tampered packet fails with exit 1 and a reason.
    json tampered = packet;
    tampered["items"][0]["text"] = "uploads need no scan";
    CliResult bad = sh.run({"--json", "verify-packet", "-"}, "claude:child", tampered.dump());
    INFO(describe(bad));
    CHECK(bad.exitCode == 1);
    CHECK(contains(bad.out, "packet_id:"));

    // The child recalls and contributes.
    json rows = sh.ok({"recall", "uploads"}, "claude:child");
    CHECK(rows["rows"].size() == 2);
    json items = json::array(
        {{{"text", "uploads must not be virus scanned before storage"}, {"label", "scan-uploads"}},
         {{"text", "thumbnails are generated after upload"}},
         {{"text", "Uploads are limited to 10 MB"}}});
    json contributed =
        sh.ok({"contribute", "--packet-id", packetId, "-"}, "claude:child", items.dump());
    REQUIRE(contributed["items"].size() == 3);
    CHECK(contributed["items"][0]["conflict"] == true);
    CHECK(contributed["items"][1]["status"] == "stored");
    CHECK(contributed["items"][2]["status"] == "duplicate");
    std::string thumbs = contributed["items"][1]["contribution_id"];

    // Frontier: not in recall by default, shown with --include frontier.
    CHECK(sh.ok({"recall", "thumbnails"})["rows"].empty());
    CHECK(sh.ok({"recall", "thumbnails", "--include", "frontier"})["rows"].size() == 1);

    // The parent reviews: accepted, it is recallable with its provenance.
    json accepted = sh.ok({"review", thumbs, "accept", "--reason", "seen in upload.py"});
    CHECK(accepted["claim"]["status"] == "committed");
    CHECK(accepted["claim"]["contributed_by"] == "claude:child");
    CHECK(accepted["claim"]["accepted_by"] == "claude:parent");
    json recalled = sh.ok({"recall", "thumbnails"});
    REQUIRE(recalled["rows"].size() == 1);
    CHECK(recalled["rows"][0]["contribution_id"] == thumbs);

    // Reject the conflicting one; reviewing twice fails (exit 2: a bad argument).
    std::string conflicting = contributed["items"][0]["contribution_id"];
    sh.ok({"review", conflicting, "reject", "--reason", "scanning is required"});
    CliResult twice = sh.run({"review", conflicting, "accept", "--reason", "again"});
    CHECK(twice.exitCode == 2);
    CHECK(contains(twice.err, "already reviewed"));
    CHECK(sh.ok({"recall", "virus", "scanned"})["rows"].size() == 1);
}

TEST_CASE("delegate and contribute: human output, refusals and usage errors", "[e2e][delegate]") {
    Shell sh;
    sh.ok({"remember", "the importer skips empty rows", "--label", "importer"});
    CliResult r = sh.run({"delegate", "--task", "importer rows", "--max-items", "1"});
    INFO(describe(r));
    CHECK(r.exitCode == 0);
    CHECK(contains(r.out, "Packet "));
    CHECK(contains(r.out, "the importer skips empty rows"));
    CHECK(contains(r.out, "included 1 of 1"));

    // A secret is refused (exit 1) and never echoed.
    const std::string secret = "ghp_" + std::string("a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    r = sh.run({"contribute", "-"}, "claude:child",
               json::array({{{"text", "the token is " + secret}}}).dump());
    CHECK(r.exitCode == 1);
    CHECK(contains(r.out, "refused"));
    CHECK_FALSE(contains(r.out + r.err, secret));

    CHECK(sh.run({"delegate"}).exitCode == 2);
    CHECK(sh.run({"delegate", "--task", "x", "--max-items", "lots"}).exitCode == 2);
    CHECK(sh.run({"delegate", "--task", "x", "--max-items", "0"}).exitCode == 2);
    CHECK(sh.run({"review", "k-x"}).exitCode == 2);
    CHECK(sh.run({"verify-packet"}).exitCode == 2);
    CHECK(sh.run({"verify-packet", "-"}, "a", "not json").exitCode == 2);
    CHECK(sh.run({"contribute", "-"}, "a", "{\"items\": 3}").exitCode == 2);
    CliResult unknown = sh.run({"review", "k-0000000000000", "accept", "--reason", "r"});
    CHECK(unknown.exitCode == 1);
    CHECK(contains(unknown.err, "UnknownClaim"));
}

} // namespace e2e_DelegateCliTest
