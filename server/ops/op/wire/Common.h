// Wire forms several answers share: a range in a file, what was not
// judged, an instruction file's paragraph, and the small helpers the
// shapes use to say "absent", "null" and "unknown".
#pragma once
#include "model/Requests.h"
#include "ops/Schemas.h"
#include "protocol/Shape.h"
#include "util/Time.h"

namespace engram::protocol {

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

} // namespace detail

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

// A paragraph of an instruction file matching a query or a task.
template <>
struct Wire<InstructionHit> {
    static json schema(Side = Side::Output) { return ops::schema::instructionHitSchema(); }
    static json write(const InstructionHit& h) { return toJson(h); }
};

} // namespace engram::protocol
