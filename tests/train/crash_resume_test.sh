#!/usr/bin/env bash
# CI-sized training crash trials: kill -9 at 5 random moments (3 for SGNS),
# --resume each time; with one thread the final vectors equal an
# uninterrupted run's.
. "$(dirname "$0")/../lib.sh" train-crash-corpus
bin=$1
generator=$2
trials=$(dirname "$0")/../../bench/train_crash_trials.sh
mkdir "$dir/corpus"
"$generator" -o "$dir/corpus" --bytes 6e6 --shards 1 --seed 5
"$bin" ingest --store "$dir/store" "$dir/corpus" --window 10 --min-count 3 --memory 128M -q
"$trials" "$bin" "$dir/store" 5 --dim 24 --epochs 8 --x-max 10 --memory 64M
# SGNS: its learning rate falls over the whole run, so a resume must also
# pick the schedule up where it stopped.
"$trials" "$bin" "$dir/store" 3 --objective sgns --dim 24 --epochs 4 --memory 64M
