// SPDX-License-Identifier: MIT
/*
 * Human output: a table (one mount a line) and a tree like findmnt's.
 * Control characters and backslashes in names are shown as \ooo so a
 * hostile mount point cannot rewrite the terminal.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

static void put_safe(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
}

static const char *prop_name(const struct mntsnap_mount *m)
{
	uint32_t p = m->propagation;

	if ((p & MNTSNAP_PROP_SHARED) && (p & MNTSNAP_PROP_SLAVE))
		return "shared,slave";
	if (p & MNTSNAP_PROP_SHARED)
		return "shared";
	if (p & MNTSNAP_PROP_SLAVE)
		return "slave";
	if (p & MNTSNAP_PROP_UNBINDABLE)
		return "unbindable";
	return "private";
}

static void put_type(FILE *f, const struct mntsnap_mount *m)
{
	put_safe(f, m->fs_type);
	if ((m->mask & MNTSNAP_F_FS_SUBTYPE) && m->fs_subtype[0]) {
		fputc('.', f);
		put_safe(f, m->fs_subtype);
	}
}

static void put_details(FILE *f, const struct mntsnap_mount *m)
{
	char vfs[128];

	fputc(' ', f);
	put_safe(f, m->mask & MNTSNAP_F_SOURCE ? m->source : "none");
	fputc(' ', f);
	put_type(f, m);
	mntsnap_vfs_options(m, vfs, sizeof(vfs));
	fprintf(f, " %s %s", vfs, prop_name(m));
	if (strcmp(m->root, "/") && m->root[0]) {
		fputs(" [", f);
		put_safe(f, m->root);
		fputc(']', f);
	}
	fputc('\n', f);
}

int mntsnap_render_table(const struct mntsnap_snapshot *snap, FILE *f)
{
	size_t n = mntsnap_snapshot_count(snap);
	struct mntsnap_mount m;
	int r;

	fprintf(f, "%-11s %-11s %-6s %s SOURCE FSTYPE OPTIONS PROPAGATION [FSROOT]\n", "UNIQ-ID",
		"PARENT", "ID", "TARGET");
	for (size_t i = 0; i < n; i++) {
		mntsnap_snapshot_get(snap, i, &m);
		fprintf(f, "%-11" PRIu64 " %-11" PRIu64 " %-6" PRIu32 " ", m.id, m.parent_id,
			m.id_old);
		put_safe(f, m.mount_point);
		put_details(f, &m);
		r = mntsnap__record_written(f);
		if (r)
			return r;
	}
	return 0;
}

int mntsnap_render_tree(const struct mntsnap_snapshot *snap, FILE *f)
{
	size_t n = mntsnap_snapshot_count(snap);
	/* last[d]: is the ancestor at depth d the last of its siblings? */
	unsigned char last[256] = {0};
	struct mntsnap_mount m;
	int r;

	for (size_t k = 0; k < n; k++) {
		long i = mntsnap_snapshot_tree_index(snap, k);

		if (i < 0)
			return (int)i;
		mntsnap_snapshot_get(snap, (size_t)i, &m);
		if (m.depth < sizeof(last))
			last[m.depth] = mntsnap_snapshot_next_sibling(snap, (size_t)i) < 0;
		for (uint32_t d = 1; d < m.depth && d < sizeof(last); d++)
			fputs(last[d] ? "  " : "\u2502 ", f);
		if (m.depth)
			fputs(last[m.depth < sizeof(last) ? m.depth : sizeof(last) - 1]
				      ? "\u2514\u2500"
				      : "\u251c\u2500",
			      f);
		put_safe(f, m.mount_point);
		put_details(f, &m);
		r = mntsnap__record_written(f);
		if (r)
			return r;
	}
	return 0;
}
