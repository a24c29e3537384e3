// The local audit log: every state change as one hash-chained line.
//
// Invariant 5 says each state change is an explicit, recorded act. The log is
// local (git-ignored): it is the machine's record of who did what, while the
// claim files carry the shared result. Each entry's hash covers the previous
// entry's hash, so an edited or deleted line breaks the chain visibly.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace engram {

struct AuditEntry {
    int64_t seq = 0;
    int64_t time = 0;
    std::string act;   // remember, supersede, retract, learn, reverify, ...
    std::string claim; // "<id>@<version>"
    std::string agent;
    std::string detail;
    std::string prev; // hash of the previous entry ("0"*64 for the first)
    std::string hash;
};

struct AuditVerdict {
    bool ok = true;
    int64_t entries = 0;
    int64_t brokenAt = 0; // 1-based line of the first entry that does not chain
    std::string problem;
};

class AuditLog {
public:
    explicit AuditLog(std::string path)
        : path_(std::move(path)) {}
    // Appends durably. Callers hold the store lock so two processes never
    // interleave entries.
    AuditEntry append(std::string act, std::string claim, std::string agent, std::string detail);
    // Several entries (act, claim, agent, detail), chained in order, with
    // one durable write.
    void appendAll(const std::vector<std::array<std::string, 4>>& entries);
    AuditVerdict verify() const;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

} // namespace engram
