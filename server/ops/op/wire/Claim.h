// A claim as every answer shows it: its anchors, its verdicts, its
// versions; placed (each anchor's state and where its code is now) in
// recall rows and get's answer.
#pragma once
#include "model/Claim.h"
#include "model/Requests.h"
#include "ops/op/wire/Calls.h"
#include "ops/op/wire/Common.h"
#include "protocol/Shape.h"
#include "store/Merge.h"

#include <algorithm>

namespace engram::protocol {

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

// ---- a claim, as every answer shows it -------------------------------------
// What a claim file does not hold is said: "unknown" (an author, a date, a
// kind), never left out or guessed.

namespace detail {

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
    std::optional<std::string> symbol;
    static constexpr const char* description =
        "Where the anchored code is now, as an LSP range; absent when orphaned or ambiguous";
    static constexpr auto fields() {
        return std::tuple{field("path", &Current::path,
                                "The file holding the code now (another one when it moved)"),
                          field("range", &Current::range),
                          field("symbol", &Current::symbol, "Moved: the symbol's name now")};
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
                            a.current = detail::Current{at.path, *at.range,
                                                        detail::unlessEmpty(at.movedTo)};
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

} // namespace engram::protocol
