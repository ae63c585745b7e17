// SPDX-License-Identifier: MIT
/* mntsnap: the command-line face of libmntsnap. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
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

int cli_fail(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("mntsnap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err < 0 ? -err : err));
	fputc('\n', stderr);
	return CLI_EXIT_ERR;
}

int cli_stdout_status(void)
{
	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return 0;
	return errno ? -errno : -EIO;
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
	      "nothing (as findmnt); 2 error. list -p and watch die of SIGINT/SIGTERM\n"
	      "after their clean-up (a shell's 128+N, as findmnt --poll).\n",
	      f);
}

/*
 * Every command's output goes through here: what sits in stdout's buffer
 * is written and the descriptor closed, and a failure of either (a full
 * disk, /dev/full, a closed pipe) fails the command. A command that
 * already failed has said why; only its exit status is kept.
 */
static int finish(int rc)
{
	int r = cli_stdout_status();

	if (fclose(stdout) && !r)
		r = -errno;
	if (!r)
		return rc;
	if (rc != CLI_EXIT_ERR)
		cli_fail(r, "writing output");
	return CLI_EXIT_ERR;
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
				return finish(run(&cmds[i], 2, hv, loc));
		fprintf(stderr, "mntsnap: unknown command '%s'\n", argv[2]);
		usage(stderr);
		return CLI_EXIT_ERR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish(0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		cli_version(stdout);
		return finish(0);
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return finish(run(&cmds[i], argc - 1, argv + 1, loc));
	fprintf(stderr, "mntsnap: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return CLI_EXIT_ERR;
}

int main(int argc, char **argv)
{
	/*
	 * Output is written when stdout's buffer fills, and stdio forgets
	 * that write's errno: a buffer larger than most outputs keeps the
	 * write for finish(), which reports why it failed (ENOSPC, ...).
	 */
	static char outbuf[256 * 1024];
	struct out_locale loc;
	locale_t env = (locale_t)0;
	char ctype[256];
	int rc;

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
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
	rc = dispatch(argc, argv, &loc);
	if (env)
		freelocale(env);
	return rc;
}
