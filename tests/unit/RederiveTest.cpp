// Anchors stamped by other digest rules (engine/Rederive.h): which
// definition a stamp of earlier rules names in its commit's code, and how
// the Anchorer judges such an anchor with and without git history (a real
// repository, real commits, a real shallow clone).
#include "engine/Rederive.h"
#include "engine/Anchoring.h"
#include "store/ClaimFile.h"
#include "support/Git.h"
#include "support/TempDir.h"
#include "syntax/Symbols.h"

#include <catch2/catch.hpp>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_RederiveTest {

using namespace engram;
using engram::test::git;
using engram::test::TempDir;

namespace {

std::vector<syntax::Symbol> symbolsOf(const std::string& lang, const std::string& text) {
    return syntax::extractSymbols(lang, text);
}

// An anchor as an earlier engram might have written it: a name and kind,
// and digests this engram's rules do not give.
Anchor earlier(const std::string& symbol, const std::string& kind) {
    Anchor a;
    a.path = "src/m.py";
    a.symbol = symbol;
    a.language = "python";
    a.nodeKind = kind;
    a.hash = std::string(32, 'e');
    a.shape = std::string(32, 'f');
    return a;
}

std::optional<std::string> pick(const std::vector<syntax::Symbol>& symbols, const Anchor& a,
                                std::string* whyOut = nullptr) {
    std::string why;
    auto i = stampedDefinition(symbols, a, why);
    if (whyOut) *whyOut = why;
    if (!i) return std::nullopt;
    return syntax::writtenName(symbols[*i]) + "@" + std::to_string(symbols[*i].startLine + 1);
}

const std::string kCode = "def helper(x):\n    return x + 1\n\n\n"
                          "def other(y):\n    return y * 2\n";

// A repository whose claim file holds an anchor of earlier rules on
// `helper`, committed with the code it was stamped on.
struct Repo {
    TempDir root;
    Anchor stamp;
    const std::string id = "c-000000000001";

    Repo() {
        root.write("src/m.py", kCode);
        Anchorer now(root.path());
        stamp = now.resolve(AnchorSpec{.path = "src/m.py", .symbol = "helper"}, "a");
        // What an earlier engram wrote: no version, and another digest.
        stamp.rules = 0;
        stamp.hash = std::string(32, 'e');
        stamp.head.clear();
        stamp.tokens.clear();
        Claim c;
        c.id = id;
        c.text = "helper adds one";
        c.anchors = {stamp};
        root.write(".engram/claims/" + id + ".md", serializeClaim(c));
        git(root.path(), {"init", "-q"});
        git(root.path(), {"add", "-A"});
        git(root.path(), {"commit", "-q", "-m", "helper and its claim"});
    }
};

} // namespace

TEST_CASE("rederive: the definition a stamp of earlier rules named, by name as today's rules "
          "give it",
          "[rederive]") {
    std::string py = "class A:\n    def f(self):\n        pass\n\n"
                     "    class Inner:\n        def g(self):\n            pass\n\n"
                     "def f():\n    pass\n";
    auto s = symbolsOf("python", py);
    CHECK(pick(s, earlier("A.f", "method")) == "A.f@2");
    // A suffix: a name that gained a qualifier.
    CHECK(pick(s, earlier("Inner.g", "method")) == "A.Inner.g@6");
    // Its parts in order with more between (a method now named under the
    // anonymous class's field, say).
    CHECK(pick(s, earlier("A.g", "method")) == "A.Inner.g@6");
    // Its own name alone and its kind (a qualifier a recovering parser
    // invented).
    CHECK(pick(s, earlier("namespace.g", "method")) == "A.Inner.g@6");
    std::string why;
    CHECK_FALSE(pick(s, earlier("gone", "function"), &why));
    CHECK(why == "no definition there is named gone by today's rules");
    CHECK_FALSE(pick(s, earlier("namespace", "namespace"), &why));
}

TEST_CASE("rederive: of same-named definitions, what the earlier stamp still tells apart",
          "[rederive]") {
    std::string py =
        "if X:\n    def f():\n        return 1\nelse:\n    def f():\n        return 2\n";
    auto s = symbolsOf("python", py);
    REQUIRE(s.size() == 2);
    Anchor a = earlier("f", "function");
    std::string why;
    // Nothing tells them apart: refused, not guessed.
    CHECK_FALSE(pick(s, a, &why));
    CHECK(why == "it cannot be told which of the 2 definitions named f there it was stamped on");
    // A hash the rules did not change for this code.
    a.hash = s[1].hash;
    CHECK(pick(s, a) == "f@5");
    // The tokens, then the head.
    a = earlier("f", "function");
    a.tokens = s[0].tokenHash;
    CHECK(pick(s, a) == "f@2");
    // Its place among as many twins as when it was stamped.
    a = earlier("f", "function");
    a.ordinal = 2;
    a.twins = 2;
    CHECK(pick(s, a) == "f@5");
    a.twins = 3;
    CHECK_FALSE(pick(s, a));
}

TEST_CASE("rederive: a stamp of earlier rules is judged against the commit that made it, and "
          "unjudged without it",
          "[rederive]") {
    Repo r;
    Anchorer a(r.root.path());
    // Its own digests alone say drifted; as a claim's anchor, without git
    // history read, it is not judged, and says so.
    CHECK(a.check(r.stamp).state == "drifted");
    auto first = a.check(r.stamp, r.id);
    CHECK(first.state == "unjudged");
    CHECK(first.note.find("not yet re-derived") != std::string::npos);
    REQUIRE(first.current); // where the code is, even unjudged
    CHECK(first.current->symbol == "helper");

    AnchorCheck judged;
    {
        Anchorer::HistoryScope history(a);
        judged = a.check(r.stamp, r.id);
    }
    CHECK(judged.state == "intact");
    CHECK(judged.stampCommit.size() == 40);
    REQUIRE(judged.current);
    CHECK(judged.current->rules == syntax::kDigestRules);
    // What the history showed is kept: judged again with no scope.
    CHECK(a.check(r.stamp, r.id).state == "intact");

    // The code changes: drifted, saying against what it was judged.
    r.root.write("src/m.py",
                 "def helper(x):\n    return x + 2\n\n\ndef other(y):\n    return y * 2\n");
    auto changed = a.check(r.stamp, r.id);
    CHECK(changed.state == "drifted");
    CHECK(changed.note.find("judged against commit") != std::string::npos);
    // Committed: still the commit that added the stamp, not HEAD.
    git(r.root.path(), {"commit", "-q", "-am", "helper adds two"});
    {
        Anchorer fresh(r.root.path());
        Anchorer::HistoryScope history(fresh);
        CHECK(fresh.check(r.stamp, r.id).state == "drifted");
    }
    // The anchor's own rules stamped today: its digest decides, no history.
    Anchor today = *judged.current;
    CHECK(a.check(today, r.id).state == "drifted");
    // A newer engram's rules: not judged by this one.
    Anchor newer = r.stamp;
    newer.rules = syntax::kDigestRules + 1;
    auto n = a.check(newer, r.id);
    CHECK(n.state == "unjudged");
    CHECK(n.note.find("newer engram's digest rules") != std::string::npos);
}

TEST_CASE("rederive: without a commit holding the stamp, or beyond a shallow clone, an anchor is "
          "unjudged with the reason",
          "[rederive]") {
    Repo r;
    // Another claim with a stamp no commit holds.
    {
        Anchorer a(r.root.path());
        Anchorer::HistoryScope history(a);
        auto c = a.check(r.stamp, "c-000000000002");
        CHECK(c.state == "unjudged");
        CHECK(c.note ==
              "stamped by an earlier engram's digest rules, and no commit adds its stamp (the "
              "claim file is not committed as it is)");
    }
    // A clone holding only the last commit: the one that added the stamp
    // is older than the clone, even though the clone seems to add it.
    r.root.write("src/m.py", kCode + "\n\ndef third():\n    pass\n");
    git(r.root.path(), {"commit", "-q", "-am", "a third function"});
    TempDir clones;
    std::string shallow = clones.path() + "/shallow";
    git(r.root.path(), {"clone", "-q", "--depth", "1", "file://" + r.root.path(), shallow});
    Anchorer a(shallow);
    Anchorer::HistoryScope history(a);
    auto c = a.check(r.stamp, r.id);
    CHECK(c.state == "unjudged");
    CHECK(c.note.find("older than this shallow clone") != std::string::npos);
    // A full clone judges it.
    std::string full = clones.path() + "/full";
    git(r.root.path(), {"clone", "-q", "file://" + r.root.path(), full});
    Anchorer b(full);
    Anchorer::HistoryScope h2(b);
    CHECK(b.check(r.stamp, r.id).state == "intact");
}

} // namespace unit_RederiveTest
