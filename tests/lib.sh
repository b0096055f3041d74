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
