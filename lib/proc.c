// SPDX-License-Identifier: MIT
/*
 * pidfd -> pid -> /proc: the one reading of a pidfd's fdinfo, shared by
 * handles (ns.c), the router (route.c) and the text source
 * (backend-mountinfo.c), with one error contract (proc.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "proc.h"
#include "sys.h"
#include "uapi.h"

/*
 * /proc, O_PATH, if it is the root of a procfs; else -EOPNOTSUPP. Never a
 * made-up /proc: a caller inside a target sees the target's, where a FIFO
 * would block an open and any file may say anything.
 */
int mntsnap__procfs_root(void)
{
	int fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct statfs sf;
	struct stat st;

	/* out of fds is no missing procfs: callers report it as what it is */
	if (fd < 0)
		return errno == EMFILE || errno == ENFILE ? -errno : -EOPNOTSUPP;
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
 * ioctl can reach it; -errno. See mntsnap__procfs_root() for why
 * /proc is checked at all.
 */
int mntsnap__proc_ns_open(int proc, const char *rel)
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
 * "Pid:\t<n>" of an fdinfo text: n > 0; -ESRCH for -1 (exited);
 * -EOPNOTSUPP for 0: the process lives, in a pid namespace this procfs
 * does not see, so no /proc/PID of it can be reached here; -EINVAL
 * without the line (no pidfd), -EIO for anything else.
 */
static int parse_pid_line(const char *buf)
{
	const char *p = strstr(buf, "\nPid:");
	char *end;
	long n;

	if (!p)
		return -EINVAL; /* not a pidfd */
	p += 5;
	while (*p == ' ' || *p == '\t')
		p++;
	errno = 0;
	n = strtol(p, &end, 10);
	if (end == p || errno || (*end && *end != '\n'))
		return -EIO;
	if (n == -1)
		return -ESRCH;
	if (n == 0)
		return -EOPNOTSUPP;
	return n > 0 && n <= 0x7fffffff ? (int)n : -EIO;
}

int mntsnap__proc_openat(int proc, const char *rel, int flags, uint64_t resolve)
{
	struct mntsnap_open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = MNTSNAP_RESOLVE_NO_XDEV | resolve,
	};
	struct statfs sf;
	int fd;

	fd = (int)mntsnap__sys_openat2(proc, rel, &how);
	if (fd == -ENOSYS) { /* before 5.6: the procfs check below must do */
		fd = openat(proc, rel, flags | O_CLOEXEC |
				       (resolve & MNTSNAP_RESOLVE_NO_SYMLINKS ? O_NOFOLLOW : 0));
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0)
		return fd;
	if (fstatfs(fd, &sf) || sf.f_type != MNTSNAP_PROC_SUPER_MAGIC) {
		close(fd);
		return -EXDEV;
	}
	return fd;
}

int mntsnap__pidfd_pid(int proc, int pidfd)
{
	char path[64], buf[1024];
	int own = -1, fd;
	ssize_t n;

	if (proc < 0) {
		proc = own = mntsnap__procfs_root();
		if (proc < 0)
			return proc;
	}
	/*
	 * Without crossing a mount: the owner of the mount namespace can
	 * cover any directory of its procfs (a tmpfs on <pid>/fdinfo naming
	 * any pid). "self" is procfs's own symlink to "<pid>" on the same
	 * mount, so it still resolves; a cover answers EXDEV: no trusted pid.
	 */
	snprintf(path, sizeof(path), "self/fdinfo/%d", pidfd);
	fd = mntsnap__proc_openat(proc, path, O_RDONLY | O_NOCTTY | O_NONBLOCK,
				  MNTSNAP_RESOLVE_NO_MAGICLINKS);
	if (fd == -EXDEV)
		fd = -EOPNOTSUPP;
	if (own >= 0)
		close(own);
	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return parse_pid_line(buf);
}

/*
 * Is proc the procfs of the caller's own pid namespace? Its "self/status"
 * lists the caller's pid in every namespace from that procfs's down to the
 * caller's own (NSpid, Linux 4.1): one number when they are the same. A
 * procfs of an ancestor namespace (a runtime's child after
 * clone(CLONE_NEWPID) still has the host's /proc) numbers processes
 * differently, so a pid the caller holds names another process there.
 * Returns 0, -EOPNOTSUPP (another namespace's, or no "self" in it: the
 * caller is invisible to it), or -errno.
 */
int mntsnap__procfs_own_pidns(int proc)
{
	char buf[4096], *p, *end;
	int fd, n = 0;
	ssize_t len;

	fd = mntsnap__proc_openat(proc, "self/status", O_RDONLY | O_NOCTTY | O_NONBLOCK,
				  MNTSNAP_RESOLVE_NO_MAGICLINKS);
	if (fd == -ENOENT || fd == -EXDEV)
		return -EOPNOTSUPP;
	if (fd < 0)
		return fd;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return len < 0 ? -errno : -EIO;
	buf[len] = '\0';
	p = strstr(buf, "\nNSpid:");
	if (!p) {
		/* before 4.1: no NSpid; the caller's pid must at least match */
		p = strstr(buf, "\nPid:");
		return p && strtol(p + 5, NULL, 10) == getpid() ? 0 : -EOPNOTSUPP;
	}
	for (p += 7; *p && *p != '\n'; p = end) {
		strtol(p, &end, 10);
		if (end == p)
			break;
		n++;
	}
	return n == 1 ? 0 : -EOPNOTSUPP;
}

int mntsnap__proc_pid_dir(int proc, int pid)
{
	struct stat a, b;
	char name[16];
	int fd;

	snprintf(name, sizeof(name), "%d", pid);
	fd = mntsnap__proc_openat(proc, name, O_PATH | O_DIRECTORY, MNTSNAP_RESOLVE_NO_SYMLINKS);
	if (fd == -ENOENT)
		return -ESRCH;
	if (fd == -EXDEV)
		return -EOPNOTSUPP; /* covered by another mount */
	if (fd < 0)
		return fd;
	if (fstat(fd, &a) || fstat(proc, &b) || a.st_dev != b.st_dev) {
		close(fd);
		return -EOPNOTSUPP;
	}
	return fd;
}

int mntsnap__proc_start_time(int piddir, uint64_t *ret)
{
	char buf[1024], *p, *end;
	unsigned long long t;
	ssize_t n;
	int fd;

	fd = mntsnap__proc_openat(piddir, "stat", O_RDONLY | O_NOCTTY | O_NONBLOCK,
				  MNTSNAP_RESOLVE_NO_SYMLINKS);
	if (fd == -ENOENT)
		return -ESRCH;
	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0 && errno == ESRCH)
		n = -2;
	close(fd);
	if (n == -2)
		return -ESRCH;
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	/* the command name may hold spaces and ')': fields count from the
	 * last ')'; after it come state (3) ... starttime (22) */
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	for (int field = 3; field <= 22; field++) { /* the space before it */
		p = strchr(p + 1, ' ');
		if (!p)
			return -EIO;
	}
	errno = 0;
	t = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1 || *end != ' ')
		return -EIO;
	*ret = t;
	return 0;
}

/* 1 if the process behind pidfd has exited, 0 if it runs, -errno. */
int mntsnap__pidfd_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int r;

	/* even a zero-timeout poll fails with EINTR when a signal is pending */
	do
		r = poll(&p, 1, 0);
	while (r < 0 && errno == EINTR);

	if (r < 0)
		return -errno;
	if (p.revents & POLLNVAL)
		return -EBADF;
	return r > 0 && (p.revents & (POLLIN | POLLHUP)) ? 1 : 0;
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
	int proc = mntsnap__procfs_root(), fd;

	if (proc < 0)
		return proc;
	fd = mntsnap__proc_ns_open(proc, "thread-self/ns/mnt");
	if (fd == -ENOENT)
		fd = mntsnap__proc_ns_open(proc, "self/ns/mnt");
	close(proc);
	return fd;
}

int mntsnap__pidfd_root_fd(int pidfd)
{
	int pid, fd, r, proc, dir, err;

	if (pidfd < 0)
		return -ENOENT;
	/*
	 * No procfs to reach the root through (or not a pidfd): -ENOENT, the
	 * helper then resolves from the namespace root. PID/root of a procfs
	 * root only, for the reason mntsnap__pidfd_pid() gives.
	 */
	pid = mntsnap__pidfd_pid(-1, pidfd);
	if (pid < 0)
		return pid == -EINVAL || pid == -EOPNOTSUPP ? -ENOENT : pid;
	proc = mntsnap__procfs_root();
	if (proc < 0)
		return -ENOENT;
	dir = mntsnap__proc_pid_dir(proc, pid);
	close(proc);
	if (dir < 0)
		return dir == -EOPNOTSUPP ? -ENOENT : dir;
	fd = openat(dir, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	close(dir);
	if (fd < 0)
		return err == ENOENT ? -ESRCH : -err;
	/* still alive after the open: the /proc entry was our process */
	r = mntsnap__pidfd_exited(pidfd);
	if (r) {
		close(fd);
		return r > 0 ? -ESRCH : r;
	}
	return mntsnap__fd_move_above_stdio(fd);
}

int mntsnap__task_dir(int pidfd, int piddir)
{
	int pid, proc, dir;

	if (piddir >= 0) {
		dir = fcntl(piddir, F_DUPFD_CLOEXEC, 3);
		return dir < 0 ? -errno : dir;
	}
	pid = mntsnap__pidfd_pid(-1, pidfd);
	if (pid < 0)
		return pid;
	proc = mntsnap__procfs_root();
	if (proc < 0)
		return proc;
	dir = mntsnap__proc_pid_dir(proc, pid);
	close(proc);
	return dir;
}

/* The state letter of stat (field 3, after the last ')'), or -errno. */
static int piddir_state(int piddir)
{
	char buf[1024], *p;
	ssize_t n;
	int fd;

	fd = mntsnap__proc_openat(piddir, "stat", O_RDONLY | O_NOCTTY | O_NONBLOCK,
				  MNTSNAP_RESOLVE_NO_SYMLINKS);
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? (unsigned char)p[2] : -EIO;
}

int mntsnap__task_exited(int pidfd, int piddir)
{
	int st;

	if (pidfd >= 0)
		return mntsnap__pidfd_exited(pidfd);
	if (piddir < 0)
		return 0;
	st = piddir_state(piddir);
	if (st == -ESRCH)
		return 1;
	if (st < 0)
		return st;
	/* Z: a zombie, X: dead; neither has namespaces or a root any more */
	return st == 'Z' || st == 'X';
}

int mntsnap__task_root_fd(int pidfd, int piddir)
{
	int fd, r;

	if (piddir < 0)
		return mntsnap__pidfd_root_fd(pidfd);
	fd = openat(piddir, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	/* a zombie's root link is gone already; still, the task must run */
	r = mntsnap__task_exited(-1, piddir);
	if (r) {
		close(fd);
		return r > 0 ? -ESRCH : r;
	}
	return mntsnap__fd_move_above_stdio(fd);
}
