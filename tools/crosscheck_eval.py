#!/usr/bin/python3
"""Cross-checks `streamglove eval` against independent implementations.

  /usr/bin/python3 tools/crosscheck_eval.py STREAMGLOVE VECTORS QUESTIONS [--restrict N] [SIMILARITY...]

1. Stanford GloVe's evaluate.py protocol (tools/eval_vectors.py, numpy in
   double): `eval analogy` must give the same number of correct answers in
   every section.
2. gensim's KeyedVectors.evaluate_word_analogies(restrict_vocab=N,
   case_insensitive=True): `eval analogy --restrict N --case insensitive` must
   agree within 0.1 points overall (gensim computes in float32).
3. scipy.stats.spearmanr on cosines computed by numpy: `eval similarity` must
   agree within 1e-6 on every file.

Prints each comparison; exits 1 if one fails. Uses Debian's python3-numpy,
python3-scipy and python3-gensim (installed for /usr/bin/python3).
"""
import json
import os
import subprocess
import sys
import time

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_vectors  # noqa: E402  (the numpy transcription of evaluate.py)


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    args = sys.argv[1:]
    restrict = 30000
    if "--restrict" in args:
        i = args.index("--restrict")
        restrict = int(args[i + 1])
        del args[i:i + 2]
    binary, vectors, questions, similarity = args[0], args[1], args[2], args[3:]
    failures = 0

    words, W = eval_vectors.load_vectors(vectors)
    vocab = {w: i for i, w in enumerate(words)}
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)

    # 1. Stanford's protocol, section by section.
    start = time.time()
    ours = run_json([binary, "eval", "analogy", vectors, questions, "--json"])["files"][0]
    ours_seconds = time.time() - start
    start = time.time()
    sections, seen, total = eval_vectors.analogy(Wn, vocab, questions)
    numpy_seconds = time.time() - start
    mismatches = [(name, c, o["correct"]) for (name, c, n), o in zip(sections, ours["sections"])
                  if c != o["correct"] or n != o["seen"]]
    print(f"Stanford protocol: streamglove {ours['total']['correct']}/{ours['total']['seen']} correct "
          f"({ours['total']['accuracy']:.2f}%, {ours_seconds:.1f} s), numpy "
          f"{sum(c for _, c, _ in sections)}/{seen} ({numpy_seconds:.1f} s); "
          f"{len(sections) - len(mismatches)}/{len(sections)} sections identical")
    if mismatches or len(sections) != len(ours["sections"]):
        print(f"FAIL: sections differ: {mismatches}")
        failures += 1

    # 2. gensim at the same restrict_vocab, case-insensitive.
    from gensim.models import KeyedVectors
    with open(vectors, encoding="utf-8", errors="surrogateescape") as f:
        no_header = len(f.readline().split(" ")) != 2
    kv = KeyedVectors.load_word2vec_format(vectors, binary=False, no_header=no_header)
    start = time.time()
    score, gensim_sections = kv.evaluate_word_analogies(questions, restrict_vocab=restrict, case_insensitive=True)
    gensim_seconds = time.time() - start
    ours = run_json([binary, "eval", "analogy", vectors, questions, "--json", "--restrict", str(restrict),
                     "--case", "insensitive"])["files"][0]
    gensim_total = gensim_sections[-1]
    g_correct, g_seen = len(gensim_total["correct"]), len(gensim_total["correct"]) + len(gensim_total["incorrect"])
    diff = abs(100.0 * score - ours["total"]["accuracy"])
    print(f"gensim restrict_vocab={restrict}: gensim {g_correct}/{g_seen} = {100 * score:.2f}% "
          f"({gensim_seconds:.1f} s), streamglove {ours['total']['correct']}/{ours['total']['seen']} = "
          f"{ours['total']['accuracy']:.2f}%; difference {diff:.3f} points")
    if diff > 0.1 or g_seen != ours["total"]["seen"]:
        print("FAIL: more than 0.1 points apart, or different questions seen")
        failures += 1

    # 3. Spearman's rho against scipy.
    if similarity:
        ours = run_json([binary, "eval", "similarity", vectors, *similarity, "--json"])["files"]
        for path, o in zip(similarity, ours):
            rho, used, pairs = eval_vectors.similarity(Wn, vocab, path)
            ok = used == o["seen"] and pairs == o["pairs"] and abs(rho - o["spearman"]) <= 1e-6
            print(f"similarity {os.path.basename(path)}: scipy {rho:.9f} ({used}/{pairs}), "
                  f"streamglove {o['spearman']:.9f} ({o['seen']}/{o['pairs']}): "
                  f"{'equal within 1e-6' if ok else 'FAIL'}")
            failures += not ok
    print("PASS" if failures == 0 else f"FAIL: {failures} comparisons")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
