/* SPDX-License-Identifier: MIT */
/* Namespace handle internals (lib/ns.c owns them; backends read them). */
#ifndef MNTSNAP_NS_INTERNAL_H
#define MNTSNAP_NS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "uapi.h"

struct mntsnap_capture_opts;
struct mntsnap_snapshot;
struct mntsnap_sysops;

/*
 * How a capture reaches a foreign namespace: a value the router
 * (lib/route.c) decides and passes down to the sources, never stored in
 * a handle. AUTO: the caller's own namespace, or "prefer the fd".
 */
enum {
	MNTSNAP_NS_ROUTE_AUTO = 0,
	MNTSNAP_NS_ROUTE_FD,   /* mnt_id_req.mnt_ns_fd (6.18+) */
	MNTSNAP_NS_ROUTE_ID,   /* mnt_id_req.mnt_ns_id (6.11+, CAP_SYS_ADMIN) */
	MNTSNAP_NS_ROUTE_TEXT, /* /proc/PID/mountinfo of the handle's process */
};

struct mntsnap_ns {
	int nsfd;        /* nsfs fd of the mount namespace, -1 for "own" */
	int pidfd;       /* process the handle came from, -1 if none */
	uint64_t ns_id;  /* 64-bit mount namespace id, 0 if unknown */
	bool self;       /* the caller's own namespace */
	/*
	 * A pid handle whose namespace the caller may not open (no ptrace
	 * access) but whose /proc/PID/mountinfo it can read: nsfd -1, ns_id
	 * 0, and only the text route works (ns.c text_only()).
	 */
	bool text_only;
	/*
	 * Only on the handle a helper builds for its own capture inside the
	 * target (self is true there too): the target's /proc is the
	 * target's to fake (a tmpfs, a symlink to another process's file, a
	 * FIFO that blocks an open), and in its own pid namespace it does
	 * not know the helper at all. So text and change detector come from
	 * host_proc, the caller's procfs opened before entering: the
	 * helper's own <pid>/mountinfo there is the kernel's text of the
	 * namespace it has just entered. -1: neither is available.
	 */
	bool inside;
	int host_proc;
	/*
	 * Only with inside: the target's root, opened by the helper before
	 * it confined itself, for the files of mounts a capture reads (the
	 * filesystem UUID); -1 if none.
	 */
	int root_fd;
	/*
	 * Only with inside: the caller's udev /dev/disk/by-uuid, opened
	 * before entering (the target's own could name any device with any
	 * UUID); -1 if none: the UUID's udev step is skipped.
	 */
	int byuuid_fd;
	/*
	 * The helper's stack, kept for the next call on this handle: mapping
	 * and unmapping one per call costs ~18 us (the unmap shoots down TLBs
	 * on every CPU the caller ran on). Taken and put back with atomic
	 * exchanges, so concurrent calls on one handle each get their own.
	 * Never copied into internal copies (the watcher's).
	 */
	_Atomic(void *) stack_cache;
};

/*
 * Point a listmount/statmount request at ns by route: MNTSNAP_NS_ROUTE_ID
 * names it by mnt_ns_id (6.11+, needs CAP_SYS_ADMIN over the owning user
 * namespace); any other route prefers mnt_ns_fd (6.18+, holding the fd is
 * the permission) and takes the id only for a handle without an fd.
 * Always sends the smallest request size that carries what is needed.
 */
static inline void mntsnap_ns_fill_req(const struct mntsnap_ns *ns, int route,
				       struct mntsnap_k_mnt_id_req *req)
{
	bool use_fd = route != MNTSNAP_NS_ROUTE_ID;

	req->size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0;
	if (!ns || ns->self)
		return;
	/* no namespace to name: a request that can only fail (ENOENT), never
	 * one that silently reads the caller's own namespace */
	if (ns->text_only) {
		req->size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER1;
		req->mnt_ns_id = UINT64_MAX;
		return;
	}
	if (use_fd && ns->nsfd >= 0) {
		req->mnt_ns_fd = (uint32_t)ns->nsfd;
	} else if (ns->ns_id) {
		req->size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER1;
		req->mnt_ns_id = ns->ns_id;
	}
}

/* A foreign namespace: the router (lib/route.c) picks how to reach it. */
static inline bool mntsnap_ns_foreign(const struct mntsnap_ns *ns)
{
	return ns && !ns->self;
}


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
