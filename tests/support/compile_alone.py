#!/usr/bin/env python3
"""Checks that every source of a unity-built library compiles on its own.

    tests/support/compile_alone.py BUILD_DIR TARGET [--jobs N]

The libraries compile as unity sources (CMakeLists.txt, ENGRAM_UNITY): a
file then sees the includes and file-local names of the files batched
before it, so one that forgot an include still builds, until the batches
shift or someone builds without them. This reads BUILD_DIR's
compile_commands.json, finds TARGET's unity sources, and runs each file they
include through the same compiler command in syntax-only mode (no code is
generated: about a second a file). Files kept out of the unity sources,
and the first file of each batch, are compiled alone by the build itself. Exit 1, with the compiler's messages,
when any file does not compile alone.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

INCLUDE = re.compile(r'^#include "(.+)"$', re.M)
# Options whose next argument is an output: dropped with it (nothing is written).
DROP_WITH_VALUE = {"-o", "-MF", "-MT", "-MQ"}
DROP = {"-c", "-MD", "-MMD"}


def alone(entry, source):
    """entry's compile command, for `source` alone and syntax-only."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in DROP_WITH_VALUE:
            skip = True
        elif a not in DROP and a != entry["file"]:
            out.append(a)
    return out + ["-fsyntax-only", source]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir")
    ap.add_argument("target")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    opts = ap.parse_args()

    with open(os.path.join(opts.build_dir, "compile_commands.json")) as f:
        entries = json.load(f)
    marker = "/" + opts.target + ".dir/Unity/"
    work, batches = [], 0
    for e in entries:
        if marker not in e["file"]:
            continue
        batches += 1
        with open(e["file"]) as u:
            # A batch's first file is compiled as it would be alone, by the
            # build itself: nothing comes before it.
            for src in INCLUDE.findall(u.read())[1:]:
                work.append((e, src))
    if not batches:
        print(f"{opts.target}: no unity sources in {opts.build_dir}/compile_commands.json")
        return 1

    def run(item):
        e, src = item
        r = subprocess.run(alone(e, src), cwd=e["directory"], capture_output=True, text=True)
        return src, r.returncode, r.stdout + r.stderr

    start = time.monotonic()
    with ThreadPoolExecutor(max(1, opts.jobs)) as pool:
        results = list(pool.map(run, work))
    failed = [(src, text) for src, code, text in results if code != 0]
    for src, text in failed:
        print(f"=== {src} does not compile on its own:\n{text}")
    print(f"{opts.target}: {len(work) - len(failed)} of {len(work)} sources compile on their own, "
          f"and the first of each of {batches} batches in the build "
          f"({time.monotonic() - start:.1f} s, {opts.jobs} jobs)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
