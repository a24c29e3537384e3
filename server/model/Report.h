// A report: an event where memory misled someone (or anything else about
// engram), filed by an agent or a person so it is counted, reaches the
// project it concerns and gets answered (ARCHITECTURE.md, "Reports and the inbox").
#pragma once
#include "model/Spelling.h"

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

// The report classes, kinds and resolutions engram accepts, with their
// spellings. A Report keeps them as text: a box or a spool written by
// another engram may hold spellings this one does not know, and shows them.
enum class ReportClass { MemoryMisdelivery, FieldReport, Answer };
enum class MisdeliveryKind { Leak, FalseAbsence, WrongStoreWrite, Misattribution, Vanished };
enum class Resolution { Confirmed, Fixed, NotConfirmed, Duplicate, WontFix };

template <>
struct Spelling<ReportClass> {
    static constexpr std::array values{
        std::pair{ReportClass::MemoryMisdelivery, "memory_misdelivery"},
        std::pair{ReportClass::FieldReport, "field_report"},
        std::pair{ReportClass::Answer, "answer"}};
};
template <>
struct Spelling<MisdeliveryKind> {
    static constexpr std::array values{
        std::pair{MisdeliveryKind::Leak, "leak"},
        std::pair{MisdeliveryKind::FalseAbsence, "false_absence"},
        std::pair{MisdeliveryKind::WrongStoreWrite, "wrong_store_write"},
        std::pair{MisdeliveryKind::Misattribution, "misattribution"},
        std::pair{MisdeliveryKind::Vanished, "vanished"}};
};
template <>
struct Spelling<Resolution> {
    static constexpr std::array values{
        std::pair{Resolution::Confirmed, "confirmed"}, std::pair{Resolution::Fixed, "fixed"},
        std::pair{Resolution::NotConfirmed, "not_confirmed"},
        std::pair{Resolution::Duplicate, "duplicate"}, std::pair{Resolution::WontFix, "wont_fix"}};
};

// Where a report stands, derived from the answers naming it (engine/Reports.cpp).
enum class InboxState {
    Open,       // no answer yet
    InProgress, // answered, not closed
    Answered,   // a closing answer (one with a resolution)
    External,   // about another tool: listed, never counted open
    Answer,     // a reply itself, listed under what it answers
};
template <>
struct Spelling<InboxState> {
    static constexpr std::array values{
        std::pair{InboxState::Open, "open"}, std::pair{InboxState::InProgress, "in_progress"},
        std::pair{InboxState::Answered, "answered"}, std::pair{InboxState::External, "external"},
        std::pair{InboxState::Answer, "answer"}};
};

inline bool isReportClass(const std::string& c) {
    return unspell<ReportClass>(c).has_value();
}
inline bool isMisdeliveryKind(const std::string& k) {
    return unspell<MisdeliveryKind>(k).has_value();
}
inline bool isResolution(const std::string& r) {
    return unspell<Resolution>(r).has_value();
}
// A closing answer that says the misdelivery was real.
inline bool confirms(const std::string& resolution) {
    return resolution == "confirmed" || resolution == "fixed";
}

} // namespace engram
