// SecretScan: detects credentials and merge-conflict debris in claim text before it is stored.
//
// Claims end up committed to git, where a leaked secret is effectively published forever, so
// the write path asks this scanner first and refuses on any hit or on any failure to finish
// (fail closed). Every detector runs in time linear in the text: RE2 for the documented token
// shapes, hand-written bounded scanners for the rest (std::regex backtracks, and recurses deeply
// enough to overflow the stack on long adversarial input).
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace engram::secrets {

struct Hit {
    // Stable rule id (part of the protocol), one of rules(): "private-key", "github-token",
    // "url-password", "password-assignment", "high-entropy-token", ...
    std::string rule;
    std::size_t begin; // byte span [begin, end) in the scanned text
    std::size_t end;
    // Human words for the rule; never the matched text, so it is safe to log and return.
    std::string description;
};

struct RuleInfo {
    std::string_view id;
    std::string_view description;
};

// Every rule, most specific first: the order in which overlapping hits are resolved.
std::span<const RuleInfo> rules();

// Thrown when the scanner cannot complete (input over 1 MiB, internal error). Callers must
// refuse the write: an unscanned text is treated as a secret.
struct ScanFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// All hits in text, ordered by begin. Where hits of different rules overlap, only the more
// specific rule is kept (a ghp_ token is "github-token", not also "high-entropy-token").
std::vector<Hit> scan(std::string_view text);

// text with every hit's span replaced by "[REDACTED:<rule>]". Overlapping or out-of-range spans
// are tolerated (merged and clamped) so a redaction never leaves part of a secret behind.
std::string redact(std::string_view text, const std::vector<Hit>& hits);

// text with every secret in it redacted: what engram says back (an error
// quoting the value a caller sent) never echoes one. Text the scanner cannot
// finish is withheld whole.
std::string redacted(std::string_view text);

} // namespace engram::secrets
