#!/usr/bin/env python3
"""Kills a writing `engram serve` at random moments and checks what survived.

    scripts/crash-points.py [--kills N] [--seed S] [--engram PATH] [--keep]

Each round starts `engram serve` on one workspace (the store grows over the
rounds, as a real one does), pipelines a burst of writes over LSP (new
claims, supersessions, verdicts, retractions, re-verifications and
promotions to the medulla), and sends SIGKILL at a random moment, often
with writes in flight. Then, through the CLI:
  - every write the server acknowledged is there: the claim exists, at
    least at the acknowledged version, retracted if a retraction was
    acknowledged, with at least the acknowledged verdicts; a promoted claim
    is in the medulla;
  - `engram doctor` is clean: every claim file parses and both audit
    chains verify (a torn last line would be reported there);
  - no temporary file is left where a reader would take it for a claim, and
    reindex sweeps those of killed writers;
  - the index the server left answers as one rebuilt from the files does
    (`recall` before and after `engram reindex`).
Exit 0 when every round holds; prints what was tried and what held.
The test suite runs a short version (tests/CMakeLists.txt); the long one
(1,000 kills, about 10 minutes) is run by hand.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SOURCE = "".join(
    f"def handler_{i}(request):\n    value = request.get('k{i}')\n    return value * {i}\n\n"
    for i in range(12))
WORDS = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "inlet",
         "juniper", "kestrel", "larch", "maple", "nettle", "osprey", "pine", "quartz", "rowan",
         "sorrel", "tansy", "umber", "vetch", "willow", "yarrow", "zinnia"]


class Lsp:
    """engram serve over real pipes: requests are pipelined, replies are
    collected by a reader thread until the process dies."""

    def __init__(self, engram, home, root):
        self.proc = subprocess.Popen([engram, "--home", home, "serve"], cwd=root,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.replies = {}
        self.next_id = 0
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = out.read(length)
                if len(body) < length:
                    return
                msg = json.loads(body)
                if "id" in msg and ("result" in msg or "error" in msg):
                    with self.lock:
                        self.replies[msg["id"]] = msg
        except (OSError, ValueError):
            return

    def send(self, method, params, notify=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            self.next_id += 1
            msg["id"] = self.next_id
        body = json.dumps(msg).encode()
        try:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()
        except OSError:
            pass
        return msg.get("id")

    def wait(self, rid, timeout=10.0):
        end = time.time() + timeout
        while time.time() < end:
            with self.lock:
                if rid in self.replies:
                    return self.replies[rid]
            time.sleep(0.005)
        raise SystemExit(f"no reply to request {rid}")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.reader.join(timeout=5)


def cli(engram, home, root, *args, check=True):
    r = subprocess.run([engram, "--root", root, "--home", home, "--json", *args],
                       capture_output=True, text=True)
    if check and r.returncode != 0:
        raise SystemExit(f"engram {' '.join(args)} exited {r.returncode}: {r.stdout}{r.stderr}")
    return json.loads(r.stdout) if r.stdout.strip() else None


class Expect:
    """What the acknowledged writes promise, per claim."""

    def __init__(self):
        self.version = {}    # id -> least version acknowledged
        self.retracted = set()
        self.verdicts = {}   # id -> (version, correct count) the last acknowledged verdict saw
        self.promoted = {}   # project id -> medulla id
        self.labels = {}     # label -> id
        self.tokens = set()  # every claim text's unique word, acknowledged or not


def token(n):
    """A word unique to one text, in letters only (the tokenizer splits
    digits off, and recall folds near-identical texts)."""
    out = "zq"
    while True:
        out += chr(ord("a") + n % 26)
        n //= 26
        if n == 0:
            return out + "x"


def burst(rng, lsp, exp, round_no, size):
    """Pipelines `size` writes; returns (request id, op, subject) for each."""
    sent = []
    live = [i for i in exp.version if i not in exp.retracted]
    for k in range(size):
        word = rng.choice(WORDS) + " " + rng.choice(WORDS)
        op = rng.choices(["new", "supersede", "learn", "retract", "reverify", "promote"],
                         weights=[5, 2, 2, 1, 1, 1])[0]
        if op != "new" and not live:
            op = "new"
        fn = {"path": "src/app.py", "symbol": f"handler_{rng.randrange(12)}"}
        unique = token(round_no * 64 + k)
        exp.tokens.add(unique)
        if op == "new":
            label = f"crash-r{round_no}-k{k}"
            rid = lsp.send("engram/remember", {
                "text": f"Crashpoint {unique}: {word}.", "label": label,
                "kind": "fact", "agent": "crash", "anchors": [fn]})
            sent.append((rid, op, label))
        else:
            cid = rng.choice(live)
            label = next((l for l, i in exp.labels.items() if i == cid), None)
            if op == "supersede" and label is None:
                op = "learn"  # a claim known only from another act's answer
            if op == "supersede":
                rid = lsp.send("engram/remember", {
                    "text": f"Crashpoint {unique} revised: {word}.",
                    "label": label, "kind": "fact", "agent": "crash", "anchors": [fn]})
            elif op == "learn":
                rid = lsp.send("engram/learn", {"id": cid, "verdict": "correct",
                                                "agent": "crash"})
            elif op == "retract":
                rid = lsp.send("engram/retract", {"id": cid, "reason": "crash test",
                                                  "agent": "crash"})
            elif op == "reverify":
                rid = lsp.send("engram/reverify", {"id": cid, "agent": "crash"})
            else:
                rid = lsp.send("engram/promote", {"id": cid, "reason": "crash test",
                                                  "agent": "crash"})
            sent.append((rid, op, cid))
    return sent


def account(lsp, sent, exp):
    """Folds the acknowledged replies into the expectations."""
    acked = 0
    with lsp.lock:
        replies = dict(lsp.replies)
    for rid, op, subject in sent:
        r = replies.get(rid)
        if not r or "result" not in r:
            continue
        acked += 1
        res = r["result"]
        if op in ("new", "supersede"):
            c = res["claim"]
            exp.labels[c["label"]] = c["id"]
            exp.version[c["id"]] = max(exp.version.get(c["id"], 0), c["version"])

        elif op == "learn":
            # Verdicts are counted per version: the count this one saw.
            exp.verdicts[subject] = (res["claim"]["version"], res["feedback"]["correct"])
        elif op == "retract":
            exp.retracted.add(subject)
        elif op == "promote":
            exp.promoted[subject] = res["medulla_copy"]["id"]
            w = res.get("witness") or {}
            if w.get("id") == subject:
                exp.version[subject] = max(exp.version.get(subject, 0), w["version"])
    return acked


def check(engram, home, root, exp, touched, round_tokens):
    problems = []
    for cid in touched:
        got = cli(engram, home, root, "get", cid, check=False)
        if not got or "claim" not in got:
            problems.append(f"{cid}: acknowledged but not found: {got}")
            continue
        c = got["claim"]
        if c["version"] < exp.version.get(cid, 0):
            problems.append(f"{cid}: version {c['version']} < acknowledged {exp.version[cid]}")
        if cid in exp.retracted and c["status"] != "retracted":
            problems.append(f"{cid}: retraction acknowledged, status {c['status']}")
        fb = c.get("feedback", {})
        if cid in exp.verdicts:
            version, correct = exp.verdicts[cid]
            if c["version"] == version and fb.get("correct", 0) < correct:
                problems.append(f"{cid}: {fb.get('correct')} verdicts on v{version}, "
                                f"{correct} acknowledged")
        if cid in exp.promoted:
            m = cli(engram, home, root, "get", exp.promoted[cid], check=False)
            if not m or "claim" not in m:
                problems.append(f"{cid}: promotion acknowledged, {exp.promoted[cid]} not in the medulla")
    doc = cli(engram, home, root, "doctor", check=False)
    for c in doc["checks"]:
        if not c["ok"]:
            problems.append(f"doctor: {c['check']}: {c['detail']}")
    # A write killed before its rename leaves its temporary file; it must
    # never be named like a claim (doctor above parses every claim file).
    claims = os.path.join(root, ".engram", "claims")
    names = os.listdir(claims) if os.path.isdir(claims) else []
    bad = [n for n in names if n.endswith(".md") and ".tmp-" in n]
    if bad:
        problems.append(f"temporary files named like claims: {bad}")
    leftovers = sum(".tmp-" in n for n in names)

    # The index against one rebuilt from the files: the counts by status,
    # anchor health, and recall of this round's unique words (each matches
    # one claim; a query matching hundreds would compare recall's caps, which
    # favour the newest rows, not the index's content).
    def recalled():
        rows = []
        for q in sorted(round_tokens):
            r = cli(engram, home, root, "recall", q, "--include", "retracted")
            rows.append([(x["id"], x["version"], x["status"]) for x in r["rows"]])
        st = cli(engram, home, root, "status")
        anchored = cli(engram, home, root, "anchors", "src/app.py")
        rows.append(sorted((a["claim_id"], a["anchor_state"]) for a in anchored["anchors"]))
        return rows, (st["anchor_health"], st["envelope"]["store"][0]["claims"])

    before = recalled()
    synced = os.path.join(root, ".engram", "index.sqlite")
    kept = synced + ".before-reindex"
    for suffix in ("", "-wal"):  # the index as the server and the CLI left it
        if os.path.exists(synced + suffix):
            shutil.copyfile(synced + suffix, kept + suffix)
    swept = sum(r.get("temporaries_removed", 0)
                for r in cli(engram, home, root, "reindex")["reports"])
    # Reindex sweeps the temporaries of writers no longer running once they
    # are 10 seconds old; older ones must be gone (the killed server's).
    now = time.time()
    stale = [n for n in (os.listdir(claims) if os.path.isdir(claims) else [])
             if ".tmp-" in n and now - os.path.getmtime(os.path.join(claims, n)) > 30]
    if stale:
        problems.append(f"reindex left temporaries of writers no longer running: {stale[:3]}")
    after = recalled()
    if before != after:
        rows_b, health_b = before
        rows_a, health_a = after
        detail = [f"anchor health {health_b} -> {health_a}"] if health_b != health_a else []
        for q, (x, y) in enumerate(zip(rows_b, rows_a)):
            if x != y:
                detail.append(f"query {q}: only before {sorted(set(x) - set(y))[:3]}, "
                              f"only after {sorted(set(y) - set(x))[:3]}, same set but "
                              f"another order: {set(x) == set(y)}")
        keep = f"{kept}.{int(time.time() * 1000)}"
        for suffix in ("", "-wal"):
            if os.path.exists(kept + suffix):
                os.rename(kept + suffix, keep + suffix)
        problems.append("the index answers differently from one rebuilt from the files: " +
                        "; ".join(detail) + f" (the synced index: {keep})")
    return problems, leftovers, swept


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kills", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engram", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "engram"))
    ap.add_argument("--keep", action="store_true", help="keep the workspace")
    args = ap.parse_args()
    engram = os.path.abspath(args.engram)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="engram-crash-")
    root, home = os.path.join(work, "ws"), os.path.join(work, "home")
    os.makedirs(os.path.join(root, "src"))
    os.makedirs(home)
    with open(os.path.join(root, "src", "app.py"), "w") as f:
        f.write(SOURCE)

    exp = Expect()
    totals = {"sent": 0, "acked": 0, "in_flight": 0, "tmp_left": 0, "tmp_swept": 0}
    failures = 0
    start = time.time()
    for n in range(args.kills):
        lsp = Lsp(engram, home, root)
        rid = lsp.send("initialize", {"processId": None, "rootUri": "file://" + root,
                                      "capabilities": {}})
        lsp.wait(rid)
        lsp.send("initialized", {}, notify=True)
        sent = burst(rng, lsp, exp, n, rng.randint(3, 24))
        # Most kills land mid-burst (a write takes a few milliseconds, its
        # fsyncs included); some after the last reply.
        time.sleep(rng.random() * (0.04 if rng.random() < 0.7 else 0.3))
        lsp.kill()
        acked = account(lsp, sent, exp)
        totals["sent"] += len(sent)
        totals["acked"] += acked
        totals["in_flight"] += len(sent) - acked
        touched = {s for _, op, s in sent if op != "new"} | {
            exp.labels[s] for _, op, s in sent if op == "new" and s in exp.labels}
        round_tokens = {token(n * 64 + k) for k in range(len(sent))}
        problems, leftovers, swept = check(engram, home, root, exp, sorted(touched),
                                           round_tokens)
        totals["tmp_left"] = leftovers
        totals["tmp_swept"] += swept
        if problems:
            failures += 1
            print(f"round {n}: {len(problems)} problem(s)")
            for p in problems[:10]:
                print("   ", p)
        if (n + 1) % 100 == 0:
            print(f"{n + 1} kills, {totals['acked']} acknowledged writes checked, "
                  f"{time.time() - start:.0f} s", flush=True)
    print(f"crash points: {args.kills} kills, {totals['sent']} writes sent, "
          f"{totals['acked']} acknowledged and found, {totals['in_flight']} in flight at a kill; "
          f"{len(exp.version)} claims, {len(exp.retracted)} retracted, "
          f"{len(exp.promoted)} promoted; {totals['tmp_swept']} temporary files of killed "
          f"writers swept by reindex, {totals['tmp_left']} left at the last round (never "
          f"read); {failures} round(s) failed; "
          f"{time.time() - start:.0f} s")
    if args.keep or failures:
        print("workspace (kept):", work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
