// The splicing editors `engram setup` writes agents' files with
// (cli/ConfigEdit.h): what engram adds goes in beside a person's comments
// and layout, and taking it out again gives back their file byte for byte.
#include "cli/ConfigEdit.h"

#include <catch2/catch.hpp>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_ConfigEditTest {

using namespace engram::cli;
using Doc = ConfigDoc;

namespace {

// engram's MCP server entry, as setup adds it.
void addServer(Doc& d, const std::string& servers) {
    d[servers]["engram"] = {{"command", "engram"}, {"args", {"mcp"}}};
}

void removeServer(Doc& d, const std::string& servers) {
    d[servers].erase("engram");
    if (d[servers].empty()) d.erase(servers);
}

// Adds engram's server, checks the result holds it and keeps `kept`
// verbatim, then takes it out and checks the text is the original again.
void roundTrip(const std::string& text, const std::vector<std::string>& kept) {
    INFO(text);
    Doc d = jsonc::parse(text);
    addServer(d, "mcpServers");
    auto added = jsonc::edit(text, d);
    REQUIRE(added);
    INFO(*added);
    CHECK(jsonc::parse(*added)["mcpServers"]["engram"]["command"] == "engram");
    for (auto& piece : kept)
        CHECK(added->find(piece) != std::string::npos);
    Doc back = jsonc::parse(*added);
    removeServer(back, "mcpServers");
    auto removed = jsonc::edit(*added, back);
    REQUIRE(removed);
    CHECK(*removed == text);
}

} // namespace

TEST_CASE("jsonc: engram's entry goes in beside comments and comes out leaving the file as it was",
          "[setup][config]") {
    roundTrip("{\n  // the team's servers\n  \"mcpServers\": {\n    \"github\": { \"command\": "
              "\"github-mcp\" } /* keep this one */\n  }\n}\n",
              {"// the team's servers", "/* keep this one */", "\"github\": { \"command\""});
    // Trailing commas, as VS Code's own files allow.
    roundTrip("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"},\n  },\n  \"x\": 1,\n}\n",
              {"\"a\": {\"command\": \"a\"},"});
    // Tabs, and a file that holds no servers yet.
    roundTrip("{\n\t\"theme\": \"dark\" // mine\n}\n",
              {"\t\"theme\": \"dark\", // mine\n\t\"mcpServers\": {\n\t\t\"engram\""});
    // On one line.
    roundTrip("{\"mcpServers\": {\"a\": {\"command\": \"a\"}}}", {"{\"a\": {\"command\": \"a\"}"});
    roundTrip("{}\n", {});
}

TEST_CASE("jsonc: hooks appended to a list keep the other hooks and their comments",
          "[setup][config]") {
    const std::string text = R"({
  "hooks": {
    "SessionStart": [
      // the linter
      { "hooks": [{ "type": "command", "command": "lint" }] }
    ]
  }
})";
    Doc d = jsonc::parse(text);
    d["hooks"]["SessionStart"].push_back(
        {{"hooks", Doc::array({{{"type", "command"}, {"command", "engram hook"}}})}});
    auto added = jsonc::edit(text, d);
    REQUIRE(added);
    INFO(*added);
    CHECK(added->find("      // the linter\n      { \"hooks\": [{ \"type\": \"command\", "
                      "\"command\": \"lint\" }] },\n      {") != std::string::npos);
    CHECK(jsonc::parse(*added) == d);

    // engram's hook beside another in one group: only it is taken out.
    Doc both = jsonc::parse(*added);
    both["hooks"]["SessionStart"][0]["hooks"].push_back({{"command", "engram hook"}});
    both["hooks"]["SessionStart"].erase(1);
    auto grouped = jsonc::edit(*added, both);
    REQUIRE(grouped);
    CHECK(grouped->find("// the linter") != std::string::npos);
    Doc lintOnly = jsonc::parse(text);
    auto back = jsonc::edit(*grouped, lintOnly);
    REQUIRE(back);
    CHECK(*back == text);

    // A changed command: the value alone is replaced.
    Doc moved = jsonc::parse(text);
    moved["hooks"]["SessionStart"][0]["hooks"][0]["command"] = "/opt/lint";
    auto replaced = jsonc::edit(text, moved);
    REQUIRE(replaced);
    std::string expected = text;
    expected.replace(expected.find("\"lint\""), 6, "\"/opt/lint\"");
    CHECK(*replaced == expected);
}

TEST_CASE("jsonc: what is not JSON is named by its line", "[setup][config]") {
    auto lineOf = [](const std::string& text) -> size_t {
        try {
            jsonc::parse(text);
        } catch (const ConfigError& e) {
            return e.line;
        }
        return 0;
    };
    CHECK(lineOf("{\n  \"a\": 1\n  \"b\": 2\n}") == 3);
    CHECK(lineOf("{\n  \"a\": 1,\n  \"a\": 2\n}") == 3); // a member twice
    CHECK(lineOf("{\n  /* never closed\n}") == 2);
    CHECK(lineOf("{\"a\": tru}") == 1);
    CHECK(lineOf("{\"a\": 1} x") == 1);
    CHECK(lineOf(std::string(500, '[')) == 1); // too deep: an error, not a crash
    CHECK(lineOf("// only a comment\n{\"a\": [1, 2,],}") == 0);
    CHECK(jsonc::hasComments("{\"url\": \"http://x\"} // note"));
    CHECK_FALSE(jsonc::hasComments("{\"url\": \"http://x/*y*/\"}"));
}

TEST_CASE("toml: engram's table is appended and taken out as lines, the rest kept verbatim",
          "[setup][config]") {
    const std::string text = "# my Codex settings\n"
                             "model = \"gpt-5\" # the default\n"
                             "\n"
                             "[mcp_servers.github]\n"
                             "command = \"github-mcp\"\n"
                             "args = [\n"
                             "  \"stdio\",\n"
                             "  \"[not a header]\",\n"
                             "]\n"
                             "ports = [\n"
                             "[80, 443],\n" // a line opening with '[' that is no header
                             "]\n"
                             "\n"
                             "# profiles below\n"
                             "[profiles.fast]\n"
                             "model = \"small\"\n";
    Doc d = tomlfile::parse(text);
    CHECK(d["mcp_servers"]["github"]["args"][1] == "[not a header]");
    addServer(d, "mcp_servers");
    auto added = tomlfile::edit(text, d);
    REQUIRE(added);
    INFO(*added);
    CHECK(added->rfind(text, 0) == 0); // everything before, untouched
    CHECK(added->find("[mcp_servers.engram]\ncommand = \"engram\"\nargs = [\"mcp\"]\n") !=
          std::string::npos);
    Doc back = tomlfile::parse(*added);
    back["mcp_servers"].erase("engram");
    auto removed = tomlfile::edit(*added, back);
    REQUIRE(removed);
    CHECK(*removed == text);

    // Into an empty file, and out again to nothing.
    Doc fresh = Doc::object();
    addServer(fresh, "mcp_servers");
    auto created = tomlfile::edit("", fresh);
    REQUIRE(created);
    CHECK(*created == "[mcp_servers.engram]\ncommand = \"engram\"\nargs = [\"mcp\"]\n");
    auto emptied = tomlfile::edit(*created, Doc::object());
    REQUIRE(emptied);
    CHECK(emptied->find_first_not_of("\n") == std::string::npos);
}

TEST_CASE("toml: engram's entry written another way is refused, and bad TOML named by line",
          "[setup][config]") {
    // An inline table: a line engram would have to rewrite, not splice.
    const std::string text = "[mcp_servers]\nengram = { command = \"/old/engram\", args = "
                             "[\"mcp\"] } # pinned\n";
    Doc d = tomlfile::parse(text);
    d["mcp_servers"]["engram"]["command"] = "engram";
    CHECK_FALSE(tomlfile::edit(text, d));
    // Removing it whole is a line of its own: that works.
    Doc gone = tomlfile::parse(text);
    gone["mcp_servers"].erase("engram");
    auto removed = tomlfile::edit(text, gone);
    REQUIRE(removed);
    CHECK(*removed == "[mcp_servers]\n");

    size_t line = 0;
    try {
        tomlfile::parse("a = 1\n[t]\nb = = 2\n");
    } catch (const ConfigError& e) {
        line = e.line;
    }
    CHECK(line == 3);
}

} // namespace unit_ConfigEditTest
