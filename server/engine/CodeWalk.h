// The walk that fills the code index (engine/CodeWalk.cpp). Private to
// engine/: the Engine runs it on the calling thread (the CLI) or on a thread
// of its own (a server's start-up, Engine::CodeWalker).
#pragma once
#include "index/Index.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace engram {

struct CodeIndexReport {
    size_t files = 0;       // source files in the workspace
    size_t parsed = 0;      // of which new or changed, so parsed
    size_t removed = 0;     // indexed files that are gone
    size_t symbols = 0;     // definitions found in the parsed files
    int64_t bytes = 0;      // bytes parsed
    size_t skippedDirs = 0; // directories too deep (or paths too long) to enter
    std::string error;      // the walk stopped part-way: nothing was removed
};

// Walks the workspace at `root` and brings `index`'s code files up to date:
// new and changed files parsed, gone ones dropped. What it reads is the root
// and the index it is handed, so it may run on any thread with a connection
// of its own. With `cancel` set part-way, what was written stays (each
// file's rows are whole) and nothing is dropped. `progress` (may be empty)
// hears (files written, files to write).
CodeIndexReport walkCode(const std::string& root, Index& index,
                         const std::function<void(size_t, size_t)>& progress,
                         const std::atomic<bool>* cancel);

// The index fact naming the digest rules its code files were parsed by: a
// walk under other rules parses every file again.
inline constexpr const char* kCodeRulesFact = "code_index_rules";

} // namespace engram
