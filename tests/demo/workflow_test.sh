#!/usr/bin/env bash
# The GitHub Action the documented workflow uses (editors/github/action.yml),
# its steps run as GitHub runs them (tests/demo/action_steps.py) on real
# repositories: a pull request that changes code under an anchor fails and
# reports that claim only; one that does not passes with no results; a push
# checks all. One run goes through every step, the install step finding
# the package tests/package/package_test.sh built in the Actions cache's
# place and unpacking it into a scratch root (install-root: nothing is
# installed on the system); the others leave the install step out, with
# ENGRAM_BINARY on PATH as that step leaves engram.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${ENGRAM_BINARY:?set ENGRAM_BINARY to the engram binary}"
: "${ENGRAM_BUILD_DIR:?set ENGRAM_BUILD_DIR to the build directory (its packages/)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" ENGRAM_HOME="$work/engram-home"
mkdir -p "$HOME" "$work/bin"
ln -s "$ENGRAM_BINARY" "$work/bin/engram"
export PATH="$work/bin:$PATH"
export GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.invalid
export GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.invalid

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
# run_step NAME EVENT REF: a fresh checkout (fetch-depth 0) of REF, the
# action's steps run with GitHub's variables; prints the job's exit code and
# the SARIF's claims.
run_step() {
    local ws="$work/ws-$1"
    git clone -q "$work/origin.git" "$ws"
    git -C "$ws" checkout -q "$3"
    set +e
    (cd "$ws" && GITHUB_WORKSPACE="$ws" GITHUB_EVENT_NAME="$2" GITHUB_BASE_REF=main \
        python3 "$here/tests/demo/action_steps.py" "$here/editors/github" --skip install \
        "${@:4}" >"$work/$1.out" 2>&1)
    local rc=$?
    set -e
    local labels
    labels="$(grep -o '"claimId": "c-[a-z0-9]*"' "$ws/engram.sarif" | sed 's/.*"\(c-[a-z0-9]*\)"/\1/' |
        while read -r id; do sed -n 's/^label: //p' "$ws/.engram/claims/$id.md"; done | sort -u | tr '\n' ' ' || true)"
    echo "$rc ${labels% }"
}
# expect NAME EVENT REF EXPECTED [--input NAME=VALUE...]
expect() {
    local got
    got="$(run_step "$1" "$2" "$3" "${@:5}")"
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

# Every step, as on a runner whose cache holds the package: the key is
# computed, the package found where the cache puts it and unpacked, and
# the unpacked engram (not ENGRAM_BINARY) checks the pull request.
deb="$(ls "$ENGRAM_BUILD_DIR"/packages/engram_*.deb | head -n 1)"
temp="$work/runner-temp"
mkdir -p "$temp/engram-package"
cp "$deb" "$temp/engram-package/"
ws="$work/ws-full"
git clone -q "$work/origin.git" "$ws"
git -C "$ws" checkout -q pr-db
set +e
(cd "$ws" && PATH="$(dirname "$(command -v python3)"):/usr/bin:/bin" GITHUB_WORKSPACE="$ws" \
    GITHUB_EVENT_NAME=pull_request GITHUB_BASE_REF=main \
    python3 "$here/tests/demo/action_steps.py" "$here/editors/github" \
    --runner-temp "$temp" --input install-root="$work/root" >"$work/full.out" 2>&1)
rc=$?
set -e
if [[ $rc != 1 ]] || ! grep -q "^key: exit 0" "$work/full.out" ||
    ! grep -q "^install: exit 0" "$work/full.out" || ! [[ -x "$work/root/usr/bin/engram" ]] ||
    ! grep -q '"claimId"' "$ws/engram.sarif"; then
    echo "FAIL: every step with the cached package: exit $rc"
    cat "$work/full.out"
    failed=1
else
    echo "ok: every step with the cached package: installed $(grep '^engram [0-9]' "$work/full.out")"
fi
# The action's inputs reach engram check: nothing fails the job, the SARIF
# still names the claim.
expect pr-db-none pull_request pr-db "0 connect" --input fail-on=none
exit $failed
