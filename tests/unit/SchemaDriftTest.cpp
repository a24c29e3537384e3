// Each operation's input schema against what its parser looks at.
//
// A strict client validates its arguments against the schema before
// sending them, and a model writes them from it: a member the parser reads
// but the schema lacks cannot be sent by such a client, and a member the
// schema declares but the parser ignores is silently dropped. The parsers
// note every member they look up while a protocol::ReadLog is in scope;
// this test runs each operation's parser on arguments generated from its
// schema (the engine is never reached: binding ends the run) and compares.
#include "ops/Operation.h"
#include "protocol/Convert.h"
#include "util/Error.h"

#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_SchemaDriftTest {

using namespace engram;
using json = nlohmann::json;

namespace {

// Thrown by Call::bind: the parser finished without refusing.
struct Bound {};

// One value of each id shape the schemas constrain by pattern. A pattern
// missing here fails the test, so a new one gets a sample with it.
const std::map<std::string, std::string> kPatternSamples = {
    {"^[a-z0-9_-]{3,64}$", "c-0123456789ab"},
    {"^r-[0-9a-f]{16}$", "r-0123456789abcdef"},
    {"^[0-9a-f]{64}$", std::string(64, 'a')},
    {"^k-[a-z0-9_-]{1,62}$", "k-0123456789ab"},
    {"^[kc]-[a-z0-9_-]{1,62}$", "k-0123456789ab"},
    {"^(project|medulla|all|team:[a-z0-9][a-z0-9_-]{0,39})$", "team:platform"},
    {"^(medulla|team:[a-z0-9][a-z0-9_-]{0,39})$", "medulla"},
};

std::string firstType(const json& schema) {
    if (!schema.contains("type")) return "";
    const json& t = schema["type"];
    if (t.is_string()) return t.get<std::string>();
    for (auto& each : t)
        if (each != "null") return each.get<std::string>();
    return "null";
}

// The member groups of an object schema's `oneOf` (an anchor's path or
// uri; a range's start_line, or its start and end): a value carries the
// members of one group.
std::vector<std::set<std::string>> alternatives(const json& schema) {
    std::vector<std::set<std::string>> out;
    if (schema.contains("oneOf"))
        for (auto& alt : schema["oneOf"]) {
            std::set<std::string> group;
            for (auto& r : alt.value("required", json::array()))
                group.insert(r.get<std::string>());
            out.push_back(std::move(group));
        }
    return out;
}

// A schema path: members by name, array items as "[]" ("anchors[].path").
std::string join(const std::string& path, const std::string& member) {
    return path.empty() ? member : path + "." + member;
}

// Every path the schema declares; `open` collects objects without declared
// members (anything under them is the schema's to allow).
void declaredPaths(const json& schema, const std::string& path, std::set<std::string>& out,
                   std::set<std::string>& open) {
    if (schema.contains("anyOf")) { // an anchor as text or as an object
        for (auto& branch : schema["anyOf"])
            declaredPaths(branch, path, out, open);
        return;
    }
    std::string type = firstType(schema);
    if (type == "object") {
        if (!schema.contains("properties")) {
            open.insert(path);
            return;
        }
        for (auto& [name, sub] : schema["properties"].items()) {
            out.insert(join(path, name));
            declaredPaths(sub, join(path, name), out, open);
        }
    } else if (type == "array" && schema.contains("items")) {
        declaredPaths(schema["items"], path + "[]", out, open);
    }
}

// A valid value for `schema` at `path`. With `only` empty, an object gets
// every member (the first of alternatives); otherwise only its required
// members and those on the way to `only`.
json sample(const json& schema, const std::string& path, const std::string& only) {
    // Of alternatives, the object one (its members are what the parser
    // reads); the text form is a value, not members.
    if (schema.contains("anyOf")) {
        for (auto& branch : schema["anyOf"])
            if (firstType(branch) == "object") return sample(branch, path, only);
        return sample(schema["anyOf"][0], path, only);
    }
    if (schema.contains("enum")) return schema["enum"][0];
    if (schema.contains("pattern")) {
        auto it = kPatternSamples.find(schema["pattern"].get<std::string>());
        if (it == kPatternSamples.end()) {
            FAIL_CHECK("no sample for the pattern of " << path << ": " << schema["pattern"]);
            return "x";
        }
        return it->second;
    }
    std::string type = firstType(schema);
    if (type == "string") {
        if (path.size() >= 3 && path.compare(path.size() - 3, 3, "uri") == 0)
            return "file:///tmp/engram-schema-test/a.py";
        return "a.py";
    }
    if (type == "integer") return schema.value("minimum", 1);
    if (type == "number") return 0.5;
    if (type == "boolean") return true;
    if (type == "array") {
        json items = json::array();
        if (schema.contains("items")) items.push_back(sample(schema["items"], path + "[]", only));
        return items;
    }
    if (type != "object") return nullptr;
    json out = json::object();
    if (!schema.contains("properties")) return out;
    std::set<std::string> required;
    for (auto& r : schema.value("required", json::array()))
        required.insert(r.get<std::string>());
    auto onTheWay = [&](const std::string& p) {
        return !only.empty() &&
               (only == p || only.rfind(p + ".", 0) == 0 || only.rfind(p + "[]", 0) == 0);
    };
    // The group of alternatives the value carries: the one `only` goes
    // through, else the first.
    auto groups = alternatives(schema);
    std::set<std::string> chosen, grouped;
    for (auto& g : groups) {
        grouped.insert(g.begin(), g.end());
        for (auto& name : g)
            if (onTheWay(join(path, name))) chosen = g;
    }
    if (chosen.empty() && !groups.empty()) chosen = groups.front();
    for (auto& [name, sub] : schema["properties"].items()) {
        std::string p = join(path, name);
        bool wanted = grouped.count(name) ? chosen.count(name) > 0
                                          : only.empty() || onTheWay(p) || required.count(name);
        if (wanted) out[name] = sample(sub, p, onTheWay(p) ? only : std::string());
    }
    return out;
}

// "anchors[2].position.line" -> "anchors[].position.line"
std::string normalise(const std::string& read) {
    static const std::regex index(R"(\[[0-9]+\])");
    return std::regex_replace(read, index, "[]");
}

struct Run {
    std::set<std::string> reads;
    bool bound = false;
    std::string refusal; // the InvalidParams message, when refused
};

Run runParser(const ops::Operation& op, const json& params) {
    ops::Call call;
    call.bind = []() -> Engine& { throw Bound{}; };
    call.defaultAgent = "test:schema";
    Run r;
    protocol::ReadLog log;
    try {
        op.run(call, params);
    } catch (const Bound&) {
        r.bound = true;
    } catch (const EngramError& e) {
        if (e.kind != ErrorKind::InvalidParams) throw;
        r.refusal = e.what();
    }
    for (auto& p : log.paths())
        r.reads.insert(normalise(p));
    return r;
}

bool under(const std::string& path, const std::set<std::string>& open) {
    for (auto& o : open)
        if (path == o || path.rfind(o + ".", 0) == 0 || path.rfind(o + "[]", 0) == 0) return true;
    return false;
}

} // namespace

TEST_CASE("each operation's parser reads what its input schema declares, and nothing else",
          "[schema]") {
    for (auto& op : ops::operations()) {
        INFO("operation " << op.name);
        json schema = op.input();
        std::set<std::string> declared, open;
        declaredPaths(schema, "", declared, open);

        // Every member at once, then each declared path on its own with what
        // its objects require: a parser that refuses a combination (path
        // and uri) still shows what it reads.
        std::set<std::string> reads;
        json every = sample(schema, "", "");
        Run full = runParser(op, every);
        // Two members the parser takes one of (anchors: path or uri), said
        // in its refusal since a tool's schema cannot say it at the top.
        std::smatch m;
        static const std::regex either(
            R"(^([a-z_]+): give either ([a-z_]+) or ([a-z_]+), not both)");
        if (!full.bound && std::regex_search(full.refusal, m, either)) {
            CHECK(declared.count(m[2].str()));
            CHECK(declared.count(m[3].str()));
            reads.insert(full.reads.begin(), full.reads.end());
            every.erase(m[3].str());
            full = runParser(op, every);
        }
        INFO("every member: " << (full.bound ? "accepted" : "refused: " + full.refusal));
        CHECK(full.bound);
        reads.insert(full.reads.begin(), full.reads.end());
        for (auto& path : declared) {
            json args = sample(schema, "", path);
            Run one = runParser(op, args);
            // One of two top-level members the parser wants (packet_id or
            // packet), which a tool's schema cannot require at the top: the
            // first added, as its refusal names it.
            static const std::regex oneOfTwo(R"(^([a-z_]+): is required \(or ([a-z_]+)\))");
            if (std::smatch m; !one.bound && std::regex_search(one.refusal, m, oneOfTwo) &&
                               schema["properties"].contains(m[1].str())) {
                args[m[1].str()] = sample(schema["properties"][m[1].str()], m[1].str(), "");
                one = runParser(op, args);
            }
            INFO("only " << path << ": " << (one.bound ? "accepted" : "refused: " + one.refusal));
            CHECK(one.bound);
            reads.insert(one.reads.begin(), one.reads.end());
        }

        for (auto& read : reads) {
            INFO("the parser reads " << read);
            // `root` is every tool's, added by the surfaces (ops::Operation).
            CHECK((declared.count(read) || under(read, open) || read == "root"));
        }
        for (auto& path : declared) {
            INFO("the schema declares " << path);
            CHECK(reads.count(path));
        }
    }
}

TEST_CASE("a member the input schema requires is one the parser refuses to go without",
          "[schema]") {
    for (auto& op : ops::operations()) {
        INFO("operation " << op.name);
        json schema = op.input();
        json full = sample(schema, "", "");
        for (auto& r : schema.value("required", json::array())) {
            std::string name = r.get<std::string>();
            json without = full;
            without.erase(name);
            Run run = runParser(op, without);
            INFO("without " << name);
            CHECK_FALSE(run.bound);
            CHECK(run.refusal.rfind(name + ":", 0) == 0);
        }
        // And only those: what the schema requires is enough. A parser that
        // takes one of two members says which ("is required (or uri)"), and
        // the schema declares both.
        json minimal = json::object();
        for (auto& r : schema.value("required", json::array()))
            minimal[r.get<std::string>()] = full[r.get<std::string>()];
        Run run = runParser(op, minimal);
        if (!run.bound) {
            std::smatch m;
            static const std::regex either(R"(^([a-z_]+): is required \(or ([a-z_]+)\))");
            INFO("with only the required members: refused: " << run.refusal);
            REQUIRE(std::regex_search(run.refusal, m, either));
            const json& props = schema["properties"];
            CHECK(props.contains(m[1].str()));
            CHECK(props.contains(m[2].str()));
            for (std::string alt : {m[1].str(), m[2].str()}) {
                json with = minimal;
                with[alt] = full.contains(alt) ? full[alt] : sample(props[alt], alt, "");
                INFO("with " << alt);
                CHECK(runParser(op, with).bound);
            }
        }
    }
}

} // namespace unit_SchemaDriftTest
