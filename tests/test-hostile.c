// SPDX-License-Identifier: MIT
/*
 * Hostile targets: a container's root decides what is mounted at its
 * /proc, so nothing found there may be taken as data about it. Each
 * target here is a real process in its own mount namespace that fakes
 * its /proc (a tmpfs with made-up thread-self/ and self/mountinfo files,
 * symlinks to the host's pid 1, FIFOs that block an open) or, benign,
 * has its own pid namespace and procfs, where the caller's helper has no
 * pid at all. The caller runs under a real seccomp filter that denies
 * statmount/listmount (ENOSYS and EPERM, as a profile without them or a
 * kernel before 6.8 would), so the library must fall back to text; or,
 * without a filter, is forced to capture inside the target.
 * The oracle is the kernel: the answer must equal the host-side
 * /proc/T/mountinfo this test reads itself, byte for byte, within 1 s,
 * through the library (pid, pidfd, nsfs path and id handles) and the CLI
 * (list --pid, --ns, --ns-id, and --ns with --backend mountinfo).
 * The same for a rootless container read by its owner uid with no
 * capabilities (the helper joins its user namespace first); and the
 * POLLPRI detector the helper polls inside such targets must see a change
 * made mid-capture. Also: --ns of things that are no namespace file (a
 * FIFO, device nodes, a directory, a regular file) fails at once with
 * exit 2, and the messages for a pid that names no process and for
 * helper-side failures.
 * Every mount happens inside private mount namespaces; every process
 * started is killed and reaped before the test ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "proc.h"
#include "sys.h"
#include "sys-seam.h"

#define BASE "/tmp/mntsnap-test-hostile"
#define FAKE_TEXT "1 0 0:1 / / rw shared:1 - fakefs FAKE rw\n"
/*
 * "Did not stall": a stalled call waits for the namespace helper's 10 s
 * timeout or for ever; 4 s tells that apart from a slow machine (a whole
 * CLI run under AddressSanitizer on two loaded cores took 1.3 s). This is
 * no speed target: the benchmarks measure those.
 */
#define LIMIT_NS 4000000000LL
#define HANG_MS 8000          /* past this a child counts as hung and is killed */

enum kind { K_FAKE, K_LINK, K_FIFO, K_PIDNS, K_FUSE, K_LIBC, K_CHURN };
enum filt { F_NONE, F_ENOSYS, F_EPERM };

/* ---- small tools usable in forked children (no Criterion asserts) ------- */

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* What a forked caller found; lives in memory shared with the test. */
struct verdict {
	int tried, held;
	char msg[1024];
};
static struct verdict *V;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			snprintf(V->msg, sizeof(V->msg), __VA_ARGS__);        \
			_exit(1);                                            \
		}                                                            \
	} while (0)

static char *slurp_fd(int fd)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap + 1);
	ssize_t r;

	while (b && (r = read(fd, b + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap)
			b = realloc(b, (cap *= 2) + 1);
	}
	if (b)
		b[n] = '\0';
	return b;
}

static char *render(const struct mntsnap_snapshot *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (mntsnap_render(s, MNTSNAP_FORMAT_MOUNTINFO, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* Wait for pid up to ms; kill and reap it past that. 0, or -ETIMEDOUT. */
static int reap_within(pid_t pid, int ms, int *status)
{
	long long end = now_ns() + ms * 1000000LL;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (now_ns() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
			return -ETIMEDOUT;
		}
		usleep(2000);
	}
}

struct cli_run {
	int status;        /* exit code; -1 killed as hung, -2 other death */
	long long ns;      /* how long it took */
	char *out, *err;
};

/*
 * Run the CLI with stdout and stderr on pipes; killed past HANG_MS.
 * Inherits the caller's seccomp filter, as a runtime's child would.
 */
static int run_cli(const char *const *args, struct cli_run *c)
{
	const char *bin = getenv("MNTSNAP_BIN");
	const char *argv[16] = { "mntsnap" };
	int o[2], e[2], st = 0, n = 1;
	long long t0;
	pid_t pid;

	memset(c, 0, sizeof(*c));
	if (!bin)
		return -ENOENT;
	for (; args[n - 1] && n < 15; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	if (pipe2(o, O_CLOEXEC) || pipe2(e, O_CLOEXEC))
		return -errno;
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	/* reading to EOF would wait for a hung child: bound it first */
	if (reap_within(pid, HANG_MS, &st)) {
		c->status = -1;
	} else {
		c->status = WIFEXITED(st) ? WEXITSTATUS(st) : -2;
	}
	c->ns = now_ns() - t0;
	c->out = slurp_fd(o[0]);
	c->err = slurp_fd(e[0]);
	close(o[0]);
	close(e[0]);
	return 0;
}

static void cli_free(struct cli_run *c)
{
	free(c->out);
	free(c->err);
}

/*
 * Run fn in a forked child and fail the test with its message when it
 * fails or hangs. V counts what it tried and what held.
 */
static void in_child(void (*fn)(void *), void *arg, struct verdict *ret)
{
	int status = 0;
	pid_t pid;

	V = mmap(NULL, sizeof(*V), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert(V != MAP_FAILED);
	memset(V, 0, sizeof(*V));
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		fn(arg);
		_exit(0);
	}
	cr_assert_eq(reap_within(pid, 4 * HANG_MS, &status), 0,
		     "the caller hung (killed); last: %s", V->msg);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "caller failed (status %#x) after %d/%d held: %s", status, V->held, V->tried,
		  V->msg);
	if (ret)
		*ret = *V;
	cr_log_info("%d tried, %d held", V->tried, V->held);
	munmap(V, sizeof(*V));
	V = NULL;
}

/* ---- the target -------------------------------------------------------------- */

struct target {
	enum kind kind;
	uid_t uid;           /* 0, or a rootless container of this uid */
	pid_t pid;
	volatile int *late;  /* shared: 1 once SIGUSR1 made the target mount */
	int ready[2];
	char *want;        /* host-side /proc/T/mountinfo, read by the test */
	char nspath[64];
	uint64_t ns_id;
};

static int put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The /proc a hostile root would plant: its own files at the paths read. */
static int fake_proc(enum kind kind)
{
	static const char *const files[] = { "/proc/self/mountinfo",
					     "/proc/thread-self/mountinfo" };

	if (mount("hostile", "/proc", "tmpfs", MS_NOSUID, "mode=755") ||
	    mkdir("/proc/self", 0755) || mkdir("/proc/thread-self", 0755))
		return -1;
	/* for the symlink case: a procfs of the host's pid namespace, pid 1 */
	if (kind == K_LINK && mount("proc", BASE "/hostproc", "proc", MS_NOSUID, NULL))
		return -1;
	for (int i = 0; i < 2; i++) {
		int r = kind == K_FAKE ? put_file(files[i], FAKE_TEXT)
			: kind == K_LINK ? symlink(BASE "/hostproc/1/mountinfo", files[i])
					 : mkfifo(files[i], 0644);

		if (r)
			return -1;
	}
	return 0;
}

/*
 * A FUSE mount whose daemon never answers, and an innocent-looking
 * symlink into it: every lookup below the mount waits for the FUSE_INIT
 * reply for good, and only a fatal signal ends that wait. The /dev/fuse
 * fd stays open in the target (closing it would abort the connection and
 * fail the lookups at once).
 */
static int stall_fuse(void)
{
	char opts[96];
	int fd = open("/dev/fuse", O_RDWR);

	if (fd < 0)
		return -1;
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mkdir(BASE "/mine/stall", 0755) ||
	    mount("stall", BASE "/mine/stall", "fuse.stall", MS_NOSUID | MS_NODEV, opts))
		return -1;
	return symlink("stall/deep", BASE "/mine/innocent");
}

/*
 * FIFOs where libc looks on its own: glibc's malloc opens
 * /proc/sys/vm/overcommit_memory the first time a thread's arena
 * shrinks, its strerror() opens message catalogs in a non-C locale. A
 * helper that opened either after entering would block there, inside
 * malloc or gettext, until its timeout kills it with the lock held.
 */
static int libc_traps(void)
{
	static const char *const dirs[] = { "/usr/share/locale/C.utf8/LC_MESSAGES",
					    "/usr/share/locale/C.UTF-8/LC_MESSAGES",
					    "/usr/share/locale/C/LC_MESSAGES" };
	char path[128];

	if (mount("hostile", "/proc", "tmpfs", MS_NOSUID, "mode=755") ||
	    mount("hostile", "/usr/share/locale", "tmpfs", MS_NOSUID, "mode=755"))
		return -1;
	ms_mkdir_p("/proc/sys/vm");
	if (mkfifo("/proc/sys/vm/overcommit_memory", 0644))
		return -1;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		ms_mkdir_p(dirs[i]);
		snprintf(path, sizeof(path), "%s/libc.mo", dirs[i]);
		if (mkfifo(path, 0644))
			return -1;
	}
	return 0;
}

/*
 * Mounts and unmounts without pause in the target's namespace, from a
 * child that dies with the target: every mount anywhere bumps the
 * kernel's global mount sequence, which a ".." under RESOLVE_IN_ROOT
 * checks (EAGAIN: "retry").
 */
static int churn_mounts(void)
{
	pid_t pid;

	if (mkdir(BASE "/mine/churn", 0755))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid)
		return 0;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		mount("churn", BASE "/mine/churn", "tmpfs", 0, "size=4k");
		umount2(BASE "/mine/churn", MNT_DETACH);
	}
}

static volatile int *late_flag;

/* Become uid for good: no way back to root, no capabilities out here. */
static int become(uid_t uid)
{
	struct {
		uint32_t version;
		int pid;
	} h = { 0x20080522, 0 };
	uint32_t d[6] = { 0 };

	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -errno;
	/* a uid change clears both: keep /proc/PID/ files ours, die with the test */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) || prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0))
		return -errno;
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

/*
 * A rootless container as uid makes it (unshare -U -m, as podman and crun
 * do): root inside maps to uid, the mount namespace is owned by it.
 */
static int become_rootless(uid_t uid)
{
	char map[64];

	if (become(uid) || unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	if (put_file("/proc/self/setgroups", "deny") || put_file("/proc/self/uid_map", map) ||
	    put_file("/proc/self/gid_map", map))
		return -1;
	return 0;
}

/* SIGUSR1: change the target's table now (mount, then say so) */
static void on_usr1(int sig)
{
	(void)sig;
	if (!mount("late", BASE "/late", "tmpfs", 0, "size=64k"))
		*late_flag = 1;
}

static int target_main(void *arg)
{
	struct target *t = arg;
	struct sigaction sa = { .sa_handler = on_usr1 };
	char one = 1;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	late_flag = t->late;
	if (sigaction(SIGUSR1, &sa, NULL))
		_exit(7);
	if (t->uid && become_rootless(t->uid))
		_exit(8);
	close(t->ready[0]);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		_exit(2);
	/* a mount of its own, so its table is not the test's */
	if (mount("mine", BASE "/mine", "tmpfs", 0, "size=64k"))
		_exit(3);
	if (t->kind == K_PIDNS) {
		/* benign: its own pid namespace and a procfs of it */
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
			_exit(4);
	} else if (t->kind == K_CHURN) {
		if (churn_mounts())
			_exit(11);
	} else if (t->kind == K_LIBC) {
		if (libc_traps())
			_exit(10);
	} else if (t->kind == K_FUSE) {
		if (stall_fuse())
			_exit(9);
	} else if (fake_proc(t->kind)) {
		_exit(5);
	}
	if (write(t->ready[1], &one, 1) != 1)
		_exit(6);
	for (;;)
		pause();
}

static void target_start_as(struct target *t, enum kind kind, uid_t uid)
{
	size_t sz = 256 * 1024;
	char *stack, path[64], one;
	struct pollfd p;
	int fd;

	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->uid = uid;
	/* made here: a rootless target may not create them in BASE */
	cr_assert_eq(mkdir(BASE "/mine", 0755), 0);
	cr_assert_eq(mkdir(BASE "/late", 0755), 0);
	cr_assert_eq(mkdir(BASE "/hostproc", 0755), 0);
	t->late = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	cr_assert(t->late != MAP_FAILED);
	cr_assert_eq(pipe2(t->ready, O_CLOEXEC), 0);
	stack = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		     -1, 0);
	cr_assert(stack != MAP_FAILED);
	/* a rootless target unshares its own user and mount namespaces */
	t->pid = clone(target_main, stack + sz,
		       (uid ? 0 : CLONE_NEWNS) | (kind == K_PIDNS ? CLONE_NEWPID : 0) | SIGCHLD,
		       t);
	cr_assert_gt(t->pid, 0, "clone: %s", strerror(errno));
	close(t->ready[1]);
	p = (struct pollfd){ .fd = t->ready[0], .events = POLLIN };
	cr_assert_eq(poll(&p, 1, HANG_MS), 1, "target did not get ready");
	if (read(t->ready[0], &one, 1) != 1) {
		int st = 0;

		waitpid(t->pid, &st, 0);
		if (uid && WIFEXITED(st) && WEXITSTATUS(st) == 8)
			cr_skip_test("unprivileged user namespaces are not allowed here");
		if (kind == K_FUSE && WIFEXITED(st) && WEXITSTATUS(st) == 9)
			cr_skip_test("no FUSE here (/dev/fuse or the mount failed)");
		cr_assert_fail("target failed to set up (status %#x)", st);
	}
	close(t->ready[0]);
	munmap(stack, sz); /* the child has its own copy of the mapping */
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", t->pid);
	t->want = ms_read_file(path, NULL);
	cr_assert(strstr(t->want, BASE "/mine"), "target's table: %s", t->want);
	snprintf(t->nspath, sizeof(t->nspath), "/proc/%d/ns/mnt", t->pid);
	fd = open(t->nspath, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	cr_assert_eq(ioctl(fd, _IOR(0xb7, 0x5, uint64_t), &t->ns_id), 0, "NS_GET_MNTNS_ID");
	close(fd);
}

static void target_start(struct target *t, enum kind kind)
{
	target_start_as(t, kind, 0);
}

static void target_stop(struct target *t)
{
	int st;

	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, &st, 0);
	}
	free(t->want);
	munmap((void *)t->late, sizeof(int));
	t->pid = 0;
}

/* In a private namespace: a target of this kind, and fn run against it in a child. */
static void against_target(enum kind kind, void (*fn)(void *))
{
	struct target t;

	ms_private_ns(BASE);
	target_start(&t, kind);
	in_child(fn, &t, NULL);
	target_stop(&t);
}

/* ---- the caller ------------------------------------------------------------------ */

struct hctx {
	struct target *t;
	enum filt filt;
	uid_t uid;  /* the caller runs as this uid, without capabilities */
};

/* fn against a target of kind (owned by uid) in a child under filter filt. */
static void run_filtered(void (*fn)(void *), enum kind kind, enum filt filt, uid_t uid)
{
	struct target t;
	struct hctx c = { .t = &t, .filt = filt, .uid = uid };

#ifndef MS_HAVE_SECCOMP_HELPER
	cr_skip_test("raw BPF filter written for x86_64 only");
#endif
	ms_private_ns(BASE);
	target_start_as(&t, kind, uid);
	in_child(fn, &c, NULL);
	target_stop(&t);
}

static void apply_filter(enum filt f)
{
	int err = f == F_ENOSYS ? ENOSYS : EPERM;

	if (f == F_NONE)
		return;
#ifdef MS_HAVE_SECCOMP_HELPER
	CHECK(!ms_block_mount_syscalls(true, true, err), "seccomp filter: %s", strerror(errno));
	/* the filter is real: the raw syscall now fails as told */
	CHECK(syscall(458, NULL, NULL, 0, 0) == -1 && errno == err, "listmount not blocked");
	CHECK(syscall(457, NULL, NULL, 0, 0) == -1 && errno == err, "statmount not blocked");
#endif
}

static const char *first_diff(const char *got, const char *want, char *buf, size_t len)
{
	const char *g = got, *w = want;

	while (*g && *g == *w)
		g++, w++;
	while (g > got && g[-1] != '\n')
		g--, w--;
	snprintf(buf, len, "got '%.*s' want '%.*s'", (int)strcspn(g, "\n"), g,
		 (int)strcspn(w, "\n"), w);
	return buf;
}

static void lib_case(struct hctx *c, const char *what, int hk)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL;
	char diff[400];
	long long t0, dt;
	char *got;
	int r;

	V->tried++;
	if (hk == 3) { /* a pidfd the caller holds */
		int pidfd = (int)syscall(434 /* pidfd_open */, c->t->pid, 0);

		CHECK(pidfd >= 0, "%s: pidfd_open: %s", what, strerror(errno));
		r = mntsnap_ns_open_pidfd(pidfd, NULL, &ns);
		close(pidfd);
	} else {
		r = hk == 0   ? mntsnap_ns_open_pid(c->t->pid, NULL, &ns)
		    : hk == 1 ? mntsnap_ns_open_path(c->t->nspath, NULL, &ns)
			      : mntsnap_ns_open_id(c->t->ns_id, NULL, &ns);
	}
	CHECK(!r, "%s: open handle: %s", what, strerror(-r));
	/* without a filter the direct query works and no helper would run */
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .error = &e,
		     .flags = c->filt == F_NONE ? MNTSNAP_CAPTURE_NS_ENTER : 0);
	t0 = now_ns();
	r = mntsnap_capture(&o, &s);
	dt = now_ns() - t0;
	mntsnap_ns_free(ns);
	CHECK(dt < LIMIT_NS, "%s: took %lld ms", what, dt / 1000000);
	CHECK(!r, "%s: capture: %s (%s)", what, strerror(-r), e.msg);
	got = render(s);
	mntsnap_snapshot_free(s);
	CHECK(got, "%s: render failed", what);
	CHECK(!strcmp(got, c->t->want), "%s: not the kernel's table: %s", what,
	      first_diff(got, c->t->want, diff, sizeof(diff)));
	free(got);
	V->held++;
}

static void cli_case(struct hctx *c, const char *what, const char *const *args)
{
	struct cli_run run;
	char diff[400];
	int r;

	if (!getenv("MNTSNAP_BIN"))
		return; /* built without the CLI */
	V->tried++;
	r = run_cli(args, &run);
	CHECK(!r, "%s: run: %s", what, strerror(-r));
	CHECK(run.status == 0, "%s: exit %d: %s", what, run.status, run.err);
	CHECK(run.ns < LIMIT_NS, "%s: took %lld ms", what, run.ns / 1000000);
	CHECK(!strcmp(run.out, c->t->want), "%s: not the kernel's table: %s", what,
	      first_diff(run.out, c->t->want, diff, sizeof(diff)));
	cli_free(&run);
	V->held++;
}

static void hostile_caller(void *arg)
{
	struct hctx *c = arg;
	char pid[16], id[24];

	if (c->uid)
		CHECK(!become(c->uid), "become uid %u: %s", (unsigned)c->uid, strerror(errno));
	apply_filter(c->filt);
	lib_case(c, "library, pid handle", 0);
	lib_case(c, "library, nsfs path handle", 1);
	lib_case(c, "library, id handle", 2);
	lib_case(c, "library, pidfd handle", 3);
	snprintf(pid, sizeof(pid), "%d", c->t->pid);
	cli_case(c, "list --pid",
		 (const char *[]){ "list", "--pid", pid, "--format", "mountinfo", NULL });
	cli_case(c, "list --ns",
		 (const char *[]){ "list", "--ns", c->t->nspath, "--format", "mountinfo", NULL });
	snprintf(id, sizeof(id), "%llu", (unsigned long long)c->t->ns_id);
	cli_case(c, "list --ns-id",
		 (const char *[]){ "list", "--ns-id", id, "--format", "mountinfo", NULL });
	cli_case(c, "list --ns --backend mountinfo",
		 (const char *[]){ "list", "--ns", c->t->nspath, "--backend", "mountinfo", "--format",
				   "mountinfo", NULL });
}

static void run_hostile(enum kind kind, enum filt filt)
{
	struct target t;
	struct hctx c = { .t = &t, .filt = filt };

#ifndef MS_HAVE_SECCOMP_HELPER
	if (filt != F_NONE)
		cr_skip_test("raw BPF filter written for x86_64 only");
#endif
	ms_private_ns(BASE);
	/* warm the per-process statmount cache: the filtered child inherits
	 * "usable" and must still not trust it blindly */
	cr_assert_eq(mntsnap_have_statmount(), 1);
	target_start(&t, kind);
	in_child(hostile_caller, &c, NULL);
	target_stop(&t);
}

#define HOSTILE(name, kind, filt)                                             \
	LTest(hostile, name)                                                  \
	{                                                                     \
		run_hostile(kind, filt);                                      \
	}

HOSTILE(fake_proc_files_enter, K_FAKE, F_NONE)
HOSTILE(fake_proc_files_enosys, K_FAKE, F_ENOSYS)
HOSTILE(fake_proc_files_eperm, K_FAKE, F_EPERM)
HOSTILE(proc_symlink_to_pid1_enter, K_LINK, F_NONE)
HOSTILE(proc_symlink_to_pid1_enosys, K_LINK, F_ENOSYS)
HOSTILE(proc_symlink_to_pid1_eperm, K_LINK, F_EPERM)
HOSTILE(proc_fifo_enter, K_FIFO, F_NONE)
HOSTILE(proc_fifo_enosys, K_FIFO, F_ENOSYS)
HOSTILE(proc_fifo_eperm, K_FIFO, F_EPERM)
HOSTILE(own_pidns_enter, K_PIDNS, F_NONE)
HOSTILE(own_pidns_enosys, K_PIDNS, F_ENOSYS)
HOSTILE(own_pidns_eperm, K_PIDNS, F_EPERM)

/* ---- --ns of things that are no namespace file ------------------------------ */

static const char *const not_ns[] = {
	BASE "/fifo", "/dev/null", "/dev/zero", BASE "/dir", BASE "/file",
};
#define N_NOT_NS (sizeof(not_ns) / sizeof(not_ns[0]))

static void not_ns_caller(void *arg)
{
	(void)arg;
	for (size_t i = 0; i < N_NOT_NS; i++) {
		struct mntsnap_ns *ns = NULL;
		struct cli_run run;
		long long t0 = now_ns(), dt;
		int r, fd;

		V->tried++;
		r = mntsnap_ns_open_path(not_ns[i], NULL, &ns);
		dt = now_ns() - t0;
		CHECK(r == -EINVAL && !ns, "open_path %s: %d", not_ns[i], r);
		CHECK(dt < LIMIT_NS, "open_path %s: took %lld ms", not_ns[i], dt / 1000000);
		/* an fd the caller already holds is asked no ioctl either */
		fd = open(not_ns[i], O_RDWR | O_NONBLOCK | O_CLOEXEC); /* O_RDWR: a FIFO opens */
		if (fd < 0)
			fd = open(not_ns[i], O_RDONLY | O_CLOEXEC);
		CHECK(fd >= 0, "open %s: %s", not_ns[i], strerror(errno));
		r = mntsnap_ns_open_fd(fd, NULL, &ns);
		CHECK(r == -EINVAL && !ns, "open_fd %s: %d", not_ns[i], r);
		r = mntsnap_ns_open_pidfd(fd, NULL, &ns);
		close(fd);
		CHECK(r == -EINVAL && !ns, "open_pidfd %s: %d", not_ns[i], r);
		V->held++;

		if (!getenv("MNTSNAP_BIN"))
			continue;
		V->tried++;
		r = run_cli((const char *[]){ "list", "--ns", not_ns[i], NULL }, &run);
		CHECK(!r, "run: %s", strerror(-r));
		CHECK(run.status == 2, "--ns %s: exit %d (-1: hung)", not_ns[i], run.status);
		CHECK(run.ns < LIMIT_NS, "--ns %s: took %lld ms", not_ns[i], run.ns / 1000000);
		CHECK(!run.out[0], "--ns %s: output '%s'", not_ns[i], run.out);
		CHECK(strstr(run.err, "not a mount namespace"), "--ns %s: says '%s'", not_ns[i],
		      run.err);
		cli_free(&run);
		V->held++;
	}
}

LTest(hostile, ns_path_not_a_namespace_file)
{
	struct stat st;

	ms_private_ns(BASE);
	cr_assert_eq(mkfifo(BASE "/fifo", 0644), 0);
	cr_assert_eq(mkdir(BASE "/dir", 0755), 0);
	cr_assert_eq(put_file(BASE "/file", "not a namespace\n"), 0);
	cr_assert_eq(stat("/dev/zero", &st), 0);
	cr_assert(S_ISCHR(st.st_mode));
	in_child(not_ns_caller, NULL, NULL);
}

/* ---- messages ------------------------------------------------------------------- */

LTest(hostile, no_such_pid_does_not_say_exited)
{
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL;
	struct cli_run run;

	cr_assert_eq(mntsnap_ns_open_pid(0x7ffffff0, NULL, &ns), -ESRCH);
	mntsnap_ns_explain(-ESRCH, "--pid 2147483632", &e);
	cr_assert(strstr(e.msg, "no such process"), "%s", e.msg);
	cr_assert_null(strstr(e.msg, "has exited"), "%s", e.msg);
	if (!run_cli((const char *[]){ "list", "--pid", "2147483632", NULL }, &run)) {
		cr_assert_eq(run.status, 2, "%s", run.err);
		cr_assert(strstr(run.err, "no such process"), "%s", run.err);
		cr_assert_null(strstr(run.err, "has exited"), "%s", run.err);
		cli_free(&run);
	}
}

LTest(hostile, exited_handle_says_exited)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL;
	int st;
	pid_t pid;

	ms_require_root();
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		pause();
		_exit(0);
	}
	cr_assert_eq(mntsnap_ns_open_pid(pid, NULL, &ns), 0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .error = &e);
	cr_assert_eq(mntsnap_capture(&o, &s), -ESRCH);
	cr_assert(strstr(e.msg, "has exited since"), "%s", e.msg);
	mntsnap_ns_free(ns);
}

/*
 * A caller without a procfs of its own, statmount denied: there is no
 * host-side text, and the target's fake /proc must not stand in for it.
 * The failure is the helper's and says so, and what failed.
 */
static void no_host_proc_caller(void *arg)
{
	struct target *t = arg;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL;
	long long t0, dt;
	int r, fd;

	CHECK(!unshare(CLONE_NEWNS), "unshare: %s", strerror(errno));
	CHECK(!umount2("/proc", MNT_DETACH), "umount /proc: %s", strerror(errno));
	apply_filter(F_ENOSYS);
	V->tried++;
	r = mntsnap_ns_open_pid(t->pid, NULL, &ns);
	CHECK(!r, "open pid: %s", strerror(-r));
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .error = &e);
	t0 = now_ns();
	r = mntsnap_capture(&o, &s);
	dt = now_ns() - t0;
	CHECK(r < 0, "capture returned a table (%u mounts) without a host-side source",
	      s ? (unsigned)mntsnap_snapshot_count(s) : 0);
	CHECK(dt < LIMIT_NS, "capture took %lld ms", dt / 1000000);
	CHECK(strstr(e.msg, "helper process, inside the target namespace") &&
		      strstr(e.msg, "mountinfo"),
	      "message: %s", e.msg);
	V->held++;

	/* a helper-side open failure names the helper and the call */
	V->tried++;
	memset(&e, 0, sizeof(e));
	MNTSNAP_OPTS(mntsnap_ns_opts, no, .error = &e);
	r = mntsnap_ns_open_file(ns, "/no/such/file", O_RDONLY, 0, &no, &fd);
	CHECK(r == -ENOENT, "open_file: %d", r);
	CHECK(strstr(e.msg, "helper process, inside the target namespace: openat2"),
	      "message: %s", e.msg);
	V->held++;
	mntsnap_ns_free(ns);
}

LTest(hostile, no_host_proc_is_an_error_not_the_targets_text)
{
#ifndef MS_HAVE_SECCOMP_HELPER
	cr_skip_test("raw BPF filter written for x86_64 only");
#endif
	against_target(K_FAKE, no_host_proc_caller);
}

/* ---- the change detector inside the target ------------------------------------- */

/*
 * A listmount hook that makes the target mount something right before
 * the helper's first listing of a capture (its second own-namespace
 * listmount: the first is the probe for statmount, made before the
 * detector is opened). The new mount is in that listing, so the table is
 * whole and only POLLPRI on a live mountinfo fd can tell the capture
 * raced: attempts == 2 proves the detector the helper polls is real.
 * The hook runs in the helper (it shares this memory).
 */
struct change_hook {
	struct target *t;
	int own_calls;
};

static long change_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, uint64_t *ids,
			     size_t nr, unsigned flags)
{
	struct change_hook *c = ctx;

	if (!req->mnt_ns_fd && !req->mnt_ns_id && ++c->own_calls == 2) {
		long long end = now_ns() + LIMIT_NS;

		kill(c->t->pid, SIGUSR1);
		while (!*c->t->late && now_ns() < end)
			;
	}
	return mntsnap__sys_listmount(NULL, req, ids, nr, flags);
}

static void detector_case(enum kind kind)
{
	struct change_hook hook = { 0 };
	struct mntsnap_sysops sys = { .listmount = change_listmount, .ctx = &hook };
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL;
	struct target t;
	char path[64], *want, *got;
	long long t0, dt;
	int r;

	ms_private_ns(BASE);
	target_start(&t, kind);
	hook.t = &t;
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .error = &e, 
		     .flags = MNTSNAP_CAPTURE_NS_ENTER);
	t0 = now_ns();
	r = mntsnap__capture_with(&o, &sys, &s);
	dt = now_ns() - t0;
	cr_assert_eq(r, 0, "capture: %s (%s)", strerror(-r), e.msg);
	cr_assert_lt(dt, LIMIT_NS, "took %lld ms", dt / 1000000);
	cr_assert_eq(*t.late, 1, "the target did not mount (hook calls %d)", hook.own_calls);
	cr_assert_eq(mntsnap_snapshot_attempts(s), 2, "the change went unseen");
	cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
	/* and the retry's table is the kernel's, with the late mount */
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", t.pid);
	want = ms_read_file(path, NULL);
	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	cr_assert(strstr(want, BASE "/late"));
	ms_assert_text_eq(got, want, "after the retry");
	free(want);
	free(got);
	mntsnap_snapshot_free(s);
	mntsnap_ns_free(ns);
	target_stop(&t);
}

LTest(hostile, detector_inside_fifo_proc)
{
	detector_case(K_FIFO);
}

LTest(hostile, detector_inside_own_pidns)
{
	detector_case(K_PIDNS);
}

/* ---- rootless: the container's owner, no capabilities, the helper joins --------- */

#define NOBODY 65534

LTest(hostile, rootless_fake_proc_files_enosys)
{
	run_filtered(hostile_caller, K_FAKE, F_ENOSYS, NOBODY);
}

LTest(hostile, rootless_proc_fifo_eperm)
{
	run_filtered(hostile_caller, K_FIFO, F_EPERM, NOBODY);
}

/* ---- a FUSE mount that never answers ------------------------------------------ */

/*
 * A pid handle resolves a path from /proc/PID/root without entering; a
 * lookup that crosses the target's stalled FUSE mount must not hang the
 * caller: it ends in -ETIMEDOUT after the helper timeout (the default
 * 10 s; the in_child bound, 32 s, fails a hang). The mount point itself
 * (no lookup inside the FUSE filesystem) still resolves, to that mount.
 */
static void fuse_caller(void *arg)
{
	struct target *t = arg;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_mount m;
	struct mntsnap_ns *ns = NULL;
	int r;

	CHECK(!mntsnap_ns_open_pid(t->pid, NULL, &ns), "open pid");
	V->tried++;
	r = mntsnap_ns_stat_path(ns, BASE "/mine/innocent", 0, &s);
	CHECK(r == -ETIMEDOUT, "stat_path through the stalled FUSE mount: %d", r);
	V->held++;
	V->tried++;
	r = mntsnap_ns_stat_path(ns, BASE "/mine/stall", 0, &s);
	CHECK(!r, "stat_path of the FUSE mount point: %s", strerror(-r));
	CHECK(mntsnap_snapshot_count(s) == 1 && !mntsnap_snapshot_get(s, 0, &m), "one record");
	CHECK(m.mount_point && !strcmp(m.mount_point, BASE "/mine/stall"), "mount point %s",
	      m.mount_point ? m.mount_point : "(none)");
	mntsnap_snapshot_free(s);
	V->held++;
	mntsnap_ns_free(ns);
}

LTest(hostile, stat_path_through_stalled_fuse_times_out)
{
	against_target(K_FUSE, fuse_caller);
}

/* ---- what libc opens on its own inside the helper --------------------------- */

/*
 * Runs inside the helper (the seam is called there): frees enough of a
 * thread arena to make glibc shrink its heap (its first shrink reads the
 * overcommit setting from a file), then fails so that the error message
 * calls strerror() (a non-C locale looks for a catalog).
 */
static long trap_statmount(void *ctx, const struct mntsnap_k_mnt_id_req *req,
			   struct mntsnap_k_statmount *buf, size_t size, unsigned flags)
{
	void *p[48];

	(void)ctx, (void)req, (void)buf, (void)size, (void)flags;
	for (int i = 0; i < 48; i++)
		p[i] = malloc(60 * 1024); /* below the mmap threshold: arena memory */
	for (int i = 47; i >= 0; i--)
		free(p[i]);
	return -EIO;
}

struct libc_run {
	struct target *t;
	int r;
	long long ns;
	char msg[256];
};

static void *libc_thread(void *arg)
{
	struct libc_run *l = arg;
	struct mntsnap_sysops sys = { .statmount = trap_statmount };
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL;
	long long t0;
	char *after;

	l->r = mntsnap_ns_open_pid(l->t->pid, NULL, &ns);
	if (l->r)
		return NULL;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .error = &e, 
		     .backend = MNTSNAP_BACKEND_STATMOUNT, .flags = MNTSNAP_CAPTURE_NS_ENTER);
	t0 = now_ns();
	l->r = mntsnap__capture_with(&o, &sys, &s);
	/* this thread's arena must still be usable */
	after = strdup(e.msg);
	l->ns = now_ns() - t0;
	snprintf(l->msg, sizeof(l->msg), "%s", after ? after : "");
	free(after);
	mntsnap_snapshot_free(s);
	mntsnap_ns_free(ns);
	return NULL;
}

/*
 * From a thread (its own malloc arena) in a non-C locale: the capture's
 * error comes back at once, untranslated, and the thread can still
 * malloc. A helper that let libc open the target's FIFOs would stall for
 * its whole 10 s timeout and leave the arena locked (a hang here).
 */
static void libc_caller(void *arg)
{
	struct libc_run l = { .t = arg };
	pthread_t th;

	CHECK(setlocale(LC_ALL, "C.UTF-8"), "no C.UTF-8 locale");
	V->tried++;
	CHECK(!pthread_create(&th, NULL, libc_thread, &l), "pthread_create");
	pthread_join(th, NULL);
	CHECK(l.r == -EIO, "capture: %d (%s)", l.r, l.msg);
	CHECK(l.ns < LIMIT_NS, "took %lld ms", l.ns / 1000000);
	CHECK(strstr(l.msg, "Input/output error"), "message: %s", l.msg);
	V->held++;
}

LTest(hostile, libc_inside_the_helper_opens_nothing_of_the_target)
{
	against_target(K_LIBC, libc_caller);
}

/* ---- ".." while the target mounts without pause ------------------------------ */

/*
 * A target that mounts and unmounts in a loop makes openat2 with
 * RESOLVE_IN_ROOT fail a ".." with EAGAIN whenever a mount happened
 * meanwhile; openat2(2) says to retry. A path with ".." must still
 * resolve, every time, and to the mount it names.
 */
static void churn_caller(void *arg)
{
	struct target *t = arg;
	struct mntsnap_ns *ns = NULL;
	uint64_t want = 0;

	CHECK(!mntsnap_ns_open_pid(t->pid, NULL, &ns), "open pid");
	for (int i = 0; i < 300; i++) {
		struct mntsnap_snapshot *s = NULL;
		struct mntsnap_mount m;
		int r;

		V->tried++;
		r = mntsnap_ns_stat_path(ns, BASE "/mine/churn/../../mine/.", 0, &s);
		CHECK(!r, "try %d: stat_path with '..': %s", i, strerror(-r));
		CHECK(!mntsnap_snapshot_get(s, 0, &m), "record");
		CHECK(m.mount_point && !strcmp(m.mount_point, BASE "/mine"), "try %d: %s", i,
		      m.mount_point ? m.mount_point : "(none)");
		CHECK(!want || m.id == want, "try %d: another mount", i);
		want = m.id;
		mntsnap_snapshot_free(s);
		V->held++;
	}
	mntsnap_ns_free(ns);
}

LTest(hostile, stat_path_dotdot_while_the_target_mounts)
{
	struct target t;

	ms_private_ns(BASE);
	/* the churning grandchild, orphaned when the target dies, is ours to reap */
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	target_start(&t, K_CHURN);
	in_child(churn_caller, &t, NULL);
	target_stop(&t);
	while (waitpid(-1, NULL, __WALL) > 0)
		;
}

/* ---- the caller entered the target: "own namespace" is the target's --------- */

/*
 * A single-threaded caller that entered the target (mntsnap_ns_enter)
 * and captures its own namespace: /proc is now the target's. With
 * statmount denied the text must be the kernel's or an error, never the
 * target's fake; with statmount the table is the kernel's (the change
 * detector must not open the target's FIFO); a FIFO never blocks.
 */
static void entered_caller(void *arg)
{
	struct hctx *c = arg;
	struct target *t = c->t;
	struct mntsnap_ns_saved *saved = NULL;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL;
	long long t0, dt;
	char *got = NULL;
	int r;

	apply_filter(c->filt);
	CHECK(!mntsnap_ns_open_pid(t->pid, NULL, &ns), "open pid");
	CHECK(!mntsnap_ns_enter(ns, &saved), "enter");
	V->tried++;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &e);
	t0 = now_ns();
	r = mntsnap_capture(&o, &s);
	dt = now_ns() - t0;
	if (!r)
		got = render(s);
	mntsnap_snapshot_free(s);
	CHECK(!mntsnap_ns_leave(saved), "leave");
	mntsnap_ns_free(ns);
	CHECK(dt < LIMIT_NS, "took %lld ms", dt / 1000000);
	CHECK(r || (got && !strcmp(got, t->want)), "not the kernel's table: %.200s",
	      got ? got : "(render failed)");
	CHECK(r || t->kind == K_PIDNS || c->filt == F_NONE, "a table from a /proc that is no procfs");
	CHECK(!r || c->filt != F_NONE, "capture with statmount: %s (%s)", strerror(-r), e.msg);
	CHECK(!r || strstr(e.msg, "procfs"), "message: %s", e.msg);
	free(got);
	V->held++;
}

LTest(hostile, entered_fake_proc_files)
{
	run_filtered(entered_caller, K_FAKE, F_ENOSYS, 0);
}

LTest(hostile, entered_proc_symlink_to_pid1)
{
	run_filtered(entered_caller, K_LINK, F_ENOSYS, 0);
}

LTest(hostile, entered_proc_fifo)
{
	run_filtered(entered_caller, K_FIFO, F_ENOSYS, 0);
}

LTest(hostile, entered_own_pidns)
{
	run_filtered(entered_caller, K_PIDNS, F_ENOSYS, 0);
}

LTest(hostile, entered_proc_fifo_statmount)
{
	run_filtered(entered_caller, K_FIFO, F_NONE, 0);
}

LTest(hostile, entered_fake_proc_files_statmount)
{
	run_filtered(entered_caller, K_FAKE, F_NONE, 0);
}

/* ---- --ns PATH while the caller is inside the target ------------------------- */

/*
 * An nsfs path is reopened through /proc/thread-self/fd/N. A caller that
 * entered the target resolves /proc in the target's tree, where N can be
 * a symlink to another namespace's file: the handle must name the
 * namespace of PATH, or fail, never the decoy's.
 */
static void reopen_caller(void *arg)
{
	struct target *t = arg;
	struct mntsnap_ns_saved *saved = NULL;
	struct mntsnap_ns *ns = NULL, *in = NULL;
	char path[96], decoy[64];
	uint64_t id = 0;
	int next, r;

	CHECK(!mntsnap_ns_open_pid(t->pid, NULL, &ns), "open pid");
	CHECK(!mntsnap_ns_enter(ns, &saved), "enter");
	/* the fd number the library's O_PATH open will get */
	next = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(next >= 0, "open /dev/null");
	close(next);
	snprintf(decoy, sizeof(decoy), "/proc/thread-self/fd/%d", next);
	CHECK(!mkdir("/proc/thread-self/fd", 0755), "mkdir: %s", strerror(errno));
	/* the decoy: the test's own namespace, where the caller came from */
	snprintf(path, sizeof(path), BASE "/hostproc/%d/ns/mnt", (int)getppid());
	CHECK(!symlink(path, decoy), "symlink: %s", strerror(errno));
	snprintf(path, sizeof(path), BASE "/hostproc/%d/ns/mnt", t->pid);
	V->tried++;
	r = mntsnap_ns_open_path(path, NULL, &in);
	if (!r)
		id = mntsnap_ns_id(in);
	mntsnap_ns_free(in);
	CHECK(!mntsnap_ns_leave(saved), "leave");
	mntsnap_ns_free(ns);
	CHECK(r || id == t->ns_id, "the handle names namespace %llu, not %s's %llu",
	      (unsigned long long)id, path, (unsigned long long)t->ns_id);
	V->held++;
}

LTest(hostile, ns_path_reopen_not_through_the_targets_proc)
{
	against_target(K_LINK, reopen_caller);
}

/* ---- the caller's procfs is of a pid namespace that does not know it ------- */

static int mount_proc_child(void *arg)
{
	(void)arg;
	/* shares the caller's mount namespace, lives in a new pid namespace */
	_exit(mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) ? 1 : 0);
}

/*
 * /proc is a procfs of another pid namespace, where neither the caller
 * nor its helper has a pid: no text is found (thread-self is missing
 * there), and the error says so once, naming the helper, never a table.
 */
static void foreign_proc_caller(void *arg)
{
	struct target *t = arg;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL;
	static char stack[64 * 1024];
	const char *why, *first;
	int st = 0, r;
	pid_t pid;

	CHECK(!unshare(CLONE_NEWNS), "unshare: %s", strerror(errno));
	pid = clone(mount_proc_child, stack + sizeof(stack), CLONE_NEWPID | SIGCHLD, NULL);
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "mount a procfs of a new pid namespace");
	apply_filter(F_ENOSYS);
	V->tried++;
	CHECK(!mntsnap_ns_open_pid(t->pid, NULL, &ns), "open pid");
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .error = &e);
	r = mntsnap_capture(&o, &s);
	mntsnap_ns_free(ns);
	CHECK(r < 0, "a table from a procfs that does not know the helper");
	why = strerror(-r);
	first = strstr(e.msg, why);
	CHECK(strstr(e.msg, "helper process") && first && !strstr(first + strlen(why), why),
	      "message: %s", e.msg);
	V->held++;
}

LTest(hostile, caller_procfs_of_another_pidns)
{
#ifndef MS_HAVE_SECCOMP_HELPER
	cr_skip_test("raw BPF filter written for x86_64 only");
#endif
	against_target(K_FAKE, foreign_proc_caller);
}

/* ---- the text route of a pid handle, from inside the target ------------------ */

/*
 * A pid handle on the target, entered, with the target's /proc (what the
 * caller now sees) made up: /proc/PID exists and every fdinfo the handle
 * may read names PID (its own pidfd is a dup above the one opened here,
 * so fdinfo is planted for the next few fds too). Returns the pidfd.
 */
static int enter_with_fake_proc(struct target *t, struct mntsnap_ns **ret_ns,
				struct mntsnap_ns_saved **ret_saved)
{
	char path[96], text[64];
	int pidfd;

	pidfd = (int)syscall(434 /* pidfd_open */, t->pid, 0);
	CHECK(pidfd >= 0, "pidfd_open: %s", strerror(errno));
	CHECK(!mntsnap_ns_open_pidfd(pidfd, NULL, ret_ns), "open pidfd");
	CHECK(!mntsnap_ns_enter(*ret_ns, ret_saved), "enter");
	snprintf(path, sizeof(path), "/proc/%d", t->pid);
	CHECK(!mkdir(path, 0755) && !mkdir("/proc/self/fdinfo", 0755), "mkdir: %s",
	      strerror(errno));
	snprintf(text, sizeof(text), "pos:\t0\nflags:\t02000002\nPid:\t%d\n", t->pid);
	for (int fd = pidfd; fd < pidfd + 8; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
		CHECK(!put_file(path, text), "fdinfo");
	}
	return pidfd;
}

static void leave_fake_proc(struct mntsnap_ns *ns, struct mntsnap_ns_saved *saved, int pidfd)
{
	CHECK(!mntsnap_ns_leave(saved), "leave");
	mntsnap_ns_free(ns);
	close(pidfd);
}

/*
 * A pid handle's text comes from /proc/PID/mountinfo, PID read from the
 * pidfd's fdinfo. A caller inside the target (mntsnap_ns_enter) that
 * asks for the mountinfo backend sees the target's /proc, which here
 * answers all of it: an fdinfo naming the target's pid, that pid's
 * mountinfo made up, and its ns/mnt a symlink to the real file (so a
 * namespace check passes). The answer must be the kernel's or an error.
 */
static void text_entered_caller(void *arg)
{
	struct target *t = arg;
	struct mntsnap_ns_saved *saved = NULL;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL;
	char path[96], real[96];
	char *got = NULL;
	int pidfd, r;

	pidfd = enter_with_fake_proc(t, &ns, &saved);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", t->pid);
	CHECK(!put_file(path, FAKE_TEXT), "fake mountinfo");
	snprintf(path, sizeof(path), "/proc/%d/ns", t->pid);
	CHECK(!mkdir(path, 0755), "mkdir ns");
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", t->pid);
	snprintf(real, sizeof(real), BASE "/hostproc/%d/ns/mnt", t->pid);
	CHECK(!symlink(real, path), "symlink");
	V->tried++;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .error = &e,
		     .backend = MNTSNAP_BACKEND_MOUNTINFO);
	r = mntsnap_capture(&o, &s);
	if (!r)
		got = render(s);
	mntsnap_snapshot_free(s);
	leave_fake_proc(ns, saved, pidfd);
	CHECK(r || (got && !strcmp(got, t->want)), "not the kernel's table: %.200s",
	      got ? got : "(render failed)");
	free(got);
	V->held++;
}

LTest(hostile, text_route_of_a_pid_handle_from_inside)
{
	against_target(K_LINK, text_entered_caller);
}

/*
 * The same with a real procfs at /proc (so the procfs checks pass) and a
 * tmpfs mounted over its /proc/PID: a mount namespace's owner can cover
 * any directory of its procfs. PID/mountinfo there is made up and
 * PID/ns/mnt a symlink to the real file. The text is read only from the
 * procfs itself, never from what covers a directory of it: the kernel's
 * table, or an error.
 */
static void covered_pid_caller(void *arg)
{
	struct target *t = arg;
	struct mntsnap_ns_saved *saved = NULL;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL;
	char path[96], real[96];
	char *got = NULL;
	int r;

	CHECK(!mntsnap_ns_open_pid(t->pid, NULL, &ns), "open pid");
	CHECK(!mntsnap_ns_enter(ns, &saved), "enter");
	CHECK(!mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL),
	      "procfs: %s", strerror(errno));
	snprintf(path, sizeof(path), "/proc/%d", t->pid);
	CHECK(!mount("cover", path, "tmpfs", 0, "mode=755"), "cover: %s", strerror(errno));
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", t->pid);
	CHECK(!put_file(path, FAKE_TEXT), "fake mountinfo");
	snprintf(path, sizeof(path), "/proc/%d/ns", t->pid);
	CHECK(!mkdir(path, 0755), "mkdir ns");
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", t->pid);
	snprintf(real, sizeof(real), BASE "/hostproc/%d/ns/mnt", t->pid);
	CHECK(!symlink(real, path), "symlink");
	V->tried++;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .error = &e,
		     .backend = MNTSNAP_BACKEND_MOUNTINFO);
	r = mntsnap_capture(&o, &s);
	if (!r)
		got = render(s);
	mntsnap_snapshot_free(s);
	CHECK(!mntsnap_ns_leave(saved), "leave");
	mntsnap_ns_free(ns);
	CHECK(r || (got && !strcmp(got, t->want)), "not the kernel's table: %.200s",
	      got ? got : "(render failed)");
	free(got);
	V->held++;
}

LTest(hostile, text_route_through_a_covered_proc_pid)
{
	against_target(K_LINK, covered_pid_caller);
}

/*
 * A handle without a process (by id) reads the text of a process found in
 * the namespace by a scan of /proc. From inside, with a real procfs
 * there, the target covers /proc/1/ns with a tmpfs whose "mnt" is a
 * symlink to its own namespace's file: pid 1 (first in the scan) then
 * seems to be in the target, and its real text is another namespace's.
 * The answer is the target's table as the kernel shows it, or an error.
 */
static void covered_ns_caller(void *arg)
{
	struct target *t = arg;
	struct mntsnap_ns_saved *saved = NULL;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL, *byid = NULL;
	char real[96];
	bool seen = false;
	int r;

	CHECK(!mntsnap_ns_open_pid(t->pid, NULL, &ns), "open pid");
	CHECK(!mntsnap_ns_open_id(t->ns_id, NULL, &byid), "open id");
	CHECK(!mntsnap_ns_enter(ns, &saved), "enter");
	CHECK(!mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL),
	      "procfs: %s", strerror(errno));
	CHECK(!mount("cover", "/proc/1/ns", "tmpfs", 0, "mode=755"), "cover: %s",
	      strerror(errno));
	snprintf(real, sizeof(real), BASE "/hostproc/%d/ns/mnt", t->pid);
	CHECK(!symlink(real, "/proc/1/ns/mnt"), "symlink");
	V->tried++;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = byid, .error = &e,
		     .backend = MNTSNAP_BACKEND_MOUNTINFO);
	r = mntsnap_capture(&o, &s);
	for (size_t i = 0; !r && i < mntsnap_snapshot_count(s); i++) {
		struct mntsnap_mount m;

		if (!mntsnap_snapshot_get(s, i, &m) && m.mount_point &&
		    !strcmp(m.mount_point, BASE "/mine"))
			seen = true;
	}
	mntsnap_snapshot_free(s);
	CHECK(!mntsnap_ns_leave(saved), "leave");
	mntsnap_ns_free(byid);
	mntsnap_ns_free(ns);
	/* the target's own mount is in its table, in no other namespace's */
	CHECK(r || seen, "another namespace's table (no %s in it)", BASE "/mine");
	V->held++;
}

LTest(hostile, scan_through_a_covered_proc_ns)
{
	against_target(K_LINK, covered_ns_caller);
}

/* ---- a pid handle's root, from inside the target ------------------------------ */

/*
 * A pid handle resolves paths from /proc/PID/root, PID from the pidfd's
 * fdinfo. From inside the target both come from the target's /proc,
 * which here names the target's pid and makes PID/root a symlink to a
 * directory of its choosing: "/" must still be the target's root mount,
 * or an error.
 */
static void root_entered_caller(void *arg)
{
	struct target *t = arg;
	struct mntsnap_ns_saved *saved = NULL;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_ns *ns = NULL;
	struct mntsnap_mount m;
	char path[96], mp[256] = "";
	int pidfd, r;

	pidfd = enter_with_fake_proc(t, &ns, &saved);
	snprintf(path, sizeof(path), "/proc/%d/root", t->pid);
	CHECK(!symlink(BASE "/mine", path), "symlink");
	V->tried++;
	r = mntsnap_ns_stat_path(ns, "/", 0, &s);
	if (!r && !mntsnap_snapshot_get(s, 0, &m) && m.mount_point)
		snprintf(mp, sizeof(mp), "%s", m.mount_point);
	mntsnap_snapshot_free(s);
	leave_fake_proc(ns, saved, pidfd);
	CHECK(r || !strcmp(mp, "/"), "\"/\" resolved to the mount at %s", mp);
	V->held++;
}

LTest(hostile, pid_handle_root_from_inside)
{
	against_target(K_LINK, root_entered_caller);
}

/*
 * The same with a real procfs at /proc and a tmpfs covering its
 * /proc/PID, where PID/root is a symlink to a directory of the target's
 * choosing: the procfs checks pass, the cover must not. "/" is the
 * target's root mount, or an error; a capture of the pid handle is not
 * re-rooted at the chosen directory either.
 */
static void covered_root_caller(void *arg)
{
	struct target *t = arg;
	struct mntsnap_ns_saved *saved = NULL;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_ns *ns = NULL;
	struct mntsnap_mount m;
	char path[96], mp[256] = "", src[64] = "";
	size_t n = 0;
	int r, rc;

	CHECK(!mntsnap_ns_open_pid(t->pid, NULL, &ns), "open pid");
	CHECK(!mntsnap_ns_enter(ns, &saved), "enter");
	CHECK(!mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL),
	      "procfs: %s", strerror(errno));
	snprintf(path, sizeof(path), "/proc/%d", t->pid);
	CHECK(!mount("cover", path, "tmpfs", 0, "mode=755"), "cover: %s", strerror(errno));
	snprintf(path, sizeof(path), "/proc/%d/root", t->pid);
	CHECK(!symlink(BASE "/mine", path), "symlink");
	V->tried++;
	r = mntsnap_ns_stat_path(ns, "/", 0, &s);
	if (!r && !mntsnap_snapshot_get(s, 0, &m) && m.mount_point && m.source) {
		snprintf(mp, sizeof(mp), "%s", m.mount_point);
		snprintf(src, sizeof(src), "%s", m.source);
	}
	mntsnap_snapshot_free(s);
	s = NULL;
	rc = mntsnap_capture(&(struct mntsnap_capture_opts){ .sz = sizeof(struct mntsnap_capture_opts),
							     .ns = ns }, &s);
	if (!rc)
		n = mntsnap_snapshot_count(s);
	mntsnap_snapshot_free(s);
	CHECK(!mntsnap_ns_leave(saved), "leave");
	mntsnap_ns_free(ns);
	CHECK(r || (!strcmp(mp, "/") && strcmp(src, "mine")),
	      "\"/\" resolved to the mount at %s from %s", mp, src);
	CHECK(rc || n > 1, "the capture was re-rooted at the chosen directory (%zu mounts)", n);
	V->held++;
}

LTest(hostile, pid_handle_root_through_a_covered_proc_pid)
{
	against_target(K_LINK, covered_root_caller);
}

/*
 * A procfs whose <own pid>/fdinfo the owner of the mount namespace covered
 * with a tmpfs naming another process for the caller's pidfd: the pid
 * behind a pidfd comes from the procfs itself or from nowhere (every
 * route of a pid handle starts from it).
 */
LTest(hostile, pidfd_pid_through_a_covered_fdinfo)
{
	char dir[] = BASE "/p", path[160], text[96];
	int proc, pidfd, r;
	pid_t child;

	ms_private_ns(BASE);
	ms_mkdir_p(dir);
	cr_assert(!mount("proc", dir, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL),
		  "procfs: %s", strerror(errno));
	child = fork();
	if (!child) {
		pause();
		_exit(0);
	}
	cr_assert_gt(child, 0);
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	proc = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert(pidfd >= 0 && proc >= 0);
	r = mntsnap__pidfd_pid(proc, pidfd);
	cr_assert_eq(r, child, "uncovered: %d, want %d", r, (int)child);
	snprintf(path, sizeof(path), "%s/%d/fdinfo", dir, (int)getpid());
	cr_assert(!mount("cover", path, "tmpfs", 0, "mode=755"), "cover: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/%d/fdinfo/%d", dir, (int)getpid(), pidfd);
	snprintf(text, sizeof(text), "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nPid:\t1\n");
	cr_assert(!put_file(path, text), "fake fdinfo");
	r = mntsnap__pidfd_pid(proc, pidfd);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(pidfd);
	close(proc);
	cr_assert_eq(r, -EOPNOTSUPP, "the pid came from what covers the procfs: %d", r);
}

/* ---- "self" from inside the target ------------------------------------------- */

/*
 * mntsnap_ns_open_self names the calling thread's namespace through
 * /proc/thread-self/ns/mnt. From inside the target that is the target's
 * /proc, here a symlink to a decoy namespace's file (the test's own) and,
 * for the list, a FIFO: the handle must name the namespace the caller is
 * in, or fail, and nothing may block.
 */
static void self_entered_caller(void *arg)
{
	struct target *t = arg;
	struct mntsnap_ns_saved *saved = NULL;
	struct mntsnap_ns *ns = NULL, *self = NULL;
	char decoy[96];
	uint64_t id = 0;
	long long t0, dt;
	int r;

	CHECK(!mntsnap_ns_open_pid(t->pid, NULL, &ns), "open pid");
	CHECK(!mntsnap_ns_enter(ns, &saved), "enter");
	CHECK(!mkdir("/proc/thread-self/ns", 0755), "mkdir: %s", strerror(errno));
	snprintf(decoy, sizeof(decoy), BASE "/hostproc/%d/ns/mnt", (int)getppid());
	CHECK(!symlink(decoy, "/proc/thread-self/ns/mnt"), "symlink");
	V->tried++;
	t0 = now_ns();
	r = mntsnap_ns_open_self(NULL, &self);
	dt = now_ns() - t0;
	if (!r)
		id = mntsnap_ns_id(self);
	mntsnap_ns_free(self);
	CHECK(!mntsnap_ns_leave(saved), "leave");
	mntsnap_ns_free(ns);
	CHECK(dt < LIMIT_NS, "took %lld ms", dt / 1000000);
	CHECK(r || id == t->ns_id, "self names namespace %llu, the caller is in %llu",
	      (unsigned long long)id, (unsigned long long)t->ns_id);
	V->held++;
}

LTest(hostile, open_self_from_inside)
{
	against_target(K_LINK, self_entered_caller);
}
