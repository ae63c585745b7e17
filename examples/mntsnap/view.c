// SPDX-License-Identifier: MIT
/* Output and filter options of list, show and stat (see view.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btrfs.h"
#include "cli.h"
#include "intl.h"
#include "fstab.h"
#include "devroot.h"
#include "pathcache.h"
#include "tags.h"
#include "view.h"

const char view_help[] =
	"Output (findmnt's options):\n"
	"  -o, --output COLUMNS  columns to print (default " COLS_DEFAULT ";\n"
	"                        +COLUMNS adds to it; the last -o counts); see\n"
	"                        COLUMNS below. An empty name (-o '', -o A,,B),\n"
	"                        or more than 54 columns (the default ones +LIST\n"
	"                        adds to counted): nothing printed, exit 1, as findmnt\n"
	"  --output-all          findmnt's 24 columns, in findmnt's order (mntsnap's\n"
	"                        own, UNIQ-ID ... GIDMAP, only by name with -o)\n"
	"  --vfs-all             VFS-OPTIONS lists every VFS option, the default\n"
	"                        ones too (rw,exec,suid,dev,async,...), as findmnt\n"
	"  -J, --json            JSON (nested by the tree; flat with -l)\n"
	"  -l, --list            a list instead of a tree\n"
	"  -r, --raw             raw: unaligned, blanks and non-ASCII as \\xHH\n"
	"  -P, --pairs           NAME=\"value\" pairs\n"
	"  -n, --noheadings      no header line\n"
	"  -a, --ascii           draw the tree with ASCII characters\n"
	"  -u, --notruncate      accepted: mntsnap never truncates\n"
	"  -b, --bytes           SIZE, AVAIL, USED in bytes (JSON: numbers)\n"
	"  --format tree|list|table|json|raw|pairs|mountinfo\n"
	"                        long forms of the above; mountinfo is the kernel's\n"
	"                        own text, byte for byte (columns do not apply)\n"
	"Filters:\n"
	"  -t, --types LIST      only these filesystem types (a leading \"no\"\n"
	"                        negates the whole list, as in findmnt)\n"
	"  -O, --options LIST    only mounts with these options (noX: without X,\n"
	"                        +X: X literally, X=V: with that value); libmount's\n"
	"                        rules: \",\" matches every mount, a \"no\" or \"+\"\n"
	"                        that ends LIST repeats the option before it\n"
	"  -T, --target PATH     only the mounts at the mount point PATH is on\n"
	"                        (-T, -M: an empty PATH is /, as in libmount)\n"
	"                        (show: found in the saved table by its text,\n"
	"                        never on this file system: PATH need not exist)\n"
	"  -M, --mountpoint DIR  only the mounts at mount point DIR (stacked ones too)\n"
	"  -S, --source SOURCE   only the mounts of this source (MAJ:MIN: of this\n"
	"                        device number, as findmnt; -S MAJ:MIN -S NAME: both);\n"
	"                        list, -p: a symlink or relative path resolved too,\n"
	"                        as findmnt does (-p: each path once, at its first\n"
	"                        use, kept); LABEL=x (UUID=, PARTUUID=, PARTLABEL=,\n"
	"                        ID=: /dev/disk/by-id/x): a mount of that\n"
	"                        source text, then of the device the tag names\n"
	"                        (never a pseudo or network filesystem's source)\n"
	"  -R, --submounts       with -T, -M, -S or a SOURCE|MOUNTPOINT: the mounts\n"
	"                        below each match too, as a tree\n"
	"  --real, --pseudo      only real / only pseudo filesystems (libmount's\n"
	"                        pseudo types: proc, sysfs, tmpfs, cgroup2, ...)\n"
	"  --shadowed            only mounts another mount is stacked on\n"
	"  -A, --all             no built-in filter (-D's; a list with --real,\n"
	"                        --pseudo or -D prints every mount, as findmnt)\n"
	"  -U, --uniq            one mount per mount point: the last in the table\n"
	"                        (the children of the others move to their parent,\n"
	"                        PARENT included)\n"
	"  -f, --first-only      the first match only (a list); with a SOURCE and no\n"
	"                        -t/-O: findmnt's lookup of it alone (-T, -M,\n"
	"                        -S MAJ:MIN, -i, --real, --pseudo, --shadowed do\n"
	"                        not apply; of a btrfs device's mounts, the default\n"
	"                        subvolume's first, as mount(8) picks; show: asked\n"
	"                        where the device's btrfs is mounted there now)\n"
	"  -i, --invert          the mounts the filters do not match\n"
	"  -d, --direction forward|backward\n"
	"                        the order lookups and lists go through the table\n"
	"  -v, --nofsroot        SOURCE without [/fsroot]\n"
	"  --tree                a tree also where a list is the default (-l, -r,\n"
	"                        -P, a lookup, -D, list's mtab)\n"
	"  -D, --df              df's columns (SOURCE,FSTYPE,SIZE,USED,AVAIL,USE%,\n"
	"                        TARGET), a list, pseudo filesystems left out but\n"
	"                        tmpfs (-A keeps them)\n"
	"  -y, --shell           column names as shell variables (USE% -> USE_PCT)\n"
	"  --list-columns        print every column and what it is, one a line\n"
	"                        (mntsnap's: findmnt 2.38 has no such option);\n"
	"                        list's ends with -p's ACTION, OLD-TARGET and\n"
	"                        OLD-OPTIONS, refused without -p\n"
	"  -V, --version         mntsnap's version (as mntsnap --version)\n"
	"Long options shorten as findmnt's do: a prefix of one of findmnt's long\n"
	"option names is that option, though mntsnap's own names share it; a\n"
	"prefix of several of findmnt's is refused; mntsnap's own options go\n"
	"whole or by a prefix findmnt does not know (mntsnap(1), OUTPUT OPTIONS).\n"
	"Options findmnt refuses together are refused (exit 2): -J/-P/-r,\n"
	"-P/-l/-r, -M/-T, --real/--pseudo.\n"
	"Exit status: 0 something printed, 1 nothing matched, 2 error.\n";

void view_init(struct view *v, const struct out_locale *loc)
{
	const char *bad;
	size_t badlen;

	*v = (struct view){ 0 };
	v->out.mode = OUT_TREE;
	v->out.cx.loc = *loc;
	col_parse(COLS_DEFAULT, v->out.cols, &v->out.ncols, COLS_MAX, &bad, &badlen);
}

static int set_format(struct view *v, const char *cmd, const char *f)
{
	static const struct {
		const char *name;
		enum out_mode mode;
	} fm[] = {
		{ "tree", OUT_TREE }, { "list", OUT_LIST }, { "table", OUT_LIST },
		{ "json", OUT_JSON }, { "raw", OUT_RAW },   { "pairs", OUT_PAIRS },
	};

	v->mountinfo = !strcmp(f, "mountinfo");
	if (v->mountinfo)
		return 1;
	for (size_t i = 0; i < sizeof(fm) / sizeof(fm[0]); i++)
		if (!strcmp(f, fm[i].name)) {
			v->out.mode = fm[i].mode;
			return 1;
		}
	cli_fail(0, "%s: unknown format '%s'", cmd, f);
	return -EINVAL;
}

uint32_t view_mask(const struct view *v)
{
	uint32_t m = 0;

	for (size_t i = 0; i < v->out.ncols; i++)
		m |= v->out.cols[i]->need;
	return m;
}

int view_opt(struct view *v, const char *cmd, int c, const char *arg)
{
	switch (c) {
	case 'o':
		/* checked by view_finish(): findmnt reads only the last -o */
		v->outarg = arg;
		return 1;
	case OPT_OUTPUT_ALL:
		v->output_all = true;
		return 1;
	case OPT_VFS_ALL:
		v->out.cx.vfs_all = true;
		return 1;
	case 'J':
		v->out.mode = OUT_JSON;
		return 1;
	case 'l':
		v->list_forced = true;
		if (v->out.mode == OUT_TREE)
			v->out.mode = OUT_LIST;
		return 1;
	case 'r':
		v->out.mode = OUT_RAW;
		return 1;
	case 'P':
		v->out.mode = OUT_PAIRS;
		return 1;
	case 'n':
		v->out.noheadings = true;
		return 1;
	case 'a':
		v->out.ascii = true;
		return 1;
	case 'u':
		return 1;
	case 'b':
		v->out.cx.bytes = true;
		return 1;
	case 't':
		v->types = arg;
		return 1;
	case 'O':
		v->options = arg;
		return 1;
	case 'T':
		v->target = arg;
		return 1;
	case 'M':
		v->mountpoint = arg;
		return 1;
	case 'S':
		/*
		 * findmnt keeps a MAJ:MIN and a NAME apart (its MAJ:MIN and
		 * SOURCE matches): -S 8:1 -S /dev/sda1 wants both
		 */
		if (view_is_devno(arg))
			v->devno = arg;
		else
			v->source = arg;
		return 1;
	case 'R':
		v->submounts = true;
		return 1;
	case OPT_FORMAT:
		return set_format(v, cmd, arg);
	case OPT_REAL:
		v->real = true;
		return 1;
	case OPT_PSEUDO:
		v->pseudo = true;
		return 1;
	case OPT_SHADOWED:
		v->shadowed = true;
		return 1;
	case 'A':
		v->all = true;
		return 1;
	case 'U':
		v->uniq = true;
		return 1;
	case 'f':
		v->first_only = true;
		return 1;
	case 'i':
		v->invert = true;
		return 1;
	case 'd':
		if (strcmp(arg, "forward") && strcmp(arg, "backward")) {
			/* findmnt's words (its msgid), after the command's name */
			char *m = NULL;

			if (asprintf(&m, ul_gettext("unknown direction '%s'"), arg) < 0)
				m = NULL;
			cli_fail(0, "%s: %s", cmd, m ? m : arg);
			free(m);
			return -EINVAL;
		}
		v->backward = !strcmp(arg, "backward");
		return 1;
	case 'v':
		v->out.cx.nofsroot = true;
		return 1;
	case OPT_TREE:
		v->force_tree = true;
		return 1;
	case 'D':
		v->df = v->no_tree = true;
		return 1;
	case 'y':
		v->out.shellvar = true;
		return 1;
	case OPT_LIST_COLUMNS:
		v->list_columns = true;
		return 1;
	}
	return 0;
}

/* findmnt's mutually exclusive options (an option may repeat) */
static const struct {
	int opt[4];
	const char *names;
} excl[VIEW_EXCL_GROUPS] = {
	{ { 'C', 'c' }, "--nocanonicalize --canonicalize" },
	/* list's -e: tags evaluated need the cache -C turns off */
	{ { 'C', 'e' }, "--nocanonicalize --evaluate" },
	{ { 'J', 'P', 'r', 'x' }, "--json --pairs --raw --verify" },
	{ { 'M', 'T' }, "--mountpoint --target" },
	{ { 'N', 'k', 'm', 's' }, "--task --kernel --mtab --fstab" },
	{ { 'P', 'l', 'r', 'x' }, "--pairs --list --raw --verify" },
	{ { OPT_PSEUDO, OPT_REAL }, "--pseudo --real" },
	{ { 'p', 'x' }, "--poll --verify" },
	/*
	 * findmnt's row is -m/-p/-s, but its check walks the rows in ASCII
	 * order of their first option and stops at the first row past the
	 * option: that row comes after -p/-x, so -m never reaches it and
	 * findmnt 2.38.1 takes -m -p (it polls). -N/-k/-m/-s keeps -m from -s.
	 * Its message names the whole row.
	 */
	{ { 'p', 's' }, "--mtab --poll --fstab" },
};

/*
 * -S MAJ:MIN as findmnt reads it: sscanf("%d:%d"), each int then taken as
 * makedev()'s unsigned int. "%u" differs past long's range: a minor of
 * -99999999999999999999 is 0 to "%d" (LONG_MIN cut to int), ~0 to "%u".
 */
static bool devno_parse(const char *s, unsigned *maj, unsigned *min)
{
	int a, b;

	if (sscanf(s, "%d:%d", &a, &b) != 2)
		return false;
	*maj = (unsigned)a;
	*min = (unsigned)b;
	return true;
}

bool view_is_devno(const char *s)
{
	unsigned maj, min;

	return s && devno_parse(s, &maj, &min);
}

static int known_col(void *arg, const char *name, size_t len)
{
	const char **bad = arg;

	if (col_find(name, len) || cli_poll_column(name, len))
		return 0;
	*bad = name;
	return -EINVAL;
}

/*
 * findmnt checks -o's names as soon as its options are read, before its
 * arguments and before it opens any table (a FIFO given as -F is never
 * opened): an unknown name is refused then, findmnt's message naming
 * the list from that name on ("unknown column: FOO,SOURCE"). The rest
 * of -o (an empty name, too many columns, a column only -p fills) is
 * view_finish()'s.
 */
static int view_check_columns(const struct view *v, const char *cmd)
{
	const char *base = v->output_all ? COLS_FINDMNT_ALL : v->df ? COLS_DF : COLS_DEFAULT;
	const char *bad = NULL;
	size_t k = 0;
	bool plus;

	if (!v->outarg)
		return 0;
	plus = *v->outarg == '+';
	/* "+LIST" counts the default columns against findmnt's limit first */
	if (plus)
		for (const char *p = base; *p; p++)
			k += *p == ',' || !p[1];
	/* an unknown name past the limit, or after an empty one: findmnt's silent exit, later */
	if (col_walk(v->outarg + plus, k, COLS_MAX, known_col, &bad) == -EINVAL)
		return cli_fail_cmd(cmd, ul_gettext("unknown column: %s"), bad, strlen(bad));
	return 0;
}

int view_operands(struct view *v, const char *cmd, int argc, char **argv, int *ind)
{
	if (view_check_columns(v, cmd))
		return CLI_EXIT_ERR;
	/*
	 * findmnt: -S NAME, -T or -M and an argument: an error in its words
	 * (exit 2 here); -S MAJ:MIN sets no source, so it takes one
	 */
	if (*ind < argc && (v->source || v->mountpoint || v->target))
		return cli_fail(0, "%s: %s", cmd,
				ul_gettext("options --target and --source can't be used together "
					   "with command line element that is not an option"));
	if (*ind < argc)
		v->match = argv[(*ind)++];
	/* an argument MAJ:MIN is findmnt's one MAJ:MIN match: it replaces -S's */
	if (view_is_devno(v->match))
		v->devno = NULL;
	/* findmnt DEVICE MOUNTPOINT: a mount with both, the second as -M */
	if (*ind < argc) {
		v->source = v->match;
		v->mountpoint = argv[(*ind)++];
		v->match = NULL;
		v->pair = true;
	}
	return 0;
}

void view_resolve_tag(struct view *v, char **dev)
{
	char *name = NULL, *value = NULL;
	const char **spec = v->source && !tags_source(v->source, &name, &value) ? &v->source
			    : v->match && !tags_source(v->match, &name, &value) ? &v->match
										: NULL;

	if (!spec)
		return;
	/*
	 * findmnt sets FL_NOSWAPMATCH for a lone LABEL=, UUID=, PARTLABEL=
	 * or PARTUUID= argument by its prefix: never tried as a mount point.
	 * libmount's fifth tag, ID= (udev's /dev/disk/by-id/ link), is
	 * still a tag to every lookup, but an ID= argument may swap; and so
	 * may any tag followed by a MOUNTPOINT (findmnt tests the prefixes
	 * only without one): -f TAG MOUNTPOINT tries the tag's text.
	 */
	v->tag_swap = (spec == &v->match && !tags_is_devtag(*spec)) || v->pair;
	if (!v->tag_swap)
		v->pair = false;
	v->source_tag = *spec;
	if (!v->nocanon)
		*dev = tags_cache_resolve(v->out.cx.tags, name, value);
	free(name);
	free(value);
	if (!*dev)
		return;
	if (spec == &v->match)
		v->source = *dev, v->match = NULL;
	else
		*spec = *dev;
}

/*
 * findmnt's err_exclusive_options(): its words, translated, the command
 * where findmnt names itself ("mntsnap: list: mutually exclusive
 * arguments: --json --pairs --raw --verify")
 */
static int excl_fail(const char *cmd, const char *names)
{
	char *head = NULL;
	int r;

	if (asprintf(&head, ul_gettext("%s: mutually exclusive arguments:"), cmd) < 0)
		head = NULL;
	r = cli_fail(0, "%s %s", head ? head : cmd, names);
	free(head);
	return r;
}

int view_excl(struct view *v, const char *cmd, int c)
{
	if (c == OPT_PID)
		c = 'N';
	for (size_t g = 0; g < VIEW_EXCL_GROUPS; g++)
		for (size_t k = 0; k < 4 && excl[g].opt[k]; k++) {
			if (excl[g].opt[k] != c)
				continue;
			if (v->excl[g] && v->excl[g] != c)
				return excl_fail(cmd, excl[g].names);
			v->excl[g] = c;
		}
	return 0;
}

void view_refused_help(FILE *f, const char *what, const struct view_refusal *t, size_t n)
{
	fprintf(f, "Refused (exit 2): %s\n", what);
	for (size_t i = 0; i < n; i++) {
		const char *names = t[i].names;

		/* one option under several values (-N, --pid): one line */
		if (i && !strcmp(names, t[i - 1].names))
			continue;
		/* as view_help's columns: a long name gets a line of its own */
		fprintf(f, strlen(names) > 20 ? "  %s\n%24s%s\n" : "  %-20s  %s%s\n", names, "",
			t[i].why);
	}
}

int view_refuse(const char *cmd, const struct view_refusal *t, size_t n, int c)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].c == c)
			return cli_fail(0, "%s: %s applies to list only: %s (see mntsnap %s --help)",
					cmd, t[i].names, t[i].why, cmd);
	return 0;
}

/*
 * -o's names as findmnt parses them before it reads a table: an unknown
 * one refused, a column only -p fills taken (counted against the limit)
 * and kept aside in v->poll_only, for findmnt refuses it later.
 */
struct cols_state {
	struct view *v;
	size_t k;
	const char **bad;
	size_t *badlen;
};

static int cols_one(void *arg, const char *name, size_t len)
{
	struct cols_state *st = arg;
	const struct column *c = col_find(name, len);

	*st->bad = name;
	*st->badlen = len;
	if (c) {
		st->v->out.cols[st->k++] = c;
		return 0;
	}
	if (!cli_poll_column(name, len))
		return -EINVAL;
	if (!st->v->poll_only)
		st->v->poll_only = cli_poll_column(name, len);
	return 0;
}

static int view_cols_parse(struct view *v, size_t max, const char **bad, size_t *badlen)
{
	/* "+LIST" extends the columns already chosen, otherwise it replaces them */
	bool plus = *v->outarg == '+';
	struct cols_state st = { .v = v, .k = plus ? v->out.ncols : 0, .bad = bad,
				 .badlen = badlen };
	int r = col_walk(v->outarg + plus, st.k, max, cols_one, &st);

	if (r)
		return r == 1 ? -ENODATA : r;
	v->out.ncols = st.k;
	return 0;
}

int view_finish(struct view *v, const char *cmd)
{
	const char *base = v->output_all ? COLS_FINDMNT_ALL : v->df ? COLS_DF : COLS_DEFAULT;
	const char *bad = NULL;
	size_t badlen = 0, max = COLS_MAX;
	int r;

	v->out.ncols = 0;
	col_parse(base, v->out.cols, &v->out.ncols, COLS_MAX, &bad, &badlen);
	if (v->output_all && !tags_have()) {
		size_t k = 0;

		for (size_t i = 0; i < v->out.ncols; i++)
			if (!col_is_blkid(v->out.cols[i]))
				v->out.cols[k++] = v->out.cols[i];
		/* the columns left out still count against findmnt's limit */
		max -= v->out.ncols - k;
		v->out.ncols = k;
	}
	if (!v->outarg)
		return 0;
	r = view_cols_parse(v, max, &bad, &badlen);
	/* an empty name, or more than findmnt's 54 columns: its silent exit 1 */
	if (r == -ENODATA || r == -E2BIG)
		return 1;
	/* the list from the bad name on, as findmnt names it */
	if (r)
		return cli_fail_cmd(cmd, ul_gettext("unknown column: %s"), bad, strlen(bad));
	return 0;
}

int view_poll_only(const struct view *v, const char *cmd)
{
	/* findmnt's words (its exit status 1 is 2 here) */
	if (v->poll_only)
		return cli_fail_cmd(cmd, ul_gettext("%s column is requested, but --poll is not enabled"),
				    v->poll_only, strlen(v->poll_only));
	return 0;
}

/*
 * findmnt's description (its N_() msgid) of each column it has; mntsnap's
 * own have none
 */
static const struct {
	const char *header, *msgid;
} fm_help[] = {
	{ "TARGET", UL_N_("mountpoint") },
	{ "SOURCE", UL_N_("source device") },
	{ "FSTYPE", UL_N_("filesystem type") },
	{ "OPTIONS", UL_N_("all mount options") },
	{ "VFS-OPTIONS", UL_N_("VFS specific mount options") },
	{ "FS-OPTIONS", UL_N_("FS specific mount options") },
	{ "OPT-FIELDS", UL_N_("optional mount fields") },
	{ "UUID", UL_N_("filesystem UUID") },
	{ "FSROOT", UL_N_("filesystem root") },
	{ "MAJ:MIN", UL_N_("major:minor device number") },
	{ "ID", UL_N_("mount ID") },
	{ "PARENT", UL_N_("mount parent ID") },
	{ "PROPAGATION", UL_N_("VFS propagation flags") },
	{ "TID", UL_N_("task ID") },
	{ "FREQ", UL_N_("dump(8) period in days [fstab only]") },
	{ "SIZE", UL_N_("filesystem size") },
	{ "AVAIL", UL_N_("filesystem size available") },
	{ "USED", UL_N_("filesystem size used") },
	{ "USE%", UL_N_("filesystem use percentage") },
	{ "PASSNO", UL_N_("pass number on parallel fsck(8) [fstab only]") },
	{ "SOURCES", UL_N_("all possible source devices") },
	{ "LABEL", UL_N_("filesystem label") },
	{ "PARTLABEL", UL_N_("partition label") },
	{ "PARTUUID", UL_N_("partition UUID") },
};

const char *col_help_text(const char *help, const char *msgid)
{
	/*
	 * findmnt's catalogue speaks: findmnt's words alone, as findmnt -h
	 * prints them (an English remark of mntsnap's, "(libblkid)", in a
	 * line of another language helps no one); else mntsnap's English
	 */
	return msgid && ul_catalogue() ? ul_gettext(msgid) : help;
}

void col_list(FILE *f)
{
	for (size_t i = 0; i < cols_all_count; i++) {
		const char *msgid = NULL;

		for (size_t k = 0; k < sizeof(fm_help) / sizeof(fm_help[0]); k++)
			if (!strcmp(fm_help[k].header, cols_all[i].header))
				msgid = fm_help[k].msgid;
		fprintf(f, "%-14s %s\n", cols_all[i].header, col_help_text(cols_all[i].help, msgid));
	}
}

/*
 * libmount's type list match (match_fstype()): a leading "no" negates the
 * whole list and is skipped; then an item "noTYPE" never matches TYPE and
 * an item TYPE matches unless the list is negated; case does not count.
 * So "nonotmpfs" is "not (not tmpfs)": every type but tmpfs, as findmnt.
 */
bool match_types(const char *fstype, const char *list)
{
	size_t len = strlen(fstype);
	bool no = !strncmp(list, "no", 2);
	const char *p = no ? list + 2 : list;

	for (;;) {
		if (!strncmp(p, "no", 2) && !strncasecmp(p + 2, fstype, len) &&
		    (p[len + 2] == '\0' || p[len + 2] == ','))
			return false;
		if (!strncasecmp(p, fstype, len) && (p[len] == '\0' || p[len] == ','))
			return !no;
		p = strchr(p, ',');
		if (!p)
			return no;
		p++;
	}
}

/* One item of a libmount option string (as its mnt_optstr_parse_next()). */
struct opt_item {
	const char *name, *val;
	size_t namesz, valsz;
};

/*
 * The next item of the option string [*pos, end): commas before it are
 * skipped, a comma inside double quotes does not end it, the first '='
 * after its first character splits name and value. false at the end; an
 * item whose quote never closes ends the string there, as in libmount.
 */
static bool opt_next(const char **pos, const char *end, struct opt_item *it)
{
	const char *p = *pos, *start, *sep = NULL, *stop;
	bool quoted = false;

	while (p < end && *p == ',')
		p++;
	for (start = p; p < end; p++) {
		if (*p == '"')
			quoted = !quoted;
		if (quoted)
			continue;
		if (!sep && p > start && *p == '=')
			sep = p;
		stop = *p == ',' ? p : p + 1 == end ? end : NULL;
		if (!stop)
			continue;
		it->name = start;
		it->namesz = (size_t)((sep ? sep : stop) - start);
		it->val = sep ? sep + 1 : NULL;
		it->valsz = sep ? (size_t)(stop - sep - 1) : 0;
		*pos = stop < end ? stop + 1 : stop;
		return true;
	}
	return false;
}

/* The first option named name in opts (length n), its value in *val. */
static bool find_option(const char *opts, size_t n, const char *name, size_t namesz,
			struct opt_item *val)
{
	const char *pos = opts;

	while (opt_next(&pos, opts + n, val))
		if (val->namesz == namesz && !memcmp(val->name, name, namesz))
			return true;
	return false;
}

/*
 * libmount's option pattern (mnt_match_options()): each item present (with
 * its value, if it gives one), each noX item absent, +X literally X. Empty
 * items are skipped, so "," matches every mount. libmount copies each name
 * with a string copy that copies nothing when the pattern has nothing left
 * after it: a "no" or "+" that ends the pattern asks again for the name
 * before it ("rw,no": with rw and without it, never true), or, first, for
 * an empty name, which no option has ("no": every mount, "+": none).
 * opts NULL: an fstab entry without an options field; libmount has no
 * option string then, every lookup in it fails, so any item fails.
 */
bool match_options(const char *opts, size_t n, const char *pattern)
{
	const char *pos = pattern, *end = pattern + strlen(pattern), *key = "";
	struct opt_item it, val;
	size_t keysz = 0;

	while (opt_next(&pos, end, &it)) {
		const char *name = it.name;
		size_t namesz = it.namesz;
		bool no = false, found;

		if (!opts)
			return false;
		if (*name == '+')
			name++, namesz--;
		else if (!strncmp(name, "no", 2))
			no = true, name += 2, namesz -= 2;
		if (*name)
			key = name, keysz = namesz;
		found = find_option(opts, n, key, keysz, &val);
		if (found && it.valsz &&
		    (it.valsz != val.valsz || memcmp(it.val, val.val, val.valsz)))
			found = false;
		if (found == no)
			return false;
	}
	return true;
}

/*
 * Mark every mount whose mount point is path by the text, stacked ones
 * too, as libmount's mnt_fs_streq_target() compares (streq_paths()):
 * slashes repeated or at the end aside, "" the same as "/", nothing else
 * normalized ("." and ".." are components like any other), a relative
 * path only the same relative text. Not the library's index: a table
 * read from a file may hold mount points no kernel writes ("/a/", "//b",
 * "rel"), which findmnt finds by any of those spellings.
 */
static size_t mark_text(const struct mntsnap_snapshot *snap, const char *path, bool *hit)
{
	struct mntsnap_mount m;
	size_t k = 0, n = mntsnap_snapshot_count(snap);

	for (size_t i = 0; i < n; i++) {
		mntsnap_snapshot_get(snap, i, &m);
		if ((m.mask & MNTSNAP_F_MOUNT_POINT) && streq_paths(m.mount_point, path))
			hit[i] = true, k++;
	}
	return k;
}

/* What one run of findmnt's matching needs, built once per table. */
struct matcher {
	const struct view *v;
	const struct mntsnap_snapshot *snap;
	size_t n;
	const char *target;  /* the mount point asked for (-T, -M, a swapped SOURCE) */
	const char *source;  /* -S or a positional SOURCE */
	bool *target_hit, *source_hit, *over, *gone;
	/* the target asked for still to be resolved, at the first record that needs it */
	bool target_pending;
	/* libmount's cache: paths resolved once, "/a//b/" as "/a/b" (not for -C) */
	struct pathcache pc;
	/* libmount's ids of each record, its parent id after -U's moves */
	uint32_t *lid, *lpid;
	bool have_ids;       /* lid/lpid are the records' own (else by place) */
	uint32_t *byid;      /* the records left (after -U) by id: nbyid */
	uint32_t *kids;      /* children by parent id and id: nkids */
	uint32_t *kbeg, *kend; /* record i's children: kids[kbeg[i]..kend[i]) */
	size_t nbyid, nkids;
	long root;           /* libmount's root line, -1: none */
	int32_t *parent;     /* the first line of each parent id (-1: none) */
	uint32_t *parent_ids; /* -U: each record's PARENT after it (NULL without -U) */
	uint32_t *order;     /* the records by the tree, each once */
	size_t norder;
	bool tree_walk;      /* findmnt draws its whole tree: it asks in the tree's order */
	struct obuf ob;
};

/* Record i as findmnt sees it: a "/dev/root" source renamed (devroot.h) */
static void mt_get(const struct matcher *mt, size_t i, struct mntsnap_mount *m)
{
	mntsnap_snapshot_get(mt->snap, i, m);
	col_fix_source(&mt->v->out.cx, m);
}

enum { FS_PSEUDO = 1, FS_NET = 2 };

/*
 * Record i's source as libmount sees it (NULL: none) and its pseudo/net
 * flags by FSTYPE; the source stays valid while the snapshot does.
 */
static const char *src_path(struct matcher *mt, size_t i, unsigned *flags)
{
	struct mntsnap_mount m;

	mt_get(mt, i, &m);
	mt->ob.len = 0;
	cols_all[2].get(&mt->ob, &m, &mt->v->out.cx);
	ob_putc(&mt->ob, '\0');
	*flags = 0;
	if (!mt->ob.err && fstab_pseudo(mt->ob.p))
		*flags |= FS_PSEUDO;
	else if (!mt->ob.err && fstab_netfs(mt->ob.p))
		*flags |= FS_NET;
	return m.mask & MNTSNAP_F_SOURCE ? m.source : NULL;
}

/* mnt_fs_streq_srcpath(): a pseudo filesystem's source by its exact text */
static bool streq_srcpath(const char *src, unsigned flags, const char *path)
{
	if (!src)
		return false;
	return flags & FS_PSEUDO ? !strcmp(src, path) : streq_paths(src, path);
}

/*
 * libmount resolves paths through its cache, which findmnt has unless -C:
 * a saved table's mount points (show's -M, -T, MOUNTPOINT) are never
 * resolved on this file system, they are the table's text.
 */
static bool resolves(const struct matcher *mt)
{
	return !mt->v->saved && !mt->v->nocanon;
}

/*
 * Sources are devices, and show names devices as this machine's (a tag
 * asked for is the device it names here, as findmnt -F): so the source
 * asked for and a saved table's sources are resolved here, through the
 * cache, as findmnt -F resolves them; only -C turns that off.
 */
static bool resolves_source(const struct matcher *mt)
{
	return !mt->v->nocanon;
}

/*
 * findmnt's target match (mnt_fs_match_target()): the mount point text
 * as given, else the path as this file system resolves it through the
 * cache (mnt_resolve_path(): the path itself when it does not resolve),
 * unless -C or a saved table. A kernel table's own mount points are
 * never resolved: libmount takes them as canonical, so a line whose
 * text names a symlink is found by that text only. Here the text only;
 * the path is resolved by target_step(), where findmnt's match_func()
 * first needs it.
 */
static void mark_target_text(struct matcher *mt, const char *path)
{
	memset(mt->target_hit, 0, mt->n);
	mark_text(mt->snap, path, mt->target_hit);
	mt->target_pending = resolves(mt);
}

/* the target asked for resolved now, its mounts marked */
static void target_resolve(struct matcher *mt)
{
	const char *cn;

	if (!mt->target_pending)
		return;
	mt->target_pending = false;
	cn = pathcache_path(&mt->pc, mt->target);
	if (cn)
		mark_text(mt->snap, cn, mt->target_hit);
}

/* A record's source that is a tag (libmount: no path then), split; false if none. */
static bool src_tag(const char *src, char **name, char **value)
{
	static const char *const valid[] = { "ID", "UUID", "LABEL", "PARTUUID", "PARTLABEL" };

	*name = *value = NULL;
	if (!src || tags_parse(src, name, value))
		return false;
	for (size_t k = 0; k < sizeof(valid) / sizeof(valid[0]); k++)
		if (!strcmp(*name, valid[k]))
			return true;
	free(*name), free(*value);
	*name = *value = NULL;
	return false;
}

/*
 * mnt_cache_device_has_tag() after mnt_cache_read_tags(): the device dev
 * probed (once a run: the view's cache) for NAME=value
 */
static bool dev_has_tag(const struct view *v, const char *dev, const char *name, const char *value,
			bool peek)
{
	if (peek)
		return tags_cache_peek_has(v->out.cx.tags, dev, name, value);
	return tags_cache_has(v->out.cx.tags, dev, name, value);
}

static bool match_one(struct matcher *mt, size_t i);
static const char *match_early(const struct view *v, const struct mntsnap_mount *m,
			       const char *user, struct obuf *ob);

/*
 * Does findmnt's match_func() get as far as the source for record i? -t,
 * -O, MAJ:MIN and the target come first, and a record they turn away is
 * never looked up: libmount's cache learns nothing from it.
 */
static bool reaches_source(struct matcher *mt, size_t i)
{
	struct mntsnap_mount m;

	if (mt->target && !mt->target_hit[i])
		return false;
	mt_get(mt, i, &m);
	return match_early(mt->v, &m, NULL, &mt->ob);
}

/*
 * findmnt's match_func() resolves the target asked for at the first
 * record that -t, -O and MAJ:MIN let through and whose mount point text
 * is not the target's: so after the sources of the lines printed before
 * (-c), and never when the text decides or nothing gets that far.
 */
static void target_step(struct matcher *mt, size_t i)
{
	struct mntsnap_mount m;

	if (!mt->target_pending || mt->target_hit[i])
		return;
	mt_get(mt, i, &m);
	if (match_early(mt->v, &m, NULL, &mt->ob))
		target_resolve(mt);
}

/*
 * Does printing a match resolve its source through the cache? -c's
 * SOURCE, and the tag columns, which probe the source as resolved
 * (findmnt prints each match as it finds it, so this happens before
 * later records are looked up).
 */
bool view_prints_resolved(const struct view *v)
{
	static const char *const tagcols[] = { "label", "uuid", "partlabel", "partuuid" };

	if (v->out.cx.canonicalize)
		return true;
	for (size_t c = 0; c < v->out.ncols; c++)
		for (size_t k = 0; k < sizeof(tagcols) / sizeof(tagcols[0]); k++)
			if (!strcmp(v->out.cols[c]->name, tagcols[k]))
				return true;
	return false;
}

/*
 * Does printing a row teach the caches anything a later record's lookup
 * asks? What view_prints_resolved() says, and -e's evaluation of a tag
 * source, and SOURCES' (which evaluates a tag with -e, else falls back to
 * SOURCE). Neither resolves a path source (findmnt's get_data()).
 */
static bool view_prints_row(const struct view *v)
{
	if (view_prints_resolved(v) || v->out.cx.evaluate)
		return true;
	for (size_t c = 0; c < v->out.ncols; c++)
		if (!strcmp(v->out.cols[c]->name, "sources"))
			return true;
	return false;
}

/*
 * The source asked for, as mnt_fs_match_source() takes it: its text, and
 * what it names beyond the text (spec(data): the path resolved through
 * the cache, the device a tag names; NULL: nothing, as under -C), which
 * the callers get in their own ways and only when a record's text cannot
 * decide. pc: the cache a record's own source resolves through, and
 * whether a record's tag may be read from the device; NULL for neither
 * (a saved table: nothing of it is looked up on this file system).
 */
struct src_ask {
	const char *text;
	const char *(*spec)(void *data);
	void *data;
	struct pathcache *pc;
	bool peek; /* a record findmnt never looks up: pc asked, never filled */
	const struct view *v;
};

/*
 * mnt_fs_match_source() for one record (src: its source, NULL if none;
 * fl: its FS_PSEUDO/FS_NET): the text first (a tag's and a pseudo
 * filesystem's exact, a path's by streq_paths()); never more for a pseudo
 * or network filesystem; then what was asked resolved against the
 * record's source as written and as resolved, or a record's tag against
 * the device's tags.
 */
static bool src_match(const struct src_ask *a, const char *src, unsigned fl)
{
	const char *cn, *rs;
	char *tn, *tv, *pk = NULL;
	bool tag, ok;

	if (!src)
		return false;
	tag = src_tag(src, &tn, &tv);
	if (tag ? !strcmp(src, a->text) : streq_srcpath(src, fl, a->text))
		ok = true;
	else if ((fl & (FS_PSEUDO | FS_NET)) || !(cn = a->spec(a->data)))
		ok = false;
	else if (tag)
		ok = a->pc && dev_has_tag(a->v, cn, tn, tv, a->peek);
	else if (streq_paths(src, cn))
		ok = true;
	else if (!a->pc)
		ok = false;
	else if (a->peek)
		ok = (pk = pathcache_peek(a->pc, src)) && !strcmp(pk, cn);
	else
		ok = (rs = pathcache_path(a->pc, src)) && !strcmp(rs, cn);
	free(tn), free(tv), free(pk);
	return ok;
}

/*
 * The listing's source asked for, resolved (kept in the cache) at the
 * first record that needs it and that findmnt's match_func() lets get as
 * far as the source (eval: reaches_source()); for a record turned away
 * before, the cache is only peeked at (peeked: freed by the caller).
 */
struct mt_spec {
	struct matcher *mt;
	bool resolve, asked, eval;
	const char *cn;
	char *peeked;
};

static const char *mt_spec(void *data)
{
	struct mt_spec *s = data;

	if (s->asked || !s->resolve)
		return s->cn;
	if (!s->eval)
		return s->peeked = pathcache_peek(&s->mt->pc, s->mt->source);
	s->asked = true;
	return s->cn = pathcache_path(&s->mt->pc, s->mt->source);
}

/*
 * The listing marks every mount before it prints one; findmnt prints
 * each line as its match_func() lets it (a match, or with -i a mount
 * turned away; with -R its submounts after it, those not printed yet),
 * and printing -c's SOURCE or a tag column resolves that source
 * (view_prints_resolved()) before the next mount is looked up. So each
 * printed mount's source enters the cache here, in the order findmnt's
 * would, between the lookups the marking makes (the source asked for,
 * the sources compared with it): a mount matched by its text first keeps
 * its own spelling, and -i's lines theirs. A tag source has no path to
 * resolve.
 */
struct printed {
	bool *seen;   /* -R: the mounts printed (findmnt's has_line()) */
	uint32_t *stack;
};

static void print_resolve(struct matcher *mt, size_t i)
{
	struct mntsnap_mount m;
	char *tn = NULL, *tv = NULL;

	mt_get(mt, i, &m);
	if (view_prints_resolved(mt->v) && (m.mask & MNTSNAP_F_SOURCE) &&
	    !src_tag(m.source, &tn, &tv))
		pathcache_path(&mt->pc, m.source);
	free(tn), free(tv);
	/*
	 * and the row's cells, as findmnt's add_line(): a tag column probes
	 * the source (a clone's LABEL then names the clone in the tags
	 * cache), -e evaluates a tag source, before the next record's tag
	 * is tested against the device asked for
	 */
	out_prime_row(&m, &mt->v->out);
}

static void prints_resolved(struct matcher *mt, struct printed *p, size_t i)
{
	size_t sp = 0;

	if (!match_one(mt, i))
		return;
	if (!p->seen) {
		print_resolve(mt, i);
		return;
	}
	/* the subtree, preorder, children in the tree's order (pushed last first) */
	p->stack[sp++] = (uint32_t)i;
	while (sp) {
		uint32_t r = p->stack[--sp];

		if (p->seen[r])
			continue;
		p->seen[r] = true;
		print_resolve(mt, r);
		for (uint32_t c = mt->kend[r]; c-- > mt->kbeg[r] && sp < mt->n;)
			p->stack[sp++] = mt->kids[c];
	}
}

/*
 * What each record's visit does while the source and target are resolved
 * in findmnt's order (resolve_walk()): step(w, i) for record i, at its
 * turn; match: its answer, for the tree's walk.
 */
struct resolve_walk {
	struct matcher *mt;
	void (*step)(struct resolve_walk *w, size_t i);
	bool *match;
	/* mark_source_resolved()'s */
	struct mt_spec s;
	struct src_ask a;
	bool track;
	struct printed p;
	/* -U's dropped records stepped too: in the table's walk, else after the tree's */
	bool gone_too;
};

static int findmnt_walk(const struct matcher *mt, const bool *match,
			void (*visit)(void *data, uint32_t rec), void *data);

static void tree_visit(void *data, uint32_t i)
{
	struct resolve_walk *w = data;

	w->step(w, i);
	w->match[i] = match_one(w->mt, i);
}

/*
 * Each record that is not gone, once, in the order findmnt's match_func()
 * first sees it: the whole tree's walk when findmnt draws one
 * (create_treenode(): from the root, children by id, whatever the -d
 * direction), else the table in the -d direction. No memory for the
 * tree's walk: the table's order, close enough.
 */
static void resolve_walk(struct resolve_walk *w)
{
	struct matcher *mt = w->mt;

	if (mt->tree_walk) {
		int r = -ENOMEM;

		w->match = calloc(mt->n + 1, sizeof(*w->match));
		if (w->match)
			r = findmnt_walk(mt, w->match, tree_visit, w);
		free(w->match);
		/* an id cycle (-ELOOP) is the tree's own error, later */
		if (!r) {
			for (size_t i = 0; w->gone_too && i < mt->n; i++)
				if (mt->gone[i])
					w->step(w, i);
			return;
		}
	}
	for (size_t j = 0; j < mt->n; j++) {
		size_t i = mt->v->backward ? mt->n - 1 - j : j;

		if (w->gone_too || !mt->gone[i])
			w->step(w, i);
	}
}

static void resolved_step(struct resolve_walk *w, size_t i)
{
	struct matcher *mt = w->mt;
	unsigned fl;
	const char *src = src_path(mt, i, &fl);

	target_step(mt, i);
	/*
	 * libmount resolves the source asked for at the first mount it
	 * cannot tell by text that reaches the source (a target, -t or -O
	 * decides before: "-S DEV/ -M MNT" resolves nothing). A mount turned
	 * away still needs its answer here (-T's second pass may take it):
	 * the cache is peeked at for it, not filled. A match by the exact
	 * text (the index) asks nothing.
	 */
	if (mt->source && !mt->source_hit[i]) {
		w->s.eval = reaches_source(mt, i);
		w->a.peek = !w->s.eval;
		mt->source_hit[i] = src_match(&w->a, src, fl);
		free(w->s.peeked);
		w->s.peeked = NULL;
	}
	if (w->track)
		prints_resolved(mt, &w->p, i);
}

/*
 * src_match() for the mounts the exact text (mark_source()'s index) did
 * not find, in findmnt's order (resolve_walk()), -U's dropped ones aside.
 */
static void mark_source_resolved(struct matcher *mt)
{
	struct resolve_walk w = { .mt = mt, .step = resolved_step };

	/*
	 * a text that reads as a tag but is none (view_resolve_tag() took it
	 * not: "LABEL=", an unclosed quote) is a path, resolved as any
	 */
	w.s = (struct mt_spec){ .mt = mt, .resolve = resolves_source(mt) };
	w.a = (struct src_ask){ .text = mt->source, .spec = mt_spec, .data = &w.s,
				.pc = w.s.resolve ? &mt->pc : NULL, .v = mt->v };
	w.track = w.s.resolve && view_prints_row(mt->v);
	if (w.track && mt->v->submounts) {
		w.p.seen = calloc(mt->n + 1, sizeof(*w.p.seen));
		w.p.stack = malloc((mt->n + 1) * sizeof(*w.p.stack));
		/* no memory: the order of a list without -R, close enough */
		if (!w.p.seen || !w.p.stack) {
			free(w.p.seen), free(w.p.stack);
			w.p = (struct printed){ 0 };
		}
	}
	resolve_walk(&w);
	free(w.p.seen), free(w.p.stack);
}

/* A tag asked for: the device view_resolve_tag() found, if any. */
static const char *tag_dev(void *data)
{
	return data;
}

/*
 * src_match() for a tag asked for (TAG, its text), on every record in
 * the table's order: a record whose source is that very text, whatever
 * its filesystem (a tmpfs mounted with the source "LABEL=x"); then the
 * device the tag named, if any (view_resolve_tag() put it in mt->source,
 * at the start, through the run's tags cache; never under -C), as
 * mnt_resolve_spec() gives it: libblkid's name, compared as it is. A tmpfs
 * whose source text is the device's path is not the tag's. A saved
 * table's sources too are resolved here (a symlink to the device, as
 * findmnt -F resolves it: resolves_source()). Unlike a path's
 * loop this one resolves the records' sources in the stored order, -d
 * aside, and the ones -U dropped too (kept as it was): only which of two
 * spellings of one path -c then prints could tell the two apart.
 */
static void tag_step(struct resolve_walk *w, size_t i)
{
	struct matcher *mt = w->mt;
	unsigned fl;
	const char *src = src_path(mt, i, &fl);

	mt->source_hit[i] = src_match(&w->a, src, fl);
	if (!w->track || mt->gone[i])
		return;
	target_step(mt, i);
	prints_resolved(mt, &w->p, i);
}

static void mark_source_tag(struct matcher *mt, const char *tag)
{
	struct resolve_walk w = { .mt = mt, .step = tag_step, .gone_too = true };

	w.a = (struct src_ask){ .text = tag, .spec = tag_dev, .v = mt->v,
				.data = strcmp(mt->source, tag) ? (void *)mt->source : NULL,
				.pc = resolves_source(mt) ? &mt->pc : NULL };
	/*
	 * a printed row that teaches the caches (a clone's LABEL column, -e)
	 * does so before the next record's tag is tested: then the records
	 * go in findmnt's order (resolve_walk()), each printed (and the
	 * target resolved, as findmnt's match_func() does) before the next
	 * is matched
	 */
	w.track = w.a.pc && view_prints_row(mt->v);
	if (w.track) {
		resolve_walk(&w);
		return;
	}
	for (size_t i = 0; i < mt->n; i++)
		tag_step(&w, i);
}

static void mark_source(struct matcher *mt)
{
	struct mntsnap_mount m;
	unsigned maj, min;

	memset(mt->source_hit, 0, mt->n);
	if (!mt->source) {
		/* the target alone, resolved in findmnt's order */
		if (mt->target)
			mark_source_resolved(mt);
		return;
	}
	if (mt->v->source_tag) {
		mark_source_tag(mt, mt->v->source_tag);
		target_resolve(mt);
		return;
	}
	/* findmnt: a source that reads as "MAJ:MIN" (sscanf) is a device number */
	if (devno_parse(mt->source, &maj, &min)) {
		for (size_t i = 0; i < mt->n; i++) {
			mt_get(mt, i, &m);
			mt->source_hit[i] = (m.mask & MNTSNAP_F_DEV) && m.dev_major == maj &&
					    m.dev_minor == min;
		}
		target_resolve(mt);
		return;
	}
	/*
	 * The exact text through the index; "" has none (mount(2) takes an
	 * empty source, mountinfo shows an empty field): src_match() has it,
	 * and "/" too, the same path to streq_paths().
	 */
	for (long i = mntsnap_snapshot_next_source(mt->snap, mt->source, -1); i >= 0;
	     i = mntsnap_snapshot_next_source(mt->snap, mt->source, i))
		mt->source_hit[i] = !(mt->v->out.cx.root_src && mt->v->out.cx.root_src[i]);
	/*
	 * Never the SOURCE column's text: its "[/fsroot]" (a bind) and -c's
	 * resolved path are how findmnt prints a source, not what
	 * mnt_fs_match_source() compares - a positional argument matches as
	 * -S does.
	 */
	mark_source_resolved(mt);
}

/* -S MAJ:MIN: the mount's device number is maj:min */
static bool devno_is(const char *devno, const struct mntsnap_mount *m)
{
	unsigned maj, min;

	return devno_parse(devno, &maj, &min) && (m->mask & MNTSNAP_F_DEV) &&
	       m->dev_major == maj && m->dev_minor == min;
}

/*
 * findmnt's match_func() up to its lookups: -t, -O (user: options beyond
 * the record's own), -S MAJ:MIN. They come first, so a record they turn
 * away is never looked up (-p's cache keeps the first answer it got).
 * ob: scratch space, left holding the FSTYPE; NULL if it failed.
 */
static const char *match_early(const struct view *v, const struct mntsnap_mount *m,
			       const char *user, struct obuf *ob)
{
	ob->len = 0;
	cols_all[2].get(ob, m, &v->out.cx);
	ob_putc(ob, '\0');
	if (ob->err)
		return NULL;
	if (v->types && !match_types(ob->p, v->types))
		return NULL;
	if (v->options) {
		struct obuf o = { 0 };
		bool ok;

		cols_all[3].get(&o, m, &v->out.cx);
		if (user && *user) {
			if (o.len)
				ob_putc(&o, ',');
			ob_puts(&o, user);
		}
		ok = !o.err && match_options(o.p ? o.p : "", o.len, v->options);
		ob_free(&o);
		if (!ok)
			return NULL;
	}
	if (v->devno && !devno_is(v->devno, m))
		return NULL;
	return ob->p;
}

/*
 * findmnt's match_func(): every filter, -i turning the answer round; the
 * lookups (-T/-M, -S) decided by the caller (lookups_ok), over: another
 * mount is stacked on this one (--shadowed). ob: scratch space.
 */
static bool match_rec(const struct view *v, const struct mntsnap_mount *m, const char *user,
		      bool lookups_ok, bool over, struct obuf *ob)
{
	bool no = v->invert;
	const char *fstype = match_early(v, m, user, ob);

	if (!fstype || !lookups_ok)
		return no;
	if (v->df && !v->all) {
		/* findmnt -D: every *tmpfs*, no other pseudo filesystem */
		if (strstr(fstype, "tmpfs"))
			return !no;
		if (fstab_pseudo(fstype))
			return no;
	}
	if (v->real && fstab_pseudo(fstype))
		return no;
	if (v->pseudo && !fstab_pseudo(fstype))
		return no;
	if (v->shadowed && !over)
		return no;
	return !no;
}

static bool match_one(struct matcher *mt, size_t i)
{
	struct mntsnap_mount m;
	bool lookups_ok = (!mt->target || mt->target_hit[i]) && (!mt->source || mt->source_hit[i]);

	mt_get(mt, i, &m);
	return match_rec(mt->v, &m, NULL, lookups_ok, mt->over[i], &mt->ob);
}

void view_filter_init(struct view_filter *f, const struct view *v)
{
	unsigned maj, min;

	*f = (struct view_filter){ .v = v };
	/* findmnt's cache, for the whole poll; -C: none */
	pathcache_init(&f->pc, false);
	f->pc.off = v->nocanon;
	f->target = v->mountpoint ? v->mountpoint : v->target;
	f->source = v->source ? v->source : v->match;
	/* findmnt's "MAJ:MIN" source is a device number, never swapped */
	if (f->source && devno_parse(f->source, &maj, &min))
		f->devno = true, f->maj = maj, f->min = min;
	/*
	 * findmnt --poll ARG: a source, or else a mount point (not a tag, nor
	 * next to -S MAJ:MIN, which sets FL_NOSWAPMATCH)
	 */
	f->swap = v->match && !v->source && !v->devno && !f->target && !f->devno &&
		  !tags_is_devtag(v->match);
	if (f->source && !f->devno && !src_tag(f->source, &f->tagname, &f->tagval))
		f->tagname = f->tagval = NULL;
}

bool view_filter_active(const struct view_filter *f)
{
	const struct view *v = f->v;

	return v->types || v->options || f->target || f->source || v->devno || v->df ||
	       v->real || v->pseudo || v->shadowed || v->invert;
}

/*
 * mnt_fs_match_target(): the text, or the path as this file system
 * resolves it, through the cache the source shares (a positional
 * argument is resolved once, as a source or as a mount point)
 */
static bool filter_target(struct view_filter *f, const char *target,
			  const struct mntsnap_mount *m)
{
	const char *cn;

	if (!(m->mask & MNTSNAP_F_MOUNT_POINT))
		return false;
	if (streq_paths(m->mount_point, target))
		return true;
	cn = f->v->nocanon ? NULL : pathcache_path(&f->pc, target);
	return cn && streq_paths(m->mount_point, cn);
}

/*
 * mnt_resolve_spec() of the source asked for, as src_match() asks for it
 * (none under -C: findmnt then has no cache): a path through the cache
 * (its first answer kept for the whole poll, the path itself when it
 * resolves to nothing); a tag's device, evaluated at its first use and
 * again until it names one (a filesystem made after the start), as
 * libmount's cache keeps only the devices it found. NULL: none.
 */
static const char *filter_spec(void *data)
{
	struct view_filter *f = data;

	if (f->v->nocanon)
		return NULL;
	if (!f->tagname)
		return pathcache_path(&f->pc, f->source);
	if (!f->tagdev)
		f->tagdev = tags_evaluate(f->tagname, f->tagval);
	return f->tagdev;
}

/*
 * mnt_fs_match_source() on a kernel table, record by record: a MAJ:MIN
 * asked for is a device number; else src_match(), FSTYPE the record's.
 * Unlike the listing's, the source asked for is resolved as the records
 * come (the poll has no table to go through first), and a tag's device
 * is looked for on each use until one is found.
 */
static bool filter_source(struct view_filter *f, const struct mntsnap_mount *m,
			  const char *fstype)
{
	struct src_ask a = { .text = f->source, .spec = filter_spec, .data = f, .pc = &f->pc,
			     .v = f->v };
	unsigned fl = fstab_pseudo(fstype) ? FS_PSEUDO : fstab_netfs(fstype) ? FS_NET : 0;

	if (f->devno)
		return (m->mask & MNTSNAP_F_DEV) && m->dev_major == f->maj && m->dev_minor == f->min;
	return src_match(&a, m->mask & MNTSNAP_F_SOURCE ? m->source : NULL, fl);
}

/*
 * findmnt's match_func(): -t, -O, MAJ:MIN, then -T/-M, then -S; the
 * order matters beyond the answer, as a lookup's first result is kept.
 */
static bool filter_lookups(struct view_filter *f, const char *target, const char *source,
			   const struct mntsnap_mount *m)
{
	/* FSTYPE, in f->ob, which nothing below writes */
	const char *fstype = match_early(f->v, m, f->user_opts, &f->ob);

	if (!fstype || (target && !filter_target(f, target, m)))
		return false;
	return !source || filter_source(f, m, fstype);
}

bool view_filter_match(struct view_filter *f, const struct mntsnap_mount *m, bool over)
{
	bool ok = filter_lookups(f, f->target, f->source, m);
	bool r = match_rec(f->v, m, f->user_opts, ok, over, &f->ob);

	/* findmnt's poll_match(): a positional argument no source matched, as a mount point */
	if (!r && f->swap)
		r = match_rec(f->v, m, f->user_opts, filter_lookups(f, f->source, NULL, m), over,
			      &f->ob);
	return r;
}

void view_filter_free(struct view_filter *f)
{
	pathcache_free(&f->pc);
	free(f->tagname);
	free(f->tagval);
	free(f->tagdev);
	ob_free(&f->ob);
}

/*
 * libmount links a table by mount id alone (its tree, -U, --shadowed):
 * a record's parent is the first line of its parent id, a line's
 * children are the lines whose parent id is its id (the first line of
 * each id, by id), so every line of a repeated id has the same children.
 * A kernel's ids never repeat; a table read twice (-F A -F A, -N PID -F
 * /proc/PID/mountinfo) or saved text may repeat them. lid/lpid: the
 * 32-bit ids libmount reads; a record without them (a statmount capture
 * that did not ask) gets ids from its place, its links as they are.
 */
static void ids_init(struct matcher *mt)
{
	struct mntsnap_mount m;
	bool old = true;

	for (size_t i = 0; i < mt->n && old; i++) {
		mntsnap_snapshot_get(mt->snap, i, &m);
		old = m.mask & MNTSNAP_F_ID_OLD;
	}
	mt->have_ids = old;
	for (size_t i = 0; i < mt->n; i++) {
		mntsnap_snapshot_get(mt->snap, i, &m);
		if (old) {
			mt->lid[i] = m.id_old, mt->lpid[i] = m.parent_id_old;
			continue;
		}
		mt->lid[i] = (uint32_t)i + 1;
		/* the kernel's root is its own parent: libmount's root over itself */
		if (m.parent_index != i)
			mt->lpid[i] = m.parent_index + 1;
		else
			mt->lpid[i] = (m.mask & MNTSNAP_F_ID) && m.parent_id == m.id ? mt->lid[i] : 0;
	}
}

/*
 * -U (libmount's mnt_table_uniq_fs() with KEEPTREE): the lines dropped
 * go from the last one back, each first handing every line still in the
 * table whose parent id is its id (a kept copy's children too) its own
 * parent id. The order of the drops counts; n times the drops, fine for
 * the few a table has.
 */
static void uniq_move_parents(struct matcher *mt)
{
	for (size_t d = mt->n; d-- > 0;) {
		if (!mt->gone[d])
			continue;
		for (size_t k = 0; k < mt->n; k++)
			if ((!mt->gone[k] || k <= d) && mt->lpid[k] == mt->lid[d])
				mt->lpid[k] = mt->lpid[d];
	}
}

/* libmount compares ids as ints: 2^31 and up come first */
static int cmp_sid(uint32_t a, uint32_t b)
{
	return (int32_t)a < (int32_t)b ? -1 : (int32_t)a > (int32_t)b;
}

/* the kept records by parent id, then id (as libmount's ints), then place */
static int cmp_kid(const void *a, const void *b, void *data)
{
	const struct matcher *mt = data;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int c;

	if (mt->lpid[i] != mt->lpid[j])
		return mt->lpid[i] < mt->lpid[j] ? -1 : 1;
	c = cmp_sid(mt->lid[i], mt->lid[j]);
	return c ? c : (i > j) - (i < j);
}

/* the kept records by id, then place */
static int cmp_byid(const void *a, const void *b, void *data)
{
	const struct matcher *mt = data;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (mt->lid[i] != mt->lid[j])
		return mt->lid[i] < mt->lid[j] ? -1 : 1;
	return (i > j) - (i < j);
}

/* [*lo, *hi): the records of v[0..n) (sorted by key[]) whose key[] is id */
static void id_range(const uint32_t *v, size_t n, const uint32_t *key, uint32_t id, size_t *lo,
		     size_t *hi)
{
	size_t l = 0, h = n;

	while (l < h) {
		size_t mid = l + (h - l) / 2;

		if (key[v[mid]] < id)
			l = mid + 1;
		else
			h = mid;
	}
	*lo = l;
	for (h = l; h < n && key[v[h]] == id; h++)
		;
	*hi = h;
}

/*
 * byid: the kept records by id (an id's first line first); kids: each
 * id's children, the first line of each child id only
 * (mnt_table_next_child_fs()), a line whose parent id is its own id no
 * child; kbeg/kend: record i's children, kids[kbeg[i]..kend[i]); parent:
 * the first line of its parent id (get_parent_fs()), -1 for none or itself.
 */
static void links_init(struct matcher *mt)
{
	size_t n = mt->n, nk = 0, lo, hi;

	mt->nbyid = 0;
	for (size_t i = 0; i < n; i++) {
		if (mt->gone[i])
			continue;
		mt->byid[mt->nbyid++] = (uint32_t)i;
		if (mt->lpid[i] != mt->lid[i])
			mt->kids[nk++] = (uint32_t)i;
	}
	qsort_r(mt->byid, mt->nbyid, sizeof(*mt->byid), cmp_byid, mt);
	qsort_r(mt->kids, nk, sizeof(*mt->kids), cmp_kid, mt);
	/* a child id's later lines are no children: dropped */
	mt->nkids = 0;
	for (size_t k = 0; k < nk; k++) {
		uint32_t c = mt->kids[k], q = mt->nkids ? mt->kids[mt->nkids - 1] : 0;

		if (mt->nkids && mt->lpid[q] == mt->lpid[c] && mt->lid[q] == mt->lid[c])
			continue;
		mt->kids[mt->nkids++] = c;
	}
	for (size_t i = 0; i < n; i++) {
		id_range(mt->kids, mt->nkids, mt->lpid, mt->lid[i], &lo, &hi);
		mt->kbeg[i] = (uint32_t)lo, mt->kend[i] = (uint32_t)hi;
		id_range(mt->byid, mt->nbyid, mt->lid, mt->lpid[i], &lo, &hi);
		mt->parent[i] = lo < hi && mt->byid[lo] != i ? (int32_t)mt->byid[lo] : -1;
	}
}

/*
 * mnt_table_get_root_fs(): the first line of the smallest parent id (an
 * int), then up to the first line of each parent id while there is one
 * (bounded: an id cycle has no top).
 */
static long root_rec(const struct matcher *mt)
{
	long root = -1;

	for (size_t i = 0; i < mt->n; i++)
		if (!mt->gone[i] && (root < 0 || cmp_sid(mt->lpid[i], mt->lpid[root]) < 0))
			root = (long)i;
	for (size_t step = 0; root >= 0 && mt->parent[root] >= 0 && step < mt->n; step++)
		root = mt->parent[root];
	return root;
}

/*
 * A mount point as streq_paths() compares it: each run of slashes as one,
 * no trailing slash ("/t//u/" is "/t/u", "/" is ""). Two texts are
 * streq_paths()-equal exactly when these keys are, so -U can sort by key
 * instead of comparing every pair.
 */
static char *uniq_key(const char *path)
{
	char *k = malloc(strlen(path) + 1), *o = k;

	if (!k)
		return NULL;
	for (const char *s = path; *s; s++)
		if (*s != '/' || s[1] != '/')
			*o++ = *s;
	while (o > k && o[-1] == '/')
		o--;
	*o = '\0';
	return k;
}

struct uniq_ent {
	char *key;
	size_t index;
};

static int uniq_ent_cmp(const void *a, const void *b)
{
	const struct uniq_ent *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* the group of entries (sorted by key) whose key is key; -1 if none */
static long uniq_group(const struct uniq_ent *e, const size_t *grp, size_t n, const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(e[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(e[lo].key, key) ? (long)grp[lo] : -1;
}

/*
 * -U: libmount's mnt_table_uniq_fs() as findmnt calls it, the last mount
 * of each mount point stays, the mount points compared by
 * mnt_fs_match_target(): the text by streq_paths(), so "/t/", "//t" and
 * "/t" is one mount point, even in a file no kernel wrote; else, with
 * the cache (not -C), the mount point resolved (mnt_resolve_path()).
 * libmount walks the table backward and compares each line with those
 * after it that are left, the table's last line first: a line whose text
 * that last line does not match resolves its mount point then, into the
 * cache that -c's SOURCE, -S and -T later read (once "/x//a" is cached, a
 * source "/x/a" prints as "/x//a").
 */
static int uniq_mark_gone(struct matcher *mt)
{
	struct uniq_ent *e = calloc(mt->n + 1, sizeof(*e));
	size_t *grp = calloc(mt->n + 1, sizeof(*grp)), *of = calloc(mt->n + 1, sizeof(*of));
	bool *left = calloc(mt->n + 1, sizeof(*left));
	struct mntsnap_mount m, last;
	int r = e && grp && of && left ? 0 : -ENOMEM;

	for (size_t i = 0; i < mt->n && !r; i++) {
		mntsnap_snapshot_get(mt->snap, i, &m);
		e[i] = (struct uniq_ent){ .key = uniq_key(m.mount_point), .index = i };
		if (!e[i].key)
			r = -ENOMEM;
	}
	if (r || !mt->n)
		goto out;
	qsort(e, mt->n, sizeof(*e), uniq_ent_cmp);
	for (size_t i = 0; i < mt->n; i++) {
		grp[i] = i && !strcmp(e[i].key, e[i - 1].key) ? grp[i - 1] : i;
		of[e[i].index] = grp[i];
	}
	mntsnap_snapshot_get(mt->snap, mt->n - 1, &last);
	for (size_t i = mt->n; i-- > 0;) {
		const char *cn = NULL;
		char *ck;
		long g = -1;

		mntsnap_snapshot_get(mt->snap, i, &m);
		if (i + 1 < mt->n && resolves(mt) && !streq_paths(last.mount_point, m.mount_point))
			cn = pathcache_path(&mt->pc, m.mount_point);
		if (cn) {
			if (!(ck = uniq_key(cn))) {
				r = -ENOMEM;
				break;
			}
			g = uniq_group(e, grp, mt->n, ck);
			free(ck);
		}
		mt->gone[i] = left[of[i]] || (g >= 0 && left[g]);
		if (!mt->gone[i])
			left[of[i]] = true;
	}
out:
	for (size_t i = 0; e && i < mt->n; i++)
		free(e[i].key);
	free(e);
	free(grp);
	free(of);
	free(left);
	return r;
}

/*
 * --shadowed (mnt_table_over_fs()): a line is over a child when a line
 * left (after -U) has its id as parent id and its mount point (the paths
 * compared as libmount does): by id, so every line of a repeated id, and
 * a namespace's root that is its own parent is over itself.
 */
static void over_ids(struct matcher *mt)
{
	struct mntsnap_mount m, c;
	size_t lo, hi;

	for (size_t k = 0; k < mt->n; k++) {
		if (mt->gone[k])
			continue;
		id_range(mt->byid, mt->nbyid, mt->lid, mt->lpid[k], &lo, &hi);
		if (lo == hi)
			continue;
		mntsnap_snapshot_get(mt->snap, k, &c);
		for (; lo < hi; lo++) {
			uint32_t i = mt->byid[lo];

			if (mt->over[i])
				continue;
			mntsnap_snapshot_get(mt->snap, i, &m);
			if (streq_paths(c.mount_point, m.mount_point))
				mt->over[i] = true;
		}
	}
}

static int tree_preorder(struct matcher *mt);

static int matcher_init(struct matcher *mt, const struct view *v,
			const struct mntsnap_snapshot *snap)
{
	size_t n = mntsnap_snapshot_count(snap);
	int r = 0;

	*mt = (struct matcher){ .v = v, .snap = snap, .n = n };
	mt->target_hit = calloc(n + 1, 1);
	mt->source_hit = calloc(n + 1, 1);
	mt->over = calloc(n + 1, 1);
	mt->gone = calloc(n + 1, 1);
	mt->parent = malloc((n + 1) * sizeof(*mt->parent));
	mt->order = malloc((n + 1) * sizeof(*mt->order));
	mt->lid = malloc((n + 1) * sizeof(*mt->lid));
	mt->lpid = malloc((n + 1) * sizeof(*mt->lpid));
	mt->byid = malloc((n + 1) * sizeof(*mt->byid));
	mt->kids = malloc((n + 1) * sizeof(*mt->kids));
	mt->kbeg = malloc((n + 1) * sizeof(*mt->kbeg));
	mt->kend = malloc((n + 1) * sizeof(*mt->kend));
	if (!mt->target_hit || !mt->source_hit || !mt->over || !mt->gone || !mt->parent ||
	    !mt->order || !mt->lid || !mt->lpid || !mt->byid || !mt->kids || !mt->kbeg ||
	    !mt->kend)
		return -ENOMEM;
	ids_init(mt);
	if (v->uniq) {
		r = uniq_mark_gone(mt);
		if (r)
			return r;
		uniq_move_parents(mt);
		/* -U's PARENT: the parent ids its moves left */
		if (mt->have_ids) {
			mt->parent_ids = malloc((n + 1) * sizeof(*mt->parent_ids));
			if (!mt->parent_ids)
				return -ENOMEM;
			memcpy(mt->parent_ids, mt->lpid, n * sizeof(*mt->lpid));
		}
	}
	links_init(mt);
	mt->root = root_rec(mt);
	if (v->shadowed)
		over_ids(mt);
	return tree_preorder(mt);
}

static void matcher_free(struct matcher *mt)
{
	free(mt->target_hit);
	free(mt->source_hit);
	free(mt->over);
	free(mt->gone);
	pathcache_free(&mt->pc);
	free(mt->parent);
	free(mt->parent_ids);
	free(mt->order);
	free(mt->lid);
	free(mt->lpid);
	free(mt->byid);
	free(mt->kids);
	free(mt->kbeg);
	free(mt->kend);
	ob_free(&mt->ob);
}

/*
 * findmnt with no filter: its list prints every mount without matching
 * (is_listall_mode()). -A only makes -D, --real and --pseudo no reason to
 * match; a lookup still matches, and with it --real and --pseudo filter.
 * stat's one mount is findmnt -T PATH's lookup (v->one).
 */
static bool listall(const struct view *v)
{
	if ((v->df || v->real || v->pseudo) && !v->all)
		return false;
	return !v->types && !v->options && !v->target && !v->mountpoint && !v->source &&
	       !v->devno && !v->match && !v->one;
}

/* One pass of findmnt's list lookup: the matches in the -d direction. */
static size_t find_all(struct matcher *mt, int32_t *found)
{
	size_t k = 0;

	for (size_t j = 0; j < mt->n; j++) {
		size_t i = mt->v->backward ? mt->n - 1 - j : j;

		if (!mt->gone[i] && match_one(mt, i))
			found[k++] = (int32_t)i;
	}
	return k;
}

/*
 * findmnt -f SOURCE works "like mount SOURCE" (is_mount_compatible_mode()):
 * a source that is no MAJ:MIN, without -t or -O, is looked up alone, so
 * -T/-M, -i, --real, --pseudo, --shadowed and -D's filter do not apply.
 */
static bool mount_compat(const struct matcher *mt)
{
	const struct view *v = mt->v;
	unsigned maj, min;

	return v->first_only && mt->source && !v->types && !v->options &&
	       !devno_parse(mt->source, &maj, &min);
}

/* The records in one direction (-U's dropped ones skipped): -1 at the end. */
static long next_rec_dir(const struct matcher *mt, size_t *j, bool backward)
{
	while (*j < mt->n) {
		size_t i = backward ? mt->n - 1 - *j : *j;

		(*j)++;
		if (!mt->gone[i])
			return (long)i;
	}
	return -1;
}

/* The records in the -d direction */
static long next_rec(const struct matcher *mt, size_t *j)
{
	return next_rec_dir(mt, j, mt->v->backward);
}

/*
 * The first pass of mnt_table_find_srcpath() (libmount built with btrfs
 * support, as findmnt is) takes a btrfs device's mount only where it is
 * the filesystem's default subvolume, as mount(8) would mount it: one of
 * the several mounts of a device (top volume, subvolumes). The mount
 * point is asked as it is now (btrfs.h), whatever table libmount reads.
 * A saved table's mount point is asked only where the btrfs there now is
 * on the device the saved source names: the same filesystem, present,
 * so its default subvolume is the record's too (findmnt -F asks any
 * btrfs it finds there, another machine's table or not).
 */
static bool btrfs_passed_over(struct matcher *mt, size_t i, const char *fstype)
{
	const struct column *fsopts = col_find("FS-OPTIONS", strlen("FS-OPTIONS"));
	struct obuf o = { 0 };
	struct mntsnap_mount m;
	const char *opts[1];
	bool r;

	if (!fstype || strcmp(fstype, "btrfs") || !fsopts)
		return false;
	mt_get(mt, i, &m);
	if (!(m.mask & MNTSNAP_F_MOUNT_POINT))
		return false;
	if (mt->v->saved && (!(m.mask & MNTSNAP_F_SOURCE) ||
			     btrfs_on_device(m.mount_point, m.source) != 1))
		return false;
	/* FS-OPTIONS: where libmount's mnt_fs_get_option() finds subvolid= */
	fsopts->get(&o, &m, &mt->v->out.cx);
	ob_putc(&o, '\0');
	opts[0] = o.err ? NULL : o.p;
	r = btrfs_not_default(fstype, m.mount_point, opts, 1);
	ob_free(&o);
	return r;
}

/*
 * mnt_table_find_srcpath(): pass after pass over the table, the first
 * record of the first pass that finds one - the path as written (a btrfs
 * mount of another subvolume than the default one passed over); through
 * the cache (not -C): the path resolved, a record's tag on that device,
 * every record's source resolved (never a pseudo or network filesystem's).
 * A saved table's sources are resolved here as well (resolves_source()):
 * its btrfs mounts the first pass passed over are found by the second.
 */
static long find_srcpath(struct matcher *mt, const char *path)
{
	const char *cn;
	long i;
	size_t j = 0;
	unsigned fl;

	while ((i = next_rec(mt, &j)) >= 0) {
		const char *src = src_path(mt, (size_t)i, &fl);
		char *tn, *tv;

		if (src_tag(src, &tn, &tv)) {
			free(tn), free(tv);
			continue;
		}
		if (!streq_srcpath(src, fl, path))
			continue;
		if (!btrfs_passed_over(mt, (size_t)i, mt->ob.err ? NULL : mt->ob.p))
			return i;
	}
	cn = resolves_source(mt) ? pathcache_path(&mt->pc, path) : NULL;
	if (!cn)
		return -1;
	for (int pass = 0; pass < 3; pass++)
		for (j = 0; (i = next_rec(mt, &j)) >= 0;) {
			const char *src = src_path(mt, (size_t)i, &fl), *rs;
			char *tn, *tv;
			bool tag = src_tag(src, &tn, &tv), hit = false;

			if (pass == 0 && !tag)
				hit = streq_srcpath(src, fl, cn);
			else if (pass == 1 && tag)
				hit = dev_has_tag(mt->v, cn, tn, tv, false);
			else if (pass == 2 && !tag && src && !(fl & (FS_PSEUDO | FS_NET)))
				hit = (rs = pathcache_path(&mt->pc, src)) && !strcmp(rs, cn);
			free(tn), free(tv);
			if (hit)
				return i;
		}
	return -1;
}

/* mnt_table_find_tag()'s first pass: a record whose own source is NAME=value */
static long find_tag_text(struct matcher *mt, const char *spec)
{
	char *n = NULL, *v = NULL, *tn, *tv;
	long i, hit = -1;
	size_t j = 0;
	unsigned fl;

	if (tags_parse(spec, &n, &v))
		return -1;
	while (hit < 0 && (i = next_rec(mt, &j)) >= 0) {
		if (!src_tag(src_path(mt, (size_t)i, &fl), &tn, &tv))
			continue;
		if (!strcmp(tn, n) && !strcmp(tv, v))
			hit = i;
		free(tn), free(tv);
	}
	free(n), free(v);
	return hit;
}

/*
 * mnt_table_find_target(): the first record (in the -d direction, or
 * backward) whose mount point is path by the text; then, for a relative
 * path, by the working directory and the text (a leading "./" or a lone
 * "." dropped: absolute_path()); then (the cache, not -C or a saved
 * table) by path resolved. The records' own mount points are a kernel
 * table's, never resolved. -1: none.
 */
static long find_mount_point(struct matcher *mt, const char *path, bool backward)
{
	struct mntsnap_mount m;
	char *alt = NULL;
	long i, hit = -1;
	size_t j = 0;

	if (!*path)
		return -1;
	while (hit < 0 && (i = next_rec_dir(mt, &j, backward)) >= 0) {
		mt_get(mt, (size_t)i, &m);
		if (streq_paths(m.mount_point, path))
			hit = i;
	}
	if (hit < 0 && path[0] != '/')
		alt = pathcache_absolute(path);
	for (int pass = 0; hit < 0 && pass < 2; pass++) {
		if (pass == 1) {
			free(alt);
			alt = resolves(mt) && pathcache_path(&mt->pc, path) ?
				      strdup(pathcache_path(&mt->pc, path)) : NULL;
		}
		for (j = 0; alt && hit < 0 && (i = next_rec_dir(mt, &j, backward)) >= 0;) {
			mt_get(mt, (size_t)i, &m);
			if (streq_paths(m.mount_point, alt))
				hit = i;
		}
	}
	free(alt);
	return hit;
}

/*
 * libmount's mnt_table_find_mountpoint(): the record (the table read
 * backward) whose mount point path is on, found by path's text with its
 * last component stripped off until one matches - as long as path
 * exists (a saved table: never asked, its paths are never looked at
 * here); what is left of one character ("m" of "m/x") ends the walk, and
 * "/" is the last try. -1: none.
 */
static long find_mount_point_of(struct matcher *mt, const char *path)
{
	struct stat st;
	char *p, *slash;
	long i = -1;

	if (!*path || (!mt->v->saved && fstatat(AT_FDCWD, path, &st, AT_NO_AUTOMOUNT)))
		return -1;
	p = strdup(path);
	if (!p)
		return -1;
	do {
		i = find_mount_point(mt, p, true);
		if (i >= 0)
			break;
		slash = strrchr(p, '/');
		if (!slash)
			break;
		*slash = '\0';
	} while (p[1] != '\0'); /* libmount's test: for "" the byte after (never a NUL) */
	free(p);
	return i >= 0 ? i : find_mount_point(mt, "/", true);
}

/*
 * findmnt -T PATH that matched nothing (enable_extra_target_match()):
 * the mount point PATH is on (PATH resolved through the cache first,
 * not under -C or for a saved table) takes PATH's place, by the text of
 * its line, and the match runs again with it. false: no other target.
 */
static bool extra_target(struct matcher *mt, const char *path)
{
	const char *tgt = resolves(mt) ? pathcache_path(&mt->pc, path) : path;
	struct mntsnap_mount m;
	long i;

	if (!tgt)
		return false;
	i = find_mount_point_of(mt, tgt);
	if (i < 0)
		return false;
	mntsnap_snapshot_get(mt->snap, (size_t)i, &m);
	if (!strcmp(m.mount_point, tgt))
		return false;
	/* the snapshot's string: valid as long as the matcher */
	mt->target = m.mount_point;
	mark_target_text(mt, mt->target);
	mark_source(mt);
	return true;
}

/*
 * -f's lookup (mnt_table_find_source(), then, for an argument that may be
 * either, mnt_table_find_target() as mount(8) does): at most one record.
 */
static size_t find_first_source(struct matcher *mt, int32_t *found)
{
	const struct view *v = mt->v;
	/*
	 * findmnt retries the SOURCE as a mount point unless FL_NOSWAPMATCH:
	 * a tag, -T/-M, or -S MAJ:MIN (set_source_match() sets it for a
	 * device number; this lookup then ignores the MAJ:MIN itself).
	 */
	bool swap = (v->tag_swap || (!v->source_tag && !tags_is_devtag(mt->source) &&
				     (v->match || v->pair))) &&
		    !v->target && (!v->mountpoint || v->pair) && !v->devno;
	/* the text a swap tries as a mount point: an ID= tag's own */
	const char *text = v->tag_swap ? v->source_tag : mt->source;
	long i = -1;

	/* a tag: by its text first, then (evaluated, not -C) its device */
	if (v->source_tag)
		i = find_tag_text(mt, v->source_tag);
	/* not a tag's text; a text that reads as a tag but is none is a path */
	if (i < 0 && mt->source[0] && !(v->source_tag && !strcmp(mt->source, v->source_tag)))
		i = find_srcpath(mt, mt->source);
	if (i < 0 && swap && text[0])
		i = find_mount_point(mt, text, mt->v->backward);
	if (i < 0)
		return 0;
	found[0] = (int32_t)i;
	return 1;
}

/*
 * findmnt's add_matching_lines(): the mounts a lookup or filter finds,
 * in the -d direction, with findmnt's fallbacks (a positional SOURCE
 * tried as a mount point; -T PATH as the mount point PATH is on). Returns
 * how many, into found[].
 */
static size_t find_list(struct matcher *mt, int32_t *found)
{
	const struct view *v = mt->v;
	bool noswap = (v->source && !v->tag_swap) || v->devno || v->target ||
		      v->mountpoint || (v->match && tags_is_devtag(v->match));
	size_t k = 0;

	if (listall(v)) {
		for (size_t j = 0; j < mt->n; j++) {
			size_t i = v->backward ? mt->n - 1 - j : j;

			if (!mt->gone[i])
				found[k++] = (int32_t)i;
		}
		return k;
	}
	if (mount_compat(mt))
		return find_first_source(mt, found);
	k = find_all(mt, found);
	if (!k && !noswap && mt->source && !mt->target) {
		/* a SOURCE no mount has: the mount point of that name (an ID= tag's text) */
		mt->target = v->tag_swap ? v->source_tag : mt->source;
		mt->source = NULL;
		mark_target_text(mt, mt->target);
		mark_source(mt);
		k = find_all(mt, found);
	}
	if (!k && noswap && v->target && !v->mountpoint && mt->target &&
	    extra_target(mt, mt->target))
		k = find_all(mt, found);
	return k;
}

/*
 * findmnt's whole tree, line by line (create_treenode()): from libmount's
 * root (mnt_table_get_root_fs(): the smallest parent id, walked up; the
 * first of the preorder), each mount's children by mount id, a mount
 * that does not match leaving its place to its children. Then, as long
 * as the table has more mounts than lines, every mount not drawn that
 * matches, in the table's order, with its subtree: the roots of a table
 * whose parents are missing come in the table's order, and a mount
 * listed before its parent's line is drawn again under it (findmnt only
 * asks whether the mount it starts from is drawn).
 */
struct lines {
	int32_t *rec;
	uint32_t *depth;
	size_t n, cap;
};

static int lines_add(struct lines *l, uint32_t i, uint32_t d)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		int32_t *rec = realloc(l->rec, cap * sizeof(*rec));
		uint32_t *depth;

		if (!rec)
			return -ENOMEM;
		l->rec = rec;
		depth = realloc(l->depth, cap * sizeof(*depth));
		if (!depth)
			return -ENOMEM;
		l->depth = depth;
		l->cap = cap;
	}
	l->rec[l->n] = (int32_t)i;
	l->depth[l->n++] = d;
	return 0;
}

struct draw {
	const struct matcher *mt;
	const bool *match;  /* the lines a mount that matches takes (NULL: -R's, every one) */
	bool *drawn;
	/*
	 * findmnt_walk(): called at a record's first visit, before its match
	 * is read (it sets it); visited: the records it was called for
	 */
	void (*visit)(void *data, uint32_t rec);
	void *data;
	bool *visited;
	struct pending {
		uint32_t rec, depth; /* the depth its line takes */
		uint32_t level;      /* below the subtree's top, drawn or not */
	} *stack;
	size_t cap;
	struct lines *l;
};

static int draw_push(struct draw *dr, size_t *sp, struct pending p)
{
	if (*sp == dr->cap) {
		size_t cap = dr->cap ? 2 * dr->cap : 64;
		struct pending *s = realloc(dr->stack, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		dr->stack = s, dr->cap = cap;
	}
	dr->stack[(*sp)++] = p;
	return 0;
}

static void draw_visit(struct draw *dr, uint32_t rec)
{
	if (dr->visit && !dr->visited[rec]) {
		dr->visited[rec] = true;
		dr->visit(dr->data, rec);
	}
}

/*
 * create_treenode(root, NULL): root's subtree, depth first, without
 * recursion, each line's children by libmount's links (links_init()).
 * findmnt's tree draws a child under every line of its parent's id;
 * -R (match NULL) draws each mount once, a child already drawn left out
 * with its subtree (has_line()). An id cycle would never end (findmnt
 * loops): a path longer than the table is one, -ELOOP.
 */
static int draw_subtree(struct draw *dr, uint32_t root)
{
	const struct matcher *mt = dr->mt;
	size_t sp = 0;
	int r = draw_push(dr, &sp, (struct pending){ root, 0, 0 });

	while (!r && sp) {
		struct pending p = dr->stack[--sp];

		if (!dr->match && dr->drawn[p.rec])
			continue;
		if (p.level > mt->n)
			return -ELOOP;
		draw_visit(dr, p.rec);
		if (!dr->match || dr->match[p.rec]) {
			r = lines_add(dr->l, p.rec, p.depth++);
			dr->drawn[p.rec] = true;
		}
		/* pushed last first: the smallest id pops first */
		for (uint32_t c = mt->kend[p.rec]; !r && c-- > mt->kbeg[p.rec];)
			r = draw_push(dr, &sp, (struct pending){ mt->kids[c], p.depth, p.level + 1 });
	}
	return r;
}

static int draw_init(struct draw *dr, const struct matcher *mt, const bool *match,
		     struct lines *l)
{
	*dr = (struct draw){ .mt = mt, .match = match, .l = l };
	*l = (struct lines){ 0 };
	dr->drawn = calloc(mt->n + 1, sizeof(*dr->drawn));
	return dr->drawn ? 0 : -ENOMEM;
}

static void draw_free(struct draw *dr, int r)
{
	free(dr->drawn), free(dr->stack), free(dr->visited);
	if (r) {
		free(dr->l->rec), free(dr->l->depth);
		*dr->l = (struct lines){ 0 };
	}
}

static int draw_lines(struct draw *dr)
{
	const struct matcher *mt = dr->mt;
	bool rest;
	int r = 0;

	if (mt->root >= 0)
		r = draw_subtree(dr, (uint32_t)mt->root);
	rest = dr->l->n < mt->nbyid;
	/* asked once, before the loop: the lines it draws twice count too */
	for (size_t i = 0; !r && rest && i < mt->n; i++) {
		if (mt->gone[i] || dr->drawn[i])
			continue;
		draw_visit(dr, (uint32_t)i);
		if (dr->match[i])
			r = draw_subtree(dr, (uint32_t)i);
	}
	return r;
}

static int findmnt_lines(const struct matcher *mt, const bool *match, struct lines *l)
{
	struct draw dr;
	int r = draw_init(&dr, mt, match, l);

	if (!r)
		r = draw_lines(&dr);
	draw_free(&dr, r);
	return r;
}

/*
 * The records in the order findmnt's whole tree asks match_func() of
 * them for the first time: its lines drawn as findmnt_lines() draws
 * them, visit(data, i) called at each record's first visit (a record
 * that does not match is visited too, its children after it), and it
 * sets match[i]. Its lines are dropped.
 */
static int findmnt_walk(const struct matcher *mt, const bool *match,
			void (*visit)(void *data, uint32_t rec), void *data)
{
	struct lines l;
	struct draw dr;
	int r = draw_init(&dr, mt, match, &l);

	dr.visit = visit, dr.data = data;
	if (!r && !(dr.visited = calloc(mt->n + 1, sizeof(*dr.visited))))
		r = -ENOMEM;
	if (!r)
		r = draw_lines(&dr);
	draw_free(&dr, r);
	free(l.rec), free(l.depth);
	return r;
}

/*
 * -R (create_treenode() with FL_SUBMOUNTS): each mount found, in the
 * order found, with what is below it and not drawn yet; each mount is
 * drawn once. Sets match[] and roots[] to what it drew.
 */
static int submount_lines(const struct matcher *mt, const int32_t *found, size_t k, bool *match,
			  int32_t *roots, size_t *nroots, struct lines *l)
{
	struct draw dr;
	int r = draw_init(&dr, mt, NULL, l);

	for (size_t j = 0; !r && j < k; j++) {
		if (dr.drawn[found[j]])
			continue;
		roots[(*nroots)++] = found[j];
		r = draw_subtree(&dr, (uint32_t)found[j]);
	}
	for (size_t i = 0; !r && i < mt->n; i++)
		match[i] = dr.drawn[i];
	draw_free(&dr, r);
	return r;
}

/*
 * Every record left once, by the tree: from the root, then each record
 * not reached in the table's order (the list forms' walk when no lines
 * are drawn).
 */
static int tree_preorder(struct matcher *mt)
{
	struct lines l;
	struct draw dr;
	int r = draw_init(&dr, mt, NULL, &l);

	if (!r && mt->root >= 0)
		r = draw_subtree(&dr, (uint32_t)mt->root);
	for (size_t i = 0; !r && i < mt->n; i++)
		if (!mt->gone[i] && !dr.drawn[i])
			r = draw_subtree(&dr, (uint32_t)i);
	for (size_t k = 0; !r && k < l.n; k++)
		mt->order[k] = (uint32_t)l.rec[k];
	mt->norder = r ? 0 : l.n;
	draw_free(&dr, r);
	free(l.rec), free(l.depth);
	return r;
}

static int build_match(struct view *v, struct matcher *mt, bool tree, bool submounts,
		       bool *match, int32_t *roots, size_t *nroots, struct lines *l)
{
	size_t n = mt->n, k;
	int32_t *found = malloc((n + 1) * sizeof(*found));
	int r;

	if (!found)
		return -ENOMEM;
	*nroots = 0;
	mt->target = v->mountpoint ? v->mountpoint : v->target;
	mt->source = v->source ? v->source : v->match;
	/*
	 * findmnt -f's lookup (mnt_table_find_source()) resolves nothing
	 * until the text found nothing, and -c prints through that cache
	 */
	/* findmnt's whole tree asks its records in the tree's order */
	mt->tree_walk = tree && !submounts;
	if (!(tree && !submounts) && mount_compat(mt))
		goto lookup;
	if (mt->target)
		mark_target_text(mt, mt->target);
	mark_source(mt);
	if (tree && !submounts) {
		/* findmnt's whole tree: every mount its matching keeps */
		for (size_t i = 0; i < n; i++)
			match[i] = !mt->gone[i] && match_one(mt, i);
		free(found);
		return mt->ob.err;
	}
lookup:
	k = find_list(mt, found);
	if (v->first_only && k > 1)
		k = 1;
	if (!submounts) {
		for (size_t j = 0; j < k; j++) {
			match[found[j]] = true;
			roots[(*nroots)++] = found[j];
		}
		free(found);
		return mt->ob.err;
	}
	r = submount_lines(mt, found, k, match, roots, nroots, l);
	free(found);
	return r ? r : mt->ob.err;
}

long view_target_top(const struct out_locale *loc, const struct mntsnap_snapshot *snap,
		     const char *path)
{
	size_t n = mntsnap_snapshot_count(snap), k;
	int32_t *found = malloc((n + 1) * sizeof(*found));
	struct matcher mt;
	struct view lv;
	long r;

	if (!found)
		return -ENOMEM;
	/* a plain findmnt -T PATH: no filter, stat applies its own after */
	view_init(&lv, loc);
	lv.target = path;
	r = matcher_init(&mt, &lv, snap);
	if (!r) {
		mt.target = path;
		mark_target_text(&mt, path);
		mark_source(&mt);
		k = find_list(&mt, found);
		r = mt.ob.err ? mt.ob.err : k ? found[k - 1] : -ENOENT;
	}
	matcher_free(&mt);
	free(found);
	return r;
}

static bool pick(const struct mntsnap_mount *m, void *data)
{
	return ((const bool *)data)[m->index];
}

/*
 * The text into stdout's buffer, not flushed: the library's render
 * flushes its stream, and a closed stdout's EBADF at that last flush is
 * no error to findmnt's commands (main.c's finish() decides).
 */
static int render_unflushed(const struct mntsnap_snapshot *snap)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int r;

	if (!mem)
		return -errno;
	r = mntsnap_render(snap, MNTSNAP_FORMAT_MOUNTINFO, mem);
	if (fclose(mem) && !r)
		r = -ENOMEM;
	if (!r && len && fwrite(text, 1, len, stdout) != len)
		r = errno ? -errno : -EIO;
	free(text);
	return r;
}

/* The kernel's text for the matching records only. */
static int print_mountinfo(const struct mntsnap_snapshot *snap, const bool *match,
			   const char *cmd)
{
	struct mntsnap_snapshot *sub = NULL;
	int r = mntsnap_snapshot_filter(snap, pick, (void *)match,
					&sub);

	if (r)
		return cli_fail(r, "%s", cmd);
	r = render_unflushed(sub);
	if (r) {
		mntsnap_snapshot_free(sub);
		return cli_fail(r, "%s: writing output", cmd);
	}
	r = mntsnap_snapshot_count(sub) ? 0 : 1;
	mntsnap_snapshot_free(sub);
	return r;
}

int view_print(struct view *v, const char *cmd, const struct mntsnap_snapshot *snap)
{
	size_t n = mntsnap_snapshot_count(snap), hits = 0, nroots = 0;
	bool lookup = v->target || v->mountpoint || v->source || v->devno || v->match || v->one;
	bool submounts = v->submounts && !listall(v);
	struct matcher mt;
	struct lines lines = { 0 };
	bool *match = calloc(n + 1, sizeof(*match)), tree, draw = false;
	int32_t *roots = malloc((n + 1) * sizeof(*roots));
	char **root_src = NULL;
	long r;

	if (v->poll_only) {
		free(match), free(roots);
		return view_poll_only(v, cmd);
	}
	/*
	 * findmnt's tree: on unless -l, -r, -P, -D, -m, or a lookup or -f
	 * without -R; --tree turns it back on (a kernel table is a tree).
	 */
	tree = !v->list_forced && v->out.mode != OUT_RAW && v->out.mode != OUT_PAIRS &&
	       !v->no_tree && (submounts || !(lookup || v->first_only));
	if (v->force_tree)
		tree = true;
	/*
	 * findmnt draws a tree only of a table that is one (tab_is_tree(): its
	 * last entry a kernel one with a root): an empty table is none, so
	 * even its -J form prints nothing
	 */
	if (!n)
		tree = false;
	if (!match || !roots) {
		free(match), free(roots);
		return cli_fail(-ENOMEM, "%s", cmd);
	}
	/*
	 * findmnt's "/dev/root": the real device, for the lookups and columns;
	 * by this machine's /sys and kernel command line, so never for a saved
	 * table, which may be another machine's and is read by its text alone
	 */
	r = v->saved ? 0 : devroot_names(snap, &root_src);
	if (r) {
		free(match), free(roots);
		return cli_fail((int)r, "%s", cmd);
	}
	v->out.cx.root_src = root_src;
	r = matcher_init(&mt, v, snap);
	/*
	 * -c prints through the cache the lookups fill, as findmnt's does, and
	 * the tag columns probe a source as that cache resolves it: a
	 * spelling the lookups left there ("/dev/sda1/", which realpath()
	 * refuses, kept as written and found again for "/dev/sda1") is what
	 * -c prints and what libmount opens, in vain, for LABEL and UUID. A
	 * saved table's sources too (show): they are resolved here, through
	 * that cache, as findmnt -F resolves them (resolves_source()).
	 */
	if (!v->nocanon) {
		v->out.cx.paths = &mt.pc;
		if (v->out.cx.canonicalize)
			v->out.cx.cache = &mt.pc;
	}
	if (!r)
		r = build_match(v, &mt, tree, submounts, match, roots, &nroots, &lines);
	if (!r && tree && !submounts)
		r = findmnt_lines(&mt, match, &lines);
	if (r) {
		matcher_free(&mt);
		free(match), free(roots);
		v->out.cx.cache = NULL;
		v->out.cx.paths = NULL;
		v->out.cx.root_src = NULL;
		devroot_free(root_src, n);
		return cli_fail((int)r, "%s", cmd);
	}
	/* findmnt draws its tree on TARGET: without that column, a tree's order, flat */
	for (size_t c = 0; c < v->out.ncols; c++)
		draw |= tree && v->out.cols[c] == &cols_all[0];
	if (v->out.mode == OUT_TREE || v->out.mode == OUT_LIST)
		v->out.mode = draw ? OUT_TREE : OUT_LIST;
	v->out.json_flat = !draw;
	v->out.tree_lines = draw && (v->out.mode == OUT_RAW || v->out.mode == OUT_PAIRS);
	v->out.walk_tree = tree || submounts;
	v->out.tree_parent = mt.parent;
	v->out.tree_order = mt.order;
	v->out.ntree = mt.norder;
	v->out.cx.parent_ids = mt.parent_ids;
	v->out.roots = tree && !submounts ? NULL : roots;
	v->out.nroots = nroots;
	v->out.line_rec = lines.rec;
	v->out.line_depth = lines.depth;
	v->out.nlines = lines.n;
	if (v->mountinfo) {
		r = print_mountinfo(snap, match, cmd);
		goto out;
	}
	/*
	 * nothing matched: findmnt prints nothing, but for its whole tree in
	 * JSON: an empty list. Its tree mode holds without a TARGET column
	 * too (only the art goes), so json_flat is no reason to print nothing.
	 */
	for (size_t i = 0; i < n; i++)
		hits += match[i];
	if (!hits && (v->out.mode != OUT_JSON || !tree || submounts)) {
		r = 1;
		goto out;
	}
	r = out_render(snap, match, &v->out, stdout);
	if (r < 0)
		r = cli_fail((int)r, "%s: writing output", cmd);
	else
		r = r ? 0 : 1;
out:
	v->out.tree_parent = NULL, v->out.tree_order = NULL, v->out.roots = NULL;
	v->out.line_rec = NULL, v->out.line_depth = NULL;
	v->out.cx.parent_ids = NULL;
	v->out.cx.cache = NULL;
	v->out.cx.paths = NULL;
	v->out.cx.root_src = NULL;
	/* the cells its rows kept when found: this listing's, printed or not */
	tags_kept_clear(v->out.cx.tags);
	devroot_free(root_src, n);
	free(lines.rec), free(lines.depth);
	matcher_free(&mt);
	free(match);
	free(roots);
	return (int)r;
}
