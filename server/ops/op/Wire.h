// Wire forms of engine types that several operations' shapes hold
// (protocol/Shape.h): written by hand where the type's JSON has rules of
// its own (a claim says "unknown" for what its file does not hold).
#pragma once
#include "engine/Findings.h"
#include "engine/Requests.h"
#include "model/Claim.h"
#include "model/Report.h"
#include "ops/FindingsJson.h"
#include "ops/Schemas.h"
#include "protocol/Shape.h"
#include "store/Merge.h"
#include "util/Paths.h"
#include "util/Time.h"

#include <algorithm>

namespace engram::protocol {

namespace detail {

// Exactly one of the member groups (each alternative names its members'
// types: strict validators want a required member defined beside it).
inline void oneOfGroups(json& target, const std::vector<std::vector<std::string>>& groups) {
    json alternatives = json::array();
    for (auto& group : groups) {
        json properties = json::object();
        for (auto& member : group)
            properties[member] = {{"type", target["properties"][member]["type"]}};
        alternatives.push_back({{"properties", std::move(properties)}, {"required", group}});
    }
    target["oneOf"] = std::move(alternatives);
}

inline json described(json schema, const char* description) {
    schema["description"] = description;
    return schema;
}

} // namespace detail

// Where a claim should point, as a caller names it (remember, contribute):
// a file by path or URI, and in it a symbol, a position or a line range.
// Written by hand: its members come in alternatives the schema says with
// oneOf, and a position's 0-based line becomes the engine's 1-based one.
template <>
struct Wire<AnchorSpec> {
    static json schema(Side = Side::Input) {
        using detail::described;
        json integer = {{"type", "integer"}};
        json text = {{"type", "string"}};
        json line = {{"type", "object"},
                     {"properties", {{"line", described(integer, "0-based line")}}},
                     {"required", {"line"}}};
        json range = {
            {"type", "object"},
            {"properties",
             {{"start_line", described(integer, "1-based, inclusive")},
              {"end_line", described(integer, "1-based, inclusive (default: start_line)")},
              {"start", line},
              {"end", line}}},
            {"description",
             "A line range (for code without a grammar): start_line and end_line, or "
             "an LSP range's start and end (only their lines count)"}};
        detail::oneOfGroups(range, {{"start_line"}, {"start", "end"}});
        json position = {{"type", "object"},
                         {"properties",
                          {{"line", described(integer, "0-based line")},
                           {"character", described(integer, "0-based, UTF-16 code units")}}},
                         {"required", {"line"}},
                         {"description", "The innermost definition around this position"}};
        json anchor = {
            {"type", "object"},
            {"properties",
             {{"path", described(text, "Workspace-relative path of the file (absolute paths "
                                       "inside the root are accepted)")},
              {"uri", described(text, "The file as a file:// URI, instead of path (an editor's "
                                      "document)")},
              {"symbol", described(text, "Qualified symbol in that file, e.g. "
                                         "TokenValidator.validate, or any unambiguous suffix "
                                         "of it")},
              {"position", std::move(position)},
              {"range", std::move(range)}}},
            {"description", "Where the claim points: a symbol, a position, a line range, or "
                            "(path alone) the whole file"}};
        detail::oneOfGroups(anchor, {{"path"}, {"uri"}});
        return anchor;
    }

    static AnchorSpec read(const json& j, const std::string& path) {
        Params p(j, path);
        AnchorSpec a;
        auto uri = p.optString("uri");
        auto file = p.optString("path");
        if (uri && file) throw invalidField(path, "give either path or uri, not both");
        if (uri) {
            auto local = uriToPath(*uri);
            if (!local) throw invalidField(p.field("uri"), "must be a file:// URI");
            a.path = *local;
        } else if (file) {
            a.path = *file;
        } else {
            throw invalidField(p.field("path"), "is required (or uri)");
        }
        a.symbol = p.optString("symbol");
        if (const json* pos = p.optObject("position")) {
            Params pp(*pos, p.field("position"));
            auto line = pp.optInt("line");
            if (!line) throw invalidField(pp.field("line"), "is required");
            if (*line < 0) throw invalidField(pp.field("line"), "must be >= 0");
            a.line = *line + 1; // LSP positions are 0-based
            // UTF-16 code units, converted against the file by the anchorer.
            if (auto ch = pp.optInt("character"); ch && *ch >= 0) a.column = *ch;
        }
        if (const json* r = p.optObject("range")) {
            Params rp(*r, p.field("range"));
            // An LSP Range, or engram's {start_line, end_line} (1-based).
            if (const json* start = rp.optObject("start")) {
                const json* end = rp.optObject("end");
                if (!end) throw invalidField(rp.field("end"), "is required");
                auto s = Params(*start, rp.field("start")).optInt("line");
                auto e = Params(*end, rp.field("end")).optInt("line");
                if (!s || !e) throw invalidField(rp.field("start.line"), "is required");
                a.lines = std::make_pair(*s + 1, *e + 1);
            } else {
                auto s = rp.optInt("start_line");
                auto e = rp.optInt("end_line");
                if (!s) throw invalidField(rp.field("start_line"), "is required");
                a.lines = std::make_pair(*s, e.value_or(*s));
            }
        }
        return a;
    }
};

// Where a claim can be checked, as a caller gives it.
template <>
struct Wire<Evidence> {
    // A claim file may hold types this engram does not know: an answer
    // shows them as written.
    static json schema(Side side = Side::Input) {
        json type =
            side == Side::Input ? Wire<EvidenceType>::schema(side) : json{{"type", "string"}};
        return {{"type", "object"},
                {"properties", {{"type", std::move(type)}, {"value", {{"type", "string"}}}}},
                {"required", {"type", "value"}}};
    }
    static json write(const Evidence& e) { return {{"type", e.type}, {"value", e.value}}; }
    static Evidence read(const json& j, const std::string& path) {
        Params p(j, path);
        const json* type = p.optValue("type");
        if (!type) throw invalidField(p.field("type"), "is required");
        return {Wire<OneOf<EvidenceType>>::read(*type, p.field("type")).value,
                p.reqString("value")};
    }
};

// A claim's verdict counts.
template <>
struct Shape<Feedback> {
    static constexpr auto fields = std::tuple{
        field("correct", &Feedback::correct),
        field("wrong", &Feedback::wrong),
        field("partial", &Feedback::partial),
        computed(
            "contested", +[](const Feedback& f) { return f.contested(); },
            "More wrong than correct verdicts"),
    };
};

// A range in a file as LSP gives it ({start, end}, each {line, character},
// 0-based): the columns count UTF-16 code units by then (engine ranges
// count bytes until a surface converts them against the file's text).
template <>
struct Wire<TextRange> {
    static json schema(Side = Side::Output) {
        json position = {
            {"type", "object"},
            {"properties",
             {{"line", {{"type", "integer"}, {"description", "0-based"}}},
              {"character", {{"type", "integer"}, {"description", "0-based, UTF-16 code units"}}}}},
            {"required", {"line", "character"}}};
        return {{"type", "object"},
                {"properties", {{"start", position}, {"end", position}}},
                {"required", {"start", "end"}}};
    }
    static json write(const TextRange& r) { return lspRange(r); }
};

// What was not judged, by reason (an envelope, check's summary).
template <>
struct Shape<NotJudged> {
    static constexpr auto fields = std::tuple{
        computed(
            "total", +[](const NotJudged& n) { return n.total(); }),
        field("by_reason", &NotJudged::byReason,
              "Reason id -> count: file_too_large, no_grammar, no_code_index, shallow_history, "
              "search_budget, earlier_rules, newer_rules, ambiguous_name, parse_error, "
              "git_not_asked"),
    };
};

// A memory diagnostic, as engram check and the check operation list it.
template <>
struct Shape<Finding> {
    static constexpr auto fields = std::tuple{
        field("code", &Finding::code,
              "engram.drifted, engram.orphaned, engram.moved, engram.conflict, engram.unmerged, "
              "engram.stale, engram.secret, engram.invalid, engram.dangling"),
        computed(
            "severity", +[](const Finding& f) { return OneOf<Severity>{f.severity}; }),
        field("claim_id", &Finding::claimId,
              "The claim it is about; empty for an instruction file's reference"),
        field("label", &Finding::label),
        field("tier", &Finding::tier),
        field("path", &Finding::path, "The file it is reported on, workspace-relative"),
        field("symbol", &Finding::symbol),
        field("subject", &Finding::subject,
              "What within the claim (an anchor, a secret's field) or ref:<the reference as "
              "written>"),
        field("range", &Finding::range),
        field("message", &Finding::message, "What happened and what to do"),
        field("claim_file", &Finding::claimFile),
        field("replacement", &Finding::replacement,
              "Text to write over the range that fixes it, when there is one"),
    };
};

// What engram check --format json and the check operation share.
template <>
struct Shape<ops::FindingsReport> {
    using R = ops::FindingsReport;
    static constexpr auto fields = std::tuple{
        field("findings", &R::findings, "In file and line order"),
        computed(
            "summary", +[](const R& r) { return r.summary.byCode; },
            "Findings per code, all of them (listed or not)"),
        computed(
            "not_judged", +[](const R& r) { return r.summary.notJudged; },
            "What was not judged, by reason: no finding says anything about it"),
        field("unlisted", &R::unlisted, "Findings past max_findings"),
        field("live_claims", &R::liveClaims, "Live project claims"),
    };
};

// ---- a claim, as every answer shows it -------------------------------------
// What a claim file does not hold is said: "unknown" (an author, a date, a
// kind), never left out or guessed.

namespace detail {

inline std::optional<std::string> unlessEmpty(const std::string& s) {
    return s.empty() ? std::nullopt : std::optional<std::string>(s);
}
inline Nullable<std::string> nullIfEmpty(const std::string& s) {
    return s.empty() ? Nullable<std::string>{} : Nullable<std::string>{s};
}
inline OrUnknown<std::string> orUnknown(const std::string& s) {
    return s.empty() ? OrUnknown<std::string>{} : OrUnknown<std::string>{s};
}
inline std::optional<std::string> time(const std::optional<int64_t>& t) {
    return t ? std::optional<std::string>(formatUtc(*t)) : std::nullopt;
}

// An anchor's lines (1-based, inclusive).
struct Lines {
    int64_t startLine = 0, endLine = 0;
    static constexpr auto fields() {
        return std::tuple{field("start_line", &Lines::startLine),
                          field("end_line", &Lines::endLine)};
    }
};

// Another version a merge kept beside a claim: its JSON and its key. Its
// schema is not the claim's again (a schema cannot hold itself).
struct DivergedVersion {
    const Claim* claim = nullptr;
};

} // namespace detail

template <>
struct Wire<detail::DivergedVersion> {
    static json schema(Side = Side::Output) {
        return {{"type", "object"}, {"description", "Another version of the claim, with its key"}};
    }
    static json write(const detail::DivergedVersion& d);
};

template <>
struct Shape<Anchor> {
    static constexpr auto fields = std::tuple{
        field("path", &Anchor::path, "Workspace-relative file"),
        computed(
            "kind",
            +[](const Anchor& a) {
                return a.nodeKind.empty() ? std::string("unknown") : a.nodeKind;
            },
            "Node kind (function, method, class...), file, range, or unknown"),
        computed(
            "symbol", +[](const Anchor& a) { return detail::unlessEmpty(a.symbol); },
            "Qualified symbol, e.g. TokenValidator.validate"),
        computed(
            "language", +[](const Anchor& a) { return detail::unlessEmpty(a.language); }),
        computed(
            "range",
            +[](const Anchor& a) {
                return a.startLine > 0 ? std::optional<detail::Lines>({a.startLine, a.endLine})
                                       : std::nullopt;
            },
            "1-based lines when anchored"),
        computed(
            "hash", +[](const Anchor& a) { return detail::unlessEmpty(a.hash); },
            "Digest of the anchored code's syntax"),
        computed(
            "rules",
            +[](const Anchor& a) {
                return a.rules > 0 ? std::optional<int>(a.rules) : std::nullopt;
            },
            "The version of the digest rules that stamped it; absent when an engram from before "
            "versions wrote it"),
    };
};

template <>
struct Shape<Claim> {
    using C = Claim;
    static constexpr auto fields = std::tuple{
        field("id", &C::id, "Stable across versions: pass it to get, reverify, retract, learn"),
        field("version", &C::version),
        computed(
            "label", +[](const C& c) { return detail::nullIfEmpty(c.label); },
            "Short name, unique among live claims of a store"),
        field("text", &C::text),
        computed(
            "kind", +[](const C& c) { return detail::orUnknown(c.kind); },
            "fact, decision, convention, gotcha, preference, todo (or unknown)"),
        computed(
            "status", +[](const C& c) { return c.status; }),
        computed(
            "confidence", +[](const C& c) { return OrUnknown<double>{c.confidence}; },
            "In [0, 1], or \"unknown\""),
        computed(
            "created", +[](const C& c) { return OrUnknown<std::string>{detail::time(c.created)}; },
            "UTC, or \"unknown\""),
        computed(
            "source_agent", +[](const C& c) { return detail::orUnknown(c.sourceAgent); },
            "Who wrote it, or \"unknown\""),
        computed(
            "origin", +[](const C& c) { return detail::orUnknown(c.origin); },
            "The store it was born in, or \"unknown\""),
        field("tags", &C::tags),
        field("anchors", &C::anchors),
        field("evidence", &C::evidence),
        field("feedback", &C::feedback),
        computed(
            "updated", +[](const C& c) { return detail::time(c.updated); }),
        computed(
            "verified", +[](const C& c) { return detail::time(c.verified); },
            "When the anchors were last re-verified"),
        computed(
            "supersedes", +[](const C& c) { return detail::unlessEmpty(c.supersedes); }),
        computed(
            "retracted_by", +[](const C& c) { return detail::unlessEmpty(c.retractedBy); }),
        computed(
            "retract_reason", +[](const C& c) { return detail::unlessEmpty(c.retractReason); }),
        computed(
            "force_reason", +[](const C& c) { return detail::unlessEmpty(c.forceReason); }),
        computed(
            "origin_claim", +[](const C& c) { return detail::unlessEmpty(c.originClaim); },
            "On a medulla copy: the project claim it was promoted from"),
        computed(
            "promoted_by", +[](const C& c) { return detail::unlessEmpty(c.promotedBy); }),
        computed(
            "promoted", +[](const C& c) { return detail::time(c.promoted); },
            "When it was promoted (UTC)"),
        computed(
            "promotion_reason", +[](const C& c) { return detail::unlessEmpty(c.promotionReason); }),
        computed(
            "promoted_to", +[](const C& c) { return detail::unlessEmpty(c.promotedTo); },
            "On a project claim: the id of its medulla copy"),
        computed(
            "contribution_id", +[](const C& c) { return detail::unlessEmpty(c.contributionId); },
            "On a sub-agent's finding: its contribution (k-...)"),
        computed(
            "contributed_by", +[](const C& c) { return detail::unlessEmpty(c.contributedBy); }),
        computed(
            "accepted_by", +[](const C& c) { return detail::unlessEmpty(c.acceptedBy); }),
        computed(
            "packet_id", +[](const C& c) { return detail::unlessEmpty(c.packetId); },
            "The packet the finding was delegated with"),
        computed(
            "content_hash", +[](const C& c) { return detail::unlessEmpty(c.contentHash); }),
        computed(
            "diverged",
            +[](const C& c) {
                std::optional<std::vector<detail::DivergedVersion>> out;
                if (c.diverged.empty()) return out;
                out.emplace();
                for (auto& v : c.diverged)
                    out->push_back({&v});
                return out;
            },
            "Versions a merge kept beside this one (two branches each wrote the claim): engram "
            "resolve decides"),
        computed(
            "key",
            +[](const C& c) {
                return c.diverged.empty() ? std::nullopt
                                          : std::optional<std::string>(versionKey(c));
            },
            "This version's key, when versions diverged"),
        computed(
            "unmerged",
            +[](const C& c) { return c.unmerged ? std::optional<bool>(true) : std::nullopt; },
            "The claim file still holds git's conflict markers"),
    };
};

inline json Wire<detail::DivergedVersion>::write(const detail::DivergedVersion& d) {
    json j = toJson(*d.claim);
    j["key"] = versionKey(*d.claim);
    return j;
}

// A claim with each anchor's state and where its code is now (recall rows,
// get): the claim's JSON, its anchors enriched.
struct PlacedClaim {
    Claim claim;
    std::vector<AnchorPlace> places; // per anchor, as many as there are
};

namespace detail {

// Where an anchor's code is now: the file holding it (another one when it
// moved) and an LSP range.
struct Current {
    std::string path;
    TextRange range;
    static constexpr const char* description =
        "Where the anchored code is now, as an LSP range; absent when orphaned or ambiguous";
    static constexpr auto fields() {
        return std::tuple{field("path", &Current::path,
                                "The file holding the code now (another one when it moved)"),
                          field("range", &Current::range)};
    }
};

struct PlacedAnchor {
    Anchor anchor;
    std::optional<OneOf<AnchorState>> state;
    std::optional<std::string> notJudged;
    std::optional<Current> current;
    static constexpr auto fields() {
        return std::tuple{
            spread(&PlacedAnchor::anchor),
            field("state", &PlacedAnchor::state, "This anchor's state now (get, reverify, recall)"),
            field("not_judged", &PlacedAnchor::notJudged,
                  "Unjudged: why engram could not judge it (file_too_large, no_grammar, "
                  "earlier_rules...)"),
            field("current", &PlacedAnchor::current)};
    }
};

} // namespace detail

template <>
struct Shape<PlacedClaim> {
    static constexpr auto fields = std::tuple{
        spread(&PlacedClaim::claim),
        computed(
            "anchors",
            +[](const PlacedClaim& p) {
                std::vector<detail::PlacedAnchor> out;
                for (size_t i = 0; i < p.claim.anchors.size(); ++i) {
                    detail::PlacedAnchor a{p.claim.anchors[i], {}, {}, {}};
                    if (i < p.places.size()) {
                        const AnchorPlace& at = p.places[i];
                        a.state = OneOf<AnchorState>{at.state};
                        a.notJudged = detail::unlessEmpty(at.reason);
                        if (at.range && !at.path.empty())
                            a.current = detail::Current{at.path, *at.range};
                    }
                    out.push_back(std::move(a));
                }
                return out;
            }),
    };
};

// get's answer (and reverify's and resolve's): the claim, placed, with its
// tier, file and state, and its earlier versions.
namespace detail {

struct GotClaim {
    PlacedClaim claim;
    std::string tier;
    std::string file;
    OneOf<AnchorState> anchorState;
    static constexpr auto fields() {
        return std::tuple{spread(&GotClaim::claim), field("tier", &GotClaim::tier),
                          field("file", &GotClaim::file, "The claim file"),
                          field("anchor_state", &GotClaim::anchorState)};
    }
};

} // namespace detail

template <>
struct Shape<GetResult> {
    static constexpr auto fields = std::tuple{
        computed(
            "claim",
            +[](const GetResult& r) {
                PlacedClaim placed{r.claim, r.places};
                placed.places.resize(std::max(r.places.size(), r.anchorStates.size()));
                for (size_t i = 0; i < r.anchorStates.size(); ++i)
                    placed.places[i].state = r.anchorStates[i];
                return detail::GotClaim{std::move(placed), r.tier, r.file, {r.anchorState}};
            }),
        field("history", &GetResult::history, "Earlier versions, oldest first"),
    };
};

// A paragraph of an instruction file matching a query or a task.
template <>
struct Wire<InstructionHit> {
    static json schema(Side = Side::Output) { return ops::schema::instructionHitSchema(); }
    static json write(const InstructionHit& h) { return toJson(h); }
};

// ---- the envelope beside recall, status, inbox and delegate answers ---------

namespace detail {

// A tier's claims by status.
struct TierClaims {
    int64_t committed = 0, frontier = 0, retracted = 0, superseded = 0;
    static constexpr auto fields() {
        return std::tuple{field("committed", &TierClaims::committed),
                          field("frontier", &TierClaims::frontier),
                          field("retracted", &TierClaims::retracted),
                          field("superseded", &TierClaims::superseded)};
    }
};

// The exact call that would fix the state.
struct RecoveryCall {
    std::string method;
    std::map<std::string, std::string> arguments;
    std::string reason;
    static constexpr auto fields() {
        return std::tuple{field("method", &RecoveryCall::method, "The tool (or command) to call"),
                          field("arguments", &RecoveryCall::arguments),
                          field("reason", &RecoveryCall::reason)};
    }
};

} // namespace detail

template <>
struct Shape<TierState> {
    using S = TierState;
    static constexpr auto fields = std::tuple{
        field("tier", &S::tier, "project or medulla"),
        field("path", &S::path, "The store directory"),
        field("name", &S::name),
        field("exists", &S::exists),
        field("index_ready", &S::indexReady),
        computed(
            "claims",
            +[](const S& s) {
                return detail::TierClaims{s.committed, s.frontier, s.retracted, s.superseded};
            }),
        field("anchors", &S::anchors),
        field("generation", &S::generation),
        field("broken_files", &S::brokenFiles),
        field("reconciled", &S::reconciled,
              "False while claim files changed while engram was down are still being checked in "
              "the background"),
        computed(
            "unchecked_files",
            +[](const S& s) {
                return s.reconciled ? std::nullopt : std::optional<int64_t>(s.uncheckedFiles);
            }),
        computed(
            "read_only",
            +[](const S& s) { return s.readOnly ? std::optional<bool>(true) : std::nullopt; },
            "The store cannot be written: it is read, and writes to it are refused"),
        computed(
            "error", +[](const S& s) { return detail::unlessEmpty(s.error); },
            "Why the tier could not be read"),
    };
};

template <>
struct Shape<Envelope::Observed> {
    using O = Envelope::Observed;
    static constexpr auto fields = std::tuple{
        field("method", &O::method),
        field("candidates", &O::candidates),
        computed(
            "error", +[](const O& o) { return detail::unlessEmpty(o.error); }),
    };
};

template <>
struct Shape<Envelope::Session> {
    using S = Envelope::Session;
    static constexpr auto fields = std::tuple{
        field("pid", &S::pid),
        field("version", &S::version),
        computed(
            "started", +[](const S& s) { return formatUtc(s.started); }),
    };
};

template <>
struct Shape<Envelope::Binding> {
    using B = Envelope::Binding;
    static constexpr auto fields = std::tuple{
        field("root", &B::root, "The bound workspace root"),
        field("fingerprint", &B::fingerprint),
        field("source", &B::source,
              "How the root was chosen: --root, ENGRAM_ROOT, roots (the client's), discovered "
              "(the working directory)"),
        computed(
            "requested_root", +[](const B& b) { return detail::nullIfEmpty(b.requestedRoot); }),
        field("mismatch", &B::mismatch),
    };
};

template <>
struct Shape<Envelope> {
    using E = Envelope;
    static constexpr const char* description =
        "The state of memory behind this answer (bound root, counts per tier, index)";
    static constexpr auto fields = std::tuple{
        field("schema", &E::schema),
        computed(
            "status", +[](const E& e) { return OneOf<EnvelopeStatus>{e.status}; }),
        computed(
            "trust_mode", +[](const E& e) { return OneOf<TrustMode>{e.trustMode}; },
            "How far an empty or short answer can be trusted"),
        field("observed", &E::observed),
        field("session", &E::session),
        field("binding", &E::binding),
        field("store", &E::stores),
        computed(
            "next_suggested", +[](const E& e) { return detail::nullIfEmpty(e.nextSuggested); }),
        computed(
            "recovery",
            +[](const E& e) {
                Nullable<detail::RecoveryCall> out;
                if (e.recovery.method.empty()) return out;
                out.value = detail::RecoveryCall{e.recovery.method, {}, e.recovery.reason};
                for (auto& [k, v] : e.recovery.arguments)
                    out.value->arguments[k] = v;
                return out;
            },
            "The exact call that would fix the state"),
        field("non_claims", &E::nonClaims),
        computed(
            "not_judged",
            +[](const E& e) {
                return e.notJudged.empty() ? std::nullopt : std::optional<NotJudged>(e.notJudged);
            },
            "Present when something was not judged; non_claims says why in words"),
    };
};

// A report as boxes and answers show it. A Report keeps its class, kind and
// resolution as text (a box written by another engram may hold spellings
// this one does not know), so they are declared as strings, and what it
// leaves empty is left out.
template <>
struct Wire<Report> {
    static json schema(Side = Side::Output) {
        auto text = [](const char* description = nullptr) {
            json s = {{"type", "string"}};
            if (description) s["description"] = description;
            return s;
        };
        return {
            {"type", "object"},
            {"properties",
             {{"id", text("r- and 16 hex digits of the report's content")},
              {"class", text()},
              {"kind", text()},
              {"what", text()},
              {"expected", text()},
              {"excerpt", text()},
              {"root", text("The project it concerns, or none")},
              {"agent", text()},
              {"filed", text("When first filed (UTC)")},
              {"external", {{"type", "boolean"}}},
              {"answers", {{"type", "array"}, {"items", text()}}},
              {"resolution", text()}}},
            {"required", {"id", "class", "what", "root", "agent", "filed", "external", "answers"}}};
    }
    static json write(const Report& r) {
        json j = {{"id", r.id},
                  {"class", r.reportClass},
                  {"what", r.what},
                  {"root", r.root},
                  {"agent", r.agent},
                  {"filed", formatUtc(r.filed)},
                  {"external", r.external},
                  {"answers", r.answers}};
        if (!r.kind.empty()) j["kind"] = r.kind;
        if (!r.expected.empty()) j["expected"] = r.expected;
        if (!r.excerpt.empty()) j["excerpt"] = r.excerpt;
        if (!r.resolution.empty()) j["resolution"] = r.resolution;
        return j;
    }
};

// A box's reports by state (status shows the bound project's).
template <>
struct Shape<StatusResult::InboxCounts> {
    using C = StatusResult::InboxCounts;
    static constexpr auto fields = std::tuple{
        field("open", &C::open),         field("in_progress", &C::inProgress),
        field("answered", &C::answered), field("external", &C::external),
        field("answers", &C::answers),
    };
};

} // namespace engram::protocol
