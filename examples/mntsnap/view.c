// SPDX-License-Identifier: MIT
/* Output and filter options of list, show and stat (see view.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "view.h"

const char view_help[] =
	"Output (findmnt's options):\n"
	"  -o, --output COLUMNS  columns to print (default " COLS_DEFAULT ";\n"
	"                        +COLUMNS adds to it); see COLUMNS below\n"
	"  --output-all          every column\n"
	"  -J, --json            JSON (nested by the tree; flat with -l)\n"
	"  -l, --list            a list instead of a tree\n"
	"  -r, --raw             raw: unaligned, blanks and non-ASCII as \\xHH\n"
	"  -P, --pairs           NAME=\"value\" pairs\n"
	"  -n, --noheadings      no header line\n"
	"  -a, --ascii           draw the tree with ASCII characters\n"
	"  -u, --notruncate      accepted: mntsnap never truncates\n"
	"  -b, --bytes           SIZE, AVAIL, USED in bytes (JSON: numbers)\n"
	"  --format tree|list|table|json|raw|pairs|mountinfo\n"
	"                        long forms of the above; mountinfo is the kernel's\n"
	"                        own text, byte for byte (columns do not apply)\n"
	"Filters:\n"
	"  -t, --types LIST      only these filesystem types (a leading \"no\"\n"
	"                        negates the whole list, as in findmnt)\n"
	"  -O, --options LIST    only mounts with these options (noX: without X)\n"
	"  -T, --target PATH     only the mounts at the mount point PATH is on\n"
	"                        (show: found in the saved table, never on this\n"
	"                        file system)\n"
	"  -M, --mountpoint DIR  only the mounts at mount point DIR (stacked ones too)\n"
	"  -S, --source SOURCE   only the mounts of this source\n"
	"  -R, --submounts       with -T, -M, -S or a SOURCE|MOUNTPOINT: the mounts\n"
	"                        below each match too, as a tree\n"
	"Exit status: 0 something printed, 1 nothing matched, 2 error.\n";

void view_init(struct view *v)
{
	const char *bad;

	*v = (struct view){ 0 };
	v->out.mode = OUT_TREE;
	col_parse(COLS_DEFAULT, v->out.cols, &v->out.ncols, &bad);
}

static int set_format(struct view *v, const char *cmd, const char *f)
{
	static const struct {
		const char *name;
		enum out_mode mode;
	} fm[] = {
		{ "tree", OUT_TREE }, { "list", OUT_LIST }, { "table", OUT_LIST },
		{ "json", OUT_JSON }, { "raw", OUT_RAW },   { "pairs", OUT_PAIRS },
	};

	v->mountinfo = !strcmp(f, "mountinfo");
	if (v->mountinfo)
		return 1;
	for (size_t i = 0; i < sizeof(fm) / sizeof(fm[0]); i++)
		if (!strcmp(f, fm[i].name)) {
			v->out.mode = fm[i].mode;
			return 1;
		}
	cli_fail(0, "%s: unknown format '%s'", cmd, f);
	return -EINVAL;
}

uint32_t view_mask(const struct view *v)
{
	uint32_t m = 0;

	for (size_t i = 0; i < v->out.ncols; i++)
		m |= v->out.cols[i]->need;
	return m;
}

int view_opt(struct view *v, const char *cmd, int c, const char *arg)
{
	const char *bad = NULL;

	switch (c) {
	case 'o': {
		int r = col_parse(arg, v->out.cols, &v->out.ncols, &bad);

		if (r == -E2BIG) {
			cli_fail(0, "%s: too many columns (%d at most)", cmd, COLS_MAX);
			return -EINVAL;
		}
		if (r) {
			cli_fail(0, "%s: unknown column: %.*s", cmd, (int)strcspn(bad, ","), bad);
			return -EINVAL;
		}
		return 1;
	}
	case OPT_OUTPUT_ALL:
		v->out.ncols = 0;
		for (size_t i = 0; i < cols_all_count && i < COLS_MAX; i++)
			v->out.cols[v->out.ncols++] = &cols_all[i];
		return 1;
	case 'J':
		v->out.mode = OUT_JSON;
		return 1;
	case 'l':
		v->list_forced = true;
		if (v->out.mode == OUT_TREE)
			v->out.mode = OUT_LIST;
		return 1;
	case 'r':
		v->out.mode = OUT_RAW;
		return 1;
	case 'P':
		v->out.mode = OUT_PAIRS;
		return 1;
	case 'n':
		v->out.noheadings = true;
		return 1;
	case 'a':
		v->out.ascii = true;
		return 1;
	case 'u':
		return 1;
	case 'b':
		v->out.cx.bytes = true;
		return 1;
	case 't':
		v->types = arg;
		return 1;
	case 'O':
		v->options = arg;
		return 1;
	case 'T':
		v->target = arg;
		return 1;
	case 'M':
		v->mountpoint = arg;
		return 1;
	case 'S':
		v->source = arg;
		return 1;
	case 'R':
		v->submounts = true;
		return 1;
	case OPT_FORMAT:
		return set_format(v, cmd, arg);
	}
	return 0;
}

/*
 * libmount's type list match: "a,b" any of them; a "no" prefix on the
 * first item negates the whole list, on a later one just that item.
 */
bool match_types(const char *fstype, const char *list)
{
	bool neg = !strncmp(list, "no", 2);
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		const char *q = p;
		size_t ql = len;

		if (ql >= 2 && !strncmp(q, "no", 2)) {
			q += 2, ql -= 2;
		}
		if (strlen(fstype) == ql && !strncmp(fstype, q, ql))
			return !neg;
		p += len;
		if (*p == ',')
			p++;
	}
	return neg;
}

/* Does the comma list opts (length n) hold option name[=value]? */
static bool has_option(const char *opts, size_t n, const char *name, size_t nl)
{
	const char *eq = memchr(name, '=', nl);
	size_t key = eq ? (size_t)(eq - name) : nl;

	for (size_t i = 0; i < n;) {
		size_t e = i;

		while (e < n && opts[e] != ',')
			e++;
		if (eq ? (e - i == nl && !memcmp(opts + i, name, nl))
		       : (e - i >= key && !memcmp(opts + i, name, key) &&
			  (e - i == key || opts[i + key] == '=')))
			return true;
		i = e + 1;
	}
	return false;
}

/* libmount's option pattern: every item present, every noX item absent. */
bool match_options(const char *opts, size_t n, const char *pattern)
{
	for (const char *p = pattern; *p;) {
		size_t len = strcspn(p, ",");
		bool neg = len > 2 && !strncmp(p, "no", 2);
		const char *q = p + (*p == '+' ? 1 : 0);
		size_t ql = len - (size_t)(q - p);

		if (neg && !has_option(opts, n, q, ql))
			q += 2, ql -= 2;
		else
			neg = false;
		if (has_option(opts, n, q, ql) == neg)
			return false;
		p += len;
		if (*p == ',')
			p++;
	}
	return true;
}

/* Mark every mount at mount point path (findmnt -M lists stacked ones too). */
static size_t mark_at(const struct mntsnap_snapshot *snap, const char *path, bool *hit)
{
	size_t k = 0;

	for (long i = mntsnap_snapshot_next_mount_point(snap, path, -1); i >= 0;
	     i = mntsnap_snapshot_next_mount_point(snap, path, i), k++)
		hit[i] = true;
	return k;
}

/*
 * -T as findmnt: the mounts at the longest mount point of the table that
 * PATH starts with, by the text (libmount's mnt_table_find_mountpoint()):
 * PATH itself when it is one. So a mount covered by a later mount on a
 * directory above it still answers for the paths below its mount point,
 * as in findmnt; mntsnap_snapshot_find_path() says which mount a path
 * walk would reach. A live table resolves PATH on this file system first
 * (a path that does not resolve is on no mount); a saved one takes it as
 * the table's text, never looking at this file system.
 */
static int mark_target(const struct view *v, const struct mntsnap_snapshot *snap, bool *hit)
{
	char real[PATH_MAX], *p;
	size_t len;

	/* as libmount: the path as given first, then resolved */
	if (v->target[0] == '/' && mark_at(snap, v->target, hit))
		return 0;
	if (v->saved ? strlen(v->target) >= sizeof(real) : !realpath(v->target, real))
		return 0;
	if (v->saved)
		strcpy(real, v->target);
	if (real[0] != '/')
		return 0;
	for (len = strlen(real); len > 1 && !mark_at(snap, real, hit);) {
		p = strrchr(real, '/');
		*(p == real ? p + 1 : p) = '\0';
		len = strlen(real);
	}
	if (len == 1)
		mark_at(snap, "/", hit);
	return 0;
}

/* -T, -M, -S: what the lookups find; NULL hit left alone when none is asked. */
static int mark_lookups(const struct view *v, const struct mntsnap_snapshot *snap, bool *hit)
{
	char real[PATH_MAX];
	const char *mp = v->mountpoint;
	int r = 0;

	if (v->target)
		r = mark_target(v, snap, hit);
	/* as libmount: the directory as given, else as this file system names it (live) */
	if (!r && mp && !(mp[0] == '/' && mark_at(snap, mp, hit)) && !v->saved &&
	    realpath(mp, real))
		mark_at(snap, real, hit);
	if (!r && v->source && v->source[0])
		for (long i = mntsnap_snapshot_next_source(snap, v->source, -1); i >= 0;
		     i = mntsnap_snapshot_next_source(snap, v->source, i))
			hit[i] = true;
	return r;
}

/* -R: every mount below a match matches too (tree order: parents first). */
static void add_submounts(const struct mntsnap_snapshot *snap, bool *match)
{
	size_t n = mntsnap_snapshot_count(snap);

	for (size_t k = 0; k < n; k++) {
		long i = mntsnap_snapshot_tree_index(snap, k), p;

		if (i >= 0 && !match[i] && (p = mntsnap_snapshot_parent(snap, (size_t)i)) >= 0)
			match[i] = match[p];
	}
}

static int build_match(struct view *v, const struct mntsnap_snapshot *snap, bool *match)
{
	size_t n = mntsnap_snapshot_count(snap);
	bool lookup = v->target || v->mountpoint || v->source;
	struct obuf ob = { 0 };
	struct mntsnap_mount m;
	bool *hit = NULL;
	int r = 0;

	if (lookup) {
		hit = calloc(n + 1, sizeof(*hit));
		if (!hit)
			return -ENOMEM;
		r = mark_lookups(v, snap, hit);
		if (r) {
			free(hit);
			return r;
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool ok = true;

		mntsnap_snapshot_get(snap, i, &m);
		if (lookup)
			ok = hit[i];
		if (ok && v->types) {
			ob.len = 0;
			cols_all[2].get(&ob, &m, &v->out.cx);
			ob_putc(&ob, '\0');
			ok = !ob.err && match_types(ob.p, v->types);
		}
		if (ok && v->options) {
			ob.len = 0;
			col_merged_options(&ob, &m);
			ok = !ob.err && match_options(ob.p, ob.len, v->options);
		}
		if (ok && v->match) {
			ob.len = 0;
			cols_all[1].get(&ob, &m, &v->out.cx);
			ob_putc(&ob, '\0');
			ok = !strcmp(m.mount_point, v->match) || (!ob.err && !strcmp(ob.p, v->match)) ||
			     ((m.mask & MNTSNAP_F_SOURCE) && !strcmp(m.source, v->match));
		}
		match[i] = ok;
	}
	free(hit);
	r = ob.err;
	ob_free(&ob);
	if (!r && v->submounts && (lookup || v->match))
		add_submounts(snap, match);
	return r;
}

static bool pick(const struct mntsnap_mount *m, void *data)
{
	return ((const bool *)data)[m->index];
}

/* The kernel's text for the matching records only. */
static int print_mountinfo(const struct mntsnap_snapshot *snap, const bool *match,
			   const char *cmd)
{
	struct mntsnap_snapshot *sub = NULL;
	int r = mntsnap_snapshot_filter(snap, pick, (void *)match,
					&sub);

	if (r)
		return cli_fail(r, "%s", cmd);
	r = mntsnap_render(sub, MNTSNAP_FORMAT_MOUNTINFO, stdout);
	if (r) {
		mntsnap_snapshot_free(sub);
		return cli_fail(r, "%s: writing output", cmd);
	}
	r = mntsnap_snapshot_count(sub) ? 0 : 1;
	mntsnap_snapshot_free(sub);
	return r;
}

int view_print(struct view *v, const char *cmd, const struct mntsnap_snapshot *snap)
{
	size_t n = mntsnap_snapshot_count(snap), hits = 0;
	bool *match = NULL;
	long r;

	match = calloc(n + 1, sizeof(*match));
	if (!match)
		return cli_fail(-ENOMEM, "%s", cmd);
	r = build_match(v, snap, match);
	if (r) {
		free(match);
		return cli_fail((int)r, "%s", cmd);
	}
	/* findmnt prints a lookup (-T, -M, -S, SOURCE|TARGET) as a list, unless -R */
	bool lookup = v->target || v->mountpoint || v->source || v->match;

	v->out.roots_in_table_order = lookup && v->submounts;
	if (lookup && !v->submounts && v->out.mode == OUT_TREE)
		v->out.mode = OUT_LIST;
	if ((v->list_forced || (lookup && !v->submounts)) && v->out.mode == OUT_JSON)
		v->out.json_flat = true;
	if (v->mountinfo) {
		r = print_mountinfo(snap, match, cmd);
		free(match);
		return (int)r;
	}
	/* nothing matched: findmnt prints nothing (its JSON tree: an empty list) */
	for (size_t i = 0; i < n; i++)
		hits += match[i];
	if (!hits && (v->out.mode != OUT_JSON || v->out.json_flat)) {
		free(match);
		return 1;
	}
	r = out_render(snap, match, &v->out, stdout);
	free(match);
	if (r < 0)
		return cli_fail((int)r, "%s: writing output", cmd);
	return r ? 0 : 1;
}
