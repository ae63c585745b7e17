#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The start-up cost per container (doc/benchmark-notes.md, "Start-up cost per
# container"):
# bench-startup with the runtime's state dir on tmpfs and on ext4 (a loop
# device), inside a private mount namespace so nothing shows on the host.
# Writes tests/bench/results-startup-2cores.txt and that page's table.
#   tests/bench/startup.sh [BUILD_DIR] [N]        (root)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
N=${2:-400}
if [ -z "${MNTSNAP_STARTUP_INNER:-}" ]; then
	MNTSNAP_STARTUP_INNER=1 exec unshare -m --propagation private "$0" "$@"
fi
BIN=$BUILD/tests/bench/bench-startup
[ -x "$BIN" ] || { echo "startup.sh: build $BIN first" >&2; exit 2; }
D=$(mktemp -d /tmp/mntsnap-startup.XXXXXX)
LOOP=
cleanup() {
	umount "$D/ext4" 2>/dev/null || true
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
	umount "$D/tmpfs" 2>/dev/null || true
	rm -rf "$D"
}
trap cleanup EXIT
mkdir -p "$D/tmpfs" "$D/ext4"
mount -t tmpfs -o size=64m tmpfs "$D/tmpfs"
truncate -s 128M "$D/ext4.img"
mkfs.ext4 -q -F "$D/ext4.img"
LOOP=$(losetup -f --show "$D/ext4.img")
mount "$LOOP" "$D/ext4"

OUT=tests/bench/results-startup-2cores.txt
{
	echo "# tests/bench/startup.sh $BUILD $N on $(uname -r), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
	"$BIN" "$D/tmpfs" "$N" tmpfs
	"$BIN" "$D/ext4" "$N" ext4
} >"$OUT"
cat "$OUT"

# doc/benchmark-notes.md's table, between its markers, from those numbers.
python3 - "$OUT" doc/benchmark-notes.md <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith('#') or not line.strip():
        continue
    fs, what, med, p90 = line.split('\t')
    rows[(fs, what)] = (float(med), float(p90))
head = open(sys.argv[1]).readline().lstrip('# ').strip()
order = [('capture', 'capture of the own namespace'),
         ('handover', 'handover: save_fd into a pipe + load_fd (the parent)'),
         ('save-sync', 'save to the state dir, fsync'),
         ('save-no-sync', 'save, MNTSNAP_SAVE_NO_SYNC'),
         ('total-sync', '**per container: capture + handover + save, fsync**'),
         ('total-no-sync', '**per container: capture + handover + save, no fsync**')]
out = ['<!-- startup-bench begin: written by tests/bench/startup.sh -->',
       '| step (median / p90, us) | state dir on tmpfs | on ext4 (loop device) |',
       '|---|---|---|']
for key, name in order:
    t, e = rows[('tmpfs', key)], rows[('ext4', key)]
    out.append('| %s | %.0f / %.0f | %.0f / %.0f |' % (name, t[0], t[1], e[0], e[1]))
out.append('')
out.append('Measured by `%s`.' % head)
out.append('<!-- startup-bench end -->')
text = open(sys.argv[2]).read()
a = text.index('<!-- startup-bench begin')
b = text.index('<!-- startup-bench end -->') + len('<!-- startup-bench end -->')
open(sys.argv[2], 'w').write(text[:a] + '\n'.join(out) + text[b:])
PY
