// JSON conversions for engram's requests and results.
#include "protocol/Convert.h"

#include "protocol/Shape.h"
#include "store/Merge.h"
#include "util/Paths.h"
#include "util/Position.h"
#include "util/Time.h"

namespace engram::protocol {

const char* typeName(const json& j) {
    switch (j.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::boolean:
        return "a boolean";
    case json::value_t::string:
        return "a string";
    case json::value_t::array:
        return "an array";
    case json::value_t::object:
        return "an object";
    case json::value_t::discarded:
        return "nothing";
    default:
        return "a number";
    }
}

Params::Params(const json& j, std::string path)
    : j_(j)
    , path_(std::move(path)) {
    if (!j_.is_object() && !j_.is_null())
        throw invalidField(path_.empty() ? "params" : path_,
                           std::string("expected an object, got ") + typeName(j_));
}

static const json* member(const json& j, const char* key) {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

static thread_local ReadLog* tlReadLog = nullptr;

ReadLog::ReadLog()
    : outer_(tlReadLog) {
    tlReadLog = this;
}

ReadLog::~ReadLog() {
    tlReadLog = outer_;
}

void ReadLog::note(const std::string& path) {
    if (tlReadLog) tlReadLog->paths_.insert(path);
}

const json* Params::lookup(const char* key) const {
    if (tlReadLog) ReadLog::note(field(key));
    return member(j_, key);
}

// The typed reads go through the wire shapes' own (protocol/Shape.h): one
// implementation of each type's check and message.
template <class M>
static std::optional<M> readMember(const json* v, const std::string& field) {
    if (!v) return std::nullopt;
    return Wire<M>::read(*v, field);
}

std::optional<std::string> Params::optString(const char* key) const {
    return readMember<std::string>(lookup(key), field(key));
}

std::string Params::reqString(const char* key) const {
    auto v = optString(key);
    if (!v) throw invalidField(field(key), "is required");
    return *v;
}

std::optional<double> Params::optNumber(const char* key) const {
    return readMember<double>(lookup(key), field(key));
}

std::optional<int> Params::optInt(const char* key) const {
    return readMember<int>(lookup(key), field(key));
}

std::optional<bool> Params::optBool(const char* key) const {
    return readMember<bool>(lookup(key), field(key));
}

const json* Params::optObject(const char* key) const {
    const json* v = lookup(key);
    if (v && !v->is_object())
        throw invalidField(field(key), std::string("expected an object, got ") + typeName(*v));
    return v;
}

const json* Params::optArray(const char* key) const {
    const json* v = lookup(key);
    if (v && !v->is_array())
        throw invalidField(field(key), std::string("expected an array, got ") + typeName(*v));
    return v;
}

std::vector<std::string> Params::optStrings(const char* key) const {
    const json* v = lookup(key);
    return v ? Wire<std::vector<std::string>>::read(*v, field(key)) : std::vector<std::string>{};
}

static json orUnknown(const std::string& s) {
    return s.empty() ? json("unknown") : json(s);
}

json toJson(const Claim& c) {
    json anchors = json::array();
    for (auto& a : c.anchors) {
        json j = {{"path", a.path}, {"kind", a.nodeKind.empty() ? "unknown" : a.nodeKind}};
        if (!a.symbol.empty()) j["symbol"] = a.symbol;
        if (!a.language.empty()) j["language"] = a.language;
        if (a.startLine > 0) j["range"] = {{"start_line", a.startLine}, {"end_line", a.endLine}};
        if (!a.hash.empty()) j["hash"] = a.hash;
        if (a.rules > 0) j["rules"] = a.rules;
        anchors.push_back(std::move(j));
    }
    json evidence = json::array();
    for (auto& e : c.evidence)
        evidence.push_back({{"type", e.type}, {"value", e.value}});
    json j = {
        {"id", c.id},
        {"version", c.version},
        {"label", c.label.empty() ? json(nullptr) : json(c.label)},
        {"text", c.text},
        {"kind", orUnknown(c.kind)},
        {"status", std::string(toString(c.status))},
        {"confidence", c.confidence ? json(*c.confidence) : json("unknown")},
        {"created", c.created ? json(formatUtc(*c.created)) : json("unknown")},
        {"source_agent", orUnknown(c.sourceAgent)},
        {"origin", orUnknown(c.origin)},
        {"tags", c.tags},
        {"anchors", std::move(anchors)},
        {"evidence", std::move(evidence)},
        {"feedback",
         {{"correct", c.feedback.correct},
          {"wrong", c.feedback.wrong},
          {"partial", c.feedback.partial},
          {"contested", c.feedback.contested()}}},
    };
    if (c.updated) j["updated"] = formatUtc(*c.updated);
    if (c.verified) j["verified"] = formatUtc(*c.verified);
    if (!c.supersedes.empty()) j["supersedes"] = c.supersedes;
    if (!c.retractedBy.empty()) j["retracted_by"] = c.retractedBy;
    if (!c.retractReason.empty()) j["retract_reason"] = c.retractReason;
    if (!c.forceReason.empty()) j["force_reason"] = c.forceReason;
    if (!c.originClaim.empty()) j["origin_claim"] = c.originClaim;
    if (!c.promotedBy.empty()) j["promoted_by"] = c.promotedBy;
    if (c.promoted) j["promoted"] = formatUtc(*c.promoted);
    if (!c.promotionReason.empty()) j["promotion_reason"] = c.promotionReason;
    if (!c.promotedTo.empty()) j["promoted_to"] = c.promotedTo;
    if (!c.contributionId.empty()) j["contribution_id"] = c.contributionId;
    if (!c.contributedBy.empty()) j["contributed_by"] = c.contributedBy;
    if (!c.acceptedBy.empty()) j["accepted_by"] = c.acceptedBy;
    if (!c.packetId.empty()) j["packet_id"] = c.packetId;
    if (!c.contentHash.empty()) j["content_hash"] = c.contentHash;
    // Team memory (ARCHITECTURE.md, "Team memory"): the versions a merge kept beside this one,
    // and whether the file still holds git's conflict markers.
    if (!c.diverged.empty()) {
        json d = json::array();
        for (auto& v : c.diverged) {
            json one = toJson(v);
            one["key"] = versionKey(v);
            d.push_back(std::move(one));
        }
        j["diverged"] = std::move(d);
        j["key"] = versionKey(c);
    }
    if (c.unmerged) j["unmerged"] = true;
    return j;
}

json lspRange(const TextRange& r) {
    return {{"start", {{"line", r.startLine}, {"character", r.startColumn}}},
            {"end", {{"line", r.endLine}, {"character", r.endColumn}}}};
}

json lspRange(std::string_view text, const TextRange& r) {
    return lspRange(TextRange{r.startLine, utf16Column(text, r.startLine, r.startColumn), r.endLine,
                              utf16Column(text, r.endLine, r.endColumn)});
}

json currentJson(const AnchorPlace& p) {
    if (!p.range || p.path.empty()) return nullptr;
    return {{"path", p.path}, {"range", lspRange(*p.range)}};
}

json toJson(const InstructionHit& h) {
    json refs = json::array();
    for (auto& [written, state] : h.references)
        refs.push_back({{"reference", written}, {"state", state}});
    return {{"source", "instruction_file"},
            {"file", h.file},
            {"line", h.line},
            {"end_line", h.endLine},
            {"heading", h.heading},
            {"text", h.text},
            {"score", h.score},
            {"references", refs}};
}

json toJson(const GetResult& r) {
    json history = json::array();
    for (auto& h : r.history)
        history.push_back(toJson(h));
    json j = toJson(r.claim);
    j["tier"] = r.tier;
    j["file"] = r.file;
    j["anchor_state"] = r.anchorState;
    for (size_t i = 0; i < r.anchorStates.size() && i < j["anchors"].size(); ++i)
        j["anchors"][i]["state"] = r.anchorStates[i];
    for (size_t i = 0; i < r.places.size() && i < j["anchors"].size(); ++i) {
        if (!r.places[i].reason.empty()) j["anchors"][i]["not_judged"] = r.places[i].reason;
        if (json at = currentJson(r.places[i]); !at.is_null()) j["anchors"][i]["current"] = at;
    }
    return {{"claim", j}, {"history", history}};
}

json toJson(const SyncReport& r) {
    return {{"added", r.added},
            {"updated", r.updated},
            {"removed", r.removed},
            {"broken", r.broken},
            {"rebuilt", r.rebuilt},
            {"reason", r.rebuildReason},
            {"temporaries_removed", r.temporariesRemoved}};
}

} // namespace engram::protocol
