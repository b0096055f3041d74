#!/usr/bin/env bash
# A subword model (train's OUT.model) answers words outside its vocabulary,
# from the command line: print-word-vectors against subword_model.py (the
# file read from docs/formats.md alone, the n-grams hashed there again),
# eval similarity answering every pair, neighbors and analogy of unseen
# words; a plain vectors file keeps answering only its own words.
#
#   subword_queries_test.sh STREAMGLOVE
. "$(dirname "$0")/../lib.sh" subword-queries
bin=$1
here=$(cd "$(dirname "$0")" && pwd)

for _ in $(seq 200); do
  echo "the café sells coffee and the naïve cat drinks milk near 東京 station"
  echo "a dog and a cat play in the garden while the café owner reads"
done >"$dir/corpus.txt"
"$bin" ingest --store "$dir/s" "$dir/corpus.txt" --window 5 --min-count 1 --threads 1 -q
"$bin" train --store "$dir/s" -o "$dir/v.txt" --objective sgns --subwords --buckets 5000 \
  --dim 8 --epochs 2 --threads 1 --seed 1 -q
model=$dir/v.txt.model
[ -s "$model" ] || fail "train --subwords wrote no $model"

# print-word-vectors: in and out of the vocabulary, Unicode included,
# whitespace-separated on stdin; each value within print precision of the
# independent reader's.
words="café cat 東京 cafés naïvety 東京都 dogs zzzz"
printf '%s\n' "café cat" "東京  cafés" "naïvety 東京都 dogs zzzz" |
  "$bin" print-word-vectors "$model" -q >"$dir/ours.txt" || fail "print-word-vectors: exit $?"
# shellcheck disable=SC2086
/usr/bin/python3 "$here/subword_model.py" "$model" $words >"$dir/theirs.txt"
/usr/bin/python3 - "$dir/ours.txt" "$dir/theirs.txt" <<'PY' || fail "print-word-vectors differs"
import sys
ours = [l.split() for l in open(sys.argv[1], encoding="utf-8")]
theirs = [l.split() for l in open(sys.argv[2], encoding="utf-8")]
assert [o[0] for o in ours] == [t[0] for t in theirs], (ours, theirs)
for o, t in zip(ours, theirs):
    assert len(o) == len(t) == 9, (o, t)
    for a, b in zip(o[1:], t[1:]):
        assert abs(float(a) - float(b)) <= 1e-4 * max(1.0, abs(float(b))), (o[0], a, b)
    assert any(float(x) != 0 for x in o[1:]), f"{o[0]}: zeros"
PY
echo "ok: print-word-vectors of $words equals the model read from docs/formats.md"

# A plain vectors file has no vector for an unseen word: zeros, as fastText.
echo "cafés" | "$bin" print-word-vectors "$dir/v.txt" -q >"$dir/plain.txt" 2>/dev/null ||
  fail "print-word-vectors on a vectors file: exit $?"
[ "$(cat "$dir/plain.txt")" = "cafés 0 0 0 0 0 0 0 0" ] ||
  fail "an unseen word from a vectors file is not zeros: $(cat "$dir/plain.txt")"

# eval similarity: every pair answered with the model, not with the vectors.
printf 'café\tcafés\t9\ncat\tcats\t8\ndog\tgarden\t3\nnaïvety\tmilk\t2\n東京都\tstation\t4\n' \
  >"$dir/pairs.txt"
seen() { "$bin" eval similarity "$1" "$dir/pairs.txt" --json |
  /usr/bin/python3 -c 'import json,sys; f=json.load(sys.stdin)["files"][0]; print(f["seen"], f["pairs"])'; }
[ "$(seen "$model")" = "5 5" ] || fail "eval similarity with the model: seen/pairs $(seen "$model")"
[ "$(seen "$dir/v.txt")" = "1 5" ] || fail "eval similarity with the vectors: $(seen "$dir/v.txt")"
echo "ok: eval similarity answers 5 of 5 pairs with the model, 1 of 5 with the vectors"

# neighbors and analogy of unseen words: answered among the vocabulary.
"$bin" neighbors "$model" cafés -k 3 -q >"$dir/n.txt" || fail "neighbors cafés: exit $?"
[ "$(wc -l <"$dir/n.txt")" -eq 3 ] || fail "neighbors cafés: $(cat "$dir/n.txt")"
"$bin" analogy "$model" cat cats dog -k 1 -q >"$dir/a.txt" || fail "analogy cat cats dog: exit $?"
[ "$(wc -l <"$dir/a.txt")" -eq 1 ] || fail "analogy: $(cat "$dir/a.txt")"
code=0
"$bin" neighbors "$dir/v.txt" cafés -q >/dev/null 2>"$dir/err" || code=$?
[ "$code" -eq 1 ] || fail "neighbors of an unseen word in a vectors file: exit $code"
grep -q "'cafés' is not in" "$dir/err" || fail "neighbors' error: $(cat "$dir/err")"
echo "ok: neighbors and analogy answer unseen words with the model, refuse them without"
