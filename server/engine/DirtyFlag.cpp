// The dirty flag, asked of git only when what it depends on changed
// (engine/DirtyFlag.h).
#include "engine/DirtyFlag.h"

#include "util/Process.h"

#include <ctime>
#include <string_view>
#include <sys/stat.h>

namespace engram {

namespace {

// A file changed this recently is not vouched for by its stat.
constexpr int64_t kSettledNs = 1'000'000'000;

int64_t ns(const timespec& t) {
    return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

DirtyFlag::Stamp stampOf(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return {}; // gone: a stamp no file has
    DirtyFlag::Stamp s;
    s.mtimeNs = ns(st.st_mtim);
    s.ctimeNs = ns(st.st_ctim);
    s.size = int64_t(st.st_size);
    s.ino = uint64_t(st.st_ino);
    s.mode = uint32_t(st.st_mode);
    return s;
}

int64_t nowNs() {
    timespec t{};
    ::clock_gettime(CLOCK_REALTIME, &t);
    return ns(t);
}

// The pathspec both git commands take: the tracked files under the root,
// outside .engram/.
const std::vector<std::string> kCode = {"--", ".", ":(exclude).engram"};

std::vector<std::string> gitArgs(const std::string& root, std::vector<std::string> args) {
    std::vector<std::string> out = {"git", "--no-optional-locks", "-C", root};
    out.insert(out.end(), args.begin(), args.end());
    out.insert(out.end(), kCode.begin(), kCode.end());
    return out;
}

// `git ls-files -z --stage`: "<mode> <object> <stage>\t<path>\0" per entry.
// False when the list cannot vouch for the tree (git failed, the output was
// cut, or a submodule is tracked: its changes show in no stat here).
bool trackedFiles(const std::string& root, std::vector<std::string>& files) {
    constexpr size_t kMaxList = size_t(64) << 20;
    auto r = runProcess(gitArgs(root, {"ls-files", "-z", "--stage"}), kMaxList);
    if (!r || r->exitCode != 0 || r->out.size() >= kMaxList) return false;
    std::string_view out = r->out;
    while (!out.empty()) {
        size_t end = out.find('\0');
        std::string_view entry = out.substr(0, end);
        out.remove_prefix(end == std::string_view::npos ? out.size() : end + 1);
        size_t tab = entry.find('\t');
        if (tab == std::string_view::npos) return false;
        if (entry.starts_with("160000 ")) return false; // a submodule
        files.push_back(root + "/" + std::string(entry.substr(tab + 1)));
    }
    return true;
}

} // namespace

bool DirtyFlag::stillHolds(const Kept& k, const Stamp& index, const std::string& head) const {
    if (!(k.index == index) || k.head != head) return false;
    for (size_t i = 0; i < k.files.size(); ++i)
        if (!(stampOf(k.files[i]) == k.stamps[i])) return false;
    return true;
}

std::optional<bool> DirtyFlag::get(const std::string& indexPath, const std::string& head) {
    std::lock_guard lock(mu_);
    const Stamp index = stampOf(indexPath);
    if (kept_ && stillHolds(*kept_, index, head)) return kept_->verdict;
    kept_.reset();
    ++asked_;

    Kept k;
    k.index = index;
    k.head = head;
    bool vouched = trackedFiles(root_, k.files);
    const int64_t settled = nowNs() - kSettledNs;
    k.stamps.reserve(k.files.size());
    for (auto& f : k.files) {
        Stamp s = stampOf(f);
        if (s.mtimeNs >= settled || s.ctimeNs >= settled) vouched = false;
        k.stamps.push_back(s);
    }
    // Untracked files are not asked about; a status must not rewrite the
    // repository's index (--no-optional-locks).
    auto r = runProcess(gitArgs(root_, {"status", "--porcelain", "--untracked-files=no"}), 4096);
    if (!r || r->exitCode != 0) return std::nullopt;
    const bool dirty = !r->out.empty();
    k.verdict = dirty;
    // The index rewritten while git read it: its answer may be of either.
    if (vouched && stampOf(indexPath) == index && index.mtimeNs < settled) kept_ = std::move(k);
    return dirty;
}

} // namespace engram
