#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The runtimes are the oracle for `mntsnap seccomp --merge`.

usage: seccomp-oracle.py MNTSNAP DATADIR [TABLE.md]

For every real profile in DATADIR (tests/data/seccomp/real), the crafted
ones next to it (../crafted: gates, defaults and actions no real profile
has) and every merge mode, this resolves the profile before and after the merge the way each
runtime that reads it would, and computes the effective action of every
syscall:

  dockerd    moby's setupSeccomp: includes/excludes on caps (the bounding
             set: includes needs all, excludes any), arches (moby's arch
             names) and minKernel (present counts: "" is 0.0); the result
             is plain OCI
  podman     containers/common: the same without minKernel (its Filter has
             no such field, so a minKernel gate is ignored), errno names
  oci        crun/runc: the profile as it is

and the OCI result as libseccomp would load it: rules whose action equals
the default are dropped (runc, crun), and of several unconditional rules
for one syscall the first one decides.

Checks, for each capability set and kernel:
  - statmount/listmount are allowed on >= 6.8, unless the input names them
    in a rule of its own (then their effective action must not change,
    but for --errno-enosys turning an ERRNO into ENOSYS);
  - every other syscall keeps its effective action, except that with
    --set full and CAP_SYS_ADMIN in the (stated) bounding set the rest of
    mntsnap's full set may become allowed;
  - no syscall gets two unconditional rules with different actions that it
    did not have before;
  - merging twice equals merging once, byte for byte;
  - the header (everything but "syscalls") is untouched, and every input
    rule is still there (converted profiles: equal to dockerd's header).
Exit 1 on any failure; the table of results goes to stdout (and TABLE.md).
"""
import json
import os
import subprocess
import sys
import tempfile

QUERY = ["statmount", "listmount"]
FULL = QUERY + ["open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
                "mount_setattr", "open_tree_attr", "pidfd_open", "setns", "unshare", "ioctl",
                "statx"]
SINCE = {"statmount": (6, 8), "listmount": (6, 8), "open_tree": (5, 2), "move_mount": (5, 2),
         "fsopen": (5, 2), "fsconfig": (5, 2), "fsmount": (5, 2), "fspick": (5, 2),
         "mount_setattr": (5, 12), "open_tree_attr": (6, 15), "pidfd_open": (5, 3)}
ADMIN = "CAP_SYS_ADMIN"
DOCKER_CAPS = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD",
               "CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP",
               "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"]
ALL_CAPS = DOCKER_CAPS + [ADMIN, "CAP_DAC_READ_SEARCH", "CAP_SYS_BOOT", "CAP_SYS_MODULE",
                          "CAP_SYS_PACCT", "CAP_SYS_PTRACE", "CAP_SYS_RAWIO", "CAP_SYS_TIME",
                          "CAP_SYS_TTY_CONFIG", "CAP_SYS_NICE", "CAP_SYSLOG", "CAP_BPF",
                          "CAP_PERFMON"]
CAPSETS = {"none": [], "docker": DOCKER_CAPS, "docker+admin": DOCKER_CAPS + [ADMIN],
           "all": ALL_CAPS}
KERNELS = [(6, 18), (6, 8), (6, 7), (5, 4)]
ERRNO = {"EPERM": 1, "ENOENT": 2, "EIO": 5, "EACCES": 13, "EINVAL": 22, "ENOSYS": 38,
         "EOPNOTSUPP": 95, "ENOTSUP": 95}

# (file, kind): docker = Docker format (dockerd and Podman read it),
# podman = containers/common's own file (Podman and, as a Docker-format
# file, dockerd), oci = plain OCI profile.
PROFILES = [("moby-default.json", "docker"), ("containers-common.json", "podman"),
            ("container-libs.json", "podman"),
            ("containerd-default.json", "oci"), ("containerd-sys-admin.json", "oci"),
            ("k8s-fine-grained.json", "oci"), ("k8s-violation.json", "oci"),
            # written for this oracle, next to DATADIR (see crafted/README)
            ("../crafted/docker-gates.json", "docker"),
            ("../crafted/docker-allow-default.json", "docker"),
            ("../crafted/docker-statmount-rules.json", "docker"),
            ("../crafted/oci-actions.json", "oci")]

failures = []
quiet = False


def fail(msg):
    failures.append(msg)
    if not quiet:
        print("FAIL: " + msg, file=sys.stderr)


def takes_errno(action):
    return action in ("SCMP_ACT_ERRNO", "SCMP_ACT_TRACE")


def kver(s):
    if not s:
        return (0, 0)
    a, b = s.split(".")
    return (int(a), int(b))


def resolve(p, caps, kernel, arch="amd64", min_kernel=True):
    """dockerd's setupSeccomp (min_kernel=False: containers/common)."""
    out = {k: v for k, v in p.items() if k not in ("archMap", "syscalls", "defaultErrno")}
    if "defaultErrno" in p and "defaultErrnoRet" not in p:
        out["defaultErrnoRet"] = ERRNO[p["defaultErrno"]]
    for a in p.get("archMap") or []:
        if a["architecture"] == "SCMP_ARCH_X86_64":
            out["architectures"] = [a["architecture"]] + (a.get("subArchitectures") or [])
    sys_ = []
    for e in p.get("syscalls") or []:
        ex, inc = e.get("excludes") or {}, e.get("includes") or {}
        if arch in (ex.get("arches") or []):
            continue
        if any(c in caps for c in ex.get("caps") or []):
            continue
        # dockerd decodes "" into a non-nil 0.0 (KernelVersion.UnmarshalJSON):
        # every kernel is >= it, so an empty excludes.minKernel always excludes
        if min_kernel and "minKernel" in ex and kernel >= kver(ex["minKernel"]):
            continue
        if inc.get("arches") and arch not in inc["arches"]:
            continue
        if not all(c in caps for c in inc.get("caps") or []):
            continue
        if min_kernel and "minKernel" in inc and kernel < kver(inc["minKernel"]):
            continue
        o = {"names": [e["name"]] if "name" in e else e["names"], "action": e["action"]}
        if "errnoRet" in e:
            o["errnoRet"] = e["errnoRet"]
        elif "errno" in e:
            o["errnoRet"] = ERRNO[e["errno"]]
        if e.get("args"):
            o["args"] = e["args"]
        sys_.append(o)
    out["syscalls"] = sys_
    return out


def action_of(e, dflt_errno=1):
    if takes_errno(e["action"]):
        return (e["action"], e.get("errnoRet", dflt_errno))
    return (e["action"], None)


def effective(oci, name):
    """(first unconditional action, conditional rules, default); conflict?"""
    d = (oci["defaultAction"], oci.get("defaultErrnoRet", 1) if takes_errno(oci["defaultAction"]) else None)
    uncond, cond = [], set()
    for e in oci.get("syscalls") or []:
        if name not in e["names"]:
            continue
        a = action_of(e)
        if a == d:      # runtimes drop rules equal to the default
            continue
        if e.get("args"):
            cond.add((a, json.dumps(e["args"], sort_keys=True)))
        else:
            uncond.append(a)
    first = uncond[0] if uncond else None
    return (first, tuple(sorted(cond)), d), len(set(uncond)) > 1


def allowed(eff):
    first, cond, d = eff
    return (first or d)[0] == "SCMP_ACT_ALLOW" and not (first is None and cond)


def names_of(*profiles):
    n = set(FULL)
    for p in profiles:
        for e in p.get("syscalls") or []:
            n.update([e["name"]] if "name" in e else e["names"])
    return sorted(n)


def mntsnap(binary, path, args):
    r = subprocess.run([binary, "seccomp", "--merge", path] + args, capture_output=True,
                       text=True)
    return r.returncode, r.stdout, r.stderr


def named_in(p):
    """statmount/listmount named by any rule of p (gated, with args, or equal
    to the default): the profile decides them, the merge leaves them alone"""
    return {n for e in p.get("syscalls") or []
            for n in ([e["name"]] if "name" in e else e["names"]) if n in QUERY}


def enosys_of(eff):
    """eff with every ERRNO action answering ENOSYS (what --errno-enosys may do)"""
    def f(a):
        return ("SCMP_ACT_ERRNO", 38) if a and a[0] == "SCMP_ACT_ERRNO" else a
    first, cond, d = eff
    return (f(first), tuple(sorted((f(c[0]), c[1]) for c in cond)), d)


def compare(label, before, after, names, admin_ok, full, decided=frozenset(), enosys=False):
    """Effective actions before/after one resolution; returns changed names.
    decided: statmount/listmount the input profile names itself."""
    changed = []
    for n in names:
        b, bc = effective(before, n)
        a, ac = effective(after, n)
        if ac and not bc:
            fail("%s: %s gets unconditional rules with different actions" % (label, n))
        if n in QUERY and n in decided:
            if a != b and not (enosys and enosys_of(b) == a):
                fail("%s: %s is the profile's, but changed from %s to %s" % (label, n, b, a))
            if a != b:
                changed.append(n)
            continue
        if n in QUERY:
            if not allowed(a):
                fail("%s: %s not allowed: %s" % (label, n, a))
            if a != b:
                changed.append(n)
            continue
        if a == b:
            continue
        if full and admin_ok and n in FULL and allowed(a):
            changed.append(n)
            continue
        fail("%s: %s changed from %s to %s" % (label, n, b, a))
    return changed


def enosys_split(e):
    """What --errno-enosys makes of rule e: [e], or its statmount/listmount
    part answering ENOSYS, plus the rest with its own errno."""
    names = [e["name"]] if "name" in e else e["names"]
    q = [n for n in names if n in QUERY]
    if e["action"] != "SCMP_ACT_ERRNO" or not q:
        return [e]
    part = dict(e, errnoRet=38)
    if "errno" in e:
        part["errno"] = "ENOSYS"
    if len(q) == len(names):
        return [part]
    part["names"] = q
    return [dict(e, names=[n for n in names if n not in QUERY]), part]


def check_kept(label, orig, out, header=True, enosys=False):
    if header:
        for k in set(orig) | set(out):
            if k != "syscalls" and orig.get(k) != out.get(k):
                fail("%s: header key %s changed" % (label, k))
    outs = out.get("syscalls") or []
    for i, e in enumerate(orig.get("syscalls") or []):
        if e not in outs and not (enosys and all(x in outs for x in enosys_split(e))):
            fail("%s: input rule %d lost" % (label, i))


def selftest(data):
    """The oracle must see the widening this tool used to do."""
    global failures, quiet
    moby = json.load(open(os.path.join(data, "moby-default.json")))
    bad = json.loads(json.dumps(moby))
    bad["syscalls"].append({"names": ["unshare", "setns"], "action": "SCMP_ACT_ALLOW"})
    saved, failures, quiet = failures, [], True
    b = resolve(moby, DOCKER_CAPS, (6, 18))
    a = resolve(bad, DOCKER_CAPS, (6, 18))
    compare("selftest", b, a, names_of(b, a), False, True)
    caught, failures, quiet = failures, saved, False
    if not any("unshare changed" in c for c in caught):
        fail("selftest: an unconditional unshare allow went unnoticed")
    # dockerd's gates, as moby's setupSeccomp evaluates them
    e = {"names": ["x"], "action": "SCMP_ACT_ALLOW"}
    for gate, caps, kept in ((("excludes", {"minKernel": ""}), [], False),
                             (("includes", {"minKernel": ""}), [], True),
                             (("includes", {"caps": [ADMIN, "CAP_KILL"]}), [ADMIN], False),
                             (("excludes", {"caps": [ADMIN, "CAP_KILL"]}), ["CAP_KILL"], False),
                             (("includes", {"arches": ["x86"]}), [], False)):
        p = {"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [dict(e, **{gate[0]: gate[1]})]}
        if bool(resolve(p, caps, (6, 18))["syscalls"]) != kept:
            fail("selftest: %s %s with caps %s not resolved as dockerd does" % (gate + (caps,)))


def main():
    binary, data = sys.argv[1], sys.argv[2]
    selftest(data)
    rows = []
    for fname, kind in PROFILES:
        path = os.path.join(data, fname)
        orig = json.load(open(path))
        docker = kind != "oci"
        modes = [("default", []), ("--errno-enosys", ["--errno-enosys"])]
        if docker:
            modes += [("--set full", ["--set", "full"]),
                      ("--set full --errno-enosys", ["--set", "full", "--errno-enosys"])]
        else:
            modes += [("--set full", ["--set", "full"]),
                      ("--set full --caps docker", ["--set", "full", "--caps", ",".join(DOCKER_CAPS)]),
                      ("--set full --caps docker+admin",
                       ["--set", "full", "--caps", ",".join(DOCKER_CAPS + [ADMIN])])]
        for mname, args in modes:
            label = "%s %s" % (fname, mname)
            rc, out, err = mntsnap(binary, path, args)
            if not docker and args == ["--set", "full"]:
                # OCI has no capability gate: refused, nothing printed
                if rc != 2 or out or "--caps" not in err:
                    fail("%s: not refused (rc %d)" % (label, rc))
                rows.append((fname, mname, "refused (exit 2): OCI has no capability gate"))
                continue
            if rc:
                fail("%s: exit %d: %s" % (label, rc, err))
                continue
            merged = json.loads(out)
            # a name of its own: two runs at once (two build dirs) must not
            # remove each other's file
            fd, tmp = tempfile.mkstemp(prefix="mntsnap-oracle-", suffix=".json")
            with os.fdopen(fd, "w") as f:
                f.write(out)
            rc2, out2, err2 = mntsnap(binary, tmp, args)
            os.unlink(tmp)
            if rc2 or out2 != out:
                fail("%s: merging twice differs from once" % label)
            check_kept(label, orig, merged, enosys="--errno-enosys" in args)
            full = "full" in args
            changes = set()
            if docker:
                for cname, caps in CAPSETS.items():
                    for k in KERNELS:
                        for rt, mk in (("dockerd", True), ("podman", False)):
                            b = resolve(orig, caps, k, min_kernel=mk)
                            a = resolve(merged, caps, k, min_kernel=mk)
                            l2 = "%s [%s caps=%s kernel=%d.%d]" % (label, rt, cname, *k)
                            names = names_of(b, a)
                            if k < (6, 8):
                                names = [n for n in names if n not in QUERY]
                            for n in compare(l2, b, a, names, ADMIN in caps, full,
                                             named_in(orig), "--errno-enosys" in args):
                                changes.add("%s(%s%s)" % (n, rt, ",admin" if ADMIN in caps and n not in QUERY else ""))
            else:
                caps = args[args.index("--caps") + 1].split(",") if "--caps" in args else []
                for n in compare(label + " [oci]", orig, merged, names_of(orig, merged),
                                 ADMIN in caps, full, named_in(orig),
                                 "--errno-enosys" in args):
                    changes.add(n)
            rows.append((fname, mname, summarize(changes)))
        if docker:
            for cname, caps in CAPSETS.items():
                for full in (False, True):
                    args = ["--format", "oci", "--caps", ",".join(caps) or "none", "--kernel", "6.18"]
                    if full:
                        args += ["--set", "full"]
                    mname = "--format oci --caps %s%s" % (cname, " --set full" if full else "")
                    label = "%s %s" % (fname, mname)
                    rc, out, err = mntsnap(binary, path, args)
                    if rc:
                        fail("%s: exit %d: %s" % (label, rc, err))
                        continue
                    conv = json.loads(out)
                    ref = resolve(orig, caps, (6, 18))
                    for k in set(ref) | set(conv):
                        if k != "syscalls" and ref.get(k) != conv.get(k):
                            fail("%s: header %s differs from dockerd's" % (label, k))
                    for e in conv["syscalls"]:
                        if set(e) - {"names", "action", "errnoRet", "args"}:
                            fail("%s: Docker-only keys left: %s" % (label, sorted(e)))
                    ch = compare(label, ref, conv, names_of(ref, conv), ADMIN in caps, full,
                                 named_in(ref))
                    rows.append((fname, mname, summarize(set(ch))))
    print("| profile | mode | effective-action result |")
    print("|---|---|---|")
    for r in rows:
        print("| %s | %s | %s |" % r)
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            f.write("\n".join("| %s | %s | %s |" % r for r in rows) + "\n")
    print("\n%d profile x mode rows, %d failures" % (len(rows), len(failures)))
    sys.exit(1 if failures else 0)


def summarize(changes):
    if not changes:
        return "nothing changes (statmount/listmount already allowed)"
    q = sorted({c.split("(")[0] for c in changes if c.split("(")[0] in QUERY})
    o = sorted({c.split("(")[0] for c in changes if c.split("(")[0] not in QUERY})
    s = []
    if q:
        s.append("%s become allowed" % ", ".join(q))
    if o:
        s.append("with CAP_SYS_ADMIN only: %s become allowed" % ", ".join(o))
    return "; ".join(s) + "; nothing else changes"


if __name__ == "__main__":
    main()
