#!/usr/bin/env bash
# Every benchmark script once, in smoke mode (SG_BENCH_SMOKE=1, bench/lib.sh):
# on a tiny generated stand-in for ../shared/data, with the fewest
# repetitions. Checks that each exits 0 and prints its figures (a line it
# always prints, matched by a pattern below), not their values; prints each
# script's wall time. A script that needs MPI may skip (77, its reason
# printed) without mpirun or with a binary built without MPI. ctest runs it as
# bench.smoke (label bench).
#
#   bench/smoke.sh [BUILD_DIR] [NAME...]    (default: $SG_BUILD, build; every script)
#
# A script in bench/ without an entry below fails the run: a new benchmark
# gets a smoke run when it is added.
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
if [ -d "${1:-}" ]; then
  sg_build "$(cd "$1" && pwd)"
  shift
fi
for f in streamglove streamglove-make-corpus streamglove-scan streamglove-membw \
  tests/libstreamglove_reference_device.so; do
  [ -e "$SG_BUILD/$f" ] || { echo "FAIL: no $SG_BUILD/$f: build every target first"; exit 1; }
done
sg_scratch bench-smoke
export SG_BENCH_SMOKE=1 SG_BUILD SG_BIN SG_SHARED_DATA=$work/data TMPDIR=$work
sg_smoke_data "$SG_SHARED_DATA"
# budget_use.sh trains on a store it is given.
"$SG_BIN" ingest --store "$work/store" "$SG_SHARED_DATA/corpus/wiki100M.txt.zst" --window 5 -q

# NAME|ARGUMENTS|PATTERN: the script, its arguments (split on spaces), and
# an extended regular expression that a line of its output must match.
# "-" as the pattern: not run here (the reason follows).
checks=(
  "additions||^\| warm-1 \| [0-9.]+ \|"
  "budget|-c wiki100M -s 1 -d 20 -e|^streamglove minus gensim"
  "budget_use|-s $work/store -b 8|^budget +8\.0 s: +[0-9.]+ s wall"
  "device_feed||^1 +[0-9.]+ +[0-9.]+$"
  "distributed|-n 2 -r 1|^per GB of text: word counts"
  "eval||^numpy .*: [0-9.]+ s; analogy: total"
  "growing||^fixed: [0-9]+ bytes on disk"
  "ingest||^ingest time split: vocabulary"
  "ingest_invariance||^same contents: by-shard"
  "long_tail||^store: [0-9]+ bytes, [0-9]+ non-zero pairs"
  "readers||^zstd +[0-9.]+M +zstd -dc"
  "phrases|-g 0.002|^generated 0.002 GB x2, 1G +[0-9.]+ s"
  "presets||^sgns-demo-time +[0-9.]+ s \\(ingest"
  "row_balance|-n 2|^addition: .* the even share"
  "scale|-w $work/scale|^gen-0\.002GB train +[0-9.]+ M pairs/s"
  "plot_scale|$work/scale/results.tsv $work/plots|^\| gen-0\.002GB \| eval \|"
  "sgns||^gensim skip-gram +[0-9.]+ s +analogy"
  "subwords|-s 1 -d 20|^  streamglove-subwords +[0-9.]+ s +sem"
  "threads||^every store's dump identical"
  "tiles|-s 1|^sgns tiles at 1, 2, 3 threads: identical vectors"
  "train||^\| 2 \| [0-9.]+ \| [0-9.]+ \|"
  "vocab||^\(a\) and \(b\) outputs byte-identical"
  "crash_trials||-run by the cooccur.crash_resume test"
  "train_crash_trials||-run by the train.crash_resume test"
  "disk_peak||-run by scale.sh and threads.sh"
)
may_skip=" distributed row_balance "

# Every script of bench/ has a line above.
for script in bench/*.sh; do
  name=$(basename "$script" .sh)
  case $name in lib | smoke) continue ;; esac
  printf '%s\n' "${checks[@]}" | grep -q "^$name|" ||
    { echo "FAIL: bench/$name.sh has no smoke check in bench/smoke.sh"; exit 1; }
done

wanted=" $* "
failed=0
start=$SECONDS
for check in "${checks[@]}"; do
  IFS='|' read -r name args pattern <<<"$check"
  [ "$wanted" = "  " ] || [[ $wanted == *" $name "* ]] || continue
  if [[ $pattern == -* ]]; then
    printf '%-20s not run here: %s\n' "$name" "${pattern#-}"
    continue
  fi
  log=$work/$name.log
  t=$SECONDS
  code=0
  # shellcheck disable=SC2086  # the arguments are split on spaces
  "bench/$name.sh" $args >"$log" 2>&1 || code=$?
  took=$((SECONDS - t))
  if [ "$code" = 77 ] && [[ $may_skip == *" $name "* ]]; then
    printf '%-20s %3d s  %s\n' "$name" "$took" "$(grep -m1 '^SKIP' "$log" || echo SKIP)"
  elif [ "$code" != 0 ]; then
    printf '%-20s %3d s  FAIL: exit %s; the end of its output:\n' "$name" "$took" "$code"
    tail -n 20 "$log" | sed 's/^/    /'
    failed=1
  elif ! grep -qE "$pattern" "$log"; then
    printf '%-20s %3d s  FAIL: no line matches /%s/; the end of its output:\n' "$name" "$took" "$pattern"
    tail -n 20 "$log" | sed 's/^/    /'
    failed=1
  else
    printf '%-20s %3d s  ok\n' "$name" "$took"
  fi
done
echo "smoke: $((SECONDS - start)) s in all"
exit "$failed"
