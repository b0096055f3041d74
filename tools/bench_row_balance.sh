#!/usr/bin/env bash
# How evenly a distributed ingest spreads the merge over its ranks: each rank
# merges the pairs of one range of rows, and prints how many pairs the
# busiest rank merged against the even share (pairs / ranks). Two jobs of
# RANKS ranks (mpirun --oversubscribe, so more ranks than cores is fine):
# a new store of wiki100M, then an addition to it of IMDB and a wiki-plain
# shard, which bring new words. The counts do not depend on timing.
#
#   tools/bench_row_balance.sh [-n RANKS]
#   env: SG_BUILD (build), DATA_DIR (../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=4
while getopts "n:" opt; do
  case $opt in
    n) ranks=$OPTARG ;;
    *) exit 2 ;;
  esac
done
bin=${SG_BUILD:-build}/streamglove
corpus=${DATA_DIR:-../shared/data}/corpus
[ -f "$corpus/wiki100M.txt.zst" ] || { echo "SKIP: $corpus/wiki100M.txt.zst not found"; exit 0; }
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sg-bench-balance.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1

job() {  # LABEL INPUTS...: one job into the store, its balance printed
  local label=$1
  shift
  mpirun --oversubscribe --bind-to none -np "$ranks" "$bin" ingest --store "$work/store" "$@" \
    --window 10 --memory 1G --threads 1 2>"$work/err" || { cat "$work/err"; exit 1; }
  grep -o "[0-9]* pairs ([0-9]* merged by the busiest rank)" "$work/err" |
    awk -v label="$label" -v ranks="$ranks" '{ gsub(/\(/, "", $3);
      printf "%-40s %d ranks: %d pairs, the busiest rank merged %d = %.2fx the even share\n",
             label, ranks, $1, $3, $3 / ($1 / ranks) }'
}
job "new store: wiki100M" "$corpus/wiki100M.txt.zst"
job "addition: IMDB + wiki-plain-00" "$corpus/imdb100k.txt.zst" "$corpus/wiki-plain-00.jsonl.zst"
