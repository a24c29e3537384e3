#!/usr/bin/env bash
# Writes fixtures/digests/<language>.tsv: the digests of every definition in
# the fixtures' source files under this engram's digest rules
# (syntax::kDigestRules), which tests/unit/DigestsTest.cpp checks. Run it
# after bumping kDigestRules (a change to normalisation, names or which
# definitions there are), or after editing a fixture source file; it refuses
# to rewrite digests of unchanged files while the version stays the same.
# The test suite never runs it. Usage: scripts/update-digests.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target engram_unit_tests
ENGRAM_UPDATE_DIGESTS=1 ENGRAM_FIXTURES="$PWD/fixtures" \
    "$build/tests/engram_unit_tests" "[digests]"
git status --short fixtures/digests
