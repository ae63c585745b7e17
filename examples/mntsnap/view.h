/* SPDX-License-Identifier: MIT */
/*
 * Output and filter options shared by the commands that print mounts
 * (list, show, stat): findmnt's spelling and meaning.
 */
#ifndef MNTSNAP_VIEW_H
#define MNTSNAP_VIEW_H

#include <getopt.h>
#include <stdbool.h>

#include "columns.h"
#include "pathcache.h"

/* getopt_long values of the long-only options */
enum {
	OPT_FORMAT = 0x100,
	OPT_OUTPUT_ALL,
	OPT_PID,
	OPT_NS,
	OPT_NS_ID,
	OPT_BACKEND,
	OPT_UNDER,
	OPT_THREADS,
	OPT_ALLOW_INCONSISTENT,
	OPT_MOUNTINFO_FILE,
	OPT_REAL,
	OPT_PSEUDO,
	OPT_SHADOWED,
	OPT_TREE,
	OPT_LIST_COLUMNS,
	OPT_VFS_ALL,
	OPT_VERBOSE,
};

#define VIEW_SHORTOPTS "o:JlrPnaubt:O:T:M:S:RhAUfid:vDyV"
#define VIEW_LONGOPTS                                              \
	{ "output", required_argument, NULL, 'o' },                \
	{ "output-all", no_argument, NULL, OPT_OUTPUT_ALL },        \
	{ "json", no_argument, NULL, 'J' },                         \
	{ "list", no_argument, NULL, 'l' },                         \
	{ "raw", no_argument, NULL, 'r' },                          \
	{ "pairs", no_argument, NULL, 'P' },                        \
	{ "noheadings", no_argument, NULL, 'n' },                   \
	{ "ascii", no_argument, NULL, 'a' },                        \
	{ "notruncate", no_argument, NULL, 'u' },                   \
	{ "bytes", no_argument, NULL, 'b' },                        \
	{ "types", required_argument, NULL, 't' },                  \
	{ "options", required_argument, NULL, 'O' },                \
	{ "target", required_argument, NULL, 'T' },                 \
	{ "mountpoint", required_argument, NULL, 'M' },             \
	{ "source", required_argument, NULL, 'S' },                 \
	{ "submounts", no_argument, NULL, 'R' },                    \
	{ "format", required_argument, NULL, OPT_FORMAT },          \
	{ "real", no_argument, NULL, OPT_REAL },                    \
	{ "pseudo", no_argument, NULL, OPT_PSEUDO },                \
	{ "shadowed", no_argument, NULL, OPT_SHADOWED },            \
	{ "all", no_argument, NULL, 'A' },                          \
	{ "uniq", no_argument, NULL, 'U' },                         \
	{ "first-only", no_argument, NULL, 'f' },                   \
	{ "invert", no_argument, NULL, 'i' },                       \
	{ "direction", required_argument, NULL, 'd' },              \
	{ "nofsroot", no_argument, NULL, 'v' },                     \
	{ "tree", no_argument, NULL, OPT_TREE },                    \
	{ "df", no_argument, NULL, 'D' },                           \
	{ "shell", no_argument, NULL, 'y' },                        \
	{ "list-columns", no_argument, NULL, OPT_LIST_COLUMNS },    \
	{ "vfs-all", no_argument, NULL, OPT_VFS_ALL },              \
	{ "version", no_argument, NULL, 'V' },                      \
	{ "help", no_argument, NULL, 'h' }

/*
 * list's own (the live table's): -k, -m, -c, -C. show refuses each; stat
 * takes -k and -c, refuses -m and -C.
 */
#define VIEW_LIVE_SHORTOPTS "kmcC"
#define VIEW_LIVE_LONGOPTS                                         \
	{ "kernel", no_argument, NULL, 'k' },                       \
	{ "mtab", no_argument, NULL, 'm' },                         \
	{ "canonicalize", no_argument, NULL, 'c' },                 \
	{ "nocanonicalize", no_argument, NULL, 'C' }

/*
 * list's fstab, poll and table options: -e, -s, -x, --verbose, -p, -w, -F
 * (show and stat name them to refuse them, each with its reason; stat
 * takes -e)
 */
#define VIEW_TABLE_SHORTOPTS "F:sexp::w:"
#define VIEW_TABLE_LONGOPTS                                        \
	{ "tab-file", required_argument, NULL, 'F' },               \
	{ "mountinfo-file", required_argument, NULL, 'F' },         \
	{ "fstab", no_argument, NULL, 's' },                        \
	{ "evaluate", no_argument, NULL, 'e' },                     \
	{ "verify", no_argument, NULL, 'x' },                       \
	{ "verbose", no_argument, NULL, OPT_VERBOSE },              \
	{ "poll", optional_argument, NULL, 'p' },                   \
	{ "timeout", required_argument, NULL, 'w' }

/* list's and stat's TARGET: -N/--pid/--task PID, --ns PATH, --ns-id ID */
#define VIEW_TARGET_LONGOPTS                                       \
	{ "pid", required_argument, NULL, OPT_PID },                \
	{ "task", required_argument, NULL, 'N' },                   \
	{ "ns", required_argument, NULL, OPT_NS },                  \
	{ "ns-id", required_argument, NULL, OPT_NS_ID }

/*
 * list's options a command refuses (show, stat): each with its reason. The
 * command's one list: its --help prints it (view_refused_help()) and the
 * tests hold the docs and the completion to that text.
 */
struct view_refusal {
	int c;
	const char *names, *why;
};

/* The "Refused (exit 2): ..." block of --help, what introducing the list. */
void view_refused_help(FILE *f, const char *what, const struct view_refusal *t, size_t n);

/* CLI_EXIT_ERR (message printed, naming the reason) if t refuses c, else 0. */
int view_refuse(const char *cmd, const struct view_refusal *t, size_t n, int c);

#define VIEW_EXCL_GROUPS 9

struct view {
	struct out_opts out;
	bool mountinfo;     /* --format mountinfo: the kernel's text */
	bool list_forced;   /* -l given */
	const char *types;  /* -t */
	const char *options; /* -O */
	const char *target; /* -T */
	const char *mountpoint; /* -M */
	const char *source; /* -S NAME (the last) */
	const char *devno;  /* -S MAJ:MIN (the last): findmnt matches it beside
			     * -S NAME, both must hold */
	bool submounts;     /* -R: the matches' submounts too, as a tree */
	bool saved;         /* a saved table: paths by its text, never the file system */
	bool one;           /* stat: findmnt -T's lookup, done: a lookup's forms */
	const char *match;  /* a positional SOURCE or TARGET */
	bool pair;          /* source and mountpoint are the SOURCE MOUNTPOINT arguments */
	const char *source_tag; /* the NAME=value asked for, source its device (or NULL) */
	bool tag_swap;      /* source_tag is an ID= argument: tried as a mount point too */
	/* findmnt's filters and forms beyond the columns */
	bool real, pseudo;  /* --real, --pseudo: by libmount's pseudo types */
	bool shadowed;      /* --shadowed: mounts with a mount stacked on them */
	bool all;           /* -A: no built-in filter (-D's, and the list's) */
	bool uniq;          /* -U: one mount per mount point, the last */
	bool first_only;    /* -f */
	bool invert;        /* -i */
	bool backward;      /* -d backward */
	bool force_tree;    /* --tree */
	bool no_tree;       /* -D, -m (findmnt turns its tree off for them) */
	bool df;            /* -D */
	bool nocanon;       /* -C: lookups by the text, no path resolved */
	bool output_all;    /* --output-all: findmnt's columns, not mntsnap's own */
	const char *outarg; /* the last -o (findmnt: only the last one counts) */
	bool list_columns;  /* --list-columns */
	/*
	 * a column only -p fills, asked without it (its header; NULL: none):
	 * refused once the table is read (view_poll_only()), as findmnt
	 * refuses it after its table's parse warnings; never with -x
	 */
	const char *poll_only;
	int excl[VIEW_EXCL_GROUPS]; /* the option seen of each exclusive group */
};

/*
 * findmnt's mutually exclusive options (-c/-C, -C/-e, -J/-P/-r/-x, -M/-T,
 * -N/-k/-m/-s, -P/-l/-r/-x, --pseudo/--real, -p/-x, -p/-s; -m -p is
 * taken, as findmnt 2.38.1 takes it):
 * CLI_EXIT_ERR (message printed) when c conflicts with an option given
 * before, else 0. (-s, -x, -p, -e are list's; the others never pass them.)
 */
int view_excl(struct view *v, const char *cmd, int c);

/* Does s read as findmnt's MAJ:MIN (its sscanf("%d:%d"))? */
bool view_is_devno(const char *s);

/*
 * Does printing a match resolve its source through the path cache? -c's
 * SOURCE and the tag columns do (findmnt prints each match as it finds
 * it, so before later records are looked up).
 */
bool view_prints_resolved(const struct view *v);

/*
 * findmnt's SOURCE|MOUNTPOINT arguments, argv[*ind] on (list's and, after
 * its FILE, show's): refused beside -S NAME, -T or -M (-S MAJ:MIN is not);
 * one argument the match (a MAJ:MIN one replaces -S's); two a SOURCE and
 * MOUNTPOINT pair. Leaves *ind past what it took (the caller refuses the
 * rest). Returns 0, or CLI_EXIT_ERR (message printed).
 */
int view_operands(struct view *v, const char *cmd, int argc, char **argv, int *ind);

/*
 * -S LABEL=x (or such an argument) is first its text - a mount whose
 * source is "LABEL=x" - then the device the tag names, as findmnt
 * evaluates it with libblkid (mnt_resolve_spec()), in a live table, a -F
 * file and a saved one alike: source becomes that device and the tag is
 * kept in source_tag, for -f and the filter to try its text first. A tag
 * naming no device, or any under -C (findmnt then has no cache), is
 * matched as text only. *dev: that device (malloc'd, free() it after the
 * view is printed), else left NULL.
 */
void view_resolve_tag(struct view *v, char **dev);

/* findmnt -D's columns */
#define COLS_DF "SOURCE,FSTYPE,SIZE,USED,AVAIL,USE%,TARGET"

/*
 * After the options: the columns they choose together, as findmnt's:
 * --output-all's, -D's or the default, then the last -o (+LIST adds to
 * them). Returns 0; 1 for an empty column name or more than COLS_MAX
 * columns (nothing printed, no message: findmnt's exit); CLI_EXIT_ERR
 * (message printed).
 */
int view_finish(struct view *v, const char *cmd);

/*
 * The refusal of v->poll_only in findmnt's words: CLI_EXIT_ERR, said;
 * 0 when no such column was asked.
 */
int view_poll_only(const struct view *v, const char *cmd);

/* --list-columns: every column's name and description, one a line. */
void col_list(FILE *f);

/*
 * A column's description for --list-columns: findmnt's (msgid, NULL for
 * a column findmnt lacks) translated by findmnt's catalogue, or help,
 * mntsnap's English
 */
const char *col_help_text(const char *help, const char *msgid);

void view_init(struct view *v, const struct out_locale *loc);

/*
 * Handle one of the options above (c from getopt_long). Returns 1 if it
 * was one, 0 if not, -EINVAL (message printed) on a bad value.
 */
int view_opt(struct view *v, const char *cmd, int c, const char *arg);

/* MNTSNAP_F_* the chosen columns need beyond MNTSNAP_MASK_DEFAULT (UUID). */
uint32_t view_mask(const struct view *v);

/* libmount's -t list and -O pattern matches (also for fstab entries). */
bool match_types(const char *fstype, const char *list);
bool match_options(const char *opts, size_t n, const char *pattern);

/*
 * findmnt --poll's filter (its poll_match()): the view's filters on one
 * record at a time, with no table around it: -t, -O, -T/-M (the mount
 * point itself: no fallback to the mount a path is on), -S (MAJ:MIN, or
 * as libmount matches a source: the text, then resolved through a cache
 * kept for the whole poll), a positional SOURCE tried as a mount point
 * too, -D, --real,
 * --pseudo, --shadowed (the caller says whether a mount is stacked on
 * it) and -i.
 */
struct view_filter {
	const struct view *v;
	const char *target, *source;
	bool swap;      /* a positional argument: a mount point when no source matched */
	bool devno;     /* source is "MAJ:MIN" */
	unsigned maj, min;
	/* findmnt's cache: each path resolved once, at its first use (off: -C) */
	struct pathcache pc;
	/* source is a tag NAME=value (else NULL), and the device it names once found */
	char *tagname, *tagval, *tagdev;
	/*
	 * userspace options the record next tested has beyond its own (-m -p:
	 * utab's, in findmnt's first table), matched by -O after them; NULL: none
	 */
	const char *user_opts;
	struct obuf ob;
};
void view_filter_init(struct view_filter *f, const struct view *v);
/* Does any filter apply (else every record matches)? */
bool view_filter_active(const struct view_filter *f);
bool view_filter_match(struct view_filter *f, const struct mntsnap_mount *m, bool over);
void view_filter_free(struct view_filter *f);

/* Help text for the options above. */
extern const char view_help[];

/*
 * Print snap as the options say. Returns 0 (something printed), 1
 * (nothing matched, as findmnt) or CLI_EXIT_ERR (message printed).
 */
int view_print(struct view *v, const char *cmd, const struct mntsnap_snapshot *snap);

/*
 * findmnt -T PATH's lookup alone (no filter) on snap, a live table of
 * this machine: PATH's text resolved here (realpath(), else as given),
 * its mount points, then the text walked up to the mount point PATH is
 * on (mnt_table_find_mountpoint()). The index of the last mount it
 * finds (a stack's top: findmnt -T's last row), -ENOENT if none, or
 * -ENOMEM.
 */
long view_target_top(const struct out_locale *loc, const struct mntsnap_snapshot *snap,
		     const char *path);

#endif
