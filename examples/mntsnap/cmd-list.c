// SPDX-License-Identifier: MIT
/* mntsnap list / mntsnap stat */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "view.h"

static const char list_help[] =
	"usage: mntsnap list [TARGET] [OPTIONS] [SOURCE|MOUNTPOINT]\n"
	"List the mounts of a mount namespace (default: the caller's), as\n"
	"findmnt does: a tree of TARGET,SOURCE,FSTYPE,OPTIONS by default.\n"
	"TARGET: --pid PID (-N, --task PID) | --ns PATH | --ns-id ID\n"
	"  -F, --tab-file FILE   parse a saved mountinfo file instead\n"
	"                        (also --mountinfo-file FILE)\n"
	"  --backend auto|statmount|mountinfo\n"
	"                        force a backend; auto falls back to mountinfo when\n"
	"                        statmount/listmount are missing or blocked\n"
	"  --under PATH          only the mount at PATH and the mounts below it\n"
	"                        (PATH as the TARGET sees it)\n"
	"  --threads N           statmount with N threads\n"
	"  --allow-inconsistent  print a table that changed during every capture\n"
	"                        (with a warning) instead of failing with exit 2\n"
	"  -p, --poll[=ACTIONS]  monitor the table, a line per change as findmnt\n"
	"                        --poll (columns ACTION,TARGET,SOURCE,FSTYPE,OPTIONS;\n"
	"                        -o adds OLD-TARGET, OLD-OPTIONS); ACTIONS: mount,\n"
	"                        umount,remount,move (default: all); see mntsnap watch\n"
	"  -w, --timeout MS      with --poll: stop after MS ms without a change\n"
	"A SOURCE or MOUNTPOINT argument prints only the mounts with that source\n"
	"or mount point.\n";

struct list_args {
	struct cli_target target;
	struct view view;
	int backend;
	const char *mountinfo_file;
	const char *under;
	unsigned threads;
	bool allow_inconsistent;
	/* -p/-w: the -o lists are kept for the poll table (view's -o knows
	 * no ACTION) and handed to the view afterwards when not polling */
	bool poll;
	const char *poll_actions;
	long timeout_ms;
	const char *specs[16];
	size_t nspecs;
};

static void print_help(const char *text)
{
	fputs(text, stdout);
	fputs(view_help, stdout);
	fputs("COLUMNS:\n", stdout);
	col_help(stdout);
}

static int parse_list(int argc, char **argv, struct list_args *a)
{
	static const struct option lo[] = {
		VIEW_LONGOPTS,
		{ "pid", required_argument, NULL, OPT_PID },
		{ "task", required_argument, NULL, 'N' },
		{ "ns", required_argument, NULL, OPT_NS },
		{ "ns-id", required_argument, NULL, OPT_NS_ID },
		{ "tab-file", required_argument, NULL, 'F' },
		{ "mountinfo-file", required_argument, NULL, 'F' },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "under", required_argument, NULL, OPT_UNDER },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "allow-inconsistent", no_argument, NULL, OPT_ALLOW_INCONSISTENT },
		{ "poll", optional_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 'w' },
		{ 0 },
	};
	uint64_t v;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, VIEW_SHORTOPTS "N:F:p::w:", lo, NULL)) != -1) {
		if (c == 'o' && a->nspecs < sizeof(a->specs) / sizeof(a->specs[0])) {
			a->specs[a->nspecs++] = optarg;
			continue;
		}
		r = view_opt(&a->view, "list", c, optarg);
		if (r < 0)
			return r;
		if (r)
			continue;
		switch (c) {
		case 'h':
			print_help(list_help);
			return 1;
		case 'N':
		case OPT_PID:
			if (cli_target_set(&a->target, "--pid", optarg))
				return -EINVAL;
			a->view.out.cx.tid = a->target.pid;
			break;
		case OPT_NS:
			if (cli_target_set(&a->target, "--ns", optarg))
				return -EINVAL;
			break;
		case OPT_NS_ID:
			if (cli_target_set(&a->target, "--ns-id", optarg))
				return -EINVAL;
			break;
		case 'F':
			a->mountinfo_file = optarg;
			break;
		case OPT_BACKEND:
			a->backend = cli_parse_backend(optarg);
			if (a->backend < 0)
				return cli_fail(0, "list: unknown backend '%s'", optarg), -EINVAL;
			break;
		case OPT_UNDER:
			a->under = optarg;
			break;
		case OPT_THREADS:
			if (cli_parse_u64(optarg, &v) || v > 64)
				return cli_fail(0, "list: bad --threads '%s'", optarg), -EINVAL;
			a->threads = (unsigned)v;
			break;
		case OPT_ALLOW_INCONSISTENT:
			a->allow_inconsistent = true;
			break;
		case 'p':
			a->poll = true;
			a->poll_actions = optarg;
			break;
		case 'w': {
			char *end;

			errno = 0;
			a->timeout_ms = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end)
				return cli_fail(0, "list: bad --timeout '%s'", optarg), -EINVAL;
			break;
		}
		default:
			cli_fail(0, "list: bad option (see mntsnap list --help)");
			return -EINVAL;
		}
	}
	if (optind < argc)
		a->view.match = argv[optind++];
	if (optind < argc) {
		cli_fail(0, "list: unexpected argument '%s' (see --help)", argv[optind]);
		return -EINVAL;
	}
	for (size_t i = 0; !a->poll && i < a->nspecs; i++)
		if (view_opt(&a->view, "list", 'o', a->specs[i]) < 0)
			return -EINVAL;
	return 0;
}

/* -p: findmnt's poll mode, on the watcher (cmd-watch.c). */
static int list_poll(const struct list_args *a)
{
	struct cli_poll q = { .t = &a->target, .specs = a->specs, .nspecs = a->nspecs,
			      .mode = a->view.out.mode, .noheadings = a->view.out.noheadings,
			      .actions = a->poll_actions, .timeout_ms = a->timeout_ms,
			      .tid = a->target.set ? a->target.pid : getpid() };

	if (a->mountinfo_file)
		return cli_fail(0, "list: --poll watches a live table, not a --tab-file");
	return cli_poll(&q);
}

int cmd_list(int argc, char **argv)
{
	struct list_args a = { 0 };
	struct mntsnap_snapshot *snap = NULL;
	struct mntsnap_ns *ns = NULL;
	uint64_t under = 0;
	int r;

	view_init(&a.view);
	a.timeout_ms = -1;
	r = parse_list(argc, argv, &a);
	if (r)
		return r > 0 ? 0 : CLI_EXIT_ERR;
	if (a.poll)
		return list_poll(&a);
	if (a.mountinfo_file && a.target.set)
		return cli_fail(0, "list: --tab-file and a TARGET exclude each other");
	if (a.mountinfo_file)
		a.backend = MNTSNAP_BACKEND_MOUNTINFO;
	/* findmnt's TID: the task whose table is read (our own, by default) */
	if (!a.mountinfo_file && !a.target.set)
		a.view.out.cx.tid = getpid();
	if (cli_target_open(&a.target, &ns))
		return CLI_EXIT_ERR;
	/* PATH as the target sees it: it may not exist here at all */
	if (a.under && cli_under_id("list", ns, a.under, &under)) {
		cli_target_close(ns);
		return CLI_EXIT_ERR;
	}

	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .backend = a.backend, .ns = ns,
		     .mountinfo_path = a.mountinfo_file, .under_id = under,
		     .threads = a.threads, .mask = MNTSNAP_MASK_DEFAULT | view_mask(&a.view));
	r = cli_capture("list", &opts, a.allow_inconsistent, &snap);
	cli_target_close(ns);
	if (r)
		return CLI_EXIT_ERR;
	r = view_print(&a.view, "list", snap);
	mntsnap_snapshot_free(snap);
	return r;
}

/*
 * The kernel numbers unique mount ids from 2^31 up (MNT_UNIQUE_ID_OFFSET):
 * a smaller number is a /proc id, findmnt's ID column, never a unique one.
 */
#define STAT_UNIQUE_MIN (1ULL << 31)

static bool is_old_id(const struct mntsnap_mount *m, void *data)
{
	return m->id_old == *(const uint32_t *)data;
}

/*
 * stat by a /proc id: found in the table (ids are reused, but one table
 * holds each once), then asked again by its unique id for every field;
 * a table without unique ids (the text backend) gives its own record.
 */
static int stat_old_id(struct mntsnap_ns *ns, uint32_t old, struct mntsnap_snapshot **ret)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .ns = ns);
	struct mntsnap_snapshot *all = NULL, *one = NULL;
	struct mntsnap_mount m;
	int r = mntsnap_capture(&opts, &all);

	if (r)
		return r;
	r = mntsnap_snapshot_filter(all, is_old_id, &old, &one);
	mntsnap_snapshot_free(all);
	if (r)
		return r;
	if (!mntsnap_snapshot_count(one)) {
		mntsnap_snapshot_free(one);
		return -ENOENT;
	}
	mntsnap_snapshot_get(one, 0, &m);
	if (m.mask & MNTSNAP_F_ID) {
		uint64_t id = m.id;

		mntsnap_snapshot_free(one);
		return mntsnap_stat_id(ns, id, MNTSNAP_MASK_FULL, ret);
	}
	*ret = one;
	return 0;
}

static const char stat_help[] =
	"usage: mntsnap stat [TARGET] [OPTIONS] (ID | PATH)\n"
	"One mount by its 64-bit unique id or by a path on it, without walking\n"
	"the mount table (statmount, or statx STATX_MNT_ID_UNIQUE + statmount).\n"
	"An ID below 2^31 is a /proc mount id (findmnt's ID column): it is looked\n"
	"up in the table first.\n"
	"Printed as a list by default.\n"
	"TARGET: --pid PID (-N, --task PID) | --ns PATH | --ns-id ID (a PATH\n"
	"        resolves in the target, symlinks included, without leaving its root)\n";

int cmd_stat(int argc, char **argv)
{
	static const struct option lo[] = {
		VIEW_LONGOPTS,
		{ "pid", required_argument, NULL, OPT_PID },
		{ "task", required_argument, NULL, 'N' },
		{ "ns", required_argument, NULL, OPT_NS },
		{ "ns-id", required_argument, NULL, OPT_NS_ID },
		{ 0 },
	};
	struct cli_target t = { 0 };
	struct mntsnap_snapshot *snap = NULL;
	struct mntsnap_ns *ns = NULL;
	const char *what = NULL;
	struct view v;
	uint64_t id;
	int c, r;

	view_init(&v);
	v.out.mode = OUT_LIST;
	optind = 1;
	while ((c = getopt_long(argc, argv, VIEW_SHORTOPTS "N:", lo, NULL)) != -1) {
		r = view_opt(&v, "stat", c, optarg);
		if (r < 0)
			return CLI_EXIT_ERR;
		if (r)
			continue;
		if (c == 'h') {
			print_help(stat_help);
			return 0;
		}
		if (c == 'N' || c == OPT_PID)
			r = cli_target_set(&t, "--pid", optarg), v.out.cx.tid = t.pid;
		else if (c == OPT_NS)
			r = cli_target_set(&t, "--ns", optarg);
		else if (c == OPT_NS_ID)
			r = cli_target_set(&t, "--ns-id", optarg);
		else
			return cli_fail(0, "stat: bad option (see mntsnap stat --help)");
		if (r)
			return CLI_EXIT_ERR;
	}
	if (optind < argc)
		what = argv[optind++];
	if (optind < argc)
		return cli_fail(0, "stat: unexpected argument '%s' (see --help)", argv[optind]);
	if (!what)
		return cli_fail(0, "stat: give a mount id or a path (see --help)");
	if (cli_target_open(&t, &ns))
		return CLI_EXIT_ERR;
	/* a bare number is an id; "./123" names a path */
	if (!cli_parse_u64(what, &id) && id < STAT_UNIQUE_MIN) {
		r = stat_old_id(ns, (uint32_t)id, &snap);
		if (r == -ENOENT) {
			cli_target_close(ns);
			return cli_fail(0, "stat %s: no mount has /proc mount id %s (an id below "
					   "2^31 is findmnt's ID, not a unique id)", what, what);
		}
	}
	else if (!cli_parse_u64(what, &id))
		r = mntsnap_stat_id(ns, id, MNTSNAP_MASK_FULL, &snap);
	else
		r = mntsnap_ns_stat_path(ns, what, MNTSNAP_MASK_FULL, &snap);
	cli_target_close(ns);
	if (r)
		return cli_fail(r, "stat %s", what);
	r = view_print(&v, "stat", snap);
	mntsnap_snapshot_free(snap);
	return r;
}

