// The on-disk text form of one claim.
//
// A claim file is what people review in pull requests, so it is plain text:
// a header of `key: value` lines between `---` fences, then the claim text.
// Writing is deterministic (fixed field order, fixed number formatting) so a
// change to one field is a one-line git diff. Reading is tolerant: unknown keys
// are kept aside, missing provenance stays unknown, and a broken file is
// reported with the line that broke it rather than silently skipped.
#pragma once
#include "model/Claim.h"

#include <stdexcept>
#include <string>
#include <string_view>

namespace engram {

struct ClaimFileError : std::runtime_error {
    ClaimFileError(int line, const std::string& msg)
        : std::runtime_error("line " + std::to_string(line) + ": " + msg)
        , line(line) {}
    int line;
};

// A claim file is its text (at most 16 KiB), a header and the heads a merge
// kept: far below this. A larger one is reported, not read whole.
inline constexpr size_t kMaxClaimFileBytes = 1 << 20;

std::string serializeClaim(const Claim& c);
// `expectedId` (from the file name) fills a missing `id:` and must match a
// present one. Throws ClaimFileError naming the line.
Claim parseClaim(std::string_view contents, std::string_view expectedId);

// Header value escaping: a value is one line, so `\` and line breaks are
// escaped. Exposed for the audit log, which uses the same convention.
std::string escapeValue(std::string_view v);
std::string unescapeValue(std::string_view v);
std::string formatConfidence(double c);
// One anchor as the `anchor:` header value (`path=... symbol=... hash=...`).
std::string formatAnchor(const Anchor& a);
Anchor parseAnchor(std::string_view spec); // throws ClaimFileError (line 0)

} // namespace engram
