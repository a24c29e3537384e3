#!/usr/bin/env bash
# The whole test suite from a clean clone: install dependencies (those of
# the tests too), build, check formatting, run every test through CTest.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
scripts/setup.sh --tests
scripts/build.sh
scripts/check-format.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 300
