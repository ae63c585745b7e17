/* SPDX-License-Identifier: MIT */
/* Internal interfaces between capture.c and the backends. */
#ifndef MNTSNAP_BACKENDS_H
#define MNTSNAP_BACKENDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mntsnap.h"
#include "sys.h"

struct mntsnap_snapshot;

/* ---- options ---------------------------------------------------------- */
/*
 * libbpf-style check of a caller's option struct: sz must cover at least
 * the first field, and bytes past what this library knows must be zero.
 */
int mntsnap__opts_valid(const void *opts, size_t user_sz, size_t known_sz);
/*
 * The same, and the reason in words in e (sz 0: MNTSNAP_OPTS forgotten;
 * unknown bytes: a newer header). Callers pass the struct's error pointer
 * even when sz is 0: every layout of the option structs that have one
 * has it at the same offset, and a forgotten sz is exactly when the
 * caller most needs the message.
 */
int mntsnap__opts_check(const void *opts, size_t user_sz, size_t known_sz, const char *type,
		       struct mntsnap_error *e);

/* Fill a struct mntsnap_error (if any) and return err. */
int mntsnap__set_error(struct mntsnap_error *e, int err, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

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
int mntsnap__snap_read_uuids(struct mntsnap_snapshot *s, int root_dirfd, uint32_t from);
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
			      const struct mntsnap_sysops *sys, uint32_t want,
			      struct mntsnap_snapshot **ret_snap, size_t *ret_vanished);
/* statx STATX_MNT_ID_UNIQUE on an fd (O_PATH is enough). */
int mntsnap__fd_to_id(const struct mntsnap_sysops *sys, int fd, uint64_t *ret_id);
/*
 * mntsnap_stat_id with a seam: a foreign ns takes the same fallback chain
 * as a capture (mntsnap__ns_stat_id).
 */
int mntsnap__stat_id_sys(const struct mntsnap_sysops *sys, const struct mntsnap_ns *ns,
			uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap);
/* statmount of one id through ns's route as it stands (no fallback). */
int mntsnap__sm_stat_one(const struct mntsnap_sysops *sys, const struct mntsnap_ns *ns,
			uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap);
/*
 * mntsnap__statmount_capture until no change detector fires (lib/refresh.c):
 * sets the snapshot's consistent/attempts; after max_retries the last
 * capture (consistent 0), or -EAGAIN with MNTSNAP_CAPTURE_CONSISTENT.
 */
int mntsnap__capture_consistent(const struct mntsnap_capture_opts *o,
			       const struct mntsnap_sysops *sys, uint32_t want,
			       struct mntsnap_snapshot **ret_snap);
/* Set capture time and kernel release. */
void mntsnap__snap_stamp(struct mntsnap_snapshot *s);

/* ---- diff (diff.c) -------------------------------------------------------- */
/*
 * MNTSNAP_CHANGE_* bits between two records of one mount (matched by id),
 * comparing only the fields both masks have: what mntsnap_diff() would
 * report for the pair.
 */
uint32_t mntsnap__diff_changes(const struct mntsnap_mount *a, const struct mntsnap_mount *b);

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
