#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""findmnt (util-linux) as the oracle for the library's tree and for the
CLI's lookups:

 - the library's MNTSNAP_FORMAT_TREE (tests/progs/render) is byte for byte
   findmnt's default tree and `mntsnap list`'s, header, alignment and
   sibling order included: on every collected mountinfo file (findmnt -F)
   and on a live table of a private mount namespace with stacked,
   covered, file-bind and oddly named mounts;
 - `mntsnap list` (live) and `mntsnap show SNAPSHOT` (the same table
   saved, looked up by its text) print what findmnt prints for -T, -M, -S
   and -R with each of them, for every mount point and source of that
   table and for paths below them (a path missing here: show walks the
   saved text as findmnt walks the nearest existing directory above it,
   findmnt and list find nothing); and `mntsnap list -F FILE` what
   `findmnt -F FILE` prints for -M and -S on every collected file.

  lookup-findmnt.py MNTSNAP_BIN RENDER_BIN DATA_DIR
Prints each difference and "N passed, N failed".
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

# util-linux's debug switches (LIBSMARTCOLS_DEBUG_PADDING prints padding
# as '.', LIBMOUNT_DEBUG, ...) are the libraries' debugging aids, not
# findmnt's interface (README: kept on purpose): never compared with them
for _k in list(os.environ):
    if _k.startswith('LIBSMARTCOLS_') or _k in (
            'LIBMOUNT_DEBUG', 'LIBBLKID_DEBUG', 'LOOPDEV_DEBUG', 'ULPATH_DEBUG', 'ULSYSFS_DEBUG',
            'ULPROCFS_DEBUG', 'ULFILEEQ_DEBUG', 'TERMINAL_COLORS_DEBUG'):
        del os.environ[_k]
ENV = dict(os.environ, LC_ALL='C.UTF-8')
# files whose findmnt output differs from mntsnap's for known reasons
# (tests/findmnt-eq.py's KNOWN list says why): option text order, a raw
# space in super options
SKIP_TREE = {'util-linux-mountinfo_btrfs.txt', 'moby-spaces.txt', 'moby-fedora.txt'}


class Tally:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, ok, why=''):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print('FAIL %s\n  %s' % (name, why.replace('\n', '\n  ')[:1500]))


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, env=ENV)
    return r.returncode, r.stdout


def same(t, name, a, b):
    ra, oa = run(a)
    rb, ob = run(b)
    t.check(name, ra == rb and oa == ob,
            'exit %d/%d\nfindmnt:\n%s\nmntsnap:\n%s' % (ra, rb, oa.decode(errors='replace'),
                                                       ob.decode(errors='replace')))


def table_of(fm_cmd):
    """Mount points and sources findmnt lists for a table."""
    r, out = run(fm_cmd + ['-J', '-l', '-o', 'TARGET,SOURCE'])
    recs = json.loads(out.decode('utf-8', 'surrogateescape'))['filesystems'] if r == 0 else []
    return sorted({x['target'] for x in recs if x['target']}), \
        sorted({x['source'] for x in recs if x['source'] and '[' not in x['source']})


def library_copy(path):
    """The library keeps the kernel's "/dev/root" source as written, where
    findmnt names the device behind it (its device number's block device,
    else the kernel command line's root=): what findmnt prints then depends
    on the machine's devices (a loop device's partition can be 259:3). The
    library's tree is compared on a copy whose "/dev/root" sources carry
    another name; the CLI, which renames as findmnt does, reads the file
    itself."""
    with open(path, 'rb') as f:
        text = f.read()
    renamed = text.replace(b' /dev/root ', b' /dev/rootfs ')
    if renamed == text:
        return path
    fd, copy = tempfile.mkstemp(prefix='mntsnap-lkfm-', suffix='.txt')
    with os.fdopen(fd, 'wb') as f:
        f.write(renamed)
    return copy


def files(t, ms, render, data):
    for f in sorted(os.listdir(data)):
        if not f.endswith('.txt'):
            continue
        path = os.path.join(data, f)
        if f not in SKIP_TREE:
            lib_path = library_copy(path)
            same(t, '%s: tree (library)' % f, ['findmnt', '-F', lib_path],
                 [render, 'tree', lib_path])
            if lib_path != path:
                os.unlink(lib_path)
            same(t, '%s: tree (list)' % f, ['findmnt', '-F', path], [ms, 'list', '-F', path])
        targets, sources = table_of(['findmnt', '-F', path])
        cols = ['-o', 'ID,PARENT,TARGET,SOURCE']
        for mp in targets[:40]:
            same(t, '%s: -M %s' % (f, mp), ['findmnt', '-F', path, '-M', mp] + cols,
                 [ms, 'list', '-F', path, '-M', mp] + cols)
        for src in sources[:20]:
            same(t, '%s: -S %s' % (f, src), ['findmnt', '-F', path, '-S', src] + cols,
                 [ms, 'list', '-F', path, '-S', src] + cols)


LIVE = r'''
set -e
cd "$1"
mount -t tmpfs lkf-base .
mkdir -p s a/b f t/u 'sp ace' 'ÿ' "$(printf 'ff\377')" deep/1/2/3
for i in 1 2 3; do mount -t tmpfs "lkf-s$i" s; done
mkdir -p s/in
mount -t tmpfs lkf-hidden a/b
mkdir -p a/b/under
mount -t tmpfs lkf-cover a
mkdir -p a/b/c
mount -t tmpfs lkf-over a/b
mkdir -p a/b/c
echo x > f/file
touch target
mount --bind f/file target
mount -t tmpfs lkf-t t/u
mkdir -p t/u/w
mount -t tmpfs lkf-w t/u/w
mkdir -p rb
mount --rbind t rb
mount -t tmpfs 'lkf sp' 'sp ace'
mount -t tmpfs lkf-y 'ÿ'
mount -t tmpfs lkf-ff "$(printf 'ff\377')"
mount -t tmpfs lkf-d deep/1
mkdir -p deep/1/2/3
mount -t tmpfs lkf-d deep/1/2/3
'''


def live_inner(ms, render, base):
    t = Tally()
    with open(os.path.join(base, 'live.sh'), 'w') as f:
        f.write(LIVE)
    d = os.path.join(base, 'mnt')
    os.mkdir(d)
    r = subprocess.run(['sh', os.path.join(base, 'live.sh'), d], capture_output=True)
    if r.returncode:
        print('FAIL live setup: %s' % r.stderr.decode(errors='replace'))
        print(json.dumps({'passed': 0, 'failed': 1}))
        return 0
    snap = os.path.join(base, 'snap')
    for backend in ('statmount', 'mountinfo'):
        same(t, 'live tree (library, %s)' % backend, ['findmnt'], [render, 'tree'])
        same(t, 'live tree (list %s)' % backend, ['findmnt'],
             [ms, 'list', '--backend', backend])
    subprocess.run([ms, 'save', snap], check=True)
    targets, sources = table_of(['findmnt'])
    cols = ['-o', 'ID,PARENT,TARGET,SOURCE']
    mine = [p for p in targets if p.startswith(d)] + ['/', '/proc', '/tmp']
    paths = mine + [os.path.join(p, 'x', 'y') for p in mine] + [
        os.path.join(d, p) for p in ('s/in', 'a/b/c', 'a/b/under', 't/u/w', 'rb/u/w',
                                     'deep/1/2', 'deep/1/2/3/4', 'target', 'f/file')]
    srcs = [s for s in sources if s.startswith('lkf')]
    lookups = [['-T', p] for p in paths if os.path.exists(p)] + [['-M', p] for p in paths] + \
        [['-S', s] for s in srcs]
    for lk in lookups + [['-R'] + x for x in lookups]:
        same(t, 'live list %s' % ' '.join(lk), ['findmnt'] + lk + cols, [ms, 'list'] + lk + cols)
        same(t, 'saved show %s' % ' '.join(lk), ['findmnt'] + lk + cols,
             [ms, 'show', snap] + lk + cols)
    missing(t, ms, snap, paths, targets, cols)
    print(json.dumps({'passed': t.passed, 'failed': t.failed}))
    return 0


def missing(t, ms, snap, paths, targets, cols):
    """-T PATH where PATH is no mount point and not on this file system
    (the mounts here are made under a directory covered since): findmnt
    finds nothing (libmount's mnt_table_find_mountpoint() stats PATH before
    it walks the text up), and list with it; show walks the saved text
    alone, up to the longest mount point PATH starts with, component by
    component: findmnt -M of that mount point (README: kept on purpose)."""
    for p in paths:
        if os.path.lexists(p) or p in targets:
            continue
        mp = max((x for x in targets if x == '/' or p.startswith(x + '/')), key=len)
        for r in ([], ['-R']):
            lk = r + ['-T', p] + cols
            ra, oa = run(['findmnt'] + lk)
            t.check('missing: findmnt %s finds nothing' % ' '.join(lk), ra == 1 and not oa,
                    'exit %d %r' % (ra, oa))
            same(t, 'missing: live list %s' % ' '.join(lk), ['findmnt'] + lk, [ms, 'list'] + lk)
            same(t, 'missing: saved show %s' % ' '.join(lk), ['findmnt'] + r + ['-M', mp] + cols,
                 [ms, 'show', snap] + lk)


def main():
    if sys.argv[1] == '--live':
        return live_inner(*sys.argv[2:5])
    ms, render, data = (os.path.abspath(x) for x in sys.argv[1:4])
    if not shutil.which('findmnt'):
        print('findmnt missing: nothing to compare against')
        return 77
    t = Tally()
    files(t, ms, render, data)
    if os.geteuid() != 0 or not shutil.which('unshare'):
        print('SKIP live tables: needs root and unshare(1)')
    else:
        with tempfile.TemporaryDirectory(prefix='mntsnap-lkfm-') as base:
            r = subprocess.run(['unshare', '-m', '--propagation', 'private', sys.executable,
                                os.path.abspath(__file__), '--live', ms, render, base],
                               capture_output=True, text=True, errors='surrogateescape')
            out = r.stdout.rstrip('\n').split('\n')
            try:
                res = json.loads(out[-1])
                if len(out) > 1:
                    print('\n'.join(out[:-1]))
                t.passed += res['passed']
                t.failed += res['failed']
            except ValueError:
                t.check('live', False, r.stdout + r.stderr)
    print('\n%d passed, %d failed' % (t.passed, t.failed))
    return 1 if t.failed else 0


if __name__ == '__main__':
    sys.exit(main())
