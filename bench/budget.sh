#!/usr/bin/env bash
# Equal wall time against the peers, as a user would run us: fastText's
# skip-gram (Debian's `fasttext`, subwords off) trains 5 epochs and its wall
# time is the budget; gensim's Word2Vec skip-gram trains 5 epochs beside it;
# streamglove ingests the corpus and runs `train --budget (budget - ingest)`
# with nothing else given but --no-subwords (words as atoms, as the peers
# here; bench/subwords.sh compares subwords), so the objective, dim and
# epochs are its own choice.
# Its store holds word2vec's windows (`ingest --window 5 --subsample t`, the
# peers' -ws and -t: windows formed after subsampling, so they reach past the
# words dropped); with -p it also trains, as system streamglove-pairs, on a
# store ingested without --subsample, whose pairs the trainer subsamples.
# The peers share dim, window, min-count, negatives and subsampling, and read
# exactly the tokens we count (the text8 corpora as they are, the raw corpora
# through `streamglove-scan --mode print`); preparing their text is not timed.
# Every vectors file is scored by `streamglove eval` (questions-words by
# Stanford's protocol, WS-353, SimLex-999, MEN), once per seed, and the end
# prints each measure per system and ours minus each peer: the mean over the
# seeds and the seeds' range. Run it on an idle machine.
#
#   bench/budget.sh -c CORPUS [-d DIM] [-s "SEEDS"] [-t THREADS] [-o KEEP_DIR] [-p] [-e]
#                   [-b SECONDS] [-a "TRAIN FLAGS"]
#
# CORPUS: wiki100M, imdb-text8 (imdb100k normalised like text8), imdb-words
# (imdb100k, --tokenizer words --lowercase) or wiki-plain (the JSONL shards,
# the same). DIM (the peers' dim) defaults to 100, SEEDS to "1 2", THREADS to
# 2. With -e it also runs, as system streamglove-embed, the one command
# `embed INPUTS -o OUT --budget B`, which chooses the store itself. -b gives
# the budget (fastText's wall time as measured before) instead of running the
# peers. -a adds flags to our train command (`-a "--schedule hogwild"`: Hogwild
# blocks instead of the default tiles). With -o the vectors, logs and per-run
# results (results.jsonl) are kept.
# SG_BUILD names the build directory to run (default: build), SG_SHARED_DATA
# the data (../shared/data). Smoke mode: the budget is 8 s whatever fastText's time
# (the plan's measurements come first: a smaller one leaves nothing to train).
. "$(dirname "$0")/lib.sh"
shopt -s inherit_errexit
cd "$SG_ROOT"
corpus_name=
dim=100
seeds="1 2"
threads=2
keep=
pairs_too=
embed_too=
fixed_budget=
train_flags=()
while getopts "c:d:s:t:o:peb:a:" opt; do
  case $opt in
    c) corpus_name=$OPTARG ;;
    d) dim=$OPTARG ;;
    s) seeds=$OPTARG ;;
    t) threads=$OPTARG ;;
    o) keep=$OPTARG ;;
    p) pairs_too=1 ;;
    e) embed_too=1 ;;
    b) fixed_budget=$OPTARG ;;
    a) read -ra train_flags <<<"$OPTARG" ;;
    *) exit 2 ;;
  esac
done
data=$SG_SHARED_DATA
py=/usr/bin/python3
window=5
min_count=5
negatives=5
subsample=1e-4
sg_scratch bench-budget "$keep"
work=$(cd "$work" && pwd)

sg_peer_corpus "$corpus_name" "$work/peer.txt"
echo "corpus $corpus_name: $(wc -w <"$work/peer.txt") tokens for the peers; dim $dim, window $window," \
  "min-count $min_count, $negatives negatives, t = $subsample, $threads threads; seeds $seeds"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# record SYSTEM SEED VECTORS SECONDS NOTE: scores VECTORS, appends one JSON line
# to results.jsonl and prints it readably.
record() {
  local system=$1 seed=$2 vectors=$3 seconds=$4 note=$5
  "$SG_BIN" eval analogy "$vectors" "$data/eval/analogy/questions-words.txt" --json -q >"$work/a.json"
  "$SG_BIN" eval similarity "$vectors" "$data/eval/similarity/EN-WS-353-ALL.txt" \
    "$data/eval/similarity/EN-SIMLEX-999.txt" "$data/eval/similarity/EN-MEN-TR-3k.txt" --json -q >"$work/s.json"
  $py - "$work/a.json" "$work/s.json" "$system" "$seed" "$seconds" "$note" "$work/results.jsonl" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["files"][0]
s = [f["spearman"] for f in json.load(open(sys.argv[2]))["files"]]
r = {"system": sys.argv[3], "seed": int(sys.argv[4]), "seconds": float(sys.argv[5]), "note": sys.argv[6],
     "analogy": a["total"]["accuracy"], "semantic": a["semantic"]["accuracy"],
     "syntactic": a["syntactic"]["accuracy"], "ws353": s[0], "simlex": s[1], "men": s[2]}
with open(sys.argv[7], "a") as out:
    out.write(json.dumps(r) + "\n")
print(f"  {r['system']:<17} seed {r['seed']} {r['seconds']:7.1f} s  analogy {r['analogy']:6.2f}%"
      f" (sem {r['semantic']:5.2f} / syn {r['syntactic']:5.2f})  WS-353 {r['ws353']:.3f}"
      f"  SimLex {r['simlex']:.3f}  MEN {r['men']:.3f}  {r['note']}")
PY
}

# run_ours SYSTEM SEED [INGEST FLAGS...]: ours as a user runs it, the
# ingest's time coming out of the budget ($budget, fastText's wall time).
run_ours() {
  local system=$1 seed=$2
  shift 2
  rm -rf "$work/store" "$work/$system-$seed".txt*
  local start ingest_seconds train_budget seconds plan
  start=$(now)
  "$SG_BIN" ingest --store "$work/store" --window $window --min-count $min_count --threads "$threads" \
    "$@" "${ingest_flags[@]}" "${ingest_inputs[@]}" -q
  ingest_seconds=$(elapsed "$start")
  train_budget=$(awk -v b="$budget" -v i="$ingest_seconds" 'BEGIN { printf "%.1f", b - i }')
  sg_time "$work/$system.time" "$SG_BIN" train --store "$work/store" -o "$work/$system-$seed.txt" \
    --budget "${train_budget}s" --threads "$threads" --seed "$seed" --no-subwords "${train_flags[@]}" -q \
    2>"$work/$system-$seed.err"
  seconds=$(elapsed "$start")
  plan=$(awk -F'\t' '$1 == "objective" || $1 == "dim" || $1 == "epochs" { printf "%s %s, ", $1, $2 }' \
    "$work/$system-$seed.txt.plan")
  record "$system" "$seed" "$work/$system-$seed.txt" "$seconds" \
    "ingest ${ingest_seconds} s + train --budget ${train_budget}s: ${plan}peak RSS $(sg_peak_rss "$work/$system.time") MiB"
  rm -f "$work/$system-$seed.txt.checkpoint"
}

# run_embed SEED: the one command, with fastText's wall time as its budget.
run_embed() {
  local seed=$1 start seconds plan
  rm -rf "$work/embed-$seed".txt*
  start=$(now)
  sg_time "$work/embed.time" "$SG_BIN" embed "${ingest_flags[@]}" "${ingest_inputs[@]}" \
    -o "$work/embed-$seed.txt" --budget "${budget}s" --threads "$threads" --seed "$seed" \
    --no-subwords 2>"$work/embed-$seed.err"
  seconds=$(elapsed "$start")
  plan=$(awk -F'\t' '$1 == "objective" || $1 == "dim" || $1 == "epochs" { printf "%s %s, ", $1, $2 }' \
    "$work/embed-$seed.txt.plan")
  record streamglove-embed "$seed" "$work/embed-$seed.txt" "$seconds" \
    "${plan}$(awk '{printf "%.0f%% of the budget", 100 * $1 / $2}' <<<"$seconds $budget"), peak RSS $(sg_peak_rss "$work/embed.time") MiB"
  rm -rf "$work/embed-$seed.txt.checkpoint" "$work/embed-$seed.txt.store"
}

for seed in $seeds; do
  echo "seed $seed"
  if [ -n "$fixed_budget" ]; then
    budget=$fixed_budget
    run_ours streamglove "$seed" --subsample $subsample
    [ -z "$embed_too" ] || run_embed "$seed"
    continue
  fi
  start=$(now)
  sg_time "$work/fasttext.time" fasttext skipgram -input "$work/peer.txt" -output "$work/fasttext-$seed" \
    -dim "$dim" -ws $window -epoch 5 -minCount $min_count -neg $negatives -t $subsample -thread "$threads" \
    -minn 0 -maxn 0 -verbose 0 -seed "$seed" >/dev/null
  budget=$(elapsed "$start")
  record fasttext "$seed" "$work/fasttext-$seed.vec" "$budget" \
    "dim $dim, 5 epochs, peak RSS $(sg_peak_rss "$work/fasttext.time") MiB"
  rm -f "$work/fasttext-$seed.bin"
  ! sg_smoke || budget=8

  start=$(now)
  sg_time "$work/gensim.time" $py - "$work/peer.txt" "$work/gensim-$seed.vec" "$seed" "$dim" $window \
    $min_count $negatives $subsample "$threads" <<'PY'
import sys
from gensim.models import Word2Vec
src, out, seed, dim, window, min_count, neg, sample, threads = sys.argv[1:]
m = Word2Vec(corpus_file=src, sg=1, vector_size=int(dim), window=int(window), min_count=int(min_count),
             negative=int(neg), sample=float(sample), workers=int(threads), epochs=5, seed=int(seed))
m.wv.save_word2vec_format(out)
PY
  record gensim "$seed" "$work/gensim-$seed.vec" "$(elapsed "$start")" \
    "dim $dim, 5 epochs, peak RSS $(sg_peak_rss "$work/gensim.time") MiB"

  run_ours streamglove "$seed" --subsample $subsample
  [ -z "$pairs_too" ] || run_ours streamglove-pairs "$seed"
  [ -z "$embed_too" ] || run_embed "$seed"
done

# Per measure: each system's mean over the seeds, then ours minus each peer
# (seed by seed, so a peer's seed is paired with ours): mean and range.
$py - "$work/results.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
measures = [("analogy", "analogy %", 2), ("ws353", "WS-353", 3), ("simlex", "SimLex-999", 3), ("men", "MEN", 3)]
by = {}
for r in rows:
    by.setdefault(r["system"], {})[r["seed"]] = r
seeds = sorted(by["streamglove"])
print(f"\nmeans over seeds {seeds}")
for system, runs in by.items():
    n = len(runs)
    cells = "  ".join(f"{label} {sum(r[m] for r in runs.values()) / n:.{p}f}" for m, label, p in measures)
    print(f"  {system:<17} {sum(r['seconds'] for r in runs.values()) / n:7.1f} s  {cells}")
for peer in [s for s in by if s != "streamglove" and s in ("fasttext", "gensim")]:
    print(f"streamglove minus {peer}, seed by seed: mean [min, max]")
    for m, label, p in measures:
        d = [by["streamglove"][s][m] - by[peer][s][m] for s in seeds if s in by[peer]]
        print(f"  {label:<11} {sum(d) / len(d):+.{p}f} [{min(d):+.{p}f}, {max(d):+.{p}f}]")
PY
