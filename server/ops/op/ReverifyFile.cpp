// reverify_file: after checking an instruction file's drifted references
// against the code and finding its text still true, stamp them (or one
// line's) as verified.
#include "ops/op/Ops.h"

#include "ops/Render.h"

namespace engram::ops::reverify_file {

namespace {

using protocol::field;

struct Params {
    std::string file; // PATH or PATH:LINE
    std::string agent;
    static constexpr auto fields() {
        return std::tuple{
            field("file", &Params::file,
                  "An instruction file (AGENTS.md, CLAUDE.md...), workspace-relative, "
                  "with :LINE for one line's references"),
            agentField(&Params::agent)};
    }
};

struct Answer {
    std::string file;
    int64_t stamped = 0;
    std::vector<std::string> refused;
    static constexpr auto fields() {
        return std::tuple{
            field("file", &Answer::file, "The instruction file, workspace-relative"),
            field("stamped", &Answer::stamped, "References stamped as verified"),
            field("refused", &Answer::refused,
                  "References that could not be stamped, and why (dangling, moved, ambiguous)")};
    }
};

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    std::string file = p.file;
    std::optional<int> line;
    if (auto colon = file.find_last_of(':');
        colon != std::string::npos && colon + 1 < file.size() &&
        file.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
        if (file.size() - colon - 1 > 7) throw invalidField("file", "has a line number too large");
        line = std::stoi(file.substr(colon + 1));
        file = file.substr(0, colon);
    }
    auto r = call.engine().reverifyInstructions(file, line, p.agent);
    return Outcome(protocol::toJson(Answer{r.file, int64_t(r.stamped), r.refused}),
                   !r.refused.empty() && r.stamped == 0);
}

std::string text(const json& r) {
    std::string out = "Stamped " + std::to_string(render::member(r, "stamped").get<int64_t>()) +
                      " reference(s) of " + render::field(r, "file") + " as verified.\n";
    for (auto& why : render::member(r, "refused"))
        out += "  not stamped: " + why.get<std::string>() + "\n";
    return out;
}

} // namespace

Operation operation() {
    return {
        .name = "reverify_file",
        .title = "Re-verify an instruction file",
        .description = "After checking an instruction file's (AGENTS.md, CLAUDE.md...) drifted "
                       "references against the code and finding its text still true, stamp them "
                       "as verified.",
        .effect = Effect::Write,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = text,
        .cli = {.help = "  reverify-file PATH[:LINE]      stamp an instruction file's code "
                        "references (or one\n"
                        "                                 line's) as verified [--agent NAME]; "
                        "also\n"
                        "                                 reverify --file PATH[:LINE]\n",
                .positionals = {{"file", "PATH[:LINE]"}},
                .flags = {{"--file", "file"}, kAgentFlag}},
    };
}

} // namespace engram::ops::reverify_file
