#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The library's layers, checked from the built objects' own symbols.

A lib object that leaves a symbol undefined (nm "U") which another lib
object defines depends on that object: that is an edge of the object
graph. Reading nm output of what was actually compiled means the check
cannot drift from the code the way a hand-kept diagram does.

Fails on:
  - a lib/*.c file missing from LAYERS below (every file has one layer),
    or not built into the archive (unless OPTIONAL);
  - any cycle in the object graph;
  - an edge from a lower layer to a higher one (same layer is fine);
  - an object calling a public entry point (a function the public headers
    declare) that it does not define itself: the public API is for
    callers; inside, the layers call each other's internal functions;
  - a raw syscall or ioctl made outside lib/sys.c;
  - a non-static global whose name is neither a public declaration
    (mntsnap_*) nor internal (mntsnap__*);
  - a lib/*.c or lib/*.h including (#include "x.h") a lib header of a
    higher layer: a header belongs to the layer of its .c, or to the one
    HEADERS gives; nm cannot see a struct or an inline function read
    through a header, so includes are checked from the text;
  - with --drawing: a lib/*.c file that doc/architecture.md's layer drawing
    puts under another layer than LAYERS does, or leaves out, or a file
    that section names and lib/ does not have (the drawing readers go by
    cannot drift from the table the check goes by).

  check-layers.py --api-tool TOOL --lib-src DIR (--archive A | --objdir DIR) [--drawing doc/architecture.md]
                  [--graph] HEADERS...
  check-layers.py --self-test --cc CC --api-tool TOOL HEADERS...
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys
import tempfile

# Layer of each library source. A file calls only its own layer or lower.
L0, L1, L2, L3, L4 = range(5)
LAYERS = {
    # L0 platform: knows the kernel, not records. Raw syscalls behind the
    # seam, option structs, error reports.
    'sys.c': L0,
    'opts.c': L0,
    'proc.c': L0,
    'kernel-features.c': L0,
    'errors.c': L0,
    'fsuuid.c': L0,
    # L1 model: the snapshot store and its records; two snapshots compared.
    'fields.c': L1,
    'snapshot.c': L1,
    'lookup.c': L1,
    'diff.c': L1,
    # L2 sources: each reads one reachable source of mounts; none knows
    # namespace handles' routing or policy.
    'backend-statmount.c': L2,
    'backend-mountinfo.c': L2,
    'consistent.c': L2,
    'source.c': L2,
    # L3 namespaces: handles, listing, explanations, the entering helper
    # (whose work items call L2 directly).
    'ns.c': L3,
    'ns-helper.c': L3,
    'ns-list.c': L3,
    'ns-explain.c': L3,
    # L4 operations: the router and every other public operation.
    'route.c': L4,
    'capture.c': L4,
    'refresh.c': L4,
    'restore.c': L4,
    'wire.c': L4,
    'render.c': L4,
    'render-util.c': L4,
    'render-mountinfo.c': L4,
    'render-json.c': L4,
    'render-table.c': L4,
    'render-options.c': L4,
    'render-diff.c': L4,
    'watch.c': L4,
    'seccomp.c': L4,
    'policy.c': L4,
    'supervisor.c': L4,
    'sv-read.c': L4,
    'sv-decode.c': L4,
    'sv-decide.c': L4,
    'sv-perform.c': L4,
    'sv-mount.c': L4,
    'sv-newapi.c': L4,
    'sv-json.c': L4,
    'sv-answer.c': L4,
}
# The mount supervisor's request pipeline, in call order: a file here
# calls only files after it (or lower layers), never one before it. The
# data runs read -> decode -> decide -> perform -> answer, driven by the
# loop (and, for the new mount API's calls, by sv-newapi.c); two stages
# ask a later-run one for a service, so call order is not data order:
# perform asks read for NOTIF_ID_VALID once the caller's namespaces are
# open, and the work inside them asks decide once the paths are resolved.
STAGES = [
    'supervisor.c',   # the object, the container workers, the loop
    'sv-newapi.c',    # fsopen/fsconfig/fsmount/move_mount/... through the stages
    'sv-answer.c',    # tracking, audit, SEND
    'sv-perform.c',   # the caller's namespaces, the worker inside them
    'sv-mount.c',     # the work inside: resolve, mount (the only mounting code)
    'sv-decide.c',    # the policy over the struct (pure)
    'sv-decode.c',    # arguments -> struct sv_req (pure)
    'sv-read.c',      # the caller's memory and fds, NOTIF_ID_VALID
]
# Stages that make no syscall: no call into the syscall or procfs layer,
# no libc call that enters the kernel.
PURE_STAGES = {'sv-decode.c', 'sv-decide.c'}
IMPURE = {'sys.c', 'proc.c'}
LIBC_SYSCALLS = {'open', 'openat', 'read', 'write', 'close', 'pread', 'pwrite', 'fstat',
                 'stat', 'lstat', 'fstatat', 'readlink', 'readlinkat', 'mmap', 'fork',
                 'clock_gettime', 'epoll_wait', 'poll', 'eventfd', 'pipe', 'pipe2', 'dup',
                 'fcntl', 'getpid'}
# Of the pipeline's files, only the work inside the container mounts (the
# mounting calls' wrappers in sys.c are for it alone) and only the read
# stage reads the caller's memory.
STAGE_ONLY = {
    'sv-mount.c': {'mntsnap__sys_fsopen', 'mntsnap__sys_fsconfig', 'mntsnap__sys_fsmount',
                   'mntsnap__sys_move_mount', 'mntsnap__sys_mount_setattr',
                   'mntsnap__sys_open_tree', 'mntsnap__sys_fspick', 'mntsnap__sys_umount2',
                   'mntsnap__sys_mount'},
    'sv-read.c': {'mntsnap__sys_process_vm_readv'},
}

# Headers without a .c of the same name, by layer. Every other lib/x.h
# belongs to the layer of lib/x.c.
HEADERS = {
    'uapi.h': L0,      # kernel ABI copies
    'hash.h': L0,      # the tables' hash functions
    'target.h': L0,    # a target namespace as fds, ids and a route
    'backends.h': L2,  # the sources' entry points
    'sys-seam.h': L4,  # private test entry points of the operations
}

# Raw kernel entry points: only lib/sys.c may call them, so every one goes
# through the seam and answers -errno (libc's wrappers answer -1 + errno).
RAW_SYSCALLS = {'syscall', 'ioctl', 'setns', 'statx', 'fanotify_init', 'fanotify_mark',
                'open_tree', 'pidfd_open', 'pidfd_getfd', 'mount_setattr', 'move_mount',
                'fsopen', 'fsconfig', 'fsmount', 'fspick', 'umount2', 'capget', 'capset',
                'prctl', 'clone', 'waitid', 'chroot', 'process_vm_readv', 'unshare',
                'mount', 'umount', 'pivot_root', 'openat2', 'close_range', 'setresuid',
                'setresgid', 'setgroups'}
SYSCALL_FILE = 'sys.c'
# Sources built only with an optional dependency: their object may be
# missing. Every other lib/*.c must be in the archive, or its calls go
# unchecked (a file added to lib/ and the table but not to meson.build).
OPTIONAL = {'seccomp.c'}
NAMES = ['L0 platform', 'L1 model', 'L2 sources', 'L3 namespaces', 'L4 operations']
DEFINED = set('TDBRCVWGSi')


def public_functions(tool, headers):
    out = subprocess.run([sys.executable, tool, 'functions', *headers],
                         check=True, capture_output=True, text=True).stdout
    return set(out.split())


def symbols(obj, nm):
    """(defined globals, undefined) of one object, from nm -P."""
    out = subprocess.run([nm, '-P', obj], check=True, capture_output=True, text=True).stdout
    defs, undef = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind == 'U':
            undef.add(name)
        elif kind in DEFINED:
            defs.add(name)
    return defs, undef


def src_of(obj):
    base = os.path.basename(obj)
    return base[:-2] if base.endswith('.o') else base


def load(objdir, nm):
    objs = {}
    for f in sorted(os.listdir(objdir)):
        if f.endswith('.o'):
            objs[src_of(f)] = symbols(os.path.join(objdir, f), nm)
    return objs


def load_archive(archive, nm):
    """Every member of a (thin or full) archive, from nm -P -A."""
    out = subprocess.run([nm, '-P', '-A', archive], check=True, capture_output=True,
                         text=True).stdout
    objs = {}
    for line in out.splitlines():
        m = re.match(r'.*\[([^\]]+)\]:\s+(\S+)\s+(\S)', line)
        if not m:
            continue
        member, name, kind = m.groups()
        defs, undef = objs.setdefault(src_of(member), (set(), set()))
        if kind == 'U':
            undef.add(name)
        elif kind in DEFINED:
            defs.add(name)
    return objs


def graph(objs):
    """{(a, b): [symbols]}: a uses what b defines."""
    owner = {}
    for o, (defs, _) in objs.items():
        for s in defs:
            owner.setdefault(s, o)
    edges = {}
    for o, (_, undef) in objs.items():
        for s in undef:
            b = owner.get(s)
            if b is not None and b != o:
                edges.setdefault((o, b), []).append(s)
    return edges


def cycles(nodes, edges):
    """Strongly connected components with more than one node (Tarjan)."""
    succ = {n: sorted(b for (a, b) in edges if a == n) for n in nodes}
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return out


def check_stages(objs, edges, stages, pure, only):
    """The pipeline's calls run one way; pure stages and the stage-only calls."""
    errs = []
    rank = {f: i for i, f in enumerate(stages)}
    for (a, b), syms in sorted(edges.items()):
        if a in rank and b in rank and rank[a] > rank[b]:
            errs.append('%s calls back into %s, an earlier stage of the pipeline: %s' %
                        (a, b, ', '.join(sorted(syms))))
        if a in pure and b in IMPURE:
            errs.append('%s (a stage without syscalls) calls %s: %s' %
                        (a, b, ', '.join(sorted(syms))))
    for o, (_, undef) in sorted(objs.items()):
        if o in pure:
            for s in sorted(undef & LIBC_SYSCALLS):
                errs.append('%s (a stage without syscalls) calls %s()' % (o, s))
        for owner, syms in sorted(only.items()):
            if o != owner and o in rank:
                for s in sorted(undef & syms):
                    errs.append('%s calls %s, which only %s may' % (o, s, owner))
    return errs


def check(objs, layers, public, sources, stages=None, pure=None, only=None):
    errs = []
    for s in sorted(sources):
        if s not in layers:
            errs.append('%s: not in the LAYERS table of %s' % (s, os.path.basename(__file__)))
    for o in sorted(objs):
        if o not in layers and o not in sources:
            errs.append('%s: object with no layer' % o)
    for s in sorted(sources - set(objs) - OPTIONAL):
        errs.append('%s: in lib/ but not built (its calls would go unchecked)' % s)
    edges = graph(objs)
    for comp in cycles(objs.keys(), edges):
        errs.append('cycle among: %s' % ' '.join(comp))
    errs += check_stages(objs, edges, STAGES if stages is None else stages,
                         PURE_STAGES if pure is None else pure,
                         STAGE_ONLY if only is None else only)
    for (a, b), syms in sorted(edges.items()):
        la, lb = layers.get(a), layers.get(b)
        if la is not None and lb is not None and la < lb:
            errs.append('%s (%s) calls up into %s (%s): %s' %
                        (a, NAMES[la], b, NAMES[lb], ', '.join(sorted(syms))))
    for o, (defs, undef) in sorted(objs.items()):
        if o != SYSCALL_FILE:
            for s in sorted(undef & RAW_SYSCALLS):
                errs.append('%s calls %s() itself (raw syscalls go through %s)' %
                            (o, s, SYSCALL_FILE))
        for s in sorted(undef & public):
            errs.append('%s calls the public entry point %s (inside, call the internal one)' % (o, s))
        for s in sorted(defs):
            # the implementation's reserved names: sanitizer instrumentation
            # (__odr_asan.*), compiler helpers; no source here can define them
            if s.startswith('mntsnap__') or s.startswith('__'):
                continue
            if s.startswith('mntsnap_') and s in public:
                continue
            if s.startswith('mntsnap_') and s.upper() == s:
                continue
            errs.append('%s: global %s is neither public (declared in the headers) '
                        'nor named mntsnap__*' % (o, s))
    return errs, edges


def drawing_layers(text):
    """{lib name or glob: layer} from doc/architecture.md's layer drawing.

    The first fenced block after "## The layers": a line "L<n> ..."
    opens layer n; a line starting "lib/<name>" puts name (".[ch]" read as
    ".c", "*" as a glob) under the open layer; any other unindented line
    closes it.
    """
    sec = text.split('\n## The layers', 1)
    if len(sec) < 2 or '```' not in sec[1]:
        return None
    block = sec[1].split('```', 2)[1]
    cur, out = None, {}
    for line in block.splitlines():
        m = re.match(r'L([0-4]) ', line)
        if m:
            cur = int(m.group(1))
            continue
        m = re.match(r'lib/(\S+)', line)
        if m and cur is not None:
            out[m.group(1).replace('.[ch]', '.c')] = cur
        elif line[:1].strip():
            cur = None
    return out


def check_drawing(text, layers, sources):
    """Errors where the drawing and the table disagree."""
    drawn = drawing_layers(text)
    if drawn is None:
        return ['doc/architecture.md: no fenced drawing after "## The layers"']
    errs = []
    for f in sorted(sources):
        hits = {lv for pat, lv in drawn.items() if fnmatch.fnmatchcase(f, pat)}
        if not hits:
            errs.append('%s: not in the layer drawing of doc/architecture.md' % f)
        elif f in layers and hits != {layers[f]}:
            errs.append('%s: doc/architecture.md draws it in %s, the LAYERS table has %s' %
                        (f, '/'.join(NAMES[lv] for lv in sorted(hits)), NAMES[layers[f]]))
    for pat in sorted(drawn):
        if pat.endswith('.c') and not any(fnmatch.fnmatchcase(f, pat) for f in sources):
            errs.append('doc/architecture.md names lib/%s, which lib/ does not have' % pat)
    return errs


def print_graph(objs, edges, layers):
    for (a, b), syms in sorted(edges.items()):
        print('%-22s -> %-22s %2d  %s' % (a, b, len(syms), ' '.join(sorted(syms)[:4]) +
                                          (' ...' if len(syms) > 4 else '')))
    by = {}
    for o in objs:
        by.setdefault(layers.get(o, -1), []).append(o)
    for lv in sorted(by):
        print('%s: %s' % (NAMES[lv] if lv >= 0 else 'no layer', ' '.join(sorted(by[lv]))))


def header_layer(h, layers):
    stem = h[:-2] + '.c'
    if stem in layers:
        return layers[stem]
    return HEADERS.get(h)


def check_includes(lib_src, layers):
    """Every quoted include of a lib header goes to the same or a lower layer."""
    errs = []
    names = sorted(f for f in os.listdir(lib_src) if re.fullmatch(r'[\w.-]+\.[ch]', f))
    headers = {f for f in names if f.endswith('.h')}
    for h in sorted(headers):
        if header_layer(h, layers) is None:
            errs.append('%s: header with no layer (no %s, not in HEADERS)' % (h, h[:-2] + '.c'))
    for f in names:
        mine = layers.get(f) if f.endswith('.c') else header_layer(f, layers)
        if mine is None:
            continue
        with open(os.path.join(lib_src, f), errors='replace') as fh:
            text = fh.read()
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            if inc not in headers:
                continue
            theirs = header_layer(inc, layers)
            if theirs is not None and mine < theirs:
                errs.append('%s (%s) includes %s (%s)' % (f, NAMES[mine], inc, NAMES[theirs]))
    return errs


def self_test(a, public):
    """Build tiny objects that break each rule; each must be reported."""
    tests = {
        'cycle': ({'a.c': 'void mntsnap__b(void); void mntsnap__a(void) { mntsnap__b(); }',
                   'b.c': 'void mntsnap__a(void); void mntsnap__b(void) { mntsnap__a(); }'},
                  {'a.c': L2, 'b.c': L2}, 'cycle among: a.c b.c'),
        'upward': ({'low.c': 'void mntsnap__hi(void); void mntsnap__lo(void) { mntsnap__hi(); }',
                    'high.c': 'void mntsnap__hi(void) {}'},
                   {'low.c': L0, 'high.c': L4}, 'low.c (L0 platform) calls up into high.c'),
        'public': ({'x.c': 'int %s(void); int mntsnap__x(void) { return %s(); }' %
                    ((sorted(public)[0],) * 2)},
                   {'x.c': L4}, 'x.c calls the public entry point %s' % sorted(public)[0]),
        'name': ({'y.c': 'int helper_without_prefix(void) { return 0; }'},
                 {'y.c': L1}, 'global helper_without_prefix'),
        'raw': ({'r.c': 'long syscall(long, ...); long mntsnap__r(void) { return syscall(39); }'},
                {'r.c': L2}, 'r.c calls syscall() itself'),
        'unlisted': ({'z.c': 'int mntsnap__z(void) { return 0; }'},
                     {}, 'z.c: not in the LAYERS table'),
        'stage-back': ({'s1.c': 'void mntsnap__s2(void); void mntsnap__s1(void) { mntsnap__s2(); }',
                        's2.c': 'void mntsnap__s1(void); void mntsnap__s2(void) {}',
                        's3.c': 'void mntsnap__s1(void); void mntsnap__s3(void) { mntsnap__s1(); }'},
                       {'s1.c': L4, 's2.c': L4, 's3.c': L4},
                       's3.c calls back into s1.c, an earlier stage'),
        'stage-pure': ({'d.c': 'int mntsnap__sys_x(void); int mntsnap__d(void) { return mntsnap__sys_x(); }',
                        'sys.c': 'int mntsnap__sys_x(void) { return 0; }'},
                       {'d.c': L4, 'sys.c': L0}, 'd.c (a stage without syscalls) calls sys.c'),
        'stage-libc': ({'d.c': 'int open(const char *, int, ...); int mntsnap__d(void) { return open("/", 0); }'},
                       {'d.c': L4}, 'd.c (a stage without syscalls) calls open()'),
        'stage-only': ({'s1.c': 'int mntsnap__sys_mount(void); int mntsnap__s1(void) { return mntsnap__sys_mount(); }',
                        'sys.c': 'int mntsnap__sys_mount(void) { return 0; }'},
                       {'s1.c': L4, 'sys.c': L0}, 's1.c calls mntsnap__sys_mount, which only s3.c may'),
        'stage-ok': ({'s1.c': 'void mntsnap__s2(void); void mntsnap__s1(void) { mntsnap__s2(); }',
                      's2.c': 'void mntsnap__s2(void) {}'},
                     {'s1.c': L4, 's2.c': L4}, None),
        'clean': ({'p.c': 'void mntsnap__q(void); void mntsnap__p(void) { mntsnap__q(); }',
                   'q.c': 'void mntsnap__q(void) {}'},
                  {'p.c': L2, 'q.c': L1}, None),
    }
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (files, layers, want) in tests.items():
            d = os.path.join(tmp, name)
            os.mkdir(d)
            for fn, code in files.items():
                src = os.path.join(d, fn)
                with open(src, 'w') as f:
                    f.write(code + '\n')
                subprocess.run([a.cc, '-c', '-o', src + '.o', src], check=True, cwd=d)
                os.unlink(src)
            errs, _ = check(load(d, a.nm), layers, public, set(files),
                            stages=['s1.c', 's2.c', 's3.c'], pure={'d.c'},
                            only={'s3.c': {'mntsnap__sys_mount'}})
            ok = (not errs) if want is None else any(want in e for e in errs)
            print('self-test %-8s %s%s' % (name, 'ok' if ok else 'MISSED',
                                           '' if ok else ': %r' % errs))
            bad += not ok
    errs, _ = check({}, {'w.c': L2}, public, {'w.c'})
    ok = any('w.c: in lib/ but not built' in e for e in errs)
    print('self-test %-8s %s%s' % ('unbuilt', 'ok' if ok else 'MISSED', '' if ok else ': %r' % errs))
    bad += not ok
    readme = ('# x\n\n## The layers\n\n```\ninclude/x.h   api\n\nL0 platform\n'
              'lib/a.[ch]    a\nlib/r*.c      r\n\nL2 sources\nlib/b.c       b\n'
              'seccomp/      not a layer\n```\n')
    srcs = {'a.c', 'ra.c', 'rb.c', 'b.c'}
    rtests = {
        'readme-ok': ({'a.c': L0, 'ra.c': L0, 'rb.c': L0, 'b.c': L2}, srcs, None),
        'readme-layer': ({'a.c': L0, 'ra.c': L0, 'rb.c': L0, 'b.c': L3}, srcs,
                         'b.c: doc/architecture.md draws it in L2 sources'),
        'readme-missing': ({'a.c': L0, 'ra.c': L0, 'rb.c': L0, 'b.c': L2, 'c.c': L2},
                           srcs | {'c.c'}, "c.c: not in the layer drawing"),
        'readme-stale': ({'ra.c': L0, 'rb.c': L0, 'b.c': L2}, srcs - {'a.c'},
                         'doc/architecture.md names lib/a.c'),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, files, want in (
                ('include-up', {'low.c': '#include "high.h"', 'high.c': '', 'high.h': ''},
                 'low.c (L0 platform) includes high.h (L4 operations)'),
                ('include-ok', {'low.c': '', 'high.c': '#include "low.h"', 'low.h': ''}, None),
                ('include-nolayer', {'low.c': '', 'odd.h': ''}, 'odd.h: header with no layer')):
            d = os.path.join(tmp, name)
            os.mkdir(d)
            for fn, code in files.items():
                with open(os.path.join(d, fn), 'w') as f:
                    f.write(code + '\n')
            errs = check_includes(d, {'low.c': L0, 'high.c': L4})
            ok = (not errs) if want is None else any(want in e for e in errs)
            print('self-test %-15s %s%s' % (name, 'ok' if ok else 'MISSED',
                                             '' if ok else ': %r' % errs))
            bad += not ok
    for name, (layers, sources, want) in rtests.items():
        errs = check_drawing(readme, layers, sources)
        ok = (not errs) if want is None else any(want in e for e in errs)
        print('self-test %-14s %s%s' % (name, 'ok' if ok else 'MISSED',
                                         '' if ok else ': %r' % errs))
        bad += not ok
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--api-tool', required=True)
    ap.add_argument('--lib-src')
    ap.add_argument('--objdir', help='a directory of the library\'s objects')
    ap.add_argument('--archive', help='or the static archive holding them')
    ap.add_argument('--nm', default='nm')
    ap.add_argument('--cc', default='cc')
    ap.add_argument('--drawing', help='compare the table with the layer drawing in this file (doc/architecture.md)')
    ap.add_argument('--graph', action='store_true', help='print edges and layers')
    ap.add_argument('--self-test', action='store_true')
    ap.add_argument('headers', nargs='+')
    a = ap.parse_args()
    public = public_functions(a.api_tool, a.headers)
    if a.self_test:
        return self_test(a, public)
    objs = load_archive(a.archive, a.nm) if a.archive else load(a.objdir, a.nm)
    sources = {f for f in os.listdir(a.lib_src) if re.fullmatch(r'[\w.-]+\.c', f)}
    errs, edges = check(objs, LAYERS, public, sources)
    errs += check_includes(a.lib_src, LAYERS)
    if a.drawing:
        with open(a.drawing) as f:
            errs += check_drawing(f.read(), LAYERS, sources)
    if a.graph:
        print_graph(objs, edges, LAYERS)
    for e in errs:
        print(e)
    print('%d objects, %d edges, %d problems' % (len(objs), len(edges), len(errs)))
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
