// How well the contradiction rules (Modality.h) do on a labelled set of claim
// pairs: precision and recall per rule, on the development and the held-out
// part. A rule earns its place by its measured precision (ARCHITECTURE.md, "Contradiction rules"),
// so the unit test and the benchmark both compute it here, from fixtures/contradictions/pairs.tsv.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace engram {

struct LabelledPair {
    int id = 0;
    bool held = false;       // in the held-out part: reported, never tuned to
    bool contradict = false; // the label: contradict, or compatible
    std::string category;    // number, modality, paraphrase, line-numbers, ...
    std::string a, b;        // the two claim texts
};

// The pairs of a set in the format its header describes (id, part, label,
// category, text a, text b; tab-separated; '#' comments). Throws
// std::runtime_error naming the line and the field on a malformed line.
std::vector<LabelledPair> parseLabelledPairs(std::string_view text);

struct RuleScore {
    std::string rule;          // a rule of contradictionRules(), or "all" for contradicts()
    std::string part;          // dev | held | all
    std::string category;      // empty, or the one category counted (rule "all", part "all")
    size_t pairs = 0;          // pairs counted
    size_t contradictions = 0; // of them, labelled contradict
    size_t fired = 0;          // pairs the rule called a contradiction
    size_t correct = 0;        // of those, labelled contradict
    std::vector<int> wrong;    // ids of pairs fired on but labelled compatible
    std::vector<int> missed;   // ids labelled contradict that the rule let pass

    // Fired pairs that are contradictions (1 when the rule never fired).
    double precision() const { return fired ? double(correct) / double(fired) : 1.0; }
    // Contradictions the rule found.
    double recall() const { return contradictions ? double(correct) / double(contradictions) : 0; }
};

// Every rule, and all of them together, on each part (dev, held, all); then
// all of them together on each category over the whole set.
std::vector<RuleScore> scoreRules(const std::vector<LabelledPair>& pairs);

// scoreRules' rows as a text table: one line per rule and part, then one
// per category (what the unit test and the benchmark print).
std::string scoreTable(const std::vector<RuleScore>& scores);

// The score of one rule on one part (or a category), from scoreRules' rows.
const RuleScore* findScore(const std::vector<RuleScore>& scores, std::string_view rule,
                           std::string_view part, std::string_view category = "");

} // namespace engram
