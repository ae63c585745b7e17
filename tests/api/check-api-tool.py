#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/mntsnap-api.py keeps no list of its own: a function added to a
public header is in the version script and gets a man3 page whose text is
its doc comment, and one added without a doc comment fails check-docs.
check-exports on an archive refuses a global symbol without the mntsnap_
prefix even when it is hidden: hidden only keeps it out of dynamic
tables, and a static link still clashes with a consumer's own symbol of
that name.

  check-api-tool.py TOOL HEADER
"""
import os
import shutil
import subprocess
import sys
import tempfile

ADDED = '''
/*
 * mntsnap_added_later - a function someone adds after this test.
 * Returns 0, or -EINVAL when x is negative.
 */
int mntsnap_added_later(int x);

/* mntsnap_added_pair / _free - two functions someone documents together. */
int mntsnap_added_pair(int x);
void mntsnap_added_pair_free(int x);
'''


def tool(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)


def check_archive(tmp):
    cc = os.environ.get('CC', 'cc')
    if not shutil.which(cc) or not shutil.which('ar'):
        return ['no %s or ar to build a test archive' % cc]
    h = os.path.join(tmp, 'arch.h')
    open(h, 'w').write('/* mntsnap_f - the public one. */\nint mntsnap_f(void);\n')
    fails = []
    for extra, ok in (('', True), ('int helper_clash(void);\nint helper_clash(void) { return 1; }\n',
                                   False)):
        c = os.path.join(tmp, 'arch.c')
        open(c, 'w').write('__attribute__((visibility("default"))) int mntsnap_f(void);\n'
                           'int mntsnap_f(void) { return 0; }\n' + extra)
        o, a = c + '.o', os.path.join(tmp, 'libarch.a')
        subprocess.run([cc, '-fvisibility=hidden', '-c', c, '-o', o], check=True)
        if os.path.exists(a):
            os.unlink(a)
        subprocess.run(['ar', 'rcs', a, o], check=True)
        r = tool('check-exports', a, h)
        if ok and r.returncode != 0:
            fails.append('check-exports refuses a clean archive: %s' % r.stdout)
        if not ok and (r.returncode == 0 or 'helper_clash' not in r.stdout):
            fails.append('check-exports accepts an archive with a hidden unprefixed global')
    return fails


def main():
    global TOOL
    TOOL, header = sys.argv[1], sys.argv[2]
    text = open(header, encoding='utf-8').read()
    end = text.rindex('#if defined(__GNUC__) && __GNUC__ >= 4\n#pragma GCC visibility pop')
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        h = os.path.join(tmp, 'mntsnap.h')
        open(h, 'w').write(text[:end] + ADDED + text[end:])
        before = tool('functions', header).stdout.split()
        after = tool('functions', h).stdout.split()
        if sorted(after) != sorted(before + ['mntsnap_added_later', 'mntsnap_added_pair',
                                             'mntsnap_added_pair_free']):
            fails.append('functions: %s' % (set(after) ^ set(before)))
        vs = os.path.join(tmp, 'map')
        tool('version-script', '--node', 'X', '-o', vs, h)
        if '\tmntsnap_added_later;' not in open(vs).read():
            fails.append('version script lacks the new function')
        tool('man3', '--version', '0', '-o', tmp, h)
        page = os.path.join(tmp, 'mntsnap_added_later.3')
        if not os.path.exists(page):
            fails.append('no man page for the new function')
        else:
            p = open(page).read()
            for want in ('a function someone adds after this test',
                         'int mntsnap_added_later(int x);', '.SH RETURN VALUE', '\\-EINVAL'):
                if want not in p:
                    fails.append('page lacks %r' % want)
        # one doc block, two functions: each page names both (whatis(1)
        # must not read "mntsnap_added_pair_free - ... documents together"
        # as if _free did what the block says of the pair) and shows both
        for f in ('mntsnap_added_pair', 'mntsnap_added_pair_free'):
            page = os.path.join(tmp, f + '.3')
            p = open(page).read() if os.path.exists(page) else ''
            for want in ('.SH NAME\nmntsnap_added_pair, mntsnap_added_pair_free \\- two',
                         'int mntsnap_added_pair(int x);\nvoid mntsnap_added_pair_free(int x);'):
                if want not in p:
                    fails.append('%s.3 lacks %r' % (f, want))
        if tool('check-docs', h).returncode != 0:
            fails.append('check-docs rejects a documented function')
        bare = text[:end] + '\nint mntsnap_added_later(int x);\n' + text[end:]
        open(h, 'w').write(bare.replace('\n\nint mntsnap_added_later', '\n\n\nint mntsnap_added_later'))
        r = tool('check-docs', h)
        if r.returncode == 0 or 'mntsnap_added_later' not in r.stdout:
            fails.append('check-docs accepts an undocumented function')
        fails += check_archive(tmp)
    for f in fails:
        print('FAIL', f)
    print('%d functions in %s' % (len(before), os.path.basename(header)))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
