#!/usr/bin/env bash
# A growing store's ingest against --fixed-vocab's on wiki100M (window 15,
# min-count 5, --memory 1G, 2 threads): whole processes alternated on fresh
# stores, PAIRS pairs, each pair's order the reverse of the one before
# (growing, fixed; fixed, growing; ...) after one untimed run of each: on a
# virtual machine the first process after a pause pays for memory the host
# took back (up to 2 s more system time here), and a fixed order would charge
# such effects to one side. Prints the medians of wall and CPU seconds, the
# median of the pairs' ratios, peak RSS and the stores' sizes
# (docs/benchmarks.md, "Growing stores and additions").
#
#   tools/bench_growing.sh [PAIRS]      (default 7)
#   env: SG_BUILD (build), DATA_DIR (../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-7}
bin=${SG_BUILD:-build}/streamglove
corpus=${DATA_DIR:-../shared/data}/corpus/wiki100M.txt.zst
[ -f "$corpus" ] || { echo "SKIP: $corpus not found"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sg-bench-growing.XXXXXX")
trap 'rm -rf "$work"' EXIT
run() {  # MODE FLAGS...: one ingest; appends "wall cpu rss_kib" to WORK/MODE
  local mode=$1
  shift
  [ "$mode" = fixed ] && set -- --fixed-vocab "$@"
  rm -rf "$work/$mode.store"
  /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$bin" ingest --store "$work/$mode.store" \
    "$corpus" --window 15 --min-count 5 --memory 1G --threads 2 --quiet "$@"
  awk '{ print $1, $2 + $3, $4 }' "$work/time" >>"$work/$mode"
}
run growing
run fixed
rm -f "$work/growing" "$work/fixed"  # the untimed warm-up
for i in $(seq "$pairs"); do
  if [ $((i % 2)) = 1 ]; then order="growing fixed"; else order="fixed growing"; fi
  for mode in $order; do run "$mode"; done
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); build $(git rev-parse --short HEAD); $pairs pairs"
/usr/bin/python3 - "$work" <<'PY'
import statistics, sys
work = sys.argv[1]
runs = {m: [list(map(float, l.split())) for l in open(f"{work}/{m}")] for m in ("growing", "fixed")}
med = lambda m, i: statistics.median(r[i] for r in runs[m])
ratio = lambda i: statistics.median(g[i] / f[i] for g, f in zip(runs["growing"], runs["fixed"]))
print("| | growing | fixed | ratio (median of pairs) |")
print("|---|---:|---:|---:|")
print(f"| wall | {med('growing', 0):.2f} s | {med('fixed', 0):.2f} s | {ratio(0):.3f} |")
print(f"| CPU | {med('growing', 1):.2f} s | {med('fixed', 1):.2f} s | {ratio(1):.3f} |")
print(f"| peak RSS | {med('growing', 2) / 1024:.0f} MiB | {med('fixed', 2) / 1024:.0f} MiB | |")
PY
for mode in growing fixed; do
  echo "$mode: $(du -sb "$work/$mode.store" | cut -f1) bytes on disk"
done
