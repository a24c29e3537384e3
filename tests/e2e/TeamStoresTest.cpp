// Memory across machines and teams through real git (ARCHITECTURE.md,
// "Memory across machines"): bare repositories as remotes, two
// ENGRAM_HOMEs as two machines, a team store shared by two workspaces,
// proposals merged as pull requests, a medulla kept in a repository.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_TeamStoresTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

void writeFile(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// One machine: its engram home, and workspaces (git repositories) on it.
struct Machine {
    TempDir home, dirs;
    std::string workspace(const std::string& name, const std::string& teams = "") const {
        std::string ws = dirs.path() + "/" + name;
        if (!fs::exists(ws)) {
            fs::create_directories(ws + "/.engram");
            gitOk(ws, {"init", "-q", "-b", "main"});
            writeFile(ws + "/.engram/store.conf",
                      "name: " + name + "\n" + (teams.empty() ? "" : "teams: " + teams + "\n"));
        }
        return ws;
    }
    CliResult run(const std::string& root, std::vector<std::string> args) const {
        std::vector<std::string> full = {"--root", root, "--home", home.path()};
        full.insert(full.end(), args.begin(), args.end());
        auto env = fixedGitEnv();
        env.push_back("ENGRAM_AGENT=human:tester");
        return runCli(full, env);
    }
    json ok(const std::string& root, std::vector<std::string> args) const {
        args.insert(args.begin(), "--json");
        auto r = run(root, args);
        INFO("engram " << args[1] << ": " << describe(r));
        REQUIRE(r.exitCode == 0);
        return r.parsed();
    }
    std::string remember(const std::string& root, const std::string& text, const std::string& label,
                         std::vector<std::string> extra = {}) const {
        std::vector<std::string> args = {"remember", text, "--label", label};
        args.insert(args.end(), extra.begin(), extra.end());
        return ok(root, args)["claim"]["id"];
    }
    std::string teamDir(const std::string& team) const { return home.path() + "/teams/" + team; }
};

// The rows of a recall as (text, tier).
std::set<std::pair<std::string, std::string>> rows(const json& answer) {
    std::set<std::pair<std::string, std::string>> out;
    for (auto& r : answer["rows"])
        out.emplace(r["text"].get<std::string>(), r["tier"].get<std::string>());
    return out;
}

using Rows = std::set<std::pair<std::string, std::string>>;

struct Remotes {
    TempDir base;
    std::string team = base.path() + "/platform.git", medulla = base.path() + "/medulla.git";
    Remotes() {
        gitOk(base.path(), {"init", "-q", "--bare", "-b", "main", team});
        gitOk(base.path(), {"init", "-q", "--bare", "-b", "main", medulla});
    }
    // The team's forge: a reviewer merges a proposal branch into main.
    void mergeOnForge(const std::string& branch) {
        std::string review = base.path() + "/review";
        if (!fs::exists(review)) gitOk(base.path(), {"clone", "-q", team, review});
        gitOk(review, {"fetch", "-q", "origin"});
        gitOk(review, {"checkout", "-q", "main"});
        gitOk(review, {"reset", "-q", "--hard", "origin/main"});
        gitOk(review, {"merge", "-q", "--no-ff", "--no-edit", "origin/" + branch});
        gitOk(review, {"push", "-q", "origin", "main"});
    }
};

const std::string kLogging = "every service logs through obs.Logger, never to stdout";
const std::string kBilling = "never call the billing API without an idempotency key";

} // namespace

TEST_CASE("team stores: promotions from two machines merge through review, live only once "
          "merged, and a workspace that does not name the team never sees them") {
    Remotes remotes;
    Machine a, b;
    std::string wsA = a.workspace("orders", "platform");
    std::string wsB = b.workspace("payments", "platform");
    std::string wsC = b.workspace("sandbox"); // names no team

    json addedA = a.ok(wsA, {"team", "add", "platform", remotes.team});
    CHECK(addedA["created"] == true); // the repository was empty
    json addedB = b.ok(wsB, {"team", "add", "platform", remotes.team});
    CHECK(addedB["created"] == false);
    CHECK(addedB["named"] == true);

    std::string fromA = a.remember(wsA, kLogging, "logging");
    std::string fromB = b.remember(wsB, kBilling, "billing");
    json proposedA = a.ok(
        wsA, {"promote", fromA, "--to", "team:platform", "--reason", "every service of the team"});
    json proposedB =
        b.ok(wsB, {"promote", fromB, "--to", "team:platform", "--reason", "billing is shared"});
    std::string branchA = proposedA["branch"], branchB = proposedB["branch"];
    std::string idA = proposedA["proposal"]["id"];
    CHECK(branchA == "engram/promote-" + idA);
    CHECK(proposedA["team"] == "team:platform");

    // The branch holds exactly the claim file, and the clone's working tree
    // and branch are untouched.
    auto diff = gitOk(a.teamDir("platform"), {"diff", "--name-only", "main", branchA});
    CHECK(diff.out == "claims/" + idA + ".md\n");
    CHECK_FALSE(fs::exists(a.teamDir("platform") + "/claims/" + idA + ".md"));
    CHECK(gitOk(a.teamDir("platform"), {"status", "--porcelain"}).out.empty());

    // Not live for the team before the merge.
    CHECK(rows(a.ok(wsA, {"recall", "obs.Logger"})) == Rows{{kLogging, "project"}});
    json listed = a.ok(wsA, {"team", "list"});
    CHECK(listed["teams"][0]["pending"] == json::array({branchA}));

    // Sync pushes the proposals; the forge merges both.
    json syncA = a.ok(wsA, {"sync"});
    CHECK(syncA["stores"][0]["pushed"] == json::array({branchA}));
    // The push itself tells the clone origin has the branch: nothing waits.
    CHECK(a.ok(wsA, {"team", "list"})["teams"][0]["pending"].empty());
    b.ok(wsB, {"sync"});
    remotes.mergeOnForge(branchA);
    remotes.mergeOnForge(branchB);

    json arrivedA = a.ok(wsA, {"sync"});
    CHECK(arrivedA["stores"][0]["arrived"].size() == 2);
    // Recorded where they arrived, as a pull into a project store is.
    std::string audit = slurp(a.teamDir("platform") + "/audit.log").value_or("");
    CHECK(contains(audit, "\tarrive\t" + idA + "@1\t"));
    CHECK(contains(audit, "\tarrive\t" + proposedB["proposal"]["id"].get<std::string>() + "@1\t"));
    b.ok(wsB, {"sync"});

    // Both promotions reached both machines, nothing lost, labelled.
    for (auto [m, ws] : {std::pair{&a, wsA}, std::pair{&b, wsB}}) {
        auto seen =
            rows(m->ok(ws, {"recall", "idempotency key obs.Logger", "--tier", "team:platform"}));
        CHECK(seen == Rows{{kLogging, "team:platform"}, {kBilling, "team:platform"}});
    }
    // A's default recall reads the team it names.
    CHECK(rows(a.ok(wsA, {"recall", "idempotency key"})).count({kBilling, "team:platform"}));
    json row = a.ok(wsA, {"recall", "idempotency key"})["rows"][0];
    CHECK(row["origin"] == "project:payments");

    // The workspace that names no team: nothing by default, the team's
    // claims when asked by name or with all, labelled.
    CHECK(rows(b.ok(wsC, {"recall", "idempotency key"})).empty());
    CHECK(rows(b.ok(wsC, {"recall", "idempotency key", "--tier", "team:platform"})) ==
          Rows{{kBilling, "team:platform"}});
    // all: the team store, and B's other project (payments), each labelled.
    CHECK(rows(b.ok(wsC, {"recall", "idempotency key", "--tier", "all"})) ==
          Rows{{kBilling, "team:platform"}, {kBilling, "other"}});

    // A team's branch takes no direct write: its claims change by review.
    auto direct = a.run(wsA, {"learn", idA, "--verdict", "wrong"});
    CHECK(direct.exitCode == 2);
    CHECK(contains(direct.err, "promote --to team:NAME"));
    // A retraction is proposed on a branch too; the claim stays live.
    json retracted = a.ok(wsA, {"retract", idA, "--reason", "obs.Logger is gone"});
    CHECK(retracted["branch"] == "engram/retract-" + idA);
    CHECK(gitOk(a.teamDir("platform"), {"diff", "--name-only", "main", "engram/retract-" + idA})
              .out == "claims/" + idA + ".md\n");
    CHECK(rows(a.ok(wsA, {"recall", "obs.Logger", "--tier", "team:platform"})) ==
          Rows{{kLogging, "team:platform"}});
    // A proposal under the same label is the team claim's next version.
    std::string again = a.remember(wsA, kLogging + " (obs.Logger v2)", "logging");
    json next = a.ok(wsA, {"promote", again, "--to", "team:platform", "--reason", "v2"});
    CHECK(next["proposal"]["id"] == idA);
    CHECK(next["branch"] == "engram/promote-" + idA + "-v2");
    CHECK(next["proposal"]["version"] == 2);
    CHECK(next["superseded"]["version"] == 1);
    auto files = gitOk(a.teamDir("platform"),
                       {"diff", "--name-only", "main", next["branch"].get<std::string>()});
    CHECK(contains(files.out, "claims/" + idA + ".md\n"));
    CHECK(contains(files.out, "history/" + idA + ".v1."));
}

TEST_CASE("a named team not added on this machine is said, not taken for an empty team") {
    Machine a;
    std::string ws = a.workspace("orders", "platform");
    a.remember(ws, "the orders service retries 3 times", "retries");
    json answer = a.ok(ws, {"recall", "retries"});
    REQUIRE(answer["unreachable"].size() == 1);
    CHECK(answer["unreachable"][0]["root"] == "team:platform");
    CHECK(contains(answer["unreachable"][0]["reason"], "engram team add platform URL"));
    auto status = a.run(ws, {"status"});
    CHECK(contains(status.out,
                   "team:platform: " + a.teamDir("platform") + " (not added on this machine"));
}

TEST_CASE("a medulla kept in a repository merges two machines, and a conflict is surfaced and "
          "resolved as a project's") {
    Remotes remotes;
    Machine a, b;
    std::string wsA = a.workspace("one"), wsB = b.workspace("two");
    std::string style =
        a.remember(wsA, "I prefer early returns over nested ifs", "style", {"--tier", "medulla"});
    b.remember(wsB, "always run the linter before pushing", "lint", {"--tier", "medulla"});
    a.ok(wsA, {"medulla", "remote", remotes.medulla});
    json second = b.ok(wsB, {"medulla", "remote", remotes.medulla});
    CHECK(second["merge"] == "merged"); // two histories met
    a.ok(wsA, {"sync"});
    for (auto [m, ws] : {std::pair{&a, wsA}, std::pair{&b, wsB}})
        CHECK(rows(m->ok(ws, {"recall", "--tier", "medulla"})).size() == 2);

    // Both machines change one claim: the merge driver keeps both versions.
    a.remember(wsA, "I prefer early returns; guard clauses first", "style", {"--tier", "medulla"});
    b.remember(wsB, "I prefer early returns, except in parsers", "style", {"--tier", "medulla"});
    a.ok(wsA, {"sync"});
    auto conflicted = b.run(wsB, {"--json", "sync"});
    CHECK(conflicted.exitCode == 1);
    CHECK(conflicted.parsed()["stores"][0]["diverged"] == json::array({style}));
    json got = b.ok(wsB, {"get", style});
    REQUIRE(got["claim"]["diverged"].size() == 1);
    std::string key = got["claim"]["diverged"][0]["key"];
    std::string taken = got["claim"]["diverged"][0]["text"];
    b.ok(wsB, {"resolve", style, "--take", key});
    json pushed = b.ok(wsB, {"sync"});
    CHECK(pushed["stores"][0]["pushed"].size() == 1);
    CHECK_FALSE(contains(slurp(b.home.path() + "/medulla/.git/engram-sync").value_or("pending"),
                         "pending"));
    a.ok(wsA, {"sync"});
    json resolved = a.ok(wsA, {"get", style});
    CHECK_FALSE(resolved["claim"].contains("diverged"));
    CHECK(resolved["claim"]["text"] == taken);
    // Each act is a commit that names it.
    auto log = gitOk(a.home.path() + "/medulla", {"log", "--format=%s"});
    CHECK(contains(log.out, "engram: remember " + style + " (style)"));
}

TEST_CASE("offline, answers come from the local clone and say how old the last sync is") {
    Remotes remotes;
    Machine a;
    std::string ws = a.workspace("orders", "platform");
    a.ok(ws, {"team", "add", "platform", remotes.team});
    std::string id = a.remember(ws, kBilling, "billing");
    json p = a.ok(ws, {"promote", id, "--to", "team:platform", "--reason", "shared"});
    a.ok(ws, {"sync"});
    remotes.mergeOnForge(p["branch"]);
    a.ok(ws, {"sync"});
    fs::rename(remotes.team, remotes.team + ".gone"); // the network is down

    auto sync = a.run(ws, {"--json", "sync"});
    CHECK(sync.exitCode == 1);
    CHECK(contains(sync.parsed()["stores"][0]["error"], "could not be reached"));
    json answer = a.ok(ws, {"recall", "idempotency key", "--tier", "team:platform"});
    CHECK(rows(answer) == Rows{{kBilling, "team:platform"}});
    json team = storeOf(answer["envelope"], "team:platform");
    REQUIRE(team.contains("sync"));
    CHECK(team["sync"]["remote"] == remotes.team);
    CHECK(team["sync"].contains("last_sync"));
    CHECK(team["sync"].contains("age"));
    CHECK(contains(team["sync"]["error"], "could not be reached"));
    // doctor names it too, with the clone's merge driver.
    auto doctor = a.run(ws, {"doctor"});
    CHECK(doctor.exitCode == 1);
    CHECK(contains(doctor.out, "FAIL team:platform sync: the last sync failed: the remote could "
                               "not be reached"));
    CHECK(contains(doctor.out, "ok   team:platform merge driver: claim files merge with"));
}

TEST_CASE("no remote URL with a password reaches a log, an envelope, a claim or git's config") {
    Remotes remotes;
    Machine a;
    std::string ws = a.workspace("orders", "platform");
    const std::string secret = "hunter2hunter2";
    const std::string url = "https://ana:" + secret + "@git.example.invalid/team.git";
    for (auto args : {std::vector<std::string>{"team", "add", "platform", url},
                      std::vector<std::string>{"medulla", "remote", url}}) {
        auto r = a.run(ws, args);
        INFO(describe(r));
        CHECK(r.exitCode == 2);
        CHECK(contains(r.err, "credential helper"));
        CHECK_FALSE(contains(r.out + r.err, secret));
    }
    CHECK_FALSE(fs::exists(a.teamDir("platform")));

    // A password put into the clone's config by hand (git's own business)
    // is still never shown: not by status, sync, team list or the envelope.
    a.ok(ws, {"team", "add", "platform", remotes.team});
    gitOk(a.teamDir("platform"),
          {"remote", "set-url", "origin", "https://ana:" + secret + "@127.0.0.1:9/team.git"});
    auto sync = a.run(ws, {"sync"});
    CHECK(sync.exitCode == 1);
    auto status = a.run(ws, {"--json", "status"});
    auto list = a.run(ws, {"team", "list"});
    auto recall = a.run(ws, {"--json", "recall", "anything", "--tier", "team:platform"});
    for (auto* r : {&sync, &status, &list, &recall}) {
        INFO(describe(*r));
        CHECK_FALSE(contains(r->out + r->err, secret));
    }
    CHECK(contains(status.out, "https://***@127.0.0.1:9/team.git"));
    auto record = slurp(a.teamDir("platform") + "/.git/engram-sync");
    REQUIRE(record);
    CHECK_FALSE(contains(*record, secret));

    // A server's background sync that fails logs why, without it.
    writeFile(ws + "/.engram/store.conf", "name: orders\nteams: platform\nsync_minutes: 60\n");
    fs::remove(a.teamDir("platform") + "/.git/engram-sync");
    const std::string log = a.dirs.path() + "/serve.log";
    {
        ServerOptions options;
        options.home = a.home.path();
        options.args = {"--root", ws, "--log", log};
        options.env = fixedGitEnv();
        Server server(options);
        server.initialize(ws);
        bool logged = false;
        for (int i = 0; i < 300 && !logged; ++i) {
            server.call("engram/status", json::object());
            logged = contains(slurp(log).value_or(""), "background sync of team:platform");
            if (!logged) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        CHECK(logged);
    }
    CHECK_FALSE(contains(slurp(log).value_or(""), secret));
}

TEST_CASE("a server syncs its git-backed stores in the background when store.conf asks, and "
          "answers meanwhile") {
    Remotes remotes;
    Machine a;
    std::string ws = a.workspace("orders", "platform");
    writeFile(ws + "/.engram/store.conf", "name: orders\nteams: platform\nsync_minutes: 60\n");
    a.ok(ws, {"team", "add", "platform", remotes.team});
    std::string id = a.remember(ws, kBilling, "billing");
    std::string branch =
        a.ok(ws, {"promote", id, "--to", "team:platform", "--reason", "shared"})["branch"];

    ServerOptions options;
    options.home = a.home.path();
    options.args = {"--root", ws};
    options.env = fixedGitEnv();
    Server server(options);
    server.initialize(ws);
    // The first poll of a server starts the sync on a thread of its own;
    // requests are answered while it runs.
    json status = server.call("engram/status", json::object());
    CHECK(status.contains("envelope"));
    bool pushed = false;
    for (int i = 0; i < 300 && !pushed; ++i) {
        pushed = runGit(remotes.team, {"rev-parse", "--verify", "-q", "refs/heads/" + branch})
                     .exitCode == 0;
        if (!pushed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    CHECK(pushed);
}

} // namespace e2e_TeamStoresTest
