// SPDX-License-Identifier: MIT
/*
 * /proc/PID/mountinfo text -> snapshot records.
 *
 * The text is read whole into one buffer (stdio and per-line reads cost
 * more than the parsing), its lines are counted so that the snapshot
 * reserves its arrays once, and then each line is split and unescaped in
 * place (own loops, no strtoul) and its strings copied once, into the
 * snapshot's string table, by mntsnap__snap_add(), which also interns the
 * superblock part. Nothing is allocated per line or field; a caller's
 * const buffer is copied a line at a time into one scratch line. Any
 * malformed line fails the whole parse with -EBADMSG and the line number:
 * a silently partial mount table is worse than none.
 *
 * A source printed by a filesystem's own ->show_devname (nfs, cifs, ...)
 * is escaped without '#': a literal '#' there parses as it is, and the
 * renderer leaves it so for those filesystems (render-mountinfo.c).
 *
 * Normalisations, so that records compare equal with the statmount backend
 * on every field both can give:
 *  - propagate_from: the text shows it only when the dominating peer group
 *    differs from master (and is not 0). The record holds that number, or
 *    0 when the text shows none; backend-statmount.c stores the kernel's
 *    value the same way (0 when it equals master).
 *  - no optional field at all -> MNTSNAP_PROP_PRIVATE, as statmount says.
 *  - "ro" in the per-mount options is the mount's own MNT_READONLY (a
 *    read-only superblock shows only in the super options), so it maps to
 *    MNTSNAP_ATTR_RDONLY exactly.
 *  - no atime word means strictatime (MNTSNAP_ATTR_STRICTATIME).
 *  - super options: leading ro/rw,sync,dirsync,mand,lazytime (in the
 *    kernel's order) become sb_flags (mand, printed by kernels before
 *    5.15 only, as MNTSNAP_SB_MANDLOCK, which statmount never reports);
 *    the rest is kept escaped, verbatim, like statmount's mnt_opts; none
 *    is the empty value (MNTSNAP_F_OPTS set, ""), as statmount's unset
 *    MNT_OPTS bit is when the kernel supports it. Likewise no subtype.
 *    An empty last option right after the flags ("rw,", which no options
 *    string renders) or a first word not ro or rw ("size=1k,rw") keeps
 *    the field as written in sb_opts_text (parse_sb_text()).
 *  - fs type "fuse.sshfs" is split at the first '.' into type and subtype,
 *    unless a part is empty ("tmpfs.", ".x": the type as written).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends.h"
#include "fields.h"
#include "target.h"
#include "proc.h"
#include "snapshot.h"

/* Everything a mountinfo line can give (NS_ID only for a live namespace). */
#define MI_FIELDS MNTSNAP__FIELDS_MOUNTINFO

/*
 * First read buffer for /proc files (st_size is 0); doubles as needed.
 * Just below glibc's default mmap threshold (128 KiB): it comes from the
 * heap and is reused from one capture to the next instead of being mapped
 * (and page-faulted) afresh, and holds ~1,300 mountinfo lines.
 */
#define READ_CHUNK (124 * 1024)
/* A mount table larger than this is not a mount table. */
#define MAX_TEXT (1UL << 31)

struct mi_parser {
	struct mntsnap_snapshot *s;
	struct mntsnap_error *err;
	uint32_t want;
	uint64_t ns_id;
	char *scratch;      /* a copy of the line, for const input only */
	size_t scratch_cap;
	char *sb_rest;      /* options of super options kept as text */
	size_t sb_rest_cap;
	unsigned line;
	bool copy;
	bool live;          /* a live /proc text, not a file or a caller's buffer */
	bool dup_id;        /* check_ids() found a mount id twice */
	/*
	 * The record being filled, zeroed once: a memset of the whole struct
	 * per line showed up as a fifth of the parsing time (rep stos).
	 * parse_line() resets what a line may leave unset.
	 */
	struct mntsnap_mount m;
};

/* A token of the current line: [p, p + len), followed by a space. */
struct tok {
	char *p;
	size_t len;
	bool esc; /* has a backslash: needs unescaping */
};

/* -EBADMSG, with "line N: field: what" as the message. */
static int bad(struct mi_parser *P, const char *field, const char *what)
{
	return mntsnap__set_error(P->err, -EBADMSG, P->line, "line %u: %s: %s", P->line, field,
				 what);
}

static bool tok_is(const struct tok *t, const char *lit, size_t n)
{
	return t->len == n && !memcmp(t->p, lit, n);
}

#define TOK_IS(t, lit) tok_is(t, lit, sizeof(lit) - 1)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MI_SWAR 1
/*
 * High bit set in the bytes of x equal to the byte in pat. Only the lowest
 * set bit is exact (a borrow can mark a byte above a true match), which is
 * all the scanner uses; and no bit is set at all if nothing matches.
 */
static inline uint64_t bytes_eq(uint64_t x, uint64_t pat)
{
	x ^= pat;
	return (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;
}
#endif

/*
 * Next space-separated token; false if the line ends first. Fields are
 * short: eight bytes at a time (then a byte loop) beats a memchr() call
 * per field, and sees the backslashes on the way (most fields have none).
 */
static bool next_tok(char **pos, char *end, struct tok *t)
{
	char *sp = *pos;
	bool esc = false;

#ifdef MI_SWAR
	while (end - sp >= 8) {
		uint64_t x, spc, bsl;

		memcpy(&x, sp, 8);
		spc = bytes_eq(x, 0x2020202020202020ULL);
		bsl = bytes_eq(x, 0x5c5c5c5c5c5c5c5cULL);
		if (spc) {
			esc |= bsl && __builtin_ctzll(bsl) < __builtin_ctzll(spc);
			sp += __builtin_ctzll(spc) >> 3;
			goto found;
		}
		esc |= bsl != 0;
		sp += 8;
	}
#endif
	for (; sp < end && *sp != ' '; sp++)
		esc |= *sp == '\\';
	if (sp == end)
		return false;
#ifdef MI_SWAR
found:
#endif
	t->esc = esc;
	t->p = *pos;
	t->len = (size_t)(sp - *pos);
	*pos = sp + 1;
	return true;
}

/*
 * Next token of a field; when the line ends first, name the field that is
 * missing: this one if nothing is left, else the one after it (this one is
 * the last thing on the line).
 */
static int take(struct mi_parser *P, char **pos, char *end, struct tok *t,
		const char *field, const char *next)
{
	if (next_tok(pos, end, t))
		return 0;
	if (*pos < end && !strcmp(next, "optional fields"))
		return bad(P, next, "missing ' - ' separator");
	return bad(P, *pos < end ? next : field, "missing");
}

/*
 * Decimal u32, own digit loop: strtoul would accept signs, spaces and
 * hex and costs a locale lookup per call.
 */
static bool parse_u32(const char *p, size_t len, uint32_t *ret)
{
	uint64_t v = 0;

	if (!len || len > 10)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(unsigned char)p[i] - '0';

		if (d > 9)
			return false;
		v = v * 10 + d;
	}
	if (v > UINT32_MAX)
		return false;
	*ret = (uint32_t)v;
	return true;
}

static bool is_oct(char c)
{
	return c >= '0' && c <= '7';
}

/*
 * Decode \ooo in place (exactly three octal digits) and NUL-terminate at
 * s[n]; any other backslash stays literal, like libmount's unmangle. As
 * there, a value above \377 keeps its low 8 bits (\401 is 0x01, \777
 * 0xff): the kernel escapes only a few bytes, each as \0oo or \1oo, so
 * its own text never has one, and a hand-made line reads as findmnt
 * reads it. Returns the new length, or -1 for an escape that decodes to
 * NUL (\000, \400: never the kernel's; libmount ends the string there,
 * which would silently show another path). Decoding only shrinks, so
 * it works in place.
 */
static long unescape(char *s, size_t n)
{
	char *d, *src, *end = s + n;

	src = memchr(s, '\\', n);
	if (!src) {
		*end = '\0';
		return (long)n;
	}
	d = src;
	while (src < end) {
		char *bs = memchr(src, '\\', (size_t)(end - src));
		size_t run = bs ? (size_t)(bs - src) : (size_t)(end - src);

		memmove(d, src, run);
		d += run;
		src += run;
		if (!bs)
			break;
		if (end - bs >= 4 && is_oct(bs[1]) && is_oct(bs[2]) && is_oct(bs[3])) {
			char c = (char)((((bs[1] - '0') << 6) | ((bs[2] - '0') << 3) | (bs[3] - '0')) &
					0xff);

			if (!c)
				return -1;
			*d++ = c;
			src += 4;
		} else {
			*d++ = '\\';
			src++;
		}
	}
	*d = '\0';
	return d - s;
}

/*
 * A string field, unescaped in place in the line (the byte after it, a
 * space or the newline, becomes its NUL): nothing is copied until
 * mntsnap__snap_add() puts it into the string table.
 */
static const char *str_field(struct mi_parser *P, char *p, size_t len, bool esc,
			     const char *field, int *rerr)
{
	if (!esc) {
		p[len] = '\0';
		return p;
	}
	if (unescape(p, len) < 0) {
		*rerr = bad(P, field, "an escape decodes to NUL (\\000 or \\400)");
		return NULL;
	}
	return p;
}

/*
 * Column 6: per-mount options, "ro"/"rw" then flags. The known flags set
 * attr. The text itself is kept (mnt_opts_text) when rendering attr would
 * not give it back: an option this build does not know (a newer kernel's
 * flag must never make the fallback backend refuse the table), a known
 * one twice or out of the kernel's order, or ro/rw not first or not there
 * at all (a hand-made line: libmount takes the column as it is, so
 * findmnt lists "nosuid,rw"; "ro" anywhere is the mount's read-only flag).
 * Any length: the kernel does not bound the column (each flag adds a
 * word) and libmount reads it whole, so neither does this.
 */
static void parse_mnt_opts(const struct tok *t, struct mntsnap_mount *m)
{
	const struct mntsnap_mnt_opt_word *words = mntsnap__mnt_opt_words;
	char *p = t->p, *end = t->p + t->len;
	uint32_t attr = MNTSNAP_ATTR_STRICTATIME;
	bool first = true, keep = false, atime = false;
	int next = 0;

	while (p <= end) {
		char *c = p;
		bool rorw;
		int i;

		while (c < end && *c != ',')
			c++;
		rorw = c - p == 2 && p[0] == 'r' && (p[1] == 'o' || p[1] == 'w');
		if (rorw) {
			if (p[1] == 'o')
				attr |= MNTSNAP_ATTR_RDONLY;
			keep |= !first;
		} else {
			keep |= first;
			i = mntsnap__mnt_opt_word(p, (size_t)(c - p));
			if (i < 0) {
				keep = true; /* not known here: kept as written */
			} else {
				if (i < next || (words[i].clear && atime))
					keep = true;
				atime |= words[i].clear != 0;
				next = i + 1;
				attr = (attr & ~words[i].clear) | words[i].set;
			}
		}
		first = false;
		if (c == end)
			break;
		p = c + 1;
	}
	m->attr = attr;
	if (keep) {
		t->p[t->len] = '\0'; /* the space after it: parsed already */
		m->mnt_opts_text = t->p;
	}
}

/* "tag:N" with a decimal N. */
static bool opt_num(const struct tok *t, const char *tag, size_t tl, uint32_t *ret)
{
	return t->len > tl && !memcmp(t->p, tag, tl) && parse_u32(t->p + tl, t->len - tl, ret);
}

/*
 * "tag:N" written as the kernel writes it: in the kernel's order (shared,
 * master, propagate_from, unbindable: ranks 1-4, each once) and without a
 * leading zero. Anything else is text the renderer would not give back.
 */
static bool in_order(const struct tok *t, size_t tl, unsigned rank, unsigned *last)
{
	bool ok = rank > *last && (t->len <= tl + 1 || t->p[tl] != '0');

	*last = rank;
	return ok;
}

/*
 * A field the kernel would not write as it stands: a known tag whose value
 * is no 32-bit decimal (a later kernel's wider peer group id
 * "shared:4294967296", an empty or hand-made value "master:", "shared:1-",
 * "shared:1,master:2"), or one with a value the kernel never gives it, or
 * without the value it always gives ("unbindable:1", "shared"). The field
 * is read by its own tag, the text before its first ':': the tag still
 * says what the mount is, as libmount finds "shared:", "master:" or
 * "unbindable" in the text (so findmnt's PROPAGATION agrees, but for a
 * tag inside another tag or value). A field without a ':' is a tag only
 * as the kernel writes one so, "unbindable": a bare "shared" or "master"
 * says nothing, as libmount (which looks for "shared:" and "master:")
 * reads it. The number a tag cannot hold stays as it was (0: unknown). A propagate_from without its
 * number says nothing. The caller keeps the field as written: a table is
 * never refused over text a newer kernel may write.
 */
static void known_tag_kind(const struct tok *t, struct mntsnap_mount *m)
{
	const char *colon = memchr(t->p, ':', t->len);
	struct tok tag = { .p = t->p, .len = colon ? (size_t)(colon - t->p) : t->len };

	if (colon && TOK_IS(&tag, "shared"))
		m->propagation |= MNTSNAP_PROP_SHARED;
	else if (colon && TOK_IS(&tag, "master"))
		m->propagation |= MNTSNAP_PROP_SLAVE;
	else if (TOK_IS(&tag, "unbindable"))
		m->propagation |= MNTSNAP_PROP_UNBINDABLE;
}

/*
 * C isspace() but '\n' (a line has none): what libmount's strstr() for
 * " - " leaves between optional fields, and what findmnt shows as written.
 */
static bool is_field_space(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/*
 * Next optional field: up to a space or other white space; false if the
 * line ends first. The kernel writes one space between fields, so the
 * white space after it (*sep) tells whether the text is the kernel's.
 */
static bool next_field(char **pos, char *end, struct tok *t, char *sep)
{
	char *sp = *pos;

	while (sp < end && !is_field_space(*sp))
		sp++;
	if (sp == end)
		return false;
	t->p = *pos;
	t->len = (size_t)(sp - *pos);
	t->esc = false;
	*sep = *sp;
	*pos = sp + 1;
	return true;
}

/* The " - " separator: a "-" field with a space on each side. */
static bool is_separator(const struct tok *t, char before, char after)
{
	return TOK_IS(t, "-") && before == ' ' && after == ' ';
}

/*
 * Column 7: optional fields up to the " - " separator. libmount keeps
 * the text between the blank after the per-mount options and " - " as
 * written and finds the tags in it, so any white space may part the
 * fields ("shared:1\vmaster:2", a tab, two spaces, one before the first
 * field). Fields the kernel would not write so (such white space, a tag
 * unknown here, a known tag's value that is no 32-bit number, known ones
 * out of order, a propagate_from that
 * put_optional() would leave out: on no slave, 0, or equal to the
 * master) keep that text in opt_fields, so that the line renders back
 * exactly and OPT-FIELDS shows what the file says, as findmnt does.
 */
static int parse_optional(struct mi_parser *P, char **pos, char *end,
			  struct mntsnap_mount *m)
{
	char *first = *pos, before = ' ', after;
	bool unknown = false, pf = false;
	unsigned rank = 0;
	struct tok t;
	uint32_t v;

	m->propagation = 0;
	for (;; before = after) {
		if (!next_field(pos, end, &t, &after)) {
			/* "... rw -" with nothing after the separator */
			if (end - *pos == 1 && **pos == '-' && before == ' ')
				return bad(P, "fs type", "missing");
			return bad(P, "optional fields", "missing ' - ' separator");
		}
		if (is_separator(&t, before, after))
			break;
		unknown |= after != ' ';
		if (opt_num(&t, "shared:", 7, &v)) {
			m->propagation |= MNTSNAP_PROP_SHARED;
			m->peer_group = v;
			unknown |= !in_order(&t, 7, 1, &rank);
		} else if (opt_num(&t, "master:", 7, &v)) {
			m->propagation |= MNTSNAP_PROP_SLAVE;
			m->master = v;
			unknown |= !in_order(&t, 7, 2, &rank);
		} else if (opt_num(&t, "propagate_from:", 15, &v)) {
			m->propagate_from = v;
			pf = true;
			unknown |= !in_order(&t, 15, 3, &rank);
		} else if (TOK_IS(&t, "unbindable")) {
			m->propagation |= MNTSNAP_PROP_UNBINDABLE;
			unknown |= !in_order(&t, 10, 4, &rank);
		} else {
			/*
			 * two blanks in a row (no kernel writes it), or other
			 * tag[:value] fields: proc(5) says readers ignore them; a
			 * later kernel's (or a hand-made) tag is kept all the same,
			 * with the fields around it as written, so the line renders
			 * back
			 */
			unknown = true;
			known_tag_kind(&t, m);
		}
	}
	if (!m->propagation)
		m->propagation = MNTSNAP_PROP_PRIVATE;
	if (pf && (!(m->propagation & MNTSNAP_PROP_SLAVE) || !m->propagate_from ||
		   m->propagate_from == m->master))
		unknown = true;
	/*
	 * the text is what lies before the separator's space: none when the
	 * "-" comes first or right after a second space ("rw  - tmpfs"), as
	 * libmount reads it
	 */
	if (unknown && t.p - 1 > first) {
		t.p[-1] = '\0'; /* the space before "-": parsed already */
		m->opt_fields = first;
	}
	return 0;
}

/*
 * Super options [p, end) whose first word is not ro or rw ("size=1k,rw",
 * "rwx", "size=1k"): no kernel writes them (the superblock's ro/rw comes
 * first), libmount reads them as text, so findmnt lists them as written
 * and merges them into OPTIONS. Kept as written (sb_opts_text); the first
 * option that is exactly ro or rw gives sb_flags (none: rw, as libmount's
 * OPTIONS says), and options are the others, as written, so that a
 * reader without the text still has every fs option.
 */
static int parse_sb_text(struct mi_parser *P, char *p, char *end, struct mntsnap_mount *m)
{
	size_t len = (size_t)(end - p), at = 0, e = 0;
	char *n;

	for (; at < len; at = e + 1) {
		const char *c = memchr(p + at, ',', len - at);

		e = c ? (size_t)(c - p) : len;
		if (e - at == 2 && p[at] == 'r' && (p[at + 1] == 'o' || p[at + 1] == 'w'))
			break;
	}
	if (len + 1 > P->sb_rest_cap) {
		n = realloc(P->sb_rest, len + 256);
		if (!n)
			return mntsnap__set_error(P->err, -ENOMEM, P->line, "out of memory");
		P->sb_rest = n;
		P->sb_rest_cap = len + 256;
	}
	m->sb_flags = at < len && p[at + 1] == 'o' ? MNTSNAP_SB_RDONLY : 0;
	if (at >= len) {
		memcpy(P->sb_rest, p, len);
		P->sb_rest[len] = '\0';
	} else {
		/* the word and a comma next to it: the one after, or before */
		size_t from = at, to = e < len ? e + 1 : e;

		if (e == len && at > 0)
			from--;
		memcpy(P->sb_rest, p, from);
		memcpy(P->sb_rest + from, p + to, len - to);
		P->sb_rest[from + len - to] = '\0';
	}
	*end = '\0';
	m->sb_opts_text = p;
	m->options = P->sb_rest;
	m->mask |= MNTSNAP_F_OPTS;
	return 0;
}

/*
 * Column 11: super options -> sb_flags and the escaped rest. The rest of
 * the line is the field: a raw space in it (an old cifs's unc=, or a
 * field a later kernel appends after it: "rw extra") is kept with what
 * follows, so the line renders back; after a bare ro/rw the kept text
 * starts with that space, and the renderers put no comma before it.
 * libmount stops the field at the blank (README keeps the difference:
 * no text of the line is dropped).
 */
static int parse_sb_opts(struct mi_parser *P, char *p, char *end, struct mntsnap_mount *m)
{
	static const struct {
		const char *w;
		size_t len;
		uint32_t flag;
	} words[] = {
		{ "sync", 4, MNTSNAP_SB_SYNCHRONOUS },
		{ "dirsync", 7, MNTSNAP_SB_DIRSYNC },
		/* kept (not dropped) so that rendering gives the same text back:
		 * "ro,mand,dirsync" has fs option "dirsync", not the flag */
		{ "mand", 4, MNTSNAP_SB_MANDLOCK },
		{ "lazytime", 8, MNTSNAP_SB_LAZYTIME },
	};
	size_t len = (size_t)(end - p);
	char *field = p;

	if (len >= 2 && !memcmp(p, "ro", 2))
		m->sb_flags = MNTSNAP_SB_RDONLY;
	else if (len >= 2 && !memcmp(p, "rw", 2))
		m->sb_flags = 0;
	else
		return parse_sb_text(P, p, end, m);
	p += 2;
	if (p < end && *p == ' ') {
		const char *q = p;

		while (q < end && *q == ' ')
			q++;
		if (q == end)
			return bad(P, "super options", "blanks after ro/rw and nothing else");
		*end = '\0'; /* kept escaped, verbatim, the space included */
		m->options = p;
		m->mask |= MNTSNAP_F_OPTS;
		return 0;
	}
	if (p < end && *p != ',')
		return parse_sb_text(P, field, end, m);
	/* the kernel prints these flags in this order before any fs option */
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]) && p < end; i++) {
		size_t wl = words[i].len;

		if ((size_t)(end - p) >= wl + 1 && !memcmp(p + 1, words[i].w, wl) &&
		    (p + 1 + wl == end || p[1 + wl] == ',')) {
			m->sb_flags |= words[i].flag;
			p += 1 + wl;
		}
	}
	m->options = "";
	m->mask |= MNTSNAP_F_OPTS;
	if (p < end) {
		p++; /* the comma */
		/*
		 * "rw, x" (an empty option, then text after a blank) would
		 * render back as a bare rw's "rw x": kept as written instead,
		 * as libmount reads it up to the blank (README: the rest kept)
		 */
		if (p < end && *p == ' ')
			return parse_sb_text(P, field, end, m);
		*end = '\0'; /* kept escaped, verbatim */
		/*
		 * "rw," (an empty last option after the flags): no fs option,
		 * and no options string renders that comma, so the field is
		 * kept as written, as libmount reads it (FS-OPTIONS "rw,")
		 */
		if (p == end)
			m->sb_opts_text = field;
		else
			m->options = p;
	}
	return 0;
}

static int parse_dev(struct mi_parser *P, const struct tok *t, struct mntsnap_mount *m)
{
	const char *colon = memchr(t->p, ':', t->len);

	if (!colon || !parse_u32(t->p, (size_t)(colon - t->p), &m->dev_major) ||
	    !parse_u32(colon + 1, t->len - (size_t)(colon - t->p) - 1, &m->dev_minor))
		return bad(P, "major:minor", "not MAJOR:MINOR");
	return 0;
}

/* How many '.' the n bytes at s hold. */
static size_t count_dots(const char *s, size_t n)
{
	size_t k = 0;

	while (n--)
		k += *s++ == '.';
	return k;
}

/*
 * An fs type with an empty part around its first '.' ("tmpfs.", "fuse.",
 * ".x", "..x", "."): the whole field is the type and there is no subtype,
 * as libmount keeps the field as written. No kernel writes one
 * (do_new_mount() refuses an empty subtype, "tmpfs." mounts as "tmpfs", no
 * type's name is empty); a hand-made line reads as findmnt reads it. Every
 * '.' in it must be a raw one (show_type() never escapes '.'), so that the
 * record renders back to this text and reads back as the same whole type:
 * its first '.' is still at the start or at the end.
 */
static int parse_fstype_whole(struct mi_parser *P, const struct tok *t, struct mntsnap_mount *m)
{
	size_t raw = count_dots(t->p, t->len); /* before the escapes decode in place */
	int r = 0;

	m->fs_type = str_field(P, t->p, t->len, t->esc, "fs type", &r);
	if (!m->fs_type)
		return r;
	if (count_dots(m->fs_type, strlen(m->fs_type)) != raw)
		return bad(P, "fs type", "escaped '.' (the kernel never escapes it)");
	m->mask |= MNTSNAP_F_FS_TYPE | MNTSNAP_F_FS_SUBTYPE;
	m->fs_subtype = "";
	return 0;
}

/* fs type, split at the first '.' into type and subtype. */
static int parse_fstype(struct mi_parser *P, const struct tok *t, struct mntsnap_mount *m)
{
	char *dot = t->p, *end = t->p + t->len;
	size_t tl;

	while (dot < end && *dot != '.')
		dot++;
	if (dot == end)
		dot = NULL;
	tl = dot ? (size_t)(dot - t->p) : t->len;
	int r = 0;

	if (!t->len)
		return bad(P, "fs type", "empty");
	if (dot && (!tl || tl + 1 == t->len))
		return parse_fstype_whole(P, t, m);
	m->fs_type = str_field(P, t->p, tl, t->esc, "fs type", &r);
	if (!m->fs_type)
		return r;
	/*
	 * A '.' in the type can only have come from "\056": the kernel never
	 * escapes '.', and a raw one separates the subtype. Accepting it would
	 * render as a raw '.' that reads back as a subtype (found by fuzzing).
	 */
	if (strchr(m->fs_type, '.'))
		return bad(P, "fs type", "escaped '.' (the kernel never escapes it)");
	m->mask |= MNTSNAP_F_FS_TYPE | MNTSNAP_F_FS_SUBTYPE;
	m->fs_subtype = "";
	if (dot && tl + 1 < t->len) {
		m->fs_subtype = str_field(P, dot + 1, t->len - tl - 1, t->esc, "fs subtype", &r);
		if (!m->fs_subtype)
			return r;
	}
	return 0;
}

static int ensure_scratch(struct mi_parser *P, size_t need)
{
	char *n;

	if (need <= P->scratch_cap)
		return 0;
	n = realloc(P->scratch, need + 256);
	if (!n)
		return mntsnap__set_error(P->err, -ENOMEM, P->line, "out of memory");
	P->scratch = n;
	P->scratch_cap = need + 256;
	return 0;
}

/* The fields of one line, up to the separator. */
static int parse_head(struct mi_parser *P, char **pos, char *end, struct mntsnap_mount *m)
{
	struct tok t;
	int r = 0;

	if ((r = take(P, pos, end, &t, "mount id", "parent id")))
		return r;
	if (!parse_u32(t.p, t.len, &m->id_old))
		return bad(P, "mount id", "not a decimal number below 2^32");
	if ((r = take(P, pos, end, &t, "parent id", "major:minor")))
		return r;
	if (!parse_u32(t.p, t.len, &m->parent_id_old))
		return bad(P, "parent id", "not a decimal number below 2^32");
	if ((r = take(P, pos, end, &t, "major:minor", "root")))
		return r;
	r = parse_dev(P, &t, m);
	if (r)
		return r;
	if ((r = take(P, pos, end, &t, "root", "mount point")))
		return r;
	if (!t.len)
		return bad(P, "root", "empty");
	m->root = str_field(P, t.p, t.len, t.esc, "root", &r);
	if (!m->root)
		return r;
	if ((r = take(P, pos, end, &t, "mount point", "mount options")))
		return r;
	if (!t.len)
		return bad(P, "mount point", "empty");
	m->mount_point = str_field(P, t.p, t.len, t.esc, "mount point", &r);
	if (!m->mount_point)
		return r;
	if ((r = take(P, pos, end, &t, "mount options", "optional fields")))
		return r;
	if (!t.len)
		return bad(P, "mount options", "empty");
	parse_mnt_opts(&t, m);
	return parse_optional(P, pos, end, m);
}

/* One line [p, end), *end == '\n'; the line is rewritten in place. */
static int parse_line(struct mi_parser *P, char *p, char *end)
{
	struct mntsnap_mount *m = &P->m;
	struct tok t;
	long added;
	int r;

	m->peer_group = m->master = m->propagate_from = 0;
	m->fs_subtype = m->options = m->opt_fields = m->mnt_opts_text = m->sb_opts_text = NULL;
	m->mask = MNTSNAP_F_ID_OLD | MNTSNAP_F_DEV | MNTSNAP_F_SB_FLAGS | MNTSNAP_F_ATTR |
		 MNTSNAP_F_PROPAGATION | MNTSNAP_F_PROPAGATE_FROM | MNTSNAP_F_ROOT |
		 MNTSNAP_F_MOUNT_POINT | MNTSNAP_F_SOURCE;
	r = parse_head(P, &p, end, m);
	if (r)
		return r;
	if ((r = take(P, &p, end, &t, "fs type", "source")))
		return r;
	r = parse_fstype(P, &t, m);
	if (r)
		return r;
	/* the source may be empty ("tmpfs  rw"): an empty token is fine */
	if ((r = take(P, &p, end, &t, "source", "super options")))
		return r;
	m->source = str_field(P, t.p, t.len, t.esc, "source", &r);
	if (!m->source)
		return r;
	if (p == end)
		return bad(P, "super options", "missing");
	r = parse_sb_opts(P, p, end, m);
	if (r)
		return r;
	/* statmount sets a propagate_from only for slaves, and 0 for the master: so do we */
	if (!(m->propagation & MNTSNAP_PROP_SLAVE) || m->propagate_from == m->master)
		m->propagate_from = 0;
	if (P->ns_id) {
		m->ns_id = P->ns_id;
		m->mask |= MNTSNAP_F_NS_ID;
	}
	m->mask &= P->want;
	added = mntsnap__snap_add(P->s, m);
	if (added < 0)
		return mntsnap__set_error(P->err, (int)added, P->line, "line %u: storing the record: %s",
					 P->line, strerror((int)-added));
	return 0;
}

/* 1-based line number of byte pos. */
static unsigned line_of(const char *buf, const char *pos)
{
	unsigned n = 1;

	for (const char *p = buf; p < pos; p++) {
		p = memchr(p, '\n', (size_t)(pos - p));
		if (!p)
			break;
		n++;
	}
	return n;
}

/* Line of record i: storage order is line order, or its reverse. */
static unsigned rec_line(const struct mntsnap_snapshot *s, uint32_t i, bool reverse)
{
	return reverse ? s->nrecs - i : i + 1;
}

/*
 * Mount ids are unique within a table the kernel printed in one go, so a
 * repeated one in a live text is a tear (see capture_live()). Text from a
 * file or a buffer is taken as it is: real ones have repeated ids (moby's
 * fedora sample, where a line was appended by hand), and libmount and
 * moby read them; every line is kept and the snapshot is marked
 * inconsistent (parent links of a repeated id are ambiguous). by_old lists
 * records by id (NULL: storage is sorted). Returns true on a repeat; for
 * a live text the error names both lines.
 */
static bool check_ids(struct mi_parser *P, bool reverse)
{
	const struct mntsnap_snapshot *s = P->s;

	for (uint32_t i = 1; i < s->nrecs; i++) {
		uint32_t a = s->by_old ? s->by_old[i - 1] : i - 1;
		uint32_t b = s->by_old ? s->by_old[i] : i;
		unsigned la = rec_line(s, a, reverse), lb = rec_line(s, b, reverse);

		if (s->recs[a].id_old != s->recs[b].id_old)
			continue;
		P->dup_id = true;
		if (P->live) {
			P->line = la > lb ? la : lb;
			mntsnap__set_error(P->err, -EBADMSG, P->line,
					  "line %u: mount id: %u appears twice (also line %u)",
					  P->line, s->recs[a].id_old, la < lb ? la : lb);
		}
		return true;
	}
	return false;
}

static void reverse_records(struct mntsnap_snapshot *s)
{
	for (uint32_t i = 0, j = s->nrecs; i + 1 < j; i++, j--) {
		struct mntsnap_rec t = s->recs[i];

		s->recs[i] = s->recs[j - 1];
		s->recs[j - 1] = t;
	}
}

/*
 * Reject a NUL byte in [from, from + n). base starts the first line not
 * parsed yet (line P->line + 1), so the error can name the line.
 */
static int check_nul(struct mi_parser *P, const char *base, const char *from, size_t n)
{
	const char *nul = memchr(from, '\0', n);

	if (!nul)
		return 0;
	P->line += line_of(base, nul);
	return mntsnap__set_error(P->err, -EBADMSG, P->line, "line %u: NUL byte in the text",
				 P->line);
}

/*
 * Parse the complete lines of [buf, buf + len); returns the bytes used.
 * Lines are parsed in place, so a caller's const text is copied a line at
 * a time into the scratch buffer first (P->copy).
 */
static long parse_lines(struct mi_parser *P, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int r;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char *line = (char *)p;

		if (!nl)
			break;
		P->line++;
		if (nl == p)
			return mntsnap__set_error(P->err, -EBADMSG, P->line, "line %u: empty line",
						 P->line);
		if (P->copy) {
			r = ensure_scratch(P, (size_t)(nl - p) + 1);
			if (r)
				return r;
			memcpy(P->scratch, p, (size_t)(nl - p) + 1);
			line = P->scratch;
		}
		r = parse_line(P, line, line + (nl - p));
		if (r)
			return r;
		p = nl + 1;
	}
	return p - buf;
}

static int truncated(struct mi_parser *P)
{
	P->line++;
	return mntsnap__set_error(P->err, -EBADMSG, P->line,
				 "line %u: truncated line (no newline at the end)", P->line);
}

static int parser_init(struct mi_parser *P, uint32_t want, uint64_t ns_id,
		       struct mntsnap_error *err)
{
	memset(P, 0, sizeof(*P));
	P->err = err;
	P->ns_id = ns_id;
	P->want = want & MI_FIELDS;
	if (!ns_id)
		P->want &= ~MNTSNAP_F_NS_ID;
	P->s = mntsnap__snap_new(MNTSNAP_BACKEND_MOUNTINFO, P->want);
	if (!P->s)
		return mntsnap__set_error(err, -ENOMEM, 0, "out of memory");
	mntsnap__snap_stamp(P->s);
	P->s->ns_id = ns_id;
	return 0;
}

/* Link the tree and hand out the snapshot (r == 0), or drop it all. */
static int parser_done(struct mi_parser *P, int r, bool reverse,
		       struct mntsnap_snapshot **ret_snap)
{
	if (!r) {
		if (reverse)
			reverse_records(P->s);
		r = mntsnap__snap_finish(P->s);
		if (r == -ENOMEM)
			mntsnap__set_error(P->err, r, 0, "out of memory");
		else if (check_ids(P, reverse) && P->live)
			r = -EBADMSG;
		else if (r)
			mntsnap__set_error(P->err, r, 0, "parent ids form a cycle");
		else if (P->dup_id)
			P->s->consistent = 0;
	}
	free(P->scratch);
	free(P->sb_rest);
	if (r) {
		mntsnap__snapshot_free(P->s);
		return r;
	}
	*ret_snap = P->s;
	return 0;
}

/*
 * The whole text: one record per line. Counting the lines first (memchr,
 * cheap) lets the snapshot reserve its arrays once: growing them as lines
 * come would copy every record about once more and touch twice the pages.
 */
static int parse_text(struct mi_parser *P, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	uint32_t lines = 0;
	long used;
	int r;

	if (!len)
		return 0;
	r = check_nul(P, buf, buf, len);
	if (r)
		return r;
	while ((p = memchr(p, '\n', (size_t)(end - p)))) {
		p++;
		lines++;
	}
	/* strings of a line are never longer than the line */
	r = mntsnap__snap_reserve(P->s, lines, (uint32_t)len);
	if (r)
		return mntsnap__set_error(P->err, r, 0, "out of memory");
	used = parse_lines(P, buf, len);
	if (used < 0)
		return (int)used;
	if ((size_t)used < len)
		return truncated(P);
	return 0;
}

int mntsnap__mountinfo_parse(const char *buf, size_t len, uint32_t want, uint32_t flags,
			    uint64_t ns_id, struct mntsnap_error *err,
			    struct mntsnap_snapshot **ret_snap)
{
	struct mi_parser P;
	int r;

	if (!buf && len)
		return mntsnap__set_error(err, -EINVAL, 0, "no buffer");
	if (len > MAX_TEXT)
		return mntsnap__set_error(err, -E2BIG, 0, "mountinfo text over 2 GiB");
	r = parser_init(&P, want, ns_id, err);
	if (r)
		return r;
	P.copy = true;
	r = parse_text(&P, buf, len);
	return parser_done(&P, r, flags & MNTSNAP_CAPTURE_REVERSE, ret_snap);
}

int mntsnap_parse_mountinfo(const char *buf, size_t len, const struct mntsnap_capture_opts *opts,
			    struct mntsnap_snapshot **ret_snap)
{
	struct mntsnap_capture_opts o = { .sz = sizeof(o) };
	int r;

	if (!ret_snap)
		return -EINVAL;
	r = OPTS_LOAD_ERR(&o, opts, "mntsnap_capture_opts");
	if (r)
		return r;
	return mntsnap__mountinfo_parse(buf, len, o.mask ? o.mask : MNTSNAP_MASK_DEFAULT, o.flags,
				       0, o.error, ret_snap);
}

/* ---- reading the text -------------------------------------------------- */

/*
 * Read the whole text into *ret_buf (parsed in place later, so no line is
 * copied). st_size sizes the buffer of a regular file exactly; /proc files
 * say 0 and hand out mountinfo about a page per read(). Memory is bounded
 * by what can be mountinfo: a NUL byte (never in the kernel's text; all of
 * /dev/zero) or a first byte that cannot start a mount id is refused as
 * soon as it is read, and the buffer never grows past MAX_TEXT + 1.
 */
static int read_text(struct mi_parser *P, int fd, char **ret_buf, size_t *ret_len)
{
	size_t cap = READ_CHUNK, have = 0;
	struct stat st;
	char *buf;
	int r = 0;

	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < MAX_TEXT - 4096)
		cap = (size_t)st.st_size + 4096;
	buf = malloc(cap);
	if (!buf)
		return mntsnap__set_error(P->err, -ENOMEM, 0, "out of memory");
	for (;;) {
		ssize_t n;

		if (cap - have < 4096) {
			size_t ncap = cap > MAX_TEXT / 2 ? MAX_TEXT + 1 : cap * 2;
			char *nb;

			if (have > MAX_TEXT) {
				r = mntsnap__set_error(P->err, -E2BIG, 0,
						      "mountinfo text: more than 2 GiB, not a mount table");
				break;
			}
			nb = realloc(buf, ncap);
			if (!nb) {
				r = mntsnap__set_error(P->err, -ENOMEM, 0, "mountinfo text: out of memory");
				break;
			}
			buf = nb;
			cap = ncap;
		}
		n = read(fd, buf + have, cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			mntsnap__set_error(P->err, r, 0, "reading mountinfo: %s", strerror(-r));
			break;
		}
		if (!n)
			break;
		if (!have && (unsigned)(buf[0] - '0') > 9) {
			P->line = 1;
			r = bad(P, "mount id", "not a decimal number (is this mountinfo text?)");
			break;
		}
		r = check_nul(P, buf, buf + have, (size_t)n);
		if (r)
			break;
		have += (size_t)n;
	}
	if (r) {
		free(buf);
		return r;
	}
	*ret_buf = buf;
	*ret_len = have;
	return 0;
}

/*
 * Read and parse a text that does not change (a file): one pass. A file
 * someone wrote (printf, an editor) may end its last line without '\n':
 * that line is read as if it had one, as libmount reads it. Only here:
 * the kernel ends every line of its own text, so a live read that stops
 * inside a line is a short read and stays an error (parse_text()).
 * read_text() leaves at least 4096 bytes free behind the text.
 */
static int parse_fd(struct mi_parser *P, int fd)
{
	size_t have = 0;
	char *buf = NULL;
	int r = read_text(P, fd, &buf, &have);

	if (!r && have && buf[have - 1] != '\n')
		buf[have++] = '\n';
	if (!r)
		r = parse_text(P, buf, have);
	free(buf);
	return r;
}

/*
 * A live /proc/PID/mountinfo is produced a page or so per read(): each
 * read is consistent on its own, the sequence is not. A mount or umount
 * between two reads tears the text: a mount missing, or listed twice when
 * a new mount got the 32-bit id of one that left (the kernel recycles
 * them). The kernel bumps the namespace's event counter on every mount,
 * umount, move and remount in it (or propagated into it), and the open
 * file reports POLLPRI once the counter moved since the open or the last
 * poll. So: read, poll, and read again from offset 0 while it fired, like
 * the statmount backend's retries (same max_retries and flags). A
 * duplicate id is taken as a tear even if the poll missed it; any other
 * malformed text is an error only when it was read quietly.
 */
#define LIVE_READ_CAP 8 /* x tries: reads allowed while no table could be built */

static bool text_changed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };
	int r;

	do
		r = poll(&p, 1, 0);
	while (r < 0 && errno == EINTR);
	return r > 0 && (p.revents & (POLLPRI | POLLERR));
}

/*
 * MNTSNAP_CAPTURE_STRICT: a change of propagation type alone moves no
 * event counter, so POLLPRI cannot see it; two successive quiet reads
 * must then give the same text, byte for byte.
 */
struct strict_text {
	char *prev, *cur; /* the last quiet read's text, and this read's */
	size_t prev_len, cur_len;
};

static int strict_keep(struct strict_text *t, const char *buf, size_t len,
		       struct mntsnap_error *err)
{
	free(t->cur);
	t->cur = malloc(len + 1);
	if (!t->cur)
		return mntsnap__set_error(err, -ENOMEM, 0, "out of memory");
	memcpy(t->cur, buf, len);
	t->cur_len = len;
	return 0;
}

/* A quiet read (r 1) counts only when its text equals the previous one's. */
static int strict_pair(struct strict_text *t, int r)
{
	bool same = r == 1 && t->prev && t->cur && t->prev_len == t->cur_len &&
		    !memcmp(t->prev, t->cur, t->cur_len);

	free(t->prev);
	t->prev = r == 1 ? t->cur : NULL; /* a torn read restarts the pair */
	t->prev_len = t->cur_len;
	if (r != 1)
		free(t->cur);
	t->cur = NULL;
	return same ? 1 : 0;
}

/*
 * One read of the live text: 1 quiet, 0 torn (*ret_snap may be NULL), < 0.
 * *ret_quiet_dup: an id listed twice although nothing changed (retried all
 * the same; the error if no read ever yields a table).
 */
static int live_once(int fd, const struct mntsnap_capture_opts *o, uint32_t want,
		     uint64_t ns_id, struct mntsnap_error *err, struct mntsnap_snapshot **ret_snap,
		     bool *ret_quiet_dup, struct strict_text *t, bool lenient)
{
	struct mntsnap_snapshot *snap = NULL;
	struct mi_parser P;
	size_t have = 0;
	char *buf = NULL;
	bool changed;
	int r;

	*ret_snap = NULL;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return mntsnap__set_error(err, -errno, 0, "mountinfo: seek: %s", strerror(errno));
	r = parser_init(&P, want, ns_id, err);
	if (r)
		return r;
	/* lenient: a repeated id is kept, as in a file, and flags the table */
	P.live = !lenient;
	r = read_text(&P, fd, &buf, &have);
	changed = text_changed(fd);
	if (!r && t && !changed)
		r = strict_keep(t, buf, have, err); /* parsing rewrites buf */
	if (!r)
		r = parse_text(&P, buf, have);
	free(buf);
	r = parser_done(&P, r, o->flags & MNTSNAP_CAPTURE_REVERSE, &snap);
	*ret_quiet_dup = r == -EBADMSG && P.dup_id && !changed;
	if (r == -EBADMSG && (changed || P.dup_id))
		return 0; /* torn: no table from this read, and no error */
	if (r)
		return r;
	*ret_snap = snap;
	return changed ? 0 : 1;
}

/*
 * Reads until one is quiet (STRICT: two successive quiet reads with the
 * same text), at most max_retries + 1 (default 4; + 1 for STRICT); then the
 * last table that could be built, marked inconsistent, or -EAGAIN with
 * MNTSNAP_CAPTURE_CONSISTENT. Torn reads that yield no table at all do
 * not end the loop before LIVE_READ_CAP times that.
 */
static int capture_live(int fd, const struct mntsnap_capture_opts *o, uint32_t want,
			uint64_t ns_id, struct mntsnap_snapshot **ret_snap)
{
	unsigned max = o->max_retries ? o->max_retries : 3, limit, n;
	bool strict = o->flags & MNTSNAP_CAPTURE_STRICT, quiet_dup = false;
	struct mntsnap_snapshot *last = NULL, *snap;
	struct strict_text t = { 0 };
	struct mntsnap_error err = { 0 };
	int r = 0;

	/* strict needs two agreeing reads: one more try than retries */
	if (max > UINT_MAX / LIVE_READ_CAP - 2)
		max = UINT_MAX / LIVE_READ_CAP - 2;
	max += strict ? 2 : 1;
	limit = max * LIVE_READ_CAP;
	text_changed(fd); /* latch: only changes from the first read on count */
	for (n = 1; n <= limit; n++) {
		r = live_once(fd, o, want, ns_id, &err, &snap, &quiet_dup, strict ? &t : NULL,
			      false);
		if (r < 0)
			break;
		if (strict)
			r = strict_pair(&t, r);
		if (snap) {
			mntsnap__snapshot_free(last);
			last = snap;
		}
		if (r == 1 || (n >= max && last))
			break;
	}
	/*
	 * Every read was torn by a repeated id (a busy namespace reuses old
	 * ids between the pages of one read): rather than fail, which only
	 * CONSISTENT may do, one more read keeps the repeated lines, as the
	 * text of a file would, and comes back marked inconsistent.
	 */
	if (r == 0 && !last && !quiet_dup && !(o->flags & MNTSNAP_CAPTURE_CONSISTENT)) {
		r = live_once(fd, o, want, ns_id, &err, &last, &quiet_dup, NULL, true);
		/* quiet and whole: a table; else (or unpaired for STRICT) flagged */
		if (r > 0 && (strict || last->consistent == 0))
			r = 0;
	}
	free(t.prev);
	free(t.cur);
	if (r < 0 || !last || (r == 0 && (o->flags & MNTSNAP_CAPTURE_CONSISTENT))) {
		if (r >= 0 && !last && quiet_dup)
			r = -EBADMSG; /* the same repeated id, read after read: err says */
		else if (r >= 0)
			r = mntsnap__set_error(&err, -EAGAIN, 0,
					      strict ? "no two successive reads of its mountinfo "
						       "agreed in %u tries"
						     : "the mount table kept changing during %u reads "
						       "of its mountinfo",
					      n > limit ? limit : n);
		mntsnap__snapshot_free(last);
		if (o->error)
			*o->error = err;
		return r;
	}
	last->consistent = r;
	last->attempts = n;
	*ret_snap = last;
	return 0;
}

static int open_ro(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	return fd < 0 ? -errno : fd;
}

/*
 * Every /proc file below is read relative to proc, an O_PATH fd of a
 * procfs root (open_procfs_root): /proc belongs to the mount namespace,
 * and a caller inside a target (mntsnap_ns_enter) would otherwise read
 * the target's, where fdinfo, mountinfo and ns/mnt can all be made up.
 */
static int proc_open(int proc, const char *rel, int flags)
{
	int fd = openat(proc, rel, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	return fd < 0 ? -errno : fd;
}

/*
 * rel below the procfs root dfd, read-only: the lookup may not cross a
 * mount (a bind mount over a /proc file, or a tmpfs over a /proc/PID
 * directory: a namespace's owner may cover any directory of its procfs)
 * and the result must be procfs. Every mountinfo text is opened so.
 */
static int openat2_procfs(int dfd, const char *rel)
{
	int fd = mntsnap__proc_openat(dfd, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK,
				      MNTSNAP_RESOLVE_NO_MAGICLINKS);

	return fd == -EXDEV ? -ENOENT : fd;
}

/*
 * O_PATH fd of PID/ns below the procfs root proc, never through a mount
 * covering /proc/PID or its ns directory: a cover's "mnt" may be a
 * symlink to any namespace's file, making any process seem to be in the
 * target (and its real text, of another namespace, the target's). -errno.
 */
static int pid_ns_dir(int proc, int pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%d/ns", pid);
	fd = mntsnap__proc_openat(proc, path, O_PATH | O_DIRECTORY, MNTSNAP_RESOLVE_NO_SYMLINKS);
	return fd == -EXDEV ? -ENOENT : fd;
}

/* Is PID/ns/mnt the namespace nsfd names? */
static int same_ns(int proc, int pid, int nsfd)
{
	int dir = pid_ns_dir(proc, pid), r;
	struct stat a, b;

	if (dir < 0)
		return dir;
	r = fstatat(dir, "mnt", &a, 0) || fstat(nsfd, &b) ? -errno : 0;
	close(dir);
	if (r)
		return r;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * Namespace id of an ns/mnt file below proc, 0 when the kernel cannot
 * tell (< 6.11) or it is no nsfs file: asked no ioctl before fstatfs
 * says nsfs.
 */
static uint64_t ns_id_of(const struct mntsnap_sysops *sys, int proc, const char *rel)
{
	int fd = proc_open(proc, rel, O_RDONLY);
	struct statfs sf;
	uint64_t id = 0;

	if (fd < 0)
		return 0;
	if (fstatfs(fd, &sf) || sf.f_type != MNTSNAP_NSFS_MAGIC ||
	    sys->ioctl(sys->ctx, fd, MNTSNAP_NS_GET_MNTNS_ID, &id) < 0)
		id = 0;
	close(fd);
	return id;
}

/* Is pid in ns? By nsfs inode when the handle has an fd, else by id. */
static bool pid_in_ns(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys, int proc,
		      int pid)
{
	uint64_t id;
	int dir;

	if (ns->nsfd >= 0)
		return same_ns(proc, pid, ns->nsfd) == 1;
	if (!ns->ns_id)
		return false;
	dir = pid_ns_dir(proc, pid);
	if (dir < 0)
		return false;
	id = ns_id_of(sys, dir, "mnt");
	close(dir);
	return id == ns->ns_id;
}

/*
 * PID/mountinfo of the caller's procfs if PID is in ns, else < 0.
 * A pidfd taken first pins the process: still running after the open,
 * it was the process the /proc entry named, not a successor reusing the
 * pid; still in ns after the open, the text is of ns (the kernel fixes
 * the namespace at open). Without pidfd_open (before 5.3, or filtered)
 * the namespace checks before and after the open remain.
 */
static int open_pid_in_ns(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			  int proc, int pid)
{
	struct pollfd p = { .events = POLLIN };
	char path[64];
	int fd = -ESRCH;

	p.fd = (int)mntsnap__sys_pidfd_open(pid, 0);
	if (p.fd == -ESRCH)
		return -ESRCH;
	if (pid_in_ns(ns, sys, proc, pid)) {
		snprintf(path, sizeof(path), "%d/mountinfo", pid);
		fd = openat2_procfs(proc, path);
		if (fd >= 0 &&
		    ((p.fd >= 0 && poll(&p, 1, 0) != 0) || !pid_in_ns(ns, sys, proc, pid))) {
			close(fd); /* gone or moved on: look further */
			fd = -ESRCH;
		}
	}
	if (p.fd >= 0)
		close(p.fd);
	return fd;
}

/*
 * A handle without a process (nsfs path, fd or id): read the mountinfo
 * of any process found in that namespace by a scan of the caller's
 * procfs. The table is as that process sees it, relative to its root.
 */
static int open_scan_mountinfo(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			       int proc, struct mntsnap_error *err)
{
	int dfd = proc_open(proc, ".", O_RDONLY | O_DIRECTORY);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *e;
	int fd = -ESRCH;

	if (!d) {
		int r = dfd < 0 ? dfd : -errno;

		if (dfd >= 0)
			close(dfd);
		return mntsnap__set_error(err, r, 0, "mountinfo: open /proc: %s", strerror(-r));
	}
	while (fd < 0 && (e = readdir(d))) {
		uint32_t pid;

		if (!parse_u32(e->d_name, strlen(e->d_name), &pid) || !pid || pid > INT32_MAX ||
		    !pid_in_ns(ns, sys, proc, (int)pid))
			continue;
		fd = open_pid_in_ns(ns, sys, proc, (int)pid);
	}
	closedir(d);
	if (fd < 0)
		return mntsnap__set_error(err, -ESRCH, 0,
					 "mountinfo backend: no process to be found in the target "
					 "namespace (its mountinfo text needs one)");
	return fd;
}

/*
 * The mountinfo of a handle's task named by its procfs directory: that
 * directory holds the task itself, not its number, so the text is the
 * task's or none. Still the handle's namespace after the open (the
 * kernel fixes it then): the task may have setns()'d since.
 */
static int open_piddir_mountinfo(const struct mntsnap_ns *ns, struct mntsnap_error *err)
{
	struct stat a, b;
	int fd, dir;

	fd = openat2_procfs(ns->piddir, "mountinfo");
	if (fd < 0)
		return mntsnap__set_error(err, fd == -ENOENT ? -ESRCH : fd, 0,
					 "mountinfo: the target process: %s", strerror(-fd));
	if (ns->nsfd < 0)
		return fd;
	dir = mntsnap__proc_openat(ns->piddir, "ns", O_PATH | O_DIRECTORY,
				   MNTSNAP_RESOLVE_NO_SYMLINKS);
	if (dir < 0 || fstatat(dir, "mnt", &a, 0) || fstat(ns->nsfd, &b) ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		if (dir >= 0)
			close(dir);
		close(fd);
		return mntsnap__set_error(err, -ESRCH, 0,
					 "mountinfo: the target process exited or left the namespace");
	}
	close(dir);
	return fd;
}

/*
 * Open the mountinfo of the process behind a namespace handle's pidfd.
 * The pid is read from the pidfd and checked again after the open: if the
 * process still lives then, the /proc entry we opened was that process,
 * not a reuse of its pid. The namespace must still be the handle's.
 */
static int open_pidfd_mountinfo(const struct mntsnap_ns *ns, int proc,
				struct mntsnap_error *err)
{
	char path[64];
	int pid, fd, r;

	if (ns->piddir >= 0)
		return open_piddir_mountinfo(ns, err);
	pid = mntsnap__pidfd_pid(proc, ns->pidfd);
	if (pid < 0)
		return mntsnap__set_error(err, pid, 0, "mountinfo: the target process: %s",
					 strerror(-pid));
	snprintf(path, sizeof(path), "%d/mountinfo", pid);
	fd = openat2_procfs(proc, path);
	if (fd < 0)
		return mntsnap__set_error(err, fd, 0, "mountinfo: open /proc/%s: %s", path,
					 strerror(-fd));
	r = mntsnap__pidfd_pid(proc, ns->pidfd);
	if (r == pid && ns->nsfd >= 0)
		r = same_ns(proc, pid, ns->nsfd) == 1 ? pid : -ESRCH;
	if (r != pid) {
		close(fd);
		return mntsnap__set_error(err, -ESRCH, 0,
					 "mountinfo: process %d exited or left the namespace", pid);
	}
	return fd;
}

/* /proc, O_PATH, if it is the root of a procfs; else -ENOENT. */
static int open_procfs_root(void)
{
	int fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct statfs sf;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sf) || sf.f_type != MNTSNAP_PROC_SUPER_MAGIC || fstat(fd, &st) ||
	    st.st_ino != 1 /* PROC_ROOT_INO */) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

int mntsnap__mountinfo_open_pid(const struct mntsnap_ns *ns)
{
	int proc = open_procfs_root(), fd;

	if (proc < 0)
		return proc;
	fd = open_pidfd_mountinfo(ns, proc, NULL);
	close(proc);
	return fd;
}

int mntsnap__mountinfo_open_own(void)
{
	int dfd = open_procfs_root(), fd;

	if (dfd < 0)
		return dfd;
	/* thread-self: a thread that setns()'d reads its own namespace */
	fd = openat2_procfs(dfd, "thread-self/mountinfo");
	close(dfd);
	return fd;
}

int mntsnap__mountinfo_open_inside(const struct mntsnap_ns *ns)
{
	int fd;

	if (ns->host_proc < 0)
		return -ENOENT;
	/*
	 * The helper is a process of the caller's pid namespace, so the
	 * caller's procfs knows it as thread-self (its own pid would not
	 * do: a caller that unshared CLONE_NEWPID has children numbered in
	 * the new namespace). O_NONBLOCK costs nothing on a procfs file.
	 */
	fd = openat2_procfs(ns->host_proc, "thread-self/mountinfo");
	return fd;
}

/* Pick and open the text for o; *ret_ns_id gets the namespace id if known. */
static int open_source(const struct mntsnap_capture_opts *o, const struct mntsnap_sysops *sys,
		       uint64_t *ret_ns_id)
{
	const struct mntsnap_ns *ns = o->ns;
	int fd, proc;

	*ret_ns_id = 0;
	if (o->mountinfo_path) {
		if (ns)
			return mntsnap__set_error(o->error, -EINVAL, 0,
						 "mountinfo_path and a target namespace exclude each other");
		fd = open_ro(o->mountinfo_path);
		if (fd < 0)
			return mntsnap__set_error(o->error, fd, 0, "open %s: %s",
						 o->mountinfo_path, strerror(-fd));
		return fd;
	}
	if (ns && ns->inside) {
		fd = mntsnap__mountinfo_open_inside(ns);
		if (fd < 0 && ns->host_proc < 0)
			return mntsnap__set_error(o->error, fd, 0,
						 "mountinfo: the caller has no procfs at /proc to "
						 "read the target's text from (the target's own "
						 "/proc is never read)");
		if (fd < 0)
			return mntsnap__set_error(o->error, fd, 0,
						 "mountinfo: thread-self/mountinfo in the caller's "
						 "procfs: %s", strerror(-fd));
		*ret_ns_id = ns->ns_id;
		return fd;
	}
	if (!ns || ns->self) {
		fd = mntsnap__mountinfo_open_own();
		if (fd < 0)
			return mntsnap__set_error(o->error, fd, 0,
						 "mountinfo: /proc/thread-self/mountinfo of a procfs "
						 "mounted at /proc: %s (a /proc that is no procfs, or "
						 "one of another pid namespace, is not read)",
						 strerror(-fd));
		proc = open_procfs_root();
		*ret_ns_id = ns && ns->ns_id ? ns->ns_id
			   : proc < 0 ? 0 : ns_id_of(sys, proc, "thread-self/ns/mnt");
		if (proc >= 0)
			close(proc);
		return fd;
	}
	proc = open_procfs_root();
	if (proc < 0)
		return mntsnap__set_error(o->error, proc, 0,
					 "mountinfo: no procfs mounted at /proc to read the "
					 "target's text from (a /proc that is none is not read)");
	fd = mntsnap_ns_has_task(ns) ? open_pidfd_mountinfo(ns, proc, o->error)
			    : open_scan_mountinfo(ns, sys, proc, o->error);
	close(proc);
	if (fd >= 0)
		*ret_ns_id = ns->ns_id;
	return fd;
}

int mntsnap__mountinfo_capture_fd(int fd, const struct mntsnap_capture_opts *o, uint32_t want,
				  struct mntsnap_snapshot **ret_snap)
{
	return capture_live(fd, o, want, 0, ret_snap);
}

int mntsnap__mountinfo_capture(const struct mntsnap_capture_opts *o,
			      const struct mntsnap_sysops *sys, uint32_t want,
			      struct mntsnap_snapshot **ret_snap)
{
	struct mi_parser P;
	uint64_t ns_id;
	int fd, r;

	if (o->under_id)
		return mntsnap__set_error(o->error, -EOPNOTSUPP, 0,
					 "mountinfo has no unique mount ids: under_id needs statmount");
	fd = open_source(o, sys, &ns_id);
	if (fd < 0)
		return fd;
	/* a file names text that does not change: parsed once, as it is */
	if (!o->mountinfo_path) {
		r = capture_live(fd, o, want, ns_id, ret_snap);
		close(fd);
		return r;
	}
	r = parser_init(&P, want, ns_id, o->error);
	if (r) {
		close(fd);
		return r;
	}
	r = parse_fd(&P, fd);
	close(fd);
	return parser_done(&P, r, o->flags & MNTSNAP_CAPTURE_REVERSE, ret_snap);
}
