// `engram hook`: memory in the agent loop (README, "Memory in the agent loop").
//
// Agent harnesses (Claude Code, Codex, Cursor, VS Code's agent hooks, Gemini
// CLI) run a command at session start and on every prompt and add what it
// prints to the model's context. engram answers with a bounded slice of
// memory: at session start, what the workspace holds, the claims anchored in
// the files being changed and the instruction files' broken references; on
// a prompt, the delegation packet's selection for that prompt. It is honest
// when memory exists but nothing matched, and silent when there is none.
//
// The harness's input (a JSON object on stdin) names the event, the prompt
// and the working directory; the output is the shape that harness reads:
// Claude's `hookSpecificOutput` (Claude Code, Codex, VS Code, Gemini CLI),
// Cursor's `additional_context`, or plain text.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace engram {
class Engine;
}

namespace engram::ops {

struct HookInput {
    std::string event;     // session-start | prompt ("" when neither flag nor stdin said)
    std::string eventName; // as the harness named it (SessionStart, UserPromptSubmit...)
    std::string prompt;
    std::string cwd;        // where the harness runs the agent ("" when it did not say)
    std::string sessionId;  // the harness's session ("" when it did not say)
    std::string source;     // how a session started: startup, resume, clear, compact...
    bool cursor = false;    // Cursor's input (its output shape differs)
    bool fromStdin = false; // stdin held the harness's JSON
    // The relevance floor a prompt's claims must clear: the hook's own
    // (strict), or a packet's (loose: one specific word is enough, more of
    // the answers and more noise). `engram hook --floor`.
    bool looseFloor = false;
    // No floor at all: rank alone fills the slice, as before the floor was
    // built (`--floor none`: the baseline bench/recall_quality.py measures
    // the floor against, and a choice for those who want it).
    bool noFloor = false;
};

// Reads the harness's JSON (empty or blank input is no input). Throws
// EngramError(InvalidParams) naming the field for anything else malformed.
HookInput parseHookInput(std::string_view stdinText);

// The event for a harness's event name: "session-start", "prompt", or ""
// for one engram does not answer.
std::string hookEvent(std::string_view eventName);

inline constexpr size_t kHookDefaultChars = 8000; // under Claude Code's 10,000 cap
inline constexpr size_t kHookMinChars = 200, kHookMaxChars = 100000;

// The context to add: at most maxChars bytes of UTF-8 (so at most maxChars
// characters by any count), "" when the workspace has no memory at all.
// sessionDir: where the claims given per session are kept
// (ops/HookSession.h; "" gives every relevant claim on every prompt).
std::string hookContext(Engine& engine, const HookInput& in, size_t maxChars,
                        const std::string& sessionDir = "");

// The bytes to print: format is auto | claude | cursor | text (auto: Cursor's
// shape for Cursor's input, Claude's for any other harness's JSON, else text).
std::string hookOutput(const HookInput& in, const std::string& format, const std::string& context);

} // namespace engram::ops
