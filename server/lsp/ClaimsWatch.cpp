// The claims-directory watch (see ClaimsWatch.h).
#include "lsp/ClaimsWatch.h"
#include "lsp/UvHandle.h"

#include "lsp/Log.h"
#include "util/Fs.h"
#include "util/TreeWatch.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <sys/inotify.h>
#include <unistd.h>

namespace engram::lsp {

namespace {

// How long the directory must stay quiet before the changes are read.
constexpr uint64_t kQuietMs = 50;

// Entries created, removed and renamed, and the directory itself: events of
// the directory, which cost the kernel nothing per entry to set up.
constexpr uint32_t kEntryMask = IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF |
                                IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR;
// In-place writes to the files in it (events on a child).
constexpr uint32_t kWriteMask = IN_ATTRIB | IN_MODIFY | IN_CLOSE_WRITE;
} // namespace

ClaimsWatch::ClaimsWatch(uv_loop_t* loop, std::string dir, OnChange onChange)
    : loop_(loop)
    , dir_(std::move(dir))
    , onChange_(std::move(onChange)) {}

ClaimsWatch::~ClaimsWatch() {
    stop();
}

bool ClaimsWatch::start() {
    if (poll_) return false;
    if (!statFile(dir_)) return false; // the first write creates it; tried again later
    fd_ = UniqueFd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    if (!fd_) {
        logLine("cannot watch " + dir_ + ": inotify_init1 failed");
        return false;
    }
    poll_ = new uv_poll_t;
    if (int rc = uv_poll_init(loop_, poll_, fd_.get()); rc != 0) {
        logLine("cannot watch " + dir_ + ": " + uv_strerror(rc));
        delete poll_;
        poll_ = nullptr;
        fd_ = UniqueFd();
        return false;
    }
    poll_->data = this;
    uv_poll_start(poll_, UV_READABLE,
                  [](uv_poll_t* h, int, int) { static_cast<ClaimsWatch*>(h->data)->onReadable(); });
    auto st = statFile(dir_);
    complete_ = !st || st->size <= stagedWatchBytes();
    if (::inotify_add_watch(fd_.get(), dir_.c_str(), kEntryMask | (complete_ ? kWriteMask : 0)) <
        0) {
        logLine("cannot watch " + dir_ + ": " + std::strerror(errno));
        uv_poll_stop(poll_);
        closeHandle(poll_);
        fd_ = UniqueFd();
        return false;
    }
    timer_ = new uv_timer_t;
    uv_timer_init(loop_, timer_);
    timer_->data = this;
    return true;
}

bool ClaimsWatch::completeWatch() {
    if (!poll_ || complete_) return false;
    complete_ = true;
    if (::inotify_add_watch(fd_.get(), dir_.c_str(), kEntryMask | kWriteMask) < 0) {
        logLine("cannot watch writes in " + dir_ + ": " + std::strerror(errno));
        return false;
    }
    return true;
}

void ClaimsWatch::stop() {
    if (poll_) uv_poll_stop(poll_);
    if (timer_) uv_timer_stop(timer_);
    closeHandle(poll_);
    closeHandle(timer_);
    fd_ = UniqueFd();
    complete_ = false;
    ids_.clear();
    full_ = false;
}

void ClaimsWatch::onReadable() {
    alignas(inotify_event) char buf[64 * (sizeof(inotify_event) + NAME_MAX + 1)];
    bool any = false;
    while (true) {
        ssize_t n = ::read(fd_.get(), buf, sizeof buf);
        if (n <= 0) break; // EAGAIN: drained
        for (char* p = buf; p < buf + n;) {
            auto* ev = reinterpret_cast<inotify_event*>(p);
            p += sizeof(inotify_event) + ev->len;
            std::string name = ev->len ? std::string(ev->name) : std::string();
            if (ev->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) ||
                name.empty()) {
                full_ = true;
                any = true;
            } else if (name.size() > 3 && name.compare(name.size() - 3, 3, ".md") == 0) {
                ids_.insert(name.substr(0, name.size() - 3));
                any = true;
            } // else: temporary files of atomic writes
        }
    }
    if (any)
        uv_timer_start(
            timer_, [](uv_timer_t* t) { static_cast<ClaimsWatch*>(t->data)->onQuiet(); }, kQuietMs,
            0);
}

void ClaimsWatch::onQuiet() {
    // Taken before the callback, which may restart or stop this watch.
    std::set<std::string> ids;
    ids.swap(ids_);
    bool full = full_;
    full_ = false;
    onChange_(ids, full);
}

} // namespace engram::lsp
