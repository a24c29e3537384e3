#!/usr/bin/env bash
# Builds engram and engram_bench in Release and runs the section-10 benchmarks.
#
# Why its own build directory (build-bench/) rather than build/: build/ is the
# developers' RelWithDebInfo tree, used by tests that may be running at the
# same moment; switching it to Release would rebuild everything under them
# and race with their builds. Benchmarks should measure what ships (-O3,
# NDEBUG), so they get a tree of their own (git-ignored, like build/).
#
# Arguments are passed to engram_bench (e.g. --sizes 10000 for a quick run,
# --keep to leave the generated stores in place). The table goes to stdout,
# progress to stderr, all numbers to bench/results/latest.json.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=${ENGRAM_BENCH_BUILD_DIR:-$top/build-bench}

mkdir -p "$build" "$here/results"

started=$(date +%s)
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release >"$build/cmake.log" 2>&1 ||
    { cat "$build/cmake.log" >&2; exit 1; }
make -C "$build" -j"$(nproc)" engram engram_bench >"$build/make.log" 2>&1 ||
    { tail -n 60 "$build/make.log" >&2; exit 1; }
echo "build: $(($(date +%s) - started)) s (Release, $build)" >&2

exec "$build/bench/engram_bench" --engram "$build/engram" \
    --out "$here/results/latest.json" "$@"
