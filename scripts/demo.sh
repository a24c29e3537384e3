#!/usr/bin/env bash
# engram's main job on a sample workspace: record claims anchored to code,
# recall them, change the code, and watch memory notice.
#
# Works on a copy of fixtures/sample-workspace in a temporary directory, with
# a temporary ENGRAM_HOME, so it leaves nothing behind.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/build.sh" --target engram >/dev/null

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$here/fixtures/sample-workspace" "$work/ws"
cd "$work/ws"
git init -q .
export ENGRAM_HOME="$work/home" ENGRAM_AGENT="claude:demo"
engram() { "$here/build/engram" "$@"; }
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "An agent records what it learned, anchored to the code (lines 12-16 of src/auth.py)"
engram remember "TokenValidator.validate does not raise on expired tokens; it returns a result with ok=False, so callers must check .ok" \
    --label token-validator-silent --kind gotcha --confidence 0.9 --tag auth \
    --anchor src/auth.py:12-16 --evidence path:src/auth.py
engram remember "Database connections come from a pool of 10; release them with close()" \
    --label db-pool --kind fact --confidence 0.8 --anchor src/db.py
engram remember "Prefer small, reviewable pull requests" --kind preference --tier medulla

step "Later, another agent asks (in other words)"
engram recall "what happens when a token expires?"

step "The claim files are plain text, reviewed in pull requests like code"
cat .engram/claims/*.md | head -16

step "Re-indenting the code does not drift the claim"
sed -i 's/^        if token.expires_at/        if  token.expires_at/' src/auth.py
engram recall token expiry --limit 1 | head -3

step "Someone changes what validate does: the claim is flagged, not served as fresh"
sed -i 's/return ValidationResult(ok=False, reason="expired")/raise TokenExpired(token)/' src/auth.py
engram recall token expiry --limit 1 | head -3
rm src/db.py
engram status

step "A weaker rewrite of a confident claim is refused"
engram remember "pool is maybe 5" --label db-pool --confidence 0.3 || true

step "Secrets never enter memory"
engram remember "deploy token is ghp_$(printf 'a%.0s' {1..36})" || true
