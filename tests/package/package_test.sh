#!/usr/bin/env bash
# engram as users get it, not as the build tree runs it:
#  1. the README's install command (scripts/install.sh PREFIX) into a scratch
#     prefix, and the installed binary through the demo's steps;
#  2. the Debian package and the tarball (scripts/package.sh), the package unpacked into
#     a scratch root (nothing installed on the system): its Depends name the
#     Debian package of every shared library the binary links, and the
#     unpacked binary passes the demo and doctor;
#  3. what comes with it: the man page, completions that complete (bash,
#     run for real), the Neovim plugin loading from the installed tree.
# ENGRAM_BUILD_DIR: the build tree CTest built.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${ENGRAM_BUILD_DIR:?set ENGRAM_BUILD_DIR to the build directory}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}

# 1. From a clone, as the README says.
out="$(ENGRAM_BUILD_DIR="$ENGRAM_BUILD_DIR" "$here/scripts/install.sh" "$work/prefix" 2>"$work/install.log")" ||
    { cat "$work/install.log"; fail "scripts/install.sh exited non-zero"; }
grep -q "^installed $work/prefix/bin/engram (engram " <<<"$out" || fail "install said: $out"
for f in bin/engram share/man/man1/engram.1 share/bash-completion/completions/engram \
    share/zsh/vendor-completions/_engram share/fish/vendor_completions.d/engram.fish \
    share/nvim/site/pack/engram/start/engram/lua/engram/init.lua \
    share/nvim/site/pack/engram/start/engram/plugin/engram.lua; do
    [[ -f "$work/prefix/$f" ]] || fail "scripts/install.sh did not install $f"
done
ENGRAM_BINARY="$work/prefix/bin/engram" "$here/tests/demo/demo_test.sh" >"$work/demo1.log" 2>&1 ||
    { cat "$work/demo1.log"; fail "the demo failed with the installed binary"; }

# 2. The packages, as the README builds them.
packages="$(ENGRAM_BUILD_DIR="$ENGRAM_BUILD_DIR" "$here/scripts/package.sh" 2>"$work/package.log")" ||
    { cat "$work/package.log"; fail "scripts/package.sh failed"; }
deb="$(grep '\.deb$' <<<"$packages")" || fail "no .deb was built: $packages"
tgz="$(grep '\.tar\.gz$' <<<"$packages")" || fail "no tarball was built: $packages"
depends="$(dpkg-deb -f "$deb" Depends)"
# Every shared library the binary links, by the Debian package that ships it.
# (With /lib merged into /usr/lib, dpkg knows a library under one of the two.)
owner() { dpkg -S "$1" 2>/dev/null | sed -n '1s/:.*//p' || true; }
while read -r lib; do
    pkg=""
    for candidate in "$lib" "/usr$lib" "${lib#/usr}" "$(readlink -f "$lib")"; do
        [[ -n "$pkg" ]] || pkg="$(owner "$candidate")"
    done
    [[ -n "$pkg" ]] || fail "no Debian package ships $lib"
    tr ',' '\n' <<<"$depends" | sed 's/^ *//; s/ .*//' | grep -qxF "${pkg%%:*}" ||
        fail "Depends lacks $pkg (for $lib): $depends"
done < <(ldd "$ENGRAM_BUILD_DIR/engram" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p')
root="$work/root"
dpkg-deb -x "$deb" "$root"
[[ -x "$root/usr/bin/engram" ]] || fail "the package has no usr/bin/engram"
tar -tzf "$tgz" | grep -q '/bin/engram$' || fail "the tarball has no bin/engram"
"$root/usr/bin/engram" --version | grep -q "^engram " || fail "the packaged engram has no --version"
ENGRAM_BINARY="$root/usr/bin/engram" "$here/tests/demo/demo_test.sh" >"$work/demo2.log" 2>&1 ||
    { cat "$work/demo2.log"; fail "the demo failed with the packaged binary"; }
ws="$work/ws"
cp -r "$here/fixtures/sample-workspace" "$ws"
git -C "$ws" init -q
ENGRAM_HOME="$work/home" "$root/usr/bin/engram" --root "$ws" init >"$work/init.log" 2>&1 ||
    { cat "$work/init.log"; fail "engram init failed with the packaged binary"; }
ENGRAM_HOME="$work/home" "$root/usr/bin/engram" --root "$ws" doctor >"$work/doctor.log" 2>&1 ||
    { cat "$work/doctor.log"; fail "engram doctor failed with the packaged binary"; }

# 3. What comes with it.
grep -q '^\.TH ENGRAM 1' "$root/usr/share/man/man1/engram.1" || fail "the man page has no .TH"
completions="$(bash -c 'source "$1"; COMP_WORDS=(engram rec); COMP_CWORD=1; _engram; echo "${COMPREPLY[*]}"' _ \
    "$root/usr/share/bash-completion/completions/engram")"
grep -qw recall <<<"$completions" || fail "bash completes 'engram rec' to: $completions"
flags="$(bash -c 'source "$1"; COMP_WORDS=(engram recall --li); COMP_CWORD=2; _engram; echo "${COMPREPLY[*]}"' _ \
    "$root/usr/share/bash-completion/completions/engram")"
[[ "$flags" == "--limit" ]] || fail "bash completes 'engram recall --li' to: $flags"
if command -v nvim >/dev/null; then
    nvim --headless -u NONE -i NONE --cmd "set packpath^=$root/usr/share/nvim/site" \
        --cmd 'packloadall' -c 'lua io.write(type(require("engram")))' -c 'qa!' >"$work/nvim.log" 2>&1 ||
        { cat "$work/nvim.log"; fail "Neovim could not load the installed plugin"; }
    grep -q table "$work/nvim.log" || { cat "$work/nvim.log"; fail "the plugin did not load"; }
fi
echo "ok: installed with scripts/install.sh and from the package ($(basename "$deb"): Depends: $depends)"
