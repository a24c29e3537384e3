// Start-up without a scan (ARCHITECTURE.md, "Start-up without a scan"):
// every kind of change made to claim files while no engram ran (an edit in
// place, an add, a delete, a rename, a git checkout that swaps a thousand
// files) is seen by the first answer that could include it, for a small
// store and for one that takes the large-store path (forced here with
// ENGRAM_INLINE_RECONCILE_MAX=0: the path of a store of more than 20k
// claims). When the claims directory itself is unchanged, only files
// rewritten in place can differ, and those are checked on a thread (held
// here by a file the test removes when it is done looking, named by
// ENGRAM_TEST_HOLD_RECONCILE, so the answers served before it finishes are
// observed however fast it would have been): a claim served meanwhile is
// never stale, and one that would newly match may be missing only while the
// answer's envelope says the store is not reconciled yet.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <sys/stat.h>
#include <thread>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_StartupTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string handWritten(const std::string& label, const std::string& text) {
    return "---\nlabel: " + label + "\nkind: fact\nconfidence: 0.8\n---\n" + text + "\n";
}

uint64_t inode(const std::string& path) {
    struct stat st;
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return uint64_t(st.st_ino);
}

// Rewrites a file in place: the same inode, so only its own stat moves
// (an editor that truncates and writes, not one that renames).
void rewriteInPlace(const std::string& path, const std::string& contents) {
    uint64_t before = inode(path);
    spew(path, contents);
    REQUIRE(inode(path) == before);
}

// Retracts a claim by hand, in place (a person editing its status line).
void retractInPlace(const std::string& file) {
    std::string text = *slurp(file);
    auto status = text.find("status: committed");
    REQUIRE(status != std::string::npos);
    rewriteInPlace(file, text.replace(status, 17, "status: retracted"));
}

bool hasRow(const json& recall, const std::string& id) {
    for (auto& row : recall["rows"])
        if (row["id"] == id) return true;
    return false;
}

bool reconciled(const json& envelope) {
    return storeOf(envelope)["reconciled"] == true;
}

constexpr int kBulk = 1200; // claims a checkout swaps

std::string bulkId(int i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "c-bulk%05d", i);
    return buf;
}

struct Site {
    TempDir root, home, control;
    std::vector<std::string> env;
    std::string claims;
    std::string anchored; // a claim anchored to drifted code
    std::string hold;     // while this file exists, a start-up check on a thread waits

    explicit Site(bool background)
        : hold(control / "hold-reconcile") {
        if (background) env.push_back("ENGRAM_INLINE_RECONCILE_MAX=0");
        env.push_back("ENGRAM_TEST_HOLD_RECONCILE=" + hold);
        copySampleWorkspace(root.path());
        claims = claimsDir(root.path());
        auto cli = runCli({"--root", root.path(), "--home", home.path(), "--json", "remember",
                           "TokenValidator.validate reports expiry in .ok", "--label",
                           "validate-expiry", "--anchor", "src/auth.py#TokenValidator.validate"},
                          {"ENGRAM_AGENT=human:tester"});
        INFO(cli.out << cli.err);
        REQUIRE(cli.exitCode == 0);
        anchored = cli.parsed()["claim"]["id"];
        std::string auth = root.path() + "/src/auth.py";
        std::string code = *slurp(auth);
        auto at = code.find("reason=\"expired\"");
        REQUIRE(at != std::string::npos);
        spew(auth, code.replace(at, 16, "reason=\"too old\""));

        for (int i = 0; i < kBulk; ++i)
            spew(claims + "/" + bulkId(i) + ".md",
                 handWritten("bulk-" + std::to_string(i),
                             "Bulk note " + std::to_string(i) + " about the ledger subsystem"));
        spew(claims + "/c-edit1.md",
             handWritten("cache-warm", "The cache warms lazily on the first request"));
        spew(claims + "/c-edit2.md", handWritten("settle", "Payments settle nightly"));
        spew(claims + "/c-gone.md", handWritten("archive", "Orders are archived by the heron job"));
        spew(claims + "/c-old.md",
             handWritten("invoices", "Invoices are rendered by the ibis app"));

        gitOk(root.path(), {"init", "-q", "-b", "main"});
        gitOk(root.path(), {"add", "-A"});
        gitOk(root.path(), {"commit", "-q", "-m", "claims"});
        gitOk(root.path(), {"checkout", "-q", "-b", "swap"});
        for (int i = 0; i < kBulk; ++i)
            spew(claims + "/" + bulkId(i) + ".md",
                 handWritten("bulk-" + std::to_string(i),
                             "Bulk note " + std::to_string(i) + " about the gazelle subsystem"));
        gitOk(root.path(), {"commit", "-q", "-am", "swap"});
        gitOk(root.path(), {"checkout", "-q", "main"});
    }

    void holdReconcile() { spew(hold, ""); }
    void releaseReconcile() { REQUIRE(fs::remove(hold)); }

    std::unique_ptr<Server> start() {
        ServerOptions opts;
        opts.home = home.path();
        opts.env = env;
        auto s = std::make_unique<Server>(opts);
        s->initialize(root.path());
        return s;
    }
};

void stop(Server& s) {
    REQUIRE(s.request("shutdown", nullptr).contains("result"));
    s.notify("exit", nullptr);
    REQUIRE(s.waitExit() == 0);
}

// Status until the store says it is reconciled (bounded: ~10 s).
json waitReconciled(Server& s) {
    json st;
    for (int i = 0; i < 500; ++i) {
        st = s.call("engram/status");
        if (reconciled(st["envelope"])) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    REQUIRE(reconciled(st["envelope"]));
    return st;
}

} // namespace

TEST_CASE("changes made while engram was down are seen by the first answer that could include "
          "them",
          "[e2e][startup]") {
    bool background = GENERATE(false, true);
    INFO((background ? "reconciled in the background" : "reconciled before the first answer"));
    Site site(background);
    {
        // A session that indexes the store and leaves it settled.
        auto s = site.start();
        CHECK(s->call("engram/recall", {{"query", "ledger"}, {"limit", 3}})["rows"].size() == 3);
        waitReconciled(*s);
        stop(*s);
    }
    // Older than any timestamp tick, so the settled listing is trusted.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));

    // While engram is down: a checkout swapping 1200 files, edits in place,
    // a delete, a rename, an add, and the anchored claim retracted by hand.
    gitOk(site.root.path(), {"checkout", "-q", "swap"});
    rewriteInPlace(site.claims + "/c-edit1.md",
                   handWritten("cache-warm", "The cache warms lazily and evicts with walrus LRU"));
    rewriteInPlace(site.claims + "/c-edit2.md",
                   handWritten("settle", "Payments settle hourly through the okapi queue"));
    fs::remove(site.claims + "/c-gone.md");
    fs::rename(site.claims + "/c-old.md", site.claims + "/c-renamed.md");
    spew(site.claims + "/c-new.md",
         handWritten("refunds", "Refunds are approved by the lynx desk"));
    retractInPlace(site.claims + "/" + site.anchored + ".md");

    // Held: were the check left to a thread, the answers below would all
    // come before it.
    site.holdReconcile();
    auto s = site.start();
    // The checkout: every answer about the swapped claims is the new text.
    json r = s->call("engram/recall", {{"query", "gazelle"}, {"limit", 20}});
    REQUIRE(r["rows"].size() == 20);
    for (auto& row : r["rows"])
        CHECK(row["text"].get<std::string>().find("gazelle") != std::string::npos);
    CHECK(s->call("engram/recall", {{"query", "ledger"}})["rows"].empty());
    // Added, deleted, renamed.
    CHECK(rowIds(s->call("engram/recall", {{"query", "lynx"}})) ==
          std::vector<std::string>{"c-new"});
    CHECK(s->call("engram/recall", {{"query", "heron"}})["rows"].empty());
    CHECK(rowIds(s->call("engram/recall", {{"query", "ibis"}})) ==
          std::vector<std::string>{"c-renamed"});
    // Edited in place, and served: never as it was.
    r = s->call("engram/recall", {{"query", "cache"}});
    REQUIRE(hasRow(r, "c-edit1"));
    CHECK(r["rows"][0]["text"] == "The cache warms lazily and evicts with walrus LRU");
    CHECK(s->call("engram/get", {{"id", "c-edit2"}})["claim"]["text"] ==
          "Payments settle hourly through the okapi queue");
    // The editor's view of the anchored file: the retracted claim is gone.
    json anchors = s->call("engram/anchors", {{"uri", fileUri(site.root.path() + "/src/auth.py")}});
    for (auto& a : anchors["anchors"])
        CHECK(a["claim_id"] != site.anchored);
    // Edited in place so that it now matches: the directory changed too
    // (the checkout), so the store was checked completely before answering.
    r = s->call("engram/recall", {{"query", "okapi"}});
    CHECK(rowIds(r) == std::vector<std::string>{"c-edit2"});
    CHECK(reconciled(r["envelope"]));
    CHECK(r["envelope"]["trust_mode"] == "full_trust");
    stop(*s);

    // engram check (one-shot) reconciles everything before it answers: the
    // retracted claim's drift is not reported.
    auto check = runCli(
        {"--root", site.root.path(), "--home", site.home.path(), "check", "--format", "json"},
        site.env);
    INFO(check.out << check.err);
    REQUIRE(check.exitCode == 0);
    CHECK(check.parsed()["findings"].empty());
}

TEST_CASE("files rewritten in place while engram was down: served current at once, found when "
          "the background check ends",
          "[e2e][startup]") {
    Site site(true);
    // The first session's check settles the directory only once its mtime
    // is older than a timestamp tick.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    {
        auto s = site.start();
        waitReconciled(*s);
        stop(*s);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    // Only edits in place: the directory stays as it was last known.
    rewriteInPlace(site.claims + "/" + bulkId(7) + ".md",
                   handWritten("bulk-7", "Bulk note 7 about the pangolin subsystem"));
    rewriteInPlace(site.claims + "/c-edit1.md",
                   handWritten("cache-warm", "The cache warms lazily and evicts with walrus LRU"));
    retractInPlace(site.claims + "/" + site.anchored + ".md");

    site.holdReconcile();
    auto s = site.start();
    // Newly matching, not yet checked: absent, and the answer says why.
    json r = s->call("engram/recall", {{"query", "pangolin"}});
    CHECK(r["rows"].empty());
    CHECK_FALSE(reconciled(r["envelope"]));
    CHECK(storeOf(r["envelope"])["unchecked_files"].get<int64_t>() > 0);
    CHECK(r["envelope"]["trust_mode"] == "needs_index");
    CHECK(r["why_empty"].get<std::string>().find("still being checked") != std::string::npos);
    bool named = false;
    for (auto& n : r["envelope"]["non_claims"])
        named |= n.get<std::string>().find("not running") != std::string::npos;
    CHECK(named);
    // Served while unchecked: read again from its file first.
    r = s->call("engram/recall", {{"query", "cache"}});
    REQUIRE(hasRow(r, "c-edit1"));
    CHECK(r["rows"][0]["text"] == "The cache warms lazily and evicts with walrus LRU");
    CHECK(s->call("engram/get", {{"id", bulkId(7)}})["claim"]["text"] ==
          "Bulk note 7 about the pangolin subsystem");
    json anchors = s->call("engram/anchors", {{"uri", fileUri(site.root.path() + "/src/auth.py")}});
    for (auto& a : anchors["anchors"])
        CHECK(a["claim_id"] != site.anchored);
    // Still held: still not reconciled.
    CHECK_FALSE(reconciled(s->call("engram/status")["envelope"]));

    site.releaseReconcile();
    waitReconciled(*s);
    r = s->call("engram/recall", {{"query", "pangolin"}});
    CHECK(rowIds(r) == std::vector<std::string>{bulkId(7)});
    CHECK(r["envelope"]["trust_mode"] == "full_trust");
    // The check recorded what it found in the audit log, as any arrival.
    std::string audit = *slurp(site.root.path() + "/.engram/audit.log");
    CHECK(audit.find(bulkId(7) + "@1\tunknown\tclaims/" + bulkId(7) + ".md changed") !=
          std::string::npos);
    stop(*s);
}

TEST_CASE("a large claims directory is watched for entries at once and for in-place writes once "
          "start-up is over, and a rewrite in place is then seen without a request",
          "[e2e][startup]") {
    // ENGRAM_WATCH_STAGED_BYTES=0 takes the large-directory path (staged
    // watch) on this small store.
    Site site(true);
    site.env.push_back("ENGRAM_WATCH_STAGED_BYTES=0");
    auto server = site.start();
    waitReconciled(*server);
    const std::string audit = site.root.path() + "/.engram/audit.log";
    auto seen = [&](const std::string& file) {
        for (int i = 0; i < 500; ++i) {
            if (slurp(audit).value_or("").find("claims/" + file + " changed") != std::string::npos)
                return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return false;
    };
    // Right after start-up: the write watch may or may not be in place yet.
    // Either the watch reports it, or the check that follows the watch's
    // completion finds it.
    rewriteInPlace(site.claims + "/c-edit1.md",
                   handWritten("cache-warm", "The cache warms eagerly at boot"));
    CHECK(seen("c-edit1.md"));
    // Once the watch is complete (the server's log says so): reported
    // without any request touching the claim.
    bool complete = false;
    for (int i = 0; i < 500 && !complete; ++i) {
        complete = server->log().find("for writes in place too") != std::string::npos;
        if (!complete) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    INFO(server->log());
    REQUIRE(complete);
    rewriteInPlace(site.claims + "/c-edit2.md", handWritten("settle", "Payments settle hourly"));
    CHECK(seen("c-edit2.md"));
    stop(*server);
}

TEST_CASE("a server's own writes leave the next start-up without a comparison of every file, on "
          "both surfaces",
          "[e2e][startup]") {
    // A session that writes a claim and ends at once (an MCP session, an
    // editor closed) changed the directory's entries: without its watch's
    // word the next start-up would compare every claim file before its first
    // answer. With it, the next server finds the directory as last known:
    // its check of files rewritten in place runs on a thread, held here, so
    // its first answer says the store is not reconciled yet, and serves the
    // new claim (in the index since it was written).
    for (bool mcp : {false, true}) {
        INFO((mcp ? "engram mcp" : "engram serve"));
        Site site(true);
        std::string id;
        {
            ServerOptions o;
            o.home = site.home.path();
            o.env = site.env;
            o.mcp = mcp;
            if (mcp) o.args = {"--root", site.root.path()};
            Server writer(o);
            const std::string text = "Refunds are batched by the pelican job";
            json args = {{"text", text}, {"agent", "human:tester"}};
            if (mcp) {
                writer.initializeMcp();
                json r = writer.call("tools/call", {{"name", "remember"}, {"arguments", args}});
                id = r["structuredContent"]["claim"]["id"];
                writer.closeStdin(); // the session ends
                REQUIRE(writer.waitExit() == 0);
            } else {
                writer.initialize(site.root.path());
                waitReconciled(writer);
                id = writer.call("engram/remember", args)["claim"]["id"];
                stop(writer);
            }
        }
        site.holdReconcile();
        auto next = site.start();
        json r = next->call("engram/recall", {{"query", "refunds batched pelican"}});
        CHECK(hasRow(r, id));
        CHECK_FALSE(reconciled(r["envelope"]));
        site.releaseReconcile();
        waitReconciled(*next);
        stop(*next);
    }
}

} // namespace e2e_StartupTest
