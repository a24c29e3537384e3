// contribute: a sub-agent's findings, stored as frontier claims until the
// delegating agent reviews them; duplicates and conflicts with committed
// claims are flagged, and an item holding a secret is refused whole.
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"

namespace engram::ops::contribute {

namespace {

using protocol::field;
using protocol::Nullable;

struct Item {
    std::string text;
    std::optional<std::string> label;
    std::optional<ClaimKind> kind;
    std::vector<std::string> tags;
    std::optional<protocol::Fraction> confidence;
    std::vector<AnchorSpec> anchors;
    std::vector<Evidence> evidence;
    static constexpr auto fields() {
        return std::tuple{
            field("text", &Item::text, "One finding"),
            field("label", &Item::label),
            field("kind", &Item::kind),
            field("tags", &Item::tags),
            field("confidence", &Item::confidence, "In [0, 1]"),
            field("anchors", &Item::anchors),
            field("evidence", &Item::evidence, "Where the finding can be checked"),
        };
    }
};

struct Params {
    std::vector<Item> items;
    std::optional<std::string> packetId;
    std::string agent;
    static constexpr auto fields() {
        return std::tuple{
            field("items", &Params::items, "Findings to submit for review",
                  protocol::Filled::Required),
            field("packet_id", &Params::packetId, "The packet this work was delegated with",
                  protocol::Filled::ByCaller, "^[0-9a-f]{64}$"),
            agentField(&Params::agent),
        };
    }
};

struct Refusal {
    std::string reason, rule, field;
    static constexpr auto fields() {
        return std::tuple{
            protocol::field("reason", &Refusal::reason,
                            "Names the rule and the span, never the secret"),
            protocol::field("rule", &Refusal::rule),
            protocol::field("field", &Refusal::field),
        };
    }
};

struct ItemOutcome {
    int64_t index = 0;
    std::string status;
    std::string contentHash;
    Nullable<std::string> contributionId, claimId, duplicateOf;
    bool conflict = false;
    bool redacted = false;
    std::optional<std::string> duplicateStatus;
    std::optional<std::vector<std::string>> conflictsWith;
    std::optional<std::string> conflictDetail;
    std::optional<Refusal> refused;
    static constexpr auto fields() {
        return std::tuple{
            field("index", &ItemOutcome::index),
            field("status", &ItemOutcome::status,
                  "stored (frontier, awaiting review), duplicate or refused"),
            field("content_hash", &ItemOutcome::contentHash),
            field("contribution_id", &ItemOutcome::contributionId, "Give it to review"),
            field("claim_id", &ItemOutcome::claimId),
            field("duplicate_of", &ItemOutcome::duplicateOf),
            field("conflict", &ItemOutcome::conflict,
                  "Contradicts a committed claim on its anchor or label"),
            field("redacted", &ItemOutcome::redacted),
            field("duplicate_status", &ItemOutcome::duplicateStatus,
                  "The status of the claim it duplicates"),
            field("conflicts_with", &ItemOutcome::conflictsWith,
                  "The committed claims it contradicts"),
            field("conflict_detail", &ItemOutcome::conflictDetail, "What contradicts what"),
            field("refused", &ItemOutcome::refused, "Why the item was refused"),
        };
    }
};

struct Answer {
    std::vector<ItemOutcome> items;
    int64_t stored = 0, duplicates = 0, refused = 0, conflicts = 0;
    static constexpr auto fields() {
        return std::tuple{
            field("items", &Answer::items),           field("stored", &Answer::stored),
            field("duplicates", &Answer::duplicates), field("refused", &Answer::refused),
            field("conflicts", &Answer::conflicts),
        };
    }
};

Nullable<std::string> orNull(const std::string& s) {
    return s.empty() ? Nullable<std::string>{} : Nullable<std::string>{s};
}

ItemOutcome outcomeOf(const ContributionOutcome& o) {
    ItemOutcome w;
    w.index = int64_t(o.index);
    w.status = o.status;
    w.contentHash = o.contentHash;
    w.contributionId = orNull(o.contributionId);
    w.claimId = orNull(o.claimId);
    w.duplicateOf = orNull(o.duplicateOf);
    w.conflict = !o.conflictsWith.empty();
    w.redacted = o.redacted;
    if (!o.duplicateOf.empty()) w.duplicateStatus = o.duplicateStatus;
    if (!o.conflictsWith.empty()) {
        w.conflictsWith = o.conflictsWith;
        w.conflictDetail = o.conflict;
    }
    if (o.status == "refused") w.refused = Refusal{o.refusal, o.refusalRule, o.refusalField};
    return w;
}

} // namespace

ContributeRequest parse(const json& params) {
    auto p = protocol::fromJson<Params>(params);
    ContributeRequest req{p.agent, p.packetId, {}};
    for (auto& in : p.items) {
        ContributionItem it{in.text, in.label, {}, in.tags, {}, in.anchors, in.evidence};
        if (in.kind) it.kind = std::string(spell(*in.kind));
        if (in.confidence) it.confidence = in.confidence->value;
        req.items.push_back(std::move(it));
    }
    return req;
}

json toJson(const ContributeResult& r) {
    Answer a{{}, r.stored, r.duplicates, r.refused, r.conflicts};
    for (auto& o : r.items)
        a.items.push_back(outcomeOf(o));
    return protocol::toJson(a);
}

namespace {

Outcome run(Call& call, const json& params) {
    auto req = parse(withDefaultAgent(call, params)); // before the engine: errors name a field
    auto r = call.engine().contribute(req);
    Outcome out(toJson(r), r.refused > 0);
    if (call.terminal) out.text = terminal::contribute(r);
    return out;
}

std::string text(const json& r) {
    using render::field, render::member;
    std::string out = field(r, "stored") + " stored for review, " + field(r, "duplicates") +
                      " duplicates, " + field(r, "refused") + " refused, " + field(r, "conflicts") +
                      " in conflict\n";
    for (auto& it : member(r, "items")) {
        out += "item " + field(it, "index") + ": " + field(it, "status");
        if (auto id = field(it, "contribution_id"); !id.empty()) out += " as " + id;
        if (auto d = field(it, "duplicate_of"); !d.empty()) out += " (duplicate of " + d + ")";
        if (field(it, "conflict") == "true") {
            out += " · CONFLICTS with a committed claim";
            if (auto d = field(it, "conflict_detail"); !d.empty()) out += ": " + d;
        }
        // Why, in the text a model reads (many clients show it nothing else):
        // the reason names the rule and the span, never the secret.
        if (it.contains("refused") && member(it, "refused").is_object())
            out += ": " + field(member(it, "refused"), "reason");
        out += "\n";
    }
    return out;
}

} // namespace

Operation operation() {
    return {
        .name = "contribute",
        .title = "Contribute findings for review",
        .description = "As a sub-agent, submit what you learned; findings wait as frontier until "
                       "the delegating agent reviews them (duplicates and conflicts are flagged, "
                       "secrets refused).",
        .effect = Effect::Write,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = text,
        .cli = {.help = "  contribute [FILE|-]            a sub-agent's findings (JSON: an array "
                        "of items, or\n"
                        "      [--agent NAME] [--packet-id ID]   {\"items\": [...]}), stored as "
                        "frontier claims for review;\n"
                        "                                 exit 1 when an item was refused (a "
                        "secret)\n",
                .positionals = {{"items", "FILE"}},
                .flags = {kAgentFlag, {"--packet-id", "packet_id"}},
                .input = contributeInput},
    };
}

} // namespace engram::ops::contribute
