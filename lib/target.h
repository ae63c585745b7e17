/* SPDX-License-Identifier: MIT */
/*
 * A target mount namespace as the sources (L2) see it: the fds and ids a
 * listmount/statmount request or a mountinfo read needs, and the route
 * the router chose, passed down as a value. Handles are made, entered and
 * freed in L3 (ns.h, ns.c); a source only reads this struct, so it needs
 * nothing from the namespace layer.
 */
#ifndef MNTSNAP_TARGET_H
#define MNTSNAP_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "uapi.h"

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
	/*
	 * The task's directory (O_PATH) in a procfs of another pid namespace
	 * than the caller's, when the handle came from a pid as that procfs
	 * numbers it (mntsnap_ns_open_proc_pid()); -1 if none. Such a task
	 * may have no number in the caller's namespace at all, so no pidfd:
	 * everything read of the task goes through this directory (proc.h).
	 */
	int piddir;
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

/* Did ns come from a task (a pidfd or a procfs directory of one)? */
static inline bool mntsnap_ns_has_task(const struct mntsnap_ns *ns)
{
	return ns && (ns->pidfd >= 0 || ns->piddir >= 0);
}

/* A foreign namespace: the router (lib/route.c) picks how to reach it. */
static inline bool mntsnap_ns_foreign(const struct mntsnap_ns *ns)
{
	return ns && !ns->self;
}

#endif
