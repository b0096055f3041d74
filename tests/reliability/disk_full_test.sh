#!/usr/bin/env bash
# Disk full: ingest into a small tmpfs until ENOSPC. Expect one clear error, a
# store that still opens and verifies, and, once space is freed (the tmpfs
# grown), the same command resuming to exactly the counts of a run that never
# ran out. Then training on the store with the tmpfs full again: one error
# line, no block files left, and once space is freed the vectors of a
# training that never ran out. Needs permission to mount a tmpfs (root);
# skips otherwise.
set -uo pipefail
bin=$1
generator=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/sg-disk-full.XXXXXX")
mnt=$dir/mnt
mkdir -p "$mnt" "$dir/corpus"
cleanup() { umount "$mnt" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
if ! mount -t tmpfs -o size=3M tmpfs "$mnt" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs here (needs root)" >&2
  exit 77
fi
"$generator" -o "$dir/corpus" --bytes 12e6 --shards 2 --seed 8 >/dev/null
flags=(--window 10 --min-count 3 --memory 128M --batch-size 1M -q)
"$bin" ingest --store "$dir/reference" "$dir/corpus" "${flags[@]}" || exit 1
# A store's dump digest into FILE; a failed or empty dump ends the test (two
# of them would compare equal).
digest() {
  "$bin" dump --store "$1" >"$dir/dump" || { echo "FAIL: dump of $1: exit $?"; exit 1; }
  [ -s "$dir/dump" ] || { echo "FAIL: dump of $1 is empty"; exit 1; }
  md5sum <"$dir/dump" >"$2"
}
digest "$dir/reference" "$dir/reference.md5"
fail=0

"$bin" ingest --store "$mnt/store" "$dir/corpus" "${flags[@]}" 2>"$dir/err"
code=$?
echo "full disk: exit $code: $(cat "$dir/err")"
if [ "$code" -eq 0 ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || ! grep -q "No space left on device" "$dir/err"; then
  echo "FAIL: expected one 'No space left on device' error line"; fail=1
fi
# Still full: the store opens read-only enough to verify?
if "$bin" verify --store "$mnt/store" >"$dir/verify" 2>&1; then
  echo "ok: the store verifies on the full disk: $(tr '\n' ';' <"$dir/verify")"
else
  echo "FAIL: verify on the still-full disk: $(tail -1 "$dir/verify")"; fail=1
fi
mount -o remount,size=256M "$mnt"
if "$bin" verify --store "$mnt/store" >"$dir/verify" 2>&1; then
  echo "ok: the store verifies once space is freed"
else
  echo "FAIL: verify after freeing space: $(cat "$dir/verify")"; fail=1
fi
"$bin" ingest --store "$mnt/store" "$dir/corpus" "${flags[@]}" || { echo "FAIL: the rerun failed"; fail=1; }
digest "$mnt/store" "$dir/store.md5"
if cmp -s "$dir/reference.md5" "$dir/store.md5"; then
  echo "ok: resumed after ENOSPC to the exact counts of an uninterrupted run"
else
  echo "FAIL: counts differ after resuming"; fail=1
fi

tflags=(--dim 10 --epochs 1 --threads 1 --memory 64M --block-compression none -q)
# The reference trains a copy of this store: the stream's blocks follow the
# store's size on disk, which the ingest's interruption changed.
cp -r "$mnt/store" "$dir/store-copy"
"$bin" train --store "$dir/store-copy" -o "$dir/reference.txt" "${tflags[@]}" || exit 1
# 1 MiB left: the block stream (several MiB) cannot be built.
mount -o remount,size=$(($(df -k "$mnt" | awk 'NR == 2 {print $3}') + 1024))k "$mnt"
"$bin" train --store "$mnt/store" -o "$dir/vectors.txt" "${tflags[@]}" 2>"$dir/err"
code=$?
echo "training on a full disk: exit $code: $(cat "$dir/err")"
if [ "$code" -eq 0 ] || [ "$(wc -l <"$dir/err")" -ne 1 ] \
   || ! grep -q "blocks/block-[0-9]*: No space left on device" "$dir/err"; then
  echo "FAIL: expected one 'No space left on device' error line naming a block"; fail=1
fi
if [ -n "$(find "$mnt/store" -path '*blocks/*' 2>/dev/null)" ]; then
  echo "FAIL: the failed build left block files: $(find "$mnt/store" -path '*blocks/*' | head -3)"; fail=1
fi
mount -o remount,size=256M "$mnt"
"$bin" train --store "$mnt/store" -o "$dir/vectors.txt" "${tflags[@]}" || { echo "FAIL: the training rerun failed"; fail=1; }
if cmp -s "$dir/reference.txt" "$dir/vectors.txt"; then
  echo "ok: trained after ENOSPC to the vectors of an uninterrupted training"
else
  echo "FAIL: vectors differ after the block stream was rebuilt"; fail=1
fi
exit $fail
