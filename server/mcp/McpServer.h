// `engram mcp`: the engine as Model Context Protocol tools on stdio.
//
// Agents inside editors (Claude Code, Copilot, Cursor, Codex...) speak MCP,
// not LSP. This server speaks MCP's stdio transport (one JSON-RPC 2.0 message
// per line), negotiates the protocol version, lists the operations of ops/Operations.cpp as tools
// and runs them on the same Engine, through the same protocol/Convert code,
// as `engram serve`. Requests are handled one at a time, in order, on one
// thread; input is read between requests so a cancellation for a queued
// request is heard before it runs. Every request gets exactly one answer,
// every notification none, and bad input of any kind gets a specific error
// while the server keeps serving.
//
// The binding (which workspace root) comes from --root or ENGRAM_ROOT when
// given; otherwise from the client's roots when it offers them (asked with
// roots/list once the client is initialized, and again when it says they
// changed), else from the directory engram was started in (mcp/Workspaces).
#pragma once
#include "mcp/LineChannel.h"
#include "mcp/Workspaces.h"
#include "ops/Operation.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace engram::mcp {

using json = nlohmann::json;

// The MCP revisions this server speaks, newest first.
const std::vector<std::string>& supportedProtocolVersions();

struct McpOptions {
    std::string root;       // --root, ENGRAM_ROOT, or the discovered root
    std::string rootSource; // --root | ENGRAM_ROOT | discovered (roots may override)
    std::string home;       // $ENGRAM_HOME
    std::string version;
    int in = 0, out = 1;
    // The frame limit of `engram serve`, for the same reason: a claim is at
    // most 16 KiB, so a larger message is a mistake or an attack.
    size_t maxLine = 16u << 20;
    // How long a tool call waits for the client's answer to roots/list
    // before binding to the working directory instead.
    std::chrono::milliseconds rootsTimeout{5000};
    // Whether tools/list carries each tool's outputSchema. Off by default:
    // the output schemas are most of the list's bytes (every byte lands in
    // the model's context at each session start), and a result's
    // structuredContent needs no declared schema. engram://schema/{tool}
    // serves them to a client that wants to validate.
    bool outputSchemas = false;
    // Whether a tool result carries its JSON (structuredContent, or before
    // 2025-06-18 a second text block) beside the text written for a model.
    // Off by default: the clients agents run in hand a model the JSON
    // instead of the text when both come (or both), and the text says what
    // an agent needs in a fifth of the bytes. A program reading results
    // asks for it (engram mcp --structured; --output-schemas implies it).
    bool structured = false;
};

// A JSON-RPC error of the protocol itself (not an engram error kind): its
// code and name, as the reply carries them.
struct ProtocolError : std::runtime_error {
    ProtocolError(int c, std::string k, const std::string& message)
        : std::runtime_error(message)
        , code(c)
        , kind(std::move(k)) {}
    int code;
    std::string kind;
};

class McpServer {
public:
    explicit McpServer(McpOptions opts);
    // Serves until the client closes its end of stdin; returns the exit code.
    int run();

private:
    using Handler = json (McpServer::*)(const json& params);
    using NotificationHandler = void (McpServer::*)(const json& params);

    // Reads what input is there (waiting at most `timeout`): answers what
    // cannot be queued (unparseable or oversized lines), applies
    // cancellations and responses at once, queues the rest.
    void intake(std::chrono::milliseconds timeout);
    void take(LineEvent&& ev);
    void processTop(const json& msg);
    std::optional<json> process(const json& msg);
    json call(const json& id, const std::string& method, const json& params);
    void onCancelled(const json& params);
    void onResponse(const json& msg);
    void send(const json& msg);

    // Lifecycle.
    json onInitialize(const json& params);
    json onPing(const json& params);
    void onInitialized(const json& params);
    void onRootsListChanged(const json& params);
    // Tools.
    json onToolsList(const json& params);
    // A tool's input schema as tools/list and engram://schema/{tool} give it.
    static json toolInput(const ops::Operation& t);
    json onToolsCall(const json& params);
    json runTool(const ops::Operation& tool, const json& args);
    // An operation's structured result, routed and bound as a tool call is.
    json runStructured(const ops::Operation& tool, const json& args);
    // Resources (mcp/Resources.cpp): the findings, a claim by id, a file's
    // claims; subscribers hear of changes this server's writes make.
    json onResourcesList(const json& params);
    json onResourceTemplatesList(const json& params);
    json onResourcesRead(const json& params);
    json onResourcesSubscribe(const json& params);
    json onResourcesUnsubscribe(const json& params);
    void notifyResourcesUpdated();
    // Prompts (mcp/Prompts.cpp): before_task and hand_off, the workflows
    // an agent starts from, each running the tool it stands for.
    json onPromptsList(const json& params);
    json onPromptsGet(const json& params);
    std::set<std::string> subscribed_;
    json toolResult(const ops::Operation& tool, json structured) const;

    // Binding.
    bool rootsDecide() const;
    void askRoots();
    void ensureBound();
    void bindDefault(const std::string& why);

    bool atLeast(const char* version) const { return protocolVersion_ >= version; }
    std::string defaultAgent() const;
    std::string instructions() const;

    McpOptions opts_;
    LineChannel channel_;
    Workspaces workspaces_;
    std::map<std::string, Handler> requests_;
    std::map<std::string, NotificationHandler> notifications_;
    // What was read and not yet handled, in order. Input that cannot be
    // handled (unparseable, oversized) waits here with its error reply, so
    // replies keep the order of the input.
    struct Inbound {
        json msg;
        std::optional<json> reply;
    };
    std::deque<Inbound> inbox_;
    bool initialized_ = false;    // initialize answered
    std::string protocolVersion_; // negotiated
    std::string clientName_;
    bool clientRoots_ = false;                // the client offers roots/list
    std::optional<std::string> rootsRequest_; // id of our unanswered roots/list
    std::chrono::steady_clock::time_point rootsDeadline_;
    int64_t sent_ = 0;            // requests sent to the client
    std::optional<json> running_; // id of the request being handled
    bool runningCancelled_ = false;
};

} // namespace engram::mcp
