#include "ops/FindingsJson.h"

#include "util/Fs.h"
#include "util/Position.h"

namespace engram::ops {

using json = nlohmann::json;

namespace {

json position(uint32_t line, uint32_t character) {
    return {{"line", line}, {"character", character}};
}

} // namespace

json findingJson(const Finding& f) {
    return {{"code", f.code},
            {"severity", f.severity},
            {"claim_id", f.claimId},
            {"label", f.label},
            {"tier", f.tier},
            {"path", f.path},
            {"symbol", f.symbol},
            {"subject", f.subject},
            {"range",
             {{"start", position(f.range.startLine, f.range.startColumn)},
              {"end", position(f.range.endLine, f.range.endColumn)}}},
            {"message", f.message},
            {"claim_file", f.claimFile},
            {"replacement", f.replacement}};
}

void Utf16Columns::convert(Finding& f) {
    if (f.range.startColumn == 0 && f.range.endColumn == 0) return;
    const std::string* text = file(f.path);
    if (!text) return;
    f.range.startColumn = utf16Column(*text, f.range.startLine, f.range.startColumn);
    f.range.endColumn = utf16Column(*text, f.range.endLine, f.range.endColumn);
}

const std::string* Utf16Columns::file(const std::string& path) {
    auto it = files_.find(path);
    if (it == files_.end()) {
        std::string full = !path.empty() && path[0] == '/' ? path : root_ + "/" + path;
        it = files_.emplace(path, readFile(full)).first;
    }
    return it->second ? &*it->second : nullptr;
}

} // namespace engram::ops
