#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CLI's findmnt habits that findmnt-eq.py does not compare: help
and version, exit statuses, usage texts that claim TARGET only where it
is taken, -N as --pid, and JSON that loses no byte and no 64-bit digit.

  cli-habits.py MNTSNAP_BIN DATA_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

FAILS = []
PASSES = [0]


def run(*args, env=None):
    r = subprocess.run(list(args), capture_output=True, env=env)
    return r.returncode, r.stdout, r.stderr


def check(name, ok, why=''):
    if ok:
        PASSES[0] += 1
    else:
        FAILS.append(name)
        print('FAIL %s %s' % (name, why))


OPTWORD = r'(?<![\w-])(--?[a-zA-Z][\w-]*)'
# an argument for each option that takes one, to try it with
OPTARG = {
    '-o': 'TARGET', '--output': 'TARGET', '-t': 'proc', '--types': 'proc', '-O': 'rw',
    '--options': 'rw', '-T': '/', '--target': '/', '-M': '/', '--mountpoint': '/',
    '-S': 'proc', '--source': 'proc', '-d': 'forward', '--direction': 'forward',
    '--format': 'list', '-w': '10', '--timeout': '10', '-F': '/proc/self/mountinfo',
    '--tab-file': '/proc/self/mountinfo', '--mountinfo-file': '/proc/self/mountinfo',
    '-N': str(os.getpid()), '--task': str(os.getpid()), '--pid': str(os.getpid()),
    '--ns': '/proc/self/ns/mnt', '--ns-id': '1',
}


def ns_id_of_self(b):
    """this namespace's 64-bit id, as mntsnap ns marks it (the "*" row)"""
    _, o, _ = run(b, 'ns')
    for line in o.decode().split('\n'):
        if line.startswith('*'):
            return line.split()[1]
    return '1'


# each command that refuses some of list's options: its arguments before
# and after the option tried, and where each document says what it refuses
# (README's sentence, doc/cli.md's), names given beyond --help's first ones
REFUSERS = {
    'show': {'pre': lambda snap: [snap], 'post': [],
             'readme': r'`show` takes them for a saved table but(.*?)refused',
             'cli': r'`show` refuses (.*?)\(exit 2', 'extra': {'--pid'}},
    'stat': {'pre': lambda snap: [], 'post': ['/'],
             'readme': r'`stat` takes them for one mount but(.*?)refused',
             'cli': r'`stat` refuses (.*?)\(exit 2', 'extra': set()},
}


def refused_options(b, cmd, snap):
    """CMD's --help is the one list of what it takes and what it refuses
    (its "Refused" block): each refused option is refused (exit 2, the
    reason said), each other option of the text is taken, and the README,
    doc/cli.md, mntsnap(1) and the bash completion say the same."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    how = REFUSERS[cmd]
    optarg = dict(OPTARG, **{'--ns-id': ns_id_of_self(b)})
    _, text, _ = run(b, cmd, '--help')
    text = text.decode()
    refused, taken, inside = {}, set(), False
    for line in text.split('\n'):
        if line.startswith('Refused'):
            inside = True
            continue
        if inside and line.startswith('  -'):
            names = re.split(r'\s{2,}', line.strip())[0]
            group = re.findall(OPTWORD, names)
            for n in group:
                refused[n] = group[0]
            continue
        if inside and line.startswith(' '):
            continue
        inside = False
        taken |= set(re.findall(OPTWORD, line))
    check('%s --help: a Refused block' % cmd, len(refused) >= 12, text)
    taken -= set(refused)
    for o in sorted(refused):
        arg = [optarg[o]] if o in optarg else []
        r, out, e = run(b, cmd, *how['pre'](snap), o, *arg, *how['post'])
        check('%s %s: refused, the reason said' % (cmd, o), r == 2 and not out and
              b'applies to list only: ' in e and refused[o].encode() in e, e)
    for o in sorted(taken):
        arg = [optarg[o]] if o in optarg else []
        # stat -T PATH is stat PATH (findmnt -T's spelling): no second PATH
        post = [] if cmd == 'stat' and o in ('-T', '--target') else how['post']
        r, out, e = run(b, cmd, *how['pre'](snap), o, *arg, *post)
        check('%s %s: taken' % (cmd, o), r in (0, 1) and not e, e)
    # the docs name every refused option and no taken one
    first = sorted(set(refused.values()))
    with open(os.path.join(root, 'README.md')) as f:
        m = re.search(how['readme'], f.read(), re.S)
    said = set(re.findall(OPTWORD, m.group(1))) if m else set()
    check('README: %s refuses exactly --help\'s list' % cmd,
          said == set(first) | how['extra'] and not said & taken, sorted(said ^ set(first)))
    with open(os.path.join(root, 'doc', 'cli.md')) as f:
        m = re.search(how['cli'], f.read(), re.S)
    said = set(re.findall(OPTWORD, m.group(1))) if m else set()
    check('doc/cli.md: %s refuses exactly --help\'s list' % cmd,
          said == set(first) | how['extra'] and not said & taken, sorted(said ^ set(first)))
    with open(os.path.join(root, 'doc', 'mntsnap.1')) as f:
        man = f.read().replace('\\-', '-').replace('\\fB', '').replace('\\fR', '')
    m = re.search(r'^\.SS %s\n(.*?)(?=^\.SS )' % cmd, man, re.M | re.S)
    said = set(re.findall(OPTWORD, m.group(1))) if m else set()
    check('mntsnap(1) %s: names every refused option, no taken one' % cmd,
          said >= set(refused) and not said & taken, sorted((set(refused) - said) | (said & taken)))
    prog = ('source "$1"; COMP_WORDS=(mntsnap %s -); COMP_CWORD=2; _mntsnap; '
            'printf "%%s\\n" "${COMPREPLY[@]}"' % cmd)
    r = subprocess.run(['bash', '-c', prog, 'c', os.path.join(root, 'doc', 'mntsnap.bash')],
                       capture_output=True, text=True)
    got = set(r.stdout.split())
    check('completion: %s offers what it takes, nothing it refuses' % cmd,
          got >= taken and not got & set(refused), sorted((taken - got) | (got & set(refused))))


def main():
    b, data = os.path.abspath(sys.argv[1]), sys.argv[2]
    esc = os.path.join(data, 'mntsnap-escapes.txt')
    cmds = ['list', 'stat', 'save', 'show', 'diff', 'seccomp', 'ns']
    for c in cmds:
        r1, o1, _ = run(b, 'help', c)
        r2, o2, _ = run(b, c, '--help')
        check('help %s == %s --help' % (c, c), r1 == r2 == 0 and o1 == o2 and o1)
        takes = c in ('list', 'stat', 'save')
        usage = o1.split(b'\n')[0]
        check('%s usage claims [TARGET] only if taken' % c, (b'[TARGET]' in usage) == takes,
              usage)
    # error messages that say what is wrong
    # findmnt's 54 columns at most (its columns[2 x 27]); one more: exit 1,
    # nothing printed, no message, as findmnt (findmnt-eq compares it)
    many = ','.join(['TARGET'] * 54)
    for c in ('list', 'stat'):
        r, o, e = run(b, c, *(['-F', esc] if c == 'list' else []), '-o', many,
                      *(['/'] if c == 'stat' else []))
        check('%s: 54 columns' % c, r == 0 and len(o.split(b'\n')[0].split()) == 54, e)
        r, o, e = run(b, c, *(['-F', esc] if c == 'list' else []), '-o', many + ',TARGET',
                      *(['/'] if c == 'stat' else []))
        check('%s: 55 columns: exit 1, silent' % c, (r, o, e) == (1, b'', b''), e)
    r, o, e = run(b, 'list', '-F', esc, '-o', 'TARGET', '-o', '+' + many[7:] + ',TARGET')
    check('+COLS past 54 with the default 4: exit 1, silent', (r, o, e) == (1, b'', b''), e)
    r, o, e = run(b, 'supervise', '--policy', '/nonexistent-policy.json')
    check('supervise without --listen: says so', r == 2 and b'--listen' in e and not o, e)
    r, _, e = run(b, 'supervise', '--listen', '/tmp/x.sock')
    check('supervise without --policy: says so', r == 2 and b'--policy' in e, e)
    r, o, e = run(b, 'watch', '-o', '+UNIQ-ID', '--count', '1', '--timeout', '0.1')
    check('watch -o +UNIQ-ID', r in (0, 1) and o.split(b'\n')[0].split() ==
          [b'ACTION', b'TARGET', b'SOURCE', b'FSTYPE', b'OPTIONS', b'UNIQ-ID'], o + e)
    with tempfile.TemporaryDirectory(prefix='mntsnap-habits-') as d:
        snap = os.path.join(d, 's')
        r, _, e = run(b, 'save', snap)
        check('save for show', r == 0, e)
        r, o, e = run(b, 'show', snap, '/', '-o', 'TARGET', '-n', '-l')
        check('show FILE MOUNTPOINT', r == 0 and o == b'/\n', o + e)
        # FILE SOURCE MOUNTPOINT is findmnt's third form; one more is an error
        r, o, e = run(b, 'show', snap, '/', 'x', 'y')
        check('show FILE SRC MP y: names the extra', r == 2 and b"'y'" in e, e)
        refused_options(b, 'show', snap)
        refused_options(b, 'stat', snap)
    # stat by findmnt's ID: the same mount as stat by path
    r1, o1, _ = run(b, 'stat', '-n', '-o', 'UNIQ-ID,TARGET', '/')
    r, fid, _ = run('findmnt', '-n', '-o', 'ID', '/')
    if r == 0:
        r2, o2, e2 = run(b, 'stat', '-n', '-o', 'UNIQ-ID,TARGET', fid.decode().strip())
        check('stat ID (findmnt\'s) == stat PATH', r1 == r2 == 0 and o1 == o2, o1 + o2 + e2)
    r, _, e = run(b, 'stat', '2147483000')
    check('stat of an unused /proc id: says which kind of id', r == 2 and b'/proc mount id' in e,
          e)
    r, o, _ = run(b, '--version')
    check('--version', r == 0 and o.startswith(b'mntsnap '), o)
    # exit statuses: 0 printed, 1 nothing matched, 2 error
    check('exit 0', run(b, 'list', '-F', esc)[0] == 0)
    check('exit 1: -t matches nothing', run(b, 'list', '-F', esc, '-t', 'xfs')[0] == 1)
    r, o, _ = run(b, 'list', '-F', esc, '-t', 'xfs', '-l')
    check('nothing matched prints nothing', r == 1 and o == b'', o)
    check('exit 1: no such mountpoint', run(b, 'list', '-F', esc, '/nope')[0] == 1)
    r, _, e = run(b, 'list', '-F', esc, '-o', 'target,nosuch')
    check('exit 2: unknown column, named', r == 2 and b'nosuch' in e, e)
    check('exit 2: unknown option', run(b, 'list', '--nosuch')[0] == 2)
    check('exit 2: unknown format', run(b, 'list', '--format', 'yaml')[0] == 2)
    check('exit 2: -o is not a format any more',
          run(b, 'list', '-F', esc, '-o', 'mountinfo')[0] == 2)
    # -o names are case-blind; +COLS appends to findmnt's default
    r1, o1, _ = run(b, 'list', '-F', esc, '-l', '-o', 'target,SOURCE')
    r2, o2, _ = run(b, 'list', '-F', esc, '-l', '-o', 'TARGET,source')
    check('-o case-blind', r1 == r2 == 0 and o1 == o2)
    r, o, _ = run(b, 'list', '-F', esc, '-l', '-o', '+uniq-id,ns-id,peer-group')
    want = [b'TARGET', b'SOURCE', b'FSTYPE', b'OPTIONS', b'UNIQ-ID', b'NS-ID', b'PEER-GROUP']
    check('+COLUMNS appends', r == 0 and o.split(b'\n')[0].split() == want, o[:200])
    # --output-all is findmnt's columns only; mntsnap's own are named with -o
    r, o, _ = run(b, 'list', '-F', esc, '--output-all', '-J')
    keys = set(json.loads(o)['filesystems'][0]) if r == 0 else set()
    check('--output-all has findmnt\'s columns', {'target', 'avail', 'vfs-options', 'children',
                                                'opt-fields', 'tid'} <= keys, keys)
    check('--output-all has none of mntsnap\'s own', not keys & {'uniq-id', 'sb-magic', 'attr',
                                                                'propagate-from'}, keys)
    r, o, _ = run(b, 'list', '-F', esc, '--output-all', '-o', '+UNIQ-ID,ATTR', '-J')
    keys = set(json.loads(o)['filesystems'][0]) if r == 0 else set()
    check('--output-all -o +COLS adds mntsnap\'s own', {'uniq-id', 'attr', 'avail'} <= keys, keys)
    # JSON: /x/ÿ (valid UTF-8) and /x/\xff (not) stay apart and come back exactly
    with tempfile.TemporaryDirectory() as tmp:
        mi = os.path.join(tmp, 'mi')
        with open(mi, 'wb') as f:
            f.write(b'1 0 0:1 / / rw - ext4 /dev/x rw\n'
                    b'2 1 0:2 / /x/\xc3\xbf rw - tmpfs a rw\n'
                    b'3 1 0:3 / /x/\xff rw - tmpfs b rw\n'
                    b'4 1 0:4 / /x/\\134udcff rw - tmpfs c rw\n')
        r, o, _ = run(b, 'list', '-F', mi, '-J', '-l', '-o', 'target')
        check('JSON is ASCII-safe and valid', r == 0 and json.loads(o) is not None, o)
        t = [f['target'] for f in json.loads(o)['filesystems']]
        raw = [x.encode('utf-8', 'surrogateescape') for x in t]
        check('JSON lossless for invalid UTF-8', raw == [b'/', b'/x/\xc3\xbf', b'/x/\xff',
                                                         b'/x/\\udcff'], raw)
        check('JSON: ÿ, \\xff and a literal "\\udcff" all differ', len(set(t)) == 4, t)
    # 64-bit values are strings of digits; 32-bit ones numbers
    r, o, _ = run(b, 'list', '-J', '-l', '-o', 'id,uniq-id,ns-id')
    if r == 0:
        fs = json.loads(o)['filesystems']
        check('uniq-id, ns-id as digit strings', all(
            isinstance(f['uniq-id'], str) and f['uniq-id'].isdigit() for f in fs), fs[:2])
        check('id as a number', all(isinstance(f['id'], int) for f in fs), fs[:2])
    # -N is findmnt's spelling of --pid
    pid = str(os.getpid())
    r1, o1, _ = run(b, 'list', '-N', pid, '-l', '-o', 'target,id,tid')
    r2, o2, _ = run(b, 'list', '--pid', pid, '-l', '-o', 'target,id,tid')
    check('-N == --pid', r1 == r2 == 0 and o1 == o2 and pid.encode() in o1)
    # tree art: UTF-8 by default, ASCII with -a and in the C locale
    r, o, _ = run(b, 'list', '-F', esc, '-o', 'target', env=dict(os.environ, LC_ALL='C.UTF-8'))
    check('UTF-8 tree', '\u251c\u2500'.encode() in o, o)
    r, o, _ = run(b, 'list', '-F', esc, '-o', 'target', '-a')
    check('-a ASCII tree', b'|-' in o and b'\xe2' not in o, o)
    r, o, _ = run(b, 'list', '-F', esc, '-o', 'target', env=dict(os.environ, LC_ALL='C'))
    check('C locale: ASCII tree, bytes >= 0x80 escaped', b'|-' in o and
          not any(c >= 0x80 for c in o), o)
    print('%d passed, %d failed' % (PASSES[0], len(FAILS)))
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())
