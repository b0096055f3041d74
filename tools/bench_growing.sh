#!/usr/bin/env bash
# A growing store's ingest against --fixed-vocab's on wiki100M (window 15,
# min-count 5, --memory 1G, 2 threads): whole processes alternated (growing,
# fixed, growing, ...) on fresh stores, PAIRS pairs; prints the medians of
# wall and CPU seconds, the median of the pairs' ratios, peak RSS and the
# stores' sizes (docs/benchmarks.md, "Growing stores and additions").
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
  rm -rf "$work/$mode.store"
  /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$bin" ingest --store "$work/$mode.store" \
    "$corpus" --window 15 --min-count 5 --memory 1G --threads 2 --quiet "$@"
  awk '{ print $1, $2 + $3, $4 }' "$work/time" >>"$work/$mode"
}
for _ in $(seq "$pairs"); do
  run growing
  run fixed --fixed-vocab
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
