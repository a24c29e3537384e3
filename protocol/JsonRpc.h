// JSON-RPC 2.0 messages and engram's stable error codes.
//
// The standard codes come from JSON-RPC and LSP; engram's own kinds use
// -32010..-32019 (JSON-RPC's implementation-defined range) and always carry
// their name as `data.kind` so clients need not memorise numbers.
#pragma once
#include "model/Error.h"

#include <nlohmann/json.hpp>
#include <string>

namespace engram::protocol {

using json = nlohmann::json;

namespace code {
inline constexpr int ParseError = -32700;
inline constexpr int InvalidRequest = -32600;
inline constexpr int MethodNotFound = -32601;
inline constexpr int InvalidParams = -32602;
inline constexpr int InternalError = -32603;
inline constexpr int ServerNotInitialized = -32002;
inline constexpr int RequestCancelled = -32800;
inline constexpr int NotBound = -32010;
inline constexpr int WouldDowngrade = -32011;
inline constexpr int SecretDetected = -32012;
inline constexpr int AnchorNotFound = -32013;
inline constexpr int OutsideRoot = -32014;
inline constexpr int UnknownClaim = -32015;
inline constexpr int InvalidClaimFile = -32016;
inline constexpr int AmbiguousRoot = -32017;
inline constexpr int IndexUnavailable = -32018;
inline constexpr int LabelCollision = -32019;
inline constexpr int Storage = -32020;
} // namespace code

int codeFor(ErrorKind k);

// A complete error reply: {"jsonrpc","id","error":{code,message,data:{kind,...}}}.
json errorReply(const json& id, int code, const std::string& kind, const std::string& message,
                json data = json::object());
json errorReply(const json& id, const EngramError& e);
json resultReply(const json& id, json result);
json notification(const std::string& method, json params);

} // namespace engram::protocol
