#!/usr/bin/env bash
# The distributed ingest (mpirun -np N streamglove ingest) against the
# single-process ingest of the same generated shards: the store's dump and
# vocabulary byte for byte, with 3 ranks and with 1; shards added later by
# another job; bad input and usage errors (one line); a rank killed with
# kill -9 at random moments, then the command rerun with another number of
# ranks or as one process.
# Skips (77) without mpirun or with a streamglove built without MPI.
. "$(dirname "$0")/../../lib.sh" mpi
bin=$1
generator=$2
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
# Root in a container is how CI runs; single-copy (CMA) needs ptrace there.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpi() { local np=$1; shift; mpirun --oversubscribe -np "$np" "$@"; }

mkdir "$dir/corpus"
"$generator" -o "$dir/corpus" --bytes 8e6 --shards 7 --seed 11 >/dev/null
shards=("$dir"/corpus/*)
flags=(--window 10 --min-count 3 --memory 256M --batch-size 256K -q)
# Both dumps' digests (each dump must succeed and print something).
fingerprint() {
  local pairs vocab
  pairs=$(dump_digest "$1" --format glove)
  vocab=$(dump_digest "$1" --format vocab)
  echo "$pairs $vocab"
}

if mpi 1 "$bin" ingest --store "$dir/probe" "${shards[0]}" "${flags[@]}" 2>"$dir/probe.err"; then :
elif grep -q "built without MPI" "$dir/probe.err"; then echo "SKIP: $(cat "$dir/probe.err")"; exit 77
else echo "FAIL: mpirun -np 1: $(cat "$dir/probe.err")"; exit 1; fi

start=$(date +%s.%N)
"$bin" ingest --store "$dir/reference" "${shards[@]}" "${flags[@]}" --threads 2
full=$(echo "$(date +%s.%N) - $start" | bc)
reference=$(fingerprint "$dir/reference")
"$bin" vocab "${shards[@]}" --min-count 3 -o "$dir/vocab.txt" 2>/dev/null
[ "$("$bin" dump --store "$dir/reference" --format vocab | md5sum)" = "$(md5sum <"$dir/vocab.txt")" ] ||
  { echo "FAIL: dump --format vocab differs from the vocab command's file"; exit 1; }
echo "single process: ${full} s, dump and vocabulary $reference"

fail=0
expect_same() {
  local got
  got=$(fingerprint "$2")
  if [ "$got" = "$reference" ]; then echo "ok: $1"; else echo "FAIL: $1: $got"; fail=1; fi
}
for np in 3 1; do
  mpi "$np" "$bin" ingest --store "$dir/np$np" "${shards[@]}" "${flags[@]}" --threads 1
  expect_same "mpirun -np $np" "$dir/np$np"
done
# A new growing store whose cut leaves out much of the text says so once,
# not once a rank.
said=$(mpi 3 "$bin" ingest --store "$dir/cut" "${shards[0]}" --window 10 --max-vocab 100 \
  --memory 256M --threads 1 2>&1 >/dev/null)
if [ "$(grep -c "^ingest: the store's cut (--min-count 5, --max-vocab 100) keeps 100 of" <<<"$said")" = 1 ]
then echo "ok: a cut that leaves out much of the text is said once"
else echo "FAIL: the cut's line, not once: $said"; fail=1; fi
# Tiny buffers: each rank spills hundreds of runs a round, which it merges
# down (to 42, so an owner reads at most 126) before the owners read their
# rows' slices of them.
mpi 3 "$bin" ingest --store "$dir/spills" "${shards[@]}" "${flags[@]}" --threads 1 \
  --max-buffer 256K --max-dense 64K
expect_same "mpirun -np 3, hundreds of spilled runs per rank" "$dir/spills"
# The other counting options reach every rank: word2vec's weights and
# expected subsampled windows, left context only.
options=(--weighting linear --subsample 1e-4 --asymmetric)
"$bin" ingest --store "$dir/options1" "${shards[@]}" "${flags[@]}" "${options[@]}" --threads 2
mpi 2 "$bin" ingest --store "$dir/options2" "${shards[@]}" "${flags[@]}" "${options[@]}" --threads 1
if [ "$(fingerprint "$dir/options2")" = "$(fingerprint "$dir/options1")" ]; then
  echo "ok: ${options[*]} on 2 ranks"
else
  echo "FAIL: ${options[*]} on 2 ranks: not the single process's store"; fail=1
fi

# Shards added later, by a job of another size: the first four (which make
# the vocabulary), then all seven given again (the four are skipped); as the
# same two steps in one process.
"$bin" ingest --store "$dir/added1" "${shards[@]:0:4}" "${flags[@]}" --threads 2
"$bin" ingest --store "$dir/added1" "${shards[@]}" "${flags[@]}" --threads 2
mpi 3 "$bin" ingest --store "$dir/added" "${shards[@]:0:4}" "${flags[@]}" --threads 1
mpi 2 "$bin" ingest --store "$dir/added" "${shards[@]}" "${flags[@]}" --threads 1
if [ "$(fingerprint "$dir/added")" = "$(fingerprint "$dir/added1")" ]; then
  echo "ok: 4 shards on 3 ranks, then the rest on 2"
else
  echo "FAIL: 4 shards on 3 ranks, then the rest on 2: not the single process's two steps"; fail=1
fi
[ ! -e "$dir/added/distributed" ] || { echo "FAIL: a finished job left $dir/added/distributed"; fail=1; }

# A truncated shard: one error line naming it, exit 1, and no store left.
mkdir "$dir/bad"
cp "${shards[@]}" "$dir/bad/"
head -c 300000 "${shards[2]}" >"$dir/bad/$(basename "${shards[2]}")"
rc=0
mpi 3 "$bin" ingest --store "$dir/bad.store" "$dir/bad" "${flags[@]}" --threads 1 >/dev/null 2>"$dir/bad.err" || rc=$?
lines=$(grep -c "^streamglove: " "$dir/bad.err" || true)
if [ "$rc" -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -q "^streamglove: error: .*$(basename "${shards[2]}"): byte 300000" "$dir/bad.err" ||
  [ -e "$dir/bad.store" ]; then
  echo "FAIL: truncated shard: exit $rc, $lines lines: $(grep "^streamglove" "$dir/bad.err")"; fail=1
else
  echo "ok: truncated shard: $(grep "^streamglove" "$dir/bad.err")"
fi
# An input refused before anything is read (not a regular file): no store left.
rc=0
mpi 3 "$bin" ingest --store "$dir/null.store" "${shards[0]}" /dev/null "${flags[@]}" --threads 1 \
  >/dev/null 2>"$dir/null.err" || rc=$?
if [ "$rc" -eq 0 ] || ! grep -q "^streamglove: error: /dev/null: not a regular file" "$dir/null.err" ||
  [ -e "$dir/null.store" ]; then
  echo "FAIL: /dev/null as an input: exit $rc, $(grep "^streamglove" "$dir/null.err"), store left: $(ls "$dir/null.store" 2>/dev/null | wc -l) files"; fail=1
else
  echo "ok: /dev/null as an input: $(grep "^streamglove" "$dir/null.err"), no store left"
fi

# A parse error, a usage error, a missing input, --force (one process
# only): one line from the job, not one per rank, and a failed job; also
# when rank 0, which reports, starts a second after the others (mpirun ends
# a job when any rank exits non-zero: the others must not cut it off).
late_rank0='[ "$OMPI_COMM_WORLD_RANK" != 0 ] || sleep 1; exec "$0" "$@"'
for args in "--no-such-flag" "--window 99" "$dir/no-such-shard" "--force ${shards[0]}"; do
  for launch in direct late; do
    rc=0
    if [ "$launch" = direct ]; then
      # shellcheck disable=SC2086 # the flags are words
      mpi 3 "$bin" ingest --store "$dir/usage.store" $args >/dev/null 2>"$dir/usage.err" || rc=$?
    else
      # shellcheck disable=SC2086
      mpi 3 sh -c "$late_rank0" "$bin" ingest --store "$dir/usage.store" $args \
        >/dev/null 2>"$dir/usage.err" || rc=$?
    fi
    lines=$(grep -c "^streamglove: " "$dir/usage.err" || true)
    if [ "$lines" -ne 1 ] || [ "$rc" -eq 0 ]; then
      echo "FAIL: $args ($launch): exit $rc, $lines error lines"; fail=1
    fi
  done
done

# kill -9 one rank at random moments (the launcher then ends the job), then
# finish with another number of ranks, or with one process.
mpi_time=$(
  s=$(date +%s.%N)
  mpi 3 "$bin" ingest --store "$dir/timed" "${shards[@]}" "${flags[@]}" --threads 1
  echo "$(date +%s.%N) - $s" | bc
)
hit=0
for trial in 1 2 3 4; do
  store="$dir/killed$trial"
  mpi 3 "$bin" ingest --store "$store" "${shards[@]}" "${flags[@]}" --threads 1 >/dev/null 2>&1 &
  launcher=$!
  sleep "$(awk -v f="$mpi_time" -v r="$RANDOM" 'BEGIN { printf "%.3f", 0.2 * f + 0.6 * f * r / 32768 }')"
  # A rank, not the launcher (whose command line holds the same words).
  victim=$(pgrep -f "^$bin ingest --store $store " | shuf -n 1 || true)
  if [ -n "$victim" ] && kill -9 "$victim" 2>/dev/null; then hit=$((hit + 1)); fi
  wait "$launcher" 2>/dev/null || true
  # The launcher may return before the other ranks have died of its signals.
  while pgrep -f "^$bin ingest --store $store " >/dev/null; do sleep 0.1; done
  committed=$("$bin" stats --store "$store" --json 2>/dev/null | grep -o '"inputs":[0-9]*' | grep -o '[0-9]*$' || echo 0)
  case $trial in
    1 | 3) finish=(mpi 2) how="2 ranks" ;;
    2) finish=(mpi 3) how="3 ranks" ;;
    4) finish=() how="one process" ;;
  esac
  "${finish[@]}" "$bin" ingest --store "$store" "${shards[@]}" "${flags[@]}" --threads 1
  expect_same "kill -9 of a rank with ${committed:-0} of 7 inputs committed, finished by $how" "$store"
  [ ! -e "$store/distributed" ] || { echo "FAIL: $store/distributed left after the rerun"; fail=1; }
done
echo "kill -9 trials: 4, $hit hit a running rank"
[ "$hit" -gt 0 ] || { echo "FAIL: no kill hit a running rank"; fail=1; }
exit $fail
