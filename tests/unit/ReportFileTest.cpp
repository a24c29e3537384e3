// Reports as JSON lines: ids of the content only, appends that de-duplicate,
// and boxes that survive lines they cannot read.
#include "store/ReportFile.h"
#include "support/TempDir.h"
#include "util/Fs.h"

#include <catch2/catch.hpp>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_ReportFileTest {

using namespace engram;
using engram::test::TempDir;

namespace {

Report sample() {
    Report r;
    r.reportClass = "memory_misdelivery";
    r.kind = "leak";
    r.what = "a claim of project \"b\" came back in a\nrecall";
    r.expected = "only project a's claims";
    r.root = "/work/a";
    r.agent = "codex:maker";
    r.filed = 1700000000;
    return r;
}

} // namespace

TEST_CASE("a report's id covers its content, not when it was filed") {
    Report a = sample(), b = sample();
    b.filed = a.filed + 3600;
    CHECK(reportId(a) == reportId(b));
    CHECK(reportId(a).size() == 18);
    for (auto change : {+[](Report& r) { r.what += "!"; }, +[](Report& r) { r.kind = "vanished"; },
                        +[](Report& r) { r.root = "none"; }, +[](Report& r) { r.external = true; },
                        +[](Report& r) { r.answers = {"r-0123456789abcdef"}; },
                        +[](Report& r) { r.agent = "human:ana"; }}) {
        Report c = sample();
        change(c);
        CHECK(reportId(c) != reportId(a));
    }
}

TEST_CASE("a report line reads back as the report it was written from") {
    Report r = sample();
    r.answers = {"r-0123456789abcdef", "r-fedcba9876543210"};
    r.resolution = "confirmed";
    r.reportClass = "answer";
    r.kind.clear();
    r.id = reportId(r);
    std::string error;
    auto back = parseReportLine(reportLine(r), error);
    REQUIRE(back);
    CHECK(error.empty());
    CHECK(back->id == r.id);
    CHECK(back->what == r.what);
    CHECK(back->answers == r.answers);
    CHECK(back->resolution == "confirmed");
    CHECK(back->filed == r.filed);
    CHECK(reportLine(r).find('\n') == std::string::npos);
}

TEST_CASE("a box skips lines it cannot read, naming them, and de-duplicates by content") {
    TempDir tmp;
    const std::string box = tmp / "store/inbox.jsonl";
    Report r = sample();
    REQUIRE(fileReport(box, r).added);
    CHECK_FALSE(fileReport(box, r).added); // the same content: not appended again
    Report later = r;
    later.filed += 60;
    auto again = fileReport(box, later);
    CHECK_FALSE(again.added);
    CHECK(again.filed == r.filed); // the box's copy says when it was filed
    // Hand edits: a broken line, a line of the wrong shape, the first line
    // again with a forged id, and no newline at the end.
    std::string edited = *readFile(box);
    std::string forged = reportLine(r);
    forged.replace(forged.find(reportId(r)), 18, "r-0000000000000000");
    edited += "{not json\n[1,2]\n" + forged + "\n{\"class\":\"field_report\",\"what\":3}";
    atomicWrite(box, edited);
    auto read = readReportBox(box);
    REQUIRE(read.reports.size() == 1); // the forged copy is the same content
    CHECK(read.reports[0].id == reportId(r));
    REQUIRE(read.badLines.size() == 3);
    CHECK(read.badLines[0].first == 2);
    CHECK(read.badLines[1].first == 3);
    CHECK(read.badLines[2].first == 5);
    CHECK(read.badLines[2].second.find("what") != std::string::npos);
    // An append after a last line with no newline starts a line of its own.
    Report other = sample();
    other.what = "another";
    REQUIRE(fileReport(box, other).added);
    read = readReportBox(box);
    CHECK(read.reports.size() == 2);
    CHECK(read.badLines.size() == 3);
}

TEST_CASE("a hostile box is read in bounded memory: an overlong line is a bad line") {
    TempDir tmp;
    const std::string box = tmp / "store/inbox.jsonl";
    Report r = sample();
    REQUIRE(fileReport(box, r).added);
    // A 5 MiB line in the middle, then a report after it.
    appendFile(box,
               "{\"class\":\"field_report\",\"what\":\"" + std::string(5 << 20, 'w') + "\"}\n");
    Report other = sample();
    other.what = "after the long line";
    REQUIRE(fileReport(box, other).added);
    auto read = readReportBox(box);
    REQUIRE(read.reports.size() == 2);
    CHECK(read.reports[1].what == "after the long line");
    REQUIRE(read.badLines.size() == 1);
    CHECK(read.badLines[0].first == 2);
    CHECK(read.badLines[0].second.find("longer than 256 KiB") != std::string::npos);
}

TEST_CASE("readLines hands over every line across buffer edges, cuts overlong ones") {
    TempDir tmp;
    const std::string path = tmp / "lines.txt";
    // Lines that straddle the 64 KiB read buffer, an empty line, a line
    // over the bound and a last line without its newline.
    std::string a(70000, 'a'), b(10, 'b'), c(200000, 'c');
    atomicWrite(path, a + "\n" + b + "\n\n" + c + "\nlast");
    std::vector<FileLine> seen;
    std::vector<std::string> texts;
    REQUIRE(readLines(path, 100000, [&](const FileLine& l) {
        seen.push_back(l);
        texts.emplace_back(l.text);
        return true;
    }));
    REQUIRE(texts.size() == 5);
    CHECK(texts[0] == a);
    CHECK(texts[1] == b);
    CHECK(texts[2].empty());
    CHECK(texts[3] == std::string(100000, 'c'));
    CHECK(seen[3].cut);
    CHECK_FALSE(seen[0].cut);
    CHECK(texts[4] == "last");
    CHECK_FALSE(seen[4].terminated);
    CHECK(seen[3].terminated);
    CHECK(seen[4].number == 5);
    // Stopping early; a missing file and a directory are not read.
    int calls = 0;
    REQUIRE(readLines(path, 100, [&](const FileLine&) { return ++calls < 2; }));
    CHECK(calls == 2);
    CHECK_FALSE(readLines(tmp / "missing", 100, [](const FileLine&) { return true; }));
    CHECK_FALSE(readLines(tmp.path(), 100, [](const FileLine&) { return true; }));
}

} // namespace unit_ReportFileTest
