#!/usr/bin/env bash
# The VS Code extension's checks, one step per CTest test:
#   build     tsc into out/
#   lint      eslint (type-aware)
#   unit      node's test runner over the modules that do not need VS Code
#   protocol  the extension's requests against the real engram serve ($ENGRAM_BINARY)
#   package   vsce packages the universal out/engram-vscode-V.vsix (no binary:
#             engram.path or PATH) and, from $ENGRAM_BINARY, the self-contained
#             out/engram-vscode-linux-x64-V.vsix carrying bin/engram; the
#             unpacked extensions are checked, loaded and activated
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
    if [ -z "${ENGRAM_BINARY:-}" ]; then
        echo "editors/vscode: set ENGRAM_BINARY to the engram binary the platform package carries" >&2
        exit 1
    fi
    # bin/ exists only while the platform package is made: the universal one
    # must not carry a binary for one platform.
    rm -rf bin
    "$bin/vsce" package --out out/
    platform "$ENGRAM_BINARY" linux-x64
    node --test out/test/package/
}
# One platform's package: the binary, stripped (symbols are a third of its
# size and no use to a user), as bin/engram. Another target would be the same
# call with that platform's binary, e.g. `platform build-arm64/server/engram
# linux-arm64`; VS Code's marketplace then serves each user their platform's.
platform() {
    mkdir -p bin
    local rc=0
    { strip --strip-unneeded -o bin/engram "$1" && chmod 755 bin/engram &&
        "$bin/vsce" package --target "$2" --out out/; } || rc=$?
    rm -rf bin
    return "$rc"
}

case "${1:-all}" in
    build | lint | unit | protocol | package) "$1" ;;
    all) build && lint && unit && protocol && package ;;
    *)
        echo "usage: $0 [build|lint|unit|protocol|package|all]" >&2
        exit 2
        ;;
esac
