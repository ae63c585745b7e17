// SPDX-License-Identifier: MIT
/*
 * Out of memory on every allocation of every operation: this suite links
 * the library's archive with -Wl,--wrap for every allocator the library
 * calls (malloc, calloc, realloc, strdup, strndup, and realpath and
 * fdopendir, which allocate inside libc), and makes the Nth allocation
 * from the start of the call fail, for N = 1, 2, ... until the call
 * completes without reaching an Nth allocation. Each failing run must
 * return -ENOMEM (or succeed, where the library can do without that
 * memory), must not crash, and must leave its outputs untouched: the
 * ret_* pointers not written, a refreshed snapshot rendering exactly as
 * before. Leaks on any of those paths fail the test in the ASan build
 * (LTest: LeakSanitizer after each test).
 *
 * Everything runs in a private mount namespace whose table only this
 * test changes, so each retry sees the same table.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "helpers.h"
#include "mntsnap.h"

#define BASE "/tmp/mntsnap-enomem"

/* ---- the allocation failer -------------------------------------------------- */

/* Atomics: the parallel statmount fetcher allocates from several threads. */
static long fail_nth; /* 0: never fail; else fail allocation number fail_nth */
static long calls;    /* allocations since armed */
static bool failed;   /* the fail_nth-th allocation happened (and failed) */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t sz);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
char *__real_realpath(const char *path, char *resolved);
DIR *__real_fdopendir(int fd);
void *__real_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t sz);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
char *__wrap_realpath(const char *path, char *resolved);
DIR *__wrap_fdopendir(int fd);

static bool fail_now(void)
{
	long nth = __atomic_load_n(&fail_nth, __ATOMIC_SEQ_CST);

	if (!nth || __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) != nth)
		return false;
	__atomic_store_n(&failed, true, __ATOMIC_SEQ_CST);
	errno = ENOMEM;
	return true;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t sz)
{
	return fail_now() ? NULL : __real_calloc(n, sz);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return fail_now() ? NULL : __real_strndup(s, n);
}

/* realpath(path, NULL) and fdopendir allocate inside libc */
char *__wrap_realpath(const char *path, char *resolved)
{
	return !resolved && fail_now() ? NULL : __real_realpath(path, resolved);
}

DIR *__wrap_fdopendir(int fd)
{
	return fail_now() ? NULL : __real_fdopendir(fd);
}

/* The namespace helper's stack */
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return fail_now() ? MAP_FAILED : __real_mmap64(addr, len, prot, flags, fd, off);
}

/* A thread's stack and descriptor (the parallel fetcher then runs with fewer) */
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	return fail_now() ? EAGAIN : __real_pthread_create(t, a, fn, arg);
}

/* One operation under test: 0 or -errno (a count >= 0 is success too). */
typedef int (*op_fn)(void *data);
/* After a failed run: is the rest of the state untouched? (message into why) */
typedef bool (*untouched_fn)(void *data, char *why, size_t len);
/* After a run that coped with its failed allocation: release its output at ret. */
typedef void (*release_fn)(void *ret);

/* What a failed call must leave in its output: bytes no library would write. */
#define SENTINEL 0x5a

/* The ret_* output of an operation: where it is, its size, how to release it. */
struct output {
	void *ret;
	size_t size;
	release_fn release;
};

static bool output_untouched(const struct output *o)
{
	for (size_t i = 0; i < o->size; i++)
		if (((const unsigned char *)o->ret)[i] != SENTINEL)
			return false;
	return true;
}

/*
 * Run op with allocation n failing, for n = 1, 2, ... until a run reaches
 * no nth allocation; that run must succeed. A failed run must return
 * -ENOMEM, keep every fd it opened closed, leave out (if any) as it found
 * it and pass untouched (if any). Returns how many allocations the
 * successful run made.
 */
static long every_failure(const char *what, op_fn op, void *data, const struct output *out,
			  untouched_fn untouched)
{
	int fds = ms_count_fds();
	long coped = 0;

	for (long n = 1;; n++) {
		char why[512] = "";
		int r;

		if (out)
			memset(out->ret, SENTINEL, out->size);
		fail_nth = n;
		calls = 0;
		failed = false;
		r = op(data);
		fail_nth = 0;
		if (getenv("MS_ENOMEM_TRACE"))
			fprintf(stderr, "%s: n=%ld failed=%d r=%d\n", what, n, failed, r);
		if (!failed) {
			cr_assert_geq(r, 0, "%s: %s with no allocation failing", what,
				      strerror(-r));
			cr_log_info("%s: %ld allocations, each failed once (%ld runs coped)", what,
				    calls, coped);
			return calls;
		}
		cr_assert(r >= 0 || r == -ENOMEM, "%s: allocation %ld failed: got %d (%s), not -ENOMEM",
			  what, n, r, strerror(r < 0 ? -r : 0));
		if (r >= 0) {
			coped++;
			if (out && out->release)
				out->release(out->ret);
			continue;
		}
		cr_assert_eq(ms_count_fds(), fds, "%s: allocation %ld failed: an fd leaked", what, n);
		cr_assert(!out || output_untouched(out), "%s: allocation %ld failed: ret_* written",
			  what, n);
		if (untouched)
			cr_assert(untouched(data, why, sizeof(why)),
				  "%s: allocation %ld failed: output touched: %s", what, n, why);
		cr_assert_lt(n, 1000000, "%s: never completes", what);
	}
}

static void release_snap(void *ret)
{
	mntsnap_snapshot_free(*(struct mntsnap_snapshot **)ret);
}

static void release_diff(void *ret)
{
	mntsnap_diff_free(*(struct mntsnap_diff **)ret);
}

static void release_order(void *ret)
{
	mntsnap_order_free(*(struct mntsnap_order **)ret);
}

static void release_watch(void *ret)
{
	mntsnap_watch_free(*(struct mntsnap_watch **)ret);
}

/* ret: a struct list_case, whose first member is the list */
static void release_list(void *ret)
{
	free(*(struct mntsnap_ns_entry **)ret);
}

#define OUT(ptr, fn) (&(struct output){ .ret = (ptr), .size = sizeof(*(ptr)), .release = (fn) })

/* ---- fixtures ------------------------------------------------------------------ */

/* A private namespace with a few mounts of our own (options, a bind, nesting). */
static void private_table(void)
{
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/a/b");
	ms_mkdir_p(BASE "/c");
	cr_assert_eq(mount("enomem-a", BASE "/a", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=700"), 0);
	ms_mkdir_p(BASE "/a/b");
	cr_assert_eq(mount("enomem-b", BASE "/a/b", "tmpfs", MS_RDONLY, "size=2m"), 0);
	cr_assert_eq(mount(BASE "/a", BASE "/c", NULL, MS_BIND | MS_REC, NULL), 0);
}

static struct mntsnap_snapshot *capture(int backend)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = backend);
	struct mntsnap_snapshot *s = NULL;

	cr_assert_eq(mntsnap_capture(&o, &s), 0);
	return s;
}

/* JSON (ids, every field) and tree (tree order, depth) of snap. */
static char *fingerprint(const struct mntsnap_snapshot *snap)
{
	char *json = ms_render(snap, MNTSNAP_FORMAT_JSON), *tree = ms_render(snap, MNTSNAP_FORMAT_TREE);
	char *both;

	cr_assert(asprintf(&both, "%zu\n%s\n%s", mntsnap_snapshot_count(snap), json, tree) > 0);
	free(json);
	free(tree);
	return both;
}

/* ---- capture ------------------------------------------------------------------- */

struct cap_case {
	struct mntsnap_capture_opts o;
	struct mntsnap_snapshot *s;
	const char *text;
};

static int op_capture(void *data)
{
	struct cap_case *c = data;

	return mntsnap_capture(&c->o, &c->s);
}

static int op_parse(void *data)
{
	struct cap_case *c = data;

	return mntsnap_parse_mountinfo(c->text, strlen(c->text), &c->o, &c->s);
}

static void check_capture(const char *what, op_fn op, struct cap_case *c)
{
	struct mntsnap_snapshot *want = capture(MNTSNAP_BACKEND_MOUNTINFO);
	char *a, *b;
	long n;

	/* every run: the successful one must be the table itself */
	n = every_failure(what, op, c, OUT(&c->s, release_snap), NULL);
	cr_assert_gt(n, 0, "%s made no allocation: nothing was tested", what);
	a = ms_render(want, MNTSNAP_FORMAT_MOUNTINFO);
	b = ms_render(c->s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(b, a, what);
	free(a);
	free(b);
	mntsnap_snapshot_free(c->s);
	mntsnap_snapshot_free(want);
}

LTest(enomem, capture_statmount)
{
	struct cap_case c = { 0 };

	private_table();
	if (mntsnap_have_statmount() != 1)
		cr_skip_test("no statmount");
	c.o = (struct mntsnap_capture_opts){ .sz = sizeof(c.o), .backend = MNTSNAP_BACKEND_STATMOUNT };
	check_capture("capture (statmount)", op_capture, &c);
}

LTest(enomem, capture_statmount_consistent_threads)
{
	struct cap_case c = { 0 };

	private_table();
	if (mntsnap_have_statmount() != 1)
		cr_skip_test("no statmount");
	c.o = (struct mntsnap_capture_opts){ .sz = sizeof(c.o), .backend = MNTSNAP_BACKEND_STATMOUNT,
					     .flags = MNTSNAP_CAPTURE_CONSISTENT, .threads = 2 };
	check_capture("capture (statmount, consistent, 2 threads)", op_capture, &c);
}

/* Enough mounts (4 chunks of 64) that the fetcher really starts a thread. */
LTest(enomem, capture_statmount_parallel)
{
	struct cap_case c = { 0 };
	char p[128];

	private_table();
	if (mntsnap_have_statmount() != 1)
		cr_skip_test("no statmount");
	for (int i = 0; i < 300; i++) {
		snprintf(p, sizeof(p), BASE "/many/%d", i);
		ms_mkdir_p(p);
		cr_assert_eq(mount(BASE "/a/b", p, NULL, MS_BIND, NULL), 0);
	}
	c.o = (struct mntsnap_capture_opts){ .sz = sizeof(c.o), .backend = MNTSNAP_BACKEND_STATMOUNT,
					     .threads = 2 };
	check_capture("capture (statmount, 300 mounts, 2 threads)", op_capture, &c);
}

LTest(enomem, capture_mountinfo)
{
	struct cap_case c = { 0 };

	private_table();
	c.o = (struct mntsnap_capture_opts){ .sz = sizeof(c.o), .backend = MNTSNAP_BACKEND_MOUNTINFO };
	check_capture("capture (mountinfo)", op_capture, &c);
}

LTest(enomem, capture_auto)
{
	struct cap_case c = { 0 };

	private_table();
	c.o = (struct mntsnap_capture_opts){ .sz = sizeof(c.o) };
	check_capture("capture (auto)", op_capture, &c);
}

LTest(enomem, parse_mountinfo)
{
	struct cap_case c = { 0 };
	char *text;

	private_table();
	text = ms_read_file("/proc/self/mountinfo", NULL);
	c.text = text;
	c.o = (struct mntsnap_capture_opts){ .sz = sizeof(c.o) };
	check_capture("parse_mountinfo", op_parse, &c);
	free(text);
}

/* ---- another namespace: directly, through the helper; one mount ------------------ */

/* A child in its own mount namespace with one more mount; dies with the test. */
static pid_t foreign_start(int *ret_hold)
{
	int ready[2], hold[2];
	pid_t pid;
	char c;

	cr_assert_eq(pipe2(ready, O_CLOEXEC) | pipe2(hold, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (unshare(CLONE_NEWNS) || mount("enomem-f", BASE "/d", "tmpfs", 0, "size=1m"))
			_exit(1);
		close(hold[1]);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	cr_assert_eq(read(ready[0], &c, 1), 1, "the namespace child failed");
	close(ready[0]);
	*ret_hold = hold[1];
	return pid;
}

static void foreign_stop(pid_t pid, int hold)
{
	close(hold);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
}

static void check_foreign(uint32_t flags, int backend, const char *what)
{
	struct mntsnap_ns *ns;
	struct cap_case c = { 0 };
	struct mntsnap_snapshot *want = NULL;
	char *a, *b;
	int hold;
	pid_t pid;

	private_table();
	ms_mkdir_p(BASE "/d");
	pid = foreign_start(&hold);
	cr_assert_eq(mntsnap_ns_open_pid(pid, NULL, &ns), 0);
	c.o = (struct mntsnap_capture_opts){ .sz = sizeof(c.o), .ns = ns, .flags = flags,
					     .backend = backend };
	cr_assert_eq(mntsnap_capture(&c.o, &want), 0, "%s", what);
	cr_assert_gt(every_failure(what, op_capture, &c, OUT(&c.s, release_snap), NULL), 0);
	a = ms_render(want, MNTSNAP_FORMAT_MOUNTINFO);
	b = ms_render(c.s, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(b, a, what);
	cr_assert(strstr(b, "enomem-f"), "not the child's namespace:\n%s", b);
	free(a);
	free(b);
	mntsnap_snapshot_free(c.s);
	mntsnap_snapshot_free(want);
	mntsnap_ns_free(ns);
	foreign_stop(pid, hold);
}

LTest(enomem, capture_other_namespace_direct)
{
	if (mntsnap_have_statmount() != 1)
		cr_skip_test("no statmount");
	check_foreign(MNTSNAP_CAPTURE_NS_DIRECT, MNTSNAP_BACKEND_STATMOUNT,
		      "capture of another namespace (direct)");
}

LTest(enomem, capture_other_namespace_helper)
{
	check_foreign(MNTSNAP_CAPTURE_NS_ENTER, MNTSNAP_BACKEND_AUTO,
		      "capture of another namespace (helper)");
}

LTest(enomem, capture_other_namespace_text)
{
	check_foreign(0, MNTSNAP_BACKEND_MOUNTINFO, "capture of another namespace (mountinfo)");
}

static int op_stat_path(void *data)
{
	struct cap_case *c = data;

	return mntsnap_stat_path(c->text, 0, &c->s);
}

LTest(enomem, stat_path)
{
	struct cap_case c = { .text = BASE "/a/b" };
	struct mntsnap_mount m;

	private_table();
	if (mntsnap_have_statmount() != 1)
		cr_skip_test("no statmount");
	cr_assert_gt(every_failure("stat_path", op_stat_path, &c, OUT(&c.s, release_snap), NULL), 0);
	cr_assert_eq(mntsnap_snapshot_get(c.s, 0, &m), 0);
	cr_assert_str_eq(m.mount_point, BASE "/a/b");
	mntsnap_snapshot_free(c.s);
}

struct list_case {
	struct mntsnap_ns_entry *list;
	size_t n;
};

static int op_ns_list(void *data)
{
	struct list_case *l = data;

	return mntsnap_ns_list(&l->list, &l->n);
}

/* The namespace walk (NS_MNT_GET_NEXT and a /proc scan) */
LTest(enomem, ns_list)
{
	struct list_case l = { 0 };
	bool found = false;
	int hold;
	pid_t pid;

	private_table();
	ms_mkdir_p(BASE "/d");
	pid = foreign_start(&hold);
	cr_assert_gt(every_failure("ns_list", op_ns_list, &l, OUT(&l, release_list), NULL), 0);
	for (size_t i = 0; i < l.n; i++)
		found |= l.list[i].pid == pid;
	cr_assert(found, "the child's namespace is not listed");
	free(l.list);
	foreign_stop(pid, hold);
}

/* ---- snapshot filter ------------------------------------------------------------ */

struct filter_case {
	const struct mntsnap_snapshot *in;
	struct mntsnap_snapshot *out;
};

static bool keep_ours(const struct mntsnap_mount *m, void *data)
{
	(void)data;
	return m->mount_point && strncmp(m->mount_point, BASE, strlen(BASE)) == 0;
}

static int op_filter(void *data)
{
	struct filter_case *f = data;

	return mntsnap_snapshot_filter(f->in, keep_ours, NULL, &f->out);
}

LTest(enomem, snapshot_filter)
{
	struct filter_case f = { 0 };
	char *before, *after;

	private_table();
	for (int b = MNTSNAP_BACKEND_STATMOUNT; b <= MNTSNAP_BACKEND_MOUNTINFO; b++) {
		struct mntsnap_snapshot *s = capture(b);

		before = fingerprint(s);
		f.in = s;
		cr_assert_gt(every_failure("snapshot_filter", op_filter, &f, OUT(&f.out, release_snap), NULL), 0);
		cr_assert_eq(mntsnap_snapshot_count(f.out), 5, "%zu mounts under " BASE,
			     mntsnap_snapshot_count(f.out));
		after = fingerprint(s);
		ms_assert_text_eq(after, before, "the filtered snapshot");
		free(before);
		free(after);
		mntsnap_snapshot_free(f.out);
		mntsnap_snapshot_free(s);
	}
}

/* ---- refresh: unchanged on any failure ------------------------------------------ */

struct refresh_case {
	struct mntsnap_snapshot *orig, *s;
	struct mntsnap_capture_opts o;
	char *before;
};

static bool keep_all(const struct mntsnap_mount *m, void *data)
{
	(void)m;
	(void)data;
	return true;
}

/*
 * Every run refreshes a fresh copy of the same stale snapshot, so a run
 * that coped with its failure (and brought its copy up to date) leaves the
 * next run the same work.
 */
static int op_refresh(void *data)
{
	struct refresh_case *c = data;
	long armed = fail_nth;

	fail_nth = 0;
	mntsnap_snapshot_free(c->s);
	cr_assert_eq(mntsnap_snapshot_filter(c->orig, keep_all, NULL, &c->s), 0);
	fail_nth = armed;
	return mntsnap_refresh_with(c->s, &c->o);
}

static bool refresh_untouched(void *data, char *why, size_t len)
{
	struct refresh_case *c = data;
	char *now = fingerprint(c->s);
	bool same = !strcmp(now, c->before);

	if (!same)
		snprintf(why, len, "the snapshot changed:\n--- before\n%.200s\n--- after\n%.200s",
			 c->before, now);
	free(now);
	return same;
}

/* Add, remove and change mounts after the capture, so refresh has every kind of work. */
static void change_table(void)
{
	cr_assert_eq(umount2(BASE "/c/b", 0), 0);
	cr_assert_eq(mount(NULL, BASE "/a", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), 0);
	cr_assert_eq(mount(NULL, BASE "/a/b", NULL, MS_REMOUNT, "size=3m"), 0);
	ms_mkdir_p(BASE "/d");
	cr_assert_eq(mount("enomem-d", BASE "/d", "tmpfs", 0, "size=1m"), 0);
	cr_assert_eq(mount("enomem-e", BASE "/c", "tmpfs", 0, "size=1m"), 0);
}

static void check_refresh(uint32_t flags)
{
	struct refresh_case c = { 0 };
	struct mntsnap_snapshot *want;
	char *a, *b;

	private_table();
	if (mntsnap_have_statmount() != 1)
		cr_skip_test("no statmount");
	c.orig = capture(MNTSNAP_BACKEND_STATMOUNT);
	change_table();
	c.o = (struct mntsnap_capture_opts){ .sz = sizeof(c.o), .flags = flags };
	c.before = fingerprint(c.orig);
	cr_assert_gt(every_failure("refresh", op_refresh, &c, NULL, refresh_untouched), 0);
	want = capture(MNTSNAP_BACKEND_STATMOUNT);
	if (!(flags & MNTSNAP_CAPTURE_REFRESH_IDS_ONLY)) {
		/* a successful refresh is the table itself */
		a = ms_render(want, MNTSNAP_FORMAT_MOUNTINFO);
		b = ms_render(c.s, MNTSNAP_FORMAT_MOUNTINFO);
		ms_assert_text_eq(b, a, "the refreshed snapshot");
		free(a);
		free(b);
	} else {
		cr_assert_eq(mntsnap_snapshot_count(c.s), mntsnap_snapshot_count(want));
	}
	free(c.before);
	mntsnap_snapshot_free(want);
	mntsnap_snapshot_free(c.s);
	mntsnap_snapshot_free(c.orig);
}

LTest(enomem, refresh)
{
	check_refresh(0);
}

LTest(enomem, refresh_ids_only)
{
	check_refresh(MNTSNAP_CAPTURE_REFRESH_IDS_ONLY);
}

/* ---- diff ------------------------------------------------------------------------ */

struct diff_case {
	const struct mntsnap_snapshot *old, *new_snap;
	struct mntsnap_diff_opts o;
	struct mntsnap_diff *d;
};

static int op_diff(void *data)
{
	struct diff_case *c = data;

	return mntsnap_diff_with(c->old, c->new_snap, &c->o, &c->d);
}

LTest(enomem, diff)
{
	static const uint32_t flags[] = { 0, MNTSNAP_DIFF_BY_PATH };
	struct mntsnap_snapshot *old, *new_snap;
	struct diff_case c = { 0 };

	private_table();
	old = capture(MNTSNAP_BACKEND_AUTO);
	change_table();
	new_snap = capture(MNTSNAP_BACKEND_AUTO);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		c.old = old;
		c.new_snap = new_snap;
		c.o = (struct mntsnap_diff_opts){ .sz = sizeof(c.o), .flags = flags[i] };
		cr_assert_gt(every_failure("diff", op_diff, &c, OUT(&c.d, release_diff), NULL), 0);
		cr_assert_gt(mntsnap_diff_count(c.d), 0);
		mntsnap_diff_free(c.d);
	}
	mntsnap_snapshot_free(old);
	mntsnap_snapshot_free(new_snap);
}

/* ---- wire: save and load ----------------------------------------------------------- */

struct wire_case {
	const struct mntsnap_snapshot *s;
	int fd;
	void *buf;
	size_t len;
	struct mntsnap_snapshot *out;
};

static int op_save(void *data)
{
	struct wire_case *w = data;

	cr_assert_eq(ftruncate(w->fd, 0), 0);
	cr_assert_eq(lseek(w->fd, 0, SEEK_SET), 0);
	return mntsnap_snapshot_save_fd(w->s, w->fd);
}

static int op_load(void *data)
{
	struct wire_case *w = data;

	return mntsnap_snapshot_load_buf(w->buf, w->len, NULL, &w->out);
}

LTest(enomem, wire_save_load)
{
	struct wire_case w = { 0 };
	char *a, *b;

	private_table();
	w.s = capture(MNTSNAP_BACKEND_AUTO);
	w.fd = memfd_create("enomem-wire", MFD_CLOEXEC);
	cr_assert_geq(w.fd, 0);
	every_failure("snapshot_save_fd", op_save, &w, NULL, NULL);
	w.len = (size_t)lseek(w.fd, 0, SEEK_END);
	cr_assert_gt(w.len, 0);
	w.buf = malloc(w.len);
	cr_assert_eq(pread(w.fd, w.buf, w.len, 0), (ssize_t)w.len);
	cr_assert_gt(every_failure("snapshot_load_buf", op_load, &w, OUT(&w.out, release_snap), NULL), 0);
	a = fingerprint(w.s);
	b = fingerprint(w.out);
	ms_assert_text_eq(b, a, "the loaded snapshot");
	free(a);
	free(b);
	free(w.buf);
	close(w.fd);
	mntsnap_snapshot_free(w.out);
	mntsnap_snapshot_free((struct mntsnap_snapshot *)w.s);
}

struct path_case {
	const struct mntsnap_snapshot *s;
	const char *path;
	struct mntsnap_snapshot *out;
	char *before; /* the file's bytes before a save */
	size_t before_len;
};

/* Every run replaces the same old file (a run that coped replaced it already). */
static int op_save_path(void *data)
{
	struct path_case *p = data;
	long armed = fail_nth;
	int fd;

	fail_nth = 0;
	fd = open(p->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, p->before, p->before_len), (ssize_t)p->before_len);
	close(fd);
	fail_nth = armed;
	return mntsnap_snapshot_save(p->s, p->path);
}

/* A failed save leaves the old file whole and no temporary file beside it. */
static bool save_untouched(void *data, char *why, size_t len)
{
	struct path_case *p = data;
	size_t n, files = 0;
	char *now = ms_read_file(p->path, &n);
	bool same = n == p->before_len && !memcmp(now, p->before, n);
	DIR *d = opendir(BASE "/save");
	struct dirent *e;

	cr_assert(d);
	while ((e = readdir(d)))
		files += e->d_name[0] != '.';
	closedir(d);
	snprintf(why, len, "%s, %zu files in the directory", same ? "same file" : "file changed",
		 files);
	free(now);
	return same && files == 1;
}

static int op_load_path(void *data)
{
	struct path_case *p = data;

	return mntsnap_snapshot_load(p->path, NULL, &p->out);
}

LTest(enomem, wire_save_load_path)
{
	struct path_case p = { .path = BASE "/save/snap" };
	struct mntsnap_snapshot *s, *old;
	char *a, *b;

	private_table();
	ms_mkdir_p(BASE "/save");
	old = capture(MNTSNAP_BACKEND_MOUNTINFO);
	cr_assert_eq(mntsnap_snapshot_save(old, p.path), 0);
	p.before = ms_read_file(p.path, &p.before_len);
	s = capture(MNTSNAP_BACKEND_AUTO);
	p.s = s;
	every_failure("snapshot_save", op_save_path, &p, NULL, save_untouched);
	cr_assert_gt(every_failure("snapshot_load", op_load_path, &p, OUT(&p.out, release_snap),
				   NULL), 0);
	a = fingerprint(s);
	b = fingerprint(p.out);
	ms_assert_text_eq(b, a, "the snapshot loaded from the file");
	free(a);
	free(b);
	free(p.before);
	mntsnap_snapshot_free(p.out);
	mntsnap_snapshot_free(s);
	mntsnap_snapshot_free(old);
}

/* ---- render, every format --------------------------------------------------------- */

struct render_case {
	const struct mntsnap_snapshot *s;
	const struct mntsnap_diff *d; /* set: render this diff instead */
	int format;
	FILE *f;
	int fd;
};

static int op_render(void *data)
{
	struct render_case *c = data;

	cr_assert_eq(ftruncate(c->fd, 0), 0);
	rewind(c->f);
	return c->d ? mntsnap_diff_render(c->d, c->format, c->f)
		    : mntsnap_render(c->s, c->format, c->f);
}

/* Renderings go to a memfd, read back by stream_text. */
static void stream_open(struct render_case *c)
{
	c->fd = memfd_create("enomem-render", MFD_CLOEXEC);
	cr_assert_geq(c->fd, 0);
	c->f = fdopen(c->fd, "w");
	cr_assert(c->f);
}

static char *stream_text(struct render_case *c)
{
	size_t n;
	char *text;

	cr_assert_eq(fflush(c->f), 0);
	n = (size_t)lseek(c->fd, 0, SEEK_END);
	text = malloc(n + 1);
	cr_assert(text);
	cr_assert_eq(pread(c->fd, text, n, 0), (ssize_t)n);
	text[n] = '\0';
	return text;
}

LTest(enomem, render_every_format)
{
	static const int formats[] = { MNTSNAP_FORMAT_MOUNTINFO, MNTSNAP_FORMAT_JSON,
				       MNTSNAP_FORMAT_TABLE, MNTSNAP_FORMAT_TREE };
	struct render_case c = { 0 };

	private_table();
	stream_open(&c);
	for (int b = MNTSNAP_BACKEND_STATMOUNT; b <= MNTSNAP_BACKEND_MOUNTINFO; b++) {
		struct mntsnap_snapshot *s = capture(b);

		c.s = s;
		for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
			char *want = ms_render(s, formats[i]), *got;

			c.format = formats[i];
			/* a stream may carry part of a failed rendering: no untouched check */
			every_failure("render", op_render, &c, NULL, NULL);
			got = stream_text(&c);
			ms_assert_text_eq(got, want, "render after the failures");
			free(got);
			free(want);
		}
		mntsnap_snapshot_free(s);
	}
	fclose(c.f);
}

LTest(enomem, diff_render)
{
	struct mntsnap_snapshot *old, *new_snap;
	struct render_case c = { 0 };
	struct mntsnap_diff *d;

	private_table();
	old = capture(MNTSNAP_BACKEND_AUTO);
	change_table();
	new_snap = capture(MNTSNAP_BACKEND_AUTO);
	cr_assert_eq(mntsnap_diff(old, new_snap, &d), 0);
	c.d = d;
	stream_open(&c);
	for (c.format = MNTSNAP_DIFF_FORMAT_TEXT; c.format <= MNTSNAP_DIFF_FORMAT_JSON; c.format++) {
		char *got;

		every_failure("diff_render", op_render, &c, NULL, NULL);
		got = stream_text(&c);
		cr_assert(strstr(got, BASE "/d"), "the added mount is missing:\n%s", got);
		free(got);
	}
	fclose(c.f);
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(old);
	mntsnap_snapshot_free(new_snap);
}

/* ---- restore order ----------------------------------------------------------------- */

struct order_case {
	const struct mntsnap_snapshot *s;
	struct mntsnap_order *o;
};

static int op_order(void *data)
{
	struct order_case *c = data;

	return mntsnap_restore_order(c->s, &c->o);
}

LTest(enomem, restore_order)
{
	struct order_case c = { 0 };
	struct mntsnap_snapshot *s;

	private_table();
	s = capture(MNTSNAP_BACKEND_AUTO);
	c.s = s;
	cr_assert_gt(every_failure("restore_order", op_order, &c, OUT(&c.o, release_order), NULL), 0);
	cr_assert_eq(mntsnap_order_count(c.o), mntsnap_snapshot_count(s));
	mntsnap_order_free(c.o);
	mntsnap_snapshot_free(s);
}

/* ---- watch_new --------------------------------------------------------------------- */

struct watch_case {
	struct mntsnap_watch_opts o;
	struct mntsnap_watch *w;
};

static int op_watch(void *data)
{
	struct watch_case *c = data;

	return mntsnap_watch_new(&c->o, &c->w);
}

LTest(enomem, watch_new)
{
	static const uint32_t flags[] = { 0, MNTSNAP_WATCH_POLLPRI_ONLY };
	struct watch_case c = { 0 };
	int fds;

	private_table();
	if (mntsnap_have_statmount() != 1)
		cr_skip_test("no statmount");
	fds = ms_count_fds();
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		const struct mntsnap_snapshot *snap;

		c.o = (struct mntsnap_watch_opts){ .sz = sizeof(c.o), .flags = flags[i] };
		cr_assert_gt(every_failure("watch_new", op_watch, &c, OUT(&c.w, release_watch), NULL), 0);
		cr_assert_eq(mntsnap_watch_snapshot(c.w, &snap), 0);
		cr_assert_gt(mntsnap_snapshot_count(snap), 0);
		mntsnap_watch_free(c.w);
		/* no failed run may have left an fd open either */
		cr_assert_eq(ms_count_fds(), fds);
	}
}
