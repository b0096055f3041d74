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
