/* SPDX-License-Identifier: MIT */
/* Namespace handle internals (lib/ns.c owns them; backends read them). */
#ifndef MNTSNAP_NS_INTERNAL_H
#define MNTSNAP_NS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "target.h"
#include "uapi.h"

struct mntsnap_capture_opts;
struct mntsnap_snapshot;
struct mntsnap_sysops;

/* -ESRCH when ns came from a process that has exited since; else 0. */
int mntsnap__ns_check_alive(const struct mntsnap_ns *ns);

/*
 * An nsfs fd to setns() into: the handle's own (*ret_owned false) or, for
 * an id-only handle, one found by NS_MNT_GET_NEXT/PREV or a /proc scan
 * (*ret_owned true: close it). -ENOENT if the id is nowhere to be seen.
 */
int mntsnap__ns_enter_fd(const struct mntsnap_ns *ns, int *ret_fd, bool *ret_owned);

/*
 * The user namespace owning the mount namespace behind nsfd, when it is
 * not the caller's: an nsfs fd on it in *ret_fd (close it). -ENOENT when
 * it is the caller's own (nothing to join); -EPERM when it is neither the
 * caller's nor below it (NS_GET_USERNS refuses; nothing the caller could
 * join either).
 */
int mntsnap__ns_owner_userns(int nsfd, int *ret_fd);

/*
 * Why entering nsfd was refused, in words, when the namespace's owner user
 * namespace is not the caller's: who owns it and that the caller lacks
 * CAP_SYS_ADMIN over it. "" when the owner is the caller's own user
 * namespace: then the caller's own capabilities decide, and
 * mntsnap_ns_explain() names the missing ones. Fits in len >= 180.
 */
void mntsnap__ns_owner_why(int nsfd, char *buf, size_t len);

/*
 * PR_SET_DUMPABLE 0 on the process's mm while a CLONE_VM child runs (it
 * shares the mm, so the flag is the caller's too), put back as it was
 * after the last holder releases it: a non-dumpable mm can be neither
 * ptraced nor read through /proc/PID/mem by anyone without
 * CAP_SYS_PTRACE over the mm's user namespace, so a target cannot reach
 * the caller's memory through a child that entered it (lib/ns-helper.c).
 */
void mntsnap__dumpable_hold(void);
void mntsnap__dumpable_release(void);

/* Is capability cap (CAP_* number) in the calling thread's effective set? */
bool mntsnap__cap_effective(int cap);

/*
 * The helper's stack (lib/ns-helper.c), cached in a handle and unmapped
 * when the handle is freed (lib/ns.c): its size and the guard page below.
 */
#define MNTSNAP_HELPER_STACK (512 * 1024)
static inline size_t mntsnap_helper_stack_map_size(void)
{
	return MNTSNAP_HELPER_STACK + (size_t)sysconf(_SC_PAGESIZE);
}

/* statmount of one id inside ns with the helper (lib/ns-helper.c). */
int mntsnap__helper_stat_id(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			   uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap);

/*
 * O_PATH fd of path resolved from rootfd (RESOLVE_IN_ROOT), by a helper
 * that stays in the caller's namespaces with the caller's capabilities:
 * only to bound the lookup by the helper timeout (a target's FUSE mount
 * can stall it for good). -ETIMEDOUT, or openat2's errors.
 */
int mntsnap__helper_open_at(const struct mntsnap_ns *ns, int rootfd, const char *path,
			   int *ret_fd);

/*
 * Capture inside ns with the helper (lib/ns-helper.c): the child calls
 * the sources (mntsnap__capture_source) directly, never the public API.
 */
int mntsnap__helper_capture(const struct mntsnap_ns *ns, const struct mntsnap_capture_opts *o,
			   const struct mntsnap_sysops *sys, struct mntsnap_snapshot **ret_snap);

/*
 * The bodies of public functions, for the inside of the library: a lib
 * file never calls the public API (the wrappers are what callers see).
 */
int mntsnap__ns_explain(int err, const char *op, struct mntsnap_error *ret);
void mntsnap__ns_free(struct mntsnap_ns *ns);
int mntsnap__ns_open_fd(int nsfd, struct mntsnap_ns **ret_ns);
int mntsnap__ns_open_file(const struct mntsnap_ns *ns, const char *path, int flags, unsigned mode, const struct mntsnap_ns_opts *opts, int *ret_fd);
int mntsnap__ns_run(const struct mntsnap_ns *ns, mntsnap_ns_fn fn, void *data, const struct mntsnap_ns_opts *opts, void **ret_buf, size_t *ret_len);

/*
 * The bodies of public functions, for the inside of the library: a lib
 * file never calls the public API (the wrappers are what callers see).
 */
int mntsnap__ns_list(struct mntsnap_ns_entry **ret_list, size_t *ret_n);

#endif
