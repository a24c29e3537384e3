// The SQLite index: derived from files, rebuilt when damaged, kept in sync.
#include "index/Index.h"
#include "store/ClaimFile.h"
#include "store/Store.h"
#include "support/TempDir.h"
#include "text/Tokenize.h"
#include "util/Error.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <set>
#include <sys/stat.h>
#include <thread>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_IndexTest {

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

TEST_CASE("an index of the version before the workspace listing gains it in place, no rebuild") {
    Fixture f;
    f.put(make("c-one", "alpha"));
    {
        Index idx(f.store);
        idx.sync();
        sql::Db db(f.store.indexPath());
        db.exec("DROP TABLE workspace_files; DROP TABLE code_meta; DROP TABLE history_facts; "
                "DROP TABLE anchor_health; PRAGMA user_version = 7");
    }
    Index idx(f.store);
    CHECK_FALSE(idx.freshlyCreated());
    CHECK_FALSE(idx.sync().rebuilt); // the claims' rows were kept
    CHECK(idx.byId("c-one"));
    CHECK(idx.generations().files == 0); // never listed, and says so
    ListingChange c;
    c.added = {{"AGENTS.md", true}, {"src/a.py", false}};
    CHECK(idx.applyListing(c));
    CHECK(idx.generations().files == 1);
    CHECK(idx.listedFiles() == std::vector<std::string>{"AGENTS.md", "src/a.py"});
    CHECK(idx.listedInstructionFiles() == std::vector<std::string>{"AGENTS.md"});
    CHECK_FALSE(idx.applyListing({})); // nothing changed: the generation stays
    CHECK(idx.generations().files == 1);
    // A file that stops being an instruction file (a store.conf glob
    // removed) is marked again, not listed twice.
    c.added = {{"AGENTS.md", false}};
    CHECK(idx.applyListing(c));
    CHECK(idx.listedInstructionFiles().empty());
    CHECK(idx.listedFiles().size() == 2);
}

TEST_CASE("claims by the date they were last written, kept by a rebuild and added in place to "
          "a version 11 index") {
    Fixture f;
    auto dated = [&](const char* id, int64_t created, std::optional<int64_t> updated) {
        Claim c = make(id, std::string("claim ") + id);
        c.created = created;
        c.updated = updated;
        f.put(c);
    };
    dated("c-jan", 1000, std::nullopt);
    dated("c-feb", 2000, 2000);
    dated("c-edited", 500, 3000); // created early, its last version late
    auto ids = [](Index& idx, int64_t from, int64_t to) {
        std::vector<std::string> out;
        for (auto rowid : idx.writtenBetween(from, to, 10))
            out.push_back(idx.byRowid(rowid)->claim.id);
        return out;
    };
    {
        Index idx(f.store);
        idx.sync();
        CHECK(ids(idx, 0, 10000) == std::vector<std::string>{"c-edited", "c-feb", "c-jan"});
        CHECK(ids(idx, 1000, 2001) == std::vector<std::string>{"c-feb", "c-jan"});
        CHECK(ids(idx, 0, 1000).empty()); // c-edited was created then, written later
        sql::Db db(f.store.indexPath());
        db.exec("DROP INDEX claims_written; PRAGMA user_version = 11");
    }
    Index idx(f.store);
    CHECK_FALSE(idx.freshlyCreated());
    CHECK_FALSE(idx.sync().rebuilt);
    CHECK(ids(idx, 2500, 10000) == std::vector<std::string>{"c-edited"});
    sql::Db db(f.store.indexPath());
    auto plan = db.prepare("EXPLAIN QUERY PLAN SELECT rowid FROM claims WHERE "
                           "coalesce(updated, created) >= 0 AND coalesce(updated, created) < 1 "
                           "ORDER BY coalesce(updated, created) DESC LIMIT 5");
    std::string detail;
    while (plan.step())
        detail += plan.text(3) + "\n";
    CHECK(detail.find("claims_written") != std::string::npos);
}

TEST_CASE("committed claims of a kind, newest first, kept by a rebuild and added in place to "
          "a version 12 index") {
    Fixture f;
    auto kinded = [&](const char* id, const char* kind, ClaimStatus status) {
        Claim c = make(id, std::string("claim ") + id, "", status);
        c.kind = kind;
        f.put(c);
    };
    kinded("c-retro", "decision", ClaimStatus::Committed);
    kinded("c-naming", "convention", ClaimStatus::Committed);
    kinded("c-dropped", "decision", ClaimStatus::Retracted);
    kinded("c-cache", "decision", ClaimStatus::Committed);
    auto ids = [](Index& idx, const std::string& kind) {
        std::vector<std::string> out;
        for (auto rowid : idx.ofKind(kind, 10))
            out.push_back(idx.byRowid(rowid)->claim.id);
        std::sort(out.begin(), out.end()); // rowids follow the load's order, not the writes'
        return out;
    };
    {
        Index idx(f.store);
        idx.sync();
        CHECK(ids(idx, "decision") == std::vector<std::string>{"c-cache", "c-retro"});
        CHECK(ids(idx, "convention") == std::vector<std::string>{"c-naming"});
        CHECK(ids(idx, "todo").empty());
        sql::Db db(f.store.indexPath());
        db.exec("DROP INDEX claims_kind; PRAGMA user_version = 12");
    }
    Index idx(f.store);
    CHECK_FALSE(idx.freshlyCreated());
    CHECK_FALSE(idx.sync().rebuilt);
    CHECK(ids(idx, "decision") == std::vector<std::string>{"c-cache", "c-retro"});
    sql::Db db(f.store.indexPath());
    auto plan = db.prepare("EXPLAIN QUERY PLAN SELECT rowid FROM claims WHERE kind = 'decision' "
                           "AND +status = 'committed' ORDER BY rowid DESC LIMIT 5");
    std::string detail;
    while (plan.step())
        detail += plan.text(3) + "\n";
    CHECK(detail.find("claims_kind") != std::string::npos);
}

TEST_CASE("superseded counts the versions claims left behind, kept by every write, a rebuild "
          "and an upgrade from version 10") {
    Fixture f;
    Claim one = make("c-one", "alpha", "one");
    one.version = 3; // two earlier versions in its history
    f.put(one);
    f.put(make("c-two", "beta", "two"));
    {
        Index idx(f.store);
        idx.sync(); // a bulk load
        CHECK(idx.stats().superseded == 2);
        CHECK(idx.stats().committed == 2);
        Claim two = make("c-two", "beta again", "two");
        two.version = 2;
        f.put(two);
        idx.upsert(two, statFile(f.store.claimPath("c-two")).value_or(FileStat{}));
        CHECK(idx.stats().superseded == 3); // the row's old count out, its new one in
        CHECK(idx.rebuild("test").added == 2);
        CHECK(idx.stats().superseded == 3);
        // As version 10 kept it: claims whose status was superseded (none),
        // by triggers of its own (dropped here: the upgrade must put its own).
        sql::Db db(f.store.indexPath());
        db.exec("UPDATE stats SET superseded = 0; DROP TRIGGER claims_ai; DROP TRIGGER claims_ad; "
                "PRAGMA user_version = 10");
    }
    Index idx(f.store);
    CHECK_FALSE(idx.freshlyCreated());
    CHECK_FALSE(idx.sync().rebuilt);
    CHECK(idx.stats().superseded == 3);
    // The triggers the upgrade put back count the same way.
    Claim one4 = one;
    one4.version = 4;
    f.put(one4);
    idx.upsert(one4, statFile(f.store.claimPath("c-one")).value_or(FileStat{}));
    CHECK(idx.stats().superseded == 4);
}

TEST_CASE("an index of version 8 gains the per-file anchor health in place, kept per "
          "anchored file") {
    Fixture f;
    Claim c = make("c-one", "validate rejects expired tokens");
    Anchor a;
    a.path = "src/auth.py";
    a.symbol = "validate";
    a.nodeKind = "function";
    c.anchors.push_back(a);
    f.put(c);
    {
        Index idx(f.store);
        idx.sync();
        sql::Db db(f.store.indexPath());
        db.exec("DROP TABLE anchor_health; PRAGMA user_version = 8");
    }
    Index idx(f.store);
    CHECK_FALSE(idx.freshlyCreated());
    CHECK_FALSE(idx.sync().rebuilt);
    CHECK(idx.fileHealth().empty());
    FileHealthRow row{"src/auth.py", 1, "file 1 2 3", 4, "rules", 1, 0, 0, 0, 0, ""};
    FileHealthRow gone = row;
    gone.path = "src/gone.py"; // holds no anchor: not kept
    idx.putFileHealth({row, gone});
    auto kept = idx.fileHealth();
    REQUIRE(kept.size() == 1);
    CHECK(kept[0].path == "src/auth.py");
    CHECK(kept[0].contentKey == "file 1 2 3");
    CHECK(kept[0].codeGeneration == 4);
    CHECK(kept[0].intact == 1);
    // Written again: replaced, not doubled.
    row.intact = 0;
    row.drifted = 1;
    idx.putFileHealth({row});
    kept = idx.fileHealth();
    REQUIRE(kept.size() == 1);
    CHECK(kept[0].drifted == 1);
    CHECK(kept[0].intact == 0);
    // The claim retracted: its file's counter moves on, so a reader
    // comparing it knows the kept row is stale.
    auto paths = idx.anchorPaths();
    REQUIRE(paths.size() == 1);
    int64_t before = paths[0].changes;
    c.status = ClaimStatus::Retracted;
    c.version = 2;
    f.put(c);
    idx.sync();
    auto after = idx.anchorPaths();
    CHECK((after.empty() || after[0].changes != before));
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

TEST_CASE("a bulk load indexes every term and counter exactly as row-by-row inserts do") {
    // The bulk load tokenizes on reading threads and replays the terms into
    // the full-text index, and counts the statistics itself; a row-by-row
    // sync goes through the tokenizer and the insert trigger. Both must give
    // the same index, for every column and for text that is not ASCII.
    Fixture f;
    std::vector<std::string> texts;
    for (int i = 0; i < 600; ++i) {
        Claim c = make("c-b" + std::to_string(i),
                       "TokenValidator.validate rejects expired JWTs after " + std::to_string(i) +
                           " retries; naïve café cache_size ≥ " + std::to_string(i % 7) +
                           (i % 3 ? " HTTPServer parseJSON2Value" : " don't"),
                       i % 4 ? "label-" + std::to_string(i % 9) : "",
                       i % 11 == 0 ? ClaimStatus::Retracted : ClaimStatus::Committed);
        if (i % 2) c.tags = {"perf", "tag" + std::to_string(i % 5)};
        if (i % 5 == 0) {
            Anchor a;
            a.path = "src/auth/validator_" + std::to_string(i % 13) + ".py";
            a.symbol = "TokenValidator.validate";
            a.nodeKind = "method";
            c.anchors.push_back(a);
        }
        texts.push_back(c.label + " " + c.text + " perf tag0 tag1 tag2 tag3 tag4 " +
                        (c.anchors.empty() ? "" : c.anchors[0].path + " " + c.anchors[0].symbol));
        f.put(c);
    }
    std::ofstream(f.store.claimsDir() + "/c-broken.md") << "not a claim file\n";

    std::vector<std::string> ids;
    for (int i = 0; i < 600; ++i)
        ids.push_back("c-b" + std::to_string(i));
    ids.push_back("c-broken");
    Index rowByRow(f.store);
    rowByRow.sync(&ids); // a fresh index given ids: row by row, through the trigger
    // Rowids differ (the load assigns them in listing order): claims are
    // compared by id.
    auto idsOf = [](Index& idx, const std::string& term) {
        std::set<std::string> out;
        for (auto row : idx.match(term, 1000))
            out.insert(idx.byRowid(row)->claim.id);
        return out;
    };
    std::map<std::string, std::pair<int64_t, std::set<std::string>>> incremental;
    std::set<std::string> terms;
    for (auto& t : texts)
        for (auto& term : text::terms(t))
            terms.insert(term);
    REQUIRE(terms.size() > 20);
    for (auto& term : terms)
        incremental[term] = {rowByRow.docFrequency(term), idsOf(rowByRow, term)};
    auto a = rowByRow.stats();
    REQUIRE(a.total == 600);

    auto r = rowByRow.rebuild("test");
    CHECK(r.added == 600);
    CHECK(r.broken == 1);
    auto b = rowByRow.stats();
    CHECK(b.total == a.total);
    CHECK(b.committed == a.committed);
    CHECK(b.retracted == a.retracted);
    CHECK(b.anchors == a.anchors);
    CHECK(b.avgLabel == a.avgLabel);
    CHECK(b.avgText == a.avgText);
    CHECK(b.avgTags == a.avgTags);
    CHECK(b.avgCode == a.avgCode);
    for (auto& term : terms) {
        INFO(term);
        CHECK(rowByRow.docFrequency(term) == incremental[term].first);
        CHECK(idsOf(rowByRow, term) == incremental[term].second);
    }
    CHECK(rowByRow.brokenFiles().size() == 1);
}

TEST_CASE("every keyed lookup is planned through an index, never a walk of all claims") {
    Fixture f;
    // Mostly committed claims with distinct labels: a plan through the status
    // index would walk nearly every row.
    for (int i = 0; i < 300; ++i)
        f.put(make("c-n" + std::to_string(i), "note " + std::to_string(i),
                   "label-" + std::to_string(i)));
    Index idx(f.store);
    idx.sync();
    auto plans = idx.lookupPlans();
    REQUIRE(plans.size() == 16);
    for (auto& [name, plan] : plans) {
        INFO(name << ": " << plan);
        CHECK(plan.find("SCAN") == std::string::npos);
        CHECK(plan.find("claims_status") == std::string::npos);
    }
    CHECK(plans[1].second.find("claims_label") != std::string::npos);
    CHECK(plans[2].second.find("claims_label") != std::string::npos);
    // Read on every recall: the few instruction files, not the workspace's files.
    CHECK(plans[7].second.find("workspace_instructions") != std::string::npos);
    CHECK(plans[8].second.find("PRIMARY KEY") != std::string::npos);
    // Instruction files' names, looked up one at a time.
    CHECK(plans[9].second.find("code_symbols_last") != std::string::npos);
    CHECK(plans[10].second.find("workspace_names") != std::string::npos);
    CHECK(plans[11].second.find("workspace_stems") != std::string::npos);
    CHECK(plans[12].second.find("workspace_dir_names") != std::string::npos);
    CHECK(plans[14].second.find("PRIMARY KEY") != std::string::npos);
    CHECK(plans[15].second.find("workspace_rnames") != std::string::npos);
}

TEST_CASE("listed files and definitions are found by name, one indexed query each") {
    Fixture f;
    Index idx(f.store);
    ListingChange c;
    c.added = {{"src/auth/tokens.py", false}, {"src/db.py", false},       {"go.mod", false},
               {"web/app.test.ts", false},    {"web/lib/util.ts", false}, {"AGENTS.md", true}};
    REQUIRE(idx.applyListing(c));
    CHECK(idx.filesNamed("db.py", 10) == std::vector<std::string>{"src/db.py"});
    CHECK(idx.filesNamed("go.mod", 10) == std::vector<std::string>{"go.mod"});
    CHECK(idx.filesWithStem("tokens", 10) == std::vector<std::string>{"src/auth/tokens.py"});
    CHECK(idx.dirsNamed("auth", 10) == std::vector<std::string>{"src/auth"});
    CHECK(idx.dirsNamed("lib", 10) == std::vector<std::string>{"web/lib"});
    CHECK(idx.isListedDir("src"));
    CHECK(idx.isListedDir("web/lib"));
    CHECK_FALSE(idx.isListedDir("src/db.py"));
    CHECK_FALSE(idx.isListedDir("sr"));
    // Under a prefix, in order, as `keep` filters them (a directory's own
    // files, not its subdirectories').
    auto own = idx.filesUnder(
        "web/", [](const std::string& p) { return p.find('/', 4) == std::string::npos; }, 10);
    CHECK(own == std::vector<std::string>{"web/app.test.ts"});
    CHECK(idx.filesUnder("src/", {}, 1).size() == 1);
    // A suffix files share (`.test.ts`), not a file's whole name.
    CHECK(idx.namesShareSuffix(".test.ts"));
    CHECK_FALSE(idx.namesShareSuffix("app.test.ts"));
    CHECK_FALSE(idx.namesShareSuffix(".spec.ts"));
    // A directory goes with its last file.
    ListingChange gone;
    gone.removed = {"web/lib/util.ts"};
    REQUIRE(idx.applyListing(gone));
    CHECK_FALSE(idx.isListedDir("web/lib"));
    CHECK(idx.isListedDir("web"));
    CHECK(idx.dirsNamed("lib", 10).empty());

    CHECK_FALSE(idx.anyCodeSymbols());
    idx.putCodeFile("src/auth/tokens.py", FileStat{1, 2},
                    {{"src/auth/tokens.py", "TokenValidator.validate", "method", "h", "s"},
                     {"src/auth/tokens.py", "ns::Pool::validate", "function", "h", "s"}});
    CHECK(idx.anyCodeSymbols());
    auto named = idx.symbolsNamed("validate", 10);
    REQUIRE(named.size() == 2);
    CHECK(idx.symbolsNamed("Pool", 10).empty()); // by the last part only
    CHECK(lastNamePart("ns::Pool::validate") == "validate");
    CHECK(lastNamePart("a.b::c") == "c");
    CHECK(lastNamePart("plain") == "plain");
}

TEST_CASE("a scan of the claims directory names every file added, removed, replaced or "
          "rewritten") {
    Fixture f;
    for (int i = 0; i < 5; ++i)
        f.put(make("c-s" + std::to_string(i), "note " + std::to_string(i)));
    Index(f.store).sync();
    std::string dir = f.store.claimsDir();
    auto scan = scanClaims(f.store.indexPath(), dir, true);
    CHECK(scan.error.empty());
    CHECK(scan.ids.empty());
    CHECK(scan.files == 5);

    f.put(make("c-added", "new"));                         // added
    REQUIRE(std::remove((dir + "/c-s0.md").c_str()) == 0); // removed
    REQUIRE(std::rename((dir + "/c-s1.md").c_str(), (dir + "/c-moved.md").c_str()) == 0);
    {
        std::ofstream out(dir + "/c-s2.md", std::ios::app); // rewritten in place
        out << "more\n";
    }
    auto listing = scanClaims(f.store.indexPath(), dir, false);
    std::set<std::string> listed(listing.ids.begin(), listing.ids.end());
    CHECK(listed == std::set<std::string>{"c-added", "c-s0", "c-s1", "c-moved"});
    auto full = scanClaims(f.store.indexPath(), dir, true);
    std::set<std::string> all(full.ids.begin(), full.ids.end());
    CHECK(all == std::set<std::string>{"c-added", "c-s0", "c-s1", "c-moved", "c-s2"});
    // A directory whose mtime is not a tick behind the scan is not settled:
    // a change in the same tick would not move it again. (Its mtime is set
    // ahead of the clock here, so the check does not depend on timing.)
    timespec ahead[2] = {{0, UTIME_OMIT}, {std::time(nullptr) + 60, 0}};
    REQUIRE(::utimensat(AT_FDCWD, dir.c_str(), ahead, 0) == 0);
    CHECK_FALSE(scanClaims(f.store.indexPath(), dir, true).settled);
    timespec now[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
    REQUIRE(::utimensat(AT_FDCWD, dir.c_str(), now, 0) == 0);

    Index idx(f.store);
    idx.applyScan(full);
    CHECK(idx.byId("c-added"));
    // The renamed file still says `id: c-s1`: reported, not indexed under either name.
    auto broken = idx.brokenFiles();
    REQUIRE(broken.size() == 1);
    CHECK(broken[0].file == "claims/c-moved.md");
    CHECK_FALSE(idx.byId("c-s0"));
    CHECK_FALSE(idx.byId("c-s1"));
    CHECK(idx.byId("c-s2")->claim.text == "note 2\nmore");
    CHECK(scanClaims(f.store.indexPath(), dir, true).ids.empty());

    // Once the directory is older than a tick, a scan settles it, and the
    // mark holds until the directory changes.
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    auto settled = scanClaims(f.store.indexPath(), dir, true);
    CHECK(settled.settled);
    idx.applyScan(settled);
    REQUIRE(idx.settledDirMark());
    CHECK(*idx.settledDirMark() == *dirMark(dir));
    f.put(make("c-later", "later"));
    CHECK(*idx.settledDirMark() != *dirMark(dir));
}

} // namespace unit_IndexTest
