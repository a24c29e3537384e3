// Conversion between engram's plain structs and their JSON wire form.
//
// Parsing is strict about types and names the offending field path in its
// InvalidParams error ("anchors[1].path: expected a string"); unknown fields
// are ignored so newer clients can talk to older servers. Output uses the
// wire's snake_case names, and every provenance field that is unknown says
// "unknown" rather than disappearing (invariant 4).
#pragma once
#include "index/Index.h"
#include "model/Requests.h"
#include "protocol/JsonRpc.h"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace engram::protocol {

// While a ReadLog lives on a thread, every member a Params on that thread
// looks up is noted by its path ("anchors[0].path"), present or not. The
// schema test compares what each operation's parser looks at with what its
// schema declares (tests/unit/SchemaDriftTest.cpp); outside a test no log
// exists and a lookup costs one thread-local load more.
class ReadLog {
public:
    ReadLog();
    ~ReadLog();
    ReadLog(const ReadLog&) = delete;
    ReadLog& operator=(const ReadLog&) = delete;
    const std::set<std::string>& paths() const { return paths_; }
    static void note(const std::string& path);

private:
    std::set<std::string> paths_;
    ReadLog* outer_;
};

// "a string", "an array"...: what a value is, for errors.
const char* typeName(const json& j);

// Typed, path-aware access to one JSON object of parameters.
class Params {
public:
    explicit Params(const json& j, std::string path = "");
    std::optional<std::string> optString(const char* key) const;
    std::string reqString(const char* key) const;
    std::optional<double> optNumber(const char* key) const;
    std::optional<int> optInt(const char* key) const;
    std::optional<bool> optBool(const char* key) const;
    std::vector<std::string> optStrings(const char* key) const;
    // The nested object/array or nullptr when absent; throws when mistyped.
    const json* optObject(const char* key) const;
    const json* optArray(const char* key) const;
    // The member as it is, nullptr when absent or null (noted like the rest).
    const json* optValue(const char* key) const { return lookup(key); }
    std::string field(const std::string& key) const {
        return path_.empty() ? key : path_ + "." + key;
    }

private:
    const json* lookup(const char* key) const;

    const json& j_;
    std::string path_;
};

// Where an anchor's code is now, in a packet item: {path, range} (an LSP
// range), or null when it has no place (orphaned, or ambiguous).
json currentJson(const AnchorPlace& p);

json toJson(const InstructionHit& h);
// An LSP range ({start, end}, each {line, character}) from a range whose
// columns already count UTF-16 code units...
json lspRange(const TextRange& utf16);
// ...or from byte columns, converted against the text they index.
json lspRange(std::string_view text, const TextRange& bytes);

} // namespace engram::protocol
