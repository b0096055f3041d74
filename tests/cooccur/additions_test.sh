#!/usr/bin/env bash
# Adding inputs to a store: however a corpus is split into ingests, in any
# order, with kill -9 and resumes, the store equals one ingest of all its
# inputs (every dump byte-identical), and both equal an independent
# brute-force counter (brute_force_counts.py). Later inputs bring new words.
# Also: a resume after a kill while counting reads no input for words again,
# and one whose input changed where its fingerprint does not look fails
# once, then reads it again; a file that grew is read from where it ended; a
# changed one is refused; a fixed vocabulary reports the words it drops and
# equals Stanford-style counting with that vocabulary; a subsampled store
# keeps its first keep probabilities; a partly ingested input that changed
# is refused, then abandoned with --abandon-partial; a cut given to an
# addition is said to be ignored.
#
#   additions_test.sh STREAMGLOVE
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sg-additions.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
flags=(--window 5 --memory 256M --batch-size 64K -q)

# Four parts: frequent words shared by all, words that first appear in part
# k (so each later part brings new ones), and a tail of rare words.
python3 - <<'EOF'
import random
rng = random.Random(11)
for k in range(4):
    with open(f"part{k}.txt", "w") as f:
        for _ in range(2500):
            words = []
            for _ in range(rng.randint(1, 40)):
                r = rng.random()
                if r < 0.8:
                    words.append(f"w{int(rng.paretovariate(1.1)) % 300}")
                elif r < 0.95:
                    words.append(f"n{rng.randint(0, k)}x{int(rng.paretovariate(1.0)) % 200}")
                else:
                    words.append(f"r{rng.randint(0, 10**6)}")
            f.write(" ".join(words) + "\n")
EOF
parts=(part0.txt part1.txt part2.txt part3.txt)

# Every dump of a store, at the store's cut (5) and at no cut.
dumps() {
  for cut in 0 1; do
    for format in text glove vocab; do
      "$bin" dump --store "$1" --format "$format" --min-count "$cut" | md5sum
    done
  done
}
same_store() { [ "$(dumps "$1")" = "$(dumps "$2")" ] || fail "$3: $1 differs from $2"; }

# A dump against the brute-force counter's files: same words in the same
# order, counts equal as doubles.
check_against_counter() {  # STORE PREFIX MIN_COUNT
  "$bin" dump --store "$1" --format vocab --min-count "$3" > got.vocab
  "$bin" dump --store "$1" --format text --min-count "$3" > got.pairs
  cmp -s got.vocab "$2.vocab" || fail "$1: vocabulary differs from the brute-force counter's"
  python3 - got.pairs "$2.pairs" <<'EOF' || fail "$1: pairs differ from the brute-force counter's"
import sys
a, b = (open(p, "rb").read().splitlines() for p in sys.argv[1:3])
assert len(a) == len(b), (len(a), len(b))
for x, y in zip(a, b):
    xs, ys = x.split(b" "), y.split(b" ")
    assert xs[:2] == ys[:2] and float(xs[2]) == float(ys[2]), (x, y)
EOF
}

# 1. One ingest of everything, against the brute-force counter.
start=$(date +%s.%N)
"$bin" ingest --store one "${parts[@]}" "${flags[@]}"
full=$(echo "$(date +%s.%N) - $start" | bc)
# A kill lands within the first half of an uninterrupted ingest of everything.
kill_delay() { awk -v f="$full" -v r="$RANDOM" 'BEGIN { printf "%.3f", 0.5 * f * r / 32768 }'; }
"$here/brute_force_counts.py" --window 5 --min-count 1 all "${parts[@]}"
"$here/brute_force_counts.py" --window 5 --min-count 5 all5 "${parts[@]}"
check_against_counter one all 1
check_against_counter one all5 0
echo "one ingest equals the brute-force counter ($(wc -l < all.vocab) words, $(wc -l < all.pairs) pairs)"

# 2. Other groupings and orders.
"$bin" ingest --store split part2.txt "${flags[@]}"
"$bin" ingest --store split part0.txt part3.txt "${flags[@]}"
"$bin" ingest --store split part1.txt "${flags[@]}"
same_store one split "three ingests"
"$bin" verify --store split > /dev/null || fail "verify of the split store"
# The same counts give the same block stream, so the same vectors.
for store in one split; do
  "$bin" train --store "$store" -o "$store.vectors" --dim 8 --epochs 2 --threads 1 --seed 3 --quiet
done
cmp -s one.vectors split.vectors || fail "vectors trained on the split store differ"

# 3. kill -9 at random moments of each ingest, then resumed.
kills=0
for group in "part3.txt" "part1.txt" "part0.txt part2.txt"; do
  for _ in 1 2 3; do
    # shellcheck disable=SC2086
    "$bin" ingest --store killed $group "${flags[@]}" 2>> killed.err &
    pid=$!
    sleep "$(kill_delay)"
    if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
    wait "$pid" 2>/dev/null || true
  done
  # shellcheck disable=SC2086
  "$bin" ingest --store killed $group "${flags[@]}"
done
[ ! -s killed.err ] || fail "an interrupted run reported: $(head -3 killed.err)"
same_store one killed "three ingests with $kills kills"
echo "three groupings equal one ingest; $kills of 9 kill -9 hit a running ingest"

# The totals' record, carried through those kills: its sum of counts is the
# brute-force counter's, its pairs an upper bound of the counter's (batches
# met earlier pairs), which --exact counts; verify recounts both.
for store in one killed; do
  "$bin" verify --store "$store" > "$store.verify" || fail "verify of $store: $(grep -v '^ok' "$store.verify")"
  grep -q "^ok: the totals' record" "$store.verify" || fail "$store: verify checked no totals"
  "$bin" stats --store "$store" --json > recorded.json
  "$bin" stats --store "$store" --json --exact > exact.json
  python3 - recorded.json exact.json all.pairs <<'EOF' || fail "$store: totals differ from the brute-force counter's"
import json, sys
recorded, exact = (json.load(open(p)) for p in sys.argv[1:3])
lines = open(sys.argv[3]).read().splitlines()
total = sum(float(line.split(" ")[2]) for line in lines)
assert exact["nonzero_pairs"] == len(lines) and exact["nonzero_pairs_exact"], exact
assert recorded["nonzero_pairs"] >= len(lines), recorded
assert recorded["sum_of_counts"] == exact["sum_of_counts"], (recorded, exact)
assert abs(exact["sum_of_counts"] - total) <= 1e-9 * total, (exact["sum_of_counts"], total)
EOF
done
echo "totals: $(wc -l < all.pairs) pairs; recorded as an upper bound of $(python3 -c 'import json; print(json.load(open("recorded.json"))["nonzero_pairs"])') after the kills"

# Killed once its counting has begun (the store's runs folder exists), a
# first ingest and an addition are resumed without reading their inputs for
# words again (the store records whose words it holds), to the same store.
# A resume that still had an input to start (it ingested two) must say so;
# one whose kill came later, or missed, has nothing to skip.
verbose=(--window 5 --memory 256M --batch-size 64K)
kill_when_counting() {  # STORE INPUTS...
  local store=$1 pid
  shift
  rm -rf "$store/runs"
  "$bin" ingest --store "$store" "$@" "${flags[@]}" &
  pid=$!
  until [ -d "$store/runs" ] || ! kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
checked=0
for attempt in 1 2 3; do
  rm -rf counted
  for group in "part0.txt part1.txt" "part2.txt part3.txt"; do
    # shellcheck disable=SC2086 # the inputs are words
    kill_when_counting counted $group
    # shellcheck disable=SC2086
    "$bin" ingest --store counted $group "${verbose[@]}" 2> counted.err
    if grep -q "^ingest: 2 inputs ingested" counted.err; then
      grep -q "not read for words again" counted.err ||
        fail "a resumed ingest read its inputs for words again: $(cat counted.err)"
      checked=$((checked + 1))
    fi
  done
  same_store one counted "ingests killed while counting"
  [ "$checked" -eq 0 ] || break
done
[ "$checked" -gt 0 ] || fail "in 3 attempts no kill landed while a first input was counted"
echo "$checked ingests killed while counting resumed without reading inputs for words again"

# An input that changed after its words were read, where its fingerprint
# (size, first and last MiB) does not look, while it was being counted: the
# resume meets a word the store does not hold and fails in one line; the
# next run reads it for words again and finishes, equal to one ingest of it.
python3 - <<'EOF'
import random
rng = random.Random(5)
with open("big.txt", "w") as f:
    while f.tell() < 8_000_000:
        f.write(" ".join(f"w{rng.randrange(300)}" for _ in range(12)) + "\n")
EOF
# (--memory 100M: chunks of 800 KB, so the stop comes well before the change.)
"$bin" ingest --store changed-mid big.txt --window 5 --memory 100M --batch-size 64K -q 2>/dev/null &
pid=$!
until [ -d changed-mid/runs ] || ! kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
kill -INT "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
python3 - <<'EOF'
with open("big.txt", "r+b") as f:  # one word, 4 MB in, same length
    f.seek(4_000_000)
    line = f.readline()
    f.seek(4_000_000 + len(line))
    f.write(b"zz")
EOF
! "$bin" ingest --store changed-mid big.txt "${flags[@]}" 2> changed-mid.err ||
  fail "a resumed input that changed where its fingerprint does not look was counted"
grep -q "did not see" changed-mid.err || fail "a changed resumed input: $(cat changed-mid.err)"
"$bin" ingest --store changed-mid big.txt "${flags[@]}" ||
  fail "the run after the one that met the change did not finish"
"$bin" ingest --store changed-once big.txt "${flags[@]}"
same_store changed-once changed-mid "an input changed where its fingerprint does not look"
echo "an input changed while it was counted fails once, then is read for words again"

# 4. A file that grows: only its new part is counted; kill -9 during it.
cp part0.txt grow.txt
"$bin" ingest --store grown grow.txt "${flags[@]}"
cat part1.txt >> grow.txt
for _ in 1 2; do
  "$bin" ingest --store grown grow.txt "${flags[@]}" 2>> grown.err &
  pid=$!
  sleep "$(kill_delay)"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
partly() { "$bin" stats --store "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["partly_ingested"])'; }
# interrupt_after_a_batch STORE INPUT: an ingest of INPUT (--memory 100M:
# chunks of 800 KB) sent SIGINT once it has committed its first batch, so
# that it stops at the next batch's end, before INPUT's if INPUT's new text
# spans more than two chunks, however loaded the machine is. The store's
# COMMITTED.streamglove changes when the store opens and at every commit:
# the first batch is its second change.
interrupt_after_a_batch() {
  local store=$1 input=$2 pid last now changes=0
  last=$(cksum < "$store/COMMITTED.streamglove" 2>/dev/null || true)
  "$bin" ingest --store "$store" "$input" --window 5 --memory 100M --batch-size 64K -q 2> /dev/null &
  pid=$!
  while [ "$changes" -lt 2 ] && kill -0 "$pid" 2>/dev/null; do
    now=$(cksum < "$store/COMMITTED.streamglove" 2>/dev/null || true)
    [ "$now" = "$last" ] || { changes=$((changes + 1)); last=$now; }
    sleep 0.005
  done
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
# Left partly ingested (stopped by SIGINT at a batch's end), the file grows
# again: the rerun finishes all of it. Each try adds 2.2 MB.
for _ in 1 2 3 4; do
  [ "$(partly grown)" = True ] && break
  for _ in 1 2 3; do cat part3.txt part2.txt part3.txt part2.txt >> grow.txt; done
  interrupt_after_a_batch grown grow.txt
done
[ "$(partly grown)" = True ] || fail "no SIGINT left the grown file partly ingested"
cat part1.txt >> grow.txt
# Resumed as the file it grew into, the input is not called a copy of itself.
"$bin" ingest --store grown grow.txt "${verbose[@]}" 2> regrown.err
grep -q "^ingest: resuming .*grow.txt at byte" regrown.err || fail "no resume of the grown file: $(cat regrown.err)"
! grep -q "same content" regrown.err || fail "a resumed input was called a copy of itself: $(cat regrown.err)"
echo "a file left partly ingested grew again: $(head -1 regrown.err)"
[ ! -s grown.err ] || fail "an interrupted run reported: $(head -3 grown.err)"
"$bin" ingest --store whole grow.txt "${flags[@]}"
same_store whole grown "a grown file"
tokens=$("$bin" stats --store grown --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["tokens"])')
[ "$tokens" = "$(cat grow.txt | wc -w)" ] || fail "grown store counts $tokens tokens, the file holds $(wc -w < grow.txt)"
echo "a grown file is counted once: $tokens tokens"

# 5. A file changed otherwise is refused in one line, and the store is kept.
before=$(dumps grown)
sed -i '1s/^/changed /' grow.txt
rc=0
"$bin" ingest --store grown grow.txt "${flags[@]}" 2> changed.err || rc=$?
[ "$rc" = 1 ] && [ "$(wc -l < changed.err)" = 1 ] && grep -q "grow.txt: changed since it was ingested" changed.err ||
  fail "a changed input: exit $rc, $(cat changed.err)"
[ "$before" = "$(dumps grown)" ] || fail "a refused changed input altered the store"
echo "a changed file is refused: $(cat changed.err)"

# 5a. A file changed while it was partly ingested: refused in one line that
# says so and names the way forward, --force too; --abandon-partial keeps
# the counts of the part read (an input of those bytes) and counts the new
# content, as one ingest of that part and of the new file would.
cat big.txt big.txt big.txt big.txt > partial.txt
for _ in 1 2 3; do
  rm -rf partial
  interrupt_after_a_batch partial partial.txt
  [ "$(partly partial)" = True ] && break
done
cp partial.txt partial.orig
printf 'Q' | dd of=partial.txt bs=1 seek=100 conv=notrunc 2>/dev/null
before=$(dumps partial)
for extra in "" --force; do
  rc=0
  "$bin" ingest --store partial partial.txt $extra "${flags[@]}" 2> partial.err || rc=$?
  [ "$rc" = 1 ] && [ "$(wc -l < partial.err)" = 1 ] &&
    grep -q "partial.txt changed since its ingest was interrupted (its first .* bytes differ" partial.err ||
    fail "a changed partly ingested input ($extra): exit $rc, $(cat partial.err)"
  [ "$before" = "$(dumps partial)" ] || fail "a refused run ($extra) altered the store"
done
"$bin" ingest --store partial partial.txt "${flags[@]}" 2> partial.err || true
read_bytes=$(sed -nE 's/.*holds the counts of its first ([0-9]+) bytes.*/\1/p' partial.err)
[ -n "$read_bytes" ] || fail "the refusal names no byte count: $(cat partial.err)"
grep -q "add --abandon-partial" partial.err || fail "the refusal names no way forward: $(cat partial.err)"
"$bin" ingest --store partial partial.txt --abandon-partial "${flags[@]}"
"$bin" verify --store partial > /dev/null || fail "the store after --abandon-partial does not verify"
head -c "$read_bytes" partial.orig > read-part.txt
"$bin" ingest --store partial-whole read-part.txt partial.txt "${flags[@]}"
same_store partial-whole partial "a partly ingested input abandoned"
echo "a changed partly ingested input is refused, then abandoned at byte $read_bytes: $(head -c 120 partial.err)..."

# 5b. Compressed growth (a zstd frame appended), growth after another
# input, an appended frame of no text, and a path spelled another way.
zstd -q -c part0.txt > z.txt.zst
"$bin" ingest --store zgrown z.txt.zst "${flags[@]}"
zstd -q -c part1.txt >> z.txt.zst
"$bin" ingest --store zgrown part2.txt "$work/./z.txt.zst" "${flags[@]}"
printf '' | zstd -q -c >> z.txt.zst
"$bin" ingest --store zgrown z.txt.zst "${flags[@]}"
"$bin" ingest --store zwhole part2.txt z.txt.zst "${flags[@]}"
same_store zwhole zgrown "a compressed file that grew"
# Outputs are read whole before grep: `cmd | grep -q` under pipefail fails
# whenever grep exits before cmd has written everything (SIGPIPE).
stats=$("$bin" stats --store zgrown)
grep -q "^inputs ingested  2$" <<<"$stats" || fail "records after growth: $stats"
rerun=$("$bin" ingest --store zgrown z.txt.zst --window 5 --memory 256M 2>&1)
grep -q "skipping z.txt.zst: already ingested" <<<"$rerun" ||
  fail "a file grown by an empty frame was not recorded: $rerun"
echo "a compressed file that grew, and grew by nothing, is counted once"

# 6. A fixed vocabulary keeps its first words, counts and order; later
# words are reported and dropped before windowing, as Stanford's cooccur
# drops words outside its vocabulary file.
"$bin" vocab part0.txt --min-count 1 -o part0.vocab -q
"$bin" ingest --store fixed part0.txt --fixed-vocab --min-count 1 "${flags[@]}"
"$bin" ingest --store fixed part1.txt part2.txt part3.txt --window 5 --memory 256M 2> fixed.err
"$bin" dump --store fixed --format vocab | cmp -s - part0.vocab || fail "a fixed vocabulary changed"
"$here/brute_force_counts.py" --window 5 --vocab part0.vocab fixed "${parts[@]}"
"$bin" dump --store fixed --format text > fixed.got
# The counter ranks by all parts' counts, the store by part0's: compare as sets.
python3 - fixed.got fixed.pairs <<'EOF2' || fail "a fixed store's pairs differ from the brute-force counter's"
import sys
a, b = ({tuple(l.split(b" ")[:2]): float(l.split(b" ")[2]) for l in open(p, "rb").read().splitlines()}
        for p in sys.argv[1:3])
assert a == b, (len(a), len(b))
EOF2
outside=$(python3 - <<'EOF2'
known = {l.split()[0] for l in open("part0.vocab")}
words = [w for p in ("part1.txt", "part2.txt", "part3.txt") for w in open(p).read().split()]
print(sum(w not in known for w in words), len({w for w in words if w not in known}))
EOF2
)
grep -q "^ingest: ${outside% *} tokens of these inputs (${outside#* } distinct words" fixed.err ||
  fail "a fixed vocabulary's report: $(cat fixed.err), expected $outside"
echo "a fixed vocabulary drops and reports $outside (tokens, words) of later inputs"

# 7. A subsampled store keeps the vocabulary and keep probabilities of its
# first ingest: additions count as one ingest with that vocabulary would.
"$bin" ingest --store sub1 part0.txt --subsample 1e-3 --min-count 2 "${flags[@]}"
"$bin" ingest --store sub1 part1.txt part2.txt part3.txt --subsample 1e-3 "${flags[@]}" 2> /dev/null
"$bin" vocab part0.txt --min-count 2 -o sub.vocab -q
"$bin" ingest --store sub2 "${parts[@]}" --vocab sub.vocab --subsample 1e-3 "${flags[@]}"
same_store sub1 sub2 "a subsampled store's additions"

# 8. A cut given to an addition is ignored, and the run says so; none is
# said when none is given.
"$bin" ingest --store one part0.txt --window 5 --memory 256M --min-count 3 2> cut.err
grep -q "^ingest: --min-count 3 --max-vocab 0 ignored: the store keeps the vocabulary cut it was made with (--min-count 5 --max-vocab 0)" cut.err ||
  fail "a cut given to an addition: $(cat cut.err)"
"$bin" ingest --store one part0.txt --window 5 --memory 256M --min-count 5 2> cut.err
! grep -q "ignored" cut.err || fail "the store's own cut given again: $(cat cut.err)"
"$bin" ingest --store sub1 part0.txt --subsample 1e-3 --window 5 --memory 256M --max-vocab 9 2> cut.err
grep -q "^ingest: --min-count 5 --max-vocab 9 ignored: .* (a fixed vocabulary)" cut.err ||
  fail "a cut given to a fixed store's addition: $(cat cut.err)"
echo "a cut given to an addition is said to be ignored"
echo "PASS"
