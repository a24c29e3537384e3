// check: the findings engram check reports in CI (drifted, orphaned and
// moved anchors, stale claims, secrets, broken or unmerged claim files,
// instruction files' dangling references), for the workspace or one file.
// The command line has `engram check` of its own (text, JSON, SARIF and an
// exit code: cli/Check.cpp) with the same findings JSON.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/FindingsJson.h"
#include "ops/Render.h"
#include "util/Paths.h"

namespace engram::ops::check {

namespace {

using protocol::field;

struct Params {
    std::optional<std::string> path;
    std::optional<std::string> changedSince;
    std::optional<protocol::Bounded<1, 1000>> maxFindings;
    static constexpr auto fields() {
        return std::tuple{
            field("path", &Params::path,
                  "Only this file's findings: a source file (the claims anchored in it) or an "
                  "instruction file, workspace-relative"),
            field("changed_since", &Params::changedSince,
                  "A git ref: only findings about what changed since its merge base with HEAD (a "
                  "pull request)"),
            field("max_findings", &Params::maxFindings,
                  "List at most this many, in order (default 100, at most 1000); the summary "
                  "counts them all"),
        };
    }
};

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(params);
    auto& ref = p.changedSince;
    if (ref && (ref->empty() || (*ref)[0] == '-'))
        throw invalidField("changed_since", "is not a git ref");
    Engine& engine = call.engine(); // the path is judged against the root it routes to
    FindingsOptions fo;
    if (p.path) fo.path = confinedPath(engine.root(), "path", *p.path);
    if (ref) fo.changed = engine.changedSince(*ref);
    fo.keep = size_t(p.maxFindings.value_or(protocol::Bounded<1, 1000>{100}).value);
    return Outcome(findingsReportJson(checkFindings(engine, fo)));
}

} // namespace

Operation operation() {
    return {
        .name = "check",
        .title = "Memory findings",
        .description = "What engram check reports in CI (drifted or orphaned anchors, stale "
                       "claims, broken claim files, instruction files' dangling references), "
                       "for the workspace or one file; call it before handing work over.",
        .effect = Effect::Read,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<FindingsReport>,
        .run = run,
        .render = render::check,
    };
}

} // namespace engram::ops::check
