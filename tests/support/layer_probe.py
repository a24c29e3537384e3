#!/usr/bin/env python3
"""Checks that each layer library of engram reaches only what it may.

    tests/support/layer_probe.py BUILD_DIR [--jobs N]

The layers (ARCHITECTURE.md, "Layers") are separate static libraries whose
include roots hold their own folder alone, and server/LayerRules.h poisons
the system headers a layer may not use (server/CMakeLists.txt). This takes,
for every layer, the compile command of one of its sources from BUILD_DIR's
compile_commands.json and runs a one-line probe through its preprocessor:
for every header of every layer it may not depend on, and every system
header it may not use, the probe must fail for that reason ("No such file"
or a poisoned identifier); a few allowed includes must preprocess, so that a
probe failing for an unrelated reason is noticed. The table below is the
architecture's dependency table: a dependency added in CMake without it
makes a probe preprocess, and this fails.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

# Each layer, the layers it may include (directly or through another), and
# one header that stands for it.
LAYERS = {
    "util": ([], "util/Fs.h"),
    "text": (["util"], "text/Tokenize.h"),
    "model": (["util"], "model/Claim.h"),
    "secrets": ([], "secrets/SecretScan.h"),
    "store": (["model", "util"], "store/Store.h"),
    "index": (["store", "model", "text", "util"], "index/Index.h"),
    "syntax": (["util"], "syntax/Symbols.h"),
    "instructions": (["util"], "instructions/References.h"),
    "engine": (["index", "syntax", "instructions", "secrets", "store", "model", "text", "util"],
               "engine/Engine.h"),
    "protocol": (["index", "store", "secrets", "model", "util"], "protocol/Convert.h"),
    "ops": (["protocol", "engine"], "ops/Operation.h"),
    "lsp": (["ops"], "lsp/LspServer.h"),
    "mcp": (["ops"], "mcp/McpServer.h"),
    "cli": (["lsp", "mcp", "protocol"], "cli/Cli.h"),
}
# System headers and the layers (or single sources) that may use them.
SYSTEM = {
    "sqlite3.h": ["index"],
    "tree_sitter/api.h": ["syntax"],
    "nlohmann/json.hpp": ["protocol", "ops", "lsp", "mcp", "cli", "store/ReportFile.cpp"],
    "re2/re2.h": ["secrets/Patterns.cpp"],
    "uv.h": ["lsp", "cli"],
    "toml++/toml.h": ["cli/TomlEdit.cpp"],
}
# Allowed includes that must compile (the probe itself works).
CONTROLS = [
    ("index", "sqlite3.h"),
    ("syntax", "tree_sitter/api.h"),
    ("store/ReportFile.cpp", "nlohmann/json.hpp"),
    ("secrets/Patterns.cpp", "re2/re2.h"),
    ("lsp", "uv.h"),
    ("cli/TomlEdit.cpp", "toml++/toml.h"),
    ("engine", "index/Index.h"),
    ("engine", "syntax/Symbols.h"),
    ("index", "store/Store.h"),
    ("cli", "lsp/LspServer.h"),
]

OUT = re.compile(r"-o\s+(\S+)")


def closure(layer):
    seen, todo = set(), [layer]
    while todo:
        for d in LAYERS[todo.pop()][0]:
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def commands(build_dir):
    """A compile command per layer, and per single source named in SYSTEM."""
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        entries = json.load(f)
    found = {}
    for e in entries:
        m = OUT.search(e["command"])
        if not m:
            continue
        out = m.group(1)
        for layer in LAYERS:
            if f"/engram_{layer}.dir/" not in out:
                continue
            # A source with an allowance of its own stands only for itself.
            src = e["file"]
            special = next((s for s in ("store/ReportFile.cpp", "secrets/Patterns.cpp",
                                        "cli/TomlEdit.cpp")
                            if src.endswith("/" + s)), None)
            found.setdefault(special or layer, e)
    return found


def probe_command(entry, probe):
    args = shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a not in ("-c", "-MD", "-MMD") and a != entry["file"]:
            out.append(a)
    # Preprocessing alone decides every probe: a header off the include path
    # and a poisoned identifier are both the preprocessor's errors. Parsing
    # the headers too took ten times as long (71 s of the suite's 2 cores).
    return out + ["-E", "-o", os.devnull, probe]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    opts = ap.parse_args()
    cmds = commands(opts.build_dir)
    missing = [k for k in list(LAYERS) + ["store/ReportFile.cpp", "secrets/Patterns.cpp"]
               if k not in cmds]
    if missing:
        print("no compile command found for: " + ", ".join(missing))
        return 1

    cases = []  # (who, header, expect: "ok" | "missing" | "poisoned")
    for layer in LAYERS:
        reach = closure(layer) | {layer}
        for other, (_, header) in LAYERS.items():
            if other not in reach:
                cases.append((layer, header, "missing"))
    for header, allowed in SYSTEM.items():
        for who in list(LAYERS) + ["store/ReportFile.cpp", "secrets/Patterns.cpp"]:
            if who in allowed:
                continue
            # A layer that includes an allowed one's headers may reach its
            # system header through them only if it is allowed itself, which
            # the table says; tree-sitter is off the path entirely.
            expect = "missing" if header == "tree_sitter/api.h" else "poisoned"
            cases.append((who, header, expect))
    cases += [(who, header, "ok") for who, header in CONTROLS]

    tmp = tempfile.mkdtemp(prefix="engram-layer-probe-")

    def run(i_case):
        i, (who, header, expect) = i_case
        probe = os.path.join(tmp, f"probe{i}.cpp")
        with open(probe, "w") as f:
            own = header.split("/")[0] in LAYERS
            f.write(f'#include "{header}"\n' if own else f"#include <{header}>\n")
        e = cmds[who]
        r = subprocess.run(probe_command(e, probe), cwd=e["directory"], capture_output=True,
                           text=True)
        text = r.stdout + r.stderr
        if expect == "ok":
            good = r.returncode == 0
        elif expect == "missing":
            good = r.returncode != 0 and "No such file" in text
        else:
            good = r.returncode != 0 and "poisoned" in text
        return who, header, expect, good, text

    start = time.monotonic()
    with ThreadPoolExecutor(max(1, opts.jobs)) as pool:
        results = list(pool.map(run, enumerate(cases)))
    bad = [r for r in results if not r[3]]
    for who, header, expect, _, text in bad:
        want = {"ok": "preprocess", "missing": "fail: not on its include path",
                "poisoned": "fail: a poisoned identifier"}[expect]
        print(f"=== {who} including {header} should {want}; compiler said:\n{text[:2000]}")
    denied = sum(1 for r in results if r[2] != "ok")
    print(f"{len(results) - len(bad)} of {len(results)} probes as expected "
          f"({denied} forbidden includes, {len(results) - denied} allowed; "
          f"{time.monotonic() - start:.1f} s, {opts.jobs} jobs)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
