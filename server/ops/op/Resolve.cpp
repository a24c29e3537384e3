// resolve: settle a claim a git merge left diverged (two versions kept in
// one file) or unmerged (conflict markers): keep the merge rule's live
// version, or the one `take` names; every other version goes to history
// (ARCHITECTURE.md, "Team memory").
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"
#include "ops/Terminal.h"

namespace engram::ops::resolve {

namespace {

struct Params {
    std::string id;
    std::optional<std::string> take;
    std::string agent;
};

} // namespace

} // namespace engram::ops::resolve

namespace engram::protocol {

template <>
struct Shape<ops::resolve::Params> {
    using P = ops::resolve::Params;
    static constexpr auto fields = std::tuple{
        field("id", &P::id, ops::schema::kIdDoc, Filled::ByCaller, ops::schema::kIdPattern),
        field("take", &P::take,
              "Which version to keep: ours, theirs, or a version's number or key; absent, the "
              "merge rule's live version"),
        field("agent", &P::agent, ops::schema::kAgentDoc, Filled::BySurface),
    };
};

} // namespace engram::protocol

namespace engram::ops::resolve {

namespace {

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    auto r = call.engine().resolve(p.id, p.take.value_or(""), p.agent);
    Outcome out(protocol::toJson(r));
    if (call.terminal) out.text = "Resolved: " + terminal::get(r);
    return out;
}

std::string text(const json& r) {
    return "Resolved: every other version is in the claim's history.\n" + render::get(r);
}

} // namespace

} // namespace engram::ops::resolve

namespace engram::ops {

Operation resolveOperation() {
    return {
        .name = "resolve",
        .title = "Resolve a diverged claim",
        .description = "Settle a claim a git merge left diverged or unmerged (engram.conflict "
                       "with subject diverged, engram.unmerged): keep the merge rule's live "
                       "version, or the one take names; the others are kept in its history.",
        .effect = Effect::Write,
        .input = [] { return protocol::schemaOf<resolve::Params>(); },
        .output = [] { return schema::getOutput(); },
        .run = resolve::run,
        .render = resolve::text,
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

} // namespace engram::ops
