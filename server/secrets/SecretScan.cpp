// SecretScan: the scan entry point: runs every detector, keeps the most specific rule for
// each stretch of text, and redacts.
//
// Detectors run independently and may overlap; a final pass keeps the most specific rule for
// each stretch of text. Heuristics lean towards flagging: a false positive costs an agent a
// rephrase, a false negative leaks into git. Every detector is linear in the input (RE2 for
// the documented shapes, bounded forward scans for the rest), so a hostile claim cannot stall
// a write.
#include "secrets/SecretScan.h"

#include "secrets/Rules.h"

#include <algorithm>
#include <array>
#include <exception>
#include <map>
#include <utility>

namespace engram::secrets {
namespace {

constexpr std::size_t kMaxInputBytes = std::size_t{1} << 20;

// In the order of Rule (Rules.h): ids are part of the protocol, descriptions are shown to users.
constexpr std::array<RuleInfo, static_cast<std::size_t>(Rule::Count)> kRuleInfo{{
    {"private-key", "private key block (PEM, OpenSSH, PuTTY or PGP)"},
    {"merge-conflict-marker", "unresolved merge conflict marker"},
    {"aws-access-key", "AWS access key ID"},
    {"aws-secret-key", "AWS secret access key"},
    {"gcp-api-key", "Google Cloud API key"},
    {"azure-storage-key", "Azure storage account or shared access key"},
    {"azure-sas-signature", "Azure shared access signature"},
    {"azure-client-secret", "Azure (Entra ID) application client secret"},
    {"alibaba-access-key", "Alibaba Cloud AccessKey ID"},
    {"digitalocean-token", "DigitalOcean personal access or OAuth token"},
    {"heroku-api-key", "Heroku API key"},
    {"cloudflare-origin-ca-key", "Cloudflare Origin CA key"},
    {"hashicorp-token", "HashiCorp Vault or Terraform Cloud token"},
    {"databricks-token", "Databricks personal access token"},
    {"github-token", "GitHub personal access token"},
    {"gitlab-token", "GitLab access, deploy, runner or trigger token"},
    {"bitbucket-token", "Bitbucket app password or access token"},
    {"atlassian-api-token", "Atlassian API token"},
    {"npm-token", "npm access token"},
    {"pypi-token", "PyPI upload token"},
    {"rubygems-token", "RubyGems API key"},
    {"nuget-key", "NuGet API key"},
    {"dockerhub-token", "Docker Hub access token"},
    {"jfrog-api-key", "JFrog Artifactory API key or reference token"},
    {"slack-token", "Slack API token"},
    {"slack-webhook", "Slack incoming webhook URL"},
    {"discord-webhook", "Discord webhook URL"},
    {"discord-bot-token", "Discord bot token"},
    {"teams-webhook", "Microsoft Teams incoming webhook URL"},
    {"telegram-bot-token", "Telegram bot token"},
    {"twilio-api-key", "Twilio API key"},
    {"sendgrid-key", "SendGrid API key"},
    {"mailgun-key", "Mailgun API key"},
    {"mailchimp-key", "Mailchimp API key"},
    {"brevo-key", "Brevo (Sendinblue) API or SMTP key"},
    {"stripe-key", "Stripe secret, restricted or webhook signing key"},
    {"square-token", "Square access token or application secret"},
    {"braintree-token", "PayPal Braintree access token"},
    {"shopify-token", "Shopify access token or shared secret"},
    {"newrelic-key", "New Relic user or insert key"},
    {"sentry-token", "Sentry auth token"},
    {"grafana-token", "Grafana Cloud or service account token"},
    {"postman-key", "Postman API key"},
    {"linear-key", "Linear API key"},
    {"doppler-token", "Doppler token"},
    {"pulumi-token", "Pulumi access token"},
    {"age-secret-key", "age encryption secret key"},
    {"anthropic-key", "Anthropic API key"},
    {"openai-key", "OpenAI-style secret API key"},
    {"huggingface-token", "Hugging Face access token"},
    {"groq-key", "Groq API key"},
    {"replicate-token", "Replicate API token"},
    {"perplexity-key", "Perplexity API key"},
    {"xai-key", "xAI API key"},
    {"url-password", "password in a URL or connection string"},
    {"jwt", "JSON Web Token"},
    {"1password-ref", "1Password secret reference"},
    {"password-assignment", "value assigned to a password, secret or token setting"},
    {"high-entropy-token", "high-entropy string that looks like a credential"},
}};

// Certificates, public keys and signatures are base64 as random as any key: a high-entropy
// candidate inside such a block is public material. Only that rule is waived there; a vendor
// token or a private key is never dropped, so a public block cannot hide one.
void dropPublic(std::string_view t, Candidates& candidates) {
    const std::vector<Span> blocks = publicBlocks(t);
    if (blocks.empty()) return;
    std::erase_if(candidates, [&](const Candidate& c) {
        if (c.rule != Rule::HighEntropyToken) return false;
        auto it = std::upper_bound(blocks.begin(), blocks.end(), c.begin,
                                   [](std::size_t b, const Span& s) { return b < s.first; });
        return it != blocks.begin() && std::prev(it)->second >= c.end;
    });
}

std::vector<Hit> resolve(Candidates candidates) {
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        if (a.rule != b.rule) return a.rule < b.rule;
        if (a.begin != b.begin) return a.begin < b.begin;
        return a.end > b.end;
    });
    // Accepted spans are disjoint, keyed by begin; their ends therefore increase with begin,
    // so the only possible overlap is with the last span starting before the candidate's end.
    std::map<std::size_t, Candidate> accepted;
    for (const Candidate& c : candidates) {
        if (c.end <= c.begin) continue;
        auto it = accepted.lower_bound(c.end);
        if (it != accepted.begin() && std::prev(it)->second.end > c.begin) continue;
        accepted.emplace(c.begin, c);
    }
    std::vector<Hit> hits;
    hits.reserve(accepted.size());
    for (const auto& [begin, c] : accepted) {
        const RuleInfo& r = kRuleInfo[static_cast<std::size_t>(c.rule)];
        hits.push_back({std::string(r.id), c.begin, c.end, std::string(r.description)});
    }
    return hits;
}

} // namespace

std::span<const RuleInfo> rules() {
    return kRuleInfo;
}

std::vector<Hit> scan(std::string_view text) {
    if (text.size() > kMaxInputBytes)
        throw ScanFailure("secret scan refused: input larger than 1 MiB");
    try {
        Candidates candidates;
        scanPrivateKeys(text, candidates);
        scanMergeMarkers(text, candidates);
        scanPatterns(text, candidates);
        scanJwt(text, candidates);
        scanOnePassword(text, candidates);
        scanAssignments(text, candidates);
        scanHighEntropy(text, candidates);
        dropPublic(text, candidates);
        return resolve(std::move(candidates));
    } catch (const std::exception& e) {
        throw ScanFailure(std::string("secret scan failed: ") + e.what());
    }
}

std::string redact(std::string_view text, const std::vector<Hit>& hits) {
    std::vector<const Hit*> ordered;
    ordered.reserve(hits.size());
    for (const Hit& h : hits)
        ordered.push_back(&h);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Hit* a, const Hit* b) { return a->begin < b->begin; });

    std::string out;
    out.reserve(text.size());
    std::size_t cursor = 0;
    for (const Hit* h : ordered) {
        const std::size_t end = std::min(h->end, text.size());
        if (h->begin >= end || end <= cursor) continue;
        if (h->begin >= cursor) {
            out.append(text.substr(cursor, h->begin - cursor));
            out.append("[REDACTED:").append(h->rule).append("]");
        }
        // An overlapping hit extends the redaction already emitted instead of exposing the
        // tail that sticks out past it.
        cursor = end;
    }
    if (cursor < text.size()) out.append(text.substr(cursor));
    return out;
}

std::string redacted(std::string_view text) {
    try {
        return redact(text, scan(text));
    } catch (const std::exception&) {
        return "[REDACTED:unscanned]";
    }
}

} // namespace engram::secrets
