// The id of a request too large to parse.
//
// A line over the size limit is refused without being buffered, but the
// refusal should still reach the caller that is waiting for it: a client
// left without an answer waits for its own timeout. The channel keeps the
// line's first and last bytes; this finds a top-level "id" member in either
// (JSON-RPC clients put it first, the MCP SDKs put it last).
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string_view>

namespace engram::mcp {

// The request's id (a string or an integer) when the head or the tail shows
// it as a member of the top-level object; nullopt otherwise.
std::optional<nlohmann::json> sniffRequestId(std::string_view head, std::string_view tail);

} // namespace engram::mcp
