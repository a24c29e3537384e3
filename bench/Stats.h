// Latency samples and their summary (p50, p95, max) for the benchmark report.
//
// Percentiles use the nearest-rank method on the sorted samples, with no
// interpolation and no outlier removal: a p95 over 30 runs is the 29th
// slowest run, and the max is the slowest one actually seen.
#pragma once
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace engram::bench {

struct Summary {
    size_t n = 0;
    double min = 0, p50 = 0, p95 = 0, max = 0, mean = 0;
};

inline double percentile(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    size_t rank = size_t(std::ceil(p * double(sorted.size())));
    return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

inline Summary summarize(std::vector<double> v) {
    Summary s;
    s.n = v.size();
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.min = v.front();
    s.max = v.back();
    s.p50 = percentile(v, 0.50);
    s.p95 = percentile(v, 0.95);
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
    return s;
}

inline nlohmann::json toJson(const Summary& s, const std::vector<double>& samples = {}) {
    nlohmann::json j{{"n", s.n},     {"min", s.min}, {"p50", s.p50},
                     {"p95", s.p95}, {"max", s.max}, {"mean", s.mean}};
    if (!samples.empty()) j["samples"] = samples;
    return j;
}

} // namespace engram::bench
