// The engine tests' shared workspace (Workspace.h).
#include "support/Workspace.h"

#include "util/Fs.h"

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

} // namespace engram::test
