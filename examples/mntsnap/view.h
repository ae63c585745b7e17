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
};

#define VIEW_SHORTOPTS "o:JlrPnaubt:O:T:M:S:Rh"
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
	{ "help", no_argument, NULL, 'h' }

struct view {
	struct out_opts out;
	bool mountinfo;     /* --format mountinfo: the kernel's text */
	bool list_forced;   /* -l given */
	const char *types;  /* -t */
	const char *options; /* -O */
	const char *target; /* -T */
	const char *mountpoint; /* -M */
	const char *source; /* -S */
	bool submounts;     /* -R: the matches' submounts too, as a tree */
	bool saved;         /* a saved table: paths by its text, never the file system */
	const char *match;  /* a positional SOURCE or TARGET */
};

void view_init(struct view *v);

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

/* Help text for the options above. */
extern const char view_help[];

/*
 * Print snap as the options say. Returns 0 (something printed), 1
 * (nothing matched, as findmnt) or CLI_EXIT_ERR (message printed).
 */
int view_print(struct view *v, const char *cmd, const struct mntsnap_snapshot *snap);

#endif
