# shellcheck shell=bash
# What the benchmark scripts share; each sources it first thing:
#
#   . "$(dirname "$0")/lib.sh"
#
# It turns on strict mode (set -euo pipefail) and sets, each from the
# environment when given there:
#   SG_ROOT         the repository's root (absolute; the caller's directory is
#                   not changed)
#   SG_BUILD        the build directory (default $SG_ROOT/build): the
#                   binaries' folder, streamglove-scan, -membw, -make-corpus
#   SG_BIN          the streamglove binary (default $SG_BUILD/streamglove)
#   SG_SHARED_DATA  the shared corpora and evaluation sets (default
#                   $SG_ROOT/../shared/data)
#   SG_BENCH_SMOKE  1: smoke mode, CI's check that no script rots (bench/smoke.sh
#                   runs them all): the scripts use the fewest repetitions and
#                   their smallest sizes, and SG_SHARED_DATA, unless given, is a
#                   tiny generated stand-in (sg_smoke_data). The figures are
#                   printed as always; only their values mean nothing.
#
# Functions:
#   sg_build DIR           SG_BUILD=DIR and SG_BIN=DIR/streamglove (a script's
#                          BUILD_DIR argument)
#   sg_smoke               true in smoke mode
#   sg_skip REASON         prints "SKIP: REASON" and exits 77
#   sg_need FILE...        sg_skip unless every FILE exists
#   sg_need_mpi            sg_skip without mpirun or with a SG_BIN built without MPI
#   sg_scratch NAME [DIR]  sets $work: DIR when given (created, kept), else a new
#                          directory under $TMPDIR (sg-NAME.XXXXXX), removed on exit
#   sg_peer_corpus NAME PEER_TEXT  a corpus as we ingest it and as the peers
#                          read it (see the function)
#   sg_time REPORT CMD...  runs CMD under /usr/bin/time -v, the report in the file
#                          REPORT (CMD's own output untouched); CMD's exit status
#   sg_peak_rss REPORT     the peak RSS of such a report, in MiB (rounded)
#   sg_wall REPORT         its wall time, in seconds (two decimals, as time's %e)
#   sg_smoke_data DIR      writes the stand-in for SG_SHARED_DATA into DIR
#
# On exit the script's background jobs (samplers) are killed and the
# directories made for it removed.
set -euo pipefail
SG_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SG_BUILD=${SG_BUILD:-$SG_ROOT/build}
SG_BIN=${SG_BIN:-$SG_BUILD/streamglove}
SG_BENCH_SMOKE=${SG_BENCH_SMOKE:-0}

_sg_remove=()
_sg_exit() {
  local pids
  pids=$(jobs -p)
  [ -z "$pids" ] || kill $pids 2>/dev/null || true
  [ ${#_sg_remove[@]} = 0 ] || rm -rf "${_sg_remove[@]}"
}
trap _sg_exit EXIT

sg_build() {
  SG_BUILD=$1
  SG_BIN=$1/streamglove
}

sg_smoke() { [ "$SG_BENCH_SMOKE" = 1 ]; }

sg_skip() {
  echo "SKIP: $*"
  exit 77
}

sg_need() {
  local f
  for f in "$@"; do [ -e "$f" ] || sg_skip "$f not found"; done
}

sg_need_mpi() {
  command -v mpirun >/dev/null || sg_skip "no mpirun: the distributed ingest needs MPI"
  local probe
  probe=$(mktemp -d "${TMPDIR:-/tmp}/sg-mpi-probe.XXXXXX")
  echo "a probe" >"$probe/input.txt"
  if ! OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 1 \
    "$SG_BIN" ingest --store "$probe/store" "$probe/input.txt" -q 2>"$probe/err" &&
    grep -q "built without MPI" "$probe/err"; then
    rm -rf "$probe"
    sg_skip "$SG_BIN was built without MPI"
  fi
  rm -rf "$probe"
}

sg_scratch() {
  if [ -n "${2:-}" ]; then
    mkdir -p "$2"
    work=$2
  else
    work=$(mktemp -d "${TMPDIR:-/tmp}/sg-$1.XXXXXX")
    _sg_remove+=("$work")
  fi
}

sg_time() {
  local report=$1
  shift
  /usr/bin/time -v -o "$report" "$@"
}

sg_peak_rss() { awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$1"; }

# sg_peer_corpus NAME PEER_TEXT: a corpus as we ingest it (sets the arrays
# ingest_inputs and ingest_flags) and as the peers read it (PEER_TEXT,
# written): the same tokens. NAME: wiki100M, imdb-text8 (imdb100k normalised
# like text8), imdb-words (imdb100k, --tokenizer words --lowercase) or
# wiki-plain (the JSONL shards, the same). Exits 2 on another name.
sg_peer_corpus() {
  local name=$1 peer=$2 data=$SG_SHARED_DATA raw
  ingest_flags=()
  case $name in
    wiki100M)
      ingest_inputs=("$data/corpus/wiki100M.txt.zst")
      sg_need "${ingest_inputs[0]}"
      # One 100 MB line: gensim's corpus_file mode drops everything past
      # 10,000 words of a line, so the peers get 1,000-word lines.
      zstdcat "${ingest_inputs[0]}" | tr ' ' '\n' | grep -v '^$' |
        paste -d' ' $(printf -- '- %.0s' {1..1000}) >"$peer"
      ;;
    imdb-text8)
      raw=$data/corpus/imdb100k.txt.zst
      sg_need "$raw"
      # Matt Mahoney's text8 normalisation: lowercase, digits spelled out,
      # every other byte a space; one review per line.
      zstdcat "$raw" | tr 'A-Z' 'a-z' |
        sed -e 's/0/ zero /g; s/1/ one /g; s/2/ two /g; s/3/ three /g; s/4/ four /g' \
          -e 's/5/ five /g; s/6/ six /g; s/7/ seven /g; s/8/ eight /g; s/9/ nine /g' |
        tr -c 'a-z\n' ' ' | tr -s ' ' | sed 's/^ //; s/ $//' >"$peer"
      ingest_inputs=("$peer")
      ;;
    imdb-words | wiki-plain)
      if [ "$name" = imdb-words ]; then
        ingest_inputs=("$data/corpus/imdb100k.txt.zst")
      else
        ingest_inputs=("$data"/corpus/wiki-plain-0*.jsonl.zst)
      fi
      sg_need "${ingest_inputs[0]}"
      ingest_flags=(--tokenizer words --lowercase)
      "$SG_BUILD/streamglove-scan" --mode print "${ingest_flags[@]}" "${ingest_inputs[@]}" >"$peer"
      ;;
    *)
      echo "unknown corpus '$name': wiki100M, imdb-text8, imdb-words or wiki-plain" >&2
      exit 2
      ;;
  esac
}

# "Elapsed (wall clock) time (h:mm:ss or m:ss): 1:02.53" -> 62.53
sg_wall() {
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
    for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.2f\n", s }' "$1"
}

# The stand-in: every file of ../shared/data that a script reads, made by
# streamglove-make-corpus, of 0.5 to 1 MB each, in the same formats: corpus/
# wiki100M.txt.zst (one line of lowercase words), imdb100k.txt.zst (a
# document per line), wiki-plain-0{0..3}.jsonl.zst; eval/analogy/
# questions-words.txt (the planted analogies, 6 sections) and four
# eval/similarity/ files of word pairs with random scores.
sg_smoke_data() {
  local out=$1 gen=$SG_BUILD/streamglove-make-corpus
  local tmp=$out/.generated
  mkdir -p "$out/corpus" "$out/eval/analogy" "$out/eval/similarity" "$tmp/wiki" "$tmp/imdb" "$tmp/plain"
  "$gen" -o "$tmp/wiki" --bytes 5e5 --shards 1 --vocab 5000 --relations 6 --pairs 10 --seed 1 \
    --questions "$out/eval/analogy/questions-words.txt" >/dev/null 2>&1
  zstd -qdc "$tmp"/wiki/*.zst | tr '\n' ' ' | zstd -q >"$out/corpus/wiki100M.txt.zst"
  "$gen" -o "$tmp/imdb" --bytes 5e5 --shards 1 --vocab 5000 --seed 2 >/dev/null 2>&1
  mv "$tmp"/imdb/*.zst "$out/corpus/imdb100k.txt.zst"
  "$gen" -o "$tmp/plain" --bytes 1e6 --shards 4 --vocab 5000 --format jsonl --seed 3 >/dev/null 2>&1
  local i=0 f
  for f in "$tmp"/plain/*.jsonl.zst; do
    mv "$f" "$out/corpus/wiki-plain-0$i.jsonl.zst"
    i=$((i + 1))
  done
  zstd -qdc "$out/corpus/wiki100M.txt.zst" | tr ' ' '\n' | grep -v '^$' | sort | uniq -c |
    sort -k1,1nr -k2,2 | awk 'NR <= 300 { print $2 }' >"$tmp/words"
  local seed=1 name
  for name in EN-WS-353-ALL EN-SIMLEX-999 EN-MEN-TR-3k EN-RW-STANFORD; do
    awk -v seed=$seed 'BEGIN { srand(seed) } { w[NR] = $1 }
      END { for (i = 0; i < 100; i++)
              printf "%s\t%s\t%.2f\n", w[int(rand() * NR) + 1], w[int(rand() * NR) + 1], rand() * 10 }' \
      "$tmp/words" >"$out/eval/similarity/$name.txt"
    seed=$((seed + 1))
  done
  rm -rf "$tmp"
}

if sg_smoke && [ -z "${SG_SHARED_DATA:-}" ]; then
  SG_SHARED_DATA=$(mktemp -d "${TMPDIR:-/tmp}/sg-smoke-data.XXXXXX")
  _sg_remove+=("$SG_SHARED_DATA")
  sg_smoke_data "$SG_SHARED_DATA"
fi
SG_SHARED_DATA=${SG_SHARED_DATA:-$SG_ROOT/../shared/data}
