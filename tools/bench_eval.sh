#!/usr/bin/env bash
# Speed of `streamglove eval analogy` (the full questions-words set, loading
# included) beside the numpy transcription of Stanford's evaluate.py.
#
#   tools/bench_eval.sh BINARY [VECTORS]
#
# Without VECTORS: a 70,000 x 300 GloVe text file of random vectors whose words
# are the eval sets' words plus fillers (so coverage is realistic). Needs
# ../shared/data (questions-words.txt) and /usr/bin/python3 with numpy.
set -euo pipefail
bin=$1
data=${SG_SHARED_DATA:-$(dirname "$0")/../../shared/data}
questions=$data/eval/analogy/questions-words.txt
work=$(mktemp -d "${TMPDIR:-/tmp}/sg-bench-eval.XXXXXX")
trap 'rm -rf "$work"' EXIT
vectors=${2:-}
if [ -z "$vectors" ]; then
  vectors=$work/random-70000x300.txt
  /usr/bin/python3 - "$data" "$vectors" <<'PY'
import sys, numpy as np
data, out = sys.argv[1], sys.argv[2]
words = []
seen = set()
for line in open(f"{data}/eval/analogy/questions-words.txt"):
    if not line.startswith(":"):
        for w in line.lower().split():
            if w not in seen:
                seen.add(w); words.append(w)
while len(words) < 70000:
    words.append(f"filler{len(words)}")
rng = np.random.default_rng(1)
W = rng.standard_normal((70000, 300)).astype(np.float32)
with open(out, "w") as f:
    for w, row in zip(words, W):
        f.write(w + " " + " ".join("%.6f" % x for x in row) + "\n")
PY
fi
echo "vectors: $vectors ($(wc -l <"$vectors") lines, $(du -h "$vectors" | cut -f1))"
cat "$vectors" >/dev/null  # page cache warm for both runs
/usr/bin/time -v "$bin" eval analogy "$vectors" "$questions" --json >"$work/ours.json" 2>"$work/time.txt"
wall=$(grep "Elapsed (wall" "$work/time.txt" | awk '{print $NF}')
rss=$(grep "Maximum resident" "$work/time.txt" | awk '{print $NF}')
accuracy=$(/usr/bin/python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['files'][0]['total']; print(f\"{t['accuracy']:.2f}% ({t['seen']} seen)\")" "$work/ours.json")
echo "streamglove eval analogy: ${wall} wall, peak RSS $((rss / 1024)) MiB, total $accuracy"
start=$(date +%s.%N)
/usr/bin/python3 "$(dirname "$0")/eval_vectors.py" "$vectors" "$data" >"$work/numpy.txt"
numpy=$(echo "$(date +%s.%N) - $start" | bc)
echo "numpy (Stanford's evaluate.py protocol, + similarity sets): ${numpy} s; $(head -n 1 "$work/numpy.txt")"
