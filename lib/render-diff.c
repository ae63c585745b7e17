// SPDX-License-Identifier: MIT
/*
 * mntsnap_diff_render(): a computed diff (lib/diff.c) as text or JSON,
 * and the names its changes and keys are shown by.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "render.h"
#include "snapshot.h"

static const char *const change_names[] = {
	"mount_point", "parent",  "root",   "attributes", "propagation",
	"peer_group",  "master",  "propagate_from", "options", "source",
	"fs_type",     "device",  "sb_flags", "idmap",      "uuid",
};

/* every named change bit is rendered, the newest included */
#define CHANGE_LAST (1U << (sizeof(change_names) / sizeof(change_names[0]) - 1))

const char *mntsnap_diff_change_name(uint32_t bit)
{
	for (size_t i = 0; i < sizeof(change_names) / sizeof(change_names[0]); i++)
		if (bit == 1U << i)
			return change_names[i];
	return NULL;
}

const char *mntsnap_diff_key_name(int key)
{
	return key == MNTSNAP_DIFF_KEY_ID	? "id"
	       : key == MNTSNAP_DIFF_KEY_PATH ? "mount_point+root+device"
					      : "unknown";
}

/* ---- rendering ------------------------------------------------------------- */

/*
 * Every string as the table renderer writes it (findmnt -r): each byte
 * outside 0x21..0x7e, and the backslash, as \xHH. A diff is read in a
 * terminal, often of a table a container made: its mount points, sources
 * and options may hold ESC, CR, C1 controls (raw or as UTF-8) meant to
 * set the window title or rewrite lines. Spaces escaped keep the fields
 * of a line apart; an escaped backslash keeps "\x1b" in a name from
 * passing for an escape.
 */
static void put_path(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= 0x20 || c >= 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* "old -> new" with both sides escaped */
static void put_pair(FILE *f, const char *a, const char *b)
{
	put_path(f, a);
	fputs(" -> ", f);
	put_path(f, b);
}

/* type.subtype, escaped; "-" for none */
static void put_type(FILE *f, const struct mntsnap_mount *m)
{
	if (!m->fs_type[0]) {
		fputc('-', f);
		return;
	}
	put_path(f, m->fs_type);
	if ((m->mask & MNTSNAP_F_FS_SUBTYPE) && m->fs_subtype[0]) {
		fputc('.', f);
		put_path(f, m->fs_subtype);
	}
}

static void prop_text(const struct mntsnap_mount *m, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (m->propagation & MNTSNAP_PROP_SHARED)
		n += snprintf(buf + n, len - (size_t)n, "shared:%u ", m->peer_group);
	if (m->propagation & MNTSNAP_PROP_SLAVE)
		n += snprintf(buf + n, len - (size_t)n, "master:%u ", m->master);
	if (m->propagation & MNTSNAP_PROP_UNBINDABLE)
		n += snprintf(buf + n, len - (size_t)n, "unbindable ");
	if (!n)
		n = snprintf(buf, len, "private ");
	buf[n - 1] = '\0';
}

/*
 * Super options kept as written ("rw,") differ from the record's options
 * in text only: both sides as FS-OPTIONS shows them ("rw -> rw,").
 */
static void put_fs_pair(FILE *f, const struct mntsnap_mount *a, const struct mntsnap_mount *b)
{
	size_t la = mntsnap__fs_options(a, NULL, 0), lb = mntsnap__fs_options(b, NULL, 0);
	char *x = malloc(la + 1), *y = malloc(lb + 1);

	if (x && y) {
		mntsnap__fs_options(a, x, la + 1);
		mntsnap__fs_options(b, y, lb + 1);
		put_pair(f, x, y);
	} else {
		put_pair(f, a->options, b->options);
	}
	free(x);
	free(y);
}

/*
 * VFS options of both sides, whole: kept per-mount option text has no
 * length limit, so a stack buffer for the usual and the heap for others.
 */
static void put_vfs_pair(FILE *f, const struct mntsnap_mount *a, const struct mntsnap_mount *b)
{
	char xs[256], ys[256], *x = xs, *y = ys, *xh = NULL, *yh = NULL;
	size_t la = mntsnap__vfs_options(a, xs, sizeof(xs));
	size_t lb = mntsnap__vfs_options(b, ys, sizeof(ys));

	if (la >= sizeof(xs) && (x = xh = malloc(la + 1)))
		mntsnap__vfs_options(a, x, la + 1);
	if (lb >= sizeof(ys) && (y = yh = malloc(lb + 1)))
		mntsnap__vfs_options(b, y, lb + 1);
	/* no memory: the cut-off text rather than none */
	put_pair(f, x ? x : xs, y ? y : ys);
	free(xh);
	free(yh);
}

static bool has_sb_text(const struct mntsnap_mount *m)
{
	return m->sb_opts_text && m->sb_opts_text[0];
}

/* "old -> new" for one changed field. */
static void field_text(FILE *f, uint32_t bit, const struct mntsnap_mount *a,
		       const struct mntsnap_mount *b)
{
	char x[64], y[64];

	switch (bit) {
	case MNTSNAP_CHANGE_MOUNT_POINT:
		put_pair(f, a->mount_point, b->mount_point);
		return;
	case MNTSNAP_CHANGE_ROOT:
		put_pair(f, a->root, b->root);
		return;
	case MNTSNAP_CHANGE_SOURCE:
		put_pair(f, a->source, b->source);
		return;
	case MNTSNAP_CHANGE_OPTIONS:
		if (has_sb_text(a) || has_sb_text(b))
			put_fs_pair(f, a, b);
		else
			put_pair(f, a->options, b->options);
		return;
	case MNTSNAP_CHANGE_ATTR:
		put_vfs_pair(f, a, b);
		return;
	case MNTSNAP_CHANGE_PROPAGATION:
	case MNTSNAP_CHANGE_PEER_GROUP:
	case MNTSNAP_CHANGE_MASTER:
		prop_text(a, x, sizeof(x));
		prop_text(b, y, sizeof(y));
		fprintf(f, "%s -> %s", x, y);
		return;
	case MNTSNAP_CHANGE_PROPAGATE_FROM:
		fprintf(f, "%u -> %u", a->propagate_from, b->propagate_from);
		return;
	case MNTSNAP_CHANGE_PARENT:
		fprintf(f, "%" PRIu64 " -> %" PRIu64, a->parent_id, b->parent_id);
		return;
	case MNTSNAP_CHANGE_FS_TYPE:
		put_type(f, a);
		fputs(" -> ", f);
		put_type(f, b);
		return;
	case MNTSNAP_CHANGE_DEV:
		fprintf(f, "%u:%u -> %u:%u", a->dev_major, a->dev_minor, b->dev_major,
			b->dev_minor);
		return;
	case MNTSNAP_CHANGE_SB_FLAGS:
		fprintf(f, "0x%x -> 0x%x", a->sb_flags, b->sb_flags);
		return;
	case MNTSNAP_CHANGE_UUID:
		/* a UUID is plain hex and dashes; none shows as "-" */
		put_pair(f, *a->uuid ? a->uuid : "-", *b->uuid ? b->uuid : "-");
		return;
	default:
		fputs("differs", f);
	}
}

static uint64_t show_id(const struct mntsnap_mount *m)
{
	return m->mask & MNTSNAP_F_ID ? m->id : m->id_old;
}

static void text_entry(const struct mntsnap_diff *d, const struct mntsnap_diff_entry *e,
		       FILE *f)
{
	struct mntsnap_mount a, b;

	if (e->old_index >= 0)
		mntsnap__snapshot_get(d->old, (size_t)e->old_index, &a);
	if (e->new_index >= 0)
		mntsnap__snapshot_get(d->new, (size_t)e->new_index, &b);
	if (e->kind == MNTSNAP_DIFF_REMOVED || e->kind == MNTSNAP_DIFF_ADDED) {
		const struct mntsnap_mount *m = e->kind == MNTSNAP_DIFF_ADDED ? &b : &a;

		fprintf(f, "%c %" PRIu64 " ", e->kind == MNTSNAP_DIFF_ADDED ? '+' : '-',
			show_id(m));
		put_path(f, m->mount_point);
		fputc(' ', f);
		put_type(f, m);
		fputc(' ', f);
		put_path(f, m->source[0] ? m->source : "none");
		fputc('\n', f);
		return;
	}
	fprintf(f, "~ %" PRIu64 " ", show_id(&b));
	put_path(f, b.mount_point);
	fputc('\n', f);
	for (uint32_t bit = 1; bit && bit <= CHANGE_LAST; bit <<= 1) {
		if (!(e->changed & bit))
			continue;
		fprintf(f, "    %s: ", mntsnap_diff_change_name(bit));
		field_text(f, bit, &a, &b);
		fputc('\n', f);
	}
}

static int json_side(FILE *f, const char *name, const struct mntsnap_snapshot *s, long i)
{
	struct mntsnap_mount m;

	if (i < 0)
		return 0;
	mntsnap__snapshot_get(s, (size_t)i, &m);
	fprintf(f, ",\"%s\":", name);
	return mntsnap__json_mount(f, &m);
}

static int json_entry(const struct mntsnap_diff *d, const struct mntsnap_diff_entry *e,
		      FILE *f)
{
	static const char *const kinds[] = { "?", "added", "removed", "changed" };
	bool first = true;
	int r;

	fprintf(f, "{\"kind\":\"%s\",\"fields\":[", kinds[e->kind]);
	for (uint32_t bit = 1; bit && bit <= CHANGE_LAST; bit <<= 1) {
		if (!(e->changed & bit))
			continue;
		fprintf(f, "%s\"%s\"", first ? "" : ",", mntsnap_diff_change_name(bit));
		first = false;
	}
	fputc(']', f);
	r = json_side(f, "old", d->old, e->old_index);
	if (!r)
		r = json_side(f, "new", d->new, e->new_index);
	fputc('}', f);
	return r;
}

int mntsnap_diff_render(const struct mntsnap_diff *d, int format, FILE *f)
{
	int r = 0;

	if (!d || !f)
		return -EINVAL;
	if (format == MNTSNAP_DIFF_FORMAT_TEXT) {
		for (size_t i = 0; i < d->n; i++)
			text_entry(d, &d->e[i], f);
	} else if (format == MNTSNAP_DIFF_FORMAT_JSON) {
		fprintf(f,
			"{\"key\":\"%s\",\"equal\":%s,\"added\":%zu,\"removed\":%zu,"
			"\"changed\":%zu,\"entries\":[",
			mntsnap_diff_key_name(d->key), d->n ? "false" : "true", d->added,
			d->removed, d->changed);
		for (size_t i = 0; i < d->n && !r; i++) {
			fputs(i ? ",\n  " : "\n  ", f);
			r = json_entry(d, &d->e[i], f);
		}
		fputs("\n]}\n", f);
	} else {
		return -EINVAL;
	}
	return r ? r : mntsnap__stream_status(f);
}
