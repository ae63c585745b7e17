// SPDX-License-Identifier: MIT
/*
 * One request's contact with its caller: reading its arguments from its
 * memory, opening its mount namespace, proving with NOTIF_ID_VALID that
 * the pid still names it, and running the work there (sv-mount.c) through
 * the namespace helper. The steps are ordered so that a caller that died,
 * or whose pid now names another process, is never acted for.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mntsnap.h"
#include "ns.h"
#include "proc.h"
#include "supervisor.h"
#include "sys.h"
#include "uapi.h"

#define CAP_SYS_ADMIN_ 21

/* ---- reading the caller's memory --------------------------------------- */

/*
 * A NUL-terminated string at addr in pid, read a page at a time so that a
 * string ending just before an unmapped page is still read whole.
 * -EFAULT (unreadable, as the kernel would say), -ENAMETOOLONG, -ESRCH.
 */
int mntsnap__sv_read_str(int pid, uint64_t addr, char *buf, size_t max)
{
	const size_t page = 4096;
	size_t got = 0;

	if (!addr)
		return -EFAULT;
	while (got < max) {
		uint64_t at = addr + got;
		size_t n = page - (size_t)(at % page);
		ssize_t r;

		if (n > max - got)
			n = max - got;
		r = mntsnap__sys_process_vm_readv(pid, buf + got, at, n);
		if (r <= 0)
			return r == -ESRCH ? -ESRCH : -EFAULT;
		if (memchr(buf + got, '\0', (size_t)r))
			return 0;
		got += (size_t)r;
	}
	return -ENAMETOOLONG;
}

/* An optional string argument: NULL is "absent", anything else must read. */
int mntsnap__sv_read_mem(int pid, uint64_t addr, void *buf, size_t len)
{
	ssize_t r;

	if (!addr)
		return -EFAULT;
	r = mntsnap__sys_process_vm_readv(pid, buf, addr, len);
	if (r == -ESRCH)
		return -ESRCH;
	return r == (ssize_t)len ? 0 : -EFAULT;
}

int mntsnap__sv_read_opt(int pid, uint64_t addr, char *buf, size_t max, bool *ret_has)
{
	*ret_has = addr != 0;
	buf[0] = '\0';
	return addr ? mntsnap__sv_read_str(pid, addr, buf, max) : 0;
}

/* ---- the caller as a pidfd ---------------------------------------------- */

#define PIDFD_THREAD_ 0200 /* O_EXCL: a pidfd for a thread, 6.9+ */

/* "Tgid:" of procfs's TID/status: the thread group id, or -errno. */
static int thread_group(int proc, unsigned tid)
{
	char rel[32], buf[1024], *p, *end;
	ssize_t n;
	long v;
	int fd;

	snprintf(rel, sizeof(rel), "%u/status", tid);
	fd = mntsnap__proc_openat(proc, rel, O_RDONLY, MNTSNAP_RESOLVE_NO_SYMLINKS);
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ESRCH;
	buf[n] = '\0';
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -EIO;
	v = strtol(p + 6, &end, 10);
	return v > 0 && v <= INT32_MAX && *end == '\n' ? (int)v : -EIO;
}

/*
 * A pidfd for the process of the notification's caller. The notification
 * carries the calling thread's id; pidfd_open() of a thread that is not
 * the group leader fails (EINVAL) unless PIDFD_THREAD is given (6.9+).
 * Before that, the leader is read from the thread's status and then
 * checked: once its pidfd is open, the thread must still be listed in
 * its task directory (a tid reused meanwhile would be missing there or
 * in another group); NOTIF_ID_VALID afterwards proves the tid was the
 * caller throughout. -ESRCH when it has gone.
 */
int mntsnap__sv_caller_pidfd(const struct sv_req *q)
{
	unsigned tid = q->n.pid;
	char rel[48];
	int proc, tgid, pidfd, fd;

	pidfd = (int)mntsnap__sys_pidfd_open((int)tid, PIDFD_THREAD_);
	if (pidfd >= 0 || pidfd != -EINVAL)
		return pidfd;
	/* a kernel without PIDFD_THREAD, or a thread that is no leader */
	pidfd = (int)mntsnap__sys_pidfd_open((int)tid, 0);
	if (pidfd != -EINVAL)
		return pidfd;
	proc = mntsnap__procfs_root();
	if (proc < 0)
		return proc;
	tgid = thread_group(proc, tid);
	pidfd = tgid < 0 ? tgid : (int)mntsnap__sys_pidfd_open(tgid, 0);
	if (pidfd >= 0) {
		snprintf(rel, sizeof(rel), "%d/task/%u", tgid, tid);
		fd = mntsnap__proc_openat(proc, rel, O_PATH | O_DIRECTORY,
					  MNTSNAP_RESOLVE_NO_SYMLINKS);
		if (fd < 0 || thread_group(proc, tid) != tgid) {
			close(pidfd);
			pidfd = -ESRCH;
		}
		if (fd >= 0)
			close(fd);
	}
	close(proc);
	return pidfd == -EINVAL ? -ESRCH : pidfd;
}

/* ---- one request -------------------------------------------------------- */

static int root_identity(struct sv_req *q)
{
	struct mntsnap_statx st = { 0 };
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/root", q->n.pid);
	if (mntsnap__sv_statx(AT_FDCWD, path, 0, MNTSNAP_STATX_MNT_ID_UNIQUE, &st))
		return errno == ENOENT ? -ESRCH : -errno;
	if (!(st.stx_mask & MNTSNAP_STATX_MNT_ID_UNIQUE))
		return -EOPNOTSUPP;
	q->root_mnt = st.stx_mnt_id;
	q->root_ino = st.stx_ino;
	q->root_dev = makedev(st.stx_dev_major, st.stx_dev_minor);
	return 0;
}

int mntsnap__sv_id_valid(struct mntsnap_supervisor *sv, struct sv_container *c, uint64_t id)
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
static int caller_ns(const struct mntsnap_supervisor *sv, struct sv_container *c,
		     const struct sv_req *q, struct mntsnap_ns **ret_ns)
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
		r = mntsnap__ns_open_fd(fd, &ns);
		if (!r) {
			mntsnap__ns_free(c->ns);
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
int mntsnap__sv_perform(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	MNTSNAP_OPTS(mntsnap_ns_opts, o, .keep_caps = 1ULL << CAP_SYS_ADMIN_,
		     .timeout_ms = sv->o.timeout_ms);
	struct sv_work w = { .q = q, .policy = sv->policy };
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
	if (!r && mntsnap__sv_id_valid(sv, c, q->n.id))
		r = -ENOENT;
	if (r == -ESRCH)
		r = -ENOENT;
	if (!r) {
		r = mntsnap__ns_run(ns, q->kind == SV_UMOUNT ? mntsnap__sv_work_umount : mntsnap__sv_work_mount, &w, &o, &buf,
				   &len);
		free(buf);
	}
	return r;
}

