#!/usr/bin/env bash
# The VS Code extension's checks, one step per CTest test:
#   build     tsc into out/
#   lint      eslint (type-aware)
#   unit      node's test runner over the modules that do not need VS Code
#   protocol  the extension's requests against the real engram serve ($ENGRAM_BINARY)
#   package   vsce packages out/*.vsix; the unpacked extension is loaded and activated
#   all       every step, in that order
# Everything runs from node_modules (scripts/setup.sh installs it with
# `npm ci --ignore-scripts`); nothing is downloaded here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ ! -d node_modules/vscode-languageclient ] || [ ! -x node_modules/.bin/tsc ]; then
    echo "editors/vscode: node_modules is missing; run scripts/setup.sh (npm ci --ignore-scripts)" >&2
    exit 1
fi
bin=node_modules/.bin

build() { "$bin/tsc" -p .; }
lint() { "$bin/eslint" --max-warnings 0 .; }
unit() { node --test out/test/unit/; }
protocol() {
    if [ -z "${ENGRAM_BINARY:-}" ]; then
        echo "editors/vscode: set ENGRAM_BINARY to the engram binary for the protocol test" >&2
        exit 1
    fi
    node --test out/test/protocol/
}
package() {
    "$bin/vsce" package --out out/
    node --test out/test/package/
}

case "${1:-all}" in
    build | lint | unit | protocol | package) "$1" ;;
    all) build && lint && unit && protocol && package ;;
    *)
        echo "usage: $0 [build|lint|unit|protocol|package|all]" >&2
        exit 2
        ;;
esac
