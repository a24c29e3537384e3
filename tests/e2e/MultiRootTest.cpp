// Multi-root workspaces over the real binary: several workspace folders in
// one `engram serve` session, each its own project store. Calls are routed
// by their document, their `root`, or the claim they name; a call that could
// be about several folders is refused AmbiguousRoot; a root the session does
// not serve is reported (recall, status) or refused (everything else); and
// folders come and go with workspace/didChangeWorkspaceFolders. Every claim
// is checked on disk: it must be in its own folder's store and nowhere else.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_MultiRootTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

json errorOf(const json& reply) {
    INFO(reply.dump());
    REQUIRE(reply.contains("error"));
    return reply["error"];
}

std::set<std::string> idSet(const json& recallResult) {
    auto ids = rowIds(recallResult);
    return {ids.begin(), ids.end()};
}

// Two copies of the sample workspace, "alpha" and "beta", side by side.
struct TwoFolders {
    TempDir parent;
    std::string a = parent / "alpha";
    std::string b = parent / "beta";
    Server s;
    TwoFolders() {
        for (auto& dir : {a, b}) {
            fs::create_directory(dir);
            copySampleWorkspace(dir);
        }
    }
    json remember(const json& params) { return s.call("engram/remember", params); }
    json recall(const json& params) { return s.call("engram/recall", params); }
    json error(const std::string& method, const json& params) {
        return errorOf(s.request(method, params));
    }
};

void openDoc(Server& s, const std::string& path, int version = 1) {
    s.notify("textDocument/didOpen", {{"textDocument",
                                       {{"uri", fileUri(path)},
                                        {"languageId", "python"},
                                        {"version", version},
                                        {"text", *slurp(path)}}}});
}

// An unsaved edit inside `connect` of the sample's src/db.py.
void editConnect(Server& s, const std::string& path, int version) {
    std::string text = *slurp(path);
    json from = position(text, "\"pool_size\": pool_size");
    json to = position(text, "\"pool_size\": pool_size", 22);
    s.notify("textDocument/didChange",
             {{"textDocument", {{"uri", fileUri(path)}, {"version", version}}},
              {"contentChanges",
               {{{"range", {{"start", from}, {"end", to}}}, {"text", "\"pool_size\": 2"}}}}});
}

// The last diagnostics published for each uri before the server answered a
// barrier request (everything the server did for earlier messages has been
// written by then).
std::map<std::string, json> published(Server& s) {
    int barrier = s.nextId();
    s.send({{"jsonrpc", "2.0"},
            {"id", barrier},
            {"method", "engram/status"},
            {"params", json::object()}});
    std::map<std::string, json> last;
    for (int i = 0; i < 1000; ++i) {
        auto msg = s.readMessage();
        REQUIRE(msg);
        if (msg->contains("id") && (*msg)["id"] == barrier && !msg->contains("method")) return last;
        if (msg->value("method", "") == "textDocument/publishDiagnostics")
            last[(*msg)["params"]["uri"].get<std::string>()] = (*msg)["params"];
    }
    FAIL("no reply to the barrier request");
    return last;
}

// As published(), for one uri; null when nothing was published for it.
json lastPublished(Server& s, const std::string& uri) {
    auto all = published(s);
    return all.count(uri) ? all[uri] : json(nullptr);
}

// Recall until pred holds (the claims watch debounces), bounded.
json pollRecall(Server& s, const json& params, const std::function<bool(const json&)>& pred) {
    json r;
    for (int i = 0; i < 100; ++i) {
        r = s.call("engram/recall", params);
        if (pred(r)) return r;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return r;
}

std::string withText(const std::string& file, const std::string& text) {
    auto close = file.find("\n---\n");
    REQUIRE(close != std::string::npos);
    return file.substr(0, close + 5) + text + "\n";
}

json folderEvent(const std::vector<std::string>& added, const std::vector<std::string>& removed) {
    json event = {{"added", json::array()}, {"removed", json::array()}};
    for (auto& r : added)
        event["added"].push_back({{"uri", fileUri(r)}, {"name", fs::path(r).filename().string()}});
    for (auto& r : removed)
        event["removed"].push_back(
            {{"uri", fileUri(r)}, {"name", fs::path(r).filename().string()}});
    return {{"event", event}};
}

} // namespace

TEST_CASE("initialize binds every workspace folder, advertises folder changes and status reports "
          "each root",
          "[e2e][multiroot]") {
    TwoFolders w;
    json init = w.s.initializeFolders({w.a, w.b});
    auto& folders = init["capabilities"]["workspace"]["workspaceFolders"];
    CHECK(folders["supported"] == true);
    CHECK(folders["changeNotifications"] == true);
    auto& engram = init["capabilities"]["experimental"]["engram"];
    CHECK(engram["fingerprint"] == sha256Hex(w.a).substr(0, 16));
    REQUIRE(engram["roots"].size() == 2);
    CHECK(engram["roots"][0]["root"] == w.a);
    CHECK(engram["roots"][0]["fingerprint"] == sha256Hex(w.a).substr(0, 16));
    CHECK(engram["roots"][1]["root"] == w.b);
    CHECK(engram["roots"][1]["fingerprint"] == sha256Hex(w.b).substr(0, 16));

    w.remember(rememberParams("Beta keeps its own memory", "", {{"root", w.b}}));

    // Without a root: every folder's status, the first one's at the top.
    json status = w.s.call("engram/status");
    REQUIRE(status["roots"].size() == 2);
    CHECK(status["roots"][0]["root"] == w.a);
    CHECK(status["roots"][0]["envelope"]["binding"]["root"] == w.a);
    CHECK(status["roots"][1]["root"] == w.b);
    CHECK(status["roots"][1]["envelope"]["binding"]["root"] == w.b);
    CHECK(storeOf(status["roots"][0]["envelope"])["claims"]["committed"] == 0);
    CHECK(storeOf(status["roots"][1]["envelope"])["claims"]["committed"] == 1);
    CHECK(status["envelope"]["binding"]["root"] == w.a);
    CHECK(status["envelope"]["trust_mode"] == "needs_index");
    CHECK(status.contains("anchor_health"));

    // With a bound root: that folder alone.
    json beta = w.s.call("engram/status", {{"root", w.b}});
    CHECK(beta["envelope"]["binding"]["root"] == w.b);
    CHECK(beta["envelope"]["binding"]["mismatch"] == false);
    CHECK(beta["envelope"]["trust_mode"] == "full_trust");
    CHECK_FALSE(beta.contains("roots"));
}

TEST_CASE("a claim remembered through a folder's document lands in that folder's store only, and "
          "recall by root sees only its own claims and the medulla",
          "[e2e][multiroot]") {
    TwoFolders w;
    w.s.initializeFolders({w.a, w.b});
    std::string authA = w.a + "/src/auth.py";
    openDoc(w.s, authA);
    json ca = w.remember({{"text", "Alpha's validate returns ok=False for expired tokens"},
                          {"agent", "test:e2e"},
                          {"anchors",
                           {{{"uri", fileUri(authA)},
                             {"position", position(*slurp(authA), "if token.expires_at")}}}}});
    std::string idA = ca["claim"]["id"];
    CHECK(ca["claim"]["anchors"][0]["symbol"] == "TokenValidator.validate");
    CHECK(ca["claim"]["origin"] == "project:alpha");

    json cb = w.remember({{"text", "Beta's connect opens a pooled connection"},
                          {"agent", "test:e2e"},
                          {"anchors", {{{"path", w.b + "/src/db.py"}, {"symbol", "connect"}}}}});
    std::string idB = cb["claim"]["id"];
    CHECK(cb["claim"]["origin"] == "project:beta");

    // A medulla claim needs no folder: it is the same store from every one.
    json cm = w.remember(
        rememberParams("Doctrine: prefer small pure functions", "", {{"tier", "medulla"}}));
    std::string idM = cm["claim"]["id"];
    CHECK(cm["tier"] == "medulla");

    // On disk: each claim in its own store and nowhere else.
    CHECK(filesIn(claimsDir(w.a), ".md") == std::vector<std::string>{idA + ".md"});
    CHECK(filesIn(claimsDir(w.b), ".md") == std::vector<std::string>{idB + ".md"});
    CHECK(filesIn(w.s.home() + "/medulla/claims", ".md") == std::vector<std::string>{idM + ".md"});

    json ra = w.recall({{"root", w.a}});
    CHECK(idSet(ra) == std::set<std::string>{idA, idM});
    CHECK(ra["envelope"]["binding"]["root"] == w.a);
    CHECK(ra["envelope"]["binding"]["mismatch"] == false);
    for (auto& row : ra["rows"])
        CHECK(row["tier"] == (row["id"] == idM ? "medulla" : "project"));
    // A root given as a file:// URI names the same folder.
    json rb = w.recall({{"root", fileUri(w.b)}});
    CHECK(idSet(rb) == std::set<std::string>{idB, idM});
    CHECK(rb["envelope"]["binding"]["root"] == w.b);
    // Project tier only: nothing of the other folder, nothing of the medulla.
    CHECK(idSet(w.recall({{"root", w.b}, {"tier", "project"}})) == std::set<std::string>{idB});
    // A query: each folder answers from its own store.
    CHECK(idSet(w.recall({{"root", w.a}, {"query", "connect pooled connection"}})).count(idB) == 0);
    CHECK(idSet(w.recall({{"root", w.b}, {"query", "connect pooled connection"}})).count(idB) == 1);

    // A document routes recall too.
    CHECK(idSet(w.recall({{"path", w.b + "/src/db.py"}})) == std::set<std::string>{idB, idM});
    CHECK(idSet(w.recall({{"uri", fileUri(authA)}})) == std::set<std::string>{idA, idM});
    // engram/anchors by document.
    json anchorsA = w.s.call("engram/anchors", {{"uri", fileUri(authA)}});
    REQUIRE(anchorsA["anchors"].size() == 1);
    CHECK(anchorsA["anchors"][0]["claim_id"] == idA);
    CHECK(w.s.call("engram/anchors", {{"path", w.b + "/src/auth.py"}})["anchors"].empty());
}

TEST_CASE("a call with nothing to route by is refused AmbiguousRoot listing the roots",
          "[e2e][multiroot]") {
    TwoFolders w;
    w.s.initializeFolders({w.a, w.b});

    json err = w.error("engram/recall", {{"query", "token"}});
    CHECK(err["code"] == -32017);
    CHECK(err["data"]["kind"] == "AmbiguousRoot");
    CHECK(err["data"]["field"] == "root");
    CHECK(err["data"]["options"] == json::array({w.a, w.b}));
    std::string message = err["message"];
    CHECK(contains(message, w.a));
    CHECK(contains(message, w.b));
    CHECK(contains(message, "root"));

    // A write with nothing to route by writes nothing anywhere.
    err = w.error("engram/remember", rememberParams("Which folder is this about?"));
    CHECK(err["data"]["kind"] == "AmbiguousRoot");
    // A relative path could be in either folder.
    err = w.error("engram/remember",
                  rememberParams("Relative anchors need a root", "",
                                 {{"anchors", {{{"path", "src/db.py"}, {"symbol", "connect"}}}}}));
    CHECK(err["data"]["kind"] == "AmbiguousRoot");
    CHECK(contains(err["message"], "src/db.py"));
    err = w.error("engram/anchors", {{"path", "src/db.py"}});
    CHECK(err["data"]["kind"] == "AmbiguousRoot");
    CHECK_FALSE(fs::exists(claimsDir(w.a)));
    CHECK_FALSE(fs::exists(claimsDir(w.b)));

    // A mistyped field is named rather than routed around.
    err = w.error("engram/recall", {{"root", 7}});
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "root"));

    // The same relative anchor with a root lands in that folder.
    json c = w.remember(rememberParams(
        "Relative anchors resolve against the named root", "",
        {{"root", w.b}, {"anchors", {{{"path", "src/db.py"}, {"symbol", "connect"}}}}}));
    std::string id = c["claim"]["id"];
    CHECK(fs::exists(claimsDir(w.b) + "/" + id + ".md"));
    CHECK_FALSE(fs::exists(claimsDir(w.a)));

    // Calls that do not depend on a folder still answer.
    CHECK(w.s.call("engram/status")["roots"].size() == 2);
    CHECK(w.recall({{"tier", "medulla"}})["rows"].empty());
}

TEST_CASE(
    "a call naming a claim goes to the store that holds it, and medulla claims from any folder",
    "[e2e][multiroot]") {
    TwoFolders w;
    w.s.initializeFolders({w.a, w.b});
    std::string idA = w.remember(
        rememberParams("Alpha claim for id routing", "", {{"root", w.a}}))["claim"]["id"];
    std::string idB =
        w.remember(rememberParams("Beta claim for id routing", "", {{"root", w.b}}))["claim"]["id"];
    std::string idM = w.remember(
        rememberParams("Medulla claim for id routing", "", {{"tier", "medulla"}}))["claim"]["id"];

    json ga = w.s.call("engram/get", {{"id", idA}});
    CHECK(ga["claim"]["id"] == idA);
    CHECK(ga["claim"]["file"] == claimsDir(w.a) + "/" + idA + ".md");
    json gb = w.s.call("engram/get", {{"id", idB}});
    CHECK(gb["claim"]["file"] == claimsDir(w.b) + "/" + idB + ".md");
    CHECK(gb["claim"]["text"] == "Beta claim for id routing");
    json gm = w.s.call("engram/get", {{"id", idM}});
    CHECK(gm["claim"]["tier"] == "medulla");

    // Writes by id change the right file.
    w.s.call("engram/learn", {{"id", idB}, {"verdict", "correct"}, {"agent", "test:e2e"}});
    CHECK(contains(*slurp(claimsDir(w.b) + "/" + idB + ".md"), "correct=1"));
    CHECK_FALSE(contains(*slurp(claimsDir(w.a) + "/" + idA + ".md"), "correct=1"));
    w.s.call("engram/retract", {{"id", idA}, {"agent", "test:e2e"}, {"reason", "routing test"}});
    CHECK(contains(*slurp(claimsDir(w.a) + "/" + idA + ".md"), "status: retracted"));
    CHECK_FALSE(contains(*slurp(claimsDir(w.b) + "/" + idB + ".md"), "status: retracted"));
    json re = w.s.call(
        "workspace/executeCommand",
        {{"command", "engram.reverify"}, {"arguments", {{{"id", idB}, {"agent", "test:e2e"}}}}});
    CHECK(re["claim"]["id"] == idB);
    json open = w.s.call("workspace/executeCommand",
                         {{"command", "engram.openClaim"}, {"arguments", {{{"id", idB}}}}});
    CHECK(open["file"] == claimsDir(w.b) + "/" + idB + ".md");

    // An id no store holds, and one that is no id at all.
    json err = w.error("engram/get", {{"id", "c-nosuchclaim0"}});
    CHECK(err["code"] == -32015);
    CHECK(err["data"]["kind"] == "UnknownClaim");
    CHECK(contains(err["message"], w.a));
    CHECK(contains(err["message"], w.b));
    err = w.error("engram/get", {{"id", "Not An Id"}});
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "id"));
    // A claim named in a folder that does not hold it is unknown there.
    err = w.error("engram/get", {{"id", idB}, {"root", w.a}});
    CHECK(err["data"]["kind"] == "UnknownClaim");
}

TEST_CASE("an unsaved edit in a folder's file is published for that file from that folder's "
          "memory only",
          "[e2e][multiroot]") {
    TwoFolders w;
    w.s.initializeFolders({w.a, w.b});
    std::string dbA = w.a + "/src/db.py", dbB = w.b + "/src/db.py";
    std::string idA =
        w.remember({{"text", "Alpha: connect opens a pooled connection"},
                    {"agent", "test:e2e"},
                    {"anchors", {{{"path", dbA}, {"symbol", "connect"}}}}})["claim"]["id"];
    std::string idB =
        w.remember({{"text", "Beta: connect must be paired with close"},
                    {"agent", "test:e2e"},
                    {"anchors", {{{"path", dbB}, {"symbol", "connect"}}}}})["claim"]["id"];
    openDoc(w.s, dbA);
    openDoc(w.s, dbB);
    auto opened = published(w.s);
    REQUIRE(opened.count(fileUri(dbA)) == 1);
    REQUIRE(opened.count(fileUri(dbB)) == 1);
    CHECK(opened[fileUri(dbA)]["diagnostics"].empty());
    CHECK(opened[fileUri(dbB)]["diagnostics"].empty());

    editConnect(w.s, dbB, 2);
    auto edited = published(w.s);
    REQUIRE(edited.count(fileUri(dbB)) == 1);
    json diagsB = edited[fileUri(dbB)];
    CHECK(diagsB["version"] == 2);
    REQUIRE(diagsB["diagnostics"].size() == 1);
    CHECK(diagsB["diagnostics"][0]["code"] == "engram.drifted");
    CHECK(diagsB["diagnostics"][0]["data"]["claim_id"] == idB);
    CHECK(contains(diagsB["diagnostics"][0]["message"], "Beta"));
    // Alpha's copy of the file is unchanged: nothing new is said about it.
    CHECK(edited.count(fileUri(dbA)) == 0);
    // A write republishes every open document: Alpha's claim is intact.
    w.s.call("engram/learn", {{"id", idA}, {"verdict", "correct"}, {"agent", "test:e2e"}});
    auto relearned = published(w.s);
    REQUIRE(relearned.count(fileUri(dbA)) == 1);
    CHECK(relearned[fileUri(dbA)]["diagnostics"].empty());
    CHECK(relearned[fileUri(dbB)]["diagnostics"].size() == 1);

    std::string textB = *slurp(dbB);
    json hover = w.s.call("textDocument/hover", {{"textDocument", {{"uri", fileUri(dbB)}}},
                                                 {"position", position(textB, "def connect", 4)}});
    std::string md = hover["contents"]["value"];
    CHECK(contains(md, "Beta: connect"));
    CHECK_FALSE(contains(md, "Alpha"));
    CHECK(contains(md, "drifted"));
    json lensB = w.s.call("textDocument/codeLens", {{"textDocument", {{"uri", fileUri(dbB)}}}});
    REQUIRE(lensB.size() == 1);
    CHECK(lensB[0]["command"]["title"] == "1 memory · 1 drifted");
    CHECK(lensB[0]["command"]["arguments"][0]["ids"] == json::array({idB}));
    json lensA = w.s.call("textDocument/codeLens", {{"textDocument", {{"uri", fileUri(dbA)}}}});
    REQUIRE(lensA.size() == 1);
    CHECK(lensA[0]["command"]["title"] == "1 memory");
    CHECK(lensA[0]["command"]["arguments"][0]["ids"] == json::array({idA}));

    // A document outside every folder: no memory features, no error.
    TempDir outside;
    std::string stray = outside / "stray.py";
    spew(stray, "def connect():\n    return 1\n");
    openDoc(w.s, stray);
    CHECK(w.s.call("textDocument/hover", {{"textDocument", {{"uri", fileUri(stray)}}},
                                          {"position", {{"line", 0}, {"character", 5}}}})
              .is_null());
    CHECK(w.s.call("textDocument/codeLens", {{"textDocument", {{"uri", fileUri(stray)}}}}).empty());
    CHECK(lastPublished(w.s, fileUri(stray)).is_null());
    // ... while remembering with an anchor there is refused.
    json err = w.error("engram/remember",
                       rememberParams("Outside anchors are refused", "",
                                      {{"anchors", {{{"path", stray}, {"symbol", "connect"}}}}}));
    CHECK(err["code"] == -32014);
    CHECK(err["data"]["kind"] == "OutsideRoot");
    CHECK(err["data"]["field"] == "anchors[0].path");
    CHECK(err["data"]["options"] == json::array({w.a, w.b}));
}

TEST_CASE("removing a folder unbinds it and clears its documents, and an added folder is routable "
          "and watched",
          "[e2e][multiroot]") {
    TwoFolders w;
    w.s.initializeFolders({w.a, w.b});
    std::string dbB = w.b + "/src/db.py";
    std::string idB =
        w.remember({{"text", "Beta: connect must be paired with close"},
                    {"agent", "test:e2e"},
                    {"anchors", {{{"path", dbB}, {"symbol", "connect"}}}}})["claim"]["id"];
    openDoc(w.s, dbB);
    editConnect(w.s, dbB, 2);
    REQUIRE(lastPublished(w.s, fileUri(dbB))["diagnostics"].size() == 1);

    w.s.notify("workspace/didChangeWorkspaceFolders", folderEvent({}, {w.b}));
    json cleared = lastPublished(w.s, fileUri(dbB));
    REQUIRE_FALSE(cleared.is_null());
    CHECK(cleared["diagnostics"].empty());
    CHECK(w.s.call("textDocument/hover", {{"textDocument", {{"uri", fileUri(dbB)}}},
                                          {"position", position(*slurp(dbB), "def connect", 4)}})
              .is_null());

    // B is no longer served: recall says so, a write is refused.
    json r = w.recall({{"root", w.b}, {"query", "connect"}});
    auto& env = r["envelope"];
    CHECK(env["trust_mode"] == "wrong_workspace_binding");
    CHECK(env["binding"]["mismatch"] == true);
    CHECK(env["binding"]["requested_root"] == w.b);
    CHECK(env["recovery"]["roots"] == json::array({w.a}));
    CHECK(r["rows"].empty());
    json err = w.error("engram/remember", rememberParams("Should not land", "", {{"root", w.b}}));
    CHECK(err["code"] == -32010);
    CHECK(err["data"]["kind"] == "NotBound");
    CHECK(err["data"]["root"] == w.b);
    CHECK(err["data"]["options"] == json::array({w.a}));
    CHECK(contains(err["message"], w.b));
    CHECK(filesIn(claimsDir(w.b), ".md") == std::vector<std::string>{idB + ".md"});
    // Only A is left, so a call without a root is A's (single-root rules).
    CHECK(w.error("engram/get", {{"id", idB}})["data"]["kind"] == "UnknownClaim");
    CHECK(w.s.call("engram/status")["roots"].size() == 1);

    // Adding C makes it routable.
    TempDir cdir;
    std::string c = cdir / "gamma";
    fs::create_directory(c);
    copySampleWorkspace(c);
    w.s.notify("workspace/didChangeWorkspaceFolders", folderEvent({c}, {}));
    json cc = w.remember(
        {{"text", "Gamma: sessions expire by timestamp"},
         {"agent", "test:e2e"},
         {"anchors", {{{"uri", fileUri(c + "/web/session.ts")}, {"symbol", "isExpired"}}}}});
    std::string idC = cc["claim"]["id"];
    CHECK(cc["claim"]["origin"] == "project:gamma");
    CHECK(filesIn(claimsDir(c), ".md") == std::vector<std::string>{idC + ".md"});
    CHECK_FALSE(fs::exists(claimsDir(w.a)));
    CHECK(idSet(w.recall({{"root", c}, {"tier", "project"}})) == std::set<std::string>{idC});
    json status = w.s.call("engram/status");
    REQUIRE(status["roots"].size() == 2);
    CHECK(status["roots"][1]["root"] == c);
    err = w.error("engram/recall", {{"query", "sessions"}});
    CHECK(err["data"]["options"] == json::array({w.a, c}));

    // C's claims directory is watched: a hand edit is seen without a restart.
    std::string file = claimsDir(c) + "/" + idC + ".md";
    spew(file, withText(*slurp(file), "Gamma sessions are guarded by a narwhal"));
    r = pollRecall(w.s, {{"root", c}, {"query", "narwhal"}},
                   [&](const json& x) { return idSet(x).count(idC) == 1; });
    CHECK(idSet(r) == std::set<std::string>{idC});

    // Adding B back binds its existing store again.
    w.s.notify("workspace/didChangeWorkspaceFolders", folderEvent({w.b}, {}));
    CHECK(idSet(w.recall({{"root", w.b}, {"tier", "project"}})) == std::set<std::string>{idB});
}

TEST_CASE("nested folders: a document goes to the deepest folder holding it", "[e2e][multiroot]") {
    TempDir outerDir;
    std::string outer = outerDir.path();
    std::string inner = outer + "/vendor/inner";
    copySampleWorkspace(outer);
    fs::create_directories(inner);
    copySampleWorkspace(inner);
    Server s;
    // The outer folder first: the first folder must not win by default.
    s.initializeFolders({outer, inner});
    std::string dbIn = inner + "/src/db.py", dbOut = outer + "/src/db.py";

    json ci =
        s.call("engram/remember", {{"text", "Inner: connect is vendored"},
                                   {"agent", "test:e2e"},
                                   {"anchors", {{{"uri", fileUri(dbIn)}, {"symbol", "connect"}}}}});
    std::string idIn = ci["claim"]["id"];
    CHECK(ci["claim"]["anchors"][0]["path"] == "src/db.py");
    json co = s.call("engram/remember", {{"text", "Outer: connect is ours"},
                                         {"agent", "test:e2e"},
                                         {"anchors", {{{"path", dbOut}, {"symbol", "connect"}}}}});
    std::string idOut = co["claim"]["id"];
    CHECK(filesIn(claimsDir(inner), ".md") == std::vector<std::string>{idIn + ".md"});
    CHECK(filesIn(claimsDir(outer), ".md") == std::vector<std::string>{idOut + ".md"});
    CHECK(idSet(s.call("engram/recall", {{"path", dbIn}})) == std::set<std::string>{idIn});
    CHECK(idSet(s.call("engram/recall", {{"path", dbOut}})) == std::set<std::string>{idOut});

    // An unsaved edit in the inner file drifts the inner claim.
    openDoc(s, dbIn);
    editConnect(s, dbIn, 2);
    json diags = lastPublished(s, fileUri(dbIn));
    REQUIRE(diags["diagnostics"].size() == 1);
    CHECK(diags["diagnostics"][0]["data"]["claim_id"] == idIn);

    // Without the inner folder the file is the outer folder's, where nothing
    // is anchored to it...
    s.notify("workspace/didChangeWorkspaceFolders", folderEvent({}, {inner}));
    CHECK(lastPublished(s, fileUri(dbIn))["diagnostics"].empty());
    CHECK(s.call("engram/anchors", {{"uri", fileUri(dbIn)}})["anchors"].empty());
    // ... and with it back, the document returns with its unsaved edit.
    s.notify("workspace/didChangeWorkspaceFolders", folderEvent({inner}, {}));
    diags = lastPublished(s, fileUri(dbIn));
    REQUIRE(diags["diagnostics"].size() == 1);
    CHECK(diags["diagnostics"][0]["code"] == "engram.drifted");
    CHECK(diags["diagnostics"][0]["data"]["claim_id"] == idIn);
}

TEST_CASE("a root that is not bound: recall and status answer wrong_workspace_binding with the "
          "recovery, other calls refuse NotBound",
          "[e2e][multiroot]") {
    TwoFolders w;
    w.s.initializeFolders({w.a, w.b});
    std::string idA =
        w.remember(rememberParams("Alpha knows tokens", "", {{"root", w.a}}))["claim"]["id"];
    TempDir elsewhere;

    json status = w.s.call("engram/status", {{"root", elsewhere.path()}});
    auto& env = status["envelope"];
    CHECK(env["trust_mode"] == "wrong_workspace_binding");
    CHECK(env["status"] == "blocked");
    CHECK(env["binding"]["mismatch"] == true);
    CHECK(env["binding"]["requested_root"] == elsewhere.path());
    REQUIRE(env["recovery"].is_object());
    CHECK(env["recovery"]["roots"] == json::array({w.a, w.b}));
    std::string reason = env["recovery"]["reason"];
    CHECK(contains(reason, w.a));
    CHECK(contains(reason, w.b));
    CHECK(contains(reason, elsewhere.path()));
    CHECK(contains(reason, "root"));

    json r = w.recall({{"root", elsewhere.path()}, {"query", "tokens"}});
    CHECK(r["envelope"]["trust_mode"] == "wrong_workspace_binding");
    CHECK(r["envelope"]["recovery"]["roots"] == json::array({w.a, w.b}));
    CHECK(r["rows"].empty());
    // A directory inside a bound folder is that folder's, as engram mcp
    // reads it (one rule for both servers).
    r = w.recall({{"root", w.a + "/src"}, {"query", "tokens"}});
    CHECK(r["envelope"]["binding"]["mismatch"] == false);
    CHECK(rowIds(r) == std::vector<std::string>{idA});

    for (auto [method, params] :
         {std::pair<std::string, json>{"engram/remember", rememberParams("Lands nowhere")},
          {"engram/get", {{"id", idA}}},
          {"engram/retract", {{"id", idA}, {"agent", "test:e2e"}, {"reason", "no"}}},
          {"engram/anchors", {{"path", "src/auth.py"}}}}) {
        params["root"] = elsewhere.path();
        json err = w.error(method, params);
        INFO(method);
        CHECK(err["code"] == -32010);
        CHECK(err["data"]["kind"] == "NotBound");
        CHECK(err["data"]["options"] == json::array({w.a, w.b}));
    }
    CHECK_FALSE(fs::exists(elsewhere / ".engram"));
    CHECK_FALSE(contains(*slurp(claimsDir(w.a) + "/" + idA + ".md"), "status: retracted"));
    json err = w.error("engram/status", {{"root", "https://example.com/repo"}});
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "root"));
}

TEST_CASE("malformed folders are refused naming the field and the server keeps serving",
          "[e2e][multiroot]") {
    TwoFolders w;
    json err = errorOf(
        w.s.request("initialize", {{"workspaceFolders",
                                    {{{"uri", fileUri(w.a)}, {"name", "alpha"}},
                                     {{"uri", "https://example.com/repo"}, {"name", "remote"}}}},
                                   {"capabilities", json::object()}}));
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "workspaceFolders[1].uri"));
    // Nothing was bound: a proper initialize still works.
    w.s.initializeFolders({w.a, w.b});

    // A malformed change event changes nothing, not even its valid parts.
    w.s.notify("workspace/didChangeWorkspaceFolders",
               {{"event", {{"removed", {{{"uri", fileUri(w.a)}}}}, {"added", {{{"uri", 42}}}}}}});
    w.s.notify("workspace/didChangeWorkspaceFolders", {{"event", "everything"}});
    w.s.notify("workspace/didChangeWorkspaceFolders", json::object());
    // Removing a folder that is not bound, adding one that is: no change.
    TempDir stranger;
    w.s.notify("workspace/didChangeWorkspaceFolders", folderEvent({w.a}, {stranger.path()}));
    json status = w.s.call("engram/status");
    REQUIRE(status["roots"].size() == 2);
    CHECK(status["roots"][0]["root"] == w.a);
    CHECK(status["roots"][1]["root"] == w.b);

    // Removing every folder leaves a session that refuses NotBound.
    w.s.notify("workspace/didChangeWorkspaceFolders", folderEvent({}, {w.a, w.b}));
    err = w.error("engram/recall", {{"query", "anything"}});
    CHECK(err["data"]["kind"] == "NotBound");
    CHECK(w.error("engram/status", json::object())["data"]["kind"] == "NotBound");
    w.s.notify("workspace/didChangeWorkspaceFolders", folderEvent({w.b}, {}));
    CHECK(w.s.call("engram/status")["envelope"]["binding"]["root"] == w.b);
}

TEST_CASE("every folder's existing store is synced, indexed with its own progress and watched",
          "[e2e][multiroot]") {
    TwoFolders w;
    std::string idA, idB;
    {
        Server first(ServerOptions{w.s.home(), {}, {}, {}});
        first.initializeFolders({w.a, w.b});
        idA = first.call("engram/remember", rememberParams("Alpha stores exist before start", "",
                                                           {{"root", w.a}}))["claim"]["id"];
        idB = first.call("engram/remember", rememberParams("Beta stores exist before start", "",
                                                           {{"root", w.b}}))["claim"]["id"];
    }
    json init = w.s.initializeFolders({w.a, w.b}, {{"window", {{"workDoneProgress", true}}}});
    REQUIRE(init.contains("capabilities"));
    std::set<std::string> tokens, ended, titles;
    for (int i = 0; i < 400 && (ended.size() < 2); ++i) {
        auto msg = w.s.readMessage();
        REQUIRE(msg);
        std::string method = msg->value("method", "");
        if (method == "window/workDoneProgress/create") {
            tokens.insert((*msg)["params"]["token"].get<std::string>());
            w.s.send({{"jsonrpc", "2.0"}, {"id", (*msg)["id"]}, {"result", nullptr}});
        } else if (method == "$/progress") {
            std::string token = (*msg)["params"]["token"];
            CHECK(tokens.count(token) == 1);
            auto& value = (*msg)["params"]["value"];
            if (value["kind"] == "begin") titles.insert(value["title"].get<std::string>());
            if (value["kind"] == "end") ended.insert(token);
        }
    }
    CHECK(tokens.size() == 2);
    CHECK(ended == tokens);
    CHECK(titles ==
          std::set<std::string>{"engram: indexing code in alpha", "engram: indexing code in beta"});

    // Both stores are watched from the start.
    for (const auto& rootAndId : {std::pair{w.a, idA}, std::pair{w.b, idB}}) {
        // Named copies, not structured bindings: the lambda below captures id.
        const std::string root = rootAndId.first, id = rootAndId.second;
        std::string file = claimsDir(root) + "/" + id + ".md";
        spew(file, withText(*slurp(file), "Hand edited: the quokka guards " + id));
        json r = pollRecall(w.s, {{"root", root}, {"query", "quokka"}},
                            [&](const json& x) { return idSet(x).count(id) == 1; });
        CHECK(idSet(r) == std::set<std::string>{id});
    }
}

} // namespace e2e_MultiRootTest
