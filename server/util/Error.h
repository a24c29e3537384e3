// The errors engram reports, as data.
//
// Each kind maps to one stable JSON-RPC code (protocol/JsonRpc.h) and its
// name travels as `data.kind`, so clients can branch on it. Details are a flat
// list of typed values so the core need not know JSON.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace engram {

enum class ErrorKind {
    InvalidParams, // a wire or CLI argument is missing or mistyped (names the field)
    NotBound,
    WouldDowngrade,
    SecretDetected,
    AnchorNotFound,
    OutsideRoot,
    UnknownClaim,
    InvalidClaimFile,
    AmbiguousRoot,
    IndexUnavailable, // the index cannot be opened (e.g. a newer schema)
    LabelCollision,   // two live claims hold the label a write names (a merge of two branches)
    Storage,          // the file system refused a write (full, read-only, failing): nothing applied
    Internal,
};

std::string_view toString(ErrorKind k);

using DetailValue = std::variant<std::string, int64_t, double>;

struct EngramError : std::runtime_error {
    EngramError(ErrorKind k, std::string message,
                std::vector<std::pair<std::string, DetailValue>> details = {})
        : std::runtime_error(std::move(message))
        , kind(k)
        , details(std::move(details)) {}
    ErrorKind kind;
    std::vector<std::pair<std::string, DetailValue>> details;
};

// Shorthand for an InvalidParams error naming the offending field path.
EngramError invalidField(const std::string& field, const std::string& problem);

} // namespace engram
