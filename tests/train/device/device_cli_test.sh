#!/usr/bin/env bash
# `train --device cuda` from the command line: without a plugin, one line and
# exit 1; with the reference device (a plugin made of the CPU) as the plugin,
# the vectors of `--threads 1 --schedule hogwild` on the CPU byte for byte, and the summary
# naming the device; a budget with a device refused before any work.
. "$(dirname "$0")/../../lib.sh" device-cli
bin=$1
generator=$2
reference=$3
mkdir "$dir/corpus"
"$generator" -o "$dir/corpus" --bytes 3e6 2>/dev/null
"$bin" ingest --store "$dir/store" "$dir/corpus" --window 5 --min-count 5 --memory 256M -q
train=("$bin" train --store "$dir/store" --dim 24 --epochs 2 --memory 256M)

# No plugin beside the binary (a copy of it, since a build with the CUDA
# plugin puts one beside the original), none named.
mkdir "$dir/bin"
cp "$bin" "$dir/bin/streamglove"
set +e
env -u STREAMGLOVE_CUDA_PLUGIN "$dir/bin/streamglove" "${train[@]:1}" -o "$dir/none.txt" --device cuda -q \
  2>"$dir/none.err"
code=$?
set -e
[ "$code" = 1 ] || fail "no plugin: exit $code, not 1"
[ "$(wc -l <"$dir/none.err")" = 1 ] || fail "no plugin: not one line: $(cat "$dir/none.err")"
grep -q "no CUDA plugin: libstreamglove_cuda.so" "$dir/none.err" || fail "$(cat "$dir/none.err")"
cat "$dir/none.err"

for objective in glove sgns; do
  # Words as atoms, as a device trains them.
  "${train[@]}" --objective "$objective" --no-subwords --threads 1 --schedule hogwild \
    -o "$dir/cpu-$objective.txt" -q
  STREAMGLOVE_CUDA_PLUGIN=$reference "${train[@]}" --objective "$objective" --threads 2 \
    --device cuda -o "$dir/device-$objective.txt" 2>"$dir/device-$objective.err"
  grep -q "reference device" "$dir/device-$objective.err" ||
    fail "the summary names no device: $(cat "$dir/device-$objective.err")"
  cmp "$dir/cpu-$objective.txt" "$dir/device-$objective.txt" ||
    fail "$objective: the device's vectors differ from one CPU thread's"
  echo "$objective: the device's vectors equal one CPU thread's"
done

set +e
"$bin" train --store "$dir/store" -o "$dir/budget.txt" --device cuda --budget 1m 2>"$dir/budget.err"
code=$?
set -e
[ "$code" = 2 ] || fail "budget on a device: exit $code, not 2"
grep -q "budget plans CPU training" "$dir/budget.err" || fail "$(cat "$dir/budget.err")"
[ ! -e "$dir/budget.txt.plan" ] || fail "a refused budget wrote a plan"
echo "ok"
