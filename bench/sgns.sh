#!/usr/bin/env bash
# SGNS side by side on wiki100M: streamglove (vocab + ingest + train
# --objective sgns, and the GloVe objective) against fastText's skip-gram
# (Debian's `fasttext`) and gensim's Word2Vec skip-gram (Debian's
# python3-gensim), each given the same wall-clock budget on this machine:
# the peers' epochs are the most that fit the budget, found from timed 1- and
# 2-epoch runs (per-epoch time and fixed overhead). Same dimension, window,
# min-count, negatives and subsampling for all. Each vectors file is scored by
# `streamglove eval` (questions-words by Stanford's protocol, WS-353,
# SimLex-999). Run on an idle machine.
#
#   bench/sgns.sh [-d DIM] [-w WINDOW] [-e SGNS_EPOCHS] [-b BUDGET_SECONDS] [-g GLOVE_FLAGS]
#   env: SG_BUILD (build), SG_SHARED_DATA (../shared/data)
#
# GLOVE_FLAGS default to "--dim DIM --epochs 10 --x-max 10". Smoke mode: DIM
# 20, 1 SGNS epoch, 2 GloVe epochs.
#
# Without -b the budget is streamglove's own SGNS wall time (vocab + ingest +
# train). The peers read the decompressed text (decompression is not timed).
. "$(dirname "$0")/lib.sh"
shopt -s inherit_errexit  # a failed calibration run inside $(...) stops the script
cd "$SG_ROOT"
dim=100
window=5
epochs=5
glove_epochs=10
budget=
glove_flags=""
! sg_smoke || { dim=20 epochs=1 glove_epochs=2; }
while getopts "d:w:e:b:g:" opt; do
  case $opt in
    d) dim=$OPTARG ;;
    w) window=$OPTARG ;;
    e) epochs=$OPTARG ;;
    b) budget=$OPTARG ;;
    g) glove_flags=$OPTARG ;;
    *) exit 2 ;;
  esac
done
glove_flags=${glove_flags:-"--dim $dim --epochs $glove_epochs --x-max 10"}
data=$SG_SHARED_DATA
corpus=$data/corpus/wiki100M.txt.zst
sg_need "$corpus"
py=/usr/bin/python3
sg_scratch bench-sgns
zstdcat "$corpus" >"$work/wiki.txt"
# gensim's corpus_file mode drops everything past 10,000 words of a line, and
# wiki100M is one line: give it 1,000-word lines (same tokens).
/usr/bin/python3 -c "
import sys
w = open(sys.argv[1]).read().split()
with open(sys.argv[2], 'w') as out:
    for i in range(0, len(w), 1000): out.write(' '.join(w[i:i + 1000]) + '\\n')
" "$work/wiki.txt" "$work/wiki-lines.txt"
common_min_count=5
negatives=5
subsample=1e-4

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# score NAME VECTORS SECONDS NOTE: one result line.
score() {
  local name=$1 vectors=$2 seconds=$3 note=$4
  "$SG_BIN" eval analogy "$vectors" "$data/eval/analogy/questions-words.txt" --json >"$work/a.json"
  "$SG_BIN" eval similarity "$vectors" "$data/eval/similarity/EN-WS-353-ALL.txt" \
    "$data/eval/similarity/EN-SIMLEX-999.txt" --json >"$work/s.json"
  $py - "$work/a.json" "$work/s.json" "$name" "$seconds" "$note" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["files"][0]
s = json.load(open(sys.argv[2]))
rho = [f["spearman"] for f in s["files"]]
print(f"{sys.argv[3]:<34} {float(sys.argv[4]):>8.1f} s  analogy {a['total']['accuracy']:6.2f}%"
      f" (sem {a['semantic']['accuracy']:5.2f}, syn {a['syntactic']['accuracy']:5.2f})"
      f"  WS-353 {rho[0]:.3f}  SimLex {rho[1]:.3f}  {sys.argv[5]}")
PY
}

# --- streamglove
start=$(now)
"$SG_BIN" vocab "$corpus" --min-count $common_min_count -q -o "$work/vocab.txt"
"$SG_BIN" ingest --store "$work/store" "$corpus" --vocab "$work/vocab.txt" --window "$window" -q
ingest_seconds=$(elapsed "$start")
# --vectors both: w and c side by side, split below into w (word2vec's output) and w + c.
sg_time "$work/sgns.time" "$SG_BIN" train --store "$work/store" -o "$work/sgns-both.txt" --objective sgns \
  --dim "$dim" --epochs "$epochs" --negatives $negatives --subsample $subsample --vectors both >"$work/sgns.err" 2>&1
ours=$(elapsed "$start")
train_seconds=$(awk -v a="$ours" -v b="$ingest_seconds" 'BEGIN { printf "%.1f", a - b }')
awk -v d="$dim" '{ printf "%s", $1; for (i = 2; i <= d + 1; ++i) printf " %s", $i; printf "\n" }' \
  "$work/sgns-both.txt" >"$work/sgns-w.txt"
awk -v d="$dim" '{ printf "%s", $1; for (i = 2; i <= d + 1; ++i) printf " %.6f", $i + $(i + d); printf "\n" }' \
  "$work/sgns-both.txt" >"$work/sgns-wc.txt"
budget=${budget:-$ours}
echo "budget: ${budget} s (streamglove SGNS: vocab + ingest ${ingest_seconds} s, train ${train_seconds} s)"
awk -F'\t' 'NR > 1 {s += $3; p += $6} END {printf "streamglove SGNS training: %d pairs per epoch, %.2f M pairs/s over the epochs\n", p / (NR - 1), p / s / 1e6}' \
  "$work/sgns-both.txt.log.tsv"
grep -o '[0-9.]* M positive updates/s' "$work/sgns.err" | tail -1 | sed 's/^/last epoch: /'
echo "peak RSS of SGNS training: $(sg_peak_rss "$work/sgns.time") MiB"
score "streamglove sgns (w)" "$work/sgns-w.txt" "$ours" "dim $dim, window $window, $epochs epochs"
score "streamglove sgns (w+c)" "$work/sgns-wc.txt" "$ours" "the same run's w + c"
start=$(now)
# shellcheck disable=SC2086
"$SG_BIN" train --store "$work/store" -o "$work/glove.txt" $glove_flags -q
glove_total=$(awk -v a="$ingest_seconds" -v b="$(elapsed "$start")" 'BEGIN { printf "%.1f", a + b }')
score "streamglove glove" "$work/glove.txt" "$glove_total" "$glove_flags, window $window"

# --- peers: epochs that fit the budget
fasttext_run() {  # EPOCHS OUT
  fasttext skipgram -input "$work/wiki.txt" -output "$2" -dim "$dim" -ws "$window" -epoch "$1" \
    -minCount $common_min_count -neg $negatives -t $subsample -thread 2 -minn 0 -maxn 0 -verbose 0 >/dev/null
}
gensim_run() {  # EPOCHS OUT
  $py - "$work/wiki-lines.txt" "$2.vec" "$1" "$dim" "$window" $common_min_count $negatives $subsample <<'PY'
import sys
from gensim.models import Word2Vec
src, out, epochs, dim, window, min_count, neg, sample = sys.argv[1:]
m = Word2Vec(corpus_file=src, sg=1, vector_size=int(dim), window=int(window), min_count=int(min_count),
             negative=int(neg), sample=float(sample), workers=2, epochs=int(epochs))
m.wv.save_word2vec_format(out)
PY
}
fit_epochs() {  # RUN_FUNCTION NAME: prints the epochs that fit the budget
  local s t1 t2
  s=$(now); "$1" 1 "$work/cal1"; t1=$(elapsed "$s")
  s=$(now); "$1" 2 "$work/cal2"; t2=$(elapsed "$s")
  awk -v t1="$t1" -v t2="$t2" -v b="$budget" -v name="$2" 'BEGIN {
    per = t2 - t1; fixed = t1 - per; if (per <= 0) per = t1 / 2;
    n = int((b - fixed) / per); if (n < 1) n = 1;
    printf "%s: 1 epoch %.1f s, 2 epochs %.1f s -> %d epochs fit %s s\n", name, t1, t2, n, b > "/dev/stderr"; print n }'
}
export -f fasttext_run gensim_run
export work dim window common_min_count negatives subsample py
for peer in fasttext gensim; do
  n=$(fit_epochs ${peer}_run "$peer")
  start=$(now)
  sg_time "$work/$peer.time" bash -c "${peer}_run $n $work/$peer"
  seconds=$(elapsed "$start")
  score "$peer skip-gram" "$work/$peer.vec" "$seconds" "dim $dim, window $window, $n epochs, peak RSS $(sg_peak_rss "$work/$peer.time") MiB"
done
