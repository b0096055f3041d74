# Sourced by the shell tests, first thing (`. "$(dirname "$0")/../lib.sh"
# NAME`, the path relative to the test): strict mode, a private directory
# $dir (under $TMPDIR, named after NAME) removed on exit, and fail(), which
# ends the test with one line.
set -euo pipefail
dir=$(mktemp -d "${TMPDIR:-/tmp}/sg-$1.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

# The MD5 of `$bin dump --store STORE ARGS...`, which must exit 0 and print
# something: stores compared by their digests are not equal merely because
# both dumps failed or came out empty. Call it as an assignment
# (x=$(dump_digest ...)), so that a failure ends the test.
dump_digest() {
  local store=$1
  shift
  local out
  out=$(mktemp "$dir/dump.XXXXXX")
  "$bin" dump --store "$store" "$@" >"$out" || fail "dump --store $store $*: exit $?"
  [ -s "$out" ] || fail "dump --store $store $*: empty"
  md5sum <"$out" | cut -d' ' -f1
  rm -f "$out"
}

# expect_one_line CODE PATTERN command...: exits CODE with one stderr line matching PATTERN.
expect_one_line() {
  local code=$1 pattern=$2
  shift 2
  local got=0
  "$@" 2>"$dir/err" >/dev/null || got=$?
  [ "$got" -eq "$code" ] || fail "$*: exit $got, not $code: $(cat "$dir/err")"
  [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "$*: not one line: $(cat "$dir/err")"
  grep -q -- "$pattern" "$dir/err" || fail "$*: no '$pattern' in: $(cat "$dir/err")"
}
