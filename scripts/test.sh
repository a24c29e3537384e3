#!/usr/bin/env bash
# The whole test suite from a clean clone: install dependencies (those of
# the tests too), build (and build again under ASan and UBSan), check
# formatting, run every test through CTest: the unit, end-to-end and MCP SDK
# suites also against the sanitized build, and a short run of each fuzz target.
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
scripts/setup.sh --tests
# The sanitized build first: the normal build's tests are configured to run
# against it too (ENGRAM_SANITIZED_DIR, tests/CMakeLists.txt).
scripts/build-sanitized.sh
cmake -S . -B build -DENGRAM_SANITIZED_DIR="$here/build-san" >/dev/null
scripts/build.sh
scripts/check-format.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 300
if ((vscode)); then
    ENGRAM_BINARY="$here/build/engram" editors/vscode/scripts/real.sh
fi
