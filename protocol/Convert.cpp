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

} // namespace engram::protocol
