#!/usr/bin/env bash
# The CLI contract: exit 0 on success, 1 on error, 2 on bad usage; an error is
# one line on stderr naming what failed.
set -uo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0

expect() {  # expect CODE PATTERN -- command...
  local code=$1 pattern=$2
  shift 3
  "$@" >"$dir/out" 2>"$dir/err"
  local got=$?
  if [ "$got" -ne "$code" ]; then
    echo "FAIL: '$*' exited $got, expected $code; stderr: $(cat "$dir/err")"; fail=1; return
  fi
  if [ -n "$pattern" ]; then
    if ! grep -q -- "$pattern" "$dir/err"; then
      echo "FAIL: '$*': stderr lacks '$pattern': $(cat "$dir/err")"; fail=1; return
    fi
    if [ "$code" -ne 0 ] && [ "$(wc -l <"$dir/err")" -ne 1 ]; then
      echo "FAIL: '$*': error is not one line: $(cat "$dir/err")"; fail=1; return
    fi
  fi
  echo "ok: exit $code: $*"
}

printf 'the cat sat on the mat\nthe end\n' >"$dir/corpus.txt"
printf 'abc' | head -c 2 >"$dir/broken.zst"

expect 0 "" -- "$bin" --help
expect 0 "" -- "$bin" vocab --help
grep -q -- "--min-count" "$dir/out" || { echo "FAIL: vocab --help lacks --min-count"; fail=1; }
expect 2 "" -- "$bin"
expect 2 "--bogus" -- "$bin" vocab --bogus "$dir/corpus.txt" -o "$dir/v"
expect 2 "OUTPUT\|--output" -- "$bin" vocab "$dir/corpus.txt"
expect 2 "--memory" -- "$bin" vocab "$dir/corpus.txt" -o "$dir/v" --memory 12Q
expect 2 "--memory must be at least" -- "$bin" vocab "$dir/corpus.txt" -o "$dir/v" --memory 1M
expect 2 "missing.txt: No such file" -- "$bin" vocab "$dir/missing.txt" -o "$dir/v"
expect 1 "broken.zst: byte 0: not zstd data" -- "$bin" vocab "$dir/corpus.txt" "$dir/broken.zst" -o "$dir/v"
[ -e "$dir/v" ] && { echo "FAIL: an output file was left after an error"; fail=1; }
expect 0 "" -- "$bin" vocab "$dir/corpus.txt" -o "$dir/v" --quiet
[ -s "$dir/err" ] && { echo "FAIL: --quiet printed: $(cat "$dir/err")"; fail=1; }
# More --threads than cores, quietly under -q: oneTBB caps an arena at the
# cores unless allowed more (main's global_control), and said so on stderr
# (vocab and train); ingest uses the cores, and says so unless -q.
over=$(($(nproc) * 2 + 1))
for stage in vocab ingest train; do
  case $stage in
    vocab) expect 0 "" -- "$bin" vocab "$dir/corpus.txt" -o "$dir/v3" --threads $over -q ;;
    ingest) expect 0 "" -- "$bin" ingest --store "$dir/small" "$dir/corpus.txt" --min-count 1 --threads $over -q ;;
    train) expect 0 "" -- "$bin" train --store "$dir/small" -o "$dir/small.vec" --dim 4 --epochs 1 --threads $over -q ;;
  esac
  [ -s "$dir/err" ] && { echo "FAIL: $stage --threads $over -q printed: $(cat "$dir/err")"; fail=1; }
done
if [ "$(cat "$dir/v")" != "$(printf 'the 3\ncat 1\nend 1\nmat 1\non 1\nsat 1')" ]; then
  echo "FAIL: wrong vocabulary: $(cat "$dir/v")"; fail=1
fi
# stdin, compressed on the fly
zstd -q -c "$dir/corpus.txt" | "$bin" vocab - -o "$dir/v2" --quiet && cmp -s "$dir/v" "$dir/v2" \
  && echo "ok: zstd on stdin" || { echo "FAIL: zstd on stdin"; fail=1; }
# An allocation refused by the machine is one line and exit 1, not an abort;
# the store it leaves is resumed by the same command with enough memory.
# (AddressSanitizer reserves terabytes of address space: no ulimit -v there.
# ldd's list is read whole: `ldd | grep -q` under pipefail fails whenever grep
# exits before ldd has written everything, and the check then ran the
# ulimit case under ASan.)
libraries=$(ldd "$bin" 2>/dev/null || true)
if [[ $libraries == *libasan* ]]; then
  echo "skip: ulimit -v under AddressSanitizer"
else
  expect 1 "out of memory: the counting buffers of --threads 1" -- bash -c "ulimit -v 700000 && exec '$bin' ingest --store '$dir/oom' '$dir/corpus.txt' --min-count 1 --memory 2G --threads 1 -q"
  expect 0 "" -- "$bin" ingest --store "$dir/oom" "$dir/corpus.txt" --min-count 1 --memory 256M --threads 1 -q
  # Opening a store in a small address space, with OpenBLAS's load-time
  # threads (one per core) left out so the case is the same on any machine.
  # With 8 MiB stacks `stats` opens in 200 MB here; at 300 MB RocksDB's 15
  # file-opening threads aborted it 20 runs in 20. With 256 MiB stacks no
  # second thread fits: one line, exit 1.
  stats_in() {  # stats_in STACK_KIB: runs `stats` under ulimit -v 300000
    OPENBLAS_NUM_THREADS=1 bash -c "ulimit -s $1 && ulimit -v 300000 && exec '$bin' stats --store '$dir/oom'"
  }
  expect 0 "" -- stats_in 8192
  if (ulimit -s 262144) 2>/dev/null; then
    expect 1 "a thread could not start" -- stats_in 262144
  else
    echo "skip: the hard stack limit is below 256 MiB"
  fi
  # train: parameters of 50,000 words x 4096 dims (3.1 GiB) under a 2 GB address space
  seq 1 50000 | sed 's/^/w/' | tr '\n' ' ' >"$dir/many.txt"
  expect 0 "" -- "$bin" ingest --store "$dir/many" "$dir/many.txt" --min-count 1 --window 2 --threads 1 -q
  expect 1 "out of memory: the parameters of 50000 words x 4096 dims" -- bash -c \
    "ulimit -v 2000000 && exec '$bin' train --store '$dir/many' -o '$dir/many.vec' --dim 4096 --epochs 1 --memory 8G --threads 1 -q"
fi
# train --budget: a duration, and not beside --epochs (checked before the store is opened)
expect 2 "--budget: invalid duration '10x'" -- "$bin" train --store "$dir/none" -o "$dir/t.txt" --budget 10x
expect 2 "give --budget or --epochs" -- "$bin" train --store "$dir/none" -o "$dir/t.txt" --budget 10m --epochs 5
# eval and queries
printf 'the 1 0\ncat 0.9 0.1\nmat 0.8 0.3\nsat 0 1\n' >"$dir/vectors.txt"
printf ': s\nthe cat mat sat\n' >"$dir/questions.txt"
printf 'the 1 0\ncat 0.9\n' >"$dir/ragged.txt"
expect 0 "" -- "$bin" eval analogy "$dir/vectors.txt" "$dir/questions.txt"
grep -q "total .* 1 / 1 " "$dir/out" || { echo "FAIL: eval analogy table: $(cat "$dir/out")"; fail=1; }
expect 1 "missing.txt: No such file" -- "$bin" eval analogy "$dir/missing.txt" "$dir/questions.txt"
expect 1 "ragged.txt: line 2: 'cat' has 1 values" -- "$bin" eval similarity "$dir/ragged.txt" "$dir/questions.txt"
expect 1 "questions.txt: line 1: expected word1<TAB>word2<TAB>score" -- \
  "$bin" eval similarity "$dir/vectors.txt" "$dir/questions.txt"
expect 2 "three words" -- "$bin" analogy "$dir/vectors.txt" the cat
expect 1 "'dog' is not in" -- "$bin" neighbors "$dir/vectors.txt" dog
expect 0 "" -- "$bin" neighbors "$dir/vectors.txt" the -k 1
[ "$(awk '{print $1}' "$dir/out")" = "cat" ] || { echo "FAIL: neighbors of the: $(cat "$dir/out")"; fail=1; }
# Interactive: one query per line; a bad one is reported and the next answered.
printf 'dog\nthe cat mat\n' | "$bin" analogy "$dir/vectors.txt" -k 1 >"$dir/out" 2>"$dir/err"
grep -q "'dog' is not in\|three words" "$dir/err" && grep -q "^sat " "$dir/out" \
  && echo "ok: interactive analogy" || { echo "FAIL: interactive analogy: $(cat "$dir/out" "$dir/err")"; fail=1; }
# plot: SVG out, one clear line on a bad log or an unknown word.
printf 'epoch\tloss\tseconds\n1\t2.5\t1.0\n2\t2.25\t1.0\n3\t2.125\t1.0\n' >"$dir/run.log.tsv"
expect 0 "" -- "$bin" plot loss "$dir/run.log.tsv" -o "$dir/loss.svg"
grep -q "<polyline" "$dir/loss.svg" && grep -q "</svg>" "$dir/loss.svg" \
  || { echo "FAIL: plot loss wrote no chart: $(head -c 300 "$dir/loss.svg")"; fail=1; }
printf 'epoch\tloss\n1\tlow\n' >"$dir/bad.log.tsv"
expect 1 "bad.log.tsv: line 2: expected" -- "$bin" plot loss "$dir/bad.log.tsv" -o "$dir/x.svg"
expect 0 "" -- "$bin" plot map "$dir/vectors.txt" --top 3 -o "$dir/map.svg"
[ "$(grep -c "<circle" "$dir/map.svg")" -eq 3 ] || { echo "FAIL: plot map: not 3 points"; fail=1; }
expect 1 "no vector for \"dog\"" -- "$bin" plot map "$dir/vectors.txt" --words the,dog -o "$dir/x.svg"
exit $fail
