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
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "sys.h"

#define BASE "/tmp/mntsnap-watch"

struct ev {
	int kind;
	uint32_t changed;
	uint64_t id;
	char mp[256], old_mp[256];
	uint32_t attr, old_attr;
	char opts[256], old_opts[256];
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

	cr_assert_eq(statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, 0x4000 /* MNT_ID_UNIQUE */, &st),
		     0, "statx %s: %s", path, strerror(errno));
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
		snprintf(x->mp, sizeof(x->mp), "%s", e.mount.mount_point ? e.mount.mount_point : "");
		snprintf(x->old_mp, sizeof(x->old_mp), "%s", e.old.mount_point ? e.old.mount_point : "");
		snprintf(x->opts, sizeof(x->opts), "%s", e.mount.options ? e.mount.options : "");
		snprintf(x->old_opts, sizeof(x->old_opts), "%s", e.old.options ? e.old.options : "");
	}
}

/*
 * Wait (poll on the watcher's fd, 5 s at most per round) and drain until
 * at least want events arrived; then one more quick drain so nothing
 * pending is left over. Returns what drain last said (< 0 = error).
 */
static int wait_events(struct mntsnap_watch *w, struct evlist *l, size_t want)
{
	struct pollfd p = { .fd = mntsnap_watch_fd(w), .events = POLLIN };
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

static const struct mntsnap_sysops enosys_ops = { .fanotify_init = no_fanotify,
						  .ctx = (void *)(intptr_t)ENOSYS };

static struct mntsnap_watch *watch_route(const struct mntsnap_ns *ns, bool pollpri, uint32_t flags)
{
	MNTSNAP_OPTS(mntsnap_watch_opts, o, .ns = ns, .flags = flags,
		     .sysops = pollpri ? &enosys_ops : NULL);
	struct mntsnap_watch *w = NULL;
	int r = mntsnap_watch_new(&o, &w);

	cr_assert_eq(r, 0, "watch_new: %s", strerror(-r));
	if (!pollpri && mntsnap_watch_route(w) != MNTSNAP_WATCH_ROUTE_FANOTIFY)
		cr_skip_test("no fanotify mount events on this kernel");
	cr_assert_eq(mntsnap_watch_route(w), pollpri ? MNTSNAP_WATCH_ROUTE_POLLPRI
						     : MNTSNAP_WATCH_ROUTE_FANOTIFY);
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
	struct evlist l = { 0 };
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

LTest(watch, mount_bind_umount) { mount_umount(false); }
LTest(watch, mount_bind_umount_pollpri) { mount_umount(true); }

static void move(bool pollpri)
{
	struct evlist l = { 0 };
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

LTest(watch, move) { move(false); }
LTest(watch, move_pollpri) { move(true); }

static void remount(bool pollpri)
{
	struct evlist l = { 0 };
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

LTest(watch, remount_only_pollpri_sees) { remount(false); }
LTest(watch, remount_pollpri_route) { remount(true); }

static void lazy_subtree(bool pollpri)
{
	struct evlist l = { 0 };
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

LTest(watch, lazy_umount_100_subtree) { lazy_subtree(false); }
LTest(watch, lazy_umount_100_subtree_pollpri) { lazy_subtree(true); }

/* fsopen/fsmount/move_mount: a mount made detached, then attached. */
LTest(watch, fsmount_move_mount)
{
	struct evlist l = { 0 };
	struct mntsnap_watch *w;
	int fs, m;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/new");
	w = watch_route(NULL, false, 0);
	fs = (int)syscall(430 /* fsopen */, "tmpfs", 1 /* FSOPEN_CLOEXEC */);
	cr_assert_geq(fs, 0, "fsopen: %s", strerror(errno));
	cr_assert_eq(syscall(431 /* fsconfig */, fs, 6 /* FSCONFIG_CMD_CREATE */, NULL, NULL, 0), 0);
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
