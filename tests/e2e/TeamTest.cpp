// Team memory through real git (ARCHITECTURE.md, "Team memory"): a bare repository and two clones,
// each teammate with their own ENGRAM_HOME, remembering on parallel branches
// and merging with engram's merge driver and without it.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_TeamTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

CliResult git(const std::string& dir, std::vector<std::string> args) {
    return runGit(dir, std::move(args));
}

// One teammate's clone and home.
struct Clone {
    std::string dir;
    TempDir home;
    std::string agent;
    CliResult run(std::vector<std::string> args) const {
        std::vector<std::string> full = {"--root", dir, "--home", home.path()};
        full.insert(full.end(), args.begin(), args.end());
        auto env = fixedGitEnv();
        env.push_back("ENGRAM_AGENT=" + agent);
        return runCli(full, env);
    }
    json ok(std::vector<std::string> args) const {
        args.insert(args.begin(), "--json");
        auto r = run(args);
        INFO("engram " << args[1] << ": " << describe(r));
        REQUIRE(r.exitCode == 0);
        return r.parsed();
    }
    std::string remember(const std::string& text, const std::string& label, double confidence,
                         std::vector<std::string> extra = {}) const {
        std::vector<std::string> args = {"remember", text,           "--label",
                                         label,      "--confidence", std::to_string(confidence)};
        args.insert(args.end(), extra.begin(), extra.end());
        return ok(args)["claim"]["id"];
    }
    void commitAll(const std::string& message) const {
        gitOk(dir, {"add", "-A"});
        gitOk(dir, {"commit", "-q", "-m", message});
    }
    std::string claimFile(const std::string& id) const {
        return dir + "/.engram/claims/" + id + ".md";
    }
    // Every file under .engram/claims and .engram/history with its bytes.
    std::map<std::string, std::string> memoryFiles() const {
        std::map<std::string, std::string> out;
        for (auto sub : {"claims", "history"}) {
            std::string d = dir + "/.engram/" + sub;
            if (!fs::exists(d)) continue;
            for (auto& e : fs::directory_iterator(d))
                out[std::string(sub) + "/" + e.path().filename().string()] =
                    *slurp(e.path().string());
        }
        return out;
    }
};

// A bare origin with the sample workspace on main, and two clones of it.
struct Team {
    TempDir base;
    std::string origin;
    Clone ana, ben;
    Team() {
        origin = base.path() + "/origin.git";
        std::string seed = base.path() + "/seed";
        fs::create_directories(seed);
        copySampleWorkspace(seed);
        gitOk(seed, {"init", "-q", "-b", "main"});
        gitOk(seed, {"add", "-A"});
        gitOk(seed, {"commit", "-q", "-m", "sample"});
        gitOk(base.path(), {"clone", "-q", "--bare", seed, origin});
        ana.dir = base.path() + "/ana";
        ben.dir = base.path() + "/ben";
        ana.agent = "human:ana";
        ben.agent = "human:ben";
        for (auto* c : {&ana, &ben})
            gitOk(base.path(), {"clone", "-q", origin, c->dir});
    }
    // Pushes the clone's HEAD to `branch` on origin.
    void push(const Clone& c, const std::string& branch) {
        gitOk(c.dir, {"push", "-q", "origin", "HEAD:" + branch});
    }
    void pull(const Clone& c) { gitOk(c.dir, {"pull", "-q", "--no-rebase", "origin", "main"}); }
};

// Both clones start from a shared claim on main, then each changes it on
// its own branch: ana on `ana`, ben on `ben`. Returns the claim's id.
std::string sharedClaim(Team& t, const std::string& text = "the pool holds 10 connections",
                        const std::string& label = "pool", std::vector<std::string> extra = {}) {
    std::string id = t.ana.remember(text, label, 0.8, extra);
    t.ana.commitAll("pool");
    t.push(t.ana, "main");
    t.pull(t.ben);
    return id;
}

// Merges ana's and ben's branches both ways: ana merges ben's branch in her
// clone, ben merges ana's in his. Returns the merge commands' results.
std::pair<CliResult, CliResult> mergeBothWays(Team& t) {
    t.push(t.ana, "ana");
    t.push(t.ben, "ben");
    gitOk(t.ana.dir, {"fetch", "-q", "origin"});
    gitOk(t.ben.dir, {"fetch", "-q", "origin"});
    auto a = git(t.ana.dir, {"merge", "--no-edit", "origin/ben"});
    auto b = git(t.ben.dir, {"merge", "--no-edit", "origin/ana"});
    return {a, b};
}

json findingsOf(const Clone& c) {
    auto r = c.run({"check", "--format", "json", "--fail-on", "none"});
    INFO(describe(r));
    REQUIRE(r.exitCode == 0);
    return r.parsed()["findings"];
}

std::vector<json> findingsWith(const Clone& c, const std::string& code, const std::string& id) {
    std::vector<json> out;
    for (auto& f : findingsOf(c))
        if (f["code"] == code && f["claim_id"] == id) out.push_back(f);
    return out;
}

std::vector<std::string> versionTexts(const json& got) {
    std::vector<std::string> out;
    for (auto& h : got["history"])
        out.push_back(h["text"].get<std::string>());
    out.push_back(got["claim"]["text"]);
    for (auto& d : got["claim"].value("diverged", json::array()))
        out.push_back(d["text"].get<std::string>());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Adds a statement before the first `return` of the function `def NAME` in
// a Python file of the clone: a change to the function's syntax tree.
void editFunction(const Clone& c, const std::string& file, const std::string& name,
                  const std::string& statement) {
    std::string path = c.dir + "/" + file;
    std::string text = *slurp(path);
    auto at = text.find("def " + name);
    REQUIRE(at != std::string::npos);
    auto ret = text.find("return", at);
    REQUIRE(ret != std::string::npos);
    auto lineStart = text.rfind('\n', ret) + 1;
    text.insert(ret, statement + "\n" + text.substr(lineStart, ret - lineStart));
    spew(path, text);
}

void dropDriver(const Clone& c) {
    // A clone that never registered the driver (or a forge's web merge):
    // the .gitattributes entry names a driver git does not know, and git
    // merges the file line by line.
    git(c.dir, {"config", "--local", "--remove-section", "merge.engram"});
    auto r = git(c.dir, {"config", "--local", "--get", "merge.engram.driver"});
    REQUIRE(r.exitCode != 0);
}

} // namespace

TEST_CASE("team: the first write in a repository registers the merge driver, and doctor reports a "
          "clone without it") {
    Team t;
    sharedClaim(t);
    // The write registered it in ana's clone; ben's clone (which only
    // pulled) has the .gitattributes but not the config.
    CHECK(contains(*slurp(t.ana.dir + "/.engram/.gitattributes"), "claims/*.md merge=engram"));
    CHECK(contains(gitOk(t.ana.dir, {"config", "--get", "merge.engram.driver"}).out,
                   "merge-driver %O %A %B %P"));
    CHECK(git(t.ben.dir, {"config", "--get", "merge.engram.driver"}).exitCode != 0);
    auto doctor = t.ben.run({"doctor"});
    CHECK(doctor.exitCode == 1);
    CHECK(contains(doctor.out, "FAIL git merge driver"));
    CHECK(contains(doctor.out, "run `engram init`"));
    // init is the fix, and is idempotent.
    json first = t.ben.ok({"init"});
    CHECK(first["driver"] == true);
    CHECK(first["wrote"] == json::array({"git config merge.engram.driver"}));
    json again = t.ben.ok({"init"});
    CHECK(again["wrote"].empty());
    CHECK(t.ben.run({"doctor"}).exitCode == 0);
    // A clone that pulled the store but never ran init gets the driver with
    // its first write.
    dropDriver(t.ben);
    t.ben.remember("the cache is flushed nightly", "cache", 0.7);
    CHECK(contains(gitOk(t.ben.dir, {"config", "--get", "merge.engram.driver"}).out,
                   "merge-driver %O %A %B %P"));
    // A store from before reports (its .gitattributes names the claims
    // only): init adds the inbox's union merge, once.
    const std::string attrs = t.ben.dir + "/.engram/.gitattributes";
    spew(attrs, "claims/*.md merge=engram\nhistory/*.md merge=engram\n");
    json old = t.ben.ok({"init"});
    CHECK(old["wrote"] == json::array({".engram/.gitattributes (inbox.jsonl merge=union)"}));
    CHECK(contains(*slurp(attrs), "claims/*.md merge=engram\nhistory/*.md merge=engram\n"));
    CHECK(contains(*slurp(attrs), "inbox.jsonl merge=union"));
    CHECK(t.ben.ok({"init"})["wrote"].empty());
}

TEST_CASE("team: serving a clone that never ran init registers the merge driver") {
    Team t;
    sharedClaim(t);
    dropDriver(t.ben);
    {
        Server s({t.ben.home.path(), {}, {}, {}});
        s.initialize(t.ben.dir);
        s.call("engram/status"); // the folder is open once a request is answered
        CHECK(contains(gitOk(t.ben.dir, {"config", "--get", "merge.engram.driver"}).out,
                       "merge-driver %O %A %B %P"));
    }
    // Its .gitattributes lost the inbox line: serving writes it back.
    const std::string attrs = t.ben.dir + "/.engram/.gitattributes";
    spew(attrs, "claims/*.md merge=engram\nhistory/*.md merge=engram\n");
    Server s({t.ben.home.path(), {}, {}, {}});
    s.initialize(t.ben.dir);
    s.call("engram/status");
    CHECK(contains(*slurp(attrs), "inbox.jsonl merge=union"));
}

TEST_CASE("team: the driver is registered by name when PATH finds this engram, by its path "
          "only when it does not") {
    Team t;
    std::string bin = fs::canonical(engramBinary()).string();
    std::string dir = bin.substr(0, bin.rfind('/'));
    // Each clone's commands with PATH set: git's directories, and for ana
    // this engram's too (installed, or its build directory put there).
    auto run = [&](const Clone& c, const std::string& path, std::vector<std::string> args) {
        std::vector<std::string> full = {"--root", c.dir, "--home", c.home.path()};
        full.insert(full.end(), args.begin(), args.end());
        auto env = fixedGitEnv();
        env.push_back("PATH=" + path);
        return runCli(full, env);
    };
    const std::string system = "/usr/bin:/bin"; // git, and no engram
    REQUIRE(run(t.ana, dir + ":" + system, {"remember", "the pool holds 10", "--label", "pool"})
                .exitCode == 0);
    // By name: a rebuild elsewhere or an upgrade keeps merges working,
    // instead of pointing at a directory that may go.
    CHECK(gitOk(t.ana.dir, {"config", "--get", "merge.engram.driver"}).out ==
          "engram merge-driver %O %A %B %P\n");
    // Not on PATH: the one name that runs it is its path.
    REQUIRE(run(t.ben, system, {"remember", "the cache is flushed", "--label", "cache"}).exitCode ==
            0);
    std::string driver = gitOk(t.ben.dir, {"config", "--get", "merge.engram.driver"}).out;
    CHECK(driver.rfind("'" + bin + "' merge-driver", 0) == 0);
    // A driver registered by name that PATH no longer finds is not usable:
    // doctor says so, and init registers the path instead.
    gitOk(t.ben.dir,
          {"config", "--local", "merge.engram.driver", "engram merge-driver %O %A %B %P"});
    auto doctor = run(t.ben, system, {"doctor"});
    CHECK(contains(doctor.out, "FAIL git merge driver"));
    CHECK(run(t.ben, system, {"init"}).exitCode == 0);
    CHECK(gitOk(t.ben.dir, {"config", "--get", "merge.engram.driver"}).out == driver);
}

TEST_CASE("team: supersede against supersede merges with the driver, keeps every version, is "
          "byte-identical both ways and flagged until resolved") {
    Team t;
    std::string id = sharedClaim(t);
    t.ben.ok({"init"});
    t.ana.remember("the pool holds 12 connections per worker", "pool", 0.8);
    t.ana.commitAll("ana: pool");
    t.ben.remember("the pool holds 20 connections since March", "pool", 0.9);
    t.ben.commitAll("ben: pool");
    auto [a, b] = mergeBothWays(t);
    INFO(describe(a) << "\n" << describe(b));
    REQUIRE(a.exitCode == 0);
    REQUIRE(b.exitCode == 0);
    // Identical memory in both clones, whichever side merged.
    CHECK(t.ana.memoryFiles() == t.ben.memoryFiles());
    // Every version is reachable; the higher confidence is live.
    json got = t.ana.ok({"get", id});
    CHECK(got["claim"]["text"] == "the pool holds 20 connections since March");
    CHECK(versionTexts(got) ==
          std::vector<std::string>{"the pool holds 10 connections",
                                   "the pool holds 12 connections per worker",
                                   "the pool holds 20 connections since March"});
    REQUIRE(got["claim"]["diverged"].size() == 1);
    // Recall serves it by either branch's words, flagged.
    json rows = t.ana.ok({"recall", "twelve 12 per worker"})["rows"];
    REQUIRE(!rows.empty());
    CHECK(rows[0]["id"] == id);
    CHECK(rows[0]["diverged"][0]["text"] == "the pool holds 12 connections per worker");
    // engram check and the editor both flag it.
    auto flagged = findingsWith(t.ana, "engram.conflict", id);
    REQUIRE(flagged.size() == 1);
    CHECK(contains(flagged[0]["message"], "two branches changed this claim"));
    {
        Server s({t.ana.home.path(), {}, {}, {}});
        s.initialize(t.ana.dir);
        std::string path = t.ana.claimFile(id);
        s.notify("textDocument/didOpen", {{"textDocument",
                                           {{"uri", fileUri(path)},
                                            {"languageId", "markdown"},
                                            {"version", 1},
                                            {"text", *slurp(path)}}}});
        json diags;
        for (int i = 0; i < 100 && diags.is_null(); ++i) {
            auto msg = s.readMessage();
            REQUIRE(msg);
            if (msg->value("method", "") == "textDocument/publishDiagnostics" &&
                (*msg)["params"]["uri"] == fileUri(path))
                diags = (*msg)["params"]["diagnostics"];
        }
        REQUIRE(diags.size() == 1);
        CHECK(diags[0]["code"] == "engram.conflict");
        json actions =
            s.call("textDocument/codeAction", {{"textDocument", {{"uri", fileUri(path)}}},
                                               {"range", diags[0]["range"]},
                                               {"context", {{"diagnostics", diags}}}});
        std::set<std::string> commands;
        for (auto& act : actions)
            commands.insert(act["command"]["command"].get<std::string>());
        CHECK(commands.count("engram.resolve") == 1);
    }
    // Resolving is a recorded act that keeps every version.
    json resolved = t.ana.ok({"resolve", id});
    CHECK(resolved["claim"]["version"] == 3);
    CHECK(resolved["claim"]["text"] == "the pool holds 20 connections since March");
    CHECK_FALSE(resolved["claim"].contains("diverged"));
    CHECK(versionTexts(t.ana.ok({"get", id})) == versionTexts(got));
    CHECK(findingsWith(t.ana, "engram.conflict", id).empty());
    CHECK(contains(*slurp(t.ana.dir + "/.engram/audit.log"), "\tresolve\t" + id + "@3\t"));
}

TEST_CASE("team: supersede against retract is never decided silently") {
    Team t;
    std::string id = sharedClaim(t);
    t.ben.ok({"init"});
    t.ana.remember("the pool holds 12 connections per worker", "pool", 0.9);
    t.ana.commitAll("ana: pool");
    t.ben.ok({"retract", id, "--reason", "there is no pool any more"});
    t.ben.commitAll("ben: retract");
    auto [a, b] = mergeBothWays(t);
    REQUIRE(a.exitCode == 0);
    REQUIRE(b.exitCode == 0);
    CHECK(t.ana.memoryFiles() == t.ben.memoryFiles());
    json got = t.ben.ok({"get", id});
    // The live version is served (no false absence), the retraction kept
    // beside it, and the claim flagged.
    CHECK(got["claim"]["status"] == "committed");
    CHECK(got["claim"]["text"] == "the pool holds 12 connections per worker");
    REQUIRE(got["claim"]["diverged"].size() == 1);
    CHECK(got["claim"]["diverged"][0]["status"] == "retracted");
    CHECK(got["claim"]["diverged"][0]["retract_reason"] == "there is no pool any more");
    CHECK(findingsWith(t.ben, "engram.conflict", id).size() == 1);
    // The person who checks decides: take the retraction.
    std::string key = got["claim"]["diverged"][0]["key"];
    json resolved = t.ben.ok({"resolve", id, "--take", key.substr(0, 8)});
    CHECK(resolved["claim"]["status"] == "retracted");
    CHECK(findingsWith(t.ben, "engram.conflict", id).empty());
}

TEST_CASE("team: feedback from both branches adds up and a re-verification meets a code change") {
    Team t;
    std::string id = sharedClaim(t, "connect opens a pooled connection", "connect",
                                 {"--anchor", "src/db.py#connect"});
    t.ben.ok({"init"});
    t.ana.ok({"learn", id, "correct"});
    t.ana.ok({"learn", id, "correct"});
    t.ben.ok({"learn", id, "wrong"});
    t.ben.ok({"learn", id, "correct"});
    // Ben re-verifies on his branch; ana changes the anchored code on hers.
    t.ben.ok({"reverify", id});
    editFunction(t.ana, "src/db.py", "connect", "print('connecting')");
    t.ana.commitAll("ana: learn, change connect");
    t.ben.commitAll("ben: learn, reverify");
    auto [a, b] = mergeBothWays(t);
    REQUIRE(a.exitCode == 0);
    REQUIRE(b.exitCode == 0);
    CHECK(t.ana.memoryFiles() == t.ben.memoryFiles());
    json got = t.ana.ok({"get", id});
    CHECK(got["claim"]["feedback"]["correct"] == 3);
    CHECK(got["claim"]["feedback"]["wrong"] == 1);
    CHECK_FALSE(got["claim"].contains("diverged"));
    CHECK(got["claim"].contains("verified")); // ben's stamp kept
    // The stamp was taken against the old code: the merged code drifts it.
    CHECK(findingsWith(t.ana, "engram.drifted", id).size() == 1);
    CHECK(findingsWith(t.ana, "engram.conflict", id).empty());
}

TEST_CASE("team: one label remembered on both branches collides: flagged on both, writes "
          "refused until one goes") {
    Team t;
    sharedClaim(t); // the store and the driver on main
    t.ben.ok({"init"});
    std::string a = t.ana.remember("retries are 3 for idempotent calls", "retries", 0.7);
    t.ana.commitAll("ana: retries");
    std::string b = t.ben.remember("retries are 5 for every call", "retries", 0.7);
    t.ben.commitAll("ben: retries");
    auto [ma, mb] = mergeBothWays(t);
    REQUIRE(ma.exitCode == 0);
    REQUIRE(mb.exitCode == 0);
    CHECK(findingsWith(t.ana, "engram.conflict", a).size() == 1);
    CHECK(findingsWith(t.ana, "engram.conflict", b).size() == 1);
    // Each clone's log records the other's claim arriving through git, by
    // an unknown hand, and never its own writes as arrivals.
    CHECK(findingsWith(t.ben, "engram.conflict", a).size() == 1);
    std::string anaLog = *slurp(t.ana.dir + "/.engram/audit.log");
    std::string benLog = *slurp(t.ben.dir + "/.engram/audit.log");
    CHECK(contains(anaLog, "\tarrive\t" + b + "@1\tunknown\t"));
    CHECK(contains(benLog, "\tarrive\t" + a + "@1\tunknown\t"));
    CHECK_FALSE(contains(anaLog, "\tarrive\t" + a));
    CHECK_FALSE(contains(anaLog, "\tchange\t" + a));
    CHECK(t.ana.ok({"doctor"})["ok"] == true); // the chain holds with the arrivals in it
    auto refused = t.ana.run({"remember", "retries are 4", "--label", "retries"});
    CHECK(refused.exitCode == 1);
    CHECK(contains(refused.err, "LabelCollision"));
    CHECK(contains(refused.err, a));
    CHECK(contains(refused.err, b));
    // Both are served meanwhile.
    json rows = t.ana.ok({"recall", "retries"})["rows"];
    std::set<std::string> ids;
    for (auto& r : rows) {
        ids.insert(r["id"].get<std::string>());
        // Each row carries the collision.
        CHECK(r["label_shared_with"] == json::array({r["id"] == a ? b : a}));
    }
    CHECK(ids == std::set<std::string>{a, b});
    t.ana.ok({"retract", a, "--reason", "5 since the client change"});
    CHECK(findingsWith(t.ana, "engram.conflict", b).empty());
    CHECK(t.ana.ok({"remember", "retries are 5 for every call, 6 on timeouts", "--label",
                    "retries"})["claim"]["id"] == b);
}

TEST_CASE("team: without the driver a conflicted claim is served, counted, reported unmerged "
          "and resolved") {
    Team t;
    std::string id = sharedClaim(t);
    t.ana.remember("the pool holds 12 connections per worker", "pool", 0.8);
    t.ana.commitAll("ana: pool");
    t.ben.remember("the pool holds 20 connections since March", "pool", 0.9);
    t.ben.commitAll("ben: pool");
    t.push(t.ben, "ben");
    dropDriver(t.ana);
    gitOk(t.ana.dir, {"fetch", "-q", "origin"});
    auto merge = git(t.ana.dir, {"merge", "--no-edit", "origin/ben"});
    CHECK(merge.exitCode != 0); // git's line merge: a conflict
    std::string file = *slurp(t.ana.claimFile(id));
    REQUIRE(contains(file, "<<<<<<<"));
    // Served: both sides, by either side's words; counted; no false absence.
    for (auto q : {"12 per worker", "20 since March"}) {
        json r = t.ana.ok({"recall", q});
        REQUIRE(!r["rows"].empty());
        CHECK(r["rows"][0]["id"] == id);
        CHECK(r["rows"][0]["unmerged"] == true);
    }
    json status = t.ana.ok({"status"});
    CHECK(storeOf(status["envelope"])["claims"]["committed"] == 1);
    auto unmerged = findingsWith(t.ana, "engram.unmerged", id);
    REQUIRE(unmerged.size() == 1);
    CHECK(unmerged[0]["severity"] == "error");
    CHECK(t.ana.run({"check"}).exitCode == 1); // unmerged fails CI by default
    // No secret finding for git's markers in a claim file read as a merge.
    CHECK(findingsWith(t.ana, "engram.secret", id).empty());
    // Resolve: the driver's rule over git's own three versions.
    json resolved = t.ana.ok({"resolve", id});
    CHECK_FALSE(contains(*slurp(t.ana.claimFile(id)), "<<<<<<<"));
    CHECK(resolved["claim"]["text"] == "the pool holds 20 connections since March");
    CHECK(versionTexts(t.ana.ok({"get", id})) ==
          std::vector<std::string>{"the pool holds 10 connections",
                                   "the pool holds 12 connections per worker",
                                   "the pool holds 20 connections since March"});
    CHECK(findingsWith(t.ana, "engram.unmerged", id).empty());
    // The arrival of the conflicted file was recorded before the resolve.
    std::string audit = *slurp(t.ana.dir + "/.engram/audit.log");
    CHECK(contains(audit, "\tchange\t" + id));
    CHECK(contains(audit, "git conflict markers"));
    gitOk(t.ana.dir, {"add", "-A"});
    gitOk(t.ana.dir, {"commit", "-q", "--no-edit"});
}

TEST_CASE("team: without the driver, --take ours keeps our side and the other in history") {
    Team t;
    std::string id = sharedClaim(t);
    t.ana.remember("the pool holds 12 connections per worker", "pool", 0.9);
    t.ana.commitAll("ana: pool");
    t.push(t.ana, "main");
    t.ben.remember("the pool holds 20 connections since March", "pool", 0.9);
    t.ben.commitAll("ben: pool");
    dropDriver(t.ben);
    auto pull = git(t.ben.dir, {"pull", "-q", "--no-rebase", "origin", "main"});
    CHECK(pull.exitCode != 0);
    json resolved = t.ben.ok({"resolve", id, "--take", "ours"});
    CHECK(resolved["claim"]["text"] == "the pool holds 20 connections since March");
    CHECK(versionTexts(t.ben.ok({"get", id})).size() == 3);
}

TEST_CASE("team: rebase and cherry-pick of commits that touch claim files go through the "
          "driver") {
    Team t;
    std::string id = sharedClaim(t);
    t.ben.ok({"init"});
    t.ana.remember("the pool holds 12 connections per worker", "pool", 0.8);
    t.ana.commitAll("ana: pool");
    t.push(t.ana, "main");
    t.ben.ok({"learn", id, "correct"});
    t.ben.commitAll("ben: feedback");
    t.ben.remember("the pool holds 20 connections since March", "pool", 0.9);
    t.ben.commitAll("ben: pool");
    std::string benPool = gitOk(t.ben.dir, {"rev-parse", "HEAD"}).out;
    benPool.pop_back();
    SECTION("rebase") {
        auto r = git(t.ben.dir, {"pull", "-q", "--rebase", "origin", "main"});
        INFO(describe(r));
        REQUIRE(r.exitCode == 0);
        json got = t.ben.ok({"get", id});
        CHECK(got["claim"]["text"] == "the pool holds 20 connections since March");
        CHECK(versionTexts(got).size() == 3);
        CHECK(findingsWith(t.ben, "engram.conflict", id).size() == 1);
    }
    SECTION("cherry-pick") {
        // Ana picks ben's supersession alone onto her branch.
        gitOk(t.ben.dir, {"push", "-q", "origin", "HEAD:ben"});
        gitOk(t.ana.dir, {"fetch", "-q", "origin"});
        auto r = git(t.ana.dir, {"cherry-pick", benPool});
        INFO(describe(r));
        REQUIRE(r.exitCode == 0);
        json got = t.ana.ok({"get", id});
        CHECK(got["claim"]["text"] == "the pool holds 20 connections since March");
        CHECK(versionTexts(got).size() == 3);
    }
}

TEST_CASE("team: check --changed-since limits findings to what the branch touched") {
    Team t;
    std::string onConnect = t.ana.remember("connect opens a pooled connection", "connect", 0.8,
                                           {"--anchor", "src/db.py#connect"});
    std::string onAuth = t.ana.remember("validate returns ok=False on expiry", "validate", 0.8,
                                        {"--anchor", "src/auth.py#TokenValidator.validate"});
    t.ana.commitAll("memory");
    t.push(t.ana, "main");
    // Both anchored functions change on main (so both claims drift there).
    for (auto [file, fn] :
         {std::pair{"src/db.py", "connect"}, std::pair{"src/auth.py", "validate"}}) {
        editFunction(t.ana, file, fn, "print('x')");
        t.ana.commitAll(std::string("change ") + file);
    }
    auto ids = [&](const std::string& ref) {
        auto r =
            t.ana.run({"check", "--format", "sarif", "--fail-on", "none", "--changed-since", ref});
        INFO(describe(r));
        REQUIRE(r.exitCode == 0);
        std::set<std::string> out;
        json sarif = r.parsed();
        for (auto& res : sarif["runs"][0]["results"]) {
            out.insert(res["properties"]["claimId"].get<std::string>());
            CHECK(res["partialFingerprints"].contains("engramClaim/v1"));
        }
        return out;
    };
    // A branch that changed connect only.
    gitOk(t.ana.dir, {"checkout", "-q", "-b", "only-db", "origin/main"});
    editFunction(t.ana, "src/db.py", "connect", "print('y')");
    t.ana.commitAll("only db");
    CHECK(ids("origin/main") == std::set<std::string>{onConnect});
    // A branch that changed neither anchored file: nothing to report.
    gitOk(t.ana.dir, {"checkout", "-q", "-b", "docs", "origin/main"});
    spew(t.ana.dir + "/NOTES.md", "notes\n");
    t.ana.commitAll("docs");
    CHECK(ids("origin/main").empty());
    // The fingerprints do not move when a push shifts lines.
    gitOk(t.ana.dir, {"checkout", "-q", "main"});
    auto fp = [&] {
        auto r = t.ana.run({"check", "--format", "sarif", "--fail-on", "none"});
        std::set<std::string> out;
        json sarif = r.parsed();
        for (auto& res : sarif["runs"][0]["results"])
            out.insert(res["partialFingerprints"]["engramClaim/v1"].get<std::string>());
        return out;
    };
    auto before = fp();
    std::string db = *slurp(t.ana.dir + "/src/db.py");
    spew(t.ana.dir + "/src/db.py", "# a new first line\n\n" + db);
    CHECK(fp() == before);
    CHECK(before.size() >= 2);
    // A bad ref is a usage error, not findings.
    CHECK(t.ana.run({"check", "--changed-since", "no-such-ref"}).exitCode == 2);
}

TEST_CASE("team: without the driver, a retraction against a supersession and feedback on both "
          "sides are served meanwhile and resolved by the driver's rule") {
    Team t;
    std::string pool = sharedClaim(t);
    std::string other = t.ana.remember("the cache is flushed nightly", "cache", 0.8);
    t.ana.commitAll("cache");
    t.push(t.ana, "main");
    t.pull(t.ben);
    t.ana.remember("the pool holds 12 connections per worker", "pool", 0.9);
    t.ana.ok({"learn", other, "correct"});
    t.ana.ok({"learn", other, "correct"});
    t.ana.commitAll("ana");
    t.ben.ok({"retract", pool, "--reason", "no pool any more"});
    t.ben.ok({"learn", other, "wrong"});
    t.ben.commitAll("ben");
    t.push(t.ben, "ben");
    dropDriver(t.ana);
    gitOk(t.ana.dir, {"fetch", "-q", "origin"});
    CHECK(git(t.ana.dir, {"merge", "--no-edit", "origin/ben"}).exitCode != 0);
    for (auto& id : {pool, other}) {
        INFO(id);
        CHECK(contains(*slurp(t.ana.claimFile(id)), "<<<<<<<"));
        CHECK(findingsWith(t.ana, "engram.unmerged", id).size() == 1);
    }
    // Nothing is absent meanwhile: both claims are live and found.
    CHECK(storeOf(t.ana.ok({"status"})["envelope"])["claims"]["committed"] == 2);
    CHECK(t.ana.ok({"recall", "pool connections"})["rows"][0]["id"] == pool);
    CHECK(t.ana.ok({"recall", "cache flushed"})["rows"][0]["id"] == other);
    // Resolved from git's three versions: the increments add up, and the
    // retraction is kept beside the supersession until a person decides.
    json cache = t.ana.ok({"resolve", other});
    CHECK(cache["claim"]["feedback"]["correct"] == 2);
    CHECK(cache["claim"]["feedback"]["wrong"] == 1);
    t.ana.ok({"resolve", pool});
    json got = t.ana.ok({"get", pool});
    CHECK(got["claim"]["text"] == "the pool holds 12 connections per worker");
    bool retractionKept = false;
    for (auto& h : got["history"])
        retractionKept |= h["status"] == "retracted" && h["retract_reason"] == "no pool any more";
    CHECK(retractionKept);
    CHECK(findingsWith(t.ana, "engram.unmerged", pool).empty());
    CHECK(findingsWith(t.ana, "engram.unmerged", other).empty());
}

TEST_CASE("team: two clones exchange reports through git, each box ends with the union, once "
          "each and without a conflict") {
    Team t;
    sharedClaim(t);
    CHECK(contains(*slurp(t.ana.dir + "/.engram/.gitattributes"), "inbox.jsonl merge=union"));
    auto file = [](const Clone& c, const std::string& what) {
        return c
            .ok({"report", "--class", "memory_misdelivery", "--kind", "false_absence", "--what",
                 what, "--expected", "the pool claim"})["report"]["id"]
            .get<std::string>();
    };
    // A report both file (the same words by the same kind of agent differ
    // by agent, so this one is ana's, pulled by ben before the branches).
    std::string shared = file(t.ana, "recall for 'pool' returned nothing on Monday");
    t.ana.commitAll("report");
    t.push(t.ana, "main");
    t.pull(t.ben);
    std::string a = file(t.ana, "recall for 'retry' returned nothing");
    t.ana.commitAll("ana's report");
    std::string b1 = file(t.ben, "recall for 'timeout' returned nothing");
    std::string b2 = file(t.ben, "recall for 'socket' returned nothing");
    t.ben.commitAll("ben's reports");

    auto [ma, mb] = mergeBothWays(t);
    INFO(describe(ma) << "\n" << describe(mb));
    REQUIRE(ma.exitCode == 0);
    REQUIRE(mb.exitCode == 0);
    for (auto* c : {&t.ana, &t.ben}) {
        std::string box = *slurp(c->dir + "/.engram/inbox.jsonl");
        CHECK_FALSE(contains(box, "<<<<<<<"));
        std::multiset<std::string> ids;
        json inbox = c->ok({"inbox"});
        for (auto& r : inbox["boxes"][0]["reports"])
            ids.insert(r["id"].get<std::string>());
        CHECK(ids == std::multiset<std::string>{shared, a, b1, b2});
        // Each report on one line, once.
        CHECK(std::count(box.begin(), box.end(), '\n') == 4);
    }
    // The teammate's reports are the box's own: ben answers ana's.
    t.ben.ok({"report", "--class", "answer", "--what", "reproduced", "--answers", a});
    json states = t.ben.ok({"inbox", "--state", "in_progress"});
    REQUIRE(states["boxes"][0]["reports"].size() == 1);
    CHECK(states["boxes"][0]["reports"][0]["id"] == a);
}

} // namespace e2e_TeamTest
