// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the CLI's fstab reader (list -s, -F, -x: fstab.c)
 * against libmount's (util-linux, findmnt's reader), the oracle it must
 * agree with.
 *
 * The input is the text of an fstab file, in a memory file read by both
 * through /proc/self/fd/N: fstab_read() and mnt_table_parse_fstab() (what
 * findmnt -s -F FILE calls). Both must report the same lines as parse
 * errors and read the same entries: source, tag, target, type, options
 * as written and split into VFS, FS and userspace options, freq and
 * passno. The file read with the format guessed (mnt_table_parse_file(),
 * findmnt -F FILE) must be in the format fstab_guess_format() names.
 * README keeps no difference here: any one aborts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <libmount.h>

#include "fstab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the lines libmount's parser reported, in order */
struct lines {
	unsigned *at;
	size_t n;
};

static struct lines lm_errors;

static int on_error(struct libmnt_table *tb, const char *file, int line)
{
	unsigned *p = realloc(lm_errors.at, (lm_errors.n + 1) * sizeof(*p));

	(void)tb;
	(void)file;
	if (!p)
		abort();
	p[lm_errors.n++] = (unsigned)line;
	lm_errors.at = p;
	return 1;
}

/* a memory file holding the input, and its /proc/self/fd path */
static int memfile(const uint8_t *data, size_t size, char *path, size_t psz)
{
	int fd = memfd_create("fuzz-fstab", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	snprintf(path, psz, "/proc/self/fd/%d", fd);
	return fd;
}

/*
 * fstab_read() of path, its parse error lines taken from what it prints
 * ("mntsnap: PATH: parse error at line N -- ignored") to a memory file
 * standing in for stderr.
 */
static void cli_read(const char *path, struct fstab *t, struct lines *err)
{
	int efd = memfd_create("fuzz-fstab-err", MFD_CLOEXEC), saved = dup(2);
	char *text = NULL, *p;
	size_t cap = 0;
	FILE *f;

	if (efd < 0 || saved < 0)
		abort();
	fflush(stderr);
	dup2(efd, 2);
	if (fstab_read(path, t))
		abort();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	*err = (struct lines){ 0 };
	lseek(efd, 0, SEEK_SET);
	f = fdopen(efd, "r");
	if (!f)
		abort();
	while (getline(&text, &cap, f) > 0) {
		unsigned *a = realloc(err->at, (err->n + 1) * sizeof(*a));

		p = strstr(text, ": parse error at line ");
		if (!a || !p || sscanf(p, ": parse error at line %u", &a[err->n]) != 1)
			abort();
		err->at = a;
		err->n++;
	}
	free(text);
	fclose(f);
}

static int str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* a difference: named on stderr (the crash report shows it), then abort */
static void differ(const char *what, const char *cli, const char *lm)
{
	fprintf(stderr, "fstab reader differs: %s: CLI '%s', libmount '%s'\n", what,
		cli ? cli : "(null)", lm ? lm : "(null)");
	abort();
}

static void check_str(const char *what, const char *cli, const char *lm)
{
	if (!str_eq(cli, lm))
		differ(what, cli, lm);
}

static void check_num(const char *what, long cli, long lm)
{
	char a[32], b[32];

	if (cli == lm)
		return;
	snprintf(a, sizeof(a), "%ld", cli);
	snprintf(b, sizeof(b), "%ld", lm);
	differ(what, a, b);
}

static void check_entry(const struct fstab_ent *e, struct libmnt_fs *fs)
{
	const char *name = NULL, *val = NULL;

	if (mnt_fs_get_tag(fs, &name, &val))
		name = val = NULL;
	check_str("source", e->source, mnt_fs_get_source(fs));
	check_str("tag name", e->tagname, name);
	check_str("tag value", e->tagval, val);
	check_str("target", e->target, mnt_fs_get_target(fs));
	check_str("fs type", e->fstype, mnt_fs_get_fstype(fs));
	check_str("options", e->options, mnt_fs_get_options(fs));
	check_str("VFS options", e->vfs_opts, mnt_fs_get_vfs_options(fs));
	check_str("FS options", e->fs_opts, mnt_fs_get_fs_options(fs));
	check_str("user options", e->user_opts, mnt_fs_get_user_options(fs));
	check_num("freq", e->freq, mnt_fs_get_freq(fs));
	check_num("passno", e->passno, mnt_fs_get_passno(fs));
}

static void check_lines(const char *what, const struct lines *a, const struct lines *b)
{
	if (a->n != b->n)
		check_num(what, (long)a->n, (long)b->n);
	for (size_t i = 0; i < a->n; i++)
		check_num(what, a->at[i], b->at[i]);
}

/* libmount's table of path read as fmt reads it (fstab, or guessed) */
static struct libmnt_table *lm_read(const char *path, bool guess)
{
	struct libmnt_table *tb = mnt_new_table();

	if (!tb)
		abort();
	mnt_table_set_parser_errcb(tb, on_error);
	free(lm_errors.at);
	lm_errors = (struct lines){ 0 };
	if (guess ? mnt_table_parse_file(tb, path) : mnt_table_parse_fstab(tb, path))
		abort();
	return tb;
}

/*
 * The format libmount guessed, told by its first entry: a swaps line
 * has a swap type, a mountinfo line is the kernel's. No entry: unknown.
 */
static int lm_format(struct libmnt_table *tb)
{
	struct libmnt_fs *fs = NULL;

	if (mnt_table_first_fs(tb, &fs) || !fs)
		return -1;
	if (mnt_fs_get_swaptype(fs))
		return FSTAB_FMT_SWAPS;
	return mnt_fs_is_kernel(fs) ? FSTAB_FMT_MOUNTINFO : FSTAB_FMT_FSTAB;
}

/*
 * fstab_guess_format() names the format libmount guessed where an entry
 * tells it; where it names fstab, the guessed reading is the fstab one.
 */
static void check_guess(const char *path, const struct lines *fstab_err, int fstab_n)
{
	struct libmnt_table *tb = lm_read(path, true);
	int fmt = fstab_guess_format(path), lm = lm_format(tb);

	if (fmt < 0)
		abort();
	if (lm >= 0)
		check_num("format guessed", fmt, lm);
	if (fmt == FSTAB_FMT_FSTAB) {
		check_lines("guessed fstab: error lines", fstab_err, &lm_errors);
		check_num("guessed fstab: entries", fstab_n, mnt_table_get_nents(tb));
	}
	mnt_unref_table(tb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct lines cli_err, lm_err;
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	struct fstab t;
	char path[64];
	int fd;

	if (!it)
		abort();
	fd = memfile(data, size, path, sizeof(path));
	cli_read(path, &t, &cli_err);
	tb = lm_read(path, false);
	lm_err = lm_errors;
	lm_errors = (struct lines){ 0 };
	check_lines("parse error lines", &cli_err, &lm_err);
	check_num("entries", (long)t.n, mnt_table_get_nents(tb));
	for (size_t i = 0; i < t.n; i++) {
		if (mnt_table_next_fs(tb, it, &fs))
			abort();
		check_entry(&t.ent[i], fs);
	}
	check_guess(path, &lm_err, mnt_table_get_nents(tb));
	mnt_unref_table(tb);
	mnt_free_iter(it);
	fstab_free(&t);
	free(cli_err.at);
	free(lm_err.at);
	close(fd);
	return 0;
}
