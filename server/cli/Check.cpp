// `engram check`: the findings as text, JSON or SARIF 2.1.0, and an exit code.
#include "cli/Check.h"

#include "util/Position.h"

#include "cli/Args.h"
#include "engine/Engine.h"
#include "ops/FindingsJson.h"
#include "util/Fs.h"
#include "util/Paths.h"

#include <iostream>
#include <nlohmann/json.hpp>

namespace engram::cli {

using json = nlohmann::json;

namespace {

constexpr const char* kSarifSchema = "https://json.schemastore.org/sarif-2.1.0.json";

std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t");
    auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string sarifLevel(const std::string& severity) {
    if (severity == "error") return "error";
    if (severity == "warning") return "warning";
    return "note"; // information, hint
}

// A relative path as a URI reference (percent-encoded, '/' kept).
std::string uriReference(const std::string& path) {
    return pathToUri(path).substr(std::string("file://").size());
}

bool isAbsolute(const std::string& p) {
    return !p.empty() && p[0] == '/';
}

json artifact(const std::string& path) {
    if (isAbsolute(path)) return {{"uri", pathToUri(path)}};
    return {{"uri", uriReference(path)}, {"uriBaseId", "%SRCROOT%"}};
}

// SARIF regions are 1-based; endColumn is exclusive. A range that ends at
// column 0 of a later line (a line range) ends with the line before it.
json region(const TextRange& r) {
    json j = {{"startLine", r.startLine + 1}, {"startColumn", r.startColumn + 1}};
    if (r.endColumn == 0 && r.endLine > r.startLine) {
        j["endLine"] = r.endLine;
    } else if (r.endLine < r.startLine ||
               (r.endLine == r.startLine && r.endColumn < r.startColumn)) {
        j["endLine"] = r.startLine + 1;
        j["endColumn"] = r.startColumn + 1;
    } else {
        j["endLine"] = r.endLine + 1;
        j["endColumn"] = r.endColumn + 1;
    }
    return j;
}

// The findings (as the `check` operation reports them), and what fails the run.
struct Outcome : ops::FindingsReport {
    std::set<std::string> failOn;
    std::string failOnSpec;
    int64_t failing = 0;
    int exitCode = 0;
};

json checkJson(const Engine& engine, const Outcome& o) {
    json j = ops::findingsReportJson(o);
    j["schema"] = "engram.check/1";
    j["binding"] = {{"root", engine.root()}, {"fingerprint", engine.fingerprint()}};
    j["tier"] = "project";
    j["fail_on"] = std::vector<std::string>(o.failOn.begin(), o.failOn.end());
    j["failing"] = o.failing;
    j["exit_code"] = o.exitCode;
    return j;
}

json checkSarif(const Engine& engine, const Outcome& o) {
    json rules = json::array();
    std::map<std::string, size_t> ruleIndex;
    for (auto& r : findingRules()) {
        if (!r.computed) continue;
        ruleIndex[std::string(r.code)] = rules.size();
        rules.push_back({{"id", r.code},
                         {"name", r.name},
                         {"shortDescription", {{"text", r.shortDescription}}},
                         {"fullDescription", {{"text", r.fullDescription}}},
                         {"defaultConfiguration", {{"level", sarifLevel(std::string(r.severity))}}},
                         {"properties", {{"engramSeverity", r.severity}}}});
    }
    json results = json::array();
    for (auto& f : o.findings) {
        json result = {
            {"ruleId", f.code},
            {"level", sarifLevel(f.severity)},
            {"message", {{"text", f.message}}},
            {"locations", json::array({{{"physicalLocation",
                                         {{"artifactLocation", artifact(f.path)},
                                          {"region", region(f.range)}}}}})},
            {"partialFingerprints",
             {{"engramClaim/v1", (f.claimId.empty() ? f.path : f.claimId) + "/" + f.code +
                                     (f.subject.empty() ? "" : "/" + f.subject)}}},
            {"properties", {{"claimId", f.claimId}, {"tier", f.tier}, {"severity", f.severity}}}};
        if (auto it = ruleIndex.find(f.code); it != ruleIndex.end())
            result["ruleIndex"] = it->second;
        if (!f.replacement.empty())
            // A fix a code-scanning viewer can offer: the reference rewritten.
            result["fixes"] = json::array(
                {{{"description", {{"text", "write `" + f.replacement + "`"}}},
                  {"artifactChanges",
                   json::array(
                       {{{"artifactLocation", artifact(f.path)},
                         {"replacements",
                          json::array({{{"deletedRegion", region(f.range)},
                                        {"insertedContent", {{"text", f.replacement}}}}})}}})}}});
        if (!f.claimFile.empty()) {
            auto rel = relativeToRoot(engine.root(), f.claimFile);
            result["relatedLocations"] = json::array(
                {{{"id", 1},
                  {"message",
                   {{"text", "claim " + (f.claimId.empty() ? std::string("file") : f.claimId)}}},
                  {"physicalLocation",
                   {{"artifactLocation", artifact(rel ? *rel : f.claimFile)}}}}});
        }
        results.push_back(std::move(result));
    }
    json driver = {{"name", "engram"},
                   {"version", ENGRAM_VERSION},
                   {"semanticVersion", ENGRAM_VERSION},
                   {"rules", rules}};
    json invocation = {{"executionSuccessful", true}};
    json notes = json::array();
    if (o.unlisted)
        notes.push_back(
            {{"level", "note"},
             {"message",
              {{"text", std::to_string(o.unlisted) + " more findings were not listed (engram check "
                                                     "--max-findings 0 lists all)"}}}});
    // What could not be judged is SARIF's "the tool could not analyse this":
    // a notification per reason, so a viewer shows it beside the results.
    for (auto& [reason, n] : o.summary.notJudged.byReason)
        notes.push_back({{"level", "warning"},
                         {"descriptor", {{"id", "engram.not-judged/" + reason}}},
                         {"message",
                          {{"text", std::to_string(n) + " not judged (" + reason +
                                        "): " + std::string(notJudgedExplanation(reason))}}}});
    if (!notes.empty()) invocation["toolExecutionNotifications"] = std::move(notes);
    json run = {{"tool", {{"driver", driver}}},
                {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", pathToUri(engine.root()) + "/"}}}}},
                {"invocations", json::array({invocation})},
                {"columnKind", "utf16CodeUnits"},
                {"results", results}};
    return {{"$schema", kSarifSchema}, {"version", "2.1.0"}, {"runs", json::array({run})}};
}

std::string plural(int64_t n, const std::string& one) {
    return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

std::string checkText(const Outcome& o) {
    std::string out;
    for (auto& f : o.findings)
        out += f.path + ":" + std::to_string(f.range.startLine + 1) + ":" +
               std::to_string(f.range.startColumn + 1) + ": " + f.severity + ": " + f.code + ": " +
               f.message + "\n";
    std::string counts;
    for (auto& [code, n] : o.summary.byCode)
        if (n) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + code;
    if (o.unlisted)
        out += "... and " + std::to_string(o.unlisted) +
               " more not listed (--max-findings 0 lists all)\n";
    out += "engram check: " + plural(int64_t(o.findings.size()) + o.unlisted, "finding") +
           (counts.empty() ? "" : " (" + counts + ")") + " over " +
           plural(o.liveClaims, "live project claim") +
           (o.brokenFiles ? " and " + plural(o.brokenFiles, "broken claim file") : "") + "; " +
           std::to_string(o.failing) + " match --fail-on " + o.failOnSpec + " (exit " +
           std::to_string(o.exitCode) + ")\n";
    for (auto& [reason, n] : o.summary.notJudged.byReason)
        out += "engram check: " + std::to_string(n) + " not judged (" + reason +
               "): " + std::string(notJudgedExplanation(reason)) + "\n";
    return out;
}

} // namespace

std::set<std::string> parseFailOn(const std::string& spec) {
    std::set<std::string> codes;
    bool none = false;
    size_t pos = 0;
    if (trim(spec).empty()) throw UsageError("--fail-on: give codes or severities (or 'none')");
    while (pos <= spec.size()) {
        size_t comma = spec.find(',', pos);
        if (comma == std::string::npos) comma = spec.size();
        std::string item = trim(spec.substr(pos, comma - pos));
        pos = comma + 1;
        if (item.empty()) throw UsageError("--fail-on: empty entry in '" + spec + "'");
        if (item == "none") {
            none = true;
        } else if (int rank = severityRank(item); rank >= 0) {
            for (auto& r : findingRules())
                if (severityRank(r.severity) >= rank) codes.insert(std::string(r.code));
        } else if (findingRule(item)) {
            codes.insert(item);
        } else {
            std::string known;
            for (auto& r : findingRules())
                known += (known.empty() ? "" : ", ") + std::string(r.code);
            throw UsageError("--fail-on: unknown code or severity '" + item + "' (codes: " + known +
                             "; severities: error, warning, information, hint; or none)");
        }
    }
    if (none && !codes.empty())
        throw UsageError("--fail-on: 'none' cannot be combined with codes or severities");
    return codes;
}

int runCheck(Engine& engine, const CheckOptions& opts) {
    if (opts.format != "text" && opts.format != "json" && opts.format != "sarif")
        throw UsageError("--format: '" + opts.format + "' is not one of text, json, sarif");
    Outcome o;
    o.failOn = parseFailOn(opts.failOn);
    o.failOnSpec = opts.failOn;
    FindingsOptions fo;
    if (!opts.changedSince.empty()) fo.changed = engine.changedSince(opts.changedSince);
    fo.keep = size_t(opts.maxFindings);
    static_cast<ops::FindingsReport&>(o) = ops::checkFindings(engine, fo);
    for (auto& [code, n] : o.summary.byCode) {
        if (!o.failOn.count(code)) continue;
        o.failing += n;
        if (!opts.failOnGiven)
            if (auto it = o.summary.instructionsByCode.find(code);
                it != o.summary.instructionsByCode.end())
                o.failing -= it->second;
    }
    o.exitCode = o.failing > 0 ? 1 : 0;
    if (opts.format == "text")
        std::cout << checkText(o);
    else
        std::cout << (opts.format == "json" ? checkJson(engine, o) : checkSarif(engine, o))
                         .dump(2, ' ', false, json::error_handler_t::replace)
                  << "\n";
    std::cout.flush();
    return o.exitCode;
}

} // namespace engram::cli
