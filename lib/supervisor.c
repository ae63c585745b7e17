// SPDX-License-Identifier: MIT
/*
 * The mount supervisor: answers seccomp user notifications for mount(2)
 * by deciding with a policy and performing the allowed mounts itself,
 * inside the caller's mount namespace, through the namespace helper.
 *
 * The order for each request is fixed, for safety:
 *  1. RECV the notification (zeroed first, as the kernel requires);
 *  2. read every argument from the caller's memory (process_vm_readv);
 *  3. open the caller's mount namespace through a pidfd and note the
 *     identity of its root;
 *  4. NOTIF_ID_VALID: the caller is still blocked in this very call, so
 *     the pid named it throughout 2-3 (pid reuse cannot redirect us);
 *  5. in the helper: check the root, resolve the paths inside it, decide,
 *     mount onto the resolved fds;
 *  6. SEND the result. CONTINUE is never sent: the caller could rewrite
 *     its arguments after step 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "mntsnap.h"
#include "supervisor.h"
#include "sys.h"
#include "uapi.h"

#define CAP_SYS_ADMIN_ 21
#define STATX_ATTR_MOUNT_ROOT_ 0x00002000ULL
#define PATH_MAX_ 4096
#define DATA_MAX_ 4096 /* mount(2) copies one page of data */
#define FSTYPE_MAX_ 256

/* The native seccomp audit arch: requests from another ABI are refused. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define NATIVE_ARCH 0xc000003eU /* AUDIT_ARCH_X86_64 */
#elif defined(__aarch64__) && defined(__AARCH64EL__)
#define NATIVE_ARCH 0xc00000b7U /* AUDIT_ARCH_AARCH64 */
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH 0xc00000f3U /* AUDIT_ARCH_RISCV64 */
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_ARCH 0xc0000015U /* AUDIT_ARCH_PPC64LE */
#elif defined(__s390x__)
#define NATIVE_ARCH 0x80000016U /* AUDIT_ARCH_S390X */
#else
#define NATIVE_ARCH 0U /* unknown: every request is refused */
#endif

/*
 * A filesystem context or detached mount of the new mount API, as the
 * container holds it: the fd it got from fsopen()/fsmount() is a memfd
 * placeholder of ours (its inode names the context); the options it
 * configures are only recorded. Nothing is created until move_mount()
 * names the target: then the whole request is decided at once, like a
 * mount(2), and performed the same way.
 */
struct fsctx {
	int fd;           /* our end of the placeholder */
	dev_t dev;
	ino_t ino;
	bool created;     /* FSCONFIG_CMD_CREATE seen */
	bool is_mount;    /* from fsmount(): a "detached mount" */
	uint64_t attr;    /* fsmount attr_flags */
	char fstype[256];
	char *source;
	char *opts;       /* comma list of what fsconfig set */
};

#define MAX_CTX 64 /* pending contexts per container */

/*
 * One notify fd. mounted: the unique ids of the mounts made for it, the
 * only ones its umount2() may remove.
 */
struct container {
	int fd;
	char *id;
	uint64_t *mounted;
	size_t nmounted;
	struct mntsnap_ns *ns; /* the callers' mount namespace, see caller_ns() */
	dev_t ns_dev;
	ino_t ns_ino;
	struct fsctx **ctx;    /* pending new-mount-API contexts, see fsopen */
	size_t nctx;
};

struct mntsnap_supervisor {
	const struct mntsnap_policy *policy;
	struct mntsnap_supervisor_opts o;
	struct mntsnap_sysops sys;
	int epfd;
	struct container **c;
	size_t n;
	dev_t own_dev;  /* the supervisor's own mount namespace (nsfs inode) */
	ino_t own_ino;
};

enum kind { K_NEW, K_BIND, K_REMOUNT, K_REMOUNT_BIND, K_UMOUNT, K_PROPAGATION, K_MOVE };

#define MNT_FORCE_ 1U
#define MNT_DETACH_ 2U
#define MNT_EXPIRE_ 4U
#define UMOUNT_NOFOLLOW_ 8U

/* One request, from RECV to SEND. The helper writes its half in place. */
struct req {
	struct mntsnap_k_seccomp_notif n;
	const struct container *c;
	enum kind kind;
	unsigned umount_flags;
	uint32_t ms;         /* the MS_* bits the flag table knows */
	bool rec;            /* MS_REC on a bind or a propagation change */
	uint32_t prop;       /* MS_SHARED/SLAVE/PRIVATE/UNBINDABLE asked */
	bool has_source, has_fstype, has_data;
	char source[PATH_MAX_], target[PATH_MAX_], fstype[FSTYPE_MAX_], data[DATA_MAX_];
	char *asked;         /* flags by name + data */
	/* expected identity of the caller's root */
	uint64_t root_mnt, root_ino, root_dev;
	/* filled by the helper */
	char rsource[PATH_MAX_], rtarget[PATH_MAX_], mfstype[FSTYPE_MAX_];
	char *applied;
	int rule;
	uint64_t mnt_id;
	const char *reason;
	int result;
	bool gone;           /* the answer found nobody */
	bool answered;       /* ADDFD with SEND already answered the call */
	const char *sysname; /* for the audit; NULL: from the number */
};

/* ---- the object --------------------------------------------------------- */

int mntsnap_supervisor_new(const struct mntsnap_policy *policy,
			   const struct mntsnap_supervisor_opts *opts,
			   struct mntsnap_supervisor **ret_sv)
{
	struct mntsnap_supervisor *sv;
	int r;

	if (!policy || !ret_sv)
		return -EINVAL;
	sv = calloc(1, sizeof(*sv));
	if (!sv)
		return -ENOMEM;
	sv->o.sz = sizeof(sv->o);
	if (opts) {
		r = mntsnap_opts_valid(opts, opts->sz, sizeof(sv->o));
		if (r) {
			free(sv);
			return r;
		}
		memcpy(&sv->o, opts, opts->sz < sizeof(sv->o) ? opts->sz : sizeof(sv->o));
	}
	mntsnap_sys_resolve(sv->o.sysops, &sv->sys);
	sv->policy = policy;
	{
		struct stat st;

		if (!stat("/proc/self/ns/mnt", &st)) {
			sv->own_dev = st.st_dev;
			sv->own_ino = st.st_ino;
		}
	}
	sv->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sv->epfd < 0) {
		r = -errno;
		free(sv);
		return r;
	}
	*ret_sv = sv;
	return 0;
}

static void fsctx_free(struct fsctx *x)
{
	if (!x)
		return;
	close(x->fd);
	free(x->source);
	free(x->opts);
	free(x);
}

static void container_free(struct container *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c->id);
	free(c->mounted);
	mntsnap_ns_free(c->ns);
	for (size_t i = 0; i < c->nctx; i++)
		fsctx_free(c->ctx[i]);
	free(c->ctx);
	free(c);
}

void mntsnap_supervisor_free(struct mntsnap_supervisor *sv)
{
	if (!sv)
		return;
	for (size_t i = 0; i < sv->n; i++)
		container_free(sv->c[i]);
	free(sv->c);
	close(sv->epfd);
	free(sv);
}

int mntsnap_supervisor_add(struct mntsnap_supervisor *sv, int notify_fd, const char *id)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct container *c, **nc;

	if (!sv)
		return -EINVAL;
	if (notify_fd < 0 || fcntl(notify_fd, F_GETFD) < 0)
		return -EBADF;
	for (size_t i = 0; i < sv->n; i++)
		if (sv->c[i]->fd == notify_fd)
			return -EEXIST;
	c = calloc(1, sizeof(*c));
	nc = realloc(sv->c, (sv->n + 1) * sizeof(*nc));
	if (nc)
		sv->c = nc;
	if (!c || !nc || !(c->id = strdup(id ? id : ""))) {
		free(c);
		return -ENOMEM;
	}
	c->fd = notify_fd;
	ev.data.ptr = c;
	if (epoll_ctl(sv->epfd, EPOLL_CTL_ADD, notify_fd, &ev)) {
		int r = errno == EEXIST ? -EEXIST : -errno;

		free(c->id);
		free(c);
		return r;
	}
	/* the supervisor owns it now: keep it off 0-2 and close-on-exec */
	fcntl(notify_fd, F_SETFD, FD_CLOEXEC);
	sv->c[sv->n++] = c;
	return 0;
}

size_t mntsnap_supervisor_count(const struct mntsnap_supervisor *sv)
{
	return sv ? sv->n : 0;
}

int mntsnap_supervisor_fd(const struct mntsnap_supervisor *sv)
{
	return sv ? sv->epfd : -EINVAL;
}

static void container_remove(struct mntsnap_supervisor *sv, struct container *c)
{
	for (size_t i = 0; i < sv->n; i++) {
		if (sv->c[i] != c)
			continue;
		epoll_ctl(sv->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		container_free(c);
		sv->c[i] = sv->c[--sv->n];
		return;
	}
}

/* ---- reading the caller's memory --------------------------------------- */

/*
 * A NUL-terminated string at addr in pid, read a page at a time so that a
 * string ending just before an unmapped page is still read whole.
 * -EFAULT (unreadable, as the kernel would say), -ENAMETOOLONG, -ESRCH.
 */
static int read_str(int pid, uint64_t addr, char *buf, size_t max)
{
	const size_t page = 4096;
	size_t got = 0;

	if (!addr)
		return -EFAULT;
	while (got < max) {
		uint64_t at = addr + got;
		size_t n = page - (size_t)(at % page);
		struct iovec l, rm;
		ssize_t r;

		if (n > max - got)
			n = max - got;
		l = (struct iovec){ buf + got, n };
		rm = (struct iovec){ (void *)(uintptr_t)at, n };
		r = process_vm_readv(pid, &l, 1, &rm, 1, 0);
		if (r <= 0)
			return r < 0 && errno == ESRCH ? -ESRCH : -EFAULT;
		if (memchr(buf + got, '\0', (size_t)r))
			return 0;
		got += (size_t)r;
	}
	return -ENAMETOOLONG;
}

/* An optional string argument: NULL is "absent", anything else must read. */
static int read_opt(int pid, uint64_t addr, char *buf, size_t max, bool *ret_has)
{
	*ret_has = addr != 0;
	buf[0] = '\0';
	return addr ? read_str(pid, addr, buf, max) : 0;
}

static int read_args(struct req *q)
{
	const uint64_t *a = q->n.data.args;
	int pid = (int)q->n.pid;
	bool has_target;
	int r;

	r = read_opt(pid, a[0], q->source, sizeof(q->source), &q->has_source);
	if (!r)
		r = read_opt(pid, a[1], q->target, sizeof(q->target), &has_target);
	if (!r && !has_target)
		r = -EFAULT;
	if (!r)
		r = read_opt(pid, a[2], q->fstype, sizeof(q->fstype), &q->has_fstype);
	return r;
}

/* ---- decoding mount(2) -------------------------------------------------- */

#define MS_PROPAGATION_ (MNTSNAP_MS_SHARED | MNTSNAP_MS_SLAVE | MNTSNAP_MS_PRIVATE | \
			 MNTSNAP_MS_UNBINDABLE)

static const struct {
	uint32_t ms;
	const char *name;
} propagations[] = {
	{ MNTSNAP_MS_SHARED, "shared" },
	{ MNTSNAP_MS_SLAVE, "slave" },
	{ MNTSNAP_MS_PRIVATE, "private" },
	{ MNTSNAP_MS_UNBINDABLE, "unbindable" },
};

/* A propagation change: exactly one type, optionally MS_REC, as the kernel wants. */
static int decode_propagation(struct req *q, uint32_t f)
{
	q->kind = K_PROPAGATION;
	q->rec = f & MNTSNAP_K_MS_REC;
	f &= ~MNTSNAP_K_MS_REC;
	for (size_t i = 0; i < sizeof(propagations) / sizeof(propagations[0]); i++)
		if (f == propagations[i].ms) {
			q->prop = f;
			return 0;
		}
	return -EINVAL;
}

/*
 * Which kind of request, in the order mount(2) itself tests the flags
 * (remount, bind, propagation, move, new); -EOPNOTSUPP for flags the
 * supervisor does not know.
 */
static int decode_flags(struct req *q, uint64_t flags64)
{
	uint32_t f = (uint32_t)flags64;

	if (flags64 >> 32)
		return -EINVAL;
	if ((f & MNTSNAP_K_MS_MGC_MSK) == MNTSNAP_K_MS_MGC_VAL)
		f &= ~MNTSNAP_K_MS_MGC_MSK; /* the pre-2.4 magic, ignored by the kernel too */
	f &= ~MNTSNAP_K_MS_SILENT;
	if (f & MNTSNAP_K_MS_REMOUNT) {
		q->kind = f & MNTSNAP_K_MS_BIND ? K_REMOUNT_BIND : K_REMOUNT;
		f &= ~(MNTSNAP_K_MS_REMOUNT | MNTSNAP_K_MS_BIND);
	} else if (f & MNTSNAP_K_MS_BIND) {
		q->kind = K_BIND;
		q->rec = f & MNTSNAP_K_MS_REC;
		f &= ~(MNTSNAP_K_MS_BIND | MNTSNAP_K_MS_REC);
	} else if (f & MS_PROPAGATION_) {
		return decode_propagation(q, f);
	} else if (f & MNTSNAP_K_MS_MOVE) {
		q->kind = K_MOVE; /* mount(2) ignores every other flag here */
		return 0;
	} else {
		q->kind = K_NEW;
	}
	if (f & ~mntsnap__mntflag_ms_all())
		return -EOPNOTSUPP;
	q->ms = f;
	return 0;
}

/* "private" or "private,rec": how rules see a propagation change */
static char *propagation_opts(const struct req *q)
{
	for (size_t i = 0; i < sizeof(propagations) / sizeof(propagations[0]); i++)
		if (q->prop == propagations[i].ms) {
			char *s = malloc(strlen(propagations[i].name) + 5);

			if (s)
				sprintf(s, "%s%s", propagations[i].name, q->rec ? ",rec" : "");
			return s;
		}
	return NULL;
}

/*
 * fstype as rules see it: "bind" for binds, the mount's own for remounts,
 * propagation changes and moves
 */
static const char *match_fstype(const struct req *q)
{
	switch (q->kind) {
	case K_BIND:
		return "bind";
	case K_NEW:
		return q->fstype;
	default:
		return q->mfstype[0] ? q->mfstype : NULL;
	}
}

/* ---- inside the container: resolve, decide, mount ----------------------- */

static int sys_statx_(int dfd, const char *path, int flags, unsigned mask,
		      struct mntsnap_statx *st)
{
	return syscall(SYS_statx, dfd, path, flags, mask, st) ? -errno : 0;
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
		fd = (int)syscall(MNTSNAP_NR_openat2, dfd, path, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return fd < 0 ? -errno : fd;
}

/*
 * The canonical path of directory fd as the container sees it: the
 * helper's root is the namespace root (checked against the caller's),
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
	char parent[PATH_MAX_];
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
	char item[DATA_MAX_];
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
	return syscall(MNTSNAP_NR_fsconfig, fs, cmd, key, val, 0) ? -errno : 0;
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
	return syscall(MNTSNAP_NR_move_mount, mfd, "", tfd, "",
		       MNTSNAP_K_MOVE_MOUNT_F_EMPTY_PATH | MNTSNAP_K_MOVE_MOUNT_T_EMPTY_PATH)
		       ? -errno
		       : 0;
}

static uint64_t unique_id(int fd)
{
	struct mntsnap_statx st = { 0 };

	if (sys_statx_(fd, "", AT_EMPTY_PATH, MNTSNAP_STATX_MNT_ID_UNIQUE, &st) ||
	    !(st.stx_mask & MNTSNAP_STATX_MNT_ID_UNIQUE))
		return 0;
	return st.stx_mnt_id;
}

/* fsopen + options + fsmount + move_mount onto tfd. */
static int do_new(struct req *q, int tfd)
{
	struct attrs a;
	int fs, mfd, r;

	fs = (int)syscall(MNTSNAP_NR_fsopen, q->fstype, MNTSNAP_K_FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	r = 0;
	if (q->has_source && q->source[0])
		r = fsconfig_(fs, MNTSNAP_K_FSCONFIG_SET_STRING, "source", q->source);
	if (!r)
		r = walk_applied(q->applied, &a, fs_option, &fs);
	for (size_t i = 0; !r && i < a.nsb; i++)
		r = fsconfig_(fs, MNTSNAP_K_FSCONFIG_SET_FLAG, a.sb[i], NULL);
	if (!r)
		r = fsconfig_(fs, MNTSNAP_K_FSCONFIG_CMD_CREATE, NULL, NULL);
	if (r) {
		close(fs);
		return r;
	}
	mfd = (int)syscall(MNTSNAP_NR_fsmount, fs, MNTSNAP_K_FSMOUNT_CLOEXEC, a.set);
	r = mfd < 0 ? -errno : 0;
	close(fs);
	if (r)
		return r;
	q->mnt_id = unique_id(mfd);
	r = move_onto(mfd, tfd);
	close(mfd);
	return r;
}

static int setattr_(int fd, unsigned at, const struct attrs *a)
{
	struct mntsnap_k_mount_attr ma = { .attr_set = a->set, .attr_clr = a->clr };

	if (a->atime)
		ma.attr_clr |= MNTSNAP_K_MOUNT_ATTR__ATIME;
	if (!ma.attr_set && !ma.attr_clr)
		return 0;
	return syscall(MNTSNAP_NR_mount_setattr, fd, "", AT_EMPTY_PATH | at, &ma, sizeof(ma))
		       ? -errno
		       : 0;
}

/* open_tree clone of the source, the applied flags on it, onto tfd. */
static int do_bind(struct req *q, int sfd, int tfd)
{
	unsigned rec = q->rec ? MNTSNAP_AT_RECURSIVE : 0;
	struct attrs a;
	int t, r;

	r = walk_applied(q->applied, &a, NULL, NULL);
	if (r)
		return r;
	t = (int)syscall(MNTSNAP_NR_open_tree, sfd, "",
			 MNTSNAP_OPEN_TREE_CLONE | MNTSNAP_OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | rec);
	if (t < 0)
		return -errno;
	r = setattr_(t, rec, &a);
	if (!r)
		q->mnt_id = unique_id(t);
	if (!r)
		r = move_onto(t, tfd);
	close(t);
	return r;
}

/*
 * Remount as mount(2) does it: the flags given replace the mount's (an
 * atime mode is kept when none is named); without MS_BIND the
 * superblock is reconfigured with the options first.
 */
static int do_remount(struct req *q, int tfd)
{
	const uint64_t all = MNTSNAP_K_MOUNT_ATTR_RDONLY | MNTSNAP_K_MOUNT_ATTR_NOSUID |
			     MNTSNAP_K_MOUNT_ATTR_NODEV | MNTSNAP_K_MOUNT_ATTR_NOEXEC |
			     MNTSNAP_K_MOUNT_ATTR_NODIRATIME | MNTSNAP_K_MOUNT_ATTR_NOSYMFOLLOW;
	struct attrs a;
	int fs, r;

	if (q->kind == K_REMOUNT) {
		fs = (int)syscall(MNTSNAP_NR_fspick, tfd, "",
				  MNTSNAP_K_FSPICK_EMPTY_PATH | MNTSNAP_K_FSPICK_CLOEXEC);
		if (fs < 0)
			return -errno;
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
		char raw[sizeof(struct mntsnap_k_statmount) + FSTYPE_MAX_];
	} u;
	long r;

	r = sys_statx_(tfd, "", AT_EMPTY_PATH, MNTSNAP_STATX_MNT_ID_UNIQUE, &st);
	if (r)
		return (int)r;
	if (!(st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT_) ||
	    !(st.stx_attributes & STATX_ATTR_MOUNT_ROOT_))
		return -EINVAL; /* what mount(2) says for a remount of a non-mount */
	req.mnt_id = st.stx_mnt_id;
	memset(&u, 0, sizeof(u));
	r = mntsnap_sys_statmount(NULL, &req, &u.sm, sizeof(u), 0);
	if (r < 0)
		return (int)r;
	if (!(u.sm.mask & MNTSNAP_K_STATMOUNT_FS_TYPE) || u.sm.fs_type >= FSTYPE_MAX_)
		return -EIO;
	snprintf(buf, len, "%s", u.sm.str + u.sm.fs_type);
	return 0;
}

struct work {
	struct req *q;
	const struct mntsnap_policy *policy;
};

static bool is_ours(const struct container *c, uint64_t id);

/*
 * MS_MOVE's source: a mount the supervisor made for this container and
 * nothing else (moving a runtime's mount away could uncover what it
 * masks, /proc/kcore under its /dev/null bind for one).
 */
static int move_source(struct req *q, int root, int *sfd)
{
	struct mntsnap_statx st = { 0 };
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
		r = sys_statx_(*sfd, "", AT_EMPTY_PATH, MNTSNAP_STATX_MNT_ID_UNIQUE, &st);
	if (r)
		return r;
	q->reason = "not ours";
	if (!is_ours(q->c, st.stx_mnt_id))
		return -EPERM;
	q->mnt_id = st.stx_mnt_id;
	return 0;
}

static int do_propagation(struct req *q, int tfd)
{
	struct mntsnap_k_mount_attr ma = { .propagation = q->prop };

	if (syscall(MNTSNAP_NR_mount_setattr, tfd, "",
		    AT_EMPTY_PATH | (q->rec ? MNTSNAP_AT_RECURSIVE : 0), &ma, sizeof(ma)))
		return -errno;
	q->mnt_id = unique_id(tfd);
	return 0;
}

static int root_matches(const struct req *q)
{
	struct mntsnap_statx st = { 0 };

	if (sys_statx_(AT_FDCWD, "/", 0, MNTSNAP_STATX_MNT_ID_UNIQUE, &st))
		return -errno;
	if (st.stx_mnt_id != q->root_mnt || st.stx_ino != q->root_ino ||
	    makedev(st.stx_dev_major, st.stx_dev_minor) != q->root_dev)
		return -EPERM;
	return 0;
}

static int work_decide(struct req *q, const struct mntsnap_policy *p, int root, int *sfd,
		       int *tfd)
{
	const char *src;
	int r;

	q->reason = "target";
	r = resolve(root, q->target, q->rtarget, sizeof(q->rtarget), tfd);
	if (r)
		return r;
	if (q->kind == K_BIND) {
		q->reason = "source";
		if (!q->has_source)
			return -EFAULT;
		r = resolve(root, q->source, q->rsource, sizeof(q->rsource), sfd);
		if (r)
			return r;
	}
	if (q->kind == K_REMOUNT || q->kind == K_REMOUNT_BIND || q->kind == K_PROPAGATION) {
		q->reason = "not a mount";
		r = mount_type(*tfd, q->mfstype, sizeof(q->mfstype));
		if (r)
			return r;
	}
	if (q->kind == K_MOVE) {
		r = move_source(q, root, sfd);
		if (r)
			return r;
	}
	q->reason = "policy";
	src = q->kind == K_BIND || q->kind == K_MOVE ? q->rsource
						       : (q->has_source ? q->source : NULL);
	r = mntsnap_policy_check(p, match_fstype(q), src, q->rtarget, q->asked, &q->rule);
	if (r)
		return r;
	/* force is about mount options: a move or a type change keeps them */
	if (q->kind == K_PROPAGATION || q->kind == K_MOVE)
		q->applied = strdup(q->asked);
	else
		q->applied = mntsnap__policy_apply(p, q->rule, q->asked);
	return q->applied ? 0 : -ENOMEM;
}

/* Runs in the helper, inside the caller's mount namespace. */
static int work_mount(void *data, void **ret_buf, size_t *ret_len)
{
	struct work *w = data;
	struct req *q = w->q;
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
	if (!r) {
		q->reason = "mount";
		if (q->kind == K_NEW)
			r = do_new(q, tfd);
		else if (q->kind == K_BIND)
			r = do_bind(q, sfd, tfd);
		else if (q->kind == K_PROPAGATION)
			r = do_propagation(q, tfd);
		else if (q->kind == K_MOVE)
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

static bool is_ours(const struct container *c, uint64_t id)
{
	for (size_t i = 0; id && i < c->nmounted; i++)
		if (c->mounted[i] == id)
			return true;
	return false;
}

/*
 * umount2 of a mount the supervisor made for this container, and of
 * nothing else. The mount is named from its parent directory (openat
 * "..", which for a mount root is the directory under the mountpoint) so
 * the helper's cwd is not inside it; the name is checked to lead to the
 * same mount id right before umount2.
 */
static int do_umount(struct req *q, int *tfdp)
{
	int tfd = *tfdp;
	struct mntsnap_statx st = { 0 };
	const char *base = strrchr(q->rtarget, '/');
	int pfd, r;

	r = sys_statx_(tfd, "", AT_EMPTY_PATH, MNTSNAP_STATX_MNT_ID_UNIQUE, &st);
	if (r)
		return r;
	if (!(st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT_) ||
	    !(st.stx_attributes & STATX_ATTR_MOUNT_ROOT_))
		return -EINVAL; /* what umount2(2) says for a non-mount */
	q->mnt_id = st.stx_mnt_id;
	q->reason = "policy";
	if (!is_ours(q->c, st.stx_mnt_id) || !base || !base[1])
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
		r = sys_statx_(AT_FDCWD, base + 1, AT_SYMLINK_NOFOLLOW, MNTSNAP_STATX_MNT_ID_UNIQUE,
			       &st);
	if (!r && st.stx_mnt_id != q->mnt_id)
		r = -EAGAIN; /* changed under us: refuse rather than guess */
	q->reason = "umount";
	if (!r && syscall(SYS_umount2, base + 1, (int)(q->umount_flags | UMOUNT_NOFOLLOW_)))
		r = -errno;
	return r;
}

/* Runs in the helper, inside the caller's mount namespace. */
static int work_umount(void *data, void **ret_buf, size_t *ret_len)
{
	struct work *w = data;
	struct req *q = w->q;
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
	if (!r)
		r = do_umount(q, &tfd);
	if (!r)
		q->reason = NULL;
	if (tfd >= 0)
		close(tfd);
	close(root);
	return r;
}

/* ---- one request -------------------------------------------------------- */

static int root_identity(struct req *q)
{
	struct mntsnap_statx st = { 0 };
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/root", q->n.pid);
	if (sys_statx_(AT_FDCWD, path, 0, MNTSNAP_STATX_MNT_ID_UNIQUE, &st))
		return errno == ENOENT ? -ESRCH : -errno;
	if (!(st.stx_mask & MNTSNAP_STATX_MNT_ID_UNIQUE))
		return -EOPNOTSUPP;
	q->root_mnt = st.stx_mnt_id;
	q->root_ino = st.stx_ino;
	q->root_dev = makedev(st.stx_dev_major, st.stx_dev_minor);
	return 0;
}

static int id_valid(struct mntsnap_supervisor *sv, struct container *c, uint64_t id)
{
	long r = sv->sys.ioctl(sv->sys.ctx, c->fd, MNTSNAP_K_SECCOMP_IOCTL_NOTIF_ID_VALID, &id);

	return r < 0 ? (int)r : 0;
}

/*
 * The caller's mount namespace as a handle, kept per container while the
 * callers stay in the same one: reopening costs a pidfd, an nsfs open and
 * the helper's stack mapping each time. The caller is named by pid here;
 * NOTIF_ID_VALID afterwards proves the pid was still the caller.
 * A caller in the supervisor's own mount namespace is refused (-EPERM):
 * the policy speaks of containers, and a "/mnt" glob there would mean the
 * host's /mnt.
 */
static int caller_ns(const struct mntsnap_supervisor *sv, struct container *c,
		     const struct req *q, struct mntsnap_ns **ret_ns)
{
	struct mntsnap_ns *ns;
	char path[64];
	struct stat st;
	int fd, r = 0;

	snprintf(path, sizeof(path), "/proc/%u/ns/mnt", q->n.pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (fstat(fd, &st))
		r = -errno;
	else if (st.st_dev == sv->own_dev && st.st_ino == sv->own_ino)
		r = -EPERM;
	else if (!c->ns || c->ns_dev != st.st_dev || c->ns_ino != st.st_ino) {
		r = mntsnap_ns_open_fd(fd, &ns);
		if (!r) {
			mntsnap_ns_free(c->ns);
			c->ns = ns;
			c->ns_dev = st.st_dev;
			c->ns_ino = st.st_ino;
		}
	}
	close(fd);
	if (!r)
		*ret_ns = c->ns;
	return r;
}

/* Steps 3-5 of the file comment. -ENOENT: the caller has gone. */
static int perform(struct mntsnap_supervisor *sv, struct container *c, struct req *q)
{
	MNTSNAP_OPTS(mntsnap_ns_opts, o, .keep_caps = 1ULL << CAP_SYS_ADMIN_,
		     .timeout_ms = sv->o.timeout_ms);
	struct work w = { .q = q, .policy = sv->policy };
	struct mntsnap_ns *ns = NULL;
	void *buf = NULL;
	size_t len = 0;
	int r;

	q->reason = "caller gone";
	r = caller_ns(sv, c, q, &ns);
	if (r == -EPERM)
		q->reason = "supervisor's own namespace";
	if (!r)
		r = root_identity(q);
	if (!r && id_valid(sv, c, q->n.id))
		r = -ENOENT;
	if (r == -ESRCH)
		r = -ENOENT;
	if (!r) {
		r = mntsnap_ns_run(ns, q->kind == K_UMOUNT ? work_umount : work_mount, &w, &o, &buf,
				   &len);
		free(buf);
	}
	return r;
}

static void decide_mount(struct mntsnap_supervisor *sv, struct container *c, struct req *q)
{
	int perr = mntsnap__policy_errno(sv->policy);
	int r;

	q->reason = "arguments";
	r = read_args(q);
	if (r == -ESRCH)
		r = -ENOENT;
	if (!r) {
		r = decode_flags(q, q->n.data.args[3]);
		if (r == -EOPNOTSUPP) {
			q->reason = "unsupported flags";
			r = -perr;
		}
	}
	if (!r && q->kind == K_NEW && !q->has_fstype) {
		q->reason = "no fstype";
		r = -EINVAL;
	}
	if (!r && (q->kind == K_NEW || q->kind == K_REMOUNT)) {
		r = read_opt((int)q->n.pid, q->n.data.args[4], q->data, sizeof(q->data),
			     &q->has_data);
		if (r == -ENAMETOOLONG) {
			q->reason = "binary data";
			r = -perr;
		}
	}
	if (!r) {
		q->asked = q->kind == K_PROPAGATION ? propagation_opts(q)
						    : mntsnap__opts_from_ms(q->ms, q->data);
		if (!q->asked)
			r = -ENOMEM;
	}
	if (!r && (q->kind == K_NEW || q->kind == K_BIND) &&
	    !mntsnap__policy_may_allow(sv->policy, match_fstype(q))) {
		q->reason = "policy";
		q->rule = -1;
		r = -perr;
	}
	if (!r)
		r = perform(sv, c, q);
	q->result = r;
}

static void decide_umount(struct mntsnap_supervisor *sv, struct container *c, struct req *q)
{
	bool has;
	int r;

	q->kind = K_UMOUNT;
	q->umount_flags = (unsigned)q->n.data.args[1];
	q->reason = "arguments";
	r = read_opt((int)q->n.pid, q->n.data.args[0], q->target, sizeof(q->target), &has);
	if (!r && !has)
		r = -EFAULT;
	if (r == -ESRCH)
		r = -ENOENT;
	if (!r && (q->n.data.args[1] >> 32 ||
		   (q->umount_flags & ~(MNT_DETACH_ | UMOUNT_NOFOLLOW_)))) {
		/* MNT_FORCE and MNT_EXPIRE are not for containers */
		q->reason = "unsupported flags";
		r = q->umount_flags & (MNT_FORCE_ | MNT_EXPIRE_) ? -mntsnap__policy_errno(sv->policy)
								  : -EINVAL;
	}
	if (!r)
		r = perform(sv, c, q);
	q->result = r;
}

/* ---- the new mount API ------------------------------------------------- */

#define MFD_CLOEXEC_ 1U
#define MFD_ALLOW_SEALING_ 2U
#define KNOWN_ATTR_ (MNTSNAP_K_MOUNT_ATTR_RDONLY | MNTSNAP_K_MOUNT_ATTR_NOSUID |            \
		     MNTSNAP_K_MOUNT_ATTR_NODEV | MNTSNAP_K_MOUNT_ATTR_NOEXEC |              \
		     MNTSNAP_K_MOUNT_ATTR__ATIME | MNTSNAP_K_MOUNT_ATTR_NODIRATIME |         \
		     MNTSNAP_K_MOUNT_ATTR_NOSYMFOLLOW)

/* Which of c's contexts the caller's fd is: its file, fetched, compared by inode. */
static int ctx_of_fd(struct container *c, const struct req *q, uint64_t fd64,
		     struct fsctx **ret)
{
	int pidfd, fd, r = -EINVAL;
	struct stat st;

	if (fd64 > INT32_MAX)
		return -EBADF;
	pidfd = (int)syscall(MNTSNAP_NR_pidfd_open, q->n.pid, 0);
	if (pidfd < 0)
		return -ESRCH;
	fd = (int)syscall(MNTSNAP_NR_pidfd_getfd, pidfd, (int)fd64, 0);
	close(pidfd);
	if (fd < 0)
		return errno == EBADF ? -EBADF : -ESRCH;
	if (!fstat(fd, &st))
		for (size_t i = 0; i < c->nctx; i++)
			if (c->ctx[i]->dev == st.st_dev && c->ctx[i]->ino == st.st_ino) {
				*ret = c->ctx[i];
				r = 0;
				break;
			}
	close(fd);
	return r; /* not one of ours: what the kernel says for a non-context fd */
}

static void ctx_remove(struct container *c, struct fsctx *x)
{
	for (size_t i = 0; i < c->nctx; i++)
		if (c->ctx[i] == x) {
			c->ctx[i] = c->ctx[--c->nctx];
			fsctx_free(x);
			return;
		}
}

/*
 * A new placeholder, handed to the caller with ADDFD|SEND, which also
 * answers the call with the fd number. On success the context is c's.
 */
static int ctx_hand_over(struct mntsnap_supervisor *sv, struct container *c, struct req *q,
			 struct fsctx *x, bool cloexec)
{
	struct mntsnap_k_seccomp_notif_addfd add = { 0 };
	struct fsctx **n;
	struct stat st;
	long r;

	if (c->nctx >= MAX_CTX)
		return -EMFILE;
	x->fd = (int)syscall(SYS_memfd_create, "mntsnap-fs-context",
			     MFD_CLOEXEC_ | MFD_ALLOW_SEALING_);
	if (x->fd < 0)
		return -errno;
	/* inert: the container can neither write nor grow what it holds */
	if (fcntl(x->fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) ||
	    fstat(x->fd, &st))
		return -errno;
	x->dev = st.st_dev;
	x->ino = st.st_ino;
	n = realloc(c->ctx, (c->nctx + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	c->ctx = n;
	if (id_valid(sv, c, q->n.id))
		return -ENOENT;
	add.id = q->n.id;
	add.flags = MNTSNAP_K_SECCOMP_ADDFD_FLAG_SEND;
	add.srcfd = (uint32_t)x->fd;
	add.newfd_flags = cloexec ? O_CLOEXEC : 0;
	r = sv->sys.ioctl(sv->sys.ctx, c->fd, MNTSNAP_K_SECCOMP_IOCTL_NOTIF_ADDFD, &add);
	if (r < 0)
		return (int)r;
	q->answered = true;
	c->ctx[c->nctx++] = x;
	return 0;
}

static void do_fsopen(struct mntsnap_supervisor *sv, struct container *c, struct req *q)
{
	const uint64_t *a = q->n.data.args;
	struct fsctx *x;
	int r;

	q->sysname = "fsopen";
	q->reason = "arguments";
	r = read_str((int)q->n.pid, a[0], q->fstype, sizeof(q->fstype));
	q->has_fstype = !r;
	if (!r && a[1] & ~(uint64_t)MNTSNAP_K_FSOPEN_CLOEXEC)
		r = -EINVAL;
	if (!r && !mntsnap__policy_may_allow(sv->policy, q->fstype)) {
		q->reason = "policy";
		q->rule = -1;
		r = -mntsnap__policy_errno(sv->policy);
	}
	if (!r) {
		x = calloc(1, sizeof(*x));
		if (!x) {
			r = -ENOMEM;
		} else {
			x->fd = -1;
			snprintf(x->fstype, sizeof(x->fstype), "%s", q->fstype);
			q->reason = "fd";
			r = ctx_hand_over(sv, c, q, x, a[1] & MNTSNAP_K_FSOPEN_CLOEXEC);
			if (r)
				fsctx_free(x);
			else
				q->reason = NULL;
		}
	}
	q->result = r;
}

/* Record one fsconfig option as "key" or "key=value". */
static int ctx_add_opt(struct fsctx *x, const char *key, const char *val)
{
	size_t n = (x->opts ? strlen(x->opts) + 1 : 0) + strlen(key) + (val ? strlen(val) + 1 : 0);
	char *o;

	/* a comma would split the option when it is replayed */
	if (strchr(key, ',') || strchr(key, '=') || (val && strchr(val, ',')) || !*key)
		return -EINVAL;
	o = malloc(n + 1);
	if (!o)
		return -ENOMEM;
	snprintf(o, n + 1, "%s%s%s%s%s", x->opts ? x->opts : "", x->opts ? "," : "", key,
		 val ? "=" : "", val ? val : "");
	free(x->opts);
	x->opts = o;
	return 0;
}

static int fsconfig_apply(struct req *q, struct fsctx *x)
{
	const uint64_t *a = q->n.data.args;
	int pid = (int)q->n.pid;
	char key[256];
	int r;

	if (x->is_mount)
		return -EINVAL;
	switch (a[1]) {
	case MNTSNAP_K_FSCONFIG_CMD_CREATE:
		if (x->created)
			return -EBUSY;
		x->created = true;
		return 0;
	case MNTSNAP_K_FSCONFIG_SET_FLAG:
	case MNTSNAP_K_FSCONFIG_SET_STRING:
		break;
	default:
		/* binary, path and fd values, reconfiguration: not for containers */
		q->reason = "unsupported command";
		return -EOPNOTSUPP;
	}
	if (x->created)
		return -EBUSY;
	r = read_str(pid, a[2], key, sizeof(key));
	if (r)
		return r;
	if (a[1] == MNTSNAP_K_FSCONFIG_SET_FLAG) {
		snprintf(q->data, sizeof(q->data), "%s", key);
		return ctx_add_opt(x, key, NULL);
	}
	r = read_str(pid, a[3], q->data, sizeof(q->data));
	if (r)
		return r;
	if (!strcmp(key, "source")) {
		free(x->source);
		x->source = strdup(q->data);
		return x->source ? 0 : -ENOMEM;
	}
	return ctx_add_opt(x, key, q->data);
}

static void do_fsconfig(struct mntsnap_supervisor *sv, struct container *c, struct req *q)
{
	struct fsctx *x = NULL;
	int r;

	q->sysname = "fsconfig";
	q->reason = "fd";
	r = ctx_of_fd(c, q, q->n.data.args[0], &x);
	if (!r) {
		snprintf(q->fstype, sizeof(q->fstype), "%s", x->fstype);
		q->has_fstype = true;
		q->reason = "caller gone";
		r = id_valid(sv, c, q->n.id) ? -ENOENT : 0;
	}
	if (!r) {
		q->reason = "arguments";
		r = fsconfig_apply(q, x);
	}
	if (!r)
		q->reason = NULL;
	if (r == -ESRCH)
		r = -ENOENT;
	q->asked = x && x->opts ? strdup(x->opts) : NULL;
	q->result = r;
}

static void do_fsmount(struct mntsnap_supervisor *sv, struct container *c, struct req *q)
{
	const uint64_t *a = q->n.data.args;
	struct fsctx *x = NULL, *m;
	int r;

	q->sysname = "fsmount";
	q->reason = "fd";
	r = ctx_of_fd(c, q, a[0], &x);
	if (!r && (x->is_mount || !x->created)) {
		q->reason = "not created";
		r = -EINVAL;
	}
	if (!r && ((a[1] & ~(uint64_t)MNTSNAP_K_FSMOUNT_CLOEXEC) || (a[2] & ~(uint64_t)KNOWN_ATTR_))) {
		q->reason = "unsupported flags";
		r = -EINVAL;
	}
	if (!r) {
		snprintf(q->fstype, sizeof(q->fstype), "%s", x->fstype);
		q->has_fstype = true;
		m = calloc(1, sizeof(*m));
		r = -ENOMEM;
		if (m) {
			*m = *x;
			m->fd = -1;
			m->is_mount = true;
			m->attr = a[2];
			m->source = x->source ? strdup(x->source) : NULL;
			m->opts = x->opts ? strdup(x->opts) : NULL;
			r = (x->source && !m->source) || (x->opts && !m->opts) ? -ENOMEM : 0;
			if (!r)
				r = ctx_hand_over(sv, c, q, m, a[1] & MNTSNAP_K_FSMOUNT_CLOEXEC);
			if (r)
				fsctx_free(m);
		}
		if (!r)
			q->reason = NULL;
	}
	if (r == -ESRCH)
		r = -ENOENT;
	q->result = r;
}

/* The options of a detached mount: what fsconfig set, then its attr flags by name. */
static char *mount_opts(const struct fsctx *m)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} attrs[] = {
		{ MNTSNAP_K_MOUNT_ATTR_RDONLY, "ro" },      { MNTSNAP_K_MOUNT_ATTR_NOSUID, "nosuid" },
		{ MNTSNAP_K_MOUNT_ATTR_NODEV, "nodev" },    { MNTSNAP_K_MOUNT_ATTR_NOEXEC, "noexec" },
		{ MNTSNAP_K_MOUNT_ATTR_NODIRATIME, "nodiratime" },
		{ MNTSNAP_K_MOUNT_ATTR_NOSYMFOLLOW, "nosymfollow" },
	};
	char buf[DATA_MAX_];
	size_t n = 0;

	buf[0] = '\0';
	if (m->opts)
		n = (size_t)snprintf(buf, sizeof(buf), "%s", m->opts);
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]) && n < sizeof(buf); i++)
		if (m->attr & attrs[i].bit)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "",
					      attrs[i].name);
	if ((m->attr & MNTSNAP_K_MOUNT_ATTR__ATIME) == MNTSNAP_K_MOUNT_ATTR_NOATIME && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%snoatime", n ? "," : "");
	if ((m->attr & MNTSNAP_K_MOUNT_ATTR__ATIME) == MNTSNAP_K_MOUNT_ATTR_STRICTATIME &&
	    n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%sstrictatime", n ? "," : "");
	return n < sizeof(buf) ? strdup(buf) : NULL;
}

/*
 * move_mount of one of our detached mounts onto an absolute path: the
 * whole request (type, source, every option, the target resolved inside
 * the container) is decided here and performed like mount(2). Moving
 * anything else (an attached mount, a path) is refused.
 */
static void do_move_mount(struct mntsnap_supervisor *sv, struct container *c, struct req *q)
{
	const uint64_t *a = q->n.data.args;
	struct fsctx *m = NULL;
	char from[8];
	int r;

	q->sysname = "move_mount";
	q->reason = "arguments";
	r = read_str((int)q->n.pid, a[1], from, sizeof(from));
	if (!r)
		r = read_str((int)q->n.pid, a[3], q->target, sizeof(q->target));
	if (!r && (a[4] != MNTSNAP_K_MOVE_MOUNT_F_EMPTY_PATH || from[0])) {
		q->reason = "unsupported flags";
		r = -mntsnap__policy_errno(sv->policy);
	}
	if (!r) {
		q->reason = "fd";
		r = ctx_of_fd(c, q, a[0], &m);
		if (!r && !m->is_mount)
			r = -EINVAL;
	}
	if (!r) {
		q->kind = K_NEW;
		snprintf(q->fstype, sizeof(q->fstype), "%s", m->fstype);
		q->has_fstype = true;
		q->has_source = m->source != NULL;
		snprintf(q->source, sizeof(q->source), "%s", m->source ? m->source : "");
		q->asked = mount_opts(m);
		r = q->asked ? 0 : -ENOMEM;
	}
	if (!r && !mntsnap__policy_may_allow(sv->policy, q->fstype)) {
		q->reason = "policy";
		q->rule = -1;
		r = -mntsnap__policy_errno(sv->policy);
	}
	if (!r)
		r = perform(sv, c, q);
	if (!r)
		ctx_remove(c, m); /* attached: the placeholder stands for nothing now */
	if (r == -ESRCH)
		r = -ENOENT;
	q->result = r;
}

/* Remember (or forget) a mount made for c. */
static void track(struct container *c, const struct req *q)
{
	if (q->result || !q->mnt_id)
		return;
	if (q->kind == K_UMOUNT) {
		for (size_t i = 0; i < c->nmounted; i++)
			if (c->mounted[i] == q->mnt_id) {
				c->mounted[i] = c->mounted[--c->nmounted];
				return;
			}
	} else if (q->kind == K_NEW || q->kind == K_BIND) {
		uint64_t *n = realloc(c->mounted, (c->nmounted + 1) * sizeof(*n));

		/* without memory it is only forgotten: umount2 of it is refused */
		if (n) {
			c->mounted = n;
			c->mounted[c->nmounted++] = q->mnt_id;
		}
	}
}

/* ---- audit -------------------------------------------------------------- */

static const char *syscall_name(const struct req *q, char *buf, size_t len)
{
	if (q->sysname)
		return q->sysname;
	if (q->n.data.nr == SYS_mount)
		return "mount";
	if (q->n.data.nr == SYS_umount2)
		return "umount2";
	snprintf(buf, len, "nr:%d", q->n.data.nr);
	return buf;
}

static void audit(struct mntsnap_supervisor *sv, struct container *c, struct req *q)
{
	struct mntsnap_sv_event ev = { 0 };
	struct timespec ts;
	char nr[32];

	if (!sv->o.audit)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	ev.time_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	ev.container = c->id;
	ev.pid = (int)q->n.pid;
	ev.syscall = syscall_name(q, nr, sizeof(nr));
	if (q->kind == K_UMOUNT) {
		ev.target = q->target[0] ? q->target : NULL;
	} else if (q->sysname && q->n.data.nr != MNTSNAP_NR_move_mount) {
		ev.fstype = q->has_fstype ? q->fstype : NULL;
	} else if (q->n.data.nr == SYS_mount || q->n.data.nr == MNTSNAP_NR_move_mount) {
		ev.fstype = match_fstype(q);
		if (!ev.fstype && q->has_fstype)
			ev.fstype = q->fstype;
		ev.source = q->has_source ? q->source : NULL;
		ev.target = q->target[0] ? q->target : NULL;
	}
	ev.source_resolved = q->rsource[0] ? q->rsource : NULL;
	ev.target_resolved = q->rtarget[0] ? q->rtarget : NULL;
	ev.options_asked = q->asked;
	ev.options_applied = q->result ? NULL : q->applied;
	ev.rule = q->rule;
	ev.result = q->result;
	ev.mnt_id = q->result ? 0 : q->mnt_id; /* umount2: the mount removed */
	ev.reason = q->result || q->gone ? q->reason : NULL;
	sv->o.audit(&ev, sv->o.audit_data);
}

/* RECV one notification on c and answer it. 1 answered, 0 none, -errno. */
static int handle_one(struct mntsnap_supervisor *sv, struct container *c)
{
	struct mntsnap_k_seccomp_notif_resp resp = { 0 };
	struct req *q = calloc(1, sizeof(*q));
	long r;

	if (!q)
		return -ENOMEM;
	q->rule = -2;
	q->c = c;
	r = sv->sys.ioctl(sv->sys.ctx, c->fd, MNTSNAP_K_SECCOMP_IOCTL_NOTIF_RECV, &q->n);
	if (r < 0) {
		free(q);
		/* ENOENT: the caller was interrupted before we got it */
		return r == -ENOENT || r == -EINTR ? 0 : (int)r;
	}
	if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == SYS_mount) {
		decide_mount(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == SYS_umount2) {
		decide_umount(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == MNTSNAP_NR_fsopen) {
		do_fsopen(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == MNTSNAP_NR_fsconfig) {
		do_fsconfig(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == MNTSNAP_NR_fsmount) {
		do_fsmount(sv, c, q);
	} else if (q->n.data.arch == NATIVE_ARCH && q->n.data.nr == MNTSNAP_NR_move_mount) {
		do_move_mount(sv, c, q);
	} else {
		q->reason = "syscall not handled";
		q->result = -mntsnap__policy_errno(sv->policy);
	}
	resp.id = q->n.id;
	resp.error = q->result;
	/*
	 * Always answered, even when the caller seems gone: an unanswered
	 * caller would block forever, and SEND to a gone one is a harmless
	 * ENOENT.
	 */
	r = q->answered ? 0
			: sv->sys.ioctl(sv->sys.ctx, c->fd, MNTSNAP_K_SECCOMP_IOCTL_NOTIF_SEND, &resp);
	if (r < 0) {
		q->gone = true; /* ENOENT: interrupted or killed meanwhile */
		q->reason = "caller gone";
	}
	track(c, q);
	audit(sv, c, q);
	free(q->asked);
	free(q->applied);
	free(q);
	return 1;
}

int mntsnap_supervisor_dispatch(struct mntsnap_supervisor *sv, int timeout_ms)
{
	struct epoll_event ev[16];
	int n, done = 0;

	if (!sv)
		return -EINVAL;
	n = epoll_wait(sv->epfd, ev, 16, timeout_ms);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		struct container *c = ev[i].data.ptr;

		if (ev[i].events & EPOLLIN) {
			int r = handle_one(sv, c);

			if (r > 0)
				done += r;
		}
		/* every process of the filter has exited: nothing more can come */
		if ((ev[i].events & (EPOLLHUP | EPOLLERR)) && !(ev[i].events & EPOLLIN))
			container_remove(sv, c);
	}
	return done;
}

/* ---- JSON --------------------------------------------------------------- */

struct jbuf {
	char *p;
	size_t len, cap;
	bool full;
};

static void jraw(struct jbuf *b, const char *s, size_t n)
{
	if (b->full || b->len + n + 1 > b->cap) {
		b->full = true;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void jstr(struct jbuf *b, const char *key, const char *s)
{
	char esc[8];

	jraw(b, ",\"", 2);
	jraw(b, key, strlen(key));
	jraw(b, "\":", 2);
	if (!s) {
		jraw(b, "null", 4);
		return;
	}
	jraw(b, "\"", 1);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*c;
			jraw(b, esc, 2);
		} else if (*c < 0x20 || *c >= 0x7f) {
			/* bytes outside ASCII as \u00XX: the line stays valid UTF-8 */
			snprintf(esc, sizeof(esc), "\\u%04x", *c);
			jraw(b, esc, 6);
		} else {
			jraw(b, (const char *)c, 1);
		}
	}
	jraw(b, "\"", 1);
}

/* The symbolic name of an errno a mount can return (strerrorname_np is glibc-only). */
static const char *errno_name(int e, char *buf, size_t len)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" },     { ENOENT, "ENOENT" },   { ESRCH, "ESRCH" },
		{ EINTR, "EINTR" },     { EIO, "EIO" },         { EBADF, "EBADF" },
		{ ENOMEM, "ENOMEM" },   { EACCES, "EACCES" },   { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" },     { EEXIST, "EEXIST" },   { EXDEV, "EXDEV" },
		{ ENODEV, "ENODEV" },   { ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" },
		{ EINVAL, "EINVAL" },   { ENOSPC, "ENOSPC" },   { EROFS, "EROFS" },
		{ ENAMETOOLONG, "ENAMETOOLONG" }, { ENOSYS, "ENOSYS" },
		{ ELOOP, "ELOOP" },     { EOPNOTSUPP, "EOPNOTSUPP" },
		{ ETIMEDOUT, "ETIMEDOUT" }, { ECHILD, "ECHILD" }, { ENOTBLK, "ENOTBLK" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	snprintf(buf, len, "E%d", e);
	return buf;
}

static void jnum(struct jbuf *b, const char *key, long long v)
{
	char t[64];
	int n = snprintf(t, sizeof(t), ",\"%s\":%lld", key, v);

	jraw(b, t, (size_t)n);
}

int mntsnap_sv_event_json(const struct mntsnap_sv_event *ev, char *buf, size_t len)
{
	struct jbuf b = { .p = buf, .cap = len };
	char t[64];

	if (!ev || !buf)
		return -EINVAL;
	snprintf(t, sizeof(t), "{\"time\":%llu.%09llu", (unsigned long long)(ev->time_ns / 1000000000ULL),
		 (unsigned long long)(ev->time_ns % 1000000000ULL));
	jraw(&b, t, strlen(t));
	jstr(&b, "container", ev->container);
	jnum(&b, "pid", ev->pid);
	jstr(&b, "syscall", ev->syscall);
	jstr(&b, "fstype", ev->fstype);
	jstr(&b, "source", ev->source);
	jstr(&b, "target", ev->target);
	jstr(&b, "source_resolved", ev->source_resolved);
	jstr(&b, "target_resolved", ev->target_resolved);
	jstr(&b, "options_asked", ev->options_asked);
	jstr(&b, "options_applied", ev->options_applied);
	if (ev->rule >= -1)
		jnum(&b, "rule", ev->rule);
	else
		jraw(&b, ",\"rule\":null", 12);
	jnum(&b, "result", ev->result);
	jstr(&b, "error", ev->result ? errno_name(-ev->result, t, sizeof(t)) : NULL);
	if (ev->mnt_id) {
		snprintf(t, sizeof(t), ",\"mnt_id\":%llu", (unsigned long long)ev->mnt_id);
		jraw(&b, t, strlen(t));
	} else {
		jraw(&b, ",\"mnt_id\":null", 14);
	}
	jstr(&b, "reason", ev->reason);
	jraw(&b, "}\n", 2);
	if (b.full) {
		if (len)
			buf[0] = '\0';
		return -ENOSPC;
	}
	return (int)b.len;
}
