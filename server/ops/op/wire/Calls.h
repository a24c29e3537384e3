// What callers send that several operations take: an anchor as a caller
// names it and evidence (remember, contribute).
#pragma once
#include "model/Requests.h"
#include "protocol/Shape.h"
#include "util/Paths.h"

#include <charconv>
#include <string_view>

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

inline std::optional<int> wholeNumber(std::string_view s) {
    int out = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return out;
}

// An anchor as the README writes it, in every surface (the CLI's --anchor,
// an agent's call): PATH#SYMBOL, PATH:LINE, PATH:START-END (1-based lines,
// as people count them) or PATH alone.
inline AnchorSpec anchorFromText(const std::string& v, const std::string& at) {
    AnchorSpec a;
    if (auto hash = v.find('#'); hash != std::string::npos) {
        a.path = v.substr(0, hash);
        a.symbol = v.substr(hash + 1);
        if (a.path.empty() || a.symbol->empty())
            throw invalidField(at, "'" + v + "': expected PATH#SYMBOL");
        return a;
    }
    a.path = v;
    auto colon = v.rfind(':');
    if (colon == std::string::npos || colon + 1 == v.size()) return a;
    std::string spec = v.substr(colon + 1);
    if (spec.find_first_not_of("0123456789-") != std::string::npos) return a;
    auto dash = spec.find('-');
    auto first = wholeNumber(std::string_view(spec).substr(0, dash));
    auto last =
        dash == std::string::npos ? first : wholeNumber(std::string_view(spec).substr(dash + 1));
    if (!first || !last || *first < 1 || *last < *first || colon == 0)
        throw invalidField(at,
                           "'" + v + "': expected PATH:LINE or PATH:START-END with 1-based lines");
    a.path = v.substr(0, colon);
    if (dash == std::string::npos)
        a.line = *first;
    else
        a.lines = std::pair{*first, *last};
    return a;
}

} // namespace detail

// Where a claim should point, as a caller names it (remember, contribute):
// the README's text form (detail::anchorFromText), or an object: a file by
// path or URI, and in it a symbol, an LSP position or a line range.
// Written by hand: its members come in alternatives the schema says with
// anyOf and oneOf, and a position's 0-based line becomes the engine's
// 1-based one.
template <>
struct Wire<AnchorSpec> {
    // The text form's description: the MCP listing shows this form alone
    // (mcp::listedSchema keeps an anyOf's first branch).
    static constexpr const char* kTextForm =
        "path, path#Symbol.name, path:LINE or path:START-END (1-based lines)";

    static json schema(Side = Side::Input) {
        json object = objectForm();
        json described = object["description"];
        object.erase("description");
        return {{"anyOf", {{{"type", "string"}, {"description", kTextForm}}, std::move(object)}},
                {"description", std::move(described)}};
    }

    static json objectForm() {
        using detail::described;
        json integer = {{"type", "integer"}};
        json text = {{"type", "string"}};
        json line = {{"type", "object"},
                     {"properties", {{"line", described(integer, "0-based line (LSP)")}}},
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
                          {{"line", described(integer, "0-based line (LSP)")},
                           {"character", described(integer, "0-based, UTF-16 code units")}}},
                         {"required", {"line"}},
                         {"description", "An LSP position (0-based): the innermost definition "
                                         "around it"}};
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
        if (j.is_string()) return detail::anchorFromText(j.get<std::string>(), path);
        if (!j.is_object())
            throw invalidField(path, std::string("expected a string (") + kTextForm +
                                         ") or an object, got " + typeName(j));
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

} // namespace engram::protocol
