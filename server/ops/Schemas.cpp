// The tools' schemas, built from a few shared pieces (claim, envelope).
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
json boolean(const char* description = nullptr) {
    return typed("boolean", description);
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

// ---- results -------------------------------------------------------------

// Where an anchor's code is now (recall rows, packet items).
json current() {
    json position =
        object({{"line", integer("0-based")}, {"character", integer("0-based, UTF-16 code units")}},
               {"line", "character"});
    return object({{"path", str("The file holding the code now (another one when it moved)")},
                   {"range", object({{"start", position}, {"end", position}}, {"start", "end"})}},
                  {"path", "range"},
                  "Where the anchored code is now, as an LSP range (recall); absent when "
                  "orphaned or ambiguous");
}

json anchorOut() {
    return object(
        {
            {"path", str("Workspace-relative file")},
            {"kind", str("Node kind (function, method, class...), file, range, or unknown")},
            {"symbol", str("Qualified symbol, e.g. TokenValidator.validate")},
            {"language", str()},
            {"range", object({{"start_line", integer()}, {"end_line", integer()}},
                             {"start_line", "end_line"}, "1-based lines when anchored")},
            {"hash", str("Digest of the anchored code's syntax")},
            {"rules", integer("The version of the digest rules that stamped it; absent when "
                              "an engram from before versions wrote it")},
            {"state", oneOf(kAnchorStates, "This anchor's state now (get, reverify, recall)")},
            {"not_judged", str("Unjudged: why engram could not judge it (file_too_large, "
                               "no_grammar, earlier_rules...)")},
            {"current", current()},
        },
        {"path", "kind"});
}

json claimProperties() {
    return {
        {"id", str("Stable across versions: pass it to get, reverify, retract, learn")},
        {"version", integer()},
        {"label", either("string", "null", "Short name, unique among live claims of a store")},
        {"text", str()},
        {"kind", str("fact, decision, convention, gotcha, preference, todo (or unknown)")},
        {"status", oneOf({"committed", "frontier", "retracted", "superseded"})},
        {"confidence", either("number", "string", "In [0, 1], or \"unknown\"")},
        {"created", str("UTC, or \"unknown\"")},
        {"source_agent", str("Who wrote it, or \"unknown\"")},
        {"origin", str("The store it was born in, or \"unknown\"")},
        {"tags", arrayOf(str())},
        {"anchors", arrayOf(anchorOut())},
        {"evidence", arrayOf(object({{"type", str()}, {"value", str()}}, {"type", "value"}))},
        {"feedback", object({{"correct", integer()},
                             {"wrong", integer()},
                             {"partial", integer()},
                             {"contested", boolean("More wrong than correct verdicts")}},
                            {"correct", "wrong", "partial", "contested"})},
        {"updated", str()},
        {"verified", str("When the anchors were last re-verified")},
        {"supersedes", str()},
        {"retracted_by", str()},
        {"retract_reason", str()},
        {"force_reason", str()},
        {"origin_claim", str("On a medulla copy: the project claim it was promoted from")},
        {"promoted_by", str()},
        {"promoted", str("When it was promoted (UTC)")},
        {"promotion_reason", str()},
        {"promoted_to", str("On a project claim: the id of its medulla copy")},
        {"contribution_id", str("On a sub-agent's finding: its contribution (k-...)")},
        {"contributed_by", str()},
        {"accepted_by", str()},
        {"packet_id", str("The packet the finding was delegated with")},
        {"content_hash", str()},
        {"diverged",
         arrayOf(typed("object", "Another version of the claim, with its key"),
                 "Versions a merge kept beside this one (two branches each wrote the claim): "
                 "engram resolve decides")},
        {"key", str("This version's key, when versions diverged")},
        {"unmerged", boolean("The claim file still holds git's conflict markers")},
    };
}

const Names kClaimRequired = {"id",     "version",    "label",    "text",         "kind",
                              "status", "confidence", "created",  "source_agent", "origin",
                              "tags",   "anchors",    "evidence", "feedback"};

json claim(const char* description = nullptr) {
    return object(claimProperties(), kClaimRequired, description);
}

// A claim with extra members (a recall row, get's claim).
json claimWith(json extra, const Names& extraRequired) {
    json props = claimProperties();
    for (auto& [k, v] : extra.items())
        props[k] = v;
    Names required = kClaimRequired;
    required.insert(required.end(), extraRequired.begin(), extraRequired.end());
    return object(std::move(props), required);
}

json claimWithHistory() {
    json anchors = arrayOf(anchorOut());
    anchors["items"]["required"].push_back("state");
    json c = claimWith({{"tier", str()},
                        {"file", str("The claim file")},
                        {"anchor_state", oneOf(kAnchorStates)},
                        {"anchors", std::move(anchors)}},
                       {"tier", "file", "anchor_state"});
    return object(
        {{"claim", std::move(c)}, {"history", arrayOf(claim(), "Earlier versions, oldest first")}},
        {"claim", "history"});
}

} // namespace

json rootProperty() {
    return str("The workspace root this call is about (a path or file:// URI, anywhere inside "
               "it). Needed only when the client shares several roots; recall and status "
               "report a root that is not the bound one in envelope.binding");
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

json getOutput() {
    return claimWithHistory();
}

json packetSchema() {
    json item = object({{"id", str()},
                        {"version", integer()},
                        {"text", str()},
                        {"kind", str()},
                        {"tier", str("project or medulla (never another project)")},
                        {"origin", str()},
                        {"source_agent", str()},
                        {"anchor_state", oneOf(kAnchorStates)},
                        {"anchors", arrayOf(str(), "path#symbol, path:START-END or path")},
                        {"current", arrayOf(either("object", "null"),
                                            "Per anchor, where its code is now ({path, range}, "
                                            "an LSP range), or null when orphaned")},
                        {"score", typed("number", nullptr)},
                        {"why", arrayOf(str())}},
                       {"id", "version", "text", "tier", "anchor_state", "score"});
    json packet =
        object({{"packet_id", str("SHA-256 of the canonical packet; give it to contribute")},
                {"created_at", str()},
                {"binding", typed("object", "Root, fingerprint, git HEAD and dirty flag")},
                {"items", arrayOf(std::move(item), "Ordered by score, then id")},
                {"honest_gaps", typed("object", "Claims left out (drifted, orphaned, frontier, "
                                                "retracted), counted")},
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

json claimSchema(const char* description) {
    return claim(description);
}

} // namespace engram::ops::schema
