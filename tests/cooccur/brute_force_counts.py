#!/usr/bin/env python3
"""An independent co-occurrence counter, for checking stores against.

  brute_force_counts.py --window W [--vocab FILE] [--min-count N] OUT_PREFIX FILE...

Reads plain-text inputs (one document per line, tokens split on space, tab
and newline; '\\r' dropped: the whitespace tokenizer), counts Stanford GloVe's
symmetric 1/d windows over every token (in integer units of
1/lcm(1..W), so sums are exact), or with --vocab only over the words
that file lists (the others dropped before windowing, as cooccur does), and
writes OUT_PREFIX.vocab ('word count', count descending, ties in byte order,
words seen at least --min-count times) and OUT_PREFIX.pairs ('word1 word2
count' for every pair of two such words, count as a Python float, in
(rank1, rank2) order), rounded once to the nearest double.
"""
import argparse
import re
from collections import Counter, defaultdict
from math import lcm


def tokens_of(line):
    return [t for t in re.split(rb"[ \t\n]+", line.replace(b"\r", b"")) if t]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--window", type=int, required=True)
    ap.add_argument("--vocab")
    ap.add_argument("--min-count", type=int, default=1)
    ap.add_argument("out")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    keep = None
    if a.vocab:
        with open(a.vocab, "rb") as f:
            keep = {line.split(b" ")[0] for line in f if line.strip()}
    counts = Counter()
    scale = lcm(*range(1, a.window + 1))
    pairs = defaultdict(int)
    for path in a.inputs:
        with open(path, "rb") as f:
            for line in f:
                doc = tokens_of(line)
                if keep is not None:
                    doc = [t for t in doc if t in keep]
                counts.update(doc)
                for j, right in enumerate(doc):
                    for d in range(1, min(a.window, j) + 1):
                        left = doc[j - d]
                        pairs[(left, right)] += scale // d
                        pairs[(right, left)] += scale // d
    ranked = sorted((w for w, c in counts.items() if c >= a.min_count),
                    key=lambda w: (-counts[w], w))
    rank = {w: i for i, w in enumerate(ranked)}
    with open(a.out + ".vocab", "wb") as f:
        for w in ranked:
            f.write(w + b" %d\n" % counts[w])
    kept = sorted(((rank[l], rank[r]), v) for (l, r), v in pairs.items()
                  if l in rank and r in rank)
    with open(a.out + ".pairs", "wb") as f:
        for (i, j), v in kept:
            f.write(ranked[i] + b" " + ranked[j] + b" " + repr(v / scale).encode() + b"\n")


if __name__ == "__main__":
    main()
