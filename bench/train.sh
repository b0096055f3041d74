#!/usr/bin/env bash
# How `streamglove train` scales with threads, side by side with Stanford's
# glove.c: one epoch (one glove.c iteration) of GloVe on the wiki100M store
# (window 15, min-count 5, 59.7 M pairs) at each thread count and dim, as
# whole processes (load, train, write the vectors; our block stream built
# beforehand and reused, as glove.c's shuffled file is), the median of RUNS
# runs taken in turn (A B A B ...). Then the memory floor: the rows per
# second this machine's memory system gives at the trainer's access pattern
# (bench/membw.cc), divided by the four rows a GloVe pair touches, as an
# upper bound on pairs/s, and each run's ratio to it.
#
#   bench/train.sh [BUILD_DIR]
#   env: SG_SHARED_DATA (../shared/data), GLOVE_BIN (directory holding glove.c's
#        `glove` and `shuffle`; without it, our rows only), THREADS
#        ("1 2 4 8 16"), DIMS ("50 300"), RUNS (3), WORK (a temporary
#        directory; set it to keep the store and glove.c's shuffled file)
#   smoke mode: THREADS "1 2", DIMS 50, RUNS 1, the memory floor measured for
#   0.2 s instead of 2
#
# Threads beyond the machine's cores oversubscribe them (training, unlike
# ingest, takes the count it is given), so on 2 cores the 4-16 rows show
# what oversubscription costs.
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
[ -z "${1:-}" ] || sg_build "$1"
corpus=$SG_SHARED_DATA/corpus/wiki100M.txt.zst
sg_need "$corpus"
sg_scratch bench-train "${WORK:-}"
membw_seconds=2
! sg_smoke || { : "${THREADS:=1 2}" "${DIMS:=50}" "${RUNS:=1}"; membw_seconds=0.2; }
threads=${THREADS:-1 2 4 8 16}
runs=${RUNS:-3}
dims=${DIMS:-50 300}
glove_bin=${GLOVE_BIN:-}
store=$work/store

# Stanford's counts (a fixed vocabulary): glove.c trains on the same pairs.
[ -d "$store" ] || "$SG_BIN" ingest --store "$store" "$corpus" --window 15 --min-count 5 --fixed-vocab --memory 2G -q
pairs=$("$SG_BIN" stats --store "$store" --json --exact | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["nonzero_pairs"])')
vocab=$("$SG_BIN" stats --store "$store" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["vocab_size"])')
if [ -n "$glove_bin" ]; then
  if [ ! -f "$work/cooccurrence.shuf.bin" ]; then
    "$SG_BIN" vocab "$corpus" --min-count 5 -q -o "$work/vocab.txt"
    "$SG_BIN" dump --store "$store" --format glove -o "$work/cooccurrence.bin"
    "$glove_bin/shuffle" -memory 4 -verbose 0 -seed 1 <"$work/cooccurrence.bin" >"$work/cooccurrence.shuf.bin" 2>/dev/null
    rm "$work/cooccurrence.bin"
  fi
fi

# timed NAME COMMAND...: one run; appends "wall peak_rss_mib" to NAME.times
timed() {
  local name=$1
  shift
  sg_time "$work/$name.one" "$@" >/dev/null 2>"$work/$name.err" ||
    { echo "FAIL: $*"; cat "$work/$name.err"; exit 1; }
  echo "$(sg_wall "$work/$name.one") $(sg_peak_rss "$work/$name.one")" >>"$work/$name.times"
}
median() { cut -d' ' -f1 "$work/$1.times" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rss_mib() { cut -d' ' -f2 "$work/$1.times" | sort -g | tail -n 1; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"
echo "GloVe, wiki100M window 15, $pairs stored pairs, $vocab words; one epoch, whole process, median of $runs"
for dim in $dims; do
  stride_bytes=$(((dim + 1 + 15) / 16 * 64))
  echo
  echo "dim $dim (rows of $stride_bytes bytes):"
  echo
  if [ -n "$glove_bin" ]; then
    echo "| threads | streamglove (s) | M pairs/s | x first row | glove.c (s) | x glove.c | memory floor (M pairs/s) | share of floor | peak RSS (MiB) |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  else
    echo "| threads | streamglove (s) | M pairs/s | x first row | memory floor (M pairs/s) | share of floor | peak RSS (MiB) |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
  fi
  # Build this dim's block stream (its block size depends on the parameters'
  # size) once; every timed run reuses it.
  "$SG_BIN" train --store "$store" -o "$work/warm.txt" --dim "$dim" --epochs 1 --threads 2 -q
  one=
  for t in $threads; do
    name=sg-$dim-$t
    rm -f "$work/$name.times" "$work/glove-$dim-$t.times"
    for _ in $(seq "$runs"); do
      timed "$name" "$SG_BIN" train --store "$store" -o "$work/v.txt" --dim "$dim" --epochs 1 \
        --x-max 10 --threads "$t" -q --seed 1
      if [ -n "$glove_bin" ]; then
        timed "glove-$dim-$t" "$glove_bin/glove" -input-file "$work/cooccurrence.shuf.bin" -vocab-file "$work/vocab.txt" \
          -save-file "$work/glove-v" -vector-size "$dim" -iter 1 -threads "$t" -x-max 10 -binary 0 -write-header 0 \
          -verbose 0 -seed 1
      fi
    done
    floor_rows=$("$SG_BUILD/streamglove-membw" --array-bytes "$((vocab * stride_bytes * 4))" \
      --row-bytes "$stride_bytes" --threads "$t" --seconds "$membw_seconds" | grep -oE '[0-9.]+ M rows/s' | cut -d' ' -f1)
    floor=$(echo "scale=2; $floor_rows / 4" | bc)
    w=$(median "$name")
    [ -n "$one" ] || one=$w
    rate=$(echo "scale=2; $pairs / $w / 1000000" | bc)
    share=$(echo "scale=0; 100 * $rate / $floor" | bc)
    if [ -n "$glove_bin" ]; then
      g=$(median "glove-$dim-$t")
      echo "| $t | $w | $rate | $(echo "scale=2; $one / $w" | bc) | $g | **$(echo "scale=2; $g / $w" | bc)** | $floor | $share% | $(rss_mib "$name") |"
    else
      echo "| $t | $w | $rate | $(echo "scale=2; $one / $w" | bc) | $floor | $share% | $(rss_mib "$name") |"
    fi
  done
done
echo
echo "memory floor: streamglove-membw over an array the size of the parameters, random rows of the dim's"
echo "stride read and written back; 4 rows per pair. M pairs/s counts the whole process's wall time."
