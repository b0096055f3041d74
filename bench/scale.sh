#!/usr/bin/env bash
# The scale benchmark: the whole pipeline (vocab, ingest, train, eval) on
# wiki100M and on generated corpora of 0.1, 1 and 10 GB of raw text, the
# vocabulary pass, ingest and training under --memory 1G; per stage the wall
# time, throughput and peak RSS (/usr/bin/time -v), and the store's size on
# disk per non-zero pair; for ingest also the peak disk use of the store
# directory (sampled every 2 s) against its final size.
#
#   bench/scale.sh [-w WORK] [-s "0.1 1 10"] [-e EPOCHS] [--no-wiki] [--keep]
#                  [--stop-after STAGE]
#   env: SG_BUILD (build), SG_SHARED_DATA (../shared/data)
#
# --stop-after ingest ends each corpus's pipeline after that stage (the
# corpus and store are then kept for a later rerun without it).
#
# Generated corpora: 1M-word Zipf vocabulary, 10 planted families of 30 pairs,
# JSONL shards; ingest --window 10; train GloVe dim 50, EPOCHS (5) epochs,
# x_max 10, the 100,000 most frequent words; eval on the planted analogies.
#
# Resumable: every finished stage leaves WORK/LABEL/STAGE.row, and a rerun of
# the same command skips it (an interrupted ingest continues where it
# stopped: its row then says "resumed"). A finished size's corpus, store and
# vectors are deleted unless --keep. WORK/results.tsv collects the rows;
# bench/plot_scale.sh draws them. Needs ../shared/data for wiki100M and the
# questions; run on an idle machine. Smoke mode: one generated corpus of 2 MB
# (-s 0.002), 1 epoch (wiki100M too), the disk sampled every 0.2 s, WORK a
# temporary directory unless -w.
. "$(dirname "$0")/lib.sh"
cd "$SG_ROOT"
work=
sizes="0.1 1 10"
wiki=1
keep=0
epochs=5
stop_after=
disk_interval=2
wiki_flags=(--preset glove-demo)
! sg_smoke || { sizes=0.002 epochs=1 disk_interval=0.2; }
while [ $# -gt 0 ]; do
  case $1 in
    -w) work=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -e) epochs=$2; shift 2 ;;
    --no-wiki) wiki=0; shift ;;
    --keep) keep=1; shift ;;
    --stop-after) stop_after=$2; shift 2 ;;
    *) echo "usage: bench/scale.sh [-w WORK] [-s SIZES_GB] [-e EPOCHS] [--no-wiki] [--keep] [--stop-after STAGE]" >&2
       exit 2 ;;
  esac
done
if [ -n "$work" ]; then
  mkdir -p "$work"
elif sg_smoke; then
  sg_scratch bench-scale
else
  work=${TMPDIR:-/tmp}/sg-bench-scale
  mkdir -p "$work"
fi
data=$SG_SHARED_DATA
gen=$SG_BUILD/streamglove-make-corpus
memory=1G
results=$work/results.tsv
columns="label\tgb\tstage\tseconds\tpeak_rss_mib\tinput_bytes\ttokens\tpairs\tstore_bytes\tresult\tnote\tdisk_peak_bytes"
[ -f "$results" ] || printf "$columns\n" >"$results"

# run_stage LABEL STAGE COMMAND...: runs COMMAND under /usr/bin/time -v unless
# its row exists; sets $seconds and $rss_mib; $note says "resumed" when an
# earlier attempt did not finish.
run_stage() {
  local label=$1 stage=$2
  shift 2
  local dir=$work/$label
  mkdir -p "$dir"
  note=""
  [ -f "$dir/$stage.started" ] && note=resumed
  touch "$dir/$stage.started"
  echo "== $label: $stage: $*" >&2
  sg_time "$dir/$stage.time" "$@" >"$dir/$stage.out" 2>"$dir/$stage.err" || {
    echo "$label: $stage failed; see $dir/$stage.err" >&2
    tail -n 5 "$dir/$stage.err" >&2
    exit 1
  }
  seconds=$(sg_wall "$dir/$stage.time")
  rss_mib=$(sg_peak_rss "$dir/$stage.time")
}

done_row() { [ -f "$work/$1/$2.row" ]; }
# write_row LABEL GB STAGE INPUT_BYTES TOKENS PAIRS STORE_BYTES RESULT [DISK_PEAK_BYTES]
write_row() {
  local row
  row=$(printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s" "$1" "$2" "$3" "$seconds" "$rss_mib" "$4" "$5" "$6" \
    "$7" "$8" "${note:--}" "${9:--}")
  echo "$row" >"$work/$1/$3.row"
  echo "$row" >>"$results"
  echo "   $row" >&2
}

json_field() { /usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }

# pipeline LABEL GB CORPUS QUESTIONS WINDOW TRAIN_FLAGS...
pipeline() {
  local label=$1 gb=$2 corpus=$3 questions=$4 window=$5
  shift 5
  local dir=$work/$label
  local bytes
  bytes=$(cat "$dir/input_bytes")
  if ! done_row "$label" vocab; then
    run_stage "$label" vocab "$SG_BIN" vocab "$corpus" --min-count 5 --memory $memory -q -o "$dir/vocab.txt"
    write_row "$label" "$gb" vocab "$bytes" - - - "$(wc -l <"$dir/vocab.txt") words"
  fi
  if ! done_row "$label" ingest; then
    # The store's peak size on disk while it is written (its spilled runs and
    # a batch's table files sit inside it until the batch commits).
    "$SG_ROOT/bench/disk_peak.sh" "$dir/store" "$dir/ingest.disk" "$disk_interval" &
    local sampler=$!
    run_stage "$label" ingest "$SG_BIN" ingest --store "$dir/store" "$corpus" --vocab "$dir/vocab.txt" --window "$window" \
      --memory $memory -q
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    "$SG_BIN" stats --store "$dir/store" --json --exact >"$dir/stats.json"
    write_row "$label" "$gb" ingest "$bytes" "$(json_field "$dir/stats.json" "['tokens']")" \
      "$(json_field "$dir/stats.json" "['nonzero_pairs']")" "$(json_field "$dir/stats.json" "['size_on_disk']")" - \
      "$(cat "$dir/ingest.disk" 2>/dev/null || echo -)"
  fi
  [ "$stop_after" != ingest ] || return 0
  local tokens pairs
  tokens=$(json_field "$dir/stats.json" "['tokens']")
  if ! done_row "$label" train; then
    rm -f "$dir/vectors.txt.checkpoint"
    run_stage "$label" train "$SG_BIN" train --store "$dir/store" -o "$dir/vectors.txt" --memory $memory -q "$@"
    pairs=$(awk -F'\t' 'NR == 2 {print $6}' "$dir/vectors.txt.log.tsv")  # per epoch
    local epochs
    epochs=$(($(wc -l <"$dir/vectors.txt.log.tsv") - 1))
    write_row "$label" "$gb" train "$bytes" "$tokens" "$pairs" "$(json_field "$dir/stats.json" "['size_on_disk']")" \
      "$epochs epochs"
  fi
  if ! done_row "$label" eval; then
    run_stage "$label" eval "$SG_BIN" eval analogy "$dir/vectors.txt" "$questions" --json
    write_row "$label" "$gb" eval - - - - \
      "$(json_field "$dir/eval.out" "['files'][0]['total']['accuracy']" | xargs printf "%.2f%% analogy")"
  fi
  if [ $keep = 0 ]; then rm -rf "$dir/corpus" "$dir/store" "$dir/vectors.txt" "$dir/vectors.txt.checkpoint"; fi
}

if [ $wiki = 1 ]; then
  if [ ! -f "$data/corpus/wiki100M.txt.zst" ]; then
    echo "no $data/corpus/wiki100M.txt.zst: skipping wiki100M (--no-wiki to silence)" >&2
  else
    mkdir -p "$work/wiki100M"
    zstdcat "$data/corpus/wiki100M.txt.zst" | wc -c >"$work/wiki100M/input_bytes"
    ! sg_smoke || wiki_flags+=(--epochs "$epochs")
    pipeline wiki100M 0.1 "$data/corpus/wiki100M.txt.zst" "$data/eval/analogy/questions-words.txt" 15 \
      "${wiki_flags[@]}"
  fi
fi

for gb in $sizes; do
  label=gen-${gb}GB
  dir=$work/$label
  mkdir -p "$dir"
  if ! done_row "$label" generate; then
    rm -rf "$dir/corpus"
    mkdir -p "$dir/corpus"
    shards=$(awk -v g="$gb" 'BEGIN {s = int(g * 8); print (s < 4 ? 4 : s)}')
    run_stage "$label" generate "$gen" -o "$dir/corpus" --bytes "${gb}e9" --vocab 1000000 --shards "$shards" \
      --format jsonl --relations 10 --pairs 30 --questions "$dir/questions.txt"
    awk '/bytes,/ {print $4}' "$dir/generate.err" >"$dir/input_bytes"
    write_row "$label" "$gb" generate "$(cat "$dir/input_bytes")" "$(awk '/bytes,/ {print $6}' "$dir/generate.err")" - - \
      "$shards shards, $(du -sb "$dir/corpus" | cut -f1) bytes of zstd"
  fi
  pipeline "$label" "$gb" "$dir/corpus" "$dir/questions.txt" 10 --dim 50 --epochs "$epochs" --x-max 10 --max-vocab 100000
done

echo "== results ($results)" >&2
column -t -s $'\t' "$results"
echo "== throughput and store size" >&2
# %.0f, not %d: mawk's %d stops at 2^31 - 1 (the 10 GB run has 6.07 G pairs).
awk -F'\t' 'NR > 1 && $3 == "vocab" { printf "%-10s vocab   %7.1f MB/s\n", $1, $6 / $4 / 1e6 }
  NR > 1 && $3 == "ingest" { printf "%-10s ingest  %7.1f MB/s  %5.2f M tokens/s  %.0f pairs, %.2f bytes per pair on disk%s\n",
    $1, $6 / $4 / 1e6, $7 / $4 / 1e6, $8, $9 / $8, ($12 ~ /^[0-9]+$/ ? sprintf(", disk peak %.2fx the final store", $12 / $9) : "") }
  NR > 1 && $3 == "train" { split($10, e, " "); printf "%-10s train   %7.2f M pairs/s (%d epochs of %.0f pairs, block build included)\n",
    $1, e[1] * $8 / $4 / 1e6, e[1], $8 }' "$results"
