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
 * findmnt -F FILE) must be in the format fstab_guess_format() names:
 * a line behind the input that each format reads otherwise shows it.
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
/* the file of the last line reported (libmount's copy of the path) */
static char lm_err_file[64];

static int on_error(struct libmnt_table *tb, const char *file, int line)
{
	unsigned *p = realloc(lm_errors.at, (lm_errors.n + 1) * sizeof(*p));

	(void)tb;
	snprintf(lm_err_file, sizeof(lm_err_file), "%s", file);
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
 * A line that tells the three formats apart once read: in mountinfo
 * format a mount (root "/", target "5"), in fstab format an entry
 * (source "1", freq 5, passno 6), in swaps format malformed (its size is
 * "0:1"). Behind the input it also tells a file that tells nothing
 * itself: mountinfo ("1 2 ..."), for libmount and fstab_guess_format().
 */
#define PROBE "1 2 0:1 / 5 6 - t s rw\n"

/* libmount's guess, by how it read PROBE, the last line (line n) of file */
static int lm_format(struct libmnt_table *tb, const char *file, unsigned n)
{
	struct libmnt_fs *fs = NULL;

	if (lm_errors.n && lm_errors.at[lm_errors.n - 1] == n && !strcmp(lm_err_file, file))
		return FSTAB_FMT_SWAPS;
	if (mnt_table_last_fs(tb, &fs) || !fs)
		abort();
	if (mnt_fs_is_kernel(fs) && str_eq(mnt_fs_get_target(fs), "5"))
		return FSTAB_FMT_MOUNTINFO;
	if (!mnt_fs_is_kernel(fs) && str_eq(mnt_fs_get_source(fs), "1") &&
	    mnt_fs_get_freq(fs) == 5 && mnt_fs_get_passno(fs) == 6)
		return FSTAB_FMT_FSTAB;
	differ("format guessed: PROBE read as no format", NULL, mnt_fs_get_source(fs));
	return -1;
}

/* a memory file of data and PROBE behind it; *n: PROBE's line */
static int probe_file(const uint8_t *data, size_t size, char *path, size_t psz, unsigned *n)
{
	uint8_t *text = malloc(size + 1 + strlen(PROBE));
	int fd;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\n';
	memcpy(text + size + 1, PROBE, strlen(PROBE));
	*n = 1;
	for (size_t i = 0; i <= size; i++)
		*n += text[i] == '\n';
	fd = memfile(text, size + 1 + strlen(PROBE), path, psz);
	free(text);
	return fd;
}

/*
 * fstab_guess_format() names the format libmount guesses (the input with
 * PROBE behind it, so that libmount's reading shows it), and where it
 * names fstab for the input alone, libmount's guessed reading of the
 * input is its fstab reading.
 */
static void check_guess(const uint8_t *data, size_t size, const char *path,
			const struct lines *fstab_err, int fstab_n)
{
	struct libmnt_table *tb = lm_read(path, true);
	char ppath[64];
	unsigned n;
	int fd;

	if (fstab_guess_format(path) == FSTAB_FMT_FSTAB) {
		check_lines("guessed fstab: error lines", fstab_err, &lm_errors);
		check_num("guessed fstab: entries", fstab_n, mnt_table_get_nents(tb));
	}
	mnt_unref_table(tb);
	fd = probe_file(data, size, ppath, sizeof(ppath), &n);
	tb = lm_read(ppath, true);
	check_num("format guessed", fstab_guess_format(ppath), lm_format(tb, ppath, n));
	mnt_unref_table(tb);
	close(fd);
}

/*
 * Two files read into one table (findmnt -F A -F B): libmount keeps the
 * format it guessed from A's lines for B's, fstab_guess_formats() must
 * name it. The input holds both, split at its first byte 0x1e; PROBE
 * goes behind B.
 */
static void check_guess_two(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memchr(data, 0x1e, size);
	char apath[64], bpath[64];
	const char *paths[] = { apath, bpath };
	struct libmnt_table *tb;
	int afd, bfd;
	unsigned n;

	if (!sep)
		return;
	afd = memfile(data, (size_t)(sep - data), apath, sizeof(apath));
	bfd = probe_file(sep + 1, size - (size_t)(sep - data) - 1, bpath, sizeof(bpath), &n);
	tb = lm_read(apath, true);
	if (mnt_table_parse_file(tb, bpath))
		abort();
	check_num("format guessed over two files", fstab_guess_formats(paths, 2),
		  lm_format(tb, bpath, n));
	mnt_unref_table(tb);
	close(afd);
	close(bfd);
}

/*
 * fstab_split_options() alone (the CLI splits utab's options with it too)
 * against mnt_split_optstr() on the input's first line as one string:
 * any byte but NUL, blanks and newlines that no fstab field holds
 * unescaped included. A string libmount cannot split is left to the
 * fstab reading, where it makes the line malformed.
 */
static void check_split(const uint8_t *data, size_t size)
{
	char *opts = strndup((const char *)data, size), *nl, *u = NULL, *v = NULL, *f = NULL;
	char *cu = NULL, *cv = NULL, *cf = NULL;

	if (!opts)
		abort();
	if ((nl = strchr(opts, '\n')))
		*nl = '\0';
	if (!mnt_split_optstr(opts, &u, &v, &f, 0, 0)) {
		if (fstab_split_options(opts, &cv, &cf, &cu))
			abort();
		check_str("split: VFS options", cv, v);
		check_str("split: FS options", cf, f);
		check_str("split: user options", cu, u);
	}
	free(u);
	free(v);
	free(f);
	free(cu);
	free(cv);
	free(cf);
	free(opts);
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
	check_guess(data, size, path, &lm_err, mnt_table_get_nents(tb));
	check_guess_two(data, size);
	check_split(data, size);
	mnt_unref_table(tb);
	mnt_free_iter(it);
	fstab_free(&t);
	free(cli_err.at);
	free(lm_err.at);
	close(fd);
	return 0;
}
