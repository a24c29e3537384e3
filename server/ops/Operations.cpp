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

// ---- the table -------------------------------------------------------------

const Flag kAgent{"--agent", "agent"};
const Positional kId{"id", "ID"};

std::vector<Operation> makeOperations() {
    using K = FlagKind;
    return {
        recall::operation(),
        remember::operation(),
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
        contribute::operation(),
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
