// SPDX-License-Identifier: MIT
/*
 * Mount namespace handles: open by self, pid (via pidfd), pidfd, nsfs
 * path/fd or 64-bit id; liveness; the owner user namespace; enter/leave
 * for single-threaded callers. Explanations are in ns-explain.c, listing
 * in ns-list.c, the helper process that enters a namespace in
 * ns-helper.c; how a foreign namespace is captured is decided in route.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
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
#include "opts.h"
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
	ns->piddir = -1;
	ns->host_proc = -1;
	*ret = ns;
	return 0;
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
	if (ns->piddir >= 0)
		close(ns->piddir);
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

	proc = mntsnap__procfs_root();
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

static int ns_open_path(const char *path, struct mntsnap_ns **ret_ns)
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

static int ns_open_self(struct mntsnap_ns **ret_ns)
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
	proc = mntsnap__procfs_root();
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

static int ns_open_pidfd(int pidfd, struct mntsnap_ns **ret_ns)
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

/*
 * PID/ns/mnt below the procfs directory dir, never through a mount
 * covering PID/ns (a cover's "mnt" could be a symlink to any namespace).
 */
static int pid_dir_ns_open(int dir)
{
	int nsdir, fd;

	nsdir = mntsnap__proc_openat(dir, "ns", O_PATH | O_DIRECTORY, MNTSNAP_RESOLVE_NO_SYMLINKS);
	if (nsdir == -ENOENT)
		return -ESRCH;
	if (nsdir == -EXDEV)
		return -EOPNOTSUPP;
	if (nsdir < 0)
		return nsdir;
	fd = mntsnap__proc_ns_open(nsdir, "mnt");
	close(nsdir);
	return fd == -ENOENT ? -ESRCH : fd;
}

/*
 * Without pidfd_open (ENOSYS: a kernel before 5.3, valgrind, or a filter
 * answering ENOSYS; EPERM: a filter that denies it): PID/ns/mnt of the
 * checked procfs root, through the directory of PID itself. There is no
 * pidfd to pin the process, so its start time is read before and after
 * the open through that directory: a pid reused in between is a process
 * that started later (and a directory whose process has gone answers
 * nothing). The handle is then like one from a path: no process to
 * follow, mntsnap_ns_alive() 0, captures go the namespace's way.
 */
static int pid_ns_via_procfs(int pid, int why, struct mntsnap_ns **ret_ns,
			     struct mntsnap_error *err)
{
	uint64_t t0 = 0, t1 = 0;
	const char *step;
	int proc, dir = -1, fd = -1, r;

	proc = mntsnap__procfs_root();
	step = "no procfs root at /proc";
	r = proc;
	/* pid is a number of the caller's pid namespace: only a procfs of
	 * that namespace names the same process with it */
	if (proc >= 0) {
		step = "/proc of the caller's pid namespace";
		r = mntsnap__procfs_own_pidns(proc);
		if (r) {
			close(proc);
			proc = -1;
		}
	}
	if (proc >= 0) {
		dir = mntsnap__proc_pid_dir(proc, pid);
		close(proc);
		step = "/proc/PID";
		r = dir;
	}
	if (dir >= 0) {
		step = "/proc/PID/stat";
		r = mntsnap__proc_start_time(dir, &t0);
	}
	if (dir >= 0 && !r) {
		step = "/proc/PID/ns/mnt";
		fd = r = pid_dir_ns_open(dir);
	}
	if (fd >= 0) {
		step = "/proc/PID/stat after the open";
		r = mntsnap__proc_start_time(dir, &t1);
		if (!r && t0 != t1)
			r = -ESRCH;
		if (r) {
			close(fd);
			fd = -1;
		}
	}
	if (dir >= 0)
		close(dir);
	if (fd < 0)
		return mntsnap__set_error(err, r, 0, "pidfd_open(%d): %s; fallback %s: %s", pid,
					  strerror(-why), step, strerror(-r));
	return ns_from_nsfd(fd, -1, false, ret_ns);
}

/* PIDFD_THREAD (Linux 6.9): a pidfd for any thread, not only a leader. */
#define MNTSNAP_PIDFD_THREAD O_EXCL

int mntsnap__ns_open_pid(int pid, struct mntsnap_ns **ret_ns, struct mntsnap_error *err)
{
	long pidfd;
	bool thread;

	if (pid <= 0 || !ret_ns)
		return -EINVAL;
	pidfd = mntsnap__sys_pidfd_open(pid, 0);
	/*
	 * pid is a thread that does not lead its group: pidfd_open() without
	 * PIDFD_THREAD refuses it (-ENOENT on 6.18, -EINVAL on older
	 * kernels), while /proc/PID/ns/mnt (the fallback's way) opens it.
	 * Threads share their process's mount namespace (setns/unshare of
	 * CLONE_NEWNS need an unshared fs_struct), so a thread's pidfd names
	 * the same one; a kernel without the flag (-EINVAL again) takes the
	 * fallback, so that both ways answer alike.
	 */
	thread = pidfd == -ENOENT || pidfd == -EINVAL;
	if (thread)
		pidfd = mntsnap__sys_pidfd_open(pid, MNTSNAP_PIDFD_THREAD);
	/* only the fallback has more to say than mntsnap_ns_explain() */
	if (pidfd == -ENOSYS || pidfd == -EPERM || (thread && pidfd == -EINVAL))
		return pid_ns_via_procfs(pid, (int)pidfd, ret_ns, err);
	if (pidfd < 0)
		return (int)pidfd;
	pidfd = mntsnap__fd_move_above_stdio((int)pidfd);
	if (pidfd < 0)
		return (int)pidfd;
	return pidfd_to_ns((int)pidfd, pid, ret_ns);
}


/*
 * A handle of the task whose directory in a procfs is dir (consumed): its
 * namespace through dir/ns/mnt, or, when the caller may not open that
 * (no ptrace access) but can read dir/mountinfo, a text handle as
 * text_only() makes one. dir pins the task, so nothing read through it
 * is another task's: no check after the open is needed.
 */
static int piddir_to_ns(int dir, struct mntsnap_ns **ret_ns)
{
	struct mntsnap_ns *ns;
	int fd, r;

	dir = mntsnap__fd_move_above_stdio(dir);
	if (dir < 0)
		return dir;
	fd = pid_dir_ns_open(dir);
	if (fd == -EACCES || fd == -EPERM) {
		r = mntsnap__proc_openat(dir, "mountinfo", O_RDONLY | O_NOCTTY | O_NONBLOCK,
					 MNTSNAP_RESOLVE_NO_SYMLINKS);
		if (r < 0 || ns_alloc(&ns)) {
			if (r >= 0)
				close(r);
			close(dir);
			return r < 0 ? fd : -ENOMEM;
		}
		close(r);
		ns->piddir = dir;
		ns->text_only = true;
		*ret_ns = ns;
		return 0;
	}
	if (fd < 0) {
		close(dir);
		return fd;
	}
	r = ns_from_nsfd(fd, -1, false, ret_ns);
	if (r)
		close(dir);
	else
		(*ret_ns)->piddir = dir;
	return r;
}

/*
 * pid as the procfs at /proc numbers it (findmnt -N's PID, ps's). A
 * procfs of the caller's own pid namespace numbers tasks as the caller
 * does: the pid way, unchanged. One of another namespace (an ancestor's,
 * kept by a child of clone(CLONE_NEWPID); a container's, seen by a caller
 * of an outer namespace that entered the container's mount namespace)
 * may name a task that has no number in the caller's namespace at all:
 * the handle holds the task's directory there (piddir_to_ns()). No
 * procfs at /proc: no numbering but the caller's.
 */
static int ns_open_proc_pid(int pid, struct mntsnap_ns **ret_ns, struct mntsnap_error *err)
{
	int proc, dir, r;

	if (pid <= 0 || !ret_ns)
		return -EINVAL;
	proc = mntsnap__procfs_root();
	if (proc == -EOPNOTSUPP)
		return mntsnap__ns_open_pid(pid, ret_ns, err);
	if (proc < 0)
		return proc;
	r = mntsnap__procfs_own_pidns(proc);
	if (r != -EOPNOTSUPP) {
		close(proc);
		return r ? r : mntsnap__ns_open_pid(pid, ret_ns, err);
	}
	dir = mntsnap__proc_pid_dir(proc, pid);
	close(proc);
	if (dir < 0)
		return dir;
	return piddir_to_ns(dir, ret_ns);
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
	r = mntsnap__ns_list(&list, &n);
	if (r)
		return (int)r;
	r = 0;
	for (size_t i = 0; i < n && !r; i++)
		r = list[i].ns_id == ns_id;
	free(list);
	return (int)r;
}

static int ns_open_id(uint64_t ns_id, struct mntsnap_ns **ret_ns)
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

	if (!mntsnap_ns_has_task(ns))
		return 0;
	r = mntsnap__task_exited(ns->pidfd, ns->piddir);
	return r > 0 ? -ESRCH : r;
}

int mntsnap_ns_alive(const struct mntsnap_ns *ns)
{
	return mntsnap__ns_check_alive(ns);
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
	if (!r)
		r = fchdir(s->rootfd) ? -errno : (int)mntsnap__sys_chroot(".");
	if (!r && fchdir(s->cwdfd))
		r = -errno;
	saved_free(s);
	return r;
}

void mntsnap_ns_freep(struct mntsnap_ns **p)
{
	if (p) {
		mntsnap_ns_free(*p);
		*p = NULL;
	}
}

/*
 * The public openers' err: the step's own words when it gave some (the
 * pid fallback names the calls that failed), else mntsnap_ns_explain()'s
 * (the missing capability, a process that is gone, ...).
 */
static int detail(int r, struct mntsnap_error *err, const struct mntsnap_error *inner,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int detail(int r, struct mntsnap_error *err, const struct mntsnap_error *inner,
		  const char *fmt, ...)
{
	char op[128];
	va_list ap;

	if (r >= 0 || !err)
		return r;
	if (inner && inner->err == r && inner->msg[0]) {
		*err = *inner;
		return r;
	}
	va_start(ap, fmt);
	vsnprintf(op, sizeof(op), fmt, ap);
	va_end(ap);
	return mntsnap__ns_explain(r, op, err);
}

int mntsnap_ns_open_self(struct mntsnap_error *err, struct mntsnap_ns **ret_ns)
{
	return detail(ns_open_self(ret_ns), err, NULL, "ns_open_self");
}

int mntsnap_ns_open_pid(int pid, struct mntsnap_error *err, struct mntsnap_ns **ret_ns)
{
	struct mntsnap_error inner = { 0 };

	return detail(mntsnap__ns_open_pid(pid, ret_ns, &inner), err, &inner, "ns_open_pid %d", pid);
}

int mntsnap_ns_open_proc_pid(int pid, struct mntsnap_error *err, struct mntsnap_ns **ret_ns)
{
	struct mntsnap_error inner = { 0 };

	return detail(ns_open_proc_pid(pid, ret_ns, &inner), err, &inner, "ns_open_proc_pid %d",
		      pid);
}

int mntsnap_ns_open_pidfd(int pidfd, struct mntsnap_error *err, struct mntsnap_ns **ret_ns)
{
	return detail(ns_open_pidfd(pidfd, ret_ns), err, NULL, "ns_open_pidfd %d", pidfd);
}

int mntsnap_ns_open_path(const char *path, struct mntsnap_error *err, struct mntsnap_ns **ret_ns)
{
	return detail(ns_open_path(path, ret_ns), err, NULL, "ns_open_path %s", path ? path : "(null)");
}

int mntsnap_ns_open_fd(int nsfd, struct mntsnap_error *err, struct mntsnap_ns **ret_ns)
{
	return detail(mntsnap__ns_open_fd(nsfd, ret_ns), err, NULL, "ns_open_fd %d", nsfd);
}

int mntsnap_ns_open_id(uint64_t ns_id, struct mntsnap_error *err, struct mntsnap_ns **ret_ns)
{
	return detail(ns_open_id(ns_id, ret_ns), err, NULL, "ns_open_id %llu",
		      (unsigned long long)ns_id);
}
