/* SPDX-License-Identifier: MIT */
/* pidfds and the procfs they are read through (lib/proc.c). */
#ifndef MNTSNAP_PROC_H
#define MNTSNAP_PROC_H

#include <stdint.h>

/*
 * The pid of the process behind pidfd, from self/fdinfo ("Pid:") below
 * proc, an fd of a procfs root; proc -1 opens /proc and checks it is one.
 * Never from a /proc that is not a procfs root: a caller inside a target
 * sees the target's /proc, where an fdinfo may name any pid.
 * Returns the pid (> 0), or -ESRCH (the process has exited), -EINVAL (fd
 * is no pidfd), -EOPNOTSUPP (no procfs root at /proc, or one that cannot
 * name the process: it lives in a pid namespace that procfs does not see,
 * fdinfo "Pid: 0"; or a mount covers the fdinfo directory), -EIO (unreadable), -errno from opening the fdinfo.
 */
int mntsnap__pidfd_pid(int proc, int pidfd);

/*
 * rel below the procfs root proc, O_CLOEXEC added to flags: the lookup may
 * not cross a mount (RESOLVE_NO_XDEV plus resolve; the owner of a mount
 * namespace can cover any directory of its procfs) and the result must be
 * procfs. Before openat2 (5.6) a plain openat, O_NOFOLLOW with
 * RESOLVE_NO_SYMLINKS, and the procfs check. The fd, -EXDEV when a mount
 * covers the way or the result is no procfs file, other -errno.
 */
int mntsnap__proc_openat(int proc, const char *rel, int flags, uint64_t resolve);

/*
 * O_PATH fd of the directory PID below the procfs root proc, never through
 * a mount covering it: a mount namespace's owner may mount over any
 * directory of its procfs (a tmpfs whose "root" is a symlink of its
 * choosing), and a caller that entered a target sees the target's /proc.
 * -ESRCH (no such pid there), -EOPNOTSUPP (covered: as if no procfs could
 * name the process), -errno.
 */
int mntsnap__proc_pid_dir(int proc, int pid);

/* 0 when proc is the procfs of the caller's pid namespace, -EOPNOTSUPP when
 * it numbers processes otherwise (an ancestor's procfs), or -errno. */
int mntsnap__procfs_own_pidns(int proc);

/*
 * Start time (field 22 of stat, clock ticks since boot) of the process whose
 * procfs directory is piddir (from mntsnap__proc_pid_dir()), read without
 * crossing a mount. Two reads through the same directory that agree name
 * one process: a pid reused in between starts later. -ESRCH once the
 * process has gone (its directory fd then answers nothing), -EIO for a
 * text that does not parse, other -errno.
 */
int mntsnap__proc_start_time(int piddir, uint64_t *ret);

/* 1 if the process behind pidfd has exited, 0 if it runs, -errno. */
int mntsnap__pidfd_exited(int pidfd);

/* /proc (O_PATH) if it is the root of a procfs, else -EOPNOTSUPP. */
int mntsnap__procfs_root(void);

/*
 * An ns file below the procfs root proc ("thread-self/ns/mnt",
 * "PID/ns/mnt"), O_NONBLOCK, checked to be on nsfs before any ioctl can
 * reach it. -errno; -EINVAL when it is no nsfs file.
 */
int mntsnap__proc_ns_open(int proc, const char *rel);

/*
 * The calling thread's own mount namespace file, from a procfs root only
 * (never a made-up /proc: a FIFO there would block the open), O_CLOEXEC.
 * -errno; -EOPNOTSUPP without a procfs.
 */
int mntsnap__ns_open_own_fd(void);

/*
 * O_PATH fd of the root directory of the process behind pidfd
 * (/proc/PID/root from a procfs root, checked against pid reuse), so paths
 * resolve inside a chroot()ed target too. -ENOENT when there is no process
 * to ask (pidfd < 0, not a pidfd, no procfs: use the namespace root),
 * -ESRCH (exited, also during the open), -EACCES.
 */
int mntsnap__pidfd_root_fd(int pidfd);

/*
 * A handle's task is named by a pidfd, or by its directory in a procfs of
 * another pid namespace (piddir, O_PATH; mntsnap_ns_open_proc_pid()): the
 * directory holds the task's struct pid, not its number, so once the task
 * has exited every lookup below it fails, and a later task given the
 * same number has a directory of its own. Either may be -1.
 *
 * _dir: an O_PATH fd of the task's procfs directory (a copy of piddir,
 * or found through the pidfd: mntsnap__pidfd_pid()'s errors).
 * _exited: 1 once the task has exited (a zombie or reaped: it has no
 * namespaces left to read), 0 while it runs, -errno.
 * _root_fd: as mntsnap__pidfd_root_fd(), through piddir when there is one.
 */
int mntsnap__task_dir(int pidfd, int piddir);
int mntsnap__task_exited(int pidfd, int piddir);
int mntsnap__task_root_fd(int pidfd, int piddir);

#endif
