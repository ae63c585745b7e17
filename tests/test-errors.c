// SPDX-License-Identifier: MIT
/*
 * Errors for people: mntsnap_strerror() has its own words for every error
 * code the public headers document (the headers are the oracle: a code
 * named there without a text here fails); an options struct with sz 0 or
 * with unknown bytes gets a message naming the cause; mntsnap_ns_open_id()
 * of a namespace that is gone (the kernel's listmount and the namespace
 * scan agree it is) is -ENOENT, for root and for an unprivileged caller;
 * mntsnap_ns_run() takes NULL out-pointers; every public function taking
 * an option struct loads it by the same rules (sz 0, a larger sz with a
 * zero or non-zero tail, a smaller sz whose missing fields read as zero).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap-supervisor.h"
#include "mntsnap.h"

#define E(x) { #x, x }
/* Linux errno names, to read the headers' "-EXXX" words with. */
static const struct {
	const char *name;
	int err;
} errnos[] = {
	E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(ENOEXEC),
	E(EBADF), E(ECHILD), E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(EEXIST),
	E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL), E(ENFILE), E(EMFILE), E(EFBIG),
	E(ENOSPC), E(ESPIPE), E(EROFS), E(EMLINK), E(EPIPE), E(EDOM), E(ERANGE), E(EDEADLK),
	E(ENAMETOOLONG), E(ENOLCK), E(ENOSYS), E(ENOTEMPTY), E(ELOOP), E(ENOMSG), E(ENODATA),
	E(ETIME), E(EPROTO), E(EBADMSG), E(EOVERFLOW), E(EILSEQ), E(EOPNOTSUPP), E(ETIMEDOUT),
	E(ECANCELED), E(EOWNERDEAD), E(ESTALE), E(ENOTSUP), E(ENOTCONN),
};

static int errno_of(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (strlen(errnos[i].name) == len && !strncmp(errnos[i].name, name, len))
			return errnos[i].err;
	return 0;
}

/* Every -EXXX word of a header has a text of its own. */
static unsigned check_header(const char *path, const char *fallback)
{
	char *text = ms_read_file(path, NULL);
	unsigned n = 0;

	cr_assert(text, "%s", path);
	for (const char *p = text; (p = strstr(p, "-E")); p += 2) {
		size_t len = 1;

		while ((p[1 + len] >= 'A' && p[1 + len] <= 'Z') ||
		       (p[1 + len] >= '0' && p[1 + len] <= '9'))
			len++;
		if (len < 3)
			continue;
		int err = errno_of(p + 1, len);

		cr_assert(err, "%s names %.*s, which this test does not know", path, (int)len,
			  p + 1);
		cr_expect_str_neq(mntsnap_strerror(-err), fallback, "%s: no text for %.*s", path,
				  (int)len, p + 1);
		cr_expect_str_eq(mntsnap_strerror(err), mntsnap_strerror(-err));
		n++;
	}
	free(text);
	return n;
}

Test(errors, every_documented_code_has_words)
{
	const char *fallback = mntsnap_strerror(-EHWPOISON);

	cr_assert(fallback && *fallback);
	cr_assert(check_header(MNTSNAP_INCLUDE_DIR "/mntsnap.h", fallback) > 30);
	check_header(MNTSNAP_INCLUDE_DIR "/mntsnap-seccomp.h", fallback);
	cr_expect(strstr(mntsnap_strerror(-EINVAL), "MNTSNAP_OPTS"));
	cr_expect_str_eq(mntsnap_strerror(0), "success");
}

/* The words a caller reads name public functions only, never mntsnap__*. */
Test(errors, no_internal_names)
{
	for (int e = 1; e < 200; e++)
		cr_expect_null(strstr(mntsnap_strerror(-e), "mntsnap__"), "%d: %s", e,
			       mntsnap_strerror(-e));
}

Test(errors, forgotten_sz_is_named)
{
	struct mntsnap_error e = { 0 };
	struct mntsnap_capture_opts o = { .error = &e }; /* sz forgotten */
	struct mntsnap_snapshot *snap = NULL;

	cr_assert_eq(mntsnap_capture(&o, &snap), -EINVAL);
	cr_assert_null(snap);
	cr_assert_eq(e.err, -EINVAL);
	cr_expect(strstr(e.msg, "struct mntsnap_capture_opts: sz is 0"), "%s", e.msg);
	cr_expect(strstr(e.msg, "MNTSNAP_OPTS"), "%s", e.msg);

	memset(&e, 0, sizeof(e));
	cr_assert_eq(mntsnap_parse_mountinfo("", 0, &o, &snap), -EINVAL);
	cr_expect(strstr(e.msg, "sz is 0"), "%s", e.msg);
}

Test(errors, unknown_bytes_are_named)
{
	struct mntsnap_error e = { 0 };
	struct {
		struct mntsnap_capture_opts o;
		uint64_t newer_field;
	} big = { .o = { .sz = sizeof(big), .error = &e }, .newer_field = 1 };
	struct mntsnap_snapshot *snap = NULL;

	cr_assert_eq(mntsnap_capture(&big.o, &snap), -E2BIG);
	cr_expect(strstr(e.msg, "newer mntsnap.h"), "%s", e.msg);
	big.newer_field = 0; /* zero tail: accepted */
	cr_assert_eq(mntsnap_capture(&big.o, &snap), 0, "%s", e.msg);
	mntsnap_snapshot_free(snap);
}

static int run_nothing(void *data, void **ret_buf, size_t *ret_len)
{
	(void)data;
	(void)ret_buf;
	(void)ret_len;
	return 0;
}

static int run_something(void *data, void **ret_buf, size_t *ret_len)
{
	(void)data;
	*ret_buf = strdup("unwanted");
	*ret_len = 9;
	return *ret_buf ? 0 : -ENOMEM;
}

static int run_fail(void *data, void **ret_buf, size_t *ret_len)
{
	(void)data;
	(void)ret_buf;
	(void)ret_len;
	return -ENOTDIR;
}

Test(errors, ns_run_null_outs)
{
	struct mntsnap_error e = { 0 };
	struct mntsnap_ns_opts bad = { .error = &e }; /* sz forgotten */
	struct mntsnap_ns *ns;
	void *buf = (void *)1;
	size_t len = 1;

	ms_require_root();
	cr_assert_eq(mntsnap_ns_open_self(NULL, &ns), 0);
	cr_assert_eq(mntsnap_ns_run(ns, run_nothing, NULL, NULL, NULL, NULL), 0);
	/* a result nobody asked for is freed (the ASan run sees a leak otherwise) */
	cr_assert_eq(mntsnap_ns_run(ns, run_something, NULL, NULL, NULL, NULL), 0);
	cr_assert_eq(mntsnap_ns_run(ns, run_fail, NULL, NULL, NULL, NULL), -ENOTDIR);
	cr_assert_eq(mntsnap_ns_run(ns, run_nothing, NULL, NULL, &buf, &len), 0);
	cr_expect_null(buf);
	cr_expect_eq(len, 0);
	cr_assert_eq(mntsnap_ns_run(ns, run_nothing, NULL, &bad, NULL, NULL), -EINVAL);
	cr_expect(strstr(e.msg, "struct mntsnap_ns_opts: sz is 0"), "%s", e.msg);
	mntsnap_ns_free(ns);
}

/* The id of a mount namespace that existed and is gone now. */
static uint64_t gone_ns_id(void)
{
	struct mntsnap_ns *ns;
	int pipefd[2], status;
	uint64_t id;
	pid_t pid;
	char c;

	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(pipefd[1]);
		if (unshare(CLONE_NEWNS))
			_exit(1);
		if (read(pipefd[0], &c, 1) < 0) /* parent closes: exit */
			_exit(1);
		_exit(0);
	}
	close(pipefd[0]);
	/* its namespace is a new one as soon as /proc shows it differs */
	for (int i = 0; i < 1000; i++) {
		char a[64] = "", b[64] = "", p[64];

		snprintf(p, sizeof(p), "/proc/%d/ns/mnt", pid);
		if (readlink(p, a, sizeof(a) - 1) > 0 &&
		    readlink("/proc/self/ns/mnt", b, sizeof(b) - 1) > 0 && strcmp(a, b))
			break;
		usleep(1000);
	}
	cr_assert_eq(mntsnap_ns_open_pid(pid, NULL, &ns), 0);
	id = mntsnap_ns_id(ns);
	mntsnap_ns_free(ns); /* the handle's nsfd kept it alive */
	close(pipefd[1]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return id;
}

/* ENOENT may come a little after the last reference is dropped (RCU). */
static int open_id_settled(uint64_t id)
{
	struct mntsnap_ns *ns = NULL;
	int r = 0;

	for (int i = 0; i < 100; i++) {
		r = mntsnap_ns_open_id(id, NULL, &ns);
		mntsnap_ns_free(ns);
		ns = NULL;
		if (r == -ENOENT)
			break;
		usleep(10000); /* within 1 s */
	}
	return r;
}

Test(errors, ns_open_id_of_a_gone_namespace_is_enoent)
{
	struct mntsnap_ns *self, *ns;
	uint64_t gone;
	int status;
	pid_t pid;

	ms_require_root();
	cr_assert_eq(mntsnap_ns_open_self(NULL, &self), 0);
	if (!mntsnap_ns_id(self))
		cr_skip_test("kernel without mount namespace ids (< 6.11)");
	/* a namespace that exists opens */
	cr_assert_eq(mntsnap_ns_open_id(mntsnap_ns_id(self), NULL, &ns), 0);
	cr_assert_eq(mntsnap_ns_id(ns), mntsnap_ns_id(self));
	mntsnap_ns_free(ns);

	gone = gone_ns_id();
	cr_assert(gone && gone != mntsnap_ns_id(self));
	cr_assert_eq(open_id_settled(gone), -ENOENT);

	/* unprivileged: listmount says ENOENT for "not yours" as well, so the
	 * namespaces it can see decide: its own opens, the gone one does not */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct mntsnap_ns *n = NULL;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		if (mntsnap_ns_open_id(mntsnap_ns_id(self), NULL, &n))
			_exit(11);
		mntsnap_ns_free(n);
		_exit(open_id_settled(gone) == -ENOENT ? 0 : 12);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "child step %d", WEXITSTATUS(status));
	mntsnap_ns_free(self);
}

/*
 * Every public function that takes an option struct loads it the same way
 * (libbpf's rules): sz 0 is -EINVAL; a caller built against a newer header
 * passes a larger sz, accepted when the bytes past this library's struct
 * are zero and -E2BIG when any is not; a caller built against an older
 * header passes a smaller sz, and the fields past it read as zero whatever
 * lies in memory there. Each call below stops at the options (-EINVAL /
 * -E2BIG) or gets past them; "past" is told by an answer that is neither.
 */
#define BIG(T) struct { struct T o; uint64_t tail; }
/* sz 0, then a non-zero tail, then the same tail zeroed: the three answers */
#define SZ_CHECKS(T, CALL)                                                               \
	do {                                                                             \
		BIG(T) b;                                                                \
		int r_;                                                                  \
		memset(&b, 0, sizeof(b));                                                \
		r_ = (CALL);                                                             \
		cr_expect_eq(r_, -EINVAL, #T " sz 0: %d", r_);                           \
		b.o.sz = sizeof(b);                                                      \
		b.tail = 1;                                                              \
		r_ = (CALL);                                                             \
		cr_expect_eq(r_, -E2BIG, #T " non-zero tail: %d", r_);                   \
		b.tail = 0;                                                              \
		r_ = (CALL);                                                             \
		cr_expect(r_ != -E2BIG && r_ != -EINVAL, #T " zero tail: %d", r_);       \
		last_ok = r_;                                                            \
	} while (0)

static int last_ok;

static int sz_capture(const struct mntsnap_capture_opts *o)
{
	struct mntsnap_snapshot *s = NULL;
	int r = mntsnap_capture(o, &s);

	mntsnap_snapshot_free(s);
	return r;
}

static int sz_parse(const struct mntsnap_capture_opts *o)
{
	static const char line[] = "21 1 8:1 / / rw - ext4 /dev/sda1 rw\n";
	struct mntsnap_snapshot *s = NULL;
	int r = mntsnap_parse_mountinfo(line, sizeof(line) - 1, o, &s);

	mntsnap_snapshot_free(s);
	return r;
}

static int sz_refresh(const struct mntsnap_capture_opts *o)
{
	struct mntsnap_snapshot *s = NULL;
	int r = mntsnap_capture(NULL, &s);

	cr_assert_eq(r, 0);
	r = mntsnap_refresh_with(s, o);
	mntsnap_snapshot_free(s);
	return r < 0 ? r : 0;
}

static int sz_diff(const struct mntsnap_diff_opts *o)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_diff *d = NULL;
	int r = mntsnap_capture(NULL, &s);

	cr_assert_eq(r, 0);
	r = mntsnap_diff_with(s, s, o, &d);
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(s);
	return r;
}

static int sz_watch(const struct mntsnap_watch_opts *o)
{
	struct mntsnap_watch *w = NULL;
	int r = mntsnap_watch_new(o, &w);

	mntsnap_watch_free(w);
	return r;
}

static int sz_supervisor(const struct mntsnap_supervisor_opts *o)
{
	struct mntsnap_supervisor *sv = NULL;
	struct mntsnap_policy *p = NULL;
	int r = mntsnap_policy_new(true, EPERM, &p);

	cr_assert_eq(r, 0);
	r = mntsnap_supervisor_new(p, o, &sv);
	mntsnap_supervisor_free(sv);
	mntsnap_policy_free(p);
	return r;
}

static int sz_rule(const struct mntsnap_policy_rule *rule)
{
	struct mntsnap_policy *p = NULL;
	int r = mntsnap_policy_new(true, EPERM, &p);

	cr_assert_eq(r, 0);
	r = mntsnap_policy_add(p, rule, NULL);
	mntsnap_policy_free(p);
	return r;
}

static int sz_run(const struct mntsnap_ns *ns, const struct mntsnap_ns_opts *o)
{
	return mntsnap_ns_run(ns, run_nothing, NULL, o, NULL, NULL);
}

static int sz_open_file(const struct mntsnap_ns *ns, const struct mntsnap_ns_opts *o)
{
	int fd = -1, r = mntsnap_ns_open_file(ns, "/", O_RDONLY | O_DIRECTORY, 0, o, &fd);

	if (fd >= 0)
		close(fd);
	return r;
}

static int sz_clone_tree(const struct mntsnap_ns *ns, const struct mntsnap_ns_opts *o)
{
	int fd = -1, r = mntsnap_ns_clone_tree(ns, "/", o, &fd);

	if (fd >= 0)
		close(fd);
	return r;
}

Test(errors, every_options_struct_is_loaded_alike)
{
	struct mntsnap_ns *ns;

	ms_require_root();
	SZ_CHECKS(mntsnap_capture_opts, sz_capture(&b.o));
	cr_expect_eq(last_ok, 0);
	SZ_CHECKS(mntsnap_capture_opts, sz_parse(&b.o));
	cr_expect_eq(last_ok, 0);
	SZ_CHECKS(mntsnap_capture_opts, sz_refresh(&b.o));
	cr_expect_eq(last_ok, 0);
	SZ_CHECKS(mntsnap_diff_opts, sz_diff(&b.o));
	cr_expect_eq(last_ok, 0);
	SZ_CHECKS(mntsnap_watch_opts, sz_watch(&b.o));
	cr_expect_eq(last_ok, 0);
	SZ_CHECKS(mntsnap_supervisor_opts, sz_supervisor(&b.o));
	cr_expect_eq(last_ok, 0);
	SZ_CHECKS(mntsnap_policy_rule, sz_rule(&b.o));
	cr_expect_eq(last_ok, 0);
	cr_assert_eq(mntsnap_ns_open_self(NULL, &ns), 0);
	SZ_CHECKS(mntsnap_ns_opts, sz_run(ns, &b.o));
	cr_expect_eq(last_ok, 0);
	SZ_CHECKS(mntsnap_ns_opts, sz_open_file(ns, &b.o));
	cr_expect_eq(last_ok, 0);
	SZ_CHECKS(mntsnap_ns_opts, sz_clone_tree(ns, &b.o));
	cr_expect_eq(last_ok, 0);
	mntsnap_ns_free(ns);
}

/*
 * An older caller's smaller struct: what lies past its sz is not its
 * field. Garbage there that would be refused as a field (an unknown
 * backend, unknown diff flags, an errno out of range) must not be seen.
 */
Test(errors, a_smaller_struct_reads_the_rest_as_zero)
{
	struct mntsnap_capture_opts c;
	struct mntsnap_diff_opts d;
	struct mntsnap_policy_rule rule;

	memset(&c, 0, sizeof(c));
	c.sz = offsetof(struct mntsnap_capture_opts, backend);
	c.backend = 99;
	cr_expect_eq(sz_capture(&c), 0);
	cr_expect_eq(sz_parse(&c), 0);
	c.sz = sizeof(c); /* the same bytes as a field: refused */
	cr_expect_eq(sz_capture(&c), -EINVAL);

	memset(&d, 0, sizeof(d));
	d.sz = offsetof(struct mntsnap_diff_opts, flags);
	d.flags = ~0u;
	cr_expect_eq(sz_diff(&d), 0);
	d.sz = sizeof(d);
	cr_expect_eq(sz_diff(&d), -EINVAL);

	memset(&rule, 0, sizeof(rule));
	rule.sz = offsetof(struct mntsnap_policy_rule, err);
	rule.err = 99999;
	cr_expect_eq(sz_rule(&rule), 0);
	rule.sz = sizeof(rule);
	cr_expect_neq(sz_rule(&rule), 0);
}

/* ---- ns_open_*: the same error channel ---------------------------------------- */

Test(errors, ns_open_fills_error)
{
	struct mntsnap_error e;
	struct mntsnap_ns *ns = NULL;

	memset(&e, 0, sizeof(e));
	cr_assert_eq(mntsnap_ns_open_path("/nonexistent/ns", &e, &ns), -ENOENT);
	cr_assert_eq(e.err, -ENOENT);
	cr_assert(strstr(e.msg, "ns_open_path /nonexistent/ns"), "%s", e.msg);
	memset(&e, 0, sizeof(e));
	cr_assert_eq(mntsnap_ns_open_path("/etc/passwd", &e, &ns), -EINVAL);
	cr_assert_eq(e.err, -EINVAL);
	cr_assert(strstr(e.msg, "not a mount-namespace file"), "%s", e.msg);
	memset(&e, 0, sizeof(e));
	cr_assert_eq(mntsnap_ns_open_pid(0x3ffffff0, &e, &ns), -ESRCH);
	cr_assert_eq(e.err, -ESRCH);
	cr_assert(strstr(e.msg, "ns_open_pid 1073741808"), "%s", e.msg);
	memset(&e, 0, sizeof(e));
	cr_assert_eq(mntsnap_ns_open_fd(-1, &e, &ns), -EBADF);
	cr_assert_eq(e.err, -EBADF);
	cr_assert_gt(strlen(e.msg), 0);
	memset(&e, 0, sizeof(e));
	cr_assert_eq(mntsnap_ns_open_pidfd(0 /* stdin: no pidfd */, &e, &ns), -EINVAL);
	cr_assert_eq(e.err, -EINVAL);
	memset(&e, 0, sizeof(e));
	cr_assert_eq(mntsnap_ns_open_id(0, &e, &ns), -EINVAL);
	cr_assert_eq(e.err, -EINVAL);
	cr_assert(strstr(e.msg, "ns_open_id 0"), "%s", e.msg);
	cr_assert_eq(mntsnap_ns_open_self(NULL, NULL), -EINVAL);
	/* written only on failure */
	memset(&e, 0x55, sizeof(e));
	cr_assert_eq(mntsnap_ns_open_self(&e, &ns), 0);
	cr_assert_eq(e.err, 0x55555555);
	mntsnap_ns_free(ns);
}
