#!/usr/bin/env bash
# Benchmark of `streamglove ingest` on wiki100M (window 15, min-count 5), side by
# side with Stanford GloVe's vocab_count + cooccur when GLOVE_BIN names a
# directory holding them (built from its sources; never part of this project).
#
#   bench/ingest.sh [BUILD_DIR]
#   env: SG_SHARED_DATA (default ../shared/data), GLOVE_BIN, MEMORY (default 512M)
# Prints a markdown table; wall times and peak RSS from /usr/bin/time.
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
[ -z "${1:-}" ] || sg_build "$1"
corpus=$SG_SHARED_DATA/corpus/wiki100M.txt.zst
memory=${MEMORY:-512M}
sg_need "$corpus"
sg_scratch bench-ingest

timed() {  # timed NAME command... : appends "NAME wall rss_mib" to $work/times, output to $work/NAME.out
  local name=$1
  shift
  sg_time "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err"
  echo "$name $(sg_wall "$work/$name.time") $(sg_peak_rss "$work/$name.time")" >>"$work/times"
}
wall() { awk -v n="$1" '$1 == n { print $2 }' "$work/times"; }
rss_mb() { awk -v n="$1" '$1 == n { print $3 }' "$work/times"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"
zstd -dc "$corpus" >"$work/wiki100M.txt"
"$SG_BIN" vocab "$corpus" --min-count 5 -o "$work/vocab.txt" -q

for mode in read tokenize lookup; do
  timed "scan-$mode" "$SG_BUILD/streamglove-scan" "$corpus" --mode $mode --vocab "$work/vocab.txt"
done
# Stanford's counting (a fixed vocabulary), to compare with vocab_count + cooccur.
timed ingest "$SG_BIN" ingest --store "$work/store" "$corpus" --min-count 5 --fixed-vocab --window 15 --memory "$memory"
timed ingest-1G "$SG_BIN" ingest --store "$work/store-1G" "$corpus" --min-count 5 --fixed-vocab --window 15 --memory 1G
split=$(grep -oE 'vocabulary [0-9.]+ s, counting [0-9.]+ s, store [0-9.]+ s' "$work/ingest.err")
"$SG_BIN" stats --store "$work/store" --json --exact >"$work/stats.json"
pairs=$(grep -oE '"nonzero_pairs": ?[0-9]+' "$work/stats.json" | grep -oE '[0-9]+$')
sum=$(grep -oE '"sum_of_counts": ?[0-9.]+' "$work/stats.json" | grep -oE '[0-9.]+$')
disk=$(grep -oE '"size_on_disk": ?[0-9]+' "$work/stats.json" | grep -oE '[0-9]+$')

echo
echo "| run | wall (s) | peak RSS (MiB) |"
echo "|---|---:|---:|"
for mode in read tokenize lookup; do
  echo "| floor: $(cat "$work/scan-$mode.out" | cut -d: -f1) (.zst, 2 threads) | $(wall scan-$mode) | $(rss_mb scan-$mode) |"
done
echo "| streamglove ingest --memory $memory (vocabulary pass included) | $(wall ingest) | $(rss_mb ingest) |"
echo "| streamglove ingest --memory 1G | $(wall ingest-1G) | $(rss_mb ingest-1G) |"

if [ -n "${GLOVE_BIN:-}" ]; then
  timed glove-vocab sh -c "'$GLOVE_BIN/vocab_count' -min-count 5 -verbose 0 < '$work/wiki100M.txt' > '$work/glove-vocab.txt'"
  timed glove-cooccur sh -c "'$GLOVE_BIN/cooccur' -memory 4 -vocab-file '$work/glove-vocab.txt' -verbose 0 -window-size 15 < '$work/wiki100M.txt' > '$work/cooccurrence.bin'"
  glove_total=$(echo "$(wall glove-vocab) + $(wall glove-cooccur)" | bc)
  echo "| Stanford vocab_count | $(wall glove-vocab) | $(rss_mb glove-vocab) |"
  echo "| Stanford cooccur -memory 4 | $(wall glove-cooccur) | $(rss_mb glove-cooccur) |"
  echo
  echo "ingest / (vocab_count + cooccur): $(wall ingest) / $glove_total = $(echo "scale=3; $(wall ingest) / $glove_total" | bc)"
  cmp -s "$work/vocab.txt" "$work/glove-vocab.txt" && echo "vocabulary: byte-identical to vocab_count's"
  "$SG_BIN" dump --store "$work/store" --format glove -o "$work/ours.bin"
  /usr/bin/python3 - "$work/ours.bin" "$work/cooccurrence.bin" <<'PY'
import sys
import numpy as np
rec = np.dtype([("w1", "<i4"), ("w2", "<i4"), ("val", "<f8")])
ours, theirs = (np.fromfile(p, dtype=rec) for p in sys.argv[1:3])
print(f"dump --format glove: {len(ours)} records; Stanford cooccur: {len(theirs)} records")
if len(ours) == len(theirs) and (ours["w1"] == theirs["w1"]).all() and (ours["w2"] == theirs["w2"]).all():
    rel = np.abs(ours["val"] - theirs["val"]) / theirs["val"]
    print(f"same pairs in the same order; max relative difference of counts {rel.max():.2e} "
          f"(Stanford sums doubles in file order, we sum exactly)")
else:
    print("pairs differ")
PY
fi
echo
echo "counts: $pairs non-zero pairs, sum $sum, $(echo "scale=2; $disk / $pairs" | bc) bytes per pair on disk"
echo "ingest time split: $split"
