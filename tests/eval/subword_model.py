"""Any word's vector from a subword model file (OUT.model), computed from
docs/formats.md alone, independently of streamglove's code: the file parsed
with struct and numpy (its CRC-32 checked with zlib), the n-grams and their
FNV-1a buckets written here again from fastText's definition.

    subword_model.py MODEL WORD...

prints "word v1 ... vd" for each WORD (repr of float32, exact); a word with no
vector prints zeros, as fastText's print-word-vectors."""
import struct
import sys
import zlib

import numpy as np


def load(path):
    data = open(path, "rb").read()
    if data[:8] != b"SGSUBW01":
        sys.exit(f"{path}: not a model file")
    (crc,) = struct.unpack_from("<Q", data, len(data) - 8)
    if crc != zlib.crc32(data[:-8]):
        sys.exit(f"{path}: checksum mismatch")
    dim, minn, maxn, buckets, nwords, nrows = struct.unpack_from("<4I2Q", data, 8)
    at = 8 + struct.calcsize("<4I2Q")
    words = {}
    for _ in range(nwords):
        (length,) = struct.unpack_from("<I", data, at)
        word = data[at + 4:at + 4 + length].decode("utf-8")
        at += 4 + length
        words[word] = np.frombuffer(data, "<f4", dim, at)
        at += 4 * dim
    rows = {}
    for _ in range(nrows):
        (bucket,) = struct.unpack_from("<I", data, at)
        rows[bucket] = np.frombuffer(data, "<f4", dim, at + 4)
        at += 4 + 4 * dim
    assert at == len(data) - 8, "rows end where the trailer starts"
    return dim, minn, maxn, buckets, words, rows


def ngrams(word, minn, maxn):
    """fastText's computeSubwords: substrings of 'word' wrapped in < >, minn to
    maxn characters, a boundary mark never a 1-gram of its own."""
    chars = ["<"] + list(word) + [">"]
    out = []
    for i in range(len(chars)):
        for n in range(1, maxn + 1):
            if i + n > len(chars):
                break
            if n >= minn and not (n == 1 and (i == 0 or i + n == len(chars))):
                out.append("".join(chars[i:i + n]))
    return out


def fnv1a(gram):
    h = 2166136261
    for b in gram.encode("utf-8"):
        h ^= (b - 256 if b > 127 else b) & 0xFFFFFFFF  # the byte sign-extended
        h = (h * 16777619) & 0xFFFFFFFF
    return h


def vector(model, word):
    dim, minn, maxn, buckets, words, rows = model
    if word in words:
        return words[word]
    grams = ngrams(word, minn, maxn)
    v = np.zeros(dim, dtype=np.float32)
    for g in grams:
        v += rows.get(fnv1a(g) % buckets, np.zeros(dim, dtype=np.float32))
    return v / np.float32(len(grams)) if grams else v


model = load(sys.argv[1])
for w in sys.argv[2:]:
    print(w, " ".join(repr(float(x)) for x in vector(model, w)))
