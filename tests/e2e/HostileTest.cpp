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
#include <sys/stat.h>

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
    for (const char* name : {"c-leakedoutside", "c-fifoclaim", "c-bigclaim", "c-directory"})
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
