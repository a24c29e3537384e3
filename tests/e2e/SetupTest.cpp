// engram setup AGENT: engram wired into each agent's own files, at both
// scopes, against the configurations people already have (fixtures/setup:
// other servers and hooks, comments, a file that is not JSON): merged
// without touching anything else, idempotent, checked, shown as a diff, and
// taken out again exactly.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

struct Agent {
    std::string name;
    // The files it writes, relative to the scope's base, with the fixture
    // that stands for what a person already has there.
    std::vector<std::pair<std::string, std::string>> files;
};

// The recipes' files (server/cli/Setup.cpp), per scope.
std::vector<Agent> agents(bool user) {
    return {
        {"claude-code",
         {{user ? ".claude.json" : ".mcp.json", "mcp-with-servers.json"},
          {".claude/settings.json", "claude-settings-with-hooks.json"}}},
        {"cursor",
         {{".cursor/mcp.json", "mcp-with-servers.json"},
          {".cursor/hooks.json", "cursor-hooks.json"}}},
        {"gemini", {{".gemini/settings.json", "gemini-settings.json"}}},
    };
}

std::string fixture(const std::string& name) {
    return *slurp(std::string(ENGRAM_FIXTURES) + "/setup/" + name);
}

struct Machine {
    TempDir root, home;
    Machine() { copySampleWorkspace(root.path()); }
    // engram is not on this PATH's directories as "engram" unless the test
    // says so: the files then name it by its path.
    CliResult setup(std::vector<std::string> args) const {
        std::vector<std::string> full = {"--root", root.path(), "setup"};
        full.insert(full.end(), args.begin(), args.end());
        return runCli(full, {"HOME=" + home.path()});
    }
    std::string base(bool user) const { return user ? home.path() : root.path(); }
};

// A file of a person's configuration, its directory made as they would have.
void place(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    spew(path, text);
}

json parsed(const std::string& text) {
    return json::parse(text);
}

} // namespace

TEST_CASE("engram setup into empty configuration: written, idempotent, checked, removed",
          "[e2e][setup]") {
    for (bool user : {false, true}) {
        for (auto& agent : agents(user)) {
            Machine m;
            const std::string scope = user ? "user" : "project";
            INFO(agent.name << " --scope " << scope);
            CHECK(m.setup({agent.name, "--scope", scope, "--check"}).exitCode == 1);
            CliResult r = m.setup({agent.name, "--scope", scope});
            INFO(describe(r));
            REQUIRE(r.exitCode == 0);
            std::map<std::string, std::string> written;
            for (auto& [file, _] : agent.files) {
                auto text = slurp(m.base(user) + "/" + file);
                REQUIRE(text);
                CHECK(contains(*text, engramBinary())); // the binary this run tests
                written[file] = *text;
            }
            // Again: nothing changes, byte for byte.
            CliResult again = m.setup({agent.name, "--scope", scope});
            CHECK(contains(again.out, "already set: "));
            for (auto& [file, text] : written)
                CHECK(*slurp(m.base(user) + "/" + file) == text);
            CliResult check = m.setup({agent.name, "--scope", scope, "--check"});
            INFO(describe(check));
            CHECK(check.exitCode == 0);
            CHECK_FALSE(contains(check.out, "missing"));
            // Removed: the files engram alone needed are gone.
            CHECK(m.setup({agent.name, "--scope", scope, "--remove"}).exitCode == 0);
            for (auto& [file, _] : agent.files)
                CHECK_FALSE(fs::exists(m.base(user) + "/" + file));
        }
    }
}

TEST_CASE("engram setup keeps other servers and hooks, and --remove leaves exactly them",
          "[e2e][setup]") {
    for (bool user : {false, true}) {
        for (auto& agent : agents(user)) {
            Machine m;
            const std::string scope = user ? "user" : "project";
            INFO(agent.name << " --scope " << scope);
            for (auto& [file, fix] : agent.files)
                place(m.base(user) + "/" + file, fixture(fix));
            CliResult r = m.setup({agent.name, "--scope", scope});
            INFO(describe(r));
            REQUIRE(r.exitCode == 0);
            for (auto& [file, fix] : agent.files) {
                json before = parsed(fixture(fix)),
                     after = parsed(*slurp(m.base(user) + "/" + file));
                // Every member the person had is still there, as it was.
                for (auto& [key, value] : before.items()) {
                    INFO(file << ": " << key);
                    REQUIRE(after.contains(key));
                    if (value.is_object())
                        for (auto& [k, v] : value.items())
                            CHECK(after[key].contains(k));
                }
            }
            CHECK(m.setup({agent.name, "--scope", scope, "--check"}).exitCode == 0);
            REQUIRE(m.setup({agent.name, "--scope", scope, "--remove"}).exitCode == 0);
            for (auto& [file, fix] : agent.files) {
                INFO(file);
                CHECK(parsed(*slurp(m.base(user) + "/" + file)) == parsed(fixture(fix)));
            }
        }
    }
}

TEST_CASE("engram setup leaves a file it cannot edit faithfully as it was, and writes no other",
          "[e2e][setup]") {
    Machine m;
    const std::string mcp = m.root.path() + "/.mcp.json";
    const std::string settings = m.root.path() + "/.claude/settings.json";
    spew(mcp, fixture("malformed.json"));
    CliResult r = m.setup({"claude-code"});
    INFO(describe(r));
    CHECK(r.exitCode == 1);
    CHECK(contains(r.out, ".mcp.json line 3: not valid JSON; left as it was"));
    CHECK(*slurp(mcp) == fixture("malformed.json"));
    CHECK_FALSE(fs::exists(settings)); // all or nothing

    // Comments: a rewrite would lose them. Refused; the diff shows what to add.
    spew(mcp, fixture("with-comments.json"));
    r = m.setup({"claude-code"});
    CHECK(r.exitCode == 1);
    CHECK(contains(r.out, ".mcp.json has comments, which rewriting it would lose"));
    CHECK(*slurp(mcp) == fixture("with-comments.json"));
    CliResult diff = m.setup({"claude-code", "--dry-run"});
    INFO(describe(diff));
    CHECK(diff.exitCode == 0);
    CHECK(contains(diff.out, "--- a/.mcp.json"));
    CHECK(contains(diff.out, "+    \"engram\": {"));
    CHECK(*slurp(mcp) == fixture("with-comments.json"));
    CHECK_FALSE(fs::exists(settings));

    // JSON, but `hooks` a list where Claude Code documents an object: the
    // settings are refused, and the MCP file is not written either.
    fs::remove(mcp);
    place(settings, R"({"hooks": ["engram hook"]})");
    r = m.setup({"claude-code"});
    INFO(describe(r));
    CHECK(r.exitCode == 1);
    CHECK(contains(r.out, ".claude/settings.json holds a member of another shape"));
    CHECK(*slurp(settings) == R"({"hooks": ["engram hook"]})");
    CHECK_FALSE(fs::exists(mcp));
}

TEST_CASE("engram setup --check finds a binary that is gone, --dry-run writes nothing, and usage",
          "[e2e][setup]") {
    Machine m;
    place(m.root.path() + "/.gemini/settings.json",
          R"({"mcpServers": {"engram": {"command": "/opt/old/engram", "args": ["mcp"]}}})");
    CliResult check = m.setup({"gemini", "--check"});
    INFO(describe(check));
    CHECK(check.exitCode == 1);
    CHECK(contains(check.out, "broken  .gemini/settings.json: the MCP server runs "
                              "/opt/old/engram, which is not there"));
    CHECK(contains(check.out, "missing .gemini/settings.json: the SessionStart hook"));
    // Set up again: the entry is replaced, not doubled.
    REQUIRE(m.setup({"gemini"}).exitCode == 0);
    json s = parsed(*slurp(m.root.path() + "/.gemini/settings.json"));
    CHECK(s["mcpServers"]["engram"]["command"] == engramBinary());
    CHECK(s["hooks"]["SessionStart"].size() == 1);
    CHECK(m.setup({"gemini", "--check"}).exitCode == 0);

    CliResult dry = m.setup({"cursor", "--dry-run"});
    CHECK(dry.exitCode == 0);
    CHECK(contains(dry.out, "+++ b/.cursor/mcp.json"));
    CHECK_FALSE(fs::exists(m.root.path() + "/.cursor"));

    CliResult unknown = m.setup({"emacs"});
    CHECK(unknown.exitCode == 2);
    CHECK(contains(unknown.err, "no agent called 'emacs'; the agents are claude-code, cursor, "
                                "gemini"));
    CHECK(m.setup({"cursor", "--scope", "team"}).exitCode == 2);
    CliResult list = m.setup({"--list"});
    CHECK(contains(list.out, "--scope user:    ~/.claude.json, ~/.claude/settings.json"));
}

TEST_CASE("doctor names the agents on this machine and whether engram is wired", "[e2e][setup]") {
    Machine m;
    fs::create_directories(m.home.path() + "/.cursor");
    fs::create_directories(m.home.path() + "/.gemini");
    REQUIRE(m.setup({"gemini", "--scope", "user"}).exitCode == 0);
    CliResult d = runCli({"--root", m.root.path(), "--home", m.home.path() + "/engram", "doctor"},
                         {"HOME=" + m.home.path()});
    INFO(describe(d));
    CHECK(contains(d.out, "ok   agent cursor: found, engram not wired (engram setup cursor)"));
    CHECK(contains(d.out, "ok   agent gemini: wired at user scope"));
    CHECK_FALSE(contains(d.out, "agent claude-code"));
}
