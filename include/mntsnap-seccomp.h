/* SPDX-License-Identifier: MIT */
/*
 * mntsnap-seccomp: let a libseccomp filter allow statmount(2)/listmount(2)
 * (and the other mount/namespace syscalls mntsnap uses) even where the
 * libseccomp present at run time does not know their names.
 *
 * Built only when libseccomp is found (MNTSNAP_HAVE_LIBSECCOMP in
 * mntsnap-config.h); link with libseccomp. Same conventions as mntsnap.h:
 * 0 or a negative errno value, never errno, never printing.
 *
 * Why: libseccomp < 2.5.6/2.6.0 (Debian 12 ships 2.5.4) cannot resolve the
 * names "statmount"/"listmount", and a raw syscall number is accepted only
 * while the filter holds the native architecture alone (with a second
 * architecture present, seccomp_rule_add() fails with -EFAULT because 2.5.x
 * translates the number through the name). These functions resolve every
 * name with the library present AT RUN TIME and fall back to the number from
 * seccomp/syscalls.csv, in an order that works on 2.5.4.
 *
 * What the 32-bit/compat ABIs get on libseccomp 2.5.x: a syscall whose name
 * the library does not know can only be allowed for the NATIVE ABI. On an
 * x86_64 host, i386 (int 0x80) and x32 callers of statmount/listmount get the
 * filter's default action (ENOSYS with an ENOSYS default, so callers fall
 * back; EPERM with an EPERM default). With libseccomp >= 2.5.6/2.6.0 every
 * architecture in the filter gets the allow rule by name.
 */
#ifndef MNTSNAP_SECCOMP_H
#define MNTSNAP_SECCOMP_H

#include <stddef.h>
#include <stdint.h>
#include <seccomp.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from a library built with -fvisibility=hidden (see mntsnap.h). */
#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility push(default)
#endif

enum {
	/* statmount, listmount: what enumerating mounts needs */
	MNTSNAP_SECCOMP_QUERY = 1,
	/* QUERY plus open_tree, move_mount, fsopen, fsconfig, fsmount, fspick,
	 * mount_setattr, open_tree_attr, pidfd_open, setns, unshare, ioctl,
	 * statx: what mntsnap's namespace helper and snapshot tools use */
	MNTSNAP_SECCOMP_FULL = 2,
};

/*
 * Add SCMP_ACT_ALLOW rules for every syscall of set to ctx, for every
 * architecture ctx holds, then add the architectures in arches[] (SCMP_ARCH_*
 * tokens, n_arches of them; NULL/0 for none), in this order:
 *   1. raw native-number rules for the names the run-time libseccomp cannot
 *      resolve (works on 2.5.x only while ctx holds the native arch alone);
 *   2. seccomp_arch_add() for each of arches[] (already present: fine);
 *   3. rules by name for the names it can resolve, which libseccomp adds to
 *      every architecture now in ctx.
 * So: create ctx, call this with the extra arches you want, then add the
 * rest of your policy (rules added later cover all arches by themselves).
 *
 * If the default action of ctx is SCMP_ACT_ALLOW there is nothing to allow
 * (libseccomp refuses rules equal to the default): only arches[] are added.
 *
 * Returns 0, or:
 *  -EINVAL  ctx NULL, set unknown, or arches NULL with n_arches > 0
 *  -EDOM    a raw-number rule is needed but ctx already holds a non-native
 *           architecture and the run-time libseccomp refused it (pass those
 *           architectures in arches[] instead of adding them before)
 *  -EOPNOTSUPP  the native architecture is not in seccomp/syscalls.csv or
 *           lacks the syscall, so there is no number to fall back to
 *  other negative values from seccomp_rule_add()/seccomp_arch_add()
 *  (e.g. -EEXIST when ctx already has a conflicting rule for a syscall).
 * On failure ctx may hold some of the rules; release it.
 */
int mntsnap_seccomp_allow_arches(scmp_filter_ctx ctx, int set,
				 const uint32_t *arches, size_t n_arches);

/*
 * mntsnap_seccomp_allow - mntsnap_seccomp_allow_arches() without extra
 * architectures: (ctx, set, NULL, 0). Returns as that function does.
 */
int mntsnap_seccomp_allow(scmp_filter_ctx ctx, int set);

/*
 * How many syscalls of set the run-time libseccomp cannot resolve by name
 * for the native architecture (these need the raw-number route, and runtimes
 * that read names from JSON silently drop them). -EINVAL for an unknown set.
 */
int mntsnap_seccomp_unknown_names(int set);

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
