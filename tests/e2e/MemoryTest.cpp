// The memory operations end to end: remember, recall, supersede, retract,
// learn, status, anchors and the refusals (downgrade, outside root, secrets,
// invalid UTF-8), each checked against the reply and the files on disk.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_MemoryTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A copy of the sample workspace with a server bound to it.
struct Workspace {
    TempDir root;
    Server server;
    Workspace() {
        copySampleWorkspace(root.path());
        server.initialize(root.path());
    }
    json remember(const json& params) { return server.call("engram/remember", params); }
    json recall(const json& params) { return server.call("engram/recall", params); }
    json get(const std::string& id) { return server.call("engram/get", {{"id", id}}); }
    json error(const std::string& method, const json& params) {
        json reply = server.request(method, params);
        INFO(reply.dump());
        REQUIRE(reply.contains("error"));
        return reply["error"];
    }
    std::string claims() const { return claimsDir(root.path()); }
    // File name -> contents of every file under .engram/claims and history.
    std::map<std::string, std::string> snapshot() const {
        std::map<std::string, std::string> out;
        for (auto dir : {"claims", "history"}) {
            std::string d = root.path() + "/.engram/" + dir;
            for (auto& f : filesIn(d))
                out[std::string(dir) + "/" + f] = *slurp(d + "/" + f);
        }
        return out;
    }
};

const std::set<std::string> kAnchorStates = {"intact", "drifted", "moved", "orphaned",
                                             "unanchored"};

// Invariants 3 and 4 on one surfaced row.
void checkSurfaced(const json& row) {
    INFO(row.dump());
    REQUIRE(row.contains("anchor_state"));
    CHECK(kAnchorStates.count(row["anchor_state"].get<std::string>()) == 1);
    for (auto key : {"origin", "source_agent", "age"}) {
        REQUIRE(row.contains(key));
        REQUIRE(row[key].is_string());
        CHECK_FALSE(row[key].get<std::string>().empty());
    }
}

std::string alnum(size_t n, unsigned seed) {
    static const char* chars = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789";
    std::string out;
    unsigned x = seed;
    for (size_t i = 0; i < n; ++i) {
        x = x * 1103515245u + 12345u;
        out += chars[(x >> 16) % 58];
    }
    return out;
}

} // namespace

TEST_CASE("remember three claims, then recall ranks the right one first for queries phrased in "
          "other word forms",
          "[e2e][memory]") {
    Workspace ws;
    json a = ws.remember(rememberParams(
        "TokenValidator.validate rejects expired tokens silently; callers must check .ok",
        "token-validation", {{"kind", "gotcha"}, {"tags", {"auth"}}, {"confidence", 0.9}}));
    json b = ws.remember(rememberParams(
        "The database connection pool holds ten connections; release each one with close()",
        "db-pool", {{"kind", "fact"}}));
    json c = ws.remember(rememberParams(
        "Browser sessions are kept in memory by SessionStore and vanish when the server restarts",
        "session-store", {{"kind", "decision"}}));

    for (auto* r : {&a, &b, &c}) {
        auto& claim = (*r)["claim"];
        CHECK(claim["version"] == 1);
        CHECK(claim["status"] == "committed");
        CHECK(claim["source_agent"] == "test:e2e");
        CHECK(claim["origin"] == "project:" + fs::path(ws.root.path()).filename().string());
        CHECK((*r)["superseded"].is_null());
        CHECK(fs::exists(ws.claims() + "/" + claim["id"].get<std::string>() + ".md"));
    }
    CHECK(filesIn(ws.claims(), ".md").size() == 3);
    std::string idA = a["claim"]["id"], idB = b["claim"]["id"], idC = c["claim"]["id"];
    CHECK(std::set<std::string>{idA, idB, idC}.size() == 3);

    // Stored "expired tokens", asked "token expiry".
    json r = ws.recall({{"query", "token expiry"}});
    REQUIRE_FALSE(r["rows"].empty());
    CHECK(rowIds(r)[0] == idA);
    CHECK(r["envelope"]["trust_mode"] == "full_trust");
    CHECK(r["memory_exists"]["project"]["live"] == 3);

    r = ws.recall({{"query", "pooled database connection"}});
    REQUIRE_FALSE(r["rows"].empty());
    CHECK(rowIds(r)[0] == idB);

    r = ws.recall({{"query", "restarting the server loses session"}});
    REQUIRE_FALSE(r["rows"].empty());
    CHECK(rowIds(r)[0] == idC);

    // The claim file is the human-readable record of the claim.
    std::string file = *slurp(ws.claims() + "/" + idA + ".md");
    CHECK(contains(file, "label: token-validation"));
    CHECK(contains(file, "TokenValidator.validate rejects expired tokens silently"));
}

TEST_CASE("a weaker write to a live label is refused with WouldDowngrade and changes nothing",
          "[e2e][memory]") {
    Workspace ws;
    json first = ws.remember(
        rememberParams("The pool holds ten connections", "db-pool", {{"confidence", 0.9}}));
    std::string id = first["claim"]["id"];
    auto before = ws.snapshot();
    REQUIRE(before.size() == 1);

    json err = ws.error("engram/remember", rememberParams("The pool holds twenty connections",
                                                          "db-pool", {{"confidence", 0.5}}));
    CHECK(err["code"] == -32011);
    CHECK(err["data"]["kind"] == "WouldDowngrade");
    CHECK(err["data"]["id"] == id);
    CHECK(contains(err["message"], "db-pool"));

    CHECK(ws.snapshot() == before);
    json got = ws.get(id);
    CHECK(got["claim"]["version"] == 1);
    CHECK(got["claim"]["text"] == "The pool holds ten connections");
    CHECK(got["history"].empty());
    CHECK(ws.server.call("engram/status")["envelope"]["store"][0]["claims"]["committed"] == 1);
}

TEST_CASE("a stronger write to a live label supersedes it and keeps the old version",
          "[e2e][memory]") {
    Workspace ws;
    json v1 = ws.remember(rememberParams("Sessions expire after one hour of idling", "session-ttl",
                                         {{"confidence", 0.6}}));
    std::string id = v1["claim"]["id"];

    json v2 = ws.remember(rememberParams("Sessions expire after thirty minutes of idling",
                                         "session-ttl", {{"confidence", 0.8}}));
    REQUIRE_FALSE(v2["superseded"].is_null());
    CHECK(v2["superseded"]["id"] == id);
    CHECK(v2["superseded"]["version"] == 1);
    CHECK(v2["superseded"]["status"] == "superseded");
    CHECK(v2["claim"]["id"] == id);
    CHECK(v2["claim"]["version"] == 2);
    CHECK(v2["claim"]["supersedes"] == id + "@1");
    CHECK(v2["claim"]["created"] == v1["claim"]["created"]);

    // History files carry their content's digest (two branches never write
    // different bytes to one name).
    std::string historyFile;
    for (auto& e : fs::directory_iterator(ws.root.path() + "/.engram/history"))
        if (e.path().filename().string().starts_with(id + ".v1.")) historyFile = e.path().string();
    REQUIRE_FALSE(historyFile.empty());
    CHECK(contains(*slurp(historyFile), "one hour"));

    json got = ws.get(id);
    CHECK(got["claim"]["version"] == 2);
    CHECK(got["claim"]["text"] == "Sessions expire after thirty minutes of idling");
    REQUIRE(got["history"].size() == 1);
    CHECK(got["history"][0]["version"] == 1);
    CHECK(got["history"][0]["text"] == "Sessions expire after one hour of idling");

    // One live claim: recall shows the new wording once, not both versions.
    json r = ws.recall({{"query", "session idle expiry"}});
    REQUIRE(r["rows"].size() == 1);
    CHECK(r["rows"][0]["version"] == 2);

    // Equal confidence is "at least the old one's": a third version.
    json v3 = ws.remember(rememberParams("Sessions expire after twenty minutes of idling",
                                         "session-ttl", {{"confidence", 0.8}}));
    CHECK(v3["claim"]["version"] == 3);
    CHECK(ws.get(id)["history"].size() == 2);
    CHECK(filesIn(ws.claims(), ".md").size() == 1);
}

TEST_CASE("retract removes a claim from default recall and include retracted brings it back",
          "[e2e][memory]") {
    Workspace ws;
    std::string keep = ws.remember(
        rememberParams("Deploys run from the main branch only", "deploy-branch"))["claim"]["id"];
    std::string gone = ws.remember(
        rememberParams("Deploys need a manual approval step", "deploy-approval"))["claim"]["id"];
    json before = ws.recall({{"query", "deploys"}});
    CHECK(rowIds(before).size() == 2);

    json retracted =
        ws.server.call("engram/retract",
                       {{"id", gone}, {"agent", "human:ana"}, {"reason", "approval was dropped"}});
    CHECK(retracted["claim"]["status"] == "retracted");
    CHECK(retracted["claim"]["retracted_by"] == "human:ana");
    CHECK(retracted["claim"]["retract_reason"] == "approval was dropped");

    json after = ws.recall({{"query", "deploys"}});
    CHECK(rowIds(after) == std::vector<std::string>{keep});

    json with = ws.recall({{"query", "deploys"}, {"include", {"retracted"}}});
    auto ids = rowIds(with);
    REQUIRE(std::find(ids.begin(), ids.end(), gone) != ids.end());
    for (auto& row : with["rows"])
        if (row["id"] == gone) CHECK(row["status"] == "retracted");

    // The retraction is on disk: the file says so.
    CHECK(contains(*slurp(ws.claims() + "/" + gone + ".md"), "status: retracted"));
    json status = ws.server.call("engram/status");
    CHECK(storeOf(status["envelope"])["claims"]["committed"] == 1);
    CHECK(storeOf(status["envelope"])["claims"]["retracted"] == 1);
}

TEST_CASE("a query matching nothing over a non-empty store reports the memory that exists and a "
          "recovery",
          "[e2e][memory]") {
    Workspace ws;
    ws.remember(rememberParams("Retries back off exponentially up to three attempts", "retry"));
    ws.remember(rememberParams("Migrations must be reversible", "migrations"));

    json r = ws.recall({{"query", "zebra quokka"}});
    CHECK(r["rows"].empty());
    CHECK(r["memory_exists"]["project"]["live"].get<int>() == 2);
    auto& env = r["envelope"];
    CHECK(env["trust_mode"] == "retrieval_needs_recovery");
    REQUIRE_FALSE(env["recovery"].is_null());
    CHECK_FALSE(env["recovery"]["method"].get<std::string>().empty());
    REQUIRE(r.contains("why_empty"));
    CHECK(contains(r["why_empty"], "2 live claims"));
}

TEST_CASE("an empty store answers recall and status with needs_index", "[e2e][memory]") {
    Workspace ws;
    json r = ws.recall({{"query", "anything at all"}});
    CHECK(r["rows"].empty());
    CHECK(r["envelope"]["trust_mode"] == "needs_index");
    CHECK_FALSE(r["envelope"]["recovery"].is_null());
    for (auto& [tier, counts] : r["memory_exists"].items())
        CHECK(counts["live"] == 0);

    json status = ws.server.call("engram/status");
    CHECK(status["envelope"]["trust_mode"] == "needs_index");
    CHECK_FALSE(status["envelope"]["recovery"].is_null());
}

TEST_CASE("learn records verdicts, returns the counts and marks a claim contested",
          "[e2e][memory]") {
    Workspace ws;
    std::string id =
        ws.remember(rememberParams("The cache is warmed at start-up", "cache-warm"))["claim"]["id"];
    auto learn = [&](const std::string& verdict) {
        return ws.server.call("engram/learn",
                              {{"id", id}, {"verdict", verdict}, {"agent", "test:e2e"}});
    };
    learn("correct");
    json r = learn("correct");
    CHECK(r["feedback"]["correct"] == 2);
    CHECK(r["feedback"]["wrong"] == 0);
    CHECK(r["feedback"]["contested"] == false);
    learn("wrong");
    learn("wrong");
    r = learn("wrong");
    CHECK(r["feedback"]["correct"] == 2);
    CHECK(r["feedback"]["wrong"] == 3);
    CHECK(r["feedback"]["contested"] == true);
    r = learn("partial");
    CHECK(r["feedback"]["partial"] == 1);

    json got = ws.get(id);
    CHECK(got["claim"]["feedback"]["correct"] == 2);
    CHECK(got["claim"]["feedback"]["wrong"] == 3);
    CHECK(contains(*slurp(ws.claims() + "/" + id + ".md"), "correct=2 wrong=3 partial=1"));

    json err = ws.error("engram/learn", {{"id", id}, {"verdict", "maybe"}, {"agent", "test:e2e"}});
    CHECK(err["code"] == -32602);
    CHECK(contains(err["message"], "verdict"));
    err = ws.error("engram/learn",
                   {{"id", "c-doesnotexist"}, {"verdict", "correct"}, {"agent", "test:e2e"}});
    CHECK(err["code"] == -32015);
    CHECK(err["data"]["kind"] == "UnknownClaim");
}

TEST_CASE("status counts live, retracted and broken claims and reports the binding",
          "[e2e][memory]") {
    Workspace ws;
    std::vector<std::string> ids;
    for (int i = 0; i < 4; ++i)
        ids.push_back(
            ws.remember(rememberParams("Status counting claim number " + std::to_string(i),
                                       "count-" + std::to_string(i)))["claim"]["id"]);
    ws.remember(rememberParams("Status counting claim number 0, reworded", "count-0",
                               {{"confidence", 0.9}}));
    ws.server.call("engram/retract", {{"id", ids[1]}, {"agent", "test:e2e"}, {"reason", "wrong"}});

    json status = ws.server.call("engram/status");
    auto project = storeOf(status["envelope"]);
    REQUIRE_FALSE(project.is_null());
    CHECK(project["exists"] == true);
    CHECK(project["index_ready"] == true);
    CHECK(project["claims"]["committed"] == 3);
    CHECK(project["claims"]["retracted"] == 1);
    CHECK(project["broken_files"] == 0);
    CHECK(status["broken_files"].empty());
    CHECK(status["envelope"]["trust_mode"] == "full_trust");
    CHECK(status["envelope"]["binding"]["root"] == ws.root.path());
    // The medulla under --home exists as a tier even when empty.
    CHECK_FALSE(storeOf(status["envelope"], "medulla").is_null());
}

TEST_CASE("every recall row carries its anchor state, origin, source agent and age",
          "[e2e][memory]") {
    Workspace ws;
    ws.remember(rememberParams("Token checks happen in the auth module", "auth-module",
                               {{"anchors", {{{"path", "src/auth.py"}}}}}));
    ws.remember(rememberParams("Token refresh is handled by the client", "token-refresh"));
    json tagged = ws.remember(rememberParams("Token lifetimes are configured per tenant", "",
                                             {{"agent", "claude:maker"}, {"kind", "convention"}}));
    CHECK(tagged["claim"]["label"].is_null());

    for (json params : {json{{"query", "token"}}, json::object()}) {
        json r = ws.recall(params);
        REQUIRE(r["rows"].size() == 3);
        for (auto& row : r["rows"]) {
            checkSurfaced(row);
            if (row["label"] == "auth-module")
                CHECK(row["anchor_state"] == "intact");
            else
                CHECK(row["anchor_state"] == "unanchored");
            if (row["id"] == tagged["claim"]["id"]) CHECK(row["source_agent"] == "claude:maker");
        }
    }
    // get surfaces the same provenance.
    json got = ws.get(tagged["claim"]["id"]);
    CHECK(got["claim"]["anchor_state"] == "unanchored");
    CHECK(got["claim"]["source_agent"] == "claude:maker");
    CHECK(got["claim"]["origin"].get<std::string>().rfind("project:", 0) == 0);
}

TEST_CASE("a file anchor is intact, survives whitespace edits, drifts on code edits and is "
          "orphaned when the file is deleted",
          "[e2e][memory][anchors]") {
    Workspace ws;
    std::string path = ws.root / "src/auth.py";
    std::string original = *slurp(path);
    json r = ws.remember(rememberParams("validate() reports expiry through .ok, never raises",
                                        "validate-ok", {{"anchors", {{{"path", "src/auth.py"}}}}}));
    std::string id = r["claim"]["id"];
    REQUIRE(r["claim"]["anchors"].size() == 1);
    CHECK(r["claim"]["anchors"][0]["path"] == "src/auth.py");
    CHECK(r["claim"]["anchors"][0]["kind"] == "file");

    auto state = [&] {
        json rows = ws.recall({{"query", "validate expiry"}})["rows"];
        REQUIRE(rows.size() == 1);
        std::string fromRecall = rows[0]["anchor_state"];
        json got = ws.get(id);
        CHECK(got["claim"]["anchor_state"] == fromRecall);
        CHECK(got["claim"]["anchors"][0]["state"] == fromRecall);
        return fromRecall;
    };
    CHECK(state() == "intact");

    // Whitespace only: re-indented lines, trailing blanks, extra blank lines.
    std::string ws1;
    for (char c : original) {
        if (c == '\n')
            ws1 += "   \n\n";
        else
            ws1 += c;
    }
    spew(path, "\n\n" + ws1);
    CHECK(state() == "intact");

    // A change to the code itself.
    std::string edited = original;
    auto at = edited.find("reason=\"expired\"");
    REQUIRE(at != std::string::npos);
    edited.replace(at, 16, "reason=\"token-expired\"");
    spew(path, edited);
    CHECK(state() == "drifted");
    json status = ws.server.call("engram/status");
    CHECK(status["anchor_health"]["drifted"] == 1);

    // Restoring the code restores the state: drift is computed, never stored.
    spew(path, original);
    CHECK(state() == "intact");

    fs::remove(path);
    CHECK(state() == "orphaned");
    CHECK(ws.server.call("engram/status")["anchor_health"]["orphaned"] == 1);
}

TEST_CASE("anchor paths outside the root are refused with OutsideRoot and nothing is stored",
          "[e2e][memory][anchors]") {
    Workspace ws;
    TempDir elsewhere;
    elsewhere.write("outside.py", "def f():\n    return 1\n");
    fs::create_directory_symlink(elsewhere.path(), ws.root / "linked");
    fs::create_symlink(elsewhere / "outside.py", ws.root / "src/sneaky.py");

    for (std::string bad :
         {std::string("../x"), std::string("src/../../outside.py"), elsewhere / "outside.py",
          std::string("linked/outside.py"), std::string("src/sneaky.py")}) {
        INFO("anchor path " << bad);
        json err =
            ws.error("engram/remember", rememberParams("Anchored outside the workspace", "outside",
                                                       {{"anchors", {{{"path", bad}}}}}));
        CHECK(err["code"] == -32014);
        CHECK(err["data"]["kind"] == "OutsideRoot");
        CHECK(contains(err["message"], "anchors[0].path"));
    }
    // The same through a file:// URI.
    json err =
        ws.error("engram/remember",
                 rememberParams("Anchored outside via a URI", "outside",
                                {{"anchors", {{{"uri", fileUri(elsewhere / "outside.py")}}}}}));
    CHECK(err["code"] == -32014);
    CHECK((!fs::exists(ws.claims()) || filesIn(ws.claims(), ".md").empty()));

    // A path inside the root is fine, and so is a symlink that stays inside.
    fs::create_symlink(ws.root / "src/db.py", ws.root / "src/db_link.py");
    json ok = ws.remember(
        rememberParams("Anchored inside", "inside", {{"anchors", {{{"path", "src/db_link.py"}}}}}));
    CHECK(ok["claim"]["anchors"][0]["path"] == "src/db_link.py");
}

TEST_CASE("a secret in a claim is refused with SecretDetected naming the rule and span, never "
          "echoing it",
          "[e2e][memory][secrets]") {
    Workspace ws;
    // Built by concatenation so this file holds no secret-shaped literal.
    std::string openai = std::string("sk") + "-" + alnum(24, 7);
    std::string github = std::string("ghp") + "_" + alnum(36, 11);
    std::string keyBody = alnum(64, 3) + "\n" + alnum(64, 5) + "\n" + alnum(20, 9) + "==";
    std::string pem = std::string("-----BEGIN RSA ") + "PRIVATE KEY-----\n" + keyBody +
                      "\n-----END RSA " + "PRIVATE KEY-----";
    struct Case {
        std::string secret, rule, core;
    };
    std::vector<Case> cases = {{openai, "openai-key", openai.substr(3)},
                               {github, "github-token", github.substr(4)},
                               {pem, "private-key", alnum(64, 3)}};
    for (auto& c : cases) {
        INFO("rule " << c.rule);
        std::string prefix = "The staging config uses ";
        std::string text = prefix + c.secret + " for the deploy job";
        json err = ws.error("engram/remember", rememberParams(text, "staging-creds"));
        CHECK(err["code"] == -32012);
        CHECK(err["data"]["kind"] == "SecretDetected");
        CHECK(err["data"]["rule"] == c.rule);
        REQUIRE(err["data"]["start"].is_number_integer());
        REQUIRE(err["data"]["end"].is_number_integer());
        size_t start = err["data"]["start"], end = err["data"]["end"];
        // The span lies in the text and overlaps the secret.
        CHECK(start < end);
        CHECK(end <= text.size());
        CHECK(start < prefix.size() + c.secret.size());
        CHECK(end > prefix.size());
        CHECK(contains(err["message"], c.rule));
        // Neither the message nor anything else in the reply echoes it.
        CHECK_FALSE(contains(err.dump(), c.core));
        CHECK_FALSE(contains(ws.server.log(), c.core));
    }
    // A secret in a tag is refused as well.
    json err = ws.error("engram/remember",
                        rememberParams("Harmless text", "tagged", {{"tags", {github}}}));
    CHECK(err["code"] == -32012);
    CHECK(contains(err["message"], "tags[0]"));

    CHECK((!fs::exists(ws.claims()) || filesIn(ws.claims()).empty()));
    json r = ws.recall({{"query", "staging config deploy"}});
    CHECK(r["rows"].empty());
}

TEST_CASE("invalid UTF-8 in a claim's text is refused and nothing is stored", "[e2e][memory]") {
    Workspace ws;
    // Raw invalid sequences inside the JSON string: a lone 0xFF, an overlong
    // '/', a truncated 3-byte sequence, and an unpaired surrogate escape.
    std::vector<std::string> bodies;
    for (std::string bad : {std::string("\xff\xfe"), std::string("\xc0\xaf"),
                            std::string("\xe2\x82"), std::string("\\ud800")}) {
        int id = ws.server.nextId();
        std::string body = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                           R"(,"method":"engram/remember","params":{"text":"bad )" + bad +
                           R"( bytes","agent":"test:e2e"}})";
        ws.server.sendRaw(frameBody(body));
        auto reply = ws.server.readMessage();
        REQUIRE(reply);
        INFO(reply->dump(-1, ' ', false, json::error_handler_t::replace));
        REQUIRE(reply->contains("error"));
        int code = (*reply)["error"]["code"];
        CHECK((code == -32602 || code == -32700));
        // The reply belongs to this request, even when the body could not be
        // parsed (its id is read from the text): a reply with id null would
        // leave the caller waiting.
        CHECK((*reply)["id"] == id);
    }
    CHECK((!fs::exists(ws.claims()) || filesIn(ws.claims()).empty()));
    // The server still serves.
    json ok = ws.remember(rememberParams("Valid UTF-8 is fine: caf\xc3\xa9 \xe2\x9c\x93", "utf8"));
    CHECK(ok["claim"]["text"] == "Valid UTF-8 is fine: caf\xc3\xa9 \xe2\x9c\x93");
}

} // namespace e2e_MemoryTest
