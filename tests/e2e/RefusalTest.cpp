// The refusals that protect the store, tried in every field they guard, over
// the real binary (invariants 6 and 10; "Anchors never point outside the
// root").
//
// The fields come from the operations' own input schemas as `engram mcp`
// lists them (tools/list), so a new operation or a new field is covered
// without anyone remembering to add it:
// - the secrets table puts a token in each string field of each write
//   (nested ones too) while every other field holds a valid value: the call
//   is refused, says why without echoing the token, and leaves every file of
//   the project store and of $ENGRAM_HOME as it was;
// - the paths table puts a path outside the root (`..`, absolute, through a
//   symbolic link, a percent-encoded `..` in a file:// URI) in each path
//   field of each operation: OutsideRoot, nothing written;
// - the MCP resource engram://file/{+path} refuses the same paths.
// Each table runs over `engram mcp` and `engram serve` (one server each,
// reused across rows) and, for a representative set, over the command line.
// A write operation without valid arguments here fails the test, and the
// same valid arguments must then write, so each refusal is the field's.
#include "Client.h"
#include "store/ClaimFile.h"
#include "support/Names.h"
#include "util/Fs.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <random>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_RefusalTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kAgent = "test:refusal";

// A GitHub token of the right shape, made when the test runs (no secret
// sits in the source), the same on every run.
std::string makeSecret() {
    static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::mt19937 rng(0x5EC7E7);
    std::string s = "ghp_";
    for (int i = 0; i < 36; ++i)
        s += alphabet[rng() % 62];
    return s;
}
const std::string kSecret = makeSecret();
// What must never come back or reach a file: the token's random part.
const std::string kSecretBody = kSecret.substr(4);

// ---- the workspace ----------------------------------------------------------

// root/ with code and an instruction file, outside/ beside it (what a path
// that escapes would reach), root/link -> ../outside, and the home.
struct Workspace {
    TempDir base;
    std::string root = base / "root", outside = base / "outside", home = base / "home";
    std::map<std::string, std::string> claim; // operation -> the claim its rows use
    std::string contribution;

    Workspace() {
        base.write("root/src/pool.py", "def acquire(timeout):\n    return connect(timeout)\n");
        base.write("root/AGENTS.md", "Connections come from `acquire()` in `src/pool.py`.\n");
        base.write("outside/x.py", "def outside_marker():\n    return 1\n");
        fs::create_directories(home);
        fs::create_symlink("../outside", root + "/link");
        for (const char* op : {"reverify", "retract", "learn", "promote", "resolve"})
            claim[op] = cli({"remember", std::string("the pool hands out connections, for ") + op,
                             "--label", std::string("pool-") + op, "--anchor",
                             "src/pool.py#acquire"})["claim"]["id"];
        // What resolve settles: a claim a merge left diverged (its file holds
        // a second version, as engram's merge driver writes it).
        std::string file = root + "/.engram/claims/" + claim["resolve"] + ".md";
        engram::Claim c = engram::parseClaim(*engram::readFile(file), claim["resolve"]);
        engram::Claim other = c;
        other.version = c.version + 1;
        other.text = "the pool hands out pooled connections, for resolve";
        c.diverged = {other};
        engram::atomicWrite(file, engram::serializeClaim(c));
        json contributed =
            cli({"contribute", "-"}, R"({"items": [{"text": "idle connections close soon"}]})");
        contribution = contributed["items"][0]["contribution_id"];
    }

    CliResult run(std::vector<std::string> args, const std::string& input = "") const {
        args.insert(args.begin(), {"--root", root, "--home", home, "--json"});
        return runCli(args, {"ENGRAM_AGENT=" + kAgent}, input);
    }
    json cli(std::vector<std::string> args, const std::string& input = "") const {
        auto r = run(args, input);
        INFO("engram " << args[0] << ": " << describe(r));
        REQUIRE(r.exitCode == 0);
        return r.parsed();
    }

    // Valid arguments for an operation: each row changes one field of these.
    // Null for an operation the tables do not know, which fails them.
    json validArgs(const std::string& op) const {
        auto id = [&] { return claim.at(op); };
        if (op == "remember") return {{"text", "the pool reuses connections"}, {"agent", kAgent}};
        if (op == "reverify") return {{"id", id()}, {"note", "read acquire"}, {"agent", kAgent}};
        if (op == "reverify_file") return {{"file", "AGENTS.md"}, {"agent", kAgent}};
        if (op == "retract") return {{"id", id()}, {"reason", "replaced"}, {"agent", kAgent}};
        if (op == "learn") return {{"id", id()}, {"verdict", "correct"}, {"agent", kAgent}};
        if (op == "resolve") return {{"id", id()}, {"agent", kAgent}};
        if (op == "promote")
            return {{"id", id()}, {"reason", "holds in every project"}, {"agent", kAgent}};
        if (op == "contribute")
            return {{"items", {{{"text", "acquire blocks until a connection is free"}}}},
                    {"agent", kAgent}};
        if (op == "review")
            return {{"contribution_id", contribution},
                    {"decision", "accept"},
                    {"reason", "matches the code"},
                    {"agent", kAgent}};
        if (op == "report")
            return {{"class", "field_report"}, {"what", "doctor is slow"}, {"agent", kAgent}};
        // Reads that take paths (the paths table).
        if (op == "recall") return {{"query", "pool connections"}};
        if (op == "anchors") return {{"path", "src/pool.py"}};
        if (op == "check") return json::object();
        if (op == "delegate") return {{"task", "change the pool"}, {"agent", kAgent}};
        return nullptr;
    }
};

using Files = std::map<std::string, std::string>;

// Every file engram keeps in the project store and $ENGRAM_HOME (claims,
// history, inbox, audit log, spool, registry, stamps, the medulla), with
// its bytes. The derived index, lock files and the servers' logs are left
// out: a read may checkpoint the index.
Files snapshot(const Workspace& w) {
    Files out;
    for (const std::string& dir : {w.root + "/.engram", w.home}) {
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(dir, ec);
             it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (!it->is_regular_file()) continue;
            std::string name = it->path().filename().string();
            if (name.starts_with("index.sqlite") || name == "lock" || name.ends_with(".lock") ||
                name.ends_with(".stderr.log"))
                continue;
            out[it->path().string()] = slurp(it->path().string()).value_or("<unreadable>");
        }
    }
    return out;
}

std::string changes(const Files& before, const Files& after) {
    std::string out;
    for (auto& [path, bytes] : after)
        if (!before.count(path) || before.at(path) != bytes)
            out += (before.count(path) ? "changed " : "new ") + path + "\n";
    for (auto& [path, bytes] : before)
        if (!after.count(path)) out += "removed " + path + "\n";
    return out;
}

// Whether any file under the workspace, the index and the logs included,
// holds the token.
std::string filesHoldingSecret(const Workspace& w) {
    std::string out;
    for (auto& e : fs::recursive_directory_iterator(w.base.path()))
        if (e.is_regular_file() && !e.is_symlink())
            if (auto bytes = slurp(e.path().string()); bytes && contains(*bytes, kSecretBody))
                out += e.path().string() + "\n";
    return out;
}

// ---- fields from the schemas --------------------------------------------------

bool isType(const json& schema, const std::string& t) {
    const json type = schema.value("type", json());
    if (type.is_string()) return type == t;
    return type.is_array() && std::find(type.begin(), type.end(), t) != type.end();
}

// One string of an operation's arguments: its place ("[]" for an array's
// items), and its own schema.
struct Field {
    std::vector<std::string> steps;
    json schema;

    // A step "|k" takes the k-th of the schema's alternatives (anyOf): an
    // anchor as text or as an object.
    static bool branch(const std::string& step) { return step.starts_with("|"); }
    std::string name() const {
        for (auto it = steps.rbegin(); it != steps.rend(); ++it)
            if (*it != "[]" && !branch(*it)) return *it;
        return "";
    }
    // anchors[].path as listed; anchors[0].path as errors name it.
    std::string shown(const char* index = "[]") const {
        std::string out;
        for (auto& s : steps)
            if (!branch(s)) out += s == "[]" ? index : (out.empty() ? "" : ".") + s;
        return out;
    }
    std::string named() const { return shown("[0]"); }
};

void collect(const json& schema, std::vector<std::string> steps, std::vector<Field>& out) {
    if (schema.contains("anyOf")) {
        for (size_t k = 0; k < schema["anyOf"].size(); ++k) {
            auto next = steps;
            next.push_back("|" + std::to_string(k));
            collect(schema["anyOf"][k], next, out);
        }
    } else if (isType(schema, "string")) {
        out.push_back({steps, schema});
    } else if (isType(schema, "array") && schema.contains("items")) {
        steps.push_back("[]");
        collect(schema["items"], steps, out);
    } else if (isType(schema, "object")) {
        const json properties = schema.value("properties", json::object());
        for (auto& [key, sub] : properties.items()) {
            // Every tool takes `root`: which workspace the call is about, not
            // a path inside one (a root the session does not serve is
            // refused NotBound; MultiRootTest).
            if (steps.empty() && key == "root") continue;
            auto next = steps;
            next.push_back(key);
            collect(sub, next, out);
        }
    }
}

std::vector<Field> stringFields(const json& inputSchema) {
    std::vector<Field> out;
    collect(inputSchema, {}, out);
    return out;
}

// Fields that name a file: confined to the root, not scanned as text (an
// anchor written as text, path#symbol, is one).
bool isPathField(const Field& f) {
    static const std::set<std::string> names = {"path", "paths", "uri", "file", "anchors"};
    return names.count(f.name()) > 0;
}

// What guards a field against a value that holds a token.
enum class Guard {
    Scan,  // text the secret scan reads: SecretDetected
    Shape, // an enum or a pattern (ids): refused InvalidParams for not having it
    Names, // a path or a symbol, which must name what exists in the workspace
};

Guard guardOf(const Field& f) {
    if (f.schema.contains("enum") || f.schema.contains("pattern")) return Guard::Shape;
    if (isPathField(f) || f.name() == "symbol") return Guard::Names;
    return Guard::Scan;
}

std::set<std::string> kindsFor(Guard g) {
    switch (g) {
    case Guard::Scan:
        return {"SecretDetected"};
    case Guard::Shape:
        return {"InvalidParams"};
    case Guard::Names:
        return {"AnchorNotFound", "InvalidParams", "OutsideRoot"};
    }
    return {};
}

json validFor(const std::string& name, const json& schema);

// An object with its required members (and, of alternatives, the first
// when none is met: an anchor's path or uri) given valid values.
json completed(json obj, const json& schema) {
    const json props = schema.value("properties", json::object());
    auto fill = [&](const json& required) {
        for (auto& r : required)
            if (!obj.contains(r))
                obj[r.get<std::string>()] = validFor(r, props.value(r.get<std::string>(), json()));
    };
    fill(schema.value("required", json::array()));
    if (schema.contains("oneOf")) {
        bool met = false;
        for (auto& alt : schema["oneOf"]) {
            bool all = true;
            for (auto& r : alt.value("required", json::array()))
                all = all && obj.contains(r);
            met = met || all;
        }
        if (!met) fill(schema["oneOf"][0].value("required", json::array()));
    }
    return obj;
}

json validFor(const std::string& name, const json& schema) {
    if (schema.contains("enum")) return schema["enum"][0];
    if (isType(schema, "object")) return completed(json::object(), schema);
    if (isType(schema, "array")) return json::array();
    if (name == "path") return "src/pool.py";
    if (name == "text") return "connections are reused";
    return "checked by hand";
}

// args with `value` at the field's place, the objects and arrays on the way
// created with valid required members.
void place(json& at, const json& schema, const Field& f, size_t i, const json& value) {
    if (i == f.steps.size()) {
        at = value;
        return;
    }
    if (f.steps[i] == "[]") {
        if (!at.is_array() || at.empty()) at = json::array({nullptr});
        place(at[0], schema["items"], f, i + 1, value);
        return;
    }
    if (Field::branch(f.steps[i])) {
        place(at, schema["anyOf"][std::stoul(f.steps[i].substr(1))], f, i + 1, value);
        return;
    }
    if (!at.is_object()) at = json::object();
    place(at[f.steps[i]], schema["properties"][f.steps[i]], f, i + 1, value);
    at = completed(std::move(at), schema);
}

json withValue(json args, const json& inputSchema, const Field& f, const json& value) {
    // A uri is given instead of a path (anchors refuses both at once).
    if (f.steps.size() == 1 && f.steps[0] == "uri") args.erase("path");
    place(args, inputSchema, f, 0, value);
    return args;
}

// ---- the surfaces -------------------------------------------------------------

// One answer, whichever surface gave it.
struct Answer {
    bool refused = false;
    std::string kind;    // data.kind, or the kind a tool error starts with
    std::string message; // what the caller reads about it
    std::string whole;   // everything the caller got back
};

// A contribution's secret is refused per item (the call answers, the item
// is stored nowhere): the same refusal, said in the result.
void readItems(const json& result, Answer& a) {
    if (!result.is_object() || !result.contains("items") || !result["items"].is_array()) return;
    for (auto& item : result["items"])
        if (item.value("status", "") == "refused" && item.contains("refused")) {
            a.refused = true;
            a.kind = "SecretDetected";
            a.message = item["refused"].value("reason", "");
        }
}

Answer fromReply(const json& reply) {
    Answer a;
    a.whole = reply.dump();
    if (reply.contains("error")) {
        a.refused = true;
        a.kind = reply["error"]["data"].value("kind", "");
        a.message = reply["error"].value("message", "");
        return a;
    }
    const json& result = reply["result"];
    if (result.value("isError", false)) { // a tool's error: "Kind: message"
        std::string text = result["content"][0].value("text", "");
        a.refused = true;
        a.kind = text.substr(0, text.find(':'));
        a.message = text;
        return a;
    }
    readItems(result.contains("structuredContent") ? result["structuredContent"] : result, a);
    return a;
}

Answer fromCli(const CliResult& r) {
    Answer a;
    a.whole = r.out + r.err;
    json j = json::parse(r.out, nullptr, false);
    if (r.exitCode != 0 && j.is_object() && j.contains("data")) {
        a.refused = true;
        a.kind = j["data"].value("kind", "");
        a.message = j.value("message", "");
    } else if (j.is_object()) {
        readItems(j, a);
        a.refused = a.refused && r.exitCode != 0;
    }
    return a;
}

// A server of one surface, bound to the workspace, asked one operation at
// a time.
struct Surface {
    const char* name;
    Server server;
    Surface(const Workspace& w, bool mcp)
        : name(mcp ? "mcp" : "lsp")
        , server(ServerOptions{w.home,
                               mcp ? std::vector<std::string>{"--root", w.root}
                                   : std::vector<std::string>{},
                               {},
                               "",
                               mcp}) {
        if (mcp)
            server.initializeMcp();
        else
            server.initialize(w.root);
    }
    bool mcp() const { return std::string(name) == "mcp"; }
    Answer call(const std::string& op, const json& args) {
        if (mcp())
            return fromReply(
                server.request("tools/call", {{"name", op}, {"arguments", args}}, 20s));
        return fromReply(server.request("engram/" + engram::test::camel(op), args, 20s));
    }
};

// Every tool engram mcp lists, with its annotations and its full input
// schema (tools/list shows a shortened one; engram://schema/{tool} has
// every form the server reads, an anchor's object form beside its text).
json toolList(const Workspace& w) {
    Server mcp(ServerOptions{w.home, {"--root", w.root}, {}, "", true});
    mcp.initializeMcp();
    json tools = mcp.call("tools/list")["tools"];
    REQUIRE(tools.size() > 10);
    for (auto& tool : tools) {
        json read = mcp.call("resources/read",
                             {{"uri", "engram://schema/" + tool["name"].get<std::string>()}});
        tool["inputSchema"] =
            json::parse(read["contents"][0]["text"].get<std::string>())["inputSchema"];
    }
    return tools;
}

// readOnlyHint is left out when false (its default).
bool writes(const json& tool) {
    return !tool["annotations"].value("readOnlyHint", false);
}

// ---- the checks ---------------------------------------------------------------

// A refusal of one of these kinds, naming `field` (when given), not echoing
// the token and leaving every file as it was.
void expectRefused(const Answer& a, const std::set<std::string>& kinds, const std::string& field,
                   const Files& before, const Files& after) {
    INFO("answer: " << a.whole.substr(0, 1500));
    CHECK(a.refused);
    CHECK(kinds.count(a.kind) == 1);
    if (!field.empty()) CHECK(contains(a.message, field));
    CHECK_FALSE(contains(a.whole, kSecretBody));
    INFO("written:\n" << changes(before, after));
    CHECK(before == after);
}

struct Row {
    std::string op;
    Field field;
    json args;
    Guard guard;
};

// The secrets table: each string field of each write, the token bare and
// inside a path-like value.
std::vector<Row> secretRows(const Workspace& w, const json& tools) {
    std::vector<Row> rows;
    for (auto& tool : tools) {
        if (!writes(tool)) continue;
        std::string op = tool["name"];
        json valid = w.validArgs(op);
        INFO("no valid arguments for the write operation " << op << ": add them to validArgs");
        REQUIRE(valid.is_object());
        for (auto& f : stringFields(tool["inputSchema"]))
            for (const std::string& v : {kSecret, "/srv/" + kSecret})
                rows.push_back({op, f, withValue(valid, tool["inputSchema"], f, v), guardOf(f)});
    }
    return rows;
}

// The paths table: each path field of each operation, with each way out.
std::vector<Row> pathRows(const Workspace& w, const json& tools) {
    std::vector<Row> rows;
    const std::string rootUri = fileUri(w.root);
    for (auto& tool : tools) {
        std::string op = tool["name"];
        for (auto& f : stringFields(tool["inputSchema"])) {
            if (!isPathField(f)) continue;
            json valid = w.validArgs(op);
            INFO("no valid arguments for " << op << ", which takes " << f.shown());
            REQUIRE(valid.is_object());
            std::vector<std::string> ways =
                f.name() == "uri"
                    ? std::vector<std::string>{rootUri + "/../outside/x.py",
                                               fileUri(w.outside + "/x.py"), rootUri + "/link/x.py",
                                               rootUri + "/%2e%2e/outside/x.py",
                                               rootUri + "/src/%2E%2E%2F%2E%2E%2Foutside%2Fx.py"}
                    : std::vector<std::string>{"../outside/x.py", w.outside + "/x.py", "link/x.py",
                                               "src/../../outside/x.py"};
            for (auto& way : ways)
                rows.push_back(
                    {op, f, withValue(valid, tool["inputSchema"], f, way), Guard::Names});
        }
    }
    return rows;
}

// The same valid arguments, without the token, are accepted and write:
// each refusal above was the field's.
void expectValidWrites(const Workspace& w, Surface& s, const json& tools) {
    for (auto& tool : tools) {
        if (!writes(tool)) continue;
        std::string op = tool["name"];
        INFO(s.name << " " << op << " with valid arguments");
        Files before = snapshot(w);
        Answer a = s.call(op, w.validArgs(op));
        INFO(a.whole.substr(0, 1500));
        CHECK_FALSE(a.refused);
        CHECK(before != snapshot(w));
    }
}

void runSecretsTable(bool mcp) {
    Workspace w;
    json tools = toolList(w);
    auto rows = secretRows(w, tools);
    Surface s(w, mcp);
    std::set<std::string> tried;
    for (auto& row : rows) {
        INFO(s.name << " " << row.op << " " << row.field.shown() << " = "
                    << row.args.dump().substr(0, 300));
        Files before = snapshot(w);
        Answer a = s.call(row.op, row.args);
        // A shape or a name is refused for what it is: its message need
        // not be about the token (a path's names the file it looked for).
        std::string field = row.guard == Guard::Names ? "" : row.field.named();
        expectRefused(a, kindsFor(row.guard), field, before, snapshot(w));
        tried.insert(row.op + " " + row.field.shown());
    }
    // The fields the table must reach, whatever else the schemas hold: the
    // ones a deleted scan once went unnoticed in, and every agent.
    for (const char* f :
         {"remember text", "remember label", "remember evidence[].value", "remember force_reason",
          "remember agent", "retract reason", "learn note", "reverify note", "promote reason",
          "review reason", "report agent", "report project", "contribute items[].text",
          "contribute agent", "reverify_file agent"}) {
        INFO("the secrets table did not try " << f);
        CHECK(tried.count(f));
    }
    expectValidWrites(w, s, tools);
    INFO("files holding the token:\n" << filesHoldingSecret(w));
    CHECK(filesHoldingSecret(w).empty());
    CHECK(s.server.running());
}

void runPathsTable(bool mcp) {
    Workspace w;
    json tools = toolList(w);
    auto rows = pathRows(w, tools);
    Surface s(w, mcp);
    std::set<std::string> tried;
    for (auto& row : rows) {
        INFO(s.name << " " << row.op << " " << row.field.shown() << " = "
                    << row.args.dump().substr(0, 400));
        Files before = snapshot(w);
        Answer a = s.call(row.op, row.args);
        INFO(a.whole.substr(0, 1500));
        CHECK(a.refused);
        CHECK(a.kind == "OutsideRoot");
        CHECK(contains(a.message, "outside the workspace root"));
        CHECK_FALSE(contains(a.whole, "outside_marker"));
        CHECK(before == snapshot(w));
        tried.insert(row.op + " " + row.field.shown());
    }
    for (const char* f : {"recall path", "anchors path", "anchors uri", "check path",
                          "reverify_file file", "delegate paths[]", "remember anchors[].path",
                          "remember anchors[].uri", "contribute items[].anchors[].path"}) {
        INFO("the paths table did not try " << f);
        CHECK(tried.count(f));
    }
    // The same fields naming a file inside the root are accepted: each
    // refusal above was the path's.
    for (auto& tool : tools) {
        std::string op = tool["name"];
        json valid = w.validArgs(op);
        for (auto& f : stringFields(tool["inputSchema"])) {
            if (!isPathField(f)) continue;
            std::string inside = valid.value(f.steps[0], json()).is_string()
                                     ? valid[f.steps[0]].get<std::string>()
                                     : "src/pool.py";
            if (f.name() == "uri") inside = fileUri(w.root + "/" + inside);
            INFO(s.name << " " << op << " " << f.shown() << " = " << inside);
            Answer a = s.call(op, withValue(valid, tool["inputSchema"], f, inside));
            INFO(a.whole.substr(0, 1500));
            CHECK_FALSE(a.refused);
        }
    }
    CHECK(s.server.running());
}

} // namespace

TEST_CASE("a secret in any string field of any write is refused over MCP, nothing written",
          "[e2e][refusal]") {
    runSecretsTable(true);
}

TEST_CASE("a secret in any string field of any write is refused over the LSP, nothing written",
          "[e2e][refusal]") {
    runSecretsTable(false);
}

TEST_CASE("a path outside the root in any path field is refused OutsideRoot over MCP",
          "[e2e][refusal]") {
    runPathsTable(true);
}

TEST_CASE("a path outside the root in any path field is refused OutsideRoot over the LSP",
          "[e2e][refusal]") {
    runPathsTable(false);
}

TEST_CASE("a secret in the command line's write flags is refused, nothing written",
          "[e2e][refusal]") {
    Workspace w;
    const std::string S = kSecret, id = w.claim.at("learn");
    using Args = std::vector<std::string>;
    struct CliRow {
        Args args;
        std::string input = "";
        std::string kind = "SecretDetected";
    };
    std::vector<CliRow> rows = {
        {{"remember", S}},
        {{"remember", "pool note", "--label", S}},
        {{"remember", "pool note", "--tag", S}},
        {{"remember", "pool note", "--evidence", "note:" + S}},
        {{"remember", "pool note", "--force-reason", S}},
        {{"remember", "pool note", "--agent", S}},
        {{"retract", w.claim.at("retract"), "--reason", S}},
        {{"retract", w.claim.at("retract"), "--reason", "replaced", "--agent", S}},
        {{"retract", S, "--reason", "replaced"}, "", "InvalidParams"},
        {{"learn", id, "correct", "--note", S}},
        {{"learn", id, "wrong", "--agent", S}},
        {{"learn", id, S}, "", "InvalidParams"},
        {{"reverify", w.claim.at("reverify"), "--note", S}},
        {{"reverify", w.claim.at("reverify"), "--agent", S}},
        {{"reverify-file", "AGENTS.md", "--agent", S}},
        {{"reverify", "--file", "AGENTS.md", "--agent", S}},
        {{"promote", w.claim.at("promote"), "--reason", S}},
        {{"promote", w.claim.at("promote"), "--reason", "holds", "--agent", S}},
        {{"review", w.contribution, "accept", "--reason", S}},
        {{"review", w.contribution, "reject", "--reason", "no", "--agent", S}},
        {{"report", "--class", "field_report", "--what", S}},
        {{"report", "--class", "field_report", "--what", "slow", "--excerpt", S}},
        {{"report", "--class", "memory_misdelivery", "--kind", "leak", "--what", "a leak",
          "--expected", S}},
        {{"report", "--class", "field_report", "--what", "slow", "--agent", S}},
        {{"contribute", "-"}, R"({"items": [{"text": ")" + S + R"("}]})"},
        {{"contribute", "-"}, R"({"items": [{"text": "ok", "tags": [")" + S + R"("]}]})"},
        {{"contribute", "-", "--agent", S}, R"({"items": [{"text": "pool finding"}]})"},
    };
    for (auto& row : rows) {
        INFO("engram " << row.args[0] << " " << (row.args.size() > 1 ? row.args[1] : "") << " ... "
                       << row.input);
        Files before = snapshot(w);
        Answer a = fromCli(w.run(row.args, row.input));
        expectRefused(a, {row.kind}, "", before, snapshot(w));
    }
    INFO("files holding the token:\n" << filesHoldingSecret(w));
    CHECK(filesHoldingSecret(w).empty());
}

TEST_CASE("a path outside the root is refused OutsideRoot on the command line", "[e2e][refusal]") {
    Workspace w;
    using Args = std::vector<std::string>;
    for (const std::string& way :
         {std::string("../outside/x.py"), w.outside + "/x.py", std::string("link/x.py")}) {
        std::vector<std::pair<Args, std::string>> rows = {
            {{"recall", "pool", "--path", way}, ""},
            {{"anchors", way}, ""},
            {{"reverify-file", way}, ""},
            {{"reverify", "--file", way}, ""},
            {{"remember", "pool note", "--anchor", way}, ""},
            {{"remember", "pool note", "--anchor", way + "#outside_marker"}, ""},
            {{"remember", "pool note", "--anchor", way + ":1"}, ""},
            {{"delegate", "--task", "change the pool", "--path", way}, ""},
            {{"contribute", "-"},
             json{{"items", {{{"text", "pool finding"}, {"anchors", {{{"path", way}}}}}}}}.dump()},
        };
        for (auto& [args, input] : rows) {
            INFO("engram " << args[0] << " with " << way);
            Files before = snapshot(w);
            auto r = w.run(args, input);
            Answer a = fromCli(r);
            INFO(describe(r));
            CHECK(a.refused);
            CHECK(a.kind == "OutsideRoot");
            CHECK_FALSE(contains(a.whole, "outside_marker():"));
            CHECK(before == snapshot(w));
        }
    }
}

TEST_CASE("the MCP file resource refuses paths outside the root, plain or percent-encoded",
          "[e2e][refusal]") {
    Workspace w;
    Server mcp(ServerOptions{w.home, {"--root", w.root}, {}, "", true});
    mcp.initializeMcp();
    // The resource reads a file inside the root: the refusals are the paths'.
    json inside = mcp.call("resources/read", {{"uri", "engram://file/src/pool.py"}});
    CHECK(contains(inside.dump(), w.claim.at("learn")));

    for (const std::string& path :
         {std::string("../outside/x.py"), std::string("%2e%2e/outside/x.py"),
          std::string("%2E%2E%2Foutside%2Fx.py"), std::string("src/..%2f..%2foutside/x.py"),
          w.outside + "/x.py", std::string("%2F") + w.outside.substr(1) + "%2Fx.py",
          std::string("link/x.py"), std::string("link%2Fx.py")}) {
        std::string uri = "engram://file/" + path;
        INFO(uri);
        Files before = snapshot(w);
        json reply = mcp.request("resources/read", {{"uri", uri}});
        INFO(reply.dump());
        REQUIRE(reply.contains("error"));
        CHECK(contains(reply["error"]["message"], "outside the workspace root"));
        CHECK_FALSE(contains(reply.dump(), "outside_marker"));
        CHECK(before == snapshot(w));
    }
    CHECK(mcp.running());
}

} // namespace e2e_RefusalTest
