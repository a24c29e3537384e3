// Words that mean the same thing in code and in talk about code: the
// abbreviations identifiers and prompts use ("cfg", "db", "repo") and the
// other words people use for one act or thing ("undo" a release that a
// claim calls a "rollback", "sign in" for "login").
//
// Recall adds a query's related terms at a lower weight than its own words
// (engine/Recall.cpp), so a claim worded otherwise is still found while one
// holding the prompt's own words ranks first. The table is small and hand
// curated for software; each group earned its place on the labelled prompts
// in bench/recall/ (paraphrases most of all). A general lexicon (WordNet)
// was measured there and lost: its senses are everyday English ("float" is
// "drift", "ship" is "transport"), and it lowered MRR@10 on both splits.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace engram::text {

struct Expansion {
    std::string term; // a term as tokenize() gives it (lower-case, stemmed)
    // The query's own terms it stands for: the word it is related to, or the
    // words of the phrase ("sign in") that named it, stop words left out.
    std::vector<std::string> of;
    bool phrase = false; // found by a phrase of the query, not by one word
};

// The related terms of a query's words and phrases, each once, none the
// query holds itself, at most `max` (the first found first: the query's
// order). `own`: the query's terms, as text::terms gave them to the caller
// (not worked out again). A phrase is found whatever its stop words ("log
// in", "sign in").
std::vector<Expansion> relatedTerms(std::string_view query, const std::vector<std::string>& own,
                                    size_t max);

} // namespace engram::text
