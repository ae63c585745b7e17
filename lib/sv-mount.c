// SPDX-License-Identifier: MIT
/*
 * The supervisor's work inside a container: runs in the worker
 * (sv-perform.c) inside every namespace of the caller. It
 * checks the namespace root is the caller's root, opens every path with
 * RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS (with the caller's fsuid, fsgid
 * and groups: what it may not search is EACCES), names what it reached,
 * decides with the policy, takes the credentials of the mount (become)
 * and mounts onto the opened fds: what is checked is what is used. The
 * name of a directory is read with fchdir + getcwd, so a target
 * directory the caller may not enter (no x bit) is EACCES too, where
 * mount(2) itself would only ask to reach it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "backends.h"
#include "mntsnap.h"
#include "supervisor.h"
#include "sys.h"
#include "uapi.h"

#define STATX_ATTR_MOUNT_ROOT_ 0x00002000ULL
#define UMOUNT_NOFOLLOW_ 8U

int mntsnap__sv_statx(int dfd, const char *path, int flags, unsigned mask,
		      struct mntsnap_statx *st)
{
	long r = mntsnap__sys_statx(NULL, dfd, path, flags, mask, st);

	return r < 0 ? (int)r : 0;
}

/*
 * openat2 retried on EAGAIN: with RESOLVE_IN_ROOT the kernel refuses a
 * ".." step if any mount or rename happened meanwhile, anywhere on the
 * system (a global sequence count), rather than risk escaping the root.
 * On a busy host that is routine; the container should not see it.
 */
static int openat2_(int dfd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct mntsnap_open_how how = { .flags = flags | O_CLOEXEC, .resolve = resolve };
	int fd = -1;

	for (int i = 0; i < 128; i++) {
		fd = (int)mntsnap__sys_openat2(dfd, path, &how);
		if (fd != -EAGAIN)
			break;
	}
	return fd;
}

/*
 * The canonical path of directory fd as the container sees it: the
 * worker's root is the namespace root (checked against the caller's),
 * and it has its own cwd, so getcwd() after fchdir() names it without
 * reading the container's /proc.
 */
static int dir_path(int fd, char *buf, size_t len)
{
	if (fchdir(fd) || !getcwd(buf, len))
		return -errno;
	return buf[0] == '/' ? 0 : -ENOENT;
}

/*
 * Open path O_PATH inside root, symlinks followed but never out of it
 * (RESOLVE_IN_ROOT: "/.." stays at the root; no /proc magic links), and
 * name what was reached. A non-directory is named through its parent; if
 * its last component is itself a symlink that is refused (-ELOOP), as its
 * name would not be the name of what gets mounted on.
 */
static int resolve(int root, const char *path, char *canon, size_t len, int *ret_fd)
{
	const uint64_t res = MNTSNAP_RESOLVE_IN_ROOT | MNTSNAP_RESOLVE_NO_MAGICLINKS;
	struct stat st, st2;
	const char *slash;
	char parent[SV_PATH_MAX];
	int fd, dfd, lfd, r;

	if (path[0] != '/')
		return -EPERM; /* relative to the caller's cwd: not resolved here */
	fd = openat2_(root, path, O_PATH, res);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st)) {
		r = -errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		r = dir_path(fd, canon, len);
		if (r)
			goto fail;
		*ret_fd = fd;
		return 0;
	}
	slash = strrchr(path, '/');
	if (!slash[1] || !strcmp(slash + 1, ".") || !strcmp(slash + 1, "..")) {
		r = -ENOTDIR;
		goto fail;
	}
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path) + 1, path);
	dfd = openat2_(root, parent, O_PATH | O_DIRECTORY, res);
	if (dfd < 0) {
		r = dfd;
		goto fail;
	}
	r = dir_path(dfd, canon, len);
	lfd = r ? -1 : openat(dfd, slash + 1, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (!r && (lfd < 0 || fstat(lfd, &st2)))
		r = -errno;
	else if (!r && (st2.st_dev != st.st_dev || st2.st_ino != st.st_ino))
		r = -ELOOP;
	if (lfd >= 0)
		close(lfd);
	close(dfd);
	if (!r && strlen(canon) + strlen(slash) + 1 > len)
		r = -ENAMETOOLONG;
	if (r)
		goto fail;
	strcat(canon, strcmp(canon, "/") ? slash : slash + 1);
	*ret_fd = fd;
	return 0;
fail:
	close(fd);
	return r;
}

struct attrs {
	uint64_t set, clr;
	bool atime;          /* an atime mode was named */
	const char *sb[8];   /* superblock flags to set */
	size_t nsb;
	bool sb_ro;
};

/* Split the applied options: mount flags into attrs, the rest to fn. */
static int walk_applied(const char *applied, struct attrs *a,
			int (*fn)(const char *key, const char *val, void *d), void *d)
{
	char item[SV_DATA_MAX];
	const char *p = applied;

	memset(a, 0, sizeof(*a));
	while (p && *p) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		const struct mntsnap__mntflag *f;
		bool set;
		int r = 0;

		if (n && n < sizeof(item)) {
			memcpy(item, p, n);
			item[n] = '\0';
			f = mntsnap__mntflag_find(item, n, &set);
			if (f && f->attr_atime) {
				a->atime = true;
				a->set &= ~(uint64_t)MNTSNAP_K_MOUNT_ATTR__ATIME;
				a->set |= set ? f->attr : MNTSNAP_K_MOUNT_ATTR_RELATIME;
			} else if (f) {
				a->set = set ? a->set | f->attr : a->set & ~f->attr;
				a->clr = set ? a->clr & ~f->attr : a->clr | f->attr;
				if (f->sb && set && a->nsb < 8)
					a->sb[a->nsb++] = f->sb;
				if (f->attr == MNTSNAP_K_MOUNT_ATTR_RDONLY)
					a->sb_ro = set;
			} else if (fn) {
				char *eq = strchr(item, '=');

				if (eq)
					*eq++ = '\0';
				r = fn(item, eq, d);
			}
		} else if (n) {
			r = -EINVAL;
		}
		if (r)
			return r;
		p = c ? c + 1 : NULL;
	}
	return 0;
}

static int fsconfig_(int fs, unsigned cmd, const char *key, const char *val)
{
	return (int)mntsnap__sys_fsconfig(fs, cmd, key, val, 0);
}

static int fs_option(const char *key, const char *val, void *d)
{
	int fs = *(int *)d;

	if (val)
		return fsconfig_(fs, MNTSNAP_K_FSCONFIG_SET_STRING, key, val);
	return fsconfig_(fs, MNTSNAP_K_FSCONFIG_SET_FLAG, key, NULL);
}

static int move_onto(int mfd, int tfd)
{
	return (int)mntsnap__sys_move_mount(mfd, "", tfd, "",
					    MNTSNAP_K_MOVE_MOUNT_F_EMPTY_PATH |
						    MNTSNAP_K_MOVE_MOUNT_T_EMPTY_PATH);
}

static uint64_t unique_id(int fd)
{
	struct mntsnap_statx st = { 0 };

	if (mntsnap__sv_statx(fd, "", AT_EMPTY_PATH, MNTSNAP_STATX_MNT_ID_UNIQUE, &st) ||
	    !(st.stx_mask & MNTSNAP_STATX_MNT_ID_UNIQUE))
		return 0;
	return st.stx_mnt_id;
}

/*
 * Attach the new mount mfd onto tfd, announced first (struct sv_work's
 * attaching): from here the worker may die with the request done.
 */
static int attach(const struct sv_work *w, int mfd, int tfd)
{
	const struct mntsnap_sysops *sys = w->sys ? w->sys : &mntsnap__sys_real;

	if (w->attaching)
		w->attaching(w, w->q->mnt_id);
	return (int)sys->move_mount(sys->ctx, mfd, "", tfd, "",
				    MNTSNAP_K_MOVE_MOUNT_F_EMPTY_PATH |
					    MNTSNAP_K_MOVE_MOUNT_T_EMPTY_PATH);
}

/* fsopen, the source and every option: a context to create, or -errno. */
static int new_context(struct sv_req *q, struct attrs *a)
{
	int fs, r = 0;

	fs = (int)mntsnap__sys_fsopen(q->fstype, MNTSNAP_K_FSOPEN_CLOEXEC);
	if (fs < 0)
		return fs;
	if (q->has_source && q->source[0])
		r = fsconfig_(fs, MNTSNAP_K_FSCONFIG_SET_STRING, "source", q->source);
	if (!r)
		r = walk_applied(q->applied, a, fs_option, &fs);
	for (size_t i = 0; !r && i < a->nsb; i++)
		r = fsconfig_(fs, MNTSNAP_K_FSCONFIG_SET_FLAG, a->sb[i], NULL);
	if (r) {
		close(fs);
		return r;
	}
	return fs;
}

/*
 * The superblock: a new one when the kernel can promise it
 * (FSCONFIG_CMD_CREATE_EXCL, 6.6+), and only then is the mount marked as
 * having a superblock of its own, the one kind a later remount without
 * MS_BIND may reconfigure. Otherwise it is mounted as mount(2) would:
 * sysfs, mqueue and cgroup2 have one superblock per namespace, debugfs
 * and tracefs one for all, a block device one wherever it is mounted;
 * reconfiguring such a superblock changes every mount of it, the host's
 * included.
 */
static int create(struct sv_req *q, struct attrs *a)
{
	int fs = new_context(q, a), r;

	if (fs < 0)
		return fs;
	r = fsconfig_(fs, MNTSNAP_K_FSCONFIG_CMD_CREATE_EXCL, NULL, NULL);
	if (!r) {
		q->own_sb = true;
		return fs;
	}
	close(fs);
	/* EBUSY: an existing superblock; EOPNOTSUPP: a kernel before 6.6 */
	if (r != -EBUSY && r != -EOPNOTSUPP && r != -EINVAL)
		return r;
	fs = new_context(q, a);
	if (fs < 0)
		return fs;
	r = fsconfig_(fs, MNTSNAP_K_FSCONFIG_CMD_CREATE, NULL, NULL);
	if (r) {
		close(fs);
		return r;
	}
	return fs;
}

/* A new filesystem instance, fsmount + move_mount onto tfd. */
static int do_new(const struct sv_work *w, int tfd)
{
	struct sv_req *q = w->q;
	struct attrs a;
	int fs, mfd, r;

	fs = create(q, &a);
	if (fs < 0)
		return fs;
	mfd = (int)mntsnap__sys_fsmount(fs, MNTSNAP_K_FSMOUNT_CLOEXEC, a.set);
	r = mfd < 0 ? mfd : 0;
	close(fs);
	if (r)
		return r;
	q->mnt_id = unique_id(mfd);
	r = attach(w, mfd, tfd);
	close(mfd);
	return r;
}

/*
 * What a bind or a new mount locks (struct sv_mount): ro, nosuid, nodev,
 * noexec set stay set; SV_LOCK_ATIME keeps the atime mode recorded with
 * it, as the kernel's MNT_LOCK_ATIME does on a user namespace's copy.
 */
#define SV_LOCK_FLAGS                                                                          \
	(MNTSNAP_K_MOUNT_ATTR_RDONLY | MNTSNAP_K_MOUNT_ATTR_NOSUID | MNTSNAP_K_MOUNT_ATTR_NODEV | \
	 MNTSNAP_K_MOUNT_ATTR_NOEXEC)
#define SV_LOCK_ATIME (1ULL << 62) /* no MOUNT_ATTR_* bit */

static void keep_locked(struct attrs *a, uint64_t locked)
{
	a->set |= locked & SV_LOCK_FLAGS;
	a->clr &= ~(locked & SV_LOCK_FLAGS);
	if (locked & SV_LOCK_ATIME) {
		a->atime = true;
		a->set = (a->set & ~(uint64_t)MNTSNAP_K_MOUNT_ATTR__ATIME) |
			 (locked & MNTSNAP_K_MOUNT_ATTR__ATIME);
	}
}

/*
 * A remount must not clear what the mount locks: the kernel refuses such a
 * remount of a locked mount with EPERM (set flags stay set, a locked atime
 * mode stays unless none is named), and so does the supervisor rather than
 * succeed with other flags than the container asked for.
 */
static int check_locked(struct sv_req *q)
{
	const uint64_t atime = MNTSNAP_K_MOUNT_ATTR__ATIME;
	struct attrs a;
	int r = walk_applied(q->applied, &a, NULL, NULL);

	if (r)
		return r;
	if ((q->locked & SV_LOCK_FLAGS & ~a.set) ||
	    ((q->locked & SV_LOCK_ATIME) && a.atime && (a.set & atime) != (q->locked & atime))) {
		q->reason = "locked flags";
		return -EPERM;
	}
	return 0;
}

static int setattr_(int fd, unsigned at, const struct attrs *a)
{
	struct mntsnap_k_mount_attr ma = { .attr_set = a->set, .attr_clr = a->clr };

	if (a->atime)
		ma.attr_clr |= MNTSNAP_K_MOUNT_ATTR__ATIME;
	if (!ma.attr_set && !ma.attr_clr)
		return 0;
	return (int)mntsnap__sys_mount_setattr(fd, "", AT_EMPTY_PATH | at, &ma, sizeof(ma));
}

/* open_tree clone of the source, the applied flags on it, onto tfd. */
static int do_bind(const struct sv_work *w, int sfd, int tfd)
{
	struct sv_req *q = w->q;
	unsigned rec = q->rec ? MNTSNAP_AT_RECURSIVE : 0;
	struct attrs a;
	int t, r;

	r = walk_applied(q->applied, &a, NULL, NULL);
	if (r)
		return r;
	keep_locked(&a, q->locked);
	t = (int)mntsnap__sys_open_tree(sfd, "",
					MNTSNAP_OPEN_TREE_CLONE | MNTSNAP_OPEN_TREE_CLOEXEC |
						AT_EMPTY_PATH | rec);
	if (t < 0)
		return t;
	r = setattr_(t, rec, &a);
	if (!r)
		q->mnt_id = unique_id(t);
	if (!r)
		r = attach(w, t, tfd);
	close(t);
	return r;
}

/*
 * Remount as mount(2) does it: the flags given replace the mount's (an
 * atime mode is kept when none is named); without MS_BIND the
 * superblock is reconfigured with the options first.
 */
static int do_remount(struct sv_req *q, int tfd)
{
	const uint64_t all = MNTSNAP_K_MOUNT_ATTR_RDONLY | MNTSNAP_K_MOUNT_ATTR_NOSUID |
			     MNTSNAP_K_MOUNT_ATTR_NODEV | MNTSNAP_K_MOUNT_ATTR_NOEXEC |
			     MNTSNAP_K_MOUNT_ATTR_NODIRATIME | MNTSNAP_K_MOUNT_ATTR_NOSYMFOLLOW;
	struct attrs a;
	int fs, r;

	if (q->kind == SV_REMOUNT) {
		fs = (int)mntsnap__sys_fspick(tfd, "",
					      MNTSNAP_K_FSPICK_EMPTY_PATH | MNTSNAP_K_FSPICK_CLOEXEC);
		if (fs < 0)
			return fs;
		r = walk_applied(q->applied, &a, fs_option, &fs);
		if (!r)
			r = fsconfig_(fs, MNTSNAP_K_FSCONFIG_SET_FLAG, a.sb_ro ? "ro" : "rw", NULL);
		for (size_t i = 0; !r && i < a.nsb; i++)
			if (strcmp(a.sb[i], "ro"))
				r = fsconfig_(fs, MNTSNAP_K_FSCONFIG_SET_FLAG, a.sb[i], NULL);
		if (!r)
			r = fsconfig_(fs, MNTSNAP_K_FSCONFIG_CMD_RECONFIGURE, NULL, NULL);
		close(fs);
		if (r)
			return r;
	}
	r = walk_applied(q->applied, &a, NULL, NULL);
	if (r)
		return r;
	a.clr = all & ~a.set;
	keep_locked(&a, q->locked);
	r = setattr_(tfd, 0, &a);
	if (!r)
		q->mnt_id = unique_id(tfd);
	return r;
}

/* The type of the mount whose root tfd is (remounts); -EINVAL if not one. */
static int mount_type(int tfd, char *buf, size_t len)
{
	struct mntsnap_statx st = { 0 };
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0,
					     .param = MNTSNAP_K_STATMOUNT_FS_TYPE };
	union {
		struct mntsnap_k_statmount sm;
		char raw[sizeof(struct mntsnap_k_statmount) + SV_FSTYPE_MAX];
	} u;
	long r;

	r = mntsnap__sv_statx(tfd, "", AT_EMPTY_PATH, MNTSNAP_STATX_MNT_ID_UNIQUE, &st);
	if (r)
		return (int)r;
	if (!(st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT_) ||
	    !(st.stx_attributes & STATX_ATTR_MOUNT_ROOT_))
		return -EINVAL; /* what mount(2) says for a remount of a non-mount */
	req.mnt_id = st.stx_mnt_id;
	memset(&u, 0, sizeof(u));
	r = mntsnap__sys_statmount(NULL, &req, &u.sm, sizeof(u), 0);
	if (r < 0)
		return (int)r;
	if (!(u.sm.mask & MNTSNAP_K_STATMOUNT_FS_TYPE) || u.sm.fs_type >= SV_FSTYPE_MAX)
		return -EIO;
	snprintf(buf, len, "%s", u.sm.str + u.sm.fs_type);
	return 0;
}

/*
 * MS_MOVE's source: a mount the supervisor made for this container and
 * nothing else (moving a runtime's mount away could uncover what it
 * masks, /proc/kcore under its /dev/null bind for one). A bind moves
 * under the "bind" rules with the source it was made from (*ret_src), as
 * if it were made anew at the new place, never under the rules for its
 * source's filesystem type.
 */
static int move_source(struct sv_req *q, int root, int *sfd, const char **ret_src)
{
	struct mntsnap_statx st = { 0 };
	const struct sv_mount *m;
	int r;

	q->reason = "source";
	if (!q->has_source)
		return -EFAULT;
	r = resolve(root, q->source, q->rsource, sizeof(q->rsource), sfd);
	if (r)
		return r;
	q->reason = "not a mount";
	r = mount_type(*sfd, q->mfstype, sizeof(q->mfstype));
	if (!r)
		r = mntsnap__sv_statx(*sfd, "", AT_EMPTY_PATH, MNTSNAP_STATX_MNT_ID_UNIQUE, &st);
	if (r)
		return r;
	q->reason = "not ours";
	m = mntsnap__sv_ours(q->c, st.stx_mnt_id);
	if (!m)
		return -EPERM;
	if (m->bind_source) {
		snprintf(q->mfstype, sizeof(q->mfstype), "bind");
		*ret_src = m->bind_source;
	}
	q->mnt_id = st.stx_mnt_id;
	return 0;
}

static int do_propagation(struct sv_req *q, int tfd)
{
	struct mntsnap_k_mount_attr ma = { .propagation = q->prop };

	long r = mntsnap__sys_mount_setattr(tfd, "",
					    AT_EMPTY_PATH | (q->rec ? MNTSNAP_AT_RECURSIVE : 0), &ma,
					    sizeof(ma));

	if (r)
		return (int)r;
	q->mnt_id = unique_id(tfd);
	return 0;
}

/*
 * Types whose superblocks later mounts share even when this one was new
 * at the time: one per net, ipc, cgroup or user namespace (a pod's next
 * container in the same net namespace gets the sysfs superblock made
 * here), or one for the whole system. Their remount without MS_BIND is
 * refused whatever the mount-table scan below finds: mount namespaces
 * that the supervisor cannot see may have them too.
 */
static bool shared_type(const char *t)
{
	static const char *const shared[] = {
		"sysfs",      "mqueue",   "cgroup",  "cgroup2",  "debugfs", "tracefs",
		"securityfs", "binfmt_misc", "configfs", "pstore", "efivarfs", "fusectl",
		"bpf",        "devtmpfs", "selinuxfs", "smackfs", "nsfs",   "rpc_pipefs",
	};

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
		if (!strcmp(t, shared[i]))
			return true;
	return false;
}

/*
 * No mount of the caller's namespace but the supervisor's own for c has
 * the superblock (major:minor): a bind the container's runtime made of
 * it, or a mount of the same device, would be reconfigured too. 0,
 * -EPERM, or listmount's/statmount's -errno (refused alike).
 */
static int sb_only_ours(const struct sv_container *c, uint32_t major, uint32_t minor)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0,
					    .mnt_id = MNTSNAP_K_LSMT_ROOT };
	uint64_t ids[256];
	long n;

	do {
		n = mntsnap__sys_listmount(NULL, &req, ids, 256, 0);
		if (n < 0)
			return (int)n;
		for (long i = 0; i < n; i++) {
			struct mntsnap_k_mnt_id_req one = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0,
							    .mnt_id = ids[i],
							    .param = MNTSNAP_K_STATMOUNT_SB_BASIC };
			struct mntsnap_k_statmount sm;
			long r;

			memset(&sm, 0, sizeof(sm));
			r = mntsnap__sys_statmount(NULL, &one, &sm, sizeof(sm), 0);
			if (r == -ENOENT)
				continue; /* gone meanwhile */
			if (r < 0)
				return (int)r;
			if (sm.sb_dev_major == major && sm.sb_dev_minor == minor &&
			    !mntsnap__sv_ours(c, ids[i]))
				return -EPERM;
		}
		if (n)
			req.param = ids[n - 1];
	} while (n == 256);
	return 0;
}

/*
 * A remount acts only on a mount the supervisor made for this container:
 * a runtime's read-only volume stays read-only. A superblock remount only
 * on a new mount: the superblock under a bind is its source's, shared
 * with the host. A bind is remounted as a bind, decided by the rules for
 * "bind" with the source it was made from (*ret_src), so the bind rule's
 * forced options are not traded for those of the source's type.
 */
static int remount_subject(struct sv_req *q, int tfd, const char **ret_src)
{
	struct mntsnap_statx st = { 0 };
	const struct sv_mount *m;
	int r;

	r = mntsnap__sv_statx(tfd, "", AT_EMPTY_PATH, MNTSNAP_STATX_MNT_ID_UNIQUE, &st);
	if (r)
		return r;
	q->reason = "not ours";
	m = mntsnap__sv_ours(q->c, st.stx_mnt_id);
	if (!m)
		return -EPERM;
	q->locked = m->locked;
	if (m->bind_source) {
		q->reason = "superblock of a bind";
		if (q->kind == SV_REMOUNT)
			return -EPERM;
		snprintf(q->mfstype, sizeof(q->mfstype), "bind");
		*ret_src = m->bind_source;
	}
	if (q->kind == SV_REMOUNT) {
		q->reason = "shared superblock";
		if (!m->own_sb || shared_type(q->mfstype))
			return -EPERM;
		return sb_only_ours(q->c, st.stx_dev_major, st.stx_dev_minor);
	}
	return 0;
}

static int root_matches(const struct sv_req *q)
{
	struct mntsnap_statx st = { 0 };

	if (mntsnap__sv_statx(AT_FDCWD, "/", 0, MNTSNAP_STATX_MNT_ID_UNIQUE, &st))
		return -errno;
	if (st.stx_mnt_id != q->root_mnt || st.stx_ino != q->root_ino ||
	    makedev(st.stx_dev_major, st.stx_dev_minor) != q->root_dev)
		return -EPERM;
	return 0;
}

union sm_buf {
	struct mntsnap_k_statmount sm;
	char raw[sizeof(struct mntsnap_k_statmount) + SV_PATH_MAX + SV_FSTYPE_MAX];
};

static int stat_mount(uint64_t id, uint64_t param, union sm_buf *u)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0,
					    .mnt_id = id, .param = param };
	long r;

	memset(u, 0, sizeof(*u));
	r = mntsnap__sys_statmount(NULL, &req, &u->sm, sizeof(*u), 0);
	if (r < 0)
		return (int)r;
	return (u->sm.mask & param) == param ? 0 : -EIO;
}

/*
 * Filesystems that are kernel interfaces rather than data: a bind of one
 * (or of a directory in one) would give the container a second, unmasked
 * or writable view of what a fresh mount of the type gets only with a
 * grant (proc: full-proc, sysfs: writable-sysfs, cgroup2 and cgroup:
 * writable-cgroup), or of something no
 * container should reach (the rest: host-credentials). mqueue, devpts,
 * hugetlbfs and nsfs hold the container's own objects and are not here.
 */
static unsigned kernel_grant(const char *t)
{
	static const char *const others[] = {
		"debugfs",  "tracefs",     "securityfs", "bpf",     "configfs",
		"efivarfs", "binfmt_misc", "pstore",     "fusectl", "selinuxfs", "smackfs",
	};

	if (!strcmp(t, "proc"))
		return MNTSNAP_POLICY_GRANT_FULL_PROC;
	if (!strcmp(t, "sysfs"))
		return MNTSNAP_POLICY_GRANT_WRITABLE_SYSFS;
	if (mntsnap__sv_is_cgroup(t))
		return MNTSNAP_POLICY_GRANT_WRITABLE_CGROUP;
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (!strcmp(t, others[i]))
			return MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS;
	return 0;
}

/*
 * A mount of the caller's namespace below the bind's source (children of
 * the source's mount whose mount point is the source or under it): a
 * non-recursive bind would uncover what it covers (a runtime's /dev/null
 * over /proc/keys), which the kernel refuses in a user namespace for its
 * locked mounts. 0, -EPERM or -errno.
 */
static int covers_mounts(const struct sv_req *q, uint64_t id)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0, .mnt_id = id };
	size_t len = strlen(q->rsource);
	uint64_t ids[64];
	union sm_buf u;
	long n;

	if (!strcmp(q->rsource, "/"))
		len = 0;
	do {
		n = mntsnap__sys_listmount(NULL, &req, ids, 64, 0);
		if (n < 0)
			return (int)n;
		for (long i = 0; i < n; i++) {
			int r = stat_mount(ids[i], MNTSNAP_K_STATMOUNT_MNT_POINT, &u);
			const char *mp = u.sm.str + u.sm.mnt_point;

			if (r == -ENOENT)
				continue; /* gone meanwhile */
			if (r)
				return r;
			if (!strncmp(mp, q->rsource, len) && (mp[len] == '\0' || mp[len] == '/'))
				return -EPERM;
		}
		if (n)
			req.param = ids[n - 1];
	} while (n == 64);
	return 0;
}

/*
 * What the bind's source mount decides: kernel interfaces need the
 * rule's grant, a non-recursive bind must not uncover mounts, and the
 * source's ro, nosuid, nodev, noexec and atime mode are locked on the bind
 * (a remount,bind replaces the flags: it must not make a bind of a
 * read-only rootfs writable).
 */
static int bind_source(struct sv_req *q, const struct mntsnap_policy *p, int sfd)
{
	struct mntsnap_statx st = { 0 };
	unsigned need, grant = mntsnap__policy_grant(p, q->rule);
	union sm_buf u;
	int r;

	q->reason = "source";
	r = mntsnap__sv_statx(sfd, "", AT_EMPTY_PATH, MNTSNAP_STATX_MNT_ID_UNIQUE, &st);
	if (!r)
		r = stat_mount(st.stx_mnt_id, MNTSNAP_K_STATMOUNT_FS_TYPE | MNTSNAP_K_STATMOUNT_MNT_BASIC,
			       &u);
	if (r)
		return r;
	need = kernel_grant(u.sm.str + u.sm.fs_type);
	if (need && !(grant & need)) {
		q->reason = "bind of a kernel interface without grant";
		return -mntsnap__policy_errno(p);
	}
	q->locked = (u.sm.mnt_attr & (SV_LOCK_FLAGS | MNTSNAP_K_MOUNT_ATTR__ATIME)) | SV_LOCK_ATIME;
	if (q->rec)
		return 0;
	r = covers_mounts(q, st.stx_mnt_id);
	if (r == -EPERM) {
		q->reason = "non-recursive bind would uncover mounts";
		return -mntsnap__policy_errno(p);
	}
	return r;
}

/* A new mount locks the rule's forced flags and a sysfs's or cgroup's default ro. */
static int new_locked(struct sv_req *q, const struct mntsnap_policy *p)
{
	char *forced = mntsnap__policy_apply(p, q->rule, "");
	const char *t = mntsnap__sv_match_fstype(q);
	struct attrs a;
	int r;

	if (!forced)
		return -ENOMEM;
	r = walk_applied(forced, &a, NULL, NULL);
	free(forced);
	if (r)
		return r;
	q->locked = a.set & SV_LOCK_FLAGS;
	if (t && !strcmp(t, "sysfs") &&
	    !(mntsnap__policy_grant(p, q->rule) & MNTSNAP_POLICY_GRANT_WRITABLE_SYSFS))
		q->locked |= MNTSNAP_K_MOUNT_ATTR_RDONLY;
	if (mntsnap__sv_is_cgroup(t) &&
	    !(mntsnap__policy_grant(p, q->rule) & MNTSNAP_POLICY_GRANT_WRITABLE_CGROUP))
		q->locked |= MNTSNAP_K_MOUNT_ATTR_RDONLY;
	return 0;
}

static int work_decide(struct sv_req *q, const struct mntsnap_policy *p, int root, int *sfd,
		       int *tfd)
{
	const char *src = NULL;
	int r;

	q->reason = "target";
	r = resolve(root, q->target, q->rtarget, sizeof(q->rtarget), tfd);
	if (r)
		return r;
	if (q->kind == SV_BIND) {
		q->reason = "source";
		if (!q->has_source)
			return -EFAULT;
		r = resolve(root, q->source, q->rsource, sizeof(q->rsource), sfd);
		if (r)
			return r;
	}
	if (q->kind == SV_REMOUNT || q->kind == SV_REMOUNT_BIND || q->kind == SV_PROPAGATION) {
		q->reason = "not a mount";
		r = mount_type(*tfd, q->mfstype, sizeof(q->mfstype));
		if (r)
			return r;
	}
	if (q->kind == SV_REMOUNT || q->kind == SV_REMOUNT_BIND) {
		r = remount_subject(q, *tfd, &src);
		if (r)
			return r;
	}
	if (q->kind == SV_MOVE) {
		r = move_source(q, root, sfd, &src);
		if (r)
			return r;
	}
	r = mntsnap__sv_decide(q, p, src);
	if (r)
		return r;
	if (q->kind == SV_REMOUNT || q->kind == SV_REMOUNT_BIND) {
		r = check_locked(q);
		if (r)
			return r;
	}
	if (q->kind == SV_BIND) {
		r = bind_source(q, p, *sfd);
		if (r)
			return r;
		q->reason = "policy";
	}
	if (q->kind == SV_NEW)
		return new_locked(q, p);
	return 0;
}

/* The decided request's credentials (see struct sv_work). */
static int become(const struct sv_work *w)
{
	unsigned g = mntsnap__policy_grant(w->policy, w->q->rule);

	return w->become ? w->become(w, g & MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS) : 0;
}

/* Runs in the worker, inside the caller's namespaces. */
int mntsnap__sv_work_mount(void *data, void **ret_buf, size_t *ret_len)
{
	struct sv_work *w = data;
	struct sv_req *q = w->q;
	int root, sfd = -1, tfd = -1, r;

	*ret_buf = NULL;
	*ret_len = 0;
	q->reason = "chroot";
	r = root_matches(q);
	if (r)
		return r;
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	r = work_decide(q, w->policy, root, &sfd, &tfd);
	if (!r)
		r = mntsnap__sv_decide_instance(q, w->policy, w->own_userns);
	if (!r) {
		q->reason = "credentials";
		r = become(w);
	}
	if (!r) {
		q->reason = "mount";
		if (q->kind == SV_NEW)
			r = do_new(w, tfd);
		else if (q->kind == SV_BIND)
			r = do_bind(w, sfd, tfd);
		else if (q->kind == SV_PROPAGATION)
			r = do_propagation(q, tfd);
		else if (q->kind == SV_MOVE)
			r = move_onto(sfd, tfd); /* sfd is the mount's root: it moves */
		else
			r = do_remount(q, tfd);
		if (!r)
			q->reason = NULL;
	}
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	close(root);
	return r;
}

const struct sv_mount *mntsnap__sv_ours(const struct sv_container *c, uint64_t id)
{
	for (size_t i = 0; id && i < c->nmounted; i++)
		if (c->mounted[i].id == id)
			return &c->mounted[i];
	return NULL;
}

/*
 * umount2 of a mount the supervisor made for this container, and of
 * nothing else. The mount is named from its parent directory (openat
 * "..", which for a mount root is the directory under the mountpoint) so
 * the worker's cwd is not inside it; the name is checked to lead to the
 * same mount id right before umount2.
 */
static int do_umount(struct sv_req *q, int *tfdp)
{
	int tfd = *tfdp;
	struct mntsnap_statx st = { 0 };
	const char *base = strrchr(q->rtarget, '/');
	int pfd, r;

	r = mntsnap__sv_statx(tfd, "", AT_EMPTY_PATH, MNTSNAP_STATX_MNT_ID_UNIQUE, &st);
	if (r)
		return r;
	if (!(st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT_) ||
	    !(st.stx_attributes & STATX_ATTR_MOUNT_ROOT_))
		return -EINVAL; /* what umount2(2) says for a non-mount */
	q->mnt_id = st.stx_mnt_id;
	q->reason = "policy";
	if (!mntsnap__sv_ours(q->c, st.stx_mnt_id) || !base || !base[1])
		return -EPERM;
	pfd = openat(tfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	r = fchdir(pfd) ? -errno : 0;
	close(pfd);
	/* an open fd on the mount, even O_PATH, would make it busy */
	close(tfd);
	*tfdp = -1;
	if (!r)
		r = mntsnap__sv_statx(AT_FDCWD, base + 1, AT_SYMLINK_NOFOLLOW, MNTSNAP_STATX_MNT_ID_UNIQUE,
			       &st);
	if (!r && st.stx_mnt_id != q->mnt_id)
		r = -EAGAIN; /* changed under us: refuse rather than guess */
	q->reason = "umount";
	if (!r)
		r = (int)mntsnap__sys_umount2(base + 1, (int)(q->umount_flags | UMOUNT_NOFOLLOW_));
	return r;
}

/* Runs in the worker, inside the caller's namespaces. */
int mntsnap__sv_work_umount(void *data, void **ret_buf, size_t *ret_len)
{
	struct sv_work *w = data;
	struct sv_req *q = w->q;
	int root, tfd = -1, r;

	*ret_buf = NULL;
	*ret_len = 0;
	q->reason = "chroot";
	r = root_matches(q);
	if (r)
		return r;
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	q->reason = "target";
	r = resolve(root, q->target, q->rtarget, sizeof(q->rtarget), &tfd);
	if (!r) {
		q->reason = "credentials";
		r = w->become ? w->become(w, false) : 0;
	}
	if (!r)
		r = do_umount(q, &tfd);
	if (!r)
		q->reason = NULL;
	if (tfd >= 0)
		close(tfd);
	close(root);
	return r;
}

