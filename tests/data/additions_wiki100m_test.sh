#!/usr/bin/env bash
# wiki100M cut into three files: three ingests, in another order, make the
# store one ingest of the three makes (every dump byte-identical), window 15.
set -euo pipefail
bin=$1
corpus=$2/corpus/wiki100M.txt.zst
[ -f "$corpus" ] || { echo "SKIP: $corpus not found" >&2; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sg-additions-wiki.XXXXXX")
trap 'rm -rf "$work"' EXIT
# wiki100M is one line: cut it at spaces into three documents of a third each.
zstd -dc "$corpus" | python3 -c '
import sys
text = sys.stdin.buffer.read()
cuts = [0]
for k in (1, 2):
    cuts.append(text.index(b" ", len(text) * k // 3) + 1)
cuts.append(len(text))
for k in range(3):
    with open(sys.argv[1] + "/part%d.txt" % k, "wb") as f:
        f.write(text[cuts[k]:cuts[k + 1]].rstrip(b" \n") + b"\n")
' "$work"
flags=(--window 15 --memory 1G -q)
"$bin" ingest --store "$work/one" "$work"/part{0,1,2}.txt "${flags[@]}"
"$bin" ingest --store "$work/three" "$work/part2.txt" "${flags[@]}"
"$bin" ingest --store "$work/three" "$work/part0.txt" "${flags[@]}"
"$bin" ingest --store "$work/three" "$work/part1.txt" "${flags[@]}"
for store in one three; do
  for format in glove vocab; do
    "$bin" dump --store "$work/$store" --format "$format" | md5sum
  done > "$work/$store.md5"
done
cmp -s "$work/one.md5" "$work/three.md5" ||
  { echo "FAIL: three ingests differ from one: $(cat "$work/one.md5" "$work/three.md5")"; exit 1; }
"$bin" verify --store "$work/three" > /dev/null || { echo "FAIL: verify"; exit 1; }
echo "PASS: three ingests equal one: $(tr '\n' ' ' < "$work/one.md5")"
