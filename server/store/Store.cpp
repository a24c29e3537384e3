// Claim store directory management.
#include "store/Store.h"

#include "store/ClaimFile.h"
#include "store/Merge.h"
#include "store/StoreConfig.h"
#include "util/Hash.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <set>
#include <sodium.h>
#include <sys/stat.h>

namespace engram {

static const char* kGitignore = "# Written by engram: derived and local files stay out of git.\n"
                                "index.sqlite\n"
                                "index.sqlite-*\n"
                                "audit.log\n"
                                "lock\n"
                                "*.tmp-*\n";

Store::Store(std::string dir, std::string tier, std::string defaultName)
    : dir_(std::move(dir))
    , stateDir_(dir_)
    , tier_(std::move(tier))
    , name_(std::move(defaultName))
    , audit_(dir_ + "/audit.log") {
    if (auto text = readFile(dir_ + "/store.conf", nullptr, {kMaxStoreConfigBytes, false})) {
        StoreConfig conf = parseStoreConfig(*text);
        if (conf.name) name_ = *conf.name;
        languageMap_ = std::move(conf.languageMap);
        instructionGlobs_ = std::move(conf.instructionGlobs);
        configErrors_ = std::move(conf.errors);
        staleDays_ = conf.staleDays;
        teams_ = std::move(conf.teams);
        syncMinutes_ = conf.syncMinutes;
    }
}

std::string Store::originLabel() const {
    if (tier_ == "medulla") return "medulla";
    return (tier_ == "team" ? "team:" : "project:") + name_;
}

bool Store::exists() const {
    return statFile(claimsDir()).has_value();
}

std::string Store::claimPath(const std::string& id) const {
    return claimsDir() + "/" + id + ".md";
}

std::string Store::historyPath(const Claim& c) const {
    // The content's digest is in the name: two branches that keep different
    // versions under one number write two files, never one file twice with
    // different bytes (a git conflict), and the same version kept on both
    // branches is one file with identical bytes.
    return historyDir() + "/" + c.id + ".v" + std::to_string(c.version) + "." +
           sha256Hex(serializeClaim(c)).substr(0, 10) + ".md";
}

void Store::ensureLayout() {
    requireWritable();
    makeDirs(claimsDir());
    makeDirs(historyDir());
    if (!statFile(dir_ + "/.gitignore")) atomicWrite(dir_ + "/.gitignore", kGitignore);
    // Without a name the store is named after its root's directory (the
    // default the reader applies): an empty `name:` line would be an error.
    if (!statFile(dir_ + "/store.conf"))
        atomicWrite(dir_ + "/store.conf",
                    "# engram store\n" + (name_.empty() ? "" : "name: " + name_ + "\n"));
}

FileLock Store::lock() {
    makeDirs(stateDir_);
    return FileLock(stateDir_ + "/lock");
}

int Store::probeWritable() const {
    UniqueFd fd(::open((dir_ + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (fd) return 0;
    int err = errno;
    return err == EROFS || err == EACCES || err == EPERM ? err : 0;
}

std::optional<std::string> readClaimText(const std::string& path, FileStat* stat) {
    auto text = readFile(path, stat, {kMaxClaimFileBytes, false});
    if (!text) {
        int err = errno;
        if (err == ELOOP || err == EINVAL)
            throw ClaimFileError(0, "not a regular file (a symbolic link, a FIFO, a device or a "
                                    "directory): claim files are read only as regular files");
        return std::nullopt;
    }
    if (text->size() > kMaxClaimFileBytes)
        throw ClaimFileError(0, "larger than " + std::to_string(kMaxClaimFileBytes >> 20) +
                                    " MiB: not a claim file");
    return text;
}

std::optional<Claim> Store::load(const std::string& id) const {
    auto text = readClaimText(claimPath(id));
    if (!text) return std::nullopt;
    return parseClaim(*text, id);
}

void Store::requireWritable() const {
    if (readOnlyErrno_ == 0) return;
    throw FsError("the " + tier_ + " store " + dir_ + " cannot be written (" +
                      std::strerror(readOnlyErrno_) +
                      "): engram answers from it but records nothing",
                  dir_, readOnlyErrno_);
}

// Refused before anything is written: a file above the bound every reader
// applies would be acknowledged now and read as invalid later.
static std::string boundedClaimFile(const Claim& c) {
    std::string text = serializeClaim(c);
    if (text.size() > kMaxClaimFileBytes)
        throw invalidField("claim", "its file would be " + std::to_string(text.size()) +
                                        " bytes, more than the " +
                                        std::to_string(kMaxClaimFileBytes) +
                                        " a claim file may hold; nothing was written");
    return text;
}

void Store::write(const Claim& c) {
    requireWritable();
    atomicWrite(claimPath(c.id), boundedClaimFile(c));
}

void Store::writeHistory(const Claim& c) {
    requireWritable();
    atomicWrite(historyPath(c), boundedClaimFile(c));
}

// The writer's pid from "<file>.tmp-<pid>-<n>" (or "<file>.tmp-<pid>").
static std::optional<pid_t> temporaryWriter(const std::string& name) {
    auto at = name.rfind(".tmp-");
    if (at == std::string::npos) return std::nullopt;
    std::string rest = name.substr(at + 5);
    rest = rest.substr(0, rest.find('-'));
    if (rest.empty() || rest.size() > 9 ||
        rest.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    return pid_t(std::stol(rest));
}

Store::Temporaries Store::temporaries() const {
    Temporaries out;
    const int64_t now = int64_t(::time(nullptr));
    for (const auto& dir : {dir_, claimsDir(), historyDir()}) {
        for (auto& e : listEntries(dir)) {
            auto pid = temporaryWriter(e.name);
            if (!pid) continue;
            std::string path = dir + "/" + e.name;
            struct stat st;
            if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
            int64_t age = now - int64_t(st.st_mtime);
            bool running = ::kill(*pid, 0) == 0 || errno == EPERM;
            if ((!running && age >= 10) || age >= 3600)
                out.stale.push_back(std::move(path));
            else
                ++out.inFlight;
        }
    }
    return out;
}

int Store::removeStaleTemporaries() {
    if (readOnly()) return 0;
    int removed = 0;
    for (auto& path : temporaries().stale)
        removed += removeFile(path) ? 1 : 0;
    return removed;
}

std::vector<Claim> Store::versions(const std::string& id) const {
    std::vector<Claim> out;
    std::string prefix = id + ".v";
    for (auto& f : listFiles(historyDir())) {
        if (f.rfind(prefix, 0) != 0 || f.size() < 3 || f.substr(f.size() - 3) != ".md") continue;
        try {
            if (auto text = readClaimText(historyDir() + "/" + f))
                out.push_back(parseClaim(*text, id));
        } catch (const ClaimFileError&) {
            // A broken history file does not hide the rest of the history;
            // `engram check` reports it.
        }
    }
    std::optional<Claim> cur;
    try {
        cur = load(id);
    } catch (const ClaimFileError&) {
        // The current file is reported by `engram check`; the history stays.
    }
    std::vector<Claim> current;
    if (cur) {
        // The diverged versions a merge kept beside the live one are
        // versions of the claim as much as its history is.
        current = claimHeads(*cur);
        // A crash between writing history and the new current file can leave
        // a current version also in history; keep one copy.
        std::set<std::string> live;
        for (auto& h : current)
            live.insert(versionKey(h));
        std::erase_if(out, [&](const Claim& h) { return live.count(versionKey(h)) > 0; });
    }
    // One copy of each version (a branch written by an older engram names
    // history files without their digest), ordered by version.
    std::set<std::string> seen;
    std::erase_if(out, [&](const Claim& h) { return !seen.insert(serializeClaim(h)).second; });
    std::stable_sort(out.begin(), out.end(), [](const Claim& a, const Claim& b) {
        return a.version != b.version ? a.version < b.version : versionKey(a) < versionKey(b);
    });
    if (cur) {
        for (size_t i = 1; i < current.size(); ++i)
            out.push_back(current[i]);
        out.push_back(current[0]);
    }
    return out;
}

bool Store::validId(std::string_view id) {
    if (id.size() < 3 || id.size() > 64) return false;
    for (char c : id)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
            return false;
    return true;
}

std::string Store::newId() {
    // 60 random bits in Crockford-style base32: collision-free across
    // teammates' machines without coordination, short enough to type.
    static const char* alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
    unsigned char bytes[8];
    randombytes_buf(bytes, sizeof bytes);
    uint64_t v = 0;
    for (auto b : bytes)
        v = (v << 8) | b;
    std::string id = "c-";
    for (int i = 0; i < 12; ++i) {
        id += alphabet[v & 31];
        v >>= 5;
    }
    return id;
}

} // namespace engram
