// SPDX-License-Identifier: MIT
/* Raw syscalls behind the test seam (see sys.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys.h"

#ifndef SYS_statx
#error "SYS_statx missing from <sys/syscall.h>"
#endif

static long ret_errno(long r)
{
	return r < 0 ? -errno : r;
}

long mntsnap__sys_statmount(void *ctx, const struct mntsnap_k_mnt_id_req *req,
			   struct mntsnap_k_statmount *buf, size_t bufsize, unsigned flags)
{
	(void)ctx;
	return ret_errno(syscall(MNTSNAP_NR_statmount, req, buf, bufsize, flags));
}

long mntsnap__sys_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req,
			   uint64_t *ids, size_t nr, unsigned flags)
{
	(void)ctx;
	return ret_errno(syscall(MNTSNAP_NR_listmount, req, ids, nr, flags));
}

long mntsnap__sys_statx(void *ctx, int dirfd, const char *path, int flags,
		       unsigned mask, struct mntsnap_statx *buf)
{
	(void)ctx;
	/* raw syscall: musl 1.2.3 has no statx() wrapper */
	return ret_errno(syscall(SYS_statx, dirfd, path, flags, mask, buf));
}

long mntsnap__sys_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	(void)ctx;
	return ret_errno(ioctl(fd, req, arg));
}

/*
 * The libc wrappers (glibc and musl both have them) split the 64-bit mask
 * into two registers where the ABI needs it (32-bit targets), which a
 * plain syscall() would get wrong.
 */
long mntsnap__sys_fanotify_init(void *ctx, unsigned flags, unsigned event_f_flags)
{
	(void)ctx;
	return ret_errno(fanotify_init(flags, event_f_flags));
}

long mntsnap__sys_fanotify_mark(void *ctx, int fd, unsigned flags, uint64_t mask, int dirfd,
			       const char *path)
{
	(void)ctx;
	return ret_errno(fanotify_mark(fd, flags, mask, dirfd, path));
}

long mntsnap__sys_pidfd_open(int pid, unsigned flags)
{
	return ret_errno(syscall(MNTSNAP_NR_pidfd_open, pid, flags));
}

long mntsnap__sys_pidfd_getfd(int pidfd, int fd, unsigned flags)
{
	return ret_errno(syscall(MNTSNAP_NR_pidfd_getfd, pidfd, fd, flags));
}

long mntsnap__sys_openat2(int dfd, const char *path, struct mntsnap_open_how *how)
{
	return ret_errno(syscall(MNTSNAP_NR_openat2, dfd, path, how, sizeof(*how)));
}

long mntsnap__sys_open_tree(int dfd, const char *path, unsigned flags)
{
	return ret_errno(syscall(MNTSNAP_NR_open_tree, dfd, path, flags));
}

long mntsnap__sys_setns(int fd, int nstype)
{
	return ret_errno(setns(fd, nstype));
}

long mntsnap__sys_capget(void *hdr, void *data)
{
	return ret_errno(syscall(SYS_capget, hdr, data));
}

long mntsnap__sys_capset(void *hdr, const void *data)
{
	return ret_errno(syscall(SYS_capset, hdr, data));
}

/*
 * The calling task's ids alone: libc's wrappers change every thread of
 * the process they know of (POSIX says so), and a CLONE_VM child would
 * reach its caller's threads through that shared list.
 */
long mntsnap__sys_setresuid(unsigned r, unsigned e, unsigned s)
{
	return ret_errno(syscall(SYS_setresuid, r, e, s));
}

long mntsnap__sys_setresgid(unsigned r, unsigned e, unsigned s)
{
	return ret_errno(syscall(SYS_setresgid, r, e, s));
}

long mntsnap__sys_setgroups0(void)
{
	return ret_errno(syscall(SYS_setgroups, 0, NULL));
}

/*
 * setfsuid/setfsgid never fail: they return the previous id, and a value
 * the kernel refused leaves it unchanged (the caller checks with a second
 * call). Unlike libc's wrappers these change the calling task only (glibc
 * broadcasts setgroups to every thread of the process).
 */
long mntsnap__sys_setfsuid(unsigned id)
{
	return syscall(SYS_setfsuid, id);
}

long mntsnap__sys_setfsgid(unsigned id)
{
	return syscall(SYS_setfsgid, id);
}

long mntsnap__sys_setgroups(size_t n, const uint32_t *list)
{
	return ret_errno(syscall(SYS_setgroups, n, list));
}

long mntsnap__sys_getgroups(size_t n, uint32_t *list)
{
	return ret_errno(syscall(SYS_getgroups, n, list));
}

long mntsnap__sys_seccomp(unsigned op, unsigned flags, void *args)
{
	return ret_errno(syscall(SYS_seccomp, op, flags, args));
}

long mntsnap__sys_close_range(unsigned lo, unsigned hi, unsigned flags)
{
	return ret_errno(syscall(MNTSNAP_NR_BASE + 436 /* close_range */, lo, hi, flags));
}

long mntsnap__sys_fsopen(const char *fstype, unsigned flags)
{
	return ret_errno(syscall(MNTSNAP_NR_fsopen, fstype, flags));
}

long mntsnap__sys_fsconfig(int fs, unsigned cmd, const char *key, const void *val, int aux)
{
	return ret_errno(syscall(MNTSNAP_NR_fsconfig, fs, cmd, key, val, aux));
}

long mntsnap__sys_fsmount(int fs, unsigned flags, unsigned attrs)
{
	return ret_errno(syscall(MNTSNAP_NR_fsmount, fs, flags, attrs));
}

long mntsnap__sys_fspick(int dfd, const char *path, unsigned flags)
{
	return ret_errno(syscall(MNTSNAP_NR_fspick, dfd, path, flags));
}

long mntsnap__sys_move_mount(int from_dfd, const char *from, int to_dfd, const char *to,
			    unsigned flags)
{
	return ret_errno(syscall(MNTSNAP_NR_move_mount, from_dfd, from, to_dfd, to, flags));
}

long mntsnap__sys_move_mount_ctx(void *ctx, int from_dfd, const char *from, int to_dfd,
				 const char *to, unsigned flags)
{
	(void)ctx;
	return mntsnap__sys_move_mount(from_dfd, from, to_dfd, to, flags);
}

long mntsnap__sys_mount_setattr(int dfd, const char *path, unsigned flags, void *attr,
			       size_t size)
{
	return ret_errno(syscall(MNTSNAP_NR_mount_setattr, dfd, path, flags, attr, size));
}

long mntsnap__sys_umount2(const char *target, int flags)
{
	return ret_errno(syscall(SYS_umount2, target, flags));
}

const struct mntsnap_sysops mntsnap__sys_real = {
	.statmount = mntsnap__sys_statmount,
	.listmount = mntsnap__sys_listmount,
	.statx = mntsnap__sys_statx,
	.ioctl = mntsnap__sys_ioctl,
	.fanotify_init = mntsnap__sys_fanotify_init,
	.fanotify_mark = mntsnap__sys_fanotify_mark,
	.move_mount = mntsnap__sys_move_mount_ctx,
	.ctx = NULL,
};

void mntsnap__sys_resolve(const struct mntsnap_sysops *in,
			 struct mntsnap_sysops *out)
{
	*out = mntsnap__sys_real;
	if (!in)
		return;
	out->seam = true;
	if (in->statmount)
		out->statmount = in->statmount;
	if (in->listmount)
		out->listmount = in->listmount;
	if (in->statx)
		out->statx = in->statx;
	if (in->ioctl)
		out->ioctl = in->ioctl;
	if (in->fanotify_init)
		out->fanotify_init = in->fanotify_init;
	if (in->fanotify_mark)
		out->fanotify_mark = in->fanotify_mark;
	if (in->move_mount)
		out->move_mount = in->move_mount;
	out->ctx = in->ctx;
}

int mntsnap__fd_move_above_stdio(int fd)
{
	int nfd;

	if (fd < 0 || fd > 2)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (nfd < 0)
		nfd = -errno;
	close(fd);
	return nfd;
}

long mntsnap__sys_prctl(int op, unsigned long arg)
{
	return ret_errno(prctl(op, arg, 0UL, 0UL, 0UL));
}

long mntsnap__sys_clone(int (*fn)(void *), void *stack_top, int flags, void *arg)
{
	return ret_errno(clone(fn, stack_top, flags, arg));
}

long mntsnap__sys_waitid(int idtype, unsigned id, siginfo_t *si, int options)
{
	return ret_errno(waitid((idtype_t)idtype, (id_t)id, si, options));
}

long mntsnap__sys_chroot(const char *path)
{
	return ret_errno(chroot(path));
}

long mntsnap__sys_process_vm_readv(int pid, void *buf, uint64_t addr, size_t len)
{
	struct iovec l = { buf, len }, rm = { (void *)(uintptr_t)addr, len };

	return ret_errno(process_vm_readv(pid, &l, 1, &rm, 1, 0));
}
