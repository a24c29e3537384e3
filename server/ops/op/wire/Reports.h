// Reports as boxes and answers show them, and a box's counts by state.
#pragma once
#include "model/Report.h"
#include "model/Requests.h"
#include "protocol/Shape.h"
#include "util/Time.h"

namespace engram::protocol {

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
