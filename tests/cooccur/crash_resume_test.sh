#!/usr/bin/env bash
# CI-sized crash trials: a generated 12 MB corpus, small batches, 10 kills.
. "$(dirname "$0")/../lib.sh" crash-corpus
bin=$1
generator=$2
"$generator" -o "$dir" --bytes 12e6 --shards 3 --seed 7
"$(dirname "$0")/../../bench/crash_trials.sh" "$bin" 10 "$dir" -- --window 10 --min-count 3 --memory 128M --batch-size 256K
