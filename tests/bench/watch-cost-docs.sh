#!/bin/sh
# SPDX-License-Identifier: MIT
# The watch's cost per isolated change, from a run, into the docs: runs
# `bench-watch --isolated 1000 10000` (or reads a saved output), keeps the
# output in tests/bench/results-watch-isolated-2cores.txt, and rewrites the
# marked lines of `mntsnap watch --help` (examples/mntsnap/cmd-watch.c) and
# the marked table of doc/benchmark-notes.md. Numbers are never typed.
#   tests/bench/watch-cost-docs.sh BUILD_DIR            (as root: runs it)
#   tests/bench/watch-cost-docs.sh --from RESULTS.txt   (a saved run)
set -eu
cd "$(dirname "$0")/../.."
out=tests/bench/results-watch-isolated-2cores.txt
if [ "${1:-}" = --from ]; then
	src=${2:?usage: watch-cost-docs.sh --from RESULTS.txt}
	[ "$src" = "$out" ] || cp "$src" "$out"
else
	build=${1:?usage: watch-cost-docs.sh BUILD_DIR | --from RESULTS.txt}
	"$build/tests/bench/bench-watch" --isolated 1000 10000 >"$out.new"
	mv "$out.new" "$out"
fi
python3 - "$out" <<'PY'
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*(\d+) mounts \| isolated change: default\s+([\d.]+) ms .*"
                 r"--no-settle\s+([\d.]+) us \| settle sweep alone\s+([\d.]+) ms \| "
                 r"mountinfo text read\s+([\d.]+) ms, read \+ parsed\s+([\d.]+) ms", line)
    if m:
        rows[int(m[1])] = [float(x) for x in m.groups()[1:]]
if 1000 not in rows or 10000 not in rows:
    sys.exit("watch-cost-docs.sh: no 1000 and 10000 rows in " + sys.argv[1])
a, b = rows[1000], rows[10000]
def ms(v):
    return f"{v:.2g} ms" if v < 10 else f"{v:.0f} ms"
# --help: two lines, each at most 79 columns
help_lines = [
    f"change: default {ms(a[0])} at 1,000 mounts, {ms(b[0])} at 10,000",
    f"(event + sweep); --no-settle {a[1]:.0f} us, {b[1]:.0f} us (tests/bench)",
]
c = open("examples/mntsnap/cmd-watch.c").read()
body = "".join('    "               %s\\n"\n' % l for l in help_lines)
c2 = re.sub(r"(    /\* watch-cost: [^\n]*\*/\n).*?(    /\* end watch-cost \*/)",
            lambda m: m[1] + body + m[2], c, flags=re.S)
if c2 == c and body not in c:
    sys.exit("watch-cost-docs.sh: no watch-cost markers in cmd-watch.c")
open("examples/mntsnap/cmd-watch.c", "w").write(c2)
table = (
    "| one isolated change, CPU (`tests/bench/results-watch-isolated-2cores.txt`) "
    "| N = 1,000 | 10,000 |\n|---|---|---|\n"
    f"| default: the event, then the settle sweep it arms | {a[0]:.2f} ms | {b[0]:.2f} ms |\n"
    f"| `--no-settle`: the event alone | {a[1]:.1f} us | {b[1]:.1f} us |\n"
    f"| the settle sweep alone | {a[2]:.2f} ms | {b[2]:.2f} ms |\n"
    f"| candidate: read the mountinfo text whole | {a[3]:.2f} ms | {b[3]:.2f} ms |\n"
    f"| candidate: read and parse it (nothing compared yet) | {a[4]:.2f} ms | {b[4]:.2f} ms |\n")
r = open("doc/benchmark-notes.md").read()
r2 = re.sub(r"(<!-- watch-cost: [^\n]*-->\n).*?(<!-- end watch-cost -->)",
            lambda m: m[1] + table + m[2], r, flags=re.S)
if r2 == r and table not in r:
    sys.exit("watch-cost-docs.sh: no watch-cost markers in doc/benchmark-notes.md")
open("doc/benchmark-notes.md", "w").write(r2)
print("watch-cost-docs.sh: wrote --help and doc/benchmark-notes.md from " + sys.argv[1])
PY
