#!/usr/bin/env bash
# The whole test suite from a clean clone: install dependencies (those of
# the tests too), build (and build again under ASan and UBSan), check
# formatting, run every test through CTest: the end-to-end and MCP SDK suites
# also against the sanitized build, the unit tests there alone (a test per
# case), and a short run of each fuzz target.
#
# With --vscode, also the VS Code extension inside a real VS Code
# (editors/vscode/scripts/real.sh: code-server and Chromium; a few minutes to
# set up the first time, so only when asked). Run it for every change to
# editors/vscode.
set -euo pipefail
vscode=0
case "${1:-}" in
    "") ;;
    --vscode) vscode=1 ;;
    *)
        echo "usage: $0 [--vscode]" >&2
        exit 2
        ;;
esac
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
# Each phase's wall time, on standard error, so a slow run (CI's included)
# says where its minutes went.
phase_start=$SECONDS
phase() {
    echo "test.sh: $1 took $((SECONDS - phase_start)) s" >&2
    phase_start=$SECONDS
}
scripts/setup.sh --tests
phase "setting up"
# The two builds at once: each leaves a core idle in its serial stretches
# (configuring, linking), which the other fills. The sanitized one's
# output is kept and shown only if it fails. The normal build's tests also
# run against the sanitized one (ENGRAM_SANITIZED_DIR, tests/CMakeLists.txt),
# so that is configured first: the end-to-end tests are listed against it
# when their binary is built.
cmake -S . -B build -DENGRAM_SANITIZED_DIR="$here/build-san" >/dev/null
san_log="$(mktemp)"
san=""
# A failed normal build does not leave the other running on its own.
trap '[ -z "$san" ] || kill "$san" 2>/dev/null; rm -f "$san_log"' EXIT
scripts/build-sanitized.sh >"$san_log" 2>&1 &
san=$!
scripts/build.sh
if ! wait "$san"; then
    san=""
    cat "$san_log" >&2
    echo "test.sh: the sanitized build failed" >&2
    exit 1
fi
san=""
# Configured again now that the sanitized build exists: its fuzz targets are
# listed by running it. Nothing is compiled again.
cmake -S . -B build >/dev/null
phase "building both trees"
scripts/check-format.sh
phase "checking formatting"
# Twice as many tests as cores: most of them spend their time waiting on
# the engram processes they drive, on pipes and on git, so with one test per
# core the cores sit idle a third of the time (ctest took 356 s at -j2 and
# 281 s at -j4 on 2 cores).
ctest --test-dir build --output-on-failure -j "$(($(nproc) * 2))" --timeout 300
phase "running the tests"
if ((vscode)); then
    ENGRAM_BINARY="$here/build/engram" editors/vscode/scripts/real.sh
    phase "running the extension in VS Code"
fi
