// Memory diagnostics (Engine::findings): drifted, moved, orphaned, stale,
// invalid and secret findings with their exact codes, severities, paths and
// ranges, against a real workspace and real claim files.
#include "engine/Engine.h"
#include "support/Annotations.h"
#include "support/LanguageCases.h"
#include "support/TempDir.h"
#include "support/Workspace.h"
#include "syntax/Symbols.h"
#include "util/Error.h"
#include "util/Time.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_FindingsTest {

using namespace engram;
using namespace engram::test;

namespace {

// 0-based lines:           0          1 2 3
const std::string kSource = "import os\n\n\nclass TokenValidator:\n"
                            // 4
                            "    def validate(self, token):\n"
                            // 5
                            "        return token.ok\n"
                            // 6 7 8
                            "\n\ndef connect(url):\n"
                            // 9
                            "    return url\n";

constexpr const char* kToken = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

struct Workspace : test::EngineWorkspace {
    Workspace() { root.write("src/svc.py", kSource); }

    std::string remember(const std::string& text, const std::string& label, AnchorSpec anchor,
                         const std::string& tier = "project") {
        RememberRequest r;
        r.text = text;
        r.label = label;
        r.agent = "test:agent";
        r.tier = tier;
        r.anchors = {std::move(anchor)};
        return engine.remember(r).claim.id;
    }
    std::string claimRel(const std::string& id) const { return ".engram/claims/" + id + ".md"; }
    std::string claimAbs(const std::string& id) const { return root / claimRel(id); }
    void edit(const std::string& from, const std::string& to) {
        std::string text = kSource;
        auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        root.write("src/svc.py", text.replace(at, from.size(), to));
    }
    // A claim file written by hand (as a person would, then `git add`), and
    // the index told about it the way the file watcher tells it.
    void handWrite(const std::string& id, const std::string& contents) {
        root.write(claimRel(id), contents);
        engine.refresh();
    }
    std::vector<Finding> findings(FindingsOptions o = {}) { return engine.findings(o); }
};

std::vector<std::string> codes(const std::vector<Finding>& fs) {
    std::vector<std::string> out;
    for (auto& f : fs)
        out.push_back(f.code);
    return out;
}

void checkRange(const TextRange& r, uint32_t sl, uint32_t sc, uint32_t el, uint32_t ec) {
    CHECK(r.startLine == sl);
    CHECK(r.startColumn == sc);
    CHECK(r.endLine == el);
    CHECK(r.endColumn == ec);
}
// The range marked in an annotated text (ASCII: byte columns are UTF-16's).
void checkRange(const TextRange& r, const Annotations::Range& want) {
    checkRange(r, want.begin.line, want.begin.column, want.end.line, want.end.column);
}

bool contains(const std::string& hay, const std::string& needle) {
    return hay.find(needle) != std::string::npos;
}

} // namespace

TEST_CASE("findings: intact anchors and fresh claims give none", "[findings]") {
    Workspace w;
    w.remember("validate returns the ok flag", "validate-ok",
               {.path = "src/svc.py", .symbol = "TokenValidator.validate"});
    w.remember("connect takes a url", "connect-url", {.path = "src/svc.py", .symbol = "connect"});
    w.remember("the module imports os", "imports", {.path = "src/svc.py", .lines = {{1, 1}}});
    w.remember("the whole file", "whole", {.path = "src/svc.py"});
    CHECK(w.findings().empty());
    // Reformatting does not drift anything.
    w.root.write("src/svc.py", "import os\nclass TokenValidator:\n  def validate(self, token):\n"
                               "    return token.ok\ndef connect(url): return url\n");
    CHECK(codes(w.findings()) == std::vector<std::string>{});
}

TEST_CASE("findings: a drifted symbol is a warning on its current range, gone after reverify",
          "[findings]") {
    Workspace w;
    auto id = w.remember("validate returns the ok flag; callers must check it", "validate-ok",
                         {.path = "src/svc.py", .symbol = "TokenValidator.validate"});
    // The body changes; the finding covers the definition as it is now.
    Annotations now("import os\n\n\nclass TokenValidator:\n"
                    "    [[def validate(self, token):\n"
                    "        return token.valid]]\n"
                    "\n\ndef connect(url):\n"
                    "    return url\n");
    w.root.write("src/svc.py", now.code());

    auto fs = w.findings();
    REQUIRE(fs.size() == 1);
    const Finding& f = fs[0];
    CHECK(f.code == "engram.drifted");
    CHECK(f.severity == "warning");
    CHECK(f.claimId == id);
    CHECK(f.label == "validate-ok");
    CHECK(f.tier == "project");
    CHECK(f.path == "src/svc.py");
    CHECK(f.symbol == "TokenValidator.validate");
    CHECK(f.subject == "src/svc.py#TokenValidator.validate");
    checkRange(f.range, now.range());
    CHECK(f.claimFile == w.claimAbs(id));
    CHECK(contains(f.message, "drifted: TokenValidator.validate in src/svc.py changed since"));
    CHECK(contains(f.message, "validate-ok"));
    CHECK(contains(f.message, "validate returns the ok flag; callers must check it"));
    CHECK(contains(f.message, "engram reverify " + id));
    CHECK(f.message.find('\n') == std::string::npos);

    auto summary = summarize(fs);
    CHECK(summary.byCode.at("engram.drifted") == 1);
    CHECK(summary.byCode.at("engram.orphaned") == 0);
    CHECK(summary.byCode.at("engram.conflict") == 0); // computed, none here

    w.engine.reverify(id, "test:reviewer", "checked: valid is the new name of ok");
    CHECK(w.findings().empty());
}

TEST_CASE("findings: a drifted line range points at its lines", "[findings]") {
    Workspace w;
    auto id = w.remember("connect is two lines", "connect-lines",
                         {.path = "src/svc.py", .lines = {{9, 10}}});
    w.edit("return url", "return url.strip()");
    auto fs = w.findings();
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].code == "engram.drifted");
    CHECK(fs[0].path == "src/svc.py");
    CHECK(fs[0].symbol.empty());
    CHECK(fs[0].subject == "src/svc.py:9-10");
    checkRange(fs[0].range, 8, 0, 10, 0);
    CHECK(contains(fs[0].message, "lines 9-10 of src/svc.py changed"));
    CHECK(fs[0].claimId == id);
}

TEST_CASE("findings: a line range under lines added or removed above is moved, unchanged",
          "[findings]") {
    Workspace w;
    auto id = w.remember("connect is two lines", "connect-lines",
                         {.path = "src/svc.py", .lines = {{9, 10}}});
    auto importOs =
        w.remember("the module imports os", "imports", {.path = "src/svc.py", .lines = {{1, 1}}});

    // Two lines above: the range's text is at 11-12, the import at 3.
    w.root.write("src/svc.py", "# header\n\n" + kSource);
    auto fs = w.findings();
    REQUIRE(fs.size() == 2);
    for (auto& f : fs) {
        CHECK(f.code == "engram.moved");
        CHECK(f.severity == "information");
        CHECK(f.path == "src/svc.py");
    }
    auto lines = fs[0].claimId == id ? fs[0] : fs[1];
    checkRange(lines.range, 10, 0, 12, 0);
    CHECK(contains(lines.message, "lines 9-10 of src/svc.py are now lines 11-12, unchanged"));
    auto line = fs[0].claimId == id ? fs[1] : fs[0];
    CHECK(contains(line.message, "line 1 of src/svc.py is now line 3, unchanged"));
    CHECK(w.engine.get(importOs).anchorState == "moved");
    // The search is bounded (an edit in the editor asks again): lines
    // further than its budget of hashing reaches are not looked for.
    std::string pad;
    for (int i = 0; i < 1000; ++i)
        pad += "pass\n";
    w.root.write("src/svc.py", pad + kSource);
    CHECK(w.engine.get(importOs).anchorState == "moved");
    for (int i = 0; i < 250; ++i)
        pad += pad.substr(0, 5000);
    w.root.write("src/svc.py", pad + kSource);
    CHECK(w.engine.get(importOs).anchorState == "drifted");
    w.root.write("src/svc.py", "# header\n\n" + kSource);

    // Lines removed above, the file now shorter than the old range's end.
    w.root.write("src/svc.py", kSource.substr(kSource.find("def connect")));
    CHECK(w.engine.get(id).anchorState == "moved");

    // Re-verifying follows it: the anchor names the lines it is on now.
    auto re = w.engine.reverify(id, "test:reviewer", "");
    CHECK(re.anchorState == "intact");
    CHECK(re.claim.anchors.at(0).startLine == 1);
    CHECK(re.claim.anchors.at(0).endLine == 2);

    // The same lines in two places: which one it is cannot be told.
    w.root.write("src/svc.py", "def other():\n    pass\n" +
                                   kSource.substr(kSource.find("def "
                                                               "connect")) +
                                   "\n" + kSource.substr(kSource.find("def connect")));
    CHECK(w.engine.get(id).anchorState == "drifted");
    // Changed where it is, and nowhere unchanged: drifted.
    w.root.write("src/svc.py", "def connect(url):\n    return url.strip()\n");
    CHECK(w.engine.get(id).anchorState == "drifted");
}

TEST_CASE("findings: a renamed symbol is moved (information) on its new range", "[findings]") {
    Workspace w;
    auto id = w.remember("connect takes a url", "connect-url",
                         {.path = "src/svc.py", .symbol = "connect"});
    Annotations now("import os\n\n\nclass TokenValidator:\n"
                    "    def validate(self, token):\n"
                    "        return token.ok\n"
                    "\n\n[[def open_connection(url):\n"
                    "    return url]]\n");
    w.root.write("src/svc.py", now.code());
    auto fs = w.findings();
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].code == "engram.moved");
    CHECK(fs[0].severity == "information");
    CHECK(fs[0].path == "src/svc.py");
    CHECK(fs[0].symbol == "connect");
    checkRange(fs[0].range, now.range());
    CHECK(contains(fs[0].message, "connect is now open_connection in src/svc.py"));
    CHECK(contains(fs[0].message, "connect-url"));

    // Re-verifying follows the move: nothing left to report.
    auto after = w.engine.reverify(id, "test:reviewer", "");
    CHECK(after.claim.anchors.at(0).symbol == "open_connection");
    CHECK(w.findings().empty());
}

TEST_CASE("findings: an orphaned anchor is a warning on the claim file", "[findings]") {
    Workspace w;
    auto gone = w.remember("validate returns the ok flag", "validate-ok",
                           {.path = "src/svc.py", .symbol = "TokenValidator.validate"});
    w.root.write("other.py", "def f():\n    return 1\n");
    auto fileGone = w.remember("f returns one", "f-one", {.path = "other.py", .symbol = "f"});
    // The method disappears (not renamed: its body changes too); the other
    // file is deleted.
    w.root.write("src/svc.py", "import os\n\nclass TokenValidator:\n    pass\n");
    std::filesystem::remove(w.root / "other.py");

    auto fs = w.findings();
    REQUIRE(fs.size() == 2);
    for (auto& f : fs) {
        CHECK(f.code == "engram.orphaned");
        CHECK(f.severity == "warning");
        checkRange(f.range, 0, 0, 0, 0);
    }
    // Sorted by path: both are claim files; find each by id.
    auto byId = [&](const std::string& id) -> const Finding& {
        for (auto& f : fs)
            if (f.claimId == id) return f;
        FAIL("no finding for " << id);
        return fs[0];
    };
    const Finding& a = byId(gone);
    CHECK(a.path == w.claimRel(gone));
    CHECK(a.claimFile == w.claimAbs(gone));
    CHECK(a.symbol == "TokenValidator.validate");
    CHECK(contains(a.message, "TokenValidator.validate is no longer defined in src/svc.py"));
    const Finding& b = byId(fileGone);
    CHECK(b.path == w.claimRel(fileGone));
    CHECK(contains(b.message, "other.py no longer exists"));
    CHECK(fs[0].path < fs[1].path);
}

TEST_CASE("findings: a claim whose definition can no longer be told from its twins is drifted "
          "on the claim file, naming them",
          "[findings]") {
    Workspace w;
    const std::string twins = "if FAST:\n    def pick(xs):\n        return xs[0]\nelse:\n"
                              "    def pick(xs):\n        return xs[-1]\n";
    w.root.write("src/pick.py", twins);
    auto id = w.remember("the slow pick takes the last item", "slow-pick",
                         {.path = "src/pick.py", .line = 5});
    // A third pick arrives, and the claimed one changes: which one was it?
    std::string edited = "def pick(xs):\n    return None\n\n\n" + twins;
    edited.replace(edited.find("xs[-1]"), 6, "xs[-2]");
    w.root.write("src/pick.py", edited);
    auto fs = w.findings();
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].code == "engram.drifted");
    CHECK(fs[0].path == w.claimRel(id)); // not on a guess in the source file
    CHECK(contains(fs[0].message, "can no longer be told apart from 2 other definition(s)"));
    CHECK(contains(fs[0].message, "pick (function, line 1), pick (function, line 6), "
                                  "pick (function, line 9)"));
    // Re-verifying cannot pick one either: it is refused, naming them.
    try {
        w.engine.reverify(id, "test:agent", "");
        FAIL("an ambiguous anchor was re-stamped");
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::AnchorNotFound);
        CHECK(contains(e.what(), "can no longer be told apart"));
    }
}

TEST_CASE("findings: a claim older than stale_days is a hint on its claim file", "[findings]") {
    Workspace w;
    w.root.write("src/svc.py", kSource);
    w.handWrite("c-oldclaim0001", "---\n"
                                  "id: c-oldclaim0001\n"
                                  "label: old-news\n"
                                  "created: 2020-01-01T00:00:00Z\n"
                                  "---\n"
                                  "The service runs on Python 2\n");
    // Old but re-verified last week: not stale.
    w.handWrite("c-reverified01", "---\n"
                                  "id: c-reverified01\n"
                                  "label: checked\n"
                                  "created: 2020-01-01T00:00:00Z\n"
                                  "verified: " +
                                      formatUtc(nowUnix() - 7 * 86400) +
                                      "\n"
                                      "---\n"
                                      "Checked recently\n");
    // Unknown age: not called stale.
    w.handWrite("c-noage0000001", "---\nid: c-noage0000001\n---\nNobody knows when\n");
    // Retracted: not live, not reported.
    w.handWrite("c-retracted001", "---\nid: c-retracted001\nstatus: retracted\n"
                                  "created: 2020-01-01T00:00:00Z\n---\nWithdrawn\n");

    auto fs = w.findings();
    REQUIRE(fs.size() == 1);
    CHECK(fs[0].code == "engram.stale");
    CHECK(fs[0].severity == "hint");
    CHECK(fs[0].claimId == "c-oldclaim0001");
    CHECK(fs[0].label == "old-news");
    CHECK(fs[0].path == ".engram/claims/c-oldclaim0001.md");
    checkRange(fs[0].range, 0, 0, 0, 0);
    CHECK(contains(fs[0].message, "stale: written 2020-01-01"));
    CHECK(contains(fs[0].message, "The service runs on Python 2"));
}

TEST_CASE("findings: the project's store.conf sets stale_days for findings and recall",
          "[findings]") {
    auto daysAgo = [](int d) { return formatUtc(nowUnix() - int64_t(d) * 86400); };
    auto claim = [&](const std::string& id, int age) {
        return "---\nid: " + id + "\nlabel: " + id + "\ncreated: " + daysAgo(age) +
               "\n---\nThe retry budget of the service is three attempts (noted " +
               std::to_string(age) + " days ago)\n";
    };
    auto staleIds = [](Engine& e) {
        std::set<std::string> ids;
        for (auto& f : e.findings({}))
            if (f.code == "engram.stale") ids.insert(f.claimId);
        return ids;
    };
    auto staleRows = [](Engine& e) {
        RecallRequest q;
        q.query = "retry budget";
        std::set<std::string> ids;
        for (auto& row : e.recall(q).rows)
            if (row.stale && *row.stale) ids.insert(row.claim.id);
        return ids;
    };
    TempDir root, home;
    root.write("src/svc.py", kSource);
    root.write(".engram/claims/c-aged00000040.md", claim("c-aged00000040", 40));
    root.write(".engram/claims/c-aged00000120.md", claim("c-aged00000120", 120));
    {
        // The default: 30 days.
        Engine e({root.path(), "test", home.path(), 30, "test"});
        CHECK(staleIds(e) == std::set<std::string>{"c-aged00000040", "c-aged00000120"});
        CHECK(staleRows(e) == std::set<std::string>{"c-aged00000040", "c-aged00000120"});
    }
    root.write(".engram/store.conf", "name: svc\nstale_days: 90\n");
    Engine e({root.path(), "test", home.path(), 30, "test"});
    CHECK(e.configErrors().empty());
    CHECK(staleIds(e) == std::set<std::string>{"c-aged00000120"});
    CHECK(staleRows(e) == std::set<std::string>{"c-aged00000120"});
    auto fs = e.findings({});
    auto it = std::find_if(fs.begin(), fs.end(), [](auto& f) { return f.code == "engram.stale"; });
    REQUIRE(it != fs.end());
    CHECK(contains(it->message, "90 days"));
}

TEST_CASE("findings: a claim file that does not parse is an error naming its line", "[findings]") {
    Workspace w;
    w.handWrite("c-broken000001", "---\n"
                                  "id: c-broken000001\n"
                                  "this line has no colon\n"
                                  "---\n"
                                  "text\n");
    w.handWrite("not a claim id", "---\n---\ntext\n");
    auto fs = w.findings();
    REQUIRE(fs.size() == 2);
    CHECK(fs[0].code == "engram.invalid");
    CHECK(fs[0].severity == "error");
    CHECK(fs[0].path == ".engram/claims/c-broken000001.md");
    CHECK(fs[0].claimId == "c-broken000001");
    CHECK(fs[0].claimFile == w.root / ".engram/claims/c-broken000001.md");
    checkRange(fs[0].range, 2, 0, 2, 22); // the whole of line 3
    CHECK(contains(fs[0].message, "(line 3): expected 'key: value'"));

    CHECK(fs[1].code == "engram.invalid");
    CHECK(fs[1].path == ".engram/claims/not a claim id.md");
    CHECK(fs[1].claimId.empty());
    checkRange(fs[1].range, 0, 0, 0, 0);
    CHECK(contains(fs[1].message, "not a valid claim id"));

    // Fixed by hand: the finding goes away.
    w.handWrite("c-broken000001", "---\nid: c-broken000001\n---\ntext\n");
    std::filesystem::remove(w.root / ".engram/claims/not a claim id.md");
    w.engine.refresh();
    CHECK(w.findings().empty());
}

TEST_CASE("findings: a secret in a hand-edited claim file is an error that never echoes it",
          "[findings]") {
    Workspace w;
    w.handWrite("c-leaky0000001", std::string("---\n"
                                              "id: c-leaky0000001\n"
                                              "label: deploy-token\n"
                                              "created: ") +
                                      formatUtc(nowUnix()) +
                                      "\n"
                                      "tags: deploy\n"
                                      "---\n"
                                      "Deploys use the token " +
                                      kToken + " from the vault\n");
    auto fs = w.findings();
    REQUIRE(fs.size() == 1);
    const Finding& f = fs[0];
    CHECK(f.code == "engram.secret");
    CHECK(f.severity == "error");
    CHECK(f.claimId == "c-leaky0000001");
    CHECK(f.path == ".engram/claims/c-leaky0000001.md");
    CHECK(f.subject == "text:github-token");
    // Line 7 (0-based 6), after "Deploys use the token ".
    checkRange(f.range, 6, 22, 6, 22 + 40);
    CHECK(contains(f.message, "rule github-token"));
    CHECK(contains(f.message, "characters 22-62"));
    CHECK(contains(f.message, "[REDACTED:github-token]"));
    CHECK_FALSE(contains(f.message, kToken));
    CHECK_FALSE(contains(f.message, "ghp_"));

    // In a header field too, and every other finding of that claim (here:
    // stale) quotes the claim redacted.
    w.handWrite("c-leaky0000002", std::string("---\n"
                                              "id: c-leaky0000002\n"
                                              "label: old\n"
                                              "created: 2020-01-01T00:00:00Z\n"
                                              "evidence: note ") +
                                      kToken +
                                      "\n"
                                      "---\n"
                                      "The token is " +
                                      kToken + "\n");
    fs = w.findings(FindingsOptions{.path = ".engram/claims/c-leaky0000002.md"});
    REQUIRE(codes(fs) ==
            std::vector<std::string>{"engram.stale", "engram.secret", "engram.secret"});
    CHECK(fs[1].subject == "evidence[0].value:github-token");
    checkRange(fs[1].range, 4, 15, 4, 55);
    CHECK(fs[2].subject == "text:github-token");
    checkRange(fs[2].range, 6, 13, 6, 53);
    for (auto& x : fs) {
        CHECK_FALSE(contains(x.message, "ghp_"));
        CHECK(contains(x.message, "The token is [REDACTED:github-token]"));
    }
}

TEST_CASE("findings: sorted by path and range, one finding per non-intact anchor, options "
          "restrict them",
          "[findings]") {
    Workspace w;
    w.root.write("lib/other.py", "def helper():\n    return 1\n");
    auto two = w.remember("both change", "two-anchors",
                          {.path = "src/svc.py", .symbol = "TokenValidator.validate"});
    {
        // A second anchor on the same claim, through supersession.
        RememberRequest r;
        r.text = "both change";
        r.label = "two-anchors";
        r.agent = "test:agent";
        r.confidence = 0.9;
        r.anchors = {{.path = "src/svc.py", .symbol = "TokenValidator.validate"},
                     {.path = "lib/other.py", .symbol = "helper"}};
        REQUIRE(w.engine.remember(r).claim.id == two);
    }
    auto one = w.remember("connect takes a url", "connect-url",
                          {.path = "src/svc.py", .symbol = "connect"});
    w.root.write("src/svc.py", "import os\n\n\nclass TokenValidator:\n"
                               "    def validate(self, token):\n        return not token.ok\n"
                               "\n\ndef connect(url):\n    return url or None\n");
    w.root.write("lib/other.py", "def helper():\n    return 2\n");

    auto fs = w.findings();
    REQUIRE(fs.size() == 3);
    CHECK(fs[0].path == "lib/other.py");
    CHECK(fs[0].claimId == two);
    CHECK(fs[1].path == "src/svc.py");
    CHECK(fs[1].symbol == "TokenValidator.validate");
    CHECK(fs[2].path == "src/svc.py");
    CHECK(fs[2].symbol == "connect");
    CHECK(fs[2].claimId == one);
    for (auto& f : fs)
        CHECK(f.code == "engram.drifted");
    // Deterministic: the same answer twice.
    auto again = w.findings();
    REQUIRE(again.size() == fs.size());
    for (size_t i = 0; i < fs.size(); ++i) {
        CHECK(again[i].message == fs[i].message);
        CHECK_FALSE(findingLess(fs[i], again[i]));
        CHECK_FALSE(findingLess(again[i], fs[i]));
    }

    // Claims anchored in one file: all of their findings.
    auto inLib = w.findings(FindingsOptions{.path = "lib/other.py"});
    REQUIRE(inLib.size() == 2);
    CHECK(inLib[0].claimId == two);
    CHECK(inLib[1].claimId == two);
    // An absolute path inside the root is the same file.
    CHECK(w.findings(FindingsOptions{.path = w.root / "lib/other.py"}).size() == 2);
    CHECK(w.findings(FindingsOptions{.path = "nothing/here.py"}).empty());
    // One claim file.
    auto byFile = w.findings(FindingsOptions{.path = w.claimRel(one)});
    REQUIRE(byFile.size() == 1);
    CHECK(byFile[0].claimId == one);

    CHECK_THROWS_AS(w.findings(FindingsOptions{.tier = "everything"}), EngramError);
}

TEST_CASE("findings: the medulla is not checked by default, and its anchors never against this "
          "root",
          "[findings]") {
    Workspace w;
    w.remember("connect takes a url", "doctrine", {.path = "src/svc.py", .symbol = "connect"},
               "medulla");
    w.edit("return url", "return None");
    CHECK(w.findings().empty());
    CHECK(w.findings(FindingsOptions{.tier = "medulla"}).empty());
    CHECK(w.findings(FindingsOptions{.tier = "all"}).empty());
}

TEST_CASE("findings: a body edit drifts a claim in every language, on the symbol's new range",
          "[findings]") {
    for (const auto& c : cases()) {
        DYNAMIC_SECTION(c.lang) {
            TempDir root, home;
            Engine engine{{root.path(), "test", home.path(), 30, "test"}};
            std::string rel = "src/" + c.file;
            std::string original = readFixture(fixturePath(c));
            root.write(rel, original);
            RememberRequest r;
            r.text = "about " + c.bodySymbol;
            r.agent = "test:agent";
            r.anchors = {{.path = rel, .symbol = c.bodySymbol}};
            auto id = engine.remember(r).claim.id;
            CHECK(engine.findings().empty());

            std::string edited = apply(original, c.body);
            root.write(rel, edited);
            auto fs = engine.findings();
            REQUIRE(fs.size() == 1);
            CHECK(fs[0].code == "engram.drifted");
            CHECK(fs[0].path == rel);
            CHECK(fs[0].claimId == id);
            const syntax::Symbol* s = nullptr;
            auto symbols = syntax::extractSymbols(c.lang, edited);
            for (auto& x : symbols)
                if (x.qualified == c.bodySymbol) s = &x;
            REQUIRE(s);
            checkRange(fs[0].range, s->startLine, s->startColumn, s->endLine, s->endColumn);
        }
    }
}

TEST_CASE("finding rules: one per code with their documented severities", "[findings]") {
    std::map<std::string, std::string> expected = {
        {"engram.drifted", "warning"},   {"engram.orphaned", "warning"},
        {"engram.moved", "information"}, {"engram.conflict", "warning"},
        {"engram.stale", "hint"},        {"engram.secret", "error"},
        {"engram.invalid", "error"},     {"engram.unmerged", "error"},
        {"engram.dangling", "warning"}};
    CHECK(findingRules().size() == expected.size());
    for (auto& [code, severity] : expected) {
        auto* r = findingRule(code);
        REQUIRE(r);
        CHECK(r->severity == severity);
        CHECK(severityRank(r->severity) >= 0);
    }
    CHECK(findingRule("engram.nope") == nullptr);
    CHECK(severityRank("error") > severityRank("warning"));
    CHECK(severityRank("warning") > severityRank("information"));
    CHECK(severityRank("information") > severityRank("hint"));
    CHECK(severityRank("fatal") == -1);
}

TEST_CASE("a bounded listing keeps the first findings in order and counts every one") {
    Workspace w;
    // Enough broken files that the collector trims several times on the way.
    for (int i = 0; i < 2600; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "c-broken%05d", i);
        w.root.write(w.claimRel(name), "no header here\n");
    }
    w.remember("validate checks expiry", "expiry", {.path = "src/svc.py"});
    w.edit("return token.ok", "return None"); // one more finding, of another code
    w.engine.refresh();
    FindingsSummary counts;
    auto all = w.engine.findings({}, &counts);
    REQUIRE(all.size() >= 2601);
    FindingsOptions few;
    few.keep = 7;
    FindingsSummary fewCounts;
    auto first = w.engine.findings(few, &fewCounts);
    REQUIRE(first.size() == 7);
    for (size_t i = 0; i < first.size(); ++i) {
        CHECK(first[i].path == all[i].path);
        CHECK(first[i].message == all[i].message);
    }
    CHECK(fewCounts.byCode == counts.byCode);
    CHECK(counts.byCode["engram.invalid"] == 2600);
    CHECK(fewCounts.byCode == summarize(all).byCode);
}

// Conflicts are judged on one definition as anchoring identifies it: two
// overloads share a written name (`Pool.acquire`) but not an anchor, so
// claims that would contradict on one definition do not on two; on the
// same overload, reached by its line or by its name, they do.
TEST_CASE("findings: a conflict needs one definition, not one written name", "[findings]") {
    Workspace w;
    w.root.write("src/Pool.java", "class Pool {\n"                           // 1
                                  "    Conn acquire() {\n"                   // 2
                                  "        return take(30);\n"               // 3
                                  "    }\n"                                  // 4
                                  "    Conn acquire(int timeoutSeconds) {\n" // 5
                                  "        return take(timeoutSeconds);\n"   // 6
                                  "    }\n"                                  // 7
                                  "}\n");
    w.remember("callers must hold the pool lock", "lock-a", AnchorSpec{"src/Pool.java", {}, 2});
    w.remember("callers must not hold the pool lock", "lock-b", AnchorSpec{"src/Pool.java", {}, 5});
    auto conflicts = [&] {
        std::vector<Finding> out;
        for (auto& f : w.engine.findings({}))
            if (f.code == "engram.conflict") out.push_back(f);
        return out;
    };
    CHECK(conflicts().empty());

    // The same overload, named as a person writes it: one anchor.
    w.remember("Callers must hold the pool lock.", "lock-c",
               AnchorSpec{"src/Pool.java", std::string("Pool.acquire(int)")});
    auto found = conflicts();
    REQUIRE(found.size() == 2);
    for (auto& f : found) {
        CHECK(f.path == "src/Pool.java");
        CHECK(f.range.startLine == 4); // on the overload the two share
    }
}

} // namespace unit_FindingsTest
