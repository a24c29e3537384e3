// File and line-range anchors with a whitespace-blind digest.
#include "engine/Anchoring.h"

#include "model/Error.h"
#include "util/Fs.h"
#include "util/Hash.h"
#include "util/Paths.h"

namespace engram {

// Collapses every run of white space to one space and trims, so re-indenting
// or re-wrapping does not count as a change.
static std::string normalizedDigest(std::string_view text) {
    std::string norm;
    norm.reserve(text.size());
    bool space = false;
    for (char c : text) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            space = !norm.empty();
        } else {
            if (space) norm += ' ';
            space = false;
            norm += c;
        }
    }
    return sha256Hex(norm).substr(0, 32);
}

// Lines [start, end] (1-based, inclusive); nullopt when the file is shorter.
static std::optional<std::string_view> lineRange(std::string_view text, int start, int end) {
    size_t pos = 0;
    int line = 1;
    while (line < start) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) return std::nullopt;
        pos = nl + 1;
        ++line;
    }
    size_t from = pos;
    while (line <= end) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) {
            if (line < end) return std::nullopt;
            pos = text.size();
            break;
        }
        pos = nl + 1;
        ++line;
    }
    if (from >= text.size() && start > 1) return std::nullopt;
    return text.substr(from, pos - from);
}

Anchor resolveAnchor(const std::string& root, const AnchorSpec& spec, const std::string& field) {
    auto rel = relativeToRoot(root, spec.path);
    if (!rel)
        throw EngramError(ErrorKind::OutsideRoot,
                          field + ".path: '" + spec.path + "' is outside the workspace root " +
                              root,
                          {{"field", field + ".path"}, {"root", root}});
    if (spec.symbol || spec.line)
        throw EngramError(ErrorKind::AnchorNotFound,
                          field + ": symbol anchors need the code index, which this build does "
                                  "not have yet; anchor the file or a line range instead",
                          {{"field", field}});
    auto contents = readFile(root + "/" + *rel);
    if (!contents)
        throw EngramError(ErrorKind::AnchorNotFound,
                          field + ".path: no readable file '" + *rel + "' in the workspace",
                          {{"field", field + ".path"}, {"path", *rel}});
    Anchor a;
    a.path = *rel;
    if (spec.lines) {
        auto [s, e] = *spec.lines;
        if (s < 1 || e < s)
            throw invalidField(field + ".range", "must be START-END with 1 <= START <= END");
        auto text = lineRange(*contents, s, e);
        if (!text)
            throw EngramError(ErrorKind::AnchorNotFound,
                              field + ".range: " + *rel + " has fewer than " + std::to_string(e) +
                                  " lines",
                              {{"field", field + ".range"}, {"path", *rel}});
        a.nodeKind = "range";
        a.startLine = s;
        a.endLine = e;
        a.hash = normalizedDigest(*text);
    } else {
        a.nodeKind = "file";
        a.hash = normalizedDigest(*contents);
    }
    return a;
}

std::string anchorState(const std::string& root, const Anchor& a) {
    auto rel = relativeToRoot(root, a.path);
    if (!rel) return "orphaned";
    auto contents = readFile(root + "/" + *rel);
    if (!contents) return "orphaned";
    std::string digest;
    if (a.startLine > 0) {
        auto text = lineRange(*contents, a.startLine, a.endLine);
        if (!text) return "orphaned";
        digest = normalizedDigest(*text);
    } else if (a.nodeKind == "file" || a.symbol.empty()) {
        digest = normalizedDigest(*contents);
    } else {
        // A symbol anchor written by a build with the code index; without it
        // the best honest answer is whether its file is still there.
        return "intact";
    }
    return a.hash.empty() || digest == a.hash ? "intact" : "drifted";
}

std::string claimAnchorState(const std::string& root, const Claim& c) {
    if (c.anchors.empty()) return "unanchored";
    // Severity order: orphaned > drifted > moved > intact.
    auto rank = [](const std::string& s) {
        return s == "orphaned" ? 3 : s == "drifted" ? 2 : s == "moved" ? 1 : 0;
    };
    std::string worst = "intact";
    for (auto& a : c.anchors) {
        auto s = anchorState(root, a);
        if (rank(s) > rank(worst)) worst = s;
    }
    return worst;
}

} // namespace engram
