// Wire shapes declared once (protocol/Shape.h): one field list gives the
// parser, the JSON and the schema, and they agree with each other.
#include "protocol/Shape.h"
#include "model/Claim.h"
#include "ops/Operation.h"
#include "util/Error.h"

#include <catch2/catch.hpp>

// Unlike the other test sources, not in a namespace of its own: it
// specializes engram's templates, which only their own namespace may do.
using namespace engram;
using protocol::json;

namespace {

enum class Colour { Red, Green, Blue };

struct Point {
    int x = 0;
    int y = 0;
};

struct Sample {
    std::string name;
    Colour colour = Colour::Red;
    std::optional<int64_t> size;
    std::vector<std::string> tags;
    std::vector<Point> points;
    std::optional<Point> origin;
    std::string agent;
    bool flag = false;
};

} // namespace

template <>
struct engram::Spelling<Colour> {
    static constexpr std::array values{std::pair{Colour::Red, "red"},
                                       std::pair{Colour::Green, "green"},
                                       std::pair{Colour::Blue, "blue"}};
};

template <>
struct engram::protocol::Shape<Point> {
    static constexpr auto fields = std::tuple{
        field("x", &Point::x),
        field("y", &Point::y),
        computed(
            "sum", +[](const Point& p) { return int64_t(p.x + p.y); }, "x plus y"),
    };
};

template <>
struct engram::protocol::Shape<Sample> {
    static constexpr auto fields = std::tuple{
        field("name", &Sample::name, "What it is called", protocol::Filled::ByCaller, "^[a-z]+$"),
        field("colour", &Sample::colour),
        field("size", &Sample::size, "How big"),
        field("tags", &Sample::tags),
        field("points", &Sample::points),
        field("origin", &Sample::origin),
        field("agent", &Sample::agent, "Who", protocol::Filled::BySurface),
        field("flag", &Sample::flag),
    };
};

namespace {

// The InvalidParams message fromJson gives for `input`, or "" when it parses.
std::string refusal(const json& input) {
    try {
        protocol::fromJson<Sample>(input);
        return "";
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::InvalidParams);
        return e.what();
    }
}

const json kMinimal = {{"name", "a"}, {"colour", "green"}, {"agent", "t:x"}, {"flag", false}};

json with(json base, const std::string& key, json value) {
    base[key] = std::move(value);
    return base;
}

} // namespace

TEST_CASE("a shape's schema: types, descriptions, patterns, enums, and what is required",
          "[shape]") {
    json s = protocol::schemaOf<Sample>();
    CHECK(s["type"] == "object");
    json p = s["properties"];
    CHECK(p["name"] ==
          json{{"type", "string"}, {"description", "What it is called"}, {"pattern", "^[a-z]+$"}});
    CHECK(p["colour"] == json{{"type", "string"}, {"enum", {"red", "green", "blue"}}});
    CHECK(p["size"] == json{{"type", "integer"}, {"description", "How big"}});
    CHECK(p["tags"] == json{{"type", "array"}, {"items", {{"type", "string"}}}});
    CHECK(p["points"]["items"]["properties"]["sum"] ==
          json{{"type", "integer"}, {"description", "x plus y"}});
    CHECK(p["points"]["items"]["required"] == json{"x", "y", "sum"});
    CHECK(p["origin"]["type"] == "object");
    CHECK(p["flag"] == json{{"type", "boolean"}});
    // Optional members, lists (absent is empty) and what the surface fills
    // in are not required of a caller...
    CHECK(s["required"] == json{"name", "colour", "flag"});
    // ...but an answer always holds every member that is not optional.
    json out = protocol::schemaOf<Sample>(protocol::Side::Output);
    CHECK(out["required"] == json{"name", "colour", "tags", "points", "agent", "flag"});
    CHECK(out["properties"]["points"]["items"]["required"] == json{"x", "y", "sum"});
}

TEST_CASE("a shape's parser: types and required members, errors naming the field path", "[shape]") {
    CHECK(refusal(kMinimal) == "");
    Sample ok = protocol::fromJson<Sample>(
        with(with(kMinimal, "size", 7), "points", json::array({{{"x", 1}, {"y", 2}}})));
    CHECK(ok.name == "a");
    CHECK(ok.colour == Colour::Green);
    CHECK(ok.size == 7);
    CHECK(ok.tags.empty());
    REQUIRE(ok.points.size() == 1);
    CHECK(ok.points[0].y == 2);
    CHECK_FALSE(ok.origin.has_value());

    json missing = kMinimal;
    missing.erase("name");
    CHECK(refusal(missing) == "name: is required");
    // The surface's member is required by the parser all the same.
    json noAgent = kMinimal;
    noAgent.erase("agent");
    CHECK(refusal(noAgent) == "agent: is required");
    // null is absent.
    CHECK(refusal(with(kMinimal, "name", nullptr)) == "name: is required");
    CHECK(refusal(with(kMinimal, "name", 3)) == "name: expected a string, got a number");
    CHECK(refusal(with(kMinimal, "colour", "mauve")) == "colour: must be red, green or blue");
    CHECK(refusal(with(kMinimal, "size", 1.5)) == "size: expected an integer, got a number");
    CHECK(refusal(with(kMinimal, "tags", json::array({"a", 2}))) ==
          "tags[1]: expected a string, got a number");
    CHECK(refusal(with(kMinimal, "points", json::array({{{"x", 1}}}))) ==
          "points[0].y: is required");
    CHECK(refusal(with(kMinimal, "origin", json{{"x", 1}, {"y", "2"}})) ==
          "origin.y: expected an integer, got a string");
    CHECK(refusal(with(kMinimal, "origin", json{{"x", int64_t(1) << 40}, {"y", 1}})) ==
          "origin.x: is out of range");
    CHECK(refusal(with(kMinimal, "flag", "yes")) == "flag: expected a boolean, got a string");
    CHECK(refusal(json::array()) == "params: expected an object, got an array");
    // Unknown members are ignored: newer clients talk to older servers.
    CHECK(refusal(with(kMinimal, "future", 1)) == "");
}

TEST_CASE("a shape's JSON: optional members only when set, computed ones always, and it parses "
          "back to what it was",
          "[shape]") {
    Sample s;
    s.name = "b";
    s.colour = Colour::Blue;
    s.agent = "t:y";
    s.points = {{3, 4}};
    json j = protocol::toJson(s);
    CHECK(j == json{{"name", "b"},
                    {"colour", "blue"},
                    {"tags", json::array()},
                    {"points", {{{"x", 3}, {"y", 4}, {"sum", 7}}}},
                    {"agent", "t:y"},
                    {"flag", false}});
    s.size = 9;
    s.origin = Point{1, 1};
    j = protocol::toJson(s);
    CHECK(j["size"] == 9);
    CHECK(j["origin"]["sum"] == 2);
    Sample back = protocol::fromJson<Sample>(j);
    CHECK(protocol::toJson(back) == j);
}

TEST_CASE("learn's verdict is an enumeration declared once: parser, schema and message agree",
          "[shape]") {
    const ops::Operation* learn = ops::byName("learn");
    REQUIRE(learn);
    CHECK(learn->input()["properties"]["verdict"]["enum"] == json{"correct", "wrong", "partial"});
    CHECK(learn->input()["required"] == json{"id", "verdict"});
    CHECK(spellingList<Verdict>() == "correct, wrong or partial");
    CHECK(unspell<Verdict>("partial") == Verdict::Partial);
    CHECK_FALSE(unspell<Verdict>("maybe").has_value());
    ops::Call call;
    call.bind = []() -> Engine& { throw std::logic_error("a refused call binds no engine"); };
    try {
        learn->run(call, {{"id", "c-000000000000"}, {"verdict", "maybe"}, {"agent", "t:x"}});
        FAIL("a verdict that is none of them was accepted");
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::InvalidParams);
        CHECK(std::string(e.what()) == "verdict: must be correct, wrong or partial");
    }
}
