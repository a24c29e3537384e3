// reverify_file: after checking an instruction file's drifted references
// against the code and finding its text still true, stamp them (or one
// line's) as verified.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram::ops::reverify_file {

namespace {

struct Params {
    std::string file; // PATH or PATH:LINE
    std::string agent;
};

struct Answer {
    std::string file;
    int64_t stamped = 0;
    std::vector<std::string> refused;
};

} // namespace

} // namespace engram::ops::reverify_file

namespace engram::protocol {

template <>
struct Shape<ops::reverify_file::Params> {
    using P = ops::reverify_file::Params;
    static constexpr auto fields = std::tuple{
        field("file", &P::file,
              "An instruction file (AGENTS.md, CLAUDE.md...), workspace-relative, with :LINE "
              "for one line's references"),
        field("agent", &P::agent, ops::schema::kAgentDoc, Filled::BySurface),
    };
};

template <>
struct Shape<ops::reverify_file::Answer> {
    using A = ops::reverify_file::Answer;
    static constexpr auto fields = std::tuple{
        field("file", &A::file, "The instruction file, workspace-relative"),
        field("stamped", &A::stamped, "References stamped as verified"),
        field("refused", &A::refused,
              "References that could not be stamped, and why (dangling, moved, ambiguous)"),
    };
};

} // namespace engram::protocol

namespace engram::ops::reverify_file {

namespace {

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
    Answer a{r.file, int64_t(r.stamped), r.refused};
    return Outcome(protocol::toJson(a), !r.refused.empty() && r.stamped == 0);
}

std::string text(const json& r) {
    using render::field, render::member;
    std::string out = "Stamped " + std::to_string(member(r, "stamped").get<int64_t>()) +
                      " reference(s) of " + field(r, "file") + " as verified.\n";
    for (auto& why : member(r, "refused"))
        out += "  not stamped: " + why.get<std::string>() + "\n";
    return out;
}

} // namespace

} // namespace engram::ops::reverify_file

namespace engram::ops {

Operation reverifyFileOperation() {
    return {
        .name = "reverify_file",
        .title = "Re-verify an instruction file",
        .description = "After checking an instruction file's (AGENTS.md, CLAUDE.md...) drifted "
                       "references against the code and finding its text still true, stamp them "
                       "as verified.",
        .effect = Effect::Write,
        .input = [] { return protocol::schemaOf<reverify_file::Params>(); },
        .output = [] { return protocol::schemaOf<reverify_file::Answer>(protocol::Side::Output); },
        .run = reverify_file::run,
        .render = reverify_file::text,
        .cli = {.help = "  reverify-file PATH[:LINE]      stamp an instruction file's code "
                        "references (or one\n"
                        "                                 line's) as verified [--agent NAME]; "
                        "also\n"
                        "                                 reverify --file PATH[:LINE]\n",
                .positionals = {{"file", "PATH[:LINE]"}},
                .flags = {{"--file", "file"}, kAgentFlag}},
    };
}

} // namespace engram::ops
