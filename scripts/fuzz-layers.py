#!/usr/bin/env python3
"""Prints what a fuzz target's executions run, for the key of its count.

    scripts/fuzz-layers.py BUILD_DIR TARGET [LAYER]   the source files, one per line
    scripts/fuzz-layers.py --packages BUILD_DIR TARGET [LAYER]
                                                      the Debian packages, "name version"

scripts/fuzz.sh hashes both into the target's code key. A symbol target
runs the syntax layer (which includes nothing of the server but
util/Hash.h), the tree-sitter runtime, its own grammar and the harness.
Any other target runs the LAYER it calls and every library that layer
links, PUBLIC or PRIVATE, read from the CMake files: layers reach each
other only through the include roots their libraries publish
(server/LayerRules.h and engram_library in CMakeLists.txt).

Only sources and package versions go in, never bytes the build wrote:
the object code holds the checkout's absolute paths, so a key made of it
changed with the machine (and a campaign of hours counted as none) while
the code stayed the same. The runtime's and the grammars' sources are the
files their compiler dependency files (the build's *.o.d) name inside the
checkout; the headers those files name outside it, and the compiler and its
sanitizer runtime, are named by the Debian package and version that
installed them.
"""
import os
import pathlib
import re
import subprocess
import sys

here = pathlib.Path(__file__).resolve().parent.parent
args = sys.argv[1:]
packages = args[:1] == ["--packages"]
if packages:
    args = args[1:]
if len(args) not in (2, 3):
    sys.exit(__doc__.split("\n\n")[1])
build, target = pathlib.Path(args[0]).resolve(), args[1]
top = args[2] if len(args) == 3 else None
symbols = target.startswith("symbols-")
if not symbols and top is None:
    sys.exit(f"fuzz-layers.py: target {target} needs the layer it calls")


def read_libraries():
    folders, links = {}, {}
    for cm in [here / "protocol/CMakeLists.txt", *sorted((here / "server").rglob("CMakeLists.txt"))]:
        text = re.sub(r"#[^\n]*", "", cm.read_text())
        for m in re.finditer(r"engram_library\((\w+)\s+DIR\s+(\S+)(.*?)\)", text, re.S):
            name, folder, rest = m.groups()
            for var in ("${here}", "${CMAKE_CURRENT_SOURCE_DIR}"):
                folder = folder.replace(var, str(cm.parent))
            folders[name] = pathlib.Path(folder)
            links.setdefault(name, []).extend(re.findall(r"\b(engram_\w+|ts_runtime)", rest))
        # foreach(g ${ENGRAM_GRAMMARS}) target_link_libraries(engram_X PRIVATE ts_grammar_${g})
        for m in re.finditer(r"target_link_libraries\(engram_(\w+)\s+PRIVATE\s+ts_grammar_", text):
            links.setdefault(m.group(1), []).append("ts_grammars")
    return folders, links


def dependencies(cmake_target):
    """Every file the compiler read for cmake_target's objects, resolved."""
    depfiles = sorted(build.glob(f"**/CMakeFiles/{cmake_target}.dir/**/*.o.d"))
    if not depfiles:
        sys.exit(f"fuzz-layers.py: no dependency files for {cmake_target} in {build} "
                 "(built with CMake's Makefile generator?)")
    found = set()
    for d in depfiles:
        text = d.read_text().replace("\\\n", " ")
        _, _, deps = text.partition(": ")
        found.update(os.path.normpath(p) for p in deps.split())
    return found


def inside(path):
    return pathlib.Path(path).is_relative_to(here)


def source(path):
    """A file of the checkout's own, not one the build wrote (the include
    roots it publishes are copies of server/'s headers)."""
    p = pathlib.Path(path)
    return inside(p) and not p.is_relative_to(build) and not p.is_relative_to(here / "server")


# The CMake targets whose code a target runs, and the files among their
# sources that are engram's own.
files, cmake_targets = [], []
if symbols:
    grammar = "ts_grammar_" + target[len("symbols-"):]
    files += [str(p) for p in (here / "server/syntax").rglob("*") if p.is_file()]
    files += [str(here / "server/util/Hash.h"), str(here / "server/util/Hash.cpp")]
    cmake_targets = ["engram_syntax", "engram_util", "ts_runtime", grammar]
else:
    folders, links = read_libraries()
    seen, todo = set(), [top]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name == "ts_runtime":
            cmake_targets.append("ts_runtime")
        elif name == "ts_grammars":
            cmake_targets += sorted(p.name.removesuffix(".dir")
                                    for p in build.glob("CMakeFiles/ts_grammar_*.dir"))
            # How the runtime and the grammars are compiled, which their
            # sources alone do not say.
            files.append(str(here / "server/syntax/grammars.cmake"))
        else:
            lib = name.removeprefix("engram_")
            if lib not in folders:
                sys.exit(f"fuzz-layers.py: no library {name} in the CMake files")
            files += [str(p) for p in folders[lib].rglob("*")
                      if p.is_file() and p.suffix in (".h", ".cpp")]
            cmake_targets.append("engram_" + lib)
            todo += links.get(lib, [])
    files.append(str(here / "server/LayerRules.h"))
files.append(str(here / "tests/fuzz/Fuzz.cpp"))

deps = set()
for t in cmake_targets:
    deps |= dependencies(t)
# The runtime's and the grammars' sources (engram's own are listed whole above).
files += [p for p in deps if source(p)]

if not packages:
    for f in sorted(set(files)):
        if not pathlib.Path(f).is_file():
            sys.exit(f"fuzz-layers.py: {f} is missing")
        print(f)
    sys.exit(0)

# The packages behind the headers read from outside the checkout, behind
# the compiler, and behind the sanitizer and fuzzer runtime it links.
cache = (build / "CMakeCache.txt").read_text()
compiler = re.search(r"^CMAKE_CXX_COMPILER:\w+=(.*)$", cache, re.M).group(1)
runtime = subprocess.run([compiler, "-print-file-name=libclang_rt.fuzzer-x86_64.a"],
                         capture_output=True, text=True, check=True).stdout.strip()
owned = sorted({p for p in deps if not inside(p)} |
               {os.path.realpath(subprocess.run(["sh", "-c", f"command -v {compiler}"],
                                                capture_output=True, text=True,
                                                check=True).stdout.strip()),
                os.path.realpath(runtime)})
# dpkg -S names a file by the path its package installed, which may sit
# behind a symbolic link (/usr/lib/llvm-14/lib/clang/14.0.6 is one): ask
# by both spellings, keep what answers.
names = set()
for group in (owned, sorted({os.path.realpath(p) for p in owned})):
    out = subprocess.run(["dpkg", "-S", *group], capture_output=True, text=True).stdout
    names |= {line.split(":")[0] for line in out.splitlines() if ": " in line}
# An architecture-qualified name (libc6-dev:amd64) and the plain one are one package.
names = sorted({n.split(":")[0] for n in names if "," not in n})
versions = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}\n", *names],
                          capture_output=True, text=True, check=True).stdout
for line in sorted(set(versions.splitlines())):
    print(line)
