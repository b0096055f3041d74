#!/usr/bin/env bash
# `phrases` as a user runs it: its list finds the planted phrases, at two
# passes the longer one; a run killed with SIGKILL at any moment and run
# again writes the list of one uninterrupted run; `embed --phrases` trains
# the joined words; bad lists, other lists and bad options are refused in
# one line, with nothing changed.
. "$(dirname "$0")/../lib.sh" phrases
bin=$1
generator=$2
mkdir "$dir/corpus"
"$generator" -o "$dir/corpus" --bytes 2e6 --shards 1 --seed 4 >/dev/null
# The generated words with planted phrases in every line.
zstd -dc "$dir/corpus/shard-00000.txt.zst" |
  awk '{ print $0, "new york times", $1, "ice cream", $2, "new york" }' >"$dir/a.txt"

"$bin" phrases "$dir/a.txt" --store "$dir/ref" -o "$dir/ref.txt" --threshold 10 --threads 2 -q
has() { grep -qP "^$1\t$2\t$3\t" "$dir/ref.txt" || fail "no pass-$1 phrase '$2 $3' in: $(head "$dir/ref.txt")"; }
has 1 new york
has 1 ice cream
has 2 new_york times
echo "ok: phrases finds new_york, ice_cream and new_york_times"

# Killed at some moment (maybe before anything, maybe after the end), then
# run again: the list of one uninterrupted run.
for delay in 0.2 0.5 0.9; do
  rm -rf "$dir/killed" "$dir/killed.txt"
  timeout -s KILL "$delay" "$bin" phrases "$dir/a.txt" --store "$dir/killed" -o "$dir/killed.txt" \
    --threshold 10 --threads 2 -q || true
  "$bin" phrases "$dir/a.txt" --store "$dir/killed" -o "$dir/killed.txt" --threshold 10 --threads 2 -q
  cmp -s "$dir/ref.txt" "$dir/killed.txt" || fail "killed after $delay s and rerun: another list"
done
echo "ok: phrases killed with SIGKILL and rerun writes the same list"

"$bin" embed "$dir/a.txt" -o "$dir/v.txt" --phrases "$dir/ref.txt" --epochs 1 --threads 2 -q
grep -q "^new_york_times " "$dir/v.txt" || fail "embed --phrases: no vector for new_york_times"
grep -q "^york " "$dir/v.txt" && fail "embed --phrases: 'york' is always joined, yet has a vector"
echo "ok: embed --phrases trains the joined words"

printf '1\tnew\tyork\n1\tice\n' >"$dir/bad.txt"
expect_one_line 2 "bad.txt: line 2 (byte 11): expected pass, left and right" \
  "$bin" ingest --store "$dir/s" "$dir/a.txt" --phrases "$dir/bad.txt"
[ ! -e "$dir/s" ] || fail "a bad list left a store behind"
expect_one_line 2 "none.txt" "$bin" ingest --store "$dir/s" "$dir/a.txt" --phrases "$dir/none.txt"
"$bin" ingest --store "$dir/s" "$dir/a.txt" --phrases "$dir/ref.txt" -q
before=$(dump_digest "$dir/s")
printf '1\tnew\tyork\n' >"$dir/other.txt"
expect_one_line 1 "joined with the phrase list .*; this run joins the phrase list" \
  "$bin" ingest --store "$dir/s" "$dir/corpus" --phrases "$dir/other.txt"
expect_one_line 1 "this run joins no phrases" "$bin" ingest --store "$dir/s" "$dir/corpus"
[ "$(dump_digest "$dir/s")" = "$before" ] || fail "a refused addition changed the store"
expect_one_line 2 "npmi scores lie in \[-1, 1\]" \
  "$bin" phrases "$dir/a.txt" --store "$dir/p" -o "$dir/p.txt" --score npmi --threshold 2
expect_one_line 2 "passes must be 1 to 8" \
  "$bin" phrases "$dir/a.txt" --store "$dir/p" -o "$dir/p.txt" --passes 0
echo "ok: bad lists, other lists and bad options are refused in one line"
