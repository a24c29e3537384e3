// An orphaned anchor's likely successor: the definition its code most likely
// lives on in, renamed and edited at once. Private to engine/.
//
// A rename alone is `moved` (the shape, which leaves the own name out, is
// unchanged), and an edit alone is `drifted`. Both at once leave neither
// digest to follow, so the anchor is orphaned, and rightly so: the claim
// must not be served as fresh. But "gone" is not the whole truth, and a
// reader re-anchoring the claim wants to know where to look. The anchor's
// digests cannot say how alike two pieces of code are, so the code it was
// stamped on is read from git: the newest of the file's last few versions
// (committed, or HEAD's when the edit is not committed yet) that holds a
// definition of the anchor's name and digest. Its tokens are compared with
// those of each definition of the same kind that the file did not have then
// (a name that existed before is some other definition, not this one's
// successor), both own names counted as one token, and the best is asked the other
// way round: no other definition the file had may be as alike it.
//
// A hint, not a verdict: the anchor stays orphaned; its finding names the
// successor, and `reverify`, the act of a reader who checked the claim
// against it, follows it. Asked by check (and so the editor's diagnostics),
// reverify, and the judging scans of instruction files (a reference to a
// definition renamed and edited is dangling, its successor named): recall,
// get, hover, packets and the hook run no process for it.
// ARCHITECTURE.md, "Likely successors", gives the measured precision.
#pragma once
#include "model/Claim.h"
#include "syntax/Symbols.h"
#include "util/Process.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace engram {

// How alike two definitions must be, in tokens (0..1), for one to be named
// the other's successor; by how much the best must beat the next (two
// candidates nearly as alike are no answer); and how many tokens a
// definition needs for its tokens to tell it apart at all. The defaults
// are set from the corpus test's measurements (tests/corpus/SuccessorTest.cpp),
// which also tries others.
struct SuccessorRules {
    double likeness = 0.7;
    double margin = 0.1;
    size_t minTokens = 16;
};

// The tokens of code: runs of identifier characters (letters, digits, `_`,
// `$`, and every byte of a multi-byte character), and every other
// character that is not white space, alone.
std::vector<std::string_view> codeTokens(std::string_view code);

// How alike two token lists are, as bags (order left out), 0..1: twice the
// tokens they share over the tokens of both. On both sides, `ownA` and
// `ownB` (the definitions' own names) count as one token.
double tokenLikeness(const std::vector<std::string_view>& a, std::string_view ownA,
                     const std::vector<std::string_view>& b, std::string_view ownB);

struct SuccessorPick {
    size_t index = 0; // into `now`
    double likeness = 0;
};

// Of the definitions `now` (a file's as it is, text `nowText`), the one
// that most likely is `was` (a definition of `before`, the same file as it
// was, text `wasText`) renamed and edited: of the same kind, under a name
// `before` did not define, alike by at least rules.likeness and ahead of
// any other by rules.margin; and no other definition of `before` may be as
// alike it as `was` is (a look-alike renamed while `was` was deleted is that
// look-alike, and a copy of one is new code). Nullopt when none is, or
// `was` is too small to tell (under rules.minTokens tokens).
std::optional<SuccessorPick> likelySuccessor(size_t was, const std::vector<syntax::Symbol>& before,
                                             std::string_view wasText,
                                             const std::vector<syntax::Symbol>& now,
                                             std::string_view nowText,
                                             const SuccessorRules& rules = {});

// The code anchors were stamped on, read from git: the file's versions in
// its last few commits, newest first.
class FormerCode {
public:
    explicit FormerCode(std::string root)
        : root_(std::move(root)) {}

    struct Version {
        std::string text;
        std::vector<syntax::Symbol> symbols;
    };
    struct Found {
        std::shared_ptr<const Version> file;
        size_t index = 0; // the anchored definition, in file->symbols
    };
    // The definition `a` (a symbol anchor) was stamped on: the newest of the
    // file's versions in its last kVersions commits holding a definition of
    // its name and digest. Nullptr when none does, or git cannot say. Kept
    // for the process, until HEAD moves.
    const Found* stamped(const Anchor& a);
    // Ends the `git cat-file` process and forgets the versions read (the
    // answers stay, until the next session finds HEAD moved).
    void endSession() {
        objects_.reset();
        versions_.clear();
        headRead_ = false;
    }

    static constexpr int kVersions = 8;
    // Files whose history one HEAD's look may list (a `git log` each): a
    // refactoring that orphaned claims in thousands of files names no
    // successor past these rather than run thousands of processes.
    static constexpr int kFilesPerHead = 256;

private:
    std::string root_;
    std::string head_;      // HEAD when the answers below were found
    bool headRead_ = false; // in this session
    std::unique_ptr<GitObjectReader> objects_;
    std::unordered_map<std::string, std::optional<Found>> found_; // by path, symbol and hash
    // Per file: its last kVersions commits, newest first (none: git failed).
    std::unordered_map<std::string, std::vector<std::string>> commits_;
    // Versions read in this session, by "commit:path" (null: none there).
    std::unordered_map<std::string, std::shared_ptr<const Version>> versions_;
    std::shared_ptr<const Version> version(const std::string& commit, const std::string& path);
};

} // namespace engram
