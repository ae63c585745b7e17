// SPDX-License-Identifier: MIT
/*
 * mntsnap_watch_*(): a mount table kept current from kernel events.
 *
 * Sources (all behind one epoll fd the caller polls):
 *  - a fanotify group with FAN_REPORT_MNT and a FAN_MARK_MNTNS mark on the
 *    namespace (6.15): one event per attach or detach, carrying the
 *    unique mount id; a move is one event with both bits (for the mounts
 *    below a moved one only some get an event: a new mount point makes
 *    the watcher fetch every mount below the old one). It says nothing
 *    about remounts, mount_setattr or propagation changes, nor (6.18) about
 *    the top mount a MOVE_MOUNT_BENEATH slides a new one under, though its
 *    parent changes;
 *  - POLLPRI on the namespace's mountinfo: the kernel bumps a per
 *    namespace counter for mounts, umounts, moves, remounts and attribute
 *    changes (not for a propagation type change). It only says "changed
 *    since you last polled", never what or how often;
 *  - the target's pidfd, so a pid handle's exit wakes the caller;
 *  - a timerfd for the settle sweep (below), and to wake the caller for
 *    the resync after a drain that failed part way.
 * Two mountinfo fds are opened: poll() latches a per-file flag, and the
 * epoll machinery polls the fd in its set whenever the caller polls the
 * epoll fd, so that one cannot also be the one drain asks.
 *
 * The live table is a snapshot built append-only: a new or refetched
 * mount is appended, a removed or replaced one is marked dead, and an
 * id -> storage index hash finds records in O(1). So an event costs one
 * statmount and a few hash operations whatever the table's size. The
 * snapshot handed to callers is rebuilt (dead records dropped, id order,
 * tree links) only when asked for and changed since; snapshots replaced
 * that way are kept until the next drain, since queued events point
 * into them. Events hold (snapshot, index) pairs and are turned into
 * records when read, after the drain is done appending (the string table
 * may move while records are appended).
 *
 * Sweep (POLLPRI without a fanotify event in the same drain; settle_ms
 * after a drain that had both, since POLLPRI cannot say whether it stood
 * for more than the attaches and detaches read; every POLLPRI on the
 * POLLPRI route):
 * one listing of the ids (mounts fanotify did not report, or that no
 * event source covers), then per known mount a statmount of the
 * fixed-size fields only (no strings formatted), compared through the
 * diff machinery; a differing mount, and the first mount of every
 * superblock (options are strings: once per superblock), is fetched in
 * full. On the POLLPRI route the mount point is asked for too: a move
 * within one parent changes nothing else.
 *
 * Overflow (FAN_Q_OVERFLOW, or an error mid-drain that left the table in
 * doubt): a consistent capture, mntsnap_diff against the live table, the
 * differences as events, then RESYNC.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/statfs.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "backends.h"
#include "diff.h"
#include "kernel-features.h"
#include "ns.h"
#include "hash.h"
#include "proc.h"
#include "route.h"
#include "snapshot.h"
#include "sys-seam.h"
#include "uapi.h"

#define DEFAULT_SETTLE_MS 100
#define CAP_SYS_ADMIN_ 21 /* <linux/capability.h>, which musl lacks */
#define FAN_BUF_SIZE 65536
#define REBUILD_MIN_DEAD 4096

/* u64 id -> u32 storage index, linear probing, backward-shift delete. */
struct idx {
	uint64_t *k; /* 0 = empty: mount ids are never 0 */
	uint32_t *v;
	uint32_t cap, n;
};

struct wev {
	int kind;
	uint32_t changed;
	uint64_t id;
	const struct mntsnap_snapshot *ns, *os;
	long ni, oi;
};

struct mntsnap_watch {
	struct mntsnap_ns nsr;	      /* copy of the target (fds not owned) */
	const struct mntsnap_ns *tns; /* &nsr, or NULL for the caller's namespace */
	int ns_route;		      /* how tns is queried: MNTSNAP_NS_ROUTE_FD or _ID */
	struct mntsnap_sysops sys;
	struct mntsnap_k_mnt_id_req tmpl;
	struct mntsnap_sm_buf buf;
	uint32_t want, flags;
	uint64_t full_mask;
	unsigned settle_ms;
	int route;
	int epfd, fanfd, mi_wake, mi_check, timerfd;
	/* opts->mountinfo_path, opened once: the text every capture reads */
	int mi_text;
	bool timer_armed, need_resync, ended;
	bool refetching; /* in refetch_below: one pass covers the subtree */
	/* NO_SETTLE skipped the sweep after a drain where POLLPRI came with
	 * fanotify events: a change may be unseen until the next sweep, so
	 * mntsnap_watch_sync() sweeps (its promise: a fresh capture's equal) */
	bool unsettled;

	struct mntsnap_snapshot *live;
	/*
	 * A pid target whose root is not its namespace's (a chroot()ed
	 * process): live stays the whole namespace, which the event sources
	 * and sweeps keep current, and view is the process's view of it
	 * (route.c's, as a capture of that target gives: the mounts reachable
	 * from its root, paths relative to it), what callers get; the events
	 * are the changes between two views. NULL: callers get live. extra:
	 * the fields only the view needs (the caller did not ask for them).
	 */
	struct mntsnap_snapshot *view;
	uint32_t extra;
	/*
	 * A pid target seen whole (no view) in a namespace queried from
	 * outside: statmount's propagate_from is relative to our root, where
	 * no mount of that namespace is, so it never names a group. The
	 * process's own mountinfo does: pf holds its (/proc id << 32 |
	 * propagate_from) pairs, read when a drain first fetches a slave
	 * (pf_reads: texts read this drain), and at setup and resync. extra
	 * then is the /proc id the records are matched by.
	 */
	bool pf_text;
	uint64_t *pf;
	uint32_t npf;
	unsigned pf_reads;
	uint8_t *dead;
	uint32_t dead_cap, ndead;
	bool clean; /* live is a finished snapshot with no dead records */
	struct idx idx;
	struct mntsnap_snapshot **retired;
	size_t nretired, retired_cap;

	struct wev *ev;
	size_t nev, evcap, evpos;
	void *fanbuf;
};

/* ---- id index ------------------------------------------------------------------- */

static uint32_t idx_hash(uint64_t id, uint32_t cap)
{
	return mntsnap_hash_u64(id) & (cap - 1);
}

static int idx_grow(struct idx *x, uint32_t need)
{
	struct idx n = {0};

	if (need * 2 < x->cap)
		return 0;
	n.cap = x->cap ? x->cap : 64;
	while (need * 2 >= n.cap)
		n.cap *= 2;
	n.k = calloc(n.cap, sizeof(*n.k));
	n.v = malloc((size_t)n.cap * sizeof(*n.v));
	if (!n.k || !n.v) {
		free(n.k);
		free(n.v);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < x->cap; i++) {
		uint32_t h;

		if (!x->k[i])
			continue;
		for (h = idx_hash(x->k[i], n.cap); n.k[h]; h = (h + 1) & (n.cap - 1))
			;
		n.k[h] = x->k[i];
		n.v[h] = x->v[i];
	}
	n.n = x->n;
	free(x->k);
	free(x->v);
	*x = n;
	return 0;
}

static long idx_get(const struct idx *x, uint64_t id)
{
	if (!x->cap)
		return -1;
	for (uint32_t h = idx_hash(id, x->cap); x->k[h]; h = (h + 1) & (x->cap - 1))
		if (x->k[h] == id)
			return x->v[h];
	return -1;
}

static int idx_put(struct idx *x, uint64_t id, uint32_t v)
{
	uint32_t h;
	int r = idx_grow(x, x->n + 1);

	if (r)
		return r;
	for (h = idx_hash(id, x->cap); x->k[h] && x->k[h] != id; h = (h + 1) & (x->cap - 1))
		;
	if (!x->k[h])
		x->n++;
	x->k[h] = id;
	x->v[h] = v;
	return 0;
}

static void idx_del(struct idx *x, uint64_t id)
{
	uint32_t h, j, m = x->cap - 1;

	if (!x->cap)
		return;
	for (h = idx_hash(id, x->cap); x->k[h] && x->k[h] != id; h = (h + 1) & m)
		;
	if (!x->k[h])
		return;
	/* shift later members of the run back so lookups never stop early */
	for (j = (h + 1) & m; x->k[j]; j = (j + 1) & m) {
		uint32_t home = idx_hash(x->k[j], x->cap);

		if (((j - home) & m) >= ((j - h) & m)) {
			x->k[h] = x->k[j];
			x->v[h] = x->v[j];
			h = j;
		}
	}
	x->k[h] = 0;
	x->n--;
}

/* ---- the live table ----------------------------------------------------------------- */

static int dead_fit(struct mntsnap_watch *w, uint32_t n)
{
	uint8_t *p;
	uint32_t cap;

	if (n <= w->dead_cap)
		return 0;
	cap = w->dead_cap ? w->dead_cap : 64;
	while (cap < n)
		cap *= 2;
	p = realloc(w->dead, cap);
	if (!p)
		return -ENOMEM;
	memset(p + w->dead_cap, 0, cap - w->dead_cap);
	w->dead = p;
	w->dead_cap = cap;
	return 0;
}

/* Take s as the live table (owned from now on) and index it. */
static int live_set(struct mntsnap_watch *w, struct mntsnap_snapshot *s)
{
	int r;

	free(w->idx.k);
	free(w->idx.v);
	memset(&w->idx, 0, sizeof(w->idx));
	w->live = s;
	w->ndead = 0;
	w->clean = true;
	r = dead_fit(w, s->nrecs + 1);
	if (r)
		return r;
	memset(w->dead, 0, w->dead_cap);
	for (uint32_t i = 0; i < s->nrecs; i++) {
		/* the text route's records have no unique ids: nothing to find */
		if (!s->recs[i].id)
			continue;
		r = idx_put(&w->idx, s->recs[i].id, i);
		if (r)
			return r;
	}
	return 0;
}

static long live_add(struct mntsnap_watch *w, const struct mntsnap_mount *m)
{
	long i;
	int r;

	r = dead_fit(w, w->live->nrecs + 1);
	if (r)
		return r;
	i = mntsnap__snap_add(w->live, m);
	if (i < 0)
		return i;
	r = idx_put(&w->idx, m->id, (uint32_t)i);
	if (r) {
		w->live->nrecs--; /* forget the record: the table stays as it was */
		return r;
	}
	w->dead[i] = 0;
	w->clean = false;
	return i;
}

static void live_kill(struct mntsnap_watch *w, long i)
{
	w->dead[i] = 1;
	w->ndead++;
	idx_del(&w->idx, w->live->recs[i].id);
	w->clean = false;
}

static int retire(struct mntsnap_watch *w, struct mntsnap_snapshot *s)
{
	if (w->nretired == w->retired_cap) {
		size_t cap = w->retired_cap ? w->retired_cap * 2 : 4;
		void *p = realloc(w->retired, cap * sizeof(*w->retired));

		if (!p)
			return -ENOMEM;
		w->retired = p;
		w->retired_cap = cap;
	}
	w->retired[w->nretired++] = s;
	return 0;
}

static void free_retired(struct mntsnap_watch *w)
{
	for (size_t i = 0; i < w->nretired; i++)
		mntsnap__snapshot_free(w->retired[i]);
	w->nretired = 0;
}

struct id_at {
	uint64_t id;
	uint32_t i;
};

static int cmp_id_at(const void *a, const void *b)
{
	uint64_t x = ((const struct id_at *)a)->id, y = ((const struct id_at *)b)->id;

	return x < y ? -1 : x > y;
}

/* Live records in id order (what a capture gives). */
static struct id_at *live_order(const struct mntsnap_watch *w, uint32_t *ret_n)
{
	const struct mntsnap_snapshot *s = w->live;
	struct id_at *o = malloc(((size_t)s->nrecs + 1) * sizeof(*o));
	uint32_t n = 0;
	bool sorted = true;

	if (!o)
		return NULL;
	for (uint32_t i = 0; i < s->nrecs; i++) {
		if (w->dead[i])
			continue;
		o[n] = (struct id_at){.id = s->recs[i].id, .i = i};
		sorted = sorted && (!n || o[n - 1].id < o[n].id);
		n++;
	}
	if (!sorted)
		qsort(o, n, sizeof(*o), cmp_id_at);
	*ret_n = n;
	return o;
}

/* A finished copy of live: no dead records, id order, tree links. */
static int live_copy(const struct mntsnap_watch *w, struct mntsnap_snapshot **ret)
{
	struct mntsnap_snapshot *s = w->live, *n;
	struct id_at *order;
	uint32_t cnt;
	int r = 0;

	order = live_order(w, &cnt);
	n = mntsnap__snap_new(s->backend, s->mask);
	if (!order || !n) {
		free(order);
		mntsnap__snapshot_free(n);
		return -ENOMEM;
	}
	r = mntsnap__snap_reserve(n, cnt, 0);
	for (uint32_t i = 0; i < cnt && r >= 0; i++) {
		struct mntsnap_mount m;

		mntsnap__snapshot_get(s, order[i].i, &m);
		r = (int)mntsnap__snap_add(n, &m);
	}
	free(order);
	if (r >= 0)
		r = mntsnap__snap_finish(n);
	if (r < 0) {
		mntsnap__snapshot_free(n);
		return r;
	}
	n->ns_id = s->ns_id;
	n->consistent = s->consistent;
	n->attempts = s->attempts;
	n->kernel_supported_mask = s->kernel_supported_mask;
	mntsnap__snap_stamp(n);
	*ret = n;
	return 0;
}

/* Rebuild live as a finished snapshot: no dead records, id order, tree links. */
static int live_rebuild(struct mntsnap_watch *w)
{
	struct mntsnap_snapshot *n = NULL;
	int r;

	if (w->clean)
		return 0;
	r = live_copy(w, &n);
	if (!r)
		r = retire(w, w->live);
	if (r) {
		mntsnap__snapshot_free(n);
		return r;
	}
	return live_set(w, n);
}

/* ---- events --------------------------------------------------------------------------- */

/* An event: the record after (ns, ni; none: ni < 0) and before (os, oi). */
static int push_in(struct mntsnap_watch *w, int kind, uint32_t changed, uint64_t id,
		   const struct mntsnap_snapshot *ns, long ni, const struct mntsnap_snapshot *os,
		   long oi)
{
	if (w->nev == w->evcap) {
		size_t cap = w->evcap ? w->evcap * 2 : 64;
		void *p = realloc(w->ev, cap * sizeof(*w->ev));

		if (!p)
			return -ENOMEM;
		w->ev = p;
		w->evcap = cap;
	}
	w->ev[w->nev++] = (struct wev){.kind = kind,
				       .changed = changed,
				       .id = id,
				       .ns = ni >= 0 ? ns : NULL,
				       .ni = ni,
				       .os = os,
				       .oi = oi};
	return 0;
}

/* An event whose record after is live's ni. */
static int push(struct mntsnap_watch *w, int kind, uint32_t changed, uint64_t id, long ni,
		const struct mntsnap_snapshot *os, long oi)
{
	return push_in(w, kind, changed, id, w->live, ni, os, oi);
}

static int kind_of(uint32_t changed)
{
	return changed & (MNTSNAP_CHANGE_MOUNT_POINT | MNTSNAP_CHANGE_PARENT)
		   ? MNTSNAP_WATCH_MOVE
		   : MNTSNAP_WATCH_CHANGE;
}

/* ---- propagate_from from the process's text (pf_text) ---------------------------- */

static int pf_read(struct mntsnap_watch *w)
{
	free(w->pf);
	w->pf = NULL;
	w->npf = 0;
	w->pf_reads++;
	return mntsnap__route_pf_pairs(w->tns, &w->sys, true, 0, &w->pf, &w->npf);
}

/* The text's propagate_from for *pf, by /proc id: absent where it has none. */
static void pf_take(const struct mntsnap_watch *w, uint32_t *mask, uint32_t id_old, uint32_t *pf)
{
	*pf = 0;
	*mask &= ~(uint32_t)MNTSNAP_F_PROPAGATE_FROM;
	if (mntsnap__route_pf_find(w->pf, w->npf, id_old, pf))
		*mask |= MNTSNAP_F_PROPAGATE_FROM;
}

/*
 * A fetched mount's propagate_from from the text, read once per drain
 * when the first mount needs it, and once more for a mount it lacks
 * (mounted after that read). A mount still missing (gone meanwhile) or a
 * text that cannot be read: absent. Only a slave has one (the kernel
 * walks the master chain of slaves alone; statmount's 0 for any other
 * mount is the text's too): a mount made in the namespace itself costs
 * no text, whose read grows with the table (see doc/watching.md).
 */
static int pf_mount(struct mntsnap_watch *w, struct mntsnap_mount *m)
{
	uint32_t pf;
	int r = 0;

	/* propagation came with it: propagate_from asks for MNT_BASIC */
	if (!(m->mask & MNTSNAP_F_PROPAGATE_FROM) || !(m->propagation & MNTSNAP_PROP_SLAVE))
		return 0;
	if (!w->pf_reads ||
	    (w->pf_reads == 1 && !mntsnap__route_pf_find(w->pf, w->npf, m->id_old, &pf)))
		r = pf_read(w);
	if (!r)
		pf_take(w, &m->mask, m->id_old, &m->propagate_from);
	return r;
}

/* Every record of s, a capture made now, from a text read after it. */
static int pf_snap(struct mntsnap_watch *w, struct mntsnap_snapshot *s)
{
	int r = pf_read(w);

	for (uint32_t i = 0; i < s->nrecs && !r; i++)
		if (s->recs[i].mask & MNTSNAP_F_PROPAGATE_FROM)
			pf_take(w, &s->recs[i].mask, s->recs[i].id_old, &s->recs[i].propagate_from);
	if (!r)
		mntsnap__snap_drop_fields(s, w->extra);
	return r;
}

/*
 * statmount(id) in full into w->buf, as a record in *m (strings in w->buf).
 * -EXDEV: a mount outside the reader's root (a chroot()ed caller watching
 * its own table): statmount names no mount point for it (probed on 6.18),
 * its mountinfo has no line for it, so neither has the watched table;
 * one moved out of the root is gone from it.
 */
static int fetch(struct mntsnap_watch *w, uint64_t id, struct mntsnap_mount *m)
{
	long r = mntsnap__sm_call(&w->sys, &w->tmpl, id, w->full_mask, &w->buf);

	if (r < 0)
		return (int)r;
	mntsnap__sm_to_mount(w->buf.sm, w->want, m);
	if ((w->want & MNTSNAP_F_MOUNT_POINT) && !(m->mask & MNTSNAP_F_MOUNT_POINT))
		return -EXDEV;
	if (!(m->mask & MNTSNAP_F_NS_ID) && (w->want & MNTSNAP_F_NS_ID) && w->live->ns_id) {
		m->mask |= MNTSNAP_F_NS_ID;
		m->ns_id = w->live->ns_id;
	}
	if (w->pf_text) {
		r = pf_mount(w, m);
		m->mask &= ~w->extra;
	}
	return (int)r;
}

static int replace(struct mntsnap_watch *w, long k, const struct mntsnap_mount *m,
		   uint32_t *ret_changed);
static int on_detach(struct mntsnap_watch *w, uint64_t id);

/*
 * Every known mount below old_mp (by path) fetched again: a move changes
 * the mount point of the whole subtree, and the kernel (6.18) sends a
 * fanotify event for only some of its mounts (those of a filesystem's
 * root, none for a bind of a subdirectory or a file), while the sweep of
 * the fanotify route does not ask for mount points. A mount that merely
 * shares the path prefix (below a mount stacked where the moved one was)
 * costs a statmount and changes nothing.
 */
static int refetch_below(struct mntsnap_watch *w, const char *old_mp)
{
	size_t n = strlen(old_mp);
	uint32_t nrecs = w->live->nrecs; /* refetched records go past it */
	int r = 0;

	w->refetching = true;
	for (uint32_t k = 0; k < nrecs && !r; k++) {
		struct mntsnap_mount cur, m;

		if (w->dead[k])
			continue;
		mntsnap__snapshot_get(w->live, k, &cur);
		if (strncmp(cur.mount_point, old_mp, n) || cur.mount_point[n] != '/')
			continue;
		r = fetch(w, cur.id, &m);
		if (r == -ENOENT) { /* gone: its detach event or the sweep says so */
			r = 0;
			continue;
		}
		if (r == -EXDEV) { /* moved out of the root with its parent */
			r = on_detach(w, cur.id);
			continue;
		}
		if (!r)
			r = replace(w, k, &m, NULL);
	}
	w->refetching = false;
	return r;
}

/* Record the fetched m for a known mount k: a MOVE/CHANGE event if it
 * differs; a new mount point refetches the mounts below the old one. */
static int replace(struct mntsnap_watch *w, long k, const struct mntsnap_mount *m,
		   uint32_t *ret_changed)
{
	struct mntsnap_mount old;
	char *old_mp = NULL;
	uint32_t changed;
	long ni;
	int r;

	mntsnap__snapshot_get(w->live, (size_t)k, &old);
	changed = mntsnap__diff_changes(&old, m);
	if (ret_changed)
		*ret_changed = changed;
	if (!changed)
		return 0;
	/* a copy: appending may move the string table old points into */
	if ((changed & MNTSNAP_CHANGE_MOUNT_POINT) && !w->refetching && old.mount_point[0]) {
		old_mp = strdup(old.mount_point);
		if (!old_mp)
			return -ENOMEM;
	}
	live_kill(w, k);
	ni = live_add(w, m);
	r = ni < 0 ? (int)ni : push(w, kind_of(changed), changed, m->id, ni, w->live, k);
	if (!r && old_mp)
		r = refetch_below(w, old_mp);
	free(old_mp);
	return r;
}

/* A mount attached (or moved: ATTACH|DETACH, or already known). */
static int on_attach(struct mntsnap_watch *w, uint64_t id)
{
	struct mntsnap_mount m;
	long k = idx_get(&w->idx, id), ni;
	int r = fetch(w, id, &m);

	/* gone again before we looked: its detach event follows */
	if (r == -ENOENT)
		return 0;
	/* outside the root: not in the table, or (moved out) no more */
	if (r == -EXDEV)
		return k >= 0 ? on_detach(w, id) : 0;
	if (r)
		return r;
	if (k >= 0)
		return replace(w, k, &m, NULL);
	ni = live_add(w, &m);
	if (ni < 0)
		return (int)ni;
	return push(w, MNTSNAP_WATCH_MOUNT, 0, id, ni, NULL, -1);
}

static int on_detach(struct mntsnap_watch *w, uint64_t id)
{
	long k = idx_get(&w->idx, id);

	if (k < 0)
		return 0; /* never seen: attached and detached between looks */
	live_kill(w, k);
	return push(w, MNTSNAP_WATCH_UMOUNT, 0, id, -1, w->live, k);
}

/* ---- sweep ----------------------------------------------------------------------------- */

#define SB_LEVEL                                                                                   \
	(MNTSNAP_CHANGE_OPTIONS | MNTSNAP_CHANGE_SOURCE | MNTSNAP_CHANGE_FS_TYPE |                 \
	 MNTSNAP_CHANGE_DEV | MNTSNAP_CHANGE_SB_FLAGS)

struct sweep {
	uint8_t *seen; /* per record that existed when the sweep began */
	uint8_t *sb;   /* per superblock: 0 unchecked, 1 same, 2 changed */
	uint32_t nrecs;
	uint64_t cheap; /* statmount mask of the per-mount check */
};

static int sweep_full(struct mntsnap_watch *w, struct sweep *sw, long k, uint32_t sb)
{
	struct mntsnap_mount m;
	uint32_t changed = 0;
	int r = fetch(w, w->live->recs[k].id, &m);

	/* gone since the listing, or outside the root: not seen, reported below */
	if (r == -ENOENT || r == -EXDEV)
		return 0;
	if (r)
		return r;
	sw->seen[k] = 1;
	r = replace(w, k, &m, &changed);
	if (!sw->sb[sb])
		sw->sb[sb] = changed & SB_LEVEL ? 2 : 1;
	return r;
}

/* A known mount: still the same, or fetched in full and reported. */
static int sweep_one(struct mntsnap_watch *w, struct sweep *sw, long k)
{
	uint32_t sb = w->live->recs[k].sb;
	struct mntsnap_mount old, now;
	long r;

	if (sw->sb[sb] != 1)
		return sweep_full(w, sw, k, sb);
	r = mntsnap__sm_call(&w->sys, &w->tmpl, w->live->recs[k].id, sw->cheap, &w->buf);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return (int)r;
	sw->seen[k] = 1;
	mntsnap__snapshot_get(w->live, (size_t)k, &old);
	/* only the fields the cheap answer carries are compared */
	mntsnap__sm_to_mount(w->buf.sm, w->want, &now);
	if (!mntsnap__diff_changes(&old, &now))
		return 0;
	return sweep_full(w, sw, k, sb);
}

static int sweep_run(struct mntsnap_watch *w, struct sweep *sw, const uint64_t *ids, size_t n)
{
	int r = 0;

	for (size_t i = 0; i < n && !r; i++) {
		long k = idx_get(&w->idx, ids[i]);

		if (k < 0)
			r = on_attach(w, ids[i]);
		else if ((uint32_t)k < sw->nrecs)
			r = sweep_one(w, sw, k);
	}
	for (uint32_t k = 0; k < sw->nrecs && !r; k++)
		if (!w->dead[k] && !sw->seen[k])
			r = on_detach(w, w->live->recs[k].id);
	return r;
}

/*
 * points: ask every mount's mount point too (d_path per mount). The POLLPRI
 * route always does (a move within one parent changes nothing else); a
 * sync does, since a rename of a directory above a mount point changes
 * only that text and the snapshot is to be a fresh capture's equal (the
 * full fetch of a superblock's first mount sees it for that one alone).
 */
static int sweep(struct mntsnap_watch *w, bool points)
{
	struct sweep sw = {.nrecs = w->live->nrecs};
	uint64_t *ids = NULL;
	size_t n = 0;
	int r;

	sw.cheap = MNTSNAP_K_STATMOUNT_MNT_BASIC | MNTSNAP_K_STATMOUNT_SB_BASIC;
	if (points || w->route == MNTSNAP_WATCH_ROUTE_POLLPRI)
		sw.cheap |= MNTSNAP_K_STATMOUNT_MNT_POINT;
	r = mntsnap__sm_list(&w->sys, &w->tmpl, 0, false, &ids, &n);
	if (r)
		return r;
	sw.seen = calloc((size_t)sw.nrecs + 1, 1);
	sw.sb = calloc((size_t)w->live->nsbs + 1, 1);
	r = sw.seen && sw.sb ? sweep_run(w, &sw, ids, n) : -ENOMEM;
	free(ids);
	free(sw.seen);
	free(sw.sb);
	return r;
}

/* ---- resync ---------------------------------------------------------------------------- */

static int capture_now(struct mntsnap_watch *w, struct mntsnap_error *err,
		       struct mntsnap_snapshot **ret)
{
	struct mntsnap_capture_opts o = {
	    .sz = sizeof(o), .mask = w->want, .ns = w->tns, .error = err};
	int r;

	/* the one open file of opts->mountinfo_path: its view, fixed at open */
	if (w->mi_text >= 0) {
		r = mntsnap__mountinfo_capture_fd(w->mi_text, &o, w->want, ret);
	} else if (w->route == MNTSNAP_WATCH_ROUTE_TEXT) {
		/* the text route: the process's mountinfo, what list falls back to */
		o.backend = MNTSNAP_BACKEND_MOUNTINFO;
		r = mntsnap__mountinfo_capture(&o, &w->sys, w->want, ret);
	} else {
		r = mntsnap__capture_consistent(&o, &w->sys, w->ns_route, w->want, ret);
	}

	if (!r && !(*ret)->ns_id && w->tns)
		(*ret)->ns_id = w->tns->ns_id;
	if (!r && w->pf_text) {
		r = pf_snap(w, *ret);
		if (r) {
			mntsnap__snapshot_free(*ret);
			*ret = NULL;
		}
	}
	return r;
}

/*
 * Text tables have no unique ids, so the diff matched mounts by mount
 * point: a moved mount is one removed and one added. libmount's table
 * diff (what findmnt --poll prints) calls that pair a move when the
 * source and the /proc id are the same; so does the text route. part[i]:
 * the entry index of i's partner, or -1.
 */
static int pair_moves(const struct mntsnap_diff *d, const struct mntsnap_snapshot *old,
		      const struct mntsnap_snapshot *fresh, long *part)
{
	size_t n = mntsnap__diff_count(d);

	for (size_t i = 0; i < n; i++)
		part[i] = -1;
	for (size_t i = 0; i < n; i++) {
		struct mntsnap_diff_entry a, b;
		struct mntsnap_mount o, m;

		mntsnap__diff_get(d, i, &a);
		if (a.kind != MNTSNAP_DIFF_REMOVED)
			continue;
		mntsnap__snapshot_get(old, (size_t)a.old_index, &o);
		for (size_t j = 0; j < n; j++) {
			mntsnap__diff_get(d, j, &b);
			if (b.kind != MNTSNAP_DIFF_ADDED || part[j] >= 0)
				continue;
			mntsnap__snapshot_get(fresh, (size_t)b.new_index, &m);
			if (m.id_old == o.id_old && !strcmp(m.source ? m.source : "",
							     o.source ? o.source : "")) {
				part[i] = (long)j;
				part[j] = (long)i;
				break;
			}
		}
	}
	return 0;
}

static int diff_events(struct mntsnap_watch *w, const struct mntsnap_diff *d,
		       const struct mntsnap_snapshot *old, const struct mntsnap_snapshot *fresh)
{
	size_t n = mntsnap__diff_count(d);
	long *part = NULL;
	int r = 0;

	if (w->route == MNTSNAP_WATCH_ROUTE_TEXT) {
		part = malloc((n + 1) * sizeof(*part));
		if (!part)
			return -ENOMEM;
		pair_moves(d, old, fresh, part);
	}
	for (size_t i = 0; i < n && !r; i++) {
		struct mntsnap_diff_entry e;
		uint64_t id;

		mntsnap__diff_get(d, i, &e);
		id = e.new_index >= 0 ? fresh->recs[e.new_index].id : old->recs[e.old_index].id;
		if (part && part[i] >= 0 && e.kind == MNTSNAP_DIFF_ADDED) {
			struct mntsnap_diff_entry p;
			struct mntsnap_mount o, m;

			mntsnap__diff_get(d, (size_t)part[i], &p);
			mntsnap__snapshot_get(old, (size_t)p.old_index, &o);
			mntsnap__snapshot_get(fresh, (size_t)e.new_index, &m);
			r = push_in(w, MNTSNAP_WATCH_MOVE,
				    mntsnap__diff_changes(&o, &m) | MNTSNAP_CHANGE_MOUNT_POINT, id,
				    fresh, e.new_index, old, p.old_index);
		} else if (part && part[i] >= 0) {
			continue; /* the removed half of a move */
		} else if (e.kind == MNTSNAP_DIFF_ADDED) {
			r = push_in(w, MNTSNAP_WATCH_MOUNT, 0, id, fresh, e.new_index, NULL, -1);
		} else if (e.kind == MNTSNAP_DIFF_REMOVED) {
			r = push_in(w, MNTSNAP_WATCH_UMOUNT, 0, id, NULL, -1, old, e.old_index);
		} else {
			r = push_in(w, kind_of(e.changed), e.changed, id, fresh, e.new_index, old,
				    e.old_index);
		}
	}
	free(part);
	return r;
}

/*
 * Capture again and report the differences as events; then RESYNC when
 * mark (events were lost). The text route's every change is this, unmarked.
 */
static int resync(struct mntsnap_watch *w, bool mark)
{
	struct mntsnap_snapshot *fresh = NULL, *old;
	struct mntsnap_diff *d = NULL;
	int r;

	r = live_rebuild(w);
	if (!r)
		r = capture_now(w, NULL, &fresh);
	if (!r)
		r = mntsnap__diff(w->live, fresh, &d);
	if (r)
		goto fail;
	old = w->live;
	r = retire(w, old);
	if (r)
		goto fail;
	r = live_set(w, fresh);
	fresh = NULL;
	if (!r)
		r = diff_events(w, d, old, w->live);
	if (!r && mark)
		r = push(w, MNTSNAP_WATCH_RESYNC, 0, 0, -1, NULL, -1);
fail:
	mntsnap__diff_free(d);
	mntsnap__snapshot_free(fresh);
	w->need_resync = r != 0;
	return r;
}

/* ---- a pid target's view ------------------------------------------------------------------ */

/* The process's view of live now, in *ret. */
static int view_build(struct mntsnap_watch *w, struct mntsnap_snapshot **ret)
{
	struct mntsnap_snapshot *v = NULL;
	int r = live_copy(w, &v);

	if (!r)
		r = mntsnap__route_pid_view(w->tns, &w->sys, v, w->want, NULL);
	if (r) {
		mntsnap__snapshot_free(v);
		return r;
	}
	mntsnap__snap_drop_fields(v, w->extra);
	*ret = v;
	return 0;
}

/*
 * The events queued from index from on are live's: replace them with the
 * changes between the view before and the view now, as the process's
 * mountinfo shows them (a mount moved in from outside its root is a
 * mount, one moved out an umount, one outside nothing); RESYNC stays.
 * The view is built again only after live changed, so a change of the
 * process's root alone (chroot() again) shows with the next mount change.
 */
static int view_update(struct mntsnap_watch *w, size_t from)
{
	struct mntsnap_snapshot *v = NULL, *old = w->view;
	struct mntsnap_diff *d = NULL;
	bool resynced = false;
	int r;

	for (size_t i = from; i < w->nev; i++)
		resynced = resynced || w->ev[i].kind == MNTSNAP_WATCH_RESYNC;
	r = view_build(w, &v);
	if (!r)
		r = mntsnap__diff(old, v, &d);
	/* old stays readable: the events point into it until the next drain */
	if (!r)
		r = retire(w, old);
	if (r) {
		mntsnap__diff_free(d);
		mntsnap__snapshot_free(v);
		return r;
	}
	w->view = v;
	w->nev = from;
	r = diff_events(w, d, old, v);
	if (!r && resynced)
		r = push_in(w, MNTSNAP_WATCH_RESYNC, 0, 0, NULL, -1, NULL, -1);
	mntsnap__diff_free(d);
	return r;
}

/*
 * At setup: a pid target whose root is not its namespace's gets a view;
 * one seen whole takes propagate_from from its text (pf_text); any other
 * drops the fields it would have needed.
 */
static int view_setup(struct mntsnap_watch *w)
{
	/* the text route reads the process's mountinfo: its view already */
	bool pid = mntsnap_ns_has_task(w->tns) && !w->tns->text_only &&
		   w->route != MNTSNAP_WATCH_ROUTE_TEXT;
	uint32_t keep;

	if (pid && !mntsnap__route_pid_whole(w->tns, &w->sys, w->live))
		return view_build(w, &w->view);
	w->pf_text = pid && (w->want & MNTSNAP_F_PROPAGATE_FROM);
	/* its records are matched to the text by /proc id, fetched but not kept */
	keep = w->pf_text ? w->extra & MNTSNAP_F_ID_OLD : 0;
	w->want &= ~(w->extra & ~keep);
	w->full_mask = mntsnap__sm_mask_from_fields(w->want);
	if (w->pf_text) {
		w->extra = keep;
		return pf_snap(w, w->live);
	}
	mntsnap__snap_drop_fields(w->live, w->extra);
	w->extra = 0;
	return 0;
}

/* ---- kernel event sources --------------------------------------------------------------- */

/* Is a latched POLLPRI pending on fd? Also latches. */
static bool pri_fired(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLPRI};

	return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLPRI | POLLERR));
}

static int fan_one(struct mntsnap_watch *w, const struct mntsnap_k_fanotify_event_metadata *e)
{
	const char *p = (const char *)e + e->metadata_len, *end = (const char *)e + e->event_len;

	if (e->mask & MNTSNAP_K_FAN_Q_OVERFLOW) {
		w->need_resync = true;
		return 0;
	}
	while (p + sizeof(struct mntsnap_k_fanotify_event_info_header) <= end) {
		const struct mntsnap_k_fanotify_event_info_mnt *mi = (const void *)p;

		if (mi->hdr.len < sizeof(mi->hdr) || p + mi->hdr.len > end)
			break;
		if (mi->hdr.info_type == MNTSNAP_K_FAN_EVENT_INFO_TYPE_MNT &&
		    mi->hdr.len >= sizeof(*mi)) {
			if (e->mask & MNTSNAP_K_FAN_MNT_ATTACH)
				return on_attach(w, mi->mnt_id);
			return on_detach(w, mi->mnt_id);
		}
		p += mi->hdr.len;
	}
	return 0;
}

/* Read and apply every queued fanotify event; *ret_n counts them. */
static int fan_drain(struct mntsnap_watch *w, size_t *ret_n)
{
	const size_t meta = sizeof(struct mntsnap_k_fanotify_event_metadata);

	*ret_n = 0;
	for (;;) {
		ssize_t len = read(w->fanfd, w->fanbuf, FAN_BUF_SIZE);
		const char *p = w->fanbuf;

		if (len < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		if (!len)
			return 0;
		while ((size_t)len >= meta) {
			const struct mntsnap_k_fanotify_event_metadata *e = (const void *)p;
			int r;

			if (e->event_len < meta || e->event_len > (size_t)len ||
			    e->vers != MNTSNAP_K_FANOTIFY_METADATA_VERSION)
				return -EBADMSG;
			/* after an overflow the rest is moot: a capture follows */
			r = w->need_resync ? 0 : fan_one(w, e);
			if (r)
				return r;
			(*ret_n)++;
			p += e->event_len;
			len -= e->event_len;
		}
	}
}

static void timer_set(struct mntsnap_watch *w, unsigned ms)
{
	struct itimerspec t = {
	    .it_value = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000}};

	if (w->timerfd < 0)
		return;
	timerfd_settime(w->timerfd, 0, &t, NULL);
	w->timer_armed = ms != 0;
}

static bool timer_fired(struct mntsnap_watch *w)
{
	uint64_t n;

	return w->timerfd >= 0 && read(w->timerfd, &n, sizeof(n)) == sizeof(n);
}

/* Empty the epoll readiness the caller saw: level-triggered, it repolls. */
static void ep_reset(struct mntsnap_watch *w)
{
	struct epoll_event ev[8];

	while (epoll_wait(w->epfd, ev, 8, 0) == 8)
		;
}

static int drain_sources(struct mntsnap_watch *w)
{
	size_t nfan = 0;
	bool pri, tick;
	int r = 0;

	if (w->fanfd >= 0)
		r = fan_drain(w, &nfan);
	if (r)
		return r;
	/* after the fanotify read: a POLLPRI now covers everything read */
	pri = pri_fired(w->mi_check);
	tick = timer_fired(w);
	if (w->need_resync) {
		timer_set(w, 0); /* a capture covers a pending settle sweep */
		w->unsettled = false;
		return resync(w, true);
	}
	if (w->route == MNTSNAP_WATCH_ROUTE_TEXT)
		return pri ? resync(w, false) : 0;
	if (w->route == MNTSNAP_WATCH_ROUTE_POLLPRI)
		return pri ? sweep(w, true) : 0;
	if ((pri && !nfan) || tick) {
		timer_set(w, 0);
		w->unsettled = false;
		return sweep(w, false);
	}
	if (pri && (w->flags & MNTSNAP_WATCH_NO_SETTLE))
		w->unsettled = true;
	else if (pri && !w->timer_armed)
		timer_set(w, w->settle_ms);
	return 0;
}

/*
 * A drain that failed part way (even -ENOMEM: what it had read from the
 * fanotify queue is gone) leaves the table in doubt: capture at the next
 * drain, and wake the caller's fd for it, since nothing else may.
 */
static void failed(struct mntsnap_watch *w)
{
	w->need_resync = true;
	timer_set(w, w->settle_ms);
}

int mntsnap_watch_drain(struct mntsnap_watch *w)
{
	int r;

	if (!w)
		return -EINVAL;
	free_retired(w);
	w->nev = w->evpos = 0;
	w->pf_reads = 0; /* what this drain fetches is newer than the last text */
	if (w->ended)
		return -ESRCH;
	ep_reset(w);
	/* bound the garbage: dead records and their strings */
	if (w->ndead > REBUILD_MIN_DEAD && w->ndead > w->live->nrecs / 2) {
		r = live_rebuild(w);
		if (r)
			return r;
	}
	r = drain_sources(w);
	if (!r && w->view && w->nev)
		r = view_update(w, 0);
	/* no process, no root to see the table from: the watch is over */
	if (r == -ESRCH && w->view) {
		w->ended = true;
		w->nev = 0;
		return r;
	}
	if (r)
		failed(w);
	if (!r && mntsnap__ns_check_alive(w->tns) == -ESRCH) {
		w->ended = true;
		if (!w->nev)
			return -ESRCH;
	}
	return r ? r : (int)w->nev;
}

/*
 * Always a sweep after the drain, armed or not: a propagation change
 * sends no event at all (no fanotify record, no POLLPRI), so only a look
 * at every mount makes the snapshot a fresh capture's equal.
 */
int mntsnap_watch_sync(struct mntsnap_watch *w)
{
	int r = mntsnap_watch_drain(w);
	size_t from;

	if (r < 0 || w->need_resync || w->ended)
		return r; /* a resync due next, or no namespace left to look at */
	timer_set(w, 0);
	w->unsettled = false;
	w->pf_reads = 0;
	from = w->nev;
	r = w->route == MNTSNAP_WATCH_ROUTE_TEXT ? resync(w, false) : sweep(w, true);
	/* always: only the process's text shows its propagate_from */
	if (!r && w->view)
		r = view_update(w, from);
	if (r == -ESRCH && w->view) {
		w->ended = true;
		w->nev = from;
		return (int)from;
	}
	if (r) {
		failed(w);
		return r;
	}
	return (int)w->nev;
}

/* ---- reading events ---------------------------------------------------------------------- */

static void get_rec(const struct mntsnap_snapshot *s, long i, struct mntsnap_mount *m)
{
	if (!s || i < 0 || mntsnap__snapshot_get(s, (size_t)i, m))
		memset(m, 0, sizeof(*m));
	else
		m->index = m->parent_index = m->depth = 0;
}

int mntsnap_watch_next(struct mntsnap_watch *w, struct mntsnap_watch_event *ret)
{
	const struct wev *e;

	if (!w || !ret)
		return -EINVAL;
	if (w->evpos >= w->nev)
		return 1;
	e = &w->ev[w->evpos++];
	ret->kind = e->kind;
	ret->changed = e->changed;
	ret->id = e->id;
	get_rec(e->ns, e->ni, &ret->mount);
	get_rec(e->os, e->oi, &ret->old);
	return 0;
}

int mntsnap_watch_snapshot(struct mntsnap_watch *w, const struct mntsnap_snapshot **ret_snap)
{
	int r;

	if (!w || !ret_snap)
		return -EINVAL;
	if (w->view) {
		*ret_snap = w->view;
		return 0;
	}
	r = live_rebuild(w);
	if (r)
		return r;
	*ret_snap = w->live;
	return 0;
}

int mntsnap_watch_fd(const struct mntsnap_watch *w)
{
	return w ? w->epfd : -EINVAL;
}

int mntsnap_watch_route(const struct mntsnap_watch *w)
{
	return w ? w->route : -EINVAL;
}

const char *mntsnap_watch_kind_name(int kind)
{
	static const char *const names[] = {
	    [MNTSNAP_WATCH_MOUNT] = "mount",   [MNTSNAP_WATCH_UMOUNT] = "umount",
	    [MNTSNAP_WATCH_MOVE] = "move",     [MNTSNAP_WATCH_CHANGE] = "remount",
	    [MNTSNAP_WATCH_RESYNC] = "resync",
	};

	return kind > 0 && kind < (int)(sizeof(names) / sizeof(names[0])) ? names[kind] : NULL;
}

/* ---- setup ---------------------------------------------------------------------------------- */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void mntsnap_watch_free(struct mntsnap_watch *w)
{
	if (!w)
		return;
	close_fd(&w->epfd);
	close_fd(&w->fanfd);
	close_fd(&w->mi_wake);
	close_fd(&w->mi_check);
	close_fd(&w->mi_text);
	close_fd(&w->timerfd);
	free_retired(w);
	free(w->retired);
	mntsnap__snapshot_free(w->live);
	mntsnap__snapshot_free(w->view);
	free(w->dead);
	free(w->idx.k);
	free(w->idx.v);
	free(w->ev);
	free(w->fanbuf);
	free(w->pf);
	mntsnap__sm_buf_free(&w->buf);
	free(w);
}

/*
 * A procfs file at path, opened for reading (O_NONBLOCK: harmless on
 * procfs, and no hang on a FIFO before the check); -EINVAL when it is on
 * no procfs: any other file never signals a change, and its text is no
 * live table.
 */
static int procfs_open(const char *path)
{
	struct statfs sf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sf) || sf.f_type != MNTSNAP_PROC_SUPER_MAGIC) {
		close(fd);
		return -EINVAL;
	}
	return mntsnap__fd_move_above_stdio(fd);
}

/*
 * opts->mountinfo_path: the file every capture reads, opened once, since
 * the kernel fixes its view (the task's root, a thread's own) at open;
 * read through one open file, it stays the view of the watch's start, as
 * findmnt --poll, which opens its file once, keeps it. The text route,
 * and ns only for the task's exit.
 */
static int fixed_text_setup(struct mntsnap_watch *w, const struct mntsnap_watch_opts *o)
{
	w->mi_text = procfs_open(o->mountinfo_path);
	if (w->mi_text < 0)
		return mntsnap__set_error(o->error, w->mi_text, 0, "watch: %s: %s",
					 o->mountinfo_path,
					 w->mi_text == -EINVAL ? "not a file of a procfs"
							      : strerror(-w->mi_text));
	w->route = MNTSNAP_WATCH_ROUTE_TEXT;
	if (o->ns && !o->ns->self) {
		w->nsr = *o->ns;
		w->nsr.stack_cache = NULL;
		w->tns = &w->nsr;
	}
	return 0;
}

/*
 * The namespace's mountinfo (path's, when the watch has one), or -1 when
 * there is none (no process to read, no procfs). Only from a procfs
 * root: /proc of the caller's namespace may be anything (a FIFO would
 * block the open, a plain file never signals POLLPRI).
 */
static int open_mountinfo(const struct mntsnap_watch *w, const char *path)
{
	int fd;

	/* the same file again, for its own POLLPRI latch */
	if (path)
		fd = procfs_open(path);
	else if (!w->tns)
		fd = mntsnap__mountinfo_open_own();
	else if (!mntsnap_ns_has_task(w->tns))
		return -1;
	else
		fd = mntsnap__mountinfo_open_pid(w->tns);
	fd = mntsnap__fd_move_above_stdio(fd);
	return fd < 0 ? -1 : fd;
}

/* Decide how to query a foreign namespace: by its fd (6.18+), else by id. */
static int route_target(struct mntsnap_watch *w, const struct mntsnap_ns *ns,
			struct mntsnap_error *err)
{
	static const int routes[] = {MNTSNAP_NS_ROUTE_FD, MNTSNAP_NS_ROUTE_ID};
	int r = mntsnap__ns_check_alive(ns), e = -EOPNOTSUPP;

	if (r)
		return mntsnap__ns_explain(r, "watch", err);
	w->nsr = *ns;
	w->nsr.stack_cache = NULL;
	w->tns = &w->nsr;
	for (size_t i = 0; i < 2; i++) {
		struct mntsnap_k_mnt_id_req req = {0};

		if (routes[i] == MNTSNAP_NS_ROUTE_FD ? ns->nsfd < 0 : !ns->ns_id)
			continue;
		w->ns_route = routes[i];
		mntsnap_ns_fill_req(&w->nsr, w->ns_route, &req);
		e = mntsnap__feature_probe(mntsnap__feature_of_req(&req), &w->sys, &req);
		if (!e)
			return 0;
	}
	/* listmount says ENOENT for "not yours" */
	if (e == -ENOENT && !mntsnap__cap_effective(CAP_SYS_ADMIN_))
		e = -EPERM;
	return mntsnap__ns_explain(e, "watch (direct query of the target namespace)", err);
}

/*
 * route_target() said the namespace cannot be queried directly (no
 * CAP_SYS_ADMIN over its owner, a handle that could not open the
 * namespace at all, a kernel without the request fields): a pid handle
 * still has its process's mountinfo, as list falls back to it. That text
 * is polled (POLLPRI) and read again on every change, the differences
 * being the events. A handle without a process has no text: the error
 * stands, and so does a target that is gone.
 */
static bool text_fallback(const struct mntsnap_ns *ns, int err)
{
	/* -EXDEV: the process's root is out of the caller's reach */
	return mntsnap_ns_has_task(ns) && err != -ESRCH && err != -ENOMEM;
}

/* fanotify mount events on the namespace; false: not available here. */
static bool fan_setup(struct mntsnap_watch *w)
{
	int nsfd = w->tns ? w->tns->nsfd : -1, own = -1;
	bool owned = false;
	long fd, r;

	if (!w->tns)
		nsfd = own = mntsnap__ns_open_own_fd();
	/* an id-only handle: the mark needs an nsfs fd, found by id if we may */
	else if (nsfd < 0 && !mntsnap__ns_enter_fd(w->tns, &nsfd, &owned) && owned)
		own = nsfd;
	if (nsfd < 0)
		return false;
	fd = w->sys.fanotify_init(
	    w->sys.ctx, MNTSNAP_K_FAN_REPORT_MNT | MNTSNAP_K_FAN_CLOEXEC | MNTSNAP_K_FAN_NONBLOCK,
	    0);
	r = fd;
	if (fd >= 0) {
		fd = mntsnap__fd_move_above_stdio((int)fd);
		r = fd < 0
			? fd
			: w->sys.fanotify_mark(w->sys.ctx, (int)fd,
					       MNTSNAP_K_FAN_MARK_ADD | MNTSNAP_K_FAN_MARK_MNTNS,
					       MNTSNAP_K_FAN_MNT_ATTACH | MNTSNAP_K_FAN_MNT_DETACH,
					       nsfd, NULL);
	}
	if (own >= 0)
		close(own);
	if (r < 0) {
		if (fd >= 0)
			close((int)fd);
		return false;
	}
	w->fanbuf = malloc(FAN_BUF_SIZE);
	if (!w->fanbuf) {
		/* no buffer: no fanotify fd either, or drains would read into NULL */
		close((int)fd);
		return false;
	}
	w->fanfd = (int)fd;
	return true;
}

static int ep_add(struct mntsnap_watch *w, int fd, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.fd = fd};

	if (fd < 0)
		return 0;
	return epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* The event sources, before the first capture: nothing after it is lost. */
static int sources_setup(struct mntsnap_watch *w, const char *path)
{
	if (w->route != MNTSNAP_WATCH_ROUTE_TEXT) {
		w->route = MNTSNAP_WATCH_ROUTE_POLLPRI;
		if (!(w->flags & MNTSNAP_WATCH_POLLPRI_ONLY) && fan_setup(w))
			w->route = MNTSNAP_WATCH_ROUTE_FANOTIFY;
	}
	w->mi_wake = open_mountinfo(w, path);
	w->mi_check = open_mountinfo(w, path);
	if (w->route != MNTSNAP_WATCH_ROUTE_FANOTIFY && w->mi_check < 0)
		return -EOPNOTSUPP;
	/* the settle sweep's clock, and the wake-up for a resync after a
	 * failed drain (on every route) */
	w->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	w->timerfd = mntsnap__fd_move_above_stdio(w->timerfd < 0 ? -errno : w->timerfd);
	if (w->timerfd < 0)
		return w->timerfd;
	pri_fired(w->mi_check); /* latch: changes from here on count */
	return 0;
}

/*
 * The fd callers poll, made last: once it exists the first capture is
 * done, so whoever watches this process for it knows that every later
 * change becomes an event.
 */
static int epoll_setup(struct mntsnap_watch *w)
{
	int r;

	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->epfd = mntsnap__fd_move_above_stdio(w->epfd < 0 ? -errno : w->epfd);
	if (w->epfd < 0)
		return w->epfd;
	r = ep_add(w, w->fanfd, EPOLLIN);
	if (!r)
		r = ep_add(w, w->mi_wake, EPOLLPRI);
	if (!r)
		r = ep_add(w, w->timerfd, EPOLLIN);
	if (!r && w->tns)
		r = ep_add(w, w->tns->pidfd, EPOLLIN);
	return r;
}

static int watch_setup(struct mntsnap_watch *w, const struct mntsnap_watch_opts *o,
		       const struct mntsnap_sysops *seam)
{
	struct mntsnap_snapshot *s = NULL;
	int r;

	mntsnap__sys_resolve(seam, &w->sys);
	w->flags = o->flags;
	w->settle_ms = o->settle_ms ? o->settle_ms : DEFAULT_SETTLE_MS;
	w->want = (o->mask ? o->mask & MNTSNAP_F_ALL : MNTSNAP_MASK_DEFAULT) | MNTSNAP_F_ID;
	/* a pid target's view (view_setup()) needs mount points, and /proc
	 * ids to match its text's propagate_from by */
	if (mntsnap_ns_has_task(o->ns) && !o->ns->text_only && !o->mountinfo_path)
		w->extra = (MNTSNAP_F_MOUNT_POINT |
			    (w->want & MNTSNAP_F_PROPAGATE_FROM ? MNTSNAP_F_ID_OLD : 0)) & ~w->want;
	w->want |= w->extra;
	/*
	 * A namespace handle has no process whose text could say what
	 * propagate_from is from the namespace's root, and statmount asked
	 * from here never names one: absent, not a wrong "none".
	 */
	if (o->ns && !o->ns->self && !mntsnap_ns_has_task(o->ns) && !o->mountinfo_path)
		w->want &= ~(uint32_t)MNTSNAP_F_PROPAGATE_FROM;
	w->full_mask = mntsnap__sm_mask_from_fields(w->want);
	if (o->mountinfo_path) {
		r = fixed_text_setup(w, o);
		if (r)
			return r;
	} else if (o->ns && !o->ns->self) {
		r = route_target(w, o->ns, o->error);
		/*
		 * A chroot()ed caller whose root does not reach the process's:
		 * statmount from here names the caller's view; the process's
		 * own text is its view (what findmnt -p -N polls).
		 */
		if (!r && mntsnap_ns_has_task(o->ns) && !o->ns->text_only &&
		    !mntsnap__route_caller_reaches_root(o->ns, &w->sys))
			r = -EXDEV;
		if (r && w->tns && text_fallback(o->ns, r)) {
			w->route = MNTSNAP_WATCH_ROUTE_TEXT;
			if (o->error)
				memset(o->error, 0, sizeof(*o->error));
			r = 0;
		}
		if (r)
			return r;
	} else if (!w->sys.seam && !mntsnap__have_statmount()) {
		/* statmount blocked or missing here: our own mountinfo, as list */
		w->route = MNTSNAP_WATCH_ROUTE_TEXT;
	}
	mntsnap_ns_fill_req(w->tns, w->ns_route, &w->tmpl);
	r = mntsnap__sm_buf_init(&w->buf);
	if (r)
		return r;
	r = sources_setup(w, o->mountinfo_path);
	if (r == -EOPNOTSUPP)
		return mntsnap__set_error(o->error, r, 0,
					 "no way to watch this namespace: no fanotify mount "
					 "events and no process whose mountinfo could be polled");
	if (r)
		return mntsnap__set_error(o->error, r, 0, "watch setup failed: %s", strerror(-r));
	r = capture_now(w, o->error, &s);
	if (r)
		return r;
	r = live_set(w, s);
	if (!r)
		r = view_setup(w);
	if (!r)
		r = epoll_setup(w);
	if (r)
		return mntsnap__set_error(o->error, r, 0, "watch setup failed: %s", strerror(-r));
	return 0;
}

int mntsnap__watch_new_with(const struct mntsnap_watch_opts *opts,
			    const struct mntsnap_sysops *seam, struct mntsnap_watch **ret_watch)
{
	struct mntsnap_watch_opts o = {.sz = sizeof(o)};
	struct mntsnap_watch *w;
	int r;

	if (!ret_watch)
		return -EINVAL;
	r = OPTS_LOAD(&o, opts);
	if (r)
		return r;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->epfd = w->fanfd = w->mi_wake = w->mi_check = w->mi_text = w->timerfd = -1;
	r = watch_setup(w, &o, seam);
	if (r) {
		mntsnap_watch_free(w);
		return r;
	}
	*ret_watch = w;
	return 0;
}

int mntsnap_watch_new(const struct mntsnap_watch_opts *opts, struct mntsnap_watch **ret_watch)
{
	return mntsnap__watch_new_with(opts, NULL, ret_watch);
}

void mntsnap_watch_freep(struct mntsnap_watch **p)
{
	if (p) {
		mntsnap_watch_free(*p);
		*p = NULL;
	}
}
