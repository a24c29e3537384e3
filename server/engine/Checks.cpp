// Validation shared by the engine's writes (see Checks.h).
#include "engine/Checks.h"

#include "secrets/SecretScan.h"
#include "util/Error.h"
#include "util/Utf8.h"

namespace engram {

std::string trimmed(const std::string& s) {
    auto b = s.find_first_not_of(" \t\r\n");
    auto e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

void checkUtf8(const std::string& field, const std::string& v) {
    if (auto bad = firstInvalidUtf8(v))
        throw invalidField(field, "is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
}

void checkText(const std::string& field, const std::string& v, size_t max) {
    checkUtf8(field, v);
    if (v.size() > max)
        throw invalidField(field, "is longer than " + std::to_string(max) + " bytes");
}

void checkEvidence(const std::string& field, const Evidence& e) {
    if (!unspell<EvidenceType>(e.type))
        throw invalidField(field + ".type", "must be " + spellingList<EvidenceType>());
    checkText(field + ".value", e.value);
    if (trimmed(e.value).empty()) throw invalidField(field + ".value", "must not be empty");
}

void checkLine(const std::string& field, const std::string& v, size_t max, bool required) {
    checkUtf8(field, v);
    if (required && v.find_first_not_of(" \t") == std::string::npos)
        throw invalidField(field, "must not be empty");
    if (v.size() > max)
        throw invalidField(field, "is longer than " + std::to_string(max) + " bytes");
    if (v.find_first_of("\n\r") != std::string::npos)
        throw invalidField(field, "must be a single line");
}

std::optional<SecretFound> findSecret(const std::string& field, const std::string& value) {
    std::vector<secrets::Hit> hits;
    try {
        hits = secrets::scan(value);
    } catch (const std::exception& e) {
        return SecretFound{field,
                           "scanner-failure",
                           field + ": the secret scan could not complete (" + e.what() + ")",
                           std::nullopt,
                           std::nullopt,
                           0};
    }
    if (hits.empty()) return std::nullopt;
    const auto& h = hits.front();
    return SecretFound{field,
                       h.rule,
                       field + ": looks like a " + h.description + " (rule " + h.rule +
                           ", characters " + std::to_string(h.begin) + "-" + std::to_string(h.end) +
                           ")",
                       int64_t(h.begin),
                       int64_t(h.end),
                       int64_t(hits.size())};
}

std::optional<SecretFound> secretIn(const std::string& prefix, const Claim& c) {
    if (auto s = findSecret(prefix + "text", c.text)) return s;
    if (!c.label.empty())
        if (auto s = findSecret(prefix + "label", c.label)) return s;
    for (size_t i = 0; i < c.tags.size(); ++i)
        if (auto s = findSecret(prefix + "tags[" + std::to_string(i) + "]", c.tags[i])) return s;
    for (size_t i = 0; i < c.evidence.size(); ++i)
        if (auto s = findSecret(prefix + "evidence[" + std::to_string(i) + "].value",
                                c.evidence[i].value))
            return s;
    return std::nullopt;
}

void refuseSecret(const SecretFound& s) {
    std::vector<std::pair<std::string, DetailValue>> data = {{"field", s.field}, {"rule", s.rule}};
    if (s.start) data.emplace_back("start", *s.start);
    if (s.end) data.emplace_back("end", *s.end);
    if (s.hits) data.emplace_back("hits", s.hits);
    throw EngramError(ErrorKind::SecretDetected, s.message + "; the write was refused",
                      std::move(data));
}

void scanForSecrets(const std::string& field, const std::string& value) {
    if (auto s = findSecret(field, value)) refuseSecret(*s);
}

void checkAgent(const std::string& agent) {
    checkLine("agent", agent, kMaxShort, true);
    scanForSecrets("agent", agent);
}

void checkAct(const std::string& agent, const std::string& note) {
    checkAgent(agent);
    checkText("note", note);
    if (!note.empty()) scanForSecrets("note", note);
}

} // namespace engram
