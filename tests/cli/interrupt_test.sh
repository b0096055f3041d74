#!/usr/bin/env bash
# SIGINT and SIGTERM stop ingest and train cleanly (exit 128 + signal, one
# line saying how to continue, no temporary files left), and the rerun
# finishes with the result of an uninterrupted run.
. "$(dirname "$0")/../lib.sh" interrupt
bin=$1
generator=$2
mkdir "$dir/corpus"
"$generator" -o "$dir/corpus" --bytes 8e6 --shards 2 --seed 6
flags=(--window 10 --min-count 3 --memory 128M --batch-size 256K -q)
"$bin" ingest --store "$dir/reference" "$dir/corpus" "${flags[@]}"
reference=$(dump_digest "$dir/reference")
fail=0
hits=0  # signals that found the command running

stop() {  # stop SIGNAL EXPECTED-CODE command...: send SIGNAL once the command runs
  local signal=$1 code=$2
  shift 2
  "$@" 2>"$dir/err" &
  local pid=$!
  sleep 0.7
  kill "-$signal" "$pid" 2>/dev/null || true
  local got=0
  wait "$pid" || got=$?
  if [ "$got" -eq 0 ]; then echo "note: the command finished before $signal"; return 0; fi
  if [ "$got" -ne "$code" ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || ! grep -q "interrupted by $signal" "$dir/err"; then
    echo "FAIL: $signal: exit $got, stderr: $(cat "$dir/err")"; fail=1; return 0
  fi
  hits=$((hits + 1))
  echo "ok: $signal: exit $got: $(cat "$dir/err")"
}

stop SIGINT 130 "$bin" ingest --store "$dir/store" "$dir/corpus" "${flags[@]}"
stop SIGTERM 143 "$bin" ingest --store "$dir/store" "$dir/corpus" "${flags[@]}"
"$bin" ingest --store "$dir/store" "$dir/corpus" "${flags[@]}"
resumed=$(dump_digest "$dir/store")
[ "$resumed" = "$reference" ] && echo "ok: interrupted ingest resumed to identical counts" \
  || { echo "FAIL: counts differ after interrupted ingest"; fail=1; }
[ -z "$(find "$dir/store" -name '*.tmp-*')" ] || { echo "FAIL: temporary files left"; fail=1; }

train=(--dim 16 --epochs 6 --threads 1 --seed 3 --memory 64M -q)
"$bin" train --store "$dir/reference" -o "$dir/reference.txt" "${train[@]}"
stop SIGTERM 143 "$bin" train --store "$dir/reference" -o "$dir/vectors.txt" "${train[@]}"
stop SIGINT 130 "$bin" train --store "$dir/reference" -o "$dir/vectors.txt" --resume "${train[@]}"
"$bin" train --store "$dir/reference" -o "$dir/vectors.txt" --resume "${train[@]}"
[ -s "$dir/reference.txt" ] || { echo "FAIL: an empty vectors file"; fail=1; }
cmp -s "$dir/reference.txt" "$dir/vectors.txt" && echo "ok: interrupted training resumed to identical vectors" \
  || { echo "FAIL: vectors differ after interrupted training"; fail=1; }
[ -z "$(find "$dir" -name '*.tmp-*')" ] || { echo "FAIL: temporary files left"; fail=1; }
# A signal that came after the command finished tested nothing.
[ "$hits" -ge 3 ] || { echo "FAIL: only $hits of 4 signals found the command running"; fail=1; }
exit $fail
