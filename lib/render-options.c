// SPDX-License-Identifier: MIT
/*
 * A mount's options as findmnt (libmount) shows them for a mountinfo
 * line: VFS-OPTIONS (column 6), FS-OPTIONS (the super options, \ooo
 * unescaped as libmount unescapes them) and OPTIONS, libmount's merge of
 * the two: "vfs,fs" with the first two "rw" removed, then as many "ro"
 * as keep the removed rw/ro at two, and "ro" (if one went) or "rw" put in
 * front; two equal strings give one of them. Each cut is libmount's, on
 * what the cut before it left, which matters with empty items (",rw,"
 * and "rw" give "rw,,"). Options are found as
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

/*
 * libmount's unmangle: \ooo becomes the byte (its low 8 bits), anything
 * else stays. An escape that decodes to NUL (\000, \400) ends the string,
 * as it ends libmount's C string, and as it ends VFS-OPTIONS here; the
 * super options are the last part of what put_fs() writes, so nothing
 * follows it.
 */
static void put_unmangled(struct sbuf *b, const char *s)
{
	const char *run = s;

	while ((s = strchr(s, '\\'))) {
		if (is_oct(s[1]) && is_oct(s[2]) && is_oct(s[3])) {
			char c = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));

			put(b, run, (size_t)(s - run));
			if (!c)
				return;
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

/* An option's bytes [at, end) in a string being edited. */
struct span {
	size_t at, end;
};

/*
 * The first option of the n bytes at s named name (two bytes: "name" or
 * "name=value"), found as libmount's option parser finds it
 * (mnt_optstr_parse_next()): empty items are skipped, a double-quoted part
 * keeps its commas and its '=', the first other '=' after the option's
 * first byte ends the name, and inside a quote that never closes the
 * parser runs to the end and reports no option there (super options
 * 'rw=",b' keep their rw in OPTIONS).
 */
static bool opt_find(const char *s, size_t n, const char *name, struct span *o)
{
	size_t i = 0;

	while (i < n) {
		size_t start, p, sep = 0;
		bool q = false;

		while (i < n && s[i] == ',')
			i++;
		if (i == n)
			return false;
		start = i;
		for (p = start; p < n; p++) {
			if (s[p] == '"')
				q = !q;
			if (q)
				continue;
			if (!sep && p > start && s[p] == '=')
				sep = p;
			if (s[p] == ',')
				break;
		}
		if (q)
			return false;
		if ((sep ? sep : p) - start == 2 && s[start] == name[0] && s[start + 1] == name[1]) {
			*o = (struct span){ start, p };
			return true;
		}
		i = p + 1;
	}
	return false;
}

/*
 * Cut the first option named name out of the n bytes at s, as libmount's
 * mnt_optstr_remove_option() does: the option with the comma after it;
 * when that leaves the string ending right after a comma (the option was
 * the last one, or only an empty item followed it), that one comma goes
 * too. Other empty items stay ("a,,rw" gives "a,", "a,rw," gives "a"
 * and ",rw,,rw" cut twice gives ","), so the result depends on the order
 * of the cuts: they are made one at a time, in libmount's order, each on
 * what the one before left. 1 if cut, else 0.
 */
static int opt_cut_first(char *s, size_t *n, const char *name)
{
	struct span o;
	size_t to;

	if (!opt_find(s, *n, name, &o))
		return 0;
	/* an option found ends at a comma or at the string's end */
	to = o.end < *n ? o.end + 1 : o.end;
	memmove(s + o.at, s + to, *n - to);
	*n -= to - o.at;
	if (o.at == *n && o.at > 0 && s[o.at - 1] == ',')
		(*n)--;
	return 1;
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

/*
 * The usual mount: vfs "rw<vrest>" and fs "rw<frest>" each start with a
 * plain rw, vfs has no other and no quote (which could carry its last
 * option into fs). libmount's two cuts then take those two rw and leave
 * "<vrest>,<frest>" less the commas the cuts take, which gives
 * "rw" + vrest + frest, except: frest "" or "," adds nothing (the second
 * cut takes the comma before it, or its own with the one before), and
 * vrest "," with such a frest adds nothing either ("rw," + "rw": "rw").
 * Returns the length written, 0 when this is not such a pair.
 */
static size_t merge_usual(const char *vfs, size_t vlen, const char *fs, size_t flen,
			  char *out)
{
	size_t vl, fl;

	if (!starts_rw(vfs, vlen) || !starts_rw(fs, flen) || memchr(vfs, '"', vlen) ||
	    has_rw(vfs + 2, vlen - 2))
		return 0;
	fl = flen <= 3 ? 0 : flen - 2;
	vl = vlen == 3 && !fl ? 0 : vlen - 2;
	memcpy(out, "rw", 2);
	memcpy(out + 2, vfs + 2, vl);
	memcpy(out + 2 + vl, fs + 2, fl);
	out[2 + vl + fl] = '\0';
	return 2 + vl + fl;
}

size_t mntsnap__merge_options(const char *vfs, size_t vlen, const char *fs, size_t flen,
			      char *out)
{
	char *s = out + 3;
	size_t n = vlen + 1 + flen;
	int rw, ro = 0;

	/* two equal strings: libmount keeps one */
	if (vlen == flen && !memcmp(vfs, fs, vlen)) {
		memcpy(out, vfs, vlen);
		out[vlen] = '\0';
		return vlen;
	}
	n = merge_usual(vfs, vlen, fs, flen, out);
	if (n)
		return n;
	/* "rw," + vfs + "," + fs, edited in place */
	n = vlen + 1 + flen;
	memcpy(s, vfs, vlen);
	s[vlen] = ',';
	memcpy(s + vlen + 1, fs, flen);
	/*
	 * libmount cuts the first "rw" (name, or name=value) twice, then,
	 * unless both were there, the first "ro" as many times as make the
	 * cuts two; "ro" in front if one went, else "rw"
	 */
	rw = opt_cut_first(s, &n, "rw");
	rw += opt_cut_first(s, &n, "rw");
	if (rw != 2) {
		ro = opt_cut_first(s, &n, "ro");
		if (ro + rw < 2)
			ro += opt_cut_first(s, &n, "ro");
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
 * OPTIONS straight into buf when the merge's working room (vfs + fs + 4
 * and the NUL: nothing cut, "rw," + vfs + "," + fs) fits there: no copies through an intermediate buffer. 0 when it does
 * not fit, or the VFS or FS string is longer than its stack buffer here
 * (the result is never empty): then the general way.
 */
static size_t merged_in_place(const struct mntsnap_mount *m, char *buf, size_t len)
{
	char vfs[256], fs[512];
	size_t vl, fl;

	vl = mntsnap__vfs_options(m, vfs, sizeof(vfs));
	fl = mntsnap__fs_options(m, fs, sizeof(fs));
	if (vl >= sizeof(vfs) || fl >= sizeof(fs) || vl + fl + 5 > len)
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
			b.len += b.len + 5;
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
		size_t total = (b.len - 5) / 2;

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
