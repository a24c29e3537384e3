// File-system primitives with the durability engram promises.
//
// Invariant 8 (nothing acknowledged is lost) rests on atomicWrite: a claim
// file is written to a temporary sibling, fsynced, renamed over the target and
// the directory fsynced, so a crash leaves either the old or the new file and
// never a torn one. Every POSIX descriptor is owned by a UniqueFd.
#pragma once
#include "util/Error.h"
#include <cstdint>
#include <functional>
#include <optional>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

// A file system call that failed: a StorageError naming what was being
// done, the path and the errno ("cannot fsync directory /w/.engram/claims:
// No space left on device"), so a client can tell a full or read-only disk
// from a bug.
struct FsError : EngramError {
    explicit FsError(const std::string& message, const std::string& path = "", int err = 0);
};

class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd)
        : fd_(fd) {}
    UniqueFd(UniqueFd&& o) noexcept
        : fd_(o.release()) {}
    UniqueFd& operator=(UniqueFd&& o) noexcept;
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd();
    int get() const { return fd_; }
    int release();
    explicit operator bool() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

// An exclusive advisory lock (flock) on a lock file, held for the object's
// life. Serialises writers across engram processes sharing one store.
class FileLock {
public:
    explicit FileLock(const std::string& path);
    FileLock(FileLock&&) = default;

private:
    UniqueFd fd_;
};

struct FileStat {
    int64_t mtimeNs = 0;
    int64_t size = 0;
    uint64_t ino = 0; // a file replaced by a new one (git checkout, rename) has a new inode
};

// A file is as it was when `was` was taken: same mtime, size and (when
// known) inode.
inline bool sameFile(const std::optional<FileStat>& now, const FileStat& was) {
    return now && now->mtimeNs == was.mtimeNs && now->size == was.size &&
           (was.ino == 0 || now->ino == was.ino);
}

// What a read of a file someone else wrote may take: at most maxBytes + 1
// bytes (a longer result means the file is over the limit), and, without
// followLinks, not a symbolic link (nullopt, errno ELOOP): a link committed
// under a claim's name could point anywhere on the machine.
struct ReadLimit {
    size_t maxBytes = SIZE_MAX;
    bool followLinks = true;
};

// With `stat`, also the open file's own mtime, size and inode (one lookup
// of the path, and the stat describes exactly the file that was read).
// Only regular files are read (anything else is nullopt, errno EINVAL).
std::optional<std::string> readFile(const std::string& path, FileStat* stat = nullptr,
                                    ReadLimit limit = {});
// A file read line by line in bounded memory (a 64 KiB buffer and at most
// `maxLine` bytes of one line), for files that only grow: the audit log, the
// inboxes. A longer line is handed over cut to its first `maxLine` bytes,
// with `cut` set. `fn` returns false to stop. Only regular files, as
// readFile; false (errno set) when the file cannot be opened or read.
struct FileLine {
    std::string_view text; // without its '\n'
    int number = 0;        // from 1
    bool cut = false;
    bool terminated = true; // false for a last line without its '\n'
};
bool readLines(const std::string& path, size_t maxLine,
               const std::function<bool(const FileLine&)>& fn);
// Durable replace of path's contents (temp file + fsync + rename + dir fsync).
void atomicWrite(const std::string& path, std::string_view contents);
// Appends and fdatasyncs; used by the audit log.
void appendDurable(const std::string& path, std::string_view contents);
// O_APPEND without a sync: for statistics that may lose their last write.
void appendFile(const std::string& path, std::string_view contents);
void fsyncDir(const std::string& dir);
// The directory part of a path ("." when there is none).
std::string parentDir(const std::string& path);
// Flushes a file written without syncs (before it is renamed into place).
void fsyncFile(const std::string& path);
void makeDirs(const std::string& path);
std::optional<FileStat> statFile(const std::string& path);
// The entry itself when it is a symbolic link (a link to itself or to
// nothing is still an entry someone must hear about).
std::optional<FileStat> statEntry(const std::string& path);
// The names in dir (not recursive; every kind of entry but dot-files),
// unsorted; empty when dir is absent.
std::vector<std::string> listFiles(const std::string& dir);
// The same with each entry's inode, as the directory itself holds it (no
// stat per file: a listing of a million names costs one pass of getdents).
struct DirEntry {
    std::string name;
    uint64_t ino = 0;
};
std::vector<DirEntry> listEntries(const std::string& dir);
bool removeFile(const std::string& path);
std::string joinPath(std::string_view a, std::string_view b);

} // namespace engram
