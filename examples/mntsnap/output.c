// SPDX-License-Identifier: MIT
/*
 * Column output in findmnt's five forms: tree (the default), list, raw,
 * pairs and JSON, with findmnt's escaping in each, which follows the
 * locale's character set (LC_CTYPE) as libsmartcols asks it:
 *  - tree/list: control bytes, bytes of a character the locale does not
 *    print (not valid printable UTF-8 in a UTF-8 locale; mbrtowc() and
 *    iswprint() in another one, isprint() for a byte that starts no
 *    character) and a backslash that starts "\x" become \xHH, each
 *    character counted as wcwidth() columns;
 *  - raw: every byte isprint() refuses, blanks and backslash (so fields
 *    stay split on spaces): every byte >= 0x80 in a UTF-8 locale, none
 *    of Latin-1's printable ones in de_DE.ISO-8859-1;
 *  - pairs: the same but blanks; " $ ` and backslash (safe inside "..." in sh);
 *  - JSON: " and \ escaped, controls as \b \f \n \r \t or \u00XX, valid
 *    UTF-8 verbatim, and each byte b of an invalid sequence as \udcHH
 *    (U+DC00 + b, the lone surrogate Python's "surrogateescape" uses): no
 *    valid UTF-8 input gives a lone surrogate, so the original bytes come
 *    back exactly (Python: s.encode("utf-8", "surrogateescape")).
 * Empty values are null in JSON. Values are built into one buffer and
 * written with a single fwrite: no stdio call per field or character.
 */
#include <ctype.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "columns.h"
#include "tags.h"

/* every column's cell can be kept (out_prime_row()) */
_Static_assert(COLS_MAX <= TAGS_KEPT_COLS, "a row's kept cells hold every column");

static const char hexd[] = "0123456789abcdef";

static void put_x(struct obuf *b, unsigned char c)
{
	char e[4] = { '\\', 'x', hexd[c >> 4], hexd[c & 15] };

	ob_put(b, e, 4);
}

/* Length of a valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static int utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	int len;
	uint32_t c;

	if ((s[0] & 0xe0) == 0xc0)
		len = 2, c = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, c = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if ((size_t)len > n)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return len;
}

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * Bytes the tree and JSON pass through as they are (for bytes < 0x80; a
 * tree cell's backslash and bytes >= 0x80 are decided where the run
 * stops); raw's and pairs' are the locale's (struct out_locale).
 */
static const unsigned char table_ok[256] = { [0x20 ... 0x5b] = 1, [0x5d ... 0x7e] = 1 };
static const unsigned char json_ok[256] = { [0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7f] = 1 };

/*
 * The locale as findmnt sees it. Its setlocale(LC_ALL, "") takes every
 * category of the environment's locale or, when one of them does not
 * load, none: env is what main()'s same call took (0: none), for
 * LC_NUMERIC's decimal point. The character set is the process's
 * LC_CTYPE, which main() sets by the same rule; each byte's class is
 * asked once, with carefulputc.h's tests (fputs_nonblank(),
 * fputs_quoted()) and mbs_safe_encode()'s for a single-byte codeset.
 */
void out_locale_init(struct out_locale *l, locale_t env)
{
	const char *cs = nl_langinfo(CODESET);

	*l = (struct out_locale){ .env = env, .decimal_point = "." };
	if (env) {
		const char *dp = nl_langinfo_l(RADIXCHAR, env);

		if (dp && *dp && strlen(dp) < sizeof(l->decimal_point))
			strcpy(l->decimal_point, dp);
	}
	/* libsmartcols draws box drawing for "UTF-8" only, as glibc names it */
	l->utf8 = cs && !strcmp(cs, "UTF-8");
	l->multibyte = !l->utf8 && MB_CUR_MAX > 1;
	for (int c = 1; c < 256; c++) {
		bool shown = isprint(c) && !iscntrl(c);
		char ch = (char)c;
		mbstate_t st = { 0 };
		wchar_t wc;
		size_t len;

		l->raw_ok[c] = shown && !isblank(c) && c != '\\';
		l->pairs_ok[c] = shown && !strchr("\"\\`$", c);
		l->cell[c] = -1;
		if (iscntrl(c))
			continue;
		len = mbrtowc(&wc, &ch, 1, &st);
		if (len == (size_t)-1 || len == (size_t)-2)
			l->cell[c] = isprint(c) ? 1 : -1;
		else if (iswprint((wint_t)wc))
			l->cell[c] = (signed char)(wcwidth(wc) > 0 ? wcwidth(wc) : 0);
	}
}

/*
 * The first i' >= i (< n) where s[i'] is not ok[], or n. With SSE2,
 * sixteen bytes a step: a byte stops the run when, as a signed byte, it is
 * < lo (so every byte >= 0x80 does) or equals one of stop[5]; ok[] says the
 * same for the last bytes.
 */
static inline size_t run_end(const unsigned char *s, size_t i, size_t n,
			     const unsigned char ok[256], char lo, const char stop[5])
{
#ifdef __SSE2__
	const __m128i vlo = _mm_set1_epi8(lo), e0 = _mm_set1_epi8(stop[0]),
		      e1 = _mm_set1_epi8(stop[1]), e2 = _mm_set1_epi8(stop[2]),
		      e3 = _mm_set1_epi8(stop[3]), e4 = _mm_set1_epi8(stop[4]);

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(v, vlo), _mm_cmpeq_epi8(v, e0)),
					 _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, e1),
								   _mm_cmpeq_epi8(v, e2)),
						      _mm_or_si128(_mm_cmpeq_epi8(v, e3),
								   _mm_cmpeq_epi8(v, e4))));
		unsigned k = (unsigned)_mm_movemask_epi8(m);

		if (k)
			return i + (size_t)__builtin_ctz(k);
	}
#else
	(void)lo;
	(void)stop;
#endif
	while (i < n && ok[s[i]])
		i++;
	return i;
}

/*
 * A tree/list cell in a multibyte codeset other than UTF-8 (EUC-JP,
 * BIG5, GB18030), as mbs_safe_encode() walks it: a character at a time
 * with one mbstate_t, a backslash before "x" and a control byte escaped
 * before mbrtowc() sees them, a byte that starts no character shown when
 * isprint() says so, the bytes of an unprintable character each as \xHH.
 * mbrtowc() reads a NUL-terminated copy, as it reads findmnt's string
 * (a sequence cut by the end is then invalid, not incomplete).
 */
static size_t enc_table_mb(struct obuf *b, const char *str, size_t n)
{
	size_t w = 0, i = 0, max = MB_CUR_MAX;
	char *s = calloc(n + max + 1, 1);
	mbstate_t st = { 0 };

	if (!s) {
		b->err = -ENOMEM;
		return 0;
	}
	memcpy(s, str, n);
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t len;
		wchar_t wc;

		if ((c == '\\' && s[i + 1] == 'x') || iscntrl(c)) {
			put_x(b, c);
			w += 4, i++;
			continue;
		}
		len = mbrtowc(&wc, s + i, max, &st);
		if (len == (size_t)-1 || len == (size_t)-2 || !len) {
			if (isprint(c))
				ob_putc(b, (char)c), w++;
			else
				put_x(b, c), w += 4;
			i++;
		} else if (!iswprint((wint_t)wc)) {
			for (size_t k = 0; k < len && i < n; k++, i++)
				put_x(b, (unsigned char)s[i]), w += 4;
		} else {
			int cw = wcwidth(wc);

			ob_put(b, s + i, len);
			w += cw > 0 ? (size_t)cw : 0;
			i += len;
		}
	}
	free(s);
	return w;
}

/* tree/list cell; returns its width in terminal columns */
static size_t enc_table(struct obuf *b, const char *str, size_t n, const struct out_locale *loc)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t w = 0, i = 0, run = 0, e;

	if (loc->multibyte)
		return enc_table_mb(b, str, n);
	while (i < n) {
		unsigned char c;
		uint32_t cp;
		int len;

		e = run_end(s, i, n, table_ok, 0x20, "\x7f\\\\\\\\");
		w += e - i;
		i = e;
		if (i >= n)
			break;
		c = s[i];
		if (c == '\\' && (i + 1 >= n || s[i + 1] != 'x')) {
			i++, w++;
			continue;
		}
		if (c >= 0x80 && !loc->utf8 && loc->cell[c] >= 0) {
			/* a single-byte codeset's printable byte */
			w += (size_t)loc->cell[c];
			i++;
			continue;
		}
		ob_put(b, str + run, i - run);
		if (c >= 0x80 && loc->utf8 && (len = utf8_seq(s + i, n - i, &cp)) &&
		    iswprint((wint_t)cp)) {
			int cw = wcwidth((wchar_t)cp);

			ob_put(b, str + i, (size_t)len);
			w += cw > 0 ? (size_t)cw : 0;
			i += (size_t)len;
		} else {
			put_x(b, c);
			w += 4;
			i++;
		}
		run = i;
	}
	ob_put(b, str + run, i - run);
	return w;
}

/* every byte that stops a run of ok[] becomes \xHH */
static void enc_x(struct obuf *b, const char *str, size_t n, const unsigned char ok[256], char lo,
		  const char stop[5])
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0, i = 0;

	while ((i = run_end(s, i, n, ok, lo, stop)) < n) {
		/* a byte >= 0x80 the locale prints (Latin-1's) */
		if (ok[s[i]]) {
			i++;
			continue;
		}
		ob_put(b, str + run, i - run);
		put_x(b, s[i]);
		run = ++i;
	}
	ob_put(b, str + run, n - run);
}

static void enc_raw(struct obuf *b, const char *str, size_t n, const struct out_locale *loc)
{
	enc_x(b, str, n, loc->raw_ok, 0x21, "\x7f\\\\\\\\");
}

static void enc_pairs(struct obuf *b, const char *str, size_t n, const struct out_locale *loc)
{
	enc_x(b, str, n, loc->pairs_ok, 0x20, "\x7f\"$`\\");
}

static void enc_json(struct obuf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0, i = 0;

	ob_putc(b, '"');
	while ((i = run_end(s, i, n, json_ok, 0x20, "\"\\\\\\\\")) < n) {
		unsigned char c = s[i];
		uint32_t cp;
		int len;

		if (c >= 0x80 && (len = utf8_seq(s + i, n - i, &cp))) {
			i += (size_t)len;
			continue;
		}
		ob_put(b, str + run, i - run);
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			ob_put(b, e, 2);
		} else if (c == '\n') {
			ob_put(b, "\\n", 2);
		} else if (c == '\t') {
			ob_put(b, "\\t", 2);
		} else if (c == '\r') {
			ob_put(b, "\\r", 2);
		} else if (c == '\b') {
			ob_put(b, "\\b", 2);
		} else if (c == '\f') {
			ob_put(b, "\\f", 2);
		} else {
			/* a control: \u00HH; a stray byte >= 0x80: \udcHH */
			char e[6] = { '\\', 'u', c >= 0x80 ? 'd' : '0', c >= 0x80 ? 'c' : '0',
				      hexd[c >> 4], hexd[c & 15] };

			ob_put(b, e, 6);
		}
		run = ++i;
	}
	ob_put(b, str + run, i - run);
	ob_putc(b, '"');
}

/*
 * Where the records come from: a snapshot, or (fstab) an array of records
 * the caller built, printed as a list in their order.
 */
struct recs {
	const struct mntsnap_snapshot *snap;
	const struct col_ctx *cx; /* its root_src names "/dev/root" as findmnt does */
	const struct mntsnap_mount *const *list;
	size_t n;
};

static const struct mntsnap_mount *rec_get(const struct recs *rs, size_t i,
					   struct mntsnap_mount *tmp)
{
	if (rs->list)
		return rs->list[i];
	mntsnap_snapshot_get(rs->snap, i, tmp);
	col_fix_source(rs->cx, tmp);
	return tmp;
}

/* The records to print, in tree order, with each one's depth and last-ness. */
struct walk {
	int32_t *first, *next, *order, *stack;
	uint32_t *depth;
	unsigned char *last;
	size_t count;
};

static void walk_free(struct walk *w)
{
	free(w->first);
	free(w->next);
	free(w->order);
	free(w->stack);
	free(w->depth);
	free(w->last);
}

/*
 * findmnt's tree: a printed mount hangs under its nearest printed
 * ancestor, and is a top-level entry when it has none. Siblings keep the
 * snapshot's order. Without tree every record is top-level.
 */
static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * findmnt -R prints each match (with its submounts) in the order the table
 * lists them, not in tree order: relink the top-level list by storage
 * index (order[] is free scratch until the walk fills it).
 */
static int32_t roots_by_index(struct walk *w, int32_t roots)
{
	size_t k = 0;

	for (int32_t cur = roots; cur >= 0; cur = w->next[cur])
		w->order[k++] = cur;
	qsort(w->order, k, sizeof(*w->order), cmp_i32);
	roots = -1;
	while (k--) {
		w->next[w->order[k]] = roots;
		roots = w->order[k];
	}
	return roots;
}

/* The parent of record i (storage index), -1 for a root. */
static long tree_up(const struct recs *rs, const struct out_opts *o, size_t i)
{
	struct mntsnap_mount m;
	uint32_t p;

	if (o->tree_parent)
		return o->tree_parent[i];
	p = rec_get(rs, i, &m)->parent_index;
	return p == i ? -1 : (long)p;
}

static int walk_alloc(struct walk *w, size_t n)
{
	*w = (struct walk){ 0 };
	w->first = malloc((n + 1) * sizeof(int32_t));
	w->next = malloc((n + 1) * sizeof(int32_t));
	w->order = malloc((n + 1) * sizeof(int32_t));
	w->stack = malloc((n + 1) * sizeof(int32_t));
	w->depth = malloc((n + 1) * sizeof(uint32_t));
	w->last = calloc(n + 1, 1);
	if (!w->first || !w->next || !w->order || !w->stack || !w->depth || !w->last) {
		walk_free(w);
		return -ENOMEM;
	}
	return 0;
}

/*
 * The view's own lines: a line is the last of its siblings when no line
 * of its depth follows before a shallower one. Walked backwards, at[d]
 * says a line of depth d follows, forgotten at each shallower line.
 */
static int walk_lines(const struct out_opts *o, struct walk *w)
{
	uint32_t maxd = 0;
	unsigned char *at;
	int r = walk_alloc(w, o->nlines);

	if (r)
		return r;
	for (size_t k = 0; k < o->nlines; k++)
		maxd = o->line_depth[k] > maxd ? o->line_depth[k] : maxd;
	at = calloc((size_t)maxd + 2, 1);
	if (!at) {
		walk_free(w);
		return -ENOMEM;
	}
	for (size_t k = o->nlines; k-- > 0;) {
		uint32_t d = o->line_depth[k];

		memset(at + d + 1, 0, maxd - d + 1);
		w->order[k] = o->line_rec[k];
		w->depth[k] = d;
		w->last[k] = !at[d];
		at[d] = 1;
	}
	w->count = o->nlines;
	free(at);
	return 0;
}

static int walk_build(const struct recs *rs, const bool *match, bool tree,
		      const struct out_opts *o, struct walk *w)
{
	size_t n = o->tree_order ? o->ntree : rs->n;
	int32_t roots = -1, sp = 0;
	int r;

	if (tree && o->line_rec)
		return walk_lines(o, w);
	r = walk_alloc(w, rs->n);
	if (r)
		return r;
	for (size_t i = 0; i < rs->n; i++)
		w->first[i] = -1;
	/* w->last doubles as "a top-level entry by order" until the walk */
	for (size_t k = 0; o->roots && k < o->nroots; k++)
		w->last[o->roots[k]] = 1;
	/*
	 * The whole table's preorder, walked backwards with push-front: the
	 * printed mounts come out in the order findmnt's depth-first walk
	 * meets them, also when a filter hides the mounts in between.
	 */
	for (size_t k = n; k-- > 0;) {
		long ti = o->tree_order ? (long)o->tree_order[k]
			  : tree ? mntsnap_snapshot_tree_index(rs->snap, k) : (long)k;
		size_t i = ti < 0 ? k : (size_t)ti;
		long p = -1;

		if (match && !match[i])
			continue;
		/* as findmnt: under the nearest printed ancestor */
		if (tree && !w->last[i]) {
			p = tree_up(rs, o, i);
			for (size_t step = 0; p >= 0 && match && !match[p] && step < n; step++)
				p = tree_up(rs, o, (size_t)p);
			if (p >= 0 && match && !match[p])
				p = -1;
		}
		if (p < 0) {
			w->next[i] = roots;
			roots = (int32_t)i;
		} else {
			w->next[i] = w->first[p];
			w->first[p] = (int32_t)i;
		}
	}
	if (o->roots) {
		/* the top-level entries in the order the view found them */
		roots = -1;
		for (size_t k = o->nroots; k-- > 0;) {
			w->next[o->roots[k]] = roots;
			roots = o->roots[k];
		}
	} else if (o->roots_in_table_order) {
		roots = roots_by_index(w, roots);
	}
	memset(w->last, 0, rs->n + 1);
	/* the parent links have no cycle: this reaches every record */
	for (int32_t cur = roots; cur >= 0;) {
		w->order[w->count] = cur;
		w->depth[w->count] = (uint32_t)sp;
		w->last[w->count] = w->next[cur] < 0;
		w->count++;
		if (w->first[cur] >= 0) {
			w->stack[sp++] = cur;
			cur = w->first[cur];
			continue;
		}
		while (cur >= 0 && w->next[cur] < 0)
			cur = sp ? w->stack[--sp] : -1;
		if (cur >= 0)
			cur = w->next[cur];
	}
	return 0;
}

/*
 * A table cell as printed: its bytes in the cells buffer and its width.
 * A multi-line cell (a wrap column's) is its first line; its further
 * lines are cells of their own, nmore of them from index more on.
 */
struct cell {
	size_t off, len, width;
	size_t more, nmore;
};

/* the further lines of every multi-line cell of a table */
struct cells_more {
	struct cell *v;
	size_t n, cap;
};

static struct cell *more_add(struct cells_more *m)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct cell *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		m->v = v;
		m->cap = cap;
	}
	return memset(&m->v[m->n++], 0, sizeof(*m->v));
}

/* Tree art for entry k of the walk: "│ " / "  " per ancestor, then "├─" / "└─". */
static size_t put_art(struct obuf *b, const struct walk *w, size_t k, unsigned char *open,
		      bool ascii)
{
	uint32_t d = w->depth[k];

	if (!d)
		return 0;
	for (uint32_t i = 1; i < d; i++)
		ob_puts(b, open[i] ? (ascii ? "| " : "\u2502 ") : "  ");
	ob_puts(b, w->last[k] ? (ascii ? "`-" : "\u2514\u2500") : (ascii ? "|-" : "\u251c\u2500"));
	return 2 * (size_t)d;
}

/*
 * The tree column of a multi-line cell's further line (libsmartcols'
 * print_empty_cell()): a bar or blank for entry k and each ancestor below
 * the root, then a bar when k has children and a line is still to come.
 */
static size_t put_art_more(struct obuf *b, const struct walk *w, size_t k,
			   const unsigned char *open, bool ascii, bool bar)
{
	uint32_t d = w->depth[k];

	for (uint32_t i = 1; i <= d; i++)
		ob_puts(b, open[i] ? (ascii ? "| " : "\u2502 ") : "  ");
	if (bar)
		ob_puts(b, ascii ? "| " : "\u2502 ");
	return 2 * (size_t)d + (bar ? 2 : 0);
}

static void pad(struct obuf *b, size_t n)
{
	static const char sp[] = "                                ";

	while (n) {
		size_t k = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;

		ob_put(b, sp, k);
		n -= k;
	}
}

/* A column's heading: findmnt's, or with -y as a shell variable name. */
static const char *heading(const struct out_opts *o, size_t c, char *buf, size_t size)
{
	return o->shellvar ? col_shellvar(o->cols[c]->header, buf, size) : o->cols[c]->header;
}

/*
 * Column c's cell of record m onto val: the one kept when the row was
 * found (out_prime_row()), else computed now.
 */
static void cell_get(struct obuf *val, const struct out_opts *o, size_t c,
		     const struct mntsnap_mount *m, const struct col_ctx *cx)
{
	size_t len;
	const char *kept = tags_kept_cell(cx->tags, m->index, c, &len);

	if (kept)
		ob_put(val, kept, len);
	else
		o->cols[c]->get(val, m, cx);
}

/* a column whose cells findmnt breaks at each newline (SCOLS_FL_WRAP: SOURCES) */
static bool col_wraps(const struct column *col)
{
	return col->json == COL_JSON_ARRAY;
}

/*
 * A wrap column's cell: one line a newline-separated chunk, escaped each
 * (the newline is its safe character), no last line after a final
 * newline (libsmartcols' pending data stops when nothing is left).
 * Returns the widest line's width, the column's need.
 */
static size_t fill_lines(struct obuf *cells, struct cell *ce, struct cells_more *more,
			 const char *s, size_t n, const struct out_locale *loc)
{
	const char *end = s + n, *nl = memchr(s, '\n', n);
	size_t widest;

	ce->width = enc_table(cells, s, (size_t)((nl ? nl : end) - s), loc);
	ce->len = cells->len - ce->off;
	ce->more = more->n;
	widest = ce->width;
	while (nl && nl + 1 < end) {
		struct cell *x = more_add(more);

		if (!x) {
			cells->err = -ENOMEM;
			break;
		}
		s = nl + 1;
		nl = memchr(s, '\n', (size_t)(end - s));
		x->off = cells->len;
		x->width = enc_table(cells, s, (size_t)((nl ? nl : end) - s), loc);
		x->len = cells->len - x->off;
		ce->nmore++;
		if (x->width > widest)
			widest = x->width;
	}
	return widest;
}

/* One row's cells, each escaped; the widest line of each raises width[]. */
static void fill_row(struct obuf *cells, struct cell *row, struct cells_more *more,
		     size_t *width, const struct walk *w, size_t k, unsigned char *open,
		     const struct out_opts *o, struct obuf *val, const struct mntsnap_mount *mp,
		     const struct col_ctx *cx)
{
	bool ascii = o->ascii || !o->cx.loc.utf8;

	for (size_t c = 0; c < o->ncols; c++) {
		struct cell *ce = &row[c];
		size_t need;

		val->len = 0;
		cell_get(val, o, c, mp, cx);
		*ce = (struct cell){ .off = cells->len };
		if (col_wraps(o->cols[c])) {
			need = fill_lines(cells, ce, more, val->p ? val->p : "", val->len,
					  &o->cx.loc);
		} else {
			/* the tree hangs on TARGET, as in findmnt */
			if ((o->mode == OUT_TREE || o->tree_lines) &&
			    o->cols[c]->get == cols_all[0].get)
				ce->width = put_art(cells, w, k, open, ascii);
			ce->width += enc_table(cells, val->p ? val->p : "", val->len, &o->cx.loc);
			ce->len = cells->len - ce->off;
			need = ce->width;
		}
		if (need > width[c])
			width[c] = need;
	}
}

/* a cell's line: right-aligned or padded; the last column is not padded */
static void put_cell(struct obuf *out, const struct obuf *cells, const struct cell *ce,
		     size_t width, bool right, bool lastc)
{
	size_t fill = width > ce->width ? width - ce->width : 0;

	/* an empty last cell is not padded at all */
	if (right && !(lastc && !ce->len))
		pad(out, fill);
	if (ce->len)
		ob_put(out, cells->p + ce->off, ce->len);
	if (!right && !lastc)
		pad(out, fill);
	ob_putc(out, lastc ? '\n' : ' ');
}

/*
 * The further lines of row k's multi-line cells, as libsmartcols prints
 * pending data: each line a cell's next chunk, left-aligned in every
 * column, the other columns blank but for the tree column's art (a bar
 * below the row when it has children and a chunk of this line is still
 * to print, so the art may differ before and after the cell). Every
 * column but the last padded to its width.
 */
static void put_more(struct obuf *out, const struct obuf *cells, const struct cells_more *more,
		     const struct cell *row, const size_t *width, const struct walk *w, size_t k,
		     const unsigned char *open, const struct out_opts *o, size_t *next)
{
	bool ascii = o->ascii || !o->cx.loc.utf8, kids, left = true;
	size_t nc = o->ncols;

	kids = k + 1 < w->count && w->depth[k + 1] > w->depth[k];
	for (size_t c = 0; c < nc; c++)
		next[c] = 0;
	while (left) {
		left = false;
		for (size_t c = 0; c < nc; c++) {
			bool lastc = c + 1 == nc, tree = (o->mode == OUT_TREE || o->tree_lines) &&
							 o->cols[c]->get == cols_all[0].get;
			size_t used = 0;

			if (next[c] < row[c].nmore) {
				const struct cell *x = &more->v[row[c].more + next[c]++];

				if (x->len)
					ob_put(out, cells->p + x->off, x->len);
				used = x->width;
				left |= next[c] < row[c].nmore;
			} else if (tree) {
				bool pending = false;

				for (size_t p = 0; p < nc; p++)
					pending |= next[p] < row[p].nmore;
				used = put_art_more(out, w, k, open, ascii, kids && pending);
			}
			if (!lastc) {
				pad(out, width[c] > used ? width[c] - used : 0);
				ob_putc(out, ' ');
			}
		}
		ob_putc(out, '\n');
	}
}

/* tree and list: every cell escaped first, then laid out as findmnt does */
static int render_table(const struct recs *rs, const struct walk *w,
			const struct out_opts *o, struct obuf *out)
{
	size_t nc = o->ncols, rows = w->count, width[COLS_MAX] = { 0 }, next[COLS_MAX];
	struct obuf cells = { 0 }, val = { 0 };
	struct cells_more more = { 0 };
	unsigned char *open = NULL;
	struct cell *cv;
	struct col_ctx cx = o->cx;
	struct mntsnap_mount m;
	uint32_t maxd = 0;
	char hbuf[80];
	int r;

	cx.aligned = true;

	for (size_t k = 0; k < rows; k++)
		maxd = w->depth[k] > maxd ? w->depth[k] : maxd;
	cv = calloc(rows * nc + 1, sizeof(*cv));
	open = calloc(maxd + 2, 1);
	if (!cv || !open) {
		free(cv);
		free(open);
		return -ENOMEM;
	}

	for (size_t k = 0; k < rows; k++) {
		open[w->depth[k]] = !w->last[k];
		fill_row(&cells, &cv[k * nc], &more, width, w, k, open, o, &val,
			 rec_get(rs, (size_t)w->order[k], &m), &cx);
	}
	/*
	 * libsmartcols' widths: the header's when the values are narrower
	 * (counted even with -n), else findmnt's width hint when both values
	 * and header are narrower than it, else the widest value.
	 */
	/* widths by findmnt's own heading, also with -y (a longer name sticks out) */
	for (size_t c = 0; c < nc; c++) {
		size_t hl = strlen(o->cols[c]->header), hint = o->cols[c]->min_width;

		if (width[c] < hl)
			width[c] = hl;
		else if (width[c] < hint && hl < hint)
			width[c] = hint;
	}
	if (!o->noheadings) {
		for (size_t c = 0; c < nc; c++) {
			const char *h = heading(o, c, hbuf, sizeof(hbuf));
			size_t hl = strlen(h), fill = width[c] > hl ? width[c] - hl : 0;
			bool right = o->cols[c]->flags & COL_RIGHT, lastc = c + 1 == nc;

			if (right)
				pad(out, fill);
			ob_puts(out, h);
			if (!right && !lastc)
				pad(out, fill);
			ob_putc(out, lastc ? '\n' : ' ');
		}
	}
	for (size_t k = 0; k < rows && !cells.err; k++) {
		const struct cell *row = &cv[k * nc];
		bool lines = false;

		/* the art of a row's further lines: its ancestors' and its own */
		open[w->depth[k]] = !w->last[k];
		for (size_t c = 0; c < nc; c++) {
			put_cell(out, &cells, &row[c], width[c], o->cols[c]->flags & COL_RIGHT,
				 c + 1 == nc);
			lines |= row[c].nmore > 0;
		}
		if (lines)
			put_more(out, &cells, &more, row, width, w, k, open, o, next);
	}
	r = cells.err ? cells.err : val.err;
	ob_free(&cells);
	ob_free(&val);
	free(more.v);
	free(cv);
	free(open);
	return r;
}

static void json_value(struct obuf *out, const struct column *col, const struct obuf *val,
		       const struct col_ctx *cx)
{
	if (!val->len && col->json == COL_JSON_ARRAY) {
		/* libsmartcols writes an empty array cell as one null */
		ob_put(out, "[null]", 6);
	} else if (!val->len) {
		ob_put(out, "null", 4);
	} else if (col->json == COL_JSON_ARRAY) {
		/* one string a line, as libsmartcols writes a multi-line cell */
		const char *p = val->p, *end = val->p + val->len;

		ob_putc(out, '[');
		for (;;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			enc_json(out, p, (size_t)((nl ? nl : end) - p));
			if (!nl)
				break;
			ob_putc(out, ',');
			p = nl + 1;
		}
		ob_putc(out, ']');
	} else if (col->json == COL_JSON_NUMBER || (col->json == COL_JSON_SIZE && cx->bytes)) {
		ob_put(out, val->p, val->len);
	} else {
		/* strings, and 64-bit numbers as strings: exact in every parser */
		enc_json(out, val->p, val->len);
	}
}

static void json_record(struct obuf *out, const struct mntsnap_mount *m,
			const struct out_opts *o, struct obuf *val)
{
	char hbuf[80];

	ob_putc(out, '{');
	for (size_t c = 0; c < o->ncols; c++) {
		if (c)
			ob_putc(out, ',');
		ob_putc(out, '"');
		if (o->shellvar) {
			/* findmnt -y -J: the shell name, lower case */
			for (const char *h = heading(o, c, hbuf, sizeof(hbuf)); *h; h++)
				ob_putc(out, (char)(*h >= 'A' && *h <= 'Z' ? *h + 32 : *h));
		} else {
			ob_puts(out, o->cols[c]->name);
		}
		ob_put(out, "\":", 2);
		val->len = 0;
		cell_get(val, o, c, m, &o->cx);
		json_value(out, o->cols[c], val, &o->cx);
	}
}

/*
 * {"filesystems": [...]} as findmnt -J: each record's children in its
 * "children" array, by the tree unless flat (-l). One record a line.
 */
static int render_json(const struct recs *rs, const struct walk *w,
		       const struct out_opts *o, struct obuf *out)
{
	struct obuf val = { 0 };
	struct mntsnap_mount m;
	uint32_t cur = 0;
	int r;

	ob_puts(out, "{\"filesystems\":[\n");
	for (size_t k = 0; k < w->count; k++) {
		/* flat: a tree's order (-R) without its nesting */
		uint32_t d = o->json_flat ? 0 : w->depth[k];

		if (k && d > cur) {
			ob_puts(out, ",\"children\":[\n");
		} else if (k) {
			ob_putc(out, '}');
			for (; cur > d; cur--)
				ob_put(out, "]}", 2);
			ob_put(out, ",\n", 2);
		}
		json_record(out, rec_get(rs, (size_t)w->order[k], &m), o, &val);
		cur = d;
	}
	if (w->count) {
		ob_putc(out, '}');
		for (; cur > 0; cur--)
			ob_put(out, "]}", 2);
	}
	ob_puts(out, "\n]}\n");
	r = val.err;
	ob_free(&val);
	return r;
}

/* raw (-r) and pairs (-P): one line a record, no alignment */
static int render_lines(const struct recs *rs, const struct walk *w,
			const struct out_opts *o, struct obuf *out)
{
	bool pairs = o->mode == OUT_PAIRS, ascii = o->ascii || !o->cx.loc.utf8;
	struct obuf val = { 0 };
	struct mntsnap_mount m;
	unsigned char *open = NULL;
	uint32_t maxd = 0;
	char hbuf[80];
	int r;

	for (size_t k = 0; k < w->count; k++)
		maxd = w->depth[k] > maxd ? w->depth[k] : maxd;
	open = calloc(maxd + 2, 1);
	if (!open)
		return -ENOMEM;
	if (!pairs && !o->noheadings)
		for (size_t c = 0; c < o->ncols; c++) {
			const char *h = heading(o, c, hbuf, sizeof(hbuf));

			enc_raw(out, h, strlen(h), &o->cx.loc);
			ob_putc(out, c + 1 < o->ncols ? ' ' : '\n');
		}
	for (size_t k = 0; k < w->count; k++) {
		const struct mntsnap_mount *mp = rec_get(rs, (size_t)w->order[k], &m);

		open[w->depth[k]] = !w->last[k];
		for (size_t c = 0; c < o->ncols; c++) {
			val.len = 0;
			/* --tree: findmnt draws the art in raw and pairs too, escaped */
			if (o->tree_lines && o->cols[c]->get == cols_all[0].get)
				put_art(&val, w, k, open, ascii);
			cell_get(&val, o, c, mp, &o->cx);
			if (pairs) {
				ob_puts(out, heading(o, c, hbuf, sizeof(hbuf)));
				ob_put(out, "=\"", 2);
				enc_pairs(out, val.len ? val.p : "", val.len, &o->cx.loc);
				ob_putc(out, '"');
			} else {
				enc_raw(out, val.len ? val.p : "", val.len, &o->cx.loc);
			}
			ob_putc(out, c + 1 < o->ncols ? ' ' : '\n');
		}
	}
	r = val.err;
	ob_free(&val);
	free(open);
	return r;
}

static long render(const struct recs *rs, const bool *match, const struct out_opts *o, FILE *f)
{
	/* fstab entries (no snapshot) have no tree: a list in their order */
	bool tree = rs->snap && (o->mode == OUT_TREE || (o->mode == OUT_JSON && !o->json_flat) ||
				 o->tree_lines || o->walk_tree);
	struct obuf out = { 0 };
	struct walk w;
	int r = walk_build(rs, match, tree, o, &w);

	if (r)
		return r;
	switch (o->mode) {
	case OUT_TREE:
	case OUT_LIST:
		r = render_table(rs, &w, o, &out);
		break;
	case OUT_JSON:
		r = render_json(rs, &w, o, &out);
		break;
	default:
		r = render_lines(rs, &w, o, &out);
		break;
	}
	if (!r)
		r = out.err;
	if (!r && out.len && fwrite(out.p, 1, out.len, f) != out.len)
		r = errno ? -errno : -EIO;
	ob_free(&out);
	if (!r)
		r = (int)(w.count > 0x7fffffff ? 0x7fffffff : w.count);
	walk_free(&w);
	return r;
}

/* One listing, with findmnt's one libblkid cache for SOURCES. */
static long render_cached(struct recs *rs, const bool *match, const struct out_opts *o, FILE *f)
{
	struct tags_cache tc = { 0 };
	struct out_opts oo = *o;
	long r;

	/* a run's own cache (list, show, stat: libmount's, one a run) */
	if (!oo.cx.tags)
		oo.cx.tags = &tc;
	if (rs->cx)
		rs->cx = &oo.cx;
	r = render(rs, match, &oo, f);
	/* the cells kept when the rows were found are this listing's */
	tags_kept_clear(oo.cx.tags);
	tags_cache_release(&tc);
	return r;
}

long out_render(const struct mntsnap_snapshot *snap, const bool *match,
		const struct out_opts *o, FILE *f)
{
	struct recs rs = { .snap = snap, .cx = &o->cx, .n = mntsnap_snapshot_count(snap) };

	return render_cached(&rs, match, o, f);
}

long out_render_list(const struct mntsnap_mount *const *list, size_t n, const bool *match,
		     const struct out_opts *o, FILE *f)
{
	struct recs rs = { .list = list, .n = n };

	return render_cached(&rs, match, o, f);
}

void out_prime_row(const struct mntsnap_mount *m, const struct out_opts *o)
{
	struct col_ctx cx = o->cx;
	struct obuf val = { 0 };

	/* as render_table() and the other forms ask, so each cell is the one printed */
	cx.aligned = o->mode == OUT_TREE || o->mode == OUT_LIST;
	for (size_t c = 0; c < o->ncols; c++) {
		val.len = 0;
		o->cols[c]->get(&val, m, &cx);
		/* kept as computed now; none kept (no memory): computed again */
		if (cx.tags && !val.err && col_keeps(o->cols[c], &cx))
			(void)tags_keep_cell(cx.tags, m->index, c, val.p, val.len);
	}
	ob_free(&val);
}

size_t out_enc_cell(struct obuf *b, const char *s, size_t n, enum out_mode mode,
		    const struct out_locale *loc)
{
	switch (mode) {
	case OUT_RAW:
		enc_raw(b, s, n, loc);
		return 0;
	case OUT_PAIRS:
		enc_pairs(b, s, n, loc);
		return 0;
	case OUT_JSON:
		enc_json(b, s, n);
		return 0;
	default:
		return enc_table(b, s, n, loc);
	}
}
