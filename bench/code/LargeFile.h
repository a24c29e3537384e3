// The 5,000-line files the re-anchoring benchmark edits.
//
// Re-anchoring cost grows with the file (the incremental re-parse is cheap,
// but symbols are re-extracted from the whole tree and every anchor check
// looks at the whole file), so the aim names a size: 5,000 lines. The files
// are dense with definitions, as real large files are: free functions and
// classes with methods, each body holding an integer literal the benchmark
// edits (`total = 1`), so an edit always lands inside a function body.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace engram::bench {

struct LargeFile {
    std::string language; // python | cpp
    std::string name;     // big.py, big.cpp
    std::string text;     // exactly `lines` lines
    size_t lines = 0;
    // Byte offsets of the literal `1` in each body's `total = 1`.
    std::vector<uint32_t> editOffsets;
};

LargeFile largePython(size_t lines);
LargeFile largeCpp(size_t lines);

} // namespace engram::bench
