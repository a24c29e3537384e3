// The operation table: one declaration per operation, each with the few
// lines that connect it to the engine.
#include "ops/FindingsJson.h"
#include "ops/Operation.h"
#include "ops/op/Ops.h"

#include "ops/Render.h"
#include "ops/Schemas.h"
#include "ops/Terminal.h"
#include "protocol/Convert.h"
#include "protocol/Packet.h"
#include "util/Paths.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace engram::ops {

namespace {

using protocol::Params;
using protocol::toJson;

// ---- runs ------------------------------------------------------------------
// Each parses first (Convert names a bad field), then binds the engine.

// The result on the wire, and the terminal's text only when asked for.
template <class Result, class Text>
Outcome answer(const Call& call, const Result& r, Text text, bool refused = false) {
    Outcome out(toJson(r), refused);
    if (call.terminal) out.text = text(r);
    return out;
}

Outcome runRemember(Call& call, const json& params) {
    auto req = protocol::parseRemember(withDefaultAgent(call, params));
    return answer(call, call.engine().remember(req), terminal::remember);
}

Outcome runRecall(Call& call, const json& params) {
    auto req = protocol::parseRecall(params);
    Engine& engine = call.engine();
    req.root = call.requestedRoot; // as routed, in its canonical form
    return answer(call, engine.recall(req), terminal::recall);
}

// Delegation: the packet id is taken over the packet's JSON (protocol/Packet).
Outcome runDelegate(Call& call, const json& params) {
    auto req = protocol::parseDelegate(withDefaultAgent(call, params));
    Outcome out(protocol::delegate(call.engine(), req));
    if (call.terminal) out.text = terminal::packet(out.value["packet"]);
    return out;
}

Outcome runVerifyPacket(Call& call, const json& params) {
    auto req = protocol::parseVerifyPacket(params);
    auto r = protocol::verifyPacket(call.engine(), req);
    return answer(call, r, terminal::verifyPacket, !r.valid);
}

Outcome runContribute(Call& call, const json& params) {
    auto req = protocol::parseContribute(withDefaultAgent(call, params));
    auto r = call.engine().contribute(req);
    return answer(call, r, terminal::contribute, r.refused > 0);
}

// ---- command-line values with a syntax of their own -----------------------

std::optional<int> wholeNumber(std::string_view s) {
    int out = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return out;
}

// --anchor PATH#SYMBOL | PATH:LINE | PATH:START-END | PATH
json anchorFlag(const std::string& v) {
    if (auto hash = v.find('#'); hash != std::string::npos) {
        std::string path = v.substr(0, hash), symbol = v.substr(hash + 1);
        if (path.empty() || symbol.empty()) throw invalidField("anchors", "expected PATH#SYMBOL");
        return {{"path", path}, {"symbol", symbol}};
    }
    auto colon = v.rfind(':');
    if (colon != std::string::npos && colon + 1 < v.size()) {
        std::string spec = v.substr(colon + 1);
        if (spec.find_first_not_of("0123456789-") == std::string::npos) {
            std::string path = v.substr(0, colon);
            auto dash = spec.find('-');
            auto first = wholeNumber(spec.substr(0, dash));
            auto last = dash == std::string::npos ? first : wholeNumber(spec.substr(dash + 1));
            if (!first || !last || *first < 1 || *last < *first)
                throw invalidField("anchors", "'" + v +
                                                  "': expected PATH:LINE or PATH:START-END "
                                                  "with 1-based lines");
            if (dash == std::string::npos)
                return {{"path", path}, {"position", {{"line", *first - 1}}}};
            return {{"path", path}, {"range", {{"start_line", *first}, {"end_line", *last}}}};
        }
    }
    return {{"path", v}};
}

// --evidence TYPE:VALUE
json evidenceFlag(const std::string& v) {
    auto colon = v.find(':');
    if (colon == std::string::npos) throw invalidField("evidence", "expected TYPE:VALUE");
    return {{"type", v.substr(0, colon)}, {"value", v.substr(colon + 1)}};
}

std::string readInput(const std::string& param, const std::string& file) {
    if (file == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
    std::ifstream in(file, std::ios::binary);
    if (!in) throw invalidField(param, "cannot read '" + file + "'");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

json parseInput(const std::string& param, const std::string& text) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) throw invalidField(param, "the input is not valid JSON");
    return j;
}

// contribute [FILE|-]: an array of items, or {"items": [...], ...}.
void contributeInput(json& params, const std::vector<std::string>& words) {
    if (words.size() > 1) throw invalidField("items", "give one file (or '-')");
    json in = parseInput("items", readInput("items", words.empty() ? "-" : words[0]));
    if (in.is_array()) in = json{{"items", std::move(in)}};
    if (!in.is_object()) throw invalidField("items", "expected an array of items or an object");
    params = std::move(in);
}

// verify-packet FILE|-: a packet, or a whole delegate answer.
void verifyPacketInput(json& params, const std::vector<std::string>& words) {
    if (words.size() != 1)
        throw invalidField("packet", "give the packet file (or '-' for standard input)");
    params["packet"] = parseInput("packet", readInput("packet", words[0]));
}

// ---- the table -------------------------------------------------------------

const Flag kAgent{"--agent", "agent"};
const Positional kId{"id", "ID"};

std::vector<Operation> makeOperations() {
    using K = FlagKind;
    return {
        {"recall",
         "Recall memory",
         "Find what is known about a task, a file or a symbol before you work on it; each row "
         "says whether its anchored code changed since (anchor_state) and how old it is.",
         Effect::Read,
         schema::recallInput,
         schema::recallOutput,
         runRecall,
         render::recall,
         nullptr,
         true,
         {"  recall [QUERY...]              find claims [--tier project|medulla|all] [--path P] "
          "[--kind K]...\n"
          "      [--include frontier|retracted|superseded]... [--limit N] [--max-chars N]\n",
          {{"query", "QUERY", true}},
          {{"--tier", "tier"},
           {"--path", "path"},
           {"--kind", "kinds", K::Texts},
           {"--include", "include", K::Texts},
           {"--limit", "limit", K::Integer},
           {"--max-chars", "max_chars", K::Integer}}}},
        {"remember",
         "Remember a claim",
         "Record something you learned about this code (a gotcha, decision, convention, fact), "
         "anchored to the function or file it is about so it is flagged when that code changes.",
         Effect::Write,
         schema::rememberInput,
         schema::rememberOutput,
         runRemember,
         render::remember,
         nullptr,
         false,
         {"  remember TEXT...               record a claim (TEXT '-' reads standard input)\n"
          "      [--label L] [--kind fact|decision|convention|gotcha|preference|todo]\n"
          "      [--tag T]... [--confidence 0..1] [--agent NAME] [--tier project|medulla]\n"
          "      [--anchor PATH#SYMBOL | PATH:LINE | PATH:START-END | PATH]...\n"
          "      [--evidence TYPE:VALUE]... [--force-reason R]\n",
          {{"text", "TEXT", true}},
          {{"--label", "label"},
           {"--kind", "kind"},
           {"--tag", "tags", K::Texts},
           {"--confidence", "confidence", K::Number},
           kAgent,
           {"--tier", "tier"},
           {"--anchor", "anchors", K::Texts, anchorFlag},
           {"--evidence", "evidence", K::Texts, evidenceFlag},
           {"--force-reason", "force_reason"}}}},
        get::operation(),
        reverify::operation(),
        reverify_file::operation(),
        retract::operation(),
        learn::operation(),
        resolve::operation(),
        anchors::operation(),
        promote::operation(),
        {"delegate",
         "Compose a delegation packet",
         "Before handing a task to a sub-agent, get a bounded, verifiable slice of memory for it: "
         "committed claims relevant to the task, unverified ones left out and counted.",
         Effect::Read,
         schema::delegateInput,
         schema::delegateOutput,
         runDelegate,
         render::delegate,
         nullptr,
         false,
         {"  delegate --task T              a bounded, content-addressed memory packet for a "
          "sub-agent\n"
          "      [--path P]... [--symbol S]... [--max-items N] [--max-chars N] [--sign] "
          "[--agent NAME]\n",
          {{"task", "TASK", true}},
          {{"--task", "task"},
           kAgent,
           {"--path", "paths", K::Texts},
           {"--symbol", "symbols", K::Texts},
           {"--max-items", "max_items", K::Integer},
           {"--max-chars", "max_chars", K::Integer},
           {"--sign", "sign", K::Switch}}}},
        {"verify_packet",
         "Verify a delegation packet",
         "As a sub-agent, check the packet you were given: its hash, signature, binding and age.",
         Effect::Read,
         schema::verifyPacketInput,
         schema::verifyPacketOutput,
         runVerifyPacket,
         render::verifyPacket,
         nullptr,
         false,
         {"  verify-packet FILE|-           check a packet's hash, signature, binding and age\n"
          "      [--lifetime SECONDS]       (default 86400); exit 0 valid, 1 invalid\n",
          {{"packet", "FILE"}},
          {{"--lifetime", "lifetime_seconds", K::Integer}},
          verifyPacketInput}},
        {"contribute",
         "Contribute findings for review",
         "As a sub-agent, submit what you learned; findings wait as frontier until the delegating "
         "agent reviews them (duplicates and conflicts are flagged, secrets refused).",
         Effect::Write,
         schema::contributeInput,
         schema::contributeOutput,
         runContribute,
         render::contribute,
         nullptr,
         false,
         {"  contribute [FILE|-]            a sub-agent's findings (JSON: an array of items, or\n"
          "      [--agent NAME] [--packet-id ID]   {\"items\": [...]}), stored as frontier "
          "claims for review;\n"
          "                                 exit 1 when an item was refused (a secret)\n",
          {{"items", "FILE"}},
          {kAgent, {"--packet-id", "packet_id"}},
          contributeInput}},
        review::operation(),
        check::operation(),
        status::operation(),
        report::operation(),
        inbox::operation(),
    };
}

template <class Pred>
const Operation* findIf(Pred pred) {
    for (auto& op : operations())
        if (pred(op)) return &op;
    return nullptr;
}

// "verify_packet" -> "verifyPacket" / "verify-packet".
std::string camel(std::string_view name) {
    std::string out;
    for (size_t i = 0; i < name.size(); ++i)
        out += name[i] == '_' && i + 1 < name.size() ? char(std::toupper(name[++i])) : name[i];
    return out;
}
std::string kebab(std::string_view name) {
    std::string out(name);
    std::replace(out.begin(), out.end(), '_', '-');
    return out;
}

} // namespace

const std::vector<Operation>& operations() {
    // The LSP method and the CLI command are the operation's name, spelled
    // for each surface.
    static const std::vector<Operation> list = [] {
        auto ops = makeOperations();
        for (auto& op : ops) {
            op.method = "engram/" + camel(op.name);
            if (*op.cli.help) op.cli.name = kebab(op.name);
        }
        return ops;
    }();
    return list;
}

const Operation* byName(std::string_view toolName) {
    return findIf([&](const Operation& op) { return op.name == toolName; });
}

const Operation* byMethod(std::string_view lspMethod) {
    return findIf([&](const Operation& op) { return op.method == lspMethod; });
}

const Operation* byCommand(std::string_view cliCommand) {
    return findIf(
        [&](const Operation& op) { return !op.cli.name.empty() && op.cli.name == cliCommand; });
}

json withDefaultAgent(const Call& call, const json& params) {
    // Anything but an object is left for the parser to refuse.
    if (!call.defaultAgent || !params.is_object()) return params;
    json out = params;
    if (!out.contains("agent") || out["agent"].is_null()) out["agent"] = *call.defaultAgent;
    return out;
}

} // namespace engram::ops
