// The claims-directory watch (see ClaimsWatch.h).
#include "lsp/ClaimsWatch.h"
#include "lsp/UvHandle.h"

#include "lsp/Log.h"
#include "util/Fs.h"

namespace engram::lsp {

namespace {

// How long the directory must stay quiet before the changes are read.
constexpr uint64_t kQuietMs = 50;

} // namespace

ClaimsWatch::ClaimsWatch(uv_loop_t* loop, std::string dir, OnChange onChange)
    : loop_(loop)
    , dir_(std::move(dir))
    , onChange_(std::move(onChange)) {}

ClaimsWatch::~ClaimsWatch() {
    stop();
}

bool ClaimsWatch::start() {
    if (event_) return false;
    if (!statFile(dir_)) return false; // the first write creates it; tried again later
    event_ = new uv_fs_event_t;
    uv_fs_event_init(loop_, event_);
    event_->data = this;
    int rc = uv_fs_event_start(
        event_,
        [](uv_fs_event_t* h, const char* name, int, int status) {
            static_cast<ClaimsWatch*>(h->data)->onEvent(name, status);
        },
        dir_.c_str(), 0);
    if (rc != 0) {
        logLine("cannot watch " + dir_ + ": " + uv_strerror(rc));
        closeHandle(event_);
        return false;
    }
    timer_ = new uv_timer_t;
    uv_timer_init(loop_, timer_);
    timer_->data = this;
    return true;
}

void ClaimsWatch::stop() {
    if (event_) uv_fs_event_stop(event_);
    if (timer_) uv_timer_stop(timer_);
    closeHandle(event_);
    closeHandle(timer_);
    ids_.clear();
    full_ = false;
}

void ClaimsWatch::onEvent(const char* name, int status) {
    std::string n = name ? name : "";
    if (status < 0 || n.empty())
        full_ = true;
    else if (n.size() > 3 && n.compare(n.size() - 3, 3, ".md") == 0)
        ids_.insert(n.substr(0, n.size() - 3));
    else
        return; // temporary files of atomic writes
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
