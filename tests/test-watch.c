// SPDX-License-Identifier: MIT
/*
 * mntsnap_watch_*: one test per kind of change, on both event routes
 * (fanotify mount events, and POLLPRI + sweep with fanotify faked away
 * through the seam). Oracles: the kernel itself - the unique mount id
 * statx() gives for the path (STATX_MNT_ID_UNIQUE), and a fresh capture
 * after every drain that the watcher's snapshot must diff equal to.
 * Everything happens in private mount namespaces.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "sys.h"
#include "sys-seam.h"

#define BASE "/tmp/mntsnap-watch"

struct ev {
	int kind;
	uint32_t changed;
	uint64_t id;
	char mp[256], old_mp[256];
	uint32_t attr, old_attr;
	char opts[256], old_opts[256];
	bool has_pf; /* MNTSNAP_F_PROPAGATE_FROM in the record after */
	uint32_t pf;
};

struct evlist {
	struct ev *e;
	size_t n, cap;
	int resyncs;
};

static void mnt(const char *src, const char *dst, const char *type, unsigned long fl,
		const char *data)
{
	if (!(fl & (MS_REMOUNT | MS_SHARED | MS_SLAVE | MS_PRIVATE | MS_UNBINDABLE | MS_MOVE)))
		ms_mkdir_p(dst);
	cr_assert_eq(mount(src, dst, type, fl, data), 0, "mount %s: %s", dst, strerror(errno));
}

/* The kernel's unique id of the mount at path (statx, no mntsnap code). */
static uint64_t kernel_id(const char *path)
{
	struct statx st;

	cr_assert_eq(statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, 0x4000 /* MNT_ID_UNIQUE */, &st), 0,
		     "statx %s: %s", path, strerror(errno));
	cr_assert(st.stx_mask & 0x4000, "kernel without STATX_MNT_ID_UNIQUE");
	return st.stx_mnt_id;
}

static void collect(struct mntsnap_watch *w, struct evlist *l)
{
	struct mntsnap_watch_event e;

	while (mntsnap_watch_next(w, &e) == 0) {
		struct ev *x;

		if (e.kind == MNTSNAP_WATCH_RESYNC) {
			l->resyncs++;
			continue;
		}
		if (l->n == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 64;
			l->e = realloc(l->e, l->cap * sizeof(*l->e));
			cr_assert(l->e);
		}
		x = &l->e[l->n++];
		memset(x, 0, sizeof(*x));
		x->kind = e.kind;
		x->changed = e.changed;
		x->id = e.id;
		x->attr = e.mount.attr;
		x->old_attr = e.old.attr;
		x->has_pf = e.mount.mask & MNTSNAP_F_PROPAGATE_FROM;
		x->pf = e.mount.propagate_from;
		snprintf(x->mp, sizeof(x->mp), "%s",
			 e.mount.mount_point ? e.mount.mount_point : "");
		snprintf(x->old_mp, sizeof(x->old_mp), "%s",
			 e.old.mount_point ? e.old.mount_point : "");
		snprintf(x->opts, sizeof(x->opts), "%s", e.mount.options ? e.mount.options : "");
		snprintf(x->old_opts, sizeof(x->old_opts), "%s",
			 e.old.options ? e.old.options : "");
	}
}

/*
 * Wait (poll on the watcher's fd, 5 s at most per round) and drain until
 * at least want events arrived; then one more quick drain so nothing
 * pending is left over. Returns what drain last said (< 0 = error).
 */
static int wait_events(struct mntsnap_watch *w, struct evlist *l, size_t want)
{
	struct pollfd p = {.fd = mntsnap_watch_fd(w), .events = POLLIN};
	int r = 0, idle = 0;

	while (l->n < want && idle < 2) {
		if (poll(&p, 1, 5000) <= 0)
			idle++;
		r = mntsnap_watch_drain(w);
		if (r < 0)
			return r;
		collect(w, l);
	}
	r = mntsnap_watch_drain(w);
	if (r >= 0)
		collect(w, l);
	return r;
}

/* The watcher's snapshot diffs equal to a fresh capture of the same ns. */
static void assert_current(struct mntsnap_watch *w, const struct mntsnap_ns *ns)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .backend = MNTSNAP_BACKEND_STATMOUNT);
	const struct mntsnap_snapshot *live;
	struct mntsnap_snapshot *fresh;
	struct mntsnap_diff *d;

	cr_assert_eq(mntsnap_watch_snapshot(w, &live), 0);
	cr_assert_eq(mntsnap_capture(&o, &fresh), 0);
	cr_assert_eq(mntsnap_diff(live, fresh, &d), 0);
	if (mntsnap_diff_count(d))
		mntsnap_diff_render(d, MNTSNAP_DIFF_FORMAT_TEXT, stderr);
	cr_assert_eq(mntsnap_diff_count(d), 0, "live snapshot differs from a fresh capture");
	cr_assert_eq(mntsnap_snapshot_count(live), mntsnap_snapshot_count(fresh));
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(fresh);
}

/* ---- routes ----------------------------------------------------------------- */

static long no_fanotify(void *ctx, unsigned flags, unsigned event_f_flags)
{
	(void)flags;
	(void)event_f_flags;
	return -(long)(intptr_t)ctx; /* the errno a kernel or a filter would give */
}

static const struct mntsnap_sysops enosys_ops = {.fanotify_init = no_fanotify,
						 .ctx = (void *)(intptr_t)ENOSYS};

static struct mntsnap_watch *watch_route(const struct mntsnap_ns *ns, bool pollpri, uint32_t flags)
{
	MNTSNAP_OPTS(mntsnap_watch_opts, o, .ns = ns, .flags = flags);
	struct mntsnap_watch *w = NULL;
	int r = mntsnap__watch_new_with(&o, (pollpri ? &enosys_ops : NULL), &w);

	cr_assert_eq(r, 0, "watch_new: %s", strerror(-r));
	if (!pollpri && mntsnap_watch_route(w) != MNTSNAP_WATCH_ROUTE_FANOTIFY)
		cr_skip_test("no fanotify mount events on this kernel");
	cr_assert_eq(mntsnap_watch_route(w),
		     pollpri ? MNTSNAP_WATCH_ROUTE_POLLPRI : MNTSNAP_WATCH_ROUTE_FANOTIFY);
	return w;
}

static const struct ev *find_ev(const struct evlist *l, int kind, uint64_t id)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].kind == kind && l->e[i].id == id)
			return &l->e[i];
	return NULL;
}

/* ---- one test per event kind, on both routes ------------------------------------ */

static void mount_umount(bool pollpri)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	uint64_t t, b;

	ms_private_ns(BASE);
	w = watch_route(NULL, pollpri, 0);
	mnt("w1", BASE "/t", "tmpfs", 0, "size=1m");
	t = kernel_id(BASE "/t");
	mnt(BASE "/t", BASE "/b", NULL, MS_BIND, NULL);
	b = kernel_id(BASE "/b");
	cr_assert_geq(wait_events(w, &l, 2), 0);
	cr_assert_eq(l.n, 2, "events: %zu", l.n);
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOUNT, t), "mount of tmpfs not reported");
	cr_assert_str_eq(find_ev(&l, MNTSNAP_WATCH_MOUNT, t)->mp, BASE "/t");
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOUNT, b), "bind not reported");
	assert_current(w, NULL);

	l.n = 0;
	cr_assert_eq(umount(BASE "/b"), 0);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1);
	cr_assert(find_ev(&l, MNTSNAP_WATCH_UMOUNT, b), "umount not reported");
	cr_assert_str_eq(l.e[0].old_mp, BASE "/b", "umount event carries the old record");
	assert_current(w, NULL);
	mntsnap_watch_free(w);
	free(l.e);
}

LTest(watch, mount_bind_umount)
{
	mount_umount(false);
}
LTest(watch, mount_bind_umount_pollpri)
{
	mount_umount(true);
}

/*
 * mountinfo_path: the kernel fixes a mountinfo file's view at its open
 * (the task's root then), and the watch reads that one open file at each
 * change, as findmnt --poll does: a chroot() after the start changes
 * nothing it reports, paths stay relative to the root it started from.
 */
LTest(watch, mountinfo_path_view_fixed_at_open)
{
	MNTSNAP_OPTS(mntsnap_watch_opts, o, .mountinfo_path = "/proc/self/mountinfo");
	struct evlist l = {0};
	struct mntsnap_watch *w = NULL;
	int root, r;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/r/in");
	r = mntsnap_watch_new(&o, &w);
	cr_assert_eq(r, 0, "watch_new: %s", strerror(-r));
	cr_assert_eq(mntsnap_watch_route(w), MNTSNAP_WATCH_ROUTE_TEXT);
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(root, 0);
	cr_assert_eq(chroot(BASE "/r"), 0, "chroot: %s", strerror(errno));
	mnt("fixed", "/in", "tmpfs", 0, NULL);
	r = wait_events(w, &l, 1);
	/* the old root back first: the leak check reads /proc */
	cr_assert_eq(fchdir(root), 0);
	cr_assert_eq(chroot("."), 0);
	close(root);
	cr_assert_geq(r, 0, "drain: %s", strerror(-r));
	cr_assert_eq(l.n, 1, "events: %zu", l.n);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_MOUNT);
	cr_assert_str_eq(l.e[0].mp, BASE "/r/in", "the view of the root at the start");
	mntsnap_watch_free(w);
	free(l.e);
}

/* mountinfo_path on no procfs: never signals a change, refused */
LTest(watch, mountinfo_path_not_procfs)
{
	MNTSNAP_OPTS(mntsnap_watch_opts, o, .mountinfo_path = BASE "/mountinfo");
	struct mntsnap_watch *w = NULL;
	int fd;

	ms_private_ns(BASE);
	fd = open(BASE "/mountinfo", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(mntsnap_watch_new(&o, &w), -EINVAL);
	cr_assert_null(w);
}

static void move(bool pollpri)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	uint64_t id;

	ms_private_ns(BASE);
	mnt("w2", BASE "/a", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/c");
	id = kernel_id(BASE "/a");
	w = watch_route(NULL, pollpri, 0);
	/* same parent mount: only the mount point differs */
	cr_assert_eq(mount(BASE "/a", BASE "/c", NULL, MS_MOVE, NULL), 0, "%s", strerror(errno));
	cr_assert_eq(kernel_id(BASE "/c"), id);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1, "events: %zu", l.n);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_MOVE);
	cr_assert_eq(l.e[0].id, id);
	cr_assert_str_eq(l.e[0].old_mp, BASE "/a");
	cr_assert_str_eq(l.e[0].mp, BASE "/c");
	cr_assert(l.e[0].changed & MNTSNAP_CHANGE_MOUNT_POINT);
	assert_current(w, NULL);
	mntsnap_watch_free(w);
	free(l.e);
}

LTest(watch, move)
{
	move(false);
}
LTest(watch, move_pollpri)
{
	move(true);
}

/*
 * A moved subtree: every mount below the moved one has a new mount point.
 * The kernel (6.18) sends a fanotify event for some of them (mounts of a
 * filesystem's root) but none for binds of a subdirectory or a file, so
 * the watcher kept their old paths (found by tests/history-eq.py: watch
 * --save differed from a fresh save, findmnt --poll printed moves the
 * watch did not). One MOVE per mount below, paths current.
 */
static void move_subtree(bool pollpri)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	uint64_t top, sub, dir, file;
	int fd;

	ms_private_ns(BASE);
	mnt("top", BASE "/x/m", "tmpfs", 0, NULL);
	mnt("sub", BASE "/x/m/sub", "tmpfs", 0, NULL);
	mnt("src", BASE "/src", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/src/d/e");
	fd = open(BASE "/src/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	fd = open(BASE "/x/m/sub/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	mnt(BASE "/src/d", BASE "/x/m/dir", NULL, MS_BIND, NULL);
	mnt(BASE "/src/f", BASE "/x/m/sub/f", NULL, MS_BIND, NULL);
	top = kernel_id(BASE "/x/m");
	sub = kernel_id(BASE "/x/m/sub");
	dir = kernel_id(BASE "/x/m/dir");
	file = kernel_id(BASE "/x/m/sub/f");
	ms_mkdir_p(BASE "/y/n");
	w = watch_route(NULL, pollpri, 0);
	cr_assert_eq(mount(BASE "/x/m", BASE "/y/n", NULL, MS_MOVE, NULL), 0, "%s", strerror(errno));
	cr_assert_geq(wait_events(w, &l, 4), 0);
	cr_assert_geq(mntsnap_watch_sync(w), 0);
	collect(w, &l);
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOVE, top), "the moved mount");
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOVE, sub), "a tmpfs below it");
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOVE, dir), "a bind of a directory below it");
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOVE, file), "a bind of a file two levels below");
	cr_assert_str_eq(find_ev(&l, MNTSNAP_WATCH_MOVE, file)->old_mp, BASE "/x/m/sub/f");
	cr_assert_str_eq(find_ev(&l, MNTSNAP_WATCH_MOVE, file)->mp, BASE "/y/n/sub/f");
	cr_assert_eq(l.n, 4, "events: %zu", l.n);
	assert_current(w, NULL);
	mntsnap_watch_free(w);
	free(l.e);
}

LTest(watch, move_subtree)
{
	move_subtree(false);
}
LTest(watch, move_subtree_pollpri)
{
	move_subtree(true);
}

static void remount(bool pollpri)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	uint64_t t, b;

	ms_private_ns(BASE);
	mnt("w3", BASE "/t", "tmpfs", 0, "size=1m");
	mnt(BASE "/t", BASE "/b", NULL, MS_BIND, NULL);
	t = kernel_id(BASE "/t");
	b = kernel_id(BASE "/b");
	w = watch_route(NULL, pollpri, 0);

	/* bind remount ro: fanotify says nothing, POLLPRI does */
	mnt(NULL, BASE "/b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1, "events: %zu", l.n);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_CHANGE);
	cr_assert_eq(l.e[0].id, b);
	cr_assert_eq(l.e[0].changed, MNTSNAP_CHANGE_ATTR);
	cr_assert(l.e[0].attr & MNTSNAP_ATTR_RDONLY);
	cr_assert_not(l.e[0].old_attr & MNTSNAP_ATTR_RDONLY);
	assert_current(w, NULL);

	/* superblock remount: both mounts of the superblock change */
	l.n = 0;
	mnt(NULL, BASE "/t", NULL, MS_REMOUNT, "size=2m");
	cr_assert_geq(wait_events(w, &l, 2), 0);
	cr_assert_eq(l.n, 2, "events: %zu", l.n);
	cr_assert(find_ev(&l, MNTSNAP_WATCH_CHANGE, t));
	cr_assert(find_ev(&l, MNTSNAP_WATCH_CHANGE, b));
	cr_assert(find_ev(&l, MNTSNAP_WATCH_CHANGE, t)->changed & MNTSNAP_CHANGE_OPTIONS);
	cr_assert(strstr(find_ev(&l, MNTSNAP_WATCH_CHANGE, t)->opts, "size=2048k"), "%s",
		  find_ev(&l, MNTSNAP_WATCH_CHANGE, t)->opts);
	assert_current(w, NULL);
	mntsnap_watch_free(w);
	free(l.e);
}

LTest(watch, remount_only_pollpri_sees)
{
	remount(false);
}
LTest(watch, remount_pollpri_route)
{
	remount(true);
}

static void lazy_subtree(bool pollpri)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	uint64_t ids[100];
	char p[128];

	ms_private_ns(BASE);
	mnt("top", BASE "/top", "tmpfs", 0, NULL);
	ids[0] = kernel_id(BASE "/top");
	for (int i = 1; i < 100; i++) {
		snprintf(p, sizeof(p), BASE "/top/%d", i);
		mnt("sub", p, "tmpfs", 0, NULL);
		ids[i] = kernel_id(p);
	}
	w = watch_route(NULL, pollpri, 0);
	cr_assert_eq(umount2(BASE "/top", MNT_DETACH), 0);
	cr_assert_geq(wait_events(w, &l, 100), 0);
	cr_assert_eq(l.n, 100, "events: %zu", l.n);
	for (int i = 0; i < 100; i++)
		cr_assert(find_ev(&l, MNTSNAP_WATCH_UMOUNT, ids[i]), "mount %d not reported", i);
	assert_current(w, NULL);
	mntsnap_watch_free(w);
	free(l.e);
}

LTest(watch, lazy_umount_100_subtree)
{
	lazy_subtree(false);
}
LTest(watch, lazy_umount_100_subtree_pollpri)
{
	lazy_subtree(true);
}

/* fsopen/fsmount/move_mount: a mount made detached, then attached. */
LTest(watch, fsmount_move_mount)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	int fs, m;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/new");
	w = watch_route(NULL, false, 0);
	fs = (int)syscall(430 /* fsopen */, "tmpfs", 1 /* FSOPEN_CLOEXEC */);
	cr_assert_geq(fs, 0, "fsopen: %s", strerror(errno));
	cr_assert_eq(syscall(431 /* fsconfig */, fs, 6 /* FSCONFIG_CMD_CREATE */, NULL, NULL, 0),
		     0);
	m = (int)syscall(432 /* fsmount */, fs, 1 /* FSMOUNT_CLOEXEC */, 0);
	cr_assert_geq(m, 0);
	cr_assert_eq(syscall(429 /* move_mount */, m, "", AT_FDCWD, BASE "/new",
			     4 /* MOVE_MOUNT_F_EMPTY_PATH */),
		     0, "move_mount: %s", strerror(errno));
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1);
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOUNT, kernel_id(BASE "/new")));
	assert_current(w, NULL);
	close(m);
	close(fs);
	mntsnap_watch_free(w);
	free(l.e);
}

/* mount_setattr(2) on a subtree: one change per mount, no fanotify event. */
static void setattr(bool pollpri)
{
	struct mount_attr_ {
		uint64_t attr_set, attr_clr, propagation, userns_fd;
	} a = {.attr_set = MNTSNAP_ATTR_NOEXEC | MNTSNAP_ATTR_NOSUID};
	struct evlist l = {0};
	struct mntsnap_watch *w;
	uint64_t top, sub;

	ms_private_ns(BASE);
	mnt("sa", BASE "/t", "tmpfs", 0, NULL);
	mnt("sb", BASE "/t/sub", "tmpfs", 0, NULL);
	top = kernel_id(BASE "/t");
	sub = kernel_id(BASE "/t/sub");
	w = watch_route(NULL, pollpri, 0);
	cr_assert_eq(syscall(442 /* mount_setattr */, AT_FDCWD, BASE "/t",
			     0x8000 /* AT_RECURSIVE */, &a, sizeof(a)),
		     0, "mount_setattr: %s", strerror(errno));
	cr_assert_geq(wait_events(w, &l, 2), 0);
	cr_assert_eq(l.n, 2);
	cr_assert(find_ev(&l, MNTSNAP_WATCH_CHANGE, top));
	cr_assert(find_ev(&l, MNTSNAP_WATCH_CHANGE, sub));
	cr_assert_eq(find_ev(&l, MNTSNAP_WATCH_CHANGE, sub)->changed, MNTSNAP_CHANGE_ATTR);
	cr_assert(find_ev(&l, MNTSNAP_WATCH_CHANGE, sub)->attr & MNTSNAP_ATTR_NOEXEC);
	assert_current(w, NULL);
	mntsnap_watch_free(w);
	free(l.e);
}

LTest(watch, mount_setattr_recursive)
{
	setattr(false);
}
LTest(watch, mount_setattr_recursive_pollpri)
{
	setattr(true);
}

/*
 * A propagation change sends no event at all (no fanotify record, no
 * POLLPRI): the watcher learns of it at the next sweep. mntsnap_watch_sync
 * promises a fresh capture's equal (watch --save relies on it), so it
 * sweeps even when nothing is pending; it swept only when a settle sweep
 * was armed (found by tests/history-eq.py: a history ending in
 * --make-shared saved the mount as private).
 */
static void sync_sees_propagation(bool pollpri)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	uint64_t id;

	ms_private_ns(BASE);
	mnt("p", BASE "/p", "tmpfs", 0, NULL);
	id = kernel_id(BASE "/p");
	w = watch_route(NULL, pollpri, 0);
	mnt(NULL, BASE "/p", NULL, MS_SHARED, NULL);
	cr_assert_geq(mntsnap_watch_sync(w), 0);
	collect(w, &l);
	cr_assert(find_ev(&l, MNTSNAP_WATCH_CHANGE, id), "propagation change not seen by sync");
	assert_current(w, NULL);
	mntsnap_watch_free(w);
	free(l.e);
}

LTest(watch, sync_sees_propagation)
{
	sync_sees_propagation(false);
}
LTest(watch, sync_sees_propagation_pollpri)
{
	sync_sees_propagation(true);
}

/* move_mount(MOVE_MOUNT_BENEATH): a mount slid under the top of a stack. */
static void beneath(bool pollpri)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	struct statx st;
	uint64_t top;
	int fd, r;

	ms_private_ns(BASE);
	mnt("top", BASE "/t", "tmpfs", 0, NULL);
	top = kernel_id(BASE "/t");
	mnt("under", BASE "/src", "tmpfs", 0, NULL);
	fd = (int)syscall(428 /* open_tree */, AT_FDCWD, BASE "/src",
			  1 /* OPEN_TREE_CLONE */ | O_CLOEXEC);
	cr_assert_geq(fd, 0, "open_tree: %s", strerror(errno));
	cr_assert_eq(statx(fd, "", AT_EMPTY_PATH, 0x4000, &st), 0);
	w = watch_route(NULL, pollpri, 0);
	r = (int)syscall(429 /* move_mount */, fd, "", AT_FDCWD, BASE "/t",
			 4 /* MOVE_MOUNT_F_EMPTY_PATH */ | 0x200 /* MOVE_MOUNT_BENEATH */);
	if (r && errno == EINVAL)
		cr_skip_test("no MOVE_MOUNT_BENEATH (Linux < 6.5)");
	cr_assert_eq(r, 0, "move_mount beneath: %s", strerror(errno));
	cr_assert_geq(wait_events(w, &l, 1), 0);
	/* the top mount now sits on the new one, and fanotify (6.18) says
	 * nothing about it: the settle sweep does, sync runs it now */
	cr_assert_geq(mntsnap_watch_sync(w), 0);
	collect(w, &l);
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOUNT, st.stx_mnt_id), "mount beneath not reported");
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOVE, top), "the top mount's new parent not reported");
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOVE, top)->changed & MNTSNAP_CHANGE_PARENT);
	cr_assert_eq(l.n, 2);
	assert_current(w, NULL);
	close(fd);
	mntsnap_watch_free(w);
	free(l.e);
}

LTest(watch, mount_beneath)
{
	beneath(false);
}
LTest(watch, mount_beneath_pollpri)
{
	beneath(true);
}

/*
 * /proc of the watching namespace overmounted by a tmpfs whose
 * thread-self/ns/mnt and thread-self/mountinfo are FIFOs: the watcher
 * takes its namespace file and mountinfo from a checked procfs only, so
 * setup neither hangs in open() nor polls a made-up file. fanotify still
 * watches (by an nsfs fd found another way, or not at all); the POLLPRI
 * route has nothing to poll and says so. Before, open() blocked forever.
 */
static void hostile_proc(bool pollpri)
{
	MNTSNAP_OPTS(mntsnap_watch_opts, o);
	struct mntsnap_watch *w = NULL;
	struct evlist l = {0};
	int r;

	ms_private_ns(BASE);
	mnt("fake", "/proc", "tmpfs", 0, NULL);
	cr_assert_eq(mkdir("/proc/thread-self", 0755), 0);
	cr_assert_eq(mkdir("/proc/thread-self/ns", 0755), 0);
	cr_assert_eq(mkfifo("/proc/thread-self/mountinfo", 0600), 0);
	cr_assert_eq(mkfifo("/proc/thread-self/ns/mnt", 0600), 0);
	alarm(10); /* a hang is a failure, not a stuck suite */
	r = mntsnap__watch_new_with(&o, (pollpri ? &enosys_ops : NULL), &w);
	alarm(0);
	if (pollpri) {
		cr_assert_eq(r, -EOPNOTSUPP, "watch_new: %d", r);
	} else if (!r) {
		mnt("h", BASE "/h", "tmpfs", 0, NULL);
		cr_assert_geq(wait_events(w, &l, 1), 0);
		cr_assert(find_ev(&l, MNTSNAP_WATCH_MOUNT, kernel_id(BASE "/h")));
	} else {
		cr_assert_eq(r, -EOPNOTSUPP, "watch_new: %s", strerror(-r));
	}
	mntsnap_watch_free(w);
	free(l.e);
	cr_assert_eq(umount("/proc"), 0);
}

LTest(watch, hostile_proc_never_opened)
{
	hostile_proc(false);
}
LTest(watch, hostile_proc_never_opened_pollpri)
{
	hostile_proc(true);
}

/* statmount that fails with *(int *)ctx once, when armed */
static long failing_statmount(void *ctx, const struct mntsnap_k_mnt_id_req *req,
			      struct mntsnap_k_statmount *buf, size_t bufsize, unsigned flags)
{
	int *fail = ctx;

	if (*fail) {
		long r = -*fail;

		*fail = 0;
		return r;
	}
	return mntsnap__sys_statmount(NULL, req, buf, bufsize, flags);
}

/*
 * A statmount failing mid-drain (EIO; ENOMEM, which also drops the rest
 * of what was read from the fanotify queue) fails that drain, and the
 * watcher's fd wakes by itself for the resync that repairs the table:
 * nothing else may ever change to wake a caller that waits on the fd.
 * Before, the fd stayed quiet (the mounts were lost until some later
 * change) and ENOMEM never resynced at all.
 */
static void drain_error(int err)
{
	struct mntsnap_sysops ops = {.statmount = failing_statmount};
	MNTSNAP_OPTS(mntsnap_watch_opts, o);
	struct pollfd p;
	struct evlist l = {0};
	struct mntsnap_watch *w;
	int fail = 0, r;

	ops.ctx = &fail;
	ms_private_ns(BASE);
	cr_assert_eq(mntsnap__watch_new_with(&o, &ops, &w), 0);
	if (mntsnap_watch_route(w) != MNTSNAP_WATCH_ROUTE_FANOTIFY)
		cr_skip_test("no fanotify mount events on this kernel");
	p = (struct pollfd){.fd = mntsnap_watch_fd(w), .events = POLLIN};
	fail = err;
	mnt("e1", BASE "/e1", "tmpfs", 0, NULL);
	mnt("e2", BASE "/e2", "tmpfs", 0, NULL);
	cr_assert_eq(poll(&p, 1, 5000), 1);
	r = mntsnap_watch_drain(w);
	cr_assert_eq(r, -err, "drain: %d", r);
	cr_assert_eq(fail, 0, "the failure was injected");
	for (int i = 0; i < 3 && !l.resyncs; i++) {
		cr_assert_eq(poll(&p, 1, 5000), 1, "the fd must wake for the resync");
		cr_assert_geq(mntsnap_watch_drain(w), 0);
		collect(w, &l);
	}
	cr_assert_eq(l.resyncs, 1);
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOUNT, kernel_id(BASE "/e1")));
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOUNT, kernel_id(BASE "/e2")));
	assert_current(w, NULL);
	mntsnap_watch_free(w);
	free(l.e);
}

LTest(watch, drain_error_eio_wakes_for_resync)
{
	drain_error(EIO);
}
LTest(watch, drain_error_enomem_wakes_for_resync)
{
	drain_error(ENOMEM);
}

/*
 * A caller without stdin/stdout/stderr: none of the watcher's fds may land
 * on 0-2, where a later printf or a child's stdio would reach them (the
 * watcher's mountinfo fds and timer took 0, 1 and 2 before). Both routes.
 */
LTest(watch, fds_stay_off_stdio)
{
	for (int pollpri = 0; pollpri < 2; pollpri++) {
		pid_t pid;
		int st;

		ms_private_ns(BASE);
		pid = fork();
		cr_assert_geq(pid, 0);
		if (!pid) {
			MNTSNAP_OPTS(mntsnap_watch_opts, o);
			struct mntsnap_watch *w;
			int bad = 0;

			close(0);
			close(1);
			close(2);
			if (mntsnap__watch_new_with(&o, (pollpri ? &enosys_ops : NULL), &w))
				_exit(3);
			mkdir(BASE "/stdio", 0755);
			if (mount("s", BASE "/stdio", "tmpfs", 0, NULL))
				_exit(5);
			if (mntsnap_watch_drain(w) < 0)
				_exit(4);
			for (int fd = 0; fd < 3; fd++)
				bad |= fcntl(fd, F_GETFD) >= 0;
			mntsnap_watch_free(w);
			_exit(bad ? 1 : 0);
		}
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		cr_assert(WIFEXITED(st), "child died");
		cr_assert_eq(WEXITSTATUS(st), 0, "route %d: a watcher fd on 0-2 (status %d)",
			     pollpri, WEXITSTATUS(st));
	}
}

/* ---- the fallback route: fanotify refused the way kernels and filters do ---------- */

static long refuse_mark(void *ctx, int fd, unsigned flags, uint64_t mask, int dirfd,
			const char *path)
{
	(void)fd, (void)flags, (void)mask, (void)dirfd, (void)path;
	return -(long)(intptr_t)ctx;
}

/* EINVAL (a kernel before 6.15 knows no FAN_REPORT_MNT/FAN_MARK_MNTNS),
 * EPERM (seccomp): the POLLPRI route, with the same events. */
Test(watch, fanotify_refused_falls_back_to_pollpri)
{
	static const int errs[] = {EINVAL, EPERM, EACCES};

	ms_private_ns(BASE);
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct mntsnap_sysops ops = {.fanotify_mark = refuse_mark,
					     .ctx = (void *)(intptr_t)errs[i]};
		MNTSNAP_OPTS(mntsnap_watch_opts, o);
		struct evlist l = {0};
		struct mntsnap_watch *w;
		char p[64];
		uint64_t id;
		int fds = ms_count_fds();

		cr_assert_eq(mntsnap__watch_new_with(&o, &ops, &w), 0);
		cr_assert_eq(mntsnap_watch_route(w), MNTSNAP_WATCH_ROUTE_POLLPRI);
		cr_assert_eq(ms_count_fds(), fds + 4,
			     "epoll + two mountinfo fds + the timer, no fanotify fd");
		snprintf(p, sizeof(p), BASE "/f%zu", i);
		mnt("f", p, "tmpfs", 0, NULL);
		id = kernel_id(p);
		cr_assert_geq(wait_events(w, &l, 1), 0);
		cr_assert_eq(l.n, 1);
		cr_assert(find_ev(&l, MNTSNAP_WATCH_MOUNT, id));
		assert_current(w, NULL);
		mntsnap_watch_free(w);
		cr_assert_eq(ms_count_fds(), fds);
		free(l.e);
	}
}

/* A remount that lands in the same drain as a mount: POLLPRI cannot say it
 * stood for two changes. The settle sweep finds it; NO_SETTLE does not. */
static void coincide(bool settle)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	uint64_t a, b;

	ms_private_ns(BASE);
	mnt("c", BASE "/a", "tmpfs", 0, NULL);
	a = kernel_id(BASE "/a");
	w = watch_route(NULL, false, settle ? 0 : MNTSNAP_WATCH_NO_SETTLE);
	mnt(NULL, BASE "/a", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	mnt("c", BASE "/b", "tmpfs", 0, NULL);
	b = kernel_id(BASE "/b");
	cr_assert_geq(wait_events(w, &l, settle ? 2 : 1), 0);
	cr_assert(find_ev(&l, MNTSNAP_WATCH_MOUNT, b));
	if (!settle) {
		const struct mntsnap_snapshot *s;
		struct mntsnap_mount m;

		cr_assert_eq(l.n, 1, "no settle sweep: the remount goes unseen");
		cr_assert_eq(mntsnap_watch_snapshot(w, &s), 0);
		mntsnap_snapshot_get(s, (size_t)mntsnap_snapshot_find(s, a), &m);
		cr_assert_not(m.attr & MNTSNAP_ATTR_RDONLY);
		/* but sync (watch --save, --no-settle) still makes the snapshot
		 * a fresh capture's equal: it sweeps after such a coincidence */
		cr_assert_eq(mntsnap_watch_sync(w), 1, "sync sweeps what no settle skipped");
		collect(w, &l);
		cr_assert(find_ev(&l, MNTSNAP_WATCH_CHANGE, a));
		assert_current(w, NULL);
	} else {
		cr_assert_eq(l.n, 2);
		cr_assert(find_ev(&l, MNTSNAP_WATCH_CHANGE, a));
		assert_current(w, NULL);
	}
	mntsnap_watch_free(w);
	free(l.e);
}

LTest(watch, remount_with_mount_in_one_drain_settle_sweep)
{
	coincide(true);
}
LTest(watch, remount_with_mount_in_one_drain_no_settle)
{
	coincide(false);
}

/* ---- foreign namespaces -------------------------------------------------------------- */

/* A process in its own mount namespace that mounts what it is told to. */
struct target {
	pid_t pid;
	int cmd, ack;
};

static void target_loop(int cmd, int ack, bool slave)
{
	char line[256];
	FILE *in = fdopen(cmd, "r");

	if (unshare(CLONE_NEWNS) || (slave && mount(NULL, BASE "/shared", NULL, MS_SLAVE, NULL)))
		_exit(1);
	if (write(ack, "k", 1) != 1)
		_exit(1);
	while (fgets(line, sizeof(line), in)) {
		char *path = line + 2;
		int r = 0;

		path[strcspn(path, "\n")] = '\0';
		if (line[0] == 'm') {
			mkdir(path, 0755);
			r = mount("t", path, "tmpfs", 0, NULL);
		} else if (line[0] == 'u') {
			r = umount(path);
		} else if (line[0] == 's') {
			r = mount(NULL, path, NULL, MS_SLAVE, NULL);
		} else if (line[0] == 'r') {
			r = mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
		} else if (line[0] == 'q') {
			_exit(0);
		}
		if (write(ack, r ? "e" : "k", 1) != 1)
			_exit(1);
	}
	_exit(0);
}

static struct target target_start(bool slave)
{
	int c[2], a[2];
	struct target t;
	char k;

	cr_assert_eq(pipe2(c, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(a, O_CLOEXEC), 0);
	t.pid = fork();
	cr_assert_geq(t.pid, 0);
	if (!t.pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(c[1]);
		close(a[0]);
		target_loop(c[0], a[1], slave);
	}
	close(c[0]);
	close(a[1]);
	t.cmd = c[1];
	t.ack = a[0];
	cr_assert_eq(read(t.ack, &k, 1), 1);
	cr_assert_eq(k, 'k', "target could not set up its namespace");
	return t;
}

static void target_do(struct target *t, char op, const char *path)
{
	char line[256], k;
	int n = snprintf(line, sizeof(line), "%c %s\n", op, path);

	cr_assert_eq(write(t->cmd, line, (size_t)n), n);
	cr_assert_eq(read(t->ack, &k, 1), 1);
	cr_assert_eq(k, 'k', "target failed: %c %s", op, path);
}

static void target_end(struct target *t)
{
	int st;

	close(t->cmd);
	close(t->ack);
	kill(t->pid, SIGKILL);
	waitpid(t->pid, &st, 0);
}

static void watch_foreign(struct mntsnap_ns *ns, struct target *t)
{
	struct evlist l = {0};
	struct mntsnap_watch *w = watch_route(ns, false, 0);

	target_do(t, 'm', BASE "/in-target");
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_MOUNT);
	cr_assert_str_eq(l.e[0].mp, BASE "/in-target");
	/* the mount is the target's: here the path is a plain directory */
	cr_assert_neq(kernel_id(BASE "/in-target"), l.e[0].id);
	cr_assert_eq(kernel_id(BASE "/in-target"), kernel_id(BASE));
	assert_current(w, ns);
	l.n = 0;
	target_do(t, 'u', BASE "/in-target");
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_UMOUNT);
	assert_current(w, ns);
	mntsnap_watch_free(w);
	free(l.e);
}

LTest(watch, foreign_by_pid)
{
	struct mntsnap_ns *ns;
	struct target t;

	ms_private_ns(BASE);
	t = target_start(false);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	watch_foreign(ns, &t);
	mntsnap_ns_free(ns);
	target_end(&t);
}

LTest(watch, foreign_by_ns_file)
{
	struct mntsnap_ns *ns;
	struct target t;
	char p[64];

	ms_private_ns(BASE);
	t = target_start(false);
	/* an nsfs file by path: a handle with no process behind it. (Bind
	 * mounting it elsewhere first gives the same kind of handle, but that
	 * bind failed with EINVAL now and then with tests running in parallel
	 * under ASan; the cause was not pinned down.) */
	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)t.pid);
	cr_assert_eq(mntsnap_ns_open_path(p, NULL, &ns), 0);
	watch_foreign(ns, &t);
	mntsnap_ns_free(ns);
	target_end(&t);
}

/* By namespace id alone: queried by id, the fanotify mark's fd found by id. */
LTest(watch, foreign_by_ns_id)
{
	struct mntsnap_ns *byfd, *ns;
	struct target t;

	ms_private_ns(BASE);
	t = target_start(false);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &byfd), 0);
	cr_assert_eq(mntsnap_ns_open_id(mntsnap_ns_id(byfd), NULL, &ns), 0);
	watch_foreign(ns, &t);
	mntsnap_ns_free(ns);
	mntsnap_ns_free(byfd);
	target_end(&t);
}

/* The target exits while watched: drain ends with -ESRCH, no hang. */
LTest(watch, target_exit_ends_watch)
{
	struct pollfd p;
	struct mntsnap_watch *w;
	struct mntsnap_ns *ns;
	struct target t;
	int r = 0;

	ms_private_ns(BASE);
	t = target_start(false);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	w = watch_route(ns, false, 0);
	cr_assert_eq(write(t.cmd, "q\n", 2), 2);
	p = (struct pollfd){.fd = mntsnap_watch_fd(w), .events = POLLIN};
	for (int i = 0; i < 10 && r != -ESRCH; i++) {
		cr_assert_eq(poll(&p, 1, 5000), 1,
			     "the watcher's fd must wake when the target exits");
		r = mntsnap_watch_drain(w);
		cr_assert(r >= 0 || r == -ESRCH, "drain: %s", strerror(-r));
	}
	cr_assert_eq(r, -ESRCH);
	cr_assert_eq(mntsnap_watch_drain(w), -ESRCH, "the end is final");
	mntsnap_watch_free(w);
	mntsnap_ns_free(ns);
	target_end(&t);
}

/*
 * A chroot()ed process of this namespace, by pid: its view, as its
 * /proc/PID/mountinfo and a capture of the same handle show it - mount
 * points relative to its root, nothing outside it; a mount moved in from
 * outside appears (MOUNT), one moved out goes (UMOUNT). Before, the
 * watcher reported the whole namespace from the caller's root.
 */
static int enter_root(void *root)
{
	return chroot(root) || chdir("/") ? -1 : 0;
}

static void watch_chrooted(bool pollpri)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	struct mntsnap_ns *ns;
	const struct ev *e;
	pid_t pid;
	int st;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/cr");
	pid = ms_waiter_start(enter_root, BASE "/cr", "child could not chroot");
	cr_assert_eq(mntsnap_ns_open_pid(pid, NULL, &ns), 0);
	w = watch_route(ns, pollpri, 0);
	mnt("in", BASE "/cr/in", "tmpfs", 0, NULL);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_MOUNT);
	cr_assert_str_eq(l.e[0].mp, "/in", "relative to the process's root");
	cr_assert_eq(l.e[0].id, kernel_id(BASE "/cr/in"));
	assert_current(w, ns);
	/* outside its root: no event; the next mount inside is the only one */
	l.n = 0;
	mnt("out", BASE "/out", "tmpfs", 0, NULL);
	mnt("in2", BASE "/cr/in2", "tmpfs", 0, NULL);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1, "only the mount inside the root");
	cr_assert_str_eq(l.e[0].mp, "/in2");
	assert_current(w, ns);
	l.n = 0;
	ms_mkdir_p(BASE "/cr/mv");
	ms_mkdir_p(BASE "/cr/in3");
	mnt(BASE "/out", BASE "/cr/mv", NULL, MS_MOVE, NULL);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	e = find_ev(&l, MNTSNAP_WATCH_MOUNT, kernel_id(BASE "/cr/mv"));
	cr_assert(e && l.n == 1, "a mount moved in is a mount (%zu events)", l.n);
	cr_assert_str_eq(e->mp, "/mv");
	l.n = 0;
	mnt(BASE "/cr/in2", BASE "/cr/in3", NULL, MS_MOVE, NULL);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_MOVE);
	cr_assert_str_eq(l.e[0].mp, "/in3");
	cr_assert_str_eq(l.e[0].old_mp, "/in2");
	l.n = 0;
	ms_mkdir_p(BASE "/away");
	mnt(BASE "/cr/in", BASE "/away", NULL, MS_MOVE, NULL);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_UMOUNT, "a mount moved out is gone");
	cr_assert_str_eq(l.e[0].old_mp, "/in");
	assert_current(w, ns);
	cr_assert_eq(mntsnap_watch_sync(w), 0);
	assert_current(w, ns);
	mntsnap_watch_free(w);
	mntsnap_ns_free(ns);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	free(l.e);
}

LTest(watch, chrooted_pid_sees_its_root)
{
	watch_chrooted(false);
}

LTest(watch, chrooted_pid_sees_its_root_pollpri)
{
	watch_chrooted(true);
}

/*
 * No right to query the target's namespace (listmount/statmount of a
 * foreign namespace refused, as without CAP_SYS_ADMIN over its owner or
 * ptrace access to open it; no fanotify): a pid target is still watched,
 * as list reads it, from the process's mountinfo text, polled for
 * POLLPRI and read again on each change. Before, the watch refused with
 * EOPNOTSUPP ("Operation not supported") where list -N PID worked.
 */
static long foreign_refused_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req,
				      uint64_t *ids, size_t nr, unsigned flags)
{
	(void)ctx;
	if (req->mnt_ns_fd || (req->size > MNTSNAP_K_MNT_ID_REQ_SIZE_VER0 && req->mnt_ns_id))
		return -EPERM;
	return mntsnap__sys_listmount(NULL, req, ids, nr, flags);
}

static long foreign_refused_statmount(void *ctx, const struct mntsnap_k_mnt_id_req *req,
				      struct mntsnap_k_statmount *buf, size_t bufsize,
				      unsigned flags)
{
	(void)ctx;
	if (req->mnt_ns_fd || (req->size > MNTSNAP_K_MNT_ID_REQ_SIZE_VER0 && req->mnt_ns_id))
		return -EPERM;
	return mntsnap__sys_statmount(NULL, req, buf, bufsize, flags);
}

LTest(watch, foreign_pid_without_query_right_polls_its_mountinfo)
{
	const struct mntsnap_sysops ops = {.listmount = foreign_refused_listmount,
					   .statmount = foreign_refused_statmount,
					   .fanotify_init = no_fanotify,
					   .ctx = (void *)(intptr_t)EPERM};
	MNTSNAP_OPTS(mntsnap_watch_opts, o);
	const struct mntsnap_snapshot *live;
	struct mntsnap_watch *w = NULL;
	struct mntsnap_snapshot *text;
	struct evlist l = {0};
	struct mntsnap_diff *d;
	struct mntsnap_ns *ns;
	struct target t;
	int r;

	ms_private_ns(BASE);
	t = target_start(false);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	o.ns = ns;
	r = mntsnap__watch_new_with(&o, &ops, &w);
	cr_assert_eq(r, 0, "watch_new: %s", strerror(-r));
	cr_assert_eq(mntsnap_watch_route(w), MNTSNAP_WATCH_ROUTE_TEXT);
	target_do(&t, 'm', BASE "/in-target");
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_MOUNT);
	cr_assert_str_eq(l.e[0].mp, BASE "/in-target");
	l.n = 0;
	target_do(&t, 'm', BASE "/second");
	target_do(&t, 'u', BASE "/in-target");
	cr_assert_geq(wait_events(w, &l, 2), 0);
	cr_assert_eq(l.n, 2);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_UMOUNT, "umounts first, as in a diff");
	cr_assert_str_eq(l.e[0].old_mp, BASE "/in-target");
	cr_assert_eq(l.e[1].kind, MNTSNAP_WATCH_MOUNT);
	cr_assert_str_eq(l.e[1].mp, BASE "/second");
	/* the live table is the process's mountinfo, as list reads it */
	MNTSNAP_OPTS(mntsnap_capture_opts, c, .ns = ns, .backend = MNTSNAP_BACKEND_MOUNTINFO);
	cr_assert_eq(mntsnap_capture(&c, &text), 0);
	cr_assert_eq(mntsnap_watch_snapshot(w, &live), 0);
	cr_assert_eq(mntsnap_diff(live, text, &d), 0);
	cr_assert_eq(mntsnap_diff_count(d), 0, "live snapshot differs from the text");
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(text);
	mntsnap_watch_free(w);
	mntsnap_ns_free(ns);
	target_end(&t);
	free(l.e);
}

/* A mount made in the master namespace propagates into a slave namespace. */
LTest(watch, propagated_into_slave_namespace)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	struct mntsnap_ns *ns;
	struct target t;

	ms_private_ns(BASE);
	mnt("sh", BASE "/shared", "tmpfs", 0, NULL);
	mnt(NULL, BASE "/shared", NULL, MS_SHARED, NULL);
	t = target_start(true);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	w = watch_route(ns, false, 0);
	mnt("p", BASE "/shared/p", "tmpfs", 0, NULL);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_MOUNT);
	cr_assert_str_eq(l.e[0].mp, BASE "/shared/p");
	cr_assert_neq(l.e[0].id, kernel_id(BASE "/shared/p"), "the slave's copy is its own mount");
	assert_current(w, ns);
	l.n = 0;
	cr_assert_eq(umount(BASE "/shared/p"), 0);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_UMOUNT);
	assert_current(w, ns);
	mntsnap_watch_free(w);
	mntsnap_ns_free(ns);
	target_end(&t);
	free(l.e);
}

/*
 * The propagate_from /proc/PID/mountinfo shows for the mount at mp (0:
 * none shown); the line must be there.
 */
static uint32_t text_pf(pid_t pid, const char *mp)
{
	char path[64], needle[300], *text, *line, *save = NULL;
	uint32_t pf = 0;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	snprintf(needle, sizeof(needle), " %s ", mp);
	text = ms_read_file(path, NULL);
	cr_assert(text, "read %s", path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *p = strstr(line, needle);

		/* field 5, the mount point: after the "major:minor root" fields */
		if (!p || strstr(line, " - ") < p)
			continue;
		found = true;
		p = strstr(line, " propagate_from:");
		pf = p && p < strstr(line, " - ") ? (uint32_t)strtoul(p + 16, NULL, 10) : 0;
	}
	free(text);
	cr_assert(found, "%s not in the target's mountinfo", mp);
	return pf;
}

/* the last event at mount point mp, NULL if none */
static const struct ev *last_event_at(const struct evlist *l, const char *mp)
{
	const struct ev *e = NULL;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->e[i].mp, mp))
			e = &l->e[i];
	return e;
}

/* e's record carries propagate_from, the value the task's own mountinfo has for mp */
static void assert_pf_text(const struct ev *e, pid_t pid, const char *mp, const char *what)
{
	cr_assert(e->has_pf, "%s: present", what);
	cr_assert_eq(e->pf, text_pf(pid, mp), "%s", what);
}

/*
 * BASE/x shared (group X); BASE/y a bind of it, made a slave of X and
 * shared again (group Y, master X); the target's namespace a copy whose y
 * is made a slave of Y. Y then has no member in that namespace while X
 * has (its copy of x): the target's mountinfo shows y there as
 * "master:Y propagate_from:X".
 */
static struct target pf_target(void)
{
	struct target t;

	ms_private_ns(BASE);
	mnt("x", BASE "/x", "tmpfs", 0, NULL);
	mnt(NULL, BASE "/x", NULL, MS_SHARED, NULL);
	mnt(BASE "/x", BASE "/y", NULL, MS_BIND, NULL);
	mnt(NULL, BASE "/y", NULL, MS_SLAVE, NULL);
	mnt(NULL, BASE "/y", NULL, MS_SHARED, NULL);
	t = target_start(false);
	target_do(&t, 's', BASE "/y");
	cr_assert_neq(text_pf(t.pid, BASE "/y"), 0, "the setup makes a propagate_from");
	return t;
}

/* The record of the watcher's snapshot at mount point mp. */
static void snap_rec(struct mntsnap_watch *w, const char *mp, struct mntsnap_mount *ret)
{
	const struct mntsnap_snapshot *s;

	cr_assert_eq(mntsnap_watch_snapshot(w, &s), 0);
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		cr_assert_eq(mntsnap_snapshot_get(s, i, ret), 0);
		if (ret->mount_point && !strcmp(ret->mount_point, mp))
			return;
	}
	cr_assert_fail("%s not in the watcher's snapshot", mp);
}

/*
 * A pid target in another namespace whose root is that namespace's: the
 * watcher queries the namespace from outside, where statmount computes
 * propagate_from from our root and so never names a group. The records it
 * starts with and the ones a drain fetches (a remount, a propagated
 * mount) carry the process's own mountinfo's propagate_from, as findmnt
 * -N PID and list -N PID show it. Before, a remount showed "master:Y"
 * where the text says "master:Y propagate_from:X".
 */
static void pid_whole_pf(bool pollpri)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	struct mntsnap_mount m;
	struct mntsnap_ns *ns;
	const struct ev *e = NULL;
	struct target t = pf_target();

	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	w = watch_route(ns, pollpri, 0);
	snap_rec(w, BASE "/y", &m);
	cr_assert(m.mask & MNTSNAP_F_PROPAGATE_FROM, "at setup: present");
	cr_assert_eq(m.propagate_from, text_pf(t.pid, BASE "/y"), "at setup");
	target_do(&t, 'r', BASE "/y");
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_eq(l.n, 1);
	cr_assert_eq(l.e[0].kind, MNTSNAP_WATCH_CHANGE);
	cr_assert_str_eq(l.e[0].mp, BASE "/y");
	assert_pf_text(&l.e[0], t.pid, BASE "/y", "a remount's record");
	/* a mount propagated from here to the target's y/sub, fetched whole */
	l.n = 0;
	mnt("pp", BASE "/x/sub", "tmpfs", 0, NULL);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	e = last_event_at(&l, BASE "/y/sub");
	cr_assert(e && e->kind == MNTSNAP_WATCH_MOUNT, "y/sub propagated (%zu events)", l.n);
	assert_pf_text(e, t.pid, BASE "/y/sub", "a new mount's record");
	assert_current(w, ns);
	mntsnap_watch_free(w);
	mntsnap_ns_free(ns);
	target_end(&t);
	free(l.e);
}

LTest(watch, foreign_pid_propagate_from_is_its_text)
{
	pid_whole_pf(false);
}

LTest(watch, foreign_pid_propagate_from_is_its_text_pollpri)
{
	pid_whole_pf(true);
}

/*
 * The same at a resync: a statmount failing mid-drain makes the watcher
 * capture again, and the records of that capture (the remount's, reported
 * by the resync's diff) take the process's text's propagate_from too.
 */
LTest(watch, foreign_pid_propagate_from_at_resync)
{
	struct mntsnap_sysops ops = {.statmount = failing_statmount};
	MNTSNAP_OPTS(mntsnap_watch_opts, o);
	struct evlist l = {0};
	struct mntsnap_watch *w;
	struct mntsnap_ns *ns;
	struct pollfd p;
	const struct ev *e = NULL;
	struct target t = pf_target();
	int fail = 0, r;

	ops.ctx = &fail;
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	o.ns = ns;
	r = mntsnap__watch_new_with(&o, &ops, &w);
	cr_assert_eq(r, 0, "watch_new: %s", strerror(-r));
	p = (struct pollfd){.fd = mntsnap_watch_fd(w), .events = POLLIN};
	fail = EIO;
	target_do(&t, 'r', BASE "/y");
	cr_assert_eq(poll(&p, 1, 5000), 1);
	r = mntsnap_watch_drain(w);
	cr_assert_eq(r, -EIO, "drain: %d", r);
	for (int i = 0; i < 3 && !l.resyncs; i++) {
		cr_assert_eq(poll(&p, 1, 5000), 1, "the fd must wake for the resync");
		cr_assert_geq(mntsnap_watch_drain(w), 0);
		collect(w, &l);
	}
	cr_assert_eq(l.resyncs, 1);
	e = last_event_at(&l, BASE "/y");
	cr_assert(e && e->kind == MNTSNAP_WATCH_CHANGE, "the remount, by the resync's diff");
	assert_pf_text(e, t.pid, BASE "/y", "a resync's record");
	assert_current(w, ns);
	mntsnap_watch_free(w);
	mntsnap_ns_free(ns);
	target_end(&t);
	free(l.e);
}

/*
 * A namespace handle has no process whose text could say what
 * propagate_from is from the namespace's root, and statmount from here
 * never names one: the watcher leaves it absent (the record's mask lacks
 * it), at setup and in events, never "none". Before, every record said
 * "none", also where the namespace's mountinfo says propagate_from:X.
 */
LTest(watch, foreign_ns_file_propagate_from_absent)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	struct mntsnap_mount m;
	struct mntsnap_ns *ns;
	struct target t = pf_target();
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)t.pid);
	cr_assert_eq(mntsnap_ns_open_path(p, NULL, &ns), 0);
	w = watch_route(ns, false, 0);
	snap_rec(w, BASE "/y", &m);
	cr_assert_not(m.mask & MNTSNAP_F_PROPAGATE_FROM, "at setup: absent, not %u",
		      m.propagate_from);
	mnt("pp", BASE "/x/sub", "tmpfs", 0, NULL);
	cr_assert_geq(wait_events(w, &l, 1), 0);
	cr_assert_geq(l.n, 1);
	for (size_t i = 0; i < l.n; i++)
		cr_assert_not(l.e[i].has_pf, "%s: absent, not %u", l.e[i].mp, l.e[i].pf);
	assert_current(w, ns);
	mntsnap_watch_free(w);
	mntsnap_ns_free(ns);
	target_end(&t);
	free(l.e);
}

/* ---- overflow, storm, leaks ------------------------------------------------------------ */

/* More than 16,384 events queued: the kernel drops the rest and says so. */
LTest(watch, overflow_resyncs, .timeout = 120)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	const int n = 16500;

	ms_private_ns(BASE);
	mnt("o", BASE "/o", "tmpfs", 0, NULL);
	/* bind from a mount without children: a bind walks the source's */
	mnt("src", BASE "/src", "tmpfs", 0, NULL);
	w = watch_route(NULL, false, 0);
	for (int i = 0; i < n; i++) {
		char p[64];

		snprintf(p, sizeof(p), BASE "/o/%d", i);
		mnt(BASE "/src", p, NULL, MS_BIND, NULL);
	}
	cr_assert_geq(mntsnap_watch_drain(w), 0);
	collect(w, &l);
	cr_assert_eq(l.resyncs, 1, "an overflow must be reported as a resync");
	cr_assert_eq(l.n, (size_t)n, "every new mount reported once by the resync's diff");
	assert_current(w, NULL);
	l.n = 0;
	l.resyncs = 0;
	cr_assert_eq(umount2(BASE "/o", MNT_DETACH), 0);
	cr_assert_geq(wait_events(w, &l, (size_t)n + 1), 0);
	cr_assert_eq(l.resyncs, 1);
	cr_assert_eq(l.n, (size_t)n + 1);
	assert_current(w, NULL);
	mntsnap_watch_free(w);
	free(l.e);
}

#define SLOTS 48

/* Random mounts, binds, moves, remounts and umounts for secs seconds;
 * writes "M id" / "U id" for every mount made / removed to fd (ids from
 * statx, the kernel's word). */
static void storm_worker(int fd, unsigned secs)
{
	bool used[SLOTS] = {false};
	time_t end = time(NULL) + secs;
	char p[64], q[64];
	unsigned seed = 17;

	for (int i = 0; i < SLOTS; i++) {
		snprintf(p, sizeof(p), BASE "/s/%d", i);
		mkdir(p, 0755);
	}
	while (time(NULL) < end) {
		int a = rand_r(&seed) % SLOTS, b = rand_r(&seed) % SLOTS, op = rand_r(&seed) % 7;
		struct statx st;

		snprintf(p, sizeof(p), BASE "/s/%d", a);
		snprintf(q, sizeof(q), BASE "/s/%d", b);
		if (!used[a] || op == 0) {
			if (used[a] || mount("storm", p, "tmpfs", 0, "size=1m"))
				continue;
			used[a] = true;
		} else if (op == 1 && !used[b]) {
			if (mount(p, q, NULL, MS_BIND, NULL))
				_exit(2);
			used[b] = true;
			strcpy(p, q);
		} else if (op == 2 && !used[b]) {
			if (mount(p, q, NULL, MS_MOVE, NULL))
				_exit(3);
			used[a] = false;
			used[b] = true;
			continue;
		} else if (op == 3) {
			mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | (b & 1 ? MS_RDONLY : 0), NULL);
			continue;
		} else if (op == 4) {
			mount(NULL, p, NULL, MS_REMOUNT, b & 1 ? "size=2m" : "size=1m");
			continue;
		} else {
			if (statx(AT_FDCWD, p, 0, 0x4000, &st) || umount(p))
				_exit(4);
			used[a] = false;
			dprintf(fd, "U %llu\n", (unsigned long long)st.stx_mnt_id);
			continue;
		}
		if (statx(AT_FDCWD, p, 0, 0x4000, &st))
			_exit(5);
		dprintf(fd, "M %llu\n", (unsigned long long)st.stx_mnt_id);
	}
	_exit(0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ids of the events of one kind, sorted: counts by binary search */
static uint64_t *ids_of(const struct evlist *l, int kind, size_t *ret_n)
{
	uint64_t *v = malloc((l->n + 1) * sizeof(*v));
	size_t n = 0;

	cr_assert(v);
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].kind == kind)
			v[n++] = l->e[i].id;
	qsort(v, n, sizeof(*v), cmp_u64);
	*ret_n = n;
	return v;
}

static size_t count_id(const uint64_t *v, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n, c = 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + c < n && v[lo + c] == id)
		c++;
	return c;
}

/*
 * A storm of changes while watching: afterwards the snapshot equals a fresh
 * capture, and no mount or umount was reported twice; each mount still
 * there was reported once, and each removed one either with its umount or,
 * when both landed in one drain, not at all (nothing left to describe).
 */
Test(watch, storm, .timeout = 120)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	struct pollfd p;
	int st;
	size_t folded = 0, nm = 0, nu = 0, nevm, nevu, len;
	uint64_t *mounted, *removed, *evm, *evu;
	char *log, *line, *save;
	pid_t pid;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/s");
	w = watch_route(NULL, false, 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		storm_worker(open(BASE "/storm.log", O_WRONLY | O_CREAT | O_CLOEXEC, 0600), 30);
	}
	p = (struct pollfd){.fd = mntsnap_watch_fd(w), .events = POLLIN};
	while (waitpid(pid, &st, WNOHANG) == 0) {
		poll(&p, 1, 100);
		cr_assert_geq(mntsnap_watch_drain(w), 0);
		collect(w, &l);
	}
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "storm worker failed: %d", st);
	cr_assert_geq(mntsnap_watch_sync(w), 0);
	collect(w, &l);
	assert_current(w, NULL);

	log = ms_read_file(BASE "/storm.log", &len);
	mounted = malloc((len / 4 + 1) * sizeof(*mounted));
	removed = malloc((len / 4 + 1) * sizeof(*removed));
	cr_assert(mounted && removed);
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == 'M')
			mounted[nm++] = strtoull(line + 2, NULL, 10);
		else
			removed[nu++] = strtoull(line + 2, NULL, 10);
	}
	qsort(removed, nu, sizeof(*removed), cmp_u64);
	evm = ids_of(&l, MNTSNAP_WATCH_MOUNT, &nevm);
	evu = ids_of(&l, MNTSNAP_WATCH_UMOUNT, &nevu);
	for (size_t i = 0; i < nm; i++) {
		uint64_t id = mounted[i];
		size_t m = count_id(evm, nevm, id), u = count_id(evu, nevu, id);
		bool gone = count_id(removed, nu, id) > 0;

		cr_assert_leq(m, 1, "mount %llu reported %zu times", (unsigned long long)id, m);
		cr_assert_leq(u, 1, "umount %llu reported %zu times", (unsigned long long)id, u);
		if (!gone)
			cr_assert_eq(m, 1, "mount %llu never reported", (unsigned long long)id);
		else
			cr_assert_eq(m, u, "mount %llu: %zu mount and %zu umount events",
				     (unsigned long long)id, m, u);
		folded += gone && !m;
	}
	/* and nothing reported that the storm did not do */
	cr_assert_eq(nevm + folded, nm, "mount events for mounts never made");
	cr_assert_eq(nevu + folded, nu, "umount events for mounts never removed");
	cr_assert_gt(nm, 100, "the storm made too few mounts (%zu)", nm);
	cr_log_info("storm: %zu mounts, %zu events, %zu mount+umount pairs within one drain", nm,
		    l.n, folded);
	free(log);
	free(mounted);
	free(removed);
	free(evm);
	free(evu);
	mntsnap_watch_free(w);
	free(l.e);
}

/* 10,000 events: no fd and (under LeakSanitizer) no byte left behind. */
LTest(watch, ten_thousand_events_leak_nothing, .timeout = 120)
{
	struct evlist l = {0};
	struct mntsnap_watch *w;
	int fds;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/l");
	fds = ms_count_fds();
	w = watch_route(NULL, false, 0);
	/* each change drained on its own: a pair in one drain folds away */
	for (int i = 0; i < 5000; i++) {
		mnt("l", BASE "/l", "tmpfs", 0, NULL);
		cr_assert_geq(wait_events(w, &l, l.n + 1), 0);
		cr_assert_eq(umount(BASE "/l"), 0);
		cr_assert_geq(wait_events(w, &l, l.n + 1), 0);
	}
	cr_assert_eq(l.n, 10000, "events: %zu", l.n);
	assert_current(w, NULL);
	mntsnap_watch_free(w);
	cr_assert_eq(ms_count_fds(), fds, "fds left open");
	free(l.e);
}

/* ---- the CLI: mntsnap watch ------------------------------------------------------ */

static const char *bin(void)
{
	const char *b = getenv("MNTSNAP_BIN");

	if (!b)
		cr_skip_test("MNTSNAP_BIN not set (run through meson test)");
	return b;
}

/* Run argv with stdout into the file out (stderr too, into out.err). */
static pid_t spawn(const char *out, char *const argv[])
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid) {
		char err[256];

		/* a failed assertion ends the test: never leave the child behind */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), efd;

		snprintf(err, sizeof(err), "%s.err", out);
		efd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || efd < 0 || dup2(fd, 1) < 0 || dup2(efd, 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/*
 * Wait (5 s at most) until pid runs comm (exec done: the forked test
 * process may have had fds of its own) and holds an fd whose link names
 * what: mntsnap's watcher makes its epoll fd after the first capture, so
 * every later change is an event; findmnt opens mountinfo, then reads the
 * table once before it polls.
 */
static void wait_ready(pid_t pid, const char *comm, const char *what)
{
	for (int tries = 0; tries < 500; tries++) {
		char path[320], link[64], c[32] = "";
		ssize_t n;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		f = fopen(path, "re");
		if (f) {
			if (!fgets(c, sizeof(c), f))
				c[0] = '\0';
			fclose(f);
		}
		c[strcspn(c, "\n")] = '\0';
		for (int fd = 3; fd < 16 && !strcmp(c, comm); fd++) {
			snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
			n = readlink(path, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = '\0';
				if (strstr(link, what))
					return;
			}
		}
		usleep(10000);
	}
	cr_assert_fail("process %d never set up its event sources", (int)pid);
}

static size_t count_lines(const char *path)
{
	size_t len, n = 0;
	char *t;

	if (access(path, F_OK))
		return 0; /* not created yet */
	t = ms_read_file(path, &len);

	for (size_t i = 0; t && i < len; i++)
		n += t[i] == '\n';
	free(t);
	return n;
}

/* Wait (5 s at most) until path has at least n lines. */
static void wait_lines(const char *path, size_t n)
{
	for (int tries = 0; tries < 500 && count_lines(path) < n; tries++)
		usleep(10000);
	cr_assert_geq(count_lines(path), n, "%s: fewer than %zu lines", path, n);
}

/* Reap pid (10 s at most, else kill it and fail); its exit status. */
static int reap(pid_t pid)
{
	int st;

	for (int tries = 0; tries < 1000; tries++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	cr_assert_fail("process %d did not stop", (int)pid);
	return -1;
}

static int run_cli(char *const argv[])
{
	return reap(spawn(BASE "/run.out", argv));
}

/* ---- findmnt --poll next to mntsnap ------------------------------------------------ */

/* One side-by-side run: findmnt first (the oracle), then mntsnap's runs. */
struct sbs {
	pid_t pid[4];
	char out[4][256];
	int n;
};

/* A private namespace with a tmpfs at BASE/out for the outputs; skip without findmnt. */
static void sbs_setup(void)
{
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/out");
	mnt("out", BASE "/out", "tmpfs", 0, NULL);
	if (system("findmnt --version >/dev/null 2>&1"))
		cr_skip_test("findmnt not installed");
}

/*
 * sbs_setup() and a source for binds: a tmpfs at BASE/src with the
 * directory dir and a file in it, and a file BASE/onfile to bind onto.
 */
static void sbs_setup_src(const char *dir)
{
	int fd;

	sbs_setup();
	mnt("src", BASE "/src", "tmpfs", 0, NULL);
	ms_mkdir_p(dir);
	fd = open(BASE "/src/file", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	fd = open(BASE "/onfile", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
}

/*
 * Start argv[0] (findmnt) and the mntsnap runs argv[1..n), each writing
 * to BASE/out/<out[i]>, and wait until every one watches: findmnt has
 * opened mountinfo and read it once (nothing to see that by: 0.3 s),
 * each mntsnap has made its epoll fd, after its first capture.
 */
static void sbs_start(struct sbs *s, int n, char **const argv[], const char *const out[])
{
	s->n = n;
	for (int i = 0; i < n; i++) {
		snprintf(s->out[i], sizeof(s->out[i]), BASE "/out/%s", out[i]);
		s->pid[i] = spawn(s->out[i], argv[i]);
	}
	wait_ready(s->pid[0], "findmnt", "mountinfo");
	usleep(300000);
	for (int i = 1; i < n; i++)
		wait_ready(s->pid[i], "mntsnap", "eventpoll");
}

/*
 * After one change: wait (5 s at most) until findmnt printed more than
 * prev lines, then until every mntsnap run has as many; findmnt's count.
 */
static size_t sbs_sync(const struct sbs *s, size_t prev)
{
	size_t n;

	wait_lines(s->out[0], prev + 1);
	usleep(50000); /* the rest of findmnt's batch */
	n = count_lines(s->out[0]);
	for (int i = 1; i < s->n; i++)
		wait_lines(s->out[i], n);
	return n;
}

/*
 * SIGTERM to every run; each mntsnap ends cleanly, then dies of the
 * signal, as findmnt (no handler) dies of it.
 */
static void sbs_stop(struct sbs *s)
{
	int fm;

	for (int i = 0; i < s->n; i++)
		kill(s->pid[i], SIGTERM);
	fm = reap(s->pid[0]);
	cr_assert_eq(fm, 128 + SIGTERM, "findmnt dies of SIGTERM");
	for (int i = 1; i < s->n; i++)
		cr_assert_eq(reap(s->pid[i]), fm, "SIGTERM ends mntsnap as findmnt");
}

/* BASE/out/<mine> equals BASE/out/<oracle> byte for byte; the oracle's text (free it). */
static char *sbs_assert_same(const char *mine, const char *oracle)
{
	char pa[256], pb[256], what[128], *a, *b;
	size_t len;

	snprintf(pa, sizeof(pa), BASE "/out/%s", oracle);
	snprintf(pb, sizeof(pb), BASE "/out/%s", mine);
	snprintf(what, sizeof(what), "mntsnap (%s) vs findmnt --poll (%s)", mine, oracle);
	a = ms_read_file(pa, &len);
	b = ms_read_file(pb, &len);
	ms_assert_text_eq(b, a, what);
	free(b);
	return a;
}

#define COLS "ACTION,TARGET,SOURCE,FSTYPE,OPTIONS,OLD-TARGET,OLD-OPTIONS"

/*
 * The same changes, one at a time: mntsnap watch prints findmnt --poll -r's
 * lines, on both routes; a mount point with a space shows findmnt's \x20,
 * one with a backslash, a tab, a newline, UTF-8 and bytes that are not
 * UTF-8 shows each of them as \xNN as findmnt does.
 */
static void vs_findmnt(bool pollpri)
{
	char *fm[] = {"findmnt", "--poll", "-r", "-o", COLS, NULL};
	char *ms[] = {(char *)bin(), "watch", "-o", COLS, pollpri ? "--pollpri" : NULL, NULL};
	struct sbs sbs;

	sbs_setup();
	sbs_start(&sbs, 2, (char **const[]){fm, ms},
		  (const char *const[]){"findmnt", "mntsnap"});
	wait_lines(BASE "/out/mntsnap", 1); /* header: the first capture is done */

	struct {
		const char *src, *dst, *type, *data;
		unsigned long fl;
	} steps[] = {
	    {"a", BASE "/a", "tmpfs", "size=1m", 0},
	    {BASE "/a", BASE "/c", NULL, NULL, MS_BIND},
	    {BASE "/a", BASE "/b", NULL, NULL, MS_MOVE},
	    {NULL, BASE "/b", NULL, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY},
	    {NULL, BASE "/c", NULL, "size=2m", MS_REMOUNT},
	    {"sp", BASE "/with space", "tmpfs", "mode=700", 0},
	    /* findmnt -r writes every byte outside printable ASCII as \xNN */
	    {"n\xe9", BASE "/odd\\\t\n\xc3\xa9\xff\x7f~", "tmpfs", NULL, 0},
	};
	size_t n = 1;

	ms_mkdir_p(BASE "/b");
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		mnt(steps[i].src, steps[i].dst, steps[i].type, steps[i].fl, steps[i].data);
		n += i == 4 ? 2 : 1; /* a superblock remount changes both mounts */
		wait_lines(BASE "/out/findmnt", n);
		wait_lines(BASE "/out/mntsnap", n);
	}
	cr_assert_eq(umount(BASE "/b"), 0);
	wait_lines(BASE "/out/findmnt", n + 1);
	wait_lines(BASE "/out/mntsnap", n + 1);
	cr_assert_eq(umount(BASE "/with space"), 0);
	wait_lines(BASE "/out/findmnt", n + 2);
	wait_lines(BASE "/out/mntsnap", n + 2);
	cr_assert_eq(umount(BASE "/odd\\\t\n\xc3\xa9\xff\x7f~"), 0);
	wait_lines(BASE "/out/findmnt", n + 3);
	wait_lines(BASE "/out/mntsnap", n + 3);
	sbs_stop(&sbs);
	free(sbs_assert_same("mntsnap", "findmnt"));
}

Test(watch_cli, table_equals_findmnt_poll)
{
	vs_findmnt(false);
}
Test(watch_cli, table_equals_findmnt_poll_pollpri)
{
	vs_findmnt(true);
}

/*
 * findmnt's merge and findmnt's decisions: a read-only superblock makes
 * OPTIONS "ro" although the mount is rw, OLD-OPTIONS are the real previous
 * ones, and a change findmnt cannot see (propagation, a peer group) is no
 * line at all (the kernel signals neither a propagation change: both see
 * it at the next change they read the table for). Each step waits for
 * findmnt's lines (the oracle) and then for as many of mntsnap's; an extra
 * mntsnap line shows up in the comparison.
 */
static void vs_findmnt_merge(bool pollpri, bool all_changes)
{
	char *fm[] = {"findmnt", "--poll", "-r", "-o", COLS, NULL};
	char *ms[] = {(char *)bin(), "watch", "-o", COLS, pollpri ? "--pollpri" : NULL, NULL};
	char *msa[] = {(char *)bin(), "watch", "-o", "ACTION,TARGET,CHANGED", "--all-changes",
		       NULL};
	struct {
		const char *src, *dst, *type, *data;
		unsigned long fl;
		int lines; /* findmnt's lines for the step */
		int all;   /* and --all-changes' */
	} steps[] = {
	    {"none", BASE "/w", "tmpfs", NULL, 0, 1, 1},
	    {NULL, BASE "/w", NULL, NULL, MS_REMOUNT | MS_RDONLY, 1, 1},
	    {NULL, BASE "/w", NULL, NULL, MS_REMOUNT | MS_BIND, 1, 1},
	    /* no event of its own: the next sweep (f1's remount) sees it */
	    {NULL, BASE "/w", NULL, NULL, MS_SHARED, 0, 0},
	    {"f1", BASE "/f1", "tmpfs", NULL, 0, 1, 1},
	    {NULL, BASE "/f1", NULL, "size=1m", MS_REMOUNT, 1, 2},
	    /* seen with w's own option change: one remount */
	    {NULL, BASE "/w", NULL, NULL, MS_PRIVATE, 0, 0},
	    {NULL, BASE "/w", NULL, "size=1m", MS_REMOUNT, 1, 1},
	    {NULL, BASE "/w", NULL, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, 1, 1},
	    {NULL, BASE "/w", NULL, NULL, MS_REMOUNT, 1, 1},
	};
	struct sbs sbs;
	char *a;
	size_t len, n = 1, na = 1;

	sbs_setup();
	sbs_start(&sbs, all_changes ? 3 : 2, (char **const[]){fm, ms, msa},
		  (const char *const[]){"findmnt", "mntsnap", "all"});
	wait_lines(BASE "/out/mntsnap", 1);
	if (all_changes)
		wait_lines(BASE "/out/all", 1);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		mnt(steps[i].src, steps[i].dst, steps[i].type, steps[i].fl, steps[i].data);
		n += (size_t)steps[i].lines;
		na += (size_t)steps[i].all;
		wait_lines(BASE "/out/findmnt", n);
		wait_lines(BASE "/out/mntsnap", n);
		/* one change at a time for each watcher: none merges two */
		for (int t = 0; all_changes && t < 300 && count_lines(BASE "/out/all") < na; t++)
			usleep(10000);
	}
	sbs_stop(&sbs);
	a = sbs_assert_same("mntsnap", "findmnt");
	cr_assert(strstr(a, "remount " BASE "/w none tmpfs ro,relatime  ro,relatime\n"), "%s", a);
	free(a);
	if (all_changes) {
		a = ms_read_file(BASE "/out/all", &len);
		/* the invisible steps, under an action findmnt does not have */
		cr_assert(strstr(a, "\nchange " BASE "/w propagation,peer_group\n"), "%s", a);
		cr_assert_eq(count_lines(BASE "/out/all"), na, "%s", a);
		cr_assert_eq(na, n + 1);
		free(a);
	}
}

Test(watch_cli, merged_options_and_invisible_changes_equal_findmnt)
{
	vs_findmnt_merge(false, false);
}
Test(watch_cli, merged_options_and_invisible_changes_equal_findmnt_pollpri)
{
	vs_findmnt_merge(true, false);
}
Test(watch_cli, all_changes_prints_what_findmnt_cannot_see)
{
	vs_findmnt_merge(false, true);
}

/*
 * A mount point longer than PATH_MAX (mounted by a relative path from a
 * deep directory; mountinfo and statmount both give it whole): the line
 * is findmnt's, not cut at 4095 bytes as it was, and so is the JSON.
 */
Test(watch_cli, mount_point_past_path_max_equals_findmnt)
{
	char *fm[] = {"findmnt", "--poll", "-r", "-o", "ACTION,TARGET,OLD-TARGET", NULL};
	char *ms[] = {(char *)bin(), "watch", "-o", "ACTION,TARGET,OLD-TARGET", NULL};
	char *js[] = {(char *)bin(), "watch", "--json", NULL};
	char seg[201], *a, *j;
	size_t len, want;
	struct sbs sbs;

	sbs_setup();
	sbs_start(&sbs, 3, (char **const[]){fm, ms, js},
		  (const char *const[]){"findmnt", "mntsnap", "json"});
	wait_lines(BASE "/out/mntsnap", 1);

	memset(seg, 'd', 200);
	seg[200] = '\0';
	ms_mkdir_p(BASE "/deep");
	cr_assert_eq(chdir(BASE "/deep"), 0);
	for (int i = 0; i < 25; i++) {
		cr_assert_eq(mkdir(seg, 0755), 0);
		cr_assert_eq(chdir(seg), 0);
	}
	cr_assert_eq(mkdir("mp", 0755), 0);
	cr_assert_eq(mount("deep", "mp", "tmpfs", 0, NULL), 0, "%s", strerror(errno));
	wait_lines(BASE "/out/findmnt", 2);
	wait_lines(BASE "/out/mntsnap", 2);
	wait_lines(BASE "/out/json", 1);
	cr_assert_eq(umount("mp"), 0);
	cr_assert_eq(chdir("/"), 0);
	wait_lines(BASE "/out/findmnt", 3);
	wait_lines(BASE "/out/mntsnap", 3);
	wait_lines(BASE "/out/json", 2);
	sbs_stop(&sbs);
	a = sbs_assert_same("mntsnap", "findmnt");
	j = ms_read_file(BASE "/out/json", &len);
	want = strlen(BASE "/deep") + 25 * 201 + 3;
	cr_assert(strstr(j, "/mp\",\"uniq-id\""), "%s", j);
	cr_assert_gt(strcspn(j, "\n"), want, "the JSON line holds the whole path");
	free(a);
	free(j);
}

/*
 * A bind of a subdirectory and of a file: findmnt --poll's SOURCE is the
 * source with the mount's root appended, "src[/sub]", as in mntsnap list;
 * watch printed the bare source (found by tests/history-eq.py). Both
 * routes; mount and umount lines.
 */
static void bind_source_vs_findmnt(bool pollpri)
{
	char *fm[] = {"findmnt", "--poll", "-r", "-o", "ACTION,TARGET,SOURCE", NULL};
	char *ms[] = {(char *)bin(), "watch", "-o", "ACTION,TARGET,SOURCE",
		      pollpri ? "--pollpri" : NULL, NULL};
	char *a;
	struct sbs sbs;

	sbs_setup_src(BASE "/src/sub/deeper");
	sbs_start(&sbs, 2, (char **const[]){fm, ms},
		  (const char *const[]){"findmnt", "mntsnap"});
	wait_lines(BASE "/out/mntsnap", 1);

	mnt(BASE "/src/sub/deeper", BASE "/dir", NULL, MS_BIND, NULL);
	wait_lines(BASE "/out/findmnt", 2);
	wait_lines(BASE "/out/mntsnap", 2);
	mnt(BASE "/src/file", BASE "/onfile", NULL, MS_BIND, NULL);
	wait_lines(BASE "/out/findmnt", 3);
	wait_lines(BASE "/out/mntsnap", 3);
	cr_assert_eq(umount(BASE "/dir"), 0);
	wait_lines(BASE "/out/findmnt", 4);
	wait_lines(BASE "/out/mntsnap", 4);
	sbs_stop(&sbs);
	a = sbs_assert_same("mntsnap", "findmnt");
	cr_assert(strstr(a, "src[/sub/deeper]") && strstr(a, "src[/file]"), "findmnt: %s", a);
	free(a);
}

Test(watch_cli, bind_source_has_fsroot_as_findmnt)
{
	bind_source_vs_findmnt(false);
}

Test(watch_cli, bind_source_has_fsroot_as_findmnt_pollpri)
{
	bind_source_vs_findmnt(true);
}

/*
 * A mount slid beneath the top of a stack (MOVE_MOUNT_BENEATH): the top
 * mount's parent changes, its mount point and options do not, so
 * findmnt --poll prints only the new mount. The watch printed a "move"
 * whose old and new targets are equal (found by tests/history-eq.py: a
 * propagated mount tucked under one that was there does the same); with
 * --all-changes it is a "change", and --json carries the same action.
 */
static void beneath_vs_findmnt(bool pollpri)
{
	char *fm[] = {"findmnt", "--poll", "-r", "-o", "ACTION,TARGET,SOURCE,OLD-TARGET", NULL};
	char *ms[] = {(char *)bin(), "watch", "-o", "ACTION,TARGET,SOURCE,OLD-TARGET",
		      pollpri ? "--pollpri" : NULL, NULL};
	char *all[] = {(char *)bin(), "watch", "-n", "--all-changes", "-o", "ACTION,TARGET,SOURCE",
		       pollpri ? "--pollpri" : NULL, NULL};
	char *js[] = {(char *)bin(), "watch", "--json", "--all-changes",
		      pollpri ? "--pollpri" : NULL, NULL};
	char *a, *c, *j;
	size_t len;
	struct sbs sbs;
	int fd, r;

	sbs_setup();
	mnt("top", BASE "/t", "tmpfs", 0, NULL);
	mnt("under", BASE "/src", "tmpfs", 0, NULL);
	mnt("last", BASE "/last", "tmpfs", 0, NULL);
	fd = (int)syscall(428 /* open_tree */, AT_FDCWD, BASE "/src",
			  1 /* OPEN_TREE_CLONE */ | O_CLOEXEC);
	cr_assert_geq(fd, 0, "open_tree: %s", strerror(errno));
	sbs_start(&sbs, 4, (char **const[]){fm, ms, all, js},
		  (const char *const[]){"findmnt", "mntsnap", "all", "json"});
	wait_lines(BASE "/out/mntsnap", 1);

	r = (int)syscall(429 /* move_mount */, fd, "", AT_FDCWD, BASE "/t",
			 4 /* MOVE_MOUNT_F_EMPTY_PATH */ | 0x200 /* MOVE_MOUNT_BENEATH */);
	if (r && errno == EINVAL)
		cr_skip_test("no MOVE_MOUNT_BENEATH (Linux < 6.5)");
	cr_assert_eq(r, 0, "move_mount beneath: %s", strerror(errno));
	close(fd);
	wait_lines(BASE "/out/findmnt", 2);
	wait_lines(BASE "/out/all", 2); /* the mount and the top's change */
	wait_lines(BASE "/out/json", 2);
	usleep(300000); /* a settle sweep the drain armed */
	cr_assert_eq(umount(BASE "/last"), 0); /* a last line for every reader */
	wait_lines(BASE "/out/findmnt", 3);
	wait_lines(BASE "/out/mntsnap", 3);
	wait_lines(BASE "/out/all", 3);
	wait_lines(BASE "/out/json", 3);
	sbs_stop(&sbs);
	a = sbs_assert_same("mntsnap", "findmnt");
	c = ms_read_file(BASE "/out/all", &len);
	cr_assert(strstr(c, "change " BASE "/t top\n"), "--all-changes: %s", c);
	cr_assert_not(strstr(c, "move "), "--all-changes: %s", c);
	j = ms_read_file(BASE "/out/json", &len);
	cr_assert(strstr(j, "{\"action\":\"change\",\"target\":\"" BASE "/t\""), "%s", j);
	free(a);
	free(c);
	free(j);
}

Test(watch_cli, mount_beneath_is_no_move_as_findmnt)
{
	beneath_vs_findmnt(false);
}

Test(watch_cli, mount_beneath_is_no_move_as_findmnt_pollpri)
{
	beneath_vs_findmnt(true);
}

/*
 * One operation that changes several mounts through propagation: a tmpfs
 * mounted under a shared mount appears in each of its peers, a lazy
 * umount of a peer takes every copy below the peers along. findmnt
 * prints such a batch in libmount's table diff order: mounts and
 * remounts in the new mountinfo's order, then umounts in the old one's,
 * and mountinfo lists mounts by unique id. fanotify reports the copies
 * in the order propagation made them (here not the ids' order: the copy
 * on the bind of p/sub, made last, has a lower id than the one on q); the
 * watch printed them in that order. The text and the JSON are compared
 * with findmnt's lines (the JSON by target and action, in order).
 */
Test(watch_cli, propagated_batch_in_findmnt_order)
{
	char *fm[] = {"findmnt", "--poll", "-r", "-o", COLS, NULL};
	char *ms[] = {(char *)bin(), "watch", "-o", COLS, NULL};
	char *js[] = {(char *)bin(), "watch", "--json", NULL};
	char *a, *j, *line, *save = NULL;
	size_t len, n = 1;
	struct sbs sbs;

	sbs_setup();
	sbs_start(&sbs, 3, (char **const[]){fm, ms, js},
		  (const char *const[]){"findmnt", "mntsnap", "json"});
	wait_lines(BASE "/out/mntsnap", 1);

	struct {
		const char *src, *dst, *type;
		unsigned long fl;
		int lines;
	} steps[] = {
	    {"pt", BASE "/p", "tmpfs", 0, 1},
	    {NULL, BASE "/p", NULL, MS_SHARED, 0},
	    {BASE "/p", BASE "/q", NULL, MS_BIND, 1},
	    {NULL, NULL, NULL, 0, 0}, /* mkdir p/sub p/s2 */
	    {BASE "/p/sub", BASE "/r", NULL, MS_BIND, 1},
	    {"inner", BASE "/p/sub", "tmpfs", 0, 3},
	    {"inner2", BASE "/q/s2", "tmpfs", 0, 2},
	    {NULL, BASE "/q", NULL, MNT_DETACH, 6},
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (!steps[i].dst) {
			ms_mkdir_p(BASE "/p/sub");
			ms_mkdir_p(BASE "/p/s2");
			continue;
		}
		if (steps[i].fl == MNT_DETACH)
			cr_assert_eq(umount2(steps[i].dst, MNT_DETACH), 0);
		else
			mnt(steps[i].src, steps[i].dst, steps[i].type, steps[i].fl, NULL);
		n += (size_t)steps[i].lines;
		wait_lines(BASE "/out/findmnt", n);
		wait_lines(BASE "/out/mntsnap", n);
		wait_lines(BASE "/out/json", n - 1);
	}
	sbs_stop(&sbs);
	a = sbs_assert_same("mntsnap", "findmnt");
	/* the JSON in the same order: "action target" of each findmnt line */
	j = ms_read_file(BASE "/out/json", &len);
	line = strtok_r(a, "\n", &save); /* the header */
	for (char *jl = j, *nl; (line = strtok_r(NULL, "\n", &save)); jl = nl + 1) {
		char want[512];
		const char *sp = strchr(line, ' ');

		cr_assert(sp && (nl = strchr(jl, '\n')), "%s", j);
		sp = strchr(sp + 1, ' ');
		snprintf(want, sizeof(want), "{\"action\":\"%.*s\",\"target\":\"%.*s\"",
			 (int)strcspn(line, " "), line, (int)(sp - line - strcspn(line, " ") - 1),
			 line + strcspn(line, " ") + 1);
		cr_assert(!strncmp(jl, want, strlen(want)), "want %s\ngot %.*s", want,
			  (int)(nl - jl), jl);
	}
	free(a);
	free(j);
}

/* JSON strings: quotes and backslashes escaped, the rest as is. */
Test(watch_cli, json_escapes)
{
	char *argv[] = {(char *)bin(), "watch", "--json", "--count", "1", NULL};
	size_t len;
	char *t;
	pid_t pid;

	ms_private_ns(BASE);
	pid = spawn(BASE "/esc", argv);
	wait_ready(pid, "mntsnap", "eventpoll");
	mnt("q\"s\\", BASE "/a \"b\\c", "tmpfs", 0, NULL);
	cr_assert_eq(reap(pid), 0);
	t = ms_read_file(BASE "/esc", &len);
	cr_assert(strstr(t, "\"target\":\"" BASE "/a \\\"b\\\\c\",") &&
		      strstr(t, "\"source\":\"q\\\"s\\\\\","),
		  "%s", t);
	free(t);
}

/*
 * Paths are bytes, JSON is UTF-8: valid UTF-8 passes as is, a byte of an
 * invalid sequence as \udcHH (as mntsnap list --json writes it, so "\xff"
 * and "ÿ" stay apart), so every line parses as JSON (Python's strict UTF-8 decoder and json module are the
 * judges). Before, a non-UTF-8 byte went out raw: no JSON parser took it.
 */
Test(watch_cli, json_is_valid_utf8_for_any_path)
{
	char *argv[] = {(char *)bin(), "watch", "--json", "--count", "1", NULL};
	char cmd[512];
	size_t len;
	char *t;
	pid_t pid;

	ms_private_ns(BASE);
	if (system("python3 -c 'import json' 2>/dev/null"))
		cr_skip_test("no python3");
	pid = spawn(BASE "/utf", argv);
	wait_ready(pid, "mntsnap", "eventpoll");
	mnt("s\xfe", BASE "/j\xff\xc3\xa9\x80", "tmpfs", 0, NULL);
	cr_assert_eq(reap(pid), 0);
	t = ms_read_file(BASE "/utf", &len);
	cr_assert(strstr(t, "\"target\":\"" BASE "/j\\udcff\xc3\xa9\\udc80\","), "%s", t);
	cr_assert(strstr(t, "\"source\":\"s\\udcfe\","), "%s", t);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; [json.loads(l) for l in "
		 "open(sys.argv[1], encoding=\"utf-8\", errors=\"strict\")]' %s",
		 BASE "/utf");
	cr_assert_eq(system(cmd), 0, "not valid UTF-8 JSON: %s", t);
	free(t);
}

static char *line_of(char *text, const char *action, int nth)
{
	char key[64];
	char *p = text;

	snprintf(key, sizeof(key), "{\"action\":\"%s\"", action);
	while ((p = strstr(p, key)) && nth--)
		p++;
	cr_assert(p, "no %s line in:\n%s", action, text);
	return strndup(p, strcspn(p, "\n"));
}

Test(watch_cli, json_count_stops_and_names_changes)
{
	char *argv[] = {(char *)bin(), "watch", "--json", "--count", "3", NULL};
	char want[512], *t, *l;
	uint64_t id;
	size_t len;
	pid_t pid;

	ms_private_ns(BASE);
	pid = spawn(BASE "/json", argv);
	wait_ready(pid, "mntsnap", "eventpoll");
	/* one change at a time: changes that land in one drain are reported
	 * as the state the drain found (a mount and its move: one mount) */
	mnt("j", BASE "/a", "tmpfs", 0, "size=1m");
	id = kernel_id(BASE "/a");
	wait_lines(BASE "/json", 1);
	ms_mkdir_p(BASE "/b");
	mnt(BASE "/a", BASE "/b", NULL, MS_MOVE, NULL);
	wait_lines(BASE "/json", 2);
	mnt(NULL, BASE "/b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	cr_assert_eq(reap(pid), 0, "--count 3 ends the watch with status 0");
	t = ms_read_file(BASE "/json", &len);
	cr_assert_eq(count_lines(BASE "/json"), 3, "%s", t);

	l = line_of(t, "mount", 0);
	snprintf(want, sizeof(want),
		 "{\"action\":\"mount\",\"target\":\"%s\",\"uniq-id\":\"%llu\",\"source\":\"j\","
		 "\"fstype\":\"tmpfs\",\"options\":\"rw,relatime,size=1024k\"}",
		 BASE "/a", (unsigned long long)id);
	cr_assert_str_eq(l, want);
	free(l);
	l = line_of(t, "move", 0);
	cr_assert(strstr(l, "\"old-target\":\"" BASE "/a\""), "%s", l);
	cr_assert(strstr(l, "\"changed\":{\"mount_point\":{\"old\":\"" BASE "/a\",\"new\":\"" BASE
			    "/b\"}}"),
		  "%s", l);
	free(l);
	l = line_of(t, "remount", 0);
	cr_assert(strstr(l, "\"changed\":{\"attributes\":{\"old\":\"rw,relatime\",\"new\":"
			    "\"ro,relatime\"}}"),
		  "%s", l);
	free(l);
	free(t);
}

/*
 * --save at SIGTERM: mntsnap diff against a fresh save says equal; saved,
 * the watch dies of the signal.
 */
Test(watch_cli, save_equals_fresh_capture)
{
	char *w[] = {(char *)bin(), "watch", "--json", "--save", BASE "/live.snap", NULL};
	char *save[] = {(char *)bin(), "save", BASE "/fresh.snap", NULL};
	char *diff[] = {(char *)bin(), "diff", BASE "/live.snap", BASE "/fresh.snap", NULL};
	char p[128];
	pid_t pid;

	ms_private_ns(BASE);
	pid = spawn(BASE "/w.out", w);
	wait_ready(pid, "mntsnap", "eventpoll");
	for (int i = 0; i < 20; i++) {
		snprintf(p, sizeof(p), BASE "/m/%d", i);
		mnt("s", p, "tmpfs", 0, NULL);
		if (i % 3 == 0)
			cr_assert_eq(umount(p), 0);
		else if (i % 3 == 1)
			mnt(NULL, p, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	}
	/* changes within one drain fold into one line each: wait for the last */
	mnt("marker", BASE "/marker", "tmpfs", 0, NULL);
	for (int tries = 0; tries < 500; tries++) {
		size_t len;
		char *t = ms_read_file(BASE "/w.out", &len);
		bool seen = strstr(t, "\"target\":\"" BASE "/marker\"") != NULL;

		free(t);
		if (seen)
			break;
		usleep(10000);
	}
	kill(pid, SIGTERM);
	cr_assert_eq(reap(pid), 128 + SIGTERM);
	cr_assert_eq(run_cli(save), 0);
	cr_assert_eq(run_cli(diff), 0, "the saved live snapshot differs from a fresh one");
}

Test(watch_cli, timeout_ends_cleanly)
{
	char *argv[] = {(char *)bin(), "watch", "-n", "--timeout", "0.2", NULL};
	size_t len;
	char *t;

	ms_private_ns(BASE);
	cr_assert_eq(run_cli(argv), 0);
	t = ms_read_file(BASE "/run.out", &len);
	cr_assert_eq(len, 0, "-n and no change: no output, got '%s'", t);
	free(t);
}

/*
 * SIGINT or SIGTERM ends a watch cleanly (its header written), then it
 * dies of the signal, as a program that catches one to clean up should:
 * a shell sees 128+N (and bash stops a script's loop at SIGINT). A stop
 * signal inherited ignored stays ignored (as in findmnt: `cmd &` in a
 * script ignores SIGINT); a --save that fails at the signal is exit 2.
 */
static void watch_dies_of(int sig, bool ignore_int, const char *save, int want)
{
	char *argv[] = {(char *)bin(), "watch", save ? "--save" : NULL, (char *)save, NULL};
	void (*old)(int) = signal(SIGINT, ignore_int ? SIG_IGN : SIG_DFL);
	pid_t pid = spawn(BASE "/sig.out", argv);
	size_t len;
	char *t;

	signal(SIGINT, old);
	wait_ready(pid, "mntsnap", "eventpoll");
	if (ignore_int) {
		kill(pid, SIGINT);
		usleep(200000);
	}
	kill(pid, sig);
	cr_assert_eq(reap(pid), want, "signal %d%s", sig, ignore_int ? ", SIGINT ignored" : "");
	t = ms_read_file(BASE "/sig.out", &len);
	cr_assert(!strncmp(t, "ACTION", 6), "the header, flushed: '%s'", t);
	free(t);
}

Test(watch_cli, stop_signal_is_the_exit)
{
	ms_private_ns(BASE);
	watch_dies_of(SIGTERM, false, NULL, 128 + SIGTERM);
	watch_dies_of(SIGINT, false, NULL, 128 + SIGINT);
	watch_dies_of(SIGTERM, true, NULL, 128 + SIGTERM);
	watch_dies_of(SIGTERM, false, BASE "/nodir/x.snap", 2);
}

/* mntsnap watch --pid: the target's exit is a clean end (status 0). */
Test(watch_cli, target_exit_is_clean_end)
{
	char pid_s[16], *argv[] = {(char *)bin(), "watch", "--pid", pid_s, "--json", NULL};
	struct target t;
	size_t len;
	char *err;
	pid_t w;

	ms_private_ns(BASE);
	t = target_start(false);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)t.pid);
	w = spawn(BASE "/exit.out", argv);
	wait_ready(w, "mntsnap", "eventpoll");
	target_do(&t, 'm', BASE "/x");
	wait_lines(BASE "/exit.out", 1);
	cr_assert_eq(write(t.cmd, "q\n", 2), 2);
	cr_assert_eq(reap(w), 0);
	err = ms_read_file(BASE "/exit.out.err", &len);
	cr_assert(strstr(err, "exited"), "stderr: %s", err);
	free(err);
	target_end(&t);
}

/* Run argv with stdout on fd out, stderr into the file err; SIGPIPE ignored
 * as a parent may leave it (so a closed pipe is an EPIPE, not a kill). */
static pid_t spawn_fd(int out, const char *err, char *const argv[])
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid) {
		int efd;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGPIPE, SIG_IGN);
		efd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (efd < 0 || dup2(out, 1) < 0 || dup2(efd, 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/*
 * Output that cannot be written ends the watch at once with status 2 and
 * the reason, whether the header (a reader that went away: EPIPE) or a
 * later event line (/dev/full: ENOSPC) fails; before, it kept watching
 * (forever without --count/--timeout), writing into the void.
 */
Test(watch_cli, unwritable_output_ends_the_watch)
{
	char *hdr[] = {(char *)bin(), "watch", NULL};
	char *noh[] = {(char *)bin(), "watch", "-n", NULL};
	int p[2], full;
	size_t len;
	char *err;
	pid_t pid;

	ms_private_ns(BASE);
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	close(p[0]);
	pid = spawn_fd(p[1], BASE "/pipe.err", hdr);
	close(p[1]);
	cr_assert_eq(reap(pid), 2, "a closed pipe fails the watch");
	err = ms_read_file(BASE "/pipe.err", &len);
	cr_assert(strstr(err, strerror(EPIPE)), "stderr: %s", err);
	free(err);

	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (full < 0)
		cr_skip_test("no /dev/full");
	pid = spawn_fd(full, BASE "/full.err", noh);
	close(full);
	wait_ready(pid, "mntsnap", "eventpoll");
	mnt("f", BASE "/f", "tmpfs", 0, NULL);
	cr_assert_eq(reap(pid), 2, "a full device fails the watch");
	err = ms_read_file(BASE "/full.err", &len);
	cr_assert(strstr(err, strerror(ENOSPC)), "stderr: %s", err);
	free(err);
}

/*
 * mntsnap watch | head -1: once the reader is gone the watch ends (status
 * 0: watch's own choice; list -p dies of SIGPIPE there, as findmnt does at
 * its next line) even when no change ever comes to write; before, it
 * waited forever for a change that would kill it with SIGPIPE.
 */
Test(watch_cli, reader_gone_ends_the_watch)
{
	char *argv[] = {(char *)bin(), "watch", NULL};
	char hdr[64];
	int p[2];
	pid_t pid;

	ms_private_ns(BASE);
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid = spawn_fd(p[1], BASE "/gone.err", argv);
	close(p[1]);
	cr_assert_gt(read(p[0], hdr, sizeof(hdr)), 0, "the header");
	close(p[0]);
	cr_assert_eq(reap(pid), 0, "a reader that went away ends the watch");
}

/* A column may be asked for more than once, as findmnt -o allows: the
 * header says so; too many is an error that says so (before, the tenth
 * column was "unknown column 'ACTION'"). */
Test(watch_cli, repeated_columns)
{
	char *ok[] = {(char *)bin(), "watch", "--timeout", "0.1", "-o",
		      "TARGET,ACTION,TARGET,ACTION,TARGET,ACTION,TARGET,ACTION,TARGET,ACTION,"
		      "UNIQ-ID",
		      NULL};
	char many[1024] = "ACTION", *bad[] = {(char *)bin(), "watch", "-o", many, NULL};
	size_t len;
	char *t;

	ms_private_ns(BASE);
	cr_assert_eq(run_cli(ok), 0);
	t = ms_read_file(BASE "/run.out", &len);
	cr_assert_str_eq(t, "TARGET ACTION TARGET ACTION TARGET ACTION TARGET ACTION TARGET "
			    "ACTION UNIQ-ID\n");
	free(t);
	for (int i = 0; i < 100; i++)
		strcat(many, ",TARGET");
	cr_assert_eq(run_cli(bad), 2);
	t = ms_read_file(BASE "/run.out.err", &len);
	cr_assert(strstr(t, "too many columns"), "%s", t);
	free(t);
}

Test(watch_cli, bad_arguments)
{
	char *a[] = {(char *)bin(), "watch", "--count", "0", NULL};
	char *b[] = {(char *)bin(), "watch", "-o", "ACTION,BOGUS", NULL};
	char *c[] = {(char *)bin(), "watch", "--timeout", "-1", NULL};
	char *d[] = {(char *)bin(), "watch", "--frobnicate", NULL};

	ms_private_ns(BASE);
	cr_assert_eq(run_cli(a), 2);
	cr_assert_eq(run_cli(b), 2);
	cr_assert_eq(run_cli(c), 2);
	cr_assert_eq(run_cli(d), 2);
}

/*
 * --json makes the same decisions as the table: a read-only superblock
 * under a rw mount is "ro,..." in options and old-options, and a change
 * findmnt cannot see is no object (or action "change" with
 * --all-changes), never a "remount" whose options are equal.
 */
static void json_decisions(bool all)
{
	char *argv[] = {(char *)bin(), "watch", "--json", all ? "--all-changes" : NULL, NULL};
	pid_t pid;
	size_t len;
	char *t, *l;

	ms_private_ns(BASE);
	pid = spawn(BASE "/dec", argv);
	wait_ready(pid, "mntsnap", "eventpoll");
	mnt("none", BASE "/w", "tmpfs", 0, NULL);
	wait_lines(BASE "/dec", 1);
	mnt(NULL, BASE "/w", NULL, MS_REMOUNT | MS_RDONLY, NULL);
	wait_lines(BASE "/dec", 2);
	mnt(NULL, BASE "/w", NULL, MS_REMOUNT | MS_BIND, NULL);
	wait_lines(BASE "/dec", 3);
	mnt(NULL, BASE "/w", NULL, MS_SHARED, NULL);
	mnt("f", BASE "/f", "tmpfs", 0, NULL);
	wait_lines(BASE "/dec", 4);
	mnt(NULL, BASE "/f", NULL, MS_REMOUNT, "size=1m"); /* its sweep sees w shared */
	wait_lines(BASE "/dec", all ? 6 : 5);
	usleep(300000);
	kill(pid, SIGTERM);
	cr_assert_eq(reap(pid), 128 + SIGTERM);
	t = ms_read_file(BASE "/dec", &len);
	cr_assert_eq(count_lines(BASE "/dec"), all ? 6 : 5, "%s", t);
	l = line_of(t, "remount", 1);
	cr_assert(strstr(l, "\"options\":\"ro,relatime\"") &&
		      strstr(l, "\"old-options\":\"ro,relatime\""),
		  "findmnt's merge, old and new:\n%s", t);
	free(l);
	if (all) {
		l = line_of(t, "change", 0);
		cr_assert(strstr(l, "\"target\":\"" BASE "/w\"") &&
			      strstr(l, "\"changed\":{\"propagation\":"),
			  "%s", t);
		free(l);
	} else {
		cr_assert_null(strstr(t, "\"action\":\"change\""), "%s", t);
	}
	free(t);
}

Test(watch_cli, json_makes_findmnt_decisions)
{
	json_decisions(false);
}

Test(watch_cli, json_all_changes)
{
	json_decisions(true);
}

/*
 * mntsnap list -p/--poll is findmnt --poll: the same history, one change
 * at a time, printed the same in each output form (the tree and list
 * forms lay out each batch anew as findmnt does, the heading once, with
 * the first lines), with -o's poll columns and an ACTION filter.
 */
/* A mount's step: with -p's ACTION list leaving mounts out, nothing comes to wait for. */
static size_t mount_step(const struct sbs *s, size_t n, bool shown)
{
	if (shown)
		return sbs_sync(s, n);
	usleep(300000);
	return n;
}

static void list_poll_vs_findmnt(const char *poll, const char *form, const char *cols)
{
	bool mounts = !strchr(poll, '=') || strstr(poll, "=mount") || strstr(poll, ",mount");
	char *fm[] = {"findmnt", (char *)poll, (char *)form, "-o", (char *)cols, NULL};
	char *ms[] = {(char *)bin(), "list", (char *)poll, (char *)form, "-o", (char *)cols, NULL};
	struct sbs sbs;
	size_t n = 0;

	if (!*form) /* no form option: the default, a list for --poll */
		fm[2] = "-o", fm[3] = (char *)cols, fm[4] = NULL, ms[3] = "-o", ms[4] = (char *)cols,
		ms[5] = NULL;
	sbs_setup_src(BASE "/src/sub");
	ms_mkdir_p(BASE "/moved");
	sbs_start(&sbs, 2, (char **const[]){fm, ms}, (const char *const[]){"findmnt", "list"});
	/* a long target first: a later, narrower batch is laid out anew */
	mnt("long-source-name", BASE "/a-rather-long-mount-point", "tmpfs", 0, "size=1m");
	n = mount_step(&sbs, n, mounts);
	mnt("b", BASE "/b", "tmpfs", 0, NULL);
	n = mount_step(&sbs, n, mounts);
	mnt(BASE "/src/sub", BASE "/bind", NULL, MS_BIND, NULL);
	n = mount_step(&sbs, n, mounts);
	mnt(BASE "/src/file", BASE "/onfile", NULL, MS_BIND, NULL);
	n = mount_step(&sbs, n, mounts);
	mnt(NULL, BASE "/b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	n = sbs_sync(&sbs, n);
	mnt(NULL, BASE "/a-rather-long-mount-point", NULL, MS_REMOUNT, "size=2m");
	n = sbs_sync(&sbs, n);
	mnt(BASE "/b", BASE "/moved", NULL, MS_MOVE, NULL);
	n = sbs_sync(&sbs, n);
	mnt("sp", BASE "/with space", "tmpfs", 0, NULL);
	n = mount_step(&sbs, n, mounts);
	cr_assert_eq(umount(BASE "/moved"), 0);
	n = sbs_sync(&sbs, n);
	cr_assert_eq(umount(BASE "/bind"), 0);
	n = sbs_sync(&sbs, n);
	cr_assert_eq(umount(BASE "/with space"), 0);
	sbs_sync(&sbs, n);
	sbs_stop(&sbs);
	free(sbs_assert_same("list", "findmnt"));
}

#define PCOLS "ACTION,TARGET,SOURCE,FSTYPE,OPTIONS"
Test(watch_cli, list_poll_equals_findmnt_poll)
{
	list_poll_vs_findmnt("-p", "", PCOLS);
}
Test(watch_cli, list_poll_raw_equals_findmnt_poll)
{
	list_poll_vs_findmnt("--poll", "-r", PCOLS ",OLD-TARGET,OLD-OPTIONS");
}
Test(watch_cli, list_poll_pairs_equals_findmnt_poll)
{
	list_poll_vs_findmnt("-p", "-P", PCOLS ",OLD-TARGET,OLD-OPTIONS,ID,PROPAGATION");
}
Test(watch_cli, list_poll_noheadings_list_equals_findmnt_poll)
{
	list_poll_vs_findmnt("-p", "-n", "+OLD-TARGET,OLD-OPTIONS,FSROOT,MAJ:MIN");
}
Test(watch_cli, list_poll_actions_equal_findmnt_poll)
{
	list_poll_vs_findmnt("--poll=umount,move,remount", "-l", "+OLD-TARGET,OLD-OPTIONS");
}

/*
 * -w MS: findmnt stops when MS pass without a change, exit status 0,
 * nothing printed when nothing changed; so does list -p. A change
 * restarts the wait: a mount 0.3 s in ends a -w 1000 run after 1.3 s,
 * with its line.
 */
Test(watch_cli, list_poll_timeout_as_findmnt)
{
	char *fm[] = {"findmnt", "-p", "-w", "1000", "-r", NULL};
	char *ms[] = {(char *)bin(), "list", "-p", "-w", "1000", "-r", NULL};
	struct timespec t0, t1;
	struct sbs sbs;
	char *a;

	sbs_setup();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sbs_start(&sbs, 2, (char **const[]){fm, ms}, (const char *const[]){"findmnt", "list"});
	mnt("late", BASE "/late", "tmpfs", 0, NULL);
	cr_assert_eq(reap(sbs.pid[0]), 0, "findmnt -w ends with 0");
	cr_assert_eq(reap(sbs.pid[1]), 0, "list -p -w ends with 0");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cr_assert_gt((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000, 1200,
		     "the change restarted the wait");
	a = sbs_assert_same("list", "findmnt");
	cr_assert(strstr(a, "mount " BASE "/late late tmpfs"), "%s", a);
	free(a);
	/* nothing changes: nothing printed, status 0 */
	fm[3] = ms[4] = "400";
	sbs_start(&sbs, 2, (char **const[]){fm, ms}, (const char *const[]){"findmnt2", "list2"});
	cr_assert_eq(reap(sbs.pid[0]), 0);
	cr_assert_eq(reap(sbs.pid[1]), 0);
	free(sbs_assert_same("list2", "findmnt2"));
	cr_assert_eq(count_lines(BASE "/out/list2"), 0);
}

/*
 * -N PID: the table of a process in another mount namespace, watched
 * (watch -N and list -p -N) as findmnt --poll -N PID reads it.
 */
Test(watch_cli, task_target_equals_findmnt_poll_N)
{
	char pid[16];
	char *fm[] = {"findmnt", "-p", "-r", "-N", pid, "-o", COLS, NULL};
	char *ms[] = {(char *)bin(), "watch", "-N", pid, "-o", COLS, NULL};
	char *ls[] = {(char *)bin(), "list", "-p", "-r", "-N", pid, "-o", COLS, NULL};
	struct target t;
	struct sbs sbs;
	size_t n = 1;

	sbs_setup();
	t = target_start(false);
	snprintf(pid, sizeof(pid), "%d", (int)t.pid);
	sbs_start(&sbs, 3, (char **const[]){fm, ms, ls},
		  (const char *const[]){"findmnt", "watch", "list"});
	wait_lines(BASE "/out/watch", 1);
	target_do(&t, 'm', BASE "/in-target");
	n = sbs_sync(&sbs, n);
	target_do(&t, 'm', BASE "/second");
	n = sbs_sync(&sbs, n);
	target_do(&t, 'u', BASE "/in-target");
	sbs_sync(&sbs, n);
	sbs_stop(&sbs);
	free(sbs_assert_same("watch", "findmnt"));
	free(sbs_assert_same("list", "findmnt"));
	target_end(&t);
}

/*
 * watch --pid 1 (and -N 1) works wherever list -N 1 does: where the
 * namespace of PID 1 may not be queried directly, both read its
 * mountinfo text. It said "Operation not supported".
 */
Test(watch_cli, pid_1_as_list_reads_it)
{
	char *list[] = {(char *)bin(), "list", "-N", "1", "-n", "-o", "TARGET", NULL};
	char *w1[] = {(char *)bin(), "watch", "--pid", "1", "--timeout", "0.2", NULL};
	char *w2[] = {(char *)bin(), "watch", "-N", "1", "--timeout", "0.2", NULL};
	size_t len;
	char *e;

	ms_private_ns(BASE);
	if (run_cli(list))
		cr_skip_test("list -N 1 does not work here either");
	cr_assert_eq(run_cli(w1), 0);
	e = ms_read_file(BASE "/run.out.err", &len);
	cr_assert_eq(len, 0, "watch --pid 1: %s", e);
	free(e);
	cr_assert_eq(run_cli(w2), 0);
}
