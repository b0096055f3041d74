#!/usr/bin/env bash
# Crash trials for `streamglove ingest`: kill -9 at random moments, resume,
# and compare the final store with an uninterrupted run's.
#
#   bench/crash_trials.sh BINARY KILLS INPUT... [-- INGEST-FLAGS...]
#
# One uninterrupted ingest gives the reference checksum (md5 of `dump`). Then
# a fresh store is ingested KILLS times, each run killed with SIGKILL after a
# random delay of up to 1.5 x (uninterrupted time / KILLS), so the kills
# spread over the whole ingest (each run resumes where the last commit left
# it); a last run completes it.
# Also checks that a second process on the store is refused while the first
# runs. Prints the figures; exits 1 when any final store differs.
. "$(dirname "$0")/lib.sh"
SG_BIN=$1
kills=$2
shift 2
inputs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do inputs+=("$1"); shift; done
[ $# -gt 0 ] && shift
flags=("$@")

sg_scratch crash

# The dump's MD5; a failed or empty dump ends the trials (two of them would
# otherwise compare equal).
checksum() {
  "$SG_BIN" dump --store "$1" --format glove >"$work/dump" || { echo "FAIL: dump of $1 failed" >&2; exit 1; }
  [ -s "$work/dump" ] || { echo "FAIL: dump of $1 is empty" >&2; exit 1; }
  md5sum <"$work/dump" | cut -d' ' -f1
}

start=$(date +%s.%N)
"$SG_BIN" ingest --store "$work/reference" "${inputs[@]}" "${flags[@]}" -q
full=$(echo "$(date +%s.%N) - $start" | bc)
reference=$(checksum "$work/reference")
echo "uninterrupted ingest: ${full} s, checksum $reference"

# A second process on a store in use is refused, and the store stays intact.
"$SG_BIN" ingest --store "$work/busy" "${inputs[@]}" "${flags[@]}" -q &
first=$!
sleep "$(echo "$full / 4" | bc -l)"
busy_rc=0
"$SG_BIN" ingest --store "$work/busy" "${inputs[@]}" "${flags[@]}" -q 2>"$work/busy.err" || busy_rc=$?
wait $first
if [ "$busy_rc" -ne 1 ] || ! grep -q "in use" "$work/busy.err"; then
  echo "FAIL: second process: exit $busy_rc, stderr: $(cat "$work/busy.err")"; exit 1
fi
[ "$(checksum "$work/busy")" = "$reference" ] || { echo "FAIL: store differs after a refused second process"; exit 1; }
echo "second process refused: $(cat "$work/busy.err")"

hit=0
for i in $(seq 1 "$kills"); do
  "$SG_BIN" ingest --store "$work/crashed" "${inputs[@]}" "${flags[@]}" -q 2>>"$work/crash.err" &
  pid=$!
  sleep "$(awk -v f="$full" -v k="$kills" -v r="$RANDOM" 'BEGIN { printf "%.3f", 1.5 * f / k * r / 32768 }')"
  if kill -9 "$pid" 2>/dev/null; then hit=$((hit + 1)); fi
  wait "$pid" 2>/dev/null || true
done
"$SG_BIN" ingest --store "$work/crashed" "${inputs[@]}" "${flags[@]}" -q
if [ -s "$work/crash.err" ]; then echo "FAIL: an interrupted run reported: $(head -3 "$work/crash.err")"; exit 1; fi
final=$(checksum "$work/crashed")
# Kills that found the process already finished test nothing: at least half
# must hit a running one.
if [ $((2 * hit)) -lt "$kills" ]; then
  echo "FAIL: only $hit of $kills kills hit a running ingest"; exit 1
fi
echo "kill -9 trials: $kills kills, $hit hit a running ingest, each followed by a resume"
if [ "$final" != "$reference" ]; then
  echo "FAIL: checksum after crashes $final differs from $reference"; exit 1
fi
echo "PASS: identical store after $hit kills (checksum $final)"
