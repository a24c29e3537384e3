// Cost invariants of the hot paths (ARCHITECTURE.md, "Hot paths"), counted,
// not timed: the real binary runs under a preloaded library that counts,
// from outside it, the processes it starts, the files and directories it
// opens or stats, and the rows it reads from its index
// (support/cost_shim.c). The same requests go to a store of 1,000 claims
// in the sample repository and to one of 25,000 beside 3,000 more source
// files, each in a git repository with its claims committed and a hundred
// more not yet committed, as after a day's work; what a hot path asks of
// the system must be the same for both, and it starts no process. A feature that puts work
// proportional to the store on one of these paths fails here, however fast the machine.
#include "Client.h"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unistd.h>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_CostTest {

using namespace engram::e2e;
using engram::test::TempDir;

namespace {

// The shim's slots (support/cost_shim.c).
struct Counts {
    std::array<uint64_t, 7> v{};
    uint64_t processes() const { return v[0]; }
    // Started by any thread: a server's background threads may (listing the
    // workspace), off the answering path; a one-shot command waits for them
    // at its exit, so for the hook they count.
    uint64_t processesOfAnyThread() const { return v[5]; }
    Counts operator-(const Counts& o) const {
        Counts d;
        for (size_t i = 0; i < v.size(); ++i)
            d.v[i] = v[i] - o.v[i];
        return d;
    }
    // What the answering thread asked (a background thread's work depends on
    // when its timer fired, not on the store).
    bool operator==(const Counts& o) const {
        return std::equal(v.begin(), v.begin() + 5, o.v.begin()) && v[6] == o.v[6];
    }
};

std::ostream& operator<<(std::ostream& os, const Counts& c) {
    return os << "{processes " << c.v[0] << ", opens " << c.v[1] << ", stats " << c.v[2]
              << ", claim files " << c.v[3] << ", directories " << c.v[4]
              << ", processes of any thread " << c.v[5] << ", index rows " << c.v[6] << "}";
}

// The counters' file, zeroed, and the environment that makes an engram
// process count into it.
struct Meter {
    TempDir dir;
    std::string file = dir.path() + "/counts";
    Meter() { spew(file, std::string(64, '\0')); }
    // Both stores watched the same way (whole from the start, ARCHITECTURE.md
    // "Start-up without a scan"), so the sizes differ in size alone, not in
    // which of the watch's two ways a directory of that size takes (the
    // staged one re-checks the whole directory on a thread when its second
    // stage begins, and applies it at whichever request comes next).
    std::vector<std::string> env() const {
        return {std::string("LD_PRELOAD=") + ENGRAM_COST_SHIM, "ENGRAM_COST_COUNTS=" + file,
                "ENGRAM_WATCH_STAGED_BYTES=1000000000"};
    }
    Counts read() const {
        Counts c;
        int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
        REQUIRE(fd >= 0);
        uint64_t raw[8] = {};
        REQUIRE(::pread(fd, raw, sizeof raw, 0) == ssize_t(sizeof raw));
        ::close(fd);
        for (size_t i = 0; i < c.v.size(); ++i)
            c.v[i] = raw[i];
        return c;
    }
};

void cliOk(const std::vector<std::string>& args) {
    auto r = runCli(args, {"ENGRAM_AGENT=human:tester"});
    INFO(describe(r));
    REQUIRE(r.exitCode == 0);
}

// Every claim is anchored (to one definition), so that work per anchored
// claim shows as well as work per claim. (Anchoring only some would make
// what a recall costs depend on which rows rank first, which recency, and
// so the moment each file was written, decides.) Every other one is a
// decision: a query naming the kind reads its newest, as many in the
// smaller store as in the larger.
std::string claimFile(int i, const std::string& subject, const std::string& anchor) {
    return "---\nlabel: bulk-" + std::to_string(i) + "\nkind: " + (i % 2 ? "decision" : "fact") +
           "\nconfidence: 0.8\n" + anchor + "\n---\nBulk note " + std::to_string(i) +
           " about the " + subject + " subsystem\n";
}

char hexDigit(int v) {
    return "0123456789abcdef"[v & 15];
}

// A claim id of the store's form, unique per i.
std::string bulkId(int i) {
    std::string id = "c-";
    for (int shift = 28; shift >= 0; shift -= 4)
        id += hexDigit(i >> shift);
    return id + "0000000";
}

// The sample workspace with an instruction file, `sources` more source
// files, one claim anchored to code, `claims` more committed and a hundred
// not yet committed; and a team store it names, cloned from a bare
// repository, holding a claim: its tier is read on every path, from files.
struct Workspace {
    TempDir root, home, remote;
    std::string anchored;
    int claims = 0; // besides the two written by remember
    Workspace(int claims, int sources)
        : claims(claims + 100) {
        copySampleWorkspace(root.path());
        for (int i = 0; i < sources; ++i) {
            std::string dir = root.path() + "/lib/pkg" + std::to_string(i / 100);
            std::filesystem::create_directories(dir);
            std::string code;
            for (int k = 0; k < 5; ++k)
                code += "def fn_" + std::to_string(i) + "_" + std::to_string(k) +
                        "(value):\n    return value + " + std::to_string(k) + "\n\n";
            spew(dir + "/mod" + std::to_string(i % 100) + ".py", code);
        }
        spew(root.path() + "/CLAUDE.md",
             "# Notes\n\nTokens are checked by `TokenValidator.validate` in src/auth.py.\n\n"
             "# Pool\n\nPooled connections open through `connect()` in `src/db.py`; the old "
             "`src/pool.py` is gone.\n");
        gitOk(root.path(), {"init", "-q", "-b", "main"});
        cliOk({"--root", root.path(), "--home", home.path(), "init"});
        gitOk(remote.path(), {"init", "-q", "--bare", "-b", "main", remote.path() + "/team.git"});
        cliOk({"--root", root.path(), "--home", home.path(), "team", "add", "platform",
               remote.path() + "/team.git"});
        spew(home.path() + "/teams/platform/claims/c-team00000000001.md",
             "---\nlabel: team-logging\nkind: convention\nconfidence: 0.9\n---\nEvery "
             "service logs through obs.Logger, and the ledger subsystem too\n");
        auto r = runCli({"--root", root.path(), "--home", home.path(), "--json", "remember",
                         "TokenValidator.validate reports expiry in .ok", "--label",
                         "validate-expiry", "--anchor", "src/auth.py#TokenValidator.validate"},
                        {"ENGRAM_AGENT=human:tester"});
        INFO(describe(r));
        REQUIRE(r.exitCode == 0);
        anchored = r.parsed()["claim"]["id"];
        auto c = runCli({"--root", root.path(), "--home", home.path(), "--json", "remember",
                         "connect opens a pooled connection", "--label", "pool-connect", "--anchor",
                         "src/db.py#connect"},
                        {"ENGRAM_AGENT=human:tester"});
        INFO(describe(c));
        REQUIRE(c.exitCode == 0);
        const std::string dir = root.path() + "/.engram/claims/";
        std::string text = *slurp(dir + c.parsed()["claim"]["id"].get<std::string>() + ".md");
        auto at = text.find("\nanchor: ");
        REQUIRE(at != std::string::npos);
        std::string anchor = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
        for (int i = 0; i < claims; ++i)
            spew(dir + bulkId(i) + ".md", claimFile(i, "ledger", anchor));
        spew(root.path() + "/.engram/store.conf",
             *slurp(root.path() + "/.engram/store.conf") + "teams: platform\n");
        gitOk(root.path(), {"add", "-A"});
        gitOk(root.path(), {"commit", "-q", "-m", "claims"});
        for (int i = claims; i < claims + 100; ++i)
            spew(dir + bulkId(i) + ".md", claimFile(i, "ledger", anchor));
        // The day's writes were a while ago: a directory changed within the
        // clock tick of a reindex is rightly not taken as settled (it could
        // change again unseen in that tick), and the next start-up would
        // compare every file, whatever the store's size.
        std::filesystem::last_write_time(dir, std::filesystem::last_write_time(dir) -
                                                  std::chrono::seconds(5));
        cliOk({"--root", root.path(), "--home", home.path(), "reindex"});
        // A clone in use: its code index and the listing of its files are
        // there (a rebuilt index has neither until something lists again).
        cliOk({"--root", root.path(), "--home", home.path(), "init"});
    }
};

// A server spawned under the meter with its start-up check of the claim
// files held until it goes: what its first answers themselves cost, not
// whether the check (a thread of its own) happened to end before them.
struct HeldStart {
    Meter meter;
    std::string hold = meter.dir.path() + "/hold";
    Server server;
    explicit HeldStart(Workspace& w)
        : server(options(w, meter, hold)) {
        server.initialize(w.root.path());
    }
    ~HeldStart() { std::filesystem::remove(hold); }
    static ServerOptions options(Workspace& w, const Meter& m, const std::string& hold) {
        spew(hold, "");
        ServerOptions o;
        o.home = w.home.path();
        o.env = m.env();
        o.env.push_back("ENGRAM_TEST_HOLD_RECONCILE=" + hold);
        return o;
    }
};

// Its dirty flag stats each tracked source file, as git's status would:
// checked apart from the rest (below).
constexpr const char* kDelegate = "delegate, after the first";

// What each hot path asked of the system, in a server that has settled
// (its start-up reconcile done), and for the session-start hook.
std::map<std::string, Counts> measure(Workspace& w) {
    std::map<std::string, Counts> out;
    {
        HeldStart held(w);
        Server& s = held.server;
        auto& start = held.meter;
        REQUIRE_FALSE(s.call("engram/recall", {{"query", "ledger subsystem"}})["rows"].empty());
        out["spawn to the first recall"] = start.read();
        // A server's first status: the anchors' health as the last count
        // (engram init's) kept it, each anchored file's key compared, not
        // every anchor checked again.
        json st = s.call("engram/status", {});
        REQUIRE(st["anchor_health"]["intact"] == int64_t(w.claims + 2));
        out["first status"] = start.read() - out["spawn to the first recall"];
    }
    Meter m;
    ServerOptions o;
    o.home = w.home.path();
    o.env = m.env();
    Server s(o);
    s.initialize(w.root.path());
    // Settled: the start-up check of the claim files applied, and the
    // listing of the workspace's files (both on threads of their own) kept.
    bool settled = false;
    for (int i = 0; i < 500 && !settled; ++i) {
        json st = s.call("engram/status", {{"instructions", true}});
        settled =
            storeOf(st["envelope"])["reconciled"] == true && st["instructions"]["listed"] == true;
        if (!settled) usleep(20000);
    }
    REQUIRE(settled);
    // Each step runs three times and keeps the fewest of each count: the
    // loop's periodic upkeep (Tiers::poll every two seconds: a stat of each
    // claims directory, its settled mark read) runs on this same thread and
    // now and then lands inside one run. Work that grows with the store is
    // in every run, so the fewest still shows it.
    auto step = [&](const std::string& name, auto&& run) {
        std::optional<Counts> fewest;
        for (int i = 0; i < 3; ++i) {
            Counts before = m.read();
            run(i);
            Counts c = m.read() - before;
            if (fewest)
                for (size_t k = 0; k < c.v.size(); ++k)
                    fewest->v[k] = std::min(fewest->v[k], c.v[k]);
            else
                fewest = c;
        }
        out[name] = *fewest;
    };
    // Three queries, each asked for the first time, each serving bulk claims
    // (so their anchors are judged: a reading of src/db.py). Not with
    // "ledger": the team's claim, alone in its tier, would top them by far,
    // and whether they then cleared the relative floor hung on the sampled
    // document frequency of a word nearly every claim holds, which moved
    // with where the two claims of random ids fell among the rowids.
    step("recall", [&](int i) {
        static const char* queries[] = {"bulk note", "bulk notes kept", "notes in bulk"};
        json r = s.call("engram/recall", {{"query", queries[i]}});
        REQUIRE_FALSE(r["rows"].empty());
        for (auto& row : r["rows"])
            REQUIRE(row["anchor_state"] == "intact");
    });
    step("recall again", [&](int) { s.call("engram/recall", {{"query", "ledger subsystem"}}); });
    // A recall that brings an instruction file's paragraph: its references
    // judged (a name, a path, a missing path) without asking git.
    step("recall of an instruction paragraph", [&](int) {
        json r = s.call("engram/recall", {{"query", "pooled connections open"}});
        REQUIRE(r["instructions"].size() == 1);
        REQUIRE(r["instructions"][0]["references"].size() == 3);
        for (auto& ref : r["instructions"][0]["references"])
            CHECK(ref["state"] != "unjudged");
    });
    step("get", [&](int) {
        REQUIRE(s.call("engram/get", {{"id", w.anchored}})["claim"]["id"] == w.anchored);
    });
    // A delegation packet after the server's first: its dirty flag is git's
    // answer, kept while the index, HEAD and the tracked files outside
    // .engram/ stay as they were (engine/DirtyFlag.h). The files must have
    // settled for their stat to vouch for them (a file changed within the
    // second is asked about again). HEAD's branch is read from .git: both
    // repositories are given the same layout of refs (see the hook, below).
    gitOk(w.root.path(), {"pack-refs", "--all"});
    usleep(1100000);
    json first = s.call("engram/delegate", {{"task", "how TokenValidator.validate reports expiry"},
                                            {"agent", "claude:orchestrator"}});
    REQUIRE(first["packet"]["binding"]["git"]["dirty"].is_boolean());
    step(kDelegate, [&](int) {
        json d = s.call("engram/delegate", {{"task", "how TokenValidator.validate reports expiry"},
                                            {"agent", "claude:orchestrator"}});
        REQUIRE(d["packet"]["binding"]["git"]["dirty"] ==
                first["packet"]["binding"]["git"]["dirty"]);
    });

    const std::string auth = w.root.path() + "/src/auth.py";
    const std::string code = *slurp(auth);
    const std::string uri = "file://" + auth;
    s.notify("textDocument/didOpen",
             {{"textDocument",
               {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", code}}}});
    s.waitDiagnostics(uri, 1);
    step("hover", [&](int) {
        json h = s.call("textDocument/hover", {{"textDocument", {{"uri", uri}}},
                                               {"position", position(code, "def validate")}});
        REQUIRE(h["contents"]["value"].get<std::string>().find("reports expiry") !=
                std::string::npos);
    });
    step("code lens", [&](int) {
        REQUIRE(s.call("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}}).size() == 1);
    });

    const std::string notes = w.root.path() + "/CLAUDE.md";
    const std::string notesUri = "file://" + notes;
    std::string text = *slurp(notes);
    s.notify("textDocument/didOpen",
             {{"textDocument",
               {{"uri", notesUri}, {"languageId", "markdown"}, {"version", 1}, {"text", text}}}});
    s.waitDiagnostics(notesUri, 1);
    step("keystroke in an instruction file", [&](int i) {
        text += "\nA";
        s.notify("textDocument/didChange",
                 {{"textDocument", {{"uri", notesUri}, {"version", 2 + i}}},
                  {"contentChanges", {{{"text", text}}}}});
        s.waitDiagnostics(notesUri, 2 + i);
    });

    // Dates in a query: the window's claims are read through the index's
    // claims_written (at most kCandidateCap of them), not by a walk of the
    // store. Here the window holds the few claims remembered in this test
    // (the bulk files carry no date), so this holds a date to no work per
    // claim; an event dates its window by a recall of its own words first.
    s.call("engram/remember",
           {{"text", "The nightly export moved to the slow queue"}, {"agent", "human:tester"}});
    step("recall of a date", [&](int) {
        json r = s.call("engram/recall", {{"query", "what changed this week"}});
        REQUIRE_FALSE(r["rows"].empty());
        REQUIRE(r["notices"][0].get<std::string>().starts_with("'this week' read as"));
    });
    // A kind named in a query: its claims whatever their words, the newest
    // through the index's claims_kind, not by a walk of the store.
    step("recall of a kind", [&](int) {
        json r = s.call("engram/recall", {{"query", "which decisions did we take"}});
        REQUIRE_FALSE(r["rows"].empty());
        REQUIRE(r["rows"][0]["kind"] == "decision");
    });
    step("recall of an event", [&](int) {
        json r = s.call("engram/recall", {{"query", "what happened before the nightly export"}});
        REQUIRE(r["notices"][0].get<std::string>().find("dated by") != std::string::npos);
    });

    // A session that writes and ends: the next start-up finds the claims
    // directory as its watch left it, not changed (which would compare every
    // claim file before the first answer).
    s.call("engram/remember",
           {{"text", "Refunds are batched by the pelican job"}, {"agent", "human:tester"}});
    REQUIRE(s.request("shutdown", nullptr).contains("result"));
    s.notify("exit", nullptr);
    REQUIRE(s.waitExit() == 0);
    {
        HeldStart next(w);
        REQUIRE_FALSE(
            next.server.call("engram/recall", {{"query", "refunds pelican"}})["rows"].empty());
        out["spawn to the first recall after a session wrote"] = next.meter.read();
    }

    Meter hook;
    json input = {{"hook_event_name", "SessionStart"}, {"cwd", w.root.path()}};
    auto r = runCli({"--home", w.home.path(), "hook"}, hook.env(), input.dump());
    INFO(describe(r));
    REQUIRE(r.exitCode == 0);
    out["hook session start"] = hook.read();

    // A prompt, the second of its session: the list of claims the session
    // was given is one file read and one written, whatever the store. (The
    // packet under it reads HEAD from .git: git keeps a branch's ref in its
    // own file or in packed-refs as it sees fit, a file more or less; both
    // repositories are given the same layout.)
    gitOk(w.root.path(), {"pack-refs", "--all"});
    json ask = {{"hook_event_name", "UserPromptSubmit"},
                {"cwd", w.root.path()},
                {"session_id", "cost-session"},
                {"prompt", "how are refunds batched by the pelican job"}};
    REQUIRE(runCli({"--home", w.home.path(), "hook"}, {}, ask.dump()).exitCode == 0);
    Meter prompt;
    r = runCli({"--home", w.home.path(), "hook"}, prompt.env(), ask.dump());
    INFO(describe(r));
    REQUIRE(r.exitCode == 0);
    REQUIRE(contains(r.out, "given earlier in this session"));
    out["hook prompt, the second of a session"] = prompt.read();

    // A prompt naming a file every claim is anchored in: the name is one
    // lookup in the listing, the file's claims the newest few hundred of
    // its anchors, whatever the store.
    ask["prompt"] = "anything to know before editing db.py";
    Meter named;
    r = runCli({"--home", w.home.path(), "hook"}, named.env(), ask.dump());
    INFO(describe(r));
    REQUIRE(r.exitCode == 0);
    REQUIRE(contains(r.out, "src/db.py#connect"));
    out["hook prompt naming a file"] = named.read();
    return out;
}

} // namespace

TEST_CASE("what each hot path asks of the system does not grow with the store, and starts no "
          "process",
          "[e2e][cost]") {
    Workspace small(1000, 0), large(25000, 3000);
    auto a = measure(small);
    auto b = measure(large);
    for (auto& [path, counts] : a) {
        // Printed on every run: the figures ARCHITECTURE.md quotes.
        WARN(path << ": 1,100 claims " << counts << ", 25,100 claims and 3,000 more source files "
                  << b[path]);
        INFO(path << ": 1,100 claims " << counts << ", 25,100 claims and 3,000 more source files "
                  << b[path]);
        Counts expected = b[path];
        // The packet's dirty flag: a stat per tracked source file (3,000
        // more in the large workspace), none per claim.
        if (path == kDelegate) expected.v[2] -= 3000;
        CHECK(counts == expected);
        CHECK(counts.processes() == 0);
    }
    // The hook is one process from spawn to exit: nothing it starts, on any
    // thread, may add to a prompt's wait.
    for (const char* hookPath : {"hook session start", "hook prompt, the second of a session",
                                 "hook prompt naming a file"}) {
        CHECK(a[hookPath].processesOfAnyThread() == 0);
        CHECK(b[hookPath].processesOfAnyThread() == 0);
    }
    CHECK(a.size() == 17);
}

} // namespace e2e_CostTest
