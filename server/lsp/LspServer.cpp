// LSP lifecycle, method table and request queue.
#include "lsp/LspServer.h"

#include "lsp/Log.h"
#include "protocol/Convert.h"
#include "util/Paths.h"

#include <malloc.h>

namespace engram {

using protocol::json;
namespace code = protocol::code;

namespace {

// Closes a libuv handle and frees it once libuv is done with it.
template <class H>
void closeHandle(H*& h) {
    if (!h) return;
    uv_close(reinterpret_cast<uv_handle_t*>(h),
             [](uv_handle_t* p) { delete reinterpret_cast<H*>(p); });
    h = nullptr;
}

bool validId(const json& id) {
    return id.is_string() || id.is_number_integer();
}

// Methods a client may call; also advertised under experimental.engram.
const char* kEngramMethods[] = {"engram/remember", "engram/recall", "engram/get",
                                "engram/retract",  "engram/learn",  "engram/status",
                                "engram/reverify", "engram/anchors"};

// Requests that change memory: open documents' diagnostics follow them.
const std::set<std::string> kWrites = {"engram/remember", "engram/retract", "engram/learn",
                                       "engram/reverify"};

} // namespace

LspServer::LspServer(ServerOptions opts)
    : opts_(std::move(opts)) {
    uv_loop_init(&loop_);
    requests_ = {
        {"initialize", &LspServer::onInitialize},
        {"shutdown", &LspServer::onShutdown},
        {"engram/remember", &LspServer::onRemember},
        {"engram/recall", &LspServer::onRecall},
        {"engram/get", &LspServer::onGet},
        {"engram/retract", &LspServer::onRetract},
        {"engram/learn", &LspServer::onLearn},
        {"engram/reverify", &LspServer::onReverify},
        {"engram/status", &LspServer::onStatus},
        {"workspace/executeCommand", &LspServer::onExecuteCommand},
        {"textDocument/hover", &LspServer::onHover},
        {"textDocument/codeLens", &LspServer::onCodeLens},
        {"textDocument/codeAction", &LspServer::onCodeAction},
        {"engram/anchors", &LspServer::onAnchors},
    };
    notifications_ = {
        {"initialized", &LspServer::onInitialized},
        {"workspace/didChangeWatchedFiles", &LspServer::onDidChangeWatchedFiles},
        {"textDocument/didOpen", &LspServer::onDidOpen},
        {"textDocument/didChange", &LspServer::onDidChange},
        {"textDocument/didSave", &LspServer::onDidSave},
        {"textDocument/didClose", &LspServer::onDidClose},
    };
}

LspServer::~LspServer() {
    closeHandle(idle_);
    closeHandle(watcher_);
    closeHandle(watchTimer_);
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
    transport_->start();
    uv_run(&loop_, UV_RUN_DEFAULT);
    return exitCode_.value_or(1);
}

void LspServer::finish(int code) {
    if (exitCode_) return;
    exitCode_ = code;
    queue_.clear();
    if (idle_) uv_idle_stop(idle_);
    if (watcher_) uv_fs_event_stop(watcher_);
    if (watchTimer_) uv_timer_stop(watchTimer_);
    transport_->close();
    closeHandle(idle_);
    closeHandle(watcher_);
    closeHandle(watchTimer_);
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
    json msg = json::parse(ev.text, nullptr, false);
    if (msg.is_discarded()) {
        reply(protocol::errorReply(nullptr, code::ParseError, "ParseError",
                                   "the message body is not valid JSON"));
        return;
    }
    if (!msg.is_object()) {
        reply(protocol::errorReply(nullptr, code::InvalidRequest, "InvalidRequest",
                                   "a JSON-RPC message must be an object"));
        return;
    }
    onMessage(std::move(msg));
}

void LspServer::onMessage(json msg) {
    auto idIt = msg.find("id");
    bool hasId = idIt != msg.end();
    json id = hasId ? *idIt : json(nullptr);
    auto m = msg.find("method");
    if (m == msg.end()) {
        // A response to a server-to-client request; none are outstanding yet.
        if (msg.contains("result") || msg.contains("error")) return;
        reply(protocol::errorReply(hasId && validId(id) ? id : json(nullptr), code::InvalidRequest,
                                   "InvalidRequest", "the message has no method"));
        return;
    }
    if (!m->is_string()) {
        reply(protocol::errorReply(hasId && validId(id) ? id : json(nullptr), code::InvalidRequest,
                                   "InvalidRequest", "method must be a string"));
        return;
    }
    if (hasId && !validId(id)) {
        reply(protocol::errorReply(nullptr, code::InvalidRequest, "InvalidRequest",
                                   "id must be a string or an integer"));
        return;
    }
    std::string method = m->get<std::string>();
    json params = msg.contains("params") ? msg["params"] : json(nullptr);
    if (!params.is_null() && !params.is_object() && !params.is_array()) {
        if (hasId)
            reply(protocol::errorReply(id, code::InvalidRequest, "InvalidRequest",
                                       "params must be an object or an array"));
        return;
    }

    // An empty array is how some clients (Neovim's, from an empty Lua table)
    // send "no parameters": every engram method takes named ones.
    if (params.is_array() && params.empty()) params = nullptr;

    if (!hasId) {
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
    queue_.push_back({id, std::move(method), std::move(params), false});
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
            startupSync();
        } catch (const std::exception& e) {
            logLine(std::string("start-up index sync failed: ") + e.what());
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
    if (it == requests_.end()) {
        reply(protocol::errorReply(p.id, code::MethodNotFound, "MethodNotFound",
                                   "unknown method '" + p.method + "'"));
        return;
    }
    ensureWatching();
    // Exactly one reply per request, whatever the handler does.
    try {
        reply(protocol::resultReply(p.id, (this->*(it->second))(p.params)));
        if (kWrites.count(p.method)) republishOpen();
    } catch (const EngramError& e) {
        reply(protocol::errorReply(p.id, e));
    } catch (const json::exception& e) {
        reply(protocol::errorReply(p.id, code::InvalidParams, "InvalidParams", e.what()));
    } catch (const std::exception& e) {
        logLine(p.method + " failed: " + e.what());
        reply(protocol::errorReply(p.id, code::InternalError, "InternalError", e.what()));
    }
}

Engine& LspServer::engine() {
    if (!engine_) throw EngramError(ErrorKind::NotBound, "no workspace is bound");
    return *engine_;
}

json LspServer::onInitialize(const json& params) {
    if (state_ != State::Uninitialized)
        throw EngramError(ErrorKind::InvalidParams, "initialize was already received");
    protocol::Params p(params);
    std::string root = opts_.root, source = opts_.rootSource;
    auto fromUri = [&](const std::string& uri, const std::string& field) {
        auto local = uriToPath(uri);
        if (!local) throw invalidField(field, "must be a file:// URI");
        return *local;
    };
    if (const json* folders = p.optArray("workspaceFolders"); folders && !folders->empty()) {
        protocol::Params f((*folders)[0], "workspaceFolders[0]");
        root = fromUri(f.reqString("uri"), "workspaceFolders[0].uri");
        source = "initialize";
    } else if (auto uri = p.optString("rootUri")) {
        root = fromUri(*uri, "rootUri");
        source = "initialize";
    } else if (auto path = p.optString("rootPath")) {
        root = *path;
        source = "initialize";
    }
    if (const json* io = p.optObject("initializationOptions"))
        if (auto agent = protocol::Params(*io, "initializationOptions").optString("agent"))
            editorAgent_ = *agent;
    if (const json* ci = p.optObject("clientInfo"); ci && editorAgent_ == "human:editor")
        if (auto name = protocol::Params(*ci, "clientInfo").optString("name"))
            editorAgent_ = "human:" + *name;
    if (const json* caps = p.optObject("capabilities"))
        if (caps->contains("window") && (*caps)["window"].is_object())
            workDoneProgress_ = (*caps)["window"].value("workDoneProgress", false);
    EngineOptions eo{canonicalPath(root), source, opts_.home, 30, opts_.version};
    engine_ = std::make_unique<Engine>(eo);
    state_ = State::Running;
    logLine("bound to " + eo.root + " (" + source + ")");

    // The index is opened and checked against the claim files after this
    // reply goes out, so a large store does not delay start-up.
    queue_.push_front({nullptr, "startup", nullptr, true});
    scheduleDrain();

    json methods = json::array();
    for (auto* m : kEngramMethods)
        methods.push_back(m);
    return {{"capabilities",
             {{"textDocumentSync",
               {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
              {"hoverProvider", true},
              {"codeLensProvider", {{"resolveProvider", false}}},
              {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
              {"executeCommandProvider",
               {{"commands",
                 {"engram.status", "engram.reindex", "engram.recall", "engram.reverify",
                  "engram.retract", "engram.openClaim"}}}},
              {"workspace", {{"workspaceFolders", {{"supported", true}}}}},
              {"experimental",
               {{"engram", {{"methods", methods}, {"fingerprint", engine_->fingerprint()}}}}}}},
            {"serverInfo", {{"name", "engram"}, {"version", opts_.version}}}};
}

json LspServer::onInitialized(const json&) {
    return nullptr;
}

void LspServer::startupSync() {
    // Bring the indexes in line with the files (changes made while engram
    // was not running), then watch for changes.
    for (auto& r : engine_->refresh())
        if (r.added || r.updated || r.removed || r.broken || r.rebuilt)
            logLine("index sync: +" + std::to_string(r.added) + " ~" + std::to_string(r.updated) +
                    " -" + std::to_string(r.removed) + " broken " + std::to_string(r.broken) +
                    (r.rebuilt ? " (rebuilt: " + r.rebuildReason + ")" : ""));
    indexCodeWithProgress();
    // The sync's file lists are gone; hand their pages back so an idle
    // server stays small.
    ::malloc_trim(0);
    startWatching();
}

void LspServer::indexCodeWithProgress() {
    // Only a workspace with memory needs its code indexed (for moves across
    // files); the first write to a new store indexes lazily.
    if (!statFile(engine_->projectDir() + "/claims")) return;
    std::string token = "engram-index-" + std::to_string(++serverRequests_);
    if (workDoneProgress_) {
        reply({{"jsonrpc", "2.0"},
               {"id", token},
               {"method", "window/workDoneProgress/create"},
               {"params", {{"token", token}}}});
        reply(protocol::notification("$/progress", {{"token", token},
                                                    {"value",
                                                     {{"kind", "begin"},
                                                      {"title", "engram: indexing code"},
                                                      {"percentage", 0},
                                                      {"cancellable", false}}}}));
    }
    auto report = engine_->indexCode([&](size_t done, size_t total) {
        if (!workDoneProgress_ || total == 0) return;
        reply(protocol::notification(
            "$/progress",
            {{"token", token},
             {"value",
              {{"kind", "report"},
               {"message", std::to_string(done) + "/" + std::to_string(total) + " files"},
               {"percentage", int(100 * done / total)}}}}));
    });
    if (workDoneProgress_)
        reply(protocol::notification(
            "$/progress", {{"token", token},
                           {"value",
                            {{"kind", "end"},
                             {"message", std::to_string(report.files) + " files, " +
                                             std::to_string(report.parsed) + " parsed"}}}}));
    logLine("code index: " + std::to_string(report.files) + " files, " +
            std::to_string(report.parsed) + " parsed, " + std::to_string(report.symbols) +
            " symbols, " + std::to_string(report.removed) + " removed");
}

json LspServer::onShutdown(const json&) {
    state_ = State::ShuttingDown;
    return nullptr;
}

bool LspServer::startWatching() {
    if (watcher_ || !engine_) return false;
    std::string dir = engine_->projectDir() + "/claims";
    if (!statFile(dir)) return false; // tried again by later requests (ensureWatching)
    watcher_ = new uv_fs_event_t;
    uv_fs_event_init(&loop_, watcher_);
    watcher_->data = this;
    int rc = uv_fs_event_start(
        watcher_,
        [](uv_fs_event_t* h, const char* name, int, int status) {
            auto* self = static_cast<LspServer*>(h->data);
            std::string n = name ? name : "";
            if (status < 0 || n.empty())
                self->fullRescan_ = true;
            else if (n.size() > 3 && n.compare(n.size() - 3, 3, ".md") == 0)
                self->changedIds_.insert(n.substr(0, n.size() - 3));
            else
                return; // temporary files of atomic writes
            // Debounce: a `git checkout` touches many files at once.
            uv_timer_start(
                self->watchTimer_,
                [](uv_timer_t* t) { static_cast<LspServer*>(t->data)->onWatchTimer(); }, 50, 0);
        },
        dir.c_str(), 0);
    if (rc != 0) {
        logLine("cannot watch " + dir + ": " + uv_strerror(rc));
        closeHandle(watcher_);
        return false;
    }
    watchTimer_ = new uv_timer_t;
    uv_timer_init(&loop_, watchTimer_);
    watchTimer_->data = this;
    return true;
}

void LspServer::ensureWatching() {
    if (watcher_ || !engine_) return;
    try {
        // The store appeared after start-up (the CLI, another engram, a git
        // pull): files may have changed between the index opening and now.
        if (startWatching()) engine_->refresh();
    } catch (const std::exception& e) {
        logLine(std::string("watching the claims directory failed: ") + e.what());
    }
}

void LspServer::onWatchTimer() {
    if (!engine_) return;
    try {
        if (fullRescan_) {
            engine_->refresh();
        } else {
            std::vector<std::string> ids(changedIds_.begin(), changedIds_.end());
            engine_->refresh(&ids);
        }
    } catch (const std::exception& e) {
        logLine(std::string("index sync after a file change failed: ") + e.what());
    }
    changedIds_.clear();
    fullRescan_ = false;
    republishOpen();
}

json LspServer::onDidChangeWatchedFiles(const json& params) {
    protocol::Params p(params);
    std::vector<std::string> ids;
    bool claimsChanged = false;
    if (const json* changes = p.optArray("changes")) {
        std::string claimsDir = engine().projectDir() + "/claims/";
        for (auto& c : *changes) {
            if (!c.is_object() || !c.contains("uri") || !c["uri"].is_string()) continue;
            auto path = uriToPath(c["uri"].get<std::string>());
            if (!path || path->compare(0, claimsDir.size(), claimsDir) != 0) continue;
            std::string name = path->substr(claimsDir.size());
            if (name.size() > 3 && name.compare(name.size() - 3, 3, ".md") == 0) {
                ids.push_back(name.substr(0, name.size() - 3));
                claimsChanged = true;
            }
        }
    }
    if (claimsChanged) engine().refresh(&ids);
    // Claim files or source files changed on disk: either can change what
    // the open documents' diagnostics say.
    republishOpen();
    return nullptr;
}

json LspServer::onRemember(const json& params) {
    auto result = protocol::toJson(engine().remember(protocol::parseRemember(params)));
    startWatching(); // the first write creates the claims directory
    return result;
}

json LspServer::onRecall(const json& params) {
    return protocol::toJson(engine().recall(protocol::parseRecall(params)));
}

json LspServer::onGet(const json& params) {
    return protocol::toJson(engine().get(protocol::Params(params).reqString("id")));
}

json LspServer::onRetract(const json& params) {
    protocol::Params p(params);
    return {{"claim", protocol::toJson(engine().retract(p.reqString("id"), p.reqString("agent"),
                                                        p.reqString("reason")))}};
}

json LspServer::onLearn(const json& params) {
    protocol::Params p(params);
    return protocol::toJson(engine().learn(p.reqString("id"), p.reqString("verdict"),
                                           p.reqString("agent"), p.optString("note").value_or("")));
}

json LspServer::onReverify(const json& params) {
    protocol::Params p(params);
    return protocol::toJson(engine().reverify(p.reqString("id"), p.reqString("agent"),
                                              p.optString("note").value_or("")));
}

json LspServer::onStatus(const json& params) {
    return protocol::toJson(engine().status(protocol::Params(params).optString("root")));
}

json LspServer::onExecuteCommand(const json& params) {
    protocol::Params p(params);
    std::string command = p.reqString("command");
    json args = json::object();
    if (const json* a = p.optArray("arguments"); a && !a->empty()) args = (*a)[0];
    if (command == "engram.status") return onStatus(args);
    if (command == "engram.recall") return onRecall(args);
    // The code actions on memory diagnostics (lsp/Documents.cpp).
    if (command == "engram.reverify") {
        json out = onReverify(args);
        republishOpen();
        return out;
    }
    if (command == "engram.retract") {
        json out = onRetract(args);
        republishOpen();
        return out;
    }
    if (command == "engram.openClaim") {
        // Asks the client to show the claim file (LSP 3.16 window/showDocument).
        std::string file = engine().get(protocol::Params(args).reqString("id")).file;
        reply({{"jsonrpc", "2.0"},
               {"id", "engram-show-" + std::to_string(++serverRequests_)},
               {"method", "window/showDocument"},
               {"params", {{"uri", pathToUri(file)}, {"takeFocus", true}}}});
        return {{"file", file}};
    }
    if (command == "engram.reindex") {
        json out = json::array();
        for (auto& r : engine().reindex())
            out.push_back(protocol::toJson(r));
        return {{"reports", out}};
    }
    throw invalidField("command", "unknown command '" + command + "'");
}

} // namespace engram
