// reindex: every index of the bound workspace dropped and rebuilt from the
// claim files, the temporaries of interrupted writes swept. Maintenance,
// not a question an agent asks: on the command line, over the LSP (and the
// editor's command), and not a tool of `engram mcp`.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram::protocol {

template <>
struct Shape<SyncReport> {
    static constexpr auto fields = std::tuple{
        field("added", &SyncReport::added, "Claims indexed"),
        field("updated", &SyncReport::updated),
        field("removed", &SyncReport::removed),
        field("broken", &SyncReport::broken,
              "Claim files that do not parse (engram check names them)"),
        field("rebuilt", &SyncReport::rebuilt),
        field("reason", &SyncReport::rebuildReason),
        field("temporaries_removed", &SyncReport::temporariesRemoved,
              "Temporary files left by interrupted writes, removed"),
    };
};

} // namespace engram::protocol

namespace engram::ops::reindex {

namespace {

using protocol::field;

struct Params {
    static constexpr auto fields() { return std::tuple{}; }
};

struct Answer {
    std::vector<SyncReport> reports;
    static constexpr auto fields() {
        return std::tuple{field("reports", &Answer::reports,
                                "One per store rebuilt: the project's, then the medulla's")};
    }
};

std::string lines(const std::vector<SyncReport>& reports) {
    std::string out;
    for (auto& r : reports)
        out += "reindexed: " + std::to_string(r.added) + " claims, " + std::to_string(r.broken) +
               " broken files" +
               (r.temporariesRemoved ? ", " + std::to_string(r.temporariesRemoved) +
                                           " temporary files of interrupted writes removed"
                                     : "") +
               "\n";
    return reports.empty() ? "no stores to index\n" : out;
}

Outcome run(Call& call, const json& params) {
    protocol::fromJson<Params>(params); // before the engine: errors name a field
    auto reports = call.engine().reindex();
    Outcome out(protocol::toJson(Answer{reports}));
    if (call.terminal) out.text = lines(reports);
    return out;
}

std::string text(const json& r) {
    auto reports = protocol::fromJson<Answer>(r).reports;
    return lines(reports);
}

} // namespace

Operation operation() {
    return {
        .name = "reindex",
        .title = "Rebuild the indexes",
        .description = "Drop and rebuild every index of the workspace from the claim files, and "
                       "remove temporaries left by interrupted writes.",
        .effect = Effect::Write,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = text,
        .agentTool = false,
        .cli = {.help =
                    "  reindex                        rebuild every index from the claim files\n"},
    };
}

} // namespace engram::ops::reindex
