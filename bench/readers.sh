#!/usr/bin/env bash
# The corpus readers against the reference decompressors on the same bytes:
# wiki100M's text (or its first MB megabytes) compressed by gzip, xz, xz -T2
# (multi-block), bzip2 and zstd, then decompressed by `zcat`, `xz -dc`,
# `bzip2 -dc`, `zstd -dc` (to /dev/null) and by streamglove's reader
# (`streamglove-scan --mode read --threads 1`: decompress and cut into chunks,
# no tokenizing). Prints the median wall time of RUNS runs of each, the
# decompressed MB/s and the ratio, side by side in one run. Run on an idle
# machine.
#
#   bench/readers.sh [MB]        (default: the whole 100 MB text)
#   env: SG_BUILD (build), SG_SHARED_DATA (../shared/data), RUNS (3; smoke mode: 1)
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
megabytes=${1:-0}
runs=${RUNS:-3}
! sg_smoke || runs=${RUNS:-1}
corpus=$SG_SHARED_DATA/corpus/wiki100M.txt.zst
sg_need "$corpus"
scan=$SG_BUILD/streamglove-scan
[ -x "$scan" ] || { echo "no $scan: build first" >&2; exit 1; }
for tool in xz bzip2 gzip zstd; do command -v $tool >/dev/null || { echo "no $tool" >&2; exit 1; }; done
sg_scratch bench-readers

if [ "$megabytes" -gt 0 ]; then
  { zstdcat "$corpus" || true; } | head -c $((megabytes << 20)) >"$work/text.txt"  # zstdcat ends on SIGPIPE
else
  zstdcat "$corpus" >"$work/text.txt"
fi
text_bytes=$(stat -c %s "$work/text.txt")
gzip -6 -c "$work/text.txt" >"$work/text.txt.gz"
xz -6 -T1 -c "$work/text.txt" >"$work/text.txt.xz"
xz -6 -T2 -c "$work/text.txt" >"$work/text-mt.txt.xz"
bzip2 -9 -c "$work/text.txt" >"$work/text.txt.bz2"
zstd -q -12 -c "$work/text.txt" >"$work/text.txt.zst"

# median_seconds COMMAND...: the median wall time of $runs runs.
median_seconds() {
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'
}

echo "text: $((text_bytes >> 20)) MiB; median of $runs runs each; MB/s of decompressed text"
printf '%-12s %10s  %-11s %8s %9s  %-11s %8s %9s  %s\n' format compressed reference s MB/s \
  streamglove s MB/s "reader/reference time"
row() {  # NAME FILE REFERENCE_COMMAND...
  local name=$1 file=$2
  shift 2
  local ref ours
  ref=$(median_seconds "$@" "$file")
  ours=$(median_seconds "$scan" "$file" --mode read --threads 1)
  awk -v n="$name" -v c="$(stat -c %s "$file")" -v r="$ref" -v o="$ours" -v b="$text_bytes" -v tool="$1 -dc" '
    BEGIN { printf "%-12s %9.1fM  %-11s %8.2f %9.1f  %-11s %8.2f %9.1f  %.2f\n",
            n, c / 1048576, tool, r, b / r / 1e6, "scan read", o, b / o / 1e6, o / r }'
}
row gzip "$work/text.txt.gz" gzip -dc
row xz "$work/text.txt.xz" xz -dc
row "xz -T2" "$work/text-mt.txt.xz" xz -dc
row bzip2 "$work/text.txt.bz2" bzip2 -dc
row zstd "$work/text.txt.zst" zstd -dc
