// verify_packet: a sub-agent checks the packet it was given (its hash, its
// signature, its binding to this workspace and its age) before relying on
// it. A failed check is a reason, never an error: the answer says why.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"
#include "protocol/Packet.h"

namespace engram::protocol {

template <>
struct Shape<VerifyPacketResult> {
    using R = VerifyPacketResult;
    static constexpr auto fields = std::tuple{
        field("valid", &R::valid),
        field("reasons", &R::reasons, "One per failed check; empty when valid"),
        field("packet_id", &R::packetId, "The id recomputed from the packet's content"),
        computed(
            "signed_by_this_machine",
            +[](const R& r) { return Nullable<bool>{r.signedByThisMachine}; },
            "Whether this machine's key signed it; null when unsigned"),
        computed(
            "age_seconds", +[](const R& r) { return Nullable<int64_t>{r.ageSeconds}; },
            "Seconds since it was composed; null when its date cannot be read"),
    };
};

} // namespace engram::protocol

namespace engram::ops::verify_packet {

namespace {

using protocol::field;

struct Params {
    std::optional<std::string> packetId;
    std::optional<protocol::AnyObject> packet;
    std::optional<protocol::Bounded<1>> lifetimeSeconds;
    static constexpr auto fields() {
        return std::tuple{
            field("packet_id", &Params::packetId,
                  "The packet's id, as delegate returned it (this machine keeps its recent "
                  "packets)",
                  protocol::Filled::ByCaller, "^[0-9a-f]{64}$"),
            field("packet", &Params::packet,
                  "Instead of packet_id: the packet exactly as delegate returned it"),
            field("lifetime_seconds", &Params::lifetimeSeconds,
                  "Oldest acceptable packet, in seconds (default one day)"),
        };
    }
};

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(params); // before the engine: errors name a field
    if (p.packet && p.packetId)
        throw invalidField("packet_id", "give either packet_id or packet, not both");
    if (!p.packet && !p.packetId) throw invalidField("packet_id", "is required (or packet)");
    Engine& engine = call.engine();
    json packet;
    if (p.packetId) {
        auto kept = engine.keptPacket(*p.packetId);
        if (!kept)
            throw invalidField("packet_id", "no packet " + *p.packetId +
                                                " was composed on this machine lately (the "
                                                "newest " +
                                                std::to_string(Engine::kKeptPackets) +
                                                " are kept); send the packet itself");
        packet = json::parse(*kept, nullptr, false);
    } else {
        packet = p.packet->value;
    }
    protocol::VerifyPacketRequest req{packet, protocol::kDefaultPacketLifetime};
    if (p.lifetimeSeconds) req.lifetimeSeconds = p.lifetimeSeconds->value;
    auto r = protocol::verifyPacket(delegate::machine(engine), req);
    Outcome out(protocol::toJson(r), !r.valid);
    if (call.terminal) out.text = terminal::verifyPacket(r);
    return out;
}

std::string text(const json& r) {
    using render::field, render::member;
    if (field(r, "valid") == "true")
        return "The packet is valid (" + field(r, "packet_id") + ").\n";
    std::string out = "The packet is NOT valid:\n";
    for (auto& why : member(r, "reasons"))
        out += "- " + why.get<std::string>() + "\n";
    return out;
}

} // namespace

Operation operation() {
    return {
        .name = "verify_packet",
        .title = "Verify a delegation packet",
        .description = "As a sub-agent, check the packet you were given (by its packet_id): its "
                       "hash, signature, binding and age.",
        .effect = Effect::Read,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<VerifyPacketResult>,
        .run = run,
        .render = text,
        .cli = {.help = "  verify-packet FILE|-|ID        check a packet's hash, signature, "
                        "binding and age\n"
                        "      [--lifetime SECONDS]       (default 86400); exit 0 valid, 1 "
                        "invalid\n",
                .positionals = {{"packet", "FILE"}},
                .flags = {{"--lifetime", "lifetime_seconds", FlagKind::Integer}},
                .input = verifyPacketInput},
    };
}

} // namespace engram::ops::verify_packet
