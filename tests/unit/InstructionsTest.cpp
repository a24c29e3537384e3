// Code references in instruction files: what is extracted from the text
// alone (instructions/References.h), their paragraphs, and how names the
// code index does not hold are judged against a real workspace and index
// (modules, fields, examples). Git baselines are tested end to end
// (tests/e2e/InstructionsTest.cpp).
#include "engine/Engine.h"
#include "instructions/References.h"
#include "support/TempDir.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_InstructionsTest {

using namespace engram::instructions;

namespace {

// The references a text holds by their form alone (lone words, which only
// their history can make references, are left out; `words` lists them).
std::vector<std::string> written(std::string_view text) {
    std::vector<std::string> out;
    for (auto& r : extractReferences(text))
        if (r.form != RefForm::Word) out.push_back(r.written);
    return out;
}

std::vector<std::string> words(std::string_view text) {
    std::vector<std::string> out;
    for (auto& r : extractReferences(text))
        if (r.form == RefForm::Word) out.push_back(r.symbol);
    return out;
}

Reference only(std::string_view text) {
    INFO(text);
    auto refs = extractReferences(text);
    REQUIRE(refs.size() == 1);
    return refs[0];
}

} // namespace

TEST_CASE("code spans name paths, lines, symbols and qualified names", "[instructions]") {
    auto r = only("See `src/auth.py` first.");
    CHECK(r.form == RefForm::Path);
    CHECK(r.path == "src/auth.py");
    CHECK(r.lineIndex == 0);
    CHECK(r.startColumn == 5);
    CHECK(r.endColumn == 16);

    r = only("at `src/auth.py:42-60`");
    CHECK(r.form == RefForm::PathLine);
    CHECK(r.path == "src/auth.py");
    CHECK(r.line == 42);
    CHECK(r.lineEnd == 60);

    r = only("`./src/auth.py#TokenValidator.validate`");
    CHECK(r.form == RefForm::PathSymbol);
    CHECK(r.path == "src/auth.py");
    CHECK(r.symbol == "TokenValidator.validate");

    r = only("call `engram::Store::write()` once");
    CHECK(r.form == RefForm::Name);
    CHECK(r.symbol == "engram.Store.write");

    r = only("`validate_token()`");
    CHECK(r.form == RefForm::Name);
    CHECK(r.symbol == "validate_token");

    r = only("the `docs/` folder");
    CHECK(r.form == RefForm::Path);
    CHECK(r.directory);
    CHECK(r.path == "docs");

    CHECK(only("`Makefile`").form == RefForm::Path);
    CHECK(only("`src/a.py:10:4`").line == 10);
}

TEST_CASE("commands, flags, words and values are not references", "[instructions]") {
    CHECK(written("Run `npm test` and `make -j4`.").empty());
    CHECK(written("Pass `--fail-on` or `-v`; set `$HOME`.").empty());
    CHECK(written("Use `true`, `null`, `pytest` or `snake_case` names.").empty());
    // Lone words are candidates whose past decides (a definition renamed
    // since the line was written), never references by their form.
    CHECK(words("Use `true`, `null`, `pytest` or `snake_case` names; call `refresh()`.") ==
          std::vector<std::string>{"true", "null", "pytest", "snake_case"});
    CHECK(written("Version `1.2.3`, ratio `1/2`, `e.g.` and `...`").empty());
    CHECK(written("`https://example.com/a.py` and `/usr/bin/env` and `~/x.py`").empty());
    CHECK(written("`Vec<T>`, `a = b`, `{x}`, `*.py`").empty());
    CHECK(written("`.env` and `.gitignore`").empty()); // dot files without a directory
}

TEST_CASE("fenced code, front matter and comments are skipped", "[instructions]") {
    std::string text = "---\n"
                       "globs: src/**/*.py\n"
                       "---\n"
                       "```bash\n"
                       "cat `src/a.py`\n"
                       "```\n"
                       "<!-- `src/hidden.py` -->\n"
                       "Read `src/b.py`.\n"
                       "~~~~\n"
                       "`src/c.py`\n"
                       "~~~~\n";
    auto refs = extractReferences(text);
    REQUIRE(refs.size() == 1);
    CHECK(refs[0].path == "src/b.py");
    CHECK(refs[0].lineIndex == 7);
}

TEST_CASE("links into the repository are references relative to the file", "[instructions]") {
    auto refs = extractReferences("See [the guide](../docs/guide%20one.md#setup), "
                                  "[site](https://x.org/a.md), [top](#intro), "
                                  "[mail](mailto:a@b.c) and [code](/src/auth.py#L3-L9).");
    REQUIRE(refs.size() == 2);
    CHECK(refs[0].link);
    CHECK(refs[0].form == RefForm::Path);
    CHECK(refs[0].path == "../docs/guide one.md");
    CHECK_FALSE(refs[1].link); // from the repository's root
    CHECK(refs[1].form == RefForm::PathLine);
    CHECK(refs[1].path == "src/auth.py");
    CHECK(refs[1].line == 3);
    CHECK(refs[1].lineEnd == 9);
}

TEST_CASE("bare paths in prose count only in unmistakable forms", "[instructions]") {
    CHECK(written("The bug is at src/auth.py:42, see docs/guide.md.") ==
          std::vector<std::string>{"src/auth.py:42", "docs/guide.md"});
    // A file name alone, a URL or a version in prose is not read.
    CHECK(written("Edit auth.py or see https://x.org/src/a.py and v1.2.3.").empty());
    // Inside a code span, the span is read once.
    CHECK(written("`src/a.py:3`").size() == 1);
}

TEST_CASE("instruction files are known by name at any depth", "[instructions]") {
    CHECK(isInstructionFile("AGENTS.md"));
    CHECK(isInstructionFile("pkg/sub/CLAUDE.md"));
    CHECK(isInstructionFile("GEMINI.md"));
    CHECK(isInstructionFile(".cursorrules"));
    CHECK(isInstructionFile(".github/copilot-instructions.md"));
    CHECK(isInstructionFile(".github/instructions/py.instructions.md"));
    CHECK(isInstructionFile(".cursor/rules/style.mdc"));
    CHECK(isInstructionFile("web/.cursor/rules/api.mdc"));
    CHECK_FALSE(isInstructionFile("README.md"));
    CHECK_FALSE(isInstructionFile("docs/agents.md"));
    CHECK_FALSE(isInstructionFile("copilot-instructions.md"));
    CHECK(globMatches("docs/*.md", "docs/a/b.md"));
    CHECK(globMatches("CONVENTIONS.md", "CONVENTIONS.md"));
    CHECK_FALSE(globMatches("docs/*.md", "src/docs/a.md"));
    CHECK(globMatches("*/NOTES.?d", "a/b/NOTES.md"));
}

TEST_CASE("paragraphs: blank lines split, headings label, fences stay whole", "[instructions]") {
    auto ps = splitParagraphs("---\nglobs: x\n---\n# Setup\n\nRun `make`.\nThen test.\n\n"
                              "```sh\nmake\n\nmake test\n```\n## Style\n- one\n- two\n");
    REQUIRE(ps.size() == 3);
    CHECK(ps[0].heading == "Setup");
    CHECK(ps[0].line == 5);
    CHECK(ps[0].endLine == 6);
    CHECK(ps[0].text == "Run `make`.\nThen test.");
    CHECK(ps[1].text == "```sh\nmake\n\nmake test\n```"); // the blank line inside stays
    CHECK(ps[1].heading == "Setup");
    CHECK(ps[2].heading == "Style");
    CHECK(ps[2].text == "- one\n- two");

    std::string longRun;
    for (int i = 0; i < 100; ++i)
        longRun += "line " + std::to_string(i) + " of a very long list item text\n";
    for (auto& p : splitParagraphs(longRun))
        CHECK(p.text.size() <= kMaxParagraphBytes);
}

TEST_CASE("names the code index lacks: modules, fields and examples are not dangling",
          "[instructions]") {
    engram::test::TempDir home, dir;
    namespace fs = std::filesystem;
    auto write = [&](const std::string& rel, const std::string& text) {
        fs::create_directories(fs::path(dir.path() + "/" + rel).parent_path());
        std::ofstream(dir.path() + "/" + rel) << text;
    };
    write("src/app/models.py", "class ModelResponse:\n    provider_details: dict = None\n\n"
                               "    def parts(self):\n        return []\n");
    write("src/app/__init__.py", "");
    write("web/button.test.ts", "test('x', () => {});\n");
    write("go.mod", "module example.com/x\n");
    write("CLAUDE.md",
          "Modules: `app.models`, `app.models.ModelResponse`; fields: "
          "`ModelResponse.provider_details`.\n"
          "Gone: `ModelResponse.finish_reason` and `src/app/views.py`.\n"
          "Not ours: `this.request()`, `github.event`, `env.HOME`, `test.fails()`.\n"
          "Files: `go.mod`; suffixes: `.test.ts`; examples: e.g. `src/app/foo_tools.py`.\n");
    engram::Engine engine({dir.path(), "test", home.path(), 30, "test"});
    engram::RememberRequest r; // a store, so the code index exists
    r.text = "models hold the responses";
    r.agent = "test:unit";
    engine.remember(r);
    auto scan = engine.scanInstructions();
    std::map<std::string, std::string> state;
    for (auto& ref : scan.refs)
        state[ref.ref.written] = ref.state;
    CHECK(state["app.models"] == "ok");
    CHECK(state["app.models.ModelResponse"] == "ok");
    CHECK(state["ModelResponse.provider_details"] == "ok");
    CHECK(state["ModelResponse.finish_reason"] == "dangling");
    CHECK(state["src/app/views.py"] == "dangling");
    CHECK(state["go.mod"] == "ok");
    for (const char* dropped : {"this.request()", "github.event", "env.HOME", "test.fails()",
                                ".test.ts", "src/app/foo_tools.py"}) {
        INFO(dropped);
        CHECK(state.count(dropped) == 0);
    }
}

} // namespace unit_InstructionsTest
