// Memory diagnostics: every live claim's anchors checked against the code,
// staleness, secrets in hand-edited claim files, and claim files that do not
// parse (README, "CI").
#include "engine/Findings.h"

#include "engine/Engine.h"
#include "engine/Modality.h"
#include "engine/Tier.h"
#include "secrets/SecretScan.h"
#include "store/ClaimFile.h"
#include "store/Merge.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Paths.h"
#include "util/Time.h"
#include "util/Utf8.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace engram {

// A field of a claim as scanned for secrets (outside the anonymous
// namespace: Engine::FindingsRun holds them).
struct Scanned {
    std::string field;
    std::string value;
    std::vector<secrets::Hit> hits;
    std::string failure; // the scanner could not complete
};

namespace {

constexpr size_t kMaxQuoted = 200; // bytes of claim text quoted in a message
constexpr int kEverything = 1 << 30;

const std::vector<FindingRule> kRules = {
    {"engram.drifted", "warning", "DriftedClaim", "Anchored code changed since the claim",
     "The code a claim is anchored to changed (its syntax tree, not its formatting) since the "
     "claim was anchored or last re-verified. The claim may no longer be true: check it against "
     "the code, then re-verify it (engram reverify ID) or retract it.",
     true},
    {"engram.orphaned", "warning", "OrphanedClaim", "Anchored code no longer exists",
     "The file, symbol or line range a claim is anchored to no longer exists. The claim is "
     "reported on its claim file: retract it, or remember it again with a new anchor.",
     true},
    {"engram.moved", "information", "MovedClaim", "Anchored code was renamed or moved",
     "The anchored code was found under another name. The move is not applied until someone "
     "checks the claim and re-verifies it (engram reverify ID).",
     true},
    {"engram.conflict", "warning", "ConflictingClaims",
     "Two live claims contradict, share a label, or a claim diverged in a merge",
     "Two live claims on the same anchor or label contradict each other (must / must not, "
     "always / never, is / is not, or different numbers for one thing); or two live claims share "
     "a label (each written on its own branch); or two branches changed one claim in ways that "
     "cannot both be live (two supersessions, a supersession against a retraction) and the "
     "merge kept every version. Check them against the code, then retract or supersede the "
     "wrong one, or resolve the claim (engram resolve ID).",
     true},
    {"engram.stale", "hint", "StaleClaim", "Claim not re-verified within stale_days",
     "The claim is older than stale_days (default 30) since it was written or last "
     "re-verified. Check that it still holds and re-verify it, or retract it.",
     true},
    {"engram.secret", "error", "SecretInClaim", "A claim file contains a secret",
     "A claim file (usually edited by hand) contains what looks like a credential or a "
     "merge-conflict marker. Claim files are committed to git: remove the secret from the file "
     "and from the history, and rotate the credential.",
     true},
    {"engram.unmerged", "error", "UnmergedClaimFile", "A claim file holds git conflict markers",
     "A merge done without engram's merge driver left git's conflict markers in a claim file. "
     "engram reads both sides (both are served and counted) until the file is resolved: run "
     "engram resolve ID (the merge driver's rule, or --take ours|theirs), and run engram init "
     "once in the clone so that later merges use the driver.",
     true},
    {"engram.invalid", "error", "InvalidClaimFile", "A claim file cannot be parsed",
     "A claim file cannot be parsed; engram ignores it until it is fixed. The message names the "
     "line.",
     true},
    {"engram.dangling", "warning", "DanglingReference",
     "An instruction file names code that does not exist",
     "An agent instruction file (AGENTS.md, CLAUDE.md, .cursor/rules, ...) names a file, a line "
     "or a symbol that the workspace does not have (any more). Agents read these files first "
     "and follow them: fix the reference or remove the sentence.",
     true},
};

// One line of at most kMaxQuoted bytes (cut on a UTF-8 boundary).
std::string oneLine(std::string_view s) {
    return singleLine(s, kMaxQuoted, "...");
}

std::string day(int64_t t) {
    return formatUtc(t).substr(0, 10);
}

// 0-based line and byte column of a byte offset.
std::pair<uint32_t, uint32_t> position(std::string_view text, size_t offset) {
    uint32_t line = 0;
    size_t lineStart = 0;
    for (size_t i = 0; i < offset && i < text.size(); ++i)
        if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
        }
    return {line, uint32_t(offset - lineStart)};
}

// Offset of the claim text: just after the line closing the header (the
// second line reading "---"); the file's end when there is none.
size_t bodyStart(std::string_view file) {
    size_t pos = 0;
    int fences = 0;
    while (pos < file.size()) {
        size_t nl = file.find('\n', pos);
        size_t end = nl == std::string_view::npos ? file.size() : nl;
        std::string_view line = file.substr(pos, end - pos);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.remove_suffix(1);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
            line.remove_prefix(1);
        pos = nl == std::string_view::npos ? file.size() : nl + 1;
        if (line == "---" && ++fences == 2) return pos;
    }
    return file.size();
}

Scanned scanField(std::string field, std::string value) {
    Scanned s{std::move(field), std::move(value), {}, {}};
    try {
        s.hits = secrets::scan(s.value);
    } catch (const std::exception& e) {
        s.failure = e.what();
    }
    return s;
}

// What a message says about a field that may hold a secret: redacted, or
// withheld when it could not be scanned.
std::string safe(const Scanned& s) {
    if (!s.failure.empty()) return "[withheld: the secret scan could not complete]";
    return s.hits.empty() ? s.value : secrets::redact(s.value, s.hits);
}

} // namespace

const std::vector<FindingRule>& findingRules() {
    return kRules;
}

const FindingRule* findingRule(std::string_view code) {
    for (auto& r : findingRules())
        if (r.code == code) return &r;
    return nullptr;
}

int severityRank(std::string_view s) {
    auto severity = unspell<Severity>(s);
    return severity ? int(Severity::Hint) - int(*severity) : -1;
}

FindingsSummary summarize(const std::vector<Finding>& findings) {
    FindingsSummary s;
    for (auto& r : findingRules())
        if (r.computed) s.byCode[std::string(r.code)] = 0;
    for (auto& f : findings)
        count(s, f);
    return s;
}

void count(FindingsSummary& s, const Finding& f) {
    ++s.byCode[f.code];
    if (f.claimId.empty() && f.subject.starts_with("ref:")) ++s.instructionsByCode[f.code];
}

bool findingLess(const Finding& a, const Finding& b) {
    auto key = [](const Finding& f) {
        return std::tie(f.path, f.range.startLine, f.range.startColumn, f.range.endLine,
                        f.range.endColumn, f.code, f.claimId, f.subject, f.message);
    };
    return key(a) < key(b);
}

// One findings pass over the stores, a phase a method: a tier's claims
// read in one snapshot, its broken files, each claim's secrets, anchors,
// merge state and age, then the conflicts between its claims.
class Engine::FindingsRun {
public:
    FindingsRun(Engine& engine, const FindingsOptions& opts)
        : e_(engine)
        , opts_(opts)
        , now_(nowUnix())
        , staleAfter_(int64_t(engine.opts_.staleDays) * 86400)
        , counted_(summarize({})) {
        if (opts.path) only_ = display(*opts.path);
    }

    void tier(Tier& t);
    std::vector<Finding> finish(FindingsSummary* all);

    const std::optional<std::string>& only() const { return only_; }
    NotJudged& notJudged() { return counted_.notJudged; }

    // Past opts.keep, findings are counted, not kept: a clone with a million
    // broken claim files must not hold a million findings to list a
    // thousand. The first ones in order survive each trim.
    void emit(Finding&& f) {
        if (opts_.changed && !touched(f)) return;
        count(counted_, f);
        out_.push_back(std::move(f));
        if (opts_.keep && out_.size() >= 2 * opts_.keep + 1024) {
            std::nth_element(out_.begin(), out_.begin() + std::ptrdiff_t(opts_.keep), out_.end(),
                             findingLess);
            out_.resize(opts_.keep);
        }
    }

private:
    // A claim's anchor as conflicts group it (Anchorer::identity), with
    // where it is now, so a conflict is reported on the code.
    struct Placed {
        std::string identity;
        const Anchor* anchor = nullptr;
        std::optional<TextRange> range;
    };

    // The tier being judged: its name, whether its anchors point into this
    // root, and how its claim files are named.
    struct TierScope {
        Tier& t;
        bool checkAnchors;
        std::string claimsShown; // its claims directory as findings name it, with a slash
        std::string claimShown(const std::string& id) const { return claimsShown + id + ".md"; }
    };

    // One claim being judged: its fields scanned for secrets (every message
    // quotes the claim, so what it quotes is scanned first: a secret is
    // named by rule and span, never repeated), and how messages quote it.
    struct ClaimScope {
        const TierScope& tier;
        const Claim& c;
        std::string claimFile, claimPath;
        std::vector<Scanned> fields; // label, text, tags, evidence values
        std::string quoted;
        Finding base(const std::string& code) const {
            Finding f;
            f.code = code;
            f.severity = std::string(findingRule(code)->severity);
            f.claimId = c.id;
            f.label = safe(fields[0]);
            f.tier = tier.t.name;
            f.path = claimPath;
            f.claimFile = claimFile;
            return f;
        }
    };

    // Files inside the root are named relative to it (as anchors are);
    // others (the medulla's) absolutely.
    std::string display(const std::string& abs) const {
        auto rel = relativeToRoot(e_.opts_.root, abs);
        if (rel) return *rel;
        // A store file that is a link out of the root is still named by
        // where it is (the finding is about the link, not its target).
        std::string prefix = e_.opts_.root + "/";
        if (abs.rfind(prefix, 0) == 0 && abs.find("/../") == std::string::npos)
            return abs.substr(prefix.size());
        return abs;
    }

    // A pull request's findings: about a claim whose file, or a file it is
    // anchored to, changed.
    bool touched(const Finding& f) const {
        if (opts_.changed->count(f.path)) return true;
        if (!f.claimFile.empty())
            if (auto rel = relativeToRoot(e_.opts_.root, f.claimFile);
                rel && opts_.changed->count(*rel))
                return true;
        auto it = anchorPaths_.find(f.claimId);
        if (it != anchorPaths_.end())
            for (auto& p : it->second)
                if (opts_.changed->count(p)) return true;
        return false;
    }

    void readClaims(const TierScope& ts, std::vector<Claim>& claims,
                    std::vector<BrokenFile>& broken);
    void brokenFiles(const TierScope& ts, const std::vector<BrokenFile>& broken);
    void claimFindings(const TierScope& ts, const Claim& c, std::vector<Placed>& placed);
    void secretFindings(const ClaimScope& cs);
    void anchorFindings(const ClaimScope& cs, std::vector<Placed>& placed);
    void stateFindings(const ClaimScope& cs);
    void conflicts(const TierScope& ts, const std::vector<Claim>& claims,
                   const std::vector<std::vector<Placed>>& placed);

    Engine& e_;
    const FindingsOptions& opts_;
    std::optional<std::string> only_;
    const int64_t now_;
    const int64_t staleAfter_;
    std::vector<Finding> out_;
    std::map<std::string, std::vector<std::string>> anchorPaths_; // for opts.changed
    FindingsSummary counted_;
};

std::vector<Finding> Engine::findings(const FindingsOptions& opts, FindingsSummary* all) {
    Anchorer::ReadScope reads(anchorer_); // each anchored file read once for the answer
    if (opts.tier != "project" && opts.tier != "medulla" && opts.tier != "all")
        throw invalidField("tier", "must be 'project', 'medulla' or 'all'");
    FindingsRun run(*this, opts);
    // Anchors stamped by earlier digest rules are judged against the commit
    // that stamped them: git runs once per process (and HEAD) and per new
    // stamp, so an editor's diagnostics after an edit run nothing.
    Anchorer::HistoryScope history(anchorer_);
    for (auto& tp : tiers_.own()) {
        Tier& t = *tp;
        if (opts.tier != "all" && opts.tier != t.name) continue;
        if (!tiers_.ready(t)) continue;
        run.tier(t);
    }
    if (opts.tier != "medulla")
        run.notJudged().add(
            instructionFindings(opts, run.only(), [&](Finding&& f) { run.emit(std::move(f)); }));
    return run.finish(all);
}

void Engine::FindingsRun::tier(Tier& t) {
    // Anchors are workspace-relative paths of the project they were
    // written in; only the project tier's can be checked against this root.
    // A claim file is named by its directory's name and its own: the
    // directory is judged once (display resolves links, a syscall per path
    // component), not once per claim. A claim file that is itself a link
    // out of the root is named where it is, as display names it.
    TierScope ts{t, t.name == "project", display(t.store->claimsDir()) + "/"};
    std::vector<Claim> claims;
    std::vector<BrokenFile> broken;
    readClaims(ts, claims, broken);
    brokenFiles(ts, broken);
    std::vector<std::vector<Placed>> placed(claims.size());
    for (size_t ci = 0; ci < claims.size(); ++ci)
        claimFindings(ts, claims[ci], placed[ci]);
    conflicts(ts, claims, placed);
}

std::vector<Finding> Engine::FindingsRun::finish(FindingsSummary* all) {
    std::sort(out_.begin(), out_.end(), findingLess);
    if (opts_.keep && out_.size() > opts_.keep) out_.resize(opts_.keep);
    if (all) *all = std::move(counted_);
    return std::move(out_);
}

// The claims to look at, read in one snapshot.
void Engine::FindingsRun::readClaims(const TierScope& ts, std::vector<Claim>& claims,
                                     std::vector<BrokenFile>& broken) {
    Tier& t = ts.t;
    for (int pass = 0; pass < 2; ++pass) {
        claims.clear();
        std::vector<std::pair<Tier*, std::string>> changed;
        auto snapshot = t.index->readScope();
        std::vector<int64_t> rowids;
        if (!only_) {
            rowids = t.index->recent(ClaimStatus::Committed, kEverything);
        } else if (only_->starts_with(ts.claimsShown) && only_->ends_with(".md")) {
            std::string id =
                only_->substr(ts.claimsShown.size(), only_->size() - ts.claimsShown.size() - 3);
            if (Store::validId(id))
                if (auto ic = t.index->byId(id)) rowids.push_back(ic->rowid);
        } else {
            rowids = t.index->anchoredIn(*only_, kEverything);
        }
        for (auto rowid : rowids)
            if (auto ic = t.index->byRowid(rowid)) {
                // One file's findings (the editor's) read a claim file
                // changed since it was indexed again first, as recall
                // does; the whole store's are as current as the index.
                if (only_ && !sameFile(statFile(t.store->claimPath(ic->claim.id)), ic->file))
                    changed.emplace_back(&t, ic->claim.id);
                if (ic->claim.live()) claims.push_back(std::move(ic->claim));
            }
        broken = t.index->brokenFiles();
        if (changed.empty() || pass == 1) break;
        snapshot.commit();
        e_.tiers_.reread(changed);
    }
}

void Engine::FindingsRun::brokenFiles(const TierScope& ts, const std::vector<BrokenFile>& broken) {
    for (auto& b : broken) {
        Finding f;
        f.code = "engram.invalid";
        f.severity = "error";
        f.tier = ts.t.name;
        f.claimFile = ts.t.store->dir() + "/" + b.file;
        f.path = display(f.claimFile);
        if (only_ && f.path != *only_) continue;
        auto slash = b.file.find_last_of('/');
        std::string name = b.file.substr(slash == std::string::npos ? 0 : slash + 1);
        if (name.ends_with(".md") && Store::validId(name.substr(0, name.size() - 3)))
            f.claimId = name.substr(0, name.size() - 3);
        // The index keeps the parser's "line N: why"; say the line once.
        std::string why = b.message;
        std::string prefix = "line " + std::to_string(b.line) + ": ";
        if (why.starts_with(prefix)) why = why.substr(prefix.size());
        if (b.line > 0) {
            uint32_t line = uint32_t(b.line - 1);
            uint32_t width = 0;
            if (auto text = readFile(f.claimFile, nullptr, {kMaxClaimFileBytes, false})) {
                std::string_view v = *text;
                size_t pos = 0;
                for (uint32_t l = 0; l < line && pos != std::string_view::npos; ++l) {
                    pos = v.find('\n', pos);
                    if (pos != std::string_view::npos) ++pos;
                }
                if (pos != std::string_view::npos && pos <= v.size()) {
                    size_t end = v.find('\n', pos);
                    if (end == std::string_view::npos) end = v.size();
                    if (end > pos && v[end - 1] == '\r') --end;
                    width = uint32_t(end - pos);
                }
            }
            f.range = {line, 0, line, width};
        }
        // The parser may quote the file (a key, an id): never a secret.
        if (auto hits = scanField("message", why); !hits.failure.empty() || !hits.hits.empty())
            why = safe(hits);
        f.message = "invalid: " + f.path + " cannot be parsed" +
                    (b.line > 0 ? " (line " + std::to_string(b.line) + ")" : "") + ": " + why +
                    "; engram ignores this file until it is fixed";
        emit(std::move(f));
    }
}

void Engine::FindingsRun::claimFindings(const TierScope& ts, const Claim& c,
                                        std::vector<Placed>& placed) {
    if (opts_.changed && ts.checkAnchors)
        for (auto& a : c.anchors)
            anchorPaths_[c.id].push_back(a.path);
    ClaimScope cs{ts, c, ts.t.store->claimPath(c.id), ts.claimShown(c.id), {}, {}};
    cs.fields.push_back(scanField("label", c.label));
    cs.fields.push_back(scanField("text", c.text));
    for (size_t i = 0; i < c.tags.size(); ++i)
        cs.fields.push_back(scanField("tags[" + std::to_string(i) + "]", c.tags[i]));
    for (size_t i = 0; i < c.evidence.size(); ++i)
        cs.fields.push_back(
            scanField("evidence[" + std::to_string(i) + "].value", c.evidence[i].value));
    std::string label = oneLine(safe(cs.fields[0]));
    cs.quoted = "claim " + (label.empty() ? "" : "\"" + label + "\" ") + "(" + c.id +
                "): " + oneLine(safe(cs.fields[1]));
    secretFindings(cs);
    anchorFindings(cs, placed);
    stateFindings(cs);
}

void Engine::FindingsRun::secretFindings(const ClaimScope& cs) {
    std::optional<std::string> fileText; // read only when a secret needs a line
    for (auto& s : cs.fields) {
        if (!s.failure.empty()) {
            Finding f = cs.base("engram.secret");
            f.subject = s.field + ":scanner-failure";
            f.message = "secret: the secret scan of " + s.field + " could not complete (" +
                        s.failure + "); treat this claim file as unsafe until it is checked; " +
                        cs.quoted;
            emit(std::move(f));
            continue;
        }
        for (auto& h : s.hits) {
            Finding f = cs.base("engram.secret");
            f.subject = s.field + ":" + h.rule;
            f.message = "secret: the claim file holds what looks like a " + h.description + " in " +
                        s.field + " (rule " + h.rule + ", characters " + std::to_string(h.begin) +
                        "-" + std::to_string(h.end) +
                        "); remove it from the file and from git history, and rotate the "
                        "credential; " +
                        cs.quoted;
            // Point at it in the claim file: the text is stored as written,
            // header values escaped.
            if (!fileText)
                fileText =
                    readFile(cs.claimFile, nullptr, {kMaxClaimFileBytes, false}).value_or("");
            std::string needle = s.value.substr(h.begin, h.end - h.begin);
            size_t body = bodyStart(*fileText), at = std::string::npos;
            if (s.field == "text") {
                at = fileText->find(needle, body);
            } else {
                needle = escapeValue(needle);
                at = fileText->find(needle);
                if (at >= body) at = std::string::npos; // only in the header
            }
            if (at != std::string::npos) {
                auto [sl, sc] = position(*fileText, at);
                auto [el, ec] = position(*fileText, at + needle.size());
                f.range = {sl, sc, el, ec};
            }
            emit(std::move(f));
        }
    }
}

void Engine::FindingsRun::anchorFindings(const ClaimScope& cs, std::vector<Placed>& placed) {
    const Claim& c = cs.c;
    for (auto& a : c.anchors) {
        if (!cs.tier.checkAnchors) {
            // Another tier's anchors point into another tree: known by what
            // they recorded.
            placed.push_back({recordedIdentity(a), &a, {}});
            continue;
        }
        auto check = e_.anchorer_.check(a, c.id);
        placed.push_back(
            {e_.anchorer_.identity(a, &check), &a, a.symbol.empty() ? std::nullopt : check.range});
        if (check.state == "intact") continue;
        if (check.state == "unjudged") {
            if (!opts_.changed || opts_.changed->count(a.path) ||
                opts_.changed->count(cs.claimPath))
                counted_.notJudged.add(check.reason);
            continue;
        }
        Finding f = cs.base("engram." + check.state);
        f.symbol = a.symbol;
        f.subject = anchorName(a);
        auto lineSpan = [](int start, int end) {
            return end > start ? "lines " + std::to_string(start) + "-" + std::to_string(end)
                               : "line " + std::to_string(start);
        };
        std::string lines = lineSpan(a.startLine, a.endLine);
        std::string what = !a.symbol.empty() ? a.symbol + " in " + a.path
                           : a.startLine > 0 ? lines + " of " + a.path
                                             : a.path;
        if (check.state == "drifted" && !check.ambiguous.empty()) {
            // Which twin it was cannot be told any more: say so on the claim
            // file rather than on a guess.
            std::string list;
            for (auto& cand : check.ambiguous)
                list += (list.empty() ? "" : ", ") + cand;
            f.message = "drifted: " + what + " can no longer be told apart from " +
                        std::to_string(check.ambiguous.size() - 1) +
                        " other definition(s) of that name, and none is unchanged: " + list +
                        "; check the claim, then remember it again anchored to the right one "
                        "(PATH:LINE) or retract it; " +
                        cs.quoted;
        } else if (check.state == "drifted") {
            f.path = check.current ? check.current->path : a.path; // renamed by git: there
            f.range = check.range.value_or(TextRange{});
            std::string since =
                c.verified ? "it was re-verified on " + day(*c.verified)
                : (c.updated || c.created)
                    ? "the claim was anchored on " + day(c.updated.value_or(c.created.value_or(0)))
                    : "the claim was anchored";
            f.message = "drifted: " + what + " changed since " + since +
                        (check.note.empty() ? "" : " (" + check.note + ")") +
                        "; check the claim, then re-verify (engram reverify " + c.id +
                        ") or retract it; " + cs.quoted;
        } else if (check.state == "moved") {
            // Reported where the code is now: in another file when it moved
            // there (the anchor's own file may be gone), as the editor and
            // SARIF show a finding on the file it names.
            std::string now = check.current ? check.current->path : a.path;
            f.path = now;
            f.range = check.range.value_or(TextRange{});
            std::string moved;
            if (a.symbol.empty() && check.current) {
                // A line range under lines that came or went, or a file
                // renamed (git says where), its text unchanged.
                const Anchor& n = *check.current;
                std::string to = n.startLine > 0 ? lineSpan(n.startLine, n.endLine) : "";
                if (now != a.path) to += (to.empty() ? "" : " of ") + now;
                moved = what + (a.endLine > a.startLine ? " are" : " is") + " now " + to +
                        ", unchanged";
            } else {
                std::string to = check.current ? check.current->symbol : check.movedTo;
                moved = (now == a.path ? a.symbol : what) + " is now " + to + " in " + now;
            }
            f.message = "moved: " + moved +
                        " (not applied until re-verified); re-verify (engram reverify " + c.id +
                        ") to follow it, or retract the claim; " + cs.quoted;
        } else {
            f.code = "engram.orphaned";
            f.severity = std::string(findingRule(f.code)->severity);
            bool fileGone = !statFile(e_.opts_.root + "/" + a.path).has_value();
            std::string why = fileGone              ? a.path + " no longer exists"
                              : !check.note.empty() ? check.note
                              : !a.symbol.empty() ? a.symbol + " is no longer defined in " + a.path
                              : a.startLine > 0
                                  ? a.path + " no longer has lines " + std::to_string(a.startLine) +
                                        "-" + std::to_string(a.endLine)
                                  : a.path + " can no longer be read";
            auto next = fileGone ? std::nullopt : e_.anchorer_.successor(a);
            if (next) {
                // Where its code most likely went: reported there, as a
                // move is, and named so a reader can check the claim.
                f.path = a.path;
                f.range = next->range;
                f.successor = a.path + "#" + next->symbol;
                f.message = "orphaned: " + why + "; " + next->symbol +
                            " there looks like it renamed and edited (" +
                            std::to_string(int(next->likeness * 100)) +
                            "% of its tokens alike): check the claim against it, then re-verify "
                            "(engram reverify " +
                            c.id + ") to follow it, or retract the claim; " + cs.quoted;
            } else {
                f.message = "orphaned: " + why +
                            "; retract the claim or remember it again with a new anchor; " +
                            cs.quoted;
            }
        }
        emit(std::move(f));
    }
}

// What the claim file itself says: unmerged, diverged, stale.
void Engine::FindingsRun::stateFindings(const ClaimScope& cs) {
    const Claim& c = cs.c;
    if (c.unmerged) {
        Finding f = cs.base("engram.unmerged");
        f.subject = "unmerged";
        if (auto text = readFile(cs.claimFile, nullptr, {kMaxClaimFileBytes, false})) {
            try {
                if (auto sides = splitConflict(*text)) {
                    uint32_t l = uint32_t(sides->firstLine - 1);
                    f.range = {l, 0, l, 7};
                }
            } catch (const ClaimFileError&) {
            }
        }
        f.message = "unmerged: " + cs.claimPath +
                    " holds git conflict markers (merged without engram's driver); both sides "
                    "are served until it is resolved: engram resolve " +
                    c.id + " (or --take ours|theirs), and engram init to register the driver; " +
                    cs.quoted;
        emit(std::move(f));
    }
    if (!c.diverged.empty()) {
        Finding f = cs.base("engram.conflict");
        f.subject = "diverged";
        std::string others;
        for (auto& d : c.diverged) {
            auto dt = scanField("text", d.text);
            others += (others.empty() ? "" : "; ") + std::string("v") + std::to_string(d.version) +
                      " (" + std::string(toString(d.status)) + ", by " +
                      (d.sourceAgent.empty() ? "unknown" : d.sourceAgent) +
                      "): " + oneLine(safe(dt));
        }
        f.message = "conflict: two branches changed this claim; the merge kept v" +
                    std::to_string(c.version) + " live and also kept " + others +
                    "; check them, then resolve (engram resolve " + c.id +
                    ", or --take VERSION) or supersede it; " + cs.quoted;
        emit(std::move(f));
    }
    // Stale: judged from the last re-verification, else the claim's birth;
    // a claim of unknown age is not called stale.
    if (auto since = c.verified ? c.verified : c.created; since && now_ - *since > staleAfter_) {
        Finding f = cs.base("engram.stale");
        f.message = std::string("stale: ") + (c.verified ? "last re-verified " : "written ") +
                    day(*since) + " (" + humanAge(now_ - *since) + " ago, stale after " +
                    std::to_string(e_.opts_.staleDays) +
                    " days); check that it still holds, then re-verify (engram reverify " + c.id +
                    ") or retract it; " + cs.quoted;
        emit(std::move(f));
    }
}

// Conflicts: live claims sharing a label (only two branches each writing it
// make that), and live claims on one definition whose texts contradict by a
// rule of measured precision (Modality.h); each side gets a finding naming
// the other.
void Engine::FindingsRun::conflicts(const TierScope& ts, const std::vector<Claim>& claims,
                                    const std::vector<std::vector<Placed>>& placed) {
    std::map<std::string, std::vector<size_t>> groups;
    for (size_t i = 0; i < claims.size(); ++i) {
        std::set<std::string> keys;
        for (auto& p : placed[i])
            keys.insert("anchor\t" + p.identity);
        if (!claims[i].label.empty()) keys.insert("label\t" + claims[i].label);
        for (auto& k : keys)
            groups[k].push_back(i);
    }
    constexpr size_t kGroupCap = 64; // pairs are quadratic: bound a crowded anchor
    std::set<std::tuple<std::string, std::string>> reported;
    for (auto& [key, members] : groups) {
        if (members.size() < 2) continue;
        const bool byAnchor = key.starts_with("anchor\t");
        const std::string identity = key.substr(key.find('\t') + 1);
        // What the message names: the label, or the anchor as written.
        std::string what = identity;
        for (size_t x = 0; x < members.size() && x < kGroupCap; ++x)
            for (size_t y = x + 1; y < members.size() && y < kGroupCap; ++y) {
                const Claim& a = claims[members[x]];
                const Claim& b = claims[members[y]];
                const Placed* on = nullptr; // the anchor both are on, as a wrote it
                if (byAnchor)
                    for (auto& p : placed[members[x]])
                        if (p.identity == identity) on = &p;
                if (on) what = anchorName(*on->anchor);
                // Compared redacted: the phrases quoted must not carry a secret.
                std::string ta = safe(scanField("text", a.text)),
                            tb = safe(scanField("text", b.text));
                auto m = contradicts(ta, tb);
                if (!m && byAnchor) continue;
                for (auto [self, other] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
                    if (!reported.insert({self->id, other->id}).second) continue;
                    auto label = scanField("label", self->label);
                    auto otherLabel = scanField("label", other->label);
                    auto otherText = scanField("text", other->text);
                    auto text = scanField("text", self->text);
                    Finding f;
                    f.code = "engram.conflict";
                    f.severity = std::string(findingRule(f.code)->severity);
                    f.claimId = self->id;
                    f.label = safe(label);
                    f.tier = ts.t.name;
                    f.claimFile = ts.t.store->claimPath(self->id);
                    f.path = ts.claimShown(self->id);
                    f.subject = "conflict:" + other->id;
                    if (byAnchor && ts.checkAnchors) {
                        size_t selfIndex = self == &a ? members[x] : members[y];
                        for (auto& p : placed[selfIndex])
                            if (p.identity == identity && p.range) {
                                f.path = p.anchor->path;
                                f.symbol = p.anchor->symbol;
                                f.range = *p.range;
                                break;
                            }
                    }
                    std::string ol = oneLine(safe(otherLabel));
                    std::string sl = oneLine(safe(label));
                    std::string how =
                        m ? "contradicts claim " + (ol.empty() ? "" : "\"" + ol + "\" ") + "(" +
                                other->id + ") on " + (byAnchor ? "anchor " : "label ") + what +
                                " (\"" + m->positive + "\" against \"" + m->negative + "\")"
                          : "shares the label " + what + " with live claim (" + other->id +
                                "), each written on its own branch";
                    // Only a label two live claims share refuses writes
                    // (LabelCollision); claims that contradict each other on
                    // one anchor each keep their own label, open to writes.
                    f.message = "conflict: " + how + ": " + oneLine(safe(otherText)) +
                                "; check both against the code, then retract or supersede the "
                                "wrong one" +
                                (byAnchor ? std::string()
                                          : " (writing the label again is refused until then)") +
                                "; claim " + (sl.empty() ? "" : "\"" + sl + "\" ") + "(" +
                                self->id + "): " + oneLine(safe(text));
                    if (only_ && f.path != *only_ && !byAnchor) continue;
                    emit(std::move(f));
                }
            }
    }
}

// Instruction files' references (ARCHITECTURE.md, "Instruction files"): on their lines, not on a
// claim.
NotJudged Engine::instructionFindings(const FindingsOptions& opts,
                                      const std::optional<std::string>& only,
                                      const std::function<void(Finding&&)>& emit) {
    std::optional<std::string> file;
    if (only) {
        if (!isInstructionFile(*only)) return {};
        file = *only;
    }
    InstructionScan scan = scanInstructions(file);
    NotJudged notJudged;
    for (auto& r : scan.refs) {
        if (r.state != "dangling" && r.state != "drifted" && r.state != "moved" && r.reason.empty())
            continue;
        if (opts.changed && !opts.changed->count(r.file)) {
            std::string target = r.target.substr(0, r.target.find_first_of(":#"));
            bool moved =
                !r.movedTo.empty() && opts.changed->count(r.movedTo.substr(0, r.movedTo.find('#')));
            if (!opts.changed->count(target) && !moved) continue;
        }
        if (!r.reason.empty()) { // not judged (unjudged, ambiguous): counted, no finding
            notJudged.add(r.reason);
            continue;
        }
        Finding f;
        f.code = "engram." + r.state;
        f.severity = std::string(findingRule(f.code)->severity);
        f.tier = "project";
        f.path = r.file;
        f.label = r.file + ":" + std::to_string(r.ref.lineIndex + 1);
        f.symbol = r.ref.symbol;
        f.subject = "ref:" + r.ref.written;
        f.range = {r.ref.lineIndex, r.ref.startColumn, r.ref.lineIndex, r.ref.endColumn};
        f.replacement = r.replacement;
        std::string ref = "`" + r.ref.written + "`";
        if (r.state == "dangling")
            f.message = "dangling: " + ref + " names nothing that exists: " + r.why +
                        (r.replacement.empty() ? "" : "; write `" + r.replacement + "`") +
                        "; fix the reference or remove it (agents follow this file)";
        else if (r.state == "drifted")
            f.message = "drifted: " + ref + ": " + r.why +
                        "; check that the text still holds, then re-verify (engram reverify "
                        "--file " +
                        r.file + ":" + std::to_string(r.ref.lineIndex + 1) + ")";
        else
            f.message = "moved: " + ref + ": " + r.why + "; write `" + r.replacement +
                        "`, then check the text";
        emit(std::move(f));
    }
    return notJudged;
}

} // namespace engram
