#!/usr/bin/env bash
# `eval analogy` and `eval similarity` against independent implementations
# (numpy transcription of Stanford's evaluate.py, gensim, scipy) on vectors
# trained from a generated corpus with planted analogies.
. "$(dirname "$0")/../lib.sh" eval-crosscheck
bin=$1
generator=$2
tools=$3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import gensim, scipy" 2>/dev/null \
  || { echo "SKIP: python3-gensim and python3-scipy are not installed" >&2; exit 77; }
mkdir "$dir/corpus"
"$generator" -o "$dir/corpus" --bytes 6e6 --shards 1 --vocab 5000 --seed 4 --questions "$dir/questions.txt"
"$bin" ingest --store "$dir/store" "$dir/corpus" --min-count 3 --memory 128M -q
"$bin" train --store "$dir/store" -o "$dir/vectors.txt" --dim 32 --epochs 5 --x-max 10 -q
# Word pairs with scores (ties included) for the Spearman check.
/usr/bin/python3 - "$dir" <<'PY'
import random, sys
d = sys.argv[1]
words = [line.split(" ", 1)[0] for line in open(f"{d}/vectors.txt")]
rng = random.Random(5)
with open(f"{d}/pairs.txt", "w") as f:
    for i in range(400):
        a, b = rng.choice(words[:2000]), ("unknownword" if i % 10 == 0 else rng.choice(words[:2000]))
        f.write(f"{a}\t{b}\t{rng.randint(0, 20) / 2}" + ("\r\n" if i % 2 else "\n"))
PY
/usr/bin/python3 "$tools/crosscheck_eval.py" "$bin" "$dir/vectors.txt" "$dir/questions.txt" --restrict 4000 \
  "$dir/pairs.txt"
