// SPDX-License-Identifier: MIT
/*
 * mntsnap_refresh() (the capture retries and change detectors it shares
 * are in lib/consistent.c).
 *
 * mntsnap_refresh() brings a statmount snapshot up to date without a full
 * capture: one paginated listmount gives the ids (new mounts have new ids,
 * never reused ones); new mounts get a full statmount; each existing
 * mount gets a statmount of MNTSNAP_K_STATMOUNT_MNT_BASIC | MNTSNAP_K_STATMOUNT_SB_BASIC only
 * - fixed-size fields, no strings, so the kernel formats no paths - which
 * shows a move to another parent, attribute, propagation type, peer group
 * and master changes and superblock flags; only when one of them differs
 * is the mount fetched in full. Superblock options (size=, ...) are
 * checked once per distinct superblock with one full statmount, and
 * every mount of a superblock that changed is refetched, and so is every
 * mount below one whose mount point changed. Not seen by the
 * cheap check: a move that keeps the same parent mount (MS_MOVE from /a/x
 * to /a/y) and a changed propagate_from of an otherwise unchanged slave;
 * use a full capture where those matter. The snapshot is updated in
 * place (unchanged records are not copied; replaced ones leave their
 * strings behind until the next capture) and put back in id order.
 *
 * Cost (tests/bench/bench-refresh, 10,000 binds, 1 change): a syscall is
 * ~2 us on the test VM and a strings-free statmount ~2.3 us against ~3.5
 * us for a full one, so any per-mount check has a floor near half a full
 * capture (measured 0.52). MNTSNAP_CAPTURE_REFRESH_IDS_ONLY skips the
 * per-mount check - one listing plus the new mounts - and costs 0.02 of
 * a full capture; it is right for callers that learn of attribute
 * changes another way (they fire POLLPRI but no fanotify event). Its
 * floor is the listing itself (tests/bench/bench-watch, against a bare
 * listmount of every id): for a few added or removed mounts the tree and
 * indexes are kept up in place (mntsnap__snap_update) instead of rebuilt,
 * and a table that fits one listmount page is vouched for by the
 * atomicity of that one call instead of the detector (ids_only_detector).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends.h"
#include "ns.h"
#include "fields.h"
#include "snapshot.h"
#include "sys-seam.h"

int mntsnap_snapshot_consistent(const struct mntsnap_snapshot *s)
{
	return s ? (s->consistent < 0 ? -1 : s->consistent > 0) : -1;
}

unsigned mntsnap_snapshot_attempts(const struct mntsnap_snapshot *s)
{
	return s ? s->attempts : 0;
}

/* ---- refresh ------------------------------------------------------------------ */

struct refresh {
	const struct mntsnap_sysops *sys;
	struct mntsnap_k_mnt_id_req tmpl;
	struct mntsnap_snapshot *s;
	struct mntsnap_sm_buf buf;
	uint64_t full_mask;
	bool ids_only;
	uint32_t nold;
	uint8_t *sb_state; /* per sb: 0 unchecked, 1 same, 2 changed */
	uint8_t *drop;     /* per old record: 1 = removed or replaced */
	uint64_t *fetch;   /* ids to statmount in full: new and changed */
	uint8_t *fetch_changed; /* per fetch entry: 1 = an existing mount, 2 = one
				 * below a moved one (changed if its path did) */
	uint32_t *fetch_old;	/* per fetch entry of an existing mount: its record */
	size_t nfetch, added, removed, changed;
	size_t vanished;   /* queued mounts gone before their statmount */
	bool one_call;     /* the listing was one atomic listmount call */
};

/*
 * The superblock fields statmount gives, by the table: a field present on
 * one side only, or different, is a change. (Fields read by other means,
 * like the UUID, are not in a statmount answer and are left alone.)
 */
static bool sb_same(const struct mntsnap_mount *a, const struct mntsnap_mount *b)
{
	for (int i = 0; i < MNTSNAP_NFIELDS; i++) {
		const struct mntsnap_field *f = &mntsnap__fields[i];

		if (f->level != MNTSNAP_FL_SB || !f->sm_got)
			continue;
		if (((a->mask ^ b->mask) & f->bit) ||
		    ((a->mask & f->bit) && mntsnap__field_differs(f, a, b)))
			return false;
	}
	return true;
}

/* Superblock options cannot be seen cheaply: one full look per superblock. */
static int check_sb(struct refresh *f, uint32_t k)
{
	uint32_t sb = f->s->recs[k].sb;
	struct mntsnap_mount was, now;
	long r;

	if (f->sb_state[sb])
		return 0;
	r = mntsnap__sm_call(f->sys, &f->tmpl, f->s->recs[k].id, f->full_mask, &f->buf);
	if (r == -ENOENT)
		return 0; /* decide with the next mount of this superblock */
	if (r < 0)
		return (int)r;
	mntsnap__snapshot_get(f->s, k, &was);
	mntsnap__sm_to_mount(f->buf.sm, f->s->mask, &now);
	f->sb_state[sb] = sb_same(&was, &now) ? 1 : 2;
	return 0;
}

/* The fixed-size fields the record has, against a MNT_BASIC|SB_BASIC answer. */
static bool basic_same(const struct mntsnap_k_statmount *sm, const struct mntsnap_rec *r,
		       const struct mntsnap_sb *sb)
{
	uint32_t m = r->mask;

	return sm->mnt_parent_id == r->parent_id &&
	       (!(m & MNTSNAP_F_ATTR) || (uint32_t)sm->mnt_attr == r->attr) &&
	       (!(m & MNTSNAP_F_PROPAGATION) ||
		((uint32_t)sm->mnt_propagation == r->propagation &&
		 (uint32_t)sm->mnt_peer_group == r->peer_group &&
		 (uint32_t)sm->mnt_master == r->master)) &&
	       (!(m & MNTSNAP_F_DEV) ||
		(sm->sb_dev_major == sb->dev_major && sm->sb_dev_minor == sb->dev_minor)) &&
	       (!(m & MNTSNAP_F_SB_FLAGS) || sm->sb_flags == sb->sb_flags);
}

/* An existing mount: keep it, or queue it for a full fetch. */
static int check_one(struct refresh *f, uint32_t k)
{
	const struct mntsnap_rec *r = &f->s->recs[k];
	long e;

	if (f->ids_only)
		return 0;
	e = check_sb(f, k);
	if (e)
		return (int)e;
	if (f->sb_state[r->sb] != 2) {
		e = mntsnap__sm_call(f->sys, &f->tmpl, r->id, MNTSNAP_K_STATMOUNT_MNT_BASIC | MNTSNAP_K_STATMOUNT_SB_BASIC,
				    &f->buf);
		if (e == -ENOENT) {
			f->drop[k] = 1; /* gone since the listing */
			return 0;
		}
		if (e < 0)
			return (int)e;
		if (basic_same(f->buf.sm, r, &f->s->sbs[r->sb]))
			return 0;
	}
	f->drop[k] = 2; /* replaced by its refetched record */
	f->fetch_changed[f->nfetch] = 1;
	f->fetch_old[f->nfetch] = k;
	f->fetch[f->nfetch++] = r->id;
	return 0;
}

/* Pass 1: compare the listing with the records, before anything is added. */
static int classify(struct refresh *f, const uint64_t *ids, size_t n)
{
	uint8_t *seen = calloc((size_t)f->nold + 1, 1);
	int r = 0;

	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; i < n && !r; i++) {
		long k = mntsnap__snapshot_find(f->s, ids[i]);

		if (k < 0) {
			f->fetch_changed[f->nfetch] = 0;
			f->fetch[f->nfetch++] = ids[i];
			continue;
		}
		seen[k] = 1;
		r = check_one(f, (uint32_t)k);
	}
	for (uint32_t k = 0; k < f->nold; k++)
		if (!seen[k])
			f->drop[k] = 1;
	free(seen);
	return r;
}

/*
 * A mount moved to another parent took the mount points of every mount
 * below it along, though nothing the cheap check compares changed for
 * them: queue every kept record below its old mount point (by path; one
 * that only shares the prefix, under a mount stacked at the old place,
 * is fetched for nothing and not counted). At most the listing's ids are
 * ever queued: each kept record once.
 */
static void queue_below(struct refresh *f, const char *old_mp)
{
	size_t n = strlen(old_mp);

	for (uint32_t k = 0; k < f->nold; k++) {
		struct mntsnap_mount o;

		if (f->drop[k])
			continue;
		mntsnap__snapshot_get(f->s, k, &o);
		if (strncmp(o.mount_point, old_mp, n) || o.mount_point[n] != '/')
			continue;
		f->drop[k] = 2;
		f->fetch_changed[f->nfetch] = 2;
		f->fetch_old[f->nfetch] = k;
		f->fetch[f->nfetch++] = o.id;
	}
}

/* An existing mount fetched again: 1 if it is to be counted as changed. */
static int refetched(struct refresh *f, size_t i, const struct mntsnap_mount *m)
{
	struct mntsnap_mount was;
	bool moved;

	if (!(f->s->mask & MNTSNAP_F_MOUNT_POINT))
		return f->fetch_changed[i] == 1;
	/* before the record is appended: was's strings stay where they are */
	mntsnap__snapshot_get(f->s, f->fetch_old[i], &was);
	moved = strcmp(was.mount_point, m->mount_point) != 0;
	/* a mount queued below a moved one is below its prefix already: no
	 * scan per mount of a moved subtree */
	if (moved && f->fetch_changed[i] == 1 && was.mount_point[0])
		queue_below(f, was.mount_point);
	return f->fetch_changed[i] == 1 || moved;
}

/* Pass 2: fetch new and changed mounts, appended after the old records. */
static int fetch_queued(struct refresh *f)
{
	for (size_t i = 0; i < f->nfetch; i++) {
		struct mntsnap_mount m;
		long r = mntsnap__sm_call(f->sys, &f->tmpl, f->fetch[i], f->full_mask, &f->buf);
		int counted = 0;

		if (r == -ENOENT) { /* gone meanwhile */
			f->vanished++;
			f->removed += f->fetch_changed[i] != 0;
			continue;
		}
		if (r < 0)
			return (int)r;
		mntsnap__sm_to_mount(f->buf.sm, f->s->mask, &m);
		if (f->fetch_changed[i])
			counted = refetched(f, i, &m);
		r = mntsnap__snap_add(f->s, &m);
		if (r < 0)
			return (int)r;
		if (f->fetch_changed[i])
			f->changed += (size_t)counted;
		else
			f->added++;
	}
	/* the fields statmount does not give, for the records just added */
	return mntsnap__snap_read_uuids(f->s, AT_FDCWD, AT_FDCWD, f->nold);
}

static int cmp_rec_id(const void *a, const void *b)
{
	const struct mntsnap_rec *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * A copy of the old records, taken before they are rearranged: the last
 * step, indexing the result, can fail with -ENOMEM, and mntsnap__snap_finish
 * then keeps the old indexes, under which these go back (finish_or_restore).
 * NULL (-ENOMEM) forgets what was appended, which leaves it unchanged.
 */
static struct mntsnap_rec *save_old(struct refresh *f)
{
	struct mntsnap_rec *saved = malloc((size_t)f->nold * sizeof(*saved) + 1);

	if (saved)
		memcpy(saved, f->s->recs, (size_t)f->nold * sizeof(*saved));
	else
		f->s->nrecs = f->nold;
	return saved;
}

static int finish_or_restore(struct refresh *f, struct mntsnap_rec *saved)
{
	int r = mntsnap__snap_finish(f->s);

	if (r == -ENOMEM) {
		memcpy(f->s->recs, saved, (size_t)f->nold * sizeof(*saved));
		f->s->nrecs = f->nold;
	}
	free(saved);
	return r;
}

/* Drop removed/replaced records, restore kernel (ascending id) order. */
static int compact(struct refresh *f)
{
	struct mntsnap_snapshot *s = f->s;
	struct mntsnap_rec *saved = save_old(f);
	uint32_t j = 0;

	if (!saved)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nrecs; i++) {
		if (i < f->nold && f->drop[i]) {
			/* 2: replaced by its refetched record, counted then */
			f->removed += f->drop[i] == 1;
			continue;
		}
		s->recs[j++] = s->recs[i];
	}
	s->nrecs = j;
	qsort(s->recs, s->nrecs, sizeof(*s->recs), cmp_rec_id);
	return finish_or_restore(f, saved);
}

/*
 * Close the gaps of dropped records in place and put the appended new ones
 * where their ids go: usually after every kept one (ids only grow), so
 * nothing moves; else each is shifted down to its place.
 */
static int merge_appended(struct refresh *f)
{
	struct mntsnap_snapshot *s = f->s;
	struct mntsnap_rec *r = s->recs, *saved;
	uint32_t j = 0, first_new;
	int e;

	/* a few changes: indexes and tree kept up in place, no rebuild */
	e = mntsnap__snap_update(s, f->nold, f->drop);
	if (e < 0)
		s->nrecs = f->nold; /* it touched nothing: forget what was appended */
	if (e)
		return e < 0 ? e : 0;
	saved = save_old(f);
	if (!saved)
		return -ENOMEM;
	for (uint32_t k = 0; k < f->nold; k++)
		if (!f->drop[k])
			r[j++] = r[k];
	first_new = j;
	for (uint32_t a = f->nold; a < s->nrecs; a++)
		r[j++] = r[a];
	s->nrecs = j;
	for (uint32_t i = first_new; i < j; i++) {
		struct mntsnap_rec x = r[i];
		uint32_t p = i;

		for (; p > 0 && r[p - 1].id > x.id; p--)
			r[p] = r[p - 1];
		r[p] = x;
	}
	return finish_or_restore(f, saved);
}

/*
 * MNTSNAP_CAPTURE_REFRESH_IDS_ONLY as one merge walk: the listing comes in
 * ascending id order, and so do the records of a snapshot whose storage
 * is id-sorted (by_id is NULL exactly then). New and removed mounts fall
 * out of a single pass, with no lookup per id; an unchanged table is left
 * as it is (no sort, no index rebuilt); a changed one gets its few new
 * records fetched and merged in instead of sorting everything.
 */
static int ids_only_merge(struct refresh *f, const uint64_t *ids, size_t n)
{
	const struct mntsnap_rec *recs = f->s->recs;
	size_t i = 0, dropped = 0;
	uint32_t k = 0;
	int r;

	while (i < n || k < f->nold) {
		if (k >= f->nold || (i < n && ids[i] < recs[k].id)) {
			f->fetch_changed[f->nfetch] = 0;
			f->fetch[f->nfetch++] = ids[i++];
		} else if (i >= n || recs[k].id < ids[i]) {
			f->drop[k++] = 1;
			dropped++;
		} else {
			i++;
			k++;
		}
	}
	if (!f->nfetch && !dropped)
		return 0;
	/* room for exactly the new records: no doubling, nothing to trim */
	r = f->nfetch < UINT32_MAX ? mntsnap__snap_reserve(f->s, (uint32_t)f->nfetch, 0)
				   : -EOVERFLOW;
	if (!r)
		r = mntsnap__sm_buf_init(&f->buf);
	if (!r)
		r = fetch_queued(f);
	mntsnap__sm_buf_free(&f->buf);
	if (r) {
		f->s->nrecs = f->nold; /* forget what was appended: unchanged */
		return r;
	}
	f->removed += dropped;
	return merge_appended(f);
}

static int refresh_run(struct refresh *f, const struct mntsnap_capture_opts *o)
{
	uint64_t *ids = NULL;
	size_t n = 0;
	int r;

	mntsnap_ns_fill_req(o->ns, MNTSNAP_NS_ROUTE_AUTO, &f->tmpl);
	r = mntsnap__sm_list_once(f->sys, &f->tmpl, 0, false, &ids, &n, &f->one_call);
	if (r)
		return r;
	f->fetch = malloc((n + 1) * sizeof(*f->fetch));
	f->fetch_changed = malloc(n + 1);
	f->fetch_old = malloc((n + 1) * sizeof(*f->fetch_old));
	if (f->ids_only && !f->s->by_id && f->fetch && f->fetch_changed) {
		r = ids_only_merge(f, ids, n);
		free(ids);
		return r;
	}
	r = f->fetch && f->fetch_changed && f->fetch_old ? mntsnap__sm_buf_init(&f->buf) : -ENOMEM;
	if (!r)
		r = classify(f, ids, n);
	free(ids);
	if (!r)
		r = fetch_queued(f);
	mntsnap__sm_buf_free(&f->buf);
	if (r) {
		f->s->nrecs = f->nold; /* forget what was appended: unchanged */
		return r;
	}
	return compact(f);
}

/*
 * An ids-only refresh of a table that fits one listmount page needs no
 * POLLPRI detector, whose checked open of the namespace's mountinfo is 7
 * of the 9 syscalls it costs (~20 us on the test VM, half of listing
 * 1,000 ids): the kernel walks the whole table for one listmount call
 * under the namespace lock (read-held from the first id to the last), so
 * a call that returned fewer ids than asked listed a set that existed at
 * one moment. The records of the new mounts are each one statmount after
 * that moment, and the kept ones are not read at all in this mode, so the
 * detector could not vouch for more than the id set anyway. Half a page
 * leaves room for the table to grow before a refresh needs more pages.
 */
static bool ids_only_detector(const struct refresh *f)
{
	return !f->ids_only || f->nold >= MNTSNAP_SM_LIST_PAGE / 2;
}

static int refresh_consistent(const struct refresh *f, int det)
{
	if (ids_only_detector(f))
		return det < 0 ? -1 : !mntsnap__detector_fired(det);
	/* more than one page without a detector: not known to be one moment */
	return f->one_call && !f->vanished;
}

int mntsnap__refresh_sys(struct mntsnap_snapshot *snap, const struct mntsnap_capture_opts *opts,
			 const struct mntsnap_sysops *seam)
{
	struct mntsnap_capture_opts o = { .sz = sizeof(o) };
	struct mntsnap_sysops sys;
	struct refresh f = { 0 };
	int det, r;

	if (!snap)
		return -EINVAL;
	r = OPTS_LOAD_ERR(&o, opts, "mntsnap_capture_opts");
	if (r)
		return r;
	/* matching needs unique ids; a mountinfo snapshot has none */
	if (snap->nrecs && !(snap->recs[0].mask & MNTSNAP_F_ID))
		return mntsnap__set_error(o.error, -EINVAL, 0,
					 "refresh needs a snapshot with unique mount ids");
	if (mntsnap_ns_foreign(o.ns))
		return mntsnap__set_error(o.error, -EOPNOTSUPP, 0,
					 "refresh of a foreign namespace: capture instead");
	mntsnap__sys_resolve(seam, &sys);
	/* views handed out before stay valid: strings are only appended */
	snap->keep_strings = true;
	f.sys = &sys;
	f.s = snap;
	f.nold = snap->nrecs;
	f.ids_only = o.flags & MNTSNAP_CAPTURE_REFRESH_IDS_ONLY;
	f.full_mask = mntsnap__sm_mask_from_fields(snap->mask | MNTSNAP_F_ID);
	f.sb_state = calloc((size_t)snap->nsbs + 1, 1);
	f.drop = calloc((size_t)snap->nrecs + 1, 1);
	if (!f.sb_state || !f.drop) {
		r = -ENOMEM;
		goto out;
	}
	det = ids_only_detector(&f) ? mntsnap__detector_open(o.ns) : -1;
	mntsnap__detector_fired(det);
	r = refresh_run(&f, &o);
	if (!r) {
		snap->consistent = refresh_consistent(&f, det);
		snap->attempts = 1;
		mntsnap__snap_stamp(snap);
		r = (int)(f.added + f.removed + f.changed);
	}
	if (det >= 0)
		close(det);
out:
	free(f.sb_state);
	free(f.drop);
	free(f.fetch);
	free(f.fetch_changed);
	free(f.fetch_old);
	if (r < 0)
		mntsnap__set_error(o.error, r, 0, "refresh failed: %s", strerror(-r));
	return r;
}

int mntsnap_refresh_with(struct mntsnap_snapshot *snap, const struct mntsnap_capture_opts *opts)
{
	return mntsnap__refresh_sys(snap, opts, NULL);
}

int mntsnap_refresh(struct mntsnap_snapshot *snap)
{
	return mntsnap_refresh_with(snap, NULL);
}
