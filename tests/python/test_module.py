"""The Python module against independent computations: token counts by
Python's own split, vectors parsed by Python, gensim's similarities against
NumPy's; the GIL released while it works; errors raised as streamglove.Error.
Run by ctest (python.module) with PYTHONPATH=BUILD/python and /usr/bin/python3."""
import math
import os
import random
import signal
import threading
import time

import numpy as np
import pytest

import streamglove


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A small corpus: Zipfian background words and two planted families."""
    root = tmp_path_factory.mktemp("corpus")
    rng = random.Random(5)
    words = [f"w{i}" for i in range(300)]
    weights = [1 / (i + 1) for i in range(300)]
    lines = []
    for n in range(6000):
        line = rng.choices(words, weights, k=10)
        k = n % 4
        line[rng.randrange(10)] = ["king queen", "man woman", "paris france", "rome italy"][k]
        lines.append(" ".join(line))
    path = root / "corpus.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def store(corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "s"
    stats = streamglove.ingest(str(path), [str(corpus)], window=5, min_count=2, threads=2)
    return path, stats


def test_ingest_counts_every_token(corpus, store):
    _, stats = store
    tokens = sum(len(line.split()) for line in corpus.read_text().splitlines())
    assert stats["tokens"] == tokens
    assert stats["inputs_ingested"] == 1
    distinct = len(set(corpus.read_text().split()))
    assert stats["vocab_size"] == distinct


def test_ingest_again_skips_and_says_so(corpus, store):
    path, _ = store
    again = streamglove.ingest(str(path), [str(corpus)], window=5, min_count=2)
    assert again["inputs_ingested"] == 0 and again["inputs_skipped"] == 1
    assert any("already ingested" in m for m in again["messages"])


def test_train_reports_every_epoch_and_writes_vectors(store, tmp_path):
    path, _ = store
    seen = []
    out = tmp_path / "v.txt"
    stats = streamglove.train(str(path), str(out), dim=16, epochs=4, x_max=10, threads=2,
                              on_epoch=seen.append)
    assert [e["epoch"] for e in seen] == [1, 2, 3, 4]
    assert [e["loss"] for e in seen] == stats["losses"]
    assert stats["epochs"] == 4 and stats["dim"] == 16
    assert out.stat().st_size > 0


def test_load_vectors_equals_the_file_parsed_by_python(store, tmp_path):
    path, _ = store
    out = tmp_path / "v.txt"
    streamglove.train(str(path), str(out), objective="sgns", dim=8, epochs=1, threads=1)
    words, matrix = streamglove.load_vectors(str(out))
    rows = [line.split(" ") for line in out.read_text().splitlines()]
    assert words == [r[0] for r in rows]
    assert matrix.dtype == np.float32 and matrix.shape == (len(rows), 8)
    expected = np.array([[float(x) for x in r[1:]] for r in rows], dtype=np.float32)
    assert np.array_equal(matrix, expected)


def test_keyed_vectors_gives_numpy_cosines(store, tmp_path):
    path, _ = store
    out = tmp_path / "v.txt"
    streamglove.train(str(path), str(out), dim=16, epochs=6, x_max=10, threads=2)
    kv = streamglove.keyed_vectors(str(out))
    words, matrix = streamglove.load_vectors(str(out))
    assert list(kv.index_to_key) == words
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    i = words.index("king")
    cos = unit @ unit[i]
    cos[i] = -math.inf
    best = words[int(np.argmax(cos))]
    assert kv.most_similar("king", topn=1)[0][0] == best
    assert abs(kv.similarity("king", best) - float(cos.max())) < 1e-5


def test_the_gil_is_released_while_training(store, tmp_path):
    path, _ = store
    span = {}

    def run():
        span["start"] = time.monotonic()
        streamglove.train(str(path), str(tmp_path / "v.txt"), dim=100, epochs=40, threads=1)
        span["end"] = time.monotonic()

    worker = threading.Thread(target=run)
    worker.start()
    ticks = []  # this thread's turns, one a millisecond
    while worker.is_alive():
        ticks.append(time.monotonic())
        time.sleep(0.001)
    worker.join()
    inside = [t for t in ticks if span["start"] + 0.02 < t < span["end"] - 0.02]
    assert span["end"] - span["start"] > 0.2, "training too short to tell"
    # Holding the GIL, training would leave this thread no turn at all.
    assert len(inside) > 50


def test_errors_raise_with_the_command_lines_message(tmp_path):
    with pytest.raises(streamglove.Error, match="no-such-file"):
        streamglove.ingest(str(tmp_path / "s"), [str(tmp_path / "no-such-file")])
    with pytest.raises(streamglove.Error, match="tokenizer"):
        streamglove.ingest(str(tmp_path / "s"), [str(tmp_path)], tokenizer="nonsense")
    with pytest.raises(streamglove.Error):
        streamglove.train(str(tmp_path / "no-store"), str(tmp_path / "v.txt"), epochs=1)
    assert issubclass(streamglove.Error, RuntimeError)


def test_an_exception_in_on_epoch_is_raised_after_training(store, tmp_path):
    path, _ = store
    calls = []

    def stop(epoch):
        calls.append(epoch["epoch"])
        raise ValueError("enough")

    with pytest.raises(ValueError, match="enough"):
        streamglove.train(str(path), str(tmp_path / "v.txt"), dim=8, epochs=3, on_epoch=stop)
    assert calls == [1]


def test_ctrl_c_stops_training_as_keyboard_interrupt_and_keeps_a_checkpoint(store, tmp_path):
    path, _ = store
    out = tmp_path / "v.txt"

    def interrupt(progress):
        if progress["epoch"] == 1:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt, match="interrupted by SIGINT"):
        streamglove.train(str(path), str(out), dim=8, epochs=200, threads=2, on_epoch=interrupt)
    assert (tmp_path / "v.txt.checkpoint").exists()
    assert not out.exists()
    # The interrupt is forgotten: the next call runs to its end (resumed).
    stats = streamglove.train(str(path), str(out), dim=8, epochs=200, threads=2, resume=True)
    assert stats["epochs"] < 200 and out.exists()
    # Python's own handler is back: a SIGINT now raises here, at once.
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)


def test_embed_equals_ingest_then_train(corpus, tmp_path):
    out = tmp_path / "embed.txt"
    stats = streamglove.embed([str(corpus)], str(out), objective="glove", dim=8, epochs=3,
                              threads=1, min_count=2)
    assert stats["store"] == str(out) + ".store" and stats["inputs_ingested"] == 1
    assert stats["epochs"] == 3 and stats["dim"] == 8 and not stats["resumed"]
    # The same by hand, with the settings embed's GloVe store and training use.
    store = tmp_path / "by-hand.store"
    streamglove.ingest(str(store), [str(corpus)], window=15, min_count=2, threads=1)
    by_hand = tmp_path / "by-hand.txt"
    streamglove.train(str(store), str(by_hand), objective="glove", dim=8, epochs=3, x_max=10,
                      threads=1, min_count=2)
    assert out.read_bytes() == by_hand.read_bytes()
    # A store made for the other objective is refused, saying what to do.
    with pytest.raises(streamglove.Error, match="another --store"):
        streamglove.embed([str(corpus)], str(tmp_path / "sgns.txt"), store=str(store), epochs=1)
    # fixed_vocab: as ingest's, and a growing store is refused.
    fixed = tmp_path / "fixed.txt"
    streamglove.embed([str(corpus)], str(fixed), objective="glove", dim=8, epochs=3, threads=1,
                      min_count=2, fixed_vocab=True)
    fixed_store = tmp_path / "fixed-by-hand.store"
    streamglove.ingest(str(fixed_store), [str(corpus)], window=15, min_count=2, threads=1,
                       fixed_vocab=True)
    fixed_by_hand = tmp_path / "fixed-by-hand.txt"
    streamglove.train(str(fixed_store), str(fixed_by_hand), objective="glove", dim=8, epochs=3,
                      x_max=10, threads=1, min_count=2)
    assert fixed.read_bytes() == fixed_by_hand.read_bytes()
    with pytest.raises(streamglove.Error, match="vocabulary grows"):
        streamglove.embed([str(corpus)], str(fixed), store=str(store), objective="glove", dim=8,
                          epochs=3, threads=1, min_count=2, fixed_vocab=True)
