/* SPDX-License-Identifier: MIT */
/* Internal interfaces of the sources (L2) and their callers. */
#ifndef MNTSNAP_BACKENDS_H
#define MNTSNAP_BACKENDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mntsnap.h"
#include "opts.h"
#include "sys.h"

struct mntsnap_snapshot;

/* ---- statmount backend (backend-statmount.c) ----------------------------- */
struct mntsnap_sm_buf {
	struct mntsnap_k_statmount *sm;
	size_t size;
};

uint64_t mntsnap__sm_mask_from_fields(uint32_t fields);
uint32_t mntsnap__fields_from_sm_mask(uint64_t sm_mask);
/*
 * The filesystem UUID of the superblocks of records [from, nrecs) of s,
 * when its mask asks for MNTSNAP_F_UUID, read through their mounts, whose
 * points are relative to root_dirfd (AT_FDCWD: the caller's root); set on
 * the interned superblocks and their records. 0, -ENOMEM, -EMFILE.
 */
/* byuuid_dirfd: AT_FDCWD for the caller's own /dev/disk/by-uuid, -1 for none */
int mntsnap__snap_read_uuids(struct mntsnap_snapshot *s, int root_dirfd, int byuuid_dirfd,
			     uint32_t from);
void mntsnap__sm_to_mount(const struct mntsnap_k_statmount *sm, uint32_t want, struct mntsnap_mount *m);
int mntsnap__sm_buf_init(struct mntsnap_sm_buf *b);
void mntsnap__sm_buf_free(struct mntsnap_sm_buf *b);
/* statmount(id) into b, growing it on EOVERFLOW. 0 or -errno. */
long mntsnap__sm_call(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
		     uint64_t id, uint64_t sm_mask, struct mntsnap_sm_buf *b);
/* Ids a listmount call is asked for at most (one page of a listing). */
#define MNTSNAP_SM_LIST_PAGE 4096
/* Every id below under (0 = the whole namespace), paginated. */
int mntsnap__sm_list(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
		    uint64_t under, bool reverse, uint64_t **ret_ids, size_t *ret_n);
/*
 * The same; *ret_one_call says every id came from one listmount call that
 * returned fewer than it was asked for (or none came at all): one walk
 * the kernel made under the namespace lock, so a set that existed at one
 * moment. A listing of more than one page is not.
 */
int mntsnap__sm_list_once(const struct mntsnap_sysops *sys, const struct mntsnap_k_mnt_id_req *tmpl,
			 uint64_t under, bool reverse, uint64_t **ret_ids, size_t *ret_n,
			 bool *ret_one_call);
/* statx STATX_MNT_ID_UNIQUE on path. -ENOSYS where the kernel has none. */
int mntsnap__path_to_id(const struct mntsnap_sysops *sys, const char *path, uint64_t *ret_id);
/* One capture attempt; *ret_vanished counts mounts gone before statmount. */
int mntsnap__statmount_capture(const struct mntsnap_capture_opts *o,
			      const struct mntsnap_sysops *sys, int route, uint32_t want,
			      struct mntsnap_snapshot **ret_snap, size_t *ret_vanished);
/* statx STATX_MNT_ID_UNIQUE on an fd (O_PATH is enough). */
int mntsnap__fd_to_id(const struct mntsnap_sysops *sys, int fd, uint64_t *ret_id);
/* statmount of one id of ns through route (MNTSNAP_NS_ROUTE_*; no fallback). */
int mntsnap__sm_stat_one(const struct mntsnap_sysops *sys, const struct mntsnap_ns *ns,
			int route, uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap);
/* ---- sources: one capture of a reachable namespace (source.c, consistent.c) -- */
/*
 * A capture of o->ns through route (MNTSNAP_NS_ROUTE_*; AUTO for the
 * caller's own namespace, or inside a helper), with o->backend: the
 * statmount source with its retries, the mountinfo text, or AUTO's choice
 * between them. Never routes: the router (lib/route.c) calls this.
 */
int mntsnap__capture_source(const struct mntsnap_capture_opts *o,
			    const struct mntsnap_sysops *sys, int route,
			    struct mntsnap_snapshot **ret_snap);
/* Is statmount usable by this process at all? Cached per process. */
bool mntsnap__have_statmount(void);
/*
 * mntsnap__statmount_capture until no change detector fires:
 * sets the snapshot's consistent/attempts; after max_retries the last
 * capture (consistent 0), or -EAGAIN with MNTSNAP_CAPTURE_CONSISTENT.
 */
int mntsnap__capture_consistent(const struct mntsnap_capture_opts *o,
			       const struct mntsnap_sysops *sys, int route, uint32_t want,
			       struct mntsnap_snapshot **ret_snap);
/*
 * The change detector: an fd of ns's mountinfo to poll for POLLPRI, or
 * < 0 when there is none (a namespace known only by id or nsfs fd).
 */
int mntsnap__detector_open(const struct mntsnap_ns *ns);
/* Did the namespace change since the last call? Also latches. */
bool mntsnap__detector_fired(int fd);

/* ---- mountinfo backend (backend-mountinfo.c) ----------------------------- */
/*
 * Parse mountinfo text; records get want & what mountinfo can give, plus
 * ns_id when non-zero. flags: MNTSNAP_CAPTURE_REVERSE. -EBADMSG (err says
 * line and field), -ENOMEM, -E2BIG (text over 2 GiB).
 */
int mntsnap__mountinfo_parse(const char *buf, size_t len, uint32_t want, uint32_t flags,
			    uint64_t ns_id, struct mntsnap_error *err,
			    struct mntsnap_snapshot **ret_snap);
/* Read and parse o->mountinfo_path, or the mountinfo of o->ns. */
int mntsnap__mountinfo_capture(const struct mntsnap_capture_opts *o,
			      const struct mntsnap_sysops *sys, uint32_t want,
			      struct mntsnap_snapshot **ret_snap);
/*
 * The calling thread's own mountinfo, read only from a procfs at /proc
 * (its root, the lookup not leaving it, O_NONBLOCK): /proc belongs to the
 * mount namespace, and a caller that entered a target sees the target's,
 * which may be a tmpfs with made-up files, a FIFO or a bind mount of
 * another process's file. -ENOENT when /proc is no such procfs, or one
 * of a pid namespace that does not know the caller.
 */
/*
 * Parse the live mountinfo text of the open procfs file fd (read from its
 * start, again until a read is quiet, as a capture reads it): what a
 * watcher holding one open file reads at each change.
 */
int mntsnap__mountinfo_capture_fd(int fd, const struct mntsnap_capture_opts *o, uint32_t want,
				  struct mntsnap_snapshot **ret_snap);
int mntsnap__mountinfo_open_own(void);

/*
 * The mountinfo of a pid handle's process from the caller's procfs (the
 * same checks), checked to be that process in the handle's namespace
 * after the open. -ESRCH (gone, pid reused, namespace left), -ENOENT.
 */
int mntsnap__mountinfo_open_pid(const struct mntsnap_ns *ns);

/*
 * Inside a helper (ns->inside): its own mountinfo through the caller's
 * procfs, never the target's /proc. -ENOENT when there is no such procfs.
 */
int mntsnap__mountinfo_open_inside(const struct mntsnap_ns *ns);

#endif
