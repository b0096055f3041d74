#!/usr/bin/env bash
# Crash trials for `streamglove train`: kill -9 at random moments, then
# --resume; with --threads 1 the final vectors must equal an uninterrupted
# run's byte for byte.
#
#   bench/train_crash_trials.sh BINARY STORE KILLS [TRAIN-FLAGS...]
. "$(dirname "$0")/lib.sh"
SG_BIN=$1
store=$2
kills=$3
shift 3
flags=(--threads 1 --seed 11 "$@")
sg_scratch train-crash

start=$(date +%s.%N)
"$SG_BIN" train --store "$store" -o "$work/reference.txt" "${flags[@]}" -q
full=$(echo "$(date +%s.%N) - $start" | bc)
echo "uninterrupted training: ${full} s"

# One chain: a fresh run, KILLS kill -9 that each hit it while it trains,
# each followed by --resume, then a last --resume to the end. A kill that
# finds the run finished tests nothing (the machine got faster than the
# reference run under a loaded CI): the chain starts again from nothing with
# half the time scale. The sleeps sum to 0.75x the reference run's time on
# average, so most chains are never cut short.
scale=$full
hit=0
starts=0
while [ "$hit" -lt "$kills" ]; do
  if [ $((starts++)) -ge $((4 * kills)) ]; then
    echo "FAIL: $starts runs, yet no chain of $kills kills that each hit a running training"; exit 1
  fi
  "$SG_BIN" train --store "$store" -o "$work/crashed.txt" --resume "${flags[@]}" -q &
  pid=$!
  sleep "$(awk -v f="$scale" -v k="$kills" -v r="$RANDOM" 'BEGIN { printf "%.3f", 1.5 * f / k * r / 32768 }')"
  killed=0
  kill -9 "$pid" 2>/dev/null && killed=1
  wait "$pid" 2>/dev/null || true
  if [ "$killed" = 1 ]; then
    hit=$((hit + 1))
  else
    echo "a kill found the run finished after $hit hits: the chain starts again"
    rm -f "$work"/crashed.*
    hit=0
    scale=$(echo "$scale / 2" | bc -l)
  fi
done
"$SG_BIN" train --store "$store" -o "$work/crashed.txt" --resume "${flags[@]}" -q
echo "kill -9 trials: $kills kills, each hit a running training and was followed by --resume"
[ -s "$work/reference.txt" ] && [ -s "$work/crashed.txt" ] || { echo "FAIL: an empty vectors file"; exit 1; }
if cmp -s "$work/reference.txt" "$work/crashed.txt"; then
  echo "PASS: vectors identical to the uninterrupted run's"
else
  echo "FAIL: vectors differ from the uninterrupted run's"; exit 1
fi
