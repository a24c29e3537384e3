// Watching one store's claims directory for changes made by anything but
// this server (git, a person's editor, the CLI, another engram).
//
// inotify on the directory, polled by the loop, collects the ids of the
// claim files that changed and fires the callback once the burst is over (a
// `git checkout` touches many files at once). The watch owns its two libuv
// handles; they are closed when it stops or is destroyed, and freed by libuv
// afterwards, so no callback can reach a watch that is gone.
//
// On a large directory the watch starts in two stages. Watching for
// in-place writes makes the kernel visit every cached entry of the
// directory while holding its lock (about 0.1 s at a million claim files,
// during which any lookup in it waits), so a large store is first watched
// for entries created, removed and renamed (what engram's atomic writes and
// git do), and the in-place writes are added by complete() once start-up is
// over; the caller then re-checks the files, so an in-place rewrite made in
// between is still seen.
#pragma once
#include "util/Fs.h"

#include <functional>
#include <set>
#include <string>
#include <uv.h>

namespace engram::lsp {

class ClaimsWatch {
public:
    // ids: the claims whose files changed; full: the event could not say
    // which (overflow, an error), so everything must be re-read.
    using OnChange = std::function<void(const std::set<std::string>& ids, bool full)>;

    ClaimsWatch(uv_loop_t* loop, std::string dir, OnChange onChange);
    ~ClaimsWatch();
    ClaimsWatch(const ClaimsWatch&) = delete;
    ClaimsWatch& operator=(const ClaimsWatch&) = delete;

    // Starts watching; false when the directory does not exist (yet), the
    // watch is already running, or inotify refused (logged).
    bool start();
    void stop();
    bool watching() const { return poll_ != nullptr; }
    // Whether in-place writes to claim files are reported too.
    bool complete() const { return complete_; }
    // Adds in-place writes to a watch started in stages (see above). True
    // when that changed the watch (the caller re-checks the files).
    bool completeWatch();
    const std::string& dir() const { return dir_; }

private:
    void onReadable();
    void onQuiet();

    uv_loop_t* loop_;
    std::string dir_;
    OnChange onChange_;
    UniqueFd fd_;
    bool complete_ = false;
    uv_poll_t* poll_ = nullptr;
    uv_timer_t* timer_ = nullptr;
    std::set<std::string> ids_;
    bool full_ = false;
};

} // namespace engram::lsp
