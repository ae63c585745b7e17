#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One version everywhere: meson's project version is the one the header's
MNTSNAP_VERSION_MAJOR/MINOR/PATCH spell, the one mntsnap_version()
returns, the first line of `mntsnap --version`, and the newest entry of
NEWS.md. `mntsnap --version`'s second line names exactly the optional
libraries this build has (+) and lacks (-).

  check-version.py VERSION --probe PROG --header mntsnap.h --news NEWS.md
                   [--cli MNTSNAP --features libseccomp=1,libcap=0,json-c=1]
"""
import argparse
import re
import subprocess
import sys


def header_version(path):
    text = open(path, encoding='utf-8').read()
    parts = []
    for k in ('MAJOR', 'MINOR', 'PATCH'):
        m = re.search(r'^#define MNTSNAP_VERSION_%s (\d+)$' % k, text, re.M)
        parts.append(m.group(1) if m else '?')
    return '.'.join(parts)


def news_version(path):
    # the newest entry is the first "## X.Y.Z" heading
    m = re.search(r'^## (\d+\.\d+\.\d+)\b', open(path, encoding='utf-8').read(), re.M)
    return m.group(1) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('version')
    ap.add_argument('--probe', required=True)
    ap.add_argument('--header', required=True)
    ap.add_argument('--news', required=True)
    ap.add_argument('--cli')
    ap.add_argument('--features', default='')
    a = ap.parse_args()
    fails = []

    have = header_version(a.header)
    if have != a.version:
        fails.append('mntsnap.h says %s, meson.build %s' % (have, a.version))
    out = subprocess.run([a.probe], capture_output=True, text=True, check=True).stdout
    got = dict(ln.split(' ', 1) for ln in out.splitlines())
    if got.get('library') != a.version:
        fails.append('mntsnap_version() returns %r, meson.build says %s' % (got.get('library'),
                                                                           a.version))
    if got.get('header') != a.version:
        fails.append('the probe was compiled with header %r' % got.get('header'))
    news = news_version(a.news)
    if news != a.version:
        fails.append('NEWS.md: newest entry %r, meson.build says %s' % (news, a.version))

    if a.cli:
        r = subprocess.run([a.cli, '--version'], capture_output=True, text=True)
        lines = r.stdout.splitlines()
        want = ['mntsnap ' + a.version,
                'features: ' + ' '.join(('+' if on == '1' else '-') + name for name, on in
                                        (f.split('=') for f in a.features.split(',') if f))]
        if r.returncode or lines != want:
            fails.append('mntsnap --version printed %r (exit %d), expected %r' %
                         (r.stdout, r.returncode, '\n'.join(want) + '\n'))

    for f in fails:
        print('FAIL: ' + f)
    if not fails:
        print('version %s: header, mntsnap_version(), NEWS.md%s agree' %
              (a.version, ', mntsnap --version' if a.cli else ''))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
