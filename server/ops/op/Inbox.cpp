// inbox: the reports filed about this project (or every box on this
// machine) with the state their answers give them (ARCHITECTURE.md,
// "Reports and the inbox").
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram::protocol {

template <>
struct Shape<InboxEntry> {
    static constexpr auto fields = std::tuple{
        spread(&InboxEntry::report),
        field("state", &InboxEntry::state,
              "Derived from the answers: open (none), in_progress (answered, not closed), "
              "answered (a closing answer), external (about another tool), answer (a reply)"),
        field("answered_by", &InboxEntry::answeredBy, "Ids of the answers naming it"),
    };
};

} // namespace engram::protocol

namespace engram::ops::inbox {

namespace {

using protocol::field;

struct Params {
    std::optional<InboxState> state;
    std::optional<bool> all;
    static constexpr auto fields() {
        return std::tuple{
            field("state", &Params::state, "Only reports in this state"),
            field("all", &Params::all,
                  "Every known box: registered projects, the medulla, and reports waiting for a "
                  "project not on this machine"),
        };
    }
};

struct BadLine {
    int64_t line = 0;
    std::string problem;
    static constexpr auto fields() {
        return std::tuple{field("line", &BadLine::line), field("problem", &BadLine::problem)};
    }
};

struct Box {
    std::string name;
    std::string path;
    StatusResult::InboxCounts counts;
    std::vector<InboxEntry> reports;
    std::vector<BadLine> badLines;
    protocol::Nullable<std::string> error;
    static constexpr auto fields() {
        return std::tuple{
            field("name", &Box::name, "The project's root, medulla, or pending"),
            field("path", &Box::path),
            field("counts", &Box::counts),
            field("reports", &Box::reports, "Newest first"),
            field("bad_lines", &Box::badLines),
            field("error", &Box::error, "Why the box could not be read"),
        };
    }
};

struct Answer {
    Envelope envelope;
    std::vector<Box> boxes;
    static constexpr auto fields() {
        return std::tuple{field("envelope", &Answer::envelope), field("boxes", &Answer::boxes)};
    }
};

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(params);
    Engine& engine = call.engine();
    auto r = engine.inbox({p.state, p.all.value_or(false), call.requestedRoot});
    Answer a{r.envelope, {}};
    for (auto& b : r.boxes) {
        Box box{b.name, b.path, b.counts, b.reports, {}, {}};
        for (auto& [line, why] : b.badLines)
            box.badLines.push_back({line, why});
        if (!b.error.empty()) box.error.value = b.error;
        a.boxes.push_back(std::move(box));
    }
    return protocol::toJson(a);
}

std::string text(const json& r) {
    using render::field, render::member;
    auto count = [](const json& c, const char* key) {
        const json& n = member(c, key);
        return n.is_number_integer() ? n.dump() : std::string("0");
    };
    std::string out;
    for (auto& b : member(r, "boxes")) {
        const json& c = member(b, "counts");
        out += field(b, "name") + ": " + count(c, "open") + " open, " + count(c, "in_progress") +
               " in progress, " + count(c, "answered") + " answered, " + count(c, "external") +
               " external\n";
        if (auto e = field(b, "error"); !e.empty()) out += "  cannot be read: " + e + "\n";
        for (auto& rep : member(b, "reports")) {
            out += "  " + field(rep, "id") + " [" + field(rep, "state") + "] " +
                   field(rep, "class") +
                   (field(rep, "kind").empty() ? "" : "/" + field(rep, "kind")) + " by " +
                   field(rep, "agent") + " on " + field(rep, "filed") + ": " + field(rep, "what") +
                   "\n";
        }
    }
    return out.empty() ? "No inbox.\n" : out;
}

} // namespace

Operation operation() {
    using K = FlagKind;
    return {
        .name = "inbox",
        .title = "The project's inbox",
        .description = "List the reports filed about this project (or, with all, every box on "
                       "this machine) with their states: open, in_progress, answered, external.",
        .effect = Effect::Read,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = text,
        .answersUnbound = true,
        .cli = {.help = "  inbox [--state S] [--all]      reports filed about this project with "
                        "their states (open,\n"
                        "                                 in_progress, answered, external, "
                        "answer); --all: every box\n"
                        "                                 on this machine and reports waiting "
                        "for their project\n",
                .flags = {{"--state", "state"}, {"--all", "all", K::Switch}}},
    };
}

} // namespace engram::ops::inbox
