#!/usr/bin/env bash
# Configures and builds one build tree: tools/build.sh DIR [cmake args...]
# SG_BUILD_TARGETS (space-separated) builds only those targets.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
shift
cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
targets=()
for t in ${SG_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$dir" -j2 "${targets[@]}"
