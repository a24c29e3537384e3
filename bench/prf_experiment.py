#!/usr/bin/env python3
"""Pseudo-relevance feedback, measured on the labelled set in bench/recall/
and not built: it lowers MRR@10 on every split.

PRF takes the best few rows of a first search, adds their most telling
words to the query and searches again. Measured here two ways:
- on the textbook BM25 of recall_quality.py, RM3-like: the 3 or 5 words of
  the 3 best rows with the highest share-of-row times idf, at 0.3 of a
  query word's weight;
- on engram, the 3 words appended to the query (engram has no weight for
  them: an upper bound on the harm, not on the gain).
Claims are a sentence or two and the store holds 400 distractors: the
first search's top rows are too often not the answer, and their words pull
the second search further off.

    prf_experiment.py --engram BIN
"""
import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import recall_quality as rq  # noqa: E402

STOP = set("the a an of to in and or for on is are be by with as at from it this that we our "
           "not never only".split())
SPLITS = ("development", "held-out", "paraphrase", "all")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engram", required=True)
    args = ap.parse_args()
    claims, queries = rq.load("claims.jsonl"), rq.load("queries.jsonl")
    claims += rq.distractors()
    for i, q in enumerate(queries):
        q["split"] = "development" if i % 2 == 0 else "held-out"
    docs = {c["key"]: c["label"].replace("-", " ") + " " + c["text"] for c in claims}
    bm = rq.Bm25(docs)

    def expansion(ranked, query, n, k=3):
        own = set(rq.words(query))
        score = Counter()
        for key in ranked[:k]:
            tf = Counter(w for w in rq.words(docs[key]) if w not in STOP and not w.isdigit())
            total = sum(tf.values())
            for w, f in tf.items():
                if w not in own:
                    score[w] += f / total * bm.idf.get(w, 0)
        return [w for w, _ in score.most_common(n)]

    def bm25_with(query, extra, weight):
        terms = [(w, 1.0) for w in set(rq.words(query))] + [(w, weight) for w in extra]
        scores = []
        for key, tf in bm.docs.items():
            s = 0.0
            for w, wt in terms:
                f = tf.get(w, 0)
                if f:
                    s += wt * bm.idf[w] * f * (bm.k1 + 1) / (
                        f + bm.k1 * (1 - bm.b + bm.b * bm.lens[key] / bm.avg))
            if s > 0:
                scores.append((-s, key))
        return [k for _, k in sorted(scores)[:10]]

    def report(name, rankings):
        m = rq.by_split(queries, rankings, rq.ranking_metrics)
        print(f"{name:28}" + "  ".join(f"{p} {m[p]['mrr@10']:.3f}" for p in SPLITS))

    first = [bm.rank(q["q"]) for q in queries]
    report("bm25", first)
    for n in (3, 5):
        report(f"bm25 + prf {n} words at 0.3",
               [bm25_with(q["q"], expansion(r, q["q"], n), 0.3) for q, r in zip(queries, first)])
    ws, env, ids = rq.build_store(args.engram, claims)
    try:
        mine = rq.engram_rankings(args.engram, ws, env, ids, queries)
        report("engram", mine)
        again = [dict(q, q=q["q"] + " " + " ".join(expansion(r, q["q"], 3)))
                 for q, r in zip(queries, mine)]
        report("engram + prf 3 words", rq.engram_rankings(args.engram, ws, env, ids, again))
    finally:
        import shutil
        shutil.rmtree(ws, ignore_errors=True)


if __name__ == "__main__":
    main()
