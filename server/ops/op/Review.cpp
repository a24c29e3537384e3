// review: the delegating agent's decision on a sub-agent's contribution:
// accepted, its frontier claim is committed; rejected, it is retracted with
// the reason.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram {

namespace ops::review {
enum class Decision { Accept, Reject };
}

template <>
struct Spelling<ops::review::Decision> {
    using D = ops::review::Decision;
    static constexpr std::array values{std::pair{D::Accept, "accept"},
                                       std::pair{D::Reject, "reject"}};
};

} // namespace engram

namespace engram::ops::review {

namespace {

using protocol::field;

struct Params {
    std::string contributionId;
    Decision decision = Decision::Accept;
    std::string reason;
    std::string agent;
    static constexpr auto fields() {
        return std::tuple{
            field("contribution_id", &Params::contributionId,
                  "As contribute returned it (k-...), or its claim's id (c-...) as recall shows it",
                  protocol::Filled::ByCaller, "^[kc]-[a-z0-9_-]{1,62}$"),
            field("decision", &Params::decision),
            field("reason", &Params::reason, "Why (one line)"),
            agentField(&Params::agent),
        };
    }
};

struct Answer {
    Decision decision = Decision::Accept;
    Claim claim;
    std::string tier;
    static constexpr auto fields() {
        return std::tuple{
            field("decision", &Answer::decision),
            field("claim", &Answer::claim, "The committed claim, or the rejected contribution"),
            field("tier", &Answer::tier),
        };
    }
};

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    auto r =
        call.engine().review({p.contributionId, std::string(spell(p.decision)), p.agent, p.reason});
    Outcome out(protocol::toJson(Answer{p.decision, r.claim, r.tier}));
    if (call.terminal)
        out.text = (p.decision == Decision::Accept ? "Accepted: " : "Rejected: ") +
                   terminal::claimLine(r.claim) + "\n";
    return out;
}

std::string text(const json& r) {
    using render::field, render::member;
    const json& c = member(r, "claim");
    return (field(r, "decision") == "accept" ? "Accepted: " : "Rejected: ") + field(c, "id") +
           " is now " + field(c, "status") + "\n";
}

} // namespace

Operation operation() {
    return {
        .name = "review",
        .title = "Review a contribution",
        .description =
            "Accept a sub-agent's contribution into memory or reject it, with the reason.",
        .effect = Effect::Write,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = text,
        .cli = {.help = "  review ID accept|reject --reason R   accept or reject a contribution "
                        "[--agent NAME]\n",
                .positionals = {{"contribution_id", "ID"}, {"decision", "accept|reject"}},
                .flags = {{"--reason", "reason"}, kAgentFlag}},
    };
}

} // namespace engram::ops::review
