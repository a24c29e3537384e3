// JSON-RPC reply construction.
#include "protocol/JsonRpc.h"

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

} // namespace engram::protocol
