// The envelope carried by every recall, delegate and status answer.
//
// An agent that gets zero rows must be able to tell "nothing is known" from
// "wrong workspace", "index not built" and "your query missed" without asking
// in prose (invariants 2 and 3). The envelope is that state, as data.
#pragma once
#include "model/NotJudged.h"
#include "model/Spelling.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace engram {

// How far an answer can be trusted, and what the caller should do about it.
enum class EnvelopeStatus { Ok, Triaging, Blocked };
enum class TrustMode { FullTrust, NeedsIndex, WrongWorkspaceBinding, RetrievalNeedsRecovery };
template <>
struct Spelling<EnvelopeStatus> {
    static constexpr std::array values{std::pair{EnvelopeStatus::Ok, "ok"},
                                       std::pair{EnvelopeStatus::Triaging, "triaging"},
                                       std::pair{EnvelopeStatus::Blocked, "blocked"}};
};
template <>
struct Spelling<TrustMode> {
    static constexpr std::array values{
        std::pair{TrustMode::FullTrust, "full_trust"},
        std::pair{TrustMode::NeedsIndex, "needs_index"},
        std::pair{TrustMode::WrongWorkspaceBinding, "wrong_workspace_binding"},
        std::pair{TrustMode::RetrievalNeedsRecovery, "retrieval_needs_recovery"}};
};

struct TierState {
    std::string tier; // project | medulla
    std::string path; // the store directory
    std::string name; // store name (origin label)
    bool exists = false;
    int64_t committed = 0;
    int64_t frontier = 0;
    int64_t retracted = 0;
    int64_t superseded = 0;
    int64_t anchors = 0;
    int64_t generation = 0;
    int64_t brokenFiles = 0;
    bool indexReady = false;
    // The store cannot be written (a read-only file system, another user's
    // checkout): it is answered from, its index kept under engram's home,
    // and every write to it is refused.
    bool readOnly = false;
    // Every claim file has been compared with the index since it was opened
    // (false while a large store is still being checked in the background:
    // `uncheckedFiles` are left; a file rewritten in place while engram was
    // down may be missing from answers until then).
    bool reconciled = true;
    int64_t uncheckedFiles = 0;
    std::string error; // why the tier could not be read, when it could not
    // A store kept in a git repository of its own (a team store, a medulla
    // with a remote): origin's URL (redacted), when a sync last reached it,
    // why the last one failed, what waits to be pushed.
    struct Sync {
        std::string remote;
        std::optional<int64_t> lastSync;
        std::string error;
        std::vector<std::string> pending;
    };
    std::optional<Sync> sync;
};

struct Recovery {
    std::string method; // the exact call that would fix the state
    std::vector<std::pair<std::string, std::string>> arguments;
    std::string reason;
};

struct Envelope {
    std::string schema = "engram.envelope/1";
    // An EnvelopeStatus's and a TrustMode's spelling; the engine keeps
    // them as words, the wire declares them from the tables above.
    std::string status = "ok";
    std::string trustMode = "full_trust";
    struct Observed {
        std::string method;
        int64_t candidates = 0;
        std::string error;
    } observed;
    struct Session {
        int64_t pid = 0;
        std::string version;
        int64_t started = 0;
    } session;
    struct Binding {
        std::string root;
        std::string fingerprint;
        std::string source; // initialize | --root | ENGRAM_ROOT | discovered | cwd
        std::string requestedRoot;
        bool mismatch = false;
    } binding;
    std::vector<TierState> stores;
    std::string nextSuggested;
    Recovery recovery; // empty method = nothing to recover
    std::vector<std::string> nonClaims;
    // What this answer could not judge (an anchor in a file too large to
    // read, an instruction file's name without a code index...), by reason.
    NotJudged notJudged;
};

} // namespace engram
