// Instruction files checked against the code (ARCHITECTURE.md, "Instruction files"), through the
// real binary and real git: a reference to a missing file or symbol is dangling on its line, a
// referenced function whose body a later commit changed is drifted, a renamed one moved, `reverify
// --file` clears what it stamps, and a second clone of the same commits gives the same verdicts.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <tuple>
#include <unistd.h>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_InstructionsTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

struct Repo {
    std::string dir;
    TempDir home;
    CliResult run(std::vector<std::string> args) const {
        std::vector<std::string> full = {"--root", dir, "--home", home.path()};
        full.insert(full.end(), args.begin(), args.end());
        return runCli(full, fixedGitEnv());
    }
    // (code, file, 1-based line, reference) of every finding.
    std::set<std::tuple<std::string, std::string, int, std::string>> findings() const {
        auto r = run({"check", "--format", "json"});
        INFO(describe(r));
        REQUIRE((r.exitCode == 0 || r.exitCode == 1));
        std::set<std::tuple<std::string, std::string, int, std::string>> out;
        json parsed = r.parsed();
        for (auto& f : parsed["findings"]) {
            std::string subject = f["subject"];
            REQUIRE(subject.rfind("ref:", 0) == 0);
            out.emplace(f["code"], f["path"], f["range"]["start"]["line"].get<int>() + 1,
                        subject.substr(4));
        }
        return out;
    }
    void edit(const std::string& rel, const std::string& from, const std::string& to) const {
        std::string text = *slurp(dir + "/" + rel);
        auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
        spew(dir + "/" + rel, text);
    }
    void commitAll(const std::string& message) const {
        gitOk(dir, {"add", "-A"});
        gitOk(dir, {"commit", "-q", "-m", message});
    }
};

using Set = std::set<std::tuple<std::string, std::string, int, std::string>>;

} // namespace

TEST_CASE("instruction files: dangling, drifted, moved and re-verified, the same on two clones",
          "[e2e][instructions]") {
    TempDir origin;
    Repo a{origin.path() + "/a", {}};
    fs::create_directories(a.dir);
    copySampleWorkspace(a.dir);
    std::string fx = std::string(ENGRAM_FIXTURES) + "/instructions";
    for (auto rel : {"AGENTS.md", "pkg/CLAUDE.md", ".cursor/rules/auth.mdc"}) {
        fs::create_directories(fs::path(a.dir + "/" + rel).parent_path());
        fs::copy_file(fx + "/" + rel, a.dir + "/" + rel);
    }
    gitOk(a.dir, {"init", "-q", "-b", "main"});
    a.commitAll("the workspace and its instruction files");

    // Missing file and missing symbol, each on its line; commands, flags and
    // someone else's API (`npm test`, `JSON.parse`) are not references.
    const Set dangling = {
        {"engram.dangling", "AGENTS.md", 4, "src/legacy.py"},
        {"engram.dangling", "AGENTS.md", 5, "src/auth.py#TokenValidator.refresh"},
    };
    CHECK(a.findings() == dangling);
    auto text = a.run({"check"});
    CHECK(contains(text.out, "AGENTS.md:4:17: warning: engram.dangling"));
    // engram status counts them.
    auto status = a.run({"--json", "status"});
    INFO(describe(status));
    REQUIRE(status.exitCode == 0);
    json counts = status.parsed()["instructions"];
    CHECK(counts["files"] == 3);
    CHECK(counts["dangling"] == 2);
    CHECK(counts["drifted"] == 0);
    CHECK(counts["references"].get<int>() >= 6);
    CHECK(contains(a.run({"status"}).out,
                   "instruction files: 3 with " + counts["references"].dump() +
                       " code references: 2 dangling, 0 drifted, 0 moved (engram check"));

    // A commit changes the body of the function three lines name.
    a.edit("src/auth.py", "        if token.expires_at",
           "        token = token.strip()\n"
           "        if token.expires_at");
    a.commitAll("strip tokens");
    Set drifted = dangling;
    drifted.insert({"engram.drifted", "AGENTS.md", 3, "TokenValidator.validate()"});
    drifted.insert({"engram.drifted", ".cursor/rules/auth.mdc", 5, "TokenValidator.validate"});
    CHECK(a.findings() == drifted);
    // The default --fail-on is about claims: instruction files are reported
    // and fail a run only when their codes are named.
    CHECK(a.run({"check"}).exitCode == 0);
    CHECK(a.run({"check", "--fail-on", "engram.drifted"}).exitCode == 1);
    CHECK(a.run({"check", "--fail-on", "engram.dangling"}).exitCode == 1);

    // Re-verified after reading: the stamps are a recorded act and clear it.
    auto rv = a.run({"--json", "reverify", "--file", "AGENTS.md:3"});
    INFO(describe(rv));
    REQUIRE(rv.exitCode == 0);
    CHECK(rv.parsed()["stamped"] == 1);
    CHECK(contains(*slurp(a.dir + "/.engram/audit.log"), "reverify-file\tAGENTS.md"));
    Set afterStamp = dangling;
    afterStamp.insert({"engram.drifted", ".cursor/rules/auth.mdc", 5, "TokenValidator.validate"});
    CHECK(a.findings() == afterStamp);
    // A dangling reference cannot be stamped; the stamps it could are kept.
    rv = a.run({"--json", "reverify", "--file", "AGENTS.md"});
    REQUIRE(rv.exitCode == 0);
    CHECK(rv.parsed()["refused"].size() == 1);
    REQUIRE(a.run({"reverify", "--file", ".cursor/rules/auth.mdc"}).exitCode == 0);
    CHECK(a.findings() == dangling);

    // A rename: moved, with the new name to write.
    a.edit("src/auth.py", "class ValidationResult:", "class CheckResult:");
    a.commitAll("rename the result");
    auto json = a.run({"check", "--format", "json"}).parsed();
    bool sawMoved = false;
    for (auto& f : json["findings"])
        if (f["code"] == "engram.moved") {
            sawMoved = true;
            CHECK(f["path"] == "pkg/CLAUDE.md");
            CHECK(f["range"]["start"]["line"] == 2);
            CHECK(contains(f["message"], "write `src/auth.py#CheckResult`"));
        }
    CHECK(sawMoved);

    // A second clone of the same commits: the same verdicts.
    Repo b{origin.path() + "/b", {}};
    gitOk(origin.path(), {"clone", "-q", a.dir, b.dir});
    CHECK(b.findings() == a.findings());

    // The reference rewritten as the fix says: clean, without a stamp (a
    // line not committed yet was written against the code as it is).
    a.edit("pkg/CLAUDE.md", "src/auth.py#ValidationResult", "src/auth.py#CheckResult");
    CHECK(a.findings() == dangling);
}

TEST_CASE("instruction files without git: only whether references resolve", "[e2e][instructions]") {
    TempDir dir;
    Repo r{dir.path(), {}};
    copySampleWorkspace(r.dir);
    spew(r.dir + "/CLAUDE.md", "Use `src/auth.py#ValidationResult`, not `src/auth.py#Nope`.\n"
                               "See [the db](src/db.py#L2) and [gone](docs/gone.md).\n");
    CHECK(r.findings() == Set{{"engram.dangling", "CLAUDE.md", 1, "src/auth.py#Nope"},
                              {"engram.dangling", "CLAUDE.md", 2, "docs/gone.md"}});
    // store.conf adds files by glob.
    spew(r.dir + "/NOTES.md", "Read `src/nothing.py`.\n");
    CHECK(r.findings().size() == 2);
    fs::create_directories(r.dir + "/.engram");
    spew(r.dir + "/.engram/store.conf", "instructions: NOTES.md\n");
    CHECK(r.findings().count({"engram.dangling", "NOTES.md", 1, "src/nothing.py"}) == 1);
}

namespace {

json diagnosticsFor(Server& s, const std::string& uri, int version = 0) {
    return s.waitDiagnostics(uri, version)["diagnostics"];
}

// (code, 0-based line) of each diagnostic.
std::set<std::pair<std::string, int>> codesAndLines(const json& diagnostics) {
    std::set<std::pair<std::string, int>> out;
    for (auto& d : diagnostics)
        out.emplace(d["code"], d["range"]["start"]["line"].get<int>());
    return out;
}

json diagnosticWith(const json& diagnostics, const std::string& code) {
    for (auto& d : diagnostics)
        if (d["code"] == code) return d;
    FAIL("no " << code << " in " << diagnostics.dump());
    return {};
}

} // namespace

TEST_CASE("instruction files in the editor: diagnostics on open, hover, a fix for a moved "
          "reference and re-verification",
          "[e2e][instructions][lsp]") {
    TempDir origin;
    Repo a{origin.path() + "/a", {}};
    fs::create_directories(a.dir);
    copySampleWorkspace(a.dir);
    std::string fx = std::string(ENGRAM_FIXTURES) + "/instructions";
    for (auto rel : {"AGENTS.md", "pkg/CLAUDE.md"}) {
        fs::create_directories(fs::path(a.dir + "/" + rel).parent_path());
        fs::copy_file(fx + "/" + rel, a.dir + "/" + rel);
    }
    gitOk(a.dir, {"init", "-q", "-b", "main"});
    a.commitAll("the workspace and its instruction files");
    // Later commits change validate's body and rename the result class.
    a.edit("src/auth.py", "        if token.expires_at",
           "        token = token.strip()\n"
           "        if token.expires_at");
    a.edit("src/auth.py", "class ValidationResult:", "class CheckResult:");
    a.commitAll("strip tokens; rename the result");

    ServerOptions so;
    so.env = fixedGitEnv();
    Server s(so);
    s.initialize(a.dir);
    std::string agents = a.dir + "/AGENTS.md", claude = a.dir + "/pkg/CLAUDE.md";
    std::string agentsText = *slurp(agents), claudeText = *slurp(claude);
    auto open = [&](const std::string& path, const std::string& text) {
        s.notify("textDocument/didOpen", {{"textDocument",
                                           {{"uri", fileUri(path)},
                                            {"languageId", "markdown"},
                                            {"version", 1},
                                            {"text", text}}}});
        return diagnosticsFor(s, fileUri(path), 1);
    };

    // Opening publishes what `engram check` finds in the file, on its lines.
    json agentsDiags = open(agents, agentsText);
    CHECK(codesAndLines(agentsDiags) ==
          std::set<std::pair<std::string, int>>{
              {"engram.drifted", 2}, {"engram.dangling", 3}, {"engram.dangling", 4}});
    json claudeDiags = open(claude, claudeText);
    CHECK(codesAndLines(claudeDiags) == std::set<std::pair<std::string, int>>{{"engram.moved", 2}});

    // Hover on a reference: its state and what it was judged against.
    auto hoverAt = [&](const std::string& path, int line, int character) {
        return s.call("textDocument/hover",
                      {{"textDocument", {{"uri", fileUri(path)}}},
                       {"position", {{"line", line}, {"character", character}}}});
    };
    json drifted = diagnosticWith(agentsDiags, "engram.drifted");
    json hover = hoverAt(agents, 2, drifted["range"]["start"]["character"].get<int>() + 3);
    REQUIRE(hover.is_object());
    std::string md = hover["contents"]["value"];
    CHECK(contains(md, "`TokenValidator.validate()` · **drifted**"));
    CHECK(contains(md, "Judged against commit "));
    CHECK(hover["range"] == drifted["range"]);
    hover = hoverAt(agents, 2, 0); // prose, no reference
    CHECK(hover.is_null());
    json ok = hoverAt(claude, 2, int(claudeText.find("../src/db.py") - claudeText.find("Results")));
    REQUIRE(ok.is_object());
    CHECK(contains(ok["contents"]["value"].get<std::string>(), "· **ok**"));

    // The moved reference's quick fix rewrites it; applied, the file is clean.
    json moved = diagnosticWith(claudeDiags, "engram.moved");
    json actions =
        s.call("textDocument/codeAction", {{"textDocument", {{"uri", fileUri(claude)}}},
                                           {"range", moved["range"]},
                                           {"context", {{"diagnostics", json::array({moved})}}}});
    REQUIRE(actions.size() == 1);
    CHECK(actions[0]["isPreferred"] == true);
    json edits = actions[0]["edit"]["changes"][fileUri(claude)];
    REQUIRE(edits.size() == 1);
    CHECK(edits[0]["newText"] == "src/auth.py#CheckResult");
    CHECK(edits[0]["range"] == moved["range"]);
    s.notify("textDocument/didChange",
             {{"textDocument", {{"uri", fileUri(claude)}, {"version", 2}}},
              {"contentChanges",
               json::array({{{"range", edits[0]["range"]}, {"text", edits[0]["newText"]}}})}});
    CHECK(diagnosticsFor(s, fileUri(claude), 2).empty());

    // The drifted line's quick fix re-verifies it, a recorded act; the
    // diagnostics follow.
    actions =
        s.call("textDocument/codeAction", {{"textDocument", {{"uri", fileUri(agents)}}},
                                           {"range", drifted["range"]},
                                           {"context", {{"diagnostics", json::array({drifted})}}}});
    REQUIRE(actions.size() == 1);
    json command = actions[0]["command"];
    CHECK(command["command"] == "engram.reverifyFile");
    json done = s.call("workspace/executeCommand", command);
    CHECK(done["stamped"] == 1);
    CHECK(contains(*slurp(a.dir + "/.engram/audit.log"), "reverify-file\tAGENTS.md"));
    CHECK(codesAndLines(diagnosticsFor(s, fileUri(agents))) ==
          std::set<std::pair<std::string, int>>{{"engram.dangling", 3}, {"engram.dangling", 4}});
}

TEST_CASE("instruction paragraphs are recalled and packed beside claims, never as claims",
          "[e2e][instructions]") {
    TempDir dir;
    Repo r{dir.path(), {}};
    copySampleWorkspace(r.dir);
    fs::create_directories(r.dir + "/.github");
    spew(r.dir + "/.github/copilot-instructions.md",
         "# Tokens\n\nExpired tokens are rejected by `TokenValidator.validate()`; the old "
         "`src/tokens.py` helper is gone.\n\n# Style\n\nUse four spaces.\n");
    auto remembered = r.run({"remember", "the validator rejects expired tokens with ok=False",
                             "--label", "expired-tokens", "--agent", "claude:test"});
    REQUIRE(remembered.exitCode == 0);

    // Recall never walks the workspace: before anything built the code index,
    // a name is not judged, and the envelope says so and why.
    auto early = r.run({"--json", "recall", "expired tokens rejected"});
    INFO(describe(early));
    REQUIRE(early.exitCode == 0);
    CHECK(early.parsed()["instructions"][0]["references"][0] ==
          json{{"reference", "TokenValidator.validate()"}, {"state", "unjudged"}});
    CHECK(early.parsed()["envelope"]["not_judged"]["by_reason"]["no_code_index"] == 1);
    REQUIRE(r.run({"init"}).exitCode == 0); // builds it

    auto recall = r.run({"--json", "recall", "expired tokens rejected"});
    INFO(describe(recall));
    REQUIRE(recall.exitCode == 0);
    json out = recall.parsed();
    REQUIRE(out["rows"].size() == 1);
    CHECK(out["rows"][0]["label"] == "expired-tokens");
    REQUIRE(out["instructions"].size() == 1);
    json p = out["instructions"][0];
    CHECK(p["source"] == "instruction_file");
    CHECK(p["file"] == ".github/copilot-instructions.md");
    CHECK(p["line"] == 3);
    CHECK(p["heading"] == "Tokens");
    CHECK_FALSE(p.contains("id")); // not a claim
    json states = json::object();
    for (auto& ref : p["references"])
        states[ref["reference"].get<std::string>()] = ref["state"];
    CHECK(states == json{{"TokenValidator.validate()", "ok"}, {"src/tokens.py", "dangling"}});
    CHECK(contains(r.run({"recall", "expired tokens rejected"}).out,
                   ".github/copilot-instructions.md:3-3 (Tokens)"));
    // A query the paragraph does not answer brings none.
    CHECK_FALSE(r.run({"--json", "recall", "four spaces indentation tabs"})
                    .parsed()["instructions"][0]["text"]
                    .get<std::string>()
                    .starts_with("Expired"));

    // Packets carry them apart from items; the packet still verifies.
    auto packet = r.run({"--json", "delegate", "--task", "why are expired tokens rejected"});
    REQUIRE(packet.exitCode == 0);
    json pk = packet.parsed()["packet"];
    CHECK(pk["items"].size() == 1);
    REQUIRE(pk["instruction_files"].size() == 1);
    CHECK(pk["instruction_files"][0]["file"] == ".github/copilot-instructions.md");
    auto verified = runCli({"--root", r.dir, "--home", r.home.path(), "verify-packet", "-"},
                           fixedGitEnv(), pk.dump());
    INFO(describe(verified));
    CHECK(verified.exitCode == 0);
    // They cannot be retracted: they have no claim id to name.
    CHECK(storeOf(r.run({"--json", "status"}).parsed()["envelope"])["claims"]["committed"] == 1);
}

// A check that looked for an anchor's definition in other files first (a
// walk of the code that lists nothing) still lists the workspace's files
// before judging instruction files, so one added since the last listing is
// judged; and a reference to a file git renamed is given git's new path.
TEST_CASE("an instruction file added after the last listing is judged by check, after an "
          "anchor's definition was looked for in other files",
          "[e2e][instructions]") {
    TempDir dir;
    Repo r{dir.path(), {}};
    copySampleWorkspace(r.dir);
    gitOk(r.dir, {"init", "-q", "-b", "main"});
    r.commitAll("sample");
    REQUIRE(r.run({"init"}).exitCode == 0); // lists the workspace's files
    auto remembered = r.run({"remember", "ValidationResult carries ok and a reason", "--anchor",
                             "src/auth.py#ValidationResult"});
    INFO(describe(remembered));
    REQUIRE(remembered.exitCode == 0);
    // The class moves to a file of its own: judging the claim looks for its
    // definition in the other files (a walk of the code, listing nothing).
    std::string auth = *slurp(r.dir + "/src/auth.py");
    auto at = auth.find("\n\nclass ValidationResult:");
    REQUIRE(at != std::string::npos);
    spew(r.dir + "/src/results.py", auth.substr(at + 2));
    spew(r.dir + "/src/auth.py", auth.substr(0, at) + "\n");
    // And an instruction file appears after the last listing.
    spew(r.dir + "/CLAUDE.md", "Results are `src/auth.py#ValidationResult`.\n");
    auto c = r.run({"check", "--format", "json"});
    INFO(describe(c));
    std::set<std::pair<std::string, std::string>> found;
    json report = c.parsed();
    for (auto& f : report["findings"])
        found.emplace(f["code"], f["path"]);
    CHECK(found == std::set<std::pair<std::string, std::string>>{{"engram.moved", "src/results.py"},
                                                                 {"engram.dangling", "CLAUDE.md"}});

    // A file renamed with git: a reference to its old path is dangling,
    // with git's new name to write, however unlike the old one it is.
    spew(r.dir + "/CLAUDE.md", "Connections open in `src/db.py`.\n");
    r.commitAll("results in their own file");
    gitOk(r.dir, {"mv", "src/db.py", "src/storage.py"});
    c = r.run({"check", "--format", "json"});
    INFO(describe(c));
    report = c.parsed();
    json f;
    for (auto& each : report["findings"])
        if (each["path"] == "CLAUDE.md") f = each;
    REQUIRE(f.is_object());
    CHECK(f["code"] == "engram.dangling");
    CHECK(f["replacement"] == "src/storage.py");
    CHECK(f["message"].get<std::string>().find("git renamed it to src/storage.py") !=
          std::string::npos);
}

// A fresh clone, checked as the documented CI workflow checks it (no
// `engram init`, no store, nothing in $ENGRAM_HOME): every reference is
// judged as it is after init. A qualified name the code lacks is dangling;
// a lone word in backticks that named a function when its line was written
// and names nothing now is moved (the body lives on under another name), or
// dangling once the body is gone too.
TEST_CASE("a fresh clone's engram check judges names as after init, lone words by their past",
          "[e2e][instructions]") {
    TempDir origin;
    Repo a{origin.path() + "/a", {}};
    fs::create_directories(a.dir);
    copySampleWorkspace(a.dir);
    a.edit("src/auth.py", "class ValidationResult:",
           "def refresh(token):\n    return token.renewed(minutes=30)\n\n\nclass "
           "ValidationResult:");
    spew(a.dir + "/AGENTS.md", "# Tokens\n\n"
                               "Check them with `TokenValidator.validate()`; revoke them with "
                               "`TokenValidator.revoke`.\n"
                               "When one expires, call `refresh` and retry; `pytest` runs the "
                               "tests, `true` and `null` are values.\n");
    gitOk(a.dir, {"init", "-q", "-b", "main"});
    a.commitAll("tokens and their instructions");
    a.edit("src/auth.py", "def refresh(token):", "def renew(token):");
    a.commitAll("refresh is renew now");

    Repo b{origin.path() + "/b", {}};
    gitOk(origin.path(), {"clone", "-q", a.dir, b.dir});
    REQUIRE_FALSE(fs::exists(b.dir + "/.engram"));
    auto r = b.run({"check", "--format", "json"});
    INFO(describe(r));
    REQUIRE((r.exitCode == 0 || r.exitCode == 1));
    json report = r.parsed();
    std::map<std::string, json> byRef;
    for (auto& f : report["findings"])
        byRef[f["subject"].get<std::string>()] = f;
    CHECK(byRef.size() == 2);
    REQUIRE(byRef.count("ref:TokenValidator.revoke"));
    CHECK(byRef["ref:TokenValidator.revoke"]["code"] == "engram.dangling");
    REQUIRE(byRef.count("ref:refresh"));
    CHECK(byRef["ref:refresh"]["code"] == "engram.moved");
    CHECK(byRef["ref:refresh"]["replacement"] == "renew");
    CHECK(byRef["ref:refresh"]["range"]["start"]["line"] == 3);
    // Nothing went unjudged, and the check wrote nothing into the clone.
    CHECK(report["not_judged"]["total"] == 0);
    CHECK_FALSE(fs::exists(b.dir + "/.engram"));
    CHECK(b.run({"check", "--format", "json"}).parsed()["findings"] == report["findings"]);

    // The same after init (the store and its code index in the clone).
    REQUIRE(b.run({"init"}).exitCode == 0);
    CHECK(b.run({"check", "--format", "json"}).parsed()["findings"] == report["findings"]);

    // A shallow clone lacks the commit that wrote the lines: what is judged
    // only against its oldest commit is counted, and said why.
    Repo shallow{origin.path() + "/shallow", {}};
    gitOk(origin.path(), {"clone", "-q", "--depth", "1", "file://" + a.dir, shallow.dir});
    json cut = shallow.run({"check", "--format", "json"}).parsed();
    CHECK(cut["not_judged"]["by_reason"]["shallow_history"] == 1); // TokenValidator.validate()
    bool revoked = false;
    for (auto& f : cut["findings"])
        revoked |= f["subject"] == "ref:TokenValidator.revoke";
    CHECK(revoked); // resolved against the code, no history needed
    CHECK(contains(shallow.run({"check"}).out, "1 not judged (shallow_history)"));

    // The renamed function removed as well: the word is dangling.
    a.edit("src/auth.py", "def renew(token):\n    return token.renewed(minutes=30)\n\n\n", "");
    a.commitAll("no more renewing");
    gitOk(b.dir, {"pull", "-q", "origin", "main"});
    json after = b.run({"check", "--format", "json"}).parsed();
    std::set<std::pair<std::string, std::string>> codes;
    for (auto& f : after["findings"])
        codes.emplace(f["subject"], f["code"]);
    CHECK(codes == std::set<std::pair<std::string, std::string>>{
                       {"ref:TokenValidator.revoke", "engram.dangling"},
                       {"ref:refresh", "engram.dangling"}});

    // validate renamed and edited at once: dangling, its likely successor
    // named (no fix: the sentence must be re-read against the new code).
    a.edit("src/auth.py", "def validate(self, token):", "def check_token(self, token):");
    a.edit("src/auth.py", "reason=\"expired\"", "reason=\"stale\"");
    a.commitAll("validate is check_token, and says stale");
    gitOk(b.dir, {"pull", "-q", "origin", "main"});
    json renamed = b.run({"check", "--format", "json"}).parsed();
    json validate;
    for (auto& f : renamed["findings"])
        if (f["subject"] == "ref:TokenValidator.validate()") validate = f;
    INFO(renamed.dump(2));
    REQUIRE(validate.is_object());
    CHECK(validate["code"] == "engram.dangling");
    CHECK(contains(validate["message"].get<std::string>(),
                   "TokenValidator.check_token there looks like it renamed and edited"));
    CHECK(validate["replacement"] == "");
}

TEST_CASE("instruction files are known without listing the workspace on the way to an answer: "
          "their usual places before any listing, nested ones once listed, new ones while "
          "serving",
          "[e2e][instructions]") {
    TempDir dir;
    Repo r{dir.path(), {}};
    copySampleWorkspace(r.dir);
    gitOk(r.dir, {"init", "-q", "-b", "main"});
    spew(r.dir + "/AGENTS.md", "# Pool\n\nThe connection pool is sized by `Pool.size` in "
                               "src/db.py.\n");
    fs::create_directories(r.dir + "/web/api");
    spew(r.dir + "/web/api/CLAUDE.md", "# Sessions\n\nSession cookies rotate on every "
                                       "login; see web/session.ts.\n");
    REQUIRE(r.run({"remember", "sessions rotate on login", "--agent", "claude:test"}).exitCode ==
            0);
    auto files = [&](const json& recall) {
        std::set<std::string> out;
        for (auto& p : recall["instructions"])
            out.insert(p["file"]);
        return out;
    };
    // Never listed (the store's index was just built): the usual places.
    auto early = r.run({"--json", "recall", "connection pool sized session cookies rotate"});
    REQUIRE(early.exitCode == 0);
    CHECK(files(early.parsed()) == std::set<std::string>{"AGENTS.md"});
    auto st = r.run({"--json", "status"});
    REQUIRE(st.exitCode == 0);
    CHECK(st.parsed()["instructions"]["listed"] == true); // status judges: it lists
    // Once listed (status, check, init or a server did), nested ones too.
    auto later = r.run({"--json", "recall", "connection pool sized session cookies rotate"});
    CHECK(files(later.parsed()) == std::set<std::string>{"AGENTS.md", "web/api/CLAUDE.md"});

    // A server lists again in the background: a new instruction file shows
    // up in recall within moments, and no answer waits for git.
    ServerOptions o;
    o.home = r.home.path();
    Server s(o);
    s.initialize(r.dir);
    fs::create_directories(r.dir + "/src/jobs");
    spew(r.dir + "/src/jobs/AGENTS.md", "# Jobs\n\nRetry jobs rotate their session cookies "
                                        "too.\n");
    std::set<std::string> seen;
    for (int i = 0; i < 300 && !seen.count("src/jobs/AGENTS.md"); ++i) {
        seen = files(s.call("engram/recall", {{"query", "session cookies rotate"}}));
        if (!seen.count("src/jobs/AGENTS.md")) usleep(20000);
    }
    CHECK(seen.count("src/jobs/AGENTS.md") == 1);
}

} // namespace e2e_InstructionsTest
