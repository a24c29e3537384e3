// The claim store on disk and its hash-chained audit log.
#include "store/Store.h"
#include "store/AuditLog.h"
#include "store/ClaimFile.h"
#include "store/StoreConfig.h"
#include "support/TempDir.h"
#include "util/Fs.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sys/stat.h>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_StoreTest {

using namespace engram;
using engram::test::TempDir;

TEST_CASE("the first write lays out the store with a .gitignore for derived files") {
    TempDir tmp;
    Store s(tmp / ".engram", "project", "demo");
    CHECK_FALSE(s.exists());
    s.ensureLayout();
    CHECK(s.exists());
    auto gi = readFile(tmp / ".engram/.gitignore");
    REQUIRE(gi);
    for (auto* derived : {"index.sqlite", "audit.log", "lock"})
        CHECK(gi->find(derived) != std::string::npos);
    CHECK(s.originLabel() == "project:demo");
}

TEST_CASE("store.conf names the store across clones in other directories") {
    TempDir tmp;
    tmp.write(".engram/store.conf", "name: payments\n");
    Store s(tmp / ".engram", "project", "checkout-copy-2");
    CHECK(s.name() == "payments");
    CHECK(s.originLabel() == "project:payments");
}

TEST_CASE("versions returns history oldest first and ignores a duplicate left by a crash") {
    TempDir tmp;
    Store s(tmp / ".engram", "project", "demo");
    s.ensureLayout();
    Claim c;
    c.id = "c-v";
    c.text = "first";
    c.version = 1;
    c.status = ClaimStatus::Superseded;
    s.writeHistory(c);
    c.version = 2;
    c.text = "second";
    // Crash after writing history of v2 but before the new current file:
    s.writeHistory(c);
    c.status = ClaimStatus::Committed;
    s.write(c);
    auto v = s.versions("c-v");
    REQUIRE(v.size() == 2);
    CHECK(v[0].text == "first");
    CHECK(v[1].text == "second");
    CHECK(v[1].status == ClaimStatus::Committed);
}

TEST_CASE("new ids are valid and distinct") {
    std::set<std::string> ids;
    for (int i = 0; i < 2000; ++i) {
        auto id = Store::newId();
        CHECK(Store::validId(id));
        ids.insert(id);
    }
    CHECK(ids.size() == 2000);
    CHECK_FALSE(Store::validId("../etc"));
    CHECK_FALSE(Store::validId("A"));
}

TEST_CASE("atomicWrite leaves no temporary file behind and replaces contents") {
    TempDir tmp;
    atomicWrite(tmp / "f.md", "one");
    atomicWrite(tmp / "f.md", "two");
    CHECK(*readFile(tmp / "f.md") == "two");
    CHECK(listFiles(tmp.path()) == std::vector<std::string>{"f.md"});
}

TEST_CASE("the audit log chains entries and detects an edited line") {
    TempDir tmp;
    AuditLog log(tmp / "audit.log");
    auto a = log.append("remember", "c-1@1", "ana", "");
    auto b = log.append("retract", "c-1@1", "bo", "wrong\tand\nmultiline");
    CHECK(a.seq == 1);
    CHECK(b.seq == 2);
    CHECK(b.prev == a.hash);
    auto v = log.verify();
    CHECK(v.ok);
    CHECK(v.entries == 2);

    auto text = *readFile(tmp / "audit.log");
    auto pos = text.find("retract");
    text.replace(pos, 7, "remembr");
    std::ofstream(tmp / "audit.log", std::ios::trunc) << text;
    auto broken = log.verify();
    CHECK_FALSE(broken.ok);
    CHECK(broken.brokenAt == 2);
}

TEST_CASE("deleting an audit entry breaks the chain at the next one") {
    TempDir tmp;
    AuditLog log(tmp / "audit.log");
    for (int i = 0; i < 3; ++i)
        log.append("learn", "c-1@1", "ana", "correct");
    auto text = *readFile(tmp / "audit.log");
    auto first = text.find('\n');
    auto second = text.find('\n', first + 1);
    text.erase(first + 1, second - first);
    std::ofstream(tmp / "audit.log", std::ios::trunc) << text;
    auto v = log.verify();
    CHECK_FALSE(v.ok);
    CHECK(v.brokenAt == 2);
}

TEST_CASE("a long audit log verifies in bounded memory and a gigantic line is malformed") {
    TempDir tmp;
    AuditLog log(tmp / "audit.log");
    for (int i = 0; i < 2000; ++i) // entries straddle the reader's 64 KiB buffers
        log.append("learn", "c-" + std::to_string(i) + "@1", "ana",
                   "correct: " + std::to_string(i));
    auto v = log.verify();
    CHECK(v.ok);
    CHECK(v.entries == 2000);
    // A clone can carry anything: a 3 MiB line is not read whole.
    appendFile(tmp / "audit.log", std::string(3 << 20, 'x') + "\n");
    auto broken = log.verify();
    CHECK_FALSE(broken.ok);
    CHECK(broken.brokenAt == 2001);
    CHECK(broken.problem == "malformed entry");
}

TEST_CASE("store.conf reports every mistake by line and keeps what is right") {
    StoreConfig c = parseStoreConfig("# comment\nname:\nlanguage: h\nlanguage: .pyx python\n"
                                     "just words\nname: \xff\nname: payments\r\n");
    CHECK(c.name == "payments");
    REQUIRE(c.languageMap.size() == 1);
    CHECK(c.languageMap[0] == std::pair<std::string, std::string>{".pyx", "python"});
    REQUIRE(c.errors.size() == 4);
    CHECK(c.errors[0] == "store.conf line 2: the name is empty");
    CHECK(c.errors[1].rfind("store.conf line 3: expected 'language:", 0) == 0);
    CHECK(c.errors[2] == "store.conf line 5: expected 'key: value'");
    CHECK(c.errors[3] == "store.conf line 6: not valid UTF-8");
}

TEST_CASE("store.conf sets stale_days to whole days from 1 to a century, and names a bad value") {
    CHECK(parseStoreConfig("stale_days: 90\n").staleDays == 90);
    CHECK(parseStoreConfig("stale_days: 36500\n").staleDays == 36500);
    CHECK_FALSE(parseStoreConfig("name: x\n").staleDays.has_value());
    for (std::string bad : {"0", "-3", "36501", "999999999999", "ninety", "30d", "", "1.5"}) {
        INFO(bad);
        StoreConfig c = parseStoreConfig("name: x\nstale_days: " + bad + "\n");
        CHECK_FALSE(c.staleDays.has_value());
        REQUIRE(c.errors.size() == 1);
        CHECK(c.errors[0] == "store.conf line 2: stale_days: expected a whole number of days "
                             "from 1 to 36500, got '" +
                                 bad + "'");
    }
    // The last good line wins, as for every other key.
    CHECK(parseStoreConfig("stale_days: 7\nstale_days: 400\n").staleDays == 400);
}

TEST_CASE("store.conf names the team stores a project reads, each once, and refuses other names") {
    StoreConfig c = parseStoreConfig("teams: platform, billing-eu platform\nteams: Ops ../x a_b\n"
                                     "sync_minutes: 30\n");
    CHECK(c.teams == std::vector<std::string>{"platform", "billing-eu", "a_b"});
    CHECK(c.syncMinutes == 30);
    REQUIRE(c.errors.size() == 2);
    CHECK(c.errors[0].rfind("store.conf line 2: teams: 'Ops' is not a team name", 0) == 0);
    CHECK(c.errors[1].rfind("store.conf line 2: teams: '../x' is not a team name", 0) == 0);
    StoreConfig empty = parseStoreConfig("teams:\nsync_minutes: 0\n");
    CHECK(empty.teams.empty());
    CHECK_FALSE(empty.syncMinutes.has_value());
    REQUIRE(empty.errors.size() == 2);
    CHECK(empty.errors[0] == "store.conf line 1: expected 'teams: NAME, ...'");
    CHECK(empty.errors[1].rfind("store.conf line 2: sync_minutes: expected a whole number", 0) ==
          0);
    CHECK(validTeamName("platform"));
    CHECK(validTeamName("a"));
    for (std::string bad :
         {std::string(), std::string("-x"), std::string("_x"), std::string("Platform"),
          std::string("a/b"), std::string("a.b"), std::string("team:x"), std::string(41, 'a')})
        CHECK_FALSE(validTeamName(bad));
}

TEST_CASE("a store.conf over 64 KiB is read up to the limit and said to be") {
    std::string text = "name: big\n" + std::string(kMaxStoreConfigBytes, '#') + "\nname: late\n";
    StoreConfig c = parseStoreConfig(text);
    CHECK(c.name == "big");
    REQUIRE_FALSE(c.errors.empty());
    CHECK(c.errors[0].find("larger than 64 KiB") != std::string::npos);
}

TEST_CASE("a claim file that is a link, a FIFO or over 1 MiB is refused, never followed") {
    TempDir tmp;
    tmp.write("target.md", "---\nid: c-target\n---\ntext\n");
    std::filesystem::create_symlink(tmp.path() + "/target.md", tmp.path() + "/link.md");
    REQUIRE(::mkfifo((tmp.path() + "/fifo.md").c_str(), 0644) == 0);
    tmp.write("big.md", std::string(kMaxClaimFileBytes + 1, 'x'));
    for (const char* name : {"link.md", "fifo.md", "big.md"}) {
        INFO(name);
        CHECK_THROWS_AS(readClaimText(tmp.path() + "/" + name), ClaimFileError);
    }
    CHECK(readClaimText(tmp.path() + "/target.md").has_value());
    CHECK_FALSE(readClaimText(tmp.path() + "/absent.md").has_value());
}

} // namespace unit_StoreTest
