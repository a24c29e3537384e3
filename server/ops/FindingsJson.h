// Findings as JSON, shared by `engram check --format json` and the `check`
// operation (MCP tool, engram/check), so both say the same thing the same
// way: 0-based ranges, columns in UTF-16 code units (as LSP and SARIF).
#pragma once
#include "engine/Findings.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace engram::ops {

nlohmann::json findingJson(const Finding& f);

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
