// The engine's operations against a real workspace directory.
#include "engine/Engine.h"
#include "engine/Checks.h"
#include "store/AuditLog.h"
#include "support/TempDir.h"
#include "support/Workspace.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Time.h"

#include <array>
#include <catch2/catch.hpp>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_EngineTest {

using namespace engram;
using engram::test::TempDir;

namespace {

struct Workspace : test::EngineWorkspace {
    explicit Workspace(bool watchFiles = false)
        : test::EngineWorkspace([&](EngineOptions& o) { o.watchFiles = watchFiles; }) {}

    RememberResult remember(const std::string& text, const std::string& label = "",
                            double confidence = 0.7) {
        RememberRequest r;
        r.text = text;
        if (!label.empty()) r.label = label;
        r.confidence = confidence;
        r.agent = "test:agent";
        return engine.remember(r);
    }
    RememberResult rememberKind(const std::string& text, const std::string& kind) {
        RememberRequest r;
        r.text = text;
        r.kind = kind;
        r.agent = "test:agent";
        return engine.remember(r);
    }
    RecallResult recall(const std::string& q) {
        RecallRequest r;
        r.query = q;
        return engine.recall(r);
    }
    std::vector<std::string> recallIds(const std::string& q) {
        std::vector<std::string> out;
        for (auto& row : recall(q).rows)
            out.push_back(row.claim.id);
        return out;
    }
};

ErrorKind kindOf(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const EngramError& e) {
        return e.kind;
    }
    FAIL("expected an EngramError");
    return ErrorKind::Internal;
}

} // namespace

TEST_CASE("recall ranks the claim about the query first, across word forms") {
    Workspace w;
    auto tokens = w.remember("TokenValidator.validate rejects expired tokens silently", "tokens");
    w.remember("The connection pool holds ten connections");
    w.remember("Builds use CMake with warnings enabled");
    auto ids = w.recallIds("token expiry");
    REQUIRE_FALSE(ids.empty());
    CHECK(ids[0] == tokens.claim.id);
    // Identifier parts are searchable.
    CHECK(w.recallIds("validator").at(0) == tokens.claim.id);
}

TEST_CASE("a same-label write supersedes when at least as confident, and keeps the old version") {
    Workspace w;
    auto v1 = w.remember("Pool size is 10", "pool", 0.8);
    CHECK(kindOf([&] { w.remember("Pool size is 5", "pool", 0.5); }) == ErrorKind::WouldDowngrade);
    CHECK(w.engine.get(v1.claim.id).claim.text == "Pool size is 10");

    auto v2 = w.remember("Pool size is 20", "pool", 0.9);
    CHECK(v2.claim.id == v1.claim.id);
    CHECK(v2.claim.version == 2);
    CHECK(v2.claim.created == v1.claim.created);
    REQUIRE(v2.superseded);
    CHECK(v2.superseded->status == ClaimStatus::Superseded);
    auto got = w.engine.get(v1.claim.id);
    CHECK(got.claim.text == "Pool size is 20");
    REQUIRE(got.history.size() == 1);
    CHECK(got.history[0].text == "Pool size is 10");

    // A forced downgrade is allowed and records why.
    RememberRequest r;
    r.text = "Pool size is 4";
    r.label = "pool";
    r.confidence = 0.3;
    r.agent = "test:agent";
    r.forceReason = "measured in production";
    auto v3 = w.engine.remember(r);
    CHECK(v3.claim.version == 3);
    CHECK(v3.claim.forceReason == "measured in production");
}

TEST_CASE("retracted claims leave default recall but can be asked for") {
    Workspace w;
    auto c = w.remember("Caching is disabled in tests");
    w.engine.retract(c.claim.id, "test:agent", "no longer true");
    CHECK(w.recallIds("caching").empty());
    RecallRequest r;
    r.query = "caching";
    r.include = {ClaimStatus::Retracted};
    auto res = w.engine.recall(r);
    REQUIRE(res.rows.size() == 1);
    CHECK(res.rows[0].claim.status == ClaimStatus::Retracted);
    CHECK(res.rows[0].claim.retractReason == "no longer true");
}

TEST_CASE("an empty answer over a non-empty store says memory exists and how to recover") {
    Workspace w;
    for (int i = 0; i < 25; ++i)
        w.remember("Fact number " + std::to_string(i) + " about billing");
    RecallRequest r;
    r.query = "kubernetes";
    auto res = w.engine.recall(r);
    CHECK(res.rows.empty());
    REQUIRE_FALSE(res.memoryExists.empty());
    CHECK(res.memoryExists[0].live == 25);
    CHECK(res.envelope.trustMode == "retrieval_needs_recovery");
    CHECK_FALSE(res.envelope.recovery.method.empty());
    CHECK(res.whyEmpty.find("25 live claims") != std::string::npos);
}

TEST_CASE("an empty store answers needs_index, not a bare empty list") {
    Workspace w;
    RecallRequest r;
    r.query = "anything";
    auto res = w.engine.recall(r);
    CHECK(res.rows.empty());
    CHECK(res.envelope.trustMode == "needs_index");
    CHECK_FALSE(statFile(w.root / ".engram")); // reading creates nothing
}

TEST_CASE("secrets are refused with the rule and span, and nothing is stored") {
    Workspace w;
    std::string key = std::string("gh") + "p_" + std::string(36, 'a') + "B1";
    try {
        w.remember("Deploy with token " + key + " please");
        FAIL("secret accepted");
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::SecretDetected);
        std::string msg = e.what();
        CHECK(msg.find(key) == std::string::npos);
        CHECK(msg.find("github-token") != std::string::npos);
    }
    CHECK(listFiles(w.root / ".engram/claims").empty());
}

TEST_CASE("invalid input is refused naming the field") {
    Workspace w;
    auto fieldOf = [&](RememberRequest r) {
        try {
            w.engine.remember(r);
        } catch (const EngramError& e) {
            for (auto& [k, v] : e.details)
                if (k == "field") return std::get<std::string>(v);
        }
        return std::string("(accepted)");
    };
    RememberRequest ok;
    ok.text = "text";
    ok.agent = "a";
    auto bad = ok;
    bad.text = "bad \xff byte";
    CHECK(fieldOf(bad) == "text");
    bad = ok;
    bad.confidence = 1.5;
    CHECK(fieldOf(bad) == "confidence");
    bad = ok;
    bad.kind = "rumour";
    CHECK(fieldOf(bad) == "kind");
    bad = ok;
    bad.agent = "";
    CHECK(fieldOf(bad) == "agent");
    bad = ok;
    bad.tags = {"ok", "a,b"};
    CHECK(fieldOf(bad) == "tags[1]");
    bad = ok;
    bad.anchors = {AnchorSpec{.path = "../outside.txt"}};
    CHECK(fieldOf(bad) == "anchors[0].path");
    // Evidence, tags and anchors are bounded so that no claim file outgrows
    // the 1 MiB every reader applies: it would be acknowledged, then read as
    // invalid after the next rebuild.
    bad = ok;
    bad.evidence = {{"note", "short"}, {"note", std::string(kMaxText + 1, 'y')}};
    CHECK(fieldOf(bad) == "evidence[1].value");
    bad = ok;
    bad.evidence.assign(kMaxEvidence + 1, Evidence{"path", "src/a.py"});
    CHECK(fieldOf(bad) == "evidence");
    bad = ok;
    for (int i = 0; i < 6000; ++i)
        bad.tags.push_back("tag-" + std::to_string(i) + std::string(190, 't'));
    CHECK(fieldOf(bad) == "claim");
    CHECK(listFiles(w.root / ".engram/claims").empty());
    CHECK(w.engine.recall({}).rows.empty());
}

TEST_CASE("file and range anchors report intact, drifted and orphaned") {
    Workspace w;
    w.root.write("src/a.py", "def f():\n    return 1\n\ndef g():\n    return 2\n");
    RememberRequest r;
    r.text = "f returns one";
    r.agent = "a";
    r.anchors = {AnchorSpec{.path = "src/a.py", .lines = std::make_pair(1, 2)}};
    auto c = w.remember("unused"); // a second, unanchored claim
    auto anchored = w.engine.remember(r);
    auto state = [&] { return w.engine.get(anchored.claim.id).anchorState; };
    CHECK(state() == "intact");
    CHECK(w.engine.get(c.claim.id).anchorState == "unanchored");
    w.root.write("src/a.py", "def f():\n        return 1   \n\ndef g():\n    return 2\n");
    CHECK(state() == "intact"); // white space only
    w.root.write("src/a.py", "def f():\n    return 7\n\ndef g():\n    return 2\n");
    CHECK(state() == "drifted");
    removeFile(w.root / "src/a.py");
    CHECK(state() == "orphaned");
}

TEST_CASE("learn counts verdicts and marks a claim contested") {
    Workspace w;
    auto c = w.remember("Retries are capped at three");
    w.engine.learn(c.claim.id, Verdict::Wrong, "a", "");
    auto r = w.engine.learn(c.claim.id, Verdict::Partial, "a", "half right");
    CHECK(r.claim.feedback.wrong == 1);
    CHECK(r.claim.feedback.partial == 1);
    CHECK(r.claim.feedback.contested());
    // A verdict that is none of them is refused where it is parsed
    // (ShapeTest; MemoryTest over the wire): the engine takes a Verdict.
    CHECK(kindOf([&] { w.engine.learn("c-missing", Verdict::Correct, "a", ""); }) ==
          ErrorKind::UnknownClaim);
}

TEST_CASE("doctrine born in the medulla is recalled from any workspace by default") {
    TempDir home;
    TempDir rootA, rootB;
    Engine a({rootA.path(), "test", home.path(), 30, "t"});
    Engine b({rootB.path(), "test", home.path(), 30, "t"});
    RememberRequest r;
    r.text = "Prefer small pull requests";
    r.agent = "human:ana";
    r.tier = "medulla";
    auto doctrine = a.remember(r);
    CHECK(doctrine.claim.origin == "medulla");
    RecallRequest q;
    q.query = "pull requests";
    auto res = b.recall(q);
    REQUIRE(res.rows.size() == 1);
    CHECK(res.rows[0].tier == "medulla");
    q.tier = "project";
    CHECK(b.recall(q).rows.empty());
}

TEST_CASE("every state change is in the audit log") {
    Workspace w;
    auto c = w.remember("One", "one", 0.5);
    w.remember("One again", "one", 0.6);
    w.engine.learn(c.claim.id, Verdict::Correct, "a", "");
    w.engine.retract(c.claim.id, "a", "done");
    auto log = *readFile(w.root / ".engram/audit.log");
    for (auto* act : {"\tremember\t", "\tsupersede\t", "\tlearn\t", "\tretract\t"})
        CHECK(log.find(act) != std::string::npos);
    CHECK(AuditLog(w.root / ".engram/audit.log").verify().ok);
}

TEST_CASE("an index deleted under a running engine is rebuilt with the same answers") {
    Workspace w;
    auto a = w.remember("Retries back off exponentially", "retries");
    w.remember("Logs rotate daily");
    auto before = w.recallIds("retry backoff");
    REQUIRE(before.at(0) == a.claim.id);
    for (auto* f : {"index.sqlite", "index.sqlite-wal", "index.sqlite-shm"})
        removeFile(w.root / (std::string(".engram/") + f));
    CHECK(w.recallIds("retry backoff") == before);
    CHECK(w.engine.status().envelope.stores.at(0).committed == 2);
}

TEST_CASE("status keeps anchor health per file and agrees with a full count after every change") {
    // engram/status recounts only the files whose anchors or text changed;
    // after each kind of change its counts must equal those of an engine
    // that counts everything afresh. Files are given mtimes in the past
    // (each write a different one), so the per-file reuse is exercised and
    // not bypassed as too recent to trust. Both ways of noticing a changed
    // file: a stat of each (one-shot commands), the directory watch (servers).
    const bool watch = GENERATE(false, true);
    CAPTURE(watch);
    Workspace w(watch);
    int64_t age = 1000;
    auto put = [&](const std::string& rel, const std::string& text) {
        w.root.write(rel, text);
        timespec past[2];
        past[0].tv_sec = past[1].tv_sec = std::time(nullptr) - age--;
        past[0].tv_nsec = past[1].tv_nsec = 0;
        REQUIRE(::utimensat(AT_FDCWD, (w.root / rel).c_str(), past, 0) == 0);
    };
    auto anchored = [&](const std::string& text, std::vector<AnchorSpec> anchors) {
        RememberRequest r;
        r.text = text;
        r.agent = "test:agent";
        r.anchors = std::move(anchors);
        return w.engine.remember(r).claim.id;
    };
    auto counts = [](const StatusResult::AnchorHealth& h) {
        return std::array<int64_t, 4>{h.intact, h.drifted, h.moved, h.orphaned};
    };
    auto afresh = [&] {
        Engine other({w.root.path(), "test", w.home.path(), 30, "test"});
        return counts(other.status().anchorHealth);
    };
    auto agrees = [&](const std::array<int64_t, 4>& expected) {
        auto got = counts(w.engine.status().anchorHealth);
        CHECK(got == expected);
        CHECK(got == afresh());
    };

    const std::string a = "def f():\n    return 1\n\ndef g():\n    return 2\n";
    const std::string b = "class K:\n    def run(self):\n        return 3\n";
    put("src/a.py", a);
    put("src/b.py", b);
    auto f = anchored("f returns one", {AnchorSpec{.path = "src/a.py", .symbol = "f"}});
    anchored("g returns two", {AnchorSpec{.path = "src/a.py", .symbol = "g"}});
    anchored("run returns three", {AnchorSpec{.path = "src/b.py", .symbol = "K.run"},
                                   AnchorSpec{.path = "src/a.py", .lines = std::make_pair(1, 2)}});
    w.remember("unanchored");
    agrees({4, 0, 0, 0});
    agrees({4, 0, 0, 0}); // unchanged: reused

    put("src/a.py", "def f():\n    return 7\n\ndef g():\n    return 2\n"); // f's body
    agrees({2, 2, 0, 0});
    put("src/a.py", a);
    agrees({4, 0, 0, 0});

    // An unsaved edit in the editor counts; closing the buffer restores the file's view.
    w.engine.openDocument("src/b.py", b);
    agrees({4, 0, 0, 0});
    auto at = uint32_t(b.find("3"));
    w.engine.editDocument("src/b.py", at, at + 1, "4");
    CHECK(counts(w.engine.status().anchorHealth) == std::array<int64_t, 4>{3, 1, 0, 0});
    w.engine.closeDocument("src/b.py");
    agrees({4, 0, 0, 0});

    // Claims written and retracted in a file already counted.
    anchored("g again", {AnchorSpec{.path = "src/a.py", .symbol = "g"}});
    agrees({5, 0, 0, 0});
    w.engine.retract(f, "test:agent", "wrong");
    agrees({4, 0, 0, 0});

    // A file removed: its anchors are orphaned.
    removeFile(w.root / "src/b.py");
    agrees({3, 0, 0, 1});

    // A checkout that replaces a file by renaming another over it.
    put("src/b.py.new", b);
    std::filesystem::rename(w.root / "src/b.py.new", w.root / "src/b.py");
    agrees({4, 0, 0, 0});

    // The directory moved out of the workspace and another put in its place.
    TempDir aside;
    std::filesystem::rename(w.root / "src", aside / "src");
    agrees({0, 0, 0, 4});
    put("src/a.py", "def f():\n    return 7\n\ndef g():\n    return 2\n");
    put("src/b.py", b);
    agrees({3, 1, 0, 0});
    std::filesystem::remove_all(w.root / "src");
    std::filesystem::rename(aside / "src", w.root / "src");
    agrees({4, 0, 0, 0});

    if (watch) {
        // Same size, same inode, mtime put back: a stat cannot tell, the
        // watch does.
        struct stat before;
        REQUIRE(::stat((w.root / "src/a.py").c_str(), &before) == 0);
        {
            std::ofstream out(w.root / "src/a.py", std::ios::in | std::ios::out);
            out.seekp(std::streamoff(a.find("return 1") + 7));
            out << "9";
        }
        timespec same[2] = {before.st_atim, before.st_mtim};
        REQUIRE(::utimensat(AT_FDCWD, (w.root / "src/a.py").c_str(), same, 0) == 0);
        CHECK(counts(w.engine.status().anchorHealth) == std::array<int64_t, 4>{3, 1, 0, 0});
    }
}

TEST_CASE("recall finds a claim worded otherwise by related words, under one holding the query's "
          "own") {
    Workspace w;
    auto undo = w.remember("Undo a bad schema change with alembic downgrade, one step at a time");
    auto rollback = w.remember("The rollback script puts the previous image back in production");
    w.remember("The connection pool holds ten connections");
    RecallRequest r;
    r.query = "how do I undo a bad release";
    auto rows = w.engine.recall(r).rows;
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].claim.id == undo.claim.id);
    CHECK(rows[1].claim.id == rollback.claim.id);
    CHECK(std::find(rows[1].why.begin(), rows[1].why.end(),
                    "matched 'rollback' in text (for 'undo')") != rows[1].why.end());
}

TEST_CASE("recall folds a near duplicate into the row above it, never a claim that differs in a "
          "number or contradicts it") {
    Workspace w;
    auto a = w.remember("Access tokens live for 15 minutes and refresh tokens for 30 days", "ttl");
    auto b = w.remember("access tokens live 15 minutes, refresh tokens 30 days");
    auto c = w.remember("Access tokens live for 60 minutes and refresh tokens for 30 days");
    auto d =
        w.remember("Access tokens must not live for 15 minutes and refresh tokens for 30 days");
    RecallRequest r;
    r.query = "how long do access tokens live";
    auto rows = w.engine.recall(r).rows;
    std::vector<std::string> ids;
    for (auto& row : rows)
        ids.push_back(row.claim.id);
    // b and a are one statement: one row, naming the other.
    bool aServed = std::count(ids.begin(), ids.end(), a.claim.id) == 1;
    bool bServed = std::count(ids.begin(), ids.end(), b.claim.id) == 1;
    CHECK(aServed != bServed);
    for (auto& row : rows)
        if (row.claim.id == a.claim.id || row.claim.id == b.claim.id)
            CHECK(row.nearDuplicates ==
                  std::vector<std::string>{aServed ? b.claim.id : a.claim.id});
    CHECK(std::count(ids.begin(), ids.end(), c.claim.id) == 1);
    CHECK(std::count(ids.begin(), ids.end(), d.claim.id) == 1);
    CHECK(rows.size() == 3);
}

TEST_CASE("remember answers with the live claims it probably contradicts or restates") {
    Workspace w;
    auto ttl = w.remember("Access tokens live for 15 minutes; refresh tokens for 30 days", "ttl");
    auto pool = w.remember("The connection pool holds ten connections", "pool");
    auto cache = w.remember("Callers must cache the settings object", "settings-cache");

    auto other = w.remember("Access tokens live for 60 minutes; refresh tokens for 30 days");
    REQUIRE(other.related.size() == 1);
    CHECK(other.related[0].id == ttl.claim.id);
    CHECK(other.related[0].relation == "contradicts");
    CHECK(other.related[0].why.find("number rule") != std::string::npos);

    auto again = w.remember("The connection pool holds ten connections at most");
    REQUIRE(again.related.size() == 1);
    CHECK(again.related[0].id == pool.claim.id);
    CHECK(again.related[0].relation == "restates");
    CHECK(again.related[0].label == "pool");

    auto never = w.remember("Callers must not cache the settings object");
    REQUIRE_FALSE(never.related.empty());
    CHECK(never.related[0].id == cache.claim.id);
    CHECK(never.related[0].relation == "contradicts");

    // A claim about something else, or a new version under its own label,
    // names nothing.
    CHECK(w.remember("Builds use CMake with warnings enabled").related.empty());
    CHECK(w.remember("The connection pool holds ten connections", "pool").related.size() == 1);
}

TEST_CASE("a word naming a kind finds that kind's claims whatever their words") {
    Workspace w;
    auto retro = w.rememberKind("Agreed at the retro: large pull requests need a second reviewer",
                                "decision");
    auto naming = w.rememberKind("Handlers are named after the event they handle", "convention");
    w.remember("We cut the report cache TTL to ten minutes");
    auto recall = [&](const std::string& q) { return w.recall(q); };
    // No word of these queries is in the claim's text.
    auto decided = recall("what did we decide?");
    REQUIRE(decided.rows.size() == 1);
    CHECK(decided.rows[0].claim.id == retro.claim.id);
    CHECK(std::find(decided.rows[0].why.begin(), decided.rows[0].why.end(),
                    "matched 'decid' in kind") != decided.rows[0].why.end());
    auto conventions = recall("our conventions");
    REQUIRE(conventions.rows.size() == 1);
    CHECK(conventions.rows[0].claim.id == naming.claim.id);
    CHECK(recall("any gotchas").rows.empty()); // no claim of that kind
}

TEST_CASE("recall reads a date phrase as a window of the claims' dates") {
    Workspace w;
    auto newCache = w.remember("We cut the report cache TTL to ten minutes");
    auto oldCache = w.remember("The report cache keeps totals for one hour");
    auto incident = w.remember("Webhook deliveries were delayed by a worker out of memory");
    auto retro = w.rememberKind("Agreed at the retro: large pull requests need a second reviewer",
                                "decision");
    // Written 2, 120, 15 and 3 days ago: the claim files say so, and the
    // index is rebuilt from them.
    const int64_t now = std::time(nullptr);
    w.backdate(newCache.claim.id, 2);
    w.backdate(oldCache.claim.id, 120);
    w.backdate(incident.claim.id, 15);
    w.backdate(retro.claim.id, 3);
    w.engine.reindex();
    auto recall = [&](const std::string& q) { return w.recall(q); };

    // With words beside it: the match written in the window first, the
    // other still served.
    auto cache = recall("report cache this week");
    REQUIRE(cache.rows.size() == 2);
    CHECK(cache.rows[0].claim.id == newCache.claim.id);
    CHECK(cache.rows[1].claim.id == oldCache.claim.id);
    CHECK(std::find(cache.rows[0].why.begin(), cache.rows[0].why.end(),
                    "written " + formatUtc(now - 2 * 86400).substr(0, 10) + ", this week") !=
          cache.rows[0].why.end());
    REQUIRE(cache.notices.size() == 1);
    CHECK(cache.notices[0].starts_with("'this week' read as the claims written from "));

    // A question about what happened, and a date: the window's claims,
    // nearest to the moment named first ("two weeks ago": the incident, 15
    // days back), and nothing from outside it.
    auto ago = recall("what happened two weeks ago");
    REQUIRE(ago.rows.size() == 1);
    CHECK(ago.rows[0].claim.id == incident.claim.id);
    auto recent = recall("what happened this week");
    REQUIRE(recent.rows.size() == 2);
    CHECK(recent.rows[0].claim.id == newCache.claim.id); // newest first
    CHECK(recent.rows[1].claim.id == retro.claim.id);
    // A kind the query names matches like a tag: the decision taken at the
    // retro has none of the query's words.
    auto decided = recall("what did we decide this week");
    REQUIRE_FALSE(decided.rows.empty());
    CHECK(decided.rows[0].claim.id == retro.claim.id);

    // Any other word keeps it a search: no claim says what broke.
    CHECK(recall("what broke this week").rows.empty());

    // An empty window says which window it was.
    auto none = recall("what happened yesterday");
    CHECK(none.rows.empty());
    CHECK(none.whyEmpty.find("no claim in scope was written from ") == 0);

    // An event instead of a date: the claim naming it dates the window
    // (the incident, 15 days back; "incident" says what kind of event it
    // was, and the claim need not say it).
    auto since = recall("what changed since the webhook incident");
    REQUIRE(since.rows.size() == 2);
    CHECK(since.rows[0].claim.id == newCache.claim.id); // newest first
    CHECK(since.rows[1].claim.id == retro.claim.id);
    REQUIRE(since.notices.size() == 1);
    CHECK(since.notices[0].find("dated by " + incident.claim.id) != std::string::npos);
    auto before = recall("what happened before the webhook incident");
    REQUIRE(before.rows.size() == 1);
    CHECK(before.rows[0].claim.id == oldCache.claim.id);
    // A kind named beside it: a search, the window first.
    auto decidedSince = recall("what did we decide since the webhook incident");
    REQUIRE_FALSE(decidedSince.rows.empty());
    CHECK(decidedSince.rows[0].claim.id == retro.claim.id);
    // An event no claim names: words, said so.
    auto unknown = recall("what changed since the kubernetes migration");
    CHECK(unknown.rows.empty());
    REQUIRE_FALSE(unknown.notices.empty());
    CHECK(unknown.notices[0].find("names no claim's event") != std::string::npos);
    // Any other word keeps the query a search, with no window: the deploy
    // here is not a date.
    auto deploy = recall("raise the cache TTL before the webhook incident review");
    for (auto& n : deploy.notices)
        CHECK(n.find("read as the claims written") == std::string::npos);
}

} // namespace unit_EngineTest
