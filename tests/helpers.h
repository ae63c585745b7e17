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

/* A finished child: its exit code (-1 if a signal ended it) and output. */
struct ms_run {
	int status;
	char *out, *err; /* malloc'd, NUL-terminated */
};

/*
 * Run argv (argv[0] a path) in dir (NULL: here) and wait for it; stdout
 * and stderr go to unlinked temporary files first, so neither can block.
 */
struct ms_run ms_run_in(const char *dir, const char *const *argv);

/*
 * A child that runs setup(arg) (0: ready) and then waits, killed with
 * the test (PR_SET_PDEATHSIG) or by the caller: a task that holds a
 * namespace, a root or a mount for the test to query. Fails the test
 * with what if setup fails; returns the child's pid once it is ready.
 */
pid_t ms_waiter_start(int (*setup)(void *arg), void *arg, const char *what);

void ms_run_free(struct ms_run *r);

/* Write text to path (created 0644, truncated). */
void ms_write_text(const char *path, const char *text);

/* Copy from to to (created 0755: the files copied are programs). */
void ms_copy_file(const char *from, const char *to);

/* The first of the NULL-terminated candidates that is executable, or NULL. */
const char *ms_find_exe(const char *const *cands);

/* Is path a 64-bit ELF without a PT_INTERP header (statically linked)? */
bool ms_is_static_elf(const char *path);

/*
 * A crun bundle's scaffolding: a private mount namespace with a tmpfs on
 * base, cgroup2 mounted (for crun --cgroup-manager=disabled), the
 * directories dirs under rootfs, and busybox-static as rootfs/bin/busybox
 * with a symlink for each of links (both NULL-terminated). Returns crun's
 * path; skips the test without crun, busybox-static or cgroup2.
 */
const char *ms_crun_rootfs(const char *base, const char *rootfs, const char *const *dirs,
			   const char *const *links);

/* The program getenv(name) names; skips the test if unset or not executable. */
const char *ms_env_exe(const char *name);

/*
 * The topmost mount at mp in mountinfo text: true if there is one, its
 * mount options into opts[512] and its type into type[128] (each may be
 * NULL).
 */
bool ms_mi_find(const char *text, const char *mp, char *opts, char *type);

/* Is o one of the comma-separated options in opts? */
bool ms_has_opt(const char *opts, const char *o);

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

/*
 * The container side of a supervisor test: a seccomp filter that sends
 * the n syscalls nrs of the native ABI, and every call of another ABI
 * (i386 through int 0x80), to a user-notification listener, and allows
 * the rest; sets PR_SET_NO_NEW_PRIVS. The listener fd, or -errno.
 */
int ms_notify_filter(const unsigned *nrs, unsigned n);

/* Drop every capability of the calling thread: 0 or -errno. */
int ms_drop_caps(void);

/*
 * A fresh random UUID (the kernel's /proc/sys/kernel/random/uuid), for
 * images whose mkfs refuses a UUID some block device still shows: a loop
 * device of an earlier run may still be detaching, and mkfs.btrfs asks
 * blkid for every device with that UUID.
 */
void ms_random_uuid(char out[37]);

#endif
