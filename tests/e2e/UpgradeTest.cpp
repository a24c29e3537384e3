// Upgrading engram drifts nothing: claim files written by earlier releases
// (fixtures/upgrade/<commit>/claims, made by scripts/make-upgrade-fixtures.sh
// from 54a2863, the release before anchors recorded identity and became
// blind to formatters' rewrites, from 4c29459, the first after, and from
// 1e8aad7, the last under digest rules 1, which cut an interface at its
// first generic call signature on a line of its own), anchored
// to every definition of fixtures/upgrade/src, read by this engram with the
// code unchanged: every one intact, though this engram's digest rules
// differ from theirs; a changed definition drifted, and only it; engram init
// re-stamps the re-derived ones as a recorded act; and without the history
// that shows their code, the ones this engram's digests do not reproduce
// are not judged (earlier_rules), never drifted.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_UpgradeTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kUpgrade = std::string(ENGRAM_FIXTURES) + "/upgrade";

// A workspace holding the fixture sources and one release's claim files.
struct Upgraded {
    TempDir root, home;
    std::string release;

    explicit Upgraded(std::string commit)
        : release(std::move(commit)) {
        fs::copy(kUpgrade + "/src", root / "src", fs::copy_options::recursive);
        fs::create_directories(root / ".engram");
        fs::copy(kUpgrade + "/" + release + "/claims", root / ".engram/claims",
                 fs::copy_options::recursive);
    }
    void git(std::vector<std::string> args) const {
        auto r = runGit(root.path(), std::move(args));
        INFO(describe(r));
        REQUIRE(r.exitCode == 0);
    }
    void commitAll(const std::string& message) const {
        git({"add", "-A"});
        git({"commit", "-q", "-m", message});
    }
    CliResult run(std::vector<std::string> args) const {
        std::vector<std::string> full = {"--root", root.path(), "--home", home.path()};
        full.insert(full.end(), args.begin(), args.end());
        return runCli(full, fixedGitEnv());
    }
    json check() const {
        CliResult r = run({"check", "--format", "json", "--fail-on", "none"});
        INFO(describe(r));
        REQUIRE(r.exitCode == 0);
        return r.parsed();
    }
    // The anchor lines of every claim file, by claim id.
    std::map<std::string, std::string> anchors() const {
        std::map<std::string, std::string> out;
        for (auto& name : filesIn(claimsDir(root.path()), ".md")) {
            std::string text = *slurp(claimsDir(root.path()) + "/" + name);
            auto at = text.find("\nanchor: ");
            REQUIRE(at != std::string::npos);
            out[name.substr(0, name.size() - 3)] =
                text.substr(at + 9, text.find('\n', at + 1) - at - 9);
        }
        return out;
    }
    void edit(const std::string& rel, const std::string& from, const std::string& to) const {
        std::string text = *slurp(root / rel);
        auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        spew(root / rel, text.replace(at, from.size(), to));
    }
};

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t from = 0;
    for (size_t at = s.find(sep); at != std::string::npos; at = s.find(sep, from)) {
        out.push_back(s.substr(from, at - from));
        from = at + 1;
    }
    out.push_back(s.substr(from));
    return out;
}

// Findings of the anchor codes, as "code claim-id" (stale ones aside: the
// fixtures' claims are older than stale_days by design of time).
std::set<std::string> anchorFindings(const json& check) {
    std::set<std::string> out;
    for (auto& f : check["findings"]) {
        std::string code = f["code"];
        if (code == "engram.drifted" || code == "engram.orphaned" || code == "engram.moved")
            out.insert(code + " " + f["claim_id"].get<std::string>());
    }
    return out;
}

} // namespace

TEST_CASE("upgrade: claims stamped by earlier releases stay intact while their code is unchanged",
          "[upgrade]") {
    std::string release = GENERATE(as<std::string>{}, "54a2863", "4c29459", "1e8aad7");
    // This engram's digest rules (syntax::kDigestRules), and the ones the
    // release stamped with: none recorded before 1e8aad7's.
    const std::string rules = "2";
    const std::string earlier = release == "1e8aad7" ? "1" : "";
    INFO("claims written by " << release);
    Upgraded w(release);
    w.git({"init", "-q"});
    w.commitAll("the code and the claims the earlier release anchored to it");
    auto before = w.anchors();
    REQUIRE(before.size() > 90);
    // The earlier rules' stamps: their version or none, and digests this
    // engram's rules do not reproduce (what made them read as drifted).
    for (auto& [id, line] : before)
        if (earlier.empty())
            CHECK(line.find(" rules=") == std::string::npos);
        else
            CHECK(line.find(" rules=" + earlier) != std::string::npos);

    json clean = w.check();
    CHECK(anchorFindings(clean).empty());

    // A definition whose body changes, uncommitted and then committed: only
    // its claim drifts, judged against the code its stamp was made on.
    std::string changed;
    for (auto& [id, line] : before)
        if (line.find("symbol=constant_time_equal ") != std::string::npos) changed = id;
    REQUIRE(!changed.empty());
    w.edit("src/languages/python/token_validator.py", "hmac.compare_digest(a, b)",
           "hmac.compare_digest(b, a)");
    CHECK(anchorFindings(w.check()) == std::set<std::string>{"engram.drifted " + changed});
    w.commitAll("constant_time_equal: arguments swapped");
    json drifted = w.check();
    CHECK(anchorFindings(drifted) == std::set<std::string>{"engram.drifted " + changed});
    w.git({"revert", "--no-edit", "HEAD"});
    CHECK(anchorFindings(w.check()).empty());

    // Re-stamping: the stamps git re-derived as unchanged are written again
    // with today's rules, one recorded act per claim; the rest is untouched.
    CliResult init = w.run({"--json", "init"});
    INFO(describe(init));
    REQUIRE(init.exitCode == 0);
    json restamp = init.parsed()["restamp"];
    auto after = w.anchors();
    std::set<std::string> restamped;
    for (auto& [id, line] : after) {
        if (line == before[id]) continue;
        restamped.insert(id);
        CHECK(line.find(" rules=" + rules) != std::string::npos);
        CHECK(line.find(" head=") != std::string::npos);
    }
    CHECK(!restamped.empty());
    // Under rules 1, only the interface the grammar's reading cut short
    // digests otherwise now.
    if (release == "1e8aad7") {
        REQUIRE(restamped.size() == 1);
        CHECK(contains(after[*restamped.begin()], "symbol=Fetcher "));
    }
    CHECK(restamp["restamped"] == int64_t(restamped.size()));
    CHECK(restamp["claims"] == int64_t(restamped.size()));
    CHECK(restamp["unjudged"] == 0);
    CHECK(restamp["drifted"] == 0);
    std::set<std::string> audited;
    for (auto& line : split(*slurp(w.root / ".engram/audit.log"), '\n')) {
        auto fields = split(line, '\t');
        if (fields.size() < 6 || fields[2] != "restamp") continue;
        CHECK(fields[4] == "engram");
        CHECK(contains(fields[5], "digest rules " + (earlier.empty() ? "unversioned" : earlier) +
                                      " -> " + rules));
        // A kept version of the rules needs no commit to tell.
        CHECK(contains(fields[5], earlier.empty() ? "re-derived unchanged from commit"
                                                  : "unchanged by digest rules " + earlier));
        audited.insert(fields[3].substr(0, fields[3].find('@')));
    }
    CHECK(audited == restamped);
    CHECK(anchorFindings(w.check()).empty());
    // A second init finds nothing left to re-stamp.
    CliResult again = w.run({"--json", "init"});
    REQUIRE(again.exitCode == 0);
    CHECK(again.parsed()["restamp"]["restamped"] == 0);

    // Re-stamped, the claims need no history any more: a copy without git
    // (a tarball of the work tree) judges every one by its digests.
    TempDir bare;
    fs::copy(w.root / "src", bare / "src", fs::copy_options::recursive);
    fs::create_directories(bare / ".engram");
    fs::copy(claimsDir(w.root.path()), bare / ".engram/claims", fs::copy_options::recursive);
    CliResult r = runCli({"--root", bare.path(), "--home", w.home.path(), "check", "--format",
                          "json", "--fail-on", "none"});
    INFO(describe(r));
    REQUIRE(r.exitCode == 0);
    CHECK(anchorFindings(r.parsed()).empty());

    // And the same claims as first written, in a repository where they were
    // never committed: those whose digest this engram reproduces are intact;
    // exactly the others (the ones init re-derived) are not judged, saying
    // why, and none reads as drifted. Stamped by a kept version of the
    // rules, every one is judged by it, with no history: all intact.
    Upgraded fresh(release);
    fresh.git({"init", "-q"});
    json uncommitted = fresh.check();
    CHECK(anchorFindings(uncommitted).empty());
    if (!earlier.empty()) {
        CHECK(uncommitted["not_judged"]["total"] == 0);
        CliResult rows = fresh.run({"--json", "recall", "--limit", "200"});
        REQUIRE(rows.exitCode == 0);
        const json recalled = rows.parsed();
        REQUIRE(recalled["rows"].size() == before.size());
        for (auto& row : recalled["rows"])
            CHECK(row["anchor_state"] == "intact");
        return;
    }
    CHECK(uncommitted["not_judged"]["by_reason"]["earlier_rules"] == int64_t(restamped.size()));
    CHECK(uncommitted["not_judged"]["total"] == int64_t(restamped.size()));
    CliResult rows = fresh.run({"--json", "recall", "--limit", "200"});
    INFO(describe(rows));
    REQUIRE(rows.exitCode == 0);
    std::set<std::string> unjudged;
    const json recalled = rows.parsed();
    for (auto& row : recalled["rows"]) {
        if (row["anchor_state"] == "unjudged") {
            unjudged.insert(row["id"].get<std::string>());
            CHECK(row["anchors"][0]["not_judged"] == "earlier_rules");
        } else {
            CHECK(row["anchor_state"] == "intact");
        }
    }
    CHECK(unjudged == restamped);
    REQUIRE(!unjudged.empty());
    // Asked for one by one, the reason is the history: none holds the stamp.
    CliResult one = fresh.run({"--json", "get", *unjudged.begin()});
    REQUIRE(one.exitCode == 0);
    CHECK(one.parsed()["claim"]["anchors"][0]["not_judged"] == "earlier_rules");
    // Said where people look, with what to run; status counts them; CI does
    // not fail on them.
    CliResult text = fresh.run({"check"});
    INFO(describe(text));
    CHECK(text.exitCode == 0);
    CHECK(contains(text.out, std::to_string(restamped.size()) + " not judged (earlier_rules)"));
    CHECK(contains(text.out, "engram init"));
    CliResult status = fresh.run({"--json", "status"});
    REQUIRE(status.exitCode == 0);
    CHECK(status.parsed()["anchor_health"]["unjudged"] == int64_t(restamped.size()));
}

} // namespace e2e_UpgradeTest
