// `engram hook`'s input, context and output shapes (ops/Hook.h) over a real
// store: the budget holds for every size, nothing-matched is said, an empty
// workspace stays silent, and each harness gets the JSON it reads.
#include "ops/Hook.h"
#include "engine/Engine.h"
#include "support/TempDir.h"
#include "support/Workspace.h"
#include "util/Error.h"
#include "util/Utf8.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace engram;
using engram::test::TempDir;
using json = nlohmann::json;

namespace {

struct Workspace : test::EngineWorkspace {
    void remember(const std::string& text, const std::string& label = "") {
        RememberRequest r;
        r.text = text;
        if (!label.empty()) r.label = label;
        r.agent = "claude:test";
        engine.remember(r);
    }
};

ops::HookInput prompt(const std::string& text) {
    ops::HookInput in;
    in.event = "prompt";
    in.prompt = text;
    return in;
}

} // namespace

TEST_CASE("hook input: the harness's event, prompt and directory, malformed input named",
          "[hook]") {
    auto in = ops::parseHookInput(
        R"({"session_id":"s","hook_event_name":"UserPromptSubmit","cwd":"/w","prompt":"fix it"})");
    CHECK(in.event == "prompt");
    CHECK(in.eventName == "UserPromptSubmit");
    CHECK(in.prompt == "fix it");
    CHECK(in.cwd == "/w");
    CHECK_FALSE(in.cursor);

    in = ops::parseHookInput(R"({"hook_event_name":"BeforeAgent","prompt":"p"})"); // Gemini CLI
    CHECK(in.event == "prompt");
    in = ops::parseHookInput(
        R"({"hook_event_name":"sessionStart","cursor_version":"1.7","workspace_roots":["/r"]})");
    CHECK(in.event == "session-start");
    CHECK(in.cursor);
    CHECK(in.cwd == "/r");
    CHECK_FALSE(ops::parseHookInput(" \n").fromStdin);

    auto field = [](const std::string& text) {
        try {
            ops::parseHookInput(text);
        } catch (const EngramError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(field("not json").starts_with("stdin:"));
    CHECK(field("[1]").starts_with("stdin:"));
    CHECK(field(R"({"prompt":3})").starts_with("prompt: must be a string"));
    CHECK(
        field(R"({"hook_event_name":"PreToolUse"})").starts_with("hook_event_name: 'PreToolUse'"));
    CHECK(field(R"({"workspace_roots":"/r"})").starts_with("workspace_roots:"));
}

TEST_CASE("hook output: Claude's and Cursor's JSON carry the context, text is the context",
          "[hook]") {
    auto in = ops::parseHookInput(R"({"hook_event_name":"BeforeAgent","prompt":"p"})");
    json j = json::parse(ops::hookOutput(in, "auto", "<engram-memory>x</engram-memory>\n"));
    CHECK(j["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"); // echoed back
    CHECK(j["hookSpecificOutput"]["additionalContext"] == "<engram-memory>x</engram-memory>\n");

    in = ops::parseHookInput(R"({"hook_event_name":"sessionStart","cursor_version":"1"})");
    j = json::parse(ops::hookOutput(in, "auto", "ctx"));
    CHECK(j == json{{"additional_context", "ctx"}});

    ops::HookInput none; // no stdin: text, unless a JSON shape is asked for
    CHECK(ops::hookOutput(none, "auto", "ctx") == "ctx");
    none.event = "prompt";
    j = json::parse(ops::hookOutput(none, "claude", ""));
    CHECK(j["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit");
    CHECK(j["hookSpecificOutput"]["additionalContext"] == "");
}

TEST_CASE("hook context: matched memories within the budget, said when none matched, silent "
          "without memory",
          "[hook]") {
    Workspace w;
    CHECK(ops::hookContext(w.engine, prompt("how are tokens validated"), 8000).empty());
    ops::HookInput start;
    start.event = "session-start";
    CHECK(ops::hookContext(w.engine, start, 8000).empty());

    for (int i = 0; i < 60; ++i)
        w.remember("token validation note " + std::to_string(i) + ": " +
                       std::string(size_t(40 + 7 * i), 'x') + " é" +
                       " the validator rejects expired tokens",
                   "token-" + std::to_string(i));
    w.remember("the cache is flushed on every deploy", "cache-flush");

    std::string all = ops::hookContext(w.engine, prompt("how are tokens validated"), 100000);
    CHECK(all.starts_with("<engram-memory event=\"prompt\">\n"));
    CHECK(all.ends_with("</engram-memory>\n"));
    CHECK(all.find("cache-flush") == std::string::npos);
    CHECK(all.find("61 claims in memory") != std::string::npos);
    for (size_t budget : {size_t(200), size_t(333), size_t(1000), size_t(2500), size_t(8000)}) {
        INFO("budget " << budget);
        std::string ctx = ops::hookContext(w.engine, prompt("how are tokens validated"), budget);
        CHECK(ctx.size() <= budget);
        CHECK_FALSE(firstInvalidUtf8(ctx));
        CHECK(ctx.front() != '{'); // harnesses read a leading '{' as JSON
        if (budget >= 1000) {
            CHECK(ctx.find("1. [") != std::string::npos);
            CHECK(ctx.ends_with("</engram-memory>\n"));
            CHECK(ctx.find("did not fit in this hook's budget") != std::string::npos);
        }
    }

    std::string none = ops::hookContext(w.engine, prompt("dark mode toggle colours"), 8000);
    CHECK(none.find("none of the 61 claims in memory") != std::string::npos);
    CHECK(none.find("1. [") == std::string::npos);

    std::string session = ops::hookContext(w.engine, start, 8000);
    CHECK(session.find("engram holds 61 claims about this workspace") != std::string::npos);
}
