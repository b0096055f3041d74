#!/usr/bin/env bash
# Our character n-grams and buckets (include/streamglove/subwords.h) against
# fastText's own: a tiny skip-gram model trained by Debian's fasttext on
# lines with Unicode words; for words in and out of its dictionary, the
# n-grams `fasttext print-ngrams` prints must be ours, in order, and each
# vector it prints must be the row of our bucket in the model's input matrix
# (read from the .bin by fasttext_bin.py).
#
#   char_ngrams_fasttext_test.sh PRINT_CHAR_NGRAMS
. "$(dirname "$0")/../lib.sh" char-ngrams-fasttext
printer=$1
here=$(cd "$(dirname "$0")" && pwd)
fasttext=$(command -v fasttext || true)
if [ -z "$fasttext" ]; then
  echo "SKIP: no fasttext (apt-get install fasttext; tools/setup.sh installs it)"
  exit 77
fi

cat >"$dir/small.txt" <<'TEXT'
le café est naïve et le café est chaud
東京 est une ville et 東京 est grande
Ünïcödé texte 🙂smile et café naïve
the cat sat on the mat with the cat
TEXT
# -thread 10: fastText 0.9 initializes its input matrix in ten blocks, one per
# thread up to ten, so fewer threads leave rows at zero, which any bucket's
# zero row would match; every row random makes a wrong bucket show.
"$fasttext" skipgram -input "$dir/small.txt" -output "$dir/m" -dim 4 -minn 3 -maxn 6 \
  -bucket 1000 -minCount 1 -epoch 1 -thread 10 >"$dir/train.log" 2>&1 ||
  fail "fasttext skipgram: $(tail -1 "$dir/train.log")"

i=0
for word in café naïve 東京 Ünïcödé 🙂smile cat \
  cafés naïvety 東京都 Ünïcödés 🙂smiles zebra é ab; do
  i=$((i + 1))
  "$fasttext" print-ngrams "$dir/m.bin" "$word" >"$dir/theirs.$i" ||
    fail "fasttext print-ngrams $word: exit $?"
  "$printer" 3 6 1000 "$word" >"$dir/ours.$i" || fail "print_char_ngrams $word: exit $?"
  /usr/bin/python3 "$here/fasttext_bin.py" "$dir/m.bin" "$word" "$dir/theirs.$i" "$dir/ours.$i"
done
echo "PASS: $i words' n-grams and buckets are fastText's"
