#!/usr/bin/env bash
# Fault injection, in the spirit of RocksDB's db_crashtest and SQLite's fault
# injection: kill -9 at random moments, damaged store and training files, and
# two trainings at once; after each fault every command that reads or writes
# what was damaged must either
#   (a) refuse: a non-zero exit, exactly one line on stderr, and the store's
#       files as they were before it (RocksDB's LOG files, streamglove's
#       LOCK.* files and empty WAL files aside; a training may rewrite
#       blocks/, which is derived), or
#   (b) succeed with the undamaged run's result: the same verify report,
#       statistics, dump, vectors (one training thread: bit-reproducible),
#       and after an addition the dump of the undamaged store plus it.
# Anything else is a FAILURE: exit 0 with another result, a crash or a hang,
# several lines of error, a refusal that changed the store, a reader that
# wrote to it.
#
#   fault_injection_test.sh STREAMGLOVE MAKE_CORPUS [SEED] [ROUNDS]
#
# Every random choice (which file, which byte, what length, when to kill) is
# drawn from bash's RANDOM, seeded from SEED for each fault, so a seed names
# a run; where a kill lands still depends on the machine's speed. Each round injects every
# fault kind once; CI runs the default rounds (about 2 minutes on 2 cores),
# a larger ROUNDS is the longer run by hand. Prints a table of faults and
# outcomes; exits 1 on any FAILURE (each one's details printed), 77 when
# STREAMGLOVE is missing.
set -uo pipefail
bin=$1
generator=$2
seed=${3:-20261128}
rounds=${4:-3}
[ -x "$bin" ] || { echo "SKIP: $bin is missing"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/sg-fault-injection.XXXXXX")
background=()  # runs started in the background, killed if the script ends first
cleanup() {
  local pid
  # SIGTERM: timeout passes it on to the streamglove it runs, which stops.
  for pid in "${background[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
start_time=$SECONDS

ingest_flags=(--window 5 --min-count 2 --memory 256M -q)
train_flags=(--threads 1 --seed 11 --dim 16 --epochs 12 --x-max 10 --memory 64M -q)
command_timeout=120  # a command on a store this small that runs longer hangs

# Every streamglove command the faults are judged by, under a timeout (a hang
# is a failure, reported as exit 124, not a stuck test).
sg() { timeout -k 5 "$command_timeout" "$bin" "$@"; }

# REPLY = a random delay in seconds, up to MAX (decimal), for sleep.
random_delay() {
  local r=$RANDOM
  REPLY=$(awk -v m="$1" -v r="$r" 'BEGIN { printf "%.3f", m * r / 32768 }')
}
# REPLY = a random integer in [0, N), N up to 2^30.
random_below() { REPLY=$((($RANDOM * 32768 + $RANDOM) % $1)); }
# Seconds since EPOCH_START (a `date +%s.%N`), for the kills' timing.
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }
# Whether PID (a child not yet waited for) still runs: a finished child
# stays a zombie until `wait`, and kill -0 would still find it.
running() {
  local state
  state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) && [ -n "$state" ] && [ "$state" != Z ]
}

# ---------------------------------------------------------------------------
# The corpus: four generated shards of about 100 KB (a, b, c: the store; d:
# the addition every fault is followed by) and w.txt, one word a line: its
# batch has no pairs, a commit of metadata alone, which a store must keep
# in a table, not in RocksDB's write-ahead log, where damage goes unseen.
mkdir "$dir/gen" "$dir/in"
"$generator" -o "$dir/gen" --bytes 4e5 --shards 4 --seed 3 >/dev/null || { echo "FAIL: the generator"; exit 1; }
i=0
for name in a b c d; do
  zstd -q -dc "$dir/gen/shard-0000$i.txt.zst" >"$dir/in/$name.txt" || { echo "FAIL: zstd"; exit 1; }
  i=$((i + 1))
done
head -c 3000 "$dir/in/a.txt" | tr ' ' '\n' | grep . >"$dir/in/w.txt"

# The ingests that build the store, in order; kill faults interrupt one of
# them. Two reference stores: after two steps (a and b, then c) and after
# three (w too: its last batch has no pairs). Rounds alternate them.
steps=("a.txt b.txt" "c.txt" "w.txt")
bases=(2 3)  # a base is the state after that many steps: $dir/ref/after-N
step_seconds=()

# Runs steps FROM..TO-1 on STORE, stopping at the first that fails.
run_steps() {
  local store=$1 from=$2 to=$3 k inputs
  for ((k = from; k < to; k++)); do
    read -ra inputs <<<"${steps[k]}"
    sg ingest --store "$store" "${inputs[@]/#/$dir/in/}" "${ingest_flags[@]}" || return
  done
}

# The dump's MD5, or "dump failed: ERROR" (so two failed dumps never agree).
store_digest() {
  local out=$dir/digest.dump err=$dir/digest.err
  if sg dump --store "$1" >"$out" 2>"$err" && [ -s "$out" ]; then
    md5sum <"$out" | cut -d' ' -f1
  else
    echo "dump failed: $(head -1 "$err")"
  fi
}
# stats --json without the sizes on disk (they move with RocksDB's own files
# and with blocks/, derived data).
stats_filter() { sed -E 's/"(size_on_disk|derived_bytes)": ?[0-9]*,?//g'; }

echo "fault injection: seed $seed, $rounds rounds, $bin"
mkdir -p "$dir/ref"
for ((k = 0; k < ${#steps[@]}; k++)); do
  t0=$(date +%s.%N)
  run_steps "$dir/ref/store" "$k" $((k + 1)) || { echo "FAIL: reference ingest of ${steps[k]}"; exit 1; }
  step_seconds[k]=$(elapsed "$t0")
  cp -a "$dir/ref/store" "$dir/ref/after-$((k + 1))"
done
[ -z "$(find "$dir/ref/after-3" -name '*.log' -size +0)" ] || echo "note: the reference store holds WAL records"

# Per base: its verify report, statistics, dump, vectors (whose training
# leaves blocks/ in the store and the final checkpoint), a checkpoint of a
# training killed after an epoch, and the dump after the addition of d.txt.
for b in "${bases[@]}"; do
  ref=$dir/ref/after-$b
  mkdir "$ref.out" "$ref.mid"
  t0=$(date +%s.%N)
  sg train --store "$ref" -o "$ref.out/vec.txt" "${train_flags[@]}" || { echo "FAIL: reference training"; exit 1; }
  train_seconds=$(elapsed "$t0")
  [ -s "$ref.out/vec.txt" ] && [ -s "$ref.out/vec.txt.checkpoint" ] || { echo "FAIL: no reference vectors"; exit 1; }
  sg verify --store "$ref" >"$ref.verify" || { echo "FAIL: reference verify"; exit 1; }
  sg stats --store "$ref" --json | stats_filter >"$ref.stats" || { echo "FAIL: reference stats"; exit 1; }
  store_digest "$ref" >"$ref.dump"
  grep -q failed "$ref.dump" && { echo "FAIL: reference $(cat "$ref.dump")"; exit 1; }
  cp -a "$ref" "$dir/plus-d"
  sg ingest --store "$dir/plus-d" "$dir/in/d.txt" "${ingest_flags[@]}" || { echo "FAIL: reference addition"; exit 1; }
  store_digest "$dir/plus-d" >"$ref.plus-d"
  rm -rf "$dir/plus-d"
  # The checkpoint of an interrupted training: killed once its first
  # checkpoint is there (the last checkpoint, if the run won the race).
  "$bin" train --store "$ref" -o "$ref.mid/vec.txt" "${train_flags[@]}" 2>/dev/null &
  pid=$!
  while running "$pid" && [ ! -e "$ref.mid/vec.txt.checkpoint" ]; do sleep 0.01; done
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  [ -s "$ref.mid/vec.txt.checkpoint" ] || { echo "FAIL: no checkpoint of an interrupted training"; exit 1; }
done
echo "references: ingest steps ${step_seconds[*]} s, training $train_seconds s"

# ---------------------------------------------------------------------------
# Outcomes. count["FAULT|COMMAND|OUTCOME"], OUTCOME refused, equal or FAILED;
# injected[FAULT]; missed[FAULT]: faults that could not be injected (a kill
# that found the run finished, an empty file to flip or truncate).
declare -A count injected missed
failures=()
fault_note=""  # what the current fault did, for the failure details
round=0
w=$dir/work  # the current fault's directory: store/, out/ (vectors), files
store=$w/store

# The store's files, one "MD5  PATH" line each, into FILE: what a refusal
# must leave as it was. Left out: RocksDB's LOG files and streamglove's
# LOCK.* files (each open writes its pid into them), empty WAL files (an
# open for writing deletes them), tmp/ (emptied on every open), and with
# "derived", blocks/ (a training rebuilds the stream from the store). A
# damaged checkpoint ($watched) counts too.
watched=""
fingerprint() {
  local file=$1 mode=${2:-}
  local skip=(-false)
  [ "$mode" = derived ] && skip=(-path './blocks/*')
  {
    [ -d "$store" ] && (cd "$store" && find . -type f ! -name 'LOCK.*' ! -name LOG ! -name 'LOG.old.*' \
      ! \( -name '*.log' -empty \) ! -path './tmp/*' ! \( "${skip[@]}" \) -print0 | sort -z | xargs -0 -r md5sum)
    [ -n "$watched" ] && [ -e "$watched" ] && md5sum "$watched"
  } >"$file"
}
changed_files() {  # the paths that differ between two fingerprints
  diff "$1" "$2" | sed -nE 's/^[<>] [0-9a-f]+  (\.\/)?//p' | sort -u | head -5 | tr '\n' ' '
}

# The checks of an exit-0 result against the reference ($ref), run in $w;
# each says what differs in `why` and returns 1.
check_verify() {
  cmp -s "$w/stdout" "$ref.verify" || { why="its report differs from the undamaged store's"; return 1; }
}
check_stats() {
  stats_filter <"$w/stdout" | cmp -s - "$ref.stats" && return 0
  # The fields that differ, as "field: got (undamaged: reference)".
  why="other statistics: $(stats_filter <"$w/stdout" | tr , '\n' | grep -vxFf <(tr , '\n' <"$ref.stats") |
    head -4 | tr '\n' ' ' | cut -c1-200)(undamaged: $(tr , '\n' <"$ref.stats" |
    grep -vxFf <(stats_filter <"$w/stdout" | tr , '\n') | head -4 | tr '\n' ' ' | cut -c1-200))"
  return 1
}
check_dump() {
  [ -s "$w/stdout" ] && [ "$(md5sum <"$w/stdout" | cut -d' ' -f1)" = "$(cat "$ref.dump")" ] && return 0
  why="another dump"
  return 1
}
check_vectors() { cmp -s "$w/out/vec.txt" "$ref.out/vec.txt" || { why="other vectors"; return 1; }; }
check_addition() {
  local got
  got=$(store_digest "$store")
  [ "$got" = "$(cat "$ref.plus-d")" ] && return 0
  why="the store is not the undamaged one plus d.txt (${got:0:120})"
  return 1
}
check_resumed_store() {  # after a killed ingest and its rerun
  local got
  got=$(store_digest "$store")
  [ "$got" = "$(cat "$ref.dump")" ] || { why="another store (${got:0:120})"; return 1; }
}

# judge FAULT NAME MODE CHECK RC BEFORE: files one command's outcome. MODE:
# either (refuse or succeed), succeed, or refuse; CHECK judges an exit-0
# result; BEFORE: the fingerprint taken before it ran; its stderr is in
# $w/stderr. Readers (verify, stats, dump) must write nothing even when they
# succeed; a training may rewrite blocks/.
judge() {
  local fault=$1 name=$2 mode=$3 check=$4 rc=$5 before=$6
  local lines fmode="" outcome=FAILED after=$w/fingerprint.after
  why=""
  case $name in *train | resume) fmode=derived ;; esac
  fingerprint "$after" "$fmode"
  lines=$(grep -c '' "$w/stderr")
  if [ "$rc" -eq 124 ]; then
    why="hung: still running after ${command_timeout} s"
  elif [ "$rc" -gt 128 ]; then
    why="crashed: killed by signal $((rc - 128))"
  elif [ "$rc" -eq 0 ]; then
    if [ "$mode" = refuse ]; then
      why="not refused"
    elif [ "$lines" -gt 1 ]; then
      why="succeeded, but with $lines lines on stderr"
    elif "$check"; then
      outcome=equal
    fi
  elif [ "$mode" = succeed ]; then
    why="refused: must succeed"
  elif [ "$lines" -ne 1 ]; then
    why="refused with $lines lines on stderr (one is the rule)"
  elif ! cmp -s "$before" "$after"; then
    why="refused, but changed the store's files: $(changed_files "$before" "$after")"
  else
    outcome=refused
  fi
  case $name in
    verify | stats | dump)
      if [ "$outcome" != FAILED ] && ! cmp -s "$before" "$after"; then
        outcome=FAILED
        why="a reader changed the store's files: $(changed_files "$before" "$after")"
      fi
      ;;
  esac
  count["$fault|$name|$outcome"]=$((${count["$fault|$name|$outcome"]:-0} + 1))
  if [ "$outcome" = FAILED ]; then
    local detail="round $round, $fault ($fault_note): $name: exit $rc: $why"
    failures+=("$detail; stderr: $(head -3 "$w/stderr" | cut -c1-300 | tr '\n' '|')")
  fi
}

# attempt FAULT NAME MODE CHECK COMMAND...: runs a command in the current
# fault's directory and judges it.
attempt() {
  local fault=$1 name=$2 mode=$3 check=$4
  shift 4
  local fmode=""
  case $name in *train | resume) fmode=derived ;; esac
  fingerprint "$w/fingerprint.before" "$fmode"
  "$@" >"$w/stdout" 2>"$w/stderr"
  judge "$fault" "$name" "$mode" "$check" $? "$w/fingerprint.before"
}

# A fresh fault directory for reference store BASE ($ref: its results),
# holding a copy of the store after STATE steps (default BASE; 0: none).
fresh() {
  rm -rf "$w"
  mkdir -p "$w/out"
  ref=$dir/ref/after-$1
  local state=${2:-$1}
  [ "$state" -gt 0 ] && cp -a "$dir/ref/after-$state" "$store"
  return 0
}
# The base of this round: the rounds alternate the two reference stores.
round_base() { REPLY=${bases[$(((round - 1) % ${#bases[@]}))]}; }

# kill -9 of COMMAND (run in the background, not through the timeout) after
# a random delay of up to SECONDS (the uninterrupted run's time), in the
# fault directory that SETUP prepares. A kill that finds the run finished
# tests nothing: it is counted as not injectable and tried again, up to 3
# times; returns 1 when none hit.
kill_during() {
  local fault=$1 seconds=$2 setup=$3 rc pid
  shift 3
  for _ in 1 2 3; do
    "$setup"
    "$@" >/dev/null 2>"$w/killed.err" &
    pid=$!
    background=("$pid")
    random_delay "$seconds"
    sleep "$REPLY"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    rc=$?
    background=()
    if [ "$rc" -eq 137 ]; then
      fault_note+="killed after $REPLY s"
      injected[$fault]=$((${injected[$fault]:-0} + 1))
      return 0
    fi
    missed[$fault]=$((${missed[$fault]:-0} + 1))
  done
  return 1
}

# ---------------------------------------------------------------------------
# The faults.

# kill -9 during a step of the round's base: WHICH is first (the first
# ingest, which creates the store) or addition (a later step, drawn); then
# the same command again and the rest of the steps: the base's dump.
fault_kill_ingest() {
  local fault=$1 which=$2 base step=0 inputs
  round_base
  base=$REPLY
  if [ "$which" = addition ]; then
    random_below $((base - 1))
    step=$((REPLY + 1))
  fi
  read -ra inputs <<<"${steps[step]}"
  # (setup sees this function's locals: bash's scopes are dynamic)
  setup() { fresh "$base" "$step"; fault_note="${steps[step]} into base after-$base, "; }
  kill_during "$fault" "${step_seconds[step]}" setup \
    "$bin" ingest --store "$store" "${inputs[@]/#/$dir/in/}" "${ingest_flags[@]}" || return
  attempt "$fault" ingest succeed check_resumed_store run_steps "$store" "$step" "$base"
}

# A store to train on: half the time without blocks/, so that a kill or a
# second training can land while the first builds the block stream.
maybe_without_blocks() {
  if (($RANDOM % 2)); then
    rm -rf "$store/blocks"
    fault_note+="blocks/ removed first, "
  fi
}

# kill -9 during training, then train --resume: the reference vectors.
fault_kill_train() {
  local fault=kill-train base
  round_base
  base=$REPLY
  setup() { fresh "$base"; fault_note="base after-$base, "; maybe_without_blocks; }
  kill_during "$fault" "$train_seconds" setup \
    "$bin" train --store "$store" -o "$w/out/vec.txt" "${train_flags[@]}" || return
  attempt "$fault" resume succeed check_vectors \
    sg train --store "$store" -o "$w/out/vec.txt" --resume "${train_flags[@]}"
}

# Two trainings at once on one store: the second, started at a random moment
# once the first holds the store, must be refused in one line (whether it
# asks for the same cut, and would reuse blocks/, or another, and would
# rebuild it); the first must finish with the reference vectors.
fault_concurrent_train() {
  local fault=concurrent-train
  round_base
  fresh "$REPLY"
  fault_note="base after-$REPLY, "
  maybe_without_blocks
  local second=(--min-count 2)
  (($RANDOM % 2)) && second=(--min-count 3)
  fault_note+="the second with ${second[*]}"
  mkdir "$w/out2"
  echo 0 >"$store/LOCK.streamglove"
  # Not through sg(): $! must be the timeout's pid, which passes SIGTERM on.
  timeout -k 5 "$command_timeout" "$bin" train --store "$store" -o "$w/out/vec.txt" "${train_flags[@]}" \
    2>"$w/first.err" &
  local first=$!
  background+=("$first")
  # LOCK.streamglove gets the pid of whoever opens the store.
  local tries=0
  while running "$first" && [ "$(cat "$store/LOCK.streamglove" 2>/dev/null)" = 0 ] && ((tries++ < 500)); do
    sleep 0.01
  done
  random_delay "$(awk -v s="$train_seconds" 'BEGIN { print 0.8 * s }')"
  fault_note+=", started $REPLY s after the first held the store"
  sleep "$REPLY"
  # The first is stopped while the second runs, so that it cannot finish and
  # free the store in between: a second run that then succeeds would be
  # right, and the test would call it wrong. Stopped after it let the lock
  # go (on its way out), it leaves nothing to test.
  local holder stopped=0
  holder=$(cat "$store/LOCK.streamglove" 2>/dev/null)
  if running "$first" && [ "${holder:-0}" != 0 ] && kill -STOP "$holder" 2>/dev/null; then
    stopped=1
  fi
  if [ "$stopped" = 0 ] || flock -n "$store/LOCK.streamglove" true; then
    [ "$stopped" = 0 ] || kill -CONT "$holder"
    wait "$first" 2>/dev/null
    background=()
    missed[$fault]=$((${missed[$fault]:-0} + 1))
    return
  fi
  injected[$fault]=$((${injected[$fault]:-0} + 1))
  attempt "$fault" 2nd-train refuse check_vectors \
    sg train --store "$store" -o "$w/out2/vec.txt" "${train_flags[@]}" "${second[@]}"
  kill -CONT "$holder"
  fingerprint "$w/fingerprint.before" derived
  wait "$first"
  local rc=$?
  background=()
  cp "$w/first.err" "$w/stderr"
  judge "$fault" 1st-train succeed check_vectors "$rc" "$w/fingerprint.before"
}

# The files to damage, by kind: a pattern under the store (one match drawn
# at random; non-empty ones first), or the checkpoint of a training.
file_kinds=(CURRENT 'MANIFEST-*' 'CURRENT+MANIFEST-*' COMMITTED.streamglove '*.sst' '*.log'
            'OPTIONS-*' IDENTITY 'LOCK.*' blocks/MANIFEST 'blocks/block-*' checkpoint)
damages=(delete truncate flip)

# Damages FILE by DAMAGE, saying how in fault_note; returns 1 when the file
# cannot take it (nothing to truncate or flip in an empty file).
damage() {
  local file=$1 how=$2 size name=${1#"$w"/}
  size=$(stat -c %s "$file")
  case $how in
    delete)
      rm -f "$file"
      fault_note="deleted $name ($size bytes)"
      ;;
    truncate)
      [ "$size" -gt 0 ] || return 1
      random_below "$size"
      truncate -s "$REPLY" "$file"
      fault_note="truncated $name from $size to $REPLY bytes"
      ;;
    flip)
      [ "$size" -gt 0 ] || return 1
      random_below "$size"
      local at=$REPLY mask=$(($RANDOM % 255 + 1)) old
      old=$(od -An -tu1 -j "$at" -N1 "$file" | tr -d ' ')
      printf "\\x$(printf %02x $((old ^ mask)))" | dd of="$file" bs=1 seek="$at" conv=notrunc status=none
      fault_note="flipped byte $at of $name ($size bytes): $(printf '0x%02x -> 0x%02x' "$old" $((old ^ mask)))"
      ;;
  esac
}

# One damaged file of KIND (or one of each of its '+'-separated patterns),
# then every command that reads it.
fault_file() {
  local kind=$1 how=$2 fault="$1/$2" base targets=() notes=() t
  round_base
  base=$REPLY
  [ "$kind" = '*.log' ] && base=3  # the base whose last batch had no pairs
  fresh "$base"
  if [ "$kind" = checkpoint ]; then
    # The last checkpoint of a finished training or one of a killed one.
    local from=$ref.out
    (($RANDOM % 2)) && from=$ref.mid
    cp "$from/vec.txt.checkpoint" "$w/out/"
    targets=("$w/out/vec.txt.checkpoint")
    watched=${targets[0]}
  else
    local patterns pattern files nonempty f
    IFS=+ read -ra patterns <<<"$kind"
    for pattern in "${patterns[@]}"; do
      files=() nonempty=()
      for f in "$store"/$pattern; do [ -f "$f" ] && files+=("$f") && [ -s "$f" ] && nonempty+=("$f"); done
      [ ${#nonempty[@]} -gt 0 ] && files=("${nonempty[@]}")
      [ ${#files[@]} -gt 0 ] && targets+=("${files[$RANDOM % ${#files[@]}]}")
    done
  fi
  for t in "${targets[@]}"; do
    damage "$t" "$how" && notes+=("$fault_note")
  done
  if [ ${#notes[@]} -eq 0 ]; then
    missed[$fault]=$((${missed[$fault]:-0} + 1))
    return
  fi
  fault_note=${notes[0]}
  for t in "${notes[@]:1}"; do fault_note+=" and $t"; done
  fault_note+=", base after-$base"
  injected[$fault]=$((${injected[$fault]:-0} + 1))
  if [ "$kind" = checkpoint ]; then
    attempt "$fault" resume either check_vectors \
      sg train --store "$store" -o "$w/out/vec.txt" --resume "${train_flags[@]}"
    # A damaged checkpoint must not stand in the way of a fresh training.
    attempt "$fault" train succeed check_vectors sg train --store "$store" -o "$w/out/vec.txt" "${train_flags[@]}"
    return
  fi
  attempt "$fault" verify either check_verify sg verify --store "$store"
  attempt "$fault" stats either check_stats sg stats --store "$store" --json
  attempt "$fault" dump either check_dump sg dump --store "$store"
  attempt "$fault" train either check_vectors sg train --store "$store" -o "$w/out/vec.txt" "${train_flags[@]}"
  attempt "$fault" ingest either check_addition sg ingest --store "$store" "$dir/in/d.txt" "${ingest_flags[@]}"
}

faults=(kill-ingest kill-addition kill-train concurrent-train)
for kind in "${file_kinds[@]}"; do for how in "${damages[@]}"; do faults+=("$kind/$how"); done; done

# Runs one fault (a command line) with its own random stream, seeded from
# SEED, the round and the fault's place in it: a kill tried again on a
# slower machine does not move the next fault's choices.
fault_index=0
run_fault() {
  RANDOM=$((seed * 1000 + round * 100 + fault_index++))
  fault_note=""
  watched=""
  "$@"
}

for ((round = 1; round <= rounds; round++)); do
  fault_index=0
  run_fault fault_kill_ingest kill-ingest first
  run_fault fault_kill_ingest kill-addition addition
  run_fault fault_kill_train
  run_fault fault_concurrent_train
  for kind in "${file_kinds[@]}"; do
    for how in "${damages[@]}"; do run_fault fault_file "$kind" "$how"; done
  done
  echo "round $round of $rounds: $((SECONDS - start_time)) s, ${#failures[@]} failures so far"
done

# ---------------------------------------------------------------------------
# The table: per fault kind, the faults injected (and not injectable), and
# per command refused/equal/FAILED ("-": not run after this fault).
commands=(verify stats dump train ingest resume 2nd-train 1st-train)
printf '\n%-30s %8s' "fault" "injected"
for c in "${commands[@]}"; do printf ' %9s' "$c"; done
printf '\n'
total_failed=0
for fault in "${faults[@]}"; do
  note=""
  [ "${missed[$fault]:-0}" -gt 0 ] && note=" (+${missed[$fault]} not injectable)"
  printf '%-30s %8s' "$fault" "${injected[$fault]:-0}"
  for c in "${commands[@]}"; do
    r=${count["$fault|$c|refused"]:-0} e=${count["$fault|$c|equal"]:-0} f=${count["$fault|$c|FAILED"]:-0}
    total_failed=$((total_failed + f))
    if [ $((r + e + f)) -eq 0 ]; then printf ' %9s' -; else printf ' %9s' "$r/$e/$f"; fi
  done
  printf '%s\n' "$note"
done
echo "cells: refused/equal/FAILED; 'not injectable': a kill that found the run finished, an empty file"
echo "wall time: $((SECONDS - start_time)) s (seed $seed, $rounds rounds)"
if [ "${#failures[@]}" -gt 0 ]; then
  echo
  for f in "${failures[@]}"; do echo "FAILURE: $f"; done
  echo "FAIL: $total_failed failures (rerun: $0 $bin $generator $seed $rounds)"
  exit 1
fi
echo "PASS: every command refused in one line or gave the undamaged result"
