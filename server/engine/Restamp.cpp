// Re-stamping anchors of earlier digest rules whose code git shows unchanged.
//
// An anchor stamped by earlier rules is judged by re-deriving its stamp from
// the commit that made it (engine/Rederive.h): a `git log` and a read of
// the file at that commit, on every process that judges it, and impossible
// in a shallow clone. Once it is known unchanged, stamping it again with
// today's rules (`rules=` and today's digests) makes it judged by digests
// alone from then on. That rewrites claim files, so it is an act of its
// own, recorded, and run where a person asks for it (`engram init`), never
// by `engram check`, which must only judge.
#include "engine/Anchoring.h"
#include "engine/Engine.h"
#include "engine/Tier.h"
#include "store/ClaimFile.h"

namespace engram {

RestampResult Engine::restamp() {
    RestampResult r;
    Tier& t = tiers_.project();
    if (!tiers_.ready(t)) return r;
    // Judged first, without the store's lock (git may take a while on a
    // long history); each claim is then re-read under the lock and written
    // only if the anchors judged are still the ones it holds.
    struct Pending {
        std::string id;
        std::vector<std::pair<Anchor, AnchorCheck>> stamps; // the anchor as judged, the verdict
    };
    std::vector<Pending> pending;
    {
        Anchorer::HistoryScope history(anchorer_);
        std::vector<Claim> claims;
        {
            auto snapshot = t.index->readScope();
            for (auto rowid : t.index->recent(ClaimStatus::Committed, 1 << 30))
                if (auto ic = t.index->byRowid(rowid)) claims.push_back(std::move(ic->claim));
        }
        for (auto& c : claims) {
            Pending p{c.id, {}};
            for (auto& a : c.anchors) {
                if (a.symbol.empty() || a.rules == syntax::kDigestRules) continue;
                auto check = anchorer_.check(a, c.id);
                // Intact by its own hash (today's rules reproduce it) needs
                // no history and no rewrite; a stamp re-derived, or found
                // unchanged by a kept version of the rules, is re-stamped.
                if (check.state == "unjudged") {
                    ++r.unjudged;
                } else if (check.stampCommit.empty() && !check.keptRules) {
                    continue;
                } else if (check.state != "intact" || !check.current) {
                    ++r.drifted;
                } else {
                    p.stamps.emplace_back(a, std::move(check));
                }
            }
            if (!p.stamps.empty()) pending.push_back(std::move(p));
        }
    }
    if (pending.empty()) return r;
    t.store->requireWritable();
    auto lock = t.store->lock();
    for (auto& p : pending) {
        Claim c = Tiers::loadForUpdate(t, p.id);
        std::string detail;
        int64_t n = 0;
        for (auto& [was, check] : p.stamps) {
            std::string line = formatAnchor(was);
            for (auto& a : c.anchors) {
                if (formatAnchor(a) != line) continue;
                const Anchor& now = *check.current;
                detail +=
                    std::string(detail.empty() ? "" : "; ") + "anchor " + was.path + "#" +
                    was.symbol +
                    (now.symbol != was.symbol ? " (now named " + now.symbol + ")" : "") +
                    ": digest rules " +
                    (was.rules > 0 ? std::to_string(was.rules) : std::string("unversioned")) +
                    " -> " + std::to_string(syntax::kDigestRules) +
                    (check.keptRules
                         ? ", unchanged by digest rules " + std::to_string(check.keptRules)
                         : ", re-derived unchanged from commit " + check.stampCommit.substr(0, 12));
                a = now;
                ++n;
                break;
            }
        }
        if (n == 0) continue; // re-stamped or changed by someone else meanwhile
        Tiers::commit(t, c, "restamp", "engram", detail);
        r.restamped += n;
        ++r.claims;
    }
    return r;
}

} // namespace engram
