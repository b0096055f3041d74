#!/usr/bin/env bash
# `train --device cuda` from the command line: without a plugin, one line and
# exit 1; with the reference device (a plugin made of the CPU) as the plugin,
# the vectors of `--threads 1 --schedule hogwild` on the CPU byte for byte when
# every epoch streams (a --device-memory too small to keep the pairs), and the
# summary naming the device and whether the pairs were kept; a budget with a
# device refused before any work.
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
  # 48 MiB of staging slots, the parameters (5.6 MiB), and less than a MiB beside.
  STREAMGLOVE_CUDA_PLUGIN=$reference "${train[@]}" --objective "$objective" --threads 2 \
    --device cuda --device-memory 54M -o "$dir/device-$objective.txt" \
    2>"$dir/device-$objective.err"
  grep -q "reference device" "$dir/device-$objective.err" ||
    fail "the summary names no device: $(cat "$dir/device-$objective.err")"
  grep -q "every epoch's pairs streamed to the device" "$dir/device-$objective.err" ||
    fail "$objective: the summary does not say the pairs streamed: $(cat "$dir/device-$objective.err")"
  cmp "$dir/cpu-$objective.txt" "$dir/device-$objective.txt" ||
    fail "$objective: the device's vectors differ from one CPU thread's"
  echo "$objective: the device's vectors equal one CPU thread's"
done

# With the device's memory, GloVe's pairs are kept there after the first epoch.
STREAMGLOVE_CUDA_PLUGIN=$reference "${train[@]}" --threads 2 --device cuda \
  -o "$dir/resident.txt" 2>"$dir/resident.err"
grep -Eq "the [0-9]+ pairs kept on the device after the first epoch" "$dir/resident.err" ||
  fail "the pairs were not kept: $(cat "$dir/resident.err")"
[ "$(wc -l <"$dir/resident.txt")" = "$(wc -l <"$dir/cpu-glove.txt")" ] ||
  fail "kept pairs: another vocabulary"
echo "glove: the pairs kept on the device"

set +e
"$bin" train --store "$dir/store" -o "$dir/budget.txt" --device cuda --budget 1m 2>"$dir/budget.err"
code=$?
set -e
[ "$code" = 2 ] || fail "budget on a device: exit $code, not 2"
grep -q "budget plans CPU training" "$dir/budget.err" || fail "$(cat "$dir/budget.err")"
[ ! -e "$dir/budget.txt.plan" ] || fail "a refused budget wrote a plan"
echo "ok"
