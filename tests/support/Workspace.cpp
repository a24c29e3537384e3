// The engine tests' shared workspace (Workspace.h).
#include "support/Workspace.h"

#include "util/Fs.h"
#include "util/Time.h"

#include <ctime>
#include <stdexcept>

namespace engram::test {

EngineWorkspace::EngineWorkspace(const std::function<void(EngineOptions&)>& adjust)
    : engine(options(root, home, adjust)) {}

EngineOptions EngineWorkspace::options(const TempDir& root, const TempDir& home,
                                       const std::function<void(EngineOptions&)>& adjust) {
    EngineOptions o{root.path(), "test", home.path(), 30, "test"};
    if (adjust) adjust(o);
    return o;
}

void EngineWorkspace::edit(const std::string& rel, const std::string& from,
                           const std::string& to) const {
    auto text = readFile(root / rel);
    auto at = text ? text->find(from) : std::string::npos;
    if (at == std::string::npos) throw std::runtime_error("edit: '" + from + "' is not in " + rel);
    root.write(rel, text->replace(at, from.size(), to));
}

void EngineWorkspace::backdate(const std::string& id, int days) const {
    std::string rel = ".engram/claims/" + id + ".md";
    auto text = readFile(root / rel);
    if (!text) throw std::runtime_error("backdate: no claim file " + rel);
    std::string when = formatUtc(std::time(nullptr) - int64_t(days) * 86400);
    for (std::string key : {"\ncreated: ", "\nupdated: "}) {
        auto at = text->find(key);
        if (at == std::string::npos) throw std::runtime_error("backdate: no" + key + " in " + rel);
        text->replace(at + key.size(), when.size(), when);
    }
    atomicWrite(root / rel, *text);
}

} // namespace engram::test
