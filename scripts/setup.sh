#!/usr/bin/env bash
# Installs what engram builds from, idempotently: Debian packages (only the
# missing ones, so a second run does no network work) and the pinned npm
# packages carrying the tree-sitter runtime and grammars (only when the lock
# file changed since the last install).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

debs=(build-essential dpkg-dev cmake pkg-config git nodejs npm
      nlohmann-json3-dev libuv1-dev libsqlite3-dev catch2 libsodium-dev libre2-dev
      libtomlplusplus-dev libstemmer-dev clang-format neovim)
npm_dirs=(. tests/mcp editors/vscode)

# With --tests (scripts/test.sh): what only the tests need: clang for the
# sanitized build and the fuzz targets, and for the anchor tests on real code
# (tests/corpus) the formatters they run, an inventory tool, and the packages
# whose sources are the corpus. The demo does without them.
if [ "${1:-}" = "--tests" ]; then
    # clang and its runtimes: the sanitized build and the fuzz targets.
    debs+=(clang libclang-rt-14-dev llvm)
    # The shells the completions are run in (tests/package/completions_test.py).
    debs+=(fish zsh)
    debs+=(black rustfmt golang-go universal-ctags python3
           python3-requests python3-yaml librust-log-dev librust-either-dev libfmt-dev)
    npm_dirs+=(tests/corpus)
fi
# With --vscode (editors/vscode/scripts/real.sh): the real-VS-Code tests'
# code-server, Node 24 and playwright-core, the headers code-server's native
# modules build against, and the browser (with a font: Debian recommends one
# but setup installs no recommends).
if [ "${1:-}" = "--vscode" ]; then
    debs+=(libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev pkg-config python3 chromium
           fonts-liberation)
    npm_dirs+=(editors/vscode/test/real)
fi

missing=()
for p in "${debs[@]}"; do
    # A tool already on PATH (node and npm are often installed outside apt)
    # counts as present.
    case "$p" in
        nodejs) command -v node >/dev/null 2>&1 && continue ;;
        npm) command -v npm >/dev/null 2>&1 && continue ;;
        cmake) command -v cmake >/dev/null 2>&1 && continue ;;
        git) command -v git >/dev/null 2>&1 && continue ;;
        clang-format) command -v clang-format >/dev/null 2>&1 && continue ;;
    esac
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "setup: installing Debian packages: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Every directory holding a package-lock.json gets `npm ci`, each only when
# its lock file changed since its last install: the grammars at the top, the
# MCP client tests and the VS Code extension below (and, with --tests, the
# real-code corpus).
for d in "${npm_dirs[@]}"; do
    [ -f "$here/$d/package-lock.json" ] || continue
    cd "$here/$d"
    stamp="node_modules/.engram-lock-sha256"
    want="$(sha256sum package-lock.json | cut -d' ' -f1)"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "setup: installing pinned npm packages in $d (npm ci --ignore-scripts)"
        npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
        echo "$want" > "$stamp"
    fi
done
