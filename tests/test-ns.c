// SPDX-License-Identifier: MIT
/*
 * Target namespaces: handles, direct query vs helper vs mountinfo text,
 * threaded callers, dying and replaced targets, unprivileged callers,
 * symlinks that try to leave the target, fd/zombie hygiene. Every target
 * is a forked child in its own private mount namespace; the test process
 * itself first enters a private namespace too (ms_private_ns).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "backends.h"
#include "sys-seam.h"
#include "sys.h"

#define BASE "/tmp/mntsnap-ns-test"
#define HOST_SECRET BASE "/host/secret"

struct target {
	pid_t pid;
	int ctl; /* write end: closing it (or exit) ends the target */
};

static void die_child(const char *what)
{
	fprintf(stderr, "target: %s: %s\n", what, strerror(errno));
	_exit(1);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die_child(path);
	close(fd);
}

/*
 * The container: private mounts under BASE/t; with pivot, its own root
 * (a tmpfs) with a decoy at the host secret's path and symlinks trying to
 * reach the host's file.
 */
enum { PLAIN = 0, PIVOT = 1, CHROOT = 2, CHROOT_DIR = 3, PF = 4 };

/* pf_setup()'s tree; the PF target adds m3 (see pf_setup()) */
#define PFB BASE "-pf"

static void target_main(int ready, int ctl, int mode)
{
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (unshare(CLONE_NEWNS))
		die_child("unshare");
	/* PF keeps its copies of pf_setup()'s groups (everything else is
	 * private already: the test's namespace is) */
	if (mode == PF && (mount(PFB "/m2", PFB "/m3", NULL, MS_BIND, NULL) ||
			   mount(NULL, PFB "/m3", NULL, MS_SLAVE, NULL) ||
			   mount(NULL, PFB "/m2", NULL, MS_PRIVATE, NULL)))
		die_child("pf m3");
	if (mode != PF && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die_child("private /");
	ms_mkdir_p(BASE "/t");
	if (mount("nstarget", BASE "/t", "tmpfs", MS_NOSUID, "size=1m,mode=755"))
		die_child("tmpfs");
	ms_mkdir_p(BASE "/t/a");
	ms_mkdir_p(BASE "/t/b");
	if (mount("nsinner", BASE "/t/a", "tmpfs", MS_RDONLY | MS_NODEV, "size=64k"))
		die_child("inner");
	if (mount(BASE "/t/a", BASE "/t/b", NULL, MS_BIND, NULL))
		die_child("bind");
	write_file(BASE "/t/marker", "inside");
	if (mode != PLAIN && mode != PF) {
		ms_mkdir_p(BASE "/root");
		if (mount("nsroot", BASE "/root", "tmpfs", 0, "mode=755"))
			die_child("root tmpfs");
		ms_mkdir_p(BASE "/root/old");
		ms_mkdir_p(BASE "/root" BASE "/host");
		ms_mkdir_p(BASE "/root/x");
		if (mount("nsx", BASE "/root/x", "tmpfs", 0, "size=64k"))
			die_child("x tmpfs");
		write_file(BASE "/root/x/marker", "tree");
		write_file(BASE "/root" HOST_SECRET, "TARGET");
		if (symlink(HOST_SECRET, BASE "/root/abs") ||
		    symlink("../../../../../.." HOST_SECRET, BASE "/root/x/rel") ||
		    symlink("/proc/1/root" HOST_SECRET, BASE "/root/magic") ||
		    symlink("/nonexistent/secret", BASE "/root/dangling"))
			die_child("symlink");
	}
	if (mode == PIVOT) {
		if (syscall(SYS_pivot_root, BASE "/root", BASE "/root/old"))
			die_child("pivot_root");
		if (chdir("/") || umount2("/old", MNT_DETACH))
			die_child("detach old root");
	}
	/* a chroot()ed target: its root is a directory of its namespace */
	if (mode == CHROOT && (chroot(BASE "/root") || chdir("/")))
		die_child("chroot");
	/* ... a plain directory of a mount, with a mount below it */
	if (mode == CHROOT_DIR) {
		ms_mkdir_p(BASE "/root/x/d/m");
		if (mount("dm", BASE "/root/x/d/m", "tmpfs", 0, "size=64k"))
			die_child("d/m tmpfs");
		if (chroot(BASE "/root/x/d") || chdir("/"))
			die_child("chroot");
	}
	if (write(ready, "k", 1) != 1)
		_exit(1);
	close(ready);
	/* live until the test closes ctl or dies */
	while (read(ctl, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static struct target target_start(int mode)
{
	int rp[2], cp[2];
	struct target t;
	char c;

	cr_assert_eq(pipe2(rp, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(cp, O_CLOEXEC), 0);
	t.pid = fork();
	cr_assert(t.pid >= 0);
	if (t.pid == 0) {
		close(rp[0]);
		close(cp[1]);
		target_main(rp[1], cp[0], mode);
	}
	close(rp[1]);
	close(cp[0]);
	cr_assert_eq(read(rp[0], &c, 1), 1, "target did not start");
	close(rp[0]);
	t.ctl = cp[1];
	return t;
}

static void target_stop(struct target *t)
{
	if (t->ctl >= 0)
		close(t->ctl);
	t->ctl = -1;
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
	t->pid = 0;
}

static struct mntsnap_snapshot *cap(const struct mntsnap_ns *ns, int backend, uint32_t flags,
				    int *ret)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = backend, .flags = flags, .ns = ns,
		     .error = &err);
	int r = mntsnap_capture(&o, &s);

	if (ret) {
		*ret = r;
		return s;
	}
	cr_assert_eq(r, 0, "capture: %s (%s)", strerror(-r), err.msg);
	return s;
}

static char *mountinfo_of(const struct mntsnap_snapshot *s)
{
	return ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
}

/* Zombie children of this process (state Z in /proc/PID/stat). */
static int count_zombies(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	cr_assert(d);
	while ((e = readdir(d))) {
		char path[300], buf[512], st;
		int ppid, fd;
		ssize_t len;
		char *p;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %c %d", &st, &ppid) == 2 && ppid == getpid() && st == 'Z')
			n++;
	}
	closedir(d);
	return n;
}

/* The three ways agree with the kernel's text and differ from ours. */
static void assert_three_ways(const struct target *t)
{
	struct mntsnap_snapshot *direct, *enter, *text, *own;
	struct mntsnap_ns *ns;
	char path[64], *want, *gd, *ge, *gt, *go;

	cr_assert_eq(mntsnap_ns_open_pid(t->pid, NULL, &ns), 0);
	direct = cap(ns, MNTSNAP_BACKEND_AUTO, MNTSNAP_CAPTURE_NS_DIRECT, NULL);
	enter = cap(ns, MNTSNAP_BACKEND_AUTO, MNTSNAP_CAPTURE_NS_ENTER, NULL);
	text = cap(ns, MNTSNAP_BACKEND_MOUNTINFO, 0, NULL);
	own = cap(NULL, MNTSNAP_BACKEND_AUTO, 0, NULL);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", t->pid);
	want = ms_read_file(path, NULL);
	gd = mountinfo_of(direct);
	ge = mountinfo_of(enter);
	gt = mountinfo_of(text);
	go = mountinfo_of(own);
	ms_assert_text_eq(gd, want, "direct query vs /proc/CHILD/mountinfo");
	ms_assert_text_eq(ge, want, "helper vs /proc/CHILD/mountinfo");
	ms_assert_text_eq(gt, want, "mountinfo backend vs /proc/CHILD/mountinfo");
	cr_assert(strstr(gd, " nstarget "), "target's tmpfs missing");
	cr_assert(strcmp(go, gd), "own table equals the target's");
	cr_assert_neq(mntsnap_ns_id(ns), 0);
	cr_assert_eq(mntsnap_snapshot_ns_id(direct), mntsnap_ns_id(ns));
	cr_assert_eq(mntsnap_snapshot_ns_id(enter), mntsnap_ns_id(ns));
	cr_assert_eq(mntsnap_snapshot_ns_id(text), mntsnap_ns_id(ns));
	cr_assert_neq(mntsnap_snapshot_ns_id(own), mntsnap_ns_id(ns));
	cr_assert_eq(mntsnap_snapshot_count(direct), mntsnap_snapshot_count(enter));
	for (size_t i = 0; i < mntsnap_snapshot_count(direct); i++) {
		struct mntsnap_mount a, b;

		mntsnap_snapshot_get(direct, i, &a);
		mntsnap_snapshot_get(enter, i, &b);
		cr_assert_eq(a.id, b.id, "unique ids differ at %zu", i);
		cr_assert_eq(a.ns_id, b.ns_id);
	}
	free(want);
	free(gd);
	free(ge);
	free(gt);
	free(go);
	mntsnap_snapshot_free(direct);
	mntsnap_snapshot_free(enter);
	mntsnap_snapshot_free(text);
	mntsnap_snapshot_free(own);
	mntsnap_ns_free(ns);
}

Test(ns, equal_three_ways)
{
	struct target t;
	int fds, z;

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	fds = ms_count_fds();
	z = count_zombies();
	assert_three_ways(&t);
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(count_zombies(), z, "zombie left");
	target_stop(&t);
}

static atomic_bool stop_threads;

static void *spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_threads))
		usleep(1000);
	return NULL;
}

Test(ns, eight_threads)
{
	struct mntsnap_ns_saved *saved;
	struct mntsnap_ns *ns;
	pthread_t tid[8];
	struct target t;

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(pthread_create(&tid[i], NULL, spin, NULL), 0);
	assert_three_ways(&t);
	/* the plain setns path must refuse: the fs_struct is shared */
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	cr_assert_eq(mntsnap_ns_enter(ns, &saved), -EINVAL);
	mntsnap_ns_free(ns);
	atomic_store(&stop_threads, true);
	for (int i = 0; i < 8; i++)
		pthread_join(tid[i], NULL);
	target_stop(&t);
}

/* ---- dying targets --------------------------------------------------------- */

struct kill_ctx {
	pid_t victim;
	int calls;
};

static long kill_on_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, uint64_t *ids, size_t nr,
			      unsigned flags)
{
	struct kill_ctx *k = ctx;

	if (k->calls++ == 1) { /* after the route probe, during the capture */
		kill(k->victim, SIGKILL);
		waitpid(k->victim, NULL, 0);
	}
	return mntsnap__sys_listmount(NULL, req, ids, nr, flags);
}

static int snapshot_count_ok(struct mntsnap_snapshot *s)
{
	return s && mntsnap_snapshot_count(s) > 1;
}

/*
 * The target dies between listmount pages/statmount calls. The nsfd the
 * handle holds keeps the namespace (and its mounts) alive, so the capture
 * in flight completes; from then on the pid handle says ESRCH, while a
 * handle from the namespace file keeps working. Same through the helper
 * (the seam runs inside it: CLONE_VM).
 */
static void exits_mid(uint32_t flags)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_ns *byp, *byf;
	struct kill_ctx k;
	struct target t;
	char path[64];
	int fds, r;

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	fds = ms_count_fds();
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &byp), 0);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", t.pid);
	cr_assert_eq(mntsnap_ns_open_path(path, NULL, &byf), 0);
	k = (struct kill_ctx){ .victim = t.pid };
	struct mntsnap_sysops sys = { .listmount = kill_on_listmount, .ctx = &k };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = byp, .flags = flags);
	r = mntsnap__capture_with(&o, &sys, &s);
	cr_assert(k.calls >= 2, "the seam was not reached (%d)", k.calls);
	cr_assert(r == 0 || r == -ESRCH, "capture while dying: %s", strerror(-r));
	if (!r)
		cr_assert(snapshot_count_ok(s));
	mntsnap_snapshot_free(s);
	s = NULL;
	/* inside the helper the seam cannot reap it (not its child): do it here */
	waitpid(t.pid, NULL, 0);
	t.pid = 0;
	cr_assert_eq(mntsnap_ns_alive(byp), -ESRCH);
	cr_assert_eq(cap(byp, MNTSNAP_BACKEND_AUTO, flags, &r), NULL);
	cr_assert_eq(r, -ESRCH);
	s = cap(byf, MNTSNAP_BACKEND_AUTO, flags, NULL);
	cr_assert(snapshot_count_ok(s));
	cr_assert_eq(mntsnap_snapshot_ns_id(s), mntsnap_ns_id(byf));
	mntsnap_snapshot_free(s);
	mntsnap_ns_free(byp);
	mntsnap_ns_free(byf);
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(count_zombies(), 0, "zombie left");
	target_stop(&t);
}

Test(ns, target_exits_mid_direct)
{
	exits_mid(MNTSNAP_CAPTURE_NS_DIRECT);
}

Test(ns, target_exits_mid_helper)
{
	exits_mid(MNTSNAP_CAPTURE_NS_ENTER);
}

static int slow_fn(void *data, void **ret_buf, size_t *ret_len)
{
	(void)data;
	(void)ret_buf;
	(void)ret_len;
	sleep(20);
	return 0;
}

/* A helper stuck inside the target is killed at the timeout and reaped. */
Test(ns, helper_timeout_no_hang)
{
	struct mntsnap_error err = { 0 };
	struct timespec a, b;
	struct mntsnap_ns *ns;
	struct target t;
	void *buf = NULL;
	size_t len = 0;
	int fds;

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	fds = ms_count_fds();
	MNTSNAP_OPTS(mntsnap_ns_opts, o, .timeout_ms = 300, .error = &err);
	clock_gettime(CLOCK_MONOTONIC, &a);
	cr_assert_eq(mntsnap_ns_run(ns, slow_fn, NULL, &o, &buf, &len), -ETIMEDOUT, "%s",
		     err.msg);
	clock_gettime(CLOCK_MONOTONIC, &b);
	cr_assert_lt(b.tv_sec - a.tv_sec, 5, "timeout not honoured");
	/* says it was the helper, where it was and what killed it */
	cr_assert(strstr(err.msg, "helper process, inside the target namespace: killed by its "
				  "300 ms timeout"),
		  "%s", err.msg);
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(count_zombies(), 0, "zombie left");
	/* the caller stays dumpable after the helper set it 0 on the shared mm */
	cr_assert_eq(prctl(PR_GET_DUMPABLE), 1);
	mntsnap_ns_free(ns);
	target_stop(&t);
}

/*
 * A pid whose process was replaced: reuse the pid on purpose through
 * ns_last_pid; the handle must keep naming the dead process (ESRCH), never
 * the newcomer.
 */
Test(ns, pid_replaced)
{
	struct mntsnap_ns *ns, *again;
	struct target t;
	pid_t old, got = 0, nb;
	int fd;

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	old = t.pid;
	cr_assert_eq(mntsnap_ns_open_pid(old, NULL, &ns), 0);
	target_stop(&t);
	for (int tries = 0; tries < 50 && got != old; tries++) {
		char num[32];

		fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			cr_skip_test("ns_last_pid: %s", strerror(errno));
		snprintf(num, sizeof(num), "%d", old - 1);
		cr_assert_gt(write(fd, num, strlen(num)), 0);
		close(fd);
		nb = fork();
		if (nb == 0) {
			/* a failed assertion must not leave it holding our pipes */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pause();
			_exit(0);
		}
		if (nb == old) {
			got = nb;
			break;
		}
		kill(nb, SIGKILL);
		waitpid(nb, NULL, 0);
	}
	if (got != old)
		cr_skip_test("could not recycle pid %d", old);
	cr_assert_eq(mntsnap_ns_alive(ns), -ESRCH);
	int r;
	cr_assert_null(cap(ns, MNTSNAP_BACKEND_AUTO, 0, &r));
	cr_assert_eq(r, -ESRCH);
	cr_assert_null(cap(ns, MNTSNAP_BACKEND_MOUNTINFO, 0, &r));
	cr_assert_eq(r, -ESRCH);
	/* the newcomer lives in our namespace, the handle named another */
	cr_assert_eq(mntsnap_ns_open_pid(got, NULL, &again), 0);
	cr_assert_neq(mntsnap_ns_id(again), mntsnap_ns_id(ns));
	mntsnap_ns_free(again);
	mntsnap_ns_free(ns);
	kill(got, SIGKILL);
	waitpid(got, NULL, 0);
}

Test(ns, bad_handles)
{
	struct mntsnap_error err = { 0 };
	struct mntsnap_ns *ns = NULL;
	int fds = ms_count_fds(), fd, pidfd;

	fd = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0);
	cr_assert_eq(mntsnap_ns_open_fd(fd, NULL, &ns), -EINVAL);
	close(fd);
	cr_assert_eq(mntsnap_ns_open_path("/proc/self/stat", NULL, &ns), -EINVAL);
	cr_assert_eq(mntsnap_ns_open_path("/proc/self/ns/net", NULL, &ns), -EINVAL);
	cr_assert_eq(mntsnap_ns_open_path("/nonexistent/ns", NULL, &ns), -ENOENT);
	pidfd = (int)syscall(434 /* pidfd_open */, getpid(), 0);
	cr_assert(pidfd >= 0);
	cr_assert_eq(mntsnap_ns_open_fd(pidfd, NULL, &ns), -EINVAL);
	close(pidfd);
	cr_assert_eq(mntsnap_ns_open_pid(0x7ffffff0, NULL, &ns), -ESRCH);
	cr_assert_eq(mntsnap_ns_open_id(0, NULL, &ns), -EINVAL);
	cr_assert_null(ns);
	cr_assert_eq(mntsnap_ns_explain(-ESRCH, "open --pid 7", &err), -ESRCH);
	/* pidfd_open() cannot tell "gone" from "never was": the text must not guess */
	cr_assert(strstr(err.msg, "no such process"), "%s", err.msg);
	cr_assert_null(strstr(err.msg, "has exited"), "%s", err.msg);
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
}

/* ---- unprivileged callers ---------------------------------------------------- */

static void drop_all_caps(void)
{
	struct {
		uint32_t version;
		int pid;
	} h = { 0x20080522, 0 };
	uint32_t d[6] = { 0 };

	if (syscall(SYS_capset, &h, d))
		_exit(90);
}

#define CHILD_CHECK(cond, code)                                                                \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "child check %d failed: %s\n", code, #cond);           \
			_exit(code);                                                           \
		}                                                                              \
	} while (0)

/*
 * Run fn(arg) in a forked child and fail the test unless the child reaches
 * its _exit(0): checks that drop capabilities or switch namespaces must not
 * change the test process, so fn reports failure with CHILD_CHECK's exit
 * code instead of cr_assert (whose report would not reach the runner).
 */
static void run_child(void (*fn)(void *), void *arg, const char *what)
{
	int status;
	pid_t c;

	c = fork();
	cr_assert(c >= 0);
	if (c == 0) {
		fn(arg);
		_exit(0);
	}
	cr_assert_eq(waitpid(c, &status, 0), c);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s child: status %d", what,
		  WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
}

struct unpriv_handles {
	struct mntsnap_ns *byfd, *byid;
};

static void unprivileged_checks(void *arg)
{
	const struct unpriv_handles *h = arg;
	struct mntsnap_error err = { 0 };
	struct mntsnap_snapshot *s = NULL, *one = NULL;
	struct mntsnap_ns_saved *saved;
	struct mntsnap_mount m;
	int r;

	drop_all_caps();
	/* the fd is the permission: direct query works */
	s = cap(h->byfd, MNTSNAP_BACKEND_AUTO, MNTSNAP_CAPTURE_NS_DIRECT, &r);
	CHILD_CHECK(r == 0 && snapshot_count_ok(s), 10);
	mntsnap_snapshot_get(s, mntsnap_snapshot_count(s) - 1, &m);
	/* by id: statmount EPERM, capture EPERM with the capability named */
	CHILD_CHECK(mntsnap_stat_id(h->byid, m.id, 0, &one) == -EPERM, 11);
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = h->byid, .flags = MNTSNAP_CAPTURE_NS_DIRECT,
		     .error = &err);
	r = mntsnap_capture(&o, &one);
	CHILD_CHECK(r == -EPERM, 12);
	CHILD_CHECK(strstr(err.msg, "CAP_SYS_ADMIN") != NULL, 13);
	/* entering: setns EPERM, helper and in-place alike */
	memset(&err, 0, sizeof(err));
	MNTSNAP_OPTS(mntsnap_capture_opts, e, .ns = h->byfd, .flags = MNTSNAP_CAPTURE_NS_ENTER,
		     .error = &err);
	r = mntsnap_capture(&e, &one);
	CHILD_CHECK(r == -EPERM, 14);
	CHILD_CHECK(strstr(err.msg, "CAP_SYS_CHROOT") != NULL, 15);
	CHILD_CHECK(mntsnap_ns_enter(h->byfd, &saved) == -EPERM, 16);
	mntsnap_snapshot_free(s);
}

Test(ns, unprivileged_caller)
{
	struct unpriv_handles h;
	struct target t;
	char path[64];

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", t.pid);
	cr_assert_eq(mntsnap_ns_open_path(path, NULL, &h.byfd), 0);
	cr_assert_eq(mntsnap_ns_open_id(mntsnap_ns_id(h.byfd), NULL, &h.byid), 0);
	run_child(unprivileged_checks, &h, "unprivileged");
	mntsnap_ns_free(h.byfd);
	mntsnap_ns_free(h.byid);
	target_stop(&t);
}

/* ---- propagate_from of another namespace ------------------------------------- */

/*
 * m shared (group A); m2 a bind of it made a slave of A and shared again
 * (group B). The PF target (target_main) binds m2 on m3, makes m3 a slave
 * of B and takes its copy of m2 out of B: B has no mount in the target's
 * namespace, so the kernel's dominating group of m3 seen from the target's
 * root is A, and its mountinfo says "master:B propagate_from:A". statmount
 * asked from here (by mnt_ns_fd or mnt_ns_id) looks for a member of B or A
 * reachable from this root, finds none in that namespace and says none.
 */
static void pf_setup(void)
{
	ms_mkdir_p(PFB);
	cr_assert_eq(mount("pfb", PFB, "tmpfs", 0, "mode=755"), 0, "%s", strerror(errno));
	ms_mkdir_p(PFB "/m");
	ms_mkdir_p(PFB "/m2");
	ms_mkdir_p(PFB "/m3");
	cr_assert_eq(mount("pfm", PFB "/m", "tmpfs", 0, "size=64k"), 0);
	cr_assert_eq(mount(NULL, PFB "/m", NULL, MS_SHARED, NULL), 0);
	cr_assert_eq(mount(PFB "/m", PFB "/m2", NULL, MS_BIND, NULL), 0);
	cr_assert_eq(mount(NULL, PFB "/m2", NULL, MS_SLAVE, NULL), 0);
	cr_assert_eq(mount(NULL, PFB "/m2", NULL, MS_SHARED, NULL), 0);
}

/* m3's propagate_from in the target's own mountinfo (the premise: one). */
static uint32_t pf_of_m3(pid_t pid)
{
	char path[64], *text, *line, *pf;
	unsigned v = 0;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	text = ms_read_file(path, NULL);
	line = strstr(text, " " PFB "/m3 ");
	cr_assert_not_null(line, "no m3 in %s", text);
	pf = strstr(line, " propagate_from:");
	cr_assert(pf && pf < strchrnul(line, '\n') && sscanf(pf, " propagate_from:%u", &v) == 1,
		  "the setup gives m3 no propagate_from: %s", text);
	free(text);
	return v;
}

/* The record of m3 in s, or -1. */
static long find_m3(const struct mntsnap_snapshot *s, struct mntsnap_mount *m)
{
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++)
		if (!mntsnap_snapshot_get(s, i, m) && m->mount_point &&
		    !strcmp(m->mount_point, PFB "/m3"))
			return (long)i;
	return -1;
}

/* Every route says what the target's mountinfo says, byte for byte. */
Test(ns, propagate_from_of_another_namespace)
{
	static const uint32_t flags[] = { 0, MNTSNAP_CAPTURE_NS_DIRECT, MNTSNAP_CAPTURE_NS_ENTER };
	struct mntsnap_ns *byp, *byf;
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	char path[64], *want, *got;
	struct target t;
	uint32_t pf;

	ms_private_ns(NULL);
	pf_setup();
	t = target_start(PF);
	pf = pf_of_m3(t.pid);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", t.pid);
	want = ms_read_file(path, NULL);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &byp), 0);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", t.pid);
	cr_assert_eq(mntsnap_ns_open_path(path, NULL, &byf), 0);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		/* a namespace handle forced direct may not enter for the text */
		const struct mntsnap_ns *hs[] = { byp, flags[i] & MNTSNAP_CAPTURE_NS_DIRECT ? byp : byf };

		for (size_t h = 0; h < 2; h++) {
			s = cap(hs[h], MNTSNAP_BACKEND_AUTO, flags[i], NULL);
			got = mountinfo_of(s);
			ms_assert_text_eq(got, want, flags[i] == MNTSNAP_CAPTURE_NS_DIRECT ?
				"direct vs /proc/CHILD/mountinfo" : flags[i] ?
				"helper vs /proc/CHILD/mountinfo" : "auto vs /proc/CHILD/mountinfo");
			free(got);
			mntsnap_snapshot_free(s);
		}
	}
	/* one mount, by a pid and by a namespace handle */
	s = cap(byp, MNTSNAP_BACKEND_AUTO, MNTSNAP_CAPTURE_NS_DIRECT, NULL);
	cr_assert_geq(find_m3(s, &m), 0);
	for (int h = 0; h < 2; h++) {
		struct mntsnap_snapshot *one = NULL;
		struct mntsnap_mount o;

		cr_assert_eq(mntsnap_stat_id(h ? byf : byp, m.id, 0, &one), 0);
		cr_assert_eq(mntsnap_snapshot_get(one, 0, &o), 0);
		cr_assert(o.mask & MNTSNAP_F_PROPAGATE_FROM, "stat %s: no propagate_from",
			  h ? "ns" : "pid");
		cr_assert_eq(o.propagate_from, pf, "stat %s: propagate_from %u, mountinfo %u",
			     h ? "ns" : "pid", o.propagate_from, pf);
		mntsnap_snapshot_free(one);
	}
	mntsnap_snapshot_free(s);
	free(want);
	mntsnap_ns_free(byp);
	mntsnap_ns_free(byf);
	target_stop(&t);
}

/*
 * A namespace handle forced direct: statmount from here has no answer and
 * the text needs a helper inside, which NS_DIRECT forbids: absent, never
 * the "none" that statmount asked from here says.
 */
Test(ns, propagate_from_direct_only_is_absent)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	struct mntsnap_ns *byf;
	struct target t;
	char path[64];

	ms_private_ns(NULL);
	pf_setup();
	t = target_start(PF);
	(void)pf_of_m3(t.pid);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", t.pid);
	cr_assert_eq(mntsnap_ns_open_path(path, NULL, &byf), 0);
	s = cap(byf, MNTSNAP_BACKEND_AUTO, MNTSNAP_CAPTURE_NS_DIRECT, NULL);
	cr_assert_geq(find_m3(s, &m), 0);
	cr_assert_eq(m.mask & MNTSNAP_F_PROPAGATE_FROM, 0, "propagate_from %u", m.propagate_from);
	mntsnap_snapshot_free(s);
	mntsnap_ns_free(byf);
	target_stop(&t);
}

/*
 * The target's text cannot be had (no right to enter for a helper's
 * text): statmount's capture stands, propagate_from is absent.
 */
static void text_unreadable_checks(void *arg)
{
	struct mntsnap_ns *byf = arg;
	struct mntsnap_snapshot *s, *one = NULL;
	struct mntsnap_mount m;
	char *text;
	int r;

	drop_all_caps();
	s = cap(byf, MNTSNAP_BACKEND_AUTO, 0, &r);
	CHILD_CHECK(r == 0 && snapshot_count_ok(s), 20);
	CHILD_CHECK(find_m3(s, &m) >= 0, 21);
	CHILD_CHECK(!(m.mask & MNTSNAP_F_PROPAGATE_FROM), 22);
	text = mountinfo_of(s);
	CHILD_CHECK(!strstr(text, "propagate_from"), 23);
	free(text);
	r = mntsnap_stat_id(byf, m.id, 0, &one);
	CHILD_CHECK(r == 0, 24);
	CHILD_CHECK(!mntsnap_snapshot_get(one, 0, &m) && !(m.mask & MNTSNAP_F_PROPAGATE_FROM), 25);
	mntsnap_snapshot_free(one);
	mntsnap_snapshot_free(s);
}

Test(ns, propagate_from_text_unreadable)
{
	struct mntsnap_ns *byf;
	struct target t;
	char path[64];

	ms_private_ns(NULL);
	pf_setup();
	t = target_start(PF);
	(void)pf_of_m3(t.pid);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", t.pid);
	cr_assert_eq(mntsnap_ns_open_path(path, NULL, &byf), 0);
	run_child(text_unreadable_checks, byf, "unprivileged");
	mntsnap_ns_free(byf);
	target_stop(&t);
}

static long zombify_on_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, uint64_t *ids,
				 size_t nr, unsigned flags)
{
	struct kill_ctx *k = ctx;

	if (k->calls++ == 1) { /* during the capture; not reaped: its text is gone */
		siginfo_t si;

		kill(k->victim, SIGKILL);
		waitid(P_PID, (id_t)k->victim, &si, WEXITED | WNOWAIT);
	}
	return mntsnap__sys_listmount(NULL, req, ids, nr, flags);
}

/*
 * The target dies during a direct capture, before its text is read: the
 * capture stands or says ESRCH, and propagate_from is never the "none"
 * statmount says from here.
 */
Test(ns, propagate_from_target_dies_mid_capture)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_mount m;
	struct mntsnap_ns *byp;
	struct kill_ctx k;
	struct target t;
	uint32_t pf;
	int r;

	ms_private_ns(NULL);
	pf_setup();
	t = target_start(PF);
	pf = pf_of_m3(t.pid);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &byp), 0);
	k = (struct kill_ctx){ .victim = t.pid };
	struct mntsnap_sysops sys = { .listmount = zombify_on_listmount, .ctx = &k };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = byp, .flags = MNTSNAP_CAPTURE_NS_DIRECT);
	r = mntsnap__capture_with(&o, &sys, &s);
	cr_assert(k.calls >= 2, "the seam was not reached (%d)", k.calls);
	cr_assert(r == 0 || r == -ESRCH, "capture while dying: %s", strerror(-r));
	if (!r) {
		cr_assert_geq(find_m3(s, &m), 0);
		cr_assert(!(m.mask & MNTSNAP_F_PROPAGATE_FROM) || m.propagate_from == pf,
			  "propagate_from %u, the target's was %u", m.propagate_from, pf);
	}
	mntsnap_snapshot_free(s);
	mntsnap_ns_free(byp);
	target_stop(&t);
}

/* ---- opening inside the target ------------------------------------------------ */

static char *read_fd(int fd)
{
	static char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	cr_assert(n >= 0, "read: %s", strerror(errno));
	buf[n] = '\0';
	return buf;
}

static void symlinks_stay_inside(int mode)
{
	struct mntsnap_ns *ns;
	struct stat hs, st;
	struct target t;
	int fd, fds;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/host");
	{
		int h = open(HOST_SECRET, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

		cr_assert(h >= 0);
		cr_assert_eq(write(h, "HOST", 4), 4);
		close(h);
	}
	cr_assert_eq(stat(HOST_SECRET, &hs), 0);
	t = target_start(mode);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	fds = ms_count_fds();
	/* an absolute symlink resolves against the target's root */
	cr_assert_eq(mntsnap_ns_open_file(ns, "/abs", O_RDONLY, 0, NULL, &fd), 0);
	cr_assert_str_eq(read_fd(fd), "TARGET");
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert(st.st_ino != hs.st_ino || st.st_dev != hs.st_dev);
	close(fd);
	/* ".." cannot climb above the target's root */
	cr_assert_eq(mntsnap_ns_open_file(ns, "x/rel", O_RDONLY, 0, NULL, &fd), 0);
	cr_assert_str_eq(read_fd(fd), "TARGET");
	close(fd);
	cr_assert_eq(mntsnap_ns_open_file(ns, "../../../../.." HOST_SECRET, O_RDONLY, 0, NULL, &fd),
		     0);
	cr_assert_str_eq(read_fd(fd), "TARGET");
	close(fd);
	/* no magic links (/proc/PID/root), nothing dangling found on the host */
	cr_assert_lt(mntsnap_ns_open_file(ns, "/magic", O_RDONLY, 0, NULL, &fd), 0);
	{
		int r = mntsnap_ns_open_file(ns, "/dangling", O_RDONLY, 0, NULL, &fd);

		cr_assert_eq(r, -ENOENT, "dangling: %s", strerror(-r));
	}
	/* the file lives in the target, O_CLOEXEC is set */
	cr_assert_eq(mntsnap_ns_open_file(ns, "/x/marker", O_RDONLY, 0, NULL, &fd), 0);
	cr_assert_str_eq(read_fd(fd), "tree");
	cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(count_zombies(), 0);
	mntsnap_ns_free(ns);
	target_stop(&t);
}

/* pivot_root()ed target: the namespace root is the container's root */
Test(ns, symlinks_cannot_reach_host)
{
	symlinks_stay_inside(PIVOT);
}

/*
 * chroot()ed target: the namespace root is the host's, so only resolving
 * from the process's root with RESOLVE_IN_ROOT keeps "/abs" inside.
 */
Test(ns, symlinks_cannot_reach_host_chroot)
{
	symlinks_stay_inside(CHROOT);
}

/* The text of a capture of ns with backend and flags; it must work. */
static char *capture_render(const struct mntsnap_ns *ns, int backend, uint32_t flags)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .backend = backend, .flags = flags,
		     .error = &err);
	int r = mntsnap_capture(&o, &s);
	char *text;

	cr_assert_eq(r, 0, "capture (backend %d, flags %#x): %s (%s)", backend, flags,
		     strerror(-r), err.msg);
	text = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	mntsnap_snapshot_free(s);
	return text;
}

/*
 * A chroot()ed process (its root a mount point, a mount below it, others
 * beside it): a pid target is that process's view, byte for byte its
 * /proc/PID/mountinfo, whichever route reads it; the namespace itself
 * (--ns) stays whole. The same for a root that is a plain directory: the
 * mount it is on is then not shown either.
 */
static void chroot_view(int mode)
{
	struct mntsnap_ns *ns, *whole;
	struct target t;
	char path[64], *want, *got;
	static const uint32_t flags[] = { 0, MNTSNAP_CAPTURE_NS_DIRECT, MNTSNAP_CAPTURE_NS_ENTER };

	t = target_start(mode);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)t.pid);
	want = ms_read_file(path, NULL);
	if (mode == CHROOT)
		cr_assert(strstr(want, " / / ") && strstr(want, " / /x ") &&
				  !strstr(want, BASE "/t"),
			  "the kernel's view of the chroot:\n%s", want);
	else
		cr_assert(!strstr(want, " / / ") && strstr(want, " / /m ") &&
				  !strstr(want, " nsx "),
			  "the kernel's view of the chroot:\n%s", want);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		got = capture_render(ns, MNTSNAP_BACKEND_AUTO, flags[i]);
		ms_assert_text_eq(got, want, flags[i] == MNTSNAP_CAPTURE_NS_ENTER
						     ? "pid target, entering"
						     : "pid target, statmount");
		free(got);
	}
	got = capture_render(ns, MNTSNAP_BACKEND_STATMOUNT, 0);
	ms_assert_text_eq(got, want, "pid target, --backend statmount");
	free(got);
	got = capture_render(ns, MNTSNAP_BACKEND_MOUNTINFO, 0);
	ms_assert_text_eq(got, want, "pid target, --backend mountinfo");
	free(got);
	/* one mount by path, as the process names it: its mount point too */
	{
		const char *p = mode == CHROOT ? "/x" : "/m";
		struct mntsnap_snapshot *one = NULL;
		struct mntsnap_mount m;

		cr_assert_eq(mntsnap_ns_stat_path(ns, p, 0, &one), 0);
		mntsnap_snapshot_get(one, 0, &m);
		cr_assert_str_eq(m.mount_point, p);
		mntsnap_snapshot_free(one);
	}
	/*
	 * its root a plain directory of nsx, which its table lacks: "/" is
	 * on no mount of it (findmnt -N PID -T / finds nothing), never nsx
	 * named by our path
	 */
	if (mode == CHROOT_DIR) {
		struct mntsnap_snapshot *one = NULL;

		cr_assert_eq(mntsnap_ns_stat_path(ns, "/", 0, &one), -EXDEV);
		cr_assert_null(one);
	}
	/* the namespace: everything, relative to its root */
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)t.pid);
	cr_assert_eq(mntsnap_ns_open_path(path, NULL, &whole), 0);
	got = capture_render(whole, MNTSNAP_BACKEND_AUTO, 0);
	cr_assert(strstr(got, " " BASE "/t ") && strstr(got, " " BASE "/root/x "), "%s", got);
	free(got);
	mntsnap_ns_free(whole);
	free(want);
	mntsnap_ns_free(ns);
	target_stop(&t);
}

Test(ns, pid_target_is_the_process_view_chroot)
{
	chroot_view(CHROOT);
}

Test(ns, pid_target_is_the_process_view_chroot_dir)
{
	chroot_view(CHROOT_DIR);
}

/*
 * The caller itself chroot()ed into a plain directory of a tmpfs (child
 * process, own mount namespace): its table is what its root reaches. A
 * path on the tmpfs ("/") is on no mount of it; a mount below is named
 * from the root; a task not chrooted (a grandchild) names its mounts from
 * its own root, those outside ours included (read from its
 * /proc/PID/mountinfo, so the chroot has a procfs). Exit status: the
 * failed step.
 */
static int chrooted_caller_main(void)
{
	struct mntsnap_snapshot *one = NULL;
	struct mntsnap_ns *ns = NULL;
	struct mntsnap_mount m;
	pid_t task;
	int r;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 10;
	ms_mkdir_p(BASE "/cr");
	if (mount("crtop", BASE "/cr", "tmpfs", 0, "mode=755"))
		return 11;
	ms_mkdir_p(BASE "/cr/sub/m");
	ms_mkdir_p(BASE "/cr/out");
	/* a procfs in the chroot: the task's text, as findmnt -N reads it */
	ms_mkdir_p(BASE "/cr/sub/proc");
	if (mount("proc", BASE "/cr/sub/proc", "proc", 0, NULL) ||
	    mount("crm", BASE "/cr/sub/m", "tmpfs", 0, "size=64k") ||
	    mount("crout", BASE "/cr/out", "tmpfs", 0, "size=64k"))
		return 12;
	task = fork();
	if (task < 0)
		return 13;
	if (!task) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	r = 20;
	if (chroot(BASE "/cr/sub") || chdir("/"))
		goto out;
	r = 21;
	if (mntsnap_stat_path("/", 0, &one) != -EXDEV || one)
		goto out;
	r = 22;
	if (mntsnap_stat_path("/m", 0, &one))
		goto out;
	/* m's strings live in the snapshot: compared before it is freed */
	mntsnap_snapshot_get(one, 0, &m);
	r = strcmp(m.mount_point, "/m") ? 23 : 0;
	mntsnap_snapshot_free(one);
	one = NULL;
	if (r)
		goto out;
	/* the task's view: its root is the namespace's */
	r = 24;
	if (mntsnap_ns_open_pid(task, NULL, &ns))
		goto out;
	r = 25;
	if (mntsnap_ns_stat_path(ns, BASE "/cr/out", 0, &one))
		goto out;
	mntsnap_snapshot_get(one, 0, &m);
	r = strcmp(m.mount_point, BASE "/cr/out") ? 26 : 0;
	mntsnap_snapshot_free(one);
	one = NULL;
	if (!r && mntsnap_ns_stat_path(ns, BASE "/cr/sub/m", 0, &one))
		r = 27;
	if (!r) {
		mntsnap_snapshot_get(one, 0, &m);
		r = strcmp(m.mount_point, BASE "/cr/sub/m") ? 28 : 0;
	}
	mntsnap_snapshot_free(one);
out:
	mntsnap_ns_free(ns);
	kill(task, SIGKILL);
	waitpid(task, NULL, 0);
	return r;
}

Test(ns, chrooted_caller_stat)
{
	pid_t pid = fork();
	int st;

	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(chrooted_caller_main());
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && !WEXITSTATUS(st), "chrooted caller: step %d failed",
		  WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

#ifdef MS_HAVE_SECCOMP_HELPER
/*
 * statmount and listmount blocked (a seccomp filter the helper inherits):
 * the helper inside could only read its own text, from the namespace's
 * root; the chrooted process's own text is what a pid target reads.
 */
Test(ns, pid_target_chroot_without_statmount)
{
	struct mntsnap_ns *ns;
	struct target t;
	char path[64], *want, *got;

	t = target_start(CHROOT);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	cr_assert_eq(ms_block_mount_syscalls(true, true, ENOSYS), 0);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)t.pid);
	want = ms_read_file(path, NULL);
	got = capture_render(ns, MNTSNAP_BACKEND_AUTO, 0);
	ms_assert_text_eq(got, want, "pid target, no statmount");
	free(got);
	got = capture_render(ns, MNTSNAP_BACKEND_AUTO, MNTSNAP_CAPTURE_NS_ENTER);
	ms_assert_text_eq(got, want, "pid target, no statmount, entering");
	free(got);
	free(want);
	mntsnap_ns_free(ns);
	target_stop(&t);
}
#endif

Test(ns, clone_tree)
{
	struct mntsnap_ns *ns;
	struct statfs sfs;
	struct target t;
	int fd, f;

	ms_private_ns(NULL);
	t = target_start(PIVOT);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	cr_assert_eq(mntsnap_ns_clone_tree(ns, "/x", NULL, &fd), 0);
	cr_assert_eq(fstatfs(fd, &sfs), 0);
	cr_assert_eq(sfs.f_type, 0x01021994, "not the target's tmpfs");
	f = openat(fd, "marker", O_RDONLY | O_CLOEXEC);
	cr_assert(f >= 0, "marker through the detached tree: %s", strerror(errno));
	cr_assert_str_eq(read_fd(f), "tree");
	close(f);
	close(fd);
	cr_assert_lt(mntsnap_ns_clone_tree(ns, "/nonexistent", NULL, &fd), 0);
	mntsnap_ns_free(ns);
	target_stop(&t);
}

/* ---- callbacks ------------------------------------------------------------------ */

/* Inside: read our own mountinfo, n copies of it (small and large results). */
static int read_mountinfo_fn(void *data, void **ret_buf, size_t *ret_len)
{
	int copies = *(int *)data;
	size_t len = 0, cap = 0;
	char *out = NULL, chunk[65536];
	int fd = open("/proc/thread-self/mountinfo", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, chunk, sizeof(chunk));
	close(fd);
	if (n <= 0)
		return -EIO;
	cap = (size_t)n * (size_t)copies;
	out = malloc(cap);
	if (!out)
		return -ENOMEM;
	for (int i = 0; i < copies; i++) {
		memcpy(out + len, chunk, (size_t)n);
		len += (size_t)n;
	}
	*ret_buf = out;
	*ret_len = len;
	return 0;
}

static int fail_fn(void *data, void **ret_buf, size_t *ret_len)
{
	(void)data;
	(void)ret_buf;
	(void)ret_len;
	return -EXDEV;
}

Test(ns, run_callback)
{
	struct mntsnap_ns *ns;
	struct target t;
	char path[64], *want;
	size_t wlen, len;
	void *buf;
	int one = 1, many = 200, fds;

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", t.pid);
	want = ms_read_file(path, &wlen);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	fds = ms_count_fds();
	cr_assert_eq(mntsnap_ns_run(ns, read_mountinfo_fn, &one, NULL, &buf, &len), 0);
	cr_assert_eq(len, wlen);
	cr_assert_eq(memcmp(buf, want, len), 0, "callback did not run inside the target");
	free(buf);
	/* a large result (> 32 KiB) comes back whole too */
	cr_assert_eq(mntsnap_ns_run(ns, read_mountinfo_fn, &many, NULL, &buf, &len), 0);
	cr_assert_eq(len, wlen * (size_t)many);
	cr_assert_eq(memcmp((char *)buf + wlen * (size_t)(many - 1), want, wlen), 0);
	free(buf);
	cr_assert_eq(mntsnap_ns_run(ns, fail_fn, NULL, NULL, &buf, &len), -EXDEV);
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(count_zombies(), 0);
	free(want);
	mntsnap_ns_free(ns);
	target_stop(&t);
}

/* ---- enter / leave -------------------------------------------------------------- */

static void enter_leave_checks(void *arg)
{
	const struct target *t = arg;
	struct mntsnap_ns_saved *saved;
	struct mntsnap_ns *ns;
	struct stat st;
	char cwd[256];

	CHILD_CHECK(chdir(BASE "/cwd") == 0, 20);
	CHILD_CHECK(mntsnap_ns_open_pid(t->pid, NULL, &ns) == 0, 21);
	CHILD_CHECK(stat(BASE "/t/marker", &st) != 0, 22);
	CHILD_CHECK(mntsnap_ns_enter(ns, &saved) == 0, 23);
	CHILD_CHECK(stat(BASE "/t/marker", &st) == 0, 24);
	CHILD_CHECK(mntsnap_ns_leave(saved) == 0, 25);
	CHILD_CHECK(stat(BASE "/t/marker", &st) != 0, 26);
	CHILD_CHECK(getcwd(cwd, sizeof(cwd)) && !strcmp(cwd, BASE "/cwd"), 27);
	mntsnap_ns_free(ns);
}

Test(ns, enter_and_leave)
{
	struct target t;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/cwd");
	t = target_start(PLAIN);
	run_child(enter_leave_checks, &t, "enter/leave");
	target_stop(&t);
}

/* ---- listing ----------------------------------------------------------------------- */

Test(ns, list_namespaces)
{
	struct mntsnap_ns_entry *v;
	struct mntsnap_snapshot *s;
	struct mntsnap_ns *ns, *own;
	struct target t;
	bool seen = false, seen_own = false, seen_orphan = false;
	uint64_t orphan_id;
	size_t n;

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	cr_assert_eq(mntsnap_ns_open_self(NULL, &own), 0);
	s = cap(ns, MNTSNAP_BACKEND_AUTO, 0, NULL);
	cr_assert_eq(mntsnap_ns_list(&v, &n), 0);
	for (size_t i = 0; i < n; i++) {
		if (v[i].ns_id == mntsnap_ns_id(ns)) {
			seen = true;
			cr_assert_eq(v[i].pid, t.pid);
			cr_assert_eq(v[i].nr_mounts, (int64_t)mntsnap_snapshot_count(s));
			cr_assert_not(v[i].own);
		}
		if (v[i].own) {
			seen_own = true;
			cr_assert_eq(v[i].ns_id, mntsnap_ns_id(own));
		}
	}
	free(v);
	cr_assert(seen && seen_own);
	/* the target exits; our handle's nsfd keeps its namespace: no pid */
	orphan_id = mntsnap_ns_id(ns);
	target_stop(&t);
	cr_assert_eq(mntsnap_ns_list(&v, &n), 0);
	for (size_t i = 0; i < n; i++)
		if (v[i].ns_id == orphan_id) {
			seen_orphan = true;
			cr_assert_eq(v[i].pid, 0);
		}
	free(v);
	cr_assert(seen_orphan, "a namespace held only by an fd was not listed");
	mntsnap_snapshot_free(s);
	mntsnap_ns_free(ns);
	mntsnap_ns_free(own);
}

/* ---- route decisions through the seam ----------------------------------------------- */

struct route_ctx {
	bool fd_einval; /* a kernel before 6.18 */
	bool id_enoent; /* no CAP_SYS_ADMIN over the owner */
	int by_fd, by_id, own;
};

static long route_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, uint64_t *ids, size_t nr,
			    unsigned flags)
{
	struct route_ctx *c = ctx;

	if (req->mnt_ns_fd) {
		c->by_fd++;
		if (c->fd_einval)
			return -EINVAL;
	} else if (req->size >= 32 && req->mnt_ns_id) {
		c->by_id++;
		if (c->id_enoent)
			return -ENOENT;
	} else {
		c->own++;
	}
	return mntsnap__sys_listmount(NULL, req, ids, nr, flags);
}

static long route_statmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, struct mntsnap_k_statmount *buf,
			    size_t size, unsigned flags)
{
	struct route_ctx *c = ctx;

	if (req->mnt_ns_fd && c->fd_einval)
		return -EINVAL;
	if (req->size >= 32 && req->mnt_ns_id && c->id_enoent)
		return -EPERM;
	return mntsnap__sys_statmount(NULL, req, buf, size, flags);
}

static char *capture_with_route(const struct mntsnap_ns *ns, struct route_ctx *c)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	struct mntsnap_sysops sys = { .listmount = route_listmount,
				      .statmount = route_statmount,
				      .ctx = c };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns,  .error = &err);
	int r = mntsnap__capture_with(&o, &sys, &s);
	char *text;

	cr_assert_eq(r, 0, "capture: %s (%s)", strerror(-r), err.msg);
	cr_assert_eq(mntsnap_snapshot_ns_id(s), mntsnap_ns_id(ns));
	text = mountinfo_of(s);
	mntsnap_snapshot_free(s);
	return text;
}

Test(ns, route_probe_fallbacks)
{
	struct route_ctx fd_ok = { 0 }, old = { .fd_einval = true },
			 none = { .fd_einval = true, .id_enoent = true };
	struct mntsnap_ns *ns;
	struct target t;
	char *a, *b, *c;

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	a = capture_with_route(ns, &fd_ok);
	cr_assert(fd_ok.by_fd > 1 && fd_ok.by_id == 0 && fd_ok.own == 0);
	b = capture_with_route(ns, &old);
	cr_assert(old.by_fd == 1 && old.by_id > 1, "fd EINVAL must fall back to the id");
	c = capture_with_route(ns, &none);
	/* the helper captured inside: requests for its own namespace */
	cr_assert(none.by_id == 1 && none.own > 0, "must fall back to entering");
	ms_assert_text_eq(b, a, "id route vs fd route");
	ms_assert_text_eq(c, a, "helper route vs fd route");
	free(a);
	free(b);
	free(c);
	mntsnap_ns_free(ns);
	target_stop(&t);
}

/* An id-only handle is entered through an fd found by NS_MNT_GET_NEXT/PREV. */
Test(ns, enter_by_id)
{
	struct mntsnap_ns *byp, *byid;
	struct target t;
	char *a, *b;

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &byp), 0);
	cr_assert_eq(mntsnap_ns_open_id(mntsnap_ns_id(byp), NULL, &byid), 0);
	struct mntsnap_snapshot *s1 = cap(byp, MNTSNAP_BACKEND_AUTO, 0, NULL);
	struct mntsnap_snapshot *s2 = cap(byid, MNTSNAP_BACKEND_AUTO, MNTSNAP_CAPTURE_NS_ENTER, NULL);
	a = mountinfo_of(s1);
	b = mountinfo_of(s2);
	ms_assert_text_eq(b, a, "entered by id vs direct");
	free(a);
	free(b);
	mntsnap_snapshot_free(s1);
	mntsnap_snapshot_free(s2);
	mntsnap_ns_free(byp);
	mntsnap_ns_free(byid);
	target_stop(&t);
}

/* ---- parent death ---------------------------------------------------------------- */

/* Inside the helper: leave our pid where the test can see it, then hang. */
static int hang_fn(void *data, void **ret_buf, size_t *ret_len)
{
	char num[32];
	int fd = open(BASE "/helper.pid.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	(void)data;
	(void)ret_buf;
	(void)ret_len;
	if (fd < 0)
		return -errno;
	snprintf(num, sizeof(num), "%d", (int)getpid());
	if (write(fd, num, strlen(num)) < 0)
		return -errno;
	close(fd);
	rename(BASE "/helper.pid.tmp", BASE "/helper.pid");
	sleep(30);
	return 0;
}

static bool pid_dead(pid_t pid)
{
	char path[64], buf[512], st = '?';
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	if (strrchr(buf, ')'))
		sscanf(strrchr(buf, ')') + 1, " %c", &st);
	return st == 'Z' || st == 'X';
}

/* The caller is SIGKILLed while its helper works: the helper dies too. */
Test(ns, helper_dies_with_caller)
{
	struct target t;
	pid_t caller, helper = 0;

	ms_private_ns(BASE);
	t = target_start(PLAIN);
	caller = fork();
	cr_assert(caller >= 0);
	if (caller == 0) {
		struct mntsnap_ns *ns;
		void *buf;
		size_t len;

		if (mntsnap_ns_open_pid(t.pid, NULL, &ns))
			_exit(1);
		MNTSNAP_OPTS(mntsnap_ns_opts, o, .timeout_ms = 60000);
		mntsnap_ns_run(ns, hang_fn, NULL, &o, &buf, &len);
		_exit(2);
	}
	for (int i = 0; i < 500 && !helper; i++) {
		char *s;

		if (access(BASE "/helper.pid", F_OK)) {
			usleep(10000);
			continue;
		}
		s = ms_read_file(BASE "/helper.pid", NULL);
		helper = atoi(s);
		free(s);
	}
	cr_assert_gt(helper, 0, "the helper never ran");
	cr_assert_not(pid_dead(helper));
	kill(caller, SIGKILL);
	waitpid(caller, NULL, 0);
	for (int i = 0; i < 300 && !pid_dead(helper); i++)
		usleep(10000);
	cr_assert(pid_dead(helper), "helper %d outlived its caller", helper);
	target_stop(&t);
}

/* ---- what the helper looks like from inside ------------------------------------ */

struct inside {
	int nfds;       /* open fds, the directory scan's own excluded */
	int dumpable;
	int nnp;
	int pdeathsig;
	unsigned long long cap_eff;
};

static int inspect_fn(void *data, void **ret_buf, size_t *ret_len)
{
	struct inside *in = calloc(1, sizeof(*in));
	char line[256];
	DIR *d;
	FILE *f;

	(void)data;
	if (!in)
		return -ENOMEM;
	d = opendir("/proc/self/fd");
	if (!d) {
		free(in);
		return -errno;
	}
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			in->nfds++;
	in->nfds--; /* the DIR's own */
	closedir(d);
	in->dumpable = prctl(PR_GET_DUMPABLE);
	in->nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	prctl(PR_GET_PDEATHSIG, &in->pdeathsig);
	f = fopen("/proc/self/status", "re");
	if (!f) {
		free(in);
		return -errno;
	}
	while (fgets(line, sizeof(line), f))
		sscanf(line, "CapEff: %llx", &in->cap_eff);
	fclose(f);
	*ret_buf = in;
	*ret_len = sizeof(*in);
	return 0;
}

Test(ns, helper_hardening)
{
	struct mntsnap_ns *ns;
	struct inside *in;
	struct target t;
	size_t len;
	int extra[8];

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	/* fds the caller holds must not be visible inside */
	for (int i = 0; i < 8; i++)
		extra[i] = open("/dev/null", O_RDONLY); /* even without O_CLOEXEC */
	cr_assert_eq(mntsnap_ns_run(ns, inspect_fn, NULL, NULL, (void **)&in, &len), 0);
	cr_assert_eq(len, sizeof(*in));
	/* not even a socket: a callback's bytes come back in shared memory */
	cr_assert_eq(in->nfds, 0, "helper holds %d fds (none expected)", in->nfds);
	cr_assert_eq(in->dumpable, 0);
	cr_assert_eq(in->nnp, 1);
	cr_assert_eq(in->pdeathsig, SIGKILL);
	cr_assert_eq(in->cap_eff, 0, "capabilities left: %llx", in->cap_eff);
	free(in);
	/* keep_caps: exactly what was asked */
	MNTSNAP_OPTS(mntsnap_ns_opts, o, .keep_caps = 1ULL << 21 /* CAP_SYS_ADMIN */);
	cr_assert_eq(mntsnap_ns_run(ns, inspect_fn, NULL, &o, (void **)&in, &len), 0);
	cr_assert_eq(in->cap_eff, 1ULL << 21, "capabilities: %llx", in->cap_eff);
	free(in);
	/* the caller is dumpable again */
	cr_assert_eq(prctl(PR_GET_DUMPABLE), 1);
	for (int i = 0; i < 8; i++)
		close(extra[i]);
	mntsnap_ns_free(ns);
	target_stop(&t);
}

/* ---- a path as the target sees it --------------------------------------------- */

/* The mount holding path in ns: its source, and its id in *ret_id. */
static int source_at(const struct mntsnap_ns *ns, const char *path, char *src, size_t len,
		     uint64_t *ret_id)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_mount m;
	int r = mntsnap_ns_stat_path(ns, path, 0, &s);

	if (r)
		return r;
	cr_assert_eq(mntsnap_snapshot_count(s), 1);
	mntsnap_snapshot_get(s, 0, &m);
	snprintf(src, len, "%s", m.source ? m.source : "");
	*ret_id = m.id;
	mntsnap_snapshot_free(s);
	return 0;
}

static void write_host_secret(void)
{
	int h;

	ms_mkdir_p(BASE "/host");
	h = open(HOST_SECRET, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert(h >= 0);
	cr_assert_eq(write(h, "HOST", 4), 4);
	close(h);
}

/*
 * "/x" exists only in the (pivoted) target; every kind of handle resolves
 * it there: a pid handle from the process's root without entering, an ns
 * file and an id handle through the helper. "/abs" is a symlink to the
 * host secret's path: it must land on the target's root tmpfs.
 */
Test(ns, stat_path_in_target)
{
	struct mntsnap_ns *byp, *byf, *byid;
	uint64_t idp, idf, idi, host_id, abs_id, root_id;
	char src[64], path[64];
	struct stat st;
	struct target t;
	int fds;

	ms_private_ns(BASE);
	write_host_secret();
	t = target_start(PIVOT);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", t.pid);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &byp), 0);
	cr_assert_eq(mntsnap_ns_open_path(path, NULL, &byf), 0);
	cr_assert_eq(mntsnap_ns_open_id(mntsnap_ns_id(byp), NULL, &byid), 0);
	cr_assert_neq(stat("/x", &st), 0, "/x must not exist in the caller's namespace");
	fds = ms_count_fds();

	cr_assert_eq(source_at(byp, "/x", src, sizeof(src), &idp), 0);
	cr_assert_str_eq(src, "nsx");
	cr_assert_eq(source_at(byf, "/x/marker", src, sizeof(src), &idf), 0);
	cr_assert_str_eq(src, "nsx");
	cr_assert_eq(source_at(byid, "x", src, sizeof(src), &idi), 0);
	cr_assert_str_eq(src, "nsx");
	cr_assert(idp == idf && idf == idi, "%llx %llx %llx", (unsigned long long)idp,
		  (unsigned long long)idf, (unsigned long long)idi);

	/* the symlink resolves inside: the target's root, not our BASE tmpfs */
	cr_assert_eq(source_at(NULL, HOST_SECRET, src, sizeof(src), &host_id), 0);
	cr_assert_eq(source_at(byp, "/", src, sizeof(src), &root_id), 0);
	cr_assert_str_eq(src, "nsroot");
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(source_at(i ? byf : byp, "/abs", src, sizeof(src), &abs_id), 0);
		cr_assert_str_eq(src, "nsroot");
		cr_assert_eq(abs_id, root_id);
		cr_assert_neq(abs_id, host_id);
	}
	/* ".." stays in the root; magic links are refused; missing is ENOENT */
	cr_assert_eq(source_at(byp, "x/rel", src, sizeof(src), &abs_id), 0);
	cr_assert_eq(abs_id, root_id);
	cr_assert_lt(source_at(byp, "/magic", src, sizeof(src), &abs_id), 0);
	cr_assert_eq(source_at(byp, "/nope", src, sizeof(src), &abs_id), -ENOENT);
	cr_assert_eq(source_at(byf, "/nope", src, sizeof(src), &abs_id), -ENOENT);
	cr_assert_eq(source_at(byp, "", src, sizeof(src), &abs_id), -EINVAL);
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(count_zombies(), 0, "zombie left");

	/* the process is gone: a pid handle says so */
	target_stop(&t);
	cr_assert_eq(source_at(byp, "/x", src, sizeof(src), &abs_id), -ESRCH);
	mntsnap_ns_free(byp);
	mntsnap_ns_free(byf);
	mntsnap_ns_free(byid);
}

/* stat_id in a foreign namespace: by fd, by id and through the helper agree */
Test(ns, stat_id_routes_agree)
{
	struct mntsnap_ns *byp, *byid;
	uint64_t id;
	char src[64];
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_mount m;
	struct target t;

	ms_private_ns(BASE);
	t = target_start(PLAIN);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &byp), 0);
	cr_assert_eq(mntsnap_ns_open_id(mntsnap_ns_id(byp), NULL, &byid), 0);
	cr_assert_eq(source_at(byp, BASE "/t/a", src, sizeof(src), &id), 0);
	cr_assert_str_eq(src, "nsinner");
	/* the mount is not in our namespace: a plain stat_id cannot see it */
	cr_assert_eq(mntsnap_stat_id(NULL, id, 0, &s), -ENOENT);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(mntsnap_stat_id(i ? byid : byp, id, MNTSNAP_MASK_FULL, &s), 0);
		mntsnap_snapshot_get(s, 0, &m);
		cr_assert_eq(m.id, id);
		cr_assert_str_eq(m.source, "nsinner");
		mntsnap_snapshot_free(s);
	}
	/* through the helper, as on kernels that cannot query directly */
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = byp, .flags = MNTSNAP_CAPTURE_NS_ENTER);
	cr_assert_eq(mntsnap_capture(&o, &s), 0);
	cr_assert_not_null(mntsnap_snapshot_find(s, id));
	mntsnap_snapshot_free(s);
	cr_assert_eq(mntsnap_stat_id(byp, id ^ 0x7fff0000ULL, 0, &s), -ENOENT);
	target_stop(&t);
	mntsnap_ns_free(byp);
	mntsnap_ns_free(byid);
}

/* The CLI: --under PATH with --pid resolves PATH in the target. */
Test(ns, cli_under_resolves_in_target)
{
	char self[4096], cli[4200], cmd[9000];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct target t;
	int st;

	cr_assert_gt(n, 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(cli, sizeof(cli), "%s/../examples/mntsnap", self);
	if (access(cli, X_OK))
		cr_skip_test("no mntsnap CLI at %s", cli);
	ms_private_ns(BASE);
	write_host_secret();
	t = target_start(PIVOT);
	snprintf(cmd, sizeof(cmd),
		 "out=`%s list --pid %d --under /x` && echo \"$out\" | grep -q nsx && "
		 "! echo \"$out\" | grep -q nsroot", cli, t.pid);
	st = system(cmd);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "list --under /x in the target: %d", st);
	snprintf(cmd, sizeof(cmd), "%s list --pid %d --under /nope >/dev/null 2>" BASE "/err",
		 cli, t.pid);
	st = system(cmd);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "missing path: exit %d", st);
	{
		char *err = ms_read_file(BASE "/err", NULL);

		cr_assert(strstr(err, "/nope"), "error names the path: %s", err);
		free(err);
	}
	target_stop(&t);
}

static int noop_fn(void *data, void **ret_buf, size_t *ret_len)
{
	(void)data;
	(void)ret_buf;
	(void)ret_len;
	return 0;
}

/* The helper starts on the caller's CPU; the caller's own mask comes back. */
Test(ns, helper_keeps_caller_affinity)
{
	cpu_set_t before, after, one;
	struct mntsnap_ns *ns;
	struct target t;
	void *buf = NULL;
	size_t len = 0;

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	cr_assert_eq(sched_getaffinity(0, sizeof(before), &before), 0);
	cr_assert_eq(mntsnap_ns_run(ns, noop_fn, NULL, NULL, &buf, &len), 0);
	cr_assert_eq(sched_getaffinity(0, sizeof(after), &after), 0);
	cr_assert(CPU_EQUAL(&before, &after), "affinity changed: %d -> %d CPUs",
		  CPU_COUNT(&before), CPU_COUNT(&after));
	/* a caller pinned by itself stays exactly as it was */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	cr_assert_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	cr_assert_eq(mntsnap_ns_run(ns, noop_fn, NULL, NULL, &buf, &len), 0);
	cr_assert_eq(sched_getaffinity(0, sizeof(after), &after), 0);
	cr_assert(CPU_EQUAL(&one, &after));
	cr_assert_eq(sched_setaffinity(0, sizeof(before), &before), 0);
	mntsnap_ns_free(ns);
	target_stop(&t);
}

/*
 * A kernel that reads no foreign namespace directly (before 6.18 mnt_ns_fd
 * was a must-be-zero spare: EINVAL; take the id away too): stat_id falls
 * back to the helper, whose own-namespace statmount passes, and its answer
 * equals the direct one. The fake counts the refusals it gave.
 */
struct no_foreign {
	int refused;
};

static long nf_statmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, struct mntsnap_k_statmount *buf,
			 size_t bufsize, unsigned flags)
{
	struct no_foreign *nf = ctx;

	if (req->mnt_ns_fd || req->mnt_ns_id) {
		__atomic_add_fetch(&nf->refused, 1, __ATOMIC_RELAXED);
		return -EINVAL;
	}
	return mntsnap__sys_statmount(NULL, req, buf, bufsize, flags);
}

static long nf_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, uint64_t *ids, size_t nr,
			 unsigned flags)
{
	struct no_foreign *nf = ctx;

	if (req->mnt_ns_fd || req->mnt_ns_id) {
		__atomic_add_fetch(&nf->refused, 1, __ATOMIC_RELAXED);
		return -EINVAL;
	}
	return mntsnap__sys_listmount(NULL, req, ids, nr, flags);
}

Test(ns, stat_id_falls_back_to_helper)
{
	struct no_foreign nf = { 0 };
	struct mntsnap_sysops sys = { .statmount = nf_statmount, .listmount = nf_listmount,
				      .ctx = &nf };
	struct mntsnap_snapshot *direct = NULL, *via = NULL;
	struct mntsnap_mount a, b;
	struct mntsnap_ns *byp;
	struct target t;
	char src[64];
	uint64_t id;
	int fds;

	ms_private_ns(BASE);
	t = target_start(PLAIN);
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &byp), 0);
	cr_assert_eq(source_at(byp, BASE "/t/a", src, sizeof(src), &id), 0);
	fds = ms_count_fds();
	cr_assert_eq(mntsnap_stat_id(byp, id, MNTSNAP_MASK_FULL, &direct), 0);
	cr_assert_eq(mntsnap__stat_id_sys(&sys, byp, id, MNTSNAP_MASK_FULL, &via), 0);
	cr_assert_geq(nf.refused, 2, "fd and id routes were not tried first (%d)", nf.refused);
	mntsnap_snapshot_get(direct, 0, &a);
	mntsnap_snapshot_get(via, 0, &b);
	cr_assert_eq(a.id, b.id);
	cr_assert_eq(a.parent_id, b.parent_id);
	cr_assert_str_eq(b.source, "nsinner");
	cr_assert_str_eq(a.mount_point, b.mount_point);
	cr_assert_str_eq(a.options, b.options);
	mntsnap_snapshot_free(via);
	/* no such mount, found out inside */
	cr_assert_eq(mntsnap__stat_id_sys(&sys, byp, id ^ 0x7fff0000ULL, 0, &via), -ENOENT);
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(count_zombies(), 0, "zombie left");
	mntsnap_snapshot_free(direct);
	mntsnap_ns_free(byp);
	target_stop(&t);
}

/*
 * A caller whose /proc is a procfs of its own, newer pid namespace holds
 * a pidfd of a live process outside it (handed in, or opened before the
 * caller moved): that procfs cannot name the process (the pidfd's fdinfo
 * says "Pid: 0", not the "-1" of an exited one). The namespace is still
 * reachable through the handle's nsfs fd, and the process is alive: its
 * table is the kernel's (the oracle: the target's mountinfo read through
 * the test's own procfs), a path resolves from the namespace's root as
 * without any procfs, and nothing says the process has exited.
 */
struct unnamed_arg {
	int pidfd;
	size_t want; /* lines of the target's mountinfo */
};

static int unnamed_caller(void *p)
{
	struct unnamed_arg *a = p;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns *ns = NULL;
	char path[64], *info, *pid;
	struct mntsnap_mount m;
	int r;

	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return 10;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", a->pidfd);
	info = ms_read_file(path, NULL);
	pid = info ? strstr(info, "\nPid:\t") : NULL;
	if (!pid || strncmp(pid + 6, "0\n", 2))
		return 11; /* the premise: this procfs cannot name the target */
	free(info);
	if (mntsnap_ns_open_pidfd(a->pidfd, NULL, &ns))
		return 12;
	if (mntsnap_ns_alive(ns))
		return 13;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .error = &e);
	r = mntsnap_capture(&o, &s);
	if (r) {
		fprintf(stderr, "capture: %s (%s)\n", strerror(-r), e.msg);
		return 14;
	}
	if (mntsnap_snapshot_count(s) != a->want)
		return 15;
	mntsnap_snapshot_free(s);
	r = mntsnap_ns_stat_path(ns, "/x", 0, &s);
	if (r) {
		fprintf(stderr, "stat_path: %s\n", strerror(-r));
		return 16;
	}
	if (mntsnap_snapshot_count(s) != 1 || mntsnap_snapshot_get(s, 0, &m) || !m.source ||
	    strcmp(m.source, "nsx"))
		return 17;
	mntsnap_snapshot_free(s);
	mntsnap_ns_free(ns);
	return 0;
}

Test(ns, pid_handle_the_callers_procfs_cannot_name)
{
	static char stack[256 * 1024];
	struct unnamed_arg a;
	char path[64], *text;
	int st = 0, pidfd;
	struct target t;
	pid_t pid;

	ms_private_ns(BASE);
	t = target_start(PIVOT);
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", t.pid);
	text = ms_read_file(path, NULL);
	cr_assert_not_null(text);
	a.want = 0;
	for (const char *c = text; *c; c++)
		a.want += *c == '\n';
	free(text);
	pidfd = (int)syscall(434 /* pidfd_open */, t.pid, 0);
	cr_assert_geq(pidfd, 0, "pidfd_open: %s", strerror(errno));
	a.pidfd = pidfd;
	pid = clone(unnamed_caller, stack + sizeof(stack), CLONE_NEWPID | CLONE_NEWNS | SIGCHLD,
		    &a);
	cr_assert_gt(pid, 0, "clone: %s", strerror(errno));
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	close(pidfd);
	target_stop(&t);
	cr_assert(WIFEXITED(st), "caller died: status %#x", st);
	cr_assert_eq(WEXITSTATUS(st), 0, "caller failed at step %d", WEXITSTATUS(st));
}

/* ---- ns_open_pid without pidfd_open ------------------------------------------ */

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include "ns.h"
#include "proc.h"

struct nopidfd_result {
	int r;
	uint64_t ns_id;
	int alive;
	char msg[240];
};

/* This thread's filter: pidfd_open answers errno e, everything else runs. */
static int deny_pidfd_open(int e)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MNTSNAP_NR_pidfd_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)e),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) ? -errno : 0;
}

/* mntsnap_ns_open_pid(pid) in a child under that filter. */
static struct nopidfd_result open_pid_filtered(pid_t pid, int e)
{
	struct nopidfd_result res = { 0 };
	int fds[2], st;
	pid_t c;

	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0);
	c = fork();
	cr_assert_geq(c, 0);
	if (c == 0) {
		struct mntsnap_error err = { 0 };
		struct mntsnap_ns *ns = NULL;

		res.r = deny_pidfd_open(e);
		if (!res.r)
			res.r = syscall(MNTSNAP_NR_pidfd_open, getpid(), 0) < 0 && errno == e ? 0 : -1000;
		if (!res.r) {
			res.r = mntsnap_ns_open_pid(pid, &err, &ns);
			res.ns_id = mntsnap_ns_id(ns);
			res.alive = ns ? mntsnap_ns_alive(ns) : -1;
			memcpy(res.msg, err.msg, sizeof(res.msg));
			mntsnap_ns_free(ns);
		}
		(void)!write(fds[1], &res, sizeof(res));
		_exit(0);
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], &res, sizeof(res)), (ssize_t)sizeof(res));
	close(fds[0]);
	cr_assert_eq(waitpid(c, &st, 0), c);
	cr_assert(WIFEXITED(st));
	cr_assert_neq(res.r, -1000, "the filter did not answer %d for pidfd_open", e);
	return res;
}

static void check_open_pid_without_pidfd(int e)
{
	struct mntsnap_ns *own, *want;
	struct nopidfd_result res;
	struct target t;
	char path[64];
	pid_t gone;

	ms_private_ns(NULL);
	t = target_start(PLAIN);
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", t.pid);
	cr_assert_eq(mntsnap_ns_open_path(path, NULL, &want), 0);
	cr_assert_eq(mntsnap_ns_open_self(NULL, &own), 0);
	cr_assert_neq(mntsnap_ns_id(want), 0, "kernel without namespace ids");
	cr_assert_neq(mntsnap_ns_id(want), mntsnap_ns_id(own));
	res = open_pid_filtered(t.pid, e);
	cr_assert_eq(res.r, 0, "pidfd_open %s: %d (%s)", strerror(e), res.r, res.msg);
	cr_assert_eq(res.ns_id, mntsnap_ns_id(want), "the target's namespace");
	cr_assert_eq(res.alive, 0);
	target_stop(&t);

	/* a pid that names nothing: the error says which calls failed */
	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	res = open_pid_filtered(gone, e);
	cr_assert_eq(res.r, -ESRCH, "got %d (%s)", res.r, res.msg);
	cr_assert_not_null(strstr(res.msg, "pidfd_open("), "%s", res.msg);
	cr_assert_not_null(strstr(res.msg, strerror(e)), "%s", res.msg);
	cr_assert_not_null(strstr(res.msg, "/proc/PID"), "%s", res.msg);
	cr_log_info("%s", res.msg);
	mntsnap_ns_free(own);
	mntsnap_ns_free(want);
}

Test(ns, open_pid_pidfd_open_enosys)
{
	check_open_pid_without_pidfd(ENOSYS);
}

Test(ns, open_pid_pidfd_open_eperm)
{
	check_open_pid_without_pidfd(EPERM);
}

/* The start time behind the pid-reuse guard, against sscanf of stat, for a
 * command name with spaces and parentheses. */
Test(ns, proc_start_time)
{
	int rp[2], proc, dir;
	unsigned long long want = 0;
	uint64_t got = 0;
	char path[64], buf[1024], *p;
	pid_t c;
	FILE *f;

	cr_assert_eq(pipe2(rp, O_CLOEXEC), 0);
	c = fork();
	if (c == 0) {
		char x;

		prctl(PR_SET_NAME, "a) b (c) 1 2");
		close(rp[1]);
		(void)!read(rp[0], &x, 1);
		_exit(0);
	}
	close(rp[0]);
	usleep(20000);
	snprintf(path, sizeof(path), "/proc/%d/stat", c);
	f = fopen(path, "re");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	cr_assert_eq(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			    "%*d %*d %*d %*d %llu", &want), 1);
	proc = mntsnap__procfs_root();
	cr_assert_geq(proc, 0);
	dir = mntsnap__proc_pid_dir(proc, c);
	cr_assert_geq(dir, 0);
	cr_assert_eq(mntsnap__proc_start_time(dir, &got), 0);
	cr_assert_eq(got, want);
	close(rp[1]);
	waitpid(c, NULL, 0);
	/* the directory of a reaped process answers nothing */
	cr_assert_eq(mntsnap__proc_start_time(dir, &got), -ESRCH);
	close(dir);
	close(proc);
}

/* A thread that is not its group's leader: pidfd_open(tid, 0) refuses it
 * (-ENOENT on current kernels, -EINVAL before), the procfs fallback opens
 * /proc/TID/ns/mnt. Both ways must answer the same: the thread's (its
 * process's) namespace, not an errno _pid does not document. */
static atomic_int thread_tid;

static void *report_tid(void *arg)
{
	(void)arg;
	atomic_store(&thread_tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&stop_threads))
		usleep(1000);
	return NULL;
}

Test(ns, open_pid_of_a_thread)
{
	struct mntsnap_error err = { 0 };
	struct mntsnap_ns *own, *ns = NULL;
	struct nopidfd_result res;
	pthread_t th;
	int tid;

	cr_assert_eq(mntsnap_ns_open_self(NULL, &own), 0);
	atomic_store(&stop_threads, false);
	cr_assert_eq(pthread_create(&th, NULL, report_tid, NULL), 0);
	while (!(tid = atomic_load(&thread_tid)))
		usleep(1000);
	cr_assert_neq(tid, getpid());
	cr_expect_eq(mntsnap_ns_open_pid(tid, &err, &ns), 0, "with pidfd_open: %s", err.msg);
	cr_expect_eq(mntsnap_ns_id(ns), mntsnap_ns_id(own));
	if (ns)
		cr_expect_eq(mntsnap_ns_alive(ns), 0);
	mntsnap_ns_free(ns);
	res = open_pid_filtered(tid, ENOSYS);
	cr_expect_eq(res.r, 0, "without pidfd_open: %d (%s)", res.r, res.msg);
	cr_expect_eq(res.ns_id, mntsnap_ns_id(own));
	atomic_store(&stop_threads, true);
	pthread_join(th, NULL);
	mntsnap_ns_free(own);
}

/* A runtime's child right after clone(CLONE_NEWPID | CLONE_NEWNS) still
 * has the host's /proc, whose pids are not the caller's. Without
 * pidfd_open, ns_open_pid(N) must not open /proc/N/ns/mnt of that procfs:
 * N there is another process (here the test itself, a pid the child's
 * namespace does not have: pidfd_open would answer -ESRCH). */
static pid_t outer_pid;

static int open_outer_pid(void *arg)
{
	struct nopidfd_result *res = arg;
	struct mntsnap_error err = { 0 };
	struct mntsnap_ns *ns = NULL;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 1;
	res->r = deny_pidfd_open(ENOSYS);
	if (res->r)
		return 2;
	res->r = mntsnap_ns_open_pid(outer_pid, &err, &ns);
	memcpy(res->msg, err.msg, sizeof(res->msg));
	mntsnap_ns_free(ns);
	return 0;
}

Test(ns, open_pid_fallback_with_another_pid_namespaces_proc)
{
	struct nopidfd_result *res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
					  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	size_t stack_size = 1 << 20;
	char *stack = malloc(stack_size);
	int st;
	pid_t c;

	cr_assert_neq(res, MAP_FAILED);
	cr_assert_not_null(stack);
	outer_pid = getpid();
	c = clone(open_outer_pid, stack + stack_size, CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, res);
	cr_assert_gt(c, 0, "clone: %s", strerror(errno));
	cr_assert_eq(waitpid(c, &st, 0), c);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	cr_expect(res->r == -ESRCH || res->r == -EOPNOTSUPP,
		  "ns_open_pid(%d) in a pid namespace without it: %d (%s)", outer_pid, res->r, res->msg);
	munmap(res, sizeof(*res));
	free(stack);
}

/*
 * ns_open_proc_pid: pid as the procfs at /proc numbers it. The same
 * runtime's child (a new pid namespace that kept its parent's /proc) asks
 * for the test process by its number there, which its own namespace does
 * not have: the handle is the test's namespace, not -ESRCH, not another
 * task's. A task it opened that then exits and is reaped leaves the
 * handle dead: no capture reads anything through it (the directory held
 * the task, not its number).
 */
struct proc_pid_result {
	int r, alive, gone, cap;
	uint64_t ns_id;
	char msg[240];
};

static pid_t victim_pid;
static int victim_pipe[2], victim_done[2];

static int open_outer_by_proc(void *arg)
{
	struct proc_pid_result *res = arg;
	struct mntsnap_error err = { 0 };
	struct mntsnap_ns *ns = NULL, *v = NULL;
	struct mntsnap_snapshot *s = NULL;
	char c = 0;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 1;
	res->r = mntsnap_ns_open_proc_pid(outer_pid, &err, &ns);
	memcpy(res->msg, err.msg, sizeof(res->msg));
	res->ns_id = mntsnap_ns_id(ns);
	res->alive = ns ? mntsnap_ns_alive(ns) : -1;
	mntsnap_ns_free(ns);
	if (mntsnap_ns_open_proc_pid(victim_pid, NULL, &v))
		return 2;
	/* the parent kills and reaps the victim, then answers */
	if (write(victim_pipe[1], &c, 1) != 1 || read(victim_done[0], &c, 1) != 1)
		return 3;
	res->gone = mntsnap_ns_alive(v);
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = v);

		res->cap = mntsnap_capture(&o, &s);
	}
	mntsnap_snapshot_free(s);
	mntsnap_ns_free(v);
	return 0;
}

Test(ns, open_proc_pid_with_another_pid_namespaces_proc)
{
	struct proc_pid_result *res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
					   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct mntsnap_ns *own;
	size_t stack_size = 1 << 20;
	char *stack = malloc(stack_size), c = 0;
	int st;
	pid_t child;

	if (geteuid() != 0)
		cr_skip_test("needs root for CLONE_NEWPID");
	cr_assert_neq(res, MAP_FAILED);
	cr_assert_not_null(stack);
	cr_assert_eq(mntsnap_ns_open_self(NULL, &own), 0);
	cr_assert_eq(pipe2(victim_pipe, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(victim_done, O_CLOEXEC), 0);
	victim_pid = fork();
	cr_assert_geq(victim_pid, 0);
	if (!victim_pid) {
		pause();
		_exit(0);
	}
	outer_pid = getpid();
	child = clone(open_outer_by_proc, stack + stack_size, CLONE_NEWPID | CLONE_NEWNS | SIGCHLD,
		      res);
	cr_assert_gt(child, 0, "clone: %s", strerror(errno));
	if (read(victim_pipe[0], &c, 1) == 1) {
		kill(victim_pid, SIGKILL);
		waitpid(victim_pid, &st, 0);
		cr_assert_eq(write(victim_done[1], &c, 1), 1);
	} else {
		kill(victim_pid, SIGKILL);
		waitpid(victim_pid, &st, 0);
	}
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	cr_expect_eq(res->r, 0, "ns_open_proc_pid(%d): %d (%s)", outer_pid, res->r, res->msg);
	cr_expect_eq(res->alive, 0);
	if (mntsnap_ns_id(own))
		cr_expect_eq(res->ns_id, mntsnap_ns_id(own), "the test's own namespace");
	cr_expect_eq(res->gone, -ESRCH, "a reaped task's handle: %d", res->gone);
	cr_expect_eq(res->cap, -ESRCH, "capture of a reaped task: %d", res->cap);
	for (int i = 0; i < 2; i++) {
		close(victim_pipe[i]);
		close(victim_done[i]);
	}
	mntsnap_ns_free(own);
	munmap(res, sizeof(*res));
	free(stack);
}
