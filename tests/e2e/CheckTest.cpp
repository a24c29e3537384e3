// `engram check`, the headless CI check: exit codes (0 nothing matches
// --fail-on, 1 findings, 2 usage), text, JSON and SARIF 2.1.0 output.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_CheckTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

constexpr const char* kToken = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

struct Shell {
    TempDir root;
    TempDir home;
    Shell() { copySampleWorkspace(root.path()); }
    CliResult run(std::vector<std::string> args) const {
        std::vector<std::string> full = {"--root", root.path(), "--home", home.path()};
        full.insert(full.end(), args.begin(), args.end());
        return runCli(full, {"ENGRAM_AGENT=human:tester"});
    }
    std::string remember(const std::string& text, const std::string& label,
                         const std::string& anchor) {
        CliResult r = run({"--json", "remember", text, "--label", label, "--anchor", anchor});
        INFO(describe(r));
        REQUIRE(r.exitCode == 0);
        return r.parsed()["claim"]["id"];
    }
    void edit(const std::string& rel, const std::string& from, const std::string& to) const {
        std::string path = root / rel;
        std::string text = *slurp(path);
        auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        spew(path, text.replace(at, from.size(), to));
    }
    // A claim file written by hand, as a person (or a merge) would.
    void handWrite(const std::string& id, const std::string& contents) const {
        fs::create_directories(claimsDir(root.path()));
        spew(claimsDir(root.path()) + "/" + id + ".md", contents);
    }
    CliResult check(std::vector<std::string> args = {}) const {
        args.insert(args.begin(), "check");
        return run(args);
    }
    json checkJson(std::vector<std::string> args = {}) const {
        args.insert(args.begin(), {"check", "--format", "json"});
        CliResult r = run(args);
        INFO(describe(r));
        REQUIRE((r.exitCode == 0 || r.exitCode == 1));
        json j = r.parsed();
        CHECK(j["exit_code"] == r.exitCode);
        return j;
    }
};

// A workspace with one finding of every computed code.
struct Troubled : Shell {
    std::string drifted, moved, orphaned;
    Troubled() {
        drifted = remember("TokenValidator.validate reports expiry in .ok, it does not raise",
                           "validate-expiry", "src/auth.py#TokenValidator.validate");
        moved =
            remember("retry gives up after the last attempt", "retry-attempts", "src/db.py#retry");
        orphaned = remember("ValidationResult carries ok and reason", "result-shape",
                            "src/auth.py#ValidationResult");
        edit("src/auth.py", "reason=\"expired\"", "reason=\"too old\"");
        edit("src/db.py", "def retry(", "def retry_operation(");
        edit("src/auth.py", "class ValidationResult:\n    def __init__(self, ok, reason):",
             "class Outcome:\n    def __init__(self, ok, why):");
        handWrite("c-stale0000001", "---\nid: c-stale0000001\nlabel: python-two\n"
                                    "created: 2020-01-01T00:00:00Z\n---\n"
                                    "The service runs on Python 2\n");
        // Born in the future: not stale, only secret.
        handWrite("c-secret000001", std::string("---\nid: c-secret000001\nlabel: deploy\n"
                                                "created: 2099-01-01T00:00:00Z\n---\n"
                                                "Deploy with ") +
                                        kToken + "\n");
        handWrite("c-invalid00001", "---\nid: c-invalid00001\nno colon here\n---\ntext\n");
    }
};

// The structural requirements of SARIF 2.1.0 that code-scanning consumers
// rely on, checked by hand (no schema download in tests).
void validateSarif(const json& s, const std::string& root) {
    REQUIRE(s.is_object());
    CHECK(s["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json");
    CHECK(s["version"] == "2.1.0");
    REQUIRE(s["runs"].is_array());
    REQUIRE(s["runs"].size() == 1);
    const json& run = s["runs"][0];
    const json& driver = run["tool"]["driver"];
    CHECK(driver["name"] == "engram");
    CHECK(driver["version"] == ENGRAM_VERSION);
    REQUIRE(driver["rules"].is_array());
    std::set<std::string> ruleIds;
    for (auto& rule : driver["rules"]) {
        REQUIRE(rule["id"].is_string());
        CHECK(ruleIds.insert(rule["id"].get<std::string>()).second); // unique
        CHECK(rule["name"].is_string());
        CHECK(rule["shortDescription"]["text"].is_string());
        CHECK(rule["fullDescription"]["text"].is_string());
        std::string level = rule["defaultConfiguration"]["level"];
        CHECK((level == "error" || level == "warning" || level == "note"));
    }
    CHECK(run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == fileUri(root) + "/");
    CHECK(run["columnKind"] == "utf16CodeUnits");
    REQUIRE(run["results"].is_array());
    std::set<std::string> fingerprints;
    for (auto& r : run["results"]) {
        INFO(r.dump(2));
        REQUIRE(r["ruleId"].is_string());
        std::string ruleId = r["ruleId"];
        CHECK(ruleIds.count(ruleId) == 1);
        REQUIRE(r["ruleIndex"].is_number_unsigned());
        size_t idx = r["ruleIndex"];
        REQUIRE(idx < driver["rules"].size());
        CHECK(driver["rules"][idx]["id"] == ruleId);
        std::string level = r["level"];
        CHECK((level == "none" || level == "note" || level == "warning" || level == "error"));
        CHECK(level == driver["rules"][idx]["defaultConfiguration"]["level"]);
        REQUIRE(r["message"]["text"].is_string());
        CHECK_FALSE(r["message"]["text"].get<std::string>().empty());
        REQUIRE(r["locations"].is_array());
        REQUIRE(r["locations"].size() >= 1);
        auto checkLocation = [&](const json& loc, bool needRegion) {
            const json& art = loc["physicalLocation"]["artifactLocation"];
            REQUIRE(art["uri"].is_string());
            std::string uri = art["uri"];
            CHECK_FALSE(uri.empty());
            CHECK(uri[0] != '/');                        // relative...
            CHECK(uri.find("://") == std::string::npos); // ...not absolute
            CHECK(uri.find(' ') == std::string::npos);   // percent-encoded
            CHECK(art["uriBaseId"] == "%SRCROOT%");      // resolved against the root
            if (uri.find('%') == std::string::npos) CHECK(fs::exists(root + "/" + uri));
            if (!loc["physicalLocation"].contains("region")) {
                CHECK_FALSE(needRegion);
                return;
            }
            const json& region = loc["physicalLocation"]["region"];
            REQUIRE(region.is_object());
            REQUIRE(region["startLine"].is_number_integer());
            int sl = region["startLine"];
            CHECK(sl >= 1);
            int sc = region.value("startColumn", 1);
            CHECK(sc >= 1);
            int el = region.value("endLine", sl);
            CHECK(el >= sl);
            if (region.contains("endColumn")) {
                int ec = region["endColumn"];
                CHECK(ec >= 1);
                if (el == sl) CHECK(ec >= sc);
            }
        };
        checkLocation(r["locations"][0], true);
        REQUIRE(r["relatedLocations"].is_array());
        for (auto& rel : r["relatedLocations"]) {
            CHECK(rel["id"].is_number_integer());
            checkLocation(rel, false);
        }
        REQUIRE(r["partialFingerprints"]["engramClaim/v1"].is_string());
        CHECK(fingerprints.insert(r["partialFingerprints"]["engramClaim/v1"]).second);
    }
}

const json* resultFor(const json& sarif, const std::string& ruleId) {
    for (auto& r : sarif["runs"][0]["results"])
        if (r["ruleId"] == ruleId) return &r;
    return nullptr;
}

} // namespace

TEST_CASE("engram check exits 0 on a clean workspace, 1 with a drifted claim, 0 after reverify",
          "[e2e][check]") {
    Shell sh;
    // No store at all yet.
    CliResult r = sh.check();
    INFO(describe(r));
    CHECK(r.exitCode == 0);
    CHECK(contains(r.out, "engram check: 0 findings over 0 live project claims"));

    std::string id = sh.remember("TokenValidator.validate reports expiry in .ok, it does not raise",
                                 "validate-expiry", "src/auth.py#TokenValidator.validate");
    r = sh.check();
    CHECK(r.exitCode == 0);
    CHECK(contains(r.out, "0 findings over 1 live project claim;"));

    sh.edit("src/auth.py", "reason=\"expired\"", "reason=\"too old\"");
    r = sh.check();
    INFO(describe(r));
    CHECK(r.exitCode == 1);
    // path:line:col: severity: code: message, 1-based, on the method's current range.
    CHECK(r.out.rfind("src/auth.py:12:5: warning: engram.drifted: drifted: "
                      "TokenValidator.validate in src/auth.py changed since",
                      0) == 0);
    CHECK(contains(r.out, "validate-expiry"));
    CHECK(contains(r.out, "reports expiry in .ok"));
    CHECK(contains(r.out, "1 finding (1 engram.drifted) over 1 live project claim; 1 match"));
    CHECK(contains(r.out, "(exit 1)"));

    CliResult v = sh.run({"reverify", id, "--note", "checked the new reason"});
    INFO(describe(v));
    REQUIRE(v.exitCode == 0);
    r = sh.check();
    CHECK(r.exitCode == 0);
    CHECK(contains(r.out, "0 findings"));
}

TEST_CASE("engram check: a bad --format, --fail-on or argument is a usage error (exit 2)",
          "[e2e][check]") {
    Shell sh;
    CliResult r = sh.check({"--format", "xml"});
    INFO(describe(r));
    CHECK(r.exitCode == 2);
    CHECK(contains(r.err, "xml"));
    CHECK(r.out.empty());

    r = sh.check({"--fail-on", "engram.drifted,engram.bogus"});
    CHECK(r.exitCode == 2);
    CHECK(contains(r.err, "engram.bogus"));

    r = sh.check({"--fail-on", ""});
    CHECK(r.exitCode == 2);
    r = sh.check({"--fail-on", "warning,,error"});
    CHECK(r.exitCode == 2);
    r = sh.check({"--fail-on", "none,error"});
    CHECK(r.exitCode == 2);
    r = sh.check({"src/"});
    CHECK(r.exitCode == 2);
    CHECK(contains(r.err, "src/"));
    r = sh.check({"--format"});
    CHECK(r.exitCode == 2);

    // --help documents it.
    r = runCli({"--help"});
    CHECK(contains(r.out, "check [--format text|json|sarif] [--fail-on CODES]"));
    CHECK(contains(r.out, "severity and above"));
}

TEST_CASE("engram check --format sarif is well-formed SARIF 2.1.0 with one rule per code",
          "[e2e][check]") {
    Troubled sh;
    CliResult r = sh.check({"--format", "sarif"});
    INFO(describe(r));
    CHECK(r.exitCode == 1);
    json s = r.parsed();
    validateSarif(s, sh.root.path());

    std::set<std::string> rules;
    for (auto& rule : s["runs"][0]["tool"]["driver"]["rules"])
        rules.insert(rule["id"]);
    CHECK(rules == std::set<std::string>{"engram.drifted", "engram.orphaned", "engram.moved",
                                         "engram.conflict", "engram.stale", "engram.secret",
                                         "engram.invalid", "engram.unmerged", "engram.dangling"});

    const json* d = resultFor(s, "engram.drifted");
    REQUIRE(d);
    CHECK((*d)["level"] == "warning");
    const json& loc = (*d)["locations"][0]["physicalLocation"];
    CHECK(loc["artifactLocation"]["uri"] == "src/auth.py");
    CHECK(loc["region"] ==
          json{{"startLine", 12}, {"startColumn", 5}, {"endLine", 16}, {"endColumn", 54}});
    CHECK((*d)["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
          ".engram/claims/" + sh.drifted + ".md");
    CHECK((*d)["partialFingerprints"]["engramClaim/v1"] ==
          sh.drifted + "/engram.drifted/src/auth.py#TokenValidator.validate");

    const json* m = resultFor(s, "engram.moved");
    REQUIRE(m);
    CHECK((*m)["level"] == "note");
    CHECK((*m)["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/db.py");
    CHECK(contains((*m)["message"]["text"], "retry is now retry_operation"));

    const json* o = resultFor(s, "engram.orphaned");
    REQUIRE(o);
    CHECK((*o)["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
          ".engram/claims/" + sh.orphaned + ".md");

    const json* st = resultFor(s, "engram.stale");
    REQUIRE(st);
    CHECK((*st)["level"] == "note");

    const json* sec = resultFor(s, "engram.secret");
    REQUIRE(sec);
    CHECK((*sec)["level"] == "error");
    CHECK((*sec)["locations"][0]["physicalLocation"]["region"]["startLine"] == 6);
    CHECK((*sec)["locations"][0]["physicalLocation"]["region"]["startColumn"] == 13);
    // The secret appears nowhere in any output format.
    CHECK_FALSE(contains(r.out, kToken));
    CHECK_FALSE(contains(sh.check().out, kToken));
    CHECK_FALSE(contains(sh.check({"--format", "json"}).out, kToken));

    const json* inv = resultFor(s, "engram.invalid");
    REQUIRE(inv);
    CHECK((*inv)["level"] == "error");
    CHECK((*inv)["locations"][0]["physicalLocation"]["region"]["startLine"] == 3);

    // A clean workspace: still a valid log, with the rules and no results.
    Shell clean;
    r = clean.check({"--format", "sarif"});
    CHECK(r.exitCode == 0);
    json c = r.parsed();
    validateSarif(c, clean.root.path());
    CHECK(c["runs"][0]["results"].empty());
    CHECK(c["runs"][0]["tool"]["driver"]["rules"].size() == 9);
}

TEST_CASE("engram check --fail-on: codes match exactly, severities match themselves and above",
          "[e2e][check]") {
    Shell sh;
    // Only a stale claim (a hint).
    sh.handWrite("c-stale0000001", "---\nid: c-stale0000001\nlabel: python-two\n"
                                   "created: 2020-01-01T00:00:00Z\n---\n"
                                   "The service runs on Python 2\n");
    auto exitOf = [&](std::vector<std::string> args) {
        CliResult r = sh.check(args);
        INFO(describe(r));
        return r.exitCode;
    };
    CliResult r = sh.check();
    CHECK(r.exitCode == 0); // stale is not in the default
    CHECK(contains(r.out, ".engram/claims/c-stale0000001.md:1:1: hint: engram.stale: stale: "
                          "written 2020-01-01"));
    CHECK(exitOf({"--fail-on", "warning"}) == 0);
    CHECK(exitOf({"--fail-on", "information"}) == 0);
    CHECK(exitOf({"--fail-on", "engram.stale"}) == 1);
    CHECK(exitOf({"--fail-on", "hint"}) == 1);
    CHECK(exitOf({"--fail-on", "engram.drifted, engram.stale"}) == 1);
    CHECK(exitOf({"--fail-on=engram.stale"}) == 1);

    // Add a drifted claim (a warning).
    sh.remember("retry gives up after the last attempt", "retry-attempts", "src/db.py#retry");
    sh.edit("src/db.py", "attempt == attempts - 1", "attempt >= attempts - 1");
    CHECK(exitOf({}) == 1);
    CHECK(exitOf({"--fail-on", "warning"}) == 1);
    CHECK(exitOf({"--fail-on", "error"}) == 0);
    CHECK(exitOf({"--fail-on", "engram.stale"}) == 1);
    CHECK(exitOf({"--fail-on", "engram.secret,engram.invalid"}) == 0);
    CHECK(exitOf({"--fail-on", "none"}) == 0);
    // What fails is reported.
    json j = sh.checkJson({"--fail-on", "warning"});
    CHECK(j["failing"] == 1);
    CHECK(j["fail_on"] ==
          json::array({"engram.conflict", "engram.dangling", "engram.drifted", "engram.invalid",
                       "engram.orphaned", "engram.secret", "engram.unmerged"}));
}

TEST_CASE("engram check --format json: one object whose summary counts equal the findings",
          "[e2e][check]") {
    Troubled sh;
    json j = sh.checkJson();
    CHECK(j["exit_code"] == 1);
    CHECK(j["binding"]["root"] == sh.root.path());
    CHECK(j["binding"]["fingerprint"].get<std::string>().size() == 16);
    CHECK(j["live_claims"] == 5);
    REQUIRE(j["findings"].is_array());
    REQUIRE(j["summary"].is_object());

    std::map<std::string, int64_t> counted;
    for (auto& f : j["findings"]) {
        INFO(f.dump(2));
        for (auto* key : {"code", "severity", "claim_id", "label", "path", "symbol", "message"})
            CHECK(f[key].is_string());
        for (auto* end : {"start", "end"}) {
            CHECK(f["range"][end]["line"].is_number_unsigned());
            CHECK(f["range"][end]["character"].is_number_unsigned());
        }
        ++counted[f["code"]];
    }
    int64_t total = 0;
    for (auto& [code, n] : j["summary"].items()) {
        CHECK(n.get<int64_t>() == counted[code]);
        total += n.get<int64_t>();
    }
    CHECK(total == int64_t(j["findings"].size()));
    CHECK(counted == std::map<std::string, int64_t>{{"engram.conflict", 0},
                                                    {"engram.dangling", 0},
                                                    {"engram.drifted", 1},
                                                    {"engram.invalid", 1},
                                                    {"engram.moved", 1},
                                                    {"engram.orphaned", 1},
                                                    {"engram.secret", 1},
                                                    {"engram.stale", 1},
                                                    {"engram.unmerged", 0}});
    // Every computed code appears in the summary, zero or not.
    CHECK(j["summary"].size() == 9);

    // The drifted finding in detail: 0-based range, the claim's label.
    for (auto& f : j["findings"])
        if (f["code"] == "engram.drifted") {
            CHECK(f["claim_id"] == sh.drifted);
            CHECK(f["label"] == "validate-expiry");
            CHECK(f["path"] == "src/auth.py");
            CHECK(f["symbol"] == "TokenValidator.validate");
            CHECK(f["range"] == json{{"start", {{"line", 11}, {"character", 4}}},
                                     {"end", {{"line", 15}, {"character", 53}}}});
        }

    // Sorted by path, then position.
    std::vector<std::string> paths;
    for (auto& f : j["findings"])
        paths.push_back(f["path"]);
    CHECK(std::is_sorted(paths.begin(), paths.end()));

    // The global --json flag asks for the same object.
    CliResult r = sh.run({"--json", "check"});
    CHECK(r.exitCode == 1);
    CHECK(r.parsed()["findings"] == j["findings"]);
}

TEST_CASE("engram check --max-findings lists a prefix while counts and the exit code cover all",
          "[e2e][check]") {
    Troubled sh;
    json all = sh.checkJson();
    REQUIRE(all["findings"].size() == 6);
    CHECK(all["unlisted"] == 0);
    json two = sh.checkJson({"--max-findings", "2"});
    CHECK(two["findings"].size() == 2);
    CHECK(two["findings"][0] == all["findings"][0]);
    CHECK(two["findings"][1] == all["findings"][1]);
    CHECK(two["unlisted"] == 4);
    CHECK(two["summary"] == all["summary"]);
    CHECK(two["failing"] == all["failing"]);
    CHECK(two["exit_code"] == 1);
    // A failing finding that is not listed still fails the check.
    CliResult one = sh.check({"--max-findings", "1", "--fail-on", "engram.invalid"});
    CHECK(one.exitCode == 1);
    CHECK(contains(one.out, "... and 5 more not listed"));
    CHECK(contains(one.out, "engram check: 6 findings"));
    CliResult sarif = sh.check({"--format", "sarif", "--max-findings", "3"});
    json run = sarif.parsed()["runs"][0];
    CHECK(run["results"].size() == 3);
    CHECK(contains(run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
                       .get<std::string>(),
                   "3 more findings were not listed"));
    CHECK(sh.checkJson({"--max-findings", "0"})["findings"].size() == 6);
    for (const char* bad : {"-1", "lots", "", "12345678901"}) {
        CliResult r = sh.check({"--max-findings", bad});
        INFO(bad << "\n" << describe(r));
        CHECK(r.exitCode == 2);
        CHECK(contains(r.err, "--max-findings"));
    }
}

TEST_CASE("engram check counts columns in UTF-16 code units, as LSP and SARIF do", "[e2e][check]") {
    Shell sh;
    spew(sh.root / "src/greet.py", "def greet():\n    return \"\xc3\xa9\xf0\x9f\x98\x80\"\n");
    sh.remember("greet returns a greeting", "greet", "src/greet.py#greet");
    // Bytes: 12 + 2 (é) + 4 (an emoji) + 1 + 1; UTF-16: 12 + 1 + 2 + 1 + 1.
    sh.edit("src/greet.py", "\xf0\x9f\x98\x80\"", "\xf0\x9f\x98\x80!\"");
    json j = sh.checkJson();
    REQUIRE(j["findings"].size() == 1);
    CHECK(j["findings"][0]["range"]["end"] == json{{"line", 1}, {"character", 17}});
    CliResult r = sh.check({"--format", "sarif"});
    json region = r.parsed()["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    CHECK(region == json{{"startLine", 1}, {"startColumn", 1}, {"endLine", 2}, {"endColumn", 18}});
}

} // namespace e2e_CheckTest
