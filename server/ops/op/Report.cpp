// report: memory that misled someone (or anything else about engram),
// filed so it is counted and reaches the project it concerns, or an answer
// to reports (ARCHITECTURE.md, "Reports and the inbox").
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "model/Report.h"
#include "ops/Render.h"

namespace engram::ops::report {

namespace {

using protocol::field;

struct Params {
    ReportClass reportClass = ReportClass::FieldReport;
    std::optional<MisdeliveryKind> kind;
    std::string what;
    std::optional<std::string> expected;
    std::optional<std::string> excerpt;
    // The project the report is about ("none": no project). `root` in every
    // call is the root the caller believes it is bound to, so this one has
    // its own name.
    std::optional<std::string> project;
    std::string agent;
    std::vector<std::string> answers;
    std::optional<bool> external;
    std::optional<Resolution> resolution;
    static constexpr auto fields() {
        return std::tuple{
            field(
                "class", &Params::reportClass,
                "memory_misdelivery: memory misled you; field_report: anything else about engram; "
                "answer: a reply to reports (needs answers)"),
            field("kind", &Params::kind,
                  "For memory_misdelivery: leak (a claim from a project it should not reach), "
                  "false_absence (recall said nothing, yet the store knew), wrong_store_write, "
                  "misattribution (wrong author or origin), vanished (a claim that was there is "
                  "gone)"),
            field("what", &Params::what, "What happened"),
            field("expected", &Params::expected,
                  "What you expected instead (required for memory_misdelivery)"),
            field("excerpt", &Params::excerpt,
                  "The call or an excerpt of it (the query, the rows)"),
            field(
                "project", &Params::project,
                "Absolute root of the project it concerns (default: the bound root); 'none' for a "
                "report about no project"),
            agentField(&Params::agent),
            field("answers", &Params::answers, "Ids (r-...) of the reports this one answers",
                  protocol::Filled::ByCaller, "^r-[0-9a-f]{16}$"),
            field("external", &Params::external,
                  "About another tool, not engram: listed, never counted open"),
            field("resolution", &Params::resolution,
                  "On an answer: it closes the reports it answers"),
        };
    }
};

struct Answer {
    Report report;
    bool duplicate = false;
    protocol::Nullable<std::string> box;
    bool pending = false;
    bool spooled = false;
    protocol::Nullable<std::string> boxError;
    static constexpr auto fields() {
        return std::tuple{
            field("report", &Answer::report),
            field("duplicate", &Answer::duplicate, "Already filed: nothing was added"),
            field("box", &Answer::box, "The inbox it is in; null while its project is not here"),
            field("pending", &Answer::pending,
                  "Its project is not on this machine: it waits in the spool and is filed when the "
                  "project appears"),
            field("spooled", &Answer::spooled, "Kept in this machine's spool"),
            field(
                "box_error", &Answer::boxError,
                "Why it is pending although its project is here (its inbox could not be written); "
                "filed by a later call"),
        };
    }
};

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(withDefaultAgent(call, params));
    ReportRequest req;
    Report& d = req.draft;
    d.reportClass = spell(p.reportClass);
    if (p.kind) d.kind = spell(*p.kind);
    d.what = p.what;
    d.expected = p.expected.value_or("");
    d.excerpt = p.excerpt.value_or("");
    d.agent = p.agent;
    d.answers = p.answers;
    d.external = p.external.value_or(false);
    if (p.resolution) d.resolution = spell(*p.resolution);
    req.root = p.project;
    auto r = call.engine().report(req);
    auto orNull = [](const std::string& s) {
        return s.empty() ? protocol::Nullable<std::string>{} : protocol::Nullable<std::string>{s};
    };
    return protocol::toJson(
        Answer{r.report, r.duplicate, orNull(r.box), r.pending, r.spooled, orNull(r.boxError)});
}

std::string text(const json& r) {
    using render::field, render::member;
    const json& rep = member(r, "report");
    std::string out = (r.value("duplicate", false) ? "Already filed: " : "Filed ") +
                      field(rep, "id") + " (" + field(rep, "class") +
                      (field(rep, "kind").empty() ? "" : "/" + field(rep, "kind")) + ")";
    if (!field(r, "box_error").empty())
        out += "; kept in the spool, not yet in its inbox (" + field(r, "box_error") +
               "): the next call that reads the inbox files it";
    else if (r.value("pending", false))
        out += "; its project " + field(rep, "root") +
               " is not on this machine, so it waits in the spool until it is";
    else
        out += " into " + field(r, "box");
    return out + "\n";
}

} // namespace

Operation operation() {
    using K = FlagKind;
    return {
        .name = "report",
        .title = "Report a memory problem",
        .description =
            "File a report when memory misled you (class memory_misdelivery, with its kind) or "
            "about engram itself (field_report); it reaches the project's inbox and is counted.",
        .effect = Effect::Write,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = text,
        .cli = {.help =
                    "  report --class C --what W      report memory that misled you (or anything "
                    "about engram):\n"
                    "      C = memory_misdelivery (with --kind leak|false_absence|"
                    "wrong_store_write|\n"
                    "      misattribution|vanished and --expected E) | field_report | answer "
                    "(with\n"
                    "      --answers ID... and, to close them, --resolution confirmed|fixed|\n"
                    "      not_confirmed|duplicate|wont_fix); [--excerpt X] [--external] "
                    "[--agent NAME];\n"
                    "      about the bound root (--root DIR), or --no-project (the medulla's "
                    "inbox)\n",
                .flags = {{"--class", "class"},
                          {"--kind", "kind"},
                          {"--what", "what"},
                          {"--expected", "expected"},
                          {"--excerpt", "excerpt"},
                          kAgentFlag,
                          {"--answers", "answers", K::Texts},
                          {"--external", "external", K::Switch},
                          {"--resolution", "resolution"},
                          // The report concerns the bound root (--root chooses
                          // it) unless it is about no project.
                          {"--no-project", "project", K::Switch, nullptr, "none"}}},
    };
}

} // namespace engram::ops::report
