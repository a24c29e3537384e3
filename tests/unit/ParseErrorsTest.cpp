// Parse errors are contained: an error in one place of a file takes no
// definition outside its own statement with it, in any grammar. Each case
// puts an error before definitions of a fixture (without containment, the
// grammar's recovery swallows what follows it) and finds every other
// definition with the digests it has in the file without the error.
#include "support/LanguageCases.h"
#include "syntax/Symbols.h"

#include <catch2/catch.hpp>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_ParseErrorsTest {

using namespace engram;
using namespace engram::test;

namespace {

struct Break {
    std::string lang, file; // under fixtures/languages/<lang>/
    std::string before;     // the error goes before this text
    std::string error;
    std::string holder; // the definition the error lands in, if any
};

// Every definition of `clean` but `holder` is in `broken`, with the same
// name, kind, signature and digests, and no error of its own; `holder`
// is there too, saying it holds the error.
void checkContained(const std::string& lang, const std::string& clean, const std::string& broken,
                    const std::string& holder) {
    auto before = syntax::extractSymbols(lang, clean);
    auto after = syntax::extractSymbols(lang, broken);
    REQUIRE_FALSE(before.empty());
    for (const auto& s : before) {
        INFO(lang << ": " << syntax::writtenName(s));
        const syntax::Symbol* found = nullptr;
        for (const auto& t : after)
            if (t.qualified == s.qualified && t.kind == s.kind && t.signature == s.signature &&
                t.ordinal == s.ordinal)
                found = &t;
        REQUIRE(found);
        if (s.qualified == holder) {
            CHECK(found->hasError);
            continue;
        }
        CHECK_FALSE(found->hasError);
        CHECK(found->hash == s.hash);
        CHECK(found->shapeHash == s.shapeHash);
        CHECK(found->headHash == s.headHash);
        CHECK(found->tokenHash == s.tokenHash);
    }
}

// The generic call signatures tree-sitter-typescript misreads, as a
// TypeScript and a TSX file have them.
const std::string kCallSignatures = "export interface Fetch {\n"
                                    "  (): Promise<Row>\n"
                                    "\n"
                                    "  <A = {}, B = {}>(\n"
                                    "    key: A,\n"
                                    "  ): Promise<Row & B>\n"
                                    "\n"
                                    "  <A = {}, B = {}>(\n"
                                    "    key: A | null,\n"
                                    "  ): Promise<Row | B>\n"
                                    "}\n\n";

void checkBreak(const Break& b) {
    std::string clean = readFixture(fixturesDir() + "/languages/" + b.lang + "/" + b.file);
    INFO(b.lang << ": " << b.error);
    std::string broken = apply(clean, {b.before, b.error + b.before});
    checkContained(b.lang, clean, broken, b.holder);
}

} // namespace

TEST_CASE("an error at the top level takes no symbol after it along, in every grammar",
          "[symbols]") {
    const std::vector<Break> breaks = {
        {"python", "token_validator.py", "def constant_time_equal", "values = [1, 2\n\n\n", ""},
        {"javascript", "session.js", "export function parseCookie",
         "const pending = compute(1, 2\n\n", ""},
        {"typescript", "rateLimiter.ts", "export abstract class Limiter", kCallSignatures, ""},
        {"tsx", "SessionBadge.tsx", "export const SessionBadge", kCallSignatures, ""},
        {"go", "server.go", "type Server struct", "var table = map[string]int{\n\t\"a\": 1,\n\n",
         ""},
        {"rust", "lru.rs", "pub struct LruCache", "const TABLE: [i32; 2] = [1, 2\n\n", ""},
        {"java", "TokenValidator.java", "public class TokenValidator",
         "class Broken {\n    void check() {\n\n", ""},
        {"c", "ring_buffer.c", "void ring_init",
         "int broken(void) {\n    if (x) {\n        return 1;\n}\n\n", ""},
        {"cpp", "config_parser.cpp", "bool Parser::parse", "static int table[] = {1, 2;\n\n",
         "engram::config"},
    };
    for (const auto& b : breaks)
        DYNAMIC_SECTION(b.lang) {
            checkBreak(b);
        }
}

TEST_CASE("an error in a class member takes no other member's symbol along, in every grammar "
          "with classes",
          "[symbols]") {
    const std::vector<Break> breaks = {
        {"python", "token_validator.py", "    def validate",
         "    def broken(self):\n        return [1, 2\n\n", "TokenValidator"},
        {"javascript", "session.js", "  put(session) {",
         "  broken() {\n    return compute(1, 2\n  }\n\n", "SessionStore"},
        {"typescript", "rateLimiter.ts", "  private refill(",
         "  broken(): number {\n    if (ready) {\n  }\n\n", "TokenBucket"},
        {"tsx", "SessionBadge.tsx", "  render()", "  broken() {\n    return compute(1, 2\n  }\n\n",
         "BadgeList"},
        {"rust", "lru.rs", "    pub fn get",
         "    fn broken(&self) -> i32 {\n        if ready {\n    }\n\n", "impl LruCache"},
        {"java", "TokenValidator.java", "    public boolean validate",
         "    void broken() {\n        if (ready) {\n    }\n\n", "TokenValidator"},
    };
    for (const auto& b : breaks)
        DYNAMIC_SECTION(b.lang) {
            checkBreak(b);
        }
}

TEST_CASE("generic call signatures on their own lines, which the TypeScript grammar misreads, "
          "are read as TypeScript reads them",
          "[symbols]") {
    // The same file with each member ended by a semicolon reads cleanly:
    // every definition, the interface too, has its digests there, and none
    // holds an error.
    std::string broken = readFixture(fixturesDir() + "/recovery/call-signatures.ts");
    std::string clean = broken;
    for (const std::string end :
         {"  (): Promise<Record<Key, unknown>>\n", "  ): Promise<Shape & Extra>\n",
          "  ): Promise<Shape | undefined>\n"})
        clean = apply(clean, {end, end.substr(0, end.size() - 1) + ";\n"});
    for (const std::string lang : {"typescript", "tsx"}) {
        INFO(lang);
        for (const auto& s : syntax::extractSymbols(lang, clean))
            CHECK_FALSE(s.hasError);
        checkContained(lang, clean, broken, "");
        syntax::Spans unreadable;
        auto symbols = syntax::extractSymbols(lang, broken, {}, &unreadable);
        CHECK(unreadable.empty());
        auto found = syntax::resolveSymbol(symbols, "withRetries");
        REQUIRE(found.size() == 1);
        CHECK(symbols[found[0]].startLine == 20);
        // The interface runs to its own closing brace, so a change in its
        // last signature is a change of the interface (cut at its first
        // generic signature, as the grammar reads it, the change went unseen).
        auto fetcher = syntax::resolveSymbol(symbols, "Fetcher");
        REQUIRE(fetcher.size() == 1);
        CHECK(symbols[fetcher[0]].endLine == 18);
        auto edited = syntax::extractSymbols(
            lang, apply(broken, {"  ): Promise<Shape | undefined>", "  ): Promise<Shape | null>"}));
        auto after = syntax::resolveSymbol(edited, "Fetcher");
        REQUIRE(after.size() == 1);
        CHECK(edited[after[0]].hash != symbols[fetcher[0]].hash);
        CHECK(edited[after[0]].tokenHash != symbols[fetcher[0]].tokenHash);
    }
    // In an object type too, where the grammar breaks the signature before
    // rather than closing the body.
    const std::string objectType = "type Fetch = {\n"
                                   "  (): Promise<Row>\n"
                                   "  <A = {}>(key: A): Promise<Row & A>\n"
                                   "}\n";
    auto plain = syntax::extractSymbols("typescript",
                                        apply(objectType, {"Promise<Row>\n", "Promise<Row>;\n"}));
    syntax::Spans unreadable;
    auto read = syntax::extractSymbols("typescript", objectType, {}, &unreadable);
    CHECK(unreadable.empty());
    REQUIRE(read.size() == 1);
    REQUIRE(plain.size() == 1);
    CHECK_FALSE(read[0].hasError);
    CHECK(read[0].hash == plain[0].hash);
}

// A separator is written only where it leaves less of the file in errors:
// a `<` starting a line in JSX, or in a file broken elsewhere, is left as
// it is.
TEST_CASE("a separator written for a generic call signature never changes other code",
          "[symbols]") {
    const std::string jsx = "export function Badge() {\n"
                            "  const x = compute(1, 2\n"
                            "  return (\n"
                            "    <div>\n"
                            "      <span>{x}</span>\n"
                            "    </div>\n"
                            "  )\n"
                            "}\n"
                            "\n"
                            "export const after = () => 1\n";
    auto symbols = syntax::extractSymbols("tsx", jsx);
    auto again = syntax::extractSymbols(
        "tsx", apply(jsx, {"    <div>\n      <span>", "    <div>\n     ;<span>"}));
    auto badge = syntax::resolveSymbol(symbols, "Badge");
    auto badgeAgain = syntax::resolveSymbol(again, "Badge");
    REQUIRE(badge.size() == 1);
    REQUIRE(badgeAgain.size() == 1);
    // Had a separator been written over the blank before `<span>`, the file
    // with a `;` written there would digest the same.
    CHECK(symbols[badge[0]].hash != again[badgeAgain[0]].hash);
    REQUIRE(syntax::resolveSymbol(symbols, "after").size() == 1);
}

TEST_CASE("an open document with a contained error has the symbols a fresh parse gives",
          "[symbols]") {
    std::string text = readFixture(fixturesDir() + "/languages/python/token_validator.py");
    syntax::Document doc("python", text);
    REQUIRE(doc.symbols().size() == syntax::extractSymbols("python", text).size());
    const size_t at = text.find("def constant_time_equal");
    const std::string error = "values = [1, 2\n\n\n";
    doc.edit(uint32_t(at), uint32_t(at), error);
    text.insert(at, error);
    auto fresh = syntax::extractSymbols("python", text);
    const auto& edited = doc.symbols();
    REQUIRE(edited.size() == fresh.size());
    for (size_t i = 0; i < fresh.size(); ++i) {
        CHECK(edited[i].qualified == fresh[i].qualified);
        CHECK(edited[i].hash == fresh[i].hash);
        CHECK(edited[i].startLine == fresh[i].startLine);
    }
    // Closing the bracket again takes the file back to its own symbols.
    doc.edit(uint32_t(at + 13), uint32_t(at + 13), "]");
    text.insert(at + 13, "]");
    auto closed = syntax::extractSymbols("python", text);
    REQUIRE(doc.symbols().size() == closed.size());
    for (size_t i = 0; i < closed.size(); ++i)
        CHECK(doc.symbols()[i].hash == closed[i].hash);
}

// Found by fuzzing (fixtures/fuzz/symbols-python/regression-error-recovery-reuse):
// after an edit above it, `split` (its parameter list broken) kept the digest
// of the tree before the edit although the re-parse had recovered from its
// error differently. A definition holding an error is never taken over from
// the earlier extraction: it is walked again.
TEST_CASE("an edit gives a definition holding an error the digests its tree gives", "[symbols]") {
    std::string text = readFixture(fixturesDir() + "/recovery/broken-parameters.py");
    REQUIRE(text.find("def split(to{en)") != std::string::npos);
    syntax::Document doc("python", text);
    REQUIRE_FALSE(doc.symbols().empty());
    doc.edit(296, 300, "x = 1\n");
    auto walked = doc.walkAfresh();
    const auto& edited = doc.symbols();
    REQUIRE(edited.size() == walked.size());
    for (size_t i = 0; i < walked.size(); ++i) {
        INFO(walked[i].qualified);
        CHECK(edited[i].qualified == walked[i].qualified);
        CHECK(edited[i].hash == walked[i].hash);
        CHECK(edited[i].tokenHash == walked[i].tokenHash);
        CHECK(edited[i].startByte == walked[i].startByte);
    }
}

} // namespace unit_ParseErrorsTest
