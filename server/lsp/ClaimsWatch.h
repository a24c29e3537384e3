// Watching one store's claims directory for changes made by anything but
// this server (git, a person's editor, the CLI, another engram).
//
// The directory's ClaimWatcher (store/ClaimWatcher.h: inotify, in two
// stages on a large directory) is polled by the loop; the ids of the claim
// files that changed are collected and the callback fires once the burst is
// over (a `git checkout` touches many files at once). The watch owns its
// two libuv handles; they are closed when it stops or is destroyed, and
// freed by libuv afterwards, so no callback can reach a watch that is gone.
#pragma once
#include "store/ClaimWatcher.h"

#include <functional>
#include <optional>
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
    bool watching() const { return watcher_.watching(); }
    // Adds in-place writes to a watch started in stages. True when that
    // changed the watch (the caller re-checks the files).
    bool completeWatch() { return watcher_.completeWatch(); }
    const std::string& dir() const { return dir_; }
    // Whether every change the watch saw since it started is in the index
    // (Engine::vouchForClaims): reads what the kernel queued; false while a
    // burst waits for its callback, nullopt once events were lost (or the
    // callback said a sync failed: lost()) or nothing is watched.
    std::optional<bool> quiet();
    // Runs the callback now for a burst still waiting (before exiting).
    void flush();
    // The changes handed to the callback did not all reach the index.
    void lost() { lost_ = true; }

private:
    void onReadable();
    void onQuiet();

    uv_loop_t* loop_;
    std::string dir_;
    OnChange onChange_;
    ClaimWatcher watcher_;
    uv_poll_t* poll_ = nullptr;
    uv_timer_t* timer_ = nullptr;
    std::set<std::string> ids_;
    bool full_ = false;
    bool lost_ = false; // since it started: an overflow, or a failed sync
};

} // namespace engram::lsp
