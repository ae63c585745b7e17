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

findmnt's options beyond the columns (--real, --pseudo, --shadowed, -A, -U,
-f, -i, -d, -k, -m, -C, -c, -v, --tree, -D, -y) are compared on every input
in every output form, byte for byte (JSON by value, in order): OPTSETS.

fstab (`-s`, `-x`, `-e`): the files in DATA_DIR/fstab (util-linux's own
test fstabs, see the README) and hostile ones written here (escapes, long
lines, missing fields, CRLF, NUL bytes, comments at odd places, a huge
file, a directory of *.fstab), read by `findmnt -s -F FILE` and `mntsnap
list -s -F FILE` in every output form: stdout byte for byte (JSON parsed),
stderr with the program name aside, the same exit status. -x (--verify,
with and without --verbose) the same way. Tags on real block devices
(LABEL=, UUID=, -e, -S LABEL=, the blkid columns) on loop devices with
an ext4 made here, in a private mount namespace (skipped without root or
loop devices).

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


# findmnt's options, each compared in every output form (OPT_FORMS), byte
# for byte; JSON by value with its order kept. A set of options that uses
# statvfs (-D's sizes, USE%) only runs where nothing else writes: our own
# tmpfs mounts of the live table.
OPTSETS = [
    ['--real'], ['--pseudo'], ['--shadowed'], ['-A'], ['-A', '--real'], ['-A', '--pseudo'],
    ['--real', '-i'], ['--pseudo', '-t', 'tmpfs'], ['--shadowed', '-i'], ['--shadowed', '-l'],
    ['-U'], ['-U', '-t', 'tmpfs'], ['-U', '--shadowed'], ['-U', '-i', '-t', 'proc'],
    ['-f'], ['-f', '-t', 'tmpfs'], ['-f', '-d', 'backward'], ['-f', '-i', '-t', 'proc'],
    ['-i'], ['-i', '-t', 'tmpfs'], ['-i', '-t', 'noproc,sysfs'], ['-i', '-O', 'ro'],
    ['-d', 'backward'], ['-d', 'forward'], ['-d', 'backward', '-t', 'tmpfs'],
    ['-d', 'backward', '-U'], ['--direction', 'backward', '-O', 'rw'],
    ['-k'], ['-m'], ['-m', '--tree'], ['-m', '-k'], ['-k', '-m'], ['--mtab', '-O', 'rw'],
    ['-C'], ['-c'], ['-v'], ['-v', '-c'], ['--nofsroot', '-o', 'SOURCE,FSROOT'],
    ['--tree'], ['--tree', '-t', 'tmpfs'], ['-l', '--tree'], ['--tree', '-i', '-t', 'proc'],
    ['-D', '-o', 'SOURCE,FSTYPE,TARGET'], ['-D', '-A', '-o', 'SOURCE,FSTYPE,TARGET'],
    ['-D', '-i', '-o', 'SOURCE,FSTYPE,TARGET'], ['--df', '--tree', '-o', 'SOURCE,TARGET'],
    ['-y', '-o', 'TARGET,MAJ:MIN,FS-OPTIONS,OPT-FIELDS'],
    ['--shell', '-o', '+VFS-OPTIONS'],
    # libmount's list rules: a leading "no" negates the list and is
    # skipped, "noTYPE" never matches, case does not count; a bare "no"
    # option item matches every mount
    ['-t', 'nonotmpfs'], ['-t', 'noproc,notmpfs'], ['-t', 'TMPFS,Proc'], ['-t', 'notmpfs,proc'],
    ['-O', 'no'], ['-O', 'noatime,no'],
    # findmnt DEVICE MOUNTPOINT: both must match (the second as -M does)
    ['udev', '/dev'], ['/proc', '/proc'], ['udev', '/sys'], ['0:3', '/proc'],
    # a "MAJ:MIN" source is a device number (sscanf: "0:03", "0:3x" too)
    ['-S', '0:3'], ['-S', '0:03'], ['-S', '0:5x', '-o', 'TARGET,MAJ:MIN'], ['-S', '0:3', '-R'],
    # refused together by findmnt (the forms add more: -J -P, -l -r, ...)
    ['--real', '--pseudo'], ['-M', '/', '-T', '/'], ['-c', '-C'],
]
OPT_FILES = ('util-linux-mountinfo.txt', 'mntsnap-escapes.txt', 'moby-fedora.txt')
OPT_FORMS = [[], ['-l'], ['-r'], ['-P'], ['-J'], ['-J', '-l'], ['-n'], ['-l', '-n'], ['-a'],
             ['-r', '-n']]


def same_output(args, ra, a, rb, b, ea=b'', eb=b''):
    """'' when mntsnap said what findmnt said, else what differs."""
    # options findmnt refuses together: mntsnap refuses them too, with its
    # exit status for an error (2; findmnt's is 1), kept on purpose (README)
    if b'mutually exclusive' in ea:
        return '' if (ra, rb, a, b) == (1, 2, b'', b'') and b'mutually exclusive' in eb else (
            'findmnt refuses (%s), mntsnap: exit %d %r' % (ea.strip(), rb, eb.strip()))
    # findmnt's tree exits 0 when nothing matched (its list: 1); mntsnap
    # says 1 in every form, by design (doc/cli.md)
    if ra == 0 and rb == 1 and not a.strip(b'{}[]\n "filesystems:'):
        ra = 1
    if ra != rb:
        return 'exit findmnt %d mntsnap %d' % (ra, rb)
    if '-J' in args and a and b:
        try:
            return '' if jload(a) == jload(b) else short(
                'findmnt %s\nmntsnap %s' % (json.dumps(jload(a))[:300], json.dumps(jload(b))[:300]))
        except ValueError as e:
            return 'bad JSON: %s' % e
    if a == b:
        return ''
    la, lb = a.split(b'\n'), b.split(b'\n')
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return short('line %d: findmnt %r\n  mntsnap %r' % (i + 1, x, y), 600)
    return 'findmnt %d lines, mntsnap %d' % (len(la), len(lb))


def compare_options(t, name, fm_cmd, ms_cmd, env=None, sets=OPTSETS, forms=None):
    """Every option set in every form, the columns KNOWN to differ left out."""
    cenv = dict(env or os.environ, LC_ALL='C')
    forms = forms or OPT_FORMS + [['LC_ALL=C'], ['LC_ALL=C', '-l']]
    # FMEQ_QUICK (a sanitizer build, whose every run is several times
    # slower): each option set in the tree, -J and -r forms only
    if os.environ.get('FMEQ_QUICK'):
        forms = [f for f in forms if f in ([], ['-J'], ['-r'])] or forms[:1]
    known = [c for (n, c) in KNOWN if n == name]
    for opts in sets:
        o = list(opts)
        if set(known) & {'TARGET', 'SOURCE', 'FSTYPE', 'OPTIONS'} and '-o' not in o:
            o += ['-o', 'TARGET,SOURCE,FSTYPE']
        elif known and '-o' in o and o[o.index('-o') + 1].startswith('+'):
            i = o.index('-o') + 1
            o[i] = 'TARGET,SOURCE,FSTYPE,' + o[i][1:]
        elif known and '-o' in o:
            i = o.index('-o') + 1
            o[i] = ','.join(c for c in o[i].split(',') if c.lstrip('+') not in known)
        for form in forms:
            e = cenv if form[:1] == ['LC_ALL=C'] else env
            args = [x for x in form if x != 'LC_ALL=C']
            ra, a, ea = run(fm_cmd + o + args, e)
            rb, b, eb = run(ms_cmd + o + args, e)
            why = same_output(args, ra, a, rb, b, ea, eb)
            if why and rb == 2:
                why += ': ' + eb.decode(errors='replace').strip()
            t.check('%s %s %s' % (name, ' '.join(opts), ' '.join(form)), not why, why)


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
mount -t tmpfs fmeq-base "$1"
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
# a stack (st1 shadowed by st2, stx hidden under it), ids the kernel
# reuses (ida's id goes to idd), a pseudo filesystem, a bind of a real one
# with a root, a symlink to a mount point
mkdir -p st ida idb idc idd prc rb
mount -t tmpfs st1 st
mkdir -p st/x
mount -t tmpfs stx st/x
mount -t tmpfs st2 st
mkdir -p st/y
mount -t tmpfs sty st/y
mount -t tmpfs ida ida
mount -t tmpfs idb idb
mount -t tmpfs idc idc
umount ida
mount -t tmpfs idd idd
mount -t proc proc prc
mount --bind -o ro /etc rb
ln -s st lnk
# utab: what findmnt -m merges (userspace options), our own
mount -t tmpfs runmount /run/mount
printf 'SRC=idb TARGET=%s/idb ROOT=/ OPTS=x-mntsnap.test=1,noauto\n' "$PWD" > /run/mount/utab
printf 'SRC=none TARGET=/nonexistent ROOT=/ OPTS=x-other\n' >> /run/mount/utab

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
        # the options with lookups, statvfs sizes, relative sources (-c)
        os.chdir(base)
        p = lambda x: os.path.join(base, x)
        sets = [['-f', '-M', p('st')], ['-M', p('st')], ['-d', 'backward', '-M', p('st')],
                ['-d', 'backward', '-T', p('st/x/f')], ['-d', 'backward', '-T', p('bind')],
                ['-f', '-d', 'backward', '-M', p('st')], ['-f', p('st')], ['-f', 'st2'],
                ['-U', '-R', '-M', base], ['-U', '-M', p('st')], ['-U', '-T', p('st/x')],
                ['--shadowed', '-R', '-M', base], ['--shadowed', '-M', p('st')],
                ['--tree', '-T', p('st')], ['--tree', '-T', p('st/x/f')], ['--tree', p('st')],
                ['--tree', '-S', 'st2'], ['--tree', '-R', '-M', p('st')],
                ['-i', '-T', p('st/x/f')], ['-i', '-M', p('st')], ['-i', '-R', '-M', p('st')],
                ['-T', p('lnk')], ['-C', '-T', p('lnk')], ['-M', p('lnk')], ['-C', '-M', p('lnk')],
                ['-C', '-T', p('lnk/y')], ['-c', '-R', '-M', base], ['-c', '-v', '-T', p('rb')],
                ['-v', '-T', p('rb')], ['-m', '-M', p('idb')], ['-m', '-O', 'noauto'],
                ['-m', '-R', '-M', base], ['-N', str(os.getpid()), '-m', '-M', p('idb')],
                ['-m', '-N', str(os.getpid()), '-M', p('idb')],
                ['-D', '-R', '-M', p('st')], ['-D', '-b', '-R', '-M', p('st')],
                ['-D', '-A', '-t', 'proc'], ['-D', '-R', '-M', p('prc')],
                ['-D', '-T', p('ff\377')], ['-D', '-b', '-T', p('a b')],
                ['-y', '-o', 'TARGET,MAJ:MIN,USE%,FS-OPTIONS', '-R', '-M', p('st')],
                # -R on every match of a filter: nested matches, both ways
                ['-R', '-t', 'tmpfs'], ['-d', 'backward', '-R', '-t', 'tmpfs'],
                ['-U', '-d', 'backward', '-R', '-M', p('st')], ['-f', '-R', '-t', 'tmpfs']]
        # every form through statmount; the text backend (the same option
        # code on another capture) in three, for the suite's time
        compare_options(t, name, ['findmnt'], [binary, 'list', '--backend', backend],
                        sets=OPTSETS + sets,
                        forms=None if backend == 'statmount' else [[], ['-l'], ['-J']])
        # show: the same table saved, the same options (but list's live ones)
        snap = os.path.join(base, '..', 'fmeq-%s.snap' % backend)
        r = subprocess.run([binary, 'save', '--backend', backend, '--no-sync', snap],
                           capture_output=True)
        t.check('%s save' % name, r.returncode == 0, r.stderr.decode(errors='replace'))
        live_only = {'-k', '-m', '--mtab', '-c', '-C'}
        compare_options(t, name + ' show', ['findmnt'], [binary, 'show', snap],
                        sets=[o for o in OPTSETS if not live_only & set(o)] + [
                            ['-f', '-M', p('st')], ['-U', '-R', '-M', base],
                            ['--shadowed', '-R', '-M', base], ['-d', 'backward', '-M', p('st')],
                            ['-i', '-M', p('st')], ['--tree', '-S', 'st2']],
                        forms=[[], ['-l'], ['-J'], ['-r']])
        for opt in sorted(live_only):
            r = subprocess.run([binary, 'show', snap, opt], capture_output=True)
            t.check('%s show %s refused' % (name, opt), r.returncode == 2 and not r.stdout and
                    b'applies to list only' in r.stderr, r.stderr.decode(errors='replace'))
        os.unlink(snap)
        pid = str(os.getpid())
        compare_input(t, name + ' -N', ['findmnt', '-N', pid],
                      [binary, 'list', '--backend', backend, '-N', pid])
        # --verify of the mount table itself (findmnt -x -k)
        if have_blkid(binary, '/dev/null'):
            for args in (['-x', '-k'], ['-x', '-k', '--verbose'], ['-x', '-k', '-t', 'tmpfs'],
                         ['-x', '-k', '--verbose', '-T', os.path.join(base, 'ro')]):
                fstab_same(t, name, args, [binary, 'list', '--backend', backend] + args)
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


FSTAB_COLUMNS = ['TARGET', 'SOURCE', 'FSTYPE', 'OPTIONS', 'VFS-OPTIONS', 'FS-OPTIONS', 'FREQ',
                 'PASSNO', 'FSROOT', 'MAJ:MIN', 'ID', 'PARENT', 'PROPAGATION', 'OPT-FIELDS',
                 'TID', 'UUID']
# findmnt's blkid columns: mntsnap offers them with libblkid only
BLKID_COLUMNS = ['LABEL', 'PARTUUID', 'PARTLABEL', 'SOURCES']
FSTAB_FORMS = {
    'list-default': [],  # findmnt lists fstab even without -l
    'list': ['-l'],
    'raw': ['-r'],
    'pairs': ['-P'],
    'json': ['-J'],
    'json-flat': ['-J', '-l'],
    'noheadings': ['-n'],
    'raw-noheadings': ['-r', '-n'],
    'ascii': ['-a'],
}
# Kept on purpose: an error (a file findmnt "can't read") is exit 2 in
# mntsnap, whose exit 1 means "nothing matched"; findmnt says 1 for both.
FSTAB_ERROR_EXIT = (1, 2)


def norm_err(b):
    """stderr without the program's name: "findmnt: x" and "mntsnap: x" alike."""
    return re.sub(rb'(?m)^(findmnt|mntsnap): ', b'PROG: ', b)


def fstab_same(t, name, fm, ms, env=None, json_out=False):
    ra, a, ea = run(['findmnt'] + fm, env)
    rb, b, eb = run(ms, env)
    why = []
    if ra != rb:
        why.append('exit findmnt %d mntsnap %d' % (ra, rb))
    if json_out and a and b:
        try:
            same = jload(a) == jload(b)
        except ValueError as e:
            same, a = False, str(e).encode()
        if not same:
            why.append('json: findmnt %s\nmntsnap %s' % (short(a.decode(errors='replace')),
                                                          short(b.decode(errors='replace'))))
    elif a != b:
        la, lb = a.split(b'\n'), b.split(b'\n')
        k = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
        why.append('stdout line %d: findmnt %r\n  mntsnap %r' % (
            k + 1, la[k][:300] if k < len(la) else None, lb[k][:300] if k < len(lb) else None))
    if norm_err(ea) != norm_err(eb):
        why.append('stderr: findmnt %r\n  mntsnap %r' % (ea[:400], eb[:400]))
    t.check('%s: %s' % (name, ' '.join(fm)), not why, '\n'.join(why))
    return ra, a


# Hostile fstabs, written by the test (NUL bytes and CRs stay exactly as meant).
LONG = '/' + 'x' * 100000
HOSTILE = {
    'escapes': (b'/dev/a\\040b /mnt/sp\\040ace ext4 defaults 0 0\n'
                b'/dev/t\\011ab /mnt/t\\011ab ext4 rw 1 2\n'
                b'back\\134slash /mnt/back\\134\\134 tmpfs mode=1777,uid=0\n'
                b'nl\\012src /mnt/new\\012line tmpfs rw\n'
                b'short\\04 /mnt/sh\\8x tmpfs a\\0b\\777 0 0\n'
                b'trail\\ /mnt/trail\\ tmpfs \\\n'
                b'hex\\x41 /mnt/\\x41\\x7f tmpfs \\x20\n'
                b'utf8\xc3\xbf /mnt/\xc3\xbf\xff\xfe tmpfs rw\n'
                b'ctl\x01\x7f /mnt/ctl\x1b[31m tmpfs rw\n'
                b'"q$`\\ /mnt/"$`x tmpfs "quoted,value"=x,a="b,c",d\n'
                b'none /mnt/\\101\\102 tmpfs \\054comma\\075 3 4\n'),
    'fields': (b'only-one\n'
               b'two /fields\n'
               b'three /fields t\n'
               b'four /fields t o\n'
               b'five /fields t o 5\n'
               b'six /fields t o 5 6\n'
               b'seven /fields t o 5 6 7 8 9\n'
               b'badfreq /f t o x 1\n'
               b'badfreq2 /f t o 1x 1\n'
               b'badpass /f t o 1 2y\n'
               b'neg /f t o -1 -2\n'
               b'plus /f t o +3 +4\n'
               b'hexnum /f t o 0x10 0\n'
               b'big /f t o 4294967297 99999999999\n'
               b'huge /f t o 99999999999999999999 0\n'
               b'spaces   /f\t\t t \t o  \t 1 \t 2 \t \n'
               b'  leading /f t o 0 0\n'
               b'\tleadtab /f t o 0 0\n'
               b'trailing /f t o 0 0    \n'
               b'LABEL=x /tag t o\n'
               b'LABEL="quoted\\040label" /tag t o\n'
               b"UUID='1234-5678' /tag t o\n"
               b'LABEL="unclosed /tag t o\n'
               b'PARTUUID=abc /tag t o\n'
               b'PARTLABEL=p /tag t o\n'
               b'ID=usb-x /tag t o\n'
               b'label=lower /tag t o\n'
               b'FOO=bar /tag t o\n'
               b'UUID= /tag t o\n'
               b'=x /tag t o\n'),
    'crlf': (b'a /crlf t o 1 2\r\n'
             b'b /crlf t o\r\n'
             b'\r\n'
             b'# comment\r\n'
             b'c /crlf t o\r\r\n'
             b'd /cr\rmid t o\r\n'
             b'e /crlf t o 0 0\r'),
    'nul': (b'a /nul t o\n'
            b'b /n\x00ul t o\n'
            b'\x00c /nul t o\n'
            b'd /nul t o\n'
            b'e /nul t o 1 2\x00 trailing garbage'),
    'nul-last-line': b'a /nul t o\nb /nul t\x00o 1 1\n',
    'comments': (b'#\n'
                 b'   # indented\n'
                 b'\t#tab\n'
                 b'a /c t o # trailing comment\n'
                 b'b /c#hash t o#x 0 0\n'
                 b'#c /commented t o\n'
                 b' \t \n'
                 b'\n\n\n'
                 b'd /c t o 0 0 #\n'
                 b'#'),
    'only-comments': b'# nothing\n\n   \n#\n',
    'empty': b'',
    'no-final-newline': b'a /nf t o 1 1\nb /nf t o 2 2',
    'long-lines': (b'/dev/long ' + LONG.encode() + b' ext4 defaults 0 0\n'
                   b'/dev/longopts /lo ext4 ' + b','.join(b'o%d=%d' % (i, i) for i in range(20000))
                   + b' 1 1\n'
                   + b'x' * 300000 + b'\n'
                   b'after /long t o\n'),
    'huge': b''.join(b'/dev/disk%d /mnt/%d ext4 rw,noatime,x-n=%d %d %d\n' % (i, i, i, i % 2, i % 3)
                     if i % 97 else b'# comment %d\n' % i for i in range(20000)),
}
# Entries -x checks against this machine (paths that exist everywhere)
VERIFY = (b'/dev/root-x / ext4 defaults 0 0\n'
          b'/dev/root-x / xfs defaults 0 0\n'
          b'proc /proc proc defaults 0 0\n'
          b'tmpfs /tmp/ tmpfs defaults 0 0\n'
          b'tmpfs //tmp//. tmpfs defaults 0 0\n'
          b'/usr /usr/local none bind 0 0\n'
          b'/dev/usr-x /usr ext4 defaults 0 2\n'
          b'/dev/null /nonexistent-x ext4 noauto 0 0\n'
          b'/dev/null /nonexistent-y ext4 defaults 0 0\n'
          b'/etc/hostname /etc/hosts none bind 0 0\n'
          b'/etc/hostname /etc/passwd ext4 defaults 0 0\n'
          b'/etc /mnt-x auto defaults 0 0\n'
          b'/etc /mnt-y none defaults 0 0\n'
          b'/etc /mnt-z nosuchfs defaults 0 0\n'
          b'FOO=bar /mnt-t ext4 defaults 0 0\n'
          b'UUID=00000000-dead-beef-0000-000000000000 /mnt-u ext4 defaults 0 0\n'
          b'LABEL=no-such-label-x /mnt-l ext4 noauto 0 0\n'
          b'server:/export /mnt-n nfs defaults 0 0\n'
          b'/dev/swap-x swap swap discard=foo,pri=5 0 0\n'
          b'/dev/swap-y swap swap discard=once,pri=-5 0 0\n'
          b'/dev/swap-z none swap discard=pages,pri=1x 0 0\n'
          b'/dev/swap-w swap swap discard,pri= 0 0\n'
          b'broken line\n'
          b'/dev/null /dev none bind,ro 0 0\n')
FSTAB_FILTERS = [['-t', 'ext3'], ['-t', 'noext3,tmpfs'], ['-O', 'noauto'], ['-O', 'nonoauto'],
                 ['-O', 'defaults'], ['-O', 'gid=5'], ['-S', '/dev/foo'], ['-S', 'tmpfs'],
                 ['-S', 'UUID=d3a8f783-df75-4dc8-9163-975a891052c0'], ['-T', '/boot'],
                 ['-T', '/boot/'], ['-M', '/home/foo'], ['-M', '/any/foo'], ['tmpfs'], ['/proc'],
                 ['/dev/mapper/foo'], ['swap'], ['LABEL=none-x'], ['/nonexistent-x'],
                 ['-t', 'nosuchfs-x']]


def fstab_files(data, base):
    """(name, path) of every fstab input: the collected ones, then ours."""
    out = []
    fdir = os.path.join(data, 'fstab')
    for f in sorted(os.listdir(fdir)):
        if f.endswith('.fstab'):
            out.append((f, os.path.join(fdir, f)))
    for name, body in HOSTILE.items():
        path = os.path.join(base, 'hostile-%s.fstab' % name)
        with open(path, 'wb') as fh:
            fh.write(body)
        out.append(('hostile-' + name, path))
    # a directory: its *.fstab files in name order, nothing else
    d = os.path.join(base, 'fstab.d')
    os.mkdir(d)
    for n, body in (('b.fstab', b'b /b t o 1 1\n'), ('a.fstab', b'a /a t o\nbad\n'),
                    ('.hidden.fstab', b'h /h t o\n'), ('c.txt', b'c /c t o\n'),
                    ('.fstab', b'x /x t o\n')):
        with open(os.path.join(d, n), 'wb') as fh:
            fh.write(body)
    out.append(('dir', d))
    return out


def have_blkid(binary, path):
    rc, _, err = run([binary, 'list', '-s', '-F', path, '-o', 'LABEL'])
    return not (rc == 2 and b'libblkid' in err)


def fstab_verify(t, binary, name, path, extra=()):
    for v in ([], ['--verbose']):
        for flt in [[]] + list(extra):
            fstab_same(t, name, ['-x', '-F', path] + v + flt,
                       [binary, 'list', '-x', '-F', path] + v + flt)


def fstab(t, binary, data, base):
    """findmnt -s and -x against mntsnap list -s and -x."""
    files = fstab_files(data, base)
    blkid = have_blkid(binary, files[0][1])
    cols = FSTAB_COLUMNS + (BLKID_COLUMNS if blkid else [])
    if not blkid:
        print('SKIP blkid columns, -e and -x: this mntsnap has no libblkid')
        t.skipped += 1
    for name, path in files:
        # findmnt's blkid cache takes minutes for 40000 UUID/LABEL lookups
        fcols = [c for c in cols if c not in ['UUID'] + BLKID_COLUMNS] \
            if name == 'hostile-huge' else cols
        for form, args in FSTAB_FORMS.items():
            if os.environ.get('FMEQ_QUICK') and form not in ('list-default', 'raw', 'json'):
                continue   # a sanitizer build: three forms (see compare_options)
            # a newline in a SOURCES value: findmnt wraps the cell onto a line
            # of its own in a table, mntsnap writes \x0a (raw, pairs and JSON agree)
            tcols = [c for c in fcols if c != 'SOURCES'] if name == 'hostile-escapes' and \
                form not in ('raw', 'raw-noheadings', 'pairs', 'json', 'json-flat') else fcols
            for o in ([], ['-o', ','.join(tcols)]):
                fstab_same(t, name, ['-s', '-F', path] + args + o,
                           [binary, 'list', '-s', '-F', path] + args + o,
                           json_out='-J' in args)
        cenv = dict(os.environ, LC_ALL='C')
        for args in ([], ['-r'], ['-P']):
            ccols = ','.join(c for c in fcols if c != 'SOURCES' or args or
                             name != 'hostile-escapes')
            fstab_same(t, name + ' LC_ALL=C', ['-s', '-F', path] + args + ['-o', ccols],
                       [binary, 'list', '-s', '-F', path] + args + ['-o', ccols], env=cenv)
        # -x compares every entry with every later one (findmnt too): not the huge one
        if blkid and name != 'hostile-huge':
            fstab_same(t, name, ['-s', '-e', '-F', path, '-P', '-o', 'SOURCE,SOURCES,UUID'],
                       [binary, 'list', '-s', '-e', '-F', path, '-P', '-o', 'SOURCE,SOURCES,UUID'])
            fstab_verify(t, binary, name, path)
    # the default file, /etc/fstab (whatever this machine has, or its absence)
    for args in ([], ['-J'], ['-r', '-o', ','.join(cols)]):
        fstab_same(t, '/etc/fstab', ['-s'] + args, [binary, 'list', '-s'] + args,
                   json_out='-J' in args)
    if blkid:
        fstab_verify(t, binary, '/etc/fstab', '/etc/fstab')
    ulfstab = os.path.join(data, 'fstab', 'util-linux.fstab')
    for flt in FSTAB_FILTERS:
        for args in ([], ['-J'], ['-r']):
            fstab_same(t, 'util-linux.fstab', ['-s', '-F', ulfstab] + flt + args,
                       [binary, 'list', '-s', '-F', ulfstab] + flt + args, json_out='-J' in args)
    # errors: a file that is not there, not readable as fstab, a directory
    # of nothing; -x without a table still counts the parse errors
    for bad in ('/nonexistent-fstab-x', '/dev/null', base + '/fstab.d/c.txt'):
        ra, a, ea = run(['findmnt', '-s', '-F', bad])
        rb, b, eb = run([binary, 'list', '-s', '-F', bad])
        # findmnt's "can't read" ends in a stale errno where the path is
        # neither a file nor a directory (/dev/null: "No such file or
        # directory"); mntsnap says why (EINVAL): only the text before differs
        same_why = ea.split(b': ')[-1] == eb.split(b': ')[-1] or bad == '/dev/null'
        ok = (ra, rb) in ((0, 0), (1, 1), FSTAB_ERROR_EXIT) and a == b and (
            norm_err(ea) == norm_err(eb) or (b"can't read %s" % bad.encode() in ea and
                                              b"can't read %s" % bad.encode() in eb and
                                              same_why))
        t.check('fstab error %s' % bad, ok, 'exit %d/%d: %r / %r' % (ra, rb, ea, eb))
    if blkid:
        vpath = os.path.join(base, 'verify.fstab')
        with open(vpath, 'wb') as fh:
            fh.write(VERIFY)
        fstab_verify(t, binary, 'verify', vpath,
                     extra=(['-t', 'swap'], ['-O', 'noauto'], ['-T', '/tmp'], ['/dev/null']))


BLKID_COLS = ','.join(['TARGET', 'SOURCE', 'FSTYPE', 'FREQ', 'PASSNO', 'UUID'] + BLKID_COLUMNS)


def blkid_inner(binary, base):
    """In a private mount namespace already: an ext4 with a label on a loop
    device, named by tag in an fstab and mounted; findmnt and mntsnap compared.
    Prints the tally as JSON on its last line."""
    t = Tally()
    img = os.path.join(base, 'ext4.img')
    label = 'mntsnap-%d' % os.getpid()
    with open(img, 'wb') as fh:
        fh.truncate(8 << 20)
    r = subprocess.run(['losetup', '--find', '--show', img], capture_output=True, text=True)
    if r.returncode:
        print('SKIP blkid: no loop device: %s' % r.stderr.strip())
        print(json.dumps({'passed': 0, 'failed': 0, 'skipped': 1}))
        return 0
    dev = r.stdout.strip()
    mnt = os.path.join(base, 'mnt')
    try:
        subprocess.run(['mkfs.ext4', '-q', '-F', '-L', label, dev], check=True,
                       capture_output=True)
        uuid = subprocess.run(['blkid', '-p', '-o', 'value', '-s', 'UUID', dev],
                              capture_output=True, text=True).stdout.strip()
        os.makedirs(mnt)
        fst = os.path.join(base, 'tags.fstab')
        with open(fst, 'w') as fh:
            fh.write('LABEL=%s %s ext4 defaults 0 2\n' % (label, mnt))
            fh.write('UUID=%s %s/y ext4 noauto 0 0\n' % (uuid, base))
            fh.write('LABEL="%s" %s/q xfs defaults 0 0\n' % (label, base))
            fh.write('%s %s/z auto defaults 0 0\n' % (dev, mnt))
            fh.write('LABEL=no-such-label-%d /mnt-q ext4 defaults 0 0\n' % os.getpid())
            fh.write('UUID=%s swap swap defaults 0 0\n' % uuid)
        ms = [binary, 'list']
        for args in (['-o', BLKID_COLS], ['-e', '-o', BLKID_COLS], ['-J', '-o', BLKID_COLS],
                     ['-e', '-J', '-o', BLKID_COLS], ['-e', '-P'], ['-S', 'LABEL=' + label],
                     ['-S', dev], ['-S', 'UUID=' + uuid, '-e'], ['LABEL=' + label],
                     ['-S', 'LABEL=no-such-x'], [dev], ['-x'], ['-x', '--verbose'],
                     ['-x', '-e', '--verbose'], ['-x', '-S', dev]):
            fstab_same(t, 'blkid fstab', ['-s', '-F', fst] + args, ms + ['-s', '-F', fst] + args,
                       json_out='-J' in args)
        subprocess.run(['mount', '-t', 'ext4', dev, mnt], check=True)
        for args in (['-S', 'LABEL=' + label], ['-S', 'UUID=' + uuid], ['LABEL=' + label],
                     ['UUID=' + uuid], ['-S', 'LABEL=no-such-x'], ['-S', 'UUID=' + uuid, '-J'],
                     ['-M', mnt, '-o', BLKID_COLS], ['-M', mnt, '-J', '-o', BLKID_COLS],
                     ['-M', mnt, '-P', '-o', BLKID_COLS], ['-S', dev, '-o', BLKID_COLS]):
            fstab_same(t, 'blkid mounted', args + ['-o', BLKID_COLS] if '-o' not in args else args,
                       ms + (args + ['-o', BLKID_COLS] if '-o' not in args else args),
                       json_out='-J' in args)
    finally:
        subprocess.run(['umount', mnt], capture_output=True)
        subprocess.run(['losetup', '-d', dev], capture_output=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def blkid(t, binary, base):
    if os.geteuid() != 0 or not shutil.which('unshare') or not shutil.which('losetup') \
            or not shutil.which('mkfs.ext4'):
        print('SKIP blkid tags on a loop device: needs root, unshare, losetup, mkfs.ext4')
        t.skipped += 1
        return
    r = subprocess.run(['unshare', '-m', '--propagation', 'private', sys.executable,
                        os.path.abspath(__file__), '--blkid', binary, base],
                       capture_output=True, text=True, errors='surrogateescape')
    out = r.stdout.rstrip('\n').split('\n')
    try:
        res = json.loads(out[-1])
    except ValueError:
        t.check('blkid', False, r.stdout + r.stderr)
        return
    if len(out) > 1:
        print('\n'.join(out[:-1]))
    t.passed += res['passed']
    t.failed += res['failed']
    t.skipped += res['skipped']


def lookup_pair(t, name, binary, args, cwd=None):
    """findmnt ARGS and mntsnap list ARGS (in cwd): stdout, exit status and
    whether stderr says anything, as same_output() allows."""
    fm = subprocess.run(['findmnt'] + args, capture_output=True, cwd=cwd)
    ms = subprocess.run([binary, 'list'] + args, capture_output=True, cwd=cwd)
    why = same_output(args, fm.returncode, fm.stdout, ms.returncode, ms.stdout,
                      fm.stderr, ms.stderr)
    if not why and bool(fm.stderr.strip()) != bool(ms.stderr.strip()):
        why = 'stderr findmnt %r mntsnap %r' % (fm.stderr[:200], ms.stderr[:200])
    t.check('%s: %s%s' % (name, ' '.join(args), ' (in %s)' % cwd if cwd else ''), not why, why)


def source_lookups_file(t, binary, base):
    """-S/SOURCE lookups on a -F table as libmount makes them through its
    cache: the path asked for and each line's source resolved (symlinks,
    relative, "//" and trailing slashes), never a pseudo or network
    filesystem's; a LABEL= source is a tag; -C: the text only; -f: the
    lookup alone (mnt_table_find_source(), then a mount point)."""
    d = os.path.join(base, 'srclook')
    os.makedirs(os.path.join(d, 'sub'))
    img = os.path.join(d, 'dev.img')
    open(img, 'w').close()
    os.symlink(img, os.path.join(d, 'lnk'))
    os.symlink('../lnk', os.path.join(d, 'sub', 'rel'))
    mi = os.path.join(d, 'mountinfo')
    with open(mi, 'w') as fh:
        for i, (root, mp, fstype, src) in enumerate((
                ('/', '/', 'ext4', '/dev/vda'), ('/', '/x', 'ext4', d + '/lnk'),
                ('/', '/y', 'tmpfs', d + '/lnk'), ('/', '/z', 'nfs', d + '/lnk'),
                ('/sub', '/w', 'ext4', d + '/sub/rel'), ('/', '/v', 'ext4', 'LABEL=srclook'),
                ('/', '/u', 'ext4', img), ('/', '/t', 'ext4', d + '//lnk/'))):
            fh.write('%d %d 7:%d %s %s rw - %s %s rw\n' % (i + 1, 1 if i else 0, i, root, mp,
                                                          fstype, src))
    lnk = os.path.join(d, 'lnk')
    for args in (['-S', img], [img], ['-f', img], ['-f', '-d', 'backward', img], ['-C', '-S', img],
                 ['-S', lnk], ['-f', '-S', lnk], ['-S', d + '/sub/rel'], ['-f', d + '/sub/rel'],
                 ['-S', d + '/sub/../lnk'], ['-i', '-S', img], ['-f', '-i', '-S', img],
                 ['-S', lnk + '/'], ['-f', '-S', d + '//lnk'], ['-C', '-S', lnk],
                 ['-C', '-f', lnk], ['-S', 'LABEL=srclook'], ['-f', 'LABEL=srclook'],
                 ['-C', '-f', '-S', 'LABEL=srclook'], ['/x'], ['-f', '/x'], ['-f', '--real', '/y'],
                 ['-f', '-R', lnk], ['-f', '-t', 'ext4', '-i', lnk]):
        lookup_pair(t, 'source lookup -F', binary, ['-F', mi, '-r'] + args)
    for args in (['-S', 'lnk'], ['-f', 'lnk'], ['lnk'], ['-S', './sub/rel'], ['-f', 'x']):
        lookup_pair(t, 'source lookup -F', binary, ['-F', mi, '-r'] + args, cwd=d)


def source_lookups_inner(binary, base):
    """In a private mount namespace already: an ext4 with a label on a loop
    device mounted twice (the second covered by a tmpfs), named by a symlink,
    a relative and a ../ path; -C (no cache: nothing resolved, no tag
    probed); -f with --real, --pseudo, --shadowed, -i, -D, -M (ignored by
    its lookup), -t/-O (then a filter again). Prints the tally as JSON."""
    t = Tally()
    img = os.path.join(base, 'srclook.img')
    label = 'srclook-%d' % os.getpid()
    with open(img, 'wb') as fh:
        fh.truncate(8 << 20)
    r = subprocess.run(['losetup', '--find', '--show', img], capture_output=True, text=True)
    if r.returncode:
        print('SKIP source lookups: no loop device: %s' % r.stderr.strip())
        print(json.dumps({'passed': 0, 'failed': 0, 'skipped': 1}))
        return 0
    dev = r.stdout.strip()
    m1, m2, lnk = (os.path.join(base, n) for n in ('sl1', 'sl2', 'sl-lnk'))
    blk = have_blkid(binary, os.devnull)
    try:
        subprocess.run(['mkfs.ext4', '-q', '-F', '-L', label, dev], check=True,
                       capture_output=True)
        os.makedirs(m1), os.makedirs(m2)
        os.symlink(dev, lnk)
        subprocess.run(['mount', '-t', 'ext4', dev, m1], check=True)
        subprocess.run(['mount', '--bind', m1, m2], check=True)
        subprocess.run(['mount', '-t', 'tmpfs', 'srclook', m2], check=True)
        cases = [['-S', lnk], [lnk], ['-S', '/dev/..' + dev], ['-f', lnk],
                 ['-f', '-d', 'backward', lnk], ['-f', '/dev//' + dev[5:]], ['-f', '--shadowed', lnk],
                 ['--shadowed', lnk], ['-f', '--pseudo', '-S', lnk], ['-C', '-S', lnk],
                 ['-C', lnk], ['-C', '-f', lnk], ['-f', '-R', '-S', lnk],
                 ['-f', '--real', '-S', 'proc'], ['-f', '--real', 'proc'],
                 ['-f', '--shadowed', '-S', 'proc'], ['--real', '-S', 'proc'],
                 ['-f', '-i', '-S', 'proc'], ['-f', '-D', '-S', 'proc'],
                 ['-f', '-S', 'proc', '-M', m1], ['-f', 'proc', m1], ['-f', 'srclook', m1],
                 ['-f', '-t', 'proc', '--real', '-S', 'proc'],
                 ['-f', '-O', 'rw', '--real', '-S', 'proc'], ['-f', '--real', m2],
                 ['-C', '-e', '-M', m1]]
        if blk:
            cases += [['-C', '-M', m1, '-o', 'TARGET,LABEL,UUID,PARTUUID'],
                      ['-C', '-S', 'LABEL=' + label], ['-C', 'LABEL=' + label],
                      ['-f', '--pseudo', '-S', 'LABEL=' + label], ['-S', lnk, '-o', 'TARGET,LABEL']]
        for args in cases:
            lookup_pair(t, 'source lookup', binary, ['-r'] + args)
        lookup_pair(t, 'source lookup', binary, ['-r', '-S', './' + dev[5:]], cwd='/dev')
        lookup_pair(t, 'source lookup', binary, ['-r', '-f', dev[5:]], cwd='/dev')
    finally:
        for mp in (m2, m2, m1):
            subprocess.run(['umount', mp], capture_output=True)
        subprocess.run(['losetup', '-d', dev], capture_output=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def source_lookups(t, binary, base):
    source_lookups_file(t, binary, base)
    if os.geteuid() != 0 or not shutil.which('unshare') or not shutil.which('losetup') \
            or not shutil.which('mkfs.ext4'):
        print('SKIP source lookups on a loop device: needs root, unshare, losetup, mkfs.ext4')
        t.skipped += 1
        return
    r = subprocess.run(['unshare', '-m', '--propagation', 'private', sys.executable,
                        os.path.abspath(__file__), '--source-lookups', binary, base],
                       capture_output=True, text=True, errors='surrogateescape')
    out = r.stdout.rstrip('\n').split('\n')
    try:
        res = json.loads(out[-1])
    except ValueError:
        t.check('source lookups', False, r.stdout + r.stderr)
        return
    if len(out) > 1:
        print('\n'.join(out[:-1]))
    t.passed += res['passed']
    t.failed += res['failed']
    t.skipped += res['skipped']


def main():
    if sys.argv[1] == '--live':
        return live_inner(*sys.argv[2:5])
    if sys.argv[1] == '--blkid':
        return blkid_inner(*sys.argv[2:4])
    if sys.argv[1] == '--source-lookups':
        return source_lookups_inner(*sys.argv[2:4])
    binary, data = os.path.abspath(sys.argv[1]), sys.argv[2]
    if not shutil.which('findmnt'):
        print('findmnt missing: nothing to compare against')
        return 77
    t = Tally()
    # FMEQ_ONLY=WORD (by hand): only the inputs whose name holds WORD
    only = os.environ.get('FMEQ_ONLY', '')
    files = sorted(f for f in os.listdir(data) if f.endswith('.txt') and only in f)
    for f in files:
        path = os.path.join(data, f)
        rc, _, err = run([binary, 'list', '-F', path])
        if rc and f in REFUSED_TODAY:
            print('SKIP %s: mntsnap refuses it (%s): %s' % (f, REFUSED_TODAY[f],
                                                           err.decode(errors='replace').strip()))
            t.skipped += 1
            continue
        compare_input(t, f, ['findmnt', '-F', path], [binary, 'list', '-F', path])
        # every form on these, the tree and JSON on the rest (the suite's time)
        compare_options(t, f, ['findmnt', '-F', path], [binary, 'list', '-F', path],
                        forms=None if f in OPT_FILES else [[], ['-J']])
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
        if only in 'live':
            live(t, binary, base)
    if only in 'source-lookups':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-src-') as base:
            source_lookups(t, binary, base)
    if only in 'fstab':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-fstab-') as base:
            fstab(t, binary, data, base)
            if have_blkid(binary, os.path.join(data, 'fstab', 'util-linux.fstab')):
                blkid(t, binary, base)
    print('\n%-12s %6s %6s  first difference' % ('column', 'equal', 'differ'))
    for c in COLUMNS:
        eq, ne, ex = t.cols[c]
        print('%-12s %6d %6d  %s' % (c, eq, ne, ex or ''))
    print('\n%d passed, %d failed, %d skipped' % (t.passed, t.failed, t.skipped))
    return 1 if t.failed else 0


if __name__ == '__main__':
    sys.exit(main())
