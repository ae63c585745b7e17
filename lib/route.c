// SPDX-License-Identifier: MIT
/*
 * The router: the one place that decides how a foreign namespace is
 * reached, for a capture and for one mount (stat_id, stat_path): a direct
 * query by its nsfs fd, else by its id, else a helper that enters it,
 * else (no right to enter, a pid handle) the process's mountinfo text.
 * The decision goes down to the sources as a value (MNTSNAP_NS_ROUTE_*);
 * nothing here calls the public API again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends.h"
#include "kernel-features.h"
#include "ns.h"
#include "proc.h"
#include "route.h"
#include "snapshot.h"
#include "sys-seam.h"

#define CAP_SYS_ADMIN_ 21

/* ---- capture routing ------------------------------------------------------ */

/* A pid handle's process has exited since the handle was opened. */
static int handle_gone(struct mntsnap_error *ret)
{
	return mntsnap__set_error(ret, -ESRCH, 0,
				 "capture: the target process has exited since its handle "
				 "was opened");
}

/* One listmount of one id through the route: does it work here? */
static int probe_route(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys, int route)
{
	struct mntsnap_k_mnt_id_req req = { 0 };

	mntsnap_ns_fill_req(ns, route, &req);
	return mntsnap__feature_probe(mntsnap__feature_of_req(&req), sys, &req);
}

/* The sources, through the route decided here, with backend. */
static int capture_routed(const struct mntsnap_capture_opts *o, const struct mntsnap_sysops *sys,
			  int route, int backend, struct mntsnap_snapshot **ret)
{
	struct mntsnap_capture_opts c = *o;

	c.backend = backend;
	return mntsnap__capture_source(&c, sys, route, ret);
}

static int direct_error(const struct mntsnap_ns *ns, int err, struct mntsnap_error *ret)
{
	static const char op[] = "direct query of the target namespace";
	char why[200];

	/* listmount says ENOENT for "not yours"; statmount says EPERM */
	if (err == -ENOENT && ns->nsfd < 0 && !mntsnap__cap_effective(CAP_SYS_ADMIN_))
		err = -EPERM;
	if ((err == -EPERM || err == -ENOENT) && ns->nsfd >= 0) {
		mntsnap__ns_owner_why(ns->nsfd, why, sizeof(why));
		if (why[0])
			return mntsnap__set_error(ret, err, 0, "%s: %s: %s", op, strerror(-err),
						 why);
	}
	return mntsnap__ns_explain(err, op, ret);
}

/*
 * Probe rather than trust a kernel version: mnt_ns_fd is rejected with
 * EINVAL before 6.18 (it was a spare field), an id query without
 * CAP_SYS_ADMIN over the owner user namespace gives ENOENT (listmount) or
 * EPERM (statmount). Each probe is one listmount of one id (< 1 us), far
 * less than a capture; the answer is not cached because permissions are
 * per thread and change (a caller may drop capabilities).
 */
static int ns_capture(const struct mntsnap_capture_opts *o, const struct mntsnap_sysops *sys,
		      struct mntsnap_snapshot **ret_snap, bool *ret_outside)
{
	const struct mntsnap_ns *ns = o->ns;
	int r, direct = -EOPNOTSUPP;

	*ret_outside = false;

	r = mntsnap__ns_check_alive(ns);
	if (r == -ESRCH)
		return handle_gone(o->error);
	if (r)
		return mntsnap__ns_explain(r, "capture", o->error);
	if (o->backend == MNTSNAP_BACKEND_MOUNTINFO)
		return capture_routed(o, sys, MNTSNAP_NS_ROUTE_TEXT, o->backend, ret_snap);
	if (ns->text_only) {
		if (o->backend == MNTSNAP_BACKEND_AUTO &&
		    !(o->flags & (MNTSNAP_CAPTURE_NS_ENTER | MNTSNAP_CAPTURE_NS_DIRECT)))
			return capture_routed(o, sys, MNTSNAP_NS_ROUTE_TEXT,
					      MNTSNAP_BACKEND_MOUNTINFO, ret_snap);
		return mntsnap__set_error(o->error, -EACCES, 0,
					 "the caller may read the process's mountinfo text but "
					 "not open its mount namespace (that needs ptrace "
					 "access: the same uid, or CAP_SYS_PTRACE): only the "
					 "mountinfo backend can read it");
	}
	if (!(o->flags & MNTSNAP_CAPTURE_NS_ENTER)) {
		if (ns->nsfd >= 0) {
			direct = probe_route(ns, sys, MNTSNAP_NS_ROUTE_FD);
			*ret_outside = !direct;
			if (!direct)
				return capture_routed(o, sys, MNTSNAP_NS_ROUTE_FD, o->backend,
						      ret_snap);
		}
		if (ns->ns_id) {
			direct = probe_route(ns, sys, MNTSNAP_NS_ROUTE_ID);
			*ret_outside = !direct;
			if (!direct)
				return capture_routed(o, sys, MNTSNAP_NS_ROUTE_ID, o->backend,
						      ret_snap);
		}
		if (o->flags & MNTSNAP_CAPTURE_NS_DIRECT)
			return direct_error(ns, direct, o->error);
	}
	r = mntsnap__helper_capture(ns, o, sys, ret_snap);
	/* no right to enter: a pid handle may still read the process's text */
	if ((r == -EPERM || r == -EACCES) && mntsnap_ns_has_task(ns) &&
	    o->backend == MNTSNAP_BACKEND_AUTO && !(o->flags & MNTSNAP_CAPTURE_NS_ENTER))
		return capture_routed(o, sys, MNTSNAP_NS_ROUTE_TEXT, MNTSNAP_BACKEND_MOUNTINFO,
				      ret_snap);
	return r;
}

#define STATX_NLINK_ 0x4U
#define STATX_ATTR_MOUNT_ROOT_ 0x2000ULL
#define AT_EMPTY_PATH_ 0x1000

/*
 * readlink of a root whose directory was removed ends in " (deleted)"
 * (d_path()). Removing a directory detaches every mount on or below it,
 * in every namespace, so such a root reaches a mount only when it is
 * that mount's own root (a bind mount of the removed directory), and
 * then readlink names the mount's mount point: left in buf. Any other
 * removed root reaches none, and show_mountinfo() prints nothing:
 * -EXDEV. A directory merely named so still has links; -ENOENT where
 * statx cannot tell.
 */
static int removed_root(const struct mntsnap_sysops *sys, int fd, char *buf)
{
	static const char tail[] = " (deleted)";
	size_t n = strlen(buf), t = sizeof(tail) - 1;
	struct mntsnap_statx stx;
	long r;

	if (n <= t || strcmp(buf + n - t, tail))
		return 0;
	memset(&stx, 0, sizeof(stx));
	r = sys->statx(sys->ctx, fd, "", AT_EMPTY_PATH_, STATX_NLINK_, &stx);
	if (r < 0)
		return (int)r;
	if (!(stx.stx_mask & STATX_NLINK_) || !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT_))
		return -ENOENT;
	if (stx.stx_nlink)
		return 0;
	if (!(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT_))
		return -EXDEV;
	buf[n - t] = '\0';
	return 0;
}

/*
 * Is mount id gone from the namespace (lazily unmounted, or never one of
 * its mounts)? Only the kernel can say: a capture taken from a reader
 * chroot()ed into a plain directory lacks the mounts its root does not
 * reach, the one that directory lies on too. statmount() answers ENOENT
 * for a mount not in the namespace whatever the caller's root; any other
 * answer (the mount, EPERM for an unprivileged reader, a blocked call)
 * says nothing.
 */
static bool mount_gone(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys, uint64_t id)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER1, .mnt_id = id,
					    .mnt_ns_id = ns ? ns->ns_id : 0 };
	struct mntsnap_k_statmount sm;

	return sys->statmount(sys->ctx, &req, &sm, sizeof(sm), 0) == -ENOENT;
}

/*
 * The root of a pid handle's process: the unique id of the mount it is on
 * and its path in the coordinates of the capture's mount points.
 * readlink of /proc/PID/root gives the path from the reader's root, or
 * from the root of the process's own namespace when that is not
 * reachable from the reader (a foreign namespace), which is where the
 * mount points of a direct query and of a helper inside start too.
 * -EXDEV: a removed directory that reaches no mount (removed_root()).
 * A root on a mount its namespace no longer has (lazily unmounted)
 * reaches none either; that only a table of the namespace tells.
 */
static int process_root(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			uint64_t *ret_id, char *buf, size_t len)
{
	int dir, fd, r;
	ssize_t n;

	/* PID/root of the procfs the pid was read from, never of a cover */
	dir = mntsnap__task_dir(ns->pidfd, ns->piddir);
	if (dir < 0)
		return dir;
	fd = openat(dir, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	r = fd < 0 ? -errno : mntsnap__fd_to_id(sys, fd, ret_id);
	n = r ? 0 : readlinkat(dir, "root", buf, len - 1);
	if (n < 0)
		r = -errno;
	close(dir);
	if (!r && (size_t)n >= len - 1)
		r = -ENAMETOOLONG;
	if (!r) {
		buf[n] = '\0';
		r = buf[0] == '/' ? removed_root(sys, fd, buf) : -ENOENT;
	}
	if (fd >= 0)
		close(fd);
	if (r)
		return r;
	return mntsnap__task_exited(ns->pidfd, ns->piddir) ? -ESRCH : 0;
}

/*
 * /proc/PID/mountinfo shows the mounts reachable from the process's root,
 * relative to it (show_mountinfo() skips the rest); listmount and
 * statmount of its namespace show them all, relative to the namespace's
 * root. A pid target means that process's view: re-rooted here. Text
 * captures of /proc/PID/mountinfo are that view already. *ret_rooted: the
 * capture is now relative to the process's root; *ret_moved: that root
 * is not the root the capture's paths started from.
 */
static int pid_view(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
		    struct mntsnap_snapshot *s, bool whole, bool *ret_rooted, bool *ret_moved)
{
	char root[PATH_MAX];
	uint64_t id;
	int r = process_root(ns, sys, &id, root, sizeof(root));

	/*
	 * whole: s is every mount the reader reaches, so a root on a mount
	 * it lacks that the kernel says the namespace no longer has (lazily
	 * unmounted, the whole tree below with it, or another namespace's)
	 * reaches no mount of the namespace: show_mountinfo() prints none.
	 */
	if (!r && whole && mntsnap__snapshot_find(s, id) < 0 && mount_gone(ns, sys, id))
		r = -EXDEV;
	*ret_moved = !r && strcmp(root, "/");
	if (!r)
		r = mntsnap__snap_reroot(s, id, root);
	if (r == -EXDEV) {
		*ret_moved = true;
		r = mntsnap__snap_clear(s);
	}
	*ret_rooted = !r;
	/*
	 * The root's mount is not in this capture (one under_id cut), or no
	 * procfs here can name the process (none at /proc, or one of a pid
	 * namespace it is not in): leave the namespace whole, from its root,
	 * as the helper and mntsnap__pidfd_root_fd() do when they cannot
	 * reach the process's root.
	 */
	if (r == -ENOENT || r == -EOPNOTSUPP)
		r = 0;
	return r;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * propagate_from is the kernel's get_dominating_id() relative to a root:
 * the first group up a slave's master chain with a member in its
 * namespace reachable from the reader's root. statmount answers relative
 * to the caller's root: asked from outside the namespace (by mnt_ns_fd or
 * mnt_ns_id) no mount of that namespace is reachable from it, so it never
 * names one; a helper inside answers relative to the namespace's root;
 * /proc/PID/mountinfo relative to the process's own. Which groups lie up
 * the chain only the kernel knows (it may pass through groups with no
 * mount in the namespace at all), so where statmount's root is not the
 * capture's, propagate_from comes from a text read from the right root:
 *  - a capture re-rooted at a pid handle's process (a direct query, or a
 *    chroot()ed process's through a helper): that process's
 *    /proc/PID/mountinfo;
 *  - the whole namespace queried directly (a namespace handle, or a pid
 *    handle whose root could not be reached): the mountinfo a helper
 *    inside reads, from the namespace's root; never under
 *    MNTSNAP_CAPTURE_NS_DIRECT, which forbids entering.
 */
static int pf_text(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
		   bool process, uint32_t flags, struct mntsnap_snapshot **ret)
{
	struct mntsnap_capture_opts c = {
		.sz = sizeof(c), .ns = ns, .backend = MNTSNAP_BACKEND_MOUNTINFO,
		.mask = MNTSNAP_F_ID_OLD | MNTSNAP_F_PROPAGATION | MNTSNAP_F_PROPAGATE_FROM,
	};

	if (process)
		return mntsnap__capture_source(&c, sys, MNTSNAP_NS_ROUTE_TEXT, ret);
	if (flags & MNTSNAP_CAPTURE_NS_DIRECT)
		return -EPERM;
	return mntsnap__helper_capture(ns, &c, sys, ret);
}

int mntsnap__route_pf_pairs(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			    bool process, uint32_t flags, uint64_t **ret, uint32_t *ret_n)
{
	struct mntsnap_snapshot *txt = NULL;
	uint64_t *pairs;
	uint32_t n = 0;
	int r;

	*ret = NULL;
	*ret_n = 0;
	r = pf_text(ns, sys, process, flags, &txt);
	if (r == -ENOMEM || r == -EMFILE || r == -ENFILE)
		return r;
	if (r)
		return 0; /* no text: nothing known */
	pairs = malloc(((size_t)txt->nrecs + 1) * sizeof(*pairs));
	if (!pairs) {
		mntsnap__snapshot_free(txt);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < txt->nrecs; i++)
		if ((txt->recs[i].mask & (MNTSNAP_F_ID_OLD | MNTSNAP_F_PROPAGATE_FROM)) ==
		    (MNTSNAP_F_ID_OLD | MNTSNAP_F_PROPAGATE_FROM))
			pairs[n++] = (uint64_t)txt->recs[i].id_old << 32 | txt->recs[i].propagate_from;
	mntsnap__snapshot_free(txt);
	qsort(pairs, n, sizeof(*pairs), cmp_u64);
	*ret = pairs;
	*ret_n = n;
	return 0;
}

bool mntsnap__route_pf_find(const uint64_t *pairs, uint32_t n, uint32_t id_old, uint32_t *ret_pf)
{
	const uint64_t *lo = pairs, *hi = pairs + n;

	while (lo < hi) { /* the first pair of this id */
		const uint64_t *mid = lo + (hi - lo) / 2;

		if (*mid >> 32 < id_old)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == pairs + n || *lo >> 32 != id_old)
		return false;
	*ret_pf = (uint32_t)*lo;
	return true;
}

/*
 * s's propagate_from from pf_text(), matched by /proc mount id. The text
 * is a refinement of a capture statmount already made, never a reason to
 * fail it: when it cannot be had (a process that died or that no procfs
 * here can name, no right to read it or to enter, a torn text), or for a
 * record it lacks (mounted or gone between the two reads), propagate_from
 * is absent, never statmount's answer from the wrong root nor a guess.
 * Only the system's own shortages (memory, fds) fail the capture.
 */
static int text_propagate_from(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			       bool process, uint32_t flags, struct mntsnap_snapshot *s)
{
	uint64_t *pairs;
	uint32_t n;
	int r = mntsnap__route_pf_pairs(ns, sys, process, flags, &pairs, &n);

	if (r)
		return r;
	for (uint32_t i = 0; i < s->nrecs; i++) {
		struct mntsnap_rec *rec = &s->recs[i];

		if (!(rec->mask & MNTSNAP_F_PROPAGATE_FROM))
			continue;
		rec->mask &= ~(uint32_t)MNTSNAP_F_PROPAGATE_FROM;
		rec->propagate_from = 0;
		if ((rec->mask & MNTSNAP_F_ID_OLD) &&
		    mntsnap__route_pf_find(pairs, n, rec->id_old, &rec->propagate_from))
			rec->mask |= MNTSNAP_F_PROPAGATE_FROM;
	}
	free(pairs);
	return 0;
}

/* Is the process's root "/" of its namespace (or can that not be told)? */
static bool root_is_ns_root(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys)
{
	char root[PATH_MAX];
	uint64_t id;
	int r = process_root(ns, sys, &id, root, sizeof(root));

	return r ? r != -EXDEV : !strcmp(root, "/");
}

bool mntsnap__route_pid_whole(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			      const struct mntsnap_snapshot *s)
{
	char root[PATH_MAX];
	uint64_t id;
	int r = process_root(ns, sys, &id, root, sizeof(root));
	long R;

	/* what pid_view() leaves whole: a root it cannot tell; s is the
	 * namespace's every mount, a root on none of them reaches none */
	if (r)
		return r != -EXDEV;
	R = mntsnap__snapshot_find(s, id);
	return R >= 0 && !strcmp(root, "/") && s->recs[R].parent == (uint32_t)R;
}

int mntsnap__route_pid_view(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			    struct mntsnap_snapshot *s, uint32_t want, struct mntsnap_error *err)
{
	bool rooted = false, moved = false;
	int r = pid_view(ns, sys, s, true, &rooted, &moved);

	if (r)
		return mntsnap__set_error(err, r, 0, "the process's root: %s", strerror(-r));
	/* the watcher reads from outside: propagate_from as the capture's */
	if (want & MNTSNAP_F_PROPAGATE_FROM)
		r = text_propagate_from(ns, sys, rooted, 0, s);
	return r;
}

/* Is the mount namespace of the caller's own root the one with id ns_id? */
static bool own_namespace(const struct mntsnap_sysops *sys, uint64_t ns_id)
{
	struct mntsnap_snapshot *s = NULL;
	uint64_t here;
	bool same;

	if (!ns_id || mntsnap__path_to_id(sys, "/", &here) ||
	    mntsnap__sm_stat_one(sys, NULL, MNTSNAP_NS_ROUTE_AUTO, here, MNTSNAP_F_NS_ID, &s))
		return false;
	same = s->ns_id == ns_id;
	mntsnap__snapshot_free(s);
	return same;
}

/*
 * Does statmount asked from here reach a pid target's root? For the
 * caller's own namespace it answers from the caller's root and listmount
 * lists only the mounts that root reaches (of another namespace, from
 * that namespace's root, and process_root() names the process's root in
 * those coordinates). A chroot()ed caller does not reach a root outside
 * its own: readlink of /proc/PID/root then names the path from the
 * namespace's root, which does not lead from here to that directory.
 * false only when it surely does not (the same namespace, a path that
 * reaches another directory or none); true when it cannot be told.
 */
bool mntsnap__route_caller_reaches_root(const struct mntsnap_ns *ns,
					 const struct mntsnap_sysops *sys)
{
	char root[PATH_MAX];
	struct stat a, b;
	uint64_t id, rid;
	int fd, here;
	bool reached;

	if (!own_namespace(sys, ns->ns_id) || process_root(ns, sys, &rid, root, sizeof(root)))
		return true;
	fd = mntsnap__task_root_fd(ns->pidfd, ns->piddir);
	if (fd < 0)
		return true;
	here = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	reached = here >= 0 && !fstat(fd, &a) && !fstat(here, &b) && a.st_dev == b.st_dev &&
		  a.st_ino == b.st_ino && !mntsnap__fd_to_id(sys, here, &id) && id == rid;
	if (here >= 0)
		close(here);
	close(fd);
	return reached;
}

/*
 * A pid target that the caller's root does not reach (the caller is
 * chroot()ed): statmount from here would name the caller's view. A helper
 * inside answers from the namespace's root, where process_root() names
 * the process's root too; without the right to enter, the process's own
 * text (AUTO only, as ns_capture() falls back).
 */
static int unreached_capture(const struct mntsnap_capture_opts *o,
			     const struct mntsnap_sysops *sys, struct mntsnap_snapshot **ret)
{
	int r;

	if (o->flags & MNTSNAP_CAPTURE_NS_DIRECT)
		return mntsnap__set_error(o->error, -EPERM, 0,
					 "direct query of the target namespace: the caller's "
					 "root (a chroot) does not reach the process's root");
	r = mntsnap__helper_capture(o->ns, o, sys, ret);
	if ((r == -EPERM || r == -EACCES) && o->backend == MNTSNAP_BACKEND_AUTO &&
	    !(o->flags & MNTSNAP_CAPTURE_NS_ENTER))
		return capture_routed(o, sys, MNTSNAP_NS_ROUTE_TEXT, MNTSNAP_BACKEND_MOUNTINFO, ret);
	return r;
}

int mntsnap__route_capture(const struct mntsnap_capture_opts *o, const struct mntsnap_sysops *sys,
			  struct mntsnap_snapshot **ret_snap)
{
	struct mntsnap_capture_opts c = *o;
	uint32_t want = o->mask ? o->mask & MNTSNAP_F_ALL : MNTSNAP_MASK_DEFAULT, extra = 0;
	bool pid = mntsnap_ns_has_task(o->ns) && !o->ns->text_only, rooted = false, moved = false;
	bool pf = want & MNTSNAP_F_PROPAGATE_FROM, outside;
	struct mntsnap_snapshot *s = NULL; /* *ret_snap stays as it is on failure */
	int r;

	/* re-rooting needs ids and mount points, asked for if the caller did not;
	 * propagate_from from a text is matched by /proc id */
	if (pid)
		extra = (MNTSNAP_F_ID | MNTSNAP_F_MOUNT_POINT) & ~want;
	if (pf)
		extra |= MNTSNAP_F_ID_OLD & ~want;
	c.mask = want | extra;
	outside = false;
	if (pid && o->backend != MNTSNAP_BACKEND_MOUNTINFO && !mntsnap__route_caller_reaches_root(o->ns, sys))
		r = unreached_capture(&c, sys, &s);
	else
		r = ns_capture(&c, sys, &s, &outside);
	/*
	 * Text from a helper inside (statmount blocked or missing there) is
	 * the helper's view, from the namespace's root, with no ids to
	 * re-root by: a process whose root is elsewhere has its own text.
	 */
	if (!r && pid && s->backend == MNTSNAP_BACKEND_MOUNTINFO &&
	    o->backend != MNTSNAP_BACKEND_MOUNTINFO && !root_is_ns_root(o->ns, sys)) {
		mntsnap__snapshot_free(s);
		s = NULL;
		r = capture_routed(&c, sys, MNTSNAP_NS_ROUTE_TEXT, MNTSNAP_BACKEND_MOUNTINFO, &s);
	}
	if (r)
		return r;
	if (pid && s->backend != MNTSNAP_BACKEND_MOUNTINFO) {
		r = pid_view(o->ns, sys, s, !o->under_id, &rooted, &moved);
		if (r)
			mntsnap__set_error(o->error, r, 0, "the process's root: %s", strerror(-r));
	}
	/* statmount's propagate_from is from another root than the capture's */
	if (!r && pf && s->backend != MNTSNAP_BACKEND_MOUNTINFO && (outside || moved))
		r = text_propagate_from(o->ns, sys, rooted, o->flags, s);
	if (r) {
		mntsnap__snapshot_free(s);
		return r;
	}
	mntsnap__snap_drop_fields(s, extra);
	/* the snapshot names the target even when records lack NS_ID */
	if (!s->ns_id)
		s->ns_id = o->ns->ns_id;
	*ret_snap = s;
	return 0;
}

/* ---- one mount of a foreign namespace ----------------------------------------- */

/*
 * The lookup is its own probe where its answer is plain. By fd, EINVAL can
 * only mean a kernel before 6.18 (mnt_ns_fd was a must-be-zero spare; the
 * handle's fd and the id are already checked); any other answer is the
 * target's. By id, "not yours" is EPERM on 6.18 (and stable kernels with
 * fccbe38a5d06) but ENOENT before, which also means "no such mount": one
 * listmount by id tells them apart, as it says ENOENT for "not yours" on
 * every kernel. E2BIG: a kernel before 6.11 refuses the VER1 request.
 */
static int ns_stat_id(const struct mntsnap_sysops *sys, const struct mntsnap_ns *ns, uint64_t id,
		      uint32_t mask, struct mntsnap_snapshot **ret_snap, bool *ret_outside)
{
	int r, by_id = 0;

	*ret_outside = true;
	if (ns->nsfd >= 0) {
		r = mntsnap__sm_stat_one(sys, ns, MNTSNAP_NS_ROUTE_FD, id, mask, ret_snap);
		if (r != -EINVAL)
			return r;
	}
	if (ns->ns_id) {
		r = mntsnap__sm_stat_one(sys, ns, MNTSNAP_NS_ROUTE_ID, id, mask, ret_snap);
		if (r == -ENOENT || r == -EPERM) {
			if (!probe_route(ns, sys, MNTSNAP_NS_ROUTE_ID))
				return r; /* we may query by id: the answer stands */
			by_id = r;
		} else if (r != -E2BIG && r != -EINVAL) {
			return r;
		}
	}
	*ret_outside = false;
	r = mntsnap__helper_stat_id(ns, sys, id, mask, ret_snap);
	/*
	 * An id-only handle the caller may not query cannot be found to enter
	 * either (the nsfs walk and /proc need the same privilege): the
	 * kernel's "not permitted" is the truer answer than our "not found".
	 */
	if (r == -ENOENT && by_id == -EPERM && ns->nsfd < 0)
		return by_id;
	return r;
}

/*
 * A pid target's one mount as its /proc/PID/mountinfo shows it: the mount
 * point relative to the process's root, and no line at all for a mount
 * that root does not reach (-EXDEV: not in the process's table).
 * statmount's mount point is relative to the caller's root, another one
 * whenever either of the two is chroot()ed, and unset for a mount outside
 * the caller's: the text is the only answer from the process's root.
 */
static int text_mount_point(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			    uint32_t want, struct mntsnap_snapshot *s)
{
	struct mntsnap_capture_opts c = {
		.sz = sizeof(c), .ns = ns, .backend = MNTSNAP_BACKEND_MOUNTINFO,
		.mask = MNTSNAP_F_ID_OLD | MNTSNAP_F_MOUNT_POINT,
	};
	struct mntsnap_snapshot *txt = NULL;
	struct mntsnap_rec *rec = &s->recs[0];
	const char *mp;
	long i, off;
	int r;

	if (s->nrecs != 1 || !(rec->mask & MNTSNAP_F_ID_OLD))
		return -ENOENT;
	r = mntsnap__capture_source(&c, sys, MNTSNAP_NS_ROUTE_TEXT, &txt);
	if (r)
		return r;
	i = mntsnap__snapshot_find_old(txt, rec->id_old);
	if (i < 0 || !(txt->recs[i].mask & MNTSNAP_F_MOUNT_POINT)) {
		mntsnap__snapshot_free(txt);
		return -EXDEV;
	}
	r = 0;
	if (want & MNTSNAP_F_MOUNT_POINT) {
		mp = txt->strtab + txt->recs[i].mount_point;
		off = mntsnap__snap_str(s, mp, strlen(mp));
		if (off < 0) {
			r = (int)off;
		} else {
			mntsnap__lookup_reset(s);
			rec = &s->recs[0];
			rec->mount_point = (uint32_t)off;
			rec->mask |= MNTSNAP_F_MOUNT_POINT;
		}
	}
	mntsnap__snapshot_free(txt);
	return r;
}

/*
 * A pid target's mount point: from its text (above); where no text can
 * be had here (no procfs that names the process, no right to read it),
 * statmount's made relative to the process's root as readlink of
 * /proc/PID/root names it, else the namespace's view as in pid_view().
 */
static int pid_mount_point(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			   uint32_t want, struct mntsnap_snapshot *s, bool *ret_rooted,
			   bool *ret_moved)
{
	char root[PATH_MAX];
	uint64_t rid;
	int r = process_root(ns, sys, &rid, root, sizeof(root));

	*ret_rooted = false;
	*ret_moved = false;
	if (r == -ENOENT || r == -EOPNOTSUPP)
		return 0;
	/* -EXDEV: a removed root that reaches no mount, none is in its table */
	if (r)
		return r;
	*ret_rooted = true;
	*ret_moved = strcmp(root, "/") != 0;
	r = text_mount_point(ns, sys, want, s);
	if (r != -ENOENT && r != -EOPNOTSUPP && r != -EACCES && r != -EPERM)
		return r;
	return mntsnap__snap_relative_to(s, root);
}

static int route_stat_id(const struct mntsnap_sysops *sys, const struct mntsnap_ns *ns,
			 uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap)
{
	uint32_t want = mask ? mask & MNTSNAP_F_ALL : MNTSNAP_MASK_DEFAULT;
	bool pid = mntsnap_ns_has_task(ns) && !ns->text_only, rooted = false, moved = false;
	bool pf = want & MNTSNAP_F_PROPAGATE_FROM, outside;
	/* propagate_from and a pid target's mount point from a text are
	 * matched by /proc id */
	uint32_t extra = pf || pid ? MNTSNAP_F_ID_OLD & ~want : 0;
	struct mntsnap_snapshot *s = NULL; /* *ret_snap stays as it is on failure */
	int r = mntsnap__ns_check_alive(ns);

	if (r)
		return r;
	r = ns_stat_id(sys, ns, id, want | extra, &s, &outside);
	/* the nsfd outlives the process: an empty namespace answers ENOENT */
	if (r < 0 && mntsnap__ns_check_alive(ns) == -ESRCH)
		return -ESRCH;
	if (r)
		return r;
	/* a pid target's mount point is relative to the process's root */
	if (pid)
		r = pid_mount_point(ns, sys, want, s, &rooted, &moved);
	/* and so is its propagate_from, see text_propagate_from() */
	if (!r && pf && (outside || moved))
		r = text_propagate_from(ns, sys, rooted, 0, s);
	if (r) {
		mntsnap__snapshot_free(s);
		return r;
	}
	mntsnap__snap_drop_fields(s, extra);
	*ret_snap = s;
	return 0;
}

/*
 * O_PATH fd of path as the target sees it. A process's root is reachable
 * from here (/proc/PID/root), so resolve without entering; a namespace
 * without a process has no root we can hold, so the helper opens it.
 * Either way symlinks and ".." stay inside the target's root, and a
 * helper does the lookup: the target's tree may hold a FUSE mount that
 * never answers, and only the helper's timeout bounds that wait.
 */
static int own_stat_one(const struct mntsnap_sysops *sys, const struct mntsnap_ns *ns,
			uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap);

int mntsnap__stat_id_sys(const struct mntsnap_sysops *in, const struct mntsnap_ns *ns,
			uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap)
{
	struct mntsnap_sysops sys;

	if (!ret_snap)
		return -EINVAL;
	/* a bad id is the caller's mistake on every route: say so before probing */
	if (id <= MNTSNAP_K_MNT_UNIQUE_ID_OFFSET)
		return -EINVAL;
	mntsnap__sys_resolve(in, &sys);
	/* a foreign namespace: fd, id or the helper, like a capture */
	if (mntsnap_ns_foreign(ns))
		return route_stat_id(&sys, ns, id, mask, ret_snap);
	return own_stat_one(&sys, ns, id, mask, ret_snap);
}

int mntsnap_stat_id(const struct mntsnap_ns *ns, uint64_t id, uint32_t mask,
		    struct mntsnap_snapshot **ret_snap)
{
	return mntsnap__stat_id_sys(NULL, ns, id, mask, ret_snap);
}

/*
 * One mount of the caller's own table. statmount's mnt_point is relative
 * to the caller's root and unset for a mount that root does not reach
 * (probed on 6.18: a chroot() into a plain directory of mount M leaves
 * M's unset), the very test show_mountinfo() uses to skip a mount of
 * /proc/self/mountinfo. Such a mount is not in the caller's table:
 * -EXDEV, never a record without a mount point. The mount point is asked
 * for that test even when mask lacks it, and dropped again.
 */
static int own_stat_one(const struct mntsnap_sysops *sys, const struct mntsnap_ns *ns,
			uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap)
{
	uint32_t want = mask ? mask & MNTSNAP_F_ALL : MNTSNAP_MASK_DEFAULT;
	uint32_t extra = MNTSNAP_F_MOUNT_POINT & ~want;
	struct mntsnap_snapshot *s = NULL;
	int r = mntsnap__sm_stat_one(sys, ns, MNTSNAP_NS_ROUTE_AUTO, id, want | extra, &s);

	if (r)
		return r;
	if (s->nrecs != 1 || !(s->recs[0].mask & MNTSNAP_F_MOUNT_POINT)) {
		mntsnap__snapshot_free(s);
		return -EXDEV;
	}
	mntsnap__snap_drop_fields(s, extra);
	*ret_snap = s;
	return 0;
}

static int stat_path(const struct mntsnap_sysops *sys, const char *path, uint32_t mask,
		     struct mntsnap_snapshot **ret_snap)
{
	uint64_t id;
	int r;

	if (!ret_snap)
		return -EINVAL;
	r = mntsnap__path_to_id(sys, path, &id);
	if (r < 0)
		return r;
	return own_stat_one(sys, NULL, id, mask, ret_snap);
}

int mntsnap_stat_path(const char *path, uint32_t mask, struct mntsnap_snapshot **ret_snap)
{
	return stat_path(&mntsnap__sys_real, path, mask, ret_snap);
}

static int open_in_target(const struct mntsnap_ns *ns, const char *path)
{
	int root = ns ? mntsnap__task_root_fd(ns->pidfd, ns->piddir) : -ENOENT, fd, r;

	if (root == -ENOENT) {
		r = mntsnap__ns_open_file(ns, path, O_PATH, 0, NULL, &fd);
		return r ? r : fd;
	}
	if (root < 0)
		return root;
	r = mntsnap__helper_open_at(ns, root, path, &fd);
	close(root);
	return r ? r : fd;
}

int mntsnap_ns_stat_path(const struct mntsnap_ns *ns, const char *path, uint32_t mask,
			 struct mntsnap_snapshot **ret_snap)
{
	uint64_t id;
	int fd, r;

	if (!path || !*path || !ret_snap)
		return -EINVAL;
	if (!ns || ns->self)
		return stat_path(&mntsnap__sys_real, path, mask, ret_snap);
	r = mntsnap__ns_check_alive(ns);
	if (r)
		return r;
	fd = open_in_target(ns, path);
	if (fd < 0)
		return fd;
	r = mntsnap__fd_to_id(&mntsnap__sys_real, fd, &id);
	close(fd);
	if (r)
		return r;
	r = mntsnap__stat_id_sys(&mntsnap__sys_real, ns, id, mask, ret_snap);
	/*
	 * A mount reached from the process's root that its namespace lacks:
	 * that root is on a mount the namespace no longer has (lazily
	 * unmounted, with the whole tree below it; no mount can be added to
	 * a detached one), so the path is on no mount of the process's
	 * table, as /proc/PID/mountinfo shows it (empty).
	 */
	if (r == -ENOENT && mntsnap_ns_has_task(ns) && !ns->text_only)
		r = -EXDEV;
	return r;
}
