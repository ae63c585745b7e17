// SPDX-License-Identifier: MIT
/* mntsnap list / mntsnap stat */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "intl.h"
#include "cmd-fstab.h"
#include "mi-clean.h"
#include "tags.h"
#include "view.h"

/* -F FILE and -N PID: findmnt reads them all, one table, in the order given */
#define LIST_TABS_MAX 16

static const char list_help[] =
	"usage: mntsnap list [TARGET] [OPTIONS] [SOURCE|MOUNTPOINT | SOURCE MOUNTPOINT]\n"
	"List the mounts of a mount namespace (default: the caller's), as\n"
	"findmnt does: a tree of TARGET,SOURCE,FSTYPE,OPTIONS by default.\n"
	"TARGET: --pid PID (-N, --task PID) | --ns PATH | --ns-id ID\n"
	"                        (-N: the task's view, from its root, as its\n"
	"                        /proc/PID/mountinfo: needs a procfs at /proc;\n"
	"                        PID as that /proc numbers it, as findmnt's)\n"
	"  -F, --tab-file FILE   read a saved table instead (also --mountinfo-file):\n"
	"                        mountinfo text (blank and '#' lines, CRLF, tabs\n"
	"                        read past as findmnt does), or the fstab format of\n"
	"                        /proc/mounts, an mtab or fstab (told by its first\n"
	"                        line, as findmnt does; then listed as -s lists);\n"
	"                        -F and -N more than once: their tables read in\n"
	"                        turn into one, a list (in the format the first\n"
	"                        line that tells has, -s: fstab); TID: the task a\n"
	"                        mountinfo FILE's path names (/proc/PID/mountinfo: PID)\n"
	"                        a device is read as text (/dev/null: empty), a\n"
	"                        directory only by -s (its *.fstab files)\n"
	"  --backend auto|statmount|mountinfo\n"
	"                        force a backend; auto falls back to mountinfo when\n"
	"                        statmount/listmount are missing or blocked\n"
	"  --under PATH          only the mount at PATH and the mounts below it\n"
	"                        (PATH as the TARGET sees it)\n"
	"  --threads N           statmount with N threads\n"
	"  --allow-inconsistent  print a table that changed during every capture\n"
	"                        (with a warning) instead of failing with exit 2;\n"
	"                        without it and without --backend or --under, list\n"
	"                        reads such a table from the mountinfo text once,\n"
	"                        as findmnt does, silently\n"
	"  -k, --kernel          the kernel's table (the default; with -x: check it)\n"
	"  -m, --mtab            findmnt's mtab: the kernel's table as a list, with\n"
	"                        the userspace options of /run/mount/utab\n"
	"                        ($LIBMOUNT_UTAB for root) in OPTIONS (VFS flags\n"
	"                        among them in VFS-OPTIONS, unknown ones in\n"
	"                        FS-OPTIONS too)\n"
	"  -c, --canonicalize    SOURCE as a path resolved on this file system\n"
	"  -C, --nocanonicalize  -T, -M, -S, SOURCE|MOUNTPOINT: by the text, nothing\n"
	"                        resolved, no device probed (LABEL, UUID, PARTLABEL,\n"
	"                        PARTUUID empty; -S LABEL=x as text; not with -e)\n"
	"                        (-s, -x: no tag evaluated either)\n"
	"                        (-T of a path that is not there: nothing)\n"
	"                        (-N/-k/-m/-s, -c/-C, -C/-e, -p/-s, -p/-x, and -x\n"
	"                        with -J/-P/-r/-l exclude each other, as in findmnt)\n"
	"fstab (findmnt's -s, -x, -e):\n"
	"  -s, --fstab           list /etc/fstab ($LIBMOUNT_FSTAB for root, or -F FILE)\n"
	"                        instead: findmnt's\n"
	"                        parsing (\\040 escapes, comments, LABEL=/UUID= tags),\n"
	"                        a list; FREQ and PASSNO columns; a malformed line is\n"
	"                        reported and skipped; the filters, -i, -f, -d, -U\n"
	"                        and -D select entries as findmnt's do\n"
	"  -x, --verify          check fstab (or -F FILE, not a pipe) as findmnt\n"
	"                        --verify does: exit 1 on errors or parse errors,\n"
	"                        0 otherwise;\n"
	"                        with -k or -m the mount table instead (-m: utab's\n"
	"                        userspace options too), with -N PID (or another\n"
	"                        TARGET) that task's\n"
	"  --verbose             with -x: every check, not just the findings\n"
	"  -e, --evaluate        show LABEL=/UUID=/... sources as their devices\n"
	"  -e, -x, -S TAG=value and the LABEL, PARTLABEL, PARTUUID, SOURCES columns\n"
	"  need libblkid (a build without it refuses them, exit 2); UUID is libblkid's\n"
	"  for the source device too (a build without it: the superblock's)\n"
	"  -p, --poll[=ACTIONS]  monitor the table, a line per change as findmnt\n"
	"                        --poll (columns ACTION,TARGET,SOURCE,FSTYPE,OPTIONS;\n"
	"                        --output-all, -D: theirs, no ACTION; -o adds ACTION,\n"
	"                        OLD-TARGET, OLD-OPTIONS); ACTIONS: mount,umount,\n"
	"                        remount,move (default: all; an empty item: exit 1,\n"
	"                        as findmnt); -m polls as -p (utab's options in\n"
	"                        the first batch's old records); see mntsnap watch\n"
	"                        the filters (-t -O -T -M -S --real --pseudo -D\n"
	"                        --shadowed -i, SOURCE) pick the changes shown, as\n"
	"                        in findmnt: -T is -M there; -f: the first, then stop\n"
	"                        (-N PID, or -F FILE of a task's table in /proc:\n"
	"                        that task's view, a chroot()ed one's from its root;\n"
	"                        a task's mountinfo or mounts, on any procfs, a\n"
	"                        thread's too, and -N's are read through one file\n"
	"                        opened at the start: the view fixed then, kept\n"
	"                        after a pivot_root; mounts' entries have no ids:\n"
	"                        paired by source and mount point, as findmnt does;\n"
	"                        another file is read once, its bad lines reported,\n"
	"                        and never changes: nothing until -w)\n"
	"  -w, --timeout MS      with --poll: stop after MS ms without a change\n"
	"                        (exit 0); SIGINT/SIGTERM end a poll as findmnt's:\n"
	"                        it dies of the signal (a shell's 128+N); a pipe\n"
	"                        whose reader went away: of SIGPIPE (141) at its\n"
	"                        next line, or \"write error\" at its end (exit 2)\n"
	"                        with SIGPIPE ignored\n"
	"A SOURCE or MOUNTPOINT argument prints only the mounts with that source\n"
	"or mount point; SOURCE MOUNTPOINT only those with both (as -S and -M).\n"
	"-S NAME, -T and -M refuse such an argument (-S MAJ:MIN does not).\n";

struct list_args {
	struct cli_target target;
	struct view view;
	int backend;
	const char *mountinfo_file;
	const char *under;
	unsigned threads;
	bool allow_inconsistent;
	bool mtab; /* -m (the last of -m, -k, -N says) */
	bool fstab, evaluate, verify, verbose, kernel;
	/* -p/-w: the -o lists are kept for the poll table (view's -o knows
	 * no ACTION) and handed to the view afterwards when not polling */
	bool poll;
	unsigned poll_actions; /* 1 << enum mntsnap_watch_kind; 0: every one */
	long timeout_ms;
	const char *specs[16];
	size_t nspecs;
	/* the -F files and -N's /proc/PID/mountinfo (NULL, tabpids[i]), in order */
	const char *tabs[LIST_TABS_MAX];
	long tabpids[LIST_TABS_MAX];
	size_t ntabs, npids;
	/* the files they are (tabs[i], or /proc/PID/mountinfo in pidtabs[i]) */
	const char *paths[LIST_TABS_MAX];
	char pidtabs[LIST_TABS_MAX][40];
	/* the paths as given, for messages (spool_tabs() changes a pipe's path) */
	const char *names[LIST_TABS_MAX];
	char tabpath[32]; /* their join: /proc/self/fd/N */
	/* a -F pipe read into a memory file named by no fd of ours (spool_tabs) */
	char spooled[LIST_TABS_MAX][32];
	/* per table in the join: its mounts (-errno if unknown) and their TID */
	long tabrows[LIST_TABS_MAX], tabtids[LIST_TABS_MAX];
};

static void print_help(const char *text)
{
	fputs(text, stdout);
	fputs(view_help, stdout);
	fputs("COLUMNS:\n", stdout);
	col_help(stdout);
	cli_poll_columns(stdout, true);
}

#define LIST_SHORTOPTS VIEW_SHORTOPTS VIEW_LIVE_SHORTOPTS VIEW_TABLE_SHORTOPTS "N:"
static const struct option list_lo[] = {
	VIEW_LONGOPTS,
	VIEW_LIVE_LONGOPTS,
	VIEW_TARGET_LONGOPTS,
	VIEW_TABLE_LONGOPTS,
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "under", required_argument, NULL, OPT_UNDER },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "allow-inconsistent", no_argument, NULL, OPT_ALLOW_INCONSISTENT },
	{ 0 },
};

static int parse_list(int argc, char **argv, struct list_args *a)
{
	uint64_t v;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, LIST_SHORTOPTS, list_lo, NULL)) != -1) {
		if (view_excl(&a->view, "list", c))
			return -EINVAL;
		/* findmnt keeps the last -o only (-p's table too; the view: view_finish) */
		if (c == 'o') {
			a->specs[0] = optarg;
			a->nspecs = 1;
		}
		if ((c == 'F' || c == 'N' || c == OPT_PID) && a->ntabs == LIST_TABS_MAX)
			return cli_fail(0, "list: more than %d tables (-F, -N)", LIST_TABS_MAX),
			       -EINVAL;
		r = view_opt(&a->view, "list", c, optarg);
		if (r < 0)
			return r;
		if (r)
			continue;
		switch (c) {
		case 'h':
			print_help(list_help);
			return 1;
		case 'V':
			cli_version(stdout);
			return 1;
		case 'N':
		case OPT_PID: {
			struct cli_target t = { 0 };

			/* another -N: one more table to read (checked alike) */
			if (cli_target_set(a->npids ? &t : &a->target, "--pid", optarg))
				return -EINVAL;
			a->target.task_view = true;
			a->view.out.cx.tid = a->target.pid;
			/* findmnt: -N reads the kernel's table of that task */
			a->mtab = false;
			a->tabpids[a->ntabs] = a->npids++ ? t.pid : a->target.pid;
			a->tabs[a->ntabs++] = NULL;
			break;
		}
		case 'k':
			/* the kernel's table: the default, and -x's subject instead of fstab */
			a->mtab = false;
			a->kernel = true;
			break;
		case 'm':
			/* findmnt turns its tree off for -m, whatever comes later */
			a->mtab = a->view.no_tree = true;
			break;
		case 'c':
			a->view.out.cx.canonicalize = true;
			break;
		case 'C':
			/* findmnt -C: no libmount cache, so no path resolved and no tag probed */
			a->view.nocanon = true;
			a->view.out.cx.nocache = true;
			break;
		case OPT_NS:
			if (cli_target_set(&a->target, "--ns", optarg))
				return -EINVAL;
			break;
		case OPT_NS_ID:
			if (cli_target_set(&a->target, "--ns-id", optarg))
				return -EINVAL;
			break;
		case 'F':
			a->mountinfo_file = optarg;
			a->tabs[a->ntabs++] = optarg;
			break;
		case OPT_BACKEND:
			a->backend = cli_parse_backend(optarg);
			if (a->backend < 0)
				return cli_fail(0, "list: unknown backend '%s'", optarg), -EINVAL;
			break;
		case OPT_UNDER:
			a->under = optarg;
			break;
		case OPT_THREADS:
			if (cli_parse_u64(optarg, &v) || v > 64)
				return cli_fail(0, "list: bad --threads '%s'", optarg), -EINVAL;
			a->threads = (unsigned)v;
			break;
		case OPT_ALLOW_INCONSISTENT:
			a->allow_inconsistent = true;
			break;
		case 's':
			a->fstab = true;
			break;
		case 'e':
			a->evaluate = true;
			break;
		case 'x':
			a->verify = true;
			break;
		case OPT_VERBOSE:
			a->verbose = true;
			break;
		case 'p':
			/* findmnt reads ACTIONS here: a bad list stops it at once;
			 * -p without one keeps the last list given */
			a->poll = true;
			r = optarg ? cli_poll_actions(optarg, &a->poll_actions) : 0;
			if (r)
				return r > 0 ? -ENODATA : r;
			break;
		case 'w': {
			/* findmnt's strtos32_or_err(): decimal, 32 bits, its words */
			int64_t ms;
			int e = cli_parse_findmnt_num(optarg, false, INT32_MIN, INT32_MAX, &ms);

			if (e)
				return cli_fail_ul(e == -ERANGE ? e : 0, "%s: '%s'",
						   ul_gettext("invalid timeout argument"), optarg),
				       -EINVAL;
			a->timeout_ms = (long)ms;
			break;
		}
		default:
			cli_fail(0, "list: bad option (see mntsnap list --help)");
			return -EINVAL;
		}
	}
	if (view_operands(&a->view, "list", argc, argv, &optind))
		return -EINVAL;
	if (optind < argc) {
		cli_fail(0, "list: unexpected argument '%s' (see --help)", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/*
 * libmount's unmangle() of a utab value: \ooo, three octal digits, is the
 * byte 64a+8b+c cut to 8 bits (\477 is '?'); anything else stays.
 */
static char *utab_value(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n && (s[i + 1] & ~7) == '0' &&
		    (s[i + 2] & ~7) == '0' && (s[i + 3] & ~7) == '0') {
			*o++ = (char)(64 * (s[i + 1] & 7) + 8 * (s[i + 2] & 7) + (s[i + 3] & 7));
			i += 3;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

struct utab_entry {
	char *src, *target, *root, *bindsrc, *opts, *attrs;
};

static void utab_entry_free(struct utab_entry *e)
{
	free(e->src), free(e->target), free(e->root), free(e->bindsrc), free(e->opts);
	free(e->attrs);
	*e = (struct utab_entry){ 0 };
}

/*
 * One utab line as libmount 2.38 reads it (mnt_table_parse_next(),
 * mnt_parse_utab_line()): the newline and a CR before it dropped, a blank
 * or '#' line no entry; fields apart by spaces only (a value ends at a
 * space or tab, but a tab does not start the next field, so what follows
 * it up to the next space is skipped as unknown); each key's first value
 * counts. An empty value of a key libmount knows (SRC=, TARGET=, ROOT=,
 * BINDSRC=, OPTS=, ATTRS=) makes the whole line a parse error, skipped.
 * Returns 1 with e filled, 0 for no entry, -ENOMEM.
 */
static int utab_parse(char *line, struct utab_entry *e)
{
	static const char *const keys[] = { "SRC=", "TARGET=", "ROOT=", "BINDSRC=", "OPTS=",
					    "ATTRS=" };
	char **slot[] = { &e->src, &e->target, &e->root, &e->bindsrc, &e->opts, &e->attrs };
	const size_t nkeys = sizeof(keys) / sizeof(keys[0]);
	char *p = line + strcspn(line, "\n");

	*p = '\0';
	if (p > line && p[-1] == '\r')
		p[-1] = '\0';
	p = line + strspn(line, " \t");
	if (!*p || *p == '#')
		return 0;
	while (*p) {
		size_t k = 0, len;

		p += strspn(p, " ");
		if (!*p)
			break;
		while (k < nkeys && (*slot[k] || strncmp(p, keys[k], strlen(keys[k]))))
			k++;
		if (k == nkeys) {
			p += strcspn(p, " ");
			continue;
		}
		p += strlen(keys[k]);
		len = strcspn(p, " \t");
		if (!len) {
			utab_entry_free(e);
			return 0;
		}
		*slot[k] = utab_value(p, len);
		if (!*slot[k]) {
			utab_entry_free(e);
			return -ENOMEM;
		}
		p += len;
	}
	return 1;
}

/* A source libmount takes as a tag has no path (mnt_fs_get_srcpath() NULL). */
static int tag_source(const char *src)
{
	char *name = NULL, *value = NULL;
	int r = tags_source(src, &name, &value);

	free(name);
	free(value);
	return r == -ENOMEM ? r : !r;
}

/* mnt_fs_streq_srcpath() for m's source, by libmount's pseudo types (fs_type.subtype) */
static bool utab_srcpath(const struct mntsnap_mount *m, const char *src)
{
	char type[256];

	if ((m->mask & MNTSNAP_F_FS_SUBTYPE) && m->fs_subtype[0])
		snprintf(type, sizeof(type), "%s.%s", m->fs_type, m->fs_subtype);
	else
		snprintf(type, sizeof(type), "%s", m->fs_type);
	return fstab_pseudo(type) ? !strcmp(m->source, src) : streq_paths(m->source, src);
}

/* the mounts utab is merged into: a snapshot's, or -m's table of several files */
struct utab_mounts {
	const struct mntsnap_snapshot *snap;
	const struct fstab *t;
};

static size_t um_count(const struct utab_mounts *um)
{
	return um->snap ? mntsnap_snapshot_count(um->snap) : um->t->n;
}

static void um_get(const struct utab_mounts *um, size_t j, struct mntsnap_mount *m)
{
	if (um->snap)
		mntsnap_snapshot_get(um->snap, j, m);
	else
		*m = um->t->ent[j].m;
}

/*
 * mnt_table_merge_user_fs(): give utab line e to the last mount of um,
 * the top of a stack, that no later line got and that e names: the same
 * root, mount point by streq_paths() ("//" is "/", a trailing '/' none),
 * source by mnt_fs_streq_srcpath() (a pseudo filesystem's by its exact
 * text; a tag, the mount's or the line's, never matches). A line without
 * SRC, TARGET, ROOT or both OPTS and ATTRS is passed over.
 */
static int utab_merge(const struct utab_mounts *um, struct utab_entry *e, bool *merged,
		      char **user)
{
	struct mntsnap_mount m;
	int r;

	if (!e->src || !e->target || !e->root || (!e->opts && !e->attrs))
		return 0;
	r = tag_source(e->src);
	if (r)
		return r < 0 ? r : 0;
	for (size_t j = um_count(um); j-- > 0;) {
		um_get(um, j, &m);
		if (merged[j] || strcmp(m.root, e->root) || !streq_paths(m.mount_point, e->target) ||
		    !(m.mask & MNTSNAP_F_SOURCE))
			continue;
		r = tag_source(m.source);
		if (r < 0)
			return r;
		if (r || !utab_srcpath(&m, e->src))
			continue;
		merged[j] = true;
		if (e->opts) {
			user[j] = e->opts;
			e->opts = NULL;
		}
		return 0;
	}
	return 0;
}

static void utab_entries_free(struct utab_entry *ent, size_t n)
{
	for (size_t i = 0; i < n; i++)
		utab_entry_free(&ent[i]);
	free(ent);
}

/*
 * Every line of utab file f, in file order. libmount finds a line's
 * newline with strchr(): a NUL byte before it hides it, and a line
 * without one is a parse error unless it is the file's last, read as a C
 * string (up to its first NUL, as the -F reader reads a mountinfo file's
 * last line). So a line with a NUL that ends in a newline gives no entry,
 * and the line before it for the same mount takes the mount instead.
 */
static int utab_read(FILE *f, struct utab_entry **ret, size_t *count)
{
	struct utab_entry *ent = NULL, *grown;
	size_t n = 0, cap = 0, lcap = 0;
	char *line = NULL;
	ssize_t len;
	int r = 0;

	while (!r && (len = getline(&line, &lcap, f)) > 0) {
		if (line[len - 1] == '\n' && memchr(line, '\0', len - 1))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(ent, cap * sizeof(*ent));
			if (!grown) {
				r = -ENOMEM;
				break;
			}
			ent = grown;
		}
		ent[n] = (struct utab_entry){ 0 };
		r = utab_parse(line, &ent[n]);
		if (r > 0)
			n++;
		r = r < 0 ? r : 0;
	}
	free(line);
	if (r) {
		utab_entries_free(ent, n);
		return r;
	}
	*ret = ent;
	*count = n;
	return 0;
}

/*
 * findmnt -m (libmount's mtab on a system without /etc/mtab): the kernel's
 * table with the userspace options mount(8) keeps in the utab (x-*,
 * noauto, ...) appended to each mount's OPTIONS. A utab line names its
 * mount by source, mount point and root (never by ID=). libmount 2.38
 * (__mnt_table_parse_mtab, mnt_table_merge_user_fs) walks the utab from
 * its LAST line to its first and gives each line to the last mount of the
 * table (the top of a stack) it names that no line got yet: with two lines
 * for one mount the last line wins, and on a stack the last line goes to
 * the top mount, the one before it to the mount below. A line with only
 * ATTRS= still takes its mount. user[i] is NULL where there are no options;
 * merged[i]: a line got mount i (libmount's MNT_FS_MERGED), set here and
 * kept by a caller that merges again (-m's files, each an mtab).
 */
static int utab_apply(const struct utab_mounts *um, bool *merged, char **user)
{
	/* mnt_get_utab_path(): $LIBMOUNT_UTAB, for root only */
	const char *path = cli_safe_getenv("LIBMOUNT_UTAB");
	struct utab_entry *ent = NULL;
	size_t nent = 0;
	struct stat st;
	FILE *f;
	int r;

	if (!path)
		path = "/run/mount/utab";
	/*
	 * libmount's is_file_empty(): a utab whose stat() says size 0 is no
	 * utab, never opened (a FIFO, a pipe, /dev/zero: read, they would
	 * block or never end)
	 */
	if (stat(path, &st) || !st.st_size)
		return 0;
	f = fopen(path, "re");
	if (!f || !um_count(um)) {
		if (f)
			fclose(f);
		return 0;
	}
	r = utab_read(f, &ent, &nent);
	fclose(f);
	for (size_t i = nent; !r && i-- > 0;)
		r = utab_merge(um, &ent[i], merged, user);
	utab_entries_free(ent, nent);
	return r;
}

static int utab_options(const struct mntsnap_snapshot *snap, char ***ret)
{
	const struct utab_mounts um = { .snap = snap };
	size_t n = mntsnap_snapshot_count(snap);
	char **user = calloc(n + 1, sizeof(*user));
	bool *merged = calloc(n + 1, 1);
	int r = user && merged ? utab_apply(&um, merged, user) : -ENOMEM;

	free(merged);
	if (r) {
		for (size_t i = 0; user && i < n; i++)
			free(user[i]);
		free(user);
		user = NULL;
	}
	*ret = user;
	return r;
}

static bool is_tag(const char *s)
{
	return s && (!strncmp(s, "LABEL=", 6) || !strncmp(s, "UUID=", 5) ||
		     !strncmp(s, "PARTLABEL=", 10) || !strncmp(s, "PARTUUID=", 9));
}

static bool is_blkid_col(const char *n)
{
	return !strcmp(n, "label") || !strcmp(n, "partlabel") || !strcmp(n, "partuuid") ||
	       !strcmp(n, "sources");
}

/*
 * What needs libblkid: refused in one line by a build without it
 * (--output-all leaves the blkid columns out there, view_finish()).
 */
static int need_blkid(struct list_args *a)
{
	bool cols = false;

	for (size_t i = 0; i < a->view.out.ncols; i++)
		cols |= is_blkid_col(a->view.out.cols[i]->name);
	if (tags_have() || !(cols || a->evaluate || a->verify || is_tag(a->view.source) ||
			     is_tag(a->view.match)))
		return 0;
	return cli_fail(0, "list: -e, -x, -S TAG=value and the LABEL, PARTLABEL, PARTUUID, "
			   "SOURCES columns need libblkid, which this build lacks");
}

/* the files of -F and -N, in the order given (-N PID: /proc/PID/mountinfo) */
static void tab_paths(struct list_args *a)
{
	for (size_t i = 0; i < a->ntabs; i++) {
		if (!a->tabs[i])
			snprintf(a->pidtabs[i], sizeof(a->pidtabs[i]), "/proc/%ld/mountinfo",
				 a->tabpids[i]);
		a->names[i] = a->paths[i] = a->tabs[i] ? a->tabs[i] : a->pidtabs[i];
	}
}

/* as the library bounds a mountinfo file: what can be a mount table */
#define SPOOL_MAX (1UL << 31)

/*
 * copy fd (a stream) to a new memory file; its fd, or -errno. Read whole
 * first: the readers hold the table in memory as well, later.
 */
static int spool_fd(int fd)
{
	char *buf;
	size_t len, off = 0;
	int mfd, r = cli_read_fd(fd, SPOOL_MAX, &buf, &len);

	if (r)
		return r;
	mfd = memfd_create("mntsnap-tab", MFD_CLOEXEC);
	if (mfd < 0)
		r = -errno;
	while (!r && off < len) {
		ssize_t n = write(mfd, buf + off, len - off);

		if (n <= 0)
			r = n < 0 ? -errno : -EIO;
		else
			off += (size_t)n;
	}
	free(buf);
	if (r && mfd >= 0)
		close(mfd);
	return r ? r : mfd;
}

/*
 * What spool_tabs() does with -F FILE, opened as fd (-1: open() failed):
 * 1 spool it, 0 read it as it is, -1 refused (said why). libmount reads
 * every FILE of a kernel table or an mtab as a stream, fopen() then
 * getline() (mnt_table_parse_file()), in turn: a FILE it cannot open
 * (missing, a device without its driver) and a directory (its read
 * fails: EISDIR) end the run, naming FILE, even after a good one; a
 * character device is text like any other (/dev/null an empty table,
 * which leaves the format to the next FILE's first line). Poll mode
 * (-p) keeps its own rules.
 */
static int tab_kind(int fd, const char *name)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		return cli_fail_ul(-errno, ul_gettext("can't read %s"), name), -1;
	if (S_ISDIR(st.st_mode))
		return cli_fail_ul(-EISDIR, ul_gettext("can't read %s"), name), -1;
	/*
	 * one that reads empty (/dev/null) is spooled, an empty table; any
	 * other is read as it was, by readers bounded for one that never
	 * ends (/dev/zero: refused at its line 1, no spool of GiBs)
	 */
	if (S_ISCHR(st.st_mode)) {
		char c;

		return read(fd, &c, 1) == 0;
	}
	return lseek(fd, 0, SEEK_CUR) < 0 && errno == ESPIPE;
}

/* tab_kind() will refuse fd (-1: open() failed): it names no file findmnt reads */
static bool tab_unreadable(int fd)
{
	struct stat st;

	return fd < 0 || fstat(fd, &st) || S_ISDIR(st.st_mode);
}

/*
 * findmnt reads the -F files in turn, so the parse warnings of those
 * before a FILE it cannot read come first: a file in the fstab format
 * (libmount passes over its bad lines, saying so). Read here for them alone.
 */
static void warn_tabs_before(const struct list_args *a, size_t i)
{
	for (size_t j = 0; j < i; j++) {
		struct fstab one = { 0 };

		if (!a->tabs[j] || fstab_guess_told(a->paths[j]) != FSTAB_FMT_FSTAB)
			continue;
		(void)fstab_read_all((const char *const *)&a->paths[j],
				     (const char *const *)&a->names[j], 1, &one, NULL);
		fstab_free(&one);
	}
}

/*
 * -F FILE that can be read only once (a pipe, a FIFO, a socket, a
 * terminal: lseek() fails with ESPIPE, as for "cat x | findmnt -F
 * /dev/stdin" or bash's <(...)). libmount reads any FILE as one stream
 * and guesses its format from its first line; here FILE is opened by
 * name more than once (the format guess, then that format's reader), so
 * such a FILE is read whole once, into a memory file, and is from then on
 * a regular file of the same bytes: FILE becomes /proc/self/fd/N of the
 * memory file, and messages name FILE as given (a->names). The stream
 * itself stays where it was (/dev/stdin stays the pipe): FILE named again
 * (-F /dev/stdin -F /dev/stdin, or /dev/fd/0 after it) is opened again
 * and read from where the first read left it, as libmount reads it again:
 * a pipe whose writer is done reads empty, a FIFO its next writer's text.
 * A seekable FILE (a device such as /dev/zero too) is read as it was.
 * Returns 0, or CLI_EXIT_ERR (said why).
 */
static int spool_tabs(struct list_args *a)
{
	for (size_t i = 0; i < a->ntabs; i++) {
		const char *f = a->tabs[i];
		int fd, mfd, r;

		if (!f)
			continue;
		fd = open(f, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 && a->poll)
			continue; /* the readers say why, as for any FILE */
		if (!a->poll && tab_unreadable(fd)) {
			int e = errno;

			warn_tabs_before(a, i);
			errno = e; /* open()'s, for tab_kind()'s message */
		}
		r = a->poll ? lseek(fd, 0, SEEK_CUR) < 0 && errno == ESPIPE
			    : tab_kind(fd, a->names[i]);
		if (r <= 0) {
			if (fd >= 0)
				close(fd);
			if (r < 0)
				return CLI_EXIT_ERR;
			continue;
		}
		mfd = spool_fd(fd);
		close(fd);
		if (mfd < 0)
			return cli_fail(mfd, "list: %s", f), CLI_EXIT_ERR;
		snprintf(a->spooled[i], sizeof(a->spooled[i]), "/proc/self/fd/%d", mfd);
		if (a->mountinfo_file == f)
			a->mountinfo_file = a->spooled[i];
		a->tabs[i] = a->paths[i] = a->spooled[i];
	}
	return 0;
}

/* findmnt reads every -F file into one table, in the fstab format too */
static void fstab_paths(struct list_args *a, struct fstab_args *fa)
{
	if (a->ntabs > 1) {
		fa->paths = a->paths;
		fa->npaths = a->ntabs;
		fa->path = a->paths[0];
	}
	if (a->ntabs && fa->path == a->paths[0])
		fa->names = a->names;
}

static int list_fstab(struct list_args *a)
{
	struct fstab_args fa = { .view = &a->view, .path = a->mountinfo_file,
				 .evaluate = a->evaluate, .verify = a->verify,
				 .verbose = a->verbose };

	fstab_paths(a, &fa);

	if (a->target.set)
		return cli_fail(0, "list: -s reads fstab, not a TARGET's table");
	return fstab_list(&fa);
}

static int list_mtab_files(struct list_args *a, struct fstab_args *fa);

/* every table's text tells the mountinfo format */
static bool tabs_all_mountinfo(const struct list_args *a)
{
	for (size_t i = 0; i < a->ntabs; i++)
		if (fstab_guess_told(a->paths[i]) != FSTAB_FMT_MOUNTINFO)
			return false;
	return true;
}

/*
 * -F FILE without -s: libmount guesses the format from the text. A file
 * in the fstab format (an mtab, a copy of /proc/mounts) is listed as -s
 * lists fstab, by findmnt's rules for a kernel table (-m: for an mtab).
 * More than one table: libmount keeps its first guess for the files read
 * after it (a line of the other format is then a parse error); -m reads
 * each file as an mtab of its own, its format guessed anew.
 * Returns -1 for mountinfo text (or a file only the library's reader
 * can say what is wrong with), else the exit status.
 */
static int list_tabfile(struct list_args *a)
{
	struct fstab_args fa = { .view = &a->view, .path = a->mountinfo_file,
				 .evaluate = a->evaluate, .verify = a->verify,
				 .verbose = a->verbose, .kernel_tab = !a->mtab,
				 .mtab = a->mtab };
	int fmt;

	/*
	 * --format mountinfo (ours) writes the kernel's text, which holds no
	 * utab options: mountinfo files alone are joined as without -m
	 */
	if (a->mtab && a->ntabs > 1 && !(a->view.mountinfo && tabs_all_mountinfo(a))) {
		fstab_paths(a, &fa);
		return list_mtab_files(a, &fa);
	}
	fmt = a->ntabs > 1 ? fstab_guess_formats(a->paths, a->ntabs)
			   : fstab_guess_format(a->mountinfo_file);

	if (fmt == FSTAB_FMT_SWAPS)
		return cli_fail(0, "list: %s: a swaps table (/proc/swaps), not mounts",
				a->names[0]);
	if (fmt != FSTAB_FMT_FSTAB)
		return -1;
	fstab_paths(a, &fa);
	return fstab_list(&fa);
}

/*
 * The task whose mount table FILE is (/proc/PID/mountinfo or mounts, a
 * thread's /proc/PID/task/TID/... too, /proc/self/... and /proc/mounts
 * through their links), 0 for any other file. thread: a thread's file is
 * TID's (its leader may have exited while TID runs: a zombie has no
 * namespace to open), else PID's.
 */
static long proc_table_task(const char *file, bool thread)
{
	char *real = realpath(file, NULL);
	long pid = 0, tid = 0;
	int end = 0;

	if (!real)
		return 0;
	if (sscanf(real, "/proc/%ld/task/%ld/%n", &pid, &tid, &end) != 2 || !end) {
		tid = 0;
		if (sscanf(real, "/proc/%ld/%n", &pid, &end) != 1 || !end)
			end = 0;
	}
	if (!end || (strcmp(real + end, "mountinfo") && strcmp(real + end, "mounts")))
		pid = 0;
	else if (thread && tid > 0)
		pid = tid;
	free(real);
	return pid > 0 ? pid : 0;
}

static long proc_table_pid(const char *file)
{
	return proc_table_task(file, false);
}

/* FILE is a task's table in /proc/mounts' format (/proc/PID/mounts). */
static bool proc_table_is_mounts(const char *file)
{
	char *real = realpath(file, NULL);
	const char *base = real ? strrchr(real, '/') : NULL;
	bool r = base && !strcmp(base + 1, "mounts");

	free(real);
	return r;
}

/*
 * The TID libmount gives the rows of a mountinfo FILE: the number naming
 * the directory FILE lies in once its links are resolved (/proc/PID/,
 * /proc/PID/task/TID/, /proc/self/ as the reader's pid, also a copy kept
 * under a directory named by a number), read as strtol() reads it and
 * cut to a pid_t; 0 (no TID) for any other file.
 */
static long tab_file_tid(const char *file)
{
	char *real = realpath(file, NULL), *slash, *end, *dir;
	long tid = 0;

	if (!real)
		return 0;
	slash = strrchr(real, '/');
	if (slash) {
		*slash = '\0';
		dir = strrchr(real, '/');
		if (dir && dir[1]) {
			errno = 0;
			tid = strtol(dir + 1, &end, 10);
			if (errno || *end)
				tid = 0;
		}
	}
	free(real);
	return (int)tid;
}

/* -F's text as the library reads it, and where each of its lines came from */
struct tab_join {
	int fd;
	struct cli_tabline *lines;
	size_t n, cap;
	bool changed; /* the text is not the file's as it was */
	/* the line no mountinfo line (cli_mi_clean_line()), and why */
	unsigned bad_line;
	const char *bad_why;
};

static void tj_free(struct tab_join *tj)
{
	if (tj->fd >= 0)
		close(tj->fd);
	free(tj->lines);
	*tj = (struct tab_join){ .fd = -1 };
}

static int tj_put(struct tab_join *tj, unsigned file, unsigned line, const char *s, size_t len)
{
	if (tj->n == tj->cap) {
		size_t cap = tj->cap ? 2 * tj->cap : 256;
		struct cli_tabline *nl = realloc(tj->lines, cap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		tj->lines = nl;
		tj->cap = cap;
	}
	tj->lines[tj->n++] = (struct cli_tabline){ .file = file, .line = line };
	if (write(tj->fd, s, len) != (ssize_t)len || write(tj->fd, "\n", 1) != 1)
		return -EIO;
	return 0;
}

/*
 * One line of a -F file. libmount drops the newline, then one \r before
 * it, skips blanks and passes over an empty or '#' line; the rest is
 * split as cli_mi_clean_line() says. A line it cannot split is refused here
 * (-EINVAL, tj->bad_line and tj->bad_why say which and why); one with a
 * NUL byte goes on as it was, for the library to refuse naming its line:
 * the README keeps both refusals (findmnt warns and lists the rest). The file's last
 * line without a newline is libmount's C string, up to its first NUL: a
 * file padded with zeros after its last line (a crash, a preallocated
 * copy) ends in a blank line passed over, as findmnt passes it over.
 */
static int tj_line(struct tab_join *tj, unsigned file, unsigned lineno, char *buf, size_t n,
		   char *out)
{
	size_t len = n && buf[n - 1] == '\n' ? n - 1 : strnlen(buf, n), k;
	const char *s, *why;

	tj->changed |= len < n && buf[n - 1] != '\n';
	if (memchr(buf, '\0', len))
		return tj_put(tj, file, lineno, buf, len);
	buf[len] = '\0';
	if (len && buf[len - 1] == '\r')
		buf[--len] = '\0';
	s = cli_mi_blanks(buf);
	if (!*s || *s == '#') {
		tj->changed = true;
		return 0;
	}
	k = cli_mi_clean_line(s, out, &why);
	if (!k) {
		tj->bad_line = lineno;
		tj->bad_why = why;
		return -EINVAL;
	}
	tj->changed |= k != n - 1 || memcmp(out, buf, k);
	return tj_put(tj, file, lineno, out, k);
}

/* a saved file, not a task's table in /proc nor a device or pipe */
static bool tab_cleanable(const char *file)
{
	struct stat st;

	return !stat(file, &st) && S_ISREG(st.st_mode) && !proc_table_pid(file);
}

/*
 * A file's lines into tj: a task's table in /proc as the kernel wrote it
 * (the library's strict reader judges that text: a short or corrupt read
 * is refused), any other file cleaned line by line as libmount reads it.
 */
static int tj_file(struct tab_join *tj, unsigned idx, const char *file)
{
	bool kernel = !tab_cleanable(file);
	char *buf = NULL, *out = NULL;
	size_t cap = 0, ocap = 0;
	unsigned lineno = 0;
	ssize_t n;
	FILE *f;
	int r = 0;

	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (!r && (n = getline(&buf, &cap, f)) > 0) {
		lineno++;
		if (kernel) {
			/* each file is read on its own: a last line without its newline ends there */
			r = tj_put(tj, idx, lineno, buf,
				   buf[n - 1] == '\n' ? (size_t)n - 1 : (size_t)n);
			continue;
		}
		if (ocap < 2 * (size_t)n + 2) {
			char *no = realloc(out, 2 * (size_t)n + 2);

			if (!no) {
				r = -ENOMEM;
				break;
			}
			out = no;
			ocap = 2 * (size_t)n + 2;
		}
		r = tj_line(tj, idx, lineno, buf, (size_t)n, out);
	}
	if (!r && ferror(f))
		r = -EIO;
	free(buf);
	free(out);
	fclose(f);
	return r;
}

/*
 * Table i's lines as the library reads them, after those already in tj's
 * memory file (made on the first call). Returns 0, or CLI_EXIT_ERR (said
 * why, naming the file as given; a line as the library's errors name
 * one: "FILE: line N" when joined is set, tables read into one).
 */
static int tj_spool(const struct list_args *a, struct tab_join *tj, size_t i, bool joined)
{
	int r;

	if (tj->fd < 0) {
		tj->fd = memfd_create("mntsnap-tabs", MFD_CLOEXEC);
		if (tj->fd < 0)
			return cli_fail(-errno, "list: %s", a->names[i]), CLI_EXIT_ERR;
	}
	r = tj_file(tj, (unsigned)i, a->paths[i]);
	if (r && tj->bad_why && joined)
		cli_fail(0, "list: %s: line %u: %s", a->names[i], tj->bad_line, tj->bad_why);
	else if (r && tj->bad_why)
		cli_fail(0, "list: line %u: %s", tj->bad_line, tj->bad_why);
	else if (r) /* findmnt's words for a table it could not read (a -N task gone) */
		cli_fail_ul(r, ul_gettext("can't read %s"), a->names[i]);
	return r ? CLI_EXIT_ERR : 0;
}

/*
 * -F and -N tables as the library reads them, into a memory file. More
 * than one: findmnt reads each table in turn into one, a list (no tree
 * over two tables); -N's is /proc/PID/mountinfo, as findmnt reads it.
 * One -F file: used only when cleaning changed its text (the file is
 * read as it is otherwise). Returns 0, or CLI_EXIT_ERR (said why).
 */
static int join_tabs(struct list_args *a, struct tab_join *tj)
{
	int r;

	/* the library reads it itself, bounded (a device never ends) */
	if (a->ntabs == 1 && !tab_cleanable(a->paths[0]))
		return 0;
	for (size_t i = 0; i < a->ntabs; i++) {
		size_t before = tj->n;

		if ((r = tj_spool(a, tj, i, a->ntabs > 1)))
			return r;
		/*
		 * findmnt's TID for this table's rows: the task its path names
		 * (-N's too); each line kept is one mount of the joined table
		 */
		a->tabtids[i] = tab_file_tid(a->paths[i]);
		a->tabrows[i] = (long)(tj->n - before);
	}
	if (a->ntabs == 1 && !tj->changed) {
		close(tj->fd);
		tj->fd = -1;
		return 0;
	}
	snprintf(a->tabpath, sizeof(a->tabpath), "/proc/self/fd/%d", tj->fd);
	a->mountinfo_file = a->tabpath;
	if (a->ntabs == 1)
		return 0;
	a->target = (struct cli_target){ 0 };
	a->view.out.cx.tid = 0;
	a->view.no_tree = true;
	a->view.force_tree = false;
	return 0;
}

/*
 * The joined table's TID per row (n rows): each table's rows their own
 * (findmnt reads each file on its own). NULL when the counts do not add
 * up to the table read (a table the library reads otherwise alone than
 * joined).
 */
static long *joined_tids(const struct list_args *a, size_t n)
{
	size_t at = 0;
	long *tids;

	for (size_t i = 0; i < a->ntabs; i++) {
		if (a->tabrows[i] < 0)
			return NULL;
		at += (size_t)a->tabrows[i];
	}
	if (at != n)
		return NULL;
	tids = calloc(n + 1, sizeof(*tids));
	at = 0;
	for (size_t i = 0; tids && i < a->ntabs; i++)
		for (long k = 0; k < a->tabrows[i]; k++)
			tids[at++] = a->tabtids[i];
	return tids;
}

/*
 * -m's table after one more file (__mnt_table_parse_mtab() per file):
 * when its first entry is a mountinfo file's mount (is_mountinfo()),
 * libmount merges utab into the WHOLE table read so far, each line into
 * the last mount it names that no line got yet: an earlier file's mounts
 * too (a mount an earlier file holds twice gets a line again). merged
 * (*had entries) holds what lines got across the files; an entry without
 * a root (the fstab format's) no line names. utab's options go after
 * each mount's OPTIONS, as libmount appends them (mnt_fs_append_options():
 * split into the VFS, FS and userspace lists too).
 */
static int mtab_merge_utab(struct fstab *t, bool **merged, size_t *had)
{
	const struct utab_mounts um = { .t = t };
	bool *m = realloc(*merged, (t->n + 1) * sizeof(**merged));
	char **user, *o;
	int r;

	if (!m)
		return -ENOMEM;
	*merged = m;
	for (; *had < t->n; ++*had)
		m[*had] = !fstab_ent_mountinfo(t, &t->ent[*had]);
	if (!t->n || !fstab_ent_mountinfo(t, &t->ent[0]))
		return 0;
	user = calloc(t->n + 1, sizeof(*user));
	if (!user)
		return -ENOMEM;
	r = utab_apply(&um, m, user);
	for (size_t k = 0; !r && k < t->n; k++) {
		struct fstab_ent *e = &t->ent[k];

		if (!user[k] || !*user[k])
			continue;
		if (asprintf(&o, "%s%s%s", e->options ? e->options : "",
			     e->options && *e->options ? "," : "", user[k]) < 0) {
			r = -ENOMEM;
			break;
		}
		free(e->options);
		e->options = o;
		/* -x --verbose shows each part in its list, as for one table */
		r = fstab_split_options(user[k], &e->vfs_opts, &e->fs_opts, &e->user_opts);
	}
	for (size_t k = 0; k < t->n; k++)
		free(user[k]);
	free(user);
	return r;
}

/*
 * -m's mountinfo file i: its mounts as entries of a table in the fstab
 * format (libmount's kernel entries: each has its root, ids, device and
 * propagation), in a snapshot that holds their strings.
 */
static int mtab_mountinfo(struct list_args *a, size_t i, struct mntsnap_snapshot **snap,
			  struct fstab *t)
{
	struct tab_join tj = { .fd = -1 };
	struct cli_tabmap map = { 0 };
	char path[40];
	int r;

	/* what libmount reads past (blank lines, CRLF, ...) cleaned, as for one -F */
	if (tab_cleanable(a->paths[i])) {
		r = tj_spool(a, &tj, i, true);
		if (r) {
			tj_free(&tj);
			return r;
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", tj.fd);
		/* one of several tables: errors name the file, as for -F A -F B */
		map = (struct cli_tabmap){ .joined = true, .files = a->names, .lines = tj.lines,
					   .n = tj.n };
	}
	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .backend = MNTSNAP_BACKEND_MOUNTINFO,
		     .mountinfo_path = tj.fd >= 0 ? path : a->paths[i],
		     .mask = MNTSNAP_MASK_DEFAULT | view_mask(&a->view));
	r = cli_capture_joined("list", &opts, a->allow_inconsistent, tj.fd >= 0 ? &map : NULL,
			       true, snap);
	tj_free(&tj);
	if (r)
		return CLI_EXIT_ERR;
	r = fstab_from_snapshot(*snap, t);
	if (r)
		return cli_fail(r, "list: %s", a->names[i]);
	/* one table of several files: its own rows, no tree */
	t->kernel = false;
	for (size_t k = 0; k < t->n; k++)
		t->ent[k].fs_kernel = true;
	return 0;
}

/*
 * -m -F A -F B: findmnt reads each file as an mtab, its format guessed
 * anew (mnt_table_parse_mtab()), into one table, utab merged after each
 * file: each file's entries in its own format, listed in turn as -s lists
 * fstab (a mountinfo file's mounts with their ids, devices and
 * propagation, no FREQ or PASSNO: libmount's kernel entries). The
 * snapshots hold the mounts' strings until the table is printed.
 */
static int list_mtab_files(struct list_args *a, struct fstab_args *fa)
{
	struct mntsnap_snapshot **snaps = calloc(a->ntabs + 1, sizeof(*snaps));
	struct fstab t = { 0 }, one = { 0 };
	bool *merged = NULL;
	long *tids = NULL;
	size_t had = 0;
	int r = 0;

	if (!snaps)
		return cli_fail(-ENOMEM, "list");
	for (size_t i = 0; !r && i < a->ntabs; i++) {
		int fmt = fstab_guess_told(a->paths[i]);
		bool mi = fmt == FSTAB_FMT_MOUNTINFO;

		/* kept: refused as one -F of it is (libmount lists the swap areas) */
		if (fmt == FSTAB_FMT_SWAPS)
			r = cli_fail(0, "list: %s: a swaps table (/proc/swaps), not mounts",
				     a->names[i]);
		else if (mi)
			r = mtab_mountinfo(a, i, &snaps[i], &one);
		else if ((r = fstab_read_all(&a->paths[i], &a->names[i], 1, &one, NULL)))
			r = cli_fail_ul(r, ul_gettext("can't read %s"), a->names[i]);
		/* TID: a task's mountinfo file's rows that task's, none for other text */
		a->tabtids[i] = mi ? tab_file_tid(a->paths[i]) : 0;
		a->tabrows[i] = (long)one.n;
		if (!r && (r = fstab_append(&t, &one)))
			r = cli_fail(r, "list");
		fstab_free(&one);
		if (!r && (r = mtab_merge_utab(&t, &merged, &had)))
			r = cli_fail(r, "list: reading the utab");
	}
	free(merged);
	if (r) {
		fstab_free(&t);
	} else {
		a->view.out.cx.tids = tids = joined_tids(a, t.n);
		r = fstab_list_table(fa, &t);
		a->view.out.cx.tids = NULL;
	}
	free(tids);
	for (size_t i = 0; i < a->ntabs; i++)
		mntsnap_snapshot_free(snaps[i]);
	free(snaps);
	return r;
}

/*
 * -p -F FILE, FILE no task's table: findmnt reads FILE once at the start
 * (the table it tells changes against) and never again, as such a file
 * never signals a change. Read it here as list -F reads it, for the same
 * messages (an fstab-format line findmnt ignores is reported so, a
 * mountinfo one refused, an unreadable FILE an error), and drop it.
 * Returns 0 or the exit status.
 */
static int poll_read_tab(struct list_args *a)
{
	struct mntsnap_snapshot *snap = NULL;
	struct tab_join tj = { .fd = -1 };
	struct cli_tabmap map = { 0 };
	struct fstab t = { 0 };
	int r, fmt = fstab_guess_format(a->mountinfo_file);

	/* libmount reads a swaps table without a word; list refuses to list one */
	if (fmt == FSTAB_FMT_SWAPS)
		return 0;
	if (fmt == FSTAB_FMT_FSTAB) {
		r = fstab_read(a->mountinfo_file, &t);
		fstab_free(&t);
		return r ? cli_fail(r, "list: %s", a->mountinfo_file) : 0;
	}
	r = join_tabs(a, &tj);
	if (r) {
		tj_free(&tj);
		return r;
	}
	map = (struct cli_tabmap){ .files = a->names, .lines = tj.lines, .n = tj.n };

	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .backend = MNTSNAP_BACKEND_MOUNTINFO,
		     .mountinfo_path = a->mountinfo_file);
	r = cli_capture_joined("list", &opts, a->allow_inconsistent, tj.fd >= 0 ? &map : NULL,
			       false, &snap);
	tj_free(&tj);
	mntsnap_snapshot_free(snap);
	return r ? CLI_EXIT_ERR : 0;
}

/*
 * -m -p: findmnt reads its first table as libmount's mtab, which merges
 * utab's options into a table in the mountinfo format only: the kernel's,
 * or -F's when it is a task's mountinfo (a task's mounts file is not).
 */
static bool poll_mtab(const struct list_args *a)
{
	char *real;
	size_t n;
	bool mi;

	if (!a->mtab || !a->mountinfo_file)
		return a->mtab;
	real = realpath(a->mountinfo_file, NULL);
	n = real ? strlen(real) : 0;
	mi = n >= 10 && !strcmp(real + n - 10, "/mountinfo");
	free(real);
	return mi;
}

/*
 * FILE is a task's table named base (mountinfo, mounts) on a procfs
 * (/proc's or one mounted elsewhere, a thread's /proc/PID/task/TID/ too):
 * live text whose view the kernel fixes when the file is opened.
 */
static bool procfs_table(const char *file, const char *name)
{
	char *real = realpath(file, NULL);
	const char *base = real ? strrchr(real, '/') : NULL;
	struct statfs sf;
	bool r = base && !strcmp(base + 1, name) && !statfs(real, &sf) &&
		 sf.f_type == CLI_PROC_SUPER_MAGIC;

	free(real);
	return r;
}

static bool procfs_mountinfo(const char *file)
{
	return procfs_table(file, "mountinfo");
}

/*
 * -p's table read through one file opened at the start, as findmnt
 * opens it once and reads it again at each change: a task's mountinfo
 * (-F's, or /proc/PID/mountinfo of -N PID), so the view is the one the
 * kernel fixed at that open (the task's root then, even after it
 * pivot_root()s; a thread's own root). Our own table stays the
 * namespace's watch (the same view: we keep our root). *buf holds -N's
 * path. NULL: the target's table as watched.
 */
static const char *poll_fixed_file(const struct list_args *a, long pid, char *buf, size_t size)
{
	if (a->mountinfo_file)
		return procfs_mountinfo(a->mountinfo_file) && !cli_pid_is_self(pid) ? a->mountinfo_file
									  : NULL;
	if (!a->target.set || a->target.ns_path || a->target.ns_id || cli_pid_is_self(a->target.pid))
		return NULL;
	snprintf(buf, size, "/proc/%ld/mountinfo", a->target.pid);
	/* no procfs at /proc: the task's namespace as watched without one */
	return procfs_mountinfo(buf) ? buf : NULL;
}

/*
 * -p: findmnt's poll mode, on the watcher (cmd-watch.c). findmnt -p -F FILE
 * polls FILE: a task's table on a procfs is that task's mounts, watched
 * through FILE (poll_fixed_file()); any other file never signals a change,
 * so findmnt waits out -w (or for ever) and prints nothing: the same here,
 * once FILE is read.
 */
static int list_poll(struct list_args *a)
{
	struct cli_poll q = { .t = &a->target, .view = &a->view, .specs = a->specs,
			      .nspecs = a->nspecs,
			      .mode = a->view.out.mode, .noheadings = a->view.out.noheadings,
			      .actions = a->poll_actions, .timeout_ms = a->timeout_ms,
			      .utab = poll_mtab(a) ? utab_options : NULL };
	char mi[64];
	long pid = 0;
	int r;

	if (a->ntabs > 1)
		return cli_fail(0, "list: --poll watches one table: one -F or -N");
	/*
	 * findmnt reads -o before any table, a file that never changes too:
	 * past its 54 columns (ACTION and the 4 default ones, -D's 7 or
	 * --output-all's 24, that +LIST extends, counted) it exits 1, silent
	 */
	if (a->nspecs && col_overflow(a->specs[a->nspecs - 1],
				      a->view.output_all ? 24 : a->view.df ? 7 : 5, COLS_MAX))
		return 1;
	if (a->mountinfo_file) {
		/* a thread's file: the thread, whose exit ends the poll */
		pid = proc_table_task(a->mountinfo_file, true);
		/* a task's table on any procfs, known by its magic and name */
		if (!pid && !procfs_mountinfo(a->mountinfo_file) &&
		    !procfs_table(a->mountinfo_file, "mounts")) {
			r = poll_read_tab(a);
			if (r)
				return r;
			poll(NULL, 0, a->timeout_ms < 0 ? -1 : (int)a->timeout_ms);
			return 0;
		}
		/* a task's in /proc: its exit ends the poll (README) */
		if (pid && !cli_pid_is_self(pid))
			a->target.set = true, a->target.pid = pid;
	}
	/*
	 * a task's table in /proc/mounts' format: findmnt reads that text
	 * again through the file it opened, no ids in it (cli_poll's
	 * mounts_path), whoever's table it is, ours too
	 */
	if (a->mountinfo_file && procfs_table(a->mountinfo_file, "mounts")) {
		q.mounts_path = a->mountinfo_file;
		q.mounts_name = a->names[0];
		return cli_poll(&q);
	}
	q.mountinfo_path = poll_fixed_file(a, pid, mi, sizeof(mi));
	/* libmount's TID of a file: the number of the directory it lies in */
	q.tid = q.mountinfo_path && a->mountinfo_file ? tab_file_tid(a->mountinfo_file)
						      : cli_target_tid(&a->target);
	/* libmount gives rows a TID for mountinfo text only, none for mounts' */
	if (a->mountinfo_file && proc_table_is_mounts(a->mountinfo_file))
		q.tid = 0;
	return cli_poll(&q);
}

/* findmnt -x checks fstab, the kernel's table with -k or -m, or -N's task's */
static bool list_reads_fstab(const struct list_args *a)
{
	return a->fstab || (a->verify && !a->kernel && !a->mtab && !a->target.set);
}

static int list_run(int argc, char **argv, const struct out_locale *loc)
{
	struct tags_cache tc = { 0 };
	char *tagdev = NULL;
	struct list_args a = { 0 };
	struct mntsnap_snapshot *snap = NULL;
	struct mntsnap_ns *ns = NULL;
	uint64_t under = 0;
	char **user = NULL;
	struct tab_join tj = { .fd = -1 };
	struct cli_tabmap map = { 0 };
	long *tids = NULL;
	int r;

	view_init(&a.view, loc);
	a.timeout_ms = -1;
	r = parse_list(argc, argv, &a);
	/* -ENODATA: an empty -p ACTIONS item, exit 1 with no word, as findmnt */
	if (r)
		return r > 0 ? 0 : r == -ENODATA ? 1 : CLI_EXIT_ERR;
	tab_paths(&a);
	/*
	 * findmnt -s, and -x of fstab (no -k, -m or -N), read the fstab by
	 * name (mnt_table_parse_fstab(): a pipe is refused): not spooled
	 */
	if (!list_reads_fstab(&a) && spool_tabs(&a))
		return CLI_EXIT_ERR;
	/* --list-columns prints and exits, with -p too (that would poll) */
	if (a.view.list_columns) {
		col_list(stdout);
		cli_poll_columns(stdout, false);
		return 0;
	}
	/* -e: a tag source shows as its device in every table, a mount's too, -p's too */
	a.view.out.cx.evaluate = a.evaluate;
	if (a.poll && a.evaluate && need_blkid(&a))
		return CLI_EXIT_ERR;
	if (a.poll)
		return list_poll(&a);
	r = view_finish(&a.view, "list");
	if (r)
		return r;
	if (need_blkid(&a))
		return CLI_EXIT_ERR;
	/*
	 * libmount's cache, one for the run: the lookups', -x's and -e's, then
	 * the columns', so each sees the tags an earlier probe read (of an
	 * fstab line's image file too)
	 */
	a.view.out.cx.tags = &tc;
	if (list_reads_fstab(&a)) {
		r = list_fstab(&a);
		goto out;
	}
	if ((a.ntabs > 1 || (a.mountinfo_file && !a.target.set)) && (r = list_tabfile(&a)) >= 0)
		goto out;
	/*
	 * -x walks the table with the fstab filter, which is findmnt's one
	 * filter (mnt_fs_match_source()) and takes the tag as written: a
	 * tag's device in its place would match a tmpfs whose source is that
	 * path, and miss one whose source text is the tag
	 */
	if (!a.verify)
		view_resolve_tag(&a.view, &tagdev);
	if (a.ntabs > 1 || (a.ntabs == 1 && a.tabs[0] && !a.target.set)) {
		r = join_tabs(&a, &tj);
		if (r)
			goto out;
		map = (struct cli_tabmap){ .joined = a.ntabs > 1, .files = a.names,
					   .lines = tj.lines, .n = tj.n };
	}
	if (a.mountinfo_file && a.target.set) {
		r = cli_fail(0, "list: --tab-file and a TARGET exclude each other");
		goto out;
	}
	if (a.mountinfo_file) {
		a.backend = MNTSNAP_BACKEND_MOUNTINFO;
		a.view.out.cx.file_uuid = true;
	}
	/* one mountinfo file: its rows' TID is the task its path names, if any */
	if (a.mountinfo_file && a.ntabs <= 1)
		a.view.out.cx.tid = tab_file_tid(a.ntabs ? a.paths[0] : a.mountinfo_file);
	/* findmnt's TID: the task whose table is read (our own, by default) */
	if (!a.mountinfo_file)
		a.view.out.cx.tid = cli_target_tid(&a.target);
	if (cli_target_open(&a.target, &ns)) {
		r = CLI_EXIT_ERR;
		goto out;
	}
	/* PATH as the target sees it: it may not exist here at all */
	if (a.under && cli_under_id("list", ns, a.under, &under)) {
		cli_target_close(ns);
		r = CLI_EXIT_ERR;
		goto out;
	}

	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .backend = a.backend, .ns = ns,
		     .mountinfo_path = a.mountinfo_file, .under_id = under,
		     .threads = a.threads, .mask = MNTSNAP_MASK_DEFAULT | view_mask(&a.view));
	r = cli_capture_joined("list", &opts, a.allow_inconsistent, tj.fd >= 0 ? &map : NULL,
			       true, &snap);
	cli_target_close(ns);
	tj_free(&tj);
	if (r) {
		r = CLI_EXIT_ERR;
		goto out;
	}
	if (a.ntabs > 1)
		a.view.out.cx.tids = tids = joined_tids(&a, mntsnap_snapshot_count(snap));
	if (a.mtab)
		r = utab_options(snap, &user);
	if (r) {
		r = cli_fail(r, "list: reading the utab");
		goto out_snap;
	}
	a.view.out.cx.user_opts = (const char *const *)user;
	if (a.verify) {
		struct fstab_args fa = { .view = &a.view, .verbose = a.verbose, .verify = true,
					 .user_opts = (const char *const *)user };

		r = fstab_verify_kernel(&fa, snap);
	} else {
		r = view_print(&a.view, "list", snap);
	}
	for (size_t i = 0; user && i < mntsnap_snapshot_count(snap); i++)
		free(user[i]);
	free(user);
out_snap:
	free(tids);
	mntsnap_snapshot_free(snap);
out:
	/* every return from here: the cache holds the run's blkid cache and what it learned */
	tj_free(&tj);
	tags_cache_release(&tc);
	free(tagdev);
	return r;
}

/*
 * The kernel numbers unique mount ids from 2^31 up (MNT_UNIQUE_ID_OFFSET):
 * a smaller number is a /proc id, findmnt's ID column, never a unique one.
 */
#define STAT_UNIQUE_MIN (1ULL << 31)

static bool is_old_id(const struct mntsnap_mount *m, void *data)
{
	return m->id_old == *(const uint32_t *)data;
}

static bool is_index(const struct mntsnap_mount *m, void *data)
{
	return m->index == *(const size_t *)data;
}

/*
 * The one mount of table all (freed here) that pick takes, asked again
 * by its unique id for every field; a table without unique ids (the
 * text backend) gives its own record. -ENOENT: pick took none.
 */
static int stat_picked(struct mntsnap_ns *ns, struct mntsnap_snapshot *all,
		       bool (*pick)(const struct mntsnap_mount *, void *), void *data,
		       struct mntsnap_snapshot **ret)
{
	struct mntsnap_snapshot *one = NULL;
	struct mntsnap_mount m;
	int r = mntsnap_snapshot_filter(all, pick, data, &one);

	mntsnap_snapshot_free(all);
	if (r)
		return r;
	if (!mntsnap_snapshot_count(one)) {
		mntsnap_snapshot_free(one);
		return -ENOENT;
	}
	mntsnap_snapshot_get(one, 0, &m);
	if (m.mask & MNTSNAP_F_ID) {
		uint64_t id = m.id;

		mntsnap_snapshot_free(one);
		return mntsnap_stat_id(ns, id, MNTSNAP_MASK_FULL, ret);
	}
	*ret = one;
	return 0;
}

/*
 * stat by a /proc id: found in the table (ids are reused, but one table
 * holds each once), then read as stat_picked() reads it.
 */
static int stat_old_id(struct mntsnap_ns *ns, uint32_t old, struct mntsnap_snapshot **ret)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .ns = ns);
	struct mntsnap_snapshot *all = NULL;
	int r = mntsnap_capture(&opts, &all);

	if (r)
		return r;
	return stat_picked(ns, all, is_old_id, &old, ret);
}

/*
 * The file statx finds at path (symlinks followed, AT_NO_AUTOMOUNT as
 * stat's own lookup): its device, inode and mount. The buffer is the
 * kernel's struct statx (256 bytes; libc headers may not name the mount
 * id fields yet). Both mount id kinds are asked for: the kernel fills
 * one (the unique one from 6.8, its bit in the mask), the same for every
 * path asked, or none before 5.8.
 */
#define STX_INO_BIT 0x100U	     /* STATX_INO */
#define STX_MNT_ID_BIT 0x1000U	     /* STATX_MNT_ID, Linux 5.8 */
#define STX_MNT_ID_UNIQUE_BIT 0x4000U /* STATX_MNT_ID_UNIQUE, Linux 6.8 */
#define STX_OFF_INO 32		     /* stx_ino */
#define STX_OFF_DEV 136		     /* stx_dev_major, stx_dev_minor */
#define STX_OFF_MNT_ID 144	     /* stx_mnt_id */

struct file_key {
	uint32_t dev[2];
	uint64_t ino, mnt;
	bool unique; /* mnt is a unique mount id */
};

static int file_key_at(const char *path, struct file_key *ret)
{
	uint64_t buf[32] = { 0 };
	uint32_t mask;

	if (syscall(SYS_statx, AT_FDCWD, path, AT_NO_AUTOMOUNT,
		    STX_INO_BIT | STX_MNT_ID_BIT | STX_MNT_ID_UNIQUE_BIT, buf))
		return -errno;
	memcpy(&mask, buf, sizeof(mask));
	if (!(mask & STX_INO_BIT))
		return -EOPNOTSUPP;
	memcpy(&ret->ino, (const char *)buf + STX_OFF_INO, sizeof(ret->ino));
	memcpy(ret->dev, (const char *)buf + STX_OFF_DEV, sizeof(ret->dev));
	ret->mnt = 0;
	if (mask & (STX_MNT_ID_BIT | STX_MNT_ID_UNIQUE_BIT))
		memcpy(&ret->mnt, (const char *)buf + STX_OFF_MNT_ID, sizeof(ret->mnt));
	ret->unique = mask & STX_MNT_ID_UNIQUE_BIT;
	return 0;
}

/* The unique id of the mount path is on (statx, Linux 6.8). */
static int path_unique_id(const char *path, uint64_t *ret)
{
	struct file_key k;
	int r = file_key_at(path, &k);

	if (r)
		return r;
	if (!k.unique)
		return -EOPNOTSUPP;
	*ret = k.mnt;
	return 0;
}

/*
 * stat PATH said "no such mount" for a path that exists: the mount it is
 * on is not in this namespace. Is it another namespace's (a path under
 * /proc/PID/root or /proc/PID/cwd of a task there, an fd from there)?
 * Each namespace mntsnap_ns_list() finds is asked for it. The pid of a
 * task in the one that holds it, -1 if that one has none, 0 if none
 * holds it: a detached mount (umount -l, a namespace that is gone) or
 * one of a namespace we may not ask.
 */
static long stat_path_ns(const char *path)
{
	struct mntsnap_ns_entry *v = NULL;
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_ns *ns;
	long found = 0;
	uint64_t id = 0;
	size_t n = 0;

	if (path_unique_id(path, &id) || mntsnap_ns_list(&v, &n))
		return 0;
	for (size_t i = 0; i < n && !found; i++) {
		if (v[i].own)
			continue;
		ns = NULL;
		if (v[i].pid > 0 ? mntsnap_ns_open_pid(v[i].pid, NULL, &ns)
				 : !v[i].ns_id || mntsnap_ns_open_id(v[i].ns_id, NULL, &ns))
			continue;
		if (!mntsnap_stat_id(ns, id, MNTSNAP_F_ID, &s))
			found = v[i].pid > 0 ? v[i].pid : -1;
		mntsnap_snapshot_free(s);
		s = NULL;
		mntsnap_ns_free(ns);
	}
	free(v);
	return found;
}

/*
 * Is path a kernel object on a mount that no table ever holds: a pipe, a
 * socket, an anonymous inode, a namespace file, a pidfd, a dma-buf or
 * secret memory? Their file systems cannot be mounted (SB_NOUSER), and
 * a magic link to one names no path ("pipe:[N]"): no mount has them.
 */
static bool on_kernel_internal(const char *path)
{
	static const unsigned long magic[] = {
		0x50495045, /* pipefs */
		0x534f434b, /* sockfs */
		0x09041934, /* anon_inodefs */
		0x6e736673, /* nsfs */
		0x50494446, /* pidfs */
		0x444d4142, /* dma-buf */
		0x5345434d, /* secretmem */
	};
	struct statfs sf;

	if (statfs(path, &sf))
		return false;
	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if ((unsigned long)sf.f_type == magic[i])
			return true;
	return false;
}

/*
 * Does path's text, resolved as findmnt resolves it (realpath(3): the
 * working directory's path for a relative one, links by their text),
 * name the file the kernel's lookup of path lands on, through the same
 * mount? Not when realpath fails (a magic link whose text is "... (deleted)",
 * a working directory removed: getcwd() fails) or its path leads
 * elsewhere (the working directory's path once a mount covers it).
 */
static bool text_names_file(const char *path)
{
	struct file_key a, b;
	char *rp;
	bool same;

	if (file_key_at(path, &a))
		return true; /* nothing to compare: stat's own answer stands */
	rp = realpath(path, NULL);
	if (!rp)
		return false;
	same = !file_key_at(rp, &b) && a.ino == b.ino && a.dev[0] == b.dev[0] &&
	       a.dev[1] == b.dev[1] && a.mnt == b.mnt;
	free(rp);
	return same;
}

/* the kernel's d_path() of a file no name leads to any more (unlinked) */
#define DELETED_TAIL " (deleted)"
/* symlinks followed into another text at most (the kernel's 40, less) */
#define MAGIC_DEPTH 8

static bool via_named_magic_link(const char *path, int depth);

/*
 * Is path itself (not followed) a symlink? Then: a magic link of procfs
 * (/proc/PID/fd/N, cwd, root, exe: its text an absolute path, where
 * procfs's plain links, /proc/self or /proc/mounts, are relative) to a
 * file that still has a name (its text not "... (deleted)"), or a plain
 * link whose text leads through one.
 */
static bool named_magic_link(const char *path, int depth)
{
	const size_t tail = sizeof(DELETED_TAIL) - 1;
	char buf[PATH_MAX], *next = NULL, *slash;
	struct statfs sf;
	struct stat st;
	bool proc, r;
	ssize_t n;
	int fd;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode))
		return false;
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	proc = !fstatfs(fd, &sf) && sf.f_type == CLI_PROC_SUPER_MAGIC;
	close(fd);
	if (proc && buf[0] == '/')
		return !((size_t)n >= tail && !strcmp(buf + n - tail, DELETED_TAIL));
	if (depth >= MAGIC_DEPTH)
		return false;
	/* a link's relative text goes on from its own directory */
	slash = strrchr(path, '/');
	if (buf[0] == '/' || !slash)
		next = strdup(buf);
	else if (asprintf(&next, "%.*s/%s", (int)(slash - path), path, buf) < 0)
		next = NULL;
	r = next && via_named_magic_link(next, depth + 1);
	free(next);
	return r;
}

/*
 * Does the kernel's lookup of path go through a magic link to a file
 * that still has a name (named_magic_link())? Each component is looked
 * at where that lookup reaches it: path up to it, not followed.
 */
static bool via_named_magic_link(const char *path, int depth)
{
	size_t len = strlen(path);
	char *p = strdup(path);
	bool found = false;

	for (size_t i = 1; p && i <= len && !found; i++) {
		char c = p[i];

		if ((c && c != '/') || p[i - 1] == '/')
			continue;
		p[i] = '\0';
		found = named_magic_link(p, depth);
		p[i] = c;
	}
	free(p);
	return found;
}

/*
 * stat PATH found the mount the file PATH reaches: is it findmnt -T's
 * answer to give instead, by PATH's text? When that text, resolved as
 * findmnt resolves it, names no file or another (text_names_file()),
 * except through a magic link to a file still named: stat prints the
 * mount such a link reaches, where it may be covered (README, kept). A
 * text that names the file keeps stat's mount too: the top one of a
 * stack, and the covering one of an a/m/x whose a was mounted over.
 */
static bool stat_wants_text(const char *path)
{
	return !text_names_file(path) && !via_named_magic_link(path, 0);
}

/*
 * stat PATH where the mount PATH is on is in no table of ours (a detached
 * mount; one outside our root, a chroot's), or stat -N PID PATH where
 * PATH cannot be opened in the task: findmnt -T PATH's answer, its lookup
 * by PATH's text on the table of ns (NULL: ours; list -T's), the last
 * mount it finds (a stack's top, as stat prints one). -EXDEV: it finds
 * none.
 */
static int stat_by_text(const struct out_locale *loc, struct mntsnap_ns *ns,
			const char *path, struct mntsnap_snapshot **ret)
{
	struct mntsnap_snapshot *all = NULL;
	struct mntsnap_capture_opts opts = { .sz = sizeof(opts), .ns = ns };
	long i;
	size_t idx;
	int r = mntsnap_capture(&opts, &all);

	if (r)
		return r;
	i = view_target_top(loc, all, path);
	if (i < 0) {
		mntsnap_snapshot_free(all);
		return i == -ENOENT ? -EXDEV : (int)i;
	}
	idx = (size_t)i;
	r = stat_picked(ns, all, is_index, &idx, ret);
	return r == -ENOENT ? -EXDEV : r;
}

/*
 * May we not open the root of task pid (/proc/PID/root: ptrace read
 * access, which an unprivileged caller lacks for a root-owned task, and
 * root for one holding a capability root's shell lacks)? Its mountinfo
 * is world-readable all the same, and findmnt -N PID -T PATH answers
 * from that text: stat -N then does as well (stat_by_text()).
 */
static bool task_root_denied(long pid)
{
	char buf[64];
	int fd;

	if (pid <= 0)
		return false;
	snprintf(buf, sizeof(buf), "/proc/%ld/root", pid);
	fd = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EACCES || errno == EPERM;
}

int cmd_list(int argc, char **argv, const struct out_locale *loc)
{
	return cli_findmnt_run("list", argc, argv, LIST_SHORTOPTS, list_lo, loc, list_run);
}

static const char stat_help[] =
	"usage: mntsnap stat [TARGET] [OPTIONS] (ID | PATH)\n"
	"One mount by its 64-bit unique id or by a path on it, without walking\n"
	"the mount table (statmount, or statx STATX_MNT_ID_UNIQUE + statmount).\n"
	"An ID below 2^31 is a /proc mount id (findmnt's ID column): it is looked\n"
	"up in the table first. Digits only are an ID (./N is a path). A PATH on\n"
	"a mount of another namespace (/proc/PID/root/...): ask it with -N PID.\n"
	"A PATH on a mount outside the reader's root (ours or -N's task's, in a\n"
	"chroot) is in no table; with no -N it is answered as findmnt -T answers\n"
	"it, as one on a detached mount (umount -l): by PATH's text, walked up to\n"
	"the nearest mount point of our table, its top mount (none, as for / of\n"
	"a chroot into a plain directory: nothing, exit 1); with -N (any PATH, for\n"
	"a task's root that reaches no mount): nothing, exit 1. With -N and no\n"
	"right to open /proc/PID/root (no ptrace access): PATH by its text in the\n"
	"task's mountinfo, as findmnt -N PID -T PATH (of a stack, the top mount).\n"
	"With no -N, a PATH whose text, resolved as findmnt resolves it\n"
	"(realpath), no longer names the file it reaches (a magic link to a\n"
	"deleted file, . or .. in a removed working directory or one a later\n"
	"mount covers) is answered by its text too, but a magic link to a file\n"
	"still named gives the mount it is on, covered or not. A pipe, a socket\n"
	"or another object of the kernel's own: an error. -N needs a procfs.\n"
	"Printed as a list by default.\n"
	"TARGET: --pid PID (-N, --task PID) | --ns PATH | --ns-id ID (a PATH\n"
	"        resolves in the target, symlinks included, without leaving its root)\n"
	"stat PATH is findmnt -T PATH (-T PATH is PATH; of several -T the last\n"
	"counts, -T beside a PATH is refused as findmnt's): the options below apply to\n"
	"that one mount as findmnt's do (a filter it fails: nothing printed, exit 1);\n"
	"-k, --kernel: the kernel's table, stat's own; -c, --canonicalize and\n"
	"-e, --evaluate: SOURCE as list's options print it. Refused (exit 2):\n"
	"-f with -S NAME and no -t or -O, findmnt's lookup of NAME alone (its\n"
	"first mount wherever it is, PATH not applied: mntsnap list -f -S NAME);\n"
	"with -t, -O or -S MAJ:MIN alone, -f applies to PATH's mount. A second\n"
	"-N: findmnt reads each task's table (mntsnap list -N PID -N PID -T PATH).\n";

/*
 * findmnt -T PATH's options that select other mounts than the one stat
 * reads, or another table: stat refuses each (exit 2) with its reason, and
 * the list that does it. The one list: --help prints it and the tests hold
 * the docs and the completion to that text.
 */
static const struct view_refusal stat_refused[] = {
	{ 'R', "-R, --submounts", "stat prints one mount (mntsnap list -T PATH -R)" },
	{ 'i', "-i, --invert", "every other mount (mntsnap list -T PATH -i)" },
	{ OPT_SHADOWED, "--shadowed", "stat reads the top mount (list -T PATH --shadowed)" },
	{ 'M', "-M, --mountpoint", "stat finds the mount PATH is on, as -T (list -M)" },
	/* findmnt --tree -T PATH: PATH's mount only if PATH is its mount point */
	{ OPT_TREE, "--tree", "stat prints one mount, never a tree (list --tree -T)" },
	{ 'm', "-m, --mtab", "it reads the mtab, a whole table; stat the kernel" },
	{ 'C', "-C, --nocanonicalize", "stat opens PATH here, never looks it up by text" },
	{ 's', "-s, --fstab", "it lists an fstab; stat reads a mount" },
	{ 'x', "-x, --verify", "it checks a whole table (mntsnap list -x)" },
	{ OPT_VERBOSE, "--verbose", "it is -x's" },
	{ 'p', "-p, --poll", "it watches the table (mntsnap list -p, watch)" },
	{ 'w', "-w, --timeout", "it is -p's" },
	{ 'F', "-F, --tab-file, --mountinfo-file", "another table (mntsnap list -F FILE -T PATH)" },
};
#define STAT_NREFUSED (sizeof(stat_refused) / sizeof(stat_refused[0]))

static void stat_print_help(void)
{
	fputs(stat_help, stdout);
	fputs(view_help, stdout);
	view_refused_help(stdout, "findmnt -T's options for other mounts or tables",
			  stat_refused, STAT_NREFUSED);
	fputs("COLUMNS:\n", stdout);
	col_help(stdout);
}

#define STAT_SHORTOPTS VIEW_SHORTOPTS VIEW_LIVE_SHORTOPTS VIEW_TABLE_SHORTOPTS "N:"
static const struct option stat_lo[] = {
	VIEW_LONGOPTS,
	VIEW_LIVE_LONGOPTS,
	VIEW_TABLE_LONGOPTS,
	VIEW_TARGET_LONGOPTS,
	{ 0 },
};

/*
 * stat's own handling of findmnt -T's options: 1 if c was one, 0 if not,
 * CLI_EXIT_ERR (message printed).
 */
static int stat_opt(struct view *v, int c, const char *arg, const char **what)
{
	switch (c) {
	case 'T':
		/* findmnt -T PATH: stat PATH (the last -T, as findmnt's) */
		*what = arg;
		return 1;
	case 'k':
		/* one mount of the kernel's table: stat's only table */
		return 1;
	case 'c':
		v->out.cx.canonicalize = true;
		return 1;
	case 'e':
		if (!tags_have())
			return cli_fail(0, "stat: -e needs libblkid, which this build lacks");
		v->out.cx.evaluate = true;
		return 1;
	}
	return 0;
}

/*
 * findmnt -f with a source name and no -t/-O is its mount(8)-like lookup
 * of that source alone (is_mount_compatible_mode()): the first mount of
 * it in the table, wherever it is, -T not applied. That prints another
 * mount than PATH's, which stat never does (it reads the one mount PATH
 * reaches): refused as the options of stat_refused are, naming the list
 * that does it. -S MAJ:MIN is no source name there (a filter).
 */
static int stat_first_source(const struct view *v)
{
	if (!v->first_only || !v->source || v->types || v->options)
		return 0;
	return cli_fail(0, "stat: -f with -S NAME (and no -t or -O) applies to list only: "
			   "findmnt's lookup of NAME alone, its first mount wherever it is, "
			   "not PATH's (mntsnap list -f -S %s -T PATH) (see mntsnap stat --help)",
			v->source);
}

/* PATH is on a mount of another namespace, one pid (or -1: none) is in */
static int stat_other_ns(const char *what, long pid)
{
	if (pid < 0)
		return cli_fail(0, "stat %s: on a mount of another mount namespace (as under "
				   "/proc/PID/root), not of this one: ask that namespace with "
				   "-N PID (of a task in it) or --ns-id ID", what);
	return cli_fail(0, "stat %s: on a mount of another mount namespace (as under "
			   "/proc/PID/root), not of this one: ask that namespace with -N PID "
			   "(pid %ld is in it)", what, pid);
}

/*
 * findmnt -N PID -T PATH: a relative PATH is the caller's, its working
 * directory's path before it; stat then resolves that in the task's
 * namespace from its root, as an absolute PATH (README). buf holds the
 * result; what itself if it is absolute or there is no such path.
 */
static const char *task_path(const char *what, char *buf, size_t size)
{
	char cwd[PATH_MAX];
	int n;

	if (what[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return what;
	n = snprintf(buf, size, "%s/%s", strcmp(cwd, "/") ? cwd : "", what);
	return n > 0 && (size_t)n < size ? buf : what;
}

static int stat_run(int argc, char **argv, const struct out_locale *loc)
{
	struct cli_target t = { 0 };
	struct mntsnap_snapshot *snap = NULL;
	struct mntsnap_ns *ns = NULL;
	const char *what = NULL, *target = NULL;
	struct tags_cache tc = { 0 };
	char *tagdev = NULL, abspath[2 * PATH_MAX];
	struct view v;
	uint64_t id;
	long pid = 0;
	int c, r;

	view_init(&v, loc);
	v.out.mode = OUT_LIST;
	/* findmnt -T's one mount: its forms (a list, no tree unless --tree) */
	v.one = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, STAT_SHORTOPTS, stat_lo, NULL)) != -1) {
		r = view_refuse("stat", stat_refused, STAT_NREFUSED, c);
		if (r)
			return r;
		if (view_excl(&v, "stat", c))
			return CLI_EXIT_ERR;
		r = stat_opt(&v, c, optarg, &target);
		if (r == CLI_EXIT_ERR)
			return r;
		if (r)
			continue;
		r = view_opt(&v, "stat", c, optarg);
		if (r < 0)
			return CLI_EXIT_ERR;
		if (r)
			continue;
		if (c == 'h') {
			stat_print_help();
			return 0;
		}
		if (c == 'V') {
			cli_version(stdout);
			return 0;
		}
		if ((c == 'N' || c == OPT_PID) && t.pid)
			/* findmnt -N A -N B: both tasks' tables, one after the other */
			return cli_fail(0, "stat: a second -N applies to list only: another "
					   "table (mntsnap list -N PID -N PID -T PATH) "
					   "(see mntsnap stat --help)");
		if (c == 'N' || c == OPT_PID)
			r = cli_target_set(&t, "--pid", optarg);
		else if (c == OPT_NS)
			r = cli_target_set(&t, "--ns", optarg);
		else if (c == OPT_NS_ID)
			r = cli_target_set(&t, "--ns-id", optarg);
		else
			return cli_fail(0, "stat: bad option (see mntsnap stat --help)");
		if (r)
			return CLI_EXIT_ERR;
	}
	if (v.list_columns) {
		col_list(stdout);
		return 0;
	}
	r = view_finish(&v, "stat");
	if (r)
		return r;
	r = stat_first_source(&v);
	if (r)
		return r;
	/* as list's: the live table's TID, -N's task's or our own */
	v.out.cx.tid = cli_target_tid(&t);
	/*
	 * findmnt -T PATH with an argument beside it, before or after, is
	 * its usage error (-T and -S exclude a command line element): -T is
	 * stat PATH only as findmnt takes -T, the last of several counting.
	 */
	if (optind < argc && target)
		return cli_fail(0, "stat: -T excludes a PATH argument, as findmnt's -T excludes "
				   "one (give -T PATH or PATH; of several -T the last counts)");
	what = target;
	if (optind < argc)
		what = argv[optind++];
	if (optind < argc)
		return cli_fail(0, "stat: unexpected argument '%s' (one ID or PATH, or -T PATH; "
				   "see --help)", argv[optind]);
	if (!what)
		return cli_fail(0, "stat: give a mount id or a path (see --help)");
	/* findmnt -T '' walks the empty text up to "/": stat opens what it names */
	if (!*what)
		return cli_fail(0, "stat '': an empty PATH names no file (give / for the root)");
	if (is_tag(v.source) && !tags_have())
		return cli_fail(0, "stat: -S TAG=value needs libblkid, which this build lacks");
	t.task_view = true;
	if (cli_target_open(&t, &ns))
		return CLI_EXIT_ERR;
	/* a bare number is an id; "./123" and -T's argument name a path */
	if (target || cli_parse_u64(what, &id)) {
		if (t.pid)
			what = task_path(what, abspath, sizeof(abspath));
		r = mntsnap_ns_stat_path(ns, what, MNTSNAP_MASK_FULL, &snap);
		if (r == -ENOENT && !ns && on_kernel_internal(what)) {
			cli_target_close(ns);
			return cli_fail(0, "stat %s: not on a mounted file system (a pipe, a "
					   "socket or another object of the kernel's own)", what);
		}
		if (r == -ENOENT && !ns && access(what, F_OK) == 0)
			pid = stat_path_ns(what);
		if (pid) {
			cli_target_close(ns);
			return stat_other_ns(what, pid);
		}
		/*
		 * on no mount of our table (the path exists), or its text leads
		 * elsewhere through no named magic link: by its text, as findmnt
		 */
		if (!ns && !r && stat_wants_text(what)) {
			mntsnap_snapshot_free(snap);
			snap = NULL;
			r = stat_by_text(loc, NULL, what, &snap);
		} else if (!ns && (r == -EXDEV || (r == -ENOENT && access(what, F_OK) == 0))) {
			r = stat_by_text(loc, NULL, what, &snap);
		}
		/* -N's task's root is closed to us: its mountinfo text, as findmnt -N's */
		if (ns && r == -EACCES && task_root_denied(t.pid))
			r = stat_by_text(loc, ns, what, &snap);
	} else if (id < STAT_UNIQUE_MIN) {
		r = stat_old_id(ns, (uint32_t)id, &snap);
		if (r == -ENOENT) {
			cli_target_close(ns);
			return cli_fail(0, "stat %s: no mount has /proc mount id %s (an id below "
					   "2^31 is findmnt's ID, not a unique id)", what, what);
		}
	} else {
		r = mntsnap_stat_id(ns, id, MNTSNAP_MASK_FULL, &snap);
	}
	cli_target_close(ns);
	/*
	 * A mount outside the root of the table's reader (ours, or -N's
	 * task's: a chroot()) is not in that table, as findmnt -T finds
	 * nothing there: nothing printed, exit 1.
	 */
	if (r == -EXDEV)
		return 1;
	if (r)
		return cli_fail(r, "stat %s", what);
	/* as list's -S TAG: the device the tag names (libmount's cache, as list's) */
	v.out.cx.tags = &tc;
	view_resolve_tag(&v, &tagdev);
	r = view_print(&v, "stat", snap);
	mntsnap_snapshot_free(snap);
	tags_cache_release(&tc);
	free(tagdev);
	return r;
}

int cmd_stat(int argc, char **argv, const struct out_locale *loc)
{
	return cli_findmnt_run("stat", argc, argv, STAT_SHORTOPTS, stat_lo, loc, stat_run);
}
