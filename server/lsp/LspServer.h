// `engram serve`: the engine behind the LSP base protocol on stdio.
//
// Every engram/* method is an operation of ops/Operations.cpp, run by one
// handler (runOperation); a method table maps the LSP's own methods, and
// engram/status (whose LSP form covers every folder), to handlers taking
// params and returning a result (or throwing EngramError). dispatch() guarantees that every
// request is answered exactly once: by its handler, by an error, or by a
// cancellation. Requests are queued and run one per loop turn, so input keeps
// being read between them: a `$/cancelRequest` for a queued request takes
// effect, and a client that floods the server is still heard.
//
// A session serves one or more workspace folders (lsp/Workspaces.h), each
// with its own Engine; every call is routed to one of them
// (lsp/Routing.cpp), and folders come and go with
// workspace/didChangeWorkspaceFolders (lsp/Folders.cpp).
#pragma once
#include "engine/Engine.h"
#include "lsp/Transport.h"
#include "lsp/Workspaces.h"
#include "ops/Operation.h"
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
        bool internal = false; // a folder's start-up sync, queued when it is bound
        std::string root;      // that folder
    };

    // An open document: its version, the folder that holds it (empty when
    // none does) and, only then, its text, kept here so that a folder added
    // later can take the document over with its unsaved edits.
    struct OpenDoc {
        std::optional<int64_t> version;
        std::string owner;
        std::optional<std::string> text;
    };

    void onFrame(protocol::FrameEvent&& ev);
    void onMessage(json msg);
    void drainOne();
    void dispatch(Pending& p);
    void reply(const json& msg);
    void scheduleDrain();
    void finish(int code);

    // Folders (lsp/Folders.cpp).
    // Binds a folder and queues its start-up sync; false when already bound.
    bool bindFolder(const std::string& root, const std::string& source);
    void startupSync(const std::string& root);
    // Indexes the folder's code, showing work-done progress when the client
    // supports it.
    void indexCodeWithProgress(lsp::Folder& f);
    // Reports the start-up walk's progress, and its end once it ended.
    void pollCodeWalk(lsp::Folder& f);
    void codeWalkEnded(lsp::Folder& f, const CodeIndexReport& report);
    // Watches stores created after start-up, catching up with their files.
    void ensureWatching();
    void onClaimsChanged(const std::string& root, const std::set<std::string>& ids, bool full);
    // After folders were added or removed: each open document moves, with
    // its text, to the folder that now holds it; `detached` are the folders
    // just removed (still alive, so their documents' text can be read).
    void rehomeDocuments(const std::vector<std::unique_ptr<lsp::Folder>>& detached);

    // Routing by the rules both servers share (ops/Routing.h; lsp/Routing.cpp).
    struct Route {
        lsp::Folder* folder = nullptr;
        std::optional<std::string> unboundRoot; // a root the session does not serve
    };
    Route route(const ops::RouteHints& hints);
    // As route(), refusing a root that is not bound (NotBound): only recall,
    // status and inbox answer for a root they do not serve.
    lsp::Folder& bound(const ops::RouteHints& hints);
    // The `recovery` of an answer for a root that is not bound names the
    // bound ones.
    void explainUnbound(json& envelope, const std::string& requested);

    // Lifecycle.
    json onInitialize(const json& params);
    json onShutdown(const json& params);
    // Notifications.
    json onInitialized(const json& params);
    json onDidChangeWatchedFiles(const json& params);
    json onDidChangeWorkspaceFolders(const json& params);
    // engram methods: any operation, routed to its folder; after a write,
    // open documents' diagnostics follow.
    json runOperation(const ops::Operation& op, const json& params);
    json runOperation(const char* toolName, const json& params);
    json onStatus(const json& params);
    json onExecuteCommand(const json& params);
    // Documents and the features on them (lsp/Documents.cpp).
    json onDidOpen(const json& params);
    json onDidChange(const json& params);
    json onDidSave(const json& params);
    json onDidClose(const json& params);
    json onHover(const json& params);
    json onCodeLens(const json& params);
    json onCodeAction(const json& params);
    // The same features on an instruction file's references.
    json instructionHover(Engine& engine, const std::string& root, const std::string& rel,
                          const std::string& text, uint32_t line, uint32_t column);
    void instructionActions(const std::string& path, const json& diagnostic, json& actions);
    // Publishes the document's memory diagnostics from the folder holding
    // it (nothing for a document outside every folder).
    void publishDiagnostics(const std::string& path, std::optional<int64_t> version);
    void clearDiagnostics(const std::string& path);
    // After memory changed (a write, or claim files changed on disk), the
    // open documents' diagnostics are published again: those of one folder,
    // or of all.
    void republishOpen(const std::string& onlyRoot = "");
    // The folder holding a document (by its absolute path), or nullptr.
    lsp::Folder* ownerOf(const std::string& path);

    ServerOptions opts_;
    std::map<std::string, Handler> requests_;
    std::map<std::string, Handler> notifications_;
    enum class State { Uninitialized, Running, ShuttingDown } state_ = State::Uninitialized;
    std::deque<Pending> queue_;
    std::optional<int> exitCode_;

    uv_loop_t loop_{};
    std::unique_ptr<StdioTransport> transport_;
    uv_idle_t* idle_ = nullptr;
    // Applies background reconciliation as it finishes (Engine::pollReconcile).
    uv_timer_t* reconcileTimer_ = nullptr;
    void pollReconcile();
    std::unique_ptr<lsp::Workspaces> folders_;
    std::map<std::string, OpenDoc> openDocs_; // by absolute path
    int64_t serverRequests_ = 0;              // ids of requests engram sends the client
    // Who acts through the editor's code actions: initializationOptions.agent,
    // else "human:<clientInfo.name>".
    std::string editorAgent_ = "human:editor";
    bool workDoneProgress_ = false; // the client accepts window/workDoneProgress
    bool codeLensRefresh_ = false;  // the client accepts workspace/codeLens/refresh
};

} // namespace engram
