#!/usr/bin/env bash
# Runs the libFuzzer targets (tests/fuzz/Fuzz.cpp) under ASan and UBSan.
#
#   scripts/fuzz.sh [--runs N] [--jobs J] [--fresh] [TARGET...]
#
# Each target starts from its seeds (fixtures/fuzz/<target>/) and a working
# corpus kept in build-san/fuzz/corpus/<target>/ (--fresh: a new empty one,
# as the test suite's short runs use, so they do the same work every time).
# --runs is the number of executions per target (default 10,000,000); --jobs
# how many targets run at once (default 1). A crash, a leak, a timeout or a
# broken property stops that target and leaves its input in
# build-san/fuzz/artifacts/<target>/; add it to the target's seeds as
# regression-<what> with a test of its own. Prints, and writes to
# build-san/fuzz/results.txt, each target's executions and outcome.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=10000000 jobs=1 fresh=0 targets=()
while (($#)); do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --fresh) fresh=1; shift ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
fuzz="${ENGRAM_FUZZ_BINARY:-$here/build-san/tests/fuzz/engram_fuzz}"
if [ -z "${ENGRAM_FUZZ_BINARY:-}" ]; then "$here/scripts/build-sanitized.sh" >/dev/null; fi
out="$here/build-san/fuzz"
mkdir -p "$out"
((${#targets[@]})) || mapfile -t targets < <(ENGRAM_FUZZ_TARGET=list "$fuzz")

one() {
    local t="$1" corpus art log
    art="$out/artifacts/$t" log="$out/$t.log"
    if ((fresh)); then corpus="$(mktemp -d)"; else corpus="$out/corpus/$t"; fi
    mkdir -p "$corpus" "$art"
    local seeds="$here/fixtures/fuzz/$t"
    [ -d "$seeds" ] || seeds=""
    local rc=0
    ENGRAM_FUZZ_TARGET="$t" "$fuzz" -runs="$runs" -max_len=4096 -timeout=20 -rss_limit_mb=2560 \
        -seed=1 -print_final_stats=1 -artifact_prefix="$art/" "$corpus" $seeds >"$log" 2>&1 || rc=$?
    ((fresh)) && rm -rf "$corpus"
    local done
    done="$(grep -oE '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1 || true)"
    if ((rc == 0)); then
        printf '%-22s ok      %s\n' "$t" "${done:-?}"
    else
        printf '%-22s FAILED  exit %d, see %s\n' "$t" "$rc" "$log"
        grep -E 'ERROR|property broken|runtime error' "$log" | head -3 | sed 's/^/    /'
    fi
    return "$rc"
}
export -f one
export here fuzz out runs fresh

status=0
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {} \
    | tee "$out/results.txt" || status=1
exit "$status"
