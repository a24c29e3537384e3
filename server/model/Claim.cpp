// A claim's provenance in words.
#include "model/Claim.h"

#include "util/Time.h"

namespace engram {

static std::string day(const std::optional<int64_t>& t) {
    return t ? formatUtc(*t).substr(0, 10) : std::string("an unknown date");
}

std::string provenanceChain(const Claim& c) {
    // Origins read "project:<name>" or "medulla" (Store::originLabel).
    std::string_view where = c.origin;
    if (where.starts_with("project:")) where.remove_prefix(8);
    std::string out = c.origin == "medulla" ? "written in the medulla"
                      : where.empty()       ? "learned in an unknown store"
                                            : "learned in " + std::string(where);
    out += " by " + (c.sourceAgent.empty() ? std::string("an unknown agent") : c.sourceAgent);
    out += " on " + day(c.created);
    if (!c.promotedBy.empty()) {
        out += "; promoted by " + c.promotedBy + " on " + day(c.promoted);
        if (!c.promotionReason.empty()) out += ": " + c.promotionReason;
    }
    if (c.version > 1) out += "; version " + std::to_string(c.version);
    if (c.verified) out += "; re-verified on " + day(c.verified);
    if (!c.promotedTo.empty()) out += "; copied to the medulla as " + c.promotedTo;
    return out;
}

} // namespace engram
