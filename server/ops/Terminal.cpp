// Terminal rendering: what a person at a shell reads.
#include "ops/Terminal.h"

#include "ops/Render.h"

#include "store/ClaimFile.h"
#include "store/Merge.h"
#include "util/Time.h"
#include "util/Utf8.h"

namespace engram::ops::terminal {

static std::string orUnknown(const std::string& s) {
    return s.empty() ? "unknown" : s;
}

static std::string indent(const std::string& text, const std::string& pad) {
    std::string out = pad;
    for (char c : text) {
        out += c;
        if (c == '\n') out += pad;
    }
    return out;
}

std::string claimLine(const Claim& c) {
    std::string s = "[" + orUnknown(c.kind) + "] ";
    if (!c.label.empty()) s += c.label + "  ";
    s += "(" + c.id + " v" + std::to_string(c.version) + ", " + std::string(toString(c.status));
    if (c.confidence) s += ", confidence " + formatConfidence(*c.confidence);
    s += ", by " + orUnknown(c.sourceAgent) + ", from " + orUnknown(c.origin) + ")";
    if (c.unmerged) s += " UNMERGED";
    if (!c.diverged.empty()) s += " DIVERGED";
    return s;
}

// The versions a merge kept beside the live one: shown wherever the claim
// is, so neither branch's memory is hidden.
static std::string renderDiverged(const Claim& c, const std::string& pad) {
    std::string out;
    if (c.unmerged)
        out += pad + "git conflict markers in its file: both sides are served; engram resolve " +
               c.id + "\n";
    for (auto& d : c.diverged)
        out += pad + "also kept by the merge, v" + std::to_string(d.version) + " (" +
               std::string(toString(d.status)) + ", by " + orUnknown(d.sourceAgent) +
               (d.confidence ? ", confidence " + formatConfidence(*d.confidence) : "") + ", key " +
               versionKey(d).substr(0, 10) + "): " + d.text + "\n";
    if (!c.diverged.empty() && !c.unmerged)
        out += pad + "diverged on two branches: engram resolve " + c.id + " [--take VERSION]\n";
    return out;
}

std::string recall(const RecallResult& r) {
    std::string out;
    int i = 0;
    for (auto& row : r.rows) {
        out += std::to_string(++i) + ". " + claimLine(row.claim) + "\n";
        out += "   " + row.tier + (row.tier == "other" ? " (" + row.store + ")" : "") +
               " · anchor " + row.anchorState + " · age " +
               (row.ageSeconds ? humanAge(*row.ageSeconds) : std::string("unknown")) +
               (row.stale && *row.stale ? " · STALE" : "") + "\n";
        out += indent(row.claim.text, "   ") + "\n";
        // Where changed code is now, so the row says what to check.
        for (size_t a = 0; a < row.places.size() && a < row.claim.anchors.size(); ++a) {
            const AnchorPlace& p = row.places[a];
            if ((p.state != "moved" && p.state != "drifted") || !p.range) continue;
            const Anchor& was = row.claim.anchors[a];
            out += "   " + p.state + ": " + was.path +
                   (!was.symbol.empty() ? "#" + was.symbol
                    : was.startLine > 0
                        ? ":" + std::to_string(was.startLine) + "-" + std::to_string(was.endLine)
                        : "") +
                   " is now " + (p.movedTo.empty() ? "" : p.movedTo + " at ") + p.path + ", " +
                   render::lineSpan(*p.range) + "\n";
        }
        out += renderDiverged(row.claim, "   ");
        for (auto& other : row.labelSharedWith)
            out += "   LABEL SHARED with live claim " + other +
                   " (written on another branch): retract or supersede one of them\n";
        if (!row.nearDuplicates.empty()) {
            std::string ids;
            for (auto& other : row.nearDuplicates)
                ids += (ids.empty() ? "" : ", ") + other;
            out += "   NEAR DUPLICATES (folded into this row): " + ids + "\n";
        }
        for (auto& v : row.superseded)
            out += "   SUPERSEDED v" + std::to_string(v.version) + " (by " + v.sourceAgent +
                   "): " + singleLine(v.text, 400, "...") + "\n";
        out += "   " + row.provenance + "\n";
        if (!row.why.empty()) {
            out += "   why:";
            for (auto& w : row.why)
                out += " " + w + ";";
            out.pop_back();
            out += "\n";
        }
    }
    if (r.rows.empty()) {
        out += "No claims returned. " + r.whyEmpty + ".\n";
        for (auto& m : r.memoryExists)
            out += "  " + m.tier + (m.tier == "other" ? " " + m.store : "") + ": " +
                   std::to_string(m.live) + (m.live == 1 ? " live claim\n" : " live claims\n");
        if (!r.envelope.recovery.method.empty())
            out += "  next: " + r.envelope.recovery.reason + "\n";
    } else if (r.truncated) {
        out += "(more rows matched; raise --limit or --max-chars)\n";
    }
    for (auto& u : r.unreachable)
        out += "unreachable: " + u.root + ": " + u.reason + "\n";
    for (auto& n : r.notices)
        out += "note: " + n + "\n";
    if (!r.instructions.empty()) out += "from the instruction files (not claims):\n";
    for (auto& h : r.instructions) {
        out += "  " + h.file + ":" + std::to_string(h.line) + "-" + std::to_string(h.endLine) +
               (h.heading.empty() ? "" : " (" + h.heading + ")") + "\n";
        out += indent(h.text, "    ") + "\n";
        for (auto& [ref, state] : h.references)
            if (state != "ok") out += "    `" + ref + "` is " + state + "\n";
    }
    out += "trust: " + r.envelope.trustMode + "\n";
    return out;
}

std::string get(const GetResult& r) {
    std::string out = claimLine(r.claim) + "\n";
    out += "tier " + r.tier + " · anchor " + r.anchorState + " · file " + r.file + "\n";
    out += "created " + (r.claim.created ? formatUtc(*r.claim.created) : std::string("unknown"));
    if (r.claim.verified) out += " · verified " + formatUtc(*r.claim.verified);
    out += "\n";
    if (!r.claim.tags.empty()) {
        out += "tags:";
        for (auto& t : r.claim.tags)
            out += " " + t;
        out += "\n";
    }
    for (size_t i = 0; i < r.claim.anchors.size(); ++i)
        out += "anchor: " + formatAnchor(r.claim.anchors[i]) + " (" +
               (i < r.anchorStates.size() ? r.anchorStates[i] : "unknown") + ")\n";
    for (auto& e : r.claim.evidence)
        out += "evidence: " + e.type + " " + e.value + "\n";
    auto& f = r.claim.feedback;
    if (f.correct || f.wrong || f.partial)
        out += "feedback: " + std::to_string(f.correct) + " correct, " + std::to_string(f.wrong) +
               " wrong, " + std::to_string(f.partial) + " partial" +
               (f.contested() ? " (contested)" : "") + "\n";
    if (r.claim.status == ClaimStatus::Retracted)
        out +=
            "retracted by " + orUnknown(r.claim.retractedBy) + ": " + r.claim.retractReason + "\n";
    out += "\n" + indent(r.claim.text, "  ") + "\n";
    out += renderDiverged(r.claim, "  ");
    if (!r.history.empty()) {
        out += "\nhistory:\n";
        for (auto& h : r.history)
            out += "  v" + std::to_string(h.version) + " (" +
                   (h.updated ? formatUtc(*h.updated) : std::string("unknown")) + ", " +
                   orUnknown(h.sourceAgent) + "): " + h.text.substr(0, 100) + "\n";
    }
    return out;
}

std::string status(const StatusResult& r) {
    auto& e = r.envelope;
    std::string out = "engram " + e.session.version + " · root " + e.binding.root +
                      " (fingerprint " + e.binding.fingerprint + ", " + e.binding.source + ")\n";
    out += "trust: " + e.trustMode + " · status " + e.status + "\n";
    for (auto& s : e.stores) {
        out += s.tier + ": " + s.path;
        if (!s.exists) {
            out += s.tier.starts_with("team:") ? " (not added on this machine: engram team add " +
                                                     s.tier.substr(5) + " URL)\n"
                                               : " (no store yet)\n";
            continue;
        }
        out += "\n  " + std::to_string(s.committed) + " live, " + std::to_string(s.frontier) +
               " frontier, " + std::to_string(s.retracted) + " retracted, " +
               std::to_string(s.superseded) + " superseded · " + std::to_string(s.anchors) +
               " anchors · index generation " + std::to_string(s.generation) + "\n";
        if (s.readOnly) out += "  read-only: answered from its files, writes are refused\n";
        if (!s.error.empty()) out += "  error: " + s.error + "\n";
        if (s.sync) {
            auto& y = *s.sync;
            out += "  a clone of " + y.remote + " · last sync " + agoText(y.lastSync) +
                   (y.pending.empty() ? ""
                                      : " · " + std::to_string(y.pending.size()) +
                                            " waiting to be pushed (engram sync)") +
                   "\n";
            if (!y.error.empty()) out += "  the last sync failed: " + y.error + "\n";
        }
    }
    auto& h = r.anchorHealth;
    out += "anchors: " + std::to_string(h.intact) + " intact, " + std::to_string(h.drifted) +
           " drifted, " + std::to_string(h.moved) + " moved, " + std::to_string(h.orphaned) +
           " orphaned" + (h.unjudged ? ", " + std::to_string(h.unjudged) + " not judged" : "") +
           "\n";
    for (auto& [reason, n] : r.envelope.notJudged.byReason)
        out += "not judged: " + std::to_string(n) + " (" + reason +
               "): " + std::string(notJudgedExplanation(reason)) + "\n";
    for (auto& [file, why] : r.brokenFiles)
        out += "broken: " + file + ": " + why + "\n";
    int64_t broken = 0;
    for (auto& s : r.envelope.stores)
        broken += s.brokenFiles;
    if (broken > int64_t(r.brokenFiles.size()))
        out += "... and " + std::to_string(broken - int64_t(r.brokenFiles.size())) +
               " more broken claim files (engram check --max-findings 0 lists them)\n";
    out += "inbox: " + std::to_string(r.inbox.open) + " open, " +
           std::to_string(r.inbox.inProgress) + " in progress (engram inbox)\n";
    if (auto& i = r.instructions) {
        out += "instruction files: " + std::to_string(i->files) + " with " +
               std::to_string(i->references) + " code references: " + std::to_string(i->dangling) +
               " dangling, " + std::to_string(i->drifted) + " drifted, " +
               std::to_string(i->moved) + " moved";
        out += i->dangling + i->drifted + i->moved ? " (engram check lists them)\n" : "\n";
    }
    if (!r.registered.empty()) {
        out += "registered projects (recall --tier all reads them):\n";
        for (auto& reg : r.registered)
            out += "  " + reg.root + (reg.reachable ? "" : " (unreachable: no store there)") + "\n";
    }
    if (!e.recovery.method.empty()) out += "next: " + e.recovery.reason + "\n";
    return out;
}

std::string promote(const PromoteResult& r) {
    std::string out = "Promoted " + r.witness.id + " to the medulla as " + r.medullaCopy.id;
    if (r.superseded)
        out += " (v" + std::to_string(r.medullaCopy.version) + ", replacing v" +
               std::to_string(r.superseded->version) + ")";
    out += ": " + claimLine(r.medullaCopy) + "\n";
    out += "   " + provenanceChain(r.medullaCopy) + "\n";
    out += "medulla: " + std::to_string(r.medullaLive) + " live claims (soft cap " +
           std::to_string(kMedullaSoftCap) + ")\n";
    if (!r.capWarning.empty()) out += "warning: " + r.capWarning + "\n";
    return out;
}

std::string packet(const protocol::json& p) {
    auto str = [](const protocol::json& j, const char* k) {
        auto it = j.find(k);
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const auto& m = p["metrics"];
    std::string out = "Packet " + str(p, "packet_id") + " (" + str(p, "created_at") +
                      (p.contains("signature") ? ", signed" : ", unsigned") + ")\n";
    out += "task: " + str(p["request"], "task") + "\n";
    const auto& b = p["binding"];
    out += "bound to " + str(b, "root") + " (" + str(b, "fingerprint") + ")";
    if (b["git"].is_object())
        out += ", git " +
               (b["git"]["head"].is_string() ? b["git"]["head"].get<std::string>()
                                             : std::string("unborn")) +
               (b["git"]["dirty"] == true ? " (dirty)" : "");
    out += "\n";
    int i = 0;
    for (auto& it : p["items"]) {
        out += std::to_string(++i) + ". [" + str(it, "kind") + "] " +
               (it["label"].is_string() ? it["label"].get<std::string>() + "  " : "") + "(" +
               str(it, "id") + " v" + std::to_string(it["version"].get<int>()) + ", " +
               str(it, "tier") + ", anchor " + str(it, "anchor_state") + ", score " +
               it["score"].dump() + ")" +
               (it.value("unverified", false) ? " UNVERIFIED: check it against the code" : "") +
               "\n";
        out += indent(str(it, "text"), "   ") + "\n";
    }
    if (i == 0) out += "no claims were relevant to the task\n";
    out += "included " + m["included"].dump() + " of " + m["eligible"].dump() +
           " eligible claims (" + m["candidates"].dump() + " considered, " + m["chars"].dump() +
           " characters; limits " + p["limits"]["max_items"].dump() + " items, " +
           p["limits"]["max_chars"].dump() + " characters)\n";
    for (auto& w : m["why"])
        out += "budget: " + w.get<std::string>() + "\n";
    for (auto& [reason, g] : p["honest_gaps"].items())
        if (g["count"].get<int64_t>() > 0)
            out += "left out: " + g["count"].dump() + " " + reason + "\n";
    return out;
}

std::string contribute(const ContributeResult& r) {
    std::string out;
    for (auto& o : r.items) {
        out += "item " + std::to_string(o.index) + ": " + o.status;
        if (o.status == "stored") out += " as " + o.contributionId + " (claim " + o.claimId + ")";
        if (o.status == "duplicate")
            out += " of " + o.duplicateOf + " (" + o.duplicateStatus + "); not stored again";
        if (o.status == "refused") out += ": " + o.refusal;
        if (!o.conflictsWith.empty()) out += "; CONFLICT: " + o.conflict;
        out += "\n";
    }
    out += std::to_string(r.stored) + " stored (frontier, awaiting review), " +
           std::to_string(r.duplicates) + " duplicates, " + std::to_string(r.refused) +
           " refused, " + std::to_string(r.conflicts) + " in conflict\n";
    return out;
}

std::string verifyPacket(const VerifyPacketResult& r) {
    std::string out = std::string(r.valid ? "valid" : "INVALID") + ": packet " + r.packetId + "\n";
    for (auto& reason : r.reasons)
        out += "  - " + reason + "\n";
    return out;
}

std::string remember(const RememberResult& r) {
    std::string out = (r.superseded ? "Superseded v" + std::to_string(r.superseded->version) +
                                          " with v" + std::to_string(r.claim.version) + ": "
                                    : std::string("Remembered: ")) +
                      claimLine(r.claim) + "\n";
    for (auto& x : r.related)
        out += "  probably " +
               std::string(x.relation == "contradicts" ? "contradicts " : "restates ") + x.id +
               (x.label.empty() ? "" : " (" + x.label + ")") + ": " + x.why +
               "; keep one (engram retract ID)\n";
    return out;
}

} // namespace engram::ops::terminal
