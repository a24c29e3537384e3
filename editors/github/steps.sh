#!/usr/bin/env bash
# The steps of the engram GitHub Action (action.yml), one per argument:
#   key      the cache key of the package built from these sources
#   install  engram from ENGRAM_PACKAGE, else from a package in
#            ENGRAM_PACKAGE_DIR (the cache), else built from these sources
#            into it; with apt, or unpacked under ENGRAM_INSTALL_ROOT
#   check    engram check: SARIF to ENGRAM_SARIF, the findings in the log;
#            on pull requests only what changed since the base branch
#   result   fails the job with check's exit code, once SARIF is uploaded
# tests/demo/workflow_test.sh runs them as GitHub does, from action.yml.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(cd "$here/../.." && pwd)"
out="${GITHUB_OUTPUT:-/dev/null}"
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo

case "${1:-}" in
key)
    # What the package is built from: the sources, not the action's tag
    # (a moved tag builds anew).
    sum="$(cd "$src" && find CMakeLists.txt server protocol scripts editors/nvim \
        package-lock.json -type f -print0 | LC_ALL=C sort -z | xargs -0 cat | sha256sum | cut -c1-16)"
    echo "key=engram-package-$(uname -m)-$sum" >>"$out"
    ;;
install)
    deb="${ENGRAM_PACKAGE:-}"
    if [ -z "$deb" ]; then
        dir="${ENGRAM_PACKAGE_DIR:?}"
        deb="$(ls "$dir"/engram_*.deb 2>/dev/null | head -n 1 || true)"
        if [ -z "$deb" ]; then
            echo "engram: no cached package; building one from $src"
            ENGRAM_BUILD_DIR="${RUNNER_TEMP:-/tmp}/engram-build" "$src/scripts/package.sh" >/dev/null
            mkdir -p "$dir"
            cp "${RUNNER_TEMP:-/tmp}"/engram-build/packages/engram_*.deb "$dir/"
            deb="$(ls "$dir"/engram_*.deb | head -n 1)"
        fi
    fi
    [ -f "$deb" ] || { echo "engram: no package at '$deb'" >&2; exit 1; }
    case "$deb" in /*) ;; *) deb="$PWD/$deb" ;; esac
    if [ -n "${ENGRAM_INSTALL_ROOT:-}" ]; then
        dpkg-deb -x "$deb" "$ENGRAM_INSTALL_ROOT"
        echo "$ENGRAM_INSTALL_ROOT/usr/bin" >>"${GITHUB_PATH:-/dev/null}"
        "$ENGRAM_INSTALL_ROOT/usr/bin/engram" --version
        exit 0
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
    engram --version
    ;;
check)
    root="${ENGRAM_ROOT:-.}"
    sarif="${ENGRAM_SARIF:-engram.sarif}"
    since="${ENGRAM_CHANGED_SINCE:-}"
    if [ -z "$since" ] && [ "${GITHUB_EVENT_NAME:-}" = pull_request ]; then
        since="origin/${GITHUB_BASE_REF:?}"
    fi
    # The checkout belongs to another user inside a container.
    git config --global --add safe.directory "$(cd "$root" && pwd)"
    args=(--root "$root" check)
    [ -z "$since" ] || args+=(--changed-since "$since")
    [ -z "${ENGRAM_FAIL_ON:-}" ] || args+=(--fail-on "$ENGRAM_FAIL_ON")
    rc=0
    engram "${args[@]}" --format sarif >"$sarif" || rc=$?
    # The same findings, for people reading the log.
    engram "${args[@]}" || true
    echo "sarif=$sarif" >>"$out"
    echo "exit-code=$rc" >>"$out"
    ;;
result)
    rc="${ENGRAM_EXIT_CODE:-2}"
    [ "$rc" = 0 ] || echo "engram check: exit $rc (the findings are above, and in code scanning)"
    exit "$rc"
    ;;
*)
    echo "usage: $0 key|install|check|result" >&2
    exit 2
    ;;
esac
