#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mntsnap(1) cannot drift from the CLI: every command that `mntsnap --help`
lists has its own section in the page, and every option, column name and
choice word that a command's `--help` shows appears in the page. With a
bash completion script, bash itself completes `mntsnap CMD -` and must
offer every option that CMD's --help shows.

  check-man1.py MNTSNAP_BIN MAN1_PAGE [COMPLETION]
"""
import re
import subprocess
import sys


def plain(roff):
    s = re.sub(r'\\f[BIRP]', '', roff)
    s = s.replace('\\-', '-').replace('\\&', '').replace('\\e', '\\')
    return s


def helptext(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('%s %s --help exited %d' % (binary, ' '.join(args), r.returncode))
    return r.stdout


def complete(script, words):
    """What bash offers for the last word of words."""
    prog = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); '
            '_mntsnap; printf "%s\\n" "${COMPREPLY[@]}"')
    r = subprocess.run(['bash', '-c', prog, 'complete', script] + words,
                       capture_output=True, text=True, check=True)
    return set(r.stdout.split())


def check_completion(script, binary, cmds):
    missing = []
    top = complete(script, ['mntsnap', ''])
    for c in cmds:
        if c not in top:
            missing.append('completion: command %s not offered' % c)
        text = helptext(binary, c, '--help')
        want = set(re.findall(r'(?<![\w-])(--?[a-zA-Z][\w-]*)', text)) | {'--help'}
        got = complete(script, ['mntsnap', c, '-'])
        for w in sorted(want - got):
            missing.append('completion: %s %s not offered' % (c, w))
    return missing


def main():
    binary, page = sys.argv[1], sys.argv[2]
    man = plain(open(page, encoding='utf-8').read())
    sections = set(re.findall(r'^\.SS (\S+)', man, re.M))
    top = helptext(binary, '--help')
    cmds = re.findall(r'^  ([a-z]+) {2,}', top, re.M)
    if len(cmds) < 5:
        sys.exit('could not read the command list from mntsnap --help')
    missing = []
    for c in cmds:
        if c not in sections:
            missing.append('command %s: no ".SS %s" section' % (c, c))
    words = set(re.findall(r'(?<![\w-])(--?[a-zA-Z][\w-]*)', top))
    for c in cmds:
        text = helptext(binary, c, '--help')
        words |= set(re.findall(r'(?<![\w-])(--?[a-zA-Z][\w-]*)', text))
        # the synopsis line's choice lists: -o table|tree|json|mountinfo
        for alt in re.findall(r'\b([a-z]+(?:\|[a-z]+)+)\b', text):
            words |= set(alt.split('|'))
    for w in sorted(words):
        if not re.search(r'(?<![\w-])' + re.escape(w) + r'(?![\w-])', man):
            missing.append('not in mntsnap(1): %s' % w)
    if len(sys.argv) > 3:
        missing += check_completion(sys.argv[3], binary, cmds)
    for m in missing:
        print(m)
    print('%d commands, %d options/words checked' % (len(cmds), len(words)))
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
