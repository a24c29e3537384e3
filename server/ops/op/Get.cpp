// get: one claim by id, with its anchors' current state, its feedback and
// its earlier versions.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram::ops {

Outcome claimAnswer(const Call& call, const GetResult& r, const std::string& lead) {
    Outcome out(protocol::toJson(r));
    if (call.terminal) out.text = lead + terminal::get(r);
    return out;
}

} // namespace engram::ops

namespace engram::ops::get {

namespace {

struct Params {
    std::string id;
    static constexpr auto fields() { return std::tuple{idField(&Params::id)}; }
};

Outcome run(Call& call, const json& params) {
    // Parsed before the engine is asked for: call.engine() in the same
    // expression would be evaluated first.
    auto p = protocol::fromJson<Params>(params);
    auto r = call.engine().get(p.id);
    return claimAnswer(call, r, "");
}

} // namespace

Operation operation() {
    return {
        .name = "get",
        .title = "Get a claim",
        .description = "Show one claim by id with its anchors' current state, its feedback and "
                       "its earlier versions.",
        .effect = Effect::Read,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<GetResult>,
        .run = run,
        .render = render::get,
        .idArgument = "id",
        .cli = {.help = "  get ID                         one claim with its history\n",
                .positionals = {kIdWord}},
    };
}

} // namespace engram::ops::get
