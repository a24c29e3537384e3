// The SQLite index: derived from files, rebuilt when damaged, kept in sync.
#include "index/Index.h"
#include "model/Error.h"
#include "store/ClaimFile.h"
#include "store/Store.h"
#include "support/TempDir.h"
#include "text/Tokenize.h"

#include <catch2/catch.hpp>
#include <fstream>

using namespace engram;
using engram::test::TempDir;

namespace {

Claim make(const std::string& id, const std::string& text, const std::string& label = "",
           ClaimStatus status = ClaimStatus::Committed) {
    Claim c;
    c.id = id;
    c.text = text;
    c.label = label;
    c.status = status;
    c.confidence = 0.7;
    c.created = 1790000000;
    return c;
}

struct Fixture {
    TempDir tmp;
    Store store{tmp / ".engram", "project", "demo"};
    Fixture() { store.ensureLayout(); }
    void put(const Claim& c) { store.write(c); }
};

} // namespace

TEST_CASE("a new index is filled from the claim files") {
    Fixture f;
    f.put(make("c-one", "Expired tokens are rejected silently", "tokens"));
    f.put(make("c-two", "The pool holds ten connections"));
    f.put(make("c-old", "Old thing", "", ClaimStatus::Retracted));
    Index idx(f.store);
    auto r = idx.sync();
    CHECK(r.rebuilt);
    CHECK(r.added == 3);
    auto st = idx.stats();
    CHECK(st.total == 3);
    CHECK(st.committed == 2);
    CHECK(st.retracted == 1);
    CHECK(idx.byId("c-one")->claim.label == "tokens");
    CHECK(idx.liveByLabel("tokens")->claim.id == "c-one");
}

TEST_CASE("full-text lookups use the shared tokenizer's stems") {
    Fixture f;
    f.put(make("c-one", "Expired tokens are rejected silently"));
    f.put(make("c-two", "Token refresh runs hourly"));
    Index idx(f.store);
    idx.sync();
    auto term = text::terms("tokens").at(0);
    CHECK(idx.docFrequency(term) == 2);
    CHECK(idx.match(term, 10).size() == 2);
    CHECK(idx.match(text::terms("expiring").at(0), 10).size() == 1);
    CHECK(idx.docFrequency("nonexistentterm") == 0);
}

TEST_CASE("sync picks up edits, deletions and broken files") {
    Fixture f;
    f.put(make("c-one", "alpha"));
    f.put(make("c-two", "beta"));
    Index idx(f.store);
    idx.sync();

    f.put(make("c-one", "alpha gamma")); // edited
    removeFile(f.store.claimPath("c-two"));
    f.tmp.write(".engram/claims/c-bad.md", "---\nconfidence: 7\n---\ntext\n");
    auto r = idx.sync();
    CHECK(r.updated == 1);
    CHECK(r.removed == 1);
    CHECK(r.broken == 1);
    CHECK(idx.byId("c-one")->claim.text == "alpha gamma");
    CHECK_FALSE(idx.byId("c-two"));
    auto broken = idx.brokenFiles();
    REQUIRE(broken.size() == 1);
    CHECK(broken[0].file == "claims/c-bad.md");
    CHECK(broken[0].line == 2);

    // Fixing the file brings the claim in and clears the report.
    f.tmp.write(".engram/claims/c-bad.md", "---\nconfidence: 0.5\n---\ntext now fine\n");
    idx.sync();
    CHECK(idx.byId("c-bad"));
    CHECK(idx.brokenFiles().empty());
    CHECK(idx.stats().committed == 2);
}

TEST_CASE("a corrupt index file is recreated and refilled") {
    Fixture f;
    f.put(make("c-one", "alpha"));
    {
        Index idx(f.store);
        idx.sync();
    }
    std::ofstream(f.store.indexPath(), std::ios::trunc) << std::string(8192, 'z');
    Index idx(f.store);
    auto r = idx.sync();
    CHECK(r.rebuilt);
    CHECK(r.rebuildReason.find("unusable") != std::string::npos);
    CHECK(idx.byId("c-one"));
}

TEST_CASE("an index from a newer engram is refused, not overwritten") {
    Fixture f;
    f.put(make("c-one", "alpha"));
    {
        Index idx(f.store);
        idx.sync();
        sql::Db db(f.store.indexPath());
        db.exec("PRAGMA user_version = 99");
    }
    try {
        Index idx(f.store);
        FAIL("a newer schema must be refused");
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::IndexUnavailable);
        CHECK(std::string(e.what()).find("99") != std::string::npos);
    }
}

TEST_CASE("rebuild gives the same rows as incremental sync") {
    Fixture f;
    for (int i = 0; i < 50; ++i)
        f.put(
            make("c-n" + std::to_string(i), "note number " + std::to_string(i) + " about caching"));
    Index idx(f.store);
    idx.sync();
    auto before = idx.match("cach", 100);
    idx.rebuild("test");
    auto after = idx.match("cach", 100);
    CHECK(before.size() == 50);
    CHECK(after.size() == 50);
    CHECK(idx.stats().committed == 50);
}
