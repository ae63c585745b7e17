// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a mount's option strings (OPTIONS, VFS-OPTIONS,
 * FS-OPTIONS) against libmount's (util-linux, findmnt's), the oracle.
 *
 * The input is a per-mount (VFS) string and a super (FS) string, split at
 * the first NUL byte; both go into one mountinfo line that libmount and
 * the library each read. libmount's OPTIONS is the merge its reader
 * stores (mnt_fs_strdup_options() of the line, tab_parse.c), compared
 * byte for byte with mntsnap_mount_options(), also through a buffer
 * too small by one (the length asked first, then the string).
 *
 * The first byte picks how the strings are written: odd, each byte is a
 * token of the merge's interest ("rw", "ro", a comma, '=', a quote, an
 * escaped comma \054, ...), so empty items, quotes and rw/ro names come
 * often; even, each byte is itself (white space and control bytes as
 * \ooo, which both readers unescape; a backslash stays raw).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmount.h>

#include "mntsnap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const tokens[] = {
	"rw", "ro", ",", ",", "r", "w", "o", "=", "\"", "x", "\\054", "rw=", "ro=1", "a",
	"\\042", "\\075",
};

#define NTOKENS (sizeof(tokens) / sizeof(tokens[0]))

struct text {
	char *p;
	size_t len;
};

static void put(struct text *t, const char *s, size_t n)
{
	memcpy(t->p + t->len, s, n);
	t->len += n;
}

/* one field's bytes as mountinfo text: 1 if it is not empty */
static int put_field(struct text *t, const uint8_t *d, size_t n, int tok)
{
	size_t start = t->len;
	char esc[5];

	for (size_t i = 0; i < n; i++) {
		if (tok) {
			put(t, tokens[d[i] % NTOKENS], strlen(tokens[d[i] % NTOKENS]));
		} else if (d[i] <= ' ' || d[i] == 0x7f) {
			snprintf(esc, sizeof(esc), "\\%03o", d[i]);
			put(t, esc, 4);
		} else {
			put(t, (const char *)&d[i], 1);
		}
	}
	return t->len > start;
}

/* libmount's reading of the line: its only entry, or NULL */
static struct libmnt_fs *lm_read(struct libmnt_table *tb, char *text, size_t len)
{
	struct libmnt_fs *fs = NULL;
	FILE *f = fmemopen(text, len, "r");

	if (!f)
		abort();
	if (mnt_table_parse_stream(tb, f, "fuzz") || mnt_table_get_nents(tb) != 1 ||
	    mnt_table_first_fs(tb, &fs))
		fs = NULL;
	fclose(f);
	return fs;
}

/* the library's string `which` of m is want (NULL: libmount has none) */
static void same_options(const struct mntsnap_mount *m, int which, const char *want)
{
	char *buf;
	long n = mntsnap_mount_options(m, which, NULL, 0);

	if (!want || n != (long)strlen(want))
		abort();
	buf = malloc((size_t)n + 1);
	if (!buf)
		abort();
	/* too small by one: the length again, the string cut short */
	if (n > 0 && (mntsnap_mount_options(m, which, buf, (size_t)n) != n ||
		      strncmp(buf, want, (size_t)n - 1) || buf[n - 1]))
		abort();
	if (mntsnap_mount_options(m, which, buf, (size_t)n + 1) != n || strcmp(buf, want))
		abort();
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char head[] = "1 0 0:1 / / ", mid[] = " - t s ";
	const uint8_t *sep;
	struct mntsnap_error e = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &e);
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_mount m;
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	struct text t;
	size_t vlen;
	int tok, r;

	if (size < 1 || size > 8192)
		return 0;
	tok = data[0] & 1;
	data++, size--;
	sep = memchr(data, 0, size);
	if (!sep)
		return 0;
	vlen = (size_t)(sep - data);
	t.p = malloc(sizeof(head) + sizeof(mid) + 5 * size + 2);
	if (!t.p)
		abort();
	t.len = 0;
	put(&t, head, strlen(head));
	if (!put_field(&t, data, vlen, tok)) {
		free(t.p);
		return 0;
	}
	put(&t, mid, strlen(mid));
	if (!put_field(&t, sep + 1, size - vlen - 1, tok)) {
		free(t.p);
		return 0;
	}
	put(&t, "\n", 1);
	r = mntsnap_parse_mountinfo(t.p, t.len, &o, &s);
	/* kept (README): an escape that decodes to NUL is refused */
	if (r && !strstr(e.msg, "an escape decodes to NUL"))
		abort();
	tb = mnt_new_table();
	if (!tb)
		abort();
	fs = lm_read(tb, t.p, t.len);
	if (!r) {
		if (!fs || mntsnap_snapshot_count(s) != 1 || mntsnap_snapshot_get(s, 0, &m))
			abort();
		same_options(&m, MNTSNAP_OPTIONS_VFS, mnt_fs_get_vfs_options(fs));
		same_options(&m, MNTSNAP_OPTIONS_FS, mnt_fs_get_fs_options(fs));
		same_options(&m, MNTSNAP_OPTIONS_ALL, mnt_fs_get_options(fs));
	}
	mnt_unref_table(tb);
	mntsnap_snapshot_free(s);
	free(t.p);
	return 0;
}
