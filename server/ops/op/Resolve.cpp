// resolve: settle a claim a git merge left diverged (two versions kept in
// one file) or unmerged (conflict markers): keep the merge rule's live
// version, or the one `take` names; every other version goes to history
// (ARCHITECTURE.md, "Team memory").
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram::ops::resolve {

namespace {

struct Params {
    std::string id;
    std::optional<std::string> take;
    std::string agent;
    static constexpr auto fields() {
        return std::tuple{
            idField(&Params::id),
            protocol::field("take", &Params::take,
                            "Which version to keep: ours, theirs, or a version's number or key; "
                            "absent, the merge rule's live version"),
            agentField(&Params::agent)};
    }
};

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    auto r = call.engine().resolve(p.id, p.take.value_or(""), p.agent);
    return claimAnswer(call, r, "Resolved: ");
}

std::string text(const json& r) {
    return "Resolved: every other version is in the claim's history.\n" + render::get(r);
}

} // namespace

Operation operation() {
    return {
        .name = "resolve",
        .title = "Resolve a diverged claim",
        .description = "Settle a claim a git merge left diverged or unmerged: keep the merge "
                       "rule's live version, or the one take names (the others stay in its "
                       "history).",
        .effect = Effect::Write,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<GetResult>,
        .run = run,
        .render = text,
        .idArgument = "id",
        .cli = {.help = "  resolve ID [--take T]          settle a claim a merge left diverged or "
                        "unmerged (git\n"
                        "                                 conflict markers): keep the merge "
                        "rule's live version, or\n"
                        "                                 T = ours | theirs | VERSION; every "
                        "other version goes to\n"
                        "                                 history [--agent NAME]\n",
                .positionals = {kIdWord},
                .flags = {{"--take", "take"}, kAgentFlag}},
    };
}

} // namespace engram::ops::resolve
