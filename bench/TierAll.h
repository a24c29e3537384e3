// The tier-all recall benchmark: one machine with many registered project
// stores, recall fanned out over all of them (invariant 18).
#pragma once
#include "Synth.h"

#include <nlohmann/json.hpp>
#include <string>

namespace engram::bench {

// Generates `stores` project stores of `claims` claims each under `dir`,
// registers them in one ENGRAM_HOME, and times recall from the first with
// tier all against the same queries with the default scope (project +
// medulla). Returns the numbers for the results file.
nlohmann::json tierAllBench(const std::string& dir, const Vocabulary& vocab, uint64_t seed,
                            size_t stores, size_t claims);

} // namespace engram::bench
