#!/usr/bin/env bash
# The distributed ingest against the single-process one on the same shards:
# `mpirun -np N ... --threads 1` against one process with `--threads N`, each
# into a fresh store (vocabulary pass included), alternated R times; prints
# wall time, peak RSS (the largest process), the ratio, and the bytes the
# ranks exchanged per GB of text.
#
#   bench/distributed.sh [-n RANKS] [-r ROUNDS] [-a] [-- INGEST-FLAGS...]
#   env: SG_BUILD (build), SG_SHARED_DATA (../shared/data)
#
# Input: the wiki-plain JSONL shards ($SG_SHARED_DATA/corpus), read with
# `--tokenizer words --lowercase`, window 10; with -a also wiki100M and the
# IMDB reviews (six inputs, 335 MB of text, of unequal sizes). Skips without
# mpirun or with a binary built without MPI.
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
ranks=2
rounds=2
all=0
while getopts "n:r:a" opt; do
  case $opt in
    n) ranks=$OPTARG ;;
    r) rounds=$OPTARG ;;
    a) all=1 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
data=$SG_SHARED_DATA
inputs=("$data"/corpus/wiki-plain-0*.jsonl.zst)
[ -f "${inputs[0]}" ] || sg_skip "no wiki-plain shards under $data/corpus"
[ "$all" = 1 ] && inputs+=("$data/corpus/wiki100M.txt.zst" "$data/corpus/imdb100k.txt.zst")
flags=(--tokenizer words --lowercase --window 10 --min-count 5 --memory 1G "$@")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# One machine: Open MPI's shared-memory transport (pml ob1, btl vader).
# Without this it first probes for UCX (InfiniBand), which costs this
# machine 0.22 s of every rank's MPI_Init (measured: 0.24 s -> 0.015 s).
# SG_MPI_PML=ucx (or any pml) measures that path instead.
export OMPI_MCA_pml=${SG_MPI_PML:-ob1}
sg_need_mpi
sg_scratch bench-mpi

# run NAME CMD...: wall seconds and peak RSS (MiB) of CMD, on one line.
run() {
  local name=$1
  shift
  rm -rf "$work/store"
  sg_time "$work/$name.time" "$@" 2>"$work/$name.err" >/dev/null
  echo "$(sg_wall "$work/$name.time") $(sg_peak_rss "$work/$name.time")"
}
md5() { "$SG_BIN" dump --store "$work/store" --format glove | md5sum | cut -d' ' -f1; }

echo "inputs: ${inputs[*]}; flags: ${flags[*]}; Open MPI pml: $OMPI_MCA_pml"
printf "%-5s %-34s %8s %9s %8s\n" round system wall_s rss_mib ratio
for round in $(seq 1 "$rounds"); do
  read -r single_wall single_rss < <(run single "$SG_BIN" ingest --store "$work/store" "${inputs[@]}" \
    "${flags[@]}" --threads "$ranks")
  single_md5=$(md5)
  # Unbound: Open MPI binds each of 2 ranks to one core by default, where
  # the rank's reader thread then competes with its counting thread.
  read -r mpi_wall mpi_rss < <(run mpi mpirun --oversubscribe --bind-to none -np "$ranks" "$SG_BIN" ingest --store \
    "$work/store" "${inputs[@]}" "${flags[@]}" --threads 1)
  [ "$(md5)" = "$single_md5" ] || { echo "FAIL: the stores differ" >&2; exit 1; }
  printf "%-5s %-34s %8.2f %9s\n" "$round" "1 process, --threads $ranks" "$single_wall" "$single_rss"
  printf "%-5s %-34s %8.2f %9s %8.3f\n" "$round" "mpirun -np $ranks, --threads 1" "$mpi_wall" \
    "$mpi_rss" "$(echo "$mpi_wall / $single_wall" | bc -l)"
done
grep "^ingest: " "$work/single.err" | tail -1
summary=$(grep "^ingest: .* ranks:" "$work/mpi.err" | tail -1)
echo "$summary"
# Exchanged bytes per GB of text, from the summary's exact counts: word
# counts sent, and pair-run bytes that owners read from other ranks' files.
echo "$summary" | sed -E 's/.*\(([0-9]+) bytes of word counts, ([0-9]+) bytes of pairs, ([0-9]+) bytes of text\).*/\1 \2 \3/' |
  awk -v n="$ranks" '{ gb = $3 / 1e9; printf "per GB of text: word counts %.1f MB, pair runs %.1f MB (all ranks; %.1f MB per rank)\n", $1 / 1e6 / gb, $2 / 1e6 / gb, $2 / 1e6 / gb / n }'
