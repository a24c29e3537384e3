// A claim store on disk: the truth that the index is derived from.
//
// Layout of a store directory (a project's `<root>/.engram/`, or the medulla):
//   store.conf          the store's name (committed; stable across clones)
//   claims/<id>.md      the current version of each claim (committed)
//   history/<id>.v<N>.<digest>.md earlier versions, never destroyed (committed;
//                       older engrams wrote history/<id>.v<N>.md, still read)
//   .gitattributes      names engram's merge driver for claim files
//   .gitignore          lists everything below that is derived or local
//   index.sqlite*       the derived SQLite index
//   audit.log           the local hash-chained log of every state change
//   lock                the writers' lock file
// The store knows files, not SQLite: Index (index/) is rebuilt from it.
#pragma once
#include "model/Claim.h"
#include "store/AuditLog.h"
#include "util/Fs.h"

#include <optional>
#include <string>
#include <vector>

namespace engram {

// A claim file's bytes: nullopt when absent; ClaimFileError (line 0) when it
// is over kMaxClaimFileBytes or not a regular file (a link is not followed).
std::optional<std::string> readClaimText(const std::string& path, FileStat* stat = nullptr);

class Store {
public:
    // `tier` is "project", "medulla" or "team"; `name` is the default store
    // name used when store.conf does not exist yet (the root's base name; a
    // team store's name).
    Store(std::string dir, std::string tier, std::string defaultName);

    const std::string& dir() const { return dir_; }
    const std::string& tier() const { return tier_; }
    const std::string& name() const { return name_; }
    // What `origin` says for claims born here: "project:<name>", "medulla" or
    // "team:<name>".
    std::string originLabel() const;
    bool exists() const;

    std::string claimsDir() const { return dir_ + "/claims"; }
    std::string historyDir() const { return dir_ + "/history"; }
    // The derived and local files (index, lock) live in the store unless it
    // cannot be written (relocateState).
    std::string indexPath() const { return stateDir_ + "/index.sqlite"; }
    std::string claimPath(const std::string& id) const;
    std::string historyPath(const Claim& c) const;

    // Temporary files interrupted writes left behind (a crash between
    // creating `<file>.tmp-<pid>-<n>` and renaming it): never read as claims,
    // but they pile up. Stale: its writer is no longer running and it is 10
    // seconds old, or it is an hour old (no write takes that long; the pid
    // may be another container's). In the store, claims and history.
    struct Temporaries {
        std::vector<std::string> stale; // paths
        int64_t inFlight = 0;           // of running writers, left alone
    };
    Temporaries temporaries() const;
    // Removes the stale ones; call with the lock held. Returns how many.
    int removeStaleTemporaries();

    // Creates the directories, store.conf and .gitignore on the first write.
    void ensureLayout();
    // Serialises writers across processes; hold it around read-check-write.
    FileLock lock();

    // A store engram cannot write to (a read-only file system, another
    // user's checkout) still answers: its index and lock move to `dir`
    // (under engram's home), built from the files, and every write is
    // refused. 0 when the store's own directory takes the lock file, else
    // the errno that refused it (EROFS, EACCES, EPERM).
    int probeWritable() const;
    // Throws a StorageError naming the store when it is read-only; every
    // write to it (layout, claim files, history) asks first.
    void requireWritable() const;
    void relocateState(std::string dir, int why) {
        stateDir_ = std::move(dir);
        readOnlyErrno_ = why;
    }
    // The errno that made the store read-only (0: it is not).
    int readOnlyErrno() const { return readOnlyErrno_; }
    bool readOnly() const { return readOnlyErrno_ != 0; }

    // Reads claims/<id>.md. nullopt when absent; throws ClaimFileError when
    // the file is broken.
    std::optional<Claim> load(const std::string& id) const;
    void write(const Claim& c);
    void writeHistory(const Claim& c);
    // Every stored version of the claim: history oldest first, then the
    // diverged versions a merge kept, then the current (live) one last.
    std::vector<Claim> versions(const std::string& id) const;

    AuditLog& audit() { return audit_; }

    // `language: .ext name` lines of store.conf (extension -> language;
    // "none" maps the extension to no grammar), and the config's problems
    // by line.
    // store.conf's `instructions:` globs.
    const std::vector<std::string>& instructionGlobs() const { return instructionGlobs_; }
    const std::vector<std::pair<std::string, std::string>>& languageMap() const {
        return languageMap_;
    }
    const std::vector<std::string>& configErrors() const { return configErrors_; }
    // store.conf's `stale_days:`, when it sets one.
    std::optional<int> staleDays() const { return staleDays_; }
    // store.conf's `teams:` (the team stores a project reads) and
    // `sync_minutes:` (how often a server fetches git-backed stores).
    const std::vector<std::string>& teams() const { return teams_; }
    std::optional<int> syncMinutes() const { return syncMinutes_; }

    static bool validId(std::string_view id);
    static std::string newId();

private:
    std::string dir_;
    std::string stateDir_; // dir_, or where a read-only store's index is kept
    int readOnlyErrno_ = 0;
    std::string tier_;
    std::string name_;
    AuditLog audit_;
    std::vector<std::pair<std::string, std::string>> languageMap_;
    std::vector<std::string> instructionGlobs_;
    std::vector<std::string> configErrors_;
    std::optional<int> staleDays_;
    std::vector<std::string> teams_;
    std::optional<int> syncMinutes_;
};

} // namespace engram
