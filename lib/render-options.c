// SPDX-License-Identifier: MIT
/*
 * A mount's options as findmnt (libmount) shows them for a mountinfo
 * line: VFS-OPTIONS (column 6), FS-OPTIONS (the super options, \ooo
 * unescaped as libmount unescapes them) and OPTIONS, libmount's merge of
 * the two: "vfs,fs" with the first two "rw" removed, then as many "ro"
 * as keep the removed rw/ro at two, and "ro" (if one went) or "rw" put in
 * front; two equal strings give one of them. Options are found as
 * libmount finds them: a double-quoted part keeps its commas, and from a
 * quote that never closes on there is no option to find.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mntsnap.h"
#include "render.h"

struct sbuf {
	char *p;
	size_t len, cap;
};

static void put(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n <= b->cap)
		memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void puts_(struct sbuf *b, const char *s)
{
	put(b, s, strlen(s));
}

static bool is_oct(char c)
{
	return c >= '0' && c <= '7';
}

/* libmount's unmangle: \ooo becomes the byte, anything else stays. */
static void put_unmangled(struct sbuf *b, const char *s)
{
	const char *run = s;

	while ((s = strchr(s, '\\'))) {
		if (is_oct(s[1]) && is_oct(s[2]) && is_oct(s[3])) {
			char c = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));

			put(b, run, (size_t)(s - run));
			put(b, &c, 1);
			s += 4;
			run = s;
		} else {
			s++;
		}
	}
	puts_(b, run);
}

static void put_fs(struct sbuf *b, const struct mntsnap_mount *m)
{
	/* parsed text the fields below would not give back ("rw,") */
	if (m->sb_opts_text && m->sb_opts_text[0]) {
		put_unmangled(b, m->sb_opts_text);
		return;
	}
	puts_(b, m->sb_flags & MNTSNAP_SB_RDONLY ? "ro" : "rw");
	if (m->sb_flags & MNTSNAP_SB_SYNCHRONOUS)
		puts_(b, ",sync");
	if (m->sb_flags & MNTSNAP_SB_DIRSYNC)
		puts_(b, ",dirsync");
	if (m->sb_flags & MNTSNAP_SB_MANDLOCK)
		puts_(b, ",mand");
	if (m->sb_flags & MNTSNAP_SB_LAZYTIME)
		puts_(b, ",lazytime");
	if ((m->mask & MNTSNAP_F_OPTS) && m->options[0]) {
		/* a parsed line's text after a bare ro/rw starts with its space */
		if (m->options[0] != ' ')
			puts_(b, ",");
		put_unmangled(b, m->options);
	}
}

/*
 * End of the option starting at i ("a="b,c"" stays whole, as in libmount),
 * or past n for an option whose double quote never closes: libmount's
 * option parser (mnt_optstr_parse_next()) runs to the string's end inside
 * the quote and reports no option there, so no "rw" or "ro" is found in
 * it or after it (super options 'rw=",b' keep their rw in OPTIONS).
 */
static size_t opt_end(const char *s, size_t i, size_t n, bool quotes)
{
	const char *c;
	bool q = false;

	if (!quotes) {
		c = memchr(s + i, ',', n - i);
		return c ? (size_t)(c - s) : n;
	}
	for (; i < n; i++) {
		if (s[i] == '"')
			q = !q;
		else if (s[i] == ',' && !q)
			break;
	}
	return q ? n + 1 : i;
}

/* The option [i, e) is named "r<second>", with or without =value. */
static bool opt_is_r(const char *s, size_t i, size_t e, char second)
{
	return e - i >= 2 && s[i] == 'r' && s[i + 1] == second && (e - i == 2 || s[i + 2] == '=');
}

/* An option's bytes [at, end) in a string being edited. */
struct span {
	size_t at, end;
};

/*
 * Cut the option [at, end) out of the n bytes at s with its comma: the one
 * after it, or for the last option the one before it. What is left is
 * always the other options joined by commas, so the order of cuts does
 * not matter. As libmount's mnt_optstr_remove_option_at(): when the cut
 * leaves the string ending right after a comma (the option was followed
 * by an empty last item: "a,ro,"), that comma goes too ("a").
 */
static void opt_cut(char *s, size_t *n, struct span o)
{
	bool last = o.end >= *n;
	size_t from = o.at, to = last ? o.end : o.end + 1;

	if (last && from > 0)
		from--;
	memmove(s + from, s + to, *n - to);
	*n -= to - from;
	if (!last && from == *n && from > 0 && s[from - 1] == ',')
		(*n)--;
}

/* The first option of the len bytes at s is exactly "rw". */
static bool starts_rw(const char *s, size_t len)
{
	return len >= 2 && s[0] == 'r' && s[1] == 'w' && (len == 2 || s[2] == ',');
}

/* Some option of the len bytes at s (",a,b", no quotes) is "rw" or "rw=...". */
static bool has_rw(const char *s, size_t len)
{
	for (size_t i = 0; i + 3 <= len; i++)
		if (s[i] == ',' && s[i + 1] == 'r' && s[i + 2] == 'w' &&
		    (i + 3 == len || s[i + 3] == ',' || s[i + 3] == '='))
			return true;
	return false;
}

size_t mntsnap__merge_options(const char *vfs, size_t vlen, const char *fs, size_t flen,
			      char *out)
{
	char *s = out + 3;
	size_t n = vlen + 1 + flen;
	struct span cut[2], rw_at[2], ro_at[2];
	int rw = 0, ro = 0, ncut = 0;
	bool quotes;

	/* two equal strings: libmount keeps one */
	if (vlen == flen && !memcmp(vfs, fs, vlen)) {
		memcpy(out, vfs, vlen);
		out[vlen] = '\0';
		return vlen;
	}
	/*
	 * Both start with a plain "rw" and vfs has no other (nearly every
	 * mount): those two go and nothing else does. A quote in vfs could carry its last option into
	 * fs, so then the general way.
	 */
	if (starts_rw(vfs, vlen) && starts_rw(fs, flen) && !memchr(vfs, '"', vlen) &&
	    !has_rw(vfs + 2, vlen - 2)) {
		memcpy(out, "rw", 2);
		memcpy(out + 2, vfs + 2, vlen - 2);
		memcpy(out + vlen, fs + 2, flen - 2);
		n = vlen + flen - 2;
		/*
		 * fs "rw,": cutting its rw leaves the string ending in a comma,
		 * which libmount's cut drops too ("rw,relatime" + "rw,")
		 */
		if (flen == 3)
			n = vlen;
		out[n] = '\0';
		return n;
	}
	/* "rw," + vfs + "," + fs, edited in place */
	memcpy(s, vfs, vlen);
	s[vlen] = ',';
	memcpy(s + vlen + 1, fs, flen);
	quotes = memchr(s, '"', n) != NULL;
	/*
	 * libmount removes the first two "rw" (name, or name=value), then,
	 * unless it found two, as many of the first "ro" as make two: one
	 * pass finds the first two of each (at most two are ever cut), and
	 * stops at the second "rw" (both strings usually start with one).
	 */
	for (size_t i = 0; i < n && rw < 2;) {
		size_t e = opt_end(s, i, n, quotes);

		if (e > n)
			break;
		if (opt_is_r(s, i, e, 'w')) {
			rw_at[rw++] = (struct span){ i, e };
		} else if (ro < 2 && opt_is_r(s, i, e, 'o')) {
			ro_at[ro++] = (struct span){ i, e };
		}
		i = e + 1;
	}
	for (int k = 0; k < rw; k++, ncut++)
		cut[ncut] = rw_at[k];
	ro = rw == 2 ? 0 : (ro < 2 - rw ? ro : 2 - rw);
	for (int k = 0; k < ro; k++, ncut++)
		cut[ncut] = ro_at[k];
	/* the later one first: the earlier one's offsets stay valid */
	if (ncut == 2 && cut[0].at < cut[1].at) {
		opt_cut(s, &n, cut[1]);
		opt_cut(s, &n, cut[0]);
	} else {
		for (int k = 0; k < ncut; k++)
			opt_cut(s, &n, cut[k]);
	}
	memcpy(out, ro ? "ro," : "rw,", 3);
	n = n ? 3 + n : 2;
	out[n] = '\0';
	return n;
}

size_t mntsnap__fs_options(const struct mntsnap_mount *m, char *buf, size_t len)
{
	struct sbuf b = { .p = buf, .cap = len };

	put_fs(&b, m);
	if (b.len < len)
		buf[b.len] = '\0';
	return b.len;
}

/*
 * The VFS (which 1) or FS (which 2) string into b. The VFS string goes
 * straight into b's room; when it does not fit, b's length grows past its
 * room by at least one more than the string needs, so the caller's
 * retry (a buffer of b's length) always has the room for it.
 */
static void put_part(struct sbuf *b, const struct mntsnap_mount *m, int which)
{
	size_t room = b->len < b->cap ? b->cap - b->len : 0, n;

	if (which == MNTSNAP_OPTIONS_FS) {
		put_fs(b, m);
		return;
	}
	n = mntsnap__vfs_options(m, room ? b->p + b->len : NULL, room);
	b->len += n < room ? n : n + 1;
}

/*
 * OPTIONS straight into buf when the merge's working room (vfs + fs + 4)
 * fits there: no copies through an intermediate buffer. 0 when it does
 * not fit, or the VFS or FS string is longer than its stack buffer here
 * (the result is never empty): then the general way.
 */
static size_t merged_in_place(const struct mntsnap_mount *m, char *buf, size_t len)
{
	char vfs[256], fs[512];
	size_t vl, fl;

	vl = mntsnap__vfs_options(m, vfs, sizeof(vfs));
	fl = mntsnap__fs_options(m, fs, sizeof(fs));
	if (vl >= sizeof(vfs) || fl >= sizeof(fs) || vl + fl + 4 > len)
		return 0;
	return mntsnap__merge_options(vfs, vl, fs, fl, buf);
}

long mntsnap__mount_options(const struct mntsnap_mount *m, int which, char *buf, size_t len)
{
	char stack[1024], *heap = NULL;
	struct sbuf b = { .p = stack, .cap = sizeof(stack) };
	size_t vlen, out;

	if (!m || (!buf && len) || which < MNTSNAP_OPTIONS_ALL || which > MNTSNAP_OPTIONS_FS)
		return -EINVAL;
	/* straight into buf when it has the room; else the general way below */
	if (which == MNTSNAP_OPTIONS_ALL && (out = merged_in_place(m, buf, len)))
		return (long)out;
	if (which == MNTSNAP_OPTIONS_FS && (out = mntsnap__fs_options(m, buf, len)) < len)
		return (long)out;
	for (;;) {
		b.len = 0;
		if (which != MNTSNAP_OPTIONS_ALL) {
			put_part(&b, m, which);
		} else {
			/* vfs and fs side by side, then merged behind them */
			put_part(&b, m, MNTSNAP_OPTIONS_VFS);
			vlen = b.len;
			put_part(&b, m, MNTSNAP_OPTIONS_FS);
			b.len += b.len + 4;
		}
		if (b.len <= b.cap)
			break;
		/* long super options: once more in a buffer that holds them */
		free(heap);
		heap = malloc(b.len);
		if (!heap)
			return -ENOMEM;
		b.cap = b.len;
		b.p = heap;
	}
	if (which == MNTSNAP_OPTIONS_ALL) {
		size_t total = (b.len - 4) / 2;

		out = mntsnap__merge_options(b.p, vlen, b.p + vlen, total - vlen, b.p + total);
		memmove(b.p, b.p + total, out);
		b.len = out;
	}
	if (len) {
		size_t k = b.len < len ? b.len : len - 1;

		memcpy(buf, b.p, k);
		buf[k] = '\0';
	}
	free(heap);
	return (long)b.len;
}

long mntsnap_mount_options(const struct mntsnap_mount *m, int which, char *buf, size_t len)
{
	return mntsnap__mount_options(m, which, buf, len);
}
