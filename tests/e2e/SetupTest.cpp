// engram setup AGENT: engram wired into each agent's own files, at both
// scopes, against the configurations people already have (fixtures/setup:
// other servers and hooks, comments, TOML, files that do not parse): merged
// without touching anything else, idempotent, checked, shown as a diff, and
// taken out again leaving each file byte for byte as it was.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_SetupTest {

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
        {"codex",
         {{".codex/config.toml", "codex-config.toml"},
          {".codex/hooks.json", "claude-settings-with-hooks.json"}}},
        {"copilot",
         {{user ? ".copilot/mcp-config.json" : ".github/mcp.json", "mcp-with-servers.json"}}},
        {"cursor",
         {{".cursor/mcp.json", "mcp-with-servers.json"},
          {".cursor/hooks.json", "cursor-hooks.json"}}},
        {"gemini", {{".gemini/settings.json", "gemini-settings.json"}}},
        {"vscode",
         {{user ? ".config/Code/User/mcp.json" : ".vscode/mcp.json", "vscode-mcp.json"},
          {user ? ".copilot/hooks/engram.json" : ".github/hooks/engram.json",
           "vscode-hooks.json"}}},
    };
}

bool isToml(const std::string& file) {
    return file.size() > 5 && file.substr(file.size() - 5) == ".toml";
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

// JSON, comments allowed (as VS Code writes it).
json parsed(const std::string& text) {
    return json::parse(text, nullptr, true, true);
}

// The comments a file holds, in order (outside strings): what a rewrite
// would have lost.
std::vector<std::string> comments(const std::string& text) {
    std::vector<std::string> out;
    bool quoted = false;
    for (size_t at = 0; at < text.size(); ++at) {
        char c = text[at];
        if (quoted) {
            if (c == '\\')
                ++at;
            else if (c == '"')
                quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == '#' || text.compare(at, 2, "//") == 0 || text.compare(at, 2, "/*") == 0) {
            size_t eol = text.find('\n', at);
            out.push_back(text.substr(at, eol - at));
            at = eol == std::string::npos ? text.size() : eol;
        }
    }
    return out;
}

// Whether `after` still holds all of `before`: every member, and every
// list's items first and in order (engram's go after them).
bool includes(const json& after, const json& before) {
    if (before.is_object()) {
        if (!after.is_object()) return false;
        for (auto& [k, v] : before.items())
            if (!after.contains(k) || !includes(after[k], v)) return false;
        return true;
    }
    if (before.is_array()) {
        if (!after.is_array() || after.size() < before.size()) return false;
        for (size_t i = 0; i < before.size(); ++i)
            if (!includes(after[i], before[i])) return false;
        return true;
    }
    return after == before;
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

TEST_CASE("engram setup keeps other servers, hooks and comments, and --remove gives the file back",
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
                INFO(file);
                const std::string text = *slurp(m.base(user) + "/" + file);
                INFO(text);
                CHECK(contains(text, engramBinary()));
                // Every comment is still there, in its order.
                CHECK(comments(text) == comments(fixture(fix)));
                if (isToml(file)) continue;
                // Every member and hook the person had is still there, as it was.
                CHECK(includes(parsed(text), parsed(fixture(fix))));
            }
            CHECK(m.setup({agent.name, "--scope", scope, "--check"}).exitCode == 0);
            REQUIRE(m.setup({agent.name, "--scope", scope, "--remove"}).exitCode == 0);
            for (auto& [file, fix] : agent.files) {
                INFO(file);
                CHECK(*slurp(m.base(user) + "/" + file) == fixture(fix));
            }
        }
    }
}

TEST_CASE("engram setup leaves a file that does not parse as it was, and writes no other",
          "[e2e][setup]") {
    Machine m;
    const std::string mcp = m.root.path() + "/.mcp.json";
    const std::string settings = m.root.path() + "/.claude/settings.json";
    spew(mcp, fixture("malformed.json"));
    CliResult r = m.setup({"claude-code"});
    INFO(describe(r));
    CHECK(r.exitCode == 1);
    CHECK(contains(r.out, ".mcp.json line 5: not valid JSON (expected"));
    CHECK(contains(r.out, "left as it was"));
    CHECK(*slurp(mcp) == fixture("malformed.json"));
    CHECK_FALSE(fs::exists(settings)); // all or nothing

    // TOML too: Codex's config.toml, named by line; its hooks not written.
    place(m.root.path() + "/.codex/config.toml", fixture("malformed.toml"));
    r = m.setup({"codex"});
    INFO(describe(r));
    CHECK(r.exitCode == 1);
    CHECK(contains(r.out, ".codex/config.toml line 1: not valid TOML ("));
    CHECK(*slurp(m.root.path() + "/.codex/config.toml") == fixture("malformed.toml"));
    CHECK_FALSE(fs::exists(m.root.path() + "/.codex/hooks.json"));

    // Comments are kept: the diff shows the lines added beside them.
    spew(mcp, fixture("with-comments.json"));
    CliResult diff = m.setup({"claude-code", "--dry-run"});
    INFO(describe(diff));
    CHECK(diff.exitCode == 0);
    CHECK(contains(diff.out, "--- a/.mcp.json"));
    CHECK(contains(diff.out, "+    \"engram\": {"));
    CHECK(contains(diff.out, " \"github\": { \"command\": \"github-mcp\" }, /* keep this one */"));
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

    // engram's server written by hand as an inline TOML table: a line engram
    // would have to rewrite. Refused, with the entries to merge by hand.
    const std::string inlineServer =
        "[mcp_servers]\nengram = { command = \"/opt/old/engram\", args = [\"mcp\"] }\n";
    place(m.root.path() + "/.codex/config.toml", inlineServer);
    r = m.setup({"codex"});
    INFO(describe(r));
    CHECK(r.exitCode == 1);
    CHECK(contains(r.out, ".codex/config.toml is laid out in a way engram cannot edit"));
    CHECK(contains(r.out, "[mcp_servers.engram]"));
    CHECK(*slurp(m.root.path() + "/.codex/config.toml") == inlineServer);
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
    CHECK(contains(unknown.err, "no agent called 'emacs'; the agents are claude-code, codex, "
                                "copilot, cursor, gemini, vscode"));
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

} // namespace e2e_SetupTest
