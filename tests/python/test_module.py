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


# A bad vectors file raised streamglove.Error with an empty message
# (its message quoted bytes that are not UTF-8, which Python could not decode).
BAD_VECTORS = {
    "a row's word is not UTF-8": (b"a 1 2\n\xff\xfe 1\n", "has 1 values"),
    "a bad value": (b"a 1 2\nb 1 x\n", "not a number"),
    "a truncated text file": (b"a 1 2\nb 1", "has 1 values"),
    "a truncated binary file": (b"2 2\na \x00\x00\x80?\x00\x00\x00@\nbbbbbbbbbbbbb \x00\x00",
                                "truncated: vector 2 of 2"),
    "a control character in a word": (b"a 1 2\n\x1b[2J\rc 1\n", "has 1 values"),
}


@pytest.mark.parametrize("name", BAD_VECTORS)
def test_load_vectors_of_a_bad_file_raises_its_one_line_message(tmp_path, name):
    content, problem = BAD_VECTORS[name]
    path = tmp_path / "v.txt"
    path.write_bytes(content)
    with pytest.raises(streamglove.Error) as raised:
        streamglove.load_vectors(str(path))
    message = str(raised.value)
    assert str(path) in message and problem in message
    assert message.isprintable(), message  # one line: no newline, no escape sequence


def test_load_vectors_of_random_bytes_raises_one_printable_line(tmp_path):
    path = tmp_path / "random.bin"
    path.write_bytes(random.Random(53).randbytes(1 << 16))
    with pytest.raises(streamglove.Error) as raised:
        streamglove.load_vectors(str(path))
    message = str(raised.value)
    assert str(path) in message
    assert message.isprintable(), message


def test_load_vectors_quotes_a_bounded_part_of_a_bad_word(tmp_path):
    path = tmp_path / "v.txt"
    path.write_bytes(b"a 1 2\n" + b"\xff" * 10000 + b" 1\n")
    with pytest.raises(streamglove.Error, match="has 1 values") as raised:
        streamglove.load_vectors(str(path))
    assert len(str(raised.value)) < len(str(path)) + 300


# A str holding a NUL reached the library as a C string cut at the
# NUL: "p\0 2" made a store named "p", and raised nonsense.
NUL_PATH = "p\x00 2"
NUL_CALLS = {
    "ingest store": ("store", lambda c, s: streamglove.ingest(NUL_PATH, [c])),
    "ingest inputs": ("inputs", lambda c, s: streamglove.ingest("s", [c, NUL_PATH])),
    "train store": ("store", lambda c, s: streamglove.train(NUL_PATH, "v.txt", epochs=1)),
    "train output": ("output", lambda c, s: streamglove.train(s, NUL_PATH, dim=8, epochs=1)),
    "train warm_start": ("warm_start", lambda c, s: streamglove.train(s, "v.txt", dim=8,
                                                                    warm_start=NUL_PATH)),
    "embed inputs": ("inputs", lambda c, s: streamglove.embed([NUL_PATH], "v.txt")),
    "embed output": ("output", lambda c, s: streamglove.embed([c], NUL_PATH, epochs=1)),
    "embed store": ("store", lambda c, s: streamglove.embed([c], "v.txt", store=NUL_PATH)),
    "load_vectors": ("path", lambda c, s: streamglove.load_vectors(NUL_PATH)),
    "keyed_vectors": ("path", lambda c, s: streamglove.keyed_vectors(NUL_PATH)),
}


@pytest.mark.parametrize("name", NUL_CALLS)
def test_a_path_holding_a_nul_is_refused_before_anything_is_written(
        corpus, store, tmp_path, monkeypatch, name):
    argument, call = NUL_CALLS[name]
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=rf"^{argument}\b.*NUL") as raised:
        call(str(corpus), str(store[0]))
    assert repr(NUL_PATH)[1:-1] in str(raised.value)
    assert os.listdir(tmp_path) == []


# embed took budget=-5 (and nan) as no budget where train refused
# them, and both trained nothing in an infinite one.
@pytest.mark.parametrize("budget", [-5.0, -1e-9, math.nan, math.inf, -math.inf])
def test_a_negative_or_non_finite_budget_is_refused_alike(corpus, store, tmp_path, budget):
    with pytest.raises(streamglove.Error, match="budget"):
        streamglove.train(str(store[0]), str(tmp_path / "v.txt"), budget=budget)
    with pytest.raises(streamglove.Error, match="budget"):
        streamglove.embed([str(corpus)], str(tmp_path / "v.txt"), budget=budget)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("x_max", [0.0, -1.0, math.nan, math.inf])
def test_a_non_positive_or_non_finite_x_max_is_refused(store, tmp_path, x_max):
    with pytest.raises(streamglove.Error, match="x.max"):
        streamglove.train(str(store[0]), str(tmp_path / "v.txt"), x_max=x_max)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("subsample", [-0.1, 1.0, math.nan, math.inf])
def test_a_subsample_outside_0_1_is_refused(corpus, tmp_path, subsample):
    with pytest.raises(streamglove.Error, match="subsample"):
        streamglove.ingest(str(tmp_path / "s"), [str(corpus)], subsample=subsample)
    assert os.listdir(tmp_path) == []


def fnv1a_fasttext(ngram):
    """fastText's hash, written again here: FNV-1a over bytes sign-extended."""
    h = 2166136261
    for b in ngram.encode("utf-8"):
        h ^= (b - 256 if b > 127 else b) & 0xFFFFFFFF
        h = (h * 16777619) & 0xFFFFFFFF
    return h


def test_char_ngrams_are_fasttexts_scheme():
    for word in ["where", "café", "東京", "a"]:
        wrapped = "<" + word + ">"
        expected = [wrapped[i:i + n] for i in range(len(wrapped)) for n in range(3, 7)
                    if i + n <= len(wrapped)]
        got = streamglove.char_ngrams(word, 3, 6, 2000000)
        assert [g for g, _ in got] == expected
        assert [b for _, b in got] == [fnv1a_fasttext(g) % 2000000 for g in expected]


def test_a_subword_model_answers_words_outside_the_vocabulary(store, tmp_path):
    path, _ = store
    out = tmp_path / "v.txt"
    streamglove.train(str(path), str(out), objective="sgns", dim=8, epochs=1, threads=1)
    words, matrix = streamglove.load_vectors(str(out))
    found, vectors = streamglove.word_vectors(str(out) + ".model", [words[3], "zzzunseen"])
    assert found == [True, True]
    assert np.allclose(vectors[0], matrix[3], atol=1e-6)  # the text file: 6 decimals
    assert np.any(vectors[1] != 0)
    found, _ = streamglove.word_vectors(str(out), ["zzzunseen"])
    assert found == [False]
    streamglove.train(str(path), str(tmp_path / "w.txt"), objective="sgns", dim=8, epochs=1,
                      threads=1, subwords=False)
    assert not (tmp_path / "w.txt.model").exists()


def test_phrases_finds_the_planted_pairs_and_ingest_joins_them(corpus, tmp_path):
    found = streamglove.phrases([str(corpus)], str(tmp_path / "p.d"), str(tmp_path / "p.txt"),
                                threshold=10, passes=1, threads=2)
    pairs = {(left, right) for _, left, right, _, _ in found}
    assert {("king", "queen"), ("paris", "france")} <= pairs
    # Scores by word2phrase's formula, from counts taken here.
    tokens = corpus.read_text().split()
    lines = [line.split() for line in corpus.read_text().splitlines()]
    king = tokens.count("king")
    queen = tokens.count("queen")
    both = sum(1 for line in lines for a, b in zip(line, line[1:]) if (a, b) == ("king", "queen"))
    score = next(s for _, left, right, s, _ in found if (left, right) == ("king", "queen"))
    assert score == pytest.approx((both - 5) / (king * queen) * len(tokens))
    stats = streamglove.ingest(str(tmp_path / "s"), [str(corpus)], window=5,
                               phrases=str(tmp_path / "p.txt"))
    joins = 0  # word2phrase's greedy rule, line by line
    for line in lines:
        i = 0
        while i < len(line):
            if i + 1 < len(line) and (line[i], line[i + 1]) in pairs:
                joins += 1
                i += 2
            else:
                i += 1
    assert joins > 0 and stats["tokens"] == len(tokens) - joins
    with pytest.raises(streamglove.Error, match="this run joins no phrases"):
        streamglove.ingest(str(tmp_path / "s"), [str(corpus)], window=5)
