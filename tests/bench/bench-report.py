#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run the benchmarks in tests/bench and write their own output into a
Markdown page (doc/benchmarks.md), with the machine the run had in the
header: date, kernel, CPU model, cores and the load average at start and
end. Every figure is what a benchmark printed. Nothing here is typed in by
hand or recomputed.

  bench-report.py --build BUILD --out FILE [--quick]

--quick runs each benchmark at its smoke-test size (seconds, for CI's
benchmark step); without it, the sizes in RUNS below (minutes). Needs
root: the benchmarks build their mounts in private mount namespaces.
Exits non-zero when a benchmark fails or a ratio reads both ways
("0.55x faster").
"""
import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import time

# (program, what it measures, full-size arguments, quick arguments)
RUNS = [
    ('bench-mounts',
     'Reading a whole mount table: the kernel\'s mountinfo text, libmount, bare '
     'listmount/statmount loops, mntsnap\'s capture, lookups, renderers and the CLI '
     'against findmnt. Best of K rounds.',
     ['--n', '1000,10000', '--peers-n', '1000,4000', '--opts-n', '1000,10000', '--k', '3'],
     ['--quick']),
    ('bench-refresh',
     'mntsnap_refresh() after one change compared with a full capture, and the size '
     'of a snapshot file compared with the mountinfo text (N mounts, rounds).',
     ['10000', '15'], ['200', '3']),
    ('bench-fields',
     'Per-mount cost of the field table\'s users: capture, views, diff, wire save '
     'and load (N mounts, rounds).',
     ['10000', '5'], ['200', '2']),
    ('bench-ns',
     'Reading another mount namespace: directly by fd or id, or by entering it with '
     'the helper; with a large resident caller and a threaded one.',
     [], ['--quick']),
    ('bench-watch',
     'Keeping a table current: the watcher\'s CPU per mount/umount event compared '
     'with findmnt --poll, the CLI\'s list --poll compared with findmnt --poll, and an '
     'ids-only refresh compared with a bare listmount.',
     ['1000', '10000'], ['--quick']),
    ('bench-supervisor',
     'The mount supervisor\'s added latency on an allowed tmpfs mount compared with '
     'the same mount made directly with CAP_SYS_ADMIN.',
     [], ['--quick']),
]

# a ratio whose direction only its reader's guess gives
AMBIGUOUS = re.compile(r'\b\d+(\.\d+)?x (faster|slower)\b(?! than)|\b0\.\d+x (faster|slower)')


def loadavg():
    with open('/proc/loadavg') as f:
        return ' '.join(f.read().split()[:3])


def cpu_model():
    with open('/proc/cpuinfo') as f:
        for ln in f:
            if ln.startswith('model name'):
                return ln.split(':', 1)[1].strip()
    return platform.processor() or 'unknown'


def run(build, name, args, env):
    exe = os.path.join(build, 'tests', 'bench', name)
    t0 = time.monotonic()
    r = subprocess.run([exe] + args, capture_output=True, text=True, env=env)
    return r, time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--quick', action='store_true')
    a = ap.parse_args()
    env = dict(os.environ)
    cli = os.path.join(a.build, 'examples', 'mntsnap')
    if os.path.exists(cli):
        env.setdefault('MNTSNAP_BIN', os.path.abspath(cli))

    start = datetime.datetime.now(datetime.timezone.utc)
    load0 = loadavg()
    sections, fails = [], []
    for name, what, full, quick in RUNS:
        args = quick if a.quick else full
        r, secs = run(a.build, name, args, env)
        out = r.stdout.rstrip('\n')
        cmd = ' '.join(['build/tests/bench/' + name] + args)
        if r.returncode:
            fails.append('%s exited %d: %s' % (name, r.returncode, r.stderr.strip()[-2000:]))
        for ln in out.splitlines():
            if AMBIGUOUS.search(ln):
                fails.append('%s prints a ratio that reads both ways: %s' % (name, ln.strip()))
        sections.append('## %s\n\n%s\n\n`%s` (%.0f s, exit %d):\n\n```\n%s\n```\n' %
                        (name, what, cmd, secs, r.returncode, out))
        print('%s: %.0f s, exit %d' % (name, secs, r.returncode), flush=True)
    load1 = loadavg()
    uts = os.uname()
    head = [
        '# Benchmarks',
        '',
        'Written by `tests/bench/bench-report.py` from the benchmarks\' own output;',
        'nothing on this page is typed by hand. Regenerate it (as root, after',
        '`ninja -C build`; it runs for several minutes, so the docs check shows',
        'it and does not run it) with:',
        '',
        '```sh no-run',
        'python3 tests/bench/bench-report.py --build build --out doc/benchmarks.md',
        '```',
        '',
        '| | |',
        '|---|---|',
        '| date | %s |' % start.strftime('%Y-%m-%d %H:%M UTC'),
        '| kernel | %s %s |' % (uts.sysname, uts.release),
        '| CPU | %s |' % cpu_model(),
        '| cores | %d online |' % os.cpu_count(),
        '| load average (1, 5, 15 min) | %s at start, %s at end |' % (load0, load1),
        '| sizes | %s |' % ('smoke test (--quick): numbers for checking the page, not the code'
                            if a.quick else 'as each command line below says'),
        '',
        'A load average near or above the number of cores means other work shared the',
        'CPUs during the run: absolute times then move more than ratios do, since each',
        'benchmark interleaves the methods it compares. Every ratio says in words which',
        'side is faster (or smaller); a goal in brackets is the project\'s target for',
        'that ratio, and `MISSED` means this run did not reach it.',
        '',
    ]
    with open(a.out + '.tmp', 'w') as f:
        f.write('\n'.join(head) + '\n' + '\n'.join(sections))
    os.replace(a.out + '.tmp', a.out)
    for m in fails:
        print('FAIL: ' + m)
    print('wrote %s' % a.out)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
