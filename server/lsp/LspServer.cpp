// LSP lifecycle, method table and request queue.
#include "lsp/LspServer.h"
#include "lsp/UvHandle.h"
#include "ops/op/Ops.h"

#include "protocol/Convert.h"
#include "protocol/Packet.h"
#include "util/Log.h"
#include "util/Paths.h"

#include <malloc.h>

namespace engram {

using protocol::json;
namespace code = protocol::code;

namespace {

// The reply to a routing refusal: EngramError's own data plus the roots the
// caller may choose from.
json routingErrorReply(const json& id, const ops::RoutingError& e) {
    json reply = protocol::errorReply(id, e);
    reply["error"]["data"]["options"] = e.options;
    return reply;
}

} // namespace

LspServer::LspServer(ServerOptions opts)
    : opts_(std::move(opts)) {
    uv_loop_init(&loop_);
    folders_ = std::make_unique<lsp::Workspaces>(&loop_, opts_.home, opts_.version);
    requests_ = {
        {"initialize", &LspServer::onInitialize},
        {"shutdown", &LspServer::onShutdown},
        {"engram/status", &LspServer::onStatus},
        {"workspace/executeCommand", &LspServer::onExecuteCommand},
        {"textDocument/hover", &LspServer::onHover},
        {"textDocument/codeLens", &LspServer::onCodeLens},
        {"textDocument/codeAction", &LspServer::onCodeAction},
    };
    notifications_ = {
        {"initialized", &LspServer::onInitialized},
        {"workspace/didChangeWatchedFiles", &LspServer::onDidChangeWatchedFiles},
        {"workspace/didChangeWorkspaceFolders", &LspServer::onDidChangeWorkspaceFolders},
        {"textDocument/didOpen", &LspServer::onDidOpen},
        {"textDocument/didChange", &LspServer::onDidChange},
        {"textDocument/didSave", &LspServer::onDidSave},
        {"textDocument/didClose", &LspServer::onDidClose},
    };
}

LspServer::~LspServer() {
    lsp::closeHandle(idle_);
    lsp::closeHandle(reconcileTimer_);
    folders_.reset(); // closes the claims watches
    transport_.reset();
    uv_run(&loop_, UV_RUN_DEFAULT); // let close callbacks free the handles
    uv_loop_close(&loop_);
}

int LspServer::run() {
    transport_ = std::make_unique<StdioTransport>(
        &loop_, [this](protocol::FrameEvent&& ev) { onFrame(std::move(ev)); },
        [this] {
            // End of input without `exit`: the client is gone (LSP: exit code
            // 0 only if shutdown came first).
            logLine("input closed");
            finish(state_ == State::ShuttingDown ? 0 : 1);
        });
    idle_ = new uv_idle_t;
    uv_idle_init(&loop_, idle_);
    idle_->data = this;
    reconcileTimer_ = new uv_timer_t;
    uv_timer_init(&loop_, reconcileTimer_);
    reconcileTimer_->data = this;
    uv_timer_start(
        reconcileTimer_, [](uv_timer_t* h) { static_cast<LspServer*>(h->data)->pollReconcile(); },
        250, 250);
    // The timer alone must not keep the loop alive once input is closed.
    uv_unref(reinterpret_cast<uv_handle_t*>(reconcileTimer_));
    transport_->start();
    uv_run(&loop_, UV_RUN_DEFAULT);
    return exitCode_.value_or(1);
}

void LspServer::finish(int code) {
    if (exitCode_) return;
    exitCode_ = code;
    queue_.clear();
    if (idle_) uv_idle_stop(idle_);
    folders_->stopWatching();
    transport_->close();
    lsp::closeHandle(idle_);
    lsp::closeHandle(reconcileTimer_);
}

void LspServer::pollReconcile() {
    if (exitCode_) return;
    for (auto* f : folders_->all()) {
        try {
            pollCodeWalk(*f);
            bool was = f->engine.reconciling();
            if (!f->engine.pollReconcile().empty()) republishOpen(f->root());
            // The check's file tables are gone: hand their pages back, as
            // after the start-up sync, so an idle server stays small.
            if (was && !f->engine.reconciling()) ::malloc_trim(0);
            // A large claims directory is watched for in-place writes only
            // once start-up is over (lsp/ClaimsWatch.h), when no request
            // waits; the files are then checked again, so a rewrite made
            // before it was in place is still seen.
            if (queue_.empty() && !f->engine.reconciling() && f->watch.completeWatch()) {
                logLine("watching " + f->watch.dir() + " for writes in place too");
                f->engine.recheckClaims();
            }
        } catch (const std::exception& e) {
            logLine("reconciling " + f->root() + " failed: " + e.what());
        }
    }
}

void LspServer::reply(const json& msg) {
    if (exitCode_) return;
    // Invalid UTF-8 cannot reach here from claims (writes validate), but a
    // hand-edited file could carry it: replace rather than throw.
    transport_->send(msg.dump(-1, ' ', false, json::error_handler_t::replace));
}

void LspServer::onFrame(protocol::FrameEvent&& ev) {
    if (ev.kind == protocol::FrameEvent::Error) {
        logLine("framing error: " + ev.text);
        reply(protocol::errorReply(nullptr, code::ParseError, "ParseError", ev.text));
        return;
    }
    auto parsed = protocol::parseMessage(ev.text, "the message body");
    if (parsed.reply) {
        reply(*parsed.reply);
        return;
    }
    json msg = std::move(*parsed.message);
    if (!msg.is_object()) {
        reply(protocol::errorReply(nullptr, code::InvalidRequest, "InvalidRequest",
                                   "a JSON-RPC message must be an object"));
        return;
    }
    onMessage(std::move(msg));
}

void LspServer::onMessage(json msg) {
    auto checked = protocol::checkMessage(std::move(msg));
    if (checked.reply) reply(*checked.reply);
    if (!checked.message) return;
    auto& in = *checked.message;
    // A response to a server-to-client request (window/showDocument): the
    // client's answer changes nothing here.
    if (in.kind == protocol::Incoming::Kind::Response) return;
    json id = std::move(in.id);
    std::string method = std::move(in.method);
    json params = std::move(in.params);
    if (in.kind == protocol::Incoming::Kind::Notification) {
        // Lifecycle notifications act at once; the rest keep their order
        // relative to requests.
        if (method == "exit") {
            finish(state_ == State::ShuttingDown ? 0 : 1);
            return;
        }
        if (method == "$/cancelRequest") {
            json target = params.is_object() && params.contains("id") ? params["id"] : json();
            for (auto it = queue_.begin(); it != queue_.end(); ++it) {
                if (!it->id.is_null() && it->id == target) {
                    reply(protocol::errorReply(it->id, code::RequestCancelled, "RequestCancelled",
                                               "the request was cancelled before it ran"));
                    queue_.erase(it);
                    break;
                }
            }
            return;
        }
        if (state_ == State::Uninitialized) return; // LSP: dropped before initialize
    }
    queue_.push_back({id, std::move(method), std::move(params), false, {}});
    scheduleDrain();
}

void LspServer::scheduleDrain() {
    if (!idle_ || uv_is_active(reinterpret_cast<uv_handle_t*>(idle_))) return;
    uv_idle_start(idle_, [](uv_idle_t* h) { static_cast<LspServer*>(h->data)->drainOne(); });
}

void LspServer::drainOne() {
    if (queue_.empty()) {
        uv_idle_stop(idle_);
        return;
    }
    Pending p = std::move(queue_.front());
    queue_.pop_front();
    dispatch(p);
    if (queue_.empty() && idle_) uv_idle_stop(idle_);
}

void LspServer::dispatch(Pending& p) {
    bool isRequest = !p.id.is_null();
    if (p.internal) {
        try {
            startupSync(p.root);
        } catch (const std::exception& e) {
            logLine("start-up index sync of " + p.root + " failed: " + e.what());
        }
        return;
    }
    if (!isRequest) {
        auto it = notifications_.find(p.method);
        if (it == notifications_.end()) return; // unknown notifications are ignored
        try {
            (this->*(it->second))(p.params);
        } catch (const std::exception& e) {
            logLine("notification " + p.method + " failed: " + e.what());
        }
        return;
    }
    if (state_ == State::Uninitialized && p.method != "initialize") {
        reply(protocol::errorReply(p.id, code::ServerNotInitialized, "ServerNotInitialized",
                                   "the server has not been initialized; send initialize first"));
        return;
    }
    if (state_ == State::ShuttingDown) {
        reply(protocol::errorReply(p.id, code::InvalidRequest, "InvalidRequest",
                                   "the server is shutting down; only exit is accepted"));
        return;
    }
    auto it = requests_.find(p.method);
    const ops::Operation* op = it == requests_.end() ? ops::byMethod(p.method) : nullptr;
    if (it == requests_.end() && !op) {
        reply(protocol::errorReply(p.id, code::MethodNotFound, "MethodNotFound",
                                   "unknown method '" + p.method + "'"));
        return;
    }
    ensureWatching();
    pollReconcile();
    // Exactly one reply per request, whatever the handler does.
    try {
        reply(protocol::resultReply(p.id, op ? runOperation(*op, p.params)
                                             : (this->*(it->second))(p.params)));
    } catch (const ops::RoutingError& e) {
        reply(routingErrorReply(p.id, e));
    } catch (const EngramError& e) {
        reply(protocol::errorReply(p.id, e));
    } catch (const json::exception& e) {
        reply(protocol::errorReply(p.id, code::InvalidParams, "InvalidParams", e.what()));
    } catch (const std::exception& e) {
        logLine(p.method + " failed: " + e.what());
        reply(protocol::errorReply(p.id, code::InternalError, "InternalError", e.what()));
    }
}

json LspServer::onInitialize(const json& params) {
    if (state_ != State::Uninitialized)
        throw EngramError(ErrorKind::InvalidParams, "initialize was already received");
    protocol::Params p(params);
    // Every workspace folder is bound (each its own project store); without
    // folders, rootUri, rootPath, then --root / ENGRAM_ROOT / discovery.
    std::vector<std::string> roots;
    std::string source = "initialize";
    auto fromUri = [&](const std::string& uri, const std::string& field) {
        auto local = uriToPath(uri);
        if (!local) throw invalidField(field, "must be a file:// URI");
        return *local;
    };
    if (const json* folders = p.optArray("workspaceFolders"); folders && !folders->empty()) {
        for (size_t i = 0; i < folders->size(); ++i) {
            std::string field = "workspaceFolders[" + std::to_string(i) + "]";
            protocol::Params f((*folders)[i], field);
            roots.push_back(fromUri(f.reqString("uri"), field + ".uri"));
        }
    } else if (auto uri = p.optString("rootUri")) {
        roots.push_back(fromUri(*uri, "rootUri"));
    } else if (auto path = p.optString("rootPath")) {
        roots.push_back(*path);
    } else {
        roots.push_back(opts_.root);
        source = opts_.rootSource;
    }
    if (const json* io = p.optObject("initializationOptions"))
        if (auto agent = protocol::Params(*io, "initializationOptions").optString("agent"))
            editorAgent_ = *agent;
    if (const json* ci = p.optObject("clientInfo"); ci && editorAgent_ == "human:editor")
        if (auto name = protocol::Params(*ci, "clientInfo").optString("name"))
            editorAgent_ = "human:" + *name;
    if (const json* caps = p.optObject("capabilities")) {
        // A capability the client declares true; anything else (absent, or
        // not a boolean) is one it lacks.
        auto declared = [&](const char* pointer) {
            json::json_pointer at(pointer);
            return caps->contains(at) && caps->at(at).is_boolean() && caps->at(at).get<bool>();
        };
        workDoneProgress_ = declared("/window/workDoneProgress");
        codeLensRefresh_ = declared("/workspace/codeLens/refreshSupport");
    }
    // Each folder's index is opened and checked against its claim files
    // after this reply goes out, so a large store does not delay start-up.
    try {
        for (auto& r : roots)
            bindFolder(canonicalPath(r), source);
    } catch (...) {
        // Still uninitialized: a later initialize starts from nothing.
        std::erase_if(queue_, [](const Pending& q) { return q.internal; });
        folders_->clear();
        throw;
    }
    state_ = State::Running;

    json methods = json::array();
    for (auto& op : ops::operations())
        methods.push_back(op.method);
    json bound = json::array();
    for (auto* f : folders_->all())
        bound.push_back({{"root", f->root()}, {"fingerprint", f->engine.fingerprint()}});
    return {{"capabilities",
             {{"textDocumentSync",
               {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
              {"hoverProvider", true},
              {"codeLensProvider", {{"resolveProvider", false}}},
              {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
              {"executeCommandProvider",
               {{"commands",
                 {"engram.status", "engram.reindex", "engram.recall", "engram.reverify",
                  "engram.retract", "engram.resolve", "engram.openClaim", "engram.reverifyFile"}}}},
              {"workspace",
               {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}},
              {"experimental",
               {{"engram",
                 {{"methods", methods},
                  {"fingerprint", folders_->first().engine.fingerprint()},
                  {"roots", bound}}}}}}},
            {"serverInfo", {{"name", "engram"}, {"version", opts_.version}}}};
}

json LspServer::onInitialized(const json&) {
    return nullptr;
}

json LspServer::onShutdown(const json&) {
    state_ = State::ShuttingDown;
    return nullptr;
}

// Each operation parses its parameters first (a malformed call is told which
// field is wrong before anything else), then asks for its folder.
json LspServer::runOperation(const ops::Operation& op, const json& params) {
    lsp::Folder* folder = nullptr;
    std::optional<std::string> unbound;
    ops::Call call;
    call.bind = [&]() -> Engine& {
        auto hints = ops::routeHints(params, op.idArgument ? op.idArgument : "id");
        if (op.answersUnbound) {
            auto r = route(hints);
            folder = r.folder;
            unbound = r.unboundRoot;
        } else {
            folder = &bound(hints);
        }
        // A root inside the folder is the folder's (lsp/Workspaces.h, rule
        // 1): the engine is asked about the folder's root; one outside every
        // folder stays as written, for the envelope to report.
        if (hints.root) call.requestedRoot = unbound ? *hints.root : folder->root();
        return folder->engine;
    };
    // No default agent: over the LSP a write names who makes it.
    json out = op.run(call, params).value;
    if (unbound && out.is_object() && out.contains("envelope"))
        explainUnbound(out["envelope"], *unbound);
    if (op.effect != ops::Effect::Read) {
        // The first write creates the claims directory: watched from now,
        // and brought up to date with anything written there before the
        // watch began (so the watch can vouch for the directory's entries).
        if (folder->watch.start()) folder->engine.refresh();
        republishOpen();
    }
    return out;
}

json LspServer::runOperation(const char* toolName, const json& params) {
    return runOperation(*ops::byName(toolName), params);
}

json LspServer::onStatus(const json& params) {
    protocol::Params p(params);
    // The series is machine-wide (every store's recalls and reports).
    auto withConfusion = [&](json out, Engine& engine) {
        if (p.optBool("confusion").value_or(false))
            out["confusion"] = ops::status::toJson(engine.confusionSeries());
        return out;
    };
    // Off unless asked: the editor polls status for its status bar, and
    // counting instruction files' references reads git.
    bool instructions = p.optBool("instructions").value_or(false);
    if (auto root = p.optString("root")) {
        auto requested = ops::canonicalRootParam(*root, "root");
        auto r = route({requested, {}, {}, false});
        json out = ops::status::toJson(
            r.folder->engine.status(r.unboundRoot ? requested : r.folder->root(), instructions));
        if (r.unboundRoot) explainUnbound(out["envelope"], *r.unboundRoot);
        return withConfusion(std::move(out), r.folder->engine);
    }
    // The whole session: every folder's status under `roots`, and the first
    // folder's at the top level, where single-root clients read it.
    if (folders_->empty()) route({});
    json roots = json::array();
    for (auto* f : folders_->all()) {
        json one = ops::status::toJson(f->engine.status(std::nullopt, instructions));
        one["root"] = f->root();
        roots.push_back(std::move(one));
    }
    json out = roots[0];
    out.erase("root");
    out["roots"] = std::move(roots);
    return withConfusion(std::move(out), folders_->first().engine);
}

json LspServer::onExecuteCommand(const json& params) {
    protocol::Params p(params);
    std::string command = p.reqString("command");
    json args = json::object();
    if (const json* a = p.optArray("arguments"); a && !a->empty()) args = (*a)[0];
    if (command == "engram.status") return onStatus(args);
    if (command == "engram.recall") return runOperation("recall", args);
    // The code actions on memory diagnostics (lsp/Documents.cpp).
    if (command == "engram.reverify") return runOperation("reverify", args);
    if (command == "engram.retract") return runOperation("retract", args);
    if (command == "engram.reverifyFile") return runOperation("reverify_file", args);
    if (command == "engram.resolve") {
        // The code action on a claim a git merge left diverged or unmerged:
        // the resolve operation, made by the editor's user unless it says.
        if (args.is_object() && !args.contains("agent")) args["agent"] = editorAgent_;
        return runOperation("resolve", args);
    }
    if (command == "engram.openClaim") {
        // Asks the client to show the claim file (LSP 3.16 window/showDocument).
        std::string id = protocol::Params(args, "arguments[0]").reqString("id");
        std::string file = bound(ops::routeHints(args)).engine.get(id).file;
        reply({{"jsonrpc", "2.0"},
               {"id", "engram-show-" + std::to_string(++serverRequests_)},
               {"method", "window/showDocument"},
               {"params", {{"uri", pathToUri(file)}, {"takeFocus", true}}}});
        return {{"file", file}};
    }
    if (command == "engram.reindex") {
        // Maintenance, not a question: without a root every folder is
        // rebuilt rather than the call being refused as ambiguous, each by
        // the reindex operation.
        auto hints = ops::routeHints(args);
        if (folders_->empty()) route(hints); // NotBound
        if (hints.root || folders_->size() == 1) return runOperation("reindex", args);
        json out = json::array(), roots = json::array();
        for (auto* f : folders_->all()) {
            json one = runOperation("reindex", {{"root", f->root()}});
            json reports = one["reports"];
            out.insert(out.end(), reports.begin(), reports.end());
            roots.push_back({{"root", f->root()}, {"reports", std::move(reports)}});
        }
        return {{"reports", std::move(out)}, {"roots", std::move(roots)}};
    }
    throw invalidField("command", "unknown command '" + command + "'");
}

} // namespace engram
