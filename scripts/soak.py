#!/usr/bin/env python3
"""Many engram processes on one store for a long time: a soak.

    scripts/soak.py [--minutes M] [--engram PATH] [--out FILE]

Eight workers share one workspace and one home for M minutes (default 10):
three LSP sessions (`engram serve`) and two MCP sessions (`engram mcp`),
each writing claims and recalling in a loop; two CLI loops (one process per
call) doing the same; and one maintenance loop running `engram reindex`,
`engram check` and `engram doctor`. Every 5 seconds the servers' resident
memory is sampled. At the end every acknowledged claim is looked for in the
store, and doctor checks the audit chain. Prints, and writes as JSON (by
default bench/results/soak.json): throughput, p50/p99 latency per operation
and surface, memory over time per server, lost writes (must be 0) and the
audit chain's verdict. Not part of the test suite.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import importlib.util  # noqa: E402

_spec = importlib.util.spec_from_file_location("crashpoints", os.path.join(HERE, "crash-points.py"))
crashpoints = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(crashpoints)

WORDS = crashpoints.WORDS


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(len(xs) * p))] * 1000, 2)


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.lat = {}      # (surface, op) -> [seconds]
        self.errors = {}   # (surface, op) -> count
        self.acked = []    # (surface, claim id)

    def record(self, surface, op, seconds, ok, claim=None):
        with self.lock:
            if ok:
                self.lat.setdefault((surface, op), []).append(seconds)
                if claim:
                    self.acked.append((surface, claim))
            else:
                self.errors[(surface, op)] = self.errors.get((surface, op), 0) + 1


class Mcp:
    def __init__(self, engram, home, root):
        self.proc = subprocess.Popen([engram, "--home", home, "--root", root, "mcp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.next = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "soak", "version": "1"}})
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0",
                                          "method": "notifications/initialized"}) + "\n")

    def call(self, method, params):
        self.next += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("engram mcp went away")
            msg = json.loads(line)
            if msg.get("id") == self.next:
                return msg

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--engram", default=os.path.join(HERE, "..", "build", "engram"))
    ap.add_argument("--out", default=os.path.join(HERE, "..", "bench", "results", "soak.json"))
    args = ap.parse_args()
    engram = os.path.abspath(args.engram)
    work = tempfile.mkdtemp(prefix="engram-soak-")
    root, home = os.path.join(work, "ws"), os.path.join(work, "home")
    os.makedirs(os.path.join(root, "src"))
    os.makedirs(home)
    with open(os.path.join(root, "src", "app.py"), "w") as f:
        f.write(crashpoints.SOURCE)

    stats = Stats()
    stop = time.time() + args.minutes * 60
    samples = {}  # name -> [(t, rss kb)]
    servers = {}  # name -> pid
    counter = [0]
    clock = threading.Lock()

    def text():
        with clock:
            counter[0] += 1
            n = counter[0]
        return n, f"Soak claim {n}: {random.choice(WORDS)} {random.choice(WORDS)}."

    def anchor():
        return {"path": "src/app.py", "symbol": f"handler_{random.randrange(12)}"}

    def lsp_worker(i):
        name = f"serve-{i}"
        lsp = crashpoints.Lsp(engram, home, root)
        servers[name] = lsp.proc.pid
        lsp.wait(lsp.send("initialize", {"processId": None, "rootUri": "file://" + root,
                                         "capabilities": {}}))
        lsp.send("initialized", {}, notify=True)
        while time.time() < stop:
            if random.random() < 0.4:
                _, t = text()
                t0 = time.time()
                r = lsp.wait(lsp.send("engram/remember", {"text": t, "kind": "fact",
                                                          "agent": "soak", "anchors": [anchor()]}),
                             timeout=60)
                stats.record("lsp", "remember", time.time() - t0, "result" in r,
                             r.get("result", {}).get("claim", {}).get("id"))
            else:
                t0 = time.time()
                r = lsp.wait(lsp.send("engram/recall", {"query": random.choice(WORDS)}),
                             timeout=60)
                stats.record("lsp", "recall", time.time() - t0, "result" in r)
        lsp.send("shutdown", None)
        lsp.send("exit", None, notify=True)
        lsp.proc.wait(timeout=30)

    def mcp_worker(i):
        name = f"mcp-{i}"
        m = Mcp(engram, home, root)
        servers[name] = m.proc.pid
        while time.time() < stop:
            if random.random() < 0.4:
                _, t = text()
                t0 = time.time()
                r = m.call("tools/call", {"name": "remember", "arguments": {
                    "text": t, "kind": "fact", "anchors": [anchor()]}})
                res = r.get("result", {})
                ok = "result" in r and not res.get("isError")
                cid = (res.get("structuredContent") or {}).get("claim", {}).get("id")
                stats.record("mcp", "remember", time.time() - t0, ok, cid)
            else:
                t0 = time.time()
                r = m.call("tools/call", {"name": "recall",
                                          "arguments": {"query": random.choice(WORDS)}})
                stats.record("mcp", "recall", time.time() - t0,
                             "result" in r and not r["result"].get("isError"))
        m.close()

    def cli(*a):
        t0 = time.time()
        r = subprocess.run([engram, "--root", root, "--home", home, "--json", *a],
                           capture_output=True, text=True)
        return time.time() - t0, r

    def cli_worker(i):
        while time.time() < stop:
            if random.random() < 0.4:
                _, t = text()
                dt, r = cli("remember", t, "--agent", "soak", "--anchor",
                            f"src/app.py#handler_{random.randrange(12)}")
                cid = json.loads(r.stdout)["claim"]["id"] if r.returncode == 0 else None
                stats.record("cli", "remember", dt, r.returncode == 0, cid)
            else:
                dt, r = cli("recall", random.choice(WORDS))
                stats.record("cli", "recall", dt, r.returncode == 0)

    def maintenance():
        while time.time() < stop:
            for op in (["reindex"], ["check", "--format", "json", "--fail-on", "none"], ["doctor"]):
                dt, r = cli(*op)
                # doctor exits 1 on a failed check: recorded, not fatal.
                stats.record("cli", op[0], dt, r.returncode == 0)
            time.sleep(5)

    def sampler():
        t0 = time.time()
        while time.time() < stop:
            for name, pid in list(servers.items()):
                kb = rss_kb(pid)
                if kb:
                    samples.setdefault(name, []).append((round(time.time() - t0), kb))
            time.sleep(5)

    threads = [threading.Thread(target=lsp_worker, args=(i,)) for i in range(3)]
    threads += [threading.Thread(target=mcp_worker, args=(i,)) for i in range(2)]
    threads += [threading.Thread(target=cli_worker, args=(i,)) for i in range(2)]
    threads += [threading.Thread(target=maintenance), threading.Thread(target=sampler)]
    started = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.time() - started

    # Every acknowledged claim is in the store and parses.
    claims = os.path.join(root, ".engram", "claims")
    lost = [cid for _, cid in stats.acked if not os.path.exists(os.path.join(claims, cid + ".md"))]
    doctor = json.loads(cli("doctor")[1].stdout)
    audit = [c for c in doctor["checks"] if "audit" in c["check"]]
    sample_ids = random.sample(stats.acked, min(200, len(stats.acked)))
    unreadable = [cid for _, cid in sample_ids if cli("get", cid)[1].returncode != 0]

    report = {
        "minutes": args.minutes,
        "elapsed_s": round(elapsed),
        "acknowledged_writes": len(stats.acked),
        "writes_per_s": round(len(stats.acked) / elapsed, 1),
        "lost_writes": len(lost),
        "sampled_gets_failed": len(unreadable),
        "audit": audit,
        "doctor_ok": doctor.get("ok"),
        "latency_ms": {f"{s} {op}": {"n": len(xs), "p50": pct(xs, 0.5), "p99": pct(xs, 0.99)}
                       for (s, op), xs in sorted(stats.lat.items())},
        "errors": {f"{s} {op}": n for (s, op), n in sorted(stats.errors.items())},
        "rss_kb": {name: {"first": xs[0][1], "max": max(k for _, k in xs), "last": xs[-1][1],
                          "samples": xs}
                   for name, xs in samples.items() if xs},
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)
    print(f"soak: {report['elapsed_s']} s, {report['acknowledged_writes']} acknowledged writes "
          f"({report['writes_per_s']}/s), lost {report['lost_writes']}, doctor ok: "
          f"{report['doctor_ok']}")
    for k, v in report["latency_ms"].items():
        print(f"  {k:18} n={v['n']:6}  p50 {v['p50']:8} ms  p99 {v['p99']:8} ms")
    for k, n in report["errors"].items():
        print(f"  errors {k}: {n}")
    for name, r in sorted(report["rss_kb"].items()):
        print(f"  {name:9} RSS first {r['first']} KB, max {r['max']} KB, last {r['last']} KB")
    for c in audit:
        print(f"  {c['check']}: {c['detail']}")
    shutil.rmtree(work, ignore_errors=True)
    return 0 if not lost and not unreadable and doctor.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
