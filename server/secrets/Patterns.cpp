// Patterns: every rule with a documented shape (vendor token prefixes and lengths, webhook URLs,
// URLs carrying a password), matched with RE2.
//
// Why RE2: the shapes are regular, there are dozens of them, and a claim is hostile input, so
// the engine must run in time linear in the text whatever it holds. RE2 (Debian's libre2-dev)
// guarantees that: it never backtracks, and when its DFA runs out of memory it falls back to a
// linear NFA simulation. The structural rules (key blocks, assignments, entropy) stay
// hand-written in the neighbouring files; only this file includes re2.
//
// How the table keeps the scan linear: one RE2::Set pass finds which patterns occur at all,
// then each of those is searched from left to right, every search starting where the previous
// secret ended. Every pattern starts at a boundary or a literal and has no optional unbounded
// tail after the point where it can match, so a search reads past its match by a bounded
// amount and the searches of one pattern cover the text about once.
#include "secrets/Chars.h"
#include "secrets/Rules.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace engram::secrets {

using namespace chars;

namespace {

// Whether a match is a secret: match is the whole match, secret the part reported (the capture).
using Check = bool (*)(std::string_view match, std::string_view secret);

struct Pattern {
    Rule rule;
    std::string_view before; // context before the secret: boundaries, a setting's name
    std::string_view secret; // the reported span (written without capture groups)
    std::string_view after;  // context after it
    Check check;
};

// Not glued to a preceding letter or digit: "key=ghp_..." and "x-sk-..." still count.
constexpr std::string_view kStart = "(?:^|[^0-9A-Za-z])";
constexpr std::string_view kEnd = "(?:[^0-9A-Za-z]|$)";
// For bodies that may contain '_' and '-': the token ends where those end too.
constexpr std::string_view kTokenEnd = "(?:[^0-9A-Za-z_-]|$)";
constexpr std::string_view kUuid =
    "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

// --- checks --------------------------------------------------------------------------------

// Vendors document their formats with keys that say so ("AKIAIOSFODNN7EXAMPLE"): those are
// published on purpose and refusing them would refuse the documentation itself.
bool isDocumentedExample(std::string_view s) {
    return containsIgnoreCase(s, "example");
}

// Documentation borrows a format's prefix and masks the rest: "ghp_XXXX...", "sk-xxxx...",
// "AKIA0000...", ".../T00000000/B00000000/XXXX...", "xoxb-your-token-here".
bool isMasked(std::string_view s) {
    const auto masked = std::count_if(
        s.begin(), s.end(), [](char c) { return c == 'x' || c == 'X' || c == '0' || c == '*'; });
    return 3 * std::size_t(masked) >= 2 * s.size() || containsIgnoreCase(s, "your");
}

// The shape alone decides, as for a real key: only documentation's own markers excuse one.
bool realToken(std::string_view, std::string_view secret) {
    return !isMasked(secret) && !isDocumentedExample(secret);
}

bool hasDigitOrUpper(std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) { return isDigit(c) || isUpper(c); });
}

// OpenAI keys are random base62; a hyphenated lowercase name ("sk-learn-compatible-...") is
// not. Anthropic keys share the prefix and have a rule of their own.
bool openAiKey(std::string_view match, std::string_view secret) {
    return realToken(match, secret) && !secret.starts_with("sk-ant-") &&
           hasDigitOrUpper(secret.substr(3));
}

// A letters-only body after a lowercase prefix must mix cases to be random rather than a word.
bool mixedCaseToken(std::string_view match, std::string_view secret) {
    const std::string_view body = secret.substr(secret.rfind('_') + 1);
    return realToken(match, secret) && std::any_of(body.begin(), body.end(), isUpper) &&
           std::any_of(body.begin(), body.end(), isLower);
}

bool awsSecretKey(std::string_view match, std::string_view secret) {
    const int classes = int(std::any_of(secret.begin(), secret.end(), isUpper)) +
                        int(std::any_of(secret.begin(), secret.end(), isLower)) +
                        int(std::any_of(secret.begin(), secret.end(), isDigit));
    return realToken(match, secret) && classes >= 2;
}

// A Discord bot token opens with the bot's numeric id in base64: decoding the first segment
// gives digits, which no dotted identifier of the same shape does.
bool discordBotToken(std::string_view match, std::string_view secret) {
    constexpr std::string_view kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const std::string_view id = secret.substr(0, secret.find('.'));
    std::uint32_t bits = 0;
    int held = 0;
    for (char c : id) {
        bits = (bits << 6 | static_cast<std::uint32_t>(kAlphabet.find(c))) & 0xFFFFFF;
        held += 6;
        if (held >= 8) {
            held -= 8;
            if (!isDigit(static_cast<char>(bits >> held & 0xFF))) return false;
        }
    }
    return realToken(match, secret);
}

// A webhook URL is a secret by its last path segment; documentation writes that one as
// "XXXXXXXX..." or zeros.
bool webhookUrl(std::string_view match, std::string_view secret) {
    const std::string_view last = secret.substr(secret.rfind('/') + 1);
    return realToken(match, last);
}

// "scheme://user:password@": documentation writes the password as a placeholder
// ("postgres://user:password@", "redis://:${REDIS_PASSWORD}@") or repeats the user name as
// container defaults do ("postgres://postgres:postgres@", "amqp://guest:guest@"): neither is
// a secret.
bool urlPassword(std::string_view match, std::string_view password) {
    const std::size_t userStart = match.find("://") + 3;
    const std::size_t passwordStart = static_cast<std::size_t>(password.data() - match.data());
    const std::string_view user = match.substr(userStart, passwordStart - 1 - userStart);
    return password != user && !isPlaceholder(password, "password");
}

// --- the table -----------------------------------------------------------------------------

// Formats as the issuers and the common scanners (GitHub secret scanning, gitleaks) document
// them: prefix, alphabet, length. Rows of one rule are its documented variants.
constexpr std::array kPatterns{
    // Cloud providers.
    Pattern{Rule::AwsAccessKey, kStart, "(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}", kEnd,
            realToken},
    Pattern{Rule::AwsSecretKey,
            "(?i:(?:^|[^0-9A-Za-z])aws[\\w.-]{0,20}secret[\\w.-]{0,20}|secret_?access_?key)"
            "[\"']?[ \\t]{0,4}(?:=>|:=|=|:)[ \\t]{0,4}[\"']?",
            "[A-Za-z0-9/+]{40}", "(?:[^A-Za-z0-9/+=]|$)", awsSecretKey},
    Pattern{Rule::GcpApiKey, kStart, "AIza[0-9A-Za-z_-]{35}", kTokenEnd, realToken},
    Pattern{Rule::AzureStorageKey, "(?i:AccountKey|SharedAccessKey)[ \\t]{0,2}=[ \\t]{0,2}",
            "[A-Za-z0-9+/]{40,}={0,2}", "", realToken},
    Pattern{Rule::AzureSasSignature, "(?:^|[?&;\\s\"'])sig=", "[A-Za-z0-9%+/_-]{40,}", "",
            realToken},
    Pattern{Rule::AzureClientSecret, "(?:^|[^0-9A-Za-z_~.-])",
            "[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}", "(?:[^0-9A-Za-z_~.-]|$)", realToken},
    Pattern{Rule::AlibabaAccessKey, kStart, "LTAI[A-Za-z0-9]{20}", kEnd, realToken},
    Pattern{Rule::DigitalOceanToken, kStart, "do[opr]_v1_[a-f0-9]{64}", kEnd, realToken},
    Pattern{Rule::HerokuApiKey, kStart, "HRKU-AA[0-9A-Za-z_-]{58}", kTokenEnd, realToken},
    Pattern{Rule::HerokuApiKey,
            "(?i:heroku[\\w.-]{0,16}(?:key|token|secret|auth)[\\w.-]{0,8})"
            "[\"']?[ \\t]{0,4}[:=][ \\t]{0,4}[\"']?",
            kUuid, kEnd, realToken},
    Pattern{Rule::CloudflareOriginCaKey, kStart, "v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}", kEnd,
            realToken},
    Pattern{Rule::HashicorpToken, kStart, "hv[sb]\\.[A-Za-z0-9_-]{24,}", "", realToken},
    Pattern{Rule::HashicorpToken, kStart, "[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,}", "",
            realToken},
    Pattern{Rule::DatabricksToken, kStart, "dapi[a-f0-9]{32}(?:-[0-9])?", kEnd, realToken},
    // Forges.
    Pattern{Rule::GithubToken, kStart, "gh[pousr]_[A-Za-z0-9]{30,}", "", realToken},
    Pattern{Rule::GithubToken, kStart, "github_pat_[A-Za-z0-9_]{40,}", "", realToken},
    Pattern{Rule::GitlabToken, kStart,
            "gl(?:pat|dt|rt|ptt|ft|imt|agent|oas|soat|ffct)-[0-9A-Za-z_-]{20,}"
            "(?:\\.[0-9a-z]{9})?",
            "", realToken},
    Pattern{Rule::GitlabToken, kStart, "glcbt-[0-9A-Za-z]{1,5}_[0-9A-Za-z_-]{20,}", "", realToken},
    Pattern{Rule::GitlabToken, kStart, "GR1348941[0-9A-Za-z_-]{20,}", "", realToken},
    Pattern{Rule::BitbucketToken, kStart, "ATBB[A-Za-z0-9]{32,}", "", realToken},
    Pattern{Rule::BitbucketToken, kStart, "ATCTT3xFfGN0[A-Za-z0-9_=-]{20,}", "", realToken},
    Pattern{Rule::AtlassianApiToken, kStart, "ATATT3[A-Za-z0-9_=-]{150,}", "", realToken},
    // Package registries.
    Pattern{Rule::NpmToken, kStart, "npm_[A-Za-z0-9]{36}", kEnd, realToken},
    Pattern{Rule::PypiToken, kStart,
            "pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}", "", realToken},
    Pattern{Rule::RubygemsToken, kStart, "rubygems_[a-f0-9]{48}", kEnd, realToken},
    Pattern{Rule::NugetKey, kStart, "oy2[a-z0-9]{43}", kEnd, realToken},
    Pattern{Rule::DockerHubToken, kStart, "dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}", "", realToken},
    Pattern{Rule::JfrogApiKey, kStart, "AKCp[A-Za-z0-9]{69}", kEnd, realToken},
    Pattern{Rule::JfrogApiKey, kStart, "cmVmdGtu[A-Za-z0-9]{56}", kEnd, realToken},
    // Chat, webhooks and mail.
    Pattern{Rule::SlackToken, kStart, "xox[abeoprs]-[0-9A-Za-z-]{10,}", "", realToken},
    Pattern{Rule::SlackToken, kStart, "xapp-[0-9]-[0-9A-Za-z-]{10,}", "", realToken},
    Pattern{Rule::SlackWebhook, "",
            "(?:https?://)?hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}",
            "", webhookUrl},
    Pattern{Rule::DiscordWebhook, "",
            "(?:https?://)?(?:(?:canary|ptb)\\.)?discord(?:app)?\\.com/api(?:/v[0-9]+)?/webhooks/"
            "[0-9]{17,20}/[A-Za-z0-9_-]{60,}",
            "", webhookUrl},
    Pattern{Rule::DiscordBotToken, "(?:^|[^0-9A-Za-z_-])",
            "[MNO][A-Za-z0-9_-]{22,25}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}",
            "(?:[^0-9A-Za-z_.-]|$)", discordBotToken},
    Pattern{Rule::TeamsWebhook, "",
            "https://(?:[A-Za-z0-9-]+\\.webhook\\.office\\.com/webhookb2|"
            "outlook\\.office(?:365)?\\.com/webhook)/[0-9a-fA-F-]{36}@[0-9a-fA-F-]{36}/"
            "IncomingWebhook/[0-9a-fA-F]{32}/[0-9a-fA-F-]{36}(?:/[A-Za-z0-9_-]{20,})?",
            "", webhookUrl},
    // In API URLs the token follows "/bot" directly: https://api.telegram.org/bot<token>/...
    Pattern{Rule::TelegramBotToken, "(?:^|[^0-9A-Za-z]|/bot)", "[0-9]{8,10}:AA[A-Za-z0-9_-]{33}",
            kTokenEnd, realToken},
    Pattern{Rule::TwilioApiKey, kStart, "SK[0-9a-fA-F]{32}", kEnd, realToken},
    Pattern{Rule::SendgridKey, kStart, "SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}", kTokenEnd,
            realToken},
    Pattern{Rule::MailgunKey, kStart, "key-[0-9a-f]{32}", kEnd, realToken},
    Pattern{Rule::MailgunKey, kStart, "[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}", kEnd, realToken},
    Pattern{Rule::MailchimpKey, kStart, "[0-9a-f]{32}-us[0-9]{1,2}", kEnd, realToken},
    Pattern{Rule::BrevoKey, kStart, "x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}", kEnd,
            realToken},
    // Payments and commerce.
    Pattern{Rule::StripeKey, kStart, "(?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{10,}", "",
            realToken},
    Pattern{Rule::StripeKey, kStart, "whsec_[A-Za-z0-9+/=]{32,}", "", realToken},
    Pattern{Rule::SquareToken, kStart, "sq0(?:atp|csp)-[0-9A-Za-z_-]{22,}", "", realToken},
    Pattern{Rule::SquareToken, kStart, "EAAA[0-9A-Za-z_-]{60}", kTokenEnd, realToken},
    Pattern{Rule::BraintreeToken, kStart,
            "access_token\\$(?:production|sandbox)\\$[0-9a-z]{16}\\$[0-9a-f]{32}", kEnd, realToken},
    Pattern{Rule::ShopifyToken, kStart, "shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", kEnd, realToken},
    // Developer services.
    Pattern{Rule::NewRelicKey, kStart, "NRAK-[A-Z0-9]{27}", kEnd, realToken},
    Pattern{Rule::NewRelicKey, kStart, "NRII-[A-Za-z0-9_-]{32}", kTokenEnd, realToken},
    Pattern{Rule::SentryToken, kStart, "sntryu_[a-f0-9]{64}", kEnd, realToken},
    Pattern{Rule::SentryToken, kStart, "sntrys_eyJ[A-Za-z0-9+/=_]{40,}", "", realToken},
    Pattern{Rule::GrafanaToken, kStart, "glc_[A-Za-z0-9+/]{32,}={0,2}", "", realToken},
    Pattern{Rule::GrafanaToken, kStart, "glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}", kEnd, realToken},
    Pattern{Rule::PostmanKey, kStart, "PMAK-[a-f0-9]{24}-[a-f0-9]{34}", kEnd, realToken},
    Pattern{Rule::LinearKey, kStart, "lin_api_[A-Za-z0-9]{40}", kEnd, realToken},
    Pattern{Rule::DopplerToken, kStart,
            "dp\\.(?:pt|st|ct|sa|scim|audit)\\.(?:[a-z0-9_-]{1,40}\\.)?[A-Za-z0-9]{40,}", "",
            realToken},
    Pattern{Rule::PulumiToken, kStart, "pul-[a-f0-9]{40}", kEnd, realToken},
    Pattern{Rule::AgeSecretKey, kStart, "AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
            kEnd, realToken},
    // AI providers.
    Pattern{Rule::AnthropicKey, kStart, "sk-ant-[a-z]{2,8}[0-9]{0,3}-[A-Za-z0-9_-]{20,}", "",
            realToken},
    Pattern{Rule::OpenAiKey, kStart, "sk-[A-Za-z0-9_-]{20,}", "", openAiKey},
    Pattern{Rule::HuggingFaceToken, kStart, "(?:hf|api_org)_[A-Za-z]{34}", kEnd, mixedCaseToken},
    Pattern{Rule::GroqKey, kStart, "gsk_[A-Za-z0-9]{52}", kEnd, realToken},
    Pattern{Rule::ReplicateToken, kStart, "r8_[A-Za-z0-9]{37}", kEnd, realToken},
    Pattern{Rule::PerplexityKey, kStart, "pplx-[A-Za-z0-9]{48}", kEnd, realToken},
    Pattern{Rule::XaiKey, kStart, "xai-[A-Za-z0-9]{80}", kEnd, realToken},
    // Any scheme with "user:password@" before the host: database URLs, clone URLs, brokers.
    Pattern{Rule::UrlPassword,
            "(?:^|[^0-9A-Za-z+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\\s:/?#@\"'<>\\[\\]]*:",
            "[^\\s/?#@\"'<>]+", "@", urlPassword},
};

class Engine {
public:
    Engine() {
        RE2::Options options;
        // Bytes, not UTF-8: the patterns are ASCII, and a boundary class must also match a
        // byte of a multi-byte (or invalid) sequence.
        options.set_encoding(RE2::Options::EncodingLatin1);
        options.set_log_errors(false);
        set_ = std::make_unique<RE2::Set>(options, RE2::UNANCHORED);
        for (const Pattern& p : kPatterns) {
            std::string re(p.before);
            re.append("(").append(p.secret).append(")").append(p.after);
            auto compiled = std::make_unique<RE2>(re, options);
            if (!compiled->ok() || compiled->NumberOfCapturingGroups() != 1)
                throw std::logic_error("secret pattern does not compile: " + re);
            if (set_->Add(re, nullptr) < 0)
                throw std::logic_error("secret pattern does not join the set: " + re);
            regexes_.push_back(std::move(compiled));
        }
        if (!set_->Compile()) throw std::logic_error("secret pattern set does not compile");
    }

    void scan(std::string_view t, Candidates& out) const {
        const re2::StringPiece text(t.data(), t.size());
        std::vector<int> present;
        RE2::Set::ErrorInfo error{};
        if (!set_->Match(text, &present, &error)) {
            if (error.kind == RE2::Set::kNoError) return; // nothing matched
            if (error.kind != RE2::Set::kOutOfMemory)
                throw std::runtime_error("secret pattern set failed to match");
            // The set's DFA ran out of memory: search every pattern on its own, each of which
            // falls back to RE2's linear NFA if it must. Slower, never less thorough.
            present.clear();
            for (std::size_t i = 0; i < kPatterns.size(); ++i)
                present.push_back(static_cast<int>(i));
        }
        for (int i : present)
            searchAll(t, kPatterns[static_cast<std::size_t>(i)],
                      *regexes_[static_cast<std::size_t>(i)], out);
    }

private:
    static void searchAll(std::string_view t, const Pattern& p, const RE2& re, Candidates& out) {
        const re2::StringPiece text(t.data(), t.size());
        std::array<re2::StringPiece, 2> groups;
        std::size_t pos = 0;
        while (pos < t.size() &&
               re.Match(text, pos, t.size(), RE2::UNANCHORED, groups.data(), groups.size())) {
            const std::string_view match(groups[0].data(), groups[0].size());
            const std::string_view secret(groups[1].data(), groups[1].size());
            const std::size_t begin = static_cast<std::size_t>(secret.data() - t.data());
            const std::size_t end = begin + secret.size();
            if (!secret.empty() && p.check(match, secret)) out.push_back({p.rule, begin, end});
            // The character that ended this secret may be the boundary before the next one.
            pos = std::max(end, pos + 1);
        }
    }

    std::unique_ptr<RE2::Set> set_;
    std::vector<std::unique_ptr<RE2>> regexes_;
};

const Engine& engine() {
    static const Engine instance;
    return instance;
}

} // namespace

void scanPatterns(std::string_view t, Candidates& out) {
    engine().scan(t, out);
}

} // namespace engram::secrets
