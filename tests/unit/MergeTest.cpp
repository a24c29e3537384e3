// The claim merge (store/Merge.h): the rule on hand-picked cases, and a
// property test over random edit sequences on two branches.
#include "store/Merge.h"
#include "store/ClaimFile.h"

#include <catch2/catch.hpp>
#include <random>
#include <set>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_MergeTest {

using namespace engram;

namespace {

Claim base() {
    Claim c;
    c.id = "c-merge0000001";
    c.version = 1;
    c.label = "pool";
    c.kind = "fact";
    c.text = "the pool holds 10 connections";
    c.confidence = 0.7;
    c.created = 1'700'000'000;
    c.updated = 1'700'000'000;
    c.sourceAgent = "human:ana";
    c.origin = "project:demo";
    return c;
}

// What a supersession writes: the next version after every head, the old
// heads to history (as Engine::remember does).
Claim supersede(const Claim& old, const std::string& text, double conf, int64_t at,
                std::vector<Claim>& history) {
    int top = 0;
    for (auto& h : claimHeads(old)) {
        top = std::max(top, h.version);
        Claim kept = h;
        if (kept.status == ClaimStatus::Committed) kept.status = ClaimStatus::Superseded;
        history.push_back(kept);
    }
    Claim c = claimHeads(old)[0];
    c.version = top + 1;
    c.text = text;
    c.confidence = conf;
    c.updated = at;
    c.supersedes = c.id + "@" + std::to_string(claimHeads(old)[0].version);
    c.feedback = {};
    c.diverged.clear();
    return c;
}

std::string bytes(const Claim& c) {
    return serializeClaim(c);
}

} // namespace

TEST_CASE("merge: one side's change is taken as it is", "[merge]") {
    Claim o = base(), a = base(), b = base();
    a.feedback.correct = 2;
    CHECK(bytes(mergeClaims(&o, a, b)) == bytes(a));
    CHECK(bytes(mergeClaims(&o, b, a)) == bytes(a));
}

TEST_CASE("merge: feedback counts are the base plus both sides' increments", "[merge]") {
    Claim o = base();
    o.feedback = {1, 1, 0};
    Claim a = o, b = o;
    a.feedback = {3, 1, 0}; // +2 correct
    b.feedback = {2, 2, 1}; // +1 correct, +1 wrong, +1 partial
    Claim m = mergeClaims(&o, a, b);
    CHECK(m.feedback.correct == 4);
    CHECK(m.feedback.wrong == 2);
    CHECK(m.feedback.partial == 1);
    CHECK(m.diverged.empty());
}

TEST_CASE("merge: two supersessions keep both, the higher confidence live, flagged", "[merge]") {
    Claim o = base();
    std::vector<Claim> ha, hb;
    Claim a = supersede(o, "12 per worker", 0.8, 1'700'000'100, ha);
    Claim b = supersede(o, "20 since March", 0.9, 1'700'000'050, hb);
    Claim m = mergeClaims(&o, a, b);
    CHECK(m.text == "20 since March");
    REQUIRE(m.diverged.size() == 1);
    CHECK(m.diverged[0].text == "12 per worker");
    CHECK(bytes(m) == bytes(mergeClaims(&o, b, a)));
    // The file form reads back to the same claim.
    CHECK(bytes(parseClaim(bytes(m), m.id)) == bytes(m));
}

TEST_CASE("merge: a retraction against a supersession keeps both, the live one served", "[merge]") {
    Claim o = base();
    std::vector<Claim> ha;
    Claim a = supersede(o, "12 per worker", 0.7, 1'700'000'100, ha);
    Claim b = o;
    b.status = ClaimStatus::Retracted;
    b.retractReason = "gone";
    Claim m = mergeClaims(&o, a, b);
    CHECK(m.status == ClaimStatus::Committed);
    CHECK(m.text == "12 per worker");
    REQUIRE(m.diverged.size() == 1);
    CHECK(m.diverged[0].status == ClaimStatus::Retracted);
}

TEST_CASE("merge: a learn on a version the other side superseded is not a divergence", "[merge]") {
    Claim o = base();
    std::vector<Claim> ha;
    Claim a = supersede(o, "12 per worker", 0.7, 1'700'000'100, ha);
    Claim b = o;
    b.feedback.correct = 1;
    Claim m = mergeClaims(&o, a, b);
    CHECK(bytes(m) == bytes(a));
}

TEST_CASE("merge: git's conflict markers are split into both sides, with the ancestor", "[merge]") {
    std::string text = "---\nid: c-x1\nversion: 2\n"
                       "<<<<<<< HEAD\nconfidence: 0.8\n||||||| base\nconfidence: 0.7\n"
                       "=======\nconfidence: 0.9\n>>>>>>> theirs\n---\nsome text\n";
    auto s = splitConflict(text);
    REQUIRE(s);
    CHECK(s->firstLine == 4);
    CHECK(s->ours == "---\nid: c-x1\nversion: 2\nconfidence: 0.8\n---\nsome text\n");
    CHECK(s->theirs == "---\nid: c-x1\nversion: 2\nconfidence: 0.9\n---\nsome text\n");
    REQUIRE(s->base);
    CHECK(*s->base == "---\nid: c-x1\nversion: 2\nconfidence: 0.7\n---\nsome text\n");
    Claim c = parseClaim(text, "c-x1");
    CHECK(c.unmerged);
    CHECK(c.confidence == 0.9);
    CHECK_THROWS_AS(splitConflict("a\n<<<<<<< HEAD\nb\n"), ClaimFileError);
    CHECK_FALSE(splitConflict("---\ntext with ======= inside\n"));
}

TEST_CASE("merge: random edits on two branches merge to identical bytes both ways and lose no "
          "version",
          "[merge][property]") {
    std::mt19937 rng(20261123);
    auto pick = [&](int n) { return int(rng() % unsigned(n)); };
    const char* words[] = {"pool", "retries", "cache", "lock", "timeout", "12", "20", "never"};
    int runs = 0, diverged = 0;
    for (int run = 0; run < 400; ++run) {
        Claim o = base();
        std::set<std::string> created = {versionKey(o)};
        std::vector<Claim> history;
        int64_t clock = 1'700'000'000;
        // Several rounds: edit on both branches, merge, go on from the merge.
        for (int round = 0; round < 3; ++round) {
            Claim side[2] = {o, o};
            for (int s = 0; s < 2; ++s) {
                int steps = 1 + pick(4);
                for (int k = 0; k < steps; ++k) {
                    clock += 1 + pick(3);
                    Claim& c = side[s];
                    switch (pick(5)) {
                    case 0:
                    case 1: {
                        std::string text = std::string("the ") + words[pick(8)] + " is " +
                                           words[pick(8)] + " " + std::to_string(pick(3));
                        c = supersede(c, text, 0.5 + 0.1 * pick(5), clock, history);
                        created.insert(versionKey(c));
                        break;
                    }
                    case 2:
                        ++(pick(2) ? c.feedback.correct : c.feedback.wrong);
                        break;
                    case 3:
                        if (c.status == ClaimStatus::Committed) {
                            c.status = ClaimStatus::Retracted;
                            c.retractedBy = s ? "human:ben" : "human:ana";
                            c.retractReason = "wrong " + std::to_string(pick(3));
                            c.updated = clock;
                        }
                        break;
                    case 4:
                        c.verified = clock;
                        c.updated = clock;
                        break;
                    }
                }
            }
            Claim ab = mergeClaims(&o, side[0], side[1]);
            Claim ba = mergeClaims(&o, side[1], side[0]);
            INFO("run " << run << " round " << round);
            REQUIRE(bytes(ab) == bytes(ba));
            // The file form is stable: what is read back merges the same.
            REQUIRE(bytes(parseClaim(bytes(ab), ab.id)) == bytes(ab));
            std::set<std::string> reachable;
            for (auto& h : claimHeads(ab))
                reachable.insert(versionKey(h));
            for (auto& h : history)
                reachable.insert(versionKey(h));
            for (auto& k : created)
                REQUIRE(reachable.count(k) == 1);
            diverged += !ab.diverged.empty();
            ++runs;
            o = ab;
        }
    }
    // The generator does make divergent histories, not only trivial merges.
    CHECK(diverged > runs / 10);
}

} // namespace unit_MergeTest
