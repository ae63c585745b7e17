// SPDX-License-Identifier: MIT
/* mntsnap: the command-line face of libmntsnap. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "cli.h"
#include "intl.h"
#include "columns.h"

static const struct cli_cmd cmds[] = {
	{ "list", "list the mounts of a namespace", .run_loc = cmd_list },
	{ "stat", "one mount by id or path, without a full walk", .run_loc = cmd_stat },
	{ "seccomp", "seccomp fragments for statmount/listmount; merge into a profile", cmd_seccomp },
	{ "ns", "every mount namespace visible, with id and mount count", cmd_ns },
	{ "save", "capture a mount table into a binary snapshot file", cmd_save },
	{ "show", "render a saved snapshot", .run_loc = cmd_show },
	{ "diff", "compare two snapshots (exit 0 equal, 1 different)", cmd_diff },
	{ "watch", "one line per mount table change as it happens (findmnt --poll)", cmd_watch },
	{ "supervise", "perform the mounts containers ask for, as a policy allows", cmd_supervise },
};

static int vfail(const char *reason, const char *fmt, va_list ap)
{
	fputs("mntsnap: ", stderr);
	vfprintf(stderr, fmt, ap);
	if (reason)
		fprintf(stderr, ": %s", reason);
	fputc('\n', stderr);
	return CLI_EXIT_ERR;
}

int cli_fail(int err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(err ? strerror(err < 0 ? -err : err) : NULL, fmt, ap);
	va_end(ap);
	return r;
}

int cli_fail_cmd(const char *cmd, const char *fmt, const char *arg, size_t len)
{
	char *a = strndup(arg, len), *m = NULL;

	if (a && asprintf(&m, fmt, a) < 0)
		m = NULL;
	cli_fail(0, "%s: %s", cmd, m ? m : fmt);
	free(m);
	free(a);
	return CLI_EXIT_ERR;
}

int cli_fail_ul(int err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(err ? ul_strerror(err < 0 ? -err : err) : NULL, fmt, ap);
	va_end(ap);
	return r;
}

/*
 * stdout is a stdio stream on fd 1 with glibc's own buffering (so what
 * mntsnap and findmnt write to one file lands in the same order), whose
 * writes go through out_write(): stdio forgets a failed write's errno,
 * this keeps the first. Process state, as stdout itself is.
 */
static int out_errno;

static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
	size_t done = 0;

	(void)cookie;
	while (done < n) {
		ssize_t w = write(STDOUT_FILENO, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			if (!out_errno)
				out_errno = errno;
			/* what went out; never negative (fopencookie(3)) */
			return (ssize_t)done;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

int cli_stdout_status(void)
{
	int r;

	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return 0;
	r = out_errno ? -out_errno : errno ? -errno : -EIO;
	out_errno = 0;
	return r;
}

int cli_stop_signals(sigset_t *set)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa;

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* blocked, an ignored signal would reach the signalfd */
		if (sigaction(sigs[i], NULL, &sa))
			return -errno;
		if (sa.sa_handler != SIG_IGN)
			sigaddset(set, sigs[i]);
	}
	return sigprocmask(SIG_BLOCK, set, NULL) ? -errno : 0;
}

void cli_die_of(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t set;

	/* what is written is kept; a failed write changes nothing now */
	fflush(stdout);
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	raise(sig); /* pending while blocked, delivered at the unblock */
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	_exit(128 + sig); /* not reached: the signal's default action ends us */
}

int cli_capture(const char *cmd, struct mntsnap_capture_opts *o, bool allow_inconsistent,
		struct mntsnap_snapshot **ret_snap)
{
	return cli_capture_joined(cmd, o, allow_inconsistent, NULL, false, ret_snap);
}

/* The library's "line N: ..." about a text made of -F files: that file's line. */
static void capture_error(const char *cmd, const struct mntsnap_error *err,
			  const struct cli_tabmap *map)
{
	const struct cli_tabline *l;
	unsigned n;
	int off = 0;

	if (!map || !err->line || err->line > map->n ||
	    sscanf(err->msg, "line %u: %n", &n, &off) != 1 || !off || n != err->line) {
		cli_fail(0, "%s: %s", cmd, err->msg);
		return;
	}
	l = &map->lines[err->line - 1];
	if (map->joined)
		cli_fail(0, "%s: %s: line %u: %s", cmd, map->files[l->file], l->line, err->msg + off);
	else
		cli_fail(0, "%s: line %u: %s", cmd, l->line, err->msg + off);
}

/* What a capture's answer means for the command: 0, or the error reported. */
static int capture_said(const char *cmd, int r, const struct mntsnap_error *errp,
			const struct cli_tabmap *map, bool as_findmnt,
			struct mntsnap_snapshot **ret_snap)
{
	bool joined = map && map->joined;
	struct mntsnap_error err = *errp;

	if (r == -EAGAIN) {
		cli_fail(0, "%s: the mount table kept changing (%s); not using a table that "
			    "may never have existed (--allow-inconsistent: use it anyway)",
			 cmd, err.msg);
		return r;
	}
	if (r) {
		/* the library's message already names the errno */
		if (err.msg[0])
			capture_error(cmd, &err, map);
		else
			cli_fail(r, "%s: capture", cmd);
		return r;
	}
	if (!mntsnap_snapshot_consistent(*ret_snap) && !mntsnap_snapshot_attempts(*ret_snap)) {
		/*
		 * tables joined (list -F A -F B) repeat ids by nature; list
		 * links them by id as findmnt does (the first line of an id is
		 * the parent, each line of it has the children), silently
		 */
		if (!joined && !as_findmnt)
			fprintf(stderr,
				"mntsnap: warning: %s: the text lists a mount id more than once: "
				"parent links of that id are ambiguous\n",
				cmd);
	} else if (!mntsnap_snapshot_consistent(*ret_snap))
		fprintf(stderr,
			"mntsnap: warning: %s: the mount table changed during each of %u "
			"captures: this table may list mounts that never existed together\n",
			cmd, mntsnap_snapshot_attempts(*ret_snap));
	return 0;
}

/*
 * as_findmnt: findmnt reads the mountinfo text once and prints it,
 * whatever changed meanwhile. A table that kept changing during every
 * statmount capture is therefore read as findmnt reads it: the mountinfo
 * text (the library's text backend, its own re-reads included), its last
 * read taken as it is, silently, exit 0. Only for the default backend: a
 * backend asked for by name, --allow-inconsistent and a subtree (--under:
 * no unique ids in the text) keep the rule of every other command.
 */
int cli_capture_joined(const char *cmd, struct mntsnap_capture_opts *o, bool allow_inconsistent,
		       const struct cli_tabmap *map, bool as_findmnt,
		       struct mntsnap_snapshot **ret_snap)
{
	struct mntsnap_error err = { 0 };
	bool findmnt_links = as_findmnt;
	int r;

	as_findmnt = as_findmnt && !allow_inconsistent && o->backend == MNTSNAP_BACKEND_AUTO &&
		     !o->mountinfo_path && !o->under_id;
	o->error = &err;
	if (!allow_inconsistent)
		o->flags |= MNTSNAP_CAPTURE_CONSISTENT;
	r = mntsnap_capture(o, ret_snap);
	if (r == -EAGAIN && as_findmnt) {
		err = (struct mntsnap_error){ 0 };
		o->backend = MNTSNAP_BACKEND_MOUNTINFO;
		o->flags &= ~(uint32_t)MNTSNAP_CAPTURE_CONSISTENT;
		r = mntsnap_capture(o, ret_snap);
		if (!r) {
			o->error = NULL;
			return 0;
		}
	}
	o->error = NULL;
	return capture_said(cmd, r, &err, map, findmnt_links, ret_snap);
}

int cli_parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

/*
 * util-linux's str2num_or_err() (-w) and str2unum_or_err() (-N) with base
 * 10, step for step, so that what findmnt refuses mntsnap refuses with the
 * same words: strtoimax() first, and for an unsigned option a negative
 * result is out of range before any junk after it counts ("-1x" is out of
 * range, "1x" not a number); the unsigned value is then strtoumax()'s,
 * whose ERANGE alone counts (a number past INTMAX_MAX is still read).
 */
int cli_parse_findmnt_num(const char *s, bool is_unsigned, int64_t lo, int64_t hi, int64_t *ret)
{
	char *end = NULL;
	intmax_t v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtoimax(s, &end, 10);
	if (is_unsigned) {
		uintmax_t u;

		if (v < 0)
			return -ERANGE;
		errno = 0;
		u = strtoumax(s, &end, 10);
		if (errno == ERANGE)
			return -ERANGE;
		if (errno || end == s || *end)
			return -EINVAL;
		if (u > (uintmax_t)hi)
			return -ERANGE;
		v = (intmax_t)u;
	} else {
		if (errno == ERANGE)
			return -ERANGE;
		if (errno || end == s || *end)
			return -EINVAL;
	}
	if (v < lo || v > hi)
		return -ERANGE;
	*ret = v;
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: mntsnap COMMAND [ARGS]\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fputs("\nTARGET (list, stat, save): --pid PID | --ns PATH | --ns-id ID\n"
	      "Run 'mntsnap help COMMAND' or 'mntsnap COMMAND --help' for a command's options.\n"
	      "Exit status: 0 ok; 1 diff found differences, or list/stat/show matched\n"
	      "nothing or could not write a warning to stderr (as findmnt); 2 error.\n"
	      "list -p and watch die of SIGINT/SIGTERM after their clean-up (a shell's\n"
	      "128+N, as findmnt --poll).\n",
	      f);
}

/*
 * A descriptor's flush as util-linux's close_stdout() checks it: a dup
 * closed (a filesystem like NFS reports a deferred write error at close).
 */
static int close_dup(int fd)
{
	int d = dup(fd);

	if (d < 0 || close(d))
		return -errno;
	return 0;
}

/*
 * Every command's output goes through here: what sits in stdout's buffer
 * is written, and a failure (a full disk, /dev/full, a closed pipe) fails
 * the command (exit 2). A command that already failed has said why; only
 * its exit status is kept.
 *
 * list, show and stat (findmnt's commands) end as findmnt's
 * close_stdout() ends it: a write that failed before the last flush is an
 * error whatever its reason, but the last flush's EBADF (stdout closed:
 * `>&-`) and EPIPE (the reader gone, SIGPIPE ignored) are not; then a
 * write to stderr that failed (a warning into `2>&-` or /dev/full) is
 * exit 1, which findmnt says nothing more about (it cannot).
 */
static int finish(const struct cli_cmd *c, int rc)
{
	bool as_findmnt = c && c->run_loc;
	bool before = ferror(stdout);
	int r = cli_stdout_status();

	if (!r)
		r = close_dup(STDOUT_FILENO);
	if (as_findmnt && !before && (r == -EBADF || r == -EPIPE))
		r = 0;
	if (r) {
		if (rc != CLI_EXIT_ERR)
			cli_fail(r, "writing output");
		return CLI_EXIT_ERR;
	}
	if (as_findmnt && rc != CLI_EXIT_ERR) {
		r = close_dup(STDERR_FILENO);
		if (ferror(stderr) || (r && r != -EBADF))
			return 1;
	}
	return rc;
}

static int run(const struct cli_cmd *c, int argc, char **argv, const struct out_locale *loc)
{
	return c->run_loc ? c->run_loc(argc, argv, loc) : c->run(argc, argv);
}

static int dispatch(int argc, char **argv, const struct out_locale *loc)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_ERR;
	}
	/* "help COMMAND" is "COMMAND --help" */
	if (!strcmp(argv[1], "help") && argc > 2) {
		char *hv[] = { argv[2], "--help", NULL };

		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[2], cmds[i].name))
				return finish(&cmds[i], run(&cmds[i], 2, hv, loc));
		fprintf(stderr, "mntsnap: unknown command '%s'\n", argv[2]);
		usage(stderr);
		return CLI_EXIT_ERR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish(NULL, 0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		cli_version(stdout);
		return finish(NULL, 0);
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return finish(&cmds[i], run(&cmds[i], argc - 1, argv + 1, loc));
	fprintf(stderr, "mntsnap: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return CLI_EXIT_ERR;
}

/*
 * glibc's buffering for stdout, decided as its first write would: lines
 * on a terminal, else blocks of the file's st_blksize (at most BUFSIZ;
 * BUFSIZ when fd 1 is closed). findmnt's stdout is glibc's so made, and
 * what it writes to stderr meanwhile (-x's summary) lands where its
 * buffer was last written out; mntsnap's the same.
 */
static void out_buffering(int *mode, size_t *size)
{
	struct stat st;

	*mode = _IOFBF;
	*size = BUFSIZ;
	if (fstat(STDOUT_FILENO, &st))
		return;
	if (S_ISCHR(st.st_mode) && isatty(STDOUT_FILENO))
		*mode = _IOLBF;
	if (st.st_blksize > 0 && st.st_blksize < BUFSIZ)
		*size = (size_t)st.st_blksize;
}

/*
 * fd 1 or 2 closed at the start stays closed for writes: a descriptor
 * mntsnap opens must not take its number and its output. An O_PATH
 * descriptor there fails every write with EBADF, as a closed one does.
 */
static void hold_closed(int fd)
{
	int h;

	if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
		return;
	h = open("/", O_PATH | O_CLOEXEC);
	if (h >= 0 && h != fd) {
		dup3(h, fd, O_CLOEXEC);
		close(h);
	}
}

/* stdout through out_write(), buffered as glibc would buffer fd 1. */
static void out_setup(void)
{
	static char buf[BUFSIZ];
#ifdef __GLIBC__
	static const cookie_io_functions_t io = { .write = out_write };
	FILE *f;
#endif
	size_t size;
	int mode;

	out_buffering(&mode, &size);
	hold_closed(STDOUT_FILENO);
	hold_closed(STDERR_FILENO);
#ifdef __GLIBC__
	f = fopencookie(NULL, "w", io);
	if (!f)
		return; /* glibc's own stdout, its errno lost on a failed write */
	setvbuf(f, buf, mode, size);
	stdout = f;
#else
	/*
	 * musl's stdout is a constant: its own stream, buffered the same way;
	 * a failed write's errno is then the one the last flush sees.
	 */
	(void)out_write;
	setvbuf(stdout, buf, mode, size);
#endif
}

int main(int argc, char **argv)
{
	struct out_locale loc;
	locale_t env = (locale_t)0;
	char ctype[256];
	int rc;

	out_setup();
	/*
	 * The character set decides what a table shows verbatim and the
	 * tree's art: findmnt's setlocale(LC_ALL, ""), which takes every
	 * category of the environment's locale or, when one does not load,
	 * none; then every category but LC_CTYPE back to "C", so strtod(),
	 * printf() and strerror() stay mntsnap's. A copy of what loaded
	 * (duplocale() reads no file) keeps the rest for what findmnt prints
	 * in it: LC_NUMERIC's decimal point in SIZE, -x's strerror().
	 */
	if (setlocale(LC_ALL, "")) {
		const char *ct = setlocale(LC_CTYPE, NULL);

		snprintf(ctype, sizeof(ctype), "%s", ct ? ct : "C");
		env = duplocale(LC_GLOBAL_LOCALE);
		setlocale(LC_ALL, "C");
		setlocale(LC_CTYPE, ctype);
	}
	out_locale_init(&loc, env);
	ul_text_init(env);
	rc = dispatch(argc, argv, &loc);
	if (env)
		freelocale(env);
	return rc;
}
