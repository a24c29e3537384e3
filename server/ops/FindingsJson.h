// Findings as JSON, shared by `engram check --format json` and the `check`
// operation (MCP tool, engram/check), so both say the same thing the same
// way: 0-based ranges, columns in UTF-16 code units (as LSP and SARIF).
#pragma once
#include "engine/Findings.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace engram {
class Engine;
}

namespace engram::ops {

// What `engram check` and the `check` operation report: the findings listed
// (at most FindingsOptions::keep, columns in UTF-16), every finding counted
// by code, and the project store's counts.
struct FindingsReport {
    std::vector<Finding> findings;
    FindingsSummary summary;
    int64_t unlisted = 0; // counted, past keep
    int64_t liveClaims = 0;
    int64_t brokenFiles = 0;
};
FindingsReport checkFindings(Engine& engine, const FindingsOptions& fo);
// {findings, summary, unlisted, live_claims}: the part both answers share.
nlohmann::json findingsReportJson(const FindingsReport& r);

// Engine ranges count bytes; converts a finding's columns to UTF-16 code
// units, reading each file once.
class Utf16Columns {
public:
    explicit Utf16Columns(std::string root)
        : root_(std::move(root)) {}
    void convert(Finding& f);

private:
    const std::string* file(const std::string& path);
    std::string root_;
    std::map<std::string, std::optional<std::string>> files_;
};

} // namespace engram::ops
