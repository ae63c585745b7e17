// SPDX-License-Identifier: MIT
/* mntsnap save / show / diff: binary snapshots on disk. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "tags.h"
#include "view.h"

static const char save_help[] =
	"usage: mntsnap save [TARGET] [--backend auto|statmount|mountinfo] [--full]\n"
	"                    [--strict] [--under PATH] [--allow-inconsistent] [--no-sync] FILE\n"
	"Capture a mount table and write it to FILE as a binary snapshot\n"
	"(atomically: a crash never leaves half a file under FILE). A FILE that\n"
	"is a symbolic link: the file it points to is replaced, the link stays.\n"
	"A replaced file keeps its mode; a new one is created 0600.\n"
	"TARGET: --pid PID | --ns PATH | --ns-id ID (default: own namespace)\n"
	"  --full     every field (option arrays, id maps, the filesystem UUID, ...)\n"
	"  --strict   retry until two successive captures agree field by field\n"
	"  --under P  only the mount at P and the mounts below it (P as the\n"
	"             TARGET sees it)\n"
	"  --allow-inconsistent  save a table that changed during every capture\n"
	"             (with a warning) instead of failing with exit 2\n"
	"  --no-sync  no fsync of FILE or its directory (still atomic; after a\n"
	"             power loss FILE may be the old one or missing): for state on\n"
	"             tmpfs, or that does not outlive a boot\n";

static const char show_help[] =
	"usage: mntsnap show [OPTIONS] FILE [SOURCE|MOUNTPOINT | SOURCE MOUNTPOINT]\n"
	"Render a saved snapshot with list's output and filter options below\n"
	"(default: a tree); warns on stderr when it was saved from a table that\n"
	"kept changing (by save, when told to allow it). A saved table is read\n"
	"as it was saved, its mount points are its text, never resolved on this\n"
	"machine (-M, -T, MOUNTPOINT through a symlink, with \"..\" or relative: that\n"
	"text; -T PATH: the longest mount point PATH starts with, by the text,\n"
	"even for a PATH missing here); its TID column is empty (the task that was\n"
	"read is gone). Devices are this machine's, as findmnt -F asks libblkid:\n"
	"-S TAG=value and a TAG=value argument (LABEL=, UUID=, PARTLABEL=,\n"
	"PARTUUID=, ID=) match the device the tag names here (naming none: the text);\n"
	"-S PATH and a SOURCE argument, and the saved sources, are resolved here as\n"
	"findmnt -F resolves them (a symlink to the device, relative, \"..\");\n"
	"LABEL, PARTLABEL, PARTUUID, SOURCES are the source device's values here,\n"
	"and UUID where FILE holds none (saved with the default fields only; a\n"
	"saved UUID wins), the source probed as list probes it (-S /dev/loop0/,\n"
	"which realpath(3) refuses, leaves that spelling for the device: empty).\n";

/*
 * list's options that have no meaning for a saved table: show refuses
 * each (exit 2) with its reason. The one list: --help prints it and the
 * tests hold the docs and the completion to that text.
 */
static const struct view_refusal show_refused[] = {
	{ 'k', "-k, --kernel", "the kernel's table is this machine's; show's is FILE" },
	{ 'm', "-m, --mtab", "the mtab is this machine's table; show's is FILE" },
	{ 'c', "-c, --canonicalize", "it resolves paths on this machine; FILE's are its text" },
	{ 'C', "-C, --nocanonicalize", "show does not turn off its libblkid lookups (tags, LABEL, UUID)" },
	{ 'e', "-e, --evaluate", "show keeps a saved tag source as its text" },
	{ 's', "-s, --fstab", "it lists an fstab, not a saved table" },
	{ 'x', "-x, --verify", "it checks devices and directories on this machine" },
	{ OPT_VERBOSE, "--verbose", "it is -x's" },
	{ 'p', "-p, --poll", "a saved table never changes (mntsnap list -p, watch)" },
	{ 'w', "-w, --timeout", "it is -p's" },
	{ 'F', "-F, --tab-file, --mountinfo-file", "it reads another table; show's is FILE" },
	{ 'N', "-N, --task, --pid", "it reads a live task's table; show's is FILE" },
	{ OPT_PID, "-N, --task, --pid", "it reads a live task's table; show's is FILE" },
	{ OPT_NS, "--ns", "it reads a live namespace's table; show's is FILE" },
	{ OPT_NS_ID, "--ns-id", "it reads a live namespace's table; show's is FILE" },
};
#define SHOW_NREFUSED (sizeof(show_refused) / sizeof(show_refused[0]))

static const char diff_help[] =
	"usage: mntsnap diff OLD NEW [--format text|json] [-J] [--by-path] [--ignore-ids]\n"
	"                    [--old-prefix P] [--new-prefix P]\n"
	"Compare two saved snapshots: mounts added (+), removed (-), changed (~).\n"
	"Exit status: 0 equal, 1 different, 2 trouble (like diff(1)).\n"
	"  --format F, -J (json)  text (default) or json\n"
	"  --by-path      match by mount point + root + device, not by unique id\n"
	"  --ignore-ids   compare separately built tables (ids, devices and peer\n"
	"                 group numbers ignored; groups compared by structure)\n"
	"  --old-prefix P, --new-prefix P   strip P from mount points first\n";

static bool is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help");
}

int cmd_save(int argc, char **argv)
{
	struct cli_target t = { 0 };
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_ns *ns = NULL;
	const char *file = NULL, *under = NULL;
	bool allow = false;
	int backend = MNTSNAP_BACKEND_AUTO, r;
	uint32_t mask = 0, flags = 0, save_flags = 0;
	uint64_t under_id = 0;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		r = cli_target_arg(&t, argc, argv, &i);
		if (r < 0)
			return CLI_EXIT_ERR;
		if (r)
			continue;
		if (is_help(argv[i])) {
			fputs(save_help, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--full")) {
			mask = MNTSNAP_MASK_FULL;
		} else if (!strcmp(argv[i], "--allow-inconsistent")) {
			allow = true;
		} else if (!strcmp(argv[i], "--no-sync")) {
			save_flags |= MNTSNAP_SAVE_NO_SYNC;
		} else if (!strcmp(argv[i], "--strict")) {
			flags |= MNTSNAP_CAPTURE_STRICT;
		} else if (!strcmp(argv[i], "--under") && i + 1 < argc) {
			under = argv[++i];
		} else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
			backend = cli_parse_backend(argv[++i]);
			if (backend < 0)
				return cli_fail(0, "save: unknown backend '%s'", argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_fail(0, "save: unknown option '%s'", argv[i]);
		} else if (file) {
			return cli_fail(0, "save: more than one FILE");
		} else {
			file = argv[i];
		}
	}
	if (!file)
		return cli_fail(0, "save: FILE is missing (see mntsnap save --help)");
	if (cli_target_open(&t, &ns))
		return CLI_EXIT_ERR;
	/* PATH as the target sees it: it may not exist here at all */
	if (under && cli_under_id("save", ns, under, &under_id)) {
		cli_target_close(ns);
		return CLI_EXIT_ERR;
	}
	{
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = backend, .mask = mask,
			     .flags = flags, .ns = ns, .under_id = under_id);

		r = cli_capture("save", &o, allow, &s);
	}
	cli_target_close(ns);
	if (r)
		return CLI_EXIT_ERR;
	{
		MNTSNAP_OPTS(mntsnap_save_opts, so, .flags = save_flags);

		r = mntsnap_snapshot_save_with(s, file, &so);
	}
	mntsnap_snapshot_free(s);
	if (r == -ENOENT && !lstat(file, &st) && S_ISLNK(st.st_mode))
		return cli_fail(0, "save: %s: a symbolic link to nothing (the file it names is "
				   "not created)", file);
	if (r)
		return cli_fail(r, "save: %s", file);
	return 0;
}

static int load(const char *cmd, const char *file, struct mntsnap_snapshot **ret)
{
	struct mntsnap_error err = { 0 };
	int r = mntsnap_snapshot_load(file, &err, ret);

	if (r)
		cli_fail(0, "%s: %s: %s", cmd, file, err.msg[0] ? err.msg : strerror(-r));
	return r;
}

#define SHOW_SHORTOPTS VIEW_SHORTOPTS VIEW_LIVE_SHORTOPTS VIEW_TABLE_SHORTOPTS "N:"
static const struct option show_lo[] = {
	VIEW_LONGOPTS,
	VIEW_LIVE_LONGOPTS,
	VIEW_TABLE_LONGOPTS,
	VIEW_TARGET_LONGOPTS,
	{ 0 },
};

static int show_run(int argc, char **argv, const struct out_locale *loc)
{
	struct mntsnap_snapshot *s;
	const char *file = NULL;
	struct tags_cache tc = { 0 };
	char *tagdev = NULL;
	struct view v;
	int c, r;

	view_init(&v, loc);
	/* another machine's or namespace's table: paths by its own text */
	v.saved = true;
	/* a UUID it was saved without (no --full): libblkid's, as findmnt -F */
	v.out.cx.file_uuid = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, SHOW_SHORTOPTS, show_lo, NULL)) != -1) {
		r = view_refuse("show", show_refused, SHOW_NREFUSED, c);
		if (r)
			return r;
		if (view_excl(&v, "show", c))
			return CLI_EXIT_ERR;
		r = view_opt(&v, "show", c, optarg);
		if (r < 0)
			return CLI_EXIT_ERR;
		if (r)
			continue;
		if (c == 'h') {
			fputs(show_help, stdout);
			fputs(view_help, stdout);
			view_refused_help(stdout, "list's options with no meaning for a saved table",
					  show_refused, SHOW_NREFUSED);
			fputs("COLUMNS: as mntsnap list --help shows them\n", stdout);
			return 0;
		}
		if (c == 'V') {
			cli_version(stdout);
			return 0;
		}
		return cli_fail(0, "show: bad option (see mntsnap show --help)");
	}
	if (v.list_columns) {
		col_list(stdout);
		return 0;
	}
	r = view_finish(&v, "show");
	if (r)
		return r;
	if (optind < argc)
		file = argv[optind++];
	/* as list: SOURCE or MOUNTPOINT, or both, the mounts they name */
	if (view_operands(&v, "show", argc, argv, &optind))
		return CLI_EXIT_ERR;
	if (optind < argc)
		return cli_fail(0, "show: unexpected argument '%s' (one FILE, then a SOURCE or "
				   "MOUNTPOINT, or a SOURCE and a MOUNTPOINT)", argv[optind]);
	if (!file)
		return cli_fail(0, "show: FILE is missing (see mntsnap show --help)");
	if (((v.source && tags_is_devtag(v.source)) || (v.match && tags_is_devtag(v.match))) &&
	    !tags_have())
		return cli_fail(0, "show: -S TAG=value needs libblkid, which this build lacks");
	if (load("show", file, &s))
		return CLI_EXIT_ERR;
	if (!mntsnap_snapshot_consistent(s))
		fprintf(stderr,
			"mntsnap: warning: show: %s was saved from a table that changed during "
			"each of %u captures: it may list mounts that never existed together\n",
			file, mntsnap_snapshot_attempts(s));
	/* as list's -F FILE: the device the tag names here, as findmnt -F */
	v.out.cx.tags = &tc;
	view_resolve_tag(&v, &tagdev);
	r = view_print(&v, "show", s);
	mntsnap_snapshot_free(s);
	tags_cache_release(&tc);
	free(tagdev);
	return r;
}

int cmd_show(int argc, char **argv, const struct out_locale *loc)
{
	return cli_findmnt_run("show", argc, argv, SHOW_SHORTOPTS, show_lo, loc, show_run);
}

struct diff_args {
	const char *files[2];
	int nfiles;
	int format;
	struct mntsnap_diff_opts opts;
};

static int parse_diff(int argc, char **argv, struct diff_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (is_help(o)) {
			fputs(diff_help, stdout);
			return 1;
		} else if (!strcmp(o, "--by-path")) {
			a->opts.flags |= MNTSNAP_DIFF_BY_PATH;
		} else if (!strcmp(o, "--ignore-ids")) {
			a->opts.flags |= MNTSNAP_DIFF_IGNORE_IDS;
		} else if (!strcmp(o, "-J") || !strcmp(o, "--json")) {
			a->format = MNTSNAP_DIFF_FORMAT_JSON;
		} else if (!strcmp(o, "--format") && i + 1 < argc) {
			o = argv[++i];
			if (!strcmp(o, "text"))
				a->format = MNTSNAP_DIFF_FORMAT_TEXT;
			else if (!strcmp(o, "json"))
				a->format = MNTSNAP_DIFF_FORMAT_JSON;
			else
				return cli_fail(0, "diff: unknown format '%s' (text|json)", o), -1;
		} else if (!strcmp(o, "--old-prefix") && i + 1 < argc) {
			a->opts.old_prefix = argv[++i];
		} else if (!strcmp(o, "--new-prefix") && i + 1 < argc) {
			a->opts.new_prefix = argv[++i];
		} else if (o[0] == '-' && o[1]) {
			return cli_fail(0, "diff: unknown option or missing value '%s'", o), -1;
		} else if (a->nfiles == 2) {
			return cli_fail(0, "diff: more than two files"), -1;
		} else {
			a->files[a->nfiles++] = o;
		}
	}
	if (a->nfiles != 2)
		return cli_fail(0, "diff: need OLD and NEW (see mntsnap diff --help)"), -1;
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args a = { .opts = { .sz = sizeof(a.opts) } };
	struct mntsnap_snapshot *old = NULL, *new = NULL;
	struct mntsnap_diff *d = NULL;
	int r;

	r = parse_diff(argc, argv, &a);
	if (r)
		return r > 0 ? 0 : CLI_EXIT_ERR;
	if (load("diff", a.files[0], &old) || load("diff", a.files[1], &new)) {
		mntsnap_snapshot_free(old);
		return CLI_EXIT_ERR;
	}
	r = mntsnap_diff_with(old, new, &a.opts, &d);
	if (r)
		r = cli_fail(r, "diff");
	else if ((r = mntsnap_diff_render(d, a.format, stdout)))
		r = cli_fail(r, "diff: writing output");
	else
		r = mntsnap_diff_count(d) ? 1 : 0;
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(old);
	mntsnap_snapshot_free(new);
	return r;
}
