#!/usr/bin/env bash
# The README's first command, as a test: scripts/demo.sh must exit 0 and
# every step must show what it says it shows. Runs the demo against the
# binary CTest built (ENGRAM_BINARY), and fails naming the first expectation
# the output does not meet.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${ENGRAM_BINARY:?set ENGRAM_BINARY to the engram binary}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
# stderr too: the refusals are part of what the demo shows. No colours.
ENGRAM_BINARY="$ENGRAM_BINARY" bash "$here/scripts/demo.sh" >"$out" 2>&1 </dev/null
rc=$?
sed -i 's/\x1b\[[0-9;]*m//g' "$out"
if [[ $rc -ne 0 ]]; then
    cat "$out"
    echo "FAIL: scripts/demo.sh exited $rc"
    exit 1
fi
failed=0
expect() { # expect DESCRIPTION FIXED-STRING...: each string appears in the output
    local what="$1"
    shift
    for s in "$@"; do
        if ! grep -qF -- "$s" "$out"; then
            echo "FAIL: $what: no line contains: $s"
            failed=1
        fi
    done
}
expect_count() { # expect_count DESCRIPTION N PATTERN: N lines match the regex
    local n
    n="$(grep -cE -- "$3" "$out")"
    if [[ "$n" != "$2" ]]; then
        echo "FAIL: $1: $n lines match /$3/, expected $2"
        failed=1
    fi
}
expect_count "every step ran" 12 '^== '
expect "claims recorded" "Remembered: [gotcha] token-validator-silent" "Remembered: [fact] db-pool" \
    "Remembered: [fact] db-retry" "Remembered: [preference]"
expect "recall in other words finds the gotcha" "1. [gotcha] token-validator-silent" \
    "matched 'expir' in text"
expect "the claim file is plain text" "label: token-validator-silent" \
    "anchor: path=src/auth.py symbol=TokenValidator.validate"
# The gotcha is intact when first recalled and after the formatter pass.
expect_count "formatting leaves the claim intact" 2 '^   project · anchor intact'
expect "a changed function drifts its claim" "project · anchor drifted"
expect "a renamed function moves its claim" "project · anchor moved"
expect "re-verification is recorded" "Re-verified: [fact] db-retry" "anchor intact · file"
expect "a downgrade is refused" "WouldDowngrade: claim 'db-pool'"
expect "a secret is refused" "SecretDetected: text: looks like a GitHub personal access token"
expect "engram init registers the merge driver" "wrote git config merge.engram.driver"
expect_count "both teammates superseded db-pool" 2 '^Superseded v1 with v2: \[fact\] db-pool'
expect "the merge left nothing unmerged" "merged: 0 files left unmerged"
expect "both versions are served" "The connection pool holds 12 connections per worker" \
    "also kept by the merge, v2" "The connection pool holds 20 connections since March" \
    "DIVERGED"
expect "check reports the divergence and the collision" \
    "conflict: two branches changed this claim" 'on label retries ("retries are 3" against "retries are 5")'
expect_count "one finding per side of the label collision" 2 'contradicts claim "retries"'
expect "a write to the shared label is refused" "LabelCollision: label 'retries' is held by 2 live claims"
expect "resolving writes a new version" "Resolved: [fact] db-pool" "v3, committed"
expect "the collision is settled by a retraction" "Retracted: [fact] retries"
expect_count "no conflict is left" 0 'engram\.conflict\)'
expect "check ends clean of conflicts" "0 match --fail-on none (exit 0)"
if [[ $failed -ne 0 ]]; then
    echo "--- demo output ---"
    cat "$out"
    exit 1
fi
echo "demo: $(grep -c '^== ' "$out") steps, every expectation met"
