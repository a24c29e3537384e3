// Reports and the inbox (ARCHITECTURE.md, "Reports and the inbox"): filing into the machine's spool
// and the project's box, filing what waited once its project appears, and states derived from the
// answers, never stored.
#include "engine/Reports.h"

#include "engine/Checks.h"
#include "store/Registry.h"
#include "store/ReportFile.h"
#include "store/Store.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Lines.h"
#include "util/Log.h"
#include "util/Paths.h"
#include "util/Time.h"

#include <algorithm>
#include <map>
#include <set>

namespace engram {

namespace {

bool isReportId(const std::string& id) {
    return id.size() == 18 && id.starts_with("r-") &&
           id.find_first_not_of("0123456789abcdef", 2) == std::string::npos;
}

// A box lives in its project's store: laid out (with the .gitignore that
// keeps the writers' lock out of git) before the first report arrives.
void ensureStore(const std::string& root) {
    Store(root + "/.engram", "project", root.substr(root.find_last_of('/') + 1)).ensureLayout();
}

void count(StatusResult::InboxCounts& c, InboxState state) {
    switch (state) {
    case InboxState::Open:
        ++c.open;
        break;
    case InboxState::InProgress:
        ++c.inProgress;
        break;
    case InboxState::Answered:
        ++c.answered;
        break;
    case InboxState::External:
        ++c.external;
        break;
    case InboxState::Answer:
        ++c.answers;
        break;
    }
}

} // namespace

Reports::Reports(std::string root, std::string home)
    : root_(std::move(root))
    , home_(std::move(home)) {}

Reports::~Reports() {
    try {
        flushUsage();
    } catch (const std::exception& e) {
        // Usage counts are statistics: losing the last minute's is harmless.
        logDropped("the usage counter's last counts", e);
    }
}

StatusResult::InboxCounts Reports::inboxCounts() {
    fileFromSpool(root_);
    auto st = statFile(boxPath(root_));
    if (st && inboxSeen_ && sameFile(st, inboxSeen_->first)) return inboxSeen_->second;
    auto box = readBox(root_, boxPath(root_), std::nullopt);
    inboxSeen_.reset();
    if (st && box.error.empty()) inboxSeen_.emplace(*st, box.counts);
    return box.counts;
}

std::string Reports::spoolPath() const {
    return home_.empty() ? std::string() : home_ + "/reports/spool.jsonl";
}

std::string Reports::boxPath(const std::string& root) const {
    if (root == "none") return home_.empty() ? std::string() : home_ + "/medulla/inbox.jsonl";
    return root + "/.engram/inbox.jsonl";
}

ReportResult Reports::report(const ReportRequest& req) {
    const Report& d = req.draft;
    // Validation first, naming the field; nothing is written on a refusal.
    if (!isReportClass(d.reportClass))
        throw invalidField("class", "must be " + spellingList<ReportClass>());
    if (d.reportClass == "memory_misdelivery") {
        if (!isMisdeliveryKind(d.kind))
            throw invalidField("kind", "a memory_misdelivery report needs a kind: " +
                                           spellingList<MisdeliveryKind>());
    } else if (!d.kind.empty()) {
        throw invalidField("kind", "only a memory_misdelivery report has a kind");
    }
    auto text = [](const char* field, const std::string& v) {
        checkUtf8(field, v);
        if (v.size() > kMaxText)
            throw invalidField(field, "is longer than " + std::to_string(kMaxText) + " bytes");
    };
    text("what", d.what);
    text("expected", d.expected);
    text("excerpt", d.excerpt);
    if (trimmed(d.what).empty()) throw invalidField("what", "must say what happened");
    if (d.reportClass == "memory_misdelivery" && trimmed(d.expected).empty())
        throw invalidField("expected", "a memory_misdelivery report must say what was expected");
    checkAgent(d.agent);
    for (size_t i = 0; i < d.answers.size(); ++i)
        if (!isReportId(d.answers[i]))
            throw invalidField("answers[" + std::to_string(i) + "]",
                               "'" + d.answers[i] + "' is not a report id (r- and 16 hex digits)");
    if (d.reportClass == "answer" && d.answers.empty())
        throw invalidField("answers", "an answer names the reports it answers");
    if (!d.resolution.empty()) {
        if (!isResolution(d.resolution))
            throw invalidField("resolution", "must be " + spellingList<Resolution>());
        if (d.answers.empty())
            throw invalidField("resolution", "only an answer (with answers) closes reports");
    }
    std::string root = root_;
    if (req.root) {
        if (*req.root == "none") {
            root = "none";
        } else {
            checkLine("project", *req.root, 4096, true);
            // Kept in the spool and the box as the report's root, even for a
            // project this machine does not hold.
            scanForSecrets("project", *req.root);
            if ((*req.root)[0] != '/')
                throw invalidField("project", "must be an absolute path, or 'none' for a report "
                                              "about no project");
            root = canonicalPath(*req.root);
        }
    }
    if (root == "none" && home_.empty())
        throw invalidField("project", "a report about no project goes to the medulla's inbox, and "
                                      "there is no engram home (set ENGRAM_HOME or --home)");
    scanForSecrets("what", d.what);
    scanForSecrets("expected", d.expected);
    scanForSecrets("excerpt", d.excerpt);

    Report r = d;
    r.root = root;
    r.id = reportId(r);
    r.filed = nowUnix();

    ReportResult out;
    // The spool first: it is this machine's record of every report, and
    // the source a box can always be filed from again.
    if (const std::string spool = spoolPath(); !spool.empty()) {
        out.spooled = true;
        auto filed = fileReport(spool, r);
        r.filed = filed.filed;
        out.duplicate = !filed.added;
    }
    const std::string box = boxPath(root);
    // A project is on this machine when its directory is; its store is
    // created for the box if need be. Else the report waits in the spool.
    if (root != "none" && !isDirectory(root)) {
        if (!out.spooled)
            throw invalidField("project",
                               "'" + root +
                                   "' is not on this machine, and without an "
                                   "engram home there is no spool to keep the report in");
        out.pending = true;
    } else {
        try {
            if (root != "none") ensureStore(root);
            auto filed = fileReport(box, r);
            r.filed = filed.filed;
            out.duplicate = !filed.added;
            out.box = box;
        } catch (const FsError& e) {
            // Spooled, it is kept: the box is filed from the spool by the
            // next call that reads it. Without a spool the report is lost,
            // so the caller is told.
            if (!out.spooled) throw;
            out.pending = true;
            out.boxError = e.what();
        }
        if (!out.box.empty()) {
            try {
                ensureInboxMerge(parentDir(box));
            } catch (const FsError&) {
                // The merge line is added by the next filing, or engram init.
            }
        }
    }
    out.report = r;
    return out;
}

void Reports::fileFromSpool(const std::string& root) {
    const std::string spool = spoolPath();
    if (spool.empty() || root == "none" || !isDirectory(root)) return;
    auto st = statFile(spool);
    if (!st) return;
    if (root == root_ && spoolSeen_ && sameFile(st, *spoolSeen_)) return;
    bool filed = false;
    for (auto& r : readReportBox(spool).reports)
        if (r.root == root) {
            ensureStore(root);
            filed |= fileReport(boxPath(root), r).added;
        }
    if (filed) ensureInboxMerge(root + "/.engram");
    if (root == root_) spoolSeen_ = st;
}

InboxBox Reports::readBox(const std::string& name, const std::string& path,
                          std::optional<InboxState> state) {
    InboxBox box;
    box.name = name;
    box.path = path;
    ReportBoxRead read;
    try {
        read = readReportBox(path);
    } catch (const std::exception& e) {
        box.error = e.what();
        return box;
    }
    box.badLines = read.badLines;
    // The reply graph: who answers whom, and whether any answer closes.
    std::map<std::string, std::vector<const Report*>> answeredBy;
    for (auto& r : read.reports)
        for (auto& target : r.answers)
            answeredBy[target].push_back(&r);
    std::vector<InboxEntry> all;
    for (auto& r : read.reports) {
        InboxEntry e;
        e.report = r;
        auto it = answeredBy.find(r.id);
        bool closed = false;
        if (it != answeredBy.end())
            for (auto* a : it->second) {
                e.answeredBy.push_back(a->id);
                closed |= !a->resolution.empty();
            }
        if (r.reportClass == "answer")
            e.state = InboxState::Answer;
        else if (r.external)
            e.state = InboxState::External;
        else if (closed)
            e.state = InboxState::Answered;
        else if (it != answeredBy.end())
            e.state = InboxState::InProgress;
        else
            e.state = InboxState::Open;
        count(box.counts, e.state);
        if (!state || *state == e.state) all.push_back(std::move(e));
    }
    // Newest first; the id orders reports filed in the same second.
    std::stable_sort(all.begin(), all.end(), [](const InboxEntry& a, const InboxEntry& b) {
        if (a.report.filed != b.report.filed) return a.report.filed > b.report.filed;
        return a.report.id < b.report.id;
    });
    box.reports = std::move(all);
    return box;
}

InboxResult Reports::inbox(const InboxRequest& req, Envelope envelope) {
    InboxResult out;
    out.envelope = std::move(envelope);
    if (out.envelope.binding.mismatch) return out;
    fileFromSpool(root_);
    out.boxes.push_back(readBox(root_, boxPath(root_), req.state));
    if (!req.all) return out;
    if (!home_.empty()) {
        for (auto& root : Registry(home_).roots()) {
            if (root == root_) continue;
            if (!isDirectory(root)) {
                InboxBox gone;
                gone.name = root;
                gone.path = boxPath(root);
                gone.error = "the project is not on this machine any more (" + root + ")";
                out.boxes.push_back(std::move(gone));
                continue;
            }
            fileFromSpool(root);
            out.boxes.push_back(readBox(root, boxPath(root), req.state));
        }
        out.boxes.push_back(readBox("medulla", boxPath("none"), req.state));
        // The spool's reports whose project is not here: listed, not filed.
        InboxBox pending = readBox("pending", spoolPath(), std::nullopt);
        std::erase_if(pending.reports, [&](const InboxEntry& e) {
            return e.report.root == "none" || isDirectory(e.report.root);
        });
        pending.counts = {};
        pending.badLines.clear(); // the spool's own problems are doctor's
        for (auto& e : pending.reports)
            count(pending.counts, e.state);
        std::erase_if(pending.reports,
                      [&](const InboxEntry& e) { return req.state && e.state != *req.state; });
        out.boxes.push_back(std::move(pending));
    }
    return out;
}

std::vector<std::pair<std::string, int64_t>> Reports::pendingReports() {
    std::map<std::string, int64_t> byRoot;
    const std::string spool = spoolPath();
    if (spool.empty()) return {};
    for (auto& r : readReportBox(spool).reports)
        if (r.root != "none" && !isDirectory(r.root)) ++byRoot[r.root];
    return {byRoot.begin(), byRoot.end()};
}

// ---- the confusion rate ----------------------------------------------------
//
// Recalls served are counted in memory per UTC day and store, with the
// store's live claims at the time, and appended to
// `$ENGRAM_HOME/usage/recalls.tsv` ("day<TAB>store<TAB>recalls<TAB>live")
// at most once a minute and when the engine goes away: the counter lives
// outside every repository (never committed), costs a recall nothing but a
// map update, and a crash loses at most a minute of counts.

void Reports::countRecall(const std::vector<MemoryExists>& stores) {
    if (home_.empty()) return;
    std::string day = formatUtc(nowUnix()).substr(0, 10);
    for (auto& s : stores) {
        auto& [recalls, live] = usage_[{day, s.store}];
        ++recalls;
        live = s.live;
    }
    if (std::chrono::steady_clock::now() - usageFlushed_ > std::chrono::minutes(1)) {
        try {
            flushUsage();
        } catch (const std::exception& e) {
            // A home that cannot be written: the counts wait for the next try.
            logDropped("writing the usage counter", e);
        }
    }
}

void Reports::flushUsage() {
    usageFlushed_ = std::chrono::steady_clock::now();
    if (usage_.empty() || home_.empty()) return;
    std::string lines;
    for (auto& [key, counts] : usage_)
        lines += key.first + "\t" + key.second + "\t" + std::to_string(counts.first) + "\t" +
                 std::to_string(counts.second) + "\n";
    makeDirs(home_ + "/usage");
    // Statistics, written from a recall's path: no sync (a crash may lose
    // the last flush, as it may the last minute's counts).
    appendFile(home_ + "/usage/recalls.tsv", lines);
    usage_.clear();
}

std::vector<ConfusionWeek> Reports::confusionSeries() {
    flushUsage();
    std::map<std::string, ConfusionWeek> weeks;
    auto week = [&](const std::string& w) -> ConfusionWeek& {
        auto& row = weeks[w];
        row.week = w;
        return row;
    };
    // Recalls and live claims. A store's live count for a week is the last
    // one recorded in it; lines that do not parse are skipped.
    std::map<std::pair<std::string, std::string>, int64_t> liveAt; // (week, store) -> live
    if (auto text = readFile(home_ + "/usage/recalls.tsv")) {
        forEachLine(*text, [&](std::string_view line, int) {
            auto f = splitFields(line, '\t');
            auto day = f.size() == 4 ? parseUtc(f[0]) : std::nullopt;
            if (!day) return;
            char* e1 = nullptr;
            char* e2 = nullptr;
            long long recalls = std::strtoll(f[2].c_str(), &e1, 10);
            long long live = std::strtoll(f[3].c_str(), &e2, 10);
            if (*e1 || *e2 || recalls < 0 || live < 0) return;
            std::string w = isoWeek(*day);
            week(w).recalls += recalls;
            liveAt[{w, f[1]}] = live;
        });
    }
    for (auto& [key, live] : liveAt)
        week(key.first).liveClaims += live;
    // Confirmed misdeliveries: every report this machine can see, once each.
    std::map<std::string, Report> reports;
    auto take = [&](const std::string& path) {
        try {
            // A report's time is the earliest any copy of it says.
            for (auto& r : readReportBox(path).reports)
                if (auto [it, added] = reports.emplace(r.id, r); !added)
                    it->second.filed = std::min(it->second.filed, r.filed);
        } catch (const std::exception&) {
            // An unreadable box is named by engram inbox --all.
        }
    };
    if (!spoolPath().empty()) take(spoolPath());
    take(boxPath(root_));
    if (!home_.empty()) {
        take(boxPath("none"));
        for (auto& root : Registry(home_).roots())
            if (root != root_) take(boxPath(root));
    }
    std::set<std::string> confirmed;
    for (auto& [id, r] : reports)
        if (confirms(r.resolution))
            for (auto& target : r.answers)
                confirmed.insert(target);
    for (auto& [id, r] : reports)
        if (r.reportClass == "memory_misdelivery" && confirmed.count(id))
            ++week(isoWeek(r.filed)).confirmed;
    std::vector<ConfusionWeek> out;
    for (auto& [w, row] : weeks) {
        if (row.recalls > 0) row.perThousand = 1000.0 * double(row.confirmed) / double(row.recalls);
        out.push_back(row);
    }
    return out;
}

} // namespace engram
