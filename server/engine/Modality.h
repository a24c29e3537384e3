// Contradictions between two claims about one thing: "callers must check
// .ok" against "callers must not check .ok", "retries are 3" against
// "retries are 5", "returns None when the key is missing" against "raises
// KeyError when the key is missing".
//
// Used where two claims speak about the same thing (the same anchor or the
// same label): contribute flags a contribution that contradicts a committed
// claim, and findings publish engram.conflict for two live claims that do.
// These are cheap lexical tests, not understanding. Each rule stays only
// while its precision on the labelled set fixtures/contradictions/pairs.tsv
// is 0.95 or better (tests/unit/ContradictionTest.cpp; ARCHITECTURE.md
// "Contradiction rules"), so each asks for the same words around the point
// of disagreement and misses paraphrases rather than crying wolf.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

struct ModalityConflict {
    std::string modal;    // must, can, is, do, will, always; "number"; "returns"
    std::string positive; // the phrase of the first text ("must check ok", "retries are 3")
    std::string negative; // the phrase of the second ("must not check ok", "retries are 5")
    std::string rule;     // the rule that found it: modality, number or outcome
};

// Modality: one statement said with opposite polarity, word for word
// otherwise ("is thread-safe" / "is not thread-safe", "can throw" / "never
// throws", "may be modified" / "must not be modified"). `positive` is the
// affirming phrase, `negative` the denying one.
std::optional<ModalityConflict> contradiction(std::string_view a, std::string_view b);

// Number: one quantity given two values ("timeout defaults to 30 s" /
// "the default timeout is 60 seconds"): the same measured words, the same
// unit dimension ("30 s" is "30000 ms"), the same bound (exact, at most, at
// least) and the same conditions. Line numbers, versions, dates, ids and
// ordinal labels ("claim 13", "step 2", "PR #123") are not quantities.
std::optional<ModalityConflict> numberClash(std::string_view a, std::string_view b);

// Outcome: under the same condition one says returns X, the other raises Y
// (or blocks, or returns something else): "returns None when the key is
// missing" / "raises KeyError when the key is missing".
std::optional<ModalityConflict> outcomeClash(std::string_view a, std::string_view b);

struct ContradictionRule {
    std::string_view name;
    std::optional<ModalityConflict> (*test)(std::string_view, std::string_view);
};

// The rules kept (each measured at precision 0.95 or better), in the order
// contradicts tries them.
const std::vector<ContradictionRule>& contradictionRules();

// The first contradiction any kept rule finds between a and b, or nullopt.
std::optional<ModalityConflict> contradicts(std::string_view a, std::string_view b);

} // namespace engram
