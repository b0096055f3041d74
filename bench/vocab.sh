#!/usr/bin/env bash
# Benchmark `streamglove vocab` on the shared wiki100M corpus.
#
# Usage: bench/vocab.sh [BINARY]        (default: $SG_BIN, build/streamglove)
#
# Environment:
#   SG_SHARED_DATA  shared data directory (default: ../shared/data relative to
#                   the repository root)
#   GLOVE_BIN       directory holding Stanford GloVe's vocab_count
#                   (e.g. /work/glove-ref/build); when unset, ratios are computed
#                   against a reference figure measured separately.
#   RUNS            runs per configuration (default 3; smoke mode: 1)
#
# Measures wall time and peak RSS with /usr/bin/time -v (lib.sh), reports the
# median wall time and the maximum RSS over the runs as a markdown table:
#   (a) streamglove vocab on the decompressed text, --min-count 5
#   (b) streamglove vocab on the .zst file,          --min-count 5
#   (c) vocab_count -min-count 5 -verbose 0 < text    (if GLOVE_BIN is set)
. "$(dirname "$0")/lib.sh"

BINARY=${1:-$SG_BIN}
! sg_smoke || : "${RUNS:=1}"
RUNS=${RUNS:-3}
MIN_COUNT=5
REF_SECONDS=1.27 # Stanford vocab_count, measured separately on the 2-core machine

CORPUS=$SG_SHARED_DATA/corpus/wiki100M.txt.zst

die() {
    echo "bench_vocab: $*" >&2
    exit 1
}

[[ -x "$BINARY" ]] || die "binary $BINARY not found (build: cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build)"
[[ -f "$CORPUS" ]] || sg_skip "corpus $CORPUS not found (set SG_SHARED_DATA)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time)"
command -v zstd >/dev/null 2>&1 || die "zstd not found"
if [[ -n "${GLOVE_BIN:-}" ]]; then
    [[ -x "$GLOVE_BIN/vocab_count" ]] || die "GLOVE_BIN=$GLOVE_BIN has no executable vocab_count"
fi

sg_scratch bench-vocab

TEXT=$work/wiki100M.txt
zstd -dcq "$CORPUS" >"$TEXT"

# measure NAME CMD... : runs CMD $RUNS times (stdout to $work/NAME.out unless
# the command redirects itself), sets MEDIAN (s), MAXRSS (MiB) and ALLRUNS
# (every run's wall time, space-separated).
measure() {
    local name=$1
    shift
    local i times=() rss=0 t m
    for ((i = 0; i < RUNS; i++)); do
        if ! sg_time "$work/$name.time" "$@" >"$work/$name.stdout" 2>"$work/$name.err"; then
            cat "$work/$name.err" >&2
            die "$name: command failed: $*"
        fi
        t=$(sg_wall "$work/$name.time")
        m=$(sg_peak_rss "$work/$name.time")
        times+=("$t")
        if ((m > rss)); then rss=$m; fi
    done
    MEDIAN=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    MAXRSS=$rss
    ALLRUNS=${times[*]}
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2fx", a / b; else print "n/a"}'; }

cpu_model=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
echo "nproc: $(nproc)"
echo "CPU: ${cpu_model:-unknown}"
echo "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg) (other CPU load skews the timings)"
echo "corpus: $CORPUS ($(stat -c %s "$TEXT") bytes decompressed), $RUNS runs each, --min-count $MIN_COUNT"
echo

measure text "$BINARY" vocab "$TEXT" -o "$work/ours_text.txt" --min-count "$MIN_COUNT" -q
text_s=$MEDIAN text_rss=$MAXRSS text_runs=$ALLRUNS
measure zst "$BINARY" vocab "$CORPUS" -o "$work/ours_zst.txt" --min-count "$MIN_COUNT" -q
zst_s=$MEDIAN zst_rss=$MAXRSS zst_runs=$ALLRUNS

if cmp -s "$work/ours_text.txt" "$work/ours_zst.txt"; then
    same_text_zst=yes
else
    same_text_zst=NO
fi

if [[ -n "${GLOVE_BIN:-}" ]]; then
    measure glove sh -c '"$1" -min-count "$2" -verbose 0 <"$3" >"$4"' sh \
        "$GLOVE_BIN/vocab_count" "$MIN_COUNT" "$TEXT" "$work/glove.txt"
    ref_s=$MEDIAN ref_rss=$MAXRSS ref_runs=$ALLRUNS
    ref_label="Stanford vocab_count (measured)"
    if cmp -s "$work/ours_text.txt" "$work/glove.txt"; then
        identical=yes
    else
        identical=NO
    fi
else
    ref_s=$REF_SECONDS
    echo "Stanford vocab_count: $REF_SECONDS s wall (measured separately on this 2-core machine)"
    echo
fi

echo "| run | median wall (s) | max RSS (MiB) | vs vocab_count | all runs (s) |"
echo "|---|---:|---:|---:|---|"
echo "| (a) streamglove vocab, text | $text_s | $text_rss | $(ratio "$text_s" "$ref_s") | $text_runs |"
echo "| (b) streamglove vocab, .zst | $zst_s | $zst_rss | $(ratio "$zst_s" "$ref_s") | $zst_runs |"
if [[ -n "${GLOVE_BIN:-}" ]]; then
    echo "| (c) $ref_label | $ref_s | $ref_rss | 1.00x | $ref_runs |"
else
    echo "| (c) Stanford vocab_count (reference figure) | $ref_s | n/a | 1.00x | |"
fi
echo
echo "ratio = wall time / vocab_count wall time (below 1.00x: faster)"
echo "(a) and (b) outputs byte-identical: $same_text_zst"
if [[ -n "${GLOVE_BIN:-}" ]]; then
    echo "streamglove output byte-identical to vocab_count: $identical"
fi
