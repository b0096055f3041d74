"""streamglove from Python: count a corpus into a store, train GloVe or
skip-gram vectors on it, and get them back as a NumPy array or as gensim's
KeyedVectors.

    import streamglove
    streamglove.embed(["dump/"], "vectors.txt", budget=600)   # one call, or:
    streamglove.ingest("wiki.store", ["dump/"], window=15)
    streamglove.train("wiki.store", "vectors.txt", dim=100, epochs=15, x_max=10,
                      on_epoch=lambda e: print(e["epoch"], e["loss"]))
    words, matrix = streamglove.load_vectors("vectors.txt")
    kv = streamglove.keyed_vectors("vectors.txt")   # gensim.models.KeyedVectors
    kv.most_similar("king")
    # skip-gram's subword model (OUT.model) answers words it never saw:
    found, matrix = streamglove.word_vectors("vectors.txt.model", ["unseenly"])
    # phrases (new york -> new_york), then vectors of the joined words:
    streamglove.phrases(["dump/"], "phrases.d", "phrases.txt")
    streamglove.embed(["dump/"], "vectors.txt", phrases="phrases.txt")

Every call releases the GIL while it works; Ctrl-C stops it as it stops the
command and raises KeyboardInterrupt. Errors raise streamglove.Error with the
command line's one-line message (what it quotes of a file escaped: one
printable line); a path holding a NUL raises ValueError before anything
touches the disk.
"""
from ._streamglove import (Error, char_ngrams, embed, ingest, load_vectors, phrases, train,
                           word_vectors)

__all__ = ["Error", "embed", "ingest", "phrases", "train", "load_vectors", "word_vectors",
           "char_ngrams", "keyed_vectors", "to_keyed_vectors"]


def to_keyed_vectors(words, matrix):
    """gensim's KeyedVectors holding `matrix`'s rows under `words`, in order."""
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=matrix.shape[1], dtype=matrix.dtype)
    kv.add_vectors(list(words), matrix)
    return kv


def keyed_vectors(path):
    """The vectors file at `path` as gensim's KeyedVectors."""
    return to_keyed_vectors(*load_vectors(path))
