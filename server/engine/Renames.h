// Where git says a file went. Private to engine/.
//
// A line-range or whole-file anchor names text, not a definition, so a file
// renamed with its text unchanged left nothing to find it by: the anchor read
// orphaned (a warning that fails CI) for claims still true. Symbol anchors
// find their definition elsewhere by its shape in the code index, but not
// one edited in the same change. These ask git, which pairs a deleted path
// with an added one by their content: the
// renames staged in its index (`git mv`, or a rename added) and those
// committed in HEAD's last kCommits commits, followed from the oldest (a
// file renamed twice is found under its last name; a path added again or
// deleted after its rename is another file).
//
// Asked only where git may run (Anchorer::HistoryScope: check, and so the
// editor's diagnostics, and reverify), and only for an anchor whose file is
// gone. Two processes at most per HEAD and state of git's index: both are
// read again only when HEAD or the index file changed, which a stat and
// HEAD's files tell.
#pragma once
#include "util/Fs.h"

#include <optional>
#include <string>
#include <unordered_map>

namespace engram {

class GitRenames {
public:
    explicit GitRenames(std::string root)
        : root_(std::move(root)) {}

    // The path git says `path` was renamed to, followed through later
    // renames; nullopt when it knows none, or outside git. Paths are
    // relative to the root (git's --relative: a root below the repository's
    // top sees its own files only).
    std::optional<std::string> of(const std::string& path);
    // The next question looks at HEAD and the index again.
    void endSession() { looked_ = false; }

    static constexpr int kCommits = 200;

private:
    std::string root_;
    bool looked_ = false; // at HEAD and the index, in this session
    std::string head_;
    std::optional<FileStat> index_; // git's index file when `staged_` was read
    std::unordered_map<std::string, std::string> committed_, staged_;
};

} // namespace engram
