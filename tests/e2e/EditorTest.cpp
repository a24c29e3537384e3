// The editor surface end to end: an unsaved edit drifts a claim and the
// server publishes the diagnostic in the same session; hover and code lens
// show the memory; re-verifying clears the diagnostic.
#include "Client.h"

#include <catch2/catch.hpp>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_EditorTest {

using namespace engram::e2e;
using engram::test::TempDir;

namespace {

json diagnosticsFor(Server& s, const std::string& uri, int version = 0) {
    return s.waitDiagnostics(uri, version);
}

// The sample workspace's src/auth.py, opened in the editor (version 1).
struct OpenAuth {
    std::string path, uri, text;
};

OpenAuth openAuth(Server& s, const std::string& root) {
    OpenAuth d;
    d.path = root + "/src/auth.py";
    d.uri = fileUri(d.path);
    d.text = *slurp(d.path);
    s.notify("textDocument/didOpen",
             {{"textDocument",
               {{"uri", d.uri}, {"languageId", "python"}, {"version", 1}, {"text", d.text}}}});
    return d;
}

} // namespace

TEST_CASE("an unsaved edit drifts a claim, published with its range, reverify clears it") {
    TempDir root;
    copySampleWorkspace(root.path());
    Server s;
    s.initialize(root.path());
    auto [path, uri, text] = openAuth(s, root.path());
    CHECK(diagnosticsFor(s, uri, 1)["diagnostics"].empty());

    json claim = s.call(
        "engram/remember",
        {{"text", "validate returns ok=False for expired tokens instead of raising"},
         {"label", "validate-silent"},
         {"agent", "claude:test"},
         {"anchors", {{{"uri", uri}, {"position", position(text, "if token.expires_at")}}}}});
    std::string id = claim["claim"]["id"];
    CHECK(claim["claim"]["anchors"][0]["symbol"] == "TokenValidator.validate");
    CHECK(diagnosticsFor(s, uri)["diagnostics"].empty()); // republished after the write: intact

    // An unsaved edit inside validate's body (incremental change).
    json from = position(text, "\"expired\"");
    json to = position(text, "\"expired\"", 9);
    s.notify(
        "textDocument/didChange",
        {{"textDocument", {{"uri", uri}, {"version", 2}}},
         {"contentChanges", {{{"range", {{"start", from}, {"end", to}}}, {"text", "\"stale\""}}}}});
    json diags = diagnosticsFor(s, uri, 2)["diagnostics"];
    REQUIRE(diags.size() == 1);
    CHECK(diags[0]["code"] == "engram.drifted");
    CHECK(diags[0]["source"] == "engram");
    CHECK(diags[0]["severity"] == 2);
    CHECK(diags[0]["range"]["start"] == position(text, "def validate")); // the symbol's range
    CHECK(diags[0]["message"].get<std::string>().find("validate-silent") != std::string::npos);
    CHECK(diags[0]["relatedInformation"][0]["location"]["uri"].get<std::string>().find(id) !=
          std::string::npos);
    // The file on disk is untouched: the drift comes from the buffer.
    CHECK(*slurp(path) == text);

    json hover =
        s.call("textDocument/hover", {{"textDocument", {{"uri", uri}}},
                                      {"position", position(text, "if token.expires_at")}});
    std::string md = hover["contents"]["value"];
    CHECK(md.find("validate returns ok=False") != std::string::npos);
    CHECK(md.find("drifted") != std::string::npos);
    CHECK(md.find("claude:test") != std::string::npos);

    json lenses = s.call("textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
    REQUIRE(lenses.size() == 1);
    CHECK(lenses[0]["command"]["title"] == "1 memory · 1 drifted");

    // The quick fix on the diagnostic re-verifies through executeCommand.
    json actions = s.call("textDocument/codeAction", {{"textDocument", {{"uri", uri}}},
                                                      {"range", diags[0]["range"]},
                                                      {"context", {{"diagnostics", diags}}}});
    REQUIRE(actions.size() == 3);
    CHECK(actions[0]["isPreferred"] == true);
    CHECK(actions[0]["command"]["command"] == "engram.reverify");
    CHECK(actions[1]["command"]["command"] == "engram.retract");
    CHECK(actions[2]["command"]["command"] == "engram.openClaim");
    json re =
        s.call("workspace/executeCommand", {{"command", actions[0]["command"]["command"]},
                                            {"arguments", actions[0]["command"]["arguments"]}});
    CHECK(re["claim"]["anchor_state"] == "intact");
    CHECK(diagnosticsFor(s, uri)["diagnostics"].empty());
    CHECK(s.call("engram/get", {{"id", id}})["claim"]["verified"].is_string());

    json anchors = s.call("engram/anchors", {{"uri", uri}});
    REQUIRE(anchors["anchors"].size() == 1);
    CHECK(anchors["anchors"][0]["anchor_state"] == "intact");
    CHECK(anchors["anchors"][0]["symbol"] == "TokenValidator.validate");
}

TEST_CASE("an unsaved rename and edit orphans a claim, published on its likely successor, whose "
          "quick fix re-verifies against it") {
    TempDir root;
    copySampleWorkspace(root.path());
    gitOk(root.path(), {"init", "-q"});
    gitOk(root.path(), {"add", "-A"});
    gitOk(root.path(), {"commit", "-q", "-m", "sample"});
    Server s;
    s.initialize(root.path());
    auto [path, uri, text] = openAuth(s, root.path());
    json claim =
        s.call("engram/remember",
               {{"text", "validate returns ok=False for expired tokens instead of raising"},
                {"agent", "claude:test"},
                {"anchors", {{{"path", "src/auth.py"}, {"symbol", "TokenValidator.validate"}}}}});
    std::string id = claim["claim"]["id"];

    // Renamed and edited in the buffer, not saved: the claim's code is in
    // HEAD, its successor only in the editor.
    std::string edited = text;
    auto swap = [&](const std::string& from, const std::string& to) {
        edited.replace(edited.find(from), from.size(), to);
    };
    swap("def validate(self, token):", "def check_token(self, token):");
    swap("reason=\"expired\"", "reason=\"stale\"");
    s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                        {"contentChanges", {{{"text", edited}}}}});
    json diags = diagnosticsFor(s, uri, 2)["diagnostics"];
    INFO(diags.dump(2));
    REQUIRE(diags.size() == 1);
    CHECK(diags[0]["code"] == "engram.orphaned");
    CHECK(diags[0]["range"]["start"] == position(edited, "def check_token"));
    CHECK(diags[0]["data"]["successor"] == "src/auth.py#TokenValidator.check_token");
    CHECK(diags[0]["message"].get<std::string>().find("TokenValidator.check_token there looks "
                                                      "like it renamed and edited") !=
          std::string::npos);

    json actions = s.call("textDocument/codeAction", {{"textDocument", {{"uri", uri}}},
                                                      {"range", diags[0]["range"]},
                                                      {"context", {{"diagnostics", diags}}}});
    REQUIRE(actions.size() == 3);
    CHECK(actions[0]["title"] ==
          "Re-verify this memory against TokenValidator.check_token, its likely successor");
    CHECK(actions[0]["command"]["command"] == "engram.reverify");
    json re =
        s.call("workspace/executeCommand", {{"command", actions[0]["command"]["command"]},
                                            {"arguments", actions[0]["command"]["arguments"]}});
    CHECK(re["claim"]["anchor_state"] == "intact");
    CHECK(re["claim"]["anchors"][0]["symbol"] == "TokenValidator.check_token");
    CHECK(diagnosticsFor(s, uri)["diagnostics"].empty());
}

TEST_CASE(
    "a definition moved to another file is shown in its old file, pointing at its new place") {
    TempDir root;
    copySampleWorkspace(root.path());
    std::string id;
    {
        Server first;
        first.initialize(root.path());
        json c =
            first.call("engram/remember",
                       {{"text", "ValidationResult carries ok and a reason"},
                        {"agent", "a"},
                        {"anchors", {{{"path", "src/auth.py"}, {"symbol", "ValidationResult"}}}}});
        id = c["claim"]["id"];
    }
    // The class moves to a file of its own while engram is not running.
    std::string auth = root.path() + "/src/auth.py";
    std::string text = *slurp(auth);
    auto at = text.find("\n\nclass ValidationResult:");
    REQUIRE(at != std::string::npos);
    std::string cls = text.substr(at + 2);
    spew(auth, text.substr(0, at) + "\n");
    std::string results = root.path() + "/src/results.py";
    spew(results, "\"\"\"Results.\"\"\"\n\n\n" + cls);

    Server s;
    s.initialize(root.path());
    auto opened = openAuth(s, root.path());
    // The first publication may come before the code index has the new
    // file; the server publishes again once it has.
    json moved;
    for (int i = 0; i < 10 && moved.is_null(); ++i) {
        json published = diagnosticsFor(s, opened.uri);
        for (auto& d : published["diagnostics"])
            if (d["code"] == "engram.moved") moved = d;
    }
    INFO(moved.dump(2));
    REQUIRE(moved.is_object());
    CHECK(moved["range"]["start"] == json{{"line", 0}, {"character", 0}});
    CHECK(moved["message"].get<std::string>().find(
              "ValidationResult in src/auth.py is now ValidationResult in src/results.py") !=
          std::string::npos);
    json where = moved["relatedInformation"][0]["location"];
    CHECK(where["uri"] == fileUri(results));
    CHECK(where["range"]["start"] == position(*slurp(results), "class ValidationResult"));
    CHECK(moved["relatedInformation"][1]["location"]["uri"].get<std::string>().find(id) !=
          std::string::npos);

    // Its quick fix re-verifies, following the code to its new file.
    json actions =
        s.call("textDocument/codeAction", {{"textDocument", {{"uri", opened.uri}}},
                                           {"range", moved["range"]},
                                           {"context", {{"diagnostics", json::array({moved})}}}});
    REQUIRE(actions.size() == 3);
    CHECK(actions[0]["command"]["command"] == "engram.reverify");
    json re =
        s.call("workspace/executeCommand", {{"command", actions[0]["command"]["command"]},
                                            {"arguments", actions[0]["command"]["arguments"]}});
    CHECK(re["claim"]["anchor_state"] == "intact");
    CHECK(re["claim"]["anchors"][0]["path"] == "src/results.py");
}

TEST_CASE("recall rows and packet items say where each anchor's code is now in the unsaved text") {
    TempDir root;
    copySampleWorkspace(root.path());
    Server s;
    s.initialize(root.path());
    auto [path, uri, text] = openAuth(s, root.path());
    s.call("engram/remember",
           {{"text", "validate returns ok=False for expired tokens instead of raising"},
            {"agent", "claude:test"},
            {"anchors", {{{"path", "src/auth.py"}, {"symbol", "TokenValidator.validate"}}}}});

    // Two lines above it, unsaved: the claim stays intact and its code moves down.
    std::string shifted = "# r\xc3\xa9sum\xc3\xa9\n\n" + text;
    s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                        {"contentChanges", {{{"text", shifted}}}}});
    json start = position(shifted, "def validate");
    json packet = s.call("engram/delegate", {{"task", "expired tokens in validate"},
                                             {"agent", "claude:orchestrator"}})["packet"];
    INFO(packet.dump(2));
    REQUIRE(packet["items"].size() == 1);
    json current = packet["items"][0]["current"];
    REQUIRE(current.size() == 1);
    CHECK(current[0]["path"] == "src/auth.py");
    CHECK(current[0]["range"]["start"] == start);

    // A body edit with a non-ASCII character on the definition's last line:
    // drifted, still placed, its end column counted in UTF-16 code units.
    std::string edited = shifted;
    std::string from = "reason=None)";
    edited.replace(edited.find(from), from.size(), "reason=\"\xc3\xbc\xc3\xa9\")");
    s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 3}}},
                                        {"contentChanges", {{{"text", edited}}}}});
    json rows = s.call("engram/recall", {{"query", "expired tokens"}})["rows"];
    INFO(rows.dump(2));
    REQUIRE(rows.size() == 1);
    CHECK(rows[0]["anchor_state"] == "drifted");
    json anchor = rows[0]["anchors"][0];
    CHECK(anchor["state"] == "drifted");
    CHECK(anchor["current"]["path"] == "src/auth.py");
    CHECK(anchor["current"]["range"]["start"] == start);
    std::string lastLine = "        return ValidationResult(ok=True, reason=\"\xc3\xbc\xc3\xa9\")";
    CHECK(anchor["current"]["range"]["end"] ==
          json({{"line", start["line"].get<int>() + 4}, {"character", lastLine.size() - 2}}));
    // The same place engram/anchors gives for the file, and engram/get.
    json anchors = s.call("engram/anchors", {{"uri", uri}})["anchors"];
    REQUIRE(anchors.size() == 1);
    CHECK(anchors[0]["range"] == anchor["current"]["range"]);
    json got = s.call("engram/get", {{"id", rows[0]["id"]}})["claim"]["anchors"][0];
    CHECK(got["state"] == "drifted");
    CHECK(got["current"] == anchor["current"]);

    // Gone from the buffer: orphaned, and no place.
    std::string gutted = edited.substr(0, edited.find("    def validate"));
    s.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 4}}},
                                        {"contentChanges", {{{"text", gutted}}}}});
    rows = s.call("engram/recall", {{"query", "expired tokens"}})["rows"];
    REQUIRE(rows.size() == 1);
    CHECK(rows[0]["anchors"][0]["state"] == "orphaned");
    CHECK_FALSE(rows[0]["anchors"][0].contains("current"));
}

TEST_CASE(
    "a write asks a client that supports it to refresh its code lenses, others are not asked") {
    for (bool supports : {true, false}) {
        TempDir root;
        copySampleWorkspace(root.path());
        Server s;
        json caps = supports ? json{{"workspace", {{"codeLens", {{"refreshSupport", true}}}}}}
                             : json::object();
        s.initializeFolders({root.path()}, caps);
        std::string uri = fileUri(root.path() + "/src/auth.py");
        s.notify("textDocument/didOpen", {{"textDocument",
                                           {{"uri", uri},
                                            {"languageId", "python"},
                                            {"version", 1},
                                            {"text", *slurp(root.path() + "/src/auth.py")}}}});
        s.waitDiagnostics(uri, 1);
        // The write's reply, then what the server sends after it.
        s.call("engram/remember",
               {{"text", "validate returns ok=False for expired tokens"},
                {"agent", "claude:test"},
                {"anchors", {{{"path", "src/auth.py"}, {"symbol", "TokenValidator.validate"}}}}});
        // A marker request: everything the write caused is sent before its reply.
        s.call("engram/status");
        int refreshes = 0;
        for (;;) {
            std::optional<json> m;
            try {
                m = s.readMessage(std::chrono::milliseconds(300));
            } catch (const std::exception&) {
                break; // nothing more
            }
            if (!m) break;
            if (m->value("method", "") == "workspace/codeLens/refresh") {
                ++refreshes;
                CHECK(m->contains("id")); // a request: the client answers it
            }
        }
        INFO("refreshSupport " << supports);
        CHECK(refreshes == (supports ? 1 : 0));
    }
}

TEST_CASE("code changed while engram was not running is drifted at the next start") {
    TempDir root;
    copySampleWorkspace(root.path());
    std::string id;
    {
        Server s;
        s.initialize(root.path());
        json c = s.call("engram/remember",
                        {{"text", "connect opens a pooled connection"},
                         {"agent", "a"},
                         {"anchors", {{{"path", "src/db.py"}, {"symbol", "connect"}}}}});
        id = c["claim"]["id"];
    }
    std::string db = root.path() + "/src/db.py";
    std::string text = *slurp(db);
    auto at = text.find("\"pool_size\": pool_size");
    REQUIRE(at != std::string::npos);
    spew(db, text.replace(at, 22, "\"pool_size\": pool_size * 2"));
    Server s;
    s.initialize(root.path());
    json rows = s.call("engram/recall", {{"query", "pooled connection"}})["rows"];
    REQUIRE(rows.size() == 1);
    CHECK(rows[0]["anchor_state"] == "drifted");
}

TEST_CASE("indexing the workspace's code shows work-done progress to a client that accepts it") {
    TempDir root;
    copySampleWorkspace(root.path());
    {
        Server first;
        first.initialize(root.path());
        first.call("engram/remember", {{"text", "a claim so the store exists"}, {"agent", "a"}});
    }
    Server s;
    json init =
        s.request("initialize", {{"rootUri", fileUri(root.path())},
                                 {"capabilities", {{"window", {{"workDoneProgress", true}}}}}});
    REQUIRE(init.contains("result"));
    s.notify("initialized", json::object());
    std::string token;
    std::vector<std::string> kinds;
    for (int i = 0; i < 100 && (kinds.empty() || kinds.back() != "end"); ++i) {
        auto msg = s.readMessage();
        REQUIRE(msg);
        if (msg->value("method", "") == "window/workDoneProgress/create") {
            token = (*msg)["params"]["token"];
            s.send({{"jsonrpc", "2.0"}, {"id", (*msg)["id"]}, {"result", nullptr}});
        } else if (msg->value("method", "") == "$/progress") {
            CHECK((*msg)["params"]["token"] == token);
            kinds.push_back((*msg)["params"]["value"]["kind"]);
        }
    }
    REQUIRE_FALSE(token.empty());
    REQUIRE(kinds.size() >= 2);
    CHECK(kinds.front() == "begin");
    CHECK(kinds.back() == "end");
    // The server keeps serving afterwards.
    CHECK(s.call("engram/status")["envelope"]["trust_mode"] == "full_trust");
}

} // namespace e2e_EditorTest
