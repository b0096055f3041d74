#!/usr/bin/env bash
# Samples the size of DIR every INTERVAL seconds until killed, keeping the
# largest in OUT (bytes). Starts from OUT's value when it exists, so a
# benchmark that resumes an interrupted stage keeps the peak seen before.
#
#   bench/disk_peak.sh DIR OUT [INTERVAL]   (run it in the background; kill it after)
set -uo pipefail
dir=$1 out=$2 interval=${3:-0.5}
peak=$(cat "$out" 2>/dev/null || echo 0)
while :; do
  size=$(du -sb "$dir" 2>/dev/null | cut -f1)
  if [ "${size:-0}" -gt "$peak" ]; then
    peak=$size
    echo "$peak" >"$out"
  fi
  sleep "$interval"
done
