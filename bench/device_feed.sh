#!/usr/bin/env bash
# How fast the host feeds a training device: `train --device cuda` on the
# wiki100M store (window 15, min-count 5) with the reference device told to
# discard the pairs (STREAMGLOVE_REFERENCE_DEVICE_DISCARD=1: it counts them
# and trains nothing), so an epoch's rate is the host's side alone — blocks
# read from disk, scattered, converted, shuffled and copied into the staging
# slots — at each host thread count, beside the CPU trainer's own rate at
# the same threads. A GPU trains no faster than this (its own copies aside).
# Epochs after the first are reported (the page cache warm, as in training).
#
# (The reference device keeps a second copy of the parameters: these runs
# exceed --memory by that much.)
#
#   bench/device_feed.sh [BUILD_DIR]
#   env: SG_SHARED_DATA (../shared/data), THREADS ("1 2"), DIM (50), EPOCHS (3),
#        WORK (a temporary directory; set it to keep the store)
#   smoke mode: THREADS 1, EPOCHS 2
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
[ -z "${1:-}" ] || sg_build "$1"
reference=$SG_BUILD/tests/libstreamglove_reference_device.so
[ -f "$reference" ] || { echo "no $reference: build with the tests"; exit 1; }
corpus=$SG_SHARED_DATA/corpus/wiki100M.txt.zst
sg_need "$corpus"
if sg_smoke; then
  : "${THREADS:=1}" "${EPOCHS:=2}"
fi
sg_scratch bench-feed "${WORK:-}"
store=$work/store
dim=${DIM:-50}
epochs=${EPOCHS:-3}
# Stanford's counts (a fixed vocabulary): glove.c trains on the same pairs.
[ -d "$store" ] || "$SG_BIN" ingest --store "$store" "$corpus" --window 15 --min-count 5 --fixed-vocab --memory 2G -q

# The mean pairs/s of the epochs after the first, from OUT.log.tsv.
rate() {
  awk -F'\t' 'NR > 2 { s += $4; n++ } END { printf "%.2f", s / n / 1e6 }' "$1"
}
echo "wiki100M store, dim $dim, $epochs epochs, M pairs/s of epochs 2-$epochs"
printf "%-8s %22s %22s\n" threads "host feed (no updates)" "CPU trainer"
for t in ${THREADS:-1 2}; do
  STREAMGLOVE_CUDA_PLUGIN=$reference STREAMGLOVE_REFERENCE_DEVICE_DISCARD=1 \
    "$SG_BIN" train --store "$store" -o "$work/feed.txt" --device cuda --dim "$dim" \
    --epochs "$epochs" --threads "$t" --memory 2G -q
  "$SG_BIN" train --store "$store" -o "$work/cpu.txt" --dim "$dim" --epochs "$epochs" \
    --threads "$t" --memory 2G -q
  printf "%-8s %22s %22s\n" "$t" "$(rate "$work/feed.txt.log.tsv")" "$(rate "$work/cpu.txt.log.tsv")"
done
