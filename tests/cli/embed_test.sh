#!/usr/bin/env bash
# `embed` is the two-command recipe in one: its vectors equal those of
# `ingest` with the objective's store settings and `train` with its training
# settings (one thread, same seed: bit for bit), for both objectives; a later
# run with more inputs adds them to the kept store; a run killed while
# training resumes; a store made for the other objective, and a budget the
# counting uses up, are refused in one line that says how to proceed.
. "$(dirname "$0")/../lib.sh" embed
bin=$1
generator=$2
mkdir "$dir/corpus"
"$generator" -o "$dir/corpus" --bytes 3e6 --shards 2 --seed 9 >/dev/null
a=$dir/corpus/shard-00000.txt.zst
b=$dir/corpus/shard-00001.txt.zst

# Skip-gram: word2vec's windows (window 5, subsampled at 1e-4), dim 100.
"$bin" embed "$a" "$b" -o "$dir/sgns.txt" --epochs 2 --threads 1 --seed 3 -q
"$bin" ingest --store "$dir/sgns.store" "$a" "$b" --window 5 --subsample 1e-4 --threads 1 -q
"$bin" train --store "$dir/sgns.store" -o "$dir/sgns-ref.txt" --objective sgns --dim 100 \
  --epochs 2 --threads 1 --seed 3 -q
[ -s "$dir/sgns.txt" ] || fail "embed wrote no vectors"
cmp -s "$dir/sgns.txt" "$dir/sgns-ref.txt" || fail "embed's skip-gram vectors differ from ingest + train"
[ "$(head -1 "$dir/sgns.txt" | wc -w)" -eq 101 ] || fail "skip-gram vectors are not dim 100"
echo "ok: embed (sgns) = ingest --window 5 --subsample 1e-4 + train --objective sgns --dim 100"

# GloVe: Stanford's demo windows (15) and the glove-demo settings.
"$bin" embed "$a" -o "$dir/glove.txt" --objective glove --epochs 2 --threads 1 -q
"$bin" ingest --store "$dir/glove.store" "$a" --window 15 --threads 1 -q
"$bin" train --store "$dir/glove.store" -o "$dir/glove-ref.txt" --dim 50 --epochs 2 --x-max 10 \
  --threads 1 -q
cmp -s "$dir/glove.txt" "$dir/glove-ref.txt" || fail "embed's GloVe vectors differ from ingest + train"
echo "ok: embed --objective glove = ingest --window 15 + train --preset glove-demo's settings"

# --fixed-vocab: Stanford's counts, as ingest --fixed-vocab makes them; a
# rerun on the growing store above is refused, naming the flags.
"$bin" embed "$a" -o "$dir/fixed.txt" --objective glove --fixed-vocab --epochs 2 --threads 1 -q
"$bin" ingest --store "$dir/fixed-ref.store" "$a" --window 15 --fixed-vocab --threads 1 -q
"$bin" train --store "$dir/fixed-ref.store" -o "$dir/fixed-ref.txt" --dim 50 --epochs 2 --x-max 10 \
  --threads 1 -q
cmp -s "$dir/fixed.txt" "$dir/fixed-ref.txt" || fail "embed --fixed-vocab differs from ingest --fixed-vocab + train"
# The generated text has words under the cut, whose windows the two stores count differently.
cmp -s "$dir/fixed.txt" "$dir/glove.txt" && fail "embed --fixed-vocab gave the growing store's vectors"
"$bin" stats --store "$dir/fixed.txt.store" --json | grep -q '"fixed_vocabulary": *true' ||
  fail "embed --fixed-vocab made a growing store"
expect_one_line 1 "--window 15 --min-count 5 --fixed-vocab" \
  "$bin" embed "$a" -o "$dir/fixed.txt" --store "$dir/glove.store" --objective glove --fixed-vocab \
  --epochs 2 --threads 1 -q
echo "ok: embed --fixed-vocab = ingest --fixed-vocab + train; a growing store is refused"

# A later run with more inputs adds them (the GloVe store grows) and trains
# on both, as one run of both would.
"$bin" embed "$a" "$b" -o "$dir/glove.txt" --objective glove --epochs 2 --threads 1 2>"$dir/err"
grep -q "1 inputs ingested, 1 skipped" "$dir/err" || fail "the second input was not added: $(cat "$dir/err")"
"$bin" embed "$a" "$b" -o "$dir/both.txt" --objective glove --epochs 2 --threads 1 -q
cmp -s "$dir/glove.txt" "$dir/both.txt" || fail "an added input does not give one run's vectors"
echo "ok: a later run adds its new inputs to the store and equals one run of all"

# Killed while training (kill -9): the rerun resumes from the checkpoint and
# ends with the uninterrupted run's vectors.
rm -f "$dir/sgns.txt" "$dir/sgns.txt".{checkpoint,log.tsv}
"$bin" embed "$a" "$b" -o "$dir/sgns.txt" --epochs 6 --threads 1 --seed 3 -q &
pid=$!
for _ in $(seq 600); do [ -f "$dir/sgns.txt.checkpoint" ] && break; sleep 0.05; done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
# The five epochs left after the first checkpoint take seconds: a kill that
# found the run finished would leave the resume untested, so it fails.
[ ! -f "$dir/sgns.txt" ] || fail "training finished before the kill: the resume went untested"
"$bin" embed "$a" "$b" -o "$dir/sgns.txt" --epochs 6 --threads 1 --seed 3 2>"$dir/err"
grep -q "resumed from" "$dir/err" || fail "the rerun did not resume: $(cat "$dir/err")"
"$bin" train --store "$dir/sgns.store" -o "$dir/sgns6.txt" --objective sgns --dim 100 \
  --epochs 6 --threads 1 --seed 3 -q
cmp -s "$dir/sgns.txt" "$dir/sgns6.txt" || fail "the resumed run's vectors differ"
echo "ok: killed while training, the rerun resumed to the uninterrupted vectors"

# Refusals: one line each, exit 1, saying how to proceed.
expect_one_line 1 "makes its store with --window 15.*streamglove train --store" \
  "$bin" embed "$a" -o "$dir/sgns.txt" --objective glove --epochs 1 -q
expect_one_line 1 "leaving too little to train: give a larger --budget" \
  "$bin" embed "$a" -o "$dir/short.txt" --budget 1s -q
expect_one_line 2 "--budget" "$bin" embed "$a" -o "$dir/x.txt" --budget 10s --epochs 3
echo "ok: refusals are one line"
