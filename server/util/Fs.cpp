// POSIX implementation of the durable file primitives.
#include "util/Fs.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace engram {

FsError::FsError(const std::string& message, const std::string& path, int err)
    : EngramError(ErrorKind::Storage, message) {
    if (!path.empty()) details.emplace_back("path", path);
    if (const char* name = err != 0 ? strerrorname_np(err) : nullptr)
        details.emplace_back("errno", std::string(name));
}

static FsError sysError(const std::string& what, const std::string& path) {
    int err = errno;
    return FsError(what + " " + path + ": " + std::strerror(err), path, err);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.release();
    }
    return *this;
}

UniqueFd::~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
}

int UniqueFd::release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
}

FileLock::FileLock(const std::string& path)
    : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (!fd_) throw sysError("cannot open lock file", path);
    while (::flock(fd_.get(), LOCK_EX) != 0) {
        if (errno != EINTR) throw sysError("cannot lock", path);
    }
    // The lock is released when fd_ closes.
}

std::optional<std::string> readFile(const std::string& path, FileStat* stat, ReadLimit limit) {
    // O_NONBLOCK: opening a FIFO someone committed must not wait for a
    // writer. Only regular files are read: a FIFO, a device or a directory
    // under a claim's name reads as absent (errno EINVAL), never blocks.
    UniqueFd fd(::open(path.c_str(),
                       O_RDONLY | O_CLOEXEC | O_NONBLOCK | (limit.followLinks ? 0 : O_NOFOLLOW)));
    if (!fd) return std::nullopt;
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return std::nullopt;
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return std::nullopt;
    }
    if (stat)
        *stat = FileStat{int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                         int64_t(st.st_size), uint64_t(st.st_ino)};
    // Read straight into the string, one byte past the expected size so the
    // end is seen in the same call; a file that grew meanwhile reads on, up
    // to one byte past the limit (so the caller sees it was exceeded).
    const size_t cap = limit.maxBytes == SIZE_MAX ? SIZE_MAX : limit.maxBytes + 1;
    std::string out(std::min(st.st_size > 0 ? size_t(st.st_size) + 1 : 16384, cap), '\0');
    size_t have = 0;
    for (;;) {
        if (have == out.size()) {
            if (out.size() >= cap) break;
            out.resize(std::min(out.size() * 2, cap));
        }
        ssize_t n = ::read(fd.get(), out.data() + have, out.size() - have);
        if (n < 0) {
            if (errno == EINTR) continue;
            return std::nullopt;
        }
        if (n == 0) break;
        have += size_t(n);
    }
    out.resize(have);
    return out;
}

bool readLines(const std::string& path, size_t maxLine,
               const std::function<bool(const FileLine&)>& fn) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd) return false;
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return false;
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return false;
    }
    std::string buf(64 * 1024, '\0'), line;
    FileLine l;
    bool pending = false; // bytes of an unfinished line were seen
    auto hand = [&] {
        l.text = line;
        ++l.number;
        bool more = fn(l);
        line.clear();
        l.cut = pending = false;
        return more;
    };
    for (;;) {
        ssize_t n = ::read(fd.get(), buf.data(), buf.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (n == 0) break;
        std::string_view chunk(buf.data(), size_t(n));
        while (!chunk.empty()) {
            size_t nl = chunk.find('\n');
            std::string_view part = chunk.substr(0, nl);
            size_t room = maxLine - std::min(maxLine, line.size());
            if (part.size() > room) l.cut = true;
            line.append(part.substr(0, room));
            pending = true;
            if (nl == std::string_view::npos) break;
            if (!hand()) return true;
            chunk.remove_prefix(nl + 1);
        }
    }
    if (pending) {
        l.terminated = false;
        hand();
    }
    return true;
}

static void writeAll(int fd, std::string_view data, const std::string& path) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            throw sysError("cannot write", path);
        }
        data.remove_prefix(size_t(n));
    }
}

std::string parentDir(const std::string& path) {
    auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

void fsyncDir(const std::string& dir) {
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd) throw sysError("cannot open directory", dir);
    if (::fsync(fd.get()) != 0) throw sysError("cannot fsync directory", dir);
}

void fsyncFile(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) throw sysError("cannot open", path);
    if (::fdatasync(fd.get()) != 0) throw sysError("cannot fsync", path);
}

void atomicWrite(const std::string& path, std::string_view contents) {
    // The temporary name is unique per process and call so that concurrent
    // writers never share one; a leftover ".tmp-" file after a crash is never
    // read as a claim (readers only take "*.md").
    static unsigned counter = 0;
    std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
    {
        UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
        if (!fd) throw sysError("cannot create", tmp);
        try {
            writeAll(fd.get(), contents, tmp);
            if (::fsync(fd.get()) != 0) throw sysError("cannot fsync", tmp);
        } catch (...) {
            ::unlink(tmp.c_str());
            throw;
        }
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        auto err = sysError("cannot rename onto", path);
        ::unlink(tmp.c_str());
        throw err;
    }
    fsyncDir(parentDir(path));
}

static void appendTo(const std::string& path, std::string_view contents, bool sync) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    if (!fd) throw sysError("cannot open", path);
    // A failed append is taken back, so a refused act leaves no line (or
    // half a line) behind. Writers of one file hold its store's lock.
    struct stat st;
    off_t before = ::fstat(fd.get(), &st) == 0 ? st.st_size : -1;
    try {
        writeAll(fd.get(), contents, path);
        if (sync && ::fdatasync(fd.get()) != 0) throw sysError("cannot fsync", path);
    } catch (...) {
        if (before >= 0 && ::ftruncate(fd.get(), before) == 0 && sync) ::fdatasync(fd.get());
        throw;
    }
}

void appendDurable(const std::string& path, std::string_view contents) {
    appendTo(path, contents, true);
}

void appendFile(const std::string& path, std::string_view contents) {
    appendTo(path, contents, false);
}

void makeDirs(const std::string& path) {
    if (path.empty()) return;
    // Most calls find the directory there: one stat, no mkdir of parents
    // that exist (which a failing disk could refuse).
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return;
    std::string cur;
    size_t pos = 0;
    while (pos != std::string::npos) {
        pos = path.find('/', pos + 1);
        cur = path.substr(0, pos);
        if (cur.empty() || (::stat(cur.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) continue;
        if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
            throw sysError("cannot create directory", cur);
    }
}

std::optional<FileStat> statFile(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    return FileStat{int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                    int64_t(st.st_size), uint64_t(st.st_ino)};
}

std::optional<FileStat> statEntry(const std::string& path) {
    if (auto st = statFile(path)) return st;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return std::nullopt;
    return FileStat{int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                    int64_t(st.st_size), uint64_t(st.st_ino)};
}

std::vector<std::string> listFiles(const std::string& dir) {
    std::vector<std::string> out;
    for (auto& e : listEntries(dir))
        out.push_back(std::move(e.name));
    return out;
}

std::vector<DirEntry> listEntries(const std::string& dir) {
    std::vector<DirEntry> out;
    DIR* d = ::opendir(dir.c_str());
    if (!d) return out;
    while (auto* e = ::readdir(d)) {
        // Every kind of entry is listed: a FIFO, a device or a directory
        // where a file is expected is for the reader to refuse and report
        // (readFile reads regular files only), not to vanish unseen.
        if (e->d_name[0] == '.') continue;
        out.push_back({e->d_name, uint64_t(e->d_ino)});
    }
    ::closedir(d);
    return out;
}

bool removeFile(const std::string& path) {
    return ::unlink(path.c_str()) == 0;
}

std::string joinPath(std::string_view a, std::string_view b) {
    std::string out(a);
    if (!out.empty() && out.back() != '/') out += '/';
    out += b;
    return out;
}

} // namespace engram
