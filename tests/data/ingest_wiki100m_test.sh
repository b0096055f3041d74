#!/usr/bin/env bash
# Ingest of wiki100M (window 15, min-count 5, a fixed vocabulary: Stanford's
# counting) reproduces Stanford GloVe's co-occurrence figures: 59,716,706
# non-zero pairs, sum of counts 110,804,827.578 (±0.01), within --memory 512M.
set -euo pipefail
bin=$1
corpus=$2/corpus/wiki100M.txt.zst
[ -f "$corpus" ] || { echo "SKIP: $corpus not found" >&2; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sg-ingest-wiki.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$bin" ingest --store "$work/store" "$corpus" --window 15 --min-count 5 --fixed-vocab --memory 512M
"$bin" stats --store "$work/store" --json --exact | tee "$work/stats.json"
pairs=$(grep -oE '"nonzero_pairs": ?[0-9]+' "$work/stats.json" | grep -oE '[0-9]+$')
sum=$(grep -oE '"sum_of_counts": ?[0-9.]+' "$work/stats.json" | grep -oE '[0-9.]+$')
[ "$pairs" = 59716706 ] || { echo "FAIL: $pairs non-zero pairs, expected 59716706"; exit 1; }
awk -v s="$sum" 'BEGIN { d = s - 110804827.578; if (d < -0.01 || d > 0.01) exit 1 }' \
  || { echo "FAIL: sum of counts $sum, expected 110804827.578"; exit 1; }
echo "PASS: $pairs pairs, sum $sum"
