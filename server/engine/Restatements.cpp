// The live claims a new claim probably says again or says otherwise, for
// remember's answer: corrections should replace what they correct, not pile
// up beside it (README, "Memory that stays out of the way").
#include "engine/Anchoring.h"
#include "engine/Engine.h"
#include "engine/Modality.h"
#include "engine/Tier.h"
#include "text/Content.h"
#include "util/Utf8.h"

#include <algorithm>
#include <map>
#include <set>

namespace engram {

namespace {

// A restatement shares at least this share of its words (text/Content.h,
// wordOverlap). On the labelled pairs of fixtures/contradictions, claims
// about one definition that say different things reach it one time in ten
// or fewer; paraphrases reach it one time in four. Reported as probable,
// for the writer to judge.
constexpr double kRestates = 0.7;
// Claims that do not share an anchor are held to one subject by their
// words before a contradiction rule is asked (the rules assume one).
constexpr double kSameSubject = 0.5;
constexpr size_t kMostRelated = 5;
// The recall that finds candidates reads the new text's start, by its own
// words alone: a restatement shares most of them, and remember stays a
// cheap write (each query word is an index lookup).
constexpr size_t kQueryBytes = 400;

} // namespace

std::vector<Claim> Engine::claimsOnDefinitions(Tier& t, const std::vector<Anchor>& anchors) {
    std::vector<Claim> out;
    std::set<std::string> seen;
    for (auto& a : anchors) {
        // One definition, as anchoring tells definitions apart (overloads,
        // twins), not by the written path#symbol.
        std::string key = anchorer_.identity(a);
        for (auto rowid : t.index->anchoredIn(a.path, 400)) {
            auto ic = t.index->byRowid(rowid);
            if (!ic || seen.count(ic->claim.id)) continue;
            for (auto& oa : ic->claim.anchors)
                if (anchorer_.identity(oa) == key) {
                    seen.insert(ic->claim.id);
                    out.push_back(ic->claim);
                    break;
                }
        }
    }
    return out;
}

std::vector<RelatedClaim> Engine::probablyRelated(Tier& t, const Claim& c) {
    // Candidates: claims on one of its definitions (as anchoring tells them
    // apart), then those the new text itself recalls.
    std::map<std::string, std::pair<Claim, bool>> cands; // id -> (claim, same anchor)
    for (auto& other : claimsOnDefinitions(t, c.anchors))
        if (other.status == ClaimStatus::Committed)
            cands.insert_or_assign(other.id, std::make_pair(other, true));
    RecallRequest rr;
    rr.query = std::string(utf8Prefix(c.text, kQueryBytes));
    rr.tier = t.name;
    rr.limit = 6; // the new claim itself is one of the rows
    rr.instructionParagraphs = false;
    rr.counted = false;
    rr.relatedWords = false;
    rr.readDates = false; // "since last week" in a claim is a word of it
    for (auto& row : recall(rr).rows) {
        cands.try_emplace(row.claim.id, std::make_pair(row.claim, false));
        // Recall folds near duplicates into one row; each is a candidate.
        for (auto& id : row.nearDuplicates)
            if (auto ic = t.index->byId(id))
                cands.try_emplace(id, std::make_pair(ic->claim, false));
    }

    const TermSet mine = termSet(c.text);
    std::vector<std::pair<double, RelatedClaim>> found;
    for (auto& [id, entry] : cands) {
        auto& [other, sameAnchor] = entry;
        if (id == c.id || !other.live()) continue;
        TermSet otherTerms = termSet(other.text);
        double overlap = wordOverlap(mine, otherTerms);
        RelatedClaim r{other.id, other.label, "", "", other.text};
        if (sameAnchor || overlap >= kSameSubject)
            if (auto m = contradicts(c.text, other.text)) {
                r.relation = "contradicts";
                r.why = "\"" + m->positive + "\" against \"" + m->negative + "\" (" + m->rule +
                        " rule)";
            }
        if (r.relation.empty() && overlap >= kRestates &&
            sameNumbersAndPolarity(mine, otherTerms)) {
            r.relation = "restates";
            r.why = std::to_string(int(overlap * 100 + 0.5)) + "% of their words in common" +
                    (sameAnchor ? ", on the same definition" : "");
        }
        if (r.relation.empty()) continue;
        // Contradictions first, then the closest wording.
        found.emplace_back((r.relation == "contradicts" ? 2.0 : 0.0) + overlap, std::move(r));
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<RelatedClaim> out;
    for (auto& [score, r] : found)
        if (out.size() < kMostRelated) out.push_back(std::move(r));
    return out;
}

} // namespace engram
