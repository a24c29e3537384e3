// What `engram hook` has already put in one agent session's context, so a
// claim is given once per session rather than on every prompt that
// mentions its words (README, "Memory in the agent loop").
//
// A harness names its session in the hook's input (Claude Code's and
// Codex's `session_id`, VS Code's and Copilot's `sessionId`, Cursor's
// `conversation_id`). One small file per (workspace, session) under
// $ENGRAM_HOME/hook-sessions lists the claims given, each with its version
// and anchor state: a claim changed since (a new version, its code drifted
// or moved) is given again. The files are bounded (kMaxGiven claims each,
// kMaxSessions files) and expire after kIdleSeconds without a prompt; a
// session start that clears or compacts the context starts the list anew.
// One file read and one write per prompt, whatever the store's size.
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace engram::ops {

inline constexpr size_t kMaxGiven = 2000;
inline constexpr size_t kMaxSessions = 256;
inline constexpr int64_t kIdleSeconds = 24 * 3600;

class HookSession {
public:
    // dir: where session files live ("" turns the rule off: nothing is
    // remembered); root: the workspace; id: the harness's session id ("":
    // off).
    HookSession(std::string dir, const std::string& root, const std::string& id);

    bool active() const { return !path_.empty(); }
    // Whether the claim, in this state ("<version>:<anchor state>"), was
    // given earlier in the session.
    bool given(const std::string& claimId, const std::string& state) const;
    void give(const std::string& claimId, const std::string& state);
    // The context was cleared: nothing counts as given any more.
    void forget();
    // Writes the list (and expires idle sessions); a failure to write only
    // means a claim may be given twice.
    void save();

private:
    std::string dir_, path_, header_;
    std::map<std::string, std::pair<std::string, uint64_t>> given_; // id -> (state, order)
    uint64_t next_ = 0;
    bool changed_ = false;
    bool fresh_ = false; // no file yet: this session's first write sweeps the others
};

} // namespace engram::ops
