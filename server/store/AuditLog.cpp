// Append and verify the hash-chained audit log.
//
// Line format (tab-separated, values escaped like claim header values):
//   seq  time  act  claim  agent  detail  prev  hash
#include "store/AuditLog.h"

#include "store/ClaimFile.h"
#include "util/Fs.h"
#include "util/Hash.h"
#include "util/Lines.h"
#include "util/Time.h"

#include <fcntl.h>
#include <unistd.h>
#include <vector>

namespace engram {

static const std::string kGenesis(64, '0');
// Longer than any entry engram writes (their free text is bounded where it
// is accepted); see verify().
constexpr size_t kMaxAuditLine = 1 << 20;

static std::string body(const AuditEntry& e) {
    return std::to_string(e.seq) + "\t" + formatUtc(e.time) + "\t" + escapeValue(e.act) + "\t" +
           escapeValue(e.claim) + "\t" + escapeValue(e.agent) + "\t" + escapeValue(e.detail) +
           "\t" + e.prev;
}

// The last complete line of the log, read from the end so appends stay O(1).
static std::string lastLine(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return {};
    off_t size = ::lseek(fd.get(), 0, SEEK_END);
    off_t chunk = std::min<off_t>(size, 8192);
    std::string buf(size_t(chunk), '\0');
    if (::pread(fd.get(), buf.data(), size_t(chunk), size - chunk) != chunk) return {};
    while (!buf.empty() && buf.back() == '\n')
        buf.pop_back();
    auto nl = buf.rfind('\n');
    return nl == std::string::npos ? buf : buf.substr(nl + 1);
}

AuditEntry AuditLog::append(std::string act, std::string claim, std::string agent,
                            std::string detail) {
    AuditEntry e{
        0,        nowUnix(), std::move(act), std::move(claim), std::move(agent), std::move(detail),
        kGenesis, ""};
    auto last = splitFields(lastLine(path_), '\t');
    if (last.size() == 8) {
        e.seq = std::atoll(last[0].c_str()) + 1;
        e.prev = last[7];
    } else {
        e.seq = 1;
    }
    std::string b = body(e);
    e.hash = sha256Hex(b);
    appendDurable(path_, b + "\t" + e.hash + "\n");
    return e;
}

void AuditLog::appendAll(const std::vector<std::array<std::string, 4>>& entries) {
    if (entries.empty()) return;
    auto last = splitFields(lastLine(path_), '\t');
    int64_t seq = last.size() == 8 ? std::atoll(last[0].c_str()) : 0;
    std::string prev = last.size() == 8 ? last[7] : kGenesis;
    std::string text;
    int64_t now = nowUnix();
    for (auto& [act, claim, agent, detail] : entries) {
        AuditEntry e{++seq, now, act, claim, agent, detail, prev, ""};
        std::string b = body(e);
        e.hash = sha256Hex(b);
        text += b + "\t" + e.hash + "\n";
        prev = e.hash;
    }
    // One durable write for the lot: a pull can bring thousands of claims.
    appendDurable(path_, text);
}

AuditVerdict AuditLog::verify() const {
    // Streamed: a log of millions of entries (or a hostile clone's gigabyte
    // line) is checked in bounded memory. No entry engram writes comes near
    // the line bound; a longer line is malformed.
    AuditVerdict v;
    std::string prev = kGenesis;
    readLines(path_, kMaxAuditLine, [&](const FileLine& l) {
        std::string_view line = l.text;
        if (line.empty()) return true;
        ++v.entries;
        auto f = splitFields(line, '\t');
        if (l.cut || f.size() != 8) {
            v = {false, v.entries, v.entries, "malformed entry"};
            return false;
        }
        auto tab = line.rfind('\t');
        if (f[6] != prev || sha256Hex(line.substr(0, tab)) != f[7]) {
            v = {false, v.entries, v.entries,
                 f[6] != prev ? "entry does not chain to the previous one"
                              : "entry hash does not match its contents"};
            return false;
        }
        prev = f[7];
        return true;
    });
    return v;
}

} // namespace engram
