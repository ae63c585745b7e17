// SPDX-License-Identifier: MIT
/*
 * The read stage: one request's contact with its caller, the only code
 * that touches the caller's memory and fds: reading its arguments from
 * its memory, a pidfd for it, and proving with NOTIF_ID_VALID that the
 * pid still names it (sv-perform.c asks after opening its namespaces), so
 * that a caller that died, or whose pid now names another process, is
 * never acted for.
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

/*
 * mount(2)'s strings: source (NULL allowed), target, fstype (NULL
 * allowed); its data is read once the flags say the call takes it.
 */
int mntsnap__sv_read_mount_args(struct sv_req *q)
{
	const uint64_t *a = q->n.data.args;
	int pid = (int)q->n.pid;
	bool has_target;
	int r;

	r = mntsnap__sv_read_opt(pid, a[0], q->source, sizeof(q->source), &q->has_source);
	if (!r)
		r = mntsnap__sv_read_opt(pid, a[1], q->target, sizeof(q->target), &has_target);
	if (!r && !has_target)
		r = -EFAULT;
	if (!r)
		r = mntsnap__sv_read_opt(pid, a[2], q->fstype, sizeof(q->fstype), &q->has_fstype);
	return r;
}

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

int mntsnap__sv_id_valid(struct mntsnap_supervisor *sv, struct sv_container *c, uint64_t id)
{
	long r = sv->sys.ioctl(sv->sys.ctx, c->fd, MNTSNAP_K_SECCOMP_IOCTL_NOTIF_ID_VALID, &id);

	return r < 0 ? (int)r : 0;
}

/* ---- the caller's fds --------------------------------------------------- */

/*
 * The inode number and mount id of an open file, from the "ino:" and
 * "mnt_id:" lines of procfs's REL: -ENOENT without such a file
 * descriptor, -EOPNOTSUPP without the lines, -errno.
 */
int mntsnap__sv_fdinfo_id(int proc, const char *rel, uint64_t resolve, uint64_t *ret_ino,
			   uint64_t *ret_mnt)
{
	char buf[1024], *ino, *mnt;
	ssize_t n;
	int fd;

	fd = mntsnap__proc_openat(proc, rel, O_RDONLY, resolve);
	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	ino = strstr(buf, "\nino:");
	mnt = strstr(buf, "\nmnt_id:");
	if (!ino || !mnt)
		return -EOPNOTSUPP;
	*ret_ino = strtoull(ino + 5, NULL, 10);
	*ret_mnt = strtoull(mnt + 8, NULL, 10);
	return 0;
}

/*
 * The inode and mount id of the caller's fd fd64, from its fdinfo, read
 * while a pidfd pins the caller: -EBADF (no such fd), -ESRCH (gone),
 * -errno.
 */
int mntsnap__sv_read_fd_id(const struct sv_req *q, uint64_t fd64, uint64_t *ret_ino,
			   uint64_t *ret_mnt)
{
	char rel[64];
	int pidfd, proc, r;

	if (fd64 > INT32_MAX)
		return -EBADF;
	pidfd = mntsnap__sv_caller_pidfd(q);
	if (pidfd < 0)
		return -ESRCH;
	proc = mntsnap__procfs_root();
	if (proc < 0) {
		close(pidfd);
		return proc;
	}
	snprintf(rel, sizeof(rel), "%u/fdinfo/%d", q->n.pid, (int)fd64);
	r = mntsnap__sv_fdinfo_id(proc, rel, MNTSNAP_RESOLVE_NO_SYMLINKS, ret_ino, ret_mnt);
	close(proc);
	if (!r && mntsnap__pidfd_exited(pidfd) != 0)
		r = -ESRCH;
	close(pidfd);
	if (r == -ENOENT)
		return -EBADF;
	if (r)
		return r == -ESRCH ? -ESRCH : r;
	return 0;
}

/* ---- the caller's credentials ------------------------------------------- */

#define PROC_TEXT_MAX (1U << 20) /* 65536 groups of 10 digits fit */

/* The whole of procfs's rel below the supervisor's procfs root, malloc'd. */
static int proc_text(const struct sv_req *q, const char *name, char **ret)
{
	size_t len = 0, cap = 4096;
	char rel[48], *buf = NULL;
	int proc, fd, r = 0;

	proc = mntsnap__procfs_root();
	if (proc < 0)
		return proc;
	snprintf(rel, sizeof(rel), "%u/%s", q->n.pid, name);
	fd = mntsnap__proc_openat(proc, rel, O_RDONLY, MNTSNAP_RESOLVE_NO_SYMLINKS);
	close(proc);
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	for (;;) {
		ssize_t got;

		if (!buf || len + 1 >= cap) {
			char *n = realloc(buf, buf ? cap *= 2 : cap);

			if (!n) {
				r = -ENOMEM;
				break;
			}
			buf = n;
		}
		got = read(fd, buf + len, cap - len - 1);
		if (got <= 0) {
			r = got < 0 ? -errno : 0;
			break;
		}
		len += (size_t)got;
		if (len > PROC_TEXT_MAX) {
			r = -EIO;
			break;
		}
	}
	close(fd);
	if (r) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	return 0;
}

/* The n-th (0-based) number after key ("\nUid:": at a line's start). */
static int status_field(const char *text, const char *key, int n, uint32_t *ret)
{
	const char *p = strstr(text, key);
	char *end;

	if (!p)
		return -EIO;
	p += strlen(key);
	for (int i = 0; i <= n; i++) {
		unsigned long v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return -EIO;
		v = strtoul(p, &end, 10);
		if (v > UINT32_MAX)
			return -EIO;
		*ret = (uint32_t)v;
		p = end;
	}
	return 0;
}

static int status_groups(const char *text, struct sv_creds *c)
{
	const char *p = strstr(text, "\nGroups:"), *e;
	size_t n = 0;

	if (!p)
		return -EIO;
	p += 8;
	e = strchr(p, '\n');
	if (!e)
		return -EIO;
	for (const char *s = p; s < e; s++)
		n += *s >= '0' && *s <= '9' && (s == p || s[-1] == ' ' || s[-1] == '\t');
	c->groups = calloc(n ? n : 1, sizeof(*c->groups));
	if (!c->groups)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char *end;
		unsigned long v;

		while (*p == ' ' || *p == '\t')
			p++;
		v = strtoul(p, &end, 10);
		if (end == p || v > UINT32_MAX)
			return -EIO;
		c->groups[c->ngroups++] = (uint32_t)v;
		p = end;
	}
	return 0;
}

int mntsnap__sv_read_creds(const struct sv_req *q, struct sv_creds *ret)
{
	char *text;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = proc_text(q, "status", &text);
	if (r)
		return r;
	/* Uid: real, effective, saved, fs; the kernel checks paths with fs */
	r = status_field(text, "\nUid:", 3, &ret->fsuid);
	if (!r)
		r = status_field(text, "\nGid:", 3, &ret->fsgid);
	if (!r)
		r = status_groups(text, ret);
	free(text);
	if (r) {
		free(ret->groups);
		memset(ret, 0, sizeof(*ret));
	}
	return r;
}

/*
 * id (outside) through a uid_map/gid_map text as the supervisor reads it:
 * "inside outside count" lines, outside ids in the reader's namespace.
 */
static int map_in(const char *map, uint32_t id, uint32_t *ret)
{
	const char *p = map;

	while (*p) {
		unsigned long in, out, count;
		char *end;

		in = strtoul(p, &end, 10);
		out = strtoul(end, &end, 10);
		count = strtoul(end, &end, 10);
		if (end == p)
			break;
		if (id >= out && id - out < count) {
			*ret = (uint32_t)(in + (id - out));
			return 0;
		}
		p = strchr(end, '\n');
		if (!p)
			break;
		p++;
	}
	return -EPERM;
}

int mntsnap__sv_creds_inside(const struct sv_req *q, struct sv_creds *c)
{
	char *umap, *gmap;
	int r;

	r = proc_text(q, "uid_map", &umap);
	if (r)
		return r;
	r = proc_text(q, "gid_map", &gmap);
	if (r) {
		free(umap);
		return r;
	}
	r = map_in(umap, c->fsuid, &c->fsuid);
	if (!r)
		r = map_in(gmap, c->fsgid, &c->fsgid);
	for (size_t i = 0; !r && i < c->ngroups; i++)
		r = map_in(gmap, c->groups[i], &c->groups[i]);
	free(umap);
	free(gmap);
	return r;
}
