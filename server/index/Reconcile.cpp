// The listing and stat comparison behind start-up without a scan.
#include "index/Reconcile.h"

#include "index/Sqlite.h"

#include <algorithm>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <unordered_map>

namespace engram {

std::optional<DirMark> dirMark(const std::string& dir) {
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) return std::nullopt;
    return DirMark{uint64_t(st.st_ino),
                   int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

int64_t racyWindowNs(const DirMark& m) {
    // Twice the longest kernel tick (HZ=100) for nanosecond filesystems; a
    // whole-second mtime may come from a filesystem that rounds to 2 s.
    return m.mtimeNs % 1000000000 != 0 ? 20'000'000 : 2'000'000'000;
}

int64_t realtimeNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool settledListing(const std::optional<DirMark>& before, const std::optional<DirMark>& after,
                    int64_t startedNs) {
    return before && after && *before == *after &&
           before->mtimeNs <= startedNs - racyWindowNs(*before);
}

namespace {

struct Indexed {
    int64_t mtime = 0, size = 0;
    uint64_t ino = 0;
    bool listed = false; // written by one scanning thread per entry
};

} // namespace

ClaimsScan scanClaims(const std::string& indexPath, const std::string& claimsDir, bool statEvery,
                      std::atomic<int64_t>* checked, const std::atomic<bool>* cancel,
                      bool parallel) {
    ClaimsScan out;
    out.statEvery = statEvery;
    // Read the clock before the directory: a change after this moment gets
    // an mtime at or after the tick this moment falls in.
    int64_t startedNs = realtimeNs();
    // A missing directory lists as empty: every indexed claim is gone.
    auto before = dirMark(claimsDir);

    std::unordered_map<std::string, Indexed> indexed;
    try {
        sql::Db db(indexPath, false);
        // One snapshot for both tables.
        sql::Transaction tx(db, false);
        auto rows = db.prepare("SELECT count(*) FROM claims");
        if (rows.step()) indexed.reserve(size_t(rows.int64(0)) + 64);
        auto claims = db.prepare("SELECT id, file_mtime, file_size, file_ino FROM claims");
        while (claims.step())
            indexed.emplace(claims.text(0), Indexed{claims.int64(1), claims.int64(2),
                                                    uint64_t(claims.int64(3)), false});
        // Broken files are known too (by the name after claims/, minus .md).
        auto broken = db.prepare("SELECT file, file_mtime, file_size, file_ino FROM broken");
        while (broken.step()) {
            std::string_view f = broken.view(0);
            if (f.size() < 10 || f.substr(0, 7) != "claims/") continue;
            indexed.emplace(
                std::string(f.substr(7, f.size() - 10)),
                Indexed{broken.int64(1), broken.int64(2), uint64_t(broken.int64(3)), false});
        }
    } catch (const std::exception& e) {
        out.error = std::string("cannot read the index: ") + e.what();
        return out;
    }

    std::vector<DirEntry> entries = listEntries(claimsDir);
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [](const DirEntry& e) {
                                     return e.name.size() < 4 ||
                                            e.name.compare(e.name.size() - 3, 3, ".md") != 0;
                                 }),
                  entries.end());
    out.files = entries.size();

    // Compare: in slices, on up to four threads when every file is stat'ed
    // (the stat is the cost; the lookups are read-only).
    int dirFd = ::open(claimsDir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    auto compare = [&](size_t from, size_t to, std::vector<std::string>& changed) {
        for (size_t i = from; i < to; ++i) {
            if (cancel && (i & 1023) == 0 && cancel->load(std::memory_order_relaxed)) return;
            const DirEntry& e = entries[i];
            std::string id = e.name.substr(0, e.name.size() - 3);
            auto it = indexed.find(id);
            if (it == indexed.end()) {
                changed.push_back(std::move(id)); // new
            } else {
                it->second.listed = true;
                const Indexed& was = it->second;
                if (was.ino && e.ino && was.ino != e.ino) {
                    changed.push_back(std::move(id)); // replaced under its name
                } else if (statEvery) {
                    struct stat st;
                    if (dirFd < 0 || ::fstatat(dirFd, e.name.c_str(), &st, 0) != 0 ||
                        int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec != was.mtime ||
                        int64_t(st.st_size) != was.size)
                        changed.push_back(std::move(id)); // rewritten in place (or unreadable)
                }
            }
            if (checked && (i & 255) == 255) checked->fetch_add(256, std::memory_order_relaxed);
        }
    };
    size_t threads = 1;
    if (parallel && statEvery && entries.size() >= 20000)
        threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
    std::vector<std::vector<std::string>> changed(threads);
    {
        std::vector<std::thread> pool;
        size_t per = (entries.size() + threads - 1) / threads;
        for (size_t k = 1; k < threads; ++k)
            pool.emplace_back(compare, std::min(entries.size(), k * per),
                              std::min(entries.size(), (k + 1) * per), std::ref(changed[k]));
        compare(0, std::min(entries.size(), per), changed[0]);
        for (auto& t : pool)
            t.join();
    }
    if (dirFd >= 0) ::close(dirFd);
    if (cancel && cancel->load()) {
        out.cancelled = true;
        return out;
    }
    for (auto& part : changed)
        for (auto& id : part)
            out.ids.push_back(std::move(id));
    for (auto& [id, was] : indexed)
        if (!was.listed) out.ids.push_back(id); // gone
    if (checked) checked->store(int64_t(entries.size()), std::memory_order_relaxed);

    out.dir = before.value_or(DirMark{});
    out.settled = settledListing(before, dirMark(claimsDir), startedNs);
    return out;
}

} // namespace engram
