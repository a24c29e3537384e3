#!/usr/bin/env python3
"""The hot paths timed where users run them: stores inside git repositories.

For each size (default 10,000 and 100,000 claims) it builds a workspace the
way a team's clone looks after a day's work: the sample code beside a
generated repository of --repo-files source files (default 20,000), an
AGENTS.md, the claims committed in git (every other one anchored to code)
and a few hundred more not yet committed, the index and code index built
(engram init). Then, each a median over --runs fresh processes:

  spawn -> first recall   `engram serve`, initialize, one recall answered
  first status            the same, then engram/status (anchor health)
  hook session start      `engram hook` for SessionStart, spawn to exit
  hook prompt             `engram hook` for a prompt, spawn to exit
  check                   `engram check`, no anchored file changed
  fresh clone -> first recall
                          a `git clone` of the workspace (no index, no code
                          index), spawn to the first recall answered

It prints a table with each row's target (README, "Benchmarks") and the figure
of the previous results file beside it, marking a change of more than 20%,
and writes bench/results/git-hot-paths.json (keeping the previous one as
git-hot-paths.prev.json). Timings on a shared machine are noisy: read the
medians and the ratios between sizes, not single runs.

  bench/git_hot_paths.py [--engram build/engram] [--sizes 10000,100000]
                         [--runs 5] [--repo-files 20000] [--keep DIR]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

TARGETS = {  # ms; None: no target of its own, shown for the trend
    "spawn -> first recall": 50,
    "first status": 100,
    "hook session start": 100,
    "hook prompt": 100,
    "check": 1000,
    "fresh clone -> first recall": 1000,
}


def frame(obj):
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Lsp:
    def __init__(self, engram, root, home):
        self.p = subprocess.Popen([engram, "serve", "--home", home], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.root = root
        self.next = 0

    @classmethod
    def started(cls, engram, root, home):
        """A server past initialize and initialized, bound to root."""
        s = cls(engram, root, home)
        s.call("initialize", {"rootUri": "file://" + root, "capabilities": {}})
        s.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        return s

    def send(self, obj):
        self.p.stdin.write(frame(obj))
        self.p.stdin.flush()

    def read(self):
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            c = self.p.stdout.read(1)
            if not c:
                raise RuntimeError("engram serve closed its output")
            head += c
        n = [int(line.split(b":")[1]) for line in head.split(b"\r\n")
             if line.lower().startswith(b"content-length")][0]
        return json.loads(self.p.stdout.read(n))

    def call(self, method, params):
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        while True:
            msg = self.read()
            if msg.get("id") == self.next and "method" not in msg:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def close(self):
        try:
            self.call("shutdown", None)
            self.send({"jsonrpc": "2.0", "method": "exit"})
        finally:
            self.p.wait(timeout=30)


def run(cmd, cwd=None, stdin=None, ok=(0,)):
    r = subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, text=True)
    if r.returncode not in ok:
        sys.exit(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r


# A vocabulary of made-up words, so that a query's terms are in a few
# hundred claims, as in a real store, not in every one.
SYLLABLES = ["ka", "lo", "mi", "nu", "pe", "ri", "sa", "to", "vu", "ze"]
WORDS = [a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES]


def claim(i, anchor):
    w = lambda k: WORDS[(i * k + k * k) % len(WORDS)]
    return ("---\nlabel: bench-%d\nkind: fact\nconfidence: 0.8\n%s---\n"
            "The %s cache in the %s service drops %s entries after %d retries\n"
            % (i, anchor + "\n" if i % 2 else "", w(3), w(7), w(11), i % 7))


QUERY = "kalomi cache rirari service"


def generate_repository(dir, files):
    """Source files of a repository of realistic size: packages of modules,
    twenty small functions each (about 4 KB a file), for the code index's
    walk and the workspace listing to cover."""
    per = 100
    for p in range((files + per - 1) // per):
        pkg = os.path.join(dir, "lib", f"pkg{p}")
        os.makedirs(pkg, exist_ok=True)
        for m in range(min(per, files - p * per)):
            with open(os.path.join(pkg, f"mod{m}.py"), "w") as f:
                f.write("".join(f"def fn_{p}_{m}_{k}(value):\n    return value + {k}\n\n"
                                for k in range(20)))


def build(engram, dir, home, n, repo_files):
    shutil.copytree(os.path.join(TOP, "fixtures", "sample-workspace"), dir)
    generate_repository(dir, repo_files)
    with open(os.path.join(dir, "AGENTS.md"), "w") as f:
        f.write("# Tokens\n\nTokens are checked by `TokenValidator.validate` in "
                "src/auth.py.\n\n# Pool\n\nConnections open through `connect()` in "
                "`src/db.py`.\n")
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=dir, check=True)
    # No gc in the background (the commit would start one): it races the
    # explicit one below and the clones for the objects it moves.
    subprocess.run(["git", "config", "gc.auto", "0"], cwd=dir, check=True)
    base = [engram, "--root", dir, "--home", home]
    run(base + ["init"])
    r = run(base + ["--json", "remember", "connect opens a pooled connection", "--label",
                    "pool-connect", "--anchor", "src/db.py#connect", "--agent", "human:bench"])
    cid = json.loads(r.stdout)["claim"]["id"]
    claims = os.path.join(dir, ".engram", "claims")
    text = open(os.path.join(claims, cid + ".md")).read()
    anchor = [line for line in text.splitlines() if line.startswith("anchor: ")][0]
    committed = n - 200
    for i in range(n):
        if i == committed:
            subprocess.run(["git", "add", "-A"], cwd=dir, check=True, env=env)
            subprocess.run(["git", "commit", "-q", "-m", "claims"], cwd=dir, check=True,
                           env=env)
            # Packed, as a repository in use is.
            subprocess.run(["git", "gc", "-q"], cwd=dir, check=True, env=env)
        with open(os.path.join(claims, "c-b%010d.md" % i), "w") as f:
            f.write(claim(i, anchor))
    # The day's writes were a while ago.
    past = time.time() - 60
    os.utime(claims, (past, past))
    run(base + ["reindex"])
    run(base + ["init"])


def median_ms(fn, runs):
    """fn() returns the milliseconds it measured itself (a float), or
    anything else: its whole run is timed."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        own = fn()
        if not isinstance(own, float):
            own = (time.perf_counter() - start) * 1000
        times.append(own)
    return round(statistics.median(times), 1)


def measure(engram, dir, home, runs):
    out = {}

    # Spawn to the answer (the server's exit, which waits for its
    # background check to stop, is not part of it); and a first status
    # call, timed alone, right after.
    def first_recall(status=False):
        start = time.perf_counter()
        s = Lsp.started(engram, dir, home)
        try:
            r = s.call("engram/recall", {"query": QUERY})
            answered = time.perf_counter()
            assert r["rows"], "recall found nothing"
            if status:
                s.call("engram/status", {})
                return (time.perf_counter() - answered) * 1000
            return (answered - start) * 1000
        finally:
            s.close()

    out["spawn -> first recall"] = median_ms(first_recall, runs)
    out["first status"] = median_ms(lambda: first_recall(True), runs)
    hook = [engram, "--home", home, "hook"]
    out["hook session start"] = median_ms(
        lambda: run(hook, stdin=json.dumps({"hook_event_name": "SessionStart", "cwd": dir})),
        runs)
    out["hook prompt"] = median_ms(
        lambda: run(hook, stdin=json.dumps({"hook_event_name": "UserPromptSubmit", "cwd": dir,
                                            "prompt": "why does the " + QUERY + " retry"})),
        runs)
    out["check"] = median_ms(
        lambda: run([engram, "--root", dir, "--home", home, "check"], ok=(0, 1)), runs)

    # A teammate's fresh clone: the committed claims, no index and no code
    # index (both are git-ignored), its own home.
    clone = dir + "-clone"

    def fresh_clone():
        shutil.rmtree(clone, ignore_errors=True)
        shutil.rmtree(clone + "-home", ignore_errors=True)
        run(["git", "clone", "-q", dir, clone])
        start = time.perf_counter()
        s = Lsp.started(engram, clone, clone + "-home")
        try:
            r = s.call("engram/recall", {"query": QUERY})
            answered = time.perf_counter()
            assert r["rows"], "recall found nothing in the clone"
            return (answered - start) * 1000
        finally:
            s.close()

    try:
        out["fresh clone -> first recall"] = median_ms(fresh_clone, runs)
    finally:
        shutil.rmtree(clone, ignore_errors=True)
        shutil.rmtree(clone + "-home", ignore_errors=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engram", default=os.path.join(TOP, "build", "engram"))
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--repo-files", type=int, default=20000)
    ap.add_argument("--keep", help="build the workspaces here and leave them")
    a = ap.parse_args()
    engram = os.path.abspath(a.engram)
    sizes = [int(s) for s in a.sizes.split(",")]
    results_dir = os.path.join(HERE, "results")
    os.makedirs(results_dir, exist_ok=True)
    path = os.path.join(results_dir, "git-hot-paths.json")
    prev = {}
    if os.path.exists(path):
        with open(path) as f:
            prev = json.load(f)
        shutil.copy(path, os.path.join(results_dir, "git-hot-paths.prev.json"))
    work = a.keep or tempfile.mkdtemp(prefix="engram-git-bench-")
    results = {"machine": {"cores": os.cpu_count(), "load": os.getloadavg()[0]},
               "runs": a.runs, "repo_files": a.repo_files, "sizes": {}}
    try:
        for n in sizes:
            dir = os.path.join(work, f"ws-{n}")
            home = os.path.join(work, f"home-{n}")
            if not os.path.exists(dir):
                t = time.time()
                build(engram, dir, home, n, a.repo_files)
                print(f"built {n:,} claims in git in {time.time() - t:.0f} s", file=sys.stderr)
            results["sizes"][str(n)] = measure(engram, dir, home, a.runs)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    results["machine"]["load_after"] = os.getloadavg()[0]
    with open(path, "w") as f:
        json.dump(results, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"{'row':28} {'claims':>8} {'median ms':>10} {'target':>7} {'previous':>9}")
    for n in sizes:
        for row, ms in results["sizes"][str(n)].items():
            before = prev.get("sizes", {}).get(str(n), {}).get(row)
            mark = ""
            if before:
                change = (ms - before) / before if before else 0
                mark = f" {change:+.0%}" + (" <-" if abs(change) > 0.2 else "")
            target = TARGETS.get(row)
            print(f"{row:28} {n:>8,} {ms:>10.1f} {target if target else '':>7} "
                  f"{before if before else '':>9}{mark}")
    print(f"load average {results['machine']['load']:.2f} before, "
          f"{results['machine']['load_after']:.2f} after, {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
