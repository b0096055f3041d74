#!/usr/bin/env bash
# Additions and warm starts on wiki100M: ingest 90% of it and train; add the
# other 10% and train again, warm (from the first run's vectors, fewer
# epochs) and from scratch (every seed of SEEDS); prints each run's training
# time and scores (analogy total, WS-353, SimLex-999, MEN by
# tools/eval_vectors.py) and the warm runs' time against the mean from-scratch
# run's.
#
#   bench/additions.sh [-w WORK]
#   env: SG_BUILD (build), SG_SHARED_DATA (../shared/data), SEEDS ("1 2"),
#        WARM_EPOCHS ("5 6": the from-scratch preset trains 15), PRESET (glove-demo)
#   smoke mode: SEEDS 1, WARM_EPOCHS 1, the from-scratch runs 2 epochs
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
work=""
while getopts "w:" opt; do
  case $opt in
    w) work=$OPTARG ;;
    *) exit 2 ;;
  esac
done
data=$SG_SHARED_DATA
corpus=$data/corpus/wiki100M.txt.zst
sg_need "$corpus"
scratch_flags=()
if sg_smoke; then
  : "${SEEDS:=1}" "${WARM_EPOCHS:=1}"
  scratch_flags=(--epochs 2)
fi
seeds=${SEEDS:-1 2}
warm_epochs=${WARM_EPOCHS:-5 6}
preset=${PRESET:-glove-demo}
sg_scratch bench-additions "$work"
store=$work/store
flags=(--window 15 --min-count 5 --memory 1G --threads 2)

# wiki100M is one line: the first 90% of its bytes (cut at a space) and the rest.
if [ ! -f "$work/part10.txt" ]; then
  zstd -dc "$corpus" | /usr/bin/python3 -c '
import sys
text = sys.stdin.buffer.read()
cut = text.index(b" ", len(text) * 9 // 10) + 1
open(sys.argv[1] + "/part90.txt", "wb").write(text[:cut].rstrip(b" ") + b"\n")
open(sys.argv[1] + "/part10.txt", "wb").write(text[cut:].rstrip(b" \n") + b"\n")
' "$work"
fi

seconds() { awk '{ print $1 }' "$1"; }
timed() {  # NAME COMMAND...: runs it, its wall seconds to WORK/NAME.time, stderr to NAME.err
  local name=$1
  shift
  local start
  start=$(date +%s.%N)
  "$@" 2>"$work/$name.err"
  echo "$(date +%s.%N) - $start" | bc >"$work/$name.time"
}
train() {  # NAME SEED [ARGS...]
  local name=$1 seed=$2
  shift 2
  timed "$name" "$SG_BIN" train --store "$store" -o "$work/$name.txt" --preset "$preset" --seed "$seed" \
    --threads 2 "$@"
}
score() {  # NAME: "analogy ws353 simlex men"
  /usr/bin/python3 "$SG_ROOT/tools/eval_vectors.py" "$work/$1.txt" "$data" --json | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
print("%.2f %.3f %.3f %.3f" % (r["analogy"]["total"], r["ws353"]["spearman"],
                              r["simlex999"]["spearman"], r["men"]["spearman"]))'
}

rm -rf "$store"
timed ingest90 "$SG_BIN" ingest --store "$store" "$work/part90.txt" "${flags[@]}"
train first 1 "${scratch_flags[@]}"
timed ingest10 "$SG_BIN" ingest --store "$store" "$work/part90.txt" "$work/part10.txt" "${flags[@]}"
for seed in $seeds; do train "scratch-$seed" "$seed" "${scratch_flags[@]}"; done
for e in $warm_epochs; do train "warm-$e" 1 --epochs "$e" --warm-start "$work/first.txt"; done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); build $(git rev-parse --short HEAD)"
echo "ingest 90%: $(seconds "$work/ingest90.time") s; adding 10%: $(seconds "$work/ingest10.time") s: $(grep -o '[0-9]* inputs ingested.*new)' "$work/ingest10.err")"
echo
echo "| run (after the addition unless said) | training (s) | analogy % | WS-353 | SimLex-999 | MEN |"
echo "|---|---:|---:|---:|---:|---:|"
scratch_sum=0
scratch_n=0
for run in first $(for s in $seeds; do echo "scratch-$s"; done) $(for e in $warm_epochs; do echo "warm-$e"; done); do
  t=$(seconds "$work/$run.time")
  read -r a w s m < <(score "$run")
  label=$run
  [ "$run" = first ] && label="first (90% only, seed 1)"
  case $run in scratch-*) scratch_sum=$(echo "$scratch_sum + $t" | bc); scratch_n=$((scratch_n + 1)) ;; esac
  printf "| %s | %.1f | %s | %s | %s | %s |\n" "$label" "$t" "$a" "$w" "$s" "$m"
done
mean=$(echo "scale=3; $scratch_sum / $scratch_n" | bc)
echo
for e in $warm_epochs; do
  echo "warm-$e: $(echo "scale=3; $(seconds "$work/warm-$e.time") / $mean" | bc) of the mean from-scratch training time ($mean s); $(grep -o 'warm: [^)]*' "$work/warm-$e.err")"
done
