// SPDX-License-Identifier: MIT
/*
 * Mount namespace handles: open by self, pid (via pidfd), pidfd, nsfs
 * path/fd or 64-bit id.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mntsnap.h"
#include "ns.h"
#include "sys.h"

#define CLONE_NEWNS_ 0x00020000

static int ns_alloc(struct mntsnap_ns **ret)
{
	struct mntsnap_ns *ns = calloc(1, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	ns->nsfd = -1;
	ns->pidfd = -1;
	*ret = ns;
	return 0;
}

void mntsnap_ns_free(struct mntsnap_ns *ns)
{
	int saved = errno;

	if (!ns)
		return;
	if (ns->nsfd >= 0)
		close(ns->nsfd);
	if (ns->pidfd >= 0)
		close(ns->pidfd);
	free(ns);
	errno = saved;
}

/* Is fd an nsfs file of a mount namespace? Fill ns_id if the kernel can. */
static int check_mnt_nsfd(int fd, uint64_t *ret_id)
{
	long t = mntsnap_sys_ioctl(NULL, fd, MNTSNAP_NS_GET_NSTYPE, NULL);
	uint64_t id = 0;

	if (t < 0)
		return t == -ENOTTY ? -EINVAL : (int)t; /* not an nsfs file */
	if (t != CLONE_NEWNS_)
		return -EINVAL;
	if (mntsnap_sys_ioctl(NULL, fd, MNTSNAP_NS_GET_MNTNS_ID, &id) < 0)
		id = 0; /* kernels before 6.11: no ids, fd still works */
	*ret_id = id;
	return 0;
}

/* Take ownership of nsfd (closed on error). */
static int ns_from_nsfd(int nsfd, int pidfd, bool self, struct mntsnap_ns **ret_ns)
{
	struct mntsnap_ns *ns;
	uint64_t id = 0;
	int r;

	nsfd = mntsnap_fd_move_above_stdio(nsfd);
	if (nsfd < 0)
		return nsfd;
	r = check_mnt_nsfd(nsfd, &id);
	if (!r)
		r = ns_alloc(&ns);
	if (r) {
		close(nsfd);
		return r;
	}
	ns->nsfd = nsfd;
	ns->pidfd = pidfd;
	ns->ns_id = id;
	ns->self = self;
	*ret_ns = ns;
	return 0;
}

int mntsnap_ns_open_path(const char *path, struct mntsnap_ns **ret_ns)
{
	int fd;

	if (!path || !ret_ns)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return ns_from_nsfd(fd, -1, false, ret_ns);
}

int mntsnap_ns_open_self(struct mntsnap_ns **ret_ns)
{
	int fd, r;

	if (!ret_ns)
		return -EINVAL;
	/* thread-self: a worker thread that setns()'d sees its own namespace */
	fd = open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = ns_from_nsfd(fd, -1, true, ret_ns);
	return r;
}

int mntsnap_ns_open_fd(int nsfd, struct mntsnap_ns **ret_ns)
{
	int fd;

	if (nsfd < 0 || !ret_ns)
		return -EBADF;
	fd = fcntl(nsfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	return ns_from_nsfd(fd, -1, false, ret_ns);
}

static int pidfd_to_ns(int pidfd, int owned_pidfd, struct mntsnap_ns **ret_ns)
{
	long fd = mntsnap_sys_ioctl(NULL, pidfd, MNTSNAP_PIDFD_GET_MNT_NAMESPACE, NULL);

	if (fd < 0) {
		if (owned_pidfd >= 0)
			close(owned_pidfd);
		return (int)fd;
	}
	return ns_from_nsfd((int)fd, owned_pidfd, false, ret_ns);
}

int mntsnap_ns_open_pidfd(int pidfd, struct mntsnap_ns **ret_ns)
{
	int dup;

	if (pidfd < 0 || !ret_ns)
		return -EBADF;
	dup = fcntl(pidfd, F_DUPFD_CLOEXEC, 3);
	if (dup < 0)
		return -errno;
	return pidfd_to_ns(dup, dup, ret_ns);
}

int mntsnap_ns_open_pid(int pid, struct mntsnap_ns **ret_ns)
{
	long pidfd;

	if (pid <= 0 || !ret_ns)
		return -EINVAL;
	pidfd = syscall(MNTSNAP_NR_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -errno;
	pidfd = mntsnap_fd_move_above_stdio((int)pidfd);
	if (pidfd < 0)
		return (int)pidfd;
	return pidfd_to_ns((int)pidfd, (int)pidfd, ret_ns);
}

int mntsnap_ns_open_id(uint64_t ns_id, struct mntsnap_ns **ret_ns)
{
	struct mntsnap_ns *ns;
	int r;

	if (!ns_id || !ret_ns)
		return -EINVAL;
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
