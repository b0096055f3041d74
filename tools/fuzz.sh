#!/usr/bin/env bash
# Builds the libFuzzer targets with clang under ASan + UBSan and runs each for
# SECONDS (default 60), starting from the seeds in tests/fuzz/seeds/<target>
# plus the regression inputs in tests/fuzz/regressions/<target>. Prints the
# executions per target; exits non-zero if any target found a crash (the
# input is saved as build-fuzz/crash-<target>-*: add it to the regressions).
#
#   tools/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
tools/setup.sh
mkdir -p build-fuzz
# The build's log is shown only when it fails (clang warns where gcc does not).
targets="corpus_reader tokenizer jsonl_field vectors vocab_file"
# Only the fuzz targets: the rest of the tree is built and tested elsewhere.
if ! SG_BUILD_TARGETS="$(printf '%s_fuzz ' $targets)" CC=clang CXX=clang++ \
     tools/build.sh build-fuzz -DCMAKE_BUILD_TYPE=Debug -DSG_FUZZ=ON -DBUILD_TESTING=OFF \
     >build-fuzz/build.log 2>&1; then
  grep -E -A4 "error|FAILED" build-fuzz/build.log | head -n 60
  echo "fuzz: the clang build failed (log: build-fuzz/build.log)"
  exit 1
fi
fail=0
for target in $targets; do
  work=build-fuzz/corpus-$target
  mkdir -p "$work"
  dirs=("$work")
  for d in tests/fuzz/seeds/$target tests/fuzz/regressions/$target; do [ -d "$d" ] && dirs+=("$d"); done
  log=build-fuzz/$target.log
  if build-fuzz/${target}_fuzz -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="build-fuzz/crash-$target-" -print_final_stats=1 "${dirs[@]}" >"$log" 2>&1; then
    result=ok
  else
    result=CRASH; fail=1; tail -n 30 "$log"
  fi
  execs=$(grep -m1 "stat::number_of_executed_units" "$log" | awk '{print $2}')
  echo "fuzz $target: ${execs:-?} executions in ${seconds} s: $result"
done
exit $fail
