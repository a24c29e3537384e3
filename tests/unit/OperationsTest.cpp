// The operation table (ops/Operations.cpp): the surfaces derive from it, so
// its entries must agree with themselves, and an operation runs the same
// whichever surface supplies its Call.
#include "engine/GitStores.h"
#include "ops/Operation.h"
#include "ops/Render.h"
#include "store/ClaimFile.h"
#include "support/Names.h"
#include "support/TempDir.h"
#include "support/Workspace.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Process.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_OperationsTest {

using namespace engram;
using engram::test::TempDir;
using json = nlohmann::json;

namespace {

std::string kebab(std::string snake) {
    for (char& c : snake)
        if (c == '_') c = '-';
    return snake;
}

struct Workspace : test::EngineWorkspace {
    int binds = 0;
    ops::Call call(bool terminal = false) {
        ops::Call c;
        c.bind = [this]() -> Engine& {
            ++binds;
            return engine;
        };
        c.defaultAgent = "test:ops";
        c.terminal = terminal;
        return c;
    }
};

} // namespace

TEST_CASE("every operation is named by one rule on the three surfaces") {
    std::set<std::string> names, methods, commands;
    for (auto& op : ops::operations()) {
        INFO(op.name);
        CHECK(names.insert(op.name).second);
        CHECK(methods.insert(op.method).second);
        CHECK(std::string(op.method) == "engram/" + engram::test::camel(op.name));
        if (op.cli.name.empty()) {
            // `engram check` is its own command (SARIF, an exit code for CI).
            CHECK(std::string(op.name) == "check");
            continue;
        }
        CHECK(commands.insert(op.cli.name).second);
        CHECK(op.cli.name == kebab(op.name));
        CHECK(ops::byName(op.name) == &op);
        CHECK(ops::byMethod(op.method) == &op);
        CHECK(ops::byCommand(op.cli.name) == &op);
        CHECK(std::string(op.cli.help).find("  " + op.cli.name) == 0);
    }
    CHECK(ops::byName("frobnicate") == nullptr);
    CHECK(ops::byMethod("engram/verify_packet") == nullptr);
}

TEST_CASE("every command-line word and flag sets a parameter the operation's schema declares") {
    for (auto& op : ops::operations()) {
        json props = op.input()["properties"];
        std::set<std::string> fromCli;
        for (auto& p : op.cli.positionals) {
            INFO(op.name << " " << p.display);
            CHECK(props.contains(p.param));
            fromCli.insert(p.param);
        }
        for (auto& f : op.cli.flags) {
            INFO(op.name << " " << f.name);
            CHECK(props.contains(f.param));
            CHECK(std::string(f.name).rfind("--", 0) == 0);
            fromCli.insert(f.param);
        }
        // What the schema requires, the command line can give (`agent`
        // defaults to the user).
        for (auto& req : op.input().value("required", json::array())) {
            INFO(op.name << " requires " << req);
            std::string param = req.get<std::string>();
            CHECK((fromCli.count(param) || param == "agent"));
        }
    }
}

TEST_CASE("an operation parses its parameters before it asks for an engine") {
    Workspace w;
    auto call = w.call();
    const auto* remember = ops::byName("remember");
    REQUIRE(remember);
    try {
        remember->run(call, {{"kind", "gotcha"}});
        FAIL("accepted a claim without text");
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::InvalidParams);
        CHECK(std::string(e.what()).rfind("text:", 0) == 0);
    }
    CHECK(w.binds == 0);

    auto out = remember->run(call, {{"text", "the pool holds ten connections"}});
    CHECK(w.binds == 1);
    CHECK(out.value["claim"]["source_agent"] == "test:ops"); // the surface's default
    CHECK_FALSE(out.text.has_value());                       // not asked for

    // Over the LSP no agent is supplied: a write must name its author.
    ops::Call lsp = w.call();
    lsp.defaultAgent.reset();
    CHECK_THROWS_AS(remember->run(lsp, {{"text", "x"}}), EngramError);
}

TEST_CASE("operations answer on the wire and in the terminal from one run") {
    Workspace w;
    auto call = w.call(true);
    auto stored =
        ops::byName("remember")
            ->run(call, {{"text", "retries give up after three attempts"}, {"label", "retries"}});
    std::string id = stored.value["claim"]["id"];
    REQUIRE(stored.text);
    CHECK(stored.text->find("Remembered: [fact] retries") == 0);

    auto recalled = ops::byName("recall")->run(call, {{"query", "retry attempts"}});
    REQUIRE(recalled.value["rows"].size() == 1);
    CHECK(recalled.value["rows"][0]["id"] == id);
    REQUIRE(recalled.text);
    CHECK(recalled.text->find("1. [fact] retries") == 0);
    // The text for a model reads the same result.
    CHECK(ops::byName("recall")->render(recalled.value).find(id) != std::string::npos);

    auto retracted = ops::byName("retract")->run(call, {{"id", id}, {"reason", "changed"}});
    CHECK(retracted.value["claim"]["status"] == "retracted");
    CHECK(retracted.value["claim"]["retracted_by"] == "test:ops");

    auto status = ops::byName("status")->run(call, {{"confusion", true}});
    CHECK(status.value["confusion"].is_array());
    CHECK_FALSE(ops::byName("status")->run(call, json::object()).value.contains("confusion"));
}

TEST_CASE("a verification that fails is a refusal the command line exits 1 on") {
    Workspace w;
    auto call = w.call();
    auto out =
        ops::byName("verify_packet")
            ->run(call, {{"packet", {{"schema", "engram.packet/1"}, {"items", json::array()}}}});
    CHECK(out.value["valid"] == false);
    CHECK(out.refused);
}

namespace {

// The subset of JSON Schema the tools' schemas use: type (one or a list),
// properties, required, items, enum. Returns the first disagreement.
std::string disagreement(const json& v, const json& schema, const std::string& at) {
    if (!schema.is_object()) return at + ": the schema is not an object: " + schema.dump();
    if (schema.contains("type")) {
        auto fits = [&](const std::string& t) {
            if (t == "object") return v.is_object();
            if (t == "array") return v.is_array();
            if (t == "string") return v.is_string();
            if (t == "integer") return v.is_number_integer();
            if (t == "number") return v.is_number();
            if (t == "boolean") return v.is_boolean();
            if (t == "null") return v.is_null();
            return false;
        };
        const json& type = schema["type"];
        bool ok = false;
        if (type.is_string()) ok = fits(type);
        for (auto& t : type.is_array() ? type : json::array())
            ok = ok || fits(t);
        if (!ok) return at + ": " + v.dump().substr(0, 60) + " is not " + type.dump();
    }
    if (schema.contains("enum") && v.is_string() &&
        std::find(schema["enum"].begin(), schema["enum"].end(), v) == schema["enum"].end())
        return at + ": '" + v.get<std::string>() + "' is not one of " + schema["enum"].dump();
    if (v.is_object()) {
        for (auto& r : schema.value("required", json::array()))
            if (!v.contains(r)) return at + ": " + r.get<std::string>() + " is missing";
        json properties = schema.value("properties", json::object());
        for (auto& [k, sub] : properties.items())
            if (v.contains(k))
                if (auto d = disagreement(v[k], sub, at + "." + k); !d.empty()) return d;
    }
    if (v.is_array() && schema.contains("items"))
        for (size_t i = 0; i < v.size(); ++i)
            if (auto d = disagreement(v[i], schema["items"], at + "[" + std::to_string(i) + "]");
                !d.empty())
                return d;
    return "";
}

// Every member name a schema declares, at any depth.
void namesIn(const json& schema, std::set<std::string>& out) {
    if (!schema.is_object()) return;
    json properties = schema.value("properties", json::object()); // alive for the loop
    for (auto& [name, sub] : properties.items()) {
        out.insert(name);
        namesIn(sub, out);
    }
    if (schema.contains("items")) namesIn(schema["items"], out);
    if (schema.contains("additionalProperties")) namesIn(schema["additionalProperties"], out);
}

} // namespace

TEST_CASE("every operation's result fits the output schema written beside it") {
    Workspace w;
    {
        std::ofstream code(w.root.path() + "/pool.py");
        code << "def acquire(timeout):\n    return connect(timeout)\n";
        std::ofstream agents(w.root.path() + "/AGENTS.md");
        agents << "Connections come from `acquire()` in `pool.py`; see `pool.py#release`.\n"
               << "They are closed by `pool.py#close`.\n";
    }
    auto call = w.call();
    std::set<std::string> ran;
    auto run = [&](const char* name, json params) {
        const auto* op = ops::byName(name);
        REQUIRE(op);
        INFO(name << " " << params.dump());
        REQUIRE(disagreement(params, op->input(), "arguments") == "");
        json out = op->run(call, params).value;
        INFO(out.dump().substr(0, 2000));
        CHECK(disagreement(out, op->output(), name) == "");
        // Its text reads only members its answers declare: a renamed member
        // would otherwise print blank.
        ops::render::RenderLog log;
        CHECK_FALSE(op->render(out).empty());
        std::set<std::string> declared;
        namesIn(op->output(), declared);
        for (auto& read : log.names()) {
            INFO(name << "'s text reads " << read);
            CHECK(declared.count(read));
        }
        ran.insert(name);
        return out;
    };
    std::string id = run(
        "remember", {{"text", "acquire() waits at most timeout seconds for a connection"},
                     {"label", "acquire-timeout"},
                     {"kind", "gotcha"},
                     {"anchors", {{{"path", "pool.py"}, {"symbol", "acquire"}}}}})["claim"]["id"];
    run("recall", {{"query", "connection timeout"}});
    run("recall", {{"query", "nothing matches this zebra"}});
    run("get", {{"id", id}});
    run("learn", {{"id", id}, {"verdict", "correct"}});
    run("reverify", {{"id", id}, {"note", "checked"}});
    json stamped = run("reverify_file", {{"file", "AGENTS.md"}});
    CHECK(stamped["stamped"] == 1);
    CHECK(stamped["refused"].size() == 2); // pool.py has neither release nor close
    run("anchors", {{"path", "pool.py"}});
    run("promote", {{"id", id}, {"reason", "holds for every pool"}});
    {
        // A team store to propose to: a bare repository as its remote.
        TempDir remote;
        auto init = runProcess({"git", "init", "-q", "--bare", remote.path() + "/team.git"});
        REQUIRE((init && init->exitCode == 0));
        addTeam(w.home.path(), "platform", remote.path() + "/team.git");
        json proposed =
            run("promote", {{"id", id}, {"to", "team:platform"}, {"reason", "every service"}});
        CHECK(proposed["branch"].get<std::string>().rfind("engram/promote-", 0) == 0);
    }
    json packet = run("delegate", {{"task", "change the connection timeout"}});
    run("verify_packet", {{"packet", packet["packet"]}});
    json contributed =
        run("contribute", {{"items", {{{"text", "connect() retries twice before it raises"}}}}});
    run("review", {{"contribution_id", contributed["items"][0]["contribution_id"]},
                   {"decision", "accept"},
                   {"reason", "matches the code"}});
    run("status", {{"confusion", true}});
    json checked = run("check", {{"path", "AGENTS.md"}});
    REQUIRE(checked["findings"].size() == 2);
    CHECK(checked["findings"][0]["code"] == "engram.dangling");
    CHECK(checked["summary"]["engram.dangling"] == 2);
    // The whole workspace, cut to one finding: the rest are counted, not lost.
    json all = run("check", json::object());
    json one = run("check", {{"max_findings", 1}});
    REQUIRE(all["findings"].size() >= 2);
    CHECK(one["findings"].size() == 1);
    CHECK(one["unlisted"] == all["findings"].size() - 1);
    CHECK(one["summary"] == all["summary"]);
    json filed = run("report", {{"class", "field_report"}, {"what", "a report about engram"}});
    {
        // A claim a merge left diverged: its file holds a second version.
        std::string file = w.root.path() + "/.engram/claims/" + id + ".md";
        Claim c = parseClaim(*readFile(file), id);
        Claim other = c;
        other.version = c.version + 1;
        other.text = "acquire() waits at most twice the timeout";
        c.diverged = {other};
        atomicWrite(file, serializeClaim(c));
        w.engine.refresh();
        json resolved = run("resolve", {{"id", id}});
        CHECK_FALSE(resolved["claim"].contains("diverged"));
    }
    run("inbox", json::object());
    // Rebuilt from the files: the project's claims are all there again.
    json rebuilt = run("reindex", json::object());
    REQUIRE(rebuilt["reports"].size() == 2); // the project's store and the medulla's
    CHECK(rebuilt["reports"][0]["added"].get<int>() >= 2);
    CHECK(rebuilt["reports"][0]["rebuilt"] == true);
    CHECK(w.engine.get(id).claim.id == id);
    run("retract", {{"id", id}, {"reason", "the pool was replaced"}});
    // Every operation was tried: a new one must be added here too.
    CHECK(ran.size() == ops::operations().size());
}

TEST_CASE("a report's project is named as the wire names it when refused") {
    Workspace w;
    auto call = w.call();
    try {
        ops::byName("report")->run(
            call, {{"class", "field_report"}, {"what", "x"}, {"project", "relative/dir"}});
        FAIL("accepted a relative project");
    } catch (const EngramError& e) {
        CHECK(e.kind == ErrorKind::InvalidParams);
        CHECK(std::string(e.what()).rfind("project:", 0) == 0);
    }
}

TEST_CASE("check's text counts findings and live claims in the singular when there is one") {
    json one = {{"findings", json::array({{{"path", "src/a.py"},
                                           {"range", {{"start", {{"line", 4}, {"character", 0}}}}},
                                           {"severity", "warning"},
                                           {"code", "engram.drifted"},
                                           {"message", "drifted: f in src/a.py changed"}}})},
                {"summary", {{"engram.drifted", 1}}},
                {"live_claims", 1},
                {"unlisted", 0}};
    std::string text = ops::render::check(one);
    INFO(text);
    CHECK(text.rfind("1 finding (1 engram.drifted) over 1 live claim\n", 0) == 0);
    one["live_claims"] = 2;
    one["unlisted"] = 1;
    CHECK(ops::render::check(one).rfind("2 findings (1 engram.drifted) over 2 live claims\n", 0) ==
          0);
}

} // namespace unit_OperationsTest
