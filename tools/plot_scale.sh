#!/usr/bin/env bash
# Plots tools/bench_scale.sh's results for the generated corpora: wall time
# per stage against corpus size, and peak RSS per stage against corpus size
# (with the 1.1 GiB line the --memory 1G promise allows).
#
#   tools/plot_scale.sh RESULTS.tsv OUT_DIR    -> OUT_DIR/scale-time.png, OUT_DIR/scale-rss.png
set -euo pipefail
results=$1
out=$2
mkdir -p "$out"
data=$(mktemp -d "${TMPDIR:-/tmp}/sg-plot.XXXXXX")
trap 'rm -rf "$data"' EXIT
# One file per stage: "GB seconds rss_mib", generated corpora only, by size.
for stage in generate vocab ingest train eval; do
  awk -F'\t' -v s="$stage" '$1 ~ /^gen-/ && $3 == s {print $2, $4, $5}' "$results" | sort -g >"$data/$stage.dat"
done
gnuplot <<EOF
set terminal pngcairo size 900,560 font "sans,11"
set datafile separator " "
set logscale xy
set grid
set key top left
set xlabel "generated corpus (GB of raw text)"
set output "$out/scale-time.png"
set title "streamglove wall time per stage (--memory 1G, 2 cores)"
set ylabel "seconds"
plot for [s in "generate vocab ingest train eval"] "$data/".s.".dat" using 1:2 with linespoints lw 2 title s, \
     "$data/ingest.dat" using 1:(\$1 * 100) with lines dt 2 lc "gray" title "linear (100 s per GB)"
set output "$out/scale-rss.png"
set title "streamglove peak RSS per stage (--memory 1G)"
set ylabel "peak RSS (MiB)"
unset logscale y
set yrange [0:1300]
plot for [s in "generate vocab ingest train eval"] "$data/".s.".dat" using 1:3 with linespoints lw 2 title s, \
     1126.4 with lines dt 2 lc "red" title "1.1 GiB"
EOF
echo "wrote $out/scale-time.png $out/scale-rss.png"
