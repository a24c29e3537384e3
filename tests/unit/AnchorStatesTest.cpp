// Symbol anchors through the engine, in every language: a formatter pass
// keeps a claim intact, a body edit drifts it, a rename moves it (until
// re-verified), a deletion orphans it.
#include "engine/CodeWalk.h"
#include "engine/Engine.h"
#include "index/Index.h"
#include "index/Sqlite.h"
#include "store/Store.h"
#include "support/Git.h"
#include "support/LanguageCases.h"
#include "support/TempDir.h"
#include "syntax/Symbols.h"
#include "util/Error.h"
#include "util/Fs.h"

#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_AnchorStatesTest {

using namespace engram;
using namespace engram::test;

namespace {

struct Fixture {
    const Case& c;
    TempDir root, home;
    Engine engine{{root.path(), "test", home.path(), 30, "test"}};
    std::string rel, original;

    explicit Fixture(const Case& c)
        : c(c)
        , rel("src/" + c.file) {
        original = readFixture(fixturePath(c));
        root.write(rel, original);
    }
    std::string remember(AnchorSpec spec, const std::string& text) {
        RememberRequest r;
        r.text = text;
        r.agent = "test:agent";
        r.anchors = {std::move(spec)};
        return engine.remember(r).claim.id;
    }
    std::string bySymbol(const std::string& symbol) {
        return remember(AnchorSpec{.path = rel, .symbol = symbol}, "about " + symbol);
    }
    std::string state(const std::string& id) { return engine.get(id).anchorState; }
    void write(const std::string& text) { root.write(rel, text); }
};

// 1-based line and 0-based byte column of the snippet's start.
std::pair<int, int> lineOf(const std::string& text, const std::string& snippet) {
    auto at = text.find(snippet);
    REQUIRE(at != std::string::npos);
    int line = 1;
    size_t lineStart = 0;
    for (size_t i = 0; i < at; ++i)
        if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
        }
    return {line, int(at - lineStart)};
}

} // namespace

TEST_CASE("symbol anchors in every language: intact, drifted, moved, orphaned", "[anchors]") {
    for (const auto& c : cases()) {
        DYNAMIC_SECTION(c.lang) {
            Fixture f(c);
            auto body = f.bySymbol(c.bodySymbol);
            auto type = f.bySymbol(c.klass);
            auto renamed = f.bySymbol(c.renamedFrom);
            auto [line, column] = lineOf(f.original, c.inMethod);
            auto byPosition = f.remember(AnchorSpec{.path = f.rel, .line = line, .column = column},
                                         "found by position");
            CHECK(f.engine.get(byPosition).claim.anchors.at(0).symbol == c.method);
            for (auto& id : {body, type, renamed, byPosition})
                CHECK(f.state(id) == "intact");

            // A formatter pass and comment edits over the whole file.
            f.write(readFixture(fixturePath(c, true)));
            for (auto& id : {body, type, renamed, byPosition})
                CHECK(f.state(id) == "intact");

            f.write(apply(f.original, c.body));
            CHECK(f.state(body) == "drifted");
            // A type's hash covers what its definition encloses: an edit
            // inside a method written in the type's body drifts a claim about
            // the type too (not so for Go methods or Rust impl blocks, which
            // stand outside the type's definition).
            bool inType = false;
            {
                auto syms = syntax::extractSymbols(c.lang, f.original);
                const syntax::Symbol *t = nullptr, *b = nullptr;
                for (auto& s : syms) {
                    if (s.qualified == c.klass && !t) t = &s;
                    if (s.qualified == c.bodySymbol && !b) b = &s;
                }
                REQUIRE((t && b));
                inType = t->startByte <= b->startByte && b->endByte <= t->endByte;
            }
            CHECK(f.state(type) == (inType ? "drifted" : "intact"));

            f.write(apply(f.original, c.rename));
            CHECK(f.state(renamed) == "moved");
            auto re = f.engine.reverify(renamed, "test:agent", "checked after the rename");
            CHECK(re.anchorState == "intact");
            CHECK(re.claim.anchors.at(0).symbol == c.renamedTo);
            CHECK(re.claim.verified.has_value());

            removeFile(f.root / f.rel);
            for (auto& id : {body, type, renamed, byPosition})
                CHECK(f.state(id) == "orphaned");
        }
    }
}

TEST_CASE("an unknown or ambiguous symbol is refused listing the candidates", "[anchors]") {
    const Case& py = cases().at(0);
    Fixture f(py);
    try {
        f.bySymbol("no_such_function");
        FAIL("accepted an unknown symbol");
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::AnchorNotFound);
        CHECK(std::string(e.what()).find(py.bodySymbol) != std::string::npos);
    }
    CHECK(listFiles(f.root / ".engram/claims").empty());
}

TEST_CASE("re-verifying an orphaned claim is refused and changes nothing", "[anchors]") {
    Fixture f(cases().at(0));
    auto id = f.bySymbol(cases().at(0).bodySymbol);
    removeFile(f.root / f.rel);
    try {
        f.engine.reverify(id, "test:agent", "");
        FAIL("re-verified an orphan");
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::AnchorNotFound);
    }
    CHECK_FALSE(f.engine.get(id).claim.verified.has_value());
}

TEST_CASE("a definition moved to another file is reported moved, with its new place", "[anchors]") {
    const Case& py = cases().at(0);
    REQUIRE(py.lang == "python");
    Fixture f(py);
    auto id = f.bySymbol("constant_time_equal");
    std::string def = "def constant_time_equal(a, b):\n    return hmac.compare_digest(a, b)\n";
    REQUIRE(f.original.find(def) != std::string::npos);
    std::string without = f.original;
    without.erase(without.find(def), def.size());
    f.write(without);
    f.root.write("src/crypto_util.py", "import hmac\n\n\n" + def);

    auto got = f.engine.get(id);
    CHECK(got.anchorState == "moved");
    // The finding is on the code where it is now, in the other file: the
    // editor and SARIF place a finding on the file it names.
    auto fs = f.engine.findings({});
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].code == "engram.moved");
    CHECK(fs[0].path == "src/crypto_util.py");
    CHECK(fs[0].range.startLine == 3);
    CHECK(fs[0].range.endLine == 4);
    CHECK(fs[0].message.find("constant_time_equal in " + f.rel +
                             " is now constant_time_equal in src/crypto_util.py") !=
          std::string::npos);
    // A pull request that only added the new file still reports it.
    CHECK(f.engine.findings({.changed = std::set<std::string>{"src/crypto_util.py"}}).size() == 1);
    auto re = f.engine.reverify(id, "test:agent", "moved to crypto_util");
    CHECK(re.anchorState == "intact");
    CHECK(re.claim.anchors.at(0).path == "src/crypto_util.py");
    CHECK(re.claim.anchors.at(0).symbol == "constant_time_equal");

    // Gone from both files: orphaned.
    removeFile(f.root / "src/crypto_util.py");
    CHECK(f.engine.get(id).anchorState == "orphaned");
}

TEST_CASE("store.conf maps extensions to languages, and its mistakes are reported by line",
          "[anchors]") {
    TempDir root, home;
    root.write(".engram/store.conf", "name: demo\nlanguage: .pyx python\nlanguage: .weird\n");
    root.write("tool.pyx", "def run():\n    return 1\n");
    Engine engine({root.path(), "test", home.path(), 30, "test"});
    RememberRequest r;
    r.text = "run returns one";
    r.agent = "a";
    r.anchors = {AnchorSpec{.path = "tool.pyx", .symbol = "run"}};
    auto c = engine.remember(r);
    CHECK(c.claim.anchors.at(0).language == "python");
    REQUIRE(engine.configErrors().size() == 1);
    CHECK(engine.configErrors()[0].find("line 3") != std::string::npos);
}

TEST_CASE("in every language, a definition cut and pasted into a new file is reported moved",
          "[anchors]") {
    for (const auto& c : cases()) {
        DYNAMIC_SECTION(c.lang) {
            Fixture f(c);
            auto symbols = syntax::extractSymbols(c.lang, f.original);
            // A free function (a class for Java, which has none): one that no
            // other definition but a namespace or module encloses.
            const syntax::Symbol* pick = nullptr;
            for (auto& s : symbols) {
                if (s.kind != (c.lang == "java" ? "class" : "function")) continue;
                bool nested = false;
                for (auto& o : symbols)
                    nested |= &o != &s && o.kind != "namespace" && o.kind != "module" &&
                              o.startByte <= s.startByte && s.endByte <= o.endByte;
                if (!nested) {
                    pick = &s;
                    break;
                }
            }
            REQUIRE(pick);
            auto id = f.bySymbol(pick->qualified);
            std::string def = f.original.substr(pick->startByte, pick->endByte - pick->startByte);
            std::string rest = f.original;
            rest.erase(pick->startByte, pick->endByte - pick->startByte);
            f.write(rest);
            std::string ext = c.file.substr(c.file.rfind('.'));
            f.root.write("src/moved_here" + ext, def + "\n");
            auto got = f.engine.get(id);
            INFO(pick->qualified);
            CHECK(got.anchorState == "moved");
            auto re = f.engine.reverify(id, "test:agent", "followed the move");
            CHECK(re.claim.anchors.at(0).path == "src/moved_here" + ext);
            CHECK(re.anchorState == "intact");
        }
    }
}

namespace {

// Every whole-word occurrence of `from` in `text` renamed to `to`, as a
// rename refactoring does (the fixtures spell their type names only in code
// and comments, never inside string literals).
std::string renameEverywhere(const std::string& text, const std::string& from,
                             const std::string& to) {
    auto word = [](char ch) { return std::isalnum((unsigned char)ch) || ch == '_'; };
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
        if (text.compare(i, from.size(), from) == 0 && (i == 0 || !word(text[i - 1])) &&
            (i + from.size() == text.size() || !word(text[i + from.size()]))) {
            out += to;
            i += from.size();
        } else {
            out += text[i++];
        }
    }
    return out;
}

std::string lastComponent(const std::string& qualified) {
    size_t at = qualified.find_last_of(".:");
    return at == std::string::npos ? qualified : qualified.substr(at + 1);
}

} // namespace

TEST_CASE("in every language, a type renamed everywhere (constructors, self-references "
          "included) is reported moved, and so are its members",
          "[anchors]") {
    for (const auto& c : cases()) {
        DYNAMIC_SECTION(c.lang) {
            Fixture f(c);
            auto type = f.bySymbol(c.klass);
            auto member = f.bySymbol(c.method);
            const std::string name = lastComponent(c.klass), renamed = name + "Renamed";
            std::string after = renameEverywhere(f.original, name, renamed);
            REQUIRE(after != f.original);
            f.write(after);
            INFO(c.klass << " -> " << renamed);
            CHECK(f.state(type) == "moved");
            auto re = f.engine.reverify(type, "test:agent", "followed the rename");
            CHECK(lastComponent(re.claim.anchors.at(0).symbol) == renamed);
            CHECK(re.anchorState == "intact");
            // A member whose qualified name goes through the type moves with
            // it (Rust and Go methods too: `impl T`, `func (t *T)`). C has no
            // members: its case's "method" is a function over the struct.
            bool throughType = false;
            for (size_t at = 0; (at = c.method.find(name, at)) != std::string::npos; ++at)
                throughType |= c.method.compare(at + name.size(), 1, ".") == 0 ||
                               c.method.compare(at + name.size(), 2, "::") == 0;
            if (throughType) {
                CHECK(f.state(member) == "moved");
                auto reMember = f.engine.reverify(member, "test:agent", "followed the rename");
                CHECK(reMember.claim.anchors.at(0).symbol.find(renamed) != std::string::npos);
            }
        }
    }
}

TEST_CASE("in every language, a function renamed everywhere is reported moved", "[anchors]") {
    for (const auto& c : cases()) {
        DYNAMIC_SECTION(c.lang) {
            Fixture f(c);
            // A function that no type encloses (Java: a method of the type).
            const syntax::Symbol* pick = nullptr;
            const auto symbols = syntax::extractSymbols(c.lang, f.original);
            for (auto& s : symbols) {
                if (c.lang == "java" ? s.kind == "method" : s.kind == "function") {
                    pick = &s;
                    break;
                }
            }
            REQUIRE(pick);
            const std::string qualified = pick->qualified, name = pick->name;
            auto fn = f.bySymbol(qualified);
            f.write(renameEverywhere(f.original, name, name + "Renamed"));
            INFO(qualified);
            CHECK(f.state(fn) == "moved");
            auto re = f.engine.reverify(fn, "test:agent", "followed the rename");
            CHECK(lastComponent(re.claim.anchors.at(0).symbol) == name + "Renamed");
        }
    }
}

TEST_CASE("the code index parses a workspace of many files (on several threads) into the same "
          "symbols a single parse gives, and re-parses only what changed",
          "[anchors]") {
    TempDir root, home;
    // Every fixture four times over, under different directories: enough
    // files for the parallel path.
    size_t expectedSymbols = 0, files = 0;
    for (int copy = 0; copy < 4; ++copy)
        for (auto& c : cases()) {
            std::string text = readFixture(fixturePath(c));
            root.write("d" + std::to_string(copy) + "/" + c.file, text);
            expectedSymbols += syntax::extractSymbols(c.lang, text).size();
            ++files;
        }
    Engine engine({root.path(), "test", home.path(), 30, "test"});
    RememberRequest r;
    r.text = "a claim, so the project store exists";
    r.agent = "test:agent";
    engine.remember(r);
    size_t lastDone = 0, lastTotal = 0;
    auto report = engine.indexCode([&](size_t done, size_t total) {
        CHECK(done >= lastDone);
        lastDone = done;
        lastTotal = total;
    });
    CHECK(report.files == files);
    CHECK(report.parsed == files);
    CHECK(report.symbols == expectedSymbols);
    CHECK(lastDone == files);
    CHECK(lastTotal == files);

    // A definition cut from one copy and pasted into a new file is found there.
    const Case& py = cases().at(0);
    auto id = [&] {
        RememberRequest a;
        a.text = "about constant_time_equal";
        a.agent = "test:agent";
        a.anchors = {AnchorSpec{.path = "d2/" + py.file, .symbol = "constant_time_equal"}};
        return engine.remember(a).claim.id;
    }();
    std::string text = readFixture(fixturePath(py));
    std::string def = "def constant_time_equal(a, b):\n    return hmac.compare_digest(a, b)\n";
    std::string without = text;
    without.erase(without.find(def), def.size());
    root.write("d2/" + py.file, without);
    root.write("moved/elsewhere.py", "import hmac\n\n\n" + def);
    auto again = engine.indexCode();
    CHECK(again.files == files + 1);
    CHECK(again.parsed == 2); // the edited file and the new one
    CHECK(engine.get(id).anchorState == "moved");

    // A linked file is indexed only when it leads to the workspace's own.
    TempDir outside;
    outside.write("secret.py", "def leaked():\n    return 1\n");
    std::filesystem::create_symlink(outside.path() + "/secret.py", root.path() + "/d0/leak.py");
    std::filesystem::create_symlink(root.path() + "/moved/elsewhere.py",
                                    root.path() + "/d0/alias.py");
    auto linked = engine.indexCode();
    CHECK(linked.files == files + 2); // alias.py, not leak.py
    CHECK(linked.parsed == 1);

    // An index written under other digest rules (an earlier engram's, which
    // said none or another version) is parsed again in full, once.
    for (const std::string earlier : {"", "1"}) {
        INFO("rules recorded: '" << earlier << "'");
        {
            Store store(root / ".engram", "project", "test");
            Index index(store);
            if (earlier.empty())
                sql::Db(store.indexPath(), false)
                    .exec(std::string("DELETE FROM history_facts WHERE key = '") + kCodeRulesFact +
                          "'");
            else
                index.putHistoryFacts({{kCodeRulesFact, earlier}});
        }
        auto upgraded = engine.indexCode();
        CHECK(upgraded.parsed == files + 2);
        CHECK(engine.indexCode().parsed == 0);
    }
}

namespace {

// A function whose body holds a local variable named like the function,
// per language: the rename that leaves the local as it is (spf13/cobra's
// `displayName` became `DisplayName`, its `displayName := ...` kept).
struct LocalOfOwnName {
    std::string lang, file, text;
    std::string symbol;    // its qualified name
    Edit rename;           // renames the definition only
    std::string renamedTo; // the qualified name after
    Edit body;             // then changes its body too
};

const std::vector<LocalOfOwnName>& localsOfOwnName() {
    static const std::vector<LocalOfOwnName> all = {
        {"python",
         "count.py",
         "def total(values):\n    total = 0\n    for v in values:\n        total += v\n"
         "    return total\n",
         "total",
         {"def total(values):", "def sum_values(values):"},
         "sum_values",
         {"total += v", "total -= v"}},
        {"javascript",
         "count.js",
         "function count(items) {\n  let count = 0;\n  for (const item of items) if (item) count "
         "+= 1;\n  return count;\n}\n",
         "count",
         {"function count(items)", "function tally(items)"},
         "tally",
         {"count += 1", "count += 2"}},
        {"typescript",
         "count.ts",
         "export function count(items: boolean[]): number {\n  let count = 0;\n  for (const item "
         "of items) if (item) count += 1;\n  return count;\n}\n",
         "count",
         {"function count(items", "function tally(items"},
         "tally",
         {"count += 1", "count += 2"}},
        {"tsx",
         "count.tsx",
         "export function count(items: boolean[]): number {\n  let count = 0;\n  for (const item "
         "of items) if (item) count += 1;\n  return count;\n}\n",
         "count",
         {"function count(items", "function tally(items"},
         "tally",
         {"count += 1", "count += 2"}},
        {"c",
         "count.c",
         "int count(const int *items, int n) {\n    int count = 0;\n    for (int i = 0; i < n; "
         "++i)\n        if (items[i]) count += 1;\n    return count;\n}\n",
         "count",
         {"int count(const int", "int tally(const int"},
         "tally",
         {"count += 1", "count += 2"}},
        {"cpp",
         "count.cpp",
         "int count(const int *items, int n) {\n    int count = 0;\n    for (int i = 0; i < n; "
         "++i)\n        if (items[i]) count += 1;\n    return count;\n}\n",
         "count",
         {"int count(const int", "int tally(const int"},
         "tally",
         {"count += 1", "count += 2"}},
        {"go",
         "command.go",
         "package cobra\n\nimport \"strings\"\n\ntype Command struct {\n\tUse string\n}\n\n"
         "func (c *Command) displayName() string {\n\tdisplayName := c.Use\n\tif i := "
         "strings.Index(displayName, \" \"); i >= 0 {\n\t\tdisplayName = displayName[:i]\n\t}\n"
         "\treturn displayName\n}\n",
         "Command.displayName",
         {"func (c *Command) displayName() string", "func (c *Command) DisplayName() string"},
         "Command.DisplayName",
         {"displayName[:i]", "displayName[i:]"}},
        {"rust",
         "total.rs",
         "fn total(values: &[i32]) -> i32 {\n    let mut total = 0;\n    for v in values {\n"
         "        total += v;\n    }\n    total\n}\n",
         "total",
         {"fn total(values", "fn sum_values(values"},
         "sum_values",
         {"total += v", "total -= v"}},
        {"java",
         "Counter.java",
         "class Counter {\n    int count(boolean[] items) {\n        int count = 0;\n        for "
         "(boolean item : items) if (item) count += 1;\n        return count;\n    }\n}\n",
         "Counter.count",
         {"int count(boolean[] items)", "int tally(boolean[] items)"},
         "Counter.tally",
         {"count += 1", "count += 2"}},
    };
    return all;
}

} // namespace

TEST_CASE("in every language, a function renamed with a local variable of its old name kept is "
          "reported moved, and orphaned when its body changed too",
          "[anchors]") {
    for (const auto& c : localsOfOwnName()) {
        DYNAMIC_SECTION(c.lang) {
            TempDir root, home;
            Engine engine{{root.path(), "test", home.path(), 30, "test"}};
            const std::string rel = "src/" + c.file;
            root.write(rel, c.text);
            RememberRequest r;
            r.text = "about " + c.symbol;
            r.agent = "test:agent";
            r.anchors = {AnchorSpec{.path = rel, .symbol = c.symbol}};
            const std::string id = engine.remember(r).claim.id;
            REQUIRE(engine.get(id).anchorState == "intact");

            const std::string renamed = apply(c.text, c.rename);
            root.write(rel, renamed);
            CHECK(engine.get(id).anchorState == "moved");

            // Its body changed as well: not the same code under a new name.
            root.write(rel, apply(renamed, c.body));
            CHECK(engine.get(id).anchorState == "orphaned");

            root.write(rel, renamed);
            auto re = engine.reverify(id, "test:agent", "followed the rename");
            CHECK(re.anchorState == "intact");
            CHECK(re.claim.anchors.at(0).symbol == c.renamedTo);
        }
    }
}

TEST_CASE("in every language, in git, a function renamed and edited is orphaned with its likely "
          "successor named, and re-verifying follows it",
          "[anchors][successor]") {
    for (const auto& c : localsOfOwnName()) {
        DYNAMIC_SECTION(c.lang) {
            TempDir root, home;
            const std::string rel = "src/" + c.file;
            root.write(rel, c.text);
            gitInitCommitted(root.path());
            Engine engine{{root.path(), "test", home.path(), 30, "test"}};
            RememberRequest r;
            r.text = "about " + c.symbol;
            r.agent = "test:agent";
            r.anchors = {AnchorSpec{.path = rel, .symbol = c.symbol}};
            const std::string id = engine.remember(r).claim.id;
            const std::string successor = rel + "#" + c.renamedTo;

            // Renamed and edited, not committed: the code it was stamped on
            // is HEAD's.
            root.write(rel, apply(apply(c.text, c.rename), c.body));
            CHECK(engine.get(id).anchorState == "orphaned");
            auto findings = engine.findings({"project"});
            REQUIRE(findings.size() == 1);
            CHECK(findings[0].code == "engram.orphaned");
            CHECK(findings[0].successor == successor);
            CHECK(findings[0].path == rel); // on the successor, where the code is
            CHECK(findings[0].message.find(c.renamedTo + " there looks like it") !=
                  std::string::npos);

            // Committed: found in the file's history.
            gitCommitAll(root.path(), "rename and edit");
            CHECK(engine.findings({"project"}).at(0).successor == successor);

            auto re = engine.reverify(id, "test:agent", "checked against the successor");
            CHECK(re.anchorState == "intact");
            CHECK(re.claim.anchors.at(0).symbol == c.renamedTo);
        }
    }
}

TEST_CASE("no successor is named without the code the anchor was stamped on, or for a deletion",
          "[anchors][successor]") {
    const auto& c = localsOfOwnName().front(); // python
    const std::string rel = "src/" + c.file;
    const std::string other = "\n\ndef unrelated(rows):\n    return [r for r in rows if r]\n";
    auto remember = [&](Engine& engine) {
        RememberRequest r;
        r.text = "about " + c.symbol;
        r.agent = "test:agent";
        r.anchors = {AnchorSpec{.path = rel, .symbol = c.symbol}};
        return engine.remember(r).claim.id;
    };
    SECTION("outside git") {
        TempDir root, home;
        root.write(rel, c.text);
        Engine engine{{root.path(), "test", home.path(), 30, "test"}};
        const std::string id = remember(engine);
        root.write(rel, apply(apply(c.text, c.rename), c.body));
        CHECK(engine.get(id).anchorState == "orphaned");
        CHECK(engine.findings({"project"}).at(0).successor.empty());
        CHECK_THROWS_AS(engine.reverify(id, "test:agent", ""), EngramError);
    }
    SECTION("deleted, and other code written") {
        TempDir root, home;
        root.write(rel, c.text);
        gitInitCommitted(root.path());
        Engine engine{{root.path(), "test", home.path(), 30, "test"}};
        const std::string id = remember(engine);
        root.write(rel, "import os" + other);
        CHECK(engine.get(id).anchorState == "orphaned");
        CHECK(engine.findings({"project"}).at(0).successor.empty());
    }
    SECTION("stamped on code no commit holds") {
        TempDir root, home;
        root.write(rel, "import os\n");
        gitInitCommitted(root.path());
        root.write(rel, c.text); // written after the last commit
        Engine engine{{root.path(), "test", home.path(), 30, "test"}};
        const std::string id = remember(engine);
        root.write(rel, apply(apply(c.text, c.rename), c.body));
        CHECK(engine.findings({"project"}).at(0).successor.empty());
    }
}

TEST_CASE("a file git renamed keeps its anchors: moved when unchanged and drifted there when "
          "edited",
          "[anchors]") {
    TempDir root, home;
    const std::string config = "retries: 3\ntimeout: 30\n\nqueue:\n  name: billing\n  size: 10\n";
    root.write("deploy/app.yaml", config);
    // Large enough that git still pairs it with its renamed self after one
    // line changes (it wants half the content alike).
    const std::string pay = "def charge(a):\n    return a\n\n\ndef refund(a):\n    return -a\n\n\n"
                            "def fee(a):\n    return a // 100\n\n\ndef total(a, b):\n"
                            "    return a + b\n";
    root.write("src/pay.py", pay);
    gitInitCommitted(root.path());
    Engine engine{{root.path(), "test", home.path(), 30, "test"}};
    auto remember = [&](AnchorSpec spec) {
        RememberRequest r;
        r.text = "the billing queue holds ten jobs";
        r.agent = "test:agent";
        r.anchors = {std::move(spec)};
        return engine.remember(r).claim.id;
    };
    const std::string range = remember({.path = "deploy/app.yaml", .lines = {{4, 6}}});
    const std::string whole = remember({.path = "deploy/app.yaml"});
    const std::string code = remember({.path = "src/pay.py"});
    auto finding = [&](const std::string& id) {
        for (auto& f : engine.findings({"project"}))
            if (f.claimId == id) return f;
        FAIL("no finding for " + id);
        return Finding{};
    };

    const std::string charge = remember({.path = "src/pay.py", .symbol = "charge"});

    // A rename git was not told of: it cannot be paired, the anchors are
    // orphaned.
    std::filesystem::rename(root / "src/pay.py", root / "src/payments.py");
    CHECK(finding(code).code == "engram.orphaned");
    // Staged (`git mv`), unchanged: moved, reported in the new file.
    git(root.path(), {"add", "-A", "src"});
    auto f = finding(code);
    CHECK(f.code == "engram.moved");
    CHECK(f.path == "src/payments.py");
    CHECK(f.message.find("moved: src/pay.py is now src/payments.py, unchanged") !=
          std::string::npos);
    CHECK(finding(charge).code == "engram.moved"); // its shape, in the code index or git's
    // Its definition edited in the renamed file: drifted there (the shape
    // alone finds no definition), saying where the file went.
    root.write("src/payments.py",
               std::string(pay).replace(pay.find("return a\n"), 9, "return a * 2\n"));
    git(root.path(), {"add", "-A", "src"});
    f = finding(charge);
    CHECK(f.code == "engram.drifted");
    CHECK(f.path == "src/payments.py");
    CHECK(f.message.find("its file renamed to src/payments.py") != std::string::npos);
    CHECK(finding(code).code == "engram.drifted");
    root.write("src/payments.py", pay);
    git(root.path(), {"add", "-A", "src"});

    // Committed, then renamed again and lines added above the range.
    git(root.path(), {"mv", "deploy/app.yaml", "deploy/service.yaml"});
    gitCommitAll(root.path(), "rename");
    git(root.path(), {"mv", "deploy/service.yaml", "deploy/billing.yaml"});
    root.write("deploy/billing.yaml", "# billing\n" + config);
    f = finding(range);
    CHECK(f.code == "engram.moved");
    CHECK(f.path == "deploy/billing.yaml");
    CHECK(f.range.startLine == 4);
    CHECK(f.message.find("lines 4-6 of deploy/app.yaml are now lines 5-7 of deploy/billing.yaml, "
                         "unchanged") != std::string::npos);
    // The whole file changed with it: drifted, there, saying so.
    f = finding(whole);
    CHECK(f.code == "engram.drifted");
    CHECK(f.path == "deploy/billing.yaml");
    CHECK(f.message.find("renamed to deploy/billing.yaml and changed") != std::string::npos);

    // Re-verifying follows the rename.
    auto re = engine.reverify(range, "test:agent", "checked after the rename");
    CHECK(re.anchorState == "intact");
    CHECK(re.claim.anchors.at(0).path == "deploy/billing.yaml");
    CHECK(re.claim.anchors.at(0).startLine == 5);
    re = engine.reverify(whole, "test:agent", "checked after the rename");
    CHECK(re.claim.anchors.at(0).path == "deploy/billing.yaml");
    CHECK(engine.findings({"project"}).size() == 2); // src/pay.py's, not re-verified

    // A path used again after its file was renamed away is another file:
    // deleted, it is orphaned, not the renamed one's.
    root.write("deploy/app.yaml", "replicas: 2\n");
    gitCommitAll(root.path(), "a new app.yaml");
    const std::string again = remember({.path = "deploy/app.yaml"});
    git(root.path(), {"rm", "-q", "deploy/app.yaml"});
    gitCommitAll(root.path(), "app.yaml removed");
    CHECK(finding(again).code == "engram.orphaned");
}

TEST_CASE("a symbol in code the parser cannot read is unjudged, not orphaned, and one deleted "
          "beside an error is orphaned",
          "[anchors]") {
    TempDir root, home;
    Engine engine{{root.path(), "test", home.path(), 30, "test"}};
    const std::string rel = "src/Parser.java";
    const std::string text = "class Parser {\n"
                             "    int parse(String s) {\n"
                             "        return s.length();\n"
                             "    }\n"
                             "\n"
                             "    int check(String s) {\n"
                             "        return parse(s) * 2;\n"
                             "    }\n"
                             "}\n";
    root.write(rel, text);
    RememberRequest r;
    r.text = "check doubles the length";
    r.agent = "test:agent";
    r.anchors = {AnchorSpec{.path = rel, .symbol = "Parser.check"}};
    const std::string id = engine.remember(r).claim.id;
    REQUIRE(engine.get(id).anchorState == "intact");

    // A string left open: Java's lexer reads the rest of the file as its
    // text, so no containment can find `check` again.
    const std::string open = apply(text, {"return s.length();", "return \"s.length();"});
    root.write(rel, open);
    auto got = engine.get(id);
    CHECK(got.anchorState == "unjudged");
    REQUIRE(got.places.size() == 1);
    CHECK(got.places[0].reason == "parse_error");

    // Deleted, with an error elsewhere in the file: nothing unreadable
    // spells its name, so it is gone.
    std::string without = apply(text, {"    int check(String s) {\n"
                                       "        return parse(s) * 2;\n"
                                       "    }\n",
                                       ""});
    root.write(rel, apply(without, {"return s.length();", "return (s.length();"}));
    CHECK(engine.get(id).anchorState == "orphaned");
}

} // namespace unit_AnchorStatesTest
