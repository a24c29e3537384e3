// The registry of project stores ($ENGRAM_HOME/registry).
#include "store/Registry.h"

#include "util/Fs.h"

#include <algorithm>

namespace engram {

namespace {

constexpr std::string_view kHeader = "# engram: project stores served on this machine\n";

std::vector<std::string> parse(const std::string& text) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at < text.size()) {
        size_t nl = text.find('\n', at);
        if (nl == std::string::npos) nl = text.size();
        std::string line = text.substr(at, nl - at);
        at = nl + 1;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line.front() != '/') continue;
        out.push_back(std::move(line));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace

Registry::Registry(std::string home)
    : home_(std::move(home))
    , path_(home_ + "/registry") {}

std::vector<std::string> Registry::roots() const {
    auto text = readFile(path_);
    return text ? parse(*text) : std::vector<std::string>{};
}

void Registry::add(const std::string& root) {
    if (home_.empty() || root.empty() || root.front() != '/') return;
    auto listed = roots();
    if (std::binary_search(listed.begin(), listed.end(), root)) return;
    makeDirs(home_);
    FileLock lock(home_ + "/registry.lock");
    listed = roots(); // again, under the lock: another process may have added some
    if (std::binary_search(listed.begin(), listed.end(), root)) return;
    listed.insert(std::upper_bound(listed.begin(), listed.end(), root), root);
    std::string out(kHeader);
    for (auto& r : listed)
        out += r + "\n";
    atomicWrite(path_, out);
}

} // namespace engram
