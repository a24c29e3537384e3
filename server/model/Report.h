// A report: an event where memory misled someone (or anything else about
// engram), filed by an agent or a person so it is counted, reaches the
// project it concerns and gets answered (ARCHITECTURE.md, "Reports and the inbox").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace engram {

struct Report {
    // "r-" and 16 hex digits of the SHA-256 of the report's content (every
    // field below but `filed`): the same report filed twice, on any
    // machine, has one id, so boxes and the spool de-duplicate by it.
    std::string id;
    std::string reportClass; // memory_misdelivery | field_report | answer
    std::string kind;        // memory_misdelivery only: leak | false_absence |
                             // wrong_store_write | misattribution | vanished
    std::string what;        // what happened
    std::string expected;    // what should have happened
    std::string excerpt;     // the call, or an excerpt of it (optional)
    std::string root;        // the project it concerns; "none" for no project
    std::string agent;
    std::vector<std::string> answers; // ids of the reports this one answers
    bool external = false;            // about another tool, not engram
    // Set on an answer that closes what it answers: confirmed | fixed |
    // not_confirmed | duplicate | wont_fix. Absent, an answer only says the
    // reports are being looked at (in_progress).
    std::string resolution;
    int64_t filed = 0; // unix seconds, when first filed
};

// The report classes, kinds and resolutions engram accepts.
bool isReportClass(const std::string& c);
bool isMisdeliveryKind(const std::string& k);
bool isResolution(const std::string& r);
// A closing answer that says the misdelivery was real.
inline bool confirms(const std::string& resolution) {
    return resolution == "confirmed" || resolution == "fixed";
}

} // namespace engram
