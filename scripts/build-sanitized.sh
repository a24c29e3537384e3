#!/usr/bin/env bash
# Builds build-san/: engram, its unit tests and the fuzz targets with clang
# under AddressSanitizer and UndefinedBehaviorSanitizer (ENGRAM_SANITIZE).
# scripts/test.sh runs the unit, end-to-end and MCP SDK suites against it;
# scripts/fuzz.sh runs the fuzz targets. Needs what scripts/setup.sh --tests
# installs (clang and its runtime libraries).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$here/build-san"
cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DENGRAM_SANITIZE=ON >/dev/null
cmake --build "$dir" -j "$(nproc)" --target engram engram_unit_tests engram_fuzz "$@"
