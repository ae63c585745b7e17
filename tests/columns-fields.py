#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every column gets its field: for every column (--list-columns: findmnt's
and mntsnap's own; --output-all is findmnt's 24 only), the
value `list` prints (JSON, flat) equals the one `stat` prints for the
same mount, and the library's own (lib-json: a MNTSNAP_MASK_FULL capture
rendered by mntsnap_render, no CLI code) where the library's JSON has
that key. Both backends, on a private namespace holding an idmapped
mount, a read-only bind, a mount with an empty source and an ext4 image
(a filesystem with a UUID).

  columns-fields.py MNTSNAP_BIN LIB_JSON_BIN
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile

FAILS = []
PASSES = [0]

# the library's JSON lists a few fields under other names or forms
LIB_KEY = {'sec-options': 'opt-sec-array'}


def check(name, ok, why=''):
    if ok:
        PASSES[0] += 1
    else:
        FAILS.append(name)
        print('FAIL %s %s' % (name, why))


def sh(*args):
    r = subprocess.run(list(args), capture_output=True)
    if r.returncode:
        raise RuntimeError('%s: %s' % (' '.join(args), r.stderr.decode(errors='replace')))
    return r.stdout


def jload(b):
    return json.loads(b.decode('utf-8', 'surrogateescape'))


# open_tree, mount_setattr, move_mount: the same numbers on every arch
# that uses the generic table (x86_64 and aarch64 included)
NR_OPEN_TREE, NR_MOVE_MOUNT, NR_MOUNT_SETATTR = 428, 429, 442


class MountAttr(ctypes.Structure):
    _fields_ = [('attr_set', ctypes.c_uint64), ('attr_clr', ctypes.c_uint64),
                ('propagation', ctypes.c_uint64), ('userns_fd', ctypes.c_uint64)]


def idmapped_bind(src, dst):
    """An idmapped bind of src on dst (uid 0 -> 100000, gids in two
    ranges); False when the kernel or the filesystem cannot."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # a child holds a fresh user namespace while we write its maps
    # (unshare(1)'s --map-users needs newuidmap, not always installed)
    rd, wr = os.pipe()
    rd2, wr2 = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        os.close(wr2)
        CLONE_NEWUSER = 0x10000000
        ok = libc.unshare(CLONE_NEWUSER) == 0
        os.write(wr, b'1' if ok else b'0')
        os.read(rd2, 1)
        os._exit(0)
    os.close(wr)
    os.close(rd2)
    try:
        if os.read(rd, 1) != b'1':
            return False
        with open('/proc/%d/uid_map' % pid, 'w') as f:
            f.write('0 100000 65536\n')
        with open('/proc/%d/gid_map' % pid, 'w') as f:
            f.write('0 200000 1000\n')
        ufd = os.open('/proc/%d/ns/user' % pid, os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(wr2)
        os.close(rd)
        os.waitpid(pid, 0)
    AT_FDCWD, OPEN_TREE_CLONE, AT_EMPTY_PATH = -100, 1, 0x1000
    tfd = libc.syscall(NR_OPEN_TREE, AT_FDCWD, src.encode(), OPEN_TREE_CLONE | os.O_CLOEXEC)
    if tfd < 0:
        os.close(ufd)
        return False
    a = MountAttr(0x100000, 0, 0, ufd)  # MOUNT_ATTR_IDMAP
    ok = libc.syscall(NR_MOUNT_SETATTR, tfd, b'', AT_EMPTY_PATH, ctypes.byref(a),
                      ctypes.sizeof(a)) == 0
    MOVE_MOUNT_F_EMPTY_PATH = 4
    ok = ok and libc.syscall(NR_MOVE_MOUNT, tfd, b'', AT_FDCWD, dst.encode(),
                             MOVE_MOUNT_F_EMPTY_PATH) == 0
    os.close(tfd)
    os.close(ufd)
    return ok


def setup(base):
    for d in ('src', 'idm', 'ro', 'empty', 'ext4'):
        os.makedirs(os.path.join(base, d))
    sh('mount', '-t', 'tmpfs', 'colsrc', os.path.join(base, 'src'))
    have_idmap = idmapped_bind(os.path.join(base, 'src'), os.path.join(base, 'idm'))
    sh('mount', '--bind', '-o', 'ro', os.path.join(base, 'src'), os.path.join(base, 'ro'))
    sh('mount', '-t', 'tmpfs', '', os.path.join(base, 'empty'))
    img = os.path.join(base, 'fs.img')
    have_ext4 = False
    if shutil.which('mkfs.ext4'):
        sh('truncate', '-s', '8M', img)
        sh('mkfs.ext4', '-q', '-F', '-U', '5d3b0f2e-1c9a-4e57-9a61-0f4c2b7d8e11', img)
        r = subprocess.run(['mount', '-o', 'loop', img, os.path.join(base, 'ext4')],
                           capture_output=True)
        have_ext4 = r.returncode == 0
    return have_idmap, have_ext4


def norm_lib(col, v):
    """The library's JSON value in a column's form."""
    if isinstance(v, list):
        return ','.join(v) if v else None
    if col in ('peer-group', 'master', 'propagate-from') and v == 0:
        return None
    if col in ('id', 'parent') and v == 0:
        return None
    if col == 'maj:min' and v == '0:0':
        return None
    # a column's empty value is null (findmnt's JSON)
    if v == '':
        return None
    return v


def all_columns(binary):
    """Every column by name, as -o takes them: the blkid ones only in a
    build with libblkid (one without refuses them), not the ones only -p
    fills (described "... by -p/--poll"; refused without -p)."""
    names = [l.split()[0] for l in sh(binary, 'list', '--list-columns').decode().splitlines()
             if '--poll' not in l]
    if b'-libblkid' in sh(binary, '--version'):
        names = [n for n in names if n not in ('LABEL', 'PARTLABEL', 'PARTUUID', 'SOURCES')]
    return ','.join(names)


def probe_uuid(source):
    """blkid -p's UUID of a source that is a block device, else None."""
    if not source or not source.startswith('/') or not os.path.exists(source):
        return None
    r = subprocess.run(['blkid', '-p', '-o', 'value', '-s', 'UUID', source],
                       capture_output=True, text=True)
    return r.stdout.strip() or None


def inner(binary, libjson, base, backend):
    blkid = b'+libblkid' in sh(binary, '--version')
    have_idmap, have_ext4 = setup(base)
    if not have_idmap:
        print('SKIP idmapped mount: the kernel refused it')
    if not have_ext4:
        print('SKIP ext4 image: mkfs.ext4 or a loop device missing')
    every = all_columns(binary)
    full = jload(sh(binary, 'list', '--backend', backend, '-J', '-l', '-o', every))
    recs = {r['target']: r for r in full['filesystems']}
    lib = {r['target']: r for r in jload(sh(libjson, backend))['filesystems']}
    cols = [c.lower() for c in full['filesystems'][0].keys()]
    want = {'idm': have_idmap, 'ro': True, 'empty': True, 'ext4': have_ext4, 'src': True}
    for name, present in want.items():
        if not present:
            continue
        path = os.path.join(base, name)
        rec = recs.get(path)
        check('%s: %s listed' % (backend, name), rec is not None)
        if rec is None:
            continue
        st = jload(sh(binary, 'stat', '-J', '-o', every, path))['filesystems'][0]
        for c in cols:
            # TID is each command's own: stat has no table task
            if c == 'tid':
                continue
            # stat always asks statmount: compared with the same backend only
            if backend == 'statmount':
                check('%s %s %s: list == stat' % (backend, name, c),
                      rec.get(c) == st.get(c), 'list %r stat %r' % (rec.get(c), st.get(c)))
            lk = LIB_KEY.get(c, c)
            # the library writes these three always: valid per its mask
            bit = {'sb-magic': 1 << 3, 'sb-flags': 1 << 4, 'attr': 1 << 5}.get(c)
            if bit and not int(lib[path]['mask'], 16) & bit:
                lib[path][lk] = None
            if c == 'uuid' and blkid:
                # findmnt's UUID, libblkid's of the source device, as
                # blkid -p probes it; where the library has one (the
                # superblock's), the same
                bv = probe_uuid(rec.get('source'))
                check('%s %s uuid: list == blkid -p' % (backend, name), rec.get(c) == bv,
                      'list %r blkid %r' % (rec.get(c), bv))
                lv = norm_lib(c, lib[path].get(lk))
                if lv is not None:
                    check('%s %s uuid: list == library' % (backend, name), rec.get(c) == lv,
                          'list %r library %r' % (rec.get(c), lv))
            elif lk in lib[path] or c in ('uidmap', 'gidmap', 'sec-options', 'uuid'):
                lv = norm_lib(c, lib[path].get(lk))
                check('%s %s %s: list == library' % (backend, name, c), rec.get(c) == lv,
                      'list %r library %r' % (rec.get(c), lv))
        # the fields the mounts were made for, by name
        if name == 'idm' and backend == 'statmount':
            check('%s idm UIDMAP' % backend, rec.get('uidmap') == '0 100000 65536',
                  rec.get('uidmap'))
            check('%s idm GIDMAP' % backend, rec.get('gidmap') == '0 200000 1000',
                  rec.get('gidmap'))
        # the library's text backend has no UUID (its documented contract):
        # a CLI without libblkid shows none there; with it, libblkid's on both
        if name == 'ext4' and (backend == 'statmount' or blkid):
            check('%s ext4 UUID' % backend,
                  rec.get('uuid') == '5d3b0f2e-1c9a-4e57-9a61-0f4c2b7d8e11', rec.get('uuid'))
        if name == 'ro':
            check('%s ro bind: ro' % backend, rec.get('vfs-options', '').startswith('ro'),
                  rec.get('vfs-options'))
        # -o asks for exactly the field it shows: each column alone
        for c in ('uidmap', 'gidmap', 'sec-options', 'uuid'):
            one = jload(sh(binary, 'list', '--backend', backend, '-J', '-l', '-o', c,
                           '-T', path))['filesystems'][0]
            check('%s %s -o %s alone' % (backend, name, c), one.get(c) == rec.get(c),
                  '%r vs %r' % (one.get(c), rec.get(c)))
    print(json.dumps({'passed': PASSES[0], 'failed': FAILS}))
    return 0


def main():
    if sys.argv[1] == '--inner':
        return inner(*sys.argv[2:6])
    binary, libjson = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.geteuid() != 0 or not shutil.which('unshare'):
        print('SKIP: needs root and unshare(1)')
        return 77
    total, failed = 0, []
    # libblkid's cache file (SOURCES) in a directory of this run's own
    blkdir = tempfile.TemporaryDirectory(prefix='mntsnap-cols-blkid-')
    os.environ['BLKID_FILE'] = os.path.join(blkdir.name, 'blkid.tab')
    for backend in ('statmount', 'mountinfo'):
        with tempfile.TemporaryDirectory(prefix='mntsnap-cols-') as base:
            r = subprocess.run(['unshare', '-m', '--propagation', 'private', sys.executable,
                                os.path.abspath(__file__), '--inner', binary, libjson, base,
                                backend], capture_output=True, text=True,
                               errors='surrogateescape')
            out = r.stdout.rstrip('\n').split('\n')
            try:
                res = json.loads(out[-1])
            except ValueError:
                print('FAIL %s: %s%s' % (backend, r.stdout, r.stderr))
                failed.append(backend)
                continue
            print('\n'.join(out[:-1]))
            total += res['passed']
            failed += res['failed']
    blkdir.cleanup()
    print('%d passed, %d failed' % (total, len(failed)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
