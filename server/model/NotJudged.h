// What engram could not judge, counted by why.
//
// A claim's anchor or an instruction file's reference is judged intact,
// drifted, moved, orphaned or dangling; when engram cannot tell (the file is
// past the size it reads, its language has no grammar, the history a line
// is judged against is not in the clone, a search budget ran out), it says
// so instead of staying silent, which a reader would take for "all is well".
// `engram check`'s summary, `engram/status` and the envelope carry these
// counts; the item itself carries the reason where it is shown.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace engram {

// Reasons, as stable ids (the wire carries them).
namespace not_judged {
inline constexpr std::string_view kFileTooLarge = "file_too_large";
inline constexpr std::string_view kNoGrammar = "no_grammar";
inline constexpr std::string_view kNoCodeIndex = "no_code_index";
inline constexpr std::string_view kShallowHistory = "shallow_history";
inline constexpr std::string_view kSearchBudget = "search_budget";
inline constexpr std::string_view kEarlierRules = "earlier_rules";
inline constexpr std::string_view kNewerRules = "newer_rules";
inline constexpr std::string_view kAmbiguousName = "ambiguous_name";
inline constexpr std::string_view kParseError = "parse_error";
inline constexpr std::string_view kGitNotAsked = "git_not_asked";
} // namespace not_judged

// One sentence saying what a reason means and what to do about it.
std::string_view notJudgedExplanation(std::string_view reason);

struct NotJudged {
    std::map<std::string, int64_t> byReason; // reason id -> count (no zeros)

    void add(std::string_view reason, int64_t n = 1) {
        if (n > 0) byReason[std::string(reason)] += n;
    }
    void add(const NotJudged& other) {
        for (auto& [r, n] : other.byReason)
            add(r, n);
    }
    int64_t total() const {
        int64_t t = 0;
        for (auto& [r, n] : byReason)
            t += n;
        return t;
    }
    bool empty() const { return byReason.empty(); }
};

} // namespace engram
