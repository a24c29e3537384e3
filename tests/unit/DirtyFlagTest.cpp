// The packet's dirty flag (engine/DirtyFlag.h) against a real git
// repository: the same answer `git status` gives, and git asked again only
// when the index, HEAD or a tracked file outside .engram/ changed.
#include "engine/DirtyFlag.h"
#include "support/TempDir.h"
#include "util/Fs.h"
#include "util/Git.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <thread>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_DirtyFlagTest {

using engram::DirtyFlag;
using engram::test::TempDir;

namespace {

struct Repo {
    TempDir dir;
    std::string git = "git -C '" + dir.path() + "' -c user.name=t -c user.email=t@t ";
    DirtyFlag flag{dir.path()};

    Repo() {
        REQUIRE(std::system("git --version >/dev/null 2>&1") == 0);
        dir.write("src/a.py", "def a():\n    return 1\n");
        dir.write("README.md", "a repository\n");
        dir.write(".engram/claims/c1.md", "a claim\n");
        run("init -q");
        run("add -A");
        run("commit -q -m one");
    }
    void run(const std::string& args) const { REQUIRE(std::system((git + args).c_str()) == 0); }
    // The commit HEAD names, read from the files as the engine reads it.
    std::string head() const {
        auto g = engram::findGit(dir.path());
        REQUIRE(g);
        std::string h = engram::trimRight(engram::readFile(g->gitDir + "/HEAD").value_or(""));
        REQUIRE(h.starts_with("ref: "));
        return engram::resolveRef(*g, h.substr(5));
    }
    std::optional<bool> dirty() { return flag.get(dir.path() + "/.git/index", head()); }
    // Past the second in which a file changed, after which its stat vouches for it.
    static void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(1100)); }
};

} // namespace

TEST_CASE("the dirty flag says what git status says and asks it again only after a change",
          "[delegate][dirty]") {
    Repo r;
    Repo::settle();
    CHECK(r.dirty() == false);
    CHECK(r.flag.asked() == 1);
    CHECK(r.dirty() == false);
    CHECK(r.dirty() == false);
    CHECK(r.flag.asked() == 1); // nothing changed: no process

    SECTION("a claim file written or added is not a change to the code") {
        r.dir.write(".engram/claims/c2.md", "another claim\n");
        r.dir.write(".engram/claims/c1.md", "the claim, edited\n");
        CHECK(r.dirty() == false);
        CHECK(r.flag.asked() == 1);
    }
    SECTION("an edit to a tracked file, then put back") {
        r.dir.write("src/a.py", "def a():\n    return 2\n");
        CHECK(r.dirty() == true);
        CHECK(r.dirty() == true); // changed within the second: git asked again
        CHECK(r.flag.asked() == 3);
        Repo::settle();
        CHECK(r.dirty() == true);
        CHECK(r.dirty() == true);
        CHECK(r.flag.asked() == 4);
        // The same bytes again, with new times: git finds nothing to report.
        r.dir.write("src/a.py", "def a():\n    return 1\n");
        CHECK(r.dirty() == false);
    }
    SECTION("a change staged, then committed") {
        r.dir.write("src/a.py", "def a():\n    return 7\n");
        r.run("add src/a.py"); // staged: the index changed too
        CHECK(r.dirty() == true);
        r.run("commit -q -m two");
        CHECK(r.dirty() == false); // a new HEAD
    }
    SECTION("a tracked file deleted") {
        std::remove((r.dir.path() + "/README.md").c_str());
        CHECK(r.dirty() == true);
    }
    SECTION("a staged change") {
        r.dir.write("src/b.py", "def b():\n    return 1\n");
        CHECK(r.dirty() == false); // untracked files are not asked about
        r.run("add src/b.py");
        CHECK(r.dirty() == true);
    }
}

} // namespace unit_DirtyFlagTest
