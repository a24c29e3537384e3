// The claim store on disk and its hash-chained audit log.
#include "store/Store.h"
#include "store/AuditLog.h"
#include "store/ClaimFile.h"
#include "support/TempDir.h"
#include "util/Fs.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <set>

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
