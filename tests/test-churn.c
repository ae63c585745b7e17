// SPDX-License-Identifier: MIT
/*
 * Churn: captures and handle calls while the table or the caller is being
 * hammered.
 *
 * Mount storms run in the test's private mount namespace: a child keeps
 * SLOTS mounts under BASE/storm and replaces them oldest first (umount,
 * then a bind or a tmpfs on the same slot), so the kernel recycles the
 * 32-bit id just freed for the new mount at the end of the table. The
 * oracle is the storm's own invariant: at every instant SLOTS - 1 or SLOTS
 * slots are mounted, so a table with any other count never existed. A raw
 * read() of /proc/self/mountinfo next to the library's captures shows how
 * often the kernel's text itself was torn (ids listed twice, counts off).
 *
 * Signal storms: a SIGUSR1 handler installed without SA_RESTART and a
 * thread sending SIGUSR1 to the calling thread continuously; no handle
 * call may return -EINTR.
 *
 * MNTSNAP_STORM_SECONDS (default 30) sets the length of each storm.
 */
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
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"

#define BASE "/tmp/mntsnap-churn"
#define SLOTS 160


static unsigned storm_seconds(void)
{
	const char *e = getenv("MNTSNAP_STORM_SECONDS");
	int v = e ? atoi(e) : 0;

	return v > 0 ? (unsigned)v : 30;
}

static void slot_path(char *buf, size_t len, int i)
{
	snprintf(buf, len, BASE "/storm/%03d", i);
}

static int mount_slot(int i, unsigned long gen)
{
	char p[128];

	slot_path(p, sizeof(p), i);
	if (gen % 2)
		return mount(BASE "/src", p, NULL, MS_BIND, NULL);
	return mount("storm", p, "tmpfs", 0, "size=64k");
}

/* The storm: replace the oldest slot's mount, forever (until stop_fd EOF). */
static void storm(int stop_fd)
{
	char p[128], c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (unsigned long gen = 1;; gen++) {
		int i = (int)(gen % SLOTS);

		if (read(stop_fd, &c, 1) >= 0 || errno != EAGAIN)
			_exit(0);
		slot_path(p, sizeof(p), i);
		if (umount2(p, MNT_DETACH) || mount_slot(i, gen))
			_exit(1);
	}
}

struct storm_ctl {
	pid_t pid;
	int stop;  /* write end: closing it stops the storm */
	time_t end;
};

/* Private namespace, SLOTS mounts, and the storm child in the same namespace. */
static void storm_start(struct storm_ctl *c)
{
	int pfd[2];
	char p[128];

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/src");
	for (int i = 0; i < SLOTS; i++) {
		slot_path(p, sizeof(p), i);
		ms_mkdir_p(p);
		cr_assert_eq(mount_slot(i, 0), 0, "slot %d: %s", i, strerror(errno));
	}
	cr_assert_eq(pipe2(pfd, O_CLOEXEC | O_NONBLOCK), 0);
	c->pid = fork();
	cr_assert_geq(c->pid, 0);
	if (!c->pid) {
		close(pfd[1]);
		storm(pfd[0]);
	}
	close(pfd[0]);
	c->stop = pfd[1];
	c->end = time(NULL) + storm_seconds();
}

static bool storm_running(const struct storm_ctl *c)
{
	return time(NULL) < c->end;
}

static void storm_stop(struct storm_ctl *c)
{
	int st;

	close(c->stop);
	cr_assert_eq(waitpid(c->pid, &st, 0), c->pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the storm itself failed");
}

/* Slots mounted according to s (a slot can be stacked: count mounts). */
static size_t slots_in(const struct mntsnap_snapshot *s)
{
	size_t n = mntsnap_snapshot_count(s), k = 0;
	struct mntsnap_mount m;

	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(mntsnap_snapshot_get(s, i, &m), 0);
		if (!strncmp(m.mount_point, BASE "/storm/", sizeof(BASE "/storm/") - 1))
			k++;
	}
	return k;
}

static bool possible(size_t slots)
{
	return slots == SLOTS || slots == SLOTS - 1;
}

/* A raw read of the kernel's text, parsed as a file: 1 torn, 0 whole. */
static int raw_read_torn(void)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &err);
	size_t len;
	char *text = ms_read_file("/proc/self/mountinfo", &len);
	int r = mntsnap_parse_mountinfo(text, len, &o, &s), torn;

	free(text);
	if (r) {
		cr_assert_eq(r, -EBADMSG, "%s", err.msg);
		cr_assert(strstr(err.msg, "appears twice"), "%s", err.msg);
		return 1;
	}
	/* a repeated id in parsed text is kept, and the table marked */
	torn = !mntsnap_snapshot_consistent(s) || !possible(slots_in(s));
	mntsnap_snapshot_free(s);
	return torn;
}

/*
 * The mountinfo backend during a storm: never an error, and a table it
 * calls consistent is one that existed.
 */
Test(churn, mountinfo_backend_storm, .timeout = 200)
{
	unsigned long caps = 0, consistent = 0, retried = 0, raw = 0, raw_torn = 0;
	struct storm_ctl c;
	int fds;

	storm_start(&c);
	fds = ms_count_fds();
	while (storm_running(&c)) {
		struct mntsnap_snapshot *s = NULL;
		struct mntsnap_error err = { 0 };
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO,
			     .error = &err);
		int r = mntsnap_capture(&o, &s);

		cr_assert_eq(r, 0, "capture %lu: %s (%s)", caps, strerror(-r), err.msg);
		caps++;
		cr_assert_neq(mntsnap_snapshot_consistent(s), -1, "a live read is checked");
		if (mntsnap_snapshot_consistent(s) == 1) {
			consistent++;
			cr_assert(possible(slots_in(s)), "a consistent table with %zu slots",
				  slots_in(s));
		}
		if (mntsnap_snapshot_attempts(s) > 1)
			retried++;
		mntsnap_snapshot_free(s);
		raw_torn += (unsigned long)raw_read_torn();
		raw++;
	}
	storm_stop(&c);
	cr_assert_eq(ms_count_fds(), fds - 1, "fd leak"); /* - the pipe's write end */
	fprintf(stderr,
		"churn mountinfo: %lu captures, 0 errors, %lu consistent, %lu re-read; "
		"kernel text torn in %lu of %lu raw reads\n",
		caps, consistent, retried, raw_torn, raw);
	cr_assert_gt(consistent, 0);
	/* the storm must have torn the text the library re-read */
	cr_assert_gt(raw_torn, 0, "the storm never tore a read: it tested nothing");
}

/* STRICT alone never fails with -EAGAIN (either backend); STRICT|CONSISTENT may. */
Test(churn, strict_storm, .timeout = 200)
{
	unsigned long strict = 0, flagged = 0, both = 0, eagain = 0;
	struct storm_ctl c;

	storm_start(&c);
	for (unsigned long i = 0; storm_running(&c); i++) {
		struct mntsnap_snapshot *s = NULL;
		MNTSNAP_OPTS(mntsnap_capture_opts, o,
			     .backend = i % 2 ? MNTSNAP_BACKEND_MOUNTINFO : MNTSNAP_BACKEND_STATMOUNT,
			     .flags = MNTSNAP_CAPTURE_STRICT, .max_retries = 1);
		int r = mntsnap_capture(&o, &s);

		cr_assert_eq(r, 0, "STRICT alone: %s", strerror(-r));
		strict++;
		if (mntsnap_snapshot_consistent(s) == 1)
			cr_assert(possible(slots_in(s)), "%zu slots", slots_in(s));
		else
			flagged++;
		mntsnap_snapshot_free(s);

		o.flags |= MNTSNAP_CAPTURE_CONSISTENT;
		r = mntsnap_capture(&o, &s);
		cr_assert(r == 0 || r == -EAGAIN, "STRICT|CONSISTENT: %s", strerror(-r));
		both++;
		if (r) {
			eagain++;
			continue;
		}
		cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
		cr_assert(possible(slots_in(s)), "%zu slots", slots_in(s));
		mntsnap_snapshot_free(s);
	}
	storm_stop(&c);
	fprintf(stderr,
		"churn strict: %lu STRICT captures, 0 EAGAIN, %lu flagged inconsistent; "
		"%lu STRICT|CONSISTENT, %lu EAGAIN\n",
		strict, flagged, both, eagain);
	/* max_retries 1: the storm must have made some pair disagree */
	cr_assert_gt(flagged, 0, "the storm never beat STRICT: it tested nothing");
}

/* ---- the CLI during a storm ---------------------------------------------------- */

struct run {
	int status;
	char *out, *err;
};

static const char *bin(void)
{
	const char *b = getenv("MNTSNAP_BIN");

	if (!b)
		cr_skip_test("MNTSNAP_BIN not set (run through meson test)");
	return b;
}

static struct run run_cli(const char *const *argv)
{
	int o[2], e[2], st;
	struct run r;
	pid_t pid;

	cr_assert_eq(pipe2(o, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(e, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	ms_read_fd(o[0], &r.out);
	ms_read_fd(e[0], &r.err);
	close(o[0]);
	close(e[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return r;
}

/* Slots in a table printed with --format mountinfo. */
static size_t slots_in_text(const char *text)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &err);
	size_t k;

	cr_assert_eq(mntsnap_parse_mountinfo(text, strlen(text), &o, &s), 0, "%s", err.msg);
	k = slots_in(s);
	mntsnap_snapshot_free(s);
	return k;
}

static size_t slots_in_file(const char *file)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	size_t k;

	cr_assert_eq(mntsnap_snapshot_load(file, &err, &s), 0, "%s", err.msg);
	k = slots_in(s);
	mntsnap_snapshot_free(s);
	return k;
}

struct cli_counts {
	unsigned long runs, refused, warned;
};

/* exit 0 and silent: a table that existed; else exit 2 and words. */
static void check_cli_run(const struct run *r, size_t slots, bool allow, struct cli_counts *n)
{
	n->runs++;
	if (r->status == 0 && !r->err[0]) {
		cr_assert(possible(slots), "exit 0, no warning, a table with %zu slots", slots);
		return;
	}
	if (allow) {
		cr_assert_eq(r->status, 0, "--allow-inconsistent: %s", r->err);
		cr_assert(strstr(r->err, "warning:") && strstr(r->err, "changed"), "%s", r->err);
		n->warned++;
		return;
	}
	cr_assert_eq(r->status, 2, "status %d: %s", r->status, r->err);
	cr_assert_eq(r->out[0], '\0', "a refused list printed a table");
	cr_assert(strstr(r->err, "kept changing") && strstr(r->err, "--allow-inconsistent"),
		  "%s", r->err);
	n->refused++;
}

Test(churn, cli_storm, .timeout = 200)
{
	struct cli_counts n = { 0 };
	struct storm_ctl c;
	const char *b = bin();
	unsigned long i = 0;

	storm_start(&c);
	while (storm_running(&c)) {
		static const char *backends[] = { "mountinfo", "statmount" };
		const char *be = backends[i % 2];
		bool allow = i % 3 == 2;
		const char *list[] = { b, "list", "--format", "mountinfo", "--backend", be,
				       allow ? "--allow-inconsistent" : NULL, NULL };
		const char *save[] = { b, "save", "--backend", be, BASE "/snap",
				       allow ? "--allow-inconsistent" : NULL, NULL };
		struct run r;

		r = run_cli(list);
		check_cli_run(&r, r.status == 0 ? slots_in_text(r.out) : 0, allow, &n);
		free(r.out);
		free(r.err);

		unlink(BASE "/snap");
		r = run_cli(save);
		check_cli_run(&r, r.status == 0 ? slots_in_file(BASE "/snap") : 0, allow, &n);
		if (r.status)
			cr_assert_eq(access(BASE "/snap", F_OK), -1, "a refused save wrote a file");
		free(r.out);
		free(r.err);
		i++;
	}
	storm_stop(&c);
	fprintf(stderr,
		"churn cli: %lu list/save runs, 0 inconsistent tables with exit 0 and no "
		"warning; %lu refused (exit 2), %lu warned (--allow-inconsistent)\n",
		n.runs, n.refused, n.warned);
}

/* ---- signals ------------------------------------------------------------------ */

static atomic_ulong signals_seen;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add_explicit(&signals_seen, 1, memory_order_relaxed);
}

struct sender {
	pthread_t target;
	atomic_bool stop;
};

static void *send_signals(void *arg)
{
	struct sender *s = arg;

	while (!atomic_load(&s->stop)) {
		pthread_kill(s->target, SIGUSR1);
	}
	return NULL;
}

static int cb_small(void *data, void **ret_buf, size_t *ret_len)
{
	char *b = malloc(16);

	(void)data;
	if (!b)
		return -ENOMEM;
	memcpy(b, "inside", 7);
	*ret_buf = b;
	*ret_len = 7;
	return 0;
}

/* A process in its own mount namespace (waiting to be killed): its tmpfs on BASE. */
static int target_setup(void *arg)
{
	(void)arg;
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("target", BASE, "tmpfs", 0, NULL))
		return -1;
	mkdir(BASE "/inside", 0755);
	return 0;
}

struct tally {
	unsigned long calls, hit, eintr, seen;
	uint64_t root_id; /* a mount of the target, for stat_id */
};

/* Count the call, and whether a signal arrived while it ran. */
static void note(struct tally *t, const char *what, int r)
{
	unsigned long now = atomic_load_explicit(&signals_seen, memory_order_relaxed);

	t->calls++;
	t->hit += now != t->seen;
	t->seen = now;
	if (r == -EINTR)
		t->eintr++;
	cr_assert(r >= 0 || r == -EINTR, "%s: %s", what, strerror(-r));
}

static void call_everything(struct mntsnap_ns *ns, struct tally *t)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_ns_entry *list = NULL;
	void *buf = NULL;
	size_t len = 0, nl = 0;
	int fd = -1, r;

	note(t, "ns_alive", mntsnap_ns_alive(ns));
	r = mntsnap_ns_run(ns, cb_small, NULL, NULL, &buf, &len);
	note(t, "ns_run", r);
	free(buf);
	r = mntsnap_ns_open_file(ns, BASE "/inside", O_PATH | O_DIRECTORY, 0, NULL, &fd);
	note(t, "ns_open_file", r);
	if (!r)
		close(fd);
	r = mntsnap_ns_stat_path(ns, BASE "/inside", 0, &s);
	note(t, "ns_stat_path", r);
	mntsnap_snapshot_free(s);
	s = NULL;
	r = mntsnap_stat_path("/", 0, &s);
	note(t, "stat_path", r);
	mntsnap_snapshot_free(s);
	s = NULL;
	r = mntsnap_stat_id(ns, t->root_id, 0, &s);
	note(t, "stat_id .ns", r);
	mntsnap_snapshot_free(s);
	s = NULL;
	r = mntsnap_ns_clone_tree(ns, BASE, NULL, &fd);
	note(t, "ns_clone_tree", r);
	if (!r)
		close(fd);
	{
		static const uint32_t flags[] = { 0, MNTSNAP_CAPTURE_NS_ENTER };
		static const int backends[] = { MNTSNAP_BACKEND_AUTO, MNTSNAP_BACKEND_MOUNTINFO };

		for (int k = 0; k < 2; k++) {
			MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .flags = flags[k],
				     .backend = backends[k]);

			r = mntsnap_capture(&o, &s);
			note(t, "capture .ns", r);
			mntsnap_snapshot_free(s);
			s = NULL;
		}
	}
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO);

		r = mntsnap_capture(&o, &s);
		note(t, "capture mountinfo", r);
		if (!r) {
			note(t, "save", mntsnap_snapshot_save(s, BASE "/sig.snap"));
			mntsnap_snapshot_free(s);
			s = NULL;
			note(t, "load", mntsnap_snapshot_load(BASE "/sig.snap", NULL, &s));
			mntsnap_snapshot_free(s);
			s = NULL;
		}
	}
	r = mntsnap_capture(NULL, &s);
	note(t, "capture", r);
	if (!r)
		note(t, "refresh", mntsnap_refresh(s));
	mntsnap_snapshot_free(s);
	r = mntsnap_ns_list(&list, &nl);
	note(t, "ns_list", r);
	free(list);
}

LTest(churn, signal_storm_no_eintr, .timeout = 200)
{
	struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
	struct sender snd = { .target = pthread_self() };
	struct mntsnap_ns *ns = NULL;
	struct tally t = { 0 };
	pthread_t th;
	time_t end;
	pid_t target;
	int st;

	ms_private_ns(BASE);
	target = ms_waiter_start(target_setup, NULL, "target did not start");
	cr_assert_eq(mntsnap_ns_open_pid(target, NULL, &ns), 0);
	{
		struct mntsnap_snapshot *s = NULL;
		struct mntsnap_mount m;

		cr_assert_eq(mntsnap_ns_stat_path(ns, BASE, 0, &s), 0);
		cr_assert_eq(mntsnap_snapshot_get(s, 0, &m), 0);
		t.root_id = m.id;
		mntsnap_snapshot_free(s);
	}
	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	cr_assert_eq(pthread_create(&th, NULL, send_signals, &snd), 0);
	end = time(NULL) + (storm_seconds() + 1) / 2;
	while (time(NULL) < end)
		call_everything(ns, &t);
	atomic_store(&snd.stop, true);
	pthread_join(th, NULL);
	signal(SIGUSR1, SIG_DFL);
	mntsnap_ns_free(ns);
	kill(target, SIGKILL);
	cr_assert_eq(waitpid(target, &st, 0), target);
	fprintf(stderr,
		"churn signals: %lu handle calls, %lu of them hit by some of %lu signals, "
		"%lu EINTR\n",
		t.calls, t.hit, (unsigned long)atomic_load(&signals_seen), t.eintr);
	cr_assert_eq(t.eintr, 0, "%lu of %lu calls returned -EINTR", t.eintr, t.calls);
	cr_assert_gt(t.hit, 100, "too few calls hit by a signal to mean anything");
}

/*
 * Paths with ".." resolved inside a target (openat2 RESOLVE_IN_ROOT) fail
 * with EAGAIN whenever any mount or rename happens meanwhile, anywhere:
 * the library retries, so a storm gives no error.
 */
Test(churn, dotdot_resolution_storm, .timeout = 200)
{
	unsigned long calls = 0;
	struct mntsnap_ns *ns = NULL;
	struct storm_ctl c;
	pid_t target;
	int st;

	storm_start(&c);
	c.end = time(NULL) + (storm_seconds() + 1) / 2;
	target = ms_waiter_start(target_setup, NULL, "target did not start");
	cr_assert_eq(mntsnap_ns_open_pid(target, NULL, &ns), 0);
	while (storm_running(&c)) {
		struct mntsnap_snapshot *s = NULL;
		int fd = -1, r;

		r = mntsnap_ns_stat_path(ns, BASE "/inside/../inside", 0, &s);
		cr_assert_eq(r, 0, "ns_stat_path after %lu calls: %s", calls, strerror(-r));
		mntsnap_snapshot_free(s);
		calls++;
		if (calls % 16)
			continue;
		/* through the helper too (fewer: it costs a process each) */
		r = mntsnap_ns_open_file(ns, BASE "/inside/..", O_PATH, 0, NULL, &fd);
		cr_assert_eq(r, 0, "ns_open_file after %lu calls: %s", calls, strerror(-r));
		close(fd);
		calls++;
	}
	/* the target holds the storm's stop pipe too: it goes first */
	mntsnap_ns_free(ns);
	kill(target, SIGKILL);
	cr_assert_eq(waitpid(target, &st, 0), target);
	storm_stop(&c);
	fprintf(stderr, "churn dotdot: %lu resolutions with '..' in a target, 0 errors\n", calls);
}
