// SPDX-License-Identifier: MIT
/*
 * The UUID reader against a node swapped in after it checked a mount's
 * root: the kernel's FIFO semantics are the oracle (a writer blocked in
 * open(2) returns only when some process opens the FIFO for reading).
 * mntsnap__sys_statx is wrapped (--wrap) so the swap lands exactly
 * between the reader's check of the O_PATH fd and what it does next: a
 * container can do the same by winning the race with a bind mount. The
 * node in a real attack is a device whose open(2) alone acts (a watchdog
 * starts, a tape rewinds), opened with the caller's privileges.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsuuid.h"
#include "helpers.h"
#include "sys.h"

#define BASE "/tmp/mntsnap-fsuuid-swap"
#define UUID_A "5a1ad0c0-ffee-4b0b-8a5e-000000000a0a"

static const char *swap_src; /* bind-mounted over swap_dst at the first armed statx */
static const char *swap_dst;

long __real_mntsnap__sys_statx(void *ctx, int dirfd, const char *path, int flags, unsigned mask,
			       struct mntsnap_statx *buf);
long __wrap_mntsnap__sys_statx(void *ctx, int dirfd, const char *path, int flags, unsigned mask,
			       struct mntsnap_statx *buf);

long __wrap_mntsnap__sys_statx(void *ctx, int dirfd, const char *path, int flags, unsigned mask,
			       struct mntsnap_statx *buf)
{
	long r = __real_mntsnap__sys_statx(ctx, dirfd, path, flags, mask, buf);

	if (swap_src && !*path) { /* the reader's check of its own fd */
		if (mount(swap_src, swap_dst, NULL, MS_BIND, NULL))
			abort();
		swap_src = NULL;
	}
	return r;
}

static int count_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			n++;
	return n;
}

/* true once pid sleeps in openat(2) (its /proc/PID/syscall), within about 1 s */
static bool blocked_in_open(pid_t pid)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (int i = 0; i < 100; i++) {
		FILE *f = fopen(path, "re");
		long nr = -1;

		if (f) {
			if (fscanf(f, "%ld", &nr) != 1)
				nr = -1;
			fclose(f);
		}
		if (nr == SYS_openat)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

/* true if pid exited 0 within about 1 s (it returned from its open) */
static bool exited_within_1s(pid_t pid)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int st;

	for (int i = 0; i < 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0;
		nanosleep(&ts, NULL);
	}
	return false;
}

Test(fsuuid_swap, node_swapped_in_after_the_check_is_never_opened)
{
	char got[MNTSNAP_FS_UUID_SIZE] = "";
	struct mntsnap_statx stx = { 0 };
	const char *file = BASE "/file";
	int fds, r, st;
	bool opened;
	pid_t pid;

	ms_require_root();
	if (system("command -v mkfs.ext4 >/dev/null"))
		cr_skip_test("needs e2fsprogs");
	ms_private_ns(BASE);
	cr_assert_eq(system("truncate -s 16M " BASE "/e.img && mkfs.ext4 -q -F -U " UUID_A " "
			    BASE "/e.img && mkdir " BASE "/e && mount -o loop " BASE "/e.img " BASE
			    "/e && touch " BASE "/e/f " BASE "/file && mkfifo " BASE "/fifo"),
		     0);
	/* a file bind mount: the only kind whose root is opened by path again */
	cr_assert_eq(mount(BASE "/e/f", file, NULL, MS_BIND, NULL), 0);
	cr_assert_eq(mntsnap__sys_statx(NULL, AT_FDCWD, file, AT_SYMLINK_NOFOLLOW,
					MNTSNAP_STATX_MNT_ID_UNIQUE, &stx), 0);

	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		alarm(10);
		_exit(open(BASE "/fifo", O_WRONLY | O_CLOEXEC) >= 0 ? 0 : 1);
	}
	cr_assert(blocked_in_open(pid), "the writer never blocked in open(2)");
	fds = count_fds();
	swap_src = BASE "/fifo";
	swap_dst = file;
	r = mntsnap__fs_uuid(AT_FDCWD, file, stx.stx_mnt_id, stx.stx_dev_major, stx.stx_dev_minor,
			     "ext4", got);
	opened = exited_within_1s(pid);
	if (!opened) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	cr_assert_null(swap_src, "the swap never happened");
	cr_assert_not(opened, "the FIFO swapped in after the check was opened");
	cr_assert(r == 0 || r == -ENODATA, "%s", strerror(-r));
	if (!r)
		cr_assert_str_eq(got, UUID_A, "a UUID, but not the checked file's filesystem's");
	cr_assert_eq(count_fds(), fds, "an fd leaked");
}
