// Durability: the claim files are the truth. The index is derived (deleted
// or corrupted, it is rebuilt to the same answers), hand edits are picked up,
// broken files are reported by line, acknowledged writes survive kill -9, and
// two processes on one root lose nothing.
#include "Client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace e2e_DurabilityTest {

using namespace engram::e2e;
using engram::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTexts = {
    "TokenValidator.validate rejects expired tokens silently; callers must check .ok",
    "The database connection pool holds ten connections; release them with close()",
    "Browser sessions live in memory and vanish when the server restarts",
    "Retries back off exponentially, at most three attempts per operation",
    "Migrations must be reversible and are reviewed by the platform team",
    "The login service issues bearer tokens valid for one hour",
    "Database writes go through the retry helper in src/db.py",
    "Session ids are random 128-bit values encoded as hex",
    "Never log bearer tokens; log their hash prefix instead",
    "The connection pool size is configured by POOL_SIZE",
    "Expired sessions are swept every five minutes by a background job",
    "Token validation happens before any database access",
};

const std::vector<json> kQueries = {
    {{"query", "token"}},
    {{"query", "database connection pool"}},
    {{"query", "session expiry"}},
    {{"query", "retry attempts"}},
    {{"query", "log"}},
    json::object(), // no query: the newest claims
    {{"query", "token"}, {"limit", 3}},
};

// A workspace root and a home that outlive the servers started on them.
struct Site {
    TempDir root;
    TempDir home;
    Site() { copySampleWorkspace(root.path()); }
    std::unique_ptr<Server> start() {
        ServerOptions opts;
        opts.home = home.path();
        auto s = std::make_unique<Server>(opts);
        s->initialize(root.path());
        return s;
    }
    std::string claims() const { return claimsDir(root.path()); }
    std::string index() const { return root.path() + "/.engram/index.sqlite"; }
};

void stop(Server& s) {
    REQUIRE(s.request("shutdown", nullptr).contains("result"));
    s.notify("exit", nullptr);
    REQUIRE(s.waitExit() == 0);
}

std::vector<std::string> seed(Server& s) {
    std::vector<std::string> ids;
    for (size_t i = 0; i < kTexts.size(); ++i) {
        json extra = {{"confidence", 0.5 + 0.04 * double(i)}};
        if (i % 3 == 0) extra["tags"] = {"core"};
        ids.push_back(
            s.call("engram/remember",
                   rememberParams(kTexts[i], "seed-" + std::to_string(i), extra))["claim"]["id"]);
    }
    return ids;
}

std::vector<std::vector<std::string>> answers(Server& s) {
    std::vector<std::vector<std::string>> out;
    for (auto& q : kQueries)
        out.push_back(rowIds(s.call("engram/recall", q)));
    return out;
}

bool hasRow(const json& recall, const std::string& id) {
    for (auto& row : recall["rows"])
        if (row["id"] == id) return true;
    return false;
}

// Polls recall (bounded: ~3 s) until pred(result) holds; returns the last result.
template <class Pred>
json pollRecall(Server& s, const json& params, Pred pred) {
    json r;
    for (int i = 0; i < 150; ++i) {
        r = s.call("engram/recall", params);
        if (pred(r)) return r;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return r;
}

// Replaces the claim text (everything after the closing '---').
std::string withText(const std::string& file, const std::string& text) {
    auto close = file.find("\n---\n");
    REQUIRE(close != std::string::npos);
    return file.substr(0, close + 5) + text + "\n";
}

} // namespace

TEST_CASE("deleting the index between runs gives identical recall answers", "[e2e][durability]") {
    Site site;
    std::vector<std::vector<std::string>> before;
    json statusBefore;
    {
        auto s = site.start();
        seed(*s);
        before = answers(*s);
        statusBefore = storeOf(s->call("engram/status")["envelope"])["claims"];
        stop(*s);
    }
    for (auto& a : before)
        REQUIRE_FALSE(a.empty());
    int removed = 0;
    for (auto& f : filesIn(site.root.path() + "/.engram"))
        if (f.rfind("index.sqlite", 0) == 0) removed += fs::remove(site.root / (".engram/" + f));
    REQUIRE(removed >= 1);
    REQUIRE_FALSE(fs::exists(site.index()));

    auto s = site.start();
    CHECK(answers(*s) == before);
    CHECK(storeOf(s->call("engram/status")["envelope"])["claims"] == statusBefore);
    CHECK(fs::exists(site.index()));
}

TEST_CASE("an index overwritten with garbage is rebuilt to identical answers",
          "[e2e][durability]") {
    Site site;
    std::vector<std::vector<std::string>> before;
    {
        auto s = site.start();
        seed(*s);
        before = answers(*s);
        stop(*s);
    }
    std::mt19937 rng(20240611);
    std::string garbage(64 * 1024, '\0');
    for (auto& c : garbage)
        c = char(rng() & 0xff);
    spew(site.index(), garbage);
    for (auto suffix : {"-wal", "-shm"})
        if (fs::exists(site.index() + suffix)) spew(site.index() + suffix, garbage.substr(0, 999));

    auto s = site.start();
    CHECK(answers(*s) == before);
    json status = s->call("engram/status");
    CHECK(storeOf(status["envelope"])["claims"]["committed"] == kTexts.size());
    CHECK(status["envelope"]["status"] == "ok");

    // Garbage that happens to start like an SQLite file.
    stop(*s);
    spew(site.index(), std::string("SQLite format 3\0", 16) + garbage);
    auto s2 = site.start();
    CHECK(answers(*s2) == before);
}

TEST_CASE("a hand-edited claim file changes recall after a restart and while the server runs",
          "[e2e][durability]") {
    Site site;
    std::string id;
    {
        auto s = site.start();
        id = seed(*s)[4]; // the migrations claim
        stop(*s);
    }
    std::string file = site.claims() + "/" + id + ".md";
    spew(file, withText(*slurp(file), "Migrations are applied by the zanzibar deploy tool"));

    // Rewritten in place while no engram ran, in a directory as the last
    // server left it: the start-up check that finds it runs on a thread
    // (ARCHITECTURE.md, "Start-up without a scan"). Until it is applied a
    // claim that would newly match may be missing, and the envelope then
    // says the store is not reconciled; never a stale text.
    auto s = site.start();
    json r = pollRecall(*s, {{"query", "zanzibar"}}, [&](const json& x) {
        if (hasRow(x, id)) return true;
        CHECK(storeOf(x["envelope"])["reconciled"] == false);
        return false;
    });
    CHECK(rowIds(r) == std::vector<std::string>{id});
    CHECK(r["rows"][0]["text"] == "Migrations are applied by the zanzibar deploy tool");
    CHECK_FALSE(hasRow(s->call("engram/recall", {{"query", "reversible"}}), id));

    // While running: the server watches the claims directory.
    spew(file, withText(*slurp(file), "Migrations are applied by the quokka deploy tool"));
    r = pollRecall(*s, {{"query", "quokka"}}, [&](const json& x) { return hasRow(x, id); });
    CHECK(rowIds(r) == std::vector<std::string>{id});
    r = s->call("engram/recall", {{"query", "zanzibar"}});
    CHECK(r["rows"].empty());
    CHECK(s->call("engram/get", {{"id", id}})["claim"]["text"] ==
          "Migrations are applied by the quokka deploy tool");

    // A claim file added by hand (e.g. by `git pull`) appears too.
    std::string added = "c-handwritten1";
    spew(site.claims() + "/" + added + ".md",
         "---\nlabel: pulled\nkind: fact\nconfidence: 0.8\n---\nPulled claims mention a "
         "narwhal\n");
    r = pollRecall(*s, {{"query", "narwhal"}}, [&](const json& x) { return hasRow(x, added); });
    REQUIRE(rowIds(r) == std::vector<std::string>{added});
    // What a hand-written file does not say is shown as unknown, not guessed.
    CHECK(r["rows"][0]["source_agent"] == "unknown");
    CHECK(r["rows"][0]["age"] == "unknown");
    CHECK(r["rows"][0]["anchor_state"] == "unanchored");

    // And a deleted file disappears.
    fs::remove(site.claims() + "/" + added + ".md");
    r = pollRecall(*s, {{"query", "narwhal"}}, [&](const json& x) { return x["rows"].empty(); });
    CHECK(r["rows"].empty());
}

TEST_CASE("a broken claim file is reported by file and line while every other claim still loads",
          "[e2e][durability]") {
    Site site;
    std::vector<std::string> ids;
    {
        auto s = site.start();
        ids = seed(*s);
        stop(*s);
    }
    std::string broken = ids[3];
    std::string file = site.claims() + "/" + broken + ".md";
    std::string good = *slurp(file);
    auto at = good.find("confidence: ");
    REQUIRE(at != std::string::npos);
    int line = 1 + int(std::count(good.begin(), good.begin() + long(at), '\n'));
    std::string bad = good;
    bad.replace(at, good.find('\n', at) - at, "confidence: lots");
    spew(file, bad);

    auto s = site.start();
    json reply = s->request("engram/get", {{"id", broken}});
    REQUIRE(reply.contains("error"));
    auto& err = reply["error"];
    CHECK(err["code"] == -32016);
    CHECK(err["data"]["kind"] == "InvalidClaimFile");
    std::string message = err["message"];
    CHECK(message.find(broken + ".md") != std::string::npos);
    CHECK(message.find("line " + std::to_string(line)) != std::string::npos);
    CHECK(message.find("confidence") != std::string::npos);
    CHECK(err["data"]["line"] == line);

    // Rewritten in place while no engram ran: the directory is as the last
    // server left it, so the start-up check that finds the rewrite runs on a
    // thread (ARCHITECTURE.md, "Start-up without a scan"); `get` above read
    // the file itself. Once the store says it is reconciled, the file is
    // listed as broken.
    json status;
    for (int i = 0; i < 500; ++i) {
        status = s->call("engram/status");
        if (storeOf(status["envelope"])["reconciled"] == true) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    REQUIRE(storeOf(status["envelope"])["reconciled"] == true);
    REQUIRE(status["broken_files"].size() == 1);
    CHECK(status["broken_files"][0]["file"].get<std::string>().find(broken + ".md") !=
          std::string::npos);
    CHECK(status["broken_files"][0]["problem"].get<std::string>().find(
              "line " + std::to_string(line)) != std::string::npos);
    CHECK(storeOf(status["envelope"])["broken_files"] == 1);
    CHECK(storeOf(status["envelope"])["claims"]["committed"] == kTexts.size() - 1);

    for (auto& id : ids) {
        if (id == broken) continue;
        CHECK(s->call("engram/get", {{"id", id}})["claim"]["id"] == id);
    }
    json r = s->call("engram/recall", {{"query", "retries attempts"}, {"limit", 20}});
    CHECK_FALSE(hasRow(r, broken));
    r = s->call("engram/recall", {{"query", "token"}});
    CHECK(r["rows"].size() >= 3);

    // Writing through engram to a broken claim is refused the same way.
    json learn =
        s->request("engram/learn", {{"id", broken}, {"verdict", "correct"}, {"agent", "t:e"}});
    REQUIRE(learn.contains("error"));
    CHECK(learn["error"]["code"] == -32016);
    CHECK(*slurp(file) == bad);

    // Fixing the file by hand while the server runs heals it.
    spew(file, good);
    for (int i = 0; i < 150; ++i) {
        if (s->call("engram/status")["broken_files"].empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(s->call("engram/status")["broken_files"].empty());
    CHECK(s->call("engram/get", {{"id", broken}})["claim"]["id"] == broken);
}

TEST_CASE("kill -9 in the middle of a burst of 1000 pipelined remembers loses no acknowledged "
          "claim and leaves no partial file",
          "[e2e][durability][slow]") {
    Site site;
    std::map<std::string, std::string> acked; // claim id -> text
    size_t filesAtKill = 0;
    {
        auto s = site.start();
        constexpr int kBurst = 1000;
        std::map<int, std::string> texts; // request id -> text
        std::string burst;
        for (int i = 0; i < kBurst; ++i) {
            int id = s->nextId();
            texts[id] = "Burst claim " + std::to_string(i) + " about subsystem" +
                        std::to_string(i % 37) + " and its quirks";
            burst += frame({{"jsonrpc", "2.0"},
                            {"id", id},
                            {"method", "engram/remember"},
                            {"params", rememberParams(texts[id], "burst-" + std::to_string(i))}});
        }
        s->sendRaw(burst); // reads replies while writing, so this never deadlocks
        while (acked.size() < 300) {
            auto msg = s->readMessage(std::chrono::seconds(30));
            REQUIRE(msg);
            INFO(msg->dump());
            REQUIRE(msg->contains("result"));
            acked[(*msg)["result"]["claim"]["id"]] = texts.at((*msg)["id"].get<int>());
        }
        s->kill9();
        filesAtKill = filesIn(site.claims(), ".md").size();
    }
    INFO("claim files at kill: " << filesAtKill);
    REQUIRE(filesAtKill >= acked.size());

    auto s = site.start();
    for (auto& [id, text] : acked) {
        json reply = s->request("engram/get", {{"id", id}});
        INFO(reply.dump());
        REQUIRE(reply.contains("result"));
        CHECK(reply["result"]["claim"]["text"] == text);
    }
    // Every *.md parses, leftover temporaries are not claims, and the index
    // counts exactly the files.
    json status = s->call("engram/status");
    CHECK(status["broken_files"].empty());
    size_t mdFiles = filesIn(site.claims(), ".md").size();
    CHECK(storeOf(status["envelope"])["claims"]["committed"] == mdFiles);
    for (auto& f : filesIn(site.claims())) {
        if (f.find(".tmp-") == std::string::npos) continue;
        std::string id = f.substr(0, f.find('.'));
        // A temporary whose claim never got renamed into place is no claim.
        if (!fs::exists(site.claims() + "/" + id + ".md")) {
            json reply = s->request("engram/get", {{"id", id}});
            CHECK(reply.contains("error"));
        }
    }
    // The recall surface agrees with the files.
    json r = s->call("engram/recall", {{"query", "burst quirks"}, {"limit", 200}});
    CHECK(r["rows"].size() == std::min<size_t>(mdFiles, 200));
}

TEST_CASE("two engram processes writing to one root concurrently lose nothing",
          "[e2e][durability][slow]") {
    Site site;
    auto a = site.start();
    auto b = site.start();
    constexpr int kEach = 100;
    std::vector<int> idsA, idsB;
    std::string burstA, burstB;
    for (int i = 0; i < kEach; ++i) {
        for (auto [s, ids, burst, who] : {std::tuple{a.get(), &idsA, &burstA, "alpha"},
                                          std::tuple{b.get(), &idsB, &burstB, "bravo"}}) {
            int id = s->nextId();
            ids->push_back(id);
            *burst +=
                frame({{"jsonrpc", "2.0"},
                       {"id", id},
                       {"method", "engram/remember"},
                       {"params", rememberParams(std::string("Process ") + who + " wrote claim " +
                                                     std::to_string(i),
                                                 std::string(who) + "-" + std::to_string(i))}});
        }
    }
    // Both bursts are in flight at once: each server processes its queue
    // while the other does.
    a->sendRaw(burstA);
    b->sendRaw(burstB);
    std::set<std::string> claimIds;
    for (auto [s, ids] : {std::pair{a.get(), &idsA}, std::pair{b.get(), &idsB}}) {
        for (int id : *ids) {
            json reply = s->waitReply(id, std::chrono::seconds(60));
            INFO(reply.dump());
            REQUIRE(reply.contains("result"));
            claimIds.insert(reply["result"]["claim"]["id"].get<std::string>());
        }
    }
    REQUIRE(claimIds.size() == 2 * kEach);
    CHECK(filesIn(site.claims(), ".md").size() == 2 * kEach);

    for (auto* s : {a.get(), b.get()}) {
        json status = s->call("engram/status");
        CHECK(storeOf(status["envelope"])["claims"]["committed"] == 2 * kEach);
        CHECK(status["broken_files"].empty());
        // Each process finds the other's claims.
        for (auto who : {"alpha", "bravo"}) {
            json r = s->call("engram/recall", {{"query", std::string(who)}, {"limit", 200}});
            CHECK(r["rows"].size() == kEach);
        }
        for (auto label : {"alpha-42", "bravo-17"}) {
            json r = s->call("engram/recall", {{"query", label}});
            REQUIRE_FALSE(r["rows"].empty());
            CHECK(r["rows"][0]["label"] == label);
        }
    }
    for (auto& id : claimIds)
        CHECK(a->request("engram/get", {{"id", id}}).contains("result"));
    stop(*a);
    stop(*b);

    // A fresh process rebuilding from the files agrees.
    fs::remove(site.index());
    auto c = site.start();
    CHECK(storeOf(c->call("engram/status")["envelope"])["claims"]["committed"] == 2 * kEach);
}

} // namespace e2e_DurabilityTest
