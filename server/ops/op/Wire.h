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
#include "util/Time.h"

namespace engram::protocol {

// A claim in an answer (protocol::toJson(Claim)); never read from a call.
template <>
struct Wire<Claim> {
    static json schema(Side = Side::Output) { return ops::schema::claimSchema(); }
    static json write(const Claim& c) { return toJson(c); }
};

// A claim's verdict counts.
template <>
struct Shape<Feedback> {
    static constexpr auto fields = std::tuple{
        field("correct", &Feedback::correct),
        field("wrong", &Feedback::wrong),
        field("partial", &Feedback::partial),
        computed(
            "contested", +[](const Feedback& f) { return f.contested(); }),
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

// The envelope beside recall, status, inbox and delegate answers.
template <>
struct Wire<Envelope> {
    static json schema(Side = Side::Output) { return ops::schema::envelopeSchema(); }
    static json write(const Envelope& e) { return toJson(e); }
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
