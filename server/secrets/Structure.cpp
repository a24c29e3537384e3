// Structure: detectors for secrets recognised by their framing rather than a token shape:
// PEM/OpenSSH/PGP and PuTTY private keys, merge-conflict marker lines, JWTs, 1Password refs.
//
// These need context a single regular expression does not express cheaply (a BEGIN line
// paired with its END line, key material under a header), so they stay hand-written; each is a
// forward scan with bounded look-ahead, linear in the input.
#include "secrets/Chars.h"
#include "secrets/Rules.h"

#include <algorithm>
#include <map>
#include <string>

namespace engram::secrets {

using namespace chars;

namespace {

// --- PEM blocks --------------------------------------------------------------------------

struct PemMarker {
    std::size_t begin; // first '-' of the marker line
    std::size_t end;   // just past the closing "-----"
    std::string_view label;
};

struct PemBlock {
    std::size_t begin;     // the BEGIN marker
    std::size_t headerEnd; // just past the BEGIN marker
    std::size_t end;       // just past the matching END marker, or npos when there is none
    std::string_view label;
};

// Every "-----<kind> LABEL-----" marker, in order.
std::vector<PemMarker> pemMarkers(std::string_view t, std::string_view kind) {
    constexpr std::size_t kMaxLabel = 64;
    std::vector<PemMarker> out;
    std::size_t pos = 0;
    while ((pos = t.find(kind, pos)) != npos) {
        const std::size_t labelStart = pos + kind.size();
        std::size_t j = labelStart;
        while (j < t.size() && j - labelStart < kMaxLabel &&
               (isUpper(t[j]) || isDigit(t[j]) || t[j] == ' '))
            ++j;
        if (j > labelStart && t.substr(j, 5) == "-----")
            out.push_back({pos, j + 5, t.substr(labelStart, j - labelStart)});
        pos = labelStart;
    }
    return out;
}

// BEGIN markers paired with the first later END marker of the same label. The END markers are
// indexed once, so hostile input with thousands of unterminated BEGIN lines stays linear.
std::vector<PemBlock> pemBlocks(std::string_view t) {
    const std::vector<PemMarker> begins = pemMarkers(t, "-----BEGIN ");
    if (begins.empty()) return {};
    std::map<std::string_view, std::vector<std::size_t>> endsByLabel; // END marker ends, sorted
    std::map<std::string_view, std::size_t> nextEnd;
    for (const PemMarker& m : pemMarkers(t, "-----END "))
        endsByLabel[m.label].push_back(m.end);
    std::vector<PemBlock> blocks;
    for (const PemMarker& b : begins) {
        std::size_t end = npos;
        if (auto it = endsByLabel.find(b.label); it != endsByLabel.end()) {
            std::size_t& i = nextEnd[b.label];
            while (i < it->second.size() && it->second[i] <= b.end)
                ++i;
            if (i < it->second.size()) end = it->second[i];
        }
        blocks.push_back({b.begin, b.end, end, b.label});
    }
    return blocks;
}

bool isPrivateLabel(std::string_view label) {
    return label.find("PRIVATE KEY") != npos;
}

// Key material is a base64 run of some length mixing letters and digits: what distinguishes a
// pasted key from a sentence that merely names the header ("files start with -----BEGIN ...").
bool hasKeyMaterial(std::string_view body) {
    constexpr std::size_t kMinRun = 20;
    std::size_t i = 0;
    while (i < body.size()) {
        if (!isB64(body[i])) {
            ++i;
            continue;
        }
        const std::size_t end = runEnd(body, i, isB64);
        if (end - i >= kMinRun) {
            bool upper = false, lower = false, digit = false;
            for (std::size_t k = i; k < end; ++k) {
                upper |= isUpper(body[k]);
                lower |= isLower(body[k]);
                digit |= isDigit(body[k]);
            }
            if (upper && lower && digit) return true;
        }
        i = end;
    }
    return false;
}

// The look-ahead for key material under a header: the first base64 line comes within a few
// header lines ("Proc-Type:", "DEK-Info:", "Comment:").
constexpr std::size_t kMaterialWindow = 1024;

void scanPuttyKeys(std::string_view t, Candidates& out) {
    constexpr std::string_view kHeader = "PuTTY-User-Key-File-";
    constexpr std::string_view kLines = "Private-Lines:";
    constexpr std::string_view kMac = "Private-MAC:";
    constexpr std::size_t kMaxKeyFile = 16384;
    std::size_t pos = 0;
    while ((pos = t.find(kHeader, pos)) != npos) {
        // Every header before the next "Private-Lines:" shares its verdict, so each failure
        // skips past it: the scan stays linear however many headers precede it.
        const std::size_t lines = t.find(kLines, pos);
        if (lines == npos) break;
        if (lines - pos > kMaxKeyFile) {
            pos = lines - kMaxKeyFile;
            continue;
        }
        const std::size_t body = lines + kLines.size();
        if (!hasKeyMaterial(t.substr(body, kMaterialWindow))) {
            pos = body;
            continue;
        }
        std::size_t end = t.size();
        if (const std::size_t mac = t.find(kMac, body); mac != npos && mac - pos <= kMaxKeyFile) {
            const std::size_t nl = t.find('\n', mac);
            end = nl == npos ? t.size() : nl;
        }
        out.push_back({Rule::PrivateKey, pos, end});
        pos = end;
    }
}

} // namespace

void scanPrivateKeys(std::string_view t, Candidates& out) {
    const std::vector<PemBlock> blocks = pemBlocks(t);
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const PemBlock& b = blocks[i];
        if (!isPrivateLabel(b.label)) continue;
        const std::size_t bodyEnd = b.end == npos ? t.size() : b.end;
        // Key material sits under its own header: looking no further than the next BEGIN line
        // keeps a text of many bare headers linear.
        const std::size_t nextBegin = i + 1 < blocks.size() ? blocks[i + 1].begin : t.size();
        const std::size_t limit = std::min({bodyEnd, nextBegin, b.headerEnd + kMaterialWindow});
        const std::size_t window = limit > b.headerEnd ? limit - b.headerEnd : 0;
        if (!hasKeyMaterial(t.substr(b.headerEnd, window))) continue;
        // Without an END line, everything after the header may be key material.
        out.push_back({Rule::PrivateKey, b.begin, bodyEnd});
    }
    scanPuttyKeys(t, out);
}

namespace {

// Where an unterminated public block ends: after the run of lines that look like its body
// (base64, or "Name: value" armor headers), so the text after it is scanned as usual.
std::size_t publicBodyEnd(std::string_view t, std::size_t from) {
    std::size_t lineStart = t.find('\n', from);
    if (lineStart == npos) return t.size();
    ++lineStart;
    while (lineStart < t.size()) {
        const std::size_t nl = t.find('\n', lineStart);
        const std::size_t lineEnd = nl == npos ? t.size() : nl;
        const std::string_view line = t.substr(lineStart, lineEnd - lineStart);
        const bool body = std::all_of(line.begin(), line.end(),
                                      [](char c) { return isB64(c) || c == '\r' || isBlank(c); });
        const std::size_t colon = line.find(": ");
        const bool armor = colon != npos && colon > 0 &&
                           std::all_of(line.begin(), line.begin() + colon,
                                       [](char c) { return isAlnum(c) || c == '-'; });
        if (!body && !armor) return lineStart;
        if (nl == npos) return t.size();
        lineStart = nl + 1;
    }
    return t.size();
}

} // namespace

std::vector<Span> publicBlocks(std::string_view t) {
    std::vector<Span> spans;
    for (const PemBlock& b : pemBlocks(t)) {
        // A block starting inside the previous one is covered by it; skipping it also keeps
        // the walks over unterminated bodies from overlapping.
        if (b.label.find("PRIVATE") != npos || (!spans.empty() && b.begin < spans.back().second))
            continue;
        spans.push_back({b.begin, b.end != npos ? b.end : publicBodyEnd(t, b.headerEnd)});
    }
    return spans;
}

// --- merge-conflict-marker ---------------------------------------------------------------

namespace {

// The marker a line is, if any: '<', '|', '>' or '='.
char conflictMarker(std::string_view line) {
    if (line == "=======") return '=';
    // diff3-style base markers ("|||||||") are the same debris as the two in the spec.
    for (std::string_view m : {"<<<<<<<", ">>>>>>>", "|||||||"}) {
        if (line.starts_with(m) && (line.size() == m.size() || line[m.size()] == ' ')) return m[0];
    }
    return 0;
}

} // namespace

// A lone "=======" line is also how Markdown underlines a heading; it counts as debris only
// beside an opening or closing marker, which a conflict always leaves.
void scanMergeMarkers(std::string_view t, Candidates& out) {
    Candidates separators;
    bool sided = false;
    std::size_t lineStart = 0;
    while (lineStart < t.size()) {
        const std::size_t nl = t.find('\n', lineStart);
        std::size_t lineEnd = nl == npos ? t.size() : nl;
        if (lineEnd > lineStart && t[lineEnd - 1] == '\r') --lineEnd;
        if (const char m = conflictMarker(t.substr(lineStart, lineEnd - lineStart))) {
            (m == '=' ? separators : out)
                .push_back({Rule::MergeConflictMarker, lineStart, lineEnd});
            sided = sided || m == '<' || m == '>';
        }
        if (nl == npos) break;
        lineStart = nl + 1;
    }
    if (sided) out.insert(out.end(), separators.begin(), separators.end());
}

// --- jwt and 1password-ref ---------------------------------------------------------------

void scanJwt(std::string_view t, Candidates& out) {
    std::size_t pos = 0;
    while ((pos = t.find("eyJ", pos)) != npos) {
        std::size_t next = pos + 1;
        if (boundaryBefore(t, pos)) {
            const std::size_t headerEnd = runEnd(t, pos, isB64Url);
            next = headerEnd; // later "eyJ" in this run share its dots, so share its verdict
            if (headerEnd - pos < 10 || headerEnd >= t.size() || t[headerEnd] != '.') {
                pos = next;
                continue;
            }
            const std::size_t payload = headerEnd + 1;
            if (t.substr(payload, 3) != "eyJ") {
                pos = next;
                continue;
            }
            const std::size_t payloadEnd = runEnd(t, payload, isB64Url);
            if (payloadEnd - payload < 10 || payloadEnd >= t.size() || t[payloadEnd] != '.') {
                pos = next;
                continue;
            }
            const std::size_t sig = payloadEnd + 1;
            const std::size_t sigEnd = runEnd(t, sig, isB64Url);
            if (sigEnd - sig >= 8) {
                out.push_back({Rule::Jwt, pos, sigEnd});
                next = sigEnd;
            }
        }
        pos = next;
    }
}

void scanOnePassword(std::string_view t, Candidates& out) {
    std::size_t pos = 0;
    while ((pos = t.find("op://", pos)) != npos) {
        std::size_t next = pos + 1;
        if (boundaryBefore(t, pos)) {
            const std::size_t body = pos + 5;
            std::size_t end =
                runEnd(t, body, [](char c) { return !isSpace(c) && !isQuote(c) && c != '<'; });
            // Vault and item names may hold spaces; quoted, the reference runs to the quote.
            if (pos > 0 && isQuote(t[pos - 1])) {
                const std::size_t close = findOnLine(t, body, t[pos - 1], 256);
                if (close != npos) end = close;
            }
            // Sentence punctuation after a reference is prose, not part of the path.
            while (end > body && std::string_view(".,;:)]}>").find(t[end - 1]) != npos)
                --end;
            if (end > body) {
                out.push_back({Rule::OnePasswordRef, pos, end});
                next = end;
            }
        }
        pos = next;
    }
}

} // namespace engram::secrets
