// The schemas still written by hand: an instruction file's paragraph and a
// delegation packet, whose JSON is built by hand too (protocol/Convert,
// protocol/Packet); and the `root` every tool takes.
#include "ops/Schemas.h"

#include "model/Claim.h"

#include <string>
#include <vector>

namespace engram::ops::schema {

namespace {

using Names = std::vector<std::string>;

json typed(const char* type, const char* description) {
    json j = {{"type", type}};
    if (description) j["description"] = description;
    return j;
}
json str(const char* description = nullptr) {
    return typed("string", description);
}
json integer(const char* description = nullptr) {
    return typed("integer", description);
}
json either(const char* a, const char* b, const char* description = nullptr) {
    json j = {{"type", json::array({a, b})}};
    if (description) j["description"] = description;
    return j;
}
json oneOf(const Names& values, const char* description = nullptr) {
    json j = {{"type", "string"}, {"enum", values}};
    if (description) j["description"] = description;
    return j;
}
json arrayOf(json items, const char* description = nullptr) {
    json j = {{"type", "array"}, {"items", std::move(items)}};
    if (description) j["description"] = description;
    return j;
}
json object(json properties, const Names& required, const char* description = nullptr) {
    json j = {{"type", "object"}, {"properties", std::move(properties)}};
    if (!required.empty()) j["required"] = required;
    if (description) j["description"] = description;
    return j;
}

const Names kAnchorStates = spellings<AnchorState>();

// A value's JSON Schema type (integer before number, as schemas say it).
std::string schemaType(const json& v) {
    if (v.is_number_integer()) return "integer";
    if (v.is_number()) return "number";
    if (v.is_boolean()) return "boolean";
    if (v.is_null()) return "null";
    return v.is_string() ? "string" : v.is_array() ? "array" : "object";
}

// ---- results -------------------------------------------------------------

} // namespace

std::optional<std::pair<std::string, std::string>>
unknownMember(const json& value, const json& schema, const std::string& at) {
    if (!schema.is_object()) return std::nullopt;
    // Alternatives (an anchor as text or as an object): judged by the one
    // of the value's own type.
    if (auto any = schema.find("anyOf"); any != schema.end() && any->is_array()) {
        for (auto& branch : *any)
            if (branch.value("type", "") == schemaType(value))
                return unknownMember(value, branch, at);
        return std::nullopt;
    }
    if (value.is_array() && schema.contains("items")) {
        for (size_t i = 0; i < value.size(); ++i)
            if (auto u =
                    unknownMember(value[i], schema["items"], at + "[" + std::to_string(i) + "]"))
                return u;
        return std::nullopt;
    }
    // Only objects whose members the schema lists are judged: one that
    // lists none is free-form.
    if (!value.is_object() || !schema.contains("properties")) return std::nullopt;
    const json& props = schema["properties"];
    for (auto& [key, member] : value.items()) {
        std::string path = at.empty() ? key : at + "." + key;
        if (!props.contains(key)) {
            std::string names;
            for (auto& [name, _] : props.items())
                names += (names.empty() ? "" : ", ") + name;
            return std::pair{path, "is not an argument here (it takes " + names + ")"};
        }
        if (auto u = unknownMember(member, props[key], path)) return u;
    }
    return std::nullopt;
}

json rootProperty() {
    // In every tool's schema: said in the fewest words (the server's
    // instructions say the rest once).
    return str("The workspace root (a path or file:// URI inside it), when the client shares "
               "several");
}

json instructionHit() {
    return object(
        {{"source", oneOf({"instruction_file"}, "Not a claim: a paragraph of an instruction file")},
         {"file", str("The instruction file, workspace-relative")},
         {"line", integer("First line, 1-based")},
         {"end_line", integer("Last line, 1-based")},
         {"heading", str("The heading it is under")},
         {"text", str()},
         {"score", typed("number", nullptr)},
         {"references",
          arrayOf(object({{"reference", str("As written")},
                          {"state",
                           oneOf({"ok", "dangling", "drifted", "moved", "ambiguous", "unjudged"},
                                 "Whether the code it names still is as the line "
                                 "says")}},
                         {"reference", "state"}),
                  "The code references in the paragraph")}},
        {"source", "file", "line", "end_line", "heading", "text", "score", "references"});
}

json packetSchema() {
    json item = object(
        {{"id", str()},
         {"version", integer()},
         {"text", str()},
         {"kind", str()},
         {"tier", str("project or medulla (never another project)")},
         {"origin", str()},
         {"source_agent", str()},
         {"anchor_state", oneOf(kAnchorStates)},
         {"anchors", arrayOf(str(), "path#symbol, path:START-END or path")},
         {"current",
          arrayOf(either("object", "null"), "Per anchor, where its code is now ({path, range}, "
                                            "an LSP range), or null when orphaned")},
         {"score", typed("number", nullptr)},
         {"why", arrayOf(str())},
         {"unverified", typed("boolean", "True when its anchored code changed since it was "
                                         "written (drifted): check it before relying on it")},
         {"near_duplicates",
          arrayOf(str(), "Live claims saying nearly the same, folded into this item")}},
        {"id", "version", "text", "tier", "anchor_state", "score"});
    json packet =
        object({{"packet_id", str("SHA-256 of the canonical packet; give it to contribute")},
                {"created_at", str()},
                {"binding", typed("object", "Root, fingerprint, git HEAD and dirty flag")},
                {"items", arrayOf(std::move(item), "Ordered by score, then id")},
                {"honest_gaps",
                 json{{"type", "object"},
                      {"description", "Claims left out, by reason (orphaned, frontier, "
                                      "retracted): how many, and the first ids"},
                      {"additionalProperties",
                       object({{"count", integer()}, {"ids", arrayOf(str())}}, {"count", "ids"})}}},
                {"limits", typed("object", nullptr)},
                {"metrics", typed("object", nullptr)},
                {"instructions", arrayOf(str())},
                {"instruction_files",
                 arrayOf(instructionHit(), "Paragraphs of the instruction files that match the "
                                           "task, with their references' states: not claims")},
                {"non_claims", arrayOf(str())},
                {"signature", typed("object", "Ed25519, when sign was asked for")}},
               {"packet_id", "created_at", "binding", "items", "honest_gaps", "limits", "metrics"});
    return packet;
}

json instructionHitSchema() {
    return instructionHit();
}

} // namespace engram::ops::schema
