// engram_code_bench: code-indexing and re-anchoring benchmarks (README, "Benchmarks").
//
// Several aims of section 10 concern code rather than claims: indexing a
// workspace at no less than 80% of raw tree-sitter parse throughput per
// thread and at 1.5x a single-threaded raw parse on two cores (reported
// against universal-ctags on the same tree), a 100 MB tree indexed in 15 s,
// and re-anchoring after an edit to a 5,000-line file at a p95 of 5 ms or
// less. This program generates a deterministic ~30 MB tree across the nine
// languages from the fixtures, then times, with steady_clock and
// single-threaded: raw ts_parser_parse_string (one parser per language,
// reused) with the files in memory and read from disk; engram's indexing
// (read + extractSymbols, i.e. symbols and both hashes); `ctags -R` over the
// same tree; then the product's workspace indexing (Engine::indexCode, on its
// thread pool, into SQLite) of that tree and of a ~100 MB tree generated the
// same way; and, on a generated 5,000-line Python and C++ file, an edit
// followed by what engram does on didChange (incremental re-parse, symbol
// re-extraction, 20 anchor checks). Within a throughput pass the four ways of
// processing a file (raw parse in memory, raw parse after reading it, engram
// after reading it, engram in memory) are interleaved file by file and timed
// separately, so a change in machine load hits all of them alike and the
// ratios are paired; the median of the passes is reported, every sample is
// kept in the JSON.
// Aims are printed beside the numbers, never used to select runs.
#include "Corpus.h"
#include "LargeFile.h"
#include "Stats.h"

#include "engine/Anchoring.h"
#include "engine/Engine.h"
#include "syntax/Languages.h"
#include "syntax/Symbols.h"
#include "util/Error.h"
#include "util/Fs.h"

#include <nlohmann/json.hpp>
#include <tree_sitter/api.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <spawn.h>
#include <sstream>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#ifndef ENGRAM_BENCH_BUILD_TYPE
#define ENGRAM_BENCH_BUILD_TYPE "unknown"
#endif
#ifndef ENGRAM_FIXTURES_DIR
#define ENGRAM_FIXTURES_DIR "fixtures"
#endif

extern "C" {
const TSLanguage* tree_sitter_python();
const TSLanguage* tree_sitter_javascript();
const TSLanguage* tree_sitter_typescript();
const TSLanguage* tree_sitter_tsx();
const TSLanguage* tree_sitter_c();
const TSLanguage* tree_sitter_cpp();
const TSLanguage* tree_sitter_go();
const TSLanguage* tree_sitter_rust();
const TSLanguage* tree_sitter_java();
}

extern char** environ;

namespace fs = std::filesystem;
using namespace engram;
using namespace engram::bench;
using nlohmann::json;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}
double msBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

constexpr double kMB = 1e6; // throughput is in 10^6 bytes per second

struct Options {
    std::string out = "bench/results/code.json";
    std::string tmp;
    std::string fixtures = ENGRAM_FIXTURES_DIR;
    std::string ctags; // empty: `ctags` on PATH
    size_t megabytes = 30;
    uint64_t seed = 20260101;
    int passes = 3;
    int edits = 200;
    int anchors = 20;
    size_t lines = 5000;
    // The large tree only workspace indexing is timed on (0: none), and
    // how many times (each pass costs about as much as a raw parse of it).
    size_t bigMegabytes = 100;
    int bigPasses = 1;
    bool workspaceOnly = false; // skip throughput passes, ctags, re-anchoring
    bool keep = false;
};

[[noreturn]] void usage(const std::string& msg) {
    std::cerr << "engram_code_bench: " << msg
              << "\nusage: engram_code_bench [--out FILE] [--tmp DIR] [--fixtures DIR] "
                 "[--ctags PATH] [--mb N] [--seed N] [--passes N] [--edits N] [--anchors N] "
                 "[--lines N] [--big-mb N] [--big-passes N] [--workspace-only] [--keep]\n";
    std::exit(2);
}

Options parseOptions(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(a + " needs a value");
            return argv[++i];
        };
        if (a == "--out")
            o.out = value();
        else if (a == "--tmp")
            o.tmp = value();
        else if (a == "--fixtures")
            o.fixtures = value();
        else if (a == "--ctags")
            o.ctags = value();
        else if (a == "--mb")
            o.megabytes = std::stoull(value());
        else if (a == "--seed")
            o.seed = std::stoull(value());
        else if (a == "--passes")
            o.passes = std::stoi(value());
        else if (a == "--edits")
            o.edits = std::stoi(value());
        else if (a == "--anchors")
            o.anchors = std::stoi(value());
        else if (a == "--lines")
            o.lines = std::stoull(value());
        else if (a == "--big-mb")
            o.bigMegabytes = std::stoull(value());
        else if (a == "--big-passes")
            o.bigPasses = std::stoi(value());
        else if (a == "--workspace-only")
            o.workspaceOnly = true;
        else if (a == "--keep")
            o.keep = true;
        else
            usage("unknown argument " + a);
    }
    if (o.passes < 1 || o.edits < 2 || o.anchors < 1 || o.megabytes < 1 || o.lines < 200 ||
        o.bigPasses < 1)
        usage("--passes, --edits, --anchors, --mb, --lines or --big-passes is too small");
    if (o.tmp.empty()) {
        const char* t = std::getenv("TMPDIR");
        o.tmp = t && *t ? t : "/tmp";
    }
    return o;
}

void progress(const std::string& s) {
    std::cerr << "  " << s << std::endl;
}

std::string fmt(double v, int prec = 2) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    return buf;
}

std::string nowIso() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    return "unknown";
}

std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

double median(std::vector<double> v) {
    return summarize(std::move(v)).p50;
}

// ---------------------------------------------------------------------------
// Throughput passes

const TSLanguage* grammar(const std::string& language) {
    static const std::map<std::string, const TSLanguage* (*)()> fns = {
        {"python", tree_sitter_python},
        {"javascript", tree_sitter_javascript},
        {"typescript", tree_sitter_typescript},
        {"tsx", tree_sitter_tsx},
        {"c", tree_sitter_c},
        {"cpp", tree_sitter_cpp},
        {"go", tree_sitter_go},
        {"rust", tree_sitter_rust},
        {"java", tree_sitter_java}};
    auto it = fns.find(language);
    return it == fns.end() ? nullptr : it->second();
}

// One parser per language, created once and reused for every file of it.
class Parsers {
public:
    Parsers() {
        for (const auto& info : syntax::languages()) {
            TSParser* p = ts_parser_new();
            const TSLanguage* g = grammar(info.name);
            if (!g || !ts_parser_set_language(p, g)) {
                ts_parser_delete(p);
                throw std::runtime_error("no grammar for " + info.name);
            }
            parsers_[info.name] = p;
        }
    }
    ~Parsers() {
        for (auto& [name, p] : parsers_)
            ts_parser_delete(p);
    }
    Parsers(const Parsers&) = delete;
    Parsers& operator=(const Parsers&) = delete;
    TSParser* operator[](const std::string& language) const { return parsers_.at(language); }

private:
    std::map<std::string, TSParser*> parsers_;
};

// The four ways a file is processed, each timed on its own.
enum Kind { RawMemory, RawRead, EngramRead, EngramMemory, kKinds };
const char* const kKindKeys[kKinds] = {"raw_parse_in_memory", "raw_parse_with_read",
                                       "engram_index_with_read", "engram_extract_in_memory"};

struct PassResult {
    double seconds[kKinds] = {};
    std::map<std::string, std::array<double, kKinds>> perLanguage; // seconds
    size_t errorFiles = 0; // raw parses whose tree has an ERROR or MISSING node
    size_t symbols = 0;    // from the engram read+index runs
    size_t sink = 0;       // keeps the work observable
};

std::string readOrThrow(const std::string& path) {
    auto text = readFile(path);
    if (!text) throw std::runtime_error("cannot read " + path);
    return std::move(*text);
}

// Raw tree-sitter: parse the file with its language's parser, free the tree.
void rawParse(const SourceFile& f, const std::string& text, const Parsers& parsers, PassResult& r) {
    TSTree* tree =
        ts_parser_parse_string(parsers[f.language], nullptr, text.data(), uint32_t(text.size()));
    if (!tree) throw std::runtime_error("tree-sitter gave no tree for " + f.path);
    TSNode root = ts_tree_root_node(tree);
    r.sink += ts_node_child_count(root);
    if (ts_node_has_error(root)) ++r.errorFiles;
    ts_tree_delete(tree);
}

// engram's indexing of a file: the language from the path, then
// extractSymbols (parse, walk, qualified names, hash and shapeHash).
size_t engramIndex(const SourceFile& f, const std::string& text, PassResult& r) {
    auto language = syntax::languageForPath(f.path);
    if (!language) throw std::runtime_error("no language for " + f.path);
    auto symbols = syntax::extractSymbols(*language, text);
    for (const auto& s : symbols)
        r.sink += s.hash.size() + s.shapeHash.size();
    return symbols.size();
}

// One pass over the tree. The four kinds are interleaved file by file, their
// order rotating from one file to the next, and each is timed on its own, so
// a burst of load from elsewhere on the machine lands on all four alike and
// the ratios between them are paired measurements. "Read" reads the file
// (page cache warm) inside the timed span.
PassResult throughputPass(const Corpus& c, const Parsers& parsers) {
    PassResult r;
    for (size_t i = 0; i < c.files.size(); ++i) {
        const SourceFile& f = c.files[i];
        auto& lang = r.perLanguage[f.language];
        for (size_t k = 0; k < kKinds; ++k) {
            Kind kind = Kind((k + i) % kKinds);
            auto t0 = Clock::now();
            switch (kind) {
            case RawMemory:
                rawParse(f, f.text, parsers, r);
                break;
            case RawRead:
                rawParse(f, readOrThrow(f.path), parsers, r);
                break;
            case EngramRead:
                r.symbols += engramIndex(f, readOrThrow(f.path), r);
                break;
            case EngramMemory:
                engramIndex(f, f.text, r);
                break;
            default:
                break;
            }
            double s = std::chrono::duration<double>(Clock::now() - t0).count();
            r.seconds[kind] += s;
            lang[kind] += s;
        }
    }
    return r;
}

json kindJson(const std::vector<PassResult>& runs, Kind kind, size_t bytes) {
    std::vector<double> secs, mbps;
    for (const auto& r : runs) {
        secs.push_back(r.seconds[kind]);
        mbps.push_back(double(bytes) / kMB / r.seconds[kind]);
    }
    return {{"seconds", secs},
            {"mb_per_s", mbps},
            {"median_mb_per_s", median(mbps)},
            {"median_seconds", median(secs)}};
}

// The median over passes of the per-pass ratio of two kinds' throughput.
double pairedRatio(const std::vector<PassResult>& runs, Kind num, Kind den) {
    std::vector<double> v;
    for (const auto& r : runs)
        v.push_back(r.seconds[den] / r.seconds[num]);
    return median(v);
}

// ---------------------------------------------------------------------------
// universal-ctags

std::string findOnPath(const std::string& name) {
    if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
    const char* path = std::getenv("PATH");
    std::stringstream ss(path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string dir; std::getline(ss, dir, ':');) {
        std::string p = (dir.empty() ? "." : dir) + "/" + name;
        if (access(p.c_str(), X_OK) == 0) return p;
    }
    return "";
}

// Runs argv with stdout and stderr to files; returns the exit status.
int run(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid;
    int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::runtime_error("cannot spawn " + argv[0] + ": " + std::strerror(rc));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw std::runtime_error("waitpid failed");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string firstLine(const std::string& s) {
    return s.substr(0, s.find('\n'));
}

json ctagsBench(const Options& opt, const Corpus& c, const std::string& scratch,
                const std::string& tree) {
    std::string exe = findOnPath(opt.ctags.empty() ? "ctags" : opt.ctags);
    if (exe.empty()) {
        progress("ctags unavailable");
        return {{"available", false},
                {"reason", "no executable " +
                               (opt.ctags.empty() ? std::string("ctags on PATH") : opt.ctags)}};
    }
    std::string out = scratch + "/ctags.out", err = scratch + "/ctags.err";
    run({exe, "--version"}, out, err);
    std::string version = firstLine(readFile(out).value_or(""));
    // The file patterns ctags maps to a parser: the bytes it actually parses.
    run({exe, "--list-maps"}, out, err);
    std::set<std::string> patterns;
    {
        std::stringstream ss(readFile(out).value_or(""));
        for (std::string w; ss >> w;)
            if (w.rfind("*.", 0) == 0) patterns.insert(w.substr(1));
    }
    size_t mappedBytes = 0, mappedFiles = 0;
    std::set<std::string> unmappedLanguages;
    for (const auto& f : c.files) {
        // Without a map listing (not universal-ctags), every file counts.
        if (patterns.empty() || patterns.count(fs::path(f.path).extension().string())) {
            mappedBytes += f.text.size();
            ++mappedFiles;
        } else {
            unmappedLanguages.insert(f.language);
        }
    }
    std::string tags = scratch + "/tags";
    std::vector<std::string> argv{exe, "-R", "--fields=+n", "-f", tags, tree};
    std::vector<double> secs;
    int rc = 0;
    for (int i = 0; i < opt.passes; ++i) {
        removeFile(tags);
        auto t0 = Clock::now();
        rc = run(argv, out, err);
        secs.push_back(secondsSince(t0));
        progress("ctags pass " + std::to_string(i + 1) + ": " + fmt(secs.back(), 2) + " s");
        if (rc != 0) break;
    }
    if (rc != 0)
        return {{"available", false},
                {"reason", "ctags exited " + std::to_string(rc) + ": " +
                               firstLine(readFile(err).value_or(""))},
                {"version", version}};
    size_t tagCount = 0;
    std::set<std::string> taggedFiles;
    {
        std::ifstream in(tags);
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("!_", 0) == 0) continue;
            ++tagCount;
            auto a = line.find('\t');
            auto b = a == std::string::npos ? a : line.find('\t', a + 1);
            if (b != std::string::npos) taggedFiles.insert(line.substr(a + 1, b - a - 1));
        }
    }
    std::vector<double> mbps, mappedMbps;
    for (double s : secs) {
        mbps.push_back(double(c.bytes) / kMB / s);
        mappedMbps.push_back(double(mappedBytes) / kMB / s);
    }
    return {{"available", true},
            {"binary", exe},
            {"version", version},
            {"command", "ctags -R --fields=+n -f <scratch>/tags <tree>"},
            {"seconds", secs},
            {"median_seconds", median(secs)},
            {"mb_per_s_whole_tree", mbps},
            {"median_mb_per_s_whole_tree", median(mbps)},
            {"median_mb_per_s_mapped", median(mappedMbps)},
            {"mapped_bytes", mappedBytes},
            {"mapped_files", mappedFiles},
            {"unmapped_languages", unmappedLanguages},
            {"tags", tagCount},
            {"files_with_tags", taggedFiles.size()},
            {"stderr_first_line", firstLine(readFile(err).value_or(""))}};
}

// ---------------------------------------------------------------------------
// Re-anchoring after an edit

json reanchorBench(const Options& opt, const LargeFile& lf, const std::string& workspace) {
    makeDirs(workspace);
    { std::ofstream(workspace + "/" + lf.name, std::ios::binary) << lf.text; }
    // Anchors on definitions spread evenly through the file.
    auto all = syntax::extractSymbols(lf.language, lf.text);
    std::vector<const syntax::Symbol*> candidates;
    for (const auto& s : all)
        if (s.kind == "function" || s.kind == "method") candidates.push_back(&s);
    if (candidates.size() < size_t(opt.anchors))
        throw std::runtime_error(lf.name + " has too few functions to anchor");
    Anchorer anchorer(workspace);
    std::vector<Anchor> anchors;
    std::vector<std::string> anchoredNames;
    for (int k = 0; k < opt.anchors; ++k) {
        const auto* s = candidates[size_t(k) * candidates.size() / size_t(opt.anchors) +
                                   candidates.size() / size_t(2 * opt.anchors)];
        AnchorSpec spec;
        spec.path = lf.name;
        spec.symbol = s->qualified;
        anchors.push_back(anchorer.resolve(spec, "anchors[" + std::to_string(k) + "]"));
        anchoredNames.push_back(s->qualified);
    }

    // The edits must keep the file well-formed: an edit that breaks the
    // syntax would time tree-sitter's error recovery instead.
    size_t brokenEdits = 0;
    {
        TSParser* parser = ts_parser_new();
        ts_parser_set_language(parser, grammar(lf.language));
        for (int i = 0; i < 10 && i < opt.edits; i += 2) {
            std::string edited = lf.text;
            edited.replace(lf.editOffsets[size_t(i / 2) * 7919 % lf.editOffsets.size()], 1, "42");
            TSTree* t =
                ts_parser_parse_string(parser, nullptr, edited.data(), uint32_t(edited.size()));
            if (ts_node_has_error(ts_tree_root_node(t))) ++brokenEdits;
            ts_tree_delete(t);
        }
        ts_parser_delete(parser);
    }
    if (brokenEdits) throw std::logic_error(lf.name + ": an edit breaks the syntax");

    // Opening: a full parse, then the first checks extract the symbols.
    auto t0 = Clock::now();
    anchorer.openDocument(lf.name, lf.text);
    for (const auto& a : anchors)
        anchorer.check(a);
    double openMs = msBetween(t0, Clock::now());

    // Edit i changes (even i) or restores (odd i) the literal of one body;
    // successive pairs hop through the file by a large prime stride.
    auto editAt = [&](int i) {
        return lf.editOffsets[size_t(i / 2) * 7919 % lf.editOffsets.size()];
    };
    std::vector<double> total, reparse, checks;
    std::map<std::string, size_t> states;
    size_t notIntactAfterUndo = 0;
    for (int i = 0; i < opt.edits; ++i) {
        uint32_t off = editAt(i);
        auto a0 = Clock::now();
        if (i % 2 == 0)
            anchorer.editDocument(lf.name, off, off + 1, "42");
        else
            anchorer.editDocument(lf.name, off, off + 2, "1");
        auto a1 = Clock::now();
        for (const auto& a : anchors) {
            auto st = anchorer.check(a).state;
            ++states[st];
            if (i % 2 == 1 && st != "intact") ++notIntactAfterUndo;
        }
        auto a2 = Clock::now();
        total.push_back(msBetween(a0, a2));
        reparse.push_back(msBetween(a0, a1));
        checks.push_back(msBetween(a1, a2));
    }
    const std::string* after = anchorer.documentText(lf.name);
    bool restored = after && *after == lf.text;

    // The same anchor checks with no edit in between: what the checks cost
    // on their own once the symbols are current.
    std::vector<double> checksOnly;
    for (int i = 0; i < opt.edits; ++i) {
        auto a0 = Clock::now();
        for (const auto& a : anchors)
            anchorer.check(a);
        checksOnly.push_back(msBetween(a0, Clock::now()));
    }

    // The syntax layer alone, same edits: incremental parse, then symbols
    // (incremental extraction: definitions the edit did not touch are taken
    // over), then, for scale, a full walk of the same tree.
    std::vector<double> docEdit, docSymbols, docFullWalk, takenOver;
    syntax::Document doc(lf.language, lf.text);
    size_t symbolCount = doc.symbols().size();
    size_t walkMismatches = 0;
    for (int i = 0; i < opt.edits; ++i) {
        uint32_t off = editAt(i);
        auto a0 = Clock::now();
        if (i % 2 == 0)
            doc.edit(off, off + 1, "42");
        else
            doc.edit(off, off + 2, "1");
        auto a1 = Clock::now();
        symbolCount = doc.symbols().size();
        auto a2 = Clock::now();
        auto fresh = doc.walkAfresh();
        auto a3 = Clock::now();
        docEdit.push_back(msBetween(a0, a1));
        docSymbols.push_back(msBetween(a1, a2));
        docFullWalk.push_back(msBetween(a2, a3));
        takenOver.push_back(double(doc.reusedSymbols()));
        if (fresh.size() != symbolCount) ++walkMismatches;
        for (size_t k = 0; k < fresh.size() && k < symbolCount; ++k)
            if (fresh[k].hash != doc.symbols()[k].hash ||
                fresh[k].startByte != doc.symbols()[k].startByte)
                ++walkMismatches;
    }
    if (walkMismatches)
        throw std::logic_error(lf.name + ": incremental symbols differ from a full walk");

    // A full parse of the same file, for scale.
    std::vector<double> fullExtract;
    for (int i = 0; i < 10; ++i) {
        auto a0 = Clock::now();
        auto s = syntax::extractSymbols(lf.language, lf.text);
        fullExtract.push_back(msBetween(a0, Clock::now()));
    }

    auto sTotal = summarize(total);
    progress(lf.name + ": per edit p50 " + fmt(sTotal.p50, 3) + " ms, p95 " + fmt(sTotal.p95, 3) +
             " ms, max " + fmt(sTotal.max, 3) + " ms");
    return {{"file", lf.name},
            {"language", lf.language},
            {"lines", lf.lines},
            {"bytes", lf.text.size()},
            {"symbols", symbolCount},
            {"anchors", opt.anchors},
            {"anchored_symbols", anchoredNames},
            {"edits", opt.edits},
            {"open_and_first_checks_ms", openMs},
            {"per_edit_ms", toJson(sTotal, total)},
            {"edit_incremental_reparse_ms", toJson(summarize(reparse))},
            {"anchor_checks_after_edit_ms", toJson(summarize(checks))},
            {"anchor_checks_no_edit_ms", toJson(summarize(checksOnly))},
            {"document_edit_ms", toJson(summarize(docEdit))},
            {"document_symbols_ms", toJson(summarize(docSymbols))},
            {"document_full_walk_ms", toJson(summarize(docFullWalk))},
            {"document_symbols_taken_over", toJson(summarize(takenOver))},
            {"full_extract_symbols_ms", toJson(summarize(fullExtract))},
            {"check_states", states},
            {"checks_not_intact_after_undo", notIntactAfterUndo},
            {"text_restored", restored}};
}

// ---------------------------------------------------------------------------
// Workspace indexing: the product's own path

// The cores the indexing pool may use; CodeIndex.cpp sizes its pool the same.
unsigned poolThreads() {
    return std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
}

// Engine::indexCode over `tree` from cold, `passes` times: the directory
// walk, the reads, extraction on its thread pool and the writes into the
// project index in SQLite, i.e. what a user waits for when a workspace is
// opened the first time. Each pass starts from a fresh project store, so
// every file is parsed again. Compared with the single-threaded raw parse of
// the same bytes: not like for like (two cores against one, extraction and
// SQLite against a parse alone), which is the point of the aim.
json workspaceBench(const std::string& tree, const std::string& home, int passes,
                    double rawSingleThreadMbps) {
    makeDirs(home);
    std::vector<double> secs, mbps;
    CodeIndexReport rep;
    for (int i = 0; i < passes; ++i) {
        fs::remove_all(fs::path(tree) / ".engram");
        Engine engine({fs::canonical(tree).string(), "bench", home, 30, "bench"});
        RememberRequest seed;
        seed.text = "a claim, so the project store exists";
        seed.agent = "bench";
        engine.remember(seed);
        auto t0 = Clock::now();
        rep = engine.indexCode();
        secs.push_back(secondsSince(t0));
        mbps.push_back(double(rep.bytes) / kMB / secs.back());
        progress("workspace indexing pass " + std::to_string(i + 1) + ": " + fmt(secs.back(), 2) +
                 " s, " + fmt(mbps.back(), 2) + " MB/s");
    }
    fs::remove_all(fs::path(tree) / ".engram");
    // Throughput from the median time, so the two agree (a nearest-rank
    // median of an even count is the lower sample of each list).
    double mbs = double(rep.bytes) / kMB / median(secs);
    return {{"files", rep.files},
            {"parsed", rep.parsed},
            {"bytes", rep.bytes},
            {"symbols", rep.symbols},
            {"seconds", secs},
            {"median_seconds", median(secs)},
            {"mb_per_s_samples", mbps},
            {"mb_per_s", mbs},
            {"threads", poolThreads()},
            {"loadavg_after", loadAverage()},
            {"vs_raw_parse_in_memory_single_thread", mbs / rawSingleThreadMbps}};
}

// The raw parse of every file in memory, single-threaded: the reference the
// workspace measure is compared with when the throughput passes are skipped.
double rawParseSeconds(const Corpus& c, const Parsers& parsers) {
    PassResult r;
    auto t0 = Clock::now();
    for (const auto& f : c.files)
        rawParse(f, f.text, parsers, r);
    return secondsSince(t0);
}

// ---------------------------------------------------------------------------
// Report

struct Row {
    std::string what, result, aim, verdict;
};

void printTable(const std::vector<Row>& rows) {
    std::vector<std::string> head{"measurement", "result", "aim", "verdict"};
    size_t w[4] = {head[0].size(), head[1].size(), head[2].size(), head[3].size()};
    for (const auto& r : rows) {
        w[0] = std::max(w[0], r.what.size());
        w[1] = std::max(w[1], r.result.size());
        w[2] = std::max(w[2], r.aim.size());
        w[3] = std::max(w[3], r.verdict.size());
    }
    auto line = [&](const std::string& a, const std::string& b, const std::string& c,
                    const std::string& d) {
        std::string s = a + std::string(w[0] - a.size() + 2, ' ') + b +
                        std::string(w[1] - b.size() + 2, ' ') + c +
                        std::string(w[2] - c.size() + 2, ' ') + d;
        while (!s.empty() && s.back() == ' ')
            s.pop_back();
        std::cout << s << "\n";
    };
    line(head[0], head[1], head[2], head[3]);
    std::cout << std::string(w[0] + w[1] + w[2] + w[3] + 6, '-') << "\n";
    for (const auto& r : rows)
        line(r.what, r.result, r.aim, r.verdict);
}

std::string verdict(bool ok) {
    return ok ? "meets" : "MISSES";
}

std::vector<Row> tableRows(const json& out) {
    std::vector<Row> rows;
    const json& t = out["tree"];
    rows.push_back({"generated tree (9 languages)",
                    std::to_string(t["files"].get<size_t>()) + " files, " +
                        fmt(t["bytes"].get<double>() / kMB, 1) + " MB, " +
                        std::to_string(t["lines"].get<size_t>()) + " lines; " +
                        std::to_string(t["files_with_parse_errors"].get<size_t>()) +
                        " with parse errors",
                    "", ""});
    const json& p = out["throughput"];
    auto mbRow = [&](const std::string& what, const json& j, const std::string& extra) {
        auto v = j["mb_per_s"].get<std::vector<double>>();
        auto s = summarize(v);
        rows.push_back({what,
                        fmt(s.p50, 2) + " MB/s (median of " + std::to_string(s.n) + ", " +
                            fmt(s.min, 2) + "-" + fmt(s.max, 2) + ")" + extra,
                        "", ""});
    };
    mbRow("raw tree-sitter parse, files in memory", p["raw_parse_in_memory"], "");
    if (p.contains("ratios")) { // not with --workspace-only
        mbRow("raw tree-sitter parse, reading each file", p["raw_parse_with_read"], "");
        mbRow("engram indexing: read + extractSymbols", p["engram_index_with_read"],
              ", " + std::to_string(p["symbols"].get<size_t>()) + " symbols");
        mbRow("engram extractSymbols, files in memory", p["engram_extract_in_memory"], "");
    }
    auto workspaceRows = [&](const std::string& tree, const json& w, bool large) {
        std::string what = "engram workspace indexing of the " + tree + " (Engine::indexCode, " +
                           std::to_string(w["threads"].get<unsigned>()) + " threads, into SQLite)";
        std::string result = fmt(w["median_seconds"].get<double>(), 2) + " s, " +
                             fmt(w["mb_per_s"].get<double>(), 2) + " MB/s (median of " +
                             std::to_string(w["seconds"].size()) + ")";
        if (large) {
            double s = w["median_seconds"].get<double>();
            rows.push_back({what, result, "<= 15 s", verdict(s <= 15.0)});
        } else {
            rows.push_back({what, result, "", ""});
        }
        double r = w["vs_raw_parse_in_memory_single_thread"].get<double>();
        rows.push_back({"  ratio: workspace indexing / single-threaded raw parse in memory",
                        fmt(r, 3) + "x", large ? "" : ">= 1.50", large ? "" : verdict(r >= 1.5)});
    };
    if (p.contains("workspace_indexing")) workspaceRows("tree", p["workspace_indexing"], false);
    if (out.contains("large_tree"))
        workspaceRows(fmt(out["large_tree"]["bytes"].get<double>() / kMB, 0) + " MB tree",
                      out["large_tree"]["workspace_indexing"], true);
    if (!p.contains("ratios")) return rows; // --workspace-only
    auto ratioRow = [&](const std::string& what, const std::string& key) {
        double r = p["ratios"][key].get<double>();
        rows.push_back({what, fmt(r, 3), ">= 0.80", verdict(r >= 0.8)});
    };
    ratioRow("  ratio: engram read+index / raw parse in memory", "engram_read_vs_raw_in_memory");
    ratioRow("  ratio: engram read+index / raw read+parse", "engram_read_vs_raw_read");
    ratioRow("  ratio: extractSymbols / raw parse, both in memory", "engram_memory_vs_raw_memory");
    for (const auto& [lang, l] : p["per_language"].items()) {
        double r = l["engram_read_vs_raw_in_memory"].get<double>();
        rows.push_back({"  " + lang + ": raw parse / engram read+index",
                        fmt(l["raw_parse_in_memory_mb_per_s"].get<double>(), 2) + " / " +
                            fmt(l["engram_index_with_read_mb_per_s"].get<double>(), 2) +
                            " MB/s, ratio " + fmt(r, 3),
                        ">= 0.80", verdict(r >= 0.8)});
    }
    const json& ct = out["ctags"];
    if (!ct["available"].get<bool>()) {
        rows.push_back({"universal-ctags -R --fields=+n",
                        "ctags unavailable (" + ct["reason"].get<std::string>() + ")", "", ""});
    } else {
        rows.push_back({"universal-ctags -R --fields=+n (wall)",
                        fmt(ct["median_mb_per_s_whole_tree"].get<double>(), 2) +
                            " MB/s over the tree (median of " +
                            std::to_string(ct["seconds"].size()) + ", " +
                            fmt(ct["median_seconds"].get<double>(), 2) + " s), " +
                            std::to_string(ct["tags"].get<size_t>()) + " tags",
                        "", ""});
        std::string skipped;
        for (const auto& l : ct["unmapped_languages"])
            skipped += (skipped.empty() ? "" : ", ") + l.get<std::string>();
        if (!skipped.empty())
            rows.push_back({"  ctags over the files it parses (skips " + skipped + ")",
                            fmt(ct["median_mb_per_s_mapped"].get<double>(), 2) + " MB/s", "", ""});
        rows.push_back({"  ratio: engram read+index / ctags (whole tree)",
                        fmt(p["ratios"]["engram_read_vs_ctags_whole_tree"].get<double>(), 3) + "x",
                        "report", ""});
        if (!skipped.empty())
            rows.push_back({"  ratio: engram read+index / ctags (files ctags parses)",
                            fmt(p["ratios"]["engram_read_vs_ctags_mapped"].get<double>(), 3) + "x",
                            "report", ""});
    }
    for (const auto& r : out["reanchor"]) {
        auto lat = [&](const json& j) {
            return "p50 " + fmt(j["p50"].get<double>(), 3) + ", p95 " +
                   fmt(j["p95"].get<double>(), 3) + ", max " + fmt(j["max"].get<double>(), 3) +
                   " ms";
        };
        const json& e = r["per_edit_ms"];
        std::string head = "re-anchor after edit, " + std::to_string(r["lines"].get<size_t>()) +
                           "-line " + r["language"].get<std::string>() + " (" +
                           std::to_string(r["symbols"].get<size_t>()) + " symbols, " +
                           std::to_string(r["anchors"].get<int>()) + " anchors)";
        rows.push_back({head, lat(e) + " (n=" + std::to_string(e["n"].get<size_t>()) + ")",
                        "p95 <= 5 ms", verdict(e["p95"].get<double>() <= 5.0)});
        rows.push_back({"  Anchorer::editDocument (incremental re-parse)",
                        lat(r["edit_incremental_reparse_ms"]), "", ""});
        rows.push_back({"  " + std::to_string(r["anchors"].get<int>()) +
                            " Anchorer::check after the edit (incl. symbols)",
                        lat(r["anchor_checks_after_edit_ms"]), "", ""});
        rows.push_back(
            {"  " + std::to_string(r["anchors"].get<int>()) + " Anchorer::check, nothing changed",
             lat(r["anchor_checks_no_edit_ms"]), "", ""});
        rows.push_back({"  syntax::Document::edit alone", lat(r["document_edit_ms"]), "", ""});
        rows.push_back({"  syntax::Document::symbols alone (incremental, median " +
                            fmt(r["document_symbols_taken_over"]["p50"].get<double>(), 0) +
                            " symbols taken over)",
                        lat(r["document_symbols_ms"]), "", ""});
        rows.push_back({"  a full walk of the same tree (for scale)",
                        lat(r["document_full_walk_ms"]), "", ""});
        rows.push_back({"  extractSymbols from scratch (for scale)",
                        lat(r["full_extract_symbols_ms"]), "", ""});
    }
    return rows;
}

} // namespace

int main(int argc, char** argv) {
    Options opt = parseOptions(argc, argv);
    auto started = Clock::now();
    std::string scratch =
        (fs::path(opt.tmp) / ("engram-code-bench-" + std::to_string(::getpid()))).string();
    makeDirs(scratch);
    scratch = fs::canonical(scratch).string();
    std::string tree = scratch + "/tree";

    json out;
    utsname u{};
    ::uname(&u);
    out["machine"] = {{"nproc", sysconf(_SC_NPROCESSORS_ONLN)},
                      {"cpu_model", cpuModel()},
                      {"kernel", std::string(u.sysname) + " " + u.release + " " + u.machine},
                      {"date", nowIso()},
                      {"loadavg_at_start", loadAverage()},
                      {"scratch_dir", scratch}};
    out["build"] = {{"engram_version", ENGRAM_VERSION},
                    {"bench_build_type", ENGRAM_BENCH_BUILD_TYPE},
                    {"compiler", __VERSION__},
                    {"tree_sitter_abi", TREE_SITTER_LANGUAGE_VERSION}};
    out["aims"] = {{"index_vs_raw_parse_min_ratio", 0.8},
                   {"workspace_vs_single_thread_raw_parse_min_ratio", 1.5},
                   {"large_tree_workspace_indexing_max_seconds", 15},
                   {"reanchor_p95_ms", 5}};
    out["method"] = {
        {"seed", opt.seed},
        {"clock", "std::chrono::steady_clock"},
        {"threads", "one: every pass and ctags run single-threaded; workspace indexing "
                    "(Engine::indexCode) on its own thread pool"},
        {"workspace_passes", opt.passes},
        {"large_tree_mb", opt.bigMegabytes},
        {"large_tree_passes", opt.bigPasses},
        {"large_tree", "generated like the first tree, seed + 1; only workspace indexing is "
                       "timed on it, against the first tree's single-threaded raw parse"},
        {"mb", "10^6 bytes"},
        {"passes", opt.passes},
        {"pass_order", "per file, the four kinds (raw in memory, raw with read, engram with "
                       "read, engram in memory) run back to back in an order rotating from "
                       "file to file, each timed on its own; median of the passes reported"},
        {"page_cache", "warm: the tree was just written and parsed once before timing"},
        {"percentiles", "nearest rank, no outliers removed"},
        {"reanchor",
         "per edit: Anchorer::editDocument (incremental re-parse) then Anchorer::check of every "
         "anchor (the first check re-extracts the symbols); edits alternate change/undo of one "
         "integer literal in a body"}};

    int rc = 0;
    try {
        // 1. The tree.
        std::cerr << "code bench: generating ~" << opt.megabytes << " MB under " << tree << "\n";
        Corpus corpus = generateCorpus(opt.fixtures, tree, opt.megabytes * 1000000, opt.seed);
        json perLang = json::object();
        for (const auto& [lang, fb] : corpus.perLanguage)
            perLang[lang] = {{"files", fb.first}, {"bytes", fb.second}};
        progress("generated " + std::to_string(corpus.files.size()) + " files, " +
                 fmt(double(corpus.bytes) / kMB, 1) + " MB in " + fmt(corpus.seconds, 2) + " s");

        // Untimed warm-up, and the validity check: every tree error-free.
        Parsers parsers;
        PassResult warm;
        for (const auto& f : corpus.files)
            rawParse(f, readOrThrow(f.path), parsers, warm);
        size_t errorFiles = warm.errorFiles;
        std::vector<std::string> bad;
        if (errorFiles) {
            for (const auto& f : corpus.files) {
                TSTree* t = ts_parser_parse_string(parsers[f.language], nullptr, f.text.data(),
                                                   uint32_t(f.text.size()));
                if (ts_node_has_error(ts_tree_root_node(t)) && bad.size() < 10)
                    bad.push_back(f.path);
                ts_tree_delete(t);
            }
        }
        out["tree"] = {{"files", corpus.files.size()},
                       {"bytes", corpus.bytes},
                       {"lines", corpus.lines},
                       {"fixture_copies", corpus.copies},
                       {"generation_seconds", corpus.seconds},
                       {"per_language", perLang},
                       {"files_with_parse_errors", errorFiles},
                       {"some_files_with_errors", bad}};
        progress("warm-up pass: " + std::to_string(errorFiles) + " files with parse errors");

        // 2-3. Throughput.
        json& tp = out["throughput"];
        double rawMbps = 0; // the single-threaded raw parse, files in memory
        if (!opt.workspaceOnly) {
            std::vector<PassResult> passes;
            for (int i = 0; i < opt.passes; ++i) {
                passes.push_back(throughputPass(corpus, parsers));
                std::string line = "pass " + std::to_string(i + 1) + ":";
                for (size_t k = 0; k < kKinds; ++k)
                    line += std::string(" ") + kKindKeys[k] + " " +
                            fmt(double(corpus.bytes) / kMB / passes.back().seconds[k], 2) + " MB/s";
                progress(line);
            }
            for (size_t k = 0; k < kKinds; ++k)
                tp[kKindKeys[k]] = kindJson(passes, Kind(k), corpus.bytes);
            tp["symbols"] = passes.front().symbols;
            tp["checksum"] = passes.front().sink; // the results are used, so the work is done
            tp["ratios"] = {
                {"engram_read_vs_raw_in_memory", pairedRatio(passes, EngramRead, RawMemory)},
                {"engram_read_vs_raw_read", pairedRatio(passes, EngramRead, RawRead)},
                {"engram_memory_vs_raw_memory", pairedRatio(passes, EngramMemory, RawMemory)},
                {"how", "median over passes of the per-pass ratio (paired, interleaved per file)"}};
            for (const auto& [lang, fb] : corpus.perLanguage) {
                std::vector<double> raw, eng, ratio;
                for (const auto& p : passes) {
                    const auto& s = p.perLanguage.at(lang);
                    raw.push_back(double(fb.second) / kMB / s[RawMemory]);
                    eng.push_back(double(fb.second) / kMB / s[EngramRead]);
                    ratio.push_back(s[RawMemory] / s[EngramRead]);
                }
                tp["per_language"][lang] = {{"bytes", fb.second},
                                            {"raw_parse_in_memory_mb_per_s", median(raw)},
                                            {"engram_index_with_read_mb_per_s", median(eng)},
                                            {"engram_read_vs_raw_in_memory", median(ratio)}};
            }
            auto med = [&](const char* key) { return tp[key]["median_mb_per_s"].get<double>(); };
            rawMbps = med("raw_parse_in_memory");

            // ctags.
            out["ctags"] = ctagsBench(opt, corpus, scratch, tree);
            if (out["ctags"]["available"].get<bool>()) {
                tp["ratios"]["engram_read_vs_ctags_whole_tree"] =
                    med("engram_index_with_read") /
                    out["ctags"]["median_mb_per_s_whole_tree"].get<double>();
                tp["ratios"]["engram_read_vs_ctags_mapped"] =
                    med("engram_index_with_read") /
                    out["ctags"]["median_mb_per_s_mapped"].get<double>();
            }
        } else {
            std::vector<double> mbps;
            for (int i = 0; i < opt.passes; ++i)
                mbps.push_back(double(corpus.bytes) / kMB / rawParseSeconds(corpus, parsers));
            rawMbps = median(mbps);
            tp["raw_parse_in_memory"] = {{"mb_per_s", mbps}, {"median_mb_per_s", rawMbps}};
            progress("raw parse in memory: " + fmt(rawMbps, 2) + " MB/s");
        }
        // 4. The product's workspace indexing, on its thread pool.
        corpus.files.clear();
        corpus.files.shrink_to_fit();
        tp["workspace_indexing"] =
            workspaceBench(tree, scratch + "/index-home", opt.passes, rawMbps);
        if (!opt.keep) fs::remove_all(tree);

        // 5. The same on a large tree (built like the first one), where the
        // aim is a wall time.
        if (opt.bigMegabytes > 0) {
            std::string big = scratch + "/tree-large";
            std::cerr << "code bench: generating ~" << opt.bigMegabytes << " MB under " << big
                      << "\n";
            Corpus large =
                generateCorpus(opt.fixtures, big, opt.bigMegabytes * 1000000, opt.seed + 1);
            progress("generated " + std::to_string(large.files.size()) + " files, " +
                     fmt(double(large.bytes) / kMB, 1) + " MB in " + fmt(large.seconds, 2) + " s");
            out["large_tree"] = {{"files", large.files.size()},
                                 {"bytes", large.bytes},
                                 {"lines", large.lines},
                                 {"generation_seconds", large.seconds}};
            large.files.clear();
            large.files.shrink_to_fit();
            out["large_tree"]["workspace_indexing"] =
                workspaceBench(big, scratch + "/index-home", opt.bigPasses, rawMbps);
            if (!opt.keep) fs::remove_all(big);
        }

        // 6. Re-anchoring.
        out["reanchor"] = json::array();
        if (!opt.workspaceOnly)
            for (const auto& lf : {largePython(opt.lines), largeCpp(opt.lines)})
                out["reanchor"].push_back(reanchorBench(opt, lf, scratch + "/ws-" + lf.language));
    } catch (const std::exception& e) {
        std::cerr << "engram_code_bench: " << e.what() << "\n";
        rc = 1;
    }
    if (!opt.keep) fs::remove_all(scratch);
    out["total_seconds"] = secondsSince(started);
    out["machine"]["loadavg_at_end"] = loadAverage();
    if (rc != 0) return rc;

    makeDirs(fs::path(opt.out).parent_path().string());
    std::ofstream(opt.out) << out.dump(2) << "\n";

    const json& m = out["machine"];
    std::cout << "\nengram " << ENGRAM_VERSION << " code bench, " << m["date"].get<std::string>()
              << ", " << m["nproc"] << " cores (" << m["cpu_model"].get<std::string>() << "), "
              << fmt(out["total_seconds"].get<double>(), 1) << " s total\nload average "
              << m["loadavg_at_start"].get<std::string>() << " at start, "
              << m["loadavg_at_end"].get<std::string>() << " at end\n\n";
    printTable(tableRows(out));
    std::cout << "\nresults: " << opt.out << "\n";
    return 0;
}
