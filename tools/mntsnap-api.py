#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The public API as the headers declare it, and what is made from it.

The public headers (include/mntsnap.h, mntsnap-supervisor.h, mntsnap-seccomp.h) are the
one source: every function they declare is exported, listed in the
version script and gets a man3 page made of its doc comment. Nothing here
keeps a list of its own, so a function added to a header is exported,
checked and documented without touching this file.

  mntsnap-api.py functions HEADER...            one name a line
  mntsnap-api.py version-script --node N -o OUT HEADER...
  mntsnap-api.py check-exports [--prefix P] LIB HEADER...
                                                .so: dynamic symbols;
                                                .a: global default-visibility
  mntsnap-api.py man3 --version V -o DIR HEADER...
  mntsnap-api.py check-docs HEADER...           every function has a doc block
"""
import argparse
import os
import re
import subprocess
import sys


class Decl:
    def __init__(self, name, proto, doc, header, section):
        self.name = name
        self.proto = proto
        self.doc = doc
        self.header = header
        self.section = section


def _comments_and_code(text):
    """Split text into ('comment', str, start, end) and ('code', str, ...)."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        j = text.find('/*', i)
        if j < 0:
            out.append(('code', text[i:], i, n))
            break
        if j > i:
            out.append(('code', text[i:j], i, j))
        k = text.find('*/', j + 2)
        if k < 0:
            k = n - 2
        out.append(('comment', text[j + 2:k], j, k + 2))
        i = k + 2
    return out


def _comment_text(raw):
    lines = raw.split('\n')
    res = []
    for ln in lines:
        s = ln.strip()
        if s.startswith('*'):
            s = s[1:]
            if s.startswith(' '):
                s = s[1:]
        res.append(s.rstrip())
    while res and not res[0].strip():
        res.pop(0)
    while res and not res[-1].strip():
        res.pop()
    return '\n'.join(res)


def _is_banner(txt):
    # "/* ---- */", "/* Section title. */" framed by rules, "/* ---- x --- */"
    return bool(re.fullmatch(r'[-\s]*', txt)) or txt.strip().startswith('----')


def _strip_preprocessor(code):
    out = []
    cont = False
    for ln in code.split('\n'):
        if cont or ln.lstrip().startswith('#'):
            cont = ln.rstrip().endswith('\\')
            out.append('')
            continue
        out.append(ln)
    return '\n'.join(out)


def _drop_cplusplus(text):
    """Blank out #ifdef __cplusplus ... #endif (extern "C", templates),
    keeping every offset and line number."""
    out = list(text)
    lines = text.split('\n')
    off = 0
    depth = 0
    for ln in lines:
        t = ln.strip()
        if depth == 0 and re.match(r'#\s*if(def)?\s+(defined\s*\(?\s*)?__cplusplus\b', t):
            depth = 1
        elif depth > 0 and re.match(r'#\s*if', t):
            depth += 1
        elif depth > 0 and re.match(r'#\s*endif', t):
            depth -= 1
            if depth == 0:
                for i in range(off, off + len(ln)):
                    out[i] = ' '
        if depth > 0:
            for i in range(off, off + len(ln)):
                out[i] = ' '
        off += len(ln) + 1
    return ''.join(out)


def parse(path):
    """Functions declared in the header, each with its doc block.

    A block comment directly above a run of declarations (no blank line
    between them; forward declarations and typedefs may sit in between)
    documents all of them; a comment on the same line after a
    declaration documents that one.
    """
    text = _drop_cplusplus(open(path, encoding='utf-8').read())
    # blank out preprocessor lines (macros are not functions), keep offsets
    parts = _comments_and_code(text)
    flat = []
    for kind, s, a, b in parts:
        if kind == 'code':
            s = _strip_preprocessor(s)
        flat.append((kind, s, a, b))

    decls = []
    doc = None          # block comment in force
    section = ''
    pending = ''        # code of the current statement
    depth = 0
    last_decl_line_end = None

    def line_of(off):
        return text.count('\n', 0, off)

    for kind, s, a, b in flat:
        if kind == 'comment':
            txt = _comment_text(s)
            if depth > 0 or pending.strip():
                # inside a struct/enum or mid-statement: field comments
                continue
            if decls and last_decl_line_end is not None and \
                    line_of(a) == last_decl_line_end and '\n' not in s:
                # trailing comment of the declaration just made
                if not decls[-1].doc or decls[-1].doc is doc:
                    decls[-1].doc = txt
                continue
            if _is_banner(txt):
                doc = None
                continue
            # a framed section title is "----\nTitle.\n----" in three comments
            if '\n' not in txt and line_of(a) > 0 and \
                    text[text.rfind('\n', 0, a - 1) + 1:a].strip().startswith('/* ---'):
                # "Rendering (lib/render-*.c)." -> "Rendering"
                section = re.sub(r'\s*\(lib/[^)]*\)', '', txt).rstrip('.')
                doc = None
                continue
            doc = txt
            continue
        # code
        pos = a
        for ch_i, ch in enumerate(s):
            if ch == '{':
                depth += 1
            elif ch == '}':
                depth -= 1
            pending += ch
            if ch == ';' and depth == 0:
                stmt = pending.strip()
                stmt_off = pos + ch_i
                pending = ''
                _handle(stmt, stmt_off, text, decls, path, section,
                        lambda: doc, line_of)
                if decls and decls[-1].proto == _norm(stmt):
                    last_decl_line_end = line_of(stmt_off)
                else:
                    last_decl_line_end = None
    return decls


def _norm(stmt):
    return re.sub(r'\s+', ' ', stmt).strip()


def _handle(stmt, off, text, decls, path, section, get_doc, line_of):
    s = _norm(stmt)
    if s.startswith('typedef') or s.startswith('struct ') and '(' not in s:
        return
    m = re.match(r'^(.*?)\b(mntsnap_\w+)\s*\(', s)
    if not m or '{' in s:
        return
    name = m.group(2)
    # the doc in force applies if only whitespace, forward declarations,
    # typedefs or other declarations (no blank line) separate them
    start = off - len(stmt) + 1
    doc = get_doc()
    if doc is not None:
        end_doc = text.rfind('*/', 0, start)
        between = text[end_doc + 2:start]
        if '\n\n' in re.sub(r'[ \t]+', '', between):
            doc = None
        elif re.sub(r'(typedef[^;]*;|struct\s+\w+\s*;|[^;]*\bmntsnap_\w+\s*\([^;]*;|\s)', '',
                    re.sub(r'/\*.*?\*/', '', between, flags=re.S)):
            doc = None
    decls.append(Decl(name, s, doc, os.path.basename(path),
                      section or os.path.basename(path)))


def parse_all(headers):
    out = []
    seen = set()
    for h in headers:
        for d in parse(h):
            if d.name not in seen:
                seen.add(d.name)
                out.append(d)
    return out


def struct_defs(headers):
    """'struct name' -> its definition text, for the SYNOPSIS."""
    defs = {}
    for h in headers:
        text = open(h, encoding='utf-8').read()
        for m in re.finditer(r'^struct (mntsnap_\w+) \{.*?^\};', text, re.S | re.M):
            defs[m.group(1)] = m.group(0)
    return defs


# ---- version script and exports --------------------------------------------

def cmd_version_script(a):
    names = sorted(d.name for d in parse_all(a.headers))
    with open(a.output, 'w') as f:
        f.write('/* Generated by tools/mntsnap-api.py from the public headers. */\n')
        f.write('%s {\nglobal:\n' % a.node)
        for n in names:
            f.write('\t%s;\n' % n)
        f.write('local:\n\t*;\n};\n')


def exported(lib, any_visibility=False):
    """Defined, global, default-visibility functions/objects of lib (with
    any_visibility, hidden ones too)."""
    dyn = not lib.endswith('.a')
    out = subprocess.run(['readelf', '-W', '--dyn-syms' if dyn else '--syms', lib],
                         check=True, capture_output=True, text=True).stdout
    names = set()
    for ln in out.split('\n'):
        f = ln.split()
        if len(f) < 8 or not f[0].rstrip(':').isdigit():
            continue
        typ, bind, vis, ndx, name = f[3], f[4], f[5], f[6], f[7]
        if ndx in ('UND', 'ABS') or bind not in ('GLOBAL', 'WEAK') or \
                (vis != 'DEFAULT' and not any_visibility):
            continue
        if typ not in ('FUNC', 'OBJECT', 'IFUNC'):
            continue
        names.add(name.split('@')[0])
    return names


def cmd_check_exports(a):
    want = {d.name for d in parse_all(a.headers)}
    have = exported(a.lib)
    if a.prefix:
        # a consumer's library: only what it re-exports of ours matters
        have = {n for n in have if n.startswith(a.prefix)}
    extra = sorted(have - want)
    missing = sorted(want - have)
    # In an archive even hidden globals share the consumer's namespace at
    # static link time: each must carry the library's prefix.
    clash = []
    if a.lib.endswith('.a') and not a.prefix:
        # sanitizer builds add their own globals (__odr_asan.NAME, __asan_*,
        # __ubsan_*, __sancov_*): the compiler's, not the library's
        clash = sorted(n for n in exported(a.lib, True)
                       if not n.startswith(('mntsnap_', '__odr_asan', '__asan_', '__ubsan_',
                                            '__sancov_', '__msan_', '__tsan_')))
    for n in clash:
        print('global symbol without the mntsnap_ prefix (clashes in a static link): %s' % n)
    for n in extra:
        print('exported but not in the public headers: %s' % n)
    for n in missing:
        print('declared in the public headers but not exported: %s' % n)
    print('%s: %d exported, %d declared' % (os.path.basename(a.lib), len(have), len(want)))
    return 1 if extra or missing or clash else 0


# ---- man pages ---------------------------------------------------------------

def roff(text):
    # \- is a minus/ASCII hyphen: -EINVAL and --flags copy-paste as typed
    text = text.replace('\\', '\\e').replace('-', '\\-')
    # groff reads its input as Latin-1 unless told otherwise: a UTF-8 tree
    # drawing ("├─") would come out as mojibake, so every non-ASCII
    # character goes in as its Unicode escape
    text = ''.join(c if ord(c) < 0x80 else '\\[u%04X]' % ord(c) for c in text)
    out = []
    for ln in text.split('\n'):
        if ln.startswith('.') or ln.startswith("'"):
            ln = '\\&' + ln
        out.append(ln)
    return '\n'.join(out)


def summary(d):
    doc = d.doc or ''
    first = doc.split('\n\n')[0].replace('\n', ' ')
    m = re.match(r'^(mntsnap_\w+(\s*/\s*_?\w+)*)\s+-\s+(.*)', first)
    if m:
        first = m.group(3)
    s = re.split(r'(?<!e\.g\.)(?<!i\.e\.)(?<=[.:;])\s', first, maxsplit=1)[0].rstrip('.:;')
    if len(s) > 90:
        s = s[:87].rsplit(' ', 1)[0] + '...'
    return s or d.name


def description(doc):
    """Doc text as roff: paragraphs are filled; a run of indented lines
    (an error list, a table of flags) keeps its layout."""
    doc = re.sub(r'^(mntsnap_\w+(\s*/\s*_?\w+)*)\s+-\s+', '', doc)
    out = []
    for para in re.split(r'\n\s*\n', doc):
        lines = para.split('\n')
        prose, block = [], []
        for ln in lines:
            if ln[:1].isspace() and ln.strip():
                block.append(ln)
                continue
            if block:
                out.append('.PP\n' + roff(' '.join(x.strip() for x in prose)) if prose else '')
                out.append('.nf\n' + roff('\n'.join(block)) + '\n.fi')
                prose, block = [], []
            prose.append(ln)
        if prose:
            out.append('.PP\n' + roff(' '.join(x.strip() for x in prose if x.strip())))
        if block:
            out.append('.nf\n' + roff('\n'.join(block)) + '\n.fi')
    return '\n'.join(x for x in out if x)


def split_returns(doc):
    """(description, return-value text): the return value is the doc from
    its first "Returns"/"Errors" sentence to the end of that paragraph."""
    m = re.search(r'(?<![\w-])(Returns?\b|Errors?\b(?=[: (]))', doc)
    if not m:
        return doc, ''
    end = re.search(r'\n\s*\n', doc[m.start():])
    stop = m.start() + end.start() if end else len(doc)
    return (doc[:m.start()] + doc[stop:]).strip(), doc[m.start():stop].strip()


def return_value(d, text):
    ret = d.proto.split(d.name)[0].strip()
    if text:
        body = description(text)
    elif ret == 'void':
        body = '.PP\nNone.'
    elif ret == 'int':
        body = '.PP\n0 (or a count) on success, a negative errno value on failure.'
    else:
        body = '.PP\nThe value described above.'
    if ret in ('int', 'long'):
        body += ('\n.PP\nErrors are negative errno values, never errno;'
                 ' mntsnap_strerror(3) explains each in words.')
    return body


def man_page(d, all_decls, defs, version):
    name = d.name
    structs = [s for s in re.findall(r'struct (mntsnap_\w+)', d.proto) if s in defs]
    same = [x.name for x in all_decls if x is not d and x.doc is not None and x.doc == d.doc]
    section = [x.name for x in all_decls if x.section == d.section and x is not d
               and x.name not in same][:8]
    # functions one doc block describes share a page's NAME and SYNOPSIS,
    # as malloc, free, calloc do: a NAME line "mntsnap_diff_free - compare
    # two snapshots" would tell whatis(1) the wrong thing
    group = [x for x in all_decls if x is d or x.name in same]
    lines = [
        '.\\" Generated by tools/mntsnap-api.py from %s: edit the header, not this page.' % d.header,
        '.TH %s 3 "" "mntsnap %s" "mntsnap Library Functions"' % (name.upper(), version),
        '.SH NAME',
        '%s \\- %s' % (', '.join(x.name for x in group), roff(summary(d))),
        '.SH SYNOPSIS',
        '.nf',
        '.B #include <%s>' % d.header,
        '.PP',
        '\n'.join(roff(x.proto) for x in group),
    ]
    for x in group:
        structs += [t for t in re.findall(r'struct (mntsnap_\w+)', x.proto)
                    if t in defs and t not in structs]
    for s in structs:
        lines += ['.PP', roff(defs[s])]
    lines += ['.fi', '.PP', 'Link with \\fI\\-lmntsnap\\fR (pkg-config: \\fImntsnap\\fR).']
    desc, ret = split_returns(d.doc or 'Undocumented.')
    lines += ['.SH DESCRIPTION', description(desc or summary(d) + '.')]
    if same:
        lines += ['.PP', 'This text documents %s together.' % ', '.join(
            '\\fB%s\\fR()' % x for x in [name] + same)]
    lines += ['.SH RETURN VALUE', return_value(d, ret)]
    see = ['mntsnap(3)'] + ['%s(3)' % x for x in same + section]
    lines += ['.SH SEE ALSO', ',\n'.join('.BR %s' % s.replace('(', ' (') for s in see)]
    return '\n'.join(lines) + '\n'


def overview_page(decls, header, version, examples=None):
    text = open(header, encoding='utf-8').read()
    m = re.search(r'/\*(.*?)\*/', text[text.find('*/') + 2:], re.S)
    intro = _comment_text(m.group(1)) if m else ''
    lines = [
        '.\\" Generated by tools/mntsnap-api.py from %s: edit the header, not this page.' %
        os.path.basename(header),
        '.TH MNTSNAP 3 "" "mntsnap %s" "mntsnap Library Functions"' % version,
        '.SH NAME', 'mntsnap \\- mount tables with listmount/statmount, snapshots, namespaces',
        '.SH SYNOPSIS', '.nf', '.B #include <mntsnap.h>', '.fi',
        '.PP', 'Link with \\fI\\-lmntsnap\\fR; \\fIpkg-config \\-\\-libs mntsnap\\fR'
        ' (add \\fI\\-\\-static\\fR for the archive).',
        '.SH DESCRIPTION', description(intro), '.SH FUNCTIONS']
    sect = None
    for d in decls:
        if d.section != sect:
            sect = d.section
            lines += ['.SS %s' % roff(sect or 'General')]
        lines += ['.TP', '.BR %s (3)' % d.name, roff(summary(d))]
    if examples:
        # one program, compiled and run by tests/api/check-examples.py
        # from this page's text
        lines += ['.SH EXAMPLES', 'Capture, lookup, diff, another namespace and a watch'
                  ' loop, in one program:', '.PP', '.EX',
                  roff(open(examples, encoding='utf-8').read().rstrip('\n')), '.EE']
    lines += ['.SH SEE ALSO', '.BR mntsnap (1)']
    return '\n'.join(lines) + '\n'


def cmd_man3(a):
    decls = parse_all(a.headers)
    defs = struct_defs(a.headers)
    os.makedirs(a.output, exist_ok=True)
    for d in decls:
        with open(os.path.join(a.output, d.name + '.3'), 'w') as f:
            f.write(man_page(d, decls, defs, a.version))
    with open(os.path.join(a.output, 'mntsnap.3'), 'w') as f:
        f.write(overview_page(decls, a.headers[0], a.version, a.examples))
    if a.stamp:
        open(a.stamp, 'w').write('%d pages\n' % (len(decls) + 1))


def cmd_check_docs(a):
    bad = [d.name for d in parse_all(a.headers) if not d.doc]
    for n in bad:
        print('no doc comment above %s()' % n)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('functions')
    p.add_argument('headers', nargs='+')
    p = sub.add_parser('version-script')
    p.add_argument('--node', required=True)
    p.add_argument('-o', '--output', required=True)
    p.add_argument('headers', nargs='+')
    p = sub.add_parser('check-exports')
    p.add_argument('--prefix', help='only exports starting with this')
    p.add_argument('lib')
    p.add_argument('headers', nargs='+')
    p = sub.add_parser('man3')
    p.add_argument('--version', required=True)
    p.add_argument('-o', '--output', required=True)
    p.add_argument('--stamp')
    p.add_argument('--examples', help="C program for mntsnap(3)'s EXAMPLES")
    p.add_argument('headers', nargs='+')
    p = sub.add_parser('check-docs')
    p.add_argument('headers', nargs='+')
    a = ap.parse_args()
    if a.cmd == 'functions':
        for d in parse_all(a.headers):
            print(d.name)
        return 0
    return {'version-script': cmd_version_script, 'check-exports': cmd_check_exports,
            'man3': cmd_man3, 'check-docs': cmd_check_docs}[a.cmd](a) or 0


if __name__ == '__main__':
    sys.exit(main())
