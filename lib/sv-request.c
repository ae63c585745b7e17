// SPDX-License-Identifier: MIT
/*
 * One request's contact with its caller: reading its arguments from its
 * memory, and proving with NOTIF_ID_VALID that the pid still names it
 * (sv-perform.c asks after opening its namespaces), so that a caller that
 * died, or whose pid now names another process, is never acted for.
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

/* ---- one request -------------------------------------------------------- */

int mntsnap__sv_id_valid(struct mntsnap_supervisor *sv, struct sv_container *c, uint64_t id)
{
	long r = sv->sys.ioctl(sv->sys.ctx, c->fd, MNTSNAP_K_SECCOMP_IOCTL_NOTIF_ID_VALID, &id);

	return r < 0 ? (int)r : 0;
}
