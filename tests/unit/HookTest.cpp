// `engram hook`'s input, context and output shapes (ops/Hook.h) over a real
// store: the budget holds for every size, nothing-matched is said, an empty
// workspace stays silent, and each harness gets the JSON it reads.
#include "ops/Hook.h"
#include "engine/Engine.h"
#include "ops/HookSession.h"
#include "support/TempDir.h"
#include "support/Workspace.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Time.h"
#include "util/Utf8.h"

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_HookTest {

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
            // At most four (the hook's floor), and those the budget left
            // out are said.
            CHECK(ctx.find("5. [") == std::string::npos);
            CHECK((ctx.find("4. [") != std::string::npos ||
                   ctx.find("did not fit in this hook's budget") != std::string::npos));
        }
    }

    std::string none = ops::hookContext(w.engine, prompt("dark mode toggle colours"), 8000);
    CHECK(none.find("none of the 61 claims in memory") != std::string::npos);
    CHECK(none.find("1. [") == std::string::npos);

    std::string session = ops::hookContext(w.engine, start, 8000);
    CHECK(session.find("engram holds 61 claims about this workspace") != std::string::npos);
}

TEST_CASE("hook floor: a prompt of generic words, or one sharing one word with a claim, gets "
          "nothing, and the claim about the subject of the prompt gets through",
          "[hook]") {
    Workspace w;
    w.remember("Login attempts are rate limited to 5 per minute per IP, in Redis",
               "login-rate-limit");
    w.remember("Tests that depend on the current time freeze it; never sleep in tests", "");
    w.remember("The event loop stalls when a route makes a blocking database call", "async-io");
    w.remember("Invoice numbers are sequential per organization and year, with no gaps",
               "invoice-numbers");

    auto items = [&](const std::string& text) {
        std::string ctx = ops::hookContext(w.engine, prompt(text), 8000);
        size_t n = 0; // lines "N. [...]"
        for (size_t at = ctx.find('\n'); at != std::string::npos; at = ctx.find('\n', at + 1)) {
            size_t d = at + 1;
            while (d < ctx.size() && std::isdigit(static_cast<unsigned char>(ctx[d])))
                ++d;
            n += d > at + 1 && ctx.compare(d, 3, ". [") == 0;
        }
        return std::make_pair(n, ctx);
    };
    // Generic words only: not a question for memory, whatever matches.
    auto [loop, loopCtx] = items("make this loop faster");
    CHECK(loop == 0);
    CHECK(loopCtx.find("none of the 4 claims in memory (project 4, medulla 0) is about this "
                       "prompt (1 claim shares a word with it, under the relevance floor)") !=
          std::string::npos);
    // One specific word of three shared with a claim, not in its label.
    CHECK(items("translate this sleep timer script to rust").first == 0);
    // The subject of the prompt.
    auto [hit, hitCtx] = items("how many login attempts before we block an address");
    CHECK(hit == 1);
    CHECK(hitCtx.find("login-rate-limit") != std::string::npos);
    CHECK(items("can there be gaps in invoice numbers").first == 1);

    // A packet someone asked for keeps a claim a single specific word
    // brought in, and counts what fell under its floor.
    DelegateRequest d;
    d.task = "timezone handling of invoice numbers and login limits";
    d.agent = "claude:parent";
    auto r = w.engine.delegate(d);
    CHECK(r.packet.items.size() == 2);
    d.task = "make this loop faster";
    r = w.engine.delegate(d);
    CHECK(r.packet.items.empty());
    CHECK(r.packet.metrics.belowFloor >= 1); // the event-loop claim shared only "loop"
}

TEST_CASE("hook floor: two words of the prompt side by side open it, an identifier and its "
          "parts are one word, and --floor none lets rank alone decide",
          "[hook]") {
    Workspace w;
    w.remember("Each event is handled in a loop that drains the queue every second", "");
    w.remember("Exports hold one key per organization in the cache", "export-cache");
    auto given = [&](const std::string& text, bool none = false) {
        ops::HookInput in = prompt(text);
        in.noFloor = none;
        return ops::hookContext(w.engine, in, 8000);
    };
    // "event" is the prompt's one specific word ("loop", "block" and "load"
    // are generic): in no name, held by another claim too.
    const std::string loop = "the event loop is blocked under load";
    CHECK(given(loop).find("1. [") == std::string::npos);
    // A claim naming the event loop, the two words side by side, answers it.
    w.remember("The event loop stalls when a route makes a blocking database call", "");
    std::string ctx = given(loop);
    CHECK(ctx.find("The event loop stalls") != std::string::npos);

    // "KeyError" is one word, not "keyerror", "key" and "error": the claim
    // on the export cache matches one word of three ("export"; "key" is
    // half of "KeyError"), not two of four.
    const std::string keyError = "KeyError in the nightly export";
    ctx = given(keyError);
    INFO(ctx);
    CHECK(ctx.find("1. [") == std::string::npos);
    w.remember("The nightly export raises KeyError when an organization was deleted", "");
    CHECK(given(keyError).find("raises KeyError when an organization") != std::string::npos);

    // No floor: whatever shares a word, as the hook did before its floor.
    CHECK(given("make this loop faster").find("1. [") == std::string::npos);
    CHECK(given("make this loop faster", true).find("1. [") != std::string::npos);
}

TEST_CASE("hook floor: a question about a window is answered by the window's claims and a date "
          "in a request that asks nothing of memory opens nothing",
          "[hook]") {
    Workspace w;
    auto write = [&](const std::string& text, int daysAgo, const std::string& kind = "fact") {
        RememberRequest r;
        r.text = text;
        r.kind = kind;
        r.agent = "claude:test";
        std::string id = w.engine.remember(r).claim.id;
        w.backdate(id, daysAgo);
        return id;
    };
    std::string ttl = write("We cut the report cache TTL to ten minutes", 2);
    std::string review = write("Large pull requests need a second reviewer", 3, "decision");
    std::string incident = write("Webhook deliveries were delayed by a worker out of memory", 15);
    std::string old = write("The report cache keeps totals for one hour", 120);
    w.engine.reindex();
    auto given = [&](const std::string& text) {
        return ops::hookContext(w.engine, prompt(text), 8000);
    };
    // No word of these prompts is in any claim: the window's claims are
    // the answer, and nothing from outside it.
    for (const char* question :
         {"what changed since last week", "anything new since the webhook incident"}) {
        std::string ctx = given(question);
        INFO(question << "\n" << ctx);
        CHECK(ctx.find(ttl) != std::string::npos);
        CHECK(ctx.find(review) != std::string::npos);
        CHECK(ctx.find(incident) == std::string::npos);
        CHECK(ctx.find(old) == std::string::npos);
    }
    // A kind it names is its one specific word, matched like a tag: the
    // decision of the window, not the fact beside it.
    std::string decided = given("what did we decide last week");
    INFO(decided);
    CHECK(decided.find(review) != std::string::npos);
    CHECK(decided.find(ttl) == std::string::npos);
    // "before friday" is read as a window too, but the prompt asks nothing
    // of memory: no claim is given.
    std::string ctx = given("do it before friday");
    INFO(ctx);
    CHECK(ctx.find("1. [") == std::string::npos);
    // A packet someone asked for reads the window the same way.
    DelegateRequest d;
    d.task = "what changed since last week";
    d.agent = "claude:parent";
    auto r = w.engine.delegate(d);
    REQUIRE(r.packet.items.size() == 2);
    std::set<std::string> packed{r.packet.items[0].id, r.packet.items[1].id};
    CHECK(packed == std::set<std::string>{ttl, review});
}

TEST_CASE("hook scope: the claims anchored in a file the prompt names come whatever their "
          "words, four at most, and a name that is no file or names too many is no scope",
          "[hook]") {
    Workspace w;
    std::string code;
    for (int i = 0; i < 6; ++i)
        code += "def f" + std::to_string(i) + "():\n    return " + std::to_string(i) + "\n\n";
    w.root.write("src/billing.py", code);
    w.root.write("src/utils.py", "def helper():\n    return 0\n");
    for (const char* dir : {"a", "b", "c", "d"})
        w.root.write(std::string(dir) + "/__init__.py", "\n");
    std::vector<std::string> ids;
    for (int i = 0; i < 6; ++i) {
        RememberRequest r;
        r.text = "Placeholder number " + std::to_string(i) + " until the tax service lands";
        r.agent = "claude:test";
        r.anchors = {AnchorSpec{.path = "src/billing.py", .symbol = "f" + std::to_string(i)}};
        ids.push_back(w.engine.remember(r).claim.id);
    }
    auto given = [&](const std::string& text) {
        std::string ctx = ops::hookContext(w.engine, prompt(text), 8000);
        size_t n = 0;
        for (auto& id : ids)
            n += ctx.find(id) != std::string::npos;
        return n;
    };
    // A path from the root is found on disk, before any listing.
    CHECK(w.engine.filesNamedIn("add a docstring to `src/billing.py`.", 4) ==
          std::vector<std::string>{"src/billing.py"});
    CHECK(given("add a docstring to `src/billing.py`.") == 4);
    // A bare name needs the listing of the workspace.
    CHECK(w.engine.filesNamedIn("any gotchas in billing.py?", 4).empty());
    w.engine.indexCode();
    CHECK(w.engine.filesNamedIn("any gotchas in billing.py?", 4) ==
          std::vector<std::string>{"src/billing.py"});
    CHECK(given("any gotchas in billing.py?") == 4);
    CHECK(w.engine.filesNamedIn("TypeError at src/billing.py:12:5, then billing.py:3", 4) ==
          std::vector<std::string>{"src/billing.py"});
    // Another file, a file that is not there, a name four files share, and
    // words that only look like names.
    CHECK(given("add a docstring to utils.py") == 0);
    CHECK(given("add a docstring to payments.py") == 0);
    CHECK(w.engine.filesNamedIn("what goes in __init__.py", 4).empty());
    CHECK(w.engine.filesNamedIn("e.g. bump it to 3.14 or v1.2, see https://x.io/a.py", 4).empty());
    CHECK(w.engine.filesNamedIn("edit ../src/billing.py or /etc/passwd.d", 4).empty());
}

TEST_CASE("hook session: a claim is given once per session, again when it changed or is named, "
          "and a cleared context starts the list anew",
          "[hook]") {
    Workspace w;
    TempDir sessions;
    w.remember("Login attempts are rate limited to 5 per minute per IP", "login-rate-limit");
    w.remember("Invoice numbers are sequential per organization, with no gaps", "invoice-numbers");
    auto ask = [&](const std::string& text, const std::string& session) {
        ops::HookInput in = prompt(text);
        in.sessionId = session;
        return ops::hookContext(w.engine, in, 8000, sessions.path());
    };
    const std::string q = "how many login attempts before we block an address";
    std::string first = ask(q, "s1");
    CHECK(first.find("login-rate-limit: Login attempts") != std::string::npos);
    std::string second = ask(q, "s1");
    CHECK(second.find("Login attempts are rate limited") == std::string::npos);
    CHECK(second.find("1 relevant memory given earlier in this session: c-") != std::string::npos);
    // Another session, or none: given in full.
    CHECK(ask(q, "s2").find("login-rate-limit: Login attempts") != std::string::npos);
    CHECK(ask(q, "").find("login-rate-limit: Login attempts") != std::string::npos);
    CHECK(ask(q, "").find("login-rate-limit: Login attempts") != std::string::npos);
    // Named by its label: given again.
    CHECK(ask("what does login-rate-limit say about login attempts", "s1")
              .find("login-rate-limit: Login attempts") != std::string::npos);
    // A new version: given again.
    RememberRequest r;
    r.text = "Login attempts are rate limited to 10 per minute per IP since the March incident";
    r.label = "login-rate-limit";
    r.agent = "claude:test";
    w.engine.remember(r);
    CHECK(ask(q, "s1").find("Login attempts are rate limited to 10") != std::string::npos);
    CHECK(ask(q, "s1").find("given earlier in this session") != std::string::npos);

    // A session start that compacts the context forgets; one that resumes it
    // does not.
    ops::HookInput start;
    start.event = "session-start";
    start.sessionId = "s1";
    start.source = "resume";
    ops::hookContext(w.engine, start, 8000, sessions.path());
    CHECK(ask(q, "s1").find("given earlier in this session") != std::string::npos);
    start.source = "compact";
    ops::hookContext(w.engine, start, 8000, sessions.path());
    CHECK(ask(q, "s1").find("Login attempts are rate limited to 10") != std::string::npos);

    // What the budget left out was not given: it comes with a later prompt.
    w.remember("Login attempts past the limit get a 429 with a Retry-After header",
               "login-limit-response");
    ops::HookInput tight = prompt("login attempts limit");
    tight.sessionId = "s3";
    std::string cut = ops::hookContext(w.engine, tight, 600, sessions.path());
    CHECK(cut.find("1. [") != std::string::npos);
    CHECK(cut.find("2. [") == std::string::npos);
    CHECK(cut.find("did not fit in this hook's budget") != std::string::npos);
    std::string rest = ops::hookContext(w.engine, tight, 8000, sessions.path());
    CHECK(rest.find("1. [") != std::string::npos);
    INFO(cut);
    INFO(rest);
    CHECK(rest.find("given earlier in this session") != std::string::npos);
}

TEST_CASE("hook session files are bounded and expire", "[hook]") {
    TempDir dir;
    {
        ops::HookSession s(dir.path(), "/w", "long");
        for (size_t i = 0; i < ops::kMaxGiven + 50; ++i)
            s.give("c-" + std::to_string(i), "1:intact");
        s.save();
    }
    ops::HookSession again(dir.path(), "/w", "long");
    CHECK_FALSE(again.given("c-0", "1:intact")); // the oldest went
    CHECK(again.given("c-" + std::to_string(ops::kMaxGiven + 49), "1:intact"));
    CHECK_FALSE(again.given("c-" + std::to_string(ops::kMaxGiven + 49), "2:intact"));
    // Another workspace with the same session id shares nothing.
    CHECK_FALSE(ops::HookSession(dir.path(), "/other", "long")
                    .given("c-" + std::to_string(ops::kMaxGiven + 49), "1:intact"));

    // An idle session file goes when another session writes.
    auto files = listFiles(dir.path());
    REQUIRE(files.size() == 1);
    std::string old = dir.path() + "/" + files[0];
    struct timespec times[2] = {{nowUnix() - ops::kIdleSeconds - 60, 0},
                                {nowUnix() - ops::kIdleSeconds - 60, 0}};
    REQUIRE(::utimensat(AT_FDCWD, old.c_str(), times, 0) == 0);
    ops::HookSession fresh(dir.path(), "/w", "new");
    fresh.give("c-x", "1:intact");
    fresh.save();
    CHECK_FALSE(statFile(old));
    CHECK(listFiles(dir.path()).size() == 1);
}

} // namespace unit_HookTest
