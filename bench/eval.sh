#!/usr/bin/env bash
# Speed of `streamglove eval analogy` (the full questions-words set, loading
# included) beside the numpy transcription of Stanford's evaluate.py.
#
#   bench/eval.sh [BINARY [VECTORS]]      (BINARY: default $SG_BIN, build/streamglove)
#
# Without VECTORS: a 70,000 x 300 GloVe text file of random vectors whose words
# are the eval sets' words plus fillers (so coverage is realistic); 2,000 x 20
# in smoke mode. Needs $SG_SHARED_DATA (../shared/data: questions-words.txt
# and the similarity sets) and /usr/bin/python3 with numpy.
. "$(dirname "$0")/lib.sh"
[ -z "${1:-}" ] || SG_BIN=$1
data=$SG_SHARED_DATA
questions=$data/eval/analogy/questions-words.txt
sg_need "$questions"
sg_scratch bench-eval
rows=70000 dim=300
! sg_smoke || { rows=2000 dim=20; }
vectors=${2:-}
if [ -z "$vectors" ]; then
  vectors=$work/random-${rows}x$dim.txt
  /usr/bin/python3 - "$data" "$vectors" "$rows" "$dim" <<'PY'
import sys, numpy as np
data, out, rows, dim = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
words = []
seen = set()
for line in open(f"{data}/eval/analogy/questions-words.txt"):
    if not line.startswith(":"):
        for w in line.lower().split():
            if w not in seen:
                seen.add(w); words.append(w)
while len(words) < rows:
    words.append(f"filler{len(words)}")
rng = np.random.default_rng(1)
W = rng.standard_normal((rows, dim)).astype(np.float32)
with open(out, "w") as f:
    for w, row in zip(words, W):
        f.write(w + " " + " ".join("%.6f" % x for x in row) + "\n")
PY
fi
echo "vectors: $vectors ($(wc -l <"$vectors") lines, $(du -h "$vectors" | cut -f1))"
cat "$vectors" >/dev/null  # page cache warm for both runs
sg_time "$work/time.txt" "$SG_BIN" eval analogy "$vectors" "$questions" --json >"$work/ours.json"
accuracy=$(/usr/bin/python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['files'][0]['total']; print(f\"{t['accuracy']:.2f}% ({t['seen']} seen)\")" "$work/ours.json")
echo "streamglove eval analogy: $(sg_wall "$work/time.txt") s wall, peak RSS $(sg_peak_rss "$work/time.txt") MiB, total $accuracy"
start=$(date +%s.%N)
/usr/bin/python3 "$SG_ROOT/tools/eval_vectors.py" "$vectors" "$data" >"$work/numpy.txt"
numpy=$(echo "$(date +%s.%N) - $start" | bc)
echo "numpy (Stanford's evaluate.py protocol, + similarity sets): ${numpy} s; $(head -n 1 "$work/numpy.txt")"
