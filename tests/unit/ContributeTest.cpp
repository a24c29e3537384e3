// Contributions and review through the engine: normalisation and
// duplicates, conflicts by modality, secrets refused before disk, frontier
// invisible by default, accept and reject as recorded acts, and
// engram.conflict findings.
#include "engine/Engine.h"
#include "engine/Modality.h"
#include "ops/op/Ops.h"
#include "protocol/Packet.h"
#include "support/TempDir.h"
#include "support/Workspace.h"
#include "text/Content.h"
#include "util/Error.h"
#include "util/Fs.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_ContributeTest {

using namespace engram;
using engram::protocol::json;
using engram::test::TempDir;

namespace {

struct Workspace : test::EngineWorkspace {

    Claim remember(const std::string& text, const std::string& label = "",
                   std::vector<AnchorSpec> anchors = {}) {
        RememberRequest r;
        r.text = text;
        if (!label.empty()) r.label = label;
        r.agent = "claude:parent";
        r.anchors = std::move(anchors);
        return engine.remember(r).claim;
    }
    ContributeResult contribute(std::vector<ContributionItem> items) {
        ContributeRequest r;
        r.agent = "claude:child";
        r.items = std::move(items);
        return engine.contribute(r);
    }
    std::vector<std::string> recallTexts(const std::string& q, bool frontier = false) {
        RecallRequest r;
        r.query = q;
        r.limit = 50;
        if (frontier) r.include = {ClaimStatus::Frontier};
        std::vector<std::string> out;
        for (auto& row : engine.recall(r).rows)
            out.push_back(row.claim.text);
        return out;
    }
    std::string everyFile() {
        std::string all;
        for (auto& e : std::filesystem::recursive_directory_iterator(root / ".engram"))
            if (e.is_regular_file() && e.path().extension() != ".sqlite" &&
                e.path().string().find("index.sqlite") == std::string::npos)
                all += readFile(e.path().string()).value_or("");
        return all;
    }
};

ContributionItem item(const std::string& text, std::optional<std::string> label = std::nullopt,
                      std::vector<AnchorSpec> anchors = {}) {
    ContributionItem it;
    it.text = text;
    it.label = std::move(label);
    it.anchors = std::move(anchors);
    return it;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST_CASE("modality: contradicting pairs are found, unrelated ones are not", "[contribute]") {
    CHECK(contradiction("callers must check .ok", "callers must not check .ok"));
    CHECK(contradiction("Callers MUST check ok.", "callers mustn't check ok"));
    CHECK(contradiction("the client always retries", "the client never retries"));
    CHECK(contradiction("the cache is thread-safe", "the cache is not thread-safe"));
    CHECK(contradiction("the cache isn't thread safe", "the cache is thread safe"));
    CHECK(contradiction("you should pin the version", "you should not pin the version"));
    CHECK(contradiction("the parser can handle tabs", "the parser cannot handle tabs"));
    CHECK(contradiction("do retry on 503", "don't retry on 503"));
    CHECK(contradiction("handlers must never block", "handlers must block"));
    auto m = contradiction("callers must check ok", "callers must not check ok");
    REQUIRE(m);
    CHECK(m->modal == "must");
    CHECK(m->positive == "must check ok");
    CHECK(m->negative == "must not check ok");

    CHECK_FALSE(contradiction("callers must check ok", "callers must check ok"));
    CHECK_FALSE(contradiction("callers must check ok", "callers must not validate tokens"));
    CHECK_FALSE(contradiction("the cache is fast", "the queue is not durable"));
    CHECK_FALSE(contradiction("no modal here", "nothing either"));
    CHECK_FALSE(contradiction("", "must not"));
}

TEST_CASE("content hashes ignore case and white space", "[contribute]") {
    CHECK(normalizeContent("  Callers   MUST\tcheck\n.ok  ") == "callers must check .ok");
    CHECK(contentHash("Callers must check .ok") == contentHash("callers  must check .OK\n"));
    CHECK(contentHash("callers must check .ok") != contentHash("callers must check ok"));
}

TEST_CASE("contributions are frontier: invisible by default, shown when asked", "[contribute]") {
    Workspace w;
    w.remember("the importer skips empty rows", "importer-empty");
    auto r = w.contribute({item("the importer trims header names", "importer-trim")});
    REQUIRE(r.stored == 1);
    auto& o = r.items[0];
    CHECK(o.status == "stored");
    CHECK(o.contributionId.starts_with("k-"));
    CHECK(o.contentHash == contentHash("the importer trims header names"));
    CHECK_FALSE(o.redacted);

    auto got = w.engine.get(o.claimId);
    CHECK(got.claim.status == ClaimStatus::Frontier);
    CHECK(got.claim.contributionId == o.contributionId);
    CHECK(got.claim.contributedBy == "claude:child");
    CHECK(got.claim.contentHash == o.contentHash);

    CHECK_FALSE(contains(w.recallTexts("importer"), "the importer trims header names"));
    CHECK(contains(w.recallTexts("importer", true), "the importer trims header names"));
}

TEST_CASE("near-duplicates of claims and of contributions are flagged, not stored again",
          "[contribute]") {
    Workspace w;
    Claim live = w.remember("Deploys run database migrations first", "deploy-migrations");
    auto r = w.contribute({item("  deploys RUN database\n migrations   first "),
                           item("the worker pool has eight threads"),
                           item("The worker pool  has EIGHT threads")});
    REQUIRE(r.items.size() == 3);
    CHECK(r.items[0].status == "duplicate");
    CHECK(r.items[0].duplicateOf == live.id);
    CHECK(r.items[0].duplicateStatus == "committed");
    CHECK(r.items[1].status == "stored");
    CHECK(r.items[2].status == "duplicate"); // of the item just before it
    CHECK(r.items[2].duplicateOf == r.items[1].claimId);
    CHECK(r.items[2].contributionId == r.items[1].contributionId);
    CHECK(r.stored == 1);
    CHECK(r.duplicates == 2);

    // A later call repeating an earlier contribution.
    auto again = w.contribute({item("the worker pool has eight threads.")});
    CHECK(again.items[0].status == "stored"); // the period makes it different content
    auto same = w.contribute({item("THE WORKER POOL HAS EIGHT THREADS")});
    CHECK(same.items[0].status == "duplicate");
    CHECK(same.items[0].duplicateStatus == "frontier");
}

TEST_CASE("a must / must not pair on the same anchor or label is a conflict", "[contribute]") {
    Workspace w;
    w.root.write("src/tok.py",
                 "class TokenValidator:\n    def validate(self, t):\n        return t\n");
    Claim anchored = w.remember("callers must check the ok flag", "",
                                {{"src/tok.py", "TokenValidator.validate"}});
    Claim labelled = w.remember("the retry loop always backs off", "retry-backoff");

    auto r = w.contribute(
        {item("callers must not check the ok flag", std::nullopt,
              {{"src/tok.py", "TokenValidator.validate"}}),
         item("the retry loop never backs off", "retry-backoff"),
         item("callers must not check the ok flag twice", std::nullopt, {{"src/tok.py"}}),
         item("callers must check the ok flag", std::nullopt, {{"src/tok.py", "TokenValidator"}})});
    CHECK(r.items[0].conflictsWith == std::vector<std::string>{anchored.id});
    CHECK(r.items[0].conflict.find("must not check") != std::string::npos);
    CHECK(r.items[1].conflictsWith == std::vector<std::string>{labelled.id});
    CHECK(r.items[2].conflictsWith.empty()); // a file anchor is another anchor
    CHECK(r.items[3].conflictsWith.empty()); // agrees
    CHECK(r.conflicts == 2);
    // Conflicting items are still stored, for the parent to decide.
    CHECK(r.items[0].status == "stored");
    json j = ops::contribute::toJson(r);
    CHECK(j["items"][0]["conflict"] == true);
    CHECK(j["items"][3]["conflict"] == false);
}

TEST_CASE("a secret in a contribution is refused and never reaches disk", "[contribute]") {
    Workspace w;
    const std::string secret = "ghp_" + std::string("a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    auto r = w.contribute({item("the CI token is " + secret), item("the CI runs on every push"),
                           item("tagged", "label " + secret)});
    REQUIRE(r.items.size() == 3);
    CHECK(r.items[0].status == "refused");
    CHECK(r.items[0].refusalRule == "github-token");
    CHECK(r.items[0].refusalField == "items[0].text");
    CHECK(r.items[0].refusal.find("characters") != std::string::npos);
    CHECK(r.items[0].refusal.find(secret) == std::string::npos);
    CHECK(r.items[0].contentHash.empty());
    CHECK_FALSE(r.items[0].redacted);
    CHECK(r.items[1].status == "stored");
    CHECK(r.items[2].status == "refused");
    CHECK(r.items[2].refusalField == "items[2].label");
    CHECK(r.refused == 2);
    CHECK(ops::contribute::toJson(r).dump().find(secret) == std::string::npos);
    std::string disk = w.everyFile();
    CHECK(disk.find("ghp_") == std::string::npos);
    CHECK(disk.find("the CI runs on every push") != std::string::npos);
}

TEST_CASE("review accept commits with provenance, the next packet may carry it", "[contribute]") {
    Workspace w;
    ContributeRequest cr;
    cr.agent = "claude:child";
    cr.packetId = std::string(64, 'c');
    cr.items = {item("the exporter writes UTF-8 without a BOM", "exporter-bom")};
    auto r = w.engine.contribute(cr);
    REQUIRE(r.stored == 1);
    std::string cid = r.items[0].contributionId;

    auto rev = w.engine.review({cid, "accept", "claude:parent", "checked against exporter.py"});
    CHECK(rev.claim.status == ClaimStatus::Committed);
    CHECK(rev.claim.contributionId == cid);
    CHECK(rev.claim.contributedBy == "claude:child");
    CHECK(rev.claim.acceptedBy == "claude:parent");
    CHECK(rev.claim.packetId == std::string(64, 'c'));

    RecallRequest q;
    q.query = "exporter BOM";
    auto rows = w.engine.recall(q).rows;
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].claim.contributionId == cid);
    CHECK(rows[0].claim.acceptedBy == "claude:parent");

    DelegateRequest d;
    d.task = "exporter encoding";
    d.agent = "claude:parent";
    json p =
        protocol::packetJson(ops::delegate::machine(w.engine), w.engine.delegate(d).packet, d.sign);
    REQUIRE(p["items"].size() == 1);
    CHECK(p["items"][0]["contribution_id"] == cid);
    CHECK(p["items"][0]["accepted_by"] == "claude:parent");

    std::string audit = readFile(w.root / ".engram/audit.log").value_or("");
    CHECK(audit.find("\taccept\t") != std::string::npos);
    CHECK(audit.find("checked against exporter.py") != std::string::npos);

    // Reviewing twice is a clear error.
    CHECK_THROWS_WITH(w.engine.review({cid, "reject", "claude:parent", "changed my mind"}),
                      Catch::Contains("already reviewed") && Catch::Contains("accepted"));
}

TEST_CASE("review reject keeps it out of recall and in the audit log", "[contribute]") {
    Workspace w;
    auto r = w.contribute({item("the scheduler is single threaded")});
    std::string cid = r.items[0].contributionId;
    auto rev = w.engine.review({cid, "reject", "human:ana", "it has a worker pool"});
    CHECK(rev.claim.status == ClaimStatus::Retracted);
    CHECK(rev.claim.retractReason == "rejected: it has a worker pool");
    CHECK(w.recallTexts("scheduler").empty());
    std::string audit = readFile(w.root / ".engram/audit.log").value_or("");
    CHECK(audit.find("\treject\t") != std::string::npos);
    CHECK(audit.find("it has a worker pool") != std::string::npos);
    // A rejected finding submitted again is reported as such, not stored again.
    auto again = w.contribute({item("The scheduler is single threaded")});
    CHECK(again.items[0].status == "duplicate");
    CHECK(again.items[0].duplicateStatus == "retracted");

    SECTION("errors") {
        CHECK_THROWS_AS(w.engine.review({"k-unknown000000", "accept", "a", "r"}), EngramError);
        try {
            w.engine.review({"k-unknown000000", "accept", "a", "r"});
        } catch (const EngramError& e) {
            CHECK(e.kind == ErrorKind::UnknownClaim);
        }
        CHECK_THROWS_WITH(w.engine.review({cid, "maybe", "a", "r"}), Catch::Contains("decision"));
        CHECK_THROWS_WITH(w.engine.review({"c-notacontrib", "accept", "a", "r"}),
                          Catch::Contains("contribution_id"));
        CHECK_THROWS_WITH(w.engine.review({cid, "accept", "a", ""}), Catch::Contains("reason"));
    }
}

TEST_CASE("bad contribute input gets an error naming the field", "[contribute]") {
    Workspace w;
    CHECK_THROWS_WITH(w.contribute({}), Catch::Contains("items"));
    CHECK_THROWS_WITH(w.contribute({item("   ")}), Catch::Contains("items[0].text"));
    ContributionItem bad = item("ok");
    bad.kind = "rumour";
    CHECK_THROWS_WITH(w.contribute({item("fine"), bad}), Catch::Contains("items[1].kind"));
    CHECK_THROWS_WITH(w.contribute({item("x", std::nullopt, {{"../outside.py"}})}),
                      Catch::Contains("items[0].anchors[0]"));
    ContributeRequest r;
    r.agent = "a";
    r.packetId = "nope";
    r.items = {item("x")};
    CHECK_THROWS_WITH(w.engine.contribute(r), Catch::Contains("packet_id"));
    CHECK_THROWS_WITH(ops::contribute::parse(json{{"agent", "a"}, {"items", {{{"text", 1}}}}}),
                      Catch::Contains("items[0].text"));
    CHECK_THROWS_WITH(ops::contribute::parse(json{{"agent", "a"}}), Catch::Contains("items"));
    // Nothing was stored by the failed calls.
    CHECK(listFiles(w.root / ".engram/claims").empty());
}

TEST_CASE("two live claims that contradict on an anchor or label are engram.conflict findings",
          "[contribute][findings]") {
    Workspace w;
    w.root.write("src/tok.py",
                 "class TokenValidator:\n    def validate(self, t):\n        return t\n");
    Claim a = w.remember("callers must check the ok flag", "",
                         {{"src/tok.py", "TokenValidator.validate"}});
    Claim unrelated =
        w.remember("validate logs every failure", "", {{"src/tok.py", "TokenValidator.validate"}});
    auto r = w.contribute({item("callers must not check the ok flag", std::nullopt,
                                {{"src/tok.py", "TokenValidator.validate"}})});
    // A frontier contribution is not live: no finding yet.
    auto before = w.engine.findings();
    CHECK(std::none_of(before.begin(), before.end(),
                       [](const Finding& f) { return f.code == "engram.conflict"; }));
    auto rev = w.engine.review({r.items[0].contributionId, "accept", "human:ana", "both seen"});

    std::vector<Finding> conflicts;
    for (auto& f : w.engine.findings())
        if (f.code == "engram.conflict") conflicts.push_back(f);
    REQUIRE(conflicts.size() == 2);
    std::set<std::string> ids = {conflicts[0].claimId, conflicts[1].claimId};
    CHECK(ids == std::set<std::string>{a.id, rev.claim.id});
    for (auto& f : conflicts) {
        CHECK(f.severity == "warning");
        CHECK(f.path == "src/tok.py");
        CHECK(f.symbol == "TokenValidator.validate");
        CHECK(f.range.startLine == 1);
        CHECK(f.message.find("must not check") != std::string::npos);
        CHECK(f.claimId != unrelated.id);
    }
    REQUIRE(findingRule("engram.conflict"));
    CHECK(findingRule("engram.conflict")->computed);
}

} // namespace unit_ContributeTest
