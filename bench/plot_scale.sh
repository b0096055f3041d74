#!/usr/bin/env bash
# Plots bench/scale.sh's results for the generated corpora: wall time
# per stage against corpus size, and peak RSS per stage against corpus size
# (with the 1.1 GiB line the --memory 1G promise allows); prints the results
# as a Markdown table for docs/benchmarks.md.
#
#   bench/plot_scale.sh RESULTS.tsv OUT_DIR    -> OUT_DIR/scale-time.png, OUT_DIR/scale-rss.png
. "$(dirname "$0")/lib.sh"
results=$1
out=$2
command -v gnuplot >/dev/null || sg_skip "no gnuplot (tools/setup.sh installs gnuplot-nox)"
mkdir -p "$out"
sg_scratch plot
data=$work
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
echo "wrote $out/scale-time.png $out/scale-rss.png" >&2
awk -F'\t' 'BEGIN {
    print "| corpus | stage | wall (s) | s per GB | peak RSS (MiB) | throughput | result |"
    print "|---|---|---:|---:|---:|---|---|" }
  NR == 1 { next }
  { tp = "" }
  $3 == "generate" || $3 == "vocab" { tp = sprintf("%.1f MB/s", $6 / $4 / 1e6) }
  $3 == "ingest" { tp = sprintf("%.1f MB/s, %.2f M tokens/s; %.1f M pairs, %.2f bytes/pair on disk", $6 / $4 / 1e6,
                                $7 / $4 / 1e6, $8 / 1e6, $9 / $8) }
  $3 == "train" { split($10, e, " "); tp = sprintf("%.2f M pairs/s (%d x %.1f M pairs)", e[1] * $8 / $4 / 1e6, e[1], $8 / 1e6) }
  { per_gb = ($3 == "eval") ? "" : sprintf("%.0f", $4 / $2)
    note = ($11 == "-") ? "" : " (" $11 ")"
    printf "| %s | %s | %.1f | %s | %s | %s | %s%s |\n", $1, $3, $4, per_gb, $5, tp, ($10 == "-" ? "" : $10), note }' "$results"
