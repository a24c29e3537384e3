// The command line: flags, exit codes (0 ok, 1 refusal, 2 usage), JSON and
// human output, and sharing one store with a running `engram serve`.
#include "Client.h"
#include "util/Time.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_CliTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A workspace (copy of the sample) and a home; runs CLI commands on them.
struct Shell {
    TempDir root;
    TempDir home;
    Shell() { copySampleWorkspace(root.path()); }
    CliResult run(std::vector<std::string> args, const std::string& stdinData = "") const {
        std::vector<std::string> full = {"--root", root.path(), "--home", home.path()};
        full.insert(full.end(), args.begin(), args.end());
        return runCli(full, {"ENGRAM_AGENT=human:tester"}, stdinData);
    }
    // Runs with --json, requires exit code 0 and returns the parsed output.
    json ok(std::vector<std::string> args, const std::string& stdinData = "") const {
        args.insert(args.begin(), "--json");
        CliResult r = run(args, stdinData);
        INFO("stdout: " << r.out << "\nstderr: " << r.err);
        REQUIRE(r.exitCode == 0);
        return r.parsed();
    }
};

} // namespace

TEST_CASE("engram --version prints the version and the commit it was built from", "[e2e][cli]") {
    CliResult r = runCli({"--version"});
    INFO(describe(r));
    CHECK(r.exitCode == 0);
    // The commit of the checkout the suite runs in (built from it).
    auto head = runGit(ENGRAM_SOURCE_DIR, {"rev-parse", "--short=12", "HEAD"});
    REQUIRE(head.exitCode == 0);
    std::string commit = head.out.substr(0, 12);
    CHECK((r.out == "engram " + std::string(ENGRAM_VERSION) + " (commit " + commit + ")\n" ||
           r.out == "engram " + std::string(ENGRAM_VERSION) + " (commit " + commit + "-dirty)\n"));
}

TEST_CASE("engram init in a repository with no store writes one doctor finds sound", "[e2e][cli]") {
    Shell sh;
    REQUIRE(runGit(sh.root.path(), {"init", "-q"}).exitCode == 0);
    json init = sh.ok({"init"});
    CHECK(init["driver"] == true);
    // store.conf once came out with an empty `name:`, which doctor, check
    // and every reader of the store refuse.
    CliResult doctor = sh.run({"doctor"});
    INFO(describe(doctor));
    CHECK(doctor.exitCode == 0);
    CHECK_FALSE(contains(doctor.out, "FAIL"));
    CHECK(sh.ok({"status"})["envelope"]["store"][0]["name"] ==
          "project:" + fs::path(sh.root.path()).filename().string());
    // doctor names what this build writes and what the anchors were
    // stamped with.
    sh.ok({"remember", "validate never raises", "--anchor", "src/auth.py#TokenValidator.validate"});
    std::map<std::string, std::string> details;
    json doctorJson = sh.ok({"doctor"}); // alive for the loop
    for (auto& c : doctorJson["checks"])
        details[c["check"]] = c["detail"];
    CHECK(contains(details["formats"], "(commit "));
    CHECK(contains(details["formats"], "index schema "));
    // The one anchor, stamped with the rules this engram says it stamps with.
    const std::string& formats = details["formats"];
    auto rules = formats.find("digest rules ");
    REQUIRE(rules != std::string::npos);
    CHECK(details["anchor digests"] ==
          "anchors stamped 1 with rules " + formats.substr(rules + 13));
}

TEST_CASE("engram --help prints usage and exits 0, no command is a usage error", "[e2e][cli]") {
    CliResult r = runCli({"--help"});
    INFO(describe(r));
    CHECK(r.exitCode == 0);
    CHECK(contains(r.out, "usage: engram"));
    CHECK(contains(r.out, "remember"));
    CHECK(contains(r.out, "exit codes"));

    r = runCli({"help"});
    CHECK(r.exitCode == 0);

    r = runCli({});
    CHECK(r.exitCode == 2);
    CHECK(contains(r.err, "usage"));
}

TEST_CASE("an unknown command or flag is a usage error (exit 2) naming it", "[e2e][cli]") {
    TempDir home;
    CliResult r = runCli({"--home", home.path(), "frobnicate"});
    INFO(describe(r));
    CHECK(r.exitCode == 2);
    CHECK(contains(r.err, "frobnicate"));

    r = runCli({"--home", home.path(), "recall", "--frobnicate", "x"});
    CHECK(r.exitCode == 2);
    CHECK(contains(r.err, "--frobnicate"));

    r = runCli({"--home", home.path(), "--json=yes", "status"});
    CHECK(r.exitCode == 2);

    r = runCli({"--home", home.path(), "recall", "--limit"});
    CHECK(r.exitCode == 2);
    CHECK(contains(r.err, "--limit"));

    r = runCli({"--home", home.path(), "recall", "--limit", "ten"});
    CHECK(r.exitCode == 2);

    r = runCli({"--home", home.path(), "get"});
    CHECK(r.exitCode == 2);
}

TEST_CASE("remember, recall, get, learn, retract, status and reindex work through the CLI with "
          "--json",
          "[e2e][cli]") {
    Shell sh;
    json a = sh.ok({"remember", "TokenValidator.validate rejects expired tokens silently",
                    "--label", "token-validation", "--kind", "gotcha", "--tag", "auth", "--tag",
                    "tokens", "--confidence", "0.9", "--anchor", "src/auth.py"});
    std::string id = a["claim"]["id"];
    CHECK(a["claim"]["label"] == "token-validation");
    CHECK(a["claim"]["kind"] == "gotcha");
    CHECK(a["claim"]["tags"] == json::array({"auth", "tokens"}));
    CHECK(a["claim"]["confidence"] == 0.9);
    CHECK(a["claim"]["source_agent"] == "human:tester");
    CHECK(a["claim"]["anchors"][0]["path"] == "src/auth.py");
    CHECK(fs::exists(claimsDir(sh.root.path()) + "/" + id + ".md"));

    // Text from standard input, agent from the flag.
    json b = sh.ok({"remember", "-", "--label", "db-pool", "--agent", "claude:maker"},
                   "The database pool holds ten connections\n");
    CHECK(b["claim"]["text"] == "The database pool holds ten connections");
    CHECK(b["claim"]["source_agent"] == "claude:maker");

    json r = sh.ok({"recall", "token", "expiry"});
    REQUIRE_FALSE(r["rows"].empty());
    CHECK(r["rows"][0]["id"] == id);
    CHECK(r["rows"][0]["anchor_state"] == "intact");
    CHECK(r["envelope"]["binding"]["root"] == sh.root.path());
    CHECK(r["envelope"]["binding"]["source"] == "--root");

    json g = sh.ok({"get", id});
    CHECK(g["claim"]["id"] == id);
    CHECK(g["claim"]["text"] == "TokenValidator.validate rejects expired tokens silently");
    CHECK(g["history"].empty());

    json l = sh.ok({"learn", id, "correct", "--note", "checked against the code"});
    CHECK(l["feedback"]["correct"] == 1);

    json st = sh.ok({"status"});
    CHECK(storeOf(st["envelope"])["claims"]["committed"] == 2);
    CHECK(st["anchor_health"]["intact"] == 1);

    json rt = sh.ok({"retract", id, "--reason", "validator was rewritten"});
    CHECK(rt["claim"]["status"] == "retracted");
    CHECK(rt["claim"]["retracted_by"] == "human:tester");
    r = sh.ok({"recall", "token", "expiry"});
    CHECK(r["rows"].empty());
    CHECK(r["envelope"]["trust_mode"] == "retrieval_needs_recovery");
    r = sh.ok({"recall", "token", "--include", "retracted"});
    REQUIRE(r["rows"].size() == 1);
    CHECK(r["rows"][0]["status"] == "retracted");

    // reindex rebuilds from the files, even after the index is deleted.
    fs::remove(sh.root.path() + "/.engram/index.sqlite");
    json ri = sh.ok({"reindex"});
    REQUIRE_FALSE(ri["reports"].empty());
    CHECK(ri["reports"][0]["added"] == 2);
    CHECK(ri["reports"][0]["rebuilt"] == true);
    st = sh.ok({"status"});
    CHECK(storeOf(st["envelope"])["claims"]["committed"] == 1);
    CHECK(storeOf(st["envelope"])["claims"]["retracted"] == 1);

    // Supersession through the CLI shows the history.
    sh.ok({"remember", "The database pool holds twenty connections", "--label", "db-pool",
           "--confidence", "0.8"});
    g = sh.ok({"get", b["claim"]["id"]});
    CHECK(g["claim"]["version"] == 2);
    REQUIRE(g["history"].size() == 1);
    CHECK(g["history"][0]["text"] == "The database pool holds ten connections");
}

TEST_CASE("anchor health counted by one command is kept for the next, and counted again when "
          "the anchored file or its anchors changed while no engram ran",
          "[e2e][cli][anchors]") {
    Shell sh;
    const std::string db = sh.root.path() + "/src/db.py";
    // Written a while ago: a key taken within the clock's racy window is
    // not kept (it could not tell a same-size rewrite in that tick).
    auto settle = [&] {
        fs::last_write_time(db, fs::file_time_type::clock::now() - std::chrono::seconds(10));
    };
    settle();
    sh.ok({"remember", "connect opens a pooled connection", "--label", "pool", "--anchor",
           "src/db.py#connect"});
    json st = sh.ok({"status"});
    CHECK(st["anchor_health"]["intact"] == 1);
    CHECK(sh.ok({"status"})["anchor_health"]["intact"] == 1); // from the kept count

    // The function's body edited while nothing ran: its key changed.
    std::string code = *slurp(db);
    auto at = code.find("def connect");
    REQUIRE(at != std::string::npos);
    auto body = code.find("\n", at) + 1;
    spew(db, code.substr(0, body) + "    trace = True\n" + code.substr(body));
    settle();
    st = sh.ok({"status"});
    CHECK(st["anchor_health"]["drifted"] == 1);
    CHECK(st["anchor_health"]["intact"] == 0);
    CHECK(sh.ok({"status"})["anchor_health"]["drifted"] == 1);

    // Put back, and a second claim on the file: its anchors changed.
    spew(db, code);
    settle();
    CHECK(sh.ok({"status"})["anchor_health"]["intact"] == 1);
    sh.ok({"remember", "connect retries once", "--label", "pool-retry", "--anchor",
           "src/db.py#connect"});
    st = sh.ok({"status"});
    CHECK(st["anchor_health"]["intact"] == 2);
    CHECK(st["anchor_health"]["drifted"] == 0);
}

TEST_CASE("remember names the live claims it probably contradicts or restates, in JSON and in "
          "words, and still writes",
          "[e2e][cli]") {
    Shell sh;
    json ttl = sh.ok({"remember", "Access tokens live for 15 minutes; refresh tokens for 30 days",
                      "--label", "token-ttl"});
    std::string ttlId = ttl["claim"]["id"];
    CHECK(ttl["related"] == json::array());

    json other =
        sh.ok({"remember", "Access tokens live for 60 minutes; refresh tokens for 30 days"});
    REQUIRE(other["related"].size() == 1);
    CHECK(other["related"][0]["id"] == ttlId);
    CHECK(other["related"][0]["label"] == "token-ttl");
    CHECK(other["related"][0]["relation"] == "contradicts");
    CHECK(contains(other["related"][0]["why"].get<std::string>(), "60 minutes"));
    CHECK(fs::exists(claimsDir(sh.root.path()) + "/" + other["claim"]["id"].get<std::string>() +
                     ".md"));

    CliResult r = sh.run({"remember", "access tokens live 15 minutes, refresh tokens 30 days"});
    INFO(describe(r));
    CHECK(r.exitCode == 0);
    CHECK(contains(r.out, "probably restates " + ttlId + " (token-ttl)"));
    CHECK(contains(r.out, "keep one (engram retract ID)"));
}

TEST_CASE("a WouldDowngrade refusal exits 1 and leaves the claim as it was", "[e2e][cli]") {
    Shell sh;
    json first = sh.ok({"remember", "Sessions expire after one hour", "--label", "session-ttl",
                        "--confidence", "0.9"});
    std::string file =
        claimsDir(sh.root.path()) + "/" + first["claim"]["id"].get<std::string>() + ".md";
    std::string before = *slurp(file);

    CliResult r = sh.run(
        {"remember", "Sessions never expire", "--label", "session-ttl", "--confidence", "0.2"});
    INFO(describe(r));
    CHECK(r.exitCode == 1);
    CHECK(contains(r.err, "WouldDowngrade"));
    CHECK(contains(r.err, "session-ttl"));

    r = sh.run({"--json", "remember", "Sessions never expire", "--label", "session-ttl",
                "--confidence", "0.2"});
    CHECK(r.exitCode == 1);
    json err = r.parsed();
    CHECK(err["code"] == -32011);
    CHECK(err["data"]["kind"] == "WouldDowngrade");
    CHECK(*slurp(file) == before);

    // Forced with a recorded reason, it goes through.
    json forced = sh.ok({"remember", "Sessions never expire", "--label", "session-ttl",
                         "--confidence", "0.2", "--force-reason", "product decision"});
    CHECK(forced["claim"]["version"] == 2);
    CHECK(forced["claim"]["force_reason"] == "product decision");
}

TEST_CASE("a secret given to remember exits 1 and stderr names the rule without the secret",
          "[e2e][cli]") {
    Shell sh;
    std::string core;
    for (int i = 0; i < 36; ++i)
        core += "aB3xY9kQ"[(i * 5 + 3) % 8];
    std::string token = std::string("gh") + "p_" + core;

    CliResult r = sh.run({"remember", "CI pushes with " + token + " from the vault"});
    INFO(describe(r));
    CHECK(r.exitCode == 1);
    CHECK(contains(r.err, "SecretDetected"));
    CHECK(contains(r.err, "github-token"));
    CHECK_FALSE(contains(r.err, core));
    CHECK_FALSE(contains(r.out, core));

    r = sh.run({"--json", "remember", "CI pushes with " + token + " from the vault"});
    CHECK(r.exitCode == 1);
    json err = r.parsed();
    CHECK(err["code"] == -32012);
    CHECK(err["data"]["rule"] == "github-token");
    CHECK_FALSE(contains(r.out, core));

    // Through standard input as well.
    r = sh.run({"remember", "-"}, "deploy key: " + token + "\n");
    CHECK(r.exitCode == 1);
    CHECK_FALSE(contains(r.err, core));

    CHECK((!fs::exists(claimsDir(sh.root.path())) || filesIn(claimsDir(sh.root.path())).empty()));
}

TEST_CASE("invalid UTF-8 given to remember on standard input is refused and nothing is stored",
          "[e2e][cli]") {
    Shell sh;
    CliResult r = sh.run({"remember", "-"}, "bad \xff\xfe bytes\n");
    INFO(describe(r));
    CHECK(r.exitCode == 2);
    CHECK(contains(r.err, "UTF-8"));
    CHECK((!fs::exists(claimsDir(sh.root.path())) || filesIn(claimsDir(sh.root.path())).empty()));
}

TEST_CASE("recall's human output shows the label, the anchor state and provenance", "[e2e][cli]") {
    Shell sh;
    sh.ok({"remember", "validate() reports expiry through .ok", "--label", "validate-ok",
           "--anchor", "src/auth.py", "--agent", "claude:maker"});
    CliResult r = sh.run({"recall", "validate", "expiry"});
    INFO(describe(r));
    CHECK(r.exitCode == 0);
    CHECK(contains(r.out, "validate-ok"));
    CHECK(contains(r.out, "anchor intact"));
    CHECK(contains(r.out, "claude:maker"));
    CHECK(contains(r.out, "validate() reports expiry through .ok"));

    // Edit the anchored code: the human output says drifted.
    std::string path = sh.root / "src/auth.py";
    spew(path, *slurp(path) + "\ndef added():\n    return 2\n");
    r = sh.run({"recall", "validate", "expiry"});
    CHECK(contains(r.out, "anchor drifted"));

    // No match over a non-empty store: says what exists.
    r = sh.run({"recall", "zebra"});
    CHECK(r.exitCode == 0);
    CHECK(contains(r.out, "1 live claim"));
    CHECK(contains(r.out, "retrieval_needs_recovery"));
}

TEST_CASE("a date in a recall's query is read as a window and said so, in JSON and in words",
          "[e2e][cli]") {
    Shell sh;
    json a = sh.ok({"remember", "The nightly export moved to 02:00 UTC"});
    json b = sh.ok({"remember", "The nightly export writes CSV with a header row"});
    // The first was written five weeks ago (its file says so; reindex reads it).
    std::string path = sh.root / (".engram/claims/" + a["claim"]["id"].get<std::string>() + ".md");
    std::string text = *slurp(path);
    std::string weeksAgo = engram::formatUtc(engram::nowUnix() - 35 * 86400);
    for (const char* key : {"\ncreated: ", "\nupdated: "}) {
        auto at = text.find(key);
        REQUIRE(at != std::string::npos);
        text.replace(at + std::string(key).size(), 20, weeksAgo);
    }
    spew(path, text);
    sh.ok({"reindex"});

    json r = sh.ok({"recall", "what", "changed", "this", "week"});
    REQUIRE(r["rows"].size() == 1);
    CHECK(r["rows"][0]["id"] == b["claim"]["id"]);
    REQUIRE(r["notices"].size() == 1);
    CHECK(contains(r["notices"][0].get<std::string>(), "'this week' read as the claims written"));
    // With words beside it, both match and the one of the window ranks first;
    // a month ago, the other.
    r = sh.ok({"recall", "nightly export this week"});
    REQUIRE(r["rows"].size() == 2);
    CHECK(r["rows"][0]["id"] == b["claim"]["id"]);
    r = sh.ok({"recall", "nightly export a month ago"});
    REQUIRE(r["rows"].size() == 2);
    CHECK(r["rows"][0]["id"] == a["claim"]["id"]);
    CliResult words = sh.run({"recall", "what", "changed", "this", "week"});
    CHECK(contains(words.out, "'this week' read as the claims written"));

    // An event where a date would be: the claim naming it dates the window.
    r = sh.ok({"recall", "what changed since the move to 02:00"});
    REQUIRE(r["rows"].size() == 1);
    CHECK(r["rows"][0]["id"] == b["claim"]["id"]);
    REQUIRE(r["notices"].size() == 1);
    CHECK(contains(r["notices"][0].get<std::string>(),
                   "dated by " + a["claim"]["id"].get<std::string>()));
    r = sh.ok({"recall", "what happened before the header row"});
    REQUIRE(r["rows"].size() == 1);
    CHECK(r["rows"][0]["id"] == a["claim"]["id"]);
}

TEST_CASE("every operation is a command: anchors lists a file's claims with their current lines, "
          "flag errors name the flag",
          "[e2e][cli]") {
    Shell sh;
    json a = sh.ok({"remember", "validate() reports expiry through .ok", "--anchor",
                    "src/auth.py#TokenValidator.validate"});
    std::string id = a["claim"]["id"];
    json listed = sh.ok({"anchors", "src/auth.py"});
    CHECK(listed["path"] == "src/auth.py");
    REQUIRE(listed["anchors"].size() == 1);
    CHECK(listed["anchors"][0]["claim_id"] == id);
    CHECK(listed["anchors"][0]["anchor_state"] == "intact");

    // An edit above the function moves its lines; the claim stays intact.
    std::string path = sh.root / "src/auth.py";
    spew(path, "# a new first line\n" + *slurp(path));
    json moved = sh.ok({"anchors", "src/auth.py"});
    REQUIRE(moved["anchors"].size() == 1);
    CHECK(moved["anchors"][0]["anchor_state"] == "intact");
    CHECK(moved["anchors"][0]["range"]["start"]["line"].get<int>() ==
          listed["anchors"][0]["range"]["start"]["line"].get<int>() + 1);
    CliResult text = sh.run({"anchors", "src/auth.py"});
    CHECK(text.exitCode == 0);
    CHECK(contains(text.out, id));

    // The parser's complaint names the flag or word the value came from.
    CliResult bad = sh.run({"retract", id});
    CHECK(bad.exitCode == 2);
    CHECK(contains(bad.err, "--reason is required"));
    bad = sh.run({"learn", id});
    CHECK(bad.exitCode == 2);
    CHECK(contains(bad.err, "VERDICT (or --verdict) is required"));
    bad = sh.run({"remember", "x", "--anchor", "src/auth.py:0"});
    CHECK(bad.exitCode == 2);
    CHECK(contains(bad.err, "--anchor: 'src/auth.py:0'"));
    bad = sh.run({"--json", "recall", "--kind", "bogus"});
    CHECK(bad.exitCode == 2);
    CHECK(bad.parsed()["data"]["field"] == "kinds[0]");
    CHECK(contains(bad.parsed()["message"], "--kind must be fact, decision"));
    CHECK(fs::exists(claimsDir(sh.root.path()) + "/" + id + ".md"));
}

TEST_CASE("CLI writes are seen by a running engram serve on the same root, and vice versa",
          "[e2e][cli]") {
    Shell sh;
    ServerOptions opts;
    opts.home = sh.home.path();
    Server server(opts);
    server.initialize(sh.root.path());
    // The server has written first, so its store and watcher exist.
    json first = server.call("engram/remember",
                             rememberParams("The server wrote this about walruses", "from-server"));

    // Server -> CLI.
    json r = sh.ok({"recall", "walruses"});
    REQUIRE(r["rows"].size() == 1);
    CHECK(r["rows"][0]["id"] == first["claim"]["id"]);

    // CLI -> server.
    json cli = sh.ok({"remember", "The CLI wrote this about pelicans", "--label", "from-cli"});
    std::string cliId = cli["claim"]["id"];
    auto serverSees = [&](const std::string& query, auto pred) {
        json res;
        for (int i = 0; i < 150; ++i) {
            res = server.call("engram/recall", {{"query", query}});
            if (pred(res)) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return res;
    };
    r = serverSees("pelicans", [](const json& x) { return !x["rows"].empty(); });
    REQUIRE(r["rows"].size() == 1);
    CHECK(r["rows"][0]["id"] == cliId);
    CHECK(server.call("engram/get", {{"id", cliId}})["claim"]["text"] ==
          "The CLI wrote this about pelicans");

    // A CLI retraction and supersession reach the server too.
    sh.ok({"retract", cliId, "--reason", "pelicans moved"});
    r = serverSees("pelicans", [](const json& x) { return x["rows"].empty(); });
    CHECK(r["rows"].empty());
    sh.ok({"remember", "The server wrote this about walruses and seals", "--label", "from-server",
           "--confidence", "0.9"});
    r = serverSees("seals", [](const json& x) { return !x["rows"].empty(); });
    REQUIRE(r["rows"].size() == 1);
    CHECK(r["rows"][0]["version"] == 2);

    // And the server's later writes reach the CLI.
    server.call("engram/learn",
                {{"id", first["claim"]["id"]}, {"verdict", "correct"}, {"agent", "test:e2e"}});
    json g = sh.ok({"get", first["claim"]["id"]});
    CHECK(g["claim"]["feedback"]["correct"] == 1);
    CHECK(g["claim"]["version"] == 2);
}

TEST_CASE("a server started before the store exists still sees claims the CLI writes later",
          "[e2e][cli]") {
    Shell sh;
    ServerOptions opts;
    opts.home = sh.home.path();
    Server server(opts);
    server.initialize(sh.root.path());
    REQUIRE(server.call("engram/recall", {{"query", "otters"}})["rows"].empty());

    json cli = sh.ok({"remember", "Otters hold hands while sleeping", "--label", "otters"});
    std::string id = cli["claim"]["id"];
    json r;
    for (int i = 0; i < 150; ++i) {
        r = server.call("engram/recall", {{"query", "otters"}});
        if (!r["rows"].empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    REQUIRE(r["rows"].size() == 1);
    CHECK(r["rows"][0]["id"] == id);

    // A later hand edit of that claim file reaches the server as well.
    std::string file = claimsDir(sh.root.path()) + "/" + id + ".md";
    std::string text = *slurp(file);
    auto close = text.find("\n---\n");
    REQUIRE(close != std::string::npos);
    spew(file, text.substr(0, close + 5) + "Otters hold hands while sleeping in kelp\n");
    for (int i = 0; i < 150; ++i) {
        r = server.call("engram/recall", {{"query", "kelp"}});
        if (!r["rows"].empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(rowIds(r) == std::vector<std::string>{id});
}

} // namespace e2e_CliTest
