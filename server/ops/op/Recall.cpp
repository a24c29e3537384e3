// recall: what is known about a task, a file or a symbol, ranked, each row
// saying whether its anchored code changed since and how old it is; tier
// scoped and pull-only (the project and the medulla; other projects only
// when asked, and labelled).
#include "ops/op/Ops.h"
#include "ops/op/Wire.h"

#include "ops/Render.h"
#include "store/StoreConfig.h"
#include "util/Paths.h"
#include "util/Time.h"

#include <cmath>

namespace engram {

namespace ops::recall {
// Which stores a recall reads; absent: the project, the medulla and the
// team stores the project names. project, medulla, all or team:NAME.
struct ReadTier {
    std::string value;
};
// The statuses a recall may show beside committed claims.
enum class Beside { Frontier, Retracted, Superseded };
} // namespace ops::recall

template <>
struct Spelling<ops::recall::Beside> {
    using B = ops::recall::Beside;
    static constexpr std::array values{std::pair{B::Frontier, "frontier"},
                                       std::pair{B::Retracted, "retracted"},
                                       std::pair{B::Superseded, "superseded"}};
};

namespace protocol {

template <>
struct Wire<ops::recall::ReadTier> {
    static json schema(Side = Side::Input) {
        return {{"type", "string"},
                {"pattern", "^(project|medulla|all|team:[a-z0-9][a-z0-9_-]{0,39})$"}};
    }
    static ops::recall::ReadTier read(const json& v, const std::string& path) {
        std::string s = Wire<std::string>::read(v, path);
        bool team = s.starts_with("team:") && validTeamName(std::string_view(s).substr(5));
        if (s != "project" && s != "medulla" && s != "all" && !team)
            throw invalidField(path, "must be project, medulla, all or team:NAME");
        return {std::move(s)};
    }
    static json write(const ops::recall::ReadTier& t) { return t.value; }
};

// Per tier {live, other}: the project and the medulla by name, other
// registered projects under "other", by root. Nothing in an entry is
// required: counts that are not per tier nest one level deeper.
template <>
struct Wire<std::vector<MemoryExists>> {
    static json schema(Side = Side::Output) {
        json counts = {
            {"type", "object"},
            {"properties", {{"live", {{"type", "integer"}}}, {"other", {{"type", "integer"}}}}}};
        return {{"type", "object"}, {"additionalProperties", std::move(counts)}};
    }
    static json write(const std::vector<MemoryExists>& list) {
        json out = json::object();
        for (auto& m : list) {
            json counts = {{"live", m.live}, {"other", m.other}};
            if (m.tier == "other")
                out["other"][m.store] = std::move(counts);
            else
                out[m.tier] = std::move(counts);
        }
        return out;
    }
};

template <>
struct Shape<UnreachableStore> {
    static constexpr auto fields = std::tuple{field("root", &UnreachableStore::root),
                                              field("reason", &UnreachableStore::reason)};
};

} // namespace protocol

namespace ops::recall {

namespace {

using protocol::field;
using protocol::OneOf;
using protocol::OrUnknown;

struct Params {
    std::optional<std::string> query;
    std::optional<ReadTier> tier;
    std::optional<std::string> path;
    std::optional<std::string> uri;
    std::optional<std::string> symbol;
    std::vector<ClaimKind> kinds;
    std::vector<Beside> include;
    std::optional<protocol::Bounded<1, kMaxRecallLimit>> limit;
    std::optional<protocol::Bounded<1>> maxChars;
    static constexpr auto fields() {
        return std::tuple{
            field("query", &Params::query,
                  "Words about the task or the code; a date in it ('last week', 'since the "
                  "upgrade') is a window of when claims were written; absent = the most "
                  "recent claims"),
            field("tier", &Params::tier,
                  "Default: the project, the medulla and the project's teams; team:NAME one "
                  "team store; all adds every team store and other projects, labelled"),
            field("path", &Params::path,
                  "The file you are working on: claims anchored in it rank first"),
            field("uri", &Params::uri, "That file as a file:// URI, instead of path"),
            field("symbol", &Params::symbol,
                  "A symbol you are working on (TokenValidator.validate, or validate): claims "
                  "anchored to it rank first"),
            field("kinds", &Params::kinds),
            field("include", &Params::include, "Statuses to show beside the committed claims"),
            field("limit", &Params::limit, "At most this many rows (1-200, default 10)"),
            field("max_chars", &Params::maxChars,
                  "Stop adding rows past this many characters of claim text"),
        };
    }
};

struct Row {
    protocol::PlacedClaim claim;
    double score = 0;
    std::string tier;
    std::string store;
    std::string provenance;
    OrUnknown<bool> stale;
    OrUnknown<std::string> age;
    OneOf<AnchorState> anchorState;
    std::vector<std::string> why;
    std::optional<std::vector<std::string>> labelSharedWith;
    std::optional<std::vector<std::string>> nearDuplicates;
    std::optional<std::vector<Claim>> superseded;
    static constexpr auto fields() {
        return std::tuple{
            protocol::spread(&Row::claim),
            field("score", &Row::score),
            field("tier", &Row::tier,
                  "project, medulla, team:NAME, or other (another project's, with tier all)"),
            field("store", &Row::store, "The root (or medulla directory) the row came from"),
            field("provenance", &Row::provenance,
                  "Where, by whom and when it was learned; promotions"),
            field("stale", &Row::stale,
                  "Older than stale_days and not re-verified, or \"unknown\""),
            field("age", &Row::age),
            field("anchor_state", &Row::anchorState,
                  "drifted or orphaned: the code changed since the claim was written; check "
                  "before trusting"),
            field("why", &Row::why, "Why this row matched"),
            field("label_shared_with", &Row::labelSharedWith,
                  "Other live claims holding this label (two branches each wrote it)"),
            field("near_duplicates", &Row::nearDuplicates,
                  "Other live claims saying nearly the same, folded into this row: retract the "
                  "extras, or supersede them into one"),
            field("superseded_versions", &Row::superseded,
                  "With include superseded: the versions this claim replaced, oldest first"),
        };
    }
};

struct Answer {
    std::vector<Row> rows;
    std::vector<MemoryExists> memoryExists;
    bool truncated = false;
    std::optional<std::string> whyEmpty;
    std::optional<std::vector<UnreachableStore>> unreachable;
    std::optional<std::vector<InstructionHit>> instructions;
    std::optional<std::vector<std::string>> notices;
    Envelope envelope;
    static constexpr auto fields() {
        return std::tuple{
            field("rows", &Answer::rows),
            field("memory_exists", &Answer::memoryExists,
                  "Live and other claims per tier, even when no row matched"),
            field("truncated", &Answer::truncated, "limit or max_chars cut the list"),
            field("why_empty", &Answer::whyEmpty, "Why nothing matched, when nothing did"),
            field("unreachable", &Answer::unreachable,
                  "Registered projects tier all could not read"),
            field("instructions", &Answer::instructions,
                  "Paragraphs of the instruction files (AGENTS.md, CLAUDE.md...) that match the "
                  "query: not claims, and not retractable through engram; edit the file"),
            field("notices", &Answer::notices,
                  "What the call asked that matched nothing (a path naming no file, a symbol no "
                  "row is anchored to), and how many matches scored under the floor"),
            field("envelope", &Answer::envelope),
        };
    }
};

Row rowOf(const RecallRow& r) {
    Row w;
    w.claim = {r.claim, r.places};
    w.score = std::round(r.score * 10000.0) / 10000.0;
    w.tier = r.tier;
    w.store = r.store;
    w.provenance = r.provenance;
    w.stale = {r.stale};
    if (r.ageSeconds) w.age.value = humanAge(*r.ageSeconds);
    w.anchorState = {r.anchorState};
    w.why = r.why;
    if (!r.labelSharedWith.empty()) w.labelSharedWith = r.labelSharedWith;
    if (!r.nearDuplicates.empty()) w.nearDuplicates = r.nearDuplicates;
    if (!r.superseded.empty()) w.superseded = r.superseded;
    return w;
}

} // namespace

RecallRequest parse(const json& params) {
    auto p = protocol::fromJson<Params>(params);
    RecallRequest r;
    r.query = p.query;
    if (p.tier) r.tier = p.tier->value;
    r.path = p.path;
    if (p.uri) {
        auto local = uriToPath(*p.uri);
        if (!local) throw invalidField("uri", "must be a file:// URI");
        r.path = *local;
    }
    r.symbol = p.symbol;
    if (r.symbol && r.symbol->empty()) throw invalidField("symbol", "must not be empty");
    for (auto k : p.kinds)
        r.kinds.emplace_back(spell(k));
    for (auto b : p.include)
        r.include.push_back(*parseStatus(spell(b)));
    if (p.limit) r.limit = p.limit->value;
    if (p.maxChars) r.maxChars = p.maxChars->value;
    return r;
}

json toJson(const RecallRow& row) {
    return protocol::toJson(rowOf(row));
}

json toJson(const RecallResult& r) {
    Answer a;
    for (auto& row : r.rows)
        a.rows.push_back(rowOf(row));
    a.memoryExists = r.memoryExists;
    a.truncated = r.truncated;
    if (!r.whyEmpty.empty()) a.whyEmpty = r.whyEmpty;
    if (!r.unreachable.empty()) a.unreachable = r.unreachable;
    if (!r.instructions.empty()) a.instructions = r.instructions;
    if (!r.notices.empty()) a.notices = r.notices;
    a.envelope = r.envelope;
    return protocol::toJson(a);
}

namespace {

Outcome run(Call& call, const json& params) {
    auto req = parse(params); // before the engine: errors name a field
    Engine& engine = call.engine();
    req.root = call.requestedRoot; // as routed, in its canonical form
    auto r = engine.recall(req);
    Outcome out(toJson(r));
    if (call.terminal) out.text = terminal::recall(r);
    return out;
}

} // namespace

Operation operation() {
    using K = FlagKind;
    return {
        .name = "recall",
        .title = "Recall memory",
        .description = "Find what is known about a task, a file or a symbol before you work on "
                       "it; each row says whether its anchored code changed since "
                       "(anchor_state) and how old it is.",
        .effect = Effect::Read,
        .input = protocol::inputSchema<Params>,
        .output = protocol::outputSchema<Answer>,
        .run = run,
        .render = render::recall,
        .answersUnbound = true,
        .cli = {.help = "  recall [QUERY...]              find claims "
                        "[--tier project|medulla|team:NAME|all]\n"
                        "      [--path P] [--symbol S] [--kind K]... "
                        "[--include frontier|retracted|superseded]...\n"
                        "      [--limit N] [--max-chars N]\n",
                .positionals = {{"query", "QUERY", true}},
                .flags = {{"--tier", "tier"},
                          {"--path", "path"},
                          {"--symbol", "symbol"},
                          {"--kind", "kinds", K::Texts},
                          {"--include", "include", K::Texts},
                          {"--limit", "limit", K::Integer},
                          {"--max-chars", "max_chars", K::Integer}}},
    };
}

} // namespace ops::recall

} // namespace engram
