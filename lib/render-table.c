// SPDX-License-Identifier: MIT
/*
 * Human output with findmnt's values: a table like `findmnt --raw -o
 * ID,PARENT,UNIQ-ID,TARGET,SOURCE,FSTYPE,OPTIONS,PROPAGATION` (space,
 * backslash, controls and bytes >= 0x80 as \xHH, so fields split on
 * spaces) and findmnt's default tree, the same bytes as findmnt and the
 * CLI in a UTF-8 locale (header, TARGET SOURCE FSTYPE OPTIONS aligned as
 * libsmartcols aligns them; controls, DEL, invalid or unprintable UTF-8 as
 * \xHH, and a backslash before "x", so a hostile mount point can neither
 * rewrite the terminal nor pass for an escape). SOURCE carries "[fsroot]"
 * for a bind mount of a subdirectory, FSTYPE is "type.subtype", OPTIONS
 * is libmount's merge. Lines are built in a buffer and written in pieces
 * of MNTSNAP__FLUSH_AT bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "render.h"
#include "snapshot.h"

#define put mntsnap__put
#define PUTS(b, lit) put(b, lit, sizeof(lit) - 1)

static const char hexd[] = "0123456789abcdef";

/* \xHH for c at o: 4 bytes */
static char *put_x(char *o, unsigned char c)
{
	o[0] = '\\';
	o[1] = 'x';
	o[2] = hexd[c >> 4];
	o[3] = hexd[c & 15];
	return o + 4;
}

/* raw: every byte outside 0x21..0x7e, and the backslash, as \xHH */
static const unsigned char raw_ok[256] = {
	[0x21 ... 0x5b] = 1,
	[0x5d ... 0x7e] = 1,
};

/*
 * The escapers reserve the worst case (4 bytes a byte) once and copy runs
 * of bytes that need nothing with one memcpy each.
 */
static void put_raw(struct mntsnap__buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, run = 0;
	char *o;

	if (mntsnap__reserve(b, 4 * n))
		return;
	o = b->p + b->len;
	while ((i = mntsnap__plain_run(s, i, n, raw_ok, 0x21, 0x7f, '\\')) < n) {
		memcpy(o, str + run, i - run);
		o = put_x(o + (i - run), s[i]);
		run = ++i;
	}
	memcpy(o, str + run, n - run);
	b->len = (size_t)(o + (n - run) - b->p);
}

/* tree: printable ASCII but the backslash (see put_cell()) */
static const unsigned char safe_ok[256] = {
	[0x20 ... 0x5b] = 1,
	[0x5d ... 0x7e] = 1,
};

static void put_source(struct mntsnap__buf *b, const struct mntsnap_mount *m,
		       void (*esc)(struct mntsnap__buf *, const char *))
{
	esc(b, m->mask & MNTSNAP_F_SOURCE ? m->source : "none");
	if (m->root[0] && strcmp(m->root, "/")) {
		put(b, "[", 1);
		esc(b, m->root);
		put(b, "]", 1);
	}
}

static void put_type(struct mntsnap__buf *b, const struct mntsnap_mount *m,
		     void (*esc)(struct mntsnap__buf *, const char *))
{
	esc(b, m->fs_type);
	if ((m->mask & MNTSNAP_F_FS_SUBTYPE) && m->fs_subtype[0]) {
		put(b, ".", 1);
		esc(b, m->fs_subtype);
	}
}

static int put_options(struct mntsnap__buf *b, const struct mntsnap_mount *m,
		       void (*esc)(struct mntsnap__buf *, const char *))
{
	char stack[1024], *s = stack, *heap = NULL;
	long n = mntsnap__mount_options(m, MNTSNAP_OPTIONS_ALL, stack, sizeof(stack));

	if (n >= (long)sizeof(stack)) {
		s = heap = malloc((size_t)n + 1);
		if (!heap)
			return -ENOMEM;
		n = mntsnap__mount_options(m, MNTSNAP_OPTIONS_ALL, s, (size_t)n + 1);
	}
	if (n >= 0)
		esc(b, s);
	free(heap);
	return n < 0 ? (int)n : 0;
}

static void put_propagation(struct mntsnap__buf *b, const struct mntsnap_mount *m)
{
	if (m->propagation & MNTSNAP_PROP_SHARED)
		PUTS(b, "shared");
	else
		PUTS(b, "private");
	if (m->propagation & MNTSNAP_PROP_SLAVE)
		PUTS(b, ",slave");
	if (m->propagation & MNTSNAP_PROP_UNBINDABLE)
		PUTS(b, ",unbindable");
}

/* Every MNTSNAP__FLUSH_AT bytes, and at the end: one write, its error kept. */
static int maybe_flush(struct mntsnap__buf *b, FILE *f, bool last)
{
	if (!last && b->len < MNTSNAP__FLUSH_AT && !b->err)
		return 0;
	return mntsnap__buf_flush(b, f);
}

int mntsnap__render_table(const struct mntsnap_snapshot *snap, FILE *f)
{
	size_t n = mntsnap__snapshot_count(snap);
	struct mntsnap__buf b = { 0 };
	struct mntsnap_mount m;
	int r = 0;

	PUTS(&b, "ID PARENT UNIQ-ID TARGET SOURCE FSTYPE OPTIONS PROPAGATION\n");
	for (size_t i = 0; i < n && !r; i++) {
		mntsnap__snapshot_get(snap, i, &m);
		mntsnap__put_u64(&b, m.id_old);
		PUTS(&b, " ");
		mntsnap__put_u64(&b, m.parent_id_old);
		PUTS(&b, " ");
		if (m.mask & MNTSNAP_F_ID)
			mntsnap__put_u64(&b, m.id);
		PUTS(&b, " ");
		put_raw(&b, m.mount_point);
		PUTS(&b, " ");
		put_source(&b, &m, put_raw);
		PUTS(&b, " ");
		put_type(&b, &m, put_raw);
		PUTS(&b, " ");
		r = put_options(&b, &m, put_raw);
		PUTS(&b, " ");
		put_propagation(&b, &m);
		PUTS(&b, "\n");
		if (!r)
			r = maybe_flush(&b, f, false);
	}
	if (!r)
		r = maybe_flush(&b, f, true);
	free(b.p);
	return r;
}

/* ---- findmnt's default tree ------------------------------------------- */

static uint32_t utf8_cp(const unsigned char *s, int n)
{
	uint32_t cp = s[0] & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);

	for (int i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/*
 * Columns a printable UTF-8 sequence of n bytes at s takes, or -1 when it
 * is to be escaped. In a multibyte locale, the locale says, as for findmnt
 * (iswprint, wcwidth); in a single-byte one (the C locale: a library
 * whose caller never called setlocale) every valid sequence but a C1
 * control is shown, one column wide.
 */
static int utf8_width(const unsigned char *s, int n)
{
	uint32_t cp = utf8_cp(s, n);
	int w;

	if (MB_CUR_MAX == 1)
		return n == 2 && s[0] == 0xc2 && s[1] < 0xa0 ? -1 : 1;
	if (!iswprint((wint_t)cp))
		return -1;
	w = wcwidth((wchar_t)cp);
	return w < 0 ? 1 : w;
}

/*
 * A tree cell as findmnt escapes it, into b when b is non-NULL: controls,
 * DEL, bytes of invalid or unprintable UTF-8 as \xHH, a backslash as
 * \x5c only before "x". Returns its width in terminal columns.
 */
static size_t put_cell(struct mntsnap__buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, run = 0, w = 0, e;
	char *o = NULL;

	if (b) {
		if (mntsnap__reserve(b, 4 * n))
			return 0;
		o = b->p + b->len;
	}
	while ((e = mntsnap__plain_run(s, i, n, safe_ok, 0x20, 0x7f, '\\')) < n) {
		unsigned char c = s[e];
		int l, cw;

		w += e - i;
		i = e;
		if (c == '\\' && s[i + 1] != 'x') {
			i++, w++;
			continue;
		}
		if (c >= 0x80 && (l = mntsnap__utf8_len(s + i)) && (cw = utf8_width(s + i, l)) >= 0) {
			i += (size_t)l;
			w += (size_t)cw;
			continue;
		}
		if (o) {
			memcpy(o, str + run, i - run);
			o = put_x(o + (i - run), c);
		}
		w += 4;
		run = ++i;
	}
	w += n - i;
	if (o) {
		memcpy(o, str + run, n - run);
		b->len = (size_t)(o + (n - run) - b->p);
	}
	return w;
}

/* SOURCE: the source (or "none"), "[root]" for a bind of a subdirectory */
static size_t put_source_cell(struct mntsnap__buf *b, const struct mntsnap_mount *m)
{
	size_t w = put_cell(b, m->mask & MNTSNAP_F_SOURCE ? m->source : "none");

	if (m->root[0] && strcmp(m->root, "/")) {
		if (b)
			put(b, "[", 1);
		w += put_cell(b, m->root) + 2;
		if (b)
			put(b, "]", 1);
	}
	return w;
}

static size_t put_type_cell(struct mntsnap__buf *b, const struct mntsnap_mount *m)
{
	size_t w = put_cell(b, m->fs_type);

	if ((m->mask & MNTSNAP_F_FS_SUBTYPE) && m->fs_subtype[0]) {
		if (b)
			put(b, ".", 1);
		w += 1 + put_cell(b, m->fs_subtype);
	}
	return w;
}

static void put_tree_cell(struct mntsnap__buf *b, const char *s) { put_cell(b, s); }

static void pad(struct mntsnap__buf *b, size_t n)
{
	static const char sp[] = "                                ";

	while (n) {
		size_t k = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;

		put(b, sp, k);
		n -= k;
	}
}

enum { C_TARGET, C_SOURCE, C_FSTYPE, NWIDTH };
static const char *const tree_header[] = { "TARGET", "SOURCE", "FSTYPE", "OPTIONS" };

/*
 * Column widths as libsmartcols lays findmnt's out: the widest cell, at
 * least the header; TARGET's cells carry the tree art (two columns a
 * level). OPTIONS, the last column, is never padded.
 */
static int tree_widths(const struct mntsnap_snapshot *snap, size_t w[NWIDTH])
{
	size_t n = mntsnap__snapshot_count(snap);
	struct mntsnap_mount m;

	for (int c = 0; c < NWIDTH; c++)
		w[c] = strlen(tree_header[c]);
	for (size_t k = 0; k < n; k++) {
		long i = mntsnap__snapshot_tree_index(snap, k);
		size_t x;

		if (i < 0)
			return (int)i;
		mntsnap__snapshot_get(snap, (size_t)i, &m);
		x = 2 * (size_t)m.depth + put_cell(NULL, m.mount_point);
		w[C_TARGET] = x > w[C_TARGET] ? x : w[C_TARGET];
		x = put_source_cell(NULL, &m);
		w[C_SOURCE] = x > w[C_SOURCE] ? x : w[C_SOURCE];
		x = put_type_cell(NULL, &m);
		w[C_FSTYPE] = x > w[C_FSTYPE] ? x : w[C_FSTYPE];
	}
	return 0;
}

/* "│ " or "  " per ancestor level below the root, then "├─" or "└─" */
static void put_art(struct mntsnap__buf *b, const struct mntsnap_mount *m, const bool *open)
{
	if (!m->depth)
		return;
	for (uint32_t d = 1; d < m->depth; d++) {
		if (open[d])
			PUTS(b, "\u2502 ");
		else
			PUTS(b, "  ");
	}
	if (open[m->depth])
		PUTS(b, "\u251c\u2500");
	else
		PUTS(b, "\u2514\u2500");
}

int mntsnap__render_tree(const struct mntsnap_snapshot *snap, FILE *f)
{
	size_t n = mntsnap__snapshot_count(snap), w[NWIDTH];
	struct mntsnap__buf b = { 0 };
	struct mntsnap_mount m;
	uint32_t maxd = 0;
	bool *open;
	int r;

	for (size_t i = 0; i < n; i++) {
		mntsnap__snapshot_get(snap, i, &m);
		maxd = m.depth > maxd ? m.depth : maxd;
	}
	/* open[d]: does the ancestor at depth d (or the row) have a later sibling? */
	open = calloc((size_t)maxd + 2, sizeof(*open));
	if (!open)
		return -ENOMEM;
	r = tree_widths(snap, w);
	for (int c = 0; c < NWIDTH && !r; c++) {
		put(&b, tree_header[c], strlen(tree_header[c]));
		pad(&b, w[c] - strlen(tree_header[c]));
		PUTS(&b, " ");
	}
	if (!r)
		PUTS(&b, "OPTIONS\n");
	for (size_t k = 0; k < n && !r; k++) {
		long i = mntsnap__snapshot_tree_index(snap, k);

		mntsnap__snapshot_get(snap, (size_t)i, &m);
		open[m.depth] = mntsnap__snapshot_next_sibling(snap, (size_t)i) >= 0;
		put_art(&b, &m, open);
		pad(&b, w[C_TARGET] - 2 * (size_t)m.depth - put_cell(&b, m.mount_point));
		PUTS(&b, " ");
		pad(&b, w[C_SOURCE] - put_source_cell(&b, &m));
		PUTS(&b, " ");
		pad(&b, w[C_FSTYPE] - put_type_cell(&b, &m));
		PUTS(&b, " ");
		r = put_options(&b, &m, put_tree_cell);
		PUTS(&b, "\n");
		if (!r)
			r = maybe_flush(&b, f, false);
	}
	if (!r)
		r = maybe_flush(&b, f, true);
	free(open);
	free(b.p);
	return r;
}
