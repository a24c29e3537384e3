// SecretScanTest: the scanner's behaviour rule by rule: exact spans, overlap resolution,
// placeholders, redaction, failing closed, and hostile input. The breadth of formats is
// measured against the labelled corpus in SecretCorpusTest.
//
// Fake secrets are assembled at run time (concatenation, a seeded generator) so this file holds
// no literal that a scanner of the repository itself would rightly flag.
#include "secrets/SecretScan.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

// Its own namespace: test sources compile in batches (engram_test_batches).
namespace unit_SecretScanTest {

using engram::secrets::Hit;
using engram::secrets::redact;
using engram::secrets::redacted;
using engram::secrets::scan;
using engram::secrets::ScanFailure;

namespace {

// Deterministic pseudo-random text from an alphabet: looks like key material, is not one.
std::string fakeChars(std::size_t n, std::uint32_t seed,
                      const std::string& alphabet =
                          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") {
    std::string s;
    std::uint32_t x = seed;
    for (std::size_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        s += alphabet[(x >> 16) % alphabet.size()];
    }
    return s;
}

std::vector<std::string> rulesOf(const std::vector<Hit>& hits) {
    std::vector<std::string> rules;
    for (const Hit& h : hits)
        rules.push_back(h.rule);
    return rules;
}

bool hasRule(const std::vector<Hit>& hits, const std::string& rule) {
    for (const Hit& h : hits)
        if (h.rule == rule) return true;
    return false;
}

// Asserts text yields exactly one hit, of rule, covering exactly `secret` (first occurrence).
void requireSingleHit(const std::string& text, const std::string& rule, const std::string& secret) {
    INFO("text: " << text);
    const auto hits = scan(text);
    REQUIRE(hits.size() == 1);
    CHECK(hits[0].rule == rule);
    const std::size_t at = text.find(secret);
    REQUIRE(at != std::string::npos);
    CHECK(hits[0].begin == at);
    CHECK(hits[0].end == at + secret.size());
    CHECK(hits[0].description.find(secret) == std::string::npos);
    CHECK_FALSE(hits[0].description.empty());
}

void requireNoHits(const std::string& text) {
    INFO("text: " << text);
    const auto hits = scan(text);
    INFO("first rule: " << (hits.empty() ? std::string("-") : hits[0].rule));
    CHECK(hits.empty());
}

const std::string kPemBody = fakeChars(64, 7) + "\n" + fakeChars(64, 8) + "\n" + fakeChars(20, 9);

} // namespace

TEST_CASE("private-key spans the block from BEGIN to the matching END line", "[secrets]") {
    const std::string block =
        "-----BEGIN RSA PRIVATE KEY-----\n" + kPemBody + "\n-----END RSA PRIVATE KEY-----";
    requireSingleHit("deploy key:\n" + block + "\nrotate yearly", "private-key", block);

    const std::string pgp = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n" + kPemBody +
                            "\n-----END PGP PRIVATE KEY BLOCK-----";
    requireSingleHit(pgp, "private-key", pgp);

    const std::string encrypted = "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + kPemBody +
                                  "\n-----END ENCRYPTED PRIVATE KEY-----";
    requireSingleHit("x " + encrypted + " y", "private-key", encrypted);
}

TEST_CASE("private-key without an END line runs to the end of the text", "[secrets]") {
    const std::string tail = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + kPemBody + "\ntrailing";
    requireSingleHit("pasted:\n" + tail, "private-key", tail);
}

TEST_CASE("public keys and certificates are not private keys", "[secrets]") {
    requireNoHits("-----BEGIN PUBLIC KEY-----\nshort\n-----END PUBLIC KEY-----");
    requireNoHits("-----BEGIN CERTIFICATE-----\nshort\n-----END CERTIFICATE-----");
}

TEST_CASE("openai-key matches sk- keys at a word boundary", "[secrets]") {
    const std::string legacy = "sk-" + fakeChars(48, 11);
    requireSingleHit("OPENAI key is " + legacy + " (rotated)", "openai-key", legacy);

    const std::string project = "sk-" + std::string("proj-") + fakeChars(40, 12);
    requireSingleHit("export OPENAI_API_KEY=" + project, "openai-key", project);

    // Anthropic's keys share the prefix and have their own rule.
    const std::string anthropic = "sk-" + std::string("ant-api03-") + fakeChars(30, 13);
    requireSingleHit("[" + anthropic + "]", "anthropic-key", anthropic);
}

TEST_CASE("openai-key lookalikes are ignored", "[secrets]") {
    requireNoHits("use sk-" + std::string("ab12c") + " as the prefix");
    // Mid-word "sk-" (task-, disk-) is not a key prefix.
    CHECK_FALSE(hasRule(scan("the task-" + fakeChars(24, 14) + " id"), "openai-key"));
    // A hyphenated lowercase identifier is not random key material.
    requireNoHits("see sk-learn-compatible-estimator-wrapper");
}

TEST_CASE("github-token matches classic and fine-grained tokens", "[secrets]") {
    const std::string classic = "gh" + std::string("p_") + fakeChars(36, 21);
    requireSingleHit("token " + classic + " expires", "github-token", classic);

    for (const char* kind : {"o_", "u_", "s_", "r_"}) {
        const std::string token = "gh" + std::string(kind) + fakeChars(36, 22);
        requireSingleHit(token, "github-token", token);
    }

    const std::string fine =
        "github" + std::string("_pat_") + fakeChars(22, 23) + "_" + fakeChars(59, 24);
    requireSingleHit("GH_TOKEN=" + fine, "github-token", fine);
}

TEST_CASE("github-token needs its full length", "[secrets]") {
    requireNoHits("prefix gh" + std::string("p_") + fakeChars(10, 25) + " is too short");
    requireNoHits("github" + std::string("_pat_") + fakeChars(20, 26));
}

TEST_CASE("aws-access-key matches AKIA/ASIA plus exactly 16", "[secrets]") {
    const std::string upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const std::string akia = "AK" + std::string("IA") + fakeChars(16, 31, upperDigits);
    requireSingleHit("aws_access_key_id " + akia + " in us-east-1", "aws-access-key", akia);

    const std::string asia = "AS" + std::string("IA") + fakeChars(16, 32, upperDigits);
    requireSingleHit("(" + asia + ")", "aws-access-key", asia);

    CHECK_FALSE(
        hasRule(scan("AK" + std::string("IA") + fakeChars(17, 33, upperDigits)), "aws-access-key"));
    CHECK_FALSE(hasRule(scan("X" + akia), "aws-access-key"));
}

TEST_CASE("slack-token matches xox tokens", "[secrets]") {
    const std::string bot = "xo" + std::string("xb-") + "1234567890-" + fakeChars(24, 41);
    requireSingleHit("SLACK_BOT " + bot + " posts", "slack-token", bot);
    requireNoHits("xo" + std::string("xb-") + "123");
}

TEST_CASE("1password-ref matches op:// references without trailing punctuation", "[secrets]") {
    const std::string ref = "op://" + std::string("Private/Database/password");
    requireSingleHit("read it from " + ref + ".", "1password-ref", ref);
    requireSingleHit("\"" + ref + "\"", "1password-ref", ref);
    requireNoHits("a loop://x scheme and a bare op:// with nothing after");
}

TEST_CASE("jwt matches three base64url segments", "[secrets]") {
    const std::string header = "ey" + std::string("JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9");
    const std::string payload = "ey" + std::string("JzdWIiOiIxMjM0NTY3ODkwIn0");
    const std::string jwt = header + "." + payload + "." + fakeChars(43, 51, "abcdefXYZ0189_-");
    requireSingleHit("Authorization: Bearer " + jwt, "jwt", jwt);
    // Only two segments: a truncated token with no signature is not a JWT.
    CHECK_FALSE(hasRule(scan(header + "." + payload), "jwt"));
}

TEST_CASE("password-assignment flags the value, not the key", "[secrets]") {
    {
        const std::string text = "password=hunter2";
        const auto hits = scan(text);
        REQUIRE(hits.size() == 1);
        CHECK(hits[0].rule == "password-assignment");
        CHECK(hits[0].begin == 9);
        CHECK(hits[0].end == 16);
    }
    requireSingleHit("DB_PASSWORD: \"changeme\"", "password-assignment", "changeme");
    requireSingleHit("{\"api_key\": \"abc123def\"}", "password-assignment", "abc123def");
    requireSingleHit("dbPassword = 'Tr0ub4dor&3';", "password-assignment", "Tr0ub4dor&3");
    requireSingleHit("Client_Secret:  s3cr3t-value, next", "password-assignment", "s3cr3t-value");
    requireSingleHit("$apiKey => 'sup3rsecret'", "password-assignment", "sup3rsecret");
    requireSingleHit("pwd := \"correct horse battery\"", "password-assignment",
                     "correct horse battery");
}

TEST_CASE("password-assignment ignores placeholders and non-assignments", "[secrets]") {
    requireNoHits("password=<your password>");
    requireNoHits("password: ${DB_PASSWORD}");
    requireNoHits("api_key: \"<YOUR_API_KEY>\"");
    requireNoHits("password = \"${DB_PASSWORD}\"");
    requireNoHits("password=$DB_PASSWORD");
    requireNoHits("password: ********");
    requireNoHits("token: xxxxxxxxxx");
    requireNoHits("api_key = xxxx...");
    requireNoHits("secret: null");
    requireNoHits("password: REDACTED");
    requireNoHits("password=abc");
    requireNoHits("if (password == expectedValue) return");
    requireNoHits("interface User { password: string; }");
    requireNoHits("max_tokens: 4096000 and passwords: required");
    requireNoHits("use secret::Store for it");
    requireNoHits("PWD=/home/agent/project");
    requireNoHits("The password is checked by AuthService before login.");
}

TEST_CASE("password-assignment ignores unquoted code expressions", "[secrets]") {
    requireNoHits("parser.c: external_token = ts_stack_last_external_token(self->stack, v);");
    requireNoHits("c->password = g_strdup(value);");
    requireNoHits("self->prev_external_token = last_external_token;");
    requireNoHits("self->last_external_token = NULL_SUBTREE;");
    requireNoHits("const secret = config.client_secret;");
    requireNoHits("DB_PASSWORD = os.environ[\"DB_PASSWORD\"]");
    requireNoHits("password: process.env.DB_PASSWORD");
    requireNoHits("def load(path, password=None):");
    requireNoHits("this.password = password;");
    // Quoted, the same shapes are literals and still count.
    requireSingleHit("token = \"next_token(x)\"", "password-assignment", "next_token(x)");
    // A plain word stays a secret: it may be a real default.
    requireSingleHit("password = Summer2024;", "password-assignment", "Summer2024");
}

TEST_CASE("high-entropy-token flags random key material", "[secrets]") {
    const std::string token = fakeChars(40, 61);
    requireSingleHit("the signing key is " + token + " in prod", "high-entropy-token", token);

    const std::string b64 =
        fakeChars(30, 62) + "/" + fakeChars(12, 63) + "+" + fakeChars(8, 64) + "==";
    requireSingleHit("value: " + b64, "high-entropy-token", b64);

    // In "NAME=value" only the value is the token.
    requireSingleHit("SIGNING_SECRET=" + token, "password-assignment", token);
    requireSingleHit("SESSION_SALT=" + token, "high-entropy-token", token);
}

TEST_CASE("high-entropy-token ignores hashes, ids, identifiers, paths and prose", "[secrets]") {
    requireNoHits("fixed in 9fceb02d0ae598e95dc970b74767f19372d61af8 last week");
    requireNoHits("digest sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    requireNoHits("E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855");
    requireNoHits("request 123e4567-e89b-12d3-a456-426614174000 timed out");
    requireNoHits("TokenValidator.validate rejects expired tokens silently");
    requireNoHits("TokenValidator_validate_expired_tokens_silently");
    requireNoHits("HTTPServerConfig_parseUTF8Headers_withRetryBackoff2_enabled");
    requireNoHits("src/main/java/com/example/auth/TokenValidatorFactoryImpl.java");
    requireNoHits(
        "see https://github.com/example/repo/blob/9fceb02d0ae598e95dc970b74767f19372d61af8/"
        "server/SecretScan.cpp#L10");
    requireNoHits("Pneumonoultramicroscopicsilicovolcanoconiosis and "
                  "Antidisestablishmentarianism are ordinary long words in prose.");
    requireNoHits("\"integrity\": \"sha512-" + fakeChars(86, 65) + "==\"");
}

TEST_CASE("high-entropy-token skips URL host and path but not credentials in URLs", "[secrets]") {
    requireNoHits("download https://cdn.example.com/files/" + fakeChars(40, 66) + "/archive.zip");
    // A password in a URL has a rule of its own, whatever it looks like.
    const std::string userinfo = fakeChars(40, 67);
    requireSingleHit("clone https://agent:" + userinfo + "@git.example.com/repo.git",
                     "url-password", userinfo);
    const std::string query = fakeChars(40, 68);
    requireSingleHit("callback https://example.com/cb?code=" + query + "&state=1",
                     "high-entropy-token", query);
}

TEST_CASE("high-entropy-token needs entropy, not just mixed classes", "[secrets]") {
    std::string repetitive;
    for (int i = 0; i < 12; ++i)
        repetitive += "aB3/";
    requireNoHits("pattern " + repetitive + " repeats");
    // Grouped hex (key fingerprints, ids) is not a credential either, even when every digit is
    // equally frequent and the dashes push the entropy over the threshold.
    requireNoHits("fingerprint 0f1e2d-3c4b5a-697887-96a5b4-c3d2e1-f03c2d-1e0f7a-6b5948");
}

TEST_CASE("merge-conflict-marker flags whole marker lines", "[secrets]") {
    const std::string text = "a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> feature/x\nb";
    const auto hits = scan(text);
    REQUIRE(rulesOf(hits) == std::vector<std::string>(3, "merge-conflict-marker"));
    CHECK(hits[0].begin == 2);
    CHECK(hits[0].end == 14);
    CHECK(hits[1].begin == text.find("=======\n"));
    CHECK(hits[1].end == text.find("=======\n") + 7);
    CHECK(hits[2].begin == text.find(">>>>>>>"));
    CHECK(hits[2].end == text.size() - 2);

    requireSingleHit("x\r\n<<<<<<<\r\ny", "merge-conflict-marker", "<<<<<<<");
}

TEST_CASE("merge-conflict-marker lookalikes are ignored", "[secrets]") {
    requireNoHits("a ======= inside a line");
    requireNoHits("========\n--------");
    requireNoHits("<<<<<<<< eight\nnot <<<<<<< at start\n>>>>>>>x");
    requireNoHits("======= trailing");
    // Alone, a separator line is a Markdown heading's underline, not conflict debris.
    requireNoHits("Release notes\n=======\n\nFixed the login bug.");
    requireNoHits("x\n=======\n");
}

TEST_CASE("overlapping rules resolve to the more specific one", "[secrets]") {
    const std::string gh = "gh" + std::string("p_") + fakeChars(36, 71);
    requireSingleHit("token=" + gh, "github-token", gh);
    requireSingleHit("GITHUB_TOKEN: \"" + gh + "\"", "github-token", gh);

    const std::string sk = "sk-" + fakeChars(48, 72);
    requireSingleHit("api_key = " + sk, "openai-key", sk);

    const std::string block = "-----BEGIN PRIVATE KEY-----\npassword=inside1\n" + kPemBody +
                              "\n-----END PRIVATE KEY-----";
    requireSingleHit(block, "private-key", block);
}

TEST_CASE("multiple hits come back ordered by begin", "[secrets]") {
    const std::string upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const std::string gh = "gh" + std::string("p_") + fakeChars(36, 81);
    const std::string aws = "AK" + std::string("IA") + fakeChars(16, 82, upperDigits);
    const std::string text = "first password: letmein99\nthen " + gh + "\nand " + aws +
                             "\n>>>>>>> theirs\nsecret=" + fakeChars(40, 83);
    const auto hits = scan(text);
    REQUIRE(rulesOf(hits) == std::vector<std::string>{"password-assignment", "github-token",
                                                      "aws-access-key", "merge-conflict-marker",
                                                      "password-assignment"});
    for (std::size_t i = 1; i < hits.size(); ++i)
        CHECK(hits[i - 1].end <= hits[i].begin);
    CHECK(hits[1].begin == text.find(gh));
}

TEST_CASE("redact replaces every secret and keeps the surrounding text", "[secrets]") {
    const std::string gh = "gh" + std::string("p_") + fakeChars(36, 91);
    const std::string token = fakeChars(40, 92);
    const std::string text = "use " + gh + " and password=hunter22 and " + token + " ok";
    const auto hits = scan(text);
    REQUIRE(hits.size() == 3);

    const std::string out = redact(text, hits);
    CHECK(out == "use [REDACTED:github-token] and password=[REDACTED:password-assignment] and "
                 "[REDACTED:high-entropy-token] ok");
    CHECK(out.find(gh) == std::string::npos);
    CHECK(out.find("hunter22") == std::string::npos);
    CHECK(out.find(token) == std::string::npos);
    // Redacted text must pass the scanner, or redacted contributions would be refused again.
    CHECK(scan(out).empty());
}

TEST_CASE("redacted hides what an error quotes, and withholds what it cannot scan", "[secrets]") {
    const std::string gh = "gh" + std::string("p_") + fakeChars(36, 93);
    CHECK(redacted("id: '" + gh + "' is not a claim id") ==
          "id: '[REDACTED:github-token]' is not a claim id");
    CHECK(redacted("path: 'src/pool.py' is outside the workspace root /w") ==
          "path: 'src/pool.py' is outside the workspace root /w");
    CHECK(redacted(std::string((1 << 20) + 1, 'a')) == "[REDACTED:unscanned]");
}

TEST_CASE("redact tolerates overlapping, unordered and out-of-range hits", "[secrets]") {
    const std::string text = "0123456789";
    const std::vector<Hit> hits{{"b", 6, 20, "d"}, {"a", 2, 5, "d"}, {"c", 4, 8, "d"}};
    // A chain of overlapping spans becomes one marker; the span past the text end is clamped.
    CHECK(redact(text, hits) == "01[REDACTED:a]");
    const std::vector<Hit> disjoint{{"b", 6, 20, "d"}, {"a", 2, 5, "d"}};
    CHECK(redact(text, disjoint) == "01[REDACTED:a]5[REDACTED:b]");
    CHECK(redact(text, {}) == text);
}

TEST_CASE("input over 1 MiB fails closed", "[secrets]") {
    const std::string big((std::size_t{1} << 20) + 1, 'a');
    CHECK_THROWS_AS(scan(big), ScanFailure);
    const std::string limit(std::size_t{1} << 20, 'a');
    CHECK(scan(limit).empty());
}

TEST_CASE("hostile 16 KiB inputs scan to the right answer", "[secrets]") {
    // Each unit repeated is a near miss for some rule (a bare prefix, an unterminated opener, a
    // header without key material); the secret after it must still be found, alone. How long
    // this takes is measured in bench/ (engram_secret_bench), not asserted here.
    const std::string upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const std::string gh = "gh" + std::string("p_") + fakeChars(36, 101);
    const std::string sk = "sk-" + fakeChars(48, 102);
    const std::string aws = "AK" + std::string("IA") + fakeChars(16, 103, upperDigits);
    const std::string pem =
        "-----BEGIN RSA PRIVATE KEY-----\n" + kPemBody + "\n-----END RSA PRIVATE KEY-----";
    const std::string password = "S3cr3t" + fakeChars(8, 104);
    const std::string token = fakeChars(40, 105);
    struct Case {
        std::string unit, tail, rule, secret;
    };
    const std::vector<Case> cases{
        {"sk- ", sk, "openai-key", sk},
        {"gh" + std::string("p_ "), gh, "github-token", gh},
        {"github_pat_ ", gh, "github-token", gh},
        {"AKIA ", aws, "aws-access-key", aws},
        {"xoxb- ", gh, "github-token", gh},
        {"eyJ.eyJ. ", sk, "openai-key", sk},
        {"op:// ", gh, "github-token", gh},
        {"password=< ", gh, "github-token", gh},
        {"aB3/", "\n" + token, "high-entropy-token", token},
        {"<<<<<<<", "\n>>>>>>> theirs\n", "merge-conflict-marker", ">>>>>>> theirs"},
        {"-----BEGIN RSA PRIVATE KEY-----\n", pem, "private-key", pem},
        {"-----BEGIN A PRIVATE KEY-----", pem, "private-key", pem},
        {"-----END RSA PRIVATE KEY-----\n", pem, "private-key", pem},
        {"PuTTY-User-Key-File-2: ", gh, "github-token", gh},
        {"https://a:", "https://u:" + password + "@h/", "url-password", password},
        {"postgres://u:p ", "postgres://u:" + password + "@h/", "url-password", password},
        {"-----BEGIN CERTIFICATE-----\nFoo: ", "\n" + gh, "github-token", gh},
        {"hooks.slack.com/services/ ", gh, "github-token", gh},
        {"0:AA ", aws, "aws-access-key", aws},
    };
    for (const Case& c : cases) {
        std::string text;
        while (text.size() + c.unit.size() <= 16 * 1024)
            text += c.unit;
        text += " " + c.tail;
        INFO("unit: " << c.unit);
        const auto hits = scan(text);
        REQUIRE(hits.size() == 1);
        CHECK(hits[0].rule == c.rule);
        const std::size_t at = text.rfind(c.secret);
        CHECK(hits[0].begin <= at);
        CHECK(hits[0].end >= at + c.secret.size());
    }
}

} // namespace unit_SecretScanTest
