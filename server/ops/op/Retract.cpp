// retract: withdraw a claim that no longer holds. It is kept on disk (a
// retracted version, never deleted) but no longer recalled.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"
#include "ops/Terminal.h"

namespace engram::ops::retract {

namespace {

struct Params {
    std::string id;
    std::string reason;
    std::string agent;
};

struct Answer {
    Claim claim;
};

} // namespace

} // namespace engram::ops::retract

namespace engram::protocol {

template <>
struct Shape<ops::retract::Params> {
    using P = ops::retract::Params;
    static constexpr auto fields = std::tuple{
        field("id", &P::id, ops::schema::kIdDoc, Filled::ByCaller, ops::schema::kIdPattern),
        field("reason", &P::reason, "Why the claim no longer holds (one line)"),
        field("agent", &P::agent, ops::schema::kAgentDoc, Filled::BySurface),
    };
};

template <>
struct Shape<ops::retract::Answer> {
    static constexpr auto fields = std::tuple{
        field("claim", &ops::retract::Answer::claim,
              "The claim, now retracted (kept, never deleted)"),
    };
};

} // namespace engram::protocol

namespace engram::ops::retract {

namespace {

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    auto c = call.engine().retract(p.id, p.agent, p.reason);
    Outcome out(protocol::toJson(Answer{c}));
    if (call.terminal) out.text = "Retracted: " + terminal::claimLine(c) + "\n";
    return out;
}

std::string text(const json& r) {
    using render::field, render::member;
    const json& c = member(r, "claim");
    return "Retracted " + field(c, "id") + render::quoted(field(c, "label")) +
           ": it is kept but no longer recalled (reason: " + field(c, "retract_reason") + ")\n";
}

} // namespace

} // namespace engram::ops::retract

namespace engram::ops {

Operation retractOperation() {
    return {
        .name = "retract",
        .title = "Retract a claim",
        .description = "Withdraw a claim that is no longer true, with the reason; it is kept on "
                       "disk but no longer recalled.",
        .effect = Effect::Destructive,
        .input = [] { return protocol::schemaOf<retract::Params>(); },
        .output = [] { return protocol::schemaOf<retract::Answer>(protocol::Side::Output); },
        .run = retract::run,
        .render = retract::text,
        .idArgument = "id",
        .cli = {.help = "  retract ID --reason R          withdraw a claim [--agent NAME]\n",
                .positionals = {kIdWord},
                .flags = {{"--reason", "reason"}, kAgentFlag}},
    };
}

} // namespace engram::ops
