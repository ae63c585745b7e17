#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""findmnt (util-linux) is the oracle for every column name mntsnap shares
with it: the same mount table and the same -o columns must give the same
values in JSON (flat and nested), list, raw, pairs and tree form, and
(compare_ordered) the same bytes in every form, sibling order included:
findmnt orders a mount's children by their 32-bit mount ID, which the
kernel reuses after an umount, the list forms keep the kernel's order.

Inputs: the mountinfo files in DATA_DIR (collected from util-linux's,
moby's and systemd's test suites and a few of our own; see README there),
read by `findmnt -F FILE` and `mntsnap list -F FILE`, and live tables of a
private mount namespace (made with unshare(1), mounts with awkward names
inside, and rounds of mounts and umounts that make the kernel reuse mount
IDs), read by both programs in that namespace, through both of mntsnap's
backends, and by -N PID of a process in another mount namespace.

  findmnt-eq.py MNTSNAP_BIN DATA_DIR
Prints a column-by-column table and "N passed, N failed".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

COLUMNS = ['TARGET', 'SOURCE', 'FSTYPE', 'OPTIONS', 'VFS-OPTIONS', 'FS-OPTIONS',
           'OPT-FIELDS', 'FSROOT', 'MAJ:MIN', 'ID', 'PARENT', 'PROPAGATION', 'TID',
           'FREQ', 'PASSNO']
COLS = ','.join(COLUMNS)
FORMS = {
    'json-flat': ['-J', '-l'],
    'json-tree': ['-J'],
    'list': ['-l'],
    'raw': ['-r'],
    'pairs': ['-P'],
    'tree': [],
    'tree-ascii': ['-a'],
}
# `list -F FILE --format mountinfo` gives FILE back byte for byte, except:
ROUNDTRIP_KNOWN = {
    # a raw backslash in a source is written back as \134, as the kernel
    # escapes it (the text's own form is not kept for strings)
    'mntsnap-escapes.txt': 'raw backslash written as \\134',
    # two spaces where the optional fields go: no field there (libmount
    # reads none either), written back with one
    'mntsnap-empty-optional.txt': 'an empty optional field is not kept',
}
# files mntsnap's parser refuses today, with why; compared once accepted
REFUSED_TODAY = {
}
# Known differences, each with its reason: counted as "differ" in the
# column table, and left out of that input's whole-output comparisons.
KNOWN = {
    # an old cifs wrote its UNC with a raw space; libmount stops the
    # super options at that space, mntsnap's parser keeps the rest
    ('moby-spaces.txt', 'OPTIONS'): 'raw space in super options',
    ('moby-spaces.txt', 'FS-OPTIONS'): 'raw space in super options',
    # the same cifs line (and id 31 listed twice, which both accept)
    ('moby-fedora.txt', 'OPTIONS'): 'raw space in super options',
    ('moby-fedora.txt', 'FS-OPTIONS'): 'raw space in super options',
}


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, env=env)
    return r.returncode, r.stdout, r.stderr


def jload(b):
    # findmnt writes invalid UTF-8 bytes raw, mntsnap as \udcHH: both
    # decode to the same Python string this way
    return json.loads(b.decode('utf-8', 'surrogateescape'))


def flat(tree, depth=0, parent=None, out=None):
    """JSON records with their nesting: (depth, parent's id, record)."""
    out = [] if out is None else out
    for fs in tree:
        kids = fs.pop('children', [])
        out.append((depth, parent, fs))
        flat(kids, depth + 1, fs.get('id'), out)
    return out


def key(rec):
    return json.dumps(rec, sort_keys=True, ensure_ascii=False)


ART = re.compile(r'^((?:\u2502 |  |\| )*)(\u251c\u2500|\u2514\u2500|\|-|`-)')


def untree(text):
    """Tree lines without the art's choice of last sibling: (depth, rest)."""
    out = []
    for line in text.split('\n'):
        m = ART.match(line)
        if m:
            out.append((len(m.group(0)) // 2, line[m.end():]))
        else:
            out.append((0, line))
    return sorted(out)


def lines(b):
    t = b.decode('utf-8', 'surrogateescape').split('\n')
    return t[0], sorted(t[1:])


def compare_form(form, a, b):
    """a: findmnt's output, b: mntsnap's; '' if equal, else what differs."""
    if form == 'json-flat':
        fa = sorted(key(r) for r in jload(a)['filesystems'])
        fb = sorted(key(r) for r in jload(b)['filesystems'])
    elif form == 'json-tree':
        fa = sorted(key([d, p, r]) for d, p, r in flat(jload(a)['filesystems']))
        fb = sorted(key([d, p, r]) for d, p, r in flat(jload(b)['filesystems']))
    elif form.startswith('tree'):
        fa = untree(a.decode('utf-8', 'surrogateescape'))
        fb = untree(b.decode('utf-8', 'surrogateescape'))
    else:
        fa, fb = lines(a), lines(b)
    if fa == fb:
        return ''
    sa, sb = (set(map(str, fa)), set(map(str, fb))) if isinstance(fa, list) else (
        {str(fa)}, {str(fb)})
    return 'findmnt only: %s\nmntsnap only: %s' % (sorted(sa - sb)[:3], sorted(sb - sa)[:3])


def per_column(a, b):
    """Per column: equal on this input? From the flat JSON of each."""
    ra = sorted(jload(a)['filesystems'], key=lambda r: (r.get('id') or 0, key(r)))
    rb = sorted(jload(b)['filesystems'], key=lambda r: (r.get('id') or 0, key(r)))
    res = {}
    for c in COLUMNS:
        k = c.lower()
        va = [r.get(k) for r in ra]
        vb = [r.get(k) for r in rb]
        res[c] = (va == vb, next(((x, y) for x, y in zip(va, vb) if x != y), None))
    return res


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.cols = {c: [0, 0, None] for c in COLUMNS}

    def check(self, name, ok, why=''):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print('FAIL %s\n  %s' % (name, why.replace('\n', '\n  ')))


def short(s, n=400):
    return s if len(s) <= n else s[:n] + '...'


def compare_input(t, name, fm_cmd, ms_cmd, env=None, lookups=()):
    cols = ','.join(c for c in COLUMNS if (name, c) not in KNOWN)
    ra, a, _ = run(fm_cmd + ['-J', '-l', '-o', COLS], env)
    rb, b, _ = run(ms_cmd + ['-J', '-l', '-o', COLS], env)
    if ra == 0 and rb == 0:
        for c, (ok, ex) in per_column(a, b).items():
            t.cols[c][0 if ok else 1] += 1
            if not ok and not t.cols[c][2]:
                t.cols[c][2] = '%s: findmnt %r, mntsnap %r%s' % (
                    name, ex[0], ex[1], ' (known: %s)' % KNOWN[name, c] if (name, c) in KNOWN
                    else '')
            if not ok and (name, c) not in KNOWN:
                t.check('%s column %s' % (name, c), False, short('%r' % (ex,)))
    for form, args in FORMS.items():
        ra, a, ea = run(fm_cmd + args + ['-o', cols], env)
        rb, b, eb = run(ms_cmd + args + ['-o', cols], env)
        if ra != 0 or rb != 0:
            t.check('%s %s' % (name, form), ra == rb,
                    'exit findmnt %d mntsnap %d: %s' % (ra, rb, eb.decode(errors='replace')))
            continue
        why = compare_form(form, a, b)
        t.check('%s %s' % (name, form), not why, short(why))
    # a non-UTF-8 locale: every byte >= 0x80 escaped, the tree in ASCII
    cenv = dict(env or os.environ, LC_ALL='C')
    for form in ('tree', 'list'):
        ra, a, _ = run(fm_cmd + FORMS[form] + ['-o', cols], cenv)
        rb, b, _ = run(ms_cmd + FORMS[form] + ['-o', cols], cenv)
        why = compare_form(form, a, b) if ra == rb == 0 else 'exit %d/%d' % (ra, rb)
        t.check('%s %s LC_ALL=C' % (name, form), not why, short(why))
    # headings off, in every form that has them
    for form in ('list', 'raw', 'tree'):
        ra, a, _ = run(fm_cmd + FORMS[form] + ['-n', '-o', cols], env)
        rb, b, _ = run(ms_cmd + FORMS[form] + ['-n', '-o', cols], env)
        why = compare_form(form, b'H\n' + a, b'H\n' + b) if ra == rb == 0 else 'exit'
        t.check('%s %s -n' % (name, form), not why, short(why))
    # a filter both understand, with findmnt's exit status for "nothing";
    # lookups (-T PATH, a SOURCE or MOUNTPOINT argument) print a list
    for flt in [['-t', 'tmpfs,proc'], ['-t', 'notmpfs'], ['-O', 'ro'], ['-O', 'noexec,nosuid'],
                ['-t', 'nonexistentfs-x', '-l']] + list(lookups):
        ra, a, _ = run(fm_cmd + flt + ['-l', '-o', cols], env)
        rb, b, _ = run(ms_cmd + flt + ['-l', '-o', cols], env)
        t.check('%s %s' % (name, ' '.join(flt)), ra == rb and lines(a) == lines(b),
                short('exit %d/%d\n%s' % (ra, rb, compare_form('list', a, b))))
        # the tree of what a filter keeps: under the nearest kept ancestor
        ra, a, _ = run(fm_cmd + flt + ['-o', cols], env)
        rb, b, _ = run(ms_cmd + flt + ['-o', cols], env)
        # findmnt's tree exits 0 when nothing matched (its list: 1);
        # mntsnap says 1 in every form, by design
        same_exit = ra == rb or (ra == 0 and rb == 1 and not a and not b)
        t.check('%s %s tree' % (name, ' '.join(flt)), same_exit and untree(
            a.decode('utf-8', 'surrogateescape')) == untree(b.decode('utf-8', 'surrogateescape')),
            short('exit %d/%d\n%s' % (ra, rb, compare_form('tree', a, b))))


def exact(form, a, b):
    """'' when findmnt's output a and mntsnap's b are the same, order and
    all: bytes for the text forms, the parsed documents for JSON (findmnt
    indents, mntsnap writes a record a line)."""
    if form.startswith('json'):
        same = jload(a) == jload(b)
    else:
        same = a == b
    if same:
        return ''
    ta = a.decode('utf-8', 'surrogateescape').split('\n')
    tb = b.decode('utf-8', 'surrogateescape').split('\n')
    at = next((i for i, (x, y) in enumerate(zip(ta, tb)) if x != y), min(len(ta), len(tb)))
    return 'first difference at line %d:\nfindmnt %r\nmntsnap %r' % (
        at, ta[at] if at < len(ta) else None, tb[at] if at < len(tb) else None)


# every output form, each compared whole: tree, -J tree and list, -l, -r,
# -P, -n, -a, and the tree and list in LC_ALL=C
ORDERED = [('tree', []), ('tree-ascii', ['-a']), ('json-tree', ['-J']),
           ('json-flat', ['-J', '-l']), ('list', ['-l']), ('raw', ['-r']), ('pairs', ['-P']),
           ('tree -n', ['-n']), ('list -n', ['-l', '-n']), ('raw -n', ['-r', '-n'])]


def compare_ordered(t, name, fm_cmd, ms_cmd, env=None):
    """Sibling order included: the same bytes in each form."""
    cols = ','.join(c for c in COLUMNS if (name, c) not in KNOWN)
    cenv = dict(env or os.environ, LC_ALL='C')
    for form, args, e in [f + (env,) for f in ORDERED] + [
            ('tree', [], cenv), ('list', ['-l'], cenv)]:
        what = '%s ordered %s%s' % (name, form, ' LC_ALL=C' if e is cenv else '')
        ra, a, _ = run(fm_cmd + args + ['-o', cols], e)
        rb, b, eb = run(ms_cmd + args + ['-o', cols], e)
        if ra or rb:
            t.check(what, ra == rb, 'exit %d/%d %s' % (ra, rb, eb.decode(errors='replace')))
            continue
        why = exact(form.split()[0], a, b)
        t.check(what, not why, short(why))


# Mount A, B, C; umount A; mount D: D takes A's 32-bit ID, so the kernel's
# order (unique ids) and findmnt's sibling order (IDs) part. Several
# rounds, in a parent of its own, and a few under a child too.
REUSE = r'''
reuse() {
    mkdir -p "$1"
    mount -t tmpfs "reuse-$2" "$1"
    for r in 1 2 3 4; do
        for n in a b c d e; do mkdir -p "$1/$n$r"; done
        mount -t tmpfs "A$r" "$1/a$r"; mount -t tmpfs "B$r" "$1/b$r"
        mount -t tmpfs "C$r" "$1/c$r"; umount "$1/a$r"
        mount -t tmpfs "D$r" "$1/d$r"; umount "$1/b$r"
        mount -t tmpfs "E$r" "$1/e$r"
    done
}
reuse "$1/reuse" top
reuse "$1/reuse/c2" nested
'''


def reused_ids(binary, base):
    """Did the reuse rounds reuse IDs (ID order and unique-id order part)?"""
    r = subprocess.run([binary, 'list', '-r', '-n', '-o', 'ID,UNIQ-ID,TARGET'],
                       capture_output=True, text=True, errors='surrogateescape')
    rows = [l.split(' ', 2) for l in r.stdout.splitlines()]
    rows = [(int(i), int(u)) for i, u, tgt in rows if tgt.startswith(base + '/reuse')]
    by_uniq = [i for i, u in sorted(rows, key=lambda x: x[1])]
    return len(rows) > 10 and by_uniq != sorted(by_uniq)


OTHER_NS = r'''
set -e
base=$1
shift
mount -t tmpfs other "$base/other-ns"
''' + REUSE.replace('"$1/reuse', '"$base/other-ns/reuse') + r'''
echo ready
exec sleep 120
'''


def compare_other_ns(t, binary, base, backend):
    """-N PID of a process in a mount namespace of its own, with reused IDs."""
    os.makedirs(os.path.join(base, 'other-ns'), exist_ok=True)
    p = subprocess.Popen(['unshare', '-m', '--propagation', 'private', 'sh', '-c', OTHER_NS,
                          'sh', base], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if p.stdout.readline().strip() != b'ready':
            t.check('live(%s) -N other namespace setup' % backend, False,
                    p.stderr.read().decode(errors='replace'))
            return
        pid = str(p.pid)
        name = 'live(%s) -N other' % backend
        KNOWN[name, 'TID'] = 'each process reads its own /proc/self'
        compare_input(t, name, ['findmnt', '-N', pid],
                      [binary, 'list', '--backend', backend, '-N', pid])
        compare_ordered(t, name, ['findmnt', '-N', pid],
                        [binary, 'list', '--backend', backend, '-N', pid])
    finally:
        p.kill()
        p.wait()


LIVE = r'''
set -e
cd "$1"
mkdir -p 'a b' "$(printf 'tab\tx')" 'back\slash' 'hash#x' "$(printf 'ff\377')" 'ÿ'
mkdir -p src bind ro shared slave unb
mount -t tmpfs 'src with space' 'a b'
mount -t tmpfs "$(printf 'tab\tsrc')" "$(printf 'tab\tx')"
mount -t tmpfs 'back\slash' 'back\slash'
mount -t tmpfs 'hash#src' 'hash#x'
mount -t tmpfs -o size=1m,mode=700 "$(printf 'bad\377src')" "$(printf 'ff\377')"
head -c 300000 /dev/zero > "$(printf 'ff\377')/fill"
mount -t tmpfs utf8 'ÿ'
mount -t tmpfs src src
mkdir -p src/sub
mount --bind src/sub bind
mount --bind -o ro src ro
mount -o remount,bind,ro,nosuid,nodev,noexec ro
mount -t tmpfs -o ro shared shared
mount --make-shared shared
mount --bind shared slave
mount --make-slave slave
mount --make-shared slave
mount -t tmpfs unb unb
mount --make-unbindable unb
mount -t tmpfs -o noatime,sync,dirsync,lazytime opts src/sub
''' + REUSE + r'''
shift
"$@"
'''


def live_inner(binary, base, backend):
    """In a private mount namespace already: mount, compare, report."""
    t = Tally()
    script = os.path.join(base, 'live.sh')
    with open(script, 'w') as f:
        f.write(LIVE)
    r = subprocess.run(['sh', script, base, 'true'], capture_output=True)
    if r.returncode:
        print('FAIL live setup: %s' % r.stderr.decode(errors='replace'))
        t.failed += 1
    else:
        name = 'live(%s)' % backend
        # TID is each reader's own pid here: findmnt's and mntsnap's differ
        KNOWN[name, 'TID'] = 'each process reads its own /proc/self'
        lookups = (['-T', os.path.join(base, 'src/sub/x')], ['-T', os.path.join(base, 'a b')],
                   [os.path.join(base, 'bind')], ['src with space'], ['/nonexistent-x'])
        compare_input(t, name, ['findmnt'], [binary, 'list', '--backend', backend],
                      lookups=lookups)
        t.check('%s: the rounds reused mount IDs' % name, reused_ids(binary, base),
                'no ID reused: the sibling order is not put to the test')
        compare_ordered(t, name, ['findmnt'], [binary, 'list', '--backend', backend])
        # sizes by statvfs(2): our own tmpfs mounts, whose usage nothing changes
        sizes = 'TARGET,SIZE,AVAIL,USED,USE%'
        for path in ('a b', 'ff\377', 'ro', 'src/sub'):
            for args in (['-l'], ['-l', '-b'], ['-J'], ['-J', '-b'], ['-P'], ['-r', '-b']):
                lk = ['-T', os.path.join(base, path)] + args + ['-o', sizes]
                ra, a, _ = run(['findmnt'] + lk)
                rb, b, _ = run([binary, 'list', '--backend', backend] + lk)
                form = 'json-flat' if '-J' in args else 'list'
                why = compare_form(form, a, b) if ra == rb and (a or b) else (
                    '' if ra == rb else 'exit %d/%d' % (ra, rb))
                t.check('%s sizes %r %s' % (name, path, ' '.join(args)), not why, short(why))
        pid = str(os.getpid())
        compare_input(t, name + ' -N', ['findmnt', '-N', pid],
                      [binary, 'list', '--backend', backend, '-N', pid])
        compare_other_ns(t, binary, base, backend)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'cols': t.cols}))
    return 0


def live(t, binary, base):
    if os.geteuid() != 0 or not shutil.which('unshare'):
        print('SKIP live tables: needs root and unshare(1)')
        t.skipped += 1
        return
    for backend in ('statmount', 'mountinfo'):
        # both programs read the same namespace: the comparison runs inside
        r = subprocess.run(['unshare', '-m', '--propagation', 'private', sys.executable,
                            os.path.abspath(__file__), '--live', binary, base, backend],
                           capture_output=True, text=True, errors='surrogateescape')
        out = r.stdout.rstrip('\n').split('\n')
        try:
            res = json.loads(out[-1])
        except ValueError:
            t.check('live(%s)' % backend, False, r.stdout + r.stderr)
            continue
        if len(out) > 1:
            print('\n'.join(out[:-1]))
        t.passed += res['passed']
        t.failed += res['failed']
        for c, (eq, ne, ex) in res['cols'].items():
            t.cols[c][0] += eq
            t.cols[c][1] += ne
            t.cols[c][2] = t.cols[c][2] or ex


def main():
    if sys.argv[1] == '--live':
        return live_inner(*sys.argv[2:5])
    binary, data = os.path.abspath(sys.argv[1]), sys.argv[2]
    if not shutil.which('findmnt'):
        print('findmnt missing: nothing to compare against')
        return 77
    t = Tally()
    files = sorted(f for f in os.listdir(data) if f.endswith('.txt'))
    for f in files:
        path = os.path.join(data, f)
        rc, _, err = run([binary, 'list', '-F', path])
        if rc and f in REFUSED_TODAY:
            print('SKIP %s: mntsnap refuses it (%s): %s' % (f, REFUSED_TODAY[f],
                                                           err.decode(errors='replace').strip()))
            t.skipped += 1
            continue
        compare_input(t, f, ['findmnt', '-F', path], [binary, 'list', '-F', path])
        compare_ordered(t, f, ['findmnt', '-F', path], [binary, 'list', '-F', path])
        rc, out, err = run([binary, 'list', '-F', path, '--format', 'mountinfo'])
        with open(path, 'rb') as fh:
            same = rc == 0 and out == fh.read()
        if f in ROUNDTRIP_KNOWN:
            print('known: %s does not render back (%s)' % (f, ROUNDTRIP_KNOWN[f]))
        else:
            t.check('%s --format mountinfo gives the file back' % f, same,
                    short(err.decode(errors='replace') + out.decode(errors='replace')))
    with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-') as base:
        live(t, binary, base)
    print('\n%-12s %6s %6s  first difference' % ('column', 'equal', 'differ'))
    for c in COLUMNS:
        eq, ne, ex = t.cols[c]
        print('%-12s %6d %6d  %s' % (c, eq, ne, ex or ''))
    print('\n%d passed, %d failed, %d skipped' % (t.passed, t.failed, t.skipped))
    return 1 if t.failed else 0


if __name__ == '__main__':
    sys.exit(main())
