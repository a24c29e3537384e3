#!/usr/bin/env python3
"""What a clone carrying a huge hostile .engram/ costs: time and peak memory.

    scripts/hostile-scale.py [--files N] [--engram PATH] [--out FILE]

Builds a workspace (the sample one) whose .engram/claims/ holds one real
claim and N tiny files that are not claims (default 1,000,000), plus a
10,000-line inbox, and runs what a user would: `engram reindex`, `recall`,
`status`, `check` (default output bound, then JSON), `doctor`, and an
`engram serve` session (initialize, one recall). For each it records the
wall time and the process's own peak resident memory (wait4's rusage).
Prints a table and writes JSON (default bench/results/hostile-scale.json).
Not part of the test suite: a million files take minutes to create.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def measured(cmd, stdin=None):
    t0 = time.monotonic()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(w, 1)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 2)
        if stdin is None:
            os.dup2(devnull, 0)
        os.close(r)
        os.execv(cmd[0], cmd)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 1 << 16)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status, usage = os.wait4(pid, 0)
    return {
        "seconds": round(time.monotonic() - t0, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "exit": os.waitstatus_to_exitcode(status),
        "output_bytes": sum(len(c) for c in chunks),
    }


def serve_session(engram, home, root):
    """initialize + one recall over LSP; the server's peak RSS from /proc."""
    p = subprocess.Popen([engram, "--home", home, "serve"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(msg):
        b = json.dumps(msg).encode()
        p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
        p.stdin.flush()

    def reply(want):
        while True:
            n = 0
            while True:
                line = p.stdout.readline()
                if not line:
                    raise RuntimeError("engram serve closed its output")
                if line.lower().startswith(b"content-length"):
                    n = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            m = json.loads(p.stdout.read(n))
            if m.get("id") == want:
                return m

    t0 = time.monotonic()
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"processId": None, "rootUri": "file://" + root, "capabilities": {}}})
    reply(1)
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send({"jsonrpc": "2.0", "id": 2, "method": "engram/recall", "params": {"query": "heron"}})
    rows = reply(2)["result"]["rows"]
    seconds = time.monotonic() - t0
    time.sleep(2)  # start-up work after the first answer (code walk, watches)
    with open("/proc/%d/status" % p.pid) as f:
        hwm = [int(line.split()[1]) for line in f if line.startswith("VmHWM")][0]
    send({"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
    reply(3)
    send({"jsonrpc": "2.0", "method": "exit"})
    p.wait(timeout=60)
    return {"seconds": round(seconds, 2), "peak_rss_mib": round(hwm / 1024, 1),
            "exit": p.returncode, "rows": len(rows)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=1_000_000)
    ap.add_argument("--engram", default=os.path.join(ROOT, "build", "engram"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "hostile-scale.json"))
    a = ap.parse_args()
    engram = os.path.abspath(a.engram)
    tmp = tempfile.mkdtemp(prefix="engram-hostile-")
    try:
        root, home = os.path.join(tmp, "ws"), os.path.join(tmp, "home")
        shutil.copytree(os.path.join(ROOT, "fixtures", "sample-workspace"), root)
        os.makedirs(home)
        base = [engram, "--root", root, "--home", home]
        subprocess.run(base + ["remember", "the heron index rebuilds nightly"], check=True,
                       stdout=subprocess.DEVNULL)
        claims = os.path.join(root, ".engram", "claims")
        t0 = time.monotonic()
        fd = os.open(claims, os.O_RDONLY)
        for i in range(a.files):
            f = os.open("c-t%011d.md" % i, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(f, b"x\n")
            os.close(f)
        os.close(fd)
        with open(os.path.join(root, ".engram", "inbox.jsonl"), "w") as f:
            for i in range(10_000):
                f.write(json.dumps({"agent": "human:scale", "class": "field_report",
                                    "filed": 1795490434 + i, "root": root,
                                    "what": "report %d" % i}) + "\n")
            f.write('{"class":"field_report","what":"%s"}\n' % ("w" * (8 << 20)))
        made = time.monotonic() - t0
        results = {"files": a.files, "create_seconds": round(made, 1), "commands": {}}
        steps = [
            ("reindex", ["reindex"]),
            ("recall", ["recall", "heron"]),
            ("status", ["status"]),
            ("check (1000 listed)", ["check"]),
            ("check --format json", ["check", "--format", "json"]),
            ("doctor", ["doctor"]),
            ("inbox", ["inbox"]),
        ]
        for name, args in steps:
            results["commands"][name] = measured(base + args)
        results["commands"]["serve: initialize + recall"] = serve_session(engram, home, root)
        print("%d tiny non-claim files (created in %.0f s)" % (a.files, made))
        print("%-28s %9s %12s %6s %12s" % ("command", "seconds", "peak RSS MiB", "exit",
                                           "output"))
        for name, r in results["commands"].items():
            print("%-28s %9.2f %12.1f %6d %12s" % (name, r["seconds"], r["peak_rss_mib"],
                                                    r["exit"], r.get("output_bytes", "-")))
        os.makedirs(os.path.dirname(a.out), exist_ok=True)
        with open(a.out, "w") as f:
            json.dump(results, f, indent=2)
            f.write("\n")
        print("wrote " + a.out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
