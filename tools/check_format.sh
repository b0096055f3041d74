#!/usr/bin/env bash
# The C++ sources follow .clang-format (Google style, 100 columns): lists
# every file clang-format would change and exits 1 if there is one. With
# --fix, reformats them in place instead.
#
#   tools/check_format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=$(command -v clang-format || true)
[ -n "$formatter" ] || { echo "SKIP: no clang-format (tools/setup.sh installs it)"; exit 77; }
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "SKIP: not a git checkout"; exit 77; }
# Tracked sources and the new ones git does not ignore.
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cc' '*.h' | sort -u)
if [ "${1:-}" = --fix ]; then
  "$formatter" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! "$formatter" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (tools/check_format.sh --fix)"
    bad=1
  fi
done
[ $bad = 0 ] && echo "format: ${#files[@]} files as .clang-format says"
exit $bad
