#!/usr/bin/env bash
# --memory is a promise: vocab, ingest and train on a generated corpus under
# --memory 256M, at 1 and 4 threads, and train under 64M, each peak at most
# 10% above the budget resident (the maximum RSS /usr/bin/time reports).
# The corpus is shaped so that the budget binds in every stage, and the
# test checks that it did: millions of distinct words (vocab's tables spill
# runs), mostly distinct pairs (ingest's buffers spill runs), and models
# whose parameters take most of train's budget (GloVe and skip-gram),
# leaving blocks of 8-15 MiB to be trained and read ahead.
#
#   memory_limit_test.sh STREAMGLOVE MAKE_CORPUS
set -euo pipefail
bin=$1
gen=$2
[ -x /usr/bin/time ] || { echo "SKIP: no /usr/bin/time (tools/setup.sh installs it)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sg-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT
limit=256M
allowed_kib=$((256 * 1024 * 110 / 100))
max_vocab=200000
mkdir -p "$work/corpus"
"$gen" -o "$work/corpus" --bytes 4e7 --vocab 8000000 --zipf 0.7 --shards 4 --seed 7 >/dev/null

fail=0
# measure NAME COMMAND...: runs COMMAND (its stderr kept in $work/NAME.err),
# prints its peak RSS, and marks the test failed if that is over the limit.
measure() {
  local name=$1
  shift
  if ! /usr/bin/time -f %M -o "$work/$name.rss" "$@" 2>"$work/$name.err"; then
    echo "FAIL: $name exited non-zero:"
    cat "$work/$name.err"
    exit 1
  fi
  local kib
  kib=$(tail -n 1 "$work/$name.rss")
  if [ "$kib" -gt "$allowed_kib" ]; then
    echo "FAIL: $name peaked at $((kib / 1024)) MiB under --memory $limit (allowed $((allowed_kib / 1024)) MiB)"
    fail=1
  else
    echo "ok: $name peaked at $((kib / 1024)) MiB under --memory $limit"
  fi
}
# spilled NAME: the number in the summary's "N spill runs" / "N spilled runs".
spilled() { grep -oE '[0-9]+ spill(ed)? runs' "$work/$1.err" | grep -oE '^[0-9]+'; }

for t in 1 4; do
  measure vocab-$t "$bin" vocab "$work/corpus" --min-count 2 --memory $limit --threads $t -o "$work/vocab-$t.txt"
  [ "$(spilled vocab-$t)" -gt 0 ] || { echo "FAIL: vocab at $t threads did not spill: the budget never bound"; exit 1; }
  # A fixed vocabulary, cut to 200,000 words; a growing one holds all 2 million (below).
  measure ingest-$t "$bin" ingest --store "$work/store-$t" "$work/corpus" --min-count 2 --max-vocab $max_vocab \
    --fixed-vocab --window 5 --memory $limit --threads $t
  [ "$(spilled ingest-$t)" -gt 0 ] || { echo "FAIL: ingest at $t threads did not spill: the budget never bound"; exit 1; }
done
# A growing store would hold every distinct word (about 2 million here) in
# memory while counting: more than 256M allows, so it is refused in one line,
# within the limit, before the counting starts.
if /usr/bin/time -f %M -o "$work/grow.rss" "$bin" ingest --store "$work/store-grow" "$work/corpus" \
  --window 5 --memory $limit --threads 2 -q 2>"$work/grow.err"; then
  echo "FAIL: a growing ingest of 2 million words fitted in --memory $limit"; exit 1
fi
grep -q "too small for this vocabulary" "$work/grow.err" && [ "$(wc -l < "$work/grow.err")" = 1 ] ||
  { echo "FAIL: a growing ingest over budget: $(cat "$work/grow.err")"; exit 1; }
kib=$(tail -n 1 "$work/grow.rss")
[ "$kib" -le "$allowed_kib" ] ||
  { echo "FAIL: the refused growing ingest peaked at $((kib / 1024)) MiB"; fail=1; }
echo "ok: a growing ingest over budget is refused at $((kib / 1024)) MiB: $(cat "$work/grow.err")"
cmp -s "$work/vocab-1.txt" "$work/vocab-4.txt" ||
  { echo "FAIL: the vocabulary depends on the thread count"; exit 1; }

# Parameters of 200,000 words: GloVe keeps four arrays of RowStride(dim)
# floats a word (w, w~ and their AdaGrad sums), dim 47 -> 48 floats: 147 MiB;
# skip-gram as atoms two, dim 111 -> 112 floats: 171 MiB. Skip-gram's
# default, a subword model, at dim 80 (122 MiB of word rows) gets n-gram
# rows of half what is left, and its n-gram index beside them.
measure train-glove-1 "$bin" train --store "$work/store-4" -o "$work/glove-1.txt" --objective glove --dim 47 \
  --epochs 1 --memory $limit --threads 1 -q
for t in 1 4; do
  measure train-sgns-$t "$bin" train --store "$work/store-4" -o "$work/sgns-$t.txt" --objective sgns --dim 111 \
    --no-subwords --epochs 1 --memory $limit --threads $t -q
  measure train-subwords-$t "$bin" train --store "$work/store-4" -o "$work/subwords-$t.txt" --objective sgns \
    --dim 80 --epochs 1 --memory $limit --threads $t -q
  [ -s "$work/subwords-$t.txt.model" ] || { echo "FAIL: the subword run at $t threads wrote no model"; exit 1; }
done
[ "$(wc -l <"$work/glove-1.txt")" -eq $max_vocab ] || { echo "FAIL: the vectors file does not hold $max_vocab words"; exit 1; }

# A small budget: blocks of the smallest size, part buffers of a few MiB
# freed and allocated again round after round, the process's own baseline
# a larger share. A dense corpus (40,000 words, 12 million distinct pairs)
# fills the blocks; the block stream is built in the same run. Before
# training mapped its large buffers apart (MapLargeAllocations) and kept
# their room across rounds, GloVe peaked at 80 MiB here, skip-gram at 80.
mkdir -p "$work/dense"
"$gen" -o "$work/dense" --bytes 2e7 --vocab 40000 --zipf 1.0 --shards 2 --seed 7 >/dev/null
"$bin" ingest --store "$work/store-dense" "$work/dense" --window 5 --memory 256M --threads 2 -q
limit=64M
allowed_kib=$((64 * 1024 * 110 / 100))
measure train-glove-64M "$bin" train --store "$work/store-dense" -o "$work/glove-64M.txt" --objective glove \
  --max-vocab 30000 --dim 24 --epochs 2 --memory $limit --threads 2 -q
measure train-sgns-64M "$bin" train --store "$work/store-dense" -o "$work/sgns-64M.txt" --objective sgns \
  --dim 24 --no-subwords --epochs 2 --memory $limit --threads 2 -q
[ $fail = 0 ] && echo "PASS: every stage within 10% of its --memory"
exit $fail
