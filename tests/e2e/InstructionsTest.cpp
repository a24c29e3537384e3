// Instruction files checked against the code (BRIEF 14), through the real
// binary and real git: a reference to a missing file or symbol is dangling
// on its line, a referenced function whose body a later commit changed is
// drifted, a renamed one moved, `reverify --file` clears what it stamps,
// and a second clone of the same commits gives the same verdicts.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <set>
#include <tuple>

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

CliResult gitOk(const std::string& dir, std::vector<std::string> args) {
    auto r = runGit(dir, args);
    INFO("git " << args[0] << ": " << describe(r));
    REQUIRE(r.exitCode == 0);
    return r;
}

struct Repo {
    std::string dir;
    TempDir home;
    CliResult run(std::vector<std::string> args) const {
        std::vector<std::string> full = {"--root", dir, "--home", home.path()};
        full.insert(full.end(), args.begin(), args.end());
        return runCli(full, fixedGitEnv());
    }
    // (code, file, 1-based line, reference) of every finding.
    std::set<std::tuple<std::string, std::string, int, std::string>> findings() const {
        auto r = run({"check", "--format", "json"});
        INFO(describe(r));
        REQUIRE((r.exitCode == 0 || r.exitCode == 1));
        std::set<std::tuple<std::string, std::string, int, std::string>> out;
        json parsed = r.parsed();
        for (auto& f : parsed["findings"]) {
            std::string subject = f["subject"];
            REQUIRE(subject.rfind("ref:", 0) == 0);
            out.emplace(f["code"], f["path"], f["range"]["start"]["line"].get<int>() + 1,
                        subject.substr(4));
        }
        return out;
    }
    void edit(const std::string& rel, const std::string& from, const std::string& to) const {
        std::string text = *slurp(dir + "/" + rel);
        auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
        spew(dir + "/" + rel, text);
    }
    void commitAll(const std::string& message) const {
        gitOk(dir, {"add", "-A"});
        gitOk(dir, {"commit", "-q", "-m", message});
    }
};

using Set = std::set<std::tuple<std::string, std::string, int, std::string>>;

} // namespace

TEST_CASE("instruction files: dangling, drifted, moved and re-verified, the same on two clones",
          "[e2e][instructions]") {
    TempDir origin;
    Repo a{origin.path() + "/a", {}};
    fs::create_directories(a.dir);
    copySampleWorkspace(a.dir);
    std::string fx = std::string(ENGRAM_FIXTURES) + "/instructions";
    for (auto rel : {"AGENTS.md", "pkg/CLAUDE.md", ".cursor/rules/auth.mdc"}) {
        fs::create_directories(fs::path(a.dir + "/" + rel).parent_path());
        fs::copy_file(fx + "/" + rel, a.dir + "/" + rel);
    }
    gitOk(a.dir, {"init", "-q", "-b", "main"});
    a.commitAll("the workspace and its instruction files");

    // Missing file and missing symbol, each on its line; commands, flags and
    // someone else's API (`npm test`, `JSON.parse`) are not references.
    const Set dangling = {
        {"engram.dangling", "AGENTS.md", 4, "src/legacy.py"},
        {"engram.dangling", "AGENTS.md", 5, "src/auth.py#TokenValidator.refresh"},
    };
    CHECK(a.findings() == dangling);
    auto text = a.run({"check"});
    CHECK(contains(text.out, "AGENTS.md:4:17: warning: engram.dangling"));

    // A commit changes the body of the function three lines name.
    a.edit("src/auth.py", "        if token.expires_at",
           "        token = token.strip()\n"
           "        if token.expires_at");
    a.commitAll("strip tokens");
    Set drifted = dangling;
    drifted.insert({"engram.drifted", "AGENTS.md", 3, "TokenValidator.validate()"});
    drifted.insert({"engram.drifted", ".cursor/rules/auth.mdc", 5, "TokenValidator.validate"});
    CHECK(a.findings() == drifted);

    // Re-verified after reading: the stamps are a recorded act and clear it.
    auto rv = a.run({"--json", "reverify", "--file", "AGENTS.md:3"});
    INFO(describe(rv));
    REQUIRE(rv.exitCode == 0);
    CHECK(rv.parsed()["stamped"] == 1);
    CHECK(contains(*slurp(a.dir + "/.engram/audit.log"), "reverify-file\tAGENTS.md"));
    Set afterStamp = dangling;
    afterStamp.insert({"engram.drifted", ".cursor/rules/auth.mdc", 5, "TokenValidator.validate"});
    CHECK(a.findings() == afterStamp);
    // A dangling reference cannot be stamped; the stamps it could are kept.
    rv = a.run({"--json", "reverify", "--file", "AGENTS.md"});
    REQUIRE(rv.exitCode == 0);
    CHECK(rv.parsed()["refused"].size() == 1);
    REQUIRE(a.run({"reverify", "--file", ".cursor/rules/auth.mdc"}).exitCode == 0);
    CHECK(a.findings() == dangling);

    // A rename: moved, with the new name to write.
    a.edit("src/auth.py", "class ValidationResult:", "class CheckResult:");
    a.commitAll("rename the result");
    auto json = a.run({"check", "--format", "json"}).parsed();
    bool sawMoved = false;
    for (auto& f : json["findings"])
        if (f["code"] == "engram.moved") {
            sawMoved = true;
            CHECK(f["path"] == "pkg/CLAUDE.md");
            CHECK(f["range"]["start"]["line"] == 2);
            CHECK(contains(f["message"], "write `src/auth.py#CheckResult`"));
        }
    CHECK(sawMoved);

    // A second clone of the same commits: the same verdicts.
    Repo b{origin.path() + "/b", {}};
    gitOk(origin.path(), {"clone", "-q", a.dir, b.dir});
    CHECK(b.findings() == a.findings());

    // The reference rewritten as the fix says: clean, without a stamp (a
    // line not committed yet was written against the code as it is).
    a.edit("pkg/CLAUDE.md", "src/auth.py#ValidationResult", "src/auth.py#CheckResult");
    CHECK(a.findings() == dangling);
}

TEST_CASE("instruction files without git: only whether references resolve", "[e2e][instructions]") {
    TempDir dir;
    Repo r{dir.path(), {}};
    copySampleWorkspace(r.dir);
    spew(r.dir + "/CLAUDE.md", "Use `src/auth.py#ValidationResult`, not `src/auth.py#Nope`.\n"
                               "See [the db](src/db.py#L2) and [gone](docs/gone.md).\n");
    CHECK(r.findings() == Set{{"engram.dangling", "CLAUDE.md", 1, "src/auth.py#Nope"},
                              {"engram.dangling", "CLAUDE.md", 2, "docs/gone.md"}});
    // store.conf adds files by glob.
    spew(r.dir + "/NOTES.md", "Read `src/nothing.py`.\n");
    CHECK(r.findings().size() == 2);
    fs::create_directories(r.dir + "/.engram");
    spew(r.dir + "/.engram/store.conf", "instructions: NOTES.md\n");
    CHECK(r.findings().count({"engram.dangling", "NOTES.md", 1, "src/nothing.py"}) == 1);
}
