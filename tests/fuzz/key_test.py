#!/usr/bin/env python3
"""A fuzz campaign's key names its code, not the machine it was built on.

    tests/fuzz/key_test.py SANITIZED_BUILD_DIR

scripts/fuzz.sh sums a target's clean executions over the parts of a
campaign, often run on different machines, under a key of what the target
runs. The first keys held object code, whose bytes carry the checkout's
absolute path: on a new machine every key changed with no source changed,
and hours of campaigns counted for nothing. This test computes keys through
fuzz.sh --status in this checkout and in a copy of it at another path, and
checks that:
- the copy gives the same keys;
- an edit to the syntax layer changes the symbol target's key and not the
  framing's, which runs none of it;
- an edit to the grammar's or the runtime's source changes the symbol key.

The copy holds only what the keys read. Its build directory holds the
sanitized build's CMakeCache.txt and compiler dependency files (*.o.d) with
the checkout's path replaced by the copy's, which is what the compiler
writes when it builds there (compiling both for the test would cost minutes).
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

here = pathlib.Path(__file__).resolve().parents[2]
build = pathlib.Path(sys.argv[1]).resolve()
targets = ["symbols-python", "framing"]


def keys(root, build_dir):
    binary = build_dir / "tests/fuzz/engram_fuzz"
    out = subprocess.run([str(root / "scripts/fuzz.sh"), "--status", *targets],
                         env={**os.environ, "ENGRAM_FUZZ_BINARY": str(binary)},
                         capture_output=True, text=True, check=True).stdout
    found = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:]
             if line.split() and line.split()[0] in targets}
    assert set(found) == set(targets), out
    return found


failures, checks = [], 0


def check(what, ok):
    global checks
    checks += 1
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


original = keys(here, build)
with tempfile.TemporaryDirectory(prefix="engram-key-") as tmp:
    copy = pathlib.Path(tmp) / "elsewhere" / "checkout"
    for part in ["scripts", "server", "protocol", "tests/fuzz", "bench/results/fuzz.json",
                 "CMakeLists.txt", "package-lock.json", "node_modules/tree-sitter",
                 "node_modules/tree-sitter-python"]:
        src, dst = here / part, copy / part
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns("build*"))
        else:
            shutil.copy2(src, dst)
    copied_build = copy / "build-san"
    copied_build.mkdir()
    shutil.copy2(build / "CMakeCache.txt", copied_build)
    for d in build.glob("**/CMakeFiles/*.dir/**/*.o.d"):
        dst = copied_build / d.relative_to(build)
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(d.read_text().replace(str(build), str(copied_build))
                       .replace(str(here), str(copy)))
    # The binary's place: fuzz.sh compares sources' times with it.
    (copied_build / "tests/fuzz").mkdir(parents=True, exist_ok=True)
    (copied_build / "tests/fuzz/engram_fuzz").touch()

    moved = keys(copy, copied_build)
    check("the same keys from a checkout at another path", moved == original)

    syntax = copy / "server/syntax/Symbols.cpp"
    syntax.write_text(syntax.read_text() + "\n// an edit\n")
    edited = keys(copy, copied_build)
    check("an edit to server/syntax changes the symbol target's key",
          edited["symbols-python"] != moved["symbols-python"])
    check("and not the framing's, which runs no syntax code",
          edited["framing"] == moved["framing"])

    grammar = copy / "node_modules/tree-sitter-python/src/scanner.c"
    grammar.write_text(grammar.read_text() + "\n/* an edit */\n")
    regrammared = keys(copy, copied_build)
    check("an edit to the grammar's source changes the symbol target's key",
          regrammared["symbols-python"] != edited["symbols-python"])

    runtime = copy / "node_modules/tree-sitter/vendor/tree-sitter/lib/src/parser.c"
    runtime.write_text(runtime.read_text() + "\n/* an edit */\n")
    check("an edit to the runtime's source changes the symbol target's key",
          keys(copy, copied_build)["symbols-python"] != regrammared["symbols-python"])

print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
