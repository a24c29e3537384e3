// Tiers through the engine: the bound project, the medulla and, only on
// request, every other registered project (invariant 1); promotion with its
// witness; honest answers when nothing matches (invariant 2).
#include "engine/Engine.h"
#include "store/Registry.h"
#include "support/TempDir.h"
#include "util/Error.h"
#include "util/Fs.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_TiersTest {

using namespace engram;
using engram::test::TempDir;

namespace {

std::string baseName(const std::string& p) {
    return p.substr(p.find_last_of('/') + 1);
}

struct Machine {
    TempDir home;
    TempDir xDir, yDir;
    std::string x = xDir.path() + "/xproj", y = yDir.path() + "/yproj";
    std::unique_ptr<Engine> ex, ey;

    Machine() {
        makeDirs(x);
        makeDirs(y);
        ex = std::make_unique<Engine>(EngineOptions{x, "test", home.path(), 30, "test"});
        ey = std::make_unique<Engine>(EngineOptions{y, "test", home.path(), 30, "test"});
    }
    RememberResult remember(Engine& e, const std::string& text, const std::string& tier,
                            const std::string& label = "", double confidence = 0.7,
                            const std::string& force = "") {
        RememberRequest r;
        r.text = text;
        r.tier = tier;
        if (!label.empty()) r.label = label;
        r.confidence = confidence;
        r.agent = "codex:maker";
        r.forceReason = force;
        return e.remember(r);
    }
    RecallResult recall(Engine& e, std::optional<std::string> tier, const std::string& q) {
        RecallRequest r;
        r.query = q;
        r.tier = tier;
        r.limit = 50;
        return e.recall(r);
    }
};

// text -> (tier, origin, store) of every row.
std::map<std::string, std::tuple<std::string, std::string, std::string>>
rowsOf(const RecallResult& r) {
    std::map<std::string, std::tuple<std::string, std::string, std::string>> out;
    for (auto& row : r.rows)
        out[row.claim.text] = {row.tier, row.claim.origin, row.store};
    return out;
}

std::set<std::string> textsOf(const RecallResult& r) {
    std::set<std::string> out;
    for (auto& row : r.rows)
        out.insert(row.claim.text);
    return out;
}

} // namespace

TEST_CASE("no leak: each tier scope from each project returns exactly its stores' claims",
          "[tiers]") {
    Machine m;
    m.remember(*m.ex, "parser alpha lives in X", "project");
    m.remember(*m.ey, "parser alpha lives in Y", "project");
    m.remember(*m.ex, "parser alpha doctrine", "medulla");
    const std::string X = "parser alpha lives in X", Y = "parser alpha lives in Y",
                      M = "parser alpha doctrine";

    struct Expect {
        Engine* from;
        std::optional<std::string> tier;
        std::set<std::string> texts;
    };
    const std::vector<Expect> expectations = {
        {m.ex.get(), std::nullopt, {X, M}}, {m.ex.get(), "project", {X}},
        {m.ex.get(), "medulla", {M}},       {m.ex.get(), "all", {X, Y, M}},
        {m.ey.get(), std::nullopt, {Y, M}}, {m.ey.get(), "project", {Y}},
        {m.ey.get(), "medulla", {M}},       {m.ey.get(), "all", {X, Y, M}},
    };
    for (auto& e : expectations) {
        const bool fromX = e.from == m.ex.get();
        INFO((fromX ? "from X, tier " : "from Y, tier ") << e.tier.value_or("default"));
        auto r = m.recall(*e.from, e.tier, "parser alpha");
        CHECK(textsOf(r) == e.texts);
        for (auto& [text, where] : rowsOf(r)) {
            auto& [tier, origin, store] = where;
            INFO(text);
            if (text == M) {
                CHECK(tier == "medulla");
                CHECK(origin == "medulla");
            } else {
                const bool own = (text == X) == fromX;
                CHECK(tier == (own ? "project" : "other"));
                CHECK(origin == "project:" + baseName(text == X ? m.x : m.y));
                CHECK(store == (text == X ? m.x : m.y));
            }
        }
    }
}

TEST_CASE("every project store served is registered once, sorted", "[tiers]") {
    Machine m;
    Registry reg(m.home.path());
    CHECK(reg.roots().empty()); // neither project has a store yet
    m.remember(*m.ey, "y note", "project");
    m.remember(*m.ex, "x note", "project");
    m.remember(*m.ex, "x note two", "project");
    auto roots = reg.roots();
    std::vector<std::string> want{m.x, m.y};
    std::sort(want.begin(), want.end());
    CHECK(roots == want);
    // A new engine on an existing store registers it too (here: again, a no-op).
    Engine again({m.x, "test", m.home.path(), 30, "test"});
    CHECK(reg.roots() == want);
    // Hand-edited junk lines are skipped, not fatal.
    appendDurable(reg.path(), "not a path\n\n");
    CHECK(reg.roots() == want);
}

TEST_CASE("tier all names a registered project that is gone from disk", "[tiers]") {
    Machine m;
    m.remember(*m.ex, "shared word in X", "project");
    m.remember(*m.ey, "shared word in Y", "project");
    std::filesystem::remove_all(m.y);
    auto r = m.recall(*m.ex, "all", "shared word");
    CHECK(textsOf(r) == std::set<std::string>{"shared word in X"});
    REQUIRE(r.unreachable.size() == 1);
    CHECK(r.unreachable[0].root == m.y);
    CHECK(r.unreachable[0].reason.find(m.y) != std::string::npos);
    // The default scope never looks at other projects, so it names none.
    CHECK(m.recall(*m.ex, std::nullopt, "shared word").unreachable.empty());
    auto st = m.ex->status();
    bool listed = false;
    for (auto& s : st.registered)
        if (s.root == m.y) listed = !s.reachable;
    CHECK(listed);
}

TEST_CASE("promotion copies into the medulla, stamps the witness, refuses a weaker copy",
          "[tiers]") {
    Machine m;
    auto learned = m.remember(*m.ex, "retry the flaky socket test twice before failing", "project",
                              "flaky-socket", 0.7);
    const std::string id = learned.claim.id;

    auto p = m.ex->promote({id, "claude:orchestrator", "seen in two projects"});
    CHECK(p.medullaCopy.id != id);
    CHECK(p.medullaCopy.origin == "project:xproj");
    CHECK(p.medullaCopy.originClaim == "project:xproj:" + id);
    CHECK(p.medullaCopy.promotedBy == "claude:orchestrator");
    CHECK(p.medullaCopy.sourceAgent == "codex:maker");
    CHECK(p.medullaCopy.created == learned.claim.created);
    CHECK(p.witness.promotedTo == p.medullaCopy.id);
    CHECK(p.witness.version == learned.claim.version);
    CHECK(p.medullaLive == 1);
    CHECK(p.capWarning.empty());

    // Y's next default recall shows it, as medulla, with the chain in words.
    auto r = m.recall(*m.ey, std::nullopt, "flaky socket");
    REQUIRE(r.rows.size() == 1);
    CHECK(r.rows[0].tier == "medulla");
    CHECK(r.rows[0].claim.origin == "project:xproj");
    CHECK(r.rows[0].provenance.find("learned in xproj by codex:maker on ") == 0);
    CHECK(r.rows[0].provenance.find("promoted by claude:orchestrator on ") != std::string::npos);
    CHECK(r.rows[0].provenance.find(": seen in two projects") != std::string::npos);

    // A weaker version of the claim cannot replace the medulla copy...
    m.remember(*m.ex, "retry the flaky socket test once", "project", "flaky-socket", 0.4,
               "less sure now");
    try {
        m.ex->promote({id, "claude:orchestrator", "again"});
        FAIL("a weaker re-promotion was accepted");
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::WouldDowngrade);
    }
    // ...a stronger one becomes its next version.
    m.remember(*m.ex, "retry the flaky socket test three times", "project", "flaky-socket", 0.9);
    auto p2 = m.ex->promote({id, "claude:orchestrator", "confirmed"});
    CHECK(p2.medullaCopy.id == p.medullaCopy.id);
    CHECK(p2.medullaCopy.version == 2);
    REQUIRE(p2.superseded);
    CHECK(p2.medullaLive == 1);

    // Retracting the medulla copy leaves the witness exactly as it was.
    auto witnessFile = m.x + "/.engram/claims/" + id + ".md";
    auto before = readFile(witnessFile);
    m.ey->retract(p.medullaCopy.id, "human:ana", "not true in Y");
    CHECK(readFile(witnessFile) == before);
    CHECK(m.ex->get(id).claim.live());
    CHECK(m.ex->get(id).claim.promotedTo == p.medullaCopy.id);
}

TEST_CASE("promote refuses unknown ids, medulla claims, retracted claims and secrets", "[tiers]") {
    Machine m;
    auto kind = [&](const PromoteRequest& r) {
        try {
            m.ex->promote(r);
        } catch (const EngramError& e) {
            return e.kind;
        }
        return ErrorKind::Internal;
    };
    auto doctrine = m.remember(*m.ex, "doctrine", "medulla").claim.id;
    auto gone = m.remember(*m.ex, "gone", "project").claim.id;
    m.ex->retract(gone, "human:ana", "wrong");
    CHECK(kind({"c-aaaaaaaaaaaa", "a:b", "r"}) == ErrorKind::UnknownClaim);
    CHECK(kind({doctrine, "a:b", "r"}) == ErrorKind::UnknownClaim);
    CHECK(kind({gone, "a:b", "r"}) == ErrorKind::InvalidParams);
    CHECK(kind({"Not an id!", "a:b", "r"}) == ErrorKind::InvalidParams);
    auto ok = m.remember(*m.ex, "fine", "project").claim.id;
    CHECK(kind({ok, "a:b", ""}) == ErrorKind::InvalidParams);
    // A secret put into the file by hand after it was written.
    auto file = m.x + "/.engram/claims/" + ok + ".md";
    auto text = *readFile(file);
    atomicWrite(file, text + "token ghp_" + std::string(36, 'a') + "\n");
    m.ex->refresh();
    CHECK(kind({ok, "a:b", "r"}) == ErrorKind::SecretDetected);
    CHECK(Registry(m.home.path()).roots() == std::vector<std::string>{m.x});
}

TEST_CASE("a store of 25 live claims answers a query matching none honestly", "[tiers]") {
    Machine m;
    for (int i = 0; i < 25; ++i)
        m.remember(*m.ex, "claim number " + std::to_string(i) + " about the cache", "project");
    auto r = m.recall(*m.ex, std::nullopt, "zeppelin");
    CHECK(r.rows.empty());
    bool project = false;
    for (auto& me : r.memoryExists)
        if (me.tier == "project") project = me.live == 25;
    CHECK(project);
    CHECK(r.whyEmpty.find("25 live claims exist") != std::string::npos);
    CHECK(r.envelope.trustMode == "retrieval_needs_recovery");
    CHECK(r.envelope.recovery.method == "engram/recall");
    CHECK_FALSE(r.envelope.recovery.reason.empty());
}

TEST_CASE("tier all over many projects: rows keep their store, the best row wins, answers repeat",
          "[tiers]") {
    // Enough other projects that their candidates are read on two threads
    // and share one scoring budget, each with more matching claims than
    // that budget.
    TempDir home, parent;
    const std::string bound = parent.path() + "/bound";
    makeDirs(bound);
    Engine x(EngineOptions{bound, "test", home.path(), 30, "test"});
    constexpr int kProjects = 6, kClaims = 60;
    for (int p = 0; p < kProjects; ++p) {
        std::string root = parent.path() + "/proj" + std::to_string(p);
        makeDirs(root);
        Engine e(EngineOptions{root, "test", home.path(), 30, "test"});
        RememberRequest r;
        r.agent = "codex:maker";
        // Every store the same size, so a term weighs the same in each; the
        // rare word first in its store, where the others hold a common row.
        r.text = std::string("cache eviction ") + (p == kProjects - 1 ? "zebra" : "walrus") +
                 " rule of proj" + std::to_string(p);
        e.remember(r);
        for (int i = 0; i < kClaims; ++i) {
            r.text = "cache note " + std::to_string(i) + " of proj" + std::to_string(p);
            e.remember(r);
        }
    }
    RecallRequest req;
    req.query = "cache zebra";
    req.tier = "all";
    req.limit = 16;
    // The one claim holding the rare word is the best, in the last store;
    // the rows holding only `cache`, which every claim holds, score under
    // the floor and are counted, not shown.
    auto rare = x.recall(req);
    REQUIRE_FALSE(rare.rows.empty());
    CHECK(rare.rows[0].claim.text == "cache eviction zebra rule of proj5");
    CHECK(rare.rows[0].store == parent.path() + "/proj5");
    REQUIRE(rare.notices.size() == 1);
    CHECK(rare.notices[0].find("more claims matched only weakly") != std::string::npos);

    req.query = "cache";
    auto first = x.recall(req);
    REQUIRE(first.rows.size() == 16);
    std::set<std::string> stores;
    for (auto& row : first.rows) {
        CHECK(row.tier == "other");
        // Each row names the store it was read from.
        auto proj = row.claim.text.substr(row.claim.text.rfind(' ') + 1);
        CHECK(row.store == parent.path() + "/" + proj);
        stores.insert(row.store);
    }
    // Candidates that score the same go round the stores instead of filling
    // the budget from the first one (which alone holds enough).
    CHECK(stores.size() >= 2);
    CHECK(first.memoryExists.size() == kProjects); // the bound store and the medulla are empty
    for (int round = 0; round < 5; ++round) {
        auto again = x.recall(req);
        REQUIRE(again.rows.size() == first.rows.size());
        for (size_t i = 0; i < again.rows.size(); ++i) {
            CHECK(again.rows[i].claim.id == first.rows[i].claim.id);
            CHECK(again.rows[i].store == first.rows[i].store);
        }
    }
}

} // namespace unit_TiersTest
