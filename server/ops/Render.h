// The readable text of each tool result, for the model to read.
//
// Many clients show a model only a result's `content`, so the text carries
// everything an agent acts on (ids, anchor states, staleness, authorship,
// and why an empty answer is empty), in fewer tokens than the JSON. Each
// rendering reads the tool's structured result, so text and structure can
// never disagree.
#pragma once
#include "model/Requests.h"

#include <nlohmann/json.hpp>

#include <set>
#include <string>

namespace engram::ops::render {

using json = nlohmann::json;

// While a RenderLog lives on a thread, every member a rendering reads
// through member() or field() is noted by name. A rendering reads the JSON
// by name, so a member renamed in an answer and not in its text would
// print blank: tests/unit/OperationsTest.cpp renders every operation's
// answer under a log and holds each name read to the output schema.
class RenderLog {
public:
    RenderLog();
    ~RenderLog();
    RenderLog(const RenderLog&) = delete;
    RenderLog& operator=(const RenderLog&) = delete;
    const std::set<std::string>& names() const { return names_; }
    static void note(const char* name);

private:
    std::set<std::string> names_;
    RenderLog* outer_;
};

// Pieces the renderings share (and an operation's own file may use).
// A member, or null when absent; a member as text (empty when absent);
// ` "label"` or nothing; a claim's verdict counts in words.
const json& member(const json& j, const char* key);
std::string field(const json& j, const char* key);
std::string quoted(const std::string& s);
std::string feedbackText(const json& f);
// A range (0-based, LSP; or its JSON) as people say it: "line 79",
// "lines 79-84".
std::string lineSpan(const TextRange& range);
std::string lineSpan(const json& range);

std::string remember(const json& r);
std::string recall(const json& r);
std::string get(const json& r);
std::string anchors(const json& r);
std::string check(const json& r);
std::string status(const json& r);
std::string delegate(const json& r);

} // namespace engram::ops::render
