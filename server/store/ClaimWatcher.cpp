// inotify on a store's claims directory, drained on demand.
#include "store/ClaimWatcher.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <sys/inotify.h>
#include <unistd.h>

namespace engram {

namespace {

// Entries created, removed, renamed, and the directory itself; then writes
// in place, which cost a visit of every cached entry to set up.
constexpr uint32_t kEntryMask = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |
                                IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
constexpr uint32_t kWriteMask = IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB;

// Above this many bytes of directory (about 25,000 entries) the watch is
// staged (see ClaimWatcher.h). ENGRAM_WATCH_STAGED_BYTES overrides it (tests).
int64_t stagedWatchBytes() {
    if (const char* v = std::getenv("ENGRAM_WATCH_STAGED_BYTES"); v && *v) {
        char* end = nullptr;
        long long n = std::strtoll(v, &end, 10);
        if (end && *end == '\0' && n >= 0) return n;
    }
    return 1 << 20;
}

// A claim file's id, or empty for anything else (atomic writes' temporary
// files are named `<id>.md.tmp-*` and are never claims).
std::string claimId(std::string_view name) {
    constexpr std::string_view ext = ".md";
    if (name.size() <= ext.size() || name.substr(name.size() - ext.size()) != ext) return {};
    return std::string(name.substr(0, name.size() - ext.size()));
}

} // namespace

ClaimWatcher::ClaimWatcher(std::string claimsDir)
    : dir_(std::move(claimsDir)) {}

bool ClaimWatcher::start() {
    if (wd_ >= 0) return false;
    if (!fd_) {
        fd_ = UniqueFd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
        if (!fd_) return false; // no inotify: calls still see engram's own writes
    }
    auto st = statFile(dir_);
    complete_ = !st || st->size <= stagedWatchBytes();
    wd_ = ::inotify_add_watch(fd_.get(), dir_.c_str(), kEntryMask | (complete_ ? kWriteMask : 0));
    return wd_ >= 0;
}

bool ClaimWatcher::completeWatch() {
    if (wd_ < 0 || complete_) return false;
    complete_ = true;
    return ::inotify_add_watch(fd_.get(), dir_.c_str(), kEntryMask | kWriteMask) >= 0;
}

ClaimChanges ClaimWatcher::drain() {
    ClaimChanges out;
    if (!fd_ || wd_ < 0) return out;
    alignas(inotify_event) char buf[16 * (sizeof(inotify_event) + NAME_MAX + 1)];
    for (;;) {
        ssize_t n = ::read(fd_.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; // EAGAIN: nothing (more) queued
        for (char* p = buf; p < buf + n;) {
            auto* ev = reinterpret_cast<inotify_event*>(p);
            p += sizeof(inotify_event) + ev->len;
            if (ev->mask & IN_Q_OVERFLOW) {
                out.full = true;
            } else if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
                // The directory itself went away (a checkout may recreate
                // it): watch again when it is back.
                out.full = true;
                if (wd_ >= 0) ::inotify_rm_watch(fd_.get(), wd_);
                wd_ = -1;
            } else if (ev->len > 0) {
                std::string id = claimId(ev->name);
                if (!id.empty()) out.ids.insert(std::move(id));
            }
        }
        if (wd_ < 0) break;
    }
    return out;
}

} // namespace engram
