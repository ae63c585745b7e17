// SPDX-License-Identifier: MIT
/*
 * mntsnap-launch: a tiny crun-like launcher. It creates a private mount
 * namespace, builds its seccomp filter with mntsnap_seccomp_allow() and runs
 * a command under it:
 *
 *   default action   ERRNO(EPERM) (or ENOSYS with --default enosys)
 *   allowed by name  an ordinary-program base list (files, memory, processes,
 *                    signals, time, sockets) - no mount(2), no new mount API,
 *                    no setns/unshare: a container-like policy
 *   adapter          statmount/listmount (--set query) or mntsnap's whole
 *                    set (--set full), by name where the run-time libseccomp
 *                    knows the name, by raw number where it does not
 *
 * That is the route that works where the JSON route fails: a runtime that
 * reads names from an OCI profile drops "statmount" when its libseccomp is
 * older than 2.5.6/2.6.0 (Debian 12: 2.5.4), and the container gets EPERM.
 *
 * --export-bpf FILE writes the same filter as raw BPF and exits; crun loads
 * such a filter from the run.oci.seccomp_bpf_data annotation (base64).
 *
 * --no-adapter leaves the adapter out, to show the difference.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "mntsnap-seccomp.h"

static const char usage_text[] =
	"usage: mntsnap-launch [--set query|full] [--default eperm|enosys] [--no-adapter]\n"
	"                      [--export-bpf FILE] [--] COMMAND [ARG...]\n"
	"Run COMMAND in a new private mount namespace under a seccomp filter that\n"
	"denies by default, allows an ordinary-program base list by name, and\n"
	"allows statmount/listmount (--set full: all of mntsnap's syscalls) through\n"
	"the mntsnap libseccomp adapter, by raw number where libseccomp lacks the\n"
	"names. --export-bpf FILE: write the filter as BPF (for crun's\n"
	"run.oci.seccomp_bpf_data annotation) and exit.\n";

/* What a shell and ordinary tools need. Names the run-time libseccomp does
 * not know are skipped, as runtimes do. */
static const char *const base_allow[] = {
	"access", "arch_prctl", "brk", "capget", "chdir", "chmod", "chown", "clock_getres",
	"clock_gettime", "clock_nanosleep", "clone", "close", "close_range", "connect", "dup",
	"dup2", "dup3", "epoll_create1", "epoll_ctl", "epoll_pwait", "epoll_wait", "eventfd2",
	"execve", "execveat", "exit", "exit_group", "faccessat", "faccessat2", "fadvise64",
	"fchdir", "fchmod", "fchmodat", "fchown", "fchownat", "fcntl", "fdatasync", "flock",
	"fork", "fstat", "fstatfs", "fsync", "ftruncate", "futex", "getcwd", "getdents64",
	"getegid", "geteuid", "getgid", "getgroups", "getpgid", "getpgrp", "getpid", "getppid",
	"getpriority", "getrandom", "getresgid", "getresuid", "getrlimit", "get_robust_list",
	"getrusage", "getsid", "getsockname", "getsockopt", "gettid", "gettimeofday", "getuid",
	"getxattr", "kill", "lgetxattr", "link", "linkat", "lseek", "lstat", "madvise",
	"membarrier", "memfd_create", "mkdir", "mkdirat", "mmap", "mprotect", "mremap", "munmap",
	"nanosleep", "newfstatat", "open", "openat", "pipe", "pipe2", "poll", "ppoll", "prctl",
	"pread64", "preadv", "prlimit64", "pselect6", "pwrite64", "pwritev", "read", "readlink",
	"readlinkat", "readv", "recvfrom", "recvmsg", "rename", "renameat", "renameat2",
	"restart_syscall", "rmdir", "rseq", "rt_sigaction", "rt_sigpending", "rt_sigprocmask",
	"rt_sigqueueinfo", "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait", "sched_getaffinity",
	"sched_yield", "select", "sendmsg", "sendto", "set_robust_list", "set_tid_address",
	"setpgid", "setsid", "sigaltstack", "socket", "socketpair", "stat", "statfs", "symlink",
	"symlinkat", "sysinfo", "tgkill", "time", "truncate", "umask", "uname", "unlink",
	"unlinkat", "utimensat", "vfork", "wait4", "waitid", "write", "writev",
	NULL,
};

struct launch_args {
	int set;
	uint32_t def;
	bool adapter;
	const char *bpf_out;
	char **cmd;
};

static int parse(int argc, char **argv, struct launch_args *a)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "--")) {
			i++;
			break;
		}
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(usage_text, stdout);
			exit(0);
		}
		if (!strcmp(o, "--no-adapter")) {
			a->adapter = false;
			continue;
		}
		if (i + 1 >= argc)
			return fprintf(stderr, "mntsnap-launch: '%s' needs a value\n", o), -EINVAL;
		if (!strcmp(o, "--set") && !strcmp(argv[i + 1], "query"))
			a->set = MNTSNAP_SECCOMP_QUERY;
		else if (!strcmp(o, "--set") && !strcmp(argv[i + 1], "full"))
			a->set = MNTSNAP_SECCOMP_FULL;
		else if (!strcmp(o, "--default") && !strcmp(argv[i + 1], "eperm"))
			a->def = SCMP_ACT_ERRNO(EPERM);
		else if (!strcmp(o, "--default") && !strcmp(argv[i + 1], "enosys"))
			a->def = SCMP_ACT_ERRNO(ENOSYS);
		else if (!strcmp(o, "--export-bpf"))
			a->bpf_out = argv[i + 1];
		else
			return fprintf(stderr, "mntsnap-launch: bad option '%s %s'\n", o, argv[i + 1]),
			       -EINVAL;
		i++;
	}
	a->cmd = argv + i;
	if (!a->bpf_out && !*a->cmd)
		return fprintf(stderr, "%s", usage_text), -EINVAL;
	return 0;
}

/* The compat ABIs of the native one, as runtimes add them (Docker archMap). */
static size_t compat_arches(uint32_t *out)
{
	switch (seccomp_arch_native()) {
	case SCMP_ARCH_X86_64:
		out[0] = SCMP_ARCH_X86;
		out[1] = SCMP_ARCH_X32;
		return 2;
	case SCMP_ARCH_AARCH64:
		out[0] = SCMP_ARCH_ARM;
		return 1;
	default:
		return 0;
	}
}

static int build_filter(const struct launch_args *a, scmp_filter_ctx *ret)
{
	scmp_filter_ctx ctx = seccomp_init(a->def);
	uint32_t arches[4];
	size_t n = compat_arches(arches);
	int r;

	if (!ctx)
		return -ENOMEM;
	/* Adapter first: raw-number rules only work while ctx holds the
	 * native arch alone on libseccomp 2.5.x; it then adds the arches. */
	if (a->adapter) {
		r = mntsnap_seccomp_allow_arches(ctx, a->set, arches, n);
	} else {
		r = 0;
		for (size_t i = 0; i < n && !r; i++)
			r = seccomp_arch_add(ctx, arches[i]);
	}
	if (r < 0)
		goto fail;
	for (const char *const *p = base_allow; *p; p++) {
		int nr = seccomp_syscall_resolve_name(*p);

		if (nr == __NR_SCMP_ERROR)
			continue;
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		/* -EEXIST: the adapter already allowed it (e.g. ioctl, statx) */
		if (r < 0 && r != -EEXIST) {
			fprintf(stderr, "mntsnap-launch: rule for %s: %s\n", *p, strerror(-r));
			goto fail;
		}
	}
	*ret = ctx;
	return 0;
fail:
	seccomp_release(ctx);
	return r;
}

static int export_bpf(scmp_filter_ctx ctx, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int r;

	if (fd < 0)
		return -errno;
	r = seccomp_export_bpf(ctx, fd);
	if (close(fd) && !r)
		r = -errno;
	return r;
}

static int private_mount_ns(void)
{
	if (unshare(CLONE_NEWNS))
		return -errno;
	/* Nothing we mount may propagate back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	struct launch_args a = { .set = MNTSNAP_SECCOMP_QUERY, .def = SCMP_ACT_ERRNO(EPERM),
				 .adapter = true };
	const struct scmp_version *v = seccomp_version();
	scmp_filter_ctx ctx;
	int r;

	if (parse(argc, argv, &a))
		return 2;
	fprintf(stderr, "mntsnap-launch: libseccomp %u.%u.%u: %d of mntsnap's syscalls by raw "
			"number%s\n",
		v->major, v->minor, v->micro, mntsnap_seccomp_unknown_names(a.set),
		a.adapter ? "" : " (adapter off: none allowed)");
	r = build_filter(&a, &ctx);
	if (r < 0) {
		fprintf(stderr, "mntsnap-launch: building the filter: %s\n", strerror(-r));
		return 2;
	}
	if (a.bpf_out) {
		r = export_bpf(ctx, a.bpf_out);
		seccomp_release(ctx);
		if (r < 0)
			fprintf(stderr, "mntsnap-launch: %s: %s\n", a.bpf_out, strerror(-r));
		return r < 0 ? 2 : 0;
	}
	r = private_mount_ns();
	if (r < 0) {
		fprintf(stderr, "mntsnap-launch: private mount namespace: %s\n", strerror(-r));
		return 2;
	}
	r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r < 0) {
		fprintf(stderr, "mntsnap-launch: seccomp_load: %s\n", strerror(-r));
		return 2;
	}
	execvp(a.cmd[0], a.cmd);
	/* execve is allowed, so this is a real error; write is allowed too */
	fprintf(stderr, "mntsnap-launch: %s: %s\n", a.cmd[0], strerror(errno));
	return 127;
}
