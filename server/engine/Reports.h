// The reports-and-usage service (ARCHITECTURE.md, "Reports and the inbox"):
// reports filed into the machine's spool and the inbox of the project they
// name, the inbox read with its derived states, and the usage counter that
// measures confusion per recall. Private to engine/: the Engine owns one
// and forwards to it.
//
// It owns its state: the spool and the bound project's box as last read
// (so status and an idle server read neither again until they change), and
// the recalls counted and not yet written. What it reads and writes is
// under the workspace root and engram's home; it asks nothing of the
// engine's tiers.
#pragma once
#include "model/Requests.h"
#include "util/Fs.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace engram {

// `inbox.jsonl merge=union` in a store's .gitattributes, so two clones'
// reports merge line by line; true when it wrote the line (engine/Team.cpp,
// which also writes it when a clone is set up for team memory).
bool ensureInboxMerge(const std::string& storeDir);

class Reports {
public:
    // `home` empty: no engram home (no spool, no medulla inbox, no usage).
    Reports(std::string root, std::string home);
    // Writes the recalls still counted; losing them is harmless.
    ~Reports();
    Reports(const Reports&) = delete;
    Reports& operator=(const Reports&) = delete;

    // Engine::report, Engine::inbox, Engine::pendingReports,
    // Engine::confusionSeries, Engine::flushUsage (Engine.h).
    ReportResult report(const ReportRequest& req);
    // `envelope`: the engine's for this call; a binding mismatch answers it
    // alone.
    InboxResult inbox(const InboxRequest& req, Envelope envelope);
    std::vector<std::pair<std::string, int64_t>> pendingReports();
    std::vector<ConfusionWeek> confusionSeries();
    void flushUsage();
    // One recall served over these stores (written at most once a minute).
    void countRecall(const std::vector<MemoryExists>& stores);
    // The bound project's inbox counts (status), read again only when its
    // box changed; throws FsError when it cannot be read.
    StatusResult::InboxCounts inboxCounts();

private:
    std::string spoolPath() const;
    std::string boxPath(const std::string& root) const; // "none": the medulla's
    // Files the spool's reports naming `root` into its box (a project that
    // appeared since they were filed). Skipped while the spool is unchanged.
    void fileFromSpool(const std::string& root);
    InboxBox readBox(const std::string& name, const std::string& path,
                     std::optional<InboxState> state);

    std::string root_, home_;
    std::optional<FileStat> spoolSeen_; // the spool as fileFromSpool last read it
    std::optional<std::pair<FileStat, StatusResult::InboxCounts>> inboxSeen_; // status
    // Recalls counted and not yet written: (UTC day, store) -> (recalls, live claims).
    std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>> usage_;
    std::chrono::steady_clock::time_point usageFlushed_ = std::chrono::steady_clock::now();
};

} // namespace engram
