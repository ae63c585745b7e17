/* SPDX-License-Identifier: MIT */
/* Shared pieces of the mntsnap CLI: command table, target options, errors. */
#ifndef MNTSNAP_CLI_H
#define MNTSNAP_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mntsnap.h"

/* Exit codes: 0 ok (diff: equal), 1 diff found differences or nothing matched, 2 error. */
#define CLI_EXIT_ERR 2
/*
 * procfs's f_type (PROC_SUPER_MAGIC): spelled here because the static musl
 * build has no kernel headers (no linux/magic.h)
 */
#define CLI_PROC_SUPER_MAGIC 0x9fa0

struct out_locale;
struct cli_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	/* instead of run: a command that prints findmnt's tables, in loc */
	int (*run_loc)(int argc, char **argv, const struct out_locale *loc);
};

/*
 * getenv() for the variables findmnt's libraries read (LIBMOUNT_FSTAB,
 * LIBMOUNT_UTAB): NULL unless the caller is really root, as util-linux's
 * safe_getenv() decides (see cli.c).
 */
const char *cli_safe_getenv(const char *name);

/* Print "mntsnap: <what>: <strerror(-err)>" to stderr and return CLI_EXIT_ERR. */
int cli_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * cli_fail() for one of findmnt's messages (fmt through ul_gettext(), see
 * intl.h): the reason in findmnt's LC_MESSAGES, as its err() and warn()
 * print it, not the process's "C".
 */
int cli_fail_ul(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * "mntsnap: CMD: " and fmt (one of findmnt's messages, one %s) with the
 * len bytes of arg in its %s; CLI_EXIT_ERR
 */
int cli_fail_cmd(const char *cmd, const char *fmt, const char *arg, size_t len)
	__attribute__((format(printf, 2, 0)));

/*
 * TARGET: --pid PID | --ns PATH | --ns-id ID (default: own namespace).
 * PID is findmnt -N's: the task /proc/PID names, as the procfs at /proc
 * numbers it, whatever the caller's pid namespace.
 */
struct cli_target {
	long pid;
	const char *ns_path;
	uint64_t ns_id;
	bool set;
	bool task_view; /* list/stat: --pid is the task's view, as findmnt -N reads it */
};

/* Set the target from option opt ("--pid", "-N", "--ns", "--ns-id"); 0 or -EINVAL. */
int cli_target_set(struct cli_target *t, const char *opt, const char *val);

/*
 * If argv[*i] is a target option, consume it (and its value) and return 1;
 * 0 if it is not one; CLI_EXIT_ERR-style negative on a bad value.
 */
int cli_target_arg(struct cli_target *t, int argc, char **argv, int *i);

/*
 * Open the target as a namespace handle (NULL for "own namespace").
 * Returns 0 or -errno (message printed). A task_view --pid needs a procfs
 * at /proc (-EOPNOTSUPP without one).
 */
int cli_target_open(const struct cli_target *t, struct mntsnap_ns **ret_ns);
void cli_target_close(struct mntsnap_ns *ns);

/* The TID column's task for a live table read from t (0: none). */
long cli_target_tid(const struct cli_target *t);

/*
 * Is pid (as the procfs at /proc numbers it, -N's) the caller itself?
 * Without a procfs, pid is the caller's own numbering.
 */
bool cli_pid_is_self(long pid);

/*
 * Does the procfs at /proc number tasks as the caller's pid namespace does
 * (so pidfd_open() of one of its pids opens that task)? true without one.
 */
bool cli_proc_numbers_own(void);

/*
 * --under PATH: the unique id of the mount at PATH as the target sees it
 * (ns NULL: the caller's namespace). Returns 0 or -errno (message printed,
 * prefixed with cmd).
 */
int cli_under_id(const char *cmd, const struct mntsnap_ns *ns, const char *path,
		 uint64_t *ret_id);

/*
 * mntsnap_capture for a command: a table that changed during every try
 * (mntsnap_snapshot_consistent() 0) is refused with a message, exit 2,
 * unless allow_inconsistent, which returns it with a warning on stderr.
 * o->error is set here. Returns 0 or -errno (message printed).
 */
int cli_capture(const char *cmd, struct mntsnap_capture_opts *o, bool allow_inconsistent,
		struct mntsnap_snapshot **ret_snap);
/* Where line i + 1 of a text list made from -F files came from. */
struct cli_tabline {
	unsigned file; /* index in files */
	unsigned line; /* 1-based, in that file */
};

struct cli_tabmap {
	/* tables joined into one (-F/-N more than once): their ids repeat by
	 * nature, without the warning that says so; errors name the file */
	bool joined;
	const char *const *files;
	const struct cli_tabline *lines;
	size_t n;
};

/*
 * The same for a text list made of -F files (joined, or cleaned of what
 * libmount reads past): a parse error names the line of the file it
 * came from. map NULL, !as_findmnt: cli_capture(). as_findmnt: findmnt's
 * table (list): with the default backend, a table that kept changing
 * during every statmount capture is read from the mountinfo text as
 * findmnt reads it (its last read as it is), silently, and text that
 * lists a mount id twice is taken without the warning (list links it by
 * id, as findmnt).
 */
int cli_capture_joined(const char *cmd, struct mntsnap_capture_opts *o, bool allow_inconsistent,
		       const struct cli_tabmap *map, bool as_findmnt,
		       struct mntsnap_snapshot **ret_snap);

/*
 * The stop signals a command catches (SIGINT, SIGTERM) in *set, but one
 * it inherited ignored, which stays ignored as in findmnt; blocked, for a
 * signalfd. 0 or -errno.
 */
int cli_stop_signals(sigset_t *set);

/*
 * After a command's clean-up for a signal sig it caught (SIGINT, SIGTERM)
 * or would have got (SIGPIPE): stdout flushed, then die of sig (its
 * default action, unblocked), so the caller sees the signal (a shell's
 * 128+N), as for findmnt. No return.
 */
__attribute__((noreturn)) void cli_die_of(int sig);

/*
 * Why stdout failed, once everything is written: flushed, so the error is
 * the write's own (ENOSPC, EPIPE, ...); 0 if all went out.
 */
int cli_stdout_status(void);

/*
 * All fd has left, read to its end into one buffer (a read a signal
 * interrupts is retried; fd stays open): *ret (free()) holds *ret_len
 * bytes and a NUL behind them, so a text's own NUL bytes stay visible by
 * the length. More than max bytes is -EFBIG. Returns 0 or -errno.
 */
int cli_read_fd(int fd, size_t max, char **ret, size_t *ret_len);

/* "auto", "statmount" or "mountinfo" -> enum mntsnap_backend; -EINVAL otherwise. */
int cli_parse_backend(const char *s);

/* Parse an unsigned 64-bit number (decimal or 0x hex); -EINVAL if not one. */
int cli_parse_u64(const char *s, uint64_t *ret);

/*
 * A number in a findmnt option, read as findmnt reads it: decimal only,
 * blanks and a sign before the digits, nothing after, within [lo, hi];
 * with is_unsigned any negative number is out of range. Returns 0,
 * -EINVAL (no number: findmnt's plain message) or -ERANGE (findmnt adds
 * strerror(ERANGE) to it).
 */
int cli_parse_findmnt_num(const char *s, bool is_unsigned, int64_t lo, int64_t hi, int64_t *ret);

/*
 * list -p/--poll (findmnt's poll mode), run by the watcher of mntsnap
 * watch: lines as findmnt --poll prints them. specs: the -o lists in
 * order; mode: enum out_mode; actions: cli_poll_actions()'s mask (0: all);
 * timeout_ms: -w (< 0: none); tid: the TID column's task. Returns the exit
 * status.
 */
struct view;
struct cli_poll {
	const struct cli_target *t;
	const struct view *view; /* the filters (findmnt applies them per change), -f, -d, -v, -c */
	const char *const *specs;
	size_t nspecs;
	int mode;
	bool noheadings;
	unsigned actions;
	long timeout_ms;
	long tid;
	/*
	 * a task's procfs mountinfo (-F's, or /proc/PID/mountinfo of -N), read
	 * through one file opened at the start, as findmnt reads it: the view
	 * the kernel fixed at that open; NULL: the target's table
	 */
	const char *mountinfo_path;
	/*
	 * a task's table in /proc/mounts' format on a procfs (-F's): opened
	 * once, read again through that file at each change and diffed as
	 * libmount diffs entries without ids (tabdiff.h), as findmnt polls
	 * it; mounts_name names it in messages (NULL: mounts_path). NULL: not
	 * such a table
	 */
	const char *mounts_path, *mounts_name;
	/*
	 * -m: utab's userspace options per row of snap (*ret NULL: none),
	 * shown in the first batch's records from before, as findmnt, which
	 * starts from the mtab; NULL: not -m
	 */
	int (*utab)(const struct mntsnap_snapshot *snap, char ***ret);
};
int cli_poll(const struct cli_poll *p);

/*
 * The columns only -p fills (ACTION, OLD-TARGET, OLD-OPTIONS), each with
 * what it is, as list's --list-columns prints a column (col_list()) or,
 * with help, as list --help does (col_help()): list's lists name them
 * after the others, as findmnt -h names them with its own.
 */
void cli_poll_columns(FILE *f, bool help);
/* NAME as -p's column (ACTION, OLD-TARGET, OLD-OPTIONS): its header, else NULL */
const char *cli_poll_column(const char *name, size_t len);

/*
 * -p's ACTIONS (mount,umount,remount,move, case-blind), read when the
 * option is, as findmnt reads them (util-linux's string_to_idarray()):
 * 0 with *ret set; 1 for an empty list or item, or a fifth item (findmnt
 * exits 1 then, saying nothing); -EINVAL for an unknown action (message
 * printed).
 */
int cli_poll_actions(const char *list, unsigned *ret);

/*
 * list, show and stat speak findmnt's long options: a copy of argv in
 * which each --PREFIX[=V] that findmnt 2.38.1 resolves (and that is no
 * whole name of lo) is that option's full name, for getopt_long with
 * shortopts and lo. A prefix findmnt calls ambiguous is refused (message
 * printed). The copy is freed with cli_findmnt_argv_free(). 0 or -errno.
 */
struct option;
int cli_findmnt_argv(const char *cmd, int argc, char **argv, const char *shortopts,
		     const struct option *lo, char ***ret_argv);
void cli_findmnt_argv_free(int argc, char **av);
/* run(argc, that copy) for cmd: its exit status (CLI_EXIT_ERR if refused) */
int cli_findmnt_run(const char *cmd, int argc, char **argv, const char *shortopts,
		    const struct option *lo, const struct out_locale *loc,
		    int (*run)(int argc, char **argv, const struct out_locale *loc));

/* The version and the optional libraries of this build (mntsnap --version). */
void cli_version(FILE *f);

/* The commands. */
int cmd_list(int argc, char **argv, const struct out_locale *loc);
int cmd_stat(int argc, char **argv, const struct out_locale *loc);
int cmd_seccomp(int argc, char **argv);
int cmd_ns(int argc, char **argv);
int cmd_save(int argc, char **argv);
int cmd_show(int argc, char **argv, const struct out_locale *loc);
int cmd_diff(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_supervise(int argc, char **argv);

/* seccomp --notify-mounts (seccomp-notify.c): wanted? then it runs alone. */
bool seccomp_notify_wanted(int argc, char **argv);
int cmd_seccomp_notify(int argc, char **argv);

#endif
