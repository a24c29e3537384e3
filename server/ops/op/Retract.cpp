// retract: withdraw a claim that no longer holds. It is kept on disk (a
// retracted version, never deleted) but no longer recalled.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"
#include "ops/Terminal.h"

namespace engram::ops::retract {

namespace {

using protocol::field;

struct Params {
    std::string id;
    std::string reason;
    std::string agent;
    static constexpr auto fields() {
        return std::tuple{
            idField(&Params::id),
            field("reason", &Params::reason, "Why the claim no longer holds (one line)"),
            agentField(&Params::agent),
        };
    }
};

struct Answer {
    Claim claim;
    std::optional<std::string> branch;
    static constexpr auto fields() {
        return std::tuple{
            field("claim", &Answer::claim, "The claim, now retracted (kept, never deleted)"),
            field("branch", &Answer::branch,
                  "A team store's claim: the branch of its repository the retraction waits on "
                  "(live for the team until merged; engram sync pushes it)")};
    }
};

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    std::string branch;
    auto c = call.engine().retract(p.id, p.agent, p.reason, &branch);
    Answer a{c, {}};
    if (!branch.empty()) a.branch = branch;
    Outcome out(protocol::toJson(a));
    if (call.terminal)
        out.text = branch.empty() ? "Retracted: " + terminal::claimLine(c) + "\n"
                                  : "Proposed on branch " + branch +
                                        " (engram sync pushes it; "
                                        "live for the team until merged): " +
                                        terminal::claimLine(c) + "\n";
    return out;
}

std::string text(const json& r) {
    const json& c = render::member(r, "claim");
    if (r.contains("branch"))
        return "Proposed the retraction of " + render::field(c, "id") +
               render::quoted(render::field(c, "label")) + " on branch " +
               render::field(r, "branch") +
               ": it stays live for the team until that branch is merged\n";
    return "Retracted " + render::field(c, "id") + render::quoted(render::field(c, "label")) +
           ": it is kept but no longer recalled (reason: " + render::field(c, "retract_reason") +
           ")\n";
}

} // namespace

Operation operation() {
    return {
        .name = "retract",
        .title = "Retract a claim",
        .description = "Withdraw a claim that is no longer true, with the reason; it is kept on "
                       "disk but no longer recalled.",
        .effect = Effect::Destructive,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = text,
        .idArgument = "id",
        .cli = {.help = "  retract ID --reason R          withdraw a claim [--agent NAME]\n",
                .positionals = {kIdWord},
                .flags = {{"--reason", "reason"}, kAgentFlag}},
    };
}

} // namespace engram::ops::retract
