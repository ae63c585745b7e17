#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A merged profile differs from its input only where the merge changed a
rule: every real and crafted profile in tests/data/seccomp, merged with
each mode, and

 - `diff -u input output` touches only lines inside the profile's
   syscalls[] array (the rules; a profile without one is written again
   whole, in its own style: said on stderr);
 - nothing to add: the output is the input, byte for byte, stderr says
   "nothing to add", and --check exits 0 printing nothing; something to
   add: --check exits 1 printing nothing;
 - stderr says "already allowed" only when statmount and listmount are:
   one the result leaves to a rule of the profile's own that is no plain
   ALLOW (a deny, args, a gate) is named on stderr ("statmount left to the
   profile's rule at syscalls[N] (ACTION)"), never called allowed;
 - stderr is one line;
 - merging the output again changes nothing (byte for byte).

  seccomp-merge-diff.py MNTSNAP_BIN DATA_DIR
Prints one line per profile and mode: changed lines (diff's - and +).
"""
import difflib
import json
import os
import re
import subprocess
import sys

MODES = [[], ['--errno-enosys']]


def merge(ms, path, mode, check=False):
    r = subprocess.run([ms, 'seccomp', '--merge', path] + mode + (['--check'] if check else []),
                       capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode(errors='replace')


def plain(v):
    return v is None or v == {} or v == []


def kept_by_profile(out):
    """statmount/listmount the result leaves to a rule that may deny them."""
    try:
        doc = json.loads(out.decode('utf-8-sig'))
    except ValueError:
        return None
    prof = doc.get('linux', {}).get('seccomp') if 'ociVersion' in doc else doc
    if not isinstance(prof, dict):
        return []
    allow_default = prof.get('defaultAction') == 'SCMP_ACT_ALLOW'
    kept = []
    for n in ('statmount', 'listmount'):
        for e in prof.get('syscalls') or []:
            if n not in (e.get('names') or [e.get('name')]):
                continue
            allow = e.get('action') == 'SCMP_ACT_ALLOW'
            if not allow or (not allow_default and not (
                    plain(e.get('args')) and plain(e.get('includes')) and
                    plain(e.get('excludes')))):
                kept.append(n)
                break
    return kept


def syscalls_lines(text):
    """Line numbers (0-based) from the "syscalls": [ line to its ]."""
    lines = text.split('\n')
    start = next((i for i, l in enumerate(lines) if re.search(r'"syscalls"\s*:', l)), None)
    if start is None:
        return None
    depth, i = 0, start
    for i in range(start, len(lines)):
        depth += lines[i].count('[') - lines[i].count(']')
        if depth <= 0 and i > start or (depth == 0 and lines[i].rstrip().endswith(']')):
            break
    return range(start, i + 1)


def main():
    ms, data = sys.argv[1], sys.argv[2]
    files = []
    for sub in ('real', 'crafted', '.'):
        d = os.path.join(data, sub)
        files += sorted(os.path.join(d, f) for f in os.listdir(d)
                        if f.endswith('.json') and not f.startswith(('bad-', 'unknown-')))
    failed = passed = 0

    def check(ok, what):
        nonlocal failed, passed
        if ok:
            passed += 1
        else:
            failed += 1
            print('FAIL ' + what)

    print('%-34s %-16s %8s' % ('profile', 'mode', 'changed'))
    for path in files:
        name = os.path.relpath(path, data)
        with open(path, 'rb') as f:
            src = f.read()
        for mode in MODES:
            rc, out, err = merge(ms, path, mode)
            if rc:
                print('%-34s %-16s refused (%s)' % (name, ' '.join(mode), err.strip()[:60]))
                continue
            a = src.decode('utf-8', 'surrogateescape').split('\n')
            b = out.decode('utf-8', 'surrogateescape').split('\n')
            sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
            touched = [i for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != 'equal'
                       for i in (range(i1, i2) if i2 > i1 else [i1])]
            nchanged = sum((i2 - i1) + (j2 - j1) for tag, i1, i2, j1, j2 in sm.get_opcodes()
                           if tag != 'equal')
            print('%-34s %-16s %8d  %s' % (name, ' '.join(mode) or '(default)', nchanged,
                                          err.strip().split(': ', 2)[-1][:90]))
            check(err.count('\n') == 1, '%s %s: stderr is not one line: %r' % (name, mode, err))
            rules = syscalls_lines(src.decode('utf-8', 'surrogateescape'))
            if rules is None:
                check('wrote the whole file again' in err,
                      '%s %s: no syscalls[] in the input, yet no word of a rewrite' % (name, mode))
            else:
                check(all(i in rules or i == rules.stop for i in touched),
                      '%s %s: lines outside syscalls[] (%d-%d) touched: %s' % (
                          name, mode, rules.start + 1, rules.stop, [i + 1 for i in touched
                                                                     if i not in rules][:5]))
            kept = kept_by_profile(out)
            for n in kept or []:
                check('already allowed' not in err and '%s left to the profile' % n in err,
                      '%s %s: %s is left to a rule of the profile that may deny it, '
                      'stderr says: %s' % (name, mode, n, err.strip()))
            nothing = 'nothing to add' in err
            check(nothing == (out == src), '%s %s: "nothing to add" %s but output %s input' % (
                name, mode, nothing, '==' if out == src else '!='))
            crc, cout, _ = merge(ms, path, mode, check=True)
            check(crc == (0 if out == src else 1) and not cout,
                  '%s %s: --check exit %d, %d bytes on stdout' % (name, mode, crc, len(cout)))
            again = path + '.merged'
            tmp = os.path.join(os.environ.get('TMPDIR', '/tmp'),
                               'mntsnap-mdiff-%d.json' % os.getpid())
            with open(tmp, 'wb') as f:
                f.write(out)
            rc2, out2, err2 = merge(ms, tmp, mode)
            os.unlink(tmp)
            check(rc2 == 0 and out2 == out and 'nothing to add' in err2,
                  '%s %s: merging the output again changes it (%s)' % (name, mode, err2.strip()))
            del again
    print('\n%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
