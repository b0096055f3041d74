"""Checks our character n-grams against fastText's own, independently of our
code: the n-grams `fasttext print-ngrams` prints for a word, and, for each,
that the vector it prints is row nwords + (our bucket) of the model's input
matrix, read here from the .bin file.

    fasttext_bin.py MODEL.bin WORD FASTTEXT_NGRAMS OUR_NGRAMS

FASTTEXT_NGRAMS: print-ngrams' output ("ngram v1 ... vd" lines; first the
word itself when it is in the dictionary); OUR_NGRAMS: print_char_ngrams'
("ngram<TAB>bucket" lines). Exits 1 with one line saying what differs.

The .bin layout (fastText 0.9's FastText::saveModel, Args::save,
Dictionary::save, DenseMatrix::save), little-endian: int32 magic 793712314,
int32 version 12; Args: 12 int32 (dim, ws, epoch, minCount, neg,
wordNgrams, loss, model, bucket, minn, maxn, lrUpdateRate) and a double t;
Dictionary: int32 size, int32 nwords, int32 nlabels, int64 ntokens, int64
pruneidx_size (-1 for a model never pruned), then `size` entries
(NUL-terminated word, int64 count, int8 type), then pruneidx_size pairs of
int32; a bool quant_input; the input
matrix: int64 m, int64 n, m x n float32."""
import struct
import sys

import numpy as np


def read_model(path):
    data = open(path, "rb").read()
    magic, version = struct.unpack_from("<ii", data, 0)
    if magic != 793712314 or version != 12:
        sys.exit(f"FAIL: {path}: magic {magic} version {version}, not fastText 0.9's .bin")
    args = struct.unpack_from("<12id", data, 8)
    at = 8 + struct.calcsize("<12id")
    size, nwords, nlabels, ntokens, pruneidx_size = struct.unpack_from("<iiiqq", data, at)
    at += struct.calcsize("<iiiqq")
    words = []
    for _ in range(size):
        end = data.index(b"\0", at)
        words.append(data[at:end].decode("utf-8"))
        at = end + 1 + 8 + 1  # the NUL, int64 count, int8 type
    at += 8 * max(pruneidx_size, 0)  # -1: never pruned
    quant = data[at]
    at += 1
    m, n = struct.unpack_from("<qq", data, at)
    at += 16
    if quant != 0 or n != args[0] or m != nwords + args[8]:
        sys.exit(f"FAIL: {path}: quant {quant}, matrix {m} x {n}: not the layout expected")
    matrix = np.frombuffer(data, dtype="<f4", count=m * n, offset=at).reshape(m, n)
    return words[:nwords], matrix


def main():
    model, word, theirs_path, ours_path = sys.argv[1:]
    words, matrix = read_model(model)
    theirs = [line.split() for line in open(theirs_path, encoding="utf-8") if line.strip()]
    if word in words:
        first = theirs.pop(0)
        if first[0] != word:
            sys.exit(f"FAIL: {word}: print-ngrams' first line is {first[0]!r}, not the word")
    ours = [line.rstrip("\n").split("\t") for line in open(ours_path, encoding="utf-8")]
    their_grams = [t[0] for t in theirs]
    our_grams = [o[0] for o in ours]
    if their_grams != our_grams:
        sys.exit(f"FAIL: {word}: fastText's n-grams {their_grams}, ours {our_grams}")
    nwords = len(words)
    for (gram, bucket), t in zip(ours, theirs):
        printed = np.array([float(x) for x in t[1:]], dtype=np.float64)
        row = matrix[nwords + int(bucket)].astype(np.float64)
        # print-ngrams writes 5 significant digits.
        if not np.allclose(printed, row, rtol=1e-4, atol=1e-6):
            sys.exit(f"FAIL: {word}: n-gram {gram!r}: fastText prints {printed.tolist()}, "
                     f"our bucket {bucket}'s row is {row.tolist()}")
    # Rows fastText left at zero would agree with any bucket's zero row.
    nonzero = sum(1 for t in theirs if any(float(x) != 0 for x in t[1:]))
    if 2 * nonzero < len(theirs):
        sys.exit(f"FAIL: {word}: only {nonzero} of {len(theirs)} rows nonzero: buckets untested")
    print(f"{word}: {len(ours)} n-grams agree ({nonzero} of them nonzero rows)")


main()
