// SPDX-License-Identifier: MIT
/*
 * bench-ns: what reading another mount namespace costs, at N mounts
 * (default 1000) in the target and in our own namespace alike.
 *
 *   own             mntsnap_capture() of our own namespace (the baseline)
 *   direct fd       the target by mnt_ns_fd, no entering (target <= 1.1x own)
 *   direct id       the target by mnt_ns_id
 *   enter           the helper: clone(CLONE_VM|CLONE_VFORK), setns, capture
 *                   inside, hand the snapshot over
 *   inside          the same capture, timed by a clock read inside the
 *                   helper: the capture itself, run where entering runs it
 *                   (enter - inside = the entering cost: target <= 100 us)
 *   helper no-op    mntsnap_ns_run() with an empty callback: the mechanism
 *   fork() no-op    what a fork()-based helper would pay, for contrast
 * each again with 512 MiB resident in the caller, and from a caller with 8
 * threads. Medians (and minimum) of K runs, interleaved. A program, not a
 * test: it prints numbers and never fails on them. Needs root.
 *
 *   bench-ns [--mounts N] [--rounds K] [--quick]
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mntsnap.h"
#include "ratio.h"
#include "setup.h"
#include "snapshot.h"

#define BASE "/tmp/mntsnap-bench-ns"

static unsigned n_mounts = 1000, rounds = 31;

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

struct row {
	const char *name;
	int (*fn)(void *ctx);
	void *ctx;
	double *inner; /* if set, fn stores the time to record here */
	double *t;
	double med, min;
};

/* Interleave the rows round by round so drift hits all of them alike. */
static void run_rows(struct row *rows, size_t nrows)
{
	for (size_t i = 0; i < nrows; i++) {
		rows[i].t = calloc(rounds, sizeof(double));
		if (!rows[i].t)
			bench_die("calloc");
		if (rows[i].fn(rows[i].ctx)) /* warm-up, and fail early */
			bench_die(rows[i].name);
	}
	for (unsigned k = 0; k < rounds; k++)
		for (size_t i = 0; i < nrows; i++) {
			double a = now_us();

			if (rows[i].fn(rows[i].ctx))
				bench_die(rows[i].name);
			rows[i].t[k] = rows[i].inner ? *rows[i].inner : now_us() - a;
		}
	for (size_t i = 0; i < nrows; i++) {
		qsort(rows[i].t, rounds, sizeof(double), dcmp);
		rows[i].med = rows[i].t[rounds / 2];
		rows[i].min = rows[i].t[0];
		free(rows[i].t);
	}
}

/* ---- the operations ---------------------------------------------------------- */

struct capctx {
	const struct mntsnap_ns *ns;
	uint32_t flags;
	size_t expect;
};

static int do_capture(void *p)
{
	struct capctx *c = p;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = c->ns, .flags = c->flags, .error = &err);
	int r = mntsnap_capture(&o, &s);

	if (r) {
		fprintf(stderr, "bench-ns: capture: %s (%s)\n", strerror(-r), err.msg);
		return r;
	}
	if (c->expect && mntsnap_snapshot_count(s) != c->expect) {
		fprintf(stderr, "bench-ns: %zu mounts, expected %zu\n", mntsnap_snapshot_count(s),
			c->expect);
		mntsnap_snapshot_free(s);
		return -EBADMSG;
	}
	mntsnap_snapshot_free(s);
	return 0;
}

static int noop_fn(void *data, void **ret_buf, size_t *ret_len)
{
	(void)data;
	(void)ret_buf;
	(void)ret_len;
	return 0;
}

static int do_noop_helper(void *p)
{
	void *buf = NULL;
	size_t len = 0;
	int r = mntsnap_ns_run(p, noop_fn, NULL, NULL, &buf, &len);

	free(buf);
	return r;
}

/* Inside the helper: the capture, timed there; the snapshot comes out. */
struct inside {
	double us;
	struct mntsnap_snapshot *snap;
};

static int inside_fn(void *data, void **ret_buf, size_t *ret_len)
{
	struct inside *in = malloc(sizeof(*in));
	double a;
	int r;

	(void)data;
	if (!in)
		return -ENOMEM;
	a = now_us();
	r = mntsnap_capture(NULL, &in->snap);
	in->us = now_us() - a;
	if (r) {
		free(in);
		return r;
	}
	*ret_buf = in;
	*ret_len = sizeof(*in);
	return 0;
}

struct insidectx {
	const struct mntsnap_ns *ns;
	size_t expect;
	double us;   /* the capture, timed inside */
	double over; /* the whole call minus that: what entering adds */
};

static int do_inside(void *p)
{
	struct insidectx *c = p;
	struct inside *in = NULL;
	size_t len = 0;
	double a = now_us();
	int r = mntsnap_ns_run(c->ns, inside_fn, NULL, NULL, (void **)&in, &len);

	if (r)
		return r;
	c->us = in->us;
	c->over = now_us() - a - in->us;
	r = mntsnap_snapshot_count(in->snap) == c->expect ? 0 : -EBADMSG;
	mntsnap_snapshot_free(in->snap);
	free(in);
	return r;
}

static int do_fork(void *p)
{
	pid_t c = fork();

	(void)p;
	if (c < 0)
		return -errno;
	if (c == 0)
		_exit(0);
	return waitpid(c, NULL, 0) == c ? 0 : -ECHILD;
}

/* ---- setup ------------------------------------------------------------------- */

static pid_t start_target(void)
{
	int p[2];
	pid_t c;
	char ch;

	if (pipe(p))
		bench_die("pipe");
	c = fork();
	if (c < 0)
		bench_die("fork");
	if (c == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		bench_setup_plain(BASE "/t", n_mounts);
		if (write(p[1], "k", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &ch, 1) != 1)
		bench_die("target setup");
	close(p[0]);
	return c;
}

static atomic_bool stop;

static void *idle_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		usleep(2000);
	return NULL;
}

static void print_rows(const char *title, struct row *rows, size_t n, double own_med)
{
	printf("\n%s\n", title);
	printf("  %-34s %10s %10s  %s\n", "operation", "median us", "min us",
	       "median compared with the own namespace's capture");
	for (size_t i = 0; i < n; i++) {
		char words[96];

		printf("  %-34s %10.1f %10.1f  %s\n", rows[i].name, rows[i].med, rows[i].min,
		       bench_vs(words, sizeof(words), rows[i].med, own_med, "own"));
	}
}

int main(int argc, char **argv)
{
	struct mntsnap_ns *byp, *byid, *self;
	struct mntsnap_snapshot *own_snap = NULL;
	pthread_t tids[8];
	char *big = NULL, w1[96], w2[96];
	pid_t target;
	size_t expect;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			n_mounts = 200;
			rounds = 5;
		} else if (!strcmp(argv[i], "--mounts") && i + 1 < argc) {
			n_mounts = (unsigned)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = (unsigned)strtoul(argv[++i], NULL, 0);
		} else {
			fprintf(stderr, "usage: bench-ns [--mounts N] [--rounds K] [--quick]\n");
			return 2;
		}
	}
	if (rounds < 1)
		rounds = 1;
	if (geteuid()) {
		fprintf(stderr, "bench-ns: needs root (mount namespaces); skipped\n");
		return 77;
	}
	mkdir(BASE, 0755);
	mkdir(BASE "/t", 0755);
	mkdir(BASE "/o", 0755);
	target = start_target();
	/* our own namespace gets the same table, so own and foreign compare */
	bench_setup_plain(BASE "/o", n_mounts);

	if (mntsnap_ns_open_pid(target, NULL, &byp) || mntsnap_ns_open_id(mntsnap_ns_id(byp), NULL, &byid) ||
	    mntsnap_ns_open_self(NULL, &self))
		bench_die("open namespace handles");
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = byp);

		if (mntsnap_capture(&o, &own_snap))
			bench_die("first capture");
		expect = mntsnap_snapshot_count(own_snap);
	}
	printf("bench-ns: %u bind mounts in the target and in our own namespace "
	       "(%zu mounts listed), %u rounds, kernel %s\n",
	       n_mounts, expect, rounds, own_snap->kernel_release);

	struct capctx own = { .ns = NULL }, dfd = { .ns = byp, .flags = MNTSNAP_CAPTURE_NS_DIRECT,
							  .expect = expect },
		      did = { .ns = byid, .flags = MNTSNAP_CAPTURE_NS_DIRECT, .expect = expect },
		      ent = { .ns = byp, .flags = MNTSNAP_CAPTURE_NS_ENTER, .expect = expect };
	struct insidectx ins = { .ns = byp, .expect = expect }, ins2 = ins;
	struct row small[] = {
		{ "own namespace snapshot", do_capture, &own },
		{ "foreign, direct (mnt_ns_fd)", do_capture, &dfd },
		{ "foreign, direct (mnt_ns_id)", do_capture, &did },
		{ "foreign, entering (helper)", do_capture, &ent },
		{ "  the capture itself, inside", do_inside, &ins, &ins.us },
		{ "  entering overhead, same call", do_inside, &ins2, &ins2.over },
		{ "helper round trip, no-op callback", do_noop_helper, byp },
		{ "fork()+_exit+waitpid, for contrast", do_fork, NULL },
	};
	run_rows(small, sizeof(small) / sizeof(small[0]));
	print_rows("single-threaded caller, small RSS", small, sizeof(small) / sizeof(small[0]),
		   small[0].med);

	/* 512 MiB resident: fork() pays for page tables, CLONE_VM does not */
	big = mmap(NULL, 512UL << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (big == MAP_FAILED)
		bench_die("mmap 512 MiB");
	memset(big, 1, 512UL << 20);
	struct row rss[] = {
		{ "own namespace snapshot", do_capture, &own },
		{ "foreign, direct (mnt_ns_fd)", do_capture, &dfd },
		{ "foreign, entering (helper)", do_capture, &ent },
		{ "  the capture itself, inside", do_inside, &ins, &ins.us },
		{ "  entering overhead, same call", do_inside, &ins2, &ins2.over },
		{ "helper round trip, no-op callback", do_noop_helper, byp },
		{ "fork()+_exit+waitpid, for contrast", do_fork, NULL },
	};
	run_rows(rss, sizeof(rss) / sizeof(rss[0]));
	print_rows("single-threaded caller, 512 MiB resident", rss, sizeof(rss) / sizeof(rss[0]),
		   rss[0].med);

	for (int i = 0; i < 8; i++)
		if (pthread_create(&tids[i], NULL, idle_thread, NULL))
			bench_die("pthread_create");
	struct row thr[] = {
		{ "own namespace snapshot", do_capture, &own },
		{ "foreign, direct (mnt_ns_fd)", do_capture, &dfd },
		{ "foreign, entering (helper)", do_capture, &ent },
		{ "  the capture itself, inside", do_inside, &ins, &ins.us },
		{ "  entering overhead, same call", do_inside, &ins2, &ins2.over },
		{ "helper round trip, no-op callback", do_noop_helper, byp },
	};
	run_rows(thr, sizeof(thr) / sizeof(thr[0]));
	print_rows("caller with 8 threads (and 512 MiB resident)", thr,
		   sizeof(thr) / sizeof(thr[0]), thr[0].med);
	atomic_store(&stop, true);
	for (int i = 0; i < 8; i++)
		pthread_join(tids[i], NULL);

	/*
	 * The overhead target is judged on "same call": the helper's whole
	 * round trip minus the capture it timed inside, per call. A difference
	 * of two ~3 ms medians carries their jitter (+-200 us here) and is
	 * printed only as a cross-check.
	 */
	printf("\ntargets: direct fd %s (goal: at most 1.10x slower than own); entering overhead over the "
	       "capture itself (same call, median) %.1f us small RSS, %.1f us at 512 MiB, %.1f us "
	       "threaded (goal <= 100 us); difference of medians %.1f / %.1f / %.1f us; entering "
	       "%s; no-op helper %.1f / %.1f / %.1f us\n",
	       bench_vs(w1, sizeof(w1), small[1].med, small[0].med, "own"), small[5].med,
	       rss[4].med, thr[4].med, small[3].med - small[4].med, rss[2].med - rss[3].med,
	       thr[2].med - thr[3].med, bench_vs(w2, sizeof(w2), small[3].med, small[0].med, "own"),
	       small[6].med, rss[5].med, thr[5].med);

	munmap(big, 512UL << 20);
	mntsnap_snapshot_free(own_snap);
	mntsnap_ns_free(byp);
	mntsnap_ns_free(byid);
	mntsnap_ns_free(self);
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	return 0;
}
