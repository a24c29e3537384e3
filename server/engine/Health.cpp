// Anchor health as engram/status counts it: file by file, each file's count
// kept while nothing it depends on changed, in memory and in the index.
#include "engine/Anchoring.h"
#include "engine/Engine.h"
#include "engine/Tier.h"
#include "syntax/Symbols.h"
#include "util/Fs.h"
#include "util/Log.h"
#include "util/Process.h"

#include <charconv>
#include <functional>
#include <limits>
#include <memory>
#include <unordered_map>

namespace engram {

namespace {

// What judged a kept count: engram's digest rules and the build that
// applied them. A new build (an upgrade, a developer's rebuild) counts every
// file once more rather than trusting rules it cannot compare: the
// executable's size and mtime, read once per process.
const std::string& healthRules() {
    static const std::string rules = [] {
        std::string r = std::string("engram ") + ENGRAM_VERSION + " digest " +
                        std::to_string(syntax::kDigestRules);
        if (auto st = statFile(selfExecutable()))
            r += " build " + std::to_string(st->mtimeNs) + " " + std::to_string(st->size);
        return r;
    }();
    return rules;
}

std::string encodeNotJudged(const NotJudged& n) {
    std::string out;
    for (auto& [reason, count] : n.byReason)
        out += (out.empty() ? "" : ",") + reason + "=" + std::to_string(count);
    return out;
}

// Reasons are identifiers (model/NotJudged.h); a malformed part (an index
// written by hand) is skipped rather than trusted.
NotJudged decodeNotJudged(std::string_view s) {
    NotJudged out;
    while (!s.empty()) {
        size_t comma = s.find(',');
        std::string_view part = s.substr(0, comma);
        s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
        size_t eq = part.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        int64_t n = 0;
        auto digits = part.substr(eq + 1);
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
        if (ec == std::errc() && end == digits.data() + digits.size())
            out.add(part.substr(0, eq), n);
    }
    return out;
}

// Keys that describe the file on disk; an open buffer's ("document N") and
// one taken within the racy window ("") hold only for this process.
bool isDocumentKey(const std::string& key) {
    return key.compare(0, 9, "document ") == 0;
}

bool lastingKey(const std::string& key) {
    return !key.empty() && !isDocumentKey(key);
}

// A key as FileHealth keeps it: a 64-bit hash, 0 for none (a key that
// hashes to 0 is kept as 1: it is then only ever counted again).
uint64_t hashKey(const std::string& key) {
    if (key.empty()) return 0;
    uint64_t h = std::hash<std::string>{}(key);
    return h ? h : 1;
}

} // namespace

std::map<int, int64_t> Engine::anchorRules() {
    std::map<int, int64_t> out;
    Tier& t = tiers_.project();
    if (!tiers_.ready(t)) return out;
    auto snapshot = t.index->readScope();
    for (auto rowid : t.index->anchoredLive(std::numeric_limits<int>::max()))
        if (auto ic = t.index->byRowid(rowid))
            for (auto& a : ic->claim.anchors)
                ++out[a.rules];
    return out;
}

void Engine::addAnchorHealth(Tier& t, StatusResult::AnchorHealth& total, NotJudged* notJudged) {
    // Over anchored live claims only (unanchored claims have nothing to
    // check), file by file, reusing each file's count while nothing it
    // depends on changed (Tier::FileHealth): a status call costs a look at
    // each file reported changed (or a stat per anchored file when nothing
    // watches them), not a check per anchor.
    if (t.healthOpens != t.opens) {
        t.health.clear();
        t.healthOpens = t.opens;
        t.healthGeneration = -1;
    }
    // The counts are kept in the index of the tier that also holds the code
    // index, whose generation they depend on; another tier's (the medulla's
    // anchors point into other trees) are kept in memory only.
    // (codeTier(): the project's, once it is ready).
    const bool persist = &t == tiers_.find("project") && tiers_.ready(t);
    const int64_t codeGeneration = persist ? t.index->generations().code : 0;
    // Which files hold anchors changes only with the claims: listed again
    // when the index's generation moved.
    int64_t generation = t.index->stats().generation;
    uint64_t code = 0;
    for (auto& other : tiers_.own())
        if (other->index) code += other->index->codeChanges() + other->opens;
    if (generation != t.healthGeneration) {
        // A server's first count, or one after claims changed: files not
        // counted in this process take the count kept in the index when it
        // was taken of the same anchors by the same rules (and, unless every
        // anchor was intact, over the same code index).
        std::unordered_map<std::string, FileHealthRow> kept;
        if (persist) try {
                for (auto& row : t.index->fileHealth())
                    if (row.rules == healthRules()) kept.emplace(row.path, std::move(row));
            } catch (const std::exception& e) {
                // An unreadable table only costs a count.
                logDropped("reading kept anchor health", e);
            }
        std::map<std::string, Tier::FileHealth> listed;
        for (auto& p : t.index->anchorPaths()) {
            auto it = t.health.find(p.path);
            Tier::FileHealth h = it != t.health.end() ? std::move(it->second) : Tier::FileHealth{};
            if (h.changes != p.changes) h.counted = false;
            h.changes = p.changes;
            if (!h.counted)
                if (auto k = kept.find(p.path); k != kept.end() && k->second.changes == p.changes) {
                    const FileHealthRow& row = k->second;
                    bool intact = row.drifted + row.moved + row.orphaned + row.unjudged == 0;
                    if (intact || row.codeGeneration == codeGeneration) {
                        h.counts = {int32_t(row.intact), int32_t(row.drifted), int32_t(row.moved),
                                    int32_t(row.orphaned), int32_t(row.unjudged)};
                        h.notJudged.reset();
                        if (auto reasons = decodeNotJudged(row.notJudged); !reasons.empty())
                            h.notJudged = std::make_unique<NotJudged>(std::move(reasons));
                        h.allIntact = intact;
                        h.codeChanges = code;
                        h.key = hashKey(row.contentKey);
                        h.document = false;
                        h.counted = true;
                        h.stale = false; // not reported changed: its key is compared below
                    }
                }
            listed.emplace(p.path, std::move(h));
        }
        t.health = std::move(listed);
        t.healthGeneration = generation;
    }
    auto recount = [&](const std::string& path, Tier::FileHealth& h, uint64_t code) {
        h.counts = {};
        h.notJudged.reset();
        h.codeChanges = code;
        h.counted = true;
        for (auto rowid : t.index->anchoredIn(path, 1 << 30)) {
            auto ic = t.index->byRowid(rowid);
            if (!ic || ic->claim.status != ClaimStatus::Committed) continue;
            for (auto& a : ic->claim.anchors) {
                if (a.path != path) continue;
                auto chk = anchorer_.check(a, ic->claim.id);
                const std::string& s = chk.state;
                if (s == "intact") {
                    ++h.counts.intact;
                } else if (s == "drifted") {
                    ++h.counts.drifted;
                } else if (s == "moved") {
                    ++h.counts.moved;
                } else if (s == "unjudged") {
                    ++h.counts.unjudged;
                    if (!h.notJudged) h.notJudged = std::make_unique<NotJudged>();
                    h.notJudged->add(chk.reason);
                } else {
                    ++h.counts.orphaned;
                }
            }
        }
        h.allIntact =
            h.counts.drifted + h.counts.moved + h.counts.orphaned + h.counts.unjudged == 0;
    };
    std::vector<FileHealthRow> write; // counts taken now, kept for the next process
    for (auto& [path, h] : t.health) {
        bool look = h.stale || !h.watched || !h.counted ||
                    (!h.allIntact && h.codeChanges != code) || anchorer_.hasDocument(path) ||
                    h.document;
        if (look) {
            // Watched before it is looked at: a change after the look is
            // then always reported.
            h.watched = treeWatch_ && treeWatch_->watchPath(path);
            std::string key = anchorer_.contentKey(path);
            // A reported change is recounted whatever the key says: a
            // rewrite can keep the size and put the mtime back. A count
            // taken from the index is judged by its key, as git judges its
            // index's entries by their stat.
            bool current = h.counted && !h.stale && !key.empty() && h.key == hashKey(key) &&
                           (h.allIntact || h.codeChanges == code);
            if (!current) {
                recount(path, h, code);
                if (persist && lastingKey(key))
                    write.push_back({path, h.changes, key, codeGeneration, healthRules(),
                                     h.counts.intact, h.counts.drifted, h.counts.moved,
                                     h.counts.orphaned, h.counts.unjudged,
                                     h.notJudged ? encodeNotJudged(*h.notJudged) : ""});
            }
            h.key = hashKey(key);
            h.document = isDocumentKey(key);
            // Within the racy window the key proves nothing: look again.
            h.stale = key.empty();
        }
        total.intact += h.counts.intact;
        total.drifted += h.counts.drifted;
        total.moved += h.counts.moved;
        total.orphaned += h.counts.orphaned;
        total.unjudged += h.counts.unjudged;
        if (notJudged && h.notJudged) notJudged->add(*h.notJudged);
    }
    if (!write.empty()) try {
            t.index->putFileHealth(write);
        } catch (const std::exception& e) {
            // A read-only or full index: the next process counts again.
            logDropped("keeping anchor health in the index", e);
        }
}

void Engine::applyTreeChanges() {
    if (!treeWatch_) return;
    auto changes = treeWatch_->drain();
    if (changes.paths.empty() && changes.trees.empty()) return;
    for (auto& t : tiers_.own()) {
        for (auto& p : changes.paths)
            if (auto it = t->health.find(p); it != t->health.end()) it->second.stale = true;
        for (auto& tree : changes.trees) {
            if (tree.empty()) {
                for (auto& [_, h] : t->health)
                    h.stale = true;
                continue;
            }
            if (auto it = t->health.find(tree); it != t->health.end()) it->second.stale = true;
            std::string prefix = tree + "/";
            for (auto it = t->health.lower_bound(prefix);
                 it != t->health.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
                it->second.stale = true;
        }
    }
}

} // namespace engram
