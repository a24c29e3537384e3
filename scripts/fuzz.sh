#!/usr/bin/env bash
# Runs the libFuzzer targets (tests/fuzz/Fuzz.cpp) under ASan and UBSan.
#
#   scripts/fuzz.sh [--runs N] [--jobs J] [--fresh] [TARGET...]
#   scripts/fuzz.sh --until-done [--runs PART] [--jobs J] [TARGET...]
#   scripts/fuzz.sh --status [TARGET...]
#
# Each target starts from its seeds (fixtures/fuzz/<target>/) and a working
# corpus kept in build-san/fuzz/corpus/<target>/ (--fresh: a new empty one,
# as the test suite's short runs use, so they do the same work every time).
# --runs is the number of executions per target (default 1,000,000 for the
# symbol-extraction targets, 10,000,000 for the others); --jobs how many
# targets run at once (default 1). The campaign runs without leak checks
# (each input that ends with more allocations than frees would be run again
# under LeakSanitizer); the corpus it leaves, seeds included, is then run
# once more with them. A crash, a leak, a timeout or a broken property stops
# that target and leaves its input in build-san/fuzz/artifacts/<target>/;
# add it to the target's seeds as regression-<what> with a test of its own.
# Prints, and writes to build-san/fuzz/results.txt, each target's executions
# and outcome; a run on the kept corpus also records them, with the rate,
# in bench/results/fuzz.json, and the clean executions of the same code
# summed over its runs (a campaign may run in parts: --runs 100000 at a time).
# --until-done runs a target in parts of --runs (default 50,000 for a symbol
# target) until its clean executions under its key reach the goal; --status
# prints each target's count under its key as the code stands and what is
# left, building and running nothing.
set -euo pipefail
# The physical path: fuzz-layers.py resolves its own, and the two must
# agree for the key to name files relative to the checkout.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
runs="" jobs=1 fresh=0 status_only=0 until_done=0 targets=()
while (($#)); do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --fresh) fresh=1; shift ;;
        --status) status_only=1; shift ;;
        --until-done) until_done=1; shift ;;
        -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
fuzz="${ENGRAM_FUZZ_BINARY:-$here/build-san/tests/fuzz/engram_fuzz}"
if [ -z "${ENGRAM_FUZZ_BINARY:-}" ] && ((!status_only)); then "$here/scripts/build-sanitized.sh" >/dev/null; fi
out="$here/build-san/fuzz"
mkdir -p "$out"
((${#targets[@]})) || mapfile -t targets < <(ENGRAM_FUZZ_TARGET=list "$fuzz")

# A campaign's goal: a symbol execution parses random bytes several times
# under the sanitizers, some fifty times the cost of any other target's.
goal_of() {
    if [[ "$1" == symbols-* ]]; then echo 1000000; else echo 10000000; fi
}
# The clean executions recorded for target $1 under key $2.
clean_of() {
    python3 - "$here/bench/results/fuzz.json" "$1" "$2" <<'EOF'
import json, sys
path, target, code = sys.argv[1:]
try:
    with open(path) as f:
        before = json.load(f).get(target, {})
except (OSError, ValueError):
    before = {}
print(before.get("clean_executions_of_code", 0) if before.get("code") == code else 0)
EOF
}
# --until-done: parts of --runs executions (default 50,000 for a symbol
# target, 1,000,000 for the others) until the target's clean executions
# under its key reach its goal. A part that fails or is stopped ends it.
until_done() {
    local t="$1" part left
    part="${runs:-}"
    if [ -z "$part" ]; then
        if [[ "$t" == symbols-* ]]; then part=50000; else part=1000000; fi
    fi
    while :; do
        left=$(($(goal_of "$t") - $(clean_of "$t" "$(code_key "$t")")))
        if ((left <= 0)); then
            printf '%-22s done    %s clean executions under its key\n' "$t" "$(goal_of "$t")"
            return 0
        fi
        runs=$((left < part ? left : part)) one "$t" || return
    done
}
# The first of a target's key files changed after the binary was built.
newer_than_binary() {
    key_files "$1" | while read -r f; do
        if [ "$f" -nt "$fuzz" ]; then
            echo "$f"
            break
        fi
    done
}

one() {
    local t="$1" corpus art log n maxlen
    art="$out/artifacts/$t" log="$out/$t.log"
    # A fresh run (the suite's) writes a log of its own: sharing the
    # campaign's path would truncate the log of a campaign running beside
    # it, whose final statistics would then be lost.
    if ((fresh)); then
        corpus="$(mktemp -d)" log="$out/fresh/$t.log"
        mkdir -p "$out/fresh"
    else
        corpus="$out/corpus/$t"
    fi
    mkdir -p "$corpus" "$art"
    local seeds="$here/fixtures/fuzz/$t"
    [ -d "$seeds" ] || seeds=""
    # Symbol extraction parses each input several times, recovering from
    # the errors random bytes are full of: about 2 to 12 ms an execution
    # under the sanitizers, against well under 1 ms for the other targets.
    # Its inputs stay within 1 KiB, room for a few nested definitions (the
    # symbol bug fuzzing found was 750 bytes).
    maxlen=4096
    if [[ "$t" == symbols-* ]]; then maxlen=1024; fi
    n="${runs:-$(goal_of "$t")}"
    # libFuzzer's timeout is wall-clock: a niced campaign beside a busy
    # machine once took 20 s over an input that runs in 0.05 s. A real hang
    # still stops it.
    local common=(-max_len="$maxlen" -timeout=120 -rss_limit_mb=2560 -print_final_stats=1
                  -artifact_prefix="$art/")
    local rc=0 leaks=0 start end key
    # Before the run: sources edited meanwhile are not what ran. (A fresh
    # run records nothing, so needs no key.)
    key=""
    ((fresh)) || key="$(code_key "$t")"
    # A binary given from outside (ENGRAM_FUZZ_BINARY) may be older than the
    # sources of its key: its executions would be counted for code it does
    # not hold. (Without it, this script has just built the binary.)
    if [ -n "${ENGRAM_FUZZ_BINARY:-}" ] && ((!fresh)); then
        local newer
        newer="$(newer_than_binary "$t")"
        if [ -n "$newer" ]; then
            printf '%-22s not run: %s changed after %s was built; rebuild it\n' \
                "$t" "${newer#"$here"/}" "$fuzz"
            return 3
        fi
    fi
    # A campaign's parts each start from another seed (one more than the
    # clean executions of this code so far), so a part that adds nothing to
    # the corpus does not repeat the executions of the one before it. A
    # fresh run uses seed 1: the suite's short runs do the same work each time.
    local seed=1
    if ((!fresh)); then
        seed="$((1 + $(clean_of "$t" "$key")))"
    fi
    # The campaign records no stack for each allocation and free (ASan's
    # malloc_context_size=0): that bookkeeping was a tenth of a symbol
    # target's time, and it changes what a report says, not what is found.
    # A failure's input is run once more below with the stacks, for its report.
    start=$(date +%s)
    ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}" ENGRAM_FUZZ_TARGET="$t" \
        "$fuzz" -runs="$n" -seed="$seed" -detect_leaks=0 "${common[@]}" \
        "$corpus" $seeds >"$log" 2>&1 || rc=$?
    end=$(date +%s)
    # Stopped from outside (SIGINT or SIGTERM: libFuzzer's exit code 72) is
    # no verdict on the code: nothing more runs and nothing is recorded, the
    # campaign's count stays as its last finished part left it.
    if ((rc == 72)); then
        ((fresh)) && rm -rf "$corpus"
        printf '%-22s stopped from outside; nothing recorded\n' "$t"
        return "$rc"
    fi
    # The campaign's failing input is the last one it wrote; a slow one
    # (slow-unit-*, over 10 s) may be written before it and is no failure.
    # Read before the leak pass appends: a leak it finds is reported with
    # full stacks already.
    local crash
    crash="$(grep -oE "Test unit written to $art/[^ ]+" "$log" | grep -v "/slow-unit-" |
        tail -1 | sed 's/^Test unit written to //' || true)"
    # Also after a failure: LeakSanitizer's check at exit can report a leak
    # the campaign made without naming its input; this pass names it.
    ENGRAM_FUZZ_TARGET="$t" "$fuzz" -runs=0 -detect_leaks=1 "${common[@]}" \
        "$corpus" $seeds >>"$log" 2>&1 || leaks=$?
    ((rc)) || rc=$leaks
    if ((rc)) && [ -n "$crash" ] && [ -f "$crash" ]; then
        echo "---- $crash run again, with allocation stacks ----" >>"$log"
        ENGRAM_FUZZ_TARGET="$t" "$fuzz" "${common[@]}" "$crash" >>"$log" 2>&1 || true
    fi
    ((fresh)) && rm -rf "$corpus"
    local done units rate
    done="$(grep -aoE '^Done [0-9]+ runs in [0-9]+ second' "$log" | head -1 || true)"
    units="$(grep -aoE 'number_of_executed_units: [0-9]+' "$log" | head -1 | grep -oE '[0-9]+$' || true)"
    rate="$(grep -aoE 'average_exec_per_sec: +[0-9]+' "$log" | head -1 | grep -oE '[0-9]+$' || true)"
    if ((rc == 0)); then
        printf '%-22s ok      %s\n' "$t" "${done:-?}"
    else
        printf '%-22s FAILED  exit %d, see %s\n' "$t" "$rc" "$log"
        grep -E 'ERROR|property broken|runtime error' "$log" | head -3 | sed 's/^/    /'
    fi
    # A finished run prints its statistics; a log without them was written
    # over (or the run did not finish): no verdict, and nothing recorded.
    if ((rc == 0)) && [ -z "$units" ]; then
        printf '%-22s no statistics in %s; nothing recorded\n' "$t" "$log"
        return 1
    fi
    if ((!fresh)); then
        mkdir -p "$here/bench/results"
        flock "$here/bench/results/.fuzz.lock" \
            python3 - "$here/bench/results/fuzz.json" "$t" "${units:-0}" "${rate:-0}" \
            "$((end - start))" "$rc" "$(find "$corpus" -type f | wc -l)" \
            "$key" <<'EOF'
import datetime, json, os, sys
path, target, units, rate, seconds, rc, corpus, code = sys.argv[1:]
try:
    with open(path) as f:
        results = json.load(f)
except (OSError, ValueError):
    results = {}
# A campaign may run in parts (a symbol target's million executions take
# hours under the sanitizers): the clean executions of the same code (see
# code_key) are summed over its runs; other code, or a failed run, starts again.
before = results.get(target, {})
clean = int(units) if rc == "0" else 0
if clean and before.get("code") == code:
    clean += before.get("clean_executions_of_code", 0)
results[target] = {
    "executions": int(units), "exec_per_sec": int(rate), "seconds": int(seconds),
    "outcome": "clean" if rc == "0" else "exit " + rc,
    "corpus_inputs": int(corpus),  # each run again with leak checks
    "code": code, "clean_executions_of_code": clean,
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
}
# Where a count began under an older definition of the key (carried_from,
# ARCHITECTURE.md's Fuzzing), that stays said while it is summed on.
if clean > int(units) and "carried_from" in before:
    results[target]["carried_from"] = before["carried_from"]
with open(path + ".tmp", "w") as f:
    json.dump(results, f, indent=2, sort_keys=True)
    f.write("\n")
os.replace(path + ".tmp", path)
EOF
    fi
    return "$rc"
}
# What a target's executions were spent on: the files and the Debian
# packages scripts/fuzz-layers.py lists for it. A symbol target exercises
# the syntax layer (which includes nothing of the server but util/Hash.h),
# the tree-sitter runtime, its language's grammar and the harness; any
# other target calls one layer (layer_of), and its key holds the sources
# of that layer and of every library it links, as fuzz-layers.py reads
# them from the CMake files (layers reach each other only through the
# include roots their libraries publish). Work elsewhere in the server
# does not throw a campaign of hours away. The key is made of sources,
# package versions and flags, never of bytes the build wrote: object code
# holds the checkout's paths, so a key made of it changed with the machine
# though the code did not. The server compiles as unity sources within
# each layer, so code cannot be told apart more finely than a layer.
layer_of() {
    case "$1" in
        framing) echo protocol ;;
        operation-params) echo ops ;;
        mcp-lines) echo mcp ;;
        claim-file | merge | conflicted | store-conf) echo store ;;
        secret-scan) echo secrets ;;
        contradictions) echo engine ;;
        symbols-*) ;;
        *) echo "fuzz.sh: no layer known for target $1" >&2; return 1 ;;
    esac
}
build_of() { realpath "$(dirname "$fuzz")/../.."; }
# The files behind a target's key, one per line, sorted.
key_files() {
    local layer
    layer="$(layer_of "$1")" || return 1
    python3 "$here/scripts/fuzz-layers.py" "$(build_of)" "$1" $layer
}
code_key() {
    local t="$1" build layer
    build="$(build_of)"
    layer="$(layer_of "$t")" || return 1
    {
        echo "key 2"
        key_files "$t" | xargs sha256sum | sed "s|$here/||"
        python3 "$here/scripts/fuzz-layers.py" --packages "$build" "$t" $layer
        grep -E '^(CMAKE_(CXX|C)_FLAGS[A-Z_]*|CMAKE_BUILD_TYPE|ENGRAM_(SANITIZE|UNITY)):' \
            "$build/CMakeCache.txt"
        grep -h -- '-fsanitize' "$here/CMakeLists.txt"
    } | sha256sum | cut -c1-16
}
export -f one code_key key_files layer_of build_of goal_of newer_than_binary clean_of until_done
export here fuzz out runs fresh

# --status: each target's clean executions under its key as the sources and
# packages stand now, and what is left to its goal. Nothing is built or run.
if ((status_only)); then
    keys="$(for t in "${targets[@]}"; do
        newer="$(newer_than_binary "$t")"
        [ -z "$newer" ] || echo "$t: ${newer#"$here"/} changed after $fuzz was built" >&2
        echo "$t $(code_key "$t") $(goal_of "$t")"
    done)"
    python3 - "$here/bench/results/fuzz.json" "$keys" <<'EOF'
import json, sys
try:
    with open(sys.argv[1]) as f:
        results = json.load(f)
except (OSError, ValueError):
    results = {}
head = ("target", "key", "clean", "goal", "left", "per s", "hours")
print("%-20s %-16s %11s %11s %11s %6s %6s" % head)
hours = 0.0
for line in sys.argv[2].splitlines():
    target, key, goal = line.split()
    r = results.get(target, {})
    clean = r.get("clean_executions_of_code", 0) if r.get("code") == key else 0
    left = max(0, int(goal) - clean)
    rate = r.get("exec_per_sec", 0)
    h = left / rate / 3600 if rate else 0.0
    hours += h
    note = ""
    if r.get("code") not in (None, key):
        note = "  (its %s are under %s, other code)" % (
            format(r.get("clean_executions_of_code", 0), ","), r["code"])
    elif left and not rate:
        note = "  (no rate recorded yet)"
    elif "carried_from" in r:
        c = r["carried_from"]
        note = "  (%s of them carried from %s, unchanged since %s)" % (
            format(c["clean_executions_of_code"], ","), c["code"], c["old_key_since"])
    print("%-20s %-16s %11s %11s %11s %6s %6.1f%s" % (
        target, key, format(clean, ","), format(int(goal), ","), format(left, ","),
        rate or "-", h, note))
print("about %.1f core-hours left at the recorded rates (a target with none recorded not counted)" % hours)
EOF
    exit 0
fi

status=0
each=one
((!until_done)) || each=until_done
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c "$each \"\$@\"" _ {} \
    | tee "$out/results.txt" || status=1
exit "$status"
