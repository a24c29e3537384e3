// Validation shared by the engine's writes (remember, promote, contribute,
// review...): field limits, UTF-8 and single-line checks, and the secret
// scan (invariant 6). Private to engine/.
#pragma once
#include "model/Claim.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace engram {

constexpr size_t kMaxText = 16 * 1024; // a claim is a note, not a document
constexpr size_t kMaxLabel = 120;
constexpr size_t kMaxShort = 200; // agent, tag, reason lines

std::string trimmed(const std::string& s);
// InvalidParams naming the field unless v is valid UTF-8.
void checkUtf8(const std::string& field, const std::string& v);
// Valid UTF-8, at most max bytes, one line, and (when required) not blank.
constexpr size_t kMaxEvidence = 32; // items on one claim; with kMaxText each, well inside a file

// One evidence item: its type, and a value of at most kMaxText bytes.
void checkEvidence(const std::string& field, const Evidence& e);
// Free text of several lines (a verdict's or a re-verification's note): it
// lands in the claim's audit entry, whose lines are bounded.
void checkText(const std::string& field, const std::string& v, size_t max = kMaxText);
void checkLine(const std::string& field, const std::string& v, size_t max, bool required = true);

// The first secret in a field, named by rule and character span, never
// echoing it. A scanner failure counts as a secret: the scan fails closed.
struct SecretFound {
    std::string field, rule;
    std::string message; // "<field>: looks like a ... (rule R, characters B-E)"
    std::optional<int64_t> start, end;
    int64_t hits = 0;
};
std::optional<SecretFound> findSecret(const std::string& field, const std::string& value);
// The first secret in a claim's text, label, tags or evidence, with each
// field named after `prefix` ("items[2].").
std::optional<SecretFound> secretIn(const std::string& prefix, const Claim& c);

// Refuse a write: SecretDetected with the rule and span.
[[noreturn]] void refuseSecret(const SecretFound& s);
void scanForSecrets(const std::string& field, const std::string& value);

// Who acts, as every write names it (`agent`; an MCP client's own name by
// default): one line, kept in the claim and the audit log, so scanned like
// the text it signs.
void checkAgent(const std::string& agent);
// An act on a claim that exists (learn, reverify): who acts, and the note
// they leave, checked and scanned as the claim's own text would be.
void checkAct(const std::string& agent, const std::string& note);

} // namespace engram
