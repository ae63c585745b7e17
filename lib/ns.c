// SPDX-License-Identifier: MIT
/*
 * Mount namespace handles: open by self, pid (via pidfd), pidfd, nsfs
 * path/fd or 64-bit id; liveness; error explanations; listing every
 * visible namespace; enter/leave for single-threaded callers.
 * The helper process that enters a namespace lives in ns-helper.c; how a
 * foreign namespace is captured is decided in route.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mntsnap-config.h"
#include "backends.h"
#include "mntsnap.h"
#include "ns.h"
#include "proc.h"
#include "snapshot.h"
#include "sys.h"

#if MNTSNAP_HAVE_LIBCAP
#include <sys/capability.h>
#endif

#define CLONE_NEWNS_ 0x00020000
#define CAP_SYS_CHROOT_ 18
#define CAP_SYS_PTRACE_ 19
#define CAP_SYS_ADMIN_ 21

static int ns_alloc(struct mntsnap_ns **ret)
{
	struct mntsnap_ns *ns = calloc(1, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	ns->nsfd = -1;
	ns->pidfd = -1;
	ns->host_proc = -1;
	*ret = ns;
	return 0;
}

/* /proc, O_PATH, if it is the root of a procfs; else -EOPNOTSUPP. */
static int open_procfs_root(void)
{
	int fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct statfs sf;
	struct stat st;

	if (fd < 0)
		return -EOPNOTSUPP;
	if (fstatfs(fd, &sf) || sf.f_type != MNTSNAP_PROC_SUPER_MAGIC || fstat(fd, &st) ||
	    st.st_ino != 1 /* PROC_ROOT_INO */) {
		close(fd);
		return -EOPNOTSUPP;
	}
	return fd;
}

/*
 * An ns file below the procfs root proc (rel: "thread-self/ns/mnt",
 * "PID/ns/mnt"), opened O_NONBLOCK and checked to be on nsfs before any
 * ioctl can reach it; -errno. See open_procfs_root() for why /proc is
 * checked at all.
 */
static int proc_ns_open(int proc, const char *rel)
{
	int fd = openat(proc, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct statfs sf;

	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sf) || sf.f_type != MNTSNAP_NSFS_MAGIC) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/*
 * The calling thread's own mount namespace file. thread-self: a worker
 * thread that setns()'d sees its own namespace. Only through a procfs
 * root: a caller inside a target (mntsnap_ns_enter) sees the target's
 * /proc, where thread-self/ns/mnt may be a symlink to any namespace's
 * file. -EOPNOTSUPP without a procfs.
 */
int mntsnap__ns_open_own_fd(void)
{
	int proc = open_procfs_root(), fd;

	if (proc < 0)
		return proc;
	fd = proc_ns_open(proc, "thread-self/ns/mnt");
	if (fd == -ENOENT)
		fd = proc_ns_open(proc, "self/ns/mnt");
	close(proc);
	return fd;
}

void mntsnap__ns_free(struct mntsnap_ns *ns)
{
	int saved = errno;
	void *st;

	if (!ns)
		return;
	if (ns->nsfd >= 0)
		close(ns->nsfd);
	if (ns->pidfd >= 0)
		close(ns->pidfd);
	/* a helper stack the handle kept for its next call */
	st = atomic_exchange(&ns->stack_cache, NULL);
	if (st)
		munmap(st, mntsnap_helper_stack_map_size());
	free(ns);
	errno = saved;
}

void mntsnap_ns_free(struct mntsnap_ns *ns)
{
	mntsnap__ns_free(ns);
}

/*
 * Is fd on nsfs? Asked of the filesystem, not with an ioctl: a device
 * driver may give any ioctl number a meaning of its own, so none is sent
 * before this says yes. Works on O_PATH fds.
 */
static int check_nsfs(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf))
		return -errno;
	return sf.f_type == MNTSNAP_NSFS_MAGIC ? 0 : -EINVAL;
}

/* Is fd an nsfs file of a mount namespace? Fill ns_id if the kernel can. */
static int check_mnt_nsfd(int fd, uint64_t *ret_id)
{
	uint64_t id = 0;
	long t = check_nsfs(fd);

	if (!t)
		t = mntsnap__sys_ioctl(NULL, fd, MNTSNAP_NS_GET_NSTYPE, NULL);
	if (t < 0)
		return t == -ENOTTY ? -EINVAL : (int)t; /* not an nsfs file */
	if (t != CLONE_NEWNS_)
		return -EINVAL;
	if (mntsnap__sys_ioctl(NULL, fd, MNTSNAP_NS_GET_MNTNS_ID, &id) < 0)
		id = 0; /* kernels before 6.11: no ids, fd still works */
	*ret_id = id;
	return 0;
}

/* Take ownership of nsfd and pidfd (both closed on error). */
static int ns_from_nsfd(int nsfd, int pidfd, bool self, struct mntsnap_ns **ret_ns)
{
	struct mntsnap_ns *ns;
	uint64_t id = 0;
	int r;

	nsfd = mntsnap__fd_move_above_stdio(nsfd);
	if (nsfd < 0) {
		if (pidfd >= 0)
			close(pidfd);
		return nsfd;
	}
	r = check_mnt_nsfd(nsfd, &id);
	if (!r)
		r = ns_alloc(&ns);
	if (r) {
		close(nsfd);
		if (pidfd >= 0)
			close(pidfd);
		return r;
	}
	ns->nsfd = nsfd;
	ns->pidfd = pidfd;
	ns->ns_id = id;
	ns->self = self;
	*ret_ns = ns;
	return 0;
}

/*
 * Turn an O_PATH fd of an nsfs file into one ioctl() accepts. Opening an
 * nsfs file has no side effects, and reopening through /proc/.../fd/N
 * names the very inode already checked, so nothing can be swapped in
 * between: if /proc is a procfs. It is the mount namespace's /proc, so a
 * caller inside a target (mntsnap_ns_enter) sees the target's, where
 * fd/N may be a symlink to any other file: /proc must be a procfs root,
 * and the reopened file the inode of pfd. Consumes pfd.
 */
static int reopen_nsfs(int pfd)
{
	struct stat a, b;
	char path[64];
	int proc, fd, err;

	proc = open_procfs_root();
	if (proc < 0) {
		close(pfd);
		return proc;
	}
	/* thread-self: a thread with an fd table of its own sees its own fds */
	snprintf(path, sizeof(path), "thread-self/fd/%d", pfd);
	fd = openat(proc, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	err = errno;
	close(proc);
	if (fd >= 0 && (fstat(pfd, &a) || fstat(fd, &b) || a.st_dev != b.st_dev ||
			a.st_ino != b.st_ino)) {
		close(fd);
		fd = -1;
		err = ENOENT;
	}
	close(pfd);
	if (fd < 0)
		return err == ENOENT ? -EOPNOTSUPP : -err; /* no usable /proc here */
	return fd;
}

int mntsnap_ns_open_path(const char *path, struct mntsnap_ns **ret_ns)
{
	int fd, r;

	if (!path || !ret_ns)
		return -EINVAL;
	/*
	 * The path is the user's word, and anything may sit there: a plain
	 * open() of a FIFO blocks until a writer comes, one of a device runs
	 * its driver's open. O_PATH does neither; only an nsfs file is ever
	 * opened for real.
	 */
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = check_nsfs(fd);
	if (r) {
		close(fd);
		return r;
	}
	fd = reopen_nsfs(fd);
	if (fd < 0)
		return fd;
	return ns_from_nsfd(fd, -1, false, ret_ns);
}

int mntsnap_ns_open_self(struct mntsnap_ns **ret_ns)
{
	int fd;

	if (!ret_ns)
		return -EINVAL;
	fd = mntsnap__ns_open_own_fd();
	if (fd < 0)
		return fd;
	return ns_from_nsfd(fd, -1, true, ret_ns);
}

int mntsnap__ns_open_fd(int nsfd, struct mntsnap_ns **ret_ns)
{
	int fd;

	if (nsfd < 0 || !ret_ns)
		return -EBADF;
	fd = fcntl(nsfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	return ns_from_nsfd(fd, -1, false, ret_ns);
}

int mntsnap_ns_open_fd(int nsfd, struct mntsnap_ns **ret_ns)
{
	return mntsnap__ns_open_fd(nsfd, ret_ns);
}

/*
 * Kernels before 6.11 have no PIDFD_GET_MNT_NAMESPACE: open /proc/PID/ns/mnt
 * and then check that the pidfd's process still runs, which proves the
 * /proc entry was that process and not a successor with a recycled pid.
 */
static int pidfd_ns_via_proc(int pidfd, int pid)
{
	char path[64];
	int proc, fd, r;

	if (pid <= 0)
		return -ENOTTY;
	proc = open_procfs_root();
	if (proc < 0)
		return proc;
	snprintf(path, sizeof(path), "%d/ns/mnt", pid);
	fd = openat(proc, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	close(proc);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	r = mntsnap__pidfd_exited(pidfd);
	if (r) {
		close(fd);
		return r > 0 ? -ESRCH : r;
	}
	return fd;
}

#define TEXT_ONLY INT_MAX

/*
 * The namespace of a process needs ptrace read access to it (the pidfd
 * ioctl and /proc/PID/ns/mnt alike), its /proc/PID/mountinfo does not:
 * findmnt -N reads a root process's table as any user. So when only the
 * namespace is refused and the text can be opened, the handle is a text
 * handle: the pidfd, no namespace fd, no id (mntsnap_ns_id() 0). Its
 * captures read that text (lib/route.c ns_capture()); everything that
 * needs the namespace itself (entering, direct queries) fails with the
 * original error. Returns TEXT_ONLY with *ret_ns set, or err.
 */
static int text_only(int pidfd, int pid, int err, struct mntsnap_ns **ret_ns)
{
	struct mntsnap_ns *ns;
	char path[64];
	int fd;

	if (pid <= 0)
		pid = mntsnap__pidfd_pid(-1, pidfd);
	if (pid <= 0)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return err;
	close(fd);
	/* the /proc entry was the pidfd's process only if it still runs */
	if (mntsnap__pidfd_exited(pidfd))
		return -ESRCH;
	if (ns_alloc(&ns))
		return -ENOMEM;
	ns->pidfd = pidfd;
	ns->text_only = true;
	*ret_ns = ns;
	return TEXT_ONLY;
}

static int pidfd_to_ns(int pidfd, int pid, struct mntsnap_ns **ret_ns)
{
	long fd = mntsnap__sys_ioctl(NULL, pidfd, MNTSNAP_PIDFD_GET_MNT_NAMESPACE, NULL);

	if (fd == -ENOTTY || fd == -EINVAL) {
		if (pid <= 0)
			pid = mntsnap__pidfd_pid(-1, pidfd);
		fd = pidfd_ns_via_proc(pidfd, pid);
		if (fd == -ENOTTY)
			fd = -EINVAL;
	}
	if (fd == -EACCES || fd == -EPERM)
		fd = text_only(pidfd, pid, (int)fd, ret_ns);
	if (fd < 0) {
		close(pidfd);
		return (int)fd;
	}
	if (fd == TEXT_ONLY)
		return 0;
	return ns_from_nsfd((int)fd, pidfd, false, ret_ns);
}

/*
 * Could fd be a pidfd? pidfs since 6.9, an anonymous inode before. Asked
 * before any ioctl, for the reason check_nsfs() gives: a device node is
 * on neither.
 */
static int check_pidfd_fs(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf))
		return -errno;
	return sf.f_type == MNTSNAP_PIDFS_MAGIC || sf.f_type == MNTSNAP_ANON_INODE_FS_MAGIC
		       ? 0
		       : -EINVAL;
}

int mntsnap_ns_open_pidfd(int pidfd, struct mntsnap_ns **ret_ns)
{
	int dup, r;

	if (pidfd < 0 || !ret_ns)
		return -EBADF;
	r = check_pidfd_fs(pidfd);
	if (r)
		return r;
	dup = fcntl(pidfd, F_DUPFD_CLOEXEC, 3);
	if (dup < 0)
		return -errno;
	return pidfd_to_ns(dup, 0, ret_ns);
}

int mntsnap_ns_open_pid(int pid, struct mntsnap_ns **ret_ns)
{
	long pidfd;

	if (pid <= 0 || !ret_ns)
		return -EINVAL;
	pidfd = mntsnap__sys_pidfd_open(pid, 0);
	if (pidfd < 0)
		return (int)pidfd;
	pidfd = mntsnap__fd_move_above_stdio((int)pidfd);
	if (pidfd < 0)
		return (int)pidfd;
	return pidfd_to_ns((int)pidfd, pid, ret_ns);
}

/*
 * Does a mount namespace with this id exist? One listmount by id answers
 * yes; its ENOENT also means "not yours" (no CAP_SYS_ADMIN over the
 * owner), so then the namespaces the caller can see decide. Kernels that
 * cannot answer by id (ENOSYS, or before 6.11 E2BIG/EINVAL for the VER1
 * request) are given the benefit of the doubt, as before.
 */
static int ns_id_exists(uint64_t ns_id)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER1,
					    .mnt_id = MNTSNAP_K_LSMT_ROOT,
					    .mnt_ns_id = ns_id };
	struct mntsnap_ns_entry *list;
	uint64_t id;
	size_t n;
	long r;

	r = mntsnap__sys_listmount(NULL, &req, &id, 1, 0);
	if (r != -ENOENT)
		return 1;
	r = mntsnap_ns_list(&list, &n);
	if (r)
		return (int)r;
	r = 0;
	for (size_t i = 0; i < n && !r; i++)
		r = list[i].ns_id == ns_id;
	free(list);
	return (int)r;
}

int mntsnap_ns_open_id(uint64_t ns_id, struct mntsnap_ns **ret_ns)
{
	struct mntsnap_ns *ns;
	int r;

	if (!ns_id || !ret_ns)
		return -EINVAL;
	r = ns_id_exists(ns_id);
	if (r <= 0)
		return r ? r : -ENOENT;
	r = ns_alloc(&ns);
	if (r)
		return r;
	ns->ns_id = ns_id;
	*ret_ns = ns;
	return 0;
}

uint64_t mntsnap_ns_id(const struct mntsnap_ns *ns)
{
	return ns ? ns->ns_id : 0;
}

int mntsnap__ns_check_alive(const struct mntsnap_ns *ns)
{
	int r;

	if (!ns || ns->pidfd < 0)
		return 0;
	r = mntsnap__pidfd_exited(ns->pidfd);
	return r > 0 ? -ESRCH : r;
}

int mntsnap_ns_alive(const struct mntsnap_ns *ns)
{
	return mntsnap__ns_check_alive(ns);
}

int mntsnap__ns_root_fd(const struct mntsnap_ns *ns)
{
	char path[64];
	int pid, fd, r, proc, err;

	if (!ns || ns->pidfd < 0)
		return -ENOENT;
	/*
	 * No procfs to reach the root through (or not a pidfd): -ENOENT, the
	 * helper then resolves from the namespace root. PID/root of a procfs
	 * root only, for the reason mntsnap__pidfd_pid() gives.
	 */
	pid = mntsnap__pidfd_pid(-1, ns->pidfd);
	if (pid < 0)
		return pid == -EINVAL || pid == -EOPNOTSUPP ? -ENOENT : pid;
	proc = open_procfs_root();
	if (proc < 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "%d/root", pid);
	fd = openat(proc, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	close(proc);
	if (fd < 0)
		return err == ENOENT ? -ESRCH : -err;
	/* still alive after the open: the /proc entry was our process */
	r = mntsnap__pidfd_exited(ns->pidfd);
	if (r) {
		close(fd);
		return r > 0 ? -ESRCH : r;
	}
	return mntsnap__fd_move_above_stdio(fd);
}

/* ---- the owner user namespace ------------------------------------------- */

/* Is the nsfs fd ufd the calling thread's own user namespace? */
static bool is_own_userns(int ufd)
{
	struct stat a, b;

	if (fstat(ufd, &a))
		return false;
	if (stat("/proc/thread-self/ns/user", &b) && stat("/proc/self/ns/user", &b))
		return false; /* no /proc: let setns() decide (EINVAL for our own) */
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int mntsnap__ns_owner_userns(int nsfd, int *ret_fd)
{
	long ufd = mntsnap__sys_ioctl(NULL, nsfd, MNTSNAP_NS_GET_USERNS, NULL);

	if (ufd < 0)
		return (int)ufd;
	if (is_own_userns((int)ufd)) {
		close((int)ufd);
		return -ENOENT;
	}
	*ret_fd = (int)ufd;
	return 0;
}

void mntsnap__ns_owner_why(int nsfd, char *buf, size_t len)
{
	uid_t owner = (uid_t)-1;
	int ufd = -1, r;

	buf[0] = '\0';
	r = mntsnap__ns_owner_userns(nsfd, &ufd);
	if (r == -EPERM) {
		snprintf(buf, len,
			 "the target's owner user namespace is outside the caller's: the "
			 "caller lacks CAP_SYS_ADMIN over it and cannot join it");
		return;
	}
	if (r)
		return;
	if (mntsnap__sys_ioctl(NULL, ufd, MNTSNAP_NS_GET_OWNER_UID, &owner) < 0)
		owner = (uid_t)-1;
	close(ufd);
	if (owner == geteuid())
		snprintf(buf, len,
			 "the caller (euid %u) owns the target's user namespace but could "
			 "not join it to gain CAP_SYS_ADMIN there", (unsigned)owner);
	else
		snprintf(buf, len,
			 "the target's user namespace belongs to uid %d; the caller (euid "
			 "%u) is not its owner and lacks CAP_SYS_ADMIN over it, needed to "
			 "enter or to join it first", (int)owner, (unsigned)geteuid());
}

/* ---- capabilities and error text ------------------------------------------ */

#if MNTSNAP_HAVE_LIBCAP
bool mntsnap__cap_effective(int cap)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t c = cap_get_proc();

	if (!c)
		return false;
	if (cap_get_flag(c, (cap_value_t)cap, CAP_EFFECTIVE, &v))
		v = CAP_CLEAR;
	cap_free(c);
	return v == CAP_SET;
}

static void cap_name(int cap, char *buf, size_t len)
{
	char *n = cap_to_name((cap_value_t)cap);

	snprintf(buf, len, "%s", n ? n : "?");
	if (n)
		cap_free(n);
	/* libcap spells them lower case ("cap_sys_admin"); the man pages do not */
	for (char *p = buf; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
}
#else
struct cap_hdr_ {
	uint32_t version;
	int pid;
};
struct cap_data_ {
	uint32_t effective, permitted, inheritable;
};

bool mntsnap__cap_effective(int cap)
{
	struct cap_hdr_ h = { .version = 0x20080522, .pid = 0 };
	struct cap_data_ d[2] = { { 0 } };

	if (cap < 0 || cap > 63 || mntsnap__sys_capget(&h, d))
		return false;
	return d[cap / 32].effective & (1U << (cap % 32));
}

static void cap_name(int cap, char *buf, size_t len)
{
	const char *n = cap == CAP_SYS_ADMIN_	 ? "CAP_SYS_ADMIN"
			: cap == CAP_SYS_CHROOT_ ? "CAP_SYS_CHROOT"
			: cap == CAP_SYS_PTRACE_ ? "CAP_SYS_PTRACE"
						 : "?";

	snprintf(buf, len, "%s", n);
}
#endif

/* "CAP_SYS_ADMIN, CAP_SYS_CHROOT" of those the calling thread lacks. */
static void missing_caps(char *buf, size_t len)
{
	static const int need[] = { CAP_SYS_ADMIN_, CAP_SYS_CHROOT_ };
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		char n[32];

		if (mntsnap__cap_effective(need[i]))
			continue;
		cap_name(need[i], n, sizeof(n));
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", n);
		if (off >= len)
			break;
	}
}

int mntsnap__ns_explain(int err, const char *op, struct mntsnap_error *ret)
{
	char caps[96];

	if (!op)
		op = "namespace";
	switch (err) {
	case -EACCES:
		/* /proc/PID/ns/mnt and PIDFD_GET_MNT_NAMESPACE check ptrace access */
		if (!mntsnap__cap_effective(CAP_SYS_PTRACE_)) {
			char n[32];

			cap_name(CAP_SYS_PTRACE_, n, sizeof(n));
			return mntsnap__set_error(ret, err, 0,
						 "%s: %s: another user's process needs ptrace "
						 "access: the caller lacks %s",
						 op, strerror(-err), n);
		}
		/* fall through */
	case -EPERM:
		missing_caps(caps, sizeof(caps));
		if (caps[0])
			return mntsnap__set_error(ret, err, 0,
						 "%s: %s: the caller lacks %s (entering or "
						 "querying another mount namespace by id needs "
						 "CAP_SYS_ADMIN over its owner user namespace and, "
						 "to enter, CAP_SYS_CHROOT)",
						 op, strerror(-err), caps);
		return mntsnap__set_error(ret, err, 0,
					 "%s: %s: the caller has CAP_SYS_ADMIN and "
					 "CAP_SYS_CHROOT, but not over the target's owner user "
					 "namespace, or may not ptrace the target process",
					 op, strerror(-err));
	case -ESRCH:
		/*
		 * pidfd_open() says ESRCH alike for a pid that never existed,
		 * one that exists only inside another pid namespace and one
		 * whose process has gone: only a handle knows it once had a
		 * process (see handle_gone()).
		 */
		return mntsnap__set_error(ret, err, 0,
					 "%s: no such process in the caller's pid namespace "
					 "(wrong pid, a pid as seen inside a container, or the "
					 "process is gone)", op);
	case -EINVAL:
		return mntsnap__set_error(ret, err, 0,
					 "%s: not a mount-namespace file, or (entering) the "
					 "caller shares its fs_struct with other threads", op);
	case -ENOENT:
		return mntsnap__set_error(ret, err, 0, "%s: no such file or namespace", op);
	case -ETIMEDOUT:
		return mntsnap__set_error(ret, err, 0, "%s: the helper process timed out", op);
	default:
		return mntsnap__set_error(ret, err, 0, "%s: %s", op, strerror(-err));
	}
}

int mntsnap_ns_explain(int err, const char *op, struct mntsnap_error *ret)
{
	return mntsnap__ns_explain(err, op, ret);
}

/* ---- finding namespaces --------------------------------------------------- */

struct ns_seen {
	struct mntsnap_ns_entry *v;
	size_t n, cap;
};

static struct mntsnap_ns_entry *seen_find(struct ns_seen *s, uint64_t ino)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].inode == ino)
			return &s->v[i];
	return NULL;
}

static int seen_add(struct ns_seen *s, const struct mntsnap_ns_entry *e)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		void *nv = realloc(s->v, ncap * sizeof(*s->v));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = ncap;
	}
	s->v[s->n++] = *e;
	return 0;
}

/* Count what listmount lists, for kernels without NS_MNT_GET_INFO. */
static int64_t count_mounts(int nsfd, uint64_t id)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0, .mnt_id = MNTSNAP_K_LSMT_ROOT };
	uint64_t ids[512];
	int64_t n = 0;
	long r;

	if (nsfd >= 0) {
		req.mnt_ns_fd = (uint32_t)nsfd;
	} else {
		req.size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER1;
		req.mnt_ns_id = id;
	}
	for (;;) {
		r = mntsnap__sys_listmount(NULL, &req, ids, 512, 0);
		if (r < 0)
			return nsfd >= 0 && id ? count_mounts(-1, id) : -1;
		n += r;
		if (r < 512)
			return n;
		req.param = ids[r - 1];
	}
}

/* Describe the namespace behind nsfd. */
static int describe(int nsfd, struct mntsnap_ns_entry *e)
{
	struct mntsnap_k_mnt_ns_info info = { .size = MNTSNAP_K_MNT_NS_INFO_SIZE_VER0 };
	struct stat st;

	memset(e, 0, sizeof(*e));
	if (fstat(nsfd, &st))
		return -errno;
	e->inode = st.st_ino;
	e->nr_mounts = -1;
	if (mntsnap__sys_ioctl(NULL, nsfd, MNTSNAP_NS_MNT_GET_INFO, &info) >= 0) {
		e->ns_id = info.mnt_ns_id;
		e->nr_mounts = info.nr_mounts;
		return 0;
	}
	if (mntsnap__sys_ioctl(NULL, nsfd, MNTSNAP_NS_GET_MNTNS_ID, &e->ns_id) < 0)
		e->ns_id = 0;
	e->nr_mounts = count_mounts(nsfd, e->ns_id);
	return 0;
}

/*
 * Walk the kernel's namespace list from start in one direction. Each step
 * returns a new fd; visit(fd) may keep it (returns 1, the walk stops) or
 * not (0, the walk goes on from it; < 0, an error that ends the walk: the
 * walk closes the fd). Stops at the
 * end (ENOENT) or at the first refusal (EPERM without CAP_SYS_ADMIN).
 */
static int ns_walk(int start, unsigned long dir, int (*visit)(int fd, void *data), void *data)
{
	int cur = start;
	int r = 0;

	for (;;) {
		long fd = mntsnap__sys_ioctl(NULL, cur, dir, NULL);

		if (cur != start)
			close(cur);
		if (fd < 0) {
			r = fd == -ENOENT ? 0 : (int)fd;
			break;
		}
		r = visit((int)fd, data);
		if (r < 0)
			close((int)fd); /* not kept: a failed visit keeps nothing */
		if (r) {
			r = r < 0 ? r : 0;
			break;
		}
		cur = (int)fd;
	}
	return r;
}

static int list_visit(int fd, void *data)
{
	struct mntsnap_ns_entry e;
	struct ns_seen *s = data;

	if (describe(fd, &e))
		return 0;
	if (seen_find(s, e.inode))
		return 0;
	return seen_add(s, &e);
}

/* Calls fn for each PID/ns/mnt of the procfs at /proc with its pid and stat. */
static int proc_scan(int (*fn)(int proc, int pid, const struct stat *st, void *data), void *data)
{
	int proc = open_procfs_root(), dfd;
	struct dirent *de;
	int r = 0;
	DIR *d;

	if (proc < 0)
		return proc;
	dfd = openat(proc, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		r = -errno;
		if (dfd >= 0)
			close(dfd);
		close(proc);
		return r;
	}
	while (!r && (de = readdir(d))) {
		char path[300];
		struct stat st;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%ld/ns/mnt", pid);
		if (fstatat(proc, path, &st, 0))
			continue; /* gone, or not ours to look at */
		r = fn(proc, (int)pid, &st, data);
	}
	closedir(d);
	close(proc);
	return r < 0 ? r : 0;
}

static int scan_add(int proc, int pid, const struct stat *st, void *data)
{
	struct ns_seen *s = data;
	struct mntsnap_ns_entry *e = seen_find(s, st->st_ino), ne;
	char path[64];
	int fd, r;

	if (e) {
		if (!e->pid)
			e->pid = pid;
		return 0;
	}
	snprintf(path, sizeof(path), "%d/ns/mnt", pid);
	fd = proc_ns_open(proc, path);
	if (fd < 0)
		return 0;
	r = describe(fd, &ne);
	close(fd);
	if (r || ne.inode != st->st_ino)
		return 0; /* the process moved on meanwhile */
	ne.pid = pid;
	return seen_add(s, &ne);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct mntsnap_ns_entry *x = a, *y = b;

	if (x->ns_id != y->ns_id)
		return x->ns_id < y->ns_id ? -1 : 1;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

int mntsnap_ns_list(struct mntsnap_ns_entry **ret_list, size_t *ret_n)
{
	struct ns_seen s = { 0 };
	struct mntsnap_ns_entry own;
	int self, r;

	if (!ret_list || !ret_n)
		return -EINVAL;
	self = mntsnap__ns_open_own_fd();
	if (self < 0)
		return self;
	r = describe(self, &own);
	if (!r) {
		own.own = true;
		r = seen_add(&s, &own);
	}
	/* iteration sees namespaces without processes; refusal is not an error */
	if (!r) {
		r = ns_walk(self, MNTSNAP_NS_MNT_GET_PREV, list_visit, &s);
		if (r == -ENOMEM)
			goto out;
		r = ns_walk(self, MNTSNAP_NS_MNT_GET_NEXT, list_visit, &s);
		if (r == -ENOMEM)
			goto out;
		/* the scan adds what iteration could not show, and the pids */
		r = proc_scan(scan_add, &s);
	}
out:
	close(self);
	if (r) {
		free(s.v);
		return r;
	}
	qsort(s.v, s.n, sizeof(*s.v), entry_cmp);
	*ret_list = s.v;
	*ret_n = s.n;
	return 0;
}

struct id_search {
	uint64_t id;
	int fd;
};

static int id_visit(int fd, void *data)
{
	struct id_search *q = data;
	uint64_t id = 0;

	if (mntsnap__sys_ioctl(NULL, fd, MNTSNAP_NS_GET_MNTNS_ID, &id) >= 0 && id == q->id) {
		q->fd = fd;
		return 1;
	}
	/* ids ascend along NEXT; keep fd only as the next starting point */
	return 0;
}

static int id_scan(int proc, int pid, const struct stat *st, void *data)
{
	struct id_search *q = data;
	char path[64];
	uint64_t id = 0;
	int fd;

	(void)st;
	snprintf(path, sizeof(path), "%d/ns/mnt", pid);
	fd = proc_ns_open(proc, path);
	if (fd < 0)
		return 0;
	if (mntsnap__sys_ioctl(NULL, fd, MNTSNAP_NS_GET_MNTNS_ID, &id) >= 0 && id == q->id) {
		q->fd = fd;
		return 1;
	}
	close(fd);
	return 0;
}

int mntsnap__ns_enter_fd(const struct mntsnap_ns *ns, int *ret_fd, bool *ret_owned)
{
	struct id_search q = { .fd = -1 };
	int self;

	if (ns->nsfd >= 0) {
		*ret_fd = ns->nsfd;
		*ret_owned = false;
		return 0;
	}
	if (ns->text_only)
		return -EACCES; /* the caller may read its text, not its namespace */
	if (!ns->ns_id)
		return -EINVAL;
	q.id = ns->ns_id;
	self = mntsnap__ns_open_own_fd();
	if (self < 0)
		return self;
	if (id_visit(self, &q) == 1) {
		*ret_fd = mntsnap__fd_move_above_stdio(self);
		*ret_owned = true;
		return *ret_fd < 0 ? *ret_fd : 0;
	}
	/* the walk closes the fds it does not hand back */
	ns_walk(self, MNTSNAP_NS_MNT_GET_NEXT, id_visit, &q);
	if (q.fd < 0)
		ns_walk(self, MNTSNAP_NS_MNT_GET_PREV, id_visit, &q);
	close(self);
	if (q.fd < 0)
		proc_scan(id_scan, &q);
	if (q.fd < 0)
		return -ENOENT;
	*ret_fd = mntsnap__fd_move_above_stdio(q.fd);
	*ret_owned = true;
	return *ret_fd < 0 ? *ret_fd : 0;
}

/* ---- enter / leave (single-threaded callers) ------------------------------ */

struct mntsnap_ns_saved {
	int nsfd, rootfd, cwdfd;
};

static void saved_free(struct mntsnap_ns_saved *s)
{
	if (s->nsfd >= 0)
		close(s->nsfd);
	if (s->rootfd >= 0)
		close(s->rootfd);
	if (s->cwdfd >= 0)
		close(s->cwdfd);
	free(s);
}

int mntsnap_ns_enter(const struct mntsnap_ns *ns, struct mntsnap_ns_saved **ret_saved)
{
	struct mntsnap_ns_saved *s;
	bool owned = false;
	int fd = -1, r;

	if (!ns || !ret_saved)
		return -EINVAL;
	r = mntsnap__ns_check_alive(ns);
	if (r)
		return r;
	s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	/* where leave returns to: never a decoy a /proc may plant */
	s->nsfd = mntsnap__ns_open_own_fd();
	s->rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	s->cwdfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->nsfd < 0 || s->rootfd < 0 || s->cwdfd < 0) {
		r = s->nsfd < 0 ? s->nsfd : -errno;
		goto fail;
	}
	if (ns->self) {
		fd = s->nsfd; /* re-entering resets root and cwd like any setns */
	} else {
		r = mntsnap__ns_enter_fd(ns, &fd, &owned);
		if (r)
			goto fail;
	}
	r = (int)mntsnap__sys_setns(fd, CLONE_NEWNS);
	if (owned)
		close(fd);
	if (r)
		goto fail;
	*ret_saved = s;
	return 0;
fail:
	saved_free(s);
	return r;
}

int mntsnap_ns_leave(struct mntsnap_ns_saved *s)
{
	int r = 0;

	if (!s)
		return -EINVAL;
	r = (int)mntsnap__sys_setns(s->nsfd, CLONE_NEWNS);
	/* setns reset root and cwd to the namespace root: put back both
	 * (a caller that was chroot()ed stays so), like nsenter does */
	if (!r && (fchdir(s->rootfd) || chroot(".")))
		r = -errno;
	if (!r && fchdir(s->cwdfd))
		r = -errno;
	saved_free(s);
	return r;
}
