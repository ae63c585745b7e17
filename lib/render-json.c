// SPDX-License-Identifier: MIT
/*
 * JSON rendering: {"backend", "ns-id", "time-ns", "count", "filesystems":
 * [one object per mount]}. A key findmnt also has carries findmnt's
 * meaning for the same mount (target, source with "[fsroot]" for a bind
 * mount, fstype "type.subtype", options merged as libmount merges them,
 * vfs-options, fs-options, opt-fields, fsroot, maj:min, id, parent,
 * propagation "shared"/"private" + ",slave", ",unbindable"); the rest are
 * mntsnap's, named in the same style (uniq-id, peer-group, sb-magic, ...).
 *
 * Lossless and valid: paths are bytes, JSON is UTF-8. Valid UTF-8 passes
 * through; each byte b of an invalid sequence is written as \udcHH (the
 * lone surrogate U+DC00+b, Python's "surrogateescape"), which no valid
 * UTF-8 input can produce. 64-bit values (uniq-id, uniq-parent, ns-id,
 * time-ns) are strings of decimal digits: JSON readers that hold numbers
 * as doubles (jq, JavaScript) round them above 2^53.
 *
 * Records are built in one buffer, written every MNTSNAP__FLUSH_AT bytes
 * with one fwrite: the per-field fprintf and per-character fputc this
 * replaces cost 8x the mountinfo renderer. Strings are scanned 16 bytes
 * a step (SSE2, else 8 with bit tricks) and copied a run at a time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "render.h"
#include "snapshot.h"

#define jb mntsnap__buf
#define put mntsnap__put
#define put_u64 mntsnap__put_u64
#define PUTS(b, lit) put(b, lit, sizeof(lit) - 1)

static const char hexd[] = "0123456789abcdef";

/* "0x..." in place: one room check, nibbles counted first */
static void put_hex(struct jb *b, uint64_t v)
{
	unsigned n = v ? (unsigned)(64 - __builtin_clzll(v) + 3) / 4 : 1;
	char *o;

	if (b->len + 20 > b->cap && mntsnap__buf_grow(b, 20))
		return;
	o = b->p + b->len;
	memcpy(o, "\"0x", 3);
	b->len += n + 4;
	o += 3 + n;
	*o = '"';
	do {
		*--o = hexd[v & 15];
		v >>= 4;
	} while (v);
}

/* The bytes JSON takes as they are: printable ASCII but " and \. */
static const unsigned char plain_tab[256] = {
	[0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7f] = 1,
};

/* The escape for c, which is not plain, into e: its length. */
static size_t escape_of(unsigned char c, char *e)
{
	static const char short_esc[32] = {
		['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r',
	};

	e[0] = '\\';
	if (c == '"' || c == '\\') {
		e[1] = (char)c;
		return 2;
	}
	if (c < 32 && short_esc[c]) {
		e[1] = short_esc[c];
		return 2;
	}
	/* a control byte: \u00XX; a stray byte: U+DC00 + byte */
	e[1] = 'u';
	e[2] = c >= 0x80 ? 'd' : '0';
	e[3] = c >= 0x80 ? 'c' : '0';
	e[4] = hexd[c >> 4];
	e[5] = hexd[c & 15];
	return 6;
}

#ifdef __SSE2__
#include <emmintrin.h>

/*
 * Bit i set for each of the 16 bytes at s that is not plain: as signed
 * bytes, < 0x20 catches both the controls and every byte >= 0x80.
 */
static inline unsigned not_plain16(const unsigned char *s)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i m = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
				 _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
					      _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));

	return (unsigned)_mm_movemask_epi8(m);
}
#else
#define ONES 0x0101010101010101ULL
#define HIGH 0x8080808080808080ULL

/* No byte of the 8 at s is < 0x20, >= 0x80, '"' or '\\' (bit tricks). */
static inline bool word_plain(const unsigned char *s)
{
	uint64_t w, q, bs;

	memcpy(&w, s, 8);
	q = w ^ (ONES * '"');
	bs = w ^ (ONES * '\\');
	/* per byte: below 0x20, equal to '"', equal to '\\', or high bit set */
	return !((((w - ONES * 0x20) & ~w) | ((q - ONES) & ~q) | ((bs - ONES) & ~bs) | w) &
		 HIGH);
}
#endif

/* The first byte at or after i (< n) that is not plain, or n. */
static inline size_t plain_run(const unsigned char *s, size_t i, size_t n)
{
#ifdef __SSE2__
	/* sixteen bytes a step: paths and options are mostly plain ASCII */
	for (; i + 16 <= n; i += 16) {
		unsigned k = not_plain16(s + i);

		if (k)
			return i + (size_t)__builtin_ctz(k);
	}
#else
	while (i + 8 <= n && word_plain(s + i))
		i += 8;
#endif
	while (i < n && plain_tab[s[i]])
		i++;
	return i;
}

/*
 * A JSON string literal for the n bytes at str (see the top of this file),
 * written straight into b after one check for room for the worst case
 * (every byte six): runs of plain bytes (and valid UTF-8) are copied with
 * one memcpy each.
 */
static void put_strn(struct jb *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0, l;
	char *o;

	if (b->len + 6 * n + 2 > b->cap && mntsnap__buf_grow(b, 6 * n + 2))
		return;
	o = b->p + b->len;
	*o++ = '"';
	while ((i = plain_run(s, i, n)) < n) {
		if (s[i] >= 0x80 && (l = (size_t)mntsnap__utf8_len(s + i)) && i + l <= n) {
			i += l;
			continue;
		}
		memcpy(o, str + run, i - run);
		o += i - run;
		o += escape_of(s[i], o);
		run = ++i;
	}
	memcpy(o, str + run, n - run);
	o += n - run;
	*o++ = '"';
	b->len = (size_t)(o - b->p);
}

static void put_str(struct jb *b, const char *s)
{
	put_strn(b, s, strlen(s));
}

void mntsnap__json_str(FILE *f, const char *str)
{
	struct jb b = { 0 };

	put_str(&b, str);
	if (!b.err)
		fwrite(b.p, 1, b.len, f);
	free(b.p);
}

static void put_list(struct jb *b, const char *list, uint32_t n)
{
	PUTS(b, "[");
	for (uint32_t i = 0; i < n; i++) {
		size_t l = strlen(list);

		if (i)
			PUTS(b, ",");
		put_strn(b, list, l);
		list += l + 1;
	}
	PUTS(b, "]");
}

/*
 * "options", "vfs-options", "fs-options": VFS and FS strings made once
 * each, straight into stack buffers (the heap for long ones), and merged
 * from them.
 */
static void put_all_options(struct jb *b, const struct mntsnap_mount *m)
{
	char vst[256], fst[512], mst[780];
	char *vs = vst, *fs = fst, *mp = mst, *vh = NULL, *fh = NULL, *mh = NULL;
	size_t vl, fl, ml;

	vl = mntsnap__vfs_options(m, vst, sizeof(vst));
	if (vl >= sizeof(vst)) {
		/* long per-mount option text: once more in a buffer that holds it */
		vs = vh = malloc(vl + 1);
		if (!vh) {
			b->err = -ENOMEM;
			return;
		}
		vl = mntsnap__vfs_options(m, vs, vl + 1);
	}
	fl = mntsnap__fs_options(m, fst, sizeof(fst));
	if (fl >= sizeof(fst)) {
		/* long super options: the same */
		fs = fh = malloc(fl + 1);
		if (!fh) {
			b->err = -ENOMEM;
			goto out;
		}
		mntsnap__fs_options(m, fs, fl + 1);
	}
	if (vl + fl + 5 > sizeof(mst)) {
		mp = mh = malloc(vl + fl + 5);
		if (!mh) {
			b->err = -ENOMEM;
			goto out;
		}
	}
	ml = mntsnap__merge_options(vs, vl, fs, fl, mp);
	PUTS(b, ",\"options\":");
	put_strn(b, mp, ml);
	PUTS(b, ",\"vfs-options\":");
	put_strn(b, vs, vl);
	PUTS(b, ",\"fs-options\":");
	put_strn(b, fs, fl);
out:
	free(vh);
	free(fh);
	free(mh);
}

static void put_source(struct jb *b, const struct mntsnap_mount *m)
{
	const char *src = m->mask & MNTSNAP_F_SOURCE ? m->source : "none";
	size_t sl = strlen(src), rl = strlen(m->root);
	char stack[512], *heap = NULL, *s = stack;

	if (!rl || !strcmp(m->root, "/")) {
		put_strn(b, src, sl);
		return;
	}
	/* findmnt's SOURCE: "src[/fsroot]" for a mount of a subdirectory */
	if (sl + rl + 3 > sizeof(stack)) {
		heap = malloc(sl + rl + 3);
		if (!heap) {
			b->err = -ENOMEM;
			return;
		}
		s = heap;
	}
	memcpy(s, src, sl);
	s[sl] = '[';
	memcpy(s + sl + 1, m->root, rl);
	s[sl + rl + 1] = ']';
	s[sl + rl + 2] = '\0'; /* the UTF-8 check may look one byte on */
	put_strn(b, s, sl + rl + 2);
	free(heap);
}

static void put_fstype(struct jb *b, const struct mntsnap_mount *m)
{
	size_t tl = strlen(m->fs_type), sl;
	char buf[256];

	if (!(m->mask & MNTSNAP_F_FS_SUBTYPE) || !m->fs_subtype[0]) {
		put_strn(b, m->fs_type, tl);
		return;
	}
	sl = strlen(m->fs_subtype);
	if (tl + sl + 1 >= sizeof(buf)) {
		/* no kernel name is this long; keep the parts apart rather than cut */
		put_strn(b, m->fs_type, tl);
		return;
	}
	memcpy(buf, m->fs_type, tl);
	buf[tl] = '.';
	memcpy(buf + tl + 1, m->fs_subtype, sl);
	buf[tl + sl + 1] = '\0';
	put_strn(b, buf, tl + sl + 1);
}

static void put_propagation(struct jb *b, const struct mntsnap_mount *m)
{
	if (m->propagation & MNTSNAP_PROP_SHARED)
		PUTS(b, "\"shared");
	else
		PUTS(b, "\"private");
	if (m->propagation & MNTSNAP_PROP_SLAVE)
		PUTS(b, ",slave");
	if (m->propagation & MNTSNAP_PROP_UNBINDABLE)
		PUTS(b, ",unbindable");
	PUTS(b, "\"");
}

static void put_opt_fields(struct jb *b, const struct mntsnap_mount *m)
{
	const char *sep = "";

	/* parsed text with a tag this build does not know: as the line had it */
	if (m->opt_fields && m->opt_fields[0]) {
		put_str(b, m->opt_fields);
		return;
	}
	if (!(m->propagation & (MNTSNAP_PROP_SHARED | MNTSNAP_PROP_SLAVE |
				MNTSNAP_PROP_UNBINDABLE))) {
		PUTS(b, "null");
		return;
	}
	PUTS(b, "\"");
	if (m->propagation & MNTSNAP_PROP_SHARED) {
		PUTS(b, "shared:");
		put_u64(b, m->peer_group);
		sep = " ";
	}
	if (m->propagation & MNTSNAP_PROP_SLAVE) {
		put(b, sep, strlen(sep));
		PUTS(b, "master:");
		put_u64(b, m->master);
		if (m->propagate_from && m->propagate_from != m->master) {
			PUTS(b, " propagate_from:");
			put_u64(b, m->propagate_from);
		}
		sep = " ";
	}
	if (m->propagation & MNTSNAP_PROP_UNBINDABLE) {
		put(b, sep, strlen(sep));
		PUTS(b, "unbindable");
	}
	PUTS(b, "\"");
}

/* "key":"digits" for a 64-bit value */
static void put_u64_str(struct jb *b, uint64_t v)
{
	PUTS(b, "\"");
	put_u64(b, v);
	PUTS(b, "\"");
}

/*
 * The three option strings depend only on attr, sb_flags and the options
 * text, which a snapshot stores once per superblock: neighbours (binds of
 * one filesystem, a container's mounts) share them, so the last escaped
 * fragment is kept and reused when the key matches.
 */
struct opt_cache {
	bool valid;
	uint32_t attr, sb_flags, has_opts;
	const char *options;
	struct jb frag;
};

static void put_options_cached(struct jb *b, const struct mntsnap_mount *m,
			       struct opt_cache *c)
{
	uint32_t has = m->mask & MNTSNAP_F_OPTS;

	/* parsed text kept as written: the cache's key does not hold it */
	if (!c || (m->mnt_opts_text && m->mnt_opts_text[0]) ||
	    (m->sb_opts_text && m->sb_opts_text[0])) {
		put_all_options(b, m);
		return;
	}
	if (!c->valid || c->attr != m->attr || c->sb_flags != m->sb_flags ||
	    c->has_opts != has || (has && c->options != m->options &&
				   strcmp(c->options, m->options))) {
		c->frag.len = 0;
		put_all_options(&c->frag, m);
		if (c->frag.err) {
			b->err = c->frag.err;
			return;
		}
		c->valid = true;
		c->attr = m->attr;
		c->sb_flags = m->sb_flags;
		c->has_opts = has;
		c->options = m->options;
	}
	put(b, c->frag.p, c->frag.len);
}

static void json_record(struct jb *b, const struct mntsnap_mount *m, struct opt_cache *oc)
{
	PUTS(b, "{\"id\":");
	put_u64(b, m->id_old);
	PUTS(b, ",\"parent\":");
	put_u64(b, m->parent_id_old);
	if (m->mask & MNTSNAP_F_ID) {
		PUTS(b, ",\"uniq-id\":");
		put_u64_str(b, m->id);
		PUTS(b, ",\"uniq-parent\":");
		put_u64_str(b, m->parent_id);
	}
	PUTS(b, ",\"target\":");
	put_str(b, m->mount_point);
	PUTS(b, ",\"source\":");
	put_source(b, m);
	PUTS(b, ",\"fstype\":");
	put_fstype(b, m);
	put_options_cached(b, m, oc);
	PUTS(b, ",\"opt-fields\":");
	put_opt_fields(b, m);
	PUTS(b, ",\"fsroot\":");
	put_str(b, m->root);
	PUTS(b, ",\"maj:min\":\"");
	put_u64(b, m->dev_major);
	PUTS(b, ":");
	put_u64(b, m->dev_minor);
	PUTS(b, "\",\"propagation\":");
	put_propagation(b, m);
	/* what findmnt does not have */
	PUTS(b, ",\"peer-group\":");
	put_u64(b, m->peer_group);
	PUTS(b, ",\"master\":");
	put_u64(b, m->master);
	PUTS(b, ",\"propagate-from\":");
	put_u64(b, m->propagate_from);
	PUTS(b, ",\"ns-id\":");
	put_u64_str(b, m->ns_id);
	PUTS(b, ",\"sb-magic\":");
	put_hex(b, m->sb_magic);
	PUTS(b, ",\"sb-flags\":");
	put_hex(b, m->sb_flags);
	PUTS(b, ",\"attr\":");
	put_hex(b, m->attr);
	PUTS(b, ",\"mask\":");
	put_hex(b, m->mask);
	/*
	 * Fields findmnt does not have, each only when the record has it:
	 * the table's JSON_GENERIC rows, generated (this runs per record).
	 */
#define JT_STR(M, NU) put_str(b, m->M)
#define JT_LIST(M, NU) put_list(b, m->M, m->NU)
#define JT_U32(M, NU) put_u64(b, m->M)
#define JT_U64(M, NU) put_u64_str(b, m->M)
#define JT_G0(N, K, M, NU, J)
#define JT_G1(N, K, M, NU, J)                                                                      \
	if (m->mask & MNTSNAP_F_##N) {                                                             \
		PUTS(b, ",\"" J "\":");                                                            \
		JT_##K(M, NU);                                                                     \
	}
#define JT_ROW(N, L, K, M, NU, SA, SG, SS, SN, J, JG, ...) JT_G##JG(N, K, M, NU, J)
	MNTSNAP_FIELDS(JT_ROW)
	PUTS(b, "}");
}

#define flush mntsnap__buf_flush

/* One record as a JSON object (shared with the diff's JSON). */
int mntsnap__json_mount(FILE *f, const struct mntsnap_mount *m)
{
	struct jb b = { 0 };
	int r;

	json_record(&b, m, NULL);
	r = flush(&b, f);
	free(b.p);
	return r;
}

int mntsnap__render_json(const struct mntsnap_snapshot *snap, FILE *f)
{
	size_t n = mntsnap__snapshot_count(snap);
	struct opt_cache oc = { 0 };
	struct mntsnap_mount m;
	struct jb b = { 0 };
	int r = 0;

	PUTS(&b, "{\"backend\":");
	put_str(&b, mntsnap__backend_name(snap->backend));
	PUTS(&b, ",\"ns-id\":");
	put_u64_str(&b, snap->ns_id);
	PUTS(&b, ",\"time-ns\":");
	put_u64_str(&b, snap->time_ns);
	PUTS(&b, ",\"count\":");
	put_u64(&b, n);
	PUTS(&b, ",\"filesystems\":[");
	for (size_t i = 0; i < n && !r; i++) {
		mntsnap__snapshot_get(snap, i, &m);
		if (i)
			PUTS(&b, ",");
		PUTS(&b, "\n  ");
		json_record(&b, &m, &oc);
		/* write in pieces: memory stays flat, errors show early */
		if (b.len >= MNTSNAP__FLUSH_AT)
			r = flush(&b, f);
	}
	PUTS(&b, "\n]}\n");
	if (!r)
		r = flush(&b, f);
	free(b.p);
	free(oc.frag.p);
	return r;
}
