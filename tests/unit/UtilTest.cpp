// UTF-8 validation, UTC times, paths inside the root and URIs.
#include "support/TempDir.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Hash.h"
#include "util/Log.h"
#include "util/Paths.h"
#include "util/Time.h"
#include "util/Utf8.h"

#include <catch2/catch.hpp>
#include <unistd.h>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_UtilTest {

using namespace engram;

TEST_CASE("UTF-8 validation finds the first bad byte") {
    CHECK_FALSE(firstInvalidUtf8("plain ascii"));
    CHECK_FALSE(firstInvalidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    CHECK(*firstInvalidUtf8("ab\xff") == 2);
    CHECK(*firstInvalidUtf8("\xc0\xaf") == 0);         // overlong '/'
    CHECK(*firstInvalidUtf8("x\xed\xa0\x80") == 1);    // surrogate
    CHECK(*firstInvalidUtf8("\xf4\x90\x80\x80") == 0); // above U+10FFFF
    CHECK(*firstInvalidUtf8("\xe2\x82") == 0);         // truncated
    CHECK(utf8Length("caf\xc3\xa9") == 4);
}

TEST_CASE("UTC times round-trip and reject malformed input") {
    CHECK(formatUtc(0) == "1970-01-01T00:00:00Z");
    CHECK(*parseUtc("2026-11-21T22:34:41Z") == 1795300481);
    CHECK(formatUtc(*parseUtc("2024-02-29T12:00:00Z")) == "2024-02-29T12:00:00Z");
    CHECK(*parseUtc("2026-01-02") == *parseUtc("2026-01-02T00:00:00Z"));
    CHECK_FALSE(parseUtc("2026-13-01T00:00:00Z"));
    CHECK_FALSE(parseUtc("yesterday"));
    CHECK(humanAge(3 * 86400) == "3 days");
    CHECK(humanAge(30) == "just now");
    CHECK(agoText(std::nullopt) == "never");
    CHECK(agoText(nowUnix() + 60) == "just now"); // a clock behind another machine's
    CHECK(agoText(nowUnix() - 3 * 86400 - 5) == "3 days ago");
}

TEST_CASE("paths are confined to the root, symlinks included") {
    engram::test::TempDir root, outside;
    root.write("src/a.py", "x");
    outside.write("secret.txt", "y");
    REQUIRE(::symlink(outside.path().c_str(), (root / "link").c_str()) == 0);
    CHECK(*relativeToRoot(root.path(), "src/a.py") == "src/a.py");
    CHECK(*relativeToRoot(root.path(), root / "src/../src/a.py") == "src/a.py");
    CHECK_FALSE(relativeToRoot(root.path(), "../x"));
    CHECK_FALSE(relativeToRoot(root.path(), "src/../../x"));
    CHECK_FALSE(relativeToRoot(root.path(), outside / "secret.txt"));
    CHECK_FALSE(relativeToRoot(root.path(), "link/secret.txt"));

    // What every path parameter goes through: the refusal names the field.
    CHECK(confinedPath(root.path(), "path", "src/a.py") == "src/a.py");
    for (const std::string& out :
         {std::string("../x"), outside / "secret.txt", std::string("link/secret.txt")}) {
        INFO(out);
        try {
            confinedPath(root.path(), "anchors[0].path", out);
            FAIL("accepted a path outside the root");
        } catch (const EngramError& e) {
            CHECK(e.kind == ErrorKind::OutsideRoot);
            CHECK(std::string(e.what()).rfind("anchors[0].path: '" + out + "' is outside", 0) == 0);
        }
    }
    CHECK_THROWS_AS(confinedPath(root.path(), "path", ""), EngramError);
}

TEST_CASE("the root is discovered from .engram or .git, and fingerprinted") {
    engram::test::TempDir tmp;
    tmp.write("repo/.git/HEAD", "ref: refs/heads/main\n");
    tmp.write("repo/sub/deep/file.txt", "x");
    CHECK(discoverRoot(tmp / "repo/sub/deep") == tmp / "repo");
    std::string fp = rootFingerprint(tmp / "repo");
    CHECK(fp.size() == 16);
    CHECK(fp == sha256Hex(tmp / "repo").substr(0, 16));
}

TEST_CASE("file URIs convert both ways with percent-encoding") {
    CHECK(*uriToPath("file:///home/a%20b/c.py") == "/home/a b/c.py");
    CHECK(*uriToPath("file://localhost/x") == "/x");
    CHECK_FALSE(uriToPath("https://example.com/x"));
    CHECK_FALSE(uriToPath("file://otherhost/x"));
    CHECK(pathToUri("/home/a b/c.py") == "file:///home/a%20b/c.py");
    CHECK(*uriToPath(pathToUri("/tmp/ü #x")) == "/tmp/ü #x");
}

TEST_CASE("what the core drops is logged by a server and silent in a one-shot command", "[log]") {
    engram::test::TempDir dir;
    std::runtime_error why("disk full");
    // A one-shot command opens no log: nothing reaches its stderr.
    closeLog();
    std::fflush(stderr);
    int saved = ::dup(2);
    REQUIRE(saved >= 0);
    FILE* sink = std::fopen((dir / "stderr").c_str(), "w");
    REQUIRE(sink);
    ::dup2(::fileno(sink), 2);
    logDropped("writing the usage counter", why);
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::fclose(sink);
    CHECK(readFile(dir / "stderr").value_or("?").empty());
    // A server's log gets the line, naming what was dropped and why.
    REQUIRE(openLog(dir / "server.log"));
    logDropped("writing the usage counter", why);
    closeLog();
    auto log = readFile(dir / "server.log").value_or("");
    CHECK(log.find("writing the usage counter (dropped, serving on): disk full") !=
          std::string::npos);
}

} // namespace unit_UtilTest
