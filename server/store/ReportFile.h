// Reports on disk: one JSON object per line, in the machine's spool
// (`$ENGRAM_HOME/reports/spool.jsonl`) and in each box
// (`<root>/.engram/inbox.jsonl`, `$ENGRAM_HOME/medulla/inbox.jsonl`).
//
// Lines are only ever appended (O_APPEND, one write per line), never
// rewritten, so a box merges line by line (git's union merge) and two
// processes appending at once each keep their line. A box may hold lines
// this machine never wrote (a teammate's, through git); they are read like
// any other. A line that does not parse is reported with its number and
// skipped, never fatal.
#pragma once
#include "model/Report.h"

#include <optional>
#include <string>
#include <vector>

namespace engram {

// The id of a report's content (Report::id's rule).
std::string reportId(const Report& r);
// One line, without the newline. Keys in a fixed order, empty fields left out.
std::string reportLine(const Report& r);
// Parses one line; nullopt with `error` set when it is not a report.
std::optional<Report> parseReportLine(const std::string& line, std::string& error);

// Bounds a box is read within (see readReportBox): a report's free text is
// at most 16 KiB per field, so its line stays far below kMaxReportLine.
inline constexpr size_t kMaxReportLine = 256 * 1024;
inline constexpr size_t kMaxReportBoxBytes = 64u << 20;

struct ReportBoxRead {
    bool exists = false;
    std::vector<Report> reports; // in file order, each id once (the first line wins)
    std::vector<std::pair<int, std::string>> badLines; // 1-based line, why
};
// Reads a box or the spool, in memory bounded by the bounds above; throws
// FsError only when it exists and cannot be read.
ReportBoxRead readReportBox(const std::string& path);

// Appends `r` to the box at `path` unless a report with its id is there,
// holding the `lock` file beside it (a store's writers' lock, so a box and
// its store's claims are never written at once by two processes). Creates
// the directory.
struct FiledReport {
    bool added = false;
    int64_t filed = 0; // when the copy in the box was filed (r's own when added)
};
FiledReport fileReport(const std::string& path, const Report& r);

} // namespace engram
