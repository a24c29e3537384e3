// The MCP tools: one table entry per engine operation.
//
// Each entry names the tool, says in one line what an agent uses it for,
// gives its argument and result schemas (mcp/Schemas), runs the operation
// through protocol/Convert and the Engine (the same code paths as
// `engram serve`'s engram/* methods), and renders its result as text
// (mcp/Render). A new engine operation becomes a tool by adding one entry.
#pragma once
#include "engine/Engine.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engram::mcp {

using json = nlohmann::json;

// What a tool call runs against.
struct ToolCall {
    Engine& engine;
    std::string defaultAgent;                 // the client's name, for agent-less calls
    std::optional<std::string> requestedRoot; // the caller's root, when it named one
};

enum class Effect {
    Read,        // reads memory only
    Write,       // records an act (a new claim, a version, a verdict)
    Destructive, // withdraws memory from recall (kept on disk, but no longer served)
};

struct Tool {
    std::string name;
    std::string title;
    std::string description; // one line: when an agent should call it
    json inputSchema;
    json outputSchema;
    Effect effect;
    json (*run)(ToolCall& call, const json& args);
    std::string (*render)(const json& result);
    // The argument naming the claim the call is about, if any: with several
    // roots and no `root`, the claim's id finds its workspace.
    const char* idArgument = nullptr;
};

const std::vector<Tool>& tools();
const Tool* findTool(std::string_view name);

} // namespace engram::mcp
