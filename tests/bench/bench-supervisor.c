// SPDX-License-Identifier: MIT
/*
 * bench-supervisor: what the mount supervisor adds to an allowed mount.
 *
 *   direct       mount("none", T, "tmpfs", MS_NOSUID|MS_NODEV|MS_NOEXEC)
 *                by a process holding CAP_SYS_ADMIN (then umount2)
 *   supervised   the same mount(2) by a process without capabilities under
 *                a seccomp filter that notifies mount/umount2, answered by
 *                a mntsnap_supervisor in the parent (policy: tmpfs on
 *                /mnt/(anything), force nosuid,nodev,noexec), which reads the
 *                arguments, enters the namespace with the helper, resolves,
 *                decides and mounts (then a supervised umount2)
 * Both time the mount(2) call alone, from the caller's side. Median, p90
 * and p99 of N calls. Then the supervised caller again, as one container
 * of two served by one supervisor, while the other container attacks:
 *   none         idle
 *   linger       TCP sockets with SO_LINGER and a full send queue handed
 *                to fsconfig while another thread closes them
 *   fuse         mounts below a FUSE mount whose server never answers
 *                (the helper waits for its timeout, here 2 s)
 *   flood        fsconfig calls as fast as it can
 * with the victim's p50 and p99 and their ratio to the idle row.
 * A program, not a test: it prints numbers and never fails on them.
 * Needs root; everything happens in a private mount namespace.
 *
 *   bench-supervisor [--rounds N] [--quick]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mntsnap-supervisor.h"
#include "ratio.h"
#include "uapi.h"

#define BASE "/tmp/mntsnap-bench-sv"
#define ROOT BASE "/root"

#if defined(__x86_64__)
#define ARCH_ 0xc000003eU
#elif defined(__aarch64__)
#define ARCH_ 0xc00000b7U
#else
#define ARCH_ 0U
#endif

static unsigned rounds = 1000;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void die(const char *what)
{
	fprintf(stderr, "bench-supervisor: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double report(const char *name, double *t, unsigned n)
{
	qsort(t, n, sizeof(*t), dcmp);
	printf("%-12s median %8.1f us   p90 %8.1f us   p99 %8.1f us   (n=%u)\n", name, t[n / 2],
	       t[n * 9 / 10], t[n * 99 / 100], n);
	return t[n / 2];
}

static void direct(double *t)
{
	for (unsigned i = 0; i < rounds; i++) {
		double t0 = now_us();

		if (mount("none", ROOT "/mnt/a", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
			die("direct mount");
		t[i] = now_us() - t0;
		if (umount2(ROOT "/mnt/a", 0))
			die("direct umount");
	}
}

static void attack(int kind);

/*
 * The caller: own root and namespace, the filter, no capabilities; it
 * times rounds tmpfs mounts, or (kind > 0) attacks until killed.
 */
static void caller_as(double *t, int ready_w, int kind)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_, 0, 6),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mount, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_umount2, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MNTSNAP_NR_fsopen, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MNTSNAP_NR_fsconfig, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, MNTSNAP_K_SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, MNTSNAP_K_SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (unshare(CLONE_NEWNS) || mount(ROOT, ROOT, NULL, MS_BIND | MS_REC, NULL) ||
	    chdir(ROOT) || syscall(SYS_pivot_root, ".", "old") || umount2("/old", MNT_DETACH) ||
	    chdir("/"))
		die("caller root");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("no_new_privs");
	fd = (int)syscall(SYS_seccomp, MNTSNAP_K_SECCOMP_SET_MODE_FILTER,
			  MNTSNAP_K_SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0 || write(ready_w, &fd, sizeof(fd)) != sizeof(fd))
		die("seccomp");
	if (syscall(SYS_capset, &h, d))
		die("capset");
	if (kind > 0)
		attack(kind);
	for (unsigned i = 0; i < rounds; i++) {
		double t0 = now_us();

		if (mount("none", "/mnt/a", "tmpfs", 0, NULL))
			die("supervised mount");
		t[i] = now_us() - t0;
		if (umount2("/mnt/a", 0))
			die("supervised umount");
	}
	_exit(0);
}

static void caller(double *t, int ready_w)
{
	caller_as(t, ready_w, 0);
}

/* ---- attackers ----------------------------------------------------------- */

enum { ATTACK_NONE, ATTACK_LINGER, ATTACK_FUSE, ATTACK_FLOOD, ATTACK_N };
static const char *const attack_names[] = { "none", "linger", "fuse", "flood" };

static void *closer(void *arg)
{
	usleep((useconds_t)(rand() % 150));
	close((int)(intptr_t)arg);
	return NULL;
}

static void attack_linger(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct linger lg = { .l_onoff = 1, .l_linger = 3 };
	static char junk[65536];
	socklen_t sl = sizeof(sa);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), small = 4096;

	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 4096) ||
	    getsockname(l, (struct sockaddr *)&sa, &sl))
		die("listener");
	for (;;) {
		int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), p;
		pthread_t th;

		setsockopt(c, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
		if (connect(c, (struct sockaddr *)&sa, sizeof(sa)) && errno != EINPROGRESS)
			die("connect");
		p = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (p < 0)
			die("accept");
		setsockopt(p, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
		while (write(c, junk, sizeof(junk)) > 0)
			;
		setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		if (pthread_create(&th, NULL, closer, (void *)(intptr_t)c))
			die("pthread_create");
		pthread_detach(th);
		syscall(MNTSNAP_NR_fsconfig, c, MNTSNAP_K_FSCONFIG_SET_FLAG, "ro", NULL, 0);
		usleep(1000);
	}
}

static void attack(int kind)
{
	static char val[250];
	int fs;

	switch (kind) {
	case ATTACK_LINGER:
		attack_linger();
		break;
	case ATTACK_FUSE:
		for (;;)
			mount("none", "/mnt/f/x", "tmpfs", 0, NULL);
	case ATTACK_FLOOD:
		memset(val, 'f', sizeof(val) - 1);
		fs = (int)syscall(MNTSNAP_NR_fsopen, "tmpfs", MNTSNAP_K_FSOPEN_CLOEXEC);
		for (;;)
			syscall(MNTSNAP_NR_fsconfig, fs, MNTSNAP_K_FSCONFIG_SET_STRING, "x", val, 0);
	}
	_exit(0);
}

/* Fork a caller (kind 0: the timed victim); its notify fd, ours. */
static int spawn(double *t, int kind, pid_t *ret_pid)
{
	int ready[2], cfd, pidfd, nfd;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		caller_as(t, ready[1], kind);
	close(ready[1]);
	if (read(ready[0], &cfd, sizeof(cfd)) != sizeof(cfd))
		die("the caller failed to start");
	close(ready[0]);
	pidfd = (int)syscall(MNTSNAP_NR_pidfd_open, pid, 0);
	nfd = (int)syscall(MNTSNAP_NR_BASE + 438, pidfd, cfd, 0); /* pidfd_getfd */
	if (nfd < 0)
		die("pidfd_getfd");
	close(pidfd);
	*ret_pid = pid;
	return nfd;
}

/* The victim's rounds, served beside an attacker of this kind. */
static void beside(double *t, int kind)
{
	static const char *const force[] = { "nosuid", "nodev", "noexec", NULL };
	MNTSNAP_OPTS(mntsnap_policy_rule, rule, .fstype = "tmpfs", .target = "/mnt/*",
		     .force = force);
	MNTSNAP_OPTS(mntsnap_supervisor_opts, o, .timeout_ms = 2000);
	struct mntsnap_supervisor *sv;
	struct mntsnap_policy *p;
	pid_t victim, attacker = -1;
	int nv, na = -1, st;

	if (mntsnap_policy_new(false, 0, &p) || mntsnap_policy_add(p, &rule, NULL) ||
	    mntsnap_supervisor_new(p, &o, &sv))
		die("supervisor");
	if (kind != ATTACK_NONE) {
		na = spawn(t, kind, &attacker);
		if (mntsnap_supervisor_add(sv, na, "attacker"))
			die("add");
		usleep(200000); /* the attack under way */
	}
	nv = spawn(t, ATTACK_NONE, &victim);
	if (mntsnap_supervisor_add(sv, nv, "victim"))
		die("add");
	while (waitpid(victim, &st, WNOHANG) == 0)
		if (mntsnap_supervisor_dispatch(sv, 100) < 0)
			die("dispatch");
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		die("the victim failed");
	if (attacker > 0) {
		kill(attacker, SIGKILL);
		waitpid(attacker, &st, 0);
	}
	mntsnap_supervisor_free(sv);
	mntsnap_policy_free(p);
}

static void supervised(double *t)
{
	static const char *const force[] = { "nosuid", "nodev", "noexec", NULL };
	MNTSNAP_OPTS(mntsnap_policy_rule, rule, .fstype = "tmpfs", .target = "/mnt/*",
		     .force = force);
	struct mntsnap_supervisor *sv;
	struct mntsnap_policy *p;
	int ready[2], cfd, pidfd, nfd, st;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		caller(t, ready[1]);
	close(ready[1]);
	if (read(ready[0], &cfd, sizeof(cfd)) != sizeof(cfd))
		die("the caller failed to start");
	pidfd = (int)syscall(MNTSNAP_NR_pidfd_open, pid, 0);
	nfd = (int)syscall(MNTSNAP_NR_BASE + 438, pidfd, cfd, 0); /* pidfd_getfd */
	if (nfd < 0)
		die("pidfd_getfd");
	if (mntsnap_policy_new(false, 0, &p) || mntsnap_policy_add(p, &rule, NULL) ||
	    mntsnap_supervisor_new(p, NULL, &sv) || mntsnap_supervisor_add(sv, nfd, "bench"))
		die("supervisor");
	/* serve until every process of the filter has gone */
	while (mntsnap_supervisor_count(sv))
		if (mntsnap_supervisor_dispatch(sv, 1000) < 0)
			die("dispatch");
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		die("the caller failed");
	mntsnap_supervisor_free(sv);
	mntsnap_policy_free(p);
	close(pidfd);
	close(ready[0]);
}

int main(int argc, char **argv)
{
	double *t, d, s;
	char words[96];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			rounds = 50;
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = (unsigned)atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: bench-supervisor [--rounds N] [--quick]\n");
			return 2;
		}
	}
	if (rounds < 10)
		rounds = 10;
	if (geteuid()) {
		fprintf(stderr, "bench-supervisor: needs root\n");
		return 0;
	}
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die("private namespace");
	mkdir(BASE, 0755);
	if (mount("bench", BASE, "tmpfs", 0, "mode=755"))
		die("tmpfs");
	if (mkdir(ROOT, 0755) || mkdir(ROOT "/mnt", 0755) || mkdir(ROOT "/mnt/a", 0755) ||
	    mkdir(ROOT "/old", 0755))
		die("mkdir");
	t = mmap(NULL, rounds * sizeof(*t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	if (t == MAP_FAILED)
		die("mmap");
	direct(t);
	d = report("direct", t, rounds);
	supervised(t);
	s = report("supervised", t, rounds);
	printf("added        %8.1f us per allowed mount (median; supervised %s)\n", s - d,
	       bench_vs(words, sizeof(words), s, d, "a direct mount"));

	/* isolation: the victim's latency beside each attacker */
	{
		double p50[ATTACK_N], p99[ATTACK_N];
		char opts[128];
		int fuse = open("/dev/fuse", O_RDWR | O_CLOEXEC);

		if (mkdir(ROOT "/mnt/f", 0755))
			die("mkdir");
		if (fuse >= 0) {
			snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse);
			if (mount("stall", ROOT "/mnt/f", "fuse", 0, opts))
				die("fuse");
		}
		printf("\nanother container's supervised tmpfs mount, beside an attacker\n");
		printf("%-10s %10s %10s %10s %10s\n", "attacker", "p50 us", "p99 us", "p50/none",
		       "p99/none");
		for (int k = 0; k < ATTACK_N; k++) {
			if (k == ATTACK_FUSE && fuse < 0) {
				printf("%-10s (no /dev/fuse)\n", attack_names[k]);
				continue;
			}
			beside(t, k);
			qsort(t, rounds, sizeof(*t), dcmp);
			p50[k] = t[rounds / 2];
			p99[k] = t[rounds * 99 / 100];
			printf("%-10s %10.1f %10.1f %10.2f %10.2f\n", attack_names[k], p50[k], p99[k],
			       p50[k] / p50[0], p99[k] / p99[0]);
			fflush(stdout);
		}
		if (fuse >= 0)
			close(fuse);
	}
	return 0;
}
