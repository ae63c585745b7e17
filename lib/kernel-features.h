/* SPDX-License-Identifier: MIT */
/*
 * The kernel features the library depends on, one row each (lib/kernel-features.c):
 * what it is, the release it appeared in, how it is probed and how long an
 * answer may be kept. A new kernel interface is a uapi.h copy plus one row.
 */
#ifndef MNTSNAP_KERNEL_FEATURES_H
#define MNTSNAP_KERNEL_FEATURES_H

#include "sys.h"

enum mntsnap_feat {
	MNTSNAP_FEAT_STATMOUNT,		    /* listmount(2) + statmount(2) */
	MNTSNAP_FEAT_STATX_MNT_ID_UNIQUE,   /* statx's 64-bit mount id */
	MNTSNAP_FEAT_MNT_NS_ID,		    /* VER1 request naming a namespace by id */
	MNTSNAP_FEAT_LISTMOUNT_REVERSE,	    /* newest mounts first */
	MNTSNAP_FEAT_PIDFD_GET_MNT_NAMESPACE, /* pidfd -> nsfs fd without /proc */
	MNTSNAP_FEAT_NS_MNT_GET_INFO,	    /* nsfs fd -> namespace id, mount count */
	MNTSNAP_FEAT_SUPPORTED_MASK,	    /* statmount says what it could fill */
	MNTSNAP_FEAT_FANOTIFY_MNT,	    /* fanotify mount attach/detach events */
	MNTSNAP_FEAT_MNT_NS_FD,		    /* request naming a namespace by nsfs fd */
	MNTSNAP_FEAT_STATMOUNT_BY_FD,	    /* statmount of the mount an fd is on */
	MNTSNAP_FEAT__COUNT
};

enum mntsnap_feat_scope {
	/*
	 * A property of the kernel and of the process's seccomp filter
	 * (filters are only ever added): probed once per process, never with
	 * a test's seam table.
	 */
	MNTSNAP_FEAT_SCOPE_PROCESS,
	/*
	 * Depends on the target or on the calling thread's rights, which
	 * change (a caller may drop capabilities): probed at each use.
	 */
	MNTSNAP_FEAT_SCOPE_CALL,
};

struct mntsnap_feat_desc {
	const char *name;
	const char *since; /* the kernel release it appeared in */
	int scope;	   /* enum mntsnap_feat_scope */
	/*
	 * 0: the kernel serves it here; else the kernel's -errno (-ENOSYS,
	 * -EINVAL, -E2BIG, -ENOTTY from a kernel before it; -EPERM, -ENOENT
	 * from a filter or a target the caller may not query). tmpl: the
	 * request a capture would send (MNT_NS_ID, MNT_NS_FD, STATMOUNT);
	 * NULL probes with the caller's own namespace.
	 */
	int (*probe)(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl);
};

/* The row of feat, NULL past the table. */
const struct mntsnap_feat_desc *mntsnap__feature(int feat);

/*
 * Probe feat through sys (the seam). Rows of process scope answer from a
 * per-process cache of "yes" when sys is the real table (a "no" may be
 * the calling thread's own seccomp filter, so it is asked again). 0 or -errno (see above).
 */
int mntsnap__feature_probe(int feat, const struct mntsnap_sysops *sys,
			   const struct mntsnap_k_mnt_id_req *tmpl);

/* The row whose probe tells whether the kernel takes request tmpl. */
int mntsnap__feature_of_req(const struct mntsnap_k_mnt_id_req *tmpl);

#endif
