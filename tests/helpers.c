// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <elf.h>
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
#include <sys/wait.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <linux/capability.h>

#include "helpers.h"
#include "mntsnap.h"
#include "uapi.h"

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

#if defined(__x86_64__)
#define NOTIFY_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NOTIFY_ARCH AUDIT_ARCH_AARCH64
#else
#define NOTIFY_ARCH 0U
#endif

#define NOTIFY_MAX 16

int ms_notify_filter(const unsigned *nrs, unsigned n)
{
	struct sock_filter f[5 + NOTIFY_MAX];
	struct sock_fprog prog = { .len = (unsigned short)(n + 5), .filter = f };
	int fd;

	if (n > NOTIFY_MAX)
		return -E2BIG;
	f[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4);
	/* another ABI: every call to the supervisor */
	f[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NOTIFY_ARCH, 0,
					    (uint8_t)(n + 2));
	f[2] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	/* syscall i: on a match jump over the rest and the ALLOW to NOTIFY */
	for (unsigned i = 0; i < n; i++)
		f[3 + i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nrs[i],
							 (uint8_t)(n - i), 0);
	f[3 + n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, MNTSNAP_K_SECCOMP_RET_ALLOW);
	f[4 + n] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, MNTSNAP_K_SECCOMP_RET_USER_NOTIF);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	fd = (int)syscall(SYS_seccomp, MNTSNAP_K_SECCOMP_SET_MODE_FILTER,
			  MNTSNAP_K_SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	return fd < 0 ? -errno : fd;
}

int ms_drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

static int run_tmp(void)
{
	char path[] = "/tmp/mntsnap-run-XXXXXX";
	int fd = mkostemp(path, O_CLOEXEC);

	cr_assert(fd >= 0, "mkostemp: %s", strerror(errno));
	unlink(path);
	return fd;
}

struct ms_run ms_run_in(const char *dir, const char *const *argv)
{
	int o = run_tmp(), e = run_tmp(), st;
	struct ms_run r;
	pid_t pid;

	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (dir && chdir(dir))
			_exit(126);
		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	lseek(o, 0, SEEK_SET);
	lseek(e, 0, SEEK_SET);
	ms_read_fd(o, &r.out);
	ms_read_fd(e, &r.err);
	close(o);
	close(e);
	return r;
}

pid_t ms_waiter_start(int (*setup)(void *arg), void *arg, const char *what)
{
	int p[2];
	pid_t pid;
	char k;

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setup(arg) || write(p[1], "k", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	/* EOF: the child exited before it was ready */
	cr_assert_eq(read(p[0], &k, 1), 1, "%s", what);
	close(p[0]);
	return pid;
}

void ms_run_free(struct ms_run *r)
{
	free(r->out);
	free(r->err);
}

static void write_all(const char *path, const char *data, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, n), (ssize_t)n);
	close(fd);
}

void ms_write_text(const char *path, const char *text)
{
	write_all(path, text, strlen(text), 0644);
}

void ms_copy_file(const char *from, const char *to)
{
	size_t n;
	char *data = ms_read_file(from, &n);

	write_all(to, data, n, 0755);
	free(data);
}

const char *ms_find_exe(const char *const *cands)
{
	for (; *cands; cands++)
		if (!access(*cands, X_OK))
			return *cands;
	return NULL;
}

const char *ms_env_exe(const char *name)
{
	const char *p = getenv(name);

	if (!p || access(p, X_OK))
		cr_skip_test("%s not set or not executable (meson test sets it; bash .ci/test "
			     "sets MNTSNAP_STATIC_BIN)", name);
	return p;
}

bool ms_mi_find(const char *text, const char *mp, char *opts, char *type)
{
	char *mi = strdup(text), *save = NULL;
	bool found = false;

	cr_assert(mi);
	for (char *l = strtok_r(mi, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char m[512], o[512], t[128];
		const char *dash = strstr(l, " - ");

		if (!dash || sscanf(l, "%*s %*s %*s %*s %511s %511s", m, o) != 2 ||
		    sscanf(dash + 3, "%127s", t) != 1 || strcmp(m, mp))
			continue;
		found = true;
		if (opts)
			strcpy(opts, o);
		if (type)
			strcpy(type, t);
	}
	free(mi);
	return found;
}

bool ms_has_opt(const char *opts, const char *o)
{
	size_t n = strlen(o);

	for (const char *p = opts; (p = strstr(p, o)); p += n)
		if ((p == opts || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* A static binary has no PT_INTERP program header. */
bool ms_is_static_elf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	bool ok = false;

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64) {
		ok = true;
		for (int i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;

			if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) !=
				    sizeof(ph) ||
			    ph.p_type == PT_INTERP)
				ok = false;
		}
	}
	close(fd);
	return ok;
}

const char *ms_crun_rootfs(const char *base, const char *rootfs, const char *const *dirs,
			   const char *const *links)
{
	static const char *const crun_c[] = { "/usr/bin/crun", "/usr/local/bin/crun", NULL };
	static const char *const bb_c[] = { "/bin/busybox", "/usr/bin/busybox", NULL };
	const char *crun = ms_find_exe(crun_c), *bb = ms_find_exe(bb_c);
	char p[256];

	if (!crun)
		cr_skip_test("crun not installed");
	/* the container has no libc to load: busybox must be the static build */
	if (!bb || !ms_is_static_elf(bb))
		cr_skip_test("busybox-static not installed");
	ms_private_ns(base);
	if (mount("none", "/sys/fs/cgroup", "cgroup2", 0, NULL))
		cr_skip_test("cannot mount cgroup2: %s", strerror(errno));
	for (; *dirs; dirs++) {
		snprintf(p, sizeof(p), "%s/%s", rootfs, *dirs);
		ms_mkdir_p(p);
	}
	snprintf(p, sizeof(p), "%s/bin/busybox", rootfs);
	ms_copy_file(bb, p);
	for (; *links; links++) {
		snprintf(p, sizeof(p), "%s/bin/%s", rootfs, *links);
		cr_assert_eq(symlink("busybox", p), 0, "%s: %s", p, strerror(errno));
	}
	return crun;
}

void ms_random_uuid(char out[37])
{
	int fd = open("/proc/sys/kernel/random/uuid", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	cr_assert_geq(fd, 0, "open /proc/sys/kernel/random/uuid: %s", strerror(errno));
	n = read(fd, out, 36);
	close(fd);
	cr_assert_eq(n, 36, "short read of a random UUID");
	out[36] = '\0';
}
