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

hit=0
for i in $(seq 1 "$kills"); do
  "$SG_BIN" train --store "$store" -o "$work/crashed.txt" --resume "${flags[@]}" -q &
  pid=$!
  sleep "$(awk -v f="$full" -v k="$kills" -v r="$RANDOM" 'BEGIN { printf "%.3f", 1.5 * f / k * r / 32768 }')"
  if kill -9 "$pid" 2>/dev/null; then hit=$((hit + 1)); fi
  wait "$pid" 2>/dev/null || true
done
"$SG_BIN" train --store "$store" -o "$work/crashed.txt" --resume "${flags[@]}" -q
# Kills that found the process already finished test nothing: at least half
# must hit a running one.
if [ $((2 * hit)) -lt "$kills" ]; then
  echo "FAIL: only $hit of $kills kills hit a running training"; exit 1
fi
echo "kill -9 trials: $kills kills, $hit hit a running training, each followed by --resume"
[ -s "$work/reference.txt" ] && [ -s "$work/crashed.txt" ] || { echo "FAIL: an empty vectors file"; exit 1; }
if cmp -s "$work/reference.txt" "$work/crashed.txt"; then
  echo "PASS: vectors identical to the uninterrupted run's"
else
  echo "FAIL: vectors differ from the uninterrupted run's"; exit 1
fi
