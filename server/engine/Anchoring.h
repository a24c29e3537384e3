// Resolving anchors against the workspace and judging their state.
//
// Three kinds of anchor: a symbol (a definition found with tree-sitter,
// hashed blind to formatting), a line range and a whole file (both hashed
// blind to white space). The Anchorer owns a small cache of parsed files
// keyed by their contents, so showing twenty claims on one file parses it
// once.
#pragma once
#include "engine/Rederive.h"
#include "engine/Renames.h"
#include "engine/Successor.h"
#include "index/Index.h"
#include "model/Claim.h"
#include "model/Requests.h"
#include "syntax/Symbols.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace engram {

// Anchored files are read up to this size: a larger one (generated, or a
// hostile clone's) is not read at all.
inline constexpr size_t kMaxAnchoredFileBytes = 16u << 20;

struct AnchorCheck {
    // intact | drifted | moved | orphaned | unjudged (not known: a file past
    // the size engram reads, no grammar, digest rules other than this
    // engram's that could not be re-derived from git)
    std::string state;
    std::string reason;             // unjudged: why (model/NotJudged.h), explained in `note`
    std::optional<Anchor> current;  // the anchor as it would be re-stamped now (not when orphaned)
    std::string movedTo;            // for moved: the symbol's current qualified name
    std::optional<TextRange> range; // where the anchored code is now (not when orphaned)
    // Drifted because the anchored definition can no longer be told apart
    // from same-named ones: each candidate as "name (kind, line N)". There
    // is then no `current` and no `range`: engram will not guess.
    std::vector<std::string> ambiguous;
    // Why, when the state alone would mislead (an anchor written by an
    // earlier engram whose digest differed), and why an anchor is unjudged.
    std::string note;
    // Judged by re-deriving a stamp of earlier rules: the commit whose code
    // it was derived from (engine/Rederive.h).
    std::string stampCommit;
    // Found unchanged by a kept earlier version of the digest rules (the
    // one that stamped it, or, for an anchor that records none, the first
    // that reproduces it): that version; `current` is the anchor today's
    // rules stamp there.
    int keptRules = 0;
};

// An orphaned anchor's likely successor in its file (engine/Successor.h).
struct SuccessorHint {
    Anchor anchor;      // the successor as it would be stamped now
    std::string symbol; // its qualified name
    TextRange range;    // where it is, columns in bytes
    double likeness = 0;
};

class Anchorer {
public:
    explicit Anchorer(std::string root)
        : root_(std::move(root)) {}

    // Throws EngramError OutsideRoot / AnchorNotFound (listing candidates) /
    // InvalidParams, naming `field`.
    Anchor resolve(const AnchorSpec& spec, const std::string& field);
    // The anchor judged by today's digest rules alone.
    AnchorCheck check(const Anchor& a);
    // A claim's anchor: as check(a), except that an anchor stamped by other
    // rules whose digest today's rules do not reproduce is judged by
    // re-deriving its stamp from the commit that made it (while a
    // HistoryScope is open, or as an earlier scope found it), else unjudged.
    AnchorCheck check(const Anchor& a, const std::string& claimId);
    // The worst state over a claim's anchors; "unanchored" when it has none.
    // With `places`, also where each anchor's code is now, in anchor order.
    std::string claimState(const Claim& c, std::vector<AnchorPlace>* places = nullptr);
    // What makes two anchors one: the definition they find now, told apart
    // the way check() tells it apart (an overload's head, a twin's place), so
    // claims on `Gson()` and on `Gson(Excluder, ...)` are on two anchors
    // although both are written `Gson.Gson`. An anchor that finds nothing
    // (orphaned, ambiguous) is known by what it recorded: name, kind, head
    // and place. `checked` is check(a), when the caller has it already.
    std::string identity(const Anchor& a, const AnchorCheck* checked = nullptr);
    // For a symbol anchor check() finds orphaned: the definition of its file
    // that most likely is its code renamed and edited (engine/Successor.h).
    // Reads git, so only while a HistoryScope is open; nullopt otherwise.
    std::optional<SuccessorHint> successor(const Anchor& a);
    // The path git says `rel` was renamed to (engine/Renames.h). Reads git,
    // so only while a HistoryScope is open; nullopt otherwise.
    std::optional<std::string> renamedTo(const std::string& rel);

    // While one lives, check(a, claimId) may run git (one `git log` per
    // process and HEAD, one `git cat-file --batch` per scope) to re-derive
    // stamps of earlier rules. What it finds is kept for the process, so a
    // later check without a scope (recall, hover, a keystroke) uses it
    // without running anything.
    class HistoryScope {
    public:
        explicit HistoryScope(Anchorer& a);
        ~HistoryScope();
        HistoryScope(const HistoryScope&) = delete;
        HistoryScope& operator=(const HistoryScope&) = delete;

    private:
        Anchorer& a_;
    };

    // While one lives, each file is read at most once (one request's
    // answer: every anchor in one file judged against one reading of it;
    // ten rows anchored in one file used to read it twenty times).
    class ReadScope {
    public:
        explicit ReadScope(Anchorer& a)
            : a_(a) {
            ++a_.readScopes_;
        }
        ~ReadScope() {
            if (--a_.readScopes_ == 0) {
                a_.read_.clear();
                a_.confined_.clear();
            }
        }
        ReadScope(const ReadScope&) = delete;
        ReadScope& operator=(const ReadScope&) = delete;

    private:
        Anchorer& a_;
    };

    // Open documents: an editor's unsaved text replaces the file on disk for
    // every check until the document is closed. Edits re-parse
    // incrementally. Paths are workspace-relative.
    void openDocument(const std::string& rel, std::string text);
    // Replaces bytes [startByte, oldEndByte) of an open document.
    void editDocument(const std::string& rel, uint32_t startByte, uint32_t oldEndByte,
                      std::string_view newText);
    void replaceDocument(const std::string& rel, std::string text);
    void closeDocument(const std::string& rel);
    // What checking the anchors in `rel` reads, as a key that changes
    // whenever that text may have: the open document's revision, else the
    // file's mtime, size and inode ("missing" when there is none). Empty
    // when the file changed too recently for its stat to tell a later
    // same-size write apart (within one tick of the file-system clock).
    std::string contentKey(const std::string& rel);
    // The open document's text, or nullptr.
    const std::string* documentText(const std::string& rel) const;
    // Whether the editor holds `rel` open (its text is the document's).
    bool hasDocument(const std::string& rel) const {
        return open_.count(rel) || openPlain_.count(rel);
    }
    // Where else in the workspace a definition with this shape exists (the
    // code index); lets check() follow a symbol that moved to another file.
    void setShapeLookup(std::function<std::vector<CodeSymbol>(const std::string&)> lookup) {
        shapeLookup_ = std::move(lookup);
    }
    // The innermost definition at a 0-based (line, byte column), if any.
    std::optional<syntax::Symbol> symbolAt(const std::string& rel, uint32_t line, uint32_t column);

private:
    struct CachedFile {
        uint64_t revision = 0; // open documents: the edit count this view reflects
        std::string text;
        std::string language; // empty: no grammar
        std::vector<syntax::Symbol> symbols;
        syntax::Spans unreadable; // code the parser could not read
        // Per former name: the symbols' shapes with that name masked too
        // (formerShapes), parallel to `symbols`; filled on demand, dropped
        // with the text.
        mutable std::unordered_map<std::string, std::vector<std::string>> masked;
        // Per range anchor's digest and line count: the first line of the one
        // place in the text that holds those lines unchanged (0: none, or
        // more than one); filled on demand (shiftedRange), dropped with the
        // text.
        mutable std::unordered_map<std::string, int> shifted;
        // Per kept earlier version of the digest rules: the symbols that
        // version extracts; filled on demand (byKeptRules), dropped with the
        // text.
        mutable std::unordered_map<int, std::vector<syntax::Symbol>> kept;
    };
    // nullptr when the file is missing or outside the root.
    bool tooLarge(const std::string& rel) const; // past the size engram reads
    const CachedFile* load(const std::string& relPath);
    // From disk, through cache_, the file's stat taken.
    const CachedFile* loadFile(const std::string& rel, const FileStat& st);
    // relPath as confined to the root (relativeToRoot), kept per ReadScope.
    std::optional<std::string> confined(const std::string& relPath);
    // The anchored symbol in another file (same shape and kind), if any.
    std::optional<AnchorCheck> findElsewhere(const Anchor& a);
    // The shapes of a file's symbols taken with `formerName` masked as
    // their own names are (syntax::extractSymbols), parallel to its symbols.
    static const std::vector<std::string>& formerShapes(const CachedFile& f,
                                                        const std::string& formerName);
    // Where a line-range anchor's lines are now when lines above them came
    // or went: the first line of the one window of as many lines with its
    // digest, nullopt when there is none or more than one.
    static std::optional<int> shiftedRange(const CachedFile& f, const Anchor& a);
    static constexpr size_t kShiftBudget = size_t(1) << 20;
    // A line-range anchor's lines in a file: its own, or, when those do not
    // hold its text (changed, or past the file's end), the one window that
    // holds it unchanged (shiftedRange).
    struct PlacedRange {
        Anchor at;                            // the anchor, with the lines found
        std::optional<std::string_view> text; // nullopt: past the end, found nowhere
        std::string digest;                   // of `text`
        bool shifted = false;                 // found in another window
    };
    static PlacedRange placeRange(const CachedFile& f, const Anchor& a);
    // An anchor whose file is gone, judged in the file git says it was
    // renamed to (only while a HistoryScope is open): moved when its
    // definition or text is there unchanged, drifted when not.
    std::optional<AnchorCheck> renamedFile(const Anchor& a);
    // A symbol anchor stamped by a kept earlier version of the digest rules
    // (or by none recorded), judged by those rules: intact when they find
    // its definition unchanged; `plain` (today's verdict) when the version
    // that stamped it finds it changed; nullopt when no kept version tells.
    std::optional<AnchorCheck> byKeptRules(const Anchor& a, const AnchorCheck& plain);

    std::string root_;
    std::unordered_map<std::string, CachedFile> cache_;
    std::unordered_map<std::string, syntax::Document> open_;
    std::unordered_map<std::string, std::string> openPlain_; // open files without a grammar
    std::unordered_map<std::string, CachedFile> overlay_;    // views of the open documents
    std::function<std::vector<CodeSymbol>(const std::string&)> shapeLookup_;
    std::unordered_map<std::string, uint64_t> revisions_; // edits per open document
    // Stamps of earlier rules re-derived, by claim and stamp, for the
    // process's life (a failed one again once HEAD moved).
    const Rederived* rederived(const std::string& claimId, const Anchor& a);
    std::unique_ptr<StampHistory> history_;
    std::unique_ptr<FormerCode> former_;  // successor(): the code anchors were stamped on
    std::unique_ptr<GitRenames> renames_; // renamedFile(): where git says files went
    int historyScopes_ = 0;
    int readScopes_ = 0;
    std::unordered_map<std::string, const CachedFile*> read_; // ReadScope: files read in it
    // ReadScope: each anchor path as confined to the root (a realpath, one
    // syscall per path component, once per path rather than once per anchor).
    std::unordered_map<std::string, std::optional<std::string>> confined_;
    std::unordered_map<std::string, Rederived> rederived_;
};

// The anchor a definition would be given now.
Anchor symbolAnchor(const std::string& path, const std::string& language, const syntax::Symbol& s);

// Counts the places whose anchors were not judged, by reason.
void addNotJudged(NotJudged& n, const std::vector<AnchorPlace>& places);

// The anchor as people name it: `PATH#SYMBOL`, `PATH:START-END` or `PATH`.
std::string anchorName(const Anchor& a);

// An anchor's identity from what it recorded alone (name, kind, head, place
// among twins), for anchors that cannot be looked up in this workspace.
std::string recordedIdentity(const Anchor& a);

// The whitespace-blind digest used by file and range anchors.
std::string textDigest(std::string_view text);

} // namespace engram
