#!/usr/bin/env bash
# A growing store's long tail: a generated corpus whose background words
# follow a Zipf law over VOCAB words (every distinct token is kept, as in a
# web dump's numbers, names and junk), ingested under --memory 1G; prints the
# distinct words counted, wall time, peak RSS (/usr/bin/time -v), and the
# store's bytes per GB of text and per non-zero pair.
#
#   bench/long_tail.sh [-w WORK] [-b BYTES] [-v VOCAB] [-z ZIPF] [-m MEMORY] [-W WINDOW]
#   defaults: BYTES 1e10, VOCAB 10000000, ZIPF 1, MEMORY 1G, WINDOW 10; 2 threads
#   (smoke mode: BYTES 2e6, VOCAB 100000)
#   env: SG_BUILD (build)
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
work="" bytes=1e10 vocab=10000000 zipf=1 memory=1G window=10
! sg_smoke || { bytes=2e6 vocab=100000; }
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
sg_scratch long-tail "$work"
mkdir -p "$work/corpus"
if [ ! -f "$work/corpus.done" ]; then
  "$SG_BUILD/streamglove-make-corpus" -o "$work/corpus" --bytes "$bytes" --vocab "$vocab" \
    --zipf "$zipf" --shards 8 --threads 2 2>&1 | tee "$work/corpus.log"
  touch "$work/corpus.done"
fi
# "...: 8 shards, N bytes, ...": the text's bytes (the shards are compressed).
text_bytes=$(grep -o '[0-9]* bytes' "$work/corpus.log" | head -1 | cut -d' ' -f1)
rm -rf "$work/store"
sg_time "$work/ingest.time" "$SG_BIN" ingest --store "$work/store" "$work/corpus" --window "$window" \
  --min-count 5 --memory "$memory" --threads 2 --quiet
"$SG_BIN" stats --store "$work/store" --exact >"$work/stats.txt"
pairs=$(awk '/^non-zero pairs/ { print $3 }' "$work/stats.txt")
store_bytes=$(du -sb "$work/store" | cut -f1)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); build $(git rev-parse --short HEAD)"
echo "corpus: $text_bytes bytes (--bytes $bytes --vocab $vocab --zipf $zipf)"
grep -E "^(vocabulary|tokens)" "$work/stats.txt"
echo "ingest --window $window --memory $memory: wall $(sg_wall "$work/ingest.time") s, peak RSS $(sg_peak_rss "$work/ingest.time") MiB"
echo "store: $store_bytes bytes, $pairs non-zero pairs; $(echo "scale=1; $store_bytes * 1000000000 / $text_bytes / 1048576" | bc) MiB per GB of text, $(echo "scale=2; $store_bytes / $pairs" | bc) bytes per pair"
