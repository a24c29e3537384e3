// Words a coding prompt uses whatever it is about: the verbs of a request
// ("add", "fix", "explain"), the nouns every program has ("function",
// "list", "string", "loop"), and everyday qualifiers ("faster", "unused").
//
// A claim matched on such words alone is not about the prompt's subject,
// however rare the word is in one store ("sort" may appear in one claim,
// and "sort this dictionary by value" is still not a question for memory).
// The hook's and packets' relevance floor weighs only a prompt's other
// words (engine/Recall.cpp, RecallRow::coverage); recall's ranking is not
// changed by it. The list is curated on the labelled prompts in
// bench/recall/ and kept short: a word that names a project's concern in
// its claims ("test", "error", "deploy", "cache", "api") is not on it.
#pragma once
#include <string_view>

namespace engram::text {

// Whether a term (lower-case and stemmed, as tokenize() gives it) is one of
// those words.
bool isGenericTerm(std::string_view term);

} // namespace engram::text
