// promote: copy a project claim that holds beyond its project into the
// user's medulla, where every project's default recall finds it; the
// project original stays, stamped with where it went.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram::ops::promote {

namespace {

using protocol::field;
using protocol::Nullable;

struct Params {
    std::string id;
    std::string reason;
    std::string agent;
    static constexpr auto fields() {
        return std::tuple{
            idField(&Params::id),
            field("reason", &Params::reason, "Why it holds beyond this project (one line)"),
            agentField(&Params::agent),
        };
    }
};

struct Answer {
    Claim medullaCopy;
    Claim witness;
    Nullable<Claim> superseded;
    int64_t medullaLive = 0;
    int64_t softCap = kMedullaSoftCap;
    Nullable<std::string> warning;
    static constexpr auto fields() {
        return std::tuple{
            field("medulla_copy", &Answer::medullaCopy, "The copy now in the medulla"),
            field("witness", &Answer::witness, "The project claim, stamped promoted_to"),
            field("superseded", &Answer::superseded, "The medulla version this promotion replaced"),
            field("medulla_live", &Answer::medullaLive, "Live claims in the medulla now"),
            field("soft_cap", &Answer::softCap,
                  "Past this many live claims the medulla warns: it is meant to stay a short "
                  "doctrine"),
            field("warning", &Answer::warning, "Set past the soft cap"),
        };
    }
};

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    auto r = call.engine().promote({p.id, p.agent, p.reason});
    Nullable<std::string> warning;
    if (!r.capWarning.empty()) warning.value = r.capWarning;
    Outcome out(protocol::toJson(
        Answer{r.medullaCopy, r.witness, {r.superseded}, r.medullaLive, kMedullaSoftCap, warning}));
    if (call.terminal) out.text = terminal::promote(r);
    return out;
}

std::string text(const json& r) {
    using render::field, render::member, render::quoted;
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
                       "medulla, where every project's recall finds it; as a sub-agent, "
                       "contribute findings instead.",
        .effect = Effect::Write,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = text,
        .idArgument = "id",
        .cli = {.help = "  promote ID --reason R          copy a project claim into the medulla, "
                        "your memory across\n"
                        "                                 projects [--agent NAME]\n",
                .positionals = {kIdWord},
                .flags = {{"--reason", "reason"}, kAgentFlag}},
    };
}

} // namespace engram::ops::promote
