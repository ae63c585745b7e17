// SPDX-License-Identifier: MIT
/*
 * fstab(5) as libmount 2.38 reads it (findmnt -s), rule for rule:
 *  - a line is what getline() returns; one trailing \r is dropped (CRLF);
 *    a NUL byte ends the last line of a file without a final newline, and
 *    makes any other line malformed (libmount looks for the newline with
 *    strchr());
 *  - leading blanks are skipped; an empty line or one whose first
 *    non-blank is '#' is a comment ('#' later in a line is data);
 *  - fields are split on runs of spaces and tabs, each unescaped by \ooo
 *    (three octal digits: \040 space, \011 tab, \134 backslash) only;
 *  - source, target and type are required; options, freq and passno are
 *    optional (freq and passno 0); more fields are ignored; freq and passno
 *    are strtol() numbers that must end at a blank (then cut to int), one
 *    past long's range only where the line ends;
 *  - a malformed line is reported and skipped, the rest still read;
 *  - a source NAME=value (value maybe in "" or '') is a tag when NAME is
 *    LABEL, UUID, PARTUUID, PARTLABEL or ID;
 *  - the options are split into VFS (the mount flags), userspace
 *    (defaults, noauto, user, x-..., nofail, ...) and FS options, a value in
 *    double quotes keeping its commas, empty items dropped.
 * Why our own parser and not libmount: see fstab.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "cli.h"
#include "intl.h"
#include "fstab.h"
#include "tags.h"
#include "verscmp.h"

/*
 * The whole file from fd (closed here): fstab files are small (no bound,
 * as libmount sets none), and one read keeps NULs visible.
 */
static int slurp_fd(int fd, char **ret, size_t *ret_len)
{
	int r = cli_read_fd(fd, SIZE_MAX, ret, ret_len);

	close(fd);
	return r;
}

static int slurp(const char *path, char **ret, size_t *ret_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : slurp_fd(fd, ret, ret_len);
}

static bool isoct(char c)
{
	return c >= '0' && c <= '7';
}

/* The next field at *s (blanks before it skipped by the caller): unescaped copy. */
static char *next_field(const char **s)
{
	const char *p = *s, *e = p;
	char *out, *o;

	while (*e && *e != ' ' && *e != '\t')
		e++;
	*s = e;
	if (e == p)
		return NULL;
	o = out = malloc((size_t)(e - p) + 1);
	if (!out)
		return NULL;
	while (p < e) {
		if (*p == '\\' && e - p >= 4 && isoct(p[1]) && isoct(p[2]) && isoct(p[3])) {
			*o++ = (char)(64 * (p[1] & 7) + 8 * (p[2] & 7) + (p[3] & 7));
			p += 4;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * libmount's next_s32(): a strtol() number ending at a blank or the end.
 * Its caller refuses a bad number only when text follows it, so one out
 * of long's range that ends the line is taken as strtol() returns it
 * (LONG_MAX or LONG_MIN cut to int: -1 or 0); with a blank after it the
 * line is malformed.
 */
static int next_num(const char **s, int *num)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(*s, &end, 10);
	if (end == *s)
		return -EINVAL;
	*s = end;
	*num = (int)v;
	return *end && (errno || (*end != ' ' && *end != '\t')) ? -EINVAL : 0;
}

/*
 * The option maps of libmount 2.38 (optmap.c): names, "[=]", "=" and
 * prefixes. Its "sub"/"nosub" exist only where MS_NOSUB is defined, which
 * no 2.38 build has: FS options there.
 */
static const char *const vfs_map[] = {
	"ro", "rw", "exec", "noexec", "suid", "nosuid", "dev", "nodev", "sync", "async",
	"dirsync", "remount", "bind", "rbind", "silent", "loud", "mand",
	"nomand", "atime", "noatime", "iversion", "noiversion", "diratime", "nodiratime",
	"relatime", "norelatime", "strictatime", "nostrictatime", "lazytime", "nolazytime",
	"unbindable", "runbindable", "private", "rprivate", "slave", "rslave", "shared",
	"rshared", "symfollow", "nosymfollow", NULL,
};
static const char *const user_map[] = {
	"defaults", "auto", "noauto", "user[=]", "nouser", "users", "nousers", "owner",
	"noowner", "group", "nogroup", "_netdev", "comment=", "loop[=]", "offset=",
	"sizelimit=", "encryption=", "nofail", "uhelper=", "helper=", "verity.hashdevice=",
	"verity.roothash=", "verity.hashoffset=", "verity.roothashfile=", "verity.fecdevice=",
	"verity.fecoffset=", "verity.fecroots=", "verity.roothashsig=", "verity.oncorruption=",
	NULL,
};

/*
 * mnt_optmap_get_entry(): the entry "name" matches ("name", "name=..." or
 * "name[=]", or a prefix "x-"/"X-"), or NULL.
 */
static const char *map_entry(const char *const *map, const char *name, size_t len)
{
	for (; *map; map++) {
		const char *p = *map + len;

		if (strlen(*map) >= len && !strncmp(*map, name, len) &&
		    (*p == '\0' || *p == '=' || *p == '['))
			return *map;
	}
	return NULL;
}

static int append(char **list, const char *item, size_t len)
{
	size_t old = *list ? strlen(*list) : 0;
	char *p = realloc(*list, old + len + 2);

	if (!p)
		return -ENOMEM;
	if (old)
		p[old++] = ',';
	memcpy(p + old, item, len);
	p[old + len] = '\0';
	*list = p;
	return 0;
}

/* mnt_split_optstr(): each item to the VFS, userspace or FS list. */
static int split_options(struct fstab_ent *e)
{
	return fstab_split_options(e->options, &e->vfs_opts, &e->fs_opts, &e->user_opts);
}

int fstab_split_options(const char *opts, char **vfs, char **fs, char **user)
{
	const char *p = opts;

	while (p && *p) {
		const char *start = p;
		size_t nlen, len;
		bool open = false;

		while (*p && (open || *p != ',')) {
			if (*p == '"')
				open = !open;
			p++;
		}
		/* a quote never closed: libmount's parser ends there, the rest dropped */
		if (open)
			break;
		len = (size_t)(p - start);
		if (*p)
			p++;
		if (!len)
			continue;
		nlen = strcspn(start, "=,");
		if (nlen > len)
			nlen = len;
		const char *ent = map_entry(vfs_map, start, nlen);
		char **to = vfs;
		bool prefix = !strncmp(start, "x-", 2) || !strncmp(start, "X-", 2);

		if (!ent && (prefix || (ent = map_entry(user_map, start, nlen))))
			to = user;
		/* "defaults" means nothing: dropped from every list */
		if (ent && !strcmp(ent, "defaults"))
			continue;
		/* name=value where the map takes a bare name: an FS option */
		if ((!ent && !prefix) || (ent && len > nlen + 1 && !strchr(ent, '=')))
			to = fs;
		if (append(to, start, len))
			return -ENOMEM;
	}
	return 0;
}

/* a source libmount takes as a tag: tagname and tagval set */
static int parse_tag(struct fstab_ent *e)
{
	int r = tags_source(e->source, &e->tagname, &e->tagval);

	return r == -ENOMEM ? r : 0;
}

static void ent_clear(struct fstab_ent *e)
{
	free(e->source);
	free(e->target);
	free(e->fstype);
	free(e->options);
	free(e->vfs_opts);
	free(e->fs_opts);
	free(e->user_opts);
	free(e->tagname);
	free(e->tagval);
	*e = (struct fstab_ent){ 0 };
}

/* mnt_parse_table_line(): 1 malformed, 0 parsed, -ENOMEM */
static int parse_line(const char *s, struct fstab_ent *e)
{
	if (!(e->source = next_field(&s)))
		return 1;
	s = skip_blanks(s);
	if (!(e->target = next_field(&s)))
		return 1;
	s = skip_blanks(s);
	if (!(e->fstype = next_field(&s)))
		return 1;
	s = skip_blanks(s);
	e->options = next_field(&s);
	if (!e->options)
		return 0;
	s = skip_blanks(s);
	if (*s && next_num(&s, &e->freq))
		return 1;
	s = skip_blanks(s);
	if (*s && next_num(&s, &e->passno))
		return 1;
	return 0;
}

static int add_line(struct fstab *t, const char *line, unsigned lineno)
{
	struct fstab_ent e = { 0 }, *ne;
	int r = parse_line(line, &e);

	if (!r && !(r = parse_tag(&e)))
		r = split_options(&e);
	if (r) {
		ent_clear(&e);
		return r;
	}
	/*
	 * Doubling (16, 32, 64, ...: full when n is 0, or a power of two from
	 * 16 on): a realloc per entry copies the array each time realloc
	 * cannot grow it in place (20,000 entries under AddressSanitizer: 5 min).
	 */
	if (!t->n || (t->n >= 16 && !(t->n & (t->n - 1)))) {
		ne = realloc(t->ent, (t->n ? 2 * t->n : 16) * sizeof(*ne));
		if (!ne) {
			ent_clear(&e);
			return -ENOMEM;
		}
		t->ent = ne;
	}
	e.line = lineno;
	t->ent[t->n++] = e;
	return 0;
}

static int parse_buf(struct fstab *t, const char *name, char *buf, size_t len)
{
	unsigned lineno = 0;
	size_t i = 0;

	while (i < len) {
		char *nl = memchr(buf + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - buf) : len;
		char *nul = memchr(buf + i, '\0', end - i);
		const char *s;
		int r;

		lineno++;
		/* strchr() stops at a NUL: fine at EOF (the line ends there), else broken */
		if (nul && nl) {
			r = 1;
		} else {
			if (nul)
				end = (size_t)(nul - buf);
			buf[end] = '\0';
			if (end > i && buf[end - 1] == '\r')
				buf[end - 1] = '\0';
			s = skip_blanks(buf + i);
			r = *s == '\0' || *s == '#' ? 0 : add_line(t, s, lineno);
		}
		if (r < 0)
			return r;
		if (r) {
			fputs("mntsnap: ", stderr);
			fprintf(stderr, ul_gettext("%s: parse error at line %d -- ignored"), name,
				(int)lineno);
			fputc('\n', stderr);
			t->nerrors++;
		}
		i = nl ? (size_t)(nl - buf) + 1 : len;
	}
	return 0;
}

/*
 * libmount's mnt_table_parse_stream() marks each entry of a file named
 * exactly "/proc/mounts" (the name as given, not where it leads) as the
 * kernel's (MNT_FS_KERNEL): findmnt then shows no FREQ or PASSNO and a
 * PROPAGATION, and never resolves its targets to match a path.
 */
static void mark_fs_kernel(struct fstab *t, size_t from, const char *name)
{
	if (strcmp(name, "/proc/mounts"))
		return;
	for (size_t i = from; i < t->n; i++)
		t->ent[i].fs_kernel = true;
}

static int read_file(struct fstab *t, const char *path, const char *name)
{
	char *buf = NULL;
	size_t len = 0, from = t->n;
	int r = slurp(path, &buf, &len);

	if (r)
		return r;
	r = parse_buf(t, name, buf, len);
	free(buf);
	if (!r)
		mark_fs_kernel(t, from, name);
	return r;
}

static int by_version(const struct dirent **a, const struct dirent **b)
{
	return cli_verscmp((*a)->d_name, (*b)->d_name);
}

/*
 * libmount's mnt_table_parse_dir_filter(): a name ending in ".fstab" with
 * something before it, not hidden, of a regular file or a symlink (or a
 * type the file system does not tell); what a symlink names is looked at
 * when the file is read.
 */
static int fstab_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 6 && !strcmp(d->d_name + n - 6, ".fstab") &&
	       (d->d_type == DT_REG || d->d_type == DT_LNK || d->d_type == DT_UNKNOWN);
}

/*
 * One file of the directory, as libmount reads it: stat() through
 * symlinks first, so that a FIFO or a device behind a link is never
 * opened, and passed over without a word unless it is a regular file
 * that opens (a directory, a dangling or looping link, no permission).
 */
static int read_dir_file(struct fstab *t, int dfd, const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int fd, r;

	if (fstatat(dfd, name, &st, 0) || !S_ISREG(st.st_mode))
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = slurp_fd(fd, &buf, &len);
	if (r)
		return r == -ENOMEM ? r : 0;
	/* a parse error names the file as libmount does: without its directory */
	r = parse_buf(t, name, buf, len);
	free(buf);
	return r;
}

/*
 * mnt_table_parse_dir(): the directory's *.fstab files in versionsort
 * order ("2.fstab" before "10.fstab"), each read by read_dir_file().
 */
static int read_dir(struct fstab *t, const char *dir)
{
	struct dirent **names = NULL;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), n, r = 0;

	if (dfd < 0)
		return -errno;
	n = scandir(dir, &names, fstab_file, by_version);
	if (n < 0) {
		r = -errno;
		close(dfd);
		return r;
	}
	for (int i = 0; i < n; i++) {
		if (!r)
			r = read_dir_file(t, dfd, names[i]->d_name);
		free(names[i]);
	}
	free(names);
	close(dfd);
	return r;
}

/*
 * libmount's guess_table_format(), on the line mnt_table_parse_next()
 * would parse first: lines are getline()'s, a line with a NUL byte before
 * its newline is no line to guess by (strchr() finds no newline: a parse
 * error), the last line may end without one, a trailing \r is dropped,
 * blanks skipped, empty and '#' lines passed over. Then sscanf("%u %u")
 * of two numbers means mountinfo ("<id> <parent id> ..."), "Filename\t"
 * the swaps header, anything else fstab. A file without such a line is
 * an empty table to libmount: fstab's reader passes over comments too
 * (an empty file stays mountinfo text, of no mounts).
 */
static int guess_line(const char *s)
{
	unsigned a, b;

	if (sscanf(s, "%u %u", &a, &b) == 2)
		return FSTAB_FMT_MOUNTINFO;
	if (!strncmp(s, "Filename\t", 9))
		return FSTAB_FMT_SWAPS;
	return FSTAB_FMT_FSTAB;
}

/* no line of the file tells its format (it is empty, or all comments) */
#define FMT_UNTOLD 100

/* guess_line() of the file's first line that tells, else FMT_UNTOLD; *empty: no line at all */
static int guess_file(const char *path, bool *empty)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), r = FMT_UNTOLD;
	size_t cap = 0;
	char *buf = NULL;
	struct stat st;
	ssize_t n;
	FILE *f;

	*empty = false;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return FSTAB_FMT_MOUNTINFO;
	}
	if ((n = getline(&buf, &cap, f)) <= 0)
		*empty = true;
	for (; n > 0; n = getline(&buf, &cap, f)) {
		char *nl = strchr(buf, '\n');
		const char *s;

		if (!nl && (size_t)n > strlen(buf) && !feof(f))
			continue;
		if (nl)
			*nl = '\0';
		nl = buf + strlen(buf);
		if (nl > buf && nl[-1] == '\r')
			nl[-1] = '\0';
		s = skip_blanks(buf);
		if (*s && *s != '#') {
			r = guess_line(s);
			break;
		}
	}
	free(buf);
	fclose(f);
	return r;
}

int fstab_guess_format(const char *path)
{
	bool empty;
	int r = guess_file(path, &empty);

	if (r != FMT_UNTOLD)
		return r;
	return empty ? FSTAB_FMT_MOUNTINFO : FSTAB_FMT_FSTAB;
}

int fstab_guess_told(const char *path)
{
	bool empty;
	int r = guess_file(path, &empty);

	return r == FMT_UNTOLD ? FSTAB_FMT_FSTAB : r;
}

/*
 * libmount keeps the format it guessed for the files read after into
 * the same table: the first line that tells, over the files in turn.
 */
int fstab_guess_formats(const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool empty;
		int r = guess_file(paths[i], &empty);

		if (r != FMT_UNTOLD)
			return r;
	}
	return n ? fstab_guess_format(paths[0]) : FSTAB_FMT_MOUNTINFO;
}

static int read_path(struct fstab *t, const char *path, const char *name)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISREG(st.st_mode))
		return read_file(t, path, name);
	if (S_ISDIR(st.st_mode))
		return read_dir(t, path);
	return -EINVAL;
}

int fstab_read(const char *path, struct fstab *t)
{
	return fstab_read_all(&path, NULL, 1, t, NULL);
}

int fstab_append(struct fstab *t, struct fstab *more)
{
	struct fstab_ent *ent = realloc(t->ent, (t->n + more->n + 1) * sizeof(*ent));

	if (!ent)
		return -ENOMEM;
	t->ent = ent;
	for (size_t i = 0; i < more->n; i++) {
		struct fstab_ent *e = &t->ent[t->n];

		*e = more->ent[i];
		/* its own row: no parent link across the files' tables */
		e->m.index = e->m.parent_index = (uint32_t)t->n++;
	}
	t->nerrors += more->nerrors;
	free(more->ent);
	*more = (struct fstab){ 0 };
	return 0;
}

/* each entry's record for the column getters (fstab_of()) */
static void fill_recs(struct fstab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct fstab_ent *e = &t->ent[i];

		e->m = (struct mntsnap_mount){
			.mask = MNTSNAP_F_SOURCE,
			.index = (uint32_t)i,
			.parent_index = (uint32_t)i,
			.root = "",
			.mount_point = e->target,
			.source = e->source,
			.fs_type = e->fstype,
			.fs_subtype = "",
			.options = "",
			.opt_fields = "",
			.mnt_opts_text = "",
		};
	}
}

int fstab_read_all(const char *const *paths, const char *const *names, size_t n,
		   struct fstab *t, size_t *failed)
{
	int r = 0;

	*t = (struct fstab){ 0 };
	for (size_t i = 0; !r && i < n; i++)
		if ((r = read_path(t, paths[i], names ? names[i] : paths[i])) && failed)
			*failed = i;
	if (r) {
		fstab_free(t);
		return r;
	}
	fill_recs(t);
	return 0;
}

int fstab_read_fd(int fd, const char *name, struct fstab *t)
{
	char *buf = NULL;
	size_t len = 0;
	int r = lseek(fd, 0, SEEK_SET) < 0 ? -errno : cli_read_fd(fd, SIZE_MAX, &buf, &len);

	*t = (struct fstab){ 0 };
	if (!r)
		r = parse_buf(t, name, buf, len);
	free(buf);
	if (r) {
		fstab_free(t);
		return r;
	}
	mark_fs_kernel(t, 0, name);
	fill_recs(t);
	return 0;
}

void fstab_free(struct fstab *t)
{
	for (size_t i = 0; i < t->n; i++)
		ent_clear(&t->ent[i]);
	free(t->ent);
	*t = (struct fstab){ 0 };
}

/* libmount's pseudo filesystem types (2.38), sorted for bsearch */
static const char *const pseudo_types[] = {
	"anon_inodefs", "apparmorfs", "autofs", "bdev", "binder", "binfmt_misc", "bpf",
	"cgroup", "cgroup2", "configfs", "cpuset", "debugfs", "devfs", "devpts", "devtmpfs",
	"dlmfs", "dmabuf", "drm", "efivarfs", "fuse", "fuse.archivemount", "fuse.avfsd",
	"fuse.dumpfs", "fuse.encfs", "fuse.gvfs-fuse-daemon", "fuse.gvfsd-fuse", "fuse.lxcfs",
	"fuse.rofiles-fuse", "fuse.vmware-vmblock", "fuse.xwmfs", "fusectl", "hugetlbfs",
	"ipathfs", "mqueue", "nfsd", "none", "nsfs", "overlay", "pipefs", "proc", "pstore",
	"ramfs", "resctrl", "rootfs", "rpc_pipefs", "securityfs", "selinuxfs", "smackfs",
	"sockfs", "spufs", "sysfs", "tmpfs", "tracefs", "vboxsf", "virtiofs",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool fstab_pseudo(const char *type)
{
	return bsearch(&type, pseudo_types, sizeof(pseudo_types) / sizeof(pseudo_types[0]),
		       sizeof(pseudo_types[0]), cmp_str);
}

bool fstab_netfs(const char *t)
{
	static const char *const net[] = { "cifs", "smb3", "smbfs", "afs", "ncpfs", "glusterfs",
					   "fuse.curlftpfs", "fuse.sshfs" };

	if (!strncmp(t, "nfs", 3) || !strncmp(t, "9p", 2))
		return true;
	for (size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
		if (!strcmp(t, net[i]))
			return true;
	return false;
}
