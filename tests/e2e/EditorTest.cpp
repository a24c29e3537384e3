// The editor surface end to end: an unsaved edit drifts a claim and the
// server publishes the diagnostic in the same session; hover and code lens
// show the memory; re-verifying clears the diagnostic.
#include "Client.h"

#include <catch2/catch.hpp>

using namespace engram::e2e;
using engram::test::TempDir;

namespace {

json diagnosticsFor(Server& s, const std::string& uri, int version = 0) {
    return s.waitDiagnostics(uri, version);
}

json position(const std::string& text, const std::string& snippet, size_t offset = 0) {
    auto at = text.find(snippet);
    REQUIRE(at != std::string::npos);
    at += offset;
    int line = 0;
    size_t start = 0;
    for (size_t i = 0; i < at; ++i)
        if (text[i] == '\n') ++line, start = i + 1;
    return {{"line", line}, {"character", int(at - start)}};
}

} // namespace

TEST_CASE("an unsaved edit drifts a claim, published with its range, reverify clears it") {
    TempDir root;
    copySampleWorkspace(root.path());
    Server s;
    s.initialize(root.path());
    std::string path = root.path() + "/src/auth.py";
    std::string uri = fileUri(path);
    std::string text = *slurp(path);

    s.notify("textDocument/didOpen",
             {{"textDocument",
               {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
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
