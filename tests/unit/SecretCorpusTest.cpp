// SecretCorpusTest: the secret scanner against its labelled corpus (fixtures/secrets/), with
// recall and false refusals reported per rule.
//
// positives.tsv holds real-shaped synthetic credentials, each labelled with the rule that must
// report it over the whole secret; negatives.tsv holds texts agents write every day that are
// not secrets (digests, ids, lockfile and go.sum lines, public keys, variable names, prefixes
// named in prose, placeholders). The floor is total: every positive found by its rule, no
// negative refused, and no refusal or redaction repeats the secret. The table printed on the
// way is the measurement ARCHITECTURE.md quotes.
#include "engine/Checks.h"
#include "secrets/SecretScan.h"
#include "support/LanguageCases.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_SecretCorpusTest {

using namespace engram;

namespace {

// Undoes the corpus escapes: \n, \r, \t and \\.
std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out += s[i];
            continue;
        }
        const char c = s[++i];
        out += c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : c;
    }
    return out;
}

// The tab-separated fields of each non-comment line of a corpus file.
std::vector<std::vector<std::string>> readTsv(const std::string& name) {
    std::istringstream in(test::readFixture(test::fixturesDir() + "/secrets/" + name));
    std::vector<std::vector<std::string>> rows;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> fields;
        std::size_t start = 0;
        while (true) {
            const std::size_t tab = line.find('\t', start);
            fields.push_back(unescape(line.substr(start, tab - start)));
            if (tab == std::string::npos) break;
            start = tab + 1;
        }
        rows.push_back(std::move(fields));
    }
    return rows;
}

struct Positive {
    std::string rule, text, secret;
    std::size_t at; // where the secret starts in text
};

std::vector<Positive> positives() {
    std::vector<Positive> out;
    for (const auto& f : readTsv("positives.tsv")) {
        REQUIRE(f.size() == 3);
        const std::size_t at = f[1].find("{}");
        REQUIRE(at != std::string::npos);
        out.push_back({f[0], f[1].substr(0, at) + f[2] + f[1].substr(at + 2), f[2], at});
    }
    return out;
}

struct Tally {
    int positives = 0, detected = 0, falseRefusals = 0;
};

} // namespace

TEST_CASE("secret corpus: every positive is found by its rule, no negative is refused",
          "[secrets][corpus]") {
    std::map<std::string, Tally> byRule;
    std::set<std::string> known;
    for (const auto& r : secrets::rules()) {
        known.insert(std::string(r.id));
        byRule[std::string(r.id)];
    }

    const std::vector<Positive> cases = positives();
    for (const Positive& p : cases) {
        INFO("rule " << p.rule << ", text: " << p.text);
        REQUIRE(known.count(p.rule) == 1);
        Tally& tally = byRule[p.rule];
        ++tally.positives;
        const auto hits = secrets::scan(p.text);
        bool found = false;
        for (const auto& h : hits)
            found =
                found || (h.rule == p.rule && h.begin <= p.at && h.end >= p.at + p.secret.size());
        tally.detected += found ? 1 : 0;
        CHECK(found);
        // Neither the refusal nor the redacted text repeats the secret.
        const auto refusal = findSecret("text", p.text);
        REQUIRE(refusal);
        CHECK(refusal->message.find(p.secret) == std::string::npos);
        CHECK(secrets::redact(p.text, hits).find(p.secret) == std::string::npos);
    }

    const auto negatives = readTsv("negatives.tsv");
    std::map<std::string, int> negativesByKind;
    int refused = 0;
    for (const auto& f : negatives) {
        REQUIRE(f.size() == 3);
        ++negativesByKind[f[0]];
        const auto hits = secrets::scan(f[1]);
        INFO("negative (" << f[0] << ": " << f[2] << "): " << f[1]);
        INFO("refused by " << (hits.empty() ? std::string("-") : hits[0].rule));
        CHECK(hits.empty());
        if (!hits.empty()) {
            ++refused;
            ++byRule[hits[0].rule].falseRefusals;
        }
    }

    // The measurement: recall per rule on the positives, false refusals per rule on the
    // negatives.
    std::printf("\nsecret corpus: %zu rules, %zu positives, %zu negatives\n", known.size(),
                cases.size(), negatives.size());
    std::printf("%-26s %9s %9s %7s %14s\n", "rule", "positives", "detected", "recall",
                "false refusals");
    int detected = 0;
    for (const auto& r : secrets::rules()) {
        const Tally& t = byRule[std::string(r.id)];
        detected += t.detected;
        std::printf("%-26s %9d %9d %6.0f%% %14d\n", std::string(r.id).c_str(), t.positives,
                    t.detected, t.positives ? 100.0 * t.detected / t.positives : 0.0,
                    t.falseRefusals);
    }
    std::printf("%-26s %9zu %9d %6.1f%% %14d\n", "total", cases.size(), detected,
                100.0 * detected / double(cases.size()), refused);
    for (const auto& [kind, n] : negativesByKind)
        std::printf("  negatives of kind %-14s %d\n", kind.c_str(), n);

    // Every rule is exercised, and the negatives cover the lookalikes in number.
    for (const auto& [rule, t] : byRule) {
        INFO("rule " << rule);
        CHECK(t.positives >= 3);
    }
    CHECK(negatives.size() >= 100);
}

} // namespace unit_SecretCorpusTest
