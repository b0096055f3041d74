#!/usr/bin/env bash
# How `streamglove ingest` scales with threads: wiki100M (window 15,
# min-count 5, vocabulary pass included) at 1, 2, 4, 8 and 16 threads, then,
# with BIG=1, a generated 1 GB corpus (1,000,000-word Zipf law, 16 shards,
# --max-vocab 100000, --window 10) at 1 and 2 threads (or THREADS_BIG).
#
#   bench/threads.sh [BUILD_DIR]
#   env: SG_SHARED_DATA (../shared/data), MEMORY (4G), THREADS ("1 2 4 8 16"),
#        BIG (0), THREADS_BIG ("1 2"), WORK (a temporary directory)
#   smoke mode: THREADS "1 2", BIG 1 with a 2 MB corpus, THREADS_BIG 2
#
# Prints markdown tables: wall time and the ingest's own split, the ratio to
# one thread, peak RSS (/usr/bin/time), the serial share (the share of the
# wall time during which exactly one thread of the process runs, sampled
# every 10 ms by bench/thread_profile.py) and, for the big corpus, text MB/s
# and the peak disk use of the store against its final size (sampled every
# 0.5 s). Last, a prediction for 16 cores from the 2-thread row (Amdahl: the
# serial wall time stays, the rest divides by 16), marked as predicted.
# Threads beyond the machine's cores are not used by ingest (it says so), so
# on a 2-core machine the 4-16 rows measure that nothing is lost by asking.
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
[ -z "${1:-}" ] || sg_build "$1"
corpus=$SG_SHARED_DATA/corpus/wiki100M.txt.zst
memory=${MEMORY:-4G}
sg_need "$corpus"
big_bytes=1e9
! sg_smoke || { : "${THREADS:=1 2}" "${BIG:=1}" "${THREADS_BIG:=2}"; big_bytes=2e6; }
sg_scratch bench-threads "${WORK:-}"

# run NAME STORE ARGS...: one ingest into a fresh STORE; leaves NAME.{err,time,profile,disk}
run() {
  local name=$1 store=$2
  shift 2
  rm -rf "$store"
  rm -f "$work/$name.disk"
  bench/disk_peak.sh "$store" "$work/$name.disk" 0.5 &
  local sampler=$!
  sg_time "$work/$name.time" \
    bench/thread_profile.py --out "$work/$name.profile" -- \
    "$SG_BIN" ingest --store "$store" "$@" --memory "$memory" 2>"$work/$name.err" >/dev/null
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
}
wall() { sg_wall "$work/$1.time"; }
rss_mib() { sg_peak_rss "$work/$1.time"; }
split() { grep -oE 'vocabulary [0-9.]+ s, counting [0-9.]+ s, store [0-9.]+ s' "$work/$1.err" | grep -oE '[0-9.]+' | paste -sd' '; }
used() { grep -oE '[0-9]+ threads, [0-9]+ spilled' "$work/$1.err" | cut -d' ' -f1; }
serial() { grep -oE 'serial [0-9.]+' "$work/$1.profile" | cut -d' ' -f2; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB; --memory $memory"
echo
echo "wiki100M, --window 15 --min-count 5, vocabulary pass included:"
echo
echo "| --threads | used | wall (s) | vocabulary | counting | store (commit) | x 1 thread | peak RSS (MiB) | serial share |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
threads=${THREADS:-1 2 4 8 16}
one=
for t in $threads; do
  run "wiki-$t" "$work/store-$t" "$corpus" --window 15 --min-count 5 --threads "$t"
  w=$(wall "wiki-$t")
  [ -n "$one" ] || one=$w
  read -r v c s <<<"$(split "wiki-$t")"
  echo "| $t | $(used "wiki-$t") | $w | $v | $c | $s | $(echo "scale=2; $one / $w" | bc) | $(rss_mib "wiki-$t") | $(serial "wiki-$t")% |"
done
first=$(echo "$threads" | cut -d' ' -f1)
a=$("$SG_BIN" dump --store "$work/store-$first" --format glove | md5sum | cut -d' ' -f1)
for t in $threads; do
  [ "$t" = "$first" ] && continue
  b=$("$SG_BIN" dump --store "$work/store-$t" --format glove | md5sum | cut -d' ' -f1)
  [ "$a" = "$b" ] || { echo "FAIL: the store of $t threads differs from $first thread's"; exit 1; }
done
echo
echo "every store's dump identical ($(echo "$threads" | wc -w) thread counts)"
if [ -f "$work/wiki-2.time" ] && [ -f "$work/wiki-1.time" ]; then
  w2=$(wall wiki-2)
  s2=$(serial wiki-2)
  awk -v w1="$(wall wiki-1)" -v w2="$w2" -v s="$s2" 'BEGIN {
    serial = w2 * s / 100; parallel = 2 * (w2 - serial);
    for (n = 4; n <= 16; n *= 2) printf "predicted, %d cores: %.2f s, %.1fx one thread (serial %.2f s + %.2f s / %d)\n", n, serial + parallel / n, w1 / (serial + parallel / n), serial, parallel, n }'
fi

if [ "${BIG:-0}" = 1 ]; then
  gen=$work/gen-1GB
  if [ ! -d "$gen" ]; then
    mkdir -p "$gen"
    "$SG_BUILD/streamglove-make-corpus" --bytes "$big_bytes" --vocab 1000000 --shards 16 -o "$gen" >/dev/null
  fi
  bytes=$(for f in "$gen"/*; do zstd -dc "$f"; done | wc -c)
  echo
  echo "generated corpus, $bytes bytes of text in 16 shards; --max-vocab 100000 --window 10:"
  echo
  echo "| --threads | wall (s) | vocabulary | counting | store (commit) | MB/s of text | peak RSS (MiB) | serial share | disk peak / final store |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for t in ${THREADS_BIG:-1 2}; do
    run "big-$t" "$work/big-store-$t" "$gen" --window 10 --max-vocab 100000 --threads "$t"
    read -r v c s <<<"$(split "big-$t")"
    final=$(du -sb "$work/big-store-$t" | cut -f1)
    peak=$(cat "$work/big-$t.disk" 2>/dev/null || echo "$final")
    echo "| $t | $(wall "big-$t") | $v | $c | $s | $(echo "scale=1; $bytes / $(wall "big-$t") / 1000000" | bc) | $(rss_mib "big-$t") | $(serial "big-$t")% | $(echo "scale=2; $peak / $final" | bc) ($((peak >> 20)) / $((final >> 20)) MiB) |"
    rm -rf "$work/big-store-$t"
  done
fi
