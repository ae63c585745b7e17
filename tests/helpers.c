// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "helpers.h"
#include "mntsnap.h"

void ms_require_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root");
}

void ms_mkdir_p(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

void ms_private_ns(const char *base)
{
	ms_require_root();
	if (unshare(CLONE_NEWNS))
		cr_skip_test("unshare(CLONE_NEWNS): %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0,
		     "make / private: %s", strerror(errno));
	if (base) {
		ms_mkdir_p(base);
		cr_assert_eq(mount("mstest", base, "tmpfs", 0, "mode=755"), 0,
			     "tmpfs on %s: %s", base, strerror(errno));
	}
}

char *ms_read_file(const char *path, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	for (;;) {
		if (cap - n < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		r = read(fd, buf + n, cap - n - 1);
		cr_assert(r >= 0, "read %s: %s", path, strerror(errno));
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

void ms_read_fd(int fd, char **ret)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap + 1);
	ssize_t r;

	cr_assert(b);
	while ((r = read(fd, b + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			b = realloc(b, (cap *= 2) + 1);
			cr_assert(b);
		}
	}
	b[n] = '\0';
	*ret = b;
}

int ms_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	cr_assert(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the DIR's own fd */
}

char *ms_render(const struct mntsnap_snapshot *snap, int format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f);
	cr_assert_eq(mntsnap_render(snap, format, f), 0);
	fclose(f);
	return buf;
}

void ms_assert_text_eq(const char *got, const char *want, const char *what)
{
	const char *g = got, *w = want;
	unsigned line = 1;

	while (*g && *w && *g == *w) {
		if (*g == '\n')
			line++;
		g++, w++;
	}
	if (!*g && !*w)
		return;
	while (g > got && g[-1] != '\n')
		g--;
	while (w > want && w[-1] != '\n')
		w--;
	cr_assert_fail("%s: first difference at line %u\n got: %.*s\nwant: %.*s", what, line,
		       (int)strcspn(g, "\n"), g, (int)strcspn(w, "\n"), w);
}

extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

/* Stale pointers in dead stack frames would count as references. */
__attribute__((noinline)) static void scrub_stack(void)
{
	volatile char junk[64 * 1024];

	memset((char *)junk, 0, sizeof(junk));
}

void ms_leak_check(void)
{
	scrub_stack();
	if (__lsan_do_recoverable_leak_check)
		cr_assert_eq(__lsan_do_recoverable_leak_check(), 0,
			     "LeakSanitizer found leaks (report above)");
}

void ms_mount_fuse(const char *src, const char *dir, const char *type)
{
	char opts[128];
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		cr_skip_test("/dev/fuse: %s", strerror(errno));
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	ms_mkdir_p(dir);
	if (mount(src, dir, type, MS_NOSUID | MS_NODEV, opts))
		cr_skip_test("fuse mount: %s", strerror(errno));
	close(fd);
}

#ifdef MS_HAVE_SECCOMP_HELPER
/*
 * Checks the arch first: a foreign-arch syscall number must not be
 * matched against the x86_64 table (457 statmount, 458 listmount).
 */
int ms_block_mount_syscalls(bool statmount, bool listmount, int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 457, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, statmount ? SECCOMP_RET_ERRNO | (unsigned)err
						   : SECCOMP_RET_ALLOW),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 458, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, listmount ? SECCOMP_RET_ERRNO | (unsigned)err
						   : SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return -errno;
	return 0;
}
#endif
