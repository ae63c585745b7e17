// SPDX-License-Identifier: MIT
/*
 * listmount(2)/statmount(2) -> snapshot records.
 *
 * A capture is two phases: list every id (paginated listmount), then fetch
 * each mount with statmount into raw per-worker arenas (optionally with
 * several threads: the calls are independent), then ingest the raw records
 * into the snapshot in id order on the calling thread. Ingesting is cheap
 * next to the syscalls, and keeping it serial keeps the snapshot simple.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "backends.h"
#include "ns.h"
#include "snapshot.h"

#define LIST_PAGE 4096
/* > 512 always: see KERNEL-ABI.md 2.2 (a one-byte write past bufsize < 512) */
#define SM_BUF_START (16 * 1024)
#define SM_BUF_MAX (64U * 1024 * 1024)

uint64_t mntsnap_sm_mask_from_fields(uint32_t f)
{
	uint64_t m = 0;

	if (f & (MNTSNAP_F_DEV | MNTSNAP_F_SB_MAGIC | MNTSNAP_F_SB_FLAGS))
		m |= STATMOUNT_SB_BASIC;
	if (f & (MNTSNAP_F_ID | MNTSNAP_F_ID_OLD | MNTSNAP_F_ATTR | MNTSNAP_F_PROPAGATION))
		m |= STATMOUNT_MNT_BASIC;
	if (f & MNTSNAP_F_PROPAGATE_FROM)
		m |= STATMOUNT_PROPAGATE_FROM;
	if (f & MNTSNAP_F_ROOT)
		m |= STATMOUNT_MNT_ROOT;
	if (f & MNTSNAP_F_MOUNT_POINT)
		m |= STATMOUNT_MNT_POINT;
	if (f & MNTSNAP_F_FS_TYPE)
		m |= STATMOUNT_FS_TYPE;
	if (f & MNTSNAP_F_FS_SUBTYPE)
		m |= STATMOUNT_FS_SUBTYPE;
	if (f & MNTSNAP_F_SOURCE)
		m |= STATMOUNT_SB_SOURCE;
	if (f & MNTSNAP_F_OPTS)
		m |= STATMOUNT_MNT_OPTS;
	if (f & MNTSNAP_F_OPT_ARRAY)
		m |= STATMOUNT_OPT_ARRAY;
	if (f & MNTSNAP_F_OPT_SEC_ARRAY)
		m |= STATMOUNT_OPT_SEC_ARRAY;
	if (f & MNTSNAP_F_NS_ID)
		m |= STATMOUNT_MNT_NS_ID;
	if (f & MNTSNAP_F_UIDMAP)
		m |= STATMOUNT_MNT_UIDMAP;
	if (f & MNTSNAP_F_GIDMAP)
		m |= STATMOUNT_MNT_GIDMAP;
	return m;
}

uint32_t mntsnap_fields_from_sm_mask(uint64_t m)
{
	uint32_t f = 0;

	if (m & STATMOUNT_SB_BASIC)
		f |= MNTSNAP_F_DEV | MNTSNAP_F_SB_MAGIC | MNTSNAP_F_SB_FLAGS;
	if (m & STATMOUNT_MNT_BASIC)
		f |= MNTSNAP_F_ID | MNTSNAP_F_ID_OLD | MNTSNAP_F_ATTR | MNTSNAP_F_PROPAGATION;
	if (m & STATMOUNT_PROPAGATE_FROM)
		f |= MNTSNAP_F_PROPAGATE_FROM;
	if (m & STATMOUNT_MNT_ROOT)
		f |= MNTSNAP_F_ROOT;
	if (m & STATMOUNT_MNT_POINT)
		f |= MNTSNAP_F_MOUNT_POINT;
	if (m & STATMOUNT_FS_TYPE)
		f |= MNTSNAP_F_FS_TYPE;
	if (m & STATMOUNT_FS_SUBTYPE)
		f |= MNTSNAP_F_FS_SUBTYPE;
	if (m & STATMOUNT_SB_SOURCE)
		f |= MNTSNAP_F_SOURCE;
	if (m & STATMOUNT_MNT_OPTS)
		f |= MNTSNAP_F_OPTS;
	if (m & STATMOUNT_OPT_ARRAY)
		f |= MNTSNAP_F_OPT_ARRAY;
	if (m & STATMOUNT_OPT_SEC_ARRAY)
		f |= MNTSNAP_F_OPT_SEC_ARRAY;
	if (m & STATMOUNT_MNT_NS_ID)
		f |= MNTSNAP_F_NS_ID;
	if (m & STATMOUNT_MNT_UIDMAP)
		f |= MNTSNAP_F_UIDMAP;
	if (m & STATMOUNT_MNT_GIDMAP)
		f |= MNTSNAP_F_GIDMAP;
	return f;
}

/* A string field: valid only if its bit came back and its offset is sane. */
static const char *sm_str(const struct statmount *sm, uint64_t bit, uint32_t off,
			  uint32_t *fmask, uint32_t fbit)
{
	size_t strsize = sm->size > sizeof(*sm) ? sm->size - sizeof(*sm) : 0;

	if (!(sm->mask & bit))
		return "";
	if (off >= strsize) {
		*fmask &= ~fbit;
		return "";
	}
	return sm->str + off;
}

/* A NUL-separated list: every element must end inside the buffer. */
static const char *sm_list(const struct statmount *sm, uint64_t bit, uint32_t off,
			   uint32_t n, uint32_t *fmask, uint32_t fbit)
{
	size_t strsize = sm->size > sizeof(*sm) ? sm->size - sizeof(*sm) : 0;
	size_t pos = off;

	if (!(sm->mask & bit))
		return "";
	for (uint32_t i = 0; i < n; i++) {
		const char *nul;

		if (pos >= strsize)
			goto bad;
		nul = memchr(sm->str + pos, '\0', strsize - pos);
		if (!nul)
			goto bad;
		pos = (size_t)(nul - sm->str) + 1;
	}
	return sm->str + off;
bad:
	*fmask &= ~fbit;
	return "";
}

void mntsnap_sm_to_mount(const struct statmount *sm, uint32_t want, struct mntsnap_mount *m)
{
	uint32_t f = mntsnap_fields_from_sm_mask(sm->mask) & want;

	/* the string area must end in a NUL for any string to be trusted */
	if (sm->size <= sizeof(*sm) || ((const char *)sm)[sm->size - 1] != '\0')
		f &= ~(MNTSNAP_F_ROOT | MNTSNAP_F_MOUNT_POINT | MNTSNAP_F_FS_TYPE |
		       MNTSNAP_F_FS_SUBTYPE | MNTSNAP_F_SOURCE | MNTSNAP_F_OPTS |
		       MNTSNAP_F_OPT_ARRAY | MNTSNAP_F_OPT_SEC_ARRAY | MNTSNAP_F_UIDMAP |
		       MNTSNAP_F_GIDMAP);
	memset(m, 0, sizeof(*m));
	/*
	 * Numbers only where their bit came back: the rest of the buffer is
	 * whatever an earlier call (or a lying kernel) left there.
	 */
	if (sm->mask & STATMOUNT_SB_BASIC) {
		m->dev_major = sm->sb_dev_major;
		m->dev_minor = sm->sb_dev_minor;
		m->sb_magic = sm->sb_magic;
		m->sb_flags = sm->sb_flags;
	}
	if (sm->mask & STATMOUNT_MNT_BASIC) {
		m->id = sm->mnt_id;
		m->parent_id = sm->mnt_parent_id;
		m->id_old = sm->mnt_id_old;
		m->parent_id_old = sm->mnt_parent_id_old;
		m->attr = (uint32_t)sm->mnt_attr;
		m->propagation = (uint32_t)sm->mnt_propagation;
		m->peer_group = (uint32_t)sm->mnt_peer_group;
		m->master = (uint32_t)sm->mnt_master;
	}
	/*
	 * Normalised like the mountinfo text shows it (and backend-mountinfo.c
	 * stores it): 0 unless it differs from master. The kernel's value
	 * also is master or 0 depending on whether a peer of the master is
	 * visible, which the text cannot tell; records of both backends must
	 * compare equal.
	 */
	if ((sm->mask & STATMOUNT_PROPAGATE_FROM) && sm->propagate_from != m->master)
		m->propagate_from = (uint32_t)sm->propagate_from;
	if (sm->mask & STATMOUNT_MNT_NS_ID)
		m->ns_id = sm->mnt_ns_id;
	m->fs_type = sm_str(sm, STATMOUNT_FS_TYPE, sm->fs_type, &f, MNTSNAP_F_FS_TYPE);
	m->root = sm_str(sm, STATMOUNT_MNT_ROOT, sm->mnt_root, &f, MNTSNAP_F_ROOT);
	m->mount_point = sm_str(sm, STATMOUNT_MNT_POINT, sm->mnt_point, &f, MNTSNAP_F_MOUNT_POINT);
	m->options = sm_str(sm, STATMOUNT_MNT_OPTS, sm->mnt_opts, &f, MNTSNAP_F_OPTS);
	m->fs_subtype = sm_str(sm, STATMOUNT_FS_SUBTYPE, sm->fs_subtype, &f, MNTSNAP_F_FS_SUBTYPE);
	m->source = sm_str(sm, STATMOUNT_SB_SOURCE, sm->sb_source, &f, MNTSNAP_F_SOURCE);
	m->opt_num = sm->opt_num;
	m->opt_array = sm_list(sm, STATMOUNT_OPT_ARRAY, sm->opt_array, sm->opt_num, &f,
			       MNTSNAP_F_OPT_ARRAY);
	m->opt_sec_num = sm->opt_sec_num;
	m->opt_sec_array = sm_list(sm, STATMOUNT_OPT_SEC_ARRAY, sm->opt_sec_array,
				   sm->opt_sec_num, &f, MNTSNAP_F_OPT_SEC_ARRAY);
	m->uidmap_num = sm->mnt_uidmap_num;
	m->uidmap = sm_list(sm, STATMOUNT_MNT_UIDMAP, sm->mnt_uidmap, sm->mnt_uidmap_num, &f,
			    MNTSNAP_F_UIDMAP);
	m->gidmap_num = sm->mnt_gidmap_num;
	m->gidmap = sm_list(sm, STATMOUNT_MNT_GIDMAP, sm->mnt_gidmap, sm->mnt_gidmap_num, &f,
			    MNTSNAP_F_GIDMAP);
	m->mask = f;
}

/* ---- one statmount call with a growing buffer ---------------------------- */

int mntsnap_sm_buf_init(struct mntsnap_sm_buf *b)
{
	b->size = SM_BUF_START;
	b->sm = malloc(b->size);
	return b->sm ? 0 : -ENOMEM;
}

void mntsnap_sm_buf_free(struct mntsnap_sm_buf *b)
{
	free(b->sm);
	b->sm = NULL;
	b->size = 0;
}

long mntsnap_sm_call(const struct mntsnap_sysops *sys, const struct mnt_id_req *tmpl,
		     uint64_t id, uint64_t sm_mask, struct mntsnap_sm_buf *b)
{
	struct mnt_id_req req = *tmpl;
	long r;

	req.mnt_id = id;
	req.param = sm_mask;
	for (;;) {
		r = sys->statmount(sys->ctx, &req, b->sm, b->size, 0);
		if (r != -EOVERFLOW)
			break;
		if (b->size >= SM_BUF_MAX)
			return -E2BIG;
		/* the kernel's own seq buffer doubles too; follow it */
		void *n = realloc(b->sm, b->size * 2);

		if (!n)
			return -ENOMEM;
		b->sm = n;
		b->size *= 2;
	}
	if (r < 0)
		return r;
	/* a kernel (or seam) that claims more than it was given is lying */
	if (b->sm->size < sizeof(struct statmount) || b->sm->size > b->size)
		return -EBADMSG;
	/* a record under another id would corrupt the snapshot's id index */
	if ((b->sm->mask & STATMOUNT_MNT_BASIC) && b->sm->mnt_id != id)
		return -EBADMSG;
	return 0;
}

/* ---- listing ------------------------------------------------------------- */

/*
 * listmount returns ids sorted (descending with LISTMOUNT_REVERSE) and
 * strictly past the previous page's last id. Anything else is a lying
 * kernel or seam, and trusting it could page forever.
 */
static bool ids_ordered(const uint64_t *ids, size_t n, uint64_t last, bool reverse)
{
	for (size_t i = 0; i < n; i++) {
		if (ids[i] <= MNT_UNIQUE_ID_OFFSET)
			return false;
		if (last && (reverse ? ids[i] >= last : ids[i] <= last))
			return false;
		last = ids[i];
	}
	return true;
}

int mntsnap_sm_list(const struct mntsnap_sysops *sys, const struct mnt_id_req *tmpl,
		    uint64_t under, bool reverse, uint64_t **ret_ids, size_t *ret_n)
{
	struct mnt_id_req req = *tmpl;
	uint64_t *ids = NULL;
	size_t n = 0, cap = 0;
	long r;

	req.mnt_id = under ? under : LSMT_ROOT;
	req.param = 0;
	for (;;) {
		if (cap - n < LIST_PAGE) {
			uint64_t *nids = realloc(ids, (cap + LIST_PAGE * 2) * sizeof(*ids));

			if (!nids) {
				free(ids);
				return -ENOMEM;
			}
			ids = nids;
			cap += LIST_PAGE * 2;
		}
		r = sys->listmount(sys->ctx, &req, ids + n, LIST_PAGE,
				   reverse ? LISTMOUNT_REVERSE : 0);
		if (r < 0) {
			free(ids);
			return (int)r;
		}
		if (r > LIST_PAGE || !ids_ordered(ids + n, (size_t)r, req.param, reverse)) {
			free(ids);
			return -EBADMSG;
		}
		/*
		 * Only 0 ends the walk: a short page is the end on today's
		 * kernels, but nothing promises it (a seam, a tracer or a
		 * future per-call cap may return fewer), and the extra call
		 * costs one syscall per capture.
		 */
		if (r == 0)
			break;
		n += (size_t)r;
		/* the next page starts after the last id; never read ids[-1] */
		req.param = ids[n - 1];
	}
	*ret_ids = ids;
	*ret_n = n;
	return 0;
}

/* ---- fetching (optionally parallel) -------------------------------------- */

/* Raw statmount results, 8-byte aligned, size-prefixed by statmount.size. */
struct raw_arena {
	char *data;
	size_t len, cap;
	size_t vanished;
};

struct fetch_job {
	const struct mntsnap_sysops *sys;
	const struct mnt_id_req *tmpl;
	const uint64_t *ids;
	size_t n;
	uint64_t sm_mask;
	struct raw_arena arena;
	int err;
};

static int arena_push(struct raw_arena *a, const struct statmount *sm)
{
	size_t sz = (sm->size + 7) & ~(size_t)7;

	if (a->cap - a->len < sz) {
		size_t ncap = a->cap ? a->cap * 2 : 64 * 1024;

		while (ncap - a->len < sz)
			ncap *= 2;
		char *nd = realloc(a->data, ncap);

		if (!nd)
			return -ENOMEM;
		a->data = nd;
		a->cap = ncap;
	}
	memcpy(a->data + a->len, sm, sm->size);
	a->len += sz;
	return 0;
}

static void *fetch_run(void *arg)
{
	struct fetch_job *j = arg;
	struct mntsnap_sm_buf b;
	long r;

	j->err = mntsnap_sm_buf_init(&b);
	if (j->err)
		return NULL;
	for (size_t i = 0; i < j->n; i++) {
		r = mntsnap_sm_call(j->sys, j->tmpl, j->ids[i], j->sm_mask, &b);
		if (r == -ENOENT) {
			/* unmounted between listmount and statmount: not an error */
			j->arena.vanished++;
			continue;
		}
		if (r < 0) {
			j->err = (int)r;
			break;
		}
		r = arena_push(&j->arena, b.sm);
		if (r < 0) {
			j->err = (int)r;
			break;
		}
	}
	mntsnap_sm_buf_free(&b);
	return NULL;
}

static int ingest(struct mntsnap_snapshot *s, struct raw_arena *a, uint32_t want)
{
	for (size_t off = 0; off < a->len;) {
		const struct statmount *sm = (const void *)(a->data + off);
		struct mntsnap_mount m;
		long r;

		mntsnap_sm_to_mount(sm, want, &m);
		r = mntsnap_snap_add(s, &m);
		if (r < 0)
			return (int)r;
		off += (sm->size + 7) & ~(size_t)7;
	}
	return 0;
}

static int fetch_all(const struct mntsnap_sysops *sys, const struct mnt_id_req *tmpl,
		     const uint64_t *ids, size_t n, uint64_t sm_mask, unsigned threads,
		     struct mntsnap_snapshot *s, uint32_t want, size_t *ret_vanished)
{
	struct fetch_job *jobs;
	pthread_t *tids;
	unsigned started = 0;
	int err = 0;

	if (threads < 1)
		threads = 1;
	if (threads > 64)
		threads = 64;
	if (n < (size_t)threads * 64)
		threads = 1; /* not worth a thread for tiny tables */
	jobs = calloc(threads, sizeof(*jobs));
	tids = calloc(threads, sizeof(*tids));
	if (!jobs || !tids) {
		free(jobs);
		free(tids);
		return -ENOMEM;
	}
	for (unsigned t = 0; t < threads; t++) {
		size_t lo = n * t / threads, hi = n * (t + 1) / threads;

		jobs[t] = (struct fetch_job){ .sys = sys, .tmpl = tmpl, .ids = ids + lo,
					      .n = hi - lo, .sm_mask = sm_mask };
	}
	/* the calling thread does the first share itself */
	for (unsigned t = 1; t < threads; t++) {
		if (pthread_create(&tids[t], NULL, fetch_run, &jobs[t]))
			break;
		started = t;
	}
	for (unsigned t = started + 1; t < threads; t++)
		fetch_run(&jobs[t]); /* could not start a thread: do it here */
	fetch_run(&jobs[0]);
	for (unsigned t = 1; t <= started; t++)
		pthread_join(tids[t], NULL);

	*ret_vanished = 0;
	for (unsigned t = 0; t < threads; t++) {
		if (!err)
			err = jobs[t].err;
		if (!err)
			err = ingest(s, &jobs[t].arena, want);
		*ret_vanished += jobs[t].arena.vanished;
		free(jobs[t].arena.data);
	}
	free(jobs);
	free(tids);
	return err;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void mntsnap_snap_stamp(struct mntsnap_snapshot *s)
{
	struct utsname u;

	s->time_ns = now_ns();
	/* memcpy of the whole field: strncpy trips -Wstringop-truncation */
	_Static_assert(sizeof(s->kernel_release) == sizeof(u.release), "utsname release size");
	if (!uname(&u)) {
		memcpy(s->kernel_release, u.release, sizeof(s->kernel_release));
		s->kernel_release[sizeof(s->kernel_release) - 1] = '\0';
	}
}

int mntsnap_statmount_capture(const struct mntsnap_capture_opts *o,
			      const struct mntsnap_sysops *sys, uint32_t want,
			      struct mntsnap_snapshot **ret_snap, size_t *ret_vanished)
{
	struct mnt_id_req tmpl = {0};
	struct mntsnap_snapshot *s;
	uint64_t *ids = NULL;
	size_t n = 0;
	int r;

	mntsnap_ns_fill_req(o->ns, true, &tmpl);
	r = mntsnap_sm_list(sys, &tmpl, o->under_id, o->flags & MNTSNAP_CAPTURE_REVERSE, &ids,
			    &n);
	if (r < 0)
		return r;
	s = mntsnap_snap_new(MNTSNAP_BACKEND_STATMOUNT, want);
	if (!s) {
		free(ids);
		return -ENOMEM;
	}
	mntsnap_snap_stamp(s);
	/* listmount(under) excludes "under" itself; a subtree includes its root */
	if (o->under_id) {
		uint64_t *nids = realloc(ids, (n + 1) * sizeof(*ids));

		if (!nids) {
			r = -ENOMEM;
			goto out;
		}
		ids = nids;
		memmove(ids + 1, ids, n * sizeof(*ids));
		ids[0] = o->under_id;
		n++;
	}
	r = fetch_all(sys, &tmpl, ids, n, mntsnap_sm_mask_from_fields(want), o->threads, s,
		      want, ret_vanished);
	if (!r)
		r = mntsnap_snap_finish(s);
out:
	free(ids);
	if (r < 0) {
		mntsnap_snapshot_free(s);
		return r;
	}
	*ret_snap = s;
	return 0;
}

/* ---- single mounts --------------------------------------------------------- */

static int stat_one(const struct mntsnap_sysops *sys, const struct mntsnap_ns *ns,
		    uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap)
{
	struct mnt_id_req tmpl = {0};
	struct mntsnap_snapshot *s;
	struct mntsnap_sm_buf b;
	struct mntsnap_mount m;
	long r;

	if (!mask)
		mask = MNTSNAP_MASK_DEFAULT;
	if (id <= MNT_UNIQUE_ID_OFFSET)
		return -EINVAL;
	mntsnap_ns_fill_req(ns, true, &tmpl);
	r = mntsnap_sm_buf_init(&b);
	if (r)
		return (int)r;
	r = mntsnap_sm_call(sys, &tmpl, id, mntsnap_sm_mask_from_fields(mask), &b);
	if (r < 0)
		goto out;
	s = mntsnap_snap_new(MNTSNAP_BACKEND_STATMOUNT, mask);
	if (!s) {
		r = -ENOMEM;
		goto out;
	}
	mntsnap_snap_stamp(s);
	mntsnap_sm_to_mount(b.sm, mask, &m);
	r = mntsnap_snap_add(s, &m);
	if (r >= 0)
		r = mntsnap_snap_finish(s);
	if (r < 0) {
		mntsnap_snapshot_free(s);
		goto out;
	}
	*ret_snap = s;
	r = 0;
out:
	mntsnap_sm_buf_free(&b);
	return (int)r;
}

int mntsnap_stat_id_sys(const struct mntsnap_sysops *in, const struct mntsnap_ns *ns,
			uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap)
{
	struct mntsnap_sysops sys;

	mntsnap_sys_resolve(in, &sys);
	return stat_one(&sys, ns, id, mask, ret_snap);
}

int mntsnap_stat_id(const struct mntsnap_ns *ns, uint64_t id, uint32_t mask,
		    struct mntsnap_snapshot **ret_snap)
{
	if (!ret_snap)
		return -EINVAL;
	return stat_one(&mntsnap_sys_real, ns, id, mask, ret_snap);
}

int mntsnap_path_to_id(const struct mntsnap_sysops *sys, const char *path, uint64_t *ret_id)
{
	struct mntsnap_statx stx;
	long r;

	if (!path || !*path)
		return -EINVAL;
	memset(&stx, 0, sizeof(stx));
	/* AT_FDCWD; follow symlinks like findmnt does; no automount */
	r = sys->statx(sys->ctx, -100, path, 0x800 /* AT_NO_AUTOMOUNT */,
		       MNTSNAP_STATX_MNT_ID_UNIQUE, &stx);
	if (r < 0)
		return (int)r;
	/* kernels before 6.8 ignore the request bit: no unique id to use */
	if (!(stx.stx_mask & MNTSNAP_STATX_MNT_ID_UNIQUE))
		return -ENOSYS;
	*ret_id = stx.stx_mnt_id;
	return 0;
}

int mntsnap_stat_path(const char *path, uint32_t mask, struct mntsnap_snapshot **ret_snap)
{
	uint64_t id;
	int r;

	if (!ret_snap)
		return -EINVAL;
	r = mntsnap_path_to_id(&mntsnap_sys_real, path, &id);
	if (r < 0)
		return r;
	return stat_one(&mntsnap_sys_real, NULL, id, mask, ret_snap);
}
