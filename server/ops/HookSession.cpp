// The claims a hook session was given (ops/HookSession.h).
//
// The file: a first line naming the format and the workspace, then one
// line per claim given, oldest first: "<id> <version>:<anchor state>".
// Written to a temporary file and renamed into place, without a sync: a
// list lost in a crash costs a claim given twice, nothing more.
#include "ops/HookSession.h"

#include "util/Fs.h"
#include "util/Hash.h"
#include "util/Lines.h"
#include "util/Time.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <unistd.h>
#include <vector>

namespace engram::ops {

namespace {

constexpr const char* kHeader = "engram-hook-session 1";

} // namespace

HookSession::HookSession(std::string dir, const std::string& root, const std::string& id)
    : dir_(std::move(dir)) {
    if (dir_.empty() || id.empty()) return;
    path_ = joinPath(dir_, sha256Hex(root + '\0' + id).substr(0, 32));
    header_ = std::string(kHeader) + " " + root;
    auto text = readFile(path_);
    if (!text) {
        fresh_ = true;
        return;
    }
    bool first = true;
    forEachLine(*text, [&](std::string_view line, int) {
        if (first) {
            first = false;
            // Another format, or another workspace behind a colliding name:
            // start anew.
            if (line != header_) next_ = UINT64_MAX;
            return;
        }
        if (next_ == UINT64_MAX) return;
        auto fields = splitFields(line, ' ');
        if (fields.size() != 2 || fields[0].empty()) return;
        given_[fields[0]] = {fields[1], next_++};
    });
    if (next_ == UINT64_MAX) {
        given_.clear();
        next_ = 0;
    }
}

bool HookSession::given(const std::string& claimId, const std::string& state) const {
    auto it = given_.find(claimId);
    return it != given_.end() && it->second.first == state;
}

void HookSession::give(const std::string& claimId, const std::string& state) {
    if (!active()) return;
    given_[claimId] = {state, next_++};
    changed_ = true;
}

void HookSession::forget() {
    if (!active() || given_.empty()) return;
    given_.clear();
    changed_ = true;
}

void HookSession::save() {
    if (!active() || !changed_) return;
    try {
        makeDirs(dir_);
        // The newest kMaxGiven, in the order given.
        std::vector<std::pair<uint64_t, const std::string*>> order;
        for (auto& [id, v] : given_)
            order.push_back({v.second, &id});
        std::sort(order.begin(), order.end());
        size_t from = order.size() > kMaxGiven ? order.size() - kMaxGiven : 0;
        std::string out = header_ + "\n";
        for (size_t i = from; i < order.size(); ++i)
            out += *order[i].second + " " + given_[*order[i].second].first + "\n";
        std::string tmp = path_ + ".tmp" + std::to_string(::getpid());
        {
            std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
            f << out;
            if (!f) throw FsError("cannot write " + tmp);
        }
        if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
            removeFile(tmp);
            return;
        }
        // Sessions idle past kIdleSeconds go; past kMaxSessions, the oldest.
        // Swept when a session starts its file, not on every prompt: a
        // prompt reads one file and writes one.
        if (!fresh_) return;
        std::vector<std::pair<int64_t, std::string>> files;
        const int64_t now = nowUnix();
        for (auto& name : listFiles(dir_)) {
            std::string p = joinPath(dir_, name);
            auto st = statFile(p);
            if (!st) continue;
            int64_t mtime = st->mtimeNs / 1000000000;
            if (now - mtime > kIdleSeconds)
                removeFile(p);
            else
                files.push_back({mtime, p});
        }
        if (files.size() > kMaxSessions) {
            std::sort(files.begin(), files.end());
            for (size_t i = 0; i + kMaxSessions < files.size(); ++i)
                if (files[i].second != path_) removeFile(files[i].second);
        }
    } catch (const std::exception&) {
        // A session list that cannot be written: claims may be given twice.
    }
}

} // namespace engram::ops
