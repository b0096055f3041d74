#!/usr/bin/env bash
# Subword vectors at fastText's wall time: fastText's default skip-gram
# (character n-grams of 3 to 6, 5 epochs) sets the budget; beside it
# fastText without subwords (-minn 0 -maxn 0, 5 epochs), and streamglove as a
# user runs it, `ingest` then `train --budget (budget - ingest)` at the same
# dim and threads: with subwords (--subwords), at the full budget and at
# half of it, and with words as atoms (--no-subwords). The peers share
# window, min-count, negatives and subsampling and read exactly the tokens
# we count (bench/lib.sh sg_peer_corpus); preparing their text is not timed.
#
# Every system is scored by `streamglove eval`: the Google analogies'
# semantic and syntactic halves (over the vocabulary, Stanford's protocol),
# WS-353, SimLex-999, MEN, and Stanford's Rare Words twice: over the vectors
# file (coverage as it comes) and answering every word (a subword system's
# model: our OUT.model, fastText's print-word-vectors of its .bin). The end
# prints each measure per system, the mean over the seeds and their range.
#
#   bench/subwords.sh -c CORPUS [-d DIM] [-s "SEEDS"] [-t THREADS] [-o KEEP_DIR] [-b SECONDS]
#                     [-r "RUNS"]
#
# CORPUS as bench/budget.sh (wiki100M, imdb-text8, imdb-words, wiki-plain).
# DIM defaults to 50, SEEDS to "1 2", THREADS to 2. -b gives the budget
# (fastText's default's wall time as measured before) instead of running
# the peers. RUNS picks ours among "subwords half words" (default: all
# three). Run it on an idle machine. Smoke mode: the budget is 10 s
# whatever fastText's time.
. "$(dirname "$0")/lib.sh"
shopt -s inherit_errexit
cd "$SG_ROOT"
corpus_name=wiki100M
dim=50
seeds="1 2"
threads=2
keep=
fixed_budget=
runs="subwords half words"
while getopts "c:d:s:t:o:b:r:" opt; do
  case $opt in
    c) corpus_name=$OPTARG ;;
    d) dim=$OPTARG ;;
    s) seeds=$OPTARG ;;
    t) threads=$OPTARG ;;
    o) keep=$OPTARG ;;
    b) fixed_budget=$OPTARG ;;
    r) runs=$OPTARG ;;
    *) exit 2 ;;
  esac
done
for run in $runs; do
  case $run in
    subwords | half | words) ;;
    *) echo "-r: no run named '$run' (subwords, half, words)" >&2; exit 2 ;;
  esac
done
command -v fasttext >/dev/null || sg_skip "no fasttext (tools/setup.sh installs it)"
data=$SG_SHARED_DATA
sim=$data/eval/similarity
rw=$sim/EN-RW-STANFORD.txt
sg_need "$rw"
py=/usr/bin/python3
window=5
min_count=5
negatives=5
subsample=1e-4
sg_scratch bench-subwords "$keep"
work=$(cd "$work" && pwd)
sg_peer_corpus "$corpus_name" "$work/peer.txt"
cut -f1,2 "$rw" | tr '\t' '\n' | sort -u >"$work/rw-words.txt"
echo "corpus $corpus_name: $(wc -w <"$work/peer.txt") tokens for the peers; dim $dim, window $window," \
  "min-count $min_count, $negatives negatives, t = $subsample, $threads threads; seeds $seeds"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# record SYSTEM SEED VECTORS ANY_WORD SECONDS NOTE: scores VECTORS (and Rare
# Words on ANY_WORD, a file that answers every word), appends one JSON line
# to results.jsonl and prints it.
record() {
  local system=$1 seed=$2 vectors=$3 any_word=$4 seconds=$5 note=$6
  "$SG_BIN" eval analogy "$vectors" "$data/eval/analogy/questions-words.txt" --json -q >"$work/a.json"
  "$SG_BIN" eval similarity "$vectors" "$sim/EN-WS-353-ALL.txt" "$sim/EN-SIMLEX-999.txt" \
    "$sim/EN-MEN-TR-3k.txt" "$rw" --json -q >"$work/s.json"
  "$SG_BIN" eval similarity "$any_word" "$rw" --json -q >"$work/rw.json"
  $py - "$work" "$system" "$seed" "$seconds" "$note" <<'PY'
import json, sys
work, system, seed, seconds, note = sys.argv[1:]
a = json.load(open(f"{work}/a.json"))["files"][0]
s = json.load(open(f"{work}/s.json"))["files"]
rw = json.load(open(f"{work}/rw.json"))["files"][0]
r = {"system": system, "seed": int(seed), "seconds": float(seconds), "note": note,
     "semantic": a["semantic"]["accuracy"], "syntactic": a["syntactic"]["accuracy"],
     "ws353": s[0]["spearman"], "simlex": s[1]["spearman"], "men": s[2]["spearman"],
     "rw_vocab": s[3]["spearman"], "rw_vocab_seen": s[3]["seen"],
     "rw_any": rw["spearman"], "rw_any_seen": rw["seen"], "rw_pairs": rw["pairs"]}
with open(f"{work}/results.jsonl", "a") as out:
    out.write(json.dumps(r) + "\n")
print(f"  {system:<22} seed {seed} {r['seconds']:6.1f} s  sem {r['semantic']:5.2f}  syn {r['syntactic']:5.2f}"
      f"  WS {r['ws353']:.3f}  SL {r['simlex']:.3f}  MEN {r['men']:.3f}"
      f"  RW {r['rw_vocab']:.3f} ({r['rw_vocab_seen']}/{r['rw_pairs']}) any {r['rw_any']:.3f}"
      f" ({r['rw_any_seen']}/{r['rw_pairs']})  {note}")
PY
}

# fasttext_run SYSTEM SEED FLAGS...: 5 epochs; its wall time in $took.
fasttext_run() {
  local system=$1 seed=$2 start
  shift 2
  start=$(now)
  sg_time "$work/$system.time" fasttext skipgram -input "$work/peer.txt" -output "$work/$system-$seed" \
    -dim "$dim" -ws $window -epoch 5 -minCount $min_count -neg $negatives -t $subsample \
    -thread "$threads" -verbose 0 -seed "$seed" "$@" >/dev/null
  took=$(elapsed "$start")
  fasttext print-word-vectors "$work/$system-$seed.bin" <"$work/rw-words.txt" >"$work/$system-$seed.any"
  record "$system" "$seed" "$work/$system-$seed.vec" "$work/$system-$seed.any" "$took" \
    "5 epochs, peak RSS $(sg_peak_rss "$work/$system.time") MiB"
  rm -f "$work/$system-$seed.bin"
}

# ours SYSTEM SEED BUDGET FLAGS...: train --budget (BUDGET - the ingest's
# time) on the store, at the peers' dim, as skip-gram.
ours() {
  local system=$1 seed=$2 total=$3 out train_budget start plan any
  shift 3
  out=$work/$system-$seed.txt
  train_budget=$(awk -v b="$total" -v i="$ingest_seconds" 'BEGIN { printf "%.1f", b - i }')
  start=$(now)
  sg_time "$work/$system.time" "$SG_BIN" train --store "$work/store" -o "$out" --objective sgns \
    --dim "$dim" --budget "${train_budget}s" --threads "$threads" --seed "$seed" -q "$@" \
    2>"$work/$system-$seed.err"
  plan=$(awk -F'\t' '$1 == "epochs" { printf "%s epochs", $2 }' "$out.plan")
  any=$out
  [ ! -f "$out.model" ] || any=$out.model
  record "$system" "$seed" "$out" "$any" \
    "$(awk -v i="$ingest_seconds" -v t="$(elapsed "$start")" 'BEGIN { printf "%.1f", i + t }')" \
    "ingest ${ingest_seconds} s + train --budget ${train_budget}s: $plan, peak RSS $(sg_peak_rss "$work/$system.time") MiB"
  rm -f "$out.checkpoint" "$out.model"
}

for seed in $seeds; do
  echo "seed $seed"
  if [ -n "$fixed_budget" ]; then
    budget=$fixed_budget
  else
    fasttext_run fasttext-default "$seed" -minn 3 -maxn 6
    budget=$took
    ! sg_smoke || budget=10
    fasttext_run fasttext-minn0 "$seed" -minn 0 -maxn 0
  fi
  rm -rf "$work/store"
  start=$(now)
  "$SG_BIN" ingest --store "$work/store" --window $window --min-count $min_count --subsample $subsample \
    --threads "$threads" "${ingest_flags[@]}" "${ingest_inputs[@]}" -q
  ingest_seconds=$(elapsed "$start")
  for run in $runs; do
    case $run in
      subwords) ours streamglove-subwords "$seed" "$budget" --subwords ;;
      half) ours streamglove-subwords-half "$seed" "$(awk -v b="$budget" 'BEGIN { print b / 2 }')" --subwords ;;
      words) ours streamglove-words "$seed" "$budget" --no-subwords ;;
    esac
  done
done

$py - "$work/results.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
measures = [("semantic", "sem %", 2), ("syntactic", "syn %", 2), ("ws353", "WS-353", 3),
            ("simlex", "SimLex", 3), ("men", "MEN", 3), ("rw_any", "RW any", 3)]
by = {}
for r in rows:
    by.setdefault(r["system"], []).append(r)
print("\nmean [min, max] over the seeds")
for system, runs in by.items():
    cells = []
    for m, label, p in measures:
        v = [r[m] for r in runs]
        cells.append(f"{label} {sum(v) / len(v):.{p}f} [{min(v):.{p}f}, {max(v):.{p}f}]")
    seen = runs[0]["rw_any_seen"]
    print(f"  {system:<26} {sum(r['seconds'] for r in runs) / len(runs):6.1f} s  " + "  ".join(cells)
          + f"  (RW pairs answered {seen}/{runs[0]['rw_pairs']})")
PY
