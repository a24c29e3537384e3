// The readable text of each tool result, for the model to read.
//
// Many clients show a model only a result's `content`, so the text carries
// everything an agent acts on (ids, anchor states, staleness, authorship,
// and why an empty answer is empty), in fewer tokens than the JSON. Each
// rendering reads the tool's structured result, so text and structure can
// never disagree.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace engram::ops::render {

using json = nlohmann::json;

// Pieces the renderings share (and an operation's own file may use).
// A member, or null when absent; a member as text (empty when absent);
// ` "label"` or nothing; a claim's verdict counts in words.
const json& member(const json& j, const char* key);
std::string field(const json& j, const char* key);
std::string quoted(const std::string& s);
std::string feedbackText(const json& f);

std::string remember(const json& r);
std::string recall(const json& r);
std::string get(const json& r);
std::string anchors(const json& r);
std::string check(const json& r);
std::string status(const json& r);
std::string delegate(const json& r);
std::string verifyPacket(const json& r);
std::string contribute(const json& r);

} // namespace engram::ops::render
