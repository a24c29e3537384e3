// promote: copy a project claim that holds beyond its project into the
// user's medulla, where every project's default recall finds it; the
// project original stays, stamped with where it went. With `to:
// team:NAME`, propose it to a team store instead, reviewed like code: the
// copy is committed on a branch of the team's clone, pushed by `engram
// sync`, and is the team's only once that branch is merged.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"
#include "store/StoreConfig.h"

namespace engram::ops::promote {

namespace {

using protocol::field;
using protocol::Nullable;

struct Params {
    std::string id;
    std::string reason;
    std::optional<std::string> to;
    std::string agent;
    static constexpr auto fields() {
        return std::tuple{
            idField(&Params::id),
            field("reason", &Params::reason, "Why it holds beyond this project (one line)"),
            field("to", &Params::to,
                  "medulla (default), or team:NAME: a branch of that team store's repository, "
                  "the team's once merged",
                  protocol::Filled::ByCaller, "^(medulla|team:[a-z0-9][a-z0-9_-]{0,39})$"),
            agentField(&Params::agent),
        };
    }
};

// One answer for both destinations: the medulla's members, or a team
// proposal's, beside the witness both have.
struct Answer {
    std::optional<Claim> medullaCopy;
    Claim witness;
    Nullable<Claim> superseded;
    std::optional<int64_t> medullaLive;
    std::optional<int64_t> softCap;
    Nullable<std::string> warning;
    std::optional<Claim> proposal;
    std::optional<std::string> team;
    std::optional<std::string> branch;
    std::optional<std::string> remote;
    static constexpr auto fields() {
        return std::tuple{
            field("medulla_copy", &Answer::medullaCopy, "The copy now in the medulla"),
            field("witness", &Answer::witness,
                  "The project claim: stamped promoted_to by a promotion to the medulla, "
                  "unchanged by a team proposal"),
            field("superseded", &Answer::superseded,
                  "The version this promotion replaces (the medulla's, or the team's live "
                  "claim under the same label)"),
            field("medulla_live", &Answer::medullaLive, "Live claims in the medulla now"),
            field("soft_cap", &Answer::softCap,
                  "Past this many live claims the medulla warns: it is meant to stay a short "
                  "doctrine"),
            field("warning", &Answer::warning, "Set past the soft cap"),
            field("proposal", &Answer::proposal,
                  "To a team: the copy as the branch holds it, not the team's until merged"),
            field("team", &Answer::team, "To a team: team:NAME"),
            field("branch", &Answer::branch,
                  "To a team: the branch of its repository to merge (engram sync pushes it)"),
            field("remote", &Answer::remote,
                  "To a team: its repository (a password in the URL shown as ***)"),
        };
    }
};

std::string proposalText(const ProposeResult& r) {
    std::string out = "Proposed " + r.witness.id + " to " + r.team + " as " + r.proposal.id;
    if (r.replaces)
        out += " (v" + std::to_string(r.proposal.version) + ", replacing v" +
               std::to_string(r.replaces->version) + ")";
    out += ": " + terminal::claimLine(r.proposal) + "\n";
    out += "   on branch " + r.branch + " of " + r.store + "\n";
    out += "next: engram sync pushes it to " + r.remote + "; open a pull request from " + r.branch +
           " there. The team's recall finds it once it is merged.\n";
    return out;
}

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    if (p.to && *p.to != "medulla") {
        if (!p.to->starts_with("team:") || !validTeamName(std::string_view(*p.to).substr(5)))
            throw invalidField("to", "must be medulla or team:NAME");
        auto r = call.engine().propose({p.id, p.to->substr(5), p.agent, p.reason});
        Answer a;
        a.witness = r.witness;
        a.superseded = {r.replaces};
        a.proposal = r.proposal;
        a.team = r.team;
        a.branch = r.branch;
        a.remote = r.remote;
        Outcome out(protocol::toJson(a));
        if (call.terminal) out.text = proposalText(r);
        return out;
    }
    auto r = call.engine().promote({p.id, p.agent, p.reason});
    Nullable<std::string> warning;
    if (!r.capWarning.empty()) warning.value = r.capWarning;
    Answer a;
    a.medullaCopy = r.medullaCopy;
    a.witness = r.witness;
    a.superseded = {r.superseded};
    a.medullaLive = r.medullaLive;
    a.softCap = kMedullaSoftCap;
    a.warning = warning;
    Outcome out(protocol::toJson(a));
    if (call.terminal) out.text = terminal::promote(r);
    return out;
}

std::string text(const json& r) {
    using render::field, render::member, render::quoted;
    if (r.contains("proposal")) {
        const json& c = member(r, "proposal");
        return "Proposed " + field(member(r, "witness"), "id") + " to " + field(r, "team") +
               " as " + field(c, "id") + quoted(field(c, "label")) + " on branch " +
               field(r, "branch") +
               ". It is not the team's memory until that branch is merged: engram sync pushes "
               "it, then a pull request from it is reviewed like code.\n";
    }
    const json& c = member(r, "medulla_copy");
    std::string out = "Promoted " + field(member(r, "witness"), "id") + " to the medulla as " +
                      field(c, "id") + quoted(field(c, "label")) + " (version " +
                      field(c, "version") + "); every project's default recall now finds it.\n";
    out += "medulla: " + field(r, "medulla_live") + " live claims\n";
    if (auto w = field(r, "warning"); !w.empty()) out += "warning: " + w + "\n";
    return out;
}

} // namespace

Operation operation() {
    return {
        .name = "promote",
        .title = "Promote a claim to the medulla",
        .description = "Copy a project claim that holds beyond this project into the user's "
                       "medulla, where every project's recall finds it (or propose it to a team "
                       "store); as a sub-agent, contribute findings instead.",
        .effect = Effect::Write,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = text,
        .idArgument = "id",
        .cli = {.help = "  promote ID --reason R          copy a project claim into the medulla, "
                        "your memory across\n"
                        "                                 projects [--agent NAME]; --to "
                        "team:NAME proposes it to a\n"
                        "                                 team store: a branch of its repository, "
                        "the team's once\n"
                        "                                 merged (engram sync pushes it)\n",
                .positionals = {kIdWord},
                .flags = {{"--reason", "reason"}, {"--to", "to"}, kAgentFlag}},
    };
}

} // namespace engram::ops::promote
