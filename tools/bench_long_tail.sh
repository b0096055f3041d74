#!/usr/bin/env bash
# A growing store's long tail: a generated corpus whose background words
# follow a Zipf law over VOCAB words (every distinct token is kept, as in a
# web dump's numbers, names and junk), ingested under --memory 1G; prints the
# distinct words counted, wall time, peak RSS (/usr/bin/time -v), and the
# store's bytes per GB of text and per non-zero pair.
#
#   tools/bench_long_tail.sh [-w WORK] [-b BYTES] [-v VOCAB] [-z ZIPF] [-m MEMORY] [-W WINDOW]
#   defaults: BYTES 1e10, VOCAB 10000000, ZIPF 1, MEMORY 1G, WINDOW 10; 2 threads
#   env: SG_BUILD (build)
set -euo pipefail
cd "$(dirname "$0")/.."
work="" bytes=1e10 vocab=10000000 zipf=1 memory=1G window=10
while getopts "w:b:v:z:m:W:" opt; do
  case $opt in
    w) work=$OPTARG ;;
    b) bytes=$OPTARG ;;
    v) vocab=$OPTARG ;;
    z) zipf=$OPTARG ;;
    m) memory=$OPTARG ;;
    W) window=$OPTARG ;;
    *) exit 2 ;;
  esac
done
build=${SG_BUILD:-build}
if [ -z "$work" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/sg-long-tail.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/corpus"
if [ ! -f "$work/corpus.done" ]; then
  "$build/streamglove-make-corpus" -o "$work/corpus" --bytes "$bytes" --vocab "$vocab" \
    --zipf "$zipf" --shards 8 --threads 2 2>&1 | tee "$work/corpus.log"
  touch "$work/corpus.done"
fi
# "...: 8 shards, N bytes, ...": the text's bytes (the shards are compressed).
text_bytes=$(grep -o '[0-9]* bytes' "$work/corpus.log" | head -1 | cut -d' ' -f1)
rm -rf "$work/store"
/usr/bin/time -v "$build/streamglove" ingest --store "$work/store" "$work/corpus" --window "$window" \
  --min-count 5 --memory "$memory" --threads 2 --quiet 2>"$work/ingest.err"
kib=$(grep "Maximum resident" "$work/ingest.err" | awk '{ print $NF }')
wall=$(grep "Elapsed (wall" "$work/ingest.err" | awk '{ print $NF }')
"$build/streamglove" stats --store "$work/store" >"$work/stats.txt"
pairs=$(awk '/^non-zero pairs/ { print $3 }' "$work/stats.txt")
store_bytes=$(du -sb "$work/store" | cut -f1)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); build $(git rev-parse --short HEAD)"
echo "corpus: $text_bytes bytes (--bytes $bytes --vocab $vocab --zipf $zipf)"
grep -E "^(vocabulary|tokens)" "$work/stats.txt"
echo "ingest --window $window --memory $memory: wall $wall, peak RSS $((kib / 1024)) MiB"
echo "store: $store_bytes bytes, $pairs non-zero pairs; $(echo "scale=1; $store_bytes * 1000000000 / $text_bytes / 1048576" | bc) MiB per GB of text, $(echo "scale=2; $store_bytes / $pairs" | bc) bytes per pair"
