// What an anchor names and finds again (fixtures/identity/): every form of
// definition anchored from its first line and from a line inside it; one of
// several same-named definitions (overloads, trait impls, methods of
// anonymous classes and enum-constant bodies, callbacks, twins under a
// condition, identical copies) found again as itself while its twin
// changes, and drifted when it changes itself; an edit that leaves twins
// impossible to tell apart reported as such; the names users write; and the
// psf/requests-style rewrites black makes left unseen.
#include "engine/Anchoring.h"
#include "support/LanguageCases.h"
#include "support/TempDir.h"
#include "syntax/Symbols.h"
#include "util/Error.h"

#include <catch2/catch.hpp>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_IdentityTest {

using namespace engram;
using namespace engram::test;

namespace {

std::string identityFixture(const std::string& name) {
    return readFixture(fixturesDir() + "/identity/" + name);
}

// A workspace holding one fixture, and the Anchorer engram checks claims with.
struct Workspace {
    TempDir root;
    std::string rel, original;
    Anchorer anchorer{root.path()};

    explicit Workspace(const std::string& fixture)
        : rel("src/" + fixture)
        , original(identityFixture(fixture)) {
        root.write(rel, original);
    }
    Anchor atLine(int line) { return anchorer.resolve(AnchorSpec{.path = rel, .line = line}, "a"); }
    Anchor named(const std::string& symbol) {
        return anchorer.resolve(AnchorSpec{.path = rel, .symbol = symbol}, "a");
    }
    // The 1-based line holding `snippet` (its first occurrence).
    int lineOf(const std::string& snippet) const {
        auto at = original.find(snippet);
        REQUIRE(at != std::string::npos);
        return 1 + int(std::count(original.begin(), original.begin() + ptrdiff_t(at), '\n'));
    }
    // The file with the `nth` (0-based) occurrence of `from` replaced.
    void edit(const std::string& from, const std::string& to, int nth = 0) {
        std::string text = original;
        size_t at = text.find(from);
        for (int k = 0; k < nth && at != std::string::npos; ++k)
            at = text.find(from, at + 1);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
        root.write(rel, text);
    }
    void restore() { root.write(rel, original); }
    std::string state(const Anchor& a) { return anchorer.check(a).state; }
};

struct Form {
    std::string fixture;
    // A line (by a snippet on it) and the definition it must designate.
    std::vector<std::pair<std::string, std::string>> lines;
};

} // namespace

TEST_CASE("every form of definition anchors from its first line and from a line inside it",
          "[identity]") {
    const std::vector<Form> forms = {
        {"forms.py",
         {{"@functools.lru_cache", "cached"},
          {"def cached(n):", "cached"},
          {"return n * 2", "cached"},
          {"async def fetch", "fetch"},
          {"@property", "Handler.name"},
          {"@name.setter", "Handler.name"},
          {"normalise = lambda", "normalise"}}},
        {"forms.js",
         {{"export function parse", "parse"},
          {"return text.trim()", "parse"},
          {"export default function", "default"},
          {"export const twice", "twice"},
          {"const Session = class", "Session"},
          {"get user()", "Session.user"},
          {"res.send = function send", "res.send"},
          {"app.get(\"/users\"", "get(\"/users\")"},
          {"res.json([])", "get(\"/users\")"}}},
        {"forms.ts",
         {{"export abstract class Repo", "Repo"},
          {"@cached()", "Repo.load"},
          {"async load(id", "Repo.load"},
          {"protected abstract fetch", "Repo.fetch"},
          {"export type Id", "Id"},
          {"export enum Mode", "Mode"},
          {"export namespace Limits", "Limits"},
          {"export const max", "Limits.max"},
          {"declare global", "global"},
          {"interface Window", "global.Window"}}},
        {"forms.tsx",
         {{"export default function App", "App"},
          {"export const Badge", "Badge"},
          {"const onClick = React.useCallback", "Badge"},
          {"interface Props", "Props"}}},
        {"forms.c",
         {{"#define MAX_WBITS", "MAX_WBITS"},
          {"void ZLIB_INTERNAL z_error", "z_error"},
          {"local int ZLIB_INTERNAL", "zmemcmp"},
          {"zmemcmp(const unsigned char", "zmemcmp"},
          // Two definitions on one line: the line names the one named on it;
          // a cursor there is in the outer one (`typedef`), or in the struct
          // its `}` closes.
          {"typedef struct ct_data_s", "!ct_data_s"},
          {"} ct_data;", "!ct_data"}}},
        {"forms.cpp",
         {{"FMT_BEGIN_NAMESPACE\n", "detail"},
          {"template <typename T>", "detail::clamp"},
          {"[[nodiscard]]", "detail::clamp"},
          {"FMT_FUNC void report", "detail::report"},
          {"auto square", "detail::square"}}},
        {"forms.go",
         {{"// Clamp keeps", ""}, // a comment before a definition is no part of it
          {"func Clamp(", "Clamp"},
          {"Point struct", "Point"},
          {"Area() float64", "Shape.Area"},
          {"check := func", "TestClamp.check"},
          {"t.Run(\"below\"", "TestClamp.Run(\"below\")"}}},
        {"forms.rs",
         {{"#[derive(Debug, Clone)]", "Point"},
          {"pub struct Point", "Point"},
          {"impl Point {", "impl Point"},
          {"#[inline]", "Point::new"},
          {"impl fmt::Display for Point", "impl fmt::Display for Point"},
          {"fn fmt(", "<Point as fmt::Display>::fmt"},
          {"let pad", "<Point as fmt::Display>::fmt::pad"},
          {"#[cfg(test)]", "tests"},
          {"#[test]", "tests::builds"},
          {"macro_rules! point", "point"}}},
        {"Forms.java",
         {{"@Deprecated", "Forms.twice"},
          {"public static int twice", "Forms.twice"},
          {"private final IntUnaryOperator square", "Forms.square"},
          {"public record Pair", "Forms.Pair"},
          {"public Pair {", "Forms.Pair.Pair"}}},
    };
    for (auto& form : forms) {
        Workspace ws(form.fixture);
        for (auto& [snippet, expected] : form.lines) {
            INFO(form.fixture << ": the line of '" << snippet << "'");
            int line = ws.lineOf(snippet);
            if (expected.empty()) {
                CHECK_THROWS_AS(ws.atLine(line), EngramError);
                continue;
            }
            bool lineOnly = expected.front() == '!';
            std::string want = lineOnly ? expected.substr(1) : expected;
            CHECK(ws.atLine(line).symbol == want);
            if (lineOnly) continue;
            // An editor's cursor in the indentation of that line.
            auto cursor =
                ws.anchorer.resolve(AnchorSpec{.path = ws.rel, .line = line, .column = 0}, "a");
            CHECK(cursor.symbol == want);
        }
    }
}

TEST_CASE("a claim on one of two overloads stays intact while the other changes, and drifts when "
          "it changes itself",
          "[identity]") {
    struct Overloads {
        std::string fixture, first, second; // a snippet of each overload's body
        std::string anchoredName;           // what the claim on the second is anchored to
    };
    const std::vector<Overloads> all = {
        {"Gson.java", "return toJson(src, src.getClass());", "write(src, type, out);",
         "Gson.toJson"},
        {"buffer.cpp", "return a + b;", "return a + sep + b;", "demo::join"},
        {"buffer.cpp", "int& at(std::size_t i) { return data_[i]; }",
         "const int& at(std::size_t i) const { return data_[i]; }", "demo::Buffer::at"},
        {"overloads.ts", "at(hour: number): string;", "at(hour: number, minute: number): string;",
         "Clock.at"},
        {"overloads.ts", "get(key: string): string;", "get(key: string, fallback: string): string;",
         "Store.get"},
    };
    for (auto& o : all) {
        INFO(o.fixture << ": " << o.anchoredName);
        Workspace ws(o.fixture);
        Anchor first = ws.atLine(ws.lineOf(o.first));
        Anchor second = ws.atLine(ws.lineOf(o.second));
        REQUIRE(first.symbol == o.anchoredName);
        REQUIRE(second.symbol == o.anchoredName);
        REQUIRE(first.head != second.head); // told apart by their parameters
        auto before = ws.anchorer.check(second).range;
        REQUIRE(before);
        // The first changes: the claim on the second is intact, the one on the
        // first drifts, each found where it is.
        std::string firstEdited = o.first;
        firstEdited.insert(firstEdited.find(';') == std::string::npos ? firstEdited.size() - 1
                                                                      : firstEdited.find(';'),
                           " /*x*/ + 0");
        if (o.fixture == "overloads.ts")
            firstEdited = o.first.substr(0, o.first.size() - 1) + " | undefined;";
        ws.edit(o.first, firstEdited);
        CHECK(ws.state(second) == "intact");
        CHECK(ws.state(first) == "drifted");
        auto again = ws.anchorer.check(second);
        REQUIRE(again.range);
        CHECK(again.range->startLine == before->startLine); // the second, not its twin
        ws.restore();
        CHECK(ws.state(first) == "intact");
        CHECK(ws.state(second) == "intact");
        // The second changes itself.
        std::string secondEdited = o.second;
        if (o.fixture == "overloads.ts")
            secondEdited = o.second.substr(0, o.second.size() - 1) + " | undefined;";
        else
            secondEdited.insert(secondEdited.find(';'), " + 0");
        ws.edit(o.second, secondEdited);
        CHECK(ws.state(second) == "drifted");
        CHECK(ws.state(first) == "intact");
    }
}

TEST_CASE("trait impls, anonymous classes, enum-constant bodies and callbacks each have a name of "
          "their own",
          "[identity]") {
    struct Twins {
        std::string fixture, aSnippet, aEdit, bSnippet, bEdit, aName, bName;
    };
    const std::vector<Twins> all = {
        {"value.rs", "write!(f, \"{}\", self.raw)", "write!(f, \"<{}>\", self.raw)",
         "write!(f, \"Value({:?})\", self.raw)", "write!(f, \"V({:?})\", self.raw)",
         "<Value as fmt::Display>::fmt", "<Value as fmt::Debug>::fmt"},
        {"Gson.java", "return Integer.compare(a.length(), b.length());",
         "return Integer.compare(b.length(), a.length());", "return a.compareTo(b);",
         "return b.compareTo(a);", "Gson.BY_LENGTH.compare", "Gson.BY_NAME.compare"},
        {"Gson.java", "return name;", "return name.trim();", "return name.toUpperCase();",
         "return name.toLowerCase();", "Gson.Policy.IDENTITY.translate",
         "Gson.Policy.UPPER.translate"},
        {"parse.test.ts", "const setup = () => \"42\";", "const setup = () => \"43\";",
         "const setup = () => \"101\";", "const setup = () => \"111\";",
         "describe(\"parse\").setup", "describe(\"parse with a radix\").setup"},
        {"parse.test.ts", "expect(parse(\"ff\", 16)).toBe(255);",
         "expect(parse(\"fe\", 16)).toBe(254);", "expect(parse(setup(), 2)).toBe(5);",
         "expect(parse(setup(), 2)).toBe(6);", "describe(\"parse\").it(\"reads hex\")",
         "describe(\"parse with a radix\").it(\"reads binary\")"},
    };
    for (auto& t : all) {
        INFO(t.fixture << ": " << t.aName << " / " << t.bName);
        Workspace ws(t.fixture);
        Anchor a = ws.atLine(ws.lineOf(t.aSnippet));
        Anchor b = ws.atLine(ws.lineOf(t.bSnippet));
        CHECK(a.symbol == t.aName);
        CHECK(b.symbol == t.bName);
        // Each name written by hand resolves to its own definition.
        CHECK(ws.named(t.aName).hash == a.hash);
        CHECK(ws.named(t.bName).hash == b.hash);
        ws.edit(t.aSnippet, t.aSnippet + "\n");
        REQUIRE(ws.state(a) == "intact"); // white space is no change
        ws.edit(t.aSnippet, t.aEdit);
        CHECK(ws.state(a) == "drifted");
        CHECK(ws.state(b) == "intact");
        ws.restore();
        ws.edit(t.bSnippet, t.bEdit);
        CHECK(ws.state(b) == "drifted");
        CHECK(ws.state(a) == "intact");
    }
}

TEST_CASE("twins of one name are told apart by place, and identical copies too", "[identity]") {
    SECTION("twins under a condition: the other twin's edit leaves the claim intact") {
        Workspace ws("pick.js");
        Anchor last = ws.atLine(ws.lineOf("return items[items.length - 1];"));
        CHECK(last.symbol == "pick");
        CHECK(last.ordinal == 2);
        CHECK(last.twins == 2);
        ws.edit("return items[0];", "return items[1];");
        CHECK(ws.state(last) == "intact");
        ws.restore();
        ws.edit("return items[items.length - 1];", "return items[items.length - 2];");
        CHECK(ws.state(last) == "drifted");
        auto c = ws.anchorer.check(last);
        REQUIRE(c.range);
        CHECK(int(c.range->startLine) + 1 == ws.lineOf("} else {") + 1); // the second pick
    }
    SECTION("identical copies: the one at the claim's place is it, changed or not") {
        Workspace ws("handlers.py");
        Anchor second = ws.atLine(ws.lineOf("else:") + 1);
        CHECK(second.symbol == "handler");
        CHECK(second.copies == 2);
        ws.edit("return json.dumps(event)", "return json.dumps(event, indent=2)", 0);
        CHECK(ws.state(second) == "intact");
        ws.restore();
        ws.edit("return json.dumps(event)", "return json.dumps(event, indent=2)", 1);
        CHECK(ws.state(second) == "drifted");
    }
}

TEST_CASE("an edit that leaves twins impossible to tell apart is reported with the candidates",
          "[identity]") {
    Workspace ws("pick.js");
    Anchor last = ws.atLine(ws.lineOf("return items[items.length - 1];"));
    // A third twin arrives and the claimed one changes: which was it?
    std::string text = "function pick(items) {\n  return null;\n}\n" + ws.original;
    size_t at = text.find("items.length - 1");
    text.replace(at, 16, "items.length - 2");
    ws.root.write(ws.rel, text);
    auto c = ws.anchorer.check(last);
    CHECK(c.state == "drifted");
    CHECK_FALSE(c.current);
    CHECK_FALSE(c.range);
    REQUIRE(c.ambiguous.size() == 3);
    CHECK(c.ambiguous[0] == "pick (function, line 1)");
}

TEST_CASE("names users write pick one definition, and a name that fits several lists them",
          "[identity]") {
    Workspace gson("Gson.java");
    CHECK(gson.named("Gson.toJson(Object, Class<?>)").head ==
          gson.atLine(gson.lineOf("public String toJson(Object src, Class<?> type)")).head);
    CHECK(gson.named("toJson(Object)").head ==
          gson.atLine(gson.lineOf("public String toJson(Object src)")).head);
    try {
        gson.named("toJson");
        FAIL("an overloaded name was accepted");
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::AnchorNotFound);
        std::string what = e.what();
        CHECK(what.find("Gson.toJson(Object) (method, line 6)") != std::string::npos);
        CHECK(what.find("Gson.toJson(Object,Class<?>) (method, line 10)") != std::string::npos);
    }
    CHECK(gson.named("BY_NAME.compare").symbol == "Gson.BY_NAME.compare");
    CHECK(gson.named("Policy.UPPER.translate").symbol == "Gson.Policy.UPPER.translate");

    Workspace rs("value.rs");
    CHECK(rs.named("<Value as fmt::Display>::fmt").symbol == "<Value as fmt::Display>::fmt");
    CHECK(rs.named("Debug::fmt").symbol == "<Value as fmt::Debug>::fmt");
    CHECK_THROWS_AS(rs.named("Value::fmt"), EngramError); // Display's or Debug's?
    CHECK(rs.named("impl fmt::Debug for Value").nodeKind == "impl");

    Workspace cpp("buffer.cpp");
    CHECK(cpp.named("Buffer::at(std::size_t) const").head ==
          cpp.atLine(cpp.lineOf("const int& at(")).head);

    Workspace ts("parse.test.ts");
    CHECK(ts.named("it(\"reads hex\")").symbol == "describe(\"parse\").it(\"reads hex\")");
    CHECK(ts.named("describe(\"parse with a radix\").setup").symbol ==
          "describe(\"parse with a radix\").setup");
    CHECK_THROWS_AS(ts.named("setup"), EngramError);
}

TEST_CASE("psf/requests-style code: black's rewrites and a re-split string change no hash",
          "[identity]") {
    // black joins nothing and reflows everything: a parenthesised argument on
    // its own line, parentheses around a split `for` target, `u` prefixes
    // dropped, quotes swapped; and the pieces of an implicit concatenation
    // split elsewhere, the blank on the other side.
    auto original = syntax::extractSymbols("python", identityFixture("requests_style.py"));
    REQUIRE(original.size() == 3);
    for (std::string variant :
         {"requests_style.black.py", "requests_style.black40.py", "requests_style.resplit.py"}) {
        INFO(variant);
        auto other = syntax::extractSymbols("python", identityFixture(variant));
        REQUIRE(other.size() == original.size());
        for (size_t i = 0; i < original.size(); ++i) {
            INFO(original[i].qualified);
            CHECK(other[i].qualified == original[i].qualified);
            CHECK(other[i].hash == original[i].hash);
        }
    }
    // A change to the string's value is a change.
    std::string text = identityFixture("requests_style.resplit.py");
    text.replace(text.find("\" or bytes"), 10, "\"or bytes");
    auto changed = syntax::extractSymbols("python", text);
    CHECK(changed[1].hash != original[1].hash);
}

TEST_CASE("an anchor from before identity was recorded is judged by its digest, with a note",
          "[identity]") {
    Workspace ws("value.rs");
    Anchor a = ws.named("<Value as fmt::Display>::fmt");
    Anchor old = a;
    old.head.clear();
    old.tokens.clear();
    CHECK(ws.state(old) == "intact");
    old.hash = "0123456789abcdef0123456789abcdef"; // what an earlier digest gave
    auto c = ws.anchorer.check(old);
    CHECK(c.state == "drifted");
    CHECK(c.note.find("earlier engram") != std::string::npos);
    CHECK(c.current); // re-verifying re-stamps it with today's digest
}

} // namespace unit_IdentityTest
