// reverify: after checking a drifted or moved claim against the current
// code and finding it still true, re-stamp its anchors to the code as it is
// (an orphan's named successor included).
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram::ops::reverify {

namespace {

struct Params {
    std::string id;
    std::optional<std::string> note;
    std::string agent;
    static constexpr auto fields() {
        return std::tuple{idField(&Params::id),
                          protocol::field("note", &Params::note, "What you checked"),
                          agentField(&Params::agent)};
    }
};

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    auto r = call.engine().reverify(p.id, p.agent, p.note.value_or(""));
    return claimAnswer(call, r, "Re-verified: ");
}

std::string text(const json& r) {
    return "Re-verified: the anchors now point at the code as it is.\n" + render::get(r);
}

} // namespace

Operation operation() {
    return {
        .name = "reverify",
        .title = "Re-verify a claim",
        .description = "After checking a drifted or moved claim against the current code and "
                       "finding it still true, re-stamp its anchors to the code as it is now. An "
                       "orphaned anchor whose finding names a likely successor (renamed and "
                       "edited) follows it; any other orphaned anchor is refused.",
        .effect = Effect::Write,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<GetResult>,
        .run = run,
        .render = text,
        .idArgument = "id",
        .cli = {.help =
                    "  reverify ID                    re-stamp a claim's anchors after checking "
                    "it against the\n"
                    "                                 changed code [--note N] [--agent NAME]\n",
                .positionals = {kIdWord},
                .flags = {{"--note", "note"}, kAgentFlag}},
    };
}

} // namespace engram::ops::reverify
