#!/usr/bin/env bash
# Fails when any C++ file under server/, protocol/, tests/ or bench/ differs
# from what clang-format (.clang-format at the root) would write.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
if ! command -v clang-format >/dev/null 2>&1; then
    echo "check-format: clang-format is not installed; skipping" >&2
    exit 0
fi
files=$(git ls-files -co --exclude-standard 'server/*.cpp' 'server/*.h' 'protocol/*.cpp' \
        'protocol/*.h' 'tests/*.cpp' 'tests/*.h' 'bench/*.cpp' 'bench/*.h')
bad=0
for f in $files; do
    if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "check-format: $f is not clang-formatted (run: clang-format -i $f)"
        bad=1
    fi
done
[ "$bad" -eq 0 ] && echo "check-format: $(echo "$files" | wc -w) files formatted"
exit "$bad"
