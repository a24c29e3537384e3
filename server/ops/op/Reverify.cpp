// reverify: after checking a drifted or moved claim against the current
// code and finding it still true, re-stamp its anchors to the code as it is.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"
#include "ops/Terminal.h"

namespace engram::ops::reverify {

namespace {

struct Params {
    std::string id;
    std::optional<std::string> note;
    std::string agent;
};

} // namespace

} // namespace engram::ops::reverify

namespace engram::protocol {

template <>
struct Shape<ops::reverify::Params> {
    using P = ops::reverify::Params;
    static constexpr auto fields = std::tuple{
        field("id", &P::id, ops::schema::kIdDoc, Filled::ByCaller, ops::schema::kIdPattern),
        field("note", &P::note, "What you checked"),
        field("agent", &P::agent, ops::schema::kAgentDoc, Filled::BySurface),
    };
};

} // namespace engram::protocol

namespace engram::ops::reverify {

namespace {

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    auto r = call.engine().reverify(p.id, p.agent, p.note.value_or(""));
    Outcome out(protocol::toJson(r));
    if (call.terminal) out.text = "Re-verified: " + terminal::get(r);
    return out;
}

std::string text(const json& r) {
    return "Re-verified: the anchors now point at the code as it is.\n" + render::get(r);
}

} // namespace

} // namespace engram::ops::reverify

namespace engram::ops {

Operation reverifyOperation() {
    return {
        .name = "reverify",
        .title = "Re-verify a claim",
        .description = "After checking a drifted or moved claim against the current code and "
                       "finding it still true, re-stamp its anchors to the code as it is now.",
        .effect = Effect::Write,
        .input = [] { return protocol::schemaOf<reverify::Params>(); },
        .output = schema::getOutput,
        .run = reverify::run,
        .render = reverify::text,
        .idArgument = "id",
        .cli = {.help =
                    "  reverify ID                    re-stamp a claim's anchors after checking "
                    "it against the\n"
                    "                                 changed code [--note N] [--agent NAME]\n",
                .positionals = {kIdWord},
                .flags = {{"--note", "note"}, kAgentFlag}},
    };
}

} // namespace engram::ops
