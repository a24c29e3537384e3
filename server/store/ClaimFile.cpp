// Serialising and parsing claim files.
#include "store/ClaimFile.h"

#include "store/Merge.h"

#include "util/Time.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

namespace engram {

std::string escapeValue(std::string_view v) {
    std::string out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
        char c = v[i];
        // The reader trims a value's blanks: an outer space is escaped so
        // that it survives ("\ "), as a hand-written one did.
        if (c == ' ' && (i == 0 || i + 1 == v.size())) {
            out += "\\ ";
            continue;
        }
        switch (c) {
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string unescapeValue(std::string_view v) {
    std::string out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '\\' && i + 1 < v.size()) {
            char n = v[++i];
            out += n == 'n' ? '\n' : n == 'r' ? '\r' : n == 't' ? '\t' : n;
        } else {
            out += v[i];
        }
    }
    return out;
}

std::string formatConfidence(double c) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", c);
    std::string s = buf;
    while (s.back() == '0')
        s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

// Anchor attribute values are percent-encoded where they could be confused
// with the `k=v k=v` syntax (space, '=', '%') or break the line.
static std::string pct(std::string_view v) {
    std::string out;
    for (unsigned char c : v) {
        if (c <= ' ' || c == '%' || c == '=' || c == 0x7f) {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    return out;
}

static std::string unpct(std::string_view v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '%' && i + 2 < v.size()) {
            int x = 0;
            auto r = std::from_chars(v.data() + i + 1, v.data() + i + 3, x, 16);
            if (r.ec == std::errc() && r.ptr == v.data() + i + 3) {
                out += char(x);
                i += 2;
                continue;
            }
        }
        out += v[i];
    }
    return out;
}

std::string formatAnchor(const Anchor& a) {
    std::string s = "path=" + pct(a.path);
    if (!a.symbol.empty()) s += " symbol=" + pct(a.symbol);
    if (!a.language.empty()) s += " lang=" + pct(a.language);
    if (!a.nodeKind.empty()) s += " kind=" + pct(a.nodeKind);
    if (a.startLine > 0)
        s += " lines=" + std::to_string(a.startLine) + "-" + std::to_string(a.endLine);
    if (!a.hash.empty()) s += " hash=" + pct(a.hash);
    if (!a.shape.empty()) s += " shape=" + pct(a.shape);
    if (!a.head.empty()) s += " head=" + pct(a.head);
    if (a.twins > 1) s += " nth=" + std::to_string(a.ordinal) + "/" + std::to_string(a.twins);
    if (a.copies > 1) s += " copies=" + std::to_string(a.copies);
    if (!a.tokens.empty()) s += " tokens=" + pct(a.tokens);
    if (a.errors) s += " errors=1";
    if (a.rules > 0) s += " rules=" + std::to_string(a.rules);
    return s;
}

std::string serializeClaim(const Claim& c) {
    std::string out = "---\n";
    auto field = [&](std::string_view key, std::string_view value) {
        out += key;
        out += ": ";
        out += escapeValue(value);
        out += '\n';
    };
    field("id", c.id);
    field("version", std::to_string(c.version));
    if (!c.label.empty()) field("label", c.label);
    if (!c.kind.empty()) field("kind", c.kind);
    field("status", toString(c.status));
    if (c.confidence) field("confidence", formatConfidence(*c.confidence));
    if (c.created) field("created", formatUtc(*c.created));
    if (c.updated) field("updated", formatUtc(*c.updated));
    if (c.verified) field("verified", formatUtc(*c.verified));
    if (!c.sourceAgent.empty()) field("source_agent", c.sourceAgent);
    if (!c.origin.empty()) field("origin", c.origin);
    if (!c.supersedes.empty()) field("supersedes", c.supersedes);
    if (!c.forceReason.empty()) field("force_reason", c.forceReason);
    if (!c.tags.empty()) {
        std::string t;
        for (auto& tag : c.tags)
            t += (t.empty() ? "" : ", ") + tag;
        field("tags", t);
    }
    for (auto& a : c.anchors)
        field("anchor", formatAnchor(a));
    for (auto& e : c.evidence)
        field("evidence", e.type + " " + e.value);
    if (c.feedback.correct || c.feedback.wrong || c.feedback.partial)
        field("feedback", "correct=" + std::to_string(c.feedback.correct) +
                              " wrong=" + std::to_string(c.feedback.wrong) +
                              " partial=" + std::to_string(c.feedback.partial));
    if (!c.retractedBy.empty()) field("retracted_by", c.retractedBy);
    if (!c.retractReason.empty()) field("retract_reason", c.retractReason);
    if (!c.originClaim.empty()) field("origin_claim", c.originClaim);
    if (!c.promotedBy.empty()) field("promoted_by", c.promotedBy);
    if (c.promoted) field("promoted", formatUtc(*c.promoted));
    if (!c.promotionReason.empty()) field("promotion_reason", c.promotionReason);
    if (!c.promotedTo.empty()) field("promoted_to", c.promotedTo);
    if (!c.contributionId.empty()) field("contribution_id", c.contributionId);
    if (!c.contributedBy.empty()) field("contributed_by", c.contributedBy);
    if (!c.acceptedBy.empty()) field("accepted_by", c.acceptedBy);
    if (!c.packetId.empty()) field("packet_id", c.packetId);
    if (!c.contentHash.empty()) field("content_hash", c.contentHash);
    for (auto& [k, v] : c.extra)
        field(k, v);
    // Each diverged version is a whole claim file on one escaped line: the
    // header stays line-oriented and the nested text cannot be mistaken
    // for this claim's.
    for (auto& d : c.diverged)
        field("diverged", serializeClaim(d));
    out += "---\n";
    out += c.text;
    out += '\n';
    return out;
}

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

// A header value's blanks are trimmed, except a space escaped as "\ " at
// its end (escapeValue writes outer spaces that way).
std::string_view trimValue(std::string_view s) {
    std::string_view t = trim(s);
    size_t start = size_t(t.data() - s.data()), end = start + t.size();
    size_t slashes = 0;
    while (slashes < t.size() && t[t.size() - 1 - slashes] == '\\')
        ++slashes;
    if (slashes % 2 == 1 && end < s.size() && s[end] == ' ') return s.substr(start, t.size() + 1);
    return t;
}

template <class T>
bool parseNumber(std::string_view s, T& out) {
    auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

Anchor parseAnchorAt(std::string_view v, int line) {
    Anchor a;
    size_t i = 0;
    while (i < v.size()) {
        while (i < v.size() && v[i] == ' ')
            ++i;
        size_t end = v.find(' ', i);
        if (end == std::string_view::npos) end = v.size();
        std::string_view kv = v.substr(i, end - i);
        i = end;
        if (kv.empty()) continue;
        auto eq = kv.find('=');
        if (eq == std::string_view::npos)
            throw ClaimFileError(line,
                                 "anchor attribute '" + std::string(kv) + "' is not key=value");
        auto key = kv.substr(0, eq);
        auto val = unpct(kv.substr(eq + 1));
        if (key == "path")
            a.path = val;
        else if (key == "symbol")
            a.symbol = val;
        else if (key == "lang")
            a.language = val;
        else if (key == "kind")
            a.nodeKind = val;
        else if (key == "hash")
            a.hash = val;
        else if (key == "shape")
            a.shape = val;
        else if (key == "head")
            a.head = val;
        else if (key == "tokens")
            a.tokens = val;
        else if (key == "errors")
            a.errors = val == "1";
        else if (key == "rules") {
            // Read tolerantly: a value this engram cannot read leaves the
            // rules unknown, which is judged as an anchor from before
            // versions (never as intact by mistake).
            int v = 0;
            a.rules = parseNumber(std::string_view(val), v) && v > 0 ? v : 0;
        } else if (key == "copies") {
            if (!parseNumber(std::string_view(val), a.copies) || a.copies < 1)
                throw ClaimFileError(line, "anchor copies must be a positive count");
        } else if (key == "nth") {
            auto slash = val.find('/');
            if (slash == std::string::npos ||
                !parseNumber(std::string_view(val).substr(0, slash), a.ordinal) ||
                !parseNumber(std::string_view(val).substr(slash + 1), a.twins) || a.ordinal < 1 ||
                a.twins < a.ordinal)
                throw ClaimFileError(line, "anchor nth must be N/COUNT with 1 <= N <= COUNT");
        } else if (key == "lines") {
            auto dash = val.find('-');
            if (dash == std::string::npos ||
                !parseNumber(std::string_view(val).substr(0, dash), a.startLine) ||
                !parseNumber(std::string_view(val).substr(dash + 1), a.endLine) ||
                a.startLine < 1 || a.endLine < a.startLine)
                throw ClaimFileError(line, "anchor lines must be START-END (1-based)");
        }
        // Unknown anchor attributes are ignored, as unknown fields are.
    }
    if (a.path.empty()) throw ClaimFileError(line, "anchor has no path=");
    return a;
}

} // namespace

Anchor parseAnchor(std::string_view spec) {
    return parseAnchorAt(spec, 0);
}

static Claim parseOne(std::string_view contents, std::string_view expectedId);

Claim parseClaim(std::string_view contents, std::string_view expectedId) {
    // A merge without engram's driver leaves git's conflict markers: both
    // sides are read and merged in memory by the driver's rule, so nothing
    // is hidden, and the claim says it is unmerged (ARCHITECTURE.md, "Team memory").
    if (auto sides = splitConflict(contents)) {
        auto side = [&](const std::string& text, const char* name) {
            try {
                return parseOne(text, expectedId);
            } catch (const ClaimFileError& e) {
                throw ClaimFileError(sides->firstLine,
                                     std::string("git conflict: ") + name + " side: " + e.what());
            }
        };
        Claim ours = side(sides->ours, "our"), theirs = side(sides->theirs, "their");
        std::optional<Claim> base;
        if (sides->base) {
            try {
                base = parseOne(*sides->base, expectedId);
            } catch (const ClaimFileError&) {
                // An ancestor that does not parse is only less information.
            }
        }
        Claim c = mergeClaims(base ? &*base : nullptr, ours, theirs);
        c.unmerged = true;
        return c;
    }
    return parseOne(contents, expectedId);
}

// "a, b, c": blanks around each tag dropped, empty ones skipped.
static std::vector<std::string> parseTags(std::string_view val) {
    std::vector<std::string> out;
    std::string_view rest = val;
    while (!rest.empty()) {
        auto comma = rest.find(',');
        auto tag = trim(rest.substr(0, comma));
        if (!tag.empty()) out.emplace_back(tag);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return out;
}

static Feedback parseFeedback(std::string_view val, int line) {
    Feedback out;
    // "correct=N wrong=N partial=N", any order, missing = 0.
    std::string_view rest = val;
    while (!rest.empty()) {
        auto sp = rest.find(' ');
        auto kv = rest.substr(0, sp);
        rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
        if (kv.empty()) continue;
        auto eq = kv.find('=');
        int n = 0;
        if (eq == std::string_view::npos || !parseNumber(kv.substr(eq + 1), n) || n < 0)
            throw ClaimFileError(line, "feedback must be 'correct=N wrong=N partial=N'");
        auto k = kv.substr(0, eq);
        if (k == "correct")
            out.correct = n;
        else if (k == "wrong")
            out.wrong = n;
        else if (k == "partial")
            out.partial = n;
    }
    return out;
}

// One `key: value` line of a claim's header, into `c`; unknown keys are kept
// as they are (`extra`), so a newer engram's fields survive an older one.
static void readField(Claim& c, const std::string& key, const std::string& val, int line,
                      std::string_view expectedId) {
    auto time = [&](std::optional<int64_t>& out) {
        out = parseUtc(val);
        if (!out) throw ClaimFileError(line, key + " must be a UTC time like 2026-01-31T12:00:00Z");
    };
    if (key == "id")
        c.id = val;
    else if (key == "version") {
        if (!parseNumber(std::string_view(val), c.version) || c.version < 1)
            throw ClaimFileError(line, "version must be a positive integer");
    } else if (key == "label")
        c.label = val;
    else if (key == "kind")
        c.kind = val;
    else if (key == "status") {
        auto s = parseStatus(val);
        if (!s)
            throw ClaimFileError(line, "status must be committed, frontier, retracted or "
                                       "superseded, not '" +
                                           val + "'");
        c.status = *s;
    } else if (key == "confidence") {
        double d = 0;
        if (!parseNumber(std::string_view(val), d) || !(d >= 0.0 && d <= 1.0))
            throw ClaimFileError(line, "confidence must be a number in [0, 1]");
        c.confidence = d;
    } else if (key == "created")
        time(c.created);
    else if (key == "updated")
        time(c.updated);
    else if (key == "verified")
        time(c.verified);
    else if (key == "source_agent")
        c.sourceAgent = val;
    else if (key == "origin")
        c.origin = val;
    else if (key == "supersedes")
        c.supersedes = val;
    else if (key == "force_reason")
        c.forceReason = val;
    else if (key == "origin_claim")
        c.originClaim = val;
    else if (key == "promoted_by")
        c.promotedBy = val;
    else if (key == "promoted")
        time(c.promoted);
    else if (key == "promotion_reason")
        c.promotionReason = val;
    else if (key == "promoted_to")
        c.promotedTo = val;
    else if (key == "contribution_id")
        c.contributionId = val;
    else if (key == "contributed_by")
        c.contributedBy = val;
    else if (key == "accepted_by")
        c.acceptedBy = val;
    else if (key == "packet_id")
        c.packetId = val;
    else if (key == "content_hash")
        c.contentHash = val;
    else if (key == "tags") {
        c.tags = parseTags(val);
    } else if (key == "anchor")
        c.anchors.push_back(parseAnchorAt(val, line));
    else if (key == "evidence") {
        auto sp = val.find(' ');
        if (sp == std::string::npos)
            throw ClaimFileError(line, "evidence must be '<path|url|command|note> <value>'");
        c.evidence.push_back(
            {val.substr(0, sp), std::string(trim(std::string_view(val).substr(sp + 1)))});
    } else if (key == "feedback") {
        c.feedback = parseFeedback(val, line);
    } else if (key == "retracted_by")
        c.retractedBy = val;
    else if (key == "retract_reason")
        c.retractReason = val;
    else if (key == "diverged") {
        try {
            Claim d = parseOne(val, expectedId);
            for (auto& h : claimHeads(d))
                c.diverged.push_back(std::move(h));
        } catch (const ClaimFileError& e) {
            throw ClaimFileError(line, std::string("diverged version: ") + e.what());
        }
    } else
        c.extra.emplace_back(key, val);
}

static Claim parseOne(std::string_view contents, std::string_view expectedId) {
    Claim c;
    c.version = 0;
    int line = 0;
    size_t pos = 0;
    auto nextLine = [&](std::string_view& out) {
        if (pos >= contents.size()) return false;
        size_t nl = contents.find('\n', pos);
        if (nl == std::string_view::npos) nl = contents.size();
        out = contents.substr(pos, nl - pos);
        if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
        pos = nl + 1;
        ++line;
        return true;
    };

    std::string_view l;
    if (!nextLine(l) || trim(l) != "---")
        throw ClaimFileError(1, "expected '---' opening the claim header");

    std::set<std::string, std::less<>> seen;
    bool closed = false;
    bool haveStatus = false;
    while (nextLine(l)) {
        auto t = trim(l);
        if (t == "---") {
            closed = true;
            break;
        }
        if (t.empty() || t.front() == '#') continue;
        auto colon = t.find(':');
        if (colon == std::string_view::npos || colon == 0)
            throw ClaimFileError(line, "expected 'key: value'");
        std::string key(trim(t.substr(0, colon)));
        // A key of blanks (" \r: x") would be written back as ": x".
        if (key.empty()) throw ClaimFileError(line, "expected 'key: value'");
        // From the untrimmed line: an escaped space may end it.
        std::string val =
            unescapeValue(trimValue(l.substr(size_t(t.data() - l.data()) + colon + 1)));
        bool repeatable = key == "anchor" || key == "evidence" || key == "diverged";
        if (!repeatable && !seen.insert(key).second)
            throw ClaimFileError(line, "duplicate field '" + key + "'");

        readField(c, key, val, line, expectedId);
        haveStatus = haveStatus || key == "status";
    }
    if (!closed) throw ClaimFileError(line + 1, "the header is not closed by a '---' line");

    std::string_view body = contents.substr(std::min(pos, contents.size()));
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r'))
        body.remove_suffix(1);
    // Blank lines before the text go, whole: a lone '\r' is not a line
    // break (to git either), so it stays. Dropping it could put a line such
    // as "\r<<<<<<<" at the start of a line when the claim is written back,
    // where it would read as a conflict marker.
    for (;;) {
        if (body.starts_with('\n'))
            body.remove_prefix(1);
        else if (body.starts_with("\r\n"))
            body.remove_prefix(2);
        else
            break;
    }
    if (body.empty()) throw ClaimFileError(line + 1, "the claim has no text after the header");
    c.text = std::string(body);

    if (c.id.empty())
        c.id = std::string(expectedId);
    else if (!expectedId.empty() && c.id != expectedId)
        throw ClaimFileError(2, "id '" + c.id + "' does not match the file name '" +
                                    std::string(expectedId) + ".md'");
    if (c.version == 0) c.version = 1;
    // A hand-written claim without a status is meant to be live.
    if (!haveStatus) c.status = ClaimStatus::Committed;
    return c;
}

} // namespace engram
