/* SPDX-License-Identifier: MIT */
/*
 * Shared test helpers. Every test that mounts calls ms_private_ns() first:
 * it unshares the mount namespace and makes / private recursively, so no
 * mount can ever reach the host. Criterion runs each test in its own
 * process, so the namespace dies with the test.
 */
#ifndef MNTSNAP_TEST_HELPERS_H
#define MNTSNAP_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stddef.h>

/* unshare(CLONE_NEWNS) + MS_REC|MS_PRIVATE on /; skips the test without
 * privileges. Also mounts a fresh tmpfs on base (created if needed) when
 * base is non-NULL, so tests have a private scratch directory. */
void ms_private_ns(const char *base);

/* Skip the test unless running as root with CAP_SYS_ADMIN. */
void ms_require_root(void);

/* Whole file into a malloc'd NUL-terminated buffer; *len gets its size. */
char *ms_read_file(const char *path, size_t *len);

/* Everything until EOF from fd into a malloc'd NUL-terminated buffer. */
void ms_read_fd(int fd, char **ret);

/* Number of open fds of this process. */
int ms_count_fds(void);

/* mkdir -p */
void ms_mkdir_p(const char *path);

/* Render snap as mountinfo text into a malloc'd buffer. */
struct mntsnap_snapshot;
char *ms_render(const struct mntsnap_snapshot *snap, int format);

/* Assert two texts are equal, printing the first differing line. */
void ms_assert_text_eq(const char *got, const char *want, const char *what);

/*
 * LeakSanitizer reports at exit, after Criterion has recorded the test as
 * passed: suites call this at the end of each test instead, so a leak fails
 * the test in the -Db_sanitize=address build (a no-op elsewhere).
 */
void ms_leak_check(void);

/* A Criterion test whose body is followed by ms_leak_check(). */
#define LTest(suite, name, ...)                                                \
	__attribute__((noinline)) static void suite##_##name##_body(void);     \
	Test(suite, name, ##__VA_ARGS__)                                       \
	{                                                                      \
		suite##_##name##_body();                                       \
		ms_leak_check();                                               \
	}                                                                      \
	__attribute__((noinline)) static void suite##_##name##_body(void)

/*
 * A FUSE mount with no daemon behind it (enough for the mount table):
 * type "fuse.SUBTYPE" gives a subtype. Skips the test without /dev/fuse.
 */
void ms_mount_fuse(const char *src, const char *dir, const char *type);

/*
 * A real seccomp filter (raw BPF, no libseccomp) that fails statmount
 * and/or listmount with errno err and allows everything else; sets
 * PR_SET_NO_NEW_PRIVS. For a forked child: it cannot be undone. 0 or
 * -errno. Defined only where MS_HAVE_SECCOMP_HELPER is (the syscall
 * numbers are written for x86_64).
 */
#if defined(__x86_64__)
#define MS_HAVE_SECCOMP_HELPER 1
int ms_block_mount_syscalls(bool statmount, bool listmount, int err);
#endif

#endif
