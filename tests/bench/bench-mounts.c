// SPDX-License-Identifier: MIT
/*
 * bench-mounts: mntsnap against the kernel's own text, libmount and bare
 * listmount/statmount loops, side by side in one run.
 *
 * Every (setup, N) runs in a forked child that builds its mounts itself in
 * a private mount namespace with mount(2) and dies afterwards, taking the
 * namespace (and every mount in it) with it. The host is never touched.
 *
 *   plain: N bind mounts of one tmpfs directory onto N directories.
 *   peers: N bind mounts of one shared mount (all peers of one group),
 *          measured from a second namespace in which they are all slaves
 *          of that group: there the kernel's mountinfo text costs
 *          O(N x peers) because of propagate_from (get_dominating_id()).
 *   opts:  N tmpfs mounts, each with its own source name and option
 *          values (size=, mode=, uid=, ...): only the renderers run here,
 *          on records that share no option string with their neighbours
 *          (plain's binds all share one).
 *
 * Timings are best-of-K (CLOCK_MONOTONIC) over rounds that interleave all
 * methods of a (setup, N), so load from elsewhere hits them alike. The
 * parent prints a table of ns per mount with ratios against the reference
 * of each row and the targets, and writes a CSV for
 * tests/bench/plot.sh. No assertions on timing: this is a program, not a
 * test; CI runs it with --quick as a smoke test only (exit 1 if a method
 * failed).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mntsnap.h"
#include "ratio.h"
#include "setup.h"
#include "uapi.h"

#ifdef BENCH_HAVE_LIBMOUNT
#include <libmount.h>
#endif

#define MAX_NS 16
#define SM_BUF_START 4096 /* what lib/backend-statmount.c offers each call first */
#define LIST_PAGE 4096
#define LOOKUP_WINDOW 50
#define CHEAP_NS 100e6

/* ---- results: one row per (setup, n, method), sent child -> parent ----- */

enum { ST_OK = 0, ST_NA = 1, ST_ERR = 2 };

struct row {
	char setup[8];
	uint32_t n;	 /* requested mounts */
	uint32_t mounts; /* mounts actually in the table (the per-mount divisor) */
	char method[40];
	double ns; /* best total ns per operation (or bytes for mem-*) */
	int status;
	char note[64];
};

struct ctx {
	const char *setup;
	unsigned n, k;
	const char *base;
	size_t mounts;
	int out;	   /* pipe to the parent */
	uint64_t probe_id; /* a mount in the middle of the table */
	int probe_id_old;
	char probe_path[256];
	uint64_t sm_mask_floor; /* what mntsnap asks the kernel by default */
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what)
{
	bench_die(what);
}

static void emit(struct ctx *c, const char *method, double ns, int status, const char *note)
{
	struct row r = {0};

	snprintf(r.setup, sizeof(r.setup), "%s", c->setup);
	r.n = c->n;
	r.mounts = (uint32_t)c->mounts;
	snprintf(r.method, sizeof(r.method), "%s", method);
	r.ns = ns;
	r.status = status;
	snprintf(r.note, sizeof(r.note), "%s", note ? note : "");
	if (write(c->out, &r, sizeof(r)) != (ssize_t)sizeof(r))
		die("write result");
}

typedef int (*bench_fn)(struct ctx *c, void *arg);

/*
 * One measured method. All cases of a (setup, N) run interleaved, one
 * round at a time (round k runs every case once), and each keeps its best
 * round: load from other processes then hits every method alike, so the
 * ratios stay meaningful on a shared machine even when absolute times move.
 */
struct bcase {
	const char *method;
	bench_fn fn;
	void *arg;
	unsigned reps; /* calls per round; the time reported is per call */
	double best;
	int err;
};

static void run_cases(struct ctx *c, struct bcase *cs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cs[i].best = INFINITY;
	/*
	 * K rounds for everything; cases whose best round is under
	 * CHEAP_NS get 3K more, which costs little and, on a shared
	 * machine, makes their best much more likely to be a quiet one.
	 */
	for (unsigned k = 0; k < 4 * c->k; k++) {
		for (size_t i = 0; i < n; i++) {
			double t0;
			int r = 0;

			if (cs[i].err || (k >= c->k && cs[i].best * cs[i].reps > CHEAP_NS))
				continue;
			/*
			 * Repeated calls (lookups) are timed in windows of
			 * LOOKUP_WINDOW calls, best window wins: on a busy
			 * machine a long window almost surely contains a
			 * preemption, a short one often does not.
			 */
			for (unsigned done = 0; done < cs[i].reps && r >= 0;) {
				unsigned w = cs[i].reps - done < LOOKUP_WINDOW ? cs[i].reps - done
									       : LOOKUP_WINDOW;

				t0 = now_ns();
				for (unsigned j = 0; j < w && r >= 0; j++)
					r = cs[i].fn(c, cs[i].arg);
				double t = (now_ns() - t0) / w;

				if (r >= 0 && t < cs[i].best)
					cs[i].best = t;
				done += w;
			}
			if (r < 0)
				cs[i].err = r;
		}
	}
	for (size_t i = 0; i < n; i++) {
		char note[64];

		if (!cs[i].err) {
			emit(c, cs[i].method, cs[i].best, ST_OK, NULL);
			continue;
		}
		snprintf(note, sizeof(note), "error: %s", strerror(-cs[i].err));
		emit(c, cs[i].method, 0, ST_ERR, note);
	}
}

/* ---- methods: kernel text and libmount ---------------------------------- */

struct textbuf {
	char *buf;
	size_t cap, len;
};

static int read_mountinfo(struct ctx *c, void *arg)
{
	struct textbuf *t = arg;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	ssize_t r;

	(void)c;
	if (fd < 0)
		return -errno;
	t->len = 0;
	for (;;) {
		if (t->cap - t->len < 65536) {
			char *nb = realloc(t->buf, t->cap * 2 + 65536);

			if (!nb) {
				close(fd);
				return -ENOMEM;
			}
			t->buf = nb;
			t->cap = t->cap * 2 + 65536;
		}
		r = read(fd, t->buf + t->len, t->cap - t->len);
		if (r < 0) {
			r = -errno;
			close(fd);
			return (int)r;
		}
		if (r == 0)
			break;
		t->len += (size_t)r;
	}
	close(fd);
	return 0;
}

#ifdef BENCH_HAVE_LIBMOUNT
static int libmount_parse(struct ctx *c, void *arg)
{
	struct libmnt_table *tb = mnt_new_table();
	int r;

	(void)c;
	(void)arg;
	if (!tb)
		return -ENOMEM;
	r = mnt_table_parse_file(tb, "/proc/self/mountinfo");
	mnt_unref_table(tb);
	return r < 0 ? r : 0;
}

static int libmount_find_id(struct ctx *c, void *arg)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	int r, found = 0;

	(void)arg;
	if (!tb || !it)
		return -ENOMEM;
	r = mnt_table_parse_file(tb, "/proc/self/mountinfo");
	while (r >= 0 && mnt_table_next_fs(tb, it, &fs) == 0)
		if (mnt_fs_get_id(fs) == c->probe_id_old) {
			found = 1;
			break;
		}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	return r < 0 ? r : found ? 0 : -ENOENT;
}

static int libmount_find_path(struct ctx *c, void *arg)
{
	struct libmnt_table *tb = mnt_new_table();
	int r;

	(void)arg;
	if (!tb)
		return -ENOMEM;
	r = mnt_table_parse_file(tb, "/proc/self/mountinfo");
	if (r >= 0 && !mnt_table_find_target(tb, c->probe_path, MNT_ITER_BACKWARD))
		r = -ENOENT;
	mnt_unref_table(tb);
	return r < 0 ? r : 0;
}
#endif

/* ---- methods: the bare syscall floor --------------------------------------- */

struct bare {
	uint64_t *ids;
	size_t nids, cap;
	struct mntsnap_k_statmount *sm;
	size_t smsize;
	uint64_t mask;
};

static long sys_listmount(struct mntsnap_k_mnt_id_req *req, uint64_t *ids, size_t n)
{
	long r = syscall(MNTSNAP_NR_listmount, req, ids, n, 0);

	return r < 0 ? -errno : r;
}

static long sys_statmount(uint64_t id, uint64_t mask, struct bare *b)
{
	struct mntsnap_k_mnt_id_req req = {.size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0, .mnt_id = id, .param = mask};

	for (;;) {
		long r = syscall(MNTSNAP_NR_statmount, &req, b->sm, b->smsize, 0);

		if (r == 0)
			return 0;
		if (errno != EOVERFLOW)
			return -errno;
		/* same strategy as the library: double and retry */
		void *n = realloc(b->sm, b->smsize * 2);

		if (!n)
			return -ENOMEM;
		b->sm = n;
		b->smsize *= 2;
	}
}

static int bare_list(struct bare *b)
{
	struct mntsnap_k_mnt_id_req req = {.size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0, .mnt_id = MNTSNAP_K_LSMT_ROOT};
	long r;

	b->nids = 0;
	for (;;) {
		if (b->cap - b->nids < LIST_PAGE) {
			uint64_t *n = realloc(b->ids, (b->cap + 2 * LIST_PAGE) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			b->ids = n;
			b->cap += 2 * LIST_PAGE;
		}
		r = sys_listmount(&req, b->ids + b->nids, LIST_PAGE);
		if (r < 0)
			return (int)r;
		b->nids += (size_t)r;
		if (r < LIST_PAGE)
			return 0;
		req.param = b->ids[b->nids - 1];
	}
}

/* listmount + one statmount per id with the given mask: the floor. */
static int bare_walk(struct ctx *c, void *arg)
{
	struct bare *b = arg;
	uint64_t sum = 0;
	int r = bare_list(b);

	(void)c;
	if (r < 0)
		return r;
	for (size_t i = 0; i < b->nids; i++) {
		long s = sys_statmount(b->ids[i], b->mask, b);

		if (s == -ENOENT)
			continue;
		if (s < 0)
			return (int)s;
		sum += b->sm->mask;
	}
	/* use the result so nothing can be optimised away */
	return sum ? 0 : -EIO;
}

static void bare_init(struct bare *b, uint64_t mask)
{
	memset(b, 0, sizeof(*b));
	b->mask = mask;
	b->smsize = SM_BUF_START;
	b->sm = malloc(b->smsize);
	if (!b->sm)
		die("malloc");
}

static void bare_free(struct bare *b)
{
	free(b->ids);
	free(b->sm);
}

struct half {
	struct bare *b;
	size_t lo, hi;
	struct mntsnap_k_statmount *sm;
	size_t smsize;
	int err;
};

static void *bare_half(void *arg)
{
	struct half *h = arg;
	struct bare mine = {.sm = h->sm, .smsize = h->smsize, .mask = h->b->mask};

	for (size_t i = h->lo; i < h->hi && !h->err; i++) {
		long s = sys_statmount(h->b->ids[i], mine.mask, &mine);

		if (s < 0 && s != -ENOENT)
			h->err = (int)s;
	}
	h->sm = mine.sm;
	h->smsize = mine.smsize;
	return NULL;
}

/* The floor split over two threads (even halves): what 2 cores allow. */
static int bare_walk_t2(struct ctx *c, void *arg)
{
	struct bare *b = arg;
	struct half h[2];
	pthread_t tid;
	int r = bare_list(b);

	(void)c;
	if (r < 0)
		return r;
	for (int i = 0; i < 2; i++) {
		h[i] = (struct half){.b = b,
				     .lo = b->nids * (size_t)i / 2,
				     .hi = b->nids * (size_t)(i + 1) / 2,
				     .smsize = SM_BUF_START};
		h[i].sm = malloc(SM_BUF_START);
		if (!h[i].sm)
			return -ENOMEM;
	}
	if (pthread_create(&tid, NULL, bare_half, &h[1]))
		return -EAGAIN;
	bare_half(&h[0]);
	pthread_join(tid, NULL);
	free(h[0].sm);
	free(h[1].sm);
	return h[0].err ? h[0].err : h[1].err;
}

static int bare_stat_id(struct ctx *c, void *arg)
{
	struct bare *b = arg;

	return (int)sys_statmount(c->probe_id, b->mask, b);
}

static int bare_stat_path(struct ctx *c, void *arg)
{
	struct bare *b = arg;
	struct mntsnap_statx stx;

	memset(&stx, 0, sizeof(stx));
	if (syscall(SYS_statx, AT_FDCWD, c->probe_path, AT_NO_AUTOMOUNT,
		    MNTSNAP_STATX_MNT_ID_UNIQUE, &stx))
		return -errno;
	return (int)sys_statmount(stx.stx_mnt_id, b->mask, b);
}

/* ---- methods: mntsnap ------------------------------------------------------ */

struct cap {
	uint32_t flags;
	int backend;
	unsigned threads;
};

static int mntsnap_cap(struct ctx *c, void *arg)
{
	struct cap *a = arg;
	struct mntsnap_snapshot *s = NULL;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .flags = a->flags, .backend = a->backend,
		     .threads = a->threads,
		     .mountinfo_path =
			 a->backend == MNTSNAP_BACKEND_MOUNTINFO ? "/proc/self/mountinfo" : NULL);
	int r = mntsnap_capture(&o, &s);

	(void)c;
	if (r < 0)
		return r;
	r = mntsnap_snapshot_count(s) ? 0 : -EIO;
	mntsnap_snapshot_free(s);
	return r;
}

static int mntsnap_stat_id_fn(struct ctx *c, void *arg)
{
	struct mntsnap_snapshot *s;
	int r = mntsnap_stat_id(NULL, c->probe_id, 0, &s);

	(void)arg;
	if (r < 0)
		return r;
	mntsnap_snapshot_free(s);
	return 0;
}

static int mntsnap_stat_path_fn(struct ctx *c, void *arg)
{
	struct mntsnap_snapshot *s;
	int r = mntsnap_stat_path(c->probe_path, 0, &s);

	(void)arg;
	if (r < 0)
		return r;
	mntsnap_snapshot_free(s);
	return 0;
}

/* ---- one (setup, n) ------------------------------------------------------ */

static void find_probe(struct ctx *c)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	int r;

	/* the middle bind mount: "<base>/m/<n/2>" */
	snprintf(c->probe_path, sizeof(c->probe_path), "%s/m/%u", c->base, c->n / 2);
	r = mntsnap_stat_path(c->probe_path, MNTSNAP_F_ID | MNTSNAP_F_ID_OLD, &s);
	if (r < 0) {
		errno = -r;
		die("probe mount");
	}
	mntsnap_snapshot_get(s, 0, &m);
	c->probe_id = m.id;
	c->probe_id_old = (int)m.id_old;
	mntsnap_snapshot_free(s);
}

static void bench_memory(struct ctx *c, const struct textbuf *t)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, o);
	struct mntsnap_snapshot *s = NULL;
	struct mallinfo2 before, after;
	char note[64];
	int r;

	before = mallinfo2();
	r = mntsnap_capture(&o, &s);
	after = mallinfo2();
	if (r < 0) {
		emit(c, "mem-snapshot", 0, ST_ERR, strerror(-r));
		return;
	}
	/* the library's own account, and what malloc saw, side by side */
	snprintf(note, sizeof(note), "malloc delta %zu B",
		 (size_t)(after.uordblks - before.uordblks));
	emit(c, "mem-snapshot", (double)mntsnap_snapshot_memory(s), ST_OK, note);
	emit(c, "mem-mountinfo", (double)t->len, ST_OK, NULL);
	mntsnap_snapshot_free(s);
}

/*
 * mntsnap_refresh() of a snapshot after one change (a tmpfs mounted or
 * unmounted again), against the full capture rows of the same run. Only
 * the refresh is timed, not the mount(2) that made the change.
 */
static void bench_refresh(struct ctx *c)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, o);
	struct mntsnap_snapshot *s = NULL;
	double best = INFINITY;
	char path[600], note[64];
	int r;

	snprintf(path, sizeof(path), "%s/refresh", c->base);
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir refresh");
	r = mntsnap_capture(&o, &s);
	for (unsigned k = 0; r >= 0 && k < 2 * c->k; k++) {
		double t0;

		bench_toggle_mount(path, !(k & 1));
		t0 = now_ns();
		r = mntsnap_refresh(s);
		if (now_ns() - t0 < best)
			best = now_ns() - t0;
		if (r == 0)
			r = -ENODATA; /* it must have seen the change */
	}
	mntsnap_snapshot_free(s);
	if (r < 0) {
		snprintf(note, sizeof(note), "error: %s", strerror(-r));
		emit(c, "refresh-1", 0, ST_ERR, note);
		return;
	}
	emit(c, "refresh-1", best, ST_OK, NULL);
}

/* ---- methods: rendering, and whole processes -------------------------- */

struct rend {
	struct mntsnap_snapshot *snap;
	int format;
	FILE *f; /* /dev/null with a large buffer: the renderer's cost, not write(2)'s */
};

static int render_fn(struct ctx *c, void *arg)
{
	struct rend *r = arg;

	(void)c;
	return mntsnap_render(r->snap, r->format, r->f);
}

/* argv run to completion with stdout on /dev/null; the whole process is timed */
static int proc_fn(struct ctx *c, void *arg)
{
	char *const *argv = arg;
	pid_t pid;
	int st;

	(void)c;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

static void bench_render(struct ctx *c)
{
	static const struct {
		const char *method;
		int format;
	} fmts[] = {
		{ "render-mountinfo", MNTSNAP_FORMAT_MOUNTINFO },
		{ "render-json", MNTSNAP_FORMAT_JSON },
		{ "render-table", MNTSNAP_FORMAT_TABLE },
		{ "render-tree", MNTSNAP_FORMAT_TREE },
	};
	const char *cli = getenv("MNTSNAP_BIN");
	char *cli_json[] = { (char *)cli, "list", "-J", NULL };
	char *cli_tree[] = { (char *)cli, "list", NULL };
	char *fm_json[] = { "findmnt", "-J", NULL };
	char *fm_tree[] = { "findmnt", NULL };
	struct rend rd[4];
	struct bcase cs[8];
	size_t n = 0;
	struct mntsnap_snapshot *snap = NULL;
	static char buf[1 << 20];
	FILE *f = fopen("/dev/null", "we");
	MNTSNAP_OPTS(mntsnap_capture_opts, o);

	if (!f || mntsnap_capture(&o, &snap))
		die("render setup");
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	for (size_t i = 0; i < 4; i++) {
		rd[i] = (struct rend){ .snap = snap, .format = fmts[i].format, .f = f };
		cs[n++] = (struct bcase){ .method = fmts[i].method, .fn = render_fn, .arg = &rd[i],
					  .reps = 1 };
	}
	/*
	 * The renderers' rounds run apart from the whole-process rows: after
	 * every fork() each page this process writes is copy-on-write again,
	 * which would charge a renderer one page fault per 4 KiB of output
	 * (JSON writes 5x the bytes of mountinfo) on top of its own work.
	 */
	run_cases(c, cs, n);
	n = 0;
	if (cli) {
		cs[n++] = (struct bcase){ .method = "cli-list-json", .fn = proc_fn, .arg = cli_json,
					  .reps = 1 };
		cs[n++] = (struct bcase){ .method = "cli-list", .fn = proc_fn, .arg = cli_tree,
					  .reps = 1 };
	}
	if (!proc_fn(c, (char *[]){ "findmnt", "--version", NULL })) {
		cs[n++] = (struct bcase){ .method = "findmnt-json", .fn = proc_fn, .arg = fm_json,
					  .reps = 1 };
		cs[n++] = (struct bcase){ .method = "findmnt", .fn = proc_fn, .arg = fm_tree,
					  .reps = 1 };
	}
	run_cases(c, cs, n);
	if (!cli)
		emit(c, "cli-list-json", 0, ST_NA, "MNTSNAP_BIN not set");
	mntsnap_snapshot_free(snap);
	fclose(f);
}

static void bench_one(struct ctx *c)
{
	struct textbuf t = {0};
	struct bare b = {0}, bpf = {0}, bt2 = {0}, bid = {0};
	struct cap def = {0}, kpf = {.flags = MNTSNAP_CAPTURE_KERNEL_PROPAGATE_FROM},
		   par = {.threads = 2}, mi = {.backend = MNTSNAP_BACKEND_MOUNTINFO};
	unsigned lookups = c->mounts > 20000 ? 200 : 1000;
	bool plain = !strcmp(c->setup, "plain"), have_mi;
	struct bcase cs[24];
	size_t n = 0;
	int r;

	bare_init(&b, c->sm_mask_floor);
	bare_init(&bpf, c->sm_mask_floor | MNTSNAP_K_STATMOUNT_PROPAGATE_FROM);
	bare_init(&bt2, c->sm_mask_floor);
	/* one mount: the default mask (propagate_from included, as the library) */
	bare_init(&bid, c->sm_mask_floor | MNTSNAP_K_STATMOUNT_PROPAGATE_FROM);
	if (read_mountinfo(c, &t) < 0 || bare_list(&b) < 0)
		die("first read");
	c->mounts = b.nids;
	find_probe(c);
	/* the mountinfo backend, as far as it exists in this build */
	r = mntsnap_cap(c, &mi);
	have_mi = !(r == -EINVAL || r == -ENOSYS || r == -EOPNOTSUPP);

#define CASE(M, F, A, R)                                                                           \
	(cs[n++] = (struct bcase){.method = (M), .fn = (F), .arg = (A), .reps = (R)})
	CASE("read-mountinfo", read_mountinfo, &t, 1);
#ifdef BENCH_HAVE_LIBMOUNT
	CASE("libmount-parse", libmount_parse, NULL, 1);
#endif
	if (have_mi)
		CASE("mntsnap-mountinfo", mntsnap_cap, &mi, 1);
	CASE("bare-floor", bare_walk, &b, 1);
	CASE("bare-floor+pf", bare_walk, &bpf, 1);
	CASE("bare-floor-t2", bare_walk_t2, &bt2, 1);
	CASE("mntsnap-capture", mntsnap_cap, &def, 1);
	CASE("mntsnap-capture-kpf", mntsnap_cap, &kpf, 1);
	CASE("mntsnap-capture-t2", mntsnap_cap, &par, 1);
	if (plain) {
		CASE("stat-id-bare", bare_stat_id, &bid, lookups);
		CASE("stat-id-mntsnap", mntsnap_stat_id_fn, NULL, lookups);
		CASE("stat-path-bare", bare_stat_path, &bid, lookups);
		CASE("stat-path-mntsnap", mntsnap_stat_path_fn, NULL, lookups);
#ifdef BENCH_HAVE_LIBMOUNT
		CASE("stat-id-libmount", libmount_find_id, NULL, 1);
		CASE("stat-path-libmount", libmount_find_path, NULL, 1);
#endif
	}
#undef CASE
	run_cases(c, cs, n);
#ifndef BENCH_HAVE_LIBMOUNT
	emit(c, "libmount-parse", 0, ST_NA, "built without libmount");
#endif
	if (!have_mi)
		emit(c, "mntsnap-mountinfo", 0, ST_NA, "n/a (not built)");
	bench_refresh(c);
	if (plain)
		bench_render(c);
	bench_memory(c, &t);
	free(t.buf);
	bare_free(&b);
	bare_free(&bpf);
	bare_free(&bt2);
	bare_free(&bid);
}

/* The statmount mask the library asks for by default, minus propagate_from. */
static uint64_t floor_mask(void)
{
	return MNTSNAP_K_STATMOUNT_SB_BASIC | MNTSNAP_K_STATMOUNT_MNT_BASIC | MNTSNAP_K_STATMOUNT_MNT_ROOT | MNTSNAP_K_STATMOUNT_MNT_POINT |
	       MNTSNAP_K_STATMOUNT_FS_TYPE | MNTSNAP_K_STATMOUNT_FS_SUBTYPE | MNTSNAP_K_STATMOUNT_SB_SOURCE | MNTSNAP_K_STATMOUNT_MNT_OPTS |
	       MNTSNAP_K_STATMOUNT_MNT_NS_ID;
}

/* Only the renderers, on a table whose records share no options. */
static void bench_opts(struct ctx *c)
{
	struct mntsnap_snapshot *s = NULL;
	MNTSNAP_OPTS(mntsnap_capture_opts, o);

	if (mntsnap_capture(&o, &s))
		die("opts capture");
	c->mounts = mntsnap_snapshot_count(s);
	mntsnap_snapshot_free(s);
	bench_render(c);
}

static void child(struct ctx *c)
{
	if (!strcmp(c->setup, "opts")) {
		bench_setup_opts(c->base, c->n);
		bench_opts(c);
		return;
	}
	if (!strcmp(c->setup, "plain"))
		bench_setup_plain(c->base, c->n);
	else
		bench_setup_peers(c->base, c->n);
	c->sm_mask_floor = floor_mask();
	bench_one(c);
}

static int run_child(struct ctx *c, struct row **rows, size_t *nrows)
{
	int p[2], st;
	pid_t pid;
	struct row r;
	double t0 = now_ns();

	if (pipe2(p, O_CLOEXEC))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(p[0]);
		c->out = p[1];
		child(c);
		_exit(0);
	}
	close(p[1]);
	while (read(p[0], &r, sizeof(r)) == (ssize_t)sizeof(r)) {
		struct row *nr = realloc(*rows, (*nrows + 1) * sizeof(**rows));

		if (!nr)
			die("realloc");
		*rows = nr;
		(*rows)[(*nrows)++] = r;
	}
	close(p[0]);
	if (waitpid(pid, &st, 0) < 0)
		die("waitpid");
	fprintf(stderr, "bench-mounts: %s N=%u done in %.1f s\n", c->setup, c->n,
		(now_ns() - t0) / 1e9);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* ---- report ------------------------------------------------------------------ */

/*
 * What each row is compared with, and the target for the ratio.
 * kind 'le': ratio = this / ref must be <= target. 'ge': ratio = ref / this
 * (how many times faster this is) must be >= target.
 */
struct target {
	const char *setup; /* NULL = any */
	const char *method, *ref;
	char kind;
	double target;
	unsigned only_n; /* 0 = every N */
};

static const struct target targets[] = {
    {NULL, "libmount-parse", "read-mountinfo", 'l', 0, 0},
    {NULL, "mntsnap-mountinfo", "read-mountinfo", 'l', 1.3, 0},
    {NULL, "mntsnap-mountinfo", "libmount-parse", 'g', 2.0, 0},
    {NULL, "bare-floor+pf", "bare-floor", 'l', 0, 0},
    {NULL, "bare-floor-t2", "bare-floor", 'l', 0, 0},
    {NULL, "mntsnap-capture", "bare-floor", 'l', 1.1, 0},
    {"plain", "mntsnap-capture", "read-mountinfo", 'g', 0, 0},
    {"peers", "mntsnap-capture", "read-mountinfo", 'g', 10.0, 0},
    {NULL, "mntsnap-capture-kpf", "bare-floor+pf", 'l', 1.1, 0},
    {NULL, "mntsnap-capture-t2", "bare-floor", 'l', 0.6, 10000},
    {NULL, "mntsnap-capture-t2", "read-mountinfo", 'g', 0, 0},
    {NULL, "stat-id-mntsnap", "stat-id-bare", 'l', 1.2, 0},
    {NULL, "stat-path-mntsnap", "stat-path-bare", 'l', 2.0, 0},
    {NULL, "stat-id-mntsnap", "stat-id-libmount", 'g', 1000, 10000},
    {NULL, "stat-path-mntsnap", "stat-path-libmount", 'g', 1000, 10000},
    {NULL, "refresh-1", "mntsnap-capture", 'l', 0, 0},
    {NULL, "mem-snapshot", "mem-mountinfo", 'l', 1.5, 0},
    {NULL, "render-mountinfo", "read-mountinfo", 'l', 0, 0},
    {NULL, "render-json", "render-mountinfo", 'l', 1.5, 0},
    {NULL, "render-table", "render-mountinfo", 'l', 1.5, 0},
    {NULL, "render-tree", "render-mountinfo", 'l', 1.5, 0},
    {NULL, "cli-list-json", "findmnt-json", 'l', 0.05, 10000},
    {NULL, "cli-list", "findmnt", 'l', 0, 0},
};

static const struct row *find_row(const struct row *rows, size_t n, const struct row *like,
				  const char *method)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].n == like->n && !strcmp(rows[i].setup, like->setup) &&
		    !strcmp(rows[i].method, method))
			return &rows[i];
	return NULL;
}

static bool is_mem(const struct row *r)
{
	return !strncmp(r->method, "mem-", 4);
}

static bool is_lookup(const struct row *r)
{
	return !strncmp(r->method, "stat-", 5);
}

static void print_table(FILE *f, const struct row *rows, size_t n, int cores,
			const double load[2][3])
{
	fprintf(f, "# bench-mounts on %d cores; best-of-K; per-mount = total / mounts in table\n",
		cores);
	/* other work on the machine moves absolute times (ratios less so) */
	fprintf(f, "# load average at start %.2f %.2f %.2f, at end %.2f %.2f %.2f\n", load[0][0],
		load[0][1], load[0][2], load[1][0], load[1][1], load[1][2]);
	fprintf(f, "%-6s %6s %6s %-20s %14s %12s  %s\n", "setup", "N", "mounts", "method", "total",
		"per mount", "compared with the reference [goal: met or MISSED]");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		char total[32], per[32];

		if (r->status != ST_OK) {
			fprintf(f, "%-6s %6u %6u %-20s %14s %12s  %s\n", r->setup, r->n, r->mounts,
				r->method, "-", "-", r->note);
			continue;
		}
		if (is_mem(r)) {
			snprintf(total, sizeof(total), "%.0f B", r->ns);
			snprintf(per, sizeof(per), "%.1f B", r->ns / r->mounts);
		} else if (is_lookup(r)) {
			snprintf(total, sizeof(total), "%.0f ns", r->ns);
			snprintf(per, sizeof(per), "(1 lookup)");
		} else {
			snprintf(total, sizeof(total), "%.3f ms", r->ns / 1e6);
			snprintf(per, sizeof(per), "%.1f ns", r->ns / r->mounts);
		}
		fprintf(f, "%-6s %6u %6u %-20s %14s %12s ", r->setup, r->n, r->mounts, r->method,
			total, per);
		for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
			const struct target *tg = &targets[t];
			const struct row *ref;
			char words[96];
			double ratio;

			if (strcmp(tg->method, r->method) ||
			    (tg->setup && strcmp(tg->setup, r->setup)))
				continue;
			ref = find_row(rows, n, r, tg->ref);
			if (!ref || ref->status != ST_OK || !ref->ns || !r->ns)
				continue;
			/*
			 * 'l': a goal of at most target x the reference's cost;
			 * 'g': at least target x faster than the reference.
			 */
			ratio = tg->kind == 'l' ? r->ns / ref->ns : ref->ns / r->ns;
			if (is_mem(r))
				bench_size_vs(words, sizeof(words), r->ns, ref->ns, tg->ref);
			else
				bench_vs(words, sizeof(words), r->ns, ref->ns, tg->ref);
			fprintf(f, " %s", words);
			if (tg->target && (!tg->only_n || tg->only_n == r->n))
				fprintf(f, " [goal: %s %.4gx %s %s: %s]",
					tg->kind == 'l' ? "at most" : "at least", tg->target,
					tg->kind == 'l' ? (is_mem(r) ? "the size of" : "the time of")
							: "faster than",
					tg->ref,
					(tg->kind == 'l' ? ratio <= tg->target
							 : ratio >= tg->target)
					    ? "met"
					    : "MISSED");
			fputc(';', f);
		}
		if (r->note[0])
			fprintf(f, " (%s)", r->note);
		fputc('\n', f);
	}
}

static int write_csv(const char *path, const struct row *rows, size_t n, int cores)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fprintf(f, "setup,n,mounts,method,total_ns,per_mount_ns,status,cores\n");
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		fprintf(f, "%s,%u,%u,%s,%.0f,%.2f,%s,%d\n", r->setup, r->n, r->mounts, r->method,
			r->ns, r->mounts ? r->ns / r->mounts : 0,
			r->status == ST_OK   ? "ok"
			: r->status == ST_NA ? "na"
					     : "error",
			cores);
	}
	return fclose(f) ? -errno : 0;
}

static int parse_list(const char *s, unsigned *out, unsigned max)
{
	unsigned n = 0;
	char *end;

	while (*s && n < max) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v == 0 || v > 500000)
			return -EINVAL;
		out[n++] = (unsigned)v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -EINVAL;
	}
	return n ? (int)n : -EINVAL;
}

static void usage(FILE *f)
{
	fputs("usage: bench-mounts [--n N1,N2,..] [--peers-n N1,..] [--opts-n N1,..] [--k K]\n"
	      "                    [--quick] [--setup plain|peers|opts|both|all] [--csv FILE]\n"
	      "  defaults: --n 1000,10000,50000 --peers-n 1000,4000,10000\n"
	      "            --opts-n 1000,10000 --k 5 --setup all (both: plain and peers)\n"
	      "  (cases under 100 ms a round get 4K rounds)\n"
	      "  --quick:  N=200 for every setup, K=2 (CI smoke test, seconds)\n"
	      "Needs root (it builds mounts in a private mount namespace).\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"n", required_argument, NULL, 'n'},     {"peers-n", required_argument, NULL, 'p'},
	    {"k", required_argument, NULL, 'k'},     {"quick", no_argument, NULL, 'q'},
	    {"setup", required_argument, NULL, 's'}, {"csv", required_argument, NULL, 'c'},
	    {"opts-n", required_argument, NULL, 'O'}, {"help", no_argument, NULL, 'h'},
	    {}};
	unsigned ns[MAX_NS] = {1000, 10000, 50000}, pns[MAX_NS] = {1000, 4000, 10000},
		 ons[MAX_NS] = {1000, 10000};
	int nn = 3, np = 3, no = 2, o, cores = (int)sysconf(_SC_NPROCESSORS_ONLN), fail = 0;
	unsigned k = 5;
	bool plain = true, peers = true, opts = true;
	const char *csv = NULL;
	char base[] = "/tmp/mntsnap-bench.XXXXXX";
	struct row *rows = NULL;
	size_t nrows = 0;
	double load[2][3];
	int li = 0;

	while ((o = getopt_long(argc, argv, "h", lopts, &li)) != -1) {
		switch (o) {
		case 'n':
			nn = parse_list(optarg, ns, MAX_NS);
			break;
		case 'p':
			np = parse_list(optarg, pns, MAX_NS);
			break;
		case 'O':
			no = parse_list(optarg, ons, MAX_NS);
			break;
		case 'k':
			k = (unsigned)strtoul(optarg, NULL, 10);
			if (!k || k > 1000)
				nn = -EINVAL;
			break;
		case 'q':
			ns[0] = pns[0] = ons[0] = 200;
			nn = np = no = 1;
			k = 2;
			break;
		case 's':
			plain = !strcmp(optarg, "plain") || !strcmp(optarg, "both") ||
				!strcmp(optarg, "all");
			peers = !strcmp(optarg, "peers") || !strcmp(optarg, "both") ||
				!strcmp(optarg, "all");
			opts = !strcmp(optarg, "opts") || !strcmp(optarg, "all");
			if (!plain && !peers && !opts)
				nn = -EINVAL;
			break;
		case 'c':
			csv = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (nn < 0 || np < 0 || no < 0) {
			fprintf(stderr, "bench-mounts: bad value for --%s: %s\n", lopts[li].name,
				optarg);
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "bench-mounts: needs root (mounts in a private namespace)\n");
		return 77;
	}
	if (!mkdtemp(base))
		die("mkdtemp");
	if (getloadavg(load[0], 3) != 3)
		memset(load[0], 0, sizeof(load[0]));
	for (int pass = 0; pass < 3; pass++) {
		static const char *const names[] = {"plain", "peers", "opts"};
		const bool on[] = {plain, peers, opts};
		const int cnt[] = {nn, np, no};
		const unsigned *lists[] = {ns, pns, ons};

		for (int i = 0; on[pass] && i < cnt[pass]; i++) {
			struct ctx c = {.setup = names[pass],
					.n = lists[pass][i],
					.k = k,
					.base = base};

			if (run_child(&c, &rows, &nrows) < 0) {
				fprintf(stderr, "bench-mounts: %s N=%u failed\n", c.setup, c.n);
				fail = 1;
			}
		}
	}
	rmdir(base);
	if (getloadavg(load[1], 3) != 3)
		memset(load[1], 0, sizeof(load[1]));
	/* a method that failed fails the run: CI's smoke test relies on it */
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].status == ST_ERR) {
			fprintf(stderr, "bench-mounts: %s N=%u %s: %s\n", rows[i].setup, rows[i].n,
				rows[i].method, rows[i].note);
			fail = 1;
		}
	print_table(stdout, rows, nrows, cores, (const double(*)[3])load);
	if (csv) {
		int r = write_csv(csv, rows, nrows, cores);

		if (r < 0) {
			fprintf(stderr, "bench-mounts: %s: %s\n", csv, strerror(-r));
			fail = 1;
		}
	}
	free(rows);
	return fail;
}
