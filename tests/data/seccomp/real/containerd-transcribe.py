#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the OCI profile containerd's generator produces, as test data.

containerd builds its default seccomp profile in Go
(contrib/seccomp/seccomp_default.go, DefaultProfile(spec)), so there is no
JSON file to copy. This reads that Go file and writes what DefaultProfile
returns on linux/amd64 with a kernel >= 4.8 for a given bounding set:

  containerd-transcribe.py seccomp_default.go CAPS... > profile.json

The name lists come from the Go source as they are; the few rules with
argument filters (socket, personality, clone) are written out here from
the same file (AF_ALG = 38, AF_VSOCK = 40, CLONE_NEW* mask 0x7e020000).
"""
import json
import re
import sys

src = open(sys.argv[1]).read()
caps = sys.argv[2:]


def names_after(pos):
    m = re.compile(r"Names:\s*\[\]string\{(.*?)\}", re.S).search(src, pos)
    return re.findall(r'"([^"]+)"', m.group(1)), m.end()


def allow(names, args=None):
    e = {"names": names, "action": "SCMP_ACT_ALLOW"}
    if args:
        e["args"] = args
    return e


def arg(index, value, op, two=None):
    a = {"index": index, "value": value, "op": op}
    if two is not None:
        a["valueTwo"] = two
    return a


start = src.index("func DefaultProfile")
base, _ = names_after(start)
out = [allow(base)]
out += [allow(["socket"], [arg(0, 38, "SCMP_CMP_LT")]),
        allow(["socket"], [arg(0, 39, "SCMP_CMP_EQ")]),
        allow(["socket"], [arg(0, 40, "SCMP_CMP_GT")])]
for v in (0x0, 0x0008, 0x20000, 0x20008, 0xffffffff):
    out.append(allow(["personality"], [arg(0, v, "SCMP_CMP_EQ")]))
k48, _ = names_after(src.index("Kernel: 4, Major: 8"))
out.append(allow(k48))
amd, _ = names_after(src.index('case "amd64":', src.index("// include by arch")))
out.append(allow(amd))
loop = src.index("for _, c := range sp.Process.Capabilities.Bounding")
for c in caps:
    m = re.compile(r'case "%s":' % re.escape(c)).search(src, loop)
    if m:
        names, _ = names_after(m.end())
        out.append(allow(names))
if "CAP_SYS_ADMIN" not in caps:
    out.append(allow(["clone"], [arg(0, 0x7E020000, "SCMP_CMP_MASKED_EQ", 0)]))
    out.append({"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38})
prof = {"defaultAction": "SCMP_ACT_ERRNO",
        "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
        "syscalls": out}
print(json.dumps(prof, indent=2))
