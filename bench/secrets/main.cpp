// engram_secret_bench: the secret scan's cost per KiB on hostile and ordinary claim text.
//
// Invariant 6 scans every write, and a claim is input from someone else: a text built to make a
// backtracking engine or a careless scanner go quadratic must not stall a write. For each
// input (near misses for each rule repeated, random base64, ordinary prose) this times
// secrets::scan at 16 KiB (the largest claim text), 256 KiB and 1 MiB (the largest input the
// scanner accepts) and reports the median microseconds per KiB at each size. A linear scan
// keeps them close (the larger texts fall out of the CPU caches, which costs a small factor);
// a quadratic one would be 64 times slower per KiB at 1 MiB than at 16 KiB. Timings are
// reported, never asserted (the unit tests check the answers on the same kind of input).
#include "Stats.h"

#include "secrets/SecretScan.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#ifndef ENGRAM_BENCH_BUILD_TYPE
#define ENGRAM_BENCH_BUILD_TYPE "unknown"
#endif

using namespace engram;
using Clock = std::chrono::steady_clock;

namespace {

struct Input {
    std::string name;
    std::string unit; // repeated to the size
};

std::vector<Input> inputs() {
    std::mt19937 rng(7);
    const std::string b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string random;
    for (int i = 0; i < 4096; ++i)
        random += b64[rng() % b64.size()];
    std::string words;
    for (int i = 0; i < 4096; ++i)
        words += (i % 9 == 8) ? ' ' : b64[rng() % 62];
    return {
        {"prefix sk-", "sk-"},
        {"prefix sk- spaced", "sk- "},
        {"prefix ghp_", "ghp_"},
        {"prefix AKIA", "AKIA"},
        {"prefix xoxb-", "xoxb-"},
        {"jwt dots", "eyJ.eyJ."},
        {"op://", "op://"},
        {"password=", "password="},
        {"password=<", "password=<"},
        {"token=\"", "token=\""},
        {"merge <<<<<<<", "<<<<<<<"},
        {"pem BEGIN private", "-----BEGIN RSA PRIVATE KEY-----\n"},
        {"pem BEGIN labels", "-----BEGIN A PRIVATE KEY-----"},
        {"pem BEGIN public + armor", "-----BEGIN CERTIFICATE-----\nFoo: "},
        {"putty header", "PuTTY-User-Key-File-2: "},
        {"url https://a:", "https://a:"},
        {"url postgres://u:p", "postgres://u:p "},
        {"slack webhook path", "hooks.slack.com/services/"},
        {"telegram digits", "0123456789:AA"},
        {"low entropy aB3/", "aB3/"},
        {"random base64", random},
        {"random words", words},
        {"prose",
         "The deploy job reads its token from the vault; see "
         "https://ci.example.com/jobs/42 and commit 9fceb02d0ae598e95dc970b74767f19372d61af8. "},
    };
}

std::string repeated(const std::string& unit, std::size_t size) {
    std::string text;
    text.reserve(size);
    while (text.size() + unit.size() <= size)
        text += unit;
    return text;
}

// Microseconds of each of `runs` scans of text (after one warm-up scan).
std::vector<double> timeScan(const std::string& text, int runs) {
    volatile std::size_t sink = secrets::scan(text).size();
    std::vector<double> samples;
    for (int i = 0; i < runs; ++i) {
        const auto start = Clock::now();
        sink = sink + secrets::scan(text).size();
        samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    return samples;
}

std::string nowIso() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

} // namespace

int main(int argc, char** argv) {
    std::string out = "bench/results/secrets.json";
    int smallRuns = 31, largeRuns = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--out" && i + 1 < argc) {
            out = argv[++i];
        } else if (a == "--runs" && i + 1 < argc) {
            smallRuns = std::stoi(argv[++i]);
        } else {
            std::cerr << "usage: engram_secret_bench [--out FILE] [--runs N]\n";
            return 2;
        }
    }
    struct Size {
        const char* name;
        std::size_t bytes;
        int runs;
    };
    const Size sizes[] = {{"16KiB", 16 * 1024, smallRuns},
                          {"256KiB", 256 * 1024, largeRuns},
                          {"1MiB", 1024 * 1024, largeRuns}};

    nlohmann::json j;
    j["date"] = nowIso();
    j["build_type"] = ENGRAM_BENCH_BUILD_TYPE;
    j["rules"] = secrets::rules().size();
    j["method"] = "median of N scans after one warm-up, steady_clock; us_per_kib = median / KiB";
    j["runs"] = {{"16KiB", smallRuns}, {"256KiB", largeRuns}, {"1MiB", largeRuns}};
    std::printf("secret scan, %zu rules: median microseconds per KiB\n", secrets::rules().size());
    std::printf("%-26s %10s %10s %10s %8s\n", "input", "16 KiB", "256 KiB", "1 MiB", "ratio");
    double worstRatio = 0, worstPerKib = 0;
    for (const Input& in : inputs()) {
        nlohmann::json row{{"name", in.name}};
        double perKib[3] = {0, 0, 0};
        for (int s = 0; s < 3; ++s) {
            const std::string text = repeated(in.unit, sizes[s].bytes);
            const auto samples = timeScan(text, sizes[s].runs);
            const auto summary = bench::summarize(samples);
            perKib[s] = summary.p50 / (double(text.size()) / 1024.0);
            row[sizes[s].name] = bench::toJson(summary, samples);
            row[sizes[s].name]["us_per_kib"] = perKib[s];
        }
        const double ratio = perKib[2] / perKib[0];
        row["ratio_1MiB_to_16KiB"] = ratio;
        worstRatio = std::max(worstRatio, ratio);
        worstPerKib = std::max({worstPerKib, perKib[0], perKib[1], perKib[2]});
        j["inputs"].push_back(row);
        std::printf("%-26s %10.2f %10.2f %10.2f %8.2f\n", in.name.c_str(), perKib[0], perKib[1],
                    perKib[2], ratio);
    }
    j["worst_us_per_kib"] = worstPerKib;
    j["worst_ratio_1MiB_to_16KiB"] = worstRatio;
    std::printf("worst: %.2f us/KiB (a 16 KiB claim: %.2f ms), worst 1 MiB / 16 KiB ratio %.2f\n",
                worstPerKib, worstPerKib * 16 / 1000.0, worstRatio);

    const auto parent = std::filesystem::path(out).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    std::ofstream(out) << j.dump(2) << "\n";
    return 0;
}
