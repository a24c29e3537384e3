#!/usr/bin/env bash
# The sanitized suite's last test: fails, printing them, when any sanitized
# process wrote a report (ENGRAM_SANITIZER_LOG) during the run.
set -euo pipefail
dir="$1"
shopt -s nullglob
reports=("$dir"/report*)
if ((${#reports[@]} == 0)); then
    echo "no sanitizer reports"
    exit 0
fi
echo "${#reports[@]} sanitizer report(s):"
for r in "${reports[@]}"; do
    echo "=== $r"
    head -60 "$r"
done
exit 1
