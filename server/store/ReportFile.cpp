// Reports as JSON lines (see ReportFile.h). The one file of engram_core that
// speaks JSON: a box is a line-oriented log other tools can read, and a
// teammate's engram writes the same lines.
#include "store/ReportFile.h"

#include "util/Fs.h"
#include "util/Hash.h"
#include "util/Lines.h"

#include <nlohmann/json.hpp>
#include <unordered_set>

namespace engram {

using nlohmann::json;

namespace {

// The content a report's id covers, in a fixed key order.
json content(const Report& r) {
    json j = json::object();
    j["class"] = r.reportClass;
    if (!r.kind.empty()) j["kind"] = r.kind;
    j["what"] = r.what;
    if (!r.expected.empty()) j["expected"] = r.expected;
    if (!r.excerpt.empty()) j["excerpt"] = r.excerpt;
    j["root"] = r.root;
    j["agent"] = r.agent;
    if (!r.answers.empty()) j["answers"] = r.answers;
    if (r.external) j["external"] = true;
    if (!r.resolution.empty()) j["resolution"] = r.resolution;
    return j;
}

std::string str(const json& j, const char* key, std::string& error, bool required) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        if (required && error.empty()) error = std::string("'") + key + "' is missing";
        return {};
    }
    if (!it->is_string()) {
        if (error.empty()) error = std::string("'") + key + "' is not a string";
        return {};
    }
    return it->get<std::string>();
}

} // namespace

std::string reportId(const Report& r) {
    // nlohmann's object keys are sorted, so the dump is canonical.
    return "r-" + sha256Hex(content(r).dump()).substr(0, 16);
}

std::string reportLine(const Report& r) {
    json j = content(r);
    j["id"] = r.id.empty() ? reportId(r) : r.id;
    j["filed"] = r.filed;
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<Report> parseReportLine(const std::string& line, std::string& error) {
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        error = "not a JSON object";
        return std::nullopt;
    }
    Report r;
    error.clear();
    r.reportClass = str(j, "class", error, true);
    r.kind = str(j, "kind", error, false);
    r.what = str(j, "what", error, true);
    r.expected = str(j, "expected", error, false);
    r.excerpt = str(j, "excerpt", error, false);
    r.root = str(j, "root", error, true);
    r.agent = str(j, "agent", error, true);
    r.resolution = str(j, "resolution", error, false);
    if (!error.empty()) return std::nullopt;
    if (auto a = j.find("answers"); a != j.end()) {
        if (!a->is_array()) {
            error = "'answers' is not an array";
            return std::nullopt;
        }
        for (auto& id : *a) {
            if (!id.is_string()) {
                error = "'answers' holds something other than report ids";
                return std::nullopt;
            }
            r.answers.push_back(id.get<std::string>());
        }
    }
    if (auto e = j.find("external"); e != j.end()) {
        if (!e->is_boolean()) {
            error = "'external' is not true or false";
            return std::nullopt;
        }
        r.external = e->get<bool>();
    }
    if (auto f = j.find("filed"); f != j.end()) {
        if (!f->is_number_integer()) {
            error = "'filed' is not a whole number of seconds";
            return std::nullopt;
        }
        r.filed = f->get<int64_t>();
    }
    if (!isReportClass(r.reportClass)) {
        error = "'class' is not a report class";
        return std::nullopt;
    }
    // The id is always the content's: a hand-edited line whose id no longer
    // matches is read under the id of what it now says.
    r.id = reportId(r);
    return r;
}

namespace {

// A box is read a line at a time in bounded memory: a line longer than any
// report engram writes is a bad line, unparsed, and a box past its size
// bound is read no further (both reported), so a hostile clone's inbox cannot
// exhaust memory. `endsWithNewline`: whether an append needs one first.
struct BoxScan {
    ReportBoxRead read;
    bool endsWithNewline = true;
};

std::optional<BoxScan> scanBox(const std::string& path) {
    BoxScan out;
    out.read.exists = true;
    std::unordered_set<std::string> seen;
    size_t bytes = 0;
    bool ok = readLines(path, kMaxReportLine, [&](const FileLine& l) {
        out.endsWithNewline = l.terminated;
        bytes += l.text.size() + 1;
        if (bytes > kMaxReportBoxBytes) {
            out.read.badLines.emplace_back(
                l.number, "the box is larger than " + std::to_string(kMaxReportBoxBytes >> 20) +
                              " MiB; this line and the rest were not read");
            return false;
        }
        if (l.cut) {
            out.read.badLines.emplace_back(l.number, "longer than " +
                                                         std::to_string(kMaxReportLine >> 10) +
                                                         " KiB: not a report");
            return true;
        }
        if (l.text.find_first_not_of(" \t\r") == std::string_view::npos) return true;
        std::string error;
        auto r = parseReportLine(std::string(l.text), error);
        if (!r)
            out.read.badLines.emplace_back(l.number, error);
        else if (seen.insert(r->id).second)
            out.read.reports.push_back(std::move(*r));
        return true;
    });
    if (!ok) {
        if (statFile(path)) throw FsError("cannot read " + path);
        return std::nullopt;
    }
    return out;
}

} // namespace

ReportBoxRead readReportBox(const std::string& path) {
    auto scan = scanBox(path);
    return scan ? std::move(scan->read) : ReportBoxRead{};
}

FiledReport fileReport(const std::string& path, const Report& r) {
    std::string dir = parentDir(path);
    makeDirs(dir);
    FileLock lock(dir + "/lock");
    auto scan = scanBox(path);
    std::string id = r.id.empty() ? reportId(r) : r.id;
    if (scan)
        for (auto& have : scan->read.reports)
            if (have.id == id) return {false, have.filed};
    // A box whose last line lacks its newline (a hand edit) gets one first,
    // so the new line is never glued to it.
    std::string prefix = scan && !scan->endsWithNewline ? "\n" : "";
    appendDurable(path, prefix + reportLine(r) + "\n");
    return {true, r.filed};
}

} // namespace engram
