// MCP lifecycle, message handling and the tools/* methods.
#include "mcp/McpServer.h"

#include "mcp/IdSniff.h"
#include "ops/Schemas.h"
#include "protocol/Convert.h"
#include "secrets/SecretScan.h"
#include "util/Log.h"
#include "util/Paths.h"

#include <algorithm>
#include <csignal>
#include <type_traits>
#include <variant>

namespace engram::mcp {

namespace code = protocol::code;
using protocol::Params;

namespace {

using Clock = std::chrono::steady_clock;

std::string describe(const EngramError& e) {
    std::string text = std::string(toString(e.kind)) + ": " + e.what();
    for (auto& [key, value] : e.details)
        std::visit(
            [&, k = key](auto&& v) {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, std::string>)
                    text += "\n" + k + ": " + v;
                else
                    text += "\n" + k + ": " + std::to_string(v);
            },
            value);
    return text;
}

// A failed tool call, as MCP wants it: a result the model reads (isError),
// not a protocol error only the client sees, so the agent can correct the
// call. It carries no structuredContent: that would have to match the
// tool's output schema. Like every error reply, it never echoes a secret.
json toolError(const EngramError& e) {
    return {
        {"content", json::array({{{"type", "text"}, {"text", secrets::redacted(describe(e))}}})},
        {"isError", true}};
}

// The envelope speaks engram's LSP method names (`engram/remember`); through
// MCP the call to make next is a tool.
void adaptEnvelope(json& result) {
    if (!result.is_object() || !result.contains("envelope")) return;
    json& e = result["envelope"];
    auto toTool = [](json& v) {
        if (!v.is_string()) return;
        std::string s = v.get<std::string>();
        if (auto* op = ops::byMethod(s)) v = op->name;
        if (s == "engram serve") v = "engram mcp";
    };
    if (e.contains("next_suggested")) toTool(e["next_suggested"]);
    if (e.contains("observed") && e["observed"].is_object()) toTool(e["observed"]["method"]);
    if (e.contains("recovery") && e["recovery"].is_object()) toTool(e["recovery"]["method"]);
}

} // namespace

const std::vector<std::string>& supportedProtocolVersions() {
    // 2025-11-25: argument errors are tool results (SEP-1303), which this
    //             server does at every revision.
    // 2025-06-18: structuredContent, outputSchema, titles; no batches.
    // 2025-03-26: tool annotations; batches.
    // 2024-11-05: the first revision, still sent by older SDKs.
    static const std::vector<std::string> v = {"2025-11-25", "2025-06-18", "2025-03-26",
                                               "2024-11-05"};
    return v;
}

McpServer::McpServer(McpOptions opts)
    : opts_(std::move(opts))
    , channel_(opts_.in, opts_.out, opts_.maxLine)
    , workspaces_(opts_.home, opts_.version) {
    requests_ = {
        {"initialize", &McpServer::onInitialize},
        {"ping", &McpServer::onPing},
        {"tools/list", &McpServer::onToolsList},
        {"tools/call", &McpServer::onToolsCall},
        {"resources/list", &McpServer::onResourcesList},
        {"resources/templates/list", &McpServer::onResourceTemplatesList},
        {"resources/read", &McpServer::onResourcesRead},
        {"resources/subscribe", &McpServer::onResourcesSubscribe},
        {"resources/unsubscribe", &McpServer::onResourcesUnsubscribe},
        {"prompts/list", &McpServer::onPromptsList},
        {"prompts/get", &McpServer::onPromptsGet},
    };
    notifications_ = {
        {"notifications/initialized", &McpServer::onInitialized},
        {"notifications/roots/list_changed", &McpServer::onRootsListChanged},
    };
}

int McpServer::run() {
    // A client that goes away must not kill us mid-write: the write fails
    // and the channel drops the rest.
    std::signal(SIGPIPE, SIG_IGN);
    for (;;) {
        if (inbox_.empty()) {
            if (channel_.inputClosed()) break;
            intake(std::chrono::milliseconds(-1));
            continue;
        }
        Inbound next = std::move(inbox_.front());
        inbox_.pop_front();
        try {
            if (next.reply)
                send(*next.reply);
            else
                processTop(next.msg);
        } catch (const std::exception& e) {
            // Requests are answered inside process(); this is the last guard.
            logLine(std::string("message failed: ") + e.what());
        }
        intake(std::chrono::milliseconds(0));
    }
    channel_.flush();
    logLine("input closed");
    workspaces_.settleBeforeExit();
    return 0;
}

void McpServer::send(const json& msg) {
    // Claims are validated UTF-8, but a hand-edited file may not be.
    channel_.send(msg.dump(-1, ' ', false, json::error_handler_t::replace));
}

void McpServer::intake(std::chrono::milliseconds timeout) {
    std::deque<LineEvent> events;
    channel_.pump(timeout, events);
    for (auto& ev : events) {
        // Whatever one message does, it must not fail the call that is
        // waiting for roots (intake runs inside it) or stop the server.
        try {
            take(std::move(ev));
        } catch (const std::exception& e) {
            logLine(std::string("dropped a message: ") + e.what());
        }
    }
}

void McpServer::take(LineEvent&& ev) {
    if (ev.kind == LineEvent::Oversized) {
        auto id = sniffRequestId(ev.text, ev.tail);
        logLine("refused a message of " + std::to_string(ev.bytes) + " bytes");
        inbox_.push_back(
            {nullptr,
             protocol::errorReply(
                 id.value_or(json(nullptr)), code::InvalidRequest, "InvalidRequest",
                 "the message is " + std::to_string(ev.bytes) + " bytes long, over the limit of " +
                     std::to_string(channel_.maxLine()) + " bytes; it was skipped",
                 {{"bytes", ev.bytes}, {"limit", channel_.maxLine()}})});
        return;
    }
    auto parsed = protocol::parseMessage(ev.text, "the line");
    if (parsed.reply) {
        inbox_.push_back({nullptr, std::move(*parsed.reply)});
        return;
    }
    json msg = std::move(*parsed.message);
    if (protocol::isResponse(msg)) {
        onResponse(msg);
        return;
    }
    if (msg.is_object() && msg.value("method", json()) == "notifications/cancelled" &&
        !msg.contains("id")) {
        onCancelled(msg.value("params", json::object()));
        return;
    }
    inbox_.push_back({std::move(msg), std::nullopt});
}

void McpServer::processTop(const json& msg) {
    if (!msg.is_array()) {
        if (auto reply = process(msg)) send(*reply);
        return;
    }
    // JSON-RPC batches: part of MCP up to 2025-03-26, removed in 2025-06-18,
    // and never for initialize (the version decides).
    if (!initialized_ || atLeast("2025-06-18")) {
        std::string why = initialized_ ? "JSON-RPC batches are not part of MCP " +
                                             protocolVersion_ + "; send one message per line"
                                       : "a batch cannot initialize the session; send "
                                         "initialize alone";
        send(protocol::errorReply(nullptr, code::InvalidRequest, "InvalidRequest", why));
        return;
    }
    if (msg.empty()) {
        send(protocol::errorReply(nullptr, code::InvalidRequest, "InvalidRequest",
                                  "an empty batch holds no message"));
        return;
    }
    json replies = json::array();
    for (auto& m : msg) {
        if (protocol::isResponse(m)) {
            onResponse(m);
            continue;
        }
        if (auto reply = process(m)) replies.push_back(std::move(*reply));
    }
    if (!replies.empty()) send(replies);
}

std::optional<json> McpServer::process(const json& msg) {
    auto checked = protocol::checkMessage(msg);
    if (checked.reply) return checked.reply;
    if (!checked.message) return std::nullopt; // a notification that failed: dropped
    auto& in = *checked.message;
    if (in.kind == protocol::Incoming::Kind::Response) {
        onResponse(msg);
        return std::nullopt;
    }
    const json& id = in.id;
    const std::string& method = in.method;
    const json& params = in.params;
    if (in.kind == protocol::Incoming::Kind::Notification) {
        auto it = notifications_.find(method);
        if (it == notifications_.end()) return std::nullopt; // unknown ones are ignored
        try {
            (this->*(it->second))(params);
        } catch (const std::exception& e) {
            logLine("notification " + method + " failed: " + e.what());
        }
        return std::nullopt;
    }
    running_ = id;
    runningCancelled_ = false;
    json reply = call(id, method, params);
    running_.reset();
    // MCP: a cancelled request gets no answer.
    if (runningCancelled_) return std::nullopt;
    return reply;
}

json McpServer::call(const json& id, const std::string& method, const json& params) {
    auto it = requests_.find(method);
    if (it == requests_.end())
        return protocol::errorReply(id, code::MethodNotFound, "MethodNotFound",
                                    "unknown method '" + method + "'");
    if (!initialized_ && method != "initialize" && method != "ping")
        return protocol::errorReply(id, code::InvalidRequest, "ServerNotInitialized",
                                    "the session is not initialized; send initialize first");
    try {
        return protocol::resultReply(id, (this->*(it->second))(params));
    } catch (const ProtocolError& e) {
        return protocol::errorReply(id, e.code, e.kind, e.what());
    } catch (const EngramError& e) {
        return protocol::errorReply(id, e);
    } catch (const json::exception& e) {
        return protocol::errorReply(id, code::InvalidParams, "InvalidParams",
                                    protocol::jsonProblem(e));
    } catch (const std::exception& e) {
        logLine(method + " failed: " + e.what());
        return protocol::errorReply(id, code::InternalError, "InternalError", e.what());
    }
}

void McpServer::onCancelled(const json& params) {
    if (!params.is_object() || !params.contains("requestId")) return;
    const json& target = params["requestId"];
    for (auto it = inbox_.begin(); it != inbox_.end(); ++it) {
        const json& m = it->msg;
        if (m.is_object() && m.value("id", json()) == target &&
            m.value("method", json()) != "initialize") {
            inbox_.erase(it);
            return;
        }
    }
    // The request being handled (it is waiting for roots): drop its answer.
    if (running_ && *running_ == target) runningCancelled_ = true;
}

void McpServer::onResponse(const json& msg) {
    if (!rootsRequest_ || msg.value("id", json()) != *rootsRequest_) return;
    rootsRequest_.reset();
    if (msg.contains("error")) {
        bindDefault("the client answered roots/list with an error: " + msg["error"].dump());
        return;
    }
    std::vector<std::string> roots;
    const json& result = msg["result"];
    if (result.is_object() && result.contains("roots") && result["roots"].is_array()) {
        for (auto& r : result["roots"]) {
            if (!r.is_object() || !r.contains("uri") || !r["uri"].is_string()) continue;
            auto path = uriToPath(r["uri"].get<std::string>());
            if (!path) continue; // only file:// roots are workspaces
            std::string root = canonicalPath(*path);
            if (std::find(roots.begin(), roots.end(), root) == roots.end()) roots.push_back(root);
        }
    }
    if (roots.empty()) {
        bindDefault("the client shared no file:// root");
        return;
    }
    // The same roots again (a list_changed that changed nothing): keep the
    // engines as they are.
    if (workspaces_.source() == "roots" && workspaces_.roots() == roots) return;
    workspaces_.bind(roots, "roots");
}

// ---- lifecycle -----------------------------------------------------------

json McpServer::onInitialize(const json& params) {
    if (initialized_)
        throw ProtocolError(code::InvalidRequest, "InvalidRequest",
                            "initialize was already received");
    Params p(params);
    std::string requested = p.reqString("protocolVersion");
    const auto& versions = supportedProtocolVersions();
    // The client's version when we speak it; otherwise our newest, and the
    // client decides whether it can speak that.
    protocolVersion_ = std::find(versions.begin(), versions.end(), requested) != versions.end()
                           ? requested
                           : versions.front();
    if (const json* caps = p.optObject("capabilities"))
        clientRoots_ = Params(*caps, "capabilities").optObject("roots") != nullptr;
    if (const json* info = p.optObject("clientInfo"))
        clientName_ = Params(*info, "clientInfo").optString("name").value_or("");
    initialized_ = true;
    logLine("initialize: client " + (clientName_.empty() ? "unnamed" : clientName_) +
            ", protocol " + requested + " -> " + protocolVersion_);
    if (!rootsDecide()) bindDefault("");

    json serverInfo = {{"name", "engram"}, {"version", opts_.version}};
    if (atLeast("2025-06-18")) serverInfo["title"] = "engram workspace memory";
    return {{"protocolVersion", protocolVersion_},
            {"capabilities",
             {{"tools", {{"listChanged", false}}},
              // The list is fixed (the findings, and templates for claims and
              // files); what a resource holds changes, and subscribers hear.
              {"resources", {{"subscribe", true}, {"listChanged", false}}},
              {"prompts", {{"listChanged", false}}}}},
            {"serverInfo", serverInfo},
            {"instructions", instructions()}};
}

json McpServer::onPing(const json&) {
    return json::object();
}

void McpServer::onInitialized(const json&) {
    // Servers may send requests only once the client says it is ready.
    if (rootsDecide() && !rootsRequest_ && !workspaces_.bound()) askRoots();
}

void McpServer::onRootsListChanged(const json&) {
    if (rootsDecide()) askRoots();
}

// ---- binding -------------------------------------------------------------

bool McpServer::rootsDecide() const {
    return clientRoots_ && opts_.rootSource == "discovered";
}

void McpServer::askRoots() {
    rootsRequest_ = "engram-roots-" + std::to_string(++sent_);
    rootsDeadline_ = Clock::now() + opts_.rootsTimeout;
    send({{"jsonrpc", "2.0"}, {"id", *rootsRequest_}, {"method", "roots/list"}});
}

void McpServer::ensureBound() {
    // A client may call a tool before it sends `initialized`: ask then.
    if (rootsDecide() && !rootsRequest_ && !workspaces_.bound()) askRoots();
    while (rootsRequest_ && !channel_.inputClosed()) {
        auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(rootsDeadline_ - Clock::now());
        if (left.count() <= 0) break;
        intake(left);
    }
    if (rootsRequest_) {
        rootsRequest_.reset();
        bindDefault("the client did not answer roots/list");
    }
    if (!workspaces_.bound()) bindDefault("");
}

void McpServer::bindDefault(const std::string& why) {
    if (!why.empty()) logLine(why + "; binding to " + opts_.root);
    // Already bound there: keep the engine (and its caches) as they are.
    if (workspaces_.source() == opts_.rootSource &&
        workspaces_.roots() == std::vector<std::string>{opts_.root})
        return;
    // A later roots/list answer may still rebind; until then this holds.
    workspaces_.bind({opts_.root}, opts_.rootSource);
}

std::string McpServer::defaultAgent() const {
    std::string name;
    for (char c : clientName_)
        if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f && name.size() < 100) name += c;
    return "mcp:" + (name.empty() ? std::string("unknown") : name);
}

std::string McpServer::instructions() const {
    std::string s =
        "engram is this workspace's memory: claims that agents and people wrote down about the "
        "code, each anchored to the code it describes and flagged when that code changes.\n"
        "- Before working on a task or a file, call recall with the task's words (and path= "
        "the file). Read each row's anchor_state: intact means the anchored code is unchanged "
        "since the claim was written or re-verified; drifted, moved or orphaned means it "
        "changed, so check the claim against the code before relying on it.\n"
        "- When you check a drifted claim: if it still holds, call reverify; if it no longer "
        "does, call retract with the reason (or remember the corrected version under the same "
        "label).\n"
        "- When you learn something a later session would need (a gotcha, a decision, a "
        "convention), call remember with one self-contained statement, a short label and "
        "anchors to the function or file it is about. Unanchored claims cannot warn anyone "
        "when the code moves on. Never store secrets; they are refused.\n"
        "- An anchor is written path#Symbol.name (a definition), path:LINE or "
        "path:START-END (1-based lines) or path (the whole file); paths are relative to the "
        "workspace root.\n"
        "- After relying on a claim, call learn with correct, wrong or partial.\n"
        "- An empty recall is not proof that nothing is known: read memory_exists and "
        "envelope.trust_mode, and call status when the binding looks wrong.\n"
        "- When memory misled you, call report (class memory_misdelivery): a recall said "
        "nothing about something you later found in the code or in memory (false_absence), a "
        "row came from a project it should not have (leak), a claim you saw before is gone "
        "(vanished), a claim names the wrong author or origin (misattribution), or a write "
        "landed in the wrong store (wrong_store_write). Say what happened and what you "
        "expected, with the call. Each report is counted and reaches the project's inbox.\n"
        "- Pass agent as tool:role (e.g. claude:maker) so the record says who wrote what "
        "(default: this client's name). Every tool takes root (a path or file:// URI inside "
        "a workspace) when the client shares several.\n"
        "- Full argument and result schemas: the resource engram://schema/{tool}.\n";
    if (ops::byName("contribute"))
        s += "- If you are a sub-agent working on a delegated task, report findings with "
             "contribute for the parent to review; never promote, and do not remember directly.\n";
    else
        s += "- If you are a sub-agent working on a delegated task, hand your findings back to "
             "the parent agent for review instead of recording them yourself, and never "
             "promote anything to the medulla tier (the user's global memory).\n";
    return s;
}

// ---- tools ---------------------------------------------------------------

json McpServer::toolInput(const ops::Operation& t) {
    // Every tool also takes `root` (multi-root clients).
    json input = t.input();
    input["properties"]["root"] = ops::schema::rootProperty();
    return input;
}

namespace {

// A schema as tools/list shows it, in the fewest bytes a model reads at
// every session start: of alternatives (an anchor as text or as an
// object) the first, simplest one; no description of what the server's
// instructions already say once (root, agent); no patterns (the server
// checks them and names the field). The full schema, which the
// server checks calls against, is the engram://schema/{tool} resource.
json listedSchema(json schema, bool top = true) {
    if (!schema.is_object()) return schema;
    schema.erase("pattern"); // checked where the call is read, with an error naming the field
    if (auto any = schema.find("anyOf"); any != schema.end() && any->is_array() && !any->empty())
        return listedSchema(json((*any)[0]), false);
    if (auto props = schema.find("properties"); props != schema.end() && props->is_object()) {
        for (auto& [name, member] : props->items()) {
            member = listedSchema(std::move(member), false);
            if (top && (name == "root" || name == "agent")) member.erase("description");
        }
    }
    if (auto items = schema.find("items"); items != schema.end())
        *items = listedSchema(std::move(*items), false);
    return schema;
}

} // namespace

json McpServer::onToolsList(const json& params) {
    Params p(params);
    if (p.optString("cursor"))
        throw invalidField("cursor", "is not a cursor this server gave; the whole list comes "
                                     "in one page");
    json list = json::array();
    for (auto& t : ops::operations()) {
        if (!t.agentTool) continue;
        json j = {{"name", t.name},
                  {"description", t.description},
                  {"inputSchema", listedSchema(toolInput(t))}};
        if (atLeast("2025-06-18")) {
            j["title"] = t.title;
            if (opts_.outputSchemas) j["outputSchema"] = t.output();
        }
        if (atLeast("2025-03-26")) {
            // The title once: from 2025-06-18 the tool's own title is it.
            // Hints at their defaults are left out (readOnlyHint and
            // idempotentHint default to false; destructiveHint and
            // openWorldHint to true, so those are always said).
            j["annotations"] = {{"destructiveHint", t.effect == ops::Effect::Destructive},
                                {"openWorldHint", false}};
            if (t.effect == ops::Effect::Read) {
                j["annotations"]["readOnlyHint"] = true;
                j["annotations"]["idempotentHint"] = true;
            }
            if (!atLeast("2025-06-18")) j["annotations"]["title"] = t.title;
        }
        list.push_back(std::move(j));
    }
    return {{"tools", std::move(list)}};
}

json McpServer::onToolsCall(const json& params) {
    // Malformed calls and unknown tools are protocol errors (-32602); a
    // call the tool cannot run is a tool result with isError, so the model
    // sees what to fix.
    Params p(params);
    std::string name = p.reqString("name");
    const ops::Operation* tool = ops::byName(name);
    if (tool && !tool->agentTool) tool = nullptr; // maintenance: the CLI's and the LSP's
    if (!tool) {
        std::string names;
        for (auto& t : ops::operations())
            if (t.agentTool) names += std::string(names.empty() ? "" : ", ") + t.name;
        throw invalidField("name", "unknown tool '" + name + "'; the tools are " + names);
    }
    const json* args = p.optObject("arguments");
    try {
        return runTool(*tool, args ? *args : json::object());
    } catch (const EngramError& e) {
        return toolError(e);
    } catch (const json::exception& e) {
        return toolError(EngramError(ErrorKind::InvalidParams, protocol::jsonProblem(e)));
    } catch (const std::exception& e) {
        logLine("tool " + name + " failed: " + e.what());
        return toolError(EngramError(ErrorKind::Internal, e.what()));
    }
}

json McpServer::runTool(const ops::Operation& tool, const json& args) {
    if (auto u = ops::schema::unknownMember(args, toolInput(tool)))
        throw invalidField(u->first, u->second);
    json structured = runStructured(tool, args);
    if (tool.effect != ops::Effect::Read) notifyResourcesUpdated();
    return toolResult(tool, std::move(structured));
}

json McpServer::runStructured(const ops::Operation& tool, const json& args) {
    ensureBound();
    ops::Call call;
    call.defaultAgent = defaultAgent();
    // Routed once the tool's parameters have parsed.
    std::optional<std::string> unbound;
    call.bind = [&]() -> Engine& {
        auto hints = ops::routeHints(args, tool.idArgument ? tool.idArgument : "id");
        auto r = ops::routeFor(workspaces_.routing(), hints, tool);
        Workspace& ws = workspaces_.at(r.index);
        unbound = r.unboundRoot;
        // A root inside a served root is that root's; one outside every
        // root stays as asked, for the envelope to report.
        if (hints.root) call.requestedRoot = unbound ? *hints.root : ws.engine.root();
        workspaces_.catchUp(ws);
        return ws.engine;
    };
    json structured = tool.run(call, args).value;
    if (unbound && structured.is_object() && structured.contains("envelope"))
        ops::explainUnbound(structured["envelope"], workspaces_.routing(), *unbound);
    adaptEnvelope(structured);
    return structured;
}

json McpServer::toolResult(const ops::Operation& tool, json structured) const {
    json content = json::array({{{"type", "text"}, {"text", tool.render(structured)}}});
    if (!opts_.structured) return {{"content", std::move(content)}};
    if (atLeast("2025-06-18"))
        return {{"content", std::move(content)}, {"structuredContent", std::move(structured)}};
    // Older revisions have no structured results: the JSON travels as a
    // second text block so nothing is lost to machine readers.
    content.push_back({{"type", "text"},
                       {"text", structured.dump(-1, ' ', false, json::error_handler_t::replace)}});
    return {{"content", std::move(content)}};
}

} // namespace engram::mcp
