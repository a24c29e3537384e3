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

AnchorSpec parseAnchorSpec(const json& j, const std::string& path) {
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
        // Accept both an LSP Range and engram's {start_line, end_line} (1-based).
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

std::vector<Evidence> parseEvidence(const Params& p) {
    std::vector<Evidence> out;
    if (const json* ev = p.optArray("evidence")) {
        for (size_t i = 0; i < ev->size(); ++i) {
            Params e((*ev)[i], p.field("evidence[" + std::to_string(i) + "]"));
            out.push_back({e.reqString("type"), e.reqString("value")});
        }
    }
    return out;
}

RememberRequest parseRemember(const json& params) {
    Params p(params);
    RememberRequest r;
    r.text = p.reqString("text");
    r.label = p.optString("label");
    r.kind = p.optString("kind");
    r.tags = p.optStrings("tags");
    r.confidence = p.optNumber("confidence");
    r.agent = p.reqString("agent");
    if (const json* anchors = p.optArray("anchors"))
        for (size_t i = 0; i < anchors->size(); ++i)
            r.anchors.push_back(
                parseAnchorSpec((*anchors)[i], "anchors[" + std::to_string(i) + "]"));
    r.evidence = parseEvidence(p);
    r.tier = p.optString("tier").value_or("project");
    r.forceReason = p.optString("force_reason").value_or("");
    return r;
}

RecallRequest parseRecall(const json& params) {
    Params p(params);
    RecallRequest r;
    r.query = p.optString("query");
    r.tier = p.optString("tier");
    r.path = p.optString("path");
    if (auto uri = p.optString("uri")) {
        auto local = uriToPath(*uri);
        if (!local) throw invalidField("uri", "must be a file:// URI");
        r.path = *local;
    }
    r.kinds = p.optStrings("kinds");
    for (size_t i = 0; i < r.kinds.size(); ++i)
        if (!isKnownKind(r.kinds[i]))
            throw invalidField(
                "kinds[" + std::to_string(i) + "]",
                "must be one of fact, decision, convention, gotcha, preference, todo");
    auto include = p.optStrings("include");
    for (size_t i = 0; i < include.size(); ++i) {
        auto s = parseStatus(include[i]);
        if (!s || *s == ClaimStatus::Committed)
            throw invalidField("include[" + std::to_string(i) + "]",
                               "must be frontier, retracted or superseded");
        r.include.push_back(*s);
    }
    r.limit = p.optInt("limit").value_or(10);
    r.maxChars = p.optInt("max_chars");
    r.root = p.optString("root");
    return r;
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

json toJson(const Envelope& e) {
    json stores = json::array();
    for (auto& s : e.stores) {
        json j = {{"tier", s.tier},
                  {"path", s.path},
                  {"name", s.name},
                  {"exists", s.exists},
                  {"index_ready", s.indexReady},
                  {"claims",
                   {{"committed", s.committed},
                    {"frontier", s.frontier},
                    {"retracted", s.retracted},
                    {"superseded", s.superseded}}},
                  {"anchors", s.anchors},
                  {"generation", s.generation},
                  {"broken_files", s.brokenFiles},
                  {"reconciled", s.reconciled}};
        if (!s.reconciled) j["unchecked_files"] = s.uncheckedFiles;
        if (s.readOnly) j["read_only"] = true;
        if (!s.error.empty()) j["error"] = s.error;
        stores.push_back(std::move(j));
    }
    json recovery = nullptr;
    if (!e.recovery.method.empty()) {
        json args = json::object();
        for (auto& [k, v] : e.recovery.arguments)
            args[k] = v;
        recovery = {
            {"method", e.recovery.method}, {"arguments", args}, {"reason", e.recovery.reason}};
    }
    json observed = {{"method", e.observed.method}, {"candidates", e.observed.candidates}};
    if (!e.observed.error.empty()) observed["error"] = e.observed.error;
    json out = {{"schema", e.schema},
                {"status", e.status},
                {"trust_mode", e.trustMode},
                {"observed", observed},
                {"session",
                 {{"pid", e.session.pid},
                  {"version", e.session.version},
                  {"started", formatUtc(e.session.started)}}},
                {"binding",
                 {{"root", e.binding.root},
                  {"fingerprint", e.binding.fingerprint},
                  {"source", e.binding.source},
                  {"requested_root",
                   e.binding.requestedRoot.empty() ? json(nullptr) : json(e.binding.requestedRoot)},
                  {"mismatch", e.binding.mismatch}}},
                {"store", stores},
                {"next_suggested", e.nextSuggested.empty() ? json(nullptr) : json(e.nextSuggested)},
                {"recovery", recovery},
                {"non_claims", e.nonClaims}};
    if (!e.notJudged.empty()) out["not_judged"] = toJson(e.notJudged);
    return out;
}

json toJson(const NotJudged& n) {
    return {{"total", n.total()}, {"by_reason", n.byReason}};
}

json toJson(const RememberResult& r) {
    json j = {{"claim", toJson(r.claim)}, {"tier", r.tier}};
    j["superseded"] = r.superseded ? toJson(*r.superseded) : json(nullptr);
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

json toJson(const RecallRow& r) {
    json j = toJson(r.claim);
    for (size_t i = 0; i < r.places.size() && i < j["anchors"].size(); ++i) {
        j["anchors"][i]["state"] = r.places[i].state;
        if (!r.places[i].reason.empty()) j["anchors"][i]["not_judged"] = r.places[i].reason;
        if (json at = currentJson(r.places[i]); !at.is_null()) j["anchors"][i]["current"] = at;
    }
    j["score"] = std::round(r.score * 10000.0) / 10000.0;
    j["tier"] = r.tier;
    j["store"] = r.store;
    j["provenance"] = r.provenance;
    j["stale"] = r.stale ? json(*r.stale) : json("unknown");
    j["age"] = r.ageSeconds ? json(humanAge(*r.ageSeconds)) : json("unknown");
    j["anchor_state"] = r.anchorState;
    j["why"] = r.why;
    if (!r.labelSharedWith.empty()) j["label_shared_with"] = r.labelSharedWith;
    return j;
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

json toJson(const RecallResult& r) {
    json rows = json::array();
    for (auto& row : r.rows)
        rows.push_back(toJson(row));
    // project and medulla by name; other registered projects under "other",
    // by root.
    json exists = json::object();
    for (auto& m : r.memoryExists) {
        json counts = {{"live", m.live}, {"other", m.other}};
        if (m.tier == "other")
            exists["other"][m.store] = std::move(counts);
        else
            exists[m.tier] = std::move(counts);
    }
    json unreachable = json::array();
    for (auto& u : r.unreachable)
        unreachable.push_back({{"root", u.root}, {"reason", u.reason}});
    json j = {{"rows", std::move(rows)},
              {"memory_exists", std::move(exists)},
              {"truncated", r.truncated},
              {"envelope", toJson(r.envelope)}};
    if (!r.unreachable.empty()) j["unreachable"] = std::move(unreachable);
    if (!r.whyEmpty.empty()) j["why_empty"] = r.whyEmpty;
    if (!r.instructions.empty()) {
        json hits = json::array();
        for (auto& h : r.instructions)
            hits.push_back(toJson(h));
        j["instructions"] = std::move(hits);
    }
    return j;
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
