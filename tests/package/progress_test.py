#!/usr/bin/env python3
"""Progress on a terminal, and nowhere else.

`engram reindex` over a few thousand claim files and `engram init` over a
workspace of source files, run under a pseudo-terminal, draw a progress line
on standard error (rewritten in place with a carriage return, a count of the
total, the bytes, and the time taken on its last line). The same commands
with standard error on a pipe, or with --json on the terminal, print no
progress at all.

ENGRAM_BINARY: the engram binary.
"""
import os
import pty
import re
import subprocess
import sys
import tempfile

engram = os.environ["ENGRAM_BINARY"]
problems = []


def claim(i):
    return (f"---\nid: c-{i:012d}\nversion: 1\nkind: fact\nstatus: committed\nconfidence: 0.7\n"
            f"created: 2026-11-01T00:00:00Z\nupdated: 2026-11-01T00:00:00Z\nsource_agent: human:t\n"
            f"origin: project:ws\n---\nBulk note {i} about the ledger\n")


def under_pty(args, env):
    """Runs with stdin, stdout and stderr on a pseudo-terminal; returns its output."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(engram, [engram, *args], env)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


with tempfile.TemporaryDirectory() as work:
    ws = os.path.join(work, "ws")
    claims = os.path.join(ws, ".engram", "claims")
    os.makedirs(claims)
    for i in range(3000):
        with open(os.path.join(claims, f"c-{i:012d}.md"), "w") as f:
            f.write(claim(i))
    src = os.path.join(ws, "src")
    os.makedirs(src)
    for i in range(200):
        with open(os.path.join(src, f"m{i}.py"), "w") as f:
            f.write(f"def f{i}(x):\n    return x + {i}\n")
    subprocess.run(["git", "init", "-q", ws], check=True)
    env = dict(os.environ, ENGRAM_HOME=os.path.join(work, "home"), TERM="xterm")
    base = ["--root", ws]

    rc, out = under_pty(base + ["reindex"], env)
    if rc != 0:
        problems.append(f"reindex under a terminal exited {rc}: {out}")
    last = re.search(r"\rreindex: claim files 3,000/3,000 \(100%\) · [0-9.]+ MB · [0-9.]+ (s|min)\x1b\[K\r?\n", out)
    if not last:
        problems.append(f"reindex drew no final progress line on the terminal: {out!r}")
    rc, out = under_pty(base + ["init"], env)
    if not re.search(r"\rinit: source files [0-9,]+/[0-9,]+ \(100%\) · [0-9.]+ (s|min)", out):
        problems.append(f"init drew no progress line for the source files: {out!r}")

    # Not a terminal: nothing but the answer.
    r = subprocess.run([engram, *base, "reindex"], env=env, capture_output=True, text=True)
    if r.returncode != 0 or "\r" in r.stderr or "claim files 3,000" in r.stderr:
        problems.append(f"reindex with stderr on a pipe printed progress: {r.stderr!r}")
    # --json on a terminal: nothing but the JSON.
    rc, out = under_pty(base + ["--json", "reindex"], env)
    if "\r" in out.replace("\r\n", "\n") or "ETA" in out or "claim files 3,000" in out:
        problems.append(f"reindex --json on a terminal printed progress: {out!r}")

if problems:
    print("\n".join("FAIL: " + p for p in problems))
    sys.exit(1)
print("ok: progress on a terminal for reindex and init; none on a pipe or with --json")
