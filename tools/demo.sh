#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, generates a
# small demo corpus (JSONL shards, as web dumps ship) and runs the pipeline on it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh build -DCMAKE_BUILD_TYPE=Release

demo=build/demo
rm -rf "$demo"
mkdir -p "$demo/corpus"
echo "== generating a 20 MB demo corpus in $demo/corpus"
build/streamglove-make-corpus -o "$demo/corpus" --format jsonl --bytes 20e6 \
  --questions "$demo/analogies.txt"
ls -l "$demo/corpus"

echo "== streamglove vocab"
build/streamglove vocab "$demo/corpus" --min-count 5 -o "$demo/vocab.txt"
echo "== the 10 most frequent words ($demo/vocab.txt)"
head -n 10 "$demo/vocab.txt"

echo "== streamglove ingest (co-occurrence counts into a RocksDB store)"
build/streamglove ingest --store "$demo/store" "$demo/corpus" --min-count 5 --memory 512M
build/streamglove stats --store "$demo/store"

echo "== streamglove train (GloVe, dim 50, 10 epochs; loss per epoch in $demo/vectors.txt.log.tsv)"
build/streamglove train --store "$demo/store" -o "$demo/vectors.txt" --dim 50 --epochs 10 --x-max 10 --memory 512M

echo "== streamglove eval analogy on the corpus's planted relations (GloVe)"
build/streamglove eval analogy "$demo/vectors.txt" "$demo/analogies.txt"

echo "== streamglove train --objective sgns (skip-gram with negative sampling from the same counts, 3 epochs)"
build/streamglove train --store "$demo/store" -o "$demo/sgns.txt" --objective sgns --dim 50 --epochs 3 --memory 512M
echo "== streamglove eval analogy on the planted relations (SGNS)"
build/streamglove eval analogy "$demo/sgns.txt" "$demo/analogies.txt"

word=$(sed -n '2p' "$demo/analogies.txt" | awk '{print $1}')
echo "== streamglove neighbors $word"
build/streamglove neighbors "$demo/sgns.txt" "$word" -k 5
