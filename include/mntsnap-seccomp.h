/* SPDX-License-Identifier: MIT */
/*
 * mntsnap-seccomp: let a libseccomp filter allow statmount(2)/listmount(2)
 * (and the other mount/namespace syscalls mntsnap uses) even where the
 * libseccomp present at run time does not know their names.
 *
 * Installed, and its functions in libmntsnap, only when mntsnap was built
 * with libseccomp: a consumer that finds this header has them (pkg-config
 * --static lists libseccomp). Includes what it needs itself (mntsnap.h,
 * seccomp.h). Same conventions as mntsnap.h: 0 or a negative errno value,
 * never errno, never printing.
 *
 * Why: libseccomp < 2.5.6/2.6.0 (Debian 12 ships 2.5.4) cannot resolve the
 * names "statmount"/"listmount", and a raw syscall number is accepted only
 * while the filter holds the native architecture alone (with a second
 * architecture present, seccomp_rule_add() fails with -EFAULT because 2.5.x
 * translates the number through the name). These functions resolve every
 * name with the library present AT RUN TIME and fall back to the number from
 * seccomp/syscalls.csv, in an order that works on 2.5.4.
 *
 * What the 32-bit/compat ABIs get from the convenience calls
 * (mntsnap_seccomp_allow*) on libseccomp 2.5.x: a syscall whose name the
 * library does not know can only be allowed for the NATIVE ABI (the rules
 * route further down covers every ABI). On an
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

#include "mntsnap.h"

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

/*
 * ---- Rules for a runtime's own loop ---------------------------------------
 *
 * A runtime builds its filter from an OCI profile rule by rule. For the
 * syscalls of seccomp/syscalls.csv (statmount, listmount, the mount API,
 * pidfd_open, setns, ...) it hands each rule to mntsnap_seccomp_rule_add()
 * instead of seccomp_rule_add() (that call answers -ENOENT for any other
 * name, which the runtime then adds as it always did), and loads or exports
 * the filter with mntsnap_seccomp_load() / mntsnap_seccomp_export_bpf().
 *
 * These rules become a short BPF prefix in front of the program libseccomp
 * generates for the context: for every architecture the context holds at
 * load/export time (whenever it was added), for every rule in the order
 * added, "this ABI's number for the name, and every argument condition
 * holds" returns the rule's action; anything else falls through to
 * libseccomp's program. Numbers come from mntsnap_seccomp_resolve(), not
 * from libseccomp, so the 32-bit and x32 ABIs get the rule even on a
 * libseccomp (2.5.4 and older) that does not know the name. The first
 * matching rule wins; do not also add these syscalls to the context.
 */

/*
 * mntsnap_seccomp_resolve - a syscall's number for one ABI: the value the
 * kernel puts in seccomp_data.nr (x32 with its 0x40000000 bit, MIPS with
 * the 4000/5000/6000 offset).
 *
 * arch is an SCMP_ARCH_* token, 0 (SCMP_ARCH_NATIVE) for the native ABI, or
 * for the ABIs libseccomp has no token for (riscv32, sparc, sparc64, alpha,
 * microblaze, xtensa) their AUDIT_ARCH_* value. The names of
 * seccomp/syscalls.csv are answered from mntsnap's table for all 29 ABIs
 * it holds, whatever the libseccomp loaded at run time knows; any other
 * name is asked to that libseccomp.
 *
 * Returns the number (>= 0), or:
 *  -EINVAL  name NULL or arch unknown to both mntsnap and libseccomp
 *  -ENOENT  no such syscall on that ABI (or a name nobody knows)
 *  -EOPNOTSUPP  libseccomp answers only a pseudo-syscall (a negative
 *           number that exists inside libseccomp, never in seccomp_data)
 */
int mntsnap_seccomp_resolve(const char *name, uint32_t arch);

/* A list of rules for mntsnap's syscalls, kept until load/export. */
struct mntsnap_seccomp_rules;

/*
 * mntsnap_seccomp_rules_new - an empty rule list. NULL when out of memory.
 * Release it with mntsnap_seccomp_rules_free().
 */
struct mntsnap_seccomp_rules *mntsnap_seccomp_rules_new(void);

/*
 * mntsnap_seccomp_rules_free - release a rule list (NULL is fine).
 */
void mntsnap_seccomp_rules_free(struct mntsnap_seccomp_rules *rules);

/*
 * mntsnap_seccomp_rules_freep - free *p and set it to NULL (NULL fine),
 * for MNTSNAP_CLEANUP() (mntsnap.h).
 */
void mntsnap_seccomp_rules_freep(struct mntsnap_seccomp_rules **p);

/*
 * mntsnap_seccomp_rule_add - add a rule as seccomp_rule_add_array() takes
 * it: a libseccomp action (SCMP_ACT_ALLOW, SCMP_ACT_ERRNO(n), SCMP_ACT_LOG,
 * SCMP_ACT_TRAP, SCMP_ACT_TRACE(n), SCMP_ACT_KILL*), a syscall name and
 * arg_cnt argument conditions (AND; SCMP_CMP_MASKED_EQ takes the mask in
 * datum_a and the value in datum_b, as libseccomp does; an OCI profile's
 * value/valueTwo map to datum_a/datum_b). Comparisons are unsigned; on a
 * 32-bit ABI only the low 32 bits of the argument and datums are compared.
 *
 * The rule applies to every architecture of the context it is loaded or
 * exported with. Rules are tried in the order added.
 *
 * Returns 0, or:
 *  -ENOENT  name is not one of mntsnap's syscalls (seccomp/syscalls.csv):
 *           add that rule to the context with seccomp_rule_add_array()
 *  -EINVAL  rules or name NULL, args NULL with arg_cnt > 0, more than 6
 *           conditions, an argument index > 5 or an unknown operator
 *  -EOPNOTSUPP  SCMP_ACT_NOTIFY (needs a listener this route cannot set
 *           up) or an action value the kernel does not define
 *  -ENOMEM
 */
int mntsnap_seccomp_rule_add(struct mntsnap_seccomp_rules *rules, uint32_t action,
			     const char *name, unsigned int arg_cnt,
			     const struct scmp_arg_cmp *args);

/*
 * mntsnap_seccomp_export_bpf - write ctx's filter as seccomp_export_bpf()
 * does, with the rules of rules (may be NULL: then exactly libseccomp's
 * program) in front, for every architecture ctx holds now. What crun
 * stores in its filter cache and loads itself, and what the
 * run.oci.seccomp_bpf_data annotation carries (base64).
 *
 * Returns 0, -EINVAL (ctx NULL or fd < 0), -E2BIG (longer than the
 * kernel's 4096 instructions), or a negative value from libseccomp or
 * write(2).
 */
int mntsnap_seccomp_export_bpf(scmp_filter_ctx ctx, const struct mntsnap_seccomp_rules *rules,
			       int fd);

/*
 * mntsnap_seccomp_load - load ctx's filter with the rules of rules in
 * front (NULL: none) into the calling thread, as seccomp_load() would:
 * no_new_privs is set when ctx's SCMP_FLTATR_CTL_NNP is (the default), and
 * ctx's SCMP_FLTATR_CTL_TSYNC, _LOG and _SSB become the matching
 * SECCOMP_FILTER_FLAG_*. A filter with SCMP_ACT_NOTIFY rules needs a
 * listener: export it and load it yourself.
 *
 * Returns 0, or -EINVAL, -E2BIG, a negative value from libseccomp, or the
 * kernel's answer to prctl(PR_SET_NO_NEW_PRIVS) or seccomp(2) as -errno
 * (-ESRCH: TSYNC found a thread with another filter).
 */
int mntsnap_seccomp_load(scmp_filter_ctx ctx, const struct mntsnap_seccomp_rules *rules);

/*
 * mntsnap_seccomp_cache_key - a string for the key of a cache of compiled
 * filters (crun keys its cache on the profile and its own version): it
 * changes whenever the filter mntsnap makes from the same profile can
 * change, i.e. with mntsnap's version, its syscall table, the format of
 * the BPF prefix, and the libseccomp version loaded at run time (which
 * decides what the context and the convenience calls resolve by name).
 * Example: "mntsnap-seccomp/1 mntsnap/0.1 table/29x15-3f0c9a1e
 * libseccomp/2.5.4". Written to buf (size bytes, NUL-terminated).
 *
 * Returns the string's length as snprintf() does (>= size: truncated), or
 * -EINVAL when buf is NULL with size > 0.
 */
int mntsnap_seccomp_cache_key(char *buf, size_t size);

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif
