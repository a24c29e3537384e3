// JSON-RPC reply construction.
#include "protocol/JsonRpc.h"

#include "protocol/IdSniff.h"
#include "secrets/SecretScan.h"

namespace engram::protocol {

int codeFor(ErrorKind k) {
    switch (k) {
    case ErrorKind::InvalidParams:
        return code::InvalidParams;
    case ErrorKind::NotBound:
        return code::NotBound;
    case ErrorKind::WouldDowngrade:
        return code::WouldDowngrade;
    case ErrorKind::SecretDetected:
        return code::SecretDetected;
    case ErrorKind::AnchorNotFound:
        return code::AnchorNotFound;
    case ErrorKind::OutsideRoot:
        return code::OutsideRoot;
    case ErrorKind::UnknownClaim:
        return code::UnknownClaim;
    case ErrorKind::InvalidClaimFile:
        return code::InvalidClaimFile;
    case ErrorKind::AmbiguousRoot:
        return code::AmbiguousRoot;
    case ErrorKind::IndexUnavailable:
        return code::IndexUnavailable;
    case ErrorKind::LabelCollision:
        return code::LabelCollision;
    case ErrorKind::Storage:
        return code::Storage;
    case ErrorKind::Internal:
        return code::InternalError;
    }
    return code::InternalError;
}

// An error quotes what the caller sent (an id, a path, a symbol): a secret
// in it is redacted, so a refusal never echoes one (invariant 6).
json errorReply(const json& id, int c, const std::string& kind, const std::string& message,
                json data) {
    if (!data.is_object()) data = json::object();
    for (auto& [key, value] : data.items())
        if (value.is_string()) value = secrets::redacted(value.get<std::string>());
    data["kind"] = kind;
    return {{"jsonrpc", "2.0"},
            {"id", id},
            {"error",
             {{"code", c}, {"message", secrets::redacted(message)}, {"data", std::move(data)}}}};
}

json errorReply(const json& id, const EngramError& e) {
    json data = json::object();
    for (auto& [k, v] : e.details)
        std::visit([&, key = k](auto&& x) { data[key] = x; }, v);
    return errorReply(id, codeFor(e.kind), std::string(toString(e.kind)), e.what(),
                      std::move(data));
}

json resultReply(const json& id, json result) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json notification(const std::string& method, json params) {
    return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

bool isResponse(const json& msg) {
    return msg.is_object() && !msg.contains("method") &&
           (msg.contains("result") || msg.contains("error"));
}

bool validId(const json& id) {
    return id.is_string() || id.is_number_integer();
}

Checked checkMessage(json msg) {
    auto invalid = [](const json& id, const std::string& field, const std::string& message) {
        json data = json::object();
        if (!field.empty()) data["field"] = field;
        return Checked{std::nullopt, errorReply(id, code::InvalidRequest, "InvalidRequest", message,
                                                std::move(data))};
    };
    if (!msg.is_object()) return invalid(nullptr, "", "a JSON-RPC message must be an object");
    auto m = msg.find("method");
    if (isResponse(msg)) {
        Incoming in;
        in.kind = Incoming::Kind::Response;
        in.id = msg.value("id", json());
        return {std::move(in), std::nullopt};
    }
    auto idIt = msg.find("id");
    const bool hasId = idIt != msg.end();
    if (hasId && !validId(*idIt))
        return invalid(nullptr, "id", "id: must be a string or an integer");
    json id = hasId ? *idIt : json(nullptr);
    // Without a method there is no telling a notification from a request:
    // answered either way, with the id if there is one.
    if (m == msg.end()) return invalid(id, "method", "method: is required");
    if (!m->is_string()) return invalid(id, "method", "method: expected a string");
    auto dropped = [&](const std::string& field, const std::string& message) {
        return hasId ? invalid(id, field, message) : Checked{};
    };
    if (msg.value("jsonrpc", json()) != "2.0")
        return dropped("jsonrpc", "jsonrpc: must be \"2.0\"");
    json params = msg.contains("params") ? std::move(msg["params"]) : json(nullptr);
    if (!params.is_null() && !params.is_object() && !params.is_array())
        return dropped("params", "params: must be an object or an array");
    if (params.is_array() && params.empty()) params = nullptr;
    Incoming in;
    in.kind = hasId ? Incoming::Kind::Request : Incoming::Kind::Notification;
    in.id = std::move(id);
    in.method = m->get<std::string>();
    in.params = std::move(params);
    return {std::move(in), std::nullopt};
}

std::string jsonProblem(const json::exception& e) {
    std::string why = e.what();
    if (auto end = why.find("] "); why.rfind("[json.", 0) == 0 && end != std::string::npos)
        why.erase(0, end + 2);
    return why;
}

Parsed parseMessage(std::string_view text, const std::string& what) {
    try {
        return {json::parse(text), std::nullopt};
    } catch (const json::exception& e) {
        auto id = sniffRequestId(text, text);
        return {std::nullopt, errorReply(id.value_or(json(nullptr)), code::ParseError, "ParseError",
                                         what + " is not valid JSON: " + jsonProblem(e))};
    }
}

} // namespace engram::protocol
