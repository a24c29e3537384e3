// The three-way merge of claim files. The rule is documented in Merge.h.
#include "store/Merge.h"

#include "store/ClaimFile.h"
#include "util/Hash.h"
#include "util/Time.h"

#include <algorithm>
#include <map>
#include <set>

namespace engram {

std::string versionKey(const Claim& c) {
    // The fields a supersession writes and nothing changes in place. The
    // encoding only has to be unambiguous and stable across engram versions.
    std::string s;
    auto add = [&](std::string_view k, std::string_view v) {
        s += k;
        s += '=';
        s += escapeValue(v);
        s += '\n';
    };
    auto time = [](const std::optional<int64_t>& t) { return t ? formatUtc(*t) : std::string(); };
    add("label", c.label);
    add("kind", c.kind);
    add("text", c.text);
    add("confidence", c.confidence ? formatConfidence(*c.confidence) : "");
    add("created", time(c.created));
    add("source_agent", c.sourceAgent);
    add("origin", c.origin);
    add("supersedes", c.supersedes);
    add("force_reason", c.forceReason);
    for (auto& t : c.tags)
        add("tag", t);
    for (auto& e : c.evidence)
        add("evidence", e.type + " " + e.value);
    add("origin_claim", c.originClaim);
    add("promoted_by", c.promotedBy);
    add("promoted", time(c.promoted));
    add("promotion_reason", c.promotionReason);
    add("contribution_id", c.contributionId);
    add("contributed_by", c.contributedBy);
    add("packet_id", c.packetId);
    return std::to_string(c.version) + "-" + sha256Hex(s).substr(0, 16);
}

std::vector<Claim> claimHeads(const Claim& c) {
    std::vector<Claim> out;
    out.push_back(c);
    out[0].diverged.clear();
    out[0].unmerged = false;
    for (auto& d : c.diverged)
        for (auto& h : claimHeads(d))
            out.push_back(std::move(h));
    return out;
}

static int statusRank(ClaimStatus s) {
    switch (s) {
    case ClaimStatus::Committed:
        return 0;
    case ClaimStatus::Frontier:
        return 1;
    case ClaimStatus::Retracted:
        return 2;
    case ClaimStatus::Superseded:
        return 3;
    }
    return 4;
}

bool liveOrder(const Claim& a, const Claim& b) {
    if (statusRank(a.status) != statusRank(b.status))
        return statusRank(a.status) < statusRank(b.status);
    double ca = a.confidence.value_or(0), cb = b.confidence.value_or(0);
    if (ca != cb) return ca > cb;
    int64_t ua = a.updated.value_or(0), ub = b.updated.value_or(0);
    if (ua != ub) return ua > ub;
    if (a.version != b.version) return a.version > b.version;
    auto ka = versionKey(a), kb = versionKey(b);
    if (ka != kb) return ka < kb;
    return serializeClaim(a) < serializeClaim(b);
}

Claim fromHeads(std::vector<Claim> heads) {
    // One copy of each identical head.
    std::map<std::string, Claim> unique;
    for (auto& h : heads) {
        h.diverged.clear();
        h.unmerged = false;
        unique.emplace(serializeClaim(h), std::move(h));
    }
    std::vector<Claim> all;
    for (auto& [bytes, h] : unique)
        all.push_back(std::move(h));
    std::sort(all.begin(), all.end(), liveOrder);
    Claim live = std::move(all.front());
    for (size_t i = 1; i < all.size(); ++i)
        live.diverged.push_back(std::move(all[i]));
    return live;
}

namespace {

// What one side did to a value the base had: unchanged, or changed to v.
template <class T>
std::optional<T> threeWay(const std::optional<T>& base, const T& a, const T& b) {
    if (a == b) return a;
    if (base && a == *base) return b;
    if (base && b == *base) return a;
    return std::nullopt; // both changed it, differently
}

std::string anchorsText(const Claim& c) {
    std::string s;
    for (auto& a : c.anchors)
        s += formatAnchor(a) + "\n";
    return s;
}

std::map<std::string, std::string> extraMap(const Claim& c) {
    std::map<std::string, std::string> m;
    for (auto& [k, v] : c.extra)
        m.emplace(k, v);
    return m;
}

// One version (one key) as two branches left it. Usually one claim; two
// when the branches changed its status differently.
std::vector<Claim> mergeVersion(const Claim* o, const Claim& a, const Claim& b) {
    std::string sa = serializeClaim(a), sb = serializeClaim(b);
    if (sa == sb) return {a};
    if (o) {
        std::string so = serializeClaim(*o);
        if (sa == so) return {b};
        if (sb == so) return {a};
    }
    // Which side wrote last decides what cannot be combined; the bytes break
    // a tie so that swapping the sides changes nothing.
    int64_t ua = a.updated.value_or(0), ub = b.updated.value_or(0);
    bool aLate = ua != ub ? ua > ub : sa > sb;
    const Claim& late = aLate ? a : b;
    const Claim& early = aLate ? b : a;

    auto pick = [&](auto get) {
        std::optional<std::decay_t<decltype(get(a))>> base;
        if (o) base = get(*o);
        auto r = threeWay(base, get(a), get(b));
        return r ? *r : get(late);
    };

    Claim r = late;
    r.updated = std::max(a.updated, b.updated);
    r.verified = std::max(a.verified, b.verified);
    {
        std::optional<std::string> base;
        if (o) base = anchorsText(*o);
        auto merged = threeWay(base, anchorsText(a), anchorsText(b));
        if (merged && *merged == anchorsText(early))
            r.anchors = early.anchors;
        else if (!merged && a.verified != b.verified)
            r.anchors = (a.verified > b.verified ? a : b).anchors;
        // else: late's anchors, already in r.
    }
    if (o) {
        auto add = [](int base, int x, int y) {
            return std::max(0, base + (x - base) + (y - base));
        };
        r.feedback.correct = add(o->feedback.correct, a.feedback.correct, b.feedback.correct);
        r.feedback.wrong = add(o->feedback.wrong, a.feedback.wrong, b.feedback.wrong);
        r.feedback.partial = add(o->feedback.partial, a.feedback.partial, b.feedback.partial);
    } else {
        // Without the ancestor the increments cannot be told apart from a
        // shared past: the larger count of each is what is known.
        r.feedback.correct = std::max(a.feedback.correct, b.feedback.correct);
        r.feedback.wrong = std::max(a.feedback.wrong, b.feedback.wrong);
        r.feedback.partial = std::max(a.feedback.partial, b.feedback.partial);
    }
    r.promotedTo = pick([](const Claim& c) { return c.promotedTo; });
    r.acceptedBy = pick([](const Claim& c) { return c.acceptedBy; });
    r.contentHash = pick([](const Claim& c) { return c.contentHash; });
    {
        auto ma = extraMap(a), mb = extraMap(b);
        std::map<std::string, std::string> mo;
        if (o) mo = extraMap(*o);
        std::set<std::string> keys;
        for (auto* m : {&ma, &mb})
            for (auto& [k, v] : *m)
                keys.insert(k);
        r.extra.clear();
        for (auto& k : keys) {
            auto get = [&](std::map<std::string, std::string>& m) {
                auto it = m.find(k);
                return it == m.end() ? std::string() : it->second;
            };
            std::optional<std::string> base;
            if (o) base = get(mo);
            auto v = threeWay(base, get(ma), get(mb));
            std::string value = v ? *v : get(aLate ? ma : mb);
            if (!value.empty()) r.extra.emplace_back(k, value);
        }
    }

    auto status = [](const Claim& c) { return c.status; };
    std::optional<ClaimStatus> baseStatus;
    if (o) baseStatus = o->status;
    auto st = threeWay(baseStatus, a.status, b.status);
    auto takeStatus = [](Claim& into, const Claim& from) {
        into.status = from.status;
        into.retractedBy = from.retractedBy;
        into.retractReason = from.retractReason;
    };
    if (st) {
        const Claim& from = status(a) == *st && (status(b) != *st || aLate) ? a : b;
        takeStatus(r, from);
        if (a.status == b.status) {
            r.retractedBy = pick([](const Claim& c) { return c.retractedBy; });
            r.retractReason = pick([](const Claim& c) { return c.retractReason; });
        }
        return {r};
    }
    // Two different decisions about one version (accepted here, rejected
    // there): both stay, and the claim is flagged until someone decides.
    Claim other = r;
    takeStatus(r, a);
    takeStatus(other, b);
    return {r, other};
}

struct HeadSet {
    std::map<std::string, Claim> byKey;
    void add(Claim h) {
        std::string key = versionKey(h);
        // Two heads of one version differ in status (see mergeVersion).
        if (byKey.count(key)) key += "#" + std::string(toString(h.status));
        byKey.emplace(std::move(key), std::move(h));
    }
    const Claim* find(const std::string& key) const {
        auto it = byKey.find(key);
        return it == byKey.end() ? nullptr : &it->second;
    }
};

HeadSet headSet(const Claim* c) {
    HeadSet s;
    if (c)
        for (auto& h : claimHeads(*c))
            s.add(std::move(h));
    return s;
}

} // namespace

Claim mergeClaims(const Claim* base, const Claim& ours, const Claim& theirs) {
    HeadSet o = headSet(base), a = headSet(&ours), b = headSet(&theirs);
    std::set<std::string> keys;
    for (auto* s : {&a, &b})
        for (auto& [k, h] : s->byKey)
            keys.insert(k);
    std::vector<Claim> heads;
    for (auto& k : keys) {
        const Claim *ha = a.find(k), *hb = b.find(k), *ho = o.find(k);
        if (ha && hb) {
            for (auto& h : mergeVersion(ho, *ha, *hb))
                heads.push_back(std::move(h));
            continue;
        }
        const Claim* kept = ha ? ha : hb;
        // The other side does not hold this version. If the ancestor did,
        // that side superseded or resolved it: it is in its history now, and
        // the version is no longer a head, unless this side changed its
        // status meanwhile (a retraction against a supersession).
        if (ho && kept->status == ho->status) continue;
        heads.push_back(*kept);
    }
    if (heads.empty()) {
        // Both sides moved every head of the ancestor on in ways that left
        // none (cannot happen with engram's own writes); keep both sides.
        for (auto* c : {&ours, &theirs})
            for (auto& h : claimHeads(*c))
                heads.push_back(h);
    }
    return fromHeads(std::move(heads));
}

std::optional<ConflictSides> splitConflict(std::string_view text) {
    enum class In { Common, Ours, Base, Theirs } in = In::Common;
    ConflictSides s;
    std::string base;
    bool sawBase = false, any = false;
    int line = 0, openedAt = 0;
    auto marker = [](std::string_view l, char ch) {
        if (l.size() < 7) return false;
        for (int i = 0; i < 7; ++i)
            if (l[size_t(i)] != ch) return false;
        return l.size() == 7 || l[7] == ' ' || l[7] == '\r';
    };
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
        std::string_view full = text.substr(pos, end - pos);
        std::string_view l = full;
        while (!l.empty() && (l.back() == '\n' || l.back() == '\r'))
            l.remove_suffix(1);
        pos = end;
        ++line;
        if (in == In::Common && marker(l, '<')) {
            in = In::Ours;
            openedAt = line;
            if (!any) s.firstLine = line;
            any = true;
            continue;
        }
        if (in == In::Ours && marker(l, '|')) {
            in = In::Base;
            sawBase = true;
            continue;
        }
        if ((in == In::Ours || in == In::Base) && marker(l, '=')) {
            in = In::Theirs;
            continue;
        }
        if (in == In::Theirs && marker(l, '>')) {
            in = In::Common;
            continue;
        }
        switch (in) {
        case In::Common:
            s.ours += full;
            s.theirs += full;
            base += full;
            break;
        case In::Ours:
            s.ours += full;
            break;
        case In::Base:
            base += full;
            break;
        case In::Theirs:
            s.theirs += full;
            break;
        }
    }
    if (!any) return std::nullopt;
    if (in != In::Common)
        throw ClaimFileError(openedAt, "a git conflict opened here ('<<<<<<<') is not closed by "
                                       "'>>>>>>>'");
    if (sawBase) s.base = std::move(base);
    return s;
}

std::string mergeClaimFiles(std::string_view base, std::string_view ours, std::string_view theirs,
                            std::string_view id) {
    if (ours == theirs || theirs == base) return std::string(ours);
    if (ours == base) return std::string(theirs);
    auto parse = [&](std::string_view text, const char* side) {
        try {
            return parseClaim(text, id);
        } catch (const ClaimFileError& e) {
            throw ClaimFileError(e.line, std::string(side) + ": " + e.what());
        }
    };
    std::optional<Claim> o;
    if (!base.empty()) o = parse(base, "ancestor");
    Claim a = parse(ours, "ours"), b = parse(theirs, "theirs");
    return serializeClaim(mergeClaims(o ? &*o : nullptr, a, b));
}

} // namespace engram
