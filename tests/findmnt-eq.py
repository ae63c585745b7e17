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
file, a directory of *.fstab in versionsort order with symlinks, FIFOs,
subdirectories and an unreadable file), read by `findmnt -s -F FILE` and `mntsnap
list -s -F FILE` in every output form: stdout byte for byte (JSON parsed),
stderr with the program name aside, the same exit status. -x (--verify,
with and without --verbose) the same way. Tags on real block devices
(LABEL=, UUID=, -e, -S LABEL=, the blkid columns) on loop devices with
an ext4 made here, in a private mount namespace (skipped without root or
loop devices).

The mtab and tables from files (mtab_tid_uuid): -m -x checks the
kernel's table with utab's userspace options ($LIBMOUNT_UTAB); TID of
-F /proc/PID/mountinfo (a task's, a copy under a numbered directory,
/proc/self's: the reader's own pid) and of -F/-N tables read in turn;
stat's (live: its own pid, -N: the task's) and show's (none);
UUID, LABEL, PARTUUID, PARTLABEL of a saved mountinfo (an ext4 with a
label and a UUID on a loop device), also with -C and --output-all.

Mount tables by fstab's rules (kernel_tags_types, and a tmpfs mounted with
the source "LABEL=..." in the live namespace): -x -k on "type.subtype"
fstypes (fuse.rclone, tmpfs.y, ext4.x: the whole string is the type), tag
sources (verified and, with -e, evaluated: SOURCE empty, null in JSON,
SOURCES [null]), an empty source with -C; an option item whose double
quote never closes (kernel_opt_quotes: not found, as libmount's option
parser finds none).

Columns (columns_and_version): --output-all (findmnt's 24 columns in its
order), --vfs-all, -V, and -o lists as findmnt parses them (the last -o
counts, an empty name or a 55th column prints nothing and exits 1), on a
mountinfo file and an fstab written here, in every form;
--list-columns against findmnt -h's column list (-p's columns too).

Numbers (number_args): -N/--task, -w/--timeout and -S MAJ:MIN with the
numbers findmnt reads (decimal only, signs, blanks, 32-bit ranges, overflow)
and refuses: the same value read, or the same refusal in findmnt's words.

Tree shapes (tree_shapes): a namespace's root that is its own parent
(--shadowed keeps it), mounts whose parents the table lacks, before or
after -U's moves, and tables drawn at random (a fixed seed) with both,
lines shuffled: every option that shapes the tree, in every form.

Poll mode (poll_sets, compare_poll_utab, live; poll_args): -m -p (utab's
options in the first batch's old records), --output-all, --vfs-all, -y per
change; -p -N PID and -p -F /proc/PID/mountinfo of a chroot()ed task
(poll_task_chroot: the task's view, moves across its root, filters) and of
a task seen whole in another namespace (propagate_from of its remounted and
propagated slaves as its text shows it); the view fixed when the file is
opened (poll_task_pivot: a task that pivot_root()s while polled;
poll_task_thread: -F /proc/PID/task/TID/mountinfo of a thread with a root
of its own; poll_zombie_leader: a thread's mountinfo and mounts whose
leader has exited; poll_procfs_elsewhere: a task's mountinfo and mounts
on a procfs mounted elsewhere or a bind of /proc, polled, not read once;
poll_procfs_no_proc: the same with /proc unmounted); a task's table in
/proc/mounts' format
(poll_task_mounts, and poll_task_pivot's -F /proc/PID/mounts: rows with no
ids, libmount's diff pairing them by source and mount point, stacked
mounts of one source, /proc/self/mounts, /proc/mounts, a thread's); -p's
ACTIONS and -o lists refused
as findmnt refuses them,
-p beside -m/-s/-x, and -p -F FILE reading an fstab-format FILE at the
start (its parse errors on stderr); -p's end at SIGINT and SIGTERM
(POLL_SIGNALS) and when its pipe's reader is gone: the same exit status.

Task roots (unreached_root in task-kept, poll_unreached_root in
poll-task): -N PID, stat -N PID PATH and -p -N PID of a task whose root
reaches no mount of its namespace (its mount lazily unmounted, here or in
a namespace of its own; a removed directory) or one (a removed directory
that is a bind mount's root), in every form through both backends.

No task access (stat_no_task_access, in task-kept): stat -N PID PATH by a
caller that may not open /proc/PID/root (uid 65534 and a root-owned task;
root without CAP_SYS_PTRACE and CAP_CHECKPOINT_RESTORE and a task with
them) answers as findmnt -N PID -T PATH does from the task's mountinfo.

No procfs (no_procfs, in task-kept; kept, README): list and stat in a
chroot without /proc equal findmnt's reading of the same table where a
procfs is (-F /proc/PID/mountinfo of a task chroot()ed there), and -N,
--backend mountinfo, -F /proc/..., -p are errors that say why.

Abbreviations (abbrevs): every prefix of every findmnt 2.38.1 long option
on DATA_DIR's util-linux-mountinfo.txt, unique ones and those findmnt calls
ambiguous, an option's argument that looks like an option, `--`,
POSIXLY_CORRECT; mntsnap's own options by a prefix; show and stat alike.

Locales (locales): every form, -D and the size columns, -p and -x (its
strerror() text is libc's in LC_MESSAGES, as findmnt's %m), under
locales built here with localedef (a LOCPATH of the test's own; skipped
where localedef or a charmap is missing: Debian's locales package), on
mounts named by bytes each charset prints its own way: the decimal point
(LC_NUMERIC), what a cell shows raw and how wide (LC_CTYPE: Latin-1,
KOI8-R, ISO-8859-7's holes, EUC-JP's double-width and 3-byte characters,
BIG5's second byte that is a backslash), the ASCII tree outside UTF-8,
and findmnt's setlocale(LC_ALL, "") rule for mixed or missing categories.

Translations (gettext): findmnt's words through its catalogue (text domain
"util-linux": Debian's util-linux-locales, installed or its .deb fetched
and unpacked here; skipped without it), bound over /usr/share/locale in a
private namespace, under fr_FR.UTF-8, de_DE.UTF-8, ja_JP.UTF-8 and
ja_JP.EUC-JP (localedef, a LOCPATH of the test's own) and with LANGUAGE,
LC_MESSAGES and LANG apart: -x's report (fstabs that print each of its
messages) and summary, -p's ACTION, --list-columns against findmnt -h's
descriptions, error messages (bad numbers, unreadable files, unknown
columns, a poll column without -p, a bad direction, a parse error).

btrfs subvolumes (btrfs_subvols): -f SOURCE, -S, -d backward, a SOURCE
with a MOUNTPOINT, -C, -J, a UUID= tag, on a btrfs on a loop device
mounted as a subvolume, the top volume and a nested subvolume (libmount's
lookup takes the mount of the default subvolume as the mount point
answers it), before and after `btrfs subvolume set-default`, with the
default mounted nowhere, a mount point covered, as uid 65534, on a -F
copy of the table, show of a snapshot of it (also a LABEL= tag; asked only
where the saved device's btrfs is there: another btrfs stacked on the
saved mount points), stat PATH -f with -t/-O, and on an fstab of that
device (skipped, saying why, without root, btrfs-progs, a loop device or
the btrfs module).

Standard streams (std_streams, std-streams): the rule of util-linux's
close_stdout() in list, show, stat, every form and -p: stdout closed
(`>&-`) prints nothing and exits by the match, as does a pipe without a
reader (SIGPIPE ignored) at the last flush; a failed write before it (an
output past the 8 KiB buffer of a closed stdout) is an error; a warning
written into a closed or full stderr is exit 1. -x's summary (stderr)
among its report's lines (stdout) on a terminal and with 2>&1 into a
pipe and a file, byte for byte: stdout buffered as glibc buffers it.

Repeated mount ids (dup_ids): one mountinfo file given twice, two that
share ids, a file that repeats ids, random such text (ids below their
children's, so no id cycle), and -N PID -F /proc/PID/mountinfo of a
private namespace: the tree, -R, -U's PARENT, --shadowed, -f, -D in
every form, and -x -m --shadowed (libmount links by id: each line of an
id has the children, a child's first line only).

Mount point lookups (target_lookups): -M, -T, MOUNTPOINT (alone and after
a SOURCE), with -C/--nocanonicalize, -R, -f, -d, -i, on a -F table whose
mount point text no kernel writes ("/a/", "//b", "rel", "/e/./f"), asked
for with slashes repeated or trailing, through symlinks, relative to the
working directory, and -T below a mount point; the same on a live private
namespace (both backends) and on that table saved (show). stat PATH as
findmnt -T PATH where PATH's mount is in no table: a magic link to, and
the working directory in, a mount detached by umount -l (task-kept: a
chroot()ed caller's link to a mount outside its root, and its paths once
a mount covers its root from outside).

-c's path cache order (cache_spellings_*, in source-lookups): which
spelling of a path that does not resolve findmnt prints, as the cache
kept it first: -S's argument, the sources of lines printed before it
(-i, -R's submounts, -d, -f), -T/-M's path, -U's compares of mount
points (also a symlinked mount point dropped), on -F tables and a live
private namespace through both backends.

  findmnt-eq.py MNTSNAP_BIN DATA_DIR
Prints a column-by-column table and "N passed, N failed".
"""
import contextlib
import ctypes
import itertools
import json
import os
import random
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

# util-linux's debug switches (libsmartcols' LIBSMARTCOLS_DEBUG and
# LIBSMARTCOLS_DEBUG_PADDING, which prints padding as '.', libmount's,
# libblkid's, ...) change findmnt's bytes; they are the libraries'
# debugging aids, not findmnt's interface (README: kept on purpose), so
# nothing here runs with them, whatever the caller's environment holds.
UL_DEBUG_ENV = ('LIBMOUNT_DEBUG', 'LIBBLKID_DEBUG', 'LOOPDEV_DEBUG', 'ULPATH_DEBUG',
                'ULSYSFS_DEBUG', 'ULPROCFS_DEBUG', 'ULFILEEQ_DEBUG', 'TERMINAL_COLORS_DEBUG')


def clear_ul_debug_env():
    for k in list(os.environ):
        if k.startswith('LIBSMARTCOLS_') or k in UL_DEBUG_ENV:
            del os.environ[k]


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
OPT_FILES = ('util-linux-mountinfo.txt', 'mntsnap-escapes.txt', 'moby-fedora.txt',
             'mntsnap-super-options.txt')
OPT_FORMS = [[], ['-l'], ['-r'], ['-P'], ['-J'], ['-J', '-l'], ['-n'], ['-l', '-n'], ['-a'],
             ['-r', '-n']]


def excl_same(ea, eb):
    """findmnt's refusal of options together (err_exclusive_options()) in
    its words, mntsnap's command where findmnt names itself."""
    return ea.startswith(b'findmnt') and \
        re.sub(rb'^mntsnap: (list|show|stat)', b'findmnt', eb) == ea


def same_output(args, ra, a, rb, b, ea=b'', eb=b''):
    """'' when mntsnap said what findmnt said, else what differs."""
    # options findmnt refuses together: mntsnap refuses them too, with its
    # exit status for an error (2; findmnt's is 1), kept on purpose (README)
    if b'mutually exclusive' in ea:
        return '' if (ra, rb, a, b) == (1, 2, b'', b'') and excl_same(ea, eb) else (
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


@contextlib.contextmanager
def ns_task(t, what, script, arg):
    """A task in a private mount namespace of its own, sh -c SCRIPT (ARG
    its $1), once it printed "ready": its pid as a string, or None after
    checking that its setup (WHAT) failed. Killed on the way out."""
    p = subprocess.Popen(['unshare', '-m', '--propagation', 'private', 'sh', '-c', script,
                          'sh', arg], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if p.stdout.readline().strip() != b'ready':
            t.check('%s setup' % what, False, p.stderr.read().decode(errors='replace'))
            yield None
        else:
            yield str(p.pid)
    finally:
        p.kill()
        p.wait()


def compare_other_ns(t, binary, base, backend):
    """-N PID of a process in a mount namespace of its own, with reused IDs."""
    os.makedirs(os.path.join(base, 'other-ns'), exist_ok=True)
    with ns_task(t, 'live(%s) -N other namespace' % backend, OTHER_NS, base) as pid:
        if not pid:
            return
        name = 'live(%s) -N other' % backend
        KNOWN[name, 'TID'] = 'each process reads its own /proc/self'
        compare_input(t, name, ['findmnt', '-N', pid],
                      [binary, 'list', '--backend', backend, '-N', pid])
        compare_ordered(t, name, ['findmnt', '-N', pid],
                        [binary, 'list', '--backend', backend, '-N', pid])


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


# -U on a stack three deep with a mount on its bottom one, and -C -T on
# paths that are not there, symlinks, relative paths, "." and "..".
UNIQ_NOCANON = r"""
set -e
mkdir -p "$1"
mount -t tmpfs u "$1"
mkdir -p "$1/s" "$1/sub/deeper" "$1/m"
mount -t tmpfs s1 "$1/s"
mkdir -p "$1/s/under"
mount -t tmpfs under "$1/s/under"
mount -t tmpfs s2 "$1/s"
mount -t tmpfs s3 "$1/s"
mount -t tmpfs m "$1/m"
mkdir -p "$1/m/x"
touch "$1/m/file"
ln -s "$1/m" "$1/lnk"
ln -s m "$1/rlnk"
"""


def compare_uniq_nocanon(t, name, ms_cmd, base):
    """-U's PARENT (libmount re-parents what it keeps) in every form, and
    -C -T's lookups by the text (nothing for a path that is not there)."""
    u = os.path.join(base, 'uniq-nocanon')
    r = subprocess.run(['sh', '-c', UNIQ_NOCANON, 'sh', u], capture_output=True)
    if r.returncode:
        t.check('%s -U/-C setup' % name, False, r.stderr.decode(errors='replace'))
        return
    cols = ['-o', 'TARGET,SOURCE,ID,PARENT']
    sets = [['-U', '-M', u + '/s'] + cols, ['-U', '-R', '-M', u] + cols,
            ['-U', '-R', '-M', u, '-o', 'TARGET,ID,PARENT'], ['-U', '-t', 'tmpfs'] + cols,
            ['-U'] + cols, ['-U', '--tree', '-T', u + '/s'] + cols]
    old = os.getcwd()
    os.chdir(u)
    for c in ('', '-C'):
        for path in (u + '/nonexistent', u + '/sub/nonexistent', u + '/lnk', u + '/lnk/x',
                     u + '/rlnk/x', u + '/m/file', u + '//m/', u + '/sub/../m/x',
                     u + '/./m/x', u + '/nonexistent/../m', 'm/x', 'm', 'sub/deeper', 'lnk/x',
                     'nonexistent', '.', './m', '../uniq-nocanon/m', ''):
            sets.append(([c] if c else []) + ['-T', path])
        for path in (u + '/sub/../m', u + '/./m', '//' + u + '//m//', '', 'm'):
            sets.append(([c] if c else []) + ['-M', path])
    try:
        for opts in sets:
            for form in ([], ['-l'], ['-r'], ['-P'], ['-J']):
                ra, a, ea = run(['findmnt'] + opts + form)
                rb, b, eb = run(ms_cmd + opts + form)
                why = same_output(form, ra, a, rb, b, ea, eb)
                t.check('%s %s %s' % (name, ' '.join(opts), ' '.join(form)), not why, why)
    finally:
        os.chdir(old)
        subprocess.run(['umount', '-R', u], capture_output=True)


# findmnt --poll's filters: each change shown only when its record (the
# new one; an umount's old one) matches, as findmnt's poll_match() decides.
# One command per step, each making its changes in one system call, so a
# step is one batch for both programs. No step stacks a mount of the
# same source on the same mount point and no source is empty: findmnt's
# pairing misreports those (POLL_KEPT).
POLL_STEPS = [
    'mount -t tmpfs t1 a', 'mount -o remount,ro a', 'mount --move a b',
    'mount -t tmpfs "s p" "sp ace"', 'mount -o remount,size=2m "sp ace"',
    'mount -t tmpfs s1 st', 'mount -t tmpfs s2 st', 'mkdir -p st/in',
    'mount -t tmpfs in st/in', 'mount --rbind tree rb', 'umount -l rb',
    'umount b', 'umount "sp ace"', 'umount -l st',
]


def poll_sets(d):
    p = lambda x: os.path.join(d, x)
    return [['-M', p('b')], ['-T', p('b')], ['-S', 't1'], ['-t', 'tmpfs', '-O', 'ro'],
            ['-i', '-t', 'tmpfs'], [p('b')], ['t1'], ['t1', p('b')], ['-f'],
            ['-f', '-t', 'tmpfs', '-O', 'ro'], ['-d', 'backward'], ['-d', 'backward', '-f'],
            ['--shadowed'], ['--shadowed', '-i'], ['--real'], ['--pseudo', '-r'],
            ['-v', '-S', 'tr'], ['-O', 'size=2048k'], ['-C', '-T', p('b')], ['-T', 'b'],
            ['-C', '-T', 'b'], ['-T', p('nonexistent')], ['-i'], ['-S', 'in', '-r'],
            ['-M', p('st'), '-o', '+OLD-TARGET,OLD-OPTIONS'], ['-D'], ['-R', '-M', d],
            ['--poll=umount', '-t', 'tmpfs', '-S', 'in'], ['-p', '-d', 'backward', '-P'],
            ['--shadowed', '-o', '+OLD-TARGET'], ['--shadowed', '-S', 'k1', '-r'],
            ['-S', 'k2', '-d', 'backward'],
            # -S MAJ:MIN is a device number test (no change here is on it)
            ['-S', '4095:4095'], ['-S', '4095:4095', '-i', '-r'],
            # a task's table in /proc/PID/mounts' format: libmount gives
            # TID to mountinfo text only, so the cells are empty; its diff
            # compares FS options only when both records have some, so the
            # remount that gives "sp ace" its first (size=2m) is no line
            ['-r', '-o', '+TID', '-F', '/proc/%d/mounts' % os.getpid()],
            # findmnt de-duplicates only its first table: its first batch
            # shows each mount -U dropped there (a stack) as mounted
            ['-U'], ['-U', '-r', '-o', '+OLD-OPTIONS'], ['-U', '-t', 'tmpfs', '-S', 'st1'],
            # -m polls as -p alone (findmnt 2.38.1's exclusive-option check
            # never sees -m beside -p)
            ['-m'], ['-m', '-r', '-p'], ['-p', '-m', '-o', '+OLD-OPTIONS']] + [
            # --output-all: findmnt's 24 columns, no ACTION; TID is the
            # task the table is read from, here this one for both
            ['--output-all', '-F', '/proc/%d/mountinfo' % os.getpid()] + f
            for f in ([], ['-r'], ['-P'], ['-l', '-n'], ['-o', '+ACTION'], ['-D'],
                      ['-o', '+OLD-TARGET,OLD-OPTIONS', '-b'], ['-o', 'ACTION,TARGET'])] + [
            ['--vfs-all', '-o', 'TARGET,VFS-OPTIONS'], ['-o', 'ACTION,VFS-OPTIONS', '--vfs-all', '-r'],
            # -y: shell names in the heading and -P's names (widths by findmnt's own)
            ['-y', '-P', '-o', '+MAJ:MIN,USE%,OLD-TARGET'], ['-y', '-r', '-o', '+OLD-OPTIONS,USE%'],
            ['-y', '-o', '+FS-OPTIONS,USE%,OLD-TARGET'], ['-y', '-D']]


def compare_poll_filters(t, name, binary, base):
    d = os.path.join(base, 'poll-filters')
    os.makedirs(d)
    subprocess.run(['mount', '-t', 'tmpfs', 'pf', d], check=True)
    for x in ('a', 'b', 'sp ace', 'st', 'rb', 'tree'):
        os.makedirs(os.path.join(d, x))
    subprocess.run(['mount', '-t', 'tmpfs', 'tr', os.path.join(d, 'tree')], check=True)
    os.makedirs(os.path.join(d, 'tree', 'x'))
    subprocess.run(['mount', '-t', 'tmpfs', 'trx', os.path.join(d, 'tree', 'x')], check=True)
    # a stack in the tree: its copy's lower mount is shadowed (--shadowed)
    os.makedirs(os.path.join(d, 'tree', 'k'))
    for src in ('k1', 'k2'):
        subprocess.run(['mount', '-t', 'tmpfs', src, os.path.join(d, 'tree', 'k')], check=True)
    old = os.getcwd()
    os.chdir(d)
    procs = []
    try:
        for i, opts in enumerate(poll_sets(d)):
            # -w: a poller that sees no change for that long ends; under a
            # sanitizer 120 starting pollers can hold off the first step
            # for seconds, so the bound is far above the 4 s wait below
            args = (opts if opts[0].startswith('-p') or opts[0].startswith('--poll') else
                    ['-p'] + opts) + ['-w', '15000']
            for who, cmd in (('f', ['findmnt']), ('m', [binary, 'list'])):
                out = open(os.path.join(base, 'poll-%d.%s' % (i, who)), 'wb+')
                procs.append((i, who, subprocess.Popen(cmd + args, stdout=out,
                                                       stderr=subprocess.STDOUT), out))
        # every poller has read its first table before the first step,
        # even on a loaded machine
        time.sleep(4)
        # a second between steps: about 120 pollers share the machine, and
        # one that wakes late reads two steps as one batch, which -d
        # backward then prints in another order than the one that did not
        for step in POLL_STEPS:
            subprocess.run(['sh', '-c', step], check=True, capture_output=True)
            time.sleep(1)
        res = poll_results(procs)
        for i, opts in enumerate(poll_sets(d)):
            (ra, a), (rb, b) = res[i, 'f'], res[i, 'm']
            why = '' if (ra, a) == (rb, b) else short(
                'exit %d/%d\\nfindmnt %r\\nmntsnap %r' % (ra, rb, a, b), 1500)
            t.check('%s --poll %s' % (name, ' '.join(opts)), not why, why)
    finally:
        poll_stop(procs)
        os.chdir(old)
        subprocess.run(['umount', '-R', '-l', d], capture_output=True)


def poll_results(procs):
    """{(set, 'f' or 'm'): (exit status, output)} of the poll processes
    (set, who, Popen, output file), each given 30 s to end, then killed."""
    res = {}
    for i, who, p, out in procs:
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        out.seek(0)
        res[i, who] = (rc, out.read())
    return res


def poll_stop(procs):
    """Kill what is still running of the poll processes, close their output."""
    for i, who, p, out in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
        out.close()


def has_mountinfo(pid):
    """Whether pid holds a mountinfo file open."""
    try:
        return any(os.readlink('/proc/%d/fd/%s' % (pid, f)).endswith('/mountinfo')
                   for f in os.listdir('/proc/%d/fd' % pid))
    except OSError:
        return False


def polling(pids, timeout=60):
    """Wait until each process holds a mountinfo or mounts file open (the
    table it polls: read, or about to be), then a little more."""
    end = time.monotonic() + timeout
    for pid in pids:
        while time.monotonic() < end:
            try:
                fds = os.listdir('/proc/%d/fd' % pid)
                if any(os.readlink('/proc/%d/fd/%s' % (pid, f)).endswith(('/mountinfo', '/mounts'))
                       for f in fds):
                    break
            except OSError:
                pass
            time.sleep(0.05)
    time.sleep(0.5)


# glibc's last words when its heap checks abort a process (malloc.c's
# malloc_printerr(): "double free or corruption (fasttop)", "free(): invalid
# pointer", ...), one line on stderr
GLIBC_HEAP_ABORT = re.compile(rb'(?m)^(double free or corruption|free\(\)|malloc\(\)|'
                              rb'realloc\(\)|munmap_chunk\(\)|corrupted )[^\n]*\n\Z')


def poll_history(t, name, binary, sets, steps, env, cwd, wait_open=False, segv_ok=False,
                 chroot=None, inner=None, wrap=None):
    """Each option set polled by both programs through the same steps
    (each one batch): the same bytes and exit status. wait_open: every
    set polls a mountinfo, wait until each poller has it open (a loaded
    machine may start one late) rather than a fixed time, and give each
    -w time enough for the wait. segv_ok: findmnt 2.38.1 killed by
    SIGSEGV, or by SIGABRT from glibc's heap checks ("double free or
    corruption (fasttop)"), after its last line (seen now and then with a
    tag column over a loop device whose symlink was retargeted) is
    findmnt's crash: its output without glibc's one line is still
    compared, mntsnap's exit status must be 0. chroot: both programs run
    chroot()ed there, mntsnap as inner (its path inside). wrap: a command
    both programs run under (it execs them: the pids stay theirs)."""
    procs = []
    pre = ['chroot', chroot] if chroot else []
    pre = wrap + pre if wrap else pre
    idle = '10000' if wait_open else '3000'
    try:
        for i, opts in enumerate(sets):
            for who, cmd in (('f', pre + ['findmnt']), ('m', pre + [inner or binary, 'list'])):
                out = tempfile.TemporaryFile()
                procs.append((i, who, subprocess.Popen(cmd + opts + ['-w', idle], stdout=out,
                                                       stderr=subprocess.STDOUT, env=env,
                                                       cwd=cwd), out))
        if wait_open:
            polling([p.pid for _, _, p, _ in procs])
        else:
            time.sleep(1.5)
        for step in steps:
            subprocess.run(['sh', '-c', step], check=True, capture_output=True, cwd=cwd)
            time.sleep(0.4)
        res = poll_results(procs)
        for i, opts in enumerate(sets):
            (ra, a), (rb, b) = res[i, 'f'], res[i, 'm']
            if segv_ok and ra in (-signal.SIGSEGV, -signal.SIGABRT) and rb == 0:
                print('NOTE %s %s: findmnt crashed (signal %d), output compared'
                      % (name, ' '.join(opts), -ra))
                ra = 0
                a = GLIBC_HEAP_ABORT.sub(b'', a)
            why = '' if (ra, a) == (rb, b) else short(
                'exit %d/%d\nfindmnt %r\nmntsnap %r' % (ra, rb, a, b), 1500)
            t.check('%s %s' % (name, ' '.join(opts)), not why, why)
        t.check('%s: something printed' % name, any(res[i, 'f'][1] for i in range(len(sets))),
                'nothing printed by any set')
    finally:
        poll_stop(procs)


# Kept (README): findmnt's -p is libmount's mnt_diff_tables(), which pairs
# the old and new tables' mounts by (source, target), not by mount id. A
# second mount of the same source on the same target pairs with the first
# (no "mount", and no "umount" for one of the two); a mount with an empty
# source pairs with nothing, so every later change shows it as a "move"
# to where it is. mntsnap reports each mount and umount the kernel made.
POLL_KEPT = [
    ('stack', ['mount -t tmpfs t1 a', 'mount -t tmpfs t1 a', 'umount a', 'umount a'],
     [b'mount a t1', b'mount a t1', b'umount a t1', b'umount a t1'],
     [b'mount a t1', b'umount a t1']),
    ('empty-source', [None, 'mount -t tmpfs t2 b', 'umount b', 'umount a'],
     [b'mount a ', b'mount b t2', b'umount b t2', b'umount a '],
     [b'mount a ', b'move a ', b'mount b t2', b'move a ', b'umount b t2', b'umount a ']),
]


def compare_poll_kept(t, name, binary, base):
    """The two -p histories findmnt's pairing misreports: mntsnap's lines
    are the kernel's events, findmnt's the pairing's (kept, README)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    for shape, steps, want, fm in POLL_KEPT:
        d = os.path.join(base, 'poll-kept-' + shape)
        os.makedirs(d)
        subprocess.run(['mount', '-t', 'tmpfs', 'pk', d], check=True)
        os.makedirs(os.path.join(d, 'a'))
        os.makedirs(os.path.join(d, 'b'))
        procs = []
        try:
            for who, cmd in (('f', ['findmnt']), ('m', [binary, 'list'])):
                out = tempfile.TemporaryFile()
                procs.append((0, who, subprocess.Popen(
                    cmd + ['-p', '-r', '-n', '-o', 'ACTION,TARGET,SOURCE', '-w', '2000'],
                    stdout=out, stderr=subprocess.STDOUT, cwd=d), out))
            time.sleep(1.5)
            for step in steps:
                if step is None:  # mount(2) with source "": mount(8) cannot
                    if libc.mount(b'', os.path.join(d, 'a').encode(), b'tmpfs', 0, None):
                        raise OSError(ctypes.get_errno(), 'mount "" a')
                else:
                    subprocess.run(['sh', '-c', step], check=True, capture_output=True, cwd=d)
                time.sleep(0.4)
            res = poll_results(procs)
            rel = lambda out: [l.replace(d.encode() + b'/', b'', 1) for l in out.splitlines()]
            (ra, a), (rb, b) = res[0, 'f'], res[0, 'm']
            t.check('%s -p %s: mntsnap reports each kernel event, findmnt\'s pairing does not '
                    '(kept)' % (name, shape),
                    rb == 0 and rel(b) == want and rel(a) == fm,
                    'findmnt %r / mntsnap %d %r' % (a, rb, b))
        finally:
            for i, who, p, out in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
                out.close()
            subprocess.run(['umount', '-R', '-l', d], capture_output=True)


def mount_id(path):
    """The 32-bit mount ID of the mount on path (the last one, as stacked)."""
    found = None
    with open('/proc/self/mountinfo', 'rb') as f:
        for line in f:
            fields = line.split()
            if fields[4] == os.fsencode(path):
                found = int(fields[0])
    return found


def compare_poll_reused(t, name, binary, base):
    """Kept (README): an umount and a mount of the same source elsewhere in
    one batch, the new mount given the freed 32-bit ID: libmount's diff
    pairs an umount with a mount of the same source and ID as a "move",
    mntsnap reports the umount and the mount the kernel made. Both pollers
    are stopped while the two calls run, so each reads them as one batch;
    tried until the kernel hands the ID back (lowest free first: low free
    IDs are taken up first), skipped if it never does."""
    d = os.path.join(base, 'poll-kept-reused')
    os.makedirs(d)
    subprocess.run(['mount', '-t', 'tmpfs', 'pr', d], check=True)
    procs = []
    try:
        for i in range(150):
            os.makedirs(os.path.join(d, 'fill', str(i)))
            subprocess.run(['mount', '-t', 'tmpfs', 'fill', os.path.join(d, 'fill', str(i))],
                           check=True)
        for x in ('x', 'y'):
            os.makedirs(os.path.join(d, x))
        for _ in range(10):
            subprocess.run(['mount', '-t', 'tmpfs', 'tr', 'x'], check=True, cwd=d)
            old = mount_id(os.path.join(d, 'x'))
            procs = []
            for who, cmd in (('f', ['findmnt']), ('m', [binary, 'list'])):
                out = tempfile.TemporaryFile()
                procs.append((0, who, subprocess.Popen(
                    cmd + ['-p', '-r', '-n', '-o', 'ACTION,TARGET,SOURCE', '-w', '5000'],
                    stdout=out, stderr=subprocess.STDOUT, cwd=d), out))
            time.sleep(1.5)
            for _, _, p, _ in procs:
                os.kill(p.pid, signal.SIGSTOP)
            subprocess.run(['umount', 'x'], check=True, cwd=d)
            subprocess.run(['mount', '-t', 'tmpfs', 'tr', 'y'], check=True, cwd=d)
            new = mount_id(os.path.join(d, 'y'))
            for _, _, p, _ in procs:
                os.kill(p.pid, signal.SIGCONT)
            res = poll_results(procs)
            poll_stop(procs)
            procs = []
            subprocess.run(['umount', 'y'], check=True, cwd=d)
            if old != new:
                continue
            rel = lambda out: sorted(l.replace(d.encode() + b'/', b'', 1)
                                     for l in out.splitlines())
            (ra, a), (rb, b) = res[0, 'f'], res[0, 'm']
            t.check('%s -p reused id: mntsnap reports the umount and the mount, findmnt\'s '
                    'pairing a move (kept)' % name,
                    rb == 0 and rel(b) == [b'mount y tr', b'umount x tr'] and
                    rel(a) == [b'move y tr'], 'findmnt %r / mntsnap %d %r' % (a, rb, b))
            return
        print('SKIP %s -p reused id: the kernel never handed the freed mount ID back' % name)
        t.skipped += 1
    finally:
        poll_stop(procs)
        subprocess.run(['umount', '-R', '-l', d], capture_output=True)


def compare_poll_utab(t, name, binary, base):
    """-m -p: findmnt starts from the mtab (utab's userspace options in
    OPTIONS) and reads every later table from mountinfo: only the first
    batch's records from before (an umount's OPTIONS, OLD-OPTIONS) show
    them. Two histories, an umount first and a remount first."""
    d = os.path.join(base, 'poll-utab')
    os.makedirs(d)
    subprocess.run(['mount', '-t', 'tmpfs', 'pu', d], check=True)
    utab = os.path.join(d, 'utab')
    env = dict(os.environ, LIBMOUNT_UTAB=utab)
    sets = [['-m', '-p', '-o', '+OLD-OPTIONS'], ['-p', '-m', '-r', '-o', '+OLD-OPTIONS'],
            ['-p', '-o', '+OLD-OPTIONS'], ['-m', '-p', '-P'],
            ['-m', '-p', '-F', '/proc/self/mountinfo', '-o', 'ACTION,OLD-OPTIONS'],
            ['-m', '-p', '-F', '/proc/self/mounts', '-o', 'ACTION,OLD-OPTIONS'],
            # -O matches the mtab's options, utab's among them
            ['-m', '-p', '-O', 'user=joe'], ['-m', '-p', '-i', '-O', 'user=joe', '-r'],
            ['-m', '-p', '-O', 'noauto', '-r'], ['-p', '-O', 'user=joe']]
    try:
        for first in ('umount a', 'mount -o remount,ro b'):
            for x in ('a', 'b'):
                os.makedirs(os.path.join(d, x), exist_ok=True)
                subprocess.run(['mount', '-t', 'tmpfs', 'u' + x, os.path.join(d, x)], check=True)
            with open(utab, 'w') as f:
                for x, opts in (('a', 'user=joe,noauto'), ('b', 'x-foo')):
                    r = subprocess.run(['findmnt', '-n', '-o', 'ID', '-M', os.path.join(d, x)],
                                       capture_output=True, text=True)
                    f.write('ID=%s SRC=u%s TARGET=%s ROOT=/ OPTS=%s\n' % (
                        r.stdout.strip(), x, os.path.join(d, x), opts))
            steps = [first, 'mount -o remount,ro b' if first == 'umount a' else 'umount a',
                     'umount b']
            # -S MAJ:MIN beside ARG: findmnt never retries ARG as a mount point
            mm = subprocess.run(['findmnt', '-n', '-o', 'MAJ:MIN', '-M', os.path.join(d, 'b')],
                                capture_output=True, text=True).stdout.strip()
            devno = [['-p', '-S', mm, os.path.join(d, 'b')], ['-p', '-S', mm, 'ub']]
            poll_history(t, '%s -m -p, first %r:' % (name, first), binary, sets + devno, steps,
                         env, d)
            subprocess.run(['umount', '-R', '-l', os.path.join(d, 'b')], capture_output=True)
            subprocess.run(['umount', '-R', '-l', os.path.join(d, 'a')], capture_output=True)
    finally:
        subprocess.run(['umount', '-R', '-l', d], capture_output=True)


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
        # a bind's source as findmnt prints it, DEV[/fsroot]: no source
        rb_src = subprocess.run(['findmnt', '-n', '-o', 'SOURCE', '-M', p('rb')],
                                capture_output=True, text=True).stdout.strip()
        sets = [[rb_src], ['-t', 'ext4', rb_src], ['-R', rb_src], ['src[/sub]'],
                ['-f', '-M', p('st')], ['-M', p('st')], ['-d', 'backward', '-M', p('st')],
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
                            ['-i', '-M', p('st')], ['--tree', '-S', 'st2'],
                            [rb_src], ['-t', 'ext4', rb_src], ['src[/sub]']],
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
        if blkid_or_skip(t, binary, '/dev/null', '%s -x -k' % name):
            for args in (['-x', '-k'], ['-x', '-k', '--verbose'], ['-x', '-k', '-t', 'tmpfs'],
                         ['-x', '-k', '--verbose', '-T', os.path.join(base, 'ro')]):
                fstab_same(t, name, args, [binary, 'list', '--backend', backend] + args)
        compare_other_ns(t, binary, base, backend)
        if blkid_or_skip(t, binary, '/dev/null', '%s kernel tags' % name):
            kernel_tags_live(t, name, binary, base, backend)
        compare_uniq_nocanon(t, name, [binary, 'list', '--backend', backend], base)
        if backend == 'statmount':
            compare_poll_filters(t, name, binary, base)
            compare_poll_utab(t, name, binary, base)
            compare_poll_kept(t, name, binary, base)
            compare_poll_reused(t, name, binary, base)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped,
                      'cols': t.cols}))
    return 0


def live(t, binary, base):
    if not can_unshare(t, 'live tables'):
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
        t.skipped += res['skipped']
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


def fstab_same(t, name, fm, ms, env=None, json_out=False, pre=(), before=None):
    """findmnt FM against the command MS (both after the command prefix
    PRE, e.g. setpriv's): the same stdout (JSON by value), stderr with the
    program's name aside, exit status. BEFORE: called before each run."""
    if before:
        before()
    ra, a, ea = run(list(pre) + ['findmnt'] + fm, env)
    if before:
        before()
    rb, b, eb = run(list(pre) + ms, env)
    why = []
    # findmnt's tree exits 0 when nothing matched (its list: 1); mntsnap
    # says 1 in every form, kept (README)
    empty = b'{}[]\n "filesystems:'
    if ra == 0 and rb == 1 and not a.strip(empty) and not b.strip(empty):
        ra = 1
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
    # a directory: its *.fstab files, nothing else
    d = os.path.join(base, 'fstab.d')
    fstab_dir(d, base)
    out.append(('dir', d))
    return out


# libmount's directory of fstabs (mnt_table_parse_dir()): the names ending
# in .fstab, not hidden, in versionsort (glibc strverscmp) order, each
# read if stat() (through symlinks) finds a regular file; the rest (a
# directory, a symlink to one, a dangling or looping symlink, a FIFO)
# passed over silently. Names that byte order sorts otherwise.
FSTAB_DIR = (
    ('b.fstab', b'b /b t o 1 1\n'), ('a.fstab', b'a /a t o\nbad\n'),
    ('.hidden.fstab', b'h /h t o\n'), ('c.txt', b'c /c t o\n'), ('.fstab', b'x /x t o\n'),
    ('2.fstab', b'two /two t o\n'), ('10.fstab', b'ten /ten t o\n'),
    ('v1.9.fstab', b'v19 /v1.9 t o\n'), ('v1.10.fstab', b'v110 /v1.10 t o\n'),
    ('v1.010.fstab', b'v1010 /v1.010 t o\n'), ('v1.09.fstab', b'v109 /v1.09 t o\n'),
    ('v1.0.fstab', b'v10 /v1.0 t o\n'), ('v1.00.fstab', b'v100 /v1.00 t o\n'),
    ('v1.0a.fstab', b'v10a /v1.0a t o\n'), ('v1.a.fstab', b'v1a /v1.a t o\n'),
    ('Z.fstab', b'Z /Z t o\n'), ('x.fstab.bak', b'bak /bak t o\n'))


def fstab_dir(d, base):
    os.mkdir(d)
    for n, body in FSTAB_DIR:
        with open(os.path.join(d, n), 'wb') as fh:
            fh.write(body)
    outside = os.path.join(base, 'outside-fstab')
    with open(outside, 'wb') as fh:
        fh.write(b'out /outside t o\n')
    os.mkdir(os.path.join(d, 'sub.fstab'))
    os.mkfifo(os.path.join(d, 'fifo.fstab'))
    for n, to in (('l.fstab', 'b.fstab'), ('abs.fstab', outside), ('dangling.fstab', 'nowhere'),
                  ('ld.fstab', 'sub.fstab'), ('loop.fstab', 'loop.fstab'),
                  ('.hl.fstab', 'b.fstab'), ('lt.fstab', 'c.txt')):
        os.symlink(to, os.path.join(d, n))


def have_blkid(binary, path):
    rc, _, err = run([binary, 'list', '-s', '-F', path, '-o', 'LABEL'])
    return not (rc == 2 and b'libblkid' in err)


def blkid_or_skip(t, binary, path, what):
    """have_blkid(); without libblkid, the checks it leaves out (what) are
    named and counted as skipped, so a run's count shows the gap."""
    if have_blkid(binary, path):
        return True
    print('SKIP %s: this mntsnap has no libblkid' % what)
    t.skipped += 1
    return False


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
            # a newline in a SOURCES value: a table wraps the cell onto a
            # line of its own (hostile-escapes)
            for o in ([], ['-o', ','.join(fcols)]):
                fstab_same(t, name, ['-s', '-F', path] + args + o,
                           [binary, 'list', '-s', '-F', path] + args + o,
                           json_out='-J' in args)
        cenv = dict(os.environ, LC_ALL='C')
        for args in ([], ['-r'], ['-P']):
            ccols = ','.join(fcols)
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
    # errors: a file that is not there, not readable as fstab (a device, a
    # FIFO: fstab is read by name, never a pipe's), a directory of nothing;
    # -x without a table still counts the parse errors
    fifo = os.path.join(base, 'fstab-fifo')
    os.mkfifo(fifo)
    for bad in ('/nonexistent-fstab-x', '/dev/null', fifo, base + '/fstab.d/c.txt'):
        ra, a, ea = run(['findmnt', '-s', '-F', bad])
        rb, b, eb = run([binary, 'list', '-s', '-F', bad])
        # findmnt's "can't read" ends in a stale errno where the path is
        # neither a file nor a directory (/dev/null, a FIFO: "No such file
        # or directory"); mntsnap says why (EINVAL, libmount's own return),
        # as README keeps: only the text before differs
        same_why = ea.split(b': ')[-1] == eb.split(b': ')[-1] or bad in ('/dev/null', fifo)
        ok = (ra, rb) in ((0, 0), (1, 1), FSTAB_ERROR_EXIT) and a == b and (
            norm_err(ea) == norm_err(eb) or (b"can't read %s" % bad.encode() in ea and
                                              b"can't read %s" % bad.encode() in eb and
                                              same_why))
        t.check('fstab error %s' % bad, ok, 'exit %d/%d: %r / %r' % (ra, rb, ea, eb))
    fstab_dir_unreadable(t, binary, base)
    if blkid:
        vpath = os.path.join(base, 'verify.fstab')
        with open(vpath, 'wb') as fh:
            fh.write(VERIFY)
        fstab_verify(t, binary, 'verify', vpath,
                     extra=(['-t', 'swap'], ['-O', 'noauto'], ['-T', '/tmp'], ['/dev/null']))
        tag_line_first_cases(t, binary, base)



def tag_line_first_cases(t, binary, base):
    """An fstab whose tag line (LABEL=, UUID=) comes before a line whose
    source is an unattached image file with that tag: findmnt computes
    each row's cells when it finds the row, so the tag line's LABEL, UUID,
    SOURCES (and SOURCE with -e) are what nothing had probed yet gives
    (empty, the tag's own text); the image line's probe teaches the cache
    only for the rows after it. Every form, with and without the filters
    that find rows before printing them; a mountinfo text with a tmpfs
    whose source is the tag the same way. libblkid's cache file is a
    private one, removed before each run."""
    if not shutil.which('mkfs.ext4'):
        print('SKIP tag line before its image: needs mkfs.ext4')
        t.skipped += 1
        return
    label, uuid = 'tlf-%d' % os.getpid(), '0a0a0a0a-1111-2222-3333-%012d' % os.getpid()
    img = image_file(base, 'tlf.img', 8 << 20, ['mkfs.ext4', '-q', '-F', '-L', label, '-U', uuid])
    if img is None:
        t.skipped += 1
        return
    env = dict(os.environ, BLKID_FILE=os.path.join(base, 'tlf-blkid.tab'))
    files = {}
    for tag in ('LABEL=' + label, 'UUID=' + uuid):
        path = os.path.join(base, 'tlf-%s.fstab' % tag.split('=')[0].lower())
        with open(path, 'w') as fh:
            fh.write('%s /x ext4 defaults 0 0\n%s /y ext4 loop 0 0\n'
                     '%s /z ext4 defaults 0 0\n' % (tag, img, tag))
        files[tag.split('=')[0]] = ['-s', '-F', path]
    mi = os.path.join(base, 'tlf.mountinfo')
    with open(mi, 'w') as fh:
        fh.write('1 0 0:40 / / rw - tmpfs tlf-root rw\n'
                 '2 1 0:41 / /x rw - tmpfs LABEL=%s rw\n'
                 '3 1 7:0 / /y rw - ext4 %s rw\n'
                 '4 1 0:42 / /z rw - tmpfs LABEL=%s rw\n' % (label, img, label))
    files['mountinfo'] = ['-F', mi]
    cols = (['-o', 'SOURCE,TARGET,LABEL'], ['-o', 'SOURCE,TARGET,UUID'],
            ['-o', 'TARGET,LABEL,UUID,PARTUUID,PARTLABEL'], ['-o', 'TARGET,SOURCES,UUID'])
    flts = ([], ['-t', 'ext4'], ['-S', img], ['-i', '-S', '/dev/tlf-none'], ['-d', 'backward', '-t', 'ext4'])
    for what, head in files.items():
        for form in ([], ['-l'], ['-r'], ['-J'], ['-P']):
            for ev in ([], ['-e']):
                for c in cols:
                    for flt in (flts if not form else flts[:2]):
                        args = head + form + ev + c + flt
                        res = []
                        for cmd in (['findmnt'], [binary, 'list']):
                            with contextlib.suppress(FileNotFoundError):
                                os.unlink(env['BLKID_FILE'])
                            res.append(run(cmd + args, env))
                        (ra, oa, ea), (rb, ob, eb) = res
                        why = same_output(args, ra, oa, rb, ob, ea, eb)
                        t.check('tag line before its image (%s): %s' % (what, ' '.join(args[2:])),
                                not why, why)


NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--']


def put_file(base, name, data):
    """DATA written to BASE/NAME, readable by anyone: its path."""
    path = os.path.join(base, name)
    with open(path, 'wb') as fh:
        fh.write(data)
    os.chmod(path, 0o644)
    return path


def nonroot_env_inner(binary, base):
    """In a private mount namespace already: libmount reads its file
    variables ($LIBMOUNT_FSTAB, $LIBMOUNT_UTAB) through util-linux 2.38's
    safe_getenv(), which gives them to a real root only (euid and egid
    the real ones, the process dumpable): uid 65534, or root with another
    effective id, reads /etc/fstab and /run/mount/utab whatever they say.
    Files of this test are bound over those two here, so a side that
    honours a variable it should not prints other rows. Prints the tally
    as JSON on its last line."""
    t = Tally()
    os.chmod(base, 0o755)
    etc = put_file(base, 'etc.fstab', b'tmpfs /srv/from-etc-fstab tmpfs defaults 0 0\n')
    env_f = put_file(base, 'env.fstab', b'tmpfs /srv/from-env-fstab tmpfs defaults 0 0\n')
    mi = put_file(base, 'mi', b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n'
                              b'21 20 0:5 / /mnt rw - tmpfs t rw\n')
    env_u = put_file(base, 'env.utab', b'SRC=t TARGET=/mnt ROOT=/ OPTS=x-from-env-utab\n')
    mounted = []
    try:
        if os.path.isfile('/etc/fstab'):
            subprocess.run(['mount', '--bind', etc, '/etc/fstab'], check=True)
            mounted.append('/etc/fstab')
        if os.path.isdir('/run/mount'):
            subprocess.run(['mount', '-t', 'tmpfs', '-o', 'mode=755', 'fmeq-utab', '/run/mount'],
                           check=True)
            mounted.append('/run/mount')
            put_file('/run/mount', 'utab', b'SRC=t TARGET=/mnt ROOT=/ OPTS=x-from-run-utab\n')
        whos = [('uid 65534', NOBODY), ('root', []),
                ('root, egid 65534', ['setpriv', '--egid=65534', '--keep-groups', '--']),
                ('ruid 65534, euid 0', ['setpriv', '--ruid=65534', '--'])]
        cases = [('LIBMOUNT_FSTAB', env_f, a) for a in (['-s'], ['-s', '-J'], ['-s', '-r', '-o', 'TARGET'],
                                                         ['-x'], ['-x', '--verbose'])]
        cases += [('LIBMOUNT_UTAB', env_u, ['-m', '-F', mi] + a) for a in (['-r'], ['-J'])]
        for who, pre in whos:
            for var, path, args in cases:
                fstab_same(t, 'libmount variable as %s, %s=%s' % (who, var, path), args,
                           [binary, 'list'] + args, env=dict(os.environ, **{var: path}),
                           json_out='-J' in args, pre=pre)
    finally:
        for m in reversed(mounted):
            subprocess.run(['umount', m], capture_output=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def nonroot_env(t, binary, base):
    if not shutil.which('setpriv'):
        print('SKIP libmount variables as another user: no setpriv(1)')
        t.skipped += 1
        return
    private_ns_part(t, '--nonroot-env', binary, base, 'libmount variables as another user')


def fstab_dir_unreadable(t, binary, base):
    """A *.fstab in a directory that cannot be opened: libmount passes over
    it (the rest is read, no message); run as nobody when root."""
    d = os.path.join(base, 'unreadable.d')
    os.mkdir(d)
    for n in ('a', 'b', 'c'):
        with open(os.path.join(d, n + '.fstab'), 'wb') as fh:
            fh.write(b'%s /%s t o\n' % (n.encode(), n.encode()))
    os.chmod(os.path.join(d, 'b.fstab'), 0)
    pre = []
    if os.geteuid() == 0:
        if not shutil.which('setpriv'):
            print('SKIP an unreadable *.fstab: root without setpriv(1)')
            t.skipped += 1
            return
        os.chmod(base, 0o755)
        pre = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--']
    for args in ([], ['-J'], ['-r', '-o', 'TARGET']):
        ra, a, ea = run(pre + ['findmnt', '-s', '-F', d] + args)
        rb, b, eb = run(pre + [binary, 'list', '-s', '-F', d] + args)
        same = (ra, norm_err(ea)) == (rb, norm_err(eb)) and (
            jload(a) == jload(b) if args == ['-J'] and ra == rb == 0 else a == b)
        t.check('an unreadable *.fstab in a directory %r' % args, same,
                '%d %r %r / %d %r %r' % (ra, a, ea, rb, b, eb))


BLKID_COLS = ','.join(['TARGET', 'SOURCE', 'FSTYPE', 'FREQ', 'PASSNO', 'UUID'] + BLKID_COLUMNS)


def loop_image(base, name, what):
    """An 8 MiB image file NAME under BASE attached to a free loop device:
    its path, or None (the skip and an empty tally printed) when there is
    none to attach."""
    img = os.path.join(base, name)
    with open(img, 'wb') as fh:
        fh.truncate(8 << 20)
    r = subprocess.run(['losetup', '--find', '--show', img], capture_output=True, text=True)
    if r.returncode:
        print('SKIP %s: no loop device: %s' % (what, r.stderr.strip()))
        print(json.dumps({'passed': 0, 'failed': 0, 'skipped': 1}))
        return None
    return r.stdout.strip()


def blkid_inner(binary, base):
    """In a private mount namespace already: an ext4 with a label on a loop
    device, named by tag in an fstab and mounted; findmnt and mntsnap compared.
    Prints the tally as JSON on its last line."""
    t = Tally()
    label = 'mntsnap-%d' % os.getpid()
    # libblkid's cache file of this part's own, removed before each run: a
    # run must not start from what the other program's run left in the
    # system's (/run/blkid, where it exists)
    os.environ['BLKID_FILE'] = os.path.join(base, 'blkid.tab')

    def fresh_cache():
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.environ['BLKID_FILE'])
    dev = loop_image(base, 'ext4.img', 'blkid')
    if dev is None:
        return 0
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
                       json_out='-J' in args, before=fresh_cache)
        subprocess.run(['mount', '-t', 'ext4', dev, mnt], check=True)
        for args in (['-S', 'LABEL=' + label], ['-S', 'UUID=' + uuid], ['LABEL=' + label],
                     ['UUID=' + uuid], ['-S', 'LABEL=no-such-x'], ['-S', 'UUID=' + uuid, '-J'],
                     ['-M', mnt, '-o', BLKID_COLS], ['-M', mnt, '-J', '-o', BLKID_COLS],
                     ['-M', mnt, '-P', '-o', BLKID_COLS], ['-S', dev, '-o', BLKID_COLS]):
            fstab_same(t, 'blkid mounted', args + ['-o', BLKID_COLS] if '-o' not in args else args,
                       ms + (args + ['-o', BLKID_COLS] if '-o' not in args else args),
                       json_out='-J' in args, before=fresh_cache)
    finally:
        subprocess.run(['umount', mnt], capture_output=True)
        subprocess.run(['losetup', '-d', dev], capture_output=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def can_unshare(t, what):
    """Root and unshare(1), which every part that mounts needs; without
    them the part (what) is named and counted as skipped."""
    if os.geteuid() == 0 and shutil.which('unshare'):
        return True
    print('SKIP %s: needs root and unshare(1)' % what)
    t.skipped += 1
    return False


def private_ns_part(t, flag, binary, base, what):
    """Run this file's FLAG part in a private mount namespace (where it
    may mount) and add the counts it prints last, as JSON; skipped
    without root or unshare(1)."""
    if not can_unshare(t, what):
        return
    r = subprocess.run(['unshare', '-m', '--propagation', 'private', sys.executable,
                        os.path.abspath(__file__), flag, binary, base],
                       capture_output=True, text=True, errors='surrogateescape')
    out = r.stdout.rstrip('\n').split('\n')
    try:
        res = json.loads(out[-1])
    except ValueError:
        t.check(what, False, r.stdout + r.stderr)
        return
    if len(out) > 1:
        print('\n'.join(out[:-1]))
    t.passed += res['passed']
    t.failed += res['failed']
    t.skipped += res['skipped']


def loop_device_part(t, binary, base, flag, what):
    """Run this file's FLAG part (a loop-device ext4) in a private mount
    namespace and add its counts; skipped without what it needs."""
    if not shutil.which('losetup') or not shutil.which('mkfs.ext4'):
        print('SKIP %s on a loop device: needs losetup and mkfs.ext4' % what)
        t.skipped += 1
        return
    private_ns_part(t, flag, binary, base, what)


def blkid(t, binary, base):
    loop_device_part(t, binary, base, '--blkid', 'blkid tags')


def image_file(base, name, size, mkfs):
    """A SIZE-byte image NAME under BASE made by the MKFS command (the
    image's path appended): its path, or None when mkfs fails (the
    reason printed)."""
    img = os.path.join(base, name)
    with open(img, 'wb') as fh:
        fh.truncate(size)
    r = subprocess.run(mkfs + [img], capture_output=True, text=True)
    if r.returncode:
        print('SKIP %s: %s' % (' '.join(mkfs), r.stderr.strip()))
        return None
    return img


def image_dev(base, name, size, mkfs):
    """image_file() attached to a free loop device: its path, or None
    when mkfs or losetup fails (the reason printed)."""
    img = image_file(base, name, size, mkfs)
    return image_attach(img) if img else None


def image_attach(img):
    r = subprocess.run(['losetup', '--find', '--show', img], capture_output=True, text=True)
    if r.returncode:
        print('SKIP %s: no loop device: %s' % (img, r.stderr.strip()))
        return None
    return r.stdout.strip()


def blkid_cache_order(devs):
    """$BLKID_FILE rebuilt to list DEVS in this order (blkid(8) adds each
    to the cache file it reads and writes)."""
    try:
        os.unlink(os.environ['BLKID_FILE'])
    except FileNotFoundError:
        pass
    for d in devs:
        subprocess.run(['blkid', '-c', os.environ['BLKID_FILE'], d], capture_output=True)


def loop_number(dev):
    return int(re.sub(r'\D', '', dev) or 0)


def dup_uuid_cases(t, binary, base, devs, label, uuid):
    """Two mounted devices with one UUID and LABEL (a cloned image): tag
    lookups and SOURCES as findmnt's, with libblkid's cache file listing
    them in either order (findmnt follows that cache, never a scan of its
    own)."""
    a, b, c = (os.path.join(base, n) for n in ('da', 'db', 'dc'))
    for order in (sorted(devs, key=loop_number, reverse=True), sorted(devs, key=loop_number)):
        blkid_cache_order(order)
        what = 'duplicate uuid (cache %s)' % ','.join(order)
        for args in (['-S', 'UUID=' + uuid, '-o', 'TARGET,SOURCE'], ['LABEL=' + label, '-o', 'TARGET,SOURCE'],
                     ['-f', '-d', 'backward', 'LABEL=' + label, '-o', 'TARGET'],
                     ['-f', '-S', 'UUID=' + uuid, '-o', 'TARGET'],
                     ['-M', a, '-o', 'TARGET,SOURCES', '-r'], ['-M', b, '-o', 'TARGET,SOURCES', '-r'],
                     ['-M', c, '-o', 'SOURCES', '-J'], ['-R', base, '-o', 'TARGET,SOURCE,SOURCES,UUID,LABEL', '-l'],
                     ['-S', 'UUID=' + uuid, '-e', '-o', 'TARGET,SOURCE,SOURCES', '-r']):
            fstab_same(t, what, args, [binary, 'list'] + args, json_out='-J' in args)
        for args in (['-S', 'LABEL=' + label, '-o', 'TARGET,SOURCE'], ['-o', 'TARGET,SOURCES', '-r']):
            fstab_same(t, what + ' stat', args + ['-T', b], [binary, 'stat'] + args + [b],
                       json_out='-J' in args)
        fst = os.path.join(base, 'dup.fstab')
        with open(fst, 'w') as fh:
            fh.write('UUID=%s %s ext4 defaults 0 0\nLABEL=%s %s ext4 defaults 0 0\n' % (uuid, a, label, b))
        for args in (['-e', '-o', 'TARGET,SOURCE,SOURCES', '-r'], ['-o', 'TARGET,UUID,LABEL,SOURCES', '-r']):
            fstab_same(t, what + ' fstab', ['-s', '-F', fst] + args, [binary, 'list', '-s', '-F', fst] + args)


def btrfs_clone_cases(t, binary, base):
    """A btrfs and a copy of its image, both mounted: Linux 6.7+ gives the
    copy a temporary fsid (the superblock's UUID), findmnt's UUID column
    stays libblkid's on-disk UUID of the source device, and -S UUID= that
    value resolves through libblkid's cache as any tag."""
    if not shutil.which('mkfs.btrfs'):
        print('SKIP cloned btrfs: no mkfs.btrfs (btrfs-progs)')
        t.skipped += 1
        return []
    dev = image_dev(base, 'bt-a.img', 128 << 20, ['mkfs.btrfs', '-q', '-f'])
    if dev is None:
        t.skipped += 1
        return []
    devs = [dev]
    shutil.copyfile(os.path.join(base, 'bt-a.img'), os.path.join(base, 'bt-b.img'))
    clone = image_attach(os.path.join(base, 'bt-b.img'))
    if clone is None:
        t.skipped += 1
        return devs
    devs.append(clone)
    ba, bb = os.path.join(base, 'ba'), os.path.join(base, 'bb')
    os.makedirs(ba), os.makedirs(bb)
    for d, m in ((dev, ba), (clone, bb)):
        r = subprocess.run(['mount', '-t', 'btrfs', d, m], capture_output=True, text=True)
        if r.returncode:
            print('SKIP cloned btrfs: mount %s: %s (a kernel before 6.7 refuses a second '
                  'mount of one fsid)' % (d, r.stderr.strip()))
            t.skipped += 1
            return devs
    uuid = subprocess.run(['blkid', '-p', '-o', 'value', '-s', 'UUID', dev],
                          capture_output=True, text=True).stdout.strip()
    for order in ([clone, dev], [dev, clone]):
        blkid_cache_order(order)
        what = 'cloned btrfs (cache %s)' % ','.join(order)
        for args in (['-M', bb, '-o', 'TARGET,SOURCE,UUID'], ['-M', bb, '-J', '-o', 'TARGET,UUID'],
                     ['-S', 'UUID=' + uuid, '-o', 'TARGET'], ['-t', 'btrfs', '-o', 'TARGET,UUID,SOURCES', '-r']):
            fstab_same(t, what, args, [binary, 'list'] + args, json_out='-J' in args)
        fstab_same(t, what + ' stat', ['-T', bb, '-o', 'TARGET,UUID'],
                   [binary, 'stat', '-o', 'TARGET,UUID', bb])
    return devs


def poll_sources(t, binary, base):
    """-p with SOURCES: findmnt scans block devices into its one libblkid
    cache at its first SOURCES cell and keeps that cache for its run, so a
    device attached later is listed once a mount names it (libblkid adds
    the device it is asked about), never before (a clone of a mounted
    image, attached mid-poll: a bind mount's SOURCES is still the one
    device). The same lines from mntsnap list -p, tables too."""
    dev = image_dev(base, 'ps-a.img', 32 << 20, ['mkfs.ext4', '-q', '-F'])
    if dev is None:
        t.skipped += 1
        return []
    blkid_cache_order([dev])
    shutil.copyfile(os.path.join(base, 'ps-a.img'), os.path.join(base, 'ps-b.img'))
    for n in ('pa', 'pb', 'pc'):
        os.makedirs(os.path.join(base, n))
    clone = '"$(losetup -n -O NAME -j ps-b.img)"'
    steps = ['mount %s pa' % dev, 'losetup --find ps-b.img', 'mount --bind pa pb',
             'mount %s pc' % clone, 'umount pc', 'umount pb', 'umount pa']
    # (no -J: findmnt 2.38.1 -p -J aborts on a SOURCES of two devices)
    # the tables: a SOURCES of two devices on lines of its own
    sets = [['-p', '-r', '-n', '-o', 'ACTION,TARGET,SOURCES'],
            ['-p', '-P', '-o', 'ACTION,SOURCE,SOURCES'],
            ['-p', '-o', 'ACTION,TARGET,SOURCES,SOURCE'],
            ['-p', '-l', '-n', '-o', 'SOURCES,ACTION,TARGET,ID']]
    try:
        poll_history(t, 'poll SOURCES, a clone attached mid-poll', binary, sets, steps, None,
                     base, wait_open=True)
    finally:
        for n in ('pc', 'pb', 'pa'):
            subprocess.run(['umount', os.path.join(base, n)], capture_output=True)
    r = subprocess.run(['losetup', '-n', '-O', 'NAME', '-j', os.path.join(base, 'ps-b.img')],
                       capture_output=True, text=True)
    return [dev] + r.stdout.split()


def blkid_fresh_entry(path, dev, label, uuid):
    """$BLKID_FILE as libblkid writes it, one entry for DEV that claims
    LABEL and UUID, stamped now: libblkid trusts an entry under 2 s old
    without probing it again (blkid_verify()), so a tag lookup names DEV
    whatever DEV now holds."""
    with open(path, 'w') as fh:
        fh.write('<device DEVNO="0x%04x" TIME="%.6f" LABEL="%s" UUID="%s" TYPE="ext4">%s</device>\n'
                 % (os.stat(dev).st_rdev, time.time(), label, uuid, dev))


def tag_cache_cases(t, binary, base, devs, label):
    """libmount's cache as findmnt leaves it to its columns: the tag a
    lookup resolved is the device's value of that tag for the rest of the
    run (mnt_cache_read_tags() keeps a tag already cached), so UUID/LABEL
    show the lookup's value (a fresh libblkid entry the device no longer
    matches); and the tags it read from a file a -f lookup probed name that
    file for -e (a tmpfs from "LABEL=..." found by an image's label)."""
    a, tl = devs[0], os.path.join(base, 'dtl')
    os.makedirs(tl)
    raw_mount('LABEL=' + label, tl, 'tmpfs')
    try:
        fake = '99999999-9999-9999-9999-%012d' % os.getpid()
        for args in (['-S', 'UUID=' + fake, '-o', 'TARGET,SOURCE,UUID,LABEL'],
                     ['-S', 'LABEL=stale-%d' % os.getpid(), '-o', 'TARGET,SOURCE,LABEL,UUID'],
                     ['-J', '-S', 'UUID=' + fake, '-o', 'TARGET,UUID']):
            res = []
            for cmd in (['findmnt'], [binary, 'list']):
                blkid_fresh_entry(os.environ['BLKID_FILE'], a, 'stale-%d' % os.getpid(), fake)
                res.append(run(cmd + ([] if '-J' in args else ['-r']) + args))
            (ra, oa, ea), (rb, ob, eb) = res
            why = same_output(args, ra, oa, rb, ob, ea, eb)
            t.check('tag cache: a fresh stale entry: %s' % ' '.join(args), not why, why)
        for order in (devs[::-1], devs):
            for args in (['-f', '-e', '-S', os.path.join(base, 'dup-a.img')],
                         ['-f', '-e', os.path.join(base, 'dup-b.img')],
                         ['-f', '-S', os.path.join(base, 'dup-a.img'), '-o', 'TARGET,SOURCE,LABEL'],
                         ['-f', '-e', '-S', a]):
                blkid_cache_order(order)
                fstab_same(t, 'tag cache after -f (cache %s)' % ','.join(order), ['-r'] + args,
                           [binary, 'list', '-r'] + args)
    finally:
        subprocess.run(['umount', tl], capture_output=True)


def aged_blkid_cache(order):
    """$BLKID_FILE listing ORDER, each entry's TIME an hour back: libblkid
    probes such an entry again (blkid_verify()) when a lookup reaches it.
    Returns the file's text, for each run to start from."""
    blkid_cache_order(order)
    with open(os.environ['BLKID_FILE']) as fh:
        text = re.sub(r'TIME="[0-9.]+"', 'TIME="%d.000000"' % (time.time() - 3600), fh.read())
    return text


def dup_eval_cases(t, binary, base, devs, label):
    """-e of a mount from "LABEL=..." (two devices share the label), drawn
    after one from a label no device has: findmnt evaluates every tag of a
    run through one libblkid cache (libmount's), so the first, failed one
    has libblkid scan and re-probe the stale entries, and the second
    names the device that cache then holds first - not always the one the
    file lists first."""
    du = os.path.join(base, 'du')
    os.makedirs(du)
    mounted = []
    try:
        raw_mount('LABEL=nosuch-%d' % os.getpid(), du, 'tmpfs')
        mounted.insert(0, du)
        os.makedirs(os.path.join(du, 't'))
        raw_mount('LABEL=' + label, os.path.join(du, 't'), 'tmpfs')
        mounted.insert(0, os.path.join(du, 't'))
        for order in (sorted(devs, key=loop_number), sorted(devs, key=loop_number, reverse=True)):
            text = aged_blkid_cache(order)
            for args in (['-e', '-R', '-M', du], ['-e', '-o', 'TARGET,SOURCE', '-R', '-M', base],
                         ['-e', '-J', '-R', '-M', du, '-o', 'TARGET,SOURCE']):
                res = []
                for cmd in (['findmnt'], [binary, 'list']):
                    with open(os.environ['BLKID_FILE'], 'w') as fh:
                        fh.write(text)
                    res.append(run(cmd + args))
                (ra, oa, ea), (rb, ob, eb) = res
                why = same_output(args, ra, oa, rb, ob, ea, eb)
                t.check('tag evaluation after a scan (stale cache %s): %s' % (
                    ','.join(order), ' '.join(args)), not why, why)
    finally:
        for m in mounted:
            subprocess.run(['umount', m], capture_output=True)


def probed_source_tag_cases(t, binary, base):
    """fstab whose tag names a filesystem that an earlier line's source
    (an image file, a loop device) holds: libmount's cache keeps the tags
    it read when it probed that source (a column, -x's FS type check), so
    a later lookup of the tag (-e, -x, -S, the columns) finds it there,
    in findmnt's order: with -e -l (no tag column) nothing probed the
    file first, and the tag line before the source line finds nothing.
    Tags of an image file are not in libblkid's cache file, so only the
    run's own probes can name it."""
    label, uuid = 'pst-%d' % os.getpid(), '0e0e0e0e-1111-2222-3333-%012d' % os.getpid()
    img = image_file(base, 'pst.img', 4 << 20, ['mkfs.ext4', '-q', '-F', '-L', label, '-U', uuid])
    if img is None:
        t.skipped += 1
        return []
    loop = image_attach(img)
    for d in ('m1', 'm2'):
        os.makedirs(os.path.join(base, 'pst-' + d), exist_ok=True)
    m1, m2 = os.path.join(base, 'pst-m1'), os.path.join(base, 'pst-m2')
    argsets = (['-x'], ['-x', '--verbose'], ['-e', '-P', '-o', 'TARGET,LABEL,SOURCE'],
               ['-e', '-l'], ['-e', '-P', '-o', 'TARGET,UUID,SOURCE'],
               ['-P', '-o', 'TARGET,LABEL,UUID,SOURCES'], ['-e', '-J', '-o', 'TARGET,FSTYPE,SOURCE'])
    for src in [img] + ([loop] if loop else []):
        for tag in ('LABEL=' + label, 'UUID=' + uuid):
            lines = {'file-first': (src, m1, tag, m2), 'tag-first': (tag, m2, src, m1)}
            for order, (s1, t1, s2, t2) in lines.items():
                fst = os.path.join(base, 'pst.fstab')
                with open(fst, 'w') as fh:
                    fh.write('%s %s ext4 defaults 0 0\n%s %s ext4 defaults 0 0\n' % (s1, t1, s2, t2))
                sets = argsets + ((['-S', tag], ['-S', tag, '-o', 'TARGET,LABEL'],
                                   ['-e', '-S', tag, '-o', 'TARGET,SOURCE']))
                # -F alone: the file in the fstab format read by a kernel table's rules
                for args in [['-s'] + a for a in sets] + [['-m'] + a for a in argsets[:3]]:
                    args = ['-F', fst] + args
                    (ra, oa, ea), (rb, ob, eb) = [run(cmd + args) for cmd in (['findmnt'],
                                                                                [binary, 'list'])]
                    why = same_output(args, ra, oa, rb, ob, ea, eb)
                    t.check('fstab tag of an earlier probed source (%s, %s, %s): %s' % (
                        'loop' if src == loop else 'file', tag.split('=')[0], order,
                        ' '.join(args[2:])), not why, why)
    return [loop] if loop else []


def printed_row_tag_cases(t, binary, base):
    """fstab (and mountinfo text with tag sources) listed with a filter
    and -i (or -e): findmnt computes each
    row's cells as it finds the row, before it tests the next line, so a
    row's tag column (or -e's evaluation) that probes an image file, or a
    clone of a device, teaches libmount's cache that the tag names that
    file: a later "UUID=..." or "LABEL=..." line then no longer matches
    -S of the original device (its tag names the file first), and -i
    lists it too. The image file and the clone hold a copy of the loop
    device's ext4, so all three have one UUID and one LABEL. libblkid's
    cache file is removed before each run, so both start alike."""
    label, uuid = 'prt-%d' % os.getpid(), '0f0f0f0f-1111-2222-3333-%012d' % os.getpid()
    orig = image_dev(base, 'prt-a.img', 4 << 20,
                     ['mkfs.ext4', '-q', '-F', '-L', label, '-U', uuid])
    if orig is None:
        t.skipped += 1
        return []
    img = os.path.join(base, 'prt-b.img')
    shutil.copyfile(os.path.join(base, 'prt-a.img'), img)
    clone = image_attach(img)
    devs = [orig] + ([clone] if clone else [])
    fst = os.path.join(base, 'prt.fstab')
    tl, tu = 'LABEL=' + label, 'UUID=' + uuid
    tables = {'file': ((img, '/i1'), (tu, '/u1'), (tl, '/t1'), (img, '/i2'))}
    if clone:
        tables['clone'] = ((clone, '/c1'), (tu, '/u1'), (tl, '/t1'))
    # the same in mountinfo text (-F FILE, a kernel table): a tmpfs whose
    # source is the tag's text is a tag source there too
    mi = os.path.join(base, 'prt.mountinfo')
    with open(mi, 'w') as fh:
        rows = [('/dev/prt-none', '/', 'ext4'), (img, '/i1', 'ext4'), (tu, '/u1', 'tmpfs'),
                (tl, '/t1', 'tmpfs')] + ([(clone, '/c1', 'ext4')] if clone else []) + [
                (tu, '/u2', 'ext4')]
        for n, (src, tgt, fs) in enumerate(rows):
            fh.write('%d %d 0:%d / %s rw - %s %s rw\n' % (n + 1, 1 if n else 0, 90 + n, tgt, fs, src))
    tables['mountinfo'] = tuple((src, tgt) for src, tgt, _ in rows[1:])
    # the same rows with their ids falling: findmnt's whole tree (--tree
    # with a lookup, -J, -P, -d, -f) takes the root's children by id, the
    # table's last row first, and asks its match_func() of them, and
    # computes their cells, in that order
    mit = os.path.join(base, 'prt-tree.mountinfo')
    with open(mit, 'w') as fh:
        for n, (src, tgt, fs) in enumerate(rows):
            fh.write('%d %d 0:%d / %s rw - %s %s rw\n' % (
                100 - n if n else 1, 1 if n else 0, 90 + n, tgt, fs, src))
    tables['mountinfo, ids falling'] = tables['mountinfo']
    for kind, lines in tables.items():
        first = lines[0][0]
        sets = [['-i', '-S', tl, '-o', 'SOURCE,TARGET,UUID'],
                ['-i', '-S', tu, '-o', 'SOURCE,TARGET,LABEL'],
                ['-i', '-S', orig, '-o', 'TARGET,LABEL'],
                ['-i', '-S', orig, '-o', 'SOURCE,TARGET,LABEL'],
                ['-i', '-S', tl, '-o', 'TARGET'],
                ['-i', '-d', 'backward', '-S', tl, '-o', 'TARGET,UUID'],
                ['-i', '-S', tl, '-J', '-o', 'TARGET,PARTUUID,LABEL'],
                ['-i', '-S', tl, '-P', '-o', 'TARGET,UUID,SOURCE'],
                ['-e', '-i', '-S', orig, '-o', 'TARGET,SOURCE'],
                ['-e', '-i', orig, '/u1', '-o', 'TARGET,SOURCE'],
                ['-e', '-i', orig, '/u2', '-o', 'TARGET,SOURCE'],
                ['-e', '-i', first, '/t1', '-o', 'TARGET,SOURCE'],
                ['-e', '-i', '-S', first, '-o', 'TARGET,SOURCE'],
                ['-e', '-i', '-t', 'xfs', '-o', 'TARGET,SOURCE,UUID'],
                ['-i', '-S', tl, '-o', 'TARGET,SOURCES'],
                ['-S', tl, '-o', 'SOURCE,TARGET,UUID'],
                ['-f', '-i', '-S', tl, '-o', 'TARGET,UUID']]
        with open(fst, 'w') as fh:
            for src, tgt in lines:
                fh.write('%s %s ext4 defaults 0 0\n' % (src, tgt))
        # -F FILE without -s: the same file read by a kernel table's rules
        envs = (('-F', ['-F', fst, '-s'], None), ('-F, no -s', ['-F', fst], None),
                ('$LIBMOUNT_FSTAB', ['-s'], dict(os.environ, LIBMOUNT_FSTAB=fst)))
        if kind == 'mountinfo':
            envs = (('-F', ['-F', mi], None),)
        if kind == 'mountinfo, ids falling':
            envs = (('-F', ['-F', mit], None),)
            sets = [['--tree'] + a for a in sets] + [
                ['--tree', '-i', '-S', tu, '-J', '-o', 'TARGET,LABEL'],
                ['--tree', '-i', '-S', orig, '-P', '-o', 'TARGET,SOURCES'],
                ['--tree', '-i', '-d', 'backward', '-S', orig, '-o', 'TARGET,UUID'],
                ['--tree', '-i', '-f', '-S', orig, '-o', 'TARGET,LABEL'],
                ['--tree', '-e', '-i', '-S', orig, '-o', 'TARGET,SOURCE,SOURCES'],
                ['--tree', '-i', '-S', orig, '-T', '/u2', '-o', 'TARGET,LABEL']]
        for how, head, env in envs:
            for a in sets:
                args = head + a
                res = []
                for cmd in (['findmnt'], [binary, 'list']):
                    try:
                        os.unlink(os.environ['BLKID_FILE'])
                    except FileNotFoundError:
                        pass
                    res.append(run(cmd + args, env))
                (ra, oa, ea), (rb, ob, eb) = res
                why = same_output(args, ra, oa, rb, ob, ea, eb)
                t.check('row printed before the next test (%s, %s): %s' % (
                    kind, how, ' '.join(args)), not why, why)
    return devs


def multiline_sources_cases(t, binary, base):
    """SOURCES of a tag two devices carry (an ext4 and its copy on loop
    devices: one LABEL), a cell of two lines: libsmartcols prints the
    first line in the row and each further one on an output line of its
    own, the other columns blank (padded) but for the tree column, which
    shows the tree's continuation (a bar below a row with children while a
    line is still to come). SOURCES lists every device with a path
    source's UUID (the copy has it too) and, with -e, every device with a
    tag source's tag. Mountinfo text with both sources (a tmpfs row's
    "LABEL=..." too) at nested targets: the root, a row with children, a
    middle and a last sibling, three levels; SOURCES first, in the middle,
    last, twice, beside right-aligned columns; and an fstab (-s). Every
    form, byte for byte (JSON by value)."""
    label = 'mls-%d' % os.getpid()
    orig = image_dev(base, 'mls-a.img', 4 << 20, ['mkfs.ext4', '-q', '-F', '-L', label])
    if orig is None:
        t.skipped += 1
        return []
    shutil.copyfile(os.path.join(base, 'mls-a.img'), os.path.join(base, 'mls-b.img'))
    clone = image_attach(os.path.join(base, 'mls-b.img'))
    if clone is None:
        t.skipped += 1
        return [orig]
    tag = 'LABEL=' + label
    # (id, parent, target, fstype, source): ids in the children's order
    shape = ((2, 1, '/a', 'ext4', orig), (3, 2, '/a/b', 'ext4', '/dev/mls-none'),
             (4, 2, '/a/c', 'tmpfs', tag), (5, 4, '/a/c/d', 'ext4', clone),
             (6, 4, '/a/c/e', 'ext4', '/dev/mls-none'), (7, 1, '/f', 'tmpfs', tag),
             (8, 1, '/g', 'ext4', '/dev/mls-none'), (9, 1, '/h', 'ext4', orig),
             (10, 9, '/h/i', 'ext4', orig))
    files = []
    for name, root in (('root', ('ext4', orig)), ('plain', ('tmpfs', tag))):
        path = os.path.join(base, 'mls-%s.mountinfo' % name)
        with open(path, 'w') as fh:
            fh.write('1 0 0:90 / / rw - %s %s rw\n' % root)
            for i, p, tgt, fs, src in shape:
                fh.write('%d %d 0:%d / %s rw - %s %s rw\n' % (i, p, 90 + i, tgt, fs, src))
        files.append(['-F', path])
    fst = os.path.join(base, 'mls.fstab')
    with open(fst, 'w') as fh:
        fh.write('%s /x ext4 defaults 0 0\n/dev/mls-none /y ext4 defaults 0 2\n'
                 '%s /z ext4 defaults 1 2\n' % (orig, tag))
    files.append(['-s', '-F', fst])
    cols = ['TARGET,SOURCES', 'SOURCES,TARGET', 'TARGET,SOURCES,FSTYPE', 'SOURCES,ID,TARGET',
            'FSTYPE,TARGET,SOURCES,ID', 'ID,SOURCES,PARENT', 'SOURCES',
            'SOURCES,TARGET,SOURCES', 'TARGET,SOURCE,SOURCES,PASSNO']
    forms = [[], ['-l'], ['-a'], ['-n'], ['-a', '-n', '-l'], ['-r'], ['-P'], ['-J'],
             ['--tree'], ['--tree', '-r'], ['--tree', '-P'], ['-J', '-l'], ['-e'],
             ['-e', '-l', '-a'], ['-e', '--tree', '-a'], ['-e', '-J']]
    if os.environ.get('FMEQ_QUICK'):
        forms = [[], ['-l'], ['-r'], ['-J'], ['-e']]
    for f in files:
        for c in cols:
            for form in forms:
                args = f + form + ['-o', c]
                res = []
                for cmd in (['findmnt'], [binary, 'list']):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(os.environ['BLKID_FILE'])
                    res.append(run(cmd + args))
                (ra, oa, ea), (rb, ob, eb) = res
                why = same_output(args, ra, oa, rb, ob, ea, eb)
                t.check('multi-line SOURCES: %s' % ' '.join(args), not why, why)
    # a filter keeps part of the tree: the rows' art as findmnt draws it
    for form in ([], ['-a'], ['-l'], ['-e']):
        args = files[0] + form + ['-t', 'ext4', '-o', 'TARGET,SOURCES,FSTYPE']
        res = []
        for cmd in (['findmnt'], [binary, 'list']):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.environ['BLKID_FILE'])
            res.append(run(cmd + args))
        (ra, oa, ea), (rb, ob, eb) = res
        why = same_output(args, ra, oa, rb, ob, ea, eb)
        t.check('multi-line SOURCES: %s' % ' '.join(args), not why, why)
    return [orig, clone]

def blkid_file_devices(path):
    """The devices libblkid's cache file at PATH holds, each with its tags
    (TIME aside: when it was probed), sorted; [] when there is no file."""
    try:
        with open(path, 'rb') as fh:
            text = fh.read()
    except FileNotFoundError:
        return []
    return sorted((name, re.sub(rb' TIME="[^"]*"', b'', attrs)) for attrs, name in
                  re.findall(rb'<device([^>]*)>([^<]*)</device>', text))


def sources_cache_file_cases(t, binary, base):
    """SOURCES of a /dev/ source (its UUID's devices) scans the block
    devices into libblkid's cache, which findmnt leaves written to
    $BLKID_FILE as root, also for a path that names no device (a trailing
    slash, a device gone): the same output and the same cache file."""
    dev = image_dev(base, 'scf.img', 4 << 20, ['mkfs.ext4', '-q', '-F', '-L', 'scf-%d' % os.getpid()])
    if dev is None:
        t.skipped += 1
        return []
    for src in (dev, dev + '/', dev + '//', '/dev/fmeq-no-such-device', '/dev/'):
        fst = os.path.join(base, 'scf.fstab')
        with open(fst, 'w') as fh:
            fh.write('%s /scf ext4 defaults 0 0\n' % src)
        res = []
        for cmd in (['findmnt'], [binary, 'list']):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.environ['BLKID_FILE'])
            out = run(cmd + ['-s', '-F', fst, '-o', 'TARGET,SOURCES'])
            res.append((out, blkid_file_devices(os.environ['BLKID_FILE'])))
        (fo, fc), (mo, mc) = res
        why = same_output(['-s'], *fo[:2], *mo[:2], fo[2], mo[2]) or (
            '' if fc == mc else short('cache file: findmnt %r\nmntsnap %r' % (fc, mc), 900))
        t.check('SOURCES of %s: the same cache file' % src, not why, why)
    return [dev]


def sources_spelling_cases(t, binary, base):
    """SOURCES of a device named by two spellings, its loop device's path
    and a /dev/ symlink to it: findmnt computes a row's cells when it
    finds the row, and libblkid's cache (blkid_get_tag_value() of the
    row's path, then blkid_verify() of each device with that UUID) names
    the device by the spelling it was last asked by (blkid_get_dev() of
    a symlink finds the canonical entry and takes the link's name for
    blkid_dev_devname()). So a row shows the spelling of the rows found
    before it and its own, never a later row's: an fstab, a mountinfo
    file and a live table (both backends) with the device by its path,
    by the link, and by its path again, listed with and without the
    lookups that make mntsnap find rows before printing them (-S, -T,
    -M, a SOURCE argument, -R, -f, -i, -d backward, -e with a tag line),
    in every output form. libblkid's cache file is removed before each
    run."""
    dev = image_dev(base, 'spl.img', 8 << 20, ['mkfs.ext4', '-q', '-F', '-L', 'spl-%d' % os.getpid()])
    if dev is None:
        t.skipped += 1
        return []
    shm, mounted = '/dev/shm', []
    try:
        # a /dev/ path of this namespace's own for the link
        subprocess.run(['mount', '-t', 'tmpfs', 'fmeq-spl', shm], check=True)
        mounted.append(shm)
        link = os.path.join(shm, 'fmeq-spl-link')
        os.symlink(dev, link)
        uuid = subprocess.run(['blkid', '-p', '-s', 'UUID', '-o', 'value', dev],
                              capture_output=True, text=True).stdout.strip()
        mp = {n: os.path.join(base, 'spl-' + n) for n in ('v', 'w', 'x')}
        for p in mp.values():
            os.makedirs(p, exist_ok=True)
        fst = os.path.join(base, 'spl.fstab')
        with open(fst, 'w') as fh:
            fh.write('%s %s ext4 defaults 0 0\n%s %s ext4 defaults 0 0\n'
                     '%s %s ext4 defaults 0 0\nUUID=%s %s ext4 defaults 0 0\n' % (
                         dev, mp['v'], link, mp['w'], dev, mp['x'], uuid, mp['w']))
        mi = os.path.join(base, 'spl.mountinfo')
        with open(mi, 'w') as fh:
            fh.write('20 1 0:40 / / rw - tmpfs fmeq-root rw\n'
                     '29 20 7:99 / %s rw - ext4 %s rw\n'
                     '33 20 7:99 / %s rw - ext4 %s rw\n'
                     '34 33 7:99 / %s rw - ext4 %s rw\n'
                     '35 20 7:99 / %s rw - ext4 %s rw\n'
                     '36 33 0:41 / %s/t rw - tmpfs UUID=%s rw\n' % (
                         mp['v'], dev, mp['w'], link, mp['x'], dev, mp['w'], dev, mp['w'], uuid))
        cols = ['-o', 'TARGET,SOURCE,SOURCES']
        forms = [[], ['-l'], ['-r'], ['-J'], ['-P']]
        fstab_sets = [[], ['-S', dev], ['-S', link], [dev], [link], ['-T', mp['w']],
                      ['-M', mp['w']], ['-f', '-S', link], ['-d', 'backward', '-S', dev],
                      ['-i', '-S', '/dev/fmeq-none'], ['-e'], ['-e', '-S', dev],
                      ['-S', 'UUID=' + uuid], ['-t', 'ext4']]
        table_sets = fstab_sets[:10] + [['-R', '-M', '/'], ['-R', '-S', link], ['-t', 'ext4'],
                                        [dev, mp['w']], ['-i', '-t', 'tmpfs'], ['-e'],
                                        ['-e', '-R', '-M', mp['w']], ['-e', '-S', 'UUID=' + uuid],
                                        ['-e', '-d', 'backward', '-t', 'ext4,tmpfs']]

        def pair(what, args, ms_cmd=('list',)):
            res = []
            for cmd in (['findmnt'], [binary] + list(ms_cmd)):
                try:
                    os.unlink(os.environ['BLKID_FILE'])
                except FileNotFoundError:
                    pass
                res.append(run(cmd + args))
            (ra, oa, ea), (rb, ob, eb) = res
            why = same_output(args, ra, oa, rb, ob, ea, eb)
            t.check('SOURCES of two spellings (%s): %s' % (what, ' '.join(args)), not why, why)

        for form in forms:
            for a in fstab_sets:
                pair('fstab', ['-s', '-F', fst] + form + cols + a)
            for a in table_sets:
                pair('mountinfo', ['-F', mi] + form + cols + a)
        # live: the kernel keeps each mount's source as mount(2) was given it
        for n, src in (('v', dev), ('w', link), ('x', dev)):
            raw_mount(src, mp[n], 'ext4')
            mounted.insert(0, mp[n])
        for backend in ('statmount', 'mountinfo'):
            for form in forms[1:]:
                # the whole table: raw, pairs and JSON only, as other
                # devices here may have two SOURCES (a table wraps them)
                wide = [['-t', 'ext4']] if form[0] in ('-r', '-P', '-J') else []
                for a in [['-S', dev], ['-S', link], ['-T', mp['w']], [dev],
                          ['-d', 'backward', '-S', dev]] + wide:
                    pair('live, ' + backend, form + cols + a, ('list', '--backend', backend))
    finally:
        for m in mounted:
            subprocess.run(['umount', m], capture_output=True)
    return [dev]


def udev_eval_cases(t, binary, base):
    """libblkid told to evaluate tags by udev's links only (BLKID_CONF's
    EVALUATE=udev; no /dev/disk/by-uuid here): a UUID= (or LABEL=) line
    before a line naming the device by a link (a by-label link's stand-in
    on a /dev/shm of this namespace's own) or by its path. findmnt computes
    the tag line's row when it finds it: nothing had probed the device, so
    its LABEL, UUID, SOURCES (and -e's SOURCE) are empty or the tag's own;
    the later line's probe teaches the cache only for the rows after it.
    Every form, with and without lookups that find rows before printing.
    Returns the loop devices attached."""
    label, uuid = 'uev-%d' % os.getpid(), '0b0b0b0b-1111-2222-3333-%012d' % os.getpid()
    dev = image_dev(base, 'uev.img', 8 << 20, ['mkfs.ext4', '-q', '-F', '-L', label, '-U', uuid])
    if dev is None:
        t.skipped += 1
        return []
    conf = os.path.join(base, 'uev-blkid.conf')
    with open(conf, 'w') as fh:
        fh.write('EVALUATE=udev\n')
    env = dict(os.environ, BLKID_CONF=conf)
    shm = '/dev/shm'
    try:
        subprocess.run(['mount', '-t', 'tmpfs', 'fmeq-uev', shm], check=True)
        link = os.path.join(shm, 'fmeq-uev-by-label')
        os.symlink(dev, link)
        fst = os.path.join(base, 'uev.fstab')
        cols = (['-o', 'SOURCE,TARGET,LABEL,UUID'], ['-o', 'TARGET,SOURCES,LABEL'],
                ['-o', 'TARGET,PARTUUID,LABEL'])
        for src in (link, dev):
            for tag in ('UUID=' + uuid, 'LABEL=' + label):
                with open(fst, 'w') as fh:
                    fh.write('%s /x ext4 defaults 0 0\n%s /y ext4 defaults 0 0\n'
                             '%s /z ext4 defaults 0 0\n' % (tag, src, tag))
                for form in ([], ['-l'], ['-r'], ['-J'], ['-P']):
                    for ev in ([], ['-e']):
                        for c in cols:
                            for flt in ([], ['-t', 'ext4'], ['-i', '-S', '/dev/uev-none']):
                                args = ['-s', '-F', fst] + form + ev + c + flt
                                res = []
                                for cmd in (['findmnt'], [binary, 'list']):
                                    with contextlib.suppress(FileNotFoundError):
                                        os.unlink(os.environ['BLKID_FILE'])
                                    res.append(run(cmd + args, env))
                                (ra, oa, ea), (rb, ob, eb) = res
                                why = same_output(args, ra, oa, rb, ob, ea, eb)
                                t.check('EVALUATE=udev, tag line first (%s, %s): %s' % (
                                    'link' if src == link else 'device', tag.split('=')[0],
                                    ' '.join(args[3:])), not why, why)
    finally:
        subprocess.run(['umount', shm], capture_output=True)
    return [dev]


def verify_tag_filter_cases(t, binary, base):
    """-x with a tag source filter (-S LABEL=, UUID=, PARTLABEL= or a
    lone tag argument) on a kernel table: findmnt's -x walks the table
    with the one filter its listing uses (mnt_fs_match_source()), so a
    tmpfs whose source text is the tag matches by that text, and a tmpfs
    whose source is the tagged device's path never does (a pseudo or
    network fs is never matched by its device); the ext4 mounted from the
    device matches. Through -k, -m, -N PID and -F of a copy of the
    table. Returns the loop devices attached."""
    label, uuid = 'vtf-%d' % os.getpid(), '0e0e0e0e-1111-2222-3333-%012d' % os.getpid()
    dev = image_dev(base, 'vtf.img', 4 << 20, ['mkfs.ext4', '-q', '-F', '-L', label, '-U', uuid])
    if dev is None:
        t.skipped += 1
        return []
    # a GPT partition name needs a partition table: a tag with no device
    tags = ('LABEL=' + label, 'UUID=' + uuid, 'PARTLABEL=' + label)
    libc = ctypes.CDLL(None, use_errno=True)
    mps = []
    try:
        e = os.path.join(base, 'vtf-e')
        os.makedirs(e)
        r = subprocess.run(['mount', '-t', 'ext4', dev, e], capture_output=True, text=True)
        if r.returncode:
            t.check('verify tag filter: mount %s' % dev, False, r.stderr.strip())
            return [dev]
        mps.append(e)
        for n, src in [('vtf-t', dev)] + [('vtf-u%d' % k, tg) for k, tg in enumerate(tags)]:
            mp = os.path.join(base, n)
            os.makedirs(mp)
            # mount(2) keeps any source text (mount(8) would resolve a tag)
            if libc.mount(src.encode(), mp.encode(), b'tmpfs', 0, None):
                t.check('verify tag filter: tmpfs %s' % src, False, os.strerror(ctypes.get_errno()))
                return [dev]
            mps.append(mp)
        copy = os.path.join(base, 'vtf.mountinfo')
        shutil.copyfile('/proc/self/mountinfo', copy)
        heads = (['-x', '-k'], ['-x', '-m'], ['-x', '-N', str(os.getpid())],
                 ['-x', '-k', '-F', copy])
        for tg in tags:
            for head in heads:
                for args in (head + ['-S', tg, '--verbose'], head + ['-S', tg], head + [tg]):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(os.environ['BLKID_FILE'])
                    fstab_same(t, 'verify tag filter', args, [binary, 'list'] + args)
            # the listing's own answer, for the record: the same filter
            fstab_same(t, 'verify tag filter', ['-r', '-S', tg, '-o', 'TARGET,SOURCE'],
                       [binary, 'list', '-r', '-S', tg, '-o', 'TARGET,SOURCE'])
    finally:
        for m in reversed(mps):
            subprocess.run(['umount', m], capture_output=True)
    return [dev]


def nonroot_tag_cases(t, binary, base):
    """uid 65534 may not open a block device, so libblkid answers its tag
    lookups from the system's cache file (/run/blkid/blkid.tab, here on a
    tmpfs of this namespace: $BLKID_FILE counts for root only) and trusts
    it unprobed; libmount, refused the device's own tags (EACCES), then
    matches a line's tag by the device that tag names through the cache
    (mnt_fs_match_source(), mnt_table_find_srcpath()'s tag pass). -S DEV,
    -S TAG, a DEV argument and -f DEV (forward and -d) on an fstab and a
    mountinfo file whose lines name one ext4 by path, LABEL= and UUID=, as
    uid 65534 and as root; the tag columns, SOURCES, -e and -x there too
    (a device the caller cannot probe has no LABEL or UUID of its own).
    Returns the loop devices attached."""
    if not os.path.isdir('/run/blkid') or not shutil.which('setpriv') or \
            not shutil.which('blkid'):
        print('SKIP tags as uid 65534: needs /run/blkid, setpriv(1) and blkid(8)')
        t.skipped += 1
        return []
    # a UUID no other case of this process gives a device (two devices
    # with one UUID are dup_uuid_cases' business)
    label, uuid = 'nr-%d' % os.getpid(), '1a2b3c4d-1111-2222-3333-%012d' % os.getpid()
    other = '1a2b3c4d-4444-5555-6666-%012d' % os.getpid()
    dev = image_dev(base, 'nr.img', 4 << 20, ['mkfs.ext4', '-q', '-F', '-L', label, '-U', uuid])
    if dev is None:
        t.skipped += 1
        return []
    os.chmod(base, 0o755)
    d = dev.encode()
    f1 = put_file(base, 'nr1.fstab', b'%s /srv/by-path ext4 defaults 0 0\n'
                  b'UUID=%s /srv/other ext4 defaults 0 0\n'
                  b'UUID=%s /srv/by-uuid ext4 defaults 0 0\n'
                  b'LABEL=%s /srv/by-label ext4 defaults 0 0\n'
                  b'LABEL=nr-other /srv/other-label ext4 defaults 0 0\n'
                  % (d, other.encode(), uuid.encode(), label.encode()))
    f2 = put_file(base, 'nr2.fstab', b'UUID=%s /srv/other ext4 defaults 0 0\n'
                  b'LABEL=%s /srv/by-label ext4 defaults 0 0\n'
                  b'UUID=%s /srv/by-uuid ext4 defaults 0 0\n'
                  % (other.encode(), label.encode(), uuid.encode()))
    mi = put_file(base, 'nr.mountinfo', b'20 1 7:99 / / rw - ext4 UUID=%s rw\n'
                  b'21 20 7:99 / /x rw - ext4 LABEL=%s rw\n'
                  b'22 20 7:98 / /y rw - ext4 UUID=%s rw\n'
                  b'23 20 7:99 / /z rw - ext4 %s rw\n'
                  % (uuid.encode(), label.encode(), other.encode(), d))
    subprocess.run(['mount', '-t', 'tmpfs', '-o', 'mode=755', 'fmeq-blkid', '/run/blkid'],
                   check=True)
    try:
        # the cache as root's blkid(8) writes it: the device, its LABEL and UUID
        cache = '/run/blkid/blkid.tab'
        subprocess.run(['blkid', '-c', cache, dev], capture_output=True, check=True)
        os.chmod(cache, 0o644)
        cases = [[f1, '-S', dev], [f1, '-S', 'LABEL=' + label], [f1, '-S', 'UUID=' + uuid],
                 [f1, dev], [f1, '-J', dev], [f2, '-f', dev], [f2, '-f', '-d', 'backward', dev],
                 [f2, '-f', '-S', dev], [mi, '-S', dev], [mi, dev], [mi, '-f', dev],
                 [mi, '-S', 'LABEL=' + label],
                 [f1, '-S', dev, '-o', 'TARGET,SOURCE,LABEL,UUID'],
                 [f1, '-o', 'TARGET,SOURCE,LABEL,UUID,SOURCES'],
                 [f1, '-e', '-o', 'TARGET,SOURCE,UUID'],
                 [mi, '-o', 'TARGET,SOURCE,LABEL,UUID,SOURCES'],
                 [f1, '-x', '--verbose'], [f1, '-x', '-S', dev]]
        for who, pre in (('uid 65534', NOBODY), ('root', [])):
            for c in cases:
                args = ['-F'] + c + ([] if '-J' in c or '-x' in c else ['-r'])
                fstab_same(t, 'tags as %s through the cache' % who, args,
                           [binary, 'list'] + args, json_out='-J' in c, pre=pre)
    finally:
        subprocess.run(['umount', '/run/blkid'], capture_output=True)
    return [dev]


def dup_tags_inner(binary, base):
    """In a private mount namespace already: duplicate tags (an ext4 image
    and its copy, both mounted, one bound again), -p's SOURCES with a
    copy attached mid-poll (poll_sources) and a cloned btrfs, findmnt and
    mntsnap compared with libblkid's cache file at
    $BLKID_FILE (a temp file: neither writes /run/blkid here). Prints the
    tally as JSON on its last line."""
    t = Tally()
    os.environ['BLKID_FILE'] = os.path.join(base, 'blkid.tab')
    label, uuid = 'dup-%d' % os.getpid(), '0d0d0d0d-1111-2222-3333-%012d' % os.getpid()
    mounts, devs = [], []
    try:
        dev = image_dev(base, 'dup-a.img', 32 << 20, ['mkfs.ext4', '-q', '-F', '-L', label, '-U', uuid])
        if dev is None:
            t.skipped += 1
        else:
            devs.append(dev)
            shutil.copyfile(os.path.join(base, 'dup-a.img'), os.path.join(base, 'dup-b.img'))
            clone = image_attach(os.path.join(base, 'dup-b.img'))
            if clone is None:
                t.skipped += 1
            else:
                devs.append(clone)
                for d, n in ((dev, 'da'), (clone, 'db')):
                    os.makedirs(os.path.join(base, n))
                    subprocess.run(['mount', '-t', 'ext4', d, os.path.join(base, n)], check=True)
                    mounts.append(os.path.join(base, n))
                os.makedirs(os.path.join(base, 'dc'))
                subprocess.run(['mount', '--bind', mounts[0], os.path.join(base, 'dc')], check=True)
                mounts.append(os.path.join(base, 'dc'))
                dup_uuid_cases(t, binary, base, [dev, clone], label, uuid)
                tag_cache_cases(t, binary, base, [dev, clone], label)
                dup_eval_cases(t, binary, base, [dev, clone], label)
        devs += probed_source_tag_cases(t, binary, base)
        devs += printed_row_tag_cases(t, binary, base)
        devs += sources_spelling_cases(t, binary, base)
        devs += sources_cache_file_cases(t, binary, base)
        devs += multiline_sources_cases(t, binary, base)
        devs += udev_eval_cases(t, binary, base)
        devs += verify_tag_filter_cases(t, binary, base)
        devs += nonroot_tag_cases(t, binary, base)
        for m in reversed(mounts):
            subprocess.run(['umount', m], capture_output=True)
        mounts = []
        devs += poll_sources(t, binary, base)
        mounts = [os.path.join(base, 'ba'), os.path.join(base, 'bb')]
        devs += btrfs_clone_cases(t, binary, base)
    finally:
        for m in reversed(mounts):
            subprocess.run(['umount', m], capture_output=True)
        for d in devs:
            subprocess.run(['losetup', '-d', d], capture_output=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def dup_tags(t, binary, base):
    if not have_blkid(binary, os.devnull):
        print('SKIP duplicate tags: built without libblkid')
        t.skipped += 1
        return
    loop_device_part(t, binary, base, '--dup-tags', 'duplicate tags')


# --output-all, --vfs-all, -V and -o's empty names (findmnt's column-list
# parse). Inputs whose mount points do not exist here, so the statvfs
# columns of --output-all (SIZE, AVAIL, USED, USE%) are empty on both sides
# and nothing another process writes can change them between the two runs.
VFSALL_MI = (
    b'1 0 8:1 / /nonexistent-fmeq rw,relatime shared:1 - ext4 /dev/sda1 rw\n'
    b'2 1 0:21 / /nonexistent-fmeq/a ro,nosuid,nodev,noexec,noatime,nodiratime - tmpfs t1 '
    b'ro,size=4k\n'
    b'3 1 0:22 / /nonexistent-fmeq/b rw,nosymfollow master:1 - tmpfs t2 '
    b'rw,sync,dirsync,lazytime,mand,iversion\n'
    b'4 1 0:23 / /nonexistent-fmeq/c rw,strictatime,newflag - tmpfs t3 rw,silent\n'
    b'5 4 0:24 /sub /nonexistent-fmeq/c/d rw,relatime,nodiratime - tmpfs t4 '
    b'ro,noexec=1,context="system_u:object_r:x,c0,c1",user,owner\n'
    b'6 1 0:25 / /nonexistent-fmeq/e rw,noatime - tmpfs t5 rw,atime,norelatime,"unclosed,nosuid\n'
    b'7 1 0:26 / /nonexistent-fmeq/f rw - cifs //srv/x '
    b'rw,user=joe,group,bind,rbind,shared,remount\n'
    b'8 1 0:27 / /nonexistent-fmeq/g ro,relatime - tmpfs t7 rw,,loud,nomand,noiversion\n')
VFSALL_FSTAB = (
    b'a /nonexistent-fmeq/a t\n'
    b'b /nonexistent-fmeq/b t defaults\n'
    b'c /nonexistent-fmeq/c t ro,bind\n'
    b'd /nonexistent-fmeq/d t rbind,user,noauto\n'
    b'e /nonexistent-fmeq/e t owner,ro=1,rw,sync,noatime,relatime,norelatime 1 2\n'
    b'f /nonexistent-fmeq/f t "x,y",nosuid,noexec="a,b","unclosed,noexec\n'
    b'g /nonexistent-fmeq/g t ,,nodev,,\n'
    b'h /nonexistent-fmeq/h t shared,remount,silent,mand,iversion,strictatime,lazytime,'
    b'nosymfollow,dirsync,nodiratime,users\n'
    b'i /nonexistent-fmeq/i t user=joe,group,user=,ro=,sub,nosub\n')
COLS_FORMS = [[], ['-l'], ['-r'], ['-P'], ['-J'], ['-J', '-l'], ['-n'], ['-r', '-n'], ['-a'],
              ['-y', '-P'], ['LC_ALL=C'], ['LC_ALL=C', '-l']]
OUTPUT_ALL_SETS = [
    ['--output-all'], ['--output-all', '-D'], ['-D', '--output-all'], ['-D', '-A', '--output-all'],
    ['--output-all', '-o', '+TARGET'], ['-o', '+SOURCE', '--output-all'],
    ['-o', 'TARGET', '--output-all'], ['--output-all', '-o', 'TARGET,ID'],
    ['--output-all', '-t', 'tmpfs'], ['--output-all', '--vfs-all'], ['--output-all', '-i', '-t', 'ext4'],
    ['--output-all', '-R', '-M', '/nonexistent-fmeq/c'], ['--output-all', '--tree'],
    ['--output-all', '-v'], ['-D', '-o', '+TARGET'], ['-D', '-o', 'TARGET']]
VFS_ALL_SETS = [
    ['--vfs-all'], ['--vfs-all', '-o', 'TARGET,VFS-OPTIONS'],
    ['--vfs-all', '-o', 'TARGET,VFS-OPTIONS,OPTIONS,FS-OPTIONS'],
    ['-o', 'TARGET,VFS-OPTIONS', '--vfs-all'], ['--vfs-all', '-o', '+VFS-OPTIONS'],
    ['--vfs-all', '-O', 'ro', '-o', 'TARGET,VFS-OPTIONS'],
    ['--vfs-all', '-M', '/nonexistent-fmeq/a', '-o', 'VFS-OPTIONS']]
# -o lists with an empty name (findmnt: nothing printed, exit 1, no
# message), names that end in a comma (unknown: "TARGET,"), and only
# the last -o counts, +LIST adding to the columns of the rest
O_LISTS = [
    ['-o', ''], ['-o', 'TARGET,,SOURCE'], ['-o', ',TARGET'], ['-o', '+'], ['-o', '+,'],
    ['-o', ','], ['-o', ',,'], ['-o', 'TARGET,'], ['-o', '+TARGET,'], ['-o', 'TARGET,,bogus'],
    ['-o', 'bogus,,'], ['-o', '+,TARGET'], ['-o', 'TARGET,,'], ['-o', 'bogus', '-o', 'TARGET'],
    ['-o', 'TARGET', '-o', '+SOURCE'], ['-o', 'TARGET', '-o', ''], ['--output-all', '-o', ''],
    ['-o', '', '--output-all'], ['-o', '', '-J'], ['-o', 'TARGET,,SOURCE', '-P'],
    ['-o', '', '-D'], ['-D', '-o', ',']]


def cols_same(t, what, fm, ms, env=None):
    """findmnt fm against mntsnap ms: stdout byte for byte (JSON by value),
    stderr present on both or neither, the same exit status. Kept on
    purpose (README): an unknown column is exit 2 (findmnt: 1), both
    saying so."""
    ra, a, ea = run(['findmnt'] + fm, env)
    rb, b, eb = run(ms, env)
    why = []
    if ra != rb and not ((ra, rb) == (1, 2) and b'unknown column' in ea and
                         b'unknown column' in eb):
        why.append('exit findmnt %d mntsnap %d' % (ra, rb))
    if '-J' in fm and a and b:
        try:
            if jload(a) != jload(b):
                why.append('json: findmnt %s\nmntsnap %s' % (short(a.decode(errors='replace')),
                                                              short(b.decode(errors='replace'))))
        except ValueError as e:
            why.append('bad JSON: %s' % e)
    elif a != b:
        why.append(exact('raw', a, b))
    if bool(ea) != bool(eb):
        why.append('stderr: findmnt %r mntsnap %r' % (ea[:300], eb[:300]))
    t.check('%s: %s' % (what, ' '.join(fm)), not why, short('\n'.join(why), 800))


# --vfs-all on live mounts, in a private mount namespace: flags the kernel
# shows in both option fields, utab's userspace options under -m ("user"
# counts as noexec,nosuid,nodev). Each command's output to files in $3.
VFS_LIVE = r'''
set -e
b=$1/v
mkdir -p "$b"
mount -t tmpfs vbase "$b"
mkdir -p "$b/a" "$b/b" "$b/c" "$b/d"
mount -t tmpfs -o noatime,sync,dirsync,lazytime,nosuid va "$b/a"
mount -t tmpfs -o ro,nodev,noexec,nodiratime,strictatime vb "$b/b"
mount -t tmpfs vc "$b/c"
mount -o remount,bind,nosymfollow "$b/c"
mount --bind -o ro "$b/a" "$b/d"
mount -t tmpfs runmount /run/mount
printf 'SRC=vc TARGET=%s/c ROOT=/ OPTS=user,x-foo\n' "$b" > /run/mount/utab
n=0
while IFS='|' read -r fargs margs; do
    n=$((n + 1))
    findmnt $fargs -R -M "$b" > "$3/$n.f" 2> "$3/$n.fe" && echo 0 > "$3/$n.fr" || echo $? > "$3/$n.fr"
    "$2" list $margs -R -M "$b" > "$3/$n.m" 2> "$3/$n.me" && echo 0 > "$3/$n.mr" || echo $? > "$3/$n.mr"
done
'''
VFS_LIVE_SETS = ['--vfs-all', '--vfs-all -o TARGET,VFS-OPTIONS,OPTIONS', '--vfs-all -J -o +VFS-OPTIONS',
                 '--vfs-all -P -o TARGET,VFS-OPTIONS', '--vfs-all -m -o TARGET,VFS-OPTIONS,OPTIONS',
                 '--vfs-all -m -J -o TARGET,VFS-OPTIONS', '--vfs-all -r -o TARGET,FS-OPTIONS,VFS-OPTIONS',
                 '--vfs-all -O nosuid -o TARGET,VFS-OPTIONS', '--vfs-all --backend mountinfo -r -o VFS-OPTIONS']


def vfs_all_live(t, binary, base):
    if not can_unshare(t, '--vfs-all live'):
        return
    out = os.path.join(base, 'vout')
    os.mkdir(out)
    # findmnt has no --backend: that set runs mntsnap's text backend
    sets = [x.replace('--backend mountinfo ', '') for x in VFS_LIVE_SETS]
    r = subprocess.run(['unshare', '-m', '--propagation', 'private', 'sh', '-c', VFS_LIVE, 'sh',
                        base, binary, out],
                       input=''.join('%s|%s\n' % x for x in zip(sets, VFS_LIVE_SETS)).encode(),
                       capture_output=True)
    t.check('columns live setup', r.returncode == 0, r.stderr.decode(errors='replace'))
    for n, args in enumerate(sets, 1):
        rd = lambda x: open(os.path.join(out, '%d.%s' % (n, x)), 'rb').read()
        try:
            a, b, ea, eb, ra, rb = rd('f'), rd('m'), rd('fe'), rd('me'), rd('fr'), rd('mr')
        except OSError as e:
            t.check('columns live: %s' % args, False, str(e))
            continue
        why = '' if ra == rb and bool(ea) == bool(eb) else 'exit %r/%r %r' % (ra, rb, eb)
        if not why and '-J' in args:
            why = '' if jload(a) == jload(b) else 'json %r\n%r' % (a[:300], b[:300])
        elif not why and a != b:
            why = exact('raw', a, b)
        t.check('columns live: %s' % VFS_LIVE_SETS[n - 1], not why and a, short(why or 'empty'))


# names libmount's flag parse knows, and what it must pass over
VFS_WORDS = ['ro', 'rw', 'exec', 'noexec', 'suid', 'nosuid', 'dev', 'nodev', 'sync', 'async',
             'dirsync', 'remount', 'bind', 'rbind', 'sub', 'nosub', 'silent', 'loud', 'mand',
             'nomand', 'atime', 'noatime', 'iversion', 'noiversion', 'diratime', 'nodiratime',
             'relatime', 'norelatime', 'strictatime', 'nostrictatime', 'lazytime', 'nolazytime',
             'unbindable', 'runbindable', 'private', 'rprivate', 'slave', 'rslave', 'shared',
             'rshared', 'symfollow', 'nosymfollow', 'user', 'users', 'owner', 'group', 'nouser',
             'nogroup', 'defaults', 'noauto', 'x-foo', 'user=joe', 'ro=1', 'ro=', '"q,ro"',
             'noexec="a,b"', '=x', 'Ro', 'rw=', 'loop', 'comment=x', 'mode=755', '"', 'x"y']


def vfs_all_random(t, binary, base):
    """--vfs-all on option strings drawn at random (a fixed seed): fstab
    entries, and mountinfo lines (per-mount and super options)."""
    rnd = random.Random(23)
    words = lambda k: [rnd.choice(VFS_WORDS) for _ in range(rnd.randint(0, k))]
    fst = ''.join('s%d /nonexistent-fmeq/%d t %s 0 0\n' % (i, i, ','.join(words(8)) or 'defaults')
                  for i in range(400))
    mi = '1 0 0:1 / /nonexistent-fmeq rw - tmpfs root rw\n' + ''.join(
        '%d 1 0:%d / /nonexistent-fmeq/%d %s - tmpfs t %s\n' % (
            i, i, i, ','.join([rnd.choice(['rw', 'ro'])] + rnd.sample(VFS_WORDS[:42], 3)),
            ','.join([rnd.choice(['rw', 'ro'])] + [w for w in words(5) if w]))
        for i in range(2, 400))
    cols = ['--vfs-all', '-r', '-o', 'TARGET,VFS-OPTIONS,FS-OPTIONS,OPTIONS']
    for name, src, body in (('fstab', ['-s', '-F'], fst), ('mountinfo', ['-F'], mi)):
        path = os.path.join(base, 'random.' + name)
        with open(path, 'w') as f:
            f.write(body)
        cols_same(t, 'columns random ' + name, src + [path] + cols,
                  [binary, 'list'] + src + [path] + cols)


def columns_and_version(t, binary, base):
    """findmnt's --output-all (its 24 columns in its order), --vfs-all
    (every VFS option in libmount's order and spelling), -V and -o lists
    with empty names, in every output form, on a mountinfo file and an
    fstab written here."""
    mi = os.path.join(base, 'vfsall.mountinfo')
    fs = os.path.join(base, 'vfsall.fstab')
    with open(mi, 'wb') as f:
        f.write(VFSALL_MI)
    with open(fs, 'wb') as f:
        f.write(VFSALL_FSTAB)
    blkid = blkid_or_skip(t, binary, fs, '--output-all\'s blkid columns')
    cenv = dict(os.environ, LC_ALL='C')
    for src, sets in ((['-F', mi], OUTPUT_ALL_SETS + VFS_ALL_SETS + O_LISTS),
                      (['-s', '-F', fs], [['--output-all'], ['--output-all', '-J']] +
                       VFS_ALL_SETS[:5] + O_LISTS[:4])):
        for opts in sets:
            # the static build (no libblkid) leaves the blkid columns out
            # of --output-all, findmnt cannot
            if '--output-all' in opts and not blkid:
                continue
            for form in COLS_FORMS:
                if os.environ.get('FMEQ_QUICK') and form not in ([], ['-J'], ['-r']):
                    continue
                args = [x for x in form if x != 'LC_ALL=C']
                # options findmnt refuses together: compared elsewhere
                if {'-J', '-P', '-r', '-l'} & set(opts) and {'-J', '-P', '-r', '-l'} & set(args):
                    continue
                cols_same(t, 'columns', src + opts + args, [binary, 'list'] + src + opts + args,
                          cenv if 'LC_ALL=C' in form else None)
    # show takes the same view options as list: a table saved here and
    # findmnt's read of the same table right after (no statvfs column)
    snap = os.path.join(base, 'vfsall.snap')
    r = subprocess.run([binary, 'save', '--no-sync', snap], capture_output=True)
    t.check('columns: save for show', r.returncode == 0, r.stderr.decode(errors='replace'))
    for opts in (['--vfs-all', '-r', '-o', 'TARGET,VFS-OPTIONS'],
                 ['--vfs-all', '-J', '-o', 'TARGET,VFS-OPTIONS,OPTIONS'],
                 ['-o', 'TARGET,,SOURCE'], ['-o', ''], ['-o', 'TARGET,']):
        cols_same(t, 'show', opts, [binary, 'show', snap] + opts)
    vfs_all_live(t, binary, base)
    vfs_all_random(t, binary, base)
    # -V: the version of each program, the only difference allowed here
    rv, ver, _ = run([binary, '--version'])
    for opts in (['-V'], ['--version'], ['-J', '-V'], ['-V', '--bogus-x'], ['-o', 'bogus', '-V'],
                 ['-s', '-V']):
        for cmd in (['list'], ['show', snap], ['stat', '/']) if opts[0] != '-s' else (['list'],):
            ra, a, ea = run(['findmnt'] + opts)
            rb, b, eb = run([binary] + cmd + opts)
            ok = (ra, rb) == (0, 0) and a.startswith(b'findmnt from util-linux ') and \
                rv == 0 and b == ver and not ea and not eb
            t.check('version: %s %s' % (cmd[0], ' '.join(opts)), ok,
                    'exit %d/%d %r %r / %r' % (ra, rb, a, b, eb))
    # a bad option before -V is refused by both
    ra, _, ea = run(['findmnt', '--bogus-x', '-V'])
    rb, _, eb = run([binary, 'list', '--bogus-x', '-V'])
    t.check('version: --bogus-x -V refused', ra != 0 and rb == 2 and ea and eb, '%r' % eb)
    list_columns(t, binary, snap)


def list_columns(t, binary, snap):
    """list --list-columns names every column findmnt -h lists, the ones
    only --poll fills (ACTION, OLD-TARGET, OLD-OPTIONS) too, described as
    poll columns; list -p takes them and list without -p refuses them, as
    before (exit 2, findmnt: 1); -p does not hide the list. show and stat
    take no -p: their list is list's without the poll columns."""
    _, fhelp, _ = run(['findmnt', '-h'])
    fm = {}
    inside = False
    for line in fhelp.decode().splitlines():
        if line.startswith('Available output columns:'):
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            name, desc = line.split(None, 1)
            fm[name] = desc
    t.check('list-columns: findmnt -h lists columns', 'TARGET' in fm and 'ACTION' in fm,
            fhelp.decode(errors='replace'))
    rc, out, err = run([binary, 'list', '--list-columns'])
    ms = dict(l.split(None, 1) for l in out.decode().splitlines())
    t.check('list-columns: findmnt -h\'s columns all listed', rc == 0 and set(fm) <= set(ms),
            'missing %s %r' % (sorted(set(fm) - set(ms)), err))
    poll = sorted(n for n, d in fm.items() if '--poll' in d)
    for name in poll:
        t.check('list-columns: %s described as a --poll column' % name,
                '--poll' in ms.get(name, ''), ms.get(name, 'missing'))
        r1 = run([binary, 'list', '-p', '-w', '0', '-o', 'TARGET,' + name])[0]
        r2, _, e2 = run([binary, 'list', '-F', '/proc/self/mountinfo', '-o', 'TARGET,' + name])
        _, _, fe2 = run(['findmnt', '-F', '/proc/self/mountinfo', '-o', 'TARGET,' + name])
        # findmnt's words ("findmnt: ACTION column is requested, but
        # --poll is not enabled"), after mntsnap's own "mntsnap: list: " prefix
        why = fe2.split(b': ', 1)[-1]
        t.check('list-columns: %s with -p only' % name,
                r1 == 0 and r2 == 2 and b'--poll' in why and e2.endswith(b' list: ' + why),
                '-p: exit %d; without: exit %d %r (findmnt %r)' % (r1, r2, e2, fe2))
    rc, pout, _ = run([binary, 'list', '-p', '-w', '0', '--list-columns'])
    t.check('list-columns: -p --list-columns lists', rc == 0 and pout == out,
            pout.decode(errors='replace'))
    want = [l for l in out.decode().splitlines() if l.split()[0] not in poll]
    for cmd in (['show', snap], ['stat', '/']):
        rc, o, _ = run([binary] + cmd + ['--list-columns'])
        t.check('list-columns: %s lists list\'s but the poll columns' % cmd[0],
                rc == 0 and o.decode().splitlines() == want,
                o.decode(errors='replace'))


# ---- fstab with findmnt's list options, -N PID -x, and table edges -------
# -s honours -i, -f, -d, -U, -D (and --real, --pseudo, --shadowed, -S
# MAJ:MIN, findmnt -f SPEC's mount(8) lookup) as findmnt's get_next_fs()
# does; -x walks forward whatever -d says. Entries that tell the rules
# apart: a target twice (-U keeps the last; "/t/" is "/t"), pseudo
# filesystems and a tmpfs (-D keeps every *tmpfs*), a tag, a swap area.
EDGE_FSTAB = (b'LABEL=q /q ext4 defaults 0 0\n'
              b'/dev/vdz / ext4 rw 0 1\n'
              b'/dev/vdy / ext4 rw 0 1\n'
              b'proc /proc proc defaults 0 0\n'
              b'none /t tmpfs defaults 0 0\n'
              b'/dev/vdz /t/ ext4 rw 0 2\n'
              b'devtmpfs /dev devtmpfs rw 0 0\n'
              b'/dev/vdz swap swap sw 0 0\n'
              b'tmpfs /tmp tmpfs rw 0 0\n')
NOSIZES = ['-o', 'SOURCE,FSTYPE,TARGET']   # -D's sizes of a live / would race
EDGE_SETS = [
    ['-i', '-t', 'ext4'], ['-i'], ['-i', '/'], ['-i', '-M', '/'], ['-i', '-S', 'proc'],
    ['-i', '-T', '/proc'], ['-i', '-t', 'noext4'], ['-O', 'rw', '-i'],
    ['-f'], ['-f', '-d', 'backward'], ['-f', '-t', 'tmpfs'], ['-f', '-i', '-t', 'ext4'],
    ['-f', '/'], ['-f', '-d', 'backward', '/'], ['-f', '/dev/vdy'], ['-f', '-S', '/dev/vdy'],
    ['-f', '-S', '/dev/vdy', '-M', '/q'], ['-f', 'LABEL=q'], ['-f', '-T', '/'], ['-f', '/t'],
    ['-f', '-M', '/t'], ['-f', '/nonexistent-x'], ['-f', '-O', 'defaults'], ['-f', 'proc'],
    ['-f', '-i'], ['-U', '-f', '-d', 'backward'],
    ['-d', 'backward'], ['-d', 'backward', '-t', 'ext4'], ['-d', 'backward', '-i', '-t', 'ext4'],
    ['-d', 'backward', 'proc'], ['-d', 'backward', '/'],
    ['-U'], ['-U', '-d', 'backward'], ['-U', '-i', '-t', 'ext4'], ['-U', '-M', '/'],
    ['-U', '-O', 'rw'], ['-U', '-f'],
    ['-D'] + NOSIZES, ['-D', '-A'] + NOSIZES, ['-D', '-i'] + NOSIZES,
    ['-D', '-t', 'ext4'] + NOSIZES, ['-D', '-d', 'backward'] + NOSIZES,
    ['-D', '--real'] + NOSIZES, ['-D', '-S', 'none'] + NOSIZES, ['-i', '-D', '-A'] + NOSIZES,
    ['--real'], ['--pseudo'], ['--real', '-i'], ['--pseudo', '-i'],
    ['--shadowed'], ['--shadowed', '-t', 'ext4'], ['--shadowed', '-i'],
    ['--shadowed', '-i', '-t', 'ext4'],
    ['-S', '0:0'], ['0:0'], ['-S', '0:0', '-i'], ['-S', '8:1'], ['-S', '0:0', '-t', 'ext4'],
    ['-R', '-M', '/'], ['-R', '-t', 'ext4'],
    # -C: no path cache at all, nothing compared resolved, no tag evaluated
    ['-C'], ['-C', '-T', '/t'], ['-C', '-U'], ['-C', '-f', '/tmp/../t'], ['-f', '/tmp/../t'],
    ['-C', '-S', '/dev/../dev/vdz'], ['-S', '/dev/../dev/vdz'], ['-C', '-f', 'LABEL=q'],
]
EDGE_FORMS = [[], ['-l'], ['-r'], ['-P'], ['-J'], ['-n']]
# options findmnt refuses together with -s or -x (mntsnap: exit 2, README)
EDGE_EXCL = [['-x', '-J'], ['-x', '-l'], ['-x', '-r'], ['-x', '-P'], ['-s', '-k'], ['-m', '-s'],
             ['-s', '-m'], ['-x', '-p'], ['-p', '-s'], ['-s', '-N', '1'], ['-N', '1', '-s'],
             ['-s', '-C', '-e'], ['-e', '-C']]
# a task's own mount table, checked as findmnt -N PID -x checks it: a
# stack, a mount point only that namespace has, a pseudo filesystem
TASK_NS = r'''set -e
b=$1
mount -t tmpfs one "$b/st"; mount -t tmpfs two "$b/st"
mount -t tmpfs s "$b/sub"; mkdir "$b/sub/only-there"; mount -t tmpfs o "$b/sub/only-there"
mount -t proc proc "$b/prc"
echo ready; exec sleep 120'''
# mountinfo text that is no kernel's: optional fields as the file has them
# (OPT-FIELDS shows them, --format mountinfo gives them back), an empty
# table (no tree, so nothing at all even in -J)
PF_MI = (b'20 1 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n'
         b'24 20 0:8 / /s rw shared:2 master:1 propagate_from:1 - tmpfs t rw\n'
         b'25 20 0:9 / /t rw master:1 propagate_from:1 - tmpfs t rw\n'
         b'26 20 0:10 / /u rw shared:3 propagate_from:4 - tmpfs t rw\n'
         b'27 20 0:11 / /v rw master:1 shared:5 - tmpfs t rw\n'
         b'28 20 0:12 / /w rw shared:06 unbindable - tmpfs t rw\n')
EMPTY_JSON_SETS = [['-t', 'zzz', '-o', 'TARGET'], ['-t', 'zzz', '-o', 'SOURCE'],
                   ['-i', '-o', 'MAJ:MIN'], ['-O', 'zzz', '-o', 'SOURCE,FSTYPE'],
                   ['-t', 'zzz', '-o', 'SOURCE,TARGET'], ['-i', '-t', 'tmpfs,ext4']]
EMPTY_SETS = [[], ['--tree'], ['-i'], ['-t', 'nosuch'], ['-U'], ['-D'], ['-f'], ['-R', '-M', '/'],
              ['-A'], ['--shadowed']]
# README's kept difference on mountinfo files: parent ids in a cycle
# (mntsnap refuses the file; findmnt's list prints it, its tree never
# ends). A mount id twice is none: both draw the child under each line of
# its parent's id, silently.
CYCLE_MI = b'20 21 8:1 / / rw - ext4 /dev/sda1 rw\n21 20 0:5 / /a rw - tmpfs a rw\n'
DUPID_MI = (b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n21 20 0:5 / /a rw - tmpfs a rw\n'
            b'21 20 0:6 / /b rw - tmpfs b rw\n22 21 0:7 / /a/x rw - tmpfs x rw\n')
# mounts stacked on their parents' mount points (--shadowed keeps 24, 25)
DUPID_OVER_MI = (b'1 0 254:0 / / rw - ext4 /dev/vda rw\n24 1 0:22 / /dev/shm rw - tmpfs tmpfs rw\n'
                 b'25 1 0:23 / /dev/pts rw - devpts devpts rw\n'
                 b'28 25 0:25 / /dev/pts rw - devpts devpts rw\n'
                 b'29 24 0:26 / /dev/shm rw - tmpfs tmpfs rw\n')


def edge_files(t, binary, base):
    """Hand-written mountinfo files: every form equal, or the kept difference."""
    files = {}
    for name, body in (('pf', PF_MI), ('empty', b''), ('cycle', CYCLE_MI),
                       ('dupid', DUPID_MI)):
        files[name] = os.path.join(base, 'edge-%s.mi' % name)
        with open(files[name], 'wb') as fh:
            fh.write(body)
    fm, ms = ['findmnt', '-F', files['pf']], [binary, 'list', '-F', files['pf']]
    for o in ([], ['-o', 'TARGET,OPT-FIELDS,PROPAGATION']):
        for form in OPT_FORMS:
            ra, a, ea = run(fm + form + o)
            rb, b, eb = run(ms + form + o)
            why = same_output(form, ra, a, rb, b, ea, eb)
            t.check('edge pf %s' % ' '.join(form + o), not why, why)
    # nothing matched in findmnt's tree mode, TARGET among the columns or
    # not (findmnt keeps its tree mode, only the column loses the art):
    # -J prints the empty document; -l, -f, -R print nothing
    for o in EMPTY_JSON_SETS:
        for form in (['-J'], ['-J', '-l'], ['-J', '-y'], ['-J', '--tree'], ['-J', '-f'],
                     ['-J', '-R', '-M', '/'], []):
            ra, a, ea = run(fm + form + o)
            rb, b, eb = run(ms + form + o)
            why = same_output(form, ra, a, rb, b, ea, eb)
            t.check('edge pf nothing matched %s' % ' '.join(form + o), not why, why)
    rc, out, err = run(ms + ['--format', 'mountinfo'])
    t.check('edge pf --format mountinfo gives the file back', rc == 0 and out == PF_MI,
            short((err + out).decode(errors='replace')))
    fm, ms = ['findmnt', '-F', files['empty']], [binary, 'list', '-F', files['empty']]
    for flt in EMPTY_SETS:
        for form in OPT_FORMS:
            ra, a, ea = run(fm + flt + form)
            rb, b, eb = run(ms + flt + form)
            t.check('edge empty %s' % ' '.join(flt + form),
                    (ra, a, bool(ea)) == (rb, b, bool(eb)),
                    'findmnt %d %r %r\nmntsnap %d %r %r' % (ra, a, ea, rb, b, eb))
    for form in ([], ['-l'], ['-r'], ['-P'], ['-J'], ['-J', '-l']):
        rb, b, eb = run([binary, 'list', '-F', files['cycle']] + form)
        ok = (rb, b) == (2, b'') and b'parent ids form a cycle' in eb
        if form and form != ['-J']:   # findmnt's tree forms never end
            ra, a, _ = run(['findmnt', '-F', files['cycle']] + form)
            ok = ok and ra == 0 and b'/a' in a
        t.check('edge cycle (kept: refused) %s' % ' '.join(form), ok,
                'exit %d %r %r' % (rb, b, eb))
    # a mount id on two lines: linked by id as libmount links it (the
    # child under every line of its parent's id), no warning
    for form in ([], ['-l'], ['-r'], ['-P'], ['-J'], ['-J', '-l'], ['-a']):
        ra, a, ea = run(['findmnt', '-F', files['dupid']] + form)
        rb, b, eb = run([binary, 'list', '-F', files['dupid']] + form)
        why = same_output(form, ra, a, rb, b, ea, eb) or (
            'stderr %r / %r' % (ea, eb) if ea != eb else '')
        t.check('edge dupid %s' % ' '.join(form), not why, why)
    # --shadowed over ids listed twice (one file, or -F A -F A): findmnt's
    # mnt_table_over_fs() finds every line of the id over its child, so the
    # list forms print each copy, as they print every line without a filter
    over = os.path.join(base, 'edge-dupid-over.mi')
    with open(over, 'wb') as fh:
        fh.write(DUPID_OVER_MI)
    twice = os.path.join(base, 'edge-dupid-over-twice.mi')
    with open(twice, 'wb') as fh:
        fh.write(DUPID_OVER_MI * 2)
    for files in (['-F', twice], ['-F', over, '-F', over]):
        for flt in (['--shadowed'], ['--shadowed', '-t', 'tmpfs'], ['--shadowed', '--pseudo'],
                    ['--shadowed', '-i'], ['--shadowed', '-U']):
            for form in (['-l'], ['-r'], ['-P'], ['-J', '-l']):
                args = files + flt + form + ['-o', 'TARGET,ID,PARENT']
                ra, a, ea = run(['findmnt'] + args)
                rb, b, eb = run([binary, 'list'] + args)
                why = same_output(form, ra, a, rb, b, ea, eb) or (
                    'stderr %r / %r' % (ea, eb) if ea != eb else '')
                t.check('edge dupid --shadowed (list forms as findmnt) %s' % ' '.join(
                    [os.path.basename(f) for f in files] + flt + form), not why, why)


# ---- the tree's shape on tables no live namespace gives -----------------
# A namespace's root, whose parent id is its own (the kernel writes that
# for a task whose root is its namespace's root): libmount's
# mnt_table_over_fs() finds it over itself, so --shadowed keeps it, and
# no mount is its own child. And mounts whose parents the table lacks
# (a chroot's view, text cut by hand, -U's drops): findmnt's tree starts
# at mnt_table_get_root_fs() (the smallest parent id, after -U moved
# children up, walked up), then draws each mount not drawn yet that
# matches, in the table's order, with its subtree.
SELF_MI = b'20 20 8:1 / / rw - ext4 /dev/sda1 rw\n30 20 0:30 / /a rw - tmpfs a rw\n'
ORPHANS_MI = (b'22 20 0:22 / / ro - nfs /dev/sda1 rw\n24 22 8:1 / / ro - xfs srv:/e rw\n'
              b'27 21 0:27 / /d rw - proc tmpfs rw\n')
# missing parents, children listed first: 38 is drawn (with 51), then
# again under 29; 39 and 29 again under 46, and 46 again under 41
# (findmnt asks whether lines are missing once, before that pass)
REDRAWN_MI = (b'38 29 0:38 / /a rw - tmpfs a rw\n53 4 0:53 / /c rw - ext4 c rw\n'
              b'39 46 0:39 / /a rw - ext4 d rw\n29 46 0:29 / /a rw - ext4 e rw\n'
              b'46 41 0:46 / /a/b rw - ext4 f rw\n51 38 0:51 / /a rw - ext4 g rw\n'
              b'41 14 0:41 / /a/b rw - tmpfs h rw\n')
SHAPE_SETS = [[], ['-U'], ['--shadowed'], ['-i', '--shadowed'], ['-U', '--shadowed'],
              ['-U', '-i', '--shadowed'], ['-t', 'tmpfs'], ['-i', '-t', 'tmpfs'],
              ['-U', '-t', 'ext4'], ['--shadowed', '-l'], ['-R', '-t', 'ext4'],
              ['-D', '-o', 'SOURCE,FSTYPE,TARGET'], ['-D', '-U', '-o', 'SOURCE,FSTYPE,TARGET']]
SHAPE_FORMS = [['-o', 'TARGET,ID,PARENT,FSTYPE'], ['-J', '-o', 'TARGET,ID,PARENT,FSTYPE']]
SHAPE_TARGETS = ['/', '/a', '/a/b', '/b', '/c']
SHAPE_TYPES = ['ext4', 'tmpfs', 'proc']


def random_table(rnd):
    """A mountinfo text no kernel wrote, drawn at random: ids unique, no
    parent cycle (a parent is drawn before its child, or is the mount
    itself, or is missing), mount points from a few so that -U drops and
    --shadowed finds some, the lines shuffled (children before parents)."""
    ids = rnd.sample(range(20, 60), rnd.randint(1, 9))
    recs = []
    for k, i in enumerate(ids):
        r = rnd.random()
        if k == 0 or r < 0.15:
            parent, tgt = rnd.randint(1, 19), rnd.choice(SHAPE_TARGETS)
        elif r < 0.25:
            parent, tgt = i, rnd.choice(SHAPE_TARGETS)
        else:
            p = recs[rnd.randrange(k)]
            parent = p[0]
            tgt = p[2] if rnd.random() < 0.3 else rnd.choice(SHAPE_TARGETS)
        recs.append((i, parent, tgt, rnd.choice(SHAPE_TYPES)))
    if rnd.random() < 0.6:
        rnd.shuffle(recs)
    return ''.join('%d %d 0:%d / %s rw - %s src%d rw\n' % (i, p, i, tgt, fs, i)
                   for i, p, tgt, fs in recs).encode()


def tree_shapes(t, binary, base):
    """Self-parent roots, missing parents, -U's moves: every form equal."""
    rnd = random.Random(2338)
    tables = [('self', SELF_MI), ('orphans', ORPHANS_MI), ('redrawn', REDRAWN_MI)]
    tables += [('random%02d' % k, random_table(rnd)) for k in range(
        6 if os.environ.get('FMEQ_QUICK') else 12)]
    for name, body in tables:
        path = os.path.join(base, 'shape-%s.mi' % name)
        with open(path, 'wb') as fh:
            fh.write(body)
        for opts in SHAPE_SETS:
            # the tree drawn in raw too (its art escaped), on the fixed tables
            for form in SHAPE_FORMS + ([['-r', '--tree']] if name[:6] != 'random' else []):
                ra, a, ea = run(['findmnt', '-F', path] + opts + form)
                rb, b, eb = run([binary, 'list', '-F', path] + opts + form)
                why = same_output(form, ra, a, rb, b, ea, eb)
                t.check('shape %s %s' % (name, ' '.join(opts + form)), not why,
                        why + ('\n' + body.decode() if why else ''))


# Mount ids listed twice (one file given twice, -N PID beside -F
# /proc/PID/mountinfo, or saved text that repeats an id): libmount links
# by id only, so a child hangs under the first line of its parent's id
# and every line of that id has it as a child (its first line of each id),
# -U's moves hand a dropped line's children (by its id: the kept copies'
# too) its parent id, and --shadowed asks each line for a child at its
# mount point by that id.
DUP_T = (b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n21 20 0:30 / /a rw - tmpfs a rw\n'
         b'22 21 0:31 / /a/b rw - tmpfs b rw\n23 20 0:32 / /c rw - tmpfs c rw\n')
# a shadowed /a (22 over 21), a pseudo one over it
DUP_S = (b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n21 20 0:30 / /a rw - tmpfs a rw\n'
         b'22 21 0:31 / /a rw - proc proc rw\n23 20 0:32 / /c rw - tmpfs c rw\n'
         b'24 23 0:33 / /c/d rw - tmpfs d rw\n')
# one file that repeats ids: 21 at /a and at /x, 24 at /a/y and at /c/d
DUP_ONE = (b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n21 20 0:30 / /a rw - tmpfs a rw\n'
           b'22 21 0:31 / /a/b rw - tmpfs b rw\n23 20 0:32 / /c rw - tmpfs c rw\n'
           b'21 23 0:34 / /x rw - tmpfs x rw\n24 21 0:35 / /a/y rw - tmpfs y rw\n'
           b'24 23 0:36 / /c/d rw - tmpfs d rw\n25 24 0:37 / /c/d/e rw - tmpfs e rw\n')
DUP_SETS = [[], ['-R', '-M', '/a'], ['-R', '-M', '/a', '-d', 'backward'], ['-R', '-M', '/c'],
            ['-R', '-t', 'tmpfs'], ['-R', '-T', '/a/b'], ['-R', '-S', 'a'], ['-U'],
            ['-U', '-R', '-M', '/a'], ['--shadowed'], ['-i', '--shadowed'], ['-U', '--shadowed'],
            ['-f'], ['-f', '-R', '-M', '/a'], ['-D'], ['-t', 'tmpfs'], ['-i', '-t', 'proc']]
DUP_FORMS = [['-o', 'TARGET,ID,PARENT,SOURCE'], ['-l', '-o', 'ID,PARENT,TARGET'],
             ['-J', '-o', 'TARGET,ID,PARENT'], ['-r', '-o', 'ID,PARENT,TARGET'], ['-P'], ['-l']]
DUP_VERIFY = [['-x', '-m', '--shadowed', '--pseudo'], ['-x', '-m', '--shadowed'],
              ['-x', '-m', '--verbose'], ['-x', '-m', '-U', '--shadowed']]


def dup_tables(rnd):
    """Mountinfo text drawn at random whose ids repeat: a parent's id is
    smaller than its child's (libmount would loop on an id cycle), mount
    points from a few, lines shuffled."""
    ids = [rnd.randint(20, 27) for _ in range(rnd.randint(2, 9))]
    recs = []
    for k, i in enumerate(ids):
        parents = [x for x in ids if x < i] + [1]
        recs.append(b'%d %d 0:%d / %s rw - %s s%d rw\n' % (
            i, rnd.choice(parents), 40 + k, rnd.choice(SHAPE_TARGETS).encode(),
            rnd.choice(SHAPE_TYPES).encode(), k))
    rnd.shuffle(recs)
    return b''.join(recs)


def dup_same(t, name, fm, ms):
    ra, a, ea = run(fm)
    rb, b, eb = run(ms)
    why = same_output(fm, ra, a, rb, b, ea, eb)
    t.check('dup-ids %s %s' % (name, ' '.join(fm[1:])), not why, why)


def dup_ids(t, binary, base):
    """Tables that list a mount id twice, in every form and option."""
    rnd = random.Random(2381)
    quick = os.environ.get('FMEQ_QUICK')
    files = {}
    for name, body in [('t', DUP_T), ('s', DUP_S), ('one', DUP_ONE)] + [
            ('rand%02d' % k, dup_tables(rnd)) for k in range(4 if quick else 10)]:
        files[name] = os.path.join(base, 'dup-%s.mi' % name)
        with open(files[name], 'wb') as fh:
            fh.write(body)
    tabs = [('t t', ['-F', files['t']] * 2), ('s s', ['-F', files['s']] * 2),
            ('t s', ['-F', files['t'], '-F', files['s']]), ('one', ['-F', files['one']]),
            ('one one', ['-F', files['one']] * 2)]
    tabs += [(n, ['-F', f]) for n, f in files.items() if n.startswith('rand')]
    tabs += [(n + ' x2', ['-F', f] * 2) for n, f in files.items() if n.startswith('rand')]
    for name, fa in tabs:
        for opts in DUP_SETS:
            for form in DUP_FORMS[:2] if quick and name.startswith('rand') else DUP_FORMS:
                dup_same(t, name, ['findmnt'] + fa + opts + form,
                         [binary, 'list'] + fa + opts + form)
        for opts in DUP_VERIFY:
            fstab_same(t, 'dup-ids ' + name, fa + opts, [binary, 'list'] + fa + opts)
    dup_live(t, binary, base)


DUP_NS = r'''set -e
b=$1
mount -t tmpfs a "$b/a"; mkdir "$b/a/b"; mount -t tmpfs b "$b/a/b"
mount -t tmpfs c "$b/c"; mount -t proc proc "$b/c"
echo ready; exec sleep 120'''


def dup_live(t, binary, base):
    """-N PID -F /proc/PID/mountinfo: a live table read twice."""
    if not can_unshare(t, 'dup-ids -N PID'):
        return
    b = os.path.join(base, 'live')
    for d in ('a', 'c'):
        os.makedirs(os.path.join(b, d), exist_ok=True)
    with ns_task(t, 'dup-ids -N PID', DUP_NS, b) as pid:
        if not pid:
            return
        fa = ['-N', pid, '-F', '/proc/%s/mountinfo' % pid]
        for opts in ([], ['-R', '-M', b + '/a'], ['-R', '-M', b], ['-U'], ['--shadowed'],
                     ['-R', '-t', 'tmpfs'], ['-f', '-R', '-M', b + '/c']):
            for form in (['-l', '-o', 'ID,PARENT,TARGET,SOURCE'], ['-J', '-o', 'TARGET,ID'],
                         ['-r', '-o', 'TARGET,PARENT']):
                dup_same(t, 'live', ['findmnt'] + fa + opts + form,
                         [binary, 'list'] + fa + opts + form)
        # -N's table is checked as it is (-N and -m exclude each other)
        for opts in ([o for o in v if o != '-m'] for v in DUP_VERIFY):
            fstab_same(t, 'dup-ids live', fa + opts, [binary, 'list'] + fa + opts)


def task_verify(t, binary, base):
    """findmnt -N PID -x: that task's mount table checked, in every spelling."""
    if not can_unshare(t, '-N PID -x'):
        return
    b = os.path.join(base, 'task')
    for d in ('st', 'sub', 'prc'):
        os.makedirs(os.path.join(b, d), exist_ok=True)
    # mounts only in a private namespace of its own
    with ns_task(t, '-N PID -x', TASK_NS, b) as pid:
        if not pid:
            return
        for args in (['-N', pid, '-x'], ['-x', '-N', pid], ['-N', pid, '-x', '--verbose'],
                     ['-N', pid, '-x', '--verbose', '-M', '/'], ['-N', pid, '-x', '-M', b + '/st'],
                     ['-N', pid, '-x', '-U'], ['-N', pid, '-x', '-i', '-t', 'tmpfs'],
                     ['-N', pid, '-x', '-f'], ['-N', pid, '-x', '-d', 'backward'],
                     ['-N', pid, '-x', '--verbose', '-T', b + '/sub/only-there'],
                     ['-N', pid, '-x', '--shadowed'], ['-N', pid, '-x', '-D'],
                     ['-N', pid, '-x', 'two'], ['-x', '-k', '-U'],
                     ['-x', '-k', '-i', '-t', 'tmpfs'], ['-x', '-k', '-f']):
            fstab_same(t, 'task', args, [binary, 'list'] + args)
    # gone: findmnt "can't read" (1), mntsnap says which pid (2, an error)
    ra, a, ea = run(['findmnt', '-N', pid, '-x'])
    rb, b, eb = run([binary, 'list', '-N', pid, '-x'])
    t.check('-N gone PID -x', (ra, rb, a, b) == (1, 2, b'', b'') and
            (b'--pid %s: no such process' % pid.encode()) in eb, 'exit %d/%d %r' % (ra, rb, eb))


# fstab lines the differential fuzz target (tests/fuzz/fuzz-fstab-libmount.c)
# found read otherwise than libmount reads them, each minimised: read by
# findmnt -s -F and findmnt -F (the format guessed) against mntsnap's
# list -s -F and list -F, every field of the entry in several forms.
READER_FSTABS = {
    # a freq or passno past long that ends the line is taken (strtol()'s
    # LONG_MAX cut to int: -1); with more after it the line is malformed
    'number-overflow-last': (b'9 / p 0 2222222222222222222222\n'
                             b'a /a t o 0 99999999999999999999\n'
                             b'b /b t o 99999999999999999999 0\n'
                             b'c /c t o 0 99999999999999999999 \n'
                             b'd /d t o -99999999999999999999\n'),
}
READER_COLS = 'SOURCE,TARGET,FSTYPE,OPTIONS,VFS-OPTIONS,FS-OPTIONS,FREQ,PASSNO'


def fstab_reader_edges(t, binary, base):
    for name, body in READER_FSTABS.items():
        path = os.path.join(base, 'reader-%s.fstab' % name)
        with open(path, 'wb') as fh:
            fh.write(body)
        for mode in (['-s', '-F', path], ['-F', path]):
            for form in ([], ['-r'], ['-P'], ['-J']):
                for o in ([], ['-o', READER_COLS]):
                    fstab_same(t, 'reader %s' % name, mode + form + o,
                               [binary, 'list'] + mode + form + o, json_out='-J' in form)
        for flt in (['-O', 'noauto'], ['-O', 'x-a'], ['-t', 'p']):
            fstab_same(t, 'reader %s' % name, ['-s', '-F', path, '-r'] + flt,
                       [binary, 'list', '-s', '-F', path, '-r'] + flt)


def error_order_cases(t, binary, base, verify):
    """What findmnt says before it refuses: a column only -p fills is
    refused after the table is read (its parse warnings first) and never
    with -x, which prints no columns; -F A -F B reads A (its warnings)
    before B that cannot be read. Refusals: exit 1 and 2 (kept), no
    stdout, the same stderr, the command's name aside."""
    bad = os.path.join(base, 'eo-bad.fstab')
    with open(bad, 'w') as fh:
        fh.write('/dev/null /tmp ext4 defaults 0 0\nbad line\n'
                 '/dev/fmeq-none /fmeq-none ext4 defaults 0 1\n')
    missing, tdir = os.path.join(base, 'eo-missing'), os.path.join(base, 'eo-dir')
    os.makedirs(tdir, exist_ok=True)
    if verify:
        for args in (['-x', '-F', bad, '-o', 'ACTION'], ['-x', '--verbose', '-F', bad, '-o',
                     'OLD-TARGET'], ['-x', '-m', '-o', 'OLD-OPTIONS'],
                     ['-x', '-N', str(os.getpid()), '-o', 'ACTION,TARGET']):
            fstab_same(t, 'error order', args, [binary, 'list'] + args)
    refused = [['-s', '-F', bad, '-o', 'ACTION'], ['-F', bad, '-o', 'TARGET,ACTION'],
               ['-m', '-F', bad, '-o', '+OLD-TARGET'], ['-o', 'ACTION'],
               ['-o', 'ACTION,NOSUCH'], ['-x', '-F', bad, '-o', 'ACTION,NOSUCH']]
    for b in (missing, tdir):
        refused += [['-F', bad, '-F', b], ['-m', '-F', bad, '-F', b]]
        if verify:
            refused += [['-x', '-k', '-F', bad, '-F', b], ['-x', '-m', '-F', bad, '-F', b]]

    refused.append(['-s', '-F', bad, '-F', missing])
    # an fstab directory is read for its *.fstab files: listed, not refused
    fstab_same(t, 'error order', ['-s', '-F', bad, '-F', tdir],
               [binary, 'list', '-s', '-F', bad, '-F', tdir])

    def norm(e):
        return norm_err(re.sub(rb'(?m)^mntsnap: list: ', b'mntsnap: ', e))
    for args in refused:
        ra, a, ea = run(['findmnt'] + args)
        rb, b, eb = run([binary, 'list'] + args)
        t.check('error order refused: %s' % ' '.join(args),
                (ra, rb, a, b) == (1, 2, b'', b'') and ea and norm(ea) == norm(eb),
                'exit %d/%d %r %r\nfindmnt %r\nmntsnap %r' % (ra, rb, a[:100], b[:100], ea, eb))


def fstab_modes_and_edges(t, binary, base):
    path = os.path.join(base, 'edge.fstab')
    with open(path, 'wb') as fh:
        fh.write(EDGE_FSTAB)
    verify = [['-x'], ['-x', '--verbose']] if blkid_or_skip(t, binary, path, 'edge fstab -x') \
        else []
    error_order_cases(t, binary, base, verify)
    for opts in EDGE_SETS:
        for form in EDGE_FORMS + verify:
            if form[:1] == ['-x'] and '-o' in opts:
                continue
            if os.environ.get('FMEQ_QUICK') and form not in ([], ['-J'], ['-x']):
                continue
            fstab_same(t, 'edge.fstab', ['-s', '-F', path] + opts + form,
                       [binary, 'list', '-s', '-F', path] + opts + form, json_out='-J' in form)
    for opts in EDGE_EXCL:
        ra, a, ea = run(['findmnt', '-F', path] + opts)
        rb, b, eb = run([binary, 'list', '-F', path] + opts)
        t.check('edge.fstab %s refused' % ' '.join(opts),
                (ra, rb, a, b) == (1, 2, b'', b'') and b'mutually exclusive' in ea and
                excl_same(ea, eb), 'exit %d/%d %r %r' % (ra, rb, ea, eb))
    # entries without an options field: libmount keeps no option string for
    # them, and -O matches none of them (each lookup in it fails), whatever
    # the pattern has, an empty or "no" item included
    noopt = os.path.join(base, 'noopts.fstab')
    with open(noopt, 'wb') as fh:
        fh.write(b'/dev/sda1 / ext4 defaults 0 1\nproc /proc proc\nsysfs /sys sysfs\n')
    for opts in (['-O', 'noatime'], ['-O', 'defaults'], ['-O', ','], ['-O', 'no'], ['-O', '+'],
                 ['-i', '-O', 'noatime'], ['-O', 'nodefaults'], []):
        fstab_same(t, 'noopts.fstab', ['-s', '-F', noopt] + opts + ['-r'],
                   [binary, 'list', '-s', '-F', noopt] + opts + ['-r'])
    edge_files(t, binary, base)
    fstab_lookup_leftovers(t, binary, base)
    fstab_reader_edges(t, binary, base)
    if verify:
        task_verify(t, binary, base)


def fstab_lookup_leftovers(t, binary, base):
    """Lookups over fstab-format tables (-s, -F FILE, -m's mtab of several
    files) as findmnt makes them, in every form (in a directory of their
    own: a relative mount point is looked up there).
    MAJ:MIN MOUNTPOINT: a device number (set_source_match()) beside the
    mount point, which no fstab entry has (0:0 each has), -f or not.
    -f TAG MOUNTPOINT: two arguments leave findmnt's swap on (its LABEL=,
    UUID=, ... test is for a lone argument), so a lookup that fails is
    retried with the tag's text as a mount point.
    -R with -c or LABEL: each submount's row resolves its source (the
    path cache gets its spelling) right after its match, before the next
    match is looked up."""
    d = os.path.join(base, 'leftovers')
    os.makedirs(d)
    cases = []
    tagged = os.path.join(d, 'tagged.fstab')
    with open(tagged, 'w') as fh:
        fh.write('/dev/a LABEL=nolabel-here ext4 defaults 0 0\n'
                 '/dev/b ID=noid-here ext4 defaults 0 0\n'
                 '/dev/c UUID=nouuid-here ext4 defaults 0 0\n'
                 '/dev/d 8:1 ext4 defaults 0 0\n'
                 '/dev/e %s/rel ext4 defaults 0 0\n'
                 '/dev/f /mnt ext4 defaults 0 0\n'
                 '/dev/g %s/PARTUUID=p ext4 defaults 0 0\n' % (d, d))
    pairs = []
    # MAJ:MIN MOUNTPOINT over fstab
    pairs += [['-f', '8:1', '/mnt'], ['8:1', '/mnt'], ['-f', '8:1', '8:1'], ['-f', '0:0', '/mnt'],
              ['0:0', '/mnt'], ['-f', '0:0'], ['0:0'], ['-f', '8:1'], ['8:1'],
              ['-f', '-S', '8:1', '/mnt'], ['-f', '/dev/f', '8:1'], ['-f', 'rel', '/mnt']]
    # -f TAG MOUNTPOINT (and without -f, or a lone tag: no retry)
    pairs += [['-f', 'LABEL=nolabel-here', '/mnt'], ['-f', 'UUID=nouuid-here', '/mnt'],
              ['-f', 'ID=noid-here', '/mnt'], ['-f', 'PARTUUID=x', '/mnt'],
              ['LABEL=nolabel-here', '/mnt'], ['-f', 'LABEL=nolabel-here'],
              ['-f', '-d', 'backward', 'LABEL=nolabel-here', '/x'], ['-f', 'PARTUUID=p', '/mnt'],
              ['-f', '-C', 'PARTUUID=p', '/mnt'], ['-f', 'PARTUUID=p']]
    for tab in (['-s', '-F', tagged], ['-F', tagged]):
        cases += [tab + args for args in pairs]
    # -R over -m's table of a mountinfo file and an fstab: the rows of a
    # match's submounts resolve "F/" (realpath() fails: kept as written)
    # before /c's "F" is printed, which the cache then gives as "F/"
    f, lnk, img = (os.path.join(d, n) for n in ('f', 'lnk', 'img'))
    open(f, 'w').close()
    os.symlink(f, lnk)
    # an ext4 image file: its LABEL probed through the path the cache gives
    has_img = shutil.which('mkfs.ext4') and subprocess.run(
        ['mkfs.ext4', '-q', '-F', '-L', 'lefto', img, '1M'], capture_output=True).returncode == 0
    src = img if has_img else f
    mi, fst = os.path.join(d, 'mtab.mi'), os.path.join(d, 'tail.fstab')
    with open(mi, 'w') as fh:
        fh.write('20 1 8:1 / / rw - ext4 /dev/sda1 rw\n'
                 '30 20 8:2 / /a ro - ext4 %s rw\n'
                 '31 30 8:3 / /a/b rw - xfs %s/ rw\n'
                 '32 31 8:3 / /a/b/c rw - xfs %s/ rw\n'
                 '40 20 8:4 / /c ro - ext4 %s rw\n'
                 '41 20 8:5 / /d ro - ext4 %s rw\n' % (lnk, src, f, src, f))
    with open(fst, 'w') as fh:
        fh.write('%s /z ext4 ro 0 0\n' % src)
    for tabs in (['-m', '-F', mi, '-F', fst], ['-m', '-F', fst, '-F', mi]):
        for args in (['-R', '-c', '-O', 'ro'], ['-R', '-c', '-t', 'ext4'], ['-R', '-c', '/a'],
                     ['-R', '-c', '-O', 'ro', '-d', 'backward'], ['-R', '-c', '-S', src],
                     ['-R', '-O', 'ro', '-o', 'TARGET,SOURCE,LABEL'],
                     ['-R', '-c', '-O', 'ro', '-o', 'TARGET,SOURCE,SOURCES,LABEL'],
                     ['-R', '-f', '-c', '-O', 'ro'], ['-R', '-c', '-i', '-t', 'xfs']):
            cases.append(tabs + args)
    for args in cases:
        for form in ([], ['-r'], ['-J'], ['-P']):
            lookup_pair(t, 'fstab leftovers', binary, args + form, cwd=d)


# Option parsing as findmnt 2.38's getopt loop does it: the last -o wins,
# -S MAJ:MIN and -S NAME are two matches, refused combinations, the empty
# path, and libmount's option and type patterns with empty items.
OPTPARSE_TABLE = (
    '20 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n'
    '21 20 0:5 / /proc rw,nosuid - proc proc rw\n'
    '22 20 0:6 / /mnt ro,nosuid - tmpfs none rw,mode=755,size="a,b",uid=0\n'
    '23 22 0:7 / /mnt/x rw,noexec - ext4 /dev/sdb rw,data=ordered\n'
    '24 20 0:8 / /sys rw,nosuid,nodev - sysfs sysfs rw\n')
OPTPARSE_ARGS = [
    # repeated options: which one findmnt keeps
    ['-o', 'TARGET', '-o', '+PARENT'], ['-o', '+ID', '-o', '+PARENT'],
    ['-o', 'SOURCE', '-o', 'TARGET,ID'], ['-D', '-o', 'TARGET', '-o', '+PARENT'],
    ['-S', '0:8', '-S', 'sysfs'], ['-S', '0:5', '-S', 'sysfs'], ['-S', 'sysfs', '-S', '0:8'],
    ['-S', '0:5', '-S', '0:8'], ['-S', 'none', '-S', 'proc'], ['-S', '0:6', '0:5'],
    ['-S', '0:5', '/proc'], ['-S', '0:5', 'proc'], ['-T', '/mnt', '-T', '/proc'],
    ['-M', '/mnt', '-M', '/proc'], ['-t', 'proc', '-t', 'tmpfs'], ['-O', 'ro', '-O', 'rw'],
    # refused by findmnt (exit 1), by mntsnap with its error status (2)
    ['-S', 'proc', '/proc'], ['-M', '/proc', 'proc'], ['-T', '/', '/proc'],
    ['-s', '-k'], ['-s', '-m'], ['-p', '-s'], ['-p', '-x'], ['-C', '-e'], ['-x', '-r'],
    # the empty path is "/" to libmount; other relative paths name nothing
    ['-T', ''], ['-M', ''], [''], ['-M', '//'], ['-T', '/mnt//'], ['-M', 'proc'],
    ['-T', 'mnt/x'], ['mnt'],
] + [['-O', o] for o in (
    ',', ',,', 'no', 'no,', 'rw,no', 'ro,no', 'noro,no', '+', 'rw,+', '+,', '+,rw', '+no',
    'no=x', 'rw,', ',rw,', 'mode', 'mode=', 'mode=755', 'mode=75', 'size="a,b"', 'size="a',
    'nosuid,no', 'nomode=755', 'rw,nosuid', '=', 'rw,=x', 'x"', '"', '', 'nonosuid',
    '+nosuid')] + [['-t', o] for o in (
    ',', ',,', 'no', 'no,', 'noext4,', 'ext4,', ',ext4', '', 'tmpfs,no', 'nono', 'EXT4')]


# findmnt --poll's own arguments, refused at once as findmnt refuses them:
# an ACTIONS list as util-linux's string_to_idarray() splits it (an empty
# item or a fifth one: exit 1, no message; an unknown one says so), the
# last -p with a list counting; -m beside -p (findmnt 2.38.1 polls), -s or
# -x beside it (refused); -p's -o lists split as findmnt splits them.
POLL_ARGS = [
    ['--poll='], ['--poll=mount,'], ['--poll=,mount'], ['--poll=mount,,umount'], ['--poll=,'],
    ['--poll=bogus'], ['--poll=MOUNT,Umount'], ['--poll=mount,umount,remount,move,mount'],
    ['--poll=mount,umount,remount,move'], ['--poll=umount', '-p'], ['-p', '--poll='],
    ['--poll=', '-x'], ['-x', '--poll='], ['--poll=', '-o', 'bogus'], ['-pbogus'], ['-p,'],
    ['-m', '-p'], ['-p', '-m'], ['-p', '-m', '-r'], ['-p', '-s'], ['-s', '-p'], ['-m', '-s'],
    ['-p', '-x'], ['-p', '-o', ''], ['-p', '-o', 'TARGET,'], ['-p', '-o', ',TARGET'],
    ['-p', '-o', 'TARGET,,SOURCE'], ['-p', '-o', '+'], ['-p', '-o', '+ACTION,'],
    ['-p', '--output-all', '-o', ''], ['-p', '-o', 'action,old-target']]
# -p -F FILE, FILE no task's table: findmnt reads FILE at the start (the
# table changes are told against), reporting its malformed lines, then
# waits out -w: FILE in fstab format, as text
POLL_FSTABS = {
    'bad-line': b'/dev/a /a ext4 defaults 0 0\n/dev/b /b ext4 defaults x 0\n',
    'several': b'bad\n/dev/a /a ext4 defaults 0 0\n\n# x\n/dev/b\n/dev/c /c ext4 defaults x\n',
    'clean': b'# c\n/dev/a /a ext4 defaults 0 0\n',
}


def poll_args(t, binary, base):
    # -w 0: one look, no wait (what is taken ends at once, exit 0)
    for args in POLL_ARGS:
        optparse_same(t, 'poll args', ['findmnt'], [binary, 'list'], args + ['-w', '0'])
    for name, text in sorted(POLL_FSTABS.items()):
        path = os.path.join(base, name + '.fstab')
        with open(path, 'wb') as f:
            f.write(text)
        for args in (['-p', '-F', path], ['-m', '-p', '-F', path], ['-p', '-r', '-F', path]):
            fstab_same(t, 'poll fstab %s' % name, args + ['-w', '0'],
                       [binary, 'list'] + args + ['-w', '0'])
    poll_signals(t, binary)
    private_ns_part(t, '--poll-discovered', binary, base, 'poll discovered changes')


def _sig_dispositions(ignored):
    """preexec_fn: SIGINT and SIGTERM as a shell leaves them (default),
    those in ignored ignored, as `cmd &` without job control leaves SIGINT."""
    def set_them():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN if sig in ignored else signal.SIG_DFL)
    return set_them


# findmnt --poll has no handler for SIGINT or SIGTERM: it dies of either
# (a shell says 128+N), and an ignored one it inherits stays ignored.
# list -p ends cleanly (its output written) and then dies of the same
# signal, so its caller sees what findmnt's sees. Each: the options, the
# signals ignored at the start, the signals sent in turn.
POLL_SIGNALS = [
    (['-p'], (), (signal.SIGTERM,)),
    (['-p'], (), (signal.SIGINT,)),
    (['-p', '-r', '-w', '60000'], (), (signal.SIGTERM,)),
    (['--poll=mount', '-J'], (), (signal.SIGINT,)),
    (['-p'], (signal.SIGINT,), (signal.SIGINT, signal.SIGTERM)),
]


def poll_signals(t, binary):
    for opts, ignored, sigs in POLL_SIGNALS:
        procs = []
        try:
            for who, cmd in (('f', ['findmnt']), ('m', [binary, 'list'])):
                out = tempfile.TemporaryFile()
                procs.append((0, who, subprocess.Popen(
                    cmd + opts, stdout=out, stderr=subprocess.STDOUT,
                    preexec_fn=_sig_dispositions(ignored)), out))
            polling([p.pid for _, _, p, _ in procs])
            for sig in sigs:
                for _, _, p, _ in procs:
                    if p.poll() is None:
                        p.send_signal(sig)
                time.sleep(0.3)
            res = poll_results(procs)
            (ra, a), (rb, b) = res[0, 'f'], res[0, 'm']
            t.check('poll %s%s, then %s: the same end' % (
                        ' '.join(opts), ''.join(' (%s ignored)' % s.name for s in ignored),
                        ', '.join(s.name for s in sigs)),
                    (ra, a) == (rb, b) and ra == -sigs[-1],
                    'exit %d/%d\nfindmnt %r\nmntsnap %r' % (ra, rb, a, b))
        finally:
            poll_stop(procs)


# -p: changes the kernel sends no event for in the poller's namespace (a
# rename of a directory above a mount point: findmnt's "move"; a remount
# of a superblock made from another namespace: "remount") are found with
# the next event, in the same batch: findmnt reads the whole table at
# each POLLPRI and prints the batch in its table diff's order (mounts,
# moves and remounts in the new table's order, umounts after them; -d
# backward the other way round). Each step is one batch.
POLL_DISCOVERED_STEPS = [
    'mv t1/g t1/g2 && mount -t tmpfs new t1/a',
    'mv t1/g2 t1/g3 && umount t1/a',
    'unshare -m --propagation unchanged sh -c "mount -o remount,size=3m s/c && '
    'mount -o remount,size=1m s/a && mount -o remount,size=2m s/b && sleep 0.3 && '
    'mount -t tmpfs x4 s/d"',
    'mv t1/g3 t1/g4 && unshare -m --propagation unchanged sh -c '
    '"mount -o remount,size=4m s/b && sleep 0.3 && umount s/d"',
    # a bind mount, its superblock's second mount, renamed above
    'mv t2/g t2/g2 && mount -t tmpfs new2 t2/a',
]


# fspick() + fsconfig(FSCONFIG_SET_STRING size, FSCONFIG_CMD_RECONFIGURE)
# of u/c in this namespace: a superblock reconfigure, which touches no mount
# namespace's event counter (util-linux 2.38's mount(8) has no such call)
FSCONFIG_RECONFIGURE = (
    '%s -c "import ctypes, os; l = ctypes.CDLL(None, use_errno=True); '
    'fd = l.syscall(433, ctypes.c_long(-100), b\'u/c\', 1); '
    'ok = fd >= 0 and l.syscall(431, fd, 1, b\'size\', b\'%%s\', 0) == 0 '
    'and l.syscall(431, fd, 7, None, None, 0) == 0; '
    'assert ok, os.strerror(ctypes.get_errno())"' % sys.executable)

# -p wakes only when the kernel bumps the polled namespace's event counter
# (POLLPRI on its mountinfo): a superblock remount made through another
# namespace's copy of a mount, and an fsconfig reconfigure here, bump none,
# so findmnt prints them only in the batch of the next real event, and
# nothing at all when -w ends first. Each step is one batch, or none.
POLL_UNREPORTED_STEPS = [
    'unshare -m --propagation unchanged mount -o remount,size=2m u/a',
    FSCONFIG_RECONFIGURE % '3m',
    'mount -t tmpfs ub u/b',
    # left for -w's end: no batch of their own
    'unshare -m --propagation unchanged mount -o remount,ro u/a',
    FSCONFIG_RECONFIGURE % '4m',
]


def poll_discovered_inner(binary, base):
    """In a private mount namespace already: POLL_DISCOVERED_STEPS polled
    by both programs, then POLL_UNREPORTED_STEPS (-p, -N, -m, -F mountinfo). Prints the tally as JSON on its last line."""
    t = Tally()
    d = os.path.join(base, 'pdisc')
    os.makedirs(d)
    sh = lambda c: subprocess.run(['sh', '-c', c], check=True, cwd=d)
    subprocess.run(['mount', '-t', 'tmpfs', 'pdisc', d], check=True)
    try:
        sh('mkdir -p t1/g/h t1/a s && mount -t tmpfs ren t1/g/h && mount -t tmpfs sh s && '
           'mount --make-shared s && mkdir s/a s/b s/c s/d && mount -t tmpfs x1 s/a && '
           'mount -t tmpfs x2 s/b && mount -t tmpfs x3 s/c && '
           'mkdir -p t2/src t2/g/h t2/a && mount -t tmpfs bs t2/src && mount --bind t2/src t2/g/h')
        # (no -J: findmnt 2.38.1 aborts on its second batch, README)
        sets = [['-p'], ['-p', '-r'], ['-p', '-d', 'backward'], ['-p', '-f', '-r'],
                ['--poll=move,mount,umount', '-r'], ['--poll=remount', '-d', 'backward', '-r'],
                ['-p', '-P', '-o', 'ACTION,TARGET,OLD-TARGET']]
        poll_history(t, 'poll discovered', binary, sets, POLL_DISCOVERED_STEPS, None, d,
                     wait_open=True)
        sh('mkdir -p u/a u/b u/c && mount -t tmpfs ua u/a && mount -t tmpfs uc u/c')
        me = str(os.getpid())
        cols = ['-o', 'ACTION,TARGET,OPTIONS,OLD-OPTIONS']
        sets = [['-p'] + cols, ['-p', '-N', me] + cols, ['-m', '-p'] + cols,
                ['-p', '-F', '/proc/self/mountinfo'] + cols,
                ['-p', '-F', '/proc/%s/mountinfo' % me] + cols]
        poll_history(t, 'poll unreported', binary, sets, POLL_UNREPORTED_STEPS, None, d,
                     wait_open=True)
        poll_reader_gone(t, binary, d)
    finally:
        subprocess.run(['umount', '-R', '-l', d], capture_output=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def poll_reader_gone(t, binary, d):
    """-p | a reader gone before the first change: findmnt dies of
    SIGPIPE at that change's line (a shell's 141), and so does list -p;
    with no change to write, both poll on until -w ends, exit 0; with
    SIGPIPE ignored, both poll on and say "write error" at the end."""
    mp = os.path.join(d, 'rgone')
    os.makedirs(mp, exist_ok=True)
    procs = []
    try:
        for who, cmd in (('f', ['findmnt']), ('m', [binary, 'list'])):
            # (restore_signals: SIGPIPE as a shell leaves it, default)
            p = subprocess.Popen(cmd + ['-p', '-w', '2000'], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL)
            p.stdout.close()
            procs.append((0, who, p, tempfile.TemporaryFile()))
        # list -p may end before it opens the table: wait for that too
        end = time.monotonic() + 20
        while time.monotonic() < end and not all(
                p.poll() is not None or has_mountinfo(p.pid) for _, _, p, _ in procs):
            time.sleep(0.05)
        time.sleep(0.5)
        subprocess.run(['mount', '-t', 'tmpfs', 'rgone', mp], check=True)
        subprocess.run(['umount', mp], check=True)
        res = poll_results(procs)
        ra, rb = res[0, 'f'][0], res[0, 'm'][0]
        t.check("poll -p, the pipe's reader gone: the same end",
                ra == rb == -signal.SIGPIPE, 'exit %d/%d' % (ra, rb))
    finally:
        poll_stop(procs)
    # SIGPIPE ignored: findmnt polls on until -w ends, then says "write
    # error" (exit 1); so does list -p (exit 2, README's error status)
    ign = lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    procs = []
    try:
        for who, cmd in (('f', ['findmnt']), ('m', [binary, 'list'])):
            p = subprocess.Popen(cmd + ['-p', '-w', '3000'], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, preexec_fn=ign)
            p.stdout.close()
            procs.append((who, p))
        time.sleep(0.5)
        subprocess.run(['mount', '-t', 'tmpfs', 'rgone', mp], check=True)
        subprocess.run(['umount', mp], check=True)
        got = {who: (p.wait(timeout=30), p.stderr.read()) for who, p in procs}
        (ra, ea), (rb, eb) = got['f'], got['m']
        t.check("poll -p, SIGPIPE ignored, the pipe's reader gone: a write error at the end",
                ra == 1 and b'write error' in ea and rb == 2 and
                eb == b'mntsnap: list: write error: Broken pipe\n',
                'exit %d %r / %d %r' % (ra, ea, rb, eb))
    finally:
        for _, p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    # the reader gone and no change: no line, no SIGPIPE; -w ends both
    procs = []
    try:
        for who, cmd in (('f', ['findmnt']), ('m', [binary, 'list'])):
            p = subprocess.Popen(cmd + ['-p', '-w', '1500'], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            p.stdout.close()
            procs.append((who, p))
        got = {who: (p.wait(timeout=30), p.stderr.read()) for who, p in procs}
        t.check("poll -p, the pipe's reader gone, no change: -w ends it, exit 0",
                got['f'] == got['m'] == (0, b''), '%r' % got)
    finally:
        for _, p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def run_streams(cmd, out='pipe', err='pipe'):
    """(exit, stdout, stderr) of cmd with its stdout and stderr as asked:
    'pipe' (read here), 'closed' (cmd >&-), 'full' (/dev/full), 'same'
    (stderr only: 2>&1) and 'epipe' (stdout only: a pipe whose reader is
    gone, SIGPIPE ignored)."""
    closing = [fd for fd, how in ((1, out), (2, err)) if how == 'closed']
    ign = out == 'epipe'

    def pre():
        signal.signal(signal.SIGPIPE, signal.SIG_IGN if ign else signal.SIG_DFL)
        for fd in closing:
            os.close(fd)
    with open('/dev/full', 'wb') as full:
        r = w = None
        if ign:
            r, w = os.pipe()
            os.close(r)
        fds = {'pipe': subprocess.PIPE, 'full': full, 'closed': subprocess.DEVNULL,
               'same': subprocess.STDOUT, 'epipe': w}
        try:
            p = subprocess.run(cmd, stdout=fds[out], stderr=fds[err], preexec_fn=pre)
        finally:
            if w is not None:
                os.close(w)
    return p.returncode, p.stdout or b'', p.stderr or b''


def run_on_tty(cmd):
    """Everything cmd writes to a terminal that is its stdout and stderr."""
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=slave, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    got = b''
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:
            break
        if not b:
            break
        got += b
    os.close(master)
    return p.wait(), got


def verify_into(cmd, where, base):
    """-x's report and summary, stdout and stderr one file (2>&1): a
    pipe, a regular file or a terminal, as written there."""
    if where == 'tty':
        return run_on_tty(cmd)
    if where == 'pipe':
        rc, out, _ = run_streams(cmd, 'pipe', 'same')
        return rc, out
    path = os.path.join(base, 'into')
    with open(path, 'wb') as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
    with open(path, 'rb') as f:
        return rc, f.read()


def streams_verify(t, binary, base):
    """-x: the report on stdout through stdio, the summary on stderr
    (unbuffered), so where the summary lands among the report's lines is
    stdio's doing: after all of it on a terminal (stdout flushed at each
    line), after the last whole block (4 KiB here) into a pipe or a file,
    even mid-line."""
    small = os.path.join(base, 'small.fstab')
    with open(small, 'w') as f:
        f.write('/dev/nonexistent-dev /nonexistent-dir ext4 defaults 0 2\n')
    big = os.path.join(base, 'big.fstab')
    with open(big, 'w') as f:
        for i in range(70):
            f.write('/dev/nonexistent-dev%d /nonexistent-dir/%d ext4 noauto 0 2\n' % (i, i))
    if not blkid_or_skip(t, binary, small, 'std-streams -x'):
        return
    for where in ('tty', 'pipe', 'file'):
        for name, path in (('small', small), ('big', big)):
            for extra in ([], ['--verbose']):
                args = ['-x', '-F', path] + extra
                ra, a = verify_into(['findmnt'] + args, where, base)
                rb, b = verify_into([binary, 'list'] + args, where, base)
                a, b = norm_err(a), norm_err(b)
                t.check('std-streams -x %s%s 2>&1 into a %s: the same bytes' % (
                    name, ' --verbose' if extra else '', where), (ra, a) == (rb, b),
                    'exit %d/%d\n%s\n---\n%s' % (ra, rb, short(a.decode(errors='replace')),
                                                 short(b.decode(errors='replace'))))


def streams_same(t, what, fm, ms, out, err):
    ra, _, ea = run_streams(fm, out, err)
    rb, _, eb = run_streams(ms, out, err)
    t.check('std-streams %s (stdout %s, stderr %s): as findmnt' % (what, out, err),
            (ra, norm_err(ea)) == (rb, norm_err(eb)), 'exit %d %r / %d %r' % (ra, ea, rb, eb))


def std_streams(t, binary, base):
    """findmnt closes its standard streams as util-linux's close_stdout()
    does: stdout's failed writes are an error, but for EBADF (stdout
    closed) and EPIPE at the last flush; a failed write to stderr (a
    warning) is exit 1."""
    mi = os.path.join(base, 'mi')
    with open(mi, 'w') as f:
        f.write('20 1 8:1 / / rw - ext4 /dev/sda1 rw\n21 20 0:5 / /mnt rw - tmpfs t rw\n')
    # a table whose list is 4-8 KiB, one of more than 8 KiB
    mid, big = os.path.join(base, 'mid'), os.path.join(base, 'big')
    for path, n in ((mid, 120), (big, 300)):
        with open(path, 'w') as f:
            f.write('20 1 8:1 / / rw - ext4 /dev/sda1 rw\n')
            for i in range(n):
                f.write('%d 20 0:5 / /mnt/a/somewhat/long/path/%03d rw - tmpfs t rw\n'
                        % (100 + i, i))
    bad = os.path.join(base, 'fstab')
    with open(bad, 'w') as f:
        f.write('/dev/x /mnt ext4 rw 0 0\nbad line\n')
    fm, ms = ['findmnt'], [binary, 'list']
    for form in ([], ['-J'], ['-l'], ['-r'], ['-P'], ['--format', 'mountinfo']):
        for q in (['-M', '/mnt'], ['-M', '/nonexistent']):
            if form[:1] != ['--format']:
                streams_same(t, 'list -F mi %s' % ' '.join(form + q), fm + ['-F', mi] + form + q,
                             ms + ['-F', mi] + form + q, 'closed', 'pipe')
            else:
                # findmnt has no such form: list's rule for it is -l's
                ra, _, ea = run_streams(fm + ['-F', mi, '-l'] + q, 'closed')
                rb, _, eb = run_streams(ms + ['-F', mi] + form + q, 'closed')
                t.check('std-streams list --format mountinfo %s, stdout closed' % q[1],
                        (ra, ea) == (rb, eb), 'exit %d %r / %d %r' % (ra, ea, rb, eb))
    # stdout closed: its buffer (BUFSIZ, no st_blksize to go by) is written
    # only past 8 KiB; a failed write before the end is an error
    ra, a, _ = run(fm + ['-F', mid, '-l'])
    t.check('std-streams: the mid table lists 4-8 KiB', 4096 < len(a) <= 8192, '%d' % len(a))
    streams_same(t, 'list -F mid -l', fm + ['-F', mid, '-l'], ms + ['-F', mid, '-l'],
                 'closed', 'pipe')
    ra, _, ea = run_streams(fm + ['-F', big], 'closed')
    rb, _, eb = run_streams(ms + ['-F', big], 'closed')
    t.check('std-streams list -F big, stdout closed: a write error (exit 2, findmnt 1)',
            ra == 1 and b'write error' in ea and rb == 2 and
            eb == b'mntsnap: list: writing output: Bad file descriptor\n',
            'exit %d %r / %d %r' % (ra, ea, rb, eb))
    # SIGPIPE ignored and the reader gone: the last flush's EPIPE is no
    # error, a write's before it is
    streams_same(t, 'list -F mi -M /mnt', fm + ['-F', mi, '-M', '/mnt'],
                 ms + ['-F', mi, '-M', '/mnt'], 'epipe', 'pipe')
    ra, _, ea = run_streams(fm + ['-F', big], 'epipe')
    rb, _, eb = run_streams(ms + ['-F', big], 'epipe')
    t.check('std-streams list -F big, the reader gone: a write error (exit 2, findmnt 1)',
            ra == 1 and b'write error' in ea and rb == 2 and
            eb == b'mntsnap: list: writing output: Broken pipe\n',
            'exit %d %r / %d %r' % (ra, ea, rb, eb))
    # stat and show as findmnt -T and -F
    streams_same(t, 'stat /', fm + ['-T', '/'], [binary, 'stat', '/'], 'closed', 'pipe')
    streams_same(t, 'stat / -J', fm + ['-T', '/', '-J'], [binary, 'stat', '/', '-J'],
                 'closed', 'pipe')
    snap = os.path.join(base, 'snap')
    rc, _, err = run([binary, 'save', '--no-sync', snap])
    t.check('std-streams: save', rc == 0, err.decode(errors='replace'))
    for q in (['-M', '/'], ['-M', '/nonexistent'], ['-l', '-M', '/']):
        streams_same(t, 'show %s' % ' '.join(q), fm + q, [binary, 'show', snap] + q,
                     'closed', 'pipe')
    # -p: nothing to write, stdout closed
    streams_same(t, 'list -p -w 0', fm + ['-p', '-w', '0'], ms + ['-p', '-w', '0'],
                 'closed', 'pipe')
    # a warning that cannot be written: exit 1
    for err in ('closed', 'full'):
        for args in (['-F', bad, '-M', '/mnt'], ['-F', bad, '-M', '/none'],
                     ['-F', bad, '-M', '/mnt', '-J'], ['-p', '-w', '0', '-F', bad],
                     ['-F', mi, '-M', '/mnt']):
            for out in ('pipe', 'closed'):
                streams_same(t, 'list %s' % ' '.join(args), fm + args, ms + args, out, err)
        streams_same(t, 'list -x -F fstab', fm + ['-x', '-F', bad], ms + ['-x', '-F', bad],
                     'pipe', err)
        streams_same(t, 'show -M /', fm + ['-M', '/'], [binary, 'show', snap, '-M', '/'],
                     'pipe', err)
    streams_verify(t, binary, base)


def _ids(n):
    return ','.join(['ID'] * n)


# findmnt 2.38.1 holds its columns in columns[2 x 27]: the default ones
# (4; -D's 7; --output-all's 24) that +LIST extends count, and the 55th
# name fails string_add_to_idarray() at once: exit 1, nothing printed,
# no message (an unknown name past the 54th is not even looked at)
COLCOUNT_ARGS = [
    ['-o', _ids(54)], ['-o', _ids(55)], ['-o', _ids(64)], ['-o', _ids(65)],
    ['-o', '+' + _ids(50)], ['-o', '+' + _ids(51)],
    ['-D', '-o', '+' + _ids(47)], ['-D', '-o', '+' + _ids(48)],
    ['--output-all', '-o', '+' + _ids(30)], ['--output-all', '-o', '+' + _ids(31)],
    ['--output-all', '-o', _ids(54)], ['-o', 'TARGET,' + _ids(54)],
    ['-o', _ids(54) + ',NOSUCH'], ['-o', _ids(53) + ',NOSUCH'], ['-o', _ids(54) + ','],
    ['-o', _ids(54) + ',,'], ['-o', _ids(53) + ',,'], ['-o', _ids(60), '-o', 'TARGET'],
    ['-o', 'TARGET', '-o', '+' + _ids(53)], ['-o', 'TARGET', '-o', '+' + _ids(54)],
]


def optparse_same(t, label, fm, ms, args, env=None, json_out=False):
    ra, a, ea = run(fm + args, env)
    rb, b, eb = run(ms + args, env)
    if ra == 1 and ea and not a:
        # findmnt refuses: mntsnap too, exit 2 (README: 1 is "nothing matched")
        why = '' if (rb, b, bool(eb)) == (2, b'', True) else 'findmnt refuses (%s), mntsnap: exit %d %r %r' % (
            ea.strip(), rb, short(b.decode(errors='replace')), eb.strip())
    else:
        why = same_output(args + ['-J'] * json_out, ra, a, rb, b, ea, eb)
        if not why and bool(ea) != bool(eb):
            why = 'stderr: findmnt %r, mntsnap %r' % (ea.strip(), eb.strip())
    t.check('%s %r' % (label, args), not why, why)


def optparse(t, binary, base):
    table = os.path.join(base, 'optparse.mountinfo')
    with open(table, 'w') as f:
        f.write(OPTPARSE_TABLE)
    fm, ms = ['findmnt', '-F', table], [binary, 'list', '-F', table]
    for args in OPTPARSE_ARGS + COLCOUNT_ARGS:
        for form in ([], ['-r'], ['-J']):
            optparse_same(t, 'optparse', fm, ms, args + form)
    # findmnt's own message for a bad -d, after the command's name (README)
    for val in ('sideways', 'Forward', 'forw', ''):
        ra, a, ea = run(fm + ['-d', val])
        rb, b, eb = run(ms + ['-d', val])
        t.check('optparse -d %r: findmnt\'s message' % val,
                ra == 1 and rb == 2 and not a and not b and
                eb.replace(b'mntsnap: list: ', b'findmnt: ') == ea, '%r / %r' % (ea, eb))
    # -F twice, -N PID -F FILE, -N twice: findmnt reads each in turn into one
    # table, a list
    pid = str(os.getpid())
    # (a file without its final newline: its last line ends with the file)
    nonl = os.path.join(base, 'optparse-nonl.mountinfo')
    with open(nonl, 'w') as f:
        f.write(OPTPARSE_TABLE.rstrip('\n'))
    for args in (['-F', table, '-F', table], ['-N', pid, '-F', table], ['-F', table, '-N', pid],
                 ['-N', pid, '-N', pid], ['-F', nonl, '-F', table]):
        for form in ([], ['-r'], ['--tree'], ['-J'], ['-t', 'proc,sysfs', '-r']):
            optparse_same(t, 'optparse', ['findmnt'], [binary, 'list'], args + form)
    # -N of a task that is gone, beside -F: findmnt's "can't read" of its file
    gone = subprocess.Popen(['true'])
    gone.wait()
    for args in (['-F', table, '-N', str(gone.pid)], ['-N', str(gone.pid), '-F', table],
                 ['-F', table, '-F', '/proc/%d/mountinfo' % gone.pid]):
        ra, a, ea = run(fm + args)
        rb, b, eb = run(ms + args)
        t.check('optparse a gone task beside -F %r' % args,
                (ra, rb, a, b) == (1, 2, b'', b'') and b"can't read" in ea and
                norm_err(ea) == norm_err(eb), 'exit %d/%d %r / %r' % (ra, rb, ea, eb))
    # the live table: the empty path is the root; -p -F FILE polls FILE
    # (a plain file never changes: nothing, exit 0 after -w)
    for args in (['-r', '-T', ''], ['-r', '-M', ''], ['-r', ''], ['-J', '-M', ''],
                 ['-p', '-F', table, '-w', '100'], ['-p', '-F', '/proc/self/mountinfo', '-w', '100'],
                 ['-p', '-F', os.path.join(base, 'missing'), '-w', '100'],
                 ['-p', '-F', table, '-F', table, '-w', '100'],
                 # --poll's columns: ACTION and the 4 defaults, or -D's 7
                 ['-p', '-F', table, '-w', '100', '-o', '+' + _ids(49)],
                 ['-p', '-F', table, '-w', '100', '-o', '+' + _ids(50)],
                 ['-p', '-D', '-F', table, '-w', '100', '-o', '+' + _ids(47)],
                 ['-p', '-D', '-F', table, '-w', '100', '-o', '+' + _ids(48)],
                 ['-p', '-F', table, '-w', '100', '-o', _ids(55)]):
        optparse_same(t, 'optparse live', ['findmnt'], [binary, 'list'], args)
    operand_refusals(t, fm, ms)
    early_column_cases(t, fm, ms, base)
    show_operands(t, binary, base)
    number_args(t, binary, base)


def early_column_cases(t, fm, ms, base):
    """-o's names are findmnt's first check after its options: an unknown
    one is refused before the arguments are looked at and before any table
    is opened (a FIFO as -F is never opened, /dev/stdin never read), the
    message naming the list from that name on; and $LIBMOUNT_UTAB whose
    size is 0 (a FIFO) is no utab to -m, never opened."""
    fifo = os.path.join(base, 'early.fifo')
    os.mkfifo(fifo)

    def norm(e):
        return norm_err(re.sub(rb'(?m)^mntsnap: (list|stat|show): ', b'mntsnap: ', e))
    for args in (['-o', 'FOO,SOURCE'], ['-o', 'TARGET,FOO,SOURCE', '-r'], ['-o', '+NOSUCH,ID'],
                 ['-o', 'ACTION,FOO'], ['-o', 'FOO', '-T', '/', '/'], ['-o', 'FOO', '-F', fifo],
                 ['-p', '-w', '0', '-N', '1', '-N', '2', '-o', 'FOO'],
                 ['-p', '-w', '0', '-o', 'FOO,BAR', '-F', fifo], ['-o', 'FOO', '-F', '/dev/stdin'],
                 ['--poll=mount,foo,bar', '-w', '0'], ['--poll=umount,,', '-w', '0']):
        res = []
        for cmd in (fm, ms):
            try:
                r = subprocess.run(cmd + args, input=b'keep\n', capture_output=True, timeout=20)
                res.append((r.returncode, r.stdout, r.stderr))
            except subprocess.TimeoutExpired:
                res.append((-1, b'', b'blocked (20 s)'))
        (ra, a, ea), (rb, b, eb) = res
        t.check('optparse -o checked first %r' % args,
                (ra, rb, a, b) == (1, 2, b'', b'') and ea and norm(ea) == norm(eb),
                'exit %d/%d %r / %r' % (ra, rb, ea, eb))
    # stdin left unread: both print nothing of it
    for cmd in (fm, ms):
        try:
            out = subprocess.run(['sh', '-c', '"$@" -o FOO -F /dev/stdin 2>/dev/null; cat', 'sh'] +
                                 cmd, input=b'keep\n', capture_output=True, timeout=20).stdout
        except subprocess.TimeoutExpired:
            out = b'(blocked)'
        t.check('optparse -o FOO -F /dev/stdin leaves stdin (%s)' % cmd[-1], out == b'keep\n',
                repr(out))
    env = dict(os.environ, LIBMOUNT_UTAB=fifo)
    for args in (['-m', '-r', '-o', 'TARGET,OPTIONS'], ['-m', '-J']):
        ra, a, ea = run(fm + args, env)
        try:
            r = subprocess.run(ms + args, env=env, capture_output=True, timeout=20)
            b = r.stdout
            if '-J' in args and a and b:
                a, b = jload(a), jload(b)
            why = '' if (ra, a, norm(ea)) == (r.returncode, b, norm(r.stderr)) else \
                'findmnt %d %r, mntsnap %d %r' % (ra, ea, r.returncode, r.stderr)
        except subprocess.TimeoutExpired:
            why = 'mntsnap blocked on the FIFO'
        t.check('optparse $LIBMOUNT_UTAB a FIFO %r' % args, not why, why)


def operand_refusals(t, fm, ms):
    """-S NAME, -T or -M beside a SOURCE|MOUNTPOINT argument: findmnt's
    refusal in its words, after mntsnap's "list: " (exit 2 for its 1);
    -S MAJ:MIN sets no source, so findmnt takes an argument beside it."""
    for args in (['-S', '/dev/sda1', '/mnt'], ['-T', '/mnt', '/dev/sda1'], ['-M', '/mnt', 'x'],
                 ['--source=/dev/sda1', '/mnt'], ['--target', '/mnt', 'x', 'y'],
                 ['--mountpoint=/', '/'], ['-S', '8:1', '-T', '/', '/'],
                 ['-S', 'x', '-S', '8:1', '/'], ['-S', '8:1', '-S', 'x', '/'],
                 ['-f', '-S', 'LABEL=x', '/'], ['-S', '', '/'], ['/', '-T', '/'],
                 ['-S', '8:1', '/'], ['-S', '8:1', '8:1', '/']):
        ra, a, ea = run(fm + args)
        rb, b, eb = run(ms + args)
        if ra == 1 and ea.startswith(b'findmnt: options'):
            why = '' if (rb, b, eb) == (2, b'', b'mntsnap: list: ' + ea[len(b'findmnt: '):]) \
                else 'findmnt 1 %r, mntsnap %d %r' % (ea, rb, eb)
        else:
            why = same_output(args, ra, a, rb, b, ea, eb)
        t.check('optparse operands refused %r' % args, not why, why)


def show_operands(t, binary, base):
    """show FILE's SOURCE|MOUNTPOINT arguments as list's (and findmnt -F's
    of the same table): -S NAME, -T or -M with one refused (exit 2, list's
    message), an argument MAJ:MIN replacing -S's, SOURCE MOUNTPOINT a pair."""
    snap, mi = os.path.join(base, 'operands.snap'), os.path.join(base, 'operands.mi')
    r = subprocess.run([binary, 'save', '--no-sync', snap], capture_output=True)
    t.check('show operands: save', r.returncode == 0, r.stderr.decode(errors='replace'))
    shutil.copyfile('/proc/self/mountinfo', mi)
    dev = {}
    with open(mi) as f:
        for line in f:
            w = line.split()
            dev.setdefault(w[4], w[2])
    pdev, sdev = dev.get('/proc', '0:0'), dev.get('/sys', '0:0')
    for args in (['-S', 'proc', '/sys'], ['-T', '/proc', '/sys'], ['-M', '/proc', '/sys'],
                 ['-i', '-S', 'proc', '/sys'], ['-S', 'proc', 'sysfs'], ['-S', pdev, '/proc'],
                 ['-S', sdev, pdev], ['-S', pdev, 'proc'], ['proc', '/proc'], ['sysfs', '/proc']):
        for form in ([], ['-r'], ['-J']):
            optparse_same(t, 'show operands', ['findmnt', '-F', mi], [binary, 'show', snap],
                          args + form)
        rl, _, el = run([binary, 'list', '-F', mi] + args)
        rs, _, es = run([binary, 'show', snap] + args)
        if rl == 2:
            t.check('show operands: list\'s refusal %r' % args,
                    (rs, es) == (2, el.replace(b'list: ', b'show: ', 1)),
                    'list: %d %r, show: %d %r' % (rl, el, rs, es))


# findmnt's numbers: -N (--task) is util-linux's strtou32_or_err() and -w
# (--timeout) its strtos32_or_err(): decimal only (strtoimax base 10: blanks
# and a sign before the digits, nothing after), a negative TID or a value
# outside 32 bits "out of range"; -S MAJ:MIN is sscanf("%d:%d"). Every
# number findmnt refuses, mntsnap refuses with the same message (its name
# and exit status 2 aside); every number findmnt reads, mntsnap reads as
# the same number.
NUM_TABLE = ('20 1 8:1 / / rw - ext4 /dev/sda1 rw\n'
             '25 20 0:0 / /z rw - tmpfs z rw\n'
             '26 20 0:4294967295 / /y rw - tmpfs y rw\n'
             '27 20 4095:1048575 / /w rw - tmpfs w rw\n')
NUM_BAD = ('', ' ', '1x', '1 ', '-1x', '0x1', '0x', 'x', '--1', '+-1', '1e3',
           '99999999999999999999', '-99999999999999999999', '18446744073709551615x')
NUM_TID = NUM_BAD + ('-1', '-0', '0', '4294967295', '4294967296', '2147483648')
NUM_MS = NUM_BAD + ('010', ' 10', '+10', '0x10', '2147483648', '-2147483649', '4294967296')
NUM_DEVNO = ('0:0', '0:-99999999999999999999', '0:99999999999999999999', '0:4294967296',
             '0:-1', ' 0: 0', '+0:-0', '0:0x', '00:00', '4095:1048575', '-4294963201:1048575',
             '0x0:0', '0:0:0', '0', ':0')


def run_bounded(cmd, secs=10):
    """run() that gives up after secs (a -w read as a huge wait never ends)."""
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=secs)
    except subprocess.TimeoutExpired:
        return None, b'', b'(still running after %ds)' % secs
    return r.returncode, r.stdout, r.stderr


def number_same(t, label, fm, ms, args):
    ra, a, ea = run_bounded(fm + args)
    rb, b, eb = run_bounded(ms + args)
    if ra == 1 and ea and not a:
        # refused: mntsnap too, exit 2; findmnt's "invalid ... argument"
        # in its words (a TID it reads but cannot open: any message)
        why = '' if (rb, b) == (2, b'') and eb and (
            b' argument: ' not in ea or norm_err(ea) == norm_err(eb)) else \
            'findmnt refuses (%r), mntsnap: exit %s %r %r' % (ea.strip(), rb, short(
                b.decode(errors='replace')), eb.strip())
    else:
        why = same_output(args, ra, a, rb, b, ea, eb) if rb is not None else \
            'findmnt exit %d, mntsnap %r' % (ra, eb)
    t.check('%s %r' % (label, args), not why, why)


def number_args(t, binary, base):
    table = os.path.join(base, 'numbers.mountinfo')
    with open(table, 'w') as f:
        f.write(NUM_TABLE)
    pid = str(os.getpid())
    live_fm, live_ms = ['findmnt'], [binary, 'list']
    for v in NUM_TID + ('0' + pid, '00' + pid, ' ' + pid, '+' + pid, hex(int(pid))):
        for opt in (['-N', v], ['--task', v], ['--task=' + v]):
            number_same(t, 'number -N', live_fm, live_ms,
                        opt + ['-t', 'proc', '-o', 'TARGET,TID'])
    for v in NUM_MS:
        for opt in (['-w', v], ['--timeout=' + v]):
            number_same(t, 'number -w', ['findmnt', '-p', '-F', table],
                        [binary, 'list', '-p', '-F', table], opt)
    for v in NUM_DEVNO:
        for args in (['-S', v], [v]):
            number_same(t, 'number -S', ['findmnt', '-F', table], [binary, 'list', '-F', table],
                        args + ['-r', '-o', 'TARGET,MAJ:MIN'])


# findmnt 2.38.1's long options (util-linux misc-utils/findmnt.c) with the
# arguments each is tried with after `-F TABLE`, chosen so its effect shows
# ('=' marks an option taking an argument: tried as --PREFIX ARG and
# --PREFIX=ARG). TABLE is DATA_DIR's util-linux-mountinfo.txt; FSTAB and
# PID are filled in.
ABBREV_OPTS = {
    'all': ['--pseudo', '-l'], 'ascii': [], 'bytes': ['-o', 'TARGET,SIZE', '-t', 'proc'],
    'canonicalize': ['-l'], 'direction': ['=backward', '-l'], 'df': ['-A', '-t', 'proc'],
    'evaluate': ['-l'], 'first-only': ['-t', 'tmpfs'], 'fstab': ['FSTAB'], 'help': [],
    'invert': ['-t', 'tmpfs', '-l'], 'json': [], 'kernel': ['-l'], 'list': [],
    'mountpoint': ['=/proc'], 'mtab': [], 'noheadings': ['-l'], 'notruncate': [],
    'options': ['=noexec', '-l'], 'output': ['=TARGET,ID'], 'output-all': ['-l', '-t', 'proc'],
    'poll': ['-w', '100'], 'pairs': [], 'raw': [], 'types': ['=tmpfs'],
    'nocanonicalize': ['-l'], 'nofsroot': ['-l'], 'submounts': ['/dev'],
    'source': ['=tmpfs', '-l'], 'tab-file': ['=TABLE', '-r'], 'task': ['=PID', '-t', 'proc'],
    'target': ['=/dev/shm/x'], 'timeout': ['=100', '-p'], 'uniq': ['-l'],
    'verify': ['FSTAB'], 'version': [], 'shell': ['-P'], 'verbose': ['-l'], 'tree': ['-l'],
    'real': ['-l'], 'pseudo': ['-l'], 'vfs-all': ['-o', 'TARGET,VFS-OPTIONS'],
    'shadowed': ['-l'],
}
# a table whose names look like options: an option's argument, or an
# argument after --, is never taken for an abbreviation
ABBREV_TABLE = (
    '20 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n'
    '21 20 0:5 / /proc rw,nosuid - --un --lis rw\n'
    '22 20 0:6 / /mnt ro,nosuid - tmpfs --b rw\n')
ABBREV_ARGS = [['-t', '--un'], ['-t--un'], ['-lt', '--un'], ['--types', '--un'],
               ['--ty', '--un'], ['-S', '--lis'], ['--so', '--b'], ['-o', 'TARGET', '-O', 'rw'],
               ['--', '--lis'], ['-l', '--', '--b'], ['-F', '/nonexistent', '--lis'],
               ['-p', '--lis', '-w', '100'], ['-r', '--t', 'x'], ['--=x']]


def abbrev_expand(args, name, table, fstab, pid):
    """ABBREV_OPTS' arguments for prefix PFX of name: [(findmnt args, mntsnap args)]"""
    subst = {'FSTAB': fstab, 'TABLE': table, 'PID': pid}
    rest = [subst.get(a, a) for a in ABBREV_OPTS[name]]
    head = [] if name in ('tab-file', 'task', 'fstab', 'verify') else ['-F', table]
    if name in ('fstab', 'verify'):
        head, rest = ['-F', rest[0]], []
    if rest[:1] and rest[0].startswith('='):
        v = subst.get(rest[0][1:], rest[0][1:])
        return [head + [args, v] + rest[1:], head + [args + '=' + v] + rest[1:]]
    return [head + [args] + rest]


def abbrevs(t, binary, data, base):
    """Every prefix of every findmnt long option, as findmnt resolves it:
    mntsnap's own long options (--list-columns, --under, --backend, ...)
    never make one ambiguous, and a prefix findmnt calls ambiguous (--n,
    --ta) is refused (exit 2, findmnt 1). -h and -V print mntsnap's own
    text (README), so those prefixes are compared with mntsnap's --help and
    --version. show and stat take them alike."""
    table = os.path.join(data, 'util-linux-mountinfo.txt')
    fstab = os.path.join(data, 'fstab', 'mntsnap-options.fstab')
    pid = str(os.getpid())
    names = list(ABBREV_OPTS)
    prefixes = sorted({n[:k] for n in names for k in range(1, len(n) + 1)})
    for p in prefixes:
        exact = p in names
        cands = [n for n in names if n.startswith(p)]
        name = p if exact else cands[0]
        for args in abbrev_expand('--' + p, name, table, fstab, pid):
            if name in ('help', 'version') and (exact or len(cands) == 1):
                rb, b, eb = run([binary, 'list', '--' + name])
                rc, c, ec = run([binary, 'list'] + args)
                t.check('abbrev %r' % args, (rb, b) == (rc, c) and rb == 0,
                        'mntsnap --%s: %d, %r: %d %r' % (name, rb, args, rc, ec))
                continue
            optparse_same(t, 'abbrev', ['findmnt'], [binary, 'list'], args,
                          json_out=name == 'json' and (exact or len(cands) == 1))
    odd = os.path.join(base, 'abbrev.mountinfo')
    with open(odd, 'w') as f:
        f.write(ABBREV_TABLE)
    for args in ABBREV_ARGS:
        optparse_same(t, 'abbrev args', ['findmnt', '-F', odd], [binary, 'list', '-F', odd], args)
    # POSIXLY_CORRECT: the first argument ends the options, for both
    optparse_same(t, 'abbrev POSIXLY_CORRECT', ['findmnt', '-F', odd], [binary, 'list', '-F', odd],
                  ['--lis', 'proc', '--lis'], dict(os.environ, POSIXLY_CORRECT='1'))
    # mntsnap's own long options by a prefix findmnt does not know
    for short, whole in ((['--list-c'], ['--list-columns']), (['--mountinfo', table], ['-F', table]),
                         (['--thr', '2', '--allow', '--back', 'mountinfo', '-t', 'proc'],
                          ['--threads', '2', '--allow-inconsistent', '--backend', 'mountinfo',
                           '-t', 'proc']),
                         (['--und', '/', '-t', 'proc'], ['--under', '/', '-t', 'proc']),
                         (['--pi', pid, '-t', 'proc'], ['--pid', pid, '-t', 'proc'])):
        ra, a, ea = run([binary, 'list'] + short)
        rb, b, eb = run([binary, 'list'] + whole)
        t.check('abbrev own %r' % short, (ra, a) == (rb, b) and ra == 0 and a,
                '%r: %d %r, %r: %d %r' % (short, ra, ea, whole, rb, eb))
    # show and stat: the same abbreviations (show: a snapshot of this table)
    snap = os.path.join(base, 'abbrev.snap')
    rc, _, err = run([binary, 'save', snap])
    t.check('abbrev save', rc == 0, err.decode(errors='replace'))
    for cmd, tail in ((['show', snap], []), (['stat'], ['/'])):
        for short, whole in ((['--lis'], ['--list']), (['--js'], ['--json']),
                             (['--b', '-o', 'TARGET,SIZE'], ['--bytes', '-o', 'TARGET,SIZE']),
                             (['--al', '-o', 'TARGET'], ['--all', '-o', 'TARGET'])):
            ra, a, ea = run([binary] + cmd + short + tail)
            rb, b, eb = run([binary] + cmd + whole + tail)
            t.check('abbrev %s %r' % (cmd[0], short), (ra, a) == (rb, b) and ra == 0 and a,
                    '%r: %d %r, %r: %d %r' % (short, ra, ea, whole, rb, eb))
        ra, a, ea = run([binary] + cmd + ['--n'] + tail)
        t.check('abbrev %s --n refused' % cmd[0], ra == 2 and not a and b'ambiguous' in ea,
                '%d %r %r' % (ra, a, ea))


# -F FILE in the format of /proc/mounts (an mtab) or fstab, without -s:
# libmount guesses the format by the first line that is not blank or a
# comment ("%u %u": mountinfo) and findmnt lists the file as a kernel
# table; a mountinfo file whose last line has no newline; LIBMOUNT_FSTAB,
# libmount's fstab path for -s and -x.
TABFILE_LOOKUPS = [['-T', '/usr/bin'], ['-T', '/proc/self'], ['-T', '/nonexistent-x/y'],
                   ['-C', '-T', '/usr/bin'], ['-m', '-T', '/usr/bin'], ['-M', '/usr'], ['-k'],
                   ['-m'], ['-c'], ['-v'], ['-R', '/'], ['--tree'], ['-A']]


def tabfile_formats(t, binary, data, base):
    """findmnt -F FILE / mntsnap list -F FILE on every format libmount guesses."""
    files = []
    mounts = os.path.join(base, 'mounts')
    with open('/proc/self/mounts', 'rb') as src, open(mounts, 'wb') as dst:
        dst.write(src.read())   # one copy: both programs read the same bytes
    files.append(('mounts', mounts))
    files.append(('util-linux.fstab', os.path.join(data, 'fstab', 'util-linux.fstab')))
    for name in ('escapes', 'fields', 'crlf', 'nul', 'comments', 'only-comments',
                 'no-final-newline'):
        path = os.path.join(base, 'tabfile-%s' % name)
        with open(path, 'wb') as fh:
            fh.write(HOSTILE[name])
        files.append((name, path))
    mixed = os.path.join(base, 'tabfile-mixed')   # the first line decides: fstab
    with open(mixed, 'wb') as fh:
        fh.write(b'# fstab first\n/dev/a / ext4 rw 0 1\n'
                 b'21 1 0:20 / /proc rw,relatime - proc proc rw\n \t3 4 5\n')
    files.append(('mixed', mixed))
    cols = ','.join(FSTAB_COLUMNS)
    blkid = blkid_or_skip(t, binary, files[1][1], 'tab-file formats\' blkid columns')
    for name, path in files:
        for form, args in FSTAB_FORMS.items():
            if os.environ.get('FMEQ_QUICK') and form not in ('list-default', 'raw', 'json'):
                continue
            for o in ([], ['-o', cols]):
                fstab_same(t, 'tabfile ' + name, ['-F', path] + args + o,
                           [binary, 'list', '-F', path] + args + o, json_out='-J' in args)
        if name in ('mounts', 'util-linux.fstab'):
            for flt in FSTAB_FILTERS + TABFILE_LOOKUPS:
                fstab_same(t, 'tabfile ' + name, ['-F', path, '-r'] + flt,
                           [binary, 'list', '-F', path, '-r'] + flt)
            if blkid:
                for v in (['-x'], ['-x', '--verbose'], ['-x', '-k']):
                    fstab_same(t, 'tabfile ' + name, ['-F', path] + v,
                               [binary, 'list', '-F', path] + v)
    fstab_same(t, 'tabfile /proc/self/mounts', ['-F', '/proc/self/mounts', '-r', '-t', 'proc'],
               [binary, 'list', '-F', '/proc/self/mounts', '-r', '-t', 'proc'])
    # libmount marks each line read from the file named exactly /proc/mounts
    # a kernel's (MNT_FS_KERNEL): FREQ and PASSNO empty (null), PROPAGATION
    # private; /proc/self/mounts and a copy stay fstab-like (0, 0, empty)
    pm_cols = ['-o', 'TARGET,FREQ,PASSNO,PROPAGATION', '-t', 'proc,sysfs,tmpfs']
    for fa in (['-F', '/proc/mounts'], ['-s', '-F', '/proc/mounts'], ['-m', '-F', '/proc/mounts'],
               ['-F', '/proc/mounts', '-F', mounts], ['-F', mounts, '-F', '/proc/mounts'],
               ['-F', '/proc/self/mounts']):
        for form in (['-P'], ['-J'], ['-r', '/proc']):
            fstab_same(t, 'tabfile ' + ' '.join(fa), fa + form + pm_cols,
                       [binary, 'list'] + fa + form + pm_cols, json_out='-J' in form)
    # kept on purpose: a line that is no mountinfo line in a mountinfo file
    bad = os.path.join(base, 'tabfile-mountinfo-then-fstab')
    with open(bad, 'wb') as fh:
        fh.write(b'21 1 0:20 / /proc rw - proc proc rw\n/dev/a / ext4 rw 0 1\n')
    ra, _, ea = run(['findmnt', '-F', bad])
    rb, _, eb = run([binary, 'list', '-F', bad])
    t.check('tabfile mountinfo then fstab: findmnt warns, mntsnap refuses naming line 2',
            ra == 0 and b'line 2' in ea and rb == 2 and b'line 2' in eb, '%r / %r' % (ea, eb))
    # mountinfo files without their final newline: read as findmnt reads them
    for f in ('util-linux-mountinfo.txt', 'moby-ubuntu.txt'):
        path = os.path.join(base, 'nonl-' + f)
        with open(os.path.join(data, f), 'rb') as src, open(path, 'wb') as dst:
            dst.write(src.read().rstrip(b'\n'))
        fm, ms = ['findmnt', '-F', path], [binary, 'list', '-F', path]
        compare_input(t, 'nonl-' + f, fm, ms)
        compare_options(t, 'nonl-' + f, fm, ms, forms=[[], ['-J']])
        compare_ordered(t, 'nonl-' + f, fm, ms)
    # LIBMOUNT_FSTAB: a file, a directory of *.fstab; unreadable ones
    d = os.path.join(base, 'libmount-fstab.d')
    fstab_dir(d, base)
    with open(os.path.join(d, 'a.fstab'), 'wb') as fh:
        fh.write(b'a /a ext4 rw 1 2\nbroken\n')
    for val in (files[1][1], d):
        env = dict(os.environ, LIBMOUNT_FSTAB=val)
        for args in ([], ['-J'], ['-r', '-o', cols], ['-r', '/boot']):
            fstab_same(t, 'LIBMOUNT_FSTAB=' + os.path.basename(val), ['-s'] + args,
                       [binary, 'list', '-s'] + args, env=env, json_out='-J' in args)
        if blkid:
            fstab_same(t, 'LIBMOUNT_FSTAB=' + os.path.basename(val), ['-x', '--verbose'],
                       [binary, 'list', '-x', '--verbose'], env=env)
    for val in ('', '/nonexistent-fstab-x'):
        env = dict(os.environ, LIBMOUNT_FSTAB=val)
        for args in (['-s'], ['-x']):
            ra, a, ea = run(['findmnt'] + args, env)
            rb, b, eb = run([binary, 'list'] + args, env)
            t.check('LIBMOUNT_FSTAB=%r %s: an error in both' % (val, args[0]),
                    (ra, rb) == FSTAB_ERROR_EXIT and a == b == b'' and
                    b"can't read" in ea and b"can't read" in eb, '%d %d %r %r' % (ra, rb, ea, eb))


def tabfile_kinds(t, binary, base):
    """-F FILE of every kind, alone and in first or second place beside
    another: a mountinfo file, an fstab-format file, an empty file, a
    directory of *.fstab, /dev/null, a character device without a driver
    (open() fails: ENXIO), /proc/self/mountinfo, a missing file, a named
    FIFO. A kernel table or an mtab (no option, -m, -k, -x -k, -x -m) is
    read by libmount's mnt_table_parse_file(), fopen() and a stream, file
    by file: a directory fails its first read (EISDIR) and ends the run,
    naming it, after a good file too; /dev/null is an empty table, which
    leaves the format to the next file's first line. The same stdout,
    stderr (the program's name aside) and exit status (README's 1 for 2
    on an error). Kept (README): fstab read by name (-s, -x of fstab)
    refuses a device or FIFO with EINVAL where findmnt repeats a stale
    errno; a mountinfo table's line in the fstab format is refused."""
    def w(name, data):
        path = os.path.join(base, 'kind-' + name)
        with open(path, 'wb') as fh:
            fh.write(data)
        return path
    fs = w('fs', b'tmpfs /a tmpfs rw 0 0\n/dev/b /b xfs ro 0 0\n')
    kinds = {'mi': w('mi', b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n21 20 0:5 / /x rw - tmpfs t rw\n'),
             'fs': fs, 'empty': w('empty', b''), 'null': '/dev/null',
             'proc': '/proc/self/mountinfo', 'missing': os.path.join(base, 'kind-missing'),
             'fifo': None}
    d = kinds['dir'] = os.path.join(base, 'kind-dir')
    os.mkdir(d)
    with open(os.path.join(d, 'b.fstab'), 'wb') as fh:
        fh.write(b'tmpfs /c tmpfs rw 0 0\n')
    try:
        chrdev = os.path.join(base, 'kind-chr')
        os.mknod(chrdev, 0o600 | stat.S_IFCHR, os.makedev(0, 0))   # no driver: ENXIO
        kinds['chr'] = chrdev
    except OSError as e:
        print('skip: -F of a character device without a driver (%s)' % e)

    serial = itertools.count()

    def fifo_names(err):
        return re.sub(rb'(kind-fifo\d+)-\d+', rb'\1', err)

    def cmd(prog, opts, names):
        pre, fa = '', []
        for i, k in enumerate(names):
            if k == 'fifo':   # fed fs; a writer with no reader gives up
                # a fifo of its own per run: a writer left from an earlier
                # run whose reader never opened its fifo may still get to
                # its "> fifo", which makes a regular file of a reused name
                # (named in messages as kind-fifoI: see fifo_names())
                ff = os.path.join(base, 'kind-fifo%d-%d' % (i, next(serial)))
                pre += ('rm -f {p}; mkfifo {p}; (timeout 5 sh -c "cat {f} > {p}" >/dev/null 2>&1 &); '
                        .format(p=ff, f=fs))
                fa.append(ff)
            else:
                fa.append(kinds[k])
        return pre + 'timeout 20 %s %s %s' % (prog, opts, ' '.join('-F ' + f for f in fa))
    combos = [(k,) for k in kinds] + list(itertools.product(kinds, kinds))
    new = ('dir', 'null', 'chr', 'empty', 'missing')
    for opts in ('', '-m', '-k', '-s', '-x', '-x -k', '-x -m'):
        by_name = opts in ('-s', '-x')
        for names in combos:
            if opts.startswith('-x') and not set(names) & set(new):
                continue   # -x on the other kinds: tabfile and fstab parts
            ra, a, ea = run(['bash', '-c', cmd('findmnt', opts, names)])
            rb, b, eb = run(['bash', '-c', cmd(binary + ' list', opts, names)])
            ea, eb = norm_err(fifo_names(ea)), norm_err(fifo_names(eb))
            if by_name and a == b == b'' and (ra, rb) == FSTAB_ERROR_EXIT and \
                    eb.endswith(b': Invalid argument\n') and \
                    ea.split(b"PROG: can't read ")[:-1] == eb.split(b"PROG: can't read ")[:-1]:
                continue   # kept: EINVAL named, findmnt's stale errno
            if ra in (0, 1) and rb == 2 and not b and b'parse error at line' in ea and \
                    re.search(rb'PROG: list: [^\n]*: line \d+: ', eb) and not by_name:
                continue   # kept: an fstab line in a mountinfo table refused
            ok = a == b and ea == eb and (ra == rb or ((ra, rb) == FSTAB_ERROR_EXIT and
                                                       b"PROG: can't read " in ea))
            t.check('tabfile kinds: findmnt %s -F %s' % (opts, ' -F '.join(names)), ok,
                    short('findmnt %d %r %r\n  mntsnap %d %r %r' % (ra, a, ea, rb, b, eb), 800))


def tabfile_pipes(t, binary, base):
    """-F FILE that is a pipe (/dev/stdin fed by a pipe, bash's <(...),
    /proc/self/fd/N, a named FIFO): libmount reads it as one stream and
    guesses its format from its first line, as for a regular file of the
    same bytes; the same output, stderr (a parse error names FILE as
    given) and exit status from both."""
    fifo = os.path.join(base, 'pipe-fifo')
    # the writer gives up when no reader comes (the test goes on)
    fifo_run = ('mkfifo {p}; (timeout 10 sh -c "cat {f} > {p}" 2>/dev/null &); '
                '@ -F {p}%s; r=$?; rm -f {p}; exit $r')
    mounts = os.path.join(base, 'pipe-mounts')
    with open('/proc/self/mounts', 'rb') as src, open(mounts, 'wb') as dst:
        dst.write(src.read())   # one copy: both programs read the same bytes
    mi = os.path.join(base, 'pipe-mountinfo')
    with open('/proc/self/mountinfo', 'rb') as src, open(mi, 'wb') as dst:
        dst.write(src.read())
    fs = os.path.join(base, 'pipe-fstab')
    with open(fs, 'wb') as fh:
        fh.write(b'# fstab\nproc /proc proc defaults 0 0\n/dev/vda / ext4 rw 0 1\n'
                 b'broken\n')
    for f in (mounts, fs, mi, os.path.join(base, 'fstab-escapes')):
        if not os.path.exists(f):
            with open(f, 'wb') as fh:
                fh.write(HOSTILE['escapes'])
        for how in ('cat {f} | @ -F /dev/stdin%s', '@ -F <(cat {f})%s',
                    'cat {f} | @ -F /proc/self/fd/0%s', 'cat {f} | @ -F /dev/fd/0%s', fifo_run,
                    fifo_run % ' -F {f}%s'):
            for args in ('', ' -r -t proc -o TARGET,SOURCE', ' -J', ' -P /proc'):
                c = how.format(f=f, p=fifo) % args
                ra, a, ea = run(['bash', '-c', c.replace('@', 'findmnt')])
                rb, b, eb = run(['bash', '-c', c.replace('@', binary + ' list')])
                if args == ' -J' and ra == rb == 0:
                    a, b = jload(a), jload(b)
                t.check('tabfile pipe: %s' % c.replace('@', 'findmnt'),
                        (ra, a, norm_err(ea)) == (rb, b, norm_err(eb)),
                        short('findmnt %d %r %r\n  mntsnap %d %r %r' % (ra, a, ea, rb, b, eb),
                              800))
    # -x (without -k, -m, -N) verifies fstab, which libmount reads by name
    # (mnt_table_parse_fstab()): a pipe is neither file nor directory, so
    # findmnt refuses it, nothing verified, as -s does. Both refuse; the
    # status and reason are README's kept ones (exit 2 and EINVAL; findmnt:
    # exit 1 and a stale "No such file or directory").
    # (the named FIFO has no writer: neither program may open it, a reader
    # that did would wait; the timeout ends such a wait as a failure)
    fifo_x = 'mkfifo {p}; timeout 10 @ -F {p}%s; r=$?; rm -f {p}; exit $r'
    for how in ('cat {f} | @ -F /dev/stdin%s', '@ -F <(cat {f})%s', fifo_x):
        for args in (' -x', ' -x --verbose', ' -s', ' -x -F {f}'):
            c = (how.format(f=fs, p=fifo + '-x') % args).format(f=fs)
            ra, a, ea = run(['bash', '-c', c.replace('@', 'findmnt')])
            rb, b, eb = run(['bash', '-c', c.replace('@', binary + ' list')])
            ok = (ra, rb) == FSTAB_ERROR_EXIT and a == b == b'' and \
                b"can't read" in ea and eb.startswith(b"mntsnap: can't read ") and \
                eb.endswith(b': Invalid argument\n')
            t.check('tabfile pipe refused as fstab: %s' % c.replace('@', 'findmnt'), ok,
                    short('findmnt %d %r %r\n  mntsnap %d %r %r' % (ra, a, ea, rb, b, eb), 800))


def tabfile_pipes_twice(t, binary, base):
    """A FILE that can be read once named twice: libmount opens FILE again
    for the second -F and reads what is left of the stream there: nothing,
    for a pipe its writer closed (/dev/stdin, /dev/fd/N, /proc/self/fd/N,
    the same pipe by two of those names), an empty table after the first;
    a named FIFO opened again reads its next writer's text. -s and -x
    refuse a pipe as fstab the first time already."""
    mi = os.path.join(base, 'twice-mountinfo')
    with open(mi, 'wb') as fh:
        fh.write(b'20 1 0:30 / / rw,relatime - tmpfs none rw\n21 20 0:31 / /a rw - tmpfs ta rw\n')
    pm = os.path.join(base, 'twice-mounts')
    with open(pm, 'wb') as fh:
        fh.write(b'none / tmpfs rw 0 0\nta /a tmpfs rw 0 0\n')
    fifo = os.path.join(base, 'twice-fifo')
    # the FIFO's two writers, one after the other (the second waits for the
    # reader's second open); the reader's timeout ends a wait that hangs
    fifo_run = ('mkfifo {p}; (timeout 20 sh -c "cat {f} > {p}; sleep 1; cat {f} > {p}" '
                '2>/dev/null &); timeout 20 @ -F {p} -F {p}%s; r=$?; rm -f {p}; exit $r')
    for f in (mi, pm):
        for how in ('cat {f} | @ -F /dev/stdin -F /dev/stdin%s',
                    'cat {f} | @ -F /dev/stdin -F /proc/self/fd/0%s',
                    'cat {f} | @ -F /dev/fd/0 -F /dev/stdin -F /dev/stdin%s',
                    'cat {f} | @ -F /dev/stdin -F {f} -F /dev/stdin%s',
                    '@ -F /dev/fd/3 -F /dev/fd/3%s 3< <(cat {f})',
                    '@ -F /proc/self/fd/3 -F /dev/stdin -F /dev/fd/3%s 3< <(cat {f}) < {f}',
                    fifo_run):
            for args in ('', ' -r -o TARGET,SOURCE', ' -J', ' -m -r', ' -s', ' -x',
                         ' --shadowed -r'):
                # -s, -x: the FIFO is not opened, its writers would wait
                # for their timeout; each FIFO run takes its writers' sleep
                if how == fifo_run and args not in ('', ' -m -r'):
                    continue
                c = how.format(f=f, p=fifo) % args
                ra, a, ea = run(['bash', '-c', c.replace('@', 'findmnt')])
                rb, b, eb = run(['bash', '-c', c.replace('@', binary + ' list')])
                if args == ' -J' and ra == rb == 0:
                    a, b = jload(a), jload(b)
                if args in (' -s', ' -x'):
                    # refused as fstab (README: mntsnap's exit status and words)
                    ok = (ra, rb) == FSTAB_ERROR_EXIT and a == b == b'' and \
                        b"can't read" in ea and eb.startswith(b"mntsnap: can't read ")
                else:
                    ok = (ra, a, norm_err(ea)) == (rb, b, norm_err(eb))
                t.check('tabfile pipe twice: %s' % c.replace('@', 'findmnt'), ok,
                        short('findmnt %d %r %r\n  mntsnap %d %r %r' % (ra, a, ea, rb, b, eb),
                              800))


def tabfiles_joined(t, binary, base):
    """-F more than once: findmnt reads every file into one table, in the
    format its first telling line has (the files after it keep that
    format: a line of the other one is a parse error, warned and skipped
    in fstab mode; in a mountinfo table mntsnap refuses it, as README
    keeps, naming the file and its line)."""
    mi, fs, fs2, pm, com = (os.path.join(base, 'join-' + n)
                            for n in ('mi', 'fs', 'fs2', 'pm', 'com'))
    with open(mi, 'wb') as fh:
        fh.write(b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n21 20 0:5 / /x rw - tmpfs t rw\n')
    with open(fs, 'wb') as fh:
        fh.write(b'/dev/a /a ext4 rw 0 0\n/dev/b /b xfs ro 0 0\n')
    with open(fs2, 'wb') as fh:
        fh.write(b'# second\nLABEL=x /c ext4 defaults 1 2\n')
    with open(com, 'wb') as fh:
        fh.write(b'# nothing but comments\n\n')
    with open('/proc/self/mounts', 'rb') as src, open(pm, 'wb') as dst:
        dst.write(src.read())
    for files in ((fs, fs2), (fs, fs), (fs2, fs, fs2), (fs, mi), (com, fs), (pm, pm),
                  (mi, mi)):
        fa = [a for f in files for a in ('-F', f)]
        for extra in ([], ['-s'], ['-l', '-o', 'TARGET', '-t', 'proc'], ['-r', '/a'],
                      ['-J'], ['-s', '-r', '-o', 'SOURCE,TARGET']):
            if '-s' in extra and mi in files and fs not in files:
                continue   # mountinfo lines read as fstab: warnings only, tested above
            fstab_same(t, 'joined', extra + fa, [binary, 'list'] + extra + fa,
                       json_out='-J' in extra)
    # -m reads each file as an mtab, its format guessed anew
    # (mnt_table_parse_mtab()): mixed formats are each read their own way,
    # a mountinfo file's mounts with ids and propagation, no FREQ/PASSNO
    mcols = 'TARGET,SOURCE,FSTYPE,ID,PARENT,MAJ:MIN,FSROOT,PROPAGATION,FREQ,PASSNO,OPTIONS'
    for files in ((fs, mi), (mi, fs), (mi, fs2, mi), (com, mi, fs), (pm, mi), (mi, pm)):
        fa = [a for f in files for a in ('-F', f)]
        for extra in ([], ['-r', '-o', mcols], ['-J', '-o', mcols], ['-P', '-t', 'tmpfs,xfs'],
                      ['-r', '/x'], ['-r', '-S', '8:1'], ['-r', '-U'], ['-r', '--shadowed']):
            fstab_same(t, 'joined -m', ['-m'] + extra + fa, [binary, 'list', '-m'] + extra + fa,
                       json_out='-J' in extra)
    # mountinfo text libmount reads past (comments, blank lines, CRLF,
    # blanks) in a mixed -m table: read as in a table of its own
    loose = os.path.join(base, 'join-loose')
    with open(loose, 'wb') as fh:
        fh.write(b'# saved\n\n  20 1 8:1 / / rw - ext4 /dev/sda1 rw\r\n'
                 b'21 20 0:5 /\t/x  rw - tmpfs t rw  \n')
    for files in ((fs, loose), (loose, fs)):
        fa = [a for f in files for a in ('-F', f)]
        for extra in (['-r', '-o', mcols], ['-J']):
            fstab_same(t, 'joined -m loose', ['-m'] + extra + fa,
                       [binary, 'list', '-m'] + extra + fa, json_out='-J' in extra)
    # kept (README): a line that is no mountinfo line refuses the file,
    # naming it and the line; findmnt warns and lists the rest
    bad = os.path.join(base, 'join-bad')
    with open(bad, 'wb') as fh:
        fh.write(b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n20x 1 0:5 / /y rw - tmpfs y rw\n')
    ra, _, ea = run(['findmnt', '-m', '-F', fs, '-F', bad])
    rb, b, eb = run([binary, 'list', '-m', '-F', fs, '-F', bad])
    t.check('joined -m bad mountinfo line (kept: refused naming its file and line)',
            ra == 0 and b'line 2' in ea and rb == 2 and b == b'' and
            (b'%s: line 2' % bad.encode()) in eb, '%r / %r' % (ea, eb))
    # kept (README): a swaps file is refused, as one -F is, among -m's
    # files too (findmnt lists its swap areas as rows)
    swaps = os.path.join(base, 'join-swaps')
    with open(swaps, 'wb') as fh:
        fh.write(b'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n'
                 b'/dev/sda2                               partition\t1000\t0\t-2\n')
    for files in ((mi, swaps), (fs, swaps), (swaps, mi)):
        fa = [a for f in files for a in ('-F', f)]
        ra, a, ea = run(['findmnt', '-m'] + fa)
        rb, b, eb = run([binary, 'list', '-m'] + fa)
        t.check('joined -m swaps file (kept: refused naming it): %s' % ' '.join(fa),
                ra == 0 and b'/dev/sda2' in a and rb == 2 and b == b'' and
                (b'%s: a swaps table' % swaps.encode()) in eb, '%r / %r' % (a, eb))
    # utab's options: merged into a mountinfo file's mounts when the table's
    # first entry is such a mount (libmount's is_mountinfo()), not otherwise
    utab = os.path.join(base, 'join-utab')
    with open(utab, 'wb') as fh:
        fh.write(b'SRC=/dev/sda1 TARGET=/ ROOT=/ OPTS=x-a\nSRC=t TARGET=/x ROOT=/ OPTS=x-b,noauto\n')
    env = dict(os.environ, LIBMOUNT_UTAB=utab)
    for files in ((fs, mi), (mi, fs), (mi, fs2, mi), (com, mi, fs)):
        fa = [a for f in files for a in ('-F', f)]
        for extra in (['-r'], ['-r', '-O', 'x-b'], ['-J', '-o', 'TARGET,OPTIONS,FS-OPTIONS']):
            fstab_same(t, 'joined -m utab', ['-m'] + extra + fa,
                       [binary, 'list', '-m'] + extra + fa, env=env, json_out='-J' in extra)
    # every file is an mtab of its own (mnt_table_parse_mtab() per file, of
    # one format or mixed): utab is merged after each file into the whole
    # table read so far, each line into the last mount it names that no
    # line got yet (an earlier file's lower mount of a stack too); a file
    # in the fstab format after a mountinfo one merges again
    stk = os.path.join(base, 'join-stack')
    with open(stk, 'wb') as fh:
        fh.write(b'20 1 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n'
                 b'21 20 0:5 / /x rw - tmpfs t rw\n22 21 0:6 / /x rw - tmpfs t rw\n')
    for files in ((mi, mi), (mi, stk), (stk, mi), (stk, fs), (stk, fs2, stk), (stk, mi, fs),
                  (fs, stk, mi), (stk, stk, stk)):
        fa = [a for f in files for a in ('-F', f)]
        for extra in (['-r'], ['-l', '-O', 'x-b'], ['-J', '-o', 'TARGET,ID,PARENT,OPTIONS'],
                      ['-x', '--verbose']):
            fstab_same(t, 'joined -m utab each file', ['-m'] + extra + fa,
                       [binary, 'list', '-m'] + extra + fa, env=env, json_out='-J' in extra)
    # -R with a filter: each match, then its submounts by ids across the
    # whole table (mnt_table_next_child_fs(): lowest id first, one of
    # equal ids) when its first entry is a mountinfo file's mount; a row
    # listed already is not listed again
    for files in ((stk, mi, fs), (mi, stk), (fs, stk, mi), (stk, stk), (mi, fs2, stk)):
        fa = [a for f in files for a in ('-F', f)]
        for extra in (['/'], ['-r', '-t', 'tmpfs'], ['-l', '/x'], ['-r', '-f', '-t', 'tmpfs'],
                      ['-r', '-d', 'backward', '-t', 'tmpfs,ext4'], ['-r', '-U', '-t', 'tmpfs'],
                      ['-J', '-o', 'TARGET,ID,PARENT', '--real']):
            fstab_same(t, 'joined -m -R', ['-m', '-R'] + extra + fa,
                       [binary, 'list', '-m', '-R'] + extra + fa, env=env,
                       json_out='-J' in extra)
    # mntsnap's own --format mountinfo: -m's mountinfo files given back in
    # turn (the kernel's text holds no utab options), as without -m
    for files in ((mi, stk), (stk, stk, mi)):
        fa = [a for f in files for a in ('-F', f)]
        want = b''.join(open(f, 'rb').read() for f in files)
        rc, out, err = run([binary, 'list', '-m', '--format', 'mountinfo'] + fa, env)
        t.check('joined -m --format mountinfo gives the files back: %s' % ' '.join(fa),
                rc == 0 and out == want, short(err.decode(errors='replace')))
    # TID: the rows of a mountinfo file under a numbered directory (a
    # task's table, saved) are that task's, in a table of several files too
    tidf = os.path.join(base, '4242', 'mountinfo')
    os.makedirs(os.path.dirname(tidf), exist_ok=True)
    shutil.copy(stk, tidf)
    for files in ((tidf, fs), (fs, tidf), (tidf, mi), (mi, tidf)):
        fa = [a for f in files for a in ('-F', f)]
        for extra in (['-r', '-o', 'TARGET,TID,ID'], ['-J', '-o', 'TARGET,TID']):
            fstab_same(t, 'joined -m TID', ['-m'] + extra + fa,
                       [binary, 'list', '-m'] + extra + fa, env=env, json_out='-J' in extra)
    # --shadowed beside a filter (without one findmnt lists every row):
    # mnt_table_over_fs() over the whole table, by ids (an fstab line's
    # are 0, so its own parent: kept), when its first entry is a
    # mountinfo file's mount; else nothing is shadowed
    for files in ((stk, fs), (fs, stk), (stk, stk), (stk, mi, fs), (mi, fs), (stk, fs2, mi)):
        fa = [a for f in files for a in ('-F', f)]
        for extra in (['-t', 'tmpfs'], ['-O', 'rw'], ['--real'], ['/'], ['/x'], ['-l', '-t', 'ext4'],
                      ['-J', '--pseudo'], ['-r', '-i', '-t', 'xfs'], ['-f', '-t', 'tmpfs'],
                      ['-r', '-S', '0:5'],
                      ['-r', '-o', 'TARGET,ID,PARENT', '-d', 'backward', '-t', 'tmpfs']):
            fstab_same(t, 'joined -m --shadowed', ['-m', '--shadowed'] + extra + fa,
                       [binary, 'list', '-m', '--shadowed'] + extra + fa, env=env,
                       json_out='-J' in extra)


def tabfile_loose(t, binary, base):
    """Mountinfo text libmount reads past: blank and '#' lines (after
    blanks too), blanks before and after a line, CRLF, tabs or several
    blanks between fields, the optional fields split by tabs, a source of
    "  " (empty) or after a tab.
    findmnt lists these without a word; so must mntsnap, and a line
    neither can read is still refused naming its line in the file."""
    l1, l2 = b'20 1 8:1 / / rw - ext4 /dev/sda1 rw', b'21 20 0:5 / /x rw - tmpfs t rw'
    texts = {
        'blank': l1 + b'\n\n' + l2 + b'\n',
        'comment': b'# saved\n' + l1 + b'\n' + l2 + b'\n',
        'indented-comment': b' \t# saved\n' + l1 + b'\n  \n\t\n' + l2 + b'\n',
        'indent': b'  ' + l1 + b'\n\t' + l2 + b'\n',
        'trail': l1 + b'  \n' + l2 + b'\t\n',
        'crlf': l1 + b'\r\n' + l2 + b'\r\n',
        'crlf-blanks': l1 + b' \r\n\r\n' + l2 + b'\r\n',
        'tabs': b'20\t1\t8:1 /\t/ rw - ext4\t/dev/sda1 rw\n' + l2 + b'\n',
        'spaces': b'20  1   8:1 / /  rw - ext4 /dev/sda1 rw\n' + l2 + b'\n',
        'opt-fields': (b'20 1 8:1 / / rw\tshared:1\tmaster:2 - ext4 /dev/sda1 rw\n'
                       b'21 20 0:5 / /x rw\tshared:3\t - tmpfs t rw\n'),
        'opt-fields-spaces': (b'20 1 8:1 / / rw shared:1  master:2 - ext4 /dev/sda1 rw\n'
                              b'21 20 0:5 / /x rw  - tmpfs t rw\n'),
        'empty-source': l1 + b'\n21 20 0:5 / /x rw - tmpfs  rw\n',
        'tab-source': l1 + b'\n21 20 0:5 / /x rw - tmpfs \tt rw\n',
        'escapes': l1 + b'\n21 20 0:5 / /a\\040b\\011c rw - tmpfs t\\134x rw\n',
        'no-final-newline': b'# c\n' + l1 + b'\n' + l2,
        # C isspace() that is no blank (\v, \f, \r): strtol() and sscanf()
        # skip it before the ids and major:minor, at the line's start too
        'isspace-start': b'\v' + l1 + b'\n\f\r \t' + l2 + b'\n',
        'isspace-numbers': b'20 \v1 \f8:\v1 / / rw - ext4 /dev/sda1 rw\n' + l2 + b'\n',
        # ... and the optional fields are the text up to " - ", as written
        'opt-fields-isspace': (b'20 1 8:1 / / rw shared:1\vmaster:2 - ext4 /dev/sda1 rw\n'
                               b'21 20 0:5 / /x rw \fshared:3\r - tmpfs t rw\f\n'
                               b'22 20 0:6 / /y rw shared:4\v-\vx\t - tmpfs u rw\v\n'),
        'opt-fields-lead': b'20 1 8:1 / / rw  shared:1 - ext4 /dev/sda1 rw\n' + l2 + b'\n',
        # major:minor is sscanf("%u:%u") from the field's start, whose %u
        # skip any white space, blanks too, while the field still ends at
        # its first blank: white space after the minor is passed over, a
        # field of \v alone takes the next field's numbers (the root as
        # well), "0: 5" its minor
        'isspace-after-dev': l1 + b'\n21 20 0:5\v\f /r /x rw shared:1 - tmpfs t rw\n',
        'isspace-dev-field': l1 + b'\n21 20 \v 0:5 /r /x rw shared:1 - tmpfs t rw\n',
        'isspace-dev-field-tab': l1 + b'\n21 20 \f\t\r 0:5 /r /x rw - tmpfs t rw\n',
        'dev-minor-next': l1 + b'\n21 20 0: 5 /x rw - tmpfs t rw\n',
        'dev-minor-next-isspace': l1 + b'\n21 20 \v 0:\t5 /x rw - tmpfs t rw\n',
    }
    # text libmount keeps as written: --format mountinfo gives the file back
    as_written = ('opt-fields-isspace', 'opt-fields-lead')
    for name, text in texts.items():
        path = os.path.join(base, 'loose-' + name)
        with open(path, 'wb') as fh:
            fh.write(text)
        cols = ','.join(COLUMNS)
        for extra in ([], ['-J', '-l', '-o', cols], ['-r', '-o', cols], ['-l'], ['-P', '/x']):
            fstab_same(t, 'loose ' + name, ['-F', path] + extra,
                       [binary, 'list', '-F', path] + extra, json_out='-J' in extra)
        fstab_same(t, 'loose ' + name + ' twice', ['-F', path, '-F', path, '-r'],
                   [binary, 'list', '-F', path, '-F', path, '-r'])
        if name in as_written:
            rc, out, err = run([binary, 'list', '-F', path, '--format', 'mountinfo'])
            t.check('loose %s: --format mountinfo gives the file back' % name,
                    rc == 0 and out == text, '%r %r' % (err, out))
    # what libmount cannot read: refused (README), the line named as in the file
    bad = os.path.join(base, 'loose-bad')
    with open(bad, 'wb') as fh:
        fh.write(b'# c\n\n' + l1 + b'\n21 20 0:5 / /x rw - tmpfs\n')
    ra, _, ea = run(['findmnt', '-F', bad])
    rb, b, eb = run([binary, 'list', '-F', bad])
    t.check('loose-bad: findmnt warns about line 4, mntsnap refuses naming line 4',
            ra == 0 and b'line 4' in ea and rb == 2 and b == b'' and b'list: line 4: ' in eb,
            '%r / %r' % (ea, eb))
    # strtol() wants a blank after the id: "21\v20" is a parse error to findmnt
    with open(bad, 'wb') as fh:
        fh.write(l1 + b'\n21\v20 0:5 / /x rw - tmpfs t rw\n')
    ra, _, ea = run(['findmnt', '-F', bad])
    rb, b, eb = run([binary, 'list', '-F', bad])
    t.check('loose-bad id\\v: findmnt warns about line 2, mntsnap refuses naming line 2',
            ra == 0 and b'line 2' in ea and rb == 2 and b == b'' and b'list: line 2: ' in eb,
            '%r / %r' % (ea, eb))
    mi, fs, com = (os.path.join(base, n) for n in ('j-mi', 'j-fs', 'j-com'))
    with open(mi, 'wb') as fh:
        fh.write(l1 + b'\n' + l2 + b'\n')
    with open(fs, 'wb') as fh:
        fh.write(b'# fstab\n/dev/a /a ext4 rw 0 0\n')
    with open(com, 'wb') as fh:
        fh.write(b'# nothing but comments\n\n')
    fstab_same(t, 'joined comments then mountinfo', ['-F', com, '-F', mi, '-r'],
               [binary, 'list', '-F', com, '-F', mi, '-r'])
    for files in ((mi, fs), (mi, com, fs)):
        fa = [a for f in files for a in ('-F', f)]
        ra, _, ea = run(['findmnt'] + fa)
        rb, b, eb = run([binary, 'list'] + fa)
        t.check('joined %s: findmnt warns, mntsnap refuses naming the file and its line' %
                ' '.join(os.path.basename(f) for f in files),
                ra == 0 and (fs + ': parse error at line 2').encode() in ea and rb == 2 and
                b == b'' and ('list: %s: line 2: ' % fs).encode() in eb, '%r / %r' % (ea, eb))
    # a line libmount cannot split, in the second of two files and in -m's
    with open(bad, 'wb') as fh:
        fh.write(l1 + b'\n21 20 0:65 \t /orphan rw - tmpfs orph rw\n')
    for opts in ([], ['-m']):
        ra, _, ea = run(['findmnt'] + opts + ['-F', mi, '-F', bad])
        rb, b, eb = run([binary, 'list'] + opts + ['-F', mi, '-F', bad])
        t.check('joined %s mi loose-bad (a lone tab field): findmnt warns, mntsnap refuses '
                'naming the file and its line' % ' '.join(opts),
                ra == 0 and (bad + ': parse error at line 2').encode() in ea and rb == 2 and
                b == b'' and ("list: %s: line 2: optional fields: missing ' - ' separator" %
                              bad).encode() in eb, '%r / %r' % (ea, eb))
    # the kernel's own text is read as it is: -F /proc/self/mountinfo too
    fstab_same(t, 'loose /proc/self/mountinfo', ['-F', '/proc/self/mountinfo', '-r', '-t', 'proc'],
               [binary, 'list', '-F', '/proc/self/mountinfo', '-r', '-t', 'proc'])


def kernel_tags_types(t, binary, base):
    """A mount table (-F mountinfo) read as libmount reads every table:
    FSTYPE is the kernel's whole "type.subtype" (fuse.rclone, tmpfs.y,
    ext4.x), which -x -k checks against libmount's pseudo and network
    lists as written; a LABEL=/UUID=/ID=/PARTLABEL=/PARTUUID= source is a
    tag (-x: resolved or "unreachable on boot required source", -e:
    evaluated, empty when no device has it, null in JSON), another NAME=
    is a path; an empty source with -C resolves to nothing (no type
    check)."""
    if not have_blkid(binary, os.devnull):
        print('SKIP kernel tags and types: built without libblkid')
        t.skipped += 1
        return
    d = os.path.join(base, 'kt')
    for sub in ('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'):
        os.makedirs(os.path.join(d, sub))
    j = lambda x: os.path.join(d, x).encode()
    root = b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n'
    texts = {
        'subtypes': root + b''.join(b'%d 20 0:%d / %s rw - %s %s rw\n' % (21 + i, 30 + i, j(m), ty, src)
                                     for i, (m, ty, src) in enumerate((
                                         ('a', b'ext4.x', b'/dev/null'),
                                         ('b', b'fuse.rclone', b'remote:'),
                                         ('c', b'tmpfs.y', b'y'),
                                         ('d', b'fuse', b'f'),
                                         ('e', b'fuse.sshfs', b'u@h:/'),
                                         ('f', b'fuse.lxcfs', b'lxcfs'),
                                         ('g', b'nfs4.z', b'h:/x')))),
        'tags': root + b''.join(b'%d 20 8:1 %s %s rw - %s %s rw\n' % (21 + i, r, j(m), ty, src)
                                for i, (m, r, ty, src) in enumerate((
                                    ('a', b'/', b'ext4', b'LABEL=fmeq-no-such'),
                                    ('b', b'/sub', b'ext4', b'UUID=1234'),
                                    ('c', b'/', b'tmpfs', b'ID=x'),
                                    ('d', b'/', b'ext4', b'PARTLABEL=p'),
                                    ('e', b'/', b'ext4', b'PARTUUID=q'),
                                    ('f', b'/', b'ext4', b'FOO=bar'),
                                    ('g', b'/', b'ext4', b'LABEL="qx"'),
                                    ('h', b'/', b'ext4', b'LABEL=')))),
        'empty-source': root + b'38 20 0:15 / ' + j('a') + b' rw - ext4  rw\n',
    }
    for name, text in texts.items():
        path = os.path.join(base, 'kt-' + name)
        with open(path, 'wb') as fh:
            fh.write(text)
        sets = [['-x', '-k'], ['-x', '-k', '--verbose'], ['-x', '-k', '-C'],
                ['-x', '-k', '-C', '--verbose'], ['-x', '-k', '-M', os.path.join(d, 'a')],
                ['-x', '-k', '-t', 'fuse.rclone'], ['-r', '-t', 'fuse.rclone,tmpfs.y'],
                ['-r', '--real'], ['-r', '--pseudo']]
        if name == 'tags':
            cols = ['-o', 'TARGET,SOURCE,SOURCES,LABEL,UUID,PARTUUID,PARTLABEL']
            sets += [['-e'], ['-e', '-l', '-o', 'TARGET,SOURCE,SOURCES'], ['-e', '-r'] + cols,
                     ['-r'] + cols, ['-e', '-c', '-r'], ['-e', '-v', '-r'], ['-D', '-e'],
                     ['-e', '-M', os.path.join(d, 'b')], ['-e', '-P', '-S', 'ID=x']]
        for args in sets:
            fstab_same(t, 'kernel ' + name, ['-F', path] + args,
                       [binary, 'list', '-F', path] + args)
        for args in (['-e', '-J', '-o', 'TARGET,SOURCE,SOURCES'], ['-e', '-J', '-l'] + cols,
                     ['-D', '-e', '-J']) if name == 'tags' else ():
            fstab_same(t, 'kernel ' + name, ['-F', path] + args,
                       [binary, 'list', '-F', path] + args, json_out=True)
    kernel_opt_quotes(t, binary, base, d)


# -x -k on a mount table: an option item whose double quote never closes.
# libmount's option parser (mnt_optstr_get_option()) runs such a quote to
# the end of the string and returns no item for it, so findmnt's verify
# does not see noauto, bind or pri there; an fstab drops the item when it
# splits the options, a mountinfo line keeps its option text as the
# kernel wrote it. Controls: a closed quote, noauto inside an open one.
KERNEL_OPT_QUOTES = {
    'noauto-open': (b'nonexistent', b'ext4', b'/dev/null', b'rw', b'rw,noauto=x"'),
    'noauto-open-mid': (b'nonexistent', b'ext4', b'/dev/null', b'rw', b'noauto=x",ro'),
    'noauto-open-vfs': (b'nonexistent', b'ext4', b'/dev/null', b'rw,noauto="q', b'rw'),
    'bind-open': (b'file', b'ext4', b'a', b'rw', b'rw,bind=x"'),
    'pri-open': (b'a', b'swap', b'/dev/null', b'rw', b'pri=x"'),
    'noauto-closed': (b'nonexistent', b'ext4', b'/dev/null', b'rw', b'noauto="x",ro'),
    'noauto-in-quote': (b'nonexistent', b'ext4', b'/dev/null', b'rw', b'a="b,noauto'),
}


def kernel_opt_quotes(t, binary, base, d):
    """kernel_tags_types' directory d: a target that is a regular file."""
    with open(os.path.join(d, 'file'), 'wb'):
        pass
    for name, (tgt, ty, src, vfs, fs) in KERNEL_OPT_QUOTES.items():
        if not src.startswith(b'/'):
            src = os.path.join(d, src.decode()).encode()
        path = os.path.join(base, 'kq-' + name)
        with open(path, 'wb') as fh:
            fh.write(b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n'
                     b'41 20 0:41 / %s %s - %s %s %s\n'
                     % (os.path.join(d, tgt.decode()).encode(), vfs, ty, src, fs))
        for args in (['-x', '-k'], ['-x', '-k', '--verbose']):
            fstab_same(t, 'kernel opt quote ' + name, ['-F', path] + args,
                       [binary, 'list', '-F', path] + args)


def kernel_tags_live(t, name, binary, base, backend):
    """In live_inner's namespace: a tmpfs whose source is "LABEL=..."
    (mount(2) takes any text; mount(8) would resolve the tag)."""
    import ctypes
    mp = os.path.join(base, 'tagsrc')
    os.makedirs(mp, exist_ok=True)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(b'LABEL=fmeq-no-such', mp.encode(), b'tmpfs', 0, None):
        t.check('%s tag source mount' % name, False, os.strerror(ctypes.get_errno()))
        return
    try:
        ms = [binary, 'list', '--backend', backend]
        for args in (['-M', mp], ['-e', '-M', mp], ['-e', '-r', '-o', 'TARGET,SOURCE,SOURCES', '-M', mp],
                     ['-D', '-e', '-M', mp], ['-x', '-k', '-M', mp], ['-x', '-k', '--verbose', '-M', mp]):
            fstab_same(t, name, args, ms + args)
        fstab_same(t, name, ['-e', '-J', '-M', mp, '-o', 'TARGET,SOURCE,SOURCES'],
                   ms + ['-e', '-J', '-M', mp, '-o', 'TARGET,SOURCE,SOURCES'], json_out=True)
    finally:
        subprocess.run(['umount', mp], capture_output=True)


# One mountinfo line after a plain root, as libmount reads it without a
# word. Accepted and shown as findmnt shows it: per-mount options in any
# order or without ro/rw (the record keeps their text), \ooo escapes
# above \377 (libmount keeps the low 8 bits), ids at or above 2^31
# (findmnt prints them as a signed int). Extra columns: compared too.
TABLINE_SAME = {
    'vfs-order': (b'21 20 0:3 / /a nosuid,rw - tmpfs a rw', []),
    'vfs-ro-late': (b'21 20 0:3 / /a noexec,ro,nodev - tmpfs a rw', []),
    'vfs-no-rw': (b'21 20 0:3 / /a nosuid - tmpfs a rw,size=1k', []),
    'vfs-unknown-first': (b'21 20 0:3 / /a newflag,rw - tmpfs a rw', []),
    # \ooo in the per-mount options: libmount unmangles that field too
    # (no kernel escapes it; the text is rendered back as written)
    'vfs-escape': (b'21 20 0:3 / /a rw,a\\101 - tmpfs a rw\n'
                   b'22 20 0:4 / /b rw,a\\040b - tmpfs b rw\n'
                   b'23 20 0:5 / /c rw,a\\401 - tmpfs c rw,a\\401\n'
                   b'24 20 0:6 / /d rw,a\\000b - tmpfs d rw', ['-O', 'aA', '-o', 'TARGET']),
    # an empty part around the type's dot: the field as written (no
    # kernel writes it: do_new_mount() refuses "fuse.", "tmpfs." is tmpfs)
    'fstype-empty-part': (b'21 20 0:3 / /a rw - tmpfs. a rw\n'
                          b'22 20 0:4 / /b rw - fuse. b rw\n'
                          b'23 20 0:5 / /c rw - .x c rw\n'
                          b'24 20 0:6 / /d rw - . d rw', ['--pseudo', '-r']),
    'fstype-empty-part-t': (b'21 20 0:3 / /a rw - tmpfs. a rw\n'
                            b'22 20 0:4 / /b rw - .x b rw', ['-t', 'tmpfs.,.x']),
    # more dots after an empty type ("..x", "..", ".a.b"): still the
    # field as written, every '.' raw, none of them an escape
    'fstype-dots': (b'21 20 0:3 / /a rw - ..x a rw\n'
                    b'22 20 0:4 / /b rw - .. b rw\n'
                    b'23 20 0:5 / /c rw - ... c rw\n'
                    b'24 20 0:6 / /d rw - .a.b d rw\n'
                    b'25 20 0:7 / /e rw - .a. e rw\n'
                    b'26 20 0:8 / /f rw - ..\\040x f rw\n'
                    b'27 20 0:9 / /g rw - x.. g rw', ['-t', '..x,...,.a.b,..', '-r']),
    # super options with a double quote that never closes: libmount's
    # option parser finds no option from there on, so their "rw" is no
    # rw that OPTIONS' merge removes
    'sb-quote-open': (b'21 20 0:3 / /a rw,relatime - tmpfs a rw=",b\n'
                      b'22 20 0:4 / /b rw,relatime - tmpfs b ro=",b\n'
                      b'23 20 0:5 / /c rw - tmpfs c a=",rw\n'
                      b'24 20 0:6 / /d rw,relatime - tmpfs d ro,a="\n'
                      b'25 20 0:7 / /e rw,relatime - tmpfs e rw,rw="\n'
                      b'26 20 0:8 / /f ro - tmpfs f x,rw="a,b\n'
                      b'27 20 0:9 / /g rw - tmpfs g "rw', ['-O', 'rw', '-r']),
    'sb-quote-open-O': (b'21 20 0:3 / /a rw,relatime - tmpfs a rw=",b\n'
                        b'22 20 0:4 / /b rw,relatime - tmpfs b x,y=",b', ['-O', 'b', '-r']),
    'sb-quote-open-vfs': (b'21 20 0:3 / /a rw,x="a - tmpfs a rw=",b\n'
                          b'22 20 0:4 / /b rw,relatime - tmpfs b rw=",b', ['-o', '+VFS-OPTIONS', '-r']),
    # OPTIONS: libmount's cut of a last option also drops an empty item
    # before it ("a,ro," + "rw" is "ro,a")
    'vfs-trailing-empty': (b'21 20 0:3 / /a a,ro, - tmpfs t rw\n'
                           b'22 20 0:4 / /b rox,ro, - tmpfs t rw\n'
                           b'23 20 0:5 / /c a,,ro - tmpfs t rw', []),
    # an empty source (mount(2) takes ""): -S '' and a positional '' find
    # it, as libmount's mnt_fs_match_source() compares "" with ""
    'source-empty': (b'21 20 0:3 / /a rw - tmpfs  rw\n'
                     b'22 20 0:4 / /b rw - tmpfs b rw', ['-S', '', '-r']),
    'source-empty-arg': (b'21 20 0:3 / /a rw - tmpfs  rw', ['', '-r']),
    'source-empty-i': (b'21 20 0:3 / /a rw - tmpfs  rw\n'
                       b'22 20 0:4 / /b rw - tmpfs b rw', ['-S', '', '-i', '-l']),
    'octal-high': (b'21 20 0:3 / /a\\401 rw - tmpfs s\\777z rw\n'
                   b'22 20 0:4 / /b\\5000 rw - tmpfs s\\477 rw', ['-M', '/a\x01']),
    'id-signed': (b'2147483648 20 0:3 / /a rw - tmpfs a rw\n'
                  b'4294967295 2147483648 0:4 / /a/b rw - tmpfs b rw', []),
    # siblings by signed id: -2147483648 and -1 before 21, in -U too
    'id-signed-siblings': (b'21 20 0:3 / /a rw - tmpfs a rw\n'
                           b'2147483648 20 0:4 / /b rw - tmpfs b rw\n'
                           b'4294967295 20 0:5 / /c rw - tmpfs c rw\n'
                           b'22 20 0:6 / /a rw - tmpfs d rw', ['-U']),
    # super options whose first word is not ro or rw: read as text, as
    # libmount reads them (FS-OPTIONS as written, merged into OPTIONS)
    'sb-rw-late': (b'21 20 0:3 / /a rw - tmpfs a size=1k,rw', ['-O', 'size=1k', '-r']),
    'sb-no-rw': (b'21 20 0:3 / /a ro - tmpfs a size=1k', ['-O', 'ro', '-r']),
    # the root: the smallest signed parent id (-2147483648), walked up
    'id-signed-root': (b'22 2147483648 0:3 / /b/a rw - tmpfs a rw\n'
                       b'2147483648 20 0:4 / /b rw - tmpfs b rw', []),
    # a known tag whose value is no 32-bit number (a later kernel's wider
    # peer group id, a hand-made word): kept as written, the tag still
    # says shared or slave, as libmount's strstr() finds it
    'opt-shared-wide': (b'21 20 0:3 / /a rw shared:4294967296 - tmpfs a rw', []),
    'opt-shared-dash': (b'21 20 0:3 / /a rw shared:1- - tmpfs a rw', []),
    'opt-shared-word': (b'21 20 0:3 / /a rw shared:x - tmpfs a rw', []),
    'opt-shared-empty': (b'21 20 0:3 / /a rw shared: master:1 - tmpfs a rw', []),
    'opt-master-wide': (b'21 20 0:3 / /a rw master:4294967296 - tmpfs a rw', []),
    'opt-master-empty': (b'21 20 0:3 / /a rw shared:2 master: unbindable - tmpfs a rw', []),
    'opt-pf-word': (b'21 20 0:3 / /a rw master:1 propagate_from:x - tmpfs a rw', []),
    'opt-colon': (b'21 20 0:3 / /a rw :5 - tmpfs a rw', []),
    # a field read by its own tag, the text before its ':': unbindable
    # with a value the kernel never gives it is unbindable all the same
    'opt-unbindable-value': (b'21 20 0:3 / /a rw shared:1 unbindable:1 - tmpfs a rw', []),
    'opt-unbindable-alone': (b'21 20 0:3 / /a rw unbindable:1 - tmpfs a rw', []),
    'opt-unbindable-empty': (b'21 20 0:3 / /a rw unbindable: - tmpfs a rw', []),
    'opt-unbindable-word': (b'21 20 0:3 / /a rw master:3 unbindable:x:y - tmpfs a rw', []),
    # propagate_from without its ':' and number says nothing
    'opt-pf-bare': (b'21 20 0:3 / /a rw master:1 propagate_from - tmpfs a rw\n'
                    b'22 20 0:4 / /b rw propagate_from - tmpfs b rw', []),
    # a bare "shared" or "master" is no tag: libmount looks for "shared:"
    # and "master:" (the kernel writes "unbindable" alone, no other)
    'opt-bare-shared': (b'21 20 0:3 / /a rw shared - tmpfs a rw', []),
    'opt-bare-master': (b'21 20 0:3 / /a rw master - tmpfs a rw\n'
                        b'22 20 0:4 / /b rw master unbindable - tmpfs b rw', []),
}
# Accepted, but findmnt's options stop at the first blank of the super
# options field and mntsnap keeps the rest of the line (README: a later
# kernel's field after them, or an old cifs's raw space): the other
# columns are compared, and --format mountinfo gives the line back.
TABLINE_TAIL = {
    'sb-tail': b'21 20 0:3 / /a rw - tmpfs a rw extra',
    'sb-tail-opts': b'21 20 0:3 / /a rw - tmpfs a rw,size=1k newfield:7',
    # an empty option after the flags, then the blank: once refused
    'sb-tail-empty-opt': b'21 20 0:3 / /a rw - tmpfs a rw, extra',
    'sb-tail-sync-empty-opt': b'21 20 0:3 / /a ro - tmpfs a ro,sync, x,y',
}
# Text no kernel writes, where a reading would misstate the table:
# refused naming the line (README), findmnt lists it without a word.
TABLINE_REFUSED = {
    'dev-three': b'21 20 0:3:4 / /a rw - tmpfs a rw',
    'dev-negative': b'21 20 -1:-1 / /a rw - tmpfs a rw',
    'id-plus': b'+21 20 0:3 / /a rw - tmpfs a rw',
    'id-negative': b'-5 20 0:3 / /a rw - tmpfs a rw',
    'escape-nul': b'21 20 0:3 / /a\\000b rw - tmpfs a rw',
    'escape-nul-400': b'21 20 0:3 / /a\\400b rw - tmpfs a rw',
    # past 32 bits: libmount's %u wraps them into another number
    'id-2-32': b'4294967296 20 0:3 / /a rw - tmpfs a rw',
    'major-past-32': b'21 20 99999999999:1 / /a rw - tmpfs a rw',
    'minor-past-32': b'21 20 0:4294967296 / /a rw - tmpfs a rw',
    # libmount's sscanf() stops after the minor and ignores the rest of
    # the field, and %u takes a sign
    'dev-junk': b'21 20 0:33x / /a rw - tmpfs a rw',
    'dev-isspace-junk': b'21 20 0:33\vx / /a rw - tmpfs a rw',
    'dev-plus': b'21 20 +0:3 / /a rw - tmpfs a rw',
    # libmount's optional fields are "-": with one blank, the separator
    'opt-dash': b'21 20 0:3 / /a rw\t- - tmpfs a rw',
    'opt-dash-more': b'21 20 0:3 / /a rw\t- x - tmpfs a rw',
    # the kernel never escapes '.' in the type: written back raw, it
    # would split off another subtype
    'fstype-escaped-dot': b'21 20 0:3 / /a rw - fuse\\056x a rw',
}
# A line libmount warns about ("parse error at line 2 -- ignored") and
# findmnt lists the rest: refused naming the line (README), never a crash
# (a device field ending at its colon once made the CLI's line cleaner
# read past the field's end: a heap overflow).
TABLINE_WARNED = {
    'dev-minor-missing': b'21 20 1: / /a rw - tmpfs a rw',
    'dev-colon-only': b'21 20 : / /a rw - tmpfs a rw',
    'dev-minor-missing-tab': b'21 20 1:\t/ /a rw - tmpfs a rw',
    # a field that is a tab between blanks: libmount's fields shift past
    # it, and no " - " follows the per-mount options
    'tab-field': b'21 20 0:65 \t /orphan rw - tmpfs orph rw',
    # super options that are blanks alone
    'sb-blanks': b'21 20 0:33 / /x rw - cgroup cgroup   ',
    'sb-blank-tab': b'21 20 0:33 / /x rw - cgroup cgroup \t',
    'dev-field-isspace-only': b'21 20 \v',
}
# What mntsnap says of them, in the library's words for the field
TABLINE_WARNED_WHY = {
    'tab-field': b"optional fields: missing ' - ' separator",
    'sb-blanks': b'super options: missing',
    'sb-blank-tab': b'super options: missing',
    'dev-field-isspace-only': b'major:minor: not MAJOR:MINOR',
}


# Kept (README): an optional-field tag no kernel writes that holds a known
# one inside it. libmount's mnt_fs_get_propagation() tests the whole field
# with strstr(), so findmnt calls "xshared:1" shared; mntsnap reads each
# field by its tag, the text before its ':' (without one, only
# "unbindable"), and an unknown tag says nothing of propagation
# (private); a known tag with another inside its value
# ("shared:1,master:2") says what its own tag says. Each: the line,
# findmnt's value, mntsnap's.
TABLINE_PROP_SUBSTR = {
    'prop-substr-shared': (b'21 20 0:3 / /a rw xshared:1 - tmpfs a rw', b'shared', b'private'),
    'prop-substr-master': (b'21 20 0:3 / /a rw nomaster:2 - tmpfs a rw', b'private,slave',
                           b'private'),
    'prop-substr-unbindable': (b'21 20 0:3 / /a rw unbindablex - tmpfs a rw',
                               b'private,unbindable', b'private'),
    'prop-substr-comma': (b'21 20 0:3 / /a rw shared:1,master:2 - tmpfs a rw',
                          b'shared,slave', b'shared'),
    'prop-substr-unbindable-eq': (b'21 20 0:3 / /a rw unbindable=1 - tmpfs a rw',
                                  b'private,unbindable', b'private'),
}


def tabfile_prop_substr(t, binary, base):
    root = b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n'
    other = ','.join(c for c in COLUMNS if c != 'PROPAGATION')
    for name, (line, fm, ms) in TABLINE_PROP_SUBSTR.items():
        path = os.path.join(base, 'line-' + name)
        with open(path, 'wb') as fh:
            fh.write(root + line + b'\n')
        for form in (['-r', '-o', other], ['-J', '-l', '-o', other]):
            fstab_same(t, 'line ' + name, ['-F', path] + form,
                       [binary, 'list', '-F', path] + form, json_out='-J' in form)
        ra, a, _ = run(['findmnt', '-F', path, '-rn', '-o', 'PROPAGATION', '/a'])
        rb, b, eb = run([binary, 'list', '-F', path, '-rn', '-o', 'PROPAGATION', '/a'])
        t.check('line %s: findmnt says %s, mntsnap %s (kept)' % (name, fm.decode(), ms.decode()),
                ra == 0 and a == fm + b'\n' and rb == 0 and b == ms + b'\n',
                '%r / %d %r %r' % (a, rb, b, eb))
        rc, out, err = run([binary, 'list', '-F', path, '--format', 'mountinfo'])
        t.check('line %s --format mountinfo gives the file back' % name,
                rc == 0 and out == root + line + b'\n', '%r %r' % (out, err))


def tabfile_lines(t, binary, base):
    """Single mountinfo lines libmount 2.38.1 reads silently: each is
    read as findmnt reads it, or refused as README keeps it."""
    root = b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n'
    cols = COLS + ',FS-OPTIONS,VFS-OPTIONS,OPT-FIELDS'
    for name, (line, extra) in TABLINE_SAME.items():
        path = os.path.join(base, 'line-' + name)
        with open(path, 'wb') as fh:
            fh.write(root + line + b'\n')
        for form in ([], ['-J'], ['-J', '-l', '-o', cols], ['-r', '-o', cols], ['-l'],
                     ['-P', '-o', cols], ['-o', 'TARGET,ID,PARENT']):
            fstab_same(t, 'line ' + name, ['-F', path] + form,
                       [binary, 'list', '-F', path] + form, json_out='-J' in form)
        if extra:
            fstab_same(t, 'line ' + name, ['-F', path] + extra,
                       [binary, 'list', '-F', path] + extra)
        if name.startswith(('vfs', 'opt', 'fstype', 'sb-quote')):
            rc, out, err = run([binary, 'list', '-F', path, '--format', 'mountinfo'])
            t.check('line %s --format mountinfo gives the file back' % name,
                    rc == 0 and out == root + line + b'\n', '%r %r' % (out, err))
    for name, line in TABLINE_TAIL.items():
        path = os.path.join(base, 'line-' + name)
        with open(path, 'wb') as fh:
            fh.write(root + line + b'\n')
        other = ','.join(c for c in COLUMNS if c not in ('OPTIONS', 'FS-OPTIONS'))
        for form in (['-J', '-l', '-o', other], ['-r', '-o', other], ['-o', other]):
            fstab_same(t, 'line ' + name, ['-F', path] + form,
                       [binary, 'list', '-F', path] + form, json_out='-J' in form)
        rc, out, err = run([binary, 'list', '-F', path, '--format', 'mountinfo'])
        t.check('line %s --format mountinfo gives the file back' % name,
                rc == 0 and out == root + line + b'\n', '%r %r' % (out, err))
        rc, out, err = run([binary, 'list', '-F', path, '-n', '-l', '-o', 'FS-OPTIONS', '/a'])
        t.check('line %s: FS-OPTIONS keeps the rest of the line' % name,
                rc == 0 and out == line.split(b' ', 9)[9] + b'\n', '%r %r' % (out, err))
    for name, line in TABLINE_REFUSED.items():
        path = os.path.join(base, 'line-' + name)
        with open(path, 'wb') as fh:
            fh.write(root + line + b'\n')
        ra, a, ea = run(['findmnt', '-F', path, '-r'])
        rb, b, eb = run([binary, 'list', '-F', path, '-r'])
        t.check('line %s: findmnt lists it silently, mntsnap refuses naming line 2 (kept)' % name,
                ra == 0 and a.count(b'\n') == 3 and not ea and rb == 2 and not b and
                b'list: line 2: ' in eb, '%r %r / %d %r' % (a, ea, rb, eb))
    for name, line in TABLINE_WARNED.items():
        path = os.path.join(base, 'line-' + name)
        with open(path, 'wb') as fh:
            fh.write(root + line + b'\n')
        ra, a, ea = run(['findmnt', '-F', path, '-r'])
        rb, b, eb = run([binary, 'list', '-F', path, '-r'])
        t.check('line %s: findmnt warns and lists the rest, mntsnap refuses naming line 2 '
                '(kept)' % name,
                ra == 0 and b'parse error at line 2' in ea and rb == 2 and not b and
                b'list: line 2: ' + TABLINE_WARNED_WHY.get(name, b'') in eb,
                '%r %r / %d %r' % (a, ea, rb, eb))


# A -F file's tail after its last newline: libmount 2.38.1
# (mnt_table_parse_next()) reads a last line without a newline up to its
# first NUL byte (getline() at EOF, then the C string) and passes over it
# without a word when that text is blank or a comment (a file padded with
# zeros, as a crash or a preallocated copy leaves it); a mount line cut
# there is read as the mount. A NUL byte in a line that ends in a newline
# is findmnt's "parse error": refused (README, kept).
TAB_NUL_TAILS = {
    'zeros': b'\0' * 8, 'blank-zero': b'\n\0', 'space-zero': b' \0', 'comment-zero': b'#x\0',
    'crlf-zero': b'\r\0\0', 'tab-zero-junk': b'\t\0junk', 'comment-zeros': b'# c\0\0\0',
}


def opt_merge_strings(items, most):
    """Every join of up to `most` items by commas (empty items too), but
    the empty string, which no mountinfo field can be."""
    out = []
    for k in range(1, most + 1):
        for combo in itertools.product(items, repeat=k):
            s = ','.join(combo)
            if s:
                out.append(s)
    return out


def tabfile_opt_merge(t, binary, base):
    """OPTIONS is libmount's merge of the per-mount (VFS) and super (FS)
    options (mnt_fs_strdup_options()): "vfs,fs" with the first two "rw"
    cut, then "ro" as needed, each cut at a time, where a cut takes the
    option with the comma after it, or at the end the comma before it.
    Empty items (a comma at a string's start or end, or doubled) change
    what is left ("rw," + "rw" is "rw", ",rw," + "rw" is "rw,,"); so do
    double quotes and an escaped comma (\\054, a comma once unescaped);
    an escape that decodes to NUL (\\000, \\400) ends its string.
    Pairs of such strings, one line each, in -r and -J; with -m, utab's
    options (with empty items too) after the merge."""
    sets = {
        'plain': (opt_merge_strings(['rw', 'ro', '', 'nosuid', 'rw=1'], 3),
                  opt_merge_strings(['rw', 'ro', '', 'size=1', 'ro=x'], 2)),
        'quotes': (opt_merge_strings(['rw', '', 'a="b,rw"', '"', 'ro'], 2),
                   opt_merge_strings(['rw', '', 'c="rw', 'ro'], 2)),
        'escaped': (opt_merge_strings(['rw', 'rw\\054', '\\054ro', ''], 2),
                    opt_merge_strings(['rw', 'rw\\054', '', 'ro\\054\\054'], 2)),
        # an escape that decodes to NUL ends the string there, in both
        'nul': (opt_merge_strings(['rw', 'a\\000b', '', 'ro'], 2),
                opt_merge_strings(['rw', 'x\\400', '', 'ro\\000,rw'], 2)),
    }
    cols = 'ID,TARGET,OPTIONS,VFS-OPTIONS,FS-OPTIONS'
    uopts = ['x-a', 'x-a,', ',x-b', 'noauto,,x-c', ',', 'foo,']
    for name, (vfs, fs) in sorted(sets.items()):
        path = os.path.join(base, 'optmerge-' + name)
        utab = path + '.utab'
        n = 0
        with open(path, 'w') as fh, open(utab, 'w') as uh:
            fh.write('20 1 0:30 / / rw - tmpfs none rw\n')
            for v in vfs:
                for f in fs:
                    n += 1
                    fh.write('%d 20 0:%d / /m%d %s - tmpfs s%d %s\n' % (
                        100 + n, 40 + n % 200, n, v, n, f))
                    if n % 5 == 0:
                        uh.write('SRC=s%d TARGET=/m%d ROOT=/ OPTS=%s\n' % (
                            n, n, uopts[n // 5 % len(uopts)]))
        env = dict(os.environ, LIBMOUNT_UTAB=utab)
        for extra in (['-r'], ['-J'], ['-m', '-r'], ['-m', '-J']):
            args = extra + ['-F', path, '-o', cols]
            ra, a, ea = run(['findmnt'] + args, env)
            rb, b, eb = run([binary, 'list'] + args, env)
            if '-J' in extra and ra == rb == 0:
                a, b = jload(a)['filesystems'], jload(b)['filesystems']
                la, lb = flat(a), flat(b)
            else:
                la, lb = a.split(b'\n'), b.split(b'\n')
            bad = [(x, y) for x, y in zip(la, lb) if x != y]
            t.check('optmerge %s (%d pairs): findmnt %s' % (name, n, ' '.join(args)),
                    (ra, ea) == (rb, eb) and len(la) == len(lb) and not bad,
                    short('exit %d/%d, %d of %d rows differ, first: %r' % (
                        ra, rb, len(bad), len(la), bad[:2]), 800))


def tabfile_nul_tail(t, binary, base):
    mi = (b'20 1 8:1 / / rw - ext4 /dev/sda1 rw\n'
          b'22 20 0:30 / /mnt/abc rw - tmpfs tmpA rw\n')
    fs = b'/dev/sda1 / ext4 rw 0 0\ntmpA /mnt/abc tmpfs rw 0 0\n'
    files = {}
    for fmt, text in (('mi', mi), ('fstab', fs)):
        for name, tail in sorted(TAB_NUL_TAILS.items()):
            files['%s-%s' % (fmt, name)] = text + tail
        # the last mount line itself ends in zeros (no newline): read up to them
        files['%s-line-zeros' % fmt] = text + (b'23 20 0:31 / /mnt/z rw - tmpfs z rw' if
                                              fmt == 'mi' else b'z /mnt/z tmpfs rw 0 0') + b'\0' * 4
        files['%s-line-zero' % fmt] = files['%s-line-zeros' % fmt][:-3]
    paths = {}
    for name, text in files.items():
        paths[name] = os.path.join(base, 'nul-' + name)
        with open(paths[name], 'wb') as fh:
            fh.write(text)
    for name, path in sorted(paths.items()):
        for form in (['-r', '-o', 'TARGET,SOURCE'], [], ['-J'], ['-l', '-o', 'TARGET,ID,PARENT']):
            fstab_same(t, 'nul tail ' + name, ['-F', path] + form,
                       [binary, 'list', '-F', path] + form, json_out='-J' in form)
    # each file at its own end: the first of two -F files, and -p -F
    for fmt in ('mi', 'fstab'):
        a, b = paths[fmt + '-zeros'], paths[fmt + '-comment-zero']
        for args in (['-F', a, '-F', b, '-r'], ['-p', '-F', a, '-w', '0']):
            fstab_same(t, 'nul tail', args, [binary, 'list'] + args)
    # a NUL line ended by a newline: findmnt's parse error, refused (kept)
    path = os.path.join(base, 'nul-zero-newline')
    with open(path, 'wb') as fh:
        fh.write(mi + b'\0\n')
    ra, a, ea = run(['findmnt', '-F', path, '-r'])
    rb, b, eb = run([binary, 'list', '-F', path, '-r'])
    t.check('nul tail: a NUL line with its newline: findmnt warns, mntsnap refuses (kept)',
            ra == 0 and b'parse error at line 3' in ea and rb == 2 and not b and
            b'line 3: NUL byte in the text' in eb, '%r %r / %d %r' % (a, ea, rb, eb))


def super_options(t, binary, data):
    """Super options findmnt lists as written though sb_flags and options
    cannot say them ("rw,": an empty last option after the flags;
    "size=1k,rw": the first word not ro or rw): the
    option columns in each form and -O on every word of them match
    findmnt (the file's other checks: every option set, render-back)."""
    path = os.path.join(data, 'mntsnap-super-options.txt')
    cols = 'TARGET,FS-OPTIONS,OPTIONS,VFS-OPTIONS'
    for form in (['-r'], ['-J'], ['-P'], ['-l', '-n'], []):
        fstab_same(t, 'super options', ['-F', path, '-o', cols] + form,
                   [binary, 'list', '-F', path, '-o', cols] + form, json_out='-J' in form)
    for o in ('rw', 'ro', 'sync', 'nosync', 'dirsync', 'mand', 'lazytime', 'nolazytime',
              'nomand,nosync', 'ro,sync', 'size=1k', 'relatime', 'nosuid,ro', 'nodev', 'rwx',
              'norwx', 'a', 'b,ro', 'a b'):
        args = ['-F', path, '-r', '-o', cols, '-O', o]
        fstab_same(t, 'super options', args, [binary, 'list'] + args)


def lookup_pair(t, name, binary, args, cwd=None, ms_cmd=('list',)):
    """findmnt ARGS and mntsnap list ARGS (in cwd; ms_cmd: mntsnap's
    command and its own options): stdout, exit status and whether stderr
    says anything, as same_output() allows."""
    fm = subprocess.run(['findmnt'] + args, capture_output=True, cwd=cwd)
    ms = subprocess.run([binary] + list(ms_cmd) + args, capture_output=True, cwd=cwd)
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
                 ['-f', '-R', lnk], ['-f', '-t', 'ext4', '-i', lnk],
                 # -c prints a source through the cache the lookup filled:
                 # realpath() of "FILE/" fails, so the spelling asked for
                 # is what every source of that path prints as
                 ['-c', '-S', img + '/'], ['-c', '-S', d + '//dev.img/'], ['-c', img + '/'],
                 ['-c', '-J', '-S', img + '/'], ['-c', '-S', d + '//dev.img'],
                 ['-c', '-S', lnk + '/'],
                 # -f's lookup resolves nothing when the text finds the mount
                 ['-c', '-f', '-S', img + '/'], ['-c', '-f', img + '/'], ['-c', '-f', '-R', img + '/'],
                 ['-c', '-f', '--tree', img + '/'],
                 # with a mount point asked for too, which decides first
                 ['-c', img + '/', '/u'], ['-c', '-S', img + '/', '-M', '/u'],
                 ['-c', '-S', img + '/', '-T', '/u'], ['-c', '-S', lnk + '/', '-M', '/t']):
        lookup_pair(t, 'source lookup -F', binary, ['-F', mi, '-r'] + args)
    # a source printed before the lookup resolved anything (the first line
    # matches by its text): its own spelling is cached first
    first = os.path.join(d, 'first.mi')
    with open(first, 'w') as fh:
        fh.write('1 0 7:0 / / rw - ext4 %s rw\n2 1 7:1 / /a rw - ext4 /dev/vda rw\n'
                 '3 1 7:2 / /b rw - ext4 %s//dev.img rw\n' % (img, d))
    for args in (['-c', '-S', img + '/'], ['-c', img + '/'], ['-c', '-d', 'backward', '-S', img + '/'],
                 ['-c', '-t', 'ext4', '-S', img + '/']):
        lookup_pair(t, 'source lookup -F', binary, ['-F', first, '-r'] + args)
    # an empty source asked for is a path's text to libmount, the same
    # path as "/" and "//" (not a pseudo filesystem's, compared exactly)
    empty = os.path.join(d, 'empty.mi')
    with open(empty, 'w') as fh:
        fh.write('1 0 7:0 / / rw - ext4 /dev/vda rw\n2 1 7:1 / /a rw - ext4 / rw\n'
                 '3 1 7:2 / /b rw - ext4  rw\n4 1 7:3 / /c rw - tmpfs / rw\n'
                 '5 1 7:4 / /d rw - tmpfs  rw\n6 1 7:5 / /e rw - ext4 // rw\n'
                 '7 1 7:6 / /f rw - nfs / rw\n')
    # (not -c: libmount's cache prints "" as a "/" resolved before, kept)
    for args in (['-S', ''], [''], ['-C', '-S', ''], ['-i', '-S', ''],
                 ['-d', 'backward', '-S', ''], ['-f', '-S', '']):
        lookup_pair(t, 'source lookup -F', binary, ['-F', empty, '-r'] + args)
    # text that starts as a tag but is none (no value, an unclosed quote)
    # is a path to libmount, here a relative one: resolved like any other
    for name in ('LABEL=', 'UUID="q'):
        os.symlink('dev.img', os.path.join(d, name))
    for args in (['-S', 'lnk'], ['-f', 'lnk'], ['lnk'], ['-S', './sub/rel'], ['-f', 'x'],
                 ['-S', 'LABEL='], ['LABEL='], ['-S', 'UUID="q'], ['-c', '-S', 'LABEL='],
                 ['-C', '-S', 'LABEL='], ['-f', 'LABEL='], ['-f', '-S', 'UUID="q']):
        lookup_pair(t, 'source lookup -F', binary, ['-F', mi, '-r'] + args, cwd=d)


def raw_mount(src, mp, fstype):
    """mount(2) with SRC as written (mount(8) would evaluate a tag source)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(src.encode(), mp.encode(), fstype.encode(), 0, None):
        e = ctypes.get_errno()
        raise OSError(e, 'mount %s %s: %s' % (src, mp, os.strerror(e)))


TAG_MOUNT_PY = ('import ctypes, sys; sys.exit(ctypes.CDLL(None).mount(*(a.encode() for a in '
                'sys.argv[1:4]), 0, None) != 0)')


def tag_text_cases(t, binary, base, dev, label):
    """Tag sources as libmount's mnt_fs_match_source() takes them: a
    mount whose source is the tag's very text (a tmpfs mounted with the
    source "LABEL=..." or "UUID=...") matches by that text; then, the tag
    evaluated, a mount of its device - never a pseudo or network
    filesystem's (a tmpfs or proc whose source text is the device path).
    On the live table (both backends), a -F copy, a saved table (show),
    an fstab (-s) and -p; -f (mnt_table_find_tag(): the text first, then
    the device's first mount by its text, any filesystem)."""
    uuid = subprocess.run(['blkid', '-p', '-o', 'value', '-s', 'UUID', dev],
                          capture_output=True, text=True).stdout.strip()
    d = os.path.join(base, 'tagtext')
    mps = {n: os.path.join(d, n) for n in ('lab', 'uuid', 'devtmp', 'devproc', 'ext')}
    lt, ut = 'LABEL=' + label, 'UUID=' + uuid
    mounted = []
    try:
        for mp in mps.values():
            os.makedirs(mp)
        for src, n, fstype in ((lt, 'lab', 'tmpfs'), (ut, 'uuid', 'tmpfs'),
                               (dev, 'devtmp', 'tmpfs'), (dev, 'devproc', 'proc'),
                               (dev, 'ext', 'ext4')):
            raw_mount(src, mps[n], fstype)
            mounted.insert(0, mps[n])
        sets = [['-S', lt], [lt], ['-S', ut], [ut], ['-S', 'LABEL="%s"' % label],
                ['-S', lt, '-t', 'tmpfs'], ['-S', lt, '--pseudo'], ['-S', lt, '--real'],
                ['-i', '-S', lt], ['-C', '-S', lt], [lt, mps['lab']], [lt, mps['ext']],
                [lt, mps['devtmp']], ['-S', ut, '-M', mps['uuid']], ['-f', lt],
                ['-f', '-d', 'backward', lt], ['-f', ut], ['-f', '--real', '-S', lt],
                ['-S', dev], ['-S', lt, '-o', 'TARGET,FSTYPE,LABEL']]
        forms = (['-r'], ['-J'], ['-l'], ['-P'], [])
        for backend in ('statmount', 'mountinfo'):
            for args in sets:
                for form in forms if backend == 'statmount' else (['-r'],):
                    lookup_pair(t, 'tag text live(%s)' % backend, binary, form + args,
                                ms_cmd=('list', '--backend', backend))
        mi = os.path.join(base, 'tagtext.mountinfo')
        shutil.copyfile('/proc/self/mountinfo', mi)
        snap = os.path.join(base, 'tagtext.snap')
        r = subprocess.run([binary, 'save', '--no-sync', snap], capture_output=True)
        t.check('tag text save', r.returncode == 0, r.stderr.decode(errors='replace'))
        for args in sets:
            for form in (['-r'], ['-J']):
                lookup_pair(t, 'tag text -F', binary, ['-F', mi] + form + args)
                # (show refuses -C: its tags are always looked up, README)
                if '-C' not in args:
                    lookup_pair(t, 'tag text show', binary, form + args, ms_cmd=('show', snap))
        # the same sources in an fstab: its lookups are the same function
        fst = os.path.join(base, 'tagtext.fstab')
        with open(fst, 'w') as fh:
            for src, n, fstype in ((lt, 'lab', 'tmpfs'), (ut, 'uuid', 'tmpfs'),
                                   (dev, 'devtmp', 'tmpfs'), (dev, 'devproc', 'proc'),
                                   (dev, 'ext', 'ext4'), (ut, 'ext2', 'ext4')):
                fh.write('%s %s %s defaults 0 0\n' % (src, os.path.join(d, n), fstype))
        for args in sets:
            lookup_pair(t, 'tag text fstab', binary, ['-s', '-F', fst, '-r'] + args)
    finally:
        for mp in mounted:
            subprocess.run(['umount', mp], capture_output=True)
    # -p: the same test on each change, the tag evaluated by the filter
    steps = ['python3 -c "%s" %s %s tmpfs' % (TAG_MOUNT_PY, lt, mps['lab']),
             'python3 -c "%s" %s %s tmpfs' % (TAG_MOUNT_PY, dev, mps['devtmp']),
             'python3 -c "%s" %s %s proc' % (TAG_MOUNT_PY, dev, mps['devproc']),
             'python3 -c "%s" %s %s tmpfs' % (TAG_MOUNT_PY, ut, mps['uuid']),
             'mount -t ext4 %s %s' % (dev, mps['ext'])] + [
             'umount %s' % mps[n] for n in ('lab', 'devtmp', 'devproc', 'uuid', 'ext')]
    psets = [['-p', '-r', '-S', lt], ['-p', lt], ['-p', '-r', '-S', ut],
             ['-p', '-r', '-C', '-S', lt], ['-p', '-r', '-S', dev], ['-p', '-r', '-i', '-S', lt], ['-p', '-P', '-S', ut],
             # -e: a tag source shows as its device under -p too
             ['-p', '-r', '-e', '-o', 'ACTION,SOURCE,TARGET'], ['-p', '-P', '-e', '-S', lt]]
    poll_history(t, 'tag text poll', binary, psets, steps, None, base)


def path_poll_cases(t, binary, base, dev, blk):
    """-p with a SOURCE that is a path, as mnt_fs_match_source() takes it
    through findmnt's cache: the text ("//" and a trailing '/' aside, but
    a pseudo filesystem's exact), then the path asked for resolved against
    each source as written and as resolved - a symlink, a relative path
    (the pollers' working directory), "/dev//loopN", "/dev/../dev/loopN" -
    never for a pseudo filesystem; -C: the text only; MAJ:MIN a device
    number. The cache keeps each path's first answer for the whole poll: a
    symlink retargeted later, or one made after the filter's path was first
    resolved to itself, changes nothing; a record -t, -O or MAJ:MIN turns
    away resolves nothing. -c's SOURCE and (BLK: libblkid) the tag columns
    resolve a source through that same cache."""
    d = os.path.join(base, 'pp')
    name = os.path.basename(dev)
    lnk, late = os.path.join(base, 'pp-lnk'), os.path.join(base, 'pp-late')
    mps = {n: os.path.join(d, n) for n in 'abcdefghi'}
    for mp in mps.values():
        os.makedirs(mp)
    os.symlink(dev, lnk)
    st = os.stat(dev)
    majmin = '%d:%d' % (os.major(st.st_rdev), os.minor(st.st_rdev))
    raw = lambda src, n, fstype: 'python3 -c "%s" %s %s %s' % (TAG_MOUNT_PY, src, mps[n], fstype)
    # a source written as a symlink, "//", "..", relative: mount(2) keeps its text
    steps = [raw(dev, 'a', 'ext4'), raw('/dev//' + name, 'b', 'ext4'), raw(lnk, 'c', 'ext4'),
             raw('/dev/../dev/' + name, 'd', 'ext4'), raw('pp-lnk', 'e', 'ext4'),
             raw(dev, 'f', 'tmpfs'), raw('/dev//' + name, 'g', 'tmpfs'), raw(lnk, 'h', 'proc'),
             # what the cache answered first stays: pp-lnk to /dev/null, pp-late made
             # (every poller has read the mounts before: a late one saw no change)
             'sleep 1.5; ln -sfn /dev/null %s; ln -s %s %s' % (lnk, dev, late),
             raw(dev, 'i', 'ext4'), 'mount -o remount,bind,ro %s' % mps['i']] + [
             'umount %s' % mps[n] for n in 'abcdefghi']
    sets = [['-S', dev], ['-S', '/dev//' + name], ['-S', '/dev/../dev/' + name],
            ['-S', dev + '/'], ['-S', lnk], ['-S', 'pp-lnk'], ['-S', os.path.relpath(dev, base)],
            [dev], [lnk], ['-S', majmin], [majmin], ['-S', late],
            # -O before -S: an rw mount never resolved pp-late, the ro one made later did
            ['-O', 'ro', '-S', late],
            ['-C', '-S', dev], ['-C', '-S', '/dev//' + name], ['-C', '-S', lnk], ['-C', lnk],
            ['-i', '-S', lnk], ['--real', '-S', '/dev//' + name],
            ['--pseudo', '-S', '/dev//' + name], ['-t', 'ext4', '-S', lnk],
            ['-c', '-t', 'ext4'], ['-c', '-S', lnk],
            # "DEV/" resolved (to itself) at another mount, not when -M decides first
            ['-c', '-S', dev + '/', '-M', mps['a']]]
    if blk:
        sets += [['-S', dev, '-o', 'ACTION,TARGET,SOURCE,LABEL'],
                 ['-S', dev + '/', '-o', 'ACTION,TARGET,SOURCE,LABEL,UUID'],
                 ['-t', 'ext4', '-o', 'ACTION,TARGET,UUID,PARTUUID']]
    psets = [['-p', '-r'] + s for s in sets] + [
        ['-p', '-S', lnk], ['-p', '-l', '-S', '/dev//' + name], ['-p', '-P', dev]]
    try:
        # wait_open: a loaded machine starts python3 (each mount step) slowly
        poll_history(t, 'path poll', binary, psets, steps, None, base, wait_open=True,
                     segv_ok=True)
    finally:
        for mp in mps.values():
            subprocess.run(['umount', mp], capture_output=True)


def private_dev(base, dev, links):
    """A tmpfs over /dev (this part's own namespace) with null, zero and
    DEV's node, and udev's links LINKS ({'disk/by-id/NAME': target}), as
    udev would make them (this machine may have none): returns the bound
    original /dev's mount point, for umount after."""
    keep = os.path.join(base, 'devsave')
    os.makedirs(keep, exist_ok=True)
    subprocess.run(['mount', '--bind', '/dev', keep], check=True)
    subprocess.run(['mount', '-t', 'tmpfs', 'fmeqdev', '/dev'], check=True)
    for n in ('null', 'zero', dev[5:]):
        subprocess.run(['cp', '-a', os.path.join(keep, n), '/dev/'], check=True)
    for link, target in links.items():
        os.makedirs(os.path.dirname(os.path.join('/dev', link)), exist_ok=True)
        os.symlink(target, os.path.join('/dev', link))
    return keep


def id_tag_cases(t, binary, base, dev, label):
    """libmount's fifth tag, ID=NAME (mnt_valid_tagname(); libblkid
    evaluates it as udev's /dev/disk/by-id/NAME link), wherever findmnt
    takes LABEL=: -S, the SOURCE argument, -f, -e, a mount or fstab
    entry whose source is ID= text (its LABEL/UUID: the device's), show,
    stat; unlike LABEL= an ID= argument sets no FL_NOSWAPMATCH, so one
    naming nothing is then tried as a mount point (a relative one)."""
    d = os.path.join(base, 'idtag')
    idt, gone = 'ID=fmeq-disk-%d' % os.getpid(), 'ID=fmeq-none'
    mp = {n: os.path.join(d, n) for n in ('ext', 'idtxt', gone)}
    os.environ['BLKID_FILE'] = os.path.join(base, 'idtag.blkid.tab')
    mounted, keep = [], None
    try:
        for p in mp.values():
            os.makedirs(p)
        subprocess.run(['mount', '-t', 'ext4', dev, mp['ext']], check=True)
        mounted.insert(0, mp['ext'])
        raw_mount(idt, mp['idtxt'], 'tmpfs')
        mounted.insert(0, mp['idtxt'])
        subprocess.run(['mount', '-t', 'tmpfs', 'fmeq-idswap', mp[gone]], check=True)
        mounted.insert(0, mp[gone])
        keep = private_dev(base, dev, {'disk/by-id/' + idt[3:]: '../../' + dev[5:]})
        sets = [['-S', idt], [idt], ['-f', idt], ['-f', '-S', idt], ['-f', '-d', 'backward', idt],
                ['-e', '-S', idt, '-o', 'TARGET,SOURCE'], ['-J', '-S', idt],
                ['-S', idt, '-o', 'TARGET,SOURCE,LABEL,UUID'], ['-C', '-S', idt], ['-C', idt],
                ['-S', idt, '-t', 'ext4'], [idt, mp['ext']], [idt, mp['idtxt']],
                ['-e', '-M', mp['idtxt'], '-o', 'TARGET,SOURCE,SOURCES'],
                ['-M', mp['idtxt'], '-o', 'TARGET,LABEL,UUID'], ['-S', gone], [gone],
                ['-S', '/dev/disk/by-id/' + idt[3:]]]
        for backend in ('statmount', 'mountinfo'):
            for args in sets:
                lookup_pair(t, 'ID= tag live(%s)' % backend, binary, ['-r'] + args,
                            ms_cmd=('list', '--backend', backend))
        for args in ([gone], ['-f', gone], ['-f', gone, '-o', 'TARGET']):
            lookup_pair(t, 'ID= tag as a mount point', binary, ['-r'] + args, cwd=d)
        mi = os.path.join(base, 'idtag.mountinfo')
        shutil.copyfile('/proc/self/mountinfo', mi)
        snap = os.path.join(base, 'idtag.snap')
        r = subprocess.run([binary, 'save', '--no-sync', snap], capture_output=True)
        t.check('ID= tag save', r.returncode == 0, r.stderr.decode(errors='replace'))
        for args in sets[:10]:
            lookup_pair(t, 'ID= tag -F', binary, ['-F', mi, '-r'] + args)
            if '-C' not in args and '-e' not in args:
                lookup_pair(t, 'ID= tag show', binary, ['-r'] + args, ms_cmd=('show', snap))
        for args in (['-S', idt, '-o', 'TARGET,SOURCE'], ['-e', '-S', idt, '-o', 'TARGET,SOURCE']):
            fstab_same(t, 'ID= tag stat', args + ['-T', mp['ext']],
                       [binary, 'stat'] + args + [mp['ext']])
        fst = os.path.join(base, 'idtag.fstab')
        with open(fst, 'w') as fh:
            fh.write('%s %s ext4 defaults 0 0\n%s %s tmpfs defaults 0 0\n' % (
                idt, mp['ext'], gone, mp['idtxt']))
        for args in ([], ['-e'], ['-S', idt], [idt], ['-f', idt], ['-e', '-S', idt],
                     ['-o', 'TARGET,SOURCE,LABEL,UUID,SOURCES'], ['-x'], ['-x', '--verbose'],
                     ['-x', '-e', '--verbose']):
            form = [] if '-x' in args else ['-r']
            fstab_same(t, 'ID= tag fstab', ['-s', '-F', fst] + form + args,
                       [binary, 'list', '-s', '-F', fst] + form + args)
    finally:
        if keep:
            subprocess.run(['umount', '/dev'], capture_output=True)
            subprocess.run(['umount', keep], capture_output=True)
        for m in mounted:
            subprocess.run(['umount', m], capture_output=True)
        del os.environ['BLKID_FILE']


def source_lookups_inner(binary, base):
    """In a private mount namespace already: an ext4 with a label on a loop
    device mounted twice (the second covered by a tmpfs), named by a symlink,
    a relative and a ../ path; -C (no cache: nothing resolved, no tag
    probed); -f with --real, --pseudo, --shadowed, -i, -D, -M (ignored by
    its lookup), -t/-O (then a filter again). Prints the tally as JSON."""
    t = Tally()
    label = 'srclook-%d' % os.getpid()
    dev = loop_image(base, 'srclook.img', 'source lookups')
    if dev is None:
        return 0
    m1, m2, lnk = (os.path.join(base, n) for n in ('sl1', 'sl2', 'sl-lnk'))
    blk = blkid_or_skip(t, binary, os.devnull, 'source lookups by tag')
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
                 ['-C', '-e', '-M', m1],
                 # -c: the source printed as the cache holds it, which is the
                 # argument's spelling when that does not resolve ("DEV/")
                 ['-c', '-S', dev + '/'], ['-c', '-S', '/dev//' + dev[5:] + '/'],
                 ['-c', '/dev//' + dev[5:]], ['-c', '-S', '/dev//' + dev[5:], '-o', 'TARGET,SOURCE,FSROOT'],
                 ['-c', '-J', '-S', dev + '/'], ['-c', dev + '/'],
                 # a target decides first: findmnt never resolves "DEV/" then
                 ['-c', dev + '/', m1], ['-c', '-S', dev + '/', '-M', m1],
                 ['-c', '-S', dev + '/', '-T', m1], ['-c', '-S', dev + '//', '-T', m1],
                 ['-c', '-S', dev + '/', '-T', m1 + '/'], ['-c', '-t', 'ext4', '-S', dev + '/'],
                 ['-c', '-O', 'rw', '-S', dev + '/'], ['-c', '-i', '-S', dev + '/', '-M', m1],
                 ['-c', '-R', '-S', dev + '/', '-M', m1]]
        if blk:
            cases += [['-C', '-M', m1, '-o', 'TARGET,LABEL,UUID,PARTUUID'],
                      ['-C', '-S', 'LABEL=' + label], ['-C', 'LABEL=' + label],
                      ['-f', '--pseudo', '-S', 'LABEL=' + label], ['-S', lnk, '-o', 'TARGET,LABEL'],
                      ['-f', 'LABEL=' + label, '/nowhere'], ['-f', 'LABEL=' + label, dev]]
            # "DEV/" asked for fails realpath(): resolved at another mount,
            # the cache then holds it for DEV too, and the tag columns probe
            # that spelling (nothing); not resolved when a target decides
            # first, nor when it resolves ("/dev//N")
            tc = 'TARGET,SOURCE,LABEL,UUID,PARTUUID,PARTLABEL'
            cases += [['-S', dev + '/', '-o', tc], ['-S', dev + '//', '-o', tc],
                      [dev + '/', '-o', tc], ['-S', dev + '/', '-T', m1, '-o', tc],
                      [dev + '/', m1, '-o', tc], ['-S', dev + '/', '-M', m1, '-o', tc],
                      ['-S', '/dev//' + dev[5:], '-o', tc], ['-S', dev + '/.', '-o', tc],
                      ['-S', dev + '/', '-o', 'TARGET,SOURCES,LABEL'],
                      ['-e', '-S', dev + '/', '-o', tc], ['-v', '-S', dev + '/', '-o', tc],
                      ['-c', '-S', dev + '/', '-o', tc], ['-c', '-S', dev + '/', '-T', m1, '-o', tc],
                      ['-t', 'ext4', '-S', dev + '/', '-o', tc], ['-D', '-S', dev + '/'],
                      ['-f', '-S', dev + '/', '-o', tc]]
        for args in cases:
            lookup_pair(t, 'source lookup', binary, ['-r'] + args)
        if blk:
            # an fstab: an entry printed resolves its source for the tag
            # columns, and "DEV/" (first) stays in the cache for DEV's too
            fst = os.path.join(base, 'sl.fstab')
            with open(fst, 'w') as fh:
                fh.write('%s/ %s ext4 defaults 0 0\n%s %s ext4 ro 0 0\n' % (dev, m1, dev, m2))
            for args in (['-S', dev + '/'], ['-S', dev], ['-c', '-S', dev + '/'], [],
                         ['-d', 'backward'], ['-c'], ['-S', dev, '-d', 'backward'],
                         ['-C', '-S', dev]):
                lookup_pair(t, 'source lookup fstab', binary,
                            ['-r', '-s', '-F', fst, '-o', 'TARGET,SOURCE,LABEL,UUID'] + args)
            # findmnt prints each entry as it finds it: a later entry's
            # lookup (its spelling of DEV that cannot resolve) comes after
            # the columns of the ones before resolved their own sources
            lnkd = os.path.join(base, 'sl-devlnk')
            os.symlink(dev, lnkd)
            tabs = ('%s// %s/ ext4 defaults 0 0\n%s/ %s ext4 defaults 0 0\n' % (dev, m1, lnkd, m2),
                    '%s %s ext4 defaults 0 1\n/dev/null %s ext4 defaults 0 2\n' % (dev, m1, m2),
                    '%s %s tmpfs defaults 0 1\n%s/ %s ext4 defaults 0 2\n' % (dev, m1, dev, m2),
                    'tmpx %s tmpfs defaults 0 1\n%s/ mnt/a ext4 defaults 0 0\n'
                    '%s mnt/a auto defaults 0 1\n%s %s tmpfs defaults 0 1\n'
                    % (m1, dev, lnkd, dev, m2))
            dd = '/dev//' + dev[len('/dev/'):]
            for k, tab in enumerate(tabs):
                with open(fst, 'w') as fh:
                    fh.write(tab)
                for args in (['-S', dev], ['-c', '-S', dev], ['-S', dev + '/'], ['-S', dd],
                             ['-c', '-S', dd], ['-i', '-S', 'nothing'], ['-c', '-i', '-S', 'x']):
                    lookup_pair(t, 'source lookup fstab %d' % k, binary,
                                ['-P', '-s', '-F', fst, '-o', 'SOURCE,TARGET,LABEL'] + args)
            os.unlink(lnkd)
            # -f SOURCE MOUNTPOINT: findmnt looks up SOURCE alone, as a
            # source, then as a mount point; MOUNTPOINT is not used
            dd = '/dev//' + dev[len('/dev/'):]
            pairs = (('none %s auto defaults 0 0\n%s / ext4 defaults 0 0\n' % (m2, dd),
                      ['-f', '//', lnk + '/']),
                     ('%s %s tmpfs defaults 0 0\ntmpx %s ext4 defaults 0 2\n' % (dd, base, base),
                      ['-f', base, m1 + '/lost+found']),
                     ('%s %s ext4 defaults 0 0\n' % (dev, m1), ['-f', m1, '/nowhere']),
                     ('%s %s ext4 defaults 0 0\n' % (dev, m1), ['-f', dev + '/', '/nowhere']),
                     ('%s %s ext4 defaults 0 0\n' % (dev, m1), [m1, '/nowhere']),
                     # a tag whose device no entry has: its text as a
                     # mount point (not the device's path)
                     ('none LABEL=%s auto defaults 0 0\nnone %s auto defaults 0 0\n'
                      % (label, dev), ['-f', 'LABEL=' + label, '/nowhere']),
                     ('none %s auto defaults 0 0\nnone LABEL=%s auto defaults 0 0\n'
                      % (dev, label), ['-f', '-o', 'TARGET,LABEL', 'LABEL=' + label, dev]),
                     ('LABEL=%s %s ext4 defaults 0 0\n' % (label, m1),
                      ['-f', 'LABEL=' + label, '/nowhere']))
            for tab, args in pairs:
                with open(fst, 'w') as fh:
                    fh.write(tab)
                lookup_pair(t, 'source lookup fstab pair', binary, ['-s', '-F', fst] + args)
            # -d backward: a match printed before "DEV/" was resolved
            # puts its own spelling in the cache first
            for args in (['-d', 'backward', '-S', dev + '/', '-o', tc],
                         ['-d', 'backward', '-S', dev + '/', '-o', 'TARGET,UUID'],
                         ['-d', 'backward', '-c', '-S', dev + '/', '-o', 'TARGET,SOURCE']):
                lookup_pair(t, 'source lookup', binary, ['-r'] + args)
        # stat PATH is findmnt -T PATH, -S its filter
        for args in (['-c', '-S', dev + '/', '-T', m1], ['-S', dev + '/', '-T', m1, '-o', 'TARGET,LABEL']):
            if blk or 'TARGET,LABEL' not in args:
                lookup_pair(t, 'source lookup stat', binary, ['-r'] + args, ms_cmd=('stat',))
        # JSON (not with -r, which it excludes)
        for args in [['-c', '-J', dev + '/', m1], ['-c', '-J', '-S', dev + '/']] + (
                [['-J', '-S', dev + '/', '-o', 'TARGET,SOURCE,LABEL,UUID'],
                 ['-J', '-S', dev + '/', '-T', m1, '-o', 'TARGET,SOURCE,LABEL,UUID']] if blk else []):
            lookup_pair(t, 'source lookup', binary, args)
        lookup_pair(t, 'source lookup', binary, ['-r', '-S', './' + dev[5:]], cwd='/dev')
        lookup_pair(t, 'source lookup', binary, ['-r', '-f', dev[5:]], cwd='/dev')
        if blk:
            tag_text_cases(t, binary, base, dev, label)
            id_tag_cases(t, binary, base, dev, label)
        path_poll_cases(t, binary, base, dev, blk)
        show_source_cases(t, binary, base, dev, lnk, label if blk else None, m1)
    finally:
        for mp in (m2, m2, m1):
            subprocess.run(['umount', mp], capture_output=True)
        subprocess.run(['losetup', '-d', dev], capture_output=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def show_source_pair(t, name, binary, mi, snap, args, cwd=None):
    """findmnt -F MI ARGS and mntsnap show SNAP ARGS (MI copied when SNAP
    was saved): stdout, exit status, whether stderr says anything."""
    fm = subprocess.run(['findmnt', '-F', mi] + args, capture_output=True, cwd=cwd)
    ms = subprocess.run([binary, 'show', snap] + args, capture_output=True, cwd=cwd)
    why = same_output(args, fm.returncode, fm.stdout, ms.returncode, ms.stdout,
                      fm.stderr, ms.stderr)
    if not why and bool(fm.stderr.strip()) != bool(ms.stderr.strip()):
        why = 'stderr findmnt %r mntsnap %r' % (fm.stderr[:200], ms.stderr[:200])
    t.check('%s: %s%s' % (name, ' '.join(args), ' (in %s)' % cwd if cwd else ''), not why, why)


def show_source_cases(t, binary, base, dev, lnk, label, m1):
    """show SNAP's -S/SOURCE as findmnt -F's on a copy taken with it: the
    path asked for resolved here (a symlink to the device, relative, from
    /dev), and the saved sources resolved here too: a mount made with
    --no-canonicalize through a symlink to a labelled device is found by
    the device and by its LABEL= tag (LABEL: None, no libblkid)."""
    def saved(tag):
        mi, snap = (os.path.join(base, 'showsrc-%s.%s' % (tag, e)) for e in ('mi', 'snap'))
        shutil.copyfile('/proc/self/mountinfo', mi)
        r = subprocess.run([binary, 'save', '--no-sync', snap], capture_output=True)
        t.check('show source save %s' % tag, r.returncode == 0, r.stderr.decode(errors='replace'))
        return mi, snap
    mi, snap = saved('plain')
    rel = './' + os.path.basename(lnk)
    for args, cwd in ((['-S', lnk], None), ([lnk], None), (['-f', lnk], None),
                      (['-i', '-S', lnk], None), (['-f', '-S', lnk], None),
                      (['-S', rel], base), ([rel], base), (['-S', './' + dev[5:]], '/dev'),
                      ([dev[5:]], '/dev'), (['-S', lnk, '-M', m1], None), ([lnk, m1], None)):
        show_source_pair(t, 'show source', binary, mi, snap, ['-r'] + args, cwd)
    if label:
        # "DEV/" asked for fails realpath(): list's rule (source_lookups_inner's
        # cases), the tag columns probe the spelling the cache kept (nothing);
        # show refuses -c, -C and -e
        tc = 'TARGET,SOURCE,LABEL,UUID,PARTUUID,PARTLABEL'
        for args in (['-S', dev + '/', '-o', tc], ['-S', dev + '//', '-o', 'TARGET,UUID'],
                     [dev + '/', '-o', tc], ['-S', dev + '/', '-T', m1, '-o', tc],
                     [dev + '/', m1, '-o', tc], ['-S', '/dev//' + dev[5:], '-o', tc],
                     ['-S', dev + '/.', '-o', tc], ['-S', dev + '/', '-o', 'TARGET,SOURCES,LABEL'],
                     ['-v', '-S', dev + '/', '-o', tc], ['-t', 'ext4', '-S', dev + '/', '-o', tc],
                     ['-f', '-S', dev + '/', '-o', tc],
                     ['-d', 'backward', '-S', dev + '/', '-o', tc], ['-S', dev, '-o', tc]):
            show_source_pair(t, 'show source tag columns', binary, mi, snap, ['-r'] + args)
    m3 = os.path.join(base, 'sl3')
    os.makedirs(m3, exist_ok=True)
    subprocess.run(['mount', '--no-canonicalize', '-t', 'ext4', lnk, m3], check=True)
    try:
        mi, snap = saved('nocanon')
        cases = [['-S', dev], [dev], ['-f', dev], ['-S', lnk], ['-S', dev, '-o', 'TARGET,SOURCE']]
        if label:
            cases += [['-S', 'LABEL=' + label], ['LABEL=' + label], ['-f', 'LABEL=' + label]]
        for args in cases:
            show_source_pair(t, 'show saved symlink source', binary, mi, snap, ['-r'] + args)
    finally:
        subprocess.run(['umount', m3], capture_output=True)


BTRFS_LABEL = 'fmeq-btrfs'


def btrfs_cases(dev, tgt, uuid):
    """-f's mount-compatible lookups of a btrfs device (TGT: one of its
    mount points), the forms beside them that are filters again (no -f,
    -t), and a UUID= tag (evaluated to DEV, then the same lookup)."""
    cases = [['-f', dev], ['-f', '-d', 'backward', dev], ['-f', '-S', dev, '-o', 'TARGET,FSROOT'],
             ['-f', '-d', 'backward', '-S', dev, '-J', '-o', 'TARGET,FSROOT'],
             ['-f', '-l', dev], ['-f', '-P', dev], ['-f', '-C', dev], ['-f', '-C', '-d', 'backward', dev],
             ['-f', dev, tgt], ['-f', '-S', dev, '-M', tgt], ['-f', '-i', dev], ['-f', '--shadowed', dev],
             ['-f', '-t', 'btrfs', dev], ['-f', '-O', 'rw', dev], ['-S', dev], [dev]]
    if uuid:
        cases += [['-f', 'UUID=' + uuid], ['-f', '-d', 'backward', '-S', 'UUID=' + uuid],
                  ['-f', 'LABEL=' + BTRFS_LABEL], ['-f', '-d', 'backward', 'LABEL=' + BTRFS_LABEL]]
    return [['-r'] + c if '-J' not in c and '-P' not in c and '-l' not in c else c
            for c in cases]


def btrfs_compare(t, binary, state, dev, tgt, uuid, base, prefix=()):
    """findmnt and mntsnap (both backends; PREFIX: a command both run
    under) on the live table, and on a copy of it read with -F (libmount
    then asks the same mount points for their default subvolume)."""
    mi = os.path.join(base, 'btrfs.mountinfo')
    shutil.copyfile('/proc/self/mountinfo', mi)
    for args in btrfs_cases(dev, tgt, uuid):
        for backend in ('statmount', 'mountinfo'):
            fm = subprocess.run(list(prefix) + ['findmnt'] + args, capture_output=True)
            ms = subprocess.run(list(prefix) + [binary, 'list', '--backend', backend] + args,
                                capture_output=True)
            why = same_output(args, fm.returncode, fm.stdout, ms.returncode, ms.stdout,
                              fm.stderr, ms.stderr)
            t.check('btrfs %s (%s): %s' % (state, backend, ' '.join(args)), not why, why)
        if not prefix:
            lookup_pair(t, 'btrfs %s -F' % state, binary, ['-F', mi] + args)
    if not prefix:
        btrfs_show_stat(t, binary, state, dev, tgt, uuid, base, mi)
    # an fstab's entries: their mount points asked the same way
    fst = os.path.join(base, 'btrfs.fstab')
    d = os.path.dirname(tgt)
    with open(fst, 'w') as fh:
        # no subvolid= (never passed over), one, 257 in hex (strtoumax()
        # base 0), and an empty one (no number: passed over where asked)
        fh.write('%s %s/nested btrfs subvol=sv/nested 0 0\n' % (dev, d))
        fh.write('%s %s/sv btrfs subvolid=256,noatime 0 0\n' % (dev, d))
        fh.write('%s %s/top btrfs rw,subvolid=5 0 0\n' % (dev, d))
        fh.write('%s %s/top btrfs subvolid=0x101,noauto 0 0\n' % (dev, d))
        fh.write('%s %s/top btrfs subvolid= 0 0\n' % (dev, d))
    for args in (['-f', dev], ['-f', '-d', 'backward', dev], ['-f', '-C', dev],
                 ['-f', '-J', '-S', dev], [dev]):
        args = ['-s', '-F', fst] + args
        fm = subprocess.run(list(prefix) + ['findmnt'] + args, capture_output=True)
        ms = subprocess.run(list(prefix) + [binary, 'list'] + args, capture_output=True)
        why = same_output(args, fm.returncode, fm.stdout, ms.returncode, ms.stdout,
                          fm.stderr, ms.stderr)
        t.check('btrfs %s fstab: %s' % (state, ' '.join(args)), not why, why)


def btrfs_show_stat(t, binary, state, dev, tgt, uuid, base, mi):
    """show of a snapshot saved with MI (the same moment) against
    findmnt -F MI: libmount asks each mount point for its default
    subvolume whatever table it reads, and show asks it too where the
    btrfs there now is on the device the saved source names. stat PATH -f
    with -t/-O is findmnt -T PATH's filter, no lookup (mount points of the
    top volume and of sv)."""
    snap = os.path.join(base, 'btrfs.snap')
    r = subprocess.run([binary, 'save', '--no-sync', snap], capture_output=True)
    t.check('btrfs %s save' % state, r.returncode == 0, r.stderr.decode(errors='replace'))
    # (show refuses -C: a saved table is never resolved here)
    for args in btrfs_cases(dev, tgt, uuid):
        if '-C' not in args:
            fstab_same(t, 'btrfs %s show' % state, ['-F', mi] + args,
                       [binary, 'show', snap] + args, json_out='-J' in args)
    sv = os.path.join(os.path.dirname(tgt), 'sv')
    sets = [['-f', '-t', 'btrfs', '-S', dev], ['-f', '-O', 'rw', '-S', dev],
            ['-f', '-d', 'backward', '-t', 'btrfs', '-S', dev]]
    if uuid:
        sets.append(['-f', '-t', 'btrfs', '-S', 'UUID=' + uuid])
    # (sv covered: stat prints the top mount of a stack, findmnt -T each
    # one; kept, README)
    for path in (tgt,) if 'covered' in state else (tgt, sv):
        for args in sets:
            lookup_pair(t, 'btrfs %s stat' % state, binary, ['-r', '-T', path] + args,
                        ms_cmd=('stat',))


def btrfs_show_elsewhere(t, binary, base, dev, top, sv, mounted):
    """A snapshot saved with the default 256 (sv's), then another btrfs
    (default 5) stacked on both mount points: findmnt -F asks that one,
    so the saved top volume's subvolid=5 passes and sv's is passed over;
    show asks no btrfs that is not on the saved source's device, so both
    count and the first (sv, the saved filesystem's default) is taken
    (kept, README). Its mounts go in MOUNTED while they last."""
    img = os.path.join(base, 'other.img')
    with open(img, 'wb') as fh:
        fh.truncate(256 << 20)
    other = image_attach(img)
    if not other:
        t.skipped += 1
        return
    subprocess.run(['btrfs', 'subvolume', 'set-default', '256', top], check=True,
                   capture_output=True)
    mi, snap = os.path.join(base, 'elsewhere.mi'), os.path.join(base, 'elsewhere.snap')
    shutil.copyfile('/proc/self/mountinfo', mi)
    r = subprocess.run([binary, 'save', '--no-sync', snap], capture_output=True)
    t.check('btrfs elsewhere save', r.returncode == 0, r.stderr.decode(errors='replace'))
    subprocess.run(['mkfs.btrfs', '-q', '-f', other], check=True, capture_output=True)
    stacked = []
    try:
        for mp in (sv, top):
            subprocess.run(['mount', '-t', 'btrfs', other, mp], check=True)
            mounted.insert(0, mp)
            stacked.append(mp)
        args = ['-n', '-o', 'TARGET', '-f', dev]
        _, fm, _ = run(['findmnt', '-F', mi] + args)
        rc, ms, err = run([binary, 'show', snap] + args)
        t.check('btrfs elsewhere: findmnt -F asks the btrfs there now', fm.strip() == top.encode(),
                repr(fm))
        t.check('btrfs elsewhere: show the saved default\'s mount', rc == 0 and
                ms.strip() == sv.encode(), '%d %r %r' % (rc, ms, err))
    finally:
        for mp in reversed(stacked):
            subprocess.run(['umount', mp], capture_output=True)
            mounted.remove(mp)
        subprocess.run(['losetup', '-d', other], capture_output=True)
        subprocess.run(['btrfs', 'subvolume', 'set-default', '5', top], check=True,
                       capture_output=True)


def btrfs_subvols_inner(binary, base):
    """In a private mount namespace already: a btrfs on a loop device
    mounted as a subvolume (256), the top volume (5) and a nested
    subvolume (257), in that order. libmount's mnt_table_find_srcpath()
    (findmnt -f SOURCE) passes over a btrfs mount whose subvolid= is not
    the filesystem's default subvolume as the mount point answers it:
    compared with the default 5, 256 and 257; none of the mounts the
    default (then the table's first/last); the mount point covered by a
    tmpfs (no btrfs answers there, so the mount counts); and as an
    unprivileged user (the search ioctl refused: every mount counts).
    Prints the tally as JSON."""
    t = Tally()
    # uid 65534 below reaches the mount points and reads the tables here
    os.chmod(base, 0o755)
    img = os.path.join(base, 'btrfs.img')
    with open(img, 'wb') as fh:
        fh.truncate(256 << 20)
    dev = image_attach(img)
    if not dev:
        print(json.dumps({'passed': 0, 'failed': 0, 'skipped': 1}))
        return 0
    top, sv, nested, tmp = (os.path.join(base, n) for n in ('top', 'sv', 'nested', 'mk'))
    mounted = []
    try:
        subprocess.run(['mkfs.btrfs', '-q', '-f', '-L', BTRFS_LABEL, dev], check=True,
                       capture_output=True)
        for d in (top, sv, nested, tmp):
            os.makedirs(d)
        r = subprocess.run(['mount', '-t', 'btrfs', dev, tmp], capture_output=True, text=True)
        if r.returncode:
            print('SKIP btrfs subvolumes: cannot mount btrfs (module not loadable?): %s'
                  % r.stderr.strip())
            print(json.dumps({'passed': 0, 'failed': 0, 'skipped': 1}))
            return 0
        for s in ('sv', 'sv/nested'):
            subprocess.run(['btrfs', 'subvolume', 'create', os.path.join(tmp, s)], check=True,
                           capture_output=True)
        subprocess.run(['umount', tmp], check=True)
        for opt, mp in (('subvol=sv', sv), ('subvolid=5', top), ('subvol=sv/nested', nested)):
            subprocess.run(['mount', '-t', 'btrfs', '-o', opt, dev, mp], check=True)
            mounted.insert(0, mp)
        uuid = None
        if blkid_or_skip(t, binary, os.devnull, 'btrfs subvolume UUID'):
            uuid = subprocess.run(['blkid', '-p', '-o', 'value', '-s', 'UUID', dev],
                                  capture_output=True, text=True).stdout.strip() or None
        nobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']
        for state, sid in (('default 5', '5'), ('default 256', '256'), ('default 257', '257')):
            subprocess.run(['btrfs', 'subvolume', 'set-default', sid, top], check=True,
                           capture_output=True)
            btrfs_compare(t, binary, state, dev, top, uuid, base)
        # the default (257) mounted nowhere: the first pass finds none
        subprocess.run(['umount', nested], check=True)
        mounted.remove(nested)
        btrfs_compare(t, binary, 'default 257 unmounted', dev, top, uuid, base)
        subprocess.run(['btrfs', 'subvolume', 'set-default', '5', top], check=True,
                       capture_output=True)
        if shutil.which('setpriv') and subprocess.run(
                nobody + [binary, '--version'], capture_output=True).returncode == 0:
            # (no tag: an unprivileged libblkid reads its cache file, not the device)
            btrfs_compare(t, binary, 'default 5, unprivileged', dev, top, None, base, nobody)
        else:
            print('SKIP btrfs subvolumes as an unprivileged user: no setpriv, or %s is not'
                  ' executable by uid 65534' % binary)
            t.skipped += 1
        btrfs_show_elsewhere(t, binary, base, dev, top, sv, mounted)
        # sv's mount point leads to a tmpfs now: its default is not asked
        subprocess.run(['mount', '-t', 'tmpfs', 'cover', sv], check=True)
        mounted.insert(0, sv)
        btrfs_compare(t, binary, 'default 5, sv covered', dev, top, uuid, base)
    finally:
        for mp in mounted:
            subprocess.run(['umount', mp], capture_output=True)
        subprocess.run(['umount', tmp], capture_output=True)
        subprocess.run(['losetup', '-d', dev], capture_output=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def btrfs_subvols(t, binary, base):
    need = ('unshare', 'losetup', 'mkfs.btrfs', 'btrfs')
    missing = [p for p in need if not shutil.which(p)]
    if os.geteuid() != 0 or missing:
        print('SKIP btrfs subvolumes on a loop device: needs root and %s%s'
              % (', '.join(need), ' (missing: %s)' % ', '.join(missing) if missing else ''))
        t.skipped += 1
        return
    private_ns_part(t, '--btrfs-subvols', binary, base, 'btrfs subvolumes')


def source_match_forms(t, binary, base):
    """What a SOURCE matches, as findmnt 2.38 decides it. -S MAJ:MIN is a
    device number (set_source_match() sets FL_NOSWAPMATCH): with -f and a
    positional SOURCE (is_mount_compatible_mode(), which then ignores the
    MAJ:MIN) that SOURCE is never retried as a mount point. -c changes how
    SOURCE is printed, not what it matches: mnt_fs_match_source() gives up
    on a pseudo or network filesystem's source that differs in text. A
    bind mount's source as findmnt prints it, DEV[/fsroot], names nothing:
    the [/fsroot] is the SOURCE column's, never the mount's source."""
    d = os.path.join(base, 'srcmatch')
    os.makedirs(d)
    lnproc = os.path.join(d, 'lnproc')
    os.symlink('/proc', lnproc)
    tabs = {
        'stack': ('20 1 254:0 / / rw - ext4 /dev/vda rw', '25 20 0:23 / /mnt/a\\040b rw - tmpfs x rw',
                  '29 20 0:42 / /mnt/stack rw - tmpfs t1 rw', '30 29 0:43 / /mnt/stack rw - tmpfs t2 rw'),
        'pseudo': ('20 1 254:0 / / rw - ext4 /dev/vda rw', '22 20 0:3 / /b rw - tmpfs %s rw' % lnproc,
                   '25 20 0:6 / /e rw - tmpfs /dev/../dev/vda rw',
                   '28 20 0:9 / /h rw - tmpfs /proc/self/root/dev/vda rw',
                   '31 20 0:10 / /n rw - nfs /dev/../dev/vda rw',
                   '32 20 0:11 / /p rw - nfs4 /proc/self/root/dev/vda rw'),
        'fsroot': ('20 1 254:0 / / rw - ext4 /dev/vda rw', '26 20 254:0 /home /mnt/bind ro - ext4 /dev/vda rw',
                   '35 20 0:47 /sub\\134dir /mnt/bs rw - tmpfs none rw')}
    sets = {
        'stack': (['-f', '-S', '0:43', '/mnt/stack'], ['-f', '-S', '0:42', '-d', 'backward', '/mnt/stack'],
                  ['-f', '-S', '0:42', '/mnt/a b'], ['-f', '-S', '0:42', '/dev/vda'],
                  ['-f', '-S', '0:42', 't2'], ['-S', '0:43', '/mnt/stack'], ['-S', '0:43', 't2'],
                  ['-f', '/mnt/stack'], ['-f', '-d', 'backward', '/mnt/stack'], ['-f', '-S', '0:43'],
                  ['-S', '0:43'], ['-f', '0:43'], ['-f', '0:43', '/mnt/stack'], ['/mnt/stack'],
                  ['-f', 'nosuch', '/mnt/stack'], ['-f', '-t', 'tmpfs', '-S', '0:43', '/mnt/stack']),
        'pseudo': (['-c', '/dev/vda'], ['-c', '/proc'], ['-c', lnproc], ['-c', '-S', '/dev/vda'],
                   ['-c', '-f', '/dev/vda'], ['-c', '-f', '/proc'], ['-c', '-S', '/proc'], ['/dev/vda'],
                   ['-c', '/dev/../dev/vda'], ['-c', '-t', 'tmpfs', '/dev/vda'], ['-c', '-i', '/dev/vda'],
                   ['-C', '/dev/vda'], ['-c', '-v', '/dev/vda']),
        'fsroot': (['/dev/vda[/home]'], ['none[/sub\\dir]'], ['-t', 'ext4', '/dev/vda[/home]'],
                   ['-S', '/dev/vda[/home]'], ['-v', '/dev/vda[/home]'], ['-f', '/dev/vda[/home]'],
                   ['-R', '/dev/vda[/home]'], ['-c', '/dev/vda[/home]'], ['/dev/vda'], ['none'],
                   ['-v', '/dev/vda'], ['-S', '/dev/vda'], ['-f', '-d', 'backward', '/dev/vda'])}
    for name, lines in tabs.items():
        mi = os.path.join(d, name + '.mi')
        with open(mi, 'w') as fh:
            fh.write('\n'.join(lines) + '\n')
        for args in sets[name]:
            for form in (['-l'], [], ['-J']):
                lookup_pair(t, 'source match -F %s' % name, binary, ['-F', mi] + form + args)


CACHE_NX = '/nx-fmeq-cache'


def cache_spelling_sets(srcs, others):
    """-c lookups of cache_spellings_*: -S SRC (and SRC alone) for each
    spelling in srcs, with every option that changes the order in which
    findmnt fills its path cache (-d backward, -f, -U, -R, -t, -i, -T/-M
    given in others) in each form; then -U alone and with -c, -S, -T and
    -M from others."""
    sets = []
    for x in srcs:
        for extra in ([], ['-l'], ['-J'], ['-d', 'backward'], ['-f'], ['-R'], ['-U'],
                      ['-t', 'ext4'], ['-i']) + tuple(others):
            sets.append(['-c', '-S', x] + extra)
        sets += [['-c', x], ['-c', '-f', x]]
    for extra in ([], ['-l'], ['-r'], ['-J'], ['-d', 'backward'], ['-R'], ['-f'],
                  ['-o', 'TARGET,SOURCE,LABEL']) + tuple(others) + tuple(['-S', x] for x in srcs):
        sets += [['-U', '-c'] + extra, ['-U'] + extra]
    return sets


def cache_spellings_file(t, binary, base):
    """findmnt -c prints a source as its path cache holds it, and the cache
    keeps the first spelling of a path looked up (keys compared by
    streq_paths(): "/x//a" is "/x/a/"; a path that does not resolve is kept
    as written). So what enters first matters: the lines printed before -S's
    argument needs resolving (a line whose text is the argument's exactly
    too), and -U's compares, which resolve each mount point the table's last
    line's text does not match, before any lookup. -U also drops a line
    whose mount point resolves to a later line's (a symlink in a -F file)."""
    d = os.path.join(base, 'cachespell')
    os.makedirs(os.path.join(d, 'real', 'q'))
    open(os.path.join(d, 'img'), 'w').close()
    os.symlink('real', os.path.join(d, 'lnk'))
    os.symlink('img', os.path.join(d, 'ilnk'))
    nx = CACHE_NX

    def table(name, rows):
        p = os.path.join(d, name)
        with open(p, 'w') as fh:
            for i, (mp, fstype, src) in enumerate(rows):
                fh.write('%d %d 8:%d / %s rw - %s %s rw\n' % (20 + i, 20 if i else 1, i, mp,
                                                               fstype, src))
        return p
    spell = table('spell.mi', [('/', 'ext4', nx + '/x'), ('/b1', 'ext4', nx + '//x'),
                               ('/b2', 'ext4', nx + '/x/'), ('/b3', 'ext4', d + '/img'),
                               ('/b4', 'ext4', d + '//img'), ('/b5', 'ext4', d + '/ilnk'),
                               ('/b6', 'tmpfs', nx + '//x')])
    srcs = [nx + '/x', nx + '//x', nx + '/x/', d + '/img', d + '//img', d + '/ilnk', d + '/img/']
    for args in cache_spelling_sets(srcs, [['-T', '/b1'], ['-M', '/b4']]):
        lookup_pair(t, 'cache spelling -F', binary, ['-F', spell, '-o', 'SOURCE,TARGET'] + args)
    uniq = table('uniq.mi', [('/', 'ext4', '/dev/vda'), ('/b2', 'tmpfs', nx + '/a'),
                             (nx + '//a', 'ext4', '/b2'), ('/t2', 'ext4', '/tmp/'),
                             (d + '/lnk', 'ext4', d + '/real'), (d + '//real/', 'ext4', d + '/lnk/'),
                             (d + '/real', 'ext4', nx + '/a/'), ('/t3', 'ext4', d + '//lnk')])
    for args in cache_spelling_sets([nx + '/a', d + '/real', '/b2'],
                                    [['-T', d + '/real'], ['-M', d + '/lnk']]):
        lookup_pair(t, 'cache spelling -U -F', binary, ['-F', uniq, '-o', 'SOURCE,TARGET'] + args)
    # -T/-M: findmnt resolves the mount point asked for at the first line
    # that -t/-O let through and whose text differs, after the sources of
    # the lines printed before it (-i, -d, -f: only up to the first)
    tgt = table('tgt.mi', [('/', 'tmpfs', nx + '/a/'), (nx + '//a', 'ext4', '/b1'),
                           ('/m2', 'tmpfs', '/' + nx + '/b'), (nx + '//b', 'ext4', nx + '/b/'),
                           (d + '/lnk', 'ext4', nx + '/b'), ('/m5', 'xfs', d + '/lnk/')])
    for x in (nx + '//a', nx + '/a/', nx + '/b', '/' + nx + '/b/', d + '/real', d + '/lnk/'):
        for opt in ('-M', '-T'):
            for extra in ([], ['-i'], ['-f'], ['-i', '-f'], ['-t', 'ext4'], ['-i', '-t', 'ext4'],
                          ['-d', 'backward'], ['-d', 'backward', '-f'], ['-d', 'backward', '-i'],
                          ['-R'], ['-S', nx + '/b'], ['-i', '-S', nx + '//a']):
                lookup_pair(t, 'cache spelling -T/-M -F', binary,
                            ['-F', tgt, '-o', 'SOURCE,TARGET', '-c', '-l', opt, x] + extra)
    # -R prints a match's submounts before the next mount is looked up:
    # a submount listed after another spelling of its source keeps its own
    sub = os.path.join(d, 'sub.mi')
    with open(sub, 'w') as fh:
        fh.write('20 1 8:0 / / rw - ext4 /dev/vda rw\n21 20 8:1 / /m rw - ext4 %s/q rw\n'
                 '22 20 8:2 / /o rw - ext4 %s/z/ rw\n23 21 8:3 / /m/c rw - ext4 %s//z rw\n'
                 '24 23 8:4 / /m/c/d rw - ext4 %s/w rw\n25 20 8:5 / /p rw - ext4 %s//w/ rw\n'
                 % ((nx,) * 5))
    for x in (nx + '/q', nx + '//q/', nx + '/z'):
        for extra in ([], ['-l'], ['-J'], ['-d', 'backward'], ['-i'], ['-U'], ['-f'],
                      ['-t', 'ext4'], ['-o', 'TARGET,SOURCE,LABEL']):
            lookup_pair(t, 'cache spelling -R -F', binary,
                        ['-F', sub, '-o', 'SOURCE,TARGET', '-c', '-R', '-S', x] + extra)


CACHE_LIVE = r"""
set -e
L=$1; NX=$2
mkdir -p $L/m/a $L/n $L/nx
mount -t tmpfs "$NX/x" $L/n
mount -t tmpfs "$NX//x" $L/nx
mount -t tmpfs src1 $L/m/a
mount -t tmpfs "$L/m//a" $L/m
mount -t tmpfs "$L/m/a/" $L/n
"""


def cache_spellings_live_inner(binary, base):
    """In a private mount namespace: tmpfs mounts whose sources spell one
    path two ways, and a mount point covered by a later mount (realpath()
    of it fails, so -U's compare caches it as written, and a source that
    spells it otherwise prints so), through both backends."""
    t = Tally()
    live = os.path.join(base, 'cachelive')
    subprocess.run(['sh', '-c', CACHE_LIVE, 'sh', live, CACHE_NX], check=True)
    sets = cache_spelling_sets([CACHE_NX + '/x', CACHE_NX + '//x', live + '/m//a', live + '/m/a/'],
                               [['-T', live + '/m'], ['-M', live + '/n']])
    for args in sets:
        for be in ([], ['--backend', 'mountinfo']):
            lookup_pair(t, 'cache spelling live%s' % (' ' + be[1] if be else ''), binary,
                        ['-o', 'SOURCE,TARGET'] + args, ms_cmd=['list'] + be)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def source_lookups(t, binary, base):
    source_lookups_file(t, binary, base)
    cache_spellings_file(t, binary, base)
    private_ns_part(t, '--cache-spellings', binary, base, 'cache spellings live')
    source_match_forms(t, binary, base)
    loop_device_part(t, binary, base, '--source-lookups', 'source lookups')


def mtab_verify_and_tids(t, binary, base):
    """-m -x verifies the mtab (the kernel's table, utab's userspace options
    shown by --verbose), not fstab; TID of a table read from a file: the
    number that names the file's directory (libmount's rule for a mountinfo
    file: /proc/PID/mountinfo, a task's, any FILE under a directory named
    by a number), none for the /proc/mounts format; each -F/-N table's
    rows their own TID."""
    utab = os.path.join(base, 'utab')
    proc = next((ln.split() for ln in open('/proc/self/mountinfo')
                 if ln.split()[4] == '/proc'), None)
    with open(utab, 'w') as fh:
        if proc:
            fh.write('SRC=%s TARGET=/proc ROOT=%s OPTS=x-fmeq,noauto\n'
                     % (proc[proc.index('-') + 2], proc[3]))
    env = dict(os.environ, LIBMOUNT_UTAB=utab)
    num = os.path.join(base, '4242')
    zero = os.path.join(base, '0')
    for d in (num, zero):
        os.makedirs(d)
        shutil.copy('/proc/1/mountinfo', os.path.join(d, 'mi'))
    if blkid_or_skip(t, binary, '/dev/null', 'mtab -x'):
        for args in (['-m', '-x'], ['--mtab', '--verify', '--verbose'], ['-x', '-m'],
                     ['-m', '-x', '--verbose', '-M', '/proc'], ['-m', '-x', '-t', 'proc'],
                     ['-m', '-x', '-F', os.path.join(zero, 'mi')],
                     ['-m', '-x', '--verbose', '-F', '/proc/1/mounts']):
            fstab_same(t, 'mtab verify', args, [binary, 'list'] + args, env=env)
    os.symlink(os.path.join(num, 'mi'), os.path.join(base, 'link'))
    tabs = [['-F', '/proc/1/mountinfo'], ['-F', '/proc/1/task/1/mountinfo'],
            ['-F', '/proc/1/mounts'], ['-F', os.path.join(num, 'mi')],
            ['-F', os.path.join(zero, 'mi')], ['-F', os.path.join(base, 'link')],
            ['-N', '1', '-F', '/proc/1/mountinfo'], ['-F', '/proc/1/mountinfo', '-N', '1'],
            ['-F', os.path.join(num, 'mi'), '-F', '/proc/1/mountinfo']]
    for tab in tabs:
        for form in ([], ['-J'], ['-l'], ['-r'], ['-P'], ['-J', '-l']):
            args = tab + ['-o', 'TARGET,TID,ID'] + form
            fstab_same(t, 'file tid', args, [binary, 'list'] + args, json_out='-J' in form)
    # /proc/self/...: the reading program's own pid, findmnt's and ours
    for prog in (['findmnt'], [binary, 'list']):
        for f in ('/proc/self/mountinfo', '/proc/thread-self/mountinfo'):
            r = subprocess.run(['sh', '-c', 'echo $$; exec "$@"', 'sh'] + prog +
                               ['-F', f, '-n', '-o', 'TID', '-t', 'proc'],
                               capture_output=True, text=True)
            out = r.stdout.split()
            t.check('%s -F %s: TID is its own pid' % (prog[0], f),
                    r.returncode == 0 and len(out) >= 2 and set(out[1:]) == {out[0]},
                    repr(r.stdout + r.stderr))


def show_stat_tids(t, binary, base):
    """TID of stat and show, as findmnt prints it for the table each reads:
    stat's live table the reader's own pid (each program its own: both are
    run as the shell that prints its pid first), stat -N/--task the task's;
    show's saved table names no task, as a copy of a table under a path
    that names none (findmnt -F FILE: empty)."""
    for prog in (['findmnt', '-T'], [binary, 'stat']):
        for form in (['-n'], ['-l', '-n'], ['-r', '-n'], ['-J']):
            r = subprocess.run(['sh', '-c', 'echo $$; exec "$@"', 'sh'] + prog +
                               ['/proc', '-o', 'TID'] + form, capture_output=True, text=True)
            lines = r.stdout.split('\n', 1)
            try:
                got = [str(x['tid']) for x in json.loads(lines[1])['filesystems']] \
                    if '-J' in form else lines[1].split()
            except (ValueError, KeyError, IndexError):
                got = []
            t.check('%s %s /proc %s: TID is its own pid' % (
                        os.path.basename(prog[0]), prog[1], ' '.join(form)),
                    r.returncode == 0 and got == [lines[0]], repr(r.stdout + r.stderr))
    p = subprocess.Popen(['sleep', '60'])
    try:
        for opt in ('-N', '--task', '--pid'):
            for form in ([], ['-l'], ['-r'], ['-P'], ['-J']):
                cols = ['-o', 'TARGET,TID,ID']
                fm = ['-N', str(p.pid), '-T', '/proc'] + cols + form
                fstab_same(t, 'stat %s tid' % opt, fm,
                           [binary, 'stat', opt, str(p.pid)] + cols + form + ['/proc'],
                           json_out='-J' in form)
    finally:
        p.kill()
        p.wait()
    snap = os.path.join(base, 'tid.snap')
    copy = os.path.join(base, 'tid.mi')
    rc, _, err = run([binary, 'save', '--no-sync', snap])
    shutil.copy('/proc/self/mountinfo', copy)
    t.check('show tid: save', rc == 0, err.decode(errors='replace'))
    for form in ([], ['-l'], ['-r'], ['-P'], ['-J']):
        args = ['-M', '/proc', '-o', 'TARGET,TID'] + form
        fstab_same(t, 'show tid', ['-F', copy] + args, [binary, 'show', snap] + args,
                   json_out='-J' in form)


# -M/-T/MOUNTPOINT forms of one path: as given, a trailing slash, doubled slashes
def target_forms(p):
    forms = [p, p + '/', p.replace('/', '//'), '/' + p if p.startswith('/') else './' + p]
    return [f for i, f in enumerate(forms) if f not in forms[:i]]


def target_lookup_sets(paths, walks):
    """The lookups of target_lookups_*: every option that names a mount
    point (-M, -T, the positional MOUNTPOINT alone or after a SOURCE),
    with -C/--nocanonicalize, -R, -f, -d backward, -i; walks: -T paths
    below a mount point (findmnt's second pass, a mount point found by
    the path's text)."""
    sets = []
    for p in paths:
        for x in target_forms(p):
            sets += [['-M', x], ['-T', x], [x], ['-C', '-M', x], ['--nocanonicalize', '-T', x],
                     ['-R', '-M', x]]
        sets += [['-R', '-T', p], ['-C', '-R', '-M', p], ['-f', '-M', p], ['-f', p],
                 ['-d', 'backward', '-M', p], ['-i', '-M', p], ['-J', '-M', p], ['-l', '-T', p],
                 ['-C', p]]
    for w in walks:
        sets += [['-T', w], ['-C', '-T', w], ['-R', '-T', w], ['-d', 'backward', '-T', w]]
    return sets


def target_lookups_file(t, binary, base):
    """-M/-T/MOUNTPOINT on a -F mountinfo table whose mount point text is
    not what a kernel writes ("/a/", "//b", "rel", "x//y/"): libmount's
    mnt_fs_match_target() compares texts with streq_paths() (slashes
    repeated or trailing aside), then (its cache, not -C) the path asked
    for resolved on this file system, never the line's own text resolved
    (a kernel table's); -T PATH matching nothing: the mount point PATH is
    on, by PATH's text stripped component by component, that line's text
    then matched again."""
    d = os.path.join(base, 'tgtlook')
    for sub in ('m/x/y', 'n/z', 'real/q', 'o'):
        os.makedirs(os.path.join(d, sub))
    open(os.path.join(d, 'm', 'x', 'f'), 'w').close()
    os.symlink('m', os.path.join(d, 'lnk'))
    os.symlink('real', os.path.join(d, 'lnk2'))
    mi = os.path.join(d, 'mountinfo')
    mps = ['/', '/a/', '//b', 'rel', '/a/x', d + '/m/', d.replace('/', '//') + '//n', '/' + d + '/o',
           d + '/lnk', d + '/real', '/c//d/', '/a/', '/e/./f', d + '/m/x/']
    with open(mi, 'w') as fh:
        for i, mp in enumerate(mps):
            fh.write('%d %d 0:%d / %s rw - tmpfs t%d rw\n' % (20 + i, 20 if i != 4 else 21, i + 3,
                                                              mp, i))
    paths = ['/a', '/b', 'rel', '/c/d', '/e/./f', d + '/m', d + '/n', d + '/o', d + '/lnk',
             d + '/lnk2', d + '/real', d + '/m/x']
    walks = [d + '/m/x/y', d + '/m/x/f', d + '//m/x/', d + '/n/z', d + '/lnk/x/y', d + '/lnk2/q',
             d + '/o/', '/a/x/y', d + '/m/../n/z']
    for args in target_lookup_sets(paths, walks) + [['t1', '/a'], ['t2', '/b/'], ['t3', 'rel/'],
                                                    ['-J', 't5', d + '//m'], ['-C', 't1', '//a']]:
        lookup_pair(t, 'target lookup -F', binary, ['-F', mi, '-r'] + args)
    # the same table in /proc/mounts' format (mtab, fstab): the same lookups,
    # a relative path made absolute by the working directory in either
    mtab = os.path.join(d, 'mtab')
    with open(mtab, 'w') as fh:
        for i, mp in enumerate(mps):
            fh.write('t%d %s tmpfs rw 0 0\n' % (i, mp))
    for tab in (mi, mtab):
        for args in (['-M', 'm'], ['-M', 'm/'], ['-M', './n'], ['-T', 'm/x/y'], ['-T', 'lnk/x'],
                     ['m'], ['-C', '-M', 'm'], ['-C', '-T', 'm/x/y'], ['-C', '-T', 'n/z'],
                     ['-C', '-T', 'm'], ['-C', '-T', './m/x/y'], ['-C', '-T', '.'],
                     ['-C', '-T', './'], ['-C', '-f', './m'], ['-C', '-f', 'n'], ['-f', './m'],
                     ['-R', '-M', 'm'], ['-M', 'rel'], ['-T', 'rel'], ['-T', 'o']):
            lookup_pair(t, 'target lookup -F %s' % os.path.basename(tab), binary,
                        ['-F', tab, '-r'] + args, cwd=d)
        for args in (['-C', '-T', 'x/y'], ['-C', '-T', '.'], ['-C', '-T', './'], ['-C', '-M', '.'],
                     ['-C', '-f', '.']):
            lookup_pair(t, 'target lookup -F %s' % os.path.basename(tab), binary,
                        ['-F', tab, '-r'] + args, cwd=os.path.join(d, 'm'))
    # -f TAG MOUNTPOINT: two arguments leave findmnt's swap on (its LABEL=,
    # UUID=, ... test is for a lone argument), so a lookup that fails tries
    # the tag's text, relative here, as a mount point
    tagmi, tagmtab = os.path.join(d, 'tagged.mi'), os.path.join(d, 'tagged.mtab')
    tmps = ('/', d + '/LABEL=tl', d + '/UUID=tu', 'PARTUUID=tp', d + '/ID=ti')
    with open(tagmi, 'w') as fh, open(tagmtab, 'w') as fm:
        for i, mp in enumerate(tmps):
            fh.write('%d 20 0:%d / %s rw - tmpfs t%d rw\n' % (20 + i, i + 3, mp, i))
            fm.write('t%d %s tmpfs rw 0 0\n' % (i, mp))
    for tab in (tagmi, tagmtab):
        for args in (['-f', 'LABEL=tl', '/x'], ['-f', 'UUID=tu', '/'], ['-f', 'PARTUUID=tp', '/x'],
                     ['-f', 'ID=ti', '/x'], ['-f', 'LABEL=tl'], ['LABEL=tl', '/x'],
                     ['-f', '-C', 'LABEL=tl', '/x'], ['-f', '-d', 'backward', 'UUID=tu', '/x'],
                     ['-f', 'PARTLABEL=none', '/x'], ['-f', 'LABEL=tl', d + '/UUID=tu']):
            lookup_pair(t, 'target lookup -F %s' % os.path.basename(tab), binary,
                        ['-F', tab, '-r'] + args, cwd=d)


def slash_as_empty(out, form, empties):
    """findmnt's output with the SOURCE "/" of each mount point in empties
    (mounts whose source is the empty string) written as mntsnap keeps it:
    empty (-r: nothing after the blank, -P: "", -J: null)."""
    if form == '-J':
        def fix(recs):
            for r in recs:
                if r.get('target') in empties and r.get('source') == '/':
                    r['source'] = None
                fix(r.get('children', []))
        try:
            j = jload(out)
        except ValueError:
            return out
        fix(j.get('filesystems', []))
        return j
    res = []
    for line in out.split(b'\n'):
        for e in empties:
            e = e.encode()
            if line == e + b' /':
                line = e + b' '
            elif line == b'TARGET="%s" SOURCE="/"' % e:
                line = b'TARGET="%s" SOURCE=""' % e
        res.append(line)
    return b'\n'.join(res)


def empty_source_kept(t, label, binary, args, empties, cwd=None):
    """Kept (README): -c of a mount whose source is the empty string.
    libmount's path cache compares its keys with streq_paths(), for which
    "" is "/", so once findmnt looked "/" up (-M /, -T /, -S /, a "/"
    argument, -U's target compare) its -c SOURCE of such a mount is "/";
    mntsnap shows the source it has, empty. Held to exactly that: in -r,
    -P and -J, mntsnap's output is findmnt's with that "/" made empty,
    the same exit status, and never "/" for those mounts."""
    for form in ('-r', '-P', '-J'):
        a = ['-c', form, '-o', 'TARGET,SOURCE'] + args
        fm = subprocess.run(['findmnt'] + a, capture_output=True, cwd=cwd)
        ms = subprocess.run([binary, 'list'] + a, capture_output=True, cwd=cwd)
        want = slash_as_empty(fm.stdout, form, empties)
        got = ms.stdout
        if form == '-J':
            try:
                got = jload(got)
            except ValueError:
                pass
        t.check('%s: kept empty -c SOURCE: %s' % (label, ' '.join(a)),
                fm.returncode == ms.returncode and want == got and not ms.stderr,
                'findmnt %d %r\nmntsnap %d %r %r' % (fm.returncode, fm.stdout[:300],
                                                    ms.returncode, ms.stdout[:300],
                                                    ms.stderr[:200]))


def empty_source_file(t, binary, base):
    """empty_source_kept() on -F mountinfo tables with a tmpfs and an ext4
    whose source is the empty string, one with the root's source empty
    (found by -M / from its text, before findmnt looks "/" up)."""
    d = os.path.join(base, 'emptysrc')
    os.makedirs(d)
    mi, mi_root = os.path.join(d, 'mountinfo'), os.path.join(d, 'mountinfo-root')
    with open(mi, 'w') as fh:
        fh.write('20 1 0:3 / / rw - ext4 /dev/vda rw\n'
                 '21 20 0:4 / /w rw - tmpfs ws rw\n'
                 '22 21 0:5 / /w/empty rw - tmpfs  rw\n'
                 '23 20 0:6 / /x rw - ext4  rw\n')
    with open(mi_root, 'w') as fh:
        fh.write('20 1 0:3 / / rw - ext4  rw\n'
                 '21 20 0:4 / /w rw - tmpfs ws rw\n'
                 '22 21 0:5 / /w/empty rw - tmpfs  rw\n')
    for tab, empties in ((mi, ('/w/empty', '/x')), (mi_root, ('/', '/w/empty'))):
        for args in ([], ['-M', '/w/empty'], ['-i', '-M', '/'], ['-M', '/'], ['-T', '/'],
                     ['-i', '-T', '//'], ['-S', '/'], ['-i', '-S', '/'], ['-R', '/'], ['/'],
                     ['-U'], ['-U', '-R', '-M', '/w'], ['-d', 'backward', '-i', '-M', '/'],
                     ['-i', '-M', '/w/empty']):
            empty_source_kept(t, 'empty source -F', binary, ['-F', tab] + args, empties, cwd=d)


def uniq_targets_file(t, binary, base):
    """-U on a -F mountinfo table whose mount point text is not what a
    kernel writes: libmount's mnt_table_uniq_fs() keeps the last mount of
    each mount point, its compare being mnt_fs_streq_target(), so "/t",
    "/t/" and "//t" are one mount point, and two lines with the same text
    ("/d//x", "/e/.", relative "g") are too; "/e/." and "/e" are not."""
    d = os.path.join(base, 'uniqtgt')
    os.makedirs(d)
    mi = os.path.join(d, 'mountinfo')
    mps = ['/', '/d//x', '/d//x', '/e/.', '/e/.', '/e', '/t', '/t/', '//t', 'g', 'g', '/d/x/',
           '/t//u', '/t/u/']
    with open(mi, 'w') as fh:
        for i, mp in enumerate(mps):
            fh.write('%d %d 0:%d / %s rw - tmpfs u%d rw\n' % (20 + i, 20 if i != 12 else 28,
                                                              i + 3, mp, i))
    for args in (['-U'], ['-U', '-l'], ['-U', '-r'], ['-U', '-J'], ['-U', '-P'],
                 ['-U', '-M', '/t'], ['-U', '-M', '/d/x'], ['-U', '-R', '-M', '//t'],
                 ['-U', '--shadowed', '-r'], ['-U', '-i', '-M', '/e/.', '-r']):
        lookup_pair(t, 'uniq targets -F', binary, ['-F', mi] + args)


def stat_kept(t, binary, d):
    """README's kept stat differences, held to exactly what it says: on a
    stack stat prints the top mount, findmnt -T's last row of the stack,
    and a PATH stat cannot open (missing, empty, a link to a pipe) is an
    error, exit 2 and a message, where findmnt -T walks the text or
    prints nothing. Anything else stat does there is a failure."""
    cols = ['-r', '-n', '-o', 'TARGET,SOURCE,FSTYPE,ID']
    fm = subprocess.run(['findmnt'] + cols + ['-T', os.path.join(d, 'st')],
                        capture_output=True)
    ms = subprocess.run([binary, 'stat'] + cols + [os.path.join(d, 'st')],
                        capture_output=True)
    rows = fm.stdout.splitlines()
    t.check('stat on a stack: the top mount, findmnt -T each',
            fm.returncode == 0 and len(rows) == 2 and ms.returncode == 0 and
            ms.stdout.splitlines() == rows[-1:],
            'findmnt %d %r\nmntsnap %d %r %r' % (fm.returncode, fm.stdout, ms.returncode,
                                                 ms.stdout, ms.stderr))
    stat_kept_ancestor_covered(t, binary, d, cols)
    for path, stdin in ((os.path.join(d, 'nosuch'), None), ('', None),
                        ('/dev/stdin', subprocess.PIPE)):
        r = subprocess.run([binary, 'stat'] + cols + [path], input=b'' if stdin else None,
                           capture_output=True)
        t.check('stat %r it cannot open: exit 2 and why' % path,
                r.returncode == 2 and not r.stdout and
                (path.encode() if path else b"''") in r.stderr,
                'exit %d %r %r' % (r.returncode, r.stdout, r.stderr))


def stat_kept_ancestor_covered(t, binary, d, cols):
    """README's kept stat difference: a mount on cv covers cv/m's mount,
    and cv/m/x is a directory in the covering one. stat prints that one,
    the mount the path is on; findmnt -T (and list -T) walks the text to
    the mount point cv/m, the covered mount no path reaches."""
    cv = os.path.join(d, 'cv')
    os.makedirs(os.path.join(cv, 'm'))
    subprocess.run(['mount', '-t', 'tmpfs', 'cv-inner', os.path.join(cv, 'm')], check=True)
    subprocess.run(['mount', '-t', 'tmpfs', 'cv-cover', cv], check=True)
    try:
        path = os.path.join(cv, 'm', 'x')
        os.makedirs(path)
        fm = subprocess.run(['findmnt'] + cols + ['-T', path], capture_output=True)
        ls = subprocess.run([binary, 'list'] + cols + ['-T', path], capture_output=True)
        ms = subprocess.run([binary, 'stat'] + cols + [path], capture_output=True)
        t.check('stat under a covered mount point: the covering mount, findmnt -T the covered',
                fm.stdout.split(b' ')[:2] == [os.path.join(cv, 'm').encode(), b'cv-inner'] and
                ls.stdout == fm.stdout and ms.returncode == 0 and
                ms.stdout.split(b' ')[:2] == [cv.encode(), b'cv-cover'],
                'findmnt %r list %r stat %d %r %r' % (fm.stdout, ls.stdout, ms.returncode,
                                                      ms.stdout, ms.stderr))
    finally:
        subprocess.run(['umount', cv], capture_output=True)
        subprocess.run(['umount', os.path.join(cv, 'm')], capture_output=True)


def stat_same(t, what, binary, path, args=(), fds=(), cwd_fd=None, root=None):
    """findmnt -T PATH and mntsnap stat PATH: the same stdout, stderr and
    exit status. FDS passed on, CWD_FD the working directory (fchdir),
    ROOT a chroot with BINARY's directory at /w."""
    pre = (lambda: os.fchdir(cwd_fd)) if cwd_fd is not None else None
    fm = ['findmnt'] + list(args) + ['-T', path]
    ms = ['/w/' + os.path.basename(binary) if root else binary, 'stat'] + list(args) + [path]
    if root:
        fm, ms = ['chroot', root] + fm, ['chroot', root] + ms
    a = subprocess.run(fm, capture_output=True, pass_fds=fds, preexec_fn=pre)
    b = subprocess.run(ms, capture_output=True, pass_fds=fds, preexec_fn=pre)
    # JSON by value (mntsnap writes one record a line: kept)
    same = jload(a.stdout) == jload(b.stdout) if '-J' in args and a.stdout and b.stdout \
        else a.stdout == b.stdout
    t.check('%s: stat %s %s as findmnt -T' % (what, ' '.join(args), path),
            same and (a.returncode, norm_err(a.stderr)) == (b.returncode, norm_err(b.stderr)),
            'findmnt rc %d %r %r\nmntsnap rc %d %r %r' % (a.returncode, a.stdout, a.stderr,
                                                        b.returncode, b.stdout, b.stderr))


def stat_detached(t, binary, d):
    """A PATH on a mount lazily unmounted (umount -l: detached, in no
    namespace): a magic link to a file and to a directory there, and the
    working directory there ('.'). The mount is in no table; findmnt -T
    walks PATH's text (the link's own, as the link's target text no longer
    resolves; '.' as given, getcwd() failing) up to a mount point of the
    table, and stat answers the same, never "another namespace"."""
    det = os.path.join(d, 'det')
    os.makedirs(det)
    subprocess.run(['mount', '-t', 'tmpfs', 'det', det], check=True)
    os.makedirs(os.path.join(det, 'd'))
    open(os.path.join(det, 'f'), 'w').close()
    f = os.open(os.path.join(det, 'f'), os.O_RDONLY)
    dd = os.open(os.path.join(det, 'd'), os.O_RDONLY | os.O_DIRECTORY)
    try:
        subprocess.run(['umount', '-l', det], check=True)
        for args in ([], ['-n', '-o', 'TARGET,SOURCE,FSTYPE,ID'], ['-J']):
            for fd in (f, dd):
                stat_same(t, 'detached mount', binary, '/proc/self/fd/%d' % fd, args,
                          fds=(fd,))
            stat_same(t, 'detached mount (cwd)', binary, '.', args, cwd_fd=dd)
            stat_same(t, 'detached mount (cwd)', binary, '..', args, cwd_fd=dd)
    finally:
        os.close(f)
        os.close(dd)
        subprocess.run(['umount', det], capture_output=True)


def stat_top(t, what, binary, path, args=(), fds=(), cwd_fd=None):
    """stat PATH where findmnt -T PATH prints a stack: stat prints its top
    mount, findmnt's last row (README, kept), with findmnt's header (-r),
    JSON (-J) or pairs (-P) for that row."""
    pre = (lambda: os.fchdir(cwd_fd)) if cwd_fd is not None else None
    a = subprocess.run(['findmnt'] + list(args) + ['-T', path], capture_output=True,
                       pass_fds=fds, preexec_fn=pre)
    b = subprocess.run([binary, 'stat'] + list(args) + [path], capture_output=True,
                       pass_fds=fds, preexec_fn=pre)
    if '-J' in args:
        rows = jload(a.stdout)['filesystems'] if a.stdout else []
        want, got = rows[-1:], jload(b.stdout)['filesystems'] if b.stdout else []
    else:
        la = a.stdout.splitlines()
        head = la[:0 if '-n' in args or '-P' in args else 1]
        rows = la[len(head):]
        want, got = head + rows[-1:], b.stdout.splitlines()
    t.check('%s: stat %s %s as the top of findmnt -T\'s stack' % (what, ' '.join(args), path),
            a.returncode == 0 and len(rows) >= 2 and b.returncode == 0 and not b.stderr and
            got == want,
            'findmnt rc %d %r %r\nmntsnap rc %d %r %r' % (a.returncode, a.stdout, a.stderr,
                                                        b.returncode, b.stdout, b.stderr))


def stat_text_walk(t, binary, d):
    """stat PATH where the kernel's lookup of PATH lands on a file that
    PATH's text, resolved as findmnt resolves it (realpath(3)), no longer
    names, through no magic link to a file that still has a name: stat
    answers by the text as findmnt -T does (README). A magic link to a
    file deleted, replaced by a rename, in a removed directory, to a
    removed directory and /proc/self/cwd of one (the link's text ends in
    " (deleted)": walked up to /proc); '.' and '..' in a removed working
    directory (getcwd() fails: the text walked up to "/"); in one whose
    mount a later mount covers, '.' and '..' (getcwd()'s text names the
    covering mount's file or none: that mount's stack, stat its top, or
    nothing, exit 1). Each on a mount left uncovered and on one covered
    since. A file renamed and a working directory renamed (their paths
    still lead to them): the mount they are on, as findmnt. README's kept
    rule beside them: a magic link to a file still named (renamed), on a
    covered mount or below a directory mounted over, directly, as a
    component of PATH or through a symlink: the mount the file is on."""
    w = os.path.join(d, 'tw')
    os.makedirs(w)
    subprocess.run(['mount', '-t', 'tmpfs', 'tw', w], check=True)
    fds = []
    forms = ([], ['-r', '-n', '-o', 'TARGET,SOURCE,FSTYPE,ID'],
             ['-J', '-o', 'TARGET,SOURCE,FSTYPE,ID'])
    top_forms = (['-r', '-o', 'TARGET,SOURCE,FSTYPE,ID'], ['-P'], ['-J'])

    def fd(path, flags=os.O_RDONLY):
        fds.append(os.open(path, flags | os.O_CLOEXEC))
        return fds[-1]

    try:
        cases, got = [], {}
        for place in ('u', 'c'):
            m = os.path.join(w, place)
            os.makedirs(m)
            subprocess.run(['mount', '-t', 'tmpfs', 'tw-' + place, m], check=True)
            p = lambda x: os.path.join(m, x)
            for x in ('rmd', 'rdir', 'rcwd', 'mcwd', 'cwd', 'dir/sub', 'over'):
                os.makedirs(p(x))
            for x in ('del', 'repl', 'other', 'mv', 'rmd/f', 'over/f'):
                open(p(x), 'w').close()
            g = got[place] = {x: fd(p(x)) for x in ('del', 'repl', 'mv', 'rmd/f', 'over/f')}
            g.update({x: fd(p(x), os.O_RDONLY | os.O_DIRECTORY)
                      for x in ('rdir', 'rcwd', 'mcwd', 'cwd', 'dir', '.')})
            os.unlink(p('del'))
            os.rename(p('other'), p('repl'))
            os.rename(p('mv'), p('mv2'))
            shutil.rmtree(p('rmd'))
            os.rmdir(p('rdir'))
            os.rmdir(p('rcwd'))
            os.rename(p('mcwd'), p('mcwd2'))
            if place == 'c':
                subprocess.run(['mount', '-t', 'tmpfs', 'tw-cover', m], check=True)
            else:
                subprocess.run(['mount', '-t', 'tmpfs', 'tw-over', p('over')], check=True)
            what = 'text walk (%s mount)' % ('covered' if place == 'c' else 'uncovered')
            named = ('mv',) if place == 'u' else ()
            for name in ('del', 'repl', 'rmd/f', 'rdir') + named:
                cases.append((what + ' fd of ' + name, '/proc/self/fd/%d' % g[name],
                              (g[name],), None))
            for path in ('.', '..', '/proc/self/cwd'):
                cases.append((what + ' cwd removed', path, (), g['rcwd']))
                if place == 'u':
                    cases.append((what + ' cwd renamed', path, (), g['mcwd']))
            if place == 'c':
                cases.append((what + ' cwd', '.', (), g['cwd']))
                cases.append((what + ' cwd renamed', '.', (), g['mcwd']))
                cases.append((what + ' cwd its root', '..', (), g['.']))
        for args in forms:
            for what, path, pass_fds, cwd_fd in cases:
                stat_same(t, what, binary, path, args, fds=pass_fds, cwd_fd=cwd_fd)
        c = got['c']
        for args in top_forms:
            # getcwd()'s text names the covering mount's root: the stack there
            for name in ('cwd', 'mcwd'):
                stat_top(t, 'text walk (covered mount) cwd ' + name, binary, '..', args,
                         cwd_fd=c[name])
            stat_top(t, 'text walk (covered mount) cwd its root', binary, '.', args,
                     cwd_fd=c['.'])
        stat_text_walk_kept(t, binary, w, got)
    finally:
        for f in fds:
            os.close(f)
        subprocess.run(['umount', '-R', w], capture_output=True)


def stat_text_walk_kept(t, binary, w, got):
    """README's kept rule, as stat_text_walk() sets it up at W: a magic
    link to a file or directory still named, whose text no longer leads
    to it, prints the mount it is on; findmnt -T walks the text that
    does not resolve (the link's own: /proc; a plain symlink's: its
    directory's mount)."""
    c, u = got['c'], got['u']
    os.symlink('/proc/self/fd/%d' % c['mv'], os.path.join(w, 'lnk'))
    low, over = [os.path.join(w, 'c'), 'tw-c'], [os.path.join(w, 'u'), 'tw-u']
    proc = ['/proc', 'proc']
    # (path, fd passed, working directory, stat's mount, findmnt's)
    cases = (('/proc/self/fd/%d' % c['mv'], c['mv'], None, low, proc),
             ('/proc/self/cwd', None, c['mcwd'], low, proc),
             ('/proc/self/fd/%d/sub' % c['dir'], c['dir'], None, low, proc),
             (os.path.join(w, 'lnk'), c['mv'], None, low, [w, 'tw']),
             ('/proc/self/fd/%d' % u['over/f'], u['over/f'], None, over, proc))
    cols = ['-r', '-n', '-o', 'TARGET,SOURCE']
    for path, f, cwd_fd, want_ms, want_fm in cases:
        pre = (lambda x=cwd_fd: os.fchdir(x)) if cwd_fd is not None else None
        kw = {'pass_fds': (f,) if f is not None else (), 'preexec_fn': pre,
              'capture_output': True, 'text': True}
        ms = subprocess.run([binary, 'stat'] + cols + [path], **kw)
        fm = subprocess.run(['findmnt'] + cols + ['-T', path], **kw)
        t.check('kept stat: a link to a file still named, covered: stat %s' % path,
                ms.returncode == 0 and ms.stdout.split() == want_ms and
                fm.stdout.split() == want_fm,
                'stat rc %d %r %r; findmnt %r' % (ms.returncode, ms.stdout, ms.stderr,
                                                 fm.stdout))


def show_kept_paths(t, binary, d, snap, mi):
    """README's kept show difference, held to exactly what it says: show
    takes -M, -T and a MOUNTPOINT as the saved table's text, so a path
    written through a symlink, with "..", or relative matches by that text
    alone (-M: nothing, exit 1; -T: the longest mount point the text starts
    with), where findmnt -F on the same table resolves it on this machine.
    findmnt's answer is checked too: the README says what it does."""
    p = lambda x: os.path.join(d, x)
    up = subprocess.run(['findmnt', '-n', '-o', 'TARGET', '-T', d], capture_output=True)
    up = up.stdout.strip().decode()
    cols = ['-r', '-n', '-o', 'TARGET']
    # (args, cwd, findmnt -F's mount points, show's: [] is exit 1)
    cases = ((['-M', p('lnk')], None, [p('m')], []),
             ([p('lnk')], None, [p('m')], []),
             (['-M', p('st/../m')], None, [p('m')], []),
             (['-M', 'm'], d, [p('m')], []),
             (['m'], d, [p('m')], []),
             (['-T', p('lnk/x')], None, [p('m/x')], [up]),
             (['-T', p('m/../st')], None, [p('st')] * 2, [p('m')]))
    for args, cwd, want_fm, want_ms in cases:
        fm = subprocess.run(['findmnt', '-F', mi] + cols + args, capture_output=True, cwd=cwd)
        ms = subprocess.run([binary, 'show', snap] + cols + args, capture_output=True, cwd=cwd)
        got_fm = fm.stdout.decode().split()
        got_ms = ms.stdout.decode().split()
        t.check('show by the saved text, findmnt -F resolved: %s%s' %
                (' '.join(args), ' (in %s)' % cwd if cwd else ''),
                got_fm == want_fm and got_ms == want_ms and
                ms.returncode == (0 if want_ms else 1) and not ms.stderr,
                'findmnt %r, want %r\nmntsnap %d %r %r, want %r' %
                (got_fm, want_fm, ms.returncode, got_ms, ms.stderr, want_ms))


def target_lookups_inner(binary, base):
    """In a private mount namespace already: tmpfs mounts at m (with one on
    m/x below it), a stack of two at st, named through a symlink, with
    slashes repeated or trailing, relative to the working directory; both
    backends, and show on the table saved. Prints the tally as JSON."""
    t = Tally()
    d = os.path.join(base, 'tgtlive')
    for sub in ('m', 'st'):
        os.makedirs(os.path.join(d, sub))
    os.symlink('m', os.path.join(d, 'lnk'))
    mounted = []
    try:
        for src, mp in (('tl-m', 'm'), ('tl-mx', 'm/x'), ('tl-st1', 'st'), ('tl-st2', 'st'),
                        ('tl-lab', 'LABEL=tl'), ('tl-uuid', 'UUID=tu')):
            mp = os.path.join(d, mp)
            os.makedirs(mp, exist_ok=True)
            subprocess.run(['mount', '-t', 'tmpfs', src, mp], check=True)
            mounted.append(mp)
        os.makedirs(os.path.join(d, 'm', 'x', 'y'))
        p = lambda x: os.path.join(d, x)
        sets = target_lookup_sets([p('m'), p('st'), p('lnk'), p('m/x')],
                                  [p('m/x/y'), p('lnk/x/y'), p('m//x/y/'), p('st/q')])
        # the matching is the same code on either capture: the text
        # backend on the first path's lookups only, for the suite's time
        for backend, n in (('statmount', len(sets)), ('mountinfo', len(sets) // 4)):
            ms = ('list', '--backend', backend)
            for args in sets[:n]:
                lookup_pair(t, 'target lookup live(%s)' % backend, binary, ['-r'] + args,
                            ms_cmd=ms)
            for args in (['-M', 'm/'], ['-T', 'm/x/y'], ['-C', '-M', 'm'], ['-C', '-T', 'lnk/x'],
                         ['m'], ['-R', '-M', './m'], ['-f', 'LABEL=tl', '/x'],
                         ['-f', 'UUID=tu', '/'], ['-f', '-C', 'LABEL=tl', '/x'], ['-f', 'LABEL=tl']):
                lookup_pair(t, 'target lookup live(%s)' % backend, binary, ['-r'] + args,
                            cwd=d, ms_cmd=ms)
        stat_kept(t, binary, d)
        stat_detached(t, binary, d)
        stat_text_walk(t, binary, d)
        # a tmpfs whose source is the empty string (mount(2) takes it)
        e = p('empty')
        os.makedirs(e)
        raw_mount('', e, 'tmpfs')
        mounted.append(e)
        for args in ([], ['-M', e], ['-i', '-M', '/'], ['-i', '-T', '/'], ['-i', '-S', '/'],
                     ['-R', '/'], ['-U', '-R', d], ['-U', '-M', e], ['-U', '-t', 'tmpfs', '-R', d]):
            empty_source_kept(t, 'empty source live', binary, args, (e,))
        # a saved table: its paths by their text, never resolved
        snap = os.path.join(base, 'tgtlive.snap')
        r = subprocess.run([binary, 'save', '--no-sync', snap], capture_output=True)
        t.check('target lookup save', r.returncode == 0, r.stderr.decode(errors='replace'))
        for args in (['-M', p('m/')], ['-M', p('m').replace('/', '//')], ['-R', '-M', p('m') + '//'],
                     ['-T', p('st/')], [p('m/x') + '/'], ['-T', p('m//x/y')]):
            lookup_pair(t, 'target lookup show', binary, ['-r'] + args, ms_cmd=('show', snap))
        mi = os.path.join(base, 'tgtlive.mi')
        with open('/proc/self/mountinfo', 'rb') as src, open(mi, 'wb') as dst:
            dst.write(src.read())
        show_kept_paths(t, binary, d, snap, mi)
    finally:
        for mp in reversed(mounted):
            subprocess.run(['umount', mp], capture_output=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def target_lookups(t, binary, base):
    target_lookups_file(t, binary, base)
    empty_source_file(t, binary, base)
    uniq_targets_file(t, binary, base)
    private_ns_part(t, '--target-lookups', binary, base, 'target lookups live')


TAB_UUID_COLS = 'TARGET,SOURCE,UUID,LABEL,PARTUUID,PARTLABEL'


def tab_uuid_inner(binary, base):
    """In a private mount namespace already: an ext4 with a label and a
    UUID on a loop device, mounted, the table saved; findmnt -F and mntsnap
    list -F compared on the tag columns (libblkid, as findmnt's cache).
    Prints the tally as JSON on its last line."""
    t = Tally()
    dev = loop_image(base, 'uuid.img', 'saved-table UUID')
    if dev is None:
        return 0
    mnt = os.path.join(base, 'umnt')
    try:
        subprocess.run(['mkfs.ext4', '-q', '-F', '-L', 'fmeq-uuid', '-U',
                        '11111111-2222-3333-4444-%012d' % os.getpid(), dev],
                       check=True, capture_output=True)
        os.makedirs(mnt)
        subprocess.run(['mount', '-t', 'ext4', dev, mnt], check=True)
        mi = os.path.join(base, 'saved.mi')
        shutil.copy('/proc/self/mountinfo', mi)
        for args in (['-o', TAB_UUID_COLS], ['-J', '-o', TAB_UUID_COLS], ['-l', '-o', TAB_UUID_COLS],
                     ['-r', '-o', TAB_UUID_COLS], ['-P', '-o', TAB_UUID_COLS],
                     ['-C', '-o', TAB_UUID_COLS], ['-C', '-J', '-o', TAB_UUID_COLS],
                     ['--output-all'], ['-J', '--output-all'], ['-o', 'UUID']):
            args = ['-F', mi, '-M', mnt] + args
            fstab_same(t, 'saved-table uuid', args, [binary, 'list'] + args,
                       json_out='-J' in args)
        # the live table already agreed: it still does
        for args in (['-M', mnt, '-o', TAB_UUID_COLS], ['-M', mnt, '-J', '-o', TAB_UUID_COLS]):
            fstab_same(t, 'live uuid', args, [binary, 'list'] + args, json_out='-J' in args)
        # stat PATH -S TAG: findmnt -T PATH -S TAG, the tag evaluated to its device
        uuid = '11111111-2222-3333-4444-%012d' % os.getpid()
        for tag in ('LABEL=fmeq-uuid', 'UUID=' + uuid, 'LABEL=fmeq-none', 'UUID=' + uuid[:-1] + 'f'):
            for form in (['-l'], ['-J'], ['-P']):
                args = ['-S', tag, '-o', 'TARGET,SOURCE,FSTYPE'] + form
                fstab_same(t, 'stat -S %s' % tag, args + ['-T', mnt], [binary, 'stat'] + args + [mnt],
                           json_out='-J' in form)
        show_tags(t, binary, base, mnt, uuid)
    finally:
        subprocess.run(['umount', os.path.join(base, 'ubind')], capture_output=True)
        subprocess.run(['umount', mnt], capture_output=True)
        subprocess.run(['losetup', '-d', dev], capture_output=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def utab_order_inner(binary, base):
    """In a private mount namespace already: -m when the utab holds more
    than one line for the same source, mount point and root (the source
    mounted twice there, or a stale line left behind). libmount 2.38 walks
    the utab from its last line to its first and gives each line to the
    last mount of the table (the top of a stack) that matches and has no
    line yet, so the last line names the top mount. list, -x -m and -p -m,
    on one mount, a stack of two and of three. Prints the tally as JSON
    on its last line."""
    t = Tally()
    d = os.path.join(base, 'uo')
    os.makedirs(d)
    utab = os.path.join(base, 'uo.utab')
    env = dict(os.environ, LIBMOUNT_UTAB=utab)
    lines = ['SRC=uo TARGET=%s ROOT=/ OPTS=x-first' % d,
             'SRC=uo TARGET=%s/ ROOT=/ OPTS=x-second,noauto' % d,
             'SRC=other TARGET=%s ROOT=/ OPTS=x-other' % d,
             'SRC=uo TARGET=%s ROOT=/ ATTRS=attr-only' % d,
             'SRC=uo TARGET=%s ROOT=/ OPTS=x-third' % d]
    sets = [['-m', '-M', d], ['-m', '-M', d, '-O', 'x-first'], ['-m', '-M', d, '-O', 'x-second'],
            ['-m', '-M', d, '-O', 'x-third'], ['-m', '-M', d, '-J'],
            ['-m', '-M', d, '-o', 'TARGET,OPTIONS,ID', '-r']]
    blk = blkid_or_skip(t, binary, '/dev/null', 'utab order -x')
    try:
        for depth in (1, 2, 3):
            subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=1m', 'uo', d], check=True)
            for k in (2, 4, 5):
                with open(utab, 'w') as f:
                    f.write(''.join(ln + '\n' for ln in lines[:k]))
                name = 'utab order: %d mounts, %d utab lines' % (depth, k)
                for args in sets:
                    fstab_same(t, name, args, [binary, 'list'] + args, env=env,
                               json_out='-J' in args)
                if blk:
                    args = ['-m', '-x', '--verbose', '-M', d]
                    fstab_same(t, name, args, [binary, 'list'] + args, env=env)
        # -p -m: an umount's record is the mtab's, with the utab line -m
        # gave it; one mount (findmnt's -p pairs a stack's mounts, kept)
        subprocess.run(['umount', d], check=True)
        subprocess.run(['umount', d], check=True)
        poll_history(t, 'utab order -p -m:', binary,
                     [['-m', '-p'], ['-m', '-p', '-o', '+OLD-OPTIONS', '-r']],
                     ['umount %s' % d], env, base)
    finally:
        subprocess.run(['umount', '-R', '-l', d], capture_output=True)
    utab_lines(t, binary, base)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


# Shell function for the chroot set-ups below: bind_system_dirs ROOT HOW
# puts the caller's /usr, /bin, /lib and /lib64 in ROOT (a symlink copied
# as a symlink, a directory mounted with HOW: --bind or --rbind), so that
# findmnt, the CLI and sh run there.
BIND_SYSTEM_DIRS = r"""
bind_system_dirs() {
    for d in usr bin lib lib64; do
        [ -e /$d ] || continue
        if [ -L /$d ]; then ln -s "$(readlink /$d)" $1/$d; else mkdir $1/$d; mount $2 /$d $1/$d; fi
    done
}
"""

# A task whose slave's master group has no mount where the task looks
# from, while the master's master does: /proc/PID/mountinfo (what findmnt
# -N reads) says "master:2 propagate_from:1", the dominating group as seen
# from the task's root. cr/z is a slave of y (outside cr), itself a slave
# of cr/x. $1 the base, $2 "same" (chroot()ed into cr, in this namespace),
# "own" (the same in a namespace of its own) or "ownroot" (not chroot()ed,
# in a namespace of its own whose copy of y has left its group: z's master
# group has no mount there, x's has), $3 the directory's name, $4 "sub":
# cr/x/sub made, for a mount there to propagate to cr/z/sub.
CHROOT_TASK = BIND_SYSTEM_DIRS + r"""
set -e
B=$1/$3-$2
mkdir -p $B
mount -t tmpfs $3 $B
mkdir -p $B/cr/sub $B/cr/m1 $B/cr/m2 $B/cr/x $B/cr/z $B/y $B/out $B/out2
bind_system_dirs $B/cr --bind
mount -t tmpfs X $B/cr/x
[ "$4" != sub ] || mkdir $B/cr/x/sub
mount --make-shared $B/cr/x
mount --bind $B/cr/x $B/y
mount --make-slave $B/y
mount --make-shared $B/y
mount --bind $B/y $B/cr/z
mount --make-slave $B/cr/z
echo ready
if [ "$2" = own ]; then
    exec unshare -m --propagation unchanged chroot $B/cr sleep 120
fi
if [ "$2" = ownroot ]; then
    exec unshare -m --propagation unchanged sh -c "mount --make-private $B/y; exec sleep 120"
fi
exec chroot $B/cr sleep 120
"""


def chroot_task(t, name, base, where, prefix, x_sub=False):
    """CHROOT_TASK started in base/PREFIX-WHERE (x_sub: with cr/x/sub), once
    its mountinfo shows z's propagate_from: (the Popen, the task's path of
    cr, the directory), or None after checking the setup failed."""
    d = os.path.join(base, '%s-%s' % (prefix, where))
    root = os.path.join(d, 'cr') if where == 'ownroot' else ''
    p = subprocess.Popen(['sh', '-c', CHROOT_TASK, 'sh', base, where, prefix,
                          'sub' if x_sub else ''],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.stdout.readline().strip() != b'ready':
        t.check('%s setup' % name, False, p.stderr.read().decode(errors='replace'))
        p.kill()
        p.wait()
        return None
    for _ in range(100):  # the exec of unshare/chroot and sleep
        try:
            with open('/proc/%d/mountinfo' % p.pid) as f:
                if any(' %s/z ' % root in ln and 'propagate_from' in ln for ln in f):
                    break
        except OSError:
            pass
        time.sleep(0.05)
    return p, root, d


def task_chroot_pf(t, binary, base, where):
    """-N PID and stat -N PID of a chroot()ed task, or of one in another
    namespace (ownroot): OPT-FIELDS as the task's mountinfo shows them,
    propagate_from relative to its root."""
    name = 'chroot task (%s)' % where
    task = chroot_task(t, name, base, where, 'chr')
    if not task:
        return
    p, root, _ = task
    z = root + '/z'
    try:
        pid = str(p.pid)
        for backend in ('statmount', 'mountinfo'):
            for args in (['-o', 'TARGET,OPT-FIELDS,PROPAGATION', '-t', 'tmpfs'],
                         ['-J', '-o', 'TARGET,OPT-FIELDS', '-M', z],
                         ['-r', '-o', 'TARGET,OPT-FIELDS']):
                fstab_same(t, '%s list %s' % (name, backend), ['-N', pid] + args,
                           [binary, 'list', '--backend', backend, '-N', pid] + args,
                           json_out='-J' in args)
        # a namespace handle: statmount from here has no propagate_from
        # (no mount of that namespace is under this root), the text inside has
        if where == 'ownroot':
            args = ['-o', 'TARGET,OPT-FIELDS', '-t', 'tmpfs']
            fstab_same(t, '%s list --ns' % name, ['-N', pid] + args,
                       [binary, 'list', '--ns', '/proc/%s/ns/mnt' % pid] + args)
        for args in (['-o', 'TARGET,OPT-FIELDS'], ['-J', '-o', 'TARGET,OPT-FIELDS,PROPAGATION']):
            fstab_same(t, '%s stat -N PID %s' % (name, z), ['-N', pid, '-T', z] + args,
                       [binary, 'stat', '-N', pid] + args + [z], json_out='-J' in args)
    finally:
        p.kill()
        p.wait()


# Tasks whose root reaches no mount of their namespace, or one only:
# show_mountinfo() prints a mount only if seq_path_root() of its mount
# point meets the task's root walking up (else SEQ_SKIP), so
# /proc/PID/mountinfo is empty for a root on a mount lazily unmounted
# (in this namespace, "lazy", or in one of the task's own, "lazy-own":
# the whole tree is detached) and for a directory since removed (removing
# detaches every mount on or below it, "rmdir"), and holds that mount
# alone for a removed directory that is a bind mount's root ("rmdir-bind",
# readlink of /proc/PID/root then ends in " (deleted)").
# Run in the namespace (cwd the base): $1 the base, $2 the case; prints
# the pid of the chroot()ed task, then waits for it.
LAZY_ROOT_TASK = BIND_SYSTEM_DIRS + r"""
set -e
R=$1/ur-$2
mkdir -p $R
mount -t tmpfs urroot $R
mkdir -p $R/in
bind_system_dirs $R --bind
mount -t tmpfs urin $R/in
chroot $R sleep 120 &
pid=$!
# chroot(1) has its root at $R before it runs sleep: the lazy umount waits
# for the exec too, else (a loaded machine) sleep is looked up in the
# detached tree, where the bound system directories are gone
while [ "$(readlink /proc/$pid/root)" != "$R" ] || [ "$(cat /proc/$pid/comm)" != sleep ]; do
	sleep 0.02
done
umount -l $R
echo $pid
wait
"""
REMOVED_ROOT_TASK = ('import os, sys, time\n'
                     'os.chroot(sys.argv[1]); os.chdir("/"); print(os.getpid(), flush=True)\n'
                     'time.sleep(120)\n')


@contextlib.contextmanager
def unreached_root_task(t, base, case):
    """A task of one of the cases above: its pid as a string, or None
    after a failed check. Killed and cleaned up on the way out."""
    d = os.path.join(base, 'ur-' + case)
    p, pid = None, None
    try:
        if case.startswith('lazy'):
            cmd = ['sh', '-c', LAZY_ROOT_TASK, 'sh', base, case]
            if case == 'lazy-own':
                cmd = ['unshare', '-m', '--propagation', 'private'] + cmd
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        else:
            os.makedirs(os.path.join(d, 'src'), exist_ok=True)
            root = os.path.join(d, 'src')
            if case == 'rmdir-bind':
                root = os.path.join(d, 'c')
                os.makedirs(root, exist_ok=True)
                subprocess.run(['mount', '--bind', os.path.join(d, 'src'), root], check=True)
            p = subprocess.Popen([sys.executable, '-c', REMOVED_ROOT_TASK, root],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = p.stdout.readline().strip().decode()
        n = -1
        if line.isdigit():
            if not case.startswith('lazy'):
                os.rmdir(os.path.join(d, 'src'))
            with open('/proc/%s/mountinfo' % line, 'rb') as f:
                n = len(f.read().splitlines())
        ok = n == (1 if case == 'rmdir-bind' else 0)
        t.check('unreached root (%s) setup: the task\'s mountinfo' % case, ok,
                'pid %r, %d lines' % (line, n))
        if ok:
            pid = line
        yield pid
    finally:
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
        if p:
            p.kill()
            p.wait()
        if case == 'rmdir-bind':
            subprocess.run(['umount', os.path.join(d, 'c')], capture_output=True)


UNREACHED_CASES = ('lazy', 'lazy-own', 'rmdir', 'rmdir-bind')


def unreached_root(t, binary, base):
    """-N PID of a task whose root reaches no mount (or one) of its
    namespace: list in every form through both backends and stat -N PID
    PATH, as findmnt reads its /proc/PID/mountinfo (empty: nothing, exit
    1; the bind mount alone at /)."""
    for case in UNREACHED_CASES:
        with unreached_root_task(t, base, case) as pid:
            if not pid:
                continue
            name = 'unreached root (%s)' % case
            for backend in ('statmount', 'mountinfo'):
                for args in ([], ['-J'], ['-l', '-o', 'TARGET,SOURCE,FSROOT,FSTYPE'], ['-r'],
                             ['-P', '-o', 'TARGET,ID,PARENT,PROPAGATION,OPT-FIELDS'],
                             ['-t', 'tmpfs'], ['-M', '/'], ['-T', '/usr'], ['-D'],
                             ['--shadowed', '-R', '-M', '/']):
                    fstab_same(t, '%s list %s' % (name, backend), ['-N', pid] + args,
                               [binary, 'list', '--backend', backend, '-N', pid] + args,
                               json_out='-J' in args)
            for path in ('/', '/usr', '/in') if case.startswith('lazy') else ('/',):
                for args in (['-o', 'TARGET,SOURCE,FSROOT'], ['-J']):
                    fstab_same(t, '%s stat -N PID %s' % (name, path),
                               ['-N', pid, '-T', path] + args,
                               [binary, 'stat', '-N', pid] + args + [path],
                               json_out='-J' in args)


# Callers without ptrace read access to a root-owned task, which still
# read its world-readable mountinfo: an unprivileged user, and root
# lacking capabilities the task holds (and CAP_SYS_PTRACE, which would
# override that).
NO_ACCESS_CALLERS = (
    ('uid 65534', ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--']),
    ('root without cap_checkpoint_restore',
     ['setpriv', '--bounding-set=-sys_ptrace,-checkpoint_restore', '--']),
)


def stat_no_task_access(t, binary, base):
    """stat -N PID PATH by a caller that may not open /proc/PID/root:
    findmnt -N PID -T PATH reads the task's mountinfo and looks PATH up
    by its text; stat answers the same (a mount point, a file below it,
    a plain directory, a missing path, /), in list and JSON form. Of two
    mounts stacked on PATH findmnt prints each; stat the top one (kept,
    README: stat's stack rule), list -N PID -T PATH each."""
    if not shutil.which('setpriv'):
        print('SKIP stat -N without task access: no setpriv(1)')
        t.skipped += 1
        return
    d = os.path.join(base, 'noacc')
    a = os.path.join(d, 'a')
    os.makedirs(d)
    subprocess.run(['mount', '-t', 'tmpfs', 'noacc', d], check=True)
    os.chmod(d, 0o755)
    os.chmod(base, 0o755)
    sleeper = None
    try:
        os.makedirs(a)
        subprocess.run(['mount', '-t', 'tmpfs', 'noacc-a', a], check=True)
        os.chmod(a, 0o755)
        os.makedirs(os.path.join(d, 'plain'))
        open(os.path.join(a, 'f'), 'w').close()
        st = os.path.join(d, 'st')
        os.makedirs(st)
        for name in ('noacc-lower', 'noacc-upper'):
            subprocess.run(['mount', '-t', 'tmpfs', name, st], check=True)
        sleeper = subprocess.Popen(['sleep', '60'])
        pid = str(sleeper.pid)
        for who, pre in NO_ACCESS_CALLERS:
            probe = subprocess.run(pre + [binary, '--version'], capture_output=True)
            if probe.returncode:
                print('SKIP stat -N as %s: %s not executable there' % (who, binary))
                t.skipped += 1
                continue
            root = subprocess.run(pre + ['ls', '/proc/%s/root/' % pid], capture_output=True)
            t.check('stat -N without task access (%s) setup: /proc/PID/root closed' % who,
                    root.returncode != 0, 'ls exit %d' % root.returncode)
            for path in (a, os.path.join(a, 'f'), os.path.join(d, 'plain'),
                         os.path.join(a, 'missing'), '/'):
                for args in (['-o', 'TARGET,SOURCE,FSROOT,FSTYPE'], ['-J'],
                             ['-r', '-n', '-o', 'SOURCE,TID']):
                    fm = run(pre + ['findmnt', '-N', pid] + args + ['-T', path])
                    ms = run(pre + [binary, 'stat', '-N', pid] + args + [path])
                    same = fm[0] == ms[0] and norm_err(fm[2]) == norm_err(ms[2]) and (
                        jload(fm[1]) == jload(ms[1]) if '-J' in args and fm[1] and ms[1]
                        else fm[1] == ms[1])
                    t.check('stat -N PID without task access (%s): %s %s'
                            % (who, ' '.join(args), path), same,
                            'findmnt %r\n  mntsnap %r' % (fm, ms))
            args = ['-r', '-n', '-o', 'SOURCE']
            fm = run(pre + ['findmnt', '-N', pid] + args + ['-T', st])
            ls = run(pre + [binary, 'list', '-N', pid] + args + ['-T', st])
            ms = run(pre + [binary, 'stat', '-N', pid] + args + [st])
            t.check('stat -N PID without task access (%s), a stack (kept: the top one)' % who,
                    fm == ls == (0, b'noacc-lower\nnoacc-upper\n', b'') and
                    ms == (0, b'noacc-upper\n', b''),
                    'findmnt %r\n  list %r\n  stat %r' % (fm, ls, ms))
    finally:
        if sleeper:
            sleeper.kill()
            sleeper.wait()
        subprocess.run(['umount', '-R', d], capture_output=True)


# A chroot without a procfs at its /proc (np/root, a tmpfs): a tmpfs with
# a mount below it, a bind of a subdirectory and the binary's directory (w).
NO_PROCFS_ROOT = BIND_SYSTEM_DIRS + r"""
set -e
R=$1/np/root
mkdir -p $R
mount -t tmpfs nproot $R
mkdir -p $R/proc $R/w $R/mnt $R/x
bind_system_dirs $R --rbind
mount --bind $2 $R/w
mount -t tmpfs npmnt $R/mnt
mkdir $R/mnt/sub $R/mnt/d
mount -t tmpfs npsub $R/mnt/sub
mount --bind $R/mnt/d $R/x
"""


def sanitizer_build(binary):
    """Whether BINARY carries AddressSanitizer's runtime."""
    with open(binary, 'rb') as fh:
        return b'__asan_init' in fh.read()


def no_procfs(t, binary, base):
    """Kept (README): with no procfs at /proc, list and stat answer from
    listmount and statmount: the table the caller's root reaches, equal
    to findmnt's reading of it with a procfs (-F /proc/PID/mountinfo of a
    task chroot()ed there, -T PATH as that table's mount point), where
    findmnt fails ("can't read"); what needs a procfs is a clear error,
    exit 2: -N PID (the task's root), the mountinfo backend, -p."""
    if sanitizer_build(binary):
        # The sanitizers' runtime cannot run there: it reads its options
        # from /proc/self/environ (ASAN_OPTIONS has no effect) and
        # LeakSanitizer stops the threads through /proc/self/task, so every
        # exit is its "fatal error", status 1. The plain build runs these.
        print('SKIP no procfs at /proc: a sanitizer build needs a procfs')
        t.skipped += 1
        return
    r = subprocess.run(['sh', '-c', NO_PROCFS_ROOT, 'sh', base,
                        os.path.dirname(os.path.abspath(binary))], capture_output=True)
    t.check('no procfs setup', not r.returncode, r.stderr.decode(errors='replace'))
    if r.returncode:
        return
    root = os.path.join(base, 'np', 'root')
    ms = ['chroot', root, '/w/' + os.path.basename(binary)]
    task = subprocess.Popen(['chroot', root, 'sleep', '120'])
    try:
        mi = '/proc/%d/mountinfo' % task.pid
        for _ in range(100):  # the chroot, then the exec of sleep
            if os.readlink('/proc/%d/root' % task.pid) == root:
                break
            time.sleep(0.05)
        ra, a, ea = run(['chroot', root, 'findmnt'])
        t.check('no procfs: findmnt in the chroot fails', ra == 1 and b"can't read" in ea,
                'rc %d %r %r' % (ra, a, ea))
        cols = 'TARGET,SOURCE,FSTYPE,OPTIONS,FSROOT,ID,PARENT,PROPAGATION,OPT-FIELDS'
        for args in ([], ['-J'], ['-l'], ['-r', '-o', cols], ['-P', '-o', cols], ['-t', 'tmpfs'],
                     ['-M', '/mnt/sub'], ['-R', '-M', '/mnt'], ['-U', '-l'], ['-f', '-S', 'npsub']):
            fstab_same(t, 'no procfs: list', ['-F', mi] + args, ms + ['list'] + args,
                       json_out='-J' in args)
        for path in ('/mnt', '/mnt/sub', '/x', '/usr'):
            for args in (['-o', 'TARGET,SOURCE,FSROOT,ID'], ['-J']):
                fstab_same(t, 'no procfs: stat %s' % path, ['-F', mi, '-T', path] + args,
                           ms + ['stat'] + args + [path], json_out='-J' in args)
        for args, says in ((['list', '-N', str(task.pid)], 'no procfs at /proc'),
                           (['stat', '-N', str(task.pid), '/mnt'], 'no procfs at /proc'),
                           (['list', '-p', '-N', str(task.pid)], 'no procfs at /proc'),
                           (['list', '--backend', 'mountinfo'], 'procfs'),
                           (['list', '-F', '/proc/self/mountinfo'], "can't read"),
                           (['list', '-p'], 'no way to watch')):
            try:
                rc, out, err = kept_run(ms[0], ms[1:] + args, secs=20)
            except subprocess.TimeoutExpired:
                rc, out, err = -1, '', 'still running after 20 s'
            t.check('no procfs: %s is an error that says why' % ' '.join(args),
                    rc == 2 and not out and says in err, 'rc %d out %r err %r' % (rc, out, err))
    finally:
        task.kill()
        task.wait()
        subprocess.run(['umount', '-R', '-l', root], capture_output=True)


def kept_run(binary, args, cwd=None, secs=10):
    r = subprocess.run([binary] + args, capture_output=True, cwd=cwd, timeout=secs)
    return r.returncode, r.stdout.decode(errors='replace'), r.stderr.decode(errors='replace')


def stat_kept_other_ns(t, binary, base):
    """README's kept stat rules that need a namespace of another process:
    a PATH into it (/proc/PID/root/...) is an error that names -N PID; -N
    PID PATH resolves PATH in the task's namespace (findmnt -N -T stats
    it in its own, where it is not: exit 1)."""
    d = os.path.join(base, 'kept-ns')
    os.makedirs(d)
    with ns_task(t, 'kept stat: other namespace',
                 'mount -t tmpfs kept-ns "$1" && mkdir "$1/in" && echo ready && exec sleep 120',
                 d) as pid:
        if not pid:
            return
        for path in ('/proc/%s/root' % pid, '/proc/%s/root%s' % (pid, d), '/proc/%s/cwd' % pid):
            rc, out, err = kept_run(binary, ['stat', path])
            t.check('kept stat: a path into another namespace names -N: stat %s' % path,
                    rc == 2 and not out and 'another mount namespace' in err and
                    '-N PID' in err, 'rc %d out %r err %r' % (rc, out, err))
        rc, out, err = kept_run(binary, ['stat', '-N', pid, '-n', '-o', 'TARGET,SOURCE',
                                         os.path.join(d, 'in')])
        fm = subprocess.run(['findmnt', '-N', pid, '-n', '-o', 'TARGET,SOURCE', '-T',
                             os.path.join(d, 'in')], capture_output=True)
        t.check('kept stat: -N PID PATH resolves PATH in the task\'s namespace',
                rc == 0 and out.split() == [d, 'kept-ns'] and fm.returncode == 1,
                'rc %d out %r err %r; findmnt rc %d' % (rc, out, err, fm.returncode))


def stat_kept_covered(t, binary, base):
    """README's kept rule: stat of a magic link in this namespace
    (/proc/self/fd/N, /proc/PID/cwd) to a directory on a mount since
    covered by another prints the covered mount the link reaches; findmnt
    -T (and list -T) walk the link's text, which no longer resolves, up to
    /proc. A link to a directory that still resolves: the same mount as
    findmnt's."""
    d = os.path.join(base, 'kept-cov')
    a = os.path.join(d, 'a')
    os.makedirs(d)
    subprocess.run(['mount', '-t', 'tmpfs', 'kept-cov', d], check=True)
    os.makedirs(a)
    subprocess.run(['mount', '-t', 'tmpfs', 'cov-low', a], check=True)
    os.makedirs(os.path.join(a, 's1'))
    low = os.open(os.path.join(a, 's1'), os.O_RDONLY | os.O_DIRECTORY)
    sleeper = subprocess.Popen(['sleep', '60'], cwd=os.path.join(a, 's1'))
    top = -1
    try:
        subprocess.run(['mount', '-t', 'tmpfs', 'cov-top', a], check=True)
        os.makedirs(os.path.join(a, 's2'))
        top = os.open(os.path.join(a, 's2'), os.O_RDONLY | os.O_DIRECTORY)
        low_id = subprocess.run(['findmnt', '-rno', 'ID', '-S', 'cov-low'], capture_output=True,
                                text=True).stdout.strip()
        cols = ['-n', '-r', '-o', 'TARGET,SOURCE,ID']
        for path, fd in (('/proc/self/fd/%d' % low, low), ('/proc/%d/cwd' % sleeper.pid, None)):
            kw = {'pass_fds': (fd,)} if fd is not None else {}
            ms = subprocess.run([binary, 'stat'] + cols + [path], capture_output=True,
                                text=True, **kw)
            fm = subprocess.run(['findmnt'] + cols + ['-T', path], capture_output=True,
                                text=True, **kw)
            ls = subprocess.run([binary, 'list'] + cols + ['-T', path], capture_output=True,
                                text=True, **kw)
            t.check('kept stat: a link in this namespace to a covered mount: stat %s' % path,
                    ms.returncode == 0 and ms.stdout.split() == [a, 'cov-low', low_id] and
                    fm.returncode == 0 and fm.stdout.split()[:2] == ['/proc', 'proc'] and
                    ls.stdout == fm.stdout and ls.returncode == 0,
                    'stat rc %d %r %r; findmnt %r; list %r' % (ms.returncode, ms.stdout,
                                                               ms.stderr, fm.stdout, ls.stdout))
        path = '/proc/self/fd/%d' % top
        ms = subprocess.run([binary, 'stat'] + cols + [path], capture_output=True, text=True,
                            pass_fds=(top,))
        fm = subprocess.run(['findmnt'] + cols + ['-T', path], capture_output=True, text=True,
                            pass_fds=(top,))
        # (a is a stack: findmnt prints each mount, stat the top one, kept)
        t.check('kept stat: a link in this namespace that resolves: findmnt\'s mount',
                ms.returncode == 0 and ms.stdout == fm.stdout.splitlines(True)[-1] and
                ms.stdout.split()[:2] ==
                [a, 'cov-top'], 'stat %r %r; findmnt %r' % (ms.stdout, ms.stderr, fm.stdout))
    finally:
        sleeper.kill()
        sleeper.wait()
        os.close(low)
        if top >= 0:
            os.close(top)
        subprocess.run(['umount', '-R', d], capture_output=True)


def stat_kept_number(t, binary, base):
    """README's kept rule: stat N takes a bare number as a /proc mount id,
    ./N is the path (findmnt -T N: the path)."""
    d = os.path.join(base, 'kept-num')
    os.makedirs(d)
    subprocess.run(['mount', '-t', 'tmpfs', 'kept-num', d], check=True)
    sub = os.path.join(d, 'sub')
    os.makedirs(sub)
    subprocess.run(['mount', '-t', 'tmpfs', 'kept-sub', sub], check=True)
    try:
        mid = subprocess.run(['findmnt', '-no', 'ID', sub], capture_output=True,
                             text=True).stdout.strip()
        os.makedirs(os.path.join(d, mid))
        rc, out, err = kept_run(binary, ['stat', '-n', '-o', 'TARGET', mid], cwd=d)
        t.check('kept stat: a bare number is a mount id', rc == 0 and out.strip() == sub,
                'rc %d out %r err %r' % (rc, out, err))
        rc, out, err = kept_run(binary, ['stat', '-n', '-o', 'TARGET', './' + mid], cwd=d)
        t.check('kept stat: ./N is a path', rc == 0 and out.strip() == d,
                'rc %d out %r err %r' % (rc, out, err))
    finally:
        subprocess.run(['umount', sub], capture_output=True)
        subprocess.run(['umount', d], capture_output=True)


def poll_kept_task_exit(t, binary, base):
    """README's kept rule: -p -N PID (and -p -F /proc/PID/mountinfo) stops
    with a message, exit 0, when the task exits (findmnt polls on)."""
    for form in ('-N', '-F'):
        p = subprocess.Popen(['unshare', '-m', '--propagation', 'private', 'sh', '-c',
                              'sleep 1.5; exit 0'])
        args = ['list', '-p', '-N', str(p.pid)] if form == '-N' else \
            ['list', '-p', '-F', '/proc/%d/mountinfo' % p.pid]
        try:
            t0 = time.monotonic()
            rc, out, err = kept_run(binary, args, secs=15)
            took = time.monotonic() - t0
        except subprocess.TimeoutExpired:
            rc, err, took = -1, 'still polling after 15 s', 15
        p.wait()
        t.check('kept poll: %s stops when the task exits' % ' '.join(args[:3]),
                rc == 0 and 'the target process has exited' in err and took < 15,
                'rc %d err %r after %.1f s' % (rc, err, took))


# A caller chroot()ed into a plain directory (cc/sub) of a tmpfs (cc), with
# a mount inside (a), one outside (out, beside sub), a procfs and the
# binary's directory (w): its table is what its root reaches, as its
# /proc/self/mountinfo, and a task's (-N) what the task's root reaches.
CHROOTED_CALLER = BIND_SYSTEM_DIRS + r"""
set -e
B=$1/cc
S=$B/sub
mkdir -p $B
mount -t tmpfs ccroot $B
mkdir -p $S/a $S/proc $S/w $B/out
bind_system_dirs $S --rbind
mount -t proc proc $S/proc
mount --bind $2 $S/w
mount -t tmpfs ina $S/a
mount -t tmpfs outm $B/out
"""


def chrooted_caller_setup(t, binary, base, what):
    """CHROOTED_CALLER's chroot under BASE with BINARY's directory in it:
    True, or a failed check named WHAT."""
    r = subprocess.run(['sh', '-c', CHROOTED_CALLER, 'sh', base,
                        os.path.dirname(os.path.abspath(binary))], capture_output=True)
    t.check(what, not r.returncode, r.stderr.decode(errors='replace'))
    return not r.returncode


def chrooted_caller(t, binary, base):
    """findmnt and mntsnap run in a chroot (findmnt reads the chroot's
    /proc/self/mountinfo and, for -N, the task's): stat of a path on the
    mount outside the root (/) finds nothing, exit 1; stat -N PID and
    list -N PID of a task not chrooted are its view, the mounts outside
    the caller's root included; list through statmount is the chroot's
    view (it failed as "kept changing" before). -N PID of a task chroot()ed
    into the caller's own plain directory is that task's mountinfo, whose
    root's mount the caller's capture lacks (its root does not reach it):
    not a root that reaches no mount."""
    if not chrooted_caller_setup(t, binary, base, 'chrooted caller setup'):
        return
    sub = os.path.join(base, 'cc/sub')
    out = os.path.join(base, 'cc/out')
    ms = '/w/' + os.path.basename(binary)
    task = subprocess.Popen(['sleep', '120'])
    pid = str(task.pid)
    peer = subprocess.Popen(['chroot', sub, 'sleep', '120'])
    pid2 = str(peer.pid)
    cols = ['-o', 'TARGET,SOURCE,FSTYPE,OPTIONS']
    cases = [
        (['-T', '/'], ['stat', '/']),
        (['-T', '/a'] + cols, ['stat', '/a'] + cols),
        (['-l'] + cols, ['list', '-l'] + cols),
        (['-l'] + cols, ['list', '--backend', 'statmount', '-l'] + cols),
        (['-N', pid, '-T', out] + cols, ['stat', '-N', pid, out] + cols),
        (['-N', pid, '-T', out, '-J'] + cols, ['stat', '-N', pid, '-J', out] + cols),
        (['-N', pid, '-l', '-t', 'tmpfs'] + cols,
         ['list', '-N', pid, '--backend', 'statmount', '-l', '-t', 'tmpfs'] + cols),
        (['-N', pid, '-l', '-t', 'tmpfs'] + cols, ['list', '-N', pid, '-l', '-t', 'tmpfs'] + cols),
        (['-N', pid2] + cols, ['list', '-N', pid2] + cols),
        (['-N', pid2, '-l'] + cols, ['list', '-N', pid2, '--backend', 'statmount', '-l'] + cols),
        (['-N', pid2, '-l'] + cols, ['list', '-N', pid2, '--backend', 'mountinfo', '-l'] + cols),
        (['-N', pid2, '-T', '/a'] + cols, ['list', '-N', pid2, '-T', '/a'] + cols),
        (['-N', pid2, '-T', '/a'] + cols, ['stat', '-N', pid2, '/a'] + cols),
        (['-N', pid2, '-x', '--verbose'], ['list', '-N', pid2, '-x', '--verbose']),
    ]
    try:
        for fm, mm in cases:
            ra, a, ea = run(['chroot', sub, 'findmnt'] + fm)
            rb, b, eb = run(['chroot', sub, ms] + mm)
            # JSON by value (mntsnap writes one record a line: kept)
            same = jload(a) == jload(b) if '-J' in fm and a and b else a == b
            t.check('chrooted caller: findmnt %s / mntsnap %s' % (' '.join(fm), ' '.join(mm)),
                    ra == rb and same and norm_err(ea) == norm_err(eb),
                    'findmnt rc %d %r %r\n  mntsnap rc %d %r %r' % (ra, a, ea, rb, b, eb))
        chrooted_caller_links(t, binary, base)
        # last: it mounts over the chroot's root for a while
        chrooted_caller_overmounted(t, binary, base)
    finally:
        for p in (task, peer):
            p.kill()
            p.wait()
        subprocess.run(['umount', '-R', '-l', os.path.join(base, 'cc')], capture_output=True)


def chrooted_caller_links(t, binary, base):
    """In CHROOTED_CALLER's chroot: a magic link (/proc/self/fd/N) to a
    file and to a directory of the mount outside the chroot's root (fds
    opened before the chroot). Their text names a path outside the root,
    which does not resolve inside: findmnt -T walks the link's own text up
    to /proc, and so does stat (the mount they are on is in no table of
    the chroot's)."""
    sub = os.path.join(base, 'cc/sub')
    out = os.path.join(base, 'cc/out')
    open(os.path.join(out, 'f'), 'w').close()
    f = os.open(os.path.join(out, 'f'), os.O_RDONLY)
    dd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for args in ([], ['-o', 'TARGET,SOURCE,FSTYPE,OPTIONS'], ['-J']):
            for fd in (f, dd):
                stat_same(t, 'chrooted caller, a link outside its root', binary,
                          '/proc/self/fd/%d' % fd, args, fds=(fd,), root=sub)
    finally:
        os.close(f)
        os.close(dd)


CHROOT_OVERMOUNTED = r"""
read go
for p in / /pl /pl/.. /a; do
    for a in "" "-o TARGET,SOURCE,FSTYPE,OPTIONS" "-r -o TARGET,SOURCE,ID"; do
        echo "== $p $a"
        findmnt $a -T $p 2>&1; echo "findmnt rc=$?"
        "$1" stat $a $p 2>&1; echo "mntsnap rc=$?"
    done
done
"""


def chrooted_caller_overmounted(t, binary, base):
    """A caller chroot()ed into cc/sub, then a mount on cc/sub itself made
    from outside: the caller's root is the directory under it, and its
    /proc/self/mountinfo lists that mount at "/". findmnt -T of a path
    there (/, a plain directory) walks the text up to "/" and prints that
    mount; stat the same (the mount the path is on, cc's, is outside the
    root: in no table of the caller's)."""
    sub = os.path.join(base, 'cc/sub')
    os.makedirs(os.path.join(sub, 'pl'), exist_ok=True)
    ms = '/w/' + os.path.basename(binary)
    p = subprocess.Popen(['chroot', sub, 'sh', '-c', CHROOT_OVERMOUNTED, 'sh', ms],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    mounted = False
    try:
        time.sleep(0.3)
        subprocess.run(['mount', '-t', 'tmpfs', 'ccover', sub], check=True)
        mounted = True
        out, err = p.communicate(b'go\n', timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        if mounted:
            subprocess.run(['umount', sub], capture_output=True)
    blocks = out.decode(errors='replace').split('== ')[1:]
    t.check('chrooted caller, its root overmounted: all asked', len(blocks) == 12,
            '%r %r' % (out, err))
    for b in blocks:
        head, _, body = b.partition('\n')
        fm, _, ms_out = body.partition('findmnt rc=')
        rc_fm, _, ms_out = ms_out.partition('\n')
        ms_body, _, rc_ms = ms_out.partition('mntsnap rc=')
        # /a is a mount inside the root: its own; the rest on the cover's
        t.check('chrooted caller, its root overmounted: stat %s as findmnt -T' % head,
                norm_err(fm.encode()) == norm_err(ms_body.encode()) and
                rc_fm.strip() == rc_ms.strip() and
                ('ina' if head.startswith('/a') else 'ccover') in fm,
                'findmnt rc %s %r\nmntsnap rc %s %r' % (rc_fm, fm, rc_ms.strip(), ms_body))


# -N PID where the procfs at /proc is not of the caller's pid namespace:
# findmnt -N reads /proc/PID/mountinfo, PID as that procfs (and ps)
# numbers it. (a) a caller in a new pid namespace that kept its parent's
# /proc (unshare -p without --mount-proc), asking for a task of the
# parent's (invisible to it by number) and for that /proc's pid 1; (b) a
# caller of the outer pid namespace in a container's mount namespace with
# the container's /proc (nsenter -m), asking for the container's pid 1.
# Each task's mount namespace has a tmpfs of its own name on the same
# directory (one only: stat prints the top one of a stack), so a wrong
# task shows another source or none. JSON by value. Blocks "== label",
# findmnt's output and status, mntsnap's.
PIDNS_PROC_SH = r'''
set -u
MS=$1 D=$2 MODE=$3 B=$2.w
export MS D MODE B
cat > $B.fn <<"EOS"
cmp1() { # label expected-source mntsnap-command findmnt-args...
  l=$1 want=$2 cmd=$3; shift 3
  a=$(findmnt "$@" 2>&1); ar=$?
  b=$($MS $cmd "$@" 2>&1); br=$?
  printf '== %s (%s) %s %s\n%s\nfindmnt rc=%s\n%s\nmntsnap rc=%s\n' "$l" "$want" "$cmd" "$*" \
    "$a" "$ar" "$b" "$br"
}
pcmp() { # label expected-source pid trigger
  findmnt -p -N $3 -w 2500 > $B.fp 2>&1 & f=$!
  $MS list -p -N $3 -w 2500 > $B.mp 2>&1 & m=$!
  sleep 1; eval "$4"
  wait $f; fr=$?; wait $m; mr=$?
  printf '== %s (%s) list -p -N %s\n%s\nfindmnt rc=%s\n%s\nmntsnap rc=%s\n' "$1" "$2" "$3" \
    "$(cat $B.fp)" "$fr" "$(cat $B.mp)" "$mr"
}
# the pid namespace's own procfs, in place of the old one rather than on
# it: libmount's -p diff pairs two stacked /proc mounts wrongly (a
# "remount" of the lower one) whoever's pid namespace it is
newproc() { umount -l /proc && mount -t proc proc /proc; }
forms() { # label expected-source pid
  if [ "$MODE" = poll ]; then return; fi
  cmp1 "$1" "$2" list -N $3 -T $D
  cmp1 "$1" "$2" list -N $3 -M $D -r -o TARGET,SOURCE,FSTYPE,TID
  cmp1 "$1" "$2" list --task $3 -M $D -J -o TARGET,SOURCE,PROPAGATION
  cmp1 "$1" "$2" stat -N $3 -T $D
  cmp1 "$1" "$2" stat -N $3 -T $D/sub -o TARGET,SOURCE,TID
}
EOS
# (a): P, a pid namespace with its own /proc; Q inside it without one
unshare -p -m --fork --propagation private bash -c '
  . $B.fn
  newproc
  mount -t tmpfs pa $D; mkdir $D/sub
  sleep 60 & S=$!
  sleep 60 & S2=$!
  export S S2
  [ $MODE = poll ] && (sleep 1.5; kill $S2) &
  unshare -p -m --fork --propagation private bash -c "
    . \$B.fn
    if [ \$MODE = poll ]; then
      t0=\$(date +%s%N)
      \$MS list -p -N \$S2 -w 8000 > \$B.xp 2>&1; xr=\$?
      echo \"EXIT rc=\$xr ms=\$(( (\$(date +%s%N) - t0) / 1000000 )) \$(cat \$B.xp)\"
    fi
    mount -t tmpfs pinner \$D; mkdir \$D/sub
    forms a-other pa \$S
    forms a-init pa 1
    if [ \$MODE = poll ]; then
      pcmp a-other pnew \$S \"nsenter -t \$S -m mount -t tmpfs pnew \$D/sub\"
      pcmp a-init pnew2 1 \"nsenter -t \$S -m mount -t tmpfs pnew2 \$D/sub\"
    fi
  "
  kill $S $S2 2>/dev/null
'
# (b): a container C with its own /proc; asked from its mount namespace
rm -f $B.ready
unshare -p -m --fork --propagation private bash -c \
  '. $B.fn; newproc; mount -t tmpfs ctr $D; mkdir $D/sub; touch $B.ready; exec sleep 60' & U=$!
for i in $(seq 100); do [ -e $B.ready ] && break; sleep 0.05; done
C=$(cat /proc/$U/task/$U/children)
nsenter -t $C -m bash -c '
  . $B.fn
  forms b-init ctr 1
  if [ $MODE = poll ]; then pcmp b-init cnew 1 "mount -t tmpfs cnew $D/sub"; fi
'
kill $U; wait
rm -f $B.fn $B.fp $B.mp $B.xp $B.ready
'''


def pidns_proc(t, binary, base, poll=False):
    """-N PID (list, stat; -p with poll) as findmnt -N reads it, PID as the
    procfs at /proc numbers it, by callers whose pid namespace is not that
    procfs's (PIDNS_PROC_SH). In a private mount namespace already."""
    if sanitizer_build(binary):
        # as no_procfs(): the sanitizers' runtime needs /proc/self
        print('SKIP pidns_proc: a sanitizer build needs a procfs of its own pid namespace')
        t.skipped += 1
        return
    if not shutil.which('nsenter'):
        print('SKIP -N PID of another pid namespace\'s procfs: needs nsenter')
        t.skipped += 1
        return
    d = os.path.join(base, 'pn')
    os.makedirs(d, exist_ok=True)
    r = subprocess.run(['bash', '-c', PIDNS_PROC_SH, 'bash', os.path.abspath(binary), d,
                        'poll' if poll else 'read'], capture_output=True, timeout=120)
    out = r.stdout.decode(errors='replace')
    if poll:
        # kept (README): the task's exit ends -p, here with no pidfd to say it
        m = re.search(r'^EXIT rc=(\d+) ms=(\d+) (.*)$', out, re.M)
        t.check('-N PID of another pid namespace\'s procfs: -p ends at the task\'s exit',
                m is not None and m.group(1) == '0' and int(m.group(2)) < 5000 and
                'the target process has exited' in m.group(3), short(out, 600))
    blocks = out.split('== ')[1:]
    t.check('-N PID of another pid namespace\'s procfs: all asked (%s)' %
            ('poll' if poll else 'read'), len(blocks) == (3 if poll else 15),
            short('%r %r' % (r.stdout, r.stderr), 2000))
    for b in blocks:
        head, _, body = b.partition('\n')
        fm, _, rest = body.partition('\nfindmnt rc=')
        rc_fm, _, rest = rest.partition('\n')
        ms, _, rc_ms = rest.rpartition('\nmntsnap rc=')
        want = head.split('(', 1)[1].split(')', 1)[0]
        if ' -J ' in head and rc_fm.strip() == rc_ms.strip() == '0':
            fm, ms = json.dumps(jload(fm.encode())), json.dumps(jload(ms.encode()))
        t.check('-N PID of another pid namespace\'s procfs: %s' % head,
                fm == ms and rc_fm.strip() == rc_ms.strip() and rc_fm.strip() == '0' and
                re.search(r'\b%s\b' % want, fm) is not None,
                'findmnt rc %s:\n%s\nmntsnap rc %s:\n%s' % (rc_fm, fm, rc_ms.strip(), ms))


def tid_own_pidns(t, binary):
    """The live table's TID is the reader's pid as the procfs at /proc
    numbers it (libmount reads /proc/self): in a pid namespace that kept
    its parent's /proc (unshare -p without --mount-proc) that is not
    getpid(). The shell reads its own number from /proc/self/stat and
    execs the reader, so the two must agree, findmnt's and mntsnap's."""
    if not shutil.which('unshare'):
        print('SKIP TID in a child pid namespace: no unshare(1)')
        t.skipped += 1
        return
    sh = 'read p rest < /proc/self/stat; echo "$p"; exec "$@"'
    for fm, ms in ((['-n', '-o', 'TID', '-M', '/proc'], ['list', '-n', '-o', 'TID', '-M', '/proc']),
                   (['-n', '-o', 'TID', '-T', '/proc'], ['stat', '-n', '-o', 'TID', '/proc']),
                   (['-J', '-o', 'TID', '-M', '/proc'], ['list', '-J', '-o', 'TID', '-M', '/proc'])):
        outs = []
        args = ms
        for cmd in (['findmnt'] + fm, [binary] + ms):
            r = subprocess.run(['unshare', '-p', '-f', 'sh', '-c', sh, 'sh'] + cmd,
                               capture_output=True, text=True)
            nums = re.findall(r'\d+', r.stdout)
            outs.append((r.returncode, nums))
        ok = all(rc == 0 and len(n) == 2 and n[0] == n[1] and n[0] != '1' for rc, n in outs)
        t.check('TID in a child pid namespace with the parent\'s /proc: %s' % ' '.join(args),
                ok, 'findmnt, mntsnap (exit, [/proc/self, TID]): %r' % (outs,))


def stat_n_relative(t, binary, base):
    """stat -N PID PATH with a relative PATH: findmnt -N PID -T PATH
    takes it after the caller's working directory (realpath here), then
    looks it up in the task's table; stat prints the same (the path made
    absolute by the caller's cwd, then resolved in the task's namespace).
    The task's namespace has a tmpfs on b (and one on a/c) ours lacks."""
    d = os.path.join(base, 'nrel')
    for sub in ('b', 'a/c'):
        os.makedirs(os.path.join(d, sub))
    subprocess.run(['mount', '-t', 'tmpfs', 'nrel-top', d], check=True)
    for sub in ('b', 'a/c'):
        os.makedirs(os.path.join(d, sub))
    task = subprocess.Popen(['unshare', '-m', 'sh', '-c',
                             'mount --make-rprivate / && mount -t tmpfs nrel-b %s/b && '
                             'mount -t tmpfs nrel-c %s/a/c && exec sleep 60' % (d, d)])
    try:
        pid = str(task.pid)
        for _ in range(100):
            with open('/proc/%s/mountinfo' % pid, 'rb') as fh:
                if b'nrel-c' in fh.read():
                    break
            time.sleep(0.05)
        cols = ['-o', 'TARGET,SOURCE,FSTYPE']
        for path in ('b', 'a', '.', './b', 'b/..', 'a/c', 'a/../b', 'missing'):
            for form in ([], ['-J']):
                fm = subprocess.run(['findmnt', '-N', pid] + cols + form + ['-T', path],
                                    capture_output=True, cwd=d)
                ms = subprocess.run([binary, 'stat', '-N', pid] + cols + form + [path],
                                    capture_output=True, cwd=d)
                ra, rb = fm.returncode, ms.returncode
                if ra == 1 and rb == 2 and not fm.stdout and not ms.stdout:
                    rb = 1  # an error: 2 for mntsnap (README)
                same = ra == rb and (jload(fm.stdout) == jload(ms.stdout) if form and fm.stdout
                                     and ms.stdout else fm.stdout == ms.stdout)
                t.check('stat -N PID, a relative PATH: %s %s' % (path, ' '.join(form)), same,
                        'findmnt %r\n  mntsnap %r' % ((ra, fm.stdout, fm.stderr),
                                                      (ms.returncode, ms.stdout, ms.stderr)))
    finally:
        task.kill()
        task.wait()
        subprocess.run(['umount', '-R', d], capture_output=True)


def task_kept_inner(binary, base):
    """In a private mount namespace already: a chroot()ed task's view, and
    the deliberate stat differences README's kept list states. Prints the
    tally as JSON."""
    t = Tally()
    for where in ('same', 'own', 'ownroot'):
        task_chroot_pf(t, binary, base, where)
    unreached_root(t, binary, base)
    stat_no_task_access(t, binary, base)
    tid_own_pidns(t, binary)
    stat_n_relative(t, binary, base)
    no_procfs(t, binary, base)
    chrooted_caller(t, binary, base)
    stat_kept_other_ns(t, binary, base)
    stat_kept_number(t, binary, base)
    stat_kept_covered(t, binary, base)
    poll_kept_task_exit(t, binary, base)
    pidns_proc(t, binary, base)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


# A chroot()ed task (its root a directory of this table) polled: findmnt
# -p -N PID (and -F /proc/PID/mountinfo) reads the task's mountinfo, which
# the kernel writes relative to the task's root and without the mounts
# outside it: CHROOT_TASK with cr/x/sub, where a mount propagates to
# cr/z/sub, whose propagate_from the task's text names by cr/x/sub's group
# (y's has no mount under the root). "ownroot", a task in a namespace of
# its own seen whole, is queried from outside, where statmount never names
# a propagate_from: its text's is the one printed.
# Each step one batch, run where the task's mounts are (cwd: the base):
# inside the root, outside it, moves across its edge both ways, a bind of
# a subdirectory (FSROOT), a remount (OLD-OPTIONS), a move inside
# (OLD-TARGET), a propagated mount whose propagate_from is the task's,
# and a remount of a slave whose propagate_from is the task's.
POLL_TASK_STEPS = [
    'mount -t tmpfs insub cr/sub', 'mount -t tmpfs outside out',
    'mount -o remount,size=1m cr/sub', 'mkdir out/dd && mount --bind out/dd cr/m1',
    'mount --move cr/sub cr/m2', 'mount -t tmpfs o2 out2', 'mount --move out2 cr/sub',
    'mount --move cr/m2 out2', 'mount -t tmpfs pp cr/x/sub', 'mount -o remount,ro cr/m1',
    'mount -o remount,bind,ro cr/z',
    'umount cr/x/sub', 'umount cr/sub', 'umount cr/m1', 'umount out2', 'umount out',
]


def poll_task_sets(pid):
    mi = '/proc/%s/mountinfo' % pid
    cols = 'ACTION,TARGET,SOURCE,FSROOT,OLD-TARGET,OLD-OPTIONS,PROPAGATION,OPT-FIELDS,ID,PARENT'
    sets = []
    for tab in (['-N', pid], ['-F', mi]):
        sets += [['-p'] + tab, ['-p', '-r', '-o', cols] + tab]
    # the filters match the task's records, as its text shows them
    return sets + [['-p', '-N', pid] + f for f in (
        ['-M', '/sub', '-r'], ['-M', '/m2', '-o', '+OLD-TARGET'], ['-t', 'tmpfs', '-O', 'ro'],
        ['-S', 'insub', '-r'], ['-S', 'pp', '-o', '+OPT-FIELDS'], ['-i', '-t', 'tmpfs'],
        ['--output-all', '-r'], ['-P', '-o', '+FSROOT,PROPAGATION'], ['-U'],
        ['--shadowed'], ['-f', '-S', 'o2'], ['-d', 'backward', '-r'],
        ['-p', 'move,umount', '-r', '-o', '+OLD-TARGET'], ['-T', '/m1'], ['-T', '/x/sub/f'],
        ['-R', '-M', '/x', '-r'], ['-D'])]


def poll_task_chroot(t, binary, base, where):
    """-p -N PID and -p -F /proc/PID/mountinfo of a chroot()ed task: each
    change as the task's mountinfo shows it (paths from its root, nothing
    outside it, a move across its edge a mount or an umount); of a task
    seen whole in a namespace of its own (ownroot): propagate_from as its
    mountinfo shows it."""
    task = chroot_task(t, 'poll chroot task (%s)' % where, base, where, 'pt', x_sub=True)
    if not task:
        return
    p, root, d = task
    try:
        pid = str(p.pid)
        # setns() of a mount namespace moves cwd to its root: cd again
        steps = POLL_TASK_STEPS if where == 'same' else [
            'nsenter -t %s -m -- sh -c %s' % (pid, shlex.quote('cd %s && %s' % (d, s)))
            for s in POLL_TASK_STEPS]
        poll_history(t, 'poll chroot task (%s):' % where, binary, poll_task_sets(pid), steps,
                     None, d, wait_open=True)
        # kept (README): the task's exit ends the poll with a message
        m = subprocess.Popen([binary, 'list', '-p', '-r', '-N', pid, '-w', '20000'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        polling([m.pid])
        subprocess.run(['sh', '-c', steps[0]], check=True, capture_output=True, cwd=d)
        time.sleep(0.5)
        p.kill()
        p.wait()
        try:
            out, err = m.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            m.kill()
            out, err = m.communicate()
        subprocess.run(['umount', os.path.join(d, 'cr/sub')], capture_output=True)
        t.check('poll chroot task (%s): stops when the task exits' % where,
                m.returncode == 0 and b'the target process has exited' in err and
                out.splitlines()[1:] == [b'mount %s/sub insub tmpfs rw,relatime' %
                                         root.encode()],
                'rc %r out %r err %r' % (m.returncode, out, err))
    finally:
        p.kill()
        p.wait()


# A chroot()ed caller polls (CHROOTED_CALLER): its own table, where a
# mount outside its root is none and one moved out an umount, and -N of a
# task not chrooted, whose root the caller's does not reach: the task's
# view, paths from its root, the remount included. Run in cc, outside.
POLL_CHROOTED_STEPS = [
    'mount -t tmpfs o1 out', 'mount -o remount,ro out', 'umount out',
    'mkdir -p sub/m && mount -t tmpfs mv sub/m', 'mount --move sub/m out',
    'mount --move out sub/m', 'mount -o remount,ro sub/m', 'umount sub/m',
]


def poll_chrooted_caller(t, binary, base):
    """list -p and list -p -N PID run in a chroot, as findmnt there."""
    if not chrooted_caller_setup(t, binary, base, 'poll chrooted caller setup'):
        return
    cc = os.path.join(base, 'cc')
    task = subprocess.Popen(['sleep', '120'])
    pid = str(task.pid)
    sets = [['-p', '-o', '+OLD-TARGET'], ['-p', '-r', '-o', 'ACTION,TARGET,SOURCE,OLD-OPTIONS'],
            ['-p', '-N', pid, '-o', '+OLD-TARGET'],
            ['-p', '-N', pid, '-r', '-o', 'ACTION,TARGET,SOURCE,OLD-TARGET,OLD-OPTIONS']]
    try:
        poll_history(t, 'poll chrooted caller:', binary, sets, POLL_CHROOTED_STEPS, None, cc,
                     wait_open=True, chroot=os.path.join(cc, 'sub'),
                     inner='/w/' + os.path.basename(binary))
    finally:
        task.kill()
        task.wait()
        subprocess.run(['umount', '-R', '-l', cc], capture_output=True)


# A task that pivot_root()s while polled (-N PID, -F /proc/PID/mountinfo):
# the kernel fixes a mountinfo file's root at open(), so findmnt, which
# opens the file once and reads it again at each change, keeps the view
# of the task's old root: the new root's mounts go (umount), mounts made
# under the new root only are never seen, those under the old root (now
# at /old) are, by their paths from the old root. The new root has /usr
# (nsenter runs mount(8) from there); the task's shell waits on its stdin.
PIVOT_TASK = BIND_SYSTEM_DIRS + r"""
set -e
R=$1; D=$2
mkdir -p $R
mount -t tmpfs pvroot $R
mkdir -p $R/in $R/old $R/mnt $D/o
mount -t tmpfs pvin $R/in
bind_system_dirs $R --bind
echo ready
while [ ! -e $D/GO ]; do sleep 0.05; done
cd $R
pivot_root . old
cd /
: > /old$D/DONE
read x
"""


def pivot_possible(base):
    """Whether pivot_root(2) works here (the namespace's root mount has a
    parent to put the new root on): tried in a throwaway namespace."""
    r = os.path.join(base, 'pv-probe')
    os.makedirs(r)
    return subprocess.run(['unshare', '-m', '--propagation', 'private', 'sh', '-c',
                           'mount -t tmpfs p %s && mkdir %s/old && cd %s && pivot_root . old'
                           % (r, r, r)], capture_output=True).returncode == 0


def poll_task_pivot(t, binary, base):
    """-p -N PID and -p -F /proc/PID/mountinfo of a task that pivot_root()s
    after the poll began: the view of its root at the start, as findmnt's."""
    if not pivot_possible(base):
        print('SKIP poll of a task that pivot_root()s: pivot_root fails here')
        t.skipped += 1
        return
    d = os.path.join(base, 'pv')
    r = os.path.join(d, 'root')
    os.makedirs(d)
    p = subprocess.Popen(['unshare', '-m', '--propagation', 'private', 'sh', '-c', PIVOT_TASK,
                          'sh', r, d], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        if p.stdout.readline().strip() != b'ready':
            t.check('poll pivot task setup', False, p.stderr.read().decode(errors='replace'))
            return
        pid = str(p.pid)
        nse = 'nsenter -t %s -m -- ' % pid
        sets = [['-p', '-N', pid], ['-p', '-N', pid, '-r', '-o', 'ACTION,TARGET,SOURCE,ID,TID'],
                ['-p', '-F', '/proc/%s/mountinfo' % pid, '-t', 'tmpfs'],
                ['-p', '-N', pid, '-M', '/mnt'], ['-p', '-N', pid, '-M', r + '/in'],
                # /proc/PID/mounts: the same view fixed at open, no ids
                ['-p', '-F', '/proc/%s/mounts' % pid],
                ['-p', '-F', '/proc/%s/mounts' % pid, '-r', '-o', 'ACTION,TARGET,SOURCE,ID,TID']]
        steps = ['touch GO && for i in $(seq 200); do [ -e DONE ] && break; sleep 0.05; done; '
                 '[ -e DONE ]',
                 nse + 'mount -t tmpfs newmnt /mnt', nse + 'mount -t tmpfs viaold /old%s/o' % d,
                 nse + 'mount -o remount,ro /old%s/o' % d, nse + 'umount /old%s/o' % d,
                 nse + 'umount /mnt']
        poll_history(t, 'poll pivot_root task:', binary, sets, steps, None, d, wait_open=True)
    finally:
        p.kill()
        p.wait()


# A thread that unshare(CLONE_FS)s and chroot()s alone: its own root, the
# leader's unchanged. /proc/PID/task/TID/mountinfo is that thread's view
# (and TID is TID in libmount's rows), polled as findmnt polls it.
THREAD_TASK = r"""
import ctypes, os, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
def t():
    assert libc.unshare(0x200) == 0
    os.chroot(sys.argv[1])
    os.chdir('/')
    print(threading.get_native_id(), flush=True)
    time.sleep(120)
threading.Thread(target=t, daemon=True).start()
time.sleep(120)
"""


# -p -F of a task's table in /proc/mounts' format: findmnt reads it again
# through the file it opened at the start, entries without ids, FSROOT or
# propagation, and libmount's diff pairs them by source and mount point
# alone: a second mount of one source on one mount point is no line, nor
# is the umount of the top one; a remount of the top one pairs with the
# lower one (a remount when their options differ). Each step one batch.
POLL_MOUNTS_STEPS = [
    'mount -t tmpfs x pq', 'mount -t tmpfs x pq', 'mount --bind pq pq',
    'mount -o remount,size=1m pq', 'mount -t tmpfs y a', 'mount --move a b',
    'umount pq', 'mount -o remount,ro b', 'umount pq', 'umount pq', 'umount b',
]


def poll_task_mounts(t, binary, base):
    """-p -F /proc/PID/mounts (also /proc/self/mounts, /proc/mounts and a
    thread's /proc/PID/task/TID/mounts): findmnt's rows and lines."""
    d = os.path.join(base, 'pm')
    os.makedirs(d)
    subprocess.run(['mount', '-t', 'tmpfs', 'pmb', d], check=True)
    for x in ('pq', 'a', 'b'):
        os.makedirs(os.path.join(d, x))
    task = subprocess.Popen(['sleep', '120'])
    try:
        f = '/proc/%d/mounts' % task.pid
        cols = 'ACTION,TARGET,SOURCE,ID,FSROOT,PROPAGATION,OLD-TARGET,OLD-OPTIONS,TID,' \
               'VFS-OPTIONS,FS-OPTIONS,FREQ,PASSNO'
        sets = [['-p', '-F', f], ['-p', '-F', f, '-r', '-o', cols],
                ['-p', '-F', '/proc/self/mounts', '-o', '+ID,FSROOT,OLD-OPTIONS'],
                ['-p', '-F', '/proc/mounts', '-r', '-o', '+PROPAGATION,FREQ,PASSNO,ID'],
                ['-p', '-F', '/proc/%d/task/%d/mounts' % (task.pid, task.pid), '-o', '+TID,ID'],
                ['-p', '-F', f, '-t', 'tmpfs', '-d', 'backward', '-r'],
                ['-p', '-F', f, '-S', 'x', '-o', '+OLD-OPTIONS'],
                ['-p', '-F', f, '-P', '-o', 'ACTION,TARGET,OLD-TARGET'], ['-p', '-F', f, '-f'],
                ['-p', 'mount,remount', '-F', f, '-r'],
                # -U drops a stack's lower entries from the first table
                # only; --shadowed asks for ids this text has not
                ['-p', '-F', f, '-U', '-r'], ['-p', '-F', f, '--shadowed'],
                # filters on the entries: their options, mount points
                ['-p', '-F', f, '-O', 'ro'], ['-p', '-F', f, '-O', 'size=1024k', '-r'],
                ['-p', '-F', f, '-M', os.path.join(d, 'pq')], ['-p', '-F', f, '-T', os.path.join(d, 'b')],
                ['-p', '-F', f, os.path.join(d, 'b'), '-r']]
        poll_history(t, 'poll mounts format:', binary, sets, POLL_MOUNTS_STEPS, None, d,
                     wait_open=True)
    finally:
        task.kill()
        task.wait()
        subprocess.run(['umount', '-R', '-l', d], capture_output=True)


def poll_task_thread(t, binary, base):
    """-p -F /proc/PID/task/TID/mountinfo of a thread chroot()ed alone."""
    d = os.path.join(base, 'thr')
    root = os.path.join(d, 'root')
    os.makedirs(os.path.join(root, 'mnt'))
    os.makedirs(os.path.join(d, 'out'))
    p = subprocess.Popen([sys.executable, '-c', THREAD_TASK, root], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        tid = p.stdout.readline().strip().decode()
        if not tid.isdigit():
            t.check('poll thread setup', False, p.stderr.read().decode(errors='replace'))
            return
        f = '/proc/%d/task/%s/mountinfo' % (p.pid, tid)
        sets = [['-p', '-F', f, '-o', '+TID'],
                ['-p', '-F', f, '-r', '-o', 'ACTION,TARGET,SOURCE,FSROOT,OLD-OPTIONS,TID'],
                # the thread's table in /proc/mounts' format: its root too
                ['-p', '-F', f[:-len('mountinfo')] + 'mounts', '-o', '+OLD-OPTIONS,TID']]
        steps = ['mount -t tmpfs inside root/mnt', 'mount -t tmpfs outside out',
                 'mount -o remount,size=1m root/mnt', 'umount root/mnt', 'umount out']
        poll_history(t, 'poll thread of its own root:', binary, sets, steps, None, d,
                     wait_open=True)
    finally:
        p.kill()
        p.wait()


POLL_ELSEWHERE_STEPS = ['mount -t tmpfs ev mnt', 'mount -o remount,ro mnt', 'umount mnt']


def poll_procfs_elsewhere(t, binary, base):
    """-p -F DIR/PID/mountinfo, DIR a procfs mounted elsewhere than /proc
    (or a bind mount of /proc): a task's table, polled and told as findmnt
    tells it (TID: PID); in /proc/mounts' format too (DIR/PID/mounts,
    DIR/self/mounts, DIR/mounts, a thread's), a procfs file by its magic
    and name, not by a path under /proc."""
    d = os.path.join(base, 'pe')
    p, b = os.path.join(d, 'p'), os.path.join(d, 'b')
    for x in (p, b, os.path.join(d, 'mnt')):
        os.makedirs(x)
    subprocess.run(['mount', '-t', 'proc', 'proc2', p], check=True)
    subprocess.run(['mount', '--bind', '/proc', b], check=True)
    task = subprocess.Popen(['sleep', '120'])
    try:
        pid = str(task.pid)
        f = os.path.join(p, pid, 'mountinfo')
        m = os.path.join(p, pid, 'mounts')
        sets = [['-p', '-F', f], ['-p', '-F', f, '-r', '-o', 'ACTION,TARGET,SOURCE,OLD-OPTIONS,TID'],
                ['-p', '-F', os.path.join(p, 'self', 'mountinfo'), '-M', d + '/mnt'],
                ['-p', '-F', m], ['-p', '-F', m, '-r', '-o', 'ACTION,TARGET,SOURCE,OLD-OPTIONS,TID'],
                ['-p', '-F', os.path.join(p, 'self', 'mounts')],
                ['-p', '-F', os.path.join(p, 'mounts'), '-o', '+OLD-OPTIONS'],
                ['-p', '-F', os.path.join(p, pid, 'task', pid, 'mounts'), '-o', '+TID'],
                ['-p', '-F', os.path.join(b, pid, 'mountinfo'), '-o', '+TID'],
                ['-p', '-F', os.path.join(b, pid, 'mounts')],
                ['-p', '-F', os.path.join(b, 'self', 'mounts'), '-r'],
                ['-p', '-F', os.path.join(b, 'mounts'), '-M', d + '/mnt']]
        # a fixed wait, not wait_open: a poller that reads such a file once
        # and closes it would hold the others' start for a minute
        poll_history(t, 'poll procfs elsewhere:', binary, sets, POLL_ELSEWHERE_STEPS, None, d)
    finally:
        task.kill()
        task.wait()
        subprocess.run(['umount', p], capture_output=True)
        subprocess.run(['umount', b], capture_output=True)


def poll_procfs_no_proc(t, binary, base):
    """-p -F DIR/self/mounts (and mountinfo, DIR/mounts) of a procfs at
    DIR, run in a namespace whose /proc is unmounted: the table polled as
    findmnt polls it. DIR is a shared mount, so the steps made here reach
    the pollers' namespace."""
    if sanitizer_build(binary):
        # as no_procfs(): the sanitizers' runtime needs /proc/self
        print('SKIP poll_procfs_no_proc: a sanitizer build needs a procfs of its own pid namespace')
        t.skipped += 1
        return
    d = os.path.join(base, 'np')
    os.makedirs(d)
    subprocess.run(['mount', '-t', 'tmpfs', 'npb', d], check=True)
    subprocess.run(['mount', '--make-shared', d], check=True)
    p = os.path.join(d, 'p')
    os.makedirs(p)
    os.makedirs(os.path.join(d, 'mnt'))
    subprocess.run(['mount', '-t', 'proc', 'proc3', p], check=True)
    wrap = ['unshare', '-m', '--propagation', 'unchanged', 'sh', '-c',
            'umount -l /proc && exec "$@"', 'sh']
    try:
        sets = [['-p', '-F', os.path.join(p, 'self', 'mounts')],
                ['-p', '-F', os.path.join(p, 'mounts'), '-r', '-o', 'ACTION,TARGET,SOURCE,TID'],
                # (TID of self: each reader's own pid)
                ['-p', '-F', os.path.join(p, 'self', 'mountinfo'), '-o', '+OLD-OPTIONS']]
        poll_history(t, 'poll procfs elsewhere, no /proc:', binary, sets, POLL_ELSEWHERE_STEPS,
                     None, d, wrap=wrap)
    finally:
        subprocess.run(['umount', '-R', '-l', d], capture_output=True)


# A process whose thread-group leader has exited (pthread_exit(): a
# zombie) while another thread runs: the leader has no namespace left to
# open, the thread's /proc/PID/task/TID/ files are its table.
ZOMBIE_LEADER_TASK = r"""
import ctypes, threading, time
libc = ctypes.CDLL(None)
def t():
    print(threading.get_native_id(), flush=True)
    time.sleep(120)
threading.Thread(target=t).start()
time.sleep(0.2)
libc.pthread_exit(None)
"""


def poll_zombie_leader(t, binary, base):
    """-p -F /proc/PID/task/TID/mountinfo (and mounts) of a live thread
    whose leader PID is a zombie: polled through the thread's file, as
    findmnt polls it."""
    d = os.path.join(base, 'zl')
    os.makedirs(os.path.join(d, 'mnt'))
    p = subprocess.Popen([sys.executable, '-c', ZOMBIE_LEADER_TASK], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        tid = p.stdout.readline().strip().decode()
        time.sleep(0.5)
        with open('/proc/%d/stat' % p.pid) as f:
            state = f.read().rpartition(')')[2].split()[0]
        if not tid.isdigit() or state != 'Z':
            t.check('poll zombie leader setup', False,
                    'tid %r, leader state %r' % (tid, state))
            return
        td = '/proc/%d/task/%s/' % (p.pid, tid)
        sets = [['-p', '-F', td + 'mountinfo'],
                ['-p', '-F', td + 'mountinfo', '-r', '-o', 'ACTION,TARGET,SOURCE,OLD-OPTIONS,TID'],
                ['-p', '-F', td + 'mounts'],
                ['-p', '-F', td + 'mounts', '-r', '-o', 'ACTION,TARGET,SOURCE,OLD-OPTIONS,TID']]
        poll_history(t, 'poll thread of a zombie leader:', binary, sets, POLL_ELSEWHERE_STEPS,
                     None, d)
        # kept (README): the thread's exit (the process's here: a signal
        # cannot end one thread alone) ends the poll, with a message
        ms = [(f, subprocess.Popen([binary, 'list', '-p', '-F', td + f, '-w', '20000'],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE))
              for f in ('mountinfo', 'mounts')]
        polling([m.pid for _, m in ms], timeout=10)
        p.kill()
        p.wait()
        for f, m in ms:
            try:
                out, err = m.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                m.kill()
                out, err = m.communicate()
            t.check('poll thread of a zombie leader: -F %s stops when the thread exits' % f,
                    m.returncode == 0 and b'the target process has exited' in err,
                    'rc %r out %r err %r' % (m.returncode, out, err))
    finally:
        p.kill()
        p.wait()


# Run in the base while UNREACHED_CASES' tasks are polled: a mount and an
# umount no task's root reaches, a remount and the lazy umount of
# rmdir-bind's mount (its task's one mount, then none: its root is
# detached as lazy's).
POLL_UNREACHED_STEPS = [
    'mkdir -p urp && mount -t tmpfs urpoll urp', 'mount -o remount,bind,ro ur-rmdir-bind/c',
    'umount urp', 'umount -l ur-rmdir-bind/c',
]


def poll_unreached_root(t, binary, base):
    """-p -N PID of UNREACHED_CASES' tasks: each change as the task's
    mountinfo shows it (none but the bind mount's remount and umount)."""
    with contextlib.ExitStack() as stack:
        pids = [stack.enter_context(unreached_root_task(t, base, c)) for c in UNREACHED_CASES]
        if not all(pids):
            return
        sets = []
        for pid in pids:
            sets += [['-p', '-N', pid], ['-p', '-r', '-N', pid, '-o',
                                         'ACTION,TARGET,SOURCE,FSROOT,OLD-OPTIONS,ID,PARENT']]
        poll_history(t, 'poll unreached root:', binary, sets, POLL_UNREACHED_STEPS, None, base)


def poll_task_inner(binary, base):
    """In a private mount namespace already: chroot()ed tasks polled, in
    this namespace and in one of their own. Prints the tally as JSON."""
    t = Tally()
    for where in ('same', 'own', 'ownroot'):
        poll_task_chroot(t, binary, base, where)
    poll_unreached_root(t, binary, base)
    poll_chrooted_caller(t, binary, base)
    poll_task_pivot(t, binary, base)
    poll_task_mounts(t, binary, base)
    poll_task_thread(t, binary, base)
    poll_procfs_elsewhere(t, binary, base)
    poll_procfs_no_proc(t, binary, base)
    poll_zombie_leader(t, binary, base)
    pidns_proc(t, binary, base, poll=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def utab_lines(t, binary, base):
    """-m: a utab line read as libmount 2.38's mnt_parse_utab_line() reads
    it (fields apart by spaces only, a line's CR dropped, # lines and a line
    with an empty SRC/TARGET/ROOT/BINDSRC/OPTS/ATTRS value skipped whole,
    any \\ooo an octal byte) and joined by mnt_table_merge_user_fs()'s
    tests (paths by streq_paths(): "//" is "/"; a pseudo file system's
    source by its exact text; a NAME=value source, the mount's or the
    line's, names no path). In a private mount namespace already."""
    d = os.path.join(base, 'ul')
    tag = os.path.join(base, 'ult')
    utab = os.path.join(base, 'ul.utab')
    env = dict(os.environ, LIBMOUNT_UTAB=utab)
    lines = ['SRC=ul TARGET=%s ROOT=/ OPTS=x-ok' % d,
             'SRC=ul TARGET=%s ROOT=/ OPTS=x-dslash' % d.replace('/ul', '//ul'),
             'SRC=ul TARGET=%s/// ROOT=/ OPTS=x-tslash' % d,
             'SRC=ul/ TARGET=%s ROOT=/ OPTS=x-pseudo-src-slash' % d,
             'SRC=ul\tTARGET=%s ROOT=/ OPTS=x-tab' % d,
             'SRC=ul TARGET=%s\tROOT=/ OPTS=x-tab2 ROOT=/' % d,
             'SRC=ul TARGET=%s ROOT=/ OPTS=x-cr\r' % d,
             '# SRC=ul TARGET=%s ROOT=/ OPTS=x-comment' % d,
             ' \t SRC=ul TARGET=%s ROOT=/ OPTS=x-lead' % d,
             'SRC=ul TARGET=%s ROOT=/ BINDSRC= OPTS=x-empty-bindsrc' % d,
             'SRC=ul TARGET=%s ROOT=/ OPTS=x-empty-attrs ATTRS=' % d,
             'SRC=ul TARGET=%s ROOT=/ OPTS=x-\\477,x-\\101\\60' % d,
             'SRC=ul SRC= TARGET=%s ROOT=/ OPTS=x-second-src' % d,
             'SRC=ul TARGET=%s ROOT=/ ID=7 OPTS=x-id' % d,
             'SRC=LABEL=ult TARGET=%s ROOT=/ OPTS=x-tag' % tag,
             'SRC=LABEL= TARGET=%s ROOT=/ OPTS=x-tag-empty' % tag,
             'SRC=ul TARGET=%s ROOT=/ OPTS=x-noeol' % d]
    try:
        os.makedirs(d)
        os.makedirs(tag)
        subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=1m', 'ul', d], check=True)
        # mount(8) would look the label up: mount(2) takes the text as it is
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.mount(b'LABEL=ult', tag.encode(), b'tmpfs', 0, b'size=1m'):
            raise OSError(ctypes.get_errno(), 'mount LABEL=ult')
        # each line after a plain one: read backward, it takes the mount
        # first, or it is skipped and the plain one does
        for ln in lines[1:]:
            with open(utab, 'w') as f:
                f.write(lines[0] + '\n' + (ln if ln.endswith('x-noeol') else ln + '\n'))
            for args in (['-m', '-o', 'TARGET,OPTIONS', '-M', d], ['-m', '-o', 'OPTIONS', '-M', tag],
                         ['-m', '-r', '-o', 'OPTIONS', '-M', d, '-O', 'x-?']):
                fstab_same(t, 'utab line %r' % ln, args, [binary, 'list'] + args, env=env)
    finally:
        subprocess.run(['umount', '-l', d], capture_output=True)
        subprocess.run(['umount', '-l', tag], capture_output=True)


def show_tags(t, binary, base, mnt, uuid):
    """show of a table saved with its ext4 on a loop device (LABEL
    fmeq-uuid, UUID uuid) at mnt and a bind mount of it, against findmnt -F
    on the mountinfo text of the same moment: the tag columns (UUID too,
    when the snapshot holds none: libblkid's, as LABEL; a saved UUID is the
    same here) and -S TAG=value or a TAG=value argument, the device the tag
    names (both mounts)."""
    bind = os.path.join(base, 'ubind')
    os.makedirs(bind)
    subprocess.run(['mount', '--bind', mnt, bind], check=True)
    mi = os.path.join(base, 'show-tags.mi')
    snaps = {'': os.path.join(base, 'tags.snap'), ' --full': os.path.join(base, 'tags-full.snap')}
    shutil.copy('/proc/self/mountinfo', mi)
    for how, snap in snaps.items():
        rc, _, err = run([binary, 'save', '--no-sync'] + how.split() + [snap])
        t.check('show tags: save%s' % how, rc == 0, err.decode(errors='replace'))
    cols = ['-o', TAB_UUID_COLS + ',SOURCES']
    sets = [['-M', mnt] + cols, ['-M', bind] + cols, ['-M', mnt, '-o', 'UUID'],
            ['-M', mnt, '--output-all']]
    for tag in ('LABEL=fmeq-uuid', 'UUID=' + uuid, 'LABEL="fmeq-uuid"', 'LABEL=fmeq-none',
                'UUID=' + uuid[:-1] + 'f'):
        sets += [['-S', tag, '-o', 'TARGET,SOURCE,FSTYPE'], [tag, '-o', 'TARGET,SOURCE,UUID'],
                 ['-f', '-S', tag], ['-S', tag, '-M', bind, '-o', 'TARGET,LABEL']]
    for how, snap in snaps.items():
        for args in sets:
            for form in ([], ['-l'], ['-J'], ['-P']):
                fstab_same(t, 'show%s tags' % how, ['-F', mi] + args + form,
                           [binary, 'show', snap] + args + form, json_out='-J' in form)


# stat PATH is findmnt -T PATH: the options stat takes (its --help; the
# ones it refuses, each with its reason, are held to its Refused block by
# cli-habits.py) filter or print that one mount as findmnt -T does.
STAT_PATHS = ['/', '/proc', '/sys', '/dev', '/sys/fs/cgroup/cpu', '/usr/bin']
STAT_OPTS = [[], ['-t', 'proc'], ['-t', 'noproc'], ['-O', 'rw'], ['-O', 'ro'], ['--real'],
             ['--pseudo'], ['-A'], ['-A', '--real'], ['--real', '-A'], ['-A', '--pseudo'],
             ['--pseudo', '-A'], ['-U'], ['-f'], ['-d', 'backward'], ['-v'],
             ['-D', '-o', 'TARGET,SOURCE,FSTYPE'], ['-D', '-A', '-o', 'TARGET,FSTYPE'], ['-y'],
             ['-S', 'proc'], ['-S', 'sysfs'], ['-c'], ['-k'],
             ['-v', '-o', 'SOURCE,TARGET,FSTYPE,FSROOT,MAJ:MIN,ID,PARENT,PROPAGATION,'
              'VFS-OPTIONS,FS-OPTIONS,OPT-FIELDS,FREQ,PASSNO']]


def stat_options(t, binary):
    opts = STAT_OPTS + ([['-e']] if blkid_or_skip(t, binary, '/dev/null', 'stat -e') else [])
    for p in STAT_PATHS:
        for o in opts:
            for form in ([], ['-l'], ['-r'], ['-P'], ['-J']):
                args = o + form
                cols = [] if '-o' in o or '--output-all' in o else \
                    ['-o', 'TARGET,SOURCE,FSTYPE,OPTIONS']
                fstab_same(t, 'stat %s' % ' '.join(args), args + cols + ['-T', p],
                           [binary, 'stat'] + args + cols + [p], json_out='-J' in form)
        # -T PATH is stat PATH, findmnt's spelling
        fstab_same(t, 'stat -T %s' % p, ['-T', p], [binary, 'stat', '-T', p])
        stat_first_source(t, binary, p)
    stat_target_and_path(t, binary)
    stat_two_tasks(t, binary)


def stat_two_tasks(t, binary):
    """findmnt -N A -N B -T PATH reads both tasks' tables, one after the
    other: stat refuses a second -N (README: another table), exit 2,
    naming the list that does it, and that list prints findmnt's."""
    me, parent = str(os.getpid()), str(os.getppid())
    for pids in ((me, parent), (me, me)):
        for p in ('/', '/proc'):
            args = ['-N', pids[0], '-N', pids[1]]
            r, out, err = run([binary, 'stat'] + args + [p])
            t.check('stat %s %s (kept: refused)' % (' '.join(args), p),
                    r == 2 and not out and b'a second -N' in err and
                    b'mntsnap list -N PID -N PID -T PATH' in err, err.decode(errors='replace'))
            fstab_same(t, 'list, as stat names it', args + ['-T', p],
                       [binary, 'list'] + args + ['-T', p])


def stat_target_and_path(t, binary):
    """-T PATH is stat PATH as findmnt takes -T: of several -T the last
    counts; -T beside an argument (before or after it, after `--` too) is
    findmnt's error ("--target ... can't be used together with command line
    element that is not an option", exit 1): stat refuses it as list
    refuses it, exit 2 (README: 2 always an error), saying why."""
    a, b = '/proc', '/sys'
    for o in ([], ['-o', 'TARGET,SOURCE'], ['-J']):
        for x, y in ((a, b), (b, a)):
            fstab_same(t, 'stat -T -T', o + ['-T', x, '-T', y], [binary, 'stat'] + o + ['-T', x, '-T', y],
                       json_out='-J' in o)
    for args in (['-T', a, b], [b, '-T', a], ['-T', a, '--', b], ['--target', a, b],
                 ['-o', 'TARGET', '-T', a, '-T', b, a], ['-T', a, a]):
        ra, fa, ea = run(['findmnt'] + args)
        rb, fb, eb = run([binary, 'stat'] + args)
        t.check('stat %s: refused as findmnt refuses it' % ' '.join(args),
                ra == 1 and not fa and b"can't be used together" in ea and rb == 2 and not fb and
                b'stat: -T excludes a PATH argument' in eb, '%d %r / %d %r' % (ra, ea, rb, eb))


def stat_first_source(t, binary, p):
    """-f with a SOURCE name and no -t/-O is findmnt's lookup of that
    source alone (is_mount_compatible_mode()): the first mount of it,
    wherever it is, -T not applied. stat refuses it (README: stat prints
    the mount PATH reaches or nothing), naming the list that does it, and
    that list prints what findmnt prints; with -t, -O or -S MAJ:MIN the
    lookup is findmnt's filter of PATH's mount, which stat takes."""
    _, a, _ = run(['findmnt', '-nfo', 'SOURCE,MAJ:MIN,FSTYPE', '-T', p])
    if len(a.split()) != 3:
        return
    src, majmin, fstype = (x.decode() for x in a.split())
    cols = ['-o', 'TARGET,SOURCE,FSTYPE']
    for name in (src, 'proc', 'sysfs'):
        for extra in ([], ['-d', 'backward'], ['-S', majmin]):
            args = ['-f', '-S', name] + extra
            r, out, err = run([binary, 'stat'] + args + cols + [p])
            t.check('stat %s %s (kept: refused)' % (' '.join(args), p),
                    r == 2 and not out and b'-f with -S NAME' in err and
                    b'mntsnap list ' + ' '.join(args[:3]).encode() in err, err.decode(errors='replace'))
            fstab_same(t, 'list, as stat names it', args + cols + ['-T', p],
                       [binary, 'list'] + args + cols + ['-T', p])
        for extra in (['-t', fstype], ['-t', 'no' + fstype], ['-O', 'rw'], ['-O', 'ro']):
            args = ['-f', '-S', name] + extra
            fstab_same(t, 'stat %s' % ' '.join(args), args + cols + ['-T', p],
                       [binary, 'stat'] + args + cols + [p])
    fstab_same(t, 'stat -f -S MAJ:MIN', ['-f', '-S', majmin] + cols + ['-T', p],
               [binary, 'stat', '-f', '-S', majmin] + cols + [p])


# -m: utab's OPTS= split by libmount's option maps (mnt_fs_append_options()
# -> mnt_split_optstr()): VFS-map words to VFS-OPTIONS, unknown ones (and
# name=value of a map word that takes none) to FS-OPTIONS, userspace-map
# ones to the userspace options -x --verbose shows; OPTIONS gets all.
UTAB_MI = (b'20 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n'
           b'22 20 0:30 / /mnt/a rw,relatime - tmpfs tmpA rw,size=1k\n'
           b'23 20 0:31 / /mnt/b ro,nosuid - tmpfs tmpB ro\n'
           b'24 20 0:32 / /mnt/c rw - proc proc rw\n')
UTAB_SPLIT = (b'SRC=tmpA TARGET=/mnt/a ROOT=/ OPTS=ro,noexec,foo=bar,x-a\n'
              b'SRC=/dev/sda1 TARGET=/ ROOT=/ OPTS=bind\n'
              b'SRC=tmpB TARGET=/mnt/b ROOT=/ OPTS=defaults,user=joe,ro=1,X-y,loop,_netdev,z\n'
              b'SRC=proc TARGET=/mnt/c ROOT=/ OPTS=noauto,comment=c,nofail,sync,mode=7\n')


def mtab_utab_split(t, binary, base):
    mi, utab = os.path.join(base, 'split.mi'), os.path.join(base, 'split.utab')
    with open(mi, 'wb') as fh:
        fh.write(UTAB_MI)
    with open(utab, 'wb') as fh:
        fh.write(UTAB_SPLIT)
    env = dict(os.environ, LIBMOUNT_UTAB=utab)
    sets = [['-o', 'TARGET,OPTIONS,VFS-OPTIONS,FS-OPTIONS'], ['--vfs-all'],
            ['-o', 'TARGET,VFS-OPTIONS', '-O', 'noexec'], ['-o', 'TARGET,FS-OPTIONS', '-U']]
    for o in sets:
        for form in ([], ['-J'], ['-r'], ['-P'], ['-J', '-l']):
            args = ['-m', '-F', mi] + o + form
            fstab_same(t, 'mtab utab split', args, [binary, 'list'] + args, env=env,
                       json_out='-J' in form)
    if blkid_or_skip(t, binary, '/dev/null', 'mtab utab split -x'):
        for args in (['-m', '-x', '--verbose', '-F', mi], ['-m', '-x', '-F', mi],
                     ['-x', '-m', '--verbose', '-F', mi, '-t', 'tmpfs']):
            fstab_same(t, 'mtab utab split verify', args, [binary, 'list'] + args, env=env)


# -m: a utab line with a NUL byte. libmount 2.38.1 (mnt_table_parse_next())
# looks for a line's newline with strchr(), which stops at the NUL: a line
# that ends in a newline with a NUL before it has "no newline", a parse
# error passed over without a word, its options merged nowhere (the line
# before it for the same mount takes the mount). The file's last line
# without a newline is read as a C string, up to its first NUL, as the
# -F reader reads a mountinfo file's (tabfile_nul_tail).
UTAB_NUL_MI = (b'1 0 254:0 / / rw - ext4 /dev/vda rw\n'
               b'2 1 0:5 / /x rw - tmpfs tmp rw\n'
               b'3 2 0:6 / /x rw - tmpfs tmp rw\n')
UTAB_NUL_OK = b'SRC=tmp TARGET=/x ROOT=/ OPTS=x-ok\n'
UTAB_NUL = {
    'last-line': UTAB_NUL_OK + b'SRC=tmp TARGET=/x ROOT=/ OPTS=x-\0bad\n',
    'middle-line': b'SRC=tmp TARGET=/x ROOT=/ OPTS=x-a\0\n' + UTAB_NUL_OK,
    'nul-at-end': UTAB_NUL_OK + b'SRC=tmp TARGET=/x ROOT=/ OPTS=x-b\0\n',
    'nul-first': UTAB_NUL_OK + b'\0SRC=tmp TARGET=/x ROOT=/ OPTS=x-c\n',
    'crlf-nul': UTAB_NUL_OK + b'SRC=tmp TARGET=/x ROOT=/ OPTS=x-d\r\0\n',
    'noeol-nul': UTAB_NUL_OK + b'SRC=tmp TARGET=/x ROOT=/ OPTS=x-e\0junk',
    'noeol-nuls': UTAB_NUL_OK + b'SRC=tmp TARGET=/x ROOT=/ OPTS=x-f\0\0\0',
    'zeros-tail': UTAB_NUL_OK + b'\0' * 8,
    'two-nul-lines': (UTAB_NUL_OK + b'SRC=tmp TARGET=/x ROOT=/ OPTS=x-g\0\n' +
                      b'SRC=tmp TARGET=/x ROOT=/ OPTS=x-h\0\n'),
}


def mtab_utab_nul(t, binary, base):
    mi = os.path.join(base, 'utab-nul.mi')
    with open(mi, 'wb') as fh:
        fh.write(UTAB_NUL_MI)
    for name, text in sorted(UTAB_NUL.items()):
        utab = os.path.join(base, 'utab-nul-' + name)
        with open(utab, 'wb') as fh:
            fh.write(text)
        env = dict(os.environ, LIBMOUNT_UTAB=utab)
        for o in (['-r', '-o', 'ID,TARGET,OPTIONS'], ['-J', '-o', 'ID,FS-OPTIONS,OPTIONS'],
                  ['-r', '-o', 'ID', '-O', 'x-ok']):
            args = ['-m', '-F', mi] + o
            fstab_same(t, 'utab NUL %s' % name, args, [binary, 'list'] + args, env=env,
                       json_out='-J' in o)


# findmnt -x's warning that systemd still uses an older fstab (its
# /run/systemd/systemd-units-load older than /etc/fstab): after -f's loop
# stopped at an entry, verify_warn() prints that entry's target line first
# when it printed none yet; after the whole loop no target.
SD_WARN = r'''set -e
mkdir -p /run/systemd; mount -t tmpfs sdwarn /run/systemd
touch -d 1970-01-02 /run/systemd/systemd-units-load
for a in "$@"; do
  findmnt -F "$FSTAB" -x $a 2>&1; echo "rc=$?"
  "$MNTSNAP" list -F "$FSTAB" -x $a 2>&1 | sed 's/^mntsnap list: //'; echo "rc=$?"
done'''


def verify_systemd_warning(t, binary, base):
    if os.geteuid() != 0 or not shutil.which('unshare') or not os.path.exists('/etc/fstab') \
            or not have_blkid(binary, '/dev/null'):
        print('SKIP -x systemd warning: needs root, unshare, /etc/fstab and libblkid')
        t.skipped += 1
        return
    fstab = os.path.join(base, 'sd.fstab')
    with open(fstab, 'w') as fh:
        fh.write('proc /proc proc defaults 0 0\ntmpfs /tmp tmpfs defaults 0 0\n')
    sets = ['-f', '-f -k', '-f --verbose', '', '--verbose', '-f -t tmpfs']
    for a in sets:
        r = subprocess.run(['unshare', '-m', '--propagation', 'private', 'sh', '-c', SD_WARN,
                            'sh', a], capture_output=True, text=True,
                           env=dict(os.environ, FSTAB=fstab, MNTSNAP=binary))
        outs = r.stdout.split('rc=')
        ok = r.returncode == 0 and len(outs) == 3 and 'systemd still uses' in outs[0]
        fm, ms = outs[0], outs[1].split('\n', 1)[1] if len(outs) > 1 else ''
        t.check('-x %s, systemd on an older fstab' % a,
                ok and fm.strip() == ms.strip() and outs[1][:1] == outs[2][:1],
                short('findmnt %r\nmntsnap %r %s' % (fm, ms, r.stderr)))


def mtab_tid_uuid(t, binary, base):
    mtab_verify_and_tids(t, binary, base)
    mtab_utab_split(t, binary, base)
    mtab_utab_nul(t, binary, base)
    verify_systemd_warning(t, binary, base)
    show_stat_tids(t, binary, base)
    private_ns_part(t, '--utab-order', binary, base, 'utab order')
    if blkid_or_skip(t, binary, '/dev/null', 'saved-table UUID'):
        loop_device_part(t, binary, base, '--tab-uuid', 'saved-table UUID')


def block_devs():
    """MAJ:MIN of block devices whose /dev/NAME is that device, as
    libmount's sysfs_blkdev_get_path() requires of a name it gives."""
    out = []
    for mm in sorted(os.listdir('/sys/dev/block')):
        name = os.path.basename(os.readlink(os.path.join('/sys/dev/block', mm)))
        dev = '/dev/' + name.replace('!', '/')
        try:
            st = os.stat(dev)
        except OSError:
            continue
        ma, mi = (int(x) for x in mm.split(':'))
        if stat.S_ISBLK(st.st_mode) and st.st_rdev == os.makedev(ma, mi):
            out.append((mm, dev))
    return out


def needs_blkid(t, binary, args):
    """-x and SOURCES need libblkid, which a CLI may be built without (the
    check is then counted as skipped)."""
    return ('-x' in args or any('SOURCES' in a for a in args)) \
        and not blkid_or_skip(t, binary, '/dev/null', '/dev/root ' + ' '.join(args))


def dev_root(t, binary, base):
    """A mountinfo source "/dev/root" (the kernel's name for a root fs
    mounted without an initramfs): libmount's kernel_fs_postparse() names
    the device by the line's MAJ:MIN (/sys/dev/block, then /dev/NAME), so
    SOURCE, -S and -x show and match the real device; major 0 (and a
    device /sys does not know) falls back to root= on the kernel command
    line, none here, so /dev/root stays. mounts-format text is not
    post-parsed: its /dev/root stays."""
    devs = block_devs()[:2]
    if not devs:
        print('SKIP /dev/root: no block device here')
        t.skipped += 1
        return
    mi = os.path.join(base, 'devroot.mountinfo')
    lines = ['20 1 %s / / rw - ext4 /dev/root rw' % devs[0][0],
             '21 20 0:3 / /a rw - tmpfs /dev/root rw',
             '23 20 250:250 / /c rw - ext4 /dev/root rw']
    if len(devs) > 1:
        lines.append('22 20 %s /sub /b rw - ext4 /dev/root rw' % devs[1][0])
    with open(mi, 'w') as fh:
        fh.write('\n'.join(lines) + '\n')
    mo = os.path.join(base, 'devroot.mounts')
    with open(mo, 'w') as fh:
        fh.write('/dev/root / ext4 rw 0 0\nproc /proc proc rw 0 0\n')
    for args in ([], ['-l'], ['-r', '-o', 'SOURCE,TARGET,MAJ:MIN,SOURCES'], ['-J'], ['-P'],
                 ['-S', devs[0][1], '-l'], ['-S', '/dev/root', '-l'], [devs[0][1]],
                 ['-f', '-S', devs[0][1]], ['-S', devs[-1][1] + '[/sub]'],
                 ['-v', '-o', 'SOURCE'], ['-c', '-o', 'SOURCE'], ['-x', '-k']):
        if needs_blkid(t, binary, args):
            continue
        lookup_pair(t, '/dev/root', binary, ['-F', mi] + args)
    for args in ([], ['-S', '/dev/root']):
        lookup_pair(t, '/dev/root mounts format', binary, ['-F', mo] + args)
    # the library keeps the kernel's text: the file renders back as read
    rc, out, err = run([binary, 'list', '-F', mi, '--format', 'mountinfo'])
    with open(mi, 'rb') as fh:
        t.check('/dev/root: --format mountinfo gives the file back', rc == 0 and out == fh.read(),
                short(err.decode(errors='replace') + out.decode(errors='replace')))
    private_ns_part(t, '--dev-root', binary, base, '/dev/root and root=')


BUSY_MOUNTS = 800
BUSY_CHURN = r"""
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
t = sys.argv[1].encode(); end = time.time() + float(sys.argv[2])
while time.time() < end:
    libc.mount(b"churn", t, b"tmpfs", 0, None); libc.umount2(t, 0)
"""


def busy_table_inner(binary, base):
    """In a private mount namespace already: a table that never stops
    changing (a tmpfs mounted and unmounted without pause next to
    BUSY_MOUNTS mounts), where every statmount capture of the whole
    table races. findmnt reads the mountinfo text once and prints; list
    and stat print what findmnt prints, exit 0, no word on stderr. The
    churn runs at most 20 s (killed sooner). Prints the tally as JSON."""
    t = Tally()
    top = os.path.join(base, 'busy')
    os.makedirs(top)
    subprocess.run(['mount', '-t', 'tmpfs', 'busy', top], check=True)
    os.makedirs(os.path.join(top, 'a'))
    libc = ctypes.CDLL(None, use_errno=True)
    for i in range(BUSY_MOUNTS):
        d = os.path.join(top, 'm%d' % i)
        os.makedirs(d)
        if libc.mount(b'm%d' % i, d.encode(), b'tmpfs', 0, None):
            raise OSError(ctypes.get_errno(), 'mount ' + d)
    churn = subprocess.Popen([sys.executable, '-c', BUSY_CHURN, os.path.join(top, 'a'), '20'])
    try:
        time.sleep(0.3)
        m1 = os.path.join(top, 'm1')
        for args in (['-r', '-M', m1], ['-n', '-o', 'TARGET', '-t', 'proc'], ['-J', m1],
                     ['-r', '-o', 'TARGET,SOURCE,ID', '-S', 'm7'], ['-T', m1, '-o', 'SOURCE']):
            ra, a, ea = run(['findmnt'] + args)
            rb, b, eb = run([binary, 'list'] + args)
            if '-J' in args and ra == rb == 0:
                a, b = jload(a), jload(b)
            t.check('busy table: findmnt %s' % ' '.join(args), (ra, a, ea) == (rb, b, eb),
                    'findmnt %d %r %r\n  mntsnap %d %r %r' % (ra, a, ea, rb, b, eb))
        # the library's own contract is unchanged: consistent or refused.
        # A capture the churn did not race (a loaded machine may starve
        # it) is a consistent one: tried until one is refused.
        outcomes = []
        for _ in range(10):
            rb, b, eb = run([binary, 'list', '--backend', 'statmount', '-r', '-M', m1])
            outcomes.append((rb, eb))
            if rb != 0:
                break
        rb, eb = outcomes[-1]
        if rb == 0:
            print('SKIP busy table: the churn raced none of %d statmount captures' %
                  len(outcomes))
            t.skipped += 1
        else:
            t.check('busy table: list --backend statmount still refuses a table that kept '
                    'changing', rb == 2 and b'kept changing' in eb, '%d %r' % (rb, eb))
        rb, b, eb = run([binary, 'stat', '-r', m1])
        ra, a, ea = run(['findmnt', '-r', '-T', m1])
        t.check('busy table: stat PATH as findmnt -T', (ra, a, ea) == (rb, b, eb),
                'findmnt %d %r %r\n  mntsnap %d %r %r' % (ra, a, ea, rb, b, eb))
    finally:
        churn.kill()
        churn.wait()
        subprocess.run(['umount', '-R', top], check=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def dev_root_inner(binary, base):
    """In a private mount namespace already: /proc/cmdline replaced (a bind
    mount) by lines whose root= libmount's mnt_guess_system_root() reads
    for a "/dev/root" it cannot name by MAJ:MIN (major 0, or a device
    /sys does not know): MAJ:MIN, the kernel's hex number, a path, a
    missing path, a tag nothing has, the last of two, one past " -- ",
    and a table read live (a tmpfs mounted as "/dev/root"). Prints the
    tally as JSON on its last line."""
    t = Tally()
    mm, dev = block_devs()[0]
    ma, mi_ = (int(x) for x in mm.split(':'))
    hexdev = '%x' % ((mi_ & 0xff) | (ma << 8) | ((mi_ & ~0xff) << 12))
    mi = os.path.join(base, 'devroot-cmdline.mountinfo')
    with open(mi, 'w') as fh:
        fh.write('20 1 0:3 / / rw - tmpfs /dev/root rw\n'
                 '21 20 250:250 / /c rw - ext4 /dev/root rw\n'
                 '22 20 0:4 / /d rw - proc proc rw\n')
    live = os.path.join(base, 'live-root')
    os.makedirs(live)
    subprocess.run(['mount', '-t', 'tmpfs', '/dev/root', live], check=True)
    cmd = os.path.join(base, 'cmdline')
    for line in ('ro root=%s quiet' % mm, 'root=%s' % hexdev, 'root=%s ro' % dev,
                 'root=/dev/no-such-mntsnap-disk', 'root=PARTUUID=0badc0de-01 rw',
                 'root=/dev/no-such root=%s' % mm, 'quiet -- root=%s' % mm,
                 'nfsroot=%s' % mm, 'root=%s' % os.path.basename(dev), 'root=FOO=bar',
                 'root=/dev/no-such  root=%s' % mm, 'root=', ''):
        with open(cmd, 'w') as fh:
            fh.write(line + '\n')
        subprocess.run(['mount', '--bind', cmd, '/proc/cmdline'], check=True)
        try:
            for args in (['-F', mi, '-l'], ['-F', mi, '-S', dev, '-r'], ['-F', mi, '-x', '-k'],
                         ['-M', live, '-r', '-o', 'SOURCE,TARGET'], ['-S', dev, '-M', live]):
                if not needs_blkid(t, binary, args):
                    lookup_pair(t, '/dev/root, cmdline %r' % line, binary, args)
        finally:
            subprocess.run(['umount', '/proc/cmdline'], check=True)
    # -p: findmnt reads each new table as mountinfo text, renamed alike
    with open(cmd, 'w') as fh:
        fh.write('root=%s\n' % mm)
    subprocess.run(['mount', '--bind', cmd, '/proc/cmdline'], check=True)
    polled = os.path.join(base, 'polled-root')
    os.makedirs(polled)
    try:
        poll_history(t, '/dev/root -p', binary,
                     [['-p', '-r', '-o', 'ACTION,TARGET,SOURCE,OLD-TARGET'],
                      ['-p', '-S', dev, '-o', 'ACTION,SOURCE']],
                     ['mount -t tmpfs /dev/root %s' % polled, 'mount -o remount,ro %s' % polled,
                      'umount %s' % polled], None, base)
    finally:
        subprocess.run(['umount', '/proc/cmdline'], check=True)
    dev_root_tags(t, binary, mi, live, cmd)
    subprocess.run(['umount', live], check=True)
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def dev_root_tags(t, binary, mi, live, cmd):
    """root=UUID=, root=LABEL= naming an ext4 on a loop device (libblkid's
    answer, as libmount's mnt_resolve_spec()): skipped without a loop
    device, mkfs.ext4 or a CLI built with libblkid."""
    base = os.path.dirname(mi)
    if not shutil.which('losetup') or not shutil.which('mkfs.ext4') \
            or not have_blkid(binary, '/dev/null'):
        print('SKIP /dev/root, root=TAG: needs losetup, mkfs.ext4, a CLI with libblkid')
        t.skipped += 1
        return
    dev = loop_image(base, 'devroot.img', '/dev/root, root=TAG')
    if dev is None:
        t.skipped += 1
        return
    label = 'mntsnap-root-%d' % os.getpid()
    try:
        subprocess.run(['mkfs.ext4', '-q', '-F', '-L', label, dev], check=True,
                       capture_output=True)
        uuid = subprocess.run(['blkid', '-p', '-o', 'value', '-s', 'UUID', dev],
                              capture_output=True, text=True).stdout.strip()
        for line in ('root=UUID=%s' % uuid, 'root=LABEL=%s ro' % label):
            with open(cmd, 'w') as fh:
                fh.write(line + '\n')
            subprocess.run(['mount', '--bind', cmd, '/proc/cmdline'], check=True)
            try:
                for args in (['-F', mi, '-l'], ['-F', mi, '-S', dev, '-r'],
                             ['-M', live, '-r', '-o', 'SOURCE,TARGET']):
                    lookup_pair(t, '/dev/root, cmdline %r' % line, binary, args)
            finally:
                subprocess.run(['umount', '/proc/cmdline'], check=True)
    finally:
        subprocess.run(['losetup', '-d', dev], capture_output=True)


# Locales findmnt's output depends on (built with localedef into a LOCPATH
# of the test's own): the decimal point of SIZE, USED, AVAIL (LC_NUMERIC,
# a comma in de_DE), what a table shows raw or as \xHH and how wide it
# counts it (LC_CTYPE's mbrtowc, iswprint, wcwidth, isprint: Latin-1's
# printable bytes, KOI8-R's box drawing at 0x80, ISO-8859-7's holes,
# EUC-JP's double-width and 3-byte characters, BIG5's characters whose
# second byte is a backslash), raw's and pairs' isprint()/isblank(), and
# the tree in ASCII outside UTF-8. (name, locale source, charmap)
LOCALES = [('de_DE.ISO-8859-1', 'de_DE', 'ISO-8859-1'), ('ja_JP.EUC-JP', 'ja_JP', 'EUC-JP'),
           ('de_DE.UTF-8', 'de_DE', 'UTF-8'), ('ru_RU.KOI8-R', 'ru_RU', 'KOI8-R'),
           ('el_GR.ISO-8859-7', 'el_GR', 'ISO-8859-7'), ('zh_TW.BIG5', 'zh_TW', 'BIG5'),
           ('tr_TR.UTF-8', 'tr_TR', 'UTF-8')]
# Column names as findmnt matches them: strncasecmp() in the process's
# LC_CTYPE, against the upper-case names. In tr_TR 'I' and 'i' are no case
# pair, so OPTIONS, ID, MAJ:MIN are found as written and "id" is unknown.
LOCALE_COLUMN_ARGS = [['-o', 'TARGET,OPTIONS'], ['-o', 'TARGET,ID,MAJ:MIN,PARENT,PROPAGATION'],
                      ['-o', 'target,id'], ['-o', 'target,options'], ['-o', 'Target,Fstype'],
                      ['-o', 'TARGET,VFS-OPTIONS,FS-OPTIONS,OPT-FIELDS,FSROOT'],
                      ['-o', 'TARGET,LABEL,UUID,PARTUUID,PARTLABEL'], ['--output-all'],
                      ['-D'], ['-J'], [], ['-o', '+ID'], ['-o', '+id']]
# mount sources and mount point names, bytes: each is printable in some
# of LOCALES and not in others
LOCALE_NAMES = [b'e\xe9f', b'g\xc3\xa9h', b'\xa4\xa2x', b'c1\x85\x9bz', b'nb\xa0\xff',
                b'bs\\x41', b'kana\x8e\xb1', b'j3\x8f\xb0\xa1', b'lead\xa4', b'big\xb3\\x5',
                b'koi\xc1\xd2', b'box\x80\x95', b'el\xae\xe1', b'sp ace', b'w\xe3\x81\x82',
                b'q$`"x', b'\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9\xe9']


def make_locales(t, base):
    """LOCALES built into base/loc: (LOCPATH, the names built); a locale
    whose source or charmap this machine lacks is skipped, saying so."""
    loc = os.path.join(base, 'loc')
    os.makedirs(loc, exist_ok=True)
    built = []
    i18n = '/usr/share/i18n'
    for name, src, cmap in LOCALES:
        have = shutil.which('localedef') and os.path.exists(os.path.join(i18n, 'locales', src)) \
            and any(os.path.exists(os.path.join(i18n, 'charmaps', cmap + x)) for x in ('', '.gz'))
        if have:
            subprocess.run(['localedef', '-i', src, '-f', cmap, os.path.join(loc, name)],
                           capture_output=True)
            r = subprocess.run(['locale', 'charmap'], capture_output=True, text=True,
                               env={'LOCPATH': loc, 'LC_ALL': name, 'PATH': os.environ['PATH']})
            have = r.stdout.strip() == cmap
        if have:
            built.append(name)
        else:
            print('SKIP locale %s: localedef, its source %s or its charmap %s missing here'
                  ' (Debian: the locales package)' % (name, src, cmap))
            t.skipped += 1
    return loc, built


def locale_inner(binary, base):
    """In a private mount namespace already: tmpfs mounts named by
    LOCALE_NAMES (sizes with a fraction, some of each used) under one of
    our own, read by both programs in every form under each of LOCALES,
    C and C.UTF-8, and under environments that mix the categories. Prints
    the tally as JSON on its last line."""
    t = Tally()
    loc, built = make_locales(t, base)
    top = os.path.join(base, 'm')
    os.makedirs(top)
    subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=18534k', 'lc-top', top], check=True)
    with open(os.path.join(top, 'fill'), 'wb') as fh:
        fh.write(b'x' * 1126400)
    for k, n in enumerate(LOCALE_NAMES):
        d = os.path.join(os.fsencode(top), n)
        os.mkdir(d)
        subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=%dk' % (1229 + 1000 * k), n, d],
                       check=True)
        if k % 3 == 0:
            with open(os.path.join(d, b'fill'), 'wb') as fh:
                fh.write(b'y' * (300000 + 7000 * k))
    plain = {k: v for k, v in os.environ.items()
             if not k.startswith('LC_') and k not in ('LANG', 'LANGUAGE')}
    plain['LOCPATH'] = loc
    envs = [('LC_ALL=' + n, dict(plain, LC_ALL=n)) for n in built + ['C', 'C.UTF-8']]
    if 'de_DE.UTF-8' in built and 'de_DE.ISO-8859-1' in built:
        # each category from its own variable; LC_ALL over them all; and
        # one that does not load: findmnt's setlocale(LC_ALL, "") then
        # fails as a whole, and every category stays C
        envs += [('LC_CTYPE=de_DE.ISO-8859-1 LC_NUMERIC=de_DE.UTF-8',
                  dict(plain, LANG='C', LC_CTYPE='de_DE.ISO-8859-1', LC_NUMERIC='de_DE.UTF-8')),
                 ('LANG=de_DE.UTF-8 LC_NUMERIC=C', dict(plain, LANG='de_DE.UTF-8', LC_NUMERIC='C')),
                 ('LC_ALL=de_DE.ISO-8859-1 LC_NUMERIC=C',
                  dict(plain, LC_ALL='de_DE.ISO-8859-1', LC_NUMERIC='C')),
                 ('LANG=de_DE.UTF-8 LC_NUMERIC=xx_XX.nowhere',
                  dict(plain, LANG='de_DE.UTF-8', LC_NUMERIC='xx_XX.nowhere'))]
    forms = [[], ['-a'], ['-l'], ['-r'], ['-P'], ['-J'], ['-J', '-l'], ['-n'], ['-l', '-n'],
             ['-r', '--tree'], ['-P', '--tree']]
    colsets = [[], ['-o', 'TARGET,SOURCE,SIZE,USED,AVAIL,USE%'], ['-D'],
               ['-o', 'SOURCE,SIZE,TARGET,AVAIL,USED', '-b']]
    # FMEQ_QUICK (a sanitizer build): the tree, -l, -r and -P forms only
    if os.environ.get('FMEQ_QUICK'):
        forms = [[], ['-l'], ['-r'], ['-P']]
    for label, env in envs:
        for cols in colsets:
            for form in forms:
                if '-D' in cols and '--tree' in form:
                    continue
                args = ['-R', '-M', top] + cols + form
                ra, a, _ = run(['findmnt'] + args, env)
                rb, b, eb = run([binary, 'list'] + args, env)
                why = exact('json' if '-J' in form else 'text', a, b) if ra == rb else (
                    'exit findmnt %d mntsnap %d: %s' % (ra, rb, eb.decode(errors='replace')))
                t.check('locale %s %s' % (label, ' '.join(cols + form)), not why, short(why))
    for label, env in envs:
        for cols in LOCALE_COLUMN_ARGS:
            args = ['-R', '-M', top, '-l'] + cols
            ra, a, ea = run(['findmnt'] + args, env)
            rb, b, eb = run([binary, 'list'] + args, env)
            if '--output-all' in cols:   # TID is each reader's own pid: the names
                a, b = a.split(b'\n')[0], b.split(b'\n')[0]
            if ra == 1 and ea and not a:
                # findmnt's error status is 1, mntsnap's 2 (README's kept list);
                # its words ("unknown column: id", or its catalogue's) after
                # mntsnap's "list: "
                words = ea.rstrip(b'\n').split(b': ', 1)[-1]
                why = '' if rb == 2 and eb.endswith(b' list: ' + words + b'\n') and not b else \
                    'findmnt refuses %r, mntsnap %d %r %r' % (ea, rb, b, eb)
            else:
                why = exact('json' if '-J' in cols else 'text', a, b) if ra == rb else (
                    'exit findmnt %d mntsnap %d: %s' % (ra, rb, eb.decode(errors='replace')))
            t.check('locale %s column names %s' % (label, ' '.join(cols)), not why, short(why))
    # -x: findmnt's %m is strerror() in its LC_MESSAGES (libc's catalog
    # translates it: "Datei oder Verzeichnis nicht gefunden" in de_DE)
    fst = os.path.join(base, 'locale.fstab')
    with open(fst, 'wb') as fh:
        fh.write(b'/dev/nonexistent-x %s/nowhere ext4 defaults 0 0\n'
                 b'/dev/nonexistent-y %s/e\xe9f tmpfs noauto 0 2\n' % (os.fsencode(base),
                                                                      os.fsencode(top)))
    if blkid_or_skip(t, binary, fst, 'locale -x'):
        for label, env in envs:
            for args in (['-x'], ['-x', '--verbose']):
                ra, a, ea = run(['findmnt', '-s', '-F', fst] + args, env)
                rb, b, eb = run([binary, 'list', '-s', '-F', fst] + args, env)
                why = '' if (ra, a, ea) == (rb, b, eb) else short(
                    'exit %d/%d\nfindmnt %r %r\nmntsnap %r %r' % (ra, rb, a, ea, b, eb), 1200)
                t.check('locale %s %s' % (label, ' '.join(args)), not why, why)
    # -p: each change's line as list prints it, sizes and escapes alike
    # (not -J: findmnt 2.38.1's -p -J fails an assertion at its first change)
    steps = ["mkdir -p \"$(printf 'p\\351')\" && mount -t tmpfs -o size=1300k "
             "\"$(printf 's\\244\\242\\351x')\" \"$(printf 'p\\351')\"",
             "mkdir -p q && mount -t tmpfs -o size=2700k \"$(printf 'k\\301\\200 \\217')\" q",
             "umount \"$(printf 'p\\351')\"", "umount q"]
    for n in ('de_DE.ISO-8859-1', 'ja_JP.EUC-JP', 'de_DE.UTF-8', 'tr_TR.UTF-8'):
        if n in built:
            sets = [['-p', '-t', 'tmpfs', '-o', 'ACTION,TARGET,SOURCE,SIZE,AVAIL,USED'] + f
                    for f in ([], ['-r'], ['-P'], ['-n'])]
            if n == 'tr_TR.UTF-8':   # the default columns (OPTIONS), ID
                sets = [['-p', '-t', 'tmpfs'], ['-p', '-t', 'tmpfs', '-r', '-o', '+ID']]
            poll_history(t, 'locale LC_ALL=%s' % n, binary, sets, steps,
                         dict(plain, LC_ALL=n), top)
    subprocess.run(['umount', '-R', top])
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


# findmnt's messages through gettext (text domain "util-linux"): both
# programs under util-linux's catalogue (Debian's util-linux-locales,
# installed or its .deb unpacked here), bound over /usr/share/locale in
# this part's private namespace only, so no other part sees a catalogue
# the machine lacks. (name, locale source, charmap, catalogue's language)
GETTEXT_LOCALES = [('fr_FR.UTF-8', 'fr_FR', 'UTF-8'), ('de_DE.UTF-8', 'de_DE', 'UTF-8'),
                   ('ja_JP.UTF-8', 'ja_JP', 'UTF-8'), ('ja_JP.EUC-JP', 'ja_JP', 'EUC-JP')]
GETTEXT_LANGS = ('fr', 'de', 'ja')


def gettext_catalogue(base):
    """A directory holding LANG/LC_MESSAGES/util-linux.mo for GETTEXT_LANGS
    (the machine's, else util-linux-locales' .deb fetched and unpacked
    into base), or None."""
    have = '/usr/share/locale/%s/LC_MESSAGES/util-linux.mo'
    if all(os.path.exists(have % l) for l in GETTEXT_LANGS):
        return '/usr/share/locale'
    if not shutil.which('apt-get') or not shutil.which('dpkg-deb'):
        return None
    d = os.path.join(base, 'deb')
    os.makedirs(d)
    subprocess.run(['apt-get', 'download', 'util-linux-locales'], cwd=d, capture_output=True)
    debs = [f for f in os.listdir(d) if f.endswith('.deb')]
    if not debs or subprocess.run(['dpkg-deb', '-x', os.path.join(d, debs[0]),
                                   os.path.join(d, 'x')]).returncode:
        return None
    got = os.path.join(d, 'x', 'usr', 'share', 'locale')
    return got if all(os.path.exists(os.path.join(got, l, 'LC_MESSAGES', 'util-linux.mo'))
                      for l in GETTEXT_LANGS) else None


def gettext_fstabs(base):
    """fstabs whose -x reports print each of findmnt's verify messages:
    (name, path, extra -x options)."""
    d = os.path.join(base, 'vfy')
    for sub in ('a', 'a/b', 'mnt', 'srcdir'):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    afile = os.path.join(d, 'afile')
    open(afile, 'w').close()
    blank = os.path.join(d, 'blank.img')
    with open(blank, 'wb') as fh:
        fh.truncate(1 << 20)
    img = os.path.join(d, 'ext4.img')
    with open(img, 'wb') as fh:
        fh.truncate(4 << 20)
    ext4 = shutil.which('mkfs.ext4') and not subprocess.run(
        ['mkfs.ext4', '-q', '-F', img], capture_output=True).returncode
    blk = os.path.join(d, 'blk')
    made = not subprocess.run(['mknod', blk, 'b', '7', '250'], capture_output=True).returncode
    m = os.path.join(d, 'mnt')
    lines = [
        # the order: twice, and a target before the one it lies under
        'tmpfs %s tmpfs defaults 0 0' % m, 'tmpfs %s tmpfs noauto 0 0' % m,
        'tmpfs %s/a/b tmpfs defaults 0 0' % d, 'tmpfs %s/a tmpfs defaults 0 0' % d,
        # targets: not canonical, missing (with and without noauto), a file
        'tmpfs %s/a/../mnt tmpfs defaults 0 0' % d,
        'tmpfs %s/nowhere tmpfs defaults 0 0' % d, 'tmpfs %s/nowhere2 tmpfs noauto 0 0' % d,
        '%s %s ext4 defaults 0 0' % (blank, afile),
        # sources: a tag nobody has, an unknown tag, a missing path, a
        # directory, a character device, a block device with nothing on it
        'LABEL=mntsnap-no-such-label %s ext4 defaults 0 0' % m,
        'LABEL=mntsnap-no-such-label2 %s ext4 noauto 0 0' % m,
        'NOSUCHTAG=x %s ext4 defaults 0 0' % m,
        '/dev/mntsnap-nonexistent %s ext4 defaults 0 0' % m,
        '%s/srcdir %s ext4 defaults 0 0' % (d, m),
        '/dev/null %s ext4 defaults 0 0' % m,
        # options, and types: none, unknown to the kernel, auto, nothing on disk
        'tmpfs %s tmpfs ro,noexec,size=1m,user,x-mntsnap=1 0 0' % m,
        'tmpfs %s none defaults 0 0' % m,
        '%s %s mntsnapfs defaults 0 0' % (blank, m),
        '%s %s auto defaults 0 0' % (blank, m),
        # swap areas: a bad discard policy, a bad priority
        '%s none swap discard=never,pri=x1 0 0' % blank,
        '%s none swap discard=once,pri=-3 0 0' % blank,
        # the root's passno
        'tmpfs / tmpfs defaults 0 2',
        'this line is broken',
    ]
    if made:
        lines.append('%s %s ext4 defaults 0 0' % (blk, m))
    if ext4:   # an ext4 (a regular file): its type, another type
        lines += ['%s %s ext4 defaults 0 0' % (img, m), '%s %s xfs defaults 0 0' % (img, m)]
    out = []
    for name, body in (('all', lines), ('clean', ['tmpfs %s tmpfs defaults 0 0' % m]),
                       ('one-each', ['tmpfs %s tmpfs defaults 0 0' % m,
                                     'tmpfs %s tmpfs defaults 0 0' % m, 'broken',
                                     'tmpfs %s/nowhere tmpfs noauto 0 0' % d])):
        path = os.path.join(d, name + '.fstab')
        with open(path, 'w') as fh:
            fh.write('\n'.join(body) + '\n')
        out.append((name, path))
    return out


def help_columns(text):
    """findmnt -h's column list, whatever its heading's language: NAME -> description."""
    cols = {}
    for line in text.splitlines():
        m = re.match(r'^ {0,12}([A-Z][A-Z:%-]*[A-Z%]|ID)  (\S.*)$', line)
        if m:
            cols[m.group(1)] = m.group(2)
    return cols


def gettext_inner(binary, base):
    """In a private mount namespace already: util-linux's catalogue bound
    over /usr/share/locale (with the machine's libc.mo, strerror()'s
    words), then findmnt and mntsnap under each of GETTEXT_LOCALES and
    environments that pick LC_MESSAGES and LANGUAGE apart: -x's report and
    summary, -p's ACTION, --list-columns' descriptions, error messages.
    Prints the tally as JSON on its last line."""
    t = Tally()
    cat = gettext_catalogue(base)
    if not cat:
        print('SKIP gettext: no util-linux catalogue (Debian: util-linux-locales, '
              'installed or its .deb from apt-get download)')
        t.skipped += 1
        print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
        return 0
    share = os.path.join(base, 'share-locale')
    for lang in GETTEXT_LANGS:
        dst = os.path.join(share, lang, 'LC_MESSAGES')
        os.makedirs(dst)
        libc = '/usr/share/locale/%s/LC_MESSAGES/libc.mo' % lang
        if os.path.exists(libc):
            shutil.copy(libc, dst)
        shutil.copy(os.path.join(cat, lang, 'LC_MESSAGES', 'util-linux.mo'), dst)
    loc = os.path.join(base, 'loc')
    os.makedirs(loc)
    built = []
    for name, src, cmap in GETTEXT_LOCALES:
        subprocess.run(['localedef', '-i', src, '-f', cmap, os.path.join(loc, name)],
                       capture_output=True)
        r = subprocess.run(['locale', 'charmap'], capture_output=True, text=True,
                           env={'LOCPATH': loc, 'LC_ALL': name, 'PATH': os.environ['PATH']})
        if r.stdout.strip() == cmap:
            built.append(name)
        else:
            print('SKIP gettext %s: localedef, its source or charmap missing here' % name)
            t.skipped += 1
    subprocess.run(['mount', '--bind', share, '/usr/share/locale'], check=True)
    plain = {k: v for k, v in os.environ.items()
             if not k.startswith('LC_') and k not in ('LANG', 'LANGUAGE')}
    plain['LOCPATH'] = loc
    envs = [('LC_ALL=' + n, dict(plain, LC_ALL=n)) for n in built]
    if 'de_DE.UTF-8' in built and 'fr_FR.UTF-8' in built:
        # LANGUAGE over LC_MESSAGES (not in C); LC_MESSAGES alone, its
        # words in LC_CTYPE's ASCII; LC_MESSAGES over LANG
        envs += [('LANG=de_DE.UTF-8 LANGUAGE=fr', dict(plain, LANG='de_DE.UTF-8', LANGUAGE='fr')),
                 ('LC_ALL=C LANGUAGE=fr', dict(plain, LC_ALL='C', LANGUAGE='fr')),
                 ('LANG=C LC_MESSAGES=fr_FR.UTF-8', dict(plain, LANG='C',
                                                         LC_MESSAGES='fr_FR.UTF-8')),
                 ('LANG=fr_FR.UTF-8 LC_MESSAGES=de_DE.UTF-8',
                  dict(plain, LANG='fr_FR.UTF-8', LC_MESSAGES='de_DE.UTF-8'))]
    # the catalogue loads: findmnt's words are not its English
    if 'fr_FR.UTF-8' in built:
        _, o, _ = run(['findmnt', '-h'], dict(plain, LC_ALL='fr_FR.UTF-8'))
        t.check('gettext: findmnt speaks French here', b'Find a (mounted)' not in o, short(repr(o)))
    fstabs = gettext_fstabs(base)
    blk = blkid_or_skip(t, binary, fstabs[0][1], 'gettext -x')
    _, fh, _ = run(['findmnt', '-h'], dict(plain, LC_ALL='C'))
    fm_c = help_columns(fh.decode())
    _, o, _ = run([binary, 'list', '--list-columns'], dict(plain, LC_ALL='C'))
    ms_c = dict(l.split(None, 1) for l in o.decode().splitlines())
    for label, env in envs:
        # -x: every message kind, the summary's plurals, the success line
        for name, path in fstabs if blk else ():
            for args in (['-x'], ['-x', '--verbose']):
                ra, a, ea = run(['findmnt', '-s', '-F', path] + args, env)
                rb, b, eb = run([binary, 'list', '-s', '-F', path] + args, env)
                why = '' if (ra, a, norm_err(ea)) == (rb, b, norm_err(eb)) else short(
                    'exit %d/%d\nfindmnt %r %r\nmntsnap %r %r' % (ra, rb, a, ea, b, eb), 1500)
                t.check('gettext %s %s %s' % (label, name, ' '.join(args)), not why, why)
        # --list-columns: findmnt -h's description of each of its columns
        _, fh, _ = run(['findmnt', '-h'], env)
        fm = help_columns(fh.decode('utf-8', 'surrogateescape'))
        rc, o, _ = run([binary, 'list', '--list-columns'], env)
        ms = dict(l.split(None, 1) if ' ' in l else (l, '')
                  for l in o.decode('utf-8', 'surrogateescape').splitlines())
        if fm == fm_c:   # findmnt in English: mntsnap's English (its remarks too)
            fm = {c: ms_c.get(c) for c in fm}
        bad = ['%s: findmnt %r, mntsnap %r' % (c, d, ms.get(c)) for c, d in sorted(fm.items())
               if ms.get(c) != d]
        t.check('gettext %s --list-columns: findmnt -h\'s descriptions (%d)' % (label, len(fm)),
                rc == 0 and len(fm) >= 27 and not bad, short('\n'.join(bad), 1500))
        # errors: the same stderr, the program's name aside ...
        for args in (['-N', 'abc'], ['-N', '99999999999'], ['-p', '-w', 'x'],
                     ['-w', '99999999999', '-p'], ['-F', os.path.join(base, 'nonexistent')],
                     ['-F', base], ['-s', '-F', os.path.join(base, 'nonexistent')]):
            ra, _, ea = run(['findmnt'] + args, env)
            rb, _, eb = run([binary, 'list'] + args, env)
            why = '' if norm_err(ea) == norm_err(eb) and ea else 'findmnt %r\nmntsnap %r' % (ea, eb)
            t.check('gettext %s error %s' % (label, ' '.join(args)), not why, why)
        # ... or mntsnap's "list" where findmnt names itself: options
        # findmnt refuses together, a lookup beside an argument
        for args in (['-p', '-s'], ['-m', '-s'], ['--real', '--pseudo'], ['-J', '-x'],
                     ['-S', 'x', '-T', '/', 'y']):
            ra, _, ea = run(['findmnt'] + args, env)
            rb, _, eb = run([binary, 'list'] + args, env)
            t.check('gettext %s refused %s' % (label, ' '.join(args)),
                    (ra, rb) == (1, 2) and (excl_same(ea, eb) or eb == b'mntsnap: list: ' + ea[
                        len(b'findmnt: '):]), 'findmnt %r\nmntsnap %r' % (ea, eb))
        # ... or, after mntsnap's "list: ", findmnt's words
        for args in (['-o', 'TARGET,NOSUCH'], ['-o', 'TARGET,ACTION'], ['-d', 'upward'],
                     ['--poll=mount,foo', '-w', '0'],
                     ['-p', '-w', '0', '-o', 'ACTION,NOSUCH'],
                     ['-s', '-F', fstabs[2][1], '-o', 'TARGET']):
            ra, _, ea = run(['findmnt'] + args, env)
            rb, _, eb = run([binary, 'list'] + args, env)
            words = ea.split(b'\n')[0].split(b': ', 1)[-1]
            t.check('gettext %s error %s' % (label, ' '.join(args)),
                    ea and words in eb, 'findmnt %r\nmntsnap %r' % (ea, eb))
    # -p: ACTION in findmnt's words, each change's line
    top = os.path.join(base, 'p')
    os.makedirs(top)
    subprocess.run(['mount', '-t', 'tmpfs', 'gt-top', top], check=True)
    steps = ['mkdir -p a b && mount -t tmpfs gt-a a', 'mount -o remount,ro a',
             'mount --move a b', 'umount b']
    for label, env in envs:
        poll_history(t, 'gettext %s' % label, binary,
                     [['-p', '-o', 'ACTION,TARGET,SOURCE'], ['-p', '-r', '-o', 'ACTION,TARGET'],
                      ['-p', '-P', '-o', 'ACTION,TARGET']], steps, env, top)
    subprocess.run(['umount', '-R', top])
    subprocess.run(['umount', '/usr/share/locale'])
    print(json.dumps({'passed': t.passed, 'failed': t.failed, 'skipped': t.skipped}))
    return 0


def main():
    clear_ul_debug_env()
    if sys.argv[1] == '--live':
        return live_inner(*sys.argv[2:5])
    if sys.argv[1] == '--blkid':
        return blkid_inner(*sys.argv[2:4])
    if sys.argv[1] == '--nonroot-env':
        return nonroot_env_inner(*sys.argv[2:4])
    if sys.argv[1] == '--dup-tags':
        return dup_tags_inner(*sys.argv[2:4])
    if sys.argv[1] == '--cache-spellings':
        return cache_spellings_live_inner(*sys.argv[2:4])
    if sys.argv[1] == '--source-lookups':
        return source_lookups_inner(*sys.argv[2:4])
    if sys.argv[1] == '--btrfs-subvols':
        return btrfs_subvols_inner(*sys.argv[2:4])
    if sys.argv[1] == '--busy-table':
        return busy_table_inner(*sys.argv[2:4])
    if sys.argv[1] == '--dev-root':
        return dev_root_inner(*sys.argv[2:4])
    if sys.argv[1] == '--poll-discovered':
        return poll_discovered_inner(*sys.argv[2:4])
    if sys.argv[1] == '--utab-order':
        return utab_order_inner(*sys.argv[2:4])
    if sys.argv[1] == '--locale':
        return locale_inner(*sys.argv[2:4])
    if sys.argv[1] == '--gettext':
        return gettext_inner(*sys.argv[2:4])
    if sys.argv[1] == '--tab-uuid':
        return tab_uuid_inner(*sys.argv[2:4])
    if sys.argv[1] == '--target-lookups':
        return target_lookups_inner(*sys.argv[2:4])
    if sys.argv[1] == '--task-kept':
        return task_kept_inner(*sys.argv[2:4])
    if sys.argv[1] == '--poll-task':
        return poll_task_inner(*sys.argv[2:4])
    binary, data = os.path.abspath(sys.argv[1]), sys.argv[2]
    if not shutil.which('findmnt'):
        print('findmnt missing: nothing to compare against')
        return 77
    # libblkid's cache file, which findmnt (libmount's cache, at its exit)
    # and mntsnap rewrite as root after a scan: one of this run's own, so
    # both read the same and neither writes /run/blkid
    blkdir = tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-blkid-')
    os.environ['BLKID_FILE'] = os.path.join(blkdir.name, 'blkid.tab')
    try:
        return compare_all(binary, data)
    finally:
        blkdir.cleanup()


def compare_all(binary, data):
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
    if only in 'fstab-edges':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-edges-') as base:
            fstab_modes_and_edges(t, binary, base)
    if only in 'optparse':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-optparse-') as base:
            optparse(t, binary, base)
    if only in 'poll-args':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-poll-') as base:
            poll_args(t, binary, base)
    if only in 'std-streams':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-streams-') as base:
            std_streams(t, binary, base)
    if only in 'abbrev':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-abbrev-') as base:
            abbrevs(t, binary, data, base)
    if only in 'target-lookups':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-tgt-') as base:
            target_lookups(t, binary, base)
    if only in 'source-lookups':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-src-') as base:
            source_lookups(t, binary, base)
    if only in 'dup-tags':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-dup-') as base:
            dup_tags(t, binary, base)
    if only in 'fstab':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-fstab-') as base:
            fstab(t, binary, data, base)
            nonroot_env(t, binary, base)
            if blkid_or_skip(t, binary, os.path.join(data, 'fstab', 'util-linux.fstab'),
                             'blkid columns on loop devices'):
                blkid(t, binary, base)
    if only in 'btrfs-subvols':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-btrfs-') as base:
            btrfs_subvols(t, binary, base)
    if only in 'columns':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-cols-') as base:
            columns_and_version(t, binary, base)
    if only in 'tabfile':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-tabfile-') as base:
            tabfile_formats(t, binary, data, base)
            tabfile_kinds(t, binary, base)
    if only in 'tabfile-pipes':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-pipes-') as base:
            tabfile_pipes(t, binary, base)
            tabfile_pipes_twice(t, binary, base)
    if only in 'mtab-tid-uuid':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-mtab-') as base:
            mtab_tid_uuid(t, binary, base)
    if only in 'stat-options':
        stat_options(t, binary)
    if only in 'task-kept':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-task-') as base:
            private_ns_part(t, '--task-kept', binary, base, 'task views and kept stat rules')
    if only in 'poll-task':
        if os.geteuid() != 0 or not shutil.which('unshare') or not shutil.which('nsenter'):
            print('SKIP poll of a chroot()ed task: needs root, unshare and nsenter')
            t.skipped += 1
        else:
            with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-polltask-') as base:
                private_ns_part(t, '--poll-task', binary, base, 'chroot()ed tasks polled')
    if only in 'tree-shapes':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-shapes-') as base:
            tree_shapes(t, binary, base)
    if only in 'dup-ids':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-dupids-') as base:
            dup_ids(t, binary, base)
    if only in 'tabread':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-tabread-') as base:
            tabfiles_joined(t, binary, base)
            tabfile_loose(t, binary, base)
            tabfile_lines(t, binary, base)
            tabfile_prop_substr(t, binary, base)
            tabfile_nul_tail(t, binary, base)
            tabfile_opt_merge(t, binary, base)
    if only in 'busy-table':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-busy-') as base:
            private_ns_part(t, '--busy-table', binary, base, 'busy table')
    if only in 'dev-root':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-devroot-') as base:
            dev_root(t, binary, base)
    if only in 'super-options':
        super_options(t, binary, data)
    if only in 'locales':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-locale-') as base:
            private_ns_part(t, '--locale', binary, base, 'locales')
    if only in 'gettext':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-gettext-') as base:
            private_ns_part(t, '--gettext', binary, base, 'gettext')
    if only in 'kernel-tags-types':
        with tempfile.TemporaryDirectory(prefix='mntsnap-fmeq-kt-') as base:
            kernel_tags_types(t, binary, base)
    print('\n%-12s %6s %6s  first difference' % ('column', 'equal', 'differ'))
    for c in COLUMNS:
        eq, ne, ex = t.cols[c]
        print('%-12s %6d %6d  %s' % (c, eq, ne, ex or ''))
    print('\n%d passed, %d failed, %d skipped' % (t.passed, t.failed, t.skipped))
    return 1 if t.failed else 0


if __name__ == '__main__':
    sys.exit(main())
