#!/usr/bin/env bash
# Vectors written in word2vec binary and text formats load in gensim
# (Debian's python3-gensim) and give the same nearest neighbours as the GloVe
# text file of the same run.
. "$(dirname "$0")/../lib.sh" gensim
bin=$1
generator=$2
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import gensim" 2>/dev/null \
  || { echo "SKIP: python3-gensim is not installed" >&2; exit 77; }
mkdir "$dir/corpus"
"$generator" -o "$dir/corpus" --bytes 4e6 --shards 1 --seed 3
"$bin" ingest --store "$dir/store" "$dir/corpus" --min-count 5 --memory 128M -q
for format in glove word2vec word2vec-text; do
  "$bin" train --store "$dir/store" -o "$dir/vectors.$format" --format "$format" --dim 24 --epochs 3 \
    --threads 1 --seed 9 -q
done
/usr/bin/python3 - "$dir" <<'PY'
import sys
import numpy as np
from gensim.models import KeyedVectors
d = sys.argv[1]
binary = KeyedVectors.load_word2vec_format(f"{d}/vectors.word2vec", binary=True)
text = KeyedVectors.load_word2vec_format(f"{d}/vectors.word2vec-text", binary=False)
glove = KeyedVectors.load_word2vec_format(f"{d}/vectors.glove", binary=False, no_header=True)
assert len(binary) == len(text) == len(glove), (len(binary), len(text), len(glove))
assert binary.index_to_key == glove.index_to_key
assert np.abs(binary.vectors - glove.vectors).max() < 1e-6
words = glove.index_to_key[:200:10]


def same_neighbours(a, b):
    # The same similarities in order, and each word found in the other list
    # at an equal similarity: words whose similarities tie to 1e-5 (the text
    # file's 6 decimals) may trade places.
    if len(a) != len(b) or any(abs(sa - sb) > 1e-5 for (_, sa), (_, sb) in zip(a, b)):
        return False
    where = dict(b)
    return all(w in where and abs(where[w] - s) <= 1e-5 or abs(s - b[-1][1]) <= 1e-5 for w, s in a)


same = sum(same_neighbours(binary.most_similar(q, topn=10), glove.most_similar(q, topn=10)) for q in words)
same_text = sum(same_neighbours(text.most_similar(q, topn=10), glove.most_similar(q, topn=10)) for q in words)
print(f"{len(glove)} words; top-10 neighbours the same (ties to 1e-5 aside) for {same}/{len(words)} (binary) and "
      f"{same_text}/{len(words)} (word2vec text) queries")
assert same == len(words) and same_text == len(words)
PY
