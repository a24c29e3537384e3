#!/usr/bin/env bash
# Builds engram (installing what the build needs, scripts/setup.sh) and its
# packages into build/packages/: a Debian package whose Depends name the
# libraries the binary links (dpkg-shlibdeps), and a tarball of the same
# tree (bin/, share/man, share/*completions, share/nvim).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ENGRAM_BUILD_DIR:-$here/build}"
ENGRAM_BUILD_DIR="$build" "$here/scripts/build.sh" --target engram engram_generated >&2
# Only this build's packages are listed: an earlier version's go first.
rm -f "$build/packages"/engram_*.deb "$build/packages"/engram-*.tar.gz
(cd "$build" && cpack -B "$build/packages" >&2)
ls "$build/packages"/engram_*.deb "$build/packages"/engram-*.tar.gz
