/* SPDX-License-Identifier: MIT */
/*
 * The syscall seam. Every raw kernel call the capture paths make goes through
 * one of these pointers, each returning a value >= 0 or -errno. Tests pass
 * their own table (through the private entry points of lib/sys-seam.h) to
 * inject ENOSYS, EPERM, EOVERFLOW, vanishing mounts or short masks without
 * a special kernel. A NULL pointer in a caller's table means "the real
 * syscall".
 */
#ifndef MNTSNAP_SYS_H
#define MNTSNAP_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>

#include "uapi.h"

struct mntsnap_sysops {
	long (*statmount)(void *ctx, const struct mntsnap_k_mnt_id_req *req,
			  struct mntsnap_k_statmount *buf, size_t bufsize, unsigned flags);
	long (*listmount)(void *ctx, const struct mntsnap_k_mnt_id_req *req,
			  uint64_t *ids, size_t nr, unsigned flags);
	long (*statx)(void *ctx, int dirfd, const char *path, int flags,
		      unsigned mask, struct mntsnap_statx *buf);
	long (*ioctl)(void *ctx, int fd, unsigned long req, void *arg);
	/* the watcher's event source: tests fake ENOSYS/EINVAL (kernels
	 * before 6.15) or EPERM (seccomp) to drive the POLLPRI route */
	long (*fanotify_init)(void *ctx, unsigned flags, unsigned event_f_flags);
	long (*fanotify_mark)(void *ctx, int fd, unsigned flags, uint64_t mask, int dirfd,
			      const char *path);
	/* the supervisor's worker attaching a mount: tests end the worker
	 * right before or after it, as a container's SIGKILL would */
	long (*move_mount)(void *ctx, int from_dfd, const char *from, int to_dfd,
			   const char *to, unsigned flags);
	void *ctx; /* passed as first argument */
	/* set by mntsnap__sys_resolve() when a test's table was given: then
	 * no per-process cache is read or written (fake errors stay local) */
	bool seam;
};

/* The real syscalls, returning -errno. */
long mntsnap__sys_statmount(void *ctx, const struct mntsnap_k_mnt_id_req *req,
			   struct mntsnap_k_statmount *buf, size_t bufsize, unsigned flags);
long mntsnap__sys_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req,
			   uint64_t *ids, size_t nr, unsigned flags);
long mntsnap__sys_statx(void *ctx, int dirfd, const char *path, int flags,
		       unsigned mask, struct mntsnap_statx *buf);
long mntsnap__sys_ioctl(void *ctx, int fd, unsigned long req, void *arg);
long mntsnap__sys_fanotify_init(void *ctx, unsigned flags, unsigned event_f_flags);
long mntsnap__sys_fanotify_mark(void *ctx, int fd, unsigned flags, uint64_t mask, int dirfd,
			       const char *path);
long mntsnap__sys_move_mount_ctx(void *ctx, int from_dfd, const char *from, int to_dfd,
			      const char *to, unsigned flags);

/*
 * The other raw syscalls the library makes, outside the replaceable table
 * (no test fakes them), with the same convention: >= 0 or -errno, never
 * errno. Numbers from uapi.h, so old libc headers never block a build.
 */
long mntsnap__sys_pidfd_open(int pid, unsigned flags);
long mntsnap__sys_pidfd_getfd(int pidfd, int fd, unsigned flags);
long mntsnap__sys_openat2(int dfd, const char *path, struct mntsnap_open_how *how);
long mntsnap__sys_open_tree(int dfd, const char *path, unsigned flags);
long mntsnap__sys_setns(int fd, int nstype);
/* capget/capset with the kernel's v3 header and two data words */
long mntsnap__sys_capget(void *hdr, void *data);
long mntsnap__sys_capset(void *hdr, const void *data);
long mntsnap__sys_seccomp(unsigned op, unsigned flags, void *args);
/* the calling task's own ids only (never the process's other threads) */
long mntsnap__sys_setresuid(unsigned r, unsigned e, unsigned s);
long mntsnap__sys_setresgid(unsigned r, unsigned e, unsigned s);
long mntsnap__sys_setgroups0(void); /* no supplementary groups */
/* the calling task's fs ids (the previous one back, never an error) and
 * supplementary groups (-errno) */
long mntsnap__sys_setfsuid(unsigned id);
long mntsnap__sys_setfsgid(unsigned id);
long mntsnap__sys_setgroups(size_t n, const uint32_t *list);
long mntsnap__sys_getgroups(size_t n, uint32_t *list);
long mntsnap__sys_close_range(unsigned lo, unsigned hi, unsigned flags);
long mntsnap__sys_fsopen(const char *fstype, unsigned flags);
long mntsnap__sys_fsconfig(int fs, unsigned cmd, const char *key, const void *val, int aux);
long mntsnap__sys_fsmount(int fs, unsigned flags, unsigned attrs);
long mntsnap__sys_fspick(int dfd, const char *path, unsigned flags);
long mntsnap__sys_move_mount(int from_dfd, const char *from, int to_dfd, const char *to,
			    unsigned flags);
long mntsnap__sys_mount_setattr(int dfd, const char *path, unsigned flags, void *attr,
			       size_t size);
long mntsnap__sys_umount2(const char *target, int flags);
/* Process management, -errno like the rest: prctl with one argument. */
long mntsnap__sys_prctl(int op, unsigned long arg);
/* clone(2) through libc (fn runs on stack_top): the child's pid or -errno. */
long mntsnap__sys_clone(int (*fn)(void *), void *stack_top, int flags, void *arg);
long mntsnap__sys_waitid(int idtype, unsigned id, siginfo_t *si, int options);
long mntsnap__sys_chroot(const char *path);
/* One range of another process's memory into buf: bytes read or -errno. */
long mntsnap__sys_process_vm_readv(int pid, void *buf, uint64_t addr, size_t len);

/* The table of real syscalls. */
extern const struct mntsnap_sysops mntsnap__sys_real;

/* Resolve a possibly partial table: fill NULL entries from the real one. */
void mntsnap__sys_resolve(const struct mntsnap_sysops *in,
			 struct mntsnap_sysops *out);

/* Move an fd off 0..2 (a caller may have closed stdio) and keep CLOEXEC. */
int mntsnap__fd_move_above_stdio(int fd);

#endif
