// SPDX-License-Identifier: MIT
/*
 * Restore order: recreate a captured tree of tmpfs and bind mounts with
 * shared/slave/private/unbindable propagation under a new directory by
 * following mntsnap_restore_order(), capture again, and diff: nothing may
 * differ but ids, devices, peer-group numbers and the path prefix.
 *
 * The recipe (lib/restore.c): pass 1 creates every mount privately in
 * order - fresh, or a bind taken from a detached non-recursive clone of
 * the recreated source so later child mounts cannot get in the way; pass
 * 2 sets propagation in order with MOVE_MOUNT_SET_GROUP and
 * mount_setattr(). Every mount is addressed by an O_PATH fd taken right
 * after it was made, so stacked mounts stay reachable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "uapi.h"

#define BASE "/tmp/mntsnap-restore"
#define SRC BASE "/src"
#define DST BASE "/dst"

#define T_OPEN_TREE_CLONE 1
#define T_AT_EMPTY_PATH 0x1000
#define T_MOVE_F_EMPTY 0x4
#define T_MOVE_T_EMPTY 0x40
#define T_MOVE_SET_GROUP 0x100

struct t_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static void mnt(const char *src, const char *dst, const char *type, unsigned long fl,
		const char *data)
{
	if (!(fl & (MS_REMOUNT | MS_SHARED | MS_SLAVE | MS_PRIVATE | MS_UNBINDABLE)))
		ms_mkdir_p(dst);
	cr_assert_eq(mount(src, dst, type, fl, data), 0, "mount %s: %s", dst, strerror(errno));
}

static bool under(const struct mntsnap_mount *m, void *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(m->mount_point, prefix, n) &&
	       (m->mount_point[n] == '\0' || m->mount_point[n] == '/');
}

/* The subtree at prefix, as a snapshot of its own. */
static struct mntsnap_snapshot *capture_under(const char *prefix)
{
	struct mntsnap_snapshot *all = NULL, *s = NULL;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT);

	cr_assert_eq(mntsnap_capture(&o, &all), 0);
	cr_assert_eq(mntsnap_snapshot_filter(all, under, (void *)prefix, &s), 0);
	mntsnap_snapshot_free(all);
	return s;
}

/*
 * The source tree: a tmpfs root with a shared tmpfs, its peer (a bind of a
 * subdirectory), a slave, a slave that is also shared, a private read-only
 * bind, an unbindable tmpfs, a stack of two, a covered sibling, and a tmpfs
 * mounted below the shared one (propagated to peer and slave).
 */
static void build_source(void)
{
	mnt("rt", SRC, "tmpfs", 0, "size=2m,mode=755");
	mnt("one", SRC "/t1", "tmpfs", MS_NOSUID, "size=1m,mode=750");
	ms_mkdir_p(SRC "/t1/sub/deep");
	mnt(NULL, SRC "/t1", NULL, MS_SHARED, NULL);
	mnt(SRC "/t1/sub", SRC "/peer", NULL, MS_BIND, NULL);
	mnt(SRC "/t1", SRC "/slave", NULL, MS_BIND, NULL);
	mnt(NULL, SRC "/slave", NULL, MS_SLAVE, NULL);
	mnt(SRC "/t1/sub/deep", SRC "/priv", NULL, MS_BIND, NULL);
	mnt(NULL, SRC "/priv", NULL, MS_PRIVATE, NULL);
	mnt(NULL, SRC "/priv", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NODEV, NULL);
	mnt("two", SRC "/t2", "tmpfs", MS_NOEXEC, "nr_inodes=100");
	mnt(NULL, SRC "/t2", NULL, MS_UNBINDABLE, NULL);
	mnt("s1", SRC "/stack", "tmpfs", 0, NULL);
	mnt("s2", SRC "/stack", "tmpfs", MS_NOATIME, NULL);
	/* a mount that a later sibling covers */
	mnt("hidden", SRC "/cov/er/x", "tmpfs", 0, NULL);
	mnt("cover", SRC "/cov/er", "tmpfs", 0, NULL);
	/* propagates into /peer/deep and /slave/sub/deep */
	mnt("inner", SRC "/t1/sub/deep", "tmpfs", 0, NULL);
	mnt(SRC "/slave", SRC "/slsh", NULL, MS_BIND, NULL);
	mnt(NULL, SRC "/slsh", NULL, MS_SHARED, NULL);
}

struct made {
	int *fd; /* per storage index: O_PATH fd of the recreated mount */
};

static void target_path(const struct mntsnap_mount *m, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", DST, m->mount_point + strlen(SRC));
}

static void attr_flags(uint32_t attr, struct t_mount_attr *a)
{
	a->attr_set = attr & (MNTSNAP_ATTR_RDONLY | MNTSNAP_ATTR_NOSUID | MNTSNAP_ATTR_NODEV |
			      MNTSNAP_ATTR_NOEXEC | MNTSNAP_ATTR_NODIRATIME |
			      MNTSNAP_ATTR_NOSYMFOLLOW | MNTSNAP_ATTR__ATIME);
	a->attr_clr = MNTSNAP_ATTR_RDONLY | MNTSNAP_ATTR_NOSUID | MNTSNAP_ATTR_NODEV |
		      MNTSNAP_ATTR_NOEXEC | MNTSNAP_ATTR_NODIRATIME | MNTSNAP_ATTR__ATIME;
	a->attr_clr &= ~a->attr_set | MNTSNAP_ATTR__ATIME;
}

static void setattr(int fd, struct t_mount_attr *a, const char *what)
{
	cr_assert_eq(syscall(MNTSNAP_NR_mount_setattr, fd, "", T_AT_EMPTY_PATH, a, sizeof(*a)),
		     0, "mount_setattr %s: %s", what, strerror(errno));
}

/* Pass 1: one mount, private. */
static void create(const struct mntsnap_snapshot *s, const struct mntsnap_order_step *st,
		   struct made *mk)
{
	struct mntsnap_mount m, src;
	struct t_mount_attr a = { 0 };
	char path[4096];

	mntsnap_snapshot_get(s, st->index, &m);
	target_path(&m, path, sizeof(path));
	ms_mkdir_p(path);
	if (st->bind_from < 0) {
		cr_assert_str_eq(m.root, "/", "%s: no mount of its fs root to bind from",
				 m.mount_point);
		cr_assert_eq(mount(m.source, path, m.fs_type,
				   m.sb_flags & MNTSNAP_SB_RDONLY ? MS_RDONLY : 0, m.options),
			     0, "mount %s: %s", path, strerror(errno));
	} else {
		const char *rel;
		int clone, sub, tree;

		mntsnap_snapshot_get(s, (size_t)st->bind_from, &src);
		/* a clone of the source alone: no child mounts on the way */
		clone = (int)syscall(MNTSNAP_NR_open_tree, mk->fd[st->bind_from], "",
				     T_OPEN_TREE_CLONE | T_AT_EMPTY_PATH | O_CLOEXEC);
		cr_assert(clone >= 0, "open_tree: %s", strerror(errno));
		rel = m.root + strlen(src.root);
		while (*rel == '/')
			rel++;
		sub = openat(clone, *rel ? rel : ".", O_PATH | O_CLOEXEC);
		cr_assert(sub >= 0, "openat %s: %s", rel, strerror(errno));
		tree = (int)syscall(MNTSNAP_NR_open_tree, sub, "",
				    T_OPEN_TREE_CLONE | T_AT_EMPTY_PATH | O_CLOEXEC);
		cr_assert(tree >= 0, "open_tree sub: %s", strerror(errno));
		cr_assert_eq(syscall(MNTSNAP_NR_move_mount, tree, "", AT_FDCWD, path,
				     T_MOVE_F_EMPTY),
			     0, "move_mount %s: %s", path, strerror(errno));
		close(tree);
		close(sub);
		close(clone);
	}
	/* the mount just made is the top one at path */
	mk->fd[st->index] = open(path, O_PATH | O_CLOEXEC);
	cr_assert(mk->fd[st->index] >= 0);
	a.propagation = MS_PRIVATE;
	setattr(mk->fd[st->index], &a, path);
	attr_flags(m.attr, &a);
	a.propagation = 0;
	setattr(mk->fd[st->index], &a, path);
}

static void set_group(struct made *mk, long from, uint32_t to)
{
	cr_assert_eq(syscall(MNTSNAP_NR_move_mount, mk->fd[from], "", mk->fd[to], "",
			     T_MOVE_SET_GROUP | T_MOVE_F_EMPTY | T_MOVE_T_EMPTY),
		     0, "SET_GROUP %ld -> %u: %s", from, to, strerror(errno));
}

static void propagation(const struct mntsnap_snapshot *s, const struct mntsnap_order_step *st,
			struct made *mk)
{
	struct t_mount_attr a = { 0 };
	struct mntsnap_mount m;
	int fd = mk->fd[st->index];

	mntsnap_snapshot_get(s, st->index, &m);
	if (m.propagation & MNTSNAP_PROP_SHARED && st->peer_of >= 0) {
		/* copies the peer's group and, if it is a slave, its master */
		set_group(mk, st->peer_of, st->index);
	} else {
		if (m.propagation & MNTSNAP_PROP_SLAVE) {
			cr_assert_geq(st->master_of, 0, "master outside the tree");
			set_group(mk, st->master_of, st->index);
			a.propagation = MS_SLAVE;
			setattr(fd, &a, "slave");
		}
		if (m.propagation & MNTSNAP_PROP_SHARED) {
			a.propagation = MS_SHARED;
			setattr(fd, &a, "shared");
		}
	}
	if (m.propagation & MNTSNAP_PROP_UNBINDABLE) {
		a.propagation = MS_UNBINDABLE;
		setattr(fd, &a, "unbindable");
	}
}

static void recreate(const struct mntsnap_snapshot *s, const struct mntsnap_order *o)
{
	size_t n = mntsnap_snapshot_count(s);
	struct made mk = { .fd = calloc(n, sizeof(int)) };
	struct mntsnap_order_step st;

	cr_assert_eq(mntsnap_order_count(o), n);
	for (size_t i = 0; i < n; i++)
		mk.fd[i] = -1;
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(mntsnap_order_step(o, i, &st), 0);
		create(s, &st, &mk);
	}
	for (size_t i = 0; i < n; i++) {
		mntsnap_order_step(o, i, &st);
		propagation(s, &st, &mk);
	}
	for (size_t i = 0; i < n; i++)
		close(mk.fd[i]);
	free(mk.fd);
}

/* Every constraint holds in the order; returns how many had this reason. */
static size_t check_constraints(const struct mntsnap_order *o, size_t n, int reason)
{
	long *at = calloc(n, sizeof(long));
	struct mntsnap_order_step st;
	struct mntsnap_order_dep d;
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		mntsnap_order_step(o, i, &st);
		at[st.index] = (long)i;
	}
	for (size_t i = 0; i < mntsnap_order_ndeps(o); i++) {
		cr_assert_eq(mntsnap_order_dep(o, i, &d), 0);
		cr_assert_gt(at[d.index], at[d.after_index], "%u before %u (%s)", d.index,
			     d.after_index, mntsnap_order_reason_name(d.reason));
		if (d.reason == reason)
			count++;
	}
	free(at);
	return count;
}

/*
 * The tree at SRC: its order holds every constraint, and the tree made by
 * following it at DST diffs equal with SRC's (ids aside). what: for messages.
 */
static void recreate_and_diff(size_t min, const char *what)
{
	struct mntsnap_snapshot *a, *b;
	struct mntsnap_order *o;
	struct mntsnap_diff *d;
	MNTSNAP_OPTS(mntsnap_diff_opts, dopts, .flags = MNTSNAP_DIFF_IGNORE_IDS,
		     .old_prefix = SRC, .new_prefix = DST);
	int r;

	a = capture_under(SRC);
	cr_assert_geq(mntsnap_snapshot_count(a), min, "%s", what);
	r = mntsnap_restore_order(a, &o);
	cr_assert_eq(r, 0, "%s: order: %s", what, strerror(-r));
	check_constraints(o, mntsnap_snapshot_count(a), 0);
	ms_mkdir_p(DST);
	recreate(a, o);
	b = capture_under(DST);
	cr_assert_eq(mntsnap_diff_with(a, b, &dopts, &d), 0);
	if (mntsnap_diff_count(d)) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		mntsnap_diff_render(d, MNTSNAP_DIFF_FORMAT_TEXT, f);
		fclose(f);
		cr_assert_fail("%s: recreated tree differs:\n%s", what, text);
	}
	mntsnap_diff_free(d);
	mntsnap_order_free(o);
	mntsnap_snapshot_free(a);
	mntsnap_snapshot_free(b);
}

Test(restore, recreate_tree_and_diff)
{
	ms_private_ns(BASE);
	build_source();
	recreate_and_diff(14, "the source tree");
}

/*
 * A shared tmpfs a, its peer b and its slave c (all three of one
 * superblock, root "/"), their 32-bit mount ids in every order: the
 * kernel gives a new mount the smallest free id, so after an umount a
 * slave may well have the smallest id, and so the first place among its
 * siblings (findmnt's order). It must still come after its master's
 * group, and so must not be the member the others are bound from.
 */
Test(restore, slave_with_the_smallest_id)
{
	static const char order[6][3] = { "abc", "acb", "bac", "bca", "cab", "cba" };
	char hole[64], what[64];

	ms_private_ns(BASE);
	for (int p = 0; p < 6; p++) {
		for (int k = 0; k < 3; k++) {
			snprintf(hole, sizeof(hole), BASE "/hole%c", 'a' + k);
			mnt("hole", hole, "tmpfs", 0, NULL);
		}
		mnt("rt", SRC, "tmpfs", 0, NULL);
		for (int k = 0; k < 3; k++) {
			char at[64];

			/* the mount made now takes the id of the hole freed now */
			snprintf(hole, sizeof(hole), BASE "/hole%c", order[p][k]);
			cr_assert_eq(umount(hole), 0);
			snprintf(at, sizeof(at), SRC "/%c", 'a' + k);
			if (k == 0)
				mnt("data", at, "tmpfs", 0, "size=1m");
			else
				mnt(SRC "/a", at, NULL, MS_BIND, NULL);
			if (k == 0)
				mnt(NULL, at, NULL, MS_SHARED, NULL);
		}
		mnt(NULL, SRC "/c", NULL, MS_SLAVE, NULL);
		snprintf(what, sizeof(what), "ids of a, b, c in the order %.3s", order[p]);
		ms_mkdir_p(DST);
		recreate_and_diff(4, what);
		cr_assert_eq(umount2(DST, MNT_DETACH), 0);
		cr_assert_eq(umount2(SRC, MNT_DETACH), 0);
	}
}

Test(restore, every_reason_is_reported)
{
	struct mntsnap_snapshot *a;
	struct mntsnap_order *o;
	size_t n;

	ms_private_ns(BASE);
	build_source();
	a = capture_under(SRC);
	n = mntsnap_snapshot_count(a);
	cr_assert_eq(mntsnap_restore_order(a, &o), 0);
	cr_assert_gt(check_constraints(o, n, MNTSNAP_ORDER_PARENT), 0);
	cr_assert_eq(check_constraints(o, n, MNTSNAP_ORDER_STACKED), 1);
	cr_assert_eq(check_constraints(o, n, MNTSNAP_ORDER_OVERMOUNT), 1);
	cr_assert_gt(check_constraints(o, n, MNTSNAP_ORDER_BIND_SOURCE), 0);
	cr_assert_gt(check_constraints(o, n, MNTSNAP_ORDER_PEER), 0);
	cr_assert_gt(check_constraints(o, n, MNTSNAP_ORDER_MASTER), 0);
	for (int r = MNTSNAP_ORDER_PARENT; r <= MNTSNAP_ORDER_MASTER; r++)
		cr_assert_not_null(mntsnap_order_reason_name(r));
	cr_assert_null(mntsnap_order_reason_name(0));
	mntsnap_order_free(o);
	mntsnap_snapshot_free(a);
}

Test(restore, stack_keeps_original_order)
{
	struct mntsnap_snapshot *a;
	struct mntsnap_order *o;
	struct mntsnap_order_step st;
	struct mntsnap_mount m;
	const char *seen[3];
	size_t k = 0;

	ms_private_ns(BASE);
	mnt("rt", SRC, "tmpfs", 0, NULL);
	mnt("s1", SRC "/x", "tmpfs", 0, NULL);
	mnt("s2", SRC "/x", "tmpfs", 0, NULL);
	mnt("s3", SRC "/x", "tmpfs", 0, NULL);
	a = capture_under(SRC);
	cr_assert_eq(mntsnap_restore_order(a, &o), 0);
	for (size_t i = 0; i < mntsnap_order_count(o); i++) {
		mntsnap_order_step(o, i, &st);
		mntsnap_snapshot_get(a, st.index, &m);
		if (!strcmp(m.mount_point, SRC "/x"))
			seen[k++] = m.source;
	}
	cr_assert_eq(k, 3);
	cr_assert_str_eq(seen[0], "s1");
	cr_assert_str_eq(seen[1], "s2");
	cr_assert_str_eq(seen[2], "s3");
	mntsnap_order_free(o);
	mntsnap_snapshot_free(a);
}

Test(restore, missing_fields_and_bad_args)
{
	struct mntsnap_snapshot *a;
	struct mntsnap_order *o = NULL;
	struct mntsnap_order_step st;
	MNTSNAP_OPTS(mntsnap_capture_opts, co, .backend = MNTSNAP_BACKEND_STATMOUNT,
		     .mask = MNTSNAP_F_ID | MNTSNAP_F_MOUNT_POINT);

	ms_private_ns(BASE);
	cr_assert_eq(mntsnap_capture(&co, &a), 0);
	cr_assert_eq(mntsnap_restore_order(a, &o), -ENODATA);
	cr_assert_null(o);
	cr_assert_eq(mntsnap_restore_order(NULL, &o), -EINVAL);
	mntsnap_snapshot_free(a);
	a = capture_under(BASE);
	cr_assert_eq(mntsnap_restore_order(a, &o), 0);
	cr_assert_eq(mntsnap_order_step(o, 99, &st), -ERANGE);
	mntsnap_order_free(o);
	mntsnap_order_free(NULL);
	mntsnap_snapshot_free(a);
}
