#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mntsnap(1) cannot drift from the CLI: every command that `mntsnap --help`
lists has its own section in the page, and every option, column name and
choice word that a command's `--help` shows appears in the page. With a
bash completion script, bash itself completes `mntsnap CMD -` and must
offer every option that CMD's --help shows.

Each command's options must be in its own section, not just anywhere;
the table columns and JSON keys that list, ns and stat print are
described under OUTPUT.

  check-man1.py MNTSNAP_BIN MAN1_PAGE [COMPLETION] [--self-test]
"""
import json
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


def refused_block(text):
    """A --help's "Refused ..." block (show's and stat's: list's options it
    refuses, one an indented line): its lines, and the text without them."""
    lines, out, inside = [], [], False
    for l in text.split('\n'):
        if l.startswith('Refused'):
            inside = True
        elif inside and not l.startswith(' '):
            inside = False
        (lines if inside else out).append(l)
    return lines, '\n'.join(out)


def check_completion(script, binary, cmds):
    missing = []
    top = complete(script, ['mntsnap', ''])
    for c in cmds:
        if c not in top:
            missing.append('completion: command %s not offered' % c)
        # a refused option is never offered, though the shared option text
        # names it too (stat's -R): cli-habits holds the completion to the block
        refused, text = refused_block(helptext(binary, c, '--help'))
        word = r'(?<![\w-])(--?[a-zA-Z][\w-]*)'
        want = set(re.findall(word, text)) | {'--help'}
        want -= set(re.findall(word, '\n'.join(l for l in refused if l.startswith('  -'))))
        got = complete(script, ['mntsnap', c, '-'])
        for w in sorted(want - got):
            missing.append('completion: %s %s not offered' % (c, w))
    return missing


def has_word(text, w):
    return re.search(r'(?<![\w-])' + re.escape(w) + r'(?![\w-])', text) is not None


def section(man, head, sub=None):
    m = re.search(r'^\.SH %s\n(.*?)(?=^\.SH |\Z)' % head, man, re.M | re.S)
    if not m:
        return ''
    if sub is None:
        return m.group(1)
    m = re.search(r'^\.SS %s\n(.*?)(?=^\.S[SH] |\Z)' % re.escape(sub), m.group(1), re.M | re.S)
    return m.group(1) if m else ''


def cmd_words(binary, c):
    text = helptext(binary, c, '--help')
    words = set(re.findall(r'(?<![\w-])(--?[a-zA-Z][\w-]*)', text))
    for alt in re.findall(r'\b([a-z]+(?:\|[a-z]+)+)\b', text):
        words |= set(alt.split('|'))
    return words


def check_sections(binary, man, cmds):
    """Each command's options are described in its own section (or in
    TARGET, or a section it points to with "as for CMD" or "see SECTION",
    SECTION a .SH heading such as OUTPUT OPTIONS): a page-wide search
    would take --threads under list for a --threads added to diff."""
    missing = []
    for c in cmds:
        own = section(man, 'COMMANDS', c)
        text = own + section(man, 'TARGET')
        for ref in set(re.findall(r'\bas for (\w+)', own)) & set(cmds):
            text += section(man, 'COMMANDS', ref)
        for head in set(re.findall(r'\bsee ([A-Z][A-Z]+(?: [A-Z][A-Z]+)*)', text)):
            text += section(man, head)
        for w in sorted(cmd_words(binary, c)):
            # COMMAND --help is in the synopsis, once for all
            if w != '--help' and not has_word(text, w):
                missing.append('%s %s: not in the "%s" section of mntsnap(1)' % (c, w, c))
    return missing


def check_output(binary, man):
    """Every column a table prints and every key a JSON object has is
    described under COLUMNS, OUTPUT OPTIONS or NS OUTPUT (the --help texts
    name neither)."""
    out = section(man, 'COLUMNS') + section(man, 'OUTPUT OPTIONS') + section(man, 'NS OUTPUT')
    missing = []
    for args in (['list'], ['ns'], ['stat', '/']):
        r = subprocess.run([binary] + args, capture_output=True, text=True)
        if r.returncode != 0 or not r.stdout:
            missing.append('mntsnap %s exited %d' % (' '.join(args), r.returncode))
            continue
        for w in r.stdout.split('\n')[0].split():
            if not has_word(out, w.strip('[]')):
                missing.append('column %s of mntsnap %s: not described' % (w, args[0]))
    for args in (['list', '-J'], ['stat', '-J', '/']):
        r = subprocess.run([binary] + args, capture_output=True, text=True)
        try:
            obj = json.loads(r.stdout)
        except ValueError:
            missing.append('mntsnap %s: not JSON' % ' '.join(args))
            continue
        keys = set(obj)
        for f in obj.get('filesystems', []):
            keys |= set(f)
        # findmnt's rule, which the page states: a key is its column's
        # name in lower case
        missing += ['JSON key %s of mntsnap %s: not described' % (k, args[0])
                    for k in sorted(keys) if not has_word(out, k) and not has_word(out, k.upper())]
    return missing


def self_test(binary, man, cmds):
    """check_sections() catches an option described elsewhere only: for
    each command, drop from its section an option the page also mentions
    in another section, and expect the complaint."""
    tried, fails = 0, []
    for c in cmds:
        own = section(man, 'COMMANDS', c)
        rest = man.replace(own, '')
        for w in sorted(cmd_words(binary, c)):
            if w.startswith('--') and has_word(own, w) and has_word(rest, w):
                cut = re.sub(r'(?<![\w-])' + re.escape(w) + r'(?![\w-])', '', own)
                got = check_sections(binary, man.replace(own, cut), [c])
                tried += 1
                if not any(g.startswith('%s %s:' % (c, w)) for g in got):
                    fails.append('self-test: %s %s dropped from its section, not noticed' % (c, w))
                break
    if tried < 2:
        fails.append('self-test: only %d options to drop' % tried)
    print('self-test: %d options dropped from their sections' % tried)
    return fails


def roff_warnings(page):
    """groff's warnings (-ww): a line that starts with "." or "'" by
    accident is a macro call and vanishes from the page."""
    try:
        r = subprocess.run(['groff', '-man', '-Tutf8', '-ww', '-z', page],
                           capture_output=True, text=True)
    except FileNotFoundError:
        return []   # no groff here: the package check runs it where it is
    return ['groff: %s' % l for l in r.stderr.splitlines() if l.strip()]


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
        if not has_word(man, w):
            missing.append('not in mntsnap(1): %s' % w)
    missing += check_sections(binary, man, cmds)
    # the page's footer names the version the CLI reports (its first
    # line; the second lists the optional features built in)
    th = re.search(r'^\.TH \S+ 1 "[^"]*" "([^"]*)"', man, re.M)
    version = helptext(binary, '--version').strip().split('\n')[0]
    if not th or th.group(1) != version:
        missing.append('.TH says %r, mntsnap --version %r' % (th and th.group(1), version))
    missing += check_output(binary, man)
    missing += roff_warnings(page)
    if '--self-test' in sys.argv:
        missing += self_test(binary, man, cmds)
    if len(sys.argv) > 3 and not sys.argv[3].startswith('--'):
        missing += check_completion(sys.argv[3], binary, cmds)
    for m in missing:
        print(m)
    print('%d commands, %d options/words checked' % (len(cmds), len(words)))
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
