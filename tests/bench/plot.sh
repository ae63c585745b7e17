#!/bin/sh
# SPDX-License-Identifier: MIT
# Chart of a bench-mounts CSV: time per mount against N, one line per
# method, one panel per setup (log-log: the `peers` text is O(N x peers)).
#   tests/bench/plot.sh bench.csv bench.png
set -eu
csv=${1:?usage: plot.sh FILE.csv FILE.png}
png=${2:?usage: plot.sh FILE.csv FILE.png}
[ -r "$csv" ] || { echo "plot.sh: cannot read $csv" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not installed" >&2; exit 1; }

methods="read-mountinfo libmount-parse mntsnap-mountinfo bare-floor bare-floor+pf bare-floor-t2 mntsnap-capture mntsnap-capture-kpf mntsnap-capture-t2"
cores=$(awk -F, 'NR == 2 { print $8 }' "$csv")

panel() { # setup title
	printf 'set title "%s"\n' "$2"
	printf 'plot '
	sep=
	for m in $methods; do
		# only methods measured in this setup get a line
		if awk -F, -v s="$1" -v m="$m" '$1 == s && $4 == m && $7 == "ok" { f = 1 } END { exit !f }' "$csv"; then
			printf '%s"< awk -F, '\''$1 == \\"%s\\" && $4 == \\"%s\\" && $7 == \\"ok\\"'\'' %s" using 2:6 with linespoints title "%s"' \
				"$sep" "$1" "$m" "$csv" "$m"
			sep=', '
		fi
	done
	printf '\n'
}

{
	printf 'set terminal pngcairo size 1400,600 font ",10"\n'
	printf 'set output "%s"\n' "$png"
	printf 'set datafile separator ","\n'
	printf 'set logscale xy\n'
	printf 'set xlabel "mounts (N bind mounts)"\n'
	printf 'set ylabel "ns per mount (best of K)"\n'
	printf 'set key top left font ",9"\n'
	printf 'set grid\n'
	printf 'set offsets graph 0.05, graph 0.05, 0, 0\n'
	printf 'set multiplot layout 1,2 title "mntsnap bench-mounts (%s cores)"\n' "$cores"
	panel plain "plain: N bind mounts"
	panel peers "peers: N slaves of one peer group, read from the slave namespace"
	printf 'unset multiplot\n'
} | gnuplot
echo "plot.sh: wrote $png"
