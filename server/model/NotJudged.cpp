// What each reason for not judging means (model/NotJudged.h).
#include "model/NotJudged.h"

namespace engram {

std::string_view notJudgedExplanation(std::string_view reason) {
    using namespace not_judged;
    if (reason == kFileTooLarge)
        return "the anchored file is past the 16 MiB engram reads, so its code was not compared";
    if (reason == kNoGrammar)
        return "the anchored file's language has no grammar here (store.conf may map its "
               "extension to none), so its symbols cannot be found";
    if (reason == kNoCodeIndex)
        return "names in instruction files are looked up in the workspace's code index, which "
               "is not built yet (a server builds it in the background; engram check builds it)";
    if (reason == kShallowHistory)
        return "the commit that last changed the line is older than this shallow clone's "
               "history, so the line was judged against the clone's oldest commit only (fetch "
               "more history: git fetch --unshallow)";
    if (reason == kSearchBudget)
        return "finding where a name was defined when its line was written would search more "
               "of the history than one run allows; run engram check to judge the rest";
    if (reason == kEarlierRules)
        return "the anchor was stamped by an earlier engram's digest rules, which today's do not "
               "reproduce, and the code it was stamped on could not be read from git (the claim "
               "is not committed, or the clone is shallow); run engram init in a clone with the "
               "history to re-stamp it (then commit .engram/), or check the claim and re-verify "
               "it";
    if (reason == kNewerRules)
        return "the anchor was stamped by a newer engram's digest rules than this one's; "
               "upgrade engram to judge it";
    if (reason == kAmbiguousName)
        return "an instruction file's name names several definitions, so engram cannot tell "
               "which one the line means; write it qualified (Class.method) or as path#symbol";
    if (reason == kParseError)
        return "the anchored file holds code the parser cannot read (a syntax error, or code "
               "its grammar does not know) where the symbol's name is written, so whether the "
               "definition is still there cannot be told; it is judged again once that code "
               "parses";
    if (reason == kGitNotAsked)
        return "judging the reference needs what git says of its line (the commit that last "
               "changed it, or whether git ignores the path), which recall, packets and the hook "
               "never ask git on their way to an answer; engram check, engram status and an "
               "editor's open file ask it once, and it is kept for them";
    return "engram could not judge it";
}

} // namespace engram
