// Writes: remember (with supersession), retract, learn.
#include "engine/Anchoring.h"
#include "engine/Checks.h"
#include "engine/Engine.h"
#include "engine/Tier.h"
#include "secrets/SecretScan.h"
#include "store/ClaimFile.h"
#include "store/Merge.h"
#include "store/StoreConfig.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Time.h"

#include <unistd.h>

namespace engram {

RememberResult Engine::remember(const RememberRequest& in) {
    RememberRequest req = in;
    req.text = trimmed(req.text);
    checkUtf8("text", req.text);
    if (req.text.empty()) throw invalidField("text", "must not be empty");
    if (req.text.size() > kMaxText)
        throw invalidField("text", "is longer than " + std::to_string(kMaxText) +
                                       " bytes; a claim should be a short note");
    checkAgent(req.agent);
    if (req.label) {
        *req.label = trimmed(*req.label);
        checkLine("label", *req.label, kMaxLabel, true);
    }
    if (req.kind && !isKnownKind(*req.kind))
        throw invalidField("kind", "must be " + spellingList<ClaimKind>());
    if (req.confidence && !(*req.confidence >= 0.0 && *req.confidence <= 1.0))
        throw invalidField("confidence", "must be a number in [0, 1]");
    for (size_t i = 0; i < req.tags.size(); ++i) {
        std::string f = "tags[" + std::to_string(i) + "]";
        req.tags[i] = trimmed(req.tags[i]);
        checkLine(f, req.tags[i], kMaxShort, true);
        if (req.tags[i].find(',') != std::string::npos)
            throw invalidField(f, "must not contain ','");
    }
    if (req.evidence.size() > kMaxEvidence)
        throw invalidField("evidence",
                           "holds more than " + std::to_string(kMaxEvidence) + " items");
    for (size_t i = 0; i < req.evidence.size(); ++i)
        checkEvidence("evidence[" + std::to_string(i) + "]", req.evidence[i]);
    if (!req.forceReason.empty()) checkLine("force_reason", req.forceReason, kMaxShort, false);

    scanForSecrets("text", req.text);
    if (req.label) scanForSecrets("label", *req.label);
    for (size_t i = 0; i < req.tags.size(); ++i)
        scanForSecrets("tags[" + std::to_string(i) + "]", req.tags[i]);
    for (size_t i = 0; i < req.evidence.size(); ++i)
        scanForSecrets("evidence[" + std::to_string(i) + "].value", req.evidence[i].value);
    if (!req.forceReason.empty()) scanForSecrets("force_reason", req.forceReason);

    std::vector<Anchor> anchors;
    for (size_t i = 0; i < req.anchors.size(); ++i)
        anchors.push_back(anchorer_.resolve(req.anchors[i], "anchors[" + std::to_string(i) + "]"));

    Tier& t = tiers_.writable(req.tier);
    std::optional<FileLock> lock(t.store->lock());
    int64_t now = nowUnix();

    Claim c;
    c.text = req.text;
    c.label = req.label.value_or("");
    c.kind = req.kind.value_or("fact");
    c.confidence = req.confidence.value_or(0.7);
    c.tags = req.tags;
    c.anchors = anchors;
    c.evidence = req.evidence;
    c.sourceAgent = req.agent;
    c.updated = now;
    c.forceReason = req.forceReason;

    RememberResult result;
    result.tier = t.name;
    std::string resolves; // the other heads' versions, when this write resolves a merge
    std::optional<IndexedClaim> prior;
    if (!c.label.empty()) {
        auto holders = t.index->liveWithLabel(c.label);
        if (holders.size() > 1) {
            // Two branches each remembered this label. Which claim a write
            // would supersede is for a person or agent to decide.
            std::string ids;
            for (auto& h : holders)
                ids += (ids.empty() ? "" : ", ") + h.claim.id;
            throw EngramError(ErrorKind::LabelCollision,
                              "label '" + c.label + "' is held by " +
                                  std::to_string(holders.size()) + " live claims (" + ids +
                                  "), written on different branches; supersede or retract all "
                                  "but one (engram retract ID) before writing it again",
                              {{"label", c.label}, {"ids", ids}});
        }
        if (!holders.empty()) prior = std::move(holders.front());
    }
    if (prior) {
        // Supersession: same label, a new version of the same claim.
        Claim old = Tiers::loadForUpdate(t, prior->claim.id);
        double oldConf = old.confidence.value_or(0.0);
        // A correction written without a confidence keeps the claim's: the
        // default is for new claims, and a correction that did not say how
        // sure it is has not said it is less sure (only an explicit lower
        // confidence is a downgrade, refused without force_reason).
        if (!req.confidence) c.confidence = std::max(*c.confidence, oldConf);
        if (*c.confidence < oldConf && req.forceReason.empty())
            throw EngramError(ErrorKind::WouldDowngrade,
                              "claim '" + c.label + "' (" + old.id + ") has confidence " +
                                  formatConfidence(oldConf) + "; a write at " +
                                  formatConfidence(*c.confidence) +
                                  " would downgrade it (give force_reason to record why it should)",
                              {{"id", old.id},
                               {"label", c.label},
                               {"existing_confidence", oldConf},
                               {"requested_confidence", *c.confidence}});
        c.id = old.id;
        // A claim a merge left diverged (or unmerged) is resolved by this
        // write: every head goes to history and the new version follows the
        // highest of them.
        auto heads = claimHeads(old);
        int top = 0;
        for (auto& h : heads)
            top = std::max(top, h.version);
        c.version = top + 1;
        c.created = old.created; // birth is immutable across versions
        c.origin = old.origin;
        // A new version of a promoted claim is still the medulla copy's
        // witness (a later promotion updates that copy).
        c.promotedTo = old.promotedTo;
        c.supersedes = old.id + "@" + std::to_string(old.version);
        // Feedback was about the old wording; it does not carry over.
        // History first: a crash between the two writes leaves the old version
        // both in history and current, which readers resolve (Store::versions).
        for (size_t i = 1; i < heads.size(); ++i)
            resolves += (resolves.empty() ? "" : ", ") + heads[i].id + "@" +
                        std::to_string(heads[i].version);
        for (size_t i = 0; i < heads.size(); ++i) {
            Claim history = heads[i];
            if (history.status == ClaimStatus::Committed) history.status = ClaimStatus::Superseded;
            t.store->writeHistory(history);
            if (i == 0) result.superseded = history;
        }
    } else {
        do {
            c.id = Store::newId();
        } while (statFile(t.store->claimPath(c.id)));
        c.created = now;
        c.origin = t.store->originLabel();
    }
    Tiers::commit(t, c, prior ? "supersede" : "remember", req.agent,
                  prior ? "replaces " + c.supersedes +
                              (resolves.empty() ? "" : "; resolves the divergence of " + resolves) +
                              (req.forceReason.empty() ? "" : "; forced: " + req.forceReason)
                        : "");
    result.claim = c;
    // What it probably says again or otherwise, so the writer can supersede
    // or retract instead of keeping both. Asked once the write is done and
    // the lock released: other writers do not wait on a recall (the new
    // claim is left out of its own answers by id).
    lock.reset();
    result.related = probablyRelated(t, c);
    return result;
}

Claim Engine::retract(const std::string& id, const std::string& agent, const std::string& reason,
                      std::string* proposedOn) {
    checkAgent(agent);
    checkLine("reason", reason, kMaxShort, true);
    scanForSecrets("reason", reason);
    Tier& t = tiers_.locate(id);
    auto lock = t.store->lock();
    Claim c = Tiers::loadForUpdate(t, id);
    if (c.status == ClaimStatus::Retracted) return c; // already done; nothing to record
    c.status = ClaimStatus::Retracted;
    c.retractedBy = agent;
    c.retractReason = reason;
    c.updated = nowUnix();
    if (t.store->tier() == "team" && proposedOn) {
        // A team's claims change by review, a retraction too: the retracted
        // file on a branch of the clone; the claim stays live until merged.
        *proposedOn = "engram/retract-" + id;
        proposeOnBranch(t.store->dir(), *proposedOn, {{"claims/" + id + ".md", serializeClaim(c)}},
                        "engram: retract " + id + (c.label.empty() ? "" : " (" + c.label + ")") +
                            "\n\n" + reason + "\n\nProposed by " + agent + ".");
        tiers_.project().store->audit().append("propose-retract", id, agent,
                                               "in " + t.name + " on branch " + *proposedOn + ": " +
                                                   reason);
        return c;
    }
    Tiers::commit(t, c, "retract", agent, reason);
    return c;
}

LearnResult Engine::learn(const std::string& id, Verdict verdict, const std::string& agent,
                          const std::string& note) {
    checkAct(agent, note);
    Tier& t = tiers_.locate(id);
    auto lock = t.store->lock();
    Claim c = Tiers::loadForUpdate(t, id);
    switch (verdict) {
    case Verdict::Correct:
        ++c.feedback.correct;
        break;
    case Verdict::Wrong:
        ++c.feedback.wrong;
        break;
    case Verdict::Partial:
        ++c.feedback.partial;
        break;
    }
    Tiers::commit(t, c, "learn", agent,
                  std::string(spell(verdict)) + (note.empty() ? "" : ": " + note));
    return {c, t.name};
}

GetResult Engine::reverify(const std::string& id, const std::string& agent,
                           const std::string& note) {
    checkAct(agent, note);
    Tier& t = tiers_.locate(id);
    {
        auto lock = t.store->lock();
        Claim c = Tiers::loadForUpdate(t, id);
        std::string detail;
        // A stamp of earlier rules is judged against its commit, so the
        // entry says what re-verifying it changed.
        Anchorer::HistoryScope history(anchorer_);
        for (size_t i = 0; i < c.anchors.size(); ++i) {
            auto check = anchorer_.check(c.anchors[i], c.id);
            if (!check.ambiguous.empty()) {
                std::string list;
                for (auto& cand : check.ambiguous)
                    list += (list.empty() ? "" : ", ") + cand;
                throw EngramError(ErrorKind::AnchorNotFound,
                                  "anchors[" + std::to_string(i) + "]: " + c.anchors[i].path + "#" +
                                      c.anchors[i].symbol +
                                      " can no longer be told apart from the other definitions "
                                      "of that name (" +
                                      list +
                                      "); remember the claim again anchored to the right one "
                                      "(PATH:LINE)",
                                  {{"field", "anchors[" + std::to_string(i) + "]"},
                                   {"id", id},
                                   {"candidates", list}});
            }
            // Orphaned, with its code's likely successor named (the finding
            // said so, and the reader re-verifying has checked the claim
            // against it): followed there.
            std::string followed;
            if (!check.current && check.state == "orphaned")
                if (auto next = anchorer_.successor(c.anchors[i])) {
                    check.current = next->anchor;
                    followed = " " + c.anchors[i].symbol + ", followed to " + next->symbol +
                               " (renamed and edited, " +
                               std::to_string(int(next->likeness * 100)) + "% alike)";
                }
            if (!check.current)
                throw EngramError(
                    ErrorKind::AnchorNotFound,
                    "anchors[" + std::to_string(i) + "]: " + c.anchors[i].path +
                        (c.anchors[i].symbol.empty() ? "" : "#" + c.anchors[i].symbol) +
                        " is orphaned; retract the claim or remember it again with a "
                        "new anchor",
                    {{"field", "anchors[" + std::to_string(i) + "]"}, {"id", id}});
            if (check.state != "intact")
                detail += (detail.empty() ? "" : "; ") + c.anchors[i].path + " " + check.state +
                          followed + (check.movedTo.empty() ? "" : " to " + check.movedTo);
            c.anchors[i] = *check.current;
        }
        c.verified = nowUnix();
        c.updated = c.verified;
        Tiers::commit(t, c, "reverify", agent,
                      (detail.empty() ? std::string("anchors intact") : detail) +
                          (note.empty() ? "" : "; " + note));
    }
    return get(id);
}

// What a promotion writes in the store above: the project claim's text and
// fields, its anchors turned into notes (other workspaces lack the code),
// and where it came from.
static Claim promotedCopy(const Claim& w, const std::string& origin, const std::string& agent,
                          const std::string& reason, int64_t now) {
    Claim c;
    c.text = w.text;
    c.label = w.label;
    c.kind = w.kind;
    c.confidence = w.confidence;
    c.tags = w.tags;
    c.evidence = w.evidence;
    // Anchors point into the project's code, which other workspaces do not
    // have: the copy says where it was anchored instead, and the witness
    // keeps the anchors (and so keeps showing drift in its project).
    for (auto& a : w.anchors)
        c.evidence.push_back({"note", "anchored in " + origin + " at " + a.path +
                                          (a.symbol.empty() ? std::string() : "#" + a.symbol) +
                                          (a.startLine > 0 ? ":" + std::to_string(a.startLine) +
                                                                 "-" + std::to_string(a.endLine)
                                                           : std::string())});
    c.sourceAgent = w.sourceAgent;
    c.origin = origin;
    c.created = w.created; // learned then, wherever it lives now
    c.updated = now;
    c.originClaim = origin + ":" + w.id;
    c.promotedBy = agent;
    c.promotionReason = reason;
    c.promoted = now;
    return c;
}

PromoteResult Engine::promote(const PromoteRequest& req) {
    if (!Store::validId(req.id)) throw invalidField("id", "'" + req.id + "' is not a claim id");
    checkAgent(req.agent);
    checkLine("reason", req.reason, kMaxShort, true);
    scanForSecrets("reason", req.reason);
    Tier* med = tiers_.find("medulla");
    if (!med)
        throw EngramError(ErrorKind::NotBound,
                          "no medulla to promote into: ENGRAM_HOME is not set (pass --home)");
    Tier& proj = tiers_.project();
    if (!tiers_.ready(proj) || !statFile(proj.store->claimPath(req.id))) {
        bool inMedulla = tiers_.ready(*med) && statFile(med->store->claimPath(req.id));
        throw EngramError(ErrorKind::UnknownClaim,
                          inMedulla ? "claim '" + req.id +
                                          "' is already in the medulla; promote copies "
                                          "project claims"
                                    : "no claim with id '" + req.id + "' in the project tier",
                          {{"id", req.id}});
    }
    Tier& m = tiers_.writable("medulla");

    // Project first, then medulla: the one place two stores' locks are held.
    auto projectLock = proj.store->lock();
    auto medullaLock = m.store->lock();
    Claim w = Tiers::loadForUpdate(proj, req.id);
    if (!w.live())
        throw invalidField("id", "claim '" + req.id + "' is " + std::string(toString(w.status)) +
                                     "; only live claims can be promoted");
    // The file may have been edited by hand since it was written: the scan
    // runs again before anything reaches the medulla (invariant 6).
    if (auto secret = secretIn("", w)) refuseSecret(*secret);

    const int64_t now = nowUnix();
    Claim c = promotedCopy(w, w.origin.empty() ? proj.store->originLabel() : w.origin, req.agent,
                           req.reason, now);

    // An earlier copy of the same claim (the witness names it) or a live
    // medulla claim with the same label: this promotion is its next version.
    std::optional<Claim> prior;
    if (!w.promotedTo.empty() && Store::validId(w.promotedTo) &&
        statFile(m.store->claimPath(w.promotedTo))) {
        Claim earlier = Tiers::loadForUpdate(m, w.promotedTo); // a broken file: InvalidClaimFile
        if (earlier.live()) prior = earlier;
    }
    if (!prior && !c.label.empty())
        if (auto byLabel = m.index->liveByLabel(c.label))
            prior = Tiers::loadForUpdate(m, byLabel->claim.id);

    PromoteResult result;
    if (prior) {
        double oldConf = prior->confidence.value_or(0.0);
        double newConf = c.confidence.value_or(0.0);
        if (newConf < oldConf)
            throw EngramError(
                ErrorKind::WouldDowngrade,
                "the medulla already holds '" + (c.label.empty() ? prior->id : c.label) + "' (" +
                    prior->id + ") at confidence " + formatConfidence(oldConf) +
                    "; promoting it at " + formatConfidence(newConf) + " would downgrade it",
                {{"id", prior->id},
                 {"existing_confidence", oldConf},
                 {"requested_confidence", newConf}});
        c.id = prior->id;
        c.version = prior->version + 1;
        c.supersedes = prior->id + "@" + std::to_string(prior->version);
        Claim history = *prior;
        history.status = ClaimStatus::Superseded;
        m.store->writeHistory(history);
        result.superseded = history;
    } else {
        do {
            c.id = Store::newId();
        } while (statFile(m.store->claimPath(c.id)));
    }
    auto copied = Tiers::commit(
        m, c, "promote", req.agent,
        "from " + c.originClaim + (prior ? ", replaces " + c.supersedes : "") + ": " + req.reason);
    // The witness: stamped in place (same version; its content is unchanged).
    w.promotedTo = c.id;
    try {
        Tiers::commit(proj, w, "promote-witness", req.agent, "copied to medulla " + c.id);
    } catch (const std::exception& e) {
        // A copy without its witness would be a promotion nobody can trace.
        Tiers::undo(copied, "promotion of " + w.id + " not completed: " + e.what());
        throw;
    }

    result.medullaCopy = c;
    result.witness = w;
    result.medullaLive = m.index->stats().committed;
    const std::string cap = std::to_string(kMedullaSoftCap);
    if (result.medullaLive > kMedullaSoftCap * 3 / 2)
        result.capWarning = "the medulla holds " + std::to_string(result.medullaLive) +
                            " live claims, far past its soft cap of " + cap +
                            ": every default recall in every project reads it; retract what is "
                            "not doctrine";
    else if (result.medullaLive > kMedullaSoftCap)
        result.capWarning = "the medulla holds " + std::to_string(result.medullaLive) +
                            " live claims, past its soft cap of " + cap +
                            "; keep it to doctrine that holds across projects";
    return result;
}

} // namespace engram

namespace engram {

ProposeResult Engine::propose(const ProposeRequest& req) {
    if (!Store::validId(req.id)) throw invalidField("id", "'" + req.id + "' is not a claim id");
    checkAgent(req.agent);
    checkLine("reason", req.reason, kMaxShort, true);
    scanForSecrets("reason", req.reason);
    if (!validTeamName(req.team))
        throw invalidField("team", "'" + secrets::redacted(req.team.substr(0, 60)) +
                                       "' is not a team name (lower-case letters, digits, '-' "
                                       "and '_', at most 40)");
    if (opts_.home.empty())
        throw EngramError(ErrorKind::NotBound,
                          "no team stores: ENGRAM_HOME is not set (pass --home)");
    const std::string dir = teamStoreDir(opts_.home, req.team);
    if (!statFile(dir + "/store.conf") || !readSyncRecord(dir).git)
        throw invalidField("team", "team store '" + req.team +
                                       "' is not added on this machine: engram team add " +
                                       req.team + " URL");
    Tier& proj = tiers_.project();
    if (!tiers_.ready(proj) || !statFile(proj.store->claimPath(req.id)))
        throw EngramError(ErrorKind::UnknownClaim,
                          "no claim with id '" + req.id + "' in the project tier",
                          {{"id", req.id}});
    std::vector<UnreachableStore> unreachable;
    Tier* team = nullptr;
    for (Tier* t : tiers_.forRecall("team:" + req.team, unreachable))
        if (t->name == "team:" + req.team) team = t;
    if (!team || !tiers_.ready(*team))
        throw EngramError(ErrorKind::Storage, "the team store at " + dir + " could not be opened");

    auto lock = proj.store->lock();
    Claim w = Tiers::loadForUpdate(proj, req.id);
    if (!w.live())
        throw invalidField("id", "claim '" + req.id + "' is " + std::string(toString(w.status)) +
                                     "; only live claims can be proposed");
    // A hand edit since the write is scanned again before it leaves the
    // machine (invariant 6): a branch is pushed to every clone of the team.
    if (auto secret = secretIn("", w)) refuseSecret(*secret);

    ProposeResult result;
    Claim c = promotedCopy(w, w.origin.empty() ? proj.store->originLabel() : w.origin, req.agent,
                           req.reason, nowUnix());
    std::vector<std::pair<std::string, std::string>> files;
    // The team's live claim under the same label: this proposal is its next
    // version, as a promotion into the medulla would be.
    if (!c.label.empty())
        if (auto byLabel = team->index->liveByLabel(c.label)) {
            Claim prior = Tiers::loadForUpdate(*team, byLabel->claim.id);
            c.id = prior.id;
            c.version = prior.version + 1;
            c.supersedes = prior.id + "@" + std::to_string(prior.version);
            Claim history = prior;
            history.status = ClaimStatus::Superseded;
            std::string historyPath = team->store->historyPath(history);
            files.emplace_back(historyPath.substr(team->store->dir().size() + 1),
                               serializeClaim(history));
            result.replaces = prior;
        }
    if (c.id.empty()) do {
            c.id = Store::newId();
        } while (statFile(team->store->claimPath(c.id)));
    files.emplace_back("claims/" + c.id + ".md", serializeClaim(c));
    result.branch =
        "engram/promote-" + c.id + (c.version > 1 ? "-v" + std::to_string(c.version) : "");
    proposeOnBranch(dir, result.branch, files,
                    "engram: propose " + c.id + (c.label.empty() ? "" : " (" + c.label + ")") +
                        " from " + c.originClaim + "\n\n" + req.reason + "\n\nProposed by " +
                        req.agent + (result.replaces ? "; replaces " + c.supersedes : "") + ".");
    proj.store->audit().append("propose", w.id + "@" + std::to_string(w.version), req.agent,
                               "to team:" + req.team + " as " + c.id + " on branch " +
                                   result.branch + ": " + req.reason);
    result.proposal = c;
    result.witness = w;
    result.team = "team:" + req.team;
    result.store = dir;
    result.remote = readSyncRecord(dir).remote;
    return result;
}

} // namespace engram
