// Memory diagnostics, as engram check --format json and the check
// operation list them.
#pragma once
#include "engine/Findings.h"
#include "ops/FindingsJson.h"
#include "ops/op/wire/Common.h"
#include "protocol/Shape.h"

namespace engram::protocol {

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
        field("successor", &Finding::successor,
              "Orphaned: the definition its code most likely lives on in, renamed and edited "
              "(path#Name); re-verifying follows it"),
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

} // namespace engram::protocol
