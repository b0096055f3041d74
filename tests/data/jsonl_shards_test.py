#!/usr/bin/python3
"""Check `streamglove vocab` on the shared JSONL shards against a Python count.

Usage: jsonl_shards_test.py BINARY DATA_DIR

Reads DATA_DIR/corpus/wiki-plain-0{0,1,2,3}.jsonl.zst (decompressed with
`zstd -dc`), takes the "text" field of every record with the json module,
tokenizes it like Stanford GloVe's get_word (whitespace tokenizer) and counts
tokens as bytes.  Then runs

    BINARY vocab SHARDS... --json-field text -o out.txt            (min-count 1)
    BINARY vocab SHARDS... --json-field text -o out1.txt --threads 1

and checks that every (word, count) pair matches the Python count and that the
two outputs are byte-identical.

Exit status: 0 pass, 1 failure, 77 skip (shards or zstd missing).
Standard library only.
"""

import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

SHARDS = ["wiki-plain-0%d.jsonl.zst" % i for i in range(4)]
FIELD = "text"
MAX_WORD_BYTES = 999  # Stanford GloVe: MAX_STRING_LENGTH (1000) - 1
SHOW_MISMATCHES = 10

# Whitespace rule of GloVe's get_word: '\r' is deleted, tokens are separated
# by runs of ' ', '\t' and '\n'.  Map '\t' and '\n' to ' ' and split on ' '.
_SEPARATORS = bytes.maketrans(b"\t\n", b"  ")


def skip(msg):
    print("SKIP: " + msg, file=sys.stderr)
    sys.exit(77)


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def truncate(word):
    """GloVe's get_word truncation for words of 999 bytes or more.

    Keeps the first 999 bytes, then drops a trailing partial UTF-8 character
    using exactly GloVe's (imperfect) tests on the last three bytes.
    """
    if len(word) < MAX_WORD_BYTES:
        return word
    w = word[:MAX_WORD_BYTES]
    if w[998] & 0x80:
        if w[998] & 0xC0 == 0xC0:
            return w[:998]
        if w[997] & 0xE0 == 0xE0:
            return w[:997]
        if w[996] & 0xF8 == 0xF0:
            return w[:996]
    return w


def count_shards(paths):
    """Return (Counter of bytes -> count, records, records without the field)."""
    raw = collections.Counter()
    records = 0
    missing = 0
    for path in paths:
        proc = subprocess.Popen(["zstd", "-dc", "--", path], stdout=subprocess.PIPE)
        for line in proc.stdout:
            if not line.strip():
                continue
            records += 1
            text = json.loads(line).get(FIELD)
            if not isinstance(text, str):
                missing += 1
                continue
            data = text.encode("utf-8", "surrogatepass")
            data = data.replace(b"\r", b"").translate(_SEPARATORS)
            raw.update(filter(None, data.split(b" ")))
        proc.stdout.close()
        if proc.wait() != 0:
            fail("zstd -dc %s exited with status %d" % (path, proc.returncode))

    # Fold over-long tokens onto their truncated form.
    counts = collections.Counter()
    long_tokens = 0
    for word, n in raw.items():
        if len(word) >= MAX_WORD_BYTES:
            long_tokens += n
            counts[truncate(word)] += n
        else:
            counts[word] += n
    return counts, records, missing, long_tokens


def run_vocab(binary, shard_paths, out, extra):
    cmd = [binary, "vocab"] + shard_paths + ["--json-field", FIELD, "-o", out] + extra
    res = subprocess.run(cmd, stderr=subprocess.PIPE)
    err = res.stderr.decode("utf-8", "replace")
    if res.returncode != 0:
        sys.stderr.write(err)
        fail("%s exited with status %d" % (" ".join(cmd), res.returncode))
    summary = [l for l in err.replace("\r", "\n").splitlines() if l.startswith("vocab:")]
    if summary:
        print(summary[-1])


def parse_vocab(path):
    """Parse 'word count' lines as bytes, splitting at the last space."""
    result = {}
    order = []
    with open(path, "rb") as f:
        for lineno, line in enumerate(f, 1):
            if not line.endswith(b"\n"):
                fail("%s:%d: line not terminated by a newline" % (path, lineno))
            word, sep, n = line[:-1].rpartition(b" ")
            if not sep or not word or not n.isdigit():
                fail("%s:%d: malformed line %r" % (path, lineno, line))
            if word in result:
                fail("%s:%d: duplicate word %r" % (path, lineno, word))
            result[word] = int(n)
            order.append((int(n), word))
    return result, order


def main():
    if len(sys.argv) != 3:
        print("usage: %s BINARY DATA_DIR" % sys.argv[0], file=sys.stderr)
        return 2
    binary, data_dir = sys.argv[1], sys.argv[2]
    shard_paths = [os.path.join(data_dir, "corpus", s) for s in SHARDS]
    missing = [p for p in shard_paths if not os.path.isfile(p)]
    if missing:
        skip("missing shard(s): " + ", ".join(missing))
    if shutil.which("zstd") is None:
        skip("zstd not installed")
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        fail("binary %s not found or not executable" % binary)

    work = tempfile.mkdtemp(prefix="jsonl_shards.")
    try:
        out = os.path.join(work, "out.txt")
        out1 = os.path.join(work, "out1.txt")
        run_vocab(binary, shard_paths, out, [])

        expected, records, no_field, long_tokens = count_shards(shard_paths)
        tokens = sum(expected.values())
        print("python: %d records (%d without a string %r field), %d tokens, "
              "%d distinct words, %d tokens of >= %d bytes"
              % (records, no_field, FIELD, tokens, len(expected), long_tokens,
                 MAX_WORD_BYTES))

        got, order = parse_vocab(out)
        print("streamglove: %d tokens, %d distinct words" % (sum(got.values()), len(got)))

        mismatches = []
        for word in sorted(set(expected) | set(got)):
            e, g = expected.get(word, 0), got.get(word, 0)
            if e != g:
                mismatches.append((word, e, g))
        if mismatches:
            print("%d mismatching words; first %d (word, python, streamglove):"
                  % (len(mismatches), min(len(mismatches), SHOW_MISMATCHES)),
                  file=sys.stderr)
            for word, e, g in mismatches[:SHOW_MISMATCHES]:
                print("  %r  %d  %d" % (word, e, g), file=sys.stderr)
            fail("counts differ from the Python count")
        print("OK: all %d (word, count) pairs match the Python count" % len(got))

        # Count descending, ties in increasing byte order.
        for i in range(1, len(order)):
            (pc, pw), (c, w) = order[i - 1], order[i]
            if c > pc or (c == pc and not w > pw):
                fail("order broken at line %d: %r %d after %r %d" % (i + 1, w, c, pw, pc))
        print("OK: order: counts non-increasing, ties in increasing byte order")

        run_vocab(binary, shard_paths, out1, ["--threads", "1"])
        with open(out, "rb") as a, open(out1, "rb") as b:
            if a.read() != b.read():
                fail("--threads 1 output differs from the default-threads output")
        print("OK: --threads 1 output byte-identical")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("PASS: vocab on JSONL shards")
    return 0


if __name__ == "__main__":
    sys.exit(main())
