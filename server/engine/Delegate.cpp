// Delegation packets: a bounded, deterministic memory slice for a sub-agent
// (README, "Delegation"), the workspace binding it was composed on, and the packet key.
//
// Selection reuses recall's bounded ranking for text relevance (the task and
// the symbols as the query, over the project and the medulla only: another
// project's memory never enters a packet) and adds the project claims
// anchored in the requested files, whatever their wording. Claims that cannot
// be vouched for (orphaned anchors, frontier, retracted) are left out and
// counted in honest_gaps, so the child knows what it was not told; a claim
// whose code changed (drifted) comes with its text, marked unverified: left
// out, the most relevant claim of a task that touches changed code was a
// bare id the child could not read.
//
// Determinism (invariant 7): everything in the packet is a function of the
// store state, the request and the UTC day (`as_of`). Ages are whole days to
// that day, staleness is judged on it, and recall's recency factor (which
// moves every second) is re-based to the start of that day, so two packets
// composed minutes apart are byte-identical but for created_at and the
// signature.
#include "engine/Engine.h"
#include "engine/Tier.h"
#include "util/Error.h"
#include "util/Fs.h"
#include "util/Git.h"
#include "util/Hash.h"
#include "util/Log.h"
#include "util/Paths.h"
#include "util/Time.h"
#include "util/Utf8.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <sodium.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace engram {

namespace {

constexpr size_t kMaxTask = 4000;
constexpr size_t kMaxScopes = 32; // paths or symbols in one request
constexpr int kAnchoredPerPath = 200;
constexpr int kHookAnchoredPerPath = 16;
constexpr size_t kGapIds = 20;

// ---- git: HEAD from the files, the dirty flag from `git status`, kept
// while what it depends on holds (engine/DirtyFlag.h) ----

// ---- the packet key ----

std::string keyPath(const std::string& home) {
    return home + "/keys/packet.key";
}

std::optional<std::vector<unsigned char>> readSecretKey(const std::string& home) {
    auto text = readFile(keyPath(home));
    if (!text) return std::nullopt;
    std::string hex = trimRight(*text);
    std::vector<unsigned char> sk(crypto_sign_SECRETKEYBYTES);
    size_t len = 0;
    if (sodium_hex2bin(sk.data(), sk.size(), hex.data(), hex.size(), nullptr, &len, nullptr) != 0 ||
        len != sk.size())
        throw EngramError(ErrorKind::Internal, keyPath(home) + ": not a packet key (expected " +
                                                   std::to_string(2 * sk.size()) + " hex digits)");
    return sk;
}

// Creates the key pair once: written to a private temporary file, then
// linked into place, so two engram processes racing to create it agree on
// one key (the loser reads the winner's) and nobody ever reads half a key.
std::vector<unsigned char> loadOrCreateKey(const std::string& home) {
    if (auto sk = readSecretKey(home)) return *sk;
    std::string dir = home + "/keys";
    makeDirs(dir);
    ::chmod(dir.c_str(), 0700);
    std::vector<unsigned char> pk(crypto_sign_PUBLICKEYBYTES), sk(crypto_sign_SECRETKEYBYTES);
    crypto_sign_keypair(pk.data(), sk.data());
    std::string tmp = keyPath(home) + ".tmp-" + std::to_string(::getpid());
    {
        UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
        if (!fd) throw FsError("cannot create " + tmp + ": " + std::strerror(errno), tmp, errno);
        std::string hex = toHex(sk.data(), sk.size()) + "\n";
        sodium_memzero(sk.data(), sk.size());
        ssize_t wrote = ::write(fd.get(), hex.data(), hex.size());
        if (wrote != ssize_t(hex.size()) || ::fsync(fd.get()) != 0) {
            int err = wrote >= 0 && wrote != ssize_t(hex.size()) ? ENOSPC : errno;
            sodium_memzero(hex.data(), hex.size());
            removeFile(tmp);
            throw FsError("cannot write " + tmp + ": " + std::strerror(err), tmp, err);
        }
        sodium_memzero(hex.data(), hex.size());
    }
    int linked = ::link(tmp.c_str(), keyPath(home).c_str());
    int linkErr = errno;
    removeFile(tmp);
    if (linked != 0 && linkErr != EEXIST)
        throw FsError("cannot create " + keyPath(home) + ": " + std::strerror(linkErr),
                      keyPath(home), linkErr);
    fsyncDir(dir);
    auto stored = readSecretKey(home);
    if (!stored) throw FsError("cannot read " + keyPath(home));
    // The public half beside it, for people and other tools (engram derives
    // it from the private key and never reads this file).
    std::vector<unsigned char> pub(crypto_sign_PUBLICKEYBYTES);
    crypto_sign_ed25519_sk_to_pk(pub.data(), stored->data());
    atomicWrite(home + "/keys/packet.pub", toHex(pub.data(), pub.size()) + "\n");
    return *stored;
}

// ---- selection ----

// Recall's recency factor (engine/Recall.cpp), to re-base its scores from
// the second they were computed to the start of the packet's day.
double recency(const Claim& c, int64_t now, int64_t at) {
    int64_t since = c.verified.value_or(c.updated.value_or(c.created.value_or(now)));
    double ageDays = double(std::max<int64_t>(0, at - since)) / 86400.0;
    return 1.0 + 0.2 * std::exp(-ageDays / 60.0);
}

double round4(double v) {
    return std::round(v * 10000.0) / 10000.0;
}

std::string checkedLine(const std::string& field, const std::string& v, size_t max) {
    if (auto bad = firstInvalidUtf8(v))
        throw invalidField(field, "is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
    auto b = v.find_first_not_of(" \t");
    if (b == std::string::npos) throw invalidField(field, "must not be empty");
    if (v.size() > max)
        throw invalidField(field, "is longer than " + std::to_string(max) + " bytes");
    if (v.find_first_of("\n\r") != std::string::npos)
        throw invalidField(field, "must be a single line");
    return v.substr(b, v.find_last_not_of(" \t") - b + 1);
}

struct Candidate {
    Claim claim;
    std::string tier;
    std::string anchorState;
    std::vector<AnchorPlace> places;
    double score = 0;
    RecallRow::Match match; // how the task's words matched (none: brought in by scope)
    double textScore = 0;   // the score the task's words gave it, before scope boosts
    std::vector<std::string> nearDuplicates; // folded into it by recall
    bool inScope = false; // anchored in a requested path or at a requested symbol
    std::vector<std::string> why;
};

} // namespace

PacketBinding Engine::currentBinding(bool dirtyFlag) {
    PacketBinding b;
    b.root = opts_.root;
    b.fingerprint = fingerprint_;
    if (auto g = findGit(opts_.root)) {
        b.git = true;
        if (auto head = readFile(g->gitDir + "/HEAD")) {
            std::string h = trimRight(*head);
            if (h.starts_with("ref:")) {
                b.branch = h.substr(4);
                b.branch.erase(0, b.branch.find_first_not_of(' '));
                b.head = resolveRef(*g, b.branch);
            } else if (isHexId(h)) {
                b.head = h;
            }
        }
        if (dirtyFlag) b.dirty = dirty_.get(g->gitDir + "/index", b.head);
    }
    return b;
}

PacketSignature Engine::signPacket(const std::string& message) {
    if (opts_.home.empty())
        throw EngramError(ErrorKind::NotBound,
                          "sign: no ENGRAM_HOME to keep the packet key in (pass --home)",
                          {{"field", std::string("sign")}});
    auto sk = loadOrCreateKey(opts_.home);
    PacketSignature s;
    std::vector<unsigned char> pk(crypto_sign_PUBLICKEYBYTES), sig(crypto_sign_BYTES);
    crypto_sign_ed25519_sk_to_pk(pk.data(), sk.data());
    crypto_sign_detached(sig.data(), nullptr,
                         reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                         sk.data());
    sodium_memzero(sk.data(), sk.size());
    s.publicKey = toHex(pk.data(), pk.size());
    s.value = toHex(sig.data(), sig.size());
    return s;
}

std::optional<std::string> Engine::packetPublicKey() {
    if (opts_.home.empty()) return std::nullopt;
    auto sk = readSecretKey(opts_.home);
    if (!sk) return std::nullopt;
    std::vector<unsigned char> pk(crypto_sign_PUBLICKEYBYTES);
    crypto_sign_ed25519_sk_to_pk(pk.data(), sk->data());
    sodium_memzero(sk->data(), sk->size());
    return toHex(pk.data(), pk.size());
}

namespace {

bool packetIdShape(const std::string& id) {
    return id.size() == 64 && std::all_of(id.begin(), id.end(), [](char c) {
               return std::isxdigit(c) && !std::isupper(c);
           });
}

} // namespace

void Engine::keepPacket(const std::string& packetId, const std::string& packetJson) {
    if (opts_.home.empty() || !packetIdShape(packetId)) return;
    const std::string dir = joinPath(opts_.home, "packets");
    try {
        makeDirs(dir);
        atomicWrite(joinPath(dir, packetId + ".json"), packetJson);
        // The oldest go once the directory holds an eighth more than it
        // keeps, so a delegation lists the directory rarely.
        auto names = listFiles(dir);
        if (names.size() <= kKeptPackets + kKeptPackets / 8) return;
        std::vector<std::pair<int64_t, std::string>> byAge;
        for (auto& n : names)
            if (auto st = statFile(joinPath(dir, n))) byAge.emplace_back(st->mtimeNs, n);
        std::sort(byAge.begin(), byAge.end());
        for (size_t i = 0; i + kKeptPackets < byAge.size(); ++i)
            removeFile(joinPath(dir, byAge[i].second));
    } catch (const std::exception& e) {
        logLine(std::string("keeping packet ") + packetId + " failed: " + e.what());
    }
}

std::optional<std::string> Engine::keptPacket(const std::string& packetId) {
    if (opts_.home.empty() || !packetIdShape(packetId)) return std::nullopt;
    return readFile(joinPath(joinPath(opts_.home, "packets"), packetId + ".json"));
}

namespace {

// A delegation request as checked: every problem names its field; the scope
// is sorted, so the same scope gives the same packet.
struct Scope {
    std::string task, agent;
    int maxItems = kDefaultPacketItems, maxChars = kDefaultPacketChars;
    std::set<std::string> paths, symbols;
};

Scope checkedScope(const DelegateRequest& in, const std::string& root) {
    Scope s;
    if (auto bad = firstInvalidUtf8(in.task))
        throw invalidField("task", "is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
    s.task = in.task;
    s.task.erase(0, s.task.find_first_not_of(" \t\r\n"));
    s.task.erase(s.task.find_last_not_of(" \t\r\n") + 1);
    if (s.task.empty()) throw invalidField("task", "must not be empty");
    if (s.task.size() > kMaxTask)
        throw invalidField("task", "is longer than " + std::to_string(kMaxTask) + " bytes");
    s.agent = checkedLine("agent", in.agent, 200);
    s.maxItems = in.maxItems.value_or(kDefaultPacketItems);
    s.maxChars = in.maxChars.value_or(kDefaultPacketChars);
    if (s.maxItems < 1 || s.maxItems > kMaxPacketItems)
        throw invalidField("max_items", "must be between 1 and " + std::to_string(kMaxPacketItems));
    if (s.maxChars < 1 || s.maxChars > kMaxPacketChars)
        throw invalidField("max_chars", "must be between 1 and " + std::to_string(kMaxPacketChars));
    if (in.paths.size() > kMaxScopes)
        throw invalidField("paths", "at most " + std::to_string(kMaxScopes) + " paths");
    if (in.symbols.size() > kMaxScopes)
        throw invalidField("symbols", "at most " + std::to_string(kMaxScopes) + " symbols");
    for (size_t i = 0; i < in.paths.size(); ++i) {
        std::string f = "paths[" + std::to_string(i) + "]";
        checkedLine(f, in.paths[i], 4096);
        s.paths.insert(confinedPath(root, f, in.paths[i]));
    }
    for (size_t i = 0; i < in.symbols.size(); ++i)
        s.symbols.insert(checkedLine("symbols[" + std::to_string(i) + "]", in.symbols[i], 400));
    return s;
}

// Scope boosts: anchored inside a requested path (a file, or a directory
// holding it) or at a requested symbol (or a member of it).
void boostInScope(std::map<std::pair<std::string, std::string>, Candidate>& cands,
                  const Scope& scope) {
    for (auto& [key, c] : cands) {
        if (c.tier != "project") continue;
        bool inPath = false, atSymbol = false;
        std::string pathWhy, symbolWhy;
        for (auto& a : c.claim.anchors) {
            for (auto& p : scope.paths)
                if (!inPath && (a.path == p || a.path.starts_with(p + "/"))) {
                    inPath = true;
                    pathWhy = "anchored in " + p;
                }
            for (auto& s : scope.symbols)
                if (!atSymbol && !a.symbol.empty() &&
                    (a.symbol == s || a.symbol.starts_with(s + ".") ||
                     a.symbol.ends_with("." + s))) {
                    atSymbol = true;
                    symbolWhy = "anchored at " + a.symbol;
                }
        }
        c.inScope = inPath || atSymbol;
        if (inPath) {
            c.score *= 1.5;
            c.why.push_back(pathWhy);
        }
        if (atSymbol) {
            c.score *= 1.5;
            c.why.push_back(symbolWhy);
        }
    }
}

// The relevance floor: a claim the task's words alone brought in enters a
// packet only when it matches one of the task's specific words (those not
// generic in coding prompts, text/Generic.h: a task made only of generic
// words, "make this loop faster", is not a question for memory) and scores
// at least a quarter of the best such claim.
//
// The hook, which pushes memory unasked into every prompt, asks more
// (strict), in two steps. First, is the prompt a question for memory at
// all: one of the claims the hook would give (the kHookMost best over the
// packet's floor) must answer it clearly, with at least half the best
// score and
// - two of the prompt's specific words side by side, as the prompt has
//   them ("event loop": each word alone is common, the two together name
//   one thing);
// - or at least a third of the prompt's words (an identifier and its parts
//   are one word), and two of them (the prompt's only specific word: in a
//   label, a tag or an anchor's symbol, the claim's kind it names, "what
//   did we decide" of a decision, or held by no other claim).
// One common word shared with a longer prompt is a coincidence more often
// than an answer, and so is a claim that answers clearly only from below
// claims that do not: it would not even be given. So is a word of a longer
// prompt that one claim alone holds: rare in the store is not telling
// ("median" in "compute the median of this array" opened the door to a
// docstring about statistics.median).
//
// A question about a window and nothing else ("what changed since last
// week", "anything new since the postgres upgrade") is answered by the
// window's claims, which recall lists by date with no word matched
// (RecallRow::Match::dated): they clear both floors on their score, the
// newest and most trusted first.
//
// If the door is open, the claims that clear the packet's floor come along,
// at most kHookMost in all: a prompt worded unlike its answer often ranks
// the answer second or third, and an unrelated prompt has no claim to open
// the door.
//
// Ranking in the top N is not enough: some claim always shares a word with
// any prompt. A claim in the requested scope (path, symbol) stays whatever
// its words (the hook's scope is the files its prompt names: the four
// best of those claims). Calibrated on the labelled prompts in
// bench/recall/, and checked on batches written after each change
// (bench/recall_quality.py; ARCHITECTURE.md, "Memory in the agent loop").
// Returns how many fell under it.
constexpr double kPacketRelative = 0.25;
constexpr double kHookCoverage = 1.0 / 3, kHookRelative = 0.5;
constexpr size_t kHookMost = 4;

bool clearsPacketFloor(const Candidate& c, double best) {
    return (c.match.matched > 0 || c.match.dated) && c.textScore >= kPacketRelative * best;
}

bool answersClearly(const Candidate& c, double best) {
    const RecallRow::Match& m = c.match;
    if (m.dated) return c.textScore >= kHookRelative * best; // the window's claims answer it
    if (m.matched == 0) return false;
    if (c.textScore < kHookRelative * best) return false;
    if (m.phrase) return true;
    if (m.coverage < kHookCoverage) return false;
    if (m.asked <= 1) return m.strong || m.unique; // one word: in a name, or held by no other
    return m.matched >= 2;
}

// The least score the hook's cap keeps: the kHookMost-th best of
// `scores`, when there are more; else no bound.
double leastKept(std::vector<double> scores) {
    if (scores.size() <= kHookMost) return 0;
    std::nth_element(scores.begin(), scores.begin() + (kHookMost - 1), scores.end(),
                     std::greater<>());
    return scores[kHookMost - 1];
}

int64_t relevanceFloor(std::map<std::pair<std::string, std::string>, Candidate>& cands,
                       bool strict) {
    double best = 0;
    for (auto& [key, c] : cands)
        best = std::max(best, c.textScore);
    // The hook's cap: the best-scoring of those over the packet's floor;
    // and of the claims in scope (anchored in a file the prompt names),
    // which come whatever their words, no more than of the others.
    std::vector<double> kept, scoped;
    for (auto& [key, c] : cands) {
        if (c.inScope)
            scoped.push_back(c.score);
        else if (clearsPacketFloor(c, best))
            kept.push_back(c.textScore);
    }
    const double least = strict ? leastKept(std::move(kept)) : 0;
    const double leastScoped = strict ? leastKept(std::move(scoped)) : 0;
    bool open = !strict;
    for (auto& [key, c] : cands)
        open = open || (!c.inScope && c.textScore >= least && answersClearly(c, best));
    int64_t below = 0;
    size_t taken = 0, takenScoped = 0;
    for (auto it = cands.begin(); it != cands.end();) {
        const Candidate& c = it->second;
        bool keep = c.inScope ? c.score >= leastScoped && (!strict || takenScoped < kHookMost)
                              : open && clearsPacketFloor(c, best) && c.textScore >= least &&
                                    (!strict || taken < kHookMost);
        if (keep) ++(c.inScope ? takenScoped : taken);
        if (keep) {
            ++it;
        } else {
            it = cands.erase(it);
            ++below;
        }
    }
    return below;
}

// What cannot be vouched for is left out and counted in the packet's
// honest gaps, never dropped in silence; the rest, in score order (then id,
// then tier: the same store gives the same order).
std::vector<Candidate*>
eligibleOrGap(std::map<std::pair<std::string, std::string>, Candidate>& cands, Packet& p) {
    std::map<std::string, std::vector<std::string>> gaps = {
        {"orphaned", {}}, {"frontier", {}}, {"retracted", {}}};
    std::vector<Candidate*> eligible;
    for (auto& [key, c] : cands) {
        c.score = round4(c.score);
        if (c.claim.status == ClaimStatus::Frontier)
            gaps["frontier"].push_back(c.claim.id);
        else if (c.claim.status != ClaimStatus::Committed)
            gaps["retracted"].push_back(c.claim.id);
        else if (c.anchorState == "orphaned")
            gaps[c.anchorState].push_back(c.claim.id);
        else
            eligible.push_back(&c);
    }
    for (const char* reason : {"orphaned", "frontier", "retracted"}) {
        auto& ids = gaps[reason];
        std::sort(ids.begin(), ids.end());
        HonestGap g{reason, int64_t(ids.size()), {}};
        for (size_t i = 0; i < ids.size() && i < kGapIds; ++i)
            g.ids.push_back(ids[i]);
        p.honestGaps.push_back(std::move(g));
    }
    std::sort(eligible.begin(), eligible.end(), [](const Candidate* a, const Candidate* b) {
        if (a->score != b->score) return a->score > b->score;
        if (a->claim.id != b->claim.id) return a->claim.id < b->claim.id;
        return a->tier < b->tier;
    });
    return eligible;
}

// A candidate as the packet carries it: ages in whole days to the packet's
// day, staleness judged on it.
PacketItem itemOf(const Candidate& c, int64_t today, int staleDays) {
    const Claim& cl = c.claim;
    PacketItem it;
    it.id = cl.id;
    it.version = cl.version;
    it.label = cl.label;
    it.text = cl.text;
    it.kind = cl.kind;
    it.tier = c.tier;
    it.origin = cl.origin;
    it.sourceAgent = cl.sourceAgent;
    it.created = cl.created;
    if (cl.created) {
        it.ageDays = std::max<int64_t>(0, today - *cl.created / 86400);
        int64_t fresh = cl.verified.value_or(*cl.created);
        it.stale = today - fresh / 86400 > staleDays;
    }
    it.anchorState = c.anchorState;
    it.unverified = c.anchorState == "drifted";
    for (auto& a : cl.anchors)
        it.anchors.push_back(anchorName(a));
    it.places = c.places;
    it.confidence = cl.confidence;
    it.score = c.score;
    it.why = c.why;
    if (it.why.empty()) it.why.push_back("relevant to the task");
    it.provenance = provenanceChain(cl);
    it.contributionId = cl.contributionId;
    it.contributedBy = cl.contributedBy;
    it.acceptedBy = cl.acceptedBy;
    it.nearDuplicates = c.nearDuplicates;
    return it;
}

// What the budget left out, and why, for the packet's metrics.
struct Budget {
    int64_t chars = 0, skippedForChars = 0, cutByItems = 0, paragraphsLeft = 0;
};

void budgetMetrics(Packet& p, const Budget& b, int64_t considered, size_t eligible) {
    p.metrics.candidates = considered;
    p.metrics.eligible = int64_t(eligible);
    p.metrics.included = int64_t(p.items.size());
    p.metrics.chars = b.chars;
    if (b.cutByItems > 0)
        p.metrics.budgetWhy.push_back("max_items (" + std::to_string(p.maxItems) +
                                      ") reached: " + std::to_string(b.cutByItems) +
                                      " more eligible claims left out");
    if (b.skippedForChars > 0)
        p.metrics.budgetWhy.push_back("max_chars (" + std::to_string(p.maxChars) +
                                      "): " + std::to_string(b.skippedForChars) +
                                      " eligible claims did not fit in the characters left");
    if (b.paragraphsLeft > 0)
        p.metrics.budgetWhy.push_back("max_chars (" + std::to_string(p.maxChars) +
                                      "): " + std::to_string(b.paragraphsLeft) +
                                      " matching instruction-file paragraphs did not fit");
    p.metrics.budgetExhausted = b.cutByItems > 0 || b.skippedForChars > 0 || b.paragraphsLeft > 0;
}

// What a packet says it is not, and how its reader should use it.
void packetTexts(Packet& p) {
    p.nonClaims = {
        "Items are what agents and people wrote down; they are not verified facts about the code.",
        "An intact anchor means the anchored code is unchanged since the claim was anchored or "
        "re-verified, not that the claim is true.",
        "The packet holds the claims judged relevant to the task within its limits; a claim "
        "absent from it may still exist (see honest_gaps and metrics).",
        "Items whose anchored code changed since they were written (drifted) say unverified: "
        "check them against the code before relying on them.",
        "Claims whose anchored code is gone (orphaned), frontier contributions and retracted "
        "claims are left out; honest_gaps counts them.",
        "Ages and staleness are judged on the as_of day, not the moment the child reads them.",
        "No other project's memory is included."};
    if (!p.instructionFiles.empty())
        p.nonClaims.push_back(
            "instruction_files are paragraphs of the repository's instruction files (AGENTS.md, "
            "CLAUDE.md...) with their code references' states; they are not claims.");
    p.instructions = {
        "Work inside binding.root; your own engram calls there reach the same memory.",
        "Treat items as leads to check against the code, weighed by confidence, stale and "
        "anchor_state.",
        "Report what you learn with engram/contribute (CLI: engram contribute --packet-id "
        "<packet_id>), one finding per item, anchored to the code it is about.",
        "Contributions wait as frontier until the delegating agent reviews them; do not call "
        "remember, promote or retract on this memory.",
        "Never include secrets in a contribution: they are refused."};
}

} // namespace

DelegateResult Engine::delegate(const DelegateRequest& in) {
    Anchorer::ReadScope reads(anchorer_); // each anchored file read once for the answer
    const Scope scope = checkedScope(in, opts_.root);
    DelegateResult result;
    result.envelope = envelope("engram/delegate", in.root);
    if (result.envelope.binding.mismatch)
        throw EngramError(ErrorKind::NotBound,
                          "root: this engram is bound to " + opts_.root + ", not to " + *in.root +
                              "; delegate from the engram serving that root",
                          {{"field", std::string("root")}});

    Packet& p = result.packet;
    p.request.task = scope.task;
    p.request.agent = scope.agent;
    p.request.paths.assign(scope.paths.begin(), scope.paths.end());
    p.request.symbols.assign(scope.symbols.begin(), scope.symbols.end());
    p.request.maxItems = scope.maxItems;
    p.request.maxChars = scope.maxChars;
    p.maxItems = scope.maxItems;
    p.maxChars = scope.maxChars;
    p.staleDays = opts_.staleDays;
    p.binding = currentBinding(in.dirtyFlag);
    // Within one process, a stamp of earlier rules is judged the same way
    // for every packet: re-derived always, or (the hook) never.
    std::optional<Anchorer::HistoryScope> history;
    if (in.readHistory) history.emplace(anchorer_);

    // Text relevance through recall (project + medulla: never tier all). It
    // also returns frontier and retracted rows, to be counted as gaps. The
    // clock is read on both sides, so its recency can be re-based exactly.
    RecallRequest rr;
    rr.query = scope.task;
    for (auto& s : scope.symbols)
        *rr.query += " " + s;
    // Enough rows to fill the packet after gaps are taken out, not more:
    // recall fully scores three times its limit.
    rr.limit = std::clamp(scope.maxItems * 2 + 20, 40, 200);
    rr.include = {ClaimStatus::Frontier, ClaimStatus::Retracted};
    rr.instructionParagraphs = false;
    RecallResult recalled;
    int64_t now = 0;
    for (int attempt = 0; attempt < 5; ++attempt) {
        int64_t before = nowUnix();
        recalled = recall(rr);
        now = nowUnix();
        if (before == now) break;
    }
    const int64_t today = now / 86400;
    const int64_t dayStart = today * 86400;
    p.asOf = formatUtc(dayStart).substr(0, 10);
    p.createdAt = now;

    std::map<std::pair<std::string, std::string>, Candidate> cands; // (tier, id)
    int64_t considered = recalled.envelope.observed.candidates;
    for (auto& row : recalled.rows) {
        if (row.tier == "other") continue; // never another project
        Candidate c;
        c.claim = row.claim;
        c.tier = row.tier;
        c.anchorState = row.anchorState;
        c.places = row.places;
        c.score = row.score * recency(row.claim, now, dayStart) / recency(row.claim, now, now);
        c.match = row.match;
        c.textScore = c.score;
        c.why = row.why;
        c.nearDuplicates = row.nearDuplicates;
        cands.emplace(std::make_pair(c.tier, c.claim.id), std::move(c));
    }

    // Claims anchored in the requested files, whatever their wording.
    Tier& proj = tiers_.project();
    if (!scope.paths.empty() && tiers_.ready(proj)) {
        auto snapshot = proj.index->readScope();
        for (auto& path : scope.paths) {
            // The hook keeps four of them: the newest few are enough to
            // choose from (the score weighs recency), not a packet's 200.
            for (auto rowid : proj.index->anchoredIn(path, in.strictFloor ? kHookAnchoredPerPath
                                                                          : kAnchoredPerPath)) {
                ++considered;
                auto ic = proj.index->byRowid(rowid);
                if (!ic || cands.count({"project", ic->claim.id})) continue;
                Candidate c;
                c.claim = std::move(ic->claim);
                c.tier = "project";
                c.anchorState = anchorerFor(proj).claimState(c.claim, &c.places);
                // No text match: a floor below most matches, weighed by confidence.
                c.score = 0.5 * (0.6 + 0.4 * c.claim.confidence.value_or(0.5)) *
                          recency(c.claim, now, dayStart);
                cands.emplace(std::make_pair(c.tier, c.claim.id), std::move(c));
            }
        }
    }
    boostInScope(cands, scope);
    if (!in.noFloor) p.metrics.belowFloor = relevanceFloor(cands, in.strictFloor);
    std::vector<Candidate*> eligible = eligibleOrGap(cands, p);

    // The budget: items in score order; an item whose text does not fit in
    // what is left of max_chars is skipped (a shorter one may still fit),
    // and max_items stops the list.
    Budget b;
    for (auto* c : eligible) {
        if (int(p.items.size()) >= scope.maxItems) {
            ++b.cutByItems;
            continue;
        }
        int64_t len = int64_t(utf8Length(c->claim.text));
        if (b.chars + len > scope.maxChars) {
            ++b.skippedForChars;
            continue;
        }
        b.chars += len;
        p.items.push_back(itemOf(*c, today, opts_.staleDays));
    }
    // The instruction files' paragraphs that match the task, in what is left.
    try {
        for (auto& h : recallInstructions(*rr.query, 3)) {
            int64_t len = int64_t(utf8Length(h.text));
            if (b.chars + len > scope.maxChars) {
                ++b.paragraphsLeft;
                continue;
            }
            b.chars += len;
            p.instructionFiles.push_back(std::move(h));
        }
    } catch (const FsError&) {
        // An unreadable instruction file leaves the packet to its claims.
    }
    budgetMetrics(p, b, considered, eligible.size());
    packetTexts(p);
    // What the packet carries but engram could not judge, beside it (the
    // envelope is not part of the packet's content).
    for (auto& it : p.items)
        addNotJudged(result.envelope.notJudged, it.places);
    explainNotJudged(result.envelope, p.instructionFiles);
    return result;
}

} // namespace engram
