// The id of a request that cannot be parsed: too large to read (the MCP
// channel keeps only its first and last bytes), truncated, or not valid JSON
// (invalid UTF-8, a lone surrogate escape).
//
// The refusal should still reach the caller that is waiting for it: a client
// left without an answer (or given one with id null, which matches no call)
// waits for its own timeout. This finds a top-level "id" member in the head
// or the tail (JSON-RPC clients put it first, the MCP SDKs put it last).
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string_view>

namespace engram::protocol {

// The request's id (a string or an integer) when the head or the tail shows
// it as a member of the top-level object; nullopt otherwise.
std::optional<nlohmann::json> sniffRequestId(std::string_view head, std::string_view tail);

} // namespace engram::protocol
