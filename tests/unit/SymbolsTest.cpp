// Symbol extraction and formatting-blind hashing over the fixtures in
// fixtures/languages/<lang>/: the symbols each grammar yields, name
// resolution, position lookup, hashes that survive a formatter pass but not an
// edit, shapes that survive a rename, and incremental re-parsing.
#include "syntax/Symbols.h"
#include "support/LanguageCases.h"
#include "syntax/Sha256.h"
#include "util/Fs.h"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_SymbolsTest {

using namespace engram::syntax;

using namespace engram::test;

namespace {
std::pair<uint32_t, uint32_t> positionOf(const std::string& text, const std::string& snippet) {
    auto at = text.find(snippet);
    REQUIRE(at != std::string::npos);
    uint32_t line = 0;
    size_t lineStart = 0;
    for (size_t i = 0; i < at; ++i)
        if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
        }
    return {line, uint32_t(at - lineStart + 1)}; // one byte into the snippet
}

const Symbol* find(const std::vector<Symbol>& symbols, const std::string& qualified) {
    for (auto& s : symbols)
        if (s.qualified == qualified) return &s;
    return nullptr;
}

bool sameSymbols(const std::vector<Symbol>& a, const std::vector<Symbol>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const Symbol &x = a[i], &y = b[i];
        if (x.name != y.name || x.qualified != y.qualified || x.kind != y.kind ||
            x.startByte != y.startByte || x.endByte != y.endByte || x.startLine != y.startLine ||
            x.startColumn != y.startColumn || x.endLine != y.endLine ||
            x.endColumn != y.endColumn || x.hash != y.hash || x.shapeHash != y.shapeHash)
            return false;
    }
    return true;
}

bool isHex32(const std::string& s) {
    if (s.size() != 32) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

// The hash of the only symbol named `name` in a snippet.
std::string hashOf(const std::string& lang, const std::string& source, const std::string& name) {
    auto symbols = extractSymbols(lang, source);
    auto hits = resolveSymbol(symbols, name);
    INFO(lang << ": " << source);
    REQUIRE(hits.size() == 1);
    return symbols[hits[0]].hash;
}

} // namespace

TEST_CASE("each fixture yields its definitions, qualified in the language's idiom", "[symbols]") {
    for (auto& c : cases()) {
        INFO(c.lang);
        std::string text = readFixture(fixturePath(c));
        auto symbols = extractSymbols(c.lang, text);
        std::vector<std::pair<std::string, std::string>> got;
        for (auto& s : symbols) {
            got.push_back({s.qualified, s.kind});
            CHECK(isHex32(s.hash));
            CHECK(isHex32(s.shapeHash));
            CHECK(s.startByte < s.endByte);
            CHECK(s.endByte <= text.size());
            CHECK(s.qualified.ends_with(s.name));
        }
        CHECK(got == c.symbols);
        for (size_t i = 1; i < symbols.size(); ++i)
            CHECK(symbols[i - 1].startByte <= symbols[i].startByte); // document order
    }
}

TEST_CASE("a definition's range covers its decorators and template header", "[symbols]") {
    auto text = readFixture(fixturesDir() + "/languages/python/token_validator.py");
    auto symbols = extractSymbols("python", text);
    auto* split = find(symbols, "TokenValidator.split");
    REQUIRE(split);
    CHECK(text.substr(split->startByte).starts_with("@staticmethod"));
    auto cpp = readFixture(fixturesDir() + "/languages/cpp/config_parser.cpp");
    auto cs = extractSymbols("cpp", cpp);
    auto* clamp = find(cs, "engram::config::clampTo");
    REQUIRE(clamp);
    CHECK(cpp.substr(clamp->startByte).starts_with("template <typename T>"));
    CHECK(cpp.substr(clamp->endByte - 1, 1) == "}");
}

TEST_CASE("a formatter pass leaves every hash unchanged", "[symbols]") {
    // The .reformatted variants are what black / prettier / clang-format /
    // gofmt / rustfmt / google-java-format style passes do: re-indenting,
    // re-wrapping, comments added or changed, quote style swapped, trailing
    // commas and optional semicolons added or dropped, redundant parentheses.
    for (auto& c : cases()) {
        INFO(c.lang);
        std::string original = readFixture(fixturePath(c));
        std::string reformatted = readFixture(fixturePath(c, true));
        REQUIRE(original != reformatted);
        auto a = extractSymbols(c.lang, original);
        auto b = extractSymbols(c.lang, reformatted);
        REQUIRE(a.size() == b.size());
        for (size_t i = 0; i < a.size(); ++i) {
            INFO(a[i].qualified);
            CHECK(a[i].qualified == b[i].qualified);
            CHECK(a[i].kind == b[i].kind);
            CHECK(a[i].hash == b[i].hash);
            CHECK(a[i].shapeHash == b[i].shapeHash);
        }
    }
}

TEST_CASE("an edit inside a body changes that symbol's hash and its enclosers' only", "[symbols]") {
    for (auto& c : cases()) {
        INFO(c.lang);
        std::string original = readFixture(fixturePath(c));
        std::string edited = apply(original, c.body);
        uint32_t at = uint32_t(original.find(c.body.from));
        auto a = extractSymbols(c.lang, original);
        auto b = extractSymbols(c.lang, edited);
        REQUIRE(a.size() == b.size());
        auto innermost = std::find_if(a.rbegin(), a.rend(), [&](const Symbol& s) {
            return s.startByte <= at && at < s.endByte;
        });
        REQUIRE(innermost != a.rend());
        CHECK(innermost->qualified == c.bodySymbol);
        for (size_t i = 0; i < a.size(); ++i) {
            INFO(a[i].qualified);
            // The edited symbol changes, and so does every symbol enclosing
            // it (a class's hash covers its methods): that is expected.
            bool encloses = a[i].startByte <= at && at < a[i].endByte;
            CHECK((a[i].hash != b[i].hash) == encloses);
            CHECK((a[i].shapeHash != b[i].shapeHash) == encloses);
        }
    }
}

TEST_CASE("a rename keeps the shape hash and changes the hash", "[symbols]") {
    for (auto& c : cases()) {
        INFO(c.lang);
        std::string original = readFixture(fixturePath(c));
        std::string renamed = apply(original, c.rename);
        auto a = extractSymbols(c.lang, original);
        auto b = extractSymbols(c.lang, renamed);
        REQUIRE(a.size() == b.size());
        auto* before = find(a, c.renamedFrom);
        auto* after = find(b, c.renamedTo);
        REQUIRE(before);
        REQUIRE(after);
        CHECK_FALSE(find(b, c.renamedFrom));
        CHECK(before->shapeHash == after->shapeHash);
        CHECK(before->hash != after->hash);
        CHECK(before->kind == after->kind);
    }
    // Renaming a Java class renames its constructor too; the class keeps its
    // shape because the constructor's name is the class's own name.
    std::string java = readFixture(fixturesDir() + "/languages/java/TokenValidator.java");
    std::string renamed = java;
    for (size_t at; (at = renamed.find("TokenValidator")) != std::string::npos;)
        renamed.replace(at, 14, "TokenChecker");
    auto a = extractSymbols("java", java);
    auto b = extractSymbols("java", renamed);
    REQUIRE(find(b, "TokenChecker"));
    CHECK(find(a, "TokenValidator")->shapeHash == find(b, "TokenChecker")->shapeHash);
    CHECK(find(a, "TokenValidator")->hash != find(b, "TokenChecker")->hash);
    CHECK(find(a, "TokenValidator.validate")->hash == find(b, "TokenChecker.validate")->hash);
}

TEST_CASE("a rename that also renames the name's other spellings keeps the shape", "[symbols]") {
    struct Snippet {
        std::string lang, before, after, symbol, renamed;
    };
    const std::vector<Snippet> snippets = {
        // Recursive calls.
        {"python", "def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n",
         "def prod(n):\n    return 1 if n < 2 else n * prod(n - 1)\n", "fact", "prod"},
        {"go",
         "package p\nfunc fib(n int) int { if n < 2 { return n }; return fib(n-1) + fib(n-2) }\n",
         "package p\nfunc seq(n int) int { if n < 2 { return n }; return seq(n-1) + seq(n-2) }\n",
         "fib", "seq"},
        {"rust", "fn depth(t: &T) -> u32 { t.kids.iter().map(depth).max().unwrap_or(0) + 1 }\n",
         "fn height(t: &T) -> u32 { t.kids.iter().map(height).max().unwrap_or(0) + 1 }\n", "depth",
         "height"},
        // A class declaring its constructors, destructor and copy in its body.
        {"cpp",
         "class Pool {\npublic:\n  explicit Pool(int n);\n  ~Pool();\n  Pool& operator=(const "
         "Pool&) = delete;\n  int size() const { return n_; }\nprivate:\n  int n_;\n};\n",
         "class Arena {\npublic:\n  explicit Arena(int n);\n  ~Arena();\n  Arena& operator=(const "
         "Arena&) = delete;\n  int size() const { return n_; }\nprivate:\n  int n_;\n};\n",
         "Pool", "Arena"},
        // A Java class whose method returns its own type.
        {"java",
         "class Money { int c; Money(int c) { this.c = c; } Money plus(Money o) { return new "
         "Money(c + o.c); } }\n",
         "class Cash { int c; Cash(int c) { this.c = c; } Cash plus(Cash o) { return new Cash(c + "
         "o.c); } }\n",
         "Money", "Cash"},
        // A Go method: its receiver spells the type.
        {"go", "package p\nfunc (s *Server) Stop() error { return s.l.Close() }\n",
         "package p\nfunc (s *Daemon) Stop() error { return s.l.Close() }\n", "Server.Stop",
         "Daemon.Stop"},
    };
    for (auto& sn : snippets) {
        INFO(sn.lang << ": " << sn.symbol << " -> " << sn.renamed);
        auto before = extractSymbols(sn.lang, sn.before);
        auto after = extractSymbols(sn.lang, sn.after);
        const Symbol* a = find(before, sn.symbol);
        const Symbol* b = find(after, sn.renamed);
        REQUIRE(a);
        REQUIRE(b);
        CHECK(a->shapeHash == b->shapeHash);
        CHECK(a->hash != b->hash);
        // Renaming only the last spelling (a call, a parameter type) is an
        // edit of the body: the shape changes too.
        if (sn.symbol.find('.') != std::string::npos) continue;
        std::string half = sn.before;
        half.replace(half.rfind(sn.symbol), sn.symbol.size(), "other");
        auto partial = extractSymbols(sn.lang, half);
        const Symbol* p = find(partial, sn.symbol);
        REQUIRE(p);
        CHECK(p->shapeHash != a->shapeHash);
    }
}

TEST_CASE("innermostAt finds the method, the class, or nothing", "[symbols]") {
    for (auto& c : cases()) {
        INFO(c.lang);
        std::string text = readFixture(fixturePath(c));
        auto symbols = extractSymbols(c.lang, text);
        auto [ml, mc] = positionOf(text, c.inMethod);
        auto m = innermostAt(symbols, ml, mc);
        REQUIRE(m);
        CHECK(symbols[*m].qualified == c.method);
        auto [cl, cc] = positionOf(text, c.inClass);
        auto k = innermostAt(symbols, cl, cc);
        REQUIRE(k);
        CHECK(symbols[*k].qualified == c.klass);
        CHECK_FALSE(innermostAt(symbols, 0, 0));
        // The end is exclusive; the start inclusive.
        auto& s = symbols[*m];
        CHECK(innermostAt(symbols, s.startLine, s.startColumn) == m);
        auto past = innermostAt(symbols, s.endLine, s.endColumn);
        CHECK(past != m);
    }
}

TEST_CASE("resolveSymbol: exact, suffix, separators, ambiguity", "[symbols]") {
    auto load = [](const std::string& lang, const std::string& file) {
        return extractSymbols(lang, readFixture(fixturesDir() + "/languages/" + lang + "/" + file));
    };
    auto names = [](const std::vector<Symbol>& symbols, const std::vector<size_t>& hits) {
        std::vector<std::string> out;
        for (auto i : hits)
            out.push_back(symbols[i].qualified);
        return out;
    };
    using V = std::vector<std::string>;

    auto py = load("python", "token_validator.py");
    CHECK(names(py, resolveSymbol(py, "TokenValidator.validate")) == V{"TokenValidator.validate"});
    CHECK(names(py, resolveSymbol(py, "validate")) == V{"TokenValidator.validate"});
    CHECK(names(py, resolveSymbol(py, "Cache.lookup")) == V{"TokenValidator.Cache.lookup"});
    CHECK(names(py, resolveSymbol(py, "TokenValidator::split")) == V{"TokenValidator.split"});
    CHECK(names(py, resolveSymbol(py, " validate ")) == V{"TokenValidator.validate"});
    CHECK(resolveSymbol(py, "nope").empty());
    CHECK(resolveSymbol(py, "").empty());
    CHECK(resolveSymbol(py, "alidate").empty()); // components, not substrings

    auto go = load("go", "server.go");
    CHECK(names(go, resolveSymbol(go, "(*Server).Handle")) == V{"Server.Handle"});
    CHECK(names(go, resolveSymbol(go, "Server::Lookup")) == V{"Server.Lookup"});
    CHECK(names(go, resolveSymbol(go, "Handle")) == V{"Server.Handle"});

    auto cpp = load("cpp", "config_parser.cpp");
    CHECK(names(cpp, resolveSymbol(cpp, "Parser::parse")) == V{"engram::config::Parser::parse"});
    CHECK(names(cpp, resolveSymbol(cpp, "config.Parser.parse")) ==
          V{"engram::config::Parser::parse"});
    CHECK(names(cpp, resolveSymbol(cpp, "engram::config::Parser")) == V{"engram::config::Parser"});
    CHECK(names(cpp, resolveSymbol(cpp, "Parser")) ==
          V{"engram::config::Parser", "engram::config::Parser::Parser"});

    auto rs = load("rust", "lru.rs");
    CHECK(names(rs, resolveSymbol(rs, "evict")) == V{"Evict::evict", "<LruCache as Evict>::evict"});
    // A trait impl's method answers to its type and to its trait.
    CHECK(names(rs, resolveSymbol(rs, "LruCache.evict")) == V{"<LruCache as Evict>::evict"});
    CHECK(names(rs, resolveSymbol(rs, "Display::fmt")) == V{"<LruCache as fmt::Display>::fmt"});
    CHECK(names(rs, resolveSymbol(rs, "LruCache::fmt")) == V{"<LruCache as fmt::Display>::fmt"});
    CHECK(names(rs, resolveSymbol(rs, "impl Evict for LruCache")) == V{"impl Evict for LruCache"});
    CHECK(names(rs, resolveSymbol(rs, "stats::hit_rate")) == V{"stats::hit_rate"});

    // An exact or full match wins over longer names ending the same way.
    std::vector<Symbol> synthetic(3);
    synthetic[0].qualified = "a.b";
    synthetic[1].qualified = "x.a.b";
    synthetic[2].qualified = "a::b";
    CHECK(resolveSymbol(synthetic, "a.b") == std::vector<size_t>{0});
    CHECK(resolveSymbol(synthetic, "a::b") == std::vector<size_t>{2});
    CHECK(resolveSymbol(synthetic, "a->b") == std::vector<size_t>{0, 2});
    CHECK(resolveSymbol(synthetic, "b") == std::vector<size_t>{0, 1, 2});
    CHECK(resolveSymbol(synthetic, "x.a.b") == std::vector<size_t>{1});

    // A quoted key keeps the blanks inside its quotes. Each definition
    // answers to its written name as it is; a trimmed query means the key
    // spelled without them, else the one with them. (Fuzzing found the
    // first: a TypeScript member `'turn '` that no name could designate.)
    auto js = extractSymbols("javascript", "const o = {\n  'turn ': () => 1,\n  'turn': () => 2,\n"
                                           "  ' lead'() { return 3; },\n};\n");
    REQUIRE(js.size() == 3);
    for (size_t i = 0; i < js.size(); ++i)
        CHECK(resolveSymbol(js, writtenName(js[i])) == std::vector<size_t>{i});
    CHECK(names(js, resolveSymbol(js, "o.turn")) == V{"o.turn"});
    CHECK(names(js, resolveSymbol(js, "o.lead")) == V{"o. lead"});
    CHECK(names(js, resolveSymbol(js, "lead")) == V{"o. lead"});
    auto ts = extractSymbols("typescript", "class A {\n  'turn '() { return 1; }\n}\n");
    REQUIRE(ts.size() == 2);
    CHECK(resolveSymbol(ts, writtenName(ts[1])) == std::vector<size_t>{1});
    CHECK(names(ts, resolveSymbol(ts, "A.turn")) == V{"A.turn "});
    CHECK(names(ts, resolveSymbol(ts, "A.turn()")) == V{"A.turn "});
}

TEST_CASE("the hash sees syntax and ignores style", "[symbols]") {
    struct Pair {
        const char* lang;
        const char* a;
        const char* b;
        bool equal;
    };
    const Pair pairs[] = {
        // Quote style, comments, redundant parentheses, trailing commas.
        {"python", "def f():\n    return 'a'\n", "def f():\n    return \"a\"  # x\n", true},
        {"python", "def f(a, b):\n    return (a + b)\n", "def f(a, b,):\n    return a + b\n", true},
        {"python", "def f():\n    return x\n", "def f():\n    return x;\n", true},
        {"python", "def f():\n    return 0XFF\n", "def f():\n    return 0xff\n", true},
        {"python", "def f():\n    return u'x'\n", "def f():\n    return 'x'\n", true},
        {"python", "class A():\n    pass\n", "class A:\n    pass\n", true},
        {"python", "def f():\n    return 'it\\'s'\n", "def f():\n    return \"it's\"\n", true},
        {"python", "def f():\n    '''Doc\n    more'''\n",
         "def f():\n        \"\"\"Doc\n        more\"\"\"\n", true},
        // ...but not meaning.
        {"python", "def f():\n    return f'a'\n", "def f():\n    return 'a'\n", false},
        {"python", "def f():\n    return a[1,]\n", "def f():\n    return a[1]\n", false},
        {"python", "def f():\n    return (a + b) * c\n", "def f():\n    return a + b * c\n", false},
        {"python", "def f():\n    return a - b\n", "def f():\n    return a + b\n", false},
        {"python", "def f():\n    return 'a b'\n", "def f():\n    return 'a  b'\n", false},
        {"python", "def f():\n    return (1,)\n", "def f():\n    return (1)\n", false},
        {"javascript", "function f() { return x => x; }", "function f() { return (x) => x }", true},
        {"javascript", "function f() { return new A; }", "function f() { return new A() }", true},
        {"javascript", "function f() { return {'a': 1}; }", "function f() { return {a: 1,} }",
         true},
        {"javascript", "function f() { return .5; }", "function f() { return 0.50 }", true},
        {"javascript", "function f() { ;[1].map(g); }", "function f() { [1].map(g) }", true},
        {"javascript", "function f() { return `a`; }", "function f() { return 'a'; }", false},
        {"javascript", "function f() { return [1,,2]; }", "function f() { return [1,2]; }", false},
        {"javascript", "function f() { return {'a-b': 1}; }", "function f() { return {ab: 1}; }",
         false},
        {"typescript", "type T = | 'a' | 'b';", "type T = \"a\" | \"b\"", true},
        {"typescript", "function f(x: (A)) {}", "function f(x: A) {}", true},
        {"go", "package p\nfunc f() { a := 1; return }\n",
         "package p\nfunc f() {\n\ta := 1\n\treturn\n}\n", true},
        {"go", "package p\nfunc f() { for ; x ; { } }\n", "package p\nfunc f() { for x ; ; { } }\n",
         false},
        {"c", "int f(void) { for (;x;) {} }", "int f(void) { for (x;;) {} }", false},
        {"c", "int f(void) { return (1); }", "int f(void)\n{\n  return 1; /* one */\n}", true},
        {"cpp", "int f() { return R\"(a)\"; }", "int f() { return \"a\"; }", false},
        {"rust", "fn f() -> i32 { return 1; }", "fn f() -> i32 { return 1 }", true},
        {"rust", "fn f() { match x { A => { g() } } }", "fn f() { match x { A => g(), } }", true},
        {"rust", "fn f() -> i32 { g() }", "fn f() -> i32 { g(); }", false},
        {"rust", "fn f() { let s = b\"x\"; }", "fn f() { let s = \"x\"; }", false},
        {"java", "class A { int f() { return 10L; } }",
         "class A {\n  int f() {\n    return 10l;\n  }\n}", true},
        {"java", "class A { char f() { return 'a'; } }", "class A { char f() { return 'b'; } }",
         false},
    };
    for (auto& p : pairs) {
        INFO(p.lang << "\n" << p.a << "\n----\n" << p.b);
        std::string a = p.a, name = "f";
        if (a.starts_with("type T")) name = "T";
        if (a.starts_with("class A {")) name = "A.f";
        if (a.starts_with("class A(")) name = "A";
        bool equal = hashOf(p.lang, p.a, name) == hashOf(p.lang, p.b, name);
        CHECK(equal == p.equal);
    }
}

TEST_CASE("an open document re-parses incrementally to what a fresh parse gives", "[symbols]") {
    std::mt19937 rng(20240611);
    for (auto& c : cases()) {
        INFO(c.lang);
        std::string text = readFixture(fixturePath(c));
        Document doc(c.lang, text);
        REQUIRE(sameSymbols(doc.symbols(), extractSymbols(c.lang, text)));
        std::string comment = c.lang == "python" ? "# note\n" : "// note\n";
        for (int step = 0; step < 40; ++step) {
            std::string mirror = doc.text();
            uint32_t start = 0, end = 0;
            std::string replacement;
            switch (rng() % 5) {
            case 0: { // a comment line at the start of a line
                size_t line = rng() % mirror.size();
                line = mirror.rfind('\n', line);
                start = end = line == std::string::npos ? 0 : uint32_t(line + 1);
                replacement = comment;
                break;
            }
            case 1: { // a number changed
                std::vector<size_t> digits;
                for (size_t i = 1; i < mirror.size(); ++i)
                    if (isdigit((unsigned char)mirror[i]) &&
                        !isalnum((unsigned char)mirror[i - 1]) && mirror[i - 1] != '_')
                        digits.push_back(i);
                if (digits.empty()) continue;
                start = end = uint32_t(digits[rng() % digits.size()]);
                replacement = std::to_string(rng() % 90 + 1);
                break;
            }
            case 2: { // a definition renamed
                auto& symbols = doc.symbols();
                auto& s = symbols[rng() % symbols.size()];
                auto at = mirror.find(s.name, s.startByte);
                if (at == std::string::npos || at >= s.endByte) continue;
                start = uint32_t(at);
                end = uint32_t(at + s.name.size());
                replacement = s.name + "X";
                break;
            }
            case 3: { // a blank line removed or added
                auto at = mirror.find("\n\n", rng() % mirror.size());
                if (at == std::string::npos) continue;
                start = uint32_t(at);
                end = start;
                if (rng() % 2)
                    end = start + 1;
                else
                    replacement = "\n";
                break;
            }
            case 4: { // garbage typed, then taken back
                uint32_t at = uint32_t(rng() % mirror.size());
                doc.edit(at, at, "(\"{");
                doc.symbols();
                start = at;
                end = at + 3;
                mirror.insert(at, "(\"{");
                break;
            }
            }
            mirror.replace(start, end - start, replacement);
            doc.edit(start, end, replacement);
            REQUIRE(doc.text() == mirror);
            INFO("step " << step);
            REQUIRE(sameSymbols(doc.symbols(), extractSymbols(c.lang, mirror)));
        }
        // Offsets past the end are clamped; reset re-parses from scratch.
        doc.edit(uint32_t(doc.text().size() + 10), uint32_t(doc.text().size() + 20), "\n");
        CHECK(doc.text().back() == '\n');
        doc.reset(text);
        CHECK(sameSymbols(doc.symbols(), extractSymbols(c.lang, text)));
        Document moved = std::move(doc);
        CHECK(moved.text() == text);
        CHECK(moved.symbols().size() == c.symbols.size());
    }
}

TEST_CASE("batches of arbitrary edits keep an open document's symbols equal to a fresh "
          "extraction, walking only what changed",
          "[symbols]") {
    // Edits a user makes mid-typing: unbalanced quotes and comment openers
    // (which make the parser restructure text far from the edit), deleted
    // spans, pasted punctuation; one to three of them between extractions.
    const std::vector<std::string> typed = {"\"", "'", "/*", "*/",     "\"\"\"", "{",       "}",
                                            "(",  ")", ":",  "\n    ", "#",      "x = 1\n", "`"};
    std::mt19937 rng(7);
    for (auto& c : cases()) {
        INFO(c.lang);
        const std::string text = readFixture(fixturePath(c));
        Document doc(c.lang, text);
        doc.symbols();
        size_t reused = 0;
        for (int step = 0; step < 150; ++step) {
            std::string mirror = doc.text();
            int batch = int(rng() % 3) + 1;
            for (int k = 0; k < batch && !mirror.empty(); ++k) {
                uint32_t start = uint32_t(rng() % mirror.size());
                uint32_t end = start;
                std::string insert;
                if (rng() % 3 == 0)
                    end = std::min<uint32_t>(uint32_t(mirror.size()), start + rng() % 6 + 1);
                else
                    insert = typed[rng() % typed.size()];
                mirror.replace(start, end - start, insert);
                doc.edit(start, end, insert);
            }
            INFO("step " << step);
            REQUIRE(doc.text() == mirror);
            // Against a full walk of the same tree: after broken edits,
            // tree-sitter's incremental re-parse may recover from the errors
            // differently than a parse from scratch would, so the fresh
            // parse is the oracle only once the text is valid again (below).
            REQUIRE(sameSymbols(doc.symbols(), doc.walkAfresh()));
            reused += doc.reusedSymbols();
            // Every fifth step puts the fixture back (a long-lived buffer
            // returns to sane code; a full replacement edit, not reset()).
            if (step % 5 == 4) {
                doc.edit(0, uint32_t(doc.text().size()), text);
                REQUIRE(sameSymbols(doc.symbols(), extractSymbols(c.lang, text)));
            }
        }
        CHECK(reused > 0);
    }
}

TEST_CASE("an open C++ document follows a macro that starts or stops opening a declaration",
          "[symbols]") {
    // `FMT_FUNC void f()`: the macro is hidden from the parser and belongs to
    // f. Typing that turns it into a lower-case word, or back, changes what
    // the parser is shown: the document must still equal a fresh parse.
    std::string text = "#define FMT_FUNC inline\nnamespace fmt {\nFMT_FUNC void report(int n) {\n"
                       "  (void)n;\n}\nint keep(int a) { return a; }\n}\n";
    Document doc("cpp", text);
    auto fresh = [&] { return extractSymbols("cpp", doc.text()); };
    REQUIRE(sameSymbols(doc.symbols(), fresh()));
    const Symbol* report = find(doc.symbols(), "fmt::report");
    REQUIRE(report);
    CHECK(doc.text().substr(report->startByte).starts_with("FMT_FUNC void report"));
    std::string before = report->hash;
    size_t at = doc.text().find("FMT_FUNC void");
    doc.edit(uint32_t(at + 4), uint32_t(at + 5), "f"); // FMT_fUNC: no longer a macro's name
    CHECK(doc.text().find("FMT_fUNC void") != std::string::npos);
    CHECK(sameSymbols(doc.symbols(), fresh()));
    doc.edit(uint32_t(at + 4), uint32_t(at + 5), "F"); // and back
    CHECK(sameSymbols(doc.symbols(), fresh()));
    CHECK(find(doc.symbols(), "fmt::report")->hash == before);
    // Typing lower case inside a body changes nothing hidden: still equal.
    at = doc.text().find("return a;");
    doc.edit(uint32_t(at + 7), uint32_t(at + 8), "b");
    CHECK(sameSymbols(doc.symbols(), fresh()));
    CHECK(find(doc.symbols(), "fmt::report")->hash == before);
}

TEST_CASE("an edit inside one body takes every other definition over unchanged", "[symbols]") {
    for (auto& c : cases()) {
        INFO(c.lang);
        const std::string text = readFixture(fixturePath(c));
        Document doc(c.lang, text);
        const size_t total = doc.symbols().size();
        auto at = text.find(c.body.from);
        REQUIRE(at != std::string::npos);
        doc.edit(uint32_t(at), uint32_t(at + c.body.from.size()), c.body.to);
        const auto& after = doc.symbols();
        REQUIRE(sameSymbols(after, extractSymbols(c.lang, doc.text())));
        // Walked again: the edited symbol and the definitions enclosing it,
        // plus the definitions beside the edit that tree-sitter re-parsed.
        // Everything else is taken over.
        size_t enclosing = 0;
        for (auto& s : after)
            if (s.startByte <= at && at < s.endByte) ++enclosing;
        CHECK(enclosing >= 1);
        CHECK(doc.reusedSymbols() + enclosing + 2 >= total);
        CHECK(doc.reusedSymbols() + enclosing <= total);
    }
}

TEST_CASE("an unknown language has no symbols", "[symbols]") {
    CHECK(extractSymbols("cobol", "IDENTIFICATION DIVISION.").empty());
    CHECK(extractSymbols("", "def f(): pass").empty());
    Document doc("cobol", "abc");
    CHECK(doc.symbols().empty());
    doc.edit(1, 2, "XY");
    CHECK(doc.text() == "aXYc");
    CHECK(doc.symbols().empty());
    CHECK(extractSymbols("python", "").empty());
}

TEST_CASE("the symbol digests' SHA-256 equals libsodium's for any input and any chunking") {
    // Stored anchors depend on these digests byte for byte, whichever way
    // they are computed (the processor's SHA instructions when it has them).
    INFO("SHA extensions used: " << engram::syntax::detail::Sha256::kAccelerated);
    std::mt19937_64 rng(20261123);
    std::vector<size_t> lengths;
    for (size_t n = 0; n <= 200; ++n)
        lengths.push_back(n);
    for (size_t n : {255, 256, 257, 1000, 4095, 4096, 65537})
        lengths.push_back(n);
    for (size_t n : lengths) {
        std::string msg(n, '\0');
        for (auto& c : msg)
            c = char(rng());
        std::array<unsigned char, 32> expected;
        crypto_hash_sha256(expected.data(), reinterpret_cast<const unsigned char*>(msg.data()),
                           msg.size());
        for (int split = 0; split < 3; ++split) {
            engram::syntax::detail::Sha256 h;
            size_t at = 0;
            while (at < n) {
                // Whole, then byte by byte, then random pieces up to 130 bytes.
                size_t piece = split == 0 ? n : split == 1 ? 1 : 1 + rng() % 130;
                piece = std::min(piece, n - at);
                if (piece == 1 && split == 1)
                    h.add(static_cast<unsigned char>(msg[at]));
                else
                    h.add(msg.data() + at, piece);
                at += piece;
            }
            INFO("length " << n << ", split " << split);
            CHECK(h.finish() == expected);
        }
    }
}

// Found by fuzzing (fixtures/fuzz/symbols-go/regression-piece-past-end; its
// text in fixtures/regressions/): a piece cut from a piece's own parse
// reached over the closing bracket written after it, and an unclosed struct
// at the end of the file ended one byte past the text.
TEST_CASE("a definition left open at the end of a file ends with the file, in any grammar",
          "[symbols]") {
    std::ifstream in(fixturesDir() + "/regressions/go-piece-past-end.go", std::ios::binary);
    REQUIRE(in);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    REQUIRE(text.size() == 653);
    auto syms = extractSymbols("go", text);
    bool open = false;
    for (const auto& s : syms) {
        INFO(s.qualified << " [" << s.startByte << ", " << s.endByte << ")");
        CHECK(s.startByte <= s.endByte);
        CHECK(s.endByte <= text.size());
        open = open || (s.qualified == "Server" && s.hasError && s.endByte == text.size());
    }
    CHECK(open); // still found, marked as holding an error
    Document doc("go", text);
    for (const auto& s : doc.symbols())
        CHECK(s.endByte <= text.size());
}

// Found by fuzzing (fixtures/fuzz/symbols-java/parse-past-linear; its text in
// fixtures/regressions/): 1,020 bytes of damaged Java on which tree-sitter's
// error recovery was still working after ten minutes. The parse now has a
// budget counted in tree-sitter's own operations (syntax/Parse.cpp): past
// it, the file is one that cannot be read, so no anchor in it is judged
// gone, and the same input gives the same answer on any machine.
TEST_CASE("a parse past its budget gives up, and its file counts as unreadable", "[symbols]") {
    auto read = engram::readFile(fixturesDir() + "/regressions/java-parse-past-linear.java");
    REQUIRE(read);
    const std::string text = *read;
    REQUIRE(text.size() == 1020);
    Spans unreadable;
    auto syms = extractSymbols("java", text, "", &unreadable);
    CHECK(syms.empty());
    CHECK(unreadable == Spans{{0, 1020}});
    // Twice: a parser that gave up starts the next parse afresh.
    CHECK(extractSymbols("java", text).empty());
    auto fine = extractSymbols("java", "class A { void f() {} }");
    CHECK(fine.size() == 2);
    Document doc("java", text);
    CHECK(doc.symbols().empty());
}

// Found by fuzzing (fixtures/fuzz/symbols-cpp/regression-range-past-end): a
// directive closing a file without a newline, inside an unclosed body, was
// mapped back from the canonical text one byte past the end of the file.
TEST_CASE("a definition's range never ends past the end of the text", "[symbols]") {
    for (std::string text :
         {"namespace a {\nint x;\n#define X", "#define X", "struct S {\n#if A"}) {
        INFO(text);
        auto syms = extractSymbols("cpp", text);
        for (const auto& s : syms) {
            INFO(s.qualified);
            CHECK(s.startByte <= s.endByte);
            CHECK(s.endByte <= text.size());
        }
        if (text.rfind("namespace", 0) == 0) CHECK(syms.size() == 2);
    }
}

} // namespace unit_SymbolsTest
