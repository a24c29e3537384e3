// delegate: a bounded, deterministic slice of memory for a sub-agent's
// task, identified by the SHA-256 of its canonical JSON (protocol/Packet):
// committed claims relevant to the task, what was left out counted.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"
#include "protocol/Packet.h"

namespace engram::ops::delegate {

namespace {

using protocol::Bounded;
using protocol::field;

struct Params {
    std::string task;
    std::vector<std::string> paths;
    std::vector<std::string> symbols;
    std::optional<Bounded<1, kMaxPacketItems>> maxItems;
    std::optional<Bounded<1, kMaxPacketChars>> maxChars;
    std::optional<bool> sign;
    std::string agent;
    static constexpr auto fields() {
        return std::tuple{
            field("task", &Params::task, "What the sub-agent is asked to do"),
            field("paths", &Params::paths, "Files the task touches: claims anchored there count"),
            field("symbols", &Params::symbols, "Symbols the task touches"),
            field("max_items", &Params::maxItems, "At most this many items (default 20)"),
            field("max_chars", &Params::maxChars,
                  "At most this many characters of claim text (default 8000)"),
            field("sign", &Params::sign, "Sign the packet with this machine's Ed25519 key"),
            agentField(&Params::agent),
        };
    }
};

// The packet's JSON is protocol/Packet's to build: its identity is a hash
// over exactly that form.
struct PacketJson {
    json value;
};

struct Answer {
    PacketJson packet;
    Envelope envelope;
    static constexpr auto fields() {
        return std::tuple{field("packet", &Answer::packet), field("envelope", &Answer::envelope)};
    }
};

} // namespace

DelegateRequest parse(const json& params) {
    auto p = protocol::fromJson<Params>(params);
    DelegateRequest r;
    r.task = p.task;
    r.agent = p.agent;
    r.paths = p.paths;
    r.symbols = p.symbols;
    if (p.maxItems) r.maxItems = p.maxItems->value;
    if (p.maxChars) r.maxChars = p.maxChars->value;
    r.sign = p.sign.value_or(false);
    return r;
}

} // namespace engram::ops::delegate

namespace engram::protocol {

template <>
struct Wire<ops::delegate::PacketJson> {
    static json schema(Side = Side::Output) { return ops::schema::packetSchema(); }
    static json write(const ops::delegate::PacketJson& p) { return p.value; }
};

} // namespace engram::protocol

namespace engram::ops::delegate {

namespace {

Outcome run(Call& call, const json& params) {
    auto req = parse(withDefaultAgent(call, params)); // before the engine: errors name a field
    Engine& engine = call.engine();
    req.root = call.requestedRoot; // as routed, in its canonical form
    auto r = engine.delegate(req);
    json packet = protocol::packetJson(machine(engine), r.packet, req.sign);
    // Kept by id, so a sub-agent can have it checked without sending it back.
    engine.keepPacket(packet.value("packet_id", ""), packet.dump());
    Outcome out(protocol::toJson(Answer{{std::move(packet)}, r.envelope}));
    if (call.terminal) out.text = terminal::packet(out.value["packet"]);
    return out;
}

} // namespace

protocol::PacketMachine machine(Engine& engine) {
    return {[&engine](const std::string& message) { return engine.signPacket(message); },
            [&engine] { return engine.packetPublicKey(); },
            [&engine] { return engine.currentBinding(); }};
}

Operation operation() {
    using K = FlagKind;
    return {
        .name = "delegate",
        .title = "Compose a delegation packet",
        .description = "Before handing a task to a sub-agent, get a bounded, verifiable slice of "
                       "memory for it: committed claims relevant to the task, unverified ones "
                       "left out and counted.",
        .effect = Effect::Read,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = render::delegate,
        .cli = {.help = "  delegate --task T              a bounded, content-addressed memory "
                        "packet for a sub-agent\n"
                        "      [--path P]... [--symbol S]... [--max-items N] [--max-chars N] "
                        "[--sign] [--agent NAME]\n",
                .positionals = {{"task", "TASK", true}},
                .flags = {{"--task", "task"},
                          kAgentFlag,
                          {"--path", "paths", K::Texts},
                          {"--symbol", "symbols", K::Texts},
                          {"--max-items", "max_items", K::Integer},
                          {"--max-chars", "max_chars", K::Integer},
                          {"--sign", "sign", K::Switch}}},
    };
}

} // namespace engram::ops::delegate
