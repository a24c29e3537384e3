#include "ops/FindingsJson.h"

#include "engine/Engine.h"
#include "ops/op/Wire.h"
#include "util/Fs.h"
#include "util/Position.h"

namespace engram::ops {

using json = nlohmann::json;

void Utf16Columns::convert(Finding& f) {
    if (f.range.startColumn == 0 && f.range.endColumn == 0) return;
    const std::string* text = file(f.path);
    if (!text) return;
    f.range.startColumn = utf16Column(*text, f.range.startLine, f.range.startColumn);
    f.range.endColumn = utf16Column(*text, f.range.endLine, f.range.endColumn);
}

const std::string* Utf16Columns::file(const std::string& path) {
    auto it = files_.find(path);
    if (it == files_.end())
        it =
            files_.emplace(path, readFile(path.starts_with('/') ? path : root_ + "/" + path)).first;
    return it->second ? &*it->second : nullptr;
}

FindingsReport checkFindings(Engine& engine, const FindingsOptions& fo) {
    FindingsReport r;
    r.findings = engine.findings(fo, &r.summary);
    Utf16Columns columns(engine.root());
    for (auto& f : r.findings)
        columns.convert(f);
    int64_t total = 0;
    for (auto& [code, n] : r.summary.byCode)
        total += n;
    r.unlisted = total - int64_t(r.findings.size());
    if (auto s = engine.storeState("project")) {
        r.liveClaims = s->committed;
        r.brokenFiles = s->brokenFiles;
    }
    return r;
}

json findingsReportJson(const FindingsReport& r) {
    return protocol::toJson(r);
}

} // namespace engram::ops
