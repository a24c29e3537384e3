// Unit tests for the tokenizer, Porter2 stemmer and stop list (server/text).
//
// Every indexed claim and every query goes through these functions, and both sides
// must agree term for term, so the tests pin exact terms, byte offsets and
// colocation flags rather than loose properties. The stemmer pairs are Porter2
// reference outputs; a wrong step or a broken exception list changes several.
#include "text/Generic.h"
#include "text/Tokenize.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_TextTest {

using engram::text::isStopword;
using engram::text::stem;
using engram::text::terms;
using engram::text::Token;
using engram::text::tokenize;

namespace {

std::vector<Token> tokens(std::string_view text) {
    std::vector<Token> out;
    tokenize(text, [&](const Token& t) { out.push_back(t); });
    return out;
}

// "term begin-end", with " +" for a colocated token: one string per token so a
// failing comparison prints the whole stream readably.
std::vector<std::string> describe(std::string_view text) {
    std::vector<std::string> out;
    for (const Token& t : tokens(text)) {
        out.push_back(t.term + " " + std::to_string(t.begin) + "-" + std::to_string(t.end) +
                      (t.colocated ? " +" : ""));
    }
    return out;
}

using Strings = std::vector<std::string>;

} // namespace

TEST_CASE("stem matches Porter2 reference outputs", "[text][stem]") {
    struct Pair {
        const char* word;
        const char* expected;
    };
    const Pair pairs[] = {
        // from the brief and the published algorithm description
        {"consign", "consign"},
        {"consigned", "consign"},
        {"consistency", "consist"},
        {"generously", "generous"},
        {"running", "run"},
        {"happily", "happili"},
        {"caresses", "caress"},
        {"ponies", "poni"},
        {"communication", "communic"},
        {"generate", "generat"},
        {"argument", "argument"},
        {"knightly", "knight"},
        {"hopefully", "hope"},
        {"relational", "relat"},
        {"conditional", "condit"},
        {"validation", "valid"},
        {"validator", "valid"},
        {"tokens", "token"},
        {"expired", "expir"},
        {"expires", "expir"},
        // step 1a
        {"cries", "cri"},
        {"ties", "tie"},
        {"gaps", "gap"},
        {"gas", "gas"},
        {"kiwis", "kiwi"},
        // step 1b: restore e on short words, undouble, eed only in R1
        {"hoping", "hope"},
        {"hopping", "hop"},
        {"enjoying", "enjoy"},
        {"feed", "feed"},
        {"agreed", "agre"},
        {"bled", "bled"},
        {"plastered", "plaster"},
        // step 1c and y handling
        {"cry", "cri"},
        {"say", "say"},
        {"yes", "yes"},
        // step 2 longest-suffix rule: "entli" is found but not in R1, so "li" is not tried
        {"fluently", "fluentli"},
        // R1 exceptions for gener-, commun-, arsen-
        {"general", "general"},
        {"generally", "general"},
        {"generous", "generous"},
        {"community", "communiti"},
        {"arsenal", "arsenal"},
        // exceptional forms
        {"sky", "sky"},
        {"skies", "sky"},
        {"skis", "ski"},
        {"dying", "die"},
        {"lying", "lie"},
        {"tying", "tie"},
        {"news", "news"},
        {"only", "onli"},
        {"early", "earli"},
        {"idly", "idl"},
        {"gently", "gentl"},
        {"ugly", "ugli"},
        {"singly", "singl"},
        {"atlas", "atlas"},
        {"bias", "bias"},
        {"howe", "howe"},
        // invariant after step 1a
        {"proceed", "proceed"},
        {"exceed", "exceed"},
        {"succeed", "succeed"},
        {"inning", "inning"},
        {"outing", "outing"},
        // apostrophes
        {"user's", "user"},
        {"users'", "user"},
        {"'quoted", "quot"},
        {"don't", "don't"},
        // vocabulary that claims about code actually use
        {"cache", "cach"},
        {"cached", "cach"},
        {"caching", "cach"},
        {"configuration", "configur"},
        {"configured", "configur"},
        {"configurable", "configur"},
        {"deprecated", "deprec"},
        {"deprecation", "deprec"},
        {"initialization", "initi"},
        {"initialize", "initi"},
    };
    for (const Pair& p : pairs) {
        CAPTURE(p.word);
        CHECK(stem(p.word) == p.expected);
    }
    // Each thread's table of recent stems (text/Stem.cpp) changes no stem:
    // the same words again, after 40,000 others have taken their slots
    // over (words of every length the table holds, and longer).
    for (int i = 0; i < 40000; ++i) {
        std::string w = "w";
        for (int v = i; v > 0; v /= 26)
            w += char('a' + v % 26);
        w += (i % 3 == 0) ? "ations" : (i % 3 == 1) ? "ing" : "edlyness";
        stem(w);
    }
    for (auto it = std::rbegin(pairs); it != std::rend(pairs); ++it) {
        CAPTURE(it->word);
        CHECK(stem(it->word) == it->expected);
        CHECK(stem(it->word) == it->expected);
    }
}

TEST_CASE("stem leaves words it cannot handle unchanged", "[text][stem]") {
    CHECK(stem("") == "");
    CHECK(stem("is") == "is");               // two letters or fewer
    CHECK(stem("sha256") == "sha256");       // digits
    CHECK(stem("tokens2") == "tokens2");     // digits
    CHECK(stem("naïveties") == "naïveties"); // non-ASCII bytes
    CHECK(stem("Tokens") == "Tokens");       // not lower-case
    CHECK(stem("max_tokens") == "max_tokens");
}

TEST_CASE("stem never lengthens a word", "[text][stem]") {
    // The tokenizer stems in place inside its term buffer; this is the invariant
    // that makes that safe. Exhaustive over short words from suffix-heavy letters.
    const std::string alphabet = "aeiysdlgnt'";
    std::string w;
    size_t checked = 0;
    for (char a : alphabet)
        for (char b : alphabet)
            for (char c : alphabet)
                for (char d : alphabet) {
                    w = {a, b, c, d};
                    for (size_t len = 3; len <= 4; ++len) {
                        std::string word = w.substr(0, len) + (len == 3 ? "ing" : "ed");
                        std::string out = stem(word);
                        ++checked;
                        if (out.size() > word.size()) FAIL("stem(" << word << ") = " << out);
                    }
                }
    CHECK(checked == 2 * alphabet.size() * alphabet.size() * alphabet.size() * alphabet.size());
}

TEST_CASE("isStopword covers function words but not negations or modals", "[text][stop]") {
    for (const char* w :
         {"a",   "an",   "the", "is",   "are",  "of", "to", "in", "on", "and",  "or",
          "for", "with", "it",  "this", "that", "be", "as", "at", "by", "it's", "which"}) {
        CAPTURE(w);
        CHECK(isStopword(w));
    }
    for (const char* w : {"not", "no", "never", "must", "should", "always", "only", "cannot",
                          "can't", "don't", "token", "", "xyz", "thee", "theirs"}) {
        CAPTURE(w);
        CHECK_FALSE(isStopword(w));
    }
}

TEST_CASE("tokenize handles an empty or separator-only input", "[text][tokenize]") {
    CHECK(tokens("").empty());
    CHECK(tokens("  \t\n.,;:!?()[]{}<>/\\-+=*&^%$#@~`\"").empty());
    CHECK(tokens("___ '' \xE2\x80\x94 \xE2\x80\x9C\xE2\x80\x9D").empty());
    CHECK(terms("").empty());
}

TEST_CASE("tokenize stems words and drops stop words, keeping negations", "[text][tokenize]") {
    CHECK(terms("The validator must never accept expired tokens") ==
          Strings{"valid", "must", "never", "accept", "expir", "token"});
    CHECK(terms("It is NOT safe to call this") == Strings{"not", "safe", "call"});
    // Lower-casing happens before the stop list, so capitalised stop words go too.
    CHECK(terms("THE Of And") == Strings{});
}

TEST_CASE("tokenize reports byte offsets of each word", "[text][tokenize]") {
    CHECK(describe("  rejects expired\ttokens.") ==
          Strings{"reject 2-9", "expir 10-17", "token 18-24"});
}

TEST_CASE("tokenize splits camelCase and PascalCase identifiers", "[text][tokenize]") {
    CHECK(describe("TokenValidator") == Strings{"tokenvalid 0-14", "token 0-5 +", "valid 5-14 +"});
    CHECK(describe("getUserName") ==
          Strings{"getusernam 0-11", "get 0-3 +", "user 3-7 +", "name 7-11 +"});
    // A stop-word part is dropped but the whole identifier stays.
    CHECK(describe("isValid") == Strings{"isvalid 0-7", "valid 2-7 +"});
}

TEST_CASE("tokenize splits acronyms and keeps digits inside parts", "[text][tokenize]") {
    CHECK(describe("HTTPServer") == Strings{"httpserver 0-10", "http 0-4 +", "server 4-10 +"});
    CHECK(describe("IOError") == Strings{"ioerror 0-7", "io 0-2 +", "error 2-7 +"});
    CHECK(describe("parseJSON2Value") ==
          Strings{"parsejson2value 0-15", "pars 0-5 +", "json2 5-10 +", "valu 10-15 +"});
    CHECK(describe("sha256 utf8 SHA256") == Strings{"sha256 0-6", "utf8 7-11", "sha256 12-18"});
    CHECK(describe("Base64Encode") == Strings{"base64encode 0-12", "base64 0-6 +", "encod 6-12 +"});
    CHECK(describe("v2API") == Strings{"v2api 0-5"});
}

TEST_CASE("tokenize keeps plural acronyms whole and singular", "[text][tokenize]") {
    CHECK(describe("JWTs JWT CPUs") == Strings{"jwt 0-4", "jwt 5-8", "cpu 9-13"});
    CHECK(describe("URLsForUser") == Strings{"urlsforus 0-11", "url 0-4 +", "user 7-11 +"});
    CHECK(describe("getJWTs") == Strings{"getjwt 0-7", "get 0-3 +", "jwt 3-7 +"});
}

TEST_CASE("tokenize gives snake_case, SCREAMING_CASE and camelCase the same whole term",
          "[text][tokenize]") {
    CHECK(describe("max_tokens") == Strings{"maxtoken 0-10", "max 0-3 +", "token 4-10 +"});
    CHECK(describe("MAX_TOKENS") == Strings{"maxtoken 0-10", "max 0-3 +", "token 4-10 +"});
    CHECK(describe("maxTokens") == Strings{"maxtoken 0-9", "max 0-3 +", "token 3-9 +"});
    // Leading and trailing underscores are not parts; one part means no whole token.
    CHECK(describe("__init__") == Strings{"init 2-6"});
    // Single-letter parts are dropped, the whole is kept.
    CHECK(describe("a_b_c") == Strings{"abc 0-5"});
}

TEST_CASE("tokenize splits qualified names, paths and hyphenated words", "[text][tokenize]") {
    CHECK(describe("TokenValidator.validate") ==
          Strings{"tokenvalid 0-14", "token 0-5 +", "valid 5-14 +", "valid 15-23"});
    CHECK(terms("std::vector<int> a->next src/auth/jwt.cpp kebab-case") ==
          Strings{"std", "vector", "int", "next", "src", "auth", "jwt", "cpp", "kebab", "case"});
}

TEST_CASE("tokenize keeps apostrophes inside words only", "[text][tokenize]") {
    CHECK(describe("don't") == Strings{"don't 0-5"});
    CHECK(describe("the user's key") == Strings{"user 4-10", "key 11-14"});
    // U+2019 is spelled as an ASCII apostrophe in the term; offsets still cover its 3 bytes.
    CHECK(describe("user\xE2\x80\x99s") == Strings{"user 0-8"});
    CHECK(terms("don\xE2\x80\x99t") == Strings{"don't"});
    CHECK(describe("'quoted' users'") == Strings{"quot 1-7", "user 9-14"});
    CHECK(terms("it's") == Strings{});
}

TEST_CASE("tokenize drops one-byte terms except digits", "[text][tokenize]") {
    CHECK(terms("x = 3 e.g. y2") == Strings{"3", "y2"});
    CHECK(describe("3.14") == Strings{"3 0-1", "14 2-4"});
}

TEST_CASE("tokenize passes non-ASCII letters through as bytes", "[text][tokenize]") {
    CHECK(describe("caf\xC3\xA9 na\xC3\xAFve") == Strings{"caf\xC3\xA9 0-5", "na\xC3\xAFve 6-12"});
    CHECK(describe("\xE6\x9D\xB1\xE4\xBA\xAC") == Strings{"\xE6\x9D\xB1\xE4\xBA\xAC 0-6"});
    // A non-ASCII letter is lower-case-like for camelCase splitting.
    CHECK(terms("na\xC3\xAFveBayes") == Strings{"na\xC3\xAFvebayes", "na\xC3\xAFve", "bay"});
    // Typographic punctuation, arrows and emoji separate words.
    CHECK(describe("\xE2\x80\x9C"
                   "cache\xE2\x80\x9D\xE2\x80\x94stale \xE2\x86\x92 ok\xF0\x9F\x98\x80"
                   "done") == Strings{"cach 3-8", "stale 14-19", "ok 24-26", "done 30-34"});
}

TEST_CASE("tokenize keeps malformed UTF-8 bytes and stays inside the input", "[text][tokenize]") {
    // A truncated 3-byte sequence at the end: kept as bytes of the word.
    CHECK(describe("abc\xE2\x80") == Strings{"abc\xE2\x80 0-5"});
    // A stray continuation byte inside a word.
    CHECK(describe("ab\x80"
                   "cd ef") == Strings{"ab\x80"
                                       "cd 0-5",
                                       "ef 6-8"});
}

TEST_CASE("tokenize output is consistent for a realistic claim", "[text][tokenize]") {
    const std::string claim =
        "TokenValidator.validate() rejects JWTs whose `exp` is in the past; see "
        "server/auth/TokenValidator.cpp, HTTPServer::handle and MAX_RETRY_COUNT. "
        "Callers shouldn't cache the result \xE2\x80\x94 it's per-request.";
    std::vector<Token> toks = tokens(claim);
    REQUIRE(!toks.empty());
    CHECK_FALSE(toks.front().colocated);
    uint32_t wholeBegin = 0, wholeEnd = 0;
    for (const Token& t : toks) {
        CAPTURE(t.term, t.begin, t.end);
        CHECK(t.begin < t.end);
        CHECK(t.end <= claim.size());
        CHECK(t.term.size() >= 1);
        CHECK_FALSE(isStopword(t.term));
        if (t.colocated) {
            // Parts lie inside the identifier they belong to.
            CHECK(t.begin >= wholeBegin);
            CHECK(t.end <= wholeEnd);
        } else {
            CHECK(t.begin >= wholeEnd); // positions only move forward
            wholeBegin = t.begin;
            wholeEnd = t.end;
        }
    }
    std::vector<std::string> fromTokens;
    for (const Token& t : toks)
        fromTokens.push_back(t.term);
    CHECK(terms(claim) == fromTokens);
    CHECK(fromTokens == Strings{"tokenvalid", "token",      "valid",  "valid",  "reject",
                                "jwt",        "exp",        "past",   "see",    "server",
                                "auth",       "tokenvalid", "token",  "valid",  "cpp",
                                "httpserver", "http",       "server", "handl",  "maxretrycount",
                                "max",        "retri",      "count",  "caller", "shouldn't",
                                "cach",       "result",     "per",    "request"});
}

TEST_CASE("tokenize handles identifiers with very many parts", "[text][tokenize]") {
    std::string id, lower;
    for (int i = 0; i < 40; ++i) {
        id += "Part";
        lower += "part";
    }
    std::vector<Token> toks = tokens(id);
    REQUIRE(toks.size() >= 2);
    CHECK(toks.front().term == lower);
    CHECK(toks.front().begin == 0);
    CHECK(toks.front().end == id.size());
    CHECK_FALSE(toks.front().colocated);
    // Parts past the limit are folded into the last one rather than lost.
    CHECK(toks.size() <= 41);
    CHECK(toks.back().end == id.size());
    for (size_t i = 1; i < toks.size(); ++i)
        CHECK(toks[i].colocated);
}

TEST_CASE("the generic words of prompts are generic in every form a prompt uses",
          "[text][generic]") {
    // Each form as a query word becomes: "added" stems to "ad", and "went"
    // is not "go" to a stemmer; both were specific once, so a prompt that
    // said what it added or where it went counted those as its subject.
    for (const char* w :
         {"add",     "added",   "adding", "adds",    "make",     "made",     "write", "wrote",
          "written", "go",      "went",   "gone",    "take",     "took",     "taken", "run",
          "ran",     "running", "change", "changed", "changing", "happened", "done"})
        for (auto& t : terms(w)) {
            INFO(w << " -> " << t);
            CHECK(engram::text::isGenericTerm(t));
        }
    // Not every word is: the subject of a prompt stays specific.
    for (const char* w : {"cache", "deploy", "invoice", "migration"})
        for (auto& t : terms(w)) {
            INFO(w << " -> " << t);
            CHECK_FALSE(engram::text::isGenericTerm(t));
        }
}

} // namespace unit_TextTest
