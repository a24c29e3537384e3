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

step "An agent records what it learned, anchored to the code it is about"
engram remember "TokenValidator.validate does not raise on expired tokens; it returns a result with ok=False, so callers must check .ok" \
    --label token-validator-silent --kind gotcha --confidence 0.9 --tag auth \
    --anchor src/auth.py#TokenValidator.validate --evidence path:src/auth.py
engram remember "Database connections come from a pool of 10; release them with close()" \
    --label db-pool --kind fact --confidence 0.8 --anchor src/db.py#connect
engram remember "retry gives up after three attempts and re-raises the last ConnectionError" \
    --label db-retry --kind fact --anchor src/db.py:13
engram remember "Prefer small, reviewable pull requests" --kind preference --tier medulla

step "Later, another agent asks (in other words)"
engram recall "what happens when a token expires?"

step "The claim files are plain text, reviewed in pull requests like code"
cat .engram/claims/*.md | head -16

step "A formatter pass and a new comment do not drift the claim"
sed -i -e 's/reason="expired"/reason='"'"'expired'"'"'/' -e 's/^        if token.expires_at < self.clock():/        # checked against the injected clock\n        if (token.expires_at < self.clock()):/' src/auth.py
engram recall token expiry --limit 1 | head -3

step "Someone changes what validate does: the claim is flagged, not served as fresh"
sed -i 's/return ValidationResult(ok=False, reason=.expired.)/raise TokenExpired(token)/' src/auth.py
engram recall token expiry --limit 1 | head -3

step "retry is renamed (same body): its claim is reported moved, not lost; connect is deleted"
sed -i 's/^def retry(/def with_retries(/' src/db.py
sed -i '/^def connect/,/^    return/d' src/db.py
engram status | tail -1
engram recall "retry attempts" --limit 1 | head -3

step "After checking the renamed function, a person re-verifies the claim"
engram reverify "$(engram --json recall "retry attempts" --limit 1 | sed -n 's/^ *"id": "\(c-[a-z0-9]*\)".*/\1/p' | head -1)" --note "still true after the rename" | head -2

step "A weaker rewrite of a confident claim is refused"
engram remember "pool is maybe 5" --label db-pool --confidence 0.3 || true

step "Secrets never enter memory"
engram remember "deploy token is ghp_$(printf 'a%.0s' {1..36})" || true
