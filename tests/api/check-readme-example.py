#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The README's first C example compiles as C11 with -Wall -Wextra -Werror
against the public headers (it is what people copy first).

  check-readme-example.py README INCLUDE_DIR CC
"""
import os
import re
import subprocess
import sys
import tempfile


def main():
    readme, inc, cc = sys.argv[1:4]
    text = open(readme, encoding='utf-8').read()
    m = re.search(r'```c\n(#include <mntsnap\.h>.*?)```', text, re.S)
    if not m:
        print('FAIL: no C example starting with #include <mntsnap.h> in the README')
        return 1
    src = '#include <stdio.h>\n' + m.group(1)
    fn = re.search(r'^static int (\w+)\(void\)', m.group(1), re.M)
    if fn:
        src += 'int main(void) { return %s() < 0; }\n' % fn.group(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'example.c')
        open(path, 'w').write(src)
        r = subprocess.run([cc, '-std=gnu11', '-Wall', '-Wextra', '-Werror', '-I', inc,
                            '-fsyntax-only', path], capture_output=True, text=True)
    if r.returncode:
        print('FAIL: the README example:\n%s\n%s' % (src, r.stderr))
        return 1
    print('ok   the README example compiles')
    return 0


if __name__ == '__main__':
    sys.exit(main())
