#!/usr/bin/env bash
# A growing store's ingest against --fixed-vocab's: whole processes
# alternated on fresh stores, PAIRS pairs, each pair's order the reverse of
# the one before (growing, fixed; fixed, growing; ...) after one untimed run
# of each: on a virtual machine the first process after a pause pays for
# memory the host took back (about 2 s more system time here), and a fixed
# order would charge such effects to one side. Prints the medians of wall
# and CPU seconds, the median of the pairs' ratios and every pair's, peak
# RSS and the stores' sizes (docs/benchmarks.md, "Growing stores and
# additions").
#
#   bench/growing.sh [PAIRS]      (default 7; smoke mode: 1, no warm-up)
#   env: SG_BUILD (build), SG_SHARED_DATA (../shared/data);
#        CORPUS: the inputs, absolute paths or from the repository's root, globs
#        allowed (default wiki100M); FLAGS: ingest's flags
#        (default "--window 15 --min-count 5 --memory 1G --threads 2"),
#        WARMUP=0: no untimed runs (for runs of minutes)
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
pairs=${1:-7}
! sg_smoke || { pairs=${1:-1}; : "${WARMUP:=0}"; }
if [ -n "${CORPUS:-}" ]; then
  # Split on spaces, globs expanded: CORPUS='DIR/*.zst' names a directory's shards.
  # shellcheck disable=SC2206
  corpus=($CORPUS)
else
  corpus=("$SG_SHARED_DATA/corpus/wiki100M.txt.zst")
fi
[ "${#corpus[@]}" -gt 0 ] || { echo "CORPUS names no inputs" >&2; exit 1; }
# shellcheck disable=SC2206
flags=(${FLAGS:---window 15 --min-count 5 --memory 1G --threads 2})
sg_need "${corpus[@]}"
sg_scratch bench-growing
run() {  # MODE FLAGS...: one ingest; appends "wall cpu rss_kib" to WORK/MODE
  local mode=$1
  shift
  [ "$mode" = fixed ] && set -- --fixed-vocab "$@"
  rm -rf "$work/$mode.store"
  /usr/bin/time -o "$work/time" -f "%e %U %S %M" "$SG_BIN" ingest --store "$work/$mode.store" \
    "${corpus[@]}" "${flags[@]}" --quiet "$@"
  awk '{ print $1, $2 + $3, $4 }' "$work/time" >>"$work/$mode"
}
if [ "${WARMUP:-1}" != 0 ]; then
  run growing
  run fixed
  rm -f "$work/growing" "$work/fixed"  # the untimed warm-up
fi
for i in $(seq "$pairs"); do
  if [ $((i % 2)) = 1 ]; then order="growing fixed"; else order="fixed growing"; fi
  for mode in $order; do run "$mode"; done
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); build $(git rev-parse --short HEAD); $pairs pairs; ingest ${flags[*]}"
/usr/bin/python3 - "$work" <<'PY'
import statistics, sys
work = sys.argv[1]
runs = {m: [list(map(float, l.split())) for l in open(f"{work}/{m}")] for m in ("growing", "fixed")}
med = lambda m, i: statistics.median(r[i] for r in runs[m])
# The pairs' ratios of column i (0 wall, 1 CPU), sorted, computed once.
ratios = {i: sorted(g[i] / f[i] for g, f in zip(runs["growing"], runs["fixed"])) for i in (0, 1)}
ratio = lambda i: statistics.median(ratios[i])
print("| | growing | fixed | ratio (median of pairs) |")
print("|---|---:|---:|---:|")
print(f"| wall | {med('growing', 0):.2f} s | {med('fixed', 0):.2f} s | {ratio(0):.3f} |")
print(f"| CPU | {med('growing', 1):.2f} s | {med('fixed', 1):.2f} s | {ratio(1):.3f} |")
print(f"| peak RSS | {med('growing', 2) / 1024:.0f} MiB | {med('fixed', 2) / 1024:.0f} MiB | |")
for i, what in ((0, "wall"), (1, "CPU")):
    pairs = ratios[i]
    q = statistics.quantiles(pairs, n=4, method="inclusive") if len(pairs) > 1 else pairs * 3
    print(f"{what} ratios of the pairs: quartiles " + " / ".join(f"{x:.3f}" for x in q) +
          "; sorted: " + " ".join(f"{r:.3f}" for r in pairs))
PY
for mode in growing fixed; do
  echo "$mode: $(du -sb "$work/$mode.store" | cut -f1) bytes on disk"
done
