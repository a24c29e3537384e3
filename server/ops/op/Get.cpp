// get: one claim by id, with its anchors' current state, its feedback and
// its earlier versions.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"
#include "ops/Terminal.h"

namespace engram::ops::get {

namespace {

struct Params {
    std::string id;
};

} // namespace

} // namespace engram::ops::get

namespace engram::protocol {

template <>
struct Shape<ops::get::Params> {
    static constexpr auto fields = std::tuple{
        field("id", &ops::get::Params::id, ops::schema::kIdDoc, Filled::ByCaller,
              ops::schema::kIdPattern),
    };
};

} // namespace engram::protocol

namespace engram::ops::get {

namespace {

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(params);
    auto r = call.engine().get(p.id);
    Outcome out(protocol::toJson(r));
    if (call.terminal) out.text = terminal::get(r);
    return out;
}

} // namespace

} // namespace engram::ops::get

namespace engram::ops {

Operation getOperation() {
    return {
        .name = "get",
        .title = "Get a claim",
        .description = "Show one claim by id with its anchors' current state, its feedback and "
                       "its earlier versions.",
        .effect = Effect::Read,
        .input = [] { return protocol::schemaOf<get::Params>(); },
        .output = schema::getOutput,
        .run = get::run,
        .render = render::get,
        .idArgument = "id",
        .cli = {.help = "  get ID                         one claim with its history\n",
                .positionals = {kIdWord}},
    };
}

} // namespace engram::ops
