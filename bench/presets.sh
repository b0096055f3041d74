#!/usr/bin/env bash
# The training presets on wiki100M, each timed from the compressed corpus to
# the vectors file and scored: the README's "analogies at Stanford's demo
# settings" (glove-demo) and "best vectors in Stanford's demo wall time"
# (sgns-demo-time, against the 845 s of Stanford's demo.sh). A preset's
# store is GloVe's (`ingest --window 15 --min-count 5`) or, for skip-gram,
# word2vec's windows (`--window 5 --subsample 1e-4`); then `train --preset
# P --seed SEED --threads 2`. Prints one line per preset: wall time (ingest +
# train), the Google analogies (semantic and syntactic halves), WS-353 and
# SimLex-999 by `streamglove eval`. Run on an idle machine.
#
#   bench/presets.sh [-s SEED] [PRESET...]     (default: glove-demo sgns-demo-time)
#   env: SG_BUILD (build), SG_SHARED_DATA (../shared/data)
#
# Smoke mode: the presets' objective and store, 1 epoch at dim 8.
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
seed=1
while getopts "s:" opt; do
  case $opt in
    s) seed=$OPTARG ;;
    *) echo "usage: bench/presets.sh [-s SEED] [PRESET...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(glove-demo sgns-demo-time)
data=$SG_SHARED_DATA
corpus=$data/corpus/wiki100M.txt.zst
sg_need "$SG_BIN" "$corpus" "$data/eval/analogy/questions-words.txt" \
  "$data/eval/similarity/EN-WS-353-ALL.txt" "$data/eval/similarity/EN-SIMLEX-999.txt"
sg_scratch presets
smoke_flags=()
! sg_smoke || smoke_flags=(--epochs 1 --dim 8)

# The store a preset trains on: skip-gram's presets count word2vec's windows.
store_flags() {
  case $1 in
    sgns*) echo "--window 5 --min-count 5 --subsample 1e-4" ;;
    *) echo "--window 15 --min-count 5" ;;
  esac
}

echo "presets on wiki100M, seed $seed, 2 threads ($SG_BIN)"
for preset in "${presets[@]}"; do
  rm -rf "$work/store" "$work/v.txt"*
  # shellcheck disable=SC2046  # the flags are words
  sg_time "$work/ingest.time" "$SG_BIN" ingest --store "$work/store" "$corpus" \
    $(store_flags "$preset") --threads 2 -q
  sg_time "$work/train.time" "$SG_BIN" train --store "$work/store" -o "$work/v.txt" \
    --preset "$preset" --seed "$seed" --threads 2 "${smoke_flags[@]}" -q
  ingest_s=$(sg_wall "$work/ingest.time")
  train_s=$(sg_wall "$work/train.time")
  "$SG_BIN" eval analogy "$work/v.txt" "$data/eval/analogy/questions-words.txt" --json >"$work/a.json"
  "$SG_BIN" eval similarity "$work/v.txt" "$data/eval/similarity/EN-WS-353-ALL.txt" \
    "$data/eval/similarity/EN-SIMLEX-999.txt" --json >"$work/s.json"
  python3 - "$work/a.json" "$work/s.json" "$preset" "$ingest_s" "$train_s" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["files"][0]
rho = [f["spearman"] for f in json.load(open(sys.argv[2]))["files"]]
ingest, train = float(sys.argv[4]), float(sys.argv[5])
print(f"{sys.argv[3]:<16} {ingest + train:7.1f} s (ingest {ingest:.1f}, train {train:.1f})"
      f"  analogy {a['total']['accuracy']:6.2f}% (sem {a['semantic']['accuracy']:5.2f},"
      f" syn {a['syntactic']['accuracy']:5.2f})  WS-353 {rho[0]:.3f}  SimLex {rho[1]:.3f}")
PY
done
