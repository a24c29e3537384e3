// Error kind names (stable: clients match on them).
#include "util/Error.h"

namespace engram {

std::string_view toString(ErrorKind k) {
    switch (k) {
    case ErrorKind::InvalidParams:
        return "InvalidParams";
    case ErrorKind::NotBound:
        return "NotBound";
    case ErrorKind::WouldDowngrade:
        return "WouldDowngrade";
    case ErrorKind::SecretDetected:
        return "SecretDetected";
    case ErrorKind::AnchorNotFound:
        return "AnchorNotFound";
    case ErrorKind::OutsideRoot:
        return "OutsideRoot";
    case ErrorKind::UnknownClaim:
        return "UnknownClaim";
    case ErrorKind::InvalidClaimFile:
        return "InvalidClaimFile";
    case ErrorKind::AmbiguousRoot:
        return "AmbiguousRoot";
    case ErrorKind::IndexUnavailable:
        return "IndexUnavailable";
    case ErrorKind::LabelCollision:
        return "LabelCollision";
    case ErrorKind::Storage:
        return "StorageError";
    case ErrorKind::Internal:
        return "InternalError";
    }
    return "InternalError";
}

EngramError invalidField(const std::string& field, const std::string& problem) {
    return EngramError(ErrorKind::InvalidParams, field + ": " + problem,
                       {{"field", std::string(field)}});
}

} // namespace engram
