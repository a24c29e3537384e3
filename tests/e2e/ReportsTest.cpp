// Reports and the inbox through the CLI (ARCHITECTURE.md, "Reports and the inbox"): the spool, the
// project's box, de-duplication, pending reports, the medulla's box, states derived from answers,
// and secrets refused before anything is written.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_ReportsTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Lines of a file that are not blank; 0 when it does not exist.
size_t lineCount(const std::string& path) {
    auto text = slurp(path);
    if (!text) return 0;
    size_t n = 0, at = 0;
    while (at < text->size()) {
        size_t end = text->find('\n', at);
        if (end == std::string::npos) end = text->size();
        if (end > at) ++n;
        at = end + 1;
    }
    return n;
}

struct Machine {
    TempDir home, parent;
    std::string root = parent.path() + "/proj";
    Machine() { fs::create_directories(root); }
    std::string spool() const { return home.path() + "/reports/spool.jsonl"; }
    std::string box(const std::string& r) const { return r + "/.engram/inbox.jsonl"; }
    CliResult run(const std::string& at, std::vector<std::string> args) const {
        std::vector<std::string> full = {"--root", at, "--home", home.path(), "--json"};
        full.insert(full.end(), args.begin(), args.end());
        return runCli(full, {"ENGRAM_AGENT=codex:tester"});
    }
    json ok(const std::string& at, std::vector<std::string> args) const {
        auto r = run(at, args);
        INFO("engram " << args[0] << ": " << describe(r));
        REQUIRE(r.exitCode == 0);
        return r.parsed();
    }
    json misdelivery(const std::string& at, const std::string& what) const {
        return ok(at, {"report", "--class", "memory_misdelivery", "--kind", "false_absence",
                       "--what", what, "--expected", "the claim about the pool size"});
    }
    // id -> state in the bound project's box.
    std::map<std::string, std::string> states(const std::string& at) const {
        std::map<std::string, std::string> out;
        json inbox = ok(at, {"inbox"});
        for (auto& r : inbox["boxes"][0]["reports"])
            out[r["id"].get<std::string>()] = r["state"].get<std::string>();
        return out;
    }
};

} // namespace

TEST_CASE("reports: one lands in the spool and the project's box, once however often it is filed",
          "[e2e][reports]") {
    Machine m;
    json first = m.misdelivery(m.root, "recall for 'pool size' said nothing");
    std::string id = first["report"]["id"];
    CHECK(id.rfind("r-", 0) == 0);
    CHECK(first["duplicate"] == false);
    CHECK(first["pending"] == false);
    CHECK(first["box"] == m.box(m.root));
    CHECK(lineCount(m.spool()) == 1);
    CHECK(lineCount(m.box(m.root)) == 1);
    CHECK(contains(*slurp(m.spool()), id));
    // Travels with git, merged line by line.
    CHECK(contains(*slurp(m.root + "/.engram/.gitattributes"), "inbox.jsonl merge=union"));

    json again = m.misdelivery(m.root, "recall for 'pool size' said nothing");
    CHECK(again["report"]["id"] == id);
    CHECK(again["duplicate"] == true);
    CHECK(again["report"]["filed"] == first["report"]["filed"]);
    CHECK(lineCount(m.spool()) == 1);
    CHECK(lineCount(m.box(m.root)) == 1);

    json inbox = m.ok(m.root, {"inbox"});
    REQUIRE(inbox["boxes"].size() == 1);
    CHECK(inbox["boxes"][0]["name"] == m.root);
    REQUIRE(inbox["boxes"][0]["reports"].size() == 1);
    CHECK(inbox["boxes"][0]["reports"][0]["state"] == "open");
    CHECK(inbox["boxes"][0]["counts"]["open"] == 1);
    CHECK(m.ok(m.root, {"status"})["inbox"]["open"] == 1);
    // The text form says the same.
    auto text = runCli({"--root", m.root, "--home", m.home.path(), "inbox"});
    CHECK(contains(text.out, id + " [open] memory_misdelivery/false_absence"));
    auto status = runCli({"--root", m.root, "--home", m.home.path(), "status"});
    CHECK(contains(status.out, "inbox: 1 open, 0 in progress"));
}

TEST_CASE("reports: answers move a report to in progress, a closing answer to answered, and "
          "external reports are never counted open",
          "[e2e][reports]") {
    Machine m;
    std::string a = m.misdelivery(m.root, "a claim from another project came back")["report"]["id"];
    std::string b = m.misdelivery(m.root, "recall missed the retry rule")["report"]["id"];
    std::string ext = m.ok(m.root, {"report", "--class", "field_report", "--what",
                                    "the editor's other memory plug-in lost its index",
                                    "--external"})["report"]["id"];
    auto s = m.states(m.root);
    CHECK(s[a] == "open");
    CHECK(s[b] == "open");
    CHECK(s[ext] == "external");
    CHECK(m.ok(m.root, {"status"})["inbox"]["open"] == 2);

    std::string look = m.ok(m.root, {"report", "--class", "answer", "--what", "looking at it",
                                     "--answers", a, "--answers", b})["report"]["id"];
    s = m.states(m.root);
    CHECK(s[a] == "in_progress");
    CHECK(s[b] == "in_progress");
    CHECK(s[look] == "answer");
    m.ok(m.root, {"report", "--class", "answer", "--what", "the leak is real: fixed in the scope",
                  "--answers", a, "--resolution", "fixed"});
    s = m.states(m.root);
    CHECK(s[a] == "answered");
    CHECK(s[b] == "in_progress");
    json counts = m.ok(m.root, {"status"})["inbox"];
    CHECK(counts["open"] == 0);
    CHECK(counts["in_progress"] == 1);
    CHECK(counts["answered"] == 1);
    CHECK(counts["external"] == 1);
    CHECK(counts["answers"] == 2);

    json onlyProgress = m.ok(m.root, {"inbox", "--state", "in_progress"});
    REQUIRE(onlyProgress["boxes"][0]["reports"].size() == 1);
    CHECK(onlyProgress["boxes"][0]["reports"][0]["id"] == b);
    json answered = m.ok(m.root, {"inbox", "--state", "answered"});
    REQUIRE(answered["boxes"][0]["reports"].size() == 1);
    CHECK(answered["boxes"][0]["reports"][0]["answered_by"].size() == 2);

    // A resolution closes only as an answer; bad states are named.
    auto bad = m.run(m.root,
                     {"report", "--class", "field_report", "--what", "x", "--resolution", "fixed"});
    CHECK(bad.exitCode == 2);
    CHECK(contains(bad.out, "resolution"));
    bad = m.run(m.root, {"inbox", "--state", "closed"});
    CHECK(bad.exitCode == 2);
    CHECK(contains(bad.out, "state"));
}

TEST_CASE("reports: one about a project not on this machine waits in the spool until the project "
          "appears, and one about no project goes to the medulla's box only",
          "[e2e][reports]") {
    Machine m;
    const std::string later = m.parent.path() + "/later";
    json filed = m.misdelivery(later, "memory of the later project vanished");
    CHECK(filed["pending"] == true);
    CHECK(filed["box"].is_null());
    CHECK(lineCount(m.spool()) == 1);
    CHECK_FALSE(fs::exists(later));
    // Listed as pending from elsewhere on the machine, never in the medulla.
    json all = m.ok(m.root, {"inbox", "--all"});
    bool listed = false;
    for (auto& b : all["boxes"]) {
        if (b["name"] == "pending")
            for (auto& r : b["reports"])
                listed |= r["root"] == later;
        if (b["name"] == "medulla") CHECK(b["reports"].empty());
    }
    CHECK(listed);
    CHECK(contains(runCli({"--root", m.root, "--home", m.home.path(), "doctor"}).out,
                   "1 report waits for " + later));

    // The project appears (a clone, a checkout): its next engram files it.
    fs::create_directories(later);
    json box = m.ok(later, {"inbox"});
    REQUIRE(box["boxes"][0]["reports"].size() == 1);
    CHECK(box["boxes"][0]["reports"][0]["id"] == filed["report"]["id"]);
    CHECK(lineCount(m.box(later)) == 1);
    CHECK_FALSE(
        contains(runCli({"--root", m.root, "--home", m.home.path(), "doctor"}).out, "waits for"));

    json none = m.ok(m.root, {"report", "--class", "field_report", "--what",
                              "engram doctor took a minute", "--no-project"});
    CHECK(none["report"]["root"] == "none");
    CHECK(none["box"] == m.home.path() + "/medulla/inbox.jsonl");
    CHECK(lineCount(m.home.path() + "/medulla/inbox.jsonl") == 1);
    CHECK(lineCount(m.box(m.root)) == 0);
    CHECK(lineCount(m.box(later)) == 1);
}

TEST_CASE("reports: a secret in a report is refused and is written nowhere", "[e2e][reports]") {
    Machine m;
    std::string core;
    for (int i = 0; i < 36; ++i)
        core += "aB3xY9kQ"[(i * 5 + 3) % 8];
    std::string token = std::string("gh") + "p_" + core;
    for (auto field : {"--what", "--expected", "--excerpt"}) {
        std::vector<std::string> args = {"report",    "--class",       "memory_misdelivery",
                                         "--kind",    "leak",          "--what",
                                         "a leak",    "--expected",    "nothing from elsewhere",
                                         "--excerpt", "recall('pool')"};
        for (size_t i = 0; i + 1 < args.size(); ++i)
            if (args[i] == field) args[i + 1] = "the deploy token " + token;
        auto r = m.run(m.root, args);
        INFO(field << ": " << describe(r));
        CHECK(r.exitCode == 1);
        CHECK(contains(r.out, "github-token"));
        CHECK_FALSE(contains(r.out + r.err, core));
    }
    CHECK_FALSE(fs::exists(m.spool()));
    CHECK_FALSE(fs::exists(m.box(m.root)));
    for (auto dir : {m.home.path(), m.parent.path()})
        for (auto& e : fs::recursive_directory_iterator(dir))
            if (e.is_regular_file())
                CHECK_FALSE(contains(slurp(e.path().string()).value_or(""), core));
}

TEST_CASE("reports: engram serve files a report, lists the inbox and counts it in status",
          "[e2e][reports][lsp]") {
    TempDir root;
    copySampleWorkspace(root.path());
    Server server;
    server.initialize(root.path());
    json params = {{"class", "memory_misdelivery"},
                   {"kind", "vanished"},
                   {"what", "the claim about the pool size is gone"},
                   {"expected", "it was recalled yesterday"},
                   {"agent", "claude:maker"}};
    json filed = server.call("engram/report", params);
    std::string id = filed["report"]["id"];
    CHECK(filed["box"] == root.path() + "/.engram/inbox.jsonl");
    CHECK(server.call("engram/report", params)["duplicate"] == true);
    json box = server.call("engram/inbox", json::object())["boxes"][0];
    REQUIRE(box["reports"].size() == 1);
    CHECK(box["reports"][0]["id"] == id);
    CHECK(box["reports"][0]["state"] == "open");
    CHECK(server.call("engram/status", json::object())["inbox"]["open"] == 1);
    // A teammate's report arriving through git (a line engram did not
    // write here) is the box's own.
    json theirs = {{"class", "field_report"},
                   {"what", "doctor was slow"},
                   {"root", root.path()},
                   {"agent", "human:ben"},
                   {"filed", 1700000000}};
    {
        std::string path = root.path() + "/.engram/inbox.jsonl";
        spew(path, *slurp(path) + theirs.dump() + "\n");
    }
    box = server.call("engram/inbox", json::object())["boxes"][0];
    CHECK(box["reports"].size() == 2);
    CHECK(box["reports"][1]["agent"] == "human:ben"); // older: listed after
    CHECK(server.call("engram/status", json::object())["inbox"]["open"] == 2);
    // Bad input names the field; the server keeps serving.
    json reply = server.request(
        "engram/report",
        {{"class", "memory_misdelivery"}, {"what", "x"}, {"expected", "y"}, {"agent", "a"}});
    REQUIRE(reply.contains("error"));
    CHECK(contains(reply["error"]["message"].get<std::string>(), "kind"));
    CHECK(server.call("engram/inbox", json::object())["boxes"][0]["reports"].size() == 2);
}

TEST_CASE("reports: doctor prints the confusion rate per ISO week from reports and recalls spread "
          "over several weeks",
          "[e2e][reports]") {
    Machine m;
    auto report = [&](const std::string& what) {
        return m.misdelivery(m.root, what)["report"]["id"].get<std::string>();
    };
    auto answer = [&](const std::string& id, const std::string& resolution) {
        m.ok(m.root, {"report", "--class", "answer", "--what", "looked at " + id, "--answers", id,
                      "--resolution", resolution});
    };
    std::string r1 = report("a leak seen in week 45");
    std::string r2 = report("a false absence in week 46, not reproduced");
    std::string r3 = report("a vanished claim in week 46");
    answer(r1, "confirmed");
    answer(r2, "not_confirmed");
    answer(r3, "fixed");
    // A field report answered as confirmed is no misdelivery.
    std::string f = m.ok(
        m.root, {"report", "--class", "field_report", "--what", "doctor is slow"})["report"]["id"];
    answer(f, "confirmed");
    // The dates are injected: each report's line in the box says when it
    // was filed (as a teammate's line would; the id does not cover it).
    const std::map<std::string, std::string> filedOn = {
        {r1, "2026-11-03"}, {r2, "2026-11-11"}, {r3, "2026-11-12"}, {f, "2026-11-12"}};
    std::string box = *slurp(m.box(m.root)), edited;
    for (size_t at = 0; at < box.size();) {
        size_t end = box.find('\n', at);
        json line = json::parse(box.substr(at, end - at));
        at = end + 1;
        if (auto day = filedOn.find(line["id"]); day != filedOn.end()) {
            auto t = runProgram({"date", "-u", "-d", day->second + "T12:00:00Z", "+%s"});
            line["filed"] = std::stoll(t.out);
        }
        edited += line.dump() + "\n";
    }
    spew(m.box(m.root), edited);
    // Recalls served in those weeks, two stores.
    std::string usage = m.home.path() + "/usage/recalls.tsv";
    fs::create_directories(m.home.path() + "/usage");
    spew(usage, "2026-11-02\t" + m.root + "\t100\t50\n" + "2026-11-03\t" + m.root + "\t20\t55\n" +
                    "2026-11-04\t" + m.home.path() + "/medulla\t10\t5\n" + "2026-11-10\t" + m.root +
                    "\t200\t60\nnot a line\n");

    json doctor =
        json::parse(runCli({"--root", m.root, "--home", m.home.path(), "--json", "doctor"}).out);
    std::map<std::string, json> weeks;
    for (auto& w : doctor["confusion"])
        weeks[w["week"]] = w;
    REQUIRE(weeks.count("2026-W45"));
    REQUIRE(weeks.count("2026-W46"));
    CHECK(weeks["2026-W45"]["confirmed_misdeliveries"] == 1);
    CHECK(weeks["2026-W45"]["recalls"] == 130);
    CHECK(weeks["2026-W45"]["live_claims"] == 60); // the last count of each store, summed
    CHECK(weeks["2026-W45"]["per_thousand_recalls"].get<double>() == Approx(1000.0 / 130.0));
    CHECK(weeks["2026-W46"]["confirmed_misdeliveries"] == 1); // r3 fixed; r2 not confirmed
    CHECK(weeks["2026-W46"]["recalls"] == 200);
    CHECK(weeks["2026-W46"]["per_thousand_recalls"].get<double>() == Approx(5.0));

    // A recall served now is counted in this week's row.
    m.ok(m.root, {"recall", "pool"});
    json status = m.ok(m.root, {"status"});
    int64_t recallsNow = 0;
    for (auto& w : status["confusion"])
        if (w["week"] != "2026-W45" && w["week"] != "2026-W46")
            recallsNow += w["recalls"].get<int64_t>();
    CHECK(recallsNow >= 1);
    auto text = runCli({"--root", m.root, "--home", m.home.path(), "doctor"});
    CHECK(contains(text.out, "2026-W45: 1 confirmed, 130 recalls, 60 live claims, rate 7.69"));
}

} // namespace e2e_ReportsTest
