// Rules: the secret scanner's internal rule list and the detectors that produce candidates.
//
// Each detector family lives in its own file (Structure.cpp, Patterns.cpp, Assignments.cpp,
// Entropy.cpp) and appends candidate spans; SecretScan.cpp resolves overlaps and turns the
// survivors into public Hits. The enum order is the specificity order used for overlaps.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace engram::secrets {

// Declaration order is specificity: when spans of two rules overlap, the earlier rule wins.
// kRuleInfo in SecretScan.cpp lists the ids and descriptions in the same order.
enum class Rule : std::size_t {
    PrivateKey,
    MergeConflictMarker,
    // Cloud providers.
    AwsAccessKey,
    AwsSecretKey,
    GcpApiKey,
    AzureStorageKey,
    AzureSasSignature,
    AzureClientSecret,
    AlibabaAccessKey,
    DigitalOceanToken,
    HerokuApiKey,
    CloudflareOriginCaKey,
    HashicorpToken,
    DatabricksToken,
    // Forges.
    GithubToken,
    GitlabToken,
    BitbucketToken,
    AtlassianApiToken,
    // Package registries.
    NpmToken,
    PypiToken,
    RubygemsToken,
    NugetKey,
    DockerHubToken,
    JfrogApiKey,
    // Chat, webhooks and mail.
    SlackToken,
    SlackWebhook,
    DiscordWebhook,
    DiscordBotToken,
    TeamsWebhook,
    TelegramBotToken,
    TwilioApiKey,
    SendgridKey,
    MailgunKey,
    MailchimpKey,
    BrevoKey,
    // Payments and commerce.
    StripeKey,
    SquareToken,
    BraintreeToken,
    ShopifyToken,
    // Developer services.
    NewRelicKey,
    SentryToken,
    GrafanaToken,
    PostmanKey,
    LinearKey,
    DopplerToken,
    PulumiToken,
    AgeSecretKey,
    // AI providers.
    AnthropicKey,
    OpenAiKey,
    HuggingFaceToken,
    GroqKey,
    ReplicateToken,
    PerplexityKey,
    XaiKey,
    // Shapes without a vendor.
    UrlPassword,
    Jwt,
    OnePasswordRef,
    PasswordAssignment,
    HighEntropyToken,
    Count,
};

struct Candidate {
    Rule rule;
    std::size_t begin;
    std::size_t end;
};
using Candidates = std::vector<Candidate>;
using Span = std::pair<std::size_t, std::size_t>;

// Structure.cpp: PEM, OpenSSH, PuTTY and PGP private keys; merge-conflict marker lines; JWTs;
// 1Password references.
void scanPrivateKeys(std::string_view t, Candidates& out);
void scanMergeMarkers(std::string_view t, Candidates& out);
void scanJwt(std::string_view t, Candidates& out);
void scanOnePassword(std::string_view t, Candidates& out);
// Spans of PEM blocks that hold public material (certificates, public keys, signatures): their
// base64 is not a secret, however random it looks.
std::vector<Span> publicBlocks(std::string_view t);

// Patterns.cpp: every rule with a documented shape (vendor prefixes, webhook URLs, URLs with a
// password), matched with RE2.
void scanPatterns(std::string_view t, Candidates& out);

// Assignments.cpp: values assigned to password, secret and token settings.
void scanAssignments(std::string_view t, Candidates& out);
// True when value stands for a secret without being one ("<password>", "${DB_PASSWORD}",
// "********", "your_password"); key is the setting it is assigned to, lowercase.
bool isPlaceholder(std::string_view value, std::string_view key);

// Entropy.cpp: long random-looking tokens that no other rule names.
void scanHighEntropy(std::string_view t, Candidates& out);

} // namespace engram::secrets
