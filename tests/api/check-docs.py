#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The documentation is checked like code.

  check-docs.py links SRCDIR [FILE.md...]   (default: README.md, doc/*.md)
      every relative link and image in FILE.md resolves: the file exists and
      an #anchor names a heading of it (GitHub's heading ids). Links into
      fenced blocks and inline code are not links. A number in the text of a
      link to benchmarks.md is one that page prints (under the link's
      #heading).

  check-docs.py commands --path DIR [--build BDIR] SRCDIR [FILE.md...]
      every command the markdown marks as runnable is run, as root, in a
      private mount namespace (/ made private, a tmpfs on /tmp) over a
      throwaway copy of the source tree (an overlay whose writes vanish,
      with BDIR seen at its build/, where the guides look),
      with DIR (the built CLI) first on PATH and the source tree as the
      working directory, as a reader of a fresh clone would run them:
        ```sh            the whole block runs
        ```console       its "$ " lines run (output is not compared: ids
                         and times differ from run to run)
        ```sh no-run     shown, never run (installs packages, needs another
        ```console no-run  machine); ```text and others never run
      The blocks of one file run in order in one shell with `set -e`, so a
      guide's later steps see its earlier ones; the first command that
      exits non-zero fails the check, naming the file and line. Background
      jobs a file starts are killed when it ends. A file with a line
      "<!-- docs-needs: crun jq -->" is skipped, and says so, where one of
      those programs is not on PATH (.ci/deps installs them all).

  check-docs.py capture --path DIR SRCDIR FILE.md
      the same run for FILE's ```console blocks, writing each command's
      output (stdout and stderr) under its "$ " line: how the README's
      tour is made, never typed.

  check-docs.py --self-test
      a broken link, a bad anchor and a failing marked command are each
      reported; no-run blocks and unmarked blocks are not run.
"""
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile

FENCE = re.compile(r'^(```+|~~~+)\s*(.*)$')


def blocks(text):
    """(info string, first line number of the body, body lines) per fence."""
    out, lines, i = [], text.split('\n'), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        mark, info, start, body = m.group(1), m.group(2).strip(), i + 2, []
        i += 1
        while i < len(lines) and not lines[i].startswith(mark):
            body.append(lines[i])
            i += 1
        out.append((info, start, body))
        i += 1
    return out


def prose(text):
    """The text outside fenced blocks and inline code, line numbers kept."""
    out, fence = [], None
    for line in text.split('\n'):
        m = FENCE.match(line)
        if fence:
            if line.startswith(fence):
                fence = None
            out.append('')
            continue
        if m:
            fence = m.group(1)
            out.append('')
            continue
        out.append(re.sub(r'`+[^`]*`+', '', line))
    return '\n'.join(out)


def slug(heading):
    """GitHub's id for a heading: lower case, punctuation dropped, spaces to -."""
    h = re.sub(r'`', '', heading.strip().lower())
    h = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', h)
    h = re.sub(r'[^\w\- ]', '', h)
    return h.replace(' ', '-')


def headings(text):
    """The heading lines outside fenced blocks, inline code kept."""
    fence = None
    for line in text.split('\n'):
        m = FENCE.match(line)
        if fence:
            if line.startswith(fence):
                fence = None
        elif m:
            fence = m.group(1)
        elif line.startswith('#'):
            yield line


def anchors(text):
    seen, out = {}, set()
    for line in headings(text):
        m = re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
        if not m:
            continue
        s = slug(m.group(1))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else '%s-%d' % (s, n))
    for m in re.finditer(r'<a\s+(?:name|id)="([^"]+)"', text):
        out.add(m.group(1))
    return out


LINK = re.compile(r'!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
NUMBER = re.compile(r'\d[\d,]*(?:\.\d+)?')


def section(text, frag):
    """The part of text under the heading whose id is frag (all of it for none)."""
    if not frag:
        return text
    out, level, fence = [], None, None
    for line in text.split('\n'):
        f = FENCE.match(line)
        if fence and line.startswith(fence):
            fence = None
        elif not fence and f:
            fence = f.group(1)
        m = None if fence or f else re.match(r'^(#{1,6})\s+(.*?)\s*$', line)
        if m and level is not None and len(m.group(1)) <= level:
            break
        if m and level is None and slug(m.group(2)) == frag:
            level = len(m.group(1))
        if level is not None:
            out.append(line)
    return '\n'.join(out)


def check_links(path, text, cache):
    errs = []
    for n, line in enumerate(prose(text).split('\n'), 1):
        for m in LINK.finditer(line):
            label, target = m.group(1), m.group(2)
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):
                continue          # http:, https:, mailto: are not ours to check
            file, _, frag = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                errs.append('%s:%d: link to %s: no such file' % (path, n, target))
                continue
            if frag:
                if not dest.endswith('.md') or os.path.isdir(dest):
                    errs.append('%s:%d: link to %s: an anchor in a file that has no headings'
                                % (path, n, target))
                    continue
                if dest not in cache:
                    with open(dest, encoding='utf-8') as f:
                        cache[dest] = anchors(f.read())
                if frag not in cache[dest]:
                    errs.append('%s:%d: link to %s: %s has no heading #%s'
                                % (path, n, target, os.path.relpath(dest), frag))
            if os.path.basename(dest) == 'benchmarks.md':
                # a number quoted from the benchmark page is one it prints
                # under that heading (the page is written from a run: a
                # quote typed or left behind by a new run fails here)
                with open(dest, encoding='utf-8') as f:
                    page = section(f.read(), frag)
                for num in NUMBER.findall(label):
                    exact = r'(?<![\d.])%s(?![\d])' % re.escape(num.replace(',', ''))
                    if not re.search(exact, page):
                        errs.append('%s:%d: "%s" quotes %s, which %s%s does not print'
                                    % (path, n, label, num, os.path.relpath(dest),
                                       '#' + frag if frag else ''))
    return errs


def commands(text):
    """(line number, shell text) for every runnable command, in order."""
    out = []
    for info, start, body in blocks(text):
        words = info.split()
        if not words or 'no-run' in words[1:]:
            continue
        if words[0] == 'sh':
            out.append((start, '\n'.join(body)))
        elif words[0] == 'console':
            i = 0
            while i < len(body):
                if body[i].startswith('$ '):
                    cmd, ln = body[i][2:], start + i
                    while cmd.endswith('\\') and i + 1 < len(body):
                        i += 1
                        cmd += '\n' + body[i]
                    out.append((ln, cmd))
                i += 1
    return out


def script_for(path, cmds):
    """One shell script: each command announced on fd 3 before it runs."""
    s = ['set -e', 'exec 3>&9 9>&-']
    for ln, cmd in cmds:
        s.append('printf "%%s\\n" %s >&3' % shlex.quote('%s:%d' % (path, ln)))
        s.append(cmd)
        # `set -e` ignores a failure before the end of an `a && b` list,
        # whose status is still non-zero: that fails the check too
        s.append('docs_rc=$?; [ "$docs_rc" -eq 0 ] || exit "$docs_rc"')
    s.append('printf "done\\n" >&3')
    return '\n'.join(s) + '\n'


# Inside the new mount namespace: everything private, the source tree under
# an overlay whose layers live on a tmpfs mounted aside (DOCS_AUX), the
# build under test at the tree's build/ (where the guides look), and a
# fresh /tmp. A tree that is itself under /tmp (a clone in /tmp) stays
# reachable: the new /tmp is filled, the tree bound into it, and only then
# moved over /tmp.
WRAP = r'''
set -e
exec 8<"$DOCS_SCRIPT" 9>"$DOCS_TRACE"
mount --make-rprivate /
mount -t tmpfs docs-aux "$DOCS_AUX"
mkdir "$DOCS_AUX/upper" "$DOCS_AUX/work" "$DOCS_AUX/tmp"
mount -t overlay docs-src -o "lowerdir=$DOCS_SRC,upperdir=$DOCS_AUX/upper,workdir=$DOCS_AUX/work" "$DOCS_SRC"
if [ -n "$DOCS_BUILD" ] && [ "$DOCS_BUILD" != "$DOCS_SRC/build" ]; then
	mkdir -p "$DOCS_SRC/build"
	mount --bind "$DOCS_BUILD" "$DOCS_SRC/build"
fi
mount -t tmpfs docs-tmp "$DOCS_AUX/tmp"
case "$DOCS_SRC/" in
/tmp/*)
	mkdir -p "$DOCS_AUX/tmp/${DOCS_SRC#/tmp/}"
	mount --rbind "$DOCS_SRC" "$DOCS_AUX/tmp/${DOCS_SRC#/tmp/}"
	;;
esac
mount --move "$DOCS_AUX/tmp" /tmp
cd "$DOCS_SRC"
exec sh /dev/fd/8
'''


def wrap_env(src, script, trace, tmp, build, path_dirs, **extra):
    """The environment WRAP reads; AUX is a directory of the run's own."""
    aux = os.path.join(tmp, 'aux')
    os.mkdir(aux)
    return dict(os.environ, DOCS_SRC=os.path.realpath(src), DOCS_SCRIPT=script,
                DOCS_TRACE=trace, DOCS_AUX=aux,
                DOCS_BUILD=os.path.realpath(build) if build else '',
                PATH=os.pathsep.join(path_dirs + [os.environ.get('PATH', '/usr/bin:/bin')]),
                **extra)


def missing_programs(text, path_dirs):
    """The programs a "<!-- docs-needs: a b c -->" line names that PATH lacks."""
    need = [w for m in re.finditer(r'<!-- docs-needs: ([^>]*?) -->', text) for w in m.group(1).split()]
    path = path_dirs + os.environ.get('PATH', '/usr/bin:/bin').split(os.pathsep)
    return [n for n in need if not any(os.access(os.path.join(d, n), os.X_OK) for d in path)]


def run_file(src, rel, text, path_dirs, timeout, build=None):
    cmds = commands(text)
    if not cmds:
        return None, 0
    with tempfile.TemporaryDirectory(prefix='mntsnap-docs-') as tmp:
        script, trace = os.path.join(tmp, 'script.sh'), os.path.join(tmp, 'trace')
        with open(script, 'w') as f:
            f.write(script_for(rel, cmds))
        env = wrap_env(src, script, trace, tmp, build, path_dirs)
        p = subprocess.Popen(['unshare', '-m', 'sh', '-c', WRAP], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            rc, out = 'timeout', b''
        finally:
            # the jobs a guide left in the background, and anything they started
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        steps = open(trace).read().split('\n') if os.path.exists(trace) else []
        steps = [s for s in steps if s]
        if rc == 0 and steps and steps[-1] == 'done':
            return None, len(cmds)
        where = steps[-1] if steps and steps[-1] != 'done' else rel
        return ('%s: exit %s\n--- output ---\n%s' %
                (where, rc, out.decode(errors='replace')[-4000:])), len(cmds)


SEP = '\x1e--docs-capture--\x1e'


def capture(src, path, path_dirs, timeout, build=None):
    """Rewrite the output under each "$ " line of path's console blocks with
    what that command prints when run as the commands check runs it."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    lines, cons = text.split('\n'), []
    for info, start, body in blocks(text):
        words = info.split()
        if words[:1] == ['console'] and 'no-run' not in words[1:]:
            cons.append((start, body))
    cmds = []
    for start, body in cons:
        i = 0
        while i < len(body):
            if body[i].startswith('$ '):
                cmd = body[i][2:]
                while cmd.endswith('\\') and i + 1 < len(body):
                    i += 1
                    cmd += '\n' + body[i]
                cmds.append(cmd)
            i += 1
    # each command's output (stderr too) after a separator on stdout
    wrapped = [(0, "printf '%s\\n' " + shlex.quote(SEP) + '\n{ ' + c + '\n} 2>&1') for c in cmds]
    with tempfile.TemporaryDirectory(prefix='mntsnap-docs-') as tmp:
        script, trace = os.path.join(tmp, 'script.sh'), os.path.join(tmp, 'trace')
        with open(script, 'w') as f:
            f.write(script_for(os.path.relpath(path, src), wrapped))
        env = wrap_env(src, script, trace, tmp, build, path_dirs, LC_ALL='C.UTF-8')
        p = subprocess.Popen(['unshare', '-m', 'sh', '-c', WRAP], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        out, _ = p.communicate(timeout=timeout)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if p.returncode != 0:
            sys.exit('capture: exit %d\n%s' % (p.returncode, out.decode(errors='replace')))
    outs = out.decode().split(SEP + '\n')[1:]
    assert len(outs) == len(cmds), (len(outs), len(cmds))
    # rebuild each console block: its commands, each followed by its output
    k, res, i = 0, [], 0
    for start, body in cons:
        res.extend(lines[i:start - 1])
        j = 0
        while j < len(body):
            if body[j].startswith('$ '):
                res.append(body[j])
                while body[j].endswith('\\') and j + 1 < len(body):
                    j += 1
                    res.append(body[j])
                res.extend(outs[k].rstrip('\n').split('\n') if outs[k].strip() else [])
                k += 1
            j += 1
        i = start - 1 + len(body)
    res.extend(lines[i:])
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(res))
    print('capture: %d commands of %s rewritten with their output' % (len(cmds), path))


def self_test():
    errs = []
    with tempfile.TemporaryDirectory(dir='.') as d:
        d = os.path.realpath(d)
        os.mkdir(os.path.join(d, 'doc'))
        with open(os.path.join(d, 'doc', 'g.md'), 'w') as f:
            f.write('# A guide\n\n## Step one: `save`\n\ntext\n')
        good = ('# R\n\nSee [g](doc/g.md), [step](doc/g.md#step-one-save), [me](#r), '
                '[web](https://example.org/x).\n\n```text\n[not](a-link.md)\n```\n')
        bad = good + '\n[gone](doc/none.md) [anchor](doc/g.md#step-two)\n'
        with open(os.path.join(d, 'doc', 'benchmarks.md'), 'w') as f:
            f.write('# B\n\nx 24.27x faster than y\n\n## C\n\n13.56 us\n')
        good += '\n[24.27x faster](doc/benchmarks.md) [13.56 us](doc/benchmarks.md#c)\n'
        with open(os.path.join(d, 'R.md'), 'w') as f:
            f.write(good)
        cache = {}
        if check_links(os.path.join(d, 'R.md'), good, cache):
            errs.append('links: good text reported: %s' % check_links(os.path.join(d, 'R.md'), good, {}))
        got = check_links(os.path.join(d, 'R.md'), bad, {})
        if len(got) != 2 or 'no such file' not in got[0] or '#step-two' not in got[1]:
            errs.append('links: broken ones not both reported: %s' % got)
        got = check_links(os.path.join(d, 'R.md'), good + '[1.5x faster](doc/benchmarks.md) '
                          '[3.56 us](doc/benchmarks.md#c) [24.27x](doc/benchmarks.md#c)\n', {})
        if len(got) != 3 or 'quotes 1.5' not in got[0] or 'quotes 3.56' not in got[1] \
                or 'quotes 24.27' not in got[2]:
            errs.append('links: numbers the benchmark page does not print not reported: %s' % got)
        if missing_programs('<!-- docs-needs: sh no-such-program-x -->', []) != ['no-such-program-x']:
            errs.append('docs-needs: a missing program not named')
        md = ('```sh\necho one\n```\n\n```sh no-run\nexit 9\n```\n\n```text\nexit 8\n```\n\n'
              '```console\n$ echo two \\\n  three\ntwo three\n$ true\n```\n')
        got = commands(md)
        if [c for _, c in got] != ['echo one', 'echo two \\\n  three', 'true']:
            errs.append('commands: wrong selection: %s' % got)
        if os.geteuid() == 0:
            fail, n = run_file(d, 'F.md', md + '\n```sh\nfalse\n```\n', [], 60)
            if not fail or not fail.startswith('F.md:21:'):
                errs.append('commands: a failing command not named by its line: %s' % fail)
            fail, n = run_file(d, 'F.md', md + '\n```sh\nfalse && true\n```\n', [], 60)
            if not fail or not fail.startswith('F.md:21:'):
                errs.append('commands: a failure inside an && list not reported: %s' % fail)
            fail, n = run_file(d, 'F.md', md + '\n```sh\ntouch doc/new && test -e doc/new\n```\n', [], 60)
            if fail:
                errs.append('commands: a passing file reported: %s' % fail)
            if os.path.exists(os.path.join(d, 'doc', 'new')):
                errs.append('commands: a write reached the source tree')
            # a clone under /tmp (the fresh /tmp must not hide it), and
            # --build seen at the tree's build/
            with tempfile.TemporaryDirectory(dir='/tmp') as t, \
                    tempfile.TemporaryDirectory(dir='/tmp') as b:
                open(os.path.join(b, 'marker'), 'w').close()
                fail, n = run_file(t, 'T.md', '```sh\ntouch x && test -e build/marker && '
                                   'test ! -e /tmp/%s\n```\n' % os.path.basename(b), [], 60, b)
                if fail:
                    errs.append('commands: a tree under /tmp, or --build, not run as said: %s' % fail)
                if os.path.exists(os.path.join(t, 'x')) or os.path.exists(os.path.join(t, 'build')):
                    errs.append('commands: a write reached the tree under /tmp')
    for e in errs:
        print('FAIL: ' + e)
    print('ok   self-test' if not errs else '')
    return 1 if errs else 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    mode, args, path_dirs, timeout, build = argv[1], argv[2:], [], 600, None
    while args and args[0].startswith('--'):
        if args[0] == '--path':
            p = os.path.realpath(args[1])      # a directory, or a program in it
            path_dirs.append(p if os.path.isdir(p) else os.path.dirname(p))
            args = args[2:]
        elif args[0] == '--build':         # the build the guides' build/ is
            build = args[1]
            args = args[2:]
        elif args[0] == '--skip':          # this build is not the guides' build
            print('SKIP: ' + args[1])
            return 77
        elif args[0] == '--timeout':
            timeout = int(args[1])
            args = args[2:]
        else:
            sys.exit('unknown option ' + args[0])
    src, files = args[0], args[1:]
    if not files:   # every guide, also one added later
        files = [os.path.join(src, 'README.md')] + sorted(
            os.path.join(src, 'doc', f) for f in os.listdir(os.path.join(src, 'doc'))
            if f.endswith('.md'))
    errs, cache = [], {}
    if mode == 'links':
        n = 0
        for f in files:
            with open(f, encoding='utf-8') as fh:
                text = fh.read()
            n += len([1 for l in prose(text).split('\n') for _ in LINK.finditer(l)])
            errs += check_links(os.path.relpath(f, src) if False else f, text, cache)
        for e in errs:
            print('FAIL: ' + e)
        if not errs:
            print('ok   %d links in %d files resolve' % (n, len(files)))
        return 1 if errs else 0
    if mode == 'commands':
        if os.geteuid() != 0:
            print('SKIP: the marked commands mount things: run as root')
            return 77
        for f in files:
            rel = os.path.relpath(f, src)
            with open(f, encoding='utf-8') as fh:
                text = fh.read()
            missing = missing_programs(text, path_dirs)
            if missing:
                # a guide that needs a runtime this machine lacks: said, not failed
                print('SKIP %-24s needs %s' % (rel, ' '.join(missing)))
                continue
            fail, n = run_file(src, rel, text, path_dirs, timeout, build)
            if fail:
                errs.append(fail)
                print('FAIL: ' + fail)
            else:
                print('ok   %-24s %d commands' % (rel, n))
        return 1 if errs else 0
    if mode == 'capture':
        for f in files:
            capture(src, f, path_dirs, timeout, build)
        return 0
    sys.exit('usage: see the top of ' + argv[0])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
