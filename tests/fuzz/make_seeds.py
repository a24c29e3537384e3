#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora into fixtures/fuzz/<target>/.

The seeds are real inputs: claim files and merges written by the engram
binary itself, the fixtures' source files for each grammar, frames and
parameters as clients send them. Run it again (with a built engram) when a
format changes; the output is committed. Files named regression-* are inputs
that once broke a target and are never regenerated or removed.

usage: tests/fuzz/make_seeds.py ENGRAM_BINARY FUZZ_BINARY
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "fixtures", "fuzz")
MAX = 4096  # scripts/fuzz.sh's largest -max_len (a target with a smaller one cuts its seeds)


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data[:MAX])


def clear(target):
    d = os.path.join(OUT, target)
    if os.path.isdir(d):
        for n in os.listdir(d):
            if not n.startswith("regression-"):
                os.remove(os.path.join(d, n))


def provider_string(s):
    """s as FuzzedDataProvider::ConsumeRandomLengthString reads it back."""
    return s.replace(b"\\", b"\\\\") + b"\\x"


def claims(engram):
    """Claim files in several states, written by the real binary."""
    ws = tempfile.mkdtemp(prefix="engram-seeds-")
    home = os.path.join(ws, ".home")
    os.makedirs(os.path.join(ws, "src"))
    shutil.copy(os.path.join(ROOT, "fixtures", "languages", "python", "token_validator.py"),
                os.path.join(ws, "src", "v.py"))
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1")

    def run(*args, stdin=None):
        r = subprocess.run([engram, "--root", ws, "--home", home, "--json", *args],
                           input=stdin, capture_output=True, text=True, env=env)
        if r.returncode not in (0, 1):
            raise SystemExit(f"engram {' '.join(args)}: {r.stdout} {r.stderr}")
        return json.loads(r.stdout)

    a = run("remember", "Tokens are validated before the cache is read.", "--kind", "fact",
            "--anchor", "src/v.py#TokenValidator.validate", "--tag", "auth", "--label", "order",
            "--evidence", "command:pytest tests", "--agent", "seed")["claim"]["id"]
    b = run("remember", "Use the validator, never parse tokens by hand.", "--kind", "convention",
            "--anchor", "src/v.py", "--agent", "seed")["claim"]["id"]
    claims_dir = os.path.join(ws, ".engram", "claims")
    v1 = {i: open(os.path.join(claims_dir, i + ".md"), "rb").read() for i in (a, b)}
    run("learn", a, "correct", "--note", "checked\nby hand", "--agent", "seed")
    learned = open(os.path.join(claims_dir, a + ".md"), "rb").read()
    run("retract", b, "--reason", "the validator moved", "--agent", "seed")
    retracted = open(os.path.join(claims_dir, b + ".md"), "rb").read()
    # The same label: a new version of the claim.
    run("remember", "Tokens are validated, then the cache is read.", "--label", "order",
        "--anchor", "src/v.py#TokenValidator.validate", "--agent", "other")
    superseded = open(os.path.join(claims_dir, a + ".md"), "rb").read()
    shutil.rmtree(ws)
    # The targets parse with the id "c-fuzz" (the file name's part).
    fix = lambda data: data.replace(a.encode(), b"c-fuzz")
    return a, fix(v1[a]), fix(learned), fix(retracted).replace(b.encode(), b"c-fuzz"), fix(superseded)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    engram = os.path.abspath(sys.argv[1])
    fuzz = os.path.abspath(sys.argv[2])
    targets = ["claim-file", "merge", "conflicted", "framing", "operation-params", "mcp-lines",
               "secret-scan", "store-conf", "contradictions"]
    langs = sorted(os.listdir(os.path.join(ROOT, "fixtures", "languages")))
    for t in targets + ["symbols-" + l for l in langs]:
        clear(t)

    cid, v1, learned, retracted, superseded = claims(engram)
    for name, data in [("v1", v1), ("learned", learned), ("retracted", retracted),
                       ("superseded", superseded)]:
        put("claim-file", name, data)
    # The merge driver's three sides, as the provider splits them.
    for name, (base, ours, theirs) in {
        "both-changed": (v1, learned, superseded),
        "no-base": (b"", learned, superseded),
        "retract-vs-learn": (v1, retracted, learned),
    }.items():
        put("merge", name, provider_string(base) + provider_string(ours) + theirs)
    put("conflicted", "diff3",
        b"---\nid: c-fuzz\n<<<<<<< ours\nstatus: committed\n||||||| base\nstatus: frontier\n"
        b"=======\nstatus: retracted\n>>>>>>> theirs\n---\nText.\n")
    put("conflicted", "merge",
        b"<<<<<<< HEAD\n" + learned + b"=======\n" + superseded + b">>>>>>> branch\n")

    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"processId": None, "rootUri": "file:///w"}})
    frame = f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
    put("framing", "one", b"\x07" + frame)
    put("framing", "two", b"\x01" + frame + frame)
    put("framing", "bad-header", b"\x03Content-Length: x\r\n\r\n" + frame)

    # One seed per operation: its index byte, then params a client sends.
    params = {
        "remember": {"text": "Tokens are validated first.", "kind": "fact",
                     "anchors": [{"path": "src/v.py", "symbol": "validate"}],
                     "tags": ["auth"], "confidence": 0.8, "agent": "a"},
        "recall": {"query": "token validation", "tier": "all", "limit": 5,
                   "include": ["frontier"], "max_chars": 2000},
        "get": {"id": cid}, "retract": {"id": cid, "reason": "gone", "agent": "a"},
        "learn": {"id": cid, "verdict": "partial", "note": "n", "agent": "a"},
        "reverify": {"id": cid, "agent": "a"}, "promote": {"id": cid, "reason": "r", "agent": "a"},
        "anchors": {"path": "src/v.py"},
        "delegate": {"task": "fix the cache", "paths": ["src/v.py"], "max_items": 5},
        "status": {"confusion": True},
        "contribute": {"packet_id": "p" * 64, "items": [{"text": "t", "kind": "fact"}]},
        "review": {"id": cid, "decision": "accept", "reason": "checked", "agent": "a"},
        "report": {"class": "stale", "what": "the claim named a moved file", "claim": cid},
        "inbox": {"limit": 10},
        "verify_packet": {"packet": {"id": "x"}},
    }
    names = subprocess.run([fuzz], env=dict(os.environ, ENGRAM_FUZZ_TARGET="operations"),
                           capture_output=True, text=True, check=True).stdout.split()
    for i, n in enumerate(names):
        put("operation-params", n, bytes([i]) + json.dumps(params.get(n, {})).encode())

    put("mcp-lines", "requests",
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\r\n\n'
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
        b'{"jsonrpc":"2.0","id":"x","method":"tools/list"}')
    put("mcp-lines", "oversized",
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"text":"'
        + b"a" * 400 + b'"}}}\n{"id":8}\n')

    put("secret-scan", "keys",
        "AKIA" + "IOSFODNN7EXAMPLE" + " ghp_" + "a1B2" * 9 + "\npassword = 'hunter2hunter2'\n")
    put("secret-scan", "jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2ln")
    put("secret-scan", "pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----")
    put("secret-scan", "prose", "The cache is read after the token is validated (see v.py).")

    put("store-conf", "ok", "# engram store\nname: payments\nlanguage: .h cpp\nlanguage: .inc none\n")
    put("store-conf", "mistakes", "name:\nlanguage: h\nlanguage: .x\njust words\nname: \xff\n")

    # The labelled claim pairs: the first of each category and label, as
    # "text a<TAB>text b".
    seen = set()
    with open(os.path.join(ROOT, "fixtures", "contradictions", "pairs.tsv"), encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if line.startswith("#") or len(cols) != 6 or (cols[3], cols[2]) in seen:
                continue
            seen.add((cols[3], cols[2]))
            put("contradictions", f"{cols[3]}-{cols[2]}", cols[4] + "\t" + cols[5])

    # Each grammar's fixtures cut at blank lines into pieces under 1 KiB: a
    # few definitions each (whole files make every execution slow).
    for lang in langs:
        d = os.path.join(ROOT, "fixtures", "languages", lang)
        for f in sorted(os.listdir(d)):
            if ".reformatted." in f:
                continue
            pieces, cur = [], b""
            for block in open(os.path.join(d, f), "rb").read().split(b"\n\n"):
                if cur and len(cur) + len(block) > 1000:
                    pieces.append(cur)
                    cur = b""
                cur += block + b"\n\n"
            pieces.append(cur)
            for i, src in enumerate(pieces):
                # insert string, the source, then (from the end) cut and position.
                put("symbols-" + lang, f"{f}.{i}",
                    provider_string(b"x = 1\n") + src[:1024] + b"\x04\x00\x20")
    # Code the TypeScript grammar misreads (Parse.cpp contains the error):
    # the interface and what follows it, whole, cut within the interface.
    src = open(os.path.join(ROOT, "fixtures", "recovery", "call-signatures.ts"), "rb").read()
    src = src[src.index(b"export interface"):][:2048]
    for lang in ["typescript", "tsx"]:
        put("symbols-" + lang, "call-signatures.ts",
            provider_string(b"\n") + src + b"\x04\x40\x00")
    # The same in TSX, with components that render JSX after the interface.
    src = open(os.path.join(ROOT, "fixtures", "recovery", "call-signatures.tsx"), "rb").read()
    src = src[src.index(b"export interface"):][:2048]
    put("symbols-tsx", "call-signatures.tsx", provider_string(b"\n") + src + b"\x04\x40\x00")


if __name__ == "__main__":
    main()
