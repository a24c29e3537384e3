// JSON-RPC 2.0 messages and engram's stable error codes.
//
// The standard codes come from JSON-RPC and LSP; engram's own kinds use
// -32010..-32019 (JSON-RPC's implementation-defined range) and always carry
// their name as `data.kind` so clients need not memorise numbers.
#pragma once
#include "util/Error.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

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

// One incoming JSON-RPC message, checked by the rules both servers share
// (ARCHITECTURE.md, "One JSON-RPC front end"), in this order:
//   not an object                         InvalidRequest, id null
//   no method, but a result or an error   a response (kind Response)
//   an id that is not a string or integer InvalidRequest, id null
//   no method, or not a string            InvalidRequest
//   jsonrpc not "2.0"                     InvalidRequest
//   params not an object, array or null   InvalidRequest
// A notification that fails a check gets no reply (there is no id to answer
// with); everything else that fails gets its error reply, with the id when
// the id itself is usable. An empty params array is no params: some
// clients (Neovim's, from an empty Lua table) send one for "none", and
// every engram method takes named parameters.
struct Incoming {
    enum class Kind { Request, Notification, Response };
    Kind kind = Kind::Request;
    json id;            // null for a notification
    std::string method; // empty for a response
    json params;        // an object, an array or null
};
struct Checked {
    std::optional<Incoming> message; // the message, when it passed
    std::optional<json> reply;       // the error reply to send, when it did not
};
Checked checkMessage(json msg);
// A message's text parsed (the step before checkMessage). Text that is not
// JSON (truncated, invalid UTF-8, a lone surrogate escape as JSON.stringify
// writes for a broken emoji, a number too large for a double) gets the
// ParseError reply instead, naming the problem, with the request's id when
// the text shows one: a reply with id null matches no call, and the client
// waiting for it would hang until its own timeout.
struct Parsed {
    std::optional<json> message;
    std::optional<json> reply;
};
Parsed parseMessage(std::string_view text, const std::string& what = "the message");
// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string jsonProblem(const json::exception& e);
bool validId(const json& id);
// An object with no method and a result or an error.
bool isResponse(const json& msg);

} // namespace engram::protocol
