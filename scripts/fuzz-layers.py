#!/usr/bin/env python3
"""Prints the files a fuzz target's executions can run, one per line.

    scripts/fuzz-layers.py BUILD_DIR LAYER TARGET

scripts/fuzz.sh hashes them into the target's code key. Layers reach each
other only through the include roots their libraries publish
(server/LayerRules.h and engram_library in CMakeLists.txt), so the layer a
target calls into and the libraries it links, PUBLIC or PRIVATE, read from
the CMake files, are all the code it can run: its sources (.h and .cpp),
and for tree-sitter the object code of the runtime and the grammars. A
symbol target reaches its own grammar only.
"""
import pathlib
import re
import sys

here = pathlib.Path(__file__).resolve().parent.parent
build, top, target = sys.argv[1:4]

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

files, seen, todo = [], set(), [top]
while todo:
    name = todo.pop()
    if name in seen:
        continue
    seen.add(name)
    if name == "ts_runtime":
        files.append(f"{build}/libts_runtime.a")
    elif name == "ts_grammars":
        if target.startswith("symbols-"):
            files.append(f"{build}/libts_grammar_{target[len('symbols-'):]}.a")
        else:
            files += sorted(str(p) for p in pathlib.Path(build).glob("libts_grammar_*.a"))
    else:
        lib = name.removeprefix("engram_")
        if lib not in folders:
            sys.exit(f"fuzz-layers.py: no library {name} in the CMake files")
        files += sorted(str(p) for p in folders[lib].rglob("*")
                        if p.is_file() and p.suffix in (".h", ".cpp"))
        todo += links.get(lib, [])
files += [str(here / "server/LayerRules.h"), str(here / "tests/fuzz/Fuzz.cpp")]
for f in sorted(set(files)):
    if not pathlib.Path(f).is_file():
        sys.exit(f"fuzz-layers.py: {f} is missing")
    print(f)
