// inotify on the directories leading to watched files (see TreeWatch.h).
#include "util/TreeWatch.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <sys/inotify.h>
#include <unistd.h>

namespace engram {

namespace {

// Everything that can change a file's bytes, its identity or its presence,
// and a directory's own rename or removal.
constexpr uint32_t kMask = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE |
                           IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

std::string join(const std::string& dir, std::string_view name) {
    return dir.empty() ? std::string(name) : dir + "/" + std::string(name);
}

} // namespace

TreeWatch::TreeWatch(std::string root)
    : root_(std::move(root))
    , fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}

bool TreeWatch::watchDir(const std::string& rel) {
    if (dirs_.count(rel)) return true;
    std::string abs = rel.empty() ? root_ : root_ + "/" + rel;
    int wd = ::inotify_add_watch(fd_.get(), abs.c_str(), kMask);
    if (wd < 0) return false;
    dirs_[rel] = wd;
    wds_[wd].push_back(rel);
    return true;
}

bool TreeWatch::watchPath(const std::string& relPath) {
    if (!fd_ || relPath.empty() || relPath[0] == '/') return false;
    std::string dir;
    size_t at = 0;
    while (true) {
        if (!watchDir(dir)) {
            // The directory is missing (or not one): its parent is watched
            // (the root is checked first), so its creation is reported.
            return !dir.empty() && (errno == ENOENT || errno == ENOTDIR);
        }
        size_t slash = relPath.find('/', at);
        if (slash == std::string::npos) return true;
        std::string_view part(relPath.data() + at, slash - at);
        if (part.empty() || part == "." || part == "..") return false; // not normalised
        dir = relPath.substr(0, slash);
        at = slash + 1;
    }
}

void TreeWatch::forgetTree(const std::string& rel) {
    auto drop = [&](std::map<std::string, int>::iterator it) {
        int wd = it->second;
        auto& names = wds_[wd];
        names.erase(std::remove(names.begin(), names.end(), it->first), names.end());
        if (names.empty()) {
            wds_.erase(wd);
            ::inotify_rm_watch(fd_.get(), wd);
        }
        return dirs_.erase(it);
    };
    if (rel.empty()) {
        while (!dirs_.empty())
            drop(dirs_.begin());
        return;
    }
    if (auto it = dirs_.find(rel); it != dirs_.end()) drop(it);
    std::string prefix = rel + "/";
    for (auto it = dirs_.lower_bound(prefix);
         it != dirs_.end() && it->first.compare(0, prefix.size(), prefix) == 0;)
        it = drop(it);
}

TreeWatch::Changes TreeWatch::drain() {
    Changes out;
    if (!fd_) return out;
    alignas(inotify_event) char buf[64 * (sizeof(inotify_event) + NAME_MAX + 1)];
    while (true) {
        ssize_t n = ::read(fd_.get(), buf, sizeof buf);
        if (n <= 0) break; // EAGAIN: nothing more queued
        for (char* p = buf; p < buf + n;) {
            auto* ev = reinterpret_cast<inotify_event*>(p);
            p += sizeof(inotify_event) + ev->len;
            if (ev->mask & IN_Q_OVERFLOW) {
                out.overflow = true;
                continue;
            }
            auto w = wds_.find(ev->wd);
            if (w == wds_.end()) continue; // a watch already forgotten
            std::vector<std::string> dirs = w->second;
            if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT)) {
                // The directory itself went (or moved away): what was under
                // its name is unknown now, and its watches point elsewhere.
                for (auto& d : dirs) {
                    out.trees.push_back(d);
                    forgetTree(d);
                }
                continue;
            }
            if (ev->len == 0) continue; // the directory's own attributes
            std::string_view name(ev->name);
            for (auto& d : dirs) {
                std::string path = join(d, name);
                if (ev->mask & IN_ISDIR) {
                    // A directory under a watched one created, removed or
                    // renamed: watches under its old name point elsewhere.
                    if (ev->mask & (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)) {
                        forgetTree(path);
                        out.trees.push_back(path);
                    }
                } else {
                    out.paths.push_back(std::move(path));
                }
            }
        }
    }
    if (out.overflow) {
        // Lost events: start again from nothing.
        forgetTree("");
        out.trees.assign(1, "");
    }
    return out;
}

} // namespace engram
