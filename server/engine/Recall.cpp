// Recall: tier-scoped retrieval with bounded candidate scoring.
//
// Ranking is BM25F over the claim's fields (label, tags, code anchors, text)
// computed here rather than by FTS5's `ORDER BY rank`, because ranking every
// row that holds a common term costs time proportional to the store. Instead
// each query term contributes at most its newest kPerTermCap rows (the rarest
// terms first, so their rows are never crowded out); a cheap pass scores
// those by the idf of the terms they are known to hold, and only the best
// kScoredCap rows are read and re-tokenized for the full score. The work per
// query is therefore bounded whatever the store size. A saturated term's
// document frequency is estimated from the rowid span its newest rows cover,
// because counting a long posting list is itself proportional to the store.
// The text relevance is then weighed with confidence, recency, feedback and
// closeness to the file in focus.
//
// With tier all, other projects' stores share one scoring budget instead of
// each scoring its own (shareBudget), take fewer rows per term, and are
// read on two threads, so asking 20 stores costs a few single-store
// recalls rather than twenty.
#include "engine/Anchoring.h"
#include "engine/Engine.h"
#include "engine/Modality.h"
#include "engine/Tier.h"
#include "store/StoreConfig.h"
#include "text/Content.h"
#include "text/Generic.h"
#include "text/Related.h"
#include "text/Tokenize.h"
#include "text/When.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Paths.h"
#include "util/Time.h"
#include "util/Utf8.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <iterator>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace engram {

namespace {

constexpr int kCandidateCap = 400; // rows considered by the cheap pass
constexpr int kPerTermCap = 400;   // newest rows taken per query term
// Per term in another project's store (tier all): those stores share one
// scoring budget (shareBudget), and a term's newest rows cost FTS5 time in
// proportion to how many are taken (about 63 us for 400, 30 us for 100 on
// a 5k-claim store), paid once per store.
constexpr int kOtherPerTermCap = 100;
constexpr int kScoredCap = 48; // rows read and fully scored
// A claim written in the window a query's date phrase names (text/When.h)
// weighs this much more than one that matches as well outside it (a query
// that only asks what happened then lists the window instead).
constexpr double kWhenBoost = 2.0;
constexpr double kWindowFirst = 1e6; // a cheap score above any term's
// A row scoring under this share of the best row's score is not served
// (with a query): a match on one word every claim holds. Measured on the
// scripted session over psf/requests (tests/mcp/agentSession.mjs): every
// row under it matched one common word in a name (`request` in
// REQUESTS_CA_BUNDLE or PreparedRequest) and scored under 0.8% of the best;
// the weakest row a person would call relevant scored 6.3%.
constexpr double kScoreFloor = 0.025;
constexpr double kK1 = 1.2, kB = 0.75;
// A related term's share of a word's weight, and how many a query takes.
// On the labelled prompts (bench/recall_quality.py) 0.5 did best on both
// splits; each related term costs one more index lookup per tier.
constexpr double kRelatedWeight = 0.5;
constexpr size_t kMaxRelated = 12;
// Two claims sharing this much of their words (text/Content.h) say nearly
// the same: the lower-ranked one is folded into the other's row.
constexpr double kNearDuplicate = 0.8;
// A word only one claim holds tells a prompt's subject in a store of some
// size; in a young one, where most words are held once, it does not.
constexpr int64_t kUniqueFrom = 100;
// Field weights: a label or tag names what a claim is about; the text says it.
constexpr double kWeightLabel = 3.0, kWeightTags = 2.0, kWeightCode = 2.0, kWeightText = 1.0;

double lengthNorm(size_t len, double avg);

// A set of words as recall compares them (lower-case and stemmed, as
// tokenize() gives them), built once from their spelling.
std::unordered_set<std::string> termSet(const char* spelled) {
    std::unordered_set<std::string> out;
    for (auto& t : text::terms(spelled))
        out.insert(t);
    return out;
}

// Words a claim keeps for their meaning (negations, modals: the stop list
// leaves them in) that a question uses without saying anything about the
// code: "should" in "what should a caller do" is not a reason to serve a
// claim anchored to should_bypass_proxies.
bool weakTerm(const std::string& term) {
    static const std::unordered_set<std::string> weak =
        termSet("not no never must should always only can cannot may might will would could shall "
                "need needs does do did");
    return weak.count(term) > 0;
}

// The words of a question about what happened, not about what: with a
// date beside them and nothing else ("what changed last week", "anything
// new since Monday"), the window's claims are listed. Any other word keeps
// the query a search: "who is on call this week" asks about the rota, not
// about the week; "what broke this morning" about a breakage.
bool asksWhatHappened(const std::string& term) {
    static const std::unordered_set<std::string> words =
        termSet("what which anything something everything happen happened happening change "
                "changed changes add added new update updated go went going learn learned learnt "
                "note noted write wrote written record recorded agree agreed");
    return words.count(term) > 0;
}

// The words naming each kind of claim: "what did we decide" asks for
// decisions whatever their words ("Agreed at the retro: ..."). A kind so
// named is matched like a tag.
const std::unordered_map<std::string, std::unordered_set<std::string>>& kindWords() {
    static const std::unordered_map<std::string, std::unordered_set<std::string>> words = {
        {"decision", termSet("decision decisions decide decided")},
        {"convention", termSet("convention conventions")},
        {"gotcha", termSet("gotcha gotchas pitfall pitfalls")},
        {"todo", termSet("todo todos")},
        {"preference", termSet("preference preferences prefer prefers")},
    };
    return words;
}

bool namesKind(const std::string& term, const std::string& kind) {
    auto it = kindWords().find(kind);
    return it != kindWords().end() && it->second.count(term) > 0;
}

// The kinds a word of the query names (most name none).
std::vector<std::string_view> kindsNamed(const std::string& term) {
    std::vector<std::string_view> out;
    for (auto& [kind, words] : kindWords())
        if (words.count(term)) out.push_back(kind);
    return out;
}

// The terms a recall looks for (the query's own and their related terms),
// each with a slot, so a scored row counts them in arrays rather than in
// maps of strings. Two words of the query side by side ("event loop",
// "index.html") are kept as pairs of slots: a claim holding them side by
// side is about what the query names, where each word alone ("event",
// "loop") is common. Only pairs that tell (no weak word) with a specific
// word in them (not "this function").
struct Wanted {
    std::unordered_map<std::string, uint32_t> slot;
    std::unordered_set<uint64_t> pairs; // first slot << 32 | second slot

    static uint64_t pairKey(uint32_t first, uint32_t second) {
        return uint64_t(first) << 32 | second;
    }
    uint32_t add(const std::string& term) {
        return slot.emplace(term, uint32_t(slot.size())).first->second;
    }
    std::optional<uint32_t> find(const std::string& term) const {
        auto it = slot.find(term);
        if (it == slot.end()) return std::nullopt;
        return it->second;
    }
    void addPairs(std::string_view query) {
        std::string prev;
        text::tokenize(query, [&](const text::Token& t) {
            if (t.colocated) return; // an identifier's parts: the identifier is the word
            if (!prev.empty() && prev != t.term && !weakTerm(prev) && !weakTerm(t.term) &&
                (!text::isGenericTerm(prev) || !text::isGenericTerm(t.term)))
                pairs.insert(pairKey(add(prev), add(t.term)));
            prev = t.term;
        });
    }
};

// How often each wanted term occurs in one of a claim's fields, and whether
// the field holds a pair of the query's words side by side; one pass over
// the field's words.
struct FieldCounts {
    std::vector<uint16_t> tf; // by slot
    bool pair = false;

    FieldCounts(std::string_view field, const Wanted& wanted, bool pairs)
        : tf(wanted.slot.size(), 0) {
        if (field.empty()) return;
        constexpr uint32_t kNone = UINT32_MAX;
        uint32_t prev = kNone;
        text::tokenize(field, [&](const text::Token& t) {
            auto it = wanted.slot.find(t.term);
            uint32_t at = it == wanted.slot.end() ? kNone : it->second;
            if (at != kNone && tf[at] < UINT16_MAX) ++tf[at];
            if (!pairs || t.colocated) return;
            if (!pair && prev != kNone && at != kNone)
                pair = wanted.pairs.count(Wanted::pairKey(prev, at)) > 0;
            prev = at;
        });
    }
    int operator[](std::optional<uint32_t> at) const { return at ? tf[*at] : 0; }
};

// How well a claim matches the query's terms (BM25 over its label, text,
// tags and anchors, weighed by field), each matched term noted in `why`;
// none when no term tells it apart (below). `slots`: each query term's slot
// in `wanted`, looked up once per pass, not per row.
template <class QueryTerms>
std::optional<double>
relevanceOf(const IndexedClaim& ic, const QueryTerms& qterms, size_t own, const Wanted& wanted,
            const std::vector<std::optional<uint32_t>>& slots, const IndexStats& st,
            std::vector<std::string>& why, RecallRow::Match& match) {
    const Claim& c = ic.claim;
    std::string tags;
    for (auto& tg : c.tags)
        tags += tg + " ";
    const FieldCounts tfLabel(c.label, wanted, true);
    // A claim a merge left diverged is found by any version's words (the
    // index searches them all).
    std::string text = c.text;
    for (auto& d : c.diverged)
        text += "\n" + d.text;
    const FieldCounts tfText(text, wanted, true);
    const FieldCounts tfTags(tags, wanted, false);
    const FieldCounts tfCode(ic.code, wanted, false);
    // The anchors' symbols alone: a term found only in an anchor's path
    // (`request` in src/requests/) adds to a row's score but never makes a
    // row match by itself.
    std::string symbols;
    for (auto& a : c.anchors)
        symbols += a.symbol + " ";
    const FieldCounts tfSymbol(symbols, wanted, false);
    double relevance = 0;
    int telling = 0;
    // Per word of the query's own: matched (by itself or a related term),
    // and matched where it tells (not on a path, not a weak word).
    std::vector<char> found(own, 0), told(own, 0), strong(own, 0), uniqueTold(own, 0);
    match = {};
    for (size_t k = 0; k < qterms.size(); ++k) {
        const auto& q = qterms[k];
        const std::optional<uint32_t> at = slots[k];
        const bool kind = namesKind(q.term, c.kind);
        double w = kWeightLabel * tfLabel[at] / lengthNorm(c.label.size(), st.avgLabel) +
                   kWeightText * tfText[at] / lengthNorm(text.size(), st.avgText) +
                   kWeightTags * tfTags[at] / lengthNorm(tags.size(), st.avgTags) +
                   kWeightCode * tfCode[at] / lengthNorm(ic.code.size(), st.avgCode) +
                   (kind ? kWeightTags : 0.0);
        if (w <= 0) continue;
        relevance += q.weight * q.idf * w / (kK1 + w);
        bool onlyPath = !tfLabel[at] && !tfText[at] && !tfTags[at] && !tfSymbol[at] && !kind;
        bool tells = !onlyPath && !weakTerm(q.term);
        telling += tells;
        for (size_t i : q.of) {
            found[i] = 1;
            if (tells) told[i] = 1;
            if (tells && (tfLabel[at] || tfTags[at] || tfSymbol[at] || kind)) strong[i] = 1;
            if (tells && q.df == 1 && st.total >= kUniqueFrom) uniqueTold[i] = 1;
        }
        std::string where = tfLabel[at]                          ? "label"
                            : tfTags[at]                         ? "tags"
                            : tfSymbol[at]                       ? "anchor"
                            : onlyPath                           ? "anchor path"
                            : kind && !tfText[at] && !tfCode[at] ? "kind"
                                                                 : "text";
        why.push_back("matched '" + q.term + "' in " + where +
                      (q.weight < 1 && !q.of.empty() ? " (for '" + qterms[q.of[0]].term + "')"
                                                     : std::string()));
    }
    // Matched on a path or on words like "should" alone: noise, not a match.
    if (telling == 0) return std::nullopt;
    size_t matched = 0;
    // Coverage counts the query's words, not its terms: an identifier
    // matched whole ("KeyError") is one word matched, not three (with "key"
    // and "error"); matched by its parts alone, by more than half of them
    // ("key" alone does not match "KeyError", generic as "error" is). A
    // word is specific when it or one of its parts is.
    struct Word {
        bool specific = false, whole = false;
        int parts = 0, partsTold = 0;
    };
    std::vector<Word> words;
    for (size_t i = 0; i < own; ++i) {
        matched += found[i];
        const auto& qw = qterms[i].word;
        if (words.size() <= qw.index) words.resize(qw.index + 1);
        Word& w = words[qw.index];
        w.specific = w.specific || qterms[i].specific;
        if (qw.part) {
            ++w.parts;
            w.partsTold += told[i];
        } else {
            w.whole = w.whole || (told[i] && qterms[i].specific);
        }
        if (!qterms[i].specific) continue;
        match.unique = match.unique || uniqueTold[i];
        match.strong = match.strong || strong[i];
    }
    for (auto& w : words) {
        if (!w.specific) continue;
        ++match.asked;
        if (w.whole || (w.parts > 0 && 2 * w.partsTold > w.parts)) ++match.matched;
    }
    if (matched == 0) return std::nullopt;
    match.phrase = tfLabel.pair || tfText.pair;
    if (match.phrase) why.push_back("matched words of the query side by side");
    // By count, not by idf: in a young store of a few claims idf is
    // degenerate (a word every claim holds weighs nothing, one none holds
    // weighs most), and on the labelled prompts the count did as well.
    match.coverage = match.asked ? double(match.matched) / match.asked : 0;
    // Rows that cover more of the query beat rows that repeat one term.
    return relevance * (0.5 + 0.5 * double(matched) / double(own));
}

// What a claim is worth whatever the query: its confidence, how recently it
// was written or re-verified, and the verdicts of those who relied on it.
double standing(const Claim& c, int64_t now) {
    double prior = 0.6 + 0.4 * c.confidence.value_or(0.5);
    int64_t since = c.verified.value_or(c.updated.value_or(c.created.value_or(now)));
    double ageDays = double(std::max<int64_t>(0, now - since)) / 86400.0;
    double recency = 1.0 + 0.2 * std::exp(-ageDays / 60.0);
    double feedback = (2.0 + c.feedback.correct + 0.5 * c.feedback.partial) /
                      (2.0 + c.feedback.wrong + 0.5 * c.feedback.partial);
    return prior * recency * feedback;
}

// The last part of a qualified name: `validate` of TokenValidator.validate
// (or of a C++ or Rust `Type::validate`).
std::string lastNamePart(const std::string& name) {
    auto cut = name.find_last_of(".:#");
    return cut == std::string::npos ? name : name.substr(cut + 1);
}

// Whether an anchor's symbol is the one asked for: the same qualified name,
// or one whose last parts it names (`validate`, `TokenValidator.validate`).
bool namesSymbol(const std::string& anchored, const std::string& asked) {
    if (anchored == asked) return true;
    if (anchored.size() <= asked.size() || !anchored.ends_with(asked)) return false;
    char before = anchored[anchored.size() - asked.size() - 1];
    return before == '.' || before == ':';
}

// The order rows are served in: by score, then by id and store, so equal
// scores come out the same on every run.
bool rankedBefore(const RecallRow& a, const RecallRow& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.claim.id != b.claim.id) return a.claim.id < b.claim.id;
    return a.store < b.store;
}

// A claim's date as a query's window weighs it: written in the window,
// kWhenBoost and up to a quarter more the nearer the moment the phrase
// names ("two weeks ago"), or the newer within a span ("last week");
// outside it, 1. A listing by the window alone weighs 1 to 2 by the same
// nearness. Written is the claim's last version's date.
double inWhen(const Claim& c, const text::When& w, bool listing, std::vector<std::string>& why) {
    std::optional<int64_t> written = c.updated ? c.updated : c.created;
    if (!written || *written < w.from || *written >= w.to) return 1.0;
    double near = 0;
    if (w.point) {
        double half = double(std::max(w.to - *w.point, *w.point - w.from));
        near = 1.0 - std::min(1.0, std::abs(double(*written - *w.point)) / std::max(half, 1.0));
    } else {
        near = double(*written - w.from) / double(std::max<int64_t>(w.to - w.from, 1));
    }
    why.push_back("written " + formatUtc(*written).substr(0, 10) + ", " + w.phrase);
    return listing ? 1.0 + near : kWhenBoost * (1.0 + 0.25 * near);
}

// The window in words, for the answer's notice: "from 2026-11-14 to
// 2026-11-28 (UTC)".
std::string windowText(const text::When& w) {
    std::string to = formatUtc(w.to - 1).substr(0, 10);
    return (w.from == 0 ? "up to " + to : "from " + formatUtc(w.from).substr(0, 10) + " to " + to) +
           " (UTC)";
}

// How far a claim's anchors put it in the caller's focus: a factor on its
// score (in the file asked for, more on the symbol asked for), and why.
double focusOf(const Claim& c, const std::optional<std::string>& path,
               const std::optional<std::string>& symbol, std::vector<std::string>& why) {
    double focus = 1.0;
    bool onSymbol = false;
    for (auto& a : c.anchors) {
        bool inFile = path && a.path == *path;
        if (inFile) focus = std::max(focus, 1.5);
        if (symbol && (!path || inFile) && namesSymbol(a.symbol, *symbol)) onSymbol = true;
    }
    if (onSymbol) {
        why.push_back("anchored to " + *symbol);
        return focus * 2.0;
    }
    if (focus > 1.0) why.push_back("anchored in " + *path);
    return focus;
}

// What a row served carries besides its claim, read for the rows served
// only: its anchors' states and where their code is now (drift is never
// silent, and an editor places the row without asking for the file's
// anchors); with include superseded, the versions it replaced (history,
// where supersession moves them); the other live claims sharing its label
// (a collision is never silent either: both rows say so).
void completeRow(RecallRow& r, Tier& from, Anchorer& anchorer, bool wantSuperseded) {
    r.anchorState = anchorer.claimState(r.claim, &r.places);
    if (wantSuperseded && r.claim.version > 1)
        for (auto& v : from.store->versions(r.claim.id))
            if (v.version < r.claim.version) r.superseded.push_back(std::move(v));
    if (r.claim.live() && !r.claim.label.empty() && from.index)
        for (auto& other : from.index->liveIdsWithLabel(r.claim.label, 4))
            if (other != r.claim.id) r.labelSharedWith.push_back(other);
}

// A focus that matched nothing served is said, not ignored: a path naming
// no file of the workspace (a typo) focuses nothing, and neither does a
// symbol no claim served is anchored to.
void reportUnmatchedFocus(RecallResult& result, const std::optional<std::string>& path,
                          const std::optional<std::string>& symbol) {
    bool inPath = false, onSymbol = false;
    for (auto& row : result.rows)
        for (auto& a : row.claim.anchors) {
            bool inFile = path && a.path == *path;
            inPath = inPath || inFile;
            onSymbol = onSymbol || (symbol && (!path || inFile) && namesSymbol(a.symbol, *symbol));
        }
    if (path && !inPath)
        result.notices.push_back(
            "path '" + singleLine(*path, 200, "...") + "': " +
            (statFile(result.envelope.binding.root + "/" + *path)
                 ? "no claim served is anchored in this file"
                 : "no such file in the workspace, and no claim served is anchored there") +
            ", so it changed no rank.");
    if (symbol && !onSymbol)
        result.notices.push_back("symbol '" + singleLine(*symbol, 200, "...") +
                                 "': no claim served is anchored to it" +
                                 (path ? " in " + *path : std::string()) + ".");
}

// Why an answer with no rows is empty, and the call that may fill it.
// `matched` counts the claims that matched (all cut by max_chars when
// nonzero): never "none matched" when some did (invariant 2, no false
// absence). The query is quoted short: an answer does not grow with what
// was asked.
void explainEmpty(RecallResult& result, const RecallRequest& req,
                  const std::vector<std::string>& queryTerms, size_t matched, size_t firstChars,
                  bool capped) {
    if (matched > 0) {
        result.whyEmpty = (capped ? "at least " : "") + std::to_string(matched) +
                          (matched == 1 ? " claim matched" : " claims matched") +
                          ", but the best match's text alone is " + std::to_string(firstChars) +
                          " characters, over max_chars " + std::to_string(*req.maxChars) +
                          "; raise max_chars to at least " + std::to_string(firstChars);
        return;
    }
    int64_t live = 0;
    for (auto& me : result.memoryExists)
        live += me.live;
    if (live == 0) {
        result.whyEmpty =
            "no live claims exist in the " +
            std::string(!req.tier            ? "project or medulla tiers"
                        : *req.tier == "all" ? "project, medulla or other registered stores"
                                             : *req.tier + " tier");
        return;
    }
    result.whyEmpty =
        std::to_string(live) + (live == 1 ? " live claim exists" : " live claims exist") +
        ", but none matched" +
        (req.query ? " the query '" + singleLine(*req.query, 120, "...") + "'" : std::string()) +
        (req.kinds.empty() ? "" : " with the requested kinds") +
        (queryTerms.empty() && req.query ? " (it holds only stop words)" : "");
    if (result.envelope.trustMode == "needs_index") {
        // Still checking files changed while engram was down: the envelope's
        // recovery (wait, then repeat) stands.
        result.whyEmpty += "; the index is still being checked against claim files changed while "
                           "engram was not running, so a claim rewritten in that time may match "
                           "once it is done";
        return;
    }
    result.envelope.trustMode = "retrieval_needs_recovery";
    result.envelope.nextSuggested = "engram/recall";
    std::vector<std::pair<std::string, std::string>> args;
    if (queryTerms.size() > 1) args.emplace_back("query", queryTerms.front());
    result.envelope.recovery = {
        "engram/recall", args,
        queryTerms.size() > 1 ? "retry with fewer, more distinctive words, or without a query to "
                                "list the newest claims"
                              : "retry without a query to list the newest claims, or with other "
                                "words"};
}

double lengthNorm(size_t len, double avg) {
    return 1.0 - kB + kB * double(len) / avg;
}

} // namespace

// One tier's part of a recall: its statistics, its snapshot, and its
// candidates ranked by the cheap score, best first.
struct Engine::TierPass {
    struct QueryTerm {
        std::string term;
        int64_t df = 0;
        double idf = 0;
        bool specific = false; // neither weak nor generic in prompts (RecallRow::Match)
        // A related term (text/Related.h) weighs less than the query's own
        // words, and a match on it counts as a match on the words it
        // stands for (indices of the query's own terms, which come first).
        double weight = 1.0;
        std::vector<size_t> of;
        QueryWord word; // of the query's own terms: the word it is (part of)
    };
    size_t ownTerms = 0; // qterms[0, ownTerms) are the query's own words
    Tier* tier = nullptr;
    IndexStats stats;
    std::string storeName;
    // All lookups of this tier see one snapshot and take the file locks once.
    std::unique_ptr<sql::Transaction> snapshot;
    std::vector<QueryTerm> qterms;
    std::vector<std::pair<double, int64_t>> ranked; // (cheap score, rowid)
    int64_t candidates = 0;
    struct Scored {
        RecallRow row;
        Tier* from;
        FileStat file; // the claim file as indexed
    };
    std::vector<Scored> scored;
};

void Engine::forEachPass(std::vector<TierPass>& passes, const std::function<void(TierPass&)>& fn) {
    // Two threads (the machines engram serves have at least two cores) pay
    // off only past a few tiers; the default scope has two.
    constexpr size_t kParallelFrom = 4;
    if (passes.size() < kParallelFrom) {
        for (auto& p : passes)
            fn(p);
        return;
    }
    std::exception_ptr failed;
    std::thread other([&] {
        try {
            for (size_t i = 1; i < passes.size(); i += 2)
                fn(passes[i]);
        } catch (...) {
            failed = std::current_exception();
        }
    });
    std::exception_ptr mine;
    try {
        for (size_t i = 0; i < passes.size(); i += 2)
            fn(passes[i]);
    } catch (...) {
        mine = std::current_exception();
    }
    other.join();
    if (mine) std::rethrow_exception(mine);
    if (failed) std::rethrow_exception(failed);
}

void Engine::candidatePass(TierPass& p, const std::vector<std::string>& queryTerms,
                           const std::vector<QueryWord>& termWords,
                           const std::vector<text::Expansion>& related,
                           const std::optional<std::string>& focusPath, bool committedOnly,
                           size_t keep, const text::When* when) {
    Tier& t = *p.tier;
    p.stats = t.index->stats();
    p.storeName = t.root.empty() ? t.store->dir() : t.root;
    p.snapshot.reset(new sql::Transaction(t.index->readScope()));
    const IndexStats& st = p.stats;

    // Candidate generation, bounded: each term contributes at most
    // kPerTermCap of its newest rows, rarest terms first.
    std::vector<std::vector<int64_t>> lists;
    double n = double(std::max<int64_t>(st.total, 1));
    std::pair<int64_t, int64_t> span{0, 0};
    const int perTerm = t.name == "other" ? kOtherPerTermCap : kPerTermCap;
    p.ownTerms = queryTerms.size();
    for (size_t i = 0; i < queryTerms.size() + related.size(); ++i) {
        const std::string& term =
            i < queryTerms.size() ? queryTerms[i] : related[i - queryTerms.size()].term;
        auto rows = t.index->match(term, perTerm);
        TierPass::QueryTerm q{
            term, int64_t(rows.size()), 0, !weakTerm(term) && !text::isGenericTerm(term), 1.0, {},
            {}};
        if (i < queryTerms.size()) {
            q.of = {i};
            q.word = termWords[i];
        } else {
            q.weight = kRelatedWeight;
            for (auto& w : related[i - queryTerms.size()].of) {
                auto at = std::find(queryTerms.begin(), queryTerms.end(), w);
                if (at != queryTerms.end()) q.of.push_back(size_t(at - queryTerms.begin()));
            }
        }
        if (int(rows.size()) == perTerm) {
            // Saturated: estimate the document frequency from how much of
            // the rowid space the term's newest matches cover, rather than
            // counting a long posting list.
            if (span.second == 0) span = t.index->rowidSpan();
            double covered = double(span.second - rows.back() + 1);
            double all = double(span.second - span.first + 1);
            q.df = std::clamp<int64_t>(int64_t(double(perTerm) * all / covered), perTerm,
                                       std::max<int64_t>(st.total, perTerm));
        }
        q.idf = std::log(1.0 + (n - double(q.df) + 0.5) / (double(q.df) + 0.5));
        // A word naming a kind ("what did we decide") matches that kind's
        // claims like a tag (relevanceOf), whatever their words: the newest
        // of them are candidates beside the word's own rows. Its idf stays
        // the word's.
        if (i < queryTerms.size())
            for (auto kind : kindsNamed(term)) {
                auto more = t.index->ofKind(std::string(kind), perTerm);
                rows.insert(rows.end(), more.begin(), more.end());
            }
        p.qterms.push_back(q);
        lists.push_back(std::move(rows));
    }
    std::vector<size_t> order(p.qterms.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        // The query's own words before related ones: those are
        // never crowded out of the candidates by these.
        bool ra = a >= p.ownTerms, rb = b >= p.ownTerms;
        return ra != rb ? rb : p.qterms[a].df < p.qterms[b].df;
    });

    // A cheap first pass (the idf of the query terms each candidate is known
    // to hold, plus focus) picks the few rows worth reading and re-tokenizing
    // for the full BM25F score.
    std::unordered_map<int64_t, double> cheap;
    cheap.reserve(kCandidateCap);
    std::vector<int64_t> rowids;
    rowids.reserve(kCandidateCap);
    auto add = [&](int64_t id, double w) {
        auto [it, inserted] = cheap.try_emplace(id, 0.0);
        if (inserted) {
            if (int(rowids.size()) >= kCandidateCap) {
                cheap.erase(it);
                return;
            }
            rowids.push_back(id);
        }
        it->second += w;
    };
    if (focusPath)
        for (auto id : t.index->anchoredIn(*focusPath, kCandidateCap / 4))
            add(id, 1000.0);
    // The window's newest claims are candidates whatever their words' lists
    // held (a saturated term's newest rows may all be older).
    std::vector<int64_t> inWindow;
    if (when)
        inWindow = t.index->writtenBetween(when->from, when->to,
                                           p.qterms.empty() ? kCandidateCap : kCandidateCap / 4);
    if (!p.qterms.empty()) {
        for (auto id : inWindow)
            add(id, 0.0);
        for (size_t i : order)
            for (auto id : lists[i])
                add(id, p.qterms[i].weight * p.qterms[i].idf);
        // All of them are scored, beside the `keep` best of the others: a
        // claim of the window may match by its kind alone ("what did we
        // decide last week"), which no term's list holds.
        for (auto id : inWindow)
            if (auto it = cheap.find(id); it != cheap.end()) it->second += kWindowFirst;
        keep += inWindow.size();
    } else if (when) {
        // Only a date: the claims written then.
        for (auto id : inWindow)
            add(id, 0.0);
    } else {
        // No query: the newest claims (of the allowed statuses) in order.
        auto recent = committedOnly ? t.index->recent(ClaimStatus::Committed, kCandidateCap)
                                    : t.index->recent(std::nullopt, kCandidateCap);
        for (auto id : recent)
            add(id, 0.0);
    }
    p.candidates = int64_t(rowids.size());
    p.ranked.reserve(rowids.size());
    for (auto id : rowids)
        p.ranked.emplace_back(cheap[id], id);
    // Best cheap score first, then newest: a total order.
    size_t top = std::min(keep, p.ranked.size());
    std::partial_sort(p.ranked.begin(), p.ranked.begin() + ptrdiff_t(top), p.ranked.end(),
                      [](const auto& a, const auto& b) {
                          return a.first != b.first ? a.first > b.first : a.second > b.second;
                      });
    p.ranked.resize(top);
}

void Engine::shareBudget(std::vector<TierPass>& passes, size_t keep) {
    // The bound project and the medulla each keep their `keep` best. Other
    // projects (tier all) share one budget of `keep`, so reading and fully
    // scoring rows costs the same with 3 stores or 300: the best cheap
    // scores win, ties go round the stores (by rank within each, then by
    // the registry's order), which keeps the choice deterministic.
    struct Pick {
        double cheap;
        size_t rank, pass;
        int64_t rowid;
    };
    std::vector<Pick> pool;
    for (size_t i = 0; i < passes.size(); ++i)
        if (passes[i].tier->name == "other")
            for (size_t r = 0; r < passes[i].ranked.size(); ++r)
                pool.push_back({passes[i].ranked[r].first, r, i, passes[i].ranked[r].second});
    if (pool.size() <= keep) return;
    std::sort(pool.begin(), pool.end(), [](const Pick& a, const Pick& b) {
        if (a.cheap != b.cheap) return a.cheap > b.cheap;
        if (a.rank != b.rank) return a.rank < b.rank;
        return a.pass < b.pass;
    });
    pool.resize(keep);
    for (auto& p : passes)
        if (p.tier->name == "other") p.ranked.clear();
    // Back in each store's own order (the pool kept its relative order).
    std::sort(pool.begin(), pool.end(), [](const Pick& a, const Pick& b) {
        return a.pass != b.pass ? a.pass < b.pass : a.rank < b.rank;
    });
    for (auto& k : pool)
        passes[k.pass].ranked.emplace_back(k.cheap, k.rowid);
}

// An event named where a date would be ("what changed since the postgres
// upgrade"), in a question only about what happened around it (its other
// words weak, asking what happened, or naming a kind): the claim naming the
// event, found by a recall of its words (less those saying what kind of
// event it was), dates it, and the window runs from it onwards (after,
// since) or up to it (before, until; nearest first). Only such a question:
// "run the migrations before the deploy" asks about migrations, and a
// window would only reorder its answer. The event's claim must hold all of
// the words searched; otherwise no window, and `notice` says which phrase
// named nothing, the phrase staying words of the query. `dating`: the
// claim that dated it.
std::optional<text::When> Engine::eventWindow(const RecallRequest& req, int64_t now,
                                              std::string& queryText, std::string& notice,
                                              std::string& dating, bool rowsReread) {
    auto event = text::readEventBound(*req.query);
    if (!event) return std::nullopt;
    text::When w;
    w.begin = event->begin;
    w.end = event->end;
    w.phrase = event->phrase;
    std::string rest = text::withoutWhen(*req.query, w);
    for (auto& t : text::terms(rest))
        if (!weakTerm(t) && !asksWhatHappened(t) && kindsNamed(t).empty()) return std::nullopt;
    // Words that say what kind of event it was ("the webhook incident",
    // "the postgres upgrade") are left to the rest: a claim tells what
    // happened ("webhook deliveries were delayed"), seldom what it was called.
    static const std::unordered_set<std::string> kinds =
        termSet("incident outage migration upgrade release launch switch move change rollout "
                "refactor rewrite deploy deployment");
    std::string named;
    text::tokenize(event->event, [&](const text::Token& t) {
        if (!t.colocated && !kinds.count(t.term))
            named += (named.empty() ? "" : " ") + event->event.substr(t.begin, t.end - t.begin);
    });
    RecallRequest sub;
    sub.query = named.empty() ? event->event : named;
    sub.limit = 1;
    sub.tier = req.tier;
    sub.root = req.root;
    sub.readDates = false;
    sub.counted = false;
    RecallResult found = recallChecked(sub, rowsReread);
    const RecallRow* at = found.rows.empty() ? nullptr : &found.rows.front();
    std::optional<int64_t> written;
    if (at) written = at->claim.updated ? at->claim.updated : at->claim.created;
    if (!at || !written || at->match.matched < at->match.asked || at->match.asked == 0) {
        notice = "'" + singleLine(event->phrase, 60, "...") +
                 "' names no claim's event (no claim holds all of '" +
                 singleLine(*sub.query, 60, "...") + "'), so it was read as words, not a date";
        return std::nullopt;
    }
    if (event->before) {
        w.from = 0;
        w.to = *written;
        w.point = *written;
    } else {
        w.from = *written + 1;
        w.to = now + 1;
    }
    queryText = rest;
    dating = at->claim.id + " ('" + singleLine(at->claim.text, 60, "...") + "')";
    return w;
}

RecallResult Engine::recall(const RecallRequest& req) {
    // One reading of each anchored file for the whole answer.
    Anchorer::ReadScope reads(anchorer_);
    return recallChecked(req, false);
}

// The request's own fields, before any store is read.
static void checkRecall(const RecallRequest& req) {
    if (req.limit < 1 || req.limit > kMaxRecallLimit)
        throw invalidField("limit", "must be between 1 and " + std::to_string(kMaxRecallLimit));
    if (req.maxChars && *req.maxChars < 1) throw invalidField("max_chars", "must be positive");
    if (req.query) {
        if (auto bad = firstInvalidUtf8(*req.query))
            throw invalidField("query", "is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
    }
    if (req.tier && *req.tier != "project" && *req.tier != "medulla" && *req.tier != "all" &&
        !(req.tier->starts_with("team:") && validTeamName(std::string_view(*req.tier).substr(5))))
        throw invalidField("tier", "must be 'project', 'medulla', 'all' or 'team:NAME' (or "
                                   "absent for the project, the medulla and the project's teams)");
}

RecallResult Engine::recallChecked(const RecallRequest& req, bool rowsReread) {
    checkRecall(req);
    std::optional<std::string> focusPath;
    if (req.path) focusPath = confinedPath(opts_.root, "path", *req.path);

    RecallResult result;
    // Invariant 1 (no leak): the bound project and the medulla, and other projects
    // only when asked for by name (tier all), each row saying where it is from.
    bool mismatch = req.root && canonicalPath(*req.root) != opts_.root;
    std::vector<Tier*> read;
    if (!mismatch) read = tiers_.forRecall(req.tier, result.unreachable);
    result.envelope = envelope("engram/recall", req.root, read);
    if (result.envelope.binding.mismatch) return result;

    // Each term once, with the word of the query it came from: an
    // identifier ("KeyError") is one word, its parts ("key", "error")
    // included.
    std::vector<std::string> queryTerms;
    std::vector<QueryWord> termWords;
    auto addTerms = [&](std::string_view text) {
        std::unordered_set<std::string> seen;
        uint32_t words = 0;
        text::tokenize(text, [&](const text::Token& t) {
            if (!t.colocated || words == 0) ++words;
            if (!seen.insert(t.term).second) return;
            queryTerms.push_back(t.term);
            termWords.push_back({words - 1, t.colocated});
        });
    };
    // A date phrase ("last week") is a window of time, not words to match;
    // beside words that only ask what happened, the window's claims are
    // listed.
    const int64_t now = nowUnix();
    std::optional<text::When> when;
    std::string queryText = req.query.value_or("");
    if (req.query && req.readDates && (when = text::readWhen(*req.query, now)))
        queryText = text::withoutWhen(*req.query, *when);
    std::string eventNotice, dating;
    if (req.query && req.readDates && !when)
        when = eventWindow(req, now, queryText, eventNotice, dating, rowsReread);
    if (req.query) addTerms(queryText);
    // Without a query, a symbol's own words find its claims (the index
    // holds each anchor's path and symbol among a claim's words).
    const std::optional<std::string>& focusSymbol = req.symbol;
    if (focusSymbol && !req.query) addTerms(lastNamePart(*focusSymbol));
    // Related words of the query's own specific words (or of its phrases):
    // "undo the release" also finds the claim about the rollback.
    std::vector<text::Expansion> related;
    if (req.query && req.relatedWords)
        for (auto& e : text::relatedTerms(queryText, queryTerms, kMaxRelated)) {
            bool specific = std::any_of(e.of.begin(), e.of.end(), [](const std::string& w) {
                return !weakTerm(w) && !text::isGenericTerm(w);
            });
            if (e.phrase || specific) related.push_back(std::move(e));
        }
    const bool onlyWhen =
        when && std::all_of(queryTerms.begin(), queryTerms.end(), [](const std::string& t) {
            return weakTerm(t) || asksWhatHappened(t);
        });
    // Only a question about the window lists its claims as answers (the
    // hook's and packets' floor lets them through, engine/Delegate.cpp):
    // "do it before friday" reads a window too, but asks nothing of memory.
    const bool asksWindow =
        onlyWhen && std::any_of(queryTerms.begin(), queryTerms.end(),
                                [](const std::string& t) { return asksWhatHappened(t); });
    if (onlyWhen) {
        queryTerms.clear();
        termWords.clear();
        related.clear();
    }
    Wanted wanted;
    for (auto& t : queryTerms)
        wanted.add(t);
    if (req.query && !onlyWhen) wanted.addPairs(queryText);
    for (auto& e : related)
        wanted.add(e.term);
    auto statusAllowed = [&](ClaimStatus s) {
        return s == ClaimStatus::Committed ||
               std::find(req.include.begin(), req.include.end(), s) != req.include.end();
    };
    auto kindAllowed = [&](const std::string& k) {
        return req.kinds.empty() ||
               std::find(req.kinds.begin(), req.kinds.end(), k) != req.kinds.end();
    };

    size_t keep = size_t(std::max(kScoredCap, req.limit * 3));
    std::vector<TierPass> passes;
    for (Tier* tp : read)
        if (tiers_.ready(*tp)) passes.emplace_back().tier = tp;
    // The candidate passes only read each tier's own connection, so with
    // many stores (tier all) they run on two threads.
    forEachPass(passes, [&](TierPass& p) {
        candidatePass(p, queryTerms, termWords, related, focusPath, req.include.empty(), keep,
                      when ? &*when : nullptr);
    });
    int64_t candidates = 0;
    for (auto& p : passes) {
        const Tier& t = *p.tier;
        result.memoryExists.push_back(
            {t.name, p.storeName, p.stats.committed, p.stats.frontier + p.stats.retracted});
        candidates += p.candidates;
    }
    shareBudget(passes, keep);
    if (!rowsReread && req.counted) reports_.countRecall(result.memoryExists);

    // Reading and fully scoring the chosen rows, on the pass's thread too.
    forEachPass(passes, [&](TierPass& p) {
        Tier& t = *p.tier;
        const IndexStats& st = p.stats;
        const auto& qterms = p.qterms;
        std::vector<std::optional<uint32_t>> slots;
        for (auto& q : qterms)
            slots.push_back(wanted.find(q.term));
        for (auto& [cheap, rowid] : p.ranked) {
            auto ic = t.index->byRowid(rowid);
            if (!ic || !statusAllowed(ic->claim.status) || !kindAllowed(ic->claim.kind)) continue;
            const Claim& c = ic->claim;
            RecallRow row;
            double relevance = 1.0;
            if (!qterms.empty()) {
                auto r =
                    relevanceOf(*ic, qterms, p.ownTerms, wanted, slots, st, row.why, row.match);
                if (!r) continue; // no query term in it
                relevance = *r;
            }
            row.match.dated = asksWindow;
            row.score = relevance * standing(c, now) * focusOf(c, focusPath, focusSymbol, row.why) *
                        (when ? inWhen(c, *when, onlyWhen, row.why) : 1.0);
            if (c.feedback.correct || c.feedback.wrong)
                row.why.push_back("feedback +" + std::to_string(c.feedback.correct) + "/-" +
                                  std::to_string(c.feedback.wrong));
            if (qterms.empty() && !when) row.why.push_back("recent");
            row.tier = t.name;
            row.store = p.storeName;
            row.provenance = provenanceChain(c);
            if (c.created) {
                row.ageSeconds = now - *c.created;
                int64_t fresh = c.verified.value_or(*c.created);
                row.stale = now - fresh > int64_t(opts_.staleDays) * 86400;
            }
            row.claim = std::move(ic->claim); // `c` is not used past here
            p.scored.push_back({std::move(row), &t, ic->file});
        }
        p.snapshot.reset();
    });
    std::vector<TierPass::Scored> rows;
    for (auto& p : passes)
        std::move(p.scored.begin(), p.scored.end(), std::back_inserter(rows));
    result.envelope.observed.candidates = candidates;

    std::sort(rows.begin(), rows.end(),
              [](const auto& x, const auto& y) { return rankedBefore(x.row, y.row); });
    const bool wantSuperseded = std::find(req.include.begin(), req.include.end(),
                                          ClaimStatus::Superseded) != req.include.end();
    // The floor: counted and said, never dropped in silence.
    size_t weak = 0;
    if (!queryTerms.empty() && !rows.empty() && rows.front().row.score > 0) {
        const double floor = rows.front().row.score * kScoreFloor;
        while (!rows.empty() && rows.back().row.score < floor) {
            rows.pop_back();
            ++weak;
        }
    }
    size_t chars = 0;
    // Matched, but not one fits max_chars: said so, never "none matched".
    size_t firstChars = rows.empty() ? 0 : utf8Length(rows.front().row.claim.text);
    std::vector<std::pair<Tier*, std::string>> changed;
    std::vector<TermSet> servedTerms; // of result.rows, for near duplicates
    for (auto& [r, from, file] : rows) {
        // A near duplicate of a row served above it is named there, not
        // served again (it takes no place under the limit). A listing
        // (no query) shows every claim.
        TermSet terms;
        if (!queryTerms.empty() && r.claim.status == ClaimStatus::Committed) {
            terms = termSet(r.claim.text);
            const RecallRow& row = r; // clang 14 cannot capture a structured binding
            auto same =
                std::find_if(result.rows.begin(), result.rows.end(), [&](const RecallRow& s) {
                    const TermSet& served = servedTerms[size_t(&s - result.rows.data())];
                    // Never folds a contradiction away: one that differs in a
                    // number or a negation, or that a rule calls one, stays.
                    return s.tier == row.tier && s.claim.status == ClaimStatus::Committed &&
                           wordOverlap(served, terms) >= kNearDuplicate &&
                           sameNumbersAndPolarity(served, terms) &&
                           !contradicts(s.claim.text, row.claim.text);
                });
            if (same != result.rows.end()) {
                same->nearDuplicates.push_back(r.claim.id);
                continue;
            }
        }
        if (int(result.rows.size()) >= req.limit) {
            result.truncated = true;
            break;
        }
        size_t len = utf8Length(r.claim.text);
        if (req.maxChars && chars + len > size_t(*req.maxChars)) {
            result.truncated = true;
            break;
        }
        chars += len;
        // Never served as if current: a claim file changed since it was
        // indexed (edited while engram was down, not yet reconciled) is read
        // again and the recall repeated.
        if (!rowsReread && !sameFile(statFile(from->store->claimPath(r.claim.id)), file))
            changed.emplace_back(from, r.claim.id);
        completeRow(r, *from, anchorerFor(*from), wantSuperseded);
        result.rows.push_back(std::move(r));
        servedTerms.push_back(std::move(terms));
    }
    if (!changed.empty()) {
        tiers_.reread(changed);
        return recallChecked(req, true);
    }

    if (req.instructionParagraphs && req.query && (!req.tier || *req.tier != "medulla") &&
        req.kinds.empty()) {
        try {
            result.instructions =
                recallInstructions(*req.query, std::min<size_t>(3, size_t(req.limit)));
        } catch (const FsError&) {
            // An unreadable instruction file does not fail a recall of claims.
        }
    }

    // Drift is never silent, and neither is what could not be judged.
    for (auto& row : result.rows)
        addNotJudged(result.envelope.notJudged, row.places);
    explainNotJudged(result.envelope, result.instructions);

    reportUnmatchedFocus(result, focusPath, focusSymbol);
    if (weak > 0)
        result.notices.push_back(
            std::to_string(weak) + (weak == 1 ? " more claim" : " more claims") +
            " matched only weakly (under " + std::to_string(int(kScoreFloor * 1000) / 10) + "." +
            std::to_string(int(kScoreFloor * 1000) % 10) + "% of the best row's score) and " +
            (weak == 1 ? "is" : "are") + " not shown; other words, a path or a symbol find them");
    if (!eventNotice.empty()) result.notices.push_back(eventNotice);
    if (when)
        result.notices.push_back(
            "'" + singleLine(when->phrase, 60, "...") + "' read as the claims written " +
            windowText(*when) + (dating.empty() ? "" : ", dated by " + dating) +
            (!onlyWhen     ? ": those that match rank first"
             : when->point ? ", nearest to " + formatUtc(*when->point).substr(0, 10) +
                                 " first: no other word of the query is specific"
                           : ", newest first: no other word of the query is specific"));
    if (result.rows.empty())
        explainEmpty(result, req, queryTerms, result.truncated ? rows.size() : 0, firstChars,
                     rows.size() >= keep);
    if (result.rows.empty() && onlyWhen && !result.truncated && !result.memoryExists.empty())
        result.whyEmpty = "no claim in scope was written " + windowText(*when) + " ('" +
                          singleLine(when->phrase, 60, "...") + "')";
    return result;
}

} // namespace engram
