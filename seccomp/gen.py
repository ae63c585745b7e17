#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate mntsnap's seccomp artefacts from seccomp/syscalls.csv.

usage: gen.py [--check] [CSV] [OUTDIR]   (defaults: next to this script, ./generated)

--check compares instead of writing (exit 1 on any difference).

Outputs (committed; the 'seccomp' test suite regenerates them into the build
dir and fails on any difference, and checks that `mntsnap seccomp` prints
the same fragments):
  sctable.h                      the table as C data (lib/seccomp.c, the CLI)
  mntsnap-nr-{query,full}.h      syscall numbers per architecture
  oci-query.json                 OCI runtime-spec linux.seccomp.syscalls[] entries
  docker-{query,full}.json       moby-profile syscalls[] entries (full: gated on
                                 CAP_SYS_ADMIN and minKernel)
  systemd-{query,full}.conf      SystemCallFilter= line

The rules for each format live here and in examples/mntsnap/cmd-seccomp.c;
keep the two in step (the test compares them).
"""
import csv
import json
import os
import sys

TAG = "mntsnap:"


def load(path):
    rows = [r for r in csv.reader(l for l in open(path) if not l.startswith("#"))]
    head = rows[0]
    ncol = 4
    arches = head[ncol:]
    meta = {}
    sysc = []
    for r in rows[1:]:
        if len(r) != len(head):
            sys.exit("%s: row %r has %d fields, want %d" % (path, r[0], len(r), len(head)))
        if r[0].startswith("@"):
            meta[r[0][1:]] = r[ncol:]
            continue
        nrs = [None if v == "-" else int(v) for v in r[ncol:]]
        if r[2] not in ("query", "full"):
            sys.exit("%s: %s: bad set %r" % (path, r[0], r[2]))
        sysc.append(dict(name=r[0], since=r[1], set=r[2], cap=r[3], nr=nrs))
    for k in ("scmp_name", "scmp_token", "audit_arch"):
        if k not in meta:
            sys.exit("%s: missing @%s row" % (path, k))
    arch = []
    for i, a in enumerate(arches):
        arch.append(dict(name=a,
                         scmp_name=None if meta["scmp_name"][i] == "-" else meta["scmp_name"][i],
                         scmp_token=0 if meta["scmp_token"][i] == "-" else int(meta["scmp_token"][i], 16),
                         audit=int(meta["audit_arch"][i], 16)))
    return arch, sysc


def in_set(s, st):
    return st == "full" or s["set"] == "query"


def kver(v):
    return tuple(int(x) for x in v.split(".")[:2])


def min_kernel(s):
    # Docker only compares "<major>.<minor>"; gating syscalls older than
    # any kernel Docker runs on would only add noise.
    return "%d.%d" % kver(s["since"]) if kver(s["since"]) >= (5, 0) else None


# Only statmount/listmount are allowed for everyone, with no minKernel gate
# (before 6.8 the kernel's own ENOSYS for an allowed syscall it lacks is what
# callers need; containers/common ignores minKernel anyway). The rest of the
# full set is gated on CAP_SYS_ADMIN in Docker format; OCI has no gate, so
# the OCI fragment is the query set only (the CLI adds the rest for
# --caps with CAP_SYS_ADMIN).
QUERY_COMMENT = "%s allow statmount, listmount" % TAG
ADMIN_COMMENT = "%s allow with CAP_SYS_ADMIN" % TAG


def oci_entries(sysc):
    return [{"names": [s["name"] for s in sysc if s["set"] == "query"], "action": "SCMP_ACT_ALLOW"}]


def docker_entries(sysc, st):
    out = [{"comment": QUERY_COMMENT, "names": [s["name"] for s in sysc if s["set"] == "query"],
            "action": "SCMP_ACT_ALLOW"}]
    if st != "full":
        return out
    groups = []
    for s in sysc:
        if s["set"] == "query":
            continue
        mk = min_kernel(s)
        for g in groups:
            if g[0] == mk:
                g[1].append(s["name"])
                break
        else:
            groups.append((mk, [s["name"]]))
    for mk, names in groups:
        inc = {"caps": ["CAP_SYS_ADMIN"]}
        if mk:
            inc["minKernel"] = mk
        out.append({"comment": ADMIN_COMMENT, "names": names, "action": "SCMP_ACT_ALLOW",
                    "includes": inc})
    return out


def systemd_line(sysc, st):
    return "SystemCallFilter=%s\n" % " ".join(s["name"] for s in sysc if in_set(s, st))


def nr_header(arch, sysc, st):
    guard = "MNTSNAP_SECCOMP_NR_%s_H" % st.upper()
    o = ["/* SPDX-License-Identifier: MIT */",
         "/*",
         " * Generated from seccomp/syscalls.csv (set \"%s\"): syscall numbers as the" % st,
         " * kernel puts them in seccomp_data.nr (MIPS offsets and the x32 bit",
         " * included), per ABI, with the AUDIT_ARCH value seccomp_data.arch carries.",
         " * A syscall missing on an ABI has no define.",
         " */",
         "#ifndef " + guard,
         "#define " + guard,
         ""]
    for i, a in enumerate(arch):
        o.append("/* %s */" % a["name"])
        o.append("#define MNTSNAP_SC_AUDIT_ARCH_%s 0x%08xU" % (a["name"], a["audit"]))
        for s in sysc:
            if in_set(s, st) and s["nr"][i] is not None:
                o.append("#define MNTSNAP_SC_NR_%s_%s %d" % (a["name"], s["name"], s["nr"][i]))
        o.append("")
    o.append("#endif")
    return "\n".join(o) + "\n"


def c_str(v):
    return "NULL" if v is None else '"%s"' % v


def sctable(arch, sysc):
    o = ["/* SPDX-License-Identifier: MIT */",
         "/* Generated by seccomp/gen.py from seccomp/syscalls.csv. Do not edit. */",
         "#ifndef MNTSNAP_SCTABLE_H",
         "#define MNTSNAP_SCTABLE_H",
         "",
         "#include <stdint.h>",
         "#include <stddef.h>",
         "",
         "#define MNTSNAP_SC_NARCH %d" % len(arch),
         "#define MNTSNAP_SC_NSYS %d" % len(sysc),
         "",
         "struct mntsnap_sc_arch {",
         "\tconst char *name;      /* column name in syscalls.csv */",
         "\tconst char *scmp_name; /* libseccomp arch name, NULL if none */",
         "\tuint32_t scmp_token;   /* SCMP_ARCH_* value, 0 if none */",
         "\tuint32_t audit_arch;   /* seccomp_data.arch */",
         "};",
         "",
         "struct mntsnap_sc_sys {",
         "\tconst char *name;",
         "\tconst char *since;     /* first mainline kernel */",
         "\tconst char *cap;       /* capability Docker gates it on, NULL if none */",
         "\tint query;             /* in the 'query' set (every row is in 'full') */",
         "\tint32_t nr[MNTSNAP_SC_NARCH]; /* seccomp_data.nr per arch, -1 if none */",
         "};",
         "",
         "static const struct mntsnap_sc_arch mntsnap_sc_arches[MNTSNAP_SC_NARCH] = {"]
    for a in arch:
        o.append("\t{ %s, %s, 0x%08xU, 0x%08xU }," % (c_str(a["name"]), c_str(a["scmp_name"]),
                                                    a["scmp_token"], a["audit"]))
    o += ["};", "", "static const struct mntsnap_sc_sys mntsnap_sc_table[MNTSNAP_SC_NSYS] = {"]
    for s in sysc:
        nrs = ", ".join("-1" if n is None else str(n) for n in s["nr"])
        o.append("\t{ %s, %s, %s, %d,\n\t  { %s } }," % (c_str(s["name"]), c_str(s["since"]),
                                                      c_str(s["cap"] or None),
                                                      s["set"] == "query", nrs))
    o += ["};", "", "#endif"]
    return "\n".join(o) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    src = args[0] if len(args) > 0 else os.path.join(here, "syscalls.csv")
    out = args[1] if len(args) > 1 else os.path.join(here, "generated")
    arch, sysc = load(src)
    os.makedirs(out, exist_ok=True)
    files = {"sctable.h": sctable(arch, sysc)}
    for st in ("query", "full"):
        files["mntsnap-nr-%s.h" % st] = nr_header(arch, sysc, st)
        files["systemd-%s.conf" % st] = systemd_line(sysc, st)
        files["docker-%s.json" % st] = json.dumps(docker_entries(sysc, st), indent=2) + "\n"
    files["oci-query.json"] = json.dumps(oci_entries(sysc), indent=2) + "\n"
    if check:
        # --check: compare with the committed files instead of writing them.
        bad = 0
        for name, text in sorted(files.items()):
            path = os.path.join(out, name)
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                print("%s: differs from what gen.py makes of %s" % (path, src))
                bad += 1
        extra = sorted(set(os.listdir(out)) - set(files))
        for name in extra:
            print("%s: not made by gen.py" % os.path.join(out, name))
        print("%d files checked, %d stale, %d extra" % (len(files), bad, len(extra)))
        sys.exit(1 if bad or extra else 0)
    for name, text in sorted(files.items()):
        with open(os.path.join(out, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
