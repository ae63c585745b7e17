#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The documentation's examples are what the code does:

 - mntsnap(3)'s EXAMPLES, taken from the generated page's text (roff
   undone), compiles with -Wall -Wextra -Werror against the public header
   and the built library, and runs: it captures, looks a path up, diffs,
   reads another process's namespace and watches, and exits 0;
 - every output block of mntsnap_render's doc comment (the page
   mntsnap_render(3) is made of it) is what tests/progs/render prints for
   the mountinfo text the comment shows, byte for byte (JSON: up to each
   "...").

  check-examples.py --cc CC --man3 DIR --header mntsnap.h --include DIR
                    --lib LIB [--link-arg ARG]... --render RENDER_BIN
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def unroff(text):
    out = []
    for ln in text.split('\n'):
        if ln.startswith('\\&'):
            ln = ln[2:]
        ln = re.sub(r'\\\[u([0-9A-F]{4,6})\]', lambda m: chr(int(m.group(1), 16)), ln)
        out.append(ln.replace('\\-', '-').replace('\\e', '\\'))
    return '\n'.join(out)


def example_program(man3):
    page = open(os.path.join(man3, 'mntsnap.3'), encoding='utf-8').read()
    m = re.search(r'^\.EX\n(.*?)^\.EE$', page, re.S | re.M)
    return unroff(m.group(1)) if m else None


def render_blocks(header):
    """[(format name or 'input', [lines])] from mntsnap_render's comment."""
    text = open(header, encoding='utf-8').read()
    end = text.index('int mntsnap_render(')
    start = text.rindex('/*', 0, end)
    blocks, prose, cur = [], '', None
    for ln in text[start:end].split('\n'):
        body = ln[3:] if ln.startswith(' * ') else ''
        if body.startswith('    '):
            if cur is None:
                m = re.search(r'\("(\w+)"\)', prose)
                cur = (m.group(1) if m else 'input', [])
                blocks.append(cur)
            cur[1].append(body[4:])
        else:
            if cur is not None:
                prose = ''
            cur = None
            prose += ' ' + body
    return blocks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cc', required=True)
    ap.add_argument('--man3', required=True)
    ap.add_argument('--header', required=True)
    ap.add_argument('--include', required=True)
    ap.add_argument('--lib', required=True)
    ap.add_argument('--link-arg', action='append', default=[])
    ap.add_argument('--render', required=True)
    a = ap.parse_args()
    failed = 0
    src = example_program(a.man3)
    with tempfile.TemporaryDirectory(prefix='mntsnap-examples-') as d:
        if not src:
            print('FAIL mntsnap(3) has no EXAMPLES (.EX ... .EE)')
            failed += 1
        else:
            c, exe = os.path.join(d, 'tour.c'), os.path.join(d, 'tour')
            open(c, 'w').write(src + '\n')
            r = subprocess.run([a.cc, '-std=gnu11', '-Wall', '-Wextra', '-Werror', '-I',
                                a.include, c, '-o', exe, a.lib] + a.link_arg,
                               capture_output=True, text=True)
            if r.returncode:
                print('FAIL mntsnap(3) EXAMPLES does not compile:\n' + r.stderr)
                failed += 1
            else:
                print('ok   mntsnap(3) EXAMPLES compiles')
                r = subprocess.run([exe, '/proc/self', '1'], capture_output=True, text=True,
                                   timeout=60)
                want = ['mounts, read by', 'is on', 'pid 1 sees']
                miss = [w for w in want if w not in r.stdout]
                if r.returncode or miss:
                    print('FAIL the example: exit %d, missing %s\n%s%s' % (
                        r.returncode, miss, r.stdout[-2000:], r.stderr))
                    failed += 1
                else:
                    print('ok   mntsnap(3) EXAMPLES runs')
        blocks = render_blocks(a.header)
        inp = [b for n, b in blocks if n == 'input']
        if not inp or len(blocks) < 5:
            print('FAIL mntsnap_render: %d example blocks, want the input and 4 formats' %
                  len(blocks))
            return 1
        mi = os.path.join(d, 'mountinfo')
        open(mi, 'w').write('\n'.join(inp[0]) + '\n')
        for name, lines in blocks:
            if name == 'input':
                continue
            r = subprocess.run([a.render, name, mi], capture_output=True,
                               env=dict(os.environ, LC_ALL='C.UTF-8'))
            got = r.stdout.decode('utf-8').rstrip('\n').split('\n')
            ok = r.returncode == 0 and len(got) >= len(lines)
            for g, w in zip(got, lines):
                parts = w.split('...')
                if len(parts) == 1:
                    ok = ok and g == w
                else:
                    # "..." stands for anything: the pieces in order
                    pos = 0
                    for p in parts:
                        k = g.find(p, pos)
                        ok = ok and k >= 0 and (pos > 0 or k == 0)
                        pos = k + len(p) if k >= 0 else pos
            if name != 'json':
                ok = ok and len(got) == len(lines)
            print('%s mntsnap_render(3) example of %s' % ('ok  ' if ok else 'FAIL', name))
            if not ok:
                print('  doc:\n    ' + '\n    '.join(lines) + '\n  render:\n    ' +
                      '\n    '.join(got))
                failed += 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
