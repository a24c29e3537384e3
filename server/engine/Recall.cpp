// Recall: tier-scoped retrieval with bounded candidate scoring.
//
// Ranking is BM25F over the claim's fields (label, tags, code anchors, text)
// computed here rather than by FTS5's `ORDER BY rank`, because ranking every
// row that holds a common term costs time proportional to the store. Instead
// the rarest query terms pick candidates first (their rows are few and
// decisive); common terms only fill the remaining budget with their newest
// rows. At most kCandidateCap rows are ever scored, whatever the store size.
// The text relevance is then weighed with confidence, recency, feedback and
// closeness to the file in focus.
#include "engine/Anchoring.h"
#include "engine/Engine.h"
#include "engine/Tier.h"
#include "model/Error.h"
#include "text/Tokenize.h"
#include "util/Paths.h"
#include "util/Time.h"
#include "util/Utf8.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace engram {

namespace {

constexpr int kCandidateCap = 400;
constexpr int kMaxLimit = 200;
constexpr double kK1 = 1.2, kB = 0.75;
// Field weights: a label or tag names what a claim is about; the text says it.
constexpr double kWeightLabel = 3.0, kWeightTags = 2.0, kWeightCode = 2.0, kWeightText = 1.0;

struct QueryTerm {
    std::string term;
    int64_t df = 0;
    double idf = 0;
};

// Term frequencies of the query's terms in one field.
std::unordered_map<std::string, int> termCounts(std::string_view field,
                                                const std::unordered_set<std::string>& wanted) {
    std::unordered_map<std::string, int> tf;
    if (field.empty()) return tf;
    text::tokenize(field, [&](const text::Token& t) {
        if (wanted.count(t.term)) ++tf[t.term];
    });
    return tf;
}

double lengthNorm(size_t len, double avg) {
    return 1.0 - kB + kB * double(len) / avg;
}

} // namespace

RecallResult Engine::recall(const RecallRequest& req) {
    if (req.limit < 1 || req.limit > kMaxLimit)
        throw invalidField("limit", "must be between 1 and " + std::to_string(kMaxLimit));
    if (req.maxChars && *req.maxChars < 1) throw invalidField("max_chars", "must be positive");
    if (req.query) {
        if (auto bad = firstInvalidUtf8(*req.query))
            throw invalidField("query", "is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
    }
    if (req.tier && *req.tier != "project" && *req.tier != "medulla")
        throw invalidField("tier", "must be 'project' or 'medulla' (or absent for both)");
    std::optional<std::string> focusPath;
    if (req.path) {
        focusPath = relativeToRoot(opts_.root, *req.path);
        if (!focusPath)
            throw EngramError(ErrorKind::OutsideRoot,
                              "path: '" + *req.path + "' is outside the workspace root " +
                                  opts_.root,
                              {{"field", std::string("path")}});
    }

    RecallResult result;
    result.envelope = envelope("engram/recall", req.root);
    if (result.envelope.binding.mismatch) return result;

    std::vector<std::string> queryTerms;
    if (req.query) {
        std::unordered_set<std::string> seen;
        for (auto& t : text::terms(*req.query))
            if (seen.insert(t).second) queryTerms.push_back(t);
    }
    std::unordered_set<std::string> wanted(queryTerms.begin(), queryTerms.end());
    auto statusAllowed = [&](ClaimStatus s) {
        return s == ClaimStatus::Committed ||
               std::find(req.include.begin(), req.include.end(), s) != req.include.end();
    };
    auto kindAllowed = [&](const std::string& k) {
        return req.kinds.empty() ||
               std::find(req.kinds.begin(), req.kinds.end(), k) != req.kinds.end();
    };

    int64_t now = nowUnix();
    int64_t candidates = 0;
    std::vector<RecallRow> rows;
    for (auto& tp : tiers_) {
        Tier& t = *tp;
        if (req.tier && *req.tier != t.name) continue;
        if (!ready(t)) continue;
        auto st = t.index->stats();
        MemoryExists me{t.name, st.committed, st.frontier + st.retracted + st.superseded};
        result.memoryExists.push_back(me);

        // Candidate generation, bounded.
        std::vector<QueryTerm> qterms;
        double n = double(std::max<int64_t>(st.total, 1));
        for (auto& term : queryTerms) {
            QueryTerm q{term, t.index->docFrequency(term), 0};
            q.idf = std::log(1.0 + (n - double(q.df) + 0.5) / (double(q.df) + 0.5));
            qterms.push_back(q);
        }
        std::sort(qterms.begin(), qterms.end(),
                  [](const QueryTerm& a, const QueryTerm& b) { return a.df < b.df; });
        std::vector<int64_t> rowids;
        std::unordered_set<int64_t> have;
        auto add = [&](const std::vector<int64_t>& ids) {
            for (auto id : ids)
                if (have.insert(id).second) rowids.push_back(id);
        };
        if (focusPath) add(t.index->anchoredIn(*focusPath, kCandidateCap / 4));
        if (!qterms.empty()) {
            for (auto& q : qterms) {
                int room = kCandidateCap - int(rowids.size());
                if (room <= 0) break;
                if (q.df > 0) add(t.index->match(q.term, room));
            }
        } else {
            // No query: the newest claims (of the allowed statuses) in order.
            if (req.include.empty())
                add(t.index->recent(ClaimStatus::Committed, kCandidateCap));
            else
                add(t.index->recent(std::nullopt, kCandidateCap));
        }
        candidates += int64_t(rowids.size());

        for (auto rowid : rowids) {
            auto ic = t.index->byRowid(rowid);
            if (!ic || !statusAllowed(ic->claim.status) || !kindAllowed(ic->claim.kind)) continue;
            const Claim& c = ic->claim;
            RecallRow row;
            double relevance = 1.0;
            if (!qterms.empty()) {
                std::string tags;
                for (auto& tg : c.tags)
                    tags += tg + " ";
                auto tfLabel = termCounts(c.label, wanted);
                auto tfText = termCounts(c.text, wanted);
                auto tfTags = termCounts(tags, wanted);
                auto tfCode = termCounts(ic->code, wanted);
                relevance = 0;
                int matched = 0;
                for (auto& q : qterms) {
                    double w =
                        kWeightLabel * tfLabel[q.term] / lengthNorm(c.label.size(), st.avgLabel) +
                        kWeightText * tfText[q.term] / lengthNorm(c.text.size(), st.avgText) +
                        kWeightTags * tfTags[q.term] / lengthNorm(tags.size(), st.avgTags) +
                        kWeightCode * tfCode[q.term] / lengthNorm(ic->code.size(), st.avgCode);
                    if (w <= 0) continue;
                    ++matched;
                    relevance += q.idf * w / (kK1 + w);
                    std::string where = tfLabel[q.term]  ? "label"
                                        : tfTags[q.term] ? "tags"
                                        : tfCode[q.term] ? "anchor"
                                                         : "text";
                    row.why.push_back("matched '" + q.term + "' in " + where);
                }
                if (matched == 0) continue;
                // Rows that cover more of the query beat rows that repeat one term.
                relevance *= 0.5 + 0.5 * double(matched) / double(qterms.size());
            }
            double conf = c.confidence.value_or(0.5);
            double prior = 0.6 + 0.4 * conf;
            int64_t since = c.verified.value_or(c.updated.value_or(c.created.value_or(now)));
            double ageDays = double(std::max<int64_t>(0, now - since)) / 86400.0;
            double recency = 1.0 + 0.2 * std::exp(-ageDays / 60.0);
            double feedback = (2.0 + c.feedback.correct + 0.5 * c.feedback.partial) /
                              (2.0 + c.feedback.wrong + 0.5 * c.feedback.partial);
            double focus = 1.0;
            if (focusPath)
                for (auto& a : c.anchors)
                    if (a.path == *focusPath) focus = 1.5;
            row.score = relevance * prior * recency * feedback * focus;
            if (focus > 1.0) row.why.push_back("anchored in " + *focusPath);
            if (c.feedback.correct || c.feedback.wrong)
                row.why.push_back("feedback +" + std::to_string(c.feedback.correct) + "/-" +
                                  std::to_string(c.feedback.wrong));
            if (qterms.empty()) row.why.push_back("recent");
            row.claim = c;
            row.tier = t.name;
            if (c.created) {
                row.ageSeconds = now - *c.created;
                int64_t fresh = c.verified.value_or(*c.created);
                row.stale = now - fresh > int64_t(opts_.staleDays) * 86400;
            }
            rows.push_back(std::move(row));
        }
    }
    result.envelope.observed.candidates = candidates;

    std::sort(rows.begin(), rows.end(), [](const RecallRow& a, const RecallRow& b) {
        if (a.score != b.score) return a.score > b.score;
        return a.claim.id < b.claim.id;
    });
    size_t chars = 0;
    for (auto& r : rows) {
        if (int(result.rows.size()) >= req.limit) {
            result.truncated = true;
            break;
        }
        size_t len = utf8Length(r.claim.text);
        if (req.maxChars && chars + len > size_t(*req.maxChars)) {
            result.truncated = true;
            break;
        }
        chars += len;
        // Drift is never silent: each returned row carries its anchor state.
        r.anchorState = claimAnchorState(opts_.root, r.claim);
        result.rows.push_back(std::move(r));
    }

    int64_t live = 0;
    for (auto& me : result.memoryExists)
        live += me.live;
    if (result.rows.empty()) {
        if (live == 0) {
            result.whyEmpty =
                "no live claims exist in the " +
                std::string(req.tier ? *req.tier + " tier" : "project or medulla tiers");
        } else {
            result.whyEmpty =
                std::to_string(live) + " live claim" + (live == 1 ? "" : "s") +
                " exist, but none matched" +
                (req.query ? " the query '" + *req.query + "'" : std::string()) +
                (req.kinds.empty() ? "" : " with the requested kinds") +
                (queryTerms.empty() && req.query ? " (it holds only stop words)" : "");
            result.envelope.trustMode = "retrieval_needs_recovery";
            result.envelope.nextSuggested = "engram/recall";
            std::vector<std::pair<std::string, std::string>> args;
            if (queryTerms.size() > 1) args.emplace_back("query", queryTerms.front());
            result.envelope.recovery = {
                "engram/recall", args,
                queryTerms.size() > 1
                    ? "retry with fewer, more distinctive words, or without a query to list the "
                      "newest claims"
                    : "retry without a query to list the newest claims, or with other words"};
        }
    }
    return result;
}

} // namespace engram
