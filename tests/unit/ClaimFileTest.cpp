// The claim file format: deterministic writes, tolerant reads, precise errors.
#include "store/ClaimFile.h"

#include <catch2/catch.hpp>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_ClaimFileTest {

using namespace engram;

namespace {

Claim sample() {
    Claim c;
    c.id = "c-abc123";
    c.version = 2;
    c.label = "token-validator-silent";
    c.text = "TokenValidator.validate rejects expired tokens silently;\ncallers must check `.ok`.";
    c.kind = "gotcha";
    c.confidence = 0.85;
    c.created = 1790000000;
    c.updated = 1790000100;
    c.sourceAgent = "claude:maker";
    c.origin = "project:demo";
    c.supersedes = "c-abc123@1";
    c.tags = {"auth", "tokens"};
    c.anchors.push_back(
        {"src/a b.py", "", "", "range", 3, 9, "deadbeef", "", "", 0, 0, 0, "", false});
    c.anchors.push_back({"src/v.py", "TokenValidator.validate", "python", "method", 0, 0, "h1",
                         "s1", "d1", 2, 3, 2, "t1", true});
    c.evidence.push_back({"command", "pytest -k 'token\\n expiry'"});
    c.feedback = {2, 1, 0};
    c.extra = {{"future_field", "kept"}};
    return c;
}

} // namespace

TEST_CASE("a claim survives a write and read unchanged") {
    Claim c = sample();
    std::string text = serializeClaim(c);
    Claim back = parseClaim(text, "c-abc123");
    CHECK(back.id == c.id);
    CHECK(back.version == 2);
    CHECK(back.label == c.label);
    CHECK(back.text == c.text);
    CHECK(back.kind == "gotcha");
    CHECK(*back.confidence == Approx(0.85));
    CHECK(*back.created == 1790000000);
    CHECK(*back.updated == 1790000100);
    CHECK(back.sourceAgent == "claude:maker");
    CHECK(back.supersedes == "c-abc123@1");
    CHECK(back.tags == c.tags);
    REQUIRE(back.anchors.size() == 2);
    CHECK(back.anchors[1].symbol == "TokenValidator.validate");
    CHECK(back.anchors[1].language == "python");
    CHECK(back.anchors[1].shape == "s1");
    CHECK(back.anchors[1].head == "d1");
    CHECK(back.anchors[1].ordinal == 2);
    CHECK(back.anchors[1].twins == 3);
    CHECK(back.anchors[1].copies == 2);
    CHECK(back.anchors[1].tokens == "t1");
    CHECK(back.anchors[1].errors);
    CHECK(back.anchors[0].path == "src/a b.py");
    CHECK(back.anchors[0].startLine == 3);
    CHECK(back.anchors[0].endLine == 9);
    CHECK(back.anchors[0].hash == "deadbeef");
    REQUIRE(back.evidence.size() == 1);
    CHECK(back.evidence[0].value == c.evidence[0].value);
    CHECK(back.feedback.correct == 2);
    CHECK(back.feedback.wrong == 1);
    REQUIRE(back.extra.size() == 1);
    CHECK(back.extra[0].second == "kept");
    // Writing is deterministic: the same claim gives the same bytes.
    CHECK(serializeClaim(back) == text);
}

TEST_CASE("changing one field changes one line of the file") {
    Claim a = sample(), b = sample();
    b.confidence = 0.9;
    std::string ta = serializeClaim(a), tb = serializeClaim(b);
    int differing = 0;
    size_t pa = 0, pb = 0;
    while (pa < ta.size() && pb < tb.size()) {
        size_t ea = ta.find('\n', pa), eb = tb.find('\n', pb);
        if (ta.substr(pa, ea - pa) != tb.substr(pb, eb - pb)) ++differing;
        pa = ea + 1;
        pb = eb + 1;
    }
    CHECK(differing == 1);
}

TEST_CASE("missing provenance stays unknown and unknown keys are ignored") {
    Claim c = parseClaim("---\nsomething_new: 1\n---\nA hand-written note.\n", "c-hand");
    CHECK(c.id == "c-hand");
    CHECK(c.text == "A hand-written note.");
    CHECK(c.status == ClaimStatus::Committed);
    CHECK_FALSE(c.created.has_value());
    CHECK_FALSE(c.confidence.has_value());
    CHECK(c.sourceAgent.empty());
    CHECK(c.kind.empty());
}

TEST_CASE("CRLF line endings from a Windows checkout parse") {
    Claim c = parseClaim("---\r\nid: c-x1\r\nkind: fact\r\n---\r\nText.\r\n", "c-x1");
    CHECK(c.kind == "fact");
    CHECK(c.text == "Text.");
}

TEST_CASE("broken files are reported with the line that broke them") {
    auto lineOf = [](const std::string& contents) {
        try {
            parseClaim(contents, "c-x1");
        } catch (const ClaimFileError& e) {
            return e.line;
        }
        return -1;
    };
    CHECK(lineOf("no header\n") == 1);
    CHECK(lineOf("---\nid: c-x1\nconfidence: lots\n---\ntext\n") == 3);
    CHECK(lineOf("---\nid: c-x1\nstatus: maybe\n---\ntext\n") == 3);
    CHECK(lineOf("---\nid: c-x1\nlabel: a\nlabel: b\n---\ntext\n") == 4);
    CHECK(lineOf("---\nid: c-x1\njust words\n---\ntext\n") == 3);
    CHECK(lineOf("---\nid: c-x1\ncreated: yesterday\n---\ntext\n") == 3);
    CHECK(lineOf("---\nid: c-x1\n") == 3);                    // header never closed
    CHECK(lineOf("---\nid: c-x1\n---\n\n") > 0);              // no text
    CHECK(lineOf("---\nid: c-other\n---\ntext\n") == 2);      // id does not match file name
    CHECK(lineOf("---\nanchor: symbol=x\n---\ntext\n") == 2); // anchor without path
    // A key of blanks (found by fuzzing: it was kept as an unknown field and
    // written back as ": x", which then did not parse).
    CHECK(lineOf("---\nid: c-x1\n\r: x\n---\ntext\n") == 3);
    CHECK(lineOf("---\nid: c-x1\n \t : x\n---\ntext\n") == 3);
}

TEST_CASE("header values with line breaks and backslashes are escaped") {
    CHECK(unescapeValue(escapeValue("a\\b\nc\rd\te")) == "a\\b\nc\rd\te");
    CHECK(escapeValue("x\ny").find('\n') == std::string::npos);
}

TEST_CASE("a value's outer spaces survive a write and a read (found by fuzzing)") {
    // A hand-written "\ x" is the value " x"; it was written back as
    // "key:  x", which reads as "x": a second write changed the file.
    Claim c = parseClaim("---\nid: c-x1\nnote: \\ spaced \\ \n---\ntext\n", "c-x1");
    REQUIRE(c.extra.size() == 1);
    CHECK(c.extra[0].second == " spaced  ");
    std::string once = serializeClaim(c);
    Claim again = parseClaim(once, "c-x1");
    CHECK(again.extra == c.extra);
    CHECK(serializeClaim(again) == once);
    CHECK(unescapeValue(escapeValue(" a b ")) == " a b ");
    CHECK(escapeValue("a b") == "a b"); // inner spaces as they are
}

TEST_CASE("a lone carriage return before the text is kept, not trimmed (found by fuzzing)") {
    // "\r<<<<<<<" is not a conflict marker; trimming the '\r' made the
    // text start with one, so the claim written back read as a conflict.
    Claim c = parseClaim("---\nid: c-x1\n---\n\r\r<<<<<<<\nbody\n", "c-x1");
    CHECK(c.text == "\r\r<<<<<<<\nbody");
    CHECK_FALSE(c.unmerged);
    std::string once = serializeClaim(c);
    Claim again = parseClaim(once, "c-x1");
    CHECK(again.text == c.text);
    CHECK(serializeClaim(again) == once);
    // Whole blank lines before the text still go, in either line ending.
    CHECK(parseClaim("---\nid: c-x1\n---\n\n\r\ntext\n", "c-x1").text == "text");
}

TEST_CASE("confidence is written with at most three decimals, trailing zeros trimmed") {
    CHECK(formatConfidence(0.9) == "0.9");
    CHECK(formatConfidence(1.0) == "1");
    CHECK(formatConfidence(0.12345) == "0.123");
    CHECK(formatConfidence(0) == "0");
}

TEST_CASE("an anchor's digest rules version is written last and read tolerantly") {
    Claim c = sample();
    c.anchors[1].rules = 1;
    std::string text = serializeClaim(c);
    CHECK(text.find(" tokens=t1 errors=1 rules=1\n") != std::string::npos);
    CHECK(parseClaim(text, "c-abc123").anchors[1].rules == 1);
    // Written before versions: no attribute, rules unknown (0).
    CHECK(text.find("path=src/a%20b.py kind=range lines=3-9 hash=deadbeef\n") != std::string::npos);
    CHECK(parseClaim(text, "c-abc123").anchors[0].rules == 0);
    // A value this engram cannot read leaves the rules unknown rather than
    // refusing the file: judged as an anchor from before versions.
    for (const char* bad : {"rules=two", "rules=0", "rules=-3", "rules="}) {
        std::string edited = text;
        edited.replace(edited.find("rules=1"), 7, bad);
        CHECK(parseClaim(edited, "c-abc123").anchors[1].rules == 0);
    }
}

} // namespace unit_ClaimFileTest
