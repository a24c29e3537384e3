// The claims-directory watch (see ClaimsWatch.h).
#include "lsp/ClaimsWatch.h"
#include "lsp/UvHandle.h"

#include "util/Fs.h"
#include "util/Log.h"

#include <cerrno>
#include <cstring>

namespace engram::lsp {

namespace {

// How long the directory must stay quiet before the changes are read.
constexpr uint64_t kQuietMs = 50;

} // namespace

ClaimsWatch::ClaimsWatch(uv_loop_t* loop, std::string dir, OnChange onChange)
    : loop_(loop)
    , dir_(dir)
    , onChange_(std::move(onChange))
    , watcher_(std::move(dir)) {}

ClaimsWatch::~ClaimsWatch() {
    stop();
}

bool ClaimsWatch::start() {
    if (watcher_.watching()) return false;
    if (!statFile(dir_)) return false; // the first write creates it; tried again later
    if (!watcher_.start()) {
        logLine("cannot watch " + dir_ + ": " + std::strerror(errno));
        return false;
    }
    // After the directory was replaced the watcher starts again on the same
    // descriptor, still polled.
    if (poll_) return true;
    poll_ = new uv_poll_t;
    if (int rc = uv_poll_init(loop_, poll_, watcher_.fd()); rc != 0) {
        logLine("cannot watch " + dir_ + ": " + uv_strerror(rc));
        delete poll_;
        poll_ = nullptr;
        watcher_ = ClaimWatcher(dir_);
        return false;
    }
    poll_->data = this;
    uv_poll_start(poll_, UV_READABLE,
                  [](uv_poll_t* h, int, int) { static_cast<ClaimsWatch*>(h->data)->onReadable(); });
    timer_ = new uv_timer_t;
    uv_timer_init(loop_, timer_);
    timer_->data = this;
    return true;
}

void ClaimsWatch::stop() {
    if (poll_) uv_poll_stop(poll_);
    if (timer_) uv_timer_stop(timer_);
    closeHandle(poll_);
    closeHandle(timer_);
    watcher_ = ClaimWatcher(dir_); // closes the descriptor
    ids_.clear();
    full_ = false;
    lost_ = false; // a restart is followed by a start-up check (Folders.cpp)
}

std::optional<bool> ClaimsWatch::quiet() {
    if (!watcher_.watching() || lost_) return std::nullopt;
    onReadable();
    if (lost_) return std::nullopt;
    return ids_.empty() && !full_;
}

void ClaimsWatch::flush() {
    if (!watcher_.watching()) return;
    onReadable();
    if (ids_.empty() && !full_) return;
    if (timer_) uv_timer_stop(timer_);
    onQuiet();
}

void ClaimsWatch::onReadable() {
    auto changes = watcher_.drain();
    if (!changes.any()) return;
    full_ |= changes.full;
    lost_ |= changes.full; // what it missed is found by a scan, not vouched for
    ids_.insert(changes.ids.begin(), changes.ids.end());
    uv_timer_start(
        timer_, [](uv_timer_t* t) { static_cast<ClaimsWatch*>(t->data)->onQuiet(); }, kQuietMs, 0);
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
