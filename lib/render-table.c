// SPDX-License-Identifier: MIT
/*
 * Human output with findmnt's values: a table like `findmnt --raw -o
 * ID,PARENT,UNIQ-ID,TARGET,SOURCE,FSTYPE,OPTIONS,PROPAGATION` (space,
 * backslash, controls and bytes >= 0x80 as \xHH, so fields split on
 * spaces) and a tree like `findmnt`'s (TARGET SOURCE FSTYPE OPTIONS;
 * controls, DEL and invalid UTF-8 as \xHH, and a backslash before "x",
 * so a hostile mount point can neither rewrite the terminal nor pass for
 * an escape). SOURCE carries "[fsroot]" for a bind mount of a
 * subdirectory, FSTYPE is "type.subtype", OPTIONS is libmount's merge.
 * The CLI has its own column engine with alignment; this is the
 * library's quick view. Lines are built in a buffer and written in
 * pieces of MNTSNAP__FLUSH_AT bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * Length of a UTF-8 sequence at s (s[0] >= 0x80) shown as it is, 0 if it
 * is escaped: invalid ones (mntsnap__utf8_len) and the C1 controls
 * U+0080..U+009F (0xc2 0x80..0x9f), which a terminal would act on.
 */
static int utf8_len(const unsigned char *s)
{
	int n = mntsnap__utf8_len(s);

	return n == 2 && s[0] == 0xc2 && s[1] < 0xa0 ? 0 : n;
}

/* tree: printable ASCII but the backslash (see put_safe()) */
static const unsigned char safe_ok[256] = {
	[0x20 ... 0x5b] = 1,
	[0x5d ... 0x7e] = 1,
};

/* tree: printable text as it is, the rest as \xHH */
static void put_safe(struct mntsnap__buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, run = 0;
	char *o;

	if (mntsnap__reserve(b, 4 * n))
		return;
	o = b->p + b->len;
	while ((i = mntsnap__plain_run(s, i, n, safe_ok, 0x20, 0x7f, '\\')) < n) {
		unsigned char c = s[i];
		int l;

		/* a backslash only before "x", where it could pass for an escape */
		if (c == '\\' && s[i + 1] != 'x') {
			i++;
			continue;
		}
		if (c >= 0x80 && (l = utf8_len(s + i))) {
			i += (size_t)l;
			continue;
		}
		memcpy(o, str + run, i - run);
		o = put_x(o + (i - run), c);
		run = ++i;
	}
	memcpy(o, str + run, n - run);
	b->len = (size_t)(o + (n - run) - b->p);
}

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

int mntsnap__render_tree(const struct mntsnap_snapshot *snap, FILE *f)
{
	size_t n = mntsnap__snapshot_count(snap);
	/* last[d]: is the ancestor at depth d the last of its siblings? */
	unsigned char last[256] = { 0 };
	struct mntsnap__buf b = { 0 };
	struct mntsnap_mount m;
	int r = 0;

	for (size_t k = 0; k < n && !r; k++) {
		long i = mntsnap__snapshot_tree_index(snap, k);

		if (i < 0) {
			r = (int)i;
			break;
		}
		mntsnap__snapshot_get(snap, (size_t)i, &m);
		if (m.depth < sizeof(last))
			last[m.depth] = mntsnap__snapshot_next_sibling(snap, (size_t)i) < 0;
		for (uint32_t d = 1; d < m.depth && d < sizeof(last); d++) {
			if (last[d])
				PUTS(&b, "  ");
			else
				PUTS(&b, "\u2502 ");
		}
		if (m.depth) {
			if (last[m.depth < sizeof(last) ? m.depth : sizeof(last) - 1])
				PUTS(&b, "\u2514\u2500");
			else
				PUTS(&b, "\u251c\u2500");
		}
		put_safe(&b, m.mount_point);
		PUTS(&b, " ");
		put_source(&b, &m, put_safe);
		PUTS(&b, " ");
		put_type(&b, &m, put_safe);
		PUTS(&b, " ");
		r = put_options(&b, &m, put_safe);
		PUTS(&b, "\n");
		if (!r)
			r = maybe_flush(&b, f, false);
	}
	if (!r)
		r = maybe_flush(&b, f, true);
	free(b.p);
	return r;
}
