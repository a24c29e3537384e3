// Vocabulary, claim and query generation for the benchmark stores.
//
// The shapes here (Zipf offset, text lengths, field frequencies) are fixed
// constants rather than knobs: changing them changes what the numbers mean,
// so they live in one place with the reasons beside them.
#include "Synth.h"

#include "model/Claim.h"
#include "store/ClaimFile.h"
#include "store/Store.h"
#include "syntax/Symbols.h"
#include "util/Time.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>
#include <unordered_set>

namespace engram::bench {

uint64_t Rng::next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double Rng::unit() {
    return double(next() >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t Rng::below(uint64_t n) {
    return n == 0 ? 0 : next() % n;
}

namespace {

// Common developer English, roughly by how often such words appear in notes
// about code. None is on engram's stop list: stop words are added separately
// as glue (they cost bytes, not index entries).
const char* kEnglish[] = {
    "test",         "file",         "error",       "function",    "data",       "user",
    "code",         "request",      "server",      "config",      "cache",      "value",
    "type",         "build",        "run",         "use",         "call",       "return",
    "should",       "not",          "must",        "never",       "always",     "only",
    "after",        "before",       "because",     "new",         "old",        "path",
    "module",       "class",        "method",      "api",         "client",     "response",
    "token",        "session",      "auth",        "database",    "query",      "index",
    "table",        "column",       "row",         "schema",      "migration",  "version",
    "release",      "deploy",       "service",     "worker",      "queue",      "job",
    "task",         "event",        "handler",     "callback",    "promise",    "async",
    "thread",       "lock",         "mutex",       "memory",      "buffer",     "stream",
    "socket",       "connection",   "timeout",     "retry",       "limit",      "rate",
    "size",         "length",       "count",       "number",      "string",     "list",
    "array",        "map",          "set",         "key",         "field",      "object",
    "instance",     "interface",    "struct",      "enum",        "option",     "flag",
    "setting",      "default",      "environment", "variable",    "constant",   "parameter",
    "argument",     "result",       "output",      "input",       "format",     "parse",
    "parser",       "serialize",    "encode",      "decode",      "json",       "yaml",
    "xml",          "csv",          "header",      "body",        "page",       "view",
    "component",    "state",        "store",       "route",       "router",     "endpoint",
    "url",          "http",         "https",       "port",        "host",       "network",
    "proxy",        "load",         "balance",     "scale",       "cluster",    "node",
    "pod",          "container",    "image",       "docker",      "kubernetes", "terraform",
    "script",       "shell",        "command",     "line",        "log",        "logger",
    "warning",      "debug",        "trace",       "metric",      "monitor",    "alert",
    "dashboard",    "report",       "check",       "validate",    "validator",  "validation",
    "permission",   "role",         "admin",       "account",     "password",   "secret",
    "encrypt",      "hash",         "signature",   "certificate", "key",        "storage",
    "bucket",       "upload",       "download",    "sync",        "replica",    "backup",
    "restore",      "snapshot",     "commit",      "branch",      "merge",      "rebase",
    "review",       "pull",         "push",        "pipeline",    "stage",      "step",
    "workflow",     "action",       "trigger",     "hook",        "plugin",     "extension",
    "library",      "package",      "dependency",  "import",      "export",     "bundle",
    "compile",      "compiler",     "linker",      "binary",      "target",     "platform",
    "linux",        "windows",      "macos",       "browser",     "mobile",     "device",
    "screen",       "button",       "form",        "input",       "click",      "scroll",
    "render",       "layout",       "style",       "theme",       "color",      "font",
    "icon",         "asset",        "static",      "dynamic",     "global",     "local",
    "remote",       "public",       "private",     "internal",    "external",   "legacy",
    "deprecated",   "experimental", "stable",      "flaky",       "slow",       "fast",
    "large",        "small",        "empty",       "null",        "missing",    "invalid",
    "broken",       "fixed",        "bug",         "issue",       "ticket",     "feature",
    "fix",          "patch",        "workaround",  "hack",        "refactor",   "cleanup",
    "rename",       "move",         "delete",      "remove",      "add",        "create",
    "update",       "insert",       "select",      "filter",      "sort",       "order",
    "group",        "join",         "split",       "merge",       "combine",    "batch",
    "chunk",        "page",         "offset",      "cursor",      "iterator",   "generator",
    "loop",         "recursion",    "stack",       "heap",        "pointer",    "reference",
    "copy",         "clone",        "move",        "borrow",      "lifetime",   "owner",
    "scope",        "closure",      "lambda",      "template",    "generic",    "trait",
    "macro",        "annotation",   "decorator",   "attribute",   "property",   "getter",
    "setter",       "constructor",  "destructor",  "factory",     "singleton",  "registry",
    "provider",     "consumer",     "producer",    "publisher",   "subscriber", "listener",
    "observer",     "channel",      "message",     "payload",     "protocol",   "frame",
    "packet",       "latency",      "throughput",  "bandwidth",   "benchmark",  "profile",
    "profiler",     "allocation",   "leak",        "garbage",     "collector",  "pool",
    "arena",        "allocator",    "regression",  "coverage",    "fixture",    "mock",
    "stub",         "assert",       "expect",      "snapshot",    "golden",     "integration",
    "unit",         "e2e",          "ci",          "lint",        "formatter",  "style",
    "convention",   "naming",       "prefix",      "suffix",      "namespace",  "directory",
    "folder",       "tree",         "graph",       "edge",        "vertex",     "cycle",
    "order",        "priority",     "weight",      "score",       "rank",       "search",
    "match",        "pattern",      "regex",       "glob",        "wildcard",   "unicode",
    "utf8",         "ascii",        "locale",      "timezone",    "date",       "time",
    "clock",        "timestamp",    "duration",    "interval",    "schedule",   "cron",
    "daemon",       "process",      "signal",      "exit",        "crash",      "panic",
    "exception",    "stacktrace",   "fallback",    "default",     "override",   "inherit",
    "extend",       "implement",    "abstract",    "concrete",    "customer",   "invoice",
    "payment",      "order",        "cart",        "product",     "price",      "tenant",
    "organization", "team",         "project",     "workspace",   "editor",     "agent",
};

// Glue: stop words that make the text read as English. They are dropped by
// the tokenizer, so they lengthen claims without adding index terms.
const char* kGlue[] = {"the",  "is",  "to", "of",   "and",  "a",    "in",  "when", "for",
                       "with", "it",  "on", "that", "this", "be",   "are", "as",   "from",
                       "by",   "was", "or", "if",   "into", "then", "has", "does", "at"};

const char* kTags[] = {
    "auth",          "build",     "ci",         "perf",      "db",        "api",        "ui",
    "security",      "testing",   "deploy",     "config",    "logging",   "cache",      "network",
    "storage",       "migration", "docs",       "infra",     "release",   "python",     "cpp",
    "rust",          "go",        "typescript", "frontend",  "backend",   "payments",   "search",
    "mobile",        "k8s",       "oncall",     "flaky",     "tech-debt", "onboarding", "legacy",
    "metrics",       "billing",   "email",      "queue",     "workers",   "sql",        "graphql",
    "grpc",          "protobuf",  "webpack",    "bazel",     "cmake",     "windows",    "linux",
    "macos",         "arm64",     "gpu",        "ml",        "data",      "etl",        "cron",
    "feature-flags", "i18n",      "a11y",       "compliance"};

const char* kAgents[] = {"agent:claude-code", "agent:codex", "agent:cursor", "human:alice",
                         "human:bob",         "human:carol", "agent:aider"};

const char* kDirs[] = {"src", "lib", "server", "client", "pkg", "internal", "app", "tools"};
const char* kExts[] = {".cpp", ".h", ".py", ".ts", ".go", ".rs", ".java", ".tsx"};
const char* kLangs[] = {"cpp", "cpp", "python", "typescript", "go", "rust", "java", "tsx"};

std::string capitalised(std::string w) {
    if (!w.empty() && w[0] >= 'a' && w[0] <= 'z') w[0] = char(w[0] - 'a' + 'A');
    return w;
}

// Pronounceable nonsense: stands in for product names, domain jargon and the
// long tail of rare words that make rare-term queries decisive.
std::string pseudoWord(Rng& rng) {
    static const char* onsets[] = {"b",  "c",  "d",  "f",  "g",  "h",  "j",  "k",  "l",  "m",
                                   "n",  "p",  "r",  "s",  "t",  "v",  "w",  "z",  "br", "cr",
                                   "dr", "fl", "gr", "kl", "pr", "st", "tr", "sh", "ch", "th"};
    static const char* vowels[] = {"a", "e", "i", "o", "u", "ai", "ou", "ea", "io"};
    static const char* codas[] = {"", "", "", "n", "r", "s", "l", "x", "m", "t", "nd", "rk"};
    int syllables = 2 + int(rng.below(3));
    std::string w;
    for (int i = 0; i < syllables; ++i) {
        w += onsets[rng.below(std::size(onsets))];
        w += vowels[rng.below(std::size(vowels))];
        if (i + 1 == syllables || rng.chance(0.3)) w += codas[rng.below(std::size(codas))];
    }
    return w;
}

// A code identifier from English parts, in one of the spellings the
// tokenizer splits: camelCase, PascalCase, snake_case, SCREAMING_CASE and
// dotted member access.
std::string identifier(Rng& rng, const std::vector<std::string>& parts) {
    auto part = [&] {
        // Favour the head of the English list, as real identifiers do.
        double u = rng.unit();
        return parts[size_t(u * u * double(parts.size()))];
    };
    int n = 2 + int(rng.below(2));
    std::vector<std::string> ps;
    for (int i = 0; i < n; ++i)
        ps.push_back(part());
    std::string out;
    switch (rng.below(6)) {
    case 0: // camelCase
        out = ps[0];
        for (int i = 1; i < n; ++i)
            out += capitalised(ps[i]);
        break;
    case 1: // PascalCase
    case 2:
        for (auto& p : ps)
            out += capitalised(p);
        break;
    case 3: // snake_case
        for (auto& p : ps)
            out += (out.empty() ? "" : "_") + p;
        break;
    case 4: { // SCREAMING_CASE
        for (auto& p : ps)
            out += (out.empty() ? "" : "_") + p;
        for (auto& c : out)
            if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
        break;
    }
    default: // Type.member
        out = capitalised(ps[0]) + capitalised(ps[1]) + "." + ps[n - 1];
        if (n == 3) out = capitalised(ps[0]) + "." + ps[1] + capitalised(ps[2]);
        break;
    }
    return out;
}

std::string base32Id(Rng& rng) {
    // Same alphabet and shape as Store::newId, but seeded: the stores are
    // identical from run to run.
    static const char* alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
    uint64_t v = rng.next();
    std::string id = "c-";
    for (int i = 0; i < 12; ++i) {
        id += alphabet[v & 31];
        v >>= 5;
    }
    return id;
}

void writePlain(const std::string& path, const std::string& contents) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + path);
    size_t off = 0;
    while (off < contents.size()) {
        ssize_t n = ::write(fd, contents.data() + off, contents.size() - off);
        if (n <= 0) {
            ::close(fd);
            throw std::runtime_error("cannot write " + path);
        }
        off += size_t(n);
    }
    ::close(fd);
}

} // namespace

Vocabulary Vocabulary::make(uint64_t seed, size_t size) {
    Rng rng(seed);
    Vocabulary v;
    std::unordered_set<std::string> seen;
    for (auto* w : kEnglish)
        if (seen.insert(w).second) v.english.push_back(w);

    // Identifiers: a third of the vocabulary, the rest rare pseudo-words.
    size_t wantIdents = size / 3;
    while (v.identifiers.size() < wantIdents) {
        auto id = identifier(rng, v.english);
        if (seen.insert(id).second) v.identifiers.push_back(id);
    }
    std::vector<std::string> rare;
    while (v.english.size() + v.identifiers.size() + rare.size() < size) {
        auto w = pseudoWord(rng);
        if (seen.insert(w).second) rare.push_back(w);
    }

    // Rank order: English words hold the head (in list order); identifiers
    // and rare words are interleaved below them, identifiers more likely to
    // rank higher, as in real notes where a project's main types recur.
    v.words = v.english;
    size_t i = 0, j = 0;
    while (i < v.identifiers.size() || j < rare.size()) {
        bool takeIdent = j >= rare.size() ||
                         (i < v.identifiers.size() &&
                          rng.chance(0.5 + 0.3 * (1.0 - double(v.words.size()) / double(size))));
        v.words.push_back(takeIdent ? v.identifiers[i++] : rare[j++]);
    }

    // Zipf-Mandelbrot, s = 1, q = 5: the most common content word is about
    // 2.5% of content tokens (stop words excluded), i.e. in roughly a third
    // of all claims; the tail words appear a handful of times per 100k.
    v.cumulative.resize(v.words.size());
    double sum = 0;
    for (size_t r = 0; r < v.words.size(); ++r) {
        sum += 1.0 / (double(r) + 5.0);
        v.cumulative[r] = sum;
    }
    for (auto& c : v.cumulative)
        c /= sum;
    return v;
}

const std::string& Vocabulary::draw(Rng& rng) const {
    double u = rng.unit();
    auto it = std::lower_bound(cumulative.begin(), cumulative.end(), u);
    size_t r = std::min(size_t(it - cumulative.begin()), words.size() - 1);
    return words[r];
}

namespace {

std::string claimText(Rng& rng, const Vocabulary& v) {
    // Lengths 60-400 characters, skewed short: most notes are one sentence,
    // some are a small paragraph.
    size_t target = 60 + size_t(340.0 * std::pow(rng.unit(), 1.7));
    std::string out;
    bool sentenceStart = true;
    while (true) {
        std::string w =
            rng.chance(0.4) ? std::string(kGlue[rng.below(std::size(kGlue))]) : v.draw(rng);
        if (sentenceStart) w = capitalised(w);
        size_t add = (out.empty() ? 0 : 1) + w.size() + 1; // space, word, final period
        if (out.size() + add > 400) break;
        if (!out.empty()) out += ' ';
        out += w;
        sentenceStart = false;
        if (out.size() >= target) break;
        if (rng.chance(0.06)) {
            out += '.';
            sentenceStart = true;
        } else if (rng.chance(0.05)) {
            out += ',';
        }
    }
    while (!out.empty() && (out.back() == ',' || out.back() == '.'))
        out.pop_back();
    out += '.';
    // A very short draw can end below 60 characters: pad with another clause.
    // (Appended piecewise: GCC 12 warns falsely about `" " + std::string`.)
    while (out.size() < 60) {
        out += ' ';
        out += capitalised(v.draw(rng));
        out += ' ';
        out += v.draw(rng);
        out += '.';
    }
    return out;
}

} // namespace

GeneratedStore generateStore(const std::string& root, const Vocabulary& v, uint64_t seed,
                             size_t count) {
    auto t0 = std::chrono::steady_clock::now();
    Store store(root + "/.engram", "project", "bench");
    store.ensureLayout();
    std::string origin = store.originLabel();
    Rng rng(seed);
    GeneratedStore g;
    std::unordered_set<std::string> labels, ids;
    int64_t now = nowUnix();
    const int64_t year = 365 * 86400;
    static const std::pair<const char*, double> kinds[] = {
        {"fact", 0.40},   {"decision", 0.15}, {"convention", 0.15},
        {"gotcha", 0.12}, {"todo", 0.08},     {"preference", 0.05},
        {"", 0.05}};

    for (size_t n = 0; n < count; ++n) {
        Claim c;
        do
            c.id = base32Id(rng);
        while (!ids.insert(c.id).second);
        c.text = claimText(rng, v);

        // ~30% labelled; labels are short kebab phrases, unique in the store.
        if (rng.chance(0.30)) {
            std::string label;
            int parts = 2 + int(rng.below(2));
            for (int i = 0; i < parts; ++i) {
                std::string w = v.draw(rng);
                for (auto& ch : w) {
                    if (ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
                    if (ch == '.' || ch == '_') ch = '-';
                }
                label += (label.empty() ? "" : "-") + w;
            }
            std::string base = label;
            for (int k = 2; !labels.insert(label).second; ++k)
                label = base + "-" + std::to_string(k);
            c.label = label;
            ++g.labelled;
            if (g.labels.size() < 500) g.labels.push_back(label);
        }

        double k = rng.unit();
        for (auto& [name, p] : kinds) {
            if (k < p) {
                c.kind = name;
                break;
            }
            k -= p;
        }
        double s = rng.unit();
        c.status = s < 0.92   ? ClaimStatus::Committed
                   : s < 0.95 ? ClaimStatus::Frontier
                   : s < 0.98 ? ClaimStatus::Superseded
                              : ClaimStatus::Retracted;
        // Confidence: mostly high, sometimes absent (hand-written claims).
        if (!rng.chance(0.10))
            c.confidence = std::round((0.3 + 0.7 * std::sqrt(rng.unit())) * 100.0) / 100.0;
        c.created = now - int64_t(rng.unit() * double(year));
        c.updated = c.created;
        if (rng.chance(0.10)) {
            c.version = 2 + int(rng.below(2));
            c.updated = *c.created + int64_t(rng.unit() * double(now - *c.created));
        }
        if (rng.chance(0.15))
            c.verified = *c.updated + int64_t(rng.unit() * double(now - *c.updated));
        c.sourceAgent = kAgents[rng.below(std::size(kAgents))];
        c.origin = origin;
        int tags = rng.chance(0.5) ? 0 : 1 + int(rng.below(3));
        for (int i = 0; i < tags; ++i) {
            std::string t = kTags[rng.below(std::size(kTags))];
            if (std::find(c.tags.begin(), c.tags.end(), t) == c.tags.end()) c.tags.push_back(t);
        }
        if (rng.chance(0.20)) {
            Anchor a;
            size_t e = rng.below(std::size(kExts));
            const std::string& sym = v.identifiers[rng.below(v.identifiers.size() / 4)];
            std::string file = sym.substr(0, sym.find('.'));
            a.path = std::string(kDirs[rng.below(std::size(kDirs))]) + "/" + file + kExts[e];
            a.symbol = sym;
            a.language = kLangs[e];
            a.nodeKind = "function";
            a.rules = syntax::kDigestRules; // as today's engram stamps them
            c.anchors.push_back(a);
        }
        if (rng.chance(0.10))
            c.evidence.push_back(rng.chance(0.5) ? Evidence{"command", "make test"}
                                                 : Evidence{"url", "https://example.com/issue/" +
                                                                       std::to_string(n)});
        if (rng.chance(0.05))
            c.feedback = {int(rng.below(4)), int(rng.below(2)), int(rng.below(2))};
        if (c.status == ClaimStatus::Retracted) {
            c.retractedBy = c.sourceAgent;
            c.retractReason = "no longer true after the refactor";
        }
        std::string body = serializeClaim(c);
        g.bytes += body.size();
        writePlain(store.claimPath(c.id), body);
        ++g.claims;
    }
    g.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return g;
}

std::vector<Query> makeQueries(const Vocabulary& v, const std::vector<std::string>& labels,
                               uint64_t seed) {
    Rng rng(seed);
    std::vector<Query> q;
    // Rare: single words from the far tail (some occur a few times, some
    // only in the larger store, some not at all).
    for (int i = 0; i < 50; ++i)
        q.push_back({"rare", v.words[8000 + rng.below(v.words.size() - 8000)]});
    // Common: the head of the vocabulary, alone and in pairs. These are the
    // queries where ranking every match would cost time proportional to the
    // store.
    for (int i = 0; i < 40; ++i)
        q.push_back({"common", v.words[size_t(i)]});
    for (int i = 0; i < 10; ++i)
        q.push_back({"common", v.words[rng.below(20)] + " " + v.words[20 + rng.below(30)]});
    // Multi-word: how agents actually ask, stop words included.
    static const char* openers[] = {
        "why does the", "how to", "where is the", "what happens when", "", "", "is the"};
    for (int i = 0; i < 50; ++i) {
        std::string s = openers[rng.below(std::size(openers))];
        int words = 2 + int(rng.below(3));
        for (int w = 0; w < words; ++w)
            s += (s.empty() ? "" : " ") + v.draw(rng);
        q.push_back({"multi", s});
    }
    // Identifiers, spelled as they appear in code.
    for (int i = 0; i < 40; ++i)
        q.push_back(
            {"identifier", v.identifiers[rng.below(std::min<size_t>(2000, v.identifiers.size()))]});
    // Labels known to exist in every store.
    for (int i = 0; i < 20 && !labels.empty(); ++i)
        q.push_back({"label", labels[rng.below(labels.size())]});
    // No match: words in no claim (digits and letters the generator never
    // produces together).
    for (int i = 0; i < 40; ++i) {
        std::string w = "qx";
        for (int k = 0; k < 6; ++k)
            w += char('a' + rng.below(26));
        w += std::to_string(rng.below(1000));
        q.push_back({"nomatch", i % 2 ? w : w + " zzyzx" + std::to_string(i)});
    }
    return q;
}

} // namespace engram::bench
