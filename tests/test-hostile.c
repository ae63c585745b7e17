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
#include <poll.h>
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
#include "sys.h"

#define BASE "/tmp/mntsnap-test-hostile"
#define FAKE_TEXT "1 0 0:1 / / rw shared:1 - fakefs FAKE rw\n"
#define LIMIT_NS 1000000000LL /* "within 1 s" */
#define HANG_MS 8000          /* past this a child counts as hung and is killed */

enum kind { K_FAKE, K_LINK, K_FIFO, K_PIDNS };
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

/* ---- the caller ------------------------------------------------------------------ */

struct hctx {
	struct target *t;
	enum filt filt;
	uid_t uid;  /* the caller runs as this uid, without capabilities */
};

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
		r = mntsnap_ns_open_pidfd(pidfd, &ns);
		close(pidfd);
	} else {
		r = hk == 0   ? mntsnap_ns_open_pid(c->t->pid, &ns)
		    : hk == 1 ? mntsnap_ns_open_path(c->t->nspath, &ns)
			      : mntsnap_ns_open_id(c->t->ns_id, &ns);
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
		r = mntsnap_ns_open_path(not_ns[i], &ns);
		dt = now_ns() - t0;
		CHECK(r == -EINVAL && !ns, "open_path %s: %d", not_ns[i], r);
		CHECK(dt < LIMIT_NS, "open_path %s: took %lld ms", not_ns[i], dt / 1000000);
		/* an fd the caller already holds is asked no ioctl either */
		fd = open(not_ns[i], O_RDWR | O_NONBLOCK | O_CLOEXEC); /* O_RDWR: a FIFO opens */
		if (fd < 0)
			fd = open(not_ns[i], O_RDONLY | O_CLOEXEC);
		CHECK(fd >= 0, "open %s: %s", not_ns[i], strerror(errno));
		r = mntsnap_ns_open_fd(fd, &ns);
		CHECK(r == -EINVAL && !ns, "open_fd %s: %d", not_ns[i], r);
		r = mntsnap_ns_open_pidfd(fd, &ns);
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

	cr_assert_eq(mntsnap_ns_open_pid(0x7ffffff0, &ns), -ESRCH);
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
	cr_assert_eq(mntsnap_ns_open_pid(pid, &ns), 0);
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
	r = mntsnap_ns_open_pid(t->pid, &ns);
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
	struct target t;

#ifndef MS_HAVE_SECCOMP_HELPER
	cr_skip_test("raw BPF filter written for x86_64 only");
#endif
	ms_private_ns(BASE);
	target_start(&t, K_FAKE);
	in_child(no_host_proc_caller, &t, NULL);
	target_stop(&t);
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
	return mntsnap_sys_listmount(NULL, req, ids, nr, flags);
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
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, &ns), 0);
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .error = &e, .sysops = &sys,
		     .flags = MNTSNAP_CAPTURE_NS_ENTER);
	t0 = now_ns();
	r = mntsnap_capture(&o, &s);
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

static void run_rootless(enum kind kind, enum filt filt)
{
	struct target t;
	struct hctx c = { .t = &t, .filt = filt, .uid = NOBODY };

#ifndef MS_HAVE_SECCOMP_HELPER
	cr_skip_test("raw BPF filter written for x86_64 only");
#endif
	ms_private_ns(BASE);
	target_start_as(&t, kind, NOBODY);
	in_child(hostile_caller, &c, NULL);
	target_stop(&t);
}

LTest(hostile, rootless_fake_proc_files_enosys)
{
	run_rootless(K_FAKE, F_ENOSYS);
}

LTest(hostile, rootless_proc_fifo_eperm)
{
	run_rootless(K_FIFO, F_EPERM);
}
