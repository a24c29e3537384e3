// Contributions from sub-agents and their review (README, "Delegation").
//
// A contribution is stored as a frontier claim in the project store: it is
// on disk (and travels with git like any claim) but no default read shows
// it: recall skips non-committed claims unless asked (`include: frontier`)
// and packets count it as a gap. Before anything is stored each item is
// normalised and hashed (a repeat of a live claim or of an earlier
// contribution is reported, not stored again, so a retrying child does not
// multiply its findings), checked against the committed claims on the same
// anchor or label for a contradicting modality, and scanned for secrets: an
// item holding one is refused whole (not redacted, so no part of a secret
// and no hash of it is ever written) and the answer names the rule and span.
//
// Review is the parent's recorded act: accept commits the claim with its
// contribution provenance, reject retracts it with the reason. Both go to
// the audit log.
#include "engine/Checks.h"
#include "engine/Engine.h"
#include "engine/Modality.h"
#include "engine/Tier.h"
#include "text/Content.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Time.h"

#include <algorithm>
#include <set>

namespace engram {

namespace {

constexpr size_t kMaxItems = 100;

bool isHex64(const std::string& s) {
    return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

// One item as a draft claim, every field checked and named by its place
// (`items[i].text`); the secret scan and anchoring come after.
Claim draftOf(const ContributionItem& in, size_t i) {
    std::string f = "items[" + std::to_string(i) + "].";
    Claim c;
    c.text = trimmed(in.text);
    checkUtf8(f + "text", c.text);
    if (c.text.empty()) throw invalidField(f + "text", "must not be empty");
    if (c.text.size() > kMaxText)
        throw invalidField(f + "text", "is longer than " + std::to_string(kMaxText) + " bytes");
    if (in.label) {
        c.label = trimmed(*in.label);
        checkLine(f + "label", c.label, kMaxLabel);
    }
    if (in.kind && !isKnownKind(*in.kind))
        throw invalidField(f + "kind", "must be " + spellingList<ClaimKind>());
    c.kind = in.kind.value_or("fact");
    if (in.confidence && !(*in.confidence >= 0.0 && *in.confidence <= 1.0))
        throw invalidField(f + "confidence", "must be a number in [0, 1]");
    c.confidence = in.confidence.value_or(0.7);
    for (size_t k = 0; k < in.tags.size(); ++k) {
        std::string tf = f + "tags[" + std::to_string(k) + "]";
        std::string tag = trimmed(in.tags[k]);
        checkLine(tf, tag, kMaxShort);
        if (tag.find(',') != std::string::npos) throw invalidField(tf, "must not contain ','");
        c.tags.push_back(tag);
    }
    if (in.evidence.size() > kMaxEvidence)
        throw invalidField(f + "evidence",
                           "holds more than " + std::to_string(kMaxEvidence) + " items");
    for (size_t k = 0; k < in.evidence.size(); ++k) {
        checkEvidence(f + "evidence[" + std::to_string(k) + "]", in.evidence[k]);
        c.evidence.push_back(in.evidence[k]);
    }
    return c;
}

} // namespace

ContributeResult Engine::contribute(const ContributeRequest& req) {
    checkAgent(req.agent);
    if (req.packetId && !isHex64(*req.packetId))
        throw invalidField("packet_id", "must be a packet id (64 lower-case hex digits)");
    if (req.items.empty()) throw invalidField("items", "must hold at least one item");
    if (req.items.size() > kMaxItems)
        throw invalidField("items", "at most " + std::to_string(kMaxItems) + " items per call");

    // Validate every item before anything is written: a bad item fails the
    // call as a whole, naming its field, rather than leaving half of it stored.
    std::vector<Claim> drafts;
    for (size_t i = 0; i < req.items.size(); ++i)
        drafts.push_back(draftOf(req.items[i], i));

    ContributeResult result;
    result.items.resize(drafts.size());
    std::vector<bool> refused(drafts.size(), false);
    for (size_t i = 0; i < drafts.size(); ++i) {
        auto& o = result.items[i];
        o.index = i;
        if (auto s = secretIn("items[" + std::to_string(i) + "].", drafts[i])) {
            // Refused whole: no text, no hash of it, nothing on disk.
            refused[i] = true;
            o.status = "refused";
            o.refusal = s->message + "; the item was refused and nothing of it was stored";
            o.refusalRule = s->rule;
            o.refusalField = s->field;
            ++result.refused;
            continue;
        }
        for (size_t k = 0; k < req.items[i].anchors.size(); ++k)
            drafts[i].anchors.push_back(anchorer_.resolve(
                req.items[i].anchors[k],
                "items[" + std::to_string(i) + "].anchors[" + std::to_string(k) + "]"));
    }

    Tier& t = tiers_.writable("project");
    Tier* med = tiers_.find("medulla");
    if (med && !tiers_.ready(*med)) med = nullptr;
    auto lock = t.store->lock();
    const int64_t now = nowUnix();

    for (size_t i = 0; i < drafts.size(); ++i) {
        if (refused[i]) continue;
        Claim& c = drafts[i];
        auto& o = result.items[i];
        o.contentHash = contentHash(c.text);

        // A repeat of a live claim (here or in the medulla) or of any earlier
        // contribution, this call's included: reported, not stored again.
        std::optional<Claim> dup;
        for (Tier* tp : {&t, med}) {
            if (!tp || dup) continue;
            for (auto& ic : tp->index->byContentHash(o.contentHash, 16))
                if (ic.claim.status == ClaimStatus::Committed ||
                    ic.claim.status == ClaimStatus::Frontier || !ic.claim.contributionId.empty()) {
                    dup = ic.claim;
                    break;
                }
        }
        if (dup) {
            o.status = "duplicate";
            o.duplicateOf = dup->id;
            o.duplicateStatus = std::string(toString(dup->status));
            o.contributionId = dup->contributionId;
            ++result.duplicates;
            continue;
        }

        // Contradictions with committed claims on the same anchor or label.
        std::set<std::string> against;
        auto consider = [&](const Claim& other) {
            if (!other.live() || against.count(other.id)) return;
            if (auto m = contradicts(c.text, other.text)) {
                if (against.empty())
                    o.conflict = "\"" + m->positive + "\" against \"" + m->negative + "\" (" +
                                 other.id + ")";
                against.insert(other.id);
            }
        };
        for (auto& other : claimsOnDefinitions(t, c.anchors))
            consider(other);
        if (!c.label.empty())
            for (Tier* tp : {&t, med})
                if (tp)
                    if (auto ic = tp->index->liveByLabel(c.label)) consider(ic->claim);
        o.conflictsWith.assign(against.begin(), against.end());
        if (!against.empty()) ++result.conflicts;

        do {
            c.id = Store::newId();
        } while (statFile(t.store->claimPath(c.id)));
        // Contribution ids share the claim ids' alphabet, with their own prefix.
        c.contributionId = "k-" + Store::newId().substr(2);
        c.status = ClaimStatus::Frontier;
        c.created = now;
        c.updated = now;
        c.origin = t.store->originLabel();
        c.sourceAgent = req.agent;
        c.contributedBy = req.agent;
        c.packetId = req.packetId.value_or("");
        c.contentHash = o.contentHash;
        Tiers::commit(t, c, "contribute", req.agent,
                      c.contributionId + (c.packetId.empty() ? "" : " for packet " + c.packetId) +
                          (against.empty() ? "" : "; contradicts " + o.conflictsWith.front()));
        o.status = "stored";
        o.contributionId = c.contributionId;
        o.claimId = c.id;
        ++result.stored;
    }
    return result;
}

ReviewResult Engine::review(const ReviewRequest& req) {
    // Recall shows a contribution as its claim (c-...): either id names it.
    const bool byClaim = req.contributionId.starts_with("c-");
    if (!(byClaim || req.contributionId.starts_with("k-")) || !Store::validId(req.contributionId))
        throw invalidField("contribution_id", "'" + req.contributionId +
                                                  "' is not a contribution id (k-...) or the "
                                                  "claim id (c-...) of one");
    if (req.decision != "accept" && req.decision != "reject")
        throw invalidField("decision", "must be accept or reject");
    checkAgent(req.agent);
    checkLine("reason", req.reason, kMaxShort);
    if (auto s = findSecret("reason", req.reason))
        throw EngramError(ErrorKind::SecretDetected, s->message + "; the review was refused",
                          {{"field", std::string("reason")}, {"rule", s->rule}});

    Tier& t = tiers_.project();
    auto unknown = [&] {
        return EngramError(ErrorKind::UnknownClaim,
                           "contribution_id: no contribution with id '" + req.contributionId +
                               "' in the project store",
                           {{"contribution_id", req.contributionId}});
    };
    if (!tiers_.ready(t)) throw unknown();
    auto lock = t.store->lock();
    auto ic =
        byClaim ? t.index->byId(req.contributionId) : t.index->byContribution(req.contributionId);
    if (!ic) throw unknown();
    if (ic->claim.contributionId.empty())
        throw invalidField("contribution_id", "claim " + ic->claim.id +
                                                  " is not a contribution (it was remembered, "
                                                  "not contributed): nothing to review");
    Claim c = Tiers::loadForUpdate(t, ic->claim.id);
    if (c.status != ClaimStatus::Frontier) {
        std::string was = c.status == ClaimStatus::Committed
                              ? "accepted" + (c.acceptedBy.empty() ? "" : " by " + c.acceptedBy)
                          : c.status == ClaimStatus::Retracted
                              ? "rejected" + (c.retractedBy.empty() ? "" : " by " + c.retractedBy)
                              : std::string(toString(c.status));
        throw EngramError(ErrorKind::InvalidParams,
                          "contribution_id: " + req.contributionId + " was already reviewed (" +
                              was + ", claim " + c.id + "); a contribution is reviewed once",
                          {{"field", std::string("contribution_id")},
                           {"id", c.id},
                           {"status", std::string(toString(c.status))}});
    }
    const int64_t now = nowUnix();
    std::string detail = req.contributionId + " by " +
                         (c.contributedBy.empty() ? std::string("unknown") : c.contributedBy) +
                         ": " + req.reason;
    if (req.decision == "accept") {
        // The file may have been edited since it was contributed.
        if (auto s = secretIn("", c))
            throw EngramError(ErrorKind::SecretDetected,
                              s->message + "; the contribution cannot be accepted",
                              {{"field", s->field}, {"rule", s->rule}, {"id", c.id}});
        if (!c.label.empty())
            if (auto holder = t.index->liveByLabel(c.label))
                throw invalidField("contribution_id",
                                   "its label '" + c.label + "' is held by live claim " +
                                       holder->claim.id +
                                       "; retract that claim first, or reject this contribution "
                                       "and remember the finding under that label");
        c.status = ClaimStatus::Committed;
        c.acceptedBy = req.agent;
        c.updated = now;
        Tiers::commit(t, c, "accept", req.agent, detail);
    } else {
        c.status = ClaimStatus::Retracted;
        c.retractedBy = req.agent;
        c.retractReason = "rejected: " + req.reason;
        c.updated = now;
        Tiers::commit(t, c, "reject", req.agent, detail);
    }
    return {req.decision, c, t.name};
}

} // namespace engram
