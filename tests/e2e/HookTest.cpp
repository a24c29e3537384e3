// `engram hook` as a harness runs it: the real binary, the harness's JSON on
// stdin, no --root (the input's cwd names the workspace), the shape each
// harness reads on stdout, and exit 1, never 2, on bad input.
#include "Client.h"

#include <catch2/catch.hpp>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_HookTest {

using namespace engram::e2e;
using engram::test::TempDir;

namespace {

struct Workspace {
    TempDir dir, home;
    Workspace() { copySampleWorkspace(dir.path()); }
    CliResult hook(const json& input, std::vector<std::string> flags = {}) const {
        std::vector<std::string> args = {"--home", home.path(), "hook"};
        args.insert(args.end(), flags.begin(), flags.end());
        return runCli(args, {}, input.is_null() ? "" : input.dump());
    }
    void remember(const std::string& text, const std::string& label,
                  const std::string& anchor = "") const {
        std::vector<std::string> args = {"--root",   dir.path(),   "--home",  home.path(),
                                         "remember", text,         "--label", label,
                                         "--agent",  "claude:test"};
        if (!anchor.empty()) args.insert(args.end(), {"--anchor", anchor});
        auto r = runCli(args);
        INFO(describe(r));
        REQUIRE(r.exitCode == 0);
    }
};

std::string contextOf(const CliResult& r) {
    INFO(describe(r));
    REQUIRE(r.exitCode == 0);
    json j = r.parsed();
    return j["hookSpecificOutput"]["additionalContext"];
}

} // namespace

TEST_CASE("engram hook: Claude Code's session-start and prompt hooks get memory as JSON",
          "[e2e][hook]") {
    Workspace w;
    // Nothing remembered: valid JSON, nothing to add.
    auto r = w.hook({{"hook_event_name", "SessionStart"}, {"cwd", w.dir.path()}});
    CHECK(contextOf(r).empty());

    w.remember("validate returns ok=False for expired tokens instead of raising", "validate-silent",
               "src/auth.py#TokenValidator.validate");
    w.remember("the web client retries a failed fetch three times", "fetch-retry");

    r = w.hook({{"session_id", "s1"},
                {"hook_event_name", "UserPromptSubmit"},
                {"cwd", w.dir.path() + "/src"},
                {"prompt", "Why do expired tokens not raise in validate?"}});
    std::string ctx = contextOf(r);
    CHECK(r.parsed()["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit");
    CHECK(contains(ctx, "validate-silent: validate returns ok=False"));
    CHECK(contains(ctx, "src/auth.py#TokenValidator.validate"));
    CHECK(contains(ctx, "intact"));
    CHECK_FALSE(contains(ctx, "fetch-retry"));

    r = w.hook({{"hook_event_name", "UserPromptSubmit"},
                {"cwd", w.dir.path()},
                {"prompt", "paint the settings page purple"}});
    CHECK(contains(contextOf(r), "none of the 2 claims in memory"));

    r = w.hook({{"hook_event_name", "SessionStart"}, {"cwd", w.dir.path()}, {"source", "startup"}});
    CHECK(contains(contextOf(r), "engram holds 2 claims about this workspace"));

    // The anchor health at session start is the one status last counted
    // (counting it is a look at every anchored file, which the hook never
    // takes), said with its age.
    std::string code = *slurp(w.dir.path() + "/src/auth.py");
    auto at = code.find("def validate");
    REQUIRE(at != std::string::npos);
    code.insert(code.find('\n', at) + 1, "        audit(token)\n");
    spew(w.dir.path() + "/src/auth.py", code);
    ctx = contextOf(w.hook({{"hook_event_name", "SessionStart"}, {"cwd", w.dir.path()}}));
    CHECK_FALSE(contains(ctx, "drifted")); // not counted since the change
    REQUIRE(runCli({"--root", w.dir.path(), "--home", w.home.path(), "status"}).exitCode == 0);
    ctx = contextOf(w.hook({{"hook_event_name", "SessionStart"}, {"cwd", w.dir.path()}}));
    CHECK(contains(ctx, "(anchors as last counted, just now: 0 intact, 1 drifted"));
}

TEST_CASE("engram hook: the budget, Cursor's shape, text, and errors that never block a prompt",
          "[e2e][hook]") {
    Workspace w;
    for (int i = 0; i < 12; ++i)
        w.remember("token expiry rule " + std::to_string(i) + ": " + std::string(120, 'k'),
                   "expiry-" + std::to_string(i));
    json prompt = {{"hook_event_name", "UserPromptSubmit"},
                   {"cwd", w.dir.path()},
                   {"prompt", "what are the token expiry rules"}};
    std::string ctx = contextOf(w.hook(prompt, {"--max-chars", "600"}));
    CHECK(ctx.size() <= 600);
    CHECK(contains(ctx, "1. ["));
    CHECK(contains(ctx, "did not fit in this hook's budget"));

    auto r = w.hook({{"hook_event_name", "sessionStart"},
                     {"cursor_version", "1.7.0"},
                     {"workspace_roots", {w.dir.path()}}});
    INFO(describe(r));
    REQUIRE(r.exitCode == 0);
    CHECK(contains(r.parsed()["additional_context"].get<std::string>(), "engram holds 12 claims"));

    r = runCli({"--root", w.dir.path(), "--home", w.home.path(), "hook", "--format", "text",
                "--event", "prompt", "--prompt", "token expiry rules"});
    CHECK(r.exitCode == 0);
    CHECK(r.out.starts_with("<engram-memory event=\"prompt\">\n"));

    // Exit 1 with the field named: a harness reads 2 as "block the prompt".
    r = runCli({"--home", w.home.path(), "hook"}, {}, "{not json");
    CHECK(r.exitCode == 1);
    CHECK(contains(r.err, "stdin: is not a JSON object"));
    r = w.hook({{"hook_event_name", "PreToolUse"}});
    CHECK(r.exitCode == 1);
    CHECK(contains(r.err, "hook_event_name: 'PreToolUse'"));
    r = w.hook(prompt, {"--max-chars", "50"});
    CHECK(r.exitCode == 1);
    CHECK(contains(r.err, "--max-chars: 50 is not between 200 and 100000"));
    CHECK(r.out.empty());
    r = w.hook(prompt, {"--floor", "lax"});
    CHECK(r.exitCode == 1);
    CHECK(contains(r.err, "--floor: 'lax' is not strict, loose or none"));
    // Rank alone: the twelve rules, as many as fit.
    ctx = contextOf(w.hook(prompt, {"--floor", "none"}));
    CHECK(contains(ctx, "5. ["));
}

TEST_CASE("engram hook: a large store is answered from its index, a claim rewritten in place "
          "is served as its file now says",
          "[e2e][hook]") {
    Workspace w;
    w.remember("the loader caches parsed manifests for alpha builds", "loader-cache");
    w.remember("retries back off exponentially", "retry-backoff");
    // Rewritten in place, as an editor or a pull might: the directory is as
    // the index last knew it, so no sweep is needed to open the store.
    std::string file;
    for (auto& f : filesIn(claimsDir(w.dir.path()), ".md")) {
        std::string text = *slurp(claimsDir(w.dir.path()) + "/" + f);
        if (contains(text, "loader-cache")) file = claimsDir(w.dir.path()) + "/" + f;
    }
    REQUIRE_FALSE(file.empty());
    std::string text = *slurp(file);
    text.replace(text.find("alpha builds"), 12, "omega builds");
    spew(file, text);
    // Every store counts as large here: answered without the sweep.
    auto r = runCli({"--root", w.dir.path(), "--home", w.home.path(), "hook", "--format", "text",
                     "--event", "prompt", "--prompt", "how does the loader cache manifests"},
                    {"ENGRAM_INLINE_RECONCILE_MAX=1"});
    INFO(describe(r));
    REQUIRE(r.exitCode == 0);
    CHECK(contains(r.out, "loader-cache: the loader caches parsed manifests for omega builds"));
    CHECK_FALSE(contains(r.out, "alpha builds"));
}

} // namespace e2e_HookTest
