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
#include "uapi.h"

/* /proc, O_PATH, if it is the root of a procfs; else -EOPNOTSUPP. */
static int procfs_root(void)
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

/* "Pid:\t<n>" of an fdinfo text: n > 0, -ESRCH for -1 (exited), else -EINVAL. */
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
	return n > 0 && n <= 0x7fffffff ? (int)n : -EIO;
}

int mntsnap__pidfd_pid(int proc, int pidfd)
{
	char path[64], buf[1024];
	int own = -1, fd;
	ssize_t n;

	if (proc < 0) {
		proc = own = procfs_root();
		if (proc < 0)
			return proc;
	}
	snprintf(path, sizeof(path), "self/fdinfo/%d", pidfd);
	fd = openat(proc, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		fd = -errno;
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
