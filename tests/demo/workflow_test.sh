#!/usr/bin/env bash
# The documented GitHub Actions workflow (docs/engram-workflow.yml), its
# "engram check" step run as GitHub would run it, on real repositories: a
# pull request that changes code under an anchor fails and reports that
# claim only; one that does not passes with no results; a push checks all.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${ENGRAM_BINARY:?set ENGRAM_BINARY to the engram binary}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" ENGRAM_HOME="$work/engram-home"
mkdir -p "$HOME" "$work/bin"
ln -s "$ENGRAM_BINARY" "$work/bin/engram"
export PATH="$work/bin:$PATH"
export GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.invalid
export GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.invalid

# The step's commands: the `run: |` block under `- name: engram check`.
awk '
  /^ *- name: engram check$/ { step = 1; next }
  step && /^ *- / { exit }
  step && /^ *run: \|$/ { match($0, /^ */); indent = RLENGTH + 2; grab = 1; next }
  grab { print substr($0, indent + 1) }
' "$here/docs/engram-workflow.yml" >"$work/step.sh"
grep -q -- '--changed-since' "$work/step.sh" || { echo "FAIL: no check step found"; exit 1; }

# A repository with memory on main and two pull request branches.
seed="$work/seed"
cp -r "$here/fixtures/sample-workspace" "$seed"
git -C "$seed" init -q -b main
(
    cd "$seed"
    engram remember "connect opens a pooled connection" --label connect --anchor src/db.py#connect >/dev/null
    engram remember "validate returns ok=False on expiry" --label validate \
        --anchor src/auth.py#TokenValidator.validate >/dev/null
    git add -A && git commit -qm "memory"
    git checkout -q -b pr-db
    sed -i 's/    return {"url": url, "pool_size": pool_size}/    return {"url": url, "pool_size": pool_size, "ssl": True}/' src/db.py
    git commit -qam "pr: connect uses ssl"
    git checkout -q -b pr-docs main
    echo "More notes." >>README.md
    git commit -qam "pr: docs"
    git checkout -q main
)
git clone -q --bare "$seed" "$work/origin.git"

failed=0
# run_step NAME EVENT REF: a fresh checkout (fetch-depth 0) of REF, the step
# run with GitHub's variables; prints the exit code and the SARIF's claims.
run_step() {
    local ws="$work/ws-$1"
    git clone -q "$work/origin.git" "$ws"
    git -C "$ws" checkout -q "$3"
    set +e
    (cd "$ws" && GITHUB_WORKSPACE="$ws" GITHUB_EVENT_NAME="$2" GITHUB_BASE_REF=main \
        bash -e "$work/step.sh" >"$work/$1.out" 2>&1)
    local rc=$?
    set -e
    local labels
    labels="$(grep -o '"claimId": "c-[a-z0-9]*"' "$ws/engram.sarif" | sed 's/.*"\(c-[a-z0-9]*\)"/\1/' |
        while read -r id; do sed -n 's/^label: //p' "$ws/.engram/claims/$id.md"; done | sort -u | tr '\n' ' ' || true)"
    echo "$rc ${labels% }"
}
expect() {
    local got
    got="$(run_step "$1" "$2" "$3")"
    if [[ "$got" != "$4" ]]; then
        echo "FAIL: $1: got '$got', expected '$4'"
        cat "$work/$1.out"
        failed=1
    else
        echo "ok: $1: exit and claims '$got'"
    fi
}
expect pr-db pull_request pr-db "1 connect"
expect pr-docs pull_request pr-docs "0 "
expect push-db push pr-db "1 connect"
exit $failed
