#!/usr/bin/env bash
# The whole test suite from a clean clone: install dependencies (those of
# the tests too), build (and build again under ASan and UBSan), check
# formatting, run every test through CTest: the unit, end-to-end and MCP SDK
# suites also against the sanitized build, and a short run of each fuzz target.
set -euo pipefail
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
