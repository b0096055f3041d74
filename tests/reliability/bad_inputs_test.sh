#!/usr/bin/env bash
# The bad-input corpus, generated here: every case must give one error line on
# stderr naming the file (and the byte offset or line where one applies), a
# non-zero exit, and leave an existing store exactly as it was.
#
#   bad_inputs_test.sh STREAMGLOVE MAKE_FUTURE_STORE
set -uo pipefail
bin=$1
future=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/sg-bad-inputs.XXXXXX")
trap 'chmod -R u+rwx "$dir" 2>/dev/null; rm -rf "$dir"' EXIT
bad=$dir/bad
mkdir -p "$bad" "$dir/good"

# A good corpus and its store, the store's state recorded.
for i in $(seq 1 300); do echo "the quick brown fox $i jumps over the lazy dog $((i % 7))"; done >"$dir/good/a.txt"
"$bin" ingest --store "$dir/store" "$dir/good" --min-count 1 --memory 128M -q || { echo "FAIL: good ingest"; exit 1; }
# The counts and the records (the size on disk moves with RocksDB's own files).
state() {
  "$bin" dump --store "$dir/store" >"$dir/state.dump" || { echo "FAIL: dump: exit $?"; exit 1; }
  [ -s "$dir/state.dump" ] || { echo "FAIL: an empty dump"; exit 1; }
  md5sum <"$dir/state.dump" | cut -d' ' -f1
  "$bin" stats --store "$dir/store" --json | sed -E 's/"size_on_disk": ?[0-9]*//'
}
before=$(state)

text='the quick brown fox jumps over the lazy dog'
good_lines() { for i in $(seq 1 200); do echo "$text $i"; done; }
good_lines | zstd -q -c >"$dir/whole.zst"
head -c $(($(stat -c %s "$dir/whole.zst") / 2)) "$dir/whole.zst" >"$bad/truncated.txt.zst"
good_lines | zstd -q -c >"$bad/corrupt.txt.zst"
printf '\x00\x00\x00\x00\x00\x00\x00\x00' | dd of="$bad/corrupt.txt.zst" bs=1 seek=200 conv=notrunc status=none
good_lines | gzip -c >"$dir/whole.gz"
head -c $(($(stat -c %s "$dir/whole.gz") / 2)) "$dir/whole.gz" >"$bad/truncated.txt.gz"
good_lines | gzip -c >"$bad/corrupt.txt.gz"
printf 'XXXXXXXXXXXXXXXX' | dd of="$bad/corrupt.txt.gz" bs=1 seek=100 conv=notrunc status=none
good_lines | xz -c >"$dir/whole.xz"
head -c $(($(stat -c %s "$dir/whole.xz") / 2)) "$dir/whole.xz" >"$bad/truncated.txt.xz"
good_lines | xz -c >"$bad/corrupt.txt.xz"
printf 'XXXXXXXXXXXXXXXX' | dd of="$bad/corrupt.txt.xz" bs=1 seek=60 conv=notrunc status=none
good_lines | bzip2 -c >"$dir/whole.bz2"
head -c $(($(stat -c %s "$dir/whole.bz2") / 2)) "$dir/whole.bz2" >"$bad/truncated.txt.bz2"
good_lines | bzip2 -c >"$bad/corrupt.txt.bz2"
printf 'XXXXXXXXXXXXXXXX' | dd of="$bad/corrupt.txt.bz2" bs=1 seek=60 conv=notrunc status=none
echo "not zstd at all" >"$bad/misnamed.txt.zst"
echo "not xz at all" >"$bad/misnamed.txt.xz"
# A WET file whose second page's Content-Length says 9 bytes more than it holds.
wet_record() {  # TYPE BODY [LENGTH]
  printf 'WARC/1.0\r\nWARC-Type: %s\r\nContent-Length: %s\r\n\r\n%s\r\n\r\n' "$1" "${3:-${#2}}" "$2"
}
{ wet_record warcinfo "software: test"; wet_record conversion "$text"; wet_record conversion "$text" $((${#text} + 9))
  wet_record conversion "$text"; } | gzip -c >"$bad/lying-length.warc.wet.gz"
{ good_lines; printf 'caf\xc3 au lait\n'; good_lines; } >"$bad/invalid-utf8.txt"
{ good_lines; printf 'a\x00b\n'; } >"$bad/nul-byte.txt"
: >"$bad/empty.txt"
printf '{"text": "fine words"}\n{"text": "broken\n' >"$bad/malformed.jsonl"
printf '{"text": "fine words"}\n{"body": "no text field"}\n' >"$bad/missing-field.jsonl"
printf '{"text": "fine words"}\n{"text": 42}\n' >"$bad/non-string-field.jsonl"
printf '{"text": "caf\xc3 au lait"}\n' >"$bad/invalid-utf8.jsonl"
printf '{"text": "fine words"}\n{"text": "a\\u0000b"}\n' >"$bad/nul-escape.jsonl"
printf 'the 5\nfox 3\nthe 2\n' >"$bad/duplicate-vocab.txt"
printf 'the 5\nfox -3\n' >"$bad/bad-count-vocab.txt"
printf 'the 5\nfox\n' >"$bad/no-count-vocab.txt"
mkfifo "$bad/fifo.txt"
mkdir -p "$bad/not-a-store" && echo "some file" >"$bad/not-a-store/notes.txt"
"$future" "$bad/future-store" || { echo "FAIL: make_future_store"; exit 1; }
echo "secret words" >"$bad/unreadable.txt" && chmod 000 "$bad/unreadable.txt"
# 1 GB without a newline, on the fly (text8-style single lines up to 256 MiB are fine).
yes word | tr '\n' ' ' | head -c 1G >"$bad/one-gigabyte-line.txt"

tried=0 clear=0 unchanged=0 fail=0
expect_error() {  # expect_error NAME LOCATION-REGEX command...
  local name=$1 where=$2
  shift 2
  tried=$((tried + 1))
  "$@" >"$dir/out" 2>"$dir/err"
  local code=$?
  local err
  err=$(cat "$dir/err")
  if [ "$code" -ne 0 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -Eq -- "$where" "$dir/err"; then
    clear=$((clear + 1))
  else
    echo "FAIL: $name: exit $code, stderr: $err"; fail=1
  fi
  if [ "$(state)" == "$before" ] && "$bin" verify --store "$dir/store" >/dev/null 2>&1; then
    unchanged=$((unchanged + 1))
  else
    echo "FAIL: $name: the store changed"; fail=1
  fi
  echo "  $name: exit $code: $err"
}

ingest() { "$bin" ingest --store "$dir/store" "$dir/good" "$@" -q; }
for f in truncated.txt.zst corrupt.txt.zst truncated.txt.gz corrupt.txt.gz misnamed.txt.zst \
         truncated.txt.xz corrupt.txt.xz truncated.txt.bz2 corrupt.txt.bz2 misnamed.txt.xz lying-length.warc.wet.gz; do
  expect_error "$f" "$f: byte [0-9]+" ingest "$bad/$f"
done
for f in invalid-utf8.txt nul-byte.txt empty.txt malformed.jsonl missing-field.jsonl non-string-field.jsonl \
         invalid-utf8.jsonl nul-escape.jsonl one-gigabyte-line.txt; do
  expect_error "$f" "$f: byte [0-9]+" ingest "$bad/$f"
done
for f in duplicate-vocab.txt bad-count-vocab.txt no-count-vocab.txt; do
  expect_error "--vocab $f" "$f: line [0-9]+" \
    "$bin" ingest --store "$dir/new-store" "$dir/good" --vocab "$bad/$f" -q
done
[ -e "$dir/new-store" ] && { echo "FAIL: a store was created from a bad vocabulary"; fail=1; }
expect_error "a FIFO as an ingest input" "fifo.txt: .*regular file" ingest "$bad/fifo.txt"
# Refused inputs of a new store leave no store behind (nothing was committed).
for f in "$bad/fifo.txt" /dev/null; do
  expect_error "$f as the input of a new store" "$f: .*regular file" \
    "$bin" ingest --store "$dir/new-store" "$dir/good" "$f" -q
  [ -e "$dir/new-store" ] && { echo "FAIL: $f left a half-made store"; fail=1; rm -rf "$dir/new-store"; }
done
expect_error "a directory as the vocab output" "$bad/not-a-store" "$bin" vocab "$dir/good" -o "$bad/not-a-store" -q
expect_error "a directory that is not a store" "not-a-store" "$bin" stats --store "$bad/not-a-store"
expect_error "ingest into a directory that is not a store" "not-a-store" \
  "$bin" ingest --store "$bad/not-a-store" "$dir/good" -q
expect_error "a regular file as the store" "a.txt" "$bin" ingest --store "$dir/good/a.txt" "$dir/good" -q
expect_error "a store of a newer format version" "future-store: store format version [0-9]+ is newer" \
  "$bin" stats --store "$bad/future-store"
expect_error "a missing input" "missing.txt: No such file" ingest "$bad/missing.txt"
flock -o "$dir/store/LOCK.streamglove" sleep 30 &
holder=$!
sleep 0.3
expect_error "a second process on the store" "store.*in use by another process" \
  bash -c "'$bin' ingest --store '$dir/store' '$dir/good' -q; code=\$?; kill $holder; sleep 0.2; exit \$code"
if [ "$(id -u)" -ne 0 ]; then
  expect_error "an unreadable file" "unreadable.txt: Permission denied" ingest "$bad/unreadable.txt"
else
  echo "  an unreadable file: not tried (root reads any file)"
fi

# --skip-bad-records: the bad lines and records are skipped and counted.
"$bin" vocab "$bad/invalid-utf8.txt" "$bad/nul-byte.txt" "$bad/malformed.jsonl" "$bad/missing-field.jsonl" \
  "$bad/non-string-field.jsonl" "$bad/invalid-utf8.jsonl" "$bad/nul-escape.jsonl" -o "$dir/skipped-vocab.txt" \
  --skip-bad-records 2>"$dir/err"
if grep -q "skipped 7 bad records (the first: .*invalid-utf8.txt: byte [0-9]*: invalid UTF-8)" "$dir/err" \
   && grep -q "^the $((2 * (200 + 200 + 200)))$" "$dir/skipped-vocab.txt" \
   && [ "$(tr -cd '\000' <"$dir/skipped-vocab.txt" | wc -c)" -eq 0 ]; then
  echo "  --skip-bad-records: $(grep skipped "$dir/err")"
else
  echo "FAIL: --skip-bad-records: $(cat "$dir/err"); $(head -3 "$dir/skipped-vocab.txt")"; fail=1
fi
echo "bad inputs tried: $tried; clear one-line errors: $clear; store unchanged and verified: $unchanged"
exit $fail
