// remember: record what was learned about the code, anchored to the
// definition or file it is about so that it is flagged when that code
// changes. Under a live claim's label it writes that claim's next version.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram {

namespace ops::remember {
// The tiers a claim is written to: other projects' stores are never written.
enum class WriteTier { Project, Medulla };
} // namespace ops::remember

template <>
struct Spelling<ops::remember::WriteTier> {
    using T = ops::remember::WriteTier;
    static constexpr std::array values{std::pair{T::Project, "project"},
                                       std::pair{T::Medulla, "medulla"}};
};

} // namespace engram

namespace engram::ops::remember {

namespace {

using protocol::field;

struct Params {
    protocol::NonEmpty text;
    std::optional<std::string> label;
    std::optional<ClaimKind> kind;
    std::vector<std::string> tags;
    std::optional<protocol::Fraction> confidence;
    std::string agent;
    std::vector<AnchorSpec> anchors;
    std::vector<Evidence> evidence;
    std::optional<WriteTier> tier;
    std::optional<std::string> forceReason;
    static constexpr auto fields() {
        return std::tuple{
            field("text", &Params::text,
                  "What was learned: one self-contained statement about the code, what it does "
                  "and what callers must know (at most 16 KiB)"),
            field("label", &Params::label,
                  "Short name, unique among live claims (at most 120 bytes). Remembering under a "
                  "live claim's label writes its next version"),
            field("kind", &Params::kind),
            field("tags", &Params::tags),
            field("confidence", &Params::confidence,
                  "How sure you are, in [0, 1] (default 0.7; a new version keeps the claim's)"),
            agentField(&Params::agent),
            field("anchors", &Params::anchors,
                  "The code the claim is about; the claim is flagged drifted when that code "
                  "changes"),
            field("evidence", &Params::evidence, "Where the claim can be checked"),
            field("tier", &Params::tier,
                  "project (default): this repository's memory; medulla: the user's global "
                  "doctrine"),
            field("force_reason", &Params::forceReason,
                  "Why a lower-confidence version should replace the live one (otherwise refused "
                  "with WouldDowngrade)"),
        };
    }
};

struct Related {
    std::string id;
    std::string label;
    std::string relation;
    std::string why;
    std::string text;
    static constexpr auto fields() {
        return std::tuple{
            field("id", &Related::id),
            field("label", &Related::label),
            field("relation", &Related::relation,
                  "contradicts (a contradiction rule fired: one of the two is wrong) or restates "
                  "(most of its words are this claim's)"),
            field("why", &Related::why),
            field("text", &Related::text),
        };
    }
};

struct Answer {
    Claim claim;
    std::string tier;
    protocol::Nullable<Claim> superseded;
    std::vector<Related> related;
    static constexpr auto fields() {
        return std::tuple{
            field("claim", &Answer::claim),
            field("tier", &Answer::tier),
            field("superseded", &Answer::superseded, "The version this write replaced, or null"),
            field("related", &Answer::related,
                  "Live claims this one probably restates or contradicts. Keep one: retract the "
                  "one that no longer holds; a correction remembered under the old claim's "
                  "label supersedes it instead"),
        };
    }
};

} // namespace

RememberRequest parse(const json& params) {
    auto p = protocol::fromJson<Params>(params);
    RememberRequest req;
    req.text = p.text.value;
    req.label = p.label;
    if (p.kind) req.kind = std::string(spell(*p.kind));
    req.tags = p.tags;
    if (p.confidence) req.confidence = p.confidence->value;
    req.agent = p.agent;
    req.anchors = p.anchors;
    req.evidence = p.evidence;
    req.tier = spell(p.tier.value_or(WriteTier::Project));
    req.forceReason = p.forceReason.value_or("");
    return req;
}

namespace {

Outcome run(Call& call, const json& params) {
    auto req = parse(withDefaultAgent(call, params)); // before the engine: errors name a field
    auto r = call.engine().remember(req);
    Answer a{r.claim, r.tier, {r.superseded}, {}};
    for (auto& x : r.related)
        a.related.push_back({x.id, x.label, x.relation, x.why, x.text});
    Outcome out(protocol::toJson(a));
    if (call.terminal) out.text = terminal::remember(r);
    return out;
}

} // namespace

Operation operation() {
    using K = FlagKind;
    return {
        .name = "remember",
        .title = "Remember a claim",
        .description = "Record something you learned about this code (a gotcha, decision, "
                       "convention, fact), anchored to the function or file it is about so it is "
                       "flagged when that code changes. To correct a claim, remember under its "
                       "label (a new version supersedes it) rather than adding another; the "
                       "answer lists live claims the new one probably restates or contradicts, "
                       "to supersede or retract.",
        .effect = Effect::Write,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = render::remember,
        .cli = {.help =
                    "  remember TEXT...               record a claim (TEXT '-' reads standard "
                    "input)\n"
                    "      [--label L] [--kind fact|decision|convention|gotcha|preference|todo]\n"
                    "      [--tag T]... [--confidence 0..1] [--agent NAME] [--tier "
                    "project|medulla]\n"
                    "      [--anchor PATH#SYMBOL | PATH:LINE | PATH:START-END | PATH]...\n"
                    "      [--evidence TYPE:VALUE]... [--force-reason R]\n",
                .positionals = {{"text", "TEXT", true}},
                .flags = {{"--label", "label"},
                          {"--kind", "kind"},
                          {"--tag", "tags", K::Texts},
                          {"--confidence", "confidence", K::Number},
                          kAgentFlag,
                          {"--tier", "tier"},
                          {"--anchor", "anchors", K::Texts, anchorFlag},
                          {"--evidence", "evidence", K::Texts, evidenceFlag},
                          {"--force-reason", "force_reason"}}},
    };
}

} // namespace engram::ops::remember
