// Anchors stamped by other digest rules than this engram's, re-derived from
// the commit that stamped them.
//
// A symbol anchor's digests depend on the rules that took them
// (syntax::kDigestRules). An anchor written before versions were recorded,
// whose hash today's rules do not reproduce, may be unchanged code digested
// differently, or changed code: its digests alone cannot say which. Git can:
// the commit that added the anchor's stamp to its claim file holds the code
// it was stamped on. That code, digested with today's rules, is the anchor
// as today's engram would have written it; compared with today's code, it
// is the verdict. See ARCHITECTURE.md "Digest versions".
//
// What git is asked, and when: one `git log -p` over the claims directory
// (per process, again when HEAD moves) finds the newest commit that added
// each stamp, and one `git cat-file --batch` reads the anchored files at
// those commits. Only while a history scope is open (Anchorer::readHistory):
// the hot paths (recall, hover, a keystroke, a prompt) run no process.
#pragma once
#include "model/Claim.h"
#include "syntax/Symbols.h"
#include "util/Process.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace engram {

struct Rederived {
    // The stamp as today's rules would have written it on the stamped code;
    // none when it cannot be re-derived (then `reason` says why).
    std::optional<Anchor> anchor;
    std::string commit; // the commit whose code it was derived from, when one was found
    std::string reason;
};

// A file as a commit had it, with its definitions under today's rules.
struct CommittedFile {
    std::string language;
    std::vector<syntax::Symbol> symbols;
};

// Which of `symbols` (a file as the stamp's commit had it, extracted with
// today's rules) the anchor `a`, written by other rules, was stamped on:
// the definitions of its name (and kind); of several, the one its hash,
// tokens or head still tell apart, else the one at its place among as many
// twins; a name today's rules no longer give is looked up as a suffix
// (`LruCache::fmt` finds `<LruCache as fmt::Display>::fmt`). Nullopt with
// `why` when no definition, or no single one, is it.
std::optional<size_t> stampedDefinition(const std::vector<syntax::Symbol>& symbols, const Anchor& a,
                                        std::string& why);

// The commit HEAD names, read from git's files (no process); empty outside
// git and before the first commit.
std::string headCommit(const std::string& root);

class StampHistory {
public:
    explicit StampHistory(std::string root)
        : root_(std::move(root)) {}

    // The anchor `a` of claim `claimId` re-derived from the commit that
    // stamped it. Reads git (see above); the caller caches the answer.
    Rederived rederive(const std::string& claimId, const Anchor& a);
    // Whether HEAD moved since the stamps were listed: a claim committed
    // since may now be re-derived.
    bool headMoved() const;
    // Ends the cat-file process and forgets the files read (the listing of
    // stamps stays until HEAD moves).
    void endSession();

private:
    bool listStamps();
    const CommittedFile* fileAt(const std::string& commit, const std::string& path);

    std::string root_;
    bool listed_ = false, available_ = false;
    std::string head_; // HEAD when the stamps were listed
    // "<claim id>\t<path>\t<hash>" -> the newest commit adding that stamp.
    std::unordered_map<std::string, std::string> stamps_;
    std::set<std::string> shallow_; // a shallow clone's boundary commits
    std::unique_ptr<GitObjectReader> objects_;
    // By commit and path (null: none there), pointing into parsed_.
    std::unordered_map<std::string, const CommittedFile*> files_;
    std::unordered_map<std::string, CommittedFile> parsed_; // by language and content digest
};

} // namespace engram
