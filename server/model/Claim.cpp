// Names of claim statuses and kinds as they appear in files and on the wire.
#include "model/Claim.h"

namespace engram {

std::string_view toString(ClaimStatus s) {
    switch (s) {
    case ClaimStatus::Committed:
        return "committed";
    case ClaimStatus::Frontier:
        return "frontier";
    case ClaimStatus::Retracted:
        return "retracted";
    case ClaimStatus::Superseded:
        return "superseded";
    }
    return "committed";
}

std::optional<ClaimStatus> parseStatus(std::string_view s) {
    if (s == "committed") return ClaimStatus::Committed;
    if (s == "frontier") return ClaimStatus::Frontier;
    if (s == "retracted") return ClaimStatus::Retracted;
    if (s == "superseded") return ClaimStatus::Superseded;
    return std::nullopt;
}

bool isKnownKind(std::string_view kind) {
    for (auto k : kClaimKinds)
        if (k == kind) return true;
    return false;
}

} // namespace engram
