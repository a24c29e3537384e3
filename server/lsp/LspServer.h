// `engram serve`: the engine behind the LSP base protocol on stdio.
//
// One method table maps each method to a handler taking params and returning
// a result (or throwing EngramError). dispatch() guarantees that every
// request is answered exactly once: by its handler, by an error, or by a
// cancellation. Requests are queued and run one per loop turn, so input keeps
// being read between them: a `$/cancelRequest` for a queued request takes
// effect, and a client that floods the server is still heard.
#pragma once
#include "engine/Engine.h"
#include "lsp/Transport.h"
#include "protocol/JsonRpc.h"

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <uv.h>

namespace engram {

struct ServerOptions {
    std::string root;       // default binding when initialize names none
    std::string rootSource; // --root | ENGRAM_ROOT | discovered
    std::string home;       // $ENGRAM_HOME
    std::string version;
};

class LspServer {
public:
    explicit LspServer(ServerOptions opts);
    ~LspServer();
    // Runs until `exit` or end of input; returns the process exit code.
    int run();

private:
    using json = protocol::json;
    using Handler = json (LspServer::*)(const json& params);

    struct Pending {
        json id; // null for notifications
        std::string method;
        json params;
        bool internal = false; // the start-up sync, queued by initialize
    };

    void onFrame(protocol::FrameEvent&& ev);
    void onMessage(json msg);
    void drainOne();
    void dispatch(Pending& p);
    void reply(const json& msg);
    void scheduleDrain();
    void finish(int code);
    void startupSync();
    // Indexes the workspace's code, showing work-done progress when the
    // client supports it.
    void indexCodeWithProgress();
    // Starts watching the claims directory; false when it does not exist
    // (yet) or is already watched.
    bool startWatching();
    // Watches a store created after start-up, catching up with its files.
    void ensureWatching();
    void onWatchTimer();

    // Lifecycle.
    json onInitialize(const json& params);
    json onShutdown(const json& params);
    // Notifications.
    json onInitialized(const json& params);
    json onDidChangeWatchedFiles(const json& params);
    // engram methods.
    json onRemember(const json& params);
    json onRecall(const json& params);
    json onGet(const json& params);
    json onRetract(const json& params);
    json onLearn(const json& params);
    json onReverify(const json& params);
    json onStatus(const json& params);
    json onExecuteCommand(const json& params);
    json onAnchors(const json& params);
    // Documents and the features on them (lsp/Documents.cpp).
    json onDidOpen(const json& params);
    json onDidChange(const json& params);
    json onDidSave(const json& params);
    json onDidClose(const json& params);
    json onHover(const json& params);
    json onCodeLens(const json& params);
    json onCodeAction(const json& params);
    void publishDiagnostics(const std::string& path, std::optional<int64_t> version);
    // After memory changed (a write, or claim files changed on disk), every
    // open document's diagnostics are published again.
    void republishOpen();

    Engine& engine();

    ServerOptions opts_;
    std::map<std::string, Handler> requests_;
    std::map<std::string, Handler> notifications_;
    enum class State { Uninitialized, Running, ShuttingDown } state_ = State::Uninitialized;
    std::unique_ptr<Engine> engine_;
    std::deque<Pending> queue_;
    std::optional<int> exitCode_;

    uv_loop_t loop_{};
    std::unique_ptr<StdioTransport> transport_;
    uv_idle_t* idle_ = nullptr;
    uv_fs_event_t* watcher_ = nullptr;
    uv_timer_t* watchTimer_ = nullptr;
    std::set<std::string> changedIds_;
    std::map<std::string, std::optional<int64_t>> openDocs_; // path -> last version
    int64_t serverRequests_ = 0; // ids of requests engram sends the client
    // Who acts through the editor's code actions: initializationOptions.agent,
    // else "human:<clientInfo.name>".
    std::string editorAgent_ = "human:editor";
    bool workDoneProgress_ = false; // the client accepts window/workDoneProgress
    bool fullRescan_ = false;
};

} // namespace engram
