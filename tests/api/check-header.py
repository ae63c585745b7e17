#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The public headers compile, warning-free, as every language consumers use.

C99 and C11 with -std= (not gnu) -pedantic -Werror, C++11/17/20 likewise,
with the MNTSNAP_OPTS forms each language has, -Wshadow and
-Wstrict-prototypes among the warnings (g++ -Wshadow sees a function
named like a struct, mntsnap_diff, as hiding its constructor), after the
kernel's and libc's mount headers as a runtime includes them. Each
program also
runs: MNTSNAP_OPTS must set sz, the given fields, and zero the rest.
MNTSNAP_VERSION_MAJOR/MINOR/PATCH must be the project's version (--version).

  check-header.py INCLUDE_DIR [--seccomp] [--cc CC] [--cxx CXX] [--version X.Y.Z]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

WARN = ['-Wall', '-Wextra', '-pedantic', '-Werror', '-Wshadow']
C_WARN = ['-Wstrict-prototypes', '-Wmissing-prototypes']

C_SRC = r'''
%(mounth)s
#include <mntsnap.h>
#include <mntsnap.h> /* include guard */
#include <mntsnap-supervisor.h>
%(seccomp)s
int main(void)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, a);
	MNTSNAP_OPTS(mntsnap_capture_opts, b, .mask = MNTSNAP_F_ALL, .threads = 3);
	MNTSNAP_OPTS(mntsnap_diff_opts, d, .flags = MNTSNAP_DIFF_BY_PATH);

	if (a.sz != sizeof(a) || a.mask || a.ns || a.error)
		return 1;
	if (b.sz != sizeof(b) || b.mask != MNTSNAP_F_ALL || b.threads != 3 || b.flags)
		return 2;
	if (d.sz != sizeof(d) || d.flags != MNTSNAP_DIFF_BY_PATH || d.old_prefix)
		return 3;
	return 0;
}
'''

CXX_SRC = r'''
%(mounth)s
#include <mntsnap.h>
#include <mntsnap-supervisor.h>
%(seccomp)s
#include <type_traits>

/* C linkage: the names are not mangled. */
extern "C" int mntsnap_capture(const struct mntsnap_capture_opts *, struct mntsnap_snapshot **);

int main()
{
	MNTSNAP_OPTS(mntsnap_capture_opts, a);
	a.mask = MNTSNAP_F_ALL;
	MNTSNAP_OPTS(mntsnap_diff_opts, d);
	if (d.sz != sizeof(d) || d.flags || d.old_prefix)
		return 3;
	static_assert(std::is_same<decltype(&mntsnap_diff),
		      int (*)(const struct mntsnap_snapshot *, const struct mntsnap_snapshot *,
			      struct mntsnap_diff **)>::value, "mntsnap_diff");
	if (a.sz != sizeof(a) || a.mask != MNTSNAP_F_ALL || a.threads || a.ns)
		return 1;
	return 0;
}
'''


def run(compiler, std, src, suffix, inc, tmp, extra=()):
    path = os.path.join(tmp, 'h-%s-%d%s' % (std.replace('+', 'x'), len(extra), suffix))
    open(path, 'w').write(src)
    exe = path + '.out'
    lang = C_WARN if suffix == '.c' else []
    cmd = [compiler, '-std=' + std] + WARN + lang + list(extra) + ['-I', inc, path, '-o', exe]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        print('FAIL %s -std=%s:\n%s' % (compiler, std, r.stderr))
        return False
    rc = subprocess.run([exe]).returncode
    if rc:
        print('FAIL %s -std=%s: MNTSNAP_OPTS check %d' % (compiler, std, rc))
        return False
    print('ok   %s -std=%s %s' % (compiler, std, ' '.join(extra)))
    return True


INSTALLED = ('mntsnap.h', 'mntsnap-supervisor.h', 'mntsnap-seccomp.h')


def alone(compiler, inc, tmp, seccomp):
    """Each installed header compiles as the only include, from a directory
    holding the installed headers and nothing else (no build directory, so
    a reference to the uninstalled mntsnap-config.h fails), and every
    header it includes by quotes or as mntsnap* is another installed one."""
    ok = True
    solo = os.path.join(tmp, 'solo-include')
    os.makedirs(solo, exist_ok=True)
    names = [h for h in INSTALLED if seccomp or h != 'mntsnap-seccomp.h']
    for h in names:
        shutil.copy(os.path.join(inc, h), solo)
    for h in names:
        text = open(os.path.join(solo, h), encoding='utf-8').read()
        for m in re.finditer(r'#\s*include\s*[<"]([^>"]+)[>"]', text):
            ref = m.group(1)
            if (m.group(0).rstrip().endswith('"') or ref.startswith('mntsnap')) and ref not in names:
                print('FAIL %s includes %s, which is not installed' % (h, ref))
                ok = False
        for m in re.finditer(r'\b(MNTSNAP_HAVE_\w+)', text):
            print('FAIL %s uses %s, a macro of the uninstalled mntsnap-config.h' % (h, m.group(1)))
            ok = False
        path = os.path.join(tmp, 'alone-%s.c' % h)
        open(path, 'w').write('#include <%s>\nint main(void) { return 0; }\n' % h)
        r = subprocess.run([compiler, '-std=c11'] + WARN + C_WARN +
                           ['-I', solo, path, '-o', path + '.out'], capture_output=True, text=True)
        if r.returncode:
            print('FAIL %s alone:\n%s' % (h, r.stderr))
            ok = False
        else:
            print('ok   %s alone' % h)
    return ok


def has_header(compiler, name):
    r = subprocess.run([compiler, '-E', '-x', 'c', '-', '-o', os.devnull],
                       input='#include <%s>\n' % name, capture_output=True, text=True)
    return r.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('include')
    ap.add_argument('--seccomp', action='store_true')
    ap.add_argument('--cc', default=os.environ.get('CC', 'cc'))
    ap.add_argument('--cxx', default=os.environ.get('CXX', 'c++'))
    ap.add_argument('--version', help="the project's version: the header's must match")
    a = ap.parse_args()
    if a.version:
        text = open(os.path.join(a.include, 'mntsnap.h'), encoding='utf-8').read()
        have = '.'.join(re.search(r'#define MNTSNAP_VERSION_%s (\d+)' % k, text).group(1)
                        for k in ('MAJOR', 'MINOR', 'PATCH'))
        if a.version != have:
            print('FAIL: mntsnap.h says version %s, the project %s' % (have, a.version))
            return 1
    sec = '#include <mntsnap-seccomp.h>' if a.seccomp else ''
    # musl-gcc has no kernel headers: <linux/mount.h> where the compiler
    # has it
    mounth = ''.join('#include <%s>\n' % h for h in ('linux/mount.h', 'sys/mount.h')
                     if has_header(a.cc, h))
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        ok &= alone(a.cc, a.include, tmp, a.seccomp)
        for std in ('c99', 'c11'):
            ok &= run(a.cc, std, C_SRC % {'seccomp': sec, 'mounth': mounth}, '.c', a.include, tmp)
        # MNTSNAP_OPTS without GNU C (no statement expression): musl's
        # headers, unlike glibc's, still work with __GNUC__ undefined
        if shutil.which('musl-gcc'):
            ok &= run('musl-gcc', 'c99', C_SRC % {'seccomp': '', 'mounth': ''}, '.c', a.include, tmp,
                      ('-U__GNUC__',))
        if not shutil.which(a.cxx):
            print('FAIL: no C++ compiler %s' % a.cxx)
            return 1
        for std in ('c++11', 'c++17', 'c++20'):
            ok &= run(a.cxx, std, CXX_SRC % {'seccomp': sec, 'mounth': mounth}, '.cc', a.include, tmp)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
