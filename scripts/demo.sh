#!/usr/bin/env bash
# engram's main job on a sample workspace: record claims anchored to code,
# recall them, change the code, and watch memory notice.
#
# Works on a copy of fixtures/sample-workspace in a temporary directory, with
# a temporary ENGRAM_HOME, so it leaves nothing behind.
#
# Every pipe below ends in a reader that consumes all of its input (sed -n),
# never in `head`: under pipefail, a writer cut off by head dies of SIGPIPE
# and the demo would fail depending on timing. The test suite runs this
# script (tests/demo) with ENGRAM_BINARY set to the binary it built.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${ENGRAM_BINARY:-}"
if [[ -z "$bin" ]]; then
    # Said first: the first run installs packages and compiles for minutes.
    if [[ ! -x "$here/build/engram" ]]; then
        echo "Building engram first (installing what it needs, then compiling: about" \
            "three minutes on two cores, once)..."
    fi
    "$here/scripts/build.sh" --target engram >/dev/null
    bin="$here/build/engram"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$here/fixtures/sample-workspace" "$work/ws"
cd "$work/ws"
# Commits need an author; the demo's own, whatever the machine's git says.
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.invalid
export GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.invalid
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
git init -q -b main .
export ENGRAM_HOME="$work/home" ENGRAM_AGENT="claude:demo"
engram() { "$bin" "$@"; }
first() { sed -n "1,${1}p"; } # the first N lines, reading everything
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
cat "$(grep -l '^label: token-validator-silent' .engram/claims/*.md)"

step "A formatter pass and a new comment do not drift the claim"
sed -i -e 's/reason="expired"/reason='"'"'expired'"'"'/' -e 's/^        if token.expires_at < self.clock():/        # checked against the injected clock\n        if (token.expires_at < self.clock()):/' src/auth.py
engram recall token expiry --limit 1 | first 3

step "Someone changes what validate does: the claim is flagged, not served as fresh"
sed -i 's/return ValidationResult(ok=False, reason=.expired.)/raise TokenExpired(token)/' src/auth.py
engram recall token expiry --limit 1 | first 3

step "retry is renamed (same body): its claim is reported moved, not lost; connect is deleted"
sed -i 's/^def retry(/def with_retries(/' src/db.py
sed -i '/^def connect/,/^    return/d' src/db.py
engram status | sed -n '$p'
engram recall "retry attempts" --limit 1 | first 3

step "After checking the renamed function, a person re-verifies the claim"
engram reverify "$(engram --json recall "retry attempts" --limit 1 | sed -n 's/^ *"id": "\(c-[a-z0-9]*\)".*/\1/p' | first 1)" --note "still true after the rename" | first 2

step "A weaker rewrite of a confident claim is refused"
engram remember "pool is maybe 5" --label db-pool --confidence 0.3 || true

step "Secrets never enter memory"
engram remember "deploy token is ghp_$(printf 'a%.0s' {1..36})" || true

step "A team shares memory through git: two clones remember on parallel branches"
git add -A && git commit -qm "sample workspace with memory"
git clone -q --bare . "$work/origin.git"
git clone -q "$work/origin.git" "$work/ana"
git clone -q "$work/origin.git" "$work/ben"
# Each teammate runs `engram init` once per clone: it registers engram's merge
# driver for claim files in that clone's git config.
(cd "$work/ana" && ENGRAM_HOME="$work/home-ana" engram init | first 2)
(cd "$work/ben" && ENGRAM_HOME="$work/home-ben" engram init >/dev/null)
(
    cd "$work/ana" && export ENGRAM_HOME="$work/home-ana" ENGRAM_AGENT="human:ana"
    engram remember "The connection pool holds 12 connections per worker" --label db-pool --confidence 0.9
    engram remember "retries are 3 for idempotent calls" --label retries
    git add -A && git commit -qm "ana: pool size, retries" && git push -q origin main
)
(
    cd "$work/ben" && export ENGRAM_HOME="$work/home-ben" ENGRAM_AGENT="human:ben"
    engram remember "The connection pool holds 20 connections since March" --label db-pool --confidence 0.9
    engram remember "retries are 5 for every call" --label retries
    git add -A && git commit -qm "ben: pool size, retries"
    # The merge: both sides changed the db-pool claim file.
    git pull -q --no-rebase --no-edit origin main
    echo "merged: $(git status --porcelain | wc -l) files left unmerged"
)

step "Nothing was lost: both versions of db-pool are served, flagged, and the shared label is a conflict"
cd "$work/ben"
export ENGRAM_HOME="$work/home-ben" ENGRAM_AGENT="human:ben"
engram recall "connection pool" --limit 1
engram check --fail-on none | sed -n 's/^[^ ]*: warning: engram.conflict: \(conflict: [^;]*\);.*/\1/p'
engram remember "retries are 4" --label retries || true

step "A person checks the code and resolves both"
pool="$(engram --json recall "connection pool" --limit 1 | sed -n 's/^ *"id": "\(c-[a-z0-9]*\)".*/\1/p' | first 1)"
engram resolve "$pool" | first 1
engram retract "$(engram --json recall "retries are 3" --limit 1 | sed -n 's/^ *"id": "\(c-[a-z0-9]*\)".*/\1/p' | first 1)" --reason "5 since the client change" | first 1
engram check --fail-on none | sed -n '$p'
