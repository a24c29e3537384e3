// learn: whether a claim held when someone relied on it. Recall ranks by
// these verdicts and flags a claim judged wrong more often than right.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram::ops::learn {

namespace {

struct Params {
    std::string id;
    Verdict verdict = Verdict::Correct;
    std::optional<std::string> note;
    std::string agent;
};

struct Answer {
    Claim claim;
    std::string tier;
    Feedback feedback;
};

} // namespace

} // namespace engram::ops::learn

namespace engram::protocol {

template <>
struct Shape<ops::learn::Params> {
    using P = ops::learn::Params;
    static constexpr auto fields = std::tuple{
        field("id", &P::id, ops::schema::kIdDoc, Filled::ByCaller, ops::schema::kIdPattern),
        field("verdict", &P::verdict, "Whether the claim held when you relied on it"),
        field("note", &P::note),
        field("agent", &P::agent, ops::schema::kAgentDoc, Filled::BySurface),
    };
};

template <>
struct Shape<ops::learn::Answer> {
    using A = ops::learn::Answer;
    static constexpr auto fields = std::tuple{
        field("claim", &A::claim),
        field("tier", &A::tier),
        field("feedback", &A::feedback),
    };
};

} // namespace engram::protocol

namespace engram::ops::learn {

namespace {

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    auto r = call.engine().learn(p.id, p.verdict, p.agent, p.note.value_or(""));
    Answer answer{r.claim, r.tier, r.claim.feedback};
    Outcome out(protocol::toJson(answer));
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

} // namespace engram::ops::learn

namespace engram::ops {

Operation learnOperation() {
    return {
        .name = "learn",
        .title = "Rate a claim",
        .description = "Say whether a claim you relied on was correct, wrong or partial; recall "
                       "ranks by these verdicts and flags claims judged wrong more often than "
                       "right.",
        .effect = Effect::Write,
        .input = [] { return protocol::schemaOf<learn::Params>(); },
        .output = [] { return protocol::schemaOf<learn::Answer>(protocol::Side::Output); },
        .run = learn::run,
        .render = learn::text,
        .idArgument = "id",
        .cli = {.help = "  learn ID VERDICT               record correct|wrong|partial [--note N] "
                        "[--agent NAME]\n",
                .positionals = {kIdWord, {"verdict", "VERDICT"}},
                .flags = {{"--verdict", "verdict"}, {"--note", "note"}, kAgentFlag}},
    };
}

} // namespace engram::ops
