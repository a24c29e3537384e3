#!/usr/bin/env bash
# Writes fixtures/upgrade/: claim files as earlier engram releases wrote them,
# anchored to every definition of a set of the fixtures' own source files,
# for tests/e2e/UpgradeTest.cpp (anchors stamped by earlier digest rules must
# read intact when their code did not change).
#
#   fixtures/upgrade/src/...          the anchored sources (frozen copies of
#                                     fixtures/identity and fixtures/languages files)
#   fixtures/upgrade/<commit>/claims/ the claim files that release wrote
#
# For each release it builds that commit's engram in a scratch worktree
# (node_modules linked from this checkout: the grammars' npm versions are the
# same), copies the sources into a scratch git repository, and anchors one
# claim at the first line of each definition today's engram lists for them
# (fixtures/digests/*.tsv, so run scripts/update-digests.sh first) with
# `engram remember --anchor PATH:LINE`, else by today's name (PATH#NAME: that
# release may not have counted a decorator, an attribute or `export` as part
# of the definition). A definition that release finds neither way is skipped
# (it did not know that form). Slow (two builds);
# never run by the suite.
# Usage: scripts/make-upgrade-fixtures.sh [COMMIT[=BINARY]...]
# (=BINARY: that commit's engram, already built, instead of building it)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
# 54a2863: the release before anchors recorded identity and digests became
# blind to formatters' rewrites (4c29459); 4c29459: the first after it;
# 1e8aad7: the last under digest rules 1 (2 reads an interface's generic
# call signatures on their own lines whole, recovery/call-signatures.ts).
commits=("$@")
[ ${#commits[@]} -gt 0 ] || commits=(54a2863 4c29459 1e8aad7)
sources=(
    identity/requests_style.py identity/Gson.java identity/forms.go identity/forms.rs
    languages/python/token_validator.py languages/javascript/session.js
    languages/typescript/rateLimiter.ts languages/tsx/SessionBadge.tsx
    languages/c/ring_buffer.c languages/cpp/config_parser.cpp languages/go/server.go
    languages/rust/lru.rs languages/java/TokenValidator.java recovery/call-signatures.ts
)
out=fixtures/upgrade
rm -rf "$out/src"
for s in "${sources[@]}"; do
    mkdir -p "$out/src/$(dirname "$s")"
    cp "fixtures/$s" "$out/src/$s"
done
export GIT_AUTHOR_NAME=fixtures GIT_AUTHOR_EMAIL=fixtures@example.invalid
export GIT_COMMITTER_NAME=fixtures GIT_COMMITTER_EMAIL=fixtures@example.invalid
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for spec in "${commits[@]}"; do
    commit=${spec%%=*}
    old=${spec#*=}
    tree="$scratch/engram-$commit"
    if [ "$old" = "$spec" ]; then
        git worktree add --detach "$tree" "$commit" >/dev/null
        for d in node_modules tests/corpus/node_modules tests/mcp/node_modules; do
            [ -d "$tree/$(dirname "$d")" ] && ln -sfn "$here/$d" "$tree/$d"
        done
        cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
        nice cmake --build "$tree/build" -j2 --target engram >/dev/null
        old="$tree/build/engram"
    fi

    repo="$scratch/repo-$commit"
    mkdir -p "$repo"
    cp -r "$out/src" "$repo/src"
    git -C "$repo" init -q && git -C "$repo" add -A && git -C "$repo" commit -qm sources
    for s in "${sources[@]}"; do
        lang=$(grep -l -P "^file\t${s//./\\.}\t" fixtures/digests/*.tsv | head -1)
        grep -P "^def\t${s//./\\.}\t" "$lang" | while IFS=$'\t' read -r _ _ line name _; do
            for anchor in "src/$s:$line" "src/$s#$name"; do
                "$old" --root "$repo" --home "$scratch/home-$commit" remember \
                    "Anchored to $name when the upgrade fixture was made." \
                    --agent fixtures --anchor "$anchor" >/dev/null 2>&1 && continue 2
            done
            echo "$commit: no definition at src/$s:$line nor named $name" >&2
        done
    done
    rm -rf "$out/$commit"
    mkdir -p "$out/$commit"
    cp -r "$repo/.engram/claims" "$out/$commit/claims"
    echo "$commit: $(ls "$out/$commit/claims" | wc -l) claim files"
    [ -d "$tree" ] && git worktree remove --force "$tree"
done
