// A generated multi-language source tree for the code-indexing benchmark.
//
// Indexing throughput depends on what is parsed: grammar, file size, how much
// of a file is definitions. The tree is therefore built from the project's own
// per-language fixtures (fixtures/languages/<lang>/), the code the symbol
// extractor is tested against, replicated until it reaches the requested size.
// Each file concatenates a random number of fixture copies (either variant,
// original or reformatted), and every copy renames the fixture's definitions
// and constants with a copy-unique suffix, so no two files are alike and no
// file defines a name twice. Only the first copy keeps the file header
// (package clause, imports, includes, module docstring), which keeps Go and
// Java files well-formed and JavaScript free of duplicate imports. The seed
// makes the tree identical from run to run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace engram::bench {

struct SourceFile {
    std::string path;     // absolute
    std::string language; // engram's language name
    std::string text;
};

struct Corpus {
    std::vector<SourceFile> files;
    size_t bytes = 0;
    size_t lines = 0;
    size_t copies = 0; // fixture copies across all files
    double seconds = 0;
    // Per language: files, bytes.
    std::vector<std::pair<std::string, std::pair<size_t, size_t>>> perLanguage;
};

// Writes the tree under `dir` (created) and keeps every file's text in
// memory. `targetBytes` is split evenly across the nine languages.
Corpus generateCorpus(const std::string& fixturesDir, const std::string& dir, size_t targetBytes,
                      uint64_t seed);

} // namespace engram::bench
