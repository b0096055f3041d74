#!/usr/bin/env bash
# How evenly a distributed ingest spreads the merge over its ranks: each rank
# merges the pairs of one range of rows, and prints how many pairs the
# busiest rank merged against the even share (pairs / ranks). Two jobs of
# RANKS ranks (mpirun --oversubscribe, so more ranks than cores is fine):
# a new store of wiki100M, then an addition to it of IMDB and a wiki-plain
# shard, which bring new words. The counts do not depend on timing.
#
#   bench/row_balance.sh [-n RANKS]
#   env: SG_BUILD (build), SG_SHARED_DATA (../shared/data)
# Skips without mpirun or with a binary built without MPI.
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
ranks=4
while getopts "n:" opt; do
  case $opt in
    n) ranks=$OPTARG ;;
    *) exit 2 ;;
  esac
done
corpus=$SG_SHARED_DATA/corpus
sg_need "$corpus/wiki100M.txt.zst" "$corpus/imdb100k.txt.zst" "$corpus/wiki-plain-00.jsonl.zst"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1
sg_need_mpi
sg_scratch bench-balance

job() {  # LABEL INPUTS...: one job into the store, its balance printed
  local label=$1
  shift
  mpirun --oversubscribe --bind-to none -np "$ranks" "$SG_BIN" ingest --store "$work/store" "$@" \
    --window 10 --memory 1G --threads 1 2>"$work/err" || { cat "$work/err"; exit 1; }
  grep -o "[0-9]* pairs ([0-9]* merged by the busiest rank)" "$work/err" |
    awk -v label="$label" -v ranks="$ranks" '{ gsub(/\(/, "", $3);
      printf "%-40s %d ranks: %d pairs, the busiest rank merged %d = %.2fx the even share\n",
             label, ranks, $1, $3, $3 / ($1 / ranks) }'
}
job "new store: wiki100M" "$corpus/wiki100M.txt.zst"
job "addition: IMDB + wiki-plain-00" "$corpus/imdb100k.txt.zst" "$corpus/wiki-plain-00.jsonl.zst"
