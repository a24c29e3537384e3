// engram_bench: engram's performance benchmarks (README, "Benchmarks"), as one program.
//
// For each store size it generates a synthetic store of claim files in a git
// repository (committed but for the last 200, as after a day's work), then
// measures what a user of that store pays: rebuilding the index with the real
// `engram reindex`, spawning `engram serve` to its initialize reply, recall
// in-process (Engine::recall) and over the wire (one long-lived server), a
// durable remember over the wire, and the server's idle resident memory. As a
// reference it runs plain FTS5 `ORDER BY rank` over the same index for the
// common-term queries, which is what recall would cost without its candidate
// cap. Numbers are reported as measured; the aims are printed beside them,
// never used to pick or drop runs.
#include "Child.h"
#include "Stats.h"
#include "Synth.h"
#include "TierAll.h"

#include "engine/Engine.h"
#include "index/Sqlite.h"
#include "ops/op/Ops.h"
#include "protocol/Packet.h"
#include "store/Store.h"
#include "text/Tokenize.h"
#include "util/Fs.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sodium.h>
#include <sstream>
#include <sys/utsname.h>
#include <thread>
#include <unistd.h>

#ifndef ENGRAM_BENCH_BUILD_TYPE
#define ENGRAM_BENCH_BUILD_TYPE "unknown"
#endif

namespace fs = std::filesystem;
using namespace engram;
using namespace engram::bench;

namespace {

struct Options {
    std::string engram; // the binary under test
    std::string out = "bench/results/latest.json";
    std::string tmp; // parent of the scratch directory
    std::vector<size_t> sizes{10000, 100000};
    uint64_t seed = 20260101;
    int spawnRuns = 30;
    int rememberRuns = 50;
    bool keep = false;
    size_t tierAllStores = 20, tierAllClaims = 5000; // 0 stores: skip
};

[[noreturn]] void usage(const char* msg) {
    std::cerr << "engram_bench: " << msg
              << "\nusage: engram_bench --engram PATH [--out FILE] [--tmp DIR] "
                 "[--sizes 10000,100000] [--seed N] [--spawn-runs N] [--remember-runs N] "
                 "[--tier-all STORESxCLAIMS|0] [--keep]\n";
    std::exit(2);
}

Options parseOptions(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage((a + " needs a value").c_str());
            return argv[++i];
        };
        if (a == "--engram")
            o.engram = value();
        else if (a == "--out")
            o.out = value();
        else if (a == "--tmp")
            o.tmp = value();
        else if (a == "--seed")
            o.seed = std::stoull(value());
        else if (a == "--spawn-runs")
            o.spawnRuns = std::stoi(value());
        else if (a == "--remember-runs")
            o.rememberRuns = std::stoi(value());
        else if (a == "--tier-all") {
            std::string v = value();
            auto x = v.find('x');
            if (v == "0") {
                o.tierAllStores = 0;
            } else if (x == std::string::npos) {
                usage("--tier-all: expected STORESxCLAIMS, e.g. 20x5000, or 0");
            } else {
                o.tierAllStores = std::stoull(v.substr(0, x));
                o.tierAllClaims = std::stoull(v.substr(x + 1));
            }
        } else if (a == "--keep")
            o.keep = true;
        else if (a == "--sizes") {
            o.sizes.clear();
            std::stringstream ss(value());
            for (std::string s; std::getline(ss, s, ',');)
                o.sizes.push_back(std::stoull(s));
        } else
            usage(("unknown argument " + a).c_str());
    }
    if (o.engram.empty()) usage("--engram is required");
    if (o.tmp.empty()) {
        const char* t = std::getenv("TMPDIR");
        o.tmp = t && *t ? t : "/tmp";
    }
    return o;
}

std::string sizeName(size_t n) {
    if (n % 1000000 == 0) return std::to_string(n / 1000000) + "M";
    if (n % 1000 == 0) return std::to_string(n / 1000) + "k";
    return std::to_string(n);
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

long memTotalKb() {
    std::ifstream in("/proc/meminfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("MemTotal:", 0) == 0) return std::stol(line.substr(9));
    return 0;
}

// The 1, 5 and 15 minute load averages: the machine may be shared, and a
// reader of the numbers should know how busy it was.
std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

void removeIndexFiles(const std::string& root) {
    for (const char* suffix : {"", "-wal", "-shm"})
        removeFile(root + "/.engram/index.sqlite" + suffix);
}

// Per-category latency samples for one query mix run.
struct MixResult {
    std::map<std::string, std::vector<double>> byCategory;
    std::vector<double> all;
    int64_t maxCandidates = 0;
    size_t emptyAnswers = 0;
    std::string slowestQuery;
    double slowestMs = 0;

    void add(const Query& q, double ms) {
        all.push_back(ms);
        byCategory[q.category].push_back(ms);
        if (ms > slowestMs) {
            slowestMs = ms;
            slowestQuery = q.category + ": " + q.text;
        }
    }
    nlohmann::json toJson() const {
        nlohmann::json j{{"all", bench::toJson(summarize(all))},
                         {"slowest_query", slowestQuery},
                         {"empty_answers", emptyAnswers}};
        if (maxCandidates) j["max_candidates_scored"] = maxCandidates;
        for (auto& [cat, v] : byCategory)
            j["by_category"][cat] = bench::toJson(summarize(v));
        return j;
    }
};

// The FTS5 MATCH expression for a query. The engram tokenizer passes query
// text through verbatim (queries arrive already tokenized, as Index::match
// sends them), so the query is tokenized here with the same text::terms and
// each term quoted; FTS5 ANDs them.
std::string ftsExpression(const std::string& q) {
    std::string out;
    for (auto& t : text::terms(q)) {
        out += out.empty() ? "\"" : " \"";
        for (char c : t)
            out += c == '"' ? std::string("\"\"") : std::string(1, c);
        out += "\"";
    }
    return out;
}

struct SizeRun {
    const Options& opt;
    const Vocabulary& vocab;
    std::vector<Query>& queries;
    size_t n;
    std::string dir, root, home;
    nlohmann::json j;

    std::vector<std::string> engramArgs(std::vector<std::string> tail) const {
        std::vector<std::string> a{opt.engram, "--root", root, "--home", home};
        a.insert(a.end(), tail.begin(), tail.end());
        return a;
    }

    static void progress(const std::string& s) { std::cerr << "  " << s << std::endl; }

    void generate() {
        makeDirs(root);
        makeDirs(home);
        auto g = generateStore(root, vocab, opt.seed, n);
        if (queries.empty()) queries = makeQueries(vocab, g.labels, opt.seed + 1);
        j["store"] = {{"claims", g.claims},
                      {"labelled", g.labelled},
                      {"claim_file_bytes", g.bytes},
                      {"generation_seconds", g.seconds}};
        progress("generated " + std::to_string(g.claims) + " claims (" +
                 std::to_string(g.bytes / 1024) + " KiB) in " + std::to_string(g.seconds) + " s");
    }

    // The runner spawns a path, not a command name: git as PATH finds it.
    static std::string gitPath() {
        std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
        for (size_t from = 0; from <= path.size();) {
            size_t colon = path.find(':', from);
            std::string dir =
                path.substr(from, colon == std::string::npos ? std::string::npos : colon - from);
            if (!dir.empty() && ::access((dir + "/git").c_str(), X_OK) == 0) return dir + "/git";
            if (colon == std::string::npos) break;
            from = colon + 1;
        }
        throw std::runtime_error("git is not on the PATH");
    }

    // Where users keep a store: a git repository with the claims committed,
    // all but the last few hundred written (a day's work not yet committed).
    // A million loose objects would cost gigabytes of disk and minutes, and
    // fast-import's own commit of one directory of a million entries takes
    // longer still; so the blobs go into one pack by `git fast-import`, and
    // git's index, the tree and the commit are made from the ids it reports
    // (`update-index --index-info`, `write-tree`, `commit-tree`), then the
    // index is refreshed against the files (a hash of each).
    void commitToGit() {
        auto t0 = Clock::now();
        const std::string git = gitPath();
        std::vector<std::string> files; // paths in the repository
        const std::string claims = root + "/.engram/claims";
        std::vector<std::string> names;
        for (auto& e : fs::directory_iterator(claims))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        size_t committed = names.size() > 200 ? names.size() - 200 : 0;
        for (size_t i = 0; i < committed; ++i)
            files.push_back(".engram/claims/" + names[i]);
        for (auto& e : fs::directory_iterator(root + "/.engram"))
            if (e.is_regular_file() && e.path().filename().string().rfind("index.sqlite", 0) != 0)
                files.push_back(".engram/" + e.path().filename().string());
        std::string stream;
        for (size_t i = 0; i < files.size(); ++i) {
            std::ifstream in(root + "/" + files[i], std::ios::binary);
            std::string data((std::istreambuf_iterator<char>(in)), {});
            stream += "blob\nmark :" + std::to_string(i + 1) + "\ndata " +
                      std::to_string(data.size()) + "\n" + data + "\n";
        }
        const std::string marks = dir + "/marks";
        std::string out;
        if (runToExit({git, "init", "-q", "-b", "main", root}) != 0 ||
            runWithInput({git, "-C", root, "fast-import", "--quiet", "--export-marks=" + marks},
                         stream, out) != 0)
            throw std::runtime_error("git fast-import of the store failed");
        stream.clear();
        stream.shrink_to_fit();
        std::map<size_t, std::string> ids;
        {
            std::ifstream in(marks);
            std::string mark, id;
            while (in >> mark >> id)
                ids[std::stoul(mark.substr(1))] = id;
        }
        std::string info;
        for (size_t i = 0; i < files.size(); ++i)
            info += "100644 " + ids.at(i + 1) + "\t" + files[i] + "\n";
        std::string tree, commit;
        if (runWithInput({git, "-C", root, "update-index", "--index-info"}, info, out) != 0 ||
            runWithInput({git, "-C", root, "write-tree"}, "", tree) != 0)
            throw std::runtime_error("git could not write the store's tree");
        while (!tree.empty() && (tree.back() == '\n' || tree.back() == '\r'))
            tree.pop_back();
        if (runWithInput({git, "-C", root, "-c", "user.name=bench", "-c",
                          "user.email=bench@example.com", "commit-tree", tree, "-m", "claims"},
                         "", commit) != 0)
            throw std::runtime_error("git could not commit the store's tree");
        while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r'))
            commit.pop_back();
        if (runToExit({git, "-C", root, "update-ref", "refs/heads/main", commit}) != 0 ||
            runWithInput({git, "-C", root, "update-index", "-q", "--refresh"}, "", out) != 0)
            throw std::runtime_error("git could not record the store's commit");
        double s = msBetween(t0, Clock::now()) / 1000.0;
        j["store"]["git"] = {
            {"committed", committed}, {"uncommitted", names.size() - committed}, {"seconds", s}};
        progress("committed " + std::to_string(committed) + " claim files to git (" +
                 std::to_string(names.size() - committed) + " left uncommitted) in " +
                 std::to_string(s) + " s");
    }

    // 1. `engram reindex`, the user-facing rebuild: with an index already
    // there (it is emptied first, then refilled) and with no index file.
    // Three runs each at 10k (the median is reported); two at 100k and one
    // at 1M, where a run takes seconds to a minute and the whole benchmark
    // must stay under 15 minutes.
    void rebuild() {
        int runs = n >= 1000000 ? 1 : n >= 100000 ? 2 : 3;
        std::vector<double> cold, warm;
        auto once = [&] {
            auto t0 = Clock::now();
            int rc = runToExit(engramArgs({"reindex"}));
            double s = msBetween(t0, Clock::now()) / 1000.0;
            if (rc != 0) throw std::runtime_error("engram reindex exited " + std::to_string(rc));
            return s;
        };
        for (int i = 0; i < runs; ++i) {
            removeIndexFiles(root);
            cold.push_back(once());
            progress("reindex without an index: " + std::to_string(cold.back()) + " s");
        }
        for (int i = 0; i < runs; ++i) {
            warm.push_back(once());
            progress("reindex over an existing index: " + std::to_string(warm.back()) + " s");
        }
        j["rebuild_seconds"] = {{"no_index", bench::toJson(summarize(cold), cold)},
                                {"existing_index", bench::toJson(summarize(warm), warm)}};
        auto st = statFile(root + "/.engram/index.sqlite");
        j["index_bytes"] = st ? st->size : 0;
    }

    nlohmann::json initializeParams() const {
        return {{"processId", int64_t(::getpid())},
                {"rootUri", "file://" + root},
                {"capabilities", nlohmann::json::object()},
                {"clientInfo", {{"name", "engram_bench"}}}};
    }

    // 2. Spawn to initialize reply, with the index already built. The first
    // recall after it waits for the start-up sync (which the server runs
    // after replying), so its time is reported too: it is when a client can
    // first get an answer.
    void spawn() {
        std::vector<double> init, firstRecall;
        for (int i = 0; i < opt.spawnRuns; ++i) {
            LspChild c(engramArgs({"serve"}));
            Clock::time_point at;
            c.request("initialize", initializeParams(), nullptr, &at);
            init.push_back(msBetween(c.spawnedAt(), at));
            c.notify("initialized", nlohmann::json::object());
            c.request("engram/recall", {{"query", "cache"}, {"limit", 10}}, nullptr, &at);
            firstRecall.push_back(msBetween(c.spawnedAt(), at));
            if (int rc = c.stop(); rc != 0)
                throw std::runtime_error("engram serve exited " + std::to_string(rc));
        }
        auto s = summarize(init);
        progress("spawn to initialize: p50 " + std::to_string(s.p50) + " ms, p95 " +
                 std::to_string(s.p95) + " ms");
        j["spawn_to_initialize_ms"] = bench::toJson(s, init);
        j["spawn_to_first_recall_ms"] = bench::toJson(summarize(firstRecall), firstRecall);
    }

    // 2b. The same with no index file, as after a fresh clone: the first
    // recall waits for the index to be built from the claim files. The last
    // run leaves the index in place for what follows.
    void freshClone() {
        int runs = n >= 1000000 ? 1 : n >= 100000 ? 2 : 3;
        std::vector<double> firstRecall;
        for (int i = 0; i < runs; ++i) {
            removeIndexFiles(root);
            LspChild c(engramArgs({"serve"}));
            Clock::time_point at;
            c.request("initialize", initializeParams());
            c.notify("initialized", nlohmann::json::object());
            c.request("engram/recall", {{"query", "cache"}, {"limit", 10}}, nullptr, &at);
            firstRecall.push_back(msBetween(c.spawnedAt(), at));
            if (int rc = c.stop(); rc != 0)
                throw std::runtime_error("engram serve exited " + std::to_string(rc));
            progress("fresh clone, spawn to first recall: " + std::to_string(firstRecall.back()) +
                     " ms");
        }
        j["fresh_clone_spawn_to_first_recall_ms"] =
            bench::toJson(summarize(firstRecall), firstRecall);
    }

    // 7. `engram check` (text report), the headless run CI makes: one run.
    // Its findings are the anchored claims' states, so the number of
    // anchored live claims is kept beside the time.
    void check() {
        auto t0 = Clock::now();
        int rc = runToExit(engramArgs({"check", "--format", "json"}));
        double s = msBetween(t0, Clock::now()) / 1000.0;
        // Exit 1 means findings at the failing level: a result, not an error.
        if (rc != 0 && rc != 1)
            throw std::runtime_error("engram check exited " + std::to_string(rc));
        j["check_seconds"] = s;
        progress("engram check: " + std::to_string(s) + " s");
    }

    // 8. `engram hook` as an agent harness runs it on every prompt: a new
    // process with the harness's JSON on stdin, from spawn to exit (the
    // start-up, the packet's selection, the output). Prompts are the query
    // mix's; the context's size is checked against the default budget.
    void hook() {
        int runs = n >= 1000000 ? 20 : 60;
        std::vector<double> prompt, start;
        size_t maxContext = 0, withItems = 0;
        std::string out;
        for (int i = 0; i < runs; ++i) {
            const Query& q = queries[size_t(i) * 7 % queries.size()];
            nlohmann::json input = {{"session_id", "bench"},
                                    {"hook_event_name", "UserPromptSubmit"},
                                    {"cwd", root},
                                    {"prompt", "Please look at " + q.text + " and fix it"}};
            auto t0 = Clock::now();
            int rc = runWithInput(engramArgs({"hook"}), input.dump(), out);
            prompt.push_back(msBetween(t0, Clock::now()));
            if (rc != 0) throw std::runtime_error("engram hook exited " + std::to_string(rc));
            std::string ctx = nlohmann::json::parse(out)["hookSpecificOutput"]["additionalContext"];
            maxContext = std::max(maxContext, ctx.size());
            withItems += ctx.find("\n1. [") != std::string::npos;
        }
        for (int i = 0; i < runs / 6; ++i) {
            nlohmann::json input = {{"hook_event_name", "SessionStart"}, {"cwd", root}};
            auto t0 = Clock::now();
            int rc = runWithInput(engramArgs({"hook"}), input.dump(), out);
            start.push_back(msBetween(t0, Clock::now()));
            if (rc != 0) throw std::runtime_error("engram hook exited " + std::to_string(rc));
        }
        if (maxContext > 8000)
            throw std::runtime_error(
                "engram hook exceeded its budget: " + std::to_string(maxContext) + " bytes");
        auto s = summarize(prompt);
        j["hook_prompt_ms"] = bench::toJson(s, prompt);
        j["hook_session_start_ms"] = bench::toJson(summarize(start), start);
        j["hook_max_context_bytes"] = maxContext;
        j["hook_prompts_with_items"] = withItems;
        progress("engram hook (prompt, spawn to exit): p50 " + std::to_string(s.p50) + " ms, p95 " +
                 std::to_string(s.p95) + " ms; largest context " + std::to_string(maxContext) +
                 " bytes");
    }

    // 3a. Engine::recall in this process: the engine's own cost, no JSON.
    void recallInProcess() {
        Engine engine({root, "--root", home, 30, ENGRAM_VERSION});
        RecallRequest first;
        first.query = "cache";
        auto t0 = Clock::now();
        engine.recall(first); // opens the index and syncs it with the files
        double openMs = msBetween(t0, Clock::now());
        for (size_t i = 0; i < 20 && i < queries.size(); ++i) {
            RecallRequest r;
            r.query = queries[i * 7 % queries.size()].text;
            engine.recall(r);
        }
        MixResult mix;
        for (auto& q : queries) {
            RecallRequest r;
            r.query = q.text;
            auto a = Clock::now();
            auto res = engine.recall(r);
            mix.add(q, msBetween(a, Clock::now()));
            mix.maxCandidates = std::max(mix.maxCandidates, res.envelope.observed.candidates);
            if (res.rows.empty()) ++mix.emptyAnswers;
        }
        j["recall_in_process_ms"] = mix.toJson();
        j["engine_open_sync_first_recall_ms"] = openMs;
        auto s = summarize(mix.all);
        progress("recall in-process: p50 " + std::to_string(s.p50) + " ms, p95 " +
                 std::to_string(s.p95) + " ms, max " + std::to_string(s.max) + " ms");
    }

    // 3b. engram/delegate in this process (protocol::delegate: the engine's
    // selection plus the canonical JSON and its SHA-256), one packet per
    // query of the mix used as the task, unsigned, default limits.
    void delegateInProcess() {
        Engine engine({root, "--root", home, 30, ENGRAM_VERSION});
        DelegateRequest warm;
        warm.task = "warm up the index";
        warm.agent = "bench";
        engine.delegate(warm);
        std::vector<double> ms;
        size_t items = 0;
        for (auto& q : queries) {
            DelegateRequest r;
            r.task = q.text;
            r.agent = "bench";
            auto a = Clock::now();
            auto packet = protocol::packetJson(ops::delegate::machine(engine),
                                               engine.delegate(r).packet, false);
            ms.push_back(msBetween(a, Clock::now()));
            items += packet["items"].size();
        }
        j["delegate_in_process_ms"] = bench::toJson(summarize(ms), ms);
        j["delegate_mean_items"] = queries.empty() ? 0.0 : double(items) / double(queries.size());
        auto s = summarize(ms);
        progress("delegate in-process: p50 " + std::to_string(s.p50) + " ms, p95 " +
                 std::to_string(s.p95) + " ms");
    }

    // 6. Plain FTS5 ranking over the same index, for the common-term queries,
    // plus the document-frequency lookups recall makes before it caps.
    void ftsReference() {
        sql::Db db(root + "/.engram/index.sqlite");
        sql::registerTokenizer(db);
        auto rank = db.prepare(
            "SELECT rowid FROM claims_fts WHERE claims_fts MATCH ?1 ORDER BY rank LIMIT 10");
        auto count = db.prepare("SELECT count(*) FROM claims_fts WHERE claims_fts MATCH ?1");
        auto df = db.prepare("SELECT doc FROM claims_vocab WHERE term = ?1");
        std::vector<double> rankMs, dfMs;
        nlohmann::json perQuery = nlohmann::json::array();
        for (auto& q : queries) {
            if (q.category != "common") continue;
            // At 1M a plain FTS5 ranking takes seconds per query: ten of
            // them make the point and keep the bench under 15 minutes.
            if (n >= 1000000 && rankMs.size() >= 10) break;
            std::string expr = ftsExpression(q.text);
            rank.bind(1, expr);
            auto a = Clock::now();
            while (rank.step()) {
            }
            double ms = msBetween(a, Clock::now());
            rank.reset();
            rankMs.push_back(ms);
            count.bind(1, expr);
            int64_t matches = count.step() ? count.int64(0) : 0;
            count.reset();
            for (auto& term : text::terms(q.text)) {
                df.bind(1, term);
                auto b = Clock::now();
                if (df.step()) (void)df.int64(0);
                dfMs.push_back(msBetween(b, Clock::now()));
                df.reset();
            }
            perQuery.push_back({{"query", q.text}, {"matching_rows", matches}, {"rank_ms", ms}});
        }
        auto s = summarize(rankMs);
        j["fts5_order_by_rank_common_ms"] = bench::toJson(s);
        j["fts5_order_by_rank_common_ms"]["queries"] = perQuery;
        j["fts5vocab_doc_frequency_ms"] = bench::toJson(summarize(dfMs));
        progress("FTS5 ORDER BY rank (common): p50 " + std::to_string(s.p50) + " ms, max " +
                 std::to_string(s.max) + " ms");
    }

    // 3b, 4, 5. One long-lived server: idle memory after start-up, the query
    // mix over the wire, then durable remembers.
    void wire() {
        LspChild c(engramArgs({"serve"}));
        c.request("initialize", initializeParams());
        c.notify("initialized", nlohmann::json::object());
        // The first recall is answered after the start-up sync; a few more
        // bring the page cache and SQLite's cache to a steady state.
        for (const char* q : {"cache", "token refresh", "parseJson", "database migration"})
            c.request("engram/recall", {{"query", q}, {"limit", 10}});
        // Idle: the start-up check of every claim file (on a thread, seconds
        // at 1M claims, its tables handed back when it is applied) is over;
        // recall's envelope says so. Measured before it, the figure is
        // whatever part of the check the moment caught.
        auto reconciled = [](const nlohmann::json& r) {
            if (!r.contains("envelope") || !r["envelope"].contains("stores")) return false;
            for (auto& s : r["envelope"]["stores"])
                if (s.value("exists", false) && !s.value("reconciled", true)) return false;
            return true;
        };
        for (int i = 0; i < 600; ++i) {
            if (reconciled(c.request("engram/recall", {{"query", "cache"}, {"limit", 1}}))) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        Memory idle = readMemory(c.pid());

        for (size_t i = 0; i < 20 && i < queries.size(); ++i)
            c.request("engram/recall", {{"query", queries[i * 7 % queries.size()].text}});
        MixResult mix;
        for (auto& q : queries) {
            double ms = 0;
            auto r = c.request("engram/recall", {{"query", q.text}, {"limit", 10}}, &ms);
            mix.add(q, ms);
            if (!r.contains("rows") || r["rows"].empty()) ++mix.emptyAnswers;
        }
        Memory afterMix = readMemory(c.pid());

        // engram/status: the first call counts every anchored file; later
        // ones recount only files whose anchors or text changed.
        double statusFirst = 0;
        auto st = c.request("engram/status", nlohmann::json::object(), &statusFirst);
        std::vector<double> status;
        for (int i = 0; i < 20; ++i) {
            double ms = 0;
            c.request("engram/status", nlohmann::json::object(), &ms);
            status.push_back(ms);
        }
        int64_t anchored = 0;
        if (st.contains("anchor_health"))
            for (auto& [k, v] : st["anchor_health"].items())
                anchored += v.get<int64_t>();

        std::vector<double> remember;
        Rng rng(opt.seed + 2);
        for (int i = 0; i < opt.rememberRuns; ++i) {
            std::string text = "Bench note " + std::to_string(i) + ": " + vocab.draw(rng) + " " +
                               vocab.draw(rng) + " must be retried " +
                               std::to_string(2 + rng.below(5)) + " times before " +
                               vocab.draw(rng) + " gives up.";
            double ms = 0;
            c.request("engram/remember",
                      {{"text", text},
                       {"agent", "agent:engram-bench"},
                       {"kind", "fact"},
                       {"tags", {"bench"}},
                       {"confidence", 0.8}},
                      &ms);
            remember.push_back(ms);
        }
        Memory afterRemember = readMemory(c.pid());
        if (int rc = c.stop(); rc != 0)
            throw std::runtime_error("engram serve exited " + std::to_string(rc));

        // A server started after another one counted: the first status takes
        // the counts that server kept in the index (one stat per anchored
        // file's key), as every editor restart does.
        double statusKept = 0;
        {
            LspChild again(engramArgs({"serve"}));
            again.request("initialize", initializeParams());
            again.notify("initialized", nlohmann::json::object());
            again.request("engram/status", nlohmann::json::object(), &statusKept);
            if (int rc = again.stop(); rc != 0)
                throw std::runtime_error("engram serve exited " + std::to_string(rc));
        }

        j["recall_wire_ms"] = mix.toJson();
        j["remember_wire_ms"] = bench::toJson(summarize(remember), remember);
        j["status_wire_ms"] = {{"first", statusFirst},
                               {"first_of_next_server", statusKept},
                               {"repeated", bench::toJson(summarize(status), status)},
                               {"anchors_counted", anchored}};
        j["memory_kb"] = {{"idle_rss", idle.rssKb},
                          {"idle_hwm", idle.hwmKb},
                          {"after_recall_mix_rss", afterMix.rssKb},
                          {"after_remember_rss", afterRemember.rssKb},
                          {"peak_hwm", afterRemember.hwmKb}};
        auto s = summarize(mix.all);
        progress("recall over the wire: p50 " + std::to_string(s.p50) + " ms, p95 " +
                 std::to_string(s.p95) + " ms; idle RSS " + std::to_string(idle.rssKb) + " KiB");
    }
};

// ---- report ----------------------------------------------------------------

std::string fmt(double v, int prec = 2) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    return buf;
}

struct Row {
    std::string what, size, n, p50, p95, max, aim, verdict;
};

void printTable(const std::vector<Row>& rows) {
    std::vector<Row> all{{"measure", "claims", "n", "p50", "p95", "max", "aim", ""}};
    all.insert(all.end(), rows.begin(), rows.end());
    size_t w[8] = {};
    for (auto& r : all) {
        const std::string* f[8] = {&r.what, &r.size, &r.n,   &r.p50,
                                   &r.p95,  &r.max,  &r.aim, &r.verdict};
        for (int i = 0; i < 8; ++i)
            w[i] = std::max(w[i], f[i]->size());
    }
    for (size_t k = 0; k < all.size(); ++k) {
        auto& r = all[k];
        const std::string* f[8] = {&r.what, &r.size, &r.n,   &r.p50,
                                   &r.p95,  &r.max,  &r.aim, &r.verdict};
        std::string line;
        for (int i = 0; i < 8; ++i) {
            bool left = i == 0 || i == 6 || i == 7;
            std::string cell = *f[i];
            std::string pad(w[i] - cell.size(), ' ');
            line += (left ? cell + pad : pad + cell) + (i < 7 ? "  " : "");
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        std::cout << line << "\n";
        if (k == 0) std::cout << std::string(line.size(), '-') << "\n";
    }
}

std::vector<Row> tableRows(const nlohmann::json& sizes, const std::vector<std::string>& names) {
    std::vector<Row> rows;
    auto verdict = [](bool ok) { return std::string(ok ? "meets" : "MISSES"); };
    for (auto& name : names) {
        const nlohmann::json& s = sizes[name];
        bool big = s["store"]["claims"].get<size_t>() >= 100000;
        auto lat = [&](const std::string& what, const nlohmann::json& j, const std::string& unit,
                       double scale, std::string aim, std::string v) {
            rows.push_back({what, name, std::to_string(j["n"].get<size_t>()),
                            fmt(j["p50"].get<double>() * scale) + unit,
                            fmt(j["p95"].get<double>() * scale) + unit,
                            fmt(j["max"].get<double>() * scale) + unit, aim, v});
        };
        size_t claims = s["store"]["claims"].get<size_t>();
        bool million = claims >= 1000000;
        auto& rb = s["rebuild_seconds"];
        // The targets: 3 s at 100k, 15 s at 1M (both cores).
        double rbAim = million ? 15.0 : 3.0;
        std::string rbAimText = big ? (million ? "<= 15 s" : "<= 3 s") : "";
        lat("index rebuild: engram reindex, index present", rb["existing_index"], " s", 1,
            rbAimText, big ? verdict(rb["existing_index"]["p50"].get<double>() <= rbAim) : "");
        lat("index rebuild: engram reindex, no index file", rb["no_index"], " s", 1, rbAimText,
            big ? verdict(rb["no_index"]["p50"].get<double>() <= rbAim) : "");
        auto& sp = s["spawn_to_initialize_ms"];
        lat("spawn -> initialize reply", sp, " ms", 1, big ? "p95 <= 15 ms" : "",
            big ? verdict(sp["p95"].get<double>() <= 15) : "");
        // Within 2x of the 10k store's, and 50 ms at 1M.
        auto& fr = s["spawn_to_first_recall_ms"];
        std::string frAim, frVerdict;
        if (name != "10k" && sizes.contains("10k")) {
            double base = sizes["10k"]["spawn_to_first_recall_ms"]["p50"].get<double>();
            double ratio = fr["p50"].get<double>() / std::max(base, 1e-9);
            frAim = (million ? "<= 50 ms, " : "") + std::string("<= 2x 10k (") + fmt(ratio) + "x)";
            frVerdict = verdict(ratio <= 2.0 && (!million || fr["p50"].get<double>() <= 50));
        }
        lat("spawn -> first recall reply, index present", fr, " ms", 1, frAim, frVerdict);
        if (s.contains("fresh_clone_spawn_to_first_recall_ms")) {
            auto& fc = s["fresh_clone_spawn_to_first_recall_ms"];
            bool at100k = claims == 100000;
            lat("spawn -> first recall reply, no index (fresh clone)", fc, " ms", 1,
                at100k ? "<= 1000 ms" : "", at100k ? verdict(fc["p50"].get<double>() <= 1000) : "");
        }
        auto recallRow = [&](const std::string& what, const nlohmann::json& mix) {
            auto& a = mix["all"];
            bool ok = a["max"].get<double>() <= 50 && (!big || a["p95"].get<double>() <= 5);
            lat(what, a, " ms", 1, big ? "p95 <= 5, max <= 50 ms" : "max <= 50 ms", verdict(ok));
        };
        recallRow("recall, in-process (Engine::recall), all queries", s["recall_in_process_ms"]);
        recallRow("recall, over the wire, all queries", s["recall_wire_ms"]);
        if (s.contains("delegate_in_process_ms")) {
            auto& d = s["delegate_in_process_ms"];
            lat("delegate, in-process (packet + packet_id), all queries", d, " ms", 1,
                big ? "p95 <= 20 ms" : "", big ? verdict(d["p95"].get<double>() <= 20) : "");
        }
        for (auto& [cat, c] : s["recall_wire_ms"]["by_category"].items())
            lat("  wire recall: " + cat, c, " ms", 1, "", "");
        lat("  in-process recall: common", s["recall_in_process_ms"]["by_category"]["common"],
            " ms", 1, "", "");
        lat("  reference: FTS5 ORDER BY rank, common", s["fts5_order_by_rank_common_ms"], " ms", 1,
            "(uncapped)", "");
        lat("  reference: fts5vocab doc-frequency lookup", s["fts5vocab_doc_frequency_ms"], " ms",
            1, "", "");
        if (s.contains("hook_prompt_ms")) {
            // Per prompt, blocking it: well under a person's notice.
            bool hundredK = claims == 100000;
            lat("engram hook, prompt (spawn to exit)", s["hook_prompt_ms"], " ms", 1,
                hundredK ? "p95 <= 100 ms" : "",
                hundredK ? verdict(s["hook_prompt_ms"]["p95"].get<double>() <= 100) : "");
            lat("engram hook, session start (spawn to exit)", s["hook_session_start_ms"], " ms", 1,
                "", "");
        }
        auto& rm = s["remember_wire_ms"];
        lat("remember over the wire (durable)", rm, " ms", 1, million ? "p95 <= 3 ms" : "",
            million ? verdict(rm["p95"].get<double>() <= 3) : "");
        if (s.contains("status_wire_ms")) {
            auto& sw = s["status_wire_ms"];
            int64_t anchors = sw["anchors_counted"].get<int64_t>();
            std::string what =
                "engram/status over the wire, " + std::to_string(anchors) + " anchors";
            rows.push_back({what + ", first call after a rebuild", name, "1",
                            fmt(sw["first"].get<double>()) + " ms", "", "", "(counts every file)",
                            ""});
            bool aimed = anchors >= 100000;
            if (sw.contains("first_of_next_server")) {
                double ms = sw["first_of_next_server"].get<double>();
                rows.push_back({what + ", first call of the next server", name, "1",
                                fmt(ms) + " ms", "", "", million ? "<= 100 ms" : "",
                                million ? verdict(ms <= 100) : ""});
            }
            lat(what + ", repeated", sw["repeated"], " ms", 1,
                aimed ? "p95 <= 10 ms (100k anchored)" : "",
                aimed ? verdict(sw["repeated"]["p95"].get<double>() <= 10) : "");
        }
        if (s.contains("check_seconds"))
            rows.push_back({"engram check (json report, every anchored claim)", name, "1",
                            fmt(s["check_seconds"].get<double>()) + " s", "", "", "(report)", ""});
        double mb = s["memory_kb"]["idle_rss"].get<double>() / 1024.0;
        rows.push_back({"idle resident memory (VmRSS)", name, "1", fmt(mb, 1) + " MB", "", "",
                        big ? "<= 30 MB" : "", big ? verdict(mb <= 30) : ""});
    }
    return rows;
}

} // namespace

int main(int argc, char** argv) {
    Options opt = parseOptions(argc, argv);
    if (sodium_init() < 0) {
        std::cerr << "engram_bench: libsodium failed to initialise\n";
        return 1;
    }
    std::signal(SIGPIPE, SIG_IGN);
    auto started = Clock::now();
    std::string scratch =
        (fs::path(opt.tmp) / ("engram-bench-" + std::to_string(::getpid()))).string();
    makeDirs(scratch);
    // Canonical: engram canonicalises --root, and the index lives under it.
    scratch = fs::canonical(scratch).string();

    nlohmann::json out;
    utsname u{};
    ::uname(&u);
    std::string sqliteVersion;
    {
        sql::Db mem(":memory:");
        auto s = mem.prepare("SELECT sqlite_version()");
        if (s.step()) sqliteVersion = s.text(0);
    }
    out["machine"] = {{"nproc", sysconf(_SC_NPROCESSORS_ONLN)},
                      {"cpu_model", cpuModel()},
                      {"mem_total_kb", memTotalKb()},
                      {"kernel", std::string(u.sysname) + " " + u.release + " " + u.machine},
                      {"date", nowIso()},
                      {"loadavg_at_start", loadAverage()},
                      {"scratch_dir", scratch}};
    out["build"] = {{"engram_version", ENGRAM_VERSION},
                    {"engram_binary", opt.engram},
                    {"bench_build_type", ENGRAM_BENCH_BUILD_TYPE},
                    {"compiler", __VERSION__},
                    {"sqlite_version", sqliteVersion}};
    out["aims"] = {{"rebuild_100k_seconds", 3},
                   {"rebuild_1m_seconds", 15},
                   {"spawn_to_first_recall_1m_ms", 50},
                   {"spawn_to_first_recall_vs_10k_max_ratio", 2},
                   {"fresh_clone_first_recall_100k_ms", 1000},
                   {"remember_1m_p95_ms", 3},
                   {"status_100k_anchored_p95_ms", 10},
                   {"tier_all_20x5k_p95_ms", 8},
                   {"spawn_to_initialize_100k_p95_ms", 15},
                   {"recall_100k_p95_ms", 5},
                   {"hook_prompt_100k_p95_ms", 100},
                   {"recall_max_ms", 50},
                   {"idle_rss_100k_mb", 30}};
    out["method"] = {
        {"seed", opt.seed},
        {"clock", "std::chrono::steady_clock"},
        {"percentiles", "nearest rank, no outliers removed"},
        {"page_cache", "warm: claim files were just written, nothing is dropped between runs"},
        {"repository", "each store in a git repository, its claims committed but the last 200"},
        {"spawn_runs", opt.spawnRuns},
        {"remember_runs", opt.rememberRuns},
        {"wire_timing", "from just before the request write to the complete reply frame"},
        {"home", "an empty ENGRAM_HOME (no medulla store), so only the project tier is searched"}};

    int rc = 0;
    try {
        auto vocab = Vocabulary::make(opt.seed);
        std::vector<Query> queries;
        out["vocabulary_size"] = vocab.words.size();
        for (size_t n : opt.sizes) {
            std::cerr << "store of " << n << " claims\n";
            SizeRun run{opt, vocab, queries, n, scratch + "/" + sizeName(n), "", "", {}};
            run.root = run.dir + "/root";
            run.home = run.dir + "/home";
            run.generate();
            run.commitToGit();
            run.rebuild();
            run.freshClone();
            run.spawn();
            run.recallInProcess();
            run.delegateInProcess();
            run.ftsReference();
            run.wire();
            run.hook();
            if (n <= 100000) run.check();
            out["sizes"][sizeName(n)] = run.j;
            if (!opt.keep) fs::remove_all(run.dir);
        }
        if (opt.tierAllStores > 0) {
            std::string dir = scratch + "/tier-all";
            out["tier_all"] =
                tierAllBench(dir, vocab, opt.seed, opt.tierAllStores, opt.tierAllClaims);
            if (!opt.keep) fs::remove_all(dir);
        }
        nlohmann::json qs = nlohmann::json::array();
        std::map<std::string, int> perCat;
        for (auto& q : queries) {
            qs.push_back({{"category", q.category}, {"query", q.text}});
            ++perCat[q.category];
        }
        out["queries"] = {{"count", queries.size()}, {"per_category", perCat}, {"list", qs}};
    } catch (const std::exception& e) {
        std::cerr << "engram_bench: " << e.what() << "\n";
        rc = 1;
    }
    if (!opt.keep) fs::remove_all(scratch);
    out["total_seconds"] = msBetween(started, Clock::now()) / 1000.0;
    out["machine"]["loadavg_at_end"] = loadAverage();
    if (rc != 0) return rc;

    makeDirs(fs::path(opt.out).parent_path().string());
    std::ofstream(opt.out) << out.dump(2) << "\n";

    auto& m = out["machine"];
    std::cout << "engram " << ENGRAM_VERSION << " bench, " << m["date"].get<std::string>() << ", "
              << m["nproc"] << " cores (" << m["cpu_model"].get<std::string>() << "), SQLite "
              << sqliteVersion << ", " << out["queries"]["count"] << " recall queries, "
              << fmt(out["total_seconds"].get<double>(), 1) << " s total\nload average "
              << m["loadavg_at_start"].get<std::string>() << " at start, "
              << m["loadavg_at_end"].get<std::string>() << " at end\n\n";
    std::vector<std::string> names;
    for (size_t n : opt.sizes)
        names.push_back(sizeName(n));
    printTable(tableRows(out["sizes"], names));
    if (out.contains("tier_all")) {
        auto& t = out["tier_all"];
        auto lat = [](const nlohmann::json& j) {
            return "p50 " + fmt(j["p50"].get<double>(), 3) + " ms, p95 " +
                   fmt(j["p95"].get<double>(), 3) + " ms, max " + fmt(j["max"].get<double>(), 3) +
                   " ms";
        };
        double p95 = t["recall_tier_all_ms"]["p95"].get<double>();
        std::cout << "\nrecall tier all over " << t["stores"] << " stores of "
                  << t["claims_per_store"] << " claims: " << lat(t["recall_tier_all_ms"])
                  << "  (aim p95 <= 8 ms: " << (p95 <= 8 ? "meets" : "MISSES") << ")"
                  << "\n  same queries, default scope: " << lat(t["recall_default_scope_ms"])
                  << "\n  first tier-all recall (opens every store): "
                  << fmt(t["first_recall_opening_every_store_ms"].get<double>(), 1) << " ms\n";
    }
    std::cout << "\nresults: " << opt.out << "\n";
    return 0;
}
