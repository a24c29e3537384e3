// status: which root is bound, what each tier holds, anchor health, broken
// claim files, the inbox and (when asked) the instruction files' references
// and the confusion rate. engram/status over the LSP answers the same shape
// per folder (lsp/LspServer.cpp), through status::toJson.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram::protocol {

template <>
struct Shape<RegisteredStore> {
    static constexpr auto fields = std::tuple{
        field("root", &RegisteredStore::root),
        field("reachable", &RegisteredStore::reachable),
    };
};

template <>
struct Shape<StatusResult::AnchorHealth> {
    using H = StatusResult::AnchorHealth;
    static constexpr auto fields = std::tuple{
        field("intact", &H::intact),
        field("drifted", &H::drifted),
        field("moved", &H::moved),
        field("orphaned", &H::orphaned),
        field("unjudged", &H::unjudged, "Not judged: envelope.not_judged says why"),
    };
};

template <>
struct Shape<InstructionCounts> {
    using I = InstructionCounts;
    static constexpr auto fields = std::tuple{
        field("files", &I::files, "Instruction files read"),
        field("references", &I::references, "Code references found in them"),
        field("ok", &I::ok),
        field("dangling", &I::dangling),
        field("drifted", &I::drifted),
        field("moved", &I::moved),
        field("ambiguous", &I::ambiguous, "Names several definitions: not judged"),
        field("unjudged", &I::unjudged, "Not judged: envelope.not_judged says why"),
        field("listed", &I::listed,
              "Whether the workspace's files were listed yet (a server lists them in the "
              "background; until then only instruction files at their usual places are known "
              "and names are not judged)"),
    };
};

template <>
struct Shape<ConfusionWeek> {
    using W = ConfusionWeek;
    static constexpr auto fields = std::tuple{
        field("week", &W::week, "ISO week, e.g. 2026-W47"),
        field("confirmed_misdeliveries", &W::confirmed),
        field("live_claims", &W::liveClaims),
        field("recalls", &W::recalls),
        computed(
            "per_thousand_recalls", +[](const W& w) { return Nullable<double>{w.perThousand}; },
            "Confirmed misdeliveries per 1,000 recalls; null without recalls"),
    };
};

} // namespace engram::protocol

namespace engram::ops::status {

namespace {

using protocol::field;

struct Params {
    std::optional<bool> confusion;
    std::optional<bool> instructions;
    static constexpr auto fields() {
        return std::tuple{
            field("confusion", &Params::confusion,
                  "Also the confusion rate per ISO week (confirmed misdelivery reports, live "
                  "claims, recalls served)"),
            field("instructions", &Params::instructions,
                  "Count the instruction files' code references by state (default: on; off "
                  "for engram/status over the LSP, since it reads git)"),
        };
    }
};

struct BrokenFile {
    std::string file;
    std::string problem;
    static constexpr auto fields() {
        return std::tuple{field("file", &BrokenFile::file), field("problem", &BrokenFile::problem)};
    }
};

struct Answer {
    Envelope envelope;
    std::vector<RegisteredStore> registered;
    StatusResult::AnchorHealth anchorHealth;
    std::vector<BrokenFile> brokenFiles;
    StatusResult::InboxCounts inbox;
    std::optional<InstructionCounts> instructions;
    std::optional<std::vector<ConfusionWeek>> confusion;
    static constexpr auto fields() {
        return std::tuple{
            field("envelope", &Answer::envelope),
            field("registered", &Answer::registered,
                  "Every project store served on this machine (what tier all reads)"),
            field("anchor_health", &Answer::anchorHealth),
            field("broken_files", &Answer::brokenFiles,
                  "The first 100 of each store, by file; envelope.stores[].broken_files counts "
                  "them all"),
            field("inbox", &Answer::inbox, "The bound project's reports by state"),
            field("instructions", &Answer::instructions,
                  "With instructions: their references by state (engram check lists them)"),
            field("confusion", &Answer::confusion, "With confusion: one row per ISO week"),
        };
    }
};

Answer answerOf(const StatusResult& r) {
    Answer a{r.envelope, r.registered, r.anchorHealth, {}, r.inbox, r.instructions, {}};
    for (auto& [file, why] : r.brokenFiles)
        a.brokenFiles.push_back({file, why});
    return a;
}

Outcome run(Call& call, const json& params) {
    auto p = protocol::fromJson<Params>(params);
    Engine& engine = call.engine();
    auto r = engine.status(call.requestedRoot, p.instructions.value_or(true));
    Answer a = answerOf(r);
    if (p.confusion.value_or(false)) a.confusion = engine.confusionSeries();
    Outcome out(protocol::toJson(a));
    if (call.terminal) out.text = terminal::status(r);
    return out;
}

} // namespace

json toJson(const StatusResult& r) {
    return protocol::toJson(answerOf(r));
}

json toJson(const std::vector<ConfusionWeek>& weeks) {
    return protocol::Wire<std::vector<ConfusionWeek>>::write(weeks);
}

Operation operation() {
    return {
        .name = "status",
        .title = "Memory status",
        .description = "Show which workspace root is bound, how many claims each tier holds, "
                       "anchor health and broken claim files; call it when an answer looks "
                       "empty or wrong.",
        .effect = Effect::Read,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = render::status,
        .answersUnbound = true,
        .cli = {.help = "  status                         the bound root, stores, counts, anchor "
                        "health and the inbox\n",
                // `engram status --json` carries the weekly confusion series too.
                .preset = {{"confusion", true}}},
    };
}

} // namespace engram::ops::status
