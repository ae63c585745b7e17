// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the CLI's reader of hand-made mountinfo lines
 * (list -F FILE) against libmount's own (util-linux, findmnt's reader),
 * the oracle it must agree with.
 *
 * The input's first line is taken as a line of a -F file, after the
 * root's. Cleaned as the CLI cleans it, it must read in libmount exactly
 * as the line as written does: every field libmount keeps the same. A
 * line libmount cannot read must be one the cleaner refuses, or one the
 * library refuses once cleaned; a line libmount reads may be refused by
 * the cleaner only for the kept reason it names. The library's record
 * of the cleaned line has libmount's fields, its option strings too
 * (OPTIONS as libmount merges them).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <libmount.h>

#include "mntsnap.h"
#include "mi-clean.h"

#define ROOT_LINE "1 0 0:1 / / rw - t s rw\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int parse_errors;

static int on_error(struct libmnt_table *tb, const char *file, int line)
{
	(void)tb;
	(void)file;
	(void)line;
	parse_errors++;
	return 1;
}

/* the table's second entry: the line after the root's */
static struct libmnt_fs *lm_second(struct libmnt_table *tb)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs = NULL;

	if (!it)
		abort();
	if (mnt_table_next_fs(tb, it, &fs) || mnt_table_next_fs(tb, it, &fs))
		fs = NULL;
	mnt_free_iter(it);
	return fs;
}

/* libmount's reading of ROOT_LINE then line: its entry, or NULL if refused */
static struct libmnt_table *lm_read(const char *line, size_t len, struct libmnt_fs **fs)
{
	size_t n = strlen(ROOT_LINE) + len + 1;
	char *text = malloc(n);
	struct libmnt_table *tb = mnt_new_table();
	FILE *f;

	if (!text || !tb)
		abort();
	memcpy(text, ROOT_LINE, strlen(ROOT_LINE));
	memcpy(text + strlen(ROOT_LINE), line, len);
	text[n - 1] = '\n';
	f = fmemopen(text, n, "r");
	if (!f)
		abort();
	mnt_table_set_parser_errcb(tb, on_error);
	parse_errors = 0;
	mnt_table_parse_stream(tb, f, "fuzz");
	fclose(f);
	free(text);
	*fs = NULL;
	if (!parse_errors && mnt_table_get_nents(tb) == 2)
		*fs = lm_second(tb);
	return tb;
}

static int str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int same_fs(struct libmnt_fs *a, struct libmnt_fs *b)
{
	return mnt_fs_get_id(a) == mnt_fs_get_id(b) &&
	       mnt_fs_get_parent_id(a) == mnt_fs_get_parent_id(b) &&
	       mnt_fs_get_devno(a) == mnt_fs_get_devno(b) &&
	       str_eq(mnt_fs_get_root(a), mnt_fs_get_root(b)) &&
	       str_eq(mnt_fs_get_target(a), mnt_fs_get_target(b)) &&
	       str_eq(mnt_fs_get_vfs_options(a), mnt_fs_get_vfs_options(b)) &&
	       str_eq(mnt_fs_get_optional_fields(a), mnt_fs_get_optional_fields(b)) &&
	       str_eq(mnt_fs_get_fstype(a), mnt_fs_get_fstype(b)) &&
	       str_eq(mnt_fs_get_source(a), mnt_fs_get_source(b)) &&
	       str_eq(mnt_fs_get_fs_options(a), mnt_fs_get_fs_options(b)) &&
	       str_eq(mnt_fs_get_options(a), mnt_fs_get_options(b));
}

/* "type.subtype" as libmount keeps it: the library splits it at the dot */
static int same_type(const struct mntsnap_mount *m, const char *type)
{
	size_t tl = strlen(m->fs_type);

	if (!m->fs_subtype || !*m->fs_subtype)
		return !strcmp(m->fs_type, type);
	return !strncmp(type, m->fs_type, tl) && type[tl] == '.' &&
	       !strcmp(type + tl + 1, m->fs_subtype);
}

/* the library's option string `which` of m is libmount's want */
static int same_options(const struct mntsnap_mount *m, int which, const char *want)
{
	char small[8], *buf;
	long n = mntsnap_mount_options(m, which, small, sizeof(small));
	int same;

	if (n < 0 || !want || (size_t)n != strlen(want))
		return 0;
	if ((size_t)n < sizeof(small))
		return !strcmp(small, want);
	buf = malloc((size_t)n + 1);
	if (!buf)
		abort();
	same = mntsnap_mount_options(m, which, buf, (size_t)n + 1) == n && !strcmp(buf, want);
	free(buf);
	return same;
}

/*
 * OPTIONS (libmount's merge, mnt_fs_strdup_options() at its reading),
 * VFS-OPTIONS, FS-OPTIONS; kept (README): a raw blank (space or tab) in
 * the super options, where libmount stops the field and the library
 * keeps the rest
 */
static int same_options_all(const struct mntsnap_mount *m, struct libmnt_fs *fs)
{
	if (!same_options(m, MNTSNAP_OPTIONS_VFS, mnt_fs_get_vfs_options(fs)))
		return 0;
	if ((m->sb_opts_text && strpbrk(m->sb_opts_text, " \t")) ||
	    (m->options && strpbrk(m->options, " \t")))
		return 1;
	return same_options(m, MNTSNAP_OPTIONS_FS, mnt_fs_get_fs_options(fs)) &&
	       same_options(m, MNTSNAP_OPTIONS_ALL, mnt_fs_get_options(fs));
}

/* the library's record of the line and libmount's: the same mount */
/*
 * libmount names a "/dev/root" source by its device number when this
 * machine has that device (a loop device a test left, an NVMe
 * partition); the library keeps the kernel's text (README). Which of the
 * two libmount prints depends on the machine, so that source is the
 * library's text either way.
 */
static int same_source(const struct mntsnap_mount *m, struct libmnt_fs *fs)
{
	return str_eq(m->source, mnt_fs_get_source(fs)) ||
	       (m->source && !strcmp(m->source, "/dev/root"));
}

static int same_mount(const struct mntsnap_mount *m, struct libmnt_fs *fs)
{
	dev_t dev = mnt_fs_get_devno(fs);

	return same_options_all(m, fs) && m->id_old == (uint32_t)mnt_fs_get_id(fs) &&
	       m->parent_id_old == (uint32_t)mnt_fs_get_parent_id(fs) &&
	       m->dev_major == major(dev) && m->dev_minor == minor(dev) &&
	       str_eq(m->root, mnt_fs_get_root(fs)) &&
	       str_eq(m->mount_point, mnt_fs_get_target(fs)) &&
	       same_source(m, fs) && same_type(m, mnt_fs_get_fstype(fs));
}

/*
 * What the library may refuse that libmount reads, each kept on purpose
 * (README): a device or id that is no unsigned 32-bit number as written
 * ("0:3x", "+0:3", "-5", "4294967296"), an escape that decodes to NUL,
 * an escaped '.' in the fs type, parent ids that form a cycle (here: the
 * line's and the root line's).
 */
static int kept_refusal(const char *msg)
{
	static const char *const kept[] = {
		"major:minor: not MAJOR:MINOR", "id: not a decimal number below 2^32",
		"an escape decodes to NUL", "parent ids form a cycle",
		"fs type: escaped '.'",
	};

	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (strstr(msg, kept[i]))
			return 1;
	return 0;
}

/*
 * The library's strict reader refuses the cleaned line, or reads it as
 * libmount reads the line as written (fs, if not NULL: then a refusal
 * must be a kept one).
 */
static int lib_refuses(const char *out, size_t k, struct libmnt_fs *fs)
{
	struct mntsnap_error e = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &e);
	struct mntsnap_snapshot *s = NULL;
	char *text = malloc(strlen(ROOT_LINE) + k + 1);
	int r;

	if (!text)
		abort();
	memcpy(text, ROOT_LINE, strlen(ROOT_LINE));
	memcpy(text + strlen(ROOT_LINE), out, k);
	text[strlen(ROOT_LINE) + k] = '\n';
	r = mntsnap_parse_mountinfo(text, strlen(ROOT_LINE) + k + 1, &o, &s);
	if (r && fs && !kept_refusal(e.msg))
		abort();
	if (!r && fs) {
		struct mntsnap_mount m;

		/* the root's record, then the line's: the text's order */
		if (mntsnap_snapshot_count(s) != 2 || mntsnap_snapshot_get(s, 1, &m) ||
		    !same_mount(&m, fs))
			abort();
	}
	mntsnap_snapshot_free(s);
	free(text);
	return r != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = 0, n, k;
	struct libmnt_table *raw_tb, *clean_tb;
	struct libmnt_fs *raw, *clean;
	const char *why = NULL, *s;
	char *line, *out;

	while (len < size && data[len] != '\n' && data[len] != '\0')
		len++;
	line = malloc(len + 1);
	if (!line)
		abort();
	memcpy(line, data, len);
	line[len] = '\0';
	raw_tb = lm_read(line, len, &raw);
	/* what the CLI does before the cleaner, as libmount does: \r, blanks, # */
	n = len;
	if (n && line[n - 1] == '\r')
		line[--n] = '\0';
	s = cli_mi_blanks(line);
	if (!*s || *s == '#') {
		mnt_unref_table(raw_tb);
		free(line);
		return 0;
	}
	out = malloc(2 * strlen(s) + 2);
	if (!out)
		abort();
	k = cli_mi_clean_line(s, out, &why);
	if (!k) {
		/* refused: libmount refuses it too, or a kept refusal */
		if (raw && !strstr(why, "a field '-'"))
			abort();
	} else if (!raw) {
		if (!lib_refuses(out, k, NULL))
			abort();
	} else {
		/*
		 * libmount's reader drops a '\r' before the newline, which
		 * the library does not (the CLI dropped the line's own): a
		 * blank after the super options keeps the cleaned line's
		 * last '\r', and changes nothing else
		 */
		out[k] = ' ';
		clean_tb = lm_read(out, k + 1, &clean);
		if (!clean || !same_fs(raw, clean))
			abort();
		lib_refuses(out, k, raw);
		mnt_unref_table(clean_tb);
	}
	mnt_unref_table(raw_tb);
	free(out);
	free(line);
	return 0;
}
