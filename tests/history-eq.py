#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The differential harness: seeded random histories of mount operations,
and after every step mntsnap's idea of what changed against the kernel's.

Each seed runs in a mount namespace of its own (unshare -m, / made
private: the host's mounts are never touched), under a tmpfs on a
temporary directory. One step is one mount(2) or umount2(2) call made
through ctypes (never mount(8), which may make two calls for one command
and let a poller see the state between them): tmpfs mounts with and
without options and attributes, binds of directories, subdirectories and
files (recursive or not), bind remounts and superblock remounts (some
changing nothing), propagation changes (shared, slave, private,
unbindable, recursive or not; a shared or slave tree makes one call
change many mounts), moves, stacked mounts, umounts and lazy umounts of
subtrees. A call the kernel refuses is a step too (nothing may change).

After every step:
 - the kernel's answer: /proc/self/mountinfo before and after. Mounts are
   paired by their /proc mount id. The kernel hands out the lowest free
   one, so ids are reused, but never within one call: a call that mounts
   frees nothing and a call that umounts allocates nothing (a refused
   call frees what it allocated before the table is read), so one id
   before and after the single call of a step is one mount. Added =
   ids only after, removed = ids only before, changed = the same id
   with a different line (every field of the line: parent, device,
   root, mount point, options, optional fields, type, source, super
   options);
 - `mntsnap save` after the step and `mntsnap diff -J` of the last two
   files (the CLI, the default mask): exit status, the counts and the
   added/removed/changed ids (the entries' /proc ids) equal the kernel's;
 - the library (tests/progs/history-lib.c, a co-process keeping its
   snapshots across steps, every field): mntsnap_diff() of successive
   captures, the same check; mntsnap_refresh() of a snapshot kept since
   the start equals the capture (mntsnap_diff finds nothing but the
   blind spots the header documents: a move that keeps the parent mount,
   a changed propagate_from alone) and returns the kernel's number of
   changes; an ids-only refresh has the capture's ids, the records it
   fetched this step equal the capture's, and returns added + removed.
Over the whole history, `mntsnap watch` (default, and --pollpri) and
`findmnt --poll` run at the same time with the same columns, raw, and
must print the same multiset of lines; each watch's --save file at the
end equals a fresh `mntsnap save` (mntsnap diff exit 0). findmnt pairs
mounts by (source, target): on a step where that confuses two mounts
(stacked or propagated onto each other) its lines are no oracle, and the
watchers' lines are compared with the step's changes paired by id,
rendered as findmnt renders them (a renderer checked against findmnt's
own lines on every other step). After each step
the harness waits until findmnt has printed what libmount's table diff
(modelled below) says it will, and the watchers as many lines, so that
no poller ever sees two steps at once.

On a mismatch it prints the seed, the step, the operation and both sides.

  history-eq.py MNTSNAP_BIN HISTORY_LIB [--seeds 1,2,3,4] [--steps 150]
                [--no-watch] [--verbose]
Longer runs by hand, e.g. 20 seeds of 200 steps:
  history-eq.py build/examples/mntsnap build/tests/history-lib \\
      --seeds 100-119 --steps 200
It ends with a totals line (seeds, steps, changing steps, mismatches)
and exits 1 on any mismatch, 77 (skip) without root, unshare or findmnt.
"""
import collections
import ctypes
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# util-linux's debug switches (LIBSMARTCOLS_DEBUG_PADDING prints padding
# as '.', LIBMOUNT_DEBUG, ...) are the libraries' debugging aids, not
# findmnt's interface (README: kept on purpose): never compared with them
for _k in list(os.environ):
    if _k.startswith('LIBSMARTCOLS_') or _k in (
            'LIBMOUNT_DEBUG', 'LIBBLKID_DEBUG', 'LOOPDEV_DEBUG', 'ULPATH_DEBUG', 'ULSYSFS_DEBUG',
            'ULPROCFS_DEBUG', 'ULFILEEQ_DEBUG', 'TERMINAL_COLORS_DEBUG'):
        del os.environ[_k]

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME = 32, 1024, 2048
MS_BIND, MS_MOVE, MS_REC = 4096, 8192, 16384
MS_UNBINDABLE, MS_PRIVATE, MS_SLAVE, MS_SHARED = 1 << 17, 1 << 18, 1 << 19, 1 << 20
MS_RELATIME, MS_STRICTATIME = 1 << 21, 1 << 24
MNT_DETACH = 2
FLAG_NAMES = [(MS_RDONLY, 'ro'), (MS_NOSUID, 'nosuid'), (MS_NODEV, 'nodev'),
              (MS_NOEXEC, 'noexec'), (MS_REMOUNT, 'remount'), (MS_NOATIME, 'noatime'),
              (MS_NODIRATIME, 'nodiratime'), (MS_BIND, 'bind'), (MS_MOVE, 'move'),
              (MS_REC, 'rec'), (MS_UNBINDABLE, 'unbindable'), (MS_PRIVATE, 'private'),
              (MS_SLAVE, 'slave'), (MS_SHARED, 'shared'), (MS_RELATIME, 'relatime'),
              (MS_STRICTATIME, 'strictatime')]
# mntsnap's MNTSNAP_CHANGE_* bits the refresh is documented blind to
CHANGE_MOUNT_POINT, CHANGE_PARENT, CHANGE_PROPAGATE_FROM = 1, 2, 1 << 7
COLS = 'ACTION,TARGET,SOURCE,FSTYPE,OPTIONS,OLD-TARGET,OLD-OPTIONS'
MAX_MOUNTS = 48  # above it, steps only take mounts away

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                       ctypes.c_char_p]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]


def b(s):
    return None if s is None else os.fsencode(s)


def sys_mount(src, tgt, fstype, flags, data):
    r = libc.mount(b(src), b(tgt), b(fstype), flags, b(data))
    return 0 if r == 0 else ctypes.get_errno()


def sys_umount(tgt, flags):
    return 0 if libc.umount2(b(tgt), flags) == 0 else ctypes.get_errno()


def flag_text(flags):
    return '|'.join(n for f, n in FLAG_NAMES if flags & f) or '0'


# ---- the kernel's text ----------------------------------------------------------

def unoct(s):
    """mountinfo's \\NNN escapes undone."""
    out, i = [], 0
    while i < len(s):
        if s[i] == '\\' and s[i + 1:i + 4].isdigit() and len(s[i + 1:i + 4]) == 3:
            out.append(chr(int(s[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(s[i])
            i += 1
    return ''.join(out)


def read_mountinfo():
    """{proc id: record} of /proc/self/mountinfo; record['line'] is the text."""
    with open('/proc/self/mountinfo', 'rb') as f:
        text = f.read().decode('utf-8', 'surrogateescape')
    tab = {}
    for line in text.splitlines():
        f = line.split(' ')
        sep = f.index('-', 6)
        tab[int(f[0])] = {'id': int(f[0]), 'parent': int(f[1]), 'root': unoct(f[3]),
                          'target': unoct(f[4]), 'vfs': f[5], 'opt': f[6:sep],
                          'fstype': f[sep + 1], 'source': unoct(f[sep + 2]),
                          'fso': f[sep + 3], 'line': line}
    return tab


def kernel_diff(old, new):
    """What the text says changed: sets of /proc ids (see the pairing above)."""
    return {'A': set(new) - set(old), 'R': set(old) - set(new),
            'C': {i for i in set(old) & set(new) if old[i]['line'] != new[i]['line']}}


def findmnt_model(old, new):
    """libmount's mnt_diff_tables() (util-linux 2.38, what findmnt --poll
    prints): mounts paired by (source, target), the first match in table
    order; a remount when either option string differs; a pair gone whose
    id and source show up as a new pair is a move. Only used to know how
    many lines findmnt will print for a step (to wait for them)."""
    if not old and not new:
        return []
    # the text's order (mounts by unique id, which /proc ids do not follow)
    o, n = list(old.values()), list(new.values())

    def pair(tab, fs):
        return next((x for x in tab if x['source'] == fs['source'] and
                     x['target'] == fs['target']), None)
    ch = []
    for fs in n:
        of = pair(o, fs)
        if of is None:
            ch.append(['mount', None, fs])
        elif of['vfs'] != fs['vfs'] or of['fso'] != fs['fso']:
            ch.append(['remount', of, fs])
    for fs in o:
        if pair(n, fs) is None:
            de = next((c for c in ch if c[0] == 'mount' and c[2]['id'] == fs['id'] and
                       c[2]['source'] == fs['source']), None)
            if de:
                de[0], de[1] = 'move', fs
            else:
                ch.append(['umount', fs, None])
    return ch


def id_model(old, new):
    """The same diff with mounts paired by id, as mntsnap watch pairs them
    (by unique id; within one step the /proc id is as good, see above)."""
    ch = []
    for i in sorted(set(new) - set(old)):
        ch.append(['mount', None, new[i]])
    for i in sorted(set(old) & set(new)):
        o, n = old[i], new[i]
        if o['target'] != n['target']:
            ch.append(['move', o, n])
        elif o['vfs'] != n['vfs'] or o['fso'] != n['fso']:
            ch.append(['remount', o, n])
    for i in sorted(set(old) - set(new)):
        ch.append(['umount', old[i], None])
    return ch


def raw_cell(text):
    """findmnt -r's escaping: blanks, backslashes and non-ASCII as \\xNN."""
    return ''.join('\\x%02x' % c if c <= 0x20 or c == 0x5c or c >= 0x7f else chr(c)
                   for c in os.fsencode(text))


def merged_options(r):
    """libmount's OPTIONS: the VFS options, then the super options but for
    rw/ro; "ro" first when either side is read-only."""
    vfs = r['vfs'].split(',')
    fso = r['fso'].split(',')
    if 'ro' in fso:
        vfs = ['ro' if o == 'rw' else o for o in vfs]
    return ','.join(vfs + [o for o in fso if o not in ('rw', 'ro')])


def render_line(change):
    """The line findmnt --poll -r -o COLS prints for one change, as libmount
    would with mounts paired by id (the oracle where its own pairing is
    confused; on every other step it must agree with findmnt's, and the
    harness checks that it does)."""
    action, o, n = change
    r = n or o
    src = r['source'] + ('[%s]' % r['root'] if r['root'] != '/' else '')
    return ' '.join(raw_cell(x) for x in (
        action, r['target'], src, r['fstype'], merged_options(r),
        o['target'] if action in ('move', 'umount') else '',
        merged_options(o) if action in ('remount', 'umount') else ''))


def findmnt_ambiguous(old, new, reread):
    """findmnt pairs mounts by (source, target): with two mounts of one
    source on one target (stacked, or propagated onto each other) it takes
    one for the other, and misses or invents changes, even on a read after
    a call that changed nothing. On such a step the changes paired by id
    are the oracle instead (counted)."""
    def key(ch):  # the old record matters too: OLD-OPTIONS come from it
        return sorted((c[0], c[1] and c[1]['id'], c[2] and c[2]['id']) for c in ch)
    return reread and key(findmnt_model(old, new)) != key(id_model(old, new))


# ---- the random history ---------------------------------------------------------

class History:
    def __init__(self, seed, base):
        self.rng = random.Random(seed)
        self.base = base
        self.n = 0

    def ours(self, tab):
        """Mounts at or below base, by /proc id."""
        return [r for r in tab.values()
                if r['target'] == self.base or r['target'].startswith(self.base + '/')]

    def dirs(self, tab):
        """Directories to mount on or bind: never base itself (a mount
        there would hide the whole history from later steps)."""
        out = []
        for r in self.ours(tab):
            for sub in ('', '/a', '/b', '/a/c', '/b/d'):
                p = r['target'] + sub
                if p != self.base and os.path.isdir(p) and not os.path.islink(p):
                    out.append(p)
        return sorted(set(out))

    def files(self, tab):
        out = [r['target'] + s for r in self.ours(tab) for s in ('/f', '/a/g')]
        return sorted(set(p for p in out if os.path.isfile(p)))

    def points(self, tab, with_base=False):
        """Mount points still reachable by path (a covering mount may hide one)."""
        return sorted(set(r['target'] for r in self.ours(tab)
                          if (with_base or r['target'] != self.base) and
                          os.path.lexists(r['target'])))

    def attrs(self):
        f = 0
        for bit in (MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC):
            if self.rng.random() < 0.25:
                f |= bit
        f |= self.rng.choice([0, 0, 0, MS_NOATIME, MS_STRICTATIME, MS_NODIRATIME])
        return f

    def tmpfs_data(self):
        return self.rng.choice([None, None, 'size=1m', 'size=%dk' % (self.rng.randint(1, 64) * 64),
                                'mode=700', 'nr_inodes=1000', 'size=2m,mode=755', 'mode=1777'])

    @staticmethod
    def populate(path):
        """Directories and files inside a new mount, for later steps."""
        for d in ('a', 'a/c', 'b', 'b/d'):
            try:
                os.mkdir(os.path.join(path, d))
            except OSError:
                pass
        for f in ('f', 'a/g'):
            try:
                open(os.path.join(path, f), 'a').close()
            except OSError:
                pass

    def current_flags(self, tab, target):
        """The VFS flags of the top mount at target, from its text."""
        top = max((r for r in self.ours(tab) if r['target'] == target), key=lambda r: r['id'])
        names = dict((n, f) for f, n in FLAG_NAMES)
        f = 0
        for o in top['vfs'].split(','):
            f |= names.get(o, 0)
        return f & ~MS_RELATIME, top

    def pick(self, tab):
        """One step: (description, function making the call)."""
        rng = self.rng
        self.last_prop = False
        ours = self.ours(tab)
        dirs, files, points = self.dirs(tab), self.files(tab), self.points(tab)
        kinds = ['tmpfs'] * 6 + ['bind'] * 5 + ['bindfile'] * 2 + ['stack'] * 2 + \
            ['bindremount'] * 3 + ['sbremount'] * 3 + ['noop'] * 2 + ['prop'] * 5 + \
            ['move'] * 3 + ['umount'] * 4 + ['lazy'] * 2
        if len(ours) > MAX_MOUNTS:
            kinds = ['umount', 'lazy', 'lazy']
        if not points:
            kinds = ['tmpfs', 'bind', 'prop']
        k = rng.choice(kinds)
        if k in ('tmpfs', 'stack'):
            tgt = rng.choice(points if k == 'stack' and rng.random() < 0.7 else dirs)
            self.n += 1
            src, data, fl = 't%d' % self.n, self.tmpfs_data(), self.attrs()
            if rng.random() < 0.3:
                data = None
                fl = 0

            def do():
                e = sys_mount(src, tgt, 'tmpfs', fl, data)
                if not e and not fl & MS_RDONLY:
                    self.populate(tgt)
                return e
            return 'mount -t tmpfs %s %s -o %s,%s' % (src, tgt, flag_text(fl), data), do
        if k == 'bind' or (k == 'bindfile' and not files):
            src, tgt = rng.choice(dirs), rng.choice(dirs)
            fl = MS_BIND | (MS_REC if rng.random() < 0.4 else 0)
            return 'mount %s %s %s' % (flag_text(fl), src, tgt), \
                lambda: sys_mount(src, tgt, None, fl, None)
        if k == 'bindfile':
            src, tgt = rng.choice(files), rng.choice(files)
            return 'mount --bind %s %s (file)' % (src, tgt), \
                lambda: sys_mount(src, tgt, None, MS_BIND, None)
        if k in ('bindremount', 'sbremount', 'noop'):
            tgt = rng.choice(points)
            cur, top = self.current_flags(tab, tgt)
            if k == 'noop':
                # the same flags again; for a superblock remount the same
                # option text too: nothing may change
                fl = cur
                if rng.random() < 0.5:
                    fl |= MS_BIND
                    data = None
                else:
                    data = ','.join(o for o in top['fso'].split(',') if o not in ('rw', 'ro'))
                    if top['fstype'] != 'tmpfs':
                        fl |= MS_BIND
                        data = None
                    elif 'ro' in top['fso'].split(','):
                        fl |= MS_RDONLY
                    else:
                        fl &= ~MS_RDONLY
            elif k == 'bindremount':
                fl, data = MS_BIND | self.attrs(), None
            else:
                fl = self.attrs()
                data = self.tmpfs_data() if top['fstype'] == 'tmpfs' else None
            fl |= MS_REMOUNT
            return 'mount -o remount %s %s data=%s (%s)' % (flag_text(fl), tgt, data, k), \
                lambda: sys_mount(None, tgt, None, fl, data)
        if k == 'prop':
            tgt = rng.choice(self.points(tab, with_base=True))
            fl = rng.choice([MS_SHARED] * 3 + [MS_SLAVE] * 2 + [MS_PRIVATE, MS_UNBINDABLE])
            if rng.random() < 0.4:
                fl |= MS_REC
            self.last_prop = True
            return 'mount --make-%s %s' % (flag_text(fl), tgt), \
                lambda: sys_mount(None, tgt, None, fl, None)
        if k == 'move':
            src, tgt = rng.choice(points), rng.choice(dirs)
            return 'mount --move %s %s' % (src, tgt), \
                lambda: sys_mount(src, tgt, None, MS_MOVE, None)
        tgt = rng.choice(points)
        fl = MNT_DETACH if k == 'lazy' else 0
        return 'umount %s%s' % ('-l ' if fl else '', tgt), lambda: sys_umount(tgt, fl)


# ---- pollers --------------------------------------------------------------------

class Poller:
    """A process printing one line per change; lines kept with the step
    they arrived in."""

    def __init__(self, name, argv):
        self.name = name
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines = []
        self.step = 0
        self.lock = threading.Lock()
        self.t = threading.Thread(target=self.read, daemon=True)
        self.t.start()

    def read(self):
        for raw in self.proc.stdout:
            with self.lock:
                self.lines.append((self.step, raw.decode('utf-8', 'surrogateescape')
                                   .rstrip('\n')))

    def count(self):
        with self.lock:
            return len(self.lines)

    def set_step(self, i):
        with self.lock:
            self.step = i

    def has_fd(self, what):
        try:
            for fd in os.listdir('/proc/%d/fd' % self.proc.pid):
                try:
                    if what in os.readlink('/proc/%d/fd/%s' % (self.proc.pid, fd)):
                        return True
                except OSError:
                    pass
        except OSError:
            pass
        return False

    def stop(self, sig):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.t.join(5)
        return rc, self.proc.stderr.read().decode(errors='replace')


def wait_until(cond, limit):
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end:
            return False
        time.sleep(0.002)
    return True


# ---- one seed -----------------------------------------------------------------

class Run:
    def __init__(self, binary, helper, seed, steps, watch, verbose):
        self.binary, self.helper = binary, helper
        self.seed, self.steps, self.watch, self.verbose = seed, steps, watch, verbose
        self.mismatches = 0
        self.changing = 0
        self.blind = collections.Counter()
        self.ops = {}
        self.ambiguous = set()  # steps whose lines are not compared
        self.bad_steps = set()
        self.by_id = {}  # step -> the lines of its changes paired by id
        self.kinds = collections.Counter()
        self.notes = 0

    def fail(self, step, what, kernel, mntsnap):
        self.mismatches += 1
        self.bad_steps.add(step)
        # the comparison, for the totals: what comes before the first ':'
        # or ' against', without the details after it
        self.kinds[what.split(':')[0].split(' against')[0].split(' exit')[0]] += 1
        print('MISMATCH seed %d step %d: %s\n  op: %s\n  kernel/findmnt: %s\n  mntsnap: %s' %
              (self.seed, step, what, self.ops.get(step, '-'), kernel, mntsnap), flush=True)

    def cli(self, *args):
        r = subprocess.run([self.binary] + list(args), capture_output=True)
        return r.returncode, r.stdout.decode('utf-8', 'surrogateescape'), \
            r.stderr.decode(errors='replace')

    @staticmethod
    def show(tab, ids):
        return sorted(tab[i]['line'] for i in ids if i in tab)

    def check_sets(self, step, who, k, got, old, new):
        for kind in 'ARC':
            if k[kind] != got[kind]:
                ka, ga = k[kind] - got[kind], got[kind] - k[kind]
                self.fail(step, '%s: %s ids differ' % (who, {'A': 'added', 'R': 'removed',
                                                          'C': 'changed'}[kind]),
                          'only the kernel: %s %s' % (sorted(ka), self.show(
                              new if kind != 'R' else old, ka) + (
                              self.show(old, ka) if kind == 'C' else [])),
                          'only mntsnap: %s %s' % (sorted(ga), self.show(
                              new if kind != 'R' else old, ga) + (
                              self.show(old, ga) if kind == 'C' else [])))

    def check_cli(self, step, k, old, new, prev_file, file):
        rc, out, err = self.cli('save', file)
        if rc:
            self.fail(step, 'mntsnap save exit %d' % rc, '', err)
            return False
        rc, out, err = self.cli('diff', '-J', prev_file, file)
        want = 1 if any(k.values()) else 0
        if rc != want:
            self.fail(step, 'mntsnap diff exit status', want, '%d %s' % (rc, err.strip()))
        if rc > 1:
            return True
        d = json.loads(out)
        got = {'A': set(), 'R': set(), 'C': set()}
        for e in d['entries']:
            kind = {'added': 'A', 'removed': 'R', 'changed': 'C'}[e['kind']]
            got[kind].add((e.get('new') or e.get('old'))['id'])
        counts = (d['added'], d['removed'], d['changed'])
        if counts != tuple(len(got[x]) for x in 'ARC'):
            self.fail(step, 'mntsnap diff -J counts against its entries', '', counts)
        self.check_sets(step, 'mntsnap diff (CLI)', k, got, old, new)
        return True

    def check_lib(self, step, k, old, new, res):
        if 'error' in res:
            self.fail(step, 'history-lib: %s' % res['error'], '', res)
            return
        got = {'A': set(), 'R': set(), 'C': set()}
        for kind, i, bits in res['diff']:
            got[kind].add(i)
        self.check_sets(step, 'mntsnap_diff (library)', k, got, old, new)
        nk = sum(len(v) for v in k.values())
        # checked refresh: nothing left but the documented blind spots
        left = res['refresh']['left']
        bad = []
        for kind, i, bits in left:
            if kind == 'C' and bits == CHANGE_PROPAGATE_FROM:
                self.blind['refresh: propagate_from alone'] += 1
            elif kind == 'C' and bits == CHANGE_MOUNT_POINT:
                self.blind['refresh: mount point, same parent'] += 1
            else:
                bad.append([kind, i, bits])
        if bad:
            self.fail(step, 'mntsnap_refresh() against a capture: diff entries [kind, id, '
                      'change bits]', 'equal', '%s\n    %s' % (bad, self.show(new, [
                          x[1] for x in bad])))
        elif not left and res['refresh']['ret'] != nk:
            self.fail(step, 'mntsnap_refresh() return value', nk, res['refresh']['ret'])
        # ids-only: the id set, and the records it fetched, are the capture's
        ids = res['idsonly']
        bad = [x for x in ids['left'] if x[0] != 'C' or x[1] in k['A']]
        if bad:
            self.fail(step, 'ids-only refresh against a capture', 'no added/removed entry, '
                      'no changed entry for a mount new in this step', bad)
        if ids['ret'] != len(k['A']) + len(k['R']):
            self.fail(step, 'ids-only refresh return value', len(k['A']) + len(k['R']),
                      ids['ret'])

    def start_pollers(self, tmp):
        fm = Poller('findmnt --poll', ['findmnt', '--poll', '-r', '-n', '-o', COLS])
        ws = [Poller('mntsnap watch', [self.binary, 'watch', '-n', '-o', COLS, '--save',
                                       os.path.join(tmp, 'watch.snap')]),
              Poller('mntsnap watch --pollpri', [self.binary, 'watch', '--pollpri', '-n', '-o',
                                                 COLS, '--save',
                                                 os.path.join(tmp, 'watch-pollpri.snap')])]
        pollers = [fm] + ws
        ok = wait_until(lambda: fm.has_fd('mountinfo') and
                        all(w.has_fd('eventpoll') for w in ws), 10)
        time.sleep(0.3)  # findmnt's first read of the table: nothing shows it
        # a mount and its umount every poller must print: all are ready
        probe = os.path.join(self.base, 'probe')
        os.mkdir(probe)
        for op in (lambda: sys_mount('probe', probe, 'tmpfs', 0, None),
                   lambda: sys_umount(probe, 0)):
            n = [p.count() for p in pollers]
            op()
            ok = ok and all(wait_until(lambda: p.count() > c, 5) for p, c in zip(pollers, n))
        os.rmdir(probe)
        if not ok:
            for p in pollers:
                print('%s: %s' % (p.name, p.stop(signal.SIGTERM)))
            raise RuntimeError('the pollers never got ready')
        return fm, ws

    def sync_pollers(self, fm, ws, before, old, new, reread):
        """After a step: findmnt has printed what libmount's diff makes (2 s
        at most), and each watcher the changes by id (1 s at most)."""
        expect = len(findmnt_model(old, new)) if reread else 0
        by_id = len(id_model(old, new))
        if expect and not wait_until(lambda: fm.count() >= before[0] + expect, 2):
            self.note('findmnt printed %d lines, libmount\'s diff makes %d' % (
                fm.count() - before[0], expect))
        for w, c in zip(ws, before[1:]):
            if by_id and not wait_until(lambda: w.count() >= c + by_id, 1):
                self.note('%s printed %d lines, %d mounts changed' % (w.name, w.count() - c,
                                                                       by_id))

    def note(self, text):
        self.notes += 1
        if self.verbose:
            print('note: %s' % text, flush=True)

    def run(self):
        tmp = tempfile.mkdtemp(prefix='mntsnap-hist-')
        self.base = os.path.join(tmp, 'h')
        os.mkdir(self.base)
        sys_mount(None, '/', None, MS_REC | MS_PRIVATE, None)
        e = sys_mount('hroot', self.base, 'tmpfs', 0, None)
        if e:
            raise RuntimeError('mount %s: %s' % (self.base, os.strerror(e)))
        for d in ('d0', 'd1', 'd2', 'd3', 'a', 'b'):
            os.mkdir(os.path.join(self.base, d))
        History.populate(self.base)
        hist = History(self.seed, self.base)
        helper = subprocess.Popen([self.helper], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True)
        pollers = None
        try:
            if self.watch:
                pollers = self.start_pollers(tmp)
            ready = json.loads(helper.stdout.readline())
            if 'error' in ready:
                raise RuntimeError('history-lib: %s' % ready['error'])
            self.steps_run(hist, helper, pollers, tmp)
        finally:
            helper.stdin.close()
            helper.wait()
            if pollers:
                self.end_pollers(pollers, tmp)
            sys_umount(self.base, MNT_DETACH)
            shutil.rmtree(tmp, ignore_errors=True)

    def steps_run(self, hist, helper, pollers, tmp):
        old = read_mountinfo()
        files = [os.path.join(tmp, 's0.snap'), os.path.join(tmp, 's1.snap')]
        self.cli('save', files[0])
        for step in range(1, self.steps + 1):
            desc, do = hist.pick(old)
            if pollers:
                before = [p.count() for p in [pollers[0]] + pollers[1]]
                for p in [pollers[0]] + pollers[1]:
                    p.set_step(step)
            e = do()
            self.ops[step] = desc + (' -> %s' % os.strerror(e) if e else '')
            new = read_mountinfo()
            k = kernel_diff(old, new)
            if any(k.values()):
                self.changing += 1
            if self.verbose:
                print('step %d: %s: +%d -%d ~%d' % (step, self.ops[step], len(k['A']),
                                                   len(k['R']), len(k['C'])), flush=True)
            self.check_cli(step, k, old, new, files[(step - 1) % 2], files[step % 2])
            helper.stdin.write('step\n')
            helper.stdin.flush()
            self.check_lib(step, k, old, new, json.loads(helper.stdout.readline()))
            if pollers:
                # every call that succeeds but a propagation change makes
                # the kernel signal the namespace's mountinfo (POLLPRI), and
                # findmnt reads the table again
                reread = not e and not hist.last_prop
                if findmnt_ambiguous(old, new, reread):
                    self.ambiguous.add(step)
                self.by_id[step] = [render_line(c) for c in id_model(old, new)]
                self.sync_pollers(pollers[0], pollers[1], before, old, new, reread)
                if self.verbose:
                    for c in findmnt_model(old, new) if reread else []:
                        print('  libmount: %s %s' % (c[0], (c[2] or c[1])['line']))
                    for c in id_model(old, new):
                        print('  by id: %s %s' % (c[0], (c[2] or c[1])['line']))
                    for p in [pollers[0]] + pollers[1]:
                        with p.lock:
                            got = [l for st, l in p.lines if st == step]
                        print('  %s: %s' % (p.name, got))
            old = new

    def end_pollers(self, pollers, tmp):
        fm, ws = pollers
        time.sleep(0.3)  # a settle sweep still due
        rc, err = fm.stop(signal.SIGTERM)
        fml = collections.Counter(l for s, l in fm.lines if s not in self.ambiguous)
        # the renderer of the changes by id against findmnt where findmnt
        # is not confused: a harness error if they differ
        for step, lines in self.by_id.items():
            if step in self.ambiguous:
                continue
            got = collections.Counter(l for s, l in fm.lines if s == step)
            if got != collections.Counter(lines):
                self.note('step %d: findmnt %s, by id %s' % (step, sorted(got.elements()),
                                                             sorted(lines)))
        where = collections.defaultdict(list)
        for s, l in fm.lines:
            if s not in self.ambiguous:
                where[l].append(s)
        rc, out, err = self.cli('save', os.path.join(tmp, 'fresh.snap'))
        for w, snap in zip(ws, ('watch.snap', 'watch-pollpri.snap')):
            # saved, the watch dies of the signal (a clean end)
            rc, err = w.stop(signal.SIGINT)
            if rc != -signal.SIGINT:
                self.fail(self.steps, '%s exit %d' % (w.name, rc), 0, err)
            wl = collections.Counter(l for s, l in w.lines if s not in self.ambiguous)
            wwhere = collections.defaultdict(list)
            for s, l in w.lines:
                if s not in self.ambiguous:
                    wwhere[l].append(s)
            for line in sorted(set(fml) | set(wl)):
                if fml[line] != wl[line]:
                    steps = sorted(set(where[line] + wwhere[line]))
                    self.fail(steps[0], '%s vs findmnt --poll: a line %d times against %d '
                              '(steps %s)' % (w.name, wl[line], fml[line], steps),
                              '%dx %r' % (fml[line], line), '%dx %r' % (wl[line], line))
            # where findmnt is confused, the changes by id are the oracle
            for step in sorted(self.ambiguous):
                want = collections.Counter(self.by_id.get(step, []))
                got = collections.Counter(l for s, l in w.lines if s == step)
                if want != got:
                    self.fail(step, '%s vs the changes by id (findmnt ambiguous here)' % w.name,
                              sorted((want - got).elements()), sorted((got - want).elements()))
            rc, out, err = self.cli('diff', os.path.join(tmp, snap),
                                    os.path.join(tmp, 'fresh.snap'))
            if rc:
                self.fail(self.steps, '%s --save against a fresh save (exit %d)' % (w.name, rc),
                          'equal', out + err)


def inner(args):
    binary, helper, seed, steps, watch, verbose = args
    r = Run(binary, helper, int(seed), int(steps), watch == '1', verbose == '1')
    r.run()
    print(json.dumps({'seed': r.seed, 'steps': r.steps, 'changing': r.changing,
                      'mismatches': r.mismatches, 'blind': r.blind,
                      'ambiguous': len(r.ambiguous), 'notes': r.notes,
                      'bad_steps': len(r.bad_steps), 'kinds': r.kinds}))
    return 0


def seeds_of(text):
    out = []
    for part in text.split(','):
        lo, _, hi = part.partition('-')
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def main():
    # the pollers are stopped by SIGINT/SIGTERM: one this test inherited
    # ignored (a runner started in the background) would stay ignored in
    # them, as it does in findmnt; a handler here is the default there
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) == signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)
    if len(sys.argv) > 1 and sys.argv[1] == '--inner':
        return inner(sys.argv[2:])
    args = sys.argv[1:]
    opts = {'--seeds': '1,2,3,4', '--steps': '150'}
    flags = set()
    pos = []
    while args:
        a = args.pop(0)
        if a in opts:
            opts[a] = args.pop(0)
        elif a in ('--no-watch', '--verbose'):
            flags.add(a)
        else:
            pos.append(a)
    binary, helper = (os.path.abspath(p) for p in pos)
    if os.geteuid() != 0 or not shutil.which('unshare') or not shutil.which('findmnt'):
        print('SKIP: needs root, unshare(1) and findmnt(8)')
        return 77
    tot = collections.Counter()
    blind = collections.Counter()
    kinds = collections.Counter()
    t0 = time.monotonic()
    for seed in seeds_of(opts['--seeds']):
        # a namespace per seed: every history starts from the same table
        r = subprocess.run(['unshare', '-m', '--propagation', 'private', sys.executable,
                            os.path.abspath(__file__), '--inner', binary, helper, str(seed),
                            opts['--steps'], '0' if '--no-watch' in flags else '1',
                            '1' if '--verbose' in flags else '0'],
                           stdout=subprocess.PIPE, text=True, errors='surrogateescape')
        out = r.stdout.rstrip('\n').split('\n')
        try:
            res = json.loads(out[-1])
        except ValueError:
            print('\n'.join(out))
            print('seed %d: the run broke off (exit %d)' % (seed, r.returncode))
            tot['mismatches'] += 1
            continue
        print('\n'.join(out[:-1]) if len(out) > 1 else '', end='\n' if len(out) > 1 else '')
        print('seed %d: %d steps, %d changing, %d mismatches in %d steps (%d steps ambiguous '
              'for findmnt, %d harness notes)' % (seed, res['steps'], res['changing'],
                                                res['mismatches'], res['bad_steps'],
                                                res['ambiguous'], res['notes']), flush=True)
        tot['seeds'] += 1
        for k in ('steps', 'changing', 'mismatches', 'ambiguous', 'notes', 'bad_steps'):
            tot[k] += res[k]
        blind.update(res['blind'])
        kinds.update(res['kinds'])
    for k, v in sorted(blind.items()):
        print('documented blind spot, %s: %d' % (k, v))
    for k, v in sorted(kinds.items()):
        print('mismatches, %s: %d' % (k, v))
    print('totals: %d seeds, %d steps, %d changing steps, %d mismatches in %d steps; %d steps '
          'ambiguous for findmnt, %d harness notes (%.0f s)' % (
              tot['seeds'], tot['steps'], tot['changing'], tot['mismatches'], tot['bad_steps'],
              tot['ambiguous'], tot['notes'], time.monotonic() - t0))
    return 1 if tot['mismatches'] else 0


if __name__ == '__main__':
    sys.exit(main())
