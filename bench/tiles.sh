#!/usr/bin/env bash
# Training in tiles against Hogwild blocks (train --schedule tiles|hogwild),
# side by side on wiki100M, 2 threads: GloVe at Stanford's demo settings
# (--preset glove-demo, a window-15 store) and skip-gram (dim 100, 5 epochs,
# a window-5 store subsampled at 1e-4, with and without subwords), for each
# seed: wall time, the epochs' mean rate after the first, the analogies'
# halves, WS-353, SimLex-999, MEN, peak RSS. Then the tiles' promise: one
# epoch of each objective (words as atoms) at --threads 1, 2 and 3, whose
# vectors files must be byte-identical.
#
#   bench/tiles.sh [-s "SEED..."] [-o "glove sgns"] [-k "tiles hogwild"]
#                                        (default: seeds "1 2", both, both)
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
seeds="1 2"
objectives="glove sgns"
schedules="tiles hogwild"
while getopts "s:o:k:" opt; do
  case $opt in
    s) seeds=$OPTARG ;;
    o) objectives=$OPTARG ;;
    k) schedules=$OPTARG ;;
    *) echo "usage: bench/tiles.sh [-s SEEDS] [-o OBJECTIVES] [-k SCHEDULES]" >&2; exit 2 ;;
  esac
done
data=$SG_SHARED_DATA
corpus=$data/corpus/wiki100M.txt.zst
sim=$data/eval/similarity
sg_need "$SG_BIN" "$corpus" "$data/eval/analogy/questions-words.txt" "$sim/EN-WS-353-ALL.txt" \
  "$sim/EN-SIMLEX-999.txt" "$sim/EN-MEN-TR-3k.txt"
sg_scratch tiles
# Smoke runs: 2 epochs of dim 8 whatever the variant.
smoke_flags() {
  if sg_smoke; then
    echo "$1" | sed -E 's/ --(dim|epochs) [0-9]+//g; s/$/ --epochs 2 --dim 8/'
  else
    echo "$1"
  fi
}

# ROW NAME VECTORS TIME_REPORT: one line of figures.
report() {
  local name=$1 v=$2 t=$3
  "$SG_BIN" eval analogy "$v" "$data/eval/analogy/questions-words.txt" --json >"$work/a.json"
  "$SG_BIN" eval similarity "$v" "$sim/EN-WS-353-ALL.txt" "$sim/EN-SIMLEX-999.txt" \
    "$sim/EN-MEN-TR-3k.txt" --json >"$work/s.json"
  python3 - "$work/a.json" "$work/s.json" "$v.log.tsv" "$name" "$(sg_wall "$t")" \
    "$(sg_peak_rss "$t")" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["files"][0]
rho = [f["spearman"] for f in json.load(open(sys.argv[2]))["files"]]
rows = [l.split("\t") for l in open(sys.argv[3]).read().splitlines()[1:]]
later = rows[1:] or rows
rate = sum(float(r[5]) for r in later) / sum(float(r[2]) for r in later) / 1e6
print(f"{sys.argv[4]:<22} {float(sys.argv[5]):7.1f} s  {rate:6.2f} M pairs/s"
      f"  sem {a['semantic']['accuracy']:5.2f}  syn {a['syntactic']['accuracy']:5.2f}"
      f"  WS-353 {rho[0]:.3f}  SimLex {rho[1]:.3f}  MEN {rho[2]:.3f}  {sys.argv[6]} MiB")
PY
}

echo "tiles against hogwild on wiki100M, 2 threads, seeds $seeds ($SG_BIN)"
for objective in $objectives; do
  store=$work/store-$objective
  if [ "$objective" = glove ]; then
    "$SG_BIN" ingest --store "$store" "$corpus" --window 15 --min-count 5 --threads 2 -q
    variants=("glove-demo|--preset glove-demo")
  else
    "$SG_BIN" ingest --store "$store" "$corpus" --window 5 --min-count 5 --subsample 1e-4 \
      --threads 2 -q
    variants=("sgns-d100|--objective sgns --dim 100 --epochs 5 --no-subwords"
      "sgns-d100-subwords|--objective sgns --dim 100 --epochs 5")
  fi
  for variant in "${variants[@]}"; do
    IFS='|' read -r label flags <<<"$variant"
    for seed in $seeds; do
      for schedule in $schedules; do
        v=$work/$label-$schedule-$seed.txt
        # shellcheck disable=SC2046  # the flags are words
        sg_time "$work/t" "$SG_BIN" train --store "$store" -o "$v" $(smoke_flags "$flags") \
          --seed "$seed" --threads 2 --schedule "$schedule" -q
        report "$label $schedule s$seed" "$v" "$work/t"
      done
    done
  done
  # One epoch at 1, 2 and 3 threads: the same bytes.
  flags="--dim 50"
  [ "$objective" = glove ] || flags="--objective sgns --dim 50 --no-subwords"
  sums=""
  for threads in 1 2 3; do
    # shellcheck disable=SC2086
    "$SG_BIN" train --store "$store" -o "$work/same-$threads.txt" $flags --schedule tiles --epochs 1 \
      --threads "$threads" -q
    sums+="$(md5sum <"$work/same-$threads.txt" | cut -c1-12) "
  done
  if [ "$(echo "$sums" | tr ' ' '\n' | sort -u | grep -c .)" = 1 ]; then
    echo "$objective tiles at 1, 2, 3 threads: identical vectors ($sums)"
  else
    echo "$objective tiles at 1, 2, 3 threads: DIFFERENT vectors ($sums)"
    exit 1
  fi
done
