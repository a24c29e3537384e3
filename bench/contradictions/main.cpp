// engram_contradiction_bench: the contradiction rules' precision and recall
// on the labelled set, and what one check costs.
//
// It computes the measurement the unit test asserts (ContradictionScore.h:
// every kept rule, on the development and the held-out part, and per
// category), prints it as a table and writes it to
// bench/results/contradictions.json beside the time contradicts() takes per
// pair, so a change to a rule shows its precision, recall and cost together.
// Findings run the check on every pair of live claims sharing an anchor or
// a label, which is why the cost is worth watching. It takes about a second.
#include "Stats.h"

#include "engine/ContradictionScore.h"
#include "engine/Modality.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#ifndef ENGRAM_BENCH_BUILD_TYPE
#define ENGRAM_BENCH_BUILD_TYPE "unknown"
#endif

using namespace engram;
using nlohmann::json;

namespace {

struct Options {
    std::string pairs = std::string(ENGRAM_FIXTURES_DIR) + "/contradictions/pairs.tsv";
    std::string out = "bench/results/contradictions.json";
};

[[noreturn]] void usage(const std::string& msg) {
    std::cerr << "engram_contradiction_bench: " << msg
              << "\nusage: engram_contradiction_bench [--pairs FILE] [--out FILE]\n";
    std::exit(2);
}

Options parseOptions(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; i += 2) {
        std::string_view flag = argv[i];
        if (flag != "--pairs" && flag != "--out") usage("unknown argument " + std::string(flag));
        if (i + 1 >= argc) usage(std::string(flag) + " needs a value");
        (flag == "--pairs" ? o.pairs : o.out) = argv[i + 1];
    }
    return o;
}

json scoreJson(const RuleScore& s) {
    json j{{"rule", s.rule},
           {"part", s.part},
           {"pairs", s.pairs},
           {"contradictions", s.contradictions},
           {"fired", s.fired},
           {"correct", s.correct},
           {"precision", s.precision()},
           {"recall", s.recall()},
           {"wrong", s.wrong}};
    if (!s.category.empty()) j["category"] = s.category;
    return j;
}

} // namespace

int main(int argc, char** argv) {
    Options opt = parseOptions(argc, argv);
    std::ifstream in(opt.pairs, std::ios::binary);
    if (!in) usage("cannot read " + opt.pairs);
    std::stringstream text;
    text << in.rdbuf();
    std::vector<LabelledPair> pairs;
    try {
        pairs = parseLabelledPairs(text.str());
    } catch (const std::exception& e) {
        std::cerr << "engram_contradiction_bench: " << opt.pairs << ": " << e.what() << "\n";
        return 1;
    }

    auto scores = scoreRules(pairs);
    std::cout << "contradiction rules on " << opt.pairs << " (" << pairs.size() << " pairs)\n"
              << scoreTable(scores);

    // The cost of a check, two ways. Each labelled pair once: both texts new
    // to the check, so parsing them is paid. And as findings check an anchor
    // with 64 live claims (their cap): every claim against every other, each
    // text parsed once and compared 63 times. Each group is 64 texts not
    // timed before.
    using Clock = std::chrono::steady_clock;
    auto micros = [](Clock::time_point t0) {
        return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    };
    size_t found = 0;
    auto t0 = Clock::now();
    for (auto& pair : pairs)
        found += contradicts(pair.a, pair.b).has_value();
    double perPair = micros(t0) / double(pairs.size());

    std::vector<std::string> texts;
    std::set<std::string> seen;
    for (auto& pair : pairs)
        for (auto* t : {&pair.a, &pair.b})
            if (seen.insert(*t).second) texts.push_back(*t);
    constexpr size_t kGroup = 64;
    std::vector<double> groupMs;
    for (size_t g = 0; g + kGroup <= texts.size(); g += kGroup) {
        auto t1 = Clock::now();
        for (size_t x = g; x < g + kGroup; ++x)
            for (size_t y = x + 1; y < g + kGroup; ++y)
                found += contradicts(texts[x], texts[y]).has_value();
        groupMs.push_back(micros(t1) / 1000.0);
    }
    auto group = bench::summarize(groupMs);
    std::cout << "contradicts(): " << perPair << " us per labelled pair; an anchor with " << kGroup
              << " claims (" << kGroup * (kGroup - 1) / 2 << " pairs): p50 " << group.p50
              << " ms, max " << group.max << " ms over " << groupMs.size() << " groups\n";

    json out;
    out["pairs_file"] = opt.pairs;
    out["pairs"] = pairs.size();
    out["build"] = {{"engram_version", ENGRAM_VERSION},
                    {"bench_build_type", ENGRAM_BENCH_BUILD_TYPE}};
    out["min_precision"] = 0.95;
    json rows = json::array();
    for (auto& s : scores)
        rows.push_back(scoreJson(s));
    out["scores"] = rows;
    out["cost"] = {{"us_per_labelled_pair", perPair},
                   {"anchor_of_64_claims_ms", bench::toJson(group, groupMs)}};
    out["found_during_timing"] = found; // keeps the timed calls from being optimised away
    std::filesystem::path outPath(opt.out);
    if (outPath.has_parent_path()) std::filesystem::create_directories(outPath.parent_path());
    std::ofstream(opt.out) << out.dump(2) << "\n";
    std::cerr << "wrote " << opt.out << "\n";
    return 0;
}
