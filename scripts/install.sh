#!/usr/bin/env bash
# Builds engram (installing what the build needs, scripts/setup.sh) and
# installs it under PREFIX (default ~/.local): bin/engram, its man page,
# completions for bash, zsh and fish, and the Neovim plugin.
#
#   scripts/install.sh [PREFIX]
#
# ENGRAM_BUILD_DIR names the build directory (default build/). Installing
# to a system prefix needs root: sudo scripts/install.sh /usr/local
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${1:-$HOME/.local}"
build="${ENGRAM_BUILD_DIR:-$here/build}"
ENGRAM_BUILD_DIR="$build" "$here/scripts/build.sh" --target engram engram_generated >&2
cmake --install "$build" --prefix "$prefix" >&2
echo "installed $prefix/bin/engram ($("$prefix/bin/engram" --version))"
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "note: $prefix/bin is not on PATH; add it to use engram by name" ;;
esac
