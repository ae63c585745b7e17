// SPDX-License-Identifier: MIT
/* mntsnap list / mntsnap stat */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char list_help[] =
	"usage: mntsnap list [TARGET] [-o table|tree|json|mountinfo]\n"
	"                    [--backend auto|statmount|mountinfo] [--mountinfo-file FILE]\n"
	"                    [-t FSTYPE] [--under PATH] [--threads N] [--allow-inconsistent]\n"
	"List the mounts of a mount namespace (default: the caller's).\n"
	"TARGET: --pid PID | --ns PATH | --ns-id ID\n"
	"  -o FORMAT          output format (default: table)\n"
	"  --backend NAME     force a backend; auto falls back to mountinfo when\n"
	"                     statmount/listmount are missing or blocked\n"
	"  --mountinfo-file F parse a saved mountinfo file instead\n"
	"  -t FSTYPE          only mounts of this filesystem type\n"
	"  --under PATH       only the mount at PATH and the mounts below it\n"
	"                     (PATH as the TARGET sees it)\n"
	"  --threads N        statmount with N threads\n"
	"  --allow-inconsistent  print a table that changed during every capture\n"
	"                     (with a warning) instead of failing with exit 2\n";

struct list_args {
	struct cli_target target;
	int format;
	int backend;
	const char *mountinfo_file;
	const char *fstype;
	const char *under;
	unsigned threads;
	bool allow_inconsistent;
};

static int parse_list(int argc, char **argv, struct list_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		int r = cli_target_arg(&a->target, argc, argv, &i);
		uint64_t v;

		if (r < 0)
			return r;
		if (r)
			continue;
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(list_help, stdout);
			return 1;
		}
		if (!strcmp(o, "--allow-inconsistent")) {
			a->allow_inconsistent = true;
			continue;
		}
		if (i + 1 >= argc) {
			cli_fail(0, "list: unknown option or missing value: '%s'", o);
			return -EINVAL;
		}
		if (!strcmp(o, "-o")) {
			a->format = mntsnap_format_from_name(argv[++i]);
			if (a->format < 0)
				return cli_fail(0, "list: unknown format '%s'", argv[i]), -EINVAL;
		} else if (!strcmp(o, "--backend")) {
			a->backend = cli_parse_backend(argv[++i]);
			if (a->backend < 0)
				return cli_fail(0, "list: unknown backend '%s'", argv[i]), -EINVAL;
		} else if (!strcmp(o, "--mountinfo-file")) {
			a->mountinfo_file = argv[++i];
		} else if (!strcmp(o, "-t")) {
			a->fstype = argv[++i];
		} else if (!strcmp(o, "--under")) {
			a->under = argv[++i];
		} else if (!strcmp(o, "--threads")) {
			if (cli_parse_u64(argv[++i], &v) || v > 64)
				return cli_fail(0, "list: bad --threads '%s'", argv[i]), -EINVAL;
			a->threads = (unsigned)v;
		} else {
			cli_fail(0, "list: unknown option '%s' (see --help)", o);
			return -EINVAL;
		}
	}
	return 0;
}

/* Does m match the -t filter ("fuse.sshfs" matches type.subtype too)? */
static bool type_matches(const struct mntsnap_mount *m, void *data)
{
	const char *t = data;
	size_t tl = strlen(m->fs_type);

	if (!strcmp(m->fs_type, t))
		return true;
	return !strncmp(t, m->fs_type, tl) && t[tl] == '.' && !strcmp(t + tl + 1, m->fs_subtype);
}

/* Render only matching records: a filtered copy keeps the renderers simple. */
static int filter_snapshot(struct mntsnap_snapshot *snap, const char *fstype,
			   struct mntsnap_snapshot **ret)
{
	if (!fstype)
		return 0;
	return mntsnap_snapshot_filter(snap, type_matches, (void *)fstype, ret);
}

int cmd_list(int argc, char **argv)
{
	struct list_args a = { .format = MNTSNAP_FORMAT_TABLE };
	struct mntsnap_snapshot *snap = NULL, *out = NULL;
	struct mntsnap_ns *ns = NULL;
	uint64_t under = 0;
	int r;

	r = parse_list(argc, argv, &a);
	if (r)
		return r > 0 ? 0 : CLI_EXIT_ERR;
	if (a.mountinfo_file && a.target.set)
		return cli_fail(0, "list: --mountinfo-file and a TARGET exclude each other");
	if (a.mountinfo_file)
		a.backend = MNTSNAP_BACKEND_MOUNTINFO;
	if (cli_target_open(&a.target, &ns))
		return CLI_EXIT_ERR;
	/* PATH as the target sees it: it may not exist here at all */
	if (a.under && cli_under_id("list", ns, a.under, &under)) {
		cli_target_close(ns);
		return CLI_EXIT_ERR;
	}

	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .backend = a.backend, .ns = ns,
		     .mountinfo_path = a.mountinfo_file, .under_id = under,
		     .threads = a.threads);
	r = cli_capture("list", &opts, a.allow_inconsistent, &snap);
	cli_target_close(ns);
	if (r)
		return CLI_EXIT_ERR;
	r = filter_snapshot(snap, a.fstype, &out);
	if (r) {
		cli_fail(r, "list: -t %s", a.fstype);
	} else {
		r = mntsnap_render(out ? out : snap, a.format, stdout);
		if (r)
			cli_fail(r, "list: writing output");
	}
	mntsnap_snapshot_free(out);
	mntsnap_snapshot_free(snap);
	return r ? CLI_EXIT_ERR : 0;
}

static const char stat_help[] =
	"usage: mntsnap stat [TARGET] [-o FORMAT] (ID | PATH)\n"
	"One mount by its 64-bit unique id or by a path on it, without walking\n"
	"the mount table (statmount, or statx STATX_MNT_ID_UNIQUE + statmount).\n"
	"TARGET: --pid PID | --ns PATH | --ns-id ID (a PATH resolves in the target,\n"
	"        symlinks included, without leaving its root)\n";

int cmd_stat(int argc, char **argv)
{
	struct cli_target t = {0};
	struct mntsnap_snapshot *snap = NULL;
	struct mntsnap_ns *ns = NULL;
	int format = MNTSNAP_FORMAT_TABLE;
	const char *what = NULL;
	uint64_t id;
	int r;

	for (int i = 1; i < argc; i++) {
		r = cli_target_arg(&t, argc, argv, &i);
		if (r < 0)
			return CLI_EXIT_ERR;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(stat_help, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			format = mntsnap_format_from_name(argv[++i]);
			if (format < 0)
				return cli_fail(0, "stat: unknown format '%s'", argv[i]);
		} else if (!what && (argv[i][0] != '-' || !argv[i][1])) {
			what = argv[i];
		} else {
			return cli_fail(0, "stat: unexpected argument '%s' (see --help)", argv[i]);
		}
	}
	if (!what)
		return cli_fail(0, "stat: give a mount id or a path (see --help)");
	if (cli_target_open(&t, &ns))
		return CLI_EXIT_ERR;
	/* a bare number is an id; "./123" names a path */
	if (!cli_parse_u64(what, &id))
		r = mntsnap_stat_id(ns, id, MNTSNAP_MASK_FULL, &snap);
	else
		r = mntsnap_ns_stat_path(ns, what, MNTSNAP_MASK_FULL, &snap);
	cli_target_close(ns);
	if (r)
		return cli_fail(r, "stat %s", what);
	r = mntsnap_render(snap, format, stdout);
	mntsnap_snapshot_free(snap);
	return r ? cli_fail(r, "stat: writing output") : 0;
}
