#!/usr/bin/python3
"""Scores a vectors file the way Stanford GloVe's eval/python/evaluate.py does.

Analogies (questions-words format): rows unit-normalised; for a:b :: c:?, the
answer is the argmax over the whole vocabulary of W . (b - a + c), excluding a,
b and c; questions with a word outside the vocabulary are skipped and counted.
The first five sections are semantic, the rest syntactic. Similarity sets
(word1<TAB>word2<TAB>score): Spearman's rho between cosine and human scores
over the pairs whose words are known.

  /usr/bin/python3 tools/eval_vectors.py VECTORS [DATA_DIR] [--json]

Uses Debian's python3-numpy and python3-scipy (installed for /usr/bin/python3).
"""
import json
import sys

import numpy as np
from scipy.stats import spearmanr


def load_vectors(path):
    words, rows = [], []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        first = f.readline().split(" ")
        if len(first) != 2:  # GloVe text: no header line
            words.append(first[0])
            rows.append(np.array(first[1:], dtype=np.float64))
        for line in f:
            parts = line.rstrip("\n").split(" ")
            words.append(parts[0])
            rows.append(np.array(parts[1:], dtype=np.float64))
    return words, np.vstack(rows)


def analogy(W, vocab, path, split_size=100):
    sections, current = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith(":"):
                current = [line[1:].strip(), []]
                sections.append(current)
            elif line.strip():
                current[1].append(line.lower().split())
    results, seen, total = [], 0, 0
    for name, questions in sections:
        total += len(questions)
        data = [q for q in questions if all(w in vocab for w in q)]
        seen += len(data)
        if not data:
            results.append((name, 0, 0))
            continue
        ind = np.array([[vocab[w] for w in q] for q in data])
        predictions = np.zeros(len(ind), dtype=np.int64)
        for start in range(0, len(ind), split_size):
            sub = ind[start:start + split_size]
            dist = W @ (W[sub[:, 1]] - W[sub[:, 0]] + W[sub[:, 2]]).T
            cols = np.arange(len(sub))
            for k in range(3):
                dist[sub[:, k], cols] = -np.inf
            predictions[start:start + len(sub)] = np.argmax(dist, 0)
        results.append((name, int((predictions == ind[:, 3]).sum()), len(ind)))
    return results, seen, total


def similarity(Wn, vocab, path):
    human, model, pairs = [], [], 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\r\n").split("\t")
            if len(parts) < 3:
                continue
            pairs += 1
            a, b = parts[0].lower(), parts[1].lower()
            if a in vocab and b in vocab:
                human.append(float(parts[2]))
                model.append(float(Wn[vocab[a]] @ Wn[vocab[b]]))
    return spearmanr(human, model).correlation, len(human), pairs


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    data = args[1] if len(args) > 1 else "../shared/data"
    words, W = load_vectors(args[0])
    vocab = {w: i for i, w in enumerate(words)}
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    sections, seen, total = analogy(Wn, vocab, f"{data}/eval/analogy/questions-words.txt")
    sem = [s for s in sections[:5]]
    syn = [s for s in sections[5:]]
    acc = lambda ss: 100.0 * sum(c for _, c, _ in ss) / max(1, sum(n for _, _, n in ss))
    out = {"analogy": {"semantic": acc(sem), "syntactic": acc(syn), "total": acc(sections),
                       "seen": seen, "questions": total,
                       "sections": {n: 100.0 * c / max(1, k) for n, c, k in sections}}}
    for name, file in [("ws353", "EN-WS-353-ALL.txt"), ("simlex999", "EN-SIMLEX-999.txt"),
                       ("men", "EN-MEN-TR-3k.txt"), ("rw", "EN-RW-STANFORD.txt")]:
        rho, used, pairs = similarity(Wn, vocab, f"{data}/eval/similarity/{file}")
        out[name] = {"spearman": rho, "pairs": used, "of": pairs}
    if "--json" in sys.argv:
        print(json.dumps(out))
        return
    a = out["analogy"]
    print(f"analogy: total {a['total']:.2f}%  semantic {a['semantic']:.2f}%  syntactic {a['syntactic']:.2f}%  "
          f"(questions seen {a['seen']}/{a['questions']})")
    for name in ["ws353", "simlex999", "men", "rw"]:
        print(f"{name}: spearman {out[name]['spearman']:.3f} ({out[name]['pairs']}/{out[name]['of']} pairs)")


if __name__ == "__main__":
    main()
