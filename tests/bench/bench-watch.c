// SPDX-License-Identifier: MIT
/*
 * bench-watch: what keeping a mount table current costs, per change, at
 * N = 1,000 / 10,000 / 50,000 mounts, against what the incumbents pay for
 * the same changes in the same run.
 *
 *   bench-watch [--quick] [--isolated] [N...]  (default 1000 10000 50000; root)
 *
 * For each N (a child process with its own private namespace, N binds):
 *  - watcher: a tmpfs mounted and unmounted E times, each change drained
 *    on its own; the CPU time of mntsnap_watch_drain() + reading the event
 *    (CLOCK_THREAD_CPUTIME_ID around exactly those calls), per event.
 *    MNTSNAP_WATCH_NO_SETTLE, so what is timed is the event path; the
 *    settle sweep, which the default mode runs at most once per 100 ms of
 *    busy table, is timed on its own (one sweep = one per-mount check).
 *  - findmnt --poll: the same changes while findmnt watches (each waited
 *    for on its output); its CPU time from wait4() minus that of a run
 *    that saw no change, per event.
 *  - mntsnap list --poll (the CLI at $MNTSNAP_BIN, skipped without it),
 *    timed as findmnt is: the whole CLI per printed change, which (unlike
 *    the watcher's event path) sweeps the table once per batch so that a
 *    change no event reports is printed as findmnt prints it.
 *  - ids-only refresh after one change against a bare paginated listmount
 *    of every id (raw syscalls, the floor of any listing), interleaved.
 * Medians where a distribution is timed; ratios printed in one line per N.
 * --isolated instead: one change with nothing near it, in the default mode
 * (the event, then the settle sweep it arms) and with --no-settle, next to
 * a bare read of the mountinfo text (the floor of a text-based check).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mntsnap.h"
#include "ratio.h"
#include "setup.h"
#include "uapi.h"

#define BASE "/tmp/mntsnap-bench-watch"
#define EXTRA BASE "/extra"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return v[n / 2];
}

static void toggle(int on)
{
	if (on ? mount("extra", EXTRA, "tmpfs", 0, NULL) : umount(EXTRA))
		bench_die(on ? "mount extra" : "umount extra");
}

/* ---- the watcher ----------------------------------------------------------------- */

static int drain_one(struct mntsnap_watch *w, double *cpu)
{
	struct pollfd p = {.fd = mntsnap_watch_fd(w), .events = POLLIN};
	struct mntsnap_watch_event e;
	int n = 0, r;
	double t0;

	if (poll(&p, 1, 5000) != 1)
		bench_die("watcher: no event within 5 s");
	t0 = cpu_now();
	r = mntsnap_watch_drain(w);
	while (r >= 0 && mntsnap_watch_next(w, &e) == 0)
		n++;
	*cpu += cpu_now() - t0;
	if (r < 0) {
		errno = -r;
		bench_die("drain");
	}
	return n;
}

/* CPU per event of the event path; *ret_sweep gets one settle sweep's CPU. */
static double watcher_cost(unsigned events, double *ret_sweep)
{
	MNTSNAP_OPTS(mntsnap_watch_opts, o, .flags = MNTSNAP_WATCH_NO_SETTLE);
	MNTSNAP_OPTS(mntsnap_watch_opts, d);
	struct mntsnap_watch *w;
	double cpu = 0, t0;
	unsigned got = 0;
	int r = mntsnap_watch_new(&o, &w);

	if (r || mntsnap_watch_route(w) != MNTSNAP_WATCH_ROUTE_FANOTIFY) {
		errno = r ? -r : ENOSYS;
		bench_die("watcher (fanotify mount events)");
	}
	for (unsigned i = 0; i < events; i++) {
		toggle(!(i & 1));
		got += (unsigned)drain_one(w, &cpu);
	}
	if (got != events) {
		fprintf(stderr, "bench-watch: %u events for %u changes\n", got, events);
		exit(1);
	}
	mntsnap_watch_free(w);

	/* default mode: a mount drained with its POLLPRI arms the settle sweep */
	if (mntsnap_watch_new(&d, &w))
		bench_die("watcher");
	toggle(1);
	drain_one(w, &t0);
	t0 = 0;
	drain_one(w, &t0); /* the timer's wake-up: the sweep */
	*ret_sweep = t0;
	toggle(0);
	mntsnap_watch_free(w);
	return cpu / events;
}

/* ---- one isolated change, both modes ------------------------------------------------ */

/*
 * What one change costs when nothing else happens near it: a mount or
 * umount drained on its own, then (default mode) the settle sweep its
 * POLLPRI arms 100 ms later, since POLLPRI cannot say whether a remount,
 * which fanotify does not report, came with the attach; with
 * MNTSNAP_WATCH_NO_SETTLE the event alone. CPU of the drains, medians of
 * rounds changes each.
 */
static void isolated_costs(unsigned rounds, double *ret_default, double *ret_nosettle)
{
	MNTSNAP_OPTS(mntsnap_watch_opts, ns, .flags = MNTSNAP_WATCH_NO_SETTLE);
	MNTSNAP_OPTS(mntsnap_watch_opts, d);
	double *td = calloc(rounds, sizeof(double)), *tn = calloc(rounds, sizeof(double));
	struct mntsnap_watch *w;

	if (!td || !tn || mntsnap_watch_new(&d, &w))
		bench_die("isolated: watcher");
	for (unsigned i = 0; i < rounds; i++) {
		toggle(!(i & 1));
		drain_one(w, &td[i]); /* the event; arms the settle timer */
		drain_one(w, &td[i]); /* the timer's wake-up: the sweep */
	}
	mntsnap_watch_free(w);
	if (rounds & 1)
		toggle(0);
	if (mntsnap_watch_new(&ns, &w))
		bench_die("isolated: watcher --no-settle");
	for (unsigned i = 0; i < rounds; i++) {
		toggle(!(i & 1));
		drain_one(w, &tn[i]);
	}
	mntsnap_watch_free(w);
	if (rounds & 1)
		toggle(0);
	*ret_default = median(td, rounds);
	*ret_nosettle = median(tn, rounds);
	free(td);
	free(tn);
}

/*
 * The alternative to the sweep that reads text: the kernel's mountinfo,
 * read whole (no parsing, no comparing: the floor of any exact check that
 * goes through the text). CPU, median.
 */
static double mountinfo_read_cost(unsigned rounds, double *ret_parsed)
{
	double *t = calloc(rounds, sizeof(double)), *tp = calloc(rounds, sizeof(double)), r;
	size_t cap = 64 << 20;
	char *buf = malloc(cap);

	if (!t || !tp || !buf)
		bench_die("mountinfo read");
	for (unsigned i = 0; i < rounds; i++) {
		double t0 = cpu_now();
		int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		struct mntsnap_snapshot *s;
		size_t len = 0;
		ssize_t n;

		if (fd < 0)
			bench_die("open mountinfo");
		while ((n = read(fd, buf + len, cap - len)) > 0)
			len += (size_t)n;
		close(fd);
		t[i] = cpu_now() - t0;
		/* and parsed into records, still without comparing anything */
		if (mntsnap_parse_mountinfo(buf, len, NULL, &s))
			bench_die("parse mountinfo");
		tp[i] = cpu_now() - t0;
		mntsnap_snapshot_free(s);
	}
	r = median(t, rounds);
	*ret_parsed = median(tp, rounds);
	free(t);
	free(tp);
	free(buf);
	return r;
}

/* ---- findmnt --poll and mntsnap list --poll ------------------------------------------ */

/* A poller: findmnt (cli NULL) or the CLI at cli, one "ACTION TARGET" line a change. */
static pid_t poller_start(const char *cli, int *ret_fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		bench_die("pipe");
	pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (!pid) {
		dup2(p[1], 1);
		if (cli)
			execl(cli, cli, "list", "--poll", "-r", "-n", "-o", "ACTION,TARGET", NULL);
		else
			execlp("findmnt", "findmnt", "--poll", "-r", "-n", "-o", "ACTION,TARGET", NULL);
		_exit(127);
	}
	close(p[1]);
	*ret_fd = p[0];
	return pid;
}

/* Wait (10 min at most) until the poller printed its line for the change. */
static void poller_wait(int fd)
{
	static char buf[65536];
	static size_t have;
	struct pollfd p = {.fd = fd, .events = POLLIN};

	for (;;) {
		char *nl = memchr(buf, '\n', have);
		ssize_t r;

		if (nl) {
			size_t len = (size_t)(nl - buf) + 1;

			memmove(buf, nl + 1, have - len);
			have -= len;
			return;
		}
		if (poll(&p, 1, 600000) != 1)
			bench_die("poller: no line within 10 min");
		r = read(fd, buf + have, sizeof(buf) - have);
		if (r <= 0)
			bench_die("poller: read (did it start?)");
		have += (size_t)r;
	}
}

/* CPU seconds the poller used, from wait4() after SIGTERM. */
static double poller_stop(pid_t pid, int fd)
{
	struct rusage ru;
	int st;

	kill(pid, SIGTERM);
	if (wait4(pid, &st, 0, &ru) != pid)
		bench_die("wait4 poller");
	close(fd);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* The poller's startup: its first read of the table, then idle polling. */
static void poller_settle(void)
{
	struct timespec ts = {1, 0};

	nanosleep(&ts, NULL);
}

/* CPU per change of a poller (see poller_start()), less its idle run's. */
static double poller_cost(const char *cli, unsigned events)
{
	double idle, busy;
	int fd;
	pid_t pid = poller_start(cli, &fd);

	poller_settle();
	idle = poller_stop(pid, fd);
	pid = poller_start(cli, &fd);
	poller_settle();
	for (unsigned i = 0; i < events; i++) {
		toggle(!(i & 1));
		poller_wait(fd);
	}
	busy = poller_stop(pid, fd);
	return (busy - idle) / events;
}

/* ---- ids-only refresh vs a bare listmount ------------------------------------------- */

static size_t bare_list(uint64_t *ids, size_t cap)
{
	struct mntsnap_k_mnt_id_req req = {.size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0,
					   .mnt_id = MNTSNAP_K_LSMT_ROOT};
	size_t n = 0;
	long r;

	do {
		req.param = n ? ids[n - 1] : 0;
		r = syscall(MNTSNAP_NR_listmount, &req, ids + n, cap - n < 4096 ? cap - n : 4096,
			    0);
		if (r < 0)
			bench_die("listmount");
		n += (size_t)r;
	} while (r == 4096 && n < cap);
	return n;
}

static double ids_only_ratio(unsigned rounds, double *ret_refresh, double *ret_list)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, c, .backend = MNTSNAP_BACKEND_STATMOUNT);
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .flags = MNTSNAP_CAPTURE_REFRESH_IDS_ONLY);
	double *tr = calloc(rounds, sizeof(double)), *tl = calloc(rounds, sizeof(double));
	uint64_t *ids = malloc(200000 * sizeof(*ids));
	struct mntsnap_snapshot *s;
	double ratio;

	if (!tr || !tl || !ids || mntsnap_capture(&c, &s))
		bench_die("ids-only setup");
	for (unsigned i = 0; i < rounds; i++) {
		double t0;

		toggle(!(i & 1));
		/*
		 * Whatever runs first after a mount change pays for it (cold
		 * caches, the namespace's event); so every other round the
		 * bare listing goes first, and both sides pay it equally often.
		 */
		if (i & 2) {
			t0 = wall_now();
			bare_list(ids, 200000);
			tl[i] = wall_now() - t0;
		}
		t0 = wall_now();
		if (mntsnap_refresh_with(s, &o) != 1)
			bench_die("ids-only refresh did not see the change");
		tr[i] = wall_now() - t0;
		if (!(i & 2)) {
			t0 = wall_now();
			bare_list(ids, 200000);
			tl[i] = wall_now() - t0;
		}
	}
	if (rounds & 1)
		toggle(0);
	*ret_refresh = median(tr, rounds);
	*ret_list = median(tl, rounds);
	ratio = *ret_refresh / *ret_list;
	mntsnap_snapshot_free(s);
	free(tr);
	free(tl);
	free(ids);
	return ratio;
}

/* ---- one table size ------------------------------------------------------------------- */

/* --isolated: one line per N, the cost of one change alone in each mode */
static void run_isolated(unsigned n, bool quick)
{
	unsigned rounds = quick ? 5 : 21;
	double def, nos, sweep, mi, mp;

	bench_setup_plain(BASE, n);
	if (mkdir(EXTRA, 0755))
		bench_die("mkdir extra");
	isolated_costs(rounds, &def, &nos);
	(void)watcher_cost(quick ? 10 : 100, &sweep);
	mi = mountinfo_read_cost(rounds, &mp);
	printf("%6u mounts | isolated change: default %8.3f ms (event + settle sweep) | "
	       "--no-settle %7.1f us | settle sweep alone %8.3f ms | mountinfo text read %8.3f ms, "
	       "read + parsed %8.3f ms\n",
	       n, def * 1e3, nos * 1e6, sweep * 1e3, mi * 1e3, mp * 1e3);
	fflush(stdout);
}

static void run_one(unsigned n, bool quick)
{
	unsigned ev = quick ? 40 : 1000;
	/* findmnt's table diff grows faster than the table (seconds per change
	 * at 10k): few events there, none at 50k unless asked for
	 * (BENCH_FINDMNT_EVENTS=n sets the count for every size, 0 skips) */
	unsigned fev = quick ? 6 : (n >= 50000 ? 0 : n >= 10000 ? 2 : 100);
	/* the CLI sweeps once per batch: flat per change up to 10,000, few at 50,000 */
	unsigned cev = quick ? 6 : (n >= 50000 ? 20 : 100);
	const char *cli = getenv("MNTSNAP_BIN");
	double w, sweep, f, c = 0, r, l;
	char words[96];

	bench_setup_plain(BASE, n);
	if (mkdir(EXTRA, 0755))
		bench_die("mkdir extra");
	if (getenv("BENCH_FINDMNT_EVENTS"))
		fev = (unsigned)atoi(getenv("BENCH_FINDMNT_EVENTS"));
	w = watcher_cost(ev, &sweep);
	f = fev ? poller_cost(NULL, fev) : 0;
	if (cli)
		c = poller_cost(cli, cev);
	ids_only_ratio(quick ? 5 : 31, &r, &l);
	printf("%6u mounts | watcher %6.2f us/event (%u events) | settle sweep %8.2f ms | ", n,
	       w * 1e6, ev, sweep * 1e3);
	if (fev)
		printf("findmnt --poll %11.1f us/event (%u events) | the watcher's CPU %s | ", f * 1e6, fev,
		       bench_vs(words, sizeof(words), w, f, "findmnt"));
	else
		printf("findmnt --poll not run (BENCH_FINDMNT_EVENTS=n) | ");
	if (cli && fev)
		printf("mntsnap list -p %11.1f us/event (%u events) | the CLI's CPU %s | ", c * 1e6, cev,
		       bench_vs(words, sizeof(words), c, f, "findmnt"));
	else if (cli)
		printf("mntsnap list -p %11.1f us/event (%u events) | ", c * 1e6, cev);
	else
		printf("mntsnap list -p not run (MNTSNAP_BIN unset) | ");
	printf("ids-only refresh %7.3f ms, bare listmount %7.3f ms: refresh %s\n", r * 1e3,
	       l * 1e3, bench_vs(words, sizeof(words), r, l, "a bare listmount"));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const unsigned def[] = {1000, 10000, 50000};
	unsigned sizes[16], nsizes = 0;
	bool quick = false, isolated = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--isolated"))
			isolated = true;
		else if (nsizes < 16 && atoi(argv[i]) > 0)
			sizes[nsizes++] = (unsigned)atoi(argv[i]);
		else {
			fprintf(stderr, "usage: bench-watch [--quick] [--isolated] [N...]\n");
			return 2;
		}
	}
	if (!nsizes) {
		for (unsigned i = 0; i < (quick ? 1 : 3); i++)
			sizes[nsizes++] = quick ? 200 : def[i];
	}
	if (system("findmnt --version >/dev/null 2>&1")) {
		fprintf(stderr, "bench-watch: needs findmnt\n");
		return 2;
	}
	mkdir(BASE, 0755);
	if (isolated)
		printf("bench-watch --isolated: CPU per change with nothing else near it, medians\n");
	else
		printf("bench-watch: CPU per mount/umount event; targets: watcher <= 20 us and flat "
		       "in N, at least 100x faster than findmnt --poll at 10,000, ids-only refresh "
		       "at most 1.5x slower than a bare listmount\n");
	fflush(stdout);
	for (unsigned i = 0; i < nsizes; i++) {
		int st;
		pid_t pid = fork();

		if (pid < 0)
			bench_die("fork");
		if (!pid) { /* each size in its own process and namespace */
			if (isolated)
				run_isolated(sizes[i], quick);
			else
				run_one(sizes[i], quick);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	return 0;
}
