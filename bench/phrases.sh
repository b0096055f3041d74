#!/usr/bin/env bash
# Phrases side by side: `streamglove phrases` (word2phrase's score, threshold
# 100, min-count 5), word2phrase built from word2vec's sources (W2V_SRC, a
# checkout holding word2phrase.c; skipped without it) and gensim's Phrases
# (its default scorer, the same threshold and min-count), on the same text:
# one pass each, then two (word2phrase run again on its output, gensim's
# Phrases over its first model's output). Prints wall time and peak RSS,
# the phrases each found, and how many of the joined text's words differ
# between streamglove and word2phrase (their vocabularies, compared: the
# same rule on the same counts but for word2phrase counting pairs across
# line ends, which it never joins). Then, with -g GB, the bound on a
# generated corpus of GB gigabytes: two passes in --memory 1G, peak RSS.
#
#   bench/phrases.sh [-c CORPUS] [-g GB] [-t THREADS]
#
# CORPUS as bench/budget.sh (default wiki100M). Run it on an idle machine.
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
corpus_name=wiki100M
generated=
threads=2
while getopts "c:g:t:" opt; do
  case $opt in
    c) corpus_name=$OPTARG ;;
    g) generated=$OPTARG ;;
    t) threads=$OPTARG ;;
    *) exit 2 ;;
  esac
done
sg_scratch bench-phrases
py=/usr/bin/python3
sg_peer_corpus "$corpus_name" "$work/peer.txt"
echo "corpus $corpus_name: $(wc -w <"$work/peer.txt") tokens in $(wc -l <"$work/peer.txt") lines;" \
  "threshold 100, min-count 5, $threads threads"
row() { printf '%-28s %8s s %7s MiB  %s\n' "$1" "$(sg_wall "$2")" "$(sg_peak_rss "$2")" "$3"; }
joined() { tr ' ' '\n' <"$1" | grep -c '_' || true; }

for passes in 1 2; do
  sg_time "$work/ours-$passes.time" "$SG_BIN" phrases "$work/peer.txt" --store "$work/ours-$passes" \
    -o "$work/ours-$passes.txt" --passes "$passes" --threads "$threads" --memory 1G -q
  row "streamglove phrases x$passes" "$work/ours-$passes.time" \
    "$(grep -vc '^#' "$work/ours-$passes.txt") phrases"
done

if [ -n "${W2V_SRC:-}" ] && [ -f "$W2V_SRC/word2phrase.c" ]; then
  gcc -O3 -march=native -funroll-loops -Wno-unused-result "$W2V_SRC/word2phrase.c" \
    -o "$work/word2phrase" -lm -pthread
  w2p() {
    sg_time "$work/w2p-$3.time" "$work/word2phrase" -train "$1" -output "$2" -threshold 100 \
      -min-count 5 -debug 0 >/dev/null
  }
  w2p "$work/peer.txt" "$work/w2p-1.out" 1
  row "word2phrase x1" "$work/w2p-1.time" "$(joined "$work/w2p-1.out") joined tokens in its text"
  w2p "$work/w2p-1.out" "$work/w2p-2.out" 2
  row "word2phrase x2 (2nd run)" "$work/w2p-2.time" "$(joined "$work/w2p-2.out") joined tokens"
  # The joined texts' vocabularies: streamglove's by --phrases, word2phrase's as it wrote it.
  for passes in 1 2; do
    "$SG_BIN" vocab "$work/peer.txt" --phrases "$work/ours-$passes.txt" -o "$work/ours-$passes.vocab" -q
    "$SG_BIN" vocab "$work/w2p-$passes.out" -o "$work/w2p-$passes.vocab" -q
    echo "x$passes: the joined texts' vocabularies: $(wc -l <"$work/ours-$passes.vocab") and" \
      "$(wc -l <"$work/w2p-$passes.vocab") words; lines in one only:" \
      "$(sort "$work/ours-$passes.vocab" "$work/w2p-$passes.vocab" | uniq -u | wc -l)"
  done
else
  echo "word2phrase: skipped (W2V_SRC names no checkout of word2vec's sources)"
fi

if $py -c "import gensim" 2>/dev/null; then
  cat >"$work/gensim_phrases.py" <<'PY'
import sys
from gensim.models.phrases import Phrases
from gensim.models.word2vec import LineSentence
text, passes = sys.argv[1], int(sys.argv[2])
sentences = LineSentence(text)
model = Phrases(sentences, min_count=5, threshold=100)
if passes == 2:
    model = Phrases(model[sentences], min_count=5, threshold=100)
print(len(model.export_phrases()), "phrases")
PY
  for passes in 1 2; do
    sg_time "$work/gensim-$passes.time" $py "$work/gensim_phrases.py" "$work/peer.txt" "$passes" \
      >"$work/gensim-$passes.out"
    row "gensim Phrases x$passes" "$work/gensim-$passes.time" "$(cat "$work/gensim-$passes.out")"
  done
else
  echo "gensim: skipped (no python3-gensim)"
fi

if [ -n "$generated" ]; then
  mkdir -p "$work/gen"
  "$SG_BUILD/streamglove-make-corpus" -o "$work/gen" --bytes "${generated}e9" --seed 7 >/dev/null 2>&1
  sg_time "$work/gen.time" "$SG_BIN" phrases "$work/gen" --store "$work/gen-store" \
    -o "$work/gen.txt" --threads "$threads" --memory 1G -q
  row "generated ${generated} GB x2, 1G" "$work/gen.time" "$(grep -vc '^#' "$work/gen.txt") phrases"
fi
