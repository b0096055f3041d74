#!/usr/bin/env bash
# End-to-end check of `streamglove vocab` on the shared 100 MB Wikipedia corpus.
#
# Usage: vocab_wiki100m_test.sh BINARY DATA_DIR
#
# Runs vocab --min-count 5 with 1 thread, 2 threads, and 2 threads under a
# 32 MiB memory budget (forcing spill runs), then checks that
#   - the three outputs are byte-identical,
#   - the spilling run really spilled (summary reports > 0 spill runs),
#   - the vocabulary has exactly 67903 words,
#   - every count equals an independent count made with coreutils,
#   - lines are ordered by count descending, ties in strictly increasing
#     byte order (LC_ALL=C).
# Exits 77 (skip) when the corpus is not available, 1 on any failure.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 BINARY DATA_DIR" >&2
    exit 2
fi

BINARY=$1
DATA_DIR=$2
CORPUS="$DATA_DIR/corpus/wiki100M.txt.zst"
EXPECTED_WORDS=67903
MIN_COUNT=5

if [[ ! -f "$CORPUS" ]]; then
    echo "SKIP: $CORPUS not found" >&2
    exit 77
fi
if ! command -v zstd >/dev/null 2>&1; then
    echo "SKIP: zstd not installed (needed for the reference count)" >&2
    exit 77
fi
if [[ ! -x "$BINARY" ]]; then
    echo "FAIL: binary $BINARY not found or not executable" >&2
    exit 1
fi

export LC_ALL=C

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vocab_wiki100m.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

ok() {
    echo "OK: $*"
}

# run_vocab NAME ARGS... : writes $WORK/NAME.txt and $WORK/NAME.err
run_vocab() {
    local name=$1
    shift
    if ! "$BINARY" vocab "$CORPUS" -o "$WORK/$name.txt" --min-count "$MIN_COUNT" "$@" \
        2>"$WORK/$name.err"; then
        cat "$WORK/$name.err" >&2
        fail "vocab $* exited with an error"
    fi
    # The summary is the last thing on stderr; progress lines may use \r.
    tr '\r' '\n' <"$WORK/$name.err" | grep '^vocab:' | tail -n 1 || true
}

run_vocab t1 --threads 1
run_vocab t2 --threads 2
run_vocab t2spill --threads 2 --memory 32M

# --- spilling really happened -------------------------------------------------
spill_runs=$(tr '\r' '\n' <"$WORK/t2spill.err" | grep -oE '[0-9]+ spill runs?' | tail -n 1 |
    awk '{print $1}')
[[ -n "$spill_runs" ]] || fail "no spill-run count in the --memory 32M summary: $(cat "$WORK/t2spill.err")"
((spill_runs > 0)) || fail "--memory 32M did not spill (0 spill runs)"
ok "--memory 32M spilled ($spill_runs spill runs)"

# --- determinism across thread counts and spilling ---------------------------
cmp "$WORK/t1.txt" "$WORK/t2.txt" || fail "--threads 1 and --threads 2 outputs differ"
cmp "$WORK/t1.txt" "$WORK/t2spill.txt" || fail "--threads 1 and --threads 2 --memory 32M outputs differ"
ok "outputs byte-identical (threads 1, threads 2, threads 2 + 32M memory)"

# --- size ---------------------------------------------------------------------
lines=$(wc -l <"$WORK/t1.txt")
((lines == EXPECTED_WORDS)) || fail "expected $EXPECTED_WORDS lines, got $lines"
ok "$lines words with count >= $MIN_COUNT"

# --- counts match an independent count ---------------------------------------
zstd -dc "$CORPUS" | tr -s ' \t' '\n\n' | grep -v '^$' | sort | uniq -c |
    awk -v m="$MIN_COUNT" '$1 >= m {print $2, $1}' | sort >"$WORK/ref.sorted"
sort "$WORK/t1.txt" >"$WORK/ours.sorted"
if ! diff "$WORK/ref.sorted" "$WORK/ours.sorted" >"$WORK/diff.txt"; then
    echo "first differences (< reference, > streamglove):" >&2
    head -n 20 "$WORK/diff.txt" >&2
    fail "word counts differ from the coreutils reference count"
fi
ok "all $lines counts match the coreutils reference count"

# --- output order: count descending, ties strictly increasing in byte order --
if ! awk '
    NF != 2 || $2 !~ /^[0-9]+$/ { printf "line %d malformed: %s\n", NR, $0; bad = 1; exit }
    NR > 1 {
        c = $2 + 0
        if (c > prev_count) {
            printf "line %d: count %d after %d\n", NR, c, prev_count; bad = 1; exit
        }
        # Concatenate with "" so numeric-looking words compare as strings.
        if (c == prev_count && !(($1 "") > (prev_word ""))) {
            printf "line %d: tie \"%s\" not after \"%s\"\n", NR, $1, prev_word; bad = 1; exit
        }
    }
    { prev_count = $2 + 0; prev_word = $1 "" }
    END { exit bad }
' "$WORK/t1.txt" >"$WORK/order.txt"; then
    cat "$WORK/order.txt" >&2
    fail "output order is not count descending / ties by byte order"
fi
ok "order: counts non-increasing, ties in strictly increasing byte order"

echo "PASS: vocab on wiki100M"
