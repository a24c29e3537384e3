// A cloned repository can carry anything under .engram/: claim files that
// are symbolic links (to files outside the root), FIFOs, directories, files
// far larger than any claim, and a store.conf with every mistake. engram
// reads none of them as a claim, never blocks on one, never follows a link
// out of the store, and reports each as a finding; the rest of the store is
// served as usual.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/resource.h>
#include <sys/stat.h>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_HostileTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

struct Repo {
    TempDir root, home, outside;
    Repo() { copySampleWorkspace(root.path()); }
    CliResult run(std::vector<std::string> args) const {
        std::vector<std::string> full = {"--json", "--root", root.path(), "--home", home.path()};
        full.insert(full.end(), args.begin(), args.end());
        return runCli(full, {"ENGRAM_AGENT=human:tester"}, "", std::chrono::seconds(60));
    }
};

} // namespace

TEST_CASE("hostile claim files are findings, never read, never waited on", "[e2e][hostile]") {
    Repo r;
    CliResult first = r.run({"remember", "the kestrel queue drains before shutdown"});
    INFO(describe(first));
    REQUIRE(first.exitCode == 0);
    std::string claims = claimsDir(r.root.path());

    // A well-formed claim outside the root, and a link to it under a claim's
    // name: following it would serve a file from anywhere on the machine.
    std::string id = first.parsed()["claim"]["id"];
    std::string secretText = *slurp(claims + "/" + id + ".md");
    std::string leaked = "c-leakedoutside";
    std::string outsideFile = r.outside.path() + "/" + leaked + ".md";
    std::string body = secretText;
    body.replace(body.find(id), id.size(), leaked);
    body.replace(body.find("the kestrel queue"), 17, "the outside osprey");
    spew(outsideFile, body);
    fs::create_symlink(outsideFile, claims + "/" + leaked + ".md");
    // A link to itself (ELOOP), and a directory link back up the workspace
    // (a walk that followed it would never end).
    fs::create_symlink("c-loopclaim.md", claims + "/c-loopclaim.md");
    fs::create_directory_symlink("..", r.root.path() + "/src/up");
    // A FIFO: opening it to read would wait for a writer forever.
    REQUIRE(::mkfifo((claims + "/c-fifoclaim.md").c_str(), 0644) == 0);
    // A directory under a claim's name, and a 3 MiB file.
    fs::create_directory(claims + "/c-directory.md");
    {
        std::ofstream big(claims + "/c-bigclaim.md");
        big << "---\nid: c-bigclaim\n---\n" << std::string(3 << 20, 'x') << "\n";
    }
    // store.conf with a mistake on every line, and invalid UTF-8.
    spew(r.root.path() + "/.engram/store.conf",
         "name:\nlanguage: h\nlanguage: .x\njust words\nname: \xff\xfe\n");

    CliResult recall = r.run({"recall", "osprey kestrel"});
    INFO(describe(recall));
    REQUIRE(recall.exitCode == 0);
    CHECK(contains(recall.out, "the kestrel queue drains before shutdown"));
    CHECK_FALSE(contains(recall.out, "outside osprey"));

    CliResult check = r.run({"check", "--format", "json"});
    INFO(describe(check));
    CHECK(check.exitCode == 1); // engram.invalid fails the check by default
    json found = check.parsed();
    std::set<std::string> invalid;
    for (auto& f : found["findings"])
        if (f["code"] == "engram.invalid") invalid.insert(f["path"].get<std::string>());
    for (const char* name :
         {"c-leakedoutside", "c-fifoclaim", "c-bigclaim", "c-directory", "c-loopclaim"})
        CHECK(invalid.count(std::string(".engram/claims/") + name + ".md") == 1);
    CHECK_FALSE(contains(check.out, "outside osprey"));

    CliResult doctor = r.run({"doctor"});
    INFO(describe(doctor));
    int confProblems = 0;
    json checks = doctor.parsed()["checks"]; // not a range over a temporary's member
    for (auto& c : checks)
        if (contains(c.dump(), "store.conf line")) ++confProblems;
    CHECK(confProblems >= 1);
    CHECK(contains(doctor.out, "store.conf line 1"));
    CHECK(contains(doctor.out, "store.conf line 5"));

    // engram serve on the same store answers, and its diagnostics do not
    // include the link's target.
    Server server({r.home.path(), {}, {}, {}});
    server.initialize(r.root.path());
    json rows = server.request("engram/recall", {{"query", "kestrel osprey"}})["result"]["rows"];
    CHECK(rows.dump().find("kestrel queue") != std::string::npos);
    CHECK(rows.dump().find("outside osprey") == std::string::npos);
    CHECK(server.running());
}

// A tree nested thousands of directories deep: the code walk holds a
// descriptor per level, so under an editor's descriptor limit it once failed
// part-way, and every file it had not reached was dropped from the code
// index (a claim whose function moved there read as orphaned). Deep
// directories are now not entered, and a walk that fails is not a removal.
TEST_CASE("a hostile deep tree neither stops the code walk nor empties the code index",
          "[e2e][hostile]") {
    Repo r;
    CliResult first =
        r.run({"remember", "retry gives up after the last attempt", "--anchor", "src/db.py#retry"});
    INFO(describe(first));
    REQUIRE(first.exitCode == 0);
    CHECK(r.run({"check"}).exitCode == 0); // the code index now knows every file

    auto nest = [](const std::string& top, int depth) {
        std::string p = top;
        for (int i = 0; i < depth; ++i)
            p += "/d";
        fs::create_directories(p);
        spew(p + "/buried.py", "def buried():\n    return 0\n");
    };
    for (const char* top : {"deep0", "deep1", "deep2", "lib/deep0", "lib/deep1", "src/deep0"})
        nest(r.root.path() + "/" + top, 400);
    // retry moves to a new file; its body is unchanged, so it is `moved`.
    std::string db = *slurp(r.root.path() + "/src/db.py");
    size_t from = db.find("def retry(");
    REQUIRE(from != std::string::npos);
    spew(r.root.path() + "/lib/retry.py", db.substr(from));
    spew(r.root.path() + "/src/db.py", db.substr(0, from));

    // 64 descriptors, as a tightly limited editor might give its children.
    struct rlimit saved;
    REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved) == 0);
    struct rlimit tight = saved;
    tight.rlim_cur = 64;
    REQUIRE(::setrlimit(RLIMIT_NOFILE, &tight) == 0);
    CliResult check = r.run({"check", "--format", "json"});
    ::setrlimit(RLIMIT_NOFILE, &saved);
    INFO(describe(check));
    REQUIRE(check.exitCode == 0); // moved is a note, not a failure
    json findings = check.parsed()["findings"];
    REQUIRE(findings.size() == 1);
    CHECK(findings[0]["code"] == "engram.moved");
    CHECK(contains(findings[0].dump(), "lib/retry.py"));
}

// A 100 MB line (a minified bundle, a generated blob): engram reads no
// source file past 16 MiB, so it neither parses it nor holds it; an anchor
// into such a file is refused, or is not judged, counted and said why
// (never orphaned for want of a look, never skipped in silence).
TEST_CASE("a source file of one 100 MB line is never read", "[e2e][hostile]") {
    Repo r;
    std::string bundle = r.root.path() + "/web/bundle.js";
    spew(bundle, "function boot() { return 1; }\n");
    CliResult first = r.run({"remember", "boot starts the widget", "--anchor", "web/bundle.js"});
    INFO(describe(first));
    REQUIRE(first.exitCode == 0);
    std::string id = first.parsed()["claim"]["id"];
    fs::resize_file(bundle, 100u << 20); // sparse: no disk, one line of NULs

    CliResult anchored = r.run({"remember", "boot is large", "--anchor", "web/bundle.js#boot"});
    INFO(describe(anchored));
    CHECK(anchored.exitCode != 0);
    CHECK(contains(anchored.out + anchored.err, "larger than 16 MiB"));

    CliResult check = r.run({"check", "--format", "json"});
    INFO(describe(check));
    json report = check.parsed();
    CHECK(report["findings"].empty());
    CHECK(report["not_judged"] == json{{"total", 1}, {"by_reason", {{"file_too_large", 1}}}});
    CHECK(contains(r.run({"check", "--format", "text"}).out, "1 not judged (file_too_large)"));
    json sarif = r.run({"check", "--format", "sarif"}).parsed();
    CHECK(contains(sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"].dump(),
                   "engram.not-judged/file_too_large"));

    CliResult status = r.run({"--json", "status"});
    INFO(describe(status));
    json st = status.parsed();
    CHECK(st["anchor_health"]["unjudged"] == 1);
    CHECK(st["envelope"]["not_judged"]["by_reason"]["file_too_large"] == 1);
    CHECK(contains(st["envelope"]["non_claims"].dump(), "1 not judged (file_too_large)"));
    CliResult recall = r.run({"--json", "recall", "boot widget"});
    json row = recall.parsed()["rows"][0];
    CHECK(row["anchor_state"] == "unjudged");
    CHECK(row["anchors"][0]["not_judged"] == "file_too_large");
    CHECK(recall.parsed()["envelope"]["not_judged"]["total"] == 1);
}

// Invalid UTF-8 in a claim's body, in a source file's name and in its text
// reaches every surface as valid JSON (replaced, never a failed reply).
TEST_CASE("invalid UTF-8 in claims and sources never breaks a reply", "[e2e][hostile]") {
    Repo r;
    CliResult first = r.run({"remember", "the pelican cache expires hourly"});
    INFO(describe(first));
    REQUIRE(first.exitCode == 0);
    std::string id = first.parsed()["claim"]["id"];
    std::string file = claimsDir(r.root.path()) + "/" + id + ".md";
    spew(file, *slurp(file) + "and \xff\xfe\xc3 pelican bytes\n");
    spew(r.root.path() + "/src/bad\xff\xfename.py", "def odd\xff():\n    return '\xfe'\n");

    CliResult recall = r.run({"recall", "pelican"});
    INFO(describe(recall));
    REQUIRE(recall.exitCode == 0);
    CHECK(contains(recall.parsed().dump(), "pelican bytes"));
    CliResult check = r.run({"check", "--format", "sarif"});
    INFO(describe(check));
    CHECK(check.exitCode == 0);
    CHECK(check.parsed()["runs"].is_array());

    Server server({r.home.path(), {}, {}, {}});
    server.initialize(r.root.path());
    json reply = server.request("engram/recall", {{"query", "pelican"}});
    REQUIRE(reply.contains("result"));
    CHECK(contains(reply["result"]["rows"].dump(), "pelican bytes"));
    json status = server.request("engram/status", json::object());
    CHECK(status.contains("result"));
    CHECK(server.running());
}

} // namespace e2e_HostileTest
