#!/usr/bin/env bash
# Builds engram, engram_bench, engram_secret_bench, engram_code_bench and
# engram_contradiction_bench in Release and runs the section-10 benchmarks:
# the store benchmarks, the secret scan, then the code benchmarks; then the
# contradiction rules' precision and recall on their labelled set.
#
# Why its own build directory (build-bench/) rather than build/: build/ is the
# developers' RelWithDebInfo tree, used by tests that may be running at the
# same moment; switching it to Release would rebuild everything under them
# and race with their builds. Benchmarks should measure what ships (-O3,
# NDEBUG), so they get a tree of their own (git-ignored, like build/).
#
# Arguments are passed to engram_bench (e.g. --sizes 10000 for a quick run,
# --keep to leave the generated stores in place); ENGRAM_CODE_BENCH_ARGS is
# passed to engram_code_bench (e.g. "--mb 10 --passes 1"). ENGRAM_BENCH_ONLY=
# store, git, agent, quality, secrets, code or contradictions runs one of them. Each prints its own
# table to stdout, progress to stderr; the store numbers go to
# bench/results/latest.json, the hot paths in git repositories
# (bench/git_hot_paths.py) to bench/results/git-hot-paths.json, the bytes
# per call of a scripted agent session (bench/agent_session.mjs) to
# bench/results/agent-session.json, recall's and the hook's quality on the
# labelled prompts (bench/recall_quality.py) to bench/results/recall-quality.json,
# the secret scan's cost per KiB on hostile input
# to bench/results/secrets.json, the code numbers (indexing throughput against
# raw tree-sitter and ctags, re-anchoring after an edit) to
# bench/results/code.json, the contradiction rules' scores to
# bench/results/contradictions.json, so no run rewrites another's results.
#
# The code benchmark compares against universal-ctags. When `ctags` is not on
# the PATH it is installed with apt-get (Debian's package is universal-ctags),
# as root or through sudo; if that is impossible the benchmark reports "ctags
# unavailable" and runs the rest.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=${ENGRAM_BENCH_BUILD_DIR:-$top/build-bench}
only=${ENGRAM_BENCH_ONLY:-}

mkdir -p "$build" "$here/results"

started=$(date +%s)
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release >"$build/cmake.log" 2>&1 ||
    { cat "$build/cmake.log" >&2; exit 1; }
targets="engram engram_bench engram_secret_bench engram_code_bench engram_contradiction_bench"
[ "$only" = contradictions ] && targets=engram_contradiction_bench
[ "$only" = secrets ] && targets=engram_secret_bench
# shellcheck disable=SC2086 # $targets is a list of words
make -C "$build" -j"$(nproc)" $targets >"$build/make.log" 2>&1 ||
    { tail -n 60 "$build/make.log" >&2; exit 1; }
echo "build: $(($(date +%s) - started)) s (Release, $build)" >&2

if [ "$only" = contradictions ]; then
    "$build/bench/engram_contradiction_bench" --out "$here/results/contradictions.json"
    exit 0
fi
if [ -z "$only" ] || [ "$only" = store ]; then
    "$build/bench/engram_bench" --engram "$build/engram" \
        --out "$here/results/latest.json" "$@"
fi
# The hot paths where users run them: stores in git repositories.
if [ -z "$only" ] || [ "$only" = git ]; then
    echo >&2
    python3 "$here/git_hot_paths.py" --engram "$build/engram"
fi
[ "$only" = git ] && exit 0
# What an agent session costs in context, in bytes per call (needs the MCP
# SDK client of tests/mcp and python3-requests: scripts/setup.sh --tests).
if [ -z "$only" ] || [ "$only" = agent ]; then
    echo >&2
    ENGRAM_BINARY="$build/engram" node "$here/agent_session.mjs" \
        --out "$here/results/agent-session.json"
fi
[ "$only" = agent ] && exit 0
# Recall and the hook on the labelled prompts of bench/recall/ (quality, not
# time: MRR@10 against BM25, the hook's hits, noise and bytes per session).
if [ -z "$only" ] || [ "$only" = quality ]; then
    echo >&2
    python3 "$here/recall_quality.py" --engram "$build/engram" \
        --out "$here/results/recall-quality.json"
fi
[ "$only" = quality ] && exit 0
if [ -z "$only" ] || [ "$only" = secrets ]; then
    echo >&2
    "$build/bench/engram_secret_bench" --out "$here/results/secrets.json"
fi
[ -n "$only" ] && [ "$only" != code ] && exit 0

# universal-ctags, installed once when missing (idempotent: skipped when
# present). Failure to install is not fatal.
if ! command -v ctags >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            sudo="sudo -n"
        else
            sudo="none"
        fi
    fi
    if [ "$sudo" != none ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing universal-ctags with apt-get" >&2
        { $sudo apt-get install -y --no-install-recommends universal-ctags ||
            { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends \
                universal-ctags; }; } >"$build/apt-ctags.log" 2>&1 ||
            echo "could not install universal-ctags (see $build/apt-ctags.log)" >&2
    else
        echo "ctags missing and apt-get cannot be run here: ctags unavailable" >&2
    fi
fi

echo >&2
# shellcheck disable=SC2086 # ENGRAM_CODE_BENCH_ARGS is a list of words
"$build/bench/engram_code_bench" --out "$here/results/code.json" ${ENGRAM_CODE_BENCH_ARGS:-}
[ "$only" = code ] && exit 0

echo >&2
"$build/bench/engram_contradiction_bench" --out "$here/results/contradictions.json"
