// learn: whether a claim held when someone relied on it. Recall ranks by
// these verdicts and flags a claim judged wrong more often than right.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram::ops::learn {

namespace {

using protocol::field;

struct Params {
    std::string id;
    Verdict verdict = Verdict::Correct;
    std::optional<std::string> note;
    std::string agent;
    static constexpr auto fields() {
        return std::tuple{
            idField(&Params::id),
            field("verdict", &Params::verdict, "Whether the claim held when you relied on it"),
            field("note", &Params::note),
            agentField(&Params::agent),
        };
    }
};

struct Answer {
    Claim claim;
    std::string tier;
    Feedback feedback;
    static constexpr auto fields() {
        return std::tuple{field("claim", &Answer::claim), field("tier", &Answer::tier),
                          field("feedback", &Answer::feedback)};
    }
};

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    auto r = call.engine().learn(p.id, p.verdict, p.agent, p.note.value_or(""));
    Outcome out(protocol::toJson(Answer{r.claim, r.tier, r.claim.feedback}));
    if (call.terminal) {
        auto& f = r.claim.feedback;
        out.text = "Recorded '" + std::string(spell(p.verdict)) + "' for " + r.claim.id + ": " +
                   std::to_string(f.correct) + " correct, " + std::to_string(f.wrong) + " wrong, " +
                   std::to_string(f.partial) + " partial" + (f.contested() ? " (contested)" : "") +
                   "\n";
    }
    return out;
}

std::string text(const json& r) {
    const json& c = render::member(r, "claim");
    return "Recorded for " + render::field(c, "id") + render::quoted(render::field(c, "label")) +
           ": " + render::feedbackText(render::member(r, "feedback")) + "\n";
}

} // namespace

Operation operation() {
    return {
        .name = "learn",
        .title = "Rate a claim",
        .description = "Say whether a claim you relied on was correct, wrong or partial; recall "
                       "ranks by these verdicts and flags claims judged wrong more often than "
                       "right.",
        .effect = Effect::Write,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = text,
        .idArgument = "id",
        .cli = {.help = "  learn ID VERDICT               record correct|wrong|partial [--note N] "
                        "[--agent NAME]\n",
                .positionals = {kIdWord, {"verdict", "VERDICT"}},
                .flags = {{"--verdict", "verdict"}, {"--note", "note"}, kAgentFlag}},
    };
}

} // namespace engram::ops::learn
