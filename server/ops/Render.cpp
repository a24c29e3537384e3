// Text renderings of tool results.
#include "ops/Render.h"

#include <algorithm>
#include <cstdio>

namespace engram::ops::render {

static thread_local RenderLog* tlRenderLog = nullptr;

RenderLog::RenderLog()
    : outer_(tlRenderLog) {
    tlRenderLog = this;
}

RenderLog::~RenderLog() {
    tlRenderLog = outer_;
}

void RenderLog::note(const char* name) {
    if (tlRenderLog) tlRenderLog->names_.insert(name);
}

// A member, or null when absent (operator[] on a const json must not miss).
const json& member(const json& j, const char* key) {
    RenderLog::note(key);
    static const json null;
    if (!j.is_object()) return null;
    auto it = j.find(key);
    return it == j.end() ? null : *it;
}

// A member as text: strings as they are, numbers and booleans printed,
// absent or null as empty.
std::string field(const json& j, const char* key) {
    RenderLog::note(key);
    if (!j.is_object()) return {};
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return {};
    if (it->is_string()) return it->get<std::string>();
    return it->dump();
}

std::string quoted(const std::string& s) {
    return s.empty() ? std::string() : " \"" + s + "\"";
}

std::string feedbackText(const json& f) {
    std::string out = field(f, "correct") + " correct, " + field(f, "wrong") + " wrong, " +
                      field(f, "partial") + " partial";
    if (field(f, "contested") == "true") out += " (contested: more wrong than correct)";
    return out;
}

namespace {

int64_t count(const json& j, const char* key) {
    RenderLog::note(key);
    if (!j.is_object()) return 0;
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

// "written 3 days ago", "written just now", "age unknown"
std::string written(const std::string& age) {
    if (age.empty() || age == "unknown") return "age unknown";
    return age == "just now" ? "written just now" : "written " + age + " ago";
}

std::string anchorText(const json& a) {
    std::string out = field(a, "path");
    if (auto sym = field(a, "symbol"); !sym.empty()) out += "#" + sym;
    if (a.contains("range") && member(a, "range").is_object())
        out += " (lines " + field(member(a, "range"), "start_line") + "-" +
               field(member(a, "range"), "end_line") + ")";
    // Only an answer that judged its anchors (recall, get) has their states.
    if (!a.contains("state")) return out;
    auto state = field(a, "state");
    out += " [" + state + "]";
    // Where changed code is now, so the row says what to check.
    if ((state == "moved" || state == "drifted") && a.contains("current") &&
        member(a, "current").is_object()) {
        const json& now = member(a, "current");
        out += " now ";
        if (auto sym = field(now, "symbol"); !sym.empty()) out += sym + " at ";
        out += field(now, "path") + ", " + lineSpan(member(now, "range"));
    }
    return out;
}

// What a recall asked that matched nothing, one line each.
std::string noticesText(const json& r) {
    std::string out;
    if (r.contains("notices"))
        for (auto& n : member(r, "notices"))
            out += "note: " + n.get<std::string>() + "\n";
    return out;
}

std::string anchorList(const json& claim) {
    std::string out;
    if (!claim.contains("anchors") || !member(claim, "anchors").is_array()) return out;
    for (auto& a : member(claim, "anchors"))
        out += (out.empty() ? "" : "; ") + anchorText(a);
    return out;
}

// `c-… v2 "label" · gotcha · committed · confidence 0.9`
std::string head(const json& c) {
    std::string out = field(c, "id") + " v" + field(c, "version") + quoted(field(c, "label"));
    out += " · " + field(c, "kind") + " · " + field(c, "status");
    out += " · confidence " + field(c, "confidence");
    return out;
}

// What could not be judged, one line per reason, in words (from the
// envelope's non_claims, which say it for people and models alike).
std::string notJudgedText(const json& e) {
    std::string out;
    if (!e.is_object() || !e.contains("not_judged")) return out;
    for (auto& line : member(e, "non_claims"))
        if (line.is_string() && line.get<std::string>().find(" not judged (") != std::string::npos)
            out += line.get<std::string>() + "\n";
    return out;
}

// One line on the envelope: where the answer comes from and how far to
// trust it, plus the suggested next call when there is one.
std::string envelopeText(const json& e) {
    if (!e.is_object()) return {};
    const json& b = member(e, "binding");
    std::string out = "bound to " + field(b, "root") + " (" + field(b, "source") + ")";
    if (field(b, "mismatch") == "true")
        out += "; you asked about " + field(b, "requested_root") + ", which is not bound here";
    out += " · trust: " + field(e, "trust_mode");
    if (auto err = field(member(e, "observed"), "error"); !err.empty()) out += " · error: " + err;
    out += "\n";
    if (e.contains("recovery") && member(e, "recovery").is_object())
        out += "next: " + field(member(e, "recovery"), "method") + " (" +
               field(member(e, "recovery"), "reason") + ")\n";
    out += notJudgedText(e);
    return out;
}

std::string storesText(const json& e) {
    std::string out;
    if (!e.is_object() || !e.contains("store")) return out;
    for (auto& s : member(e, "store")) {
        out += field(s, "tier") + " store " + field(s, "path") + ": ";
        if (auto err = field(s, "error"); !err.empty()) {
            out += "cannot be read: " + err + "\n";
            continue;
        }
        if (field(s, "exists") != "true") {
            out += "does not exist yet\n";
            continue;
        }
        const json& c = member(s, "claims");
        out += std::to_string(count(c, "committed")) + " live, " +
               std::to_string(count(c, "frontier")) + " frontier, " +
               std::to_string(count(c, "retracted")) + " retracted, " +
               std::to_string(count(c, "superseded")) + " superseded; " +
               std::to_string(count(s, "anchors")) + " anchors";
        if (int64_t broken = count(s, "broken_files")) {
            out += "; " + std::to_string(broken) + " claim files do not parse";
        }
        if (field(s, "reconciled") == "false")
            out += "; " + std::to_string(count(s, "unchecked_files")) +
                   " claim files not yet checked against the index";
        out += "\n";
    }
    return out;
}

std::string claimBlock(const json& c) {
    std::string out = head(c) + "\n";
    out += "by " + field(c, "source_agent") + ", created " + field(c, "created") + ", origin " +
           field(c, "origin");
    if (auto v = field(c, "verified"); !v.empty()) out += ", re-verified " + v;
    out += "\n";
    if (auto a = anchorList(c); !a.empty()) out += "anchors: " + a + "\n";
    if (auto st = field(c, "anchor_state"); st == "drifted" || st == "orphaned")
        out += "UNVERIFIED (" + st +
               "): the code changed since this was written; check it against the code, then "
               "reverify or retract\n";
    out += field(c, "text") + "\n";
    if (c.contains("feedback")) out += "feedback: " + feedbackText(member(c, "feedback")) + "\n";
    if (auto r = field(c, "retract_reason"); !r.empty())
        out += "retracted by " + field(c, "retracted_by") + ": " + r + "\n";
    return out;
}

} // namespace

std::string remember(const json& r) {
    const json& c = member(r, "claim");
    std::string out = "Remembered " + field(c, "id") + " v" + field(c, "version") +
                      quoted(field(c, "label")) + " (" + field(c, "kind") + ", " +
                      field(r, "tier") + " tier)\n";
    if (auto a = anchorList(c); !a.empty()) out += "anchors: " + a + "\n";
    if (r.contains("superseded") && member(r, "superseded").is_object())
        out += "It supersedes v" + field(member(r, "superseded"), "version") +
               " (kept in history): " + field(member(r, "superseded"), "text") + "\n";
    if (r.contains("related") && !member(r, "related").empty()) {
        out += "Live claims it probably restates or contradicts (keep one: retract the one that "
               "no longer holds; a correction remembered under the old label supersedes it):\n";
        for (auto& x : member(r, "related"))
            out += "- " + field(x, "relation") + " " + field(x, "id") + quoted(field(x, "label")) +
                   " (" + field(x, "why") + "): " + field(x, "text") + "\n";
    }
    return out;
}

// Instruction files' paragraphs beside the claims, labelled by file and line.
std::string instructionHits(const json& r) {
    if (!r.contains("instructions")) return "";
    std::string out = "\nFrom the instruction files (not claims; edit the file to change them):";
    for (auto& h : member(r, "instructions")) {
        out += "\n- " + field(h, "file") + ":" + field(h, "line") + "-" + field(h, "end_line");
        if (auto head = field(h, "heading"); !head.empty()) out += " (" + head + ")";
        out += "\n  " + field(h, "text");
        std::string states;
        for (auto& ref : member(h, "references"))
            if (field(ref, "state") != "ok")
                states += (states.empty() ? "" : ", ") + std::string("`") +
                          field(ref, "reference") + "` " + field(ref, "state");
        if (!states.empty()) out += "\n  CHECK: " + states;
    }
    return out + "\n";
}

namespace {

// Whether the envelope says nothing a model must read: full trust, bound
// as asked, no error and no suggested recovery.
bool envelopeTrusted(const json& e) {
    if (!e.is_object()) return true;
    return field(e, "trust_mode") == "full_trust" &&
           field(member(e, "binding"), "mismatch") != "true" &&
           field(member(e, "observed"), "error").empty() && !member(e, "recovery").is_object() &&
           !e.contains("not_judged");
}

// "matched 'session' in text; matched 'token' in anchor; matched 'refresh'
// in text" as "'session', 'refresh' in text; 'token' in anchor": the words
// grouped by where they matched, in the order first met; other reasons as
// they are.
std::string whyText(const json& why) {
    std::vector<std::pair<std::string, std::string>> groups; // place, words
    std::vector<std::string> others;
    for (auto& w : why) {
        if (!w.is_string()) continue;
        const std::string& s = w.get_ref<const std::string&>();
        auto in = s.rfind("' in ");
        if (!s.starts_with("matched '") || in == std::string::npos || in < 9) {
            others.push_back(s);
            continue;
        }
        std::string word = s.substr(8, in - 8 + 1), place = s.substr(in + 5);
        auto g = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& p) { return p.first == place; });
        if (g == groups.end())
            groups.emplace_back(place, word);
        else
            g->second += ", " + word;
    }
    std::string out;
    for (auto& [place, words] : groups)
        out += (out.empty() ? "" : "; ") + words + " in " + place;
    for (auto& o : others)
        out += (out.empty() ? "" : "; ") + o;
    return out;
}

// A score as two decimals (the structured row has four).
std::string shortScore(const json& row) {
    const json& s = member(row, "score");
    if (!s.is_number()) return field(row, "score");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", s.get<double>());
    return buf;
}

// One recall row in the fewest lines a model reads: what it is, where it
// points and in what state, its text, why it was served. The author, the
// origin and the confidence only where they differ from the row before
// (or from the default); structuredContent carries every field.
std::string rowText(const json& row, int n, std::string& lastAuthor, std::string& lastOrigin) {
    std::string out = "\n" + std::to_string(n) + ".";
    if (auto label = field(row, "label"); !label.empty()) out += " \"" + label + "\"";
    out += " " + field(row, "kind") + " · " + written(field(row, "age")) + " · " + field(row, "id");
    if (auto by = field(row, "source_agent"); by != lastAuthor) {
        out += " · by " + by;
        lastAuthor = by;
    }
    if (auto tier = field(row, "tier"); tier != "project")
        out += " · " + tier + (tier == "other" ? " (" + field(row, "store") + ")" : "");
    if (auto c = field(row, "confidence"); c != "0.7") out += " · confidence " + c;
    if (field(row, "stale") == "true") out += " · STALE";
    if (field(row, "status") != "committed") out += " · " + field(row, "status");
    out += "\n";
    if (auto a = anchorList(row); !a.empty())
        out += "   at " + a + "\n";
    else
        out += "   unanchored\n";
    auto st = field(row, "anchor_state");
    if (st == "drifted" || st == "orphaned")
        out += "   UNVERIFIED: the anchored code changed; check before relying on it, then "
               "reverify or retract\n";
    out += "   " + field(row, "text") + "\n";
    // Neither branch's memory is hidden: every version a merge kept.
    if (field(row, "unmerged") == "true")
        out += "   UNMERGED: its file holds git conflict markers; both sides are served "
               "until someone runs engram resolve " +
               field(row, "id") + "\n";
    if (row.contains("label_shared_with"))
        for (auto& other : member(row, "label_shared_with"))
            out += "   LABEL SHARED with live claim " + other.get<std::string>() +
                   " (written on another branch): which one holds is undecided\n";
    if (row.contains("near_duplicates")) {
        std::string ids;
        for (auto& other : member(row, "near_duplicates"))
            ids += (ids.empty() ? "" : ", ") + other.get<std::string>();
        out += "   NEAR DUPLICATES (folded into this row): " + ids + "\n";
    }
    if (row.contains("diverged"))
        for (auto& d : member(row, "diverged"))
            out += "   DIVERGED, also kept: v" + field(d, "version") + " (" + field(d, "status") +
                   ", by " + field(d, "source_agent") + "): " + field(d, "text") + "\n";
    if (row.contains("superseded_versions"))
        for (auto& v : member(row, "superseded_versions"))
            out += "   SUPERSEDED v" + field(v, "version") + " (by " + field(v, "source_agent") +
                   "): " + field(v, "text") + "\n";
    // The provenance when it adds to the line above: a promotion, a later
    // version, a re-verification, or another origin than the row before.
    auto origin = field(row, "origin");
    auto p = field(row, "provenance");
    if (p.find("; ") != std::string::npos || (!lastOrigin.empty() && origin != lastOrigin))
        out += "   " + p + "\n";
    lastOrigin = origin;
    // Why it was served, so a model can weigh a weak match.
    std::string why = row.contains("why") ? whyText(member(row, "why")) : "";
    out += "   score " + shortScore(row) + (why.empty() ? "" : ": " + why) + "\n";
    return out;
}

} // namespace

std::string recall(const json& r) {
    const json& rows = member(r, "rows");
    const json& env = member(r, "envelope");
    std::string out;
    if (rows.empty()) {
        out = "No claim matched";
        if (auto why = field(r, "why_empty"); !why.empty()) out += ": " + why;
        out += "\n";
        std::string exists;
        auto add = [&](const std::string& where, const json& n) {
            exists += (exists.empty() ? "" : ", ") + where + " " +
                      std::to_string(count(n, "live")) + " live / " +
                      std::to_string(count(n, "other")) + " other";
        };
        for (auto& [tier, n] : member(r, "memory_exists").items()) {
            if (n.is_object() && !n.contains("live")) {
                for (auto& [store, m] : n.items())
                    add(tier + " " + store, m); // one entry per store
            } else {
                add(tier, n);
            }
        }
        if (!exists.empty()) out += "memory exists: " + exists + "\n";
        return out + noticesText(r) + envelopeText(env) + instructionHits(r);
    }
    out = std::to_string(rows.size()) + (rows.size() == 1 ? " claim" : " claims");
    // The envelope in words only when it has something to say: all is well
    // when trust is full and nothing failed (structuredContent carries it).
    if (envelopeTrusted(env))
        out += "\n";
    else
        out += " · " + envelopeText(env);
    int n = 0;
    std::string lastAuthor, lastOrigin;
    for (auto& row : rows)
        out += rowText(row, ++n, lastAuthor, lastOrigin);
    if (r.contains("unreachable"))
        for (auto& u : member(r, "unreachable"))
            out += "\nunreachable: " + field(u, "root") + ": " + field(u, "reason");
    if (field(r, "truncated") == "true")
        out += "\n(more claims matched: raise limit or max_chars)\n";
    out += noticesText(r);
    return out + instructionHits(r);
}

std::string get(const json& r) {
    const json& c = member(r, "claim");
    std::string out = claimBlock(c);
    out += "file: " + field(c, "file") + " (" + field(c, "tier") + " tier)\n";
    if (r.contains("history") && !member(r, "history").empty()) {
        out += "history:\n";
        for (auto& h : member(r, "history"))
            out += "  v" + field(h, "version") + " by " + field(h, "source_agent") + ", " +
                   field(h, "created") + ": " + field(h, "text") + "\n";
    }
    return out;
}

std::string lineSpan(const TextRange& r) {
    // Ranges are 0-based (LSP) and end where the next line starts when they
    // cover whole lines; people count lines from 1 and name the last line
    // covered.
    uint32_t last = r.endLine;
    if (last > r.startLine && r.endColumn == 0) --last;
    if (last <= r.startLine) return "line " + std::to_string(r.startLine + 1);
    return "lines " + std::to_string(r.startLine + 1) + "-" + std::to_string(last + 1);
}

std::string lineSpan(const json& range) {
    const json& start = member(range, "start");
    const json& end = member(range, "end");
    return lineSpan(TextRange{uint32_t(count(start, "line")), uint32_t(count(start, "character")),
                              uint32_t(count(end, "line")), uint32_t(count(end, "character"))});
}

std::string anchors(const json& r) {
    const json& list = member(r, "anchors");
    std::string path = field(r, "path");
    if (list.empty()) return "No live claim is anchored in " + path + "\n";
    std::string out = std::to_string(list.size()) + (list.size() == 1 ? " anchor" : " anchors") +
                      " in " + path + ":\n";
    for (auto& a : list) {
        out += "- ";
        if (a.contains("range") && member(a, "range").is_object())
            out += lineSpan(member(a, "range")) + " ";
        out += field(a, "symbol") + " [" + field(a, "anchor_state");
        if (auto to = field(a, "moved_to"); !to.empty()) out += " to " + to;
        out += "] " + field(a, "claim_id") + quoted(field(a, "label")) + " (by " +
               field(a, "source_agent") + ", " + written(field(a, "age")) +
               "): " + field(a, "text") + "\n";
    }
    return out;
}

std::string check(const json& r) {
    const json& findings = member(r, "findings");
    std::string counts;
    for (auto& [code, n] : member(r, "summary").items())
        if (n.is_number_integer() && n.get<int64_t>() > 0)
            counts += (counts.empty() ? "" : ", ") + std::to_string(n.get<int64_t>()) + " " + code;
    int64_t unlisted = count(r, "unlisted"), total = int64_t(findings.size()) + unlisted;
    std::string live = field(r, "live_claims");
    std::string out = std::to_string(total) + (total == 1 ? " finding" : " findings") +
                      (counts.empty() ? "" : " (" + counts + ")") + " over " + live +
                      (live == "1" ? " live claim\n" : " live claims\n");
    for (auto& f : findings) {
        const json& start = member(member(f, "range"), "start");
        out += field(f, "path") + ":" + std::to_string(count(start, "line") + 1) + ":" +
               std::to_string(count(start, "character") + 1) + ": " + field(f, "severity") + ": " +
               field(f, "code") + ": " + field(f, "message") + "\n";
    }
    if (unlisted) out += "... and " + std::to_string(unlisted) + " more (raise max_findings)\n";
    return out;
}

std::string status(const json& r) {
    const json& e = member(r, "envelope");
    const json& b = member(e, "binding");
    std::string out = "engram " + field(member(e, "session"), "version") + " · root " +
                      field(b, "root") + " (" + field(b, "source") + "), fingerprint " +
                      field(b, "fingerprint") + "\n";
    out += "status " + field(e, "status") + " · trust: " + field(e, "trust_mode") + "\n";
    out += storesText(e);
    const json& h = member(r, "anchor_health");
    out += "anchor health: " + std::to_string(count(h, "intact")) + " intact, " +
           std::to_string(count(h, "drifted")) + " drifted, " + std::to_string(count(h, "moved")) +
           " moved, " + std::to_string(count(h, "orphaned")) + " orphaned" +
           (count(h, "unjudged") ? ", " + std::to_string(count(h, "unjudged")) + " not judged"
                                 : std::string()) +
           "\n";
    for (auto& f : member(r, "broken_files"))
        out += "broken: " + field(f, "file") + ": " + field(f, "problem") + "\n";
    if (r.contains("inbox")) {
        const json& i = member(r, "inbox");
        out += "inbox: " + std::to_string(count(i, "open")) + " open, " +
               std::to_string(count(i, "in_progress")) + " in progress\n";
    }
    if (r.contains("instructions")) {
        const json& i = member(r, "instructions");
        out += "instruction files: " + std::to_string(count(i, "files")) + " with " +
               std::to_string(count(i, "references")) +
               " code references: " + std::to_string(count(i, "dangling")) + " dangling, " +
               std::to_string(count(i, "drifted")) + " drifted, " +
               std::to_string(count(i, "moved")) + " moved" +
               (count(i, "unjudged") ? ", " + std::to_string(count(i, "unjudged")) + " not judged"
                                     : std::string()) +
               "\n";
    }
    if (e.contains("recovery") && member(e, "recovery").is_object())
        out += "next: " + field(member(e, "recovery"), "method") + " (" +
               field(member(e, "recovery"), "reason") + ")\n";
    out += notJudgedText(e);
    return out;
}

std::string delegate(const json& r) {
    const json& p = member(r, "packet");
    const json& items = member(p, "items");
    std::string out = "Packet " + field(p, "packet_id") + " · " + std::to_string(items.size()) +
                      (items.size() == 1 ? " item" : " items") + "\n";
    int n = 0;
    for (auto& it : items)
        out +=
            std::to_string(++n) + ". " + field(it, "id") + " · " + field(it, "tier") + " · " +
            field(it, "anchor_state") +
            (field(it, "unverified") == "true" ? " (UNVERIFIED: check it against the code)" : "") +
            " · " + field(it, "text") + "\n" +
            (it.contains("near_duplicates")
                 ? "   said nearly the same in: " + member(it, "near_duplicates").dump() + "\n"
                 : std::string());
    std::string gaps;
    for (auto& [reason, g] : member(p, "honest_gaps").items())
        if (int64_t n = count(g, "count"))
            gaps += (gaps.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
    out += "left out: " + (gaps.empty() ? std::string("none") : gaps) + "\n";
    for (auto& i : member(p, "instructions"))
        out += "- " + i.get<std::string>() + "\n";
    return out;
}

} // namespace engram::ops::render
