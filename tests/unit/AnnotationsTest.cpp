// The tests' annotated-text helper (support/Annotations.h): what a test
// reads from it must be where the markers stood, or every position a test
// asserts through it would be off together.
#include "support/Annotations.h"

#include <catch2/catch.hpp>
#include <stdexcept>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_AnnotationsTest {

using engram::test::Annotations;

TEST_CASE("annotations: markers come out, points and ranges are where they stood",
          "[annotations]") {
    Annotations a("def $f[[fetch]](url):\n    return ^get(url)\n[[x = 1]]\n");
    CHECK(a.code() == "def fetch(url):\n    return get(url)\nx = 1\n");

    auto f = a.range("f");
    CHECK(f.begin.line == 0);
    CHECK(f.begin.column == 4);
    CHECK(f.end.line == 0);
    CHECK(f.end.column == 9);
    CHECK(a.text(f) == "fetch");

    auto p = a.point();
    CHECK(p.line == 1);
    CHECK(p.column == 11);
    CHECK(p.line1() == 2);
    CHECK(a.code().substr(p.offset, 3) == "get");

    auto whole = a.range();
    CHECK(whole.begin.line == 2);
    CHECK(whole.begin.column == 0);
    CHECK(a.text(whole) == "x = 1");
}

TEST_CASE("annotations: nested and repeated marks, and text that only looks like one",
          "[annotations]") {
    Annotations a("[[a $in[[b]] c]] ^x ^y echo $HOME");
    CHECK(a.code() == "a b c x y echo $HOME");
    CHECK(a.text(a.range()) == "a b c");
    CHECK(a.text(a.range("in")) == "b");
    REQUIRE(a.points().size() == 2);
    CHECK(a.points()[0].column == 6);
    CHECK(a.points()[1].column == 8);
    // Two unnamed points: asking for the one is a mistake in the test.
    CHECK_THROWS_AS(a.point(), std::out_of_range);
    CHECK_THROWS_AS(a.range("missing"), std::out_of_range);
}

TEST_CASE("annotations: an unclosed or stray bracket is refused", "[annotations]") {
    CHECK_THROWS_AS(Annotations("[[open"), std::invalid_argument);
    CHECK_THROWS_AS(Annotations("close]]"), std::invalid_argument);
}

} // namespace unit_AnnotationsTest
