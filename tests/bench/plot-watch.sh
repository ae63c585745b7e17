#!/bin/sh
# SPDX-License-Identifier: MIT
# Chart of a bench-watch output: CPU per mount-table change against the
# table size, for the watcher's event path, its settle sweep and
# findmnt --poll (log-log).
#   tests/bench/plot-watch.sh results.txt chart.png
set -eu
txt=${1:?usage: plot-watch.sh FILE.txt FILE.png}
png=${2:?usage: plot-watch.sh FILE.txt FILE.png}
command -v gnuplot >/dev/null || { echo "plot-watch.sh: gnuplot not installed" >&2; exit 1; }
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
# N, watcher us/event, settle sweep us, findmnt us/event (NaN if not run)
awk '$2 == "mounts" {
	w = s = "NaN"; f = "NaN"
	for (i = 1; i <= NF; i++) {
		if ($i == "watcher") w = $(i + 1)
		if ($i == "sweep") s = $(i + 1) * 1000
		if ($i == "--poll" && $(i + 1) != "not") f = $(i + 1)
	}
	print $1, w, s, f
}' "$txt" >"$dat"
gnuplot <<GP
set terminal pngcairo size 900,550 font ",10"
set output "$png"
set logscale xy
set xlabel "mounts in the namespace"
set ylabel "CPU us per change"
set key bottom right
set grid
set xrange [700:70000]
set title "Keeping a mount table current (bench-watch)"
plot "$dat" using 1:4 with linespoints title "findmnt --poll (per change)", \
     "$dat" using 1:3 with linespoints title "watcher settle sweep (at most 1 per 100 ms)", \
     "$dat" using 1:2 with linespoints title "watcher, per attach/detach event"
GP
echo "plot-watch.sh: wrote $png"
