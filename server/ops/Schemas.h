// JSON Schemas of the MCP tools' arguments and results.
//
// Input schemas describe what protocol/Convert accepts (Convert stays the
// judge: it names the offending field when a call does not fit). Output
// schemas describe what Convert's toJson produces, and list only what is
// always there as required, so that fields added later keep old results
// valid; they never forbid extra members, since readers ignore unknown
// fields (invariant 4). Nothing here uses $ref: some clients hand schemas to a
// model without resolving references.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

namespace engram::ops::schema {

using json = nlohmann::json;

// The optional `root` argument every tool takes (multi-root clients).
json rootProperty();

// The first member of `value` (an agent's arguments) that `schema` does not
// declare, as "name: is not an argument (it takes a, b, c)" with the path
// (`anchors[0].symbl`), or nullopt. A typo is refused rather than ignored:
// an ignored filter answers a question the agent did not ask.
std::optional<std::pair<std::string, std::string>>
unknownMember(const json& value, const json& schema, const std::string& at = "");

// The arguments many operations share, declared once.
// Store::validId: the ids engram writes (c- and 12 base-32 digits) and those
// older files carry.
inline constexpr const char* kIdPattern = "^[a-z0-9_-]{3,64}$";
inline constexpr const char* kIdDoc = "The claim id (c-...), as recall or remember returned it";
inline constexpr const char* kAgentDoc =
    "Who acts, as tool:role (e.g. claude:maker, human:ana); defaults to the MCP client's name";

// A paragraph of an instruction file beside recall rows and packet items
// (protocol::toJson(InstructionHit)).
json instructionHitSchema();
// A delegation packet (protocol::packetJson).
json packetSchema();

} // namespace engram::ops::schema
