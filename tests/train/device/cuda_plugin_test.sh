#!/usr/bin/env bash
# The CUDA plugin's host side without a GPU: `train --device cuda` through
# libstreamglove_cuda.so with the driver missing, or replaced by a fake
# driver (fake_cuda_driver.cc) that has no device, an old GPU, an old
# driver, too little memory, or fails a launch: each one line
# naming the cause, exit 1, and no vectors file. The fake driver also looks
# up every kernel the plugin asks for in the PTX it was given, so a run
# that gets as far as training proves the embedded PTX holds the kernels
# for the dim.
. "$(dirname "$0")/../../lib.sh" cuda-plugin
bin=$1
generator=$2
plugin=$3
fake=$4
not_a_driver=$5
mkdir "$dir/corpus"
"$generator" -o "$dir/corpus" --bytes 1e6 2>/dev/null
"$bin" ingest --store "$dir/store" "$dir/corpus" --window 5 --min-count 5 --memory 256M -q
export STREAMGLOVE_CUDA_PLUGIN=$plugin

# expect_error WHAT PATTERN ENV... -- TRAIN ARGS...: one line matching
# PATTERN, exit 1, no vectors.
expect_error() {
  local what=$1 pattern=$2
  shift 2
  local env=()
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  rm -f "$dir/v.txt"
  set +e
  env "${env[@]}" "$bin" train --store "$dir/store" -o "$dir/v.txt" --device cuda --memory 256M \
    --epochs 1 -q "$@" 2>"$dir/err"
  local code=$?
  set -e
  [ "$code" = 1 ] || fail "$what: exit $code, not 1: $(cat "$dir/err")"
  [ "$(wc -l <"$dir/err")" = 1 ] || fail "$what: not one line: $(cat "$dir/err")"
  grep -qE "$pattern" "$dir/err" || fail "$what: $(cat "$dir/err")"
  [ ! -e "$dir/v.txt" ] || fail "$what: a vectors file was written"
  echo "$what: $(cat "$dir/err")"
}

expect_error "no driver" "no NVIDIA driver: /nonexistent/libcuda.so.1 cannot be loaded" \
  STREAMGLOVE_CUDA_DRIVER=/nonexistent/libcuda.so.1 --
expect_error "not a driver" "lacks cuInit: the NVIDIA driver is too old" \
  STREAMGLOVE_CUDA_DRIVER="$not_a_driver" --
export STREAMGLOVE_CUDA_DRIVER=$fake
expect_error "cuInit finds no device" "no CUDA device \(cuInit: CUDA_ERROR_NO_DEVICE\)" \
  FAKE_CUDA_FAIL=cuInit FAKE_CUDA_RESULT=100 --
expect_error "no device" "no CUDA device" FAKE_CUDA_DEVICES=0 --
expect_error "an old GPU" "Fake GPU \(sm_70.*older than the kernels' sm_80" FAKE_CUDA_CC=70 --
expect_error "too little memory" "needs|does not fit|free" FAKE_CUDA_FREE=1000 --
expect_error "an old driver" "too old for the kernels' PTX 7.0" \
  FAKE_CUDA_FAIL=cuModuleLoadDataEx FAKE_CUDA_RESULT=222 --
expect_error "an allocation fails" "cuMemAlloc \(parameters\): out of memory \(CUDA_ERROR_OUT_OF_MEMORY\)" \
  FAKE_CUDA_FAIL=cuMemAlloc_v2 --
for objective in glove sgns; do
  # One dim per kernel version (components per lane 1 to 128, kernel_args.h),
  # so a version missing from the PTX fails here; few words keep dim 4000
  # inside --memory.
  for dim in 8 50 100 200 300 1000 2000 4000; do
    expect_error "$objective dim $dim, a launch fails" \
      "cuLaunchKernel: unspecified launch failure \(CUDA_ERROR_LAUNCH_FAILED\)" \
      FAKE_CUDA_FAIL=cuLaunchKernel FAKE_CUDA_RESULT=719 -- \
      --objective "$objective" --dim "$dim" --max-vocab 200
  done
done
# With nothing failing, the fake trains nothing but the run completes: the
# plugin's copies, slots and waits work end to end, and the vectors are the
# initial ones written back.
STREAMGLOVE_CUDA_DRIVER=$fake "$bin" train --store "$dir/store" -o "$dir/v.txt" --device cuda \
  --memory 256M --epochs 2 --dim 16 2>"$dir/err" || fail "$(cat "$dir/err")"
grep -q "Fake GPU (sm_90, 4 multiprocessors, CUDA driver 12.4)" "$dir/err" || fail "$(cat "$dir/err")"
[ -s "$dir/v.txt" ] || fail "no vectors"
echo "ok"
