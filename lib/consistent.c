// SPDX-License-Identifier: MIT
/*
 * Consistency of a statmount capture: the change detectors and retries.
 *
 * The kernel does not make a walk of the mount table atomic: each
 * listmount/statmount call is consistent on its own, a sequence is not
 * (the kernel promises nothing across calls). A statmount capture is therefore checked by
 * four detectors and retried (opts->max_retries, default 3) until none
 * fires:
 *  1. POLLPRI on an fd of the namespace's mountinfo opened before the
 *     capture and latched right before it: the kernel bumps the
 *     namespace's event counter on every mount, umount, move, remount
 *     and attribute change made in that namespace (or propagated into it);
 *  2. a mount vanished between listmount and statmount (ENOENT);
 *  3. a listmount after the capture disagrees with the ids captured (only
 *     where there is no mountinfo fd to poll: with one, every mount and
 *     umount already fires 1, and the extra walk would cost a listing);
 *  4. a record's parent is missing (more than the one top mount whose
 *     parent lies outside the table).
 * When every try raced, the last capture is returned marked inconsistent,
 * or with MNTSNAP_CAPTURE_CONSISTENT the call fails with -EAGAIN.
 * What they cannot see (probed on 6.18): a change of
 * propagation type alone (MS_SHARED/MS_PRIVATE/MS_SLAVE bumps no counter,
 * adds or removes no mount), and a superblock remount (e.g. size=) done
 * from another namespace that shares the superblock. For those,
 * MNTSNAP_CAPTURE_STRICT takes captures until two successive ones agree
 * field by field (mntsnap_diff): a change that lands between the two is
 * caught, one that lands and is undone within a capture is not. Only
 * freezing every writer (and every mount that propagates in) closes that.
 * For a foreign namespace reached by id or nsfs fd without a process,
 * there is no mountinfo file to poll: detectors 2-4 (and STRICT) remain.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "backends.h"
#include "diff.h"
#include "target.h"
#include "snapshot.h"

#define DEFAULT_RETRIES 3

/* ---- change detector ------------------------------------------------------- */

/*
 * An fd of the target namespace's mountinfo, or < 0 when there is none to
 * poll (a namespace known only by id or nsfs fd).
 */
int mntsnap__detector_open(const struct mntsnap_ns *ns)
{
	if (ns && ns->inside) /* a helper: never the target's /proc */
		return mntsnap__mountinfo_open_inside(ns);
	if (!ns || ns->self) /* from a procfs only: see mntsnap__mountinfo_open_own */
		return mntsnap__mountinfo_open_own();
	if (!mntsnap_ns_has_task(ns))
		return -1;
	/* the handle's process, its pid reused or the namespace left: none */
	return mntsnap__mountinfo_open_pid(ns);
}

/* Did the namespace change since the last call? Also latches. */
bool mntsnap__detector_fired(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };
	int r;

	if (fd < 0)
		return false;
	/* a pending signal fails even a zero-timeout poll: that is no answer */
	do
		r = poll(&p, 1, 0);
	while (r < 0 && errno == EINTR);
	return r > 0 && (p.revents & (POLLPRI | POLLERR));
}

/* ---- structural checks ------------------------------------------------------- */

/*
 * Is parent_id a mount outside the caller's root? listmount lists only
 * the mounts that root reaches (is_path_reachable() against it): in a
 * chroot every mount whose parent it does not reach is a top of the
 * table, as in the caller's mountinfo. statmount still answers for such
 * a parent, without a mount point (probed on 6.18); a parent that
 * vanished answers ENOENT.
 */
static bool parent_outside_root(const struct mntsnap_capture_opts *o,
				const struct mntsnap_sysops *sys, int route, uint64_t parent_id)
{
	struct mntsnap_snapshot *p = NULL;
	bool outside;

	if (mntsnap__sm_stat_one(sys, o->ns, route, parent_id, MNTSNAP_F_MOUNT_POINT, &p))
		return false;
	outside = p->nrecs == 1 && !(p->recs[0].mask & MNTSNAP_F_MOUNT_POINT);
	mntsnap__snapshot_free(p);
	return outside;
}

/* One top mount whose parent is missing, and any whose parent is outside the root. */
static bool parents_ok(const struct mntsnap_capture_opts *o, const struct mntsnap_sysops *sys,
		       int route, const struct mntsnap_snapshot *s)
{
	unsigned orphans = 0;

	for (uint32_t i = 0; i < s->nrecs; i++) {
		const struct mntsnap_rec *r = &s->recs[i];

		if (!(r->mask & MNTSNAP_F_ID))
			return true; /* nothing to check by */
		if (r->parent == i && r->parent_id != r->id &&
		    (!orphans || !parent_outside_root(o, sys, route, r->parent_id)))
			orphans++;
	}
	return orphans <= 1;
}

/* Does a fresh listmount name exactly the mounts captured? */
static int ids_still_match(const struct mntsnap_capture_opts *o,
			   const struct mntsnap_sysops *sys, int route, const struct mntsnap_snapshot *s,
			   bool *ret_match)
{
	struct mntsnap_k_mnt_id_req tmpl = { 0 };
	uint64_t *ids = NULL;
	size_t n = 0;
	int r;

	*ret_match = true;
	if (!s->nrecs || !(s->recs[0].mask & MNTSNAP_F_ID))
		return 0;
	mntsnap_ns_fill_req(o->ns, route, &tmpl);
	r = mntsnap__sm_list(sys, &tmpl, o->under_id, false, &ids, &n);
	if (r)
		return r;
	/* the subtree root is captured but not listed */
	if (n + (o->under_id ? 1 : 0) != s->nrecs)
		*ret_match = false;
	for (size_t i = 0; i < n && *ret_match; i++)
		if (mntsnap__snapshot_find(s, ids[i]) < 0)
			*ret_match = false;
	free(ids);
	return 0;
}

static bool same_tables(const struct mntsnap_snapshot *a, const struct mntsnap_snapshot *b,
			int *err)
{
	struct mntsnap_diff *d = NULL;
	bool same;

	*err = mntsnap__diff(a, b, &d);
	same = !*err && !mntsnap__diff_count(d);
	mntsnap__diff_free(d);
	return same;
}

/* One capture and every detector: 1 consistent, 0 raced, < 0 error. */
static int attempt(const struct mntsnap_capture_opts *o, const struct mntsnap_sysops *sys,
		   int route, uint32_t want, int det, struct mntsnap_snapshot **ret)
{
	size_t vanished = 0;
	bool match;
	int r;

	mntsnap__detector_fired(det); /* latch: only changes from here on count */
	r = mntsnap__statmount_capture(o, sys, route, want, ret, &vanished);
	if (r)
		return r;
	match = true;
	if (det < 0)
		r = ids_still_match(o, sys, route, *ret, &match);
	if (r) {
		mntsnap__snapshot_free(*ret);
		*ret = NULL;
		return r;
	}
	/* evaluate every detector: each also latches or checks state */
	r = !mntsnap__detector_fired(det);
	return r && !vanished && match && parents_ok(o, sys, route, *ret);
}

int mntsnap__capture_consistent(const struct mntsnap_capture_opts *o,
			       const struct mntsnap_sysops *sys, int route, uint32_t want,
			       struct mntsnap_snapshot **ret_snap)
{
	unsigned max = (o->max_retries ? o->max_retries : DEFAULT_RETRIES) + 1;
	bool strict = o->flags & MNTSNAP_CAPTURE_STRICT;
	struct mntsnap_snapshot *s = NULL, *prev = NULL;
	int det = mntsnap__detector_open(o->ns), r = 0, err;
	unsigned n;

	/* strict needs two agreeing captures: one more try than retries */
	if (strict)
		max++;
	for (n = 1; n <= max; n++) {
		mntsnap__snapshot_free(s);
		s = NULL;
		r = attempt(o, sys, route, want, det, &s);
		if (r < 0)
			break;
		if (!r) { /* raced: a strict pair must start over */
			mntsnap__snapshot_free(prev);
			prev = NULL;
			continue;
		}
		if (!strict)
			break;
		if (prev) {
			if (same_tables(prev, s, &err))
				break;
			if (err) {
				r = err;
				break;
			}
		}
		mntsnap__snapshot_free(prev);
		prev = s;
		s = NULL;
		r = 0;
	}
	if (det >= 0)
		close(det);
	if (r < 0) {
		mntsnap__snapshot_free(prev);
		mntsnap__snapshot_free(s);
		return r;
	}
	if (!s) { /* strict, ended on a capture no later one agreed with */
		s = prev;
		r = 0;
	} else {
		mntsnap__snapshot_free(prev);
	}
	/*
	 * Only MNTSNAP_CAPTURE_CONSISTENT turns "still changing" into an
	 * error; STRICT alone returns the last capture marked inconsistent,
	 * like the detectors do.
	 */
	if (!r && (o->flags & MNTSNAP_CAPTURE_CONSISTENT)) {
		mntsnap__snapshot_free(s);
		return mntsnap__set_error(o->error, -EAGAIN, 0,
					 strict ? "no two successive captures agreed in %u tries"
						: "the mount table kept changing during %u captures",
					 max);
	}
	s->consistent = r ? 1 : 0;
	s->attempts = n > max ? max : n;
	*ret_snap = s;
	return 0;
}

