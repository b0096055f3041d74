#!/usr/bin/env bash
# The corpus generator is deterministic whatever the thread count, follows
# its Zipf law, and plants every pair word of its question file.
. "$(dirname "$0")/../lib.sh" generator
generator=$1
mkdir "$dir/a" "$dir/b"
flags=(--bytes 6e6 --shards 3 --vocab 20000 --relations 3 --pairs 5 --seed 9)
"$generator" -o "$dir/a" "${flags[@]}" --threads 1 --questions "$dir/q.txt" 2>/dev/null
"$generator" -o "$dir/b" "${flags[@]}" --threads 3 2>/dev/null
for f in "$dir"/a/*; do cmp "$f" "$dir/b/$(basename "$f")"; done
echo "threads 1 and 3: identical shards"
zstdcat "$dir"/a/*.zst | tr ' ' '\n' | grep -v '^$' | sort | uniq -c | sort -rn >"$dir/counts"
/usr/bin/python3 - "$dir/counts" "$dir/q.txt" <<'PY'
import sys
counts = {}
for line in open(sys.argv[1]):
    n, w = line.split()
    counts[w] = int(n)
background = sorted((n for w, n in counts.items() if not w.startswith(("xa", "xb", "qa", "qb", "tp"))), reverse=True)
total = sum(background)
harmonic = sum(1 / r for r in range(1, 20001))
# Zipf with exponent 1: rank r has share 1 / (r H); check ranks 1, 2, 10, 100.
for rank in (1, 2, 10, 100):
    expected = total / (rank * harmonic)
    got = background[rank - 1]
    assert abs(got - expected) < 0.1 * expected, f"rank {rank}: {got} vs {expected:.0f}"
pairs = {w for line in open(sys.argv[2]) if not line.startswith(":") for w in line.split()}
assert len(pairs) == 30, len(pairs)
missing = [w for w in pairs if counts.get(w, 0) < 50]
assert not missing, f"planted words too rare: {missing}"
print(f"Zipf shares at ranks 1, 2, 10, 100 within 10%; {len(pairs)} planted pair words, each seen >= 50 times")
PY
